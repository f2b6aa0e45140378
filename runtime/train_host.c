/* train_host.c -- the training helpers of libgnnrt_host: loss, accuracy and optimiser steps.
 *
 * Plain loops over rows or elements with OpenMP across them. Reductions are made
 * deterministic by writing one value per row in the parallel loop and summing those in row
 * order afterwards, so the loss does not change with OMP_NUM_THREADS. Inside a row the
 * softmax is computed in float64 with the maximum subtracted (log-sum-exp), so large logits
 * neither overflow nor lose the small terms. The CUDA versions (train_cuda.cu) compute the
 * same quantities with a warp per row, in float32.
 *
 * Labels and mask are read only on the rows they select: a row outside the mask may hold any
 * label. The argument checks (shared with the CUDA build in spirit, not in code) happen before
 * anything is written.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

/* Checks the arguments and the labels of the counted rows; *count = rows with mask and a
 * label >= 0. */
static gnn_status check_rows(gnn_ctx *ctx, const char *fn, const float *logits, const int32_t *labels, const uint8_t *mask,
                             const float *dlogits, int64_t n, int64_t C, int64_t *count) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (n < 0 || C < 1 || (n > 0 && (!logits || !labels)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: bad arguments (n = %lld, C = %lld, logits %s, labels %s)", fn,
                         (long long)n, (long long)C, logits ? "set" : "NULL", labels ? "set" : "NULL");
  gnn_status st = rt_rows_spans(ctx, fn, logits, labels, mask, dlogits, n, C);
  if (st) return st;
  int64_t cnt = 0;
  for (int64_t i = 0; i < n; i++) {
    if (mask && !mask[i]) continue;
    if (labels[i] < -1 || labels[i] >= C)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: row %lld has label %d, outside -1 .. %lld (C = %lld classes)", fn,
                           (long long)i, (int)labels[i], (long long)(C - 1), (long long)C);
    cnt += labels[i] >= 0;
  }
  if (cnt == 0)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: no rows to average over (the mask selects no row with a known label)", fn);
  *count = cnt;
  return GNN_OK;
}

/* The classes whose exps a row keeps for its gradient (on the stack; more are recomputed). */
enum { XENT_ROW = 64 };

/* Checks, then one parallel pass per row (loss and gradient), then the sum in row order. */
gnn_status gnn_softmax_xent(gnn_ctx *ctx, const float *logits, const int32_t *labels, const uint8_t *mask, int64_t n,
                            int64_t C, float *loss_out_host, float *dlogits) {
  int64_t count;
  gnn_status st = check_rows(ctx, "gnn_softmax_xent", logits, labels, mask, dlogits, n, C, &count);
  if (st) return st;
  if (!loss_out_host) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_softmax_xent: loss_out_host is NULL");
  double *row_loss = (double *)rt_malloc(ctx, rt_mul((size_t)n, sizeof(double)), "the row losses");
  if (!row_loss) return GNN_ERR_OOM;
  double inv = 1.0 / (double)count;
  /* One pass per row: log-sum-exp, the loss, and the gradient (scaled by 1 / count). */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const float *x = logits + i * C;
    float *d = dlogits ? dlogits + i * C : NULL;
    int32_t y = (mask && !mask[i]) ? -1 : labels[i];
    if (y < 0) {
      row_loss[i] = 0;
      if (d)
        for (int64_t c = 0; c < C; c++) d[c] = 0;
      continue;
    }
    /* each exp once where the row fits the stack array, else twice: a libm exp is most of this
     * loop's time (200,000 x 16 logits, 1 thread: 41 ms with two an element, 22-31 with one) */
    double e[XENT_ROW], mx = x[0], sum = 0;
    for (int64_t c = 1; c < C; c++) mx = x[c] > mx ? x[c] : mx;
    for (int64_t c = 0; c < C; c++) {
      double ec = exp((double)x[c] - mx);
      if (c < XENT_ROW) e[c] = ec;
      sum += ec;
    }
    row_loss[i] = mx + log(sum) - (double)x[y];
    if (d)
      for (int64_t c = 0; c < C; c++) d[c] = (float)(((c < XENT_ROW ? e[c] : exp((double)x[c] - mx)) / sum - (c == y)) * inv);
  }
  double total = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < n; i++) {
    total += row_loss[i];
    if (bad < 0 && !isfinite(row_loss[i])) bad = i;
  }
  free(row_loss);
  if (bad >= 0)
    return gnn_set_error(ctx, GNN_ERR_NUMERIC, "gnn_softmax_xent: the loss is not finite (row %lld has a NaN or infinite logit)",
                         (long long)bad);
  *loss_out_host = (float)(total * inv);
  return GNN_OK;
}

