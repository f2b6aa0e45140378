/* lower_walk.c -- the kernel of a walk group (FG_WALK): a group of G lanes per vertex walks its
 * in-edges (CSR) or out-edges (CSC) once per level of the group's reductions.
 *
 * Levels: a reduction whose operands need only what is in memory is computed in walk 1; one that
 * reads a reduction of walk w, in walk w + 1. An aggregate (or gather.sum) linear in an
 * edge_softmax of the walk before it accumulates online, in the softmax's own walk (lin_in,
 * online_softmax), and a softmax statistic the checkpoint pass asked for is stored from the
 * softmax's registers. lower_walk then builds, per walk, the accumulators, the edge loop (with
 * staged values, lower_stage.c), the finished reductions into shared memory (and memory), and
 * after the last walk the vertex roots of the epilogue. lower_fused.c's header comment has the
 * whole picture. */
#include "lower_walk.h"
#include "lower_stage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How x depends on the softmax s: 0 not at all, 1 linearly (homogeneous of degree one: the
 * sum of such terms is the sum of their unnormalised values divided by s's denominator), -1
 * otherwise. *paths counts the ways x reads s (one read: one running max per slot); *lvl is
 * the latest walk x needs apart from s. */
static int lin_in(Fused *F, const Value *x, const Value *s, int *paths, int *lvl) {
  if (*paths > 1 || ++F->lin_budget > 4096) return -1; /* read twice, or too large a message to check */
  if (x == s) {
    (*paths)++;
    return 1;
  }
  if (x->sched == SCHED_LEAF || x->sched == SCHED_LIBRARY || (grouped(x) && x->group != F->gid)) return 0;
  if (x->sched == SCHED_ANCHOR) {
    int l = level(F, x);
    if (l > *lvl) *lvl = l;
    return 0;
  }
  int l[GNN_MAX_ARGS] = {0}, n1 = 0, nneg = 0;
  for (int i = 0; i < x->nargs; i++) {
    l[i] = lin_in(F, x->args[i], s, paths, lvl);
    n1 += l[i] == 1;
    nneg += l[i] < 0;
  }
  if (nneg) return -1;
  if (!n1) return 0;
  FnKind f = x->fn;
  /* a sum over elements (heads, the last dim, a small linear map) mixes elements of s, each
   * normalised by its own sum: no one denominator can divide the aggregate at the end */
  if (f == FN_DOT || f == FN_LINEAR || f == FN_LINEAR_T || f == FN_SUM_LAST || f == FN_MEAN_HEADS || f == FN_SUM_HEADS) return -1;
  int alg = fn_info[f].algebra;
  if (f == FN_ADD || f == FN_SUB || f == FN_U_ADD_V || f == FN_U_SUB_V) return n1 == x->nargs ? 1 : -1;
  if (f == FN_DIV) return l[0] == 1 && l[1] == 0 ? 1 : -1;
  if (n1 == 1 && x->nargs == 1 && (alg & (A_LIN0 | A_JOINT))) return 1;
  if (n1 == 1 && x->nargs == 2 && ((l[0] == 1 && (alg & A_LIN0)) || (l[1] == 1 && (alg & A_LIN1)))) return 1;
  return -1;
}

/* An aggregate or gather.sum whose message is linear in a softmax of its own group computed in
 * the walk before it: it can run in that walk, online. */
static const Value *online_softmax(Fused *F, const Value *a, Value **mem, int nmem) {
  if (!((a->op == OP_AGGREGATE && a->fn == FN_SUM) || (a->op == OP_GATHER && a->fn == FN_SUM && a->iattr == GATHER_BY_DST)))
    return NULL;
  for (int i = 0; i < nmem; i++) {
    const Value *s = mem[i];
    if (s->op != OP_REDUCE_SCATTER || F->walk[s->id] + 1 != F->walk[a->id]) continue;
    int paths = 0, lvl = 0, lin;
    F->lin_budget = 0;
    if (a->op == OP_AGGREGATE) {
      int l0 = lin_in(F, a->args[0], s, &paths, &lvl);
      lin = l0 != 0 ? -1 : a->msg == FN_COPY_E || a->msg == FN_U_MUL_E ? lin_in(F, a->args[a->nargs - 1], s, &paths, &lvl) : -1;
    } else {
      lin = lin_in(F, a->args[0], s, &paths, &lvl);
    }
    if (lin == 1 && paths == 1 && lvl < F->walk[s->id]) return s;
  }
  return NULL;
}

/* Marks the reductions of group gid that x's computation reads (through inline values and the
 * group's own roots): they are staged in shared memory. */
static void mark_reads(Fused *F, const Value *x, bool *read, bool *seen, bool top) {
  if (x->sched == SCHED_LEAF || x->sched == SCHED_LIBRARY || (grouped(x) && x->group != F->gid)) return;
  if (!top && x->sched == SCHED_ANCHOR) {
    read[x->id] = true;
    return;
  }
  if (!top && seen[x->id]) return;
  seen[x->id] = true;
  for (int i = 0; i < x->nargs; i++) mark_reads(F, x->args[i], read, seen, false);
}

/* ---- FG_WALK */


/* The hoisted edge weights of the online aggregates accumulating with softmax a (GAT's
 * dropout(alpha)), evaluated at element kk of the edge of cx with p for the softmax, into their
 * shared arrays at `at` (kk per edge; t * W + kk over a chunk). */
