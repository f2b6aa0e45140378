/* gradcheck.c -- `gnnc gradcheck`: the autodiff pass checked against finite differences.
 *
 *   gnnc gradcheck [options] model.gnn --graph G
 *
 * The model is compiled with the autodiff pass (the joint forward+backward module) and
 * evaluated once in the float64 interpreter, in training mode (dropout active, with a fixed
 * --dropout-seed), with the seed input grad.out set to a fixed random vector r (uniform in
 * [-1, 1), from --seed). Its outputs grad.<param> are then the gradients of the scalar
 *
 *     L(theta) = sum over rows and elements of r * out(theta)
 *
 * which is what a finite difference of forward-only evaluations (same inputs, same dropout
 * masks) measures. For every entry j checked (all of them, or --samples N drawn at random from
 * a parameter with more than N entries):
 *
 *     fd  = (L(t - 2h) - 8 L(t - h) + 8 L(t + h) - L(t + 2h)) / 12h     (t = theta_j)
 *     err = |grad - fd| / max(|grad|, |fd|, floor)
 *
 * The stencil is the fourth-order central difference: its truncation error is O(h^4), so h
 * can be large enough (default 1e-3) that rounding in L, of order eps_mach * |L| / h, stays
 * far below the tolerance. A steep function's fifth derivative can still make it err beyond the
 * tolerance at that step: an entry beyond it is differenced again at h/10, where truncation is
 * 10^4 times smaller and a wrong gradient as wrong, and an error 10 times smaller there counts
 * (a failure that shrank so suggests a smaller --eps). The floor (default 1e-6 * the largest
 * |grad| of the model, see --floor) keeps entries whose gradient is (nearly) zero from being
 * compared relative to nothing: they are compared in absolute terms at a millionth of the
 * gradient's scale.
 *
 * Kinks. relu, leaky_relu, elu (in its second derivative), abs, sign and inv_or_zero change
 * branch at 0, and max/min switch edges at ties: a difference whose stencil straddles such a
 * point measures an average of the one-sided slopes, not the derivative autodiff computes.
 * Every evaluation therefore records which branch each such element took (the sign of the
 * operand; the arg indices of gather.argmax/argmin); if a point of the stencil takes a
 * different branch than theta itself, h is divided by 10 (up to 4 times); an entry that still
 * straddles a kink is reported and fails the check. Exact ties that persist (duplicate edges
 * carry identical messages) keep the same first edge and are fine. Ties themselves are tested
 * against hand-computed gradients (tests/grad/ties.py, with --no-fd).
 *
 * The exit status is 0 when every entry is within --tol, 1 otherwise or on an error.
 */
#include "gradcheck.h"
#include "pipeline.h"
#include "build.h"
#include "gnnrt_omp.h"
#include "gnnrt_path.h"
#include "cli_value.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The command line beyond the check's own options (GradcheckOpts, gradcheck.h). */
typedef struct {
  const char *input, *graph, *features, *params, *init, *model;
  int64_t num_vertices;
} GcCli;

static void gc_usage(FILE *out) {
  fputs("usage: gnnc gradcheck [options] FILE.gnn --graph PATH\n"
        "\n"
        "Compiles FILE.gnn with the autodiff pass, evaluates the joint forward+backward module in\n"
        "float64, and compares every grad.<param> output with finite differences of\n"
        "L = sum(grad.out * out), grad.out a fixed random vector.\n"
        "\n"
        "  --graph PATH            a dataset folder or an edge list (as gnnc run)\n"
        "  --features FILE, --num-vertices N, --params FILE   as gnnc run\n"
        "  --init=uniform|glorot   parameter initialisation (default uniform: no zero biases,\n"
        "                          which would put ReLUs exactly at their kink)\n"
        "  --seed N                seed for parameters, generated inputs and grad.out (default 1)\n"
        "  --dropout-seed N        seed of the dropout masks (default 1)\n"
        "  --inference             dropout off (default: training mode, dropout on)\n"
        "  --samples N             check N random entries of each parameter with more (default: all)\n"
        "  --tol X                 largest relative error accepted (default 1e-6)\n"
        "  --eps H                 finite-difference step (default 1e-3, times max(1, |theta|)); an\n"
        "                          entry beyond --tol is retried at a tenth of it (truncation error)\n"
        "  --floor F               denominator floor of the relative error (default 1e-6 x the\n"
        "                          largest |grad| over every parameter)\n"
        "  --grad-out FILE         read grad.out from a tensor file instead of drawing it\n"
        "  --save-grads FILE       write the gradients (tensor text format, one per parameter)\n"
        "  --no-fd                 only evaluate the gradients (with --save-grads)\n"
        "  --input-grads=all|X,..  also check d L / d input for these inputs (outputs grad_input.X)\n"
        "  --corrupt PARAM         (testing the checker) add 1e-4 relative to PARAM's first checked\n"
        "                          gradient entry before comparing: the check must then fail\n"
        "  -v                      print every entry checked\n"
        "  --model=NAME, -O0, -fno-PASS, --no-verify   as for compiling\n",
        out);
}

