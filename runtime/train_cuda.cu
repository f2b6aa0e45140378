/* train_cuda.cu -- the training helpers of libgnnrt: loss, accuracy and optimiser steps on the GPU.
 *
 * The same quantities as train_host.c, computed on the context's stream:
 *   - softmax_xent and accuracy use a warp per row (lanes stride over the C classes, shuffles
 *     reduce the max, the sum and the argmax); each row writes one value and one flag into the
 *     context's scratch buffer, and a single-block kernel sums those in a fixed order, so the
 *     loss is deterministic. The host reads back four numbers (sum, count, first bad label,
 *     first non-finite row) and, for the gradient, launches a second warp-per-row kernel with
 *     1 / count.
 *   - SGD and Adam are element-wise grid-stride kernels; Adam's bias corrections are computed
 *     on the host in float64 as torch.optim.Adam does.
 * Row flags: 0 = not counted (outside the mask or label -1), 1 = counted, 2 = a label outside
 * -1 .. C-1 (only rows inside the mask are checked). Every launch is followed by a check of
 * cudaGetLastError.
 */
#include "internal.h"

#include <math.h>

namespace {

constexpr int kBlock = 256;
constexpr int kWarpsPerBlock = kBlock / 32;

struct RowTotals {
  double sum;
  long long count, bad_label_row, nonfinite_row;
};

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/* The row's label, or -1 when the row is not counted; -2 for a label out of range. */
__device__ int row_label(const int32_t *labels, const uint8_t *mask, int64_t row, int64_t C) {
  if (mask && !mask[row]) return -1;
  int y = labels[row];
  return y < -1 || y >= C ? -2 : y;
}

/* Max and sum of exp(x - max) over one row, in every lane. */
__device__ void row_lse(const float *x, int64_t C, int lane, float *mx, float *sum) {
  float m = -INFINITY;
  for (int64_t c = lane; c < C; c += 32) m = fmaxf(m, x[c]);
  m = warp_max(m);
  float s = 0;
  for (int64_t c = lane; c < C; c += 32) s += expf(x[c] - m);
  *mx = m;
  *sum = warp_sum(s);
}

__global__ void xent_rows_kernel(const float *logits, const int32_t *labels, const uint8_t *mask, int64_t n, int64_t C,
                                 double *row_val, int *row_flag) {
  int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= n) return;
  int y = row_label(labels, mask, row, C);
  if (y < 0) {
    if (lane == 0) {
      row_val[row] = 0;
      row_flag[row] = y == -2 ? 2 : 0;
    }
    return;
  }
  float mx, sum;
  row_lse(logits + row * C, C, lane, &mx, &sum);
  if (lane == 0) {
    row_val[row] = (double)mx + log((double)sum) - (double)logits[row * C + y];
    row_flag[row] = 1;
  }
}

__global__ void accuracy_rows_kernel(const float *logits, const int32_t *labels, const uint8_t *mask, int64_t n,
                                     int64_t C, double *row_val, int *row_flag) {
  int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= n) return;
  int y = row_label(labels, mask, row, C);
  if (y < 0) {
    if (lane == 0) {
      row_val[row] = 0;
      row_flag[row] = y == -2 ? 2 : 0;
    }
    return;
  }
  const float *x = logits + row * C;
  /* argmax, the first index on ties: each lane scans its columns in order, then the warp
   * keeps the larger value, or the smaller index when equal. A row with a NaN logit has no
   * prediction and counts as wrong (as in train_host.c). */
  float best = -INFINITY;
  long long arg = -1;
  bool nan = false;
  for (int64_t c = lane; c < C; c += 32) {
    const float v = x[c];
    if (v != v)
      nan = true;
    else if (arg < 0 || v > best) {
      best = v;
      arg = c;
    }
  }
  nan = __any_sync(0xffffffffu, nan);
  for (int o = 16; o > 0; o /= 2) {
    float b = __shfl_xor_sync(0xffffffffu, best, o);
    long long a = __shfl_xor_sync(0xffffffffu, arg, o);
    if (a >= 0 && (arg < 0 || b > best || (b == best && a < arg))) {
      best = b;
      arg = a;
    }
  }
  if (lane == 0) {
    row_val[row] = !nan && arg == y ? 1.0 : 0.0;
    row_flag[row] = 1;
  }
}

