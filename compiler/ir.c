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
#include "gnnc.h"

#include <string.h>

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
    return SC_COMMUTE; /* any deterministic row function: f(x_u) = (f x)_u */
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

OpKind apply_op_for(Domain d) {
  return d == DOM_EDGE ? OP_APPLY_EDGE : d == DOM_VERTEX ? OP_APPLY_VERTEX : OP_APPLY_GLOBAL;
}

/* ---------------------------------------------------------------- typing */

#define FAIL(...) do { *why = arena_printf(a, __VA_ARGS__); return false; } while (0)

static bool infer_apply(Arena *a, FnKind fn, Value **args, int nargs, double fattr, int64_t iattr,
                        Shape *shape, const char **why) {
  const Shape *s0 = &args[0]->shape, *s1 = nargs > 1 ? &args[1]->shape : NULL;
  switch (fn) {
  case FN_ADD: case FN_SUB: case FN_MUL: case FN_DIV:
    if (!broadcast(s0, s1, shape))
      FAIL("shapes %s and %s do not broadcast (one must be a prefix of the other)",
           shape_str(a, s0), shape_str(a, s1));
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
  case FN_SQRT: case FN_RSQRT: case FN_ABS: case FN_INV_OR_ZERO:
    *shape = *s0;
    return true;
  case FN_CONCAT:
    if (!concat_shape(s0, s1, shape))
      FAIL("cannot concatenate shapes %s and %s (all but the last dim must match)",
           shape_str(a, s0), shape_str(a, s1));
    return true;
  case FN_DOT:
    if (!broadcast(s0, s1, shape))
      FAIL("shapes %s and %s do not broadcast (one must be a prefix of the other)",
           shape_str(a, s0), shape_str(a, s1));
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

bool ir_infer(Arena *a, OpKind op, FnKind fn, FnKind msg, Value **args, int nargs, double fattr,
              int64_t iattr, Domain *dom, Shape *shape, const char **why) {
  if (nargs < op_info[op].min_args || nargs > op_info[op].max_args)
    FAIL("%s takes %d to %d operands, not %d", op_info[op].name, op_info[op].min_args,
         op_info[op].max_args, nargs);
  for (int i = 0; i < nargs; i++)
    if (!args[i]) FAIL("operand %d is missing", i);
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
    } else {
      if (!broadcast(&args[0]->shape, &args[1]->shape, shape))
        FAIL("shapes %s and %s do not broadcast (one must be a prefix of the other)",
             shape_str(a, &args[0]->shape), shape_str(a, &args[1]->shape));
      if (fn == FN_U_DOT_V && !drop_last(shape)) FAIL("u_dot_v of scalar rows");
    }
    break;
  case OP_GATHER:
    if (!(fn_info[fn].where & W_REDUCE)) FAIL("'%s' is not a reduction", fn_info[fn].name);
    if (args[0]->dom != DOM_EDGE)
      FAIL("a neighbourhood reduction reads an edge value, not a %s value", domain_name(args[0]->dom));
    *dom = DOM_VERTEX;
    *shape = args[0]->shape;
    break;
  case OP_REDUCE_SCATTER:
    if (fn != FN_EDGE_SOFTMAX) FAIL("'%s' is not a reduce_scatter function", fn_info[fn].name);
    if (args[0]->dom != DOM_EDGE) FAIL("edge_softmax reads an edge value, not a %s value", domain_name(args[0]->dom));
    *dom = DOM_EDGE;
    *shape = args[0]->shape;
    break;
  case OP_AGGREGATE:
    if (!(fn_info[fn].where & W_REDUCE)) FAIL("'%s' is not a reduction", fn_info[fn].name);
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
  case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL: {
    if (!(fn_info[fn].where & W_APPLY)) FAIL("'%s' is not an apply function", fn_info[fn].name);
    if (fn_info[fn].arity != nargs) FAIL("%s takes %d operands, not %d", fn_info[fn].name, fn_info[fn].arity, nargs);
    bool edge = false, vertex = false;
    for (int i = 0; i < nargs; i++) {
      edge |= args[i]->dom == DOM_EDGE;
      vertex |= args[i]->dom == DOM_VERTEX;
    }
    if (edge && vertex)
      FAIL("cannot combine a vertex value with an edge value; read the vertex value on edges with x[src] or x[dst]");
    *dom = edge ? DOM_EDGE : vertex ? DOM_VERTEX : DOM_GLOBAL;
    if (apply_op_for(*dom) != op) FAIL("%s on %s operands", op_info[op].name, domain_name(*dom));
    if (!infer_apply(a, fn, args, nargs, fattr, iattr, shape, why)) return false;
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

Value *ir_make(Module *m, OpKind op, FnKind fn, Value **args, int nargs, double fattr,
               int64_t iattr, Loc loc, const char **why) {
  Domain dom;
  Shape shape = {0, {0}};
  FnKind reduce = fn, msg = FN_NONE;
  if (op == OP_AGGREGATE) { /* fn carries the message, iattr the reduction */
    msg = fn;
    reduce = (FnKind)iattr;
    iattr = 0;
  }
  if (!ir_infer(m->arena, op, reduce, msg, args, nargs, fattr, iattr, &dom, &shape, why)) return NULL;
  Value *v = new_value(m);
  v->op = op;
  v->fn = reduce;
  v->msg = msg;
  v->dom = dom;
  v->shape = shape;
  v->nargs = nargs;
  for (int i = 0; i < nargs; i++) v->args[i] = args[i];
  v->fattr = fattr;
  v->iattr = iattr;
  v->loc = loc;
  return v;
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

Value *resolve(Value *v) {
  while (v && v->repl) v = v->repl;
  return v;
}

void module_replace_uses(Module *m) {
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    for (int j = 0; j < v->nargs; j++) v->args[j] = resolve(v->args[j]);
  }
  m->output = resolve(m->output);
}

void module_count_uses(Module *m) {
  for (int i = 0; i < m->vals.len; i++) ((Value *)m->vals.items[i])->nuses = 0;
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    if (v->dead) continue;
    for (int j = 0; j < v->nargs; j++) v->args[j]->nuses++;
  }
  if (m->output) m->output->nuses++;
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
  else p.c = n;
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
  case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL:
    if (v->fn == FN_LINEAR) fl = 2.0 * (double)v->args[1]->shape.d[0];
    if (v->fn == FN_DOT) {
      const Shape *s = v->args[0]->shape.rank >= v->args[1]->shape.rank ? &v->args[0]->shape : &v->args[1]->shape;
      fl = 2.0 * (double)s->d[s->rank - 1];
    }
    if (v->fn == FN_MEAN_HEADS || v->fn == FN_SUM_HEADS) fl = (double)v->args[0]->shape.d[0];
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
