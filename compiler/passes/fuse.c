/* fuse.c -- the fusion pass (paper section 5): which values live in memory, and which kernel
 * computes each of them.
 *
 * Requires: a verified module after compose (aggregates formed), autodiff done if training.
 * Guarantees: every value carries a schedule (Sched) and, unless inline or a leaf, the fused
 * group (one kernel, or one GEMM call) that computes it; m->groups lists the groups in an order
 * in which they can run (forward first). The operator IR itself is not changed: lower reads the
 * schedule. -fno-fuse (or -O0) leaves every value SCHED_UNFUSED: one kernel per operator.
 *
 * The model (docs/passes/fuse.md):
 *   1. Every value is a leaf (input, parameter, constant, degree), a GEMM (a dense projection:
 *      cuBLAS / cblas), an anchor (a reduction over the edges of a vertex: gather, aggregate,
 *      edge_softmax; or over all rows: reduce_rows, a "sink"), or element-wise (scatter and
 *      apply). Element-wise values are INLINE by default: each kernel that reads one recomputes
 *      it at the element it needs (views become index arithmetic, light functions registers).
 *   2. An element-wise value is a ROOT (written to memory) only where it must be: a module
 *      output, an operand of a GEMM, a forward value the backward reads that is not cheap to
 *      recompute from what is in memory, a vertex value read through a scatter whose recompute
 *      per edge would cost more than reading it, an edge value that kernels of two groups of
 *      the same pass would each recompute at more than 32 FLOPs per element.
 *   3. Each anchor starts a group: a vertex-balanced walk over the in-edges (CSR) or out-edges
 *      (CSC) of each vertex. Groups of the same pass and direction merge when nothing read at the
 *      far end of an edge depends on the merged group (another vertex's value is not ready inside
 *      the kernel) and no other step would have to run between them (no cycle). A merged group
 *      is one kernel of several walks over the same edges: a reduction in walk w can use the
 *      results of walks < w (edge_softmax: stats, then the aggregate over the normalised edges).
 *   4. A ROOT joins the latest group whose anchors it depends on (the walk's epilogue for a
 *      vertex value, a store in a walk for an edge value), or a group of row kernels of its own.
 *   5. A sum over the rows (a sink) joins the rows group that makes what it sums (sink_host): the
 *      row's terms are added as the row is stored, not read back by a kernel of their own; a sum
 *      of inputs alone joins a rows group of its pass (one pass over the rows fewer).
 *   6. The groups are ordered topologically (forward before backward).
 * --mapping=edge: a reduction that can run edge-balanced (sum, mean, max, min, aggregate) is a
 * group of its own with atomics (FG_EDGE_REDUCE); edge_softmax and argmax stay vertex-balanced
 * (a note says so).
 */
#include "../passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  GnnCtx *c;
  Module *m;
  int n;             /* values */
  PtrVec *users;     /* per value: Value* that read it */
  bool *is_out;      /* per value: a module output */
  FuseGroup *g;
  int ng, gcap;
  int *stamp, cur;   /* producers()' visit marks */
  /* The values in groups (anchors, roots, GEMMs) and, per such value, the grouped values its
   * inline computation reaches (producers() stops there): group_graph's edges without walking
   * the inline values again. Which values are grouped changes only in steps 3b and 6, which
   * call index_frontiers again; their groups change anywhere, and are read at each use. */
  Value **grouped;
  int ngrouped;
  int *front_start;  /* per grouped value k: front[front_start[k] .. front_start[k + 1]) */
  Value **front;
} Fuse;

/* ---------------------------------------------------------------- classification */

static bool is_gemm(const Value *v) { return value_is_gemm(v); }

static bool is_leaf(const Value *v) {
  return v->op == OP_INPUT || v->op == OP_PARAM || v->op == OP_CONST || v->op == OP_DEGREE;
}

/* A reduction over the edges of a vertex. */
static bool is_walk_anchor(const Value *v) {
  return v->op == OP_GATHER || v->op == OP_AGGREGATE || v->op == OP_REDUCE_SCATTER;
}

static int anchor_dir(const Value *v) { return v->op == OP_GATHER ? (int)v->iattr : GATHER_BY_DST; }

/* FLOPs to recompute one element of v from what is in memory (leaves, GEMM results, roots,
 * anchors), following inline operands; a large number when it reaches an anchor (a reduction
 * cannot be recomputed per element). */
static double recompute_flops(const Value *v, int depth) {
  if (is_leaf(v) || v->sched == SCHED_LIBRARY || v->sched == SCHED_ROOT) return 0;
  if (v->sched == SCHED_ANCHOR || depth > 24) return 1e9; /* deep: as good as never cheap */
  double f = elem_flops(v);
  for (int i = 0; i < v->nargs && f < 1e6; i++) f += recompute_flops(v->args[i], depth + 1);
  return f;
}

/* Whether v reads operand i at the far end of an edge in a walk of direction dir: a scatter
 * reads its source-side operand at src and its destination-side operand at dst. */
static bool reads_far(const Value *v, int i, int dir) {
  if (v->op == OP_AGGREGATE) return i == 0 && v->msg != FN_COPY_E;
  if (v->op != OP_SCATTER) return false;
  bool at_src = v->fn == FN_COPY_U || (v->fn != FN_COPY_V && v->fn != FN_ARGSEL_V && i == 0);
  return dir == GATHER_BY_DST ? at_src : !at_src;
}
static bool reads_vertex_per_edge(const Value *v, int i) {
  return (v->op == OP_SCATTER || (v->op == OP_AGGREGATE && i == 0 && v->msg != FN_COPY_E)) && v->args[i]->dom == DOM_VERTEX;
}

/* Whether library step w reads its operand v from memory: a GEMM reads every operand; an SpMM
 * reads its x and weights (made roots below), not the inline edge values between them and it
 * (scatter, times w), which it never materialises. */
static bool library_reads(const Value *w, const Value *v) {
  Value *x, *ew;
  int dir;
  if (is_gemm(w) || !value_spmm_operands(w, &x, &ew, &dir)) return true;
  return v == x || v == ew;
}

