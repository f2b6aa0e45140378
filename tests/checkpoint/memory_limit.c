/* memory_limit.c -- a generated library refuses a graph its plan does not fit, before it
 * allocates anything (docs/runtime.md, Memory; issue 13's bad input).
 *
 *   memory_limit LIB.so GRAPH
 *
 * Opens the model library like gnn-run (runtime/driver_rt.h), learns its plan on GRAPH (create
 * without a limit, memory_plan, destroy), then caps the context (gnn_set_memory_limit) and checks:
 *   1. a cap one byte below parameters + gradients + output + inference arena: create returns
 *      GNN_ERR_OOM naming the bytes needed and available, and allocates nothing (live and peak
 *      unchanged);
 *   2. a cap of exactly that: create succeeds and an inference forward runs; for a library with
 *      a backward whose training arena is larger, a training forward returns GNN_ERR_OOM naming
 *      the training arena's bytes and what is available, allocating nothing, and an inference
 *      forward still runs after it;
 *   3. without the cap, a training forward runs.
 * Prints what it saw; exits 0 when every check holds, 1 otherwise (2 on a runtime error). */
#include "driver_rt.h"

#include <string.h>

static int fail_rt(const Rt *rt, gnn_ctx *ctx, const char *what) {
  fprintf(stderr, "memory_limit: %s: %s\n", what, ctx ? rt->last_error(ctx) : "no context");
  return 2;
}

static int bad = 0;
static void expect(int ok, const char *what, const char *detail) {
  printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail ? ": " : "", detail ? detail : "");
  if (!ok) bad = 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: memory_limit LIB.so GRAPH\n");
    return 2;
  }
  void *lib = NULL;
  const gnn_model_api *api = NULL;
  Rt rt = {0};
  if (!driver_open("memory_limit", argv[1], &lib, &api, &rt)) return 2;
  gnn_status (*set_limit)(gnn_ctx *, size_t) = (gnn_status(*)(gnn_ctx *, size_t))dlsym(lib, "gnn_set_memory_limit");
  void (*reset_peak)(gnn_ctx *) = (void (*)(gnn_ctx *))dlsym(lib, "gnn_mem_reset_peak");
  if (!set_limit || !reset_peak) {
    fprintf(stderr, "memory_limit: the library's runtime has no gnn_set_memory_limit or gnn_mem_reset_peak\n");
    return 2;
  }
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  if (rt.ctx_create(&ctx, 0) != GNN_OK) return fail_rt(&rt, ctx, "context");
  gnn_graph_opts opts = {0};
  if (rt.graph_load(ctx, argv[2], &opts, &g) != GNN_OK) return fail_rt(&rt, ctx, "graph");
  float *in[16] = {0};
  for (int i = 0; i < api->num_inputs && i < 16; i++) {
    const gnn_tensor_info *t = &api->inputs[i];
    size_t rows = t->domain == GNN_DOMAIN_EDGE ? (size_t)g->ne : t->domain == GNN_DOMAIN_VERTEX ? (size_t)g->nv : 1;
    if (rt.gmalloc(ctx, (void **)&in[i], rows * (size_t)t->width * sizeof(float)) != GNN_OK ||
        rt.memset0(ctx, in[i], rows * (size_t)t->width * sizeof(float)) != GNN_OK)
      return fail_rt(&rt, ctx, "inputs");
  }
  const float *const *inputs = (const float *const *)in;

  /* the plan on this graph */
  void *m = NULL;
  if (api->create(ctx, g, 1, &m) != GNN_OK) return fail_rt(&rt, ctx, "create without a limit");
  gnn_memory_plan plan;
  api->memory_plan(m, &plan);
  api->destroy(m);
  m = NULL;
  size_t fixed = plan.params + plan.grads + plan.output;
  size_t infer = plan.arena_inference ? plan.arena_inference : 1; /* an empty arena is one byte */
  size_t base = 0;
  rt.mem_usage(ctx, &base, NULL);
  printf("plan: parameters, gradients and output %zu, inference arena %zu, training arena %zu (live before: %zu)\n", fixed,
         plan.arena_inference, plan.arena, base);

  /* 1. one byte short: refused, nothing allocated */
  char detail[1200];
  set_limit(ctx, base + fixed + infer - 1);
  reset_peak(ctx);
  gnn_status st = api->create(ctx, g, 1, &m);
  size_t live = 0, peak = 0;
  rt.mem_usage(ctx, &live, &peak);
  const char *msg = rt.last_error(ctx);
  char need[64];
  snprintf(need, sizeof need, "needs %zu bytes", fixed + plan.arena_inference);
  snprintf(detail, sizeof detail, "%s: %s", rt.status_name(st), msg);
  expect(st == GNN_ERR_OOM && !m && strstr(msg, need) && strstr(msg, "available"), "create refuses a cap one byte short", detail);
  snprintf(detail, sizeof detail, "live %zu -> %zu, peak %zu", base, live, peak);
  expect(live == base && peak == base, "create allocated nothing", detail);
  if (m) api->destroy(m), m = NULL;

  /* 2. exactly enough for inference */
  set_limit(ctx, base + fixed + infer);
  st = api->create(ctx, g, 1, &m);
  snprintf(detail, sizeof detail, "%s: %s", rt.status_name(st), st ? rt.last_error(ctx) : "");
  expect(st == GNN_OK, "create fits the inference plan exactly", detail);
  if (st) return 1;
  st = api->forward(m, inputs, 0, 7);
  snprintf(detail, sizeof detail, "%s: %s", rt.status_name(st), st ? rt.last_error(ctx) : "");
  expect(st == GNN_OK, "an inference forward runs under the cap", detail);
  if (api->has_backward && plan.arena > infer) {
    rt.mem_usage(ctx, &base, NULL);
    reset_peak(ctx);
    st = api->forward(m, inputs, 1, 7);
    msg = rt.last_error(ctx);
    snprintf(need, sizeof need, "training arena needs %zu bytes", plan.arena);
    snprintf(detail, sizeof detail, "%s: %s", rt.status_name(st), msg);
    expect(st == GNN_ERR_OOM && strstr(msg, need) && strstr(msg, "available"), "a training forward refuses its arena", detail);
    rt.mem_usage(ctx, &live, &peak);
    snprintf(detail, sizeof detail, "live %zu -> %zu, peak %zu (the inference arena, %zu, is freed first)", base, live, peak, infer);
    expect(peak <= base && live + infer == base, "the refused training forward allocated nothing", detail);
    st = api->forward(m, inputs, 0, 7);
    snprintf(detail, sizeof detail, "%s: %s", rt.status_name(st), st ? rt.last_error(ctx) : "");
    expect(st == GNN_OK, "an inference forward still runs after it", detail);
    /* 3. without the cap */
    set_limit(ctx, 0);
    st = api->forward(m, inputs, 1, 7);
    snprintf(detail, sizeof detail, "%s: %s", rt.status_name(st), st ? rt.last_error(ctx) : "");
    expect(st == GNN_OK, "without the cap, a training forward runs", detail);
  }
  api->destroy(m);
  for (int i = 0; i < 16; i++)
    if (in[i]) rt.gfree(ctx, in[i]);
  rt.graph_free(ctx, g);
  rt.ctx_destroy(ctx);
  dlclose(lib);
  return bad;
}
