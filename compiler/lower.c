/* lower.c -- from the operator IR to the kernel IR: buffers, GEMM steps and kernels.
 *
 * Requires: a verified module (after every pass the user asked for). Produces a KProgram: the
 * model as an ordered list of steps over buffers, which both emitters print. This is the
 * unfused baseline: every graph operator and every Apply becomes its own kernel, reading its
 * operands from memory and writing its result; dense projections (linear, linear_t,
 * reduce_rows.matmul_tn) become GEMM steps. The kernels are built from the same pieces a fused
 * group will use (one mapping, lanes over elements, uniform edge loops, register
 * accumulators), so the fusion pass only has to hand this file a group instead of one value.
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
#include "lower.h"

#include <math.h>
#include <string.h>


/* ---------------------------------------------------------------- expression and statement builders */

KExpr *ke_new(Lower *L, KExprKind kind, KType t) {
  KExpr *e = arena_alloc(L->a, sizeof(KExpr));
  e->kind = kind;
  e->type = t;
  return e;
}
KExpr *kf(Lower *L, double f) {
  KExpr *e = ke_new(L, KE_FCONST, KT_F32);
  e->f = f;
  return e;
}
KExpr *ki(Lower *L, int64_t i) {
  KExpr *e = ke_new(L, KE_ICONST, KT_I64);
  e->i = i;
  return e;
}
KExpr *kvar(Lower *L, Kernel *k, int var, KExpr *idx) {
  KExpr *e = ke_new(L, KE_VAR, k->locals[var].type);
  e->var = var;
  e->a = idx;
  e->i = idx ? 0 : k->locals[var].ub;
  return e;
}
KExpr *klane(Lower *L) { return ke_new(L, KE_LANE, KT_I64); }
KExpr *krow(Lower *L) { return ke_new(L, KE_ROW, KT_I64); }
KExpr *kgraph(Lower *L, Kernel *k, KGraphArray g, KExpr *idx) {
  KExpr *e = ke_new(L, KE_GRAPH, KT_I64);
  e->garr = g;
  e->a = idx;
  k->graph[g] = true;
  return e;
}
KExpr *kshared(Lower *L, Kernel *k, int sh, KExpr *idx) {
  KExpr *e = ke_new(L, KE_SHARED, k->shared[sh].type);
  e->var = sh;
  e->a = idx;
  return e;
}
void use_buf(Kernel *k, KBuf *b, Lower *L) {
  for (int i = 0; i < k->bufs.len; i++)
    if (k->bufs.items[i] == b) return;
  vec_push(L->a, &k->bufs, b);
}
/* buf[row * width + idx]; row NULL for a one-row buffer (param, global). */
KExpr *kload(Lower *L, Kernel *k, KBuf *b, KExpr *row, KExpr *idx) {
  KExpr *e = ke_new(L, KE_LOAD, b->elem == ELEM_I32 ? KT_I64 : b->elem == ELEM_F64 ? KT_F64 : KT_F32);
  e->buf = b;
  e->a = dom_has_rows(b->dom) ? row : NULL;
  e->b = idx;
  use_buf(k, b, L);
  return e;
}
/* C's usual arithmetic conversions: double over float over integer. */
static KType wider(KType a, KType b) {
  return a == KT_F64 || b == KT_F64 ? KT_F64 : a == KT_F32 || b == KT_F32 ? KT_F32 : KT_I64;
}

