/* lower_op.c -- one kernel (or GEMM step) per operator: the unfused lowering, and the pieces
 * of a kernel that the fused lowerings reuse.
 *
 * Requires: the value's operands and result in buffers (lower.c made them). This is the
 * unfused baseline: every graph operator and every Apply becomes its own kernel, reading its
 * operands from memory and writing its result; dense projections (linear, linear_t,
 * reduce_rows.matmul_tn) become GEMM steps. The kernels are built from the same pieces a fused
 * group will use (one mapping, lanes over elements, uniform edge loops, register
 * accumulators), and the fused lowerings (lower_fused.c, lower_groups.c, lower_walk.c) reuse them: the element functions
 * (fn_elem), the edge walks, the reductions' finishing rows and the GEMM step. The thread
 * mapping of each value is the caller's decision (lower_op_value's edge_map), not this file's.
 * It builds with kbuild.c and calls nothing above it; lower_op.h declares it.
 *
 * Thread mappings (docs/kernel-ir.md):
 *   vertex-balanced (MAP_VERTEX): a group of G lanes per vertex walks the vertex's in-edges
 *     (CSR; or its out-edges, CSC, for a gather by src) in chunks of G: the lanes first copy
 *     the chunk's edge ids and far-end vertex ids into shared memory (one coalesced load each,
 *     GE-SpMM's row caching), a barrier, then every lane walks the chunk for its elements,
 *     accumulating in registers. No atomics; the result is written once.
 *   edge-balanced (MAP_EDGE): a group per edge; a vertex result is accumulated with atomics
 *     after a zero (or +-inf) fill, and a vertex without edges is fixed to 0 afterwards.
 *   rows (an Apply or a Scatter): a group per row of the result, lanes over its elements.
 * Lanes take elements k = lane, lane + G, ...; G is the smallest power of two >= the row
 * width, at most 32 (a warp). A reduction over a long last dim with few outputs (dot,
 * sum_last) instead spreads the reduced dim over the lanes and combines them with a group
 * reduction (warp shuffles).
 *
 * edge_softmax and gather.argmax/argmin need all the edges of a vertex in one group, so they
 * are always vertex-balanced; with --mapping=edge the compiler says so in a note.
 *
 * Sums over edges and rows accumulate in float64: registers in the vertex-balanced kernels, a
 * scratch buffer of doubles for the atomics of the edge-balanced ones (atomicAdd on double is
 * native since sm_60). A float32 running sum over a hub's 10,000 in-edges loses about
 * sqrt(n)..n units in the last place; the double keeps the result within float32 rounding of
 * the exact sum, whatever order the edges (or the atomics) come in.
 */
#include "lower_op.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- element expressions */


static KExpr *read_buffer(Lower *L, Kernel *k, const Reader *r, int i, KExpr *idx) {
  const Value *a = r->args[i];
  if (a->op == OP_CONST) return kf(L, a->fattr);
  return kload(L, k, L->buf_of[a->id], r->rows[i], idx);
}

/* Operand element for result element idx under prefix broadcasting: a k-element operand
 * inside an n-element result is read at idx / (n / k). */
KExpr *bcast(Lower *L, KExpr *idx, int64_t n, int64_t na) {
  return na == n ? idx : na == 1 ? ki(L, 0) : kbin(L, KO_DIV, idx, ki(L, n / na));
}

/* The apply-function equivalent of a scatter or aggregate-message function. */
FnKind as_apply(FnKind f) {
  switch (f) {
  case FN_U_ADD_V: case FN_U_ADD_E: return FN_ADD;
  case FN_U_SUB_V: return FN_SUB;
  case FN_U_MUL_V: case FN_U_MUL_E: return FN_MUL;
  case FN_U_DIV_V: return FN_DIV;
  case FN_U_DOT_V: return FN_DOT;
  case FN_U_CONCAT_V: return FN_CONCAT;
  case FN_COPY_U: case FN_COPY_V: case FN_COPY_E: return FN_FLATTEN; /* identity */
  default: return f;
  }
}

/* A float accumulation loop: acc = 0; for (j = 0; j < n; j++) acc += term(j). The caller
 * builds the term from the loop variable. Returns the local holding the result. */

int sum_loop(Lower *L, Kernel *k, PtrVec *blk, const Reader *r, const Value *v, KExpr *outer, int64_t n,
                    TermFn term, const char *name) {
  int acc = add_local(L, k, name, v->f64 ? KT_F64 : KT_F32, 0, false);
  ks_let(L, blk, acc, NULL, kf(L, 0));
  int j = add_local(L, k, "j", KT_I64, 0, false);
  ElemLoop prev;
  PtrVec *body = ks_row_loop(L, k, blk, j, n, &prev), *saved = L->cur_blk;
  L->cur_blk = body; /* what the term needs (a fused operand's own loops) goes inside the loop */
  KExpr *t = term(L, k, r, v, outer, kvar(L, k, j, NULL));
  L->cur_blk = saved;
  ks_end_row_loop(L, prev);
  ks_let(L, body, acc, NULL, kbin(L, KO_ADD, kvar(L, k, acc, NULL), t));
  return acc;
}

/* dot: a . b over the last dim of the longer (broadcast) shape; outer = output element. */
static KExpr *dot_term(Lower *L, Kernel *k, const Reader *r, const Value *v, KExpr *o, KExpr *j) {
  const Shape *sa = &r->args[0]->shape, *sb = &r->args[1]->shape;
  const Shape *l = sa->rank >= sb->rank ? sa : sb;
  int64_t Ln = l->d[l->rank - 1], nl = shape_elems(l);
  (void)v;
  KExpr *flat = kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, Ln)), j);
  return kbin(L, KO_MUL, r->read(L, k, r, 0, bcast(L, flat, nl, shape_elems(sa))),
              r->read(L, k, r, 1, bcast(L, flat, nl, shape_elems(sb))));
}
static KExpr *heads_term(Lower *L, Kernel *k, const Reader *r, const Value *v, KExpr *o, KExpr *h) {
  return r->read(L, k, r, 0, kbin(L, KO_ADD, kbin(L, KO_MUL, h, ki(L, shape_elems(&v->shape))), o));
}
static KExpr *linear_term(Lower *L, Kernel *k, const Reader *r, const Value *v, KExpr *o, KExpr *j) {
  int64_t K = r->args[1]->shape.d[0], C = shape_elems(&r->args[1]->shape) / K;
  (void)v;
  KExpr *lead = kbin(L, KO_DIV, o, ki(L, C)), *c = kbin(L, KO_MOD, o, ki(L, C));
  return kbin(L, KO_MUL, r->read(L, k, r, 0, kbin(L, KO_ADD, kbin(L, KO_MUL, lead, ki(L, K)), j)),
              r->read(L, k, r, 1, kbin(L, KO_ADD, kbin(L, KO_MUL, j, ki(L, C)), c)));
}
static KExpr *last_term(Lower *L, Kernel *k, const Reader *r, const Value *v, KExpr *o, KExpr *j) {
  const Shape *sa = &r->args[0]->shape;
  (void)v;
  return r->read(L, k, r, 0, kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, sa->d[sa->rank - 1])), j));
}

