/* lower_fused.c -- the fused lowering's core: values inside a fused kernel, and the buffers.
 *
 * Requires: a module the fuse pass scheduled (m->fused; passes/fuse.c says what the schedule
 * means). Produces the KProgram's buffers of a fused module (fused_begin: what must live in
 * memory) and the pieces every fused group's kernel is made of: eval, walk levels,
 * fused_kernel. Staging (lower_stage.c) and the group kernels build on it (lower_walk.c the
 * walks, lower_groups.c the rest), and lower.c, the driver, hands each group to one of them;
 * kbuild.c's builders make the statements, and lower_op.c's element functions, walks and GEMM
 * steps serve here as in the unfused lowering. It calls nothing above it.
 *
 * The heart of it is `eval`: the value of an operator-IR value at one element, as a kernel-IR
 * expression, in a context that says which vertex, edge, source and destination the element
 * belongs to. A value in memory (a leaf, a GEMM result, another group's result) is a load; an
 * inline value, or a root of the kernel's own group, is computed from its operands where it is
 * needed (views are index arithmetic, element-wise functions registers); a reduction of the
 * kernel's own group is read from the shared memory its walk left it in. A subexpression read
 * twice at the same element is bound to a local once (a memo per block).
 *
 * The kernel shapes (the walks' in lower_walk.c, the rest in lower_groups.c; lower_fused.h and
 * lower_stage.h are what they share; lower.c chooses which per group):
 *   FG_WALK   a group of G lanes per vertex (the row); lo..hi its in-edges (CSR) or out-edges
 *             (CSC). Walk w (1, 2, ...) visits every edge of the row and updates, per lane, the
 *             register accumulators of the reductions whose operands need only the results of
 *             walks < w; after it, the lanes put the finished reductions into shared memory
 *             (and into memory if another kernel reads them), then a barrier. edge_softmax
 *             keeps a running max and a rescaled sum in one walk (online), and its value at an
 *             edge is exp(x - max) / sum in later walks. Edge values that must be in memory are
 *             stored in the first walk that can compute them; vertex values after the last walk.
 *   FG_ROWS   a group of lanes per row (vertex, edge or the global row) storing its roots.
 *   FG_SINK   reduce_rows: every row adds its term into a float64 accumulator (atomics), then
 *             one row rounds it.
 *   FG_EDGE_REDUCE  --mapping=edge: a group per edge, atomics into the vertex's row, a finish.
 *   FG_GEMM   a GEMM step (with folded attention dots: a weight kernel, then the GEMM).
 */
#include "lower_fused.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* eval's memo: x at (vtx, edge, idx) in block blk is local var (or expr) */
typedef struct {
  const Value *v;
  KExpr *vtx, *edge, *idx;
  PtrVec *blk;
  int var;           /* the local it is bound to, or -1: expr is the value */
  KExpr *expr;
} Memo;

/* An element-wise forward value checkpoint stashes for the backward: its group (a rows kernel,
 * or a store in a walk) writes it when training, and forward kernels of other groups recompute
 * it where they read it, as if inline, so that an inference forward holds no buffer of it (GCN's
 * edge normalisation, MoNet's Gaussian weights). The backward loads it. */
static bool fwd_recomputes(const Value *x) {
  return !x->bwd && !x->folded && x->ckpt == CKPT_STASH && x->sched == SCHED_ROOT &&
         (x->op == OP_APPLY_EDGE || x->op == OP_APPLY_VERTEX || x->op == OP_APPLY_GLOBAL || x->op == OP_APPLY_GRAPH || x->op == OP_SCATTER);
}

/* A stash (fwd_recomputes) that this forward kernel recomputes where it reads it: in memory
 * only when training, when the stash group has run before this kernel. Not one the forward keeps
 * in memory anyway (a GEMM's operand, an output: fwd_needed, its group writes it in inference
 * too): loaded. Recomputed, a layer's layer_norm output that the next layer's GEMM and walk both
 * read was computed again at each of the walk's edges, its row sums inside the lanes' loop (a
 * gated residual of two such layers: 30 ms a forward on 50 vertices, 0.04 ms unfused). */
bool recomputed_stash(const Fused *F, const Value *x) {
  return fwd_recomputes(x) && x->group != F->gid && !F->m->groups[F->gid].bwd && !F->fwd_needed[x->id];
}

/* A value of the graph alone (the hoist pass: in memory in CSR edge order) read by a walk over
 * out-edges: recomputed there from the degrees, as before the hoist. Loading it would read
 * out_eid[j] and then the value at a random edge, a 64-byte line for 4 bytes. */
static bool recomputed_invariant(const Fused *F, const Value *x) {
  const FuseGroup *g = &F->m->groups[F->gid];
  return x->sched == SCHED_ROOT && x->group >= 0 && x->group != F->gid && F->m->groups[x->group].per_graph &&
         g->kind == FG_WALK && g->dir == GATHER_BY_SRC;
}

bool grouped(const Value *v) {
  return v->sched == SCHED_ROOT || v->sched == SCHED_ANCHOR || v->sched == SCHED_LIBRARY;
}

int width_of(const Value *v) { return (int)shape_elems(&v->shape); }

/* ---------------------------------------------------------------- structural equality */

