/* device_cuda.c -- the context and device memory of libgnnrt (CUDA runtime API, cuBLAS).
 *
 * A context is one device, one non-blocking stream and one cuBLAS handle bound to it. All
 * memory operations are stream-ordered: gnn_malloc/gnn_free are cudaMallocAsync/cudaFreeAsync
 * from the device's default memory pool (on a device without memory pools, cudaMalloc, and
 * cudaFree after a stream synchronisation), gnn_memset0 is cudaMemsetAsync; uploads and
 * downloads are cudaMemcpyAsync followed by a stream synchronisation, so the host buffer is
 * free (or filled) when they return. Every CUDA and cuBLAS call goes through CUDA_CHECK /
 * CUBLAS_CHECK, which turn a failure into a status and a message naming the call, this file
 * and the line. Each entry point first makes the context's device current on the calling
 * thread, so contexts on different devices can be used from one thread.
 *
 * Creation on a machine without a GPU (or without a driver: cudart loads libcuda lazily, and
 * this library does not link it) fails at cudaGetDeviceCount with GNN_ERR_CUDA; the failed
 * context carries that message until gnn_ctx_destroy.
 */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>

gnn_status rt_cuda_enter(gnn_ctx *ctx) {
  CUDA_CHECK(ctx, cudaSetDevice(ctx->device));
  return GNN_OK;
}

