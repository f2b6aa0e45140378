/* bench/gen_graph.c -- graphs for bench/peers.sh, written as the runtime's binary CSR cache
 * (.gcsr, docs/runtime.md), which gnnc's runtime and bench/peer_pyg.py both load in seconds.
 *
 *   gen_graph powerlaw -o OUT.gcsr [--vertices N] [--edges E] [--max-degree D] [--seed S]
 *   gen_graph rmat     -o OUT.gcsr [--vertices N] [--edges E] [--seed S]
 *   gen_graph convert  -o OUT.gcsr IN [--self-loops] [--symmetrise] [--dedup] [--order degree]
 *   gen_graph info     IN.gcsr
 *
 * powerlaw: a Chung-Lu graph (a configuration model with expected degrees): vertex i (before a
 * seeded relabelling) has weight (i+1)^-a, each undirected edge picks both ends independently
 * with probability proportional to the weights (Vose's alias table), and `a` is found by
 * bisection so that the heaviest vertex's expected degree is D. Loops are redrawn, repeated
 * pairs are dropped and redrawn until exactly E/2 distinct undirected pairs exist (E even), so
 * the graph has exactly E directed edges (both directions of each pair), then a self-loop on
 * every vertex (GCN's and GAT's A + I): E + N edges in the file. Vertex ids are a seeded
 * permutation of the weight order, so hubs are spread over the id range. The output depends
 * only on the arguments (splitmix64; no libc random, no threads): the same bytes on any machine.
 *
 * rmat: an R-MAT graph (Chakrabarti et al. 2004) with Graph500's quadrant probabilities 0.57,
 * 0.19, 0.19, 0.05: each directed edge picks its (source, destination) quadrant by quadrant over
 * the smallest power of two >= N ids, ids >= N are redrawn, loops and repeated edges are dropped
 * and redrawn until exactly E distinct directed edges exist (not symmetrised: in- and out-degrees
 * differ), ids are relabelled by a seeded permutation, then a self-loop on every vertex: E + N
 * edges. Much more skewed than powerlaw's Chung-Lu graph at the same size: issue 28's graph,
 * --vertices 200000 --edges 4000000, has a maximum in-degree of about 13,500 and a median of 3.
 *
 * Defaults (powerlaw; rmat takes the same --vertices and --edges) are the Reddit-sized graph of issue 12: 232,965 vertices, 114,615,892 edges
 * (Reddit's count, both directions), maximum expected degree 21,657 (Reddit's largest), seed 1.
 *
 * convert: loads any graph the runtime reads (dataset folder, edge list, .mtx, .gcsr) with the
 * given options and saves the cache, so both sides of a benchmark see the same edges in the
 * same order; --order degree relabels the vertices by decreasing in-degree (ties by id), so the
 * rows that most edges read are next to each other (issue 28's locality measurement: the same
 * graph, its ids permuted). info: the counts and degree range of a graph.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnnrt.h"

static uint64_t rng;
static uint64_t splitmix(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform01(void) { return (double)(splitmix() >> 11) * 0x1.0p-53; }
static uint64_t below(uint64_t n) { return (uint64_t)(uniform01() * (double)n) % n; }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void usage(FILE *f) {
  fputs("usage: gen_graph powerlaw -o OUT.gcsr [--vertices N] [--edges E] [--max-degree D] [--seed S]\n"
        "       gen_graph rmat -o OUT.gcsr [--vertices N] [--edges E] [--seed S]\n"
        "       gen_graph convert -o OUT.gcsr IN [--self-loops] [--symmetrise] [--dedup] [--order degree]\n"
        "       gen_graph info IN\n"
        "powerlaw defaults: the Reddit-sized graph, --vertices 232965 --edges 114615892 --max-degree 21657 --seed 1\n"
        "(E directed edges = E/2 undirected pairs both ways, plus a self-loop per vertex)\n",
        f);
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

/* LSD radix sort of n 64-bit keys, 16 bits a pass (keys < 2^bits). */
static int radix_sort(uint64_t *a, size_t n, int bits) {
  uint64_t *tmp = malloc(sizeof(uint64_t) * (n ? n : 1)), *from = a, *to = tmp;
  size_t *count = malloc(sizeof(size_t) * 65536);
  if (!tmp || !count) return free(tmp), free(count), 0;
  for (int shift = 0; shift < bits; shift += 16) {
    memset(count, 0, sizeof(size_t) * 65536);
    for (size_t i = 0; i < n; i++) count[(from[i] >> shift) & 0xffff]++;
    size_t sum = 0;
    for (int b = 0; b < 65536; b++) {
      size_t c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; i++) to[count[(from[i] >> shift) & 0xffff]++] = from[i];
    uint64_t *t = from;
    from = to, to = t;
  }
  if (from != a) memcpy(a, from, sizeof(uint64_t) * n);
  free(tmp);
  free(count);
  return 1;
}

