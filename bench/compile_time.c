/* bench/compile_time.c -- how long gnnc takes to compile each example, in process.
 *
 * For every .gnn file given: 100 runs of parse + sema + every pass (with the verifier, as
 * the driver runs it), timed one by one; prints the median, min and max per file and writes
 * the table to bench/results/compile_time.txt. Target (issue 2): median under 10 ms.
 */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 100 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  FILE *null = fopen("/dev/null", "w");
  FILE *res = fopen("bench/results/compile_time.txt", "w");
  char line[256];
  snprintf(line, sizeof line, "%-28s %6s %10s %10s %10s\n", "example", "values", "median ms", "min ms", "max ms");
  fputs(line, stdout);
  if (res) fputs(line, res);
  int slow = 0;
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    double t[RUNS];
    int nvals = 0;
    for (int r = 0; r < RUNS; r++) {
      double t0 = now();
      GnnCtx c;
      gnn_ctx_init(&c, argv[i], text, n, stderr);
      PipelineOpts o = {.verify_each = true, .out = null};
      Module *m = gnn_parse(&c) ? gnn_compile(&c, &o) : NULL;
      if (!m) {
        fprintf(stderr, "%s does not compile\n", argv[i]);
        return 1;
      }
      nvals = m->vals.len;
      gnn_ctx_free(&c);
      t[r] = now() - t0;
    }
    qsort(t, RUNS, sizeof t[0], cmp);
    double med = (t[RUNS / 2 - 1] + t[RUNS / 2]) / 2;
    slow += med > 0.010;
    snprintf(line, sizeof line, "%-28s %6d %10.3f %10.3f %10.3f\n", argv[i], nvals, med * 1e3, t[0] * 1e3, t[RUNS - 1] * 1e3);
    fputs(line, stdout);
    if (res) fputs(line, res);
  }
  printf("%d runs each; %s\n", RUNS, slow ? "SOME EXAMPLES ABOVE THE 10 ms TARGET" : "every median under the 10 ms target");
  if (res) fclose(res);
  fclose(null);
  return 0;
}
