/* canonicalize.c -- one normal form for the passes after it.
 *
 * Requires: a verified module. Guarantees: the same results (up to float rounding of folded
 * constants), in a form with no sugar, no duplicates and no dead code:
 *   1. sugar:   gather.mean(e)  ->  gather.sum(e) * inv_or_zero(degree.in)
 *               (mean over no in-edges is 0, as the interpreter defines it)
 *   2. gSDDMM:  apply_edge.f(scatter.copy_u(a), scatter.copy_v(b)) -> scatter.u_f_v(a, b)
 *               for f in add, sub, mul, div, dot, concat (and v-then-u for add, mul, dot):
 *               the Scatter functions of the paper, which reorg's rules are written against
 *   3. folding: apply_global of constants -> constant; x*1, 1*x, x+0, 0+x, x-0, x/1 -> x
 *               (when the result has x's shape); neg(neg x) -> x; dropout{p=0} x -> x
 *   4. CSE:     identical operators on identical operands are computed once
 *   5. DCE:     values the output does not depend on are dropped (inputs are kept: they are
 *               the model's signature)
 * Steps 1-4 run in one sweep in definition order, repeated until nothing changes.
 * canon_cleanup runs steps 2, 4 and 5 only, for passes that rewrite a canonical module (reorg);
 * canon_same / canon_hash are step 4's key, for passes that hash-cons the values they build.
 *
 * canonicalize_backward runs the same steps on the backward values of a training module only
 * (autodiff calls it on what it built): forward values are neither rewritten, merged nor
 * removed, and a value a rewrite creates belongs to the pass (forward or backward) of the
 * value it replaces. CSE never merges a backward value with a forward one (see canon_same()).
 */
#include "../passes.h"

#include <math.h>
#include <string.h>

static bool is_const(const Value *v, double x) { return v->op == OP_CONST && v->fattr == x; }

static Value *make(Module *m, OpKind op, FnKind fn, Value **args, int n, Loc loc) {
  const char *why = NULL;
  return ir_make(m, op, fn, args, n, 0, 0, loc, &why); /* NULL if the rewrite would be ill-typed */
}

static double fold1(FnKind fn, double x, double fattr) {
  switch (fn) {
  case FN_NEG: return -x;
  case FN_RELU: return x > 0 ? x : 0;
  case FN_LEAKY_RELU: return x > 0 ? x : fattr * x;
  case FN_ELU: return x > 0 ? x : fattr * (exp(x) - 1);
  case FN_TANH: return tanh(x);
  case FN_SIGMOID: return 1 / (1 + exp(-x));
  case FN_EXP: return exp(x);
  case FN_LOG: return log(x);
  case FN_SQRT: return sqrt(x);
  case FN_RSQRT: return 1 / sqrt(x);
  case FN_ABS: return fabs(x);
  case FN_INV_OR_ZERO: return x == 0 ? 0 : 1 / x;
  case FN_POW: return pow(x, fattr);
  default: return NAN;
  }
}

/* Returns a replacement for v, or v itself. New values are appended to m->vals.
 * full = false: step 2 only (the cleanup after reorg). */
