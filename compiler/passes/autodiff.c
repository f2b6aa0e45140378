/* autodiff.c -- reverse-mode differentiation over the operator IR: the joint forward+backward
 * module (paper, appendix B).
 *
 * Requires: a verified forward module (no value marked bwd) without aggregates (compose runs
 * after this pass); written for canonical form but correct without it (gather.mean has its
 * own rule). Guarantees: the forward values are left as they are; the only forward values
 * added are a gather.argmax/argmin beside each differentiated gather.max/min, which the
 * backward reads. Appended after the forward:
 *   - the seed: `input.vertex "grad.out"` (input.edge for an edge output), the gradient of
 *     the loss with respect to `out`, of out's shape;
 *   - the backward values, all marked bwd, reading forward values and each other;
 *   - one output "grad.<param>" per parameter, in the order the params appear in the module:
 *     dL/dparam as a global value of the param's shape (an explicit zero when no path leads
 *     from the param to out).
 *
 * How. Values are visited in reverse definition order. Each forward value that depends on a
 * parameter has an adjoint: the sum of the contributions of its uses (a chain of `add`s, in
 * the order the uses are visited). When a value is visited, all of its uses (which come after
 * it) have contributed, so its adjoint is complete, and its rule adds one contribution to
 * each operand that depends on a parameter. The rules, one per operator and function, are
 * those of appendix B in the same operators: the backward of a Gather is a Scatter (and an
 * ApplyEdge), of a Scatter a Gather (and an ApplyVertex), of an Apply one Apply per operand
 * (docs/passes/autodiff.md lists every rule). A contribution is then reduced to the operand's
 * type: `sum_last` over trailing dims the operand was broadcast along (prefix broadcasting),
 * then `reduce_rows.sum` if the operand is a param/global read by every row of a vertex or
 * edge value. Values no parameter reaches get no adjoint, so nothing is built for them.
 *
 * Finally canonicalize_backward (canonicalize.c) folds, CSEs and drops dead code among the
 * backward values only: the forward is left exactly as it was, and forward and backward
 * values are never merged (whether the backward recomputes or stashes a forward value is the
 * checkpoint pass's decision, not CSE's).
 *
 * A missing rule is a compiler bug, not a user error, and aborts with an internal error
 * naming the value: aggregate (compose runs after this pass), reduce_rows.matmul_tn and
 * argsel_v never occur in a forward module that sema and canonicalize build (reduce_rows.sum
 * does: batch_norm; gather.max/min over out-edges, max_out and min_out, share dy among the
 * out-edges attaining the extremum, as readout.max does among a graph's vertices). Rules for functions sema never emits (pad, reshape, linear_t, sign,
 * inv_or_zero, the *_grad functions, gathers by src) are there for passes that run before this
 * one (reorg) and are checked by tests/grad/rules.c; slice and sum_last (slice(), layer_norm)
 * and the builtins of issue 16 (maximum/minimum, the comparisons, where, pow, transpose,
 * log_softmax) are reached from source too (tests/grad/lang_builtins.gnn, tests/lang/).
 */
#include "../passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  Module *m;
  int nfwd;       /* values [0, nfwd) are the forward pass */
  bool *need;     /* per forward value: depends on a parameter (so it has a gradient) */
  Value **adj;    /* per forward value: its adjoint so far, or NULL */
  Value **arg;    /* per forward value: the argmax/argmin made for a gather.max/min */
} AD;

static _Noreturn void internal(const Value *v, const char *what) {
  fprintf(stderr, "gnnc: internal error: autodiff: %%%d %s.%s: %s\n", v->id, op_info[v->op].name,
          fn_info[v->fn].name, what);
  abort();
}

/* ---------------------------------------------------------------- building backward values */

/* Builds a backward value from proto (op, fn, operands, attributes); a rule that builds an
 * ill-typed value is a bug in this file. */
