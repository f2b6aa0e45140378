/* t_sample.c -- neighbour sampling (gnn_sampler_*), for either build.
 *
 * On random graphs with hubs, isolated vertices, self-loops and repeated edges, every batch is
 * checked against what the API promises, from the graph alone: the seeds first; each sampled
 * edge an in-edge of its destination with the right source (eid, src, dst agree with the graph);
 * each frontier vertex keeps min(fanout, degree) distinct in-edges (all of them for fanout < 0)
 * in CSR order; the hops' frontiers are the vertices the hop before added, in order of first
 * appearance, and no vertex twice. The draws: the same batch on 1 and 3 threads and when drawn
 * again; a vertex's edges the same in a batch beside other seeds; uniform (each of 10 in-edges
 * kept 3/10 of the time over 30,000 batches, each 3-subset 1/120; 50 of 100 through the sorted
 * path); bad arguments refused with their message, and the sampler fine after a refusal.
 * Host memory only, so the CUDA build's sampler is the same code (make gpu-check runs t_api_cuda,
 * not this). Without a usable context it prints "no context: ..." and exits 77.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

/* OpenMP's thread count through libgomp, which libgnnrt_host loads (this file is built without
 * -fopenmp); a no-op in a build without it */
static void set_threads(int n) {
  void (*f)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
  if (f) f(n);
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* a graph of nv vertices: vertex v has in-degree up to 3 + (v % 7 == 0 ? 60 : 0) (hubs), vertex
 * nv - 1 none, repeated edges and self-loops by chance */
static gnn_graph *random_graph(gnn_ctx *ctx, int64_t nv, uint64_t seed) {
  int64_t cap = nv * 70, ne = 0;
  int64_t *src = malloc(sizeof(int64_t) * (size_t)cap), *dst = malloc(sizeof(int64_t) * (size_t)cap);
  for (int64_t v = 0; v + 1 < nv; v++) {
    int64_t d = (int64_t)(lcg(&seed) % 4) + (v % 7 == 0 ? 60 : 0);
    for (int64_t j = 0; j < d; j++) src[ne] = (int64_t)(lcg(&seed) % (uint64_t)nv), dst[ne++] = v;
  }
  gnn_graph_opts o = {0};
  o.num_vertices = nv;
  gnn_graph *g = NULL;
  if (gnn_graph_from_edges(ctx, nv, ne, src, dst, &o, &g)) g = NULL;
  free(src), free(dst);
  return g;
}

/* Everything a batch promises, from g. Returns 1 when it holds (the first broken rule printed). */
static int valid(const gnn_graph *g, const gnn_sample *b, const int64_t *seeds, int64_t nseeds, const int64_t *fanout,
                 int nhops, char *why, size_t n) {
  why[0] = 0;
  if (b->nseeds != nseeds || b->nhops != nhops || b->hop_nv[0] != nseeds || b->hop_ne[0] != 0 || b->hop_nv[nhops] != b->nv ||
      b->hop_ne[nhops] != b->ne) {
    snprintf(why, n, "counts: nseeds %lld nhops %d nv %lld ne %lld", (long long)b->nseeds, b->nhops, (long long)b->nv, (long long)b->ne);
    return 0;
  }
  for (int64_t i = 0; i < nseeds; i++)
    if (b->nodes[i] != seeds[i]) {
      snprintf(why, n, "nodes[%lld] = %lld, seed %lld", (long long)i, (long long)b->nodes[i], (long long)seeds[i]);
      return 0;
    }
  int32_t *where = malloc(sizeof(int32_t) * (size_t)g->nv);
  for (int64_t v = 0; v < g->nv; v++) where[v] = -1;
  int ok = 1;
  for (int64_t i = 0; i < b->nv && ok; i++) {
    if (b->nodes[i] < 0 || b->nodes[i] >= g->nv || where[b->nodes[i]] >= 0) {
      snprintf(why, n, "nodes[%lld] = %lld out of range or repeated", (long long)i, (long long)b->nodes[i]);
      ok = 0;
    } else
      where[b->nodes[i]] = (int32_t)i;
  }
  /* hop by hop: the frontier's vertices in order, each with its count of edges in CSR order; the
   * new sources in order of first appearance */
  int64_t e = 0, next = nseeds;
  for (int h = 0; h < nhops && ok; h++) {
    if (b->hop_nv[h + 1] < b->hop_nv[h] || b->hop_ne[h + 1] < b->hop_ne[h]) {
      snprintf(why, n, "hop %d: counts decrease", h);
      ok = 0;
      break;
    }
    for (int64_t f = h ? b->hop_nv[h - 1] : 0; f < b->hop_nv[h] && ok; f++) {
      int64_t v = b->nodes[f], lo = g->h_in_ptr[v], d = g->h_in_ptr[v + 1] - lo;
      int64_t want = fanout[h] < 0 || d <= fanout[h] ? d : fanout[h];
      for (int64_t j = 0; j < want && ok; j++, e++) {
        if (e >= b->hop_ne[h + 1]) {
          snprintf(why, n, "hop %d vertex %lld: %lld edges, want %lld", h, (long long)v, (long long)j, (long long)want);
          ok = 0;
          break;
        }
        int64_t id = b->eid[e];
        if (b->dst[e] != f || id < lo || id >= lo + d || (j > 0 && id <= b->eid[e - 1])) {
          snprintf(why, n, "edge %lld: dst %lld eid %lld, want dst %lld, eid in %lld..%lld ascending", (long long)e, (long long)b->dst[e],
                   (long long)id, (long long)f, (long long)lo, (long long)(lo + d - 1));
          ok = 0;
          break;
        }
        int64_t u = g->h_src[id], s = b->src[e];
        if (s < 0 || s >= b->nv || b->nodes[s] != u) {
          snprintf(why, n, "edge %lld: src %lld is not graph vertex %lld", (long long)e, (long long)s, (long long)u);
          ok = 0;
          break;
        }
        if (s >= b->hop_nv[h] && s >= next) { /* a vertex this hop adds: in order of first appearance */
          if (s != next || s >= b->hop_nv[h + 1]) {
            snprintf(why, n, "edge %lld: new source %lld, want %lld", (long long)e, (long long)s, (long long)next);
            ok = 0;
            break;
          }
          next++;
        }
      }
    }
    if (ok && (e != b->hop_ne[h + 1] || next != b->hop_nv[h + 1])) {
      snprintf(why, n, "hop %d: %lld edges, %lld vertices; the hop says %lld, %lld", h, (long long)e, (long long)next,
               (long long)b->hop_ne[h + 1], (long long)b->hop_nv[h + 1]);
      ok = 0;
    }
  }
  free(where);
  return ok;
}

static int same(const gnn_sample *a, const gnn_sample *b) {
  if (a->nv != b->nv || a->ne != b->ne) return 0;
  size_t vb = sizeof(int64_t) * (size_t)a->nv, eb = sizeof(int64_t) * (size_t)a->ne;
  return !memcmp(a->nodes, b->nodes, vb) && !memcmp(a->src, b->src, eb) && !memcmp(a->dst, b->dst, eb) &&
         !memcmp(a->eid, b->eid, eb);
}

static void test_batches(gnn_ctx *ctx) {
  gnn_graph *g = random_graph(ctx, 3000, 7);
  check(g != NULL, "sample/graph", "%s", gnn_last_error(ctx));
  if (!g) return;
  gnn_sampler *s = NULL;
  check_status(ctx, gnn_sampler_create(ctx, g, &s), GNN_OK, "sample/create", NULL, NULL);
  if (!s) return;
  const int64_t fan[][3] = {{15, 10, 0}, {-1, 5, 0}, {2, 2, 2}, {0, 4, 0}, {40, 100, 0}};
  const int nh[] = {2, 2, 3, 2, 2}; /* 40: hubs (60 .. 63 in-edges) keep theirs through the sorted path */
  char why[400], name[80];
  uint64_t r = 99;
  for (int c = 0; c < 5; c++)
    for (int t = 0; t < 6; t++) {
      int64_t nseeds = t == 0 ? 1 : (int64_t)(lcg(&r) % 200) + 1, seeds[200];
      for (int64_t i = 0; i < nseeds; i++) { /* distinct: a random walk over a permutation */
        for (;;) {
          int64_t v = t == 5 && i == 0 ? 2999 : (int64_t)(lcg(&r) % 3000), dup = 0; /* 2999: no in-edges */
          for (int64_t j = 0; j < i; j++) dup |= seeds[j] == v;
          if (!dup) {
            seeds[i] = v;
            break;
          }
        }
      }
      gnn_sample *b = NULL, *again = NULL, *three = NULL;
      gnn_status st = gnn_sampler_sample(s, seeds, nseeds, fan[c], nh[c], 1000 + (uint64_t)t, &b);
      snprintf(name, sizeof name, "sample/batch/%d/%d", c, t);
      if (st) {
        check(0, name, "%s", gnn_last_error(ctx));
        continue;
      }
      check(valid(g, b, seeds, nseeds, fan[c], nh[c], why, sizeof why), name, "%s", why);
      gnn_sampler_sample(s, seeds, nseeds, fan[c], nh[c], 1000 + (uint64_t)t, &again);
      set_threads(3);
      gnn_sampler_sample(s, seeds, nseeds, fan[c], nh[c], 1000 + (uint64_t)t, &three);
      set_threads(1);
      snprintf(name, sizeof name, "sample/same/%d/%d", c, t);
      check(again && three && same(b, again) && same(b, three), name, "drawn again or on 3 threads, the batch differs");
      gnn_sample_free(b), gnn_sample_free(again), gnn_sample_free(three);
    }
  /* a vertex's edges do not depend on the other seeds */
  int64_t one[] = {7}, two[] = {21, 7};
  const int64_t f1[] = {10};
  gnn_sample *a = NULL, *b = NULL;
  gnn_sampler_sample(s, one, 1, f1, 1, 5, &a);
  gnn_sampler_sample(s, two, 2, f1, 1, 5, &b);
  int ok = a && b && a->ne == 10 && b->ne >= 20;
  for (int64_t i = 0; ok && i < 10; i++) ok = a->eid[i] == b->eid[b->hop_ne[1] - 10 + i];
  check(ok, "sample/independent", "vertex 7's edges differ beside vertex 21");
  gnn_sample_free(a), gnn_sample_free(b);
  /* a new seed, a new batch */
  gnn_sampler_sample(s, one, 1, f1, 1, 6, &b);
  gnn_sampler_sample(s, one, 1, f1, 1, 5, &a);
  check(a && b && memcmp(a->eid, b->eid, 10 * sizeof(int64_t)) != 0, "sample/new-seed", "seeds 5 and 6 drew the same edges");
  gnn_sample_free(a), gnn_sample_free(b);
  gnn_sampler_free(s);
  gnn_graph_free(ctx, g);
}

/* Uniformity: vertex 0 with d in-edges keeps k; over n batches each edge is kept n k / d times
 * (binomial), within 5 standard deviations; for d = 10, k = 3 each of the 120 subsets n / 120. */
static void test_uniform(gnn_ctx *ctx, int64_t d, int64_t k, int n) {
  int64_t src[100], dst[100];
  for (int64_t j = 0; j < d; j++) src[j] = j + 1, dst[j] = 0;
  gnn_graph *g = NULL;
  gnn_sampler *s = NULL;
  char name[64];
  snprintf(name, sizeof name, "sample/uniform/%lld-of-%lld", (long long)k, (long long)d);
  if (gnn_graph_from_edges(ctx, d + 1, d, src, dst, NULL, &g) || gnn_sampler_create(ctx, g, &s)) {
    check(0, name, "%s", gnn_last_error(ctx));
    return;
  }
  int64_t hits[100] = {0}, subsets[1024] = {0}, seed0 = 0;
  int bad = 0;
  for (int t = 0; t < n && !bad; t++) {
    gnn_sample *b = NULL;
    if (gnn_sampler_sample(s, &seed0, 1, &k, 1, (uint64_t)t * 7919u + 1, &b) || b->ne != k) {
      bad = 1;
      break;
    }
    int mask = 0;
    for (int64_t i = 0; i < k; i++) hits[b->eid[i]]++, mask |= d <= 10 ? 1 << b->eid[i] : 0;
    subsets[mask]++;
    gnn_sample_free(b);
  }
  double p = (double)k / (double)d, mean = n * p, sd = sqrt(n * p * (1 - p)), worst = 0;
  for (int64_t j = 0; j < d; j++) worst = fmax(worst, fabs((double)hits[j] - mean) / sd);
  if (d == 10 && k == 3) { /* each 3-subset: n / 120 */
    double m = n / 120.0, sd3 = sqrt(m * (1 - 1 / 120.0));
    for (int mask = 0; mask < 1024; mask++)
      if (__builtin_popcount((unsigned)mask) == 3) worst = fmax(worst, fabs((double)subsets[mask] - m) / sd3);
  }
  check(!bad && worst < 5, name, "%s; the worst count is %.2f standard deviations off", bad ? gnn_last_error(ctx) : "drawn", worst);
  gnn_sampler_free(s);
  gnn_graph_free(ctx, g);
}

static void test_errors(gnn_ctx *ctx) {
  int64_t src[] = {1, 2, 0}, dst[] = {0, 0, 1};
  gnn_graph *g = NULL;
  gnn_sampler *s = NULL;
  gnn_graph_from_edges(ctx, 3, 3, src, dst, NULL, &g);
  gnn_sampler_create(ctx, g, &s);
  if (!s) {
    check(0, "sample/errors", "%s", gnn_last_error(ctx));
    return;
  }
  gnn_sample *b = (gnn_sample *)1;
  int64_t fan[] = {2}, bad_range[] = {0, 3}, repeat[] = {1, 0, 1}, ok_seeds[] = {0, 1};
  check_status(ctx, gnn_sampler_sample(s, bad_range, 2, fan, 1, 1, &b), GNN_ERR_INVALID, "sample/error/range", "seeds[1] = 3 out of range",
               "3 vertices");
  check(b == NULL, "sample/error/out-null", "*out not NULL after a refusal");
  check_status(ctx, gnn_sampler_sample(s, repeat, 3, fan, 1, 1, &b), GNN_ERR_INVALID, "sample/error/repeat", "seeds[2] = 1 repeats seeds[0]",
               NULL);
  check_status(ctx, gnn_sampler_sample(s, ok_seeds, 0, fan, 1, 1, &b), GNN_ERR_INVALID, "sample/error/no-seeds", "0 seeds", NULL);
  check_status(ctx, gnn_sampler_sample(s, ok_seeds, 2, fan, 0, 1, &b), GNN_ERR_INVALID, "sample/error/no-hops", "0 hops", NULL);
  check_status(ctx, gnn_sampler_sample(s, NULL, 2, fan, 1, 1, &b), GNN_ERR_INVALID, "sample/error/null", "seeds or fanout is NULL", NULL);
  check_status(ctx, gnn_sampler_sample(s, ok_seeds, 2, fan, 1, 1, NULL), GNN_ERR_INVALID, "sample/error/out", "out is NULL", NULL);
  /* after the refusals (the repeat set the map for two seeds), a batch of the same vertices */
  gnn_status st = gnn_sampler_sample(s, ok_seeds, 2, fan, 1, 1, &b);
  check(st == GNN_OK && b->nv == 3 && b->ne == 3 && b->nodes[2] == 2, "sample/error/after", "%s: nv %lld ne %lld", gnn_status_name(st),
        st ? -1LL : (long long)b->nv, st ? -1LL : (long long)b->ne);
  if (!st) gnn_sample_free(b);
  gnn_sampler_free(s);
  gnn_graph_free(ctx, g);
  /* a CSR from the caller, checked */
  int64_t ptr_ok[] = {0, 2, 3, 3}, ptr_dec[] = {0, 2, 1, 3}, ptr_end[] = {0, 1, 2, 2}, ptr_start[] = {1, 2, 3, 3};
  int32_t csrc[] = {1, 2, 0}, csrc_bad[] = {1, 5, 0};
  check_status(ctx, gnn_sampler_from_csr(ctx, 3, 3, ptr_dec, csrc, &s), GNN_ERR_INVALID, "sample/csr/decreasing", "in_ptr[2] = 1 after 2",
               NULL);
  check_status(ctx, gnn_sampler_from_csr(ctx, 3, 3, ptr_end, csrc, &s), GNN_ERR_INVALID, "sample/csr/end", "in_ptr[3] = 2 (must be ne = 3)",
               NULL);
  check_status(ctx, gnn_sampler_from_csr(ctx, 3, 3, ptr_start, csrc, &s), GNN_ERR_INVALID, "sample/csr/start", "in_ptr[0] = 1", NULL);
  check_status(ctx, gnn_sampler_from_csr(ctx, 3, 3, ptr_ok, csrc_bad, &s), GNN_ERR_INVALID, "sample/csr/src", "src[1] = 5 out of range",
               NULL);
  /* no vertex: it was made, and every sample failed ("1 seeds (1 .. the graph's 0 vertices)") */
  int64_t ptr_empty[] = {0};
  check_status(ctx, gnn_sampler_from_csr(ctx, 0, 0, ptr_empty, NULL, &s), GNN_ERR_INVALID, "sample/csr/no-vertex",
               "0 vertices, 0 edges (1 .. 2^31 - 1 vertices", NULL);
  check_status(ctx, gnn_sampler_from_csr(ctx, 3, 3, ptr_ok, csrc, &s), GNN_OK, "sample/csr/ok", NULL, NULL);
  if (s) {
    int64_t seed1[] = {0}, all[] = {-1, -1};
    st = gnn_sampler_sample(s, seed1, 1, all, 2, 3, &b);
    /* 0 <- 1, 0 <- 2, then 1 <- 0 (0 is in already), 2 has none */
    check(st == GNN_OK && b->nv == 3 && b->ne == 3 && b->src[2] == 0 && b->dst[2] == 1, "sample/csr/batch", "%s", gnn_last_error(ctx));
    if (!st) gnn_sample_free(b);
    gnn_sampler_free(s);
  }
}

/* The caller's CSR is not copied: changed after gnn_sampler_from_csr checked it (a NumPy array
 * reused), each batch finds what it reads out of range and says so, with no read or write out of
 * bounds (this crashed: a source of 2^31 - 1 indexed the vertex map); put back, the sampler draws
 * the same batch as before (its vertex map was left clean). */
static void test_csr_changed(gnn_ctx *ctx) {
  int64_t ptr[] = {0, 2, 3, 3};
  int32_t src[] = {1, 2, 0};
  gnn_sampler *s = NULL;
  gnn_sample *b = NULL, *b0 = NULL;
  int64_t seed1[] = {0}, all[] = {-1, -1};
  if (gnn_sampler_from_csr(ctx, 3, 3, ptr, src, &s)) {
    check(0, "sample/csr-changed/create", "%s", gnn_last_error(ctx));
    return;
  }
  gnn_status st = gnn_sampler_sample(s, seed1, 1, all, 2, 3, &b0);
  check(st == GNN_OK, "sample/csr-changed/before", "%s", gnn_last_error(ctx));
  struct {
    const char *name, *msg;
    int64_t *p;
    int64_t pv;
    int32_t *q;
    int32_t qv;
  } cases[] = {
      {"src-huge", "src[1] = 2147483647 out of range (the graph has 3 vertices", NULL, 0, &src[1], INT32_MAX},
      {"src-negative", "src[0] = -1 out of range", NULL, 0, &src[0], -1},
      {"ptr-past-ne", "in_ptr[0] = 0, in_ptr[1] = 1000000: not 0 <= in_ptr[v] <= in_ptr[v + 1] <= ne = 3", &ptr[1], 1000000, NULL, 0},
      {"ptr-decreasing", "in_ptr[1] = 2, in_ptr[2] = 1: not", &ptr[2], 1, NULL, 0},
      {"ptr-negative", "in_ptr[0] = -5, in_ptr[1] = 2", &ptr[0], -5, NULL, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[64], none[80];
    snprintf(name, sizeof name, "sample/csr-changed/%s", cases[i].name);
    snprintf(none, sizeof none, "%s-no-sample", name);
    int64_t p_old = cases[i].p ? *cases[i].p : 0;
    int32_t q_old = cases[i].q ? *cases[i].q : 0;
    if (cases[i].p) *cases[i].p = cases[i].pv;
    if (cases[i].q) *cases[i].q = cases[i].qv;
    b = NULL;
    check_status(ctx, gnn_sampler_sample(s, seed1, 1, all, 2, 3, &b), GNN_ERR_INVALID, name, cases[i].msg, NULL);
    check(b == NULL, none, "a sample came back with the error");
    if (cases[i].p) *cases[i].p = p_old;
    if (cases[i].q) *cases[i].q = q_old;
  }
  st = gnn_sampler_sample(s, seed1, 1, all, 2, 3, &b);
  check(st == GNN_OK && b0 && same(b, b0), "sample/csr-changed/put-back", "%s", st ? gnn_last_error(ctx) : "a different batch");
  if (!st) gnn_sample_free(b);
  if (b0) gnn_sample_free(b0);
  gnn_sampler_free(s);
}

int main(void) {
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  if (st) {
    printf("no context: %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 77;
  }
  set_threads(1);
  test_errors(ctx);
  test_csr_changed(ctx);
  test_batches(ctx);
  test_uniform(ctx, 10, 3, 30000);
  test_uniform(ctx, 10, 1, 20000);
  test_uniform(ctx, 10, 9, 20000);
  test_uniform(ctx, 100, 50, 4000);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}
