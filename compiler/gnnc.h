/* gnnc.h -- the one header of the compiler, in sections, one per phase.
 *
 * The compiler is a straight pipeline over one compilation context (GnnCtx): no globals.
 *   source text --lexer.l/parser.y--> AST --sema--> operator IR --passes--> operator IR
 * and the float64 interpreter (interp.c) evaluates the operator IR on a graph.
 *
 * Memory: every AST node and IR value lives in the context's arena and is freed in one go
 * with the context (gnn_ctx_free). Nothing else is heap-allocated for the lifetime of a
 * compilation, so an error path never has to free anything by hand.
 */
#ifndef GNNC_H
#define GNNC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define GNN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GNN_PRINTF(a, b)
#endif

/* ===================================================================== arena.c */

typedef struct ArenaBlock ArenaBlock;
typedef struct {
  ArenaBlock *head;
  size_t used_total;
} Arena;

void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned; aborts only on OOM */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) GNN_PRINTF(2, 3);
void arena_free(Arena *a);
/* A point to return to: arena_release frees everything allocated since arena_mark (a scratch
 * use of the arena, such as a lowering thrown away: nothing older may point into it). */
typedef struct {
  ArenaBlock *head;
  size_t used, used_total;
} ArenaMark;
ArenaMark arena_mark(const Arena *a);
void arena_release(Arena *a, ArenaMark m);

/* A growable array of pointers whose storage lives in an arena. */
typedef struct {
  void **items;
  int len, cap;
} PtrVec;
void vec_push(Arena *a, PtrVec *v, void *p);

/* A hash map from strings to pointers, stored in an arena. Keys are not copied; a key whose
 * value was set to NULL reads as absent. */
typedef struct {
  const char **keys;
  void **vals;
  int len, cap;
} StrMap;
void *strmap_get(const StrMap *m, const char *key);     /* NULL if absent */
void **strmap_put(Arena *a, StrMap *m, const char *key); /* the key's slot, added (NULL) if absent */

/* ===================================================================== diag.c */

/* A source position: 1-based line and column, and the length of the span to underline. */
typedef struct {
  int line, col, len;
} Loc;

typedef struct {
  const char *path;  /* as given on the command line */
  const char *text;  /* whole file, size bytes (NUL bytes included) and a terminating NUL */
  size_t size;
  FILE *out;         /* where diagnostics go (stderr; NULL = count only, for the fuzzer) */
  int errors;
  int max_errors;    /* stop reporting after this many */
} Diag;

void diag_error(Diag *d, Loc loc, const char *fmt, ...) GNN_PRINTF(3, 4);
void diag_note(Diag *d, Loc loc, const char *fmt, ...) GNN_PRINTF(3, 4);
void diag_verror(Diag *d, const char *kind, Loc loc, const char *fmt, va_list ap);
bool diag_too_many(const Diag *d);
/* A source file, whole and NUL-terminated (a Diag's text): malloc'ed, *size its bytes (NUL bytes
 * included); NULL when it cannot be read (errno says why) or memory runs out. */
char *read_source_file(const char *path, size_t *size);
/* The version gnnc --version prints; the runtime's API version is GNNRT_VERSION_* in gnnrt.h. */
#define GNNC_VERSION "0.1.0"
/* Sources larger than this are refused (errno EFBIG), so reading /dev/zero ends. */
#define GNNC_MAX_SOURCE_BYTES ((size_t)64 << 20)
/* The reason read_source_file failed, for errno err: strerror, or the size limit. */
const char *read_source_error(int err);

/* ===================================================================== AST (parser.y) */

/* DOM_GRAPH: a row per graph of a batch of graphs (one graph when the data has no
 * graph_indicator.txt): what readouts give and graph classifiers output. */
typedef enum { DOM_VERTEX, DOM_EDGE, DOM_PARAM, DOM_GLOBAL, DOM_GRAPH } Domain;
const char *domain_name(Domain d);
const char *domain_a(Domain d); /* with its article: "a vertex", "an edge", "a param", "a global" */

/* A dimension expression: 8, D, 2*D, F+1 ... evaluated when a layer is instantiated. */
typedef struct DimExpr DimExpr;
struct DimExpr {
  enum { DX_NUM, DX_NAME, DX_BIN } kind;
  int op; /* '+', '-', '*', '/' */
  int64_t num;
  const char *name;
  DimExpr *lhs, *rhs;
  Loc loc;
  bool is_real;      /* DX_NUM written as a real (0.5, 1e-3) or negated: only a hyper-parameter takes it */
  double real;       /* DX_NUM: the literal's value (negated for '-' NUMBER) */
  const char *key;   /* a call's named generic argument `key = value`, else NULL */
  Loc key_loc;       /* where the key is written */
};

typedef struct {
  Domain dom;     /* DOM_PARAM for a parameter's shape */
  DimExpr **dims;
  int ndims;
  Loc loc;
} TypeSpec;

typedef enum { N_NUM, N_NAME, N_INDEX, N_CALL, N_BINOP, N_NEG } NodeKind;

typedef struct Node Node;
struct Node {
  NodeKind kind;
  Loc loc;
  double num;        /* N_NUM */
  const char *name;  /* N_NAME, N_CALL (callee), N_INDEX ("src"/"dst") */
  int op;            /* N_BINOP: '+', '-', '*', '/', '@' */
  Node *lhs, *rhs;   /* N_BINOP, N_NEG (lhs), N_INDEX (lhs = indexed value) */
  Node **args;       /* N_CALL */
  int nargs;
  DimExpr **gens;    /* N_CALL: explicit generic arguments <...> */
  int ngens;
  bool has_gens;
};

typedef enum { S_ASSIGN, S_PARAM, S_RETURN, S_FOR } StmtKind;
typedef struct Stmt Stmt;
struct Stmt {
  StmtKind kind;
  const char *name;
  Loc loc, name_loc;
  Node *expr;      /* S_ASSIGN, S_RETURN; S_PARAM: its initial value (`= 1`), or NULL */
  Node **exprs;    /* S_RETURN: every returned value (exprs[0] = expr) */
  int nexprs;
  const char **names; /* S_ASSIGN: every name bound, `a, b = L(x)` (names[0] = name) */
  Loc *name_locs;
  int nnames;
  TypeSpec *type;  /* S_PARAM */
  DimExpr *from, *to; /* S_FOR: for NAME in from..to (to excluded) */
  Stmt **body;     /* S_FOR: the loop's body */
  int nbody;
};

typedef struct {
  const char *name;
  Loc loc;
  TypeSpec *type;
} ParamDecl; /* an input of a layer or model: x: vertex[F] */

typedef struct {
  bool is_model;
  const char *name;
  Loc loc;
  const char **gens; /* generic names <H, D, alpha = 0.1> */
  Loc *gen_locs;     /* where each is written */
  bool *gen_hyper;   /* a real hyper-parameter (declared with a default), not a dimension */
  double *gen_default; /* a hyper-parameter's default value */
  int ngens;
  ParamDecl **inputs;
  int ninputs;
  TypeSpec *ret;     /* rets[0] */
  TypeSpec **rets;   /* the result types: one, or a layer's several `-> (vertex[D], edge[H])` */
  int nrets;
  Stmt **body;
  int nbody;
} Decl;

typedef struct {
  PtrVec decls; /* Decl* */
} Program;

/* ===================================================================== operator IR (ir.c) */

#define GNN_MAX_RANK 4
#define GNN_MAX_ARGS 3
#define GNN_MAX_ROW_ELEMS (1 << 24) /* elements in one row of a value */

