/* embed_gcn.c -- a program of one's own that embeds a model compiled by gnnc.
 *
 * It includes the generated header generated/gcn.h, is compiled together with the generated
 * source generated/gcn.c (or links libgcn.so), and links the host runtime:
 *
 *   cc -std=c11 -O2 -fopenmp -Iruntime -Igenerated tests/embed/embed_gcn.c generated/gcn.c \
 *      -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,$PWD/build/lib -o embed_gcn
 *   ./embed_gcn data/cora
 *
 * It loads a dataset, creates the model (parameters Glorot-initialised from seed 1), runs one
 * inference forward on the dataset's features, and prints the output's checksum and the
 * predicted class of the first vertices. The same lines work with the CUDA build (generated/
 * gcn.cu through nvcc, libgnnrt): buffers are then device memory, which is why the features go
 * through gnn_upload and the output through gnn_download. docs/embedding.md walks through it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcn.h"

#define CHECK(call)                                                                                \
  do {                                                                                             \
    gnn_status st_ = (call);                                                                       \
    if (st_ != GNN_OK) {                                                                           \
      fprintf(stderr, "embed_gcn: %s: %s\n", gnn_status_name(st_), gnn_last_error(ctx));           \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "data/cora";
  int rc = 1;
  gnn_ctx *ctx = NULL;
  gnn_dataset *ds = NULL;
  gcn_model *m = NULL;
  float *x = NULL, *y = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) {
    fprintf(stderr, "embed_gcn: %s\n", gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 1;
  }
  CHECK(gnn_dataset_load(ctx, dir, NULL, &ds));
  const gnn_tensor_info *in = &gcn_api()->inputs[0];
  if (!ds->features || ds->nfeat > in->width) {
    fprintf(stderr, "embed_gcn: %s: the model wants %lld feature columns\n", dir, (long long)in->width);
    goto out;
  }
  CHECK(gcn_create(ctx, ds->graph, 1, &m));
  /* The features, zero-padded to the model's input width, on the device. */
  size_t bytes = sizeof(float) * (size_t)(ds->nv * in->width);
  float *h = calloc((size_t)(ds->nv * in->width), sizeof(float));
  for (int64_t v = 0; v < ds->nv; v++)
    for (int64_t k = 0; k < ds->nfeat; k++) h[v * in->width + k] = ds->features[v * ds->nfeat + k];
  gnn_status st = gnn_malloc(ctx, (void **)&x, bytes);
  if (st == GNN_OK) st = gnn_upload(ctx, x, h, bytes);
  free(h);
  CHECK(st);
  CHECK(gcn_forward(m, x, /*training=*/0, /*seed=*/1));
  const int64_t C = gcn_api()->output_info.width;
  y = malloc(sizeof(float) * (size_t)(ds->nv * C));
  CHECK(gnn_download(ctx, y, gcn_output(m), sizeof(float) * (size_t)(ds->nv * C)));
  double sum = 0, asum = 0;
  for (int64_t i = 0; i < ds->nv * C; i++) sum += y[i], asum += fabs(y[i]);
  printf("checksum: sum %.10g  abs-sum %.10g\n", sum, asum);
  printf("predicted classes of vertices 0..9:");
  for (int64_t v = 0; v < 10 && v < ds->nv; v++) {
    int64_t best = 0;
    for (int64_t c = 1; c < C; c++)
      if (y[v * C + c] > y[v * C + best]) best = c;
    printf(" %lld", (long long)best);
  }
  printf("\nparameter 'gcnconv0.W' is number %d of %d\n", gcn_param_index("gcnconv0.W"), GCN_NUM_PARAMS);
  rc = 0;
out:
  free(y);
  if (x) gnn_free(ctx, x);
  gcn_destroy(m);
  if (ds) gnn_dataset_free(ctx, ds);
  gnn_ctx_destroy(ctx);
  return rc;
}
