/* ir.h -- the operator IR: values, their domains, shapes and costs, the module (ir.c), its
 * printed form (ir_print.c) and its verifier (verify.c); the operator tables come from ops.def
 * and funcs.def. Above the AST (ast.h: Domain) and the ground floor.
 */
#ifndef GNNC_IR_H
#define GNNC_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "ast.h"

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

/* How the fuse pass schedules a value (docs/passes/fuse.md):
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
  /* What the model computes, as a name: 16 hex digits of SHA-256 over the IR after sema as
   * ir_print writes it (pipeline.c; NULL before). The library carries it (gnn_model_api.program)
   * and a training checkpoint records it, so that a resume with a library whose computation
   * differs (another activation, dropout rate, aggregation) is refused. It leaves out what a
   * resume does not depend on: the source's path, layout and comments, parameters' initial
   * values (a resume loads the parameters), and every option after sema (target, schedules,
   * recompute, the GEMM precision). */
  const char *program;
  Arena *arena;
  FuseGroup *groups; /* set by the fuse pass: groups[v->group] */
  int ngroups;
  bool fused;        /* the fuse pass ran: lower follows its groups */
} Module;

static inline Value *module_output(const Module *m) { return m->nouts ? m->outs[0].val : NULL; }
void module_add_output(Module *m, const char *name, Value *v);
/* Whether an --input-grads list (NULL, "all" or NAME,NAME...; Module.input_grads) names input
 * `name`: autodiff derives its adjoint, and the generated model says it can. */
bool module_input_grad_listed(const char *list, const char *name);

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
/* lower_stage.c stages an edge value computed where it is read (once per edge into shared memory,
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
/* The shortest decimal that reads back as the same double ("0.1", "-2"), as the IR text writes numbers. */
void num_str(char *buf, size_t n, double x);
char *ir_to_string(const Module *m); /* malloc'ed; caller frees */

/* ===================================================================== verify.c */

/* Checks the module's invariants; reports each violation to out; returns the count. */
int ir_verify(const Module *m, FILE *out);

#endif
