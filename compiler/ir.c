/* ir.c -- the operator IR: the op and function tables, shape inference, construction, cost.
 *
 * A Module is an SSA list of Values in definition order (operands always come first), each
 * with a domain (vertex, edge, param, global), a per-row shape of up to four dims, and the
 * function attribute of its operator. ir_infer is the one place that knows the typing rules;
 * sema uses it to report errors at the user's source, the verifier to re-check every pass.
 *
 * Broadcasting is by prefix ("heads first"): two shapes combine when one is a prefix of the
 * other, the shorter being repeated over the trailing dims of the longer. So an attention
 * score edge[H] scales a message edge[H, D] head by head, and a scalar combines with anything.
 * Unlike NumPy's right-aligned rule this can never silently pair a D axis with an H axis.
 */
#include "ir.h"

#include <math.h>
#include <string.h>

/* A domain's name, bare and with its article (Domain: ast.h), for dumps and diagnostics. */
const char *domain_name(Domain d) {
  switch (d) {
  case DOM_VERTEX: return "vertex";
  case DOM_EDGE: return "edge";
  case DOM_PARAM: return "param";
  case DOM_GLOBAL: return "global";
  case DOM_GRAPH: return "graph";
  }
  return "?";
}

const char *domain_a(Domain d) {
  return d == DOM_EDGE ? "an edge" : d == DOM_VERTEX ? "a vertex" : d == DOM_PARAM ? "a param" : d == DOM_GRAPH ? "a graph" : "a global";
}

const OpInfo op_info[OP__COUNT] = {
#define OP(e, n, lo, hi, doc) {n, lo, hi, doc},
#include "ops.def"
#undef OP
};

const FnInfo fn_info[FN__COUNT] = {
#define FN(e, n, ar, w, al, fl) {n, ar, w, al, fl},
#include "funcs.def"
#undef FN
};

bool fn_lookup(const char *name, int where, FnKind *out) {
  for (int i = 0; i < FN__COUNT; i++)
    if ((fn_info[i].where & where) && strcmp(fn_info[i].name, name) == 0) {
      *out = (FnKind)i;
      return true;
    }
  return false;
}

ScatterAlgebra fn_commutes_with_scatter(FnKind f, int arg, FnKind s) {
  int al = fn_info[f].algebra;
  bool linear_here = (al & (arg == 0 ? A_LIN0 : A_LIN1)) != 0;
  if (!(al & A_ROWWISE)) return SC_NO;
  switch (s) {
  case FN_COPY_U: case FN_COPY_V:
    /* any deterministic row function: f(x_u) = (f x)_u -- but moved to the vertices, f is
     * also evaluated at the vertices the scatter never reads (no out-edges for copy_u, no
     * in-edges for copy_v). Harmless in the forward; in the backward those rows meet a zero
     * gradient in the weight reductions (reduce_rows), and 0 * inf is NaN. So a function that
     * is not finite everywhere in this operand (rsqrt(out_deg) at an isolated vertex; x / p
     * is linear in x, so finite, but p / x is not) stays on the edges. */
    return (al & A_PARTIAL) && !linear_here ? SC_NO : SC_COMMUTE;
  case FN_U_ADD_V: case FN_U_SUB_V:
    /* distributes over a sum when linear in this operand with the others fixed, or when
     * jointly linear and unary (neg, flatten, mean_heads, ...) */
    return linear_here || (fn_info[f].arity == 1 && (al & A_JOINT)) ? SC_COMMUTE : SC_NO;
  case FN_U_CONCAT_V:
    return (f == FN_LINEAR && arg == 0) || f == FN_DOT ? SC_SPLIT : SC_NO;
  default:
    return SC_NO;
  }
}

/* ---------------------------------------------------------------- shapes */

int64_t shape_elems(const Shape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) n *= s->d[i];
  return n;
}

bool shape_eq(const Shape *a, const Shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->d[i] != b->d[i]) return false;
  return true;
}

char *shape_str(Arena *a, const Shape *s) {
  char buf[128];
  size_t n = 0;
  buf[n++] = '[';
  for (int i = 0; i < s->rank; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, i ? ", %lld" : "%lld", (long long)s->d[i]);
  buf[n++] = ']';
  buf[n] = 0;
  return arena_strdup(a, buf);
}

/* Prefix broadcasting: the result is the longer shape if the shorter is its prefix. */
static bool broadcast(const Shape *a, const Shape *b, Shape *out) {
  const Shape *s = a->rank <= b->rank ? a : b, *l = a->rank <= b->rank ? b : a;
  for (int i = 0; i < s->rank; i++)
    if (s->d[i] != l->d[i]) return false;
  *out = *l;
  return true;
}

/* The end of a "do not broadcast" message: where one operand is a one-element row [1] (a
 * `[k, 1]` param's product, a one-element slice), a reader expects it to act as the scalar it
 * holds, as NumPy's [1] would; prefix broadcasting repeats only a prefix, and [1] is a prefix of
 * [1, ...] alone. The source language's sum_heads drops that dim (sema reports this text). */
