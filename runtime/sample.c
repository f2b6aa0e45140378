/* sample.c -- neighbour sampling for mini-batches (gnn_sampler_*; GraphSAGE, PyG's NeighborLoader).
 *
 * One hop: every frontier vertex v keeps k = fanout[h] of its d in-edges (all when d <= k or
 * k < 0). Which k is Floyd's algorithm over the positions 0 .. d - 1, its draws counter-based
 * random numbers of (seed, hop, v, draw) (gnnrt_rng.h), so a vertex's edges do not depend on the
 * thread that draws them, on the other vertices, or on the batch around it; the kept positions
 * are sorted, so a destination's edges are in CSR order. The frontier's vertices are drawn in
 * parallel into slots placed by a prefix sum of their counts; then one serial pass in edge order
 * numbers the sources not yet in the sample (first appearance: the same order on every thread
 * count) through the sampler's map from graph ids to sample ids, which is -1 everywhere between
 * batches (only the entries a batch set are reset, so a batch costs its own size, not the graph's).
 *
 * A CSR from gnn_sampler_from_csr is the caller's memory, not copied, and may change after its
 * one check there (a NumPy array reused): each batch checks again what it reads, as it reads it --
 * 0 <= in_ptr[v] <= in_ptr[v + 1] <= ne for each frontier vertex, each sampled source in 0 .. nv - 1
 * -- so no content of the arrays makes it read or write out of bounds, only a GNN_ERR_INVALID
 * naming the entry. The degrees are read once into the frontier's counts (`span`), so the parallel
 * draws use the values checked, not a second read. The cost is a comparison per frontier vertex
 * and per sampled edge, beside the random draws.
 *
 * Host memory (malloc) in both builds: a batch's arrays are what the caller reads next; the map
 * is 4 bytes a vertex. OpenMP over the frontier in libgnnrt_host; serial in libgnnrt, whose C
 * files are built without OpenMP.
 */
#include "internal.h"
#include "gnnrt_rng.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#define SAMPLE_OMP(x) _Pragma(x)
#else
#define SAMPLE_OMP(x)
#endif

struct gnn_sampler {
  gnn_ctx *ctx;
  int64_t nv, ne;
  const int64_t *in_ptr;
  const int32_t *src;
  int32_t *local; /* nv: the sample id of each graph vertex in the batch being drawn, else -1 */
};

/* the sample and its arrays, one allocation each so gnn_sample_free frees what is there */
typedef struct {
  gnn_sample pub;
  int64_t *nodes, *src, *dst, *eid, *hop_nv, *hop_ne;
  int64_t cap_nv, cap_ne;
} Sample;

static gnn_status make_sampler(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *in_ptr, const int32_t *src,
                               gnn_sampler **out) {
  gnn_sampler *s = (gnn_sampler *)rt_calloc(ctx, 1, sizeof *s, "gnn_sampler_create: the sampler");
  if (!s) return GNN_ERR_OOM;
  s->local = (int32_t *)rt_malloc(ctx, rt_mul((size_t)(nv ? nv : 1), sizeof(int32_t)), "gnn_sampler_create: the vertex map");
  if (!s->local) {
    free(s);
    return GNN_ERR_OOM;
  }
  memset(s->local, 0xff, sizeof(int32_t) * (size_t)nv); /* -1 */
  s->ctx = ctx, s->nv = nv, s->ne = ne, s->in_ptr = in_ptr, s->src = src;
  *out = s;
  return GNN_OK;
}

gnn_status gnn_sampler_create(gnn_ctx *ctx, const gnn_graph *g, gnn_sampler **out) {
  gnn_status st = rt_args(ctx, out != NULL, "gnn_sampler_create", "out is NULL");
  if (st) return st;
  *out = NULL;
  if ((st = rt_check_graph(ctx, g, "gnn_sampler_create"))) return st;
  if (g->nv > 0 && (!g->h_in_ptr || (g->ne > 0 && !g->h_src)))
    return gnn_set_error(ctx, GNN_ERR_INVALID,
                         "gnn_sampler_create: the graph has no host CSR (a graph from gnn_graph_from_csr: call gnn_graph_host_copies first)");
  return make_sampler(ctx, g->nv, g->ne, g->h_in_ptr, g->h_src, out);
}

