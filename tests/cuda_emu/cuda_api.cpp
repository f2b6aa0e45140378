/* cuda_api.cpp -- the CUDA runtime, cuBLAS and cuSPARSE calls of gnnc's generated code and of
 * libgnnrt, on the CPU (the fake headers in include/; tests/suites/cuda_emu.sh links it into
 * libgnnrt_emu.so with the runtime's CUDA build).
 *
 * One device, synchronous streams. Device memory is malloc'd, filled with 0xff bytes (a NaN in
 * every float, -1 in every integer: a kernel that reads what nobody wrote shows it in its
 * results) and recorded in a table of live allocations, so that:
 *   - cudaPointerGetAttributes tells device memory from host memory as CUDA does (the runtime's
 *     gnn_graph_from_csr checks its arguments by it);
 *   - a copy, a set, a GEMM or an SpMM whose device side reaches past the allocation it starts
 *     in (or starts in none) fails with cudaErrorInvalidValue / CUBLAS_STATUS_INVALID_VALUE and a
 *     line on stderr: CUDA would read or write another buffer, or fault, there.
 * GEMM and SpMM are reference loops with cuBLAS's and cuSPARSE's semantics (column-major
 * operands and transposes; CSR x row-major dense), summing in float in index order; the real
 * libraries sum in other orders (that difference is rounding).
 */
#include <map>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_v2.h"
#include "cusparse.h"

#define EMU_API extern "C" __attribute__((visibility("default")))

static std::map<uintptr_t, size_t> live; /* start -> bytes */
static int last_error;
static size_t live_bytes;
static const size_t total_bytes = (size_t)16 << 30;

/* the allocation holding p, or live.end() */
static std::map<uintptr_t, size_t>::iterator holder(const void *p) {
  uintptr_t a = (uintptr_t)p;
  auto it = live.upper_bound(a);
  if (it == live.begin()) return live.end();
  --it;
  return a < it->first + (it->second ? it->second : 1) ? it : live.end();
}

EMU_API int cuda_emu_in_device(const void *p, size_t bytes) {
  auto it = holder(p);
  return it != live.end() && (uintptr_t)p + bytes <= it->first + it->second;
}
static int span_ok(const char *call, const char *what, const void *p, size_t bytes) {
  if (!bytes || cuda_emu_in_device(p, bytes)) return 1;
  auto it = holder(p);
  if (it == live.end())
    fprintf(stderr, "cuda_emu: %s: %s %p (%zu bytes) is not device memory\n", call, what, p, bytes);
  else
    fprintf(stderr, "cuda_emu: %s: %s %p + %zu bytes reaches past its allocation (%zu bytes at offset %zu)\n", call,
            what, p, bytes, it->second, (size_t)((uintptr_t)p - it->first));
  return 0;
}
static cudaError_t fail(cudaError_t e) {
  last_error = e;
  return e;
}
EMU_API void cuda_emu_set_error(int e) { last_error = e; }

