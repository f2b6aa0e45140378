/* sema_scope.c -- what the lowering from the AST to the operator IR (sema.c) stands on: the
 * names of a body and their bindings, the diagnostics with their "instantiated here" notes,
 * the budget of one model, the compile-time constants (dimensions, shapes, constant arguments,
 * loop bounds, hyper-parameters' values at a call) and the table of builtins.
 *
 * Why the split is here. sema.c is one recursion (lower_expr -> lower_call -> instantiate ->
 * lower_body -> lower_stmts -> lower_expr), which cannot be cut across files without a circle
 * of files. Everything in this file is below that recursion: it reads bindings and the AST's
 * constants, reports, counts, and makes leaf values, but lowers no expression and calls
 * nothing of sema.c's (sema_eval_dim recurses only into itself). sema.c alone calls it, through
 * sema_scope.h, which also holds the types of the lowering's state.
 */
#include "sema_scope.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- bindings, diagnostics, budget */

Binding *sema_lookup(const StrMap *names, const char *name) { return strmap_get(names, name); }

/* Binds name (replacing an earlier binding of it). */
Binding *sema_bind(Sema *s, StrMap *names, const char *name, Value *v, int64_t dim, Loc loc) {
  Binding *b = arena_alloc(&s->c->arena, sizeof(Binding));
  b->name = name;
  b->val = v;
  b->dim = dim;
  b->loc = loc;
  *strmap_put(&s->c->arena, names, name) = b;
  return b;
}

/* "in layer 'L' instantiated here" for each enclosing call, innermost first; of a very deep
 * stack only the innermost and outermost few are shown. */
void sema_report_frames(Sema *s) {
  enum { SHOW = 5 };
  int n = 0;
  for (Frame *f = s->frame; f && f->up; f = f->up) n++;
  int k = 0;
  for (Frame *f = s->frame; f && f->up; f = f->up, k++) {
    if (n > 2 * SHOW && k >= SHOW && k < n - SHOW) {
      if (k == SHOW) diag_note(&s->c->diag, (Loc){0, 0, 0}, "(%d more layer instantiations)", n - 2 * SHOW);
      continue;
    }
    diag_note(&s->c->diag, f->call_loc, "in layer '%s' instantiated here", f->decl->name);
  }
}

void sema_err(Sema *s, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(&s->c->diag, "error", loc, fmt, ap);
  va_end(ap);
  sema_report_frames(s);
}

/* A warning at loc, once per source position however often the code there is lowered. */
void sema_warn(Sema *s, Loc loc, const char *fmt, ...) {
  const char *key = arena_printf(&s->c->arena, "%d:%d", loc.line, loc.col);
  if (strmap_get(&s->warned, key)) return;
  *strmap_put(&s->c->arena, &s->warned, key) = (void *)key;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(&s->c->diag, "warning", loc, fmt, ap);
  va_end(ap);
  sema_report_frames(s);
}

/* The budget (c->value_budget) bounds the work of lowering one model, so that no input can
 * take unbounded time or memory: every IR value (leaves included), every statement lowered
 * and every layer instantiated counts one. Counting only values would miss layers that call
 * layers 2^30 times without creating any, or bodies whose statements create none. */
bool sema_over_budget(Sema *s, Loc loc) {
  if (s->m->vals.len + s->steps < s->c->value_budget) return false;
  if (!s->abandoned)
    sema_err(s, loc, "model too large: more than %ld IR values, statements and layer instances after instantiating layers",
        s->c->value_budget);
  s->abandoned = true;
  return true;
}

/* One statement or instance: false once over the budget. */
bool sema_step(Sema *s, Loc loc) {
  if (sema_over_budget(s, loc)) return false;
  s->steps++;
  return true;
}

/* A leaf value (input, parameter, constant, degree), within the budget; NULL beyond it. */
Value *sema_leaf(Sema *s, OpKind op, FnKind fn, Domain dom, const Shape *shape, const char *name, double fattr, Loc loc) {
  return sema_over_budget(s, loc) ? NULL : ir_leaf(s->m, op, fn, dom, shape, name, fattr, loc);
}