static Value *mk(AD *ad, Value *p) {
  const char *why = NULL;
  p->bwd = true;
  Value *v = ir_make_like(ad->m, p, &why);
  if (!v) {
    fprintf(stderr, "gnnc: internal error: autodiff built an ill-typed %s.%s: %s\n", op_info[p->op].name,
            fn_info[p->fn].name, why);
    abort();
  }
  return v;
}

static Value proto(OpKind op, FnKind fn, Value *a, Value *b) {
  Value p;
  memset(&p, 0, sizeof p);
  p.op = op;
  p.fn = fn;
  p.msg = FN_NONE;
  p.args[0] = a;
  p.args[1] = b;
  p.nargs = b ? 2 : 1;
  return p;
}

/* apply_edge, apply_vertex, apply_graph or apply_global, as the operands' domains say. */
static Value *apply_attr(AD *ad, FnKind fn, Value *a, Value *b, double f, int64_t i1, int64_t i2) {
  Value *ops[2] = {a, b};
  Value p = proto(apply_op_for(apply_domain(ops, b ? 2 : 1)), fn, a, b);
  p.fattr = f;
  p.iattr = i1;
  p.iattr2 = i2;
  return mk(ad, &p);
}

static Value *apply2(AD *ad, FnKind fn, Value *a, Value *b) { return apply_attr(ad, fn, a, b, 0, 0, 0); }

static Value *constant(AD *ad, double x);

/* where(c, a, b), the one three-operand function. */
static Value *where3(AD *ad, Value *c, Value *a, Value *b) {
  Value *ops[3] = {c, a, b};
  Value p = proto(apply_op_for(apply_domain(ops, 3)), FN_WHERE, c, a);
  p.args[2] = b;
  p.nargs = 3;
  return mk(ad, &p);
}
static Value *apply1(AD *ad, FnKind fn, Value *a) { return apply_attr(ad, fn, a, NULL, 0, 0, 0); }

static Value *scatter(AD *ad, FnKind fn, Value *a, Value *b) {
  Value p = proto(OP_SCATTER, fn, a, b);
  return mk(ad, &p);
}

static Value *gather(AD *ad, FnKind fn, Value *e, int by) {
  Value p = proto(OP_GATHER, fn, e, NULL);
  p.iattr = by;
  return mk(ad, &p);
}

static Value *readout(AD *ad, FnKind fn, Value *x) {
  Value p = proto(OP_READOUT, fn, x, NULL);
  return mk(ad, &p);
}

static Value *broadcast(AD *ad, Value *u) {
  Value p = proto(OP_BROADCAST, FN_NONE, u, NULL);
  return mk(ad, &p);
}

static Value *reduce_rows(AD *ad, FnKind fn, Value *a, Value *b) {
  Value p = proto(OP_REDUCE_ROWS, fn, a, b);
  return mk(ad, &p);
}

static Value *reshape(AD *ad, Value *a, const Shape *to) {
  Value p = proto(apply_op_for(a->dom), FN_RESHAPE, a, NULL);
  p.shape = *to;
  return mk(ad, &p);
}

static Value *constant(AD *ad, double x) {
  Shape sc = {0, {0}};
  Value *v = ir_leaf(ad->m, OP_CONST, FN_NONE, DOM_GLOBAL, &sc, NULL, x, (Loc){0, 0, 0});
  v->bwd = true;
  return v;
}

static Value *degree(AD *ad, FnKind dir) {
  Shape sc = {0, {0}};
  Value *v = ir_leaf(ad->m, OP_DEGREE, dir, dir == FN_SIZE ? DOM_GRAPH : DOM_VERTEX, &sc, NULL, 0, (Loc){0, 0, 0});
  v->bwd = true;
  return v;
}

/* A global value of the given shape with every element x: const x repeated dim by dim,
 * innermost first (repeat prepends a dim). */
static Value *filled(AD *ad, const Shape *s, double x) {
  Value *v = constant(ad, x);
  for (int i = s->rank - 1; i >= 0; i--) v = apply_attr(ad, FN_REPEAT, v, NULL, 0, s->d[i], 0);
  return v;
}