EMU_API cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
EMU_API cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
EMU_API cudaError_t cudaGetDevice(int *device) {
  *device = 0;
  return cudaSuccess;
}
/* CUDA_EMU_NO_POOLS=1: a device without stream-ordered allocation (libgnnrt's other path) */
EMU_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  const char *np = getenv("CUDA_EMU_NO_POOLS");
  *value = attr == cudaDevAttrMemoryPoolsSupported ? !(np && *np == '1') : attr == cudaDevAttrMultiProcessorCount ? 4 : 0;
  return cudaSuccess;
}
EMU_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  (void)flags;
  *s = (cudaStream_t)malloc(1);
  return cudaSuccess;
}
EMU_API cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
EMU_API cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
EMU_API cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
EMU_API cudaError_t cudaMalloc(void **p, size_t bytes) {
  void *q = malloc(bytes ? bytes : 1);
  if (!q || bytes > total_bytes - live_bytes) {
    free(q);
    return fail(cudaErrorMemoryAllocation);
  }
  memset(q, 0xff, bytes);
  live[(uintptr_t)q] = bytes;
  live_bytes += bytes;
  *p = q;
  return cudaSuccess;
}
EMU_API cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) {
  (void)s;
  return cudaMalloc(p, bytes);
}
EMU_API cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  auto it = live.find((uintptr_t)p);
  if (it == live.end()) {
    fprintf(stderr, "cuda_emu: cudaFree(%p): not a live allocation\n", p);
    return fail(cudaErrorInvalidDevicePointer);
  }
  live_bytes -= it->second;
  live.erase(it);
  free(p);
  return cudaSuccess;
}
EMU_API cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
  (void)s;
  return cudaFree(p);
}
EMU_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s) {
  (void)s;
  int dev_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  int dev_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dev_dst && !span_ok("cudaMemcpyAsync", "the destination", dst, bytes)) ||
      (dev_src && !span_ok("cudaMemcpyAsync", "the source", src, bytes)))
    return fail(cudaErrorInvalidValue);
  if (bytes) memmove(dst, src, bytes);
  return cudaSuccess;
}
EMU_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind) {
  return cudaMemcpyAsync(dst, src, bytes, kind, NULL);
}
EMU_API cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s) {
  (void)s;
  if (!span_ok("cudaMemsetAsync", "the buffer", p, bytes)) return fail(cudaErrorInvalidValue);
  if (bytes) memset(p, value, bytes);
  return cudaSuccess;
}
EMU_API cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height, cudaStream_t s) {
  (void)s;
  if (width > pitch) return fail(cudaErrorInvalidValue);
  if (height && !span_ok("cudaMemset2DAsync", "the buffer", p, pitch * (height - 1) + width)) return fail(cudaErrorInvalidValue);
  for (size_t r = 0; r < height; r++) memset((char *)p + r * pitch, value, width);
  return cudaSuccess;
}
EMU_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  *free_bytes = total_bytes - live_bytes;
  *total = total_bytes;
  return cudaSuccess;
}
EMU_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
  memset(a, 0, sizeof *a);
  if (holder(p) != live.end()) a->type = cudaMemoryTypeDevice, a->devicePointer = (void *)p;
  else a->type = cudaMemoryTypeUnregistered, a->hostPointer = (void *)p;
  return cudaSuccess;
}
EMU_API cudaError_t cudaGetLastError(void) {
  cudaError_t e = (cudaError_t)last_error;
  last_error = 0;
  return e;
}
EMU_API cudaError_t cudaPeekAtLastError(void) { return (cudaError_t)last_error; }
EMU_API const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "cudaSuccess";
  case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
  case cudaErrorNoDevice: return "cudaErrorNoDevice";
  case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
  }
  return "cudaErrorUnknown";
}
EMU_API const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorInvalidDevicePointer: return "invalid device pointer";
  case cudaErrorNoDevice: return "no CUDA-capable device is detected";
  case cudaErrorInvalidDevice: return "invalid device ordinal";
  }
  return "unknown error";
}

