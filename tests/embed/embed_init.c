/* embed_init.c -- how parameters start, as a driver reads it: gnn_model_api.param_init.
 *
 * A driver (gnn-run, gnn-train, a program of one's own) learns from the model table how create()
 * will initialise each parameter, without creating a model. This program opens libraries the way
 * the drivers do (driver_open, runtime/driver_rt.h) and checks, for tests/python/models/initval.gnn
 * (a parameter of every initialiser: Glorot at rank 2, zeros at rank 1 and 0, a declared value as a
 * literal, a negated literal, a hyper-parameter and a dimension name):
 *
 *   - param_init is there, is what gnn_model_param_init() returns, and holds the right kind and
 *     value for every parameter (the declared values at float32: eps = 0.1f);
 *   - for seeds 0, 1, 7 and 2^64 - 1, create()'s parameters are bit for bit what the description
 *     says: gnn_param_init_glorot(name, rank, dims, seed) for GNN_INIT_GLOROT, zeros, the value;
 *   - a library without gnn_model_param_init (an older gnnc's: its table ends at program) gets
 *     param_init NULL and keeps its program; one without gnn_model_program either (older still)
 *     gets neither, nor input_grads. The drivers never read past such a table's end.
 *
 *   embed_init LIB LIB_WITHOUT_PARAM_INIT LIB_WITHOUT_PROGRAM GRAPH
 *
 * tests/suites/embed.sh builds the three libraries from one generated source (deleting the
 * symbols' definitions) and runs it. One line per check, "ok NAME" or "FAIL NAME: detail".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_rt.h"

static int failures;

static void check(int ok, const char *name, const char *detail) {
  if (ok) {
    printf("ok %s\n", name);
  } else {
    printf("FAIL %s: %s\n", name, detail);
    failures++;
  }
}

/* initval.gnn's parameters as its source declares them. */
static const struct {
  const char *name;
  int kind;
  float value;
} want_init[] = {
    {"init0.W", GNN_INIT_GLOROT, 0.0f},  {"init0.b", GNN_INIT_ZEROS, 0.0f},  {"init0.s", GNN_INIT_ZEROS, 0.0f},
    {"init0.g", GNN_INIT_VALUE, 1.0f},   {"init0.eps", GNN_INIT_VALUE, 0.1f}, {"init0.neg", GNN_INIT_VALUE, -2.0f},
    {"init0.h", GNN_INIT_VALUE, 0.25f},  {"init0.f", GNN_INIT_VALUE, 4.0f},   {"init0.M", GNN_INIT_VALUE, -0.5f},
};
enum { NWANT = sizeof want_init / sizeof want_init[0] };

/* The description of lib's parameters against initval's declarations. */
static void check_description(void *lib, const gnn_model_api *api) {
  char detail[512] = "";
  const gnn_param_init *(*exported)(void) = NULL;
  *(void **)&exported = dlsym(lib, "gnn_model_param_init");
  check(api->param_init && exported && exported() == api->param_init, "param-init/table-and-symbol",
        "the table's param_init and gnn_model_param_init() differ or are missing");
  if (!api->param_init) return;
  int ok = api->num_params == NWANT;
  if (!ok) snprintf(detail, sizeof detail, "%d parameters, want %d", api->num_params, NWANT);
  for (int i = 0; ok && i < NWANT; i++) {
    const gnn_param_init *pi = &api->param_init[i];
    /* the value compared as bits: 0.1f is the float32 the source's 0.1 rounds to */
    if (strcmp(api->params[i].name, want_init[i].name) != 0 || pi->kind != want_init[i].kind ||
        memcmp(&pi->value, &want_init[i].value, sizeof(float)) != 0) {
      snprintf(detail, sizeof detail, "parameter %d '%s': kind %d value %.9g, want '%s' kind %d value %.9g", i,
               api->params[i].name, pi->kind, (double)pi->value, want_init[i].name, want_init[i].kind,
               (double)want_init[i].value);
      ok = 0;
    }
  }
  check(ok, "param-init/kinds-and-values", detail);
}