/* v broadcast to shape s, of which v's shape is a prefix: v * ones(s). */
static Value *expand(AD *ad, Value *v, const Shape *s) {
  if (shape_eq(&v->shape, s)) return v;
  return apply2(ad, FN_MUL, v, filled(ad, s, 1));
}

static int64_t last_dim(const Shape *s) { return s->rank ? s->d[s->rank - 1] : 1; }

/* The part [from, to) of g's last dim, shaped as x (a scalar row of x counts as [1]). */
static Value *slice_as(AD *ad, Value *g, int64_t from, int64_t to, const Value *x) {
  Value *s = apply_attr(ad, FN_SLICE, g, NULL, 0, from, to);
  return x->shape.rank == 0 ? reshape(ad, s, &x->shape) : s;
}

/* ---------------------------------------------------------------- adjoints */

/* Adds the contribution g to x's adjoint, after reducing it to x's type: sum_last over the
 * trailing dims x was broadcast along, and reduce_rows.sum when x is a param/global value
 * read by every row of a vertex or edge value. */
static void accum(AD *ad, Value *x, Value *g) {
  if (x->id >= ad->nfwd || !ad->need[x->id]) return;
  while (g->shape.rank > x->shape.rank) g = apply1(ad, FN_SUM_LAST, g);
  bool x_one_row = !dom_has_rows(x->dom);
  if (x_one_row && dom_has_rows(g->dom)) g = reduce_rows(ad, FN_SUM, g, NULL);
  if (!shape_eq(&g->shape, &x->shape) || (x_one_row ? g->dom != DOM_GLOBAL : g->dom != x->dom))
    internal(x, "a contribution to its gradient has the wrong type");
  Value **a = &ad->adj[x->id];
  *a = *a ? apply2(ad, FN_ADD, *a, g) : g;
}

/* Operand i of dot-like f(a, b) = sum over the last dim of broadcast(a) * broadcast(b), with
 * L the broadcast shape: dy broadcast to L, times the other operand (as a row value: other). */
static Value *dot_part(AD *ad, Value *g, Value *other, const Shape *L) {
  return shape_eq(&other->shape, L) ? apply2(ad, FN_MUL, g, other) : apply2(ad, FN_MUL, expand(ad, g, L), other);
}

static const Shape *longer(const Value *a, const Value *b) { return a->shape.rank >= b->shape.rank ? &a->shape : &b->shape; }

