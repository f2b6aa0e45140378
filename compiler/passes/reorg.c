/* reorg.c -- propagation-postponed operator reorganisation (the paper's section 4), and the
 * rules that move a destination-only term out of a neighbourhood reduction.
 *
 * Requires: a verified module, best in canonical form (after canonicalize: gSDDMM scatters
 * formed, no duplicates). Guarantees: the same results up to floating-point rounding (each
 * rewrite is an identity of real arithmetic that also holds at vertices without in-edges), with
 * expensive per-edge work moved to the vertices where the algebra allows and the cost model
 * says it pays. Runs before compose, which must see Scatter -> ApplyEdge chains unfused.
 *
 * The idea. An edge value built from scatters by sums, concatenations and functions that pass
 * through a scatter is, on every edge u->v, a *sum of endpoint terms*
 *
 *     e[u->v] = U[u] + V[v] + K        (U, V vertex values; K parameters and constants)
 *
 * or a concatenation of such sums. decompose() computes this form bottom-up, building U and V
 * as vertex values; rebuild() then replaces e by one scatter of them -- copy_u(U), copy_v(V),
 * u_add_v(U, V), u_sub_v(U, V) or u_concat_v(U, V). A projection W applied to e per edge
 * (|E| times) becomes W applied to U and V per vertex (|V| times): that is the paper's
 * reorganisation, and the chains of the paper's rules compose because the form is built
 * operand by operand. Which functions pass through which scatter is not decided here:
 * fn_commutes_with_scatter (ir.c) says it, from the algebra flags of funcs.def.
 *
 * Rules (docs/passes/reorg.md gives each its proof sketch and its refusals):
 *   leaves   copy_u(a) = a_u; copy_v(b) = b_v; u_add_v(a, b) = a_u + b_v;
 *            u_sub_v(a, b) = a_u - b_v; u_concat_v(a, b) = [a_u || b_v]
 *   sums     (U1 + V1 + K1) +- (U2 + V2 + K2) = (U1 +- U2)_u + (V1 +- V2)_v + (K1 +- K2);
 *            -(U + V + K) = (-U)_u + (-V)_v - K
 *   one side f(U_u, P) = f(U, P)_u for any row-wise f (f commutes with copy_u / copy_v)
 *   linear   f(U_u + V_v + K, P) = f(U, P)_u + f(V, P)_v + f(K, P) for f linear in that operand
 *            (f commutes with u_add_v / u_sub_v): W.(h_u +- h_v) = (W.h)_u +- (W.h)_v
 *   split    f([X || Y], P) = f_l(X) + f_r(Y) for linear (W split by rows) and dot by a
 *            parameter (a split into a_l, a_r): a.[x_u || y_v] = (a_l.x)_u + (a_r.y)_v
 *   leave    r_u(U_u + V_v) = r_u(U_u) + ind_v * V_v, ind = deg_in for sum, sign(deg_in) for
 *            max, min and mean (a vertex without in-edges gets 0, as before)
 *   factor   sum_u f(e_uv, c_v) = f(sum_u e_uv, c_v) for f in mul, dot (also mean)
 *   merge    f(x, W1) +- f(x, W2) = f(x, W1 +- W2) for f = linear
 *   project  W.(r_u e_uv) = r_u (W.e_uv) for r in sum, mean, and W pushed on through scatters,
 *            sums, negation and scaling by a value constant along the contracted dim
 *            (W.(c * z) = c * (W.z)), down to where it is applied per vertex: a projection
 *            after a propagation moves in front of it (SGC's W.(A A x) = A A (W.x)), narrowing
 *            what is propagated when W narrows the row
 *
 * Which rewrites are applied is the cost model's call, not each rule's: an attempt builds the
 * replacement, and it is kept only if the values it adds cost fewer FLOPs (then fewer bytes)
 * than the values that die with the old one, cost polynomials compared by their |E|
 * coefficient, then |V|, then the constant -- the regime |E| >> |V| >> parameter sizes of the
 * paper. Otherwise everything built is rolled back. Since each kept rewrite lowers the
 * module's cost, sweeps (in definition order, like canonicalize's) stop; then canonicalize's
 * cleanup re-forms gSDDMM scatters from copy_u/copy_v pairs, merges duplicates and drops dead
 * values. Values built by rules are hash-consed against the values already placed, so a
 * projection shared by several uses (W.h for h_u and for h_v) is computed once.
 *
 * Backward values (autodiff) are left alone.
 */
#include "../passes.h"

#include <string.h>

enum { MAXT = 8, BUDGET = 512, MAXDEAD = 4096 };
enum { SU, SV, SK }; /* the sides of a form: at the source, at the destination, per model */

typedef struct {
  Value *v;
  bool neg;
} Term;

typedef struct {
  Term t[MAXT];
  int n;
} Side;

/* An edge value's endpoint form: a sum of the terms of s[SU] read at the source, s[SV] at the
 * destination and s[SK] (parameters, constants) on every edge; or concat(a, b) along the last
 * dim. shape is the edge value's row shape; a term's shape may be a prefix of it (broadcast). */
typedef struct Form Form;
struct Form {
  bool concat;
  Shape shape;
  Side s[3];
  Form *a, *b;
};