/* Sorts n pairs and drops repeats (a new pair that repeats an old one is what goes): how many
 * are left, or -1 (out of memory, said). */
static int64_t sort_unique(uint64_t *pairs, int64_t n) {
  if (!radix_sort(pairs, (size_t)n, 64)) return fprintf(stderr, "gen_graph: out of memory\n"), -1;
  int64_t m = 0;
  for (int64_t k = 0; k < n; k++)
    if (m == 0 || pairs[k] != pairs[m - 1]) pairs[m++] = pairs[k];
  return m;
}

/* The pairs in a seeded order, so that the file order is not sorted by id. */
static void shuffle(uint64_t *pairs, int64_t n) {
  for (int64_t k = n - 1; k > 0; k--) {
    int64_t j = (int64_t)below((uint64_t)k + 1);
    uint64_t t = pairs[k];
    pairs[k] = pairs[j], pairs[j] = t;
  }
}

static void print_info(const gnn_graph *g, double secs, const char *what) {
  int64_t loops = 0;
  for (int64_t v = 0; v < g->nv; v++)
    for (int64_t e = g->h_in_ptr[v]; e < g->h_in_ptr[v + 1]; e++) loops += g->h_src[e] == v;
  printf("%s: %lld vertices, %lld edges (%lld self-loops), mean in-degree %.1f, max in-degree %lld, max out-degree %lld (%.1f s)\n",
         what, (long long)g->nv, (long long)g->ne, (long long)loops, (double)g->ne / (double)g->nv, (long long)g->max_in_deg,
         (long long)g->max_out_deg, secs);
}

#define CHECK(call)                                                                           \
  do {                                                                                        \
    gnn_status st_ = (call);                                                                  \
    if (st_ != GNN_OK) {                                                                      \
      fprintf(stderr, "gen_graph: %s: %s\n", gnn_status_name(st_), gnn_last_error(ctx));      \
      goto out;                                                                               \
    }                                                                                         \
  } while (0)

