/* peak_plan.c -- the memory a generated library allocates for one training step equals the plan
 * it reports (docs/passes/checkpoint.md, The memory plan).
 *
 *   peak_plan LIB.so GRAPH
 *
 * Opens the model library like gnn-run (runtime/driver_rt.h), loads the graph, allocates the
 * inputs and the backward's seed, then counts the bytes the model allocates from create through
 * a training forward and a backward (the context's peak counter, gnn_mem_usage, less what was
 * live before create). Prints
 *   V <nv> E <ne> peak <bytes> plan <total> arena <arena> params <params> grads <grads> output <output>
 * and exits 0 when peak == plan.total, 1 otherwise (2 on a runtime error). */
#include "driver_rt.h"

static int fail_rt(const Rt *rt, gnn_ctx *ctx, const char *what) {
  fprintf(stderr, "peak_plan: %s: %s\n", what, ctx ? rt->last_error(ctx) : "no context");
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: peak_plan LIB.so GRAPH\n");
    return 2;
  }
  void *lib = NULL;
  const gnn_model_api *api = NULL;
  Rt rt = {0};
  if (!driver_open("peak_plan", argv[1], &lib, &api, &rt)) return 2;
  void (*reset_peak)(gnn_ctx *) = (void (*)(gnn_ctx *))dlsym(lib, "gnn_mem_reset_peak");
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  if (!reset_peak) {
    fprintf(stderr, "peak_plan: the library's runtime has no gnn_mem_reset_peak\n");
    return 2;
  }
  if (rt.ctx_create(&ctx, 0) != GNN_OK) return fail_rt(&rt, ctx, "context");
  gnn_graph_opts opts = {0};
  if (rt.graph_load(ctx, argv[2], &opts, &g) != GNN_OK) return fail_rt(&rt, ctx, "graph");
  int64_t nv = g->nv, ne = g->ne;
  float *in[16] = {0}, *grad_out = NULL;
  for (int i = 0; i < api->num_inputs && i < 16; i++) {
    const gnn_tensor_info *t = &api->inputs[i];
    size_t rows = t->domain == GNN_DOMAIN_EDGE ? (size_t)ne : t->domain == GNN_DOMAIN_VERTEX ? (size_t)nv : 1;
    if (rt.gmalloc(ctx, (void **)&in[i], rows * (size_t)t->width * sizeof(float)) != GNN_OK ||
        rt.memset0(ctx, in[i], rows * (size_t)t->width * sizeof(float)) != GNN_OK)
      return fail_rt(&rt, ctx, "inputs");
  }
  const gnn_tensor_info *ot = &api->output_info;
  size_t orows = ot->domain == GNN_DOMAIN_EDGE ? (size_t)ne : ot->domain == GNN_DOMAIN_VERTEX ? (size_t)nv : 1;
  size_t obytes = orows * (size_t)ot->width * sizeof(float);
  if (rt.gmalloc(ctx, (void **)&grad_out, obytes) != GNN_OK || rt.memset0(ctx, grad_out, obytes) != GNN_OK)
    return fail_rt(&rt, ctx, "grad_out");
  size_t base = 0, peak = 0;
  rt.mem_usage(ctx, &base, NULL);
  reset_peak(ctx);
  void *m = NULL;
  if (api->create(ctx, g, 1, &m) != GNN_OK) return fail_rt(&rt, ctx, "create");
  if (api->forward(m, (const float *const *)in, api->has_backward, 7) != GNN_OK) return fail_rt(&rt, ctx, "forward");
  if (api->has_backward && api->backward(m, grad_out) != GNN_OK) return fail_rt(&rt, ctx, "backward");
  if (rt.sync(ctx) != GNN_OK) return fail_rt(&rt, ctx, "sync");
  rt.mem_usage(ctx, NULL, &peak);
  gnn_memory_plan plan;
  api->memory_plan(m, &plan);
  size_t used = peak - base;
  printf("V %lld E %lld peak %zu plan %zu arena %zu params %zu grads %zu output %zu\n", (long long)nv, (long long)ne, used,
         (size_t)plan.total, (size_t)plan.arena, (size_t)plan.params, (size_t)plan.grads, (size_t)plan.output);
  api->destroy(m);
  for (int i = 0; i < 16; i++)
    if (in[i]) rt.gfree(ctx, in[i]);
  rt.gfree(ctx, grad_out);
  rt.graph_free(ctx, g);
  rt.ctx_destroy(ctx);
  dlclose(lib);
  return used == (size_t)plan.total ? 0 : 1;
}