/* Whether edge value w is in memory for nothing, or for once per graph: an input, or a function
 * of degrees and constants alone (the hoist pass computes it when the model meets a graph). */
static bool cheap_weight(const Value *w, int depth) {
  if (w->op == OP_INPUT || w->op == OP_DEGREE || w->op == OP_CONST) return true;
  if (w->op == OP_PARAM || w->bwd || w->fn == FN_DROPOUT || w->nargs == 0 || depth > 32) return false;
  for (int i = 0; i < w->nargs; i++)
    if (!cheap_weight(w->args[i], depth + 1)) return false;
  return true;
}

/* --spmm=cusparse: a plain weighted sum over the edges is a library call (FG_SPMM), not a walk,
 * where its weights cost no pass over the edges of their own: none, an input, or a value of the
 * graph alone (an attention's alpha, recomputed from its statistics in the fused walks, would
 * have to be written, E floats a step). Not a softmax's statistic (its softmax's walk computes it
 * for free) nor anything in float64. */
static bool is_spmm(const Fuse *F, const Value *v) {
  Value *x, *w;
  int dir;
  if (!F->c->spmm_library || v->stat_of || v->f64 || !value_spmm_operands(v, &x, &w, &dir)) return false;
  return !x->f64 && (!w || (!w->f64 && cheap_weight(w, 0)));
}

static void mark_roots(Fuse *F) {
  Module *m = F->m;
  /* a forward value the backward reads (stash) and anything a GEMM or the caller reads */
  for (int i = 0; i < F->n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched != SCHED_INLINE) continue;
    bool root = F->is_out[i];
    for (int u = 0; u < F->users[i].len; u++) {
      Value *w = F->users[i].items[u];
      if (w->sched == SCHED_LIBRARY && library_reads(w, v)) root = true;
    }
    if (root) v->sched = SCHED_ROOT;
  }
  /* an SpMM's x and weights, which it may read through inline edge values (scatter, times w) */
  for (int i = 0; i < F->n; i++) {
    Value *v = m->vals.items[i], *x, *w;
    int dir;
    if (v->sched != SCHED_LIBRARY || is_gemm(v) || !value_spmm_operands(v, &x, &w, &dir)) continue;
    if (x->sched == SCHED_INLINE) x->sched = SCHED_ROOT;
    if (w && w->sched == SCHED_INLINE) w->sched = SCHED_ROOT;
  }
  /* vertex values read per edge (scatter operands) that cost more than a load to recompute */
  for (int i = 0; i < F->n; i++) {
    Value *v = m->vals.items[i];
    for (int a = 0; a < v->nargs; a++) {
      Value *x = v->args[a];
      if (x->sched == SCHED_INLINE && reads_vertex_per_edge(v, a) && recompute_flops(x, 0) > 2) x->sched = SCHED_ROOT;
    }
  }
  /* a long chain of inline values (x+x+...+x, 10,000 terms) is cut every 48 links: kernels
   * recompute inline values recursively, and their depth is the compiler's stack */
  int *depth = calloc((size_t)F->n + 1, sizeof(int));
  for (int i = 0; i < F->n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched != SCHED_INLINE) continue;
    int d = 0;
    for (int a = 0; a < v->nargs; a++)
      if (v->args[a]->sched == SCHED_INLINE && depth[v->args[a]->id] + 1 > d) d = depth[v->args[a]->id] + 1;
    if (d > 48) v->sched = SCHED_ROOT, d = 0;
    depth[i] = d;
  }
  free(depth);
  /* forward values the backward reads: the checkpoint pass's choice (recompute: inline in the
   * backward's kernels; stash: a root); without it (-fno-recompute), every one that costs work */
  for (int i = 0; i < F->n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched != SCHED_INLINE || v->bwd || v->ckpt == CKPT_RECOMPUTE) continue;
    for (int u = 0; u < F->users[i].len; u++) {
      Value *w = F->users[i].items[u];
      if (w->bwd && (v->ckpt == CKPT_STASH || recompute_flops(v, 0) > 0)) v->sched = SCHED_ROOT;
    }
  }
}

/* ---------------------------------------------------------------- the attention backward */

/* dropout(y) with the same mask as dropout(x, stream) would draw: the same stream, p and shape. */
static bool same_dropout(const Value *d, const Value *x, const Value *ref) {
  return d->op == ref->op && d->fn == FN_DROPOUT && ref->fn == FN_DROPOUT && d->iattr == ref->iattr && d->fattr == ref->fattr &&
         shape_eq(&d->shape, &ref->shape) && d->args[0] == x;
}

/* The forward value v is, or recomputes (a backward copy made by checkpoint). */
static const Value *orig(const Value *v) { return v->recomputes ? v->recomputes : v; }

/* Recognises t_v = sum_u alpha'_uv <X_u, G_v>_h (the backward of edge_softmax under an
 * attention aggregate out_v = sum_u alpha'_uv X_u, with alpha' = dropout(alpha) or alpha) as
 *   gather.sum(mul(dropout?(sum_last(u_mul_v(X, G))), alpha))
 * and returns out (the forward aggregate.sum.u_mul_e(X, alpha')), or NULL: then
 * t_v = sum_last(G_v * out_v) per head, with no pass over the edges. dalpha gets the per-edge
 * values of d(alpha) = dropout?(sum_last(u_mul_v(X, G))): u_mul_v, sum_last, dropout or NULL. */
