/* csr_cuda.cu -- libgnnrt's half of gnn_graph_from_csr: a CSR and CSC already on the GPU become
 * a graph without passing through the host.
 *
 * The caller's arrays are first asked where they live (cudaPointerGetAttributes: device memory
 * of the context's device, or managed memory; a host pointer is refused by name), then copied
 * device to device on the context's stream into the graph's arrays, and two kernels check them
 * (csr_host.c checks the same rules, internal.h lists them):
 *   - vertex_kernel, a thread per vertex: the ends and the order of in_ptr and out_ptr, the
 *     degrees as floats, their maxima (atomicMax);
 *   - edge_kernel, a thread per edge e (and per CSC position k = e): dst[e] by a binary search
 *     of in_ptr (balanced whatever the degrees), src in range, out_eid in range, listed under
 *     its own source (the vertex whose out_ptr segment holds k, found by the same search) and
 *     ascending within it, the origin -1 only on a self-loop.
 * Each rule keeps the first index that breaks it with atomicMin in the context's scratch; one
 * read-back of those and of the maxima ends the call. A search over pointers that break an
 * earlier rule gives an arbitrary vertex, never an out-of-bounds read (it stays in 0 .. nv-1),
 * and graph.c reports only the first broken rule, so what later rules saw then does not matter.
 * Grid-stride loops over int64 indices: any nv < 2^31 and ne < 2^31 with 65535 blocks.
 */
#include "internal.h"

namespace {

constexpr int kBlock = 256;

unsigned blocks(int64_t n) {
  int64_t b = (n + kBlock - 1) / kBlock;
  return (unsigned)(b > 65535 ? 65535 : b < 1 ? 1 : b);
}

/* The vertex v in [0, nv) whose segment ptr[v] .. ptr[v+1]-1 holds i: the first v with
 * ptr[v + 1] > i (nv - 1 when none). */
__device__ int64_t segment_of(const int64_t *ptr, int64_t nv, int64_t i) {
  int64_t lo = 0, hi = nv - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (ptr[mid + 1] > i) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

__device__ void broke(unsigned long long *first_bad, int rule, int64_t i) {
  atomicMin(first_bad + rule, (unsigned long long)i);
}

__global__ void vertex_kernel(const int64_t *in_ptr, const int64_t *out_ptr, int64_t nv, int64_t ne, float *in_deg,
                              float *out_deg, unsigned long long *first_bad, unsigned long long *max_deg) {
  for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nv; v += (int64_t)gridDim.x * blockDim.x) {
    int64_t din = in_ptr[v + 1] - in_ptr[v], dout = out_ptr[v + 1] - out_ptr[v];
    if (v == 0 && in_ptr[0] != 0) broke(first_bad, RT_CSR_IN_PTR_ENDS, 0);
    if (v == nv - 1 && in_ptr[nv] != ne) broke(first_bad, RT_CSR_IN_PTR_ENDS, nv);
    if (v == 0 && out_ptr[0] != 0) broke(first_bad, RT_CSR_OUT_PTR_ENDS, 0);
    if (v == nv - 1 && out_ptr[nv] != ne) broke(first_bad, RT_CSR_OUT_PTR_ENDS, nv);
    if (din < 0) broke(first_bad, RT_CSR_IN_PTR_ORDER, v);
    if (dout < 0) broke(first_bad, RT_CSR_OUT_PTR_ORDER, v);
    in_deg[v] = (float)din;
    out_deg[v] = (float)dout;
    if (din > 0) atomicMax(max_deg, (unsigned long long)din);
    if (dout > 0) atomicMax(max_deg + 1, (unsigned long long)dout);
  }
}

__global__ void edge_kernel(const int64_t *in_ptr, const int64_t *out_ptr, const int32_t *src, const int32_t *out_eid,
                            const int64_t *origin, int64_t nv, int64_t ne, int32_t *dst, int32_t *out_dst,
                            unsigned long long *first_bad) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t v = segment_of(in_ptr, nv, e);
    dst[e] = (int32_t)v;
    int32_t s = src[e];
    if (s < 0 || s >= nv) broke(first_bad, RT_CSR_SRC_RANGE, e);
    if (origin && (origin[e] < -1 || (origin[e] == -1 && s != v))) broke(first_bad, RT_CSR_ORIGIN, e);
    /* the CSC position k = e */
    int32_t k_edge = out_eid[e];
    if (k_edge < 0 || k_edge >= ne) {
      broke(first_bad, RT_CSR_EID_RANGE, e);
      continue;
    }
    out_dst[e] = (int32_t)segment_of(in_ptr, nv, k_edge); /* dst[out_eid[e]], without waiting for dst */
    int64_t u = segment_of(out_ptr, nv, e);
    if (src[k_edge] != u) broke(first_bad, RT_CSR_EID_SOURCE, e);
    if (e > out_ptr[u] && out_eid[e - 1] >= k_edge) broke(first_bad, RT_CSR_EID_ORDER, e);
  }
}