static const char *row_of_one_hint(const Shape *s0, const Shape *s1) {
  bool one0 = s0->rank == 1 && s0->d[0] == 1, one1 = s1->rank == 1 && s1->d[0] == 1;
  return one0 != one1 ? "; [1] is a one-element row, not a scalar row []: sum_heads(...) of it is that scalar, "
                        "which broadcasts with any shape"
                      : "";
}

static bool check_elems(const Shape *s, const char **why, Arena *a) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->d[i] <= 0) {
      *why = arena_printf(a, "dimension %d of shape %s is not positive", i, shape_str(a, s));
      return false;
    }
    n *= s->d[i];
    if (n > GNN_MAX_ROW_ELEMS) {
      *why = arena_printf(a, "shape %s has more than %d elements per row", shape_str(a, s), GNN_MAX_ROW_ELEMS);
      return false;
    }
  }
  return true;
}

/* concat along the last dim; a scalar row counts as one element. */
static bool concat_shape(const Shape *a, const Shape *b, Shape *out) {
  Shape x = *a, y = *b;
  if (x.rank == 0) x = (Shape){1, {1}};
  if (y.rank == 0) y = (Shape){1, {1}};
  if (x.rank != y.rank) return false;
  for (int i = 0; i < x.rank - 1; i++)
    if (x.d[i] != y.d[i]) return false;
  *out = x;
  out->d[x.rank - 1] = x.d[x.rank - 1] + y.d[x.rank - 1];
  return true;
}

static bool drop_last(Shape *s) {
  if (s->rank == 0) return false;
  s->rank--;
  return true;
}

Domain apply_domain(Value *const *args, int n) {
  Domain d = DOM_GLOBAL;
  for (int i = 0; i < n; i++) {
    if (args[i]->dom == DOM_EDGE) return DOM_EDGE;
    if (args[i]->dom == DOM_VERTEX || (args[i]->dom == DOM_GRAPH && d == DOM_GLOBAL)) d = args[i]->dom;
  }
  return d;
}

OpKind apply_op_for(Domain d) {
  return d == DOM_EDGE ? OP_APPLY_EDGE : d == DOM_VERTEX ? OP_APPLY_VERTEX : d == DOM_GRAPH ? OP_APPLY_GRAPH : OP_APPLY_GLOBAL;
}

/* ---------------------------------------------------------------- typing */

#define FAIL(...) do { *why = arena_printf(a, __VA_ARGS__); return false; } while (0)