KExpr *kbin(Lower *L, int op, KExpr *x, KExpr *y) {
  /* Fold integer constants so indices print as people would write them. */
  if (x->kind == KE_ICONST && y->kind == KE_ICONST) {
    int64_t a = x->i, b = y->i;
    switch (op) {
    case KO_ADD: return ki(L, a + b);
    case KO_SUB: return ki(L, a - b);
    case KO_MUL: return ki(L, a * b);
    case KO_DIV: if (b) return ki(L, a / b); break;
    case KO_MOD: if (b) return ki(L, a % b); break;
    default: break;
    }
  }
  /* (p*c + v) / c = p and (p*c + v) % c = v when a loop variable v is in [0, c): the indices of
   * views (slices, heads) read inside loops over their elements print as people write them */
  if (x->type == KT_I64 && y->kind == KE_ICONST && y->i > 0 && (op == KO_DIV || op == KO_MOD)) {
    int64_t c = y->i;
    if (x->kind == KE_VAR && x->i > 0 && x->i <= c) return op == KO_DIV ? ki(L, 0) : x;
    const KExpr *mul = x->kind == KE_BIN && x->op == KO_ADD ? x->a : x;
    const KExpr *v = x->kind == KE_BIN && x->op == KO_ADD ? x->b : NULL;
    if (mul->kind == KE_BIN && mul->op == KO_MUL && mul->b->kind == KE_ICONST && mul->b->i == c &&
        (!v || (v->kind == KE_VAR && v->i > 0 && v->i <= c)))
      return op == KO_DIV ? mul->a : v ? (KExpr *)v : ki(L, 0);
  }
  if (x->type == KT_I64 && y->kind == KE_ICONST) {
    if ((op == KO_ADD || op == KO_SUB) && y->i == 0) return x;
    if ((op == KO_MUL || op == KO_DIV) && y->i == 1) return x;
    if (op == KO_MUL && y->i == 0) return ki(L, 0);
    if (op == KO_MOD && y->i == 1) return ki(L, 0);
  }
  if (x->kind == KE_ICONST && y->type == KT_I64) {
    if (op == KO_ADD && x->i == 0) return y;
    if (op == KO_MUL && x->i == 1) return y;
    if (op == KO_MUL && x->i == 0) return ki(L, 0);
  }
  bool cmp = op >= KO_LT;
  KExpr *e = ke_new(L, KE_BIN, cmp ? KT_I64 : wider(x->type, y->type));
  e->op = op;
  e->a = x;
  e->b = y;
  return e;
}
KExpr *kun(Lower *L, int op, KExpr *x) {
  KType t = op == KU_TO_F32 ? KT_F32 : op == KU_TO_F64 ? KT_F64 : op == KU_TO_I64 || op == KU_NOT ? KT_I64 : x->type;
  KExpr *e = ke_new(L, KE_UN, t);
  e->op = op;
  e->a = x;
  return e;
}
KExpr *ksel(Lower *L, KExpr *c, KExpr *x, KExpr *y) {
  KExpr *e = ke_new(L, KE_SELECT, wider(x->type, y->type));
  e->a = c;
  e->b = x;
  e->c = y;
  return e;
}

int add_local(Lower *L, Kernel *k, const char *name, KType t, int len, bool uniform) {
  if (k->nlocals == k->localcap) {
    int cap = k->localcap ? 2 * k->localcap : 16;
    KLocal *ls = arena_alloc(L->a, sizeof(KLocal) * (size_t)cap);
    if (k->nlocals) memcpy(ls, k->locals, sizeof(KLocal) * (size_t)k->nlocals);
    k->locals = ls;
    k->localcap = cap;
  }
  /* Names stay unique within the kernel: a second "acc" is "acc1" (no base name ends in a digit
   * followed by more locals of a shorter base: "j0" and "j" give j0, j01 and j, j1, ...). */
  void **slot = strmap_put(L->a, &k->local_names, name);
  intptr_t same = (intptr_t)*slot;
  const char *full = same ? arena_printf(L->a, "%s%d", name, (int)same) : name;
  /* nor the name of a buffer, which a kernel takes as a parameter of that name: a walk's chunk
   * position "t" numbered 1 would hide buffer t1 (the kernel reads the buffer in the loop) */
  while (strmap_get(&L->buf_names, full)) full = arena_printf(L->a, "%s%d", name, (int)++same);
  *slot = (void *)(same + 1);
  k->locals[k->nlocals] = (KLocal){full, t, len, uniform, 0};
  return k->nlocals++;
}
int add_shared(Lower *L, Kernel *k, const char *name, KType t, int len) {
  if (k->nshared == k->sharedcap) {
    int cap = k->sharedcap ? 2 * k->sharedcap : 4;
    KShared *ss = arena_alloc(L->a, sizeof(KShared) * (size_t)cap);
    if (k->nshared) memcpy(ss, k->shared, sizeof(KShared) * (size_t)k->nshared);
    k->shared = ss;
    k->sharedcap = cap;
  }
  k->shared[k->nshared] = (KShared){name, t, len};
  return k->nshared++;
}