static bool keq(const KExpr *a, const KExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
  case KE_FCONST: if (a->f != b->f) return false; break;
  case KE_ICONST: if (a->i != b->i) return false; break;
  case KE_VAR: case KE_SHARED: if (a->var != b->var) return false; break;
  case KE_LOAD: if (a->buf != b->buf) return false; break;
  case KE_GRAPH: if (a->garr != b->garr) return false; break;
  case KE_BIN: case KE_UN: if (a->op != b->op) return false; break;
  case KE_KEEP: if (a->i != b->i || a->f != b->f) return false; break;
  default: break;
  }
  return keq(a->a, b->a) && keq(a->b, b->b) && keq(a->c, b->c);
}

/* ---------------------------------------------------------------- evaluation */

static KExpr *row_of(Fused *F, const Value *x, const Ctx *cx) {
  if (x->dom == DOM_VERTEX || x->dom == DOM_EDGE) {
    KExpr *r = x->dom == DOM_VERTEX ? cx->vtx : cx->edge;
    if (!r) {
      fprintf(stderr, "internal error: fused kernel %s reads %s value %%%d without its row\n", F->k->name,
              domain_name(x->dom), x->id);
      F->L->ok = false;
      return ki(F->L, 0);
    }
    return r;
  }
  return NULL;
}

KExpr *fused_load(Fused *F, const Value *x, const Ctx *cx, KExpr *idx) {
  KBuf *b = F->L->buf_of[x->id];
  if (F->buf64[x->id] && F->want64 && F->m->groups[F->gid].bwd) b = F->buf64[x->id];
  if (!b) {
    fprintf(stderr, "internal error: fused kernel %s reads %%%d, which is not in memory\n", F->k->name, x->id);
    F->L->ok = false;
    return kf(F->L, 0);
  }
  if (F->L->col_of[x->id] && b == F->L->buf_of[x->id]) idx = kbin(F->L, KO_ADD, ki(F->L, F->L->col_of[x->id]), idx);
  KExpr *e = kload(F->L, F->k, b, row_of(F, x, cx), idx);
  /* a float64 stash of out_v (its only buffer when only the backward reads it) is, to any reader
   * but t_v's product, out_v as the forward rounded it (a later layer's d(alpha) of it included) */
  if (x->f64 && !x->bwd && e->type == KT_F64 && !F->want64) e = kun(F->L, KU_TO_F32, e);
  return e;
}

KExpr *fused_read(Lower *L, Kernel *k, const Reader *r, int i, KExpr *idx) {
  const FReader *fr = r->ctx;
  if (r->args[i]->op == OP_CONST) return kf(L, r->args[i]->fattr);
  if (i == 1 && fr->hoisted >= 0) {
    Fused *F = fr->F;
    if (!F->on_p) {
      F->on_idx = idx;
      if (F->on_chunk) {
        F->on_p = kshared(L, k, fr->hoisted, kbin(L, KO_ADD, kbin(L, KO_MUL, F->on_slot, ki(L, F->on_width)), idx));
        return F->on_p;
      }
      ks_let(L, L->cur_blk, F->on_acc->var, F->on_acc->a,
             kbin(L, KO_MUL, F->on_acc, kun(L, KU_TO_F64, kshared(L, k, F->on_sh_scale, idx))));
      F->on_p = kshared(L, k, fr->hoisted, idx);
    }
    return F->on_p;
  }
  Fused *F = fr->F;
  bool saved = F->want64, saved_r = F->reader64;
  F->want64 = fr->reader->reads_f64_stash && r->args[i]->f64 && !r->args[i]->bwd;
  F->reader64 = fr->reader->f64;
  KExpr *e = eval(F, r->args[i], &fr->ctx[i], idx);
  F->want64 = saved;
  F->reader64 = saved_r;
  return fr->reader->f64 && e->type == KT_F32 && e->kind != KE_FCONST ? kun(L, KU_TO_F64, e) : e;
}

Ctx vertex_ctx(KExpr *v, bool near) { return (Ctx){.vtx = v, .near = near}; }

/* Element idx of a finished reduction of this kernel at its row: shared array sh, or the buffer it
 * went to when too wide for shared memory (lower_walk.c). */
KExpr *fin_read(Fused *F, int sh, KBuf *spill, KExpr *idx) {
  return spill ? kload(F->L, F->k, spill, krow(F->L), idx) : kshared(F->L, F->k, sh, idx);
}

/* A per-group array of wd elements of type t for the rest of the kernel (a reduction finished by a
 * walk, a kept root: store_kept), named sh<what><id>, val stored at element kk by the lanes of
 * fin. Shared memory (*sh) while one group's arrays stay within GNN_SHARED_MAX (48 KB, so that a
 * CUDA block of one group fits: kir.c, kernel_groups_per_block); otherwise the row's values go to
 * memory (*spill) and are read back after the barrier: `own`, a buffer the kernel has just stored
 * the same values to (whether or not training), else a scratch buffer t<id>_sp<what>. Only values
 * of ~12,000 floats a vertex get there; they give up shared memory's bandwidth, not correctness. */
