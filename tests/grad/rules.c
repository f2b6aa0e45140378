/* rules.c -- autodiff rules that no source program reaches today, checked by finite differences.
 *
 *   build/grad_rules --list              the case names
 *   build/grad_rules CASE GRAPH          build CASE's forward module, differentiate it, check it
 *
 * sema and canonicalize never put slice, pad, reshape, sum_last, linear_t, sign,
 * inv_or_zero, the *_grad functions or a gather over out-edges into a forward module, but a
 * pass before autodiff may (reorg splits a . [h_u || h_v] into a_l . h_u + a_r . h_v with
 * slices of a), so their rules must be right before anything produces them. Each case starts
 * from a compiled one-input program (x: vertex[3], no passes after canonicalize), appends
 * parameters and values by hand, makes the last one the output, and then runs what the
 * pipeline would: pass_autodiff and the verifier; then gradcheck_module (gradcheck.c) on
 * GRAPH with uniform parameters, which prints its report and gives the exit status.
 * Built with ASan and UBSan (`make test` builds it), run by tests/suites/grad.sh.
 */
#include "gradcheck.h"
#include "pipeline.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static Module *M;

static Value *param(const char *name, int rank, ...) {
  Shape s = {rank, {0}};
  va_list ap;
  va_start(ap, rank);
  for (int i = 0; i < rank; i++) s.d[i] = va_arg(ap, int);
  va_end(ap);
  return ir_leaf(M, OP_PARAM, FN_NONE, DOM_PARAM, &s, name, 0, (Loc){0, 0, 0});
}

static Value *konst(double x) {
  Shape s = {0, {0}};
  return ir_leaf(M, OP_CONST, FN_NONE, DOM_GLOBAL, &s, NULL, x, (Loc){0, 0, 0});
}

/* Any operator: proto fields, the domain and shape inferred (reshape: to `to`). */
static Value *make(OpKind op, FnKind fn, Value *a, Value *b, double f, int64_t i1, int64_t i2, const Shape *to) {
  Value p;
  memset(&p, 0, sizeof p);
  p.op = op;
  p.fn = fn;
  p.msg = FN_NONE;
  p.args[0] = a;
  p.args[1] = b;
  p.nargs = b ? 2 : 1;
  p.fattr = f;
  p.iattr = i1;
  p.iattr2 = i2;
  if (to) p.shape = *to;
  const char *why = NULL;
  Value *v = ir_make_like(M, &p, &why);
  if (!v) {
    fprintf(stderr, "rules: cannot build %s.%s: %s\n", op_info[op].name, fn_info[fn].name, why);
    exit(2);
  }
  return v;
}

static Value *ap(FnKind fn, Value *a, Value *b) {
  Domain d = a->dom == DOM_EDGE || (b && b->dom == DOM_EDGE) ? DOM_EDGE
             : a->dom == DOM_VERTEX || (b && b->dom == DOM_VERTEX) ? DOM_VERTEX : DOM_GLOBAL;
  return make(apply_op_for(d), fn, a, b, 0, 0, 0, NULL);
}
static Value *ap_i(FnKind fn, Value *a, int64_t i1, int64_t i2) {
  Domain d = a->dom == DOM_EDGE ? DOM_EDGE : a->dom == DOM_VERTEX ? DOM_VERTEX : DOM_GLOBAL;
  return make(apply_op_for(d), fn, a, NULL, 0, i1, i2, NULL);
}
static Value *reshape(Value *a, int rank, int64_t d0, int64_t d1) {
  Shape s = {rank, {d0, d1}};
  return make(apply_op_for(a->dom == DOM_PARAM ? DOM_GLOBAL : a->dom), FN_RESHAPE, a, NULL, 0, 0, 0, &s);
}

/* h = tanh(x W): a vertex[4] value every case starts from. */
static Value *h_of(Value *x) { return ap(FN_TANH, ap(FN_LINEAR, x, param("W", 2, 3, 4)), NULL); }

/* ---------------------------------------------------------------- cases: the output value */

