/* lower_stage.c -- staging: values a fused kernel's lane loops would compute again at each
 * element they read them at, computed once per edge (or row) into shared memory instead.
 *
 * An edge value computed where it is read is computed once per element of every lane loop that
 * reads it: MoNet's Gaussian weights (edge[K]) once in each of the aggregate's K*D lanes, its
 * pseudo-coordinates again in each of the backward's six parameter sums. A value that costs a
 * few FLOPs or more and is read at more elements than it has (by a wider lane loop, or by two
 * loops) is staged instead: computed once per edge into shared memory and read from there. In a
 * walk, the lane that loads an edge of the chunk computes its staged values before the chunk's
 * barrier (a value of this walk's own reductions cannot be staged: level); in a kernel per
 * edge, its lanes compute them before the loops that read them. Staged values are computed in
 * the order of their ids, so a later one reads an earlier one from shared memory.
 *
 * Requires: the kernel lower_fused.c is building (Fused: its group, its walk levels, `eval`);
 * lower_walk.c stages per walk (pick_stages, stage_walk), lower_groups.c and lower_walk.c's
 * epilogue per row (stage_rows, stage_row_pick, stage_row_one), each unstaging after. It calls
 * lower_fused.c and what lies below it (lower_op.c, kbuild.c), nothing above it. */
#include "lower_stage.h"

#include <stdlib.h>
#include <string.h>

/* STAGE_LANE_FLOATS: staged floats per lane of the group and walk (16: 16 KB of a CUDA block of
 * 256 threads, beside the kernel's other shared arrays); the rest is computed where read. Staging
 * is an optimisation, so it also stops where the kernel's block at its full 256/G groups would
 * hold more than GNN_SHARED_MAX (48 KB) with it: the arrays of earlier walks, the chunk's, the
 * finished reductions (a kernel of several walks stages once per walk). */
enum { STAGE_MIN_COST = GNN_STAGE_MIN_COST, STAGE_MAX_WIDTH = GNN_STAGE_MAX_WIDTH, STAGE_LANE_FLOATS = 16 };

/* The weighted FLOPs of one element of x with the operands computed with it, up to about cap. */
static double inline_cost(Fused *F, const Value *x, double cap, int *budget) {
  if (!computed_here(F, x) || --*budget < 0) return 0;
  double c = elem_cost(x);
  for (int i = 0; i < x->nargs && c < cap; i++) c += inline_cost(F, x->args[i], cap, budget);
  return c;
}

typedef struct {
  bool far_ok;       /* the scan starts at a walk's lane loop (not inside a staged value) */
  int *readers;      /* per value: the lane loops that read it */
  bool *narrow;      /* per value: read by a loop wider than it (a kernel per vertex: by one that takes
                        more iterations of the group's lanes than it would: its lanes compute in
                        parallel what staging would compute once) */
  unsigned char *seen; /* per value: visited for the current loop (1: outside a reduction's loop, 2: inside, red) */
  const bool *stop;  /* per value: staged (the scan does not look inside) */
  int w;             /* the walk (0: a kernel per row) */
  Domain dom;        /* the values it stages: edge values (walks, kernels per edge), vertex values (kernels per vertex) */
  int red;           /* inside the serial loop of a reduction (sum_loop): its trips (0: not) */
  bool *in_red;      /* per value: a reduction found read inside another's loop, in any round (staged
                        in every later one: the rounds that stop at a staged reader would drop it) */
  bool red_off;      /* --test-no-sum-staging (GnnCtx.no_sum_staging, a hidden option for tests): the
                        two rules below off */
} StageScan;

/* A reduction compute() makes as a serial loop over its operand (lower_op.c, sum_loop): what it
 * reads at no element of that loop is recomputed every trip, and a reduction read there nests
 * its own loop inside (LN6's backward: row sums 7 deep, each recomputing the ones it reads). */