void fin_array(Fused *F, PtrVec *fin, const Value *a, const char *what, KType t, int wd, KExpr *kk, KExpr *val, KBuf *own,
               int *sh, KBuf **spill) {
  Lower *L = F->L;
  Kernel *k = F->k;
  int64_t bytes = (int64_t)wd * (t == KT_F32 ? 4 : 8);
  if (kernel_shared_bytes(k, 1) + bytes <= GNN_SHARED_MAX) {
    *sh = add_shared(L, k, arena_printf(L->a, "sh%s%d", what, a->id), t, wd);
    ks_shstore(L, fin, *sh, kk, val);
    return;
  }
  ElemType e = t == KT_F64 ? ELEM_F64 : t == KT_I64 ? ELEM_I32 : ELEM_F32;
  if (!own || own->elem != e || own->width != wd || own->dom != DOM_VERTEX) {
    own = new_buf(L, BUF_TEMP, value_cname(L, a, "t", arena_printf(L->a, "_sp%s", what)), DOM_VERTEX, e, wd, NULL);
    own->bwd = a->bwd;
    ks_store(L, k, fin, own, krow(L), kk, val);
  }
  *spill = own;
}

/* The value by its definition (an inline value, or a root of this kernel). */
/* The reader of x's operands at cx (a Scatter's at the edge's ends), in *fr. */
Reader fused_reader(Fused *F, const Value *x, const Ctx *cx, FReader *fr) {
  *fr = (FReader){F, x, {{0}}, -1};
  for (int i = 0; i < x->nargs; i++) {
    const Value *a = x->args[i];
    if (a->dom == DOM_PARAM || a->dom == DOM_GLOBAL) fr->ctx[i] = (Ctx){0};
    else if (x->op == OP_SCATTER) {
      bool at_dst = x->fn == FN_COPY_V || x->fn == FN_ARGSEL_V || i == 1;
      fr->ctx[i] = vertex_ctx(at_dst ? cx->dst : cx->src, at_dst ? cx->dst_near : cx->src_near);
    } else fr->ctx[i] = *cx;
  }
  return (Reader){fused_read, x->args, {NULL, NULL, NULL}, fr};
}

KExpr *compute(Fused *F, const Value *x, const Ctx *cx, KExpr *idx) {
  Lower *L = F->L;
  Kernel *k = F->k;
  FReader fr;
  Reader r = fused_reader(F, x, cx, &fr);
  KExpr *counter = x->dom == DOM_VERTEX ? cx->vtx : x->dom == DOM_EDGE ? cx->edge : ki(L, 0);
  F->seen[x->id] = true;
  if (x->op == OP_SCATTER && x->fn == FN_ARGSEL_V) { /* a[v] where arg[v] names this edge, else 0 */
    KExpr *hit = kbin(L, KO_EQ, eval(F, x->args[1], &fr.ctx[1], idx), cx->edge);
    return ksel(L, hit, eval(F, x->args[0], &fr.ctx[0], idx), kf(L, 0));
  }
  return fn_elem(L, k, L->cur_blk, x, x->fn, &r, idx, counter);
}

/* edge_softmax read by an aggregate that accumulates online (in the walk of its stats): the
 * softmax's own lanes, per head, have just raised the running max to this edge's score and left
 * in shared memory the factor exp(old max - new max) and p = exp(score - new max); the
 * aggregate's slot rescales its accumulator by the factor and takes p for the softmax, and
 * divides by the sum at the end (the message is linear in the softmax: lower_walk checked). */
static KExpr *online_read(Fused *F, const Value *x, const Ctx *cx, KExpr *idx) {
  Lower *L = F->L;
  Kernel *k = F->k;
  (void)x;
  (void)cx;
  if (F->on_p) return F->on_p; /* read once per term (checked), at one index */
  F->on_idx = idx;
  if (F->on_chunk) { /* the chunk's p, its accumulator rescaled before the chunk's edges */
    F->on_p = kshared(L, k, F->on_sh_p, kbin(L, KO_ADD, kbin(L, KO_MUL, F->on_slot, ki(L, F->on_width)), idx));
    return F->on_p;
  }
  PtrVec *b = L->cur_blk;
  ks_let(L, b, F->on_acc->var, F->on_acc->a, kbin(L, KO_MUL, F->on_acc, kun(L, KU_TO_F64, kshared(L, k, F->on_sh_scale, idx))));
  F->on_p = kshared(L, k, F->on_sh_p, idx);
  return F->on_p;
}

/* e with every use of local `from` replaced by local `to` (a lane loop's variable in another loop). */
KExpr *subst_var(Lower *L, Kernel *k, const KExpr *e, int from, int to) {
  if (!e) return NULL;
  if (e->kind == KE_VAR && e->var == from) return kvar(L, k, to, subst_var(L, k, e->a, from, to));
  KExpr *c = ke_new(L, e->kind, e->type);
  *c = *e;
  c->a = subst_var(L, k, e->a, from, to);
  c->b = subst_var(L, k, e->b, from, to);
  c->c = subst_var(L, k, e->c, from, to);
  return c;
}

/* The size of e as a tree (shared subexpressions counted at each use), up to 1000. */
static int tree_size(const KExpr *e, int acc) {
  if (!e || acc > 1000) return acc;
  acc++;
  acc = tree_size(e->a, acc);
  acc = tree_size(e->b, acc);
  return tree_size(e->c, acc);
}

/* x is read at the kernel's own row (where this kernel stored it). */
static bool own_row(const Value *x, const Ctx *cx) {
  if (x->dom == DOM_VERTEX) return cx->near && cx->vtx && cx->vtx->kind == KE_ROW;
  if (x->dom == DOM_EDGE) return cx->edge && cx->edge->kind == KE_ROW;
  return true;
}

static bool trivial(const KExpr *e) {
  return e->kind == KE_FCONST || e->kind == KE_ICONST || e->kind == KE_VAR || e->kind == KE_LOAD || e->kind == KE_SHARED;
}