/* ---------------------------------------------------------------- dimensions */

enum { DIM_MAX = 1 << 30 };

/* How an integer expression is evaluated: the least value of each of its parts (1 for a
 * dimension; 0 for an index of slice, a count of one_hot or repeat and a loop bound, where a
 * loop's variable starts at 0), whether a hyper-parameter with a whole value may stand in it
 * (not in a dimension of a type: a loop's iterations share one parameter, so its shape cannot
 * follow the loop's variable), and what messages call it. */
typedef struct {
  int64_t lo;
  bool hypers;
  const char *noun;
} IntRule;
static const IntRule DIM_RULE = {1, false, "dimension"}, INDEX_RULE = {0, true, "index"}, COUNT_RULE = {0, true, "integer"},
                     LOOP_RULE = {0, true, "loop bound"};

static int64_t eval_int(Sema *s, Env *env, const DimExpr *d, const IntRule *rule);

/* A dimension literal or name, or a negated part; lo - 1 after reporting an error. */
static int64_t eval_dim_leaf(Sema *s, Env *env, const DimExpr *d, const IntRule *rule) {
  int64_t lo = rule->lo;
  if (d->kind == DX_NEG) { /* `L<-D>`: below every rule's least value unless it is -0 (nesting: the lexer's bound) */
    int64_t v = eval_int(s, env, d->lhs, rule);
    if (v < lo) return lo - 1;
    if (-v < lo) {
      sema_err(s, d->loc, "%s expression evaluates to %lld, out of range (%lld to %d)", rule->noun, (long long)-v,
          (long long)lo, DIM_MAX);
      return lo - 1;
    }
    return -v;
  }
  if (d->kind == DX_NUM && d->is_real) { /* `0..K * 0.5`: its num would read 0 */
    sema_err(s, d->loc, "%s expressions take whole numbers, not %g", rule->noun, d->real);
    return lo - 1;
  }
  if (d->kind == DX_NUM) {
    if (d->num < lo || d->num > DIM_MAX) {
      sema_err(s, d->loc, "dimension %lld is out of range (%lld to %d)", (long long)d->num, (long long)lo, DIM_MAX);
      return lo - 1;
    }
    return d->num;
  }
  Binding *b = sema_lookup(&env->dims, d->name);
  if (!b) {
    const Binding *h = sema_lookup(&env->hypers, d->name);
    if (h && rule->hypers) { /* `for j in 0..K - 1` in `layer Prop<K = 5>`: K stands for its number */
      if (!(h->real == floor(h->real) && h->real >= (double)lo && h->real <= DIM_MAX)) {
        sema_err(s, d->loc, "'%s' is %g here, and %s expressions take whole numbers from %lld to %d", d->name, h->real,
            rule->noun, (long long)lo, DIM_MAX);
        return lo - 1;
      }
      return (int64_t)h->real;
    }
    if (h) { /* `param gamma: [K + 1]` in `layer Prop<K = 5>`: a number, not a shape's size */
      diag_error(&s->c->diag, d->loc, "'%s' is a hyper-parameter (a number), not a dimension: a dimension is a generic "
                 "without a default or a name in an input's type", d->name);
      diag_note(&s->c->diag, h->loc, "'%s' was declared here", d->name);
      sema_report_frames(s);
      return lo - 1;
    }
    sema_err(s, d->loc, "unknown dimension '%s'", d->name);
    return lo - 1;
  }
  return b->dim;
}

/* Evaluates an integer expression whose every sub-expression must be in rule->lo to DIM_MAX;
 * lo - 1 after reporting an error. The left spine of a chain is a loop, innermost operation
 * first; right operands recurse (see the top of sema.c). */
