/* t_csr.c -- gnn_graph_from_csr and gnn_graph_host_copies, for either build.
 *
 * The reference is gnn_graph_from_edges: for random graphs (duplicates, self-loops, isolated
 * vertices, no edges) under each of the 16 combinations of the options, its CSR, CSC and
 * origins are put in the context's memory (gnn_malloc, gnn_upload) and handed to
 * gnn_graph_from_csr, whose graph must equal it array for array, bit for bit: the device arrays
 * (downloaded), dst and the degrees it computed, their maxima, the one-graph batch arrays, and
 * after gnn_graph_host_copies the host copies and edge_origin. Before that call the host copies
 * are NULL; a cache written from such a graph loads back as the reference. Then every rule the
 * arrays must keep is broken once, on the hand-checked graph of tests/runtime/graphs/small.edges:
 * each call fails with GNN_ERR_INVALID and the exact message (the same in both builds: the first
 * broken rule at its first index), leaves *out NULL and no byte allocated. Everything goes
 * through gnn_malloc / gnn_upload / gnn_download, so the same file linked against libgnnrt
 * (t_csr_cuda, make gpu-check) tests the CUDA kernels, plus the refusal of host pointers there.
 * Without a usable context it prints "no context: ..." and exits 77.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gnnrt_pieces.h"
#include "gnnrt_rng.h"
#include "rt_test.h"

#define RT_MSG 1200

static void *to_dev(gnn_ctx *ctx, const void *h, size_t n) {
  void *d = NULL;
  if (gnn_malloc(ctx, &d, n ? n : 1) || gnn_upload(ctx, d, h, n)) return NULL;
  return d;
}

/* n bytes of the context's memory into a malloc'd host buffer (0xff bytes when it fails). */
static void *from_dev(gnn_ctx *ctx, const void *d, size_t n) {
  void *h = malloc(n ? n : 1);
  if (!h) abort();
  if (gnn_download(ctx, h, d, n)) memset(h, 0xff, n);
  return h;
}

static size_t live_bytes(gnn_ctx *ctx) {
  size_t live = 0;
  gnn_mem_usage(ctx, &live, NULL);
  return live;
}

/* The device arrays of g equal the host arrays of ref (the same layout), byte for byte. */
static int same_dev(gnn_ctx *ctx, const void *d, const void *h, size_t n) {
  void *got = from_dev(ctx, d, n);
  int ok = !n || memcmp(got, h, n) == 0;
  free(got);
  return ok;
}

/* A graph's arrays in the context's memory, as gnn_graph_from_csr takes them. */
typedef struct {
  int64_t *in_ptr, *out_ptr, *origin;
  int32_t *src, *out_eid;
} DevCsr;

static DevCsr upload_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *in_ptr, const int32_t *src,
                         const int64_t *out_ptr, const int32_t *out_eid, const int64_t *origin) {
  DevCsr d;
  d.in_ptr = to_dev(ctx, in_ptr, 8 * (size_t)(nv + 1));
  d.out_ptr = to_dev(ctx, out_ptr, 8 * (size_t)(nv + 1));
  d.src = to_dev(ctx, src, 4 * (size_t)ne);
  d.out_eid = to_dev(ctx, out_eid, 4 * (size_t)ne);
  d.origin = origin ? to_dev(ctx, origin, 8 * (size_t)ne) : NULL;
  return d;
}

static void free_csr(gnn_ctx *ctx, DevCsr *d) {
  gnn_free(ctx, d->in_ptr), gnn_free(ctx, d->out_ptr), gnn_free(ctx, d->src), gnn_free(ctx, d->out_eid);
  gnn_free(ctx, d->origin);
  memset(d, 0, sizeof *d);
}

