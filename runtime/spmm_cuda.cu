/* spmm_cuda.cu -- gnn_spmm in libgnnrt: a plain weighted sum over the edges (gnnc
 * --spmm=cusparse) as cuSPARSE's SpMM on the context's stream; spmm.c's loop is its CPU
 * reference.
 *
 * cuSPARSE wants one index type for a CSR's offsets and columns, and the graph keeps int64
 * offsets beside int32 far ends: each call narrows the offsets to int32 in the context's
 * scratch (nv + 1 of them, a small kernel). Over in-edges the matrix is the CSR itself (row v,
 * column src[e], value w[e] at CSR position e); over out-edges it is the CSC (row u, column
 * out_dst[k], value w[out_eid[k]]), whose values a kernel first gathers into CSC order. Without
 * weights the values are ones (cuSPARSE has no implicit unit values). All of it lives in the
 * scratch with cuSPARSE's workspace, made again on each call: the weights change every step, and
 * nothing is kept that could outlive the graph it was made from.
 * Sums are float32 (computeType CUDA_R_32F), where the fused walks sum in float64.
 */
#include "internal.h"

namespace {

constexpr int kBlock = 256;

unsigned blocks(int64_t n) {
  int64_t b = (n + kBlock - 1) / kBlock;
  return (unsigned)(b > 65535 ? 65535 : b < 1 ? 1 : b);
}

__global__ void narrow_offsets(const int64_t *__restrict__ ptr, int32_t *__restrict__ ptr32, int64_t n) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) ptr32[i] = (int32_t)ptr[i];
}

/* vals[k] = w[eid[k]] (CSC order), or 1 without weights */
__global__ void csc_values(const float *__restrict__ w, const int32_t *__restrict__ eid, float *__restrict__ vals, int64_t n) {
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
    vals[k] = w ? w[eid ? eid[k] : k] : 1.0f;
}

size_t align256(size_t n) { return (n + 255) & ~(size_t)255; }

#define CUSPARSE_CHECK(ctx, call)                                                                                \
  do {                                                                                                           \
    cusparseStatus_t s_ = (call);                                                                                \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                                         \
      st = gnn_set_error((ctx), GNN_ERR_CUDA, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call,                 \
                         cusparseGetErrorString(s_));                                                            \
      goto done;                                                                                                 \
    }                                                                                                            \
  } while (0)

}  // namespace

extern "C" gnn_status gnn_spmm(gnn_ctx *ctx, const gnn_graph *g, int dir, const float *x, const float *w, float *y, int64_t width) {
  gnn_status st = rt_spmm_args(ctx, g, dir, x, w, y, width);
  if (st) return st;
  const int64_t nv = g->nv, ne = g->ne;
  if (nv > INT32_MAX - 1 || ne > INT32_MAX || width > INT32_MAX)
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "gnn_spmm: %lld vertices, %lld edges, width %lld: cuSPARSE is called with 32-bit indices (at most 2^31 - 1)",
                         (long long)nv, (long long)ne, (long long)width);
  if ((st = rt_cuda_enter(ctx))) return st;
  if (nv == 0) return GNN_OK;
  if (ne == 0) { /* no edges: every sum is 0 (cuSPARSE wants nnz > 0 for some algorithms) */
    CUDA_CHECK(ctx, cudaMemsetAsync(y, 0, sizeof(float) * (size_t)nv * (size_t)width, ctx->stream));
    return GNN_OK;
  }
  const bool in = dir == GNN_SPMM_IN_EDGES;
  const bool own_vals = !in || !w; /* values made here: CSC order, or ones */
  const size_t ptr_bytes = align256(sizeof(int32_t) * (size_t)(nv + 1)), val_bytes = own_vals ? align256(sizeof(float) * (size_t)ne) : 0;
  if (!ctx->cusparse) {
    cusparseStatus_t s = cusparseCreate(&ctx->cusparse);
    if (s != CUSPARSE_STATUS_SUCCESS) {
      ctx->cusparse = NULL;
      return gnn_set_error(ctx, GNN_ERR_CUDA, "gnn_spmm: cusparseCreate failed: %s", cusparseGetErrorString(s));
    }
  }
  cusparseConstSpMatDescr_t A = NULL;
  cusparseConstDnMatDescr_t B = NULL;
  cusparseDnMatDescr_t C = NULL;
  const float alpha = 1.0f, beta = 0.0f;
  size_t ws = 0;
  void *scratch = NULL;
  int32_t *ptr32 = NULL;
  float *vals = NULL;
  /* the workspace's size does not depend on where the arrays are: ask with the scratch as it is,
   * then grow it (which moves it) and describe the matrix where it ended up */
  for (int pass = 0; pass < 3; pass++) {
    if ((st = rt_cuda_scratch(ctx, ptr_bytes + val_bytes + ws, &scratch))) goto done;
    ptr32 = (int32_t *)scratch;
    vals = own_vals ? (float *)((char *)scratch + ptr_bytes) : NULL;
    if (A) cusparseDestroySpMat(A), A = NULL;
    if (B) cusparseDestroyDnMat(B), B = NULL;
    if (C) cusparseDestroyDnMat(C), C = NULL;
    CUSPARSE_CHECK(ctx, cusparseCreateConstCsr(&A, nv, nv, ne, ptr32, in ? (const void *)g->src : (const void *)g->out_dst,
                                               own_vals ? (const void *)vals : (const void *)w, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CUSPARSE_CHECK(ctx, cusparseCreateConstDnMat(&B, nv, width, width, x, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    CUSPARSE_CHECK(ctx, cusparseCreateDnMat(&C, nv, width, width, y, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    size_t need = 0;
    CUSPARSE_CHECK(ctx, cusparseSpMM_bufferSize(ctx->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, B,
                                                &beta, C, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &need));
    ws = need;
    if (ptr_bytes + val_bytes + ws <= ctx->scratch_bytes) break;
  }
  if (ptr_bytes + val_bytes + ws > ctx->scratch_bytes) {
    st = gnn_set_error(ctx, GNN_ERR_CUDA, "gnn_spmm: cuSPARSE's workspace grew on every request (%zu bytes last)", ws);
    goto done;
  }
  narrow_offsets<<<blocks(nv + 1), kBlock, 0, ctx->stream>>>(in ? g->in_ptr : g->out_ptr, ptr32, nv + 1);
  if (own_vals) csc_values<<<blocks(ne), kBlock, 0, ctx->stream>>>(w, in ? NULL : g->out_eid, vals, ne);
  if (cudaPeekAtLastError() != cudaSuccess) {
    cudaError_t e = cudaGetLastError();
    st = gnn_set_error(ctx, GNN_ERR_CUDA, "gnn_spmm: a launch failed: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    goto done;
  }
  CUSPARSE_CHECK(ctx, cusparseSetStream(ctx->cusparse, ctx->stream));
  CUSPARSE_CHECK(ctx, cusparseSpMM(ctx->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, B, &beta, C,
                                   CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, ws ? (char *)scratch + ptr_bytes + val_bytes : NULL));
done:
  if (A) cusparseDestroySpMat(A);
  if (B) cusparseDestroyDnMat(B);
  if (C) cusparseDestroyDnMat(C);
  return st;
}