/* The rule of an Apply function: y = f(a[, b]) with adjoint g. */
static void apply_rule(AD *ad, Value *y, Value *g) {
  Value *a = y->args[0], *b = y->nargs > 1 ? y->args[1] : NULL;
  bool na = ad->need[a->id], nb = b && ad->need[b->id];
  switch (y->fn) {
  case FN_ADD: if (na) accum(ad, a, g); if (nb) accum(ad, b, g); return;
  case FN_SUB: if (na) accum(ad, a, g); if (nb) accum(ad, b, apply1(ad, FN_NEG, g)); return;
  case FN_MUL:
    if (na) accum(ad, a, apply2(ad, FN_MUL, g, b));
    if (nb) accum(ad, b, apply2(ad, FN_MUL, g, a));
    return;
  case FN_DIV: /* d/da = 1/b; d/db = -a/b^2 = -y/b */
    if (na) accum(ad, a, apply2(ad, FN_DIV, g, b));
    if (ad->need[b->id]) accum(ad, b, apply1(ad, FN_NEG, apply2(ad, FN_DIV, apply2(ad, FN_MUL, g, y), b)));
    return;
  case FN_NEG: if (na) accum(ad, a, apply1(ad, FN_NEG, g)); return;
  case FN_RELU: if (na) accum(ad, a, apply2(ad, FN_RELU_GRAD, a, g)); return;
  case FN_LEAKY_RELU: if (na) accum(ad, a, apply_attr(ad, FN_LEAKY_RELU_GRAD, a, g, y->fattr, 0, 0)); return;
  case FN_ELU: if (na) accum(ad, a, apply_attr(ad, FN_ELU_GRAD, a, g, y->fattr, 0, 0)); return;
  case FN_TANH: /* 1 - y^2 */
    if (na) accum(ad, a, apply2(ad, FN_MUL, g, apply2(ad, FN_SUB, constant(ad, 1), apply2(ad, FN_MUL, y, y))));
    return;
  case FN_SIGMOID: /* y (1 - y) */
    if (na) accum(ad, a, apply2(ad, FN_MUL, g, apply2(ad, FN_MUL, y, apply2(ad, FN_SUB, constant(ad, 1), y))));
    return;
  case FN_EXP: if (na) accum(ad, a, apply2(ad, FN_MUL, g, y)); return;
  case FN_LOG: if (na) accum(ad, a, apply2(ad, FN_DIV, g, a)); return;
  case FN_SQRT: /* 1 / (2 y) */
    if (na) accum(ad, a, apply2(ad, FN_DIV, apply2(ad, FN_MUL, g, constant(ad, 0.5)), y));
    return;
  case FN_RSQRT: /* -x^(-3/2) / 2 = -0.5 y / x */
    if (na) accum(ad, a, apply2(ad, FN_MUL, g, apply2(ad, FN_MUL, constant(ad, -0.5), apply2(ad, FN_DIV, y, a))));
    return;
  case FN_ABS: if (na) accum(ad, a, apply2(ad, FN_MUL, g, apply1(ad, FN_SIGN, a))); return;
  case FN_SIGN: return; /* zero almost everywhere */
  case FN_GT: case FN_GE: case FN_LT: case FN_LE: case FN_EQ: case FN_NE: return; /* piecewise constant */
  case FN_ONE_HOT: return; /* of a label */
  case FN_MAXIMUM: case FN_MINIMUM: { /* dy to the operand taken; at a tie half to each, as torch.maximum/minimum */
    FnKind a_wins = y->fn == FN_MAXIMUM ? FN_GT : FN_LT, b_wins = y->fn == FN_MAXIMUM ? FN_LT : FN_GT;
    Value *half_tie = apply2(ad, FN_MUL, constant(ad, 0.5), apply2(ad, FN_EQ, a, b));
    if (na) accum(ad, a, apply2(ad, FN_MUL, g, apply2(ad, FN_ADD, apply2(ad, a_wins, a, b), half_tie)));
    if (nb) accum(ad, b, apply2(ad, FN_MUL, g, apply2(ad, FN_ADD, apply2(ad, b_wins, a, b), half_tie)));
    return;
  }
  case FN_WHERE: { /* y = where(c, p, q) with c = a, p = b: dy to p where c != 0, to q elsewhere; c gets none */
    Value *q = y->args[2];
    if (nb) accum(ad, b, where3(ad, a, g, constant(ad, 0)));
    if (ad->need[q->id]) accum(ad, q, where3(ad, a, constant(ad, 0), g));
    return;
  }
  case FN_POW: /* p x^(p-1) */
    if (na && y->fattr != 0)
      accum(ad, a, y->fattr == 1 ? g
                                 : apply2(ad, FN_MUL, g, apply2(ad, FN_MUL, constant(ad, y->fattr),
                                                                apply_attr(ad, FN_POW, a, NULL, y->fattr - 1, 0, 0))));
    return;
  case FN_TRANSPOSE: if (na) accum(ad, a, apply1(ad, FN_TRANSPOSE, g)); return;
  case FN_LOG_SOFTMAX: /* dx = dy - softmax(x) sum_last(dy), softmax(x) = exp(y) */
    if (na) accum(ad, a, apply2(ad, FN_SUB, g, apply2(ad, FN_MUL, apply1(ad, FN_EXP, y), apply1(ad, FN_SUM_LAST, g))));
    return;
  case FN_INV_OR_ZERO: /* -1/x^2 = -y^2 (and 0 where x = 0, where y = 0) */
    if (na) accum(ad, a, apply1(ad, FN_NEG, apply2(ad, FN_MUL, g, apply2(ad, FN_MUL, y, y))));
    return;
  case FN_DROPOUT: /* the same mask: same stream, same p, same rows */
    if (na) accum(ad, a, apply_attr(ad, FN_DROPOUT, g, NULL, y->fattr, y->iattr, 0));
    return;
  case FN_RELU_GRAD: case FN_LEAKY_RELU_GRAD: /* dy * f'(x): linear in dy, f' piecewise constant in x */
    if (nb) accum(ad, b, apply_attr(ad, y->fn, a, g, y->fattr, 0, 0));
    return;
  case FN_ELU_GRAD: /* d/dx (dy f'(x)) = dy alpha e^x for x <= 0, else 0 = elu_grad(x, g dy) - relu_grad(x, g dy) */
    if (nb) accum(ad, b, apply_attr(ad, FN_ELU_GRAD, a, g, y->fattr, 0, 0));
    if (na) {
      Value *gd = apply2(ad, FN_MUL, g, b);
      if (na) accum(ad, a, apply2(ad, FN_SUB, apply_attr(ad, FN_ELU_GRAD, a, gd, y->fattr, 0, 0), apply2(ad, FN_RELU_GRAD, a, gd)));
    }
    return;
  case FN_CONCAT: {
    int64_t la = last_dim(&a->shape), lb = last_dim(&b->shape);
    if (ad->need[a->id]) accum(ad, a, slice_as(ad, g, 0, la, a));
    if (ad->need[b->id]) accum(ad, b, slice_as(ad, g, la, la + lb, b));
    return;
  }
  case FN_SLICE: if (na) accum(ad, a, apply_attr(ad, FN_PAD, g, NULL, 0, y->iattr, last_dim(&a->shape))); return;
  case FN_PAD: if (na) accum(ad, a, apply_attr(ad, FN_SLICE, g, NULL, 0, y->iattr, y->iattr + last_dim(&a->shape))); return;
  case FN_FLATTEN: case FN_RESHAPE: if (na) accum(ad, a, reshape(ad, g, &a->shape)); return;
  case FN_SUM_LAST: if (na) accum(ad, a, expand(ad, g, &a->shape)); return;
  case FN_DOT: {
    const Shape *L = longer(a, b);
    if (ad->need[a->id]) accum(ad, a, dot_part(ad, g, b, L));
    if (ad->need[b->id]) accum(ad, b, dot_part(ad, g, a, L));
    return;
  }
  case FN_SUM_HEADS: if (na) accum(ad, a, apply_attr(ad, FN_REPEAT, g, NULL, 0, a->shape.d[0], 0)); return;
  case FN_MEAN_HEADS:
    if (na) accum(ad, a, apply2(ad, FN_DIV, apply_attr(ad, FN_REPEAT, g, NULL, 0, a->shape.d[0], 0),
                        constant(ad, (double)a->shape.d[0])));
    return;
  case FN_REPEAT: if (na) accum(ad, a, apply1(ad, FN_SUM_HEADS, g)); return;
  case FN_LINEAR: /* y = x W: dx = dy W^T, dW = sum over rows (and leading dims) of x^T dy */
    if (ad->need[a->id]) accum(ad, a, apply2(ad, FN_LINEAR_T, g, b));
    if (ad->need[b->id]) accum(ad, b, reduce_rows(ad, FN_MATMUL_TN, a, g));
    return;
  case FN_LINEAR_T: /* y = dy W^T: d(dy) = g W, dW = sum of g^T dy */
    if (ad->need[a->id]) accum(ad, a, apply2(ad, FN_LINEAR, g, b));
    if (ad->need[b->id]) accum(ad, b, reduce_rows(ad, FN_MATMUL_TN, g, a));
    return;
  default:
    internal(y, "no backward rule for this apply function");
  }
}