/* g (from gnn_graph_from_csr) equals ref (from gnn_graph_from_edges) everywhere; "" or what differs. */
static const char *compare(gnn_ctx *ctx, const gnn_graph *ref, gnn_graph *g, int with_origin) {
  int64_t nv = ref->nv, ne = ref->ne;
  size_t nptr = 8 * (size_t)(nv + 1), n32 = 4 * (size_t)ne;
  if (g->nv != nv || g->ne != ne) return "nv or ne";
  if (g->max_in_deg != ref->max_in_deg || g->max_out_deg != ref->max_out_deg) return "max degrees";
  if (!same_dev(ctx, g->in_ptr, ref->h_in_ptr, nptr)) return "in_ptr";
  if (!same_dev(ctx, g->src, ref->h_src, n32)) return "src";
  if (!same_dev(ctx, g->dst, ref->h_dst, n32)) return "dst";
  if (!same_dev(ctx, g->out_ptr, ref->h_out_ptr, nptr)) return "out_ptr";
  if (!same_dev(ctx, g->out_eid, ref->h_out_eid, n32)) return "out_eid";
  /* out_dst, the far ends in CSC order, of both builders: dst[out_eid[k]] */
  int32_t *want_od = malloc(n32 + 4);
  for (int64_t k = 0; k < ne; k++) want_od[k] = ref->h_dst[ref->h_out_eid[k]];
  int od_ok = same_dev(ctx, g->out_dst, want_od, n32), od_ref = same_dev(ctx, ref->out_dst, want_od, n32);
  free(want_od);
  if (!od_ok || !od_ref) return od_ok ? "out_dst (gnn_graph_from_edges)" : "out_dst";
  float *din = from_dev(ctx, ref->in_deg, 4 * (size_t)nv), *dout = from_dev(ctx, ref->out_deg, 4 * (size_t)nv);
  int deg_ok = same_dev(ctx, g->in_deg, din, 4 * (size_t)nv) && same_dev(ctx, g->out_deg, dout, 4 * (size_t)nv);
  free(din), free(dout);
  if (!deg_ok) return "degrees";
  if (g->ng != 1 || g->h_graph_ptr[0] != 0 || g->h_graph_ptr[1] != nv) return "the batch (host)";
  int64_t want_ptr[2] = {0, nv};
  if (!same_dev(ctx, g->graph_ptr, want_ptr, 16) || !same_dev(ctx, g->vertex_graph, ref->h_vertex_graph, 4 * (size_t)nv))
    return "the batch (device)";
  float size = (float)nv;
  if (!same_dev(ctx, g->graph_size, &size, 4)) return "graph_size";
  if (g->h_in_ptr || g->h_src || g->h_dst || g->h_out_ptr || g->h_out_eid || g->edge_origin) return "host copies before asked";
  if (gnn_graph_host_copies(ctx, g)) return gnn_last_error(ctx);
  if (!g->h_in_ptr || memcmp(g->h_in_ptr, ref->h_in_ptr, nptr) || memcmp(g->h_src, ref->h_src, n32) ||
      memcmp(g->h_dst, ref->h_dst, n32) || memcmp(g->h_out_ptr, ref->h_out_ptr, nptr) ||
      memcmp(g->h_out_eid, ref->h_out_eid, n32))
    return "host copies";
  if (!gnn_ctx_is_cuda(ctx) && (g->h_in_ptr != g->in_ptr || g->h_out_eid != g->out_eid))
    return "host build: the host copies are not the arrays";
  for (int64_t e = 0; e < ne; e++)
    if (g->edge_origin[e] != (with_origin ? ref->edge_origin[e] : e)) return "edge_origin";
  const int64_t *before = g->edge_origin;
  if (gnn_graph_host_copies(ctx, g) || g->edge_origin != before) return "a second gnn_graph_host_copies changed the graph";
  return "";
}

/* ---------------------------------------------------------------- round trips */

/* Random edges: ids below `ids` (<= nv: the rest isolated), a fifth of them repeats of earlier
 * edges, some self-loops. */