typedef struct {
  int rank;
  int64_t d[GNN_MAX_RANK];
} Shape;
int64_t shape_elems(const Shape *s);
bool shape_eq(const Shape *a, const Shape *b);
char *shape_str(Arena *a, const Shape *s); /* "[8, 8]" */

typedef enum {
#define OP(e, n, lo, hi, doc) e,
#include "ops.def"
#undef OP
  OP__COUNT
} OpKind;

typedef enum {
#define FN(e, n, ar, w, al, fl) e,
#include "funcs.def"
#undef FN
  FN__COUNT
} FnKind;

enum { W_SCATTER = 1, W_REDUCE = 2, W_MESSAGE = 4, W_APPLY = 8, W_RS = 16, W_LEAF = 32 };
enum { A_LIN0 = 1, A_LIN1 = 2, A_JOINT = 4, A_EXPENSIVE = 8, A_ROWWISE = 16, A_PARTIAL = 32 };

typedef struct {
  const char *name;
  int min_args, max_args;
  const char *doc;
} OpInfo;
typedef struct {
  const char *name;
  int arity, where, algebra, flops;
} FnInfo;
extern const OpInfo op_info[OP__COUNT];
extern const FnInfo fn_info[FN__COUNT];
bool fn_lookup(const char *name, int where, FnKind *out);

/* The algebra the rewrite passes rely on. For an Apply function f whose operand `arg` is the
 * output of scatter.s and whose other operands are per-model (param/global):
 *   SC_NO       no exact rewrite;
 *   SC_COMMUTE  f(s(a, b)) = s(f(a), f(b)) (f applied per vertex, then scattered);
 *   SC_SPLIT    f(u_concat_v(a, b)) = u_add_v(f_l(a), f_r(b)) with f split along the concat
 *               (linear and dot by a parameter). */
typedef enum { SC_NO, SC_COMMUTE, SC_SPLIT } ScatterAlgebra;
ScatterAlgebra fn_commutes_with_scatter(FnKind f, int arg, FnKind scatter);

/* The element type of a value's rows: float (f64 in the interpreter, f32 in generated code),
 * or int32 for the arg indices that gather.argmax/argmin keep for the backward pass. */
typedef enum { ELEM_F32, ELEM_I32, ELEM_F64 } ElemType; /* F64: kernel scratch only (accumulators) */

/* Which in-edges a gather reduces over: those of each destination (the forward direction,
 * CSR), or the out-edges of each source (the backward of a src-side scatter, CSC). */
enum { GATHER_BY_DST = 0, GATHER_BY_SRC = 1, GATHER_BY_GRAPH = 2 /* kernels only: a readout's walk over a graph's vertices */ };

typedef struct Value Value;
struct Value {
  int id;            /* position in the module, renumbered by module_compact */
  OpKind op;
  FnKind fn;         /* the function attribute (reduction for gather/aggregate) */
  FnKind msg;        /* aggregate only: the message function */
  Domain dom;
  ElemType elem;
  Shape shape;       /* for apply.reshape: the target shape, set before ir_make */
  int nargs;
  Value *args[GNN_MAX_ARGS];
  double fattr;      /* const value; leaky_relu slope; elu alpha; dropout p */
  int64_t iattr;     /* repeat count; dropout stream; slice start; pad offset; gather direction */
  int64_t iattr2;    /* slice end; pad width */
  const char *name;  /* input or parameter name */
  const char *label; /* the source's name for it, if any: the name it was first bound to, after its
                        layer instance's path ("gatconv0.e"; "h" in the model itself). Passes hand
                        it to a value that replaces this one (ir_inherit_label); only the names of
                        generated code read it (the kernel IR's buffers and kernels) */
  Loc loc;           /* where in the source it came from (0 if synthesised) */
  bool bwd;          /* computed by the backward pass (made by autodiff) */
  int nuses;         /* maintained by module_count_uses */
  bool dead;
  Value *repl;       /* scratch for passes (replacement) */
  /* set by the fuse pass (passes/fuse.c); zero before it, which means "unfused" */
  unsigned char sched; /* Sched: how the value is computed */
  int group;           /* SCHED_ROOT / SCHED_ANCHOR: the fused group (kernel) that computes it */
  /* set by the checkpoint pass (passes/checkpoint.c); zero before it, or without it */
  unsigned char ckpt;  /* Ckpt: what becomes of a forward value the backward reads */
  float ckpt_flops;    /* FLOPs per element to recompute it from what is in memory (1e9: cannot) */
  Value *recomputes;   /* a backward value: the forward value it recomputes (the same numbers) */
  Value *recomputed_as;/* a forward value the backward recomputes: its backward copy */
  Value *stat_of;      /* gather.max / gather.sum of an edge_softmax's scores: its per-vertex */
  unsigned char stat;  /*   running max (STAT_MAX) or denominator (STAT_SUM), stashed for the backward */
  /* set by the fuse pass: computed in float64 in the kernels (an expression, a buffer). The
   * attention backward's t_v = <g_v, out_v> and the per-edge d(alpha) it is subtracted from
   * cancel where one edge carries a vertex's attention; float32 would keep only the rounding.
   * Forward values: out_v (kept for the backward in a float64 stash) and the alpha' it sums
   * with (multiplied in float64; stored as float if stored per edge). */
  bool f64;
  bool reads_f64_stash; /* t_v's product: reads out_v from its float64 stash; every other kernel
                           reads out_v as the forward rounded it */
  /* set by the fuse pass: an attention dot a . h of a GEMM result h = x W, computed by h's GEMM
   * as extra columns, h_cat = x [W | W.a] (group: h's; buffer: h's, a column range of it) */
  bool folded;
};

/* The checkpoint pass's decision for a forward value the backward reads (docs/passes/checkpoint.md):
 *   CKPT_NONE       no decision (the pass did not run: -fno-recompute): fuse stashes it;
 *   CKPT_STASH      kept in memory from the forward to its last backward use;
 *   CKPT_RECOMPUTE  recomputed in the backward kernels that read it (inline, or from stashed
 *                   per-vertex statistics for an edge_softmax). */
typedef enum { CKPT_NONE, CKPT_STASH, CKPT_RECOMPUTE } Ckpt;
enum { STAT_NONE, STAT_MAX, STAT_SUM };

/* How the fuse pass schedules a value (docs/passes.md, fuse):
 *   SCHED_UNFUSED  no decision (fuse did not run): lower gives the value a kernel of its own;
 *   SCHED_INLINE   never in memory: every kernel that reads it recomputes it from its operands
 *                  (index arithmetic for views, registers for element-wise work);
 *   SCHED_ROOT     written to a buffer by its group's kernel (read by other kernels, a GEMM,
 *                  the backward, or the caller);
 *   SCHED_ANCHOR   a reduction computed by its group's walk; kept in registers / shared memory
 *                  unless another kernel reads it (then it is also written: anchor_root);
 *   SCHED_LIBRARY  a library call of its own, its operands and result in memory: a dense
 *                  projection (cuBLAS / cblas) or, with --spmm=cusparse, a plain weighted sum
 *                  over the edges (cuSPARSE / the host runtime's loop; value_spmm_operands);
 *   SCHED_LEAF     an input, parameter, constant or degree. */
typedef enum { SCHED_UNFUSED, SCHED_INLINE, SCHED_ROOT, SCHED_ANCHOR, SCHED_LIBRARY, SCHED_LEAF } Sched;

/* A fused group: one kernel. */
/* FG_WALK: vertex-balanced walks over the edges of each vertex; FG_ROWS: a group of lanes per
 * row (vertex, edge or the one global row), and the sums over the rows that joined it (over
 * vertex rows: fuse.c's sink_host); FG_EDGE_REDUCE: one edge-balanced reduction with
 * atomics (--mapping=edge); FG_SINK: a sum over all rows (reduce_rows) into a global value;
 * FG_GEMM: one dense projection; FG_SPMM: one sparse-dense product (--spmm=cusparse). */