/* ---------------------------------------------------------------- kinks */

/* The non-smooth points a finite difference must not straddle: the branch of every element
 * of every operand of a kinked function, and every arg index of gather.argmax/argmin. */
static bool is_kinked(const Value *v) {
  if (v->bwd) return false;
  /* max/min over out-edges and over a graph's vertices have no arg index value: the signature
   * takes the first element attaining each extremum (extremum_site) */
  if ((v->op == OP_GATHER && v->iattr == GATHER_BY_SRC) || v->op == OP_READOUT) return v->fn == FN_MAX || v->fn == FN_MIN;
  if (v->op == OP_GATHER) return v->fn == FN_ARGMAX || v->fn == FN_ARGMIN;
  if (v->op != OP_APPLY_EDGE && v->op != OP_APPLY_VERTEX && v->op != OP_APPLY_GLOBAL && v->op != OP_APPLY_GRAPH) return false;
  switch (v->fn) {
  case FN_RELU: case FN_LEAKY_RELU: case FN_ELU: case FN_ABS: case FN_SIGN: case FN_INV_OR_ZERO:
  case FN_RELU_GRAD: case FN_LEAKY_RELU_GRAD: case FN_ELU_GRAD:
  case FN_MAXIMUM: case FN_MINIMUM: case FN_GT: case FN_GE: case FN_LT: case FN_LE: case FN_EQ: case FN_NE:
  case FN_WHERE: case FN_ONE_HOT:
    return true;
  default:
    return false;
  }
}

typedef struct {
  int64_t *branch; /* per element of every kinked site: the operand's sign, or the arg index */
  int64_t n;
} Signature;

/* For max/min over out-edges (row u: the edges out_eid[out_ptr[u] ..]) or over the vertices of
 * a graph (row i: graph_ptr[i] ..), the first member attaining element j's extremum (-1: none). */
static int64_t extremum_site(const Value *v, const Graph *g, const double *x, int64_t row, int64_t j, int64_t k) {
  bool readout = v->op == OP_READOUT;
  int64_t lo = readout ? g->graph_ptr[row] : g->out_ptr[row], hi = readout ? g->graph_ptr[row + 1] : g->out_ptr[row + 1];
  int64_t best = -1;
  double bv = 0;
  for (int64_t p = lo; p < hi; p++) {
    int64_t at = readout ? p : g->out_eid[p];
    double e = x[at * k + j];
    if (best < 0 || (v->fn == FN_MAX ? e > bv : e < bv)) best = at, bv = e;
  }
  return best;
}

static void signature(const Module *m, const Graph *g, const Interp *in, Signature *s) {
  int64_t n = 0;
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    if (is_kinked(v)) n += value_rows(v, g) * shape_elems(&v->shape);
  }
  s->branch = calloc((size_t)(n ? n : 1), sizeof(int64_t));
  s->n = 0;
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    if (!is_kinked(v)) continue;
    int64_t rows = value_rows(v, g), k = shape_elems(&v->shape);
    if ((v->op == OP_GATHER && v->iattr == GATHER_BY_SRC) || v->op == OP_READOUT) {
      const double *x = in->vals[v->args[0]->id];
      for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < k; j++) s->branch[s->n++] = extremum_site(v, g, x, r, j, k);
      continue;
    }
    if (v->op == OP_GATHER) { /* the arg indices themselves */
      const double *a = in->vals[v->id];
      for (int64_t j = 0; j < rows * k; j++) s->branch[s->n++] = (int64_t)a[j];
      continue;
    }
    if (v->nargs == 2 && v->fn != FN_RELU_GRAD && v->fn != FN_LEAKY_RELU_GRAD && v->fn != FN_ELU_GRAD) {
      /* max/min and the comparisons: the sign of a - b, each prefix-broadcast */
      const Value *x = v->args[0], *y = v->args[1];
      const double *a = in->vals[x->id], *b = in->vals[y->id];
      int64_t na = shape_elems(&x->shape), nb = shape_elems(&y->shape);
      int64_t xs = value_rows(x, g) == rows ? na : 0, ys = value_rows(y, g) == rows ? nb : 0;
      for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < k; j++) {
          double e = a[r * xs + j / (k / na)] - b[r * ys + j / (k / nb)];
          s->branch[s->n++] = e > 0 ? 1 : e < 0 ? -1 : 0;
        }
      continue;
    }
    /* the operand's elements (where: the condition); a param/global operand has one row, used by every row */
    const Value *x = v->args[0];
    const double *a = in->vals[x->id];
    int64_t xr = value_rows(x, g), nx = shape_elems(&x->shape);
    for (int64_t r = 0; r < rows; r++)
      for (int64_t j = 0; j < k; j++) {
        double e = a[(xr == rows ? r : 0) * nx + j / (k / nx)];
        s->branch[s->n++] = e > 0 ? 1 : e < 0 ? -1 : 0;
      }
  }
}