/* Argmax per row, first index on ties; the count is an integer reduction, exact in any order. */
gnn_status gnn_accuracy(gnn_ctx *ctx, const float *logits, const int32_t *labels, const uint8_t *mask, int64_t n,
                        int64_t C, double *acc) {
  int64_t count, correct = 0;
  gnn_status st = check_rows(ctx, "gnn_accuracy", logits, labels, mask, NULL, n, C, &count);
  if (st) return st;
  if (!acc) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_accuracy: acc is NULL");
#pragma omp parallel for schedule(static) reduction(+ : correct)
  for (int64_t i = 0; i < n; i++) {
    if ((mask && !mask[i]) || labels[i] < 0) continue;
    const float *x = logits + i * C;
    /* argmax, the first index on ties; a row with a NaN logit has no prediction: wrong */
    int64_t best = 0;
    int nan = x[0] != x[0];
    for (int64_t c = 1; c < C; c++) {
      if (x[c] != x[c])
        nan = 1;
      else if (x[c] > x[best])
        best = c;
    }
    correct += !nan && best == labels[i];
  }
  *acc = (double)correct / (double)count;
  return GNN_OK;
}

gnn_status gnn_sgd_step(gnn_ctx *ctx, float *param, const float *grad, int64_t n, float lr, float weight_decay) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (n < 0 || (n > 0 && (!param || !grad)) || !isfinite(lr) || !isfinite(weight_decay))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sgd_step: bad arguments (n = %lld, lr = %g, weight_decay = %g)",
                         (long long)n, (double)lr, (double)weight_decay);
  gnn_status st = rt_step_spans(ctx, "gnn_sgd_step", n, param, grad, NULL, NULL);
  if (st) return st;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) param[i] -= lr * (grad[i] + weight_decay * param[i]);
  return GNN_OK;
}

/* One Adam step, element-wise. */
gnn_status gnn_adam_step(gnn_ctx *ctx, float *param, const float *grad, float *m, float *v, int64_t n, float lr,
                         float beta1, float beta2, float eps, float weight_decay, int64_t step) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (n < 0 || (n > 0 && (!param || !grad || !m || !v)) || step < 1 || !isfinite(lr) || !(beta1 >= 0 && beta1 < 1) ||
      !(beta2 >= 0 && beta2 < 1) || !(eps >= 0) || !isfinite(eps) || !isfinite(weight_decay))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_adam_step: bad arguments (n = %lld, step = %lld, lr = %g, betas = %g, %g, "
                         "eps = %g, weight_decay = %g)", (long long)n, (long long)step, (double)lr, (double)beta1,
                         (double)beta2, (double)eps, (double)weight_decay);
  gnn_status st = rt_step_spans(ctx, "gnn_adam_step", n, param, grad, m, v);
  if (st) return st;
  /* As torch.optim.Adam: the bias corrections in float64, then used as float32 scalars. */
  float step_size = (float)((double)lr / (1.0 - pow((double)beta1, (double)step)));
  float bc2_sqrt = (float)sqrt(1.0 - pow((double)beta2, (double)step));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    float g = grad[i] + weight_decay * param[i];
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    param[i] -= step_size * m[i] / (sqrtf(v[i]) / bc2_sqrt + eps);
  }
  return GNN_OK;
}