/* ---- cuBLAS */
struct cublasContext { cudaStream_t stream; };
EMU_API const char *cublasGetStatusName(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : s == CUBLAS_STATUS_NOT_INITIALIZED ? "CUBLAS_STATUS_NOT_INITIALIZED" : "CUBLAS_STATUS_INVALID_VALUE";
}
EMU_API cublasStatus_t cublasCreate(cublasHandle_t *h) {
  *h = (cublasHandle_t)calloc(1, sizeof **h);
  return CUBLAS_STATUS_SUCCESS;
}
EMU_API cublasStatus_t cublasDestroy(cublasHandle_t h) {
  free(h);
  return CUBLAS_STATUS_SUCCESS;
}
EMU_API cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
/* the bytes a column-major rows x cols matrix of leading dimension ld spans */
static size_t span(int64_t rows, int64_t cols, int64_t ld) {
  return rows <= 0 || cols <= 0 ? 0 : ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * sizeof(float);
}
/* C (m x n) = alpha op(A) op(B) + beta C, column-major; beta 0: C is not read */
EMU_API cublasStatus_t cublasSgemm_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                                      int64_t k, const float *alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                                      const float *beta, float *C, int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || lda < (ta ? k : m) || lda < 1 || ldb < (tb ? n : k) || ldb < 1 || ldc < m || ldc < 1) {
    fprintf(stderr, "cuda_emu: cublasSgemm: m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld refused\n", (long long)m,
            (long long)n, (long long)k, (long long)lda, (long long)ldb, (long long)ldc);
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!span_ok("cublasSgemm", "A", A, ta ? span(k, m, lda) : span(m, k, lda)) ||
      !span_ok("cublasSgemm", "B", B, tb ? span(n, k, ldb) : span(k, n, ldb)) || !span_ok("cublasSgemm", "C", C, span(m, n, ldc)))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      float s = 0.0f;
      for (int64_t l = 0; l < k; l++) s += (ta ? A[l + i * lda] : A[i + l * lda]) * (tb ? B[j + l * ldb] : B[l + j * ldb]);
      C[i + j * ldc] = *beta == 0.0f ? *alpha * s : *alpha * s + *beta * C[i + j * ldc];
    }
  return CUBLAS_STATUS_SUCCESS;
}
EMU_API cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                   const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
                                   float *C, int ldc) {
  return cublasSgemm_64(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
/* C (m x n) = alpha op(A) + beta op(B); in place (C == A or B with OP_N) allowed, as cuBLAS */
EMU_API cublasStatus_t cublasSgeam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                                      const float *alpha, const float *A, int64_t lda, const float *beta, const float *B,
                                      int64_t ldb, float *C, int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || ldc < m || !span_ok("cublasSgeam", "A", A, ta ? span(n, m, lda) : span(m, n, lda)) ||
      !span_ok("cublasSgeam", "B", B, tb ? span(n, m, ldb) : span(m, n, ldb)) || !span_ok("cublasSgeam", "C", C, span(m, n, ldc)))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      float a = *alpha == 0.0f ? 0.0f : *alpha * (ta ? A[j + i * lda] : A[i + j * lda]);
      float b = *beta == 0.0f ? 0.0f : *beta * (tb ? B[j + i * ldb] : B[i + j * ldb]);
      C[i + j * ldc] = a + b;
    }
  return CUBLAS_STATUS_SUCCESS;
}