/* GNN_OK when p is device memory of the context's device (or managed memory). */
gnn_status check_pointer(gnn_ctx *ctx, const void *p, const char *name) {
  cudaPointerAttributes a;
  cudaError_t err = cudaPointerGetAttributes(&a, p);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: %s is not CUDA memory (%s): the CUDA build takes device "
                         "arrays (gnn_graph_from_edges takes host ones)", name, cudaGetErrorString(err));
  }
  if (a.type == cudaMemoryTypeManaged) return GNN_OK;
  if (a.type != cudaMemoryTypeDevice)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: %s is host memory: the CUDA build takes device arrays "
                         "(gnn_graph_from_edges takes host ones)", name);
  if (a.device != ctx->device)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: %s is memory of device %d; the context's is device %d",
                         name, a.device, ctx->device);
  return GNN_OK;
}

gnn_status d2d(gnn_ctx *ctx, void *to, const void *from, size_t bytes) {
  if (bytes) CUDA_CHECK(ctx, cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, ctx->stream));
  return GNN_OK;
}

} // namespace

extern "C" gnn_status rt_csr_fill(gnn_ctx *ctx, RtCsr *c) {
  int64_t nv = c->nv, ne = c->ne;
  gnn_status st = rt_cuda_enter(ctx);
  if (st) return st;
  const void *given[] = {c->in_ptr, c->out_ptr, ne ? c->src : NULL, ne ? c->out_eid : NULL, ne ? c->origin : NULL};
  const char *names[] = {"in_ptr", "out_ptr", "src", "out_eid", "edge_origin"};
  for (int i = 0; i < 5; i++)
    if (given[i] && (st = check_pointer(ctx, given[i], names[i]))) return st;
  if ((st = d2d(ctx, c->g_in_ptr, c->in_ptr, sizeof(int64_t) * (size_t)(nv + 1))) ||
      (st = d2d(ctx, c->g_out_ptr, c->out_ptr, sizeof(int64_t) * (size_t)(nv + 1))) ||
      (st = d2d(ctx, c->g_src, c->src, sizeof(int32_t) * (size_t)ne)) ||
      (st = d2d(ctx, c->g_out_eid, c->out_eid, sizeof(int32_t) * (size_t)ne)) ||
      (c->origin && (st = d2d(ctx, c->g_origin, c->origin, sizeof(int64_t) * (size_t)ne))))
    return st;
  /* the rules' first indices (all ones: none yet), then the two maxima (0) */
  void *scratch;
  if ((st = rt_cuda_scratch(ctx, sizeof(unsigned long long) * (RT_CSR_NRULES + 2), &scratch))) return st;
  unsigned long long *d_bad = (unsigned long long *)scratch, *d_max = d_bad + RT_CSR_NRULES;
  CUDA_CHECK(ctx, cudaMemsetAsync(d_bad, 0xff, sizeof(unsigned long long) * RT_CSR_NRULES, ctx->stream));
  CUDA_CHECK(ctx, cudaMemsetAsync(d_max, 0, sizeof(unsigned long long) * 2, ctx->stream));
  vertex_kernel<<<blocks(nv), kBlock, 0, ctx->stream>>>(c->g_in_ptr, c->g_out_ptr, nv, ne, c->in_deg, c->out_deg, d_bad,
                                                         d_max);
  CUDA_CHECK(ctx, cudaGetLastError());
  if (ne) {
    edge_kernel<<<blocks(ne), kBlock, 0, ctx->stream>>>(c->g_in_ptr, c->g_out_ptr, c->g_src, c->g_out_eid, c->g_origin,
                                                         nv, ne, c->g_dst, c->g_out_dst, d_bad);
    CUDA_CHECK(ctx, cudaGetLastError());
  }
  unsigned long long h[RT_CSR_NRULES + 2];
  CUDA_CHECK(ctx, cudaMemcpyAsync(h, d_bad, sizeof h, cudaMemcpyDeviceToHost, ctx->stream));
  CUDA_CHECK(ctx, cudaStreamSynchronize(ctx->stream));
  for (int r = 0; r < RT_CSR_NRULES; r++) c->first_bad[r] = h[r] == ~0ull ? -1 : (int64_t)h[r];
  c->max_in_deg = (int64_t)h[RT_CSR_NRULES];
  c->max_out_deg = (int64_t)h[RT_CSR_NRULES + 1];
  return GNN_OK;
}