static int powerlaw(const char *out_path, int64_t nv, int64_t ne, int64_t maxdeg, uint64_t seed) {
  int rc = 1;
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  double *w = NULL, *prob = NULL;
  int32_t *alias = NULL, *perm = NULL;
  uint64_t *pairs = NULL;
  int64_t *src = NULL, *dst = NULL;
  double t0 = now();
  int64_t npairs = ne / 2;
  if (npairs > nv * (nv - 1) / 2) {
    fprintf(stderr, "gen_graph: %lld edges do not fit a simple graph of %lld vertices\n", (long long)ne, (long long)nv);
    return 2;
  }
  /* the exponent: expected degree of the heaviest vertex = 2 * npairs * w0 / sum(w) = maxdeg */
  double lo = 0, hi = 4, a = 0;
  for (int it = 0; it < 60; it++) {
    a = 0.5 * (lo + hi);
    double sum = 0;
    for (int64_t i = 0; i < nv; i++) sum += pow((double)(i + 1), -a);
    if (2.0 * (double)npairs / sum > (double)maxdeg) hi = a;
    else lo = a;
  }
  w = malloc(sizeof(double) * (size_t)nv);
  prob = malloc(sizeof(double) * (size_t)nv);
  alias = malloc(sizeof(int32_t) * (size_t)nv);
  perm = malloc(sizeof(int32_t) * (size_t)nv);
  int32_t *small = malloc(sizeof(int32_t) * (size_t)nv), *large = malloc(sizeof(int32_t) * (size_t)nv);
  if (!w || !prob || !alias || !perm || !small || !large) {
    free(small), free(large);
    fprintf(stderr, "gen_graph: out of memory\n");
    goto out;
  }
  double sum = 0;
  for (int64_t i = 0; i < nv; i++) sum += w[i] = pow((double)(i + 1), -a);
  /* Vose's alias table */
  int64_t ns = 0, nl = 0;
  for (int64_t i = 0; i < nv; i++) {
    prob[i] = w[i] / sum * (double)nv;
    if (prob[i] < 1) small[ns++] = (int32_t)i;
    else large[nl++] = (int32_t)i;
  }
  while (ns && nl) {
    int32_t s = small[--ns], l = large[nl - 1];
    alias[s] = l;
    prob[l] -= 1 - prob[s];
    if (prob[l] < 1) {
      nl--;
      small[ns++] = l;
    }
  }
  while (nl) prob[large[--nl]] = 1;
  while (ns) prob[small[--ns]] = 1;
  free(small), free(large);
  rng = seed * 0x2545f4914f6cdd1dull + 12;
  for (int64_t i = 0; i < nv; i++) perm[i] = (int32_t)i; /* the seeded relabelling */
  for (int64_t i = nv - 1; i > 0; i--) {
    int64_t j = (int64_t)below((uint64_t)i + 1);
    int32_t t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  /* distinct undirected pairs (lo << 32 | hi after relabelling), drawn until there are npairs */
  pairs = malloc(sizeof(uint64_t) * (size_t)(npairs > 0 ? npairs : 1));
  if (!pairs) {
    fprintf(stderr, "gen_graph: out of memory for %lld pairs\n", (long long)npairs);
    goto out;
  }
  int64_t have = 0, rounds = 0;
  while (have < npairs) {
    for (int64_t k = have; k < npairs; k++) {
      uint64_t u, v;
      do {
        uint64_t i = below((uint64_t)nv), j = below((uint64_t)nv);
        u = uniform01() < prob[i] ? i : (uint64_t)alias[i];
        v = uniform01() < prob[j] ? j : (uint64_t)alias[j];
      } while (u == v);
      u = (uint64_t)perm[u], v = (uint64_t)perm[v];
      pairs[k] = u < v ? u << 32 | v : v << 32 | u;
    }
    if ((have = sort_unique(pairs, npairs)) < 0) goto out;
    rounds++;
  }
  free(w), free(prob), free(alias), free(perm);
  w = prob = NULL, alias = NULL, perm = NULL;
  src = malloc(sizeof(int64_t) * (size_t)(npairs ? npairs : 1));
  dst = malloc(sizeof(int64_t) * (size_t)(npairs ? npairs : 1));
  if (!src || !dst) {
    fprintf(stderr, "gen_graph: out of memory\n");
    goto out;
  }
  shuffle(pairs, npairs);
  for (int64_t k = 0; k < npairs; k++) src[k] = (int64_t)(pairs[k] >> 32), dst[k] = (int64_t)(pairs[k] & 0xffffffffu);
  free(pairs);
  pairs = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) {
    fprintf(stderr, "gen_graph: %s\n", gnn_last_error(ctx));
    goto out;
  }
  gnn_graph_opts opts = {.add_self_loops = 1, .symmetrise = 1, .num_vertices = nv};
  CHECK(gnn_graph_from_edges(ctx, nv, npairs, src, dst, &opts, &g));
  free(src), free(dst);
  src = dst = NULL;
  CHECK(gnn_graph_save_cache(ctx, g, out_path));
  printf("gen_graph powerlaw: exponent a = %.4f (weights (i+1)^-a), %lld draw rounds, seed %llu\n", a, (long long)rounds,
         (unsigned long long)seed);
  print_info(g, now() - t0, out_path);
  rc = 0;
out:
  free(w), free(prob), free(alias), free(perm), free(pairs), free(src), free(dst);
  if (g) gnn_graph_free(ctx, g);
  if (ctx) gnn_ctx_destroy(ctx);
  return rc;
}