/* The rule of a Scatter: y[e] = f(a[u], b[v]) for edge e = u->v. A contribution to a, read at
 * the source, is gathered over the out-edges of each vertex ({by = src}); to b, read at the
 * destination, over the in-edges. */
static void scatter_rule(AD *ad, Value *y, Value *g) {
  Value *a = y->args[0], *b = y->nargs > 1 ? y->args[1] : NULL;
  bool na = ad->need[a->id], nb = b && ad->need[b->id];
  switch (y->fn) {
  case FN_COPY_U: accum(ad, a, gather(ad, FN_SUM, g, GATHER_BY_SRC)); return;
  case FN_COPY_V: accum(ad, a, gather(ad, FN_SUM, g, GATHER_BY_DST)); return;
  case FN_U_ADD_V: case FN_U_SUB_V:
    if (na) accum(ad, a, gather(ad, FN_SUM, g, GATHER_BY_SRC));
    if (nb) {
      Value *s = gather(ad, FN_SUM, g, GATHER_BY_DST);
      accum(ad, b, y->fn == FN_U_SUB_V ? apply1(ad, FN_NEG, s) : s);
    }
    return;
  case FN_U_MUL_V:
    if (na) accum(ad, a, gather(ad, FN_SUM, apply2(ad, FN_MUL, g, scatter(ad, FN_COPY_V, b, NULL)), GATHER_BY_SRC));
    if (nb) accum(ad, b, gather(ad, FN_SUM, apply2(ad, FN_MUL, g, scatter(ad, FN_COPY_U, a, NULL)), GATHER_BY_DST));
    return;
  case FN_U_DIV_V: /* d/da = 1/b[v]; d/db = -y / b[v] */
    if (na) accum(ad, a, gather(ad, FN_SUM, apply2(ad, FN_DIV, g, scatter(ad, FN_COPY_V, b, NULL)), GATHER_BY_SRC));
    if (nb) {
      Value *t = apply2(ad, FN_DIV, apply2(ad, FN_MUL, g, y), scatter(ad, FN_COPY_V, b, NULL));
      accum(ad, b, apply1(ad, FN_NEG, gather(ad, FN_SUM, t, GATHER_BY_DST)));
    }
    return;
  case FN_U_DOT_V: {
    const Shape *L = longer(a, b);
    if (na) accum(ad, a, gather(ad, FN_SUM, dot_part(ad, g, scatter(ad, FN_COPY_V, b, NULL), L), GATHER_BY_SRC));
    if (nb) accum(ad, b, gather(ad, FN_SUM, dot_part(ad, g, scatter(ad, FN_COPY_U, a, NULL), L), GATHER_BY_DST));
    return;
  }
  case FN_U_CONCAT_V: {
    int64_t la = last_dim(&a->shape), lb = last_dim(&b->shape);
    if (na) accum(ad, a, gather(ad, FN_SUM, slice_as(ad, g, 0, la, a), GATHER_BY_SRC));
    if (nb) accum(ad, b, gather(ad, FN_SUM, slice_as(ad, g, la, la + lb, b), GATHER_BY_DST));
    return;
  }
  default:
    internal(y, "no backward rule for this scatter function");
  }
}

