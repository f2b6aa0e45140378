/* t_setgraph.c -- mini-batches on one model: <model>_set_graph and <model>_reserve.
 *
 *   t_setgraph         generated/sage.c, gin_graph.c and gcn.c, host runtime
 *   t_setgraph_cuda    the same file with generated/sage.cu, gin_graph.cu and gcn.cu, libgnnrt
 *
 * Two generated models are compiled in (generated/sage.*, a vertex-level GraphSAGE with dropout,
 * through its typed functions; generated/gin_graph.*, a graph-level GIN whose output has a row per
 * graph of the batch, through its gnn_model_api table). One model is rebound across graphs of
 * different sizes -- smaller, bigger (it grows), back within its capacity -- and trained with SGD
 * between batches; after each rebind its output and every gradient equal, bit for bit, those of a
 * model freshly created on that graph with the same parameters. Within the capacity a rebind
 * allocates nothing (the runtime's live and peak counters do not move); beyond it the capacity
 * grows by 1.5x; reserve sizes the plan exactly like a fresh model of that size; growth turned off
 * refuses a bigger graph with a message and leaves the model usable; NULL and negative arguments
 * are refused. generated/gcn.* holds a value of the graph alone (its normalisation per edge, the
 * hoist pass's: computed by the first forward on a graph, then kept): rebound to a smaller graph
 * within its capacity (the same arena), from an inference forward to training (a new arena) and
 * back and forth, it equals fresh models too. A graph split in place after create (gnn_graph_set_graphs)
 * is bound again by the next forward and refused by a backward. Run under valgrind and in the ASan+UBSan build by
 * tests/suites/runtime.sh.
 *
 * The file does not know its target: the models' buffers (inputs, output, parameters, gradients,
 * the backward's seed) are device memory in the CUDA build, so every access goes through
 * gnn_malloc / gnn_upload / gnn_download (plain copies on the host runtime). The device buffers
 * for inputs and seeds are allocated once per model, sized for its largest graph, before any
 * counter is read, so that the within-capacity check counts the model's allocations only. Without
 * a usable context (the CUDA build on a machine without a GPU) it prints "no context: ..." and
 * exits 77, as t_api does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcn.h"
#include "gin_graph.h"
#include "rt_test.h"
#include "sage.h"

/* A random graph (xorshift, seeded) of nv vertices and ne edges split into ng graphs (vertex v in graph v * ng / nv),
 * each edge inside its source's graph; with blocks b1, b2 > 0, inside its source's b1-block and
 * b2-block too (v / b1 and v / b2 equal), so that it stays inside one graph under a later split
 * into blocks of b1, b2 or a multiple of either. */
static gnn_graph *rand_graph_blocks(gnn_ctx *ctx, int64_t nv, int64_t ne, int64_t ng, int64_t b1, int64_t b2, uint64_t seed) {
  int64_t *src = malloc((size_t)ne * sizeof *src), *dst = malloc((size_t)ne * sizeof *dst);
  uint64_t s = seed * 2654435761u + 1;
  for (int64_t e = 0; e < ne; e++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    src[e] = (int64_t)(s % (uint64_t)nv);
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    /* inside the source's graph (vertex v is in graph v * ng / nv, below): a batch's graphs share
     * no edges, and gnn_graph_set_graphs refuses one between two */
    const int64_t k = src[e] * ng / nv;
    int64_t lo = (k * nv + ng - 1) / ng, hi = ((k + 1) * nv + ng - 1) / ng;
    for (int b = 0; b < 2; b++) {
      const int64_t blk = b ? b2 : b1;
      if (blk <= 0) continue;
      const int64_t blo = src[e] / blk * blk, bhi = blo + blk;
      if (blo > lo) lo = blo;
      if (bhi < hi) hi = bhi;
    }
    dst[e] = lo + (int64_t)(s % (uint64_t)(hi - lo));
  }
  gnn_graph_opts opts = {0};
  gnn_graph *g = NULL;
  gnn_status st = gnn_graph_from_edges(ctx, nv, ne, src, dst, &opts, &g);
  if (!st && ng > 1) {
    int64_t *of = malloc((size_t)nv * sizeof *of);
    for (int64_t v = 0; v < nv; v++) of[v] = v * ng / nv;
    st = gnn_graph_set_graphs(ctx, g, ng, of);
    free(of);
  }
  free(src);
  free(dst);
  if (st) {
    printf("FAIL graph: %s\n", gnn_last_error(ctx));
    rt_failures++; /* the exit status too: the caller skips its checks */
    gnn_graph_free(ctx, g);
    return NULL;
  }
  return g;
}