static int64_t eval_int(Sema *s, Env *env, const DimExpr *d, const IntRule *rule) {
  int64_t lo = rule->lo;
  int len = 0;
  const DimExpr *leaf = d;
  for (; leaf->kind == DX_BIN; leaf = leaf->lhs) len++;
  const DimExpr *small[8], **spine = len <= 8 ? small : arena_alloc(&s->c->arena, sizeof *spine * (size_t)len);
  int k = len;
  for (const DimExpr *x = d; x != leaf; x = x->lhs) spine[--k] = x;
  int64_t a = eval_dim_leaf(s, env, leaf, rule);
  for (int i = 0; i < len && a >= lo; i++) {
    d = spine[i];
    int64_t b = eval_int(s, env, d->rhs, rule);
    if (b < lo) return lo - 1;
    int64_t r = 0;
    switch (d->op) {
    case '+': r = a + b; break;
    case '-': r = a - b; break;
    case '*': r = a * b; break; /* both <= 2^30: no overflow in int64 */
    case '/':
      if (b == 0) { /* only an operand whose parts start at 0 can be 0 */
        sema_err(s, d->loc, "division by zero: %lld / 0", (long long)a);
        return lo - 1;
      }
      if (a % b) {
        sema_err(s, d->loc, "%s %lld / %lld is not a whole number", rule->noun, (long long)a, (long long)b);
        return lo - 1;
      }
      r = a / b;
      break;
    }
    if (r < lo || r > DIM_MAX) {
      sema_err(s, d->loc, "%s expression evaluates to %lld, out of range (%lld to %d)", rule->noun, (long long)r,
          (long long)lo, DIM_MAX);
      return lo - 1;
    }
    a = r;
  }
  return a;
}

/* Evaluates a dimension expression; 0 after reporting an error. */
int64_t sema_eval_dim(Sema *s, Env *env, const DimExpr *d) { return eval_int(s, env, d, &DIM_RULE); }

bool sema_eval_shape(Sema *s, Env *env, const TypeSpec *t, Shape *out) {
  if (t->ndims > GNN_MAX_RANK) {
    sema_err(s, t->loc, "a value has at most %d dims, this type has %d", GNN_MAX_RANK, t->ndims);
    return false;
  }
  out->rank = t->ndims;
  bool ok = true;
  int64_t elems = 1;
  for (int i = 0; i < t->ndims; i++) {
    out->d[i] = sema_eval_dim(s, env, t->dims[i]);
    if (!out->d[i]) ok = false;
    if (!ok) continue; /* still evaluate the other dims, for their errors */
    elems *= out->d[i]; /* <= 2^24 * 2^30: no overflow */
    if (elems > GNN_MAX_ROW_ELEMS) {
      sema_err(s, t->loc, "type has more than %d elements per row", GNN_MAX_ROW_ELEMS);
      return false;
    }
  }
  return ok;
}

/* ---------------------------------------------------------------- constant arguments */

/* A constant argument (slope, probability, exponent): a number literal, a hyper-parameter or a
 * dimension name of the layer, possibly negated. */
bool sema_literal(Sema *s, Env *env, const Node *n, const char *what, double *out) {
  bool neg = false;
  const Node *x = n;
  if (x->kind == N_NEG) neg = true, x = x->lhs;
  Binding *b;
  if (x->kind == N_NUM) {
    *out = x->num;
  } else if (x->kind == N_NAME && !sema_lookup(&env->vals, x->name) && (b = sema_lookup(&env->hypers, x->name))) {
    *out = b->real;
  } else if (x->kind == N_NAME && !sema_lookup(&env->vals, x->name) && (b = sema_lookup(&env->dims, x->name))) {
    *out = (double)b->dim;
  } else {
    sema_err(s, n->loc, "%s must be a number literal or a hyper-parameter", what);
    return false;
  }
  if (neg) *out = -*out;
  return true;
}

/* Where a whole expression is written, for an error about all of it: an index's or an
 * operator's own place is the index or the operator (`x[src]` is at `src`), so this starts at
 * the leftmost operand and, for an index on the same line, underlines through its ']'. */