/* Where a staged value is read in context cx: its element idx at the edge's slot, or NULL where
 * cx's edge is not one that was staged. */
static KExpr *staged_at(Fused *F, const Value *x, const Ctx *cx, KExpr *idx) {
  Lower *L = F->L;
  const KExpr *e = cx->edge;
  if (x->dom == DOM_VERTEX) /* a kernel per vertex: staged at its row */
    return F->st_row && cx->near && cx->vtx && cx->vtx->kind == KE_ROW ? kshared(L, F->k, F->stage[x->id], idx) : NULL;
  if (!e) return NULL;
  KExpr *W = ki(L, width_of(x)), *slot;
  if (F->st_row && e->kind == KE_ROW) slot = ki(L, 0);
  else if (e->kind == KE_VAR && !e->a && F->st_e >= 0 && e->var == F->st_e) slot = kvar(L, F->k, F->st_t, NULL);
  else if (e->kind == KE_VAR && !e->a && F->st_le >= 0 && e->var == F->st_le) slot = klane(L);
  else return NULL;
  return kshared(L, F->k, F->stage[x->id], kbin(L, KO_ADD, kbin(L, KO_MUL, slot, W), idx));
}

/* edge_softmax s at an edge, read by a kernel of another group: exp(score - max_v) / sum_v from
 * the statistics its walk stored (from_stats). A float64 reader (alpha' = dropout(alpha), which
 * the attention backward wants exact in out_v) gets the division in float64, unrounded. Any other
 * gets softmax_quotient's, as the unfused softmax kernel: the value the backward recomputes from
 * its float stashes of the max and the sum (checkpoint.c), bit for bit. An extremum's backward
 * finds its edges by equality with the forward's result (max_out of a softmax): the correctly
 * rounded float64 quotient differed from that recomputation in the last bit, and every gradient
 * through the max was 0. */
static KExpr *softmax_from_stats(Fused *F, const Value *s, const Ctx *cx, KExpr *idx) {
  Lower *L = F->L;
  if (!cx->dst) {
    fprintf(stderr, "internal error: fused kernel %s reads edge_softmax %%%d without the edge's destination\n", F->k->name, s->id);
    L->ok = false;
    return kf(L, 0);
  }
  KExpr *score = eval(F, s->args[0], cx, idx);
  KExpr *p = kun(L, KU_EXP, kbin(L, KO_SUB, score, kload(L, F->k, F->st_max[s->id], cx->dst, idx)));
  KExpr *sum = kload(L, F->k, F->st_sum[s->id], cx->dst, idx);
  return F->reader64 ? kbin(L, KO_DIV, kun(L, KU_TO_F64, p), sum) : softmax_quotient(L, p, sum);
}

KExpr *eval(Fused *F, const Value *x, const Ctx *cx, KExpr *idx) {
  Lower *L = F->L;
  if (x->op == OP_CONST) return kf(L, x->fattr);
  if (F->stage[x->id] >= 0) {
    KExpr *st = staged_at(F, x, cx, idx);
    if (st) return st;
  }
  if (F->from_stats[x->id] && x->group != F->gid) return softmax_from_stats(F, x, cx, idx);
  bool recompute = recomputed_stash(F, x) || recomputed_invariant(F, x);
  if (!recompute && (x->sched == SCHED_LEAF || x->sched == SCHED_LIBRARY || (grouped(x) && x->group != F->gid)))
    return fused_load(F, x, cx, idx);
  if (x->sched == SCHED_ROOT && F->stored[x->id] && own_row(x, cx)) return fused_load(F, x, cx, idx); /* this row's, stored above */
  if (x->sched == SCHED_ROOT && (F->sh_root[x->id] >= 0 || F->spill_root[x->id])) { /* kept above (store_kept) */
    if (!own_row(x, cx)) {
      fprintf(stderr, "internal error: fused kernel %s reads its kept root %%%d at another row\n", F->k->name, x->id);
      L->ok = false;
    }
    return fin_read(F, F->sh_root[x->id], F->spill_root[x->id], idx);
  }
  if (x->sched == SCHED_ANCHOR) {
    /* a reduction of this kernel, finished by an earlier walk (or the softmax being accumulated online) */
    if (x == F->on_soft) return online_read(F, x, cx, idx);
    if (F->sh[x->id] < 0 && !F->spill[x->id] && !F->spill_sum[x->id]) {
      fprintf(stderr, "internal error: fused kernel %s reads %%%d before its walk\n", F->k->name, x->id);
      L->ok = false;
      return kf(L, 0);
    }
    if (x->op == OP_REDUCE_SCATTER) { /* edge_softmax at this edge: exp(x - max) / sum */
      KExpr *xa = eval(F, x->args[0], cx, idx);
      KExpr *p = kun(L, KU_EXP, kbin(L, KO_SUB, xa, fin_read(F, F->sh[x->id], F->spill[x->id], idx)));
      return kun(L, KU_TO_F32, kbin(L, KO_DIV, p, fin_read(F, F->sh_sum[x->id], F->spill_sum[x->id], idx)));
    }
    if (!cx->near || (F->spill[x->id] && !own_row(x, cx))) {
      fprintf(stderr, "internal error: fused kernel %s reads %%%d at another vertex\n", F->k->name, x->id);
      L->ok = false;
    }
    return fin_read(F, F->sh[x->id], F->spill[x->id], idx);
  }
  /* inline, or a root of this kernel: computed here, once per element and block (the memo: a
   * DAG of shared subexpressions stays a DAG); a value read twice, or a large expression, is
   * bound to a local, so that printed code never repeats a subexpression (a chain of 80 relus
   * would otherwise print 2^80 terms) */
  PtrVec *mv = &F->memo_v[x->id];
  for (int i = mv->len - 1; i >= 0; i--) {
    Memo *mm = mv->items[i];
    if (mm->blk == L->cur_blk && keq(mm->vtx, cx->vtx) && keq(mm->edge, cx->edge) && keq(mm->idx, idx))
      return mm->var >= 0 ? kvar(L, F->k, mm->var, NULL) : mm->expr;
  }
  KExpr *e = compute(F, x, cx, idx);
  /* a float value is float where it is made (as in memory): an operand read in float64 (an f64
   * value of this kernel) widens the arithmetic, not the value */
  if (!x->f64 && x->elem == ELEM_F32 && e->type == KT_F64) e = kun(L, KU_TO_F32, e);
  Memo *mm = arena_alloc(L->a, sizeof(Memo));
  *mm = (Memo){x, cx->vtx, cx->edge, idx, L->cur_blk, -1, e};
  if (!trivial(e) && (x->nuses > 1 || tree_size(e, 0) > 24)) {
    mm->var = add_local(L, F->k, value_cname(L, x, "r", "_"), e->type, 0, false);
    ks_let(L, L->cur_blk, mm->var, NULL, e);
  }
  if (!mv->len) vec_push(L->a, &F->memo_touched, (void *)mv);
  vec_push(L->a, mv, mm);
  return mm->var >= 0 ? kvar(L, F->k, mm->var, NULL) : e;
}