gnn_status gnn_sampler_from_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *in_ptr, const int32_t *src,
                                gnn_sampler **out) {
  gnn_status st = rt_args(ctx, out != NULL, "gnn_sampler_from_csr", "out is NULL");
  if (st) return st;
  *out = NULL;
  /* no vertex, no seed: every sample would fail (graphs of 0 vertices are refused at creation too) */
  if (nv < 1 || nv > INT32_MAX || ne < 0 || ne > INT32_MAX)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_from_csr: %lld vertices, %lld edges (1 .. 2^31 - 1 vertices, "
                         "0 .. 2^31 - 1 edges)", (long long)nv, (long long)ne);
  if (!in_ptr || (ne > 0 && !src)) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_from_csr: in_ptr or src is NULL");
  if (in_ptr[0] != 0) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_from_csr: in_ptr[0] = %lld (must be 0)", (long long)in_ptr[0]);
  for (int64_t v = 0; v < nv; v++)
    if (in_ptr[v + 1] < in_ptr[v] || in_ptr[v + 1] > ne)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_from_csr: in_ptr[%lld] = %lld after %lld (never decreasing, at most ne = %lld)",
                           (long long)(v + 1), (long long)in_ptr[v + 1], (long long)in_ptr[v], (long long)ne);
  if (in_ptr[nv] != ne)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_from_csr: in_ptr[%lld] = %lld (must be ne = %lld)", (long long)nv,
                         (long long)in_ptr[nv], (long long)ne);
  for (int64_t e = 0; e < ne; e++)
    if (src[e] < 0 || src[e] >= nv)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_from_csr: src[%lld] = %d out of range (the graph has %lld vertices)",
                           (long long)e, (int)src[e], (long long)nv);
  return make_sampler(ctx, nv, ne, in_ptr, src, out);
}

void gnn_sampler_free(gnn_sampler *s) {
  if (!s) return;
  free(s->local);
  free(s);
}

void gnn_sample_free(gnn_sample *sample) {
  Sample *b = (Sample *)sample; /* pub is the first member */
  if (!b) return;
  free(b->nodes), free(b->src), free(b->dst), free(b->eid), free(b->hop_nv), free(b->hop_ne);
  free(b);
}