/* A function applied to a form: fn with the form at operand k and the other operands fixed
 * (parameters or globals), attributes as the Apply it came from; out is the result's shape. */
typedef struct {
  FnKind fn;
  int k, nargs;
  Value *args[GNN_MAX_ARGS];
  double fattr;
  int64_t iattr, iattr2;
  Shape shape, out;
} Map;

typedef struct {
  Value *key;
  Form *form;
} Memo;

typedef struct {
  GnnCtx *c;
  Module *m;
  Value **table; /* hash-consing: the values placed so far in this sweep */
  int cap, count;
  Value *root;   /* the value being rewritten */
  int budget;    /* decompose steps left in this attempt */
  Memo *memo;
  int nmemo, memocap;
} Reorg;

typedef Value *(*Rule)(Reorg *r, Value *v);

static bool is_leaf(const Value *v) {
  return v->op == OP_INPUT || v->op == OP_PARAM || v->op == OP_CONST || v->op == OP_DEGREE;
}

static bool per_model(const Value *v) { return v->dom == DOM_PARAM || v->dom == DOM_GLOBAL; }

/* ---------------------------------------------------------------- building, hash-consed */

static void table_put(Reorg *r, Value *v);

static void table_grow(Reorg *r, int want) {
  Value **old = r->table;
  int oldcap = r->cap;
  r->cap = 64;
  while (r->cap < 2 * want) r->cap *= 2;
  r->table = arena_alloc(&r->c->arena, sizeof(Value *) * (size_t)r->cap);
  r->count = 0;
  for (int i = 0; i < oldcap; i++)
    if (old[i] && !old[i]->dead) table_put(r, old[i]);
}

static void table_put(Reorg *r, Value *v) {
  if (2 * (r->count + 1) > r->cap) table_grow(r, 2 * (r->count + 1));
  uint64_t mask = (uint64_t)r->cap - 1, j = canon_hash(v) & mask;
  while (r->table[j]) j = (j + 1) & mask;
  r->table[j] = v;
  r->count++;
}

/* The identical value placed first (ids are placement order during a sweep): without
 * canonicalize the module may hold duplicates, and the hash is of operand addresses, so the
 * first one probed would depend on the allocator. */
static Value *table_find(Reorg *r, const Value *v) {
  uint64_t mask = (uint64_t)r->cap - 1;
  Value *best = NULL;
  for (uint64_t j = canon_hash(v) & mask; r->table[j]; j = (j + 1) & mask) {
    Value *t = r->table[j];
    if (t != v && !t->dead && canon_same(t, v) && (!best || t->id < best->id)) best = t;
  }
  return best;
}

/* Builds the value proto describes (typed by ir_infer), or returns the identical value already
 * placed. NULL if it would be ill-typed. */
static Value *mk(Reorg *r, Value *p) {
  const char *why = NULL;
  p->loc = r->root->loc;
  p->bwd = r->root->bwd;
  for (int k = 0; k < p->nargs; k++)
    if (!p->args[k]) return NULL;
  Value *v = ir_make_like(r->m, p, &why);
  if (!v) return NULL;
  Value *dup = table_find(r, v);
  if (dup) {
    r->m->vals.len--; /* v was the last value appended */
    return dup;
  }
  for (int k = 0; k < v->nargs; k++) v->args[k]->nuses++;
  table_put(r, v);
  return v;
}

/* fn applied to args (Apply of the operands' domain); attributes from like (may be NULL). */
static Value *mk_fn(Reorg *r, FnKind fn, Value **args, int n, const Map *like) {
  Value p;
  memset(&p, 0, sizeof p);
  for (int i = 0; i < n; i++) {
    if (!args[i]) return NULL;
    p.args[i] = args[i];
  }
  p.fn = fn;
  p.msg = FN_NONE;
  p.nargs = n;
  p.op = apply_op_for(apply_domain(args, n));
  if (like) {
    p.fattr = like->fattr;
    p.iattr = like->iattr;
    p.iattr2 = like->iattr2;
    p.shape = like->shape;
  }
  return mk(r, &p);
}

static Value *mk1(Reorg *r, FnKind fn, Value *a) { return mk_fn(r, fn, &a, 1, NULL); }
static Value *mk2(Reorg *r, FnKind fn, Value *a, Value *b) {
  Value *args[2] = {a, b};
  return mk_fn(r, fn, args, 2, NULL);
}

static Value *mk_op(Reorg *r, OpKind op, FnKind fn, Value *a, Value *b) {
  Value p;
  memset(&p, 0, sizeof p);
  p.op = op;
  p.fn = fn;
  p.msg = FN_NONE;
  p.nargs = b ? 2 : 1;
  p.args[0] = a;
  p.args[1] = b;
  if (!a) return NULL;
  return mk(r, &p);
}

static Value *mk_slice(Reorg *r, Value *x, int64_t from, int64_t to) {
  Map m = {.fn = FN_SLICE, .iattr = from, .iattr2 = to};
  return mk_fn(r, FN_SLICE, &x, 1, &m);
}

static Value *mk_reshape(Reorg *r, Value *x, const Shape *to) {
  Map m = {.fn = FN_RESHAPE, .shape = *to};
  return mk_fn(r, FN_RESHAPE, &x, 1, &m);
}

