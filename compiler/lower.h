/* lower.h -- what lower.c (the kernel-IR builders and the one-kernel-per-operator lowering)
 * shares with lower_fused.c (the lowering of the fuse pass's groups). Internal to the compiler. */
#ifndef GNNC_LOWER_H
#define GNNC_LOWER_H

#include "gnnc.h"

typedef struct {
  GnnCtx *c;
  Module *m;
  KProgram *p;
  Arena *a;
  KBuf **buf_of;     /* per value id: its buffer (NULL for constants) */
  int64_t *col_of;   /* per value id: its first column in that buffer (0 but for folded dots) */
  StrMap buf_names;  /* the buffers' names (add_local gives no local one of them) */
  KBuf *deg[3];      /* degree.in, degree.out, degree.size buffers (made on demand) */
  MappingChoice mapping;
  bool ok;
  PtrVec *cur_blk;   /* where statements that an element needs (loops, shared subexpressions) go */
  struct Fused *fz;  /* lower_fused.c's state while it builds a fused kernel */
} Lower;

/* How a kernel reads operand `i` of the value being lowered at element index `idx`. */
typedef struct Reader Reader;
struct Reader {
  KExpr *(*read)(Lower *L, Kernel *k, const Reader *r, int i, KExpr *idx);
  Value *const *args;  /* the operands */
  KExpr *rows[GNN_MAX_ARGS]; /* the row each operand is read at (NULL: one-row buffer) */
  void *ctx;                 /* the reader's own state (lower_fused.c) */
};

typedef KExpr *(*TermFn)(Lower *L, Kernel *k, const Reader *r, const Value *v, KExpr *outer, KExpr *j);

/* The state of one walk over the edges of the group's vertex: the uniform locals holding the
 * current edge id and its far end. A walk in chunks of G edges stages each chunk first, lane l
 * loading edge j0 + l (`stage`, where lane-level work per staged edge can go before the barrier)
 * and then visits the chunk's edges in order (t: the position in the chunk). */
typedef struct {
  int e, u;        /* locals: edge id, far-end vertex */
  PtrVec *body;    /* where the per-edge statements go */
  PtrVec *stage;   /* lane l's statements for edge j0 + l (NULL: a walk without chunks) */
  int she, shu;    /* the chunk's shared arrays of edge ids and far ends (-1: none) */
  int t;           /* local: the edge's position in its chunk (-1: no chunks) */
} Walk;

/* expressions */
KExpr *ke_new(Lower *L, KExprKind kind, KType t);
KExpr *kf(Lower *L, double f);
KExpr *ki(Lower *L, int64_t i);
KExpr *kvar(Lower *L, Kernel *k, int var, KExpr *idx);
KExpr *klane(Lower *L);
KExpr *krow(Lower *L);
KExpr *kgraph(Lower *L, Kernel *k, KGraphArray g, KExpr *idx);
KExpr *kshared(Lower *L, Kernel *k, int sh, KExpr *idx);
void use_buf(Kernel *k, KBuf *b, Lower *L);
KExpr *kload(Lower *L, Kernel *k, KBuf *b, KExpr *row, KExpr *idx);
KExpr *kbin(Lower *L, int op, KExpr *x, KExpr *y);
KExpr *kun(Lower *L, int op, KExpr *x);
KExpr *ksel(Lower *L, KExpr *c, KExpr *x, KExpr *y);
/* locals, shared arrays, statements */
int add_local(Lower *L, Kernel *k, const char *name, KType t, int len, bool uniform);
int add_shared(Lower *L, Kernel *k, const char *name, KType t, int len);
KStmt *ks_new(Lower *L, PtrVec *blk, KStmtKind kind);
void ks_let(Lower *L, PtrVec *blk, int var, KExpr *idx, KExpr *val);
void ks_store(Lower *L, Kernel *k, PtrVec *blk, KBuf *b, KExpr *row, KExpr *idx, KExpr *val);
void ks_shstore(Lower *L, PtrVec *blk, int sh, KExpr *idx, KExpr *val); /* shared array sh[idx] = val */
void ks_atomic(Lower *L, Kernel *k, PtrVec *blk, int op, KBuf *b, KExpr *row, KExpr *idx, KExpr *val);
PtrVec *ks_for(Lower *L, Kernel *k, PtrVec *blk, int var, KExpr *lo, KExpr *hi);
PtrVec *ks_lanes(Lower *L, Kernel *k, PtrVec *blk, int64_t count, int *kvar_out, int *ivar_out);
PtrVec *ks_if(Lower *L, PtrVec *blk, KExpr *cond);
/* buffers, steps, kernels */
KBuf *new_buf(Lower *L, KBufKind kind, const char *name, Domain dom, ElemType elem, int64_t width, Value *v);
KBuf *degree_buf(Lower *L, FnKind which);
KStep *add_step(Lower *L, StepKind kind, const char *what, bool bwd);
const char *describe(Lower *L, const Value *v);
Kernel *new_kernel(Lower *L, const Value *v, const char *what, Mapping map, Domain rows, int group);
int group_for(int64_t n);
const char *c_ident(Lower *L, const char *prefix, const char *name);
KDim kdim(int64_t mult, Domain d);
void finish_kernel(Lower *L, Kernel *k);
/* element values */
KExpr *bcast(Lower *L, KExpr *idx, int64_t n, int64_t na);
FnKind as_apply(FnKind f);
int sum_loop(Lower *L, Kernel *k, PtrVec *blk, const Reader *r, const Value *v, KExpr *outer, int64_t n, TermFn term,
             const char *name);
KExpr *fn_elem(Lower *L, Kernel *k, PtrVec *blk, const Value *v, FnKind fn, const Reader *r, KExpr *idx, KExpr *row_counter);
/* walks and reductions */
void walk_bounds(Lower *L, Kernel *k, int *lo, int *hi);
Walk walk_edges(Lower *L, Kernel *k, PtrVec *blk, int lo, int hi, bool need_far);
KExpr *reduce_init(Lower *L, FnKind r);
KExpr *reduce_step(Lower *L, FnKind r, KExpr *acc, KExpr *x);
void finish_rows(Lower *L, Value *v, KBuf *from, FnKind deg_fn, bool mean);
KBuf *sum_scratch(Lower *L, Value *v);
void lower_gemm(Lower *L, Value *v);

/* lower_fused.c: the steps of the fuse pass's groups, in their order (L->buf_of already holds
 * the inputs and parameters). */
void lower_fused_steps(Lower *L);

#endif