static gnn_graph *rand_graph(gnn_ctx *ctx, int64_t nv, int64_t ne, int64_t ng, uint64_t seed) {
  return rand_graph_blocks(ctx, nv, ne, ng, 0, 0, seed);
}

static float *rand_floats(int64_t n, uint64_t seed) {
  float *a = malloc((size_t)(n ? n : 1) * sizeof *a);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
  for (int64_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    a[i] = (float)((double)(s % 20001) / 10000.0 - 1.0);
  }
  return a;
}

/* A model behind the fixed interface, whichever it is, and its device buffers for the forward's
 * input and the backward's seed (gnn_malloc'ed once, for the largest graph it sees). */
typedef struct {
  const gnn_model_api *api;
  void *m;
  float *x, *dout;
} M;

static size_t out_rows(const gnn_model_api *api, const gnn_graph *g) {
  return (size_t)(api->output_info.domain == GNN_DOMAIN_GRAPH ? g->ng : g->nv);
}

/* a's input and seed buffers, sized for the largest of the n graphs: 0 on failure (reported). */
static int io_alloc(gnn_ctx *ctx, M *a, gnn_graph *const *g, int n, const char *name) {
  size_t xn = 0, dn = 0;
  for (int i = 0; i < n; i++) {
    size_t x = (size_t)g[i]->nv * (size_t)a->api->inputs[0].width, d = out_rows(a->api, g[i]) * (size_t)a->api->output_info.width;
    if (x > xn) xn = x;
    if (d > dn) dn = d;
  }
  gnn_status st = gnn_malloc(ctx, (void **)&a->x, (xn ? xn : 1) * sizeof(float));
  if (!st) st = gnn_malloc(ctx, (void **)&a->dout, (dn ? dn : 1) * sizeof(float));
  char what[96];
  snprintf(what, sizeof what, "%s/io-buffers", name);
  check(st == GNN_OK, what, "%s", gnn_last_error(ctx));
  return st == GNN_OK;
}

static void io_free(gnn_ctx *ctx, M *a) {
  gnn_free(ctx, a->x);
  gnn_free(ctx, a->dout);
  a->x = a->dout = NULL;
}

/* n floats of device memory into a fresh host buffer (NULL on failure, the context says why). */
static float *fetch(gnn_ctx *ctx, const float *dev, size_t n) {
  float *h = malloc((n ? n : 1) * sizeof *h);
  if (h && gnn_download(ctx, h, dev, n * sizeof *h)) {
    free(h);
    h = NULL;
  }
  return h;
}

/* Puts g's input for seed into a's device input buffer (a copy: nothing is allocated on the
 * context). A failure is reported and fails the run (a loop would otherwise go on with stale input). */
static gnn_status put_input(gnn_ctx *ctx, M a, const gnn_graph *g, uint64_t seed) {
  int64_t n = g->nv * a.api->inputs[0].width;
  float *x = rand_floats(n, seed);
  gnn_status st = gnn_upload(ctx, a.x, x, (size_t)n * sizeof(float));
  free(x);
  if (st) {
    printf("FAIL input: %s\n", gnn_last_error(ctx));
    rt_failures++;
  }
  return st;
}

/* One training step on a, whose input buffer holds g's input (forward with dropout seed, backward
 * from a fixed gradient): 0 on failure. */