typedef enum { FG_WALK, FG_ROWS, FG_EDGE_REDUCE, FG_SINK, FG_GEMM, FG_SPMM } FuseKind;
typedef struct {
  int id;
  FuseKind kind;
  Domain rows;       /* FG_ROWS / FG_SINK: the rows it runs over (vertex, edge, global) */
  int dir;           /* FG_WALK: GATHER_BY_DST or GATHER_BY_SRC */
  bool bwd;          /* part of the backward pass */
  int order;         /* position in the step order (after scheduling) */
  bool dead;         /* merged into another group */
  bool per_graph;    /* the hoist pass's group: values of the graph alone, computed once per graph */
} FuseGroup;

/* A named result of the module. The forward output is always outs[0], named "out"; a training
 * module adds one per parameter gradient ("grad.<param>"), then one per input whose gradient
 * --input-grads asked for and that has one ("grad_input.<input>"). */
typedef struct {
  const char *name;
  Value *val;
} ModOutput;

typedef struct {
  const char *name;  /* the model's name */
  PtrVec vals;       /* Value*, in definition order: operands precede uses */
  ModOutput *outs;   /* outs[0] is the forward output */
  int nouts, outcap;
  int ndropout;      /* dropout streams numbered so far (sema numbers them 0, 1, ...) */
  const char *input_grads; /* the --input-grads list autodiff derived adjoints for (NULL: none) */
  Arena *arena;
  FuseGroup *groups; /* set by the fuse pass: groups[v->group] */
  int ngroups;
  bool fused;        /* the fuse pass ran: lower follows its groups */
} Module;

static inline Value *module_output(const Module *m) { return m->nouts ? m->outs[0].val : NULL; }
void module_add_output(Module *m, const char *name, Value *v);

/* Building values. ir_make checks arity, domains and shapes; on a violation it returns
 * NULL and writes a one-line reason to *why (arena-allocated), for sema to report.
 * For OP_AGGREGATE, fn is the message function and iattr the reduction (an FnKind). */
Value *ir_make(Module *m, OpKind op, FnKind fn, Value **args, int nargs, double fattr,
               int64_t iattr, Loc loc, const char **why);
/* The general form: proto carries op, fn, msg, args, attributes (and for reshape the target
 * shape); the new value copies it with domain, element type and shape inferred. */
Value *ir_make_like(Module *m, const Value *proto, const char **why);
Value *ir_leaf(Module *m, OpKind op, FnKind fn, Domain dom, const Shape *shape,
               const char *name, double fattr, Loc loc);
/* Infers the domain, element type and shape of proto (op, fn, msg, args, attributes);
 * false with *why on a violation. */
bool ir_infer(Arena *a, const Value *proto, Domain *dom, ElemType *elem, Shape *shape, const char **why);
OpKind apply_op_for(Domain d);
/* Whether values of domain d have a row per vertex, edge or graph (params and globals have one,
 * read by every row). */
static inline bool dom_has_rows(Domain d) { return d == DOM_VERTEX || d == DOM_EDGE || d == DOM_GRAPH; }
/* The domain of an element-wise function of args[0..n): edge if any operand is, else vertex,
 * else graph, else global. Whether the operands may mix is ir_infer's to say. */
Domain apply_domain(Value *const *args, int n);
void module_count_uses(Module *m);
void module_compact(Module *m); /* drops dead values, renumbers */
Value *resolve(Value *v);       /* follows repl links */
/* `to` replaces `from`: it takes from's source name (label) unless it has one of its own. */
void ir_inherit_label(Value *to, const Value *from);
void module_replace_uses(Module *m); /* rewrites every operand (and output) through resolve() */

/* The cost of one operator, as c0 + cv*|V| + ce*|E| for FLOPs, bytes read, bytes written
 * (float32 elements, 4 bytes; int64 indices not counted). */
typedef struct {
  double c, v, e;
} CostPoly;
typedef struct {
  CostPoly flops, read, write, live;
} Cost;
Cost cost_of(const Value *v);
/* FLOPs to compute one element of v from its operands' elements (a dot: 2 x its length), the
 * measure fuse and checkpoint use to weigh recomputing against a load. */
double elem_flops(const Value *v);
double elem_cost(const Value *v);   /* elem_flops with special functions and dropout weighted */
/* lower_fused.c stages an edge value computed where it is read (once per edge into shared memory,
 * not once per lane of a wider loop) when it costs at least GNN_STAGE_MIN_COST weighted FLOPs per
 * element and is at most GNN_STAGE_MAX_WIDTH wide; the checkpoint pass's cost model counts such
 * a value's recomputation once per reader. */
enum { GNN_STAGE_MIN_COST = 8, GNN_STAGE_MAX_WIDTH = 16 };
/* A dense projection that stays a GEMM (cuBLAS / cblas): linear maps and matmul_tn, except a
 * tiny weight over edges (MoNet's 2x2 pseudo-coordinate projection), cheaper in registers. */
bool value_is_gemm(const Value *v);
/* Whether v is a plain weighted sum over the edges of each vertex that a sparse-dense product
 * computes (--spmm=cusparse, KSpmm): y[v] = sum over v's edges e in direction *dir of w[e] *
 * x[far end of e], x a float vertex value as wide as v, w an edge scalar or NULL (1). The forms:
 * aggregate.sum.copy_u x, aggregate.sum.u_mul_e x w (in-edges), and gather.sum of a scatter that
 * reads x at the far end (copy_u by dst, copy_v by src), alone or times an edge scalar. */
bool value_spmm_operands(const Value *v, Value **x, Value **w, int *dir);
double cost_eval(CostPoly p, double V, double E);
void cost_add(CostPoly *acc, CostPoly p);

/* ===================================================================== printing (ir_print.c) */

void ir_print(FILE *out, const Module *m);
void ir_print_dot(FILE *out, const Module *m);
char *ir_to_string(const Module *m); /* malloc'ed; caller frees */

/* ===================================================================== verify.c */

/* Checks the module's invariants; reports each violation to out; returns the count. */
int ir_verify(const Module *m, FILE *out);

/* ===================================================================== compilation context */

typedef struct KProgram KProgram;
typedef struct {
  Arena arena;
  Diag diag;
  Program *prog;
  Module *mod;
  KProgram *kprog;        /* the kernel IR, when the pipeline lowered the module */
  const char *model_name; /* --model=NAME; NULL = the last model in the file */
  long value_budget;      /* sema's limit on IR values + statements + layer instances: no input
                             can blow up time or memory */
  int mapping;            /* MappingChoice (--mapping), for fuse and lower */
  const int *edge_ids;    /* --edge-balanced=ID,...: these reductions edge-balanced whatever --mapping says */
  int nedge_ids;          /*   (the mapping tuner's plans, compiler/tune.c) */
  bool remarks;           /* -Rpass-missed=fuse: notes on what fuse left unfused, and why */
  int recompute_level;    /* checkpoint: 0 the cost model (default), 1 recompute all it can */
  int fold_dots;          /* FoldChoice (--fold-attention): fuse folds attention dots into GEMMs */
  const char *input_grads; /* --input-grads=all|NAME,...: autodiff also derives these inputs' adjoints
                              (outputs "grad_input.<name>"); NULL: parameters only (the default) */
  bool split_hubs;        /* --split-hubs: walks split hub rows into pieces (lower_walk.c) */
  bool gemm_tf32;         /* --gemm-precision=tf32: the GEMM steps in TF32 (KGemm.tf32) */
  bool spmm_library;      /* --spmm=cusparse: a plain weighted sum over the edges is a library call
                             (STEP_SPMM), not a fused walk (passes/fuse.c) */
  bool serial_dots;       /* --dots=serial (the host's default): a kernel per row computes a dot or sum_last
                             a lane per output, not spread over the lanes (lower_groups.c, find_spread) */
  int tile_columns;       /* --tile-columns=T (> 0): walks gathering rows wider than T run in column
                             tiles of T (lower_tiles.c); 0: off */
  const int *tiles_of_kernel; /* --tile-columns=auto: per kernel id (ntiles_of_kernel of them), the column
                                 tiles the GPU estimate chose (0: none); NULL: tile_columns rules */
  int ntiles_of_kernel;
} GnnCtx;
/* --fold-attention: whether fuse folds the dots a . (x W) into the GEMM as x . [W | W.a] */
typedef enum { FOLD_COST, FOLD_ALWAYS, FOLD_NEVER } FoldChoice;

