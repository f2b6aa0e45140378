/* spmm.c -- gnn_spmm's argument checks (both builds) and, in libgnnrt_host, gnn_spmm itself: a
 * plain weighted sum over the edges (gnnc --spmm=cusparse on the host target), the CPU
 * reference of spmm_cuda.cu's cuSPARSE call.
 *
 * A vertex's sum is accumulated in float64 over its edges in CSR (CSC) order, then rounded once:
 * the fused walks it replaces sum in float64 too, so a library built either way agrees with the
 * float64 interpreter to the same tolerance. OpenMP over the vertices, dynamic chunks (a hub's
 * row is as long as thousands of others).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

gnn_status rt_spmm_args(gnn_ctx *ctx, const gnn_graph *g, int dir, const float *x, const float *w, float *y, int64_t width) {
  gnn_status st = rt_check_graph(ctx, g, "gnn_spmm");
  if (st) return st;
  if (dir != GNN_SPMM_IN_EDGES && dir != GNN_SPMM_OUT_EDGES)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_spmm: direction %d is neither GNN_SPMM_IN_EDGES nor GNN_SPMM_OUT_EDGES", dir);
  if (width < 1) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_spmm: width %lld (at least 1)", (long long)width);
  if (g->nv > 0 && (!x || !y)) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_spmm: x or y is NULL");
  if (g->nv > 0 && x == y) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_spmm: x and y are the same array");
  if (g->ne > 0 && w && (const void *)w == (const void *)y)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_spmm: w and y are the same array");
  /* x and y are nv x width floats, w one per edge: each inside its allocation */
  if ((st = rt_check_array(ctx, "gnn_spmm", "x", x, g->nv, width, width, sizeof(float))) ||
      (st = rt_check_array(ctx, "gnn_spmm", "y", y, g->nv, width, width, sizeof(float))) ||
      (st = rt_check_array(ctx, "gnn_spmm", "w", w, g->ne, 1, 1, sizeof(float))))
    return st;
  return GNN_OK;
}

#ifndef GNNRT_CUDA
enum { SPMM_AHEAD = 16 };

/* acc[0 .. n) += w * x[0 .. n): the loop the sums spend their time in. The library is built for
 * any x86-64, so the loop is compiled for AVX-512 and AVX2 too and the loader picks what the CPU
 * has (GCC's function multiversioning): scalar SSE2 conversions and adds ran GCN's 64-wide sum
 * on the 200k power-law graph 10x slower than the fused walks. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("O3")))
#endif
static void row_axpy(double *restrict acc, const float *restrict x, double w, int64_t n) {
  for (int64_t c = 0; c < n; c++) acc[c] += w * (double)x[c];
}

gnn_status gnn_spmm(gnn_ctx *ctx, const gnn_graph *g, int dir, const float *x, const float *w, float *y, int64_t width) {
  gnn_status st = rt_spmm_args(ctx, g, dir, x, w, y, width);
  if (st) return st;
  const int64_t nv = g->nv, ne = g->ne;
  const int64_t *ptr = dir == GNN_SPMM_IN_EDGES ? g->in_ptr : g->out_ptr;
  /* the far end at CSR (CSC) position k: src[k], or out_dst[k] = dst[out_eid[k]], read in order */
  const int32_t *far = dir == GNN_SPMM_IN_EDGES ? g->src : g->out_dst;
  const int32_t *eid = dir == GNN_SPMM_IN_EDGES ? NULL : g->out_eid; /* CSC position -> edge id: the weight's */
  int failed = 0;
#pragma omp parallel
  {
    double *acc = (double *)malloc(sizeof(double) * (size_t)width);
    if (!acc) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 64)
    for (int64_t v = 0; v < nv; v++) {
      if (!acc) continue;
      memset(acc, 0, sizeof(double) * (size_t)width);
      for (int64_t k = ptr[v]; k < ptr[v + 1]; k++) {
        /* the row SPMM_AHEAD edges on asked for now (a hint that never faults; the edges run on
         * across vertices in CSR/CSC order): rows gathered at random wait on memory otherwise,
         * one after the other, as compiler/emit_host_prefetch.c explains for the fused walks */
        if (k + SPMM_AHEAD < ne) {
          const float *ahead = x + (int64_t)far[k + SPMM_AHEAD] * width;
          for (int64_t b = 0; b < width; b += 16) __builtin_prefetch(ahead + b);
          if (w && eid) __builtin_prefetch(w + eid[k + SPMM_AHEAD]);
        }
        row_axpy(acc, x + (int64_t)far[k] * width, w ? (double)w[eid ? eid[k] : k] : 1.0, width);
      }
      float *yr = y + v * width;
      for (int64_t c = 0; c < width; c++) yr[c] = (float)acc[c];
    }
    free(acc);
  }
  if (failed) return gnn_set_error(ctx, GNN_ERR_OOM, "gnn_spmm: out of host memory for a row of %lld sums", (long long)width);
  return GNN_OK;
}
#endif