static Loc expr_span(const Node *n) {
  const Node *first = n;
  while (first->kind == N_INDEX || first->kind == N_BINOP) first = first->lhs;
  Loc l = first->loc;
  if (n->kind == N_INDEX && n->loc.line == l.line && n->loc.col >= l.col) l.len = n->loc.col + n->loc.len + 1 - l.col;
  return l;
}

/* A compile-time integer argument written as an expression, `one_hot(t, K + 1)`,
 * `slice(x, k, k + 2)`: turned into a dimension expression for eval_int, the evaluator of
 * shapes. Its leaves are integer literals, dimension names and hyper-parameters with a whole
 * value (a loop's variable among them), which stand for their number. NULL after reporting an error, with its caret at the part that is not constant. The
 * left spine of a chain is walked with a loop (a chain may be as long as the file). */
static DimExpr *arg_to_dim(Sema *s, Env *env, const Node *n, const char *what, bool index) {
  DimExpr *top = NULL, **slot = &top;
  for (;;) {
    DimExpr *d = arena_alloc(&s->c->arena, sizeof(DimExpr));
    d->loc = n->loc;
    *slot = d;
    if (n->kind == N_BINOP && n->op != '@') {
      d->kind = DX_BIN;
      d->op = n->op;
      if (!(d->rhs = arg_to_dim(s, env, n->rhs, what, index))) return NULL;
      slot = &d->lhs;
      n = n->lhs;
      continue;
    }
    if (n->kind == N_NUM) {
      if (n->num != floor(n->num) || n->num > DIM_MAX) {
        sema_err(s, n->loc, "%s must be a whole number from %d to %d, not %g", what, index ? 0 : 1, DIM_MAX, n->num);
        return NULL;
      }
      d->kind = DX_NUM;
      d->num = (int64_t)n->num;
      return top;
    }
    if (n->kind == N_NAME && !sema_lookup(&env->vals, n->name) && !sema_is_builtin_value(n->name)) {
      Binding *h = !sema_lookup(&env->dims, n->name) ? sema_lookup(&env->hypers, n->name) : NULL;
      if (h && !(h->real == floor(h->real) && h->real >= 0 && h->real <= DIM_MAX)) {
        sema_err(s, n->loc, "'%s' is %g here, and each part of %s must be a whole number from 0 to %d", n->name, h->real, what,
            DIM_MAX);
        return NULL;
      }
      d->kind = h ? DX_NUM : DX_NAME;
      d->num = h ? (int64_t)h->real : 0;
      d->name = n->name;
      return top;
    }
    if (n->kind == N_NEG) {
      sema_err(s, n->loc, "%s must be a whole number from %d to %d: it cannot be negated", what, index ? 0 : 1, DIM_MAX);
      return NULL;
    }
    if (n->kind == N_NAME)
      sema_err(s, n->loc, "%s must be known when the model is compiled, and '%s' is a value, computed when it runs", what, n->name);
    else
      sema_err(s, expr_span(n), "%s must be known when the model is compiled (an integer literal, a hyper-parameter, a dimension "
          "name or + - * / of them), not a value computed when it runs", what);
    return NULL;
  }
}

/* An index argument of slice: a whole number from 0 to DIM_MAX, written as a literal, a
 * hyper-parameter (a loop's variable among them), a dimension name or + - * / of them
 * (`slice(x, k + 1, k + 2)`, every part from 0 to DIM_MAX as in a dimension). -1 after an error. */
int64_t sema_index_arg(Sema *s, Env *env, const Node *n, const char *what) {
  double x = -1;
  Binding *b;
  if (n->kind == N_NUM) {
    x = n->num;
  } else if (n->kind == N_NAME && !sema_lookup(&env->vals, n->name) && (b = sema_lookup(&env->hypers, n->name))) {
    x = b->real;
  } else if (n->kind == N_NAME && !sema_lookup(&env->vals, n->name) && (b = sema_lookup(&env->dims, n->name))) {
    return b->dim;
  } else {
    DimExpr *d = arg_to_dim(s, env, n, what, true);
    return d ? eval_int(s, env, d, &INDEX_RULE) : -1;
  }
  if (x == floor(x) && x >= 0 && x <= DIM_MAX) return (int64_t)x;
  sema_err(s, n->loc, "%s must be a whole number from 0 to %d, not %g", what, DIM_MAX, x);
  return -1;
}