void gnn_ctx_init(GnnCtx *c, const char *path, const char *text, size_t size, FILE *diag_out);
void gnn_ctx_free(GnnCtx *c);
/* Whether --edge-balanced (or the tuner's plan) named value id: a query of the options, inline
 * here so that the passes (fuse) and the driver read it without a pass calling up into
 * pipeline.c (docs/architecture.md). */
static inline bool ctx_edge_balanced(const GnnCtx *c, int id) {
  for (int i = 0; i < c->nedge_ids; i++)
    if (c->edge_ids[i] == id) return true;
  return false;
}
/* Parses c->diag's text into c->prog. Returns false if any error was reported. */
bool gnn_parse(GnnCtx *c);

/* ===================================================================== passes */

/* Each pass returns true if it changed the module. */
typedef bool (*PassFn)(GnnCtx *c, Module *m);
typedef struct {
  const char *name;
  PassFn run;
  bool optional;    /* switched off by -fno-NAME, and by -O0 unless kept_at_O0 */
  const char *doc;
  bool kept_at_O0;  /* not an optimisation (autodiff: it changes what is computed): -O0 keeps it */
} PassInfo;

bool pass_canonicalize(GnnCtx *c, Module *m);
bool pass_reorg(GnnCtx *c, Module *m);
/* canonicalize's folding, CSE and DCE on the backward values only (the forward is untouched). */
bool canonicalize_backward(GnnCtx *c, Module *m);
bool pass_autodiff(GnnCtx *c, Module *m);
/* Whether --input-grads's list (NULL, "all" or NAME,NAME...) names input `name`. */
bool input_grad_listed(const char *list, const char *name);
bool pass_compose(GnnCtx *c, Module *m);
bool pass_checkpoint(GnnCtx *c, Module *m);
bool pass_fuse(GnnCtx *c, Module *m);
bool pass_hoist(GnnCtx *c, Module *m);
/* canonicalize.c's machinery for the passes after it: the CSE key (same operator, function,
 * attributes, name and operands), and a cleanup that re-forms gSDDMM scatters from
 * copy_u/copy_v pairs, merges duplicates and drops dead values (its steps 2, 4 and 5). */
bool canon_same(const Value *x, const Value *y);
uint64_t canon_hash(const Value *v);
bool canon_cleanup(GnnCtx *c, Module *m);
/* sema is not a Module -> Module pass: it builds the module from the AST. */
Module *sema_lower(GnnCtx *c);

extern const PassInfo pass_table[];
extern const int pass_count;

typedef struct {
  const char *print_before[16], *print_after[16];
  int nprint_before, nprint_after;
  bool print_after_all;
  bool time_passes;
  bool verify_each; /* run the verifier after every pass (on by default) */
  const char *disabled[16];
  int ndisabled;
  bool O0;
  bool stats;       /* print the cost model's totals after each pass, at |V| = stats_V, |E| = stats_E */
  bool stats_symbolic; /* ... and as polynomials in |V| and |E| (--stats=symbolic) */
  double stats_V, stats_E;
  FILE *out;        /* where dumps go */
  bool lower;       /* lower to the kernel IR after the passes (c->kprog) */
  bool remarks;     /* -Rpass-missed=fuse: say what fuse could not merge, and why */
  int mapping;      /* MappingChoice for lower */
  const int *edge_ids; /* --edge-balanced=ID,...: reductions to run edge-balanced (GnnCtx.edge_ids) */
  int nedge_ids;
  bool recompute_all; /* --recompute=all: checkpoint recomputes every value it can */
  int fold_dots;      /* FoldChoice (--fold-attention) */
  const char *input_grads; /* --input-grads=all|NAME,... (GnnCtx.input_grads) */
  double memory_budget; /* --memory-budget=BYTES (> 0): the fastest plan whose memory at stats_V, stats_E fits */
  bool print_plan;  /* --print-memory-plan V=,E=: the memory plan after lower */
  const char *gpu;       /* --gpu=h100|h200 with --graph FILE: gpucost_report after lower */
  bool split_hubs;       /* --split-hubs (GnnCtx.split_hubs) */
  bool serial_dots;      /* --dots=serial, or the host target without --dots (GnnCtx.serial_dots) */
  bool gemm_tf32;        /* --gemm-precision=tf32 (GnnCtx.gemm_tf32) */
  bool spmm_library;     /* --spmm=cusparse (GnnCtx.spmm_library) */
  int tile_columns;      /* --tile-columns=T (GnnCtx.tile_columns); -1: auto, by the GPU estimate of gpu on gpu_graph */
  const char *gpu_graph;
} PipelineOpts;

/* Runs sema and the pass pipeline. Returns the module, or NULL after errors. */
Module *gnn_compile(GnnCtx *c, const PipelineOpts *o);
bool pipeline_has_pass(const char *name);

/* ===================================================================== kernel IR (kir.c, lower.c)
 *
 * What the emitters print. A KProgram is the model as an ordered list of steps over buffers:
 * GEMM calls (cuBLAS / cblas) for the dense projections, and kernels for everything else. A
 * kernel is one thread mapping (a group of G lanes per vertex, per edge, or one group for a
 * global row), lanes over feature elements, and a tree of statements that every lane of the
 * group executes: uniform loops (the edges of a vertex), per-lane loops (k = lane, lane+G, ...),
 * locals (uniform, per-lane, or per-lane register arrays), per-group shared arrays, barriers,
 * group reductions (warp shuffles) and atomic updates. The CUDA emitter prints it as real
 * threads; the host emitter serialises the lanes MCUDA-style. A kernel may implement several
 * operator-IR values (a fused group): it lists them. */

typedef enum { KT_F32, KT_I64, KT_F64 } KType;
typedef enum { MAP_VERTEX, MAP_EDGE, MAP_GLOBAL, MAP_WEIGHT } Mapping; /* MAP_WEIGHT: a group per row of a weight */
/* The graph arrays a kernel may read (gnn_graph's fields of these names): KG_GRAPH_PTR the vertex
 * range of each graph of a batch, KG_VERTEX_GRAPH the graph of each vertex, KG_OUT_DST the
 * destination of each out-edge in CSC order (dst[out_eid[k]]: a walk over out-edges' far end). */
typedef enum { KG_IN_PTR, KG_OUT_PTR, KG_SRC, KG_DST, KG_OUT_EID, KG_GRAPH_PTR, KG_VERTEX_GRAPH, KG_OUT_DST, KG_PIECE_ROW,
               KG_PIECE_LO, KG_OUT_PIECE_ROW, KG_OUT_PIECE_LO, KG__COUNT } KGraphArray;