static Value *attention_tv(Fuse *F, const Value *g, Value **G, Value **dalpha) {
  if (g->op != OP_GATHER || g->fn != FN_SUM || g->iattr != GATHER_BY_DST) return NULL;
  const Value *mul = g->args[0];
  if (mul->op != OP_APPLY_EDGE || mul->fn != FN_MUL) return NULL;
  for (int side = 0; side < 2; side++) {
    const Value *d = mul->args[side], *alpha = mul->args[1 - side], *sl = d, *drop = NULL;
    if (d->op == OP_APPLY_EDGE && d->fn == FN_DROPOUT) drop = d, sl = d->args[0];
    if (sl->op != OP_APPLY_EDGE || sl->fn != FN_SUM_LAST) continue;
    const Value *sc = sl->args[0];
    if (sc->op != OP_SCATTER || sc->fn != FN_U_MUL_V || !shape_eq(&sc->args[0]->shape, &sc->args[1]->shape)) continue;
    if (!shape_eq(&alpha->shape, &sl->shape) || alpha->dom != DOM_EDGE) continue;
    Value *X = sc->args[0];
    /* the forward aggregate of X weighted by alpha (through the same dropout) */
    for (int u = 0; u < F->users[X->id].len; u++) {
      Value *agg = F->users[X->id].items[u];
      if (agg->op != OP_AGGREGATE || agg->fn != FN_SUM || agg->msg != FN_U_MUL_E || agg->args[0] != X) continue;
      const Value *w = agg->args[1];
      bool ok = drop ? same_dropout(w, orig(alpha), drop) : w == orig(alpha);
      if (!ok || !shape_eq(&agg->shape, &X->shape)) continue;
      *G = sc->args[1];
      dalpha[0] = (Value *)sc, dalpha[1] = (Value *)sl, dalpha[2] = (Value *)drop;
      return agg;
    }
  }
  return NULL;
}

/* Rewrites every such t_v; returns true if any. The new values go where the gather was. */
static bool rewrite_attention_backward(Fuse *F) {
  Module *m = F->m;
  bool changed = false;
  for (int i = 0; i < m->vals.len; i++) {
    Value *g = m->vals.items[i], *G = NULL, *dalpha[3] = {NULL, NULL, NULL};
    Value *out = attention_tv(F, g, &G, dalpha);
    if (!out || out->bwd || !g->bwd) continue;
    const char *why = NULL;
    Value *args[2] = {G, out};
    int before = m->vals.len;
    Value *prod = ir_make(m, OP_APPLY_VERTEX, FN_MUL, args, 2, 0, 0, g->loc, &why);
    Value *tv = prod ? ir_make(m, OP_APPLY_VERTEX, FN_SUM_LAST, &prod, 1, 0, 0, g->loc, &why) : NULL;
    if (!tv || !shape_eq(&tv->shape, &g->shape)) {
      m->vals.len = before;
      continue;
    }
    prod->bwd = tv->bwd = true;
    /* d(score) = alpha * (d(alpha) - t_v) cancels to 0 where one edge carries the attention
     * (alpha = 1): both terms in float64, from out_v unrounded (a float64 stash), keep that 0
     * exact, as the unfused sum_u alpha * d(alpha) does in float32 */
    prod->f64 = tv->f64 = out->f64 = true;
    prod->reads_f64_stash = true;
    if (out->args[1]->fn == FN_DROPOUT) out->args[1]->f64 = true; /* alpha' = alpha * 1/(1-p), unrounded */
    for (int d = 0; d < 3; d++)
      if (dalpha[d]) dalpha[d]->f64 = true;
    /* move the two new values to the gather's place (operands before uses) */
    for (int k = m->vals.len - 1; k >= i + 2; k--) m->vals.items[k] = m->vals.items[k - 2];
    m->vals.items[i] = prod;
    m->vals.items[i + 1] = tv;
    g->repl = tv;
    g->dead = true;
    changed = true;
    i += 2;
  }
  if (!changed) return false;
  module_replace_uses(m);
  module_count_uses(m);
  /* drop what only the gather read */
  for (bool again = true; again;) {
    again = false;
    for (int i = m->vals.len - 1; i >= 0; i--) {
      Value *v = m->vals.items[i];
      if (v->dead || v->nuses || is_leaf(v) || v->op == OP_INPUT) continue;
      bool out = false;
      for (int o = 0; o < m->nouts; o++) out |= m->outs[o].val == v;
      if (out) continue;
      v->dead = true;
      for (int a = 0; a < v->nargs; a++) v->args[a]->nuses--;
      again = true;
    }
  }
  module_compact(m);
  module_count_uses(m);
  /* a backward copy of a float64 value (t_v's copy_v to the edges, a view of it) is float64 too:
   * kernels round a value that is not to float where they make it */
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    bool copy = (v->op == OP_SCATTER && (v->fn == FN_COPY_U || v->fn == FN_COPY_V)) ||
                ((v->op == OP_APPLY_VERTEX || v->op == OP_APPLY_EDGE || v->op == OP_APPLY_GLOBAL) &&
                 (v->fn == FN_FLATTEN || v->fn == FN_RESHAPE || v->fn == FN_REPEAT || v->fn == FN_SLICE));
    if (copy && v->bwd && v->args[0]->f64) v->f64 = true;
  }
  return true;
}

/* ---------------------------------------------------------------- attention dots into the GEMM */

/* FLOPs that one byte of memory traffic is worth on the GPU the code is for (an H100: about
 * 67 TFLOP/s of float32 against 3.35 TB/s of HBM): the exchange rate of the fold's cost model.
 * The kernel IR is the same for every target, so the host library folds what the GPU's does. */
#define FOLD_BALANCE 20.0

/* A global operand that the weight kernel of a fold computes at any element: a leaf, or inline
 * functions of leaves (a parameter's slice). */
static bool weight_computable(const Value *a, int depth) {
  if (a->dom != DOM_GLOBAL && a->dom != DOM_PARAM) return false;
  if (is_leaf(a)) return true;
  if (depth > 8 || a->sched != SCHED_INLINE) return false;
  for (int i = 0; i < a->nargs; i++)
    if (!weight_computable(a->args[i], depth + 1)) return false;
  return true;
}

static bool read_by_gemm(const Fuse *F, const Value *v) {
  for (int u = 0; u < F->users[v->id].len; u++)
    if (((const Value *)F->users[v->id].items[u])->sched == SCHED_LIBRARY) return true;
  return false;
}

/* d = dot(a, h) per head (a global [.., D] of h's shape, summed over the last axis), that the
 * GEMM making h can compute as columns: its global operand, or NULL. */
