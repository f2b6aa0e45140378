/* sema.c -- from the AST to the operator IR: names, domains, shapes, instantiation.
 *
 * Requires: a parsed Program. Produces: a verified forward Module for the chosen model, or
 * NULL after reporting every error it found with its source location.
 *
 * Layers are generic over dimensions (<H, D>) and over the dims of their inputs (x:
 * vertex[F] binds F at the call). A call instantiates the layer inline: its body is lowered
 * again in a fresh environment, and its parameters get a path name ("gatconv0.W") that is
 * unique in the model. Lowering is the only place that sees the surface syntax:
 *   x[src] / x[dst]        -> scatter.copy_u / scatter.copy_v
 *   sum/mean/max/min(e)    -> gather.<reduction>
 *   edge_softmax(e)        -> reduce_scatter.edge_softmax
 *   W @ x                  -> apply.linear(x, W)
 *   + - * /, activations   -> apply_{edge,vertex,global}.<fn>, by the operands' domains
 * Domain and shape rules live in ir.c (ir_infer); sema reports their verdicts at the
 * expression that broke them. A failed expression yields NULL, and names bound to a failed
 * expression are "poisoned" so that one mistake is reported once, not at every use.
 *
 * Recursion, and why it cannot overflow the C stack. bison reduces a left-leaning chain
 * (a + b + c ..., x[src][dst]..., a dimension 1+1+1...) without growing its own stack, so
 * such a chain may be as long as the file; lower_expr and sema_eval_dim walk the left spine of a
 * chain with a loop. Every other child (a right operand, an argument, a negated operand, a
 * parenthesised dimension) was parsed while its parent was on the parser's stack, so
 * the lexer's GNN_MAX_NESTING (lexer.l) bounds that nesting within one body. Layer calls nest bodies: a call
 * lowers the layer's body inside the caller's expression, so lower_expr also counts its own
 * depth across instantiations and stops at SEMA_MAX_DEPTH with an error. (Rejecting long
 * flat chains in the parser would also bound the depth, but `x + x + ... + x` is not nested
 * in the source and is fine to write; what must be bounded is the depth that costs stack.)
 *
 * Why this file is one file. Lowering is one recursion: lower_expr -> lower_call ->
 * instantiate -> lower_body -> lower_stmts -> lower_expr. Cut across files, it would make a
 * circle of files calling each other, so all of it stays here. What it stands on and never
 * calls back -- the types of its state, the bindings, the diagnostics, the budget, the
 * compile-time constants (dimensions, shapes, constant arguments) and the builtin table -- is
 * sema_scope.c, below this file, with its header sema_scope.h; those functions carry the
 * prefix sema_. The warnings about well-typed slips (a reduction of a value the same on every
 * edge, a value named src, an unused parameter) are sema_warn.c's, between the two.
 */
#include "sema_warn.h"
#include "../passes.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Recursion depth of lower_expr, summed over nested layer bodies (see the top of the file).
 * The costliest level, a layer call whose body returns the next call, takes about 0.5 KiB of
 * C stack at -O2 and 2 KiB under ASan (measured with ulimit -s), so the limit keeps sema
 * near 2 MiB of the usual 8 MiB main-thread stack (tests/suites/diag.sh runs 1000 nested
 * layers, under ASan too in make test-asan). */
enum { SEMA_MAX_DEPTH = 1000 };

/* ---------------------------------------------------------------- expressions */

static Value *lower_expr(Sema *s, Env *env, const Node *n);

static Value *make(Sema *s, OpKind op, FnKind fn, Value **args, int nargs, double fattr, int64_t iattr, Loc loc) {
  if (sema_over_budget(s, loc)) return NULL;
  const char *why = NULL;
  Value *v = ir_make(s->m, op, fn, args, nargs, fattr, iattr, loc, &why);
  if (!v) sema_err(s, loc, "%s", why);
  return v;
}

/* An Apply of fn to args, its domain chosen by the operands'. `what` is the operator or builtin
 * as the user wrote it ("*", "concat"), for messages: never an internal function name. */
static Value *apply(Sema *s, FnKind fn, const char *what, Value **args, int nargs, double fattr, int64_t iattr, Loc loc) {
  bool edge = false, vertex = false, graph = false;
  for (int i = 0; i < nargs; i++) {
    edge |= args[i]->dom == DOM_EDGE;
    vertex |= args[i]->dom == DOM_VERTEX;
    graph |= args[i]->dom == DOM_GRAPH;
  }
  if (edge && vertex) {
    sema_err(s, loc, "cannot combine a vertex value with an edge value in '%s'; read the vertex value on the edge with x[src] or x[dst]",
        what);
    return NULL;
  }
  if (graph && (edge || vertex)) {
    sema_err(s, loc, "cannot combine a graph value with %s value in '%s'; read the graph value on the vertices with u[graph]",
        edge ? "an edge" : "a vertex", what);
    return NULL;
  }
  return make(s, apply_op_for(edge ? DOM_EDGE : vertex ? DOM_VERTEX : graph ? DOM_GRAPH : DOM_GLOBAL), fn, args, nargs, fattr, iattr,
              loc);
}

static Value *constant(Sema *s, double x, Loc loc) {
  Shape sc = {0, {0}};
  return sema_leaf(s, OP_CONST, FN_NONE, DOM_GLOBAL, &sc, NULL, x, loc);
}

static const Decl *find_decl(Sema *s, const char *name) { return strmap_get(&s->decls, name); }

static Value *instantiate(Sema *s, const Decl *d, Env *caller, const Node *call, Value **args);