/* ---------------------------------------------------------------- evaluation */

typedef struct {
  const Module *m;
  const Graph *g;
  ParamSet *ps;
  const GradcheckOpts *o;
  Tensor seed_in; /* grad.out */
  bool *keep;     /* values the kink signature reads */
  bool *keep_fwd; /* every forward value: the joint evaluation keeps them for reuse */
  double **given; /* per value: the joint evaluation's array where the perturbed parameter does not reach */
  Signature base;
  int64_t evals;
} Gc;

/* The joint module (forward_only false), or its forward reusing gc->given. */
static bool run_interp(Gc *gc, Interp *in, bool forward_only, char *err, size_t errlen) {
  *in = (Interp){.m = gc->m, .g = gc->g, .ps = gc->ps, .seed = gc->o->seed, .training = !gc->o->inference,
                 .dropout_seed = gc->o->dropout_seed, .inputs = &gc->seed_in, .ninputs = 1,
                 .forward_only = forward_only, .keep = forward_only ? gc->keep : gc->keep_fwd,
                 .given = forward_only ? gc->given : NULL};
  gc->evals++;
  return interp_run(in, err, errlen);
}

/* L = sum(grad.out * out), accumulated in long double. */
static long double loss(const Gc *gc, const Interp *in) {
  const Value *out = module_output(gc->m);
  int64_t n = value_rows(out, gc->g) * shape_elems(&out->shape);
  const double *y = in->vals[out->id];
  long double s = 0;
  for (int64_t i = 0; i < n; i++) s += (long double)gc->seed_in.data[i] * y[i];
  return s;
}

/* L at theta_j + d, and whether every kinked element took theta's branch. */
static bool loss_at(Gc *gc, double *theta, double t0, double d, long double *L, bool *smooth, char *err, size_t errlen) {
  Interp in;
  *theta = t0 + d;
  bool ok = run_interp(gc, &in, true, err, errlen);
  *theta = t0;
  if (ok) {
    *L = loss(gc, &in);
    Signature s = {0};
    signature(gc->m, gc->g, &in, &s);
    *smooth = s.n == gc->base.n && memcmp(s.branch, gc->base.branch, sizeof(int64_t) * (size_t)s.n) == 0;
    free(s.branch);
  }
  interp_free(&in);
  return ok;
}

/* The fourth-order central difference of L in theta_j at step h; *smooth: no point of the
 * stencil took another branch of a kink than theta. */
static bool fd_at(Gc *gc, double *theta, double t0, double h, double *fd, bool *smooth, char *err, size_t errlen) {
  long double Lp1, Lm1, Lp2, Lm2;
  bool s1, s2, s3, s4;
  if (!loss_at(gc, theta, t0, h, &Lp1, &s1, err, errlen) || !loss_at(gc, theta, t0, -h, &Lm1, &s2, err, errlen) ||
      !loss_at(gc, theta, t0, 2 * h, &Lp2, &s3, err, errlen) || !loss_at(gc, theta, t0, -2 * h, &Lm2, &s4, err, errlen))
    return false;
  *smooth = s1 && s2 && s3 && s4;
  *fd = (double)((8 * (Lp1 - Lm1) - (Lp2 - Lm2)) / (12 * (long double)h));
  return true;
}

static bool write_tensor(FILE *f, const char *name, int64_t rows, const Shape *s, const double *d) {
  fprintf(f, "tensor %s %lld %d", name, (long long)rows, s->rank);
  for (int k = 0; k < s->rank; k++) fprintf(f, " %lld", (long long)s->d[k]);
  fputc('\n', f);
  int64_t n = shape_elems(s);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < n; k++) fprintf(f, "%.17g%c", d[r * n + k], k + 1 == n ? '\n' : ' ');
  return !ferror(f);
}

/* grad.out from a tensor file: "tensor grad.out ROWS RANK dims..." and the numbers. */
static bool read_seed(const char *path, Tensor *t, int64_t rows, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: error: cannot open: %s", path, strerror(errno));
    return false;
  }
  char name[256];
  long long r;
  int rank;
  bool ok = fscanf(f, " tensor %255s %lld %d", name, &r, &rank) == 3 && strcmp(name, "grad.out") == 0 && r == rows &&
            rank == t->shape.rank;
  for (int k = 0; ok && k < rank; k++) {
    long long d;
    ok = fscanf(f, "%lld", &d) == 1 && d == t->shape.d[k];
  }
  int64_t n = rows * shape_elems(&t->shape);
  for (int64_t i = 0; ok && i < n; i++) ok = fscanf(f, "%lf", &t->data[i]) == 1 && isfinite(t->data[i]);
  fclose(f);
  if (!ok) snprintf(err, errlen, "%s: error: want 'tensor grad.out %lld %d ...' with the output's shape and %lld finite numbers",
                    path, (long long)rows, t->shape.rank, (long long)n);
  return ok;
}