KStmt *ks_new(Lower *L, PtrVec *blk, KStmtKind kind) {
  KStmt *s = arena_alloc(L->a, sizeof(KStmt));
  s->kind = kind;
  vec_push(L->a, blk, s);
  return s;
}
void ks_let(Lower *L, PtrVec *blk, int var, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_LET);
  s->var = var;
  s->idx = idx;
  s->val = val;
}
void ks_shstore(Lower *L, PtrVec *blk, int sh, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_SHSTORE);
  s->var = sh;
  s->idx = idx;
  s->val = val;
}
void ks_store(Lower *L, Kernel *k, PtrVec *blk, KBuf *b, KExpr *row, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_STORE);
  s->buf = b;
  s->row = dom_has_rows(b->dom) ? row : NULL;
  s->idx = idx;
  s->val = val;
  use_buf(k, b, L);
}
void ks_atomic(Lower *L, Kernel *k, PtrVec *blk, int op, KBuf *b, KExpr *row, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_ATOMIC);
  s->op = op;
  s->buf = b;
  s->row = dom_has_rows(b->dom) ? row : NULL;
  s->idx = idx;
  s->val = val;
  use_buf(k, b, L);
}
PtrVec *ks_for(Lower *L, Kernel *k, PtrVec *blk, int var, KExpr *lo, KExpr *hi) {
  if (lo->kind == KE_ICONST && lo->i == 0 && hi->kind == KE_ICONST && hi->i > 0) k->locals[var].ub = hi->i;
  KStmt *s = ks_new(L, blk, KS_FOR);
  s->var = var;
  s->lo = lo;
  s->hi = hi;
  s->count = 1; /* step */
  return &s->body;
}
/* for (i = 0; k = lane + i*G < count; i++): the per-lane element loop. */
PtrVec *ks_lanes(Lower *L, Kernel *k, PtrVec *blk, int64_t count, int *kvar_out, int *ivar_out) {
  KStmt *s = ks_new(L, blk, KS_FOR_LANES);
  s->var = add_local(L, k, "k", KT_I64, 0, false);
  s->var2 = add_local(L, k, "i", KT_I64, 0, false);
  s->count = count;
  k->locals[s->var].ub = count; /* k = lane + i*G < count */
  *kvar_out = s->var;
  *ivar_out = s->var2;
  return &s->body;
}
PtrVec *ks_if(Lower *L, PtrVec *blk, KExpr *cond) {
  KStmt *s = ks_new(L, blk, KS_IF);
  s->lo = cond;
  return &s->body;
}

/* ---------------------------------------------------------------- buffers and steps */

KBuf *new_buf(Lower *L, KBufKind kind, const char *name, Domain dom, ElemType elem, int64_t width, Value *v) {
  KBuf *b = arena_alloc(L->a, sizeof(KBuf));
  b->id = L->p->bufs.len;
  b->kind = kind;
  b->name = name;
  b->dom = dom == DOM_PARAM ? DOM_GLOBAL : dom;
  b->elem = elem;
  b->width = width;
  b->val = v;
  b->out = -1;
  b->first = b->last = -1;
  b->bwd = v && v->bwd;
  vec_push(L->a, &L->p->bufs, b);
  *strmap_put(L->a, &L->buf_names, name) = b;
  return b;
}

KBuf *degree_buf(Lower *L, FnKind which) {
  int i = which == FN_OUT ? 1 : which == FN_SIZE ? 2 : 0;
  static const char *const name[3] = {"in_deg", "out_deg", "graph_size"};
  if (!L->deg[i]) L->deg[i] = new_buf(L, BUF_DEGREE, name[i], i == 2 ? DOM_GRAPH : DOM_VERTEX, ELEM_F32, 1, NULL);
  L->deg[i]->fn = which;
  return L->deg[i];
}