static Value *mk_deg_in(Reorg *r) {
  Value p;
  memset(&p, 0, sizeof p);
  p.op = OP_DEGREE;
  p.fn = FN_IN;
  p.msg = FN_NONE;
  p.dom = DOM_VERTEX;
  Value *dup = table_find(r, &p);
  if (dup) return dup;
  Shape sc = {0, {0}};
  Value *d = ir_leaf(r->m, OP_DEGREE, FN_IN, DOM_VERTEX, &sc, NULL, 0, r->root->loc);
  table_put(r, d);
  return d;
}

/* Removes every value built since mark (a rejected attempt). */
static void rollback(Reorg *r, int mark) {
  for (int i = mark; i < r->m->vals.len; i++) {
    Value *v = r->m->vals.items[i];
    v->dead = true;
    for (int k = 0; k < v->nargs; k++) v->args[k]->nuses--;
  }
  r->m->vals.len = mark;
  r->nmemo = 0; /* forms may hold the values just removed */
}

/* ---------------------------------------------------------------- forms */

static Form *form_new(Reorg *r, const Shape *shape) {
  Form *f = arena_alloc(&r->c->arena, sizeof(Form));
  f->shape = *shape;
  return f;
}

/* The sum of a side's terms: *neg says the value is to be negated (all terms negative). */
static bool mat_side(Reorg *r, const Side *s, Value **out, bool *neg) {
  *out = NULL;
  *neg = false;
  if (s->n == 0) return true;
  if (s->n == 1) {
    *out = s->t[0].v;
    *neg = s->t[0].neg;
    return true;
  }
  Value *acc = NULL;
  for (int i = 0; i < s->n; i++)
    if (!s->t[i].neg) acc = acc ? mk2(r, FN_ADD, acc, s->t[i].v) : s->t[i].v;
  if (!acc) {
    for (int i = 0; i < s->n; i++) acc = acc ? mk2(r, FN_ADD, acc, s->t[i].v) : s->t[i].v;
    *neg = true;
  } else {
    for (int i = 0; i < s->n; i++)
      if (s->t[i].neg) acc = mk2(r, FN_SUB, acc, s->t[i].v);
  }
  *out = acc;
  return acc != NULL;
}

/* Appends a term; a full side is first summed into one term. */
static bool side_push(Reorg *r, Side *s, Value *v, bool neg) {
  if (s->n == MAXT) {
    Value *sum;
    bool sneg;
    if (!mat_side(r, s, &sum, &sneg)) return false;
    s->n = 1;
    s->t[0] = (Term){sum, sneg};
  }
  s->t[s->n++] = (Term){v, neg};
  return true;
}

static Form *form_term(Reorg *r, const Shape *shape, int side, Value *v, bool neg) {
  if (!v) return NULL;
  Form *f = form_new(r, shape);
  f->s[side].t[0] = (Term){v, neg};
  f->s[side].n = 1;
  return f;
}

/* Bit 1: some term is read at the source; bit 2: at the destination. */
static int mask_of(const Form *f) {
  if (f->concat) return mask_of(f->a) | mask_of(f->b);
  return (f->s[SU].n ? 1 : 0) | (f->s[SV].n ? 2 : 0);
}

/* A form read at one endpoint only, as one value (parameter terms included). */
static Value *mat_one(Reorg *r, const Form *f) {
  if (f->concat) {
    Value *a = mat_one(r, f->a);
    return mk2(r, FN_CONCAT, a, mat_one(r, f->b));
  }
  Side all = {.n = 0};
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < f->s[s].n; i++)
      if (!side_push(r, &all, f->s[s].t[i].v, f->s[s].t[i].neg)) return NULL;
  Value *v;
  bool neg;
  if (!mat_side(r, &all, &v, &neg) || !v) return NULL;
  return neg ? mk1(r, FN_NEG, v) : v;
}

/* A concatenation read at one endpoint becomes a sum form of one term; two-sided: NULL. */
static Form *as_sum(Reorg *r, Form *f) {
  if (!f || !f->concat) return f;
  int mask = mask_of(f);
  if (mask != 1 && mask != 2) return NULL;
  return form_term(r, &f->shape, mask == 1 ? SU : SV, mat_one(r, f), false);
}

/* f1 + f2, or f1 - f2 with negate. */
static Form *form_add(Reorg *r, Form *f1, Form *f2, bool negate, const Shape *shape) {
  f1 = as_sum(r, f1);
  f2 = as_sum(r, f2);
  if (!f1 || !f2) return NULL;
  Form *f = form_new(r, shape);
  for (int s = 0; s < 3; s++) {
    f->s[s] = f1->s[s];
    for (int i = 0; i < f2->s[s].n; i++)
      if (!side_push(r, &f->s[s], f2->s[s].t[i].v, f2->s[s].t[i].neg != negate)) return NULL;
  }
  return f;
}

static Form *form_concat(Reorg *r, Form *a, Form *b, const Shape *shape) {
  if (!a || !b) return NULL;
  Form *f = form_new(r, shape);
  f->concat = true;
  f->a = a;
  f->b = b;
  return f;
}

/* ---------------------------------------------------------------- functions through forms */

