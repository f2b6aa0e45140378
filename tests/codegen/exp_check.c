/* exp_check.c -- the host prelude's gnn_expf, gnn_expm1f and gnn_tanhf against glibc's expf,
 * expm1f and tanhf.
 * Compiled by tests/suites/codegen_host.sh with -include of the helpers cut from a generated host
 * source, at the flags gnnc builds host libraries with (-O3 -march=native -ffp-contract=off), so
 * the loops below vectorise as a kernel's lane loops do. Checks every 61st float32 bit pattern
 * and the special values: at most 1 ulp (exp), 2 ulp (expm1) and 4 ulp (tanh) where glibc's
 * result is a normal float; +0 (or the subnormal) where it is below FLT_MIN; +-inf, +-1, NaN
 * where glibc's is. Prints the worst cases; exit status 1 on a failure. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static float ulp_of(float z) { return nextafterf(fabsf(z), INFINITY) - fabsf(z); }

/* 0 when got is acceptable for want = libm's value; else 1 (and a message). */
static int check(const char *fn, float x, float got, float want, double max_ulp, double *worst, float *worst_x) {
  if (isnan(want)) {
    if (isnan(got)) return 0;
  } else if (isinf(want) || want == -1.0f || want == 1.0f) {
    if (got == want) return 0;
  } else if (fabsf(want) < FLT_MIN) {
    if (fabsf(got) < FLT_MIN) return 0; /* flushed: +0 or the subnormal itself */
  } else {
    double u = fabs((double)got - (double)want) / ulp_of(want);
    if (u > *worst) *worst = u, *worst_x = x;
    if (u <= max_ulp) return 0;
  }
  fprintf(stderr, "%s(%.9g) = %.9g, glibc %.9g\n", fn, x, got, want);
  return 1;
}

int main(void) {
  static float in[N], e[N], m[N], th[N];
  double worst_e = 0, worst_m = 0, worst_t = 0;
  float wx_e = 0, wx_m = 0, wx_t = 0;
  int bad = 0;
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, -0.5f, 88.72283f,
                                  88.7228394f, 88.8f, -87.33654f, -87.3365479f, -103.9f, -104.0f, 1e-30f, -1e-30f,
                                  FLT_MIN, -FLT_MIN, 1e-45f, FLT_MAX, -FLT_MAX};
  uint64_t b = 0;
  int nspecial = (int)(sizeof special / sizeof special[0]);
  for (int done = 0; !done && bad < 10;) {
    int n = 0;
    for (; n < nspecial && b == 0; n++) in[n] = special[n];
    for (; n < N && b <= 0xffffffffull; n++, b += 61) {
      uint32_t u = (uint32_t)b;
      memcpy(&in[n], &u, sizeof u);
    }
    done = b > 0xffffffffull;
    for (int i = 0; i < n; i++) e[i] = gnn_expf(in[i]); /* vectorised loops, as in a kernel */
    for (int i = 0; i < n; i++) m[i] = gnn_expm1f(in[i]);
    for (int i = 0; i < n; i++) th[i] = gnn_tanhf(in[i]);
    for (int i = 0; i < n && bad < 10; i++) {
      bad += check("gnn_expf", in[i], e[i], expf(in[i]), 1.0, &worst_e, &wx_e);
      bad += check("gnn_expm1f", in[i], m[i], expm1f(in[i]), 2.0, &worst_m, &wx_m);
      bad += check("gnn_tanhf", in[i], th[i], tanhf(in[i]), 4.0, &worst_t, &wx_t);
    }
  }
  printf("gnn_expf: worst %.3f ulp at %.9g; gnn_expm1f: worst %.3f ulp at %.9g; gnn_tanhf: worst %.3f ulp at %.9g\n",
         worst_e, wx_e, worst_m, wx_m, worst_t, wx_t);
  return bad ? 1 : 0;
}