KStep *add_step(Lower *L, StepKind kind, const char *what, bool bwd) {
  KProgram *p = L->p;
  if (p->nsteps == p->stepcap) {
    int cap = p->stepcap ? 2 * p->stepcap : 32;
    KStep *s = arena_alloc(L->a, sizeof(KStep) * (size_t)cap);
    if (p->nsteps) memcpy(s, p->steps, sizeof(KStep) * (size_t)p->nsteps);
    p->steps = s;
    p->stepcap = cap;
  }
  KStep *s = &p->steps[p->nsteps++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->what = what;
  s->bwd = bwd;
  return s;
}

/* "%12 gather.sum" for comments. */
const char *describe(Lower *L, const Value *v) {
  if (v->op == OP_AGGREGATE)
    return arena_printf(L->a, "%%%d aggregate.%s.%s", v->id, fn_info[v->fn].name, fn_info[v->msg].name);
  return arena_printf(L->a, "%%%d %s.%s%s", v->id, op_info[v->op].name, fn_info[v->fn].name,
                      v->op == OP_GATHER && v->iattr == GATHER_BY_SRC ? " {by = src}" : "");
}

Kernel *new_kernel(Lower *L, const Value *v, const char *what, Mapping map, Domain rows, int group) {
  Kernel *k = arena_alloc(L->a, sizeof(Kernel));
  k->id = L->p->kernels.len;
  const char *fn = v->op == OP_AGGREGATE ? arena_printf(L->a, "aggregate_%s_%s", fn_info[v->fn].name, fn_info[v->msg].name)
                                         : arena_printf(L->a, "%s_%s", op_info[v->op].name, fn_info[v->fn].name);
  k->name = arena_printf(L->a, "k%d_%s%s_%s", k->id, fn, what, mapping_name(map));
  k->what = describe(L, v);
  k->map = map;
  k->rows = rows;
  k->group = group;
  k->dir = GATHER_BY_DST;
  vec_push(L->a, &L->p->kernels, k);
  KStep *s = add_step(L, STEP_KERNEL, k->what, v->bwd);
  s->kernel = k;
  return k;
}

/* The smallest power of two >= n, at most 32. */
int group_for(int64_t n) {
  int g = 1;
  while (g < n && g < 32) g *= 2;
  return g;
}

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
  PtrVec *body = ks_for(L, k, blk, j, ki(L, 0), ki(L, n));
  PtrVec *saved = L->cur_blk;
  L->cur_blk = body; /* what the term needs (a fused operand's own loops) goes inside the loop */
  KExpr *t = term(L, k, r, v, outer, kvar(L, k, j, NULL));
  L->cur_blk = saved;
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
    return ksel(L, kbin(L, KO_LT, c, ki(L, la)), A(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, la)), c)),
                B(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, lb)), kbin(L, KO_SUB, c, ki(L, la)))));
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
    return ksel(L, in, A(kbin(L, KO_ADD, kbin(L, KO_MUL, o, ki(L, la)), kbin(L, KO_SUB, c, ki(L, at)))), kf(L, 0));
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
  case FN_MAXIMUM: case FN_MINIMUM: { /* ties take a, as the interpreter and the gradient do */
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
  case FN_LOG_SOFTMAX: { /* x - m - log(sum exp(x - m)) over the last dim, m its max: two loops over the row */
    int64_t Ln = sa->d[sa->rank - 1];
    KExpr *base = kbin(L, KO_MUL, kbin(L, KO_DIV, idx, ki(L, Ln)), ki(L, Ln));
    int mx = add_local(L, k, "mx", KT_F32, 0, false), se = add_local(L, k, "se", KT_F32, 0, false);
    int j = add_local(L, k, "j", KT_I64, 0, false);
    ks_let(L, blk, mx, NULL, kf(L, -INFINITY));
    PtrVec *b1 = ks_for(L, k, blk, j, ki(L, 0), ki(L, Ln)), *saved = L->cur_blk;
    L->cur_blk = b1; /* what a fused operand needs goes inside the loop */
    KExpr *a1 = A(kbin(L, KO_ADD, base, kvar(L, k, j, NULL)));
    L->cur_blk = saved;
    ks_let(L, b1, mx, NULL, kbin(L, KO_MAX, kvar(L, k, mx, NULL), a1));
    ks_let(L, blk, se, NULL, kf(L, 0));
    PtrVec *b2 = ks_for(L, k, blk, j, ki(L, 0), ki(L, Ln));
    L->cur_blk = b2;
    KExpr *a2 = A(kbin(L, KO_ADD, base, kvar(L, k, j, NULL)));
    L->cur_blk = saved;
    ks_let(L, b2, se, NULL, kbin(L, KO_ADD, kvar(L, k, se, NULL), kun(L, KU_EXP, kbin(L, KO_SUB, a2, kvar(L, k, mx, NULL)))));
    return kbin(L, KO_SUB, kbin(L, KO_SUB, A(idx), kvar(L, k, mx, NULL)), kun(L, KU_LOG, kvar(L, k, se, NULL)));
  }
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
static int64_t split_reduce_len(const Value *v) {
  int64_t n = shape_elems(&v->shape), len = 0;
  if (v->fn == FN_DOT || v->fn == FN_U_DOT_V) {
    const Shape *sa = &v->args[0]->shape, *sb = &v->args[1]->shape, *l = sa->rank >= sb->rank ? sa : sb;
    len = l->d[l->rank - 1];
  } else if (v->fn == FN_SUM_LAST) {
    len = v->args[0]->shape.d[v->args[0]->shape.rank - 1];
  }
  return n <= 4 && len >= 16 ? len : 0;
}

/* The body of a row kernel: each lane computes elements k = lane, lane + G, ... of out[row].
 * The reader says where the operands are read. */
static void rows_body(Lower *L, Kernel *k, Value *v, Reader *r, FnKind fn) {
  int64_t n = shape_elems(&v->shape);
  KBuf *out = L->buf_of[v->id];
  if (split_reduce_len(v)) {
    /* for each output j: lanes take the reduced dim, then a group reduction (warp shuffles) */
    int64_t len = split_reduce_len(v);
    int j = add_local(L, k, "j", KT_I64, 0, true);
    PtrVec *body = ks_for(L, k, &k->body, j, ki(L, 0), ki(L, n));
    int part = add_local(L, k, "part", KT_F32, 0, false);
    ks_let(L, body, part, NULL, kf(L, 0));
    int kv, iv;
    PtrVec *lanes = ks_lanes(L, k, body, len, &kv, &iv);
    TermFn term = as_apply(fn) == FN_SUM_LAST ? last_term : dot_term;
    ks_let(L, lanes, part, NULL, kbin(L, KO_ADD, kvar(L, k, part, NULL), term(L, k, r, v, kvar(L, k, j, NULL), kvar(L, k, kv, NULL))));
    KStmt *red = ks_new(L, body, KS_GROUP_REDUCE);
    red->var = part;
    red->op = KO_ADD;
    PtrVec *first = ks_if(L, body, kbin(L, KO_EQ, klane(L), ki(L, 0)));
    ks_store(L, k, first, out, krow(L), kvar(L, k, j, NULL), kvar(L, k, part, NULL));
    return;
  }
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  KExpr *val = fn_elem(L, k, lanes, v, fn, r, kvar(L, k, kv, NULL), krow(L));
  ks_store(L, k, lanes, out, krow(L), kvar(L, k, kv, NULL), val);
}

static int row_group(const Value *v) {
  int64_t len = split_reduce_len(v);
  return group_for(len ? len : shape_elems(&v->shape));
}

static void lower_apply(Lower *L, Value *v) {
  Reader r = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
  for (int i = 0; i < v->nargs; i++) r.rows[i] = v->args[i]->dom == v->dom ? krow(L) : NULL;
  Mapping map = v->dom == DOM_VERTEX || v->dom == DOM_GRAPH ? MAP_VERTEX : v->dom == DOM_EDGE ? MAP_EDGE : MAP_GLOBAL;
  Kernel *k = new_kernel(L, v, "", map, v->dom, row_group(v));
  rows_body(L, k, v, &r, v->fn);
}

/* u[graph]: a row kernel over vertices, each reading its graph's row (an identity view). */
static void lower_broadcast(Lower *L, Value *v) {
  Kernel *k = new_kernel(L, v, "", MAP_VERTEX, DOM_VERTEX, row_group(v));
  Reader r = {read_buffer, v->args, {NULL, NULL, NULL}, NULL};
  r.rows[0] = v->args[0]->dom == DOM_GRAPH ? kgraph(L, k, KG_VERTEX_GRAPH, krow(L)) : NULL; /* global: one row */
  rows_body(L, k, v, &r, FN_RESHAPE);
}

/* A row kernel over edges: operand 0 read at the source (copy_v: at the destination),
 * operand 1 at the destination. Edge ids are CSR positions, so dst[e] is sorted. */
static void lower_scatter(Lower *L, Value *v) {
  Kernel *k = new_kernel(L, v, "", MAP_EDGE, DOM_EDGE, row_group(v));
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
  w.she = w.shu = w.t = -1;
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
  if (need_far) ks_shstore(L, in, shu, klane(L), kgraph(L, k, by_src ? KG_DST : KG_SRC, kshared(L, k, she, klane(L))));
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

/* edge_softmax: three walks (max, sum of exp, write), each lane for its elements. */
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
    else ks_store(L, k, lanes, y, kvar(L, k, w.e, NULL), kvar(L, k, kv, NULL), kbin(L, KO_DIV, kun(L, KU_EXP, kbin(L, KO_SUB, xe, m)), s));
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
  KBuf *s = new_buf(L, BUF_TEMP, arena_printf(L->a, "acc%d", v->id), v->dom == DOM_VERTEX ? DOM_VERTEX : DOM_GLOBAL, ELEM_F64,
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

KDim kdim(int64_t mult, Domain d) { return (KDim){mult, d == DOM_PARAM ? DOM_GLOBAL : d}; }

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

/* ---------------------------------------------------------------- the program */

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

static void lower_value(Lower *L, Value *v) {
  bool edge_map = L->mapping == MAPPING_EDGE || ctx_edge_balanced(L->c, v->id);
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

/* ---- finishing a kernel: drop the dead locals, recount what it touches */

static void reads_expr(const KExpr *e, bool *read) {
  if (!e) return;
  if (e->kind == KE_VAR) read[e->var] = true;
  reads_expr(e->a, read);
  reads_expr(e->b, read);
  reads_expr(e->c, read);
}

static void reads_block(const PtrVec *b, bool *read) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    reads_expr(s->row, read);
    reads_expr(s->idx, read);
    reads_expr(s->val, read);
    reads_expr(s->lo, read);
    reads_expr(s->hi, read);
    if (s->kind == KS_GROUP_REDUCE) read[s->var] = true;
    if (s->kind == KS_FOR || s->kind == KS_FOR_LANES) read[s->var] = true;
    reads_block(&s->body, read);
  }
}

/* Removes lets of locals nobody reads; true if it removed any. */
static bool drop_dead(PtrVec *b, const bool *read) {
  bool changed = false;
  int n = 0;
  for (int i = 0; i < b->len; i++) {
    KStmt *s = b->items[i];
    if (s->kind == KS_LET && !read[s->var]) {
      changed = true;
      continue;
    }
    changed |= drop_dead(&s->body, read);
    b->items[n++] = s;
  }
  b->len = n;
  return changed;
}

static void touches_expr(Lower *L, Kernel *k, const KExpr *e) {
  if (!e) return;
  if (e->kind == KE_GRAPH) k->graph[e->garr] = true;
  if (e->kind == KE_LOAD) use_buf(k, e->buf, L);
  if (e->kind == KE_KEEP || e->kind == KE_TRAINING) k->dropout = true;
  touches_expr(L, k, e->a);
  touches_expr(L, k, e->b);
  touches_expr(L, k, e->c);
}

static void touches_block(Lower *L, Kernel *k, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_STORE || s->kind == KS_ATOMIC) use_buf(k, s->buf, L);
    touches_expr(L, k, s->row);
    touches_expr(L, k, s->idx);
    touches_expr(L, k, s->val);
    touches_expr(L, k, s->lo);
    touches_expr(L, k, s->hi);
    touches_block(L, k, &s->body);
  }
}