/* One block: totals over the row values and flags, in a fixed order. */
__global__ void totals_kernel(const double *row_val, const int *row_flag, int64_t n, RowTotals *out) {
  __shared__ double s_sum[1024];
  __shared__ long long s_cnt[1024], s_bad[1024], s_nan[1024];
  int t = threadIdx.x;
  double sum = 0;
  long long cnt = 0, bad = -1, nan_row = -1;
  for (int64_t i = t; i < n; i += blockDim.x) {
    int f = row_flag[i];
    if (f == 2 && bad < 0) bad = i;
    if (f == 1) {
      sum += row_val[i];
      cnt++;
      if (!isfinite(row_val[i]) && nan_row < 0) nan_row = i;
    }
  }
  s_sum[t] = sum;
  s_cnt[t] = cnt;
  s_bad[t] = bad;
  s_nan[t] = nan_row;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h) {
      s_sum[t] += s_sum[t + h];
      s_cnt[t] += s_cnt[t + h];
      long long b = s_bad[t + h], q = s_nan[t + h];
      if (b >= 0 && (s_bad[t] < 0 || b < s_bad[t])) s_bad[t] = b;
      if (q >= 0 && (s_nan[t] < 0 || q < s_nan[t])) s_nan[t] = q;
    }
    __syncthreads();
  }
  if (t == 0) {
    out->sum = s_sum[0];
    out->count = s_cnt[0];
    out->bad_label_row = s_bad[0];
    out->nonfinite_row = s_nan[0];
  }
}

__global__ void xent_grad_kernel(const float *logits, const int32_t *labels, const uint8_t *mask, int64_t n, int64_t C,
                                 float inv_count, float *dlogits) {
  int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= n) return;
  int y = row_label(labels, mask, row, C);
  float *d = dlogits + row * C;
  if (y < 0) {
    for (int64_t c = lane; c < C; c += 32) d[c] = 0;
    return;
  }
  const float *x = logits + row * C;
  float mx, sum;
  row_lse(x, C, lane, &mx, &sum);
  for (int64_t c = lane; c < C; c += 32) d[c] = (expf(x[c] - mx) / sum - (c == y ? 1.0f : 0.0f)) * inv_count;
}

__global__ void sgd_kernel(float *param, const float *grad, int64_t n, float lr, float wd) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    param[i] -= lr * (grad[i] + wd * param[i]);
}

__global__ void adam_kernel(float *param, const float *grad, float *m, float *v, int64_t n, float beta1, float beta2,
                            float eps, float wd, float step_size, float bc2_sqrt) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float g = grad[i] + wd * param[i];
    float mi = beta1 * m[i] + (1 - beta1) * g;
    float vi = beta2 * v[i] + (1 - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    param[i] -= step_size * mi / (sqrtf(vi) / bc2_sqrt + eps);
  }
}

unsigned row_blocks(int64_t n) { return (unsigned)((n + kWarpsPerBlock - 1) / kWarpsPerBlock); }

unsigned elem_blocks(int64_t n) {
  int64_t b = (n + kBlock - 1) / kBlock;
  return (unsigned)(b > 65535 ? 65535 : b < 1 ? 1 : b);
}

/* Argument checks, then the per-row kernel `rows` and the totals, read back to the host. */
gnn_status row_totals(gnn_ctx *ctx, const char *fn, bool accuracy, const float *logits, const int32_t *labels,
                      const uint8_t *mask, const float *dlogits, int64_t n, int64_t C, RowTotals *tot) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (n < 0 || C < 1 || (n > 0 && (!logits || !labels)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: bad arguments (n = %lld, C = %lld, logits %s, labels %s)", fn,
                         (long long)n, (long long)C, logits ? "set" : "NULL", labels ? "set" : "NULL");
  gnn_status st = rt_rows_spans(ctx, fn, logits, labels, mask, dlogits, n, C);
  if (st) return st;
  if (n == 0)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: no rows to average over (the mask selects no row with a known label)", fn);
  st = rt_cuda_enter(ctx);
  if (st) return st;
  void *scratch;
  size_t bytes = 64 + (size_t)n * (sizeof(double) + sizeof(int));
  if ((st = rt_cuda_scratch(ctx, bytes, &scratch))) return st;
  RowTotals *d_tot = (RowTotals *)scratch;
  double *row_val = (double *)((char *)scratch + 64);
  int *row_flag = (int *)(row_val + n);
  if (accuracy)
    accuracy_rows_kernel<<<row_blocks(n), kBlock, 0, ctx->stream>>>(logits, labels, mask, n, C, row_val, row_flag);
  else
    xent_rows_kernel<<<row_blocks(n), kBlock, 0, ctx->stream>>>(logits, labels, mask, n, C, row_val, row_flag);
  CUDA_CHECK(ctx, cudaGetLastError());
  totals_kernel<<<1, 1024, 0, ctx->stream>>>(row_val, row_flag, n, d_tot);
  CUDA_CHECK(ctx, cudaGetLastError());
  CUDA_CHECK(ctx, cudaMemcpyAsync(tot, d_tot, sizeof *tot, cudaMemcpyDeviceToHost, ctx->stream));
  CUDA_CHECK(ctx, cudaStreamSynchronize(ctx->stream));
  if (tot->bad_label_row >= 0) {
    int32_t y = 0;
    CUDA_CHECK(ctx, cudaMemcpyAsync(&y, labels + tot->bad_label_row, sizeof y, cudaMemcpyDeviceToHost, ctx->stream));
    CUDA_CHECK(ctx, cudaStreamSynchronize(ctx->stream));
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: row %lld has label %d, outside -1 .. %lld (C = %lld classes)", fn,
                         tot->bad_label_row, (int)y, (long long)(C - 1), (long long)C);
  }
  if (tot->count == 0)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: no rows to average over (the mask selects no row with a known label)", fn);
  return GNN_OK;
}

} // namespace