static bool infer_apply(Arena *a, const Value *p, Shape *shape, const char **why) {
  Value *const *args = p->args;
  FnKind fn = p->fn;
  double fattr = p->fattr;
  int64_t iattr = p->iattr;
  const Shape *s0 = &args[0]->shape, *s1 = p->nargs > 1 ? &args[1]->shape : NULL;
  switch (fn) {
  case FN_WHERE: {
    Shape t;
    const Shape *s2 = &args[2]->shape;
    if (!broadcast(s0, s1, &t) || !broadcast(&t, s2, shape))
      FAIL("shapes %s, %s and %s do not broadcast (of any two, one must be a prefix of the other)", shape_str(a, s0),
           shape_str(a, s1), shape_str(a, s2));
    return true;
  }
  case FN_POW:
    if (!isfinite(fattr)) FAIL("the exponent of pow is not finite");
    *shape = *s0;
    return true;
  case FN_TRANSPOSE:
    if (s0->rank < 2) FAIL("transpose needs a row of at least 2 dims, not %s", shape_str(a, s0));
    *shape = *s0;
    shape->d[s0->rank - 2] = s0->d[s0->rank - 1];
    shape->d[s0->rank - 1] = s0->d[s0->rank - 2];
    return true;
  case FN_ONE_HOT:
    if (iattr < 1) FAIL("one_hot width %lld is not positive", (long long)iattr);
    if (s0->rank == GNN_MAX_RANK) FAIL("one_hot would give more than %d dims", GNN_MAX_RANK);
    *shape = *s0;
    shape->d[shape->rank++] = iattr;
    return true;
  case FN_LOG_SOFTMAX:
    if (s0->rank == 0) FAIL("log_softmax of a scalar row: it normalises over the last dim, and there is none");
    *shape = *s0;
    return true;
  case FN_ADD: case FN_SUB: case FN_MUL: case FN_DIV:
  case FN_MAXIMUM: case FN_MINIMUM: case FN_GT: case FN_GE: case FN_LT: case FN_LE: case FN_EQ: case FN_NE:
    if (!broadcast(s0, s1, shape))
      FAIL("shapes %s and %s do not broadcast (one must be a prefix of the other)%s",
           shape_str(a, s0), shape_str(a, s1), row_of_one_hint(s0, s1));
    return true;
  case FN_LEAKY_RELU:
    if (!(fattr >= 0 && fattr < 1)) FAIL("leaky_relu slope %g is not in [0, 1)", fattr);
    *shape = *s0;
    return true;
  case FN_DROPOUT:
    if (!(fattr >= 0 && fattr < 1)) FAIL("dropout probability %g is not in [0, 1)", fattr);
    *shape = *s0;
    return true;
  case FN_ELU:
    if (!(fattr > 0)) FAIL("elu alpha %g is not positive", fattr);
    *shape = *s0;
    return true;
  case FN_NEG: case FN_RELU: case FN_TANH: case FN_SIGMOID: case FN_EXP: case FN_LOG:
  case FN_SQRT: case FN_RSQRT: case FN_ABS: case FN_INV_OR_ZERO: case FN_SIGN:
    *shape = *s0;
    return true;
  case FN_RELU_GRAD: case FN_LEAKY_RELU_GRAD: case FN_ELU_GRAD:
    if (!shape_eq(s0, s1))
      FAIL("%s needs x and dy of one shape, not %s and %s", fn_info[fn].name, shape_str(a, s0), shape_str(a, s1));
    if (fn == FN_LEAKY_RELU_GRAD && !(fattr >= 0 && fattr < 1)) FAIL("leaky_relu slope %g is not in [0, 1)", fattr);
    if (fn == FN_ELU_GRAD && !(fattr > 0)) FAIL("elu alpha %g is not positive", fattr);
    *shape = *s0;
    return true;
  case FN_SLICE: {
    int64_t last = s0->rank ? s0->d[s0->rank - 1] : 0;
    if (s0->rank == 0) FAIL("slice of a scalar row");
    if (!(0 <= iattr && iattr < p->iattr2 && p->iattr2 <= last))
      FAIL("slice [%lld, %lld) is not inside a last dim of %lld", (long long)iattr, (long long)p->iattr2, (long long)last);
    *shape = *s0;
    shape->d[s0->rank - 1] = p->iattr2 - iattr;
    return true;
  }
  case FN_PAD: {
    if (s0->rank == 0) FAIL("pad of a scalar row");
    if (!(0 <= iattr && iattr + s0->d[s0->rank - 1] <= p->iattr2))
      FAIL("pad of a last dim of %lld at offset %lld does not fit in %lld", (long long)s0->d[s0->rank - 1],
           (long long)iattr, (long long)p->iattr2);
    *shape = *s0;
    shape->d[s0->rank - 1] = p->iattr2;
    return true;
  }
  case FN_RESHAPE:
    if (shape_elems(&p->shape) != shape_elems(s0))
      FAIL("cannot reshape %s to %s", shape_str(a, s0), shape_str(a, &p->shape));
    *shape = p->shape;
    return true;
  case FN_SUM_LAST:
    *shape = *s0;
    if (!drop_last(shape)) FAIL("sum_last of a scalar row");
    return true;
  case FN_CONCAT:
    if (!concat_shape(s0, s1, shape))
      FAIL("cannot concatenate shapes %s and %s (all but the last dim must match)",
           shape_str(a, s0), shape_str(a, s1));
    return true;
  case FN_DOT:
    if (!broadcast(s0, s1, shape))
      FAIL("shapes %s and %s do not broadcast (one must be a prefix of the other)%s",
           shape_str(a, s0), shape_str(a, s1), row_of_one_hint(s0, s1));
    if (!drop_last(shape)) FAIL("dot of scalars: dot reduces the last dim, and there is none");
    return true;
  case FN_FLATTEN:
    *shape = (Shape){1, {shape_elems(s0)}};
    return true;
  case FN_MEAN_HEADS: case FN_SUM_HEADS:
    if (s0->rank == 0) FAIL("%s of a scalar row: there is no heads dim", fn_info[fn].name);
    shape->rank = s0->rank - 1;
    for (int i = 1; i < s0->rank; i++) shape->d[i - 1] = s0->d[i];
    return true;
  case FN_REPEAT:
    if (iattr < 1) FAIL("repeat count %lld is not positive", (long long)iattr);
    if (s0->rank == GNN_MAX_RANK) FAIL("repeat would give more than %d dims", GNN_MAX_RANK);
    shape->rank = s0->rank + 1;
    shape->d[0] = iattr;
    for (int i = 0; i < s0->rank; i++) shape->d[i + 1] = s0->d[i];
    return true;
  case FN_LINEAR_T: {
    /* x[..., O...] . W^T for W[K, O...] -> [..., K] */
    if (args[1]->dom != DOM_PARAM && args[1]->dom != DOM_GLOBAL)
      FAIL("the matrix of a projection must be a parameter, not a %s value", domain_name(args[1]->dom));
    int t = s1->rank - 1; /* trailing dims of x that W's O... must match */
    if (s1->rank < 2 || s0->rank < t) FAIL("cannot project %s back by %s", shape_str(a, s0), shape_str(a, s1));
    for (int i = 0; i < t; i++)
      if (s0->d[s0->rank - t + i] != s1->d[1 + i])
        FAIL("cannot project %s back by %s: the input's trailing dims must equal the matrix's last",
             shape_str(a, s0), shape_str(a, s1));
    shape->rank = s0->rank - t + 1;
    for (int i = 0; i < s0->rank - t; i++) shape->d[i] = s0->d[i];
    shape->d[shape->rank - 1] = s1->d[0];
    return true;
  }
  case FN_LINEAR: {
    /* x[..., K] @ W[K, O...] -> [..., O...] */
    if (args[1]->dom != DOM_PARAM && args[1]->dom != DOM_GLOBAL)
      FAIL("the matrix of a projection must be a parameter, not %s value", domain_a(args[1]->dom));
    if (s1->rank < 2) FAIL("a projection matrix needs at least 2 dims, %s has %d", shape_str(a, s1), s1->rank);
    if (s0->rank == 0 || s0->d[s0->rank - 1] != s1->d[0])
      FAIL("cannot project %s by %s: the input's last dim must equal the matrix's first",
           shape_str(a, s0), shape_str(a, s1));
    if (s0->rank - 1 + s1->rank - 1 > GNN_MAX_RANK)
      FAIL("projection result would have more than %d dims", GNN_MAX_RANK);
    shape->rank = 0;
    for (int i = 0; i < s0->rank - 1; i++) shape->d[shape->rank++] = s0->d[i];
    for (int i = 1; i < s1->rank; i++) shape->d[shape->rank++] = s1->d[i];
    return true;
  }
  default:
    FAIL("'%s' is not an apply function", fn_info[fn].name);
  }
}