static int step(gnn_ctx *ctx, M a, const gnn_graph *g, uint64_t seed, const char *name) {
  const float *in[1] = {a.x};
  gnn_status st = a.api->forward(a.m, in, 1, seed);
  if (!st) {
    size_t n = out_rows(a.api, g) * (size_t)a.api->output_info.width;
    float *d = rand_floats((int64_t)n, seed + 99);
    st = gnn_upload(ctx, a.dout, d, n * sizeof(float));
    free(d);
    if (!st) st = a.api->backward(a.m, a.dout);
  }
  if (st) { /* a failed step inside a loop fails the run too, not only the check after it */
    printf("FAIL %s/step: %s\n", name, gnn_last_error(ctx));
    rt_failures++;
  }
  return st == GNN_OK;
}

/* The n floats of two device buffers, downloaded: 1 when the same bits. Otherwise the largest
 * difference goes into *diff (a last-bit difference points at a summation order, a large one at
 * a wrong buffer). */
static int same_bits(gnn_ctx *ctx, const float *da, const float *db, size_t n, double *diff) {
  float *ha = fetch(ctx, da, n), *hb = fetch(ctx, db, n);
  int same = ha && hb && memcmp(ha, hb, n * sizeof(float)) == 0;
  if (!same && ha && hb)
    for (size_t i = 0; i < n; i++) {
      double d = (double)ha[i] - (double)hb[i];
      if (d < 0) d = -d;
      if (d > *diff || d != d) *diff = d;
    }
  free(ha);
  free(hb);
  return same;
}

/* a (bound to g) against a model created on g with a's parameters: output and gradients bit for bit. */
static void same_as_fresh(gnn_ctx *ctx, M a, const gnn_graph *g, const char *name) {
  char what[160], bad[160] = "a step or a copy failed";
  double diff = 0;
  M b = {a.api, NULL, a.x, a.dout};
  gnn_status st = a.api->create(ctx, g, 1, &b.m);
  for (int i = 0; i < a.api->num_params && !st; i++) { /* through the host: the target's memory either way */
    size_t n = (size_t)a.api->params[i].width;
    float *p = fetch(ctx, a.api->param(a.m, i), n);
    st = p ? gnn_upload(ctx, a.api->param(b.m, i), p, n * sizeof(float)) : GNN_ERR_IO;
    free(p);
  }
  if (!st) st = put_input(ctx, a, g, (uint64_t)g->nv); /* one input for both: b shares a's buffers */
  int ok = !st && step(ctx, a, g, 5, name) && step(ctx, b, g, 5, name);
  if (ok) {
    size_t n = out_rows(a.api, g) * (size_t)a.api->output_info.width;
    ok = same_bits(ctx, a.api->output(a.m), a.api->output(b.m), n, &diff);
    if (!ok) snprintf(bad, sizeof bad, "the output differs");
    for (int i = 0; i < a.api->num_params && ok; i++) {
      ok = same_bits(ctx, a.api->grad(a.m, i), a.api->grad(b.m, i), (size_t)a.api->params[i].width, &diff);
      if (!ok) snprintf(bad, sizeof bad, "the gradient of %s differs", a.api->params[i].name);
    }
  }
  snprintf(what, sizeof what, "%s/equals-fresh", name);
  check(ok, what, "%lld vertices, %lld edges, %lld graphs: %s from a fresh model's, by up to %g (%s)", (long long)g->nv,
        (long long)g->ne, (long long)g->ng, bad, diff, st ? gnn_last_error(ctx) : "");
  /* train a's parameters, so that the next graph sees parameters no create made */
  for (int i = 0; i < a.api->num_params; i++)
    gnn_sgd_step(ctx, a.api->param(a.m, i), a.api->grad(a.m, i), a.api->params[i].width, 0.05f, 0.0f);
  a.api->destroy(b.m);
}

static size_t live_bytes(gnn_ctx *ctx, size_t *peak) {
  size_t live = 0, pk = 0;
  gnn_mem_usage(ctx, &live, &pk);
  if (peak) *peak = pk;
  return live;
}