static int serial_red_trips(const Value *x) {
  if (x->op != OP_APPLY_VERTEX && x->op != OP_APPLY_EDGE) return 0;
  if (x->fn != FN_SUM_LAST && x->fn != FN_DOT && x->fn != FN_U_DOT_V) return 0;
  int t = 1;
  for (int a = 0; a < x->nargs; a++)
    if (x->args[a]->shape.rank && x->args[a]->shape.d[x->args[a]->shape.rank - 1] > t)
      t = (int)x->args[a]->shape.d[x->args[a]->shape.rank - 1];
  return t > 1 ? t : 0;
}

/* x's computation where it is read loads a row of another vertex (a Scatter computed inline:
 * x[src] in a walk over in-edges). */
static bool gathers(Fused *F, const Value *x, int *budget) {
  if (!computed_here(F, x) || --*budget < 0) return false;
  if (x->op == OP_SCATTER) return true;
  for (int i = 0; i < x->nargs; i++)
    if (gathers(F, x->args[i], budget)) return true;
  return false;
}

/* x is one of the sums a CUDA kernel per row spreads over its lanes (lower_groups.c, find_spread):
 * computed once per row there already, into sh_red<id>. */
static bool spread_here(Fused *F, const Value *x) {
  const FuseGroup *g = &F->m->groups[F->gid];
  return !F->L->c->serial_dots && g->kind == FG_ROWS && g->rows != DOM_GLOBAL && x->dom == g->rows && split_reduce_len(F->L, x);
}

static void scan_stage(Fused *F, const Value *x, int lanes, StageScan *S) {
  /* seen outside a reduction's loop and now inside one: looked at again (for S->red alone) */
  if ((S->seen[x->id] & 2) || (!S->red && S->seen[x->id]) || !computed_here(F, x)) return;
  bool again = S->seen[x->id] != 0;
  S->seen[x->id] |= S->red ? 2 : 1;
  bool own_root = x->sched == SCHED_ROOT && x->group == F->gid;
  if (x->dom == S->dom && !own_root && x->elem == ELEM_F32 && width_of(x) <= STAGE_MAX_WIDTH &&
      (S->w == 0 || level(F, x) < S->w)) {
    int budget = 256, gbudget = 64, G = F->k->group;
    /* A gathered edge value narrower than the group, read by a walk's lane loop: computed there,
     * the walk takes one edge at a time, W of the G lanes waiting on each edge's gather in turn
     * (GAT's attention score: 4 of 32 lanes, and the row's gather waits behind it). Staged, the
     * G lanes issue the gathers of G edges at once: one memory latency per chunk of edges
     * instead of one per edge, whatever it costs in FLOPs. */
    bool far = S->far_ok && S->w > 0 && S->dom == DOM_EDGE && width_of(x) < G && gathers(F, x, &gbudget);
    if (far || inline_cost(F, x, STAGE_MIN_COST, &budget) >= STAGE_MIN_COST) {
      S->readers[x->id] += !again;
      if (far || (S->dom == DOM_VERTEX ? (lanes + G - 1) / G > (width_of(x) + G - 1) / G : width_of(x) < lanes))
        S->narrow[x->id] = true;
      /* a reduction read inside another's serial loop, narrower than that loop: once per row
         staged, not once per trip (and its own loop nested in the other's) */
      if (!S->red_off && S->red && serial_red_trips(x) && width_of(x) < S->red) S->narrow[x->id] = S->in_red[x->id] = true;
      /* a reduction read by a loop of lanes wider than it is computed again in each lane: on the
         host the lanes run one after another; on a GPU they run at once, but each lane does the
         whole reduction (a layer norm's 16-element row sum in each of 16 lanes: 16x the arithmetic
         and the loads, normprop_chain's forward x8.1 the unfused program's). Staged once per row
         (a lane per output, then a barrier), on both targets; a GPU's edge values already are by
         the rule above (no narrower than the loop), so there only vertex values (a reduction
         found inside one staged for its wider readers stays staged, every round: MoNet's
         Gaussian exponent, 3 wide under its exp, would take a shared array for nothing), and not
         the sums a kernel per row spreads over its lanes (made once per row already) */
      if (!S->red_off && (F->L->c->serial_dots || (S->dom == DOM_VERTEX && !spread_here(F, x))) && serial_red_trips(x) && width_of(x) < lanes) S->narrow[x->id] = S->in_red[x->id] = true;
    }
  }
  /* a kernel per vertex stores its roots in order and a later one reads an earlier one back: the
   * scan stops there (a chain of 10,000 cut into roots would otherwise be scanned from each) */
  if (S->stop[x->id] || (own_root && S->dom == DOM_VERTEX)) return;
  int red = S->red, trips = serial_red_trips(x);
  if (trips) S->red = trips;
  for (int i = 0; i < x->nargs; i++) scan_stage(F, x->args[i], lanes, S);
  S->red = red;
}