static const Value *foldable_dot(const Fuse *F, const Value *d, const Value *h) {
  if (d->op != OP_APPLY_VERTEX || d->fn != FN_DOT || d->nargs != 2 || d->args[0] == d->args[1]) return NULL;
  const Value *a = d->args[0] == h ? d->args[1] : d->args[1] == h ? d->args[0] : NULL;
  if (!a || !shape_eq(&a->shape, &h->shape) || !weight_computable(a, 0)) return NULL;
  if (shape_elems(&d->shape) * h->shape.d[h->shape.rank - 1] != shape_elems(&h->shape)) return NULL;
  if (F->is_out[d->id] || d->bwd != h->bwd || read_by_gemm(F, d)) return NULL;
  if (d->sched != SCHED_INLINE && d->sched != SCHED_ROOT) return NULL;
  return a;
}

/* GAT's attention dots e_l = a_l . (x W), e_r = a_r . (x W), per head, as extra columns of the
 * projection: one GEMM x . [W | W.a_l | W.a_r] (the weight kernel makes the K x (HD + 2H)
 * matrix first, K rows in parallel) writes h and the dots side by side, and no kernel reads h
 * again for them. The cost model: the GEMM does 2 K (2H) more FLOPs a vertex; the dots' own
 * kernel would read h, 4 HD bytes a vertex. Fold when the FLOPs cost less than the bytes at
 * FOLD_BALANCE (or always, or never: --fold-attention). The folded dots are roots in h's group
 * and buffer; the backward is unchanged (it reads them there). */
static void fold_attention_dots(Fuse *F) {
  Module *m = F->m;
  GnnCtx *c = F->c;
  if (c->fold_dots == FOLD_NEVER) return;
  Value **dots = malloc(sizeof(Value *) * ((size_t)F->n + 1));
  for (int i = 0; i < F->n; i++) {
    Value *h = m->vals.items[i];
    if (h->sched != SCHED_LIBRARY || h->op != OP_APPLY_VERTEX || h->fn != FN_LINEAR || h->dom != DOM_VERTEX) continue;
    const Value *x = h->args[0], *w = h->args[1];
    if (w->op != OP_PARAM || shape_elems(&x->shape) != w->shape.d[0] || F->is_out[i] || read_by_gemm(F, h)) continue;
    int nd = 0;
    int64_t extra = 0;
    for (int u = 0; u < F->users[i].len; u++) {
      Value *d = F->users[i].items[u];
      bool dup = false;
      for (int k = 0; k < nd; k++) dup |= dots[k] == d;
      if (!dup && foldable_dot(F, d, h)) dots[nd++] = d, extra += shape_elems(&d->shape);
    }
    if (!nd) continue;
    double K = (double)w->shape.d[0], flops = 2 * K * (double)extra, bytes = 4 * (double)shape_elems(&h->shape);
    if (c->fold_dots == FOLD_COST && flops > FOLD_BALANCE * bytes) {
      if (c->remarks && c->diag.out) {
        fprintf(c->diag.out, "%s: remark: fuse: the dots", c->diag.path);
        for (int k = 0; k < nd; k++) fprintf(c->diag.out, " %%%d", dots[k]->id);
        fprintf(c->diag.out, " of %%%d not folded into its GEMM: %.0f more FLOPs a vertex cost more than the %.0f bytes of "
                "reading %%%d again (at %.0f FLOPs a byte; --fold-attention=always folds them)\n",
                h->id, flops, bytes, h->id, FOLD_BALANCE);
      }
      continue;
    }
    for (int k = 0; k < nd; k++) {
      dots[k]->sched = SCHED_ROOT;
      dots[k]->group = h->group;
      dots[k]->folded = true;
    }
  }
  free(dots);
}

/* ---------------------------------------------------------------- groups */

static int new_group(Fuse *F, FuseKind kind, Domain rows, int dir, bool bwd) {
  if (F->ng == F->gcap) {
    int cap = F->gcap ? 2 * F->gcap : 32;
    FuseGroup *g = arena_alloc(F->m->arena, sizeof(FuseGroup) * (size_t)cap);
    if (F->ng) memcpy(g, F->g, sizeof(FuseGroup) * (size_t)F->ng);
    F->g = g;
    F->gcap = cap;
  }
  F->g[F->ng] = (FuseGroup){.id = F->ng, .kind = kind, .rows = rows, .dir = dir, .bwd = bwd};
  return F->ng++;
}

static bool in_group(const Value *v) {
  return v->sched == SCHED_ROOT || v->sched == SCHED_ANCHOR || v->sched == SCHED_LIBRARY;
}

/* The groups whose results v's computation reads: following inline operands, the groups of the
 * anchors, roots and GEMMs it reaches (v's own group included when v is in one). */
static void producers_rec(Fuse *F, const Value *v, bool *out, bool top) {
  if (F->stamp[v->id] == F->cur) return;
  F->stamp[v->id] = F->cur;
  if (!top && in_group(v)) {
    if (v->group >= 0) out[v->group] = true;
    return;
  }
  if (is_leaf(v)) return;
  for (int i = 0; i < v->nargs; i++) producers_rec(F, v->args[i], out, false);
}
/* (a fresh visit each call: values are marked with a new stamp, not cleared) */
static void producers(Fuse *F, const Value *v, bool *out, bool top) {
  F->cur++;
  producers_rec(F, v, out, top);
}

/* The group graph as successor lists: group b reads a result of group a <=> b is among
 * to[start[a] .. start[a + 1]). Lists, not an ng x ng matrix, and one walk per question (below):
 * the merges ask once per candidate, so the pass stays near linear in the model's size (a chain of
 * 40,000 additions makes 800 groups: as a matrix, 14 s). */
