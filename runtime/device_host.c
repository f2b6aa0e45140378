/* device_host.c -- the context and "device" memory of libgnnrt_host: the host stands in for
 * the GPU.
 *
 * gnn_malloc returns 64-byte aligned host memory (a cache line; AVX-512 rows), so the
 * generated host code may use aligned loads as the CUDA code does. Copies are memcpy, the
 * stream is the calling thread (gnn_sync has nothing to wait for), and GEMM is OpenBLAS's
 * cblas_sgemm. NVRTC and the driver API do not exist here: those calls report
 * GNN_ERR_UNSUPPORTED, so generated code can probe for them.
 */
#include "internal.h"

#include <cblas.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gnnrt_omp.h"

/* An OMP_NUM_THREADS past what libgomp survives (gnnrt_omp.h: the drivers' rule) fails the
 * context: every parallel region of this library and of a host model comes after it, and the
 * first would crash inside libgomp (a segfault at 100,000) in a program of one's own. */
static gnn_status omp_threads_from_env(gnn_ctx *ctx) {
  char why[1024];
  if (gnn_omp_threads_check(why, sizeof why)) return GNN_OK;
  return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_ctx_create: %s", why);
}

gnn_status gnn_ctx_create(gnn_ctx **out, int device) {
  if (!out) return GNN_ERR_INVALID;
  gnn_ctx *ctx = (gnn_ctx *)calloc(1, sizeof *ctx);
  *out = ctx;
  if (!ctx) return GNN_ERR_OOM;
  ctx->device = device;
  ctx->failed = rt_limit_from_env(ctx);
  if (!ctx->failed) ctx->failed = omp_threads_from_env(ctx);
  return ctx->failed;
}

void gnn_ctx_destroy(gnn_ctx *ctx) {
  if (!ctx) return;
  rt_profile_report(ctx);
  rt_track_free_table(ctx);
  free(ctx);
}

int gnn_ctx_is_cuda(const gnn_ctx *ctx) {
  (void)ctx;
  return 0;
}

gnn_status gnn_ctx_enter(gnn_ctx *ctx) { return rt_check_ctx(ctx); }

void rt_device_free_raw(gnn_ctx *ctx, void *p) {
  (void)ctx;
  free(p);
}

/* Host memory the process can still take (core.c). */
size_t rt_device_available(gnn_ctx *ctx) {
  (void)ctx;
  return rt_host_available();
}

/* 64-byte aligned host memory, recorded in the allocation table. */
gnn_status gnn_malloc(gnn_ctx *ctx, void **p, size_t bytes) {
  if (p) *p = NULL;
  gnn_status st = rt_args(ctx, p != NULL, "gnn_malloc", "p is NULL");
  if (st) return st;
  if (bytes == 0) return GNN_OK;
  if ((st = rt_limit_check(ctx, bytes, "gnn_malloc"))) return st;
  size_t rounded = (bytes + 63) & ~(size_t)63;
  void *q = rounded < bytes ? NULL : aligned_alloc(64, rounded);
  if (!q) return gnn_set_error(ctx, GNN_ERR_OOM, "gnn_malloc: out of host memory allocating %zu bytes", bytes);
  if ((st = rt_track_add(ctx, q, bytes))) {
    free(q);
    return st;
  }
  *p = q;
  return GNN_OK;
}

gnn_status gnn_free(gnn_ctx *ctx, void *p) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!p) return GNN_OK;
  size_t bytes;
  if (!rt_track_remove(ctx, p, &bytes))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_free: %p was not allocated by this context (or was freed)", p);
  free(p);
  return GNN_OK;
}

gnn_status gnn_memset0(gnn_ctx *ctx, void *p, size_t bytes) {
  gnn_status st = rt_args(ctx, !bytes || p, "gnn_memset0", "NULL pointer");
  if (!st && bytes) st = rt_check_span(ctx, p, bytes, "gnn_memset0");
  if (st) return st;
  if (bytes) memset(p, 0, bytes);
  return GNN_OK;
}

gnn_status gnn_upload(gnn_ctx *ctx, void *dev_dst, const void *host_src, size_t bytes) {
  gnn_status st = rt_args(ctx, !bytes || (dev_dst && host_src), "gnn_upload", "NULL pointer");
  if (!st && bytes) st = rt_check_span(ctx, dev_dst, bytes, "gnn_upload");
  if (st) return st;
  if (bytes) memmove(dev_dst, host_src, bytes);
  return GNN_OK;
}

gnn_status gnn_download(gnn_ctx *ctx, void *host_dst, const void *dev_src, size_t bytes) {
  gnn_status st = rt_args(ctx, !bytes || (host_dst && dev_src), "gnn_download", "NULL pointer");
  if (!st && bytes) st = rt_check_span(ctx, dev_src, bytes, "gnn_download");
  if (st) return st;
  if (bytes) memmove(host_dst, dev_src, bytes);
  return GNN_OK;
}

gnn_status gnn_sync(gnn_ctx *ctx) { return rt_check_ctx(ctx); }

/* Row-major GEMM through OpenBLAS. */
gnn_status gnn_sgemm(gnn_ctx *ctx, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (m < 0 || n < 0 || k < 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX ||
      ldc > INT_MAX)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgemm: sizes m=%lld n=%lld k=%lld must be in 0..%d",
                         (long long)m, (long long)n, (long long)k, INT_MAX);
  if (lda < (trans_a ? (m > 1 ? m : 1) : (k > 1 ? k : 1)) || ldb < (trans_b ? (k > 1 ? k : 1) : (n > 1 ? n : 1)) ||
      ldc < (n > 1 ? n : 1))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgemm: leading dimensions lda=%lld ldb=%lld ldc=%lld too small",
                         (long long)lda, (long long)ldb, (long long)ldc);
  if (m == 0 || n == 0) return GNN_OK;
  if (!C || (k > 0 && (!A || !B)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgemm: %s is NULL", !C ? "C" : !A ? "A" : "B");
  gnn_status span_st;
  if ((span_st = rt_sgemm_spans(ctx, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc))) return span_st;
  if (k == 0) { /* BLAS leaves C alone when k == 0 only for beta == 1; be explicit */
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    return GNN_OK;
  }
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n,
              (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
  return GNN_OK;
}

/* ---------------------------------------------------------------- NVRTC: not in this build */

gnn_status gnn_nvrtc_compile(const char *source, const char *name, const char *arch, char **ptx_out, size_t *len,
                             char *err, size_t errlen) {
  (void)source, (void)arch;
  if (ptx_out) *ptx_out = NULL;
  if (len) *len = 0;
  if (err && errlen) snprintf(err, errlen, "%s: NVRTC is not available in libgnnrt_host", name ? name : "(null)");
  return GNN_ERR_UNSUPPORTED;
}

gnn_status gnn_nvrtc_load(gnn_ctx *ctx, const char *ptx, int nkernels, const char *const names[], void *kernels[],
                          gnn_module **out) {
  (void)ptx, (void)nkernels, (void)names, (void)kernels;
  if (out) *out = NULL;
  return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "gnn_nvrtc_load: no CUDA driver in libgnnrt_host");
}

gnn_status gnn_kernel_launch(gnn_ctx *ctx, void *kernel, const unsigned grid[3], const unsigned block[3],
                             unsigned shared_bytes, void **args) {
  (void)kernel, (void)grid, (void)block, (void)shared_bytes, (void)args;
  return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "gnn_kernel_launch: no CUDA driver in libgnnrt_host");
}

void gnn_nvrtc_unload(gnn_ctx *ctx, gnn_module *mod) { (void)ctx, (void)mod; }