bool ir_infer(Arena *a, const Value *p, Domain *dom, ElemType *elem, Shape *shape, const char **why) {
  OpKind op = p->op;
  FnKind fn = p->fn, msg = p->msg;
  Value *const *args = p->args;
  int nargs = p->nargs;
  if (nargs < op_info[op].min_args || nargs > op_info[op].max_args)
    FAIL("%s takes %d to %d operands, not %d", op_info[op].name, op_info[op].min_args,
         op_info[op].max_args, nargs);
  for (int i = 0; i < nargs; i++) {
    if (!args[i]) FAIL("operand %d is missing", i);
    /* Arg indices are read by argsel_v alone. */
    bool int_ok = op == OP_SCATTER && fn == FN_ARGSEL_V && i == 1;
    if ((args[i]->elem == ELEM_I32) != int_ok)
      FAIL("operand %d must be %s", i, int_ok ? "an i32 arg index value" : "a float value");
  }
  *elem = ELEM_F32;
  switch (op) {
  case OP_INPUT: case OP_PARAM: case OP_CONST: case OP_DEGREE:
    FAIL("leaves are made with ir_leaf");
  case OP_SCATTER:
    if (!(fn_info[fn].where & W_SCATTER)) FAIL("'%s' is not a scatter function", fn_info[fn].name);
    if (fn_info[fn].arity != nargs) FAIL("scatter.%s takes %d operands", fn_info[fn].name, fn_info[fn].arity);
    for (int i = 0; i < nargs; i++)
      if (args[i]->dom != DOM_VERTEX)
        FAIL("scatter reads vertex values, operand %d is %s value", i, domain_a(args[i]->dom));
    *dom = DOM_EDGE;
    if (nargs == 1) {
      *shape = args[0]->shape;
    } else if (fn == FN_U_CONCAT_V) {
      if (!concat_shape(&args[0]->shape, &args[1]->shape, shape))
        FAIL("cannot concatenate shapes %s and %s", shape_str(a, &args[0]->shape), shape_str(a, &args[1]->shape));
    } else if (fn == FN_ARGSEL_V) {
      if (!shape_eq(&args[0]->shape, &args[1]->shape))
        FAIL("argsel_v needs a value and arg indices of one shape, not %s and %s", shape_str(a, &args[0]->shape),
             shape_str(a, &args[1]->shape));
      *shape = args[0]->shape;
    } else {
      if (!broadcast(&args[0]->shape, &args[1]->shape, shape))
        FAIL("shapes %s and %s do not broadcast (one must be a prefix of the other)",
             shape_str(a, &args[0]->shape), shape_str(a, &args[1]->shape));
      if (fn == FN_U_DOT_V && !drop_last(shape)) FAIL("u_dot_v of scalar rows");
    }
    break;
  case OP_GATHER:
    if (!(fn_info[fn].where & W_REDUCE) || fn == FN_MATMUL_TN) FAIL("'%s' is not a reduction", fn_info[fn].name);
    if (args[0]->dom != DOM_EDGE)
      FAIL("a neighbourhood reduction reads an edge value, not a %s value", domain_name(args[0]->dom));
    if (p->iattr != GATHER_BY_DST && p->iattr != GATHER_BY_SRC) FAIL("gather direction %lld is not dst or src", (long long)p->iattr);
    *dom = DOM_VERTEX;
    *shape = args[0]->shape;
    if (fn == FN_ARGMAX || fn == FN_ARGMIN) *elem = ELEM_I32;
    break;
  case OP_READOUT:
    if (fn != FN_SUM && fn != FN_MEAN && fn != FN_MAX && fn != FN_MIN) FAIL("'%s' is not a readout reduction", fn_info[fn].name);
    if (args[0]->dom != DOM_VERTEX) FAIL("a readout reads a vertex value, not %s value", domain_a(args[0]->dom));
    *dom = DOM_GRAPH;
    *shape = args[0]->shape;
    break;
  case OP_BROADCAST:
    if (fn != FN_NONE) FAIL("broadcast has no function, not '%s'", fn_info[fn].name);
    /* a graph value to its vertices (u[graph]); a global one to every vertex (batch_norm's statistics) */
    if (args[0]->dom != DOM_GRAPH && args[0]->dom != DOM_GLOBAL)
      FAIL("broadcast reads a graph or global value, not %s value", domain_a(args[0]->dom));
    *dom = DOM_VERTEX;
    *shape = args[0]->shape;
    break;
  case OP_REDUCE_SCATTER:
    if (fn != FN_EDGE_SOFTMAX) FAIL("'%s' is not a reduce_scatter function", fn_info[fn].name);
    if (args[0]->dom != DOM_EDGE) FAIL("edge_softmax reads an edge value, not a %s value", domain_name(args[0]->dom));
    *dom = DOM_EDGE;
    *shape = args[0]->shape;
    break;
  case OP_REDUCE_ROWS: {
    /* The rows of vertex or edge values; matmul_tn also takes param/global values, one row
     * each (the weight gradient of a linear between parameters, W @ P). */
    bool one_row[2] = {false, false};
    for (int i = 0; i < nargs; i++) {
      one_row[i] = !dom_has_rows(args[i]->dom);
      if (one_row[i] && fn != FN_MATMUL_TN)
        FAIL("reduce_rows reads vertex or edge values, operand %d is a %s value", i, domain_name(args[i]->dom));
    }
    if (nargs == 2 && args[0]->dom != args[1]->dom && !(one_row[0] && one_row[1]))
      FAIL("reduce_rows operands of different domains");
    *dom = DOM_GLOBAL;
    if (fn == FN_SUM && nargs == 1) {
      *shape = args[0]->shape;
    } else if (fn == FN_MATMUL_TN && nargs == 2) {
      /* x[L..., K], y[L..., O...] -> [K, O...]: the sum over rows and the leading dims L */
      const Shape *x = &args[0]->shape, *y = &args[1]->shape;
      int lead = x->rank - 1;
      if (x->rank == 0 || y->rank < lead) FAIL("cannot form x^T y from %s and %s", shape_str(a, x), shape_str(a, y));
      for (int i = 0; i < lead; i++)
        if (x->d[i] != y->d[i]) FAIL("x^T y needs the same leading dims, not %s and %s", shape_str(a, x), shape_str(a, y));
      if (1 + y->rank - lead > GNN_MAX_RANK || y->rank - lead < 1) FAIL("x^T y of %s and %s has no valid shape", shape_str(a, x), shape_str(a, y));
      shape->rank = 1 + y->rank - lead;
      shape->d[0] = x->d[x->rank - 1];
      for (int i = lead; i < y->rank; i++) shape->d[1 + i - lead] = y->d[i];
    } else {
      FAIL("reduce_rows.%s with %d operands", fn_info[fn].name, nargs);
    }
    break;
  }
  case OP_AGGREGATE:
    if (fn != FN_SUM && fn != FN_MEAN && fn != FN_MAX && fn != FN_MIN) FAIL("'%s' is not an aggregate reduction", fn_info[fn].name);
    if (!(fn_info[msg].where & W_MESSAGE)) FAIL("'%s' is not an aggregate message", fn_info[msg].name);
    if (fn_info[msg].arity != nargs) FAIL("aggregate message %s takes %d operands", fn_info[msg].name, fn_info[msg].arity);
    if (msg == FN_COPY_E) {
      if (args[0]->dom != DOM_EDGE) FAIL("copy_e reads an edge value");
      *shape = args[0]->shape;
    } else {
      if (args[0]->dom != DOM_VERTEX) FAIL("%s reads a vertex value as u", fn_info[msg].name);
      if (nargs == 2) {
        if (args[1]->dom != DOM_EDGE) FAIL("%s reads an edge value as e", fn_info[msg].name);
        if (!broadcast(&args[0]->shape, &args[1]->shape, shape))
          FAIL("shapes %s and %s do not broadcast", shape_str(a, &args[0]->shape), shape_str(a, &args[1]->shape));
      } else {
        *shape = args[0]->shape;
      }
    }
    *dom = DOM_VERTEX;
    break;
  case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL: case OP_APPLY_GRAPH: {
    if (!(fn_info[fn].where & W_APPLY)) FAIL("'%s' is not an apply function", fn_info[fn].name);
    if (fn_info[fn].arity != nargs) FAIL("%s takes %d operands, not %d", fn_info[fn].name, fn_info[fn].arity, nargs);
    bool edge = false, vertex = false, graph = false;
    for (int i = 0; i < nargs; i++) {
      edge |= args[i]->dom == DOM_EDGE;
      vertex |= args[i]->dom == DOM_VERTEX;
      graph |= args[i]->dom == DOM_GRAPH;
    }
    if (edge && vertex)
      FAIL("cannot combine a vertex value with an edge value; read the vertex value on edges with x[src] or x[dst]");
    if (graph && (edge || vertex))
      FAIL("cannot combine a graph value with %s value; read the graph value on the vertices with u[graph]",
           edge ? "an edge" : "a vertex");
    *dom = edge ? DOM_EDGE : vertex ? DOM_VERTEX : graph ? DOM_GRAPH : DOM_GLOBAL;
    if (apply_op_for(*dom) != op) FAIL("%s on %s operands", op_info[op].name, domain_name(*dom));
    if (!infer_apply(a, p, shape, why)) return false;
    break;
  }
  default:
    FAIL("unknown operator");
  }
  return check_elems(shape, why, a);
}

