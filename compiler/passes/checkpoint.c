/* checkpoint.c -- recompute vs stash (paper section 6): what the backward pass reads of the
 * forward, and whether it is kept in memory or computed again.
 *
 * Requires: a verified module after autodiff and compose (a training module; an inference
 * module is left alone). Guarantees: every forward value a backward value reads carries a
 * decision (Value.ckpt) with the FLOPs behind it (Value.ckpt_flops); the backward reads no
 * edge_softmax it recomputes (it reads a backward copy made from stashed statistics); the
 * fuse pass follows the decisions (passes/fuse.c, mark_roots). -fno-recompute (or
 * -fno-checkpoint) skips the pass: fuse then stashes every value the backward reads that costs
 * any work to recompute (views and parameter slices stay index arithmetic).
 *
 * The cost model weighs, per element, the FLOPs of recomputing a value from what is in memory
 * (leaves, GEMM results, reductions, stashed values) against the bytes of keeping it (write once
 * in the forward, read once in the backward: 8 bytes per float32). A FLOP is cheaper than a byte
 * on every machine we target (an H100 does ~20 FLOPs in the time of one byte of HBM, a CPU core
 * ~8): recompute when the FLOPs are at most RECOMPUTE_FLOPS (64, the CPU's balance x 8 bytes);
 * with --recompute=all, whenever it can. Besides:
 *   - a reduction (gather, aggregate, reduce_rows: O(|V|) or O(1) rows) is stashed: it cannot
 *     be recomputed per element;
 *   - a GEMM result, a GEMM operand or a module output is in memory for the forward anyway;
 *   - an edge_softmax is recomputed from its scores and two per-vertex statistics stashed by
 *     the forward: the running max M_v = max_u s_uv and the denominator Z_v = sum_u exp(s_uv -
 *     M_v) (gather.max and gather.sum, marked stat_of: the fused forward stores them from the
 *     online softmax's registers, no extra pass), as alpha_uv = exp(s_uv - M_v) / Z_v. O(|E|)
 *     data becomes O(|V|) data: 2 x |V| x H floats instead of |E| x H;
 *   - a dropout is recomputed with its mask: the counter RNG replays it from the forward's seed
 *     (no mask is ever stored).
 * A forward value recomputed through a recomputed edge_softmax (dropout(alpha)) gets a backward
 * copy too (Value.recomputes names the original), so that no backward kernel reads alpha.
 */
#include "../passes.h"

#include <stdlib.h>
#include <string.h>

#define RECOMPUTE_FLOPS 64.0
#define CANNOT 1e9

typedef struct {
  GnnCtx *c;
  Module *m;
  int n;
  bool *needed;      /* per value: a forward value some backward value reads */
  bool *in_memory;   /* per value: in memory for the forward anyway (GEMM operand, output) */
  bool *soft;        /* per value: an edge_softmax recomputed from its statistics */
  signed char *via;  /* per value: 1 its recompute reads a recomputed softmax, 0 not, -1 unknown */
  Value **copy;      /* per value: its backward copy (or NULL) */
  Value **after;     /* per value: the statistics to place after it (its M; M's next: Z) */
  PtrVec *users;     /* per value: the values that read it */
  bool *holds;       /* per value: a GEMM operand or a module output (its results are in memory) */
  const char *why;
} Ckpt_;

static bool is_leaf(const Value *v) {
  return v->op == OP_INPUT || v->op == OP_PARAM || v->op == OP_CONST || v->op == OP_DEGREE;
}
static bool is_reduction(const Value *v) {
  return v->op == OP_GATHER || v->op == OP_AGGREGATE || v->op == OP_REDUCE_ROWS;
}

static void mark_needed(Ckpt_ *K) {
  memset(K->needed, 0, (size_t)K->n + 1);
  for (int i = 0; i < K->n; i++) {
    Value *u = K->m->vals.items[i];
    if (!u->bwd) continue;
    for (int a = 0; a < u->nargs; a++)
      if (!u->args[a]->bwd) K->needed[u->args[a]->id] = true;
  }
}