/* One R-MAT id pair over 2^bits ids: a quadrant per bit, Graph500's probabilities. */
static void rmat_pair(int bits, uint64_t *u, uint64_t *v) {
  uint64_t a = 0, b = 0;
  for (int i = 0; i < bits; i++) {
    double r = uniform01();
    int down = r >= 0.57 + 0.19, right = (r >= 0.57 && r < 0.57 + 0.19) || r >= 0.57 + 0.19 + 0.19;
    a = a << 1 | (uint64_t)down;
    b = b << 1 | (uint64_t)right;
  }
  *u = a, *v = b;
}

static int rmat(const char *out_path, int64_t nv, int64_t ne, uint64_t seed) {
  int rc = 1;
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  int32_t *perm = NULL;
  uint64_t *pairs = NULL;
  int64_t *src = NULL, *dst = NULL;
  double t0 = now();
  if (ne > nv * (nv - 1)) {
    fprintf(stderr, "gen_graph: %lld edges do not fit a simple directed graph of %lld vertices\n", (long long)ne, (long long)nv);
    return 2;
  }
  int bits = 1;
  while ((int64_t)1 << bits < nv) bits++;
  perm = malloc(sizeof(int32_t) * (size_t)nv);
  pairs = malloc(sizeof(uint64_t) * (size_t)ne);
  if (!perm || !pairs) {
    fprintf(stderr, "gen_graph: out of memory for %lld edges\n", (long long)ne);
    goto out;
  }
  rng = seed * 0x2545f4914f6cdd1dull + 28;
  for (int64_t i = 0; i < nv; i++) perm[i] = (int32_t)i; /* the seeded relabelling */
  for (int64_t i = nv - 1; i > 0; i--) {
    int64_t j = (int64_t)below((uint64_t)i + 1);
    int32_t t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  int64_t have = 0, rounds = 0;
  while (have < ne) { /* distinct directed pairs (source << 32 | destination), drawn until there are ne */
    for (int64_t k = have; k < ne; k++) {
      uint64_t u, v;
      do rmat_pair(bits, &u, &v);
      while (u >= (uint64_t)nv || v >= (uint64_t)nv || u == v);
      pairs[k] = (uint64_t)perm[u] << 32 | (uint64_t)perm[v];
    }
    if ((have = sort_unique(pairs, ne)) < 0) goto out;
    rounds++;
  }
  shuffle(pairs, ne);
  src = malloc(sizeof(int64_t) * (size_t)ne);
  dst = malloc(sizeof(int64_t) * (size_t)ne);
  if (!src || !dst) {
    fprintf(stderr, "gen_graph: out of memory\n");
    goto out;
  }
  for (int64_t k = 0; k < ne; k++) src[k] = (int64_t)(pairs[k] >> 32), dst[k] = (int64_t)(pairs[k] & 0xffffffffu);
  free(pairs), free(perm);
  pairs = NULL, perm = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) {
    fprintf(stderr, "gen_graph: %s\n", gnn_last_error(ctx));
    goto out;
  }
  gnn_graph_opts opts = {.add_self_loops = 1, .num_vertices = nv};
  CHECK(gnn_graph_from_edges(ctx, nv, ne, src, dst, &opts, &g));
  free(src), free(dst);
  src = dst = NULL;
  CHECK(gnn_graph_save_cache(ctx, g, out_path));
  int64_t *hist = calloc((size_t)g->max_in_deg + 1, sizeof(int64_t)), median = -1;
  if (hist) { /* the median in-degree: the skew's other end */
    for (int64_t v = 0; v < nv; v++) hist[g->h_in_ptr[v + 1] - g->h_in_ptr[v]]++;
    for (int64_t d = 0, seen = 0; d <= g->max_in_deg && median < 0; d++)
      if ((seen += hist[d]) * 2 > nv) median = d;
  }
  free(hist);
  printf("gen_graph rmat: 2^%d ids, probabilities 0.57 0.19 0.19 0.05, %lld draw rounds, seed %llu; median in-degree %lld\n",
         bits, (long long)rounds, (unsigned long long)seed, (long long)median);
  print_info(g, now() - t0, out_path);
  rc = 0;
out:
  free(perm), free(pairs), free(src), free(dst);
  if (g) gnn_graph_free(ctx, g);
  if (ctx) gnn_ctx_destroy(ctx);
  return rc;
}