/* F->train_need[x]: a training run of this forward kernel computes x. Not a recomputed stash that
 * is staged (stage_store loads it when training) nor what only such stashes read; a recomputed
 * stash computed where it is read (not staged: the staging budget) is computed when training
 * too, from its operands. Every value, in a backward kernel. An explicit stack: no depth limit. */
static void mark_train_need(Fused *F, Value **mem, int nmem, const bool *staged) {
  int n = F->m->vals.len;
  bool bwd = F->m->groups[F->gid].bwd;
  memset(F->train_need, bwd, (size_t)n + 1);
  if (bwd) return;
  PtrVec stack = {0};
  for (int i = 0; i < nmem; i++)
    for (int a = 0; a < mem[i]->nargs; a++) vec_push(F->L->a, &stack, mem[i]->args[a]);
  while (stack.len) {
    const Value *x = stack.items[--stack.len];
    if (F->train_need[x->id] || x->op == OP_CONST) continue;
    F->train_need[x->id] = true;
    if ((recomputed_stash(F, x) && staged[x->id]) || !computed_here(F, x)) continue;
    for (int a = 0; a < x->nargs; a++) vec_push(F->L->a, &stack, x->args[a]);
  }
}

/* The values to stage for the lane loops that compute mem[i] (lanes[i] wide; 0: not in this
 * walk), `slots` edges at a time, in the order of their ids; returns how many. The outermost only: a value read only
 * inside staged ones is computed once per edge with them. Found by iterating: every value that
 * would pay when each is computed where read, then those that still pay when the scan stops at
 * the staged ones, until the set is stable or for 4 rounds (docs/passes/fuse.md, "Four rounds of
 * staging": 90 of 8,728 calls over 145 models need up to 7, and their 4-round sets only add). */
