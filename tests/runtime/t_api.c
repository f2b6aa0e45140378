/* t_api.c -- unit tests of the runtime's C API, for either build.
 *
 *   t_api                          every check below on a fresh context
 *   t_api --params FILE INIT SEED  the interpreter's parameter file FILE (gnnc run --init=INIT
 *                                  --seed SEED --save-params FILE) against gnn_param_init_INIT,
 *                                  every value, at float32
 *   t_api --roundtrip IN OUT       reads IN with the tensor reader and writes it to OUT
 *
 * Everything goes through gnn_malloc / gnn_upload / gnn_download, so the same file, linked
 * against libgnnrt, tests the CUDA kernels on a machine with a GPU (the suite builds it as
 * t_api_cuda). Without a usable context it prints "no context: ..." and exits 77.
 * References are computed here, independently: float64 softmax cross-entropy and its finite
 * differences, naive GEMM, hand-computed optimiser steps, hand-built CSR.
 */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnnrt_rng.h"
#include "rt_test.h"

/* Deterministic test data: uniform in [lo, hi). */
static float urand(uint64_t *k, float lo, float hi) { return lo + (hi - lo) * gnn_rng_uniform(1234, 0, (*k)++); }

/* A device copy of n bytes of host data (NULL on failure, which the checks then report). */
static void *to_dev(gnn_ctx *ctx, const void *h, size_t n) {
  void *d = NULL;
  if (gnn_malloc(ctx, &d, n) || gnn_upload(ctx, d, h, n)) return NULL;
  return d;
}

static void *from_dev(gnn_ctx *ctx, const void *d, size_t n) {
  void *h = malloc(n ? n : 1);
  if (gnn_download(ctx, h, d, n)) memset(h, 0xff, n);
  return h;
}

/* ---------------------------------------------------------------- errors */

static void test_errors(gnn_ctx *ctx) {
  check(!strcmp(gnn_status_name(GNN_OK), "GNN_OK") && !strcmp(gnn_status_name(GNN_ERR_NUMERIC), "GNN_ERR_NUMERIC") &&
            !strcmp(gnn_status_name((gnn_status)99), "GNN_ERR_?"),
        "errors/status-names", "%s %s", gnn_status_name(GNN_OK), gnn_status_name((gnn_status)99));
  gnn_status st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%d: error: two\nlines", "f.edges", 17);
  check(st == GNN_ERR_FORMAT && !strcmp(gnn_last_error(ctx), "f.edges:17: error: two lines"), "errors/set-error",
        "%s '%s'", gnn_status_name(st), gnn_last_error(ctx));
  char big[3000];
  for (size_t i = 0; i + 1 < sizeof big; i++) big[i] = i % 10 == 9 ? ' ' : 'x'; /* words of 9 */
  big[sizeof big - 1] = 0;
  gnn_set_error(ctx, GNN_ERR_IO, "%s", big);
  check(strlen(gnn_last_error(ctx)) == 1023, "errors/truncated", "length %zu", strlen(gnn_last_error(ctx)));
  /* a path of 5,000 bytes: shortened inside the message, which keeps its reason */
  char path[5001];
  memset(path, 'p', 5000);
  path[5000] = 0;
  gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, "No such file or directory");
  const char *e = gnn_last_error(ctx);
  check(strlen(e) < 1023 && strstr(e, "ppp...ppp") && strstr(e, "ppp: error: cannot write: No such file or directory") && !strncmp(e, "ppp", 3),
        "errors/long-path-keeps-the-reason", "'%.80s...' length %zu", e, strlen(e));
  /* the last message wrapped in a new one (its argument is the buffer the new one goes into): it
   * was formatted into the buffer it read, "outer: outer: " */
  gnn_set_error(ctx, GNN_ERR_IO, "first");
  gnn_set_error(ctx, GNN_ERR_IO, "outer: %s", gnn_last_error(ctx));
  check(!strcmp(gnn_last_error(ctx), "outer: first"), "errors/wrap-last-error", "'%s'", gnn_last_error(ctx));
  gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, "No such file or directory");
  gnn_set_error(ctx, GNN_ERR_IO, "while saving: %s (%d)", gnn_last_error(ctx), 7);
  e = gnn_last_error(ctx);
  check(!strncmp(e, "while saving: ppp", 17) && strstr(e, "ppp: error: cannot write: No such file or directory (7)"),
        "errors/wrap-long-last-error", "'%.80s...' length %zu", e, strlen(e));
  gnn_clear_error(ctx);
  check(gnn_last_error(ctx)[0] == 0 && gnn_last_error(NULL) != NULL && gnn_set_error(NULL, GNN_ERR_IO, "x") == GNN_ERR_IO,
        "errors/clear-and-null", "'%s'", gnn_last_error(ctx));
  check(gnn_ctx_create(NULL, 0) == GNN_ERR_INVALID && gnn_malloc(NULL, NULL, 1) == GNN_ERR_INVALID, "errors/null-args",
        "NULL arguments accepted");
  check(gnn_ctx_enter(ctx) == GNN_OK && gnn_ctx_enter(NULL) == GNN_ERR_INVALID, "errors/ctx-enter", "%s",
        gnn_last_error(ctx));
}

/* ---------------------------------------------------------------- OMP_NUM_THREADS */

/* libgnnrt_host fails a context when OMP_NUM_THREADS asks for more than 4096 threads at any level
 * (gnnrt_omp.h, the drivers' rule): a program of one's own went on to crash inside libgomp at its
 * first parallel region (a segfault at 100,000). libgomp read the variable when this process
 * loaded it, so setting it here changes nothing but what gnn_ctx_create reads. libgnnrt (CUDA)
 * runs no OpenMP: its contexts do not look. */
static void test_omp_threads(int cuda) {
  const char *was = getenv("OMP_NUM_THREADS");
  char *saved = was ? strdup(was) : NULL;
  static const char *const refused[] = {"100000", "4097", "2, 100000"};
  static const char *const accepted[] = {"4096", "2,4", "abc", "0", "99999999999999999999999"}; /* the last three: libgomp's to ignore */
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    char name[64], name_failed[80], want[96];
    snprintf(name, sizeof name, "ctx/omp-threads-refused/%s", refused[i]);
    for (char *q = name; *q; q++) *q = *q == ' ' ? '_' : *q; /* a check's name is one word */
    snprintf(name_failed, sizeof name_failed, "%s/ctx-failed", name);
    snprintf(want, sizeof want, "gnn_ctx_create: OMP_NUM_THREADS=%s asks for more than 4096 OpenMP threads", refused[i]);
    setenv("OMP_NUM_THREADS", refused[i], 1);
    gnn_ctx *c = NULL;
    gnn_status st = gnn_ctx_create(&c, 0);
    void *p = NULL;
    if (cuda) check(st == GNN_OK, name, "%s: %s (libgnnrt runs no OpenMP)", gnn_status_name(st), gnn_last_error(c));
    else {
      check_status(c, st, GNN_ERR_INVALID, name, want, "set it to at most the machine's");
      check(c && gnn_malloc(c, &p, 16) == GNN_ERR_INVALID && strstr(gnn_last_error(c), want), name_failed, "the failed context was usable");
    }
    gnn_free(c, p);
    gnn_ctx_destroy(c);
  }
  for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) {
    char name[64];
    snprintf(name, sizeof name, "ctx/omp-threads-accepted/%s", accepted[i]);
    setenv("OMP_NUM_THREADS", accepted[i], 1);
    gnn_ctx *c = NULL;
    gnn_status st = gnn_ctx_create(&c, 0);
    check(st == GNN_OK, name, "%s: %s", gnn_status_name(st), gnn_last_error(c));
    gnn_ctx_destroy(c);
  }
  if (saved) setenv("OMP_NUM_THREADS", saved, 1);
  else unsetenv("OMP_NUM_THREADS");
  free(saved);
}

/* ---------------------------------------------------------------- memory */