/* ---------------------------------------------------------------- the check */

typedef struct {
  int64_t checked, kinked, worst;
  double max_err, worst_g, worst_fd;
  int64_t refined;   /* beyond tol at the step, within it at a tenth: truncation error, passed */
  int64_t truncated; /* beyond tol at both, but 10x smaller at a tenth: truncation error, failed */
} ParamReport;

static int check(Gc *gc) {
  const Module *m = gc->m;
  const GradcheckOpts *o = gc->o;
  char err[512] = "";
  int rc = 1;
  Interp joint = {0};
  double **grads = calloc((size_t)m->nouts, sizeof(double *));
  FILE *sg = NULL;

  /* 1. The joint module: out and every gradient, and theta's branches. */
  if (!run_interp(gc, &joint, false, err, sizeof err)) goto fail;
  long double L0 = loss(gc, &joint);
  signature(m, gc->g, &joint, &gc->base);
  double gmax = 0;
  for (int i = 1; i < m->nouts; i++) {
    const Value *v = m->outs[i].val;
    int64_t n = value_rows(v, gc->g) * shape_elems(&v->shape); /* a parameter's: one row; an input's: its rows */
    grads[i] = malloc(sizeof(double) * (size_t)(n ? n : 1));
    memcpy(grads[i], joint.vals[v->id], sizeof(double) * (size_t)n);
    for (int64_t k = 0; k < n; k++) gmax = fmax(gmax, fabs(grads[i][k]));
  }
  if (o->save_grads) {
    if (!(sg = fopen(o->save_grads, "w"))) {
      snprintf(err, sizeof err, "%s: error: cannot write: %s", o->save_grads, strerror(errno));
      goto fail;
    }
    bool ok = true;
    for (int i = 1; i < m->nouts; i++)
      ok &= write_tensor(sg, m->outs[i].name, value_rows(m->outs[i].val, gc->g), &m->outs[i].val->shape, grads[i]);
    ok &= fclose(sg) == 0;
    sg = NULL;
    if (!ok) {
      snprintf(err, sizeof err, "%s: error: write failed", o->save_grads);
      goto fail;
    }
  }
  double flo = o->floor > 0 ? o->floor : 1e-6 * gmax; /* the denominator's floor */
  if (!(flo > 0)) flo = 1e-300; /* every gradient is exactly 0 */
  printf("gradcheck %s on %s: %lld vertices, %lld edges; %s\n", m->name, o->graph_name, (long long)gc->g->nv,
         (long long)gc->g->ne, o->inference ? "inference (no dropout)" : "training (dropout on)");
  int nig = 0; /* inputs' gradients (--input-grads): outputs "grad_input.<input>" */
  for (int i = 1; i < m->nouts; i++) nig += strncmp(m->outs[i].name, "grad_input.", 11) == 0;
  printf("L = sum(grad.out * out) = %.12Lg; %d parameter%s", L0, m->nouts - 1 - nig, m->nouts - 1 - nig == 1 ? "" : "s");
  if (nig) printf(" and %d input%s", nig, nig == 1 ? "" : "s");
  printf("; largest |grad| %.3g\n", gmax);
  if (o->no_fd) {
    rc = 0;
    goto done;
  }
  printf("fourth-order central differences, step %g x max(1, |theta|); floor %.3g; tol %g\n", o->eps, flo, o->tol);

  /* 2. Finite differences, parameter by parameter, in output order. */
  uint64_t rs = o->seed ^ 0x5a4d91e5ull;
  double worst = 0;
  int64_t total = 0, kinks = 0, refined = 0, truncated = 0;
  /* the parameters (inputs) of which no entry was checked, every one drawn lying at a kink:
   * the summary names them, since their line alone says "0/64 entries" among many */
  char unchecked[256] = "";
  int nunchecked = 0;
  for (int i = 1; i < m->nouts; i++) {
    /* a parameter's gradient, or an input's: the input's values (a copy of the joint
     * evaluation's, which the forward-only runs read through `given`) are then perturbed */
    bool is_input = strncmp(m->outs[i].name, "grad_input.", 11) == 0;
    const char *pname = m->outs[i].name + (is_input ? strlen("grad_input.") : strlen("grad."));
    Tensor *t = NULL, xt = {0};
    const Value *xv = NULL;
    for (int k = 0; k < gc->ps->nparams && !is_input; k++)
      if (strcmp(gc->ps->params[k].name, pname) == 0) t = &gc->ps->params[k];
    for (int k = 0; k < m->vals.len && is_input; k++) {
      const Value *v = m->vals.items[k];
      if (v->op == OP_INPUT && !v->bwd && strcmp(v->name, pname) == 0) xv = v;
    }
    if (xv && joint.vals[xv->id]) {
      int64_t nx = value_rows(xv, gc->g) * shape_elems(&xv->shape);
      xt = (Tensor){.name = pname, .shape = xv->shape, .data = malloc(sizeof(double) * (size_t)(nx ? nx : 1))};
      memcpy(xt.data, joint.vals[xv->id], sizeof(double) * (size_t)nx);
      t = &xt;
    }
    if (!t) {
      snprintf(err, sizeof err, "error: output %s names no %s", m->outs[i].name, is_input ? "input" : "parameter");
      goto fail;
    }
    /* Forward values this parameter (input) does not reach are the joint evaluation's: only the
     * rest is recomputed for each point of the stencil. */
    bool *dep = calloc((size_t)m->vals.len + 1, sizeof(bool));
    for (int k = 0; k < m->vals.len; k++) {
      const Value *v = m->vals.items[k];
      dep[k] = is_input ? v == xv : v->op == OP_PARAM && strcmp(v->name, pname) == 0;
      for (int a = 0; a < v->nargs; a++) dep[k] |= dep[v->args[a]->id];
      gc->given[k] = !v->bwd && !dep[k] ? joint.vals[k] : NULL;
    }
    free(dep);
    if (xv) gc->given[xv->id] = xt.data;
    int64_t n = (xv ? value_rows(xv, gc->g) : 1) * shape_elems(&t->shape), take = o->samples > 0 && n > o->samples ? o->samples : n;
    /* the entries: all, or the first `take` of a random permutation */
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    for (int64_t k = 0; k < n; k++) idx[k] = k;
    for (int64_t k = 0; k < take && take < n; k++) {
      int64_t j = k + (int64_t)(rng_next(&rs) % (uint64_t)(n - k)), x = idx[k];
      idx[k] = idx[j];
      idx[j] = x;
    }
    if (o->corrupt && (strcmp(o->corrupt, pname) == 0 || strcmp(o->corrupt, m->outs[i].name) == 0) && take > 0)
      grads[i][idx[0]] += 1e-4 * fmax(fabs(grads[i][idx[0]]), flo);
    ParamReport pr = {0, 0, -1, 0, 0, 0, 0, 0};
    for (int64_t k = 0; k < take; k++) {
      int64_t j = idx[k];
      double t0 = t->data[j], h = o->eps * fmax(1, fabs(t0)), fd = 0;
      bool smooth = false;
      for (int tries = 0; tries < 5 && !smooth; tries++, h /= 10) {
        if (!fd_at(gc, &t->data[j], t0, h, &fd, &smooth, err, sizeof err)) {
          free(idx);
          free(xt.data);
          goto fail;
        }
      }
      h *= 10; /* the step of fd */
      double g = grads[i][j], e = fabs(g - fd) / fmax(fmax(fabs(g), fabs(fd)), flo);
      if (!smooth) {
        pr.kinked++;
        printf("  %s[%lld]: a kink lies within the stencil even at step %.1e: not checked (grad %.10g, fd %.10g)\n", pname,
               (long long)j, h, g, fd);
        continue;
      }
      /* Beyond tol, a tenth of the step tells the difference's own error from the gradient's: the
       * stencil's truncation error is O(h^4), 10^4 times smaller there (a steep function: tanh(30 x)
       * errs by 6e-6 at 1e-3 and by 6e-10 at 1e-4), while a wrong gradient is as wrong at any
       * step. An error 10 times smaller or more at h/10 is truncation: the smaller one counts. */
      if (e > o->tol) {
        double fd2 = 0;
        bool smooth2 = false;
        if (!fd_at(gc, &t->data[j], t0, h / 10, &fd2, &smooth2, err, sizeof err)) {
          free(idx);
          free(xt.data);
          goto fail;
        }
        double e2 = fabs(g - fd2) / fmax(fmax(fabs(g), fabs(fd2)), flo);
        if (o->verbose) printf("  %s[%lld]: err %.2e at step %.1e, %.2e at step %.1e\n", pname, (long long)j, e, h, e2, h / 10);
        if (smooth2 && e2 <= e / 10) {
          if (e2 <= o->tol) pr.refined++;
          else pr.truncated++;
          e = e2, fd = fd2;
        }
      }
      pr.checked++;
      if (o->verbose) printf("  %s[%lld]: grad %.15g  fd %.15g  err %.2e\n", pname, (long long)j, g, fd, e);
      if (e >= pr.max_err) pr.max_err = e, pr.worst = j, pr.worst_g = g, pr.worst_fd = fd;
    }
    free(idx);
    free(xt.data);
    if (xv) gc->given[xv->id] = NULL;
    char count[48];
    snprintf(count, sizeof count, "%lld/%lld", (long long)pr.checked, (long long)n);
    printf("%-28s %-14s %11s entries  max rel error %.2e", m->outs[i].name, shape_str(m->arena, &t->shape), count,
           pr.max_err);
    if (pr.worst >= 0) printf("  (entry %lld: grad %.10g, fd %.10g)", (long long)pr.worst, pr.worst_g, pr.worst_fd);
    if (pr.kinked) printf("  %lld at kinks", (long long)pr.kinked);
    if (pr.refined + pr.truncated) printf("  %lld at a tenth of the step", (long long)(pr.refined + pr.truncated));
    printf("%s\n", pr.max_err > o->tol || pr.kinked ? "  FAIL" : "");
    if (pr.kinked && !pr.checked) {
      size_t u = strlen(unchecked);
      if (nunchecked < 3)
        snprintf(unchecked + u, sizeof unchecked - u, "%s%s (%s%lld%s of %lld, all at kinks)", nunchecked ? ", " : "", pname,
                 pr.kinked < n ? "the " : "", (long long)pr.kinked, pr.kinked < n ? " drawn" : "", (long long)n);
      else if (nunchecked == 3)
        snprintf(unchecked + u, sizeof unchecked - u, ", ...");
      nunchecked++;
    }
    worst = fmax(worst, pr.max_err);
    total += pr.checked;
    kinks += pr.kinked;
    refined += pr.refined;
    truncated += pr.truncated;
  }
  bool ok = worst <= o->tol && kinks == 0;
  if (refined)
    printf("%lld entr%s beyond --tol at step %g agreed at a tenth of it: the difference's truncation error (O(step^4)), "
           "not the gradient's\n", (long long)refined, refined == 1 ? "y" : "ies", o->eps);
  if (truncated)
    printf("%lld entr%s still beyond --tol at a tenth of the step erred 10 times less or better there, as the difference's "
           "truncation error does: try a smaller step (--eps %g)\n", (long long)truncated, truncated == 1 ? "y" : "ies",
           o->eps / 100);
  /* A kinked entry fails the run (a parameter nothing checked is not a pass): say so, and what
   * usually puts an entry there, before the verdict. */
  if (kinks) {
    printf("%lld entr%s not checked: a kink (relu, leaky_relu, elu, abs, sign or inv_or_zero at 0, a max/min tie) lies "
           "within %s stencil, where no derivative exists for a difference to measure; an entry at a kink fails the check\n",
           (long long)kinks, kinks == 1 ? "y was" : "ies were", kinks == 1 ? "its" : "their");
    if (nunchecked)
      printf("not one entry checked of %s\n", unchecked);
    if (o->init && strcmp(o->init, "glorot") == 0)
      printf("--init=glorot starts biases at 0, which puts an activation exactly at its kink wherever a vertex's input "
             "is 0: try --init=uniform (the default)\n");
    else
      printf("try another --seed, or --params whose values keep these operands away from the kinks\n");
  }
  printf("max rel error %.2e over %lld entries of %d parameter%s", worst, (long long)total, m->nouts - 1 - nig,
         m->nouts - 1 - nig == 1 ? "" : "s");
  if (nig) printf(" and %d input%s", nig, nig == 1 ? "" : "s");
  printf(" (%lld not checked at kinks; %lld evaluations): %s\n", (long long)kinks, (long long)gc->evals, ok ? "ok" : "FAIL");
  rc = ok ? 0 : 1;
  goto done;
fail:
  fprintf(stderr, "%s\n", err);
  rc = 1;
done:
  interp_free(&joint);
  for (int i = 0; i < m->nouts; i++) free(grads[i]);
  free(grads);
  return rc;
}