/* A shared array of kernel k named base<id> (base<id>_2, ... where the kernel has one). */
static int unique_shared(Lower *L, Kernel *k, const char *base, int id, KType t, int len) {
  const char *name = arena_printf(L->a, "%s%d", base, id);
  for (int n = 2, s = 0; s < k->nshared;)
    if (strcmp(k->shared[s].name, name) == 0) name = arena_printf(L->a, "%s%d_%d", base, id, n++), s = 0;
    else s++;
  return add_shared(L, k, name, t, len);
}

/* The max (into local mx) and the sum of exp(x - max) (into se) of the row of log_softmax's
 * operand from element base: two loops over the row, in blk, in the order every placement uses
 * (the same bits). What a fused operand needs goes inside the loops (its own row's loops before). */
static void row_stats(Lower *L, Kernel *k, PtrVec *blk, const Reader *r, KExpr *base, int64_t Ln, int mx, int se) {
  int j = add_local(L, k, "j", KT_I64, 0, false);
  ks_let(L, blk, mx, NULL, kf(L, -INFINITY));
  ElemLoop prev;
  PtrVec *b1 = ks_row_loop(L, k, blk, j, Ln, &prev), *saved = L->cur_blk;
  L->cur_blk = b1;
  KExpr *a1 = r->read(L, k, r, 0, kbin(L, KO_ADD, base, kvar(L, k, j, NULL)));
  ks_let(L, b1, mx, NULL, kbin(L, KO_MAX, kvar(L, k, mx, NULL), a1));
  ks_let(L, blk, se, NULL, kf(L, 0));
  ks_end_row_loop(L, prev);
  PtrVec *b2 = ks_row_loop(L, k, blk, j, Ln, &prev);
  L->cur_blk = b2;
  KExpr *a2 = r->read(L, k, r, 0, kbin(L, KO_ADD, base, kvar(L, k, j, NULL)));
  ks_let(L, b2, se, NULL, kbin(L, KO_ADD, kvar(L, k, se, NULL), kun(L, KU_EXP, kbin(L, KO_SUB, a2, kvar(L, k, mx, NULL)))));
  L->cur_blk = saved;
  ks_end_row_loop(L, prev);
}

/* Whether e reads local var (or, vars non-NULL, any local that vars[] marks). */
static bool reads_local(const KExpr *e, int var, const bool *vars) {
  if (!e) return false;
  if (e->kind == KE_VAR && (e->var == var || (vars && vars[e->var]))) return true;
  return reads_local(e->a, var, vars) || reads_local(e->b, var, vars) || reads_local(e->c, var, vars);
}
static void mark_assigned(const PtrVec *blk, bool *vars) {
  for (int i = 0; i < blk->len; i++) {
    const KStmt *s = blk->items[i];
    if (s->kind == KS_LET || s->kind == KS_FOR || s->kind == KS_FOR_LANES) vars[s->var] = true;
    if (s->kind == KS_FOR_LANES) vars[s->var2] = true;
    mark_assigned(&s->body, vars);
  }
}

/* Where element idx, read in the body of row loop `loop` (for j = 0 to n), is base + j with base a
 * multiple of Ln and n <= Ln, every trip reads one row of Ln elements, from base (the same before
 * the loop: it reads no local that the loop's body sets): that base; else NULL. A row loop over
 * the row of another value of the same last dim reads a log_softmax so (its dot, its own max). */
static KExpr *row_loop_base(Lower *L, const Kernel *k, const KStmt *loop, const KExpr *idx, int64_t Ln) {
  if (loop->kind != KS_FOR || loop->lo->kind != KE_ICONST || loop->lo->i != 0 || loop->hi->kind != KE_ICONST ||
      loop->hi->i > Ln || idx->kind != KE_BIN || idx->op != KO_ADD || idx->b->kind != KE_VAR || idx->b->var != loop->var ||
      idx->b->a)
    return NULL;
  KExpr *base = idx->a;
  bool whole = (base->kind == KE_ICONST && base->i % Ln == 0) ||
               (base->kind == KE_BIN && base->op == KO_MUL && base->b->kind == KE_ICONST && base->b->i % Ln == 0);
  if (!whole) return NULL;
  bool *vars = arena_alloc(L->a, (size_t)k->nlocals + 1);
  mark_assigned(&loop->body, vars);
  return reads_local(base, loop->var, vars) ? NULL : base;
}

/* log_softmax at element idx: x - m - log(sum exp(x - m)) over its row (the last dim), m the
 * row's max. The max and the sum are the row's, the same for all its elements, so they are built
 * once per row before the lane loop that computes the elements, when blk is that loop's body:
 *   - a value of one row (vertex[C], PyG's last layer): the two loops go before the loop (a lane
 *     loop, a row loop of another row-wise value reading it, a walk's staging loop), uniform where
 *     every lane has the same row (the host then runs them once per row);
 *   - a value of several rows ([H, C], a head's row each) before a lane loop: a lane loop over the
 *     rows, lane h computing row h's max and the log of its sum into shared arrays (sh_mx<id>,
 *     sh_lse<id>: the log once a row too, and no libm call left in the elements' loop, which clang
 *     cannot vectorise under the host's `omp simd`), a barrier, and the elements read their row's
 *     there (with a barrier before too where the lane loop is inside a loop: another trip's
 *     elements may still read the arrays);
 *   - a row loop over one row of a value of several rows (a dot's; the statistics' own loops
 *     reading a log_softmax of a log_softmax): the two loops before it, as for one row.
 * Then 2W reads and W exponentials per row. Otherwise (an element inside a per-lane loop of its
 * own, a value of several rows in a row loop or a column tile) the two loops are at the element:
 * W^2 exponentials per row, so helper-75 measured 200-387 ms against 28 ms per forward for a
 * 24-wide one on PubMed on the host before this, and [4, 6] made 648 operations a vertex, now 148.
 * Every placement goes over the row in the same order and keeps the statistics in float32: the
 * same bits. */