/* create()'s parameters for each seed against what the description says they are. */
static void check_create_follows(void *lib, const gnn_model_api *api, const Rt *rt, const char *graph_path) {
  gnn_status (*glorot)(const char *, int, const int64_t *, uint64_t, float *) = NULL;
  *(void **)&glorot = dlsym(lib, "gnn_param_init_glorot");
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  if (!glorot || rt->ctx_create(&ctx, 0) != GNN_OK || rt->graph_load(ctx, graph_path, NULL, &g) != GNN_OK) {
    check(0, "param-init/create-setup", ctx ? rt->last_error(ctx) : "no gnn_param_init_glorot or no context");
    if (ctx) rt->ctx_destroy(ctx);
    return;
  }
  const uint64_t seeds[] = {0, 1, 7, UINT64_MAX};
  for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
    char name[64], detail[512] = "";
    snprintf(name, sizeof name, "param-init/create-follows/seed-%llu", (unsigned long long)seeds[s]);
    void *m = NULL;
    if (api->create(ctx, g, seeds[s], &m) != GNN_OK) {
      check(0, name, rt->last_error(ctx));
      continue;
    }
    int ok = 1, glorot_nonzero = 1;
    for (int i = 0; ok && i < api->num_params; i++) {
      const gnn_tensor_info *t = &api->params[i];
      const gnn_param_init *pi = &api->param_init[i];
      size_t n = (size_t)t->width;
      float *got = malloc(n * sizeof(float) + 1), *want = malloc(n * sizeof(float) + 1);
      if (!got || !want || rt->download(ctx, got, api->param(m, i), n * sizeof(float)) != GNN_OK) {
        snprintf(detail, sizeof detail, "parameter '%s': cannot read it", t->name);
        ok = 0;
      } else {
        if (pi->kind == GNN_INIT_GLOROT) {
          glorot(t->name, t->rank, t->dims, seeds[s], want);
          int any = 0;
          for (size_t k = 0; k < n; k++) any |= want[k] != 0.0f;
          glorot_nonzero &= any; /* else the comparison would not tell Glorot from zeros */
        } else {
          for (size_t k = 0; k < n; k++) want[k] = pi->kind == GNN_INIT_VALUE ? pi->value : 0.0f;
        }
        for (size_t k = 0; ok && k < n; k++)
          if (memcmp(&got[k], &want[k], sizeof(float)) != 0) {
            snprintf(detail, sizeof detail, "parameter '%s' (kind %d) element %zu: create %.9g, description %.9g", t->name,
                     pi->kind, k, (double)got[k], (double)want[k]);
            ok = 0;
          }
      }
      free(got), free(want);
    }
    if (ok && !glorot_nonzero) snprintf(detail, sizeof detail, "a Glorot parameter is all zeros"), ok = 0;
    check(ok, name, detail);
    api->destroy(m);
  }
  rt->graph_free(ctx, g);
  rt->ctx_destroy(ctx);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: embed_init LIB LIB_WITHOUT_PARAM_INIT LIB_WITHOUT_PROGRAM GRAPH\n");
    return 2;
  }
  void *lib = NULL;
  const gnn_model_api *api = NULL;
  Rt rt;
  if (!driver_open("embed_init", argv[1], &lib, &api, &rt)) return 1;
  check_description(lib, api);
  if (api->param_init) check_create_follows(lib, api, &rt, argv[4]);

  /* an older gnnc's libraries: the driver's copy of the table ends where theirs does */
  void *old = NULL;
  const gnn_model_api *old_api = NULL;
  Rt old_rt;
  if (driver_open("embed_init", argv[2], &old, &old_api, &old_rt))
    check(old_api->param_init == NULL && old_api->program && strcmp(old_api->program, api->program) == 0 && old_api->input_grads,
          "param-init/older-library-has-none", "param_init read from a table that ends at program, or program lost");
  else
    check(0, "param-init/older-library-has-none", "driver_open failed");
  if (driver_open("embed_init", argv[3], &old, &old_api, &old_rt))
    check(old_api->param_init == NULL && old_api->program == NULL && old_api->input_grads == NULL,
          "param-init/oldest-library-has-none", "fields read past the end of a table that ends at backward_gemms");
  else
    check(0, "param-init/oldest-library-has-none", "driver_open failed");
  return failures ? 1 : 0;
}