static void store_hoisted(Fused *F, const Value *a, PtrVec *blk, const Ctx *cx, KExpr *kk, KExpr *at, KExpr *p, Value **mem,
                          int nmem) {
  for (int j = 0; j < nmem; j++) {
    const Value *b = mem[j];
    if (F->online[b->id] != a || F->hoist[b->id] < 0) continue;
    F->on_soft = a;
    F->on_p = p;
    KExpr *wv = eval(F, b->args[1], cx, kk);
    F->on_soft = NULL;
    F->on_p = NULL;
    int f32 = shared_f32_copy(F->k, F->hoist[b->id]);
    if (f32 < 0) {
      ks_shstore(F->L, blk, F->hoist[b->id], at, wv);
      continue;
    }
    /* float64 weights when training, their float copy when not (see chunk_partial_untrained);
     * dropout's `training ? ... : ...` an arm in each */
    bool sel = wv->kind == KE_SELECT && wv->a->kind == KE_TRAINING;
    ks_shstore(F->L, ks_if(F->L, blk, ktraining(F->L)), F->hoist[b->id], at, sel ? wv->b : wv);
    ks_shstore(F->L, ks_if(F->L, blk, kun(F->L, KU_NOT, ktraining(F->L))), f32, at, knarrow(F->L, F->k, sel ? wv->c : wv));
  }
}

/* Puts stmts into the chunk's body just before its loop over the chunk's edges (after the
 * staging and its barrier). */
static void before_edge_loop(Lower *L, const Walk *wk, const PtrVec *stmts) {
  PtrVec *cb = wk->chunk, nv = {0};
  int at = cb->len;
  for (int i = 0; i < cb->len && at == cb->len; i++)
    if (((KStmt *)cb->items[i])->kind == KS_FOR && ((KStmt *)cb->items[i])->var == wk->t) at = i;
  for (int i = 0; i < at; i++) vec_push(L->a, &nv, cb->items[i]);
  for (int i = 0; i < stmts->len; i++) vec_push(L->a, &nv, stmts->items[i]);
  for (int i = at; i < cb->len; i++) vec_push(L->a, &nv, cb->items[i]);
  *cb = nv;
}

/* A sum (or mean) of float messages in a chunked walk adds each chunk's edges in float and the
 * chunk's sum to its float64 accumulator: a float add per edge and column where a conversion and
 * a float64 add were (GCN's 64-column aggregation on the R-MAT graph of issue 28, 1 thread:
 * 68 -> 54 ms; docs/benchmarks.md). The rounding stays that of a float64 sum but for the chunk's
 * at most G terms (32: a relative error of at most 31 u of their magnitudes, u = 2^-24), where a
 * hub's 15,000 edges in float alone would be 500 times that. Not for float64 messages (the
 * attention backward's, which cancel: fuse.c's f64), nor the online softmax's aggregates whose
 * accumulators are rescaled as the maximum rises edge by edge; with the factors made a chunk at a
 * time (chunk_factors) the rescale comes before the chunk's edges, and the partial sum after them. */
static bool chunk_sum(const Fused *F, const Value *a, const Walk *wk, bool chunk_w) {
  return wk->chunk && wk->t >= 0 && (a->fn == FN_SUM || a->fn == FN_MEAN) && (!F->online[a->id] || chunk_w) &&
         (a->op == OP_AGGREGATE || a->op == OP_GATHER);
}
static bool chunk_partial(const Fused *F, const Value *a, const Walk *wk, bool chunk_w) {
  return chunk_sum(F, a, wk, chunk_w) && !a->f64;
}
/* A forward f64 sum (the attention's out_v: fuse.c keeps its float64 sum for t_v = <g_v, out_v>,
 * which cancels in the backward) needs its float64 messages only for that stash, which the forward
 * writes only when it trains. Its walk takes both: when training, the float64 message added to the
 * float64 accumulator as before; when not, the message in float (knarrow: W[u, k] * alpha' in
 * float32 where a conversion and a float64 product were) into the chunk's float partial, as
 * chunk_partial's sums. The training library's inference forward then does the inference
 * library's arithmetic (GAT on the 200k power-law graph, host, 1 thread, medians of 5 rounds: the
 * first attention walk 96.3 -> 85.8 ms; the -fno-autodiff library's 80.6). */
static bool f64_forward_sum(const Value *a) { return a->f64 && !a->bwd && (a->fn == FN_SUM || a->fn == FN_MEAN); }
static bool chunk_partial_untrained(const Fused *F, const Value *a, const Walk *wk, bool chunk_w) {
  return chunk_sum(F, a, wk, chunk_w) && f64_forward_sum(a);
}

/* A chunked online softmax's factors (see `chunked` in lower_walk), in blk, per element k of the
 * softmax (lane loops of W elements, their slot i): the chunk's max of the scores, the new running
 * max m, the rescale factor exp(max_old - m) (1 while the max stays, 0 from the first chunk's
 * -inf), then for each edge t of the chunk p = exp(score - m) into sh_p[t * W + k] and the hoisted
 * weights of the aggregates accumulating with it into theirs, and the sum rescaled plus the
 * chunk's p, in float64. The loops over the chunk's edges are outside the lane loops (uniform),
 * the lane loops inside them as in the walk's own loop: the host emitter vectorises them across
 * the elements (an exp per head at once). The scores are read at edge t as a walk's lane loop
 * reads them (staged ones from the chunk's array, the others computed there, twice). */