static KExpr *log_softmax_elem(Lower *L, Kernel *k, PtrVec *blk, const Value *v, const Reader *r, KExpr *idx) {
  const Shape *sa = &r->args[0]->shape;
  int64_t Ln = sa->d[sa->rank - 1], n = shape_elems(&v->shape);
  KStmt *loop = L->elem_loop;
  PtrVec *outer = L->elem_outer, pre = {0};
  bool before = loop && &loop->body == blk && ks_index(outer, loop) >= 0;
  KExpr *rbase = before && n > Ln ? row_loop_base(L, k, loop, idx, Ln) : NULL;
  bool per_row = before && (n == Ln || rbase);
  bool heads = before && !per_row && n > Ln && loop->kind == KS_FOR_LANES && !loop->lo;
  int mx = add_local(L, k, "mx", KT_F32, 0, false), se = add_local(L, k, "se", KT_F32, 0, false);
  if (heads) {
    ElemLoop saved = {L->elem_loop, L->elem_outer};
    int R = (int)(n / Ln), hv, iv;
    int shm = unique_shared(L, k, "sh_mx", v->id, KT_F32, R), shl = unique_shared(L, k, "sh_lse", v->id, KT_F32, R);
    int at = ks_index(outer, loop); /* in a loop: the last trip's readers first (one barrier will do) */
    if (outer != &k->body && !(at > 0 && ((const KStmt *)outer->items[at - 1])->kind == KS_BARRIER)) ks_new(L, &pre, KS_BARRIER);
    PtrVec *rows = ks_lanes(L, k, &pre, R, &hv, &iv), *cur = L->cur_blk;
    L->cur_blk = rows;
    KExpr *h = kvar(L, k, hv, NULL);
    row_stats(L, k, rows, r, kbin(L, KO_MUL, h, ki(L, Ln)), Ln, mx, se);
    L->cur_blk = cur;
    ks_shstore(L, rows, shm, h, kvar(L, k, mx, NULL));
    ks_shstore(L, rows, shl, h, kun(L, KU_LOG, kvar(L, k, se, NULL)));
    ks_new(L, &pre, KS_BARRIER);
    ks_end_row_loop(L, saved); /* the element loop is the one it was */
    ks_insert_before(L, outer, loop, &pre);
    KExpr *row = kbin(L, KO_DIV, idx, ki(L, Ln));
    return kbin(L, KO_SUB, kbin(L, KO_SUB, r->read(L, k, r, 0, idx), kshared(L, k, shm, row)), kshared(L, k, shl, row));
  }
  KExpr *base = rbase ? rbase : per_row ? ki(L, 0) : kbin(L, KO_MUL, kbin(L, KO_DIV, idx, ki(L, Ln)), ki(L, Ln));
  row_stats(L, k, per_row ? &pre : blk, r, base, Ln, mx, se);
  /* Before a lane loop (or a row loop in the same place) every lane has the same row: uniform
   * statistics (ks_make_uniform), which the host computes once, not in a region of per-lane
   * statements, once per lane. Before a walk's staging loop each lane has its own edge. */
  if (per_row && (loop->kind == KS_FOR_LANES || (loop->kind == KS_FOR && k->locals[loop->var].uniform)))
    ks_make_uniform(L, k, &pre);
  if (per_row) ks_insert_before(L, outer, loop, &pre);
  return kbin(L, KO_SUB, kbin(L, KO_SUB, r->read(L, k, r, 0, idx), kvar(L, k, mx, NULL)), kun(L, KU_LOG, kvar(L, k, se, NULL)));
}

/* The value of function fn (an Apply function, or a Scatter / message function mapped by
 * as_apply) at result element idx; loops it needs go into blk before the use. */