extern const char *const kgraph_name[KG__COUNT]; /* kir.c: "in_ptr", ... */
extern const char *const kgraph_type[KG__COUNT]; /* "int64_t" (offsets) or "int32_t" (ids) */
typedef enum { KO_ADD, KO_SUB, KO_MUL, KO_DIV, KO_MOD, KO_MIN, KO_MAX, KO_LT, KO_LE, KO_GT, KO_GE, KO_EQ,
               KO_NE, KO_AND, KO_OR } KBinOp;
typedef enum { KU_NEG, KU_EXP, KU_EXPM1, KU_LOG, KU_TANH, KU_SQRT, KU_RSQRT, KU_ABS, KU_NOT, KU_TO_F32,
               KU_TO_I64, KU_TO_F64 } KUnOp;

typedef enum { BUF_INPUT, BUF_PARAM, BUF_TEMP, BUF_DEGREE } KBufKind;
typedef struct KBuf {
  int id;
  const char *name;  /* inputs and params: their names; temps: "t<value id>" */
  KBufKind kind;
  Domain dom;        /* rows: nv, ne, or 1 (param, global) */
  ElemType elem;
  int64_t width;     /* elements per row */
  Value *val;        /* the value it holds (NULL for a kernel's scratch) */
  int out;           /* index in the module's outputs, or -1 */
  int fn;            /* BUF_DEGREE: FN_IN or FN_OUT */
  int first, last;   /* steps of definition and last use (the memory plan) */
  bool bwd;
  bool train_only;   /* a forward value kept only for the backward: written when training */
  bool stash64;      /* a float64 copy of val for the backward (val's own buffer is another one) */
  bool per_graph;    /* a value of the graph alone (the hoist pass): written by a per-graph step,
                        alive over every step (kept between calls while the model holds the graph) */
  bool cross_group;  /* stored by one group and loaded by another in the same kernel (the partial
                        results of a hub row's pieces): no __restrict__, loads through L2 (CUDA) */
  int64_t rows_cap;  /* > 0: a vertex buffer of min(nv, rows_cap) rows (a row per hub piece: there are
                        fewer than both, gnnrt_pieces.h) */
  struct KBuf *alias; /* an input this buffer is when not training (the input's dropout, the
                         identity then): written only by training steps, the input read in place */
} KBuf;

/* KE_ITEM, KE_NPIECES, KE_PIECE_LEN: a kernel over pieces (Kernel.pieces): its group's item, the
 * graph's piece count and piece length (gnn_graph's npieces and piece_len). KE_TILE: a kernel in
 * column tiles (Kernel.col_tiles > 1): its group's tile, 0 .. col_tiles - 1 */
typedef enum { KE_FCONST, KE_ICONST, KE_VAR, KE_LANE, KE_ROW, KE_LOAD, KE_GRAPH, KE_SHARED, KE_BIN, KE_UN,
               KE_SELECT, KE_KEEP, KE_TRAINING, KE_ITEM, KE_NPIECES, KE_PIECE_LEN, KE_TILE } KExprKind;
typedef struct KExpr KExpr;
struct KExpr {
  KExprKind kind;
  KType type;
  double f;          /* KE_FCONST; KE_KEEP: p */
  int64_t i;         /* KE_ICONST; KE_KEEP: stream; KE_VAR: the local's bound ub (0: unknown) */
  int var;           /* KE_VAR: local; KE_SHARED: shared array */
  KBuf *buf;         /* KE_LOAD */
  KGraphArray garr;  /* KE_GRAPH */
  int op;            /* KE_BIN: KBinOp; KE_UN: KUnOp */
  KExpr *a, *b, *c;  /* KE_LOAD: row (NULL for one-row buffers), element; KE_VAR/KE_SHARED/KE_GRAPH:
                        a = index; KE_SELECT: a ? b : c; KE_KEEP: a = element counter */
};

typedef enum { KS_LET, KS_STORE, KS_ATOMIC, KS_SHSTORE, KS_FOR, KS_FOR_LANES, KS_IF, KS_BARRIER,
               KS_GROUP_REDUCE, KS_TICKET } KStmtKind;
typedef struct KStmt KStmt;
struct KStmt {
  KStmtKind kind;
  int var;           /* LET: local (idx = element of a register array); FOR: loop variable; TICKET:
                        the uniform local that gets the count before this group's add;
                        FOR_LANES: the element variable k (lane + i*G); SHSTORE: shared array;
                        GROUP_REDUCE: the local reduced in place across the group's lanes */
  int var2;          /* FOR_LANES: the iteration variable i (0 .. count/G) */
  int op;            /* ATOMIC: KO_ADD / KO_MAX / KO_MIN; GROUP_REDUCE: KO_ADD / KO_MAX / KO_MIN */
  KBuf *buf;         /* STORE / ATOMIC */
  KExpr *row, *idx, *val;
  KExpr *lo, *hi;    /* FOR: [lo, hi); IF: lo = condition; FOR_LANES: lo = NULL (elements 0 .. count - 1)
                        or a column tile's first element, a uniform expression (elements lo .. lo +
                        count - 1: k = lo + lane + i*G) */
  /* TICKET: buf[row] += 1 by one lane, the old count into local var for every lane of the group;
   * the group's earlier stores are visible to whichever group reads the count after it (a fence
   * before, the add, a fence after) */
  int64_t count;     /* FOR_LANES: element count; FOR: step; IF: 1 when the condition is uniform
                        (the same in every lane of the group: the statements stay outside lane loops);
                        ATOMIC: 1 when block-reduced (a sum into a few addresses: the kernel adds its
                        rows' terms per block / per thread, then one atomic per block and element) */
  PtrVec body;       /* FOR, FOR_LANES, IF */
  bool walk;         /* FOR: the loop over the edges of the row (every edge once per walk) */
};

typedef struct {
  const char *name;
  KType type;
  int len;           /* 0: a scalar; > 0: a per-lane register array of len */
  bool uniform;      /* the same value in every lane of the group (computed outside lane loops) */
  int64_t ub;        /* > 0: a loop variable known to be in [0, ub) (index simplification) */
} KLocal;

typedef struct {
  const char *name;
  KType type;
  int len;           /* elements per group */
  int storage;       /* -1: its own storage; else the (float64) array whose storage it takes on a GPU:
                        its float copy, which a launch uses instead of it, never beside it (lower_walk.c:
                        the hoisted weights of an f64 sum, float when not training) */
} KShared;

typedef struct Kernel {
  int id;
  const char *name;  /* k<id>_<what>_<mapping>; <what>: the source's names of its values where it
                        names them (value_cname), else their functions */
  const char *what;  /* one line: the IR values it implements */
  const char *lines; /* the source lines those values come from ("11-13, 17"), or "" */
  Mapping map;
  Domain rows;       /* DOM_VERTEX: nv groups, DOM_EDGE: ne groups, DOM_GLOBAL: 1, DOM_PARAM: nrows */
  int64_t nrows;     /* DOM_PARAM: the rows of the weight it makes (MAP_WEIGHT) */
  int dir;           /* MAP_VERTEX: GATHER_BY_DST (CSR in-edges) or GATHER_BY_SRC (CSC out-edges) */
  int group;         /* lanes per group, a power of two <= 32 */
  KLocal *locals;
  int nlocals, localcap;
  StrMap local_names; /* base name -> how many locals took it (the next gets a number suffix) */
  KShared *shared;
  int nshared, sharedcap;
  PtrVec body;       /* KStmt* */
  PtrVec bufs;       /* KBuf* it reads or writes, in first-use order: its parameters */
  bool graph[KG__COUNT];
  bool dropout;      /* takes the training flag and the seed */
  bool pieces;       /* MAP_VERTEX over in-edges or out-edges, hub rows split (--split-hubs): npieces + nv
                        groups, the pieces of the hub rows (KE_ITEM < npieces: row piece_row[item], or
                        out_piece_row[item] over out-edges) then one per vertex (row item - npieces), a
                        hub's own group doing nothing */
  int col_tiles;     /* > 1: a walk in column tiles (--tile-columns, lower_tiles.c): col_tiles * nv
                        groups, tile-major (KE_TILE = group / nv, row = group % nv: a tile's gathered
                        columns of every row are read before the next tile's, so they stay in L2);
                        its lane loops over col_width elements run over col_tile of them from the
                        tile's first column (the last tile stops at col_width: ceil(col_width /
                        col_tile) tiles); everything else (the edge loop, narrow values such as a
                        softmax's statistics) runs in every tile. 0 or 1: none */
  int64_t col_tile, col_width;
} Kernel;

