/* kbuild.h -- the kernel-building vocabulary (kbuild.c), the bottom layer of the lowering: the
 * Lower state, how a kernel reads an operand (Reader), and the builders of expressions,
 * statements, locals, shared arrays, buffers, steps and kernels. Every lowering layer above
 * (lower_op.c, lower_fused.c, lower_stage.c, lower_groups.c, lower_walk.c, lower.c) includes it. Internal to
 * the compiler. */
#ifndef GNNC_KBUILD_H
#define GNNC_KBUILD_H

#include "ctx.h"
#include "kir.h"

typedef struct {
  GnnCtx *c;
  Module *m;
  KProgram *p;
  Arena *a;
  KBuf **buf_of;     /* per value id: its buffer (NULL for constants) */
  int64_t *col_of;   /* per value id: its first column in that buffer (0 but for folded dots) */
  StrMap buf_names;  /* the buffers' names (add_local gives no local one of them) */
  KBuf *deg[3];      /* degree.in, degree.out, degree.size buffers (made on demand) */
  MappingChoice mapping; /* --mapping, for the notes of a reduction that cannot honour it */
  bool ok;
  PtrVec *cur_blk;   /* where statements that an element needs (loops, shared subexpressions) go */
  /* per value id: its bits must be the same in every kernel that computes it (it reaches an
   * extremum or an equality test: the backward finds an extremum's edges by equality with the
   * forward's result, recomputing its argument): never spread over lanes (lower.c) */
  const bool *exact;
  /* the loop over a row's elements being built (the lane loop ks_lanes built last, or a row loop
   * of lower_op.c while its body is built), and the block that holds it: what every element of a
   * row shares (log_softmax's max and sum) goes there, before the loop: once per row, not per
   * element. The loop's variable reaches the reads in it only through their element index. */
  KStmt *elem_loop;
  PtrVec *elem_outer;
} Lower;

/* How a kernel reads operand `i` of the value being lowered at element index `idx`. */
typedef struct Reader Reader;
struct Reader {
  KExpr *(*read)(Lower *L, Kernel *k, const Reader *r, int i, KExpr *idx);
  Value *const *args;  /* the operands */
  KExpr *rows[GNN_MAX_ARGS]; /* the row each operand is read at (NULL: one-row buffer) */
  void *ctx;                 /* the reader's own state (lower_fused.c) */
};

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
KExpr *knarrow(Lower *L, Kernel *k, KExpr *e);
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
typedef struct { KStmt *loop; PtrVec *outer; } ElemLoop; /* Lower's elem_loop and elem_outer */
PtrVec *ks_row_loop(Lower *L, Kernel *k, PtrVec *blk, int var, int64_t n, ElemLoop *prev);
void ks_end_row_loop(Lower *L, ElemLoop prev);
int ks_index(const PtrVec *blk, const KStmt *s);
bool ks_make_uniform(Lower *L, Kernel *k, const PtrVec *blk);
void ks_insert_before(Lower *L, PtrVec *blk, const KStmt *s, const PtrVec *pre);
PtrVec *ks_if(Lower *L, PtrVec *blk, KExpr *cond);
PtrVec *ks_uniform_if(Lower *L, PtrVec *blk, KExpr *cond);
/* buffers, steps, kernels */
KBuf *new_buf(Lower *L, KBufKind kind, const char *name, Domain dom, ElemType elem, int64_t width, Value *v);
KBuf *degree_buf(Lower *L, FnKind which);
KStep *add_step(Lower *L, StepKind kind, const char *what, bool bwd);
const char *describe(Lower *L, const Value *v);
Kernel *new_kernel(Lower *L, const Value *v, const char *what, Mapping map, Domain rows, int group);
int group_for(int64_t n);
const char *c_ident(Lower *L, const char *prefix, const char *name);
const char *value_source_cname(Lower *L, const Value *v); /* the source's name for v, or NULL */
const char *value_cname(Lower *L, const Value *v, const char *unnamed, const char *suffix);
const char *src_lines(Lower *L, const Value *const *vals, int n);
KDim kdim(int64_t mult, Domain d);
void finish_kernel(Lower *L, Kernel *k);

#endif