static Value *simplify(Module *m, Value *v, bool full) {
  Value *a = v->nargs > 0 ? v->args[0] : NULL, *b = v->nargs > 1 ? v->args[1] : NULL;
  bool apply = v->op == OP_APPLY_EDGE || v->op == OP_APPLY_VERTEX || v->op == OP_APPLY_GLOBAL;

  /* 1. mean = sum * inv_or_zero(in-degree), over out-edges (mean_out) the out-degree */
  if (full && v->op == OP_GATHER && v->fn == FN_MEAN) {
    Shape sc = {0, {0}};
    const char *why = NULL;
    Value *sum = ir_make(m, OP_GATHER, FN_SUM, &a, 1, 0, v->iattr, v->loc, &why);
    Value *deg = ir_leaf(m, OP_DEGREE, v->iattr == GATHER_BY_SRC ? FN_OUT : FN_IN, DOM_VERTEX, &sc, NULL, 0, v->loc);
    Value *inv = make(m, OP_APPLY_VERTEX, FN_INV_OR_ZERO, &deg, 1, v->loc);
    Value *args[2] = {sum, inv};
    Value *r = sum && inv ? make(m, OP_APPLY_VERTEX, FN_MUL, args, 2, v->loc) : NULL;
    return r ? r : v;
  }

  /* 2. copy_u / copy_v pairs under an edge function become one Scatter function */
  if (v->op == OP_APPLY_EDGE && v->nargs == 2 && a->op == OP_SCATTER && b->op == OP_SCATTER) {
    static const struct { FnKind apply, scatter; bool commutes; } pairs[] = {
        {FN_ADD, FN_U_ADD_V, true}, {FN_SUB, FN_U_SUB_V, false}, {FN_MUL, FN_U_MUL_V, true},
        {FN_DIV, FN_U_DIV_V, false}, {FN_DOT, FN_U_DOT_V, true}, {FN_CONCAT, FN_U_CONCAT_V, false}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
      if (pairs[i].apply != v->fn) continue;
      Value *args[2] = {NULL, NULL};
      if (a->fn == FN_COPY_U && b->fn == FN_COPY_V) {
        args[0] = a->args[0];
        args[1] = b->args[0];
      } else if (pairs[i].commutes && a->fn == FN_COPY_V && b->fn == FN_COPY_U) {
        args[0] = b->args[0];
        args[1] = a->args[0];
      }
      if (args[0]) {
        Value *r = make(m, OP_SCATTER, pairs[i].scatter, args, 2, v->loc);
        if (r && shape_eq(&r->shape, &v->shape)) return r;
        if (r) r->dead = true;
      }
    }
  }

  if (!apply || !full) return v;

  /* 3. folding */
  if (v->op == OP_APPLY_GLOBAL && v->shape.rank == 0) {
    bool all_const = true;
    for (int i = 0; i < v->nargs; i++) all_const &= v->args[i]->op == OP_CONST;
    if (all_const) {
      double x = a->fattr, y = b ? b->fattr : 0, r = NAN;
      switch (v->fn) {
      case FN_ADD: r = x + y; break;
      case FN_SUB: r = x - y; break;
      case FN_MUL: r = x * y; break;
      case FN_DIV: r = x / y; break;
      case FN_MAXIMUM: r = x >= y ? x : y; break;
      case FN_MINIMUM: r = x <= y ? x : y; break;
      case FN_GT: r = x > y; break;
      case FN_GE: r = x >= y; break;
      case FN_LT: r = x < y; break;
      case FN_LE: r = x <= y; break;
      case FN_EQ: r = x == y; break;
      case FN_NE: r = x != y; break;
      case FN_WHERE: r = a->fattr != 0 ? y : v->args[2]->fattr; break;
      case FN_DROPOUT: r = x; break;
      default: r = fold1(v->fn, x, v->fattr);
      }
      if (isfinite(r)) return ir_leaf(m, OP_CONST, FN_NONE, DOM_GLOBAL, &v->shape, NULL, r, v->loc);
    }
  }
  if (v->nargs == 2) {
    if ((v->fn == FN_MUL && is_const(b, 1)) || (v->fn == FN_ADD && is_const(b, 0)) ||
        (v->fn == FN_SUB && is_const(b, 0)) || (v->fn == FN_DIV && is_const(b, 1)))
      if (shape_eq(&a->shape, &v->shape) && a->dom == v->dom) return a;
    if ((v->fn == FN_MUL && is_const(a, 1)) || (v->fn == FN_ADD && is_const(a, 0)))
      if (shape_eq(&b->shape, &v->shape) && b->dom == v->dom) return b;
  }
  if (v->fn == FN_NEG && a->fn == FN_NEG && a->op == v->op) return a->args[0];
  if (v->fn == FN_DROPOUT && v->fattr == 0) return a;
  return v;
}

/* 4. CSE key equality: same operator, attributes and operands. */
bool canon_same(const Value *x, const Value *y) {
  if (x->op != y->op || x->fn != y->fn || x->msg != y->msg || x->nargs != y->nargs) return false;
  /* Attributes compare bit for bit: 0.0 and -0.0 are different constants (1/x tells). */
  if (memcmp(&x->fattr, &y->fattr, sizeof x->fattr) != 0 || x->iattr != y->iattr || x->iattr2 != y->iattr2) return false;
  /* A backward value equal to a forward one stays separate: stash or recompute is the
   * checkpoint pass's choice, not CSE's. Shapes differ only for reshape. */
  if (x->elem != y->elem || x->bwd != y->bwd || !shape_eq(&x->shape, &y->shape)) return false;
  if ((x->name || y->name) && (!x->name || !y->name || strcmp(x->name, y->name) != 0)) return false;
  if (x->op == OP_INPUT || x->op == OP_PARAM) return x == y || (x->name && y->name && strcmp(x->name, y->name) == 0);
  for (int i = 0; i < x->nargs; i++)
    if (x->args[i] != y->args[i]) return false;
  return true;
}