static void random_edges(uint64_t seed, int64_t ids, int64_t ne, int64_t *src, int64_t *dst) {
  for (int64_t i = 0; i < ne; i++) {
    uint32_t r = gnn_rng_bits(seed, 0, (uint64_t)i);
    if (i > 0 && r % 5 == 0) {
      int64_t j = gnn_rng_bits(seed, 1, (uint64_t)i) % (uint64_t)i;
      src[i] = src[j], dst[i] = dst[j];
    } else {
      src[i] = gnn_rng_bits(seed, 2, (uint64_t)i) % (uint64_t)ids;
      dst[i] = r % 7 == 0 ? src[i] : (int64_t)(gnn_rng_bits(seed, 3, (uint64_t)i) % (uint64_t)ids);
    }
  }
}

static void test_round_trips(gnn_ctx *ctx, const char *tmpdir) {
  const struct {
    int64_t nv, ids, ne;
  } shapes[] = {{1, 1, 0}, {7, 7, 0}, {1, 1, 5}, {6, 4, 30}, {50, 40, 400}, {300, 300, 3000}, {2000, 1500, 1500}};
  int cases = 0, failed = 0, cache_ok = 1;
  char why[RT_MSG] = "";
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int64_t nv = shapes[s].nv, ne = shapes[s].ne;
    int64_t *src = malloc(8 * (size_t)(ne + 1)), *dst = malloc(8 * (size_t)(ne + 1));
    random_edges(100 + s, shapes[s].ids, ne, src, dst);
    for (int o = 0; o < 16; o++) {
      gnn_graph_opts opts = {o & 1, (o >> 1) & 1, (o >> 2) & 1, (o >> 3) & 1, 0};
      gnn_graph *ref = NULL, *g = NULL;
      if (gnn_graph_from_edges(ctx, nv, ne, src, dst, &opts, &ref)) {
        snprintf(why, sizeof why, "shape %zu options %d: from_edges: %s", s, o, gnn_last_error(ctx));
        failed++;
        continue;
      }
      for (int with_origin = 1; with_origin >= 0; with_origin--) {
        DevCsr d = upload_csr(ctx, nv, ref->ne, ref->h_in_ptr, ref->h_src, ref->h_out_ptr, ref->h_out_eid,
                              with_origin ? ref->edge_origin : NULL);
        cases++;
        gnn_status st = gnn_graph_from_csr(ctx, nv, ref->ne, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, &opts, &g);
        free_csr(ctx, &d); /* the graph has its own copies */
        const char *diff = st ? gnn_last_error(ctx) : compare(ctx, ref, g, with_origin);
        if (*diff) {
          failed++;
          snprintf(why, sizeof why, "shape %zu (nv %lld, %lld edges) options %d%s: %s", s, (long long)nv, (long long)ref->ne,
                   o, with_origin ? "" : " without origins", diff);
        }
        gnn_graph_free(ctx, g);
        g = NULL;
      }
      /* a cache written from a graph without host copies loads back as the reference */
      if (tmpdir && o % 5 == 0) {
        char path[600];
        snprintf(path, sizeof path, "%s/g%zu-%d.gcsr", tmpdir, s, o);
        DevCsr d = upload_csr(ctx, nv, ref->ne, ref->h_in_ptr, ref->h_src, ref->h_out_ptr, ref->h_out_eid, ref->edge_origin);
        gnn_graph *back = NULL;
        int ok = !gnn_graph_from_csr(ctx, nv, ref->ne, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, &opts, &g) &&
                 !gnn_graph_save_cache(ctx, g, path) && !gnn_graph_load(ctx, path, &opts, &back) && back->ne == ref->ne &&
                 !memcmp(back->h_in_ptr, ref->h_in_ptr, 8 * (size_t)(nv + 1)) &&
                 !memcmp(back->h_src, ref->h_src, 4 * (size_t)ref->ne) &&
                 !memcmp(back->edge_origin, ref->edge_origin, 8 * (size_t)ref->ne);
        if (!ok) {
          cache_ok = 0;
          snprintf(why, sizeof why, "cache of shape %zu options %d: %s", s, o, gnn_last_error(ctx));
        }
        free_csr(ctx, &d);
        gnn_graph_free(ctx, back);
        gnn_graph_free(ctx, g);
        g = NULL;
        unlink(path);
      }
      gnn_graph_free(ctx, ref);
    }
    free(src), free(dst);
  }
  check(!failed && cases == 7 * 16 * 2, "csr/equals-from-edges", "%d of %d cases differ; last: %s", failed, cases, why);
  check(cache_ok && tmpdir, "csr/cache-round-trip", "%s", tmpdir ? why : "no temporary folder");
}