static void test_sage(gnn_ctx *ctx) {
  gnn_graph *g[5] = {rand_graph(ctx, 40, 160, 1, 1), rand_graph(ctx, 90, 500, 1, 2), rand_graph(ctx, 20, 60, 1, 3),
                     rand_graph(ctx, 100, 300, 1, 4), rand_graph(ctx, 300, 900, 1, 5)};
  for (int i = 0; i < 5; i++)
    if (!g[i]) return;
  graphsage_model *m = NULL;
  gnn_status st = graphsage_create(ctx, g[0], 1, &m);
  check(st == GNN_OK, "sage/create", "%s", gnn_last_error(ctx));
  if (st) return;
  M a = {graphsage_api(), m, NULL, NULL};
  if (!io_alloc(ctx, &a, g, 5, "sage")) {
    io_free(ctx, &a);
    graphsage_destroy(m);
    for (int i = 0; i < 5; i++) gnn_graph_free(ctx, g[i]);
    return;
  }
  same_as_fresh(ctx, a, g[0], "sage/first");

  /* bigger: grows to exactly g1's counts (each more than 1.5x g0's) */
  st = graphsage_set_graph(m, g[1]);
  check(st == GNN_OK && graphsage_output(m) == NULL, "sage/rebind-invalidates-output", "st %d, output %p", st, (void *)graphsage_output(m));
  check_status(ctx, graphsage_backward(m, graphsage_param(m, 0)), GNN_ERR_INVALID, "sage/no-backward-after-rebind", "no forward", NULL);
  same_as_fresh(ctx, a, g[1], "sage/grown");
  gnn_memory_plan plan;
  graphsage_memory_plan(m, &plan);
  check(plan.output == (size_t)90 * 7 * sizeof(float), "sage/capacity-exact", "output %zu bytes, want %zu", plan.output,
        (size_t)90 * 7 * sizeof(float));

  /* smaller, within the capacity: nothing allocated, nothing freed, the peak unchanged */
  size_t peak0, peak1;
  size_t live0 = live_bytes(ctx, &peak0);
  st = graphsage_set_graph(m, g[2]);
  same_as_fresh(ctx, a, g[2], "sage/smaller");
  for (int k = 0; k < 20; k++) { /* back and forth within the capacity */
    graphsage_set_graph(m, g[k & 1 ? 1 : 2]);
    put_input(ctx, a, g[k & 1 ? 1 : 2], 3);
    step(ctx, a, g[k & 1 ? 1 : 2], (uint64_t)k, "sage/loop");
  }
  graphsage_set_graph(m, g[2]); /* fresh models (same_as_fresh) came and went: measure around the loop only */
  size_t live1 = live_bytes(ctx, &peak1);
  gnn_mem_reset_peak(ctx);
  size_t before = live_bytes(ctx, NULL), after, peak2;
  for (int k = 0; k < 20; k++) {
    graphsage_set_graph(m, g[k & 1 ? 1 : 2]);
    put_input(ctx, a, g[k & 1 ? 1 : 2], 3);
    step(ctx, a, g[k & 1 ? 1 : 2], (uint64_t)k, "sage/loop");
  }
  after = live_bytes(ctx, &peak2);
  check(after == before && peak2 == before, "sage/within-capacity-allocates-nothing",
        "live %zu -> %zu bytes, peak %zu over 20 rebinds and steps (before the loop: live %zu, peak %zu; %zu, %zu)", before, after, peak2,
        live0, peak0, live1, peak1);

  /* beyond the vertex capacity only: vertices grow 1.5x (90 -> 135), edges stay */
  st = graphsage_set_graph(m, g[3]);
  graphsage_memory_plan(m, &plan);
  check(st == GNN_OK && plan.output == (size_t)135 * 7 * sizeof(float), "sage/grows-1.5x", "st %d, output %zu bytes, want %zu", st,
        plan.output, (size_t)135 * 7 * sizeof(float));
  same_as_fresh(ctx, a, g[3], "sage/grown-1.5x");
  same_as_fresh(ctx, a, g[3], "sage/same-graph-twice");
  graphsage_set_graph(m, g[1]);
  same_as_fresh(ctx, a, g[1], "sage/back-within");

  /* reserve: the plan of a fresh model on a graph of those counts; growth off refuses bigger */
  st = graphsage_reserve(m, 100, 300, 1, 0); /* below g1's 500 edges: raised to the bound graph's */
  graphsage_set_graph(m, g[3]);
  graphsage_model *f = NULL;
  gnn_memory_plan want;
  graphsage_create(ctx, g[3], 1, &f);
  graphsage_memory_plan(m, &plan);
  graphsage_memory_plan(f, &want);
  graphsage_destroy(f);
  graphsage_reserve(m, 100, 300, 1, 0); /* now bound to g3: exactly its counts */
  gnn_memory_plan plan2;
  graphsage_memory_plan(m, &plan2);
  check(st == GNN_OK && plan.arena >= want.arena && plan2.arena == want.arena && plan2.arena_inference == want.arena_inference &&
            plan2.output == want.output && plan2.total == want.total,
        "sage/reserve-plans-like-create", "reserve: arena %zu (bound to a 500-edge graph), then %zu, output %zu; fresh: arena %zu, output %zu",
        plan.arena, plan2.arena, plan2.output, want.arena, want.output);
  st = graphsage_set_graph(m, g[4]);
  check_status(ctx, st, GNN_ERR_INVALID, "sage/growth-off-refuses", "300 vertices, 900 edges and 1 graphs exceeds the model's capacity",
               "growth is off");
  same_as_fresh(ctx, a, g[3], "sage/usable-after-refusal");
  graphsage_reserve(m, 0, 0, 0, 1);
  st = graphsage_set_graph(m, g[4]);
  check(st == GNN_OK, "sage/growth-on-again", "%s", gnn_last_error(ctx));
  same_as_fresh(ctx, a, g[4], "sage/grown-after-reserve");

  check_status(ctx, graphsage_set_graph(m, NULL), GNN_ERR_INVALID, "sage/null-graph", "graphsage_set_graph: no graph", NULL);
  check_status(ctx, graphsage_reserve(m, -1, 5, 1, 1), GNN_ERR_INVALID, "sage/negative-capacity",
               "a capacity of -1 vertices, 5 edges and 1 graphs: each count must be in 0 .. 2^31", NULL);
  /* past the runtime's counts the byte counts wrapped: 2^62 vertices planned a 64-byte output,
   * GNN_OK, and the next forward wrote past it (ASan: heap-buffer-overflow) */
  check_status(ctx, graphsage_reserve(m, (int64_t)1 << 62, 5, 1, 1), GNN_ERR_INVALID, "sage/capacity-too-large",
               "a capacity of 4611686018427387904 vertices", "each count must be in 0 .. 2^31");
  check_status(ctx, graphsage_reserve(m, 4, (int64_t)1 << 62, 1, 1), GNN_ERR_INVALID, "sage/capacity-too-many-edges",
               "each count must be in 0 .. 2^31", NULL);
  /* A capacity whose new output fits in the memory available but whose inference arena does
   * not: refused before anything is allocated, as create refuses it, the capacity and plan as
   * they were, for reserve and for set_graph's growth alike (a reserve of 2^27 vertices
   * allocated a 3.7 GB output, GNN_OK, and only the first forward refused). */
  {
    const int64_t big = (int64_t)1 << 20;
    const size_t out_big = (size_t)big * (size_t)a.api->output_info.width * sizeof(float);
    const float *in[1] = {a.x}; /* a training forward on g[4] (a.x holds its input): a refusal keeps it */
    st = graphsage_forward(m, in[0], 1, 7);
    check(st == GNN_OK, "sage/forward-before-reserve", "%s", gnn_last_error(ctx));
    size_t live = 0, peak = 0;
    gnn_mem_usage(ctx, &live, NULL);
    gnn_set_memory_limit(ctx, live + out_big + ((size_t)64 << 10)); /* the output and 64 KiB */
    gnn_mem_reset_peak(ctx);
    check_status(ctx, graphsage_reserve(m, big, 5, 1, 1), GNN_ERR_OOM, "sage/reserve-past-memory",
                 "graphsage_reserve: a capacity of 1048576 vertices", "the model keeps its capacity");
    gnn_mem_usage(ctx, NULL, &peak);
    check(peak <= live, "sage/reserve-past-memory-allocates-nothing", "peak %zu bytes, %zu live before", peak, live);
    gnn_set_memory_limit(ctx, 0);
    /* nothing else changed either: the training forward above still serves a backward (a
     * refusal after the arena went cleared it: "no forward to differentiate") */
    st = graphsage_backward(m, a.dout);
    check(st == GNN_OK, "sage/reserve-past-memory-keeps-forward", "%s", gnn_last_error(ctx));
    gnn_graph *huge = NULL; /* 2^20 vertices, one edge: a graph that fits, a model on it that does not */
    const int64_t hs[1] = {0}, hd[1] = {1};
    gnn_status hst = gnn_graph_from_edges(ctx, big, 1, hs, hd, NULL, &huge);
    check(hst == GNN_OK, "sage/huge-graph", "%s", gnn_last_error(ctx));
    gnn_mem_usage(ctx, &live, NULL);
    gnn_set_memory_limit(ctx, live + out_big + ((size_t)64 << 10));
    if (!hst)
      check_status(ctx, graphsage_set_graph(m, huge), GNN_ERR_OOM, "sage/set-graph-past-memory",
                   "graphsage_set_graph: a capacity of", "the model keeps its capacity");
    gnn_set_memory_limit(ctx, 0);
    gnn_graph_free(ctx, huge);
  }
  same_as_fresh(ctx, a, g[4], "sage/usable-after-too-large");
  check(graphsage_set_graph(NULL, g[0]) == GNN_ERR_INVALID && graphsage_reserve(NULL, 1, 1, 1, 1) == GNN_ERR_INVALID, "sage/null-model",
        "a NULL model was not refused");
  /* An input or seed in the context's memory but sized for a smaller graph (the batch before a
   * set_graph) was read past its end (ASan: heap-buffer-overflow in the first kernel): refused
   * by gnn_check_span, an interior pointer (an offset into a larger buffer) too. */
  {
    const int64_t width = a.api->inputs[0].width, owidth = a.api->output_info.width;
    float *small_x = NULL, *small_d = NULL;
    gnn_status as = gnn_malloc(ctx, (void **)&small_x, (size_t)g[2]->nv * (size_t)width * sizeof(float));
    if (!as) as = gnn_malloc(ctx, (void **)&small_d, (size_t)g[2]->nv * (size_t)owidth * sizeof(float));
    if (!as) as = gnn_memset0(ctx, small_x, (size_t)g[2]->nv * (size_t)width * sizeof(float));
    st = as ? as : graphsage_set_graph(m, g[4]);
    check(st == GNN_OK, "sage/span/setup", "%s", gnn_last_error(ctx));
    if (!st) {
      char want_msg[160];
      snprintf(want_msg, sizeof want_msg, "graphsage_forward: input 'x': %zu bytes at offset 0 run past the end of a %zu-byte allocation",
               (size_t)g[4]->nv * (size_t)width * sizeof(float), (size_t)g[2]->nv * (size_t)width * sizeof(float));
      check_status(ctx, graphsage_forward(m, small_x, 1, 1), GNN_ERR_INVALID, "sage/span/input-short", want_msg, NULL);
      /* a.x holds the largest graph's rows: from one row in, it is a row short */
      check_status(ctx, graphsage_forward(m, a.x + width, 1, 1), GNN_ERR_INVALID, "sage/span/input-interior",
                   "graphsage_forward: input 'x':", "at offset");
      st = graphsage_forward(m, a.x, 1, 1);
      check(st == GNN_OK, "sage/span/input-fits", "%s", gnn_last_error(ctx));
      if (!st)
        check_status(ctx, graphsage_backward(m, small_d), GNN_ERR_INVALID, "sage/span/grad-out-short", "graphsage_backward: grad_out:",
                     "run past the end of a");
    }
    gnn_free(ctx, small_x);
    gnn_free(ctx, small_d);
  }
  io_free(ctx, &a);
  graphsage_destroy(m);
  for (int i = 0; i < 5; i++) gnn_graph_free(ctx, g[i]);
}