KExpr *fn_elem(Lower *L, Kernel *k, PtrVec *blk, const Value *v, FnKind fn, const Reader *r, KExpr *idx,
                      KExpr *row_counter) {
  int64_t n = shape_elems(&v->shape);
  const Shape *sa = &r->args[0]->shape, *sb = v->nargs > 1 ? &r->args[1]->shape : NULL;
  int64_t na = shape_elems(sa), nb = sb ? shape_elems(sb) : 1;
#define A(i) r->read(L, k, r, 0, (i))
#define B(i) r->read(L, k, r, 1, (i))
  switch (as_apply(fn)) {
  case FN_ADD: return kbin(L, KO_ADD, A(bcast(L, idx, n, na)), B(bcast(L, idx, n, nb)));
  case FN_SUB: return kbin(L, KO_SUB, A(bcast(L, idx, n, na)), B(bcast(L, idx, n, nb)));
  case FN_MUL: return kbin(L, KO_MUL, A(bcast(L, idx, n, na)), B(bcast(L, idx, n, nb)));
  case FN_DIV: return kbin(L, KO_DIV, A(bcast(L, idx, n, na)), B(bcast(L, idx, n, nb)));
  case FN_NEG: return kun(L, KU_NEG, A(idx));
  case FN_RELU: {
    KExpr *x = A(idx);
    return ksel(L, kbin(L, KO_GT, x, kf(L, 0)), x, kf(L, 0));
  }
  case FN_LEAKY_RELU: {
    KExpr *x = A(idx);
    return ksel(L, kbin(L, KO_GT, x, kf(L, 0)), x, kbin(L, KO_MUL, kf(L, v->fattr), x));
  }
  case FN_ELU: {
    KExpr *x = A(idx);
    return ksel(L, kbin(L, KO_GT, x, kf(L, 0)), x, kbin(L, KO_MUL, kf(L, v->fattr), kun(L, KU_EXPM1, x)));
  }
  case FN_TANH: return kun(L, KU_TANH, A(idx));
  case FN_SIGMOID: return kbin(L, KO_DIV, kf(L, 1), kbin(L, KO_ADD, kf(L, 1), kun(L, KU_EXP, kun(L, KU_NEG, A(idx)))));
  case FN_EXP: return kun(L, KU_EXP, A(idx));
  case FN_LOG: return kun(L, KU_LOG, A(idx));
  case FN_SQRT: return kun(L, KU_SQRT, A(idx));
  case FN_RSQRT: return kun(L, KU_RSQRT, A(idx));
  case FN_ABS: return kun(L, KU_ABS, A(idx));
  case FN_SIGN: {
    KExpr *x = A(idx);
    return ksel(L, kbin(L, KO_GT, x, kf(L, 0)), kf(L, 1), ksel(L, kbin(L, KO_LT, x, kf(L, 0)), kf(L, -1), kf(L, 0)));
  }
  case FN_INV_OR_ZERO: {
    KExpr *x = A(idx);
    return ksel(L, kbin(L, KO_EQ, x, kf(L, 0)), kf(L, 0), kbin(L, KO_DIV, kf(L, 1), x));
  }
  case FN_RELU_GRAD: return ksel(L, kbin(L, KO_GT, A(idx), kf(L, 0)), B(idx), kf(L, 0));
  case FN_LEAKY_RELU_GRAD:
    return ksel(L, kbin(L, KO_GT, A(idx), kf(L, 0)), B(idx), kbin(L, KO_MUL, kf(L, v->fattr), B(idx)));
  case FN_ELU_GRAD:
    return ksel(L, kbin(L, KO_GT, A(idx), kf(L, 0)), B(idx),
                kbin(L, KO_MUL, kbin(L, KO_MUL, kf(L, v->fattr), kun(L, KU_EXP, A(idx))), B(idx)));
  case FN_DROPOUT: {
    /* training ? (keep(seed, stream, row*n + idx) ? x / (1-p) : 0) : x */
    k->dropout = true;
    KExpr *keep = ke_new(L, KE_KEEP, KT_I64);
    keep->i = v->iattr;
    keep->f = v->fattr;
    keep->a = kbin(L, KO_ADD, kbin(L, KO_MUL, row_counter, ki(L, n)), idx);
    KExpr *x = A(idx);
    KExpr *scaled = ksel(L, keep, kbin(L, KO_MUL, x, kf(L, 1.0 / (1.0 - (double)(float)v->fattr))), kf(L, 0));
    return ksel(L, ke_new(L, KE_TRAINING, KT_I64), scaled, x);
  }
  case FN_FLATTEN: case FN_RESHAPE: return A(idx);
  case FN_REPEAT: return A(na == n ? idx : kbin(L, KO_MOD, idx, ki(L, na)));
  case FN_CONCAT: {
    /* element (o, c) of [.., la+lb]: a's (o, c) if c < la, else b's (o, c - la) */
    int64_t la = sa->rank ? sa->d[sa->rank - 1] : 1, lb = sb->rank ? sb->d[sb->rank - 1] : 1, w = la + lb;
    KExpr *o = kbin(L, KO_DIV, idx, ki(L, w)), *c = kbin(L, KO_MOD, idx, ki(L, w));
    /* Each side's column is clamped into that side's row although the select takes only one:
     * a fused operand that needs statements (a sum_heads or dot loop) has them emitted before
     * the select, for every lane, so the untaken side's reads happen too -- unclamped they were
     * a column past a's row or before b's (multi.gnn's Mix: a shared array read at -2 and at
     * 18 of 10, an illegal address on CUDA). in_range_index (kverify.c) checks it. */
    KExpr *ca = kbin(L, KO_MIN, c, ki(L, la - 1)), *cb = kbin(L, KO_MAX, kbin(L, KO_SUB, c, ki(L, la)), ki(L, 0));
    return ksel(L, kbin(L, KO_LT, c, ki(L, la)), A(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, la)), ca)),
                B(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, lb)), cb)));
  }
  case FN_SLICE: {
    int64_t la = sa->d[sa->rank - 1], w = v->iattr2 - v->iattr;
    KExpr *o = kbin(L, KO_DIV, idx, ki(L, w)), *c = kbin(L, KO_MOD, idx, ki(L, w));
    return A(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, la)), kbin(L, KO_ADD, c, ki(L, v->iattr))));
  }
  case FN_PAD: {
    int64_t la = sa->d[sa->rank - 1], w = v->iattr2, at = v->iattr;
    KExpr *o = kbin(L, KO_DIV, idx, ki(L, w)), *c = kbin(L, KO_MOD, idx, ki(L, w));
    KExpr *in = kbin(L, KO_AND, kbin(L, KO_GE, c, ki(L, at)), kbin(L, KO_LT, c, ki(L, at + la)));
    /* the column clamped into a's row, as concat's: statements a fused operand needs run for
     * the columns outside [at, at + la) too */
    KExpr *ca = kbin(L, KO_MIN, kbin(L, KO_MAX, kbin(L, KO_SUB, c, ki(L, at)), ki(L, 0)), ki(L, la - 1));
    return ksel(L, in, A(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, la)), ca)), kf(L, 0));
  }
  case FN_LINEAR: {
    /* a small projection computed where it is read (fuse keeps it out of the GEMMs):
     * y[o..., c] = sum_j x[o..., j] W[j, c] */
    return kvar(L, k, sum_loop(L, k, blk, r, v, idx, sb->d[0], linear_term, "lin"), NULL);
  }
  case FN_DOT: {
    const Shape *l = sa->rank >= sb->rank ? sa : sb;
    return kvar(L, k, sum_loop(L, k, blk, r, v, idx, l->d[l->rank - 1], dot_term, "dot"), NULL);
  }
  case FN_MEAN_HEADS: case FN_SUM_HEADS: {
    int acc = sum_loop(L, k, blk, r, v, idx, sa->d[0], heads_term, "heads");
    KExpr *s = kvar(L, k, acc, NULL);
    return fn == FN_MEAN_HEADS ? kbin(L, KO_DIV, s, kf(L, (double)sa->d[0])) : s;
  }
  case FN_SUM_LAST: return kvar(L, k, sum_loop(L, k, blk, r, v, idx, sa->d[sa->rank - 1], last_term, "sum"), NULL);
  case FN_MAXIMUM: case FN_MINIMUM: { /* ties take a, as the interpreter does (the values are equal) */
    KExpr *x = A(bcast(L, idx, n, na)), *y = B(bcast(L, idx, n, nb));
    return ksel(L, kbin(L, fn == FN_MAXIMUM ? KO_GE : KO_LE, x, y), x, y);
  }
  case FN_GT: case FN_GE: case FN_LT: case FN_LE: case FN_EQ: case FN_NE: {
    int op = fn == FN_GT ? KO_GT : fn == FN_GE ? KO_GE : fn == FN_LT ? KO_LT : fn == FN_LE ? KO_LE : fn == FN_EQ ? KO_EQ : KO_NE;
    return ksel(L, kbin(L, op, A(bcast(L, idx, n, na)), B(bcast(L, idx, n, nb))), kf(L, 1), kf(L, 0));
  }
  case FN_WHERE: {
    int64_t nc = shape_elems(&r->args[2]->shape);
    return ksel(L, kbin(L, KO_NE, A(bcast(L, idx, n, na)), kf(L, 0)), B(bcast(L, idx, n, nb)),
                r->read(L, k, r, 2, bcast(L, idx, n, nc)));
  }
  case FN_POW: { /* x^p, p constant: products for p = 2, 3; else sign * exp(p log|x|) (NaN for x < 0, p not whole) */
    double p = v->fattr;
    KExpr *x = A(idx);
    if (p == 0) return kf(L, 1);
    if (p == 1) return x;
    if (p == 2) return kbin(L, KO_MUL, x, x);
    if (p == 3) return kbin(L, KO_MUL, kbin(L, KO_MUL, x, x), x);
    if (p != floor(p)) return kun(L, KU_EXP, kbin(L, KO_MUL, kf(L, p), kun(L, KU_LOG, x)));
    KExpr *mag = kun(L, KU_EXP, kbin(L, KO_MUL, kf(L, p), kun(L, KU_LOG, kun(L, KU_ABS, x))));
    return fmod(p, 2) != 0 ? ksel(L, kbin(L, KO_LT, x, kf(L, 0)), kun(L, KU_NEG, mag), mag) : mag;
  }
  case FN_ONE_HOT: /* out[o, c] = a[o] == c ? 1 : 0 */
    return ksel(L, kbin(L, KO_EQ, A(kbin(L, KO_DIV, idx, ki(L, v->iattr))), kun(L, KU_TO_F32, kbin(L, KO_MOD, idx, ki(L, v->iattr)))),
                kf(L, 1), kf(L, 0));
  case FN_TRANSPOSE: { /* out[o, j, i] = a[o, i, j] for a row [..., A, B] */
    int64_t Ad = sa->d[sa->rank - 2], Bd = sa->d[sa->rank - 1];
    KExpr *o = kbin(L, KO_DIV, idx, ki(L, Ad * Bd)), *rem = kbin(L, KO_MOD, idx, ki(L, Ad * Bd));
    KExpr *j = kbin(L, KO_DIV, rem, ki(L, Ad)), *i = kbin(L, KO_MOD, rem, ki(L, Ad));
    return A(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, Ad * Bd)), kbin(L, KO_ADD, kbin(L, KO_MUL, i, ki(L, Bd)), j)));
  }
  case FN_LOG_SOFTMAX: return log_softmax_elem(L, k, blk, v, r, idx);
  default:
    L->ok = false;
    fprintf(stderr, "%s: internal error: no kernel lowering for function '%s' (%s)\n", L->c->diag.path, fn_info[fn].name,
            describe(L, v));
    return kf(L, 0);
  }
#undef A
#undef B
}

/* ---------------------------------------------------------------- the kernel shapes */

/* The reduced length when a row-wise reduction is better spread over lanes (few outputs, a
 * long reduced dim); 0 when lanes go over the outputs. */
int64_t split_reduce_len(const Lower *L, const Value *v) {
  if (L->exact[v->id]) return 0; /* its bits must match the other kernels': the serial loop everywhere */
  int64_t n = shape_elems(&v->shape), len = 0;
  if (v->fn == FN_DOT || v->fn == FN_U_DOT_V) {
    const Shape *sa = &v->args[0]->shape, *sb = &v->args[1]->shape, *l = sa->rank >= sb->rank ? sa : sb;
    len = l->d[l->rank - 1];
  } else if (v->fn == FN_SUM_LAST) {
    len = v->args[0]->shape.d[v->args[0]->shape.rank - 1];
  }
  return n <= 4 && len >= 16 ? len : 0;
}