/* The rule of a Gather: y[v] = r over the in-edges e of v of x[e] (out-edges for {by = src}). */
static void gather_rule(AD *ad, Value *y, Value *g) {
  Value *x = y->args[0];
  bool by_src = y->iattr == GATHER_BY_SRC;
  FnKind copy = by_src ? FN_COPY_U : FN_COPY_V; /* the vertex a gathered edge belongs to */
  switch (y->fn) {
  case FN_SUM: accum(ad, x, scatter(ad, copy, g, NULL)); return;
  case FN_MEAN: { /* each of the d edges gets dy / d (none if d = 0) */
    Value *inv = apply1(ad, FN_INV_OR_ZERO, degree(ad, by_src ? FN_OUT : FN_IN));
    accum(ad, x, scatter(ad, copy, apply2(ad, FN_MUL, g, inv), NULL));
    return;
  }
  case FN_MAX: case FN_MIN: { /* all of dy to the first in-edge (CSR order) attaining the extremum */
    if (by_src) { /* over out-edges (max_out): dy shared by the out-edges attaining it, as readout.max */
      Value *hit = apply2(ad, FN_EQ, x, scatter(ad, FN_COPY_U, y, NULL));
      Value *share = apply2(ad, FN_MUL, g, apply1(ad, FN_INV_OR_ZERO, gather(ad, FN_SUM, hit, GATHER_BY_SRC)));
      accum(ad, x, apply2(ad, FN_MUL, scatter(ad, FN_COPY_U, share, NULL), hit));
      return;
    }
    Value p = proto(OP_GATHER, y->fn == FN_MAX ? FN_ARGMAX : FN_ARGMIN, x, NULL);
    const char *why = NULL;
    Value *arg = ir_make_like(ad->m, &p, &why); /* a forward value: the forward pass keeps it */
    if (!arg) internal(y, why);
    ad->arg[y->id] = arg;
    accum(ad, x, scatter(ad, FN_ARGSEL_V, g, arg));
    return;
  }
  default:
    internal(y, "no backward rule for this reduction");
  }
}