static Value *map_on(Reorg *r, const Map *mp, Value *x) {
  Value *args[GNN_MAX_ARGS];
  for (int i = 0; i < mp->nargs; i++) args[i] = i == mp->k ? x : mp->args[i];
  return mk_fn(r, mp->fn, args, mp->nargs, mp);
}

static Form *apply_map(Reorg *r, const Map *mp, Form *f);

/* f([X || Y], P) = f_l(X) + f_r(Y): a projection's matrix is split by rows, a dot's parameter
 * along its last dim (or used whole where it broadcasts over the concatenated dim). */
static Form *split(Reorg *r, const Map *mp, Form *f) {
  Form *part[2] = {f->a, f->b};
  int64_t w[2];
  for (int i = 0; i < 2; i++) {
    const Shape *s = &part[i]->shape;
    w[i] = s->rank ? s->d[s->rank - 1] : 1;
    if (s->rank == 0) { /* a scalar row counts as [1] in a concat */
      Map re = {.fn = FN_RESHAPE, .k = 0, .nargs = 1, .shape = {1, {1}}, .out = {1, {1}}};
      part[i] = apply_map(r, &re, part[i]);
      if (!part[i]) return NULL;
    }
  }
  Map half[2] = {*mp, *mp};
  if (mp->fn == FN_LINEAR && mp->k == 0) {
    Value *W = mp->args[1];
    int64_t K = W->shape.d[0], O = shape_elems(&W->shape) / K;
    if (K != w[0] + w[1]) return NULL;
    Value *flat = mk1(r, FN_FLATTEN, W);
    for (int i = 0; i < 2; i++) {
      Shape rows = W->shape;
      rows.d[0] = w[i];
      int64_t from = i == 0 ? 0 : w[0] * O;
      half[i].args[1] = mk_reshape(r, mk_slice(r, flat, from, from + w[i] * O), &rows);
      if (!half[i].args[1]) return NULL;
    }
  } else if (mp->fn == FN_DOT) {
    Value *p = mp->args[1 - mp->k];
    if (p->shape.rank > f->shape.rank) return NULL; /* the concat is broadcast, not reduced */
    for (int i = 0; i < 2 && p->shape.rank == f->shape.rank; i++) {
      int64_t from = i == 0 ? 0 : w[0];
      half[i].args[1 - mp->k] = mk_slice(r, p, from, from + w[i]);
      if (!half[i].args[1 - mp->k]) return NULL;
    }
  } else {
    return NULL;
  }
  Form *fa = apply_map(r, &half[0], part[0]); /* in order: the printed IR must not depend on the C compiler */
  return form_add(r, fa, apply_map(r, &half[1], part[1]), false, &mp->out);
}

/* The form of mp applied to the value whose form is f. */
static Form *apply_map(Reorg *r, const Map *mp, Form *f) {
  if (!f) return NULL;
  int mask = mask_of(f);
  if (mask == 1 || mask == 2) { /* one endpoint: any row-wise function moves to the vertices */
    int side = mask == 1 ? SU : SV;
    if (fn_commutes_with_scatter(mp->fn, mp->k, side == SU ? FN_COPY_U : FN_COPY_V) != SC_COMMUTE) return NULL;
    Value *x = mat_one(r, f);
    if (!x || !shape_eq(&x->shape, &f->shape)) return NULL;
    Value *y = map_on(r, mp, x);
    return y ? form_term(r, &y->shape, side, y, false) : NULL;
  }
  if (mask != 3) return NULL;
  if (f->concat)
    return fn_commutes_with_scatter(mp->fn, mp->k, FN_U_CONCAT_V) == SC_SPLIT ? split(r, mp, f) : NULL;
  if (fn_commutes_with_scatter(mp->fn, mp->k, FN_U_ADD_V) != SC_COMMUTE ||
      fn_commutes_with_scatter(mp->fn, mp->k, FN_U_SUB_V) != SC_COMMUTE)
    return NULL;
  /* linear in this operand: applied to each endpoint's sum, signs kept outside */
  Form *g = form_new(r, &mp->out);
  for (int s = 0; s < 3; s++) {
    if (!f->s[s].n) continue;
    Value *x;
    bool neg;
    if (!mat_side(r, &f->s[s], &x, &neg)) return NULL;
    if (!shape_eq(&x->shape, &f->shape)) return NULL; /* f(broadcast x) is not broadcast f(x) */
    Value *y = map_on(r, mp, x);
    if (!y) return NULL;
    g->s[s].t[0] = (Term){y, neg};
    g->s[s].n = 1;
  }
  return g;
}

/* ---------------------------------------------------------------- decomposition */

static Form *decompose(Reorg *r, Value *e);

/* An operand of an edge Apply: an edge value's form, or a per-model value as a K term. */
static Form *operand(Reorg *r, Value *a) {
  if (a->dom == DOM_EDGE) return decompose(r, a);
  if (per_model(a)) return form_term(r, &a->shape, SK, a, false);
  return NULL;
}