typedef struct {
  int ng;
  int *start, *to;
} GroupGraph;

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* The frontier of each grouped value's inline computation (Fuse.grouped, .front). */
static void frontier_rec(Fuse *F, const Value *v, bool top, Value ***front, size_t *n, size_t *cap) {
  if (F->stamp[v->id] == F->cur) return;
  F->stamp[v->id] = F->cur;
  if (!top && in_group(v)) {
    if (*n == *cap) *front = realloc(*front, sizeof(Value *) * (*cap *= 2));
    (*front)[(*n)++] = (Value *)v;
    return;
  }
  if (is_leaf(v)) return;
  for (int i = 0; i < v->nargs; i++) frontier_rec(F, v->args[i], false, front, n, cap);
}

static void free_frontiers(Fuse *F) {
  free(F->grouped);
  free(F->front_start);
  free(F->front);
  F->grouped = NULL, F->front = NULL, F->front_start = NULL;
}

static void index_frontiers(Fuse *F) {
  free_frontiers(F);
  F->grouped = malloc(sizeof(Value *) * ((size_t)F->n + 1));
  F->front_start = malloc(sizeof(int) * ((size_t)F->n + 2));
  size_t n = 0, cap = 64;
  F->front = malloc(sizeof(Value *) * cap);
  F->ngrouped = 0;
  for (int i = 0; i < F->n; i++) {
    Value *v = F->m->vals.items[i];
    if (!in_group(v)) continue;
    F->front_start[F->ngrouped] = (int)n;
    F->grouped[F->ngrouped++] = v;
    F->cur++;
    frontier_rec(F, v, true, &F->front, &n, &cap);
  }
  F->front_start[F->ngrouped] = (int)n;
}

static GroupGraph group_graph(Fuse *F) {
  int ng = F->ng;
  GroupGraph gg = {.ng = ng, .start = calloc((size_t)ng + 2, sizeof(int))};
  size_t ne = 0, cap = 64;
  uint64_t *edges = malloc(sizeof(uint64_t) * cap); /* a << 32 | b */
  for (int k = 0; k < F->ngrouped; k++) {
    const Value *v = F->grouped[k];
    if (v->group < 0) continue;
    for (int f = F->front_start[k]; f < F->front_start[k + 1]; f++) {
      int a = F->front[f]->group;
      if (a < 0 || a == v->group) continue;
      if (ne == cap) edges = realloc(edges, sizeof(uint64_t) * (cap *= 2));
      edges[ne++] = (uint64_t)a << 32 | (uint32_t)v->group;
    }
  }
  qsort(edges, ne, sizeof(uint64_t), cmp_u64);
  gg.to = malloc(sizeof(int) * (ne + 1));
  size_t nu = 0;
  for (size_t e = 0; e < ne; e++) {
    if (e && edges[e] == edges[e - 1]) continue;
    gg.start[(edges[e] >> 32) + 1]++;
    gg.to[nu++] = (int)(uint32_t)edges[e];
  }
  for (int g = 0; g < ng; g++) gg.start[g + 1] += gg.start[g];
  free(edges);
  return gg;
}

static void group_graph_free(GroupGraph *gg) {
  free(gg->start);
  free(gg->to);
}

/* Whether a path leads from a successor x != t of s to t (so s -> x -> ... -> t). One
 * depth-first walk for all of s's successors: a group it has left without finding t cannot
 * reach t, whichever successor it came from. */
static bool reach_through_other(const GroupGraph *gg, int s, int t) {
  bool *vis = calloc((size_t)gg->ng + 1, 1), found = false;
  int *stack = malloc(sizeof(int) * ((size_t)gg->ng + 1)), top = 0;
  for (int e = gg->start[s]; e < gg->start[s + 1] && !found; e++) {
    int x = gg->to[e];
    if (x == t || vis[x]) continue;
    vis[x] = true;
    stack[top++] = x;
    while (top && !found) {
      int y = stack[--top];
      for (int f = gg->start[y]; f < gg->start[y + 1]; f++) {
        int z = gg->to[f];
        if (z == t) { found = true; break; }
        if (!vis[z]) vis[z] = true, stack[top++] = z;
      }
    }
  }
  free(vis);
  free(stack);
  return found;
}

/* No path a -> x -> ... -> b (or b -> ... -> a) through another group x: merging a and b keeps
 * the group graph acyclic. */
static bool merge_acyclic(Fuse *F, int a, int b) {
  GroupGraph gg = group_graph(F);
  bool bad = reach_through_other(&gg, a, b) || reach_through_other(&gg, b, a);
  group_graph_free(&gg);
  return !bad;
}

/* FLOPs per element of v's inline computation once the groups are made: what another group
 * made (an anchor or a root) is a load. */
static double inline_flops(const Value *v, int depth) {
  if (is_leaf(v) || in_group(v)) return 0;
  if (depth > 24) return 1e9;
  double f = elem_flops(v);
  for (int i = 0; i < v->nargs && f < 1e6; i++) f += inline_flops(v->args[i], depth + 1);
  return f;
}

/* Whether anything group `a` or `b` reads at the far end of an edge (another vertex's value)
 * would come from the merged group: such a value is not complete while the kernel runs. */
static bool far_reads_group(Fuse *F, const Value *v, int a, int b, int dir, bool *seen, int depth) {
  if (depth > 256 || is_leaf(v)) return false;
  for (int i = 0; i < v->nargs; i++) {
    Value *x = v->args[i];
    if (reads_far(v, i, dir)) {
      bool *pg = calloc((size_t)F->ng + 1, 1);
      producers(F, x, pg, false);
      if (in_group(x) && x->group >= 0) pg[x->group] = true;
      bool hit = pg[a] || pg[b];
      free(pg);
      if (hit) return true;
    } else if (x->sched == SCHED_INLINE && !seen[x->id]) {
      seen[x->id] = true;
      if (far_reads_group(F, x, a, b, dir, seen, depth + 1)) return true;
    }
  }
  return false;
}

static bool far_conflict(Fuse *F, int a, int b, int dir) {
  bool *seen = calloc((size_t)F->n + 1, 1);
  bool bad = false;
  for (int i = 0; i < F->n && !bad; i++) {
    Value *v = F->m->vals.items[i];
    if (in_group(v) && (v->group == a || v->group == b)) bad = far_reads_group(F, v, a, b, dir, seen, 0);
  }
  free(seen);
  return bad;
}

