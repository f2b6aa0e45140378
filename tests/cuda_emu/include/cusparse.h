/* cusparse.h -- the cuSPARSE generic SpMM of libgnnrt's gnn_spmm (runtime/spmm_cuda.cu), faked on
 * the CPU (tests/cuda_emu/cuda_api.cpp): CSR with 32-bit indices times a row-major dense matrix,
 * a plain loop summing in float in the row's order. C and C++. */
#ifndef CUDA_EMU_CUSPARSE_H
#define CUDA_EMU_CUSPARSE_H

#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cusparseContext *cusparseHandle_t;
typedef struct cusparseSpMatDescr const *cusparseConstSpMatDescr_t;
typedef struct cusparseDnMatDescr *cusparseDnMatDescr_t;
typedef struct cusparseDnMatDescr const *cusparseConstDnMatDescr_t;
typedef enum { CUSPARSE_STATUS_SUCCESS = 0, CUSPARSE_STATUS_INVALID_VALUE = 3, CUSPARSE_STATUS_NOT_SUPPORTED = 10 } cusparseStatus_t;
typedef enum { CUSPARSE_OPERATION_NON_TRANSPOSE = 0, CUSPARSE_OPERATION_TRANSPOSE = 1 } cusparseOperation_t;
typedef enum { CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0 } cusparseIndexBase_t;
typedef enum { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 } cusparseOrder_t;
typedef enum { CUSPARSE_SPMM_ALG_DEFAULT = 0 } cusparseSpMMAlg_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_64F = 1 } cudaDataType;

cusparseStatus_t cusparseCreate(cusparseHandle_t *h);
cusparseStatus_t cusparseDestroy(cusparseHandle_t h);
cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s);
const char *cusparseGetErrorString(cusparseStatus_t s);
cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *A, int64_t rows, int64_t cols, int64_t nnz,
                                        const void *ptr, const void *idx, const void *vals, cusparseIndexType_t ptr_type,
                                        cusparseIndexType_t idx_type, cusparseIndexBase_t base, cudaDataType type);
cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *B, int64_t rows, int64_t cols, int64_t ld,
                                          const void *vals, cudaDataType type, cusparseOrder_t order);
cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *C, int64_t rows, int64_t cols, int64_t ld, void *vals,
                                     cudaDataType type, cusparseOrder_t order);
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t A);
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t B);
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t h, cusparseOperation_t oa, cusparseOperation_t ob,
                                         const void *alpha, cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B,
                                         const void *beta, cusparseDnMatDescr_t C, cudaDataType type,
                                         cusparseSpMMAlg_t alg, size_t *bytes);
cusparseStatus_t cusparseSpMM(cusparseHandle_t h, cusparseOperation_t oa, cusparseOperation_t ob, const void *alpha,
                              cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, const void *beta,
                              cusparseDnMatDescr_t C, cudaDataType type, cusparseSpMMAlg_t alg, void *workspace);

#ifdef __cplusplus
}
#endif

#endif