/* The graph g with vertex v renamed rank[v], rank by decreasing in-degree: a new graph from
 * its edges (CSR order), nothing added or removed. */
static int64_t *g_deg;
static int by_degree(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return g_deg[x] != g_deg[y] ? (g_deg[x] < g_deg[y] ? 1 : -1) : (x > y) - (x < y);
}
static gnn_status degree_order(gnn_ctx *ctx, gnn_graph **gp) {
  gnn_graph *g = *gp;
  int64_t nv = g->nv, ne = g->ne;
  int64_t *order = malloc(sizeof(int64_t) * (size_t)nv), *rank = malloc(sizeof(int64_t) * (size_t)nv);
  int64_t *src = malloc(sizeof(int64_t) * (size_t)(ne ? ne : 1)), *dst = malloc(sizeof(int64_t) * (size_t)(ne ? ne : 1));
  g_deg = malloc(sizeof(int64_t) * (size_t)nv);
  gnn_status st = GNN_ERR_OOM;
  if (order && rank && src && dst && g_deg) {
    for (int64_t v = 0; v < nv; v++) order[v] = v, g_deg[v] = g->h_in_ptr[v + 1] - g->h_in_ptr[v];
    qsort(order, (size_t)nv, sizeof(int64_t), by_degree);
    for (int64_t i = 0; i < nv; i++) rank[order[i]] = i;
    for (int64_t v = 0; v < nv; v++)
      for (int64_t e = g->h_in_ptr[v]; e < g->h_in_ptr[v + 1]; e++) src[e] = rank[g->h_src[e]], dst[e] = rank[v];
    gnn_graph_opts opts = {.num_vertices = nv};
    gnn_graph *h = NULL;
    st = gnn_graph_from_edges(ctx, nv, ne, src, dst, &opts, &h);
    if (st == GNN_OK) gnn_graph_free(ctx, g), *gp = h;
  }
  free(order), free(rank), free(src), free(dst), free(g_deg);
  g_deg = NULL;
  return st;
}

static int convert(const char *in, const char *out_path, const gnn_graph_opts *opts, int info_only, bool by_deg) {
  int rc = 1;
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  double t0 = now();
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) {
    fprintf(stderr, "gen_graph: %s\n", gnn_last_error(ctx));
    goto out;
  }
  /* no option: none asked of the loader (a .gcsr cache loads as it was built, whatever its options) */
  bool none = !opts->add_self_loops && !opts->remove_self_loops && !opts->dedup && !opts->symmetrise && !opts->num_vertices;
  CHECK(gnn_graph_load(ctx, in, info_only || none ? NULL : opts, &g));
  if (by_deg) CHECK(degree_order(ctx, &g));
  if (!info_only) CHECK(gnn_graph_save_cache(ctx, g, out_path));
  print_info(g, now() - t0, info_only ? in : out_path);
  rc = 0;