/* A graph-level model through the fixed interface: the graph count is a capacity too. */
static void test_gin_graph(gnn_ctx *ctx) {
  gnn_graph *g[3] = {rand_graph(ctx, 30, 80, 2, 11), rand_graph(ctx, 60, 200, 6, 12), rand_graph(ctx, 25, 50, 3, 13)};
  for (int i = 0; i < 3; i++)
    if (!g[i]) return;
  const gnn_model_api *api = gingraph_api();
  M a = {api, NULL, NULL, NULL};
  gnn_status st = api->create(ctx, g[0], 1, &a.m);
  check(st == GNN_OK, "gin_graph/create", "%s", gnn_last_error(ctx));
  if (st || !io_alloc(ctx, &a, g, 3, "gin_graph")) {
    io_free(ctx, &a);
    api->destroy(a.m);
    for (int i = 0; i < 3; i++) gnn_graph_free(ctx, g[i]);
    return;
  }
  same_as_fresh(ctx, a, g[0], "gin_graph/first");
  st = api->set_graph(a.m, g[1]);
  gnn_memory_plan plan;
  api->memory_plan(a.m, &plan);
  check(st == GNN_OK && plan.output == (size_t)6 * 3 * sizeof(float), "gin_graph/graphs-grow", "st %d, output %zu bytes", st, plan.output);
  same_as_fresh(ctx, a, g[1], "gin_graph/more-graphs");
  api->set_graph(a.m, g[2]);
  same_as_fresh(ctx, a, g[2], "gin_graph/fewer-graphs");
  st = api->reserve(a.m, 25, 50, 3, 0);
  check_status(ctx, api->set_graph(a.m, g[1]), GNN_ERR_INVALID, "gin_graph/growth-off", "and 6 graphs exceeds", NULL);
  io_free(ctx, &a);
  api->destroy(a.m);
  for (int i = 0; i < 3; i++) gnn_graph_free(ctx, g[i]);
}