/* Steps 1-4 of creation; what they made is released by gnn_ctx_destroy. */
static gnn_status ctx_init(gnn_ctx *ctx, int device) {
  int n = 0;
  /* 1. the device. No usable one is the usual first error on a machine without a GPU (a CUDA
   * library copied from a GPU machine): say so and what to do, beside CUDA's own words. */
  cudaError_t count_err = cudaGetDeviceCount(&n);
  if (count_err != cudaSuccess || n <= 0)
    return gnn_set_error(ctx, GNN_ERR_CUDA,
                         "gnn_ctx_create: no usable CUDA device (%s%s%s%s): this is the CUDA runtime, which a model built "
                         "with gnnc --target=cuda links; build the model with --target=host to run it on the CPU",
                         count_err != cudaSuccess ? "cudaGetDeviceCount failed: " : "cudaGetDeviceCount found none",
                         count_err != cudaSuccess ? cudaGetErrorName(count_err) : "", count_err != cudaSuccess ? ": " : "",
                         count_err != cudaSuccess ? cudaGetErrorString(count_err) : "");
  if (device < 0 || device >= n)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_ctx_create: device %d out of range (this machine has %d)", device, n);
  CUDA_CHECK(ctx, cudaSetDevice(device));
  /* Stream-ordered allocation needs memory pools, which some devices and virtualised setups
   * lack; there, memory comes from cudaMalloc and is freed after a stream synchronisation. */
  int pools = 0;
  CUDA_CHECK(ctx, cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
  ctx->no_pools = !pools;
  /* 2. the stream */
  CUDA_CHECK(ctx, cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
  /* 3. cuBLAS, bound to the stream */
  CUBLAS_CHECK(ctx, cublasCreate(&ctx->cublas));
  CUBLAS_CHECK(ctx, cublasSetStream(ctx->cublas, ctx->stream));
  return GNN_OK;
}

gnn_status gnn_ctx_create(gnn_ctx **out, int device) {
  if (!out) return GNN_ERR_INVALID;
  gnn_ctx *ctx = (gnn_ctx *)calloc(1, sizeof *ctx);
  *out = ctx;
  if (!ctx) return GNN_ERR_OOM;
  ctx->device = device;
  ctx->failed = ctx_init(ctx, device);
  if (!ctx->failed) ctx->failed = rt_limit_from_env(ctx);
  return ctx->failed;
}

/* Frees what is left (stream-ordered), then the handle and the stream. */
void gnn_ctx_destroy(gnn_ctx *ctx) {
  if (!ctx) return;
  rt_profile_report(ctx);
  if (ctx->stream) {
    cudaSetDevice(ctx->device);
    rt_track_free_table(ctx); /* scratch included */
    cudaStreamSynchronize(ctx->stream);
  }
  if (ctx->cusparse) cusparseDestroy(ctx->cusparse);
  if (ctx->cublas) cublasDestroy(ctx->cublas);
  if (ctx->stream) cudaStreamDestroy(ctx->stream);
  free(ctx->allocs);
  free(ctx);
}

int gnn_ctx_is_cuda(const gnn_ctx *ctx) {
  (void)ctx;
  return 1;
}

gnn_status gnn_ctx_enter(gnn_ctx *ctx) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  return rt_cuda_enter(ctx);
}

cudaStream_t gnn_ctx_stream(const gnn_ctx *ctx) { return ctx && !ctx->failed ? ctx->stream : NULL; }

cublasHandle_t gnn_ctx_cublas(const gnn_ctx *ctx) { return ctx && !ctx->failed ? ctx->cublas : NULL; }

/* Frees device memory in stream order (without pools: after the stream's work is done). */
static cudaError_t device_free(gnn_ctx *ctx, void *p) {
  if (!ctx->no_pools) return cudaFreeAsync(p, ctx->stream);
  cudaError_t e = cudaStreamSynchronize(ctx->stream);
  return e != cudaSuccess ? e : cudaFree(p);
}

void rt_device_free_raw(gnn_ctx *ctx, void *p) { (void)device_free(ctx, p); }

/* The device's free memory (the pools' cached blocks count as used: a conservative answer). */
size_t rt_device_available(gnn_ctx *ctx) {
  size_t free_b = 0, total = 0;
  if (rt_cuda_enter(ctx) || cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
    cudaGetLastError();
    return SIZE_MAX;
  }
  return free_b;
}

/* Stream-ordered device memory, recorded in the allocation table. */
gnn_status gnn_malloc(gnn_ctx *ctx, void **p, size_t bytes) {
  if (p) *p = NULL;
  gnn_status st = rt_args(ctx, p != NULL, "gnn_malloc", "p is NULL");
  if (st) return st;
  if (bytes == 0) return GNN_OK;
  if ((st = rt_limit_check(ctx, bytes, "gnn_malloc"))) return st;
  if ((st = rt_cuda_enter(ctx))) return st;
  void *q = NULL;
  cudaError_t e = ctx->no_pools ? cudaMalloc(&q, bytes) : cudaMallocAsync(&q, bytes, ctx->stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError(); /* not sticky: clear it */
    return gnn_set_error(ctx, GNN_ERR_OOM, "gnn_malloc: out of device memory allocating %zu bytes (%zu live)", bytes,
                         ctx->live);
  }
  CUDA_CHECK(ctx, e);
  if ((st = rt_track_add(ctx, q, bytes))) {
    (void)device_free(ctx, q);
    return st;
  }
  *p = q;
  return GNN_OK;
}

gnn_status gnn_free(gnn_ctx *ctx, void *p) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!p) return GNN_OK;
  size_t bytes;
  /* the device first: a context whose device cannot be entered keeps the block in its table
   * (freed by gnn_ctx_destroy) rather than forgetting it */
  gnn_status st = rt_cuda_enter(ctx);
  if (st) return st;
  if (!rt_track_remove(ctx, p, &bytes))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_free: %p was not allocated by this context (or was freed)", p);
  CUDA_CHECK(ctx, device_free(ctx, p));
  return GNN_OK;
}

gnn_status gnn_memset0(gnn_ctx *ctx, void *p, size_t bytes) {
  gnn_status st = rt_args(ctx, !bytes || p, "gnn_memset0", "NULL pointer");
  if (!st && bytes) st = rt_check_span(ctx, p, bytes, "gnn_memset0");
  if (st) return st;
  if (!bytes) return GNN_OK;
  if ((st = rt_cuda_enter(ctx))) return st;
  CUDA_CHECK(ctx, cudaMemsetAsync(p, 0, bytes, ctx->stream));
  return GNN_OK;
}