/* ---------------------------------------------------------------- construction */

static Value *new_value(Module *m) {
  Value *v = arena_alloc(m->arena, sizeof(Value));
  v->id = m->vals.len;
  v->fn = FN_NONE;
  v->msg = FN_NONE;
  vec_push(m->arena, &m->vals, v);
  return v;
}

Value *ir_make_like(Module *m, const Value *proto, const char **why) {
  Domain dom;
  ElemType elem;
  Shape shape = {0, {0}};
  if (!ir_infer(m->arena, proto, &dom, &elem, &shape, why)) return NULL;
  Value *v = new_value(m);
  int id = v->id;
  *v = *proto;
  v->id = id;
  v->dom = dom;
  v->elem = elem;
  v->shape = shape;
  v->nuses = 0;
  v->dead = false;
  v->repl = NULL;
  return v;
}

Value *ir_make(Module *m, OpKind op, FnKind fn, Value **args, int nargs, double fattr,
               int64_t iattr, Loc loc, const char **why) {
  Value p = {.op = op, .fn = fn, .msg = FN_NONE, .nargs = nargs, .fattr = fattr, .iattr = iattr, .loc = loc};
  if (op == OP_AGGREGATE) { /* fn carries the message, iattr the reduction */
    p.msg = fn;
    p.fn = (FnKind)iattr;
    p.iattr = 0;
  }
  if (nargs < 0 || nargs > GNN_MAX_ARGS) {
    *why = "too many operands";
    return NULL;
  }
  for (int i = 0; i < nargs; i++) p.args[i] = args[i];
  return ir_make_like(m, &p, why);
}