static double remat_flops(Ckpt_ *K, const Value *v, int depth);

/* Who reads each value, and which values are GEMM operands or outputs (once per module state:
 * recomputations() asks for every decision). */
static void index_users(Ckpt_ *K) {
  Module *m = K->m;
  K->users = arena_alloc(m->arena, sizeof(PtrVec) * ((size_t)m->vals.len + 1));
  K->holds = arena_alloc(m->arena, (size_t)m->vals.len + 1);
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    for (int a = 0; a < v->nargs; a++) {
      vec_push(m->arena, &K->users[v->args[a]->id], v);
      if (value_is_gemm(v)) K->holds[v->args[a]->id] = true;
    }
  }
  for (int i = 0; i < m->nouts; i++) K->holds[m->outs[i].val->id] = true;
}

/* Values the forward keeps in memory anyway: outputs, GEMM operands, and vertex values read per
 * edge that cost more than a load to recompute there (fuse makes them roots: GAT's attention
 * dots). */
static void mark_in_memory(Ckpt_ *K) {
  Module *m = K->m;
  for (int i = 0; i < m->nouts; i++) K->in_memory[m->outs[i].val->id] = true;
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    if (value_is_gemm(v))
      for (int a = 0; a < v->nargs; a++) K->in_memory[v->args[a]->id] = true;
    for (int a = 0; a < v->nargs; a++) {
      Value *x = v->args[a];
      bool per_edge = v->op == OP_SCATTER || (v->op == OP_AGGREGATE && a == 0 && v->msg != FN_COPY_E);
      if (per_edge && x->dom == DOM_VERTEX && !x->bwd && !K->in_memory[x->id] && remat_flops(K, x, 0) > 2) K->in_memory[x->id] = true;
    }
  }
}

/* Index arithmetic on one operand: a different shape of the same elements. */
static bool is_view(const Value *v) {
  return v->nargs == 1 && (v->fn == FN_FLATTEN || v->fn == FN_RESHAPE || v->fn == FN_SLICE || v->fn == FN_TRANSPOSE);
}

/* FLOPs per element to recompute v from what is in memory. A reduction is in memory for the
 * backward only if the backward reads it itself (then it is stashed anyway); recomputing through
 * any other would stash the reduction in the value's place: no saving, so it counts as cannot. */
static double remat_flops(Ckpt_ *K, const Value *v, int depth) {
  if (is_leaf(v) || v->bwd) return 0;
  if (v->ckpt == CKPT_STASH || K->in_memory[v->id] || value_is_gemm(v)) return 0;
  if (is_reduction(v)) return K->needed[v->id] ? 0 : CANNOT;
  if (depth > 24) return CANNOT;
  if (is_view(v) && is_reduction(v->args[0])) return 0; /* the same bytes: stash the reduction, view it */
  if (v->op == OP_REDUCE_SCATTER) /* exp(s - M_v) / Z_v with M and Z loaded: sub, exp, div */
    return 10 + remat_flops(K, v->args[0], depth + 1);
  double f = elem_cost(v);
  for (int i = 0; i < v->nargs && f < CANNOT; i++) f += remat_flops(K, v->args[i], depth + 1);
  return f < CANNOT ? f : CANNOT;
}

/* The weighted FLOPs of one element of w computed where it is read, with the operands computed
 * with it (not leaves, GEMMs, reductions or stashes), up to about GNN_STAGE_MIN_COST. */
static double inline_cost(Ckpt_ *K, const Value *w, int depth) {
  if (is_leaf(w) || value_is_gemm(w) || is_reduction(w) || depth > 8) return 0;
  if (!w->bwd && (K->in_memory[w->id] || w->ckpt == CKPT_STASH)) return 0;
  double f = elem_cost(w);
  for (int i = 0; i < w->nargs && f < GNN_STAGE_MIN_COST; i++) f += inline_cost(K, w->args[i], depth + 1);
  return f;
}