static Value *c_slice(Value *x) { /* slice of a vertex value and of a parameter (apply_global) */
  Value *h = h_of(x), *a = param("a", 1, 6);
  return ap(FN_ADD, ap(FN_MUL, ap_i(FN_SLICE, h, 1, 3), ap_i(FN_SLICE, h, 0, 2)), ap_i(FN_SLICE, a, 2, 4));
}
static Value *c_pad(Value *x) {
  Value *h = h_of(x), *a = param("a", 1, 6);
  return ap(FN_MUL, ap(FN_TANH, ap_i(FN_PAD, h, 1, 6), NULL), ap(FN_ADD, ap_i(FN_PAD, ap_i(FN_SLICE, a, 0, 2), 3, 6), konst(1)));
}
static Value *c_reshape(Value *x) {
  Value *h = h_of(x), *a = param("a", 1, 6);
  return ap(FN_ADD, ap(FN_TANH, reshape(h, 2, 2, 2), NULL), reshape(ap_i(FN_SLICE, a, 0, 4), 2, 2, 2));
}
static Value *c_sum_last(Value *x) {
  Value *h = h_of(x), *a = param("a", 1, 6);
  return ap(FN_MUL, ap(FN_TANH, ap(FN_SUM_LAST, reshape(h, 2, 2, 2), NULL), NULL), ap(FN_SUM_LAST, reshape(a, 2, 2, 3), NULL));
}
static Value *c_linear_t(Value *x) { /* dy W^T: both operands have gradients */
  Value *h = h_of(x), *K = param("K", 2, 2, 4), *a = param("a", 1, 6);
  return ap(FN_ADD, ap(FN_TANH, ap(FN_LINEAR_T, h, K), NULL), ap(FN_LINEAR_T, ap_i(FN_SLICE, a, 2, 6), K));
}
static Value *c_sign(Value *x) { /* sign has no gradient; h * sign(h) = |h| */
  Value *h = h_of(x);
  return ap(FN_MUL, h, ap(FN_SIGN, h, NULL));
}
static Value *c_inv_or_zero(Value *x) { /* away from 0: h + 2 is in (1, 3) */
  return ap(FN_INV_OR_ZERO, ap(FN_ADD, h_of(x), konst(2)), NULL);
}
static Value *c_grad_fns(Value *x) { /* relu_grad, leaky_relu_grad, elu_grad(x, dy) in both operands */
  Value *h = h_of(x), *g = ap(FN_TANH, ap(FN_LINEAR, x, param("V", 2, 3, 4)), NULL);
  Value *r = ap(FN_RELU_GRAD, h, g);
  Value *l = make(OP_APPLY_VERTEX, FN_LEAKY_RELU_GRAD, h, g, 0.2, 0, 0, NULL);
  Value *e = make(OP_APPLY_VERTEX, FN_ELU_GRAD, h, g, 1.5, 0, 0, NULL);
  return ap(FN_ADD, ap(FN_ADD, r, l), ap(FN_MUL, e, e));
}
static Value *c_gather_by_src(Value *x) { /* sum and mean over out-edges: copy_u of dy (/ out-degree) */
  Value *h = h_of(x);
  Value *e = make(OP_SCATTER, FN_U_MUL_V, h, h, 0, 0, 0, NULL);
  Value *s = make(OP_GATHER, FN_SUM, e, NULL, 0, GATHER_BY_SRC, 0, NULL);
  Value *mn = make(OP_GATHER, FN_MEAN, ap(FN_TANH, e, NULL), NULL, 0, GATHER_BY_SRC, 0, NULL);
  return ap(FN_ADD, s, mn);
}

static const struct {
  const char *name;
  Value *(*build)(Value *x);
} cases[] = {
    {"slice", c_slice},       {"pad", c_pad},     {"reshape", c_reshape},         {"sum_last", c_sum_last},
    {"linear_t", c_linear_t}, {"sign", c_sign},   {"inv_or_zero", c_inv_or_zero}, {"grad_fns", c_grad_fns},
    {"gather_by_src", c_gather_by_src},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < NCASES; i++) puts(cases[i].name);
    return 0;
  }
  int k = -1;
  for (int i = 0; argc == 3 && i < NCASES; i++)
    if (strcmp(argv[1], cases[i].name) == 0) k = i;
  if (k < 0) {
    fprintf(stderr, "usage: grad_rules --list | grad_rules CASE GRAPH\n");
    return 2;
  }
  static const char src[] = "model R(x: vertex[3]) -> vertex[3] {\n  return x\n}\n";
  GnnCtx c;
  gnn_ctx_init(&c, "rules.gnn", src, sizeof src - 1, stderr);
  PipelineOpts po = {.verify_each = true, .out = stderr, .disabled = {"autodiff", "compose"}, .ndisabled = 2};
  if (!gnn_parse(&c) || !(M = gnn_compile(&c, &po))) return 2;
  Value *x = module_output(M);
  M->outs[0].val = cases[k].build(x);
  module_count_uses(M);
  int rc = 1;
  if (ir_verify(M, stderr) != 0) {
    fprintf(stderr, "rules: the hand-built forward module is invalid\n");
  } else {
    pass_autodiff(&c, M);
    if (ir_verify(M, stderr) != 0) {
      fprintf(stderr, "rules: the module is invalid after autodiff:\n");
      ir_print(stderr, M);
    } else {
      Graph g = {0};
      ParamSet ps = {0};
      char err[512] = "";
      if (!graph_load(&g, argv[2], err, sizeof err) || !params_init(&ps, M, "uniform", 1)) {
        fprintf(stderr, "%s\n", err);
      } else {
        GradcheckOpts o = {.seed = 1, .dropout_seed = 1, .tol = 1e-6, .eps = 1e-3, .graph_name = argv[2]};
        rc = gradcheck_module(M, &g, &ps, &o);
        if (rc != 0) ir_print(stdout, M);
      }
      params_free(&ps);
      graph_free(&g);
    }
  }
  gnn_ctx_free(&c);
  return rc;
}