static Value *lower_call(Sema *s, Env *env, const Node *n) {
  const Builtin *b = sema_find_builtin(n->name);
  bool multi = s->want_multi; /* only this call, not the calls in its arguments */
  s->want_multi = false;
  if (!b) {
    const Decl *d = find_decl(s, n->name);
    if (!d) {
      bool builtin_value = strcmp(n->name, "in_deg") == 0 || strcmp(n->name, "out_deg") == 0 ||
                           strcmp(n->name, "graph_size") == 0;
      const char *what = sema_lookup(&env->vals, n->name) || builtin_value ? "a value"
                         : sema_lookup(&env->hypers, n->name)                 ? "a hyper-parameter"
                         : sema_lookup(&env->dims, n->name)                   ? "a dimension"
                                                                               : NULL;
      if (what) /* `in_deg()` */
        sema_err(s, n->loc, "'%s' is %s, not a function or layer%s", n->name, what,
            builtin_value && n->nargs == 0 ? ": write it without '()'" : "");
      else
        sema_err(s, n->loc, "unknown function or layer '%s'", n->name);
      return NULL;
    }
    if (d->is_model) {
      sema_err(s, n->loc, "'%s' is a model; only layers can be called", n->name);
      return NULL;
    }
    if (d->nrets > 1 && !multi) {
      sema_err(s, n->loc, "layer '%s' returns %d values: bind them to as many names (a, b = %s(...)), not use it in an expression",
          d->name, d->nrets, d->name);
      return NULL;
    }
    if (n->nargs != d->ninputs) {
      sema_err(s, n->loc, "layer '%s' takes %d input%s, %d given", d->name, d->ninputs, d->ninputs == 1 ? "" : "s", n->nargs);
      return NULL;
    }
    Value **args = arena_alloc(&s->c->arena, sizeof(Value *) * (size_t)(n->nargs + 1));
    bool ok = true;
    for (int i = 0; i < n->nargs; i++)
      if (!(args[i] = lower_expr(s, env, n->args[i]))) ok = false;
    return ok ? instantiate(s, d, env, n, args) : NULL;
  }
  if (n->has_gens) {
    sema_err(s, n->loc, "builtin '%s' takes no <...> arguments", n->name);
    return NULL;
  }
  if (n->nargs < b->min_args || (b->max_args >= 0 && n->nargs > b->max_args)) {
    int k = b->max_args >= 0 ? b->max_args : b->min_args;
    sema_err(s, n->loc, "'%s' takes %s%d argument%s, %d given (%s)", n->name,
        b->max_args < 0 ? "at least " : b->min_args == b->max_args ? "" : "up to ", k, k == 1 ? "" : "s", n->nargs,
        b->signature);
    return NULL;
  }
  Value *x = lower_expr(s, env, n->args[0]);
  if (!x) return NULL;
  double f = 0;
  switch (b->kind) {
  case B_UNARY:
    return apply(s, b->fn, b->name, &x, 1, 0, 0, n->loc);
  case B_LEAKY:
    f = 0.01;
    if (n->nargs == 2 && !sema_literal(s, env, n->args[1], "the slope of leaky_relu", &f)) return NULL;
    return apply(s, b->fn, b->name, &x, 1, f, 0, n->nargs == 2 ? n->args[1]->loc : n->loc);
  case B_ELU:
    f = 1.0;
    if (n->nargs == 2 && !sema_literal(s, env, n->args[1], "the alpha of elu", &f)) return NULL;
    return apply(s, b->fn, b->name, &x, 1, f, 0, n->nargs == 2 ? n->args[1]->loc : n->loc);
  case B_DROPOUT:
    if (!sema_literal(s, env, n->args[1], "the probability of dropout", &f)) return NULL;
    /* Each dropout draws its own mask: a stream number of its own, so CSE never merges two. */
    return apply(s, b->fn, b->name, &x, 1, f, s->m->ndropout++, n->args[1]->loc);
  case B_REPEAT: case B_ONE_HOT: {
    int64_t k = sema_dim_arg(s, env, n->args[1], b->kind == B_REPEAT ? "the count of repeat" : "the width of one_hot");
    return k ? apply(s, b->fn, b->name, &x, 1, 0, k, n->loc) : NULL;
  }
  case B_BINARY: {
    Value *args[2] = {x, lower_expr(s, env, n->args[1])};
    return args[1] ? apply(s, b->fn, b->name, args, 2, 0, 0, n->loc) : NULL;
  }
  case B_CONCAT: { /* concat(a, b, c, ...) is concat(concat(a, b), c) ...: one IR concat per comma */
    for (int i = 1; i < n->nargs && x; i++) {
      Value *args[2] = {x, lower_expr(s, env, n->args[i])};
      x = args[1] ? apply(s, b->fn, b->name, args, 2, 0, 0, n->loc) : NULL;
    }
    return x;
  }
  case B_WHERE: {
    Value *args[3] = {x, lower_expr(s, env, n->args[1]), NULL};
    if (!args[1] || !(args[2] = lower_expr(s, env, n->args[2]))) return NULL;
    return apply(s, b->fn, b->name, args, 3, 0, 0, n->loc);
  }
  case B_POW:
    if (!sema_literal(s, env, n->args[1], "the exponent of pow", &f)) return NULL;
    return apply(s, b->fn, b->name, &x, 1, f, 0, n->loc);
  case B_SLICE: {
    int64_t lo = sema_index_arg(s, env, n->args[1], "the start of slice"), hi = sema_index_arg(s, env, n->args[2], "the end of slice");
    if (lo < 0 || hi < 0) return NULL;
    int64_t last = x->shape.rank ? x->shape.d[x->shape.rank - 1] : 0;
    if (x->shape.rank == 0 || !(lo < hi && hi <= last)) {
      sema_err(s, n->loc, "slice(x, %lld, %lld) of a value of shape %s: the range [from, to) must be non-empty and inside its last dim",
          (long long)lo, (long long)hi, shape_str(&s->c->arena, &x->shape));
      return NULL;
    }
    if (sema_over_budget(s, n->loc)) return NULL;
    Value p = {.op = apply_op_for(x->dom == DOM_PARAM ? DOM_GLOBAL : x->dom), .fn = FN_SLICE, .msg = FN_NONE, .nargs = 1,
               .iattr = lo, .iattr2 = hi, .loc = n->loc};
    p.args[0] = x;
    const char *why = NULL;
    Value *v = ir_make_like(s->m, &p, &why);
    if (!v) sema_err(s, n->loc, "%s", why);
    return v;
  }
  case B_SOFTMAX_LAST: { /* exp(log_softmax(x)): normalised over the last dim */
    Value *l = apply(s, FN_LOG_SOFTMAX, b->name, &x, 1, 0, 0, n->loc);
    return l ? apply(s, FN_EXP, b->name, &l, 1, 0, 0, n->loc) : NULL;
  }
  case B_BATCH_NORM: { /* (x - mean) / sqrt(var + eps) per element, the statistics over every vertex */
    f = 1e-5;
    if (n->nargs == 2 && !sema_literal(s, env, n->args[1], "the eps of batch_norm", &f)) return NULL;
    if (!(f > 0)) {
      sema_err(s, n->args[1]->loc, "batch_norm eps %g is not positive", f);
      return NULL;
    }
    if (x->dom != DOM_VERTEX) {
      sema_err(s, n->args[0]->loc, "batch_norm normalises over the vertices, so its argument must be a vertex value, not %s value",
          domain_a(x->dom));
      return NULL;
    }
    /* the vertex count as a value: the sum over the vertices of a broadcast 1 */
    Value *one = constant(s, 1, n->loc), *eps = constant(s, f, n->loc);
    Value *ones = one ? make(s, OP_BROADCAST, FN_NONE, &one, 1, 0, 0, n->loc) : NULL;
    Value *cnt = ones ? make(s, OP_REDUCE_ROWS, FN_SUM, &ones, 1, 0, 0, n->loc) : NULL;
    Value *sum = cnt ? make(s, OP_REDUCE_ROWS, FN_SUM, &x, 1, 0, 0, n->loc) : NULL;
    Value *mu = sum ? apply(s, FN_DIV, b->name, (Value *[]){sum, cnt}, 2, 0, 0, n->loc) : NULL;
    Value *d = mu ? apply(s, FN_SUB, b->name, (Value *[]){x, mu}, 2, 0, 0, n->loc) : NULL;
    Value *d2 = d ? apply(s, FN_MUL, b->name, (Value *[]){d, d}, 2, 0, 0, n->loc) : NULL;
    Value *ss = d2 ? make(s, OP_REDUCE_ROWS, FN_SUM, &d2, 1, 0, 0, n->loc) : NULL;
    Value *var = ss ? apply(s, FN_DIV, b->name, (Value *[]){ss, cnt}, 2, 0, 0, n->loc) : NULL;
    Value *ve = var ? apply(s, FN_ADD, b->name, (Value *[]){var, eps}, 2, 0, 0, n->loc) : NULL;
    Value *rs = ve ? apply(s, FN_RSQRT, b->name, &ve, 1, 0, 0, n->loc) : NULL;
    return rs ? apply(s, FN_MUL, b->name, (Value *[]){d, rs}, 2, 0, 0, n->loc) : NULL;
  }
  case B_LAYER_NORM: { /* (x - mean) / sqrt(var + eps) over the last dim, var the biased variance */
    f = 1e-5;
    if (n->nargs == 2 && !sema_literal(s, env, n->args[1], "the eps of layer_norm", &f)) return NULL;
    if (!(f > 0)) {
      sema_err(s, n->args[1]->loc, "layer_norm eps %g is not positive", f);
      return NULL;
    }
    if (x->shape.rank == 0) {
      sema_err(s, n->args[0]->loc, "layer_norm of a scalar row: it normalises over the last dim, and there is none");
      return NULL;
    }
    Value *inv_n = constant(s, 1.0 / (double)x->shape.d[x->shape.rank - 1], n->loc), *eps = constant(s, f, n->loc);
    if (!inv_n || !eps) return NULL;
    Value *sum = apply(s, FN_SUM_LAST, b->name, &x, 1, 0, 0, n->loc);
    Value *mu = sum ? apply(s, FN_MUL, b->name, (Value *[]){sum, inv_n}, 2, 0, 0, n->loc) : NULL;
    Value *d = mu ? apply(s, FN_SUB, b->name, (Value *[]){x, mu}, 2, 0, 0, n->loc) : NULL;
    Value *d2 = d ? apply(s, FN_MUL, b->name, (Value *[]){d, d}, 2, 0, 0, n->loc) : NULL;
    Value *ss = d2 ? apply(s, FN_SUM_LAST, b->name, &d2, 1, 0, 0, n->loc) : NULL;
    Value *var = ss ? apply(s, FN_MUL, b->name, (Value *[]){ss, inv_n}, 2, 0, 0, n->loc) : NULL;
    Value *ve = var ? apply(s, FN_ADD, b->name, (Value *[]){var, eps}, 2, 0, 0, n->loc) : NULL;
    Value *rs = ve ? apply(s, FN_RSQRT, b->name, &ve, 1, 0, 0, n->loc) : NULL;
    return rs ? apply(s, FN_MUL, b->name, (Value *[]){d, rs}, 2, 0, 0, n->loc) : NULL;
  }
  case B_READOUT: case B_SOFTMAX_VERTICES: {
    if (x->dom != DOM_VERTEX) {
      sema_err(s, n->args[0]->loc, "'%s' reduces over the vertices of each graph, so its argument must be a vertex value, not %s value",
          n->name, domain_a(x->dom));
      return NULL;
    }
    if (b->kind == B_READOUT) return make(s, OP_READOUT, b->fn, &x, 1, 0, 0, n->loc);
    /* softmax over the vertices of each graph, per element: exp(x - m[graph]) / sum of those,
     * m the graph's max (for range only: the gradient through it cancels) */
    Value *m = make(s, OP_READOUT, FN_MAX, &x, 1, 0, 0, n->loc);
    Value *mb = m ? make(s, OP_BROADCAST, FN_NONE, &m, 1, 0, 0, n->loc) : NULL;
    Value *d = mb ? apply(s, FN_SUB, b->name, (Value *[]){x, mb}, 2, 0, 0, n->loc) : NULL;
    Value *ex = d ? apply(s, FN_EXP, b->name, &d, 1, 0, 0, n->loc) : NULL;
    Value *z = ex ? make(s, OP_READOUT, FN_SUM, &ex, 1, 0, 0, n->loc) : NULL;
    Value *zb = z ? make(s, OP_BROADCAST, FN_NONE, &z, 1, 0, 0, n->loc) : NULL;
    return zb ? apply(s, FN_DIV, b->name, (Value *[]){ex, zb}, 2, 0, 0, n->loc) : NULL;
  }
  case B_REDUCE:
    if (n->nargs == 2) { /* max(a, b), min(a, b): element-wise */
      Value *args[2] = {x, lower_expr(s, env, n->args[1])};
      return args[1] ? apply(s, b->fn == FN_MAX ? FN_MAXIMUM : FN_MINIMUM, b->name, args, 2, 0, 0, n->loc) : NULL;
    }
    /* fall through */
  case B_REDUCE_OUT:
  case B_SOFTMAX: {
    bool out = b->kind == B_REDUCE_OUT;
    if (x->dom != DOM_EDGE) {
      sema_err(s, n->args[0]->loc, "'%s' reduces over the %s-edges of each vertex, so its argument must be an edge value, not %s value%s",
          n->name, out ? "out" : "in", domain_a(x->dom),
          x->dom == DOM_VERTEX ? (out ? " (read it on the edges with x[dst])" : " (read it on the edges with x[src])") : "");
      return NULL;
    }
    if (b->kind != B_SOFTMAX) sema_warn_same_on_every_edge(s, b, x, n->loc);
    return make(s, b->kind == B_SOFTMAX ? OP_REDUCE_SCATTER : OP_GATHER, b->fn, &x, 1, 0, out ? GATHER_BY_SRC : GATHER_BY_DST,
                n->loc);
  }
  }
  return NULL;
}