int pick_stages(Fused *F, Value **mem, int nmem, const int *lanes, int w, Domain dom, Value **out, int slots) {
  int n = F->m->vals.len, nout = 0;
  bool *stop = calloc((size_t)n + 1, 1), *next = calloc((size_t)n + 1, 1);
  StageScan S = {true, calloc((size_t)n + 1, sizeof(int)), calloc((size_t)n + 1, 1), calloc((size_t)n + 1, 1), stop, w, dom, 0, calloc((size_t)n + 1, 1),
                 F->L->c->no_sum_staging};
  for (int round = 0; round < 4; round++) {
    memset(S.readers, 0, sizeof(int) * ((size_t)n + 1));
    memset(S.narrow, 0, (size_t)n + 1);
    S.far_ok = true;
    for (int i = 0; i < nmem; i++) {
      if (!lanes[i]) continue;
      memset(S.seen, 0, (size_t)n + 1);
      S.red = serial_red_trips(mem[i]);
      for (int a = 0; a < mem[i]->nargs; a++) scan_stage(F, mem[i]->args[a], lanes[i], &S);
    }
    S.far_ok = false; /* inside a staged value: the gathers are already one chunk's */
    for (int i = 0; i < n; i++) { /* a staged value's computation reads too (GAT: alpha, in its dropout and a loop) */
      const Value *x = F->m->vals.items[i];
      if (!stop[i]) continue;
      memset(S.seen, 0, (size_t)n + 1);
      S.red = serial_red_trips(x);
      for (int a = 0; a < x->nargs; a++) scan_stage(F, x->args[a], width_of(x), &S);
    }
    S.red = 0;
    bool same = true;
    for (int i = 0; i < n; i++) {
      next[i] = S.narrow[i] || S.readers[i] >= 2 || S.in_red[i];
      same &= next[i] == stop[i];
    }
    memcpy(stop, next, (size_t)n + 1);
    if (same) break;
  }
  int64_t floats = 0, budget = (int64_t)STAGE_LANE_FLOATS * F->k->group;
  int gpb = GNN_CUDA_BLOCK / F->k->group;
  int64_t bytes = kernel_shared_bytes(F->k, gpb); /* the block's, with what is staged so far */
  memset(next, 0, (size_t)n + 1); /* now: staged */
  for (int i = 0; i < n; i++) {
    Value *x = F->m->vals.items[i];
    int64_t need = (int64_t)slots * width_of(x) * (x->f64 ? 2 : 1); /* a float64 value: two floats */
    if (!stop[i] || floats + need > budget || bytes + need * 4 * gpb > GNN_SHARED_MAX) continue;
    floats += need;
    bytes += need * 4 * gpb;
    out[nout++] = x;
    next[i] = true;
  }
  mark_train_need(F, mem, nmem, next);
  free(S.readers);
  free(S.narrow);
  free(S.seen);
  free(S.in_red);
  free(stop);
  free(next);
  return nout;
}

/* A staged value's shared-memory store: sh[idx] = x at cx. A stash the forward recomputes is
 * loaded instead when training (its group wrote it for the backward; MoNet's Gaussian weights
 * cost a tanh per coordinate and an exp per kernel, an edge), computed when not. */
static void stage_store(Fused *F, PtrVec *blk, const Value *x, const Ctx *cx, KExpr *j, int sh, KExpr *at) {
  Lower *L = F->L;
  if (!F->train_need[x->id]) { /* read only by recomputed stashes, which training loads */
    blk = ks_if(L, blk, kun(L, KU_NOT, ktraining(L)));
  } else if (recomputed_stash(F, x)) {
    PtrVec *tb = ks_if(L, blk, ktraining(L));
    ks_shstore(L, tb, sh, at, fused_load(F, x, cx, j));
    blk = ks_if(L, blk, kun(L, KU_NOT, ktraining(L)));
  }
  L->cur_blk = blk;
  KExpr *val = eval(F, x, cx, j);
  ks_shstore(L, blk, sh, at, val);
}

/* In walk wk: lane l computes the staged values at edge j0 + l (in the chunk's stage, before its
 * barrier) into sh_st<id>[l * width + j]; the walk's lane loops read them at position t. */