/* x is computed where it is read in this kernel (inline, a root of this group, or a stash the
 * forward recomputes), not loaded or read from shared memory. */
bool computed_here(Fused *F, const Value *x) {
  if (x->op == OP_CONST || x->sched == SCHED_ANCHOR || x->dom == DOM_PARAM) return false;
  bool recompute = recomputed_stash(F, x) || recomputed_invariant(F, x);
  return recompute || !(x->sched == SCHED_LEAF || x->sched == SCHED_LIBRARY || (grouped(x) && x->group != F->gid));
}

/* A forward value in memory only for the backward: written only when the forward trains. */
bool stash_only(const Fused *F, const Value *v) { return !v->bwd && F->needs_buf[v->id] && !F->fwd_needed[v->id]; }

KExpr *ktraining(Lower *L) { return ke_new(L, KE_TRAINING, KT_I64); }

/* A store, under `if (training)` when it is a stash for the backward. */
void store(Fused *F, PtrVec *blk, const Value *v, KExpr *row, KExpr *idx, KExpr *val) {
  Lower *L = F->L;
  if (stash_only(F, v)) blk = ks_if(L, blk, ktraining(L));
  ks_store(L, F->k, blk, L->buf_of[v->id], row, idx, val);
  if (F->buf64[v->id]) ks_store(L, F->k, ks_if(L, blk, ktraining(L)), F->buf64[v->id], row, idx, val);
}

/* A kept root v (F->kept) at element idx of the lanes blk: bound to a local, into the group's
 * array that the kernel's later roots read (fin_array; the caller puts the barrier after the
 * lanes), and into its buffer when training (store: a stash for the backward). Before kept roots,
 * GCN's training library wrote its first layer's pre-ReLU output (V x 64 floats) in inference too
 * and read it back for the ReLU. The array holds val as memory would (a float). */
void store_kept(Fused *F, PtrVec *blk, const Value *v, KExpr *row, KExpr *idx, KExpr *val) {
  Lower *L = F->L;
  if (val->type != KT_F32) val = kun(L, KU_TO_F32, val);
  int var = add_local(L, F->k, value_cname(L, v, "r", "_"), KT_F32, 0, false);
  ks_let(L, blk, var, NULL, val);
  fin_array(F, blk, v, "_root", KT_F32, width_of(v), idx, kvar(L, F->k, var, NULL), NULL, &F->sh_root[v->id], &F->spill_root[v->id]);
  store(F, blk, v, row, idx, kvar(L, F->k, var, NULL));
}

/* ---------------------------------------------------------------- levels (walk numbers: staging and lower_walk.c read them) */

/* A softmax statistic (checkpoint's gather.max / gather.sum of an edge_softmax's scores) made
 * by this kernel with its softmax: stored from the online softmax's final max and sum, with no
 * walk of its own. */
bool is_stat(const Fused *F, const Value *x) {
  const Value *s = x->stat_of;
  return s && x->sched == SCHED_ANCHOR && x->group == F->gid && s->sched == SCHED_ANCHOR && s->group == F->gid &&
         s->op == OP_REDUCE_SCATTER && x->op == OP_GATHER && x->iattr == GATHER_BY_DST && shape_eq(&x->shape, &s->shape);
}

/* The walk after which x can be computed in group g: 0 for what is in memory; a reduction of g
 * is computed in walk 1 + (its operands' level) and available after it. */