out:
  if (g) gnn_graph_free(ctx, g);
  if (ctx) gnn_ctx_destroy(ctx);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr), 2;
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) return usage(stdout), 0;
  int mode = strcmp(cmd, "powerlaw") == 0 ? 1 : strcmp(cmd, "convert") == 0 ? 2 : strcmp(cmd, "info") == 0 ? 3 : 0;
  bool is_rmat = strcmp(cmd, "rmat") == 0; /* powerlaw's options but --max-degree */
  if (is_rmat) mode = 1;
  if (!mode) return fprintf(stderr, "gen_graph: unknown command '%s' (powerlaw, rmat, convert or info)\n", cmd), usage(stderr), 2;
  const char *out = NULL, *in = NULL;
  int64_t nv = 232965, ne = 114615892, maxdeg = 21657, seed = 1;
  gnn_graph_opts opts = {0};
  bool by_deg = false;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(n) (strcmp(a, n) == 0 && v && (i++, 1))
#define NUM(n, var, lo, hi)                                                                                      \
  else if (mode == 1 && OPT(n)) {                                                                                \
    if (!parse_i64(v, lo, hi, &var))                                                                             \
      return fprintf(stderr, "gen_graph: %s wants an integer in [%lld, %lld], got '%s'\n", n, (long long)(lo), (long long)(hi), v), 2; \
  }
    if (mode != 3 && OPT("-o")) out = v;
    NUM("--vertices", nv, 2, 2000000000)
    NUM("--edges", ne, 2, 2147483646)
    else if (is_rmat && strcmp(a, "--max-degree") == 0) return fprintf(stderr, "gen_graph: rmat takes no --max-degree (the probabilities set the skew)\n"), 2;
    NUM("--max-degree", maxdeg, 1, 2000000000)
    NUM("--seed", seed, 0, INT64_MAX)
    else if (mode == 2 && strcmp(a, "--self-loops") == 0) opts.add_self_loops = 1;
    else if (mode == 2 && strcmp(a, "--symmetrise") == 0) opts.symmetrise = 1;
    else if (mode == 2 && strcmp(a, "--dedup") == 0) opts.dedup = 1;
    else if (mode == 2 && OPT("--order")) {
      if (strcmp(v, "degree") != 0) return fprintf(stderr, "gen_graph: --order wants 'degree', got '%s'\n", v), 2;
      by_deg = true;
    }
    else if (a[0] == '-' && a[1]) return fprintf(stderr, "gen_graph: unknown option '%s' for %s (or it lacks its value)\n", a, cmd), 2;
    else if (mode != 1 && !in) in = a;
    else return fprintf(stderr, "gen_graph: unexpected argument '%s'\n", a), 2;
  }
  if (mode != 3 && !out) return fprintf(stderr, "gen_graph: %s needs -o OUT.gcsr\n", cmd), 2;
  if (mode != 1 && !in) return fprintf(stderr, "gen_graph: %s needs an input graph\n", cmd), 2;
  if (is_rmat) {
    if (ne + nv > 2147483647 || nv > INT32_MAX) return fprintf(stderr, "gen_graph: %lld edges + %lld self-loops exceed the runtime's 2^31-1\n", (long long)ne, (long long)nv), 2;
    return rmat(out, nv, ne, (uint64_t)seed);
  }
  if (mode == 1) {
    if (ne % 2) return fprintf(stderr, "gen_graph: --edges must be even (both directions of each pair), got %lld\n", (long long)ne), 2;
    if (ne + nv > 2147483647) return fprintf(stderr, "gen_graph: %lld edges + %lld self-loops exceed the runtime's 2^31-1\n", (long long)ne, (long long)nv), 2;
    if (maxdeg >= nv) return fprintf(stderr, "gen_graph: --max-degree must be below --vertices\n"), 2;
    return powerlaw(out, nv, ne, maxdeg, (uint64_t)seed);
  }
  return convert(in, out, &opts, mode == 3, by_deg);
}