/* An integer argument of one_hot or repeat: a literal, a dimension name, a hyper-parameter with a
 * whole value or + - * / of them (`one_hot(t, K + 1)`, each part from 0 to DIM_MAX, so that a
 * loop's variable may be one, the whole from 1). 0 after an error. The literal is a
 * double: range-checked before it is converted (a conversion out of range is undefined). */
int64_t sema_dim_arg(Sema *s, Env *env, const Node *n, const char *what) {
  if (n->kind == N_NUM) {
    double x = n->num;
    if (x != floor(x)) {
      sema_err(s, n->loc, "%s must be a positive integer", what);
      return 0;
    }
    if (!(x >= 1 && x <= DIM_MAX)) {
      if (x < 1e18)
        sema_err(s, n->loc, "%s %lld is out of range (1 to %d)", what, (long long)x, DIM_MAX);
      else
        sema_err(s, n->loc, "%s %g is out of range (1 to %d)", what, x, DIM_MAX);
      return 0;
    }
    return (int64_t)x;
  }
  if (n->kind == N_NAME) {
    Binding *b = sema_lookup(&env->dims, n->name);
    if (b) return b->dim;
  }
  DimExpr *d = arg_to_dim(s, env, n, what, false);
  int64_t v = d ? eval_int(s, env, d, &COUNT_RULE) : -1;
  if (v == 0) sema_err(s, n->loc, "%s is 0 here, out of range (1 to %d)", what, DIM_MAX);
  return v > 0 ? v : 0;
}

/* A loop bound: a whole number from 0 to LOOP_MAX, written as an integer literal, a
 * hyper-parameter with a whole value (an enclosing loop's variable among them), a dimension name
 * or + - * / of them (`1..K - 1`, each part from 0 to DIM_MAX). -1 after an error. */
enum { LOOP_MAX = 1 << 20 };
int64_t sema_loop_bound(Sema *s, Env *env, const DimExpr *d) {
  Binding *b = NULL;
  if (d->kind == DX_NUM || (d->kind == DX_NAME && (b = sema_lookup(&env->hypers, d->name)))) {
    double x = d->kind == DX_NUM ? (d->is_real ? d->real : (double)d->num) : b->real;
    if (x != floor(x) || x < 0 || x > LOOP_MAX) {
      if (x == floor(x) && fabs(x) < 1e18) /* a whole number in full: %g would print 1048577 as 1.04858e+06 */
        sema_err(s, d->loc, "a loop bound must be a whole number from 0 to %d, not %lld", LOOP_MAX, (long long)x);
      else
        sema_err(s, d->loc, "a loop bound must be a whole number from 0 to %d, not %g", LOOP_MAX, x);
      return -1;
    }
    return (int64_t)x;
  }
  int64_t v = eval_int(s, env, d, &LOOP_RULE);
  if (v > LOOP_MAX) {
    sema_err(s, d->loc, "a loop bound must be a whole number from 0 to %d, not %lld", LOOP_MAX, (long long)v);
    return -1;
  }
  return v;
}

/* A part of a hyper-parameter's value at a call: a number literal, a name of the caller's (a
 * hyper-parameter or a dimension of its own) or a negated part. false after an error. */