/* An expression that does not continue a left spine: a number, a name, a call, a negation. */
static Value *lower_leaf(Sema *s, Env *env, const Node *n) {
  switch (n->kind) {
  case N_NUM:
    return constant(s, n->num, n->loc);
  case N_NAME: {
    Binding *b = sema_lookup(&env->vals, n->name);
    if (b) return b->val; /* NULL if poisoned: already reported */
    if ((b = sema_lookup(&env->hypers, n->name))) return constant(s, b->real, n->loc);
    if ((b = sema_lookup(&env->dims, n->name))) return constant(s, (double)b->dim, n->loc); /* / sqrt(D) */
    if (strcmp(n->name, "in_deg") == 0 || strcmp(n->name, "out_deg") == 0) {
      Shape sc = {0, {0}};
      return sema_leaf(s, OP_DEGREE, n->name[0] == 'i' ? FN_IN : FN_OUT, DOM_VERTEX, &sc, NULL, 0, n->loc);
    }
    if (strcmp(n->name, "graph_size") == 0) {
      Shape sc = {0, {0}};
      return sema_leaf(s, OP_DEGREE, FN_SIZE, DOM_GRAPH, &sc, NULL, 0, n->loc);
    }
    if (sema_find_builtin(n->name) || find_decl(s, n->name))
      sema_err(s, n->loc, "'%s' is a function; call it with arguments", n->name);
    else if (strcmp(n->name, "src") == 0 || strcmp(n->name, "dst") == 0) /* `x * src` */
      sema_err(s, n->loc, "'%s' is not a value, only an index: x[%s] reads vertex value x on each edge, at its %s", n->name,
          n->name, n->name[0] == 's' ? "source" : "destination");
    else
      sema_err(s, n->loc, "unknown name '%s'", n->name);
    return NULL;
  }
  case N_CALL:
    return lower_call(s, env, n);
  case N_NEG: {
    Value *x = lower_expr(s, env, n->lhs);
    return x ? apply(s, FN_NEG, "-", &x, 1, 0, 0, n->loc) : NULL;
  }
  case N_INDEX: case N_BINOP:
    break; /* lower_link */
  }
  return NULL;
}