/* ---------------------------------------------------------------- errors */

/* tests/runtime/graphs/small.edges (small.plain.expected): 5 vertices, 6 edges */
static const int64_t k_in_ptr[] = {0, 1, 4, 6, 6, 6}, k_out_ptr[] = {0, 2, 3, 5, 6, 6}, k_origin[] = {4, 0, 3, 5, 1, 2};
static const int32_t k_src[] = {2, 0, 0, 3, 1, 2}, k_out_eid[] = {1, 2, 4, 0, 5, 3};

typedef struct {
  int64_t in_ptr[6], out_ptr[6], origin[6];
  int32_t src[6], out_eid[6];
} Small;

static Small small(void) {
  Small s;
  memcpy(s.in_ptr, k_in_ptr, sizeof s.in_ptr), memcpy(s.out_ptr, k_out_ptr, sizeof s.out_ptr);
  memcpy(s.origin, k_origin, sizeof s.origin), memcpy(s.src, k_src, sizeof s.src);
  memcpy(s.out_eid, k_out_eid, sizeof s.out_eid);
  return s;
}

/* gnn_graph_from_csr on s fails with GNN_ERR_INVALID and a message containing want, *out NULL,
 * nothing left allocated. */
static void expect_bad(gnn_ctx *ctx, const char *name, Small s, const char *want) {
  DevCsr d = upload_csr(ctx, 5, 6, s.in_ptr, s.src, s.out_ptr, s.out_eid, s.origin);
  size_t before = live_bytes(ctx);
  gnn_graph *g = (gnn_graph *)&g;
  gnn_status st = gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, NULL, &g);
  check_status(ctx, st, GNN_ERR_INVALID, name, want, NULL);
  size_t after = live_bytes(ctx);
  char clean[128];
  snprintf(clean, sizeof clean, "%s-no-leak", name);
  check(g == NULL && after == before, clean, "out %s, %zu bytes live before, %zu after", g ? "set" : "NULL", before, after);
  if (!st) gnn_graph_free(ctx, g);
  free_csr(ctx, &d);
}