/* Builders add locals and graph reads generously (both ends of an edge, say); what no
 * statement reads is dropped here, so emitted kernels declare and pass only what they use. */
void finish_kernel(Lower *L, Kernel *k) {
  bool *read = arena_alloc(L->a, (size_t)k->nlocals + 1);
  do {
    memset(read, 0, (size_t)k->nlocals + 1);
    reads_block(&k->body, read);
  } while (drop_dead(&k->body, read));
  memset(k->graph, 0, sizeof k->graph);
  k->dropout = false;
  k->bufs = (PtrVec){0};
  touches_block(L, k, &k->body);
}

/* The buffers each step reads and writes, for the memory plan's lifetimes. */
static void touch(KBuf *b, int step) {
  if (!b) return;
  if (b->first < 0 || step < b->first) b->first = step;
  if (step > b->last) b->last = step;
}

const char *c_ident(Lower *L, const char *prefix, const char *name) {
  char *s = arena_printf(L->a, "%s%s", prefix, name);
  for (char *q = s; *q; q++)
    if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'))) *q = '_';
  return s;
}

KProgram *lower_module(GnnCtx *c, Module *m, MappingChoice mapping) {
  Lower L = {.c = c, .m = m, .a = &c->arena, .mapping = mapping, .ok = true};
  KProgram *p = arena_alloc(&c->arena, sizeof(KProgram));
  p->name = m->name;
  char *cn = arena_strdup(&c->arena, m->name);
  for (char *q = cn; *q; q++) *q = (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
  p->cname = cn;
  p->m = m;
  p->arena = &c->arena;
  L.p = p;
  L.buf_of = arena_alloc(&c->arena, sizeof(KBuf *) * (size_t)(m->vals.len + 1));
  L.col_of = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(m->vals.len + 1));
  /* 1. one buffer per value, except constants (inlined) and degrees (the graph's arrays) */
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    int64_t w = shape_elems(&v->shape);
    switch (v->op) {
    case OP_CONST: break;
    case OP_DEGREE: L.buf_of[i] = degree_buf(&L, v->fn); break;
    case OP_INPUT: L.buf_of[i] = new_buf(&L, BUF_INPUT, c_ident(&L, "in_", v->name), v->dom, ELEM_F32, w, v); break;
    case OP_PARAM:
      L.buf_of[i] = new_buf(&L, BUF_PARAM, c_ident(&L, "p_", v->name), DOM_GLOBAL, ELEM_F32, w, v);
      p->nparams++;
      break;
    default:
      /* fused: lower_fused.c makes buffers for what lives in memory, and nothing else */
      if (!m->fused) L.buf_of[i] = new_buf(&L, BUF_TEMP, arena_printf(&c->arena, "t%d", v->id), v->dom, v->elem, w, v);
    }
  }
  if (m->fused) lower_fused_steps(&L);
  for (int i = 0; i < m->nouts; i++) {
    KBuf *b = L.buf_of[m->outs[i].val->id];
    if (b && b->out < 0) b->out = i;
  }
  /* 2. steps: the forward values, then the backward ones (fused: made above) */
  for (int pass = 0; pass < 2 && !m->fused; pass++) {
    for (int i = 0; i < m->vals.len; i++) {
      Value *v = m->vals.items[i];
      if (v->bwd == (pass == 1)) lower_value(&L, v);
    }
    if (pass == 0) p->nfwd = p->nsteps;
  }
  if (!L.ok) return NULL;
  for (int i = 0; i < p->kernels.len; i++) finish_kernel(&L, p->kernels.items[i]);
  /* 3. lifetimes */
  for (int s = 0; s < p->nsteps; s++) {
    KStep *st = &p->steps[s];
    if (st->kind == STEP_GEMM) {
      touch(st->gemm.a, s);
      touch(st->gemm.b, s);
      touch(st->gemm.c, s);
    } else if (st->kind == STEP_KERNEL) {
      for (int b = 0; b < st->kernel->bufs.len; b++) touch(st->kernel->bufs.items[b], s);
    } else {
      touch(st->buf, s);
    }
  }
  return p;
}