/* The bound graph split in place (gnn_graph_set_graphs after create, the order embedding.md shows):
 * the next forward binds it again (the output grows from 1 row to 5; it wrote past a 1-row output
 * before), equal to a model created on the split graph; a split between a forward and its backward
 * is refused; with growth off, a split beyond the capacity is refused by the forward. */
static void test_gin_graph_split_in_place(gnn_ctx *ctx) {
  /* g's edges stay inside blocks of 5 and of 8: inside one graph under each split below (graphs
   * of 8, of 10, of 5) */
  gnn_graph *g = rand_graph_blocks(ctx, 40, 120, 1, 5, 8, 21), *sized = rand_graph(ctx, 40, 120, 5, 21); /* sized: the io buffers' */
  if (!g || !sized) return;
  const gnn_model_api *api = gingraph_api();
  gnn_graph *both[2] = {g, sized};
  M a = {api, NULL, NULL, NULL};
  gnn_status st = api->create(ctx, g, 1, &a.m);
  check(st == GNN_OK, "gin_graph/in-place/create", "%s", gnn_last_error(ctx));
  if (!st && io_alloc(ctx, &a, both, 2, "gin_graph/in-place")) {
    int64_t of[40];
    for (int v = 0; v < 40; v++) of[v] = v / 8; /* 5 graphs of 8 */
    st = gnn_graph_set_graphs(ctx, g, 5, of);
    check(st == GNN_OK && g->ng == 5, "gin_graph/in-place/split", "%s", gnn_last_error(ctx));
    if (!st) same_as_fresh(ctx, a, g, "gin_graph/in-place/split-after-create");
    const float *in[1] = {a.x};
    st = api->forward(a.m, in, 1, 3);
    for (int v = 0; v < 40; v++) of[v] = v / 10; /* 4 graphs of 10, between the forward and the backward */
    if (!st) st = gnn_graph_set_graphs(ctx, g, 4, of);
    check_status(ctx, st ? st : api->backward(a.m, a.dout), GNN_ERR_INVALID, "gin_graph/in-place/split-before-backward",
                 "the graph changed since the forward (now 40 vertices, 120 edges, 4 graphs; at the forward 40, 120, 5)",
                 "forward again");
    check(api->output(a.m) == NULL, "gin_graph/in-place/no-output-after-split", "the 5-graph output is still offered");
    api->reserve(a.m, 40, 120, 4, 0);
    for (int v = 0; v < 40; v++) of[v] = v / 5; /* 8 graphs: beyond the capacity, growth off */
    st = gnn_graph_set_graphs(ctx, g, 8, of);
    check_status(ctx, st ? st : api->forward(a.m, in, 0, 0), GNN_ERR_INVALID, "gin_graph/in-place/growth-off",
                 "gingraph_forward: the bound graph changed in place (now 40 vertices, 120 edges, 8 graphs) beyond the model's "
                 "capacity (40, 120, 4)", NULL);
    check(api->output(a.m) == NULL, "gin_graph/in-place/growth-off-no-output", "a refused forward left an output");
  }
  io_free(ctx, &a);
  api->destroy(a.m);
  gnn_graph_free(ctx, g);
  gnn_graph_free(ctx, sized);
}