static void test_errors(gnn_ctx *ctx) {
  Small s = small();
  DevCsr d = upload_csr(ctx, 5, 6, s.in_ptr, s.src, s.out_ptr, s.out_eid, s.origin);
  gnn_graph *g = NULL;
  /* the good graph first (the CUDA build's scratch is made then, and stays) */
  gnn_status st = gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, NULL, &g);
  check(!st && g->max_in_deg == 3 && g->max_out_deg == 2, "csr/small", "%s", gnn_last_error(ctx));
  gnn_graph_free(ctx, g);
  size_t live0 = live_bytes(ctx);
  g = (gnn_graph *)&g;
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, NULL, NULL),
               GNN_ERR_INVALID, "csr/null-out", "gnn_graph_from_csr: out is NULL", NULL);
  check(gnn_graph_from_csr(NULL, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, NULL, &g) == GNN_ERR_INVALID && !g,
        "csr/null-ctx", "accepted, or out not cleared");
  check_status(ctx, gnn_graph_from_csr(ctx, 0, 0, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g), GNN_ERR_INVALID,
               "csr/no-vertices", "gnn_graph_from_csr: 0 vertices out of range (1 .. 2^31)", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, ((int64_t)1 << 31) + 1, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g),
               GNN_ERR_INVALID, "csr/nv-2-31", "2147483649 vertices out of range", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, -1, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g), GNN_ERR_INVALID,
               "csr/negative-ne", "-1 edges out of range (0 .. 2^31-1", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, (int64_t)1 << 31, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g),
               GNN_ERR_INVALID, "csr/ne-2-31", "2147483648 edges out of range", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, NULL, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g), GNN_ERR_INVALID,
               "csr/null-in_ptr", "gnn_graph_from_csr: in_ptr is NULL (6 edges)", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, NULL, d.out_eid, NULL, NULL, &g), GNN_ERR_INVALID,
               "csr/null-out_ptr", "out_ptr is NULL", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, NULL, d.out_ptr, d.out_eid, NULL, NULL, &g), GNN_ERR_INVALID,
               "csr/null-src", "src is NULL (6 edges)", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, NULL, NULL, NULL, &g), GNN_ERR_INVALID,
               "csr/null-out_eid", "out_eid is NULL", NULL);
  gnn_graph_opts other_nv = {0, 0, 0, 0, 4}, neg_nv = {0, 0, 0, 0, -1};
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, &other_nv, &g),
               GNN_ERR_INVALID, "csr/opts-nv", "opts->num_vertices is 4, but nv is 5", NULL);
  check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, &neg_nv, &g),
               GNN_ERR_INVALID, "csr/opts-negative-nv", "num_vertices -1 out of range", NULL);
  if (gnn_ctx_is_cuda(ctx)) { /* host memory for a CUDA context */
    check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, s.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g), GNN_ERR_INVALID,
                 "csr/cuda-host-in_ptr", "gnn_graph_from_csr: in_ptr is host memory", NULL);
    check_status(ctx, gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, s.origin, NULL, &g),
                 GNN_ERR_INVALID, "csr/cuda-host-origin", "edge_origin is host memory", NULL);
  }
  size_t live1 = live_bytes(ctx);
  check(g == NULL && live1 == live0, "csr/bad-arguments-no-leak", "%zu bytes live before, %zu after", live0, live1);
  /* memory limits that the allocations pass at each step in turn: what was made is freed */
  int limits = 0, limit_bad = 0;
  char limit_why[RT_MSG] = "";
  for (size_t limit = live0 + 8; limit < live0 + 1000; limit += 8, limits++) {
    gnn_set_memory_limit(ctx, limit);
    st = gnn_graph_from_csr(ctx, 5, 6, d.in_ptr, d.src, d.out_ptr, d.out_eid, d.origin, NULL, &g);
    gnn_set_memory_limit(ctx, 0);
    if (!st) {
      gnn_graph_free(ctx, g);
      break;
    }
    live1 = live_bytes(ctx);
    if (st != GNN_ERR_OOM || !strstr(gnn_last_error(ctx), "memory limit") || g || live1 != live0) {
      limit_bad++;
      snprintf(limit_why, sizeof limit_why, "limit %zu: %s '%s', %zu bytes live before, %zu after", limit,
               gnn_status_name(st), gnn_last_error(ctx), live0, live1);
    }
  }
  check(!limit_bad && limits > 5, "csr/memory-limit-no-leak", "%d of %d limits: %s", limit_bad, limits, limit_why);
  free_csr(ctx, &d);

  /* each rule broken once: the message names the rule, the index and the values */
  s = small(), s.in_ptr[0] = 1;
  expect_bad(ctx, "csr/in_ptr-start", s, "gnn_graph_from_csr: in_ptr[0] = 1, want 0 (offsets start at 0)");
  s = small(), s.in_ptr[5] = 5;
  expect_bad(ctx, "csr/in_ptr-end", s, "gnn_graph_from_csr: in_ptr[5] = 5, want 6 (ne, the edge count)");
  s = small(), s.in_ptr[3] = 3;
  expect_bad(ctx, "csr/in_ptr-order", s, "in_ptr decreases at vertex 2 (in_ptr[2] = 4, in_ptr[3] = 3)");
  s = small(), s.out_ptr[0] = -1;
  expect_bad(ctx, "csr/out_ptr-start", s, "out_ptr[0] = -1, want 0");
  s = small(), s.out_ptr[5] = 7;
  expect_bad(ctx, "csr/out_ptr-end", s, "out_ptr[5] = 7, want 6");
  s = small(), s.out_ptr[1] = 4;
  expect_bad(ctx, "csr/out_ptr-order", s, "out_ptr decreases at vertex 1 (out_ptr[1] = 4, out_ptr[2] = 3)");
  s = small(), s.src[3] = 5;
  expect_bad(ctx, "csr/src-range", s, "gnn_graph_from_csr: src[3] = 5 out of range (the graph has 5 vertices)");
  s = small(), s.src[4] = -2;
  expect_bad(ctx, "csr/src-negative", s, "src[4] = -2 out of range");
  s = small(), s.out_eid[2] = 6;
  expect_bad(ctx, "csr/out_eid-range", s, "out_eid[2] = 6 out of range (the graph has 6 edges)");
  s = small(), s.out_eid[0] = 0;
  expect_bad(ctx, "csr/out_eid-source", s,
             "out_eid[0] = 0 lists edge 0 among the out-edges of vertex 0, but its source is src[0] = 2");
  s = small(), s.out_eid[4] = 3;
  expect_bad(ctx, "csr/out_eid-source-last", s,
             "out_eid[4] = 3 lists edge 3 among the out-edges of vertex 2, but its source is src[3] = 3");
  s = small(), s.out_eid[0] = 2, s.out_eid[1] = 1;
  expect_bad(ctx, "csr/out_eid-order", s, "out_eid is not ascending at 1 (out_eid[0] = 2, out_eid[1] = 1)");
  s = small(), s.out_eid[1] = 1; /* edge 1 twice, edge 2 never: only "ascending" sees it */
  expect_bad(ctx, "csr/out_eid-repeat", s, "out_eid is not ascending at 1 (out_eid[0] = 1, out_eid[1] = 1)");
  s = small(), s.origin[2] = -2;
  expect_bad(ctx, "csr/origin-negative", s, "edge_origin[2] = -2 (an origin is an index >= 0, or -1)");
  s = small(), s.origin[0] = -1;
  expect_bad(ctx, "csr/origin-not-a-loop", s, "edge_origin[0] = -1 marks an added self-loop, but edge 0 goes 2 -> 0");
  /* several rules broken: the first in the list is reported, at its first index */
  s = small(), s.src[0] = 9, s.src[5] = 7, s.out_eid[5] = -1, s.in_ptr[3] = 3;
  expect_bad(ctx, "csr/first-rule-first", s, "in_ptr decreases at vertex 2 (in_ptr[2] = 4, in_ptr[3] = 3)");
  s = small(), s.src[5] = 7, s.src[1] = 8, s.out_eid[0] = 99;
  expect_bad(ctx, "csr/first-index-first", s, "src[1] = 8 out of range");

  /* gnn_graph_host_copies: arguments, and a no-op on a graph that has its copies */
  check_status(ctx, gnn_graph_host_copies(ctx, NULL), GNN_ERR_INVALID, "csr/host-copies-null", "g is NULL", NULL);
  const int64_t es[] = {0, 1}, ed[] = {1, 0};
  if (!gnn_graph_from_edges(ctx, 2, 2, es, ed, NULL, &g)) {
    const int32_t *h = g->h_src;
    const int64_t *o = g->edge_origin;
    check(!gnn_graph_host_copies(ctx, g) && g->h_src == h && g->edge_origin == o, "csr/host-copies-noop",
          "the copies of a graph from edges changed");
    gnn_graph_free(ctx, g);
  }
}