/* Output j of a reduction split_reduce_len spreads: the lanes take the reduced dim (lane l the
 * elements l, l + G, ...: a warp's loads of a row are coalesced), each summing its part, then a
 * group reduction (warp shuffles) leaves the total in every lane. In float64 for an f64 value
 * (sum_loop's rule), the terms as the reader widens them. Returns the local. */
int spread_sum(Lower *L, Kernel *k, PtrVec *blk, const Reader *r, const Value *v, KExpr *j) {
  int part = add_local(L, k, "part", v->f64 ? KT_F64 : KT_F32, 0, false), kv, iv;
  ks_let(L, blk, part, NULL, kf(L, 0));
  PtrVec *lanes = ks_lanes(L, k, blk, split_reduce_len(L, v), &kv, &iv);
  PtrVec *saved = L->cur_blk;
  L->cur_blk = lanes; /* what the term needs (a fused operand's own statements) goes inside the lanes */
  TermFn term = as_apply(v->fn) == FN_SUM_LAST ? last_term : dot_term;
  KExpr *t = term(L, k, r, v, j, kvar(L, k, kv, NULL));
  L->cur_blk = saved;
  ks_let(L, lanes, part, NULL, kbin(L, KO_ADD, kvar(L, k, part, NULL), t));
  KStmt *red = ks_new(L, blk, KS_GROUP_REDUCE);
  red->var = part;
  red->op = KO_ADD;
  return part;
}

/* The body of a row kernel: each lane computes elements k = lane, lane + G, ... of out[row].
 * The reader says where the operands are read. */
static void rows_body(Lower *L, Kernel *k, Value *v, Reader *r, FnKind fn) {
  int64_t n = shape_elems(&v->shape);
  KBuf *out = L->buf_of[v->id];
  if (split_reduce_len(L, v)) { /* for each output j: the lanes take the reduced dim (spread_sum) */
    int j = add_local(L, k, "j", KT_I64, 0, true);
    PtrVec *body = ks_for(L, k, &k->body, j, ki(L, 0), ki(L, n));
    int part = spread_sum(L, k, body, r, v, kvar(L, k, j, NULL));
    PtrVec *first = ks_if(L, body, kbin(L, KO_EQ, klane(L), ki(L, 0)));
    ks_store(L, k, first, out, krow(L), kvar(L, k, j, NULL), kvar(L, k, part, NULL));
    return;
  }
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  KExpr *val = fn_elem(L, k, lanes, v, fn, r, kvar(L, k, kv, NULL), krow(L));
  ks_store(L, k, lanes, out, krow(L), kvar(L, k, kv, NULL), val);
}

static int row_group(const Lower *L, const Value *v) {
  int64_t len = split_reduce_len(L, v);
  return group_for(len ? len : shape_elems(&v->shape));
}

static void lower_apply(Lower *L, Value *v) {
  Reader r = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
  for (int i = 0; i < v->nargs; i++) r.rows[i] = v->args[i]->dom == v->dom ? krow(L) : NULL;
  Mapping map = v->dom == DOM_VERTEX || v->dom == DOM_GRAPH ? MAP_VERTEX : v->dom == DOM_EDGE ? MAP_EDGE : MAP_GLOBAL;
  Kernel *k = new_kernel(L, v, "", map, v->dom, row_group(L, v));
  rows_body(L, k, v, &r, v->fn);
}

/* u[graph]: a row kernel over vertices, each reading its graph's row (an identity view). */
static void lower_broadcast(Lower *L, Value *v) {
  Kernel *k = new_kernel(L, v, "", MAP_VERTEX, DOM_VERTEX, row_group(L, v));
  Reader r = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
  r.rows[0] = v->args[0]->dom == DOM_GRAPH ? kgraph(L, k, KG_VERTEX_GRAPH, krow(L)) : NULL; /* global: one row */
  rows_body(L, k, v, &r, FN_RESHAPE);
}

/* A row kernel over edges: operand 0 read at the source (copy_v: at the destination),
 * operand 1 at the destination. Edge ids are CSR positions, so dst[e] is sorted. */
static void lower_scatter(Lower *L, Value *v) {
  Kernel *k = new_kernel(L, v, "", MAP_EDGE, DOM_EDGE, row_group(L, v));
  int su = add_local(L, k, "u", KT_I64, 0, true), sv = add_local(L, k, "v", KT_I64, 0, true);
  ks_let(L, &k->body, su, NULL, kgraph(L, k, KG_SRC, krow(L)));
  ks_let(L, &k->body, sv, NULL, kgraph(L, k, KG_DST, krow(L)));
  if (v->fn == FN_ARGSEL_V) { /* a[v] where arg[v] names this edge, else 0 */
    int64_t n = shape_elems(&v->shape);
    int kv, iv;
    PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
    KExpr *kk = kvar(L, k, kv, NULL), *dv = kvar(L, k, sv, NULL);
    KExpr *hit = kbin(L, KO_EQ, kload(L, k, L->buf_of[v->args[1]->id], dv, kk), krow(L));
    ks_store(L, k, lanes, L->buf_of[v->id], krow(L), kk, ksel(L, hit, kload(L, k, L->buf_of[v->args[0]->id], dv, kk), kf(L, 0)));
    return;
  }
  Reader r = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
  r.rows[0] = kvar(L, k, v->fn == FN_COPY_V ? sv : su, NULL);
  r.rows[1] = kvar(L, k, sv, NULL);
  rows_body(L, k, v, &r, v->fn);
}

/* ---- vertex-balanced edge walks */


/* Emits: lo = ptr[row]; hi = ptr[row + 1] (once per kernel). */
void walk_bounds(Lower *L, Kernel *k, int *lo, int *hi) {
  KGraphArray ptr = k->dir == GATHER_BY_SRC ? KG_OUT_PTR : k->dir == GATHER_BY_GRAPH ? KG_GRAPH_PTR : KG_IN_PTR;
  *lo = add_local(L, k, "lo", KT_I64, 0, true);
  *hi = add_local(L, k, "hi", KT_I64, 0, true);
  ks_let(L, &k->body, *lo, NULL, kgraph(L, k, ptr, krow(L)));
  ks_let(L, &k->body, *hi, NULL, kgraph(L, k, ptr, kbin(L, KO_ADD, krow(L), ki(L, 1))));
}

/* A loop over the edges [lo, hi) of the vertex. With need_far (the message reads the far end)
 * or a walk over out-edges (edge ids through out_eid), the lanes first stage a chunk of G edge
 * ids and far ends in shared memory; then the whole group walks the chunk. */