static Form *decompose1(Reorg *r, Value *e) {
  Value **a = e->args;
  if (e->op == OP_SCATTER) {
    switch (e->fn) {
    case FN_COPY_U: return form_term(r, &e->shape, SU, a[0], false);
    case FN_COPY_V: return form_term(r, &e->shape, SV, a[0], false);
    case FN_U_ADD_V: case FN_U_SUB_V: {
      Form *f = form_term(r, &e->shape, SU, a[0], false);
      f->s[SV].t[0] = (Term){a[1], e->fn == FN_U_SUB_V};
      f->s[SV].n = 1;
      return f;
    }
    case FN_U_CONCAT_V:
      return form_concat(r, form_term(r, &a[0]->shape, SU, a[0], false), form_term(r, &a[1]->shape, SV, a[1], false),
                         &e->shape);
    default:
      return NULL; /* u_mul_v, u_div_v, u_dot_v, argsel_v: not a sum of endpoint terms */
    }
  }
  if (e->op != OP_APPLY_EDGE) return NULL; /* inputs, edge_softmax: per-edge data */
  int nedge = 0, k = -1;
  for (int i = 0; i < e->nargs; i++)
    if (a[i]->dom == DOM_EDGE) nedge++, k = i;
  switch (e->fn) {
  case FN_ADD: case FN_SUB: {
    Form *f0 = operand(r, a[0]);
    return form_add(r, f0, operand(r, a[1]), e->fn == FN_SUB, &e->shape);
  }
  case FN_NEG: {
    Form *f = as_sum(r, decompose(r, a[0]));
    return f ? form_add(r, form_new(r, &e->shape), f, true, &e->shape) : NULL;
  }
  case FN_CONCAT: {
    Form *f0 = operand(r, a[0]);
    return form_concat(r, f0, operand(r, a[1]), &e->shape);
  }
  default:
    break;
  }
  if (nedge == 1) { /* a function of one edge value, the other operands per model */
    Map mp = {.fn = e->fn, .k = k, .nargs = e->nargs, .fattr = e->fattr, .iattr = e->iattr, .iattr2 = e->iattr2,
              .shape = e->shape, .out = e->shape};
    for (int i = 0; i < e->nargs; i++) mp.args[i] = a[i];
    return apply_map(r, &mp, decompose(r, a[k]));
  }
  /* several edge operands: a row-wise function of values read at the same endpoint */
  Value *x[GNN_MAX_ARGS];
  int mask = 0;
  for (int i = 0; i < e->nargs; i++) {
    x[i] = a[i];
    if (a[i]->dom != DOM_EDGE) continue;
    Form *f = decompose(r, a[i]);
    if (!f || fn_commutes_with_scatter(e->fn, i, FN_COPY_U) != SC_COMMUTE) return NULL;
    mask |= mask_of(f);
    if (mask == 3) return NULL;
    x[i] = mat_one(r, f);
    if (!x[i] || !shape_eq(&x[i]->shape, &a[i]->shape)) return NULL;
  }
  if (mask != 1 && mask != 2) return NULL;
  Map like = {.fattr = e->fattr, .iattr = e->iattr, .iattr2 = e->iattr2, .shape = e->shape};
  Value *y = mk_fn(r, e->fn, x, e->nargs, &like);
  return form_term(r, &e->shape, mask == 1 ? SU : SV, y, false);
}

/* The endpoint form of edge value e, or NULL where the algebra does not allow one. */
static Form *decompose(Reorg *r, Value *e) {
  for (int i = 0; i < r->nmemo; i++)
    if (r->memo[i].key == e) return r->memo[i].form;
  if (--r->budget < 0) return NULL;
  Form *f = decompose1(r, e);
  if (r->nmemo == r->memocap) {
    int cap = r->memocap ? 2 * r->memocap : 32;
    Memo *n = arena_alloc(&r->c->arena, sizeof(Memo) * (size_t)cap);
    if (r->nmemo) memcpy(n, r->memo, sizeof(Memo) * (size_t)r->nmemo);
    r->memo = n;
    r->memocap = cap;
  }
  r->memo[r->nmemo++] = (Memo){e, f};
  return f;
}

/* Parameter terms join the source side if it has a term, else the destination side. */
static bool endpoint_sides(Reorg *r, const Form *f, Value **U, bool *nu, Value **V, bool *nv) {
  Side u = f->s[SU], v = f->s[SV];
  Side *to = u.n ? &u : &v;
  for (int i = 0; i < f->s[SK].n; i++)
    if (!side_push(r, to, f->s[SK].t[i].v, f->s[SK].t[i].neg)) return false;
  return mat_side(r, &u, U, nu) && mat_side(r, &v, V, nv);
}

/* ---------------------------------------------------------------- rules */

/* An edge Apply whose form exists becomes one scatter of vertex values. */
static Value *edge_rule(Reorg *r, Value *e) {
  Form *f = decompose(r, e);
  if (!f) return NULL;
  int mask = mask_of(f);
  if (f->concat && mask == 3) {
    if (mask_of(f->a) != 1 || mask_of(f->b) != 2) return NULL;
    Value *a = mat_one(r, f->a);
    return mk_op(r, OP_SCATTER, FN_U_CONCAT_V, a, mat_one(r, f->b));
  }
  if (f->concat) f = as_sum(r, f);
  Value *U, *V;
  bool nu, nv;
  if (!f || !endpoint_sides(r, f, &U, &nu, &V, &nv)) return NULL;
  if (U && nu && !(V && nv)) U = mk1(r, FN_NEG, U);
  if (!V) return mk_op(r, OP_SCATTER, FN_COPY_U, U, NULL);
  if (!U) return mk_op(r, OP_SCATTER, FN_COPY_V, nv ? mk1(r, FN_NEG, V) : V, NULL);
  if (nu && nv) U = mk1(r, FN_NEG, U); /* -U_u - V_v = (-U)_u - V_v */
  return mk_op(r, OP_SCATTER, nv ? FN_U_SUB_V : FN_U_ADD_V, U, V);
}

