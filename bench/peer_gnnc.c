/* bench/peer_gnnc.c -- the gnnc side of bench/peers.sh: one model library, one graph, one process.
 *
 *   peer_gnnc LIB.so --graph G.gcsr [--forward N] [--warmup N] [--steps N] [--seed S] [--dump DIR]
 *
 * Loads the graph as stored (a .gcsr written by gen_graph has its self-loops already), generates
 * the model's vertex input (uniform in [-1, 1), splitmix64 from the seed) and a label per vertex
 * (uniform over the output's width), creates the model (gnnc's seeded Glorot parameters), then:
 *
 *   - `--warmup` untimed and `--forward` timed inference forwards (each followed by gnn_sync);
 *   - `--steps` training steps, each: forward in training mode (dropout on, a new seed per step),
 *     softmax cross-entropy over all vertices (gnn_softmax_xent, the gradient into a buffer),
 *     backward, one Adam step per parameter (lr 0.01, PyTorch's betas and eps, no weight decay),
 *     gnn_sync. The first two steps are warm-up; the median is over the rest.
 *
 * and prints one "key value" line per result, which bench/peers.sh reads:
 *
 *   forward_ms  median of the timed forwards      train_ms  median step time
 *   forward_min_ms, train_min_ms  the fastest of each (a loaded machine's best estimate of the idle time)
 *   peak_rss_mib  the process's peak resident set (getrusage), everything included
 *   rss_base_mib  the same after the graph's load, before the model (peer_pyg.py's: after import and load)
 *   runtime_peak_mib  the runtime's peak allocation counter (device memory with a CUDA library)
 *   plan_arena_mib, plan_total_mib  the model's memory plan (arena; arena + params + grads + output)
 *   status  ok, or oom (an allocation failed: the result of the run, exit 3), or error (exit 1)
 *
 * --dump DIR (the numerical check against PyG) writes, after creating the model, DIR/params.txt
 * (the tensor text format of gnn-run --params), DIR/x.bin (the input, float32, vertex rows) and,
 * after one inference forward, DIR/out.bin (the output, float32, vertex rows), then stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "driver_rt.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform01(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1.0p-53; }
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *t, int64_t n) {
  if (n <= 0) return NAN;
  qsort(t, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}
static bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return false;
  *out = v;
  return true;
}
static double peak_rss_mib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}
static bool write_bin(const char *dir, const char *name, const float *p, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return fprintf(stderr, "peer_gnnc: cannot write %s: %s\n", path, strerror(errno)), false;
  bool ok = fwrite(p, sizeof(float), n, f) == n;
  if (fclose(f) != 0) ok = false;
  if (!ok) fprintf(stderr, "peer_gnnc: cannot write %s\n", path);
  return ok;
}

static void usage(FILE *f) {
  fputs("usage: peer_gnnc LIBMODEL.so --graph G.gcsr [--forward N] [--warmup N] [--steps N] [--seed S] [--dump DIR]\n"
        "  --forward N   timed inference forwards (default 10); --warmup N untimed ones first (default 2)\n"
        "  --steps N     training steps, the first 2 untimed (default 20; 0: none)\n"
        "  --dump DIR    write params.txt, x.bin and out.bin (one inference forward) for the check, then stop\n",
        f);
}

/* An allocation failure is a result (oom), anything else an error. */
#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    gnn_status st_ = (call);                                                                           \
    if (st_ != GNN_OK) {                                                                               \
      fprintf(stderr, "peer_gnnc: %s: %s\n", rt.status_name(st_), rt.last_error(ctx));                   \
      if (st_ == GNN_ERR_OOM) rc = 3;                                                                  \
      goto out;                                                                                        \
    }                                                                                                  \
  } while (0)

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *libpath = NULL, *graph = NULL, *dump = NULL;
  int64_t nfwd = 10, warmup = 2, steps = 20, seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(n) (strcmp(a, n) == 0 && v && (i++, true))