static void chunk_factors(Fused *F, const Value *a, const Walk *wk, int dir, PtrVec *blk, int mxv, int sumv, Value **mem, int nmem) {
  Lower *L = F->L;
  Kernel *k = F->k;
  int W = width_of(a), nk = (W + k->group - 1) / k->group, kv, iv;
  int save_e = F->st_e, save_t = F->st_t;
  int cm = add_local(L, k, "cmax", KT_F32, nk, false), m = add_local(L, k, "m", KT_F32, nk, false);
  int cs = add_local(L, k, "csum", KT_F64, nk, false), sc = add_local(L, k, "scale", KT_F32, 0, false);
  KExpr *row = krow(L);
  PtrVec *lanes = ks_lanes(L, k, blk, W, &kv, &iv);
  ks_let(L, lanes, cm, kvar(L, k, iv, NULL), kf(L, -INFINITY));
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) { /* the chunk's max known: the new running max and the factor */
      lanes = ks_lanes(L, k, blk, W, &kv, &iv);
      KExpr *slot = kvar(L, k, iv, NULL), *mx = kvar(L, k, mxv, slot), *c = kvar(L, k, cm, slot);
      ks_let(L, lanes, m, slot, ksel(L, kbin(L, KO_GT, c, mx), c, mx));
      KExpr *mm = kvar(L, k, m, slot);
      ks_let(L, lanes, sc, NULL, ksel(L, kbin(L, KO_EQ, mm, mx), kf(L, 1.0), kun(L, KU_EXP, kbin(L, KO_SUB, mx, mm))));
      ks_shstore(L, lanes, F->sh_scale[a->id], kvar(L, k, kv, NULL), kvar(L, k, sc, NULL));
      ks_let(L, lanes, cs, slot, kf(L, 0));
    }
    int t = add_local(L, k, "tc", KT_I64, 0, true), e = add_local(L, k, "ec", KT_I64, 0, true), u = add_local(L, k, "uc", KT_I64, 0, true);
    PtrVec *body = ks_for(L, k, blk, t, ki(L, 0), kvar(L, k, wk->cnt, NULL));
    ks_let(L, body, e, NULL, kshared(L, k, wk->she, kvar(L, k, t, NULL)));
    ks_let(L, body, u, NULL, kshared(L, k, wk->shu, kvar(L, k, t, NULL)));
    KExpr *far = kvar(L, k, u, NULL);
    Ctx cx = {.edge = kvar(L, k, e, NULL), .src = dir == GATHER_BY_DST ? far : row, .dst = dir == GATHER_BY_DST ? row : far,
              .src_near = dir == GATHER_BY_SRC, .dst_near = dir == GATHER_BY_DST};
    F->st_e = e; /* staged scores: at position t of the chunk */
    F->st_t = t;
    PtrVec *el = ks_lanes(L, k, body, W, &kv, &iv);
    L->cur_blk = el;
    KExpr *kk = kvar(L, k, kv, NULL), *slot = kvar(L, k, iv, NULL);
    KExpr *x = eval(F, a->args[0], &cx, kk);
    if (pass == 0) {
      KExpr *c = kvar(L, k, cm, slot);
      ks_let(L, el, cm, slot, ksel(L, kbin(L, KO_GT, x, c), x, c));
    } else {
      int pv = add_local(L, k, "p", KT_F32, 0, false);
      ks_let(L, el, pv, NULL, kun(L, KU_EXP, kbin(L, KO_SUB, x, kvar(L, k, m, slot))));
      KExpr *at = kbin(L, KO_ADD, kbin(L, KO_MUL, kvar(L, k, t, NULL), ki(L, W)), kk);
      if (F->sh_pv[a->id] >= 0) ks_shstore(L, el, F->sh_pv[a->id], at, kvar(L, k, pv, NULL));
      store_hoisted(F, a, el, &cx, kk, at, kvar(L, k, pv, NULL), mem, nmem);
      ks_let(L, el, cs, slot, kbin(L, KO_ADD, kvar(L, k, cs, slot), kun(L, KU_TO_F64, kvar(L, k, pv, NULL))));
    }
  }
  F->st_e = save_e;
  F->st_t = save_t;
  /* the sum and the max (the factor from sh_scale: this lane's own element) */
  lanes = ks_lanes(L, k, blk, W, &kv, &iv);
  L->cur_blk = lanes;
  KExpr *slot = kvar(L, k, iv, NULL), *s = kvar(L, k, sumv, slot);
  KExpr *f = kshared(L, k, F->sh_scale[a->id], kvar(L, k, kv, NULL));
  ks_let(L, lanes, sumv, slot, kbin(L, KO_ADD, kbin(L, KO_MUL, s, kun(L, KU_TO_F64, f)), kvar(L, k, cs, slot)));
  ks_let(L, lanes, mxv, slot, kvar(L, k, m, slot));
}