uint64_t canon_hash(const Value *v) {
  uint64_t h = (uint64_t)v->op * 1000003u ^ (uint64_t)v->fn * 7919u ^ (uint64_t)v->msg * 131u ^ (uint64_t)v->iattr ^
               (uint64_t)v->iattr2 * 0x9e3779b1u;
  uint64_t f;
  memcpy(&f, &v->fattr, sizeof f);
  h ^= f + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  for (int i = 0; i < v->nargs; i++) h = h * 31 + (uint64_t)(uintptr_t)v->args[i];
  if (v->name)
    for (const char *p = v->name; *p; p++) h = h * 33 + (unsigned char)*p;
  return h;
}

/* One sweep of steps 1-4 (over the backward values only if bwd_only; full = false: step 2's
 * rewrites only, the cleanup after reorg). Returns true if anything changed. */
static bool sweep(GnnCtx *c, Module *m, bool full, bool bwd_only) {
  PtrVec old = m->vals;
  m->vals = (PtrVec){0};
  int cap = 1;
  while (cap < old.len * 4) cap *= 2;
  Value **table = arena_alloc(&c->arena, sizeof(Value *) * (size_t)cap);
  bool changed = false;
  for (int i = 0; i < old.len; i++) {
    Value *v = old.items[i];
    if (bwd_only && !v->bwd) { /* the forward is left as it is */
      v->id = m->vals.len;
      vec_push(m->arena, &m->vals, v);
      continue;
    }
    for (int k = 0; k < v->nargs; k++) v->args[k] = resolve(v->args[k]);
    int made = m->vals.len;
    Value *r = simplify(m, v, full); /* values it creates are already in m->vals */
    for (int k = made; k < m->vals.len; k++) ((Value *)m->vals.items[k])->bwd = v->bwd; /* part of v's pass */
    if (r != v) {
      v->repl = r;
      ir_inherit_label(r, v);
      v->dead = true;
      changed = true;
      continue;
    }
    uint64_t h = canon_hash(v) & (uint64_t)(cap - 1);
    Value *dup = NULL;
    for (uint64_t j = h; table[j]; j = (j + 1) & (uint64_t)(cap - 1))
      if (canon_same(table[j], v)) {
        dup = table[j];
        break;
      }
    if (dup) {
      v->repl = dup;
      ir_inherit_label(dup, v);
      v->dead = true;
      changed = true;
      continue;
    }
    uint64_t j = h;
    while (table[j]) j = (j + 1) & (uint64_t)(cap - 1);
    table[j] = v;
    v->id = m->vals.len;
    vec_push(m->arena, &m->vals, v);
  }
  for (int i = 0; i < m->nouts; i++) m->outs[i].val = resolve(m->outs[i].val);
  for (int i = 0; i < m->vals.len; i++) ((Value *)m->vals.items[i])->id = i;
  return changed;
}

/* 5. DCE: keep what the outputs need, and the inputs (and, if bwd_only, every forward value). */
static bool dce(Module *m, bool bwd_only) {
  for (int i = 0; i < m->vals.len; i++) ((Value *)m->vals.items[i])->dead = true;
  for (int i = 0; i < m->nouts; i++) m->outs[i].val->dead = false;
  for (int i = m->vals.len - 1; i >= 0; i--) {
    Value *v = m->vals.items[i];
    if (v->op == OP_INPUT || (bwd_only && !v->bwd)) v->dead = false;
    if (v->dead) continue;
    for (int k = 0; k < v->nargs; k++) v->args[k]->dead = false;
  }
  int before = m->vals.len;
  module_compact(m);
  return m->vals.len != before;
}

bool pass_canonicalize(GnnCtx *c, Module *m) {
  bool changed = false;
  for (int round = 0; round < 16 && sweep(c, m, true, false); round++) changed = true;
  changed |= dce(m, false);
  module_count_uses(m);
  return changed;
}

bool canon_cleanup(GnnCtx *c, Module *m) {
  bool changed = false;
  for (int round = 0; round < 16 && sweep(c, m, false, false); round++) changed = true;
  changed |= dce(m, false);
  module_count_uses(m);
  return changed;
}

bool canonicalize_backward(GnnCtx *c, Module *m) {
  bool changed = false;
  for (int round = 0; round < 16 && sweep(c, m, true, true); round++) changed = true;
  changed |= dce(m, true);
  module_count_uses(m);
  return changed;
}
