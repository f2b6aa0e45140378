/* lower_op.h -- the per-operator lowering (lower_op.c): one kernel or GEMM step per value, and
 * the pieces of a kernel the fused lowerings (lower_fused.c, lower_groups.c, lower_walk.c) reuse: element
 * functions, edge walks, reductions' finishing rows, the GEMM step. Sits on kbuild.h.
 * Internal to the compiler. */
#ifndef GNNC_LOWER_OP_H
#define GNNC_LOWER_OP_H

#include "kbuild.h"

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
  PtrVec *chunk;   /* the chunk's statements (stage, barrier, cnt, the loop over t, barrier), or NULL */
  int cnt;         /* local: the chunk's edge count (-1: no chunks) */
} Walk;

/* element values */
KExpr *bcast(Lower *L, KExpr *idx, int64_t n, int64_t na);
FnKind as_apply(FnKind f);
int sum_loop(Lower *L, Kernel *k, PtrVec *blk, const Reader *r, const Value *v, KExpr *outer, int64_t n, TermFn term,
             const char *name);
/* a reduction with a long reduced dim and few outputs, spread over the lanes (its length, or 0: not so) */
int64_t split_reduce_len(const Lower *L, const Value *v);
int spread_sum(Lower *L, Kernel *k, PtrVec *blk, const Reader *r, const Value *v, KExpr *j);
KExpr *fn_elem(Lower *L, Kernel *k, PtrVec *blk, const Value *v, FnKind fn, const Reader *r, KExpr *idx, KExpr *row_counter);
/* walks and reductions */
void walk_bounds(Lower *L, Kernel *k, int *lo, int *hi);
Walk walk_edges(Lower *L, Kernel *k, PtrVec *blk, int lo, int hi, bool need_far);
/* edge_softmax's value from exp(score - max) and the float64 sum of the exps, as memory holds it:
 * the quotient in float by the sum rounded to float, what the backward recomputes from its float
 * stashes bit for bit (an extremum's backward finds its edges by equality). */
KExpr *softmax_quotient(Lower *L, KExpr *p, KExpr *sum64);
KExpr *reduce_init(Lower *L, FnKind r);
KExpr *reduce_step(Lower *L, FnKind r, KExpr *acc, KExpr *x);
void finish_rows(Lower *L, Value *v, KBuf *from, FnKind deg_fn, bool mean);
KBuf *sum_scratch(Lower *L, Value *v);
void lower_gemm(Lower *L, Value *v);
void lower_spmm(Lower *L, Value *v);
/* one value, unfused: edge_map is the caller's choice of the edge-balanced mapping for it */
void lower_op_value(Lower *L, Value *v, bool edge_map);

#endif