/* readout: y = r over the vertices of each graph. sum: every vertex gets its graph's dy; mean:
 * dy / (the graph's vertex count); max/min: dy shared by the vertices that attain the
 * extremum (a subgradient; at a tie each gets its share). */
static void readout_rule(AD *ad, Value *y, Value *g) {
  Value *x = y->args[0];
  switch (y->fn) {
  case FN_SUM: accum(ad, x, broadcast(ad, g)); return;
  case FN_MEAN: accum(ad, x, broadcast(ad, apply2(ad, FN_MUL, g, apply1(ad, FN_INV_OR_ZERO, degree(ad, FN_SIZE))))); return;
  case FN_MAX: case FN_MIN: {
    Value *hit = apply2(ad, FN_EQ, x, broadcast(ad, y));
    Value *share = apply2(ad, FN_MUL, g, apply1(ad, FN_INV_OR_ZERO, readout(ad, FN_SUM, hit)));
    accum(ad, x, apply2(ad, FN_MUL, broadcast(ad, share), hit));
    return;
  }
  default: internal(y, "no backward rule for this readout");
  }
}

/* edge_softmax: y = softmax over the in-edges of each destination, per element;
 * dx = y * (dy - copy_v(gather.sum(dy * y))). */
static void softmax_rule(AD *ad, Value *y, Value *g) {
  Value *s = gather(ad, FN_SUM, apply2(ad, FN_MUL, g, y), GATHER_BY_DST);
  accum(ad, y->args[0], apply2(ad, FN_MUL, y, apply2(ad, FN_SUB, g, scatter(ad, FN_COPY_V, s, NULL))));
}

/* ---------------------------------------------------------------- the pass */