static bool eval_real(Sema *s, Env *caller, const DimExpr *a, const char *name, double *out);
static bool eval_real_leaf(Sema *s, Env *caller, const DimExpr *a, const char *name, double *out) {
  Binding *b;
  switch (a->kind) {
  case DX_NUM: *out = a->is_real ? a->real : (double)a->num; return true;
  case DX_NEG: /* nesting: the lexer's bound */
    if (!eval_real(s, caller, a->lhs, name, out)) return false;
    *out = -*out;
    return true;
  case DX_NAME:
    if ((b = sema_lookup(&caller->hypers, a->name))) {
      *out = b->real;
      return true;
    }
    if ((b = sema_lookup(&caller->dims, a->name))) {
      *out = (double)b->dim;
      return true;
    }
    sema_err(s, a->loc, "unknown hyper-parameter or dimension '%s'", a->name);
    return false;
  case DX_BIN: break;
  }
  return false; /* DX_BIN: eval_real's */
}

/* A hyper-parameter's value at a call: real arithmetic, + - * / and negation, on number literals
 * and the caller's hyper-parameters and dimensions (`L<alpha = 1 - beta>`, `L<l = k + 1>`),
 * evaluated in double as the literals are; every step must stay within float32's range, which
 * the compiled model computes in. false after an error. The left spine of a chain is a loop, as
 * in eval_int. */
static bool eval_real(Sema *s, Env *caller, const DimExpr *a, const char *name, double *out) {
  int len = 0;
  const DimExpr *leaf = a;
  for (; leaf->kind == DX_BIN; leaf = leaf->lhs) len++;
  const DimExpr *small[8], **spine = len <= 8 ? small : arena_alloc(&s->c->arena, sizeof *spine * (size_t)len);
  int k = len;
  for (const DimExpr *x = a; x != leaf; x = x->lhs) spine[--k] = x;
  double x;
  if (!eval_real_leaf(s, caller, leaf, name, &x)) return false;
  for (int i = 0; i < len; i++) {
    const DimExpr *d = spine[i];
    double y;
    if (!eval_real(s, caller, d->rhs, name, &y)) return false;
    if (d->op == '/' && y == 0) {
      sema_err(s, d->loc, "division by zero in the value of hyper-parameter '%s': %g / 0", name, x);
      return false;
    }
    double r = d->op == '+' ? x + y : d->op == '-' ? x - y : d->op == '*' ? x * y : x / y;
    if (!(fabs(r) <= FLT_MAX)) {
      sema_err(s, d->loc, "the value of hyper-parameter '%s' evaluates to %g, beyond float32's largest (%.8g)", name, r,
          (double)FLT_MAX);
      return false;
    }
    x = r;
  }
  *out = x;
  return true;
}

/* The value of hyper-parameter `name` given at a call, in the caller's scope (eval_real). */
bool sema_hyper_arg(Sema *s, Env *caller, const DimExpr *a, const char *name, double *out) {
  return eval_real(s, caller, a, name, out);
}

/* ---------------------------------------------------------------- builtins */

/* Names the language defines as values: the degrees and the vertex count of each graph. */
bool sema_is_builtin_value(const char *name) {
  return strcmp(name, "in_deg") == 0 || strcmp(name, "out_deg") == 0 || strcmp(name, "graph_size") == 0;
}