/* a uniform draw from 0 .. n - 1 (n >= 1): 64 random bits modulo n, biased by at most n / 2^64 */
static int64_t draw_below(uint64_t seed, uint32_t hop, int64_t v, int64_t j, int64_t n) {
  uint64_t index = ((uint64_t)v << 32) | (uint64_t)(uint32_t)j; /* v < 2^31, j < 2^31 */
  uint64_t r = ((uint64_t)gnn_rng_bits(seed, 2 * hop, index) << 32) | gnn_rng_bits(seed, 2 * hop + 1, index);
  return (int64_t)(r % (uint64_t)n);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Floyd's algorithm: k distinct positions of 0 .. d - 1 (k < d) into pos, ascending. set is a
 * scratch hash set of cap slots (a power of two >= 2k), holding position + 1 (0: empty). */
static void floyd(uint64_t seed, uint32_t hop, int64_t v, int64_t d, int64_t k, int64_t *pos, int64_t *set, int64_t cap) {
  memset(set, 0, sizeof(int64_t) * (size_t)cap);
  int64_t n = 0;
  for (int64_t j = d - k; j < d; j++) {
    int64_t t = draw_below(seed, hop, v, j, j + 1);
    /* t if it is not chosen yet, else j (which cannot be: every draw so far was below j) */
    int64_t slot = (int64_t)((uint64_t)t * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
    int taken = 0;
    for (; set[slot]; slot = (slot + 1) & (cap - 1))
      if (set[slot] == t + 1) {
        taken = 1;
        break;
      }
    int64_t pick = taken ? j : t;
    if (taken) /* j's own slot */
      for (slot = (int64_t)((uint64_t)j * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1); set[slot]; slot = (slot + 1) & (cap - 1)) {}
    set[slot] = pick + 1;
    pos[n++] = pick;
  }
  if (k <= 32) /* insertion sort: the common fan-outs are 5 .. 25 */
    for (int64_t i = 1; i < k; i++) {
      int64_t x = pos[i], m = i;
      for (; m > 0 && pos[m - 1] > x; m--) pos[m] = pos[m - 1];
      pos[m] = x;
    }
  else
    qsort(pos, (size_t)k, sizeof(int64_t), cmp_i64);
}

static int grow(gnn_ctx *ctx, int64_t **a, int64_t *cap, int64_t need, int nas, int64_t **more[], const char *what) {
  if (need <= *cap) return 1;
  int64_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  int64_t **arrs[4] = {a, NULL, NULL, NULL};
  for (int i = 0; i < nas; i++) arrs[i + 1] = more[i];
  for (int i = 0; i <= nas; i++) {
    int64_t *p = (int64_t *)realloc(*arrs[i], sizeof(int64_t) * (size_t)c);
    if (!p) {
      gnn_set_error(ctx, GNN_ERR_OOM, "gnn_sampler_sample: %s: %lld entries", what, (long long)c);
      return 0;
    }
    *arrs[i] = p;
  }
  *cap = c;
  return 1;
}

gnn_status gnn_sampler_sample(gnn_sampler *s, const int64_t *seeds, int64_t nseeds, const int64_t *fanout, int nhops,
                              uint64_t seed, gnn_sample **out) {
  if (!s) return GNN_ERR_INVALID; /* no context to say it in */
  gnn_ctx *ctx = s->ctx;
  gnn_status st = rt_args(ctx, out != NULL, "gnn_sampler_sample", "out is NULL");
  if (st) return st;
  *out = NULL;
  if (nseeds < 1 || nseeds > s->nv)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_sample: %lld seeds (1 .. the graph's %lld vertices)", (long long)nseeds,
                         (long long)s->nv);
  if (!seeds || !fanout) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_sample: seeds or fanout is NULL");
  if (nhops < 1 || nhops > 64) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_sample: %d hops (1 .. 64)", nhops);

  Sample *b = (Sample *)rt_calloc(ctx, 1, sizeof *b, "gnn_sampler_sample: the sample");
  if (!b) return GNN_ERR_OOM;
  int32_t *local = s->local;
  int64_t nv = 0, ne = 0, *count = NULL, *scratch = NULL, *span = NULL;
  b->hop_nv = (int64_t *)rt_malloc(ctx, sizeof(int64_t) * (size_t)(nhops + 1), "gnn_sampler_sample: the hop counts");
  b->hop_ne = (int64_t *)rt_malloc(ctx, sizeof(int64_t) * (size_t)(nhops + 1), "gnn_sampler_sample: the hop counts");
  if (!b->hop_nv || !b->hop_ne) {
    st = GNN_ERR_OOM;
    goto done;
  }
  int64_t **edge_arrays[] = {&b->dst, &b->eid}; /* grown with b->src */
  if (!grow(ctx, &b->nodes, &b->cap_nv, nseeds, 0, NULL, "the vertices") ||
      !grow(ctx, &b->src, &b->cap_ne, 1, 2, edge_arrays, "the edges")) { /* valid pointers even without edges */
    st = GNN_ERR_OOM;
    goto done;
  }
  for (int64_t i = 0; i < nseeds; i++) {
    int64_t v = seeds[i];
    if (v < 0 || v >= s->nv) {
      st = gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_sample: seeds[%lld] = %lld out of range (the graph has %lld vertices)",
                         (long long)i, (long long)v, (long long)s->nv);
      goto done;
    }
    if (local[v] >= 0) {
      st = gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_sampler_sample: seeds[%lld] = %lld repeats seeds[%d]", (long long)i, (long long)v,
                         (int)local[v]);
      goto done;
    }
    local[v] = (int32_t)i;
    b->nodes[nv++] = v;
  }
  b->hop_nv[0] = nv, b->hop_ne[0] = 0;

  int64_t lo = 0; /* the frontier: nodes[lo .. hi - 1] */
  for (int h = 0; h < nhops; h++) {
    int64_t hi = nv, nf = hi - lo, k = fanout[h];
    int64_t *grown = (int64_t *)realloc(count, sizeof(int64_t) * (size_t)(nf + 1));
    if (grown) count = grown;
    int64_t *grown_span = grown ? (int64_t *)realloc(span, sizeof(int64_t) * 2 * (size_t)(nf ? nf : 1)) : NULL;
    if (grown_span) span = grown_span;
    if (!grown || !grown_span) {
      st = gnn_set_error(ctx, GNN_ERR_OOM, "gnn_sampler_sample: the frontier's counts (%lld vertices)", (long long)nf);
      goto done;
    }
    int64_t kmax = 0;
    count[0] = 0;
    for (int64_t i = 0; i < nf; i++) { /* count[i + 1]: the edges kept before frontier vertex i + 1 */
      /* in_ptr read once here, checked, and kept in span for the draws (a caller's CSR may have
       * changed since gnn_sampler_from_csr checked it) */
      int64_t v = b->nodes[lo + i], first = s->in_ptr[v], last = s->in_ptr[v + 1];
      if (first < 0 || last < first || last > s->ne) {
        st = gnn_set_error(ctx, GNN_ERR_INVALID,
                           "gnn_sampler_sample: in_ptr[%lld] = %lld, in_ptr[%lld] = %lld: not 0 <= in_ptr[v] <= in_ptr[v + 1] <= "
                           "ne = %lld (the CSR changed after gnn_sampler_from_csr checked it?)",
                           (long long)v, (long long)first, (long long)(v + 1), (long long)last, (long long)s->ne);
        goto done;
      }
      int64_t d = last - first, c = k < 0 || d <= k ? d : k;
      if (c < d && c > kmax) kmax = c;
      count[i + 1] = count[i] + c;
      span[2 * i] = first, span[2 * i + 1] = d;
    }
    int64_t add = count[nf];
    if (!grow(ctx, &b->src, &b->cap_ne, ne + add, 2, edge_arrays, "the edges")) {
      st = GNN_ERR_OOM;
      goto done;
    }
    /* Floyd's scratch per thread: kmax kept positions are written in place; the set has
     * cap >= 2 kmax slots */
    int64_t cap = 1;
    while (cap < 2 * kmax) cap *= 2;
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#endif
    if (kmax > 0) {
      scratch = (int64_t *)realloc(scratch, sizeof(int64_t) * (size_t)cap * (size_t)nthreads);
      if (!scratch) {
        st = gnn_set_error(ctx, GNN_ERR_OOM, "gnn_sampler_sample: the draws' scratch");
        goto done;
      }
    }
    int64_t *eid = b->eid + ne, *dstl = b->dst + ne;
    const int64_t *nodes = b->nodes, *sp = span;
    SAMPLE_OMP("omp parallel for schedule(dynamic, 64) num_threads(nthreads)")
    for (int64_t i = 0; i < nf; i++) {
      int64_t v = nodes[lo + i], first = sp[2 * i], d = sp[2 * i + 1], c = count[i + 1] - count[i];
      int64_t *pos = eid + count[i];
      if (c == 0) continue;
      if (c == d)
        for (int64_t j = 0; j < d; j++) pos[j] = j;
      else {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        floyd(seed, (uint32_t)h, v, d, c, pos, scratch + (size_t)t * (size_t)cap, cap);
      }
      for (int64_t j = 0; j < c; j++) pos[j] += first, dstl[count[i] + j] = lo + i;
    }
    /* the sources, in edge order: new ones join the sample (at most one per edge) */
    if (!grow(ctx, &b->nodes, &b->cap_nv, nv + add, 0, NULL, "the vertices")) {
      st = GNN_ERR_OOM;
      goto done;
    }
    for (int64_t i = 0; i < add; i++) {
      int64_t u = s->src[eid[i]]; /* eid[i] < in_ptr[v + 1] <= ne: checked above */
      if (u < 0 || u >= s->nv) {
        st = gnn_set_error(ctx, GNN_ERR_INVALID,
                           "gnn_sampler_sample: src[%lld] = %lld out of range (the graph has %lld vertices; the CSR changed "
                           "after gnn_sampler_from_csr checked it?)", (long long)eid[i], (long long)u, (long long)s->nv);
        goto done;
      }
      if (local[u] < 0) {
        local[u] = (int32_t)nv;
        b->nodes[nv++] = u;
      }
      b->src[ne + i] = local[u];
    }
    ne += add;
    b->hop_nv[h + 1] = nv, b->hop_ne[h + 1] = ne;
    lo = hi;
  }
  b->pub.nv = nv, b->pub.ne = ne, b->pub.nseeds = nseeds, b->pub.nhops = nhops;
  b->pub.nodes = b->nodes, b->pub.src = b->src, b->pub.dst = b->dst, b->pub.eid = b->eid;
  b->pub.hop_nv = b->hop_nv, b->pub.hop_ne = b->hop_ne;
done:
  for (int64_t i = 0; i < nv; i++) local[b->nodes[i]] = -1; /* the map is -1 again for the next batch */
  free(count);
  free(span);
  free(scratch);
  if (st) {
    gnn_sample_free(&b->pub);
    return st;
  }
  *out = &b->pub;
  return GNN_OK;
}
