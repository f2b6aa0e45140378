/* lower_fused.h -- the fused lowering (lower_fused.c): the evaluation of values inside fused
 * kernels, walk levels, the fused kernel and the buffers of a fused module; what staging
 * (lower_stage.c) and the group kernels build on (lower_walk.c: walks; lower_groups.c: rows,
 * sink, edge-balanced and GEMM groups), and what lower.c (the driver) starts and ends a fused
 * module with. Sits on lower_op.h. Internal to the compiler. */
#ifndef GNNC_LOWER_FUSED_H
#define GNNC_LOWER_FUSED_H

#include "lower_op.h"

typedef struct {
  KExpr *vtx;        /* the vertex row (vertex values) */
  KExpr *edge;       /* the edge id (edge values) */
  KExpr *src, *dst;  /* the vertex ids at the edge's ends */
  bool near;         /* vtx is the kernel's own row: its group's vertex results are available */
  bool src_near, dst_near;
} Ctx;

typedef struct Fused {
  Lower *L;
  Module *m;
  Kernel *k;
  int gid;
  bool *needs_buf;   /* per value: lives in memory */
  KBuf **buf64;      /* per value: the float64 stash the backward reads of an f64 forward value that the
                        forward also reads as float (beside its float buffer), or NULL */
  bool want64;       /* while t_v's product reads out_v: its float64 stash, unrounded */
  bool reader64;     /* while an f64 value's operand is evaluated (softmax_from_stats: unrounded) */
  bool *fwd_needed;  /* per value: the forward reads it from memory (else only the backward does) */
  bool *from_stats;  /* per value: an edge_softmax that forward kernels of other groups read at their
                        edges as exp(score - max_v) / sum_v from its walk's statistics (st_max, st_sum),
                        not from an edge buffer of alpha */
  KBuf **st_max, **st_sum; /* per value: those statistics (float; float64, as the walk summed them) */
  bool *seen;        /* per value: computed by the current kernel (for its description) */
  bool *stored;      /* per value: a root this kernel has stored for its row (later reads load it) */
  bool *kept;        /* per value: a root that later roots of its own kernel read, in memory only for the
                        backward: store_kept puts it in a per-group array for them, and in memory only
                        when training (an inference forward neither writes nor allocates it) */
  int *sh_root;      /* per value: a kept root's array in the current kernel (-1: none yet) */
  KBuf **spill_root; /* per value: its scratch buffer instead, past GNN_SHARED_MAX, or NULL */
  int *sh;           /* per value: the shared array of a finished reduction of this kernel */
  KBuf **spill;      /* per value: a finished reduction of this kernel too wide for shared memory, in
                        this buffer instead of sh (lower_walk.c: GNN_SHARED_MAX), or NULL */
  KBuf **spill_sum;  /* edge_softmax: its sums in this buffer instead of sh_sum, or NULL */
  int *sh_sum;       /* edge_softmax: the array of its sums (sh: of its maxima) */
  int *walk;         /* per value: the walk a reduction of this group is computed in */
  int *lev;          /* per value: the first walk after which it can be computed (-1 unknown) */
  int step;          /* the current kernel's step */
  int lin_budget;    /* lin_in's visits so far */
  const Value **online; /* per value: the edge_softmax an aggregate accumulates online with (or NULL) */
  /* while an online term is built: the softmax, its slot's running max, sum and accumulator */
  const Value *on_soft;
  KExpr *on_acc, *on_idx, *on_p;
  int on_sh_scale, on_sh_p;  /* the softmax's per-edge shared arrays: its rescale factor and exp(x - max) */
  /* chunked online softmax (lower_walk.c): the factors of a whole chunk are made before its edges
   * are walked; p and the hoisted weights are then arrays over the chunk, read at
   * [on_slot * on_width + idx], and the accumulator is rescaled once a chunk, not as it is read */
  bool on_chunk;
  KExpr *on_slot;
  int on_width;
  bool *online_src;          /* per value: a softmax some aggregate of this kernel accumulates online with */
  int *sh_scale, *sh_pv;     /* per softmax: those shared arrays */
  int *hoist;                /* per online aggregate: the shared array of its edge weight (-1: none) */
  /* staging (lower_stage.c: stage_walk, stage_rows): an edge value computed once per edge into shared memory */
  int *stage;        /* per value: its shared array while staged (-1: computed where it is read) */
  int st_e, st_le;   /* a walk's locals: its edge (staged values at chunk position st_t), the staging lane's edge */
  int st_t;
  bool st_row;       /* a kernel per edge: staged values at its row */
  bool *train_need;  /* per value: a forward kernel's training run computes it (pick_stages: not only
                        below a recomputed stash, which training loads) */
  PtrVec *memo_v;    /* per value: Memo* of the current kernel (lower_fused.c, eval) */
  PtrVec memo_touched; /* the memo_v lists in use (cleared per kernel) */
} Fused;

/* How a fused kernel reads the operands of `reader` (fused_read). */
typedef struct {
  Fused *F;
  const Value *reader; /* the value whose operands these are: f64 widens them; reads_f64_stash reads
                          an f64 forward operand unrounded */
  Ctx ctx[GNN_MAX_ARGS];
  int hoisted;       /* >= 0: operand 1 is in this shared array (an online aggregate's edge weight, made
                        once per edge by the softmax's lanes): the accumulator is rescaled as it is read */
} FReader;

/* lower_fused.c: values at an element */
bool grouped(const Value *v);
int width_of(const Value *v);
Ctx vertex_ctx(KExpr *v, bool near);
KExpr *eval(Fused *F, const Value *x, const Ctx *cx, KExpr *idx);
KExpr *compute(Fused *F, const Value *x, const Ctx *cx, KExpr *idx);
Reader fused_reader(Fused *F, const Value *x, const Ctx *cx, FReader *fr);
bool computed_here(Fused *F, const Value *x);
KExpr *fused_read(Lower *L, Kernel *k, const Reader *r, int i, KExpr *idx);
void fin_array(Fused *F, PtrVec *fin, const Value *a, const char *what, KType t, int wd, KExpr *kk, KExpr *val, KBuf *own,
               int *sh, KBuf **spill);
KExpr *fin_read(Fused *F, int sh, KBuf *spill, KExpr *idx);
KExpr *subst_var(Lower *L, Kernel *k, const KExpr *e, int from, int to);
KExpr *ktraining(Lower *L);
bool stash_only(const Fused *F, const Value *v);
void store(Fused *F, PtrVec *blk, const Value *v, KExpr *row, KExpr *idx, KExpr *val);
void store_kept(Fused *F, PtrVec *blk, const Value *v, KExpr *row, KExpr *idx, KExpr *val);
/* lower_fused.c: for staging (lower_stage.c), which loads a recomputed stash when training */
bool recomputed_stash(const Fused *F, const Value *x);
KExpr *fused_load(Fused *F, const Value *x, const Ctx *cx, KExpr *idx);
/* lower_fused.c: kernels */
Kernel *fused_kernel(Fused *F, const char *what, Mapping map, Domain rows, int G, bool bwd, const char *name);
const char *kernel_what(Fused *F);
const char *group_name(Fused *F, Value **mem, int n);
/* lower_fused.c: walk levels */
bool is_stat(const Fused *F, const Value *x);
int level(Fused *F, const Value *x);
/* lower_fused.c: the module's fused state and buffers */
void fused_begin(Fused *F, Lower *L);
void fused_group(Fused *F, int gid);
void fused_end(Fused *F);

#endif