/* One link of a left spine, x[src] or lhs OP rhs, given its lowered left operand x (NULL if
 * that failed: the right operand is still lowered, for its errors). */
static Value *lower_link(Sema *s, Env *env, const Node *n, Value *x) {
  if (n->kind == N_INDEX) {
    if (!x) return NULL;
    /* A value of the wrong domain has the caret, or, when it is itself read with an index
     * (x[src][dst]), this index: the earlier one's place (src) would blame the index that worked. */
    Loc bad = n->lhs->kind == N_INDEX ? n->loc : n->lhs->loc;
    bool is_src = strcmp(n->name, "src") == 0;
    if (strcmp(n->name, "graph") == 0) { /* u[graph]: each vertex reads its graph's row */
      if (x->dom != DOM_GRAPH) {
        sema_err(s, bad, "only graph values can be read on vertices with [graph]; this is %s value", domain_a(x->dom));
        return NULL;
      }
      return make(s, OP_BROADCAST, FN_NONE, &x, 1, 0, 0, n->loc);
    }
    if (!is_src && strcmp(n->name, "dst") != 0) {
      sema_err(s, n->loc, "a value is indexed by 'src' or 'dst' (a vertex value) or 'graph' (a graph value), not '%s'", n->name);
      return NULL;
    }
    if (x->dom != DOM_VERTEX) {
      sema_err(s, bad, "only vertex values can be read on edges with [%s]; this is %s value", n->name, domain_a(x->dom));
      return NULL;
    }
    return make(s, OP_SCATTER, is_src ? FN_COPY_U : FN_COPY_V, &x, 1, 0, 0, n->loc);
  }
  Value *a = x, *b = lower_expr(s, env, n->rhs);
  if (!a || !b) return NULL;
  if (n->op == '@') {
    if (a->dom != DOM_PARAM) {
      sema_err(s, n->lhs->loc, "the left operand of '@' must be a parameter matrix, not %s value", domain_a(a->dom));
      return NULL;
    }
    Value *args[2] = {b, a};
    return apply(s, FN_LINEAR, "@", args, 2, 0, 0, n->loc);
  }
  FnKind fn = n->op == '+' ? FN_ADD : n->op == '-' ? FN_SUB : n->op == '*' ? FN_MUL : FN_DIV;
  Value *args[2] = {a, b};
  char op[2] = {(char)n->op, 0};
  return apply(s, fn, op, args, 2, 0, 0, n->loc);
}

/* Lowers an expression: the left spine of a chain in a loop, from its innermost operand out
 * (the order of the recursive definition: left operand, right operand, operator); recursion
 * only into the other children, counted against SEMA_MAX_DEPTH (see the top of the file). */
static Value *lower_expr(Sema *s, Env *env, const Node *n) {
  if (s->abandoned) return NULL;
  /* a name or number recurses no further: one inside SEMA_MAX_DEPTH levels is within them
   * (the parser's limit, GNN_MAX_NESTING, counts the same way: 1000 nested calls around x) */
  if (s->depth >= SEMA_MAX_DEPTH && n->kind != N_NAME && n->kind != N_NUM) {
    sema_err(s, n->loc, "expression nested too deeply (more than %d levels, counting the bodies of the layers it calls)",
        SEMA_MAX_DEPTH);
    s->abandoned = true;
    return NULL;
  }
  s->depth++;
  int len = 0;
  const Node *leaf = n;
  for (; leaf->kind == N_INDEX || leaf->kind == N_BINOP; leaf = leaf->lhs) len++;
  const Node *small[8], **spine = len <= 8 ? small : arena_alloc(&s->c->arena, sizeof *spine * (size_t)len);
  int k = len;
  for (const Node *x = n; x != leaf; x = x->lhs) spine[--k] = x;
  Value *v = lower_leaf(s, env, leaf);
  for (int i = 0; i < len; i++) v = lower_link(s, env, spine[i], v);
  s->depth--;
  return v;
}

/* ---------------------------------------------------------------- declarations */

/* A value bound to a name takes that name, after its instance's path, as its label (the names
 * of generated code: gatconv0.alpha -> gatconv0_alpha), unless an earlier binding named it. */
static void label(Sema *s, const char *name, Value *v) {
  if (!v || v->label || v->op == OP_INPUT || v->op == OP_PARAM || v->op == OP_CONST) return;
  v->label = s->frame->path[0] ? arena_printf(&s->c->arena, "%s.%s", s->frame->path, name) : name;
}

/* Which names a statement may rebind. A pass is one lowering of a body's statements: the body
 * of the model or of a layer instance, or one iteration of a loop's body. The statements of a
 * pass bind a name at most once (their own bindings are env->own, or the innermost loop's
 * `own` of this iteration's pass); any other earlier binding of it may be replaced: one made
 * before the pass began (the loop-carried value, h = f(h), or what the previous iteration
 * bound) or by a loop nested in this pass. So `for j {h = g(h)}; h = 2 * h` and
 * `h = 2 * h; for j {h = g(h)}` are both accepted, in a loop body or not, and `h = x; h = 2 * h`
 * is a redefinition in either. A rebound name keeps its domain and shape: a parameter shared by
 * the iterations of a loop sees the same shapes in every one. */
static Binding *own_binding(Sema *s, Env *env, const char *name) {
  if (!s->loop) return strmap_get(&env->own, name);
  Binding *b = strmap_get(&s->loop->own, name);
  return b && b->pass == s->loop->pass ? b : NULL;
}

static Binding *bind_own(Sema *s, Env *env, const char *name, Value *v, Loc loc) {
  Binding *b = sema_bind(s, &env->vals, name, v, 0, loc);
  b->pass = s->loop ? s->loop->pass : 0;
  *strmap_put(&s->c->arena, s->loop ? &s->loop->own : &env->own, name) = b;
  return b;
}