Value *ir_leaf(Module *m, OpKind op, FnKind fn, Domain dom, const Shape *shape, const char *name,
               double fattr, Loc loc) {
  Value *v = new_value(m);
  v->op = op;
  v->fn = fn;
  v->dom = dom;
  v->shape = *shape;
  v->name = name;
  v->fattr = fattr;
  v->loc = loc;
  return v;
}

void ir_inherit_label(Value *to, const Value *from) {
  if (to && !to->label && to->op != OP_INPUT && to->op != OP_PARAM && to->op != OP_CONST) to->label = from->label;
}

Value *resolve(Value *v) {
  while (v && v->repl) v = v->repl;
  return v;
}

void module_replace_uses(Module *m) {
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    for (int j = 0; j < v->nargs; j++) v->args[j] = resolve(v->args[j]);
  }
  for (int i = 0; i < m->nouts; i++) m->outs[i].val = resolve(m->outs[i].val);
}

bool module_input_grad_listed(const char *list, const char *name) {
  if (!list || !name) return false;
  if (strcmp(list, "all") == 0) return true;
  size_t n = strlen(name);
  for (const char *p = list;;) {
    const char *q = strchr(p, ',');
    size_t k = q ? (size_t)(q - p) : strlen(p);
    if (k == n && strncmp(p, name, n) == 0) return true;
    if (!q) return false;
    p = q + 1;
  }
}

void module_add_output(Module *m, const char *name, Value *v) {
  if (m->nouts == m->outcap) {
    int cap = m->outcap ? 2 * m->outcap : 4;
    ModOutput *outs = arena_alloc(m->arena, sizeof(ModOutput) * (size_t)cap);
    for (int i = 0; i < m->nouts; i++) outs[i] = m->outs[i];
    m->outs = outs;
    m->outcap = cap;
  }
  m->outs[m->nouts++] = (ModOutput){name, v};
}


void module_count_uses(Module *m) {
  for (int i = 0; i < m->vals.len; i++) ((Value *)m->vals.items[i])->nuses = 0;
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    if (v->dead) continue;
    for (int j = 0; j < v->nargs; j++) v->args[j]->nuses++;
  }
  for (int i = 0; i < m->nouts; i++) m->outs[i].val->nuses++;
}