int level(Fused *F, const Value *x) {
  if (F->lev[x->id] >= 0) return F->lev[x->id];
  int l = 0;
  if (!(x->sched == SCHED_LEAF || x->sched == SCHED_LIBRARY || (grouped(x) && x->group != F->gid))) {
    for (int i = 0; i < x->nargs; i++) {
      int a = level(F, x->args[i]);
      if (a > l) l = a;
    }
    if (x->sched == SCHED_ANCHOR) {
      l += 1;
      if (F->online[x->id]) l = level(F, F->online[x->id]); /* in its softmax's walk */
      if (is_stat(F, x)) l = level(F, x->stat_of);           /* its softmax's registers */
      F->walk[x->id] = l;
    }
  }
  F->lev[x->id] = l;
  return l;
}

/* ---------------------------------------------------------------- kernels */

Kernel *fused_kernel(Fused *F, const char *what, Mapping map, Domain rows, int G, bool bwd, const char *name) {
  Lower *L = F->L;
  Kernel *k = arena_alloc(L->a, sizeof(Kernel));
  k->id = L->p->kernels.len;
  k->name = arena_printf(L->a, "k%d_%s_%s", k->id, name, mapping_name(map));
  k->what = what;
  k->lines = "";
  k->map = map;
  k->rows = rows;
  k->group = G;
  k->dir = GATHER_BY_DST;
  vec_push(L->a, &L->p->kernels, k);
  KStep *s = add_step(L, STEP_KERNEL, what, bwd);
  s->kernel = k;
  F->k = k;
  F->step = L->p->nsteps - 1;
  for (int i = 0; i < F->memo_touched.len; i++) ((PtrVec *)F->memo_touched.items[i])->len = 0;
  F->memo_touched.len = 0;
  memset(F->seen, 0, (size_t)F->m->vals.len + 1);
  memset(F->stored, 0, (size_t)F->m->vals.len + 1);
  for (int i = 0; i < F->m->vals.len; i++) F->sh_root[i] = -1, F->spill_root[i] = NULL;
  return k;
}

/* "%9 %10 %11 (in memory: %11)": what the kernel computes, and which of it it writes; and the
 * source lines of those values (the kernel's lines). */
const char *kernel_what(Fused *F) {
  Lower *L = F->L;
  /* built in one growing buffer: a string rebuilt per value was quadratic in the kernel's size
   * (a kernel of 20,000 values took a minute and 5 GB of arena) */
  char *all = NULL, *mem = NULL;
  size_t all_len = 0, mem_len = 0;
  FILE *fa = open_memstream(&all, &all_len), *fm = open_memstream(&mem, &mem_len);
  if (!fa || !fm) {
    fprintf(stderr, "gnnc: out of memory\n");
    exit(1);
  }
  int nall = 0, nmem = 0;
  const Value **vals = arena_alloc(L->a, sizeof(Value *) * ((size_t)F->m->vals.len + 1));
  for (int i = 0; i < F->m->vals.len; i++) {
    const Value *v = F->m->vals.items[i];
    bool mine = F->seen[i] || (grouped(v) && v->group == F->gid);
    if (!mine || v->sched == SCHED_LEAF) continue;
    vals[nall] = v;
    fprintf(fa, "%s%%%d", nall++ ? " " : "", v->id);
    if (F->needs_buf[i] && grouped(v) && v->group == F->gid) fprintf(fm, "%s%%%d", nmem++ ? " " : "", v->id);
  }
  fclose(fa), fclose(fm);
  const char *w = arena_printf(L->a, "fused %s; in memory: %s", all, nmem ? mem : "none (registers and shared memory only)");
  free(all), free(mem);
  L->p->steps[F->step].what = w;
  F->k->lines = src_lines(L, vals, nall);
  return w;
}

/* The name's middle: the source's names of the group's values where it names them (the first
 * two), else the functions of its reductions (or of its first value). */
const char *group_name(Fused *F, Value **mem, int n) {
  Lower *L = F->L;
  char *s = "";
  int parts = 0;
  for (int i = 0; i < n && parts < 2; i++)
    if (mem[i]->label) s = arena_printf(L->a, "%s%s%s", s, parts++ ? "_" : "", value_cname(L, mem[i], "", ""));
  if (parts) return s;
  for (int i = 0; i < n && parts < 3; i++) {
    const Value *v = mem[i];
    if (v->sched != SCHED_ANCHOR && n > 1) continue;
    const char *f = v->op == OP_AGGREGATE ? arena_printf(L->a, "%s_%s", fn_info[v->fn].name, fn_info[v->msg].name) : fn_info[v->fn].name;
    s = arena_printf(L->a, "%s%s%s", s, parts++ ? "_" : "", f);
  }
  if (!parts) s = arena_printf(L->a, "%s_%s", op_info[mem[0]->op].name, fn_info[mem[0]->fn].name);
  return s;
}

/* ---------------------------------------------------------------- the module's buffers */

/* Whether a forward kernel of another group can recompute the scores of edge_softmax s at its
 * edges (from_stats): their inline computation reaches only leaves, GEMM results and roots of
 * other groups (the forward recomputes a stash it reads, so through those too), no reduction and
 * nothing of s's own walk; then those roots are read by the forward (not training-only). */