/* How a term at the destination leaves each reduction: r_u(x_u + c_v) = r_u(x_u) + ind_v * c_v.
 * A vertex without in-edges gets 0 from the reduction, so ind must be 0 there: the in-degree
 * for sum (sum_u c_v = deg_in(v) c_v), sign(deg_in) for the others. mirror: r_u(-x_u) =
 * -mirror_u(x_u). factor: whether r_u f(e_uv, c_v) = f(r_u e_uv, c_v) for f linear in e. */
static const struct {
  FnKind r, mirror;
  bool by_degree, factor;
} reduce_rules[] = {
    {FN_SUM, FN_SUM, true, true},
    {FN_MEAN, FN_MEAN, false, true},
    {FN_MAX, FN_MIN, false, false},
    {FN_MIN, FN_MAX, false, false},
};

/* The functions a destination-only factor leaves a sum through (f(0, c) = 0, linear in the
 * other operand). Not div: 0 / 0 at a vertex without in-edges would give NaN, not 0. */
static const struct {
  OpKind op;
  FnKind fn, as;
} factor_fns[] = {
    {OP_APPLY_EDGE, FN_MUL, FN_MUL},
    {OP_APPLY_EDGE, FN_DOT, FN_DOT},
    {OP_SCATTER, FN_U_MUL_V, FN_MUL},
    {OP_SCATTER, FN_U_DOT_V, FN_DOT},
};

static Value *factor_rule(Reorg *r, Value *g, FnKind red) {
  Value *e = g->args[0];
  FnKind f = FN_NONE;
  for (size_t i = 0; i < sizeof factor_fns / sizeof factor_fns[0]; i++)
    if (e->op == factor_fns[i].op && e->fn == factor_fns[i].fn) f = factor_fns[i].as;
  if (f == FN_NONE || e->nargs != 2) return NULL;
  for (int j = 0; j < 2; j++) { /* j: the operand that depends on the destination only */
    int i = 1 - j, mark = r->m->vals.len;
    if (!(fn_info[f].algebra & (i == 0 ? A_LIN0 : A_LIN1))) continue;
    Value *c = NULL, *x = NULL;
    if (e->op == OP_SCATTER) { /* u_f_v(a, b) = f(copy_u a, copy_v b) */
      if (j == 0) continue;
      c = e->args[1];
      x = mk_op(r, OP_SCATTER, FN_COPY_U, e->args[0], NULL);
    } else if (e->args[i]->dom == DOM_EDGE) {
      x = e->args[i];
      if (per_model(e->args[j])) {
        c = e->args[j];
      } else {
        Form *fc = decompose(r, e->args[j]);
        if (fc && mask_of(fc) == 2) c = mat_one(r, fc);
      }
    }
    if (c && x) {
      Value *args[2];
      args[i] = mk_op(r, OP_GATHER, red, x, NULL);
      args[j] = c;
      Value *res = mk_fn(r, f, args, 2, NULL);
      if (res && shape_eq(&res->shape, &g->shape)) return res;
    }
    rollback(r, mark);
  }
  return NULL;
}

/* A neighbourhood reduction of a sum of endpoint terms keeps the source terms; the
 * destination terms leave it (times ind). Else a destination factor leaves a sum. */
static Value *reduce_rule(Reorg *r, Value *g) {
  int rule = -1;
  for (size_t i = 0; i < sizeof reduce_rules / sizeof reduce_rules[0]; i++)
    if (reduce_rules[i].r == g->fn) rule = (int)i;
  if (rule < 0 || g->iattr != GATHER_BY_DST) return NULL;
  Value *e = g->args[0];
  if (e->op == OP_SCATTER && e->fn == FN_COPY_U) return NULL; /* nothing to move */
  int mark = r->m->vals.len;
  Form *f = as_sum(r, decompose(r, e));
  Value *U, *V;
  bool nu, nv;
  if (f && endpoint_sides(r, f, &U, &nu, &V, &nv)) {
    /* G = r_u(U_u), or mirror_u(U_u) when the source terms are negated: r_u(-U_u) = -G */
    Value *G = U ? mk_op(r, OP_GATHER, nu ? reduce_rules[rule].mirror : g->fn, mk_op(r, OP_SCATTER, FN_COPY_U, U, NULL), NULL)
                 : NULL, *res = G;
    if (U && nu) res = V && !nv ? NULL : mk1(r, FN_NEG, G); /* -G + t is built below as t - G */
    if (V) {
      Value *deg = mk_deg_in(r);
      Value *t = mk2(r, FN_MUL, V, reduce_rules[rule].by_degree ? deg : mk1(r, FN_SIGN, deg));
      if (!U) res = nv ? mk1(r, FN_NEG, t) : t;  /*  ±t          */
      else if (!nu) res = mk2(r, nv ? FN_SUB : FN_ADD, G, t); /*  G ± t  */
      else if (!nv) res = mk2(r, FN_SUB, t, G);  /* -G + t       */
      else res = mk2(r, FN_SUB, res, t);         /* -G - t       */
    }
    if (res) return res;
  }
  rollback(r, mark);
  return reduce_rules[rule].factor ? factor_rule(r, g, g->fn) : NULL;
}