Walk walk_edges(Lower *L, Kernel *k, PtrVec *blk, int lo, int hi, bool need_far) {
  Walk w;
  bool by_src = k->dir == GATHER_BY_SRC;
  w.e = add_local(L, k, "e", KT_I64, 0, true);
  w.u = need_far ? add_local(L, k, "u", KT_I64, 0, true) : -1;
  w.stage = NULL;
  w.chunk = NULL;
  w.she = w.shu = w.t = w.cnt = -1;
  if (!need_far && !by_src) { /* in-edges are CSR positions: the edge id is the loop index */
    w.body = ks_for(L, k, blk, w.e, kvar(L, k, lo, NULL), kvar(L, k, hi, NULL));
    ((KStmt *)blk->items[blk->len - 1])->walk = true;
    return w;
  }
  int G = k->group;
  int she = -1, shu = -1;
  for (int i = 0; i < k->nshared; i++) {
    if (strcmp(k->shared[i].name, "sh_e") == 0) she = i;
    if (strcmp(k->shared[i].name, "sh_u") == 0) shu = i;
  }
  if (she < 0) she = add_shared(L, k, "sh_e", KT_I64, G);
  if (need_far && shu < 0) shu = add_shared(L, k, "sh_u", KT_I64, G);
  int j0 = add_local(L, k, "j0", KT_I64, 0, true);
  KStmt *chunk = ks_new(L, blk, KS_FOR);
  chunk->var = j0;
  chunk->lo = kvar(L, k, lo, NULL);
  chunk->hi = kvar(L, k, hi, NULL);
  chunk->count = G; /* step */
  chunk->walk = true;
  PtrVec *cb = &chunk->body;
  /* stage: lane l loads edge j0 + l */
  int jj = add_local(L, k, "jj", KT_I64, 0, false);
  ks_let(L, cb, jj, NULL, kbin(L, KO_ADD, kvar(L, k, j0, NULL), klane(L)));
  PtrVec *in = ks_if(L, cb, kbin(L, KO_LT, kvar(L, k, jj, NULL), kvar(L, k, hi, NULL)));
  KExpr *eid = by_src ? kgraph(L, k, KG_OUT_EID, kvar(L, k, jj, NULL)) : kvar(L, k, jj, NULL);
  ks_shstore(L, in, she, klane(L), eid);
  /* the far end: src[e] in CSR order (e is the counter), out_dst[jj] in CSC order (dst[out_eid[jj]]
   * without the random read of dst) */
  if (need_far)
    ks_shstore(L, in, shu, klane(L), by_src ? kgraph(L, k, KG_OUT_DST, kvar(L, k, jj, NULL)) : kgraph(L, k, KG_SRC, kshared(L, k, she, klane(L))));
  ks_new(L, cb, KS_BARRIER);
  int cnt = add_local(L, k, "cnt", KT_I64, 0, true);
  ks_let(L, cb, cnt, NULL, kbin(L, KO_MIN, kbin(L, KO_SUB, kvar(L, k, hi, NULL), kvar(L, k, j0, NULL)), ki(L, G)));
  int t = add_local(L, k, "t", KT_I64, 0, true);
  PtrVec *tb = ks_for(L, k, cb, t, ki(L, 0), kvar(L, k, cnt, NULL));
  ks_let(L, tb, w.e, NULL, kshared(L, k, she, kvar(L, k, t, NULL)));
  if (need_far) ks_let(L, tb, w.u, NULL, kshared(L, k, shu, kvar(L, k, t, NULL)));
  ks_new(L, cb, KS_BARRIER); /* the chunk is consumed before the next one overwrites it */
  w.body = tb;
  w.stage = in;
  w.chunk = cb;
  w.cnt = cnt;
  w.she = she;
  w.shu = need_far ? shu : -1;
  w.t = t;
  return w;
}

KExpr *reduce_init(Lower *L, FnKind r) { return kf(L, r == FN_MAX ? -INFINITY : r == FN_MIN ? INFINITY : 0); }
KExpr *reduce_step(Lower *L, FnKind r, KExpr *acc, KExpr *x) {
  /* max/min as `x > acc ? x : acc`: the interpreter's definition, NaN-for-NaN */
  if (r == FN_MAX) return ksel(L, kbin(L, KO_GT, x, acc), x, acc);
  if (r == FN_MIN) return ksel(L, kbin(L, KO_LT, x, acc), x, acc);
  return kbin(L, KO_ADD, acc, x);
}

/* gather and aggregate, vertex-balanced: per lane register accumulators over the walk. */
static void vertex_reduce(Lower *L, Value *v) {
  int64_t n = shape_elems(&v->shape);
  bool agg = v->op == OP_AGGREGATE, readout = v->op == OP_READOUT;
  /* a readout walks the vertices of each graph as a gather walks the in-edges of each vertex */
  Kernel *k = new_kernel(L, v, "", MAP_VERTEX, readout ? DOM_GRAPH : DOM_VERTEX, group_for(n));
  k->dir = agg ? GATHER_BY_DST : readout ? GATHER_BY_GRAPH : (int)v->iattr;
  int G = k->group;
  int nk = (int)((n + G - 1) / G);
  int lo, hi;
  walk_bounds(L, k, &lo, &hi);
  bool sum = v->fn == FN_SUM || v->fn == FN_MEAN;
  int acc = add_local(L, k, "acc", sum ? KT_F64 : KT_F32, nk, false);
  int kv, iv;
  PtrVec *init = ks_lanes(L, k, &k->body, n, &kv, &iv);
  ks_let(L, init, acc, kvar(L, k, iv, NULL), reduce_init(L, v->fn));
  bool need_far = agg && v->msg != FN_COPY_E;
  Walk w = walk_edges(L, k, &k->body, lo, hi, need_far);
  PtrVec *lanes = ks_lanes(L, k, w.body, n, &kv, &iv);
  KExpr *msg;
  if (agg) {
    Reader r = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
    if (v->msg == FN_COPY_E) r.rows[0] = kvar(L, k, w.e, NULL);
    else r.rows[0] = kvar(L, k, w.u, NULL), r.rows[1] = kvar(L, k, w.e, NULL);
    msg = fn_elem(L, k, lanes, v, v->msg, &r, kvar(L, k, kv, NULL), NULL);
  } else {
    msg = kload(L, k, L->buf_of[v->args[0]->id], kvar(L, k, w.e, NULL), kvar(L, k, kv, NULL));
  }
  if (v->fn == FN_MAX || v->fn == FN_MIN) { /* the step reads the message twice: compute it once */
    int mv = add_local(L, k, "m", KT_F32, 0, false);
    ks_let(L, lanes, mv, NULL, msg);
    msg = kvar(L, k, mv, NULL);
  }
  KExpr *a = kvar(L, k, acc, kvar(L, k, iv, NULL));
  ks_let(L, lanes, acc, kvar(L, k, iv, NULL), reduce_step(L, v->fn, a, msg));
  PtrVec *fin = ks_lanes(L, k, &k->body, n, &kv, &iv);
  KExpr *res = kvar(L, k, acc, kvar(L, k, iv, NULL));
  KExpr *deg = kbin(L, KO_SUB, kvar(L, k, hi, NULL), kvar(L, k, lo, NULL));
  if (v->fn == FN_MEAN) res = kbin(L, KO_DIV, res, kun(L, KU_TO_F64, deg));
  /* a vertex without edges gets 0 */
  ks_store(L, k, fin, L->buf_of[v->id], krow(L), kvar(L, k, kv, NULL), ksel(L, kbin(L, KO_GT, deg, ki(L, 0)), res, kf(L, 0)));
}