gnn_status gnn_upload(gnn_ctx *ctx, void *dev_dst, const void *host_src, size_t bytes) {
  gnn_status st = rt_args(ctx, !bytes || (dev_dst && host_src), "gnn_upload", "NULL pointer");
  if (!st && bytes) st = rt_check_span(ctx, dev_dst, bytes, "gnn_upload");
  if (st) return st;
  if (!bytes) return GNN_OK;
  if ((st = rt_cuda_enter(ctx))) return st;
  CUDA_CHECK(ctx, cudaMemcpyAsync(dev_dst, host_src, bytes, cudaMemcpyHostToDevice, ctx->stream));
  CUDA_CHECK(ctx, cudaStreamSynchronize(ctx->stream));
  return GNN_OK;
}

gnn_status gnn_download(gnn_ctx *ctx, void *host_dst, const void *dev_src, size_t bytes) {
  gnn_status st = rt_args(ctx, !bytes || (host_dst && dev_src), "gnn_download", "NULL pointer");
  if (!st && bytes) st = rt_check_span(ctx, dev_src, bytes, "gnn_download");
  if (st) return st;
  if (!bytes) return GNN_OK;
  if ((st = rt_cuda_enter(ctx))) return st;
  CUDA_CHECK(ctx, cudaMemcpyAsync(host_dst, dev_src, bytes, cudaMemcpyDeviceToHost, ctx->stream));
  CUDA_CHECK(ctx, cudaStreamSynchronize(ctx->stream));
  return GNN_OK;
}

gnn_status gnn_sync(gnn_ctx *ctx) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  gnn_status st = rt_cuda_enter(ctx);
  if (st) return st;
  CUDA_CHECK(ctx, cudaStreamSynchronize(ctx->stream));
  return GNN_OK;
}

gnn_status rt_cuda_scratch(gnn_ctx *ctx, size_t bytes, void **p) {
  if (ctx->scratch_bytes < bytes) {
    gnn_status st = gnn_free(ctx, ctx->scratch);
    ctx->scratch = NULL;
    ctx->scratch_bytes = 0;
    if (!st) st = gnn_malloc(ctx, &ctx->scratch, bytes);
    if (st) return st;
    ctx->scratch_bytes = bytes;
  }
  *p = ctx->scratch;
  return GNN_OK;
}

/* Row-major GEMM through cuBLAS. */
gnn_status gnn_sgemm(gnn_ctx *ctx, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (m < 0 || n < 0 || k < 0)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgemm: negative size (m=%lld n=%lld k=%lld)", (long long)m,
                         (long long)n, (long long)k);
  if (lda < (trans_a ? (m > 1 ? m : 1) : (k > 1 ? k : 1)) || ldb < (trans_b ? (k > 1 ? k : 1) : (n > 1 ? n : 1)) ||
      ldc < (n > 1 ? n : 1))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgemm: leading dimensions lda=%lld ldb=%lld ldc=%lld too small",
                         (long long)lda, (long long)ldb, (long long)ldc);
  if (m == 0 || n == 0) return GNN_OK;
  if (!C || (k > 0 && (!A || !B)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgemm: %s is NULL", !C ? "C" : !A ? "A" : "B");
  gnn_status span_st;
  if ((span_st = rt_sgemm_spans(ctx, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc))) return span_st;
  gnn_status st = rt_cuda_enter(ctx);
  if (st) return st;
  if (k == 0) {
    /* C = beta C, as the host build does: cuBLAS does not document k = 0. Column-major, C is
     * n x m with leading dimension ldc; geam in place (C = beta C + 0 C) is allowed with N, N. */
    const float zero = 0.0f;
    if (beta == 0.0f)
      CUDA_CHECK(ctx, cudaMemset2DAsync(C, (size_t)ldc * sizeof(float), 0, (size_t)n * sizeof(float), (size_t)m,
                                        ctx->stream));
    else
      CUBLAS_CHECK(ctx, cublasSgeam_64(ctx->cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, &beta, C, ldc, &zero, C, ldc, C,
                                       ldc));
    return GNN_OK;
  }
  /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands. */
  CUBLAS_CHECK(ctx, cublasSgemm_64(ctx->cublas, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   n, m, k, &alpha, B, ldb, A, lda, &beta, C, ldc));
  return GNN_OK;
}