/* x.W1 +- x.W2 = x.(W1 +- W2): one projection instead of two. */
static Value *merge_rule(Reorg *r, Value *v) {
  if ((v->op != OP_APPLY_EDGE && v->op != OP_APPLY_VERTEX) || (v->fn != FN_ADD && v->fn != FN_SUB)) return NULL;
  Value *a = v->args[0], *b = v->args[1];
  if (a->op != v->op || b->op != v->op || a->fn != FN_LINEAR || b->fn != FN_LINEAR) return NULL;
  if (a->args[0] != b->args[0] || a->args[1] == b->args[1] || !shape_eq(&a->args[1]->shape, &b->args[1]->shape))
    return NULL;
  return mk2(r, FN_LINEAR, a->args[0], mk2(r, v->fn, a->args[1], b->args[1]));
}

/* W.y pushed into y as far as the algebra allows (project): W.sum(e) = sum(W.e), W.(c*z) =
 * c*(W.z) for c constant along z's last dim, W.(a +- b) = W.a +- W.b, W.(-z) = -(W.z),
 * W.copy_u(h) = copy_u(W.h) (copy_v, and u_mul_v / u_div_v with a per-row scalar side, alike);
 * elsewhere W.y itself. proto: the linear value (its W and attributes). */
static Value *push_linear(Reorg *r, Value *y, Value *W, int depth) {
  Value *a = y->nargs > 0 ? y->args[0] : NULL, *b = y->nargs > 1 ? y->args[1] : NULL;
  bool apply = y->op == OP_APPLY_EDGE || y->op == OP_APPLY_VERTEX;
  if (--r->budget < 0 || depth > 64 || y->bwd) return mk2(r, FN_LINEAR, y, W);
  if (y->op == OP_GATHER && (y->fn == FN_SUM || y->fn == FN_MEAN)) {
    Value *e = push_linear(r, a, W, depth + 1);
    Value p;
    memset(&p, 0, sizeof p);
    p.op = OP_GATHER;
    p.fn = y->fn;
    p.msg = FN_NONE;
    p.nargs = 1;
    p.args[0] = e;
    p.iattr = y->iattr;
    return e ? mk(r, &p) : NULL;
  }
  if (y->op == OP_SCATTER && (y->fn == FN_COPY_U || y->fn == FN_COPY_V))
    return mk_op(r, OP_SCATTER, y->fn, push_linear(r, a, W, depth + 1), NULL);
  if (y->op == OP_SCATTER && (y->fn == FN_U_MUL_V || y->fn == FN_U_DIV_V)) {
    if (b->shape.rank < a->shape.rank) return mk_op(r, OP_SCATTER, y->fn, push_linear(r, a, W, depth + 1), b);
    if (y->fn == FN_U_MUL_V && a->shape.rank < b->shape.rank) return mk_op(r, OP_SCATTER, y->fn, a, push_linear(r, b, W, depth + 1));
  }
  if (apply && (y->fn == FN_ADD || y->fn == FN_SUB) && shape_eq(&a->shape, &y->shape) && shape_eq(&b->shape, &y->shape) &&
      a->dom == y->dom && b->dom == y->dom)
    return mk2(r, y->fn, push_linear(r, a, W, depth + 1), push_linear(r, b, W, depth + 1));
  if (apply && y->fn == FN_NEG && a->dom == y->dom) return mk1(r, FN_NEG, push_linear(r, a, W, depth + 1));
  if (apply && (y->fn == FN_MUL || y->fn == FN_DIV)) {
    /* c * z, z * c, z / c: c's dims a strict prefix of z's, so constant along the contracted dim */
    if (b->shape.rank < a->shape.rank && a->dom == y->dom && shape_eq(&a->shape, &y->shape))
      return mk2(r, y->fn, push_linear(r, a, W, depth + 1), b);
    if (y->fn == FN_MUL && a->shape.rank < b->shape.rank && b->dom == y->dom && shape_eq(&b->shape, &y->shape))
      return mk2(r, y->fn, a, push_linear(r, b, W, depth + 1));
  }
  return mk2(r, FN_LINEAR, y, W);
}

/* W.y with y a propagation (project): the projection pushed in, when it narrows the row (the
 * cost model then compares the two). */
static Value *project_rule(Reorg *r, Value *v) {
  if ((v->op != OP_APPLY_VERTEX && v->op != OP_APPLY_EDGE) || v->fn != FN_LINEAR) return NULL;
  Value *y = v->args[0], *W = v->args[1];
  if (!per_model(W) || shape_elems(&v->shape) >= shape_elems(&y->shape)) return NULL;
  if (!(y->op == OP_GATHER || y->op == OP_SCATTER || y->op == OP_APPLY_VERTEX || y->op == OP_APPLY_EDGE)) return NULL;
  Value *rep = push_linear(r, y, W, 0);
  return rep && rep->op == v->op && rep->fn == FN_LINEAR && rep->args[0] == y ? NULL : rep;
}