/* ---------------------------------------------------------------- a compiled module */

int gradcheck_module(const Module *m, const Graph *g, ParamSet *ps, const GradcheckOpts *o) {
  Gc gc = {.m = m, .g = g, .ps = ps, .o = o};
  char err[512] = "";
  int rc = 1;
  /* grad.out: read, or uniform in [-1, 1) from the seed */
  const Value *seed_v = NULL;
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    if (v->op == OP_INPUT && v->bwd && strcmp(v->name, "grad.out") == 0) seed_v = v;
  }
  if (!seed_v && m->nouts == 1 && !m->input_grads) {
    /* autodiff ran and found nothing to differentiate: no backward, no seed (pass_autodiff) */
    bool params = false;
    for (int i = 0; i < m->vals.len; i++) params |= ((const Value *)m->vals.items[i])->op == OP_PARAM;
    if (!params) {
      printf("the model has no parameters and no --input-grads: autodiff derives no backward, so there is nothing to check\n");
      printf("max rel error 0.00e+00 over 0 entries of 0 parameters (0 not checked at kinks; 0 evaluations): ok\n");
      return 0;
    }
  }
  if (!seed_v) {
    fprintf(stderr, "error: the module has no grad.out input (not a training module)\n");
    return 1;
  }
  int64_t rows = value_rows(module_output(m), g), n = rows * shape_elems(&seed_v->shape);
  gc.seed_in = (Tensor){.name = "grad.out", .shape = seed_v->shape, .data = calloc((size_t)(n ? n : 1), sizeof(double))};
  if (o->grad_out) {
    if (!read_seed(o->grad_out, &gc.seed_in, rows, err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      free(gc.seed_in.data);
      return 1;
    }
  } else {
    uint64_t s = o->seed ^ 0x67726164ull; /* "grad" */
    for (int64_t k = 0; k < n; k++) gc.seed_in.data[k] = 2 * rng_uniform(&s) - 1;
  }
  gc.keep = calloc((size_t)m->vals.len + 1, sizeof(bool));
  gc.keep_fwd = calloc((size_t)m->vals.len + 1, sizeof(bool));
  gc.given = calloc((size_t)m->vals.len + 1, sizeof(double *));
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    /* an argmax gather is its own signature; the others (max/min over out-edges or a graph's
     * vertices included) are read from their operands */
    bool arg_gather = v->op == OP_GATHER && (v->fn == FN_ARGMAX || v->fn == FN_ARGMIN);
    if (is_kinked(v)) gc.keep[arg_gather ? v->id : v->args[0]->id] = true;
    if (is_kinked(v) && v->op != OP_GATHER && v->op != OP_READOUT && v->nargs == 2) gc.keep[v->args[1]->id] = true; /* max/min, comparisons */
    gc.keep_fwd[i] = !v->bwd;
  }
  rc = check(&gc);
  free(gc.keep);
  free(gc.keep_fwd);
  free(gc.given);
  free(gc.base.branch);
  free(gc.seed_in.data);
  return rc;
}