/* gather.argmax / argmin: the CSR position of the first edge attaining the extremum. */
static void vertex_argreduce(Lower *L, Value *v) {
  int64_t n = shape_elems(&v->shape);
  Kernel *k = new_kernel(L, v, "", MAP_VERTEX, DOM_VERTEX, group_for(n));
  k->dir = (int)v->iattr;
  int G = k->group, nk = (int)((n + G - 1) / G);
  int lo, hi;
  walk_bounds(L, k, &lo, &hi);
  int best = add_local(L, k, "best", KT_F32, nk, false), arg = add_local(L, k, "arg", KT_I64, nk, false);
  int kv, iv;
  PtrVec *init = ks_lanes(L, k, &k->body, n, &kv, &iv);
  ks_let(L, init, best, kvar(L, k, iv, NULL), kf(L, 0));
  ks_let(L, init, arg, kvar(L, k, iv, NULL), ki(L, -1));
  Walk w = walk_edges(L, k, &k->body, lo, hi, false);
  PtrVec *lanes = ks_lanes(L, k, w.body, n, &kv, &iv);
  int x = add_local(L, k, "x", KT_F32, 0, false);
  ks_let(L, lanes, x, NULL, kload(L, k, L->buf_of[v->args[0]->id], kvar(L, k, w.e, NULL), kvar(L, k, kv, NULL)));
  KExpr *xv = kvar(L, k, x, NULL), *bv = kvar(L, k, best, kvar(L, k, iv, NULL)), *av = kvar(L, k, arg, kvar(L, k, iv, NULL));
  KExpr *better = kbin(L, KO_OR, kbin(L, KO_LT, av, ki(L, 0)), kbin(L, v->fn == FN_ARGMAX ? KO_GT : KO_LT, xv, bv));
  PtrVec *take = ks_if(L, lanes, better);
  ks_let(L, take, best, kvar(L, k, iv, NULL), xv);
  ks_let(L, take, arg, kvar(L, k, iv, NULL), kvar(L, k, w.e, NULL));
  PtrVec *fin = ks_lanes(L, k, &k->body, n, &kv, &iv);
  ks_store(L, k, fin, L->buf_of[v->id], krow(L), kvar(L, k, kv, NULL), kvar(L, k, arg, kvar(L, k, iv, NULL)));
}

KExpr *softmax_quotient(Lower *L, KExpr *p, KExpr *sum64) { return kbin(L, KO_DIV, p, kun(L, KU_TO_F32, sum64)); }

/* edge_softmax: three walks (max, sum of exp, write), each lane for its elements; the sum in
 * float64, the value softmax_quotient's. */
static void vertex_softmax(Lower *L, Value *v) {
  int64_t n = shape_elems(&v->shape);
  Kernel *k = new_kernel(L, v, "", MAP_VERTEX, DOM_VERTEX, group_for(n));
  int G = k->group, nk = (int)((n + G - 1) / G);
  int lo, hi;
  walk_bounds(L, k, &lo, &hi);
  KBuf *x = L->buf_of[v->args[0]->id], *y = L->buf_of[v->id];
  int mx = add_local(L, k, "mx", KT_F32, nk, false), sum = add_local(L, k, "sum", KT_F64, nk, false);
  int kv, iv;
  PtrVec *init = ks_lanes(L, k, &k->body, n, &kv, &iv);
  ks_let(L, init, mx, kvar(L, k, iv, NULL), kf(L, -INFINITY));
  ks_let(L, init, sum, kvar(L, k, iv, NULL), kf(L, 0));
  for (int pass = 0; pass < 3; pass++) {
    Walk w = walk_edges(L, k, &k->body, lo, hi, false);
    PtrVec *lanes = ks_lanes(L, k, w.body, n, &kv, &iv);
    KExpr *xe = kload(L, k, x, kvar(L, k, w.e, NULL), kvar(L, k, kv, NULL));
    KExpr *m = kvar(L, k, mx, kvar(L, k, iv, NULL)), *s = kvar(L, k, sum, kvar(L, k, iv, NULL));
    if (pass == 0) ks_let(L, lanes, mx, kvar(L, k, iv, NULL), reduce_step(L, FN_MAX, m, xe));
    else if (pass == 1) ks_let(L, lanes, sum, kvar(L, k, iv, NULL), kbin(L, KO_ADD, s, kun(L, KU_EXP, kbin(L, KO_SUB, xe, m))));
    else ks_store(L, k, lanes, y, kvar(L, k, w.e, NULL), kvar(L, k, kv, NULL), softmax_quotient(L, kun(L, KU_EXP, kbin(L, KO_SUB, xe, m)), s));
  }
}

/* ---- edge-balanced reductions */

/* The row kernel that ends an atomic accumulation: out[r] = from[r] (a float64 scratch, or
 * out itself after a max/min), divided by the degree for mean, and 0 for a vertex without
 * edges (deg_fn FN_IN / FN_OUT; FN_NONE: rows that are never empty). */
void finish_rows(Lower *L, Value *v, KBuf *from, FnKind deg_fn, bool mean) {
  int64_t n = shape_elems(&v->shape);
  Domain d = v->dom == DOM_VERTEX ? DOM_VERTEX : DOM_GLOBAL;
  Kernel *k = new_kernel(L, v, "_finish", d == DOM_VERTEX ? MAP_VERTEX : MAP_GLOBAL, d, group_for(n));
  k->what = arena_printf(L->a, "%s (%s%s)", k->what, from->elem == ELEM_F64 ? "the float64 sums to float" : "vertices without edges get 0",
                         mean ? ", divided by the degree" : "");
  KBuf *out = L->buf_of[v->id];
  int dv = -1;
  if (deg_fn != FN_NONE) {
    dv = add_local(L, k, "deg", KT_F32, 0, true);
    ks_let(L, &k->body, dv, NULL, kload(L, k, degree_buf(L, deg_fn), krow(L), ki(L, 0)));
  }
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  KExpr *x = kload(L, k, from, krow(L), kvar(L, k, kv, NULL));
  if (mean) x = kbin(L, KO_DIV, x, kvar(L, k, dv, NULL));
  if (dv >= 0) x = ksel(L, kbin(L, KO_GT, kvar(L, k, dv, NULL), kf(L, 0)), x, kf(L, 0));
  ks_store(L, k, lanes, out, krow(L), kvar(L, k, kv, NULL), x);
}

/* A float64 accumulator for an atomic sum into v's rows, zeroed by a step of its own. */
KBuf *sum_scratch(Lower *L, Value *v) {
  KBuf *s = new_buf(L, BUF_TEMP, value_source_cname(L, v) ? value_cname(L, v, "", "_acc") : arena_printf(L->a, "acc%d", v->id), v->dom == DOM_VERTEX ? DOM_VERTEX : DOM_GLOBAL, ELEM_F64,
                    shape_elems(&v->shape), NULL);
  s->bwd = v->bwd;
  KStep *z = add_step(L, STEP_ZERO, describe(L, v), v->bwd);
  z->buf = s;
  return s;
}