static bool score_from_memory(Fused *F, const Value *s) {
  int n = F->m->vals.len;
  bool *seen = calloc((size_t)n + 1, 1), ok = true;
  PtrVec stack = {0}, roots = {0};
  vec_push(F->L->a, &stack, s->args[0]);
  while (stack.len && ok) {
    const Value *x = stack.items[--stack.len];
    if (seen[x->id] || x->sched == SCHED_LEAF || x->sched == SCHED_LIBRARY || x->op == OP_CONST) continue;
    seen[x->id] = true;
    if (x->sched == SCHED_ANCHOR || (grouped(x) && x->group == s->group)) ok = false;
    else if (x->sched == SCHED_ROOT && (!fwd_recomputes(x) || F->fwd_needed[x->id])) vec_push(F->L->a, &roots, (void *)x);
    else
      for (int a = 0; a < x->nargs; a++) vec_push(F->L->a, &stack, x->args[a]);
  }
  for (int i = 0; i < roots.len && ok; i++) F->fwd_needed[((const Value *)roots.items[i])->id] = true;
  free(seen);
  return ok;
}

/* The widest root kept in a kernel's per-group array for the later roots that read it
 * (F->kept): 1 KB a group, beside the arrays of a walk's finished reductions. */
enum { KEEP_MAX_WIDTH = 256 };

/* What must be in memory: roots, GEMM results, sums over rows, edge-balanced reductions, the
 * outputs, and every reduction another kernel reads. */
static void mark_buffers(Fused *F) {
  Module *m = F->m;
  int n = m->vals.len;
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched == SCHED_ROOT || v->sched == SCHED_LIBRARY || v->op == OP_REDUCE_ROWS) F->needs_buf[i] = true;
    if (v->sched == SCHED_ANCHOR && m->groups[v->group].kind == FG_EDGE_REDUCE) F->needs_buf[i] = true;
  }
  bool *out = calloc((size_t)n + 1, 1), *bwd_needed = calloc((size_t)n + 1, 1);
  for (int i = 0; i < m->nouts; i++) F->needs_buf[m->outs[i].val->id] = out[m->outs[i].val->id] = true;
  F->fwd_needed[m->outs[0].val->id] = true;
  /* a stash the forward recomputes (fwd_recomputes) that a forward GEMM reads is in memory for
   * the forward all the same: the forward kernels of other groups load it (recomputed_stash),
   * known before the walk below so that it does not follow its operands for them */
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched != SCHED_LIBRARY || v->bwd) continue;
    for (int a = 0; a < v->nargs; a++)
      if (grouped(v->args[a]) && fwd_recomputes(v->args[a]) && v->args[a]->group != v->group) F->fwd_needed[v->args[a]->id] = true;
  }
  /* reductions read by another group: follow each grouped value's inline operands */
  PtrVec stack = {0};
  bool *vis = calloc((size_t)n + 1, 1);
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (!grouped(v)) continue;
    memset(vis, 0, (size_t)n + 1);
    stack.len = 0;
    for (int a = 0; a < v->nargs; a++) vec_push(m->arena, &stack, v->args[a]);
    while (stack.len) {
      Value *x = stack.items[--stack.len];
      if (vis[x->id]) continue;
      vis[x->id] = true;
      if (grouped(x) && fwd_recomputes(x) && !F->fwd_needed[x->id] && !v->bwd && v->sched != SCHED_LIBRARY && x->group != v->group) { /* recomputed here */
        for (int a = 0; a < x->nargs; a++) vec_push(m->arena, &stack, x->args[a]);
        continue;
      }
      if (grouped(x)) {
        if (x->group != v->group) {
          F->needs_buf[x->id] = true;
          if (!v->bwd) F->fwd_needed[x->id] = true;
          else bwd_needed[x->id] = true;
        } else if (!v->bwd && x->sched == SCHED_ROOT && v->sched == SCHED_ROOT &&
                   (m->groups[x->group].kind == FG_ROWS || x->dom == DOM_VERTEX)) {
          /* a later root of its rows kernel or epilogue reads it: from the kernel's array (kept),
           * a float of a few hundred at most, else back from memory */
          if (x->elem == ELEM_F32 && !x->f64 && !x->folded && width_of(x) <= KEEP_MAX_WIDTH) F->kept[x->id] = true;
          else F->fwd_needed[x->id] = true;
        }
        continue;
      }
      if (x->sched == SCHED_INLINE)
        for (int a = 0; a < x->nargs; a++) vec_push(m->arena, &stack, x->args[a]);
    }
  }
  free(vis);
  /* a kept root that the forward reads elsewhere too stays in memory */
  for (int i = 0; i < n; i++)
    if (F->kept[i] && (F->fwd_needed[i] || out[i])) F->kept[i] = false, F->fwd_needed[i] = true;
  /* an edge_softmax only forward kernels of other groups read (an edge-balanced aggregate of
   * attention): they recompute it at each edge from its per-vertex statistics, in float64, and
   * no E x H buffer of alpha is made (a float32 alpha near 1 keeps too little of 1 - alpha for
   * the attention backward; docs/passes/fuse.md) */
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (v->op != OP_REDUCE_SCATTER || v->sched != SCHED_ANCHOR || !F->needs_buf[i] || !F->fwd_needed[i] || bwd_needed[i] || out[i] ||
        m->groups[v->group].kind != FG_WALK || m->groups[v->group].dir != GATHER_BY_DST)
      continue;
    if (!score_from_memory(F, v)) continue;
    F->from_stats[i] = true;
    F->needs_buf[i] = F->fwd_needed[i] = false;
  }
  free(out);
  free(bwd_needed);
}

/* Starts the fused lowering of L's module into F: its per-value state, which values live in memory,
 * and their buffers (L->buf_of already holds the inputs and parameters). */