/* ---------------------------------------------------------------- the command line */

int gradcheck_main(int argc, char **argv) {
  GradcheckOpts o = {.seed = 1, .dropout_seed = 1, .tol = 1e-6, .eps = 1e-3};
  GcCli cli = {.init = "uniform"};
  PipelineOpts po = {.verify_each = true, .out = stderr};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *missing = NULL; /* an option matched that got no value (cli_value.h) */
#define GCVAL(flag) cli_option_value(a, flag, argc, argv, &i, &missing)
    const char *v, *want = "";
    char *end = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      gc_usage(stdout);
      return 0;
    } else if ((v = GCVAL("--graph"))) {
      cli.graph = v;
    } else if ((v = GCVAL("--features"))) {
      cli.features = v;
    } else if ((v = GCVAL("--num-vertices"))) {
      cli.num_vertices = strtoll(v, &end, 10), want = "a whole number above 0";
      if (!*v || *end || cli.num_vertices <= 0) goto bad_value;
    } else if ((v = GCVAL("--params"))) {
      cli.params = v;
    } else if ((v = GCVAL("--init"))) {
      cli.init = v;
    } else if ((v = GCVAL("--seed"))) {
      o.seed = strtoull(v, &end, 10), want = "a whole number from 0 to 2^64 - 1";
      if (*end || !*v || *v == '-') goto bad_value;
    } else if ((v = GCVAL("--dropout-seed"))) {
      o.dropout_seed = strtoull(v, &end, 10), want = "a whole number from 0 to 2^64 - 1";
      if (*end || !*v || *v == '-') goto bad_value;
    } else if (strcmp(a, "--inference") == 0) {
      o.inference = true;
    } else if ((v = GCVAL("--samples"))) {
      o.samples = strtoll(v, &end, 10), want = "a whole number above 0 (without it: every entry)";
      if (!*v || *end || o.samples <= 0) goto bad_value;
    } else if ((v = GCVAL("--tol"))) {
      o.tol = strtod(v, &end), want = "a finite number at least 0";
      if (!*v || *end || !(o.tol >= 0) || !isfinite(o.tol)) goto bad_value;
    } else if ((v = GCVAL("--eps"))) {
      o.eps = strtod(v, &end), want = "a finite number above 0";
      if (!*v || *end || !(o.eps > 0) || !isfinite(o.eps)) goto bad_value;
    } else if ((v = GCVAL("--floor"))) {
      o.floor = strtod(v, &end), want = "a finite number above 0";
      if (!*v || *end || !(o.floor > 0) || !isfinite(o.floor)) goto bad_value;
    } else if ((v = GCVAL("--grad-out"))) {
      o.grad_out = v;
    } else if ((v = GCVAL("--save-grads"))) {
      o.save_grads = v;
    } else if (strcmp(a, "--no-fd") == 0) {
      o.no_fd = true;
    } else if ((v = GCVAL("--corrupt"))) {
      o.corrupt = v;
    } else if (strcmp(a, "-v") == 0) {
      o.verbose = true;
    } else if ((v = GCVAL("--model"))) {
      cli.model = v;
    } else if ((v = GCVAL("--input-grads"))) {
      want = "a list of input names, or all";
      if (!*v) goto bad_value;
      po.input_grads = v;
    } else if (strcmp(a, "-O0") == 0) {
      po.O0 = true;
    } else if (strcmp(a, "--no-verify") == 0) {
      po.verify_each = false;
    } else if (strncmp(a, "-fno-", 5) == 0) {
      if (strcmp(a + 5, "autodiff") == 0) {
        fprintf(stderr, "gnnc gradcheck: -fno-autodiff: gradcheck checks the autodiff pass, it cannot be off\n");
        return 2;
      }
      if (!pipeline_has_pass(a + 5) || strcmp(a + 5, "sema") == 0) {
        fprintf(stderr, "gnnc gradcheck: %s: no optional pass named '%s' (see --list-passes)\n", a, a + 5);
        return 2;
      }
      if (po.ndisabled < 16) po.disabled[po.ndisabled++] = a + 5;
    } else if (missing) {
      fprintf(stderr, "gnnc gradcheck: option '%s' needs a value%s%s%s\n", missing, i + 1 < argc ? ", and the next word '" : "",
              i + 1 < argc ? argv[i + 1] : "", i + 1 < argc ? "' is an option (a value that begins with '-': FLAG=VALUE)" : "");
      return 2;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "gnnc gradcheck: unknown option '%s' (see gnnc gradcheck --help)\n", a);
      return 2;
    } else if (!cli.input) {
      cli.input = a;
    } else {
      fprintf(stderr, "gnnc gradcheck: more than one input file ('%s' and '%s')\n", cli.input, a);
      return 2;
    }
    continue;
  bad_value:
    fprintf(stderr, "gnnc gradcheck: %.*s wants %s, got '%s'\n", (int)strcspn(a, "="), a, want, v);
    return 2;