typedef enum { STEP_KERNEL, STEP_GEMM, STEP_ZERO, STEP_FILL, STEP_SPMM } StepKind;
/* A dimension of a GEMM: mult * rows(dom), rows(DOM_GLOBAL) = 1. */
typedef struct {
  int64_t mult;
  Domain dom;
} KDim;
typedef struct {
  bool ta, tb;       /* row-major C[M,N] = op(A)[M,K] . op(B)[K,N] */
  KDim m, n, k;
  KBuf *a, *b, *c;
  int64_t lda, ldb, ldc;
  float beta;        /* 0: overwrite C, 1: accumulate */
  bool tf32;         /* --gemm-precision=tf32: A and B rounded to TF32 (10-bit mantissa), products summed in
                        float32: cuBLAS on tensor cores; the host emulates the rounding (emit_host_gemm.c) */
} KGemm;
/* A sparse-dense product over the graph (--spmm=cusparse): for every vertex v,
 *   y[v, :] = sum over the edges e of v in direction dir of w[e] * x[far end of e, :]
 * dir GATHER_BY_DST: v's in-edges, far end src[e] (the CSR); GATHER_BY_SRC: v's out-edges, far
 * end dst[e] (the CSC). w is an edge scalar (edge ids as everywhere: CSR positions), NULL for 1.
 * The runtime's gnn_spmm runs it: cuSPARSE in the CUDA build, a loop in the host build. */
typedef struct {
  int dir;
  KBuf *x, *w, *y;
  int64_t width;     /* columns of x and y */
} KSpmm;
typedef struct {
  StepKind kind;
  Kernel *kernel;    /* STEP_KERNEL */
  KGemm gemm;        /* STEP_GEMM */
  KSpmm spmm;        /* STEP_SPMM */
  KBuf *buf;         /* STEP_ZERO, STEP_FILL */
  double fill;       /* STEP_FILL */
  bool bwd;          /* part of the backward pass */
  bool train_only;   /* a forward step that only makes a stash for the backward: skipped unless training */
  bool per_graph;    /* a forward step at the start that computes values of the graph alone: run by the
                        first forward on a graph (after create, set_graph, or a new arena), then skipped */
  const char *what;  /* the IR value(s) it implements */
} KStep;

struct KProgram {
  const char *name;  /* the model's name */
  const char *cname; /* its C identifier prefix (lower case) */
  Module *m;
  PtrVec bufs;       /* KBuf* */
  KStep *steps;
  int nsteps, stepcap;
  int nfwd;          /* steps [0, nfwd) are the forward pass, the rest the backward */
  PtrVec kernels;    /* Kernel* */
  int nparams;       /* params are bufs with kind BUF_PARAM, in module order */
  Arena *arena;
};

typedef enum { MAPPING_AUTO, MAPPING_VERTEX, MAPPING_EDGE } MappingChoice;

/* lower.c: the operator IR to the kernel IR: the fuse pass's groups (m->fused), or each graph
 * operator its own kernel (unfused). edge_named (per value id, or NULL): the values
 * --edge-balanced names, run edge-balanced unfused whatever `mapping` says. NULL after
 * reporting an error. Notes on mapping choices go to c->diag.out. */
KProgram *lower_module(GnnCtx *c, Module *m, MappingChoice mapping, const bool *edge_named);
/* kstats.c: --stats after lower: the bytes each step reads and writes at |V|, |E| (fused, and the
 * same program lowered unfused for comparison), and the arenas of the memory plan. */
void kprog_stats(FILE *out, const KProgram *p, const KProgram *unfused, double V, double E);
/* The memory a library of p allocates at |V|, |E| (what the generated *_memory_plan reports):
 * the arena (training plan if p has a backward), parameters, their gradients and the output. */
typedef struct {
  double arena, arena_inference, params, grads, output, total;
  int buffers;       /* temporaries placed in the arena */
} KMemPlan;
KMemPlan kprog_memory_plan(const KProgram *p, double V, double E);
/* --print-memory-plan: the plan, and each buffer of the arena with its bytes, steps and offset. */
void kprog_print_memory_plan(FILE *out, const KProgram *p, double V, double E);
/* "9.86 GB", "134.19 MB", "12.00 kB", "56 B": a byte count for people (4 rotating static buffers). */
const char *kstats_human(double bytes);
/* One step's traffic at V, E as kprog_stats counts it, with the gathered part apart: reads of a
 * vertex buffer at a row the graph picks, once per edge (gpucost.c gives them the graph's
 * locality). gather_row_sectors: 32-byte sectors of one edge's gathered rows, all buffers. */
typedef struct {
  double read, write;        /* bytes, gathered reads included */
  double gathered;           /* bytes of gathered reads, each edge's rows counted whole */
  double gather_row_sectors;
  double flops;              /* a GEMM's 2MNK; 0 for kernels */
} KTraffic;
KTraffic kstats_step_traffic(const KStep *s, double V, double E);
/* A step's name in tables: its kernel's, or gemm, spmm, zero, fill. */
const char *kstats_step_name(const KStep *s);

/* gpucost.c: --gpu=NAME --graph FILE: each step's DRAM and L2 bytes and time on that GPU, the
 * gathered rows through a simulated L2 over the graph's own index stream. False after saying why. */
bool gpucost_report(FILE *out, const KProgram *p, const char *gpu, const char *graph_path);
bool gpucost_known(const char *gpu);
const char *gpucost_names(void);
/* --tile-columns=auto: for each walk kernel of p (untiled), the column tiles (2, 4 or 8, that
 * lower_tiles.c can cut its gathered width into: tile_width_for) whose estimate on the graph is at least 5%
 * faster than the kernel's, in out[kernel id] (tiles 0: none; out has p's kernel count), with the
 * estimate's figures for the note the pipeline prints. False after saying why (a graph it cannot
 * read). */
typedef struct {
  int tiles;
  double ms, tiled_ms, miss, tiled_miss; /* the estimate whole and in those tiles; misses: of the edges */
} TileChoice;
bool gpucost_choose_tiles(const KProgram *p, const char *gpu, const char *graph_path, TileChoice *out);
/* Then, p lowered with those choices: a kernel whose compiled tiles are not 5% faster than it was
 * whole loses its choice (tiles 0); the others' notes get the compiled figures. Returns how many
 * lost theirs (the caller lowers again), or -1 after saying why. */
int gpucost_check_tiles(const KProgram *p, const char *gpu, const char *graph_path, TileChoice *out);
/* Misses of an index stream through a 16-way LRU cache of `rows` lines (tests/unit). */
int64_t gpucost_misses(const int32_t *stream, int64_t n, int64_t rows);
/* kverify.c: structural checks of a kernel program (steps, buffers, the memory plan's lifetimes,
 * kernels' loads and stores); returns the number of problems, each printed to err (may be NULL).
 * The pipeline runs it after lower when verify_each is on. */