static void test_memory(gnn_ctx *ctx) {
  size_t live = 1, peak = 1, base_live, base_peak;
  gnn_mem_usage(ctx, &base_live, &base_peak);
  void *a = NULL, *b = NULL, *c = NULL, *d = NULL, *z = (void *)1;
  gnn_status st = gnn_malloc(ctx, &a, 1000);
  st = st ? st : gnn_malloc(ctx, &b, 3000);
  gnn_mem_usage(ctx, &live, &peak);
  check(!st && live == base_live + 4000 && peak == base_live + 4000, "memory/alloc", "live %zu peak %zu", live, peak);
  gnn_free(ctx, a);
  st = gnn_malloc(ctx, &c, 500);
  gnn_mem_usage(ctx, &live, &peak);
  check(!st && live == base_live + 3500 && peak == base_live + 4000, "memory/free-keeps-peak", "live %zu peak %zu", live,
        peak);
  gnn_mem_reset_peak(ctx);
  gnn_mem_usage(ctx, NULL, &peak);
  check(peak == base_live + 3500, "memory/reset-peak", "peak %zu", peak);
  st = gnn_malloc(ctx, &d, 10000);
  gnn_mem_usage(ctx, &live, &peak);
  check(!st && live == base_live + 13500 && peak == base_live + 13500, "memory/new-peak", "live %zu peak %zu", live, peak);
  gnn_free(ctx, b), gnn_free(ctx, c), gnn_free(ctx, d);
  gnn_mem_usage(ctx, &live, &peak);
  check(live == base_live && peak == base_live + 13500, "memory/all-freed", "live %zu peak %zu", live, peak);
  st = gnn_malloc(ctx, &z, 0);
  gnn_mem_usage(ctx, &live, NULL);
  check(!st && z == NULL && live == base_live && gnn_free(ctx, NULL) == GNN_OK, "memory/zero-bytes", "%p", z);
  int local;
  check_status(ctx, gnn_free(ctx, &local), GNN_ERR_INVALID, "memory/free-foreign", "not allocated by this context", NULL);
  gnn_malloc(ctx, &a, 64);
  gnn_free(ctx, a);
  check_status(ctx, gnn_free(ctx, a), GNN_ERR_INVALID, "memory/double-free", "not allocated", NULL);

  /* the context's memory limit and what is available under it */
  size_t avail = 0, avail2 = 0;
  st = gnn_mem_available(ctx, &avail);
  check(!st && avail > 4096, "memory/available", "%s %zu", gnn_status_name(st), avail);
  check(gnn_set_memory_limit(ctx, base_live + 4096) == GNN_OK && gnn_mem_available(ctx, &avail2) == GNN_OK &&
            avail2 == (avail < 4096 ? avail : 4096),
        "memory/available-under-limit", "%zu (limit 4096 above live)", avail2);
  check_status(ctx, gnn_malloc(ctx, &a, 4097), GNN_ERR_OOM, "memory/limit-refuses", "memory limit of", NULL);
  gnn_mem_usage(ctx, &live, NULL);
  check(a == NULL && live == base_live, "memory/limit-refuses-allocates-nothing", "live %zu", live);
  st = gnn_malloc(ctx, &a, 4096);
  check(!st && gnn_mem_available(ctx, &avail2) == GNN_OK && avail2 == 0, "memory/limit-exact", "%s %zu", gnn_status_name(st), avail2);
  gnn_free(ctx, a);
  check(gnn_set_memory_limit(ctx, 0) == GNN_OK && gnn_malloc(ctx, &a, 8192) == GNN_OK, "memory/limit-removed", "%s",
        gnn_last_error(ctx));
  gnn_free(ctx, a);
  check(gnn_mem_available(ctx, NULL) == GNN_ERR_INVALID && gnn_set_memory_limit(NULL, 1) == GNN_ERR_INVALID,
        "memory/limit-null-args", "NULL accepted");

  /* Many allocations freed in a scrambled order: the table's deletions keep every entry
   * findable and the counter exact. */
  enum { N = 2000 };
  void **ps = calloc(N, sizeof *ps);
  size_t *sz = calloc(N, sizeof *sz), sum = 0;
  int ok = 1;
  for (int i = 0; i < N && ok; i++) {
    sz[i] = 1 + gnn_rng_bits(7, 1, (uint64_t)i) % 4096;
    ok = gnn_malloc(ctx, &ps[i], sz[i]) == GNN_OK;
    sum += sz[i];
  }
  for (int k = 0; k < N && ok; k++) {
    int i = (int)(((uint64_t)k * 7919) % N); /* 7919 is prime: a permutation of 0..N-1 */
    ok = gnn_free(ctx, ps[i]) == GNN_OK;
    sum -= sz[i];
    gnn_mem_usage(ctx, &live, NULL);
    ok = ok && live == base_live + sum;
  }
  check(ok && sum == 0, "memory/table-stress", "live %zu, expected %zu", live, base_live + sum);
  free(ps);
  free(sz);

  /* upload, memset0, download */
  float h[100], back[100];
  for (int i = 0; i < 100; i++) h[i] = (float)i + 0.5f;
  float *dv = to_dev(ctx, h, sizeof h);
  gnn_memset0(ctx, dv + 10, 20 * sizeof(float));
  gnn_download(ctx, back, dv, sizeof back);
  ok = dv != NULL;
  for (int i = 0; i < 100 && ok; i++) ok = back[i] == (i >= 10 && i < 30 ? 0.0f : h[i]);
  check(ok && gnn_sync(ctx) == GNN_OK, "memory/upload-memset-download", "mismatch");
  /* spans past the end of an allocation (whole or from an interior pointer) are refused and
   * copy nothing; the exact end is fine */
  float big[101] = {0};
  check_status(ctx, gnn_upload(ctx, dv, big, sizeof big), GNN_ERR_INVALID, "memory/upload-past-end",
               "gnn_upload: 404 bytes at offset 0 run past the end of a 400-byte allocation", NULL);
  check_status(ctx, gnn_upload(ctx, dv + 90, big, 11 * sizeof(float)), GNN_ERR_INVALID, "memory/upload-interior-past-end",
               "44 bytes at offset 360", NULL);
  check_status(ctx, gnn_download(ctx, big, dv + 1, sizeof back), GNN_ERR_INVALID, "memory/download-past-end",
               "gnn_download: 400 bytes at offset 4", NULL);
  check_status(ctx, gnn_memset0(ctx, dv + 50, 51 * sizeof(float)), GNN_ERR_INVALID, "memory/memset0-past-end",
               "gnn_memset0: 204 bytes at offset 200", NULL);
  gnn_download(ctx, back, dv, sizeof back);
  ok = 1;
  for (int i = 0; i < 100 && ok; i++) ok = back[i] == (i >= 10 && i < 30 ? 0.0f : h[i]);
  check(ok && gnn_upload(ctx, dv + 90, h, 10 * sizeof(float)) == GNN_OK, "memory/refused-copies-change-nothing", "mismatch");
  gnn_free(ctx, dv);
}

/* ---------------------------------------------------------------- GEMM */

static void test_gemm(gnn_ctx *ctx) {
  const int64_t M = 7, N = 5, K = 9, pad = 3;
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
      int64_t arows = ta ? K : M, brows = tb ? N : K;
      float *A = calloc((size_t)(arows * lda), 4), *B = calloc((size_t)(brows * ldb), 4), *C = calloc((size_t)(M * ldc), 4);
      uint64_t key = (uint64_t)(ta * 2 + tb) * 1000;
      for (int64_t i = 0; i < arows * lda; i++) A[i] = urand(&key, -1, 1);
      for (int64_t i = 0; i < brows * ldb; i++) B[i] = urand(&key, -1, 1);
      for (int64_t i = 0; i < M * ldc; i++) C[i] = urand(&key, -1, 1);
      float *dA = to_dev(ctx, A, (size_t)(arows * lda) * 4), *dB = to_dev(ctx, B, (size_t)(brows * ldb) * 4);
      float *dC = to_dev(ctx, C, (size_t)(M * ldc) * 4);
      gnn_status st = gnn_sgemm(ctx, ta, tb, M, N, K, 1.5f, dA, lda, dB, ldb, 0.5f, dC, ldc);
      float *R = from_dev(ctx, dC, (size_t)(M * ldc) * 4);
      double worst = 0;
      for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < ldc; j++) {
          double want = C[i * ldc + j]; /* the padding must not change */
          if (j < N) {
            double s = 0;
            for (int64_t k = 0; k < K; k++) s += (double)(ta ? A[k * lda + i] : A[i * lda + k]) * (tb ? B[j * ldb + k] : B[k * ldb + j]);
            want = 1.5 * s + 0.5 * C[i * ldc + j];
          }
          worst = fmax(worst, fabs(want - R[i * ldc + j]));
        }
      char name[64];
      snprintf(name, sizeof name, "gemm/trans-%d-%d", ta, tb);
      check(!st && worst < 1e-5, name, "%s, max error %g: %s", gnn_status_name(st), worst, gnn_last_error(ctx));
      gnn_free(ctx, dA), gnn_free(ctx, dB), gnn_free(ctx, dC);
      free(A), free(B), free(C), free(R);
    }
  check_status(ctx, gnn_sgemm(ctx, 0, 0, 2, 2, 2, 1, NULL, 1, NULL, 2, 0, NULL, 2), GNN_ERR_INVALID, "gemm/bad-lda",
               "leading dimensions", NULL);
  /* NULL matrices that would be read or written: a status, not a crash in the BLAS */
  {
    const float one[4] = {1, 2, 3, 4};
    float *dM = to_dev(ctx, one, sizeof one);
    check_status(ctx, gnn_sgemm(ctx, 0, 0, 2, 2, 2, 1, NULL, 2, dM, 2, 0, dM, 2), GNN_ERR_INVALID, "gemm/null-A", "gnn_sgemm: A is NULL", NULL);
    check_status(ctx, gnn_sgemm(ctx, 0, 0, 2, 2, 2, 1, dM, 2, NULL, 2, 0, dM, 2), GNN_ERR_INVALID, "gemm/null-B", "gnn_sgemm: B is NULL", NULL);
    check_status(ctx, gnn_sgemm(ctx, 0, 0, 2, 2, 0, 1, NULL, 1, NULL, 2, 0, NULL, 2), GNN_ERR_INVALID, "gemm/null-C", "gnn_sgemm: C is NULL", NULL);
    check(gnn_sgemm(ctx, 0, 0, 0, 2, 2, 1, NULL, 2, NULL, 2, 0, NULL, 2) == GNN_OK, "gemm/null-empty", "m = 0 reads nothing");
    gnn_free(ctx, dM);
  }
  /* k = 0: C = beta C (0 when beta is 0, whatever C held), padding untouched, A and B unread */
  for (int b = 0; b < 2; b++) {
    const float beta = b ? 0.5f : 0.0f;
    const float C0[] = {1, 2, 9, -4, NAN, 9}; /* 2 x 2, ldc 3: column 2 is padding */
    float *dC = to_dev(ctx, C0, sizeof C0);
    gnn_status st = gnn_sgemm(ctx, 0, 0, 2, 2, 0, 1.0f, NULL, 1, NULL, 2, beta, dC, 3);
    float *R = from_dev(ctx, dC, sizeof C0);
    int ok = !st && R[2] == 9 && R[5] == 9;
    if (b) ok = ok && R[0] == 0.5f && R[1] == 1 && R[3] == -2 && isnan(R[4]);
    else ok = ok && R[0] == 0 && R[1] == 0 && R[3] == 0 && R[4] == 0;
    check(ok, b ? "gemm/k0-beta" : "gemm/k0-zero", "%s: %g %g | %g %g", gnn_status_name(st), R[0], R[1], R[3], R[4]);
    gnn_free(ctx, dC);
    free(R);
  }
}

/* ---------------------------------------------------------------- SpMM over a graph */

/* gnn_spmm against sums written out here: over in-edges and out-edges, with weights by edge id
 * and without, on a graph with a self-loop, a duplicate edge, a vertex without edges either way,
 * and a hub (vertex 1: three in-edges); then its argument checks and the edgeless graph. */