static void merge_into(Fuse *F, int into, int from) {
  for (int k = 0; k < F->ngrouped; k++)
    if (F->grouped[k]->group == from) F->grouped[k]->group = into;
  F->g[from].dead = true;
}

/* The sums over the rows one kernel makes: each its own float64 accumulator, block-reduced
 * (lower_sink), and a kernel has at most this many block-reduced targets (kverify). */
enum { SINK_MAX = 8 };

static int group_size(const Fuse *F, int g) {
  int n = 0;
  for (int i = 0; i < F->n; i++) {
    const Value *v = F->m->vals.items[i];
    n += in_group(v) && v->group == g;
  }
  return n;
}

static bool can_merge(Fuse *F, int a, int b) {
  FuseGroup *ga = &F->g[a], *gb = &F->g[b];
  if (a == b || ga->dead || gb->dead || ga->kind != gb->kind || ga->bwd != gb->bwd) return false;
  if (ga->kind == FG_WALK && ga->dir != gb->dir) return false;
  if (ga->kind == FG_ROWS && ga->rows != gb->rows) return false;
  if (ga->kind == FG_SINK && ga->rows != gb->rows) return false;
  if (ga->kind == FG_SINK && group_size(F, a) + group_size(F, b) > SINK_MAX) return false;
  if (ga->kind != FG_WALK && ga->kind != FG_ROWS && ga->kind != FG_SINK) return false;
  if (ga->kind == FG_WALK && far_conflict(F, a, b, ga->dir)) return false;
  if (ga->kind == FG_ROWS && gb->kind == FG_ROWS && ga->rows == DOM_VERTEX) {
    /* rows of vertex values: a value read through a scatter at another vertex cannot be made
     * in the same kernel as its reader (other rows are not done); rows kernels have no edges,
     * so only the acyclicity test applies */
  }
  return merge_acyclic(F, a, b);
}

/* The rows group a sum group s can join: the latest of its pass over the same rows with room for
 * s's sums (SINK_MAX) and no group that would have to run between them, among those that make a
 * root the sums read (GCN's bias gradient, the sum of the ReLU gradient's rows: 51 MB read back
 * by a kernel of its own on the 200k R-MAT graph, summed in cache instead); or, when the sums
 * read nothing a group makes (grad.out's sum: an input, in memory throughout), among all. -1 if
 * none. Over vertex rows only: no model so far has an edge rows group whose roots a sum reads. */
static int sink_host(Fuse *F, int s) {
  const FuseGroup *gs = &F->g[s];
  if (gs->dead || gs->kind != FG_SINK || gs->rows != DOM_VERTEX) return -1;
  bool *pg = calloc((size_t)F->ng + 1, 1), leaves_only = true;
  int *nsink = calloc((size_t)F->ng + 1, sizeof(int));
  for (int i = 0; i < F->n; i++) {
    Value *v = F->m->vals.items[i];
    if (!in_group(v) || v->group < 0) continue;
    if (v->group == s) producers(F, v, pg, true);
    if (v->op == OP_REDUCE_ROWS) nsink[v->group]++;
  }
  for (int g = 0; g < F->ng; g++) leaves_only &= !pg[g];
  int best = -1;
  for (int r = F->ng - 1; r >= 0 && best < 0; r--) {
    const FuseGroup *gr = &F->g[r];
    if (!(pg[r] || leaves_only) || gr->dead || gr->kind != FG_ROWS || gr->rows != gs->rows || gr->bwd != gs->bwd || gr->per_graph)
      continue;
    if (nsink[r] + nsink[s] <= SINK_MAX && merge_acyclic(F, r, s)) best = r;
  }
  free(pg);
  free(nsink);
  return best;
}

/* Each sum group that sink_host places joins that rows group. */
static void sinks_join_rows(Fuse *F) {
  for (int s = 0; s < F->ng; s++) {
    int into = sink_host(F, s);
    if (into >= 0) merge_into(F, into, s);
  }
}

/* The walk group (same pass) that v's inline computation reaches and that was made last:
 * the group whose results v needs last. -1 if none. */
static int latest_dep_group(Fuse *F, Value *v) {
  bool *pg = calloc((size_t)F->ng + 1, 1);
  producers(F, v, pg, true);
  int best = -1;
  if (v->dom != DOM_GLOBAL && v->dom != DOM_PARAM)
    for (int g = 0; g < F->ng; g++)
      if (pg[g] && !F->g[g].dead && F->g[g].kind == FG_WALK && F->g[g].bwd == v->bwd) best = g;
  free(pg);
  return best;
}

/* Group g reads, through another group, a result of its own: a cycle. */
static bool cycle_through(Fuse *F, int g) {
  GroupGraph gg = group_graph(F);
  bool bad = reach_through_other(&gg, g, g);
  group_graph_free(&gg);
  return bad;
}

/* Whether v's computation (its inline operands, recursively) reads x. */
static bool reaches_inline(const Value *v, const Value *x, bool *seen) {
  for (int i = 0; i < v->nargs; i++) {
    const Value *a = v->args[i];
    if (a == x) return true;
    if (a->sched == SCHED_INLINE && !seen[a->id]) {
      seen[a->id] = true;
      if (reaches_inline(a, x, seen)) return true;
    }
  }
  return false;
}

/* ---------------------------------------------------------------- ordering */