#define NUM(n, var, lo, hi)                                                                                        \
  else if (OPT(n)) {                                                                                               \
    if (!parse_i64(v, lo, hi, &var)) return fprintf(stderr, "peer_gnnc: %s wants an integer in [%d, %lld], got '%s'\n", n, lo, (long long)(hi), v), 2; \
  }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return usage(stdout), 0;
    else if (OPT("--graph")) graph = v;
    else if (OPT("--dump")) dump = v;
    NUM("--forward", nfwd, 1, 1000000)
    NUM("--warmup", warmup, 0, 1000000)
    NUM("--steps", steps, 0, 1000000)
    NUM("--seed", seed, 0, INT64_MAX)
    else if (a[0] == '-') return fprintf(stderr, "peer_gnnc: unknown option '%s' (or it lacks its value; see --help)\n", a), 2;
    else if (!libpath) libpath = a;
    else return fprintf(stderr, "peer_gnnc: more than one model library ('%s' and '%s')\n", libpath, a), 2;
  }
  if (!libpath || !graph) return usage(stderr), 2;

  int rc = 1;
  Rt rt = {0};
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  void *model = NULL, *lib = NULL;
  float *x = NULL, *hx = NULL, *dlogits = NULL, **mom = NULL, **vel = NULL, *hout = NULL;
  int32_t *labels = NULL, *hlabels = NULL;
  double *times = NULL;
  const gnn_model_api *api = NULL;
  if (!driver_open("peer_gnnc", libpath, &lib, &api, &rt)) goto out;
  if (api->num_inputs != 1 || api->inputs[0].domain != GNN_DOMAIN_VERTEX || api->output_info.domain != GNN_DOMAIN_VERTEX ||
      api->output_info.rank != 1) {
    fprintf(stderr, "peer_gnnc: %s: the benchmark needs a model with one vertex input and a vertex[C] output\n", libpath);
    goto out;
  }
  if (steps > 0 && !api->has_backward) {
    fprintf(stderr, "peer_gnnc: %s was compiled without autodiff: no training step (use --steps 0)\n", libpath);
    goto out;
  }
  if (rt.ctx_create(&ctx, 0) != GNN_OK) {
    fprintf(stderr, "peer_gnnc: %s\n", rt.last_error(ctx));
    goto out;
  }
  double t0 = now();
  CHECK(rt.graph_load(ctx, graph, NULL, &g));
  printf("side gnnc\nmodel %s\ntarget %s\nnv %lld\nne %lld\nload_s %.3f\n", api->name,
         api->target == GNN_TARGET_CUDA ? "cuda" : "host", (long long)g->nv, (long long)g->ne, now() - t0);
  printf("rss_base_mib %.2f\n", peak_rss_mib()); /* as peer_pyg.py's: the graph loaded, no model yet */
  const int64_t nv = g->nv, F = api->inputs[0].width, C = api->output_info.width;
  CHECK(api->create(ctx, g, (uint64_t)seed, &model));

  /* input and labels */
  hx = malloc(sizeof(float) * (size_t)(nv * F));
  hlabels = malloc(sizeof(int32_t) * (size_t)nv);
  if (!hx || !hlabels) {
    fprintf(stderr, "peer_gnnc: out of host memory for the input (%lld x %lld)\n", (long long)nv, (long long)F);
    rc = 3;
    goto out;
  }
  uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 7;
  for (int64_t i = 0; i < nv * F; i++) hx[i] = (float)(2 * uniform01(&s) - 1);
  for (int64_t v = 0; v < nv; v++) hlabels[v] = (int32_t)(splitmix(&s) % (uint64_t)C);
  CHECK(rt.gmalloc(ctx, (void **)&x, sizeof(float) * (size_t)(nv * F)));
  CHECK(rt.upload(ctx, x, hx, sizeof(float) * (size_t)(nv * F)));
  CHECK(rt.gmalloc(ctx, (void **)&labels, sizeof(int32_t) * (size_t)nv));
  CHECK(rt.upload(ctx, labels, hlabels, sizeof(int32_t) * (size_t)nv));
  const float *const inputs[1] = {x};

  if (dump) {
    int np = api->num_params;
    const char **names = calloc((size_t)np + 1, sizeof(char *));
    int *ranks = calloc((size_t)np + 1, sizeof(int));
    int64_t(*dims)[4] = calloc((size_t)np + 1, sizeof *dims);
    float **data = calloc((size_t)np + 1, sizeof(float *));
    gnn_status st = GNN_OK;
    for (int i = 0; i < np && st == GNN_OK; i++) {
      const gnn_tensor_info *t = &api->params[i];
      names[i] = t->name, ranks[i] = t->rank;
      memcpy(dims[i], t->dims, sizeof dims[i]);
      data[i] = malloc(sizeof(float) * (size_t)(t->width ? t->width : 1));
      st = rt.download(ctx, data[i], api->param(model, i), sizeof(float) * (size_t)t->width);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/params.txt", dump);
    if (st == GNN_OK) st = rt.tf_write(ctx, path, np, names, ranks, (const int64_t(*)[4])dims, (const float *const *)data);
    for (int i = 0; i < np; i++) free(data[i]);
    free(names), free(ranks), free(dims), free(data);
    CHECK(st);
    CHECK(api->forward(model, inputs, 0, 0));
    CHECK(rt.sync(ctx));
    hout = malloc(sizeof(float) * (size_t)(nv * C));
    CHECK(rt.download(ctx, hout, api->output(model), sizeof(float) * (size_t)(nv * C)));
    if (!write_bin(dump, "x.bin", hx, (size_t)(nv * F)) || !write_bin(dump, "out.bin", hout, (size_t)(nv * C))) goto out;
    printf("dump %s\nF %lld\nC %lld\nstatus ok\n", dump, (long long)F, (long long)C);
    rc = 0;
    goto out;
  }

  /* inference forwards */
  times = malloc(sizeof(double) * (size_t)(nfwd + steps + 1));
  for (int64_t r = 0; r < warmup + nfwd; r++) {
    double t1 = now();
    CHECK(api->forward(model, inputs, 0, 0));
    CHECK(rt.sync(ctx));
    if (r >= warmup) times[r - warmup] = now() - t1;
  }
  printf("forward_ms %.4f\nforward_runs %lld\n", 1e3 * median(times, nfwd), (long long)nfwd);
  if (nfwd > 0) printf("forward_min_ms %.4f\n", 1e3 * times[0]); /* median sorted them */

  /* training steps */
  if (steps > 0) {
    int np = api->num_params;
    mom = calloc((size_t)np + 1, sizeof(float *));
    vel = calloc((size_t)np + 1, sizeof(float *));
    for (int i = 0; i < np; i++) {
      size_t b = sizeof(float) * (size_t)api->params[i].width;
      CHECK(rt.gmalloc(ctx, (void **)&mom[i], b));
      CHECK(rt.gmalloc(ctx, (void **)&vel[i], b));
      CHECK(rt.memset0(ctx, mom[i], b));
      CHECK(rt.memset0(ctx, vel[i], b));
    }
    CHECK(rt.gmalloc(ctx, (void **)&dlogits, sizeof(float) * (size_t)(nv * C)));
    int64_t timed = 0;
    float loss = 0;
    for (int64_t k = 1; k <= steps; k++) {
      double t1 = now();
      CHECK(api->forward(model, inputs, 1, (uint64_t)seed * 1000003u + (uint64_t)k));
      CHECK(rt.xent(ctx, api->output(model), labels, NULL, nv, C, &loss, dlogits));
      CHECK(api->backward(model, dlogits));
      for (int i = 0; i < np; i++)
        CHECK(rt.adam(ctx, api->param(model, i), api->grad(model, i), mom[i], vel[i], api->params[i].width, 0.01f, 0.9f, 0.999f,
                      1e-8f, 0.0f, k));
      CHECK(rt.sync(ctx));
      if (k > 2 || steps <= 2) times[timed++] = now() - t1;
      if (k == 1) printf("loss_first %.6f\n", loss);
    }
    printf("loss_last %.6f\ntrain_ms %.4f\ntrain_runs %lld\n", loss, 1e3 * median(times, timed), (long long)timed);
    if (timed > 0) printf("train_min_ms %.4f\n", 1e3 * times[0]); /* median sorted them */
  }
  gnn_memory_plan plan;
  api->memory_plan(model, &plan);
  size_t live = 0, peak = 0;
  rt.mem_usage(ctx, &live, &peak);
  printf("plan_arena_mib %.2f\nplan_total_mib %.2f\nruntime_peak_mib %.2f\npeak_rss_mib %.2f\nstatus ok\n", plan.arena / 1048576.0,
         plan.total / 1048576.0, peak / 1048576.0, peak_rss_mib());
  rc = 0;
out:
  if (rc == 3) printf("status oom\npeak_rss_mib %.2f\n", peak_rss_mib());
  else if (rc != 0) printf("status error\n");
  free(times);
  if (mom)
    for (int i = 0; api && i < api->num_params; i++) {
      if (mom[i]) rt.gfree(ctx, mom[i]);
      if (vel[i]) rt.gfree(ctx, vel[i]);
    }
  free(mom), free(vel), free(hx), free(hlabels), free(hout);
  if (dlogits) rt.gfree(ctx, dlogits);
  if (x) rt.gfree(ctx, x);
  if (labels) rt.gfree(ctx, labels);
  if (model) api->destroy(model);
  if (g) rt.graph_free(ctx, g);
  if (ctx) rt.ctx_destroy(ctx);
  if (lib) dlclose(lib);
  return rc;
}