static bool define(Sema *s, Env *env, const char *name, Loc loc, Value *v) {
  Binding *old = sema_lookup(&env->vals, name), *mine = old ? own_binding(s, env, name) : NULL;
  if (old && !mine) {
    if (old->val && v && (old->val->dom != v->dom || !shape_eq(&old->val->shape, &v->shape))) {
      diag_error(&s->c->diag, loc, "'%s' is %s%s here but %s%s before: a name rebound %s keeps its domain and shape",
                 name, domain_name(v->dom), shape_str(&s->c->arena, &v->shape), domain_name(old->val->dom),
                 shape_str(&s->c->arena, &old->val->shape), s->loop ? "in a loop" : "after a loop");
      diag_note(&s->c->diag, old->loc, "'%s' was bound here", name);
      sema_report_frames(s);
      bind_own(s, env, name, NULL, loc);
      return false;
    }
    bind_own(s, env, name, v, loc);
    label(s, name, v);
    return true;
  }
  if (old) { /* the note on the first definition comes before the "instantiated here" notes */
    diag_error(&s->c->diag, loc, "redefinition of '%s'", name);
    diag_note(&s->c->diag, mine->loc, "'%s' was defined here", name);
    sema_report_frames(s);
    /* The later statements were written for the new value (`x = W @ x` shadowing an input):
     * they see it, so the mistake is not reported again as their types (a NULL poisons the
     * name). The pass's first binding stays its own: a third binding is noted at the first. */
    sema_bind(s, &env->vals, name, v, 0, loc);
    return false;
  }
  if (sema_is_builtin_value(name)) {
    sema_err(s, loc, "'%s' is a builtin and cannot be redefined", name);
    bind_own(s, env, name, NULL, loc); /* poisoned: its uses are not reported again */
    return false;
  }
  Binding *g = sema_lookup(&env->hypers, name);
  if (g && g->loop_var) {
    diag_error(&s->c->diag, loc, "'%s' is the variable of a loop and cannot be assigned", name);
    diag_note(&s->c->diag, g->loc, "'%s' was declared here", name);
    sema_report_frames(s);
    return false;
  }
  if (g || (g = sema_lookup(&env->dims, name))) { /* both are values in expressions: one name, one meaning */
    diag_error(&s->c->diag, loc, "redefinition of '%s', a %s of this layer", name,
               sema_lookup(&env->hypers, name) ? "hyper-parameter" : "dimension");
    diag_note(&s->c->diag, g->loc, "'%s' was declared here", name);
    sema_report_frames(s);
    bind_own(s, env, name, NULL, loc); /* poisoned: its uses are not reported again */
    return false;
  }
  sema_warn_index_name(s, name, "value", loc);
  bind_own(s, env, name, v, loc);
  label(s, name, v);
  return true;
}

static bool check_type(Sema *s, Env *env, const TypeSpec *t, const Value *v, Loc loc, const char *what) {
  Shape want;
  if (!sema_eval_shape(s, env, t, &want)) return false;
  if (v->dom != t->dom || !shape_eq(&want, &v->shape)) {
    sema_err(s, loc, "%s is %s%s but is declared %s%s", what, domain_name(v->dom), shape_str(&s->c->arena, &v->shape),
        domain_name(t->dom), shape_str(&s->c->arena, &want));
    return false;
  }
  return true;
}

/* a, b = L(x): the right side must call a layer returning that many values. */
static void assign_several(Sema *s, Env *env, const Stmt *st) {
  const Node *e = st->expr;
  const Decl *cd = e->kind == N_CALL && !sema_find_builtin(e->name) ? find_decl(s, e->name) : NULL;
  Value **vals = NULL;
  if (!cd || cd->is_model) {
    sema_err(s, e->loc, "%d names on the left of '=' need a call of a layer that returns %d values on the right", st->nnames,
        st->nnames);
  } else if (cd->nrets != st->nnames) {
    sema_err(s, e->loc, "layer '%s' returns %d value%s, not %d", cd->name, cd->nrets, cd->nrets == 1 ? "" : "s", st->nnames);
  } else {
    s->want_multi = true;
    Value *first = lower_expr(s, env, e);
    s->want_multi = false;
    if (first && s->rets && s->nrets == st->nnames) vals = s->rets;
  }
  for (int k = 0; k < st->nnames; k++) define(s, env, st->names[k], st->name_locs[k], vals ? vals[k] : NULL);
}

/* What a body's statements returned. */
typedef struct {
  bool returned;
  Value *ret, **rets; /* NULL after an error */
} Returned;

static void lower_for(Sema *s, const Decl *d, Env *env, const Stmt *st, Returned *r);

/* A parameter statement: a new parameter, or inside a loop the one that an earlier iteration
 * declared (the same path name), so that the iterations share it. */
enum { PARAM_NAME_MAX = 250 };
static void lower_param(Sema *s, Env *env, const Stmt *st) {
  Shape shape;
  const char *name = s->frame->path[0] ? arena_printf(&s->c->arena, "%s.%s", s->frame->path, st->name) : st->name;
  Value *p = NULL;
  double init = 0;
  bool init_ok = !st->expr || sema_literal(s, env, st->expr, "the initial value of a parameter", &init);
  if (init_ok && !isfinite(init)) {
    sema_err(s, st->expr->loc, "the initial value of parameter '%s' is not finite", st->name);
    init_ok = false;
  } else if (init_ok && !isfinite((float)init)) {
    /* A parameter is float32: 1e39 would start at inf. Defensive: the value is a literal or a
     * hyper-parameter (itself a literal), and the lexer already refuses literals beyond float32;
     * kept so that a new source of values (an expression, a dimension) cannot bring inf back. */
    sema_err(s, st->expr->loc, "the initial value of parameter '%s', %g, is beyond float32's range (largest %.8g)", st->name, init,
             (double)FLT_MAX);
    init_ok = false;
  }
  /* The runtime's tensor files hold names of 1 to 255 bytes, and a gradient is "grad." + name. */
  if (strlen(name) > PARAM_NAME_MAX) {
    sema_err(s, st->name_loc, "the full name of this parameter (instance path, '.', name) is %zu characters, more than the %d "
             "that tensor files allow ('grad.' + it within 255): shorten the layer or parameter names", strlen(name), PARAM_NAME_MAX);
    init_ok = false;
  }
  if (sema_eval_shape(s, env, st->type, &shape) && init_ok) {
    Value *shared = s->loops ? strmap_get(&s->params, name) : NULL;
    if (shared && !shape_eq(&shared->shape, &shape)) {
      sema_err(s, st->name_loc, "parameter '%s' shared by the iterations of a loop is %s here but %s in an earlier one", st->name,
          shape_str(&s->c->arena, &shape), shape_str(&s->c->arena, &shared->shape));
    } else if (shared) {
      p = shared;
    } else {
      p = sema_leaf(s, OP_PARAM, FN_NONE, DOM_PARAM, &shape, name, init, st->name_loc);
      if (p && st->expr) p->iattr = 1; /* every element starts at init, whatever --init says */
      if (p) *strmap_put(&s->c->arena, &s->params, name) = p;
    }
  }
  define(s, env, st->name, st->name_loc, p);
}