void module_compact(Module *m) {
  int n = 0;
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    if (v->dead) continue;
    v->id = n;
    m->vals.items[n++] = v;
  }
  m->vals.len = n;
}

/* ---------------------------------------------------------------- cost */

double cost_eval(CostPoly p, double V, double E) { return p.c + p.v * V + p.e * E; }

void cost_add(CostPoly *acc, CostPoly p) {
  acc->c += p.c;
  acc->v += p.v;
  acc->e += p.e;
}

/* n per row of the value's domain, as a polynomial in |V| and |E|. */
static CostPoly per_row(Domain d, double n) {
  CostPoly p = {0, 0, 0};
  if (d == DOM_VERTEX) p.v = n;
  else if (d == DOM_EDGE) p.e = n;
  else p.c = n; /* global, param, and graph rows: a batch has few graphs next to its vertices */
  return p;
}

/* The cost of computing one value from its operands, with every operand read from memory and
 * the result written to memory (the unfused model; fusion later removes the round trips).
 * Scatter and Aggregate read their vertex operands once per edge; Gather reads its edge
 * operand once and writes one row per vertex. */
Cost cost_of(const Value *v) {
  Cost c = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  double n = (double)shape_elems(&v->shape);
  c.live = per_row(v->dom, 4 * n);
  double fl = fn_info[v->fn].flops;
  switch (v->op) {
  case OP_INPUT: case OP_PARAM: case OP_CONST: case OP_DEGREE:
    return c;
  case OP_SCATTER:
    if (v->fn == FN_U_DOT_V) { /* the reduced length: the last dim of the broadcast shape (the longer operand) */
      const Shape *s = v->args[0]->shape.rank >= v->args[1]->shape.rank ? &v->args[0]->shape : &v->args[1]->shape;
      fl = 2.0 * (double)s->d[s->rank - 1];
    }
    c.flops = per_row(DOM_EDGE, fl * n);
    for (int i = 0; i < v->nargs; i++) c.read.e += 4.0 * (double)shape_elems(&v->args[i]->shape);
    c.write = per_row(DOM_EDGE, 4 * n);
    return c;
  case OP_GATHER:
    c.flops = per_row(DOM_EDGE, n);
    if (v->fn == FN_MEAN) c.flops.v += n;
    c.read = per_row(DOM_EDGE, 4 * n);
    c.write = per_row(DOM_VERTEX, 4 * n);
    return c;
  case OP_REDUCE_SCATTER:
    /* max, exp(x - max), sum, divide: the edge value is read twice and the result written once */
    c.flops = per_row(DOM_EDGE, fl * n);
    c.read = per_row(DOM_EDGE, 8 * n);
    c.write = per_row(DOM_EDGE, 4 * n);
    return c;
  case OP_AGGREGATE:
    c.flops = per_row(DOM_EDGE, n * (1 + fn_info[v->msg].flops));
    if (v->fn == FN_MEAN) c.flops.v += n;
    for (int i = 0; i < v->nargs; i++) c.read.e += 4.0 * (double)shape_elems(&v->args[i]->shape);
    c.write = per_row(DOM_VERTEX, 4 * n);
    return c;
  case OP_REDUCE_ROWS: {
    /* sum: one add per element of every row; matmul_tn: a GEMM of (rows x K)^T (rows x O) */
    Domain d = v->args[0]->dom;
    double na = (double)shape_elems(&v->args[0]->shape);
    if (v->fn == FN_MATMUL_TN) {
      double nb = (double)shape_elems(&v->args[1]->shape);
      c.flops = per_row(d, 2.0 * (double)v->args[0]->shape.d[v->args[0]->shape.rank - 1] * nb); /* 2 K (L O) */
      c.read = per_row(d, 4.0 * (na + nb));
    } else {
      c.flops = per_row(d, na);
      c.read = per_row(d, 4.0 * na);
    }
    c.write = per_row(DOM_GLOBAL, 4 * n);
    return c;
  }
  case OP_READOUT:
    c.flops = per_row(DOM_VERTEX, n);
    c.read = per_row(DOM_VERTEX, 4 * n);
    c.write = per_row(DOM_GRAPH, 4 * n);
    return c;
  case OP_BROADCAST:
    c.read = per_row(DOM_VERTEX, 4 * n); /* each vertex reads its graph's row */
    c.write = per_row(DOM_VERTEX, 4 * n);
    return c;
  case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL: case OP_APPLY_GRAPH:
    if (v->fn == FN_LINEAR) fl = 2.0 * (double)v->args[1]->shape.d[0];
    if (v->fn == FN_DOT) {
      const Shape *s = v->args[0]->shape.rank >= v->args[1]->shape.rank ? &v->args[0]->shape : &v->args[1]->shape;
      fl = 2.0 * (double)s->d[s->rank - 1];
    }
    if (v->fn == FN_LINEAR_T) fl = 2.0 * (double)(shape_elems(&v->args[1]->shape) / v->args[1]->shape.d[0]);
    if (v->fn == FN_MEAN_HEADS || v->fn == FN_SUM_HEADS) fl = (double)v->args[0]->shape.d[0];
    if (v->fn == FN_SUM_LAST) fl = (double)v->args[0]->shape.d[v->args[0]->shape.rank - 1];
    c.flops = per_row(v->dom, fl * n);
    for (int i = 0; i < v->nargs; i++) {
      const Value *a = v->args[i];
      cost_add(&c.read, per_row(a->dom == DOM_PARAM ? DOM_GLOBAL : a->dom, 4.0 * (double)shape_elems(&a->shape)));
    }
    c.write = per_row(v->dom, 4 * n);
    return c;
  default:
    return c;
  }
}