int kir_verify(const KProgram *p, FILE *err);
/* kir.c: the text form, and the expression printer the emitters share */
typedef enum { DIALECT_KIR, DIALECT_CUDA, DIALECT_HOST } Dialect;
void kir_print(FILE *out, const KProgram *p);
void kexpr_print(FILE *out, const Kernel *k, const KExpr *e, Dialect d);
/* How many statements of b (nested ones too) let local var. */
int kstmts_count_lets(const PtrVec *b, int var);
/* A walk kernel's gathered width: its widest lane loop that reads a vertex buffer at a row the
 * graph picks inside a walk (x[u, k]); 0 if none. What column tiles cut (lower_tiles.c), of an
 * untiled kernel (a tiled one's loops run over one tile). */
int64_t kernel_gathered_width(const Kernel *k);
/* The tile width that cuts W columns into ntiles tiles for a group of G lanes (a multiple of G,
 * or fewer than G; the last tile the shorter), or 0 if none gives exactly ntiles. */
int64_t tile_width_for(int64_t W, int ntiles, int G);
/* A kernel in column tiles: the local its first statement sets to the tile's first column
 * (`tile_lo = tile * col_tile`, lower_tiles.c), or -1 if it does not. */
int kernel_tile_first(const Kernel *k);
/* Whether lane loop s is a column tile's that may pass the tiled width (col_tile does not divide
 * col_width: the last tile is shorter, its lanes guarded by k < col_width). */
bool klanes_may_pass_width(const Kernel *k, const KStmt *s);
/* Whether e prints with a leading '-' (a negation, a negative constant): a negation of it must
 * parenthesise it, or C reads `--x` as a decrement. */
bool kexpr_leads_with_minus(const KExpr *e);
void kvar_print(FILE *out, const Kernel *k, int var, const KExpr *idx, Dialect d);
const char *mapping_name(Mapping m);
const char *kernel_mapping_desc(const Kernel *k);
const char *ktype_c(KType t);        /* float, int64_t, double */
const char *ktype_name(KType t);     /* f32, i64, f64 */
const char *elem_c(ElemType e);      /* float, int32_t, double */
/* The buffers of a kernel's block-reduced atomics (at most n; call with have = 0), first use first. */
int block_targets(const PtrVec *b, const KBuf **out, int n, int have);
/* Whether a lane of kernel k may load an element of buffer b that another lane of its group
 * stored (or added to atomically) before a barrier or group reduction: a value passing between
 * lanes through memory. The CUDA emitter leaves such a buffer without __restrict__ (see
 * cuda_kernel); a lane reading back its own element (b[row, k] stored and loaded with k a lane
 * loop's element) does not count. */
bool kernel_reads_back_across_barrier(const Kernel *k, const KBuf *b);
/* Shared memory (kir.c). A CUDA block is GNN_CUDA_BLOCK threads, 256/G groups of G lanes, unless
 * its shared arrays do not fit: the static shared memory of one block may not exceed
 * GNN_SHARED_MAX bytes (48 KB, what every CUDA device gives a kernel without the opt-in to
 * dynamic shared memory; ptxas refuses more: "uses too much shared data (0xc320 bytes, 0xc000
 * max)"). A kernel's block holds each per-group shared array once per group (elements x 4 or 8
 * bytes: f32 4, i64 and f64 8) and each block-reduced sum once (width x 8, a double per element).
 * kernel_groups_per_block is the most groups, at most GNN_CUDA_BLOCK / G, whose block fits; lower
 * keeps one group's arrays and the block's sums within GNN_SHARED_MAX (kverify checks it), so
 * there is always at least one. */
enum { GNN_CUDA_BLOCK = 256, GNN_SHARED_MAX = 48 * 1024 };
int64_t kernel_shared_group_bytes(const Kernel *k); /* one group's shared arrays (a float copy in another's storage: none) */
int shared_f32_copy(const Kernel *k, int sh);       /* the float copy of float64 shared array sh (KShared.storage), or -1 */
int64_t kernel_shared_block_bytes(const Kernel *k); /* the block's own: block-reduced sums */
int64_t kernel_shared_bytes(const Kernel *k, int gpb); /* a block of gpb groups */
int kernel_groups_per_block(const Kernel *k);

/* emit_*.c: the generated sources. emit_model.c writes what both targets share (the header,
 * the model's state, create/destroy, forward/backward as steps, the API table) and asks the
 * target's hooks for the rest: kernels, launches, GEMMs. */
typedef enum { TARGET_CUDA, TARGET_HOST } Target;
typedef struct {
  Target target;
  void (*prelude)(FILE *out, const KProgram *p);
  void (*kernel)(FILE *out, const KProgram *p, const Kernel *k);
  void (*launch)(FILE *out, const KProgram *p, const Kernel *k);  /* statements in forward/backward */
  void (*gemm)(FILE *out, const KProgram *p, const KGemm *g);
  void (*fill)(FILE *out, const char *ptr, const char *count, double value);
  void (*copy)(FILE *out, const char *dst, const char *src, const char *bytes);
} EmitHooks;
extern const EmitHooks emit_cuda_hooks, emit_host_hooks;
/* emit_host_gemm.c: the host's GEMMs (narrow ones as generated AVX-512 loops, else cblas), and
 * the functions those loops are, for the prelude. */
void host_gemm(FILE *out, const KProgram *p, const KGemm *g);
void host_gemm_prelude(FILE *out, const KProgram *p);
/* The C expression naming buffer b inside forward/backward (m->t12, m->param[0], ...). */
const char *emit_buf_ref(const KProgram *p, const KBuf *b);
/* rows(b) as C: "g->nv", "g->ne" or "1". */
const char *emit_rows(Domain d);
const char *emit_kernel_rows(const KProgram *p, const Kernel *k); /* its groups: emit_rows, or a weight's rows */
/* The close of the comment atop a kernel: the source lines it computes (a line "Source lines 11-13."). */
const char *emit_kernel_comment_end(const KProgram *p, const Kernel *k);
/* emit_model_header.c: the generated header, and the names it and emit_model.c share. The C
 * prefix of the model's public names (the lower-case name; "model_" before a reserved one); the
 * forward inputs (not the backward seed) in declaration order, in an array from p's arena; the
 * forward input whose gradient output `out` is (gnnc --input-grads), and the output holding
 * input i's gradient, each -1 where there is none; a value's type as the header's comments
 * write it ("vertex[4, 16]"). */
const char *emit_model_prefix(const KProgram *p);
int emit_model_forward_inputs(const KProgram *p, const KBuf ***list);
int emit_model_grad_input(const KProgram *p, int out);
int emit_model_input_grad_out(const KProgram *p, int input);
const char *emit_shape_text(const KProgram *p, const Value *v);
void emit_header(FILE *out, const KProgram *p, const char *src_name);
void emit_source(FILE *out, const KProgram *p, const EmitHooks *h, const char *src_name, const char *header_name);

/* build.c: what the driver writes. emit: "kir", "cu", "c", "h", or NULL to build the shared
 * library `output` for `target`. False after reporting the problem on stderr. */