/* Lowers statements in order into r; false once lowering must stop (a limit, too many errors). */
static bool lower_stmts(Sema *s, const Decl *d, Env *env, Stmt **body, int nbody, Returned *r) {
  for (int i = 0; i < nbody; i++) {
    const Stmt *st = body[i];
    if (diag_too_many(&s->c->diag) || s->abandoned || !sema_step(s, st->loc)) return false;
    if (r->returned) {
      sema_err(s, st->loc, "statement after return");
      return false;
    }
    switch (st->kind) {
    case S_PARAM:
      lower_param(s, env, st);
      break;
    case S_ASSIGN:
      if (st->nnames > 1) {
        assign_several(s, env, st);
        break;
      }
      define(s, env, st->name, st->name_loc, lower_expr(s, env, st->expr));
      break;
    case S_FOR:
      lower_for(s, d, env, st, r);
      break;
    case S_RETURN: {
      if (s->loop) {
        sema_err(s, st->loc, "return inside a loop: a loop rebinds names, the body returns after it");
        break;
      }
      r->returned = true;
      if (st->nexprs != d->nrets) {
        sema_err(s, st->loc, "%s '%s' is declared to return %d value%s, this return gives %d", d->is_model ? "model" : "layer",
            d->name, d->nrets, d->nrets == 1 ? "" : "s", st->nexprs);
        break;
      }
      Value **vals = arena_alloc(&s->c->arena, sizeof(Value *) * (size_t)st->nexprs);
      bool ok = true;
      for (int k = 0; k < st->nexprs; k++) {
        vals[k] = lower_expr(s, env, st->exprs[k]);
        const char *what = st->nexprs == 1 ? "the returned value" : arena_printf(&s->c->arena, "returned value %d", k + 1);
        if (!vals[k] || !check_type(s, env, d->rets[k], vals[k], st->exprs[k]->loc, what)) ok = false;
      }
      r->ret = ok ? vals[0] : NULL;
      r->rets = ok ? vals : NULL;
      break;
    }
    }
  }
  return true;
}

/* for k in A..B { body }: the body lowered B - A times (unrolled), k bound to A, A+1, ... as
 * a hyper-parameter of the body. A name bound before an iteration may be rebound in it;
 * parameters declared and layers called in the body are shared by every iteration. */
static void lower_for(Sema *s, const Decl *d, Env *env, const Stmt *st, Returned *r) {
  int64_t from = sema_loop_bound(s, env, st->from), to = sema_loop_bound(s, env, st->to);
  if (from < 0 || to < 0) return;
  if (to < from) {
    sema_err(s, st->to->loc, "the loop's range %lld..%lld runs backwards", (long long)from, (long long)to);
    return;
  }
  Binding *g = sema_lookup(&env->vals, st->name);
  const char *what = "value";
  if (!g && (g = sema_lookup(&env->hypers, st->name))) what = g->loop_var ? "variable of an enclosing loop" : "hyper-parameter";
  if (!g && (g = sema_lookup(&env->dims, st->name))) what = "dimension";
  if (g || sema_is_builtin_value(st->name)) {
    if (g) {
      diag_error(&s->c->diag, st->name_loc, "loop variable '%s' is already the name of a %s", st->name, what);
      diag_note(&s->c->diag, g->loc, "'%s' was declared here", st->name);
      sema_report_frames(s);
    } else {
      sema_err(s, st->name_loc, "'%s' is a builtin and cannot be a loop variable", st->name);
    }
    return;
  }
  sema_warn_index_name(s, st->name, "value", st->name_loc);
  Loop loop = {.up = s->loop};
  s->loop = &loop;
  s->loops++;
  for (int64_t k = from; k < to; k++) {
    int errors = s->c->diag.errors;
    loop.pass = ++s->passes;
    Binding *kb = sema_bind(s, &env->hypers, st->name, NULL, 0, st->name_loc);
    kb->real = (double)k;
    kb->loop_var = true;
    /* One iteration's errors are every iteration's: report them once. */
    if (!lower_stmts(s, d, env, st->body, st->nbody, r) || s->c->diag.errors != errors) break;
  }
  s->loops--;
  s->loop = loop.up;
  *strmap_put(&s->c->arena, &env->hypers, st->name) = NULL; /* k is not bound after its loop */
}

/* Lowers a declaration's body in env; returns the returned value. */
static Value *lower_body(Sema *s, const Decl *d, Env *env) {
  Returned r = {0};
  if (!lower_stmts(s, d, env, d->body, d->nbody, &r)) return NULL;
  s->rets = r.rets;
  s->nrets = r.rets ? d->nrets : 0;
  if (!r.returned) sema_err(s, d->loc, "%s '%s' has no return statement", d->is_model ? "model" : "layer", d->name);
  return r.ret;
}

/* Binds a layer input's dims against the argument: bare names bind, expressions compare. */
static bool bind_input(Sema *s, Env *env, const Decl *d, Loc call_loc, const ParamDecl *p, const Value *arg, Loc arg_loc) {
  const TypeSpec *t = p->type;
  if (arg->dom != t->dom) {
    sema_err(s, arg_loc, "input '%s' is declared %s value but the argument is %s value", p->name,
        domain_a(t->dom), domain_a(arg->dom));
    return false;
  }
  if (t->ndims != arg->shape.rank) {
    sema_err(s, arg_loc, "input '%s' has %d dims but the argument has shape %s", p->name, t->ndims,
        shape_str(&s->c->arena, &arg->shape));
    return false;
  }
  for (int i = 0; i < t->ndims; i++) {
    const DimExpr *dx = t->dims[i];
    if (dx->kind == DX_NAME && !sema_lookup(&env->dims, dx->name)) {
      const Binding *h = sema_lookup(&env->hypers, dx->name);
      if (h) { /* one name, one meaning: `a` in the body is the hyper-parameter's value */
        diag_error(&s->c->diag, dx->loc, "'%s' is a hyper-parameter of layer '%s', not a dimension: give input '%s''s "
                   "dimension a name of its own", dx->name, d->name, p->name);
        diag_note(&s->c->diag, h->loc, "'%s' was declared here", dx->name);
        diag_note(&s->c->diag, call_loc, "in layer '%s' instantiated here", d->name);
        sema_report_frames(s);
        return false;
      }
      sema_warn_index_name(s, dx->name, "dimension", dx->loc);
      sema_bind(s, &env->dims, dx->name, NULL, arg->shape.d[i], dx->loc);
      continue;
    }
    int64_t want = sema_eval_dim(s, env, dx);
    if (!want) return false;
    if (want != arg->shape.d[i]) {
      sema_err(s, arg_loc, "input '%s' dim %d must be %lld, the argument has shape %s", p->name, i, (long long)want,
          shape_str(&s->c->arena, &arg->shape));
      return false;
    }
  }
  return true;
}