static void test_spmm(gnn_ctx *ctx) {
  const int64_t src[] = {0, 1, 2, 0, 2, 3, 1}, dst[] = {1, 2, 2, 1, 0, 1, 3};
  const int64_t nv = 5, ne = 7, W = 3;
  gnn_graph *g = NULL;
  gnn_status st = gnn_graph_from_edges(ctx, nv, ne, src, dst, NULL, &g);
  check(!st, "spmm/graph", "%s", gnn_last_error(ctx));
  if (st) return;
  float x[5 * 3], w[7];
  uint64_t key = 77;
  for (int i = 0; i < nv * W; i++) x[i] = urand(&key, -1, 1);
  for (int e = 0; e < ne; e++) w[e] = urand(&key, -2, 2);
  float *dx = to_dev(ctx, x, sizeof x), *dw = to_dev(ctx, w, sizeof w), *dy = NULL;
  gnn_malloc(ctx, (void **)&dy, sizeof x);
  for (int dir = 0; dir < 2; dir++)
    for (int weighted = 0; weighted < 2; weighted++) {
      const float junk[5 * 3] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}; /* y is overwritten, rows without edges too */
      gnn_upload(ctx, dy, junk, sizeof junk);
      st = gnn_spmm(ctx, g, dir ? GNN_SPMM_OUT_EDGES : GNN_SPMM_IN_EDGES, dx, weighted ? dw : NULL, dy, W);
      float *y = from_dev(ctx, dy, sizeof x);
      double worst = 0;
      for (int64_t v = 0; v < nv; v++)
        for (int64_t c = 0; c < W; c++) {
          double want = 0;
          for (int64_t e = 0; e < ne; e++) { /* edge ids are CSR positions: g->h_src/h_dst */
            int64_t here = dir ? g->h_src[e] : g->h_dst[e], far = dir ? g->h_dst[e] : g->h_src[e];
            if (here == v) want += (weighted ? (double)w[e] : 1.0) * x[far * W + c];
          }
          worst = fmax(worst, fabs(want - y[v * W + c]));
        }
      char name[64];
      snprintf(name, sizeof name, "spmm/%s-%s", dir ? "out-edges" : "in-edges", weighted ? "weighted" : "ones");
      check(!st && worst < 1e-5, name, "%s, max error %g: %s", gnn_status_name(st), worst, gnn_last_error(ctx));
      free(y);
    }
  check_status(ctx, gnn_spmm(ctx, NULL, 0, dx, dw, dy, W), GNN_ERR_INVALID, "spmm/null-graph", "gnn_spmm: g is NULL", NULL);
  check_status(ctx, gnn_spmm(ctx, g, 2, dx, dw, dy, W), GNN_ERR_INVALID, "spmm/bad-direction", "direction 2", NULL);
  check_status(ctx, gnn_spmm(ctx, g, 0, dx, dw, dy, 0), GNN_ERR_INVALID, "spmm/bad-width", "width 0", NULL);
  check_status(ctx, gnn_spmm(ctx, g, 0, NULL, dw, dy, W), GNN_ERR_INVALID, "spmm/null-x", "x or y is NULL", NULL);
  check_status(ctx, gnn_spmm(ctx, g, 0, dx, dw, dx, W), GNN_ERR_INVALID, "spmm/x-is-y", "the same array", NULL);
  gnn_graph_free(ctx, g);
  /* no edges: every row 0 */
  g = NULL;
  st = gnn_graph_from_edges(ctx, 5, 0, src, dst, NULL, &g);
  if (!st) {
    const float junk[5 * 3] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    gnn_upload(ctx, dy, junk, sizeof junk);
    st = gnn_spmm(ctx, g, GNN_SPMM_OUT_EDGES, dx, NULL, dy, W);
    float *y = from_dev(ctx, dy, sizeof x);
    int zero = 1;
    for (int i = 0; i < nv * W; i++) zero &= y[i] == 0;
    check(!st && zero, "spmm/no-edges", "%s: %s", gnn_status_name(st), gnn_last_error(ctx));
    free(y);
    gnn_graph_free(ctx, g);
  } else {
    check(0, "spmm/no-edges", "%s", gnn_last_error(ctx));
  }
  gnn_free(ctx, dx), gnn_free(ctx, dw), gnn_free(ctx, dy);
}

/* ---------------------------------------------------------------- graphs from arrays */