#undef GCVAL
  }
  if (!cli.input || !cli.graph) {
    fprintf(stderr, "gnnc gradcheck: %s is required\n", cli.input ? "--graph PATH" : "a model file");
    return 2;
  }
  if (!gnn_omp_threads_ok("gnnc gradcheck")) return 2; /* before the interpreter's first parallel region */
  if (o.save_grads) { /* a file it can write (gnnrt_path.h), never over a file this run reads (build.h, files_safe) */
    char why[3 * PATH_MAX];
    if (gnn_output_unwritable("--save-grads", o.save_grads, why, sizeof why)) {
      fprintf(stderr, "gnnc: error: %s\n", why);
      return 2;
    }
    RunFile reads[] = {{(char *)cli.input, NULL}, {(char *)cli.graph, "--graph"}, {(char *)cli.features, "--features"},
                       {(char *)cli.params, "--params"}, {(char *)o.grad_out, "--grad-out"}};
    char what[64 + PATH_MAX];
    snprintf(what, sizeof what, "--save-grads '%s'", o.save_grads);
    RunFile w = {(char *)o.save_grads, what};
    if (!files_safe(reads, (int)(sizeof reads / sizeof reads[0]), &w, 1)) return 2;
  }
  size_t size = 0;
  char *text = read_source_file(cli.input, &size);
  if (!text) {
    fprintf(stderr, "gnnc: cannot read '%s': %s\n", cli.input, read_source_error(errno));
    return 1;
  }
  GnnCtx c;
  gnn_ctx_init(&c, cli.input, text, size, stderr);
  c.model_name = cli.model;
  o.graph_name = cli.graph;
  Graph g = {0};
  ParamSet ps = {0};
  char err[512] = "";
  int rc = 1;
  Module *m = NULL;
  if (strlen(text) != size) {
    fprintf(stderr, "%s: error: the file contains a NUL byte\n", cli.input);
    goto done;
  }
  if (!gnn_parse(&c) || !(m = gnn_compile(&c, &po))) goto done;
  bool ok;
  if (cli.num_vertices > 0) {
    ok = graph_load_edges(&g, cli.graph, cli.num_vertices, err, sizeof err);
    if (ok) ok = graph_build_csr(&g, err, sizeof err);
  } else {
    ok = graph_load(&g, cli.graph, err, sizeof err);
  }
  if (ok && cli.features) ok = graph_load_features(&g, cli.features, err, sizeof err);
  if (ok && !(cli.params ? params_load(&ps, m, cli.params, err, sizeof err) : params_init(&ps, m, cli.init, o.seed))) {
    if (!err[0]) snprintf(err, sizeof err, "unknown --init '%s' (glorot or uniform)", cli.init);
    ok = false;
  }
  if (!ok) {
    fprintf(stderr, "%s\n", err);
    goto done;
  }
  o.init = cli.params ? NULL : cli.init;
  rc = gradcheck_module(m, &g, &ps, &o);
done:
  if (c.diag.errors > 0 && c.diag.out)
    fprintf(stderr, "%d error%s generated.\n", diag_count(&c.diag), diag_count(&c.diag) == 1 ? "" : "s");
  params_free(&ps);
  graph_free(&g);
  gnn_ctx_free(&c);
  free(text);
  return rc;
}