/* The path of a new instance of layer `name` called from the current frame: the caller's path,
 * '.', and the component  lower(name) sep n,  where lower(name) is the name in lower case, sep
 * is "_" if lower(name) ends in a digit or '_' and empty otherwise, and n counts the calls
 * from this caller instance of layers with that lower-case name ("gatconv0", "l1_0"). A
 * parameter is named <path>.<param name>; in the model itself, just <param name>.
 *
 * No two parameters of a model get the same name:
 * - A component determines (lower(name), n). Its maximal run of trailing digits is exactly
 *   decimal(n): the character before it is the last of lower(name) when sep is empty (then a
 *   letter, since names are [A-Za-z_][A-Za-z0-9_]*), or the '_' of sep. What precedes the
 *   digits is lower(name) if it ends in a letter, and lower(name) + "_" if it ends in '_'
 *   (which happens exactly when sep is "_"), so lower(name) is recovered too.
 * - Two instances with the same caller differ in (lower(name), n), since n counts per
 *   lower-case name (Conv and CONV share a counter: conv0, conv1), so their components differ.
 * - Components contain no '.', so by induction on the nesting two different instances have
 *   different paths; parameters of one instance have different names (redefinition is an
 *   error); and a parameter of the model has no '.' while one in a layer has at least one.
 * Without sep, layer l1's 11th instance and l11's first would both be "l110"; without the
 * shared counter, Conv and CONV would both give "conv0". */
static const char *instance_path(Sema *s, const char *name, Loc loc) {
  char *lower = arena_strdup(&s->c->arena, name);
  for (char *p = lower; *p; p++) *p = (char)tolower((unsigned char)*p);
  Binding *cnt = sema_lookup(&s->frame->calls, lower);
  if (!cnt) cnt = sema_bind(s, &s->frame->calls, lower, NULL, 0, loc);
  char last = lower[strlen(lower) - 1];
  const char *sep = isdigit((unsigned char)last) || last == '_' ? "_" : "";
  long long n = (long long)cnt->dim++;
  return s->frame->path[0] ? arena_printf(&s->c->arena, "%s.%s%s%lld", s->frame->path, lower, sep, n)
                           : arena_printf(&s->c->arena, "%s%s%lld", lower, sep, n);
}

/* Binds a call's generic arguments <...> in env: positional ones in order, then `name = value`
 * for hyper-parameters; a hyper-parameter not given takes its default. */
static bool bind_generics(Sema *s, const Decl *d, Env *caller, const Node *call, Env *env) {
  int ndims = 0, npos = 0;
  for (int i = 0; i < d->ngens; i++) ndims += !d->gen_hyper[i];
  bool *given = arena_alloc(&s->c->arena, sizeof(bool) * (size_t)(d->ngens + 1));
  for (int k = 0; k < call->ngens; k++) {
    const DimExpr *a = call->gens[k];
    int slot = -1;
    if (a->key) {
      for (int i = 0; i < d->ngens; i++)
        if (strcmp(d->gens[i], a->key) == 0) slot = i;
      if (slot < 0 || !d->gen_hyper[slot]) {
        if (slot < 0)
          sema_err(s, a->key_loc, "layer '%s' has no hyper-parameter '%s'", d->name, a->key);
        else
          sema_err(s, a->key_loc, "'%s' is a dimension of layer '%s': give it by position, not by name", a->key, d->name);
        return false;
      }
      if (given[slot]) {
        sema_err(s, a->key_loc, "hyper-parameter '%s' is given twice", a->key);
        return false;
      }
    } else {
      if (k > 0 && call->gens[k - 1]->key) {
        sema_err(s, a->loc, "a positional argument <...> after a named one");
        return false;
      }
      if (npos >= d->ngens) {
        if (ndims == d->ngens)
          sema_err(s, call->loc, "layer '%s' takes %d dimension argument%s <...>, %d given", d->name, d->ngens,
              d->ngens == 1 ? "" : "s", call->ngens);
        else
          sema_err(s, call->loc, "layer '%s' takes at most %d argument%s <...>, %d given", d->name, d->ngens,
              d->ngens == 1 ? "" : "s", call->ngens);
        return false;
      }
      slot = npos++;
    }
    given[slot] = true;
    if (d->gen_hyper[slot]) {
      double x;
      if (!sema_hyper_arg(s, caller, a, d->gens[slot], &x)) return false;
      sema_bind(s, &env->hypers, d->gens[slot], NULL, 0, d->gen_locs[slot])->real = x;
    } else {
      if (a->kind == DX_NUM && a->is_real && a->real >= 1 && a->real <= 1e9 && a->real == (double)(long long)a->real) {
        /* `L<3.0>(x)`: "not 3" would read as if 3 were refused */
        sema_err(s, a->loc, "dimension argument '%s' of layer '%s' must be written as an integer: %lld, not a real number",
            d->gens[slot], d->name, (long long)a->real);
        return false;
      }
      if (a->kind == DX_NUM && a->is_real) {
        sema_err(s, a->loc, "dimension argument '%s' of layer '%s' must be a positive integer, not %g", d->gens[slot], d->name,
            a->real);
        return false;
      }
      int64_t v = sema_eval_dim(s, caller, a);
      if (!v) return false;
      sema_bind(s, &env->dims, d->gens[slot], NULL, v, d->gen_locs[slot]);
    }
  }
  for (int i = 0; i < d->ngens; i++) {
    if (given[i]) continue;
    if (d->gen_hyper[i]) {
      sema_bind(s, &env->hypers, d->gens[i], NULL, 0, d->gen_locs[i])->real = d->gen_default[i];
      continue;
    }
    /* Count the dimensions given, not the positional arguments: in <K = 2, D>, SGC<4> gave K. */
    int dims_given = 0, hypers_by_pos = 0;
    const char *took = "";
    for (int j = 0; j < npos; j++) {
      dims_given += !d->gen_hyper[j];
      if (d->gen_hyper[j]) {
        hypers_by_pos++;
        took = arena_printf(&s->c->arena, "%s%s'%s'", took, took[0] ? ", " : "", d->gens[j]);
      }
    }
    const char *missing = "";
    for (int j = i; j < d->ngens; j++)
      if (!given[j] && !d->gen_hyper[j])
        missing = arena_printf(&s->c->arena, "%s%s'%s'", missing, missing[0] ? ", " : "", d->gens[j]);
    const char *why = hypers_by_pos ? arena_printf(&s->c->arena, " (<...> is filled in declared order: hyper-parameter%s %s took %s)",
                                                    hypers_by_pos == 1 ? "" : "s", took,
                                                    hypers_by_pos == 1 ? "an argument" : arena_printf(&s->c->arena, "%d arguments", hypers_by_pos))
                                    : "";
    sema_err(s, call->loc, "layer '%s' takes %d dimension argument%s <...>, %d given: %s not given%s", d->name, ndims,
        ndims == 1 ? "" : "s", dims_given, missing, why);
    return false;
  }
  for (int i = 0; i < d->ngens; i++) sema_warn_index_name(s, d->gens[i], d->gen_hyper[i] ? "hyper-parameter" : "dimension", d->gen_locs[i]);
  return true;
}

