/* profile.c -- GNN_PROFILE=1: time per generated step (kernel, GEMM, zero/fill), per context.
 *
 * Generated forward and backward functions call gnn_profile_mark at their start and
 * gnn_profile_step after each step, with a constant label ("forward 3 gemm %8 apply_vertex.linear").
 * Unless the environment variable GNN_PROFILE is set to something other than "" or "0" when the
 * context makes its first call, both return at once (one load and one branch). With profiling
 * on, each call synchronises the context (gnn_sync: the CUDA build waits for the stream), so a
 * step's time is its own, and adds the time since the previous call to the step's row; at
 * gnn_ctx_destroy the rows are printed to stderr, slowest first, with the share of gemm and
 * kernel steps. Synchronising after every step makes a profiled run slower than an unprofiled
 * one on a GPU (launches no longer overlap); on the host the steps are synchronous anyway.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct RtProfRow {
  const char *label;
  double secs;
  long calls;
};

static double prof_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int prof_on(gnn_ctx *ctx) {
  if (!ctx) return 0;
  if (ctx->prof_state == 0) {
    const char *e = getenv("GNN_PROFILE");
    ctx->prof_state = e && *e && strcmp(e, "0") != 0 ? 1 : -1;
  }
  return ctx->prof_state > 0;
}

void gnn_profile_mark(gnn_ctx *ctx) {
  if (!prof_on(ctx)) return;
  gnn_sync(ctx);
  ctx->prof_t = prof_now();
}

void gnn_profile_step(gnn_ctx *ctx, const char *label) {
  if (!prof_on(ctx) || !label) return;
  gnn_sync(ctx);
  double t = prof_now(), dt = t - ctx->prof_t;
  ctx->prof_t = t;
  RtProfRow *row = NULL;
  for (size_t i = 0; i < ctx->prof_n && !row; i++) /* labels are string constants: the pointer first */
    if (ctx->prof_rows[i].label == label || strcmp(ctx->prof_rows[i].label, label) == 0) row = &ctx->prof_rows[i];
  if (!row) {
    if (ctx->prof_n == ctx->prof_cap) {
      size_t cap = ctx->prof_cap ? 2 * ctx->prof_cap : 64;
      RtProfRow *r = (RtProfRow *)realloc(ctx->prof_rows, cap * sizeof *r);
      if (!r) return; /* profiling is best effort: no memory, no row */
      ctx->prof_rows = r, ctx->prof_cap = cap;
    }
    row = &ctx->prof_rows[ctx->prof_n++];
    row->label = label, row->secs = 0, row->calls = 0;
  }
  row->secs += dt;
  row->calls++;
}

static int by_time(const void *a, const void *b) {
  double x = ((const RtProfRow *)a)->secs, y = ((const RtProfRow *)b)->secs;
  return x < y ? 1 : x > y ? -1 : 0;
}

void rt_profile_report(gnn_ctx *ctx) {
  if (!ctx || !ctx->prof_rows) return;
  qsort(ctx->prof_rows, ctx->prof_n, sizeof *ctx->prof_rows, by_time);
  double total = 0, gemm = 0, kern = 0;
  for (size_t i = 0; i < ctx->prof_n; i++) {
    const RtProfRow *r = &ctx->prof_rows[i];
    total += r->secs;
    if (strstr(r->label, " gemm ")) gemm += r->secs;
    else if (strstr(r->label, " kernel ")) kern += r->secs;
  }
  fprintf(stderr, "gnn-profile: %zu steps, %.3f ms in all (GNN_PROFILE=1; each step timed between two gnn_sync)\n", ctx->prof_n,
          total * 1e3);
  fprintf(stderr, "gnn-profile: %12s %7s %10s %6s  %s\n", "total ms", "calls", "mean ms", "%", "step");
  for (size_t i = 0; i < ctx->prof_n; i++) {
    const RtProfRow *r = &ctx->prof_rows[i];
    fprintf(stderr, "gnn-profile: %12.3f %7ld %10.4f %6.2f  %s\n", r->secs * 1e3, r->calls, r->secs * 1e3 / (double)r->calls,
            total > 0 ? 100 * r->secs / total : 0.0, r->label);
  }
  if (total > 0)
    fprintf(stderr, "gnn-profile: gemm %.1f%%, kernels %.1f%%, other (zero, fill) %.1f%%\n", 100 * gemm / total,
            100 * kern / total, 100 * (total - gemm - kern) / total);
  free(ctx->prof_rows);
  ctx->prof_rows = NULL;
  ctx->prof_n = ctx->prof_cap = 0;
}