void stage_walk(Fused *F, const Walk *wk, int dir, Value **st, int nst) {
  Lower *L = F->L;
  Kernel *k = F->k;
  if (!nst || !wk->stage) return;
  int le = add_local(L, k, "se", KT_I64, 0, false), lu = add_local(L, k, "su", KT_I64, 0, false);
  ks_let(L, wk->stage, le, NULL, kshared(L, k, wk->she, klane(L)));
  if (wk->shu >= 0) ks_let(L, wk->stage, lu, NULL, kshared(L, k, wk->shu, klane(L)));
  KExpr *far = kvar(L, k, lu, NULL), *row = krow(L);
  Ctx scx = {.edge = kvar(L, k, le, NULL), .src = dir == GATHER_BY_DST ? far : row, .dst = dir == GATHER_BY_DST ? row : far,
             .src_near = dir == GATHER_BY_SRC, .dst_near = dir == GATHER_BY_DST};
  F->st_le = le;
  F->st_e = wk->e;
  F->st_t = wk->t;
  for (int i = 0; i < nst; i++) {
    const Value *x = st[i];
    int W = width_of(x), j = add_local(L, k, "j", KT_I64, 0, false);
    /* staged in an earlier walk of this kernel too (a score read by two walks): the same array,
     * which this walk's chunks fill again */
    const char *name = arena_printf(L->a, "sh_st%d", x->id);
    int sh = -1;
    for (int s = 0; s < k->nshared && sh < 0; s++)
      if (strcmp(k->shared[s].name, name) == 0) sh = s;
    if (sh < 0) sh = add_shared(L, k, name, x->f64 ? KT_F64 : KT_F32, k->group * W);
    ElemLoop prev; /* a row loop: a log_softmax's max and sum go before it, once per edge */
    PtrVec *body = ks_row_loop(L, k, wk->stage, j, W, &prev);
    KExpr *jj = kvar(L, k, j, NULL);
    stage_store(F, body, x, &scx, jj, sh, kbin(L, KO_ADD, kbin(L, KO_MUL, klane(L), ki(L, W)), jj));
    ks_end_row_loop(L, prev);
    F->stage[x->id] = sh;
  }
}

/* In a kernel per row: picks what the members' lane loops (each as wide as its member) read
 * (stage_row_pick; no code), and stage_row_one makes one of them: its lanes compute it at the row
 * into sh_st<id>, a barrier after (the next may read it at another lane's element). stage_rows
 * makes them all at once, at the kernel's start (kernels per edge with no roots stored before:
 * lower_sink, lower_gather); lower_rows makes each before the first member that reads it, after
 * the roots stored above and the spread sums made above (made at the start, a backward's staged
 * scalar computed every root and row sum it reads inline, each sum's loop nesting the ones it
 * reads: LN6's backward, 32-trip loops 7 deep). *out: the staged values (for unstage; the caller
 * frees it); returns how many. */
int stage_row_pick(Fused *F, Value **mem, int nmem, Value ***out) {
  Kernel *k = F->k;
  int *lanes_of = calloc((size_t)nmem, sizeof(int));
  Value **st = calloc((size_t)F->m->vals.len + 1, sizeof(Value *));
  for (int i = 0; i < nmem; i++) lanes_of[i] = width_of(mem[i]);
  int nst = pick_stages(F, mem, nmem, lanes_of, 0, k->rows == DOM_VERTEX ? DOM_VERTEX : DOM_EDGE, st, 1);
  free(lanes_of);
  *out = st;
  F->st_row = true;
  return nst;
}

void stage_row_one(Fused *F, const Value *x, const Ctx *cx) {
  Lower *L = F->L;
  Kernel *k = F->k;
  int W = width_of(x), kv, iv;
  int sh = add_shared(L, k, arena_printf(L->a, "sh_st%d", x->id), x->f64 ? KT_F64 : KT_F32, W);
  PtrVec *lanes = ks_lanes(L, k, &k->body, W, &kv, &iv);
  KExpr *kk = kvar(L, k, kv, NULL);
  stage_store(F, lanes, x, cx, kk, sh, kk);
  ks_new(L, &k->body, KS_BARRIER);
  F->stage[x->id] = sh;
}

int stage_rows(Fused *F, Value **mem, int nmem, const Ctx *cx, Value ***out) {
  int nst = stage_row_pick(F, mem, nmem, out);
  for (int i = 0; i < nst; i++) stage_row_one(F, (*out)[i], cx);
  return nst;
}

void unstage(Fused *F, Value **st, int nst) {
  for (int i = 0; i < nst; i++) F->stage[st[i]->id] = -1;
  F->st_e = F->st_le = F->st_t = -1;
  F->st_row = false;
}
