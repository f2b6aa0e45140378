/* embed_api.c -- the generated C API's checks, and two models in one program.
 *
 * Compiled with generated/gcn.c and generated/gat.c in (neither with GNNC_MODEL_ENTRY, so the
 * two link side by side) against the host runtime; tests/suites/embed.sh builds and runs it:
 *
 *   embed_api GRAPH_DIR PARAMS_FROM_GNNC_RUN BAD_PARAMS_DIR TMP_DIR
 *
 * One line per check, "ok NAME" or "FAIL NAME: detail" (tests/runtime/rt_test.h), exit 1 on
 * any failure. What is checked: every entry point with NULL pointers and out-of-range indices
 * (a status or NULL, never a crash), the order of calls (no output before a forward, no
 * backward without its own forward, no backward of an inference forward: it keeps nothing for
 * the backward), load/save of parameter files (round trip, the interpreter's file equal to the
 * Glorot initialisation, bad files refused without changing anything), and the second model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/rt_test.h"
#include "gat.h"
#include "gcn.h"

static float *host_copy(gnn_ctx *ctx, const float *dev, size_t n) {
  float *h = malloc(n * sizeof(float) + 1);
  if (h && gnn_download(ctx, h, dev, n * sizeof(float)) != GNN_OK) {
    free(h);
    return NULL;
  }
  return h;
}

/* All parameters of two GCN models equal (1), or not (0). */
static int same_params(gnn_ctx *ctx, gcn_model *a, gcn_model *b) {
  int same = 1;
  for (int i = 0; i < GCN_NUM_PARAMS; i++) {
    size_t n = (size_t)gcn_api()->params[i].width;
    float *x = host_copy(ctx, gcn_param(a, i), n), *y = host_copy(ctx, gcn_param(b, i), n);
    same = same && x && y && memcmp(x, y, n * sizeof(float)) == 0;
    free(x), free(y);
  }
  return same;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: embed_api GRAPH_DIR PARAMS_FROM_GNNC_RUN BAD_PARAMS_DIR TMP_DIR\n");
    return 2;
  }
  const char *dir = argv[1], *ref_params = argv[2], *bad_dir = argv[3], *tmp = argv[4];
  gnn_ctx *ctx = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) return 1;
  gnn_dataset *ds = NULL;
  if (gnn_dataset_load(ctx, dir, NULL, &ds) != GNN_OK) {
    fprintf(stderr, "embed_api: %s\n", gnn_last_error(ctx));
    return 1;
  }
  const gnn_graph *g = ds->graph;
  gcn_model *m = NULL, *m2 = NULL;
  gnn_memory_plan plan;

  /* create */
  check(gcn_create(NULL, g, 1, &m) == GNN_ERR_INVALID && m == NULL, "create/null-ctx", "m = %p", (void *)m);
  check_status(ctx, gcn_create(ctx, g, 1, NULL), GNN_ERR_INVALID, "create/null-out", "gcn_create: out is NULL", NULL);
  check_status(ctx, gcn_create(ctx, NULL, 1, &m), GNN_ERR_INVALID, "create/null-graph", "gcn_create: no graph", NULL);
  check(m == NULL, "create/failed-gives-null", "m = %p", (void *)m);
  if (gcn_create(ctx, g, 1, &m) != GNN_OK || gcn_create(ctx, g, 2, &m2) != GNN_OK) {
    fprintf(stderr, "embed_api: %s\n", gnn_last_error(ctx));
    return 1;
  }

  /* the input: the features, zero-padded to the model's width */
  const int64_t W = gcn_api()->inputs[0].width, C = gcn_api()->output_info.width, nv = ds->nv;
  float *h = calloc((size_t)(nv * W), sizeof(float)), *x = NULL, *dy = NULL;
  for (int64_t v = 0; v < nv; v++)
    for (int64_t k = 0; k < ds->nfeat && k < W; k++) h[v * W + k] = ds->features[v * ds->nfeat + k];
  gnn_malloc(ctx, (void **)&x, sizeof(float) * (size_t)(nv * W));
  gnn_upload(ctx, x, h, sizeof(float) * (size_t)(nv * W));
  float *ones = malloc(sizeof(float) * (size_t)(nv * C));
  for (int64_t i = 0; i < nv * C; i++) ones[i] = 1.0f / (float)(nv * C);
  gnn_malloc(ctx, (void **)&dy, sizeof(float) * (size_t)(nv * C));
  gnn_upload(ctx, dy, ones, sizeof(float) * (size_t)(nv * C));

  /* NULL pointers and indices */
  check(gcn_forward(NULL, x, 0, 1) == GNN_ERR_INVALID, "forward/null-model", "%s", "");
  check_status(ctx, gcn_forward(m, NULL, 0, 1), GNN_ERR_INVALID, "forward/null-input", "gcn_forward: input 'x' is NULL", NULL);
  check_status(ctx, gcn_api()->forward(m, NULL, 0, 1), GNN_ERR_INVALID, "api-forward/null-inputs", "the input array is NULL", NULL);
  check(gcn_api()->forward(NULL, NULL, 0, 1) == GNN_ERR_INVALID, "api-forward/null-model", "%s", "");
  check(gcn_backward(NULL, dy) == GNN_ERR_INVALID, "backward/null-model", "%s", "");
  check(gcn_output(NULL) == NULL && gcn_param(NULL, 0) == NULL && gcn_grad(NULL, 0) == NULL, "accessors/null-model", "%s", "");
  check(gcn_param(m, -1) == NULL && gcn_param(m, GCN_NUM_PARAMS) == NULL && gcn_grad(m, GCN_NUM_PARAMS) == NULL &&
            gcn_param(m, 0) != NULL,
        "accessors/index-range", "%s", "");
  check(gcn_param_index(NULL) == -1 && gcn_param_index("nope") == -1 && gcn_param_index("gcnconv0.W") >= 0,
        "param-index", "%s", "");
  memset(&plan, 0xff, sizeof plan);
  gcn_memory_plan(NULL, &plan);
  check(plan.total == 0 && plan.arena == 0 && plan.buffers == 0, "memory-plan/null-model", "total %zu", plan.total);
  gcn_memory_plan(m, NULL); /* no crash */
  gcn_memory_plan(m, &plan);
  check(plan.total > 0 && plan.total == plan.arena + plan.params + plan.grads + plan.output, "memory-plan/model",
        "total %zu", plan.total);
  check(gcn_api()->memory_plan != NULL && gcn_api()->output(NULL) == NULL, "api/null", "%s", "");

  /* order of calls */
  check(gcn_output(m) == NULL, "order/no-output-before-forward", "%s", "");
  check_status(ctx, gcn_backward(m, dy), GNN_ERR_INVALID, "order/no-backward-before-forward", "no forward to differentiate",
               NULL);
  check(gcn_forward(m, x, 0, 1) == GNN_OK && gcn_output(m) != NULL, "order/forward-inference", "%s", gnn_last_error(ctx));
  check_status(ctx, gcn_backward(m, dy), GNN_ERR_INVALID, "order/no-backward-of-inference",
               "needs a forward with training = 1", NULL);
  check_status(ctx, gcn_backward(m, NULL), GNN_ERR_INVALID, "backward/null-grad", "grad_out is NULL", NULL);
  check(gcn_forward(m, x, 1, 7) == GNN_OK && gcn_backward(m, dy) == GNN_OK, "order/forward-backward", "%s",
        gnn_last_error(ctx));
  check_status(ctx, gcn_backward(m, dy), GNN_ERR_INVALID, "order/one-backward-per-forward", "each backward needs its own forward",
               NULL);
  check(gcn_output(m) != NULL, "order/output-after-backward", "%s", "");
  check(gcn_forward(m, NULL, 1, 7) == GNN_ERR_INVALID && gcn_output(m) != NULL, "order/invalid-forward-changes-nothing", "%s", "");

  /* parameter files */
  char path[4096], path2[4096];
  snprintf(path, sizeof path, "%s/m.params", tmp);
  check(gcn_save_params(NULL, path) == GNN_ERR_INVALID, "params/save-null-model", "%s", "");
  check_status(ctx, gcn_save_params(m, NULL), GNN_ERR_INVALID, "params/save-null-path", "path is NULL", NULL);
  check_status(ctx, gcn_load_params(m2, NULL), GNN_ERR_INVALID, "params/load-null-path", "path is NULL", NULL);
  check(gcn_load_params(NULL, path) == GNN_ERR_INVALID, "params/load-null-model", "%s", "");
  check(!same_params(ctx, m, m2), "params/different-seeds-differ", "%s", "");
  check(gcn_save_params(m, path) == GNN_OK && gcn_load_params(m2, path) == GNN_OK && same_params(ctx, m, m2),
        "params/round-trip", "%s", gnn_last_error(ctx));
  /* the interpreter's file (gnnc run --seed 1 --save-params) is the Glorot initialisation of seed 1 */
  gcn_model *m1 = NULL;
  gcn_create(ctx, g, 1, &m1);
  check(gcn_load_params(m2, ref_params) == GNN_OK && same_params(ctx, m1, m2), "params/interpreter-file", "%s",
        gnn_last_error(ctx));
  /* bad files: refused with the reader's message; the model's parameters unchanged */
  static const struct {
    const char *file;
    gnn_status st;
    const char *needle;
  } bad[] = {
      {"missing.params", GNN_ERR_INVALID, "no tensor 'gcnconv1.b'"},
      {"extra.params", GNN_ERR_INVALID, "is not a parameter of the model"},
      {"shape.params", GNN_ERR_INVALID, "has shape"},
      {"nan.params", GNN_ERR_FORMAT, "not a finite"},
      {"truncated.params", GNN_ERR_FORMAT, "missing"},
      {"does-not-exist.params", GNN_ERR_IO, "does-not-exist"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(path2, sizeof path2, "%s/%s", bad_dir, bad[i].file);
    char name[96];
    snprintf(name, sizeof name, "params/bad/%s", bad[i].file);
    check_status(ctx, gcn_load_params(m2, path2), bad[i].st, name, bad[i].needle, NULL);
    snprintf(name, sizeof name, "params/bad/%s/unchanged", bad[i].file);
    check(same_params(ctx, m1, m2), name, "a refused file changed the parameters");
  }
  snprintf(path2, sizeof path2, "%s/no-such-dir/m.params", tmp);
  check_status(ctx, gcn_save_params(m, path2), GNN_ERR_IO, "params/save-unwritable", "no-such-dir", NULL);

  /* the second model in the same program: its own names, its own table */
  gat_model *a = NULL;
  const int64_t WA = gat_api()->inputs[0].width;
  float *xa = NULL, *ha = calloc((size_t)(nv * WA), sizeof(float));
  for (int64_t v = 0; v < nv; v++)
    for (int64_t k = 0; k < ds->nfeat && k < WA; k++) ha[v * WA + k] = ds->features[v * ds->nfeat + k];
  gnn_malloc(ctx, (void **)&xa, sizeof(float) * (size_t)(nv * WA));
  gnn_upload(ctx, xa, ha, sizeof(float) * (size_t)(nv * WA));
  check(gat_create(ctx, g, 1, &a) == GNN_OK && gat_forward(a, xa, 0, 1) == GNN_OK && gat_output(a) != NULL &&
            strcmp(gat_api()->name, "GAT") == 0 && strcmp(gcn_api()->name, "GCN") == 0 && gat_api() != (const void *)gcn_api(),
        "two-models/gat-beside-gcn", "%s", gnn_last_error(ctx));
  check(gat_api()->num_params == GAT_NUM_PARAMS && gcn_api()->num_params == GCN_NUM_PARAMS, "two-models/tables", "%s", "");

  gat_destroy(a);
  gcn_destroy(m), gcn_destroy(m2), gcn_destroy(m1);
  gcn_destroy(NULL);
  gnn_free(ctx, x), gnn_free(ctx, dy), gnn_free(ctx, xa);
  free(h), free(ha), free(ones);
  gnn_dataset_free(ctx, ds);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}