bool pass_autodiff(GnnCtx *c, Module *m) {
  for (int i = 0; i < m->vals.len; i++)
    if (((Value *)m->vals.items[i])->bwd) return false; /* already a training module */
  Value *out = module_output(m);
  int nouts_fwd = m->nouts;
  AD ad = {.m = m, .nfwd = m->vals.len};
  m->input_grads = c->input_grads;
  int n = ad.nfwd;
  ad.need = arena_alloc(&c->arena, sizeof(bool) * (size_t)(n + 1));
  ad.adj = arena_alloc(&c->arena, sizeof(Value *) * (size_t)(n + 1));
  ad.arg = arena_alloc(&c->arena, sizeof(Value *) * (size_t)(n + 1));

  /* 1. Which forward values depend on a parameter, or on an input whose gradient was asked for
   * (--input-grads): only they have gradients. */
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    ad.need[i] = v->op == OP_PARAM || (v->op == OP_INPUT && module_input_grad_listed(c->input_grads, v->name));
    for (int k = 0; k < v->nargs; k++) ad.need[i] |= ad.need[v->args[k]->id];
    if (v->elem != ELEM_F32) ad.need[i] = false; /* arg indices have no gradient */
  }

  /* 2. The seed: dL/dout, an input of out's type. */
  Domain sd = out->dom == DOM_EDGE || out->dom == DOM_GRAPH ? out->dom : DOM_VERTEX;
  Value *seed = ir_leaf(m, OP_INPUT, sd == DOM_EDGE ? FN_EDGE : sd == DOM_GRAPH ? FN_GRAPH : FN_VERTEX, sd, &out->shape, "grad.out", 0,
                        (Loc){0, 0, 0});
  seed->bwd = true;
  if (dom_has_rows(out->dom)) ad.adj[out->id] = seed;

  /* 3. Adjoints, in reverse definition order. */
  for (int i = n - 1; i >= 0; i--) {
    Value *v = m->vals.items[i];
    Value *g = ad.adj[i];
    if (!g || !ad.need[i]) continue;
    switch (v->op) {
    case OP_INPUT: case OP_PARAM: case OP_CONST: case OP_DEGREE: break;
    case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL: case OP_APPLY_GRAPH: apply_rule(&ad, v, g); break;
    case OP_READOUT: readout_rule(&ad, v, g); break;
    case OP_REDUCE_ROWS: /* a sum over every row (batch_norm's statistics): each row gets dy */
      if (v->fn != FN_SUM || v->nargs != 1) internal(v, "no backward rule for reduce_rows.matmul_tn in a forward pass");
      accum(&ad, v->args[0], broadcast(&ad, g));
      break;
    case OP_BROADCAST: /* of a graph value: the sum over each graph; of a global one: over every row (accum) */
      accum(&ad, v->args[0], v->args[0]->dom == DOM_GRAPH ? readout(&ad, FN_SUM, g) : g);
      break;
    case OP_SCATTER: scatter_rule(&ad, v, g); break;
    case OP_GATHER: gather_rule(&ad, v, g); break;
    case OP_REDUCE_SCATTER: softmax_rule(&ad, v, g); break;
    case OP_AGGREGATE: internal(v, "autodiff runs before compose: it has no rule for aggregates");
    default: internal(v, "no backward rule for this operator");
    }
  }

  /* 4. One output per parameter, in module order. */
  for (int i = 0; i < n; i++) {
    Value *p = m->vals.items[i];
    if (p->op != OP_PARAM) continue;
    Value *g = ad.adj[i] ? ad.adj[i] : filled(&ad, &p->shape, 0);
    module_add_output(m, arena_printf(m->arena, "grad.%s", p->name), g);
  }

  /* 4b. One output per input asked for (--input-grads), in module order, after the parameters':
   * dL/dinput, of the input's type. An input no path leads from to out (or only through
   * functions without a gradient: one_hot, comparisons) has no adjoint and gets no output: the
   * generated API reports it as not differentiable, which a caller takes as a zero gradient. */
  for (int i = 0; i < n; i++) {
    Value *x = m->vals.items[i];
    if (x->op != OP_INPUT || !ad.need[i] || !ad.adj[i]) continue;
    module_add_output(m, arena_printf(m->arena, "grad_input.%s", x->name), ad.adj[i]);
  }

  /* 5. Each argmax/argmin goes right after its gather: it is forward work. Without a gradient to
   * compute (no parameter, no input asked for) there is no backward, and no seed either: the
   * module is an inference module, as its library (no backward: nothing to call it for). */
  bool no_grads = m->nouts == nouts_fwd;
  PtrVec all = m->vals;
  m->vals = (PtrVec){0};
  for (int i = 0; i < all.len; i++) {
    Value *v = all.items[i];
    if ((!v->bwd && i >= n) || (v == seed && no_grads)) continue; /* an argmax: placed below */
    vec_push(m->arena, &m->vals, v);
    if (i < n && ad.arg[i]) vec_push(m->arena, &m->vals, ad.arg[i]);
  }
  for (int i = 0; i < m->vals.len; i++) ((Value *)m->vals.items[i])->id = i;

  /* 6. Fold, CSE and DCE among the backward values. */
  canonicalize_backward(c, m);
  module_count_uses(m);
  return true;
}