/* ---------------------------------------------------------------- hub pieces */

/* gnn_graph_make_pieces (gnnc --split-hubs) against the pieces worked out here from the host
 * CSR and CSC: the piece length of gnnrt_pieces.h, every row longer than it cut at multiples of it
 * from the row's start, in row order, on both sides; made once (a second call keeps the same
 * arrays); for a graph from gnn_graph_from_csr too, which has no host offsets (its device in_ptr
 * and out_ptr are read back). */
static const char *check_side(gnn_ctx *ctx, const char *side, int64_t nv, int64_t len, const int64_t *ptr, int64_t npieces,
                              const int32_t *prow, const int64_t *plo) {
  static char why[RT_MSG];
  int64_t n = 0;
  for (int64_t v = 0; v < nv; v++)
    if (ptr[v + 1] - ptr[v] > len) n += (ptr[v + 1] - ptr[v] + len - 1) / len;
  if (npieces != n || n > GNN_PIECES_MAX || n > nv || !prow || !plo) {
    snprintf(why, sizeof why, "%s: %lld pieces, want %lld", side, (long long)npieces, (long long)n);
    return why;
  }
  int32_t *row = from_dev(ctx, prow, sizeof(int32_t) * (size_t)n);
  int64_t *lo = from_dev(ctx, plo, sizeof(int64_t) * (size_t)n);
  int64_t p = 0;
  *why = 0;
  for (int64_t v = 0; v < nv && !*why; v++)
    if (ptr[v + 1] - ptr[v] > len)
      for (int64_t e = ptr[v]; e < ptr[v + 1] && !*why; e += len, p++)
        if (row[p] != v || lo[p] != e)
          snprintf(why, sizeof why, "%s piece %lld: row %d from edge %lld, want row %lld from %lld", side, (long long)p, row[p],
                   (long long)lo[p], (long long)v, (long long)e);
  free(row);
  free(lo);
  return why;
}

