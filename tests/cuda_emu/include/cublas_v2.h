/* cublas_v2.h -- the cuBLAS calls of gnnc's generated code and libgnnrt, faked on the CPU
 * (tests/cuda_emu/cuda_api.cpp): column-major, as cuBLAS, by a plain loop summing in float in
 * order of k. C and C++. */
#ifndef CUDA_EMU_CUBLAS_V2_H
#define CUDA_EMU_CUBLAS_V2_H

#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cublasContext *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_INVALID_VALUE = 7 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;

const char *cublasGetStatusName(cublasStatus_t s);
cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s);
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc);
cublasStatus_t cublasSgemm_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                              int64_t k, const float *alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                              const float *beta, float *C, int64_t ldc);
cublasStatus_t cublasSgeam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                              const float *alpha, const float *A, int64_t lda, const float *beta, const float *B,
                              int64_t ldb, float *C, int64_t ldc);

#ifdef __cplusplus
}
#endif

#endif