/* Kahn's algorithm over the live groups, forward before backward, ties by the smallest value. */
static bool order_groups(Fuse *F, int *order, int *norder) {
  int ng = F->ng;
  GroupGraph gg = group_graph(F);
  int *indeg = calloc((size_t)ng + 1, sizeof(int)), *first = malloc(sizeof(int) * ((size_t)ng + 1));
  bool *done = calloc((size_t)ng + 1, 1);
  for (int g = 0; g < ng; g++) first[g] = F->n;
  for (int i = 0; i < F->n; i++) {
    Value *v = F->m->vals.items[i];
    /* a rows group ranks by its roots, not by the sums that joined it (grad.out's sum, the first
     * value of a backward, would move the group ahead of steps that free buffers before it) */
    if (!in_group(v) || v->group < 0) continue;
    bool joined = v->op == OP_REDUCE_ROWS && F->g[v->group].kind == FG_ROWS;
    if (!joined && i < first[v->group]) first[v->group] = i;
  }
  for (int a = 0; a < ng; a++)
    for (int e = gg.start[a]; e < gg.start[a + 1]; e++)
      if (!F->g[a].dead && !F->g[gg.to[e]].dead) indeg[gg.to[e]]++;
  int k = 0, live = 0;
  for (int g = 0; g < ng; g++) live += !F->g[g].dead;
  while (k < live) {
    int pick = -1;
    for (int g = 0; g < ng; g++) {
      if (F->g[g].dead || done[g] || indeg[g]) continue;
      if (pick < 0 || F->g[g].bwd < F->g[pick].bwd || (F->g[g].bwd == F->g[pick].bwd && first[g] < first[pick])) pick = g;
    }
    if (pick < 0) break;
    done[pick] = true;
    order[k++] = pick;
    for (int e = gg.start[pick]; e < gg.start[pick + 1]; e++)
      if (!F->g[gg.to[e]].dead) indeg[gg.to[e]]--;
  }
  *norder = k;
  group_graph_free(&gg);
  free(indeg);
  free(first);
  free(done);
  return k == live;
}

static void unfuse(Module *m) {
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    v->sched = SCHED_UNFUSED;
    v->group = 0;
    /* the unfused lowering keeps float32 buffers: a rewritten t_v = <g, out> there is float32
     * (the fallback after a cycle, which asks for a report) */
    v->f64 = v->reads_f64_stash = v->folded = false;
  }
  m->groups = NULL;
  m->ngroups = 0;
  m->fused = false;
}

static void index_users(Fuse *F) {
  Module *m = F->m;
  F->n = m->vals.len;
  F->users = arena_alloc(m->arena, sizeof(PtrVec) * ((size_t)F->n + 1));
  F->stamp = arena_alloc(m->arena, sizeof(int) * ((size_t)F->n + 1));
  F->cur = 0;
  F->is_out = arena_alloc(m->arena, (size_t)F->n + 1);
  for (int i = 0; i < F->n; i++) {
    Value *v = m->vals.items[i];
    for (int a = 0; a < v->nargs; a++) vec_push(m->arena, &F->users[v->args[a]->id], v);
  }
  for (int i = 0; i < m->nouts; i++) F->is_out[m->outs[i].val->id] = true;
}

/* Graph values (readouts over a batch of graphs) and broadcasts (u[graph]; batch_norm's
 * statistics, a global value read by every vertex) are not fused yet: such a module runs one
 * kernel per operator, as with -fno-fuse. */
static bool has_graph_values(const Module *m) {
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    if (v->dom == DOM_GRAPH || v->op == OP_BROADCAST) return true;
  }
  return false;
}

/* --edge-balanced names values by id: say which names are not reductions over edges (a note,
 * never an error: a plan written for one module may be applied to a variant of it). */
static void note_unknown_edge_ids(GnnCtx *c, const Module *m) {
  for (int k = 0; k < c->nedge_ids; k++) {
    const Value *v = NULL;
    for (int i = 0; i < m->vals.len && !v; i++)
      if (((const Value *)m->vals.items[i])->id == c->edge_ids[k]) v = m->vals.items[i];
    if (!v)
      fprintf(c->diag.out, "%s: note: --edge-balanced: the module has no value %%%d; ignored\n", c->diag.path, c->edge_ids[k]);
    else if (v->sched != SCHED_ANCHOR || v->op == OP_REDUCE_ROWS)
      fprintf(c->diag.out, "%s: note: --edge-balanced: %%%d %s.%s is not a reduction over the edges of a vertex; ignored\n",
              c->diag.path, v->id, op_info[v->op].name, fn_info[v->fn].name);
  }
}