/* The lowering stages w (computes it once per edge into shared memory): its readers do not
 * multiply the recomputation of what it reads. */
static bool staged(Ckpt_ *K, const Value *w) {
  return w->dom == DOM_EDGE && shape_elems(&w->shape) <= GNN_STAGE_MAX_WIDTH && inline_cost(K, w, 0) >= GNN_STAGE_MIN_COST;
}

/* How many times the backward would recompute v: once per backward value that must hold its
 * results (a reduction, a GEMM or its operand, an output) and reads v through element-wise
 * backward values, each of which fuse inlines (MoNet's Gaussian weights feed six parameter-
 * gradient sums: recomputing them is six times the work of one); a reader wider than v, once
 * per element of its own, unless the lowering stages v (a narrow edge value costing a few
 * FLOPs: computed once per edge in shared memory, ir.h), or stages the element-wise value
 * between (GAT's scores read by the staged attention: once per edge, whatever reads alpha). */
static double recomputations(Ckpt_ *K, const Value *v) {
  Module *m = K->m;
  int n = m->vals.len;
  double count = 0, ve = (double)shape_elems(&v->shape);
  bool v_staged = v->dom == DOM_EDGE && ve <= GNN_STAGE_MAX_WIDTH && remat_flops(K, v, 0) >= GNN_STAGE_MIN_COST;
  bool *seen = calloc((size_t)n + 1, 1);
  PtrVec stack = {0};
  vec_push(m->arena, &stack, (void *)v);
  while (stack.len) {
    Value *x = stack.items[--stack.len];
    for (int u = 0; u < K->users[x->id].len; u++) {
      Value *w = K->users[x->id].items[u];
      if (!w->bwd || seen[w->id]) continue;
      seen[w->id] = true;
      if (is_reduction(w) || w->op == OP_REDUCE_SCATTER || value_is_gemm(w) || K->holds[w->id]) {
        /* a reader over more elements per row than v (a sum over [H, D] of a per-head value)
         * recomputes each of v's elements once per element of its own */
        double we = (double)shape_elems(&(w->nargs ? w->args[0] : w)->shape);
        if (w->op == OP_AGGREGATE || value_is_gemm(w)) we = (double)shape_elems(&w->shape);
        count += we > ve && !v_staged ? we / ve : 1;
      } else if (staged(K, w)) {
        count += 1;
      } else {
        vec_push(m->arena, &stack, w);
      }
    }
  }
  free(seen);
  return count > 1 ? count : 1;
}

/* The decision for a forward value the backward reads. */
static void decide(Ckpt_ *K, Value *v) {
  if (is_leaf(v) || v->ckpt != CKPT_NONE) return;
  if (K->in_memory[v->id] || value_is_gemm(v) || is_reduction(v)) {
    v->ckpt = CKPT_STASH;
    v->ckpt_flops = value_is_gemm(v) || K->in_memory[v->id] ? 0 : CANNOT;
    return;
  }
  double f = remat_flops(K, v, 0) * recomputations(K, v);
  double limit = K->c->recompute_level ? CANNOT - 1 : RECOMPUTE_FLOPS;
  v->ckpt = f <= limit ? CKPT_RECOMPUTE : CKPT_STASH;
  v->ckpt_flops = (float)(f < CANNOT ? f : CANNOT);
}

/* The softmaxes the recomputed values read (through recomputed operands): from statistics. */
static void find_softmaxes(Ckpt_ *K, const Value *v, bool *seen) {
  if (is_leaf(v) || v->bwd || seen[v->id]) return;
  seen[v->id] = true;
  if (v->op == OP_REDUCE_SCATTER) {
    K->soft[v->id] = true;
    return;
  }
  if (value_is_gemm(v) || is_reduction(v) || K->in_memory[v->id] || v->ckpt == CKPT_STASH) return;
  for (int i = 0; i < v->nargs; i++) find_softmaxes(K, v->args[i], seen);
}