/* GCN: its per-edge normalisation is computed once per graph (the hoist pass), so a rebind must
 * recompute it, within the capacity (the arena stays) as beyond it, and a new arena (inference ->
 * training) must too. */
static void test_gcn(gnn_ctx *ctx) {
  gnn_graph *g[3] = {rand_graph(ctx, 60, 240, 1, 21), rand_graph(ctx, 120, 600, 1, 22), rand_graph(ctx, 50, 150, 1, 23)};
  for (int i = 0; i < 3; i++)
    if (!g[i]) return;
  const gnn_model_api *api = gcn_api();
  M a = {api, NULL, NULL, NULL};
  gnn_status st = api->create(ctx, g[0], 1, &a.m);
  check(st == GNN_OK, "gcn/create", "%s", gnn_last_error(ctx));
  if (st || !io_alloc(ctx, &a, g, 3, "gcn")) {
    io_free(ctx, &a);
    api->destroy(a.m);
    for (int i = 0; i < 3; i++) gnn_graph_free(ctx, g[i]);
    return;
  }
  st = put_input(ctx, a, g[0], 5);
  const float *in[1] = {a.x};
  if (!st) st = api->forward(a.m, in, 0, 5); /* inference first: its arena, then training's */
  check(st == GNN_OK, "gcn/inference-forward", "%s", gnn_last_error(ctx));
  same_as_fresh(ctx, a, g[0], "gcn/first");
  api->set_graph(a.m, g[1]);
  same_as_fresh(ctx, a, g[1], "gcn/grown");
  api->set_graph(a.m, g[2]); /* within the capacity: the arena stays, the graph's values must not */
  same_as_fresh(ctx, a, g[2], "gcn/smaller");
  api->set_graph(a.m, g[0]);
  same_as_fresh(ctx, a, g[0], "gcn/back");
  io_free(ctx, &a);
  api->destroy(a.m);
  for (int i = 0; i < 3; i++) gnn_graph_free(ctx, g[i]);
}

int main(void) {
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  if (st) { /* the CUDA build without a GPU: the runtime's status and message, not a crash */
    printf("no context: %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 77;
  }
  test_sage(ctx);
  test_gin_graph(ctx);
  test_gin_graph_split_in_place(ctx);
  test_gcn(ctx);
  size_t live = live_bytes(ctx, NULL);
  check(live == 0, "no-leak", "%zu bytes still allocated on the context", live);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}