bool pass_fuse(GnnCtx *c, Module *m) {
  if (has_graph_values(m)) {
    unfuse(m);
    return false;
  }
  module_count_uses(m);
  Fuse F = {.c = c, .m = m};
  index_users(&F);
  /* 0. the algebra fusion needs: t_v of the attention backward without an edge pass */
  if (rewrite_attention_backward(&F)) index_users(&F);
  bool edge_map = c->mapping == MAPPING_EDGE;

  /* 1. leaves, GEMMs, anchors, sinks; element-wise values inline for now */
  for (int i = 0; i < F.n; i++) {
    Value *v = m->vals.items[i];
    if (is_leaf(v)) v->sched = SCHED_LEAF;
    else if (is_gemm(v) || is_spmm(&F, v)) v->sched = SCHED_LIBRARY;
    else if (is_walk_anchor(v) || v->op == OP_REDUCE_ROWS) v->sched = SCHED_ANCHOR;
    else v->sched = SCHED_INLINE;
    v->group = -1;
    v->folded = false;
  }
  /* 2. roots */
  mark_roots(&F);
  /* 3. one group per anchor and GEMM, in value order */
  for (int i = 0; i < F.n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched == SCHED_LIBRARY) {
      v->group = new_group(&F, is_gemm(v) ? FG_GEMM : FG_SPMM, v->dom, is_gemm(v) ? 0 : anchor_dir(v), v->bwd);
    } else if (v->sched == SCHED_ANCHOR && v->op == OP_REDUCE_ROWS) {
      v->group = new_group(&F, FG_SINK, v->args[0]->dom, 0, v->bwd);
    } else if (v->sched == SCHED_ANCHOR) {
      bool must_vertex = v->op == OP_REDUCE_SCATTER || v->fn == FN_ARGMAX || v->fn == FN_ARGMIN;
      bool stat = v->stat_of != NULL; /* a softmax statistic: free in its softmax's vertex walk */
      bool named = ctx_edge_balanced(c, v->id);
      if ((edge_map || named) && !must_vertex && !stat) {
        v->group = new_group(&F, FG_EDGE_REDUCE, DOM_EDGE, anchor_dir(v), v->bwd);
      } else {
        if ((edge_map || named) && (!stat || named) && c->diag.out)
          fprintf(c->diag.out, "%s: note: %%%d %s.%s runs vertex-balanced although %s: %s\n", c->diag.path, v->id,
                  op_info[v->op].name, fn_info[v->fn].name, named ? "--edge-balanced names it" : "--mapping=edge",
                  stat                       ? "it is a statistic of an edge_softmax, computed in the softmax's own walk"
                  : v->op == OP_REDUCE_SCATTER ? "edge_softmax normalises over all in-edges of a vertex, which one group must see together"
                                               : "the index of the extremum needs every edge of the vertex in one group");
        v->group = new_group(&F, FG_WALK, DOM_VERTEX, anchor_dir(v), v->bwd);
      }
    }
  }
  if (c->diag.out) note_unknown_edge_ids(c, m);
  /* 3b. attention dots folded into their GEMM, where the cost model says so */
  fold_attention_dots(&F);
  index_frontiers(&F);
  /* 4. roots join the latest walk whose results they use (unless that would need a step
   * between the walk and itself), or rows groups of their own */
  for (int i = 0; i < F.n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched != SCHED_ROOT || v->folded) continue;
    v->group = latest_dep_group(&F, v);
    if (v->group >= 0 && cycle_through(&F, v->group)) v->group = -1;
    if (v->group >= 0 && v->dom == DOM_EDGE) { /* an edge value stored in the walk reads its ends there */
      bool *seen = calloc((size_t)F.n + 1, 1);
      if (far_reads_group(&F, v, v->group, v->group, F.g[v->group].dir, seen, 0)) v->group = -1;
      free(seen);
    }
    if (v->group < 0) v->group = new_group(&F, FG_ROWS, v->dom == DOM_PARAM ? DOM_GLOBAL : v->dom, 0, v->bwd);
  }
  /* 5. walks of the same direction merge, each into the latest earlier group it can join; then
   * rows groups of the same domain; then each sum over the rows joins the rows group that makes
   * what it sums (one that reads only leaves: a rows group of its pass, one pass over the rows
   * fewer), and the other sums of the same domain merge */
  for (int pass = 0; pass < 3; pass++) {
    FuseKind kind = pass == 2 ? FG_SINK : pass ? FG_ROWS : FG_WALK;
    if (kind == FG_SINK) sinks_join_rows(&F);
    for (int b = 0; b < F.ng; b++) {
      if (F.g[b].dead || F.g[b].kind != kind) continue;
      int tries = 0; /* the 8 nearest candidates: merging is quadratic in the groups otherwise */
      for (int a = b - 1; a >= 0 && tries < 8; a--) {
        if (F.g[a].dead || F.g[a].kind != kind || F.g[a].bwd != F.g[b].bwd) continue;
        tries++;
        if (can_merge(&F, a, b)) {
          merge_into(&F, a, b);
          break;
        }
        if (kind == FG_WALK && c->remarks && c->diag.out && F.g[a].dir == F.g[b].dir)
          fprintf(c->diag.out, "%s: remark: fuse: group %d not merged into group %d: a value one reads at the far end of an "
                  "edge, or a step that must run between them, depends on the other\n", c->diag.path, b, a);
      }
    }
  }
  /* 6. an edge value that kernels of two groups of the same pass would each recompute at more
   * than 32 FLOPs per element (the score gradient of a GAT with wide heads, read by the
   * backward's walks over in-edges and over out-edges): computed once by an edge rows kernel */
  bool *seen6 = calloc((size_t)F.n + 1, 1);
  for (int i = 0; i < F.n; i++) {
    Value *v = m->vals.items[i];
    if (v->sched != SCHED_INLINE || v->dom != DOM_EDGE || inline_flops(v, 0) <= 32) continue;
    /* not a float64 value (8 bytes an element): a float one made from it is stored instead, d(alpha)
     * - t_v of the attention backward rather than d(alpha) */
    if (v->f64) continue;
    int readers = 0, first = -1;
    for (int j = i + 1; j < F.n && readers < 2; j++) {
      Value *w = m->vals.items[j];
      if (!in_group(w) || w->group < 0 || w->group == first || w->bwd != v->bwd) continue; /* across passes: recomputed */
      memset(seen6, 0, (size_t)F.n + 1);
      if (reaches_inline(w, v, seen6)) {
        if (first < 0) first = w->group;
        readers++;
      }
    }
    if (readers < 2) continue;
    v->sched = SCHED_ROOT;
    v->group = new_group(&F, FG_ROWS, DOM_EDGE, 0, v->bwd);
    index_frontiers(&F);
    if (cycle_through(&F, v->group)) { /* a reader's group also makes its operands: recompute after all */
      F.g[v->group].dead = true;
      v->sched = SCHED_INLINE;
      v->group = -1;
      index_frontiers(&F);
    }
  }
  free(seen6);
  int *order = malloc(sizeof(int) * ((size_t)F.ng + 1)), norder = 0;
  if (!order_groups(&F, order, &norder)) {
    if (c->diag.out)
      fprintf(c->diag.out, "%s: note: fuse: the fused groups would form a cycle; compiling unfused (please report this model)\n",
              c->diag.path);
    free(order);
    free_frontiers(&F);
    unfuse(m);
    return false;
  }
  /* renumber: groups in execution order, 0 .. norder-1 */
  int *newid = malloc(sizeof(int) * ((size_t)F.ng + 1));
  FuseGroup *gs = arena_alloc(m->arena, sizeof(FuseGroup) * ((size_t)norder + 1));
  for (int k = 0; k < norder; k++) {
    newid[order[k]] = k;
    gs[k] = F.g[order[k]];
    gs[k].id = k;
    gs[k].order = k;
  }
  for (int i = 0; i < F.n; i++) {
    Value *v = m->vals.items[i];
    if (in_group(v)) v->group = newid[v->group];
    else v->group = -1;
  }
  free(order);
  free(newid);
  free_frontiers(&F);
  m->groups = gs;
  m->ngroups = norder;
  m->fused = true;
  return true;
}