static bool reads_soft(Ckpt_ *K, const Value *v) {
  if (K->via[v->id] >= 0) return K->via[v->id];
  bool r = false;
  if (K->soft[v->id]) r = true;
  else if (!is_leaf(v) && !v->bwd && !value_is_gemm(v) && !is_reduction(v) && !K->in_memory[v->id] && v->ckpt != CKPT_STASH)
    for (int i = 0; i < v->nargs && !r; i++) r = reads_soft(K, v->args[i]);
  K->via[v->id] = r;
  return r;
}

static Value *make(Ckpt_ *K, OpKind op, FnKind fn, Value *a, Value *b, int64_t iattr, Loc loc, bool bwd) {
  if (!K->why) {
    Value *args[2] = {a, b};
    Value *v = ir_make(K->m, op, fn, args, b ? 2 : 1, 0, iattr, loc, &K->why);
    if (v) {
      v->bwd = bwd;
      return v;
    }
  }
  return a; /* after a failure (reported by the caller): the module is discarded */
}

/* alpha = edge_softmax(s), for the backward: exp(s - M_v) / Z_v, with M and Z made by the forward. */
static Value *softmax_copy(Ckpt_ *K, Value *a) {
  Value *s = a->args[0];
  Loc l = a->loc;
  Value *M = make(K, OP_GATHER, FN_MAX, s, NULL, GATHER_BY_DST, l, false);
  Value *d = make(K, OP_APPLY_EDGE, FN_SUB, s, make(K, OP_SCATTER, FN_COPY_V, M, NULL, 0, l, false), 0, l, false);
  Value *Z = make(K, OP_GATHER, FN_SUM, make(K, OP_APPLY_EDGE, FN_EXP, d, NULL, 0, l, false), NULL, GATHER_BY_DST, l, false);
  if (K->why) return a;
  M->stat_of = Z->stat_of = a;
  M->stat = STAT_MAX, Z->stat = STAT_SUM;
  M->ckpt = Z->ckpt = CKPT_STASH;
  M->ckpt_flops = Z->ckpt_flops = CANNOT;
  K->after[a->id] = M;
  Value *d2 = make(K, OP_APPLY_EDGE, FN_SUB, s, make(K, OP_SCATTER, FN_COPY_V, M, NULL, 0, l, true), 0, l, true);
  Value *r = make(K, OP_APPLY_EDGE, FN_DIV, make(K, OP_APPLY_EDGE, FN_EXP, d2, NULL, 0, l, true),
                  make(K, OP_SCATTER, FN_COPY_V, Z, NULL, 0, l, true), 0, l, true);
  return r;
}

/* The value the backward reads in place of forward value x: x itself, or its backward copy when
 * recomputing it means recomputing a softmax from its statistics. */
static Value *backward_copy(Ckpt_ *K, Value *x) {
  if (x->bwd || x->id >= K->n || !reads_soft(K, x)) return x;
  if (K->copy[x->id]) return K->copy[x->id];
  Value *r;
  if (K->soft[x->id]) {
    r = softmax_copy(K, x);
  } else {
    Value proto = *x;
    for (int i = 0; i < x->nargs; i++) proto.args[i] = backward_copy(K, x->args[i]);
    proto.ckpt = CKPT_NONE, proto.recomputes = proto.recomputed_as = NULL;
    r = K->why ? x : ir_make_like(K->m, &proto, &K->why);
    if (!r) return x;
    r->bwd = true;
  }
  r->recomputes = x;
  x->recomputed_as = r;
  K->copy[x->id] = r;
  return r;
}