static int same64(const int64_t *a, const int64_t *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static int same32(const int32_t *a, const int64_t *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static void test_graph_from_edges(gnn_ctx *ctx) {
  /* tests/runtime/graphs/small.edges, hand-sorted (see small.plain.expected) */
  const int64_t src[] = {0, 1, 2, 0, 2, 3}, dst[] = {1, 2, 2, 1, 0, 1};
  const int64_t in_ptr[] = {0, 1, 4, 6, 6, 6}, csr_src[] = {2, 0, 0, 3, 1, 2}, csr_dst[] = {0, 1, 1, 1, 2, 2};
  const int64_t out_ptr[] = {0, 2, 3, 5, 6, 6}, out_eid[] = {1, 2, 4, 0, 5, 3}, origin[] = {4, 0, 3, 5, 1, 2};
  gnn_graph *g = NULL;
  gnn_status st = gnn_graph_from_edges(ctx, 5, 6, src, dst, NULL, &g);
  int ok = !st && g->nv == 5 && g->ne == 6 && g->max_in_deg == 3 && g->max_out_deg == 2;
  if (ok) {
    int64_t *d_in = from_dev(ctx, g->in_ptr, 6 * 8), *d_out = from_dev(ctx, g->out_ptr, 6 * 8);
    int32_t *d_src = from_dev(ctx, g->src, 6 * 4), *d_dst = from_dev(ctx, g->dst, 6 * 4), *d_eid = from_dev(ctx, g->out_eid, 6 * 4);
    float *din = from_dev(ctx, g->in_deg, 5 * 4), *dout = from_dev(ctx, g->out_deg, 5 * 4);
    ok = same64(g->h_in_ptr, in_ptr, 6) && same64(d_in, in_ptr, 6) && same32(g->h_src, csr_src, 6) &&
         same32(d_src, csr_src, 6) && same32(g->h_dst, csr_dst, 6) && same32(d_dst, csr_dst, 6) &&
         same64(g->h_out_ptr, out_ptr, 6) && same64(d_out, out_ptr, 6) && same32(g->h_out_eid, out_eid, 6) &&
         same32(d_eid, out_eid, 6) && same64(g->edge_origin, origin, 6) && din[1] == 3 && din[3] == 0 && dout[0] == 2 &&
         dout[4] == 0;
    free(d_in), free(d_out), free(d_src), free(d_dst), free(d_eid), free(din), free(dout);
  }
  check(ok, "graph/from-edges", "%s %s", gnn_status_name(st), gnn_last_error(ctx));
  gnn_graph_free(ctx, g);
  gnn_graph_opts o = {1, 1, 1, 1, 0}; /* every option: small.rdys.expected */
  st = gnn_graph_from_edges(ctx, 5, 6, src, dst, &o, &g);
  const int64_t rdys_origin[] = {4, 0, -1, 0, 5, 1, -1, 1, 4, -1, 5, -1, -1};
  check(!st && g->ne == 13 && same64(g->edge_origin, rdys_origin, 13), "graph/from-edges-options", "%s %s",
        gnn_status_name(st), gnn_last_error(ctx));
  gnn_graph_free(ctx, g);
  const int64_t bad_dst[] = {1, -1};
  /* more edges than int32 ids hold: refused before the arrays are read (they were read whole,
   * 2^31 of them here past the end of a 6-element array, then refused) */
  check_status(ctx, gnn_graph_from_edges(ctx, 5, (int64_t)1 << 31, src, dst, NULL, &g), GNN_ERR_INVALID,
               "graph/from-edges-too-many", "2147483648 edges out of range (0 .. 2^31-1", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, 0, 2, src, bad_dst, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-negative",
               "edge 1: destination vertex id -1 is negative (ids must be >= 0)", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, 2, 6, src, dst, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-range",
               "vertex id 2 out of range (the graph has 2)", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, 0, 0, NULL, NULL, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-empty",
               "empty graph", NULL);
  const int64_t huge[] = {(int64_t)1 << 31};
  check_status(ctx, gnn_graph_from_edges(ctx, 0, 1, huge, huge, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-int32",
               "ids must be below 2147483648", NULL);
  /* bad input (issue 30): each a status with a message, *out NULL, no bytes left behind */
  size_t live0 = 0, live1 = 1;
  gnn_mem_usage(ctx, &live0, NULL);
  g = (gnn_graph *)&g; /* not NULL: each call must clear it */
  const int64_t neg_src[] = {0, -5}, two_dst[] = {1, 0};
  check_status(ctx, gnn_graph_from_edges(ctx, 3, 2, neg_src, two_dst, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-negative-src",
               "edge 1: source vertex id -5 is negative (ids must be >= 0)", NULL);
  check(g == NULL, "graph/from-edges-out-cleared", "out is not NULL after a failure");
  check_status(ctx, gnn_graph_from_edges(ctx, -1, 2, src, dst, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-negative-nv",
               "-1 vertices out of range", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, ((int64_t)1 << 31) + 1, 2, src, dst, NULL, &g), GNN_ERR_INVALID,
               "graph/from-edges-nv-2-31", "2147483649 vertices out of range", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, 3, -2, src, dst, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-negative-ne",
               "-2 edges with a negative count of arrays", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, 3, 2, NULL, dst, NULL, &g), GNN_ERR_INVALID, "graph/from-edges-null-src",
               "2 edges with NULL arrays", NULL);
  gnn_graph_opts bad_nv = {0, 0, 0, 0, -4};
  check_status(ctx, gnn_graph_from_edges(ctx, 0, 2, src, two_dst, &bad_nv, &g), GNN_ERR_INVALID, "graph/from-edges-bad-opts",
               "num_vertices -4 out of range", NULL);
  check_status(ctx, gnn_graph_from_edges(ctx, 3, 2, src, two_dst, NULL, NULL), GNN_ERR_INVALID, "graph/from-edges-null-out",
               "out is NULL", NULL);
  gnn_graph_opts nv2 = {0, 0, 0, 0, 2}; /* nv 0: the options' count bounds the ids */
  check_status(ctx, gnn_graph_from_edges(ctx, 0, 6, src, dst, &nv2, &g), GNN_ERR_INVALID, "graph/from-edges-opts-range",
               "vertex id 2 out of range (the graph has 2)", NULL);
  /* nv and the options' count must agree where both are set (as gnn_graph_from_csr); the same
   * count twice, or 0 in either, is fine */
  gnn_graph_opts nv10 = {0, 0, 0, 0, 10};
  g = NULL;
  check_status(ctx, gnn_graph_from_edges(ctx, 5, 6, src, dst, &nv10, &g), GNN_ERR_INVALID, "graph/from-edges-opts-differ",
               "gnn_graph_from_edges: opts->num_vertices is 10, but nv is 5", NULL);
  check(g == NULL, "graph/from-edges-opts-differ-no-graph", "a graph came back");
  gnn_graph_free(ctx, g);
  g = NULL;
  gnn_graph_opts nv5 = {0, 0, 0, 0, 5};
  st = gnn_graph_from_edges(ctx, 5, 6, src, dst, &nv5, &g);
  check(!st && g && g->nv == 5, "graph/from-edges-opts-same", "%s %s", gnn_status_name(st), gnn_last_error(ctx));
  gnn_graph_free(ctx, g);
  g = NULL;
  st = gnn_graph_from_edges(ctx, 0, 6, src, dst, &nv10, &g);
  check(!st && g && g->nv == 10, "graph/from-edges-opts-count", "%s %s nv %lld", gnn_status_name(st), gnn_last_error(ctx),
        g ? (long long)g->nv : -1LL);
  gnn_graph_free(ctx, g);
  g = NULL;
  /* a limit that the build passes midway: the arrays made so far are freed */
  gnn_set_memory_limit(ctx, 100);
  check_status(ctx, gnn_graph_from_edges(ctx, 5, 6, src, dst, NULL, &g), GNN_ERR_OOM, "graph/from-edges-limit",
               "would pass the context's memory limit of 100 bytes", NULL);
  gnn_set_memory_limit(ctx, 0);
  gnn_dataset *ds = (gnn_dataset *)&ds;
  check_status(ctx, gnn_dataset_load(ctx, NULL, NULL, &ds), GNN_ERR_INVALID, "dataset/null-dir", "out or dir is NULL", NULL);
  check_status(ctx, gnn_dataset_load(ctx, "tests/runtime/no-such-folder", NULL, &ds), GNN_ERR_IO, "dataset/no-folder",
               "tests/runtime/no-such-folder: error: cannot open: no such folder", NULL);
  check(ds == NULL, "dataset/out-cleared", "out is not NULL after a failure");
  check_status(ctx, gnn_graph_load(ctx, NULL, NULL, &g), GNN_ERR_INVALID, "graph/load-null-path", "out or path is NULL", NULL);
  gnn_mem_usage(ctx, &live1, NULL);
  check(live1 == live0, "graph/bad-input-no-leak", "%zu bytes live before, %zu after", live0, live1);
  /* no edges, vertices only: in_ptr all zero */
  st = gnn_graph_from_edges(ctx, 3, 0, NULL, NULL, NULL, &g);
  check(!st && g->ne == 0 && g->h_in_ptr[3] == 0 && g->max_in_deg == 0, "graph/no-edges", "%s", gnn_last_error(ctx));
  gnn_graph_free(ctx, g);

  /* a batch of graphs: one graph of every vertex until split; a bad split leaves it as it was */
  st = gnn_graph_from_edges(ctx, 5, 6, src, dst, NULL, &g);
  check(!st && g->ng == 1 && g->h_graph_ptr[0] == 0 && g->h_graph_ptr[1] == 5 && g->h_vertex_graph[4] == 0, "graph/one-graph",
        "%s", gnn_last_error(ctx));
  /* (the edges join vertices 0 to 3; vertex 4 has none: two graphs, {0..3} and {4}) */
  const int64_t gap[] = {0, 0, 2, 2, 2}, late[] = {0, 1, 1, 1, 1}, two[] = {0, 0, 0, 0, 1}, across[] = {0, 0, 1, 1, 1};
  check_status(ctx, gnn_graph_set_graphs(ctx, g, 3, gap), GNN_ERR_INVALID, "graph/set-graphs-gap", "vertex 2: graph id 2 after 0", NULL);
  const int64_t first1[] = {1, 1, 1, 2, 2}; /* the first id: named so (was "graph id 1 after -1") */
  check_status(ctx, gnn_graph_set_graphs(ctx, g, 3, first1), GNN_ERR_INVALID, "graph/set-graphs-first", "vertex 0: the first graph id is 1: the ids start at 0", NULL);
  check_status(ctx, gnn_graph_set_graphs(ctx, g, 3, late), GNN_ERR_INVALID, "graph/set-graphs-count",
               "the last vertex is in graph 1, but ng is 3", NULL);
  check_status(ctx, gnn_graph_set_graphs(ctx, g, 2, NULL), GNN_ERR_INVALID, "graph/set-graphs-null", "graph_of is NULL", NULL);
  /* an edge between two graphs of the batch (2 -> 0, the first in CSR order) carries messages across: refused, as
   * the folder loaders refuse it at graph.edges' line (Python's batch= was accepted) */
  check_status(ctx, gnn_graph_set_graphs(ctx, g, 2, across), GNN_ERR_INVALID, "graph/set-graphs-edge-across",
               "the edge 2 -> 0 joins two graphs: vertex 2 is in graph 1, vertex 0 in graph 0", NULL);
  /* graph_of holds nv ids: a buffer of the context's memory with 4 of the 5 was read past its end
   * (a gnn_malloc'd one in the host build; ASan: heap-buffer-overflow) */
  int64_t *short_of = NULL;
  st = gnn_malloc(ctx, (void **)&short_of, 4 * sizeof(int64_t));
  if (!st) st = gnn_upload(ctx, short_of, two, 4 * sizeof(int64_t));
  check(!st, "graph/set-graphs-short-setup", "%s", gnn_last_error(ctx));
  if (!st)
    check_status(ctx, gnn_graph_set_graphs(ctx, g, 2, short_of), GNN_ERR_INVALID, "graph/set-graphs-short",
                 "gnn_graph_set_graphs: graph_of: 40 bytes at offset 0 run past the end of a 32-byte allocation", NULL);
  gnn_free(ctx, short_of);
  check(g->ng == 1 && g->h_graph_ptr[1] == 5, "graph/set-graphs-unchanged", "ng %lld", (long long)g->ng);
  st = gnn_graph_set_graphs(ctx, g, 2, two);
  if (!st) {
    int64_t *dptr = from_dev(ctx, g->graph_ptr, 3 * 8);
    int32_t *dof = from_dev(ctx, g->vertex_graph, 5 * 4);
    float *dsize = from_dev(ctx, g->graph_size, 2 * 4);
    const int64_t want_ptr[] = {0, 4, 5}, want_of[] = {0, 0, 0, 0, 1};
    check(g->ng == 2 && same64(g->h_graph_ptr, want_ptr, 3) && same64(dptr, want_ptr, 3) && same32(g->h_vertex_graph, want_of, 5) &&
          same32(dof, want_of, 5) && dsize[0] == 4 && dsize[1] == 1, "graph/set-graphs", "ng %lld", (long long)g->ng);
    free(dptr), free(dof), free(dsize);
  } else {
    check(0, "graph/set-graphs", "%s", gnn_last_error(ctx));
  }
  gnn_graph_free(ctx, g);
}

/* ---------------------------------------------------------------- parameters */

static void test_param_init(void) {
  int64_t dims[2] = {1433, 16}, bdims[1] = {16};
  float *w = malloc(1433 * 16 * sizeof(float)), b[16];
  gnn_status st = gnn_param_init_glorot("gcnconv0.W", 2, dims, 1, w);
  double bound = sqrt(6.0 / (1433 + 16)), mx = 0, sum = 0;
  for (int i = 0; i < 1433 * 16; i++) mx = fmax(mx, fabs(w[i])), sum += w[i];
  check(!st && mx <= bound && mx > 0.99 * bound && fabs(sum / (1433 * 16)) < 0.01 * bound, "params/glorot-bound",
        "max %g bound %g mean %g", mx, bound, sum / (1433 * 16));
  int zeros = 1;
  st = gnn_param_init_glorot("gcnconv0.b", 1, bdims, 1, b);
  for (int i = 0; i < 16; i++) zeros &= b[i] == 0;
  check(!st && zeros, "params/glorot-bias-zero", "a rank-1 parameter is not zero");
  float u[16];
  st = gnn_param_init_uniform("gcnconv0.b", 1, bdims, 1, u);
  int in_range = 1, differ = 0;
  for (int i = 0; i < 16; i++) in_range &= u[i] >= -1 && u[i] < 1, differ |= u[i] != u[0];
  check(!st && in_range && differ, "params/uniform", "values outside [-1, 1) or all equal");
  float w2[4], w3[4];
  int64_t d2[2] = {2, 2};
  gnn_param_init_glorot("a", 2, d2, 1, w2);
  gnn_param_init_glorot("b", 2, d2, 1, w3);
  check(memcmp(w2, w3, sizeof w2) != 0, "params/streams-by-name", "two names gave the same values");
  int64_t neg[2] = {2, -1};
  check(gnn_param_init_glorot("a", 2, neg, 1, w2) == GNN_ERR_INVALID && gnn_param_init_glorot("a", 5, dims, 1, w) ==
        GNN_ERR_INVALID, "params/bad-shape", "accepted");
  free(w);
}

/* The interpreter's file against our initialiser, every value: parsed here with fscanf
 * (independently of the tensor reader), and again through the reader. */
static int params_vs_interpreter(const char *path, const char *init, uint64_t seed) {
  gnn_ctx *ctx = NULL;
  gnn_ctx_create(&ctx, 0);
  FILE *f = fopen(path, "r");
  check(f != NULL, "params/open", "cannot open %s", path);
  gnn_tensor_file *tf = NULL;
  gnn_status st = gnn_tensor_file_read(ctx, path, &tf);
  check(!st, "params/reader", "%s", gnn_last_error(ctx));
  char name[256];
  long rows;
  int rank, ntensors = 0;
  /* gnnc run writes the runtime's checksum line first (version 2): the fscanf walk skips it */
  int c = f ? fgetc(f) : EOF;
  if (c == '#')
    while ((c = fgetc(f)) != EOF && c != '\n') {}
  else if (c != EOF)
    ungetc(c, f);
  while (f && fscanf(f, " tensor %255s %ld %d", name, &rows, &rank) == 3) {
    int64_t dims[4] = {0, 0, 0, 0}, n = 1;
    for (int k = 0; k < rank; k++) {
      long long d = 0;
      if (fscanf(f, "%lld", &d) != 1) d = -1;
      dims[k] = d;
      n *= d;
    }
    float *mine = malloc((size_t)n * sizeof(float)), *via_reader = malloc((size_t)n * sizeof(float));
    st = strcmp(init, "uniform") == 0 ? gnn_param_init_uniform(name, rank, dims, seed, mine)
                                      : gnn_param_init_glorot(name, rank, dims, seed, mine);
    int64_t bad = -1;
    double theirs = 0;
    for (int64_t k = 0; k < n; k++) {
      if (fscanf(f, "%lf", &theirs) != 1) theirs = NAN;
      if (bad < 0 && (float)theirs != mine[k]) bad = k;
    }
    char cname[300];
    snprintf(cname, sizeof cname, "params/%s/%s", init, name);
    check(!st && bad < 0, cname, "value %lld: interpreter %.17g -> %.9g, runtime %.9g", (long long)bad, theirs,
          (double)(float)theirs, bad >= 0 ? (double)mine[bad] : 0.0);
    snprintf(cname, sizeof cname, "params/%s/%s/reader", init, name);
    st = tf ? gnn_tensor_file_get(ctx, tf, name, rank, dims, via_reader) : GNN_ERR_INVALID;
    check(!st && memcmp(mine, via_reader, (size_t)n * sizeof(float)) == 0, cname, "%s", gnn_last_error(ctx));
    free(mine);
    free(via_reader);
    ntensors++;
  }
  check(ntensors > 0 && f && feof(f), "params/whole-file", "%d tensors, stopped before the end", ntensors);
  if (f) fclose(f);
  gnn_tensor_file_free(tf);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}

/* Reads a tensor file and writes it back with gnn_tensor_file_write. */
static int roundtrip(const char *in, const char *out) {
  gnn_ctx *ctx = NULL;
  gnn_ctx_create(&ctx, 0);
  gnn_tensor_file *tf = NULL;
  gnn_status st = gnn_tensor_file_read(ctx, in, &tf);
  int n = gnn_tensor_file_count(tf);
  const char **names = calloc((size_t)n + 1, sizeof *names);
  int *ranks = calloc((size_t)n + 1, sizeof *ranks);
  int64_t(*dims)[4] = calloc((size_t)n + 1, sizeof *dims);
  float **data = calloc((size_t)n + 1, sizeof *data);
  for (int i = 0; i < n && !st; i++) {
    gnn_tensor_file_info(tf, i, &names[i], &ranks[i], dims[i]);
    int64_t e = 1;
    for (int k = 0; k < ranks[i]; k++) e *= dims[i][k];
    data[i] = malloc((size_t)e * sizeof(float) + 1);
    st = gnn_tensor_file_get(ctx, tf, names[i], ranks[i], dims[i], data[i]);
  }
  if (!st) st = gnn_tensor_file_write(ctx, out, n, names, ranks, (const int64_t(*)[4])dims, (const float *const *)data);
  check(!st && n > 0, "tensors/roundtrip", "%s", gnn_last_error(ctx));
  for (int i = 0; i < n; i++) free(data[i]);
  free(names), free(ranks), free(dims), free(data);
  gnn_tensor_file_free(tf);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

static void test_tensor_files(gnn_ctx *ctx) {
  const char *tmp = getenv("TMP") ? getenv("TMP") : "/tmp";
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/t_api.XXXXXX", tmp);
  if (!mkdtemp(dir)) {
    check(0, "tensors/tmpdir", "mkdtemp %s failed", dir);
    return;
  }
  snprintf(path, sizeof path, "%s/p.txt", dir);
  float W[12], bias[4], s[1] = {-0.0f};
  uint64_t key = 99;
  for (int i = 0; i < 12; i++) W[i] = urand(&key, -3, 3);
  W[0] = 1e-40f, W[1] = FLT_MAX, W[2] = FLT_MIN, W[3] = 1.0f / 3, W[4] = -FLT_TRUE_MIN;
  for (int i = 0; i < 4; i++) bias[i] = (float)i * 0.1f;
  const char *names[] = {"layer0.W", "layer0.b", "scale"};
  const int ranks[] = {2, 1, 0};
  const int64_t dims[][4] = {{3, 4}, {4}, {0}};
  const float *data[] = {W, bias, s};
  gnn_status st = gnn_tensor_file_write(ctx, path, 3, names, ranks, dims, data);
  check(!st && count_files(dir) == 1, "tensors/write", "%s (%d files in the folder)", gnn_last_error(ctx), count_files(dir));
  gnn_tensor_file *tf = NULL;
  st = gnn_tensor_file_read(ctx, path, &tf);
  float W2[12], b2[4], s2[1] = {1};
  const char *name = NULL;
  int rank = -1;
  int64_t d4[4];
  int ok = !st && gnn_tensor_file_count(tf) == 3 && !gnn_tensor_file_info(tf, 0, &name, &rank, d4) &&
           !strcmp(name, "layer0.W") && rank == 2 && d4[0] == 3 && d4[1] == 4 && d4[2] == 0 &&
           !gnn_tensor_file_get(ctx, tf, "layer0.W", 2, dims[0], W2) && !gnn_tensor_file_get(ctx, tf, "layer0.b", 1, dims[1], b2) &&
           !gnn_tensor_file_get(ctx, tf, "scale", 0, dims[2], s2);
  check(ok && !memcmp(W, W2, sizeof W) && !memcmp(bias, b2, sizeof bias) && !memcmp(s, s2, sizeof s), "tensors/read-back-exact",
        "%s", gnn_last_error(ctx));
  const int64_t wrong[] = {4, 3};
  check_status(ctx, gnn_tensor_file_get(ctx, tf, "layer0.W", 2, wrong, W2), GNN_ERR_INVALID, "tensors/shape-mismatch",
               /* line 2: the checksum line "#gnn-tensors ..." is line 1 of a file the runtime writes */
               "p.txt:2: error: tensor 'layer0.W' has shape [3, 4], expected [4, 3]", NULL);
  check_status(ctx, gnn_tensor_file_get(ctx, tf, "nope", 1, dims[1], b2), GNN_ERR_INVALID, "tensors/missing",
               "p.txt: error: no tensor 'nope'", NULL);
  /* out in the context's memory, shorter than the tensor: 8 floats for layer0.W's 12 were written
   * past (host build; ASan: heap-buffer-overflow); the caller's own memory passes unchecked */
  float *short_out = NULL;
  if (gnn_malloc(ctx, (void **)&short_out, 8 * sizeof(float)) == GNN_OK) {
    check_status(ctx, gnn_tensor_file_get(ctx, tf, "layer0.W", 2, dims[0], short_out), GNN_ERR_INVALID, "tensors/get-short-out",
                 "gnn_tensor_file_get: out: 48 bytes at offset 0 run past the end of a 32-byte allocation", NULL);
    check_status(ctx, gnn_tensor_file_get_rows(ctx, tf, "layer0.W", 1, 2, dims[0], short_out + 1), GNN_ERR_INVALID,
                 "tensors/get-rows-short-out", "gnn_tensor_file_get_rows: out: 48 bytes at offset 4 run past the end", NULL);
    gnn_free(ctx, short_out);
  } else check(0, "tensors/get-short-out", "%s", gnn_last_error(ctx));
  check_status(ctx, gnn_tensor_file_expect(ctx, tf, 2, names), GNN_ERR_INVALID, "tensors/unexpected",
               "tensor 'scale' is not a parameter of the model", NULL);
  check(gnn_tensor_file_expect(ctx, tf, 3, names) == GNN_OK, "tensors/expected", "%s", gnn_last_error(ctx));
  gnn_tensor_file_free(tf);
  /* Refused writes leave nothing behind. */
  float nan_data[1] = {NAN};
  const float *nd[] = {nan_data};
  const int r1[] = {1};
  const int64_t d1[][4] = {{1}};
  const char *bad_name[] = {"a b"}, *ok_name[] = {"x"};
  snprintf(path, sizeof path, "%s/bad.txt", dir);
  check_status(ctx, gnn_tensor_file_write(ctx, path, 1, ok_name, r1, d1, nd), GNN_ERR_NUMERIC, "tensors/write-nan",
               "tensor 'x': value 0 is not finite", NULL);
  check_status(ctx, gnn_tensor_file_write(ctx, path, 1, bad_name, r1, d1, data), GNN_ERR_INVALID, "tensors/write-bad-name",
               "without blanks", NULL);
  snprintf(path, sizeof path, "%s/no/such/dir/p.txt", dir);
  check_status(ctx, gnn_tensor_file_write(ctx, path, 1, ok_name, r1, d1, data), GNN_ERR_IO, "tensors/write-no-dir",
               "cannot write", NULL);
  check(count_files(dir) == 1, "tensors/nothing-left-behind", "%d files", count_files(dir));
  /* A FIFO (as /dev/null or /dev/stdout: not a regular file) is written in place: a temporary
   * renamed over it replaced the node with a plain file (as root; /dev/null so became a file
   * every later redirection wrote into) or failed. A child reads the FIFO into fifo.out. */
  char fifo[600], got[600];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  snprintf(got, sizeof got, "%s/fifo.out", dir);
  if (mkfifo(fifo, 0600) == 0) {
    pid_t child = fork();
    if (child == 0) {
      alarm(20); /* a writer that renamed over the FIFO never opens it: no hang */
      FILE *in = fopen(fifo, "rb"), *out = fopen(got, "wb");
      int c;
      while (in && out && (c = fgetc(in)) != EOF) fputc(c, out);
      _exit(in && out && fclose(out) == 0 ? 0 : 1);
    }
    st = gnn_tensor_file_write(ctx, fifo, 1, ok_name, r1, d1, data);
    int wst = 0;
    waitpid(child, &wst, 0);
    struct stat sb;
    char head[160] = {0};
    FILE *g = fopen(got, "rb");
    if (g) (void)!fread(head, 1, sizeof head - 1, g), fclose(g);
    check(!st && lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode) && WIFEXITED(wst) && WEXITSTATUS(wst) == 0 &&
              strncmp(head, "#gnn-tensors version 2 ", 23) == 0 && strstr(head, "tensor x 1 1 1"),
          "tensors/write-fifo-in-place", "%s (status %d; read '%.40s')", st ? gnn_last_error(ctx) : "", wst, head);
    check(count_files(dir) == 3, "tensors/write-fifo-no-temporary", "%d files", count_files(dir));
    unlink(got);
    unlink(fifo);
  } else {
    check(0, "tensors/write-fifo-in-place", "mkfifo %s: %s", fifo, strerror(errno));
  }
  snprintf(path, sizeof path, "%s/p.txt", dir);
  unlink(path);
  rmdir(dir);
}

/* ---------------------------------------------------------------- softmax cross-entropy */

/* The float64 reference: mean over counted rows of lse - x[y]; grad (softmax - onehot)/count. */
static double ref_xent(const double *x, const int32_t *y, const uint8_t *mask, int n, int C, double *grad) {
  int count = 0;
  double loss = 0;
  for (int i = 0; i < n; i++) count += (!mask || mask[i]) && y[i] >= 0;
  for (int i = 0; i < n * C && grad; i++) grad[i] = 0;
  for (int i = 0; i < n; i++) {
    if ((mask && !mask[i]) || y[i] < 0) continue;
    double mx = x[i * C], s = 0;
    for (int c = 1; c < C; c++) mx = fmax(mx, x[i * C + c]);
    for (int c = 0; c < C; c++) s += exp(x[i * C + c] - mx);
    loss += mx + log(s) - x[i * C + y[i]];
    for (int c = 0; c < C && grad; c++) grad[i * C + c] = (exp(x[i * C + c] - mx) / s - (c == y[i])) / count;
  }
  return loss / count;
}

static void test_xent(gnn_ctx *ctx) {
  enum { n = 37, C = 5 };
  float x[n * C];
  double xd[n * C], rg[n * C];
  int32_t y[n];
  uint8_t mask[n];
  uint64_t key = 5;
  for (int i = 0; i < n * C; i++) xd[i] = x[i] = urand(&key, -3, 3);
  for (int i = 0; i < n; i++) {
    y[i] = (int32_t)(gnn_rng_bits(3, 3, (uint64_t)i) % (C + 1)) - 1; /* -1 .. C-1 */
    mask[i] = i % 3 != 0;
  }
  float *dx = to_dev(ctx, x, sizeof x), *dg = NULL;
  int32_t *dy = to_dev(ctx, y, sizeof y);
  uint8_t *dm = to_dev(ctx, mask, sizeof mask);
  gnn_malloc(ctx, (void **)&dg, sizeof x);
  float loss = -1;
  gnn_status st = gnn_softmax_xent(ctx, dx, dy, dm, n, C, &loss, dg);
  double rl = ref_xent(xd, y, mask, n, C, rg);
  check(!st && fabs(loss - rl) <= 1e-6 * fmax(1, fabs(rl)), "xent/loss-vs-float64", "%s: loss %.9g, reference %.9g (%s)",
        gnn_status_name(st), (double)loss, rl, gnn_last_error(ctx));
  float *g = from_dev(ctx, dg, sizeof x);
  double worst = 0, worst_fd = 0;
  int zero_rows = 1;
  for (int i = 0; i < n * C; i++) worst = fmax(worst, fabs(g[i] - rg[i]));
  for (int i = 0; i < n; i++)
    for (int c = 0; c < C && (!mask[i] || y[i] < 0); c++) zero_rows &= g[i * C + c] == 0.0f;
  check(!st && worst < 1e-6, "xent/grad-vs-float64", "max difference %g", worst);
  check(!st && zero_rows, "xent/grad-zero-outside", "rows outside the mask or with label -1 have a gradient");
  /* Central differences of the float64 loss (h = 1e-5): truncation ~1e-10. */
  for (int i = 0; i < n * C; i++) {
    double keep = xd[i], h = 1e-5;
    xd[i] = keep + h;
    double lp = ref_xent(xd, y, mask, n, C, NULL);
    xd[i] = keep - h;
    double lm = ref_xent(xd, y, mask, n, C, NULL);
    xd[i] = keep;
    worst_fd = fmax(worst_fd, fabs((lp - lm) / (2 * h) - g[i]));
  }
  check(worst_fd < 1e-6, "xent/grad-vs-finite-differences", "max difference %g", worst_fd);
  /* Central differences of the runtime's own float32 loss, on rows 1 and 2 (h = 1e-2). */
  double worst_own = 0;
  for (int i = C; i < 3 * C; i++) {
    float keep = x[i], lp = 0, lm = 0;
    x[i] = keep + 1e-2f;
    gnn_upload(ctx, dx, x, sizeof x);
    gnn_softmax_xent(ctx, dx, dy, dm, n, C, &lp, NULL);
    x[i] = keep - 1e-2f;
    gnn_upload(ctx, dx, x, sizeof x);
    gnn_softmax_xent(ctx, dx, dy, dm, n, C, &lm, NULL);
    x[i] = keep;
    worst_own = fmax(worst_own, fabs((double)(lp - lm) / (double)((keep + 1e-2f) - (keep - 1e-2f)) - g[i]));
  }
  gnn_upload(ctx, dx, x, sizeof x);
  check(worst_own < 1e-4, "xent/grad-vs-own-finite-differences", "max difference %g", worst_own);
  float loss2 = -1;
  st = gnn_softmax_xent(ctx, dx, dy, NULL, n, C, &loss2, NULL);
  rl = ref_xent(xd, y, NULL, n, C, NULL);
  check(!st && fabs(loss2 - rl) <= 1e-6 * fmax(1, fabs(rl)), "xent/no-mask", "loss %.9g, reference %.9g", (double)loss2, rl);
  free(g);

  /* Large logits: log-sum-exp keeps them finite. */
  float big[3] = {1000, 0, -1000}, bg[3];
  int32_t by[1] = {1};
  float *dbig = to_dev(ctx, big, sizeof big), *dbg = NULL;
  int32_t *dby = to_dev(ctx, by, sizeof by);
  gnn_malloc(ctx, (void **)&dbg, sizeof bg);
  st = gnn_softmax_xent(ctx, dbig, dby, NULL, 1, 3, &loss, dbg);
  gnn_download(ctx, bg, dbg, sizeof bg);
  check(!st && fabs(loss - 1000) < 1e-3 && fabs(bg[0] - 1) < 1e-6 && fabs(bg[1] + 1) < 1e-6 && bg[2] == 0, "xent/large-logits",
        "%s loss %g grad %g %g %g", gnn_status_name(st), (double)loss, (double)bg[0], (double)bg[1], (double)bg[2]);

  /* Rows of 64, 65 and 130 classes: the host keeps a row's exps on the stack up to 64 classes
   * and recomputes them past that (train_host.c, XENT_ROW); both agree with the reference. */
  {
    enum { wn = 9, wmax = 130 };
    static const int widths[3] = {64, 65, 130};
    for (int w = 0; w < 3; w++) {
      const int wc = widths[w];
      float wx[wn * wmax], wg[wn * wmax];
      double wxd[wn * wmax], wrg[wn * wmax];
      int32_t wy[wn];
      for (int i = 0; i < wn * wc; i++) wxd[i] = wx[i] = urand(&key, -4, 4);
      for (int i = 0; i < wn; i++) wy[i] = (int32_t)(gnn_rng_bits(4, (uint32_t)wc, (uint64_t)i) % (uint64_t)wc);
      float *dwx = to_dev(ctx, wx, sizeof(float) * (size_t)(wn * wc)), *dwg = NULL;
      int32_t *dwy = to_dev(ctx, wy, sizeof wy);
      gnn_malloc(ctx, (void **)&dwg, sizeof(float) * (size_t)(wn * wc));
      float wl = -1;
      st = gnn_softmax_xent(ctx, dwx, dwy, NULL, wn, wc, &wl, dwg);
      gnn_download(ctx, wg, dwg, sizeof(float) * (size_t)(wn * wc));
      double wr = ref_xent(wxd, wy, NULL, wn, wc, wrg), wworst = 0;
      for (int i = 0; i < wn * wc; i++) wworst = fmax(wworst, fabs(wg[i] - wrg[i]));
      char wname[40];
      snprintf(wname, sizeof wname, "xent/classes-%d", wc);
      check(!st && fabs(wl - wr) <= 1e-5 * fmax(1, fabs(wr)) && wworst < 1e-6, wname, "%s: loss %.9g, reference %.9g, gradients %g off",
            gnn_status_name(st), (double)wl, wr, wworst);
      gnn_free(ctx, dwx), gnn_free(ctx, dwy), gnn_free(ctx, dwg);
    }
  }

  /* Errors. */
  uint8_t none[n];
  memset(none, 0, sizeof none);
  uint8_t *dnone = to_dev(ctx, none, sizeof none);
  check_status(ctx, gnn_softmax_xent(ctx, dx, dy, dnone, n, C, &loss, dg), GNN_ERR_INVALID, "xent/no-rows", "no rows", NULL);
  int32_t y2[n];
  memcpy(y2, y, sizeof y);
  y2[4] = C; /* row 4 is inside the mask */
  gnn_upload(ctx, dy, y2, sizeof y2);
  check_status(ctx, gnn_softmax_xent(ctx, dx, dy, dm, n, C, &loss, dg), GNN_ERR_INVALID, "xent/label-too-large",
               "row 4 has label 5", NULL);
  y2[4] = -2;
  gnn_upload(ctx, dy, y2, sizeof y2);
  check_status(ctx, gnn_softmax_xent(ctx, dx, dy, dm, n, C, &loss, dg), GNN_ERR_INVALID, "xent/label-negative",
               "row 4 has label -2", NULL);
  y2[4] = 1;
  gnn_upload(ctx, dy, y2, sizeof y2);
  float x2[n * C];
  memcpy(x2, x, sizeof x);
  x2[4 * C + 2] = NAN;
  gnn_upload(ctx, dx, x2, sizeof x2);
  check_status(ctx, gnn_softmax_xent(ctx, dx, dy, dm, n, C, &loss, dg), GNN_ERR_NUMERIC, "xent/nan", "row 4", NULL);
  x2[4 * C + 2] = INFINITY;
  gnn_upload(ctx, dx, x2, sizeof x2);
  check_status(ctx, gnn_softmax_xent(ctx, dx, dy, dm, n, C, &loss, dg), GNN_ERR_NUMERIC, "xent/inf", "not finite", NULL);
  gnn_free(ctx, dx), gnn_free(ctx, dy), gnn_free(ctx, dm), gnn_free(ctx, dg), gnn_free(ctx, dnone);
  gnn_free(ctx, dbig), gnn_free(ctx, dby), gnn_free(ctx, dbg);
}

/* ---------------------------------------------------------------- accuracy */

static void test_accuracy(gnn_ctx *ctx) {
  /* row 0 right; row 1 a tie resolved to index 0 (wrong); row 2 right but masked out; row 3
   * unknown; row 4 a three-way tie resolved to 0 (right). */
  const float x[] = {1, 3, 2, 2, 2, 1, 0, 0, 5, 4, 1, 1, 1, 1, 1};
  const int32_t y[] = {1, 1, 2, -1, 0};
  const uint8_t mask[] = {1, 1, 0, 1, 1};
  float *dx = to_dev(ctx, x, sizeof x);
  int32_t *dy = to_dev(ctx, y, sizeof y);
  uint8_t *dm = to_dev(ctx, mask, sizeof mask);
  double acc = -1, acc2 = -1;
  gnn_status st = gnn_accuracy(ctx, dx, dy, dm, 5, 3, &acc);
  check(!st && fabs(acc - 2.0 / 3) < 1e-12, "accuracy/mask-and-ties", "%s %g", gnn_status_name(st), acc);
  st = gnn_accuracy(ctx, dx, dy, NULL, 5, 3, &acc2);
  check(!st && fabs(acc2 - 0.75) < 1e-12, "accuracy/no-mask", "%s %g", gnn_status_name(st), acc2);
  /* More classes than a warp: the argmax across lanes, first index on ties (40 before 65). */
  float wide[2 * 70];
  for (int c = 0; c < 70; c++) wide[c] = wide[70 + c] = (float)(c % 7);
  wide[40] = wide[65] = 9;
  wide[70 + 69] = 9;
  const int32_t wy[] = {40, 69};
  float *dw = to_dev(ctx, wide, sizeof wide);
  int32_t *dwy = to_dev(ctx, wy, sizeof wy);
  st = gnn_accuracy(ctx, dw, dwy, NULL, 2, 70, &acc);
  check(!st && acc == 1.0, "accuracy/wide-rows", "%s %g", gnn_status_name(st), acc);
  const int32_t wy2[] = {65, 69};
  gnn_upload(ctx, dwy, wy2, sizeof wy2);
  st = gnn_accuracy(ctx, dw, dwy, NULL, 2, 70, &acc);
  check(!st && acc == 0.5, "accuracy/wide-tie-first-index", "%s %g", gnn_status_name(st), acc);
  /* A NaN logit: no prediction, the row counts as wrong, wherever the NaN is (before the
   * maximum, after it, in the first column, in another lane). */
  const int nan_cols[] = {0, 39, 41, 69};
  for (int i = 0; i < 4; i++) {
    float wn[2 * 70];
    memcpy(wn, wide, sizeof wn);
    wn[nan_cols[i]] = NAN;
    gnn_upload(ctx, dw, wn, sizeof wn);
    gnn_upload(ctx, dwy, wy, sizeof wy);
    st = gnn_accuracy(ctx, dw, dwy, NULL, 2, 70, &acc);
    check(!st && acc == 0.5, "accuracy/nan-row-wrong", "NaN at column %d: %s %g", nan_cols[i], gnn_status_name(st), acc);
  }
  const uint8_t none[5] = {0, 0, 0, 0, 0};
  gnn_upload(ctx, dm, none, sizeof none);
  check_status(ctx, gnn_accuracy(ctx, dx, dy, dm, 5, 3, &acc), GNN_ERR_INVALID, "accuracy/no-rows", "no rows", NULL);
  gnn_free(ctx, dx), gnn_free(ctx, dy), gnn_free(ctx, dm), gnn_free(ctx, dw), gnn_free(ctx, dwy);
}

/* ---------------------------------------------------------------- optimisers */

static void test_sgd(gnn_ctx *ctx) {
  const float p[] = {1, -2, 3}, g[] = {0.5f, 0.5f, -1};
  /* p - 0.1 (g + 0.01 p): 1 - 0.1 * 0.51, -2 - 0.1 * 0.48, 3 - 0.1 * (-0.97) */
  const double want[] = {0.949, -2.048, 3.097};
  float *dp = to_dev(ctx, p, sizeof p), *dg = to_dev(ctx, g, sizeof g), r[3];
  gnn_status st = gnn_sgd_step(ctx, dp, dg, 3, 0.1f, 0.01f);
  gnn_download(ctx, r, dp, sizeof r);
  double worst = 0;
  for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(r[i] - want[i]));
  check(!st && worst < 1e-6, "sgd/hand-computed", "%s max error %g", gnn_status_name(st), worst);
  check_status(ctx, gnn_sgd_step(ctx, dp, dg, 3, NAN, 0), GNN_ERR_INVALID, "sgd/bad-lr", "bad arguments", NULL);
  gnn_free(ctx, dp), gnn_free(ctx, dg);
}

static void test_adam(gnn_ctx *ctx) {
  /* lr 0.01, betas 0.9 0.999, eps 1e-8, weight decay 0.1. Element 0, step 1, by hand:
   * g = 0.5 + 0.1 * 1 = 0.6; m = 0.06; v = 0.001 * 0.36 = 3.6e-4; step size 0.01 / (1 - 0.9)
   * = 0.1; denominator sqrt(3.6e-4) / sqrt(0.001) + 1e-8 = 0.6 + 1e-8; p = 1 - 0.1 * 0.06 /
   * 0.60000001 = 0.99000000017. Element 3 shows eps: g = 1e-3, v = 1e-9, denominator 1e-3 +
   * 1e-8, p = -0.0099999. Step 2 was computed the same way (in float64). The moments are
   * compared relatively, to 1e-4: 1 - 0.999f is 1.0000467e-3 in float32, not 1e-3. */
  const float p0[] = {1, -0.5f, 2, 0}, g1[] = {0.5f, -0.25f, 0, 1e-3f}, g2[] = {-0.5f, 0.1f, 0.3f, 1e-3f};
  const double p1[] = {0.99, -0.49, 1.99, -0.0099999}, m1[] = {0.06, -0.03, 0.02, 1e-4}, v1[] = {3.6e-4, 9e-5, 4e-5, 1e-9};
  const double p2[] = {0.988566222, -0.484642031, 1.98060054, -0.0167004622};
  const double m2[] = {0.0139, -0.0219, 0.0679, 9.0001e-05}, v2[] = {0.000520441, 9.2511e-05, 0.000288961, 9.99e-10};
  float *dp = to_dev(ctx, p0, sizeof p0), *dg = to_dev(ctx, g1, sizeof g1), *dm = NULL, *dv = NULL;
  gnn_malloc(ctx, (void **)&dm, sizeof p0);
  gnn_malloc(ctx, (void **)&dv, sizeof p0);
  gnn_memset0(ctx, dm, sizeof p0);
  gnn_memset0(ctx, dv, sizeof p0);
  float r[4], rm[4], rv[4];
  for (int step = 1; step <= 2; step++) {
    if (step == 2) gnn_upload(ctx, dg, g2, sizeof g2);
    gnn_status st = gnn_adam_step(ctx, dp, dg, dm, dv, 4, 0.01f, 0.9f, 0.999f, 1e-8f, 0.1f, step);
    gnn_download(ctx, r, dp, sizeof r);
    gnn_download(ctx, rm, dm, sizeof rm);
    gnn_download(ctx, rv, dv, sizeof rv);
    const double *wp = step == 1 ? p1 : p2, *wm = step == 1 ? m1 : m2, *wv = step == 1 ? v1 : v2;
    double worst = 0;
    for (int i = 0; i < 4; i++)
      worst = fmax(worst, fmax(fabs(r[i] - wp[i]), 0.02 * fmax(fabs(rm[i] / wm[i] - 1), fabs(rv[i] / wv[i] - 1))));
    char name[48];
    snprintf(name, sizeof name, "adam/hand-computed-step-%d", step);
    check(!st && worst < 2e-6, name, "%s max error %g (p %.9g %.9g %.9g %.9g)", gnn_status_name(st), worst, (double)r[0],
          (double)r[1], (double)r[2], (double)r[3]);
  }
  check_status(ctx, gnn_adam_step(ctx, dp, dg, dm, dv, 4, 0.01f, 0.9f, 0.999f, 1e-8f, 0, 0), GNN_ERR_INVALID, "adam/step-0",
               "step = 0", NULL);
  check_status(ctx, gnn_adam_step(ctx, dp, dg, dm, dv, 4, 0.01f, 1.0f, 0.999f, 1e-8f, 0, 1), GNN_ERR_INVALID,
               "adam/beta-1", "bad arguments", NULL);
  gnn_free(ctx, dp), gnn_free(ctx, dg), gnn_free(ctx, dm), gnn_free(ctx, dv);
}

/* ---------------------------------------------------------------- dropout masks, NVRTC */

static void test_dropout(void) {
  enum { N = 100000 };
  uint8_t *m = malloc(N), *m2 = malloc(N);
  gnn_status st = gnn_dropout_mask_host(42, 3, N, 0.3f, m);
  int same = 1;
  long kept = 0;
  for (int i = 0; i < N; i++) same &= m[i] == gnn_dropout_keep(42, 3, (uint64_t)i, 0.3f), kept += m[i];
  check(!st && same, "dropout/matches-rng-header", "mask differs from gnn_dropout_keep");
  check(kept > 0.69 * N && kept < 0.71 * N, "dropout/keep-rate", "kept %ld of %d at p = 0.3", kept, N);
  gnn_dropout_mask_host(42, 4, N, 0.3f, m2);
  check(memcmp(m, m2, N) != 0, "dropout/streams-differ", "streams 3 and 4 gave the same mask");
  gnn_dropout_mask_host(42, 3, N, 0.0f, m);
  long all = 0;
  for (int i = 0; i < N; i++) all += m[i];
  check(all == N && gnn_dropout_mask_host(1, 0, 4, 1.0f, m) == GNN_ERR_INVALID &&
            gnn_dropout_mask_host(1, 0, 4, NAN, m) == GNN_ERR_INVALID,
        "dropout/p-range", "p = 0 kept %ld of %d, or p = 1 / NaN accepted", all, N);
  free(m), free(m2);
}

static void test_nvrtc_host(gnn_ctx *ctx) {
  if (gnn_ctx_is_cuda(ctx)) return; /* t_nvrtc tests the real thing */
  char err[256] = "";
  char *ptx = (char *)1;
  size_t len = 1;
  gnn_status st = gnn_nvrtc_compile("__global__ void k() {}", "k.cu", "compute_80", &ptx, &len, err, sizeof err);
  check(st == GNN_ERR_UNSUPPORTED && ptx == NULL && len == 0 && strstr(err, "not available"), "nvrtc/host-unsupported",
        "%s '%s'", gnn_status_name(st), err);
  gnn_module *mod = (gnn_module *)1;
  check_status(ctx, gnn_nvrtc_load(ctx, "", 0, NULL, NULL, &mod), GNN_ERR_UNSUPPORTED, "nvrtc/host-load-unsupported",
               "libgnnrt_host", NULL);
}

/* ---------------------------------------------------------------- operand spans */

/* Every entry point that takes device arrays and their sizes checks each operand against the
 * context's allocation table before touching it (as gnn_upload does): a size larger than the
 * buffer is GNN_ERR_INVALID naming the operand, never a write past it; a size whose bytes
 * overflow is refused whatever the pointer. Spans that start outside every allocation but run
 * into one are refused too; one that starts exactly at an allocation's end and touches none passes. */
static void test_operand_spans(gnn_ctx *ctx) {
  float h[16] = {0};
  int32_t lab[4] = {0, 1, 2, 3};
  float *x = to_dev(ctx, h, sizeof h), *y = to_dev(ctx, h, sizeof h), *dl = to_dev(ctx, h, sizeof h);
  int32_t *dlab = to_dev(ctx, lab, sizeof lab);
  int64_t src[5] = {0, 1, 2, 3, 0}, dst[5] = {1, 2, 3, 0, 0};
  gnn_graph *g = NULL;
  gnn_status st = gnn_graph_from_edges(ctx, 4, 5, src, dst, NULL, &g);
  check(!st && x && y && dl && dlab, "spans/setup", "%s", gnn_last_error(ctx));
  if (st || !x || !y || !dl || !dlab) return;
  float loss;
  double acc;
  check_status(ctx, gnn_spmm(ctx, g, GNN_SPMM_IN_EDGES, x, NULL, y, 8), GNN_ERR_INVALID, "spans/spmm-x",
               "gnn_spmm: x: 128 bytes at offset 0 run past the end of a 64-byte allocation", NULL);
  check_status(ctx, gnn_spmm(ctx, g, GNN_SPMM_IN_EDGES, x, NULL, y + 1, 4), GNN_ERR_INVALID, "spans/spmm-y",
               "gnn_spmm: y: 64 bytes at offset 4", NULL);
  check_status(ctx, gnn_spmm(ctx, g, GNN_SPMM_OUT_EDGES, x, x + 12, y, 4), GNN_ERR_INVALID, "spans/spmm-w",
               "gnn_spmm: w: 20 bytes at offset 48", NULL);
  check_status(ctx, gnn_spmm(ctx, g, GNN_SPMM_IN_EDGES, x, NULL, y, (int64_t)1 << 62), GNN_ERR_INVALID,
               "spans/spmm-overflow", "gnn_spmm: x: 4 x 4611686018427387904 elements of 4 bytes do not fit", NULL);
  check_status(ctx, gnn_sgemm(ctx, 0, 0, 40, 4, 4, 1, x, 4, y, 4, 0, dl, 4), GNN_ERR_INVALID, "spans/sgemm-A",
               "gnn_sgemm: A: 640 bytes at offset 0", NULL);
  check_status(ctx, gnn_sgemm(ctx, 0, 1, 4, 4, 5, 1, x, 5, y, 5, 0, dl, 4), GNN_ERR_INVALID, "spans/sgemm-A-stride",
               "gnn_sgemm: A: 80 bytes", NULL);
  check_status(ctx, gnn_sgemm(ctx, 0, 0, 4, 4, 4, 1, x, 4, y, 4, 0, dl, 5), GNN_ERR_INVALID, "spans/sgemm-C-ldc",
               "gnn_sgemm: C: 76 bytes", NULL);
  check_status(ctx, gnn_sgemm(ctx, 1, 0, 4, 4, 4, 1, x, 4, y + 1, 4, 0, dl, 4), GNN_ERR_INVALID, "spans/sgemm-B",
               "gnn_sgemm: B: 64 bytes at offset 4", NULL);
  check_status(ctx, gnn_softmax_xent(ctx, x, dlab, NULL, 4, (int64_t)1 << 62, &loss, dl), GNN_ERR_INVALID,
               "spans/xent-overflow", "gnn_softmax_xent: logits: 4 x 4611686018427387904", NULL);
  check_status(ctx, gnn_softmax_xent(ctx, x, dlab, NULL, 4, 8, &loss, NULL), GNN_ERR_INVALID, "spans/xent-logits",
               "gnn_softmax_xent: logits: 128 bytes", NULL);
  check_status(ctx, gnn_softmax_xent(ctx, x, dlab, NULL, 16, 1, &loss, NULL), GNN_ERR_INVALID, "spans/xent-labels",
               "gnn_softmax_xent: labels: 64 bytes at offset 0 run past the end of a 16-byte allocation", NULL);
  check_status(ctx, gnn_softmax_xent(ctx, x, dlab, NULL, 4, 4, &loss, dl + 1), GNN_ERR_INVALID, "spans/xent-dlogits",
               "gnn_softmax_xent: dlogits: 64 bytes at offset 4", NULL);
  check_status(ctx, gnn_softmax_xent(ctx, x, dlab, (const uint8_t *)dlab + 13, 4, 4, &loss, dl), GNN_ERR_INVALID,
               "spans/xent-mask", "gnn_softmax_xent: mask: 4 bytes at offset 13", NULL);
  check_status(ctx, gnn_accuracy(ctx, x, dlab, NULL, 4, 5, &acc), GNN_ERR_INVALID, "spans/accuracy-logits",
               "gnn_accuracy: logits: 80 bytes", NULL);
  check_status(ctx, gnn_sgd_step(ctx, x, dl, 1000, 0.1f, 0), GNN_ERR_INVALID, "spans/sgd",
               "gnn_sgd_step: param: 4000 bytes at offset 0 run past the end of a 64-byte allocation", NULL);
  check_status(ctx, gnn_sgd_step(ctx, x, dl + 4, 16, 0.1f, 0), GNN_ERR_INVALID, "spans/sgd-grad",
               "gnn_sgd_step: grad: 64 bytes at offset 16", NULL);
  check_status(ctx, gnn_adam_step(ctx, x, dl, y, dl, 1000, 0.01f, 0.9f, 0.999f, 1e-8f, 0, 1), GNN_ERR_INVALID,
               "spans/adam", "gnn_adam_step: param: 4000 bytes", NULL);
  check_status(ctx, gnn_adam_step(ctx, x, dl, y, dl + 8, 16, 0.01f, 0.9f, 0.999f, 1e-8f, 0, 1), GNN_ERR_INVALID,
               "spans/adam-v", "gnn_adam_step: v: 64 bytes at offset 32", NULL);
  /* the span rule itself. From an allocation's end (x + 16 for 16 floats) the span touches no
   * allocation: the caller's memory may lie there, and it passes (it was refused as "1 bytes at
   * offset 64 run past the end of a 64-byte allocation"). Checked with gnn_check_span, which
   * reads nothing: a copy there would write past x's block. From the same place on into the next
   * allocation above it, the span is refused; and from before the start into an allocation. */
  char *lo = (char *)(x < y ? x : y), *hi = (char *)(x < y ? y : x);
  check_status(ctx, gnn_check_span(ctx, lo + 64, 1, "what"), GNN_OK, "spans/from-the-end-into-nothing", NULL, NULL);
  check_status(ctx, gnn_check_span(ctx, lo + 64, (size_t)(hi - (lo + 64)) + 1, "what"), GNN_ERR_INVALID,
               "spans/from-the-end-into-the-next", "what: ", "-byte allocation run into it"); /* (x, y, or one between) */
  check_status(ctx, gnn_memset0(ctx, (char *)x - 1, 2), GNN_ERR_INVALID, "spans/from-before-the-start",
               "gnn_memset0: 2 bytes starting 1 bytes before a 64-byte allocation run into it", NULL);
  check_status(ctx, gnn_check_span(ctx, (char *)y - 4096, 8192, "what"), GNN_ERR_INVALID, "spans/check-span-over",
               "what: 8192 bytes starting", NULL);
  /* every refused call left the buffers as they were */
  float back[16];
  int same = 1;
  gnn_download(ctx, back, x, sizeof back);
  for (int i = 0; i < 16; i++) same &= back[i] == 0.0f;
  gnn_download(ctx, back, y, sizeof back);
  for (int i = 0; i < 16; i++) same &= back[i] == 0.0f;
  check(same, "spans/refused-calls-change-nothing", "a refused call wrote");
  /* exact fits still run */
  check_status(ctx, gnn_spmm(ctx, g, GNN_SPMM_IN_EDGES, x, NULL, y, 4), GNN_OK, "spans/spmm-exact-fit", NULL, NULL);
  check_status(ctx, gnn_sgemm(ctx, 0, 0, 4, 4, 4, 1, x, 4, y, 4, 0, dl, 4), GNN_OK, "spans/sgemm-exact-fit", NULL, NULL);
  check_status(ctx, gnn_sgd_step(ctx, x + 8, dl + 8, 8, 0.1f, 0), GNN_OK, "spans/sgd-interior-exact-fit", NULL, NULL);
  gnn_clear_error(ctx);
  gnn_graph_free(ctx, g);
  gnn_free(ctx, x), gnn_free(ctx, y), gnn_free(ctx, dl), gnn_free(ctx, dlab);
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "--params")) return params_vs_interpreter(argv[2], argv[3], strtoull(argv[4], NULL, 10));
  if (argc == 4 && !strcmp(argv[1], "--roundtrip")) return roundtrip(argv[2], argv[3]);
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  if (st) {
    printf("no context: %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 77;
  }
  test_errors(ctx);
  test_omp_threads(gnn_ctx_is_cuda(ctx));
  test_memory(ctx);
  test_gemm(ctx);
  test_spmm(ctx);
  test_graph_from_edges(ctx);
  test_param_init();
  test_tensor_files(ctx);
  test_xent(ctx);
  test_accuracy(ctx);
  test_sgd(ctx);
  test_adam(ctx);
  test_dropout();
  test_nvrtc_host(ctx);
  test_operand_spans(ctx);
  { /* a graph freed with another context, or NULL: its arrays go from the context that made it
     * (the struct went and its arrays stayed live on that context until it was destroyed) */
    gnn_ctx *other = NULL;
    gnn_graph *og = NULL;
    int64_t os[] = {0, 1, 2}, od[] = {1, 2, 0};
    gnn_status ost = gnn_ctx_create(&other, 0);
    if (!ost) ost = gnn_graph_from_edges(other, 3, 3, os, od, NULL, &og);
    size_t olive = 1;
    if (!ost) gnn_graph_free(ctx, og), og = NULL, gnn_mem_usage(other, &olive, NULL);
    check(!ost && olive == 0, "graph/free-through-its-own-context", "%s; %zu bytes still live", ost ? gnn_last_error(other) : "", olive);
    if (!ost) ost = gnn_graph_from_edges(other, 3, 3, os, od, NULL, &og);
    olive = 1;
    if (!ost) gnn_graph_free(NULL, og), gnn_mem_usage(other, &olive, NULL);
    check(!ost && olive == 0, "graph/free-null-context", "%zu bytes still live", olive);
    gnn_ctx_destroy(other);
  }
  size_t live = 1;
  gnn_mem_usage(ctx, &live, NULL);
  /* the CUDA build keeps its scratch buffer until the context goes */
  check(gnn_ctx_is_cuda(ctx) || live == 0, "memory/nothing-leaked", "%zu bytes still allocated", live);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}