static const Builtin builtins[] = {
    {"relu", B_UNARY, FN_RELU, 1, 1, "relu(x)"},
    {"tanh", B_UNARY, FN_TANH, 1, 1, "tanh(x)"},
    {"sigmoid", B_UNARY, FN_SIGMOID, 1, 1, "sigmoid(x)"},
    {"exp", B_UNARY, FN_EXP, 1, 1, "exp(x)"},
    {"log", B_UNARY, FN_LOG, 1, 1, "log(x)"},
    {"sqrt", B_UNARY, FN_SQRT, 1, 1, "sqrt(x)"},
    {"rsqrt", B_UNARY, FN_RSQRT, 1, 1, "rsqrt(x)"},
    {"abs", B_UNARY, FN_ABS, 1, 1, "abs(x)"},
    {"flatten", B_UNARY, FN_FLATTEN, 1, 1, "flatten(x)"},
    {"mean_heads", B_UNARY, FN_MEAN_HEADS, 1, 1, "mean_heads(x)"},
    {"sum_heads", B_UNARY, FN_SUM_HEADS, 1, 1, "sum_heads(x)"},
    {"leaky_relu", B_LEAKY, FN_LEAKY_RELU, 1, 2, "leaky_relu(x[, slope])"},
    {"elu", B_ELU, FN_ELU, 1, 2, "elu(x[, alpha])"},
    {"dropout", B_DROPOUT, FN_DROPOUT, 2, 2, "dropout(x, p)"},
    {"concat", B_CONCAT, FN_CONCAT, 2, -1, "concat(a, b, ...)"},
    {"dot", B_BINARY, FN_DOT, 2, 2, "dot(a, b)"},
    {"repeat", B_REPEAT, FN_REPEAT, 2, 2, "repeat(x, n)"},
    {"one_hot", B_ONE_HOT, FN_ONE_HOT, 2, 2, "one_hot(t, n)"},
    {"sum", B_REDUCE, FN_SUM, 1, 1, "sum(e)"},
    {"mean", B_REDUCE, FN_MEAN, 1, 1, "mean(e)"},
    {"max", B_REDUCE, FN_MAX, 1, 2, "max(e) or max(a, b)"},
    {"min", B_REDUCE, FN_MIN, 1, 2, "min(e) or min(a, b)"},
    {"sum_out", B_REDUCE_OUT, FN_SUM, 1, 1, "sum_out(e)"},
    {"sum_vertices", B_READOUT, FN_SUM, 1, 1, "sum_vertices(x)"},
    {"mean_vertices", B_READOUT, FN_MEAN, 1, 1, "mean_vertices(x)"},
    {"max_vertices", B_READOUT, FN_MAX, 1, 1, "max_vertices(x)"},
    {"min_vertices", B_READOUT, FN_MIN, 1, 1, "min_vertices(x)"},
    {"softmax_vertices", B_SOFTMAX_VERTICES, FN_NONE, 1, 1, "softmax_vertices(x)"},
    {"mean_out", B_REDUCE_OUT, FN_MEAN, 1, 1, "mean_out(e)"},
    {"max_out", B_REDUCE_OUT, FN_MAX, 1, 1, "max_out(e)"},
    {"min_out", B_REDUCE_OUT, FN_MIN, 1, 1, "min_out(e)"},
    {"gt", B_BINARY, FN_GT, 2, 2, "gt(a, b)"},
    {"ge", B_BINARY, FN_GE, 2, 2, "ge(a, b)"},
    {"lt", B_BINARY, FN_LT, 2, 2, "lt(a, b)"},
    {"le", B_BINARY, FN_LE, 2, 2, "le(a, b)"},
    {"eq", B_BINARY, FN_EQ, 2, 2, "eq(a, b)"},
    {"ne", B_BINARY, FN_NE, 2, 2, "ne(a, b)"},
    {"where", B_WHERE, FN_WHERE, 3, 3, "where(c, a, b)"},
    {"pow", B_POW, FN_POW, 2, 2, "pow(x, p)"},
    {"slice", B_SLICE, FN_SLICE, 3, 3, "slice(x, from, to)"},
    {"transpose", B_UNARY, FN_TRANSPOSE, 1, 1, "transpose(x)"},
    {"log_softmax", B_UNARY, FN_LOG_SOFTMAX, 1, 1, "log_softmax(x)"},
    {"softmax", B_SOFTMAX_LAST, FN_LOG_SOFTMAX, 1, 1, "softmax(x)"},
    {"layer_norm", B_LAYER_NORM, FN_NONE, 1, 2, "layer_norm(x[, eps])"},
    {"batch_norm", B_BATCH_NORM, FN_NONE, 1, 2, "batch_norm(x[, eps])"},
    {"edge_softmax", B_SOFTMAX, FN_EDGE_SOFTMAX, 1, 1, "edge_softmax(e)"},
};

const Builtin *sema_find_builtin(const char *name) {
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
    if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
  return NULL;
}
