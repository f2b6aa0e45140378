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

/* A growable array of pointers whose storage lives in an arena. */
typedef struct {
  void **items;
  int len, cap;
} PtrVec;
void vec_push(Arena *a, PtrVec *v, void *p);

/* A hash map from strings to non-NULL pointers, stored in an arena. Keys are not copied. */
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

/* ===================================================================== AST (parser.y) */

typedef enum { DOM_VERTEX, DOM_EDGE, DOM_PARAM, DOM_GLOBAL } Domain;
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

typedef enum { S_ASSIGN, S_PARAM, S_RETURN } StmtKind;
typedef struct {
  StmtKind kind;
  const char *name;
  Loc loc, name_loc;
  Node *expr;      /* S_ASSIGN, S_RETURN */
  TypeSpec *type;  /* S_PARAM */
} Stmt;

typedef struct {
  const char *name;
  Loc loc;
  TypeSpec *type;
} ParamDecl; /* an input of a layer or model: x: vertex[F] */

typedef struct {
  bool is_model;
  const char *name;
  Loc loc;
  const char **gens; /* generic dimension names <H, D> */
  Loc *gen_locs;     /* where each is written */
  int ngens;
  ParamDecl **inputs;
  int ninputs;
  TypeSpec *ret;
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
enum { A_LIN0 = 1, A_LIN1 = 2, A_JOINT = 4, A_EXPENSIVE = 8, A_ROWWISE = 16 };

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

typedef struct Value Value;
struct Value {
  int id;            /* position in the module, renumbered by module_compact */
  OpKind op;
  FnKind fn;         /* the function attribute (reduction for gather/aggregate) */
  FnKind msg;        /* aggregate only: the message function */
  Domain dom;
  Shape shape;
  int nargs;
  Value *args[GNN_MAX_ARGS];
  double fattr;      /* const value; leaky_relu slope; elu alpha; dropout p */
  int64_t iattr;     /* repeat count */
  const char *name;  /* input or parameter name */
  Loc loc;           /* where in the source it came from (0 if synthesised) */
  int nuses;         /* maintained by module_count_uses */
  bool dead;
  Value *repl;       /* scratch for passes (replacement) */
};

typedef struct {
  const char *name;  /* the model's name */
  PtrVec vals;       /* Value*, in definition order: operands precede uses */
  Value *output;
  Arena *arena;
} Module;

/* Building values. ir_make checks arity, domains and shapes; on a violation it returns
 * NULL and writes a one-line reason to *why (arena-allocated), for sema to report.
 * For OP_AGGREGATE, fn is the message function and iattr the reduction (an FnKind). */
Value *ir_make(Module *m, OpKind op, FnKind fn, Value **args, int nargs, double fattr,
               int64_t iattr, Loc loc, const char **why);
Value *ir_leaf(Module *m, OpKind op, FnKind fn, Domain dom, const Shape *shape,
               const char *name, double fattr, Loc loc);
/* Infers the domain and shape of (op, fn, args); false with *why on a violation. */
bool ir_infer(Arena *a, OpKind op, FnKind fn, FnKind msg, Value **args, int nargs, double fattr,
              int64_t iattr, Domain *dom, Shape *shape, const char **why);
OpKind apply_op_for(Domain d);
void module_count_uses(Module *m);
void module_compact(Module *m); /* drops dead values, renumbers */
Value *resolve(Value *v);       /* follows repl links */
void module_replace_uses(Module *m); /* rewrites every operand through resolve() */

/* The cost of one operator, as c0 + cv*|V| + ce*|E| for FLOPs, bytes read, bytes written
 * (float32 elements, 4 bytes; int64 indices not counted). */
typedef struct {
  double c, v, e;
} CostPoly;
typedef struct {
  CostPoly flops, read, write, live;
} Cost;
Cost cost_of(const Value *v);
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

typedef struct {
  Arena arena;
  Diag diag;
  Program *prog;
  Module *mod;
  const char *model_name; /* --model=NAME; NULL = the last model in the file */
  long value_budget;      /* sema's limit on IR values + statements + layer instances: no input
                             can blow up time or memory */
} GnnCtx;

void gnn_ctx_init(GnnCtx *c, const char *path, const char *text, size_t size, FILE *diag_out);
void gnn_ctx_free(GnnCtx *c);
/* Parses c->diag's text into c->prog. Returns false if any error was reported. */
bool gnn_parse(GnnCtx *c);

/* ===================================================================== passes */

/* Each pass returns true if it changed the module. */
typedef bool (*PassFn)(GnnCtx *c, Module *m);
typedef struct {
  const char *name;
  PassFn run;
  bool optional;    /* switched off by -O0 and by -fno-NAME */
  const char *doc;
} PassInfo;

bool pass_canonicalize(GnnCtx *c, Module *m);
bool pass_compose(GnnCtx *c, Module *m);
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
  bool stats;       /* print the cost model's totals after each pass */
  double stats_V, stats_E;
  FILE *out;        /* where dumps go */
} PipelineOpts;

/* Runs sema and the pass pipeline. Returns the module, or NULL after errors. */
Module *gnn_compile(GnnCtx *c, const PipelineOpts *o);
bool pipeline_has_pass(const char *name);

/* ===================================================================== graph.c, interp.c */

typedef struct {
  int64_t nv, ne;
  int64_t *src, *dst;        /* edge e goes src[e] -> dst[e], in file order */
  int64_t *in_ptr, *in_eid;  /* CSR by destination: in-edges of v are in_eid[in_ptr[v]..in_ptr[v+1]) */
  double *features;          /* nv x nfeat, or NULL */
  int64_t nfeat;
  int64_t *labels;           /* nv, or NULL; -1 = unknown */
} Graph;

/* Loaders report "file:line: error: ..." into err (size errlen) and return false. */
bool graph_load_edges(Graph *g, const char *path, int64_t nv_hint, char *err, size_t errlen);
bool graph_load_features(Graph *g, const char *path, char *err, size_t errlen);
bool graph_load_labels(Graph *g, const char *path, char *err, size_t errlen);
/* A dataset folder (graph.edges, features.svm, labels.txt) or a single edge-list file. */
bool graph_load(Graph *g, const char *path, char *err, size_t errlen);
bool graph_build_csr(Graph *g, char *err, size_t errlen); /* false (err set) when out of memory */
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
 * uniform in [-1, 1) for every parameter (init="uniform", for tests). */
bool params_init(ParamSet *ps, const Module *m, const char *init, uint64_t seed);
bool params_load(ParamSet *ps, const Module *m, const char *path, char *err, size_t errlen);
bool params_save(const ParamSet *ps, const char *path, char *err, size_t errlen);
void params_free(ParamSet *ps);

typedef struct {
  const Module *m;
  const Graph *g;
  const ParamSet *ps;
  uint64_t seed;     /* for edge inputs not given */
  double **vals;     /* per value id: rows x elems */
} Interp;

/* Evaluates the module in float64. Returns false with err set on a runtime error
 * (an input that does not match the graph). The output is vals[m->output->id]. */
bool interp_run(Interp *in, char *err, size_t errlen);
void interp_free(Interp *in);
int64_t value_rows(const Value *v, const Graph *g);

uint64_t rng_next(uint64_t *state); /* splitmix64 */
double rng_uniform(uint64_t *state); /* [0, 1) */

#endif