typedef struct {
  const char *emit;
  const char *output;
  Target target;
  const char *arch;      /* nvcc: "sm_80" or a list "sm_80,sm_90" */
  const char *host_march; /* cc -march= for host libraries: "native" (NULL), "portable" (none), or a CPU */
  bool keep;             /* -S: keep the sources beside the library */
  bool verbose;          /* -v: echo the compiler's command line */
  const char *src_name;  /* the .gnn file, as given */
} EmitOpts;
bool gnn_emit(const KProgram *p, const EmitOpts *eo);
/* The folder of the running gnnc (malloc'ed), or NULL: where its runtime and tools are found. */
char *gnnc_exe_dir(void);

/* sha256.c: SHA-256 for content-addressed caches (build.c's CUDA objects). */
typedef struct {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  size_t nbuf;
} Sha256;
void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t n);
void sha256_hex(Sha256 *s, char out[65]); /* finishes s: 64 lower-case hex digits and a NUL */

/* tune.c: --tune-mapping=GRAPH. Times the plans (all vertex-balanced, each reduction that can
 * run edge-balanced alone, the winners together) with gnn-run on graph and writes the fastest
 * plan's --edge-balanced ids to chosen; then that plan against it with each schedule the caller
 * did not ask for that changes its kernels (hub rows in pieces, column tiles of 64 and of 32,
 * SpMM steps), the fastest schedule into *split_hubs, *tile_columns or *spmm (unchanged when
 * none wins). Returns the
 * number of ids, or -1 after saying why. */
typedef struct {
  const char *path, *text;  /* the .gnn file and its text */
  size_t size;
  const char *model_name;
  const PipelineOpts *popts;
  const EmitOpts *eopts;
  const char *graph;        /* what gnn-run --graph loads */
  bool self_loops;          /* gnn-run --self-loops */
  int rounds, repeat;       /* interleaved rounds; gnn-run --repeat per timing */
  bool spmm_given;          /* --spmm given, either way: the caller's choice, not a schedule to time */
} TuneArgs;
int tune_mapping(const TuneArgs *t, int *chosen, int cap, bool *split_hubs, int *tile_columns, bool *spmm);

/* ===================================================================== graph.c, interp.c */

typedef struct {
  int64_t nv, ne;
  int64_t *src, *dst;        /* edge e goes src[e] -> dst[e], in file order */
  int64_t *in_ptr, *in_eid;  /* CSR by destination: in-edges of v are in_eid[in_ptr[v]..in_ptr[v+1]) */
  int64_t *out_ptr, *out_eid;/* CSC by source: out-edges of u are out_eid[out_ptr[u]..out_ptr[u+1]) */
  int64_t *csr_pos;          /* csr_pos[e]: the position of edge e in CSR order (the generated code's edge id) */
  double *features;          /* nv x nfeat, or NULL */
  int64_t nfeat;
  int64_t *labels;           /* nv, or NULL; -1 = unknown */
  double *edge_vals;         /* ne x edge_ncols in file order: graph.edges' columns after src dst (float32 values), or NULL */
  int64_t edge_ncols;
  int64_t ng;                /* graphs in the batch (graph_indicator.txt; 1 without it) */
  int64_t *graph_of;         /* nv: the graph of each vertex, non-decreasing */
  int64_t *graph_ptr;        /* ng + 1: the vertices of graph i are graph_ptr[i] .. graph_ptr[i+1]-1 */
} Graph;

/* Loaders report "file:line: error: ..." into err (size errlen) and return false. */
bool graph_load_edges(Graph *g, const char *path, int64_t nv_hint, char *err, size_t errlen);
bool graph_load_features(Graph *g, const char *path, char *err, size_t errlen);
bool graph_load_labels(Graph *g, const char *path, char *err, size_t errlen);
bool graph_load_graph_indicator(Graph *g, const char *path, char *err, size_t errlen);
/* A dataset folder (graph.edges, features.svm, labels.txt) or a single edge-list file. */
bool graph_load(Graph *g, const char *path, char *err, size_t errlen);
bool graph_build_csr(Graph *g, char *err, size_t errlen); /* false (err set) when out of memory */
/* Appends v -> v for every vertex v (ascending) without a self-loop, after the edges as given, and
 * rebuilds the CSR: the runtime's add_self_loops (gnn-run/gnn-train --self-loops), edge for edge. */
bool graph_add_self_loops(Graph *g, char *err, size_t errlen);
void graph_free(Graph *g);

typedef struct {
  const char *name;
  Shape shape;
  double *data;
} Tensor;

typedef struct {
  Tensor *params;
  int nparams;
} ParamSet;

/* Seeded initialisation: Glorot-uniform for rank >= 2, zeros below (init="glorot"), or
 * uniform in [-1, 1) for every parameter (init="uniform", for tests). A parameter declared
 * with an initial value (`param g: [D] = 1`: iattr 1, the value in fattr) takes it in every mode. */
bool params_init(ParamSet *ps, const Module *m, const char *init, uint64_t seed);
bool params_load(ParamSet *ps, const Module *m, const char *path, char *err, size_t errlen);
bool params_save(const ParamSet *ps, const char *path, char *err, size_t errlen);
/* A tensor file's body written behind the runtime's checksum line, atomically (interp.c). */
bool tensors_write_file(const char *path, const char *body, size_t len, char *err, size_t errlen);
/* Every forward input of m from a tensor file (rows: the graph's vertices or edges in file order,
 * or 1), checked as params_load checks parameters; ins holds them by name (Interp.inputs). */
bool inputs_load(ParamSet *ins, const Module *m, const Graph *g, const char *path, char *err, size_t errlen);
void params_free(ParamSet *ps);

typedef struct {
  const Module *m;
  const Graph *g;
  const ParamSet *ps;
  uint64_t seed;     /* for edge inputs not given */
  bool training;     /* dropout active (inference: dropout is the identity) */
  uint64_t dropout_seed;
  const Tensor *inputs; /* optional: inputs by name (features, d_out, edge inputs); rows x elems */
  int ninputs;
  bool keep_all;     /* keep every value's array (for tests that read intermediates) */
  bool forward_only; /* skip the backward values of a training module (their arrays stay NULL) */
  const bool *keep;  /* optional, per value id: keep this value's array after its last use */
  double *const *given; /* optional, per value id: its array, computed by the caller (not freed) */
  double **vals;     /* per value id: rows x elems */
} Interp;

/* Evaluates the module in float64. Returns false with err set on a runtime error
 * (an input that does not match the graph). The output is vals[m->output->id]. */
bool interp_run(Interp *in, char *err, size_t errlen);
void interp_free(Interp *in);
int64_t value_rows(const Value *v, const Graph *g);

uint64_t rng_next(uint64_t *state); /* splitmix64 */
double rng_uniform(uint64_t *state); /* [0, 1) */

/* ===================================================================== gradcheck.c */

/* `gnnc gradcheck [options] FILE.gnn --graph PATH` (argv[0] is "gradcheck"): the gradients
 * of the autodiff pass against finite differences in the float64 interpreter. Returns the
 * exit status (0 all within tolerance, 1 not or an error in the input, 2 a bad command line). */
int gradcheck_main(int argc, char **argv);

typedef struct {
  uint64_t seed;          /* grad.out's random draw */
  uint64_t dropout_seed;
  bool inference;         /* dropout off */
  bool no_fd;             /* evaluate (and save) the gradients only */
  bool verbose;           /* print every entry */
  int64_t samples;        /* > 0: check this many random entries of a larger parameter */
  double tol, eps, floor; /* floor 0: 1e-6 x the largest |grad| */
  const char *grad_out, *save_grads, *corrupt, *graph_name;
} GradcheckOpts;
/* The check itself on a training module (one with grad.out), a graph and parameters;
 * prints the report to stdout and returns the exit status. */
int gradcheck_module(const Module *m, const Graph *g, ParamSet *ps, const GradcheckOpts *o);

#endif