/* Operands before uses; the statistics right after their softmax (they are forward values). */
static void place(Ckpt_ *K, Value *v, bool *done, PtrVec *out) {
  if (done[v->id]) return;
  done[v->id] = true;
  for (int i = 0; i < v->nargs; i++) place(K, v->args[i], done, out);
  vec_push(K->m->arena, out, v);
  if (v->id < K->n && K->after[v->id]) {
    Value *M = K->after[v->id];
    place(K, M, done, out);
    for (int i = K->n; i < K->m->vals.len; i++) { /* Z: the other statistic of the same softmax */
      Value *z = K->m->vals.items[i];
      if (z->stat_of == v && z != M) place(K, z, done, out);
    }
  }
}

bool pass_checkpoint(GnnCtx *c, Module *m) {
  bool any_bwd = false;
  for (int i = 0; i < m->vals.len; i++) any_bwd |= ((Value *)m->vals.items[i])->bwd;
  if (!any_bwd) return false;
  module_count_uses(m);
  Ckpt_ K = {.c = c, .m = m, .n = m->vals.len};
  int n = K.n;
  K.needed = calloc((size_t)n + 1, 1);
  K.in_memory = calloc((size_t)n + 1, 1);
  K.soft = calloc((size_t)n + 1, 1);
  K.via = malloc((size_t)n + 1);
  memset(K.via, -1, (size_t)n + 1);
  K.copy = calloc((size_t)n + 1, sizeof(Value *));
  K.after = calloc((size_t)n + 1, sizeof(Value *));
  index_users(&K);
  mark_needed(&K);
  mark_in_memory(&K);
  /* 1. decisions, operands first (a stashed operand is a load for the values above it) */
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (K.needed[i] && !v->bwd) decide(&K, v);
  }
  /* 2. the softmaxes recomputed values read become statistics; the backward reads copies */
  bool *seen = calloc((size_t)n + 1, 1);
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (K.needed[i] && !v->bwd && v->ckpt == CKPT_RECOMPUTE) find_softmaxes(&K, v, seen);
  }
  free(seen);
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (K.soft[i] && v->ckpt == CKPT_NONE) {
      v->ckpt = CKPT_RECOMPUTE;
      v->ckpt_flops = (float)remat_flops(&K, v, 0);
    }
  }
  bool changed = false;
  for (int i = 0; i < n && !K.why; i++) {
    Value *w = m->vals.items[i];
    if (!w->bwd) continue;
    for (int a = 0; a < w->nargs; a++) {
      Value *x = backward_copy(&K, w->args[a]);
      if (x != w->args[a]) w->args[a] = x, changed = true;
    }
  }
  if (K.why) {
    fprintf(stderr, "%s: internal error: checkpoint could not build a recomputation: %s\n", c->diag.path, K.why);
    c->diag.errors++;
  } else if (changed) {
    bool *done = calloc((size_t)m->vals.len + 1, 1);
    PtrVec order = {0};
    for (int i = 0; i < m->vals.len; i++) place(&K, m->vals.items[i], done, &order);
    free(done);
    m->vals = order;
    module_compact(m);
    module_count_uses(m);
    /* 3. what the copies read: decisions for the values the backward reads now */
    free(K.needed);
    K.n = m->vals.len;
    K.needed = calloc((size_t)K.n + 1, 1);
    free(K.in_memory);
    K.in_memory = calloc((size_t)K.n + 1, 1);
    index_users(&K);
    mark_needed(&K);
    mark_in_memory(&K);
    for (int i = 0; i < K.n; i++) {
      Value *v = m->vals.items[i];
      if (K.needed[i] && !v->bwd) decide(&K, v);
    }
  }
  for (int i = 0; i < m->vals.len; i++) changed |= ((Value *)m->vals.items[i])->ckpt != CKPT_NONE;
  free(K.needed);
  free(K.in_memory);
  free(K.soft);
  free(K.via);
  free(K.copy);
  free(K.after);
  return changed;
}