static void edge_reduce(Lower *L, Value *v) {
  int64_t n = shape_elems(&v->shape);
  bool agg = v->op == OP_AGGREGATE;
  int dir = agg ? GATHER_BY_DST : (int)v->iattr;
  FnKind r = v->fn;
  bool sum = r == FN_SUM || r == FN_MEAN;
  KBuf *target = L->buf_of[v->id];
  if (sum) {
    target = sum_scratch(L, v);
  } else {
    KStep *fill = add_step(L, STEP_FILL, describe(L, v), v->bwd);
    fill->buf = target;
    fill->fill = r == FN_MAX ? -INFINITY : INFINITY;
  }
  Kernel *k = new_kernel(L, v, "", MAP_EDGE, DOM_EDGE, group_for(n));
  k->dir = dir;
  int su = add_local(L, k, "u", KT_I64, 0, true), sv = add_local(L, k, "v", KT_I64, 0, true);
  ks_let(L, &k->body, su, NULL, kgraph(L, k, KG_SRC, krow(L)));
  ks_let(L, &k->body, sv, NULL, kgraph(L, k, KG_DST, krow(L)));
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  KExpr *msg;
  if (agg) {
    Reader rd = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
    if (v->msg == FN_COPY_E) rd.rows[0] = krow(L);
    else rd.rows[0] = kvar(L, k, su, NULL), rd.rows[1] = krow(L);
    msg = fn_elem(L, k, lanes, v, v->msg, &rd, kvar(L, k, kv, NULL), NULL);
  } else {
    msg = kload(L, k, L->buf_of[v->args[0]->id], krow(L), kvar(L, k, kv, NULL));
  }
  int op = r == FN_MAX ? KO_MAX : r == FN_MIN ? KO_MIN : KO_ADD;
  ks_atomic(L, k, lanes, op, target, kvar(L, k, dir == GATHER_BY_SRC ? su : sv, NULL), kvar(L, k, kv, NULL),
            sum ? kun(L, KU_TO_F64, msg) : msg);
  FnKind deg = dir == GATHER_BY_SRC ? FN_OUT : FN_IN;
  if (sum) finish_rows(L, v, target, r == FN_MEAN ? deg : FN_NONE, r == FN_MEAN);
  else finish_rows(L, v, target, deg, false);
}

/* reduce_rows.sum: every row adds into a one-row float64 accumulator, then rounds once. */
static void lower_reduce_rows_sum(Lower *L, Value *v) {
  int64_t n = shape_elems(&v->shape);
  KBuf *acc = sum_scratch(L, v);
  Domain d = v->args[0]->dom;
  Kernel *k = new_kernel(L, v, "", d == DOM_VERTEX ? MAP_VERTEX : MAP_EDGE, d, group_for(n));
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  ks_atomic(L, k, lanes, KO_ADD, acc, NULL, kvar(L, k, kv, NULL),
            kun(L, KU_TO_F64, kload(L, k, L->buf_of[v->args[0]->id], krow(L), kvar(L, k, kv, NULL))));
  finish_rows(L, v, acc, FN_NONE, false);
}

/* ---- GEMMs */

void lower_gemm(Lower *L, Value *v) {
  KStep *s = add_step(L, STEP_GEMM, describe(L, v), v->bwd);
  KGemm *g = &s->gemm;
  Value *x = v->args[0], *w = v->args[1];
  int64_t nx = shape_elems(&x->shape);
  g->c = L->buf_of[v->id];
  g->beta = 0;
  if (v->fn == FN_LINEAR) { /* Y[R*lead, O] = X[R*lead, K] . W[K, O] */
    int64_t K = w->shape.d[0], O = shape_elems(&w->shape) / K;
    g->m = kdim(nx / K, x->dom);
    g->n = kdim(O, DOM_GLOBAL);
    g->k = kdim(K, DOM_GLOBAL);
    g->a = L->buf_of[x->id], g->lda = K;
    g->b = L->buf_of[w->id], g->ldb = O;
    g->ldc = O;
  } else if (v->fn == FN_LINEAR_T) { /* Y[R*lead, K] = X[R*lead, O] . W[K, O]^T */
    int64_t K = w->shape.d[0], O = shape_elems(&w->shape) / K;
    g->m = kdim(nx / O, x->dom);
    g->n = kdim(K, DOM_GLOBAL);
    g->k = kdim(O, DOM_GLOBAL);
    g->tb = true;
    g->a = L->buf_of[x->id], g->lda = O;
    g->b = L->buf_of[w->id], g->ldb = O;
    g->ldc = K;
  } else { /* reduce_rows.matmul_tn: dW[K, C] = X[R*lead, K]^T . Y[R*lead, C] */
    int64_t K = x->shape.d[x->shape.rank - 1], lead = nx / K, C = shape_elems(&w->shape) / lead;
    g->m = kdim(K, DOM_GLOBAL);
    g->n = kdim(C, DOM_GLOBAL);
    g->k = kdim(lead, x->dom);
    g->ta = true;
    g->a = L->buf_of[x->id], g->lda = K;
    g->b = L->buf_of[w->id], g->ldb = C;
    g->ldc = C;
  }
}

/* --spmm=cusparse: a plain weighted sum over the edges as one sparse-dense product (KSpmm), its
 * operands in memory (the fuse pass made them roots). */
void lower_spmm(Lower *L, Value *v) {
  Value *x, *w;
  int dir;
  if (!value_spmm_operands(v, &x, &w, &dir)) {
    L->ok = false;
    return;
  }
  KStep *s = add_step(L, STEP_SPMM, describe(L, v), v->bwd);
  s->spmm.dir = dir;
  s->spmm.x = L->buf_of[x->id];
  s->spmm.w = w ? L->buf_of[w->id] : NULL;
  s->spmm.y = L->buf_of[v->id];
  s->spmm.width = shape_elems(&v->shape);
}


static bool is_gemm(const Value *v) {
  return ((v->op == OP_APPLY_EDGE || v->op == OP_APPLY_VERTEX || v->op == OP_APPLY_GLOBAL || v->op == OP_APPLY_GRAPH) &&
          (v->fn == FN_LINEAR || v->fn == FN_LINEAR_T)) ||
         (v->op == OP_REDUCE_ROWS && v->fn == FN_MATMUL_TN);
}

static void note(Lower *L, const Value *v, const char *why) {
  if (L->c->diag.out)
    fprintf(L->c->diag.out, "%s: note: %s runs vertex-balanced although %s: %s\n", L->c->diag.path, describe(L, v),
            L->mapping == MAPPING_EDGE ? "--mapping=edge" : "--edge-balanced names it", why);
}

/* One value as its own kernel(s) or GEMM step; edge_map: the caller chose edge-balanced for it
 * (a reduction that cannot be says so in a note and runs vertex-balanced). */
void lower_op_value(Lower *L, Value *v, bool edge_map) {
  switch (v->op) {
  case OP_INPUT: case OP_PARAM: case OP_CONST: case OP_DEGREE:
    return;
  case OP_SCATTER:
    lower_scatter(L, v);
    return;
  case OP_GATHER:
    if (v->fn == FN_ARGMAX || v->fn == FN_ARGMIN) {
      if (edge_map) note(L, v, "the index of the extremum needs every edge of the vertex in one group");
      vertex_argreduce(L, v);
    } else if (edge_map) {
      edge_reduce(L, v);
    } else {
      vertex_reduce(L, v);
    }
    return;
  case OP_AGGREGATE:
    if (edge_map) edge_reduce(L, v);
    else vertex_reduce(L, v);
    return;
  case OP_REDUCE_SCATTER:
    if (edge_map) note(L, v, "edge_softmax normalises over all in-edges of a vertex, which one group must see together");
    vertex_softmax(L, v);
    return;
  case OP_REDUCE_ROWS:
    if (v->fn == FN_MATMUL_TN) lower_gemm(L, v);
    else lower_reduce_rows_sum(L, v);
    return;
  case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL: case OP_APPLY_GRAPH:
    if (is_gemm(v)) lower_gemm(L, v);
    else lower_apply(L, v);
    return;
  case OP_READOUT:
    if (edge_map) note(L, v, "a readout walks the vertices of each graph in one group");
    vertex_reduce(L, v);
    return;
  case OP_BROADCAST:
    lower_broadcast(L, v);
    return;
  case OP__COUNT:
    break;
  }
}