void lower_walk(Fused *F, const FuseGroup *g, Value **mem, int nmem) {
  Lower *L = F->L;
  int n = F->m->vals.len;
  for (int i = 0; i < n; i++) F->lev[i] = -1, F->walk[i] = 0, F->sh[i] = F->sh_sum[i] = -1, F->spill[i] = F->spill_sum[i] = NULL;
  int W = 0, maxw = 1;
  for (int i = 0; i < nmem; i++) F->online[mem[i]->id] = NULL;
  for (int i = 0; i < nmem; i++) level(F, mem[i]);
  bool any_online = false;
  /* The online accumulation passes the softmax's factors (and the hoisted edge weights) between
   * lanes per edge in shared arrays, which have no way out to memory: it is taken only while they
   * stay within half of a block of one group's 48 KB (GNN_SHARED_MAX; softmaxes over at most ~2,000
   * elements an edge). A wider softmax's aggregate gets a walk of its own after the softmax's. */
  int64_t online_bytes = 0;
  for (int i = 0; i < nmem; i++) {
    const Value *a = mem[i], *sm;
    if (a->sched != SCHED_ANCHOR || !(sm = online_softmax(F, a, mem, nmem))) continue;
    int64_t cost = 8 * (int64_t)width_of(sm) + (a->op == OP_AGGREGATE ? 8 * (int64_t)width_of(a->args[a->nargs - 1]) : 0);
    if (online_bytes + cost > GNN_SHARED_MAX / 2) continue;
    online_bytes += cost;
    F->online[a->id] = sm;
    any_online = true;
  }
  if (any_online) /* the levels again, with the online aggregates in their softmax's walk */
    for (int i = 0; i < n; i++) F->lev[i] = -1, F->walk[i] = 0;
  for (int i = 0; i < nmem; i++) F->online_src[mem[i]->id] = false;
  for (int i = 0; i < nmem; i++)
    if (F->online[mem[i]->id]) F->online_src[F->online[mem[i]->id]->id] = true;
  for (int i = 0; i < nmem; i++) {
    int l = level(F, mem[i]);
    if (mem[i]->sched == SCHED_ANCHOR && l > W) W = l;
    if (width_of(mem[i]) > maxw) maxw = width_of(mem[i]);
  }
  /* where each edge value in memory is stored: the first walk after its operands */
  int *store_walk = calloc((size_t)n + 1, sizeof(int));
  for (int i = 0; i < nmem; i++) {
    const Value *v = mem[i];
    if (!F->needs_buf[v->id] || v->dom != DOM_EDGE) continue;
    int w = v->sched == SCHED_ANCHOR ? F->walk[v->id] + 1 : level(F, v) + 1;
    store_walk[v->id] = w;
    if (w > W) W = w;
  }
  bool *read = calloc((size_t)n + 1, 1), *seen = calloc((size_t)n + 1, 1);
  for (int i = 0; i < nmem; i++) mark_reads(F, mem[i], read, seen, true);
  free(seen);
  for (int i = 0; i < nmem; i++) /* a root edge value stored in a later walk reads its reductions there */
    if (mem[i]->sched == SCHED_ANCHOR && mem[i]->op == OP_REDUCE_SCATTER && F->needs_buf[mem[i]->id]) read[mem[i]->id] = true;

  bool pieces = pieces_ok(F, g, mem, nmem); /* hub rows in pieces (lower_pieces.c) */
  KBuf *tickets = pieces ? pieces_tickets(F, g, mem, nmem) : NULL;
  Kernel *k = fused_kernel(F, "", MAP_VERTEX, DOM_VERTEX, group_for(maxw), g->bwd, group_name(F, mem, nmem));
  k->dir = g->dir;
  k->pieces = pieces;
  int G = k->group;
  int lo, hi;
  if (pieces) piece_bounds(L, k, &lo, &hi);
  else walk_bounds(L, k, &lo, &hi);
  int body_from = k->body.len, rest_from = -1, last = -1;
  KExpr *deg = kbin(L, KO_SUB, kvar(L, k, hi, NULL), kvar(L, k, lo, NULL));
  WalkAcc *acc = calloc((size_t)n + 1, sizeof(WalkAcc));
  int *lanes_of = calloc((size_t)nmem, sizeof(int));
  Value **staged = calloc((size_t)n + 1, sizeof(Value *));
  /* an online aggregate whose edge weight has the softmax's shape (GAT: dropout(alpha), one per
   * head): the softmax's lanes compute the weight once per edge and head, not once per element */
  bool *hoists = calloc((size_t)n + 1, 1);
  for (int i = 0; i < nmem; i++) {
    const Value *a = mem[i], *sm = F->online[a->id];
    hoists[a->id] = sm && a->op == OP_AGGREGATE && a->msg == FN_U_MUL_E && shape_eq(&a->args[1]->shape, &sm->shape);
  }
  /* Chunked online softmax. Per edge, the softmax's W lanes raise the running max and pass the
   * factors to the aggregate's lanes through shared memory, a barrier before and after: the walk
   * takes one edge at a time, and each edge's row gather waits behind its factors. Instead, with
   * the chunk's scores at hand (staged), the softmax's lanes make the factors of the whole chunk
   * first -- the chunk's max, one rescale factor, and p (and the hoisted weights) for each of its
   * edges, into arrays over the chunk -- the aggregate's accumulators are rescaled once, and the
   * loop over the chunk's edges has no barrier: the gathers of several edges are in flight at
   * once. The same sums in another order of rounding (p relative to the max so far at the chunk,
   * not at the edge). Taken while those arrays stay small (G x W floats each, 4 KB a group in all):
   * a wider softmax keeps the per-edge factors. */
  bool chunked = false;
  if (any_online) {
    int64_t bytes = 0;
    for (int i = 0; i < nmem; i++) {
      if (!F->online_src[mem[i]->id]) continue;
      int64_t per = 0; /* bytes per element and edge: p (float) once, each hoisted weight (float or float64) */
      bool pv = false;
      for (int j = 0; j < nmem; j++)
        if (F->online[mem[j]->id] == mem[i]) {
          if (hoists[mem[j]->id]) per += mem[j]->args[1]->f64 ? 8 : 4;
          else pv = true;
        }
      bytes += (int64_t)G * width_of(mem[i]) * (per + (pv ? 4 : 0));
    }
    chunked = bytes <= GNN_SHARED_MAX / 12;
  }
  for (int i = 0; i < nmem; i++) {
    const Value *a = mem[i];
    F->hoist[a->id] = -1;
    if (!hoists[a->id]) continue;
    int len = width_of(a->args[1]) * (chunked ? G : 1);
    F->hoist[a->id] = add_shared(L, k, arena_printf(L->a, "sh_w%d", a->id), a->args[1]->f64 ? KT_F64 : KT_F32, len);
    /* the float64 weights of an f64 sum that adds float messages when not training (its walk is
     * chunked: chunk_partial_untrained) have a float copy for that, in their storage on a GPU: a
     * float read per element where a conversion was, no more shared memory (occupancy) */
    if (chunked && a->args[1]->f64 && f64_forward_sum(a))
      k->shared[add_shared(L, k, arena_printf(L->a, "sh_w%d_f32", a->id), KT_F32, len)].storage = F->hoist[a->id];
  }
  free(hoists);
  /* a softmax some member evaluates at an edge after its walk needs its max there too (an online
   * aggregate only divides by its sum) */
  bool *at_edge = calloc((size_t)n + 1, 1), *one = calloc((size_t)n + 1, 1), *seen1 = calloc((size_t)n + 1, 1);
  for (int i = 0; i < nmem; i++) {
    memset(one, 0, (size_t)n + 1);
    memset(seen1, 0, (size_t)n + 1);
    mark_reads(F, mem[i], one, seen1, true);
    if (F->online[mem[i]->id]) one[F->online[mem[i]->id]->id] = false;
    for (int j = 0; j < n; j++) at_edge[j] |= one[j];
    if (mem[i]->sched == SCHED_ANCHOR && mem[i]->op == OP_REDUCE_SCATTER && F->needs_buf[mem[i]->id]) at_edge[mem[i]->id] = true;
  }
  free(one);
  free(seen1);
  for (int i = 0; i < nmem; i++)
    if (F->online_src[mem[i]->id]) {
      F->sh_scale[mem[i]->id] = add_shared(L, k, arena_printf(L->a, "sh_scale%d", mem[i]->id), KT_F32, width_of(mem[i]));
      F->sh_pv[mem[i]->id] = -1; /* exp(x - max), for the online aggregates that read the softmax itself */
      for (int j = 0; j < nmem; j++)
        if (F->online[mem[j]->id] == mem[i] && F->hoist[mem[j]->id] < 0 && F->sh_pv[mem[i]->id] < 0)
          F->sh_pv[mem[i]->id] = add_shared(L, k, arena_printf(L->a, "sh_p%d", mem[i]->id), KT_F32, width_of(mem[i]) * (chunked ? G : 1));
      read[mem[i]->id] = true; /* its sums divide the aggregate at the end */
    }
  for (int w = 1; w <= W; w++) {
    /* 1. the accumulators of the reductions of walk w */
    for (int i = 0; i < nmem; i++) {
      Value *a = mem[i];
      if (a->sched != SCHED_ANCHOR || F->walk[a->id] != w || is_stat(F, a)) continue;
      int wd = width_of(a), nk = (wd + G - 1) / G, kv, iv;
      bool arg = a->fn == FN_ARGMAX || a->fn == FN_ARGMIN, soft = a->op == OP_REDUCE_SCATTER;
      bool sum = a->fn == FN_SUM || a->fn == FN_MEAN;
      acc[a->id].acc = add_local(L, k, soft ? "mx" : arg ? "best" : "acc", sum ? KT_F64 : KT_F32, nk, false);
      acc[a->id].aux = arg ? add_local(L, k, "arg", KT_I64, nk, false) : soft ? add_local(L, k, "sum", KT_F64, nk, false) : -1;
      PtrVec *init = ks_lanes(L, k, &k->body, wd, &kv, &iv);
      KExpr *slot = kvar(L, k, iv, NULL);
      ks_let(L, init, acc[a->id].acc, slot, soft ? kf(L, -INFINITY) : arg ? kf(L, 0) : reduce_init(L, a->fn));
      if (arg) ks_let(L, init, acc[a->id].aux, slot, ki(L, -1));
      if (soft) ks_let(L, init, acc[a->id].aux, slot, kf(L, 0));
    }
    /* 2. the walk (only when training, if all it does is store stashes for the backward) */
    bool stash_walk = true;
    for (int i = 0; i < nmem; i++) {
      const Value *a = mem[i];
      if ((a->sched == SCHED_ANCHOR && F->walk[a->id] == w) || (store_walk[a->id] == w && !stash_only(F, a))) stash_walk = false;
    }
    PtrVec *wblk = &k->body;
    if (stash_walk) wblk = ks_uniform_if(L, &k->body, ktraining(L));
    Walk wk = walk_edges(L, k, wblk, lo, hi, true);
    KExpr *e = kvar(L, k, wk.e, NULL), *far = kvar(L, k, wk.u, NULL), *row = krow(L);
    Ctx ecx = {.edge = e, .src = g->dir == GATHER_BY_DST ? far : row, .dst = g->dir == GATHER_BY_DST ? row : far,
               .src_near = g->dir == GATHER_BY_SRC, .dst_near = g->dir == GATHER_BY_DST};
    for (int i = 0; i < nmem; i++) {
      const Value *a = mem[i];
      bool upd = a->sched == SCHED_ANCHOR && F->walk[a->id] == w && !is_stat(F, a);
      lanes_of[i] = upd || store_walk[a->id] == w ? width_of(a) : 0;
    }
    int nst = pick_stages(F, mem, nmem, lanes_of, w, DOM_EDGE, staged, G);
    stage_walk(F, &wk, g->dir, staged, nst);
    bool chunk_w = false; /* this walk's online softmaxes make their factors per chunk */
    for (int i = 0; i < nmem; i++)
      chunk_w |= chunked && wk.chunk && F->online_src[mem[i]->id] && F->walk[mem[i]->id] == w;
    PtrVec pre_stats = {0}, pre_rescale = {0}; /* before the chunk's loop over its edges */
    PtrVec part_zero = {0};                     /* the chunk's float partial sums set to 0, before it too */
    for (int i = 0; i < nmem; i++) {
      Value *a = mem[i];
      bool upd = a->sched == SCHED_ANCHOR && F->walk[a->id] == w && !is_stat(F, a);
      bool st = store_walk[a->id] == w;
      if (!upd && !st) continue;
      if (upd && chunk_w && a->op == OP_REDUCE_SCATTER && F->online_src[a->id]) {
        chunk_factors(F, a, &wk, g->dir, &pre_stats, acc[a->id].acc, acc[a->id].aux, mem, nmem);
        continue;
      }
      int kv, iv;
      PtrVec *lanes = ks_lanes(L, k, wk.body, width_of(a), &kv, &iv);
      L->cur_blk = lanes;
      KExpr *kk = kvar(L, k, kv, NULL), *slot = kvar(L, k, iv, NULL);
      if (st) { /* an edge value another kernel reads */
        KExpr *val = a->sched == SCHED_ANCHOR ? eval(F, a, &ecx, kk) : (F->seen[a->id] = true, compute(F, a, &ecx, kk));
        if (stash_walk) ks_store(L, k, lanes, L->buf_of[a->id], e, kk, val);
        else store(F, lanes, a, e, kk, val);
        continue;
      }
      KExpr *x;
      F->on_soft = F->online[a->id];
      F->on_p = NULL;
      if (F->on_soft) {
        F->on_acc = kvar(L, k, acc[a->id].acc, slot);
        F->on_sh_scale = F->sh_scale[F->on_soft->id];
        F->on_sh_p = F->sh_pv[F->on_soft->id];
        F->on_chunk = chunk_w;
        F->on_slot = chunk_w ? kvar(L, k, wk.t, NULL) : NULL;
        F->on_width = width_of(F->on_soft);
      }
      if (a->op == OP_AGGREGATE) {
        FReader fr = {F, a, {vertex_ctx(ecx.src, ecx.src_near), ecx}, F->on_soft ? F->hoist[a->id] : -1};
        Reader r = {fused_read, a->args, {NULL, NULL, NULL}, &fr};
        x = fn_elem(L, k, lanes, a, a->msg, &r, kk, NULL);
      } else {
        x = eval(F, a->args[0], &ecx, kk);
      }
      if (F->on_soft) acc[a->id].on_idx = F->on_idx, acc[a->id].on_kv = kv;
      if (F->on_soft && chunk_w) { /* the accumulator rescaled once a chunk, after the factors */
        int kv2, iv2;
        PtrVec *rs = ks_lanes(L, k, &pre_rescale, width_of(a), &kv2, &iv2);
        KExpr *slot2 = kvar(L, k, iv2, NULL), *f = kshared(L, k, F->sh_scale[F->on_soft->id], subst_var(L, k, F->on_idx, kv, kv2));
        ks_let(L, rs, acc[a->id].acc, slot2, kbin(L, KO_MUL, kvar(L, k, acc[a->id].acc, slot2), kun(L, KU_TO_F64, f)));
      }
      F->on_soft = NULL;
      F->on_chunk = false;
      bool untrained_part = chunk_partial_untrained(F, a, &wk, chunk_w);
      PtrVec *xblk = untrained_part ? ks_if(L, lanes, ktraining(L)) : lanes; /* the float64 message */
      KExpr *x64 = x;
      int xv = add_local(L, k, "x", a->f64 ? KT_F64 : KT_F32, 0, false);
      ks_let(L, xblk, xv, NULL, x);
      x = kvar(L, k, xv, NULL);
      KExpr *av = kvar(L, k, acc[a->id].acc, slot);
      if (a->op == OP_REDUCE_SCATTER) { /* online: running max, the sum rescaled when it rises */
        int nm = add_local(L, k, "m", KT_F32, 0, false), sc = add_local(L, k, "scale", KT_F32, 0, false);
        int pv = add_local(L, k, "p", KT_F32, 0, false);
        int dv = add_local(L, k, "d", KT_F32, 0, false), ev = add_local(L, k, "ed", KT_F32, 0, false);
        ks_let(L, lanes, nm, NULL, ksel(L, kbin(L, KO_GT, x, av), x, av));
        KExpr *s = kvar(L, k, acc[a->id].aux, slot);
        /* One exp per edge: with d = x - max_old, the factor exp(max_old - max_new) and
         * p = exp(x - max_new) are exp(-|d|) and 1 when x raises the max, 1 and exp(-|d|) when
         * it does not -- the same roundings as exp(max_old - x) and exp(x - max_old). (A select
         * of two exps evaluates both where lanes are vector lanes: the host's SIMD, a GPU warp
         * whose lanes disagree.) The first edge: d = +inf, factor 0, p = 1. */
        ks_let(L, lanes, dv, NULL, kbin(L, KO_SUB, x, av));
        KExpr *d = kvar(L, k, dv, NULL);
        ks_let(L, lanes, ev, NULL, kun(L, KU_EXP, kun(L, KU_NEG, kun(L, KU_ABS, d))));
        KExpr *ed = kvar(L, k, ev, NULL), *raised = kbin(L, KO_GT, d, kf(L, 0));
        ks_let(L, lanes, sc, NULL, ksel(L, raised, ed, kf(L, 1.0)));
        ks_let(L, lanes, pv, NULL, ksel(L, raised, kf(L, 1.0), ed));
        KExpr *m = kvar(L, k, nm, NULL);
        ks_let(L, lanes, acc[a->id].aux, slot,
               kbin(L, KO_ADD, kbin(L, KO_MUL, s, kun(L, KU_TO_F64, kvar(L, k, sc, NULL))), kun(L, KU_TO_F64, kvar(L, k, pv, NULL))));
        ks_let(L, lanes, acc[a->id].acc, slot, m);
        if (F->online_src[a->id]) { /* for the aggregates accumulating with it, after a barrier */
          ks_shstore(L, lanes, F->sh_scale[a->id], kk, kvar(L, k, sc, NULL));
          if (F->sh_pv[a->id] >= 0) {
            ks_shstore(L, lanes, F->sh_pv[a->id], kk, kvar(L, k, pv, NULL));
          }
          store_hoisted(F, a, lanes, &ecx, kk, kk, kvar(L, k, pv, NULL), mem, nmem);
          ks_new(L, wk.body, KS_BARRIER);
        }
      } else if (a->fn == FN_ARGMAX || a->fn == FN_ARGMIN) {
        KExpr *arg = kvar(L, k, acc[a->id].aux, slot);
        KExpr *better = kbin(L, KO_OR, kbin(L, KO_LT, arg, ki(L, 0)), kbin(L, a->fn == FN_ARGMAX ? KO_GT : KO_LT, x, av));
        PtrVec *take = ks_if(L, lanes, better);
        ks_let(L, take, acc[a->id].acc, slot, x);
        ks_let(L, take, acc[a->id].aux, slot, e);
      } else if (chunk_partial(F, a, &wk, chunk_w) || untrained_part) {
        /* a float sum over the chunk's edges (at most G), added to the float64 accumulator after
         * the chunk: float adds per edge, the float64 sum across chunks (see chunk_partial); an
         * f64 sum's only when not training (chunk_partial_untrained) */
        int part = add_local(L, k, "part", KT_F32, (width_of(a) + G - 1) / G, false), kz, iz;
        PtrVec *zero = ks_lanes(L, k, &part_zero, width_of(a), &kz, &iz);
        ks_let(L, zero, part, kvar(L, k, iz, NULL), kf(L, 0));
        PtrVec *pblk = lanes, *fblk = wk.chunk;
        if (untrained_part) {
          ks_let(L, xblk, acc[a->id].acc, slot, kbin(L, KO_ADD, av, x));
          pblk = ks_if(L, lanes, kun(L, KU_NOT, ktraining(L)));
          fblk = ks_uniform_if(L, wk.chunk, kun(L, KU_NOT, ktraining(L)));
          x = knarrow(L, k, x64);
        }
        ks_let(L, pblk, part, slot, kbin(L, KO_ADD, kvar(L, k, part, slot), x));
        PtrVec *fold = ks_lanes(L, k, fblk, width_of(a), &kz, &iz);
        KExpr *fslot = kvar(L, k, iz, NULL);
        ks_let(L, fold, acc[a->id].acc, fslot, kbin(L, KO_ADD, kvar(L, k, acc[a->id].acc, fslot), kun(L, KU_TO_F64, kvar(L, k, part, fslot))));
      } else {
        bool sum = a->fn == FN_SUM || a->fn == FN_MEAN;
        ks_let(L, lanes, acc[a->id].acc, slot, reduce_step(L, a->fn, av, sum ? kun(L, KU_TO_F64, x) : x));
      }
    }
    unstage(F, staged, nst);
    bool onl_walk = false;
    for (int i = 0; i < nmem; i++) onl_walk |= F->online_src[mem[i]->id] && F->walk[mem[i]->id] == w;
    if (onl_walk && !chunk_w) ks_new(L, wk.body, KS_BARRIER); /* the next edge's factors overwrite this one's */
    if (chunk_w) { /* the factors, a barrier, the rescales, then the loop over the chunk's edges (its
                      barrier at the end keeps the next chunk's factors from overwriting these) */
      PtrVec pre = {0};
      for (int i = 0; i < pre_stats.len; i++) vec_push(L->a, &pre, pre_stats.items[i]);
      ks_new(L, &pre, KS_BARRIER);
      for (int i = 0; i < pre_rescale.len; i++) vec_push(L->a, &pre, pre_rescale.items[i]);
      before_edge_loop(L, &wk, &pre);
    }
    if (part_zero.len) before_edge_loop(L, &wk, &part_zero); /* the partial sums' zeroing */
    if (pieces && w == 1) {
      last = pieces_merge(F, g, mem, nmem, acc, tickets, lo, hi);
      rest_from = k->body.len;
    }
    /* 3. the finished reductions: shared memory for this kernel, memory for the others; the
     * softmaxes first (an online aggregate divides by their sums, after a barrier) */
    bool any = false;
    for (int pass = 0; pass < 2; pass++) {
    if (pass == 1 && onl_walk && any) ks_new(L, &k->body, KS_BARRIER), any = false;
    for (int i = 0; i < nmem; i++) {
      Value *a = mem[i];
      if (a->sched != SCHED_ANCHOR || F->walk[a->id] != w || (a->op == OP_REDUCE_SCATTER) != (pass == 0) || is_stat(F, a)) continue;
      int wd = width_of(a), kv, iv;
      bool soft = a->op == OP_REDUCE_SCATTER, arg = a->fn == FN_ARGMAX || a->fn == FN_ARGMIN;
      bool to_mem = F->needs_buf[a->id] && !soft, stats = false;
      for (int j = 0; j < nmem && soft; j++) stats |= is_stat(F, mem[j]) && mem[j]->stat_of == a && F->needs_buf[mem[j]->id];
      if (!read[a->id] && !to_mem && !stats && !F->from_stats[a->id]) continue;
      PtrVec *fin = ks_lanes(L, k, &k->body, wd, &kv, &iv);
      KExpr *kk = kvar(L, k, kv, NULL), *slot = kvar(L, k, iv, NULL);
      KExpr *res;
      for (int j = 0; j < nmem && stats; j++) { /* its statistics, for the backward (a vertex without edges: 0) */
        Value *st = mem[j];
        if (!is_stat(F, st) || st->stat_of != a || !F->needs_buf[st->id]) continue;
        KExpr *val = st->stat == STAT_MAX ? kvar(L, k, acc[a->id].acc, slot) : kun(L, KU_TO_F32, kvar(L, k, acc[a->id].aux, slot));
        store(F, fin, st, krow(L), kk, ksel(L, kbin(L, KO_GT, deg, ki(L, 0)), val, kf(L, 0)));
        F->seen[st->id] = true;
      }
      if (F->from_stats[a->id]) { /* for the kernels that read it at their edges (a vertex without edges: 0) */
        ks_store(L, k, fin, F->st_max[a->id], krow(L), kk, ksel(L, kbin(L, KO_GT, deg, ki(L, 0)), kvar(L, k, acc[a->id].acc, slot), kf(L, 0)));
        ks_store(L, k, fin, F->st_sum[a->id], krow(L), kk, ksel(L, kbin(L, KO_GT, deg, ki(L, 0)), kvar(L, k, acc[a->id].aux, slot), kf(L, 0)));
      }
      if (soft && !read[a->id]) continue;
      if (soft) {
        if (at_edge[a->id])
          fin_array(F, fin, a, "_max", KT_F32, wd, kk, kvar(L, k, acc[a->id].acc, slot), NULL, &F->sh[a->id], &F->spill[a->id]);
        fin_array(F, fin, a, "_sum", KT_F64, wd, kk, kvar(L, k, acc[a->id].aux, slot), NULL, &F->sh_sum[a->id], &F->spill_sum[a->id]);
        any = true;
        continue;
      }
      if (arg) {
        res = kvar(L, k, acc[a->id].aux, slot);
      } else {
        res = kvar(L, k, acc[a->id].acc, slot);
        if (a->fn == FN_MEAN) res = kbin(L, KO_DIV, res, kun(L, KU_TO_F64, deg));
        if (F->online[a->id])
          res = kbin(L, KO_DIV, res, fin_read(F, F->sh_sum[F->online[a->id]->id], F->spill_sum[F->online[a->id]->id],
                                              subst_var(L, k, acc[a->id].on_idx, acc[a->id].on_kv, kv)));
        res = ksel(L, kbin(L, KO_GT, deg, ki(L, 0)), res, kf(L, 0)); /* a vertex without edges gets 0 */
      }
      if (to_mem) store(F, fin, a, krow(L), kk, res);
      if (read[a->id]) {
        KBuf *own = to_mem && !stash_only(F, a) && !L->col_of[a->id] ? L->buf_of[a->id] : NULL;
        fin_array(F, fin, a, "", arg ? KT_I64 : KT_F32, wd, kk, arg ? res : kun(L, KU_TO_F32, res), own, &F->sh[a->id], &F->spill[a->id]);
        any = true;
      }
    }
    }
    if (any) ks_new(L, &k->body, KS_BARRIER);
  }
  /* 4. the vertex values in memory, from the finished reductions. A backward's: the row values
   * their lane loops and reductions read (a row sum inside another's loop: layer_norm's backward
   * after each hop) staged once per row before the first root that reads them (stage_row_pick),
   * as a kernel per vertex does, not computed inline in every lane and trip */
  Value **eroots = malloc(sizeof(Value *) * ((size_t)nmem + 1)), **est = NULL;
  int neroots = 0, nest = 0;
  for (int i = 0; i < nmem; i++)
    if (mem[i]->sched == SCHED_ROOT && mem[i]->dom != DOM_EDGE) eroots[neroots++] = mem[i];
  if (neroots && k->rows == DOM_VERTEX) nest = stage_row_pick(F, eroots, neroots, &est);
  bool *emade = calloc((size_t)nest + 1, 1);
  for (int i = 0; i < nmem; i++) {
    Value *v = mem[i];
    if (v->sched != SCHED_ROOT || v->dom == DOM_EDGE) continue;
    int kv, iv;
    Ctx vcx = vertex_ctx(krow(L), true);
    if (nest) stage_before(F, est, nest, emade, v, &vcx);
    PtrVec *lanes = ks_lanes(L, k, &k->body, width_of(v), &kv, &iv);
    L->cur_blk = lanes;
    KExpr *kk = kvar(L, k, kv, NULL);
    if (F->kept[v->id]) { /* later roots of the epilogue read it from the group's array */
      store_kept(F, lanes, v, krow(L), kk, compute(F, v, &vcx, kk));
      ks_new(L, &k->body, KS_BARRIER);
    } else if (stash_only(F, v)) {
      store(F, lanes, v, krow(L), kk, compute(F, v, &vcx, kk));
    } else { /* later roots of the epilogue read it back (a chain of them is not recomputed) */
      store(F, lanes, v, krow(L), kk, compute(F, v, &vcx, kk));
      F->stored[v->id] = true;
      ks_new(L, &k->body, KS_BARRIER);
    }
  }
  if (nest) unstage(F, est, nest);
  free(est);
  free(emade);
  free(eroots);
  if (pieces) pieces_finish(F, body_from, rest_from, last, lo, hi);
  k->what = kernel_what(F);
  if (L->c->tiles_of_kernel) { /* --tile-columns=auto: the estimate's count for this kernel (none for one in pieces) */
    if (k->id < L->c->ntiles_of_kernel && L->c->tiles_of_kernel[k->id] > 1) tile_columns(L, k, 0, L->c->tiles_of_kernel[k->id]);
  } else if (L->c->tile_columns > 0) {
    tile_columns(L, k, L->c->tile_columns, 0); /* lower_tiles.c (a walk in pieces: a note, kept whole) */
  }
  free(lanes_of);
  free(staged);
  free(store_walk);
  free(at_edge);
  free(read);
  free(acc);
}