static const char *check_pieces(gnn_ctx *ctx, gnn_graph *g, const int64_t *in_ptr, const int64_t *out_ptr) {
  static char why[RT_MSG];
  if (gnn_graph_make_pieces(ctx, g)) return gnn_last_error(ctx);
  const int32_t *row0 = g->piece_row, *orow0 = g->out_piece_row;
  if (gnn_graph_make_pieces(ctx, g) || g->piece_row != row0 || g->out_piece_row != orow0) return "a second call made the pieces again";
  int64_t len = gnn_piece_len(g->nv, g->ne);
  if (g->piece_len != len) {
    snprintf(why, sizeof why, "piece_len %lld, want %lld", (long long)g->piece_len, (long long)len);
    return why;
  }
  const char *d = check_side(ctx, "in", g->nv, len, in_ptr, g->npieces, g->piece_row, g->piece_lo);
  return *d ? d : check_side(ctx, "out", g->nv, len, out_ptr, g->out_npieces, g->out_piece_row, g->out_piece_lo);
}

static void test_pieces(gnn_ctx *ctx) {
  /* nv vertices, ne random edges, and `hubs` hubs of hub_deg in-edges (out-edges, the odd ones)
   * more (31, 32, 33: around the piece length of 32) */
  const struct {
    int64_t nv, ne, hubs, hub_deg;
  } shapes[] = {{5, 4, 0, 0}, {300, 0, 1, 31}, {300, 0, 1, 32}, {300, 0, 1, 33}, {3000, 6000, 3, 2999}, {40000, 20000, 2, 39990}, {10, 0, 1, 10000}};
  int failed = 0, hubs_seen = 0, out_hubs_seen = 0;
  char why[RT_MSG] = "";
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int64_t nv = shapes[s].nv, ne = shapes[s].ne + shapes[s].hubs * shapes[s].hub_deg;
    int64_t *src = malloc(8 * (size_t)(ne + 1)), *dst = malloc(8 * (size_t)(ne + 1));
    random_edges(300 + s, nv, shapes[s].ne, src, dst);
    for (int64_t h = 0, i = shapes[s].ne; h < shapes[s].hubs; h++)
      for (int64_t j = 0; j < shapes[s].hub_deg; j++, i++) { /* odd hubs: out-edges */
        src[i] = (j + 1 + h) % nv, dst[i] = h * 7 % nv;
        if (h % 2) src[i] = h * 7 % nv, dst[i] = (j + 1 + h) % nv;
      }
    gnn_graph *ref = NULL, *g = NULL;
    if (gnn_graph_from_edges(ctx, nv, ne, src, dst, NULL, &ref)) {
      failed++;
      snprintf(why, sizeof why, "shape %zu: from_edges: %s", s, gnn_last_error(ctx));
    } else {
      DevCsr d = upload_csr(ctx, nv, ref->ne, ref->h_in_ptr, ref->h_src, ref->h_out_ptr, ref->h_out_eid, NULL);
      const char *diff = check_pieces(ctx, ref, ref->h_in_ptr, ref->h_out_ptr);
      if (!*diff && gnn_graph_from_csr(ctx, nv, ref->ne, d.in_ptr, d.src, d.out_ptr, d.out_eid, NULL, NULL, &g)) diff = gnn_last_error(ctx);
      if (!*diff && g->h_in_ptr) diff = "a graph from gnn_graph_from_csr has host copies";
      if (!*diff) diff = check_pieces(ctx, g, ref->h_in_ptr, ref->h_out_ptr);
      if (*diff) {
        failed++;
        snprintf(why, sizeof why, "shape %zu (nv %lld, %lld edges): %s", s, (long long)nv, (long long)ref->ne, diff);
      }
      hubs_seen += ref->npieces > 0;
      out_hubs_seen += ref->out_npieces > 0;
      free_csr(ctx, &d);
    }
    gnn_graph_free(ctx, g);
    gnn_graph_free(ctx, ref);
    free(src), free(dst);
  }
  /* the shapes with a hub of more than 32 in-edges have pieces: 33, 2999 (three hubs: the second
   * of out-edges), 39990 (two: the second of out-edges), and the multigraph of 10 vertices, whose
   * hub of 10,000 in-edges is cut at 2E / V = 2,016 (5 pieces, no more than its vertices) */
  check(!failed && hubs_seen == 4 && out_hubs_seen == 2, "csr/hub-pieces", "%d shapes wrong, %d with in-edge pieces (want 4), %d with out-edge pieces (want 2); last: %s",
        failed, hubs_seen, out_hubs_seen, why);
  check(gnn_piece_len(2708, 13264) == 32 && gnn_piece_len(232965, 114848857) == 14048 && gnn_piece_len(1, 0) == 32 &&
            gnn_piece_len(10, 10000) == 2016,
        "csr/piece-len", "Cora %lld, Reddit-sized %lld, empty %lld, dense %lld", (long long)gnn_piece_len(2708, 13264),
        (long long)gnn_piece_len(232965, 114848857), (long long)gnn_piece_len(1, 0), (long long)gnn_piece_len(10, 10000));
}

int main(void) {
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  if (st) {
    printf("no context: %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 77;
  }
  char tmpl[] = "/tmp/t_csr.XXXXXX";
  const char *tmpdir = mkdtemp(tmpl);
  test_errors(ctx);
  test_round_trips(ctx, tmpdir);
  test_pieces(ctx);
  if (tmpdir) rmdir(tmpdir);
  size_t live = live_bytes(ctx);
  /* the CUDA build keeps its scratch buffer until the context goes */
  check(gnn_ctx_is_cuda(ctx) || live == 0, "csr/nothing-leaked", "%zu bytes still allocated", live);
  gnn_ctx_destroy(ctx);
  return rt_finish();
}
