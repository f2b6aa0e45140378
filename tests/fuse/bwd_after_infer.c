/* bwd_after_infer.c -- the training flag's contract of a generated library (docs/passes/fuse.md,
 * Memory): an inference forward allocates the inference arena and keeps nothing for the
 * backward, so a backward after it is refused with GNN_ERR_INVALID; after a training forward the
 * backward runs, and an inference forward after that reuses the training arena.
 *
 *   cc ... tests/fuse/bwd_after_infer.c generated/gat.c -lgnnrt_host ... ; ./a.out data/cora
 *
 * Prints one line per check and exits 0 if all hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gat.h"

static int failures;
static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  failures += !ok;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "data/cora";
  gnn_ctx *ctx = NULL;
  gnn_dataset *ds = NULL;
  gat_model *m = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK || gnn_dataset_load(ctx, dir, NULL, &ds) != GNN_OK) {
    fprintf(stderr, "bwd_after_infer: %s\n", gnn_last_error(ctx));
    return 1;
  }
  const gnn_tensor_info *in = &gat_api()->inputs[0];
  int64_t C = gat_api()->output_info.width;
  float *x = calloc((size_t)(ds->nv * in->width), sizeof(float)), *g = calloc((size_t)(ds->nv * C), sizeof(float));
  for (int64_t i = 0; i < ds->nv * C; i++) g[i] = 1.0f / (float)(1 + i % 7);
  for (int64_t v = 0; v < ds->nv; v++)
    for (int64_t k = 0; k < ds->nfeat && k < in->width; k++) x[v * in->width + k] = ds->features[v * ds->nfeat + k];
  check(gat_create(ctx, ds->graph, 1, &m) == GNN_OK, "create");
  gnn_memory_plan plan;
  gat_memory_plan(m, &plan);
  check(plan.arena_inference > 0 && plan.arena_inference < plan.arena, "the inference arena is smaller than the training one");
  size_t live0 = 0, peak0 = 0, live1 = 0, peak1 = 0;
  gnn_mem_usage(ctx, &live0, &peak0);
  check(gat_forward(m, x, 0, 7) == GNN_OK, "inference forward");
  gnn_mem_usage(ctx, &live1, &peak1);
  check(live1 - live0 == plan.arena_inference, "an inference forward allocates the inference arena, not the training one");
  gnn_status st = gat_backward(m, g);
  check(st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), "training = 1"), "backward after an inference forward is refused");
  check(gat_forward(m, x, 1, 7) == GNN_OK, "training forward");
  size_t live2 = 0, peak2 = 0;
  gnn_mem_usage(ctx, &live2, &peak2);
  check(live2 - live0 == plan.arena, "a training forward allocates the training arena in place of the inference one");
  check(gat_backward(m, g) == GNN_OK, "backward after a training forward");
  check(gat_forward(m, x, 0, 7) == GNN_OK, "inference forward on the training arena");
  size_t live3 = 0, peak3 = 0;
  gnn_mem_usage(ctx, &live3, &peak3);
  check(live3 == live2, "no new allocation");
  check(gat_backward(m, g) == GNN_ERR_INVALID, "and a backward after it is refused again");
  gat_destroy(m);
  free(x);
  free(g);
  gnn_dataset_free(ctx, ds);
  gnn_ctx_destroy(ctx);
  return failures ? 1 : 0;
}