/* ---- cuSPARSE */
struct cusparseContext { cudaStream_t stream; };
struct cusparseSpMatDescr { int64_t rows, cols, nnz; const int32_t *ptr, *idx; const float *vals; };
struct cusparseDnMatDescr { int64_t rows, cols, ld; float *vals; };
EMU_API cusparseStatus_t cusparseCreate(cusparseHandle_t *h) {
  *h = (cusparseHandle_t)calloc(1, sizeof **h);
  return CUSPARSE_STATUS_SUCCESS;
}
EMU_API cusparseStatus_t cusparseDestroy(cusparseHandle_t h) {
  free(h);
  return CUSPARSE_STATUS_SUCCESS;
}
EMU_API cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s) {
  h->stream = s;
  return CUSPARSE_STATUS_SUCCESS;
}
EMU_API const char *cusparseGetErrorString(cusparseStatus_t s) {
  return s == CUSPARSE_STATUS_SUCCESS ? "CUSPARSE_STATUS_SUCCESS" : s == CUSPARSE_STATUS_INVALID_VALUE ? "CUSPARSE_STATUS_INVALID_VALUE" : "CUSPARSE_STATUS_NOT_SUPPORTED";
}
EMU_API cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *A, int64_t rows, int64_t cols, int64_t nnz,
                                                const void *ptr, const void *idx, const void *vals,
                                                cusparseIndexType_t ptr_type, cusparseIndexType_t idx_type,
                                                cusparseIndexBase_t base, cudaDataType type) {
  if (ptr_type != CUSPARSE_INDEX_32I || idx_type != CUSPARSE_INDEX_32I || base != CUSPARSE_INDEX_BASE_ZERO || type != CUDA_R_32F)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  cusparseSpMatDescr *d = (cusparseSpMatDescr *)malloc(sizeof *d);
  *d = {rows, cols, nnz, (const int32_t *)ptr, (const int32_t *)idx, (const float *)vals};
  *A = d;
  return CUSPARSE_STATUS_SUCCESS;
}
static cusparseStatus_t dn(cusparseDnMatDescr **out, int64_t rows, int64_t cols, int64_t ld, const void *vals,
                           cudaDataType type, cusparseOrder_t order) {
  if (type != CUDA_R_32F || order != CUSPARSE_ORDER_ROW || ld < cols) return CUSPARSE_STATUS_NOT_SUPPORTED;
  cusparseDnMatDescr *d = (cusparseDnMatDescr *)malloc(sizeof *d);
  *d = {rows, cols, ld, (float *)vals};
  *out = d;
  return CUSPARSE_STATUS_SUCCESS;
}
EMU_API cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *B, int64_t rows, int64_t cols, int64_t ld,
                                                  const void *vals, cudaDataType type, cusparseOrder_t order) {
  cusparseDnMatDescr *d = NULL;
  cusparseStatus_t s = dn(&d, rows, cols, ld, vals, type, order);
  *B = d;
  return s;
}
EMU_API cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *C, int64_t rows, int64_t cols, int64_t ld, void *vals,
                                             cudaDataType type, cusparseOrder_t order) {
  return dn(C, rows, cols, ld, vals, type, order);
}
EMU_API cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t A) {
  free((void *)A);
  return CUSPARSE_STATUS_SUCCESS;
}
EMU_API cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t B) {
  free((void *)B);
  return CUSPARSE_STATUS_SUCCESS;
}
EMU_API cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t h, cusparseOperation_t oa, cusparseOperation_t ob,
                                                 const void *alpha, cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B,
                                                 const void *beta, cusparseDnMatDescr_t C, cudaDataType type,
                                                 cusparseSpMMAlg_t alg, size_t *bytes) {
  (void)h, (void)oa, (void)ob, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)type, (void)alg;
  *bytes = 256; /* some workspace, as cuSPARSE asks for: the caller's handling of it runs */
  return CUSPARSE_STATUS_SUCCESS;
}
/* C = alpha A B + beta C: A CSR (rows x cols), B and C row-major */
EMU_API cusparseStatus_t cusparseSpMM(cusparseHandle_t h, cusparseOperation_t oa, cusparseOperation_t ob, const void *alpha,
                                      cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, const void *beta,
                                      cusparseDnMatDescr_t C, cudaDataType type, cusparseSpMMAlg_t alg, void *workspace) {
  (void)alg;
  if (!h || oa || ob || type != CUDA_R_32F || B->rows != A->cols || C->rows != A->rows || C->cols != B->cols ||
      !span_ok("cusparseSpMM", "the offsets", A->ptr, sizeof(int32_t) * (size_t)(A->rows + 1)) ||
      !span_ok("cusparseSpMM", "the indices", A->idx, sizeof(int32_t) * (size_t)A->nnz) ||
      !span_ok("cusparseSpMM", "the values", A->vals, sizeof(float) * (size_t)A->nnz) ||
      !span_ok("cusparseSpMM", "B", B->vals, span(B->cols, B->rows, B->ld)) ||
      !span_ok("cusparseSpMM", "C", C->vals, span(C->cols, C->rows, C->ld)) ||
      !span_ok("cusparseSpMM", "the workspace", workspace, 256))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const float a = *(const float *)alpha, b = *(const float *)beta;
  for (int64_t r = 0; r < A->rows; r++)
    for (int64_t c = 0; c < C->cols; c++) {
      float s = 0.0f;
      for (int32_t e = A->ptr[r]; e < A->ptr[r + 1]; e++) s += A->vals[e] * B->vals[(int64_t)A->idx[e] * B->ld + c];
      float *y = &C->vals[r * C->ld + c];
      *y = b == 0.0f ? a * s : a * s + b * *y;
    }
  return CUSPARSE_STATUS_SUCCESS;
}