double elem_flops(const Value *v) {
  double f = fn_info[v->fn].flops;
  if (v->fn == FN_DOT || v->fn == FN_U_DOT_V || v->fn == FN_SUM_LAST) {
    const Shape *s = &v->args[0]->shape;
    f = 2.0 * (double)(s->rank ? s->d[s->rank - 1] : 1);
  } else if (v->fn == FN_MEAN_HEADS || v->fn == FN_SUM_HEADS) {
    f = (double)v->args[0]->shape.d[0];
  } else if (v->fn == FN_LINEAR) {
    f = 2.0 * (double)v->args[1]->shape.d[0];
  }
  return f;
}

/* The FLOPs of one element with the special functions weighted: exp, log, tanh, rsqrt, ... count
 * 8 (a range reduction and a polynomial on a CPU core; a quarter-rate unit on a GPU), dropout's
 * counter RNG 16 (a hash of seed, stream and element). The checkpoint pass's recompute cost and
 * lower_stage.c's staging use it. */
double elem_cost(const Value *v) {
  double f = elem_flops(v);
  switch (v->fn) {
  case FN_EXP: case FN_LOG: case FN_TANH: case FN_SIGMOID: case FN_SQRT: case FN_RSQRT: case FN_ELU: case FN_POW:
  case FN_LOG_SOFTMAX:
    return f + 7;
  case FN_DROPOUT:
    return f + 15;
  default:
    return f;
  }
}

bool value_is_gemm(const Value *v) {
  bool lin = (v->op == OP_APPLY_EDGE || v->op == OP_APPLY_VERTEX || v->op == OP_APPLY_GLOBAL || v->op == OP_APPLY_GRAPH) &&
             (v->fn == FN_LINEAR || v->fn == FN_LINEAR_T);
  bool mtn = v->op == OP_REDUCE_ROWS && v->fn == FN_MATMUL_TN;
  if (!lin && !mtn) return false;
  /* (linear only: its backward's linear_t stays a GEMM, which kernels have no inline form of) */
  if (lin && v->fn == FN_LINEAR && v->dom == DOM_EDGE && shape_elems(&v->args[1]->shape) <= 64) return false;
  if (mtn && v->args[0]->dom == DOM_EDGE && shape_elems(&v->shape) <= 64) return false;
  return true;
}

/* An edge scalar a sparse product can take as its values (float, one element per edge). */
static bool spmm_weight(const Value *w) {
  return w->dom == DOM_EDGE && w->elem == ELEM_F32 && shape_elems(&w->shape) == 1;
}

/* x, read at the far end of an edge by a scatter that a gather in direction dir reduces. */
static const Value *spmm_far(const Value *s, int dir) {
  if (s->op != OP_SCATTER || s->nargs != 1) return NULL;
  if ((s->fn == FN_COPY_U && dir == GATHER_BY_DST) || (s->fn == FN_COPY_V && dir == GATHER_BY_SRC)) return s->args[0];
  return NULL;
}

bool value_spmm_operands(const Value *v, Value **x, Value **w, int *dir) {
  if (v->dom != DOM_VERTEX || v->elem != ELEM_F32 || v->fn != FN_SUM) return false;
  const Value *xs = NULL, *ws = NULL;
  int d = GATHER_BY_DST;
  if (v->op == OP_AGGREGATE) {
    if (v->msg == FN_COPY_U) xs = v->args[0];
    else if (v->msg == FN_U_MUL_E && spmm_weight(v->args[1])) xs = v->args[0], ws = v->args[1];
  } else if (v->op == OP_GATHER && (v->iattr == GATHER_BY_DST || v->iattr == GATHER_BY_SRC)) {
    const Value *e = v->args[0];
    d = (int)v->iattr;
    if ((xs = spmm_far(e, d)) == NULL && e->op == OP_APPLY_EDGE && e->fn == FN_MUL && e->nargs == 2) {
      for (int i = 0; i < 2 && !xs; i++)
        if (spmm_weight(e->args[1 - i]) && (xs = spmm_far(e->args[i], d)) != NULL) ws = e->args[1 - i];
    }
  }
  if (!xs || xs->dom != DOM_VERTEX || xs->elem != ELEM_F32 || shape_elems(&xs->shape) != shape_elems(&v->shape)) return false;
  *x = (Value *)xs, *w = (Value *)ws, *dir = d;
  return true;
}