/* ---------------------------------------------------------------- profitability */

static int poly_cmp(CostPoly a, CostPoly b) {
  if (a.e != b.e) return a.e < b.e ? -1 : 1;
  if (a.v != b.v) return a.v < b.v ? -1 : 1;
  if (a.c != b.c) return a.c < b.c ? -1 : 1;
  return 0;
}

static void cost_sum(const Value *v, CostPoly *flops, CostPoly *bytes) {
  Cost c = cost_of(v);
  cost_add(flops, c.flops);
  cost_add(bytes, c.read);
  cost_add(bytes, c.write);
}

/* Whether replacing v by rep, with the values built since mark, lowers the cost: the values
 * that die with v (v, and every operand whose uses all die) against the values built. */
static bool cheaper(Reorg *r, Value *v, Value *rep, int mark) {
  CostPoly fo = {0, 0, 0}, bo = {0, 0, 0}, fn = {0, 0, 0}, bn = {0, 0, 0};
  Value *dead[MAXDEAD];
  int nd = 0;
  dead[nd++] = v;
  rep->nuses++; /* it takes over v's uses */
  for (int i = 0; i < nd; i++)
    for (int k = 0; k < dead[i]->nargs; k++) {
      Value *a = dead[i]->args[k];
      bool seen = is_leaf(a);
      int uses = 0;
      for (int j = 0; j < nd && !seen; j++) {
        seen = dead[j] == a;
        for (int kk = 0; kk < dead[j]->nargs; kk++) uses += dead[j]->args[kk] == a;
      }
      if (!seen && uses == a->nuses && nd < MAXDEAD) dead[nd++] = a;
    }
  rep->nuses--;
  for (int i = 0; i < nd; i++) cost_sum(dead[i], &fo, &bo);
  for (int i = mark; i < r->m->vals.len; i++) cost_sum(r->m->vals.items[i], &fn, &bn);
  int c = poly_cmp(fn, fo);
  return c < 0 || (c == 0 && poly_cmp(bn, bo) < 0);
}

/* Runs rule on v: its replacement if it is well typed and cheaper, else NULL with everything
 * the rule built removed. */
static Value *attempt(Reorg *r, Value *v, Rule rule) {
  int mark = r->m->vals.len;
  r->root = v;
  r->budget = BUDGET;
  r->nmemo = 0;
  Value *rep = rule(r, v);
  if (rep && rep != v && rep->dom == v->dom && rep->elem == v->elem && shape_eq(&rep->shape, &v->shape) &&
      cheaper(r, v, rep, mark))
    return rep;
  rollback(r, mark);
  return NULL;
}

/* ---------------------------------------------------------------- the pass */

static void release(Value *a) {
  if (--a->nuses > 0 || a->op == OP_INPUT || a->dead) return;
  a->dead = true;
  for (int k = 0; k < a->nargs; k++) release(a->args[k]);
}

/* One sweep in definition order; values built by a rule are placed before the value they
 * replace. Returns true if any rewrite was kept. */
static bool sweep(Reorg *r) {
  Module *m = r->m;
  module_count_uses(m);
  PtrVec old = m->vals;
  m->vals = (PtrVec){0};
  r->table = NULL;
  r->cap = r->count = 0;
  table_grow(r, old.len + 64);
  bool changed = false;
  for (int i = 0; i < old.len; i++) {
    Value *v = old.items[i];
    if (v->dead) continue;
    for (int k = 0; k < v->nargs; k++) v->args[k] = resolve(v->args[k]);
    Value *rep = NULL;
    if (!v->bwd) {
      if (v->op == OP_APPLY_EDGE) rep = attempt(r, v, edge_rule);
      if (!rep && v->op == OP_GATHER) rep = attempt(r, v, reduce_rule);
      if (!rep && (v->fn == FN_ADD || v->fn == FN_SUB)) rep = attempt(r, v, merge_rule);
      if (!rep && v->fn == FN_LINEAR) rep = attempt(r, v, project_rule);
    }
    if (rep) {
      v->repl = rep;
      ir_inherit_label(rep, v);
      v->dead = true;
      rep->nuses += v->nuses;
      v->nuses = 0;
      for (int k = 0; k < v->nargs; k++) release(v->args[k]);
      changed = true;
      continue;
    }
    v->id = m->vals.len; /* placement order, as new values get */
    vec_push(m->arena, &m->vals, v);
    table_put(r, v);
  }
  for (int i = 0; i < m->nouts; i++) m->outs[i].val = resolve(m->outs[i].val);
  module_compact(m);
  return changed;
}

bool pass_reorg(GnnCtx *c, Module *m) {
  Reorg r = {.c = c, .m = m};
  bool changed = false;
  for (int round = 0; round < 32 && sweep(&r); round++) changed = true;
  if (changed) canon_cleanup(c, m); /* gSDDMM from copy pairs, CSE, DCE */
  module_count_uses(m);
  return changed;
}