static Value *instantiate(Sema *s, const Decl *d, Env *caller, const Node *call, Value **args) {
  if (!sema_step(s, call->loc)) return NULL;
  for (Frame *f = s->frame; f; f = f->up)
    if (f->decl == d) {
      sema_err(s, call->loc, "layer '%s' instantiates itself (recursion is not allowed)", d->name);
      return NULL;
    }
  Env env = {{0}, {0}, {0}, {0}};
  if (!bind_generics(s, d, caller, call, &env)) return NULL;
  for (int i = 0; i < d->ninputs; i++)
    if (!bind_input(s, &env, d, call->loc, d->inputs[i], args[i], call->args[i]->loc)) return NULL;

  /* In a loop, every iteration's call at this site is the same instance (its parameters shared). */
  const char *path = NULL;
  void **site = NULL;
  if (s->loops) {
    site = strmap_put(&s->c->arena, &s->frame->sites, arena_printf(&s->c->arena, "%p", (const void *)call));
    path = *site;
  }
  if (!path) path = instance_path(s, d->name, call->loc);
  if (site) *site = (void *)path;

  Frame fr = {.decl = d, .call_loc = call->loc, .path = path, .up = s->frame};
  Loop *loop = s->loop; /* the callee's body is not in the caller's loop: its names are its own */
  s->frame = &fr;
  s->loop = NULL;
  for (int i = 0; i < d->ninputs; i++) define(s, &env, d->inputs[i]->name, d->inputs[i]->loc, args[i]);
  Value *ret = lower_body(s, d, &env);
  label(s, "out", ret); /* the instance's result: gatconv0.out, unless the layer named it */
  for (int i = 0; i < s->nrets && s->rets; i++) label(s, arena_printf(&s->c->arena, "out%d", i), s->rets[i]);
  s->frame = fr.up;
  s->loop = loop;
  return ret;
}

static Module *lower_model(Sema *s, const Decl *d) {
  Module *m = arena_alloc(&s->c->arena, sizeof(Module));
  m->name = d->name;
  m->arena = &s->c->arena;
  s->m = m;
  s->abandoned = false;
  s->steps = 0;
  s->params = (StrMap){0};
  s->loop = NULL;
  s->loops = 0;
  Frame top = {.decl = d, .path = ""};
  s->frame = &top;
  Env env = {{0}, {0}, {0}, {0}};
  int errors = s->c->diag.errors;
  for (int i = 0; i < d->ninputs; i++) {
    const ParamDecl *p = d->inputs[i];
    Shape shape;
    Value *v = NULL;
    if (sema_eval_shape(s, &env, p->type, &shape))
      v = sema_leaf(s, OP_INPUT, p->type->dom == DOM_EDGE ? FN_EDGE : p->type->dom == DOM_GRAPH ? FN_GRAPH : FN_VERTEX, p->type->dom, &shape,
               p->name, 0, p->loc);
    define(s, &env, p->name, p->loc, v);
  }
  if (d->nrets != 1) {
    sema_err(s, d->loc, "model '%s' declares %d results; a model returns one value (its layers may return several)", d->name,
        d->nrets);
    s->frame = NULL;
    return NULL;
  }
  Value *out = lower_body(s, d, &env);
  if (out) module_add_output(m, "out", out);
  if (out && s->c->diag.errors == errors) sema_warn_unused_params(s, m);
  s->frame = NULL;
  return s->c->diag.errors == errors && out ? m : NULL;
}

Module *sema_lower(GnnCtx *c) {
  Sema s = {.c = c};
  PtrVec *ds = &c->prog->decls;
  const Decl *chosen = NULL;
  for (int i = 0; i < ds->len; i++) {
    Decl *d = ds->items[i];
    void **first = strmap_put(&c->arena, &s.decls, d->name);
    if (*first) {
      const Decl *e = *first;
      diag_error(&c->diag, d->loc, "redefinition of '%s'", d->name);
      diag_note(&c->diag, e->loc, "'%s' was first declared here", d->name);
    } else {
      *first = d;
    }
    if (!d->is_model && sema_find_builtin(d->name)) /* a call would always reach the builtin */
      diag_error(&c->diag, d->loc, "layer '%s' has the name of a builtin function", d->name);
    StrMap gens = {0}; /* name -> its first Loc in gen_locs */
    for (int j = 0; j < d->ngens; j++) {
      void **g = strmap_put(&c->arena, &gens, d->gens[j]);
      if (*g) {
        diag_error(&c->diag, d->gen_locs[j], "%s '%s' declared twice", d->gen_hyper[j] ? "hyper-parameter" : "dimension",
                   d->gens[j]);
        diag_note(&c->diag, *(Loc *)*g, "'%s' was first declared here", d->gens[j]);
      } else {
        *g = &d->gen_locs[j];
      }
    }
    /* <K = 2, D>: positional arguments fill the generics in declared order and a dimension is
     * given only by position, so every call that gives D gives K too: K's default is dead. The
     * layer can still be called (SGC<2, 4>), hence a warning, not an error. */
    for (int j = 0, k; j < d->ngens; j++) {
      if (!d->gen_hyper[j]) continue;
      for (k = j + 1; k < d->ngens && d->gen_hyper[k]; k++) {}
      if (k == d->ngens) break;
      sema_warn(&s, d->gen_locs[j], "the default of hyper-parameter '%s' can never be used: dimension '%s' after it is given by "
          "position, so every call gives '%s' too; declare the dimensions first (<%s, %s = ...>)", d->gens[j], d->gens[k],
          d->gens[j], d->gens[k], d->gens[j]);
      break;
    }
    if (d->is_model && (!c->model_name || strcmp(c->model_name, d->name) == 0)) chosen = d;
  }
  if (!chosen) {
    if (c->model_name)
      diag_error(&c->diag, (Loc){0, 0, 0}, "no model named '%s' in this file", c->model_name);
    else
      diag_error(&c->diag, (Loc){0, 0, 0}, "this file declares no model (a 'model Name(...) -> ... { ... }')");
    return NULL;
  }
  /* Every model is checked, so errors in one that was not chosen are still reported. */
  Module *result = NULL;
  for (int i = 0; i < ds->len && !diag_too_many(&c->diag); i++) {
    const Decl *d = ds->items[i];
    if (!d->is_model) continue;
    Module *m = lower_model(&s, d);
    if (d == chosen) result = m;
  }
  if (c->diag.errors) return NULL;
  c->mod = result;
  return result;
}