extern "C" gnn_status gnn_softmax_xent(gnn_ctx *ctx, const float *logits, const int32_t *labels, const uint8_t *mask,
                                       int64_t n, int64_t C, float *loss_out_host, float *dlogits) {
  if (!rt_check_ctx(ctx) && !loss_out_host)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_softmax_xent: loss_out_host is NULL");
  RowTotals tot;
  gnn_status st = row_totals(ctx, "gnn_softmax_xent", false, logits, labels, mask, dlogits, n, C, &tot);
  if (st) return st;
  if (tot.nonfinite_row >= 0 || !isfinite(tot.sum))
    return gnn_set_error(ctx, GNN_ERR_NUMERIC, "gnn_softmax_xent: the loss is not finite (row %lld has a NaN or infinite logit)",
                         tot.nonfinite_row);
  *loss_out_host = (float)(tot.sum / (double)tot.count);
  if (dlogits) {
    xent_grad_kernel<<<row_blocks(n), kBlock, 0, ctx->stream>>>(logits, labels, mask, n, C,
                                                                (float)(1.0 / (double)tot.count), dlogits);
    CUDA_CHECK(ctx, cudaGetLastError());
  }
  return GNN_OK;
}

extern "C" gnn_status gnn_accuracy(gnn_ctx *ctx, const float *logits, const int32_t *labels, const uint8_t *mask,
                                   int64_t n, int64_t C, double *acc) {
  if (!rt_check_ctx(ctx) && !acc) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_accuracy: acc is NULL");
  RowTotals tot;
  gnn_status st = row_totals(ctx, "gnn_accuracy", true, logits, labels, mask, NULL, n, C, &tot);
  if (st) return st;
  *acc = tot.sum / (double)tot.count;
  return GNN_OK;
}

extern "C" gnn_status gnn_sgd_step(gnn_ctx *ctx, float *param, const float *grad, int64_t n, float lr,
                                   float weight_decay) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (n < 0 || (n > 0 && (!param || !grad)) || !isfinite(lr) || !isfinite(weight_decay))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgd_step: bad arguments (n = %lld, lr = %g, weight_decay = %g)",
                         (long long)n, (double)lr, (double)weight_decay);
  gnn_status st = rt_step_spans(ctx, "gnn_sgd_step", n, param, grad, NULL, NULL);
  if (st) return st;
  if (n == 0) return GNN_OK;
  st = rt_cuda_enter(ctx);
  if (st) return st;
  sgd_kernel<<<elem_blocks(n), kBlock, 0, ctx->stream>>>(param, grad, n, lr, weight_decay);
  CUDA_CHECK(ctx, cudaGetLastError());
  return GNN_OK;
}

extern "C" gnn_status gnn_adam_step(gnn_ctx *ctx, float *param, const float *grad, float *m, float *v, int64_t n,
                                    float lr, float beta1, float beta2, float eps, float weight_decay, int64_t step) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (n < 0 || (n > 0 && (!param || !grad || !m || !v)) || step < 1 || !isfinite(lr) || !(beta1 >= 0 && beta1 < 1) ||
      !(beta2 >= 0 && beta2 < 1) || !(eps >= 0) || !isfinite(eps) || !isfinite(weight_decay))
    return gnn_set_error(ctx, GNN_ERR_INVALID,
                         "gnn_adam_step: bad arguments (n = %lld, step = %lld, lr = %g, betas = %g, %g, eps = %g, "
                         "weight_decay = %g)",
                         (long long)n, (long long)step, (double)lr, (double)beta1, (double)beta2, (double)eps,
                         (double)weight_decay);
  gnn_status st = rt_step_spans(ctx, "gnn_adam_step", n, param, grad, m, v);
  if (st) return st;
  if (n == 0) return GNN_OK;
  st = rt_cuda_enter(ctx);
  if (st) return st;
  float step_size = (float)((double)lr / (1.0 - pow((double)beta1, (double)step)));
  float bc2_sqrt = (float)sqrt(1.0 - pow((double)beta2, (double)step));
  adam_kernel<<<elem_blocks(n), kBlock, 0, ctx->stream>>>(param, grad, m, v, n, beta1, beta2, eps, weight_decay,
                                                          step_size, bc2_sqrt);
  CUDA_CHECK(ctx, cudaGetLastError());
  return GNN_OK;
}