void fused_begin(Fused *F, Lower *L) {
  Module *m = L->m;
  int n = m->vals.len;
  *F = (Fused){.L = L, .m = m};
  F->needs_buf = calloc((size_t)n + 1, 1);
  F->buf64 = calloc((size_t)n + 1, sizeof(KBuf *));
  F->fwd_needed = calloc((size_t)n + 1, 1);
  F->from_stats = calloc((size_t)n + 1, 1);
  F->st_max = calloc((size_t)n + 1, sizeof(KBuf *));
  F->st_sum = calloc((size_t)n + 1, sizeof(KBuf *));
  F->seen = calloc((size_t)n + 1, 1);
  F->stored = calloc((size_t)n + 1, 1);
  F->kept = calloc((size_t)n + 1, 1);
  F->sh_root = calloc((size_t)n + 1, sizeof(int));
  F->spill_root = calloc((size_t)n + 1, sizeof(KBuf *));
  F->sh = calloc((size_t)n + 1, sizeof(int));
  F->spill = calloc((size_t)n + 1, sizeof(KBuf *));
  F->spill_sum = calloc((size_t)n + 1, sizeof(KBuf *));
  F->sh_sum = calloc((size_t)n + 1, sizeof(int));
  F->walk = calloc((size_t)n + 1, sizeof(int));
  F->lev = calloc((size_t)n + 1, sizeof(int));
  F->online = calloc((size_t)n + 1, sizeof(Value *));
  F->memo_v = calloc((size_t)n + 1, sizeof(PtrVec));
  F->online_src = calloc((size_t)n + 1, 1);
  F->sh_scale = calloc((size_t)n + 1, sizeof(int));
  F->sh_pv = calloc((size_t)n + 1, sizeof(int));
  F->hoist = calloc((size_t)n + 1, sizeof(int));
  F->stage = malloc(sizeof(int) * ((size_t)n + 1));
  F->train_need = calloc((size_t)n + 1, 1);
  for (int i = 0; i <= n; i++) F->stage[i] = F->sh_root[i] = -1;
  F->st_e = F->st_le = F->st_t = -1;
  mark_buffers(F);
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (v->folded) continue; /* a column range of its GEMM's buffer, placed with it */
    if (F->from_stats[i]) {
      F->st_max[i] = new_buf(L, BUF_TEMP, value_cname(L, v, "t", "_max"), DOM_VERTEX, ELEM_F32, shape_elems(&v->shape), NULL);
      F->st_sum[i] = new_buf(L, BUF_TEMP, value_cname(L, v, "t", "_sum"), DOM_VERTEX, ELEM_F64, shape_elems(&v->shape), NULL);
    }
    if (F->needs_buf[i] && !L->buf_of[i] && v->op != OP_CONST) {
      /* an f64 value in float64, unless the forward reads it as float: then (out_v, made by a walk)
       * a float64 stash beside it for the backward, written by store() with the float one; an
       * edge-balanced sum lends its accumulator instead (lower_edge_reduce). Never an edge buffer
       * (8 bytes an element of E rows): an f64 edge value stored for the backward (alpha' under
       * -fno-recompute) is stored as float */
      bool vertexish = v->f64 && v->elem == ELEM_F32 && v->dom != DOM_EDGE;
      bool wide = vertexish && (v->bwd || stash_only(F, v));
      bool shadow = vertexish && !wide && v->group >= 0 && m->groups[v->group].kind == FG_WALK;
      /* a GEMM with folded dots writes them beside its result, each row [h | d_1 | d_2 ...] */
      KBuf *b = new_buf(L, BUF_TEMP, value_cname(L, v, "t", ""), v->dom, wide ? ELEM_F64 : v->elem, shape_elems(&v->shape), v);
      b->train_only = stash_only(F, v);
      L->buf_of[i] = b;
      for (int j = i + 1; v->sched == SCHED_LIBRARY && j < n; j++) { /* its folded dots: columns after it */
        Value *d = m->vals.items[j];
        if (!d->folded || d->group != v->group) continue;
        L->buf_of[j] = b;
        L->col_of[j] = b->width;
        b->width += shape_elems(&d->shape);
        b->train_only &= stash_only(F, d); /* the forward may read a dot though only the backward reads h */
      }
      if (shadow) {
        F->buf64[i] = new_buf(L, BUF_TEMP, value_cname(L, v, "t", "_f64"), v->dom, ELEM_F64, shape_elems(&v->shape), v);
        F->buf64[i]->train_only = F->buf64[i]->stash64 = true;
      }
    }
  }
}

/* Before group gid's kernels: no reduction of the group is in shared memory yet. */
void fused_group(Fused *F, int gid) {
  F->gid = gid;
  for (int i = 0; i < F->m->vals.len; i++) F->sh[i] = F->sh_sum[i] = -1;
}

/* Frees F's state (the per-value arrays fused_begin allocated). */
void fused_end(Fused *F) {
  void *arrays[] = {F->needs_buf, F->buf64,  F->fwd_needed, F->from_stats, F->st_max,   F->st_sum,
                    F->seen,      F->stored, F->sh,         F->spill,      F->spill_sum, F->sh_sum,
                    F->walk,      F->lev,    F->online,     F->memo_v,     F->online_src, F->sh_scale,
                    F->sh_pv,     F->hoist,  F->stage,      F->train_need, F->kept,     F->sh_root,
                    F->spill_root};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
}
