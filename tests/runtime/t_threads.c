/* t_threads.c -- the runtime's thread contract (gnnrt.h): separate models in separate threads.
 *
 *   t_threads GRAPH ITERS LIB.so...
 *
 * Each model library (built by gnnc from a different example) gets its own context, graph and
 * model. A job runs ITERS training steps: forward (training, dropout seeded by the step),
 * backward from a fixed output gradient, an SGD step; it hashes (FNV-1a) the bytes of every
 * output and gradient. The jobs run once one after another, then all at once, one thread
 * each: the contract says the two runs agree to the bit. Under ThreadSanitizer (the runtime and
 * the libraries built with -fsanitize=thread; tests/suites/reliability.sh) the concurrent run
 * is also checked for data races. Like gnn-run, the runtime is reached through the libraries
 * (driver_rt.h), so one binary serves any build of the runtime.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_rt.h"

#define MAXJOBS 16

typedef struct {
  const char *lib_path, *graph;
  int iters;
  const gnn_model_api *api;
  Rt rt;
  uint64_t hash;
  char err[1200];
} Job;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* Rows of a tensor of the model on graph g. */
static int64_t rows_of(const gnn_tensor_info *t, const gnn_graph *g) {
  return t->domain == GNN_DOMAIN_VERTEX ? g->nv : t->domain == GNN_DOMAIN_EDGE ? g->ne : t->domain == GNN_DOMAIN_GRAPH ? g->ng : 1;
}

#define TRY(call)                                                                                            \
  do {                                                                                                       \
    gnn_status st_ = (call);                                                                                 \
    if (st_ != GNN_OK) {                                                                                     \
      snprintf(j->err, sizeof j->err, "%s: %s: %s", #call, rt->status_name(st_), rt->last_error(ctx));      \
      goto out;                                                                                              \
    }                                                                                                        \
  } while (0)

static void *run_job(void *arg) {
  Job *j = (Job *)arg;
  const Rt *rt = &j->rt;
  const gnn_model_api *api = j->api;
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  void *model = NULL;
  float *in[8] = {0}, *gout = NULL, *h = NULL;
  size_t hbytes = 0;
  uint64_t hash = 1469598103934665603ull;
  j->err[0] = 0;
  if (rt->ctx_create(&ctx, 0) != GNN_OK) {
    snprintf(j->err, sizeof j->err, "gnn_ctx_create: %s", rt->last_error(ctx));
    goto out;
  }
  TRY(rt->graph_load(ctx, j->graph, NULL, &g));
  TRY(api->create(ctx, g, 7, &model));
  /* Inputs: fixed pseudo-random values; an edge input holds small integers (relation ids). */
  for (int i = 0; i < api->num_inputs && i < 8; i++) {
    const gnn_tensor_info *t = &api->inputs[i];
    size_t n = (size_t)(rows_of(t, g) * t->width);
    float *v = (float *)calloc(n ? n : 1, sizeof(float));
    for (size_t k = 0; k < n; k++)
      v[k] = t->domain == GNN_DOMAIN_EDGE ? (float)(k % 2) : (float)((k * 2654435761u % 1000) / 1000.0 - 0.5);
    TRY(rt->gmalloc(ctx, (void **)&in[i], n * sizeof(float)));
    gnn_status st = rt->upload(ctx, in[i], v, n * sizeof(float));
    free(v);
    TRY(st);
  }
  size_t on = (size_t)(rows_of(&api->output_info, g) * api->output_info.width);
  {
    float *v = (float *)malloc((on ? on : 1) * sizeof(float));
    for (size_t k = 0; k < on; k++) v[k] = (float)(0.01 * sin((double)k));
    TRY(rt->gmalloc(ctx, (void **)&gout, on * sizeof(float)));
    gnn_status st = rt->upload(ctx, gout, v, on * sizeof(float));
    free(v);
    TRY(st);
  }
  for (int it = 0; it < j->iters; it++) {
    TRY(api->forward(model, (const float *const *)in, 1, 1000 + (uint64_t)it));
    TRY(api->backward(model, gout));
    size_t need = on;
    for (int p = 0; p < api->num_params; p++)
      if ((size_t)api->params[p].width > need) need = (size_t)api->params[p].width;
    if (need * sizeof(float) > hbytes) {
      free(h);
      hbytes = need * sizeof(float);
      h = (float *)malloc(hbytes);
    }
    TRY(rt->download(ctx, h, api->output(model), on * sizeof(float)));
    hash = fnv(hash, h, on * sizeof(float));
    for (int p = 0; p < api->num_params; p++) {
      size_t n = (size_t)api->params[p].width;
      TRY(rt->download(ctx, h, api->grad(model, p), n * sizeof(float)));
      hash = fnv(hash, h, n * sizeof(float));
      TRY(rt->sgd(ctx, api->param(model, p), api->grad(model, p), (int64_t)n, 0.05f, 0.0f));
    }
  }
  TRY(rt->sync(ctx));
out:
  j->hash = hash;
  free(h);
  for (int i = 0; i < 8; i++)
    if (in[i]) rt->gfree(ctx, in[i]);
  if (gout) rt->gfree(ctx, gout);
  if (model) api->destroy(model);
  if (g) rt->graph_free(ctx, g);
  if (ctx) rt->ctx_destroy(ctx);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: t_threads GRAPH ITERS LIB.so...\n");
    return 2;
  }
  int n = argc - 3, fails = 0;
  if (n > MAXJOBS) n = MAXJOBS;
  static Job seq[MAXJOBS], par[MAXJOBS];
  for (int i = 0; i < n; i++) {
    void *lib = NULL;
    seq[i].lib_path = argv[3 + i];
    seq[i].graph = argv[1];
    seq[i].iters = atoi(argv[2]);
    if (!driver_open("t_threads", seq[i].lib_path, &lib, &seq[i].api, &seq[i].rt)) return 1;
    par[i] = seq[i];
  }
  for (int i = 0; i < n; i++) run_job(&seq[i]); /* one after another */
  pthread_t th[MAXJOBS];
  for (int i = 0; i < n; i++)
    if (pthread_create(&th[i], NULL, run_job, &par[i]) != 0) return fprintf(stderr, "pthread_create failed\n"), 1;
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < n; i++) {
    const char *name = seq[i].api->name;
    if (seq[i].err[0] || par[i].err[0]) {
      printf("FAIL threads/%s: %s%s\n", name, seq[i].err[0] ? seq[i].err : par[i].err, seq[i].err[0] ? " (sequential)" : " (threaded)");
      fails++;
    } else if (seq[i].hash != par[i].hash) {
      printf("FAIL threads/%s: outputs and gradients differ: %016llx sequential, %016llx in a thread\n", name,
             (unsigned long long)seq[i].hash, (unsigned long long)par[i].hash);
      fails++;
    } else {
      printf("ok threads/%s\n", name);
    }
  }
  return fails ? 1 : 0;
}
