/* graph.c -- the in-memory graph and its builder: edge sequences in, CSR by destination and CSC
 * by source out. The bottom of the runtime's graph code: the loaders (edgelist.c, cache.c,
 * dataset.c, ogb.c) call it and it calls none of them; load.c chooses among the loaders.
 *
 * Every loader produces the same thing first: a sequence of edges (src, dst, origin) in the
 * order of the source, origin being the edge's index there (its data line in an edge list,
 * its entry in a Matrix Market file, its position in gnn_graph_from_edges' arrays). The
 * options then rewrite the sequence, in this order:
 *   1. remove_self_loops  drops every v -> v;
 *   2. symmetrise         appends, after all the edges, the reverse v -> u of each u -> v
 *                         (u != v), in the order of the edges reversed, with their origin;
 *   3. dedup              keeps the first of equal (src, dst) pairs in the sequence, so an edge
 *                         of the file wins over a reverse added by symmetrise;
 *   4. add_self_loops     appends v -> v, origin -1, for each vertex v (ascending) that has no
 *                         self-loop left.
 * A stable counting sort by destination turns the sequence into CSR: edge ids are positions
 * in that order, so the in-edges of v are in_ptr[v] .. in_ptr[v+1]-1 in sequence order. CSC
 * lists, for each source, its edge ids ascending. Ids are int32 (< 2^31) and so are edge ids
 * in out_eid, so more than 2^31-1 edges are refused; offsets are int64. A graph whose CSR is
 * final already (the binary cache) comes in through rt_graph_from_csr.
 *
 * gnn_graph_from_csr is the other way in: a CSR and CSC made elsewhere (PyTorch, on a GPU) and
 * already in the context's memory. It copies them into the graph's arrays and checks them where
 * they live (csr_host.c, csr_cuda.cu: rt_csr_fill); this file only allocates, words the error
 * of the first broken rule and makes the host copies on demand (gnn_graph_host_copies), which
 * such a graph lacks until something (the cache writer, Python's Graph.src) asks for them.
 *
 * The arrays are built on the host. In the host build they are allocated with gnn_malloc and
 * are the graph (h_x == x); in the CUDA build they stay as the host copies and are uploaded.
 * gnn_dataset_free is here too: a dataset is a graph and arrays beside it, whichever loader
 * filled it.
 */
#include "internal.h"
#include "gnnrt_pieces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the edge sequence */

/* Appends one edge, growing the arrays by doubling. */
gnn_status rt_edges_push(gnn_ctx *ctx, RtEdges *es, int64_t s, int64_t d, int64_t origin) {
  if (es->n == es->cap) {
    int64_t cap = es->cap ? es->cap * 2 : 1024;
    int64_t *a = (int64_t *)realloc(es->src, rt_mul((size_t)cap, sizeof(int64_t)));
    if (a) es->src = a;
    int64_t *b = a ? (int64_t *)realloc(es->dst, rt_mul((size_t)cap, sizeof(int64_t))) : NULL;
    if (b) es->dst = b;
    int64_t *c = b ? (int64_t *)realloc(es->origin, rt_mul((size_t)cap, sizeof(int64_t))) : NULL;
    if (c) es->origin = c;
    if (!c) return gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory reading %lld edges", (long long)cap);
    es->cap = cap;
  }
  es->src[es->n] = s;
  es->dst[es->n] = d;
  es->origin[es->n] = origin;
  es->n++;
  return GNN_OK;
}


gnn_status rt_edges_push_vals(gnn_ctx *ctx, RtEdges *es, const float *v) {
  if (es->nvals == es->capvals) {
    int64_t cap = es->capvals ? es->capvals * 2 : 1024;
    float *a = (float *)realloc(es->vals, rt_mul(rt_mul((size_t)cap, (size_t)es->ncols), sizeof(float)));
    if (!a) return gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory reading the values of %lld edges", (long long)cap);
    es->vals = a;
    es->capvals = cap;
  }
  memcpy(es->vals + es->nvals * es->ncols, v, sizeof(float) * (size_t)es->ncols);
  es->nvals++;
  return GNN_OK;
}

void rt_edges_free(RtEdges *es) {
  free(es->src);
  free(es->dst);
  free(es->origin);
  free(es->vals);
  memset(es, 0, sizeof *es);
}

/* Keeps the edges whose keep[i] is set, in order. */
static void edges_filter(RtEdges *es, const uint8_t *keep) {
  int64_t n = 0;
  for (int64_t i = 0; i < es->n; i++) {
    if (!keep[i]) continue;
    es->src[n] = es->src[i];
    es->dst[n] = es->dst[i];
    es->origin[n] = es->origin[i];
    n++;
  }
  es->n = n;
}

/* A stable counting sort of the sequence by destination: ptr (nv + 1) and perm (n). */
static void sort_by_dst(const RtEdges *es, int64_t nv, int64_t *ptr, int64_t *perm) {
  memset(ptr, 0, sizeof(int64_t) * (size_t)(nv + 1));
  for (int64_t i = 0; i < es->n; i++) ptr[es->dst[i] + 1]++;
  for (int64_t v = 0; v < nv; v++) ptr[v + 1] += ptr[v];
  for (int64_t i = 0; i < es->n; i++) perm[ptr[es->dst[i]]++] = i;
  for (int64_t v = nv; v > 0; v--) ptr[v] = ptr[v - 1]; /* the fill moved each start to the next */
  ptr[0] = 0;
}

/* Marks the first of each (src, dst) pair: with the edges grouped by destination in sequence
 * order, a source seen before in the same group is a duplicate. */
static gnn_status dedup_edges(gnn_ctx *ctx, RtEdges *es, int64_t nv) {
  int64_t *ptr = (int64_t *)rt_malloc(ctx, rt_mul((size_t)nv + 1, sizeof(int64_t)), "dedup");
  int64_t *perm = (int64_t *)rt_malloc(ctx, rt_mul((size_t)es->n, sizeof(int64_t)), "dedup");
  int64_t *seen = (int64_t *)rt_malloc(ctx, rt_mul((size_t)nv, sizeof(int64_t)), "dedup");
  uint8_t *keep = (uint8_t *)rt_malloc(ctx, (size_t)es->n, "dedup");
  gnn_status st = ptr && perm && seen && keep ? GNN_OK : GNN_ERR_OOM;
  if (!st) {
    sort_by_dst(es, nv, ptr, perm);
    for (int64_t u = 0; u < nv; u++) seen[u] = -1;
    for (int64_t v = 0; v < nv; v++)
      for (int64_t k = ptr[v]; k < ptr[v + 1]; k++) {
        int64_t e = perm[k];
        keep[e] = seen[es->src[e]] != v;
        seen[es->src[e]] = v;
      }
    edges_filter(es, keep);
  }
  free(ptr);
  free(perm);
  free(seen);
  free(keep);
  return st;
}

/* ---------------------------------------------------------------- the graph's arrays */

/* See internal.h: gnn_malloc in the host build, malloc in the CUDA build. */
void *rt_garray_alloc(gnn_ctx *ctx, size_t bytes, const char *what) {
#ifdef GNNRT_CUDA
  return rt_malloc(ctx, bytes, what);
#else
  void *p = NULL;
  if (gnn_malloc(ctx, &p, bytes ? bytes : 1)) { /* its message (out of memory, or the context's limit), and what for */
    char why[RT_ERRMAX];
    snprintf(why, sizeof why, "%s", gnn_last_error(ctx));
    gnn_set_error(ctx, GNN_ERR_OOM, "the graph's %s: %s", what, why);
    return NULL;
  }
  return p;
#endif
}

void rt_garray_free(gnn_ctx *ctx, const void *p) {
  if (!p) return;
#ifdef GNNRT_CUDA
  (void)ctx;
  free((void *)p);
#else
  gnn_free(ctx, (void *)p);
#endif
}

#ifdef GNNRT_CUDA
/* A device copy of a host array. */
static gnn_status upload_copy(gnn_ctx *ctx, const void *h, size_t bytes, const void **d) {
  void *p = NULL;
  gnn_status st = gnn_malloc(ctx, &p, bytes);
  if (!st) st = gnn_upload(ctx, p, h, bytes);
  if (st) {
    gnn_free(ctx, p);
    return st;
  }
  *d = p;
  return GNN_OK;
}

/* Device memory set to zero. */
static gnn_status device_zeros(gnn_ctx *ctx, size_t bytes, const void **d) {
  void *p = NULL;
  gnn_status st = gnn_malloc(ctx, &p, bytes);
  if (!st) st = gnn_memset0(ctx, p, bytes);
  if (st) {
    gnn_free(ctx, p);
    return st;
  }
  *d = p;
  return GNN_OK;
}
#endif

/* Frees the device arrays, the host copies and the origins. Each device array goes with
 * gnn_free; its host copy is another allocation in the CUDA build (malloc), and in the host
 * build the same one (or NULL: a graph from gnn_graph_from_csr before gnn_graph_host_copies, a
 * graph that failed half-built, whose host pointer may be set before its device one). */
gnn_status rt_check_graph(gnn_ctx *ctx, const gnn_graph *g, const char *fn) {
  gnn_status st = rt_args(ctx, g != NULL, fn, "g is NULL");
  if (st) return st;
  if (((const RtGraph *)g)->live != RT_GRAPH_LIVE)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: g is not a live graph (freed already, or not made by the runtime)", fn);
  return GNN_OK;
}

gnn_status gnn_graph_check(gnn_ctx *ctx, const gnn_graph *g, const char *what) {
  return rt_check_graph(ctx, g, what ? what : "gnn_graph_check");
}

void gnn_graph_free(gnn_ctx *ctx, gnn_graph *g) {
  if (!g) return;
  /* freed already (or never a graph): say so where a context can hold the message, free nothing */
  if (((RtGraph *)g)->live != RT_GRAPH_LIVE) {
    if (!rt_check_ctx(ctx))
      gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_free: g is not a live graph (freed already, or not made by the runtime)");
    return;
  }
  ((RtGraph *)g)->live = 0;
  /* its arrays are in the memory of the context that made it: free them there, whichever context
   * (or NULL) the caller gave (another one freed the struct alone and left the arrays live) */
  ctx = ((RtGraph *)g)->owner;
  const void *dev[] = {g->in_ptr, g->src, g->dst, g->out_ptr, g->out_eid, g->graph_ptr, g->vertex_graph};
  const void *host[] = {g->h_in_ptr, g->h_src, g->h_dst, g->h_out_ptr, g->h_out_eid, g->h_graph_ptr, g->h_vertex_graph};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
    if (dev[i]) gnn_free(ctx, (void *)dev[i]);
#ifdef GNNRT_CUDA
    free((void *)host[i]);
#else
    if (host[i] != dev[i]) rt_garray_free(ctx, host[i]);
#endif
  }
  const void *devonly[] = {g->in_deg, g->out_deg, g->graph_size, ((RtGraph *)g)->d_origin, g->out_dst, g->piece_row, g->piece_lo,
                           g->out_piece_row, g->out_piece_lo};
  for (size_t i = 0; i < sizeof devonly / sizeof devonly[0]; i++)
    if (devonly[i]) gnn_free(ctx, (void *)devonly[i]);
  free((void *)g->edge_origin);
  free((void *)g->h_edge_values);
  free((RtGraph *)g);
}

unsigned rt_opts_flags(const gnn_graph_opts *o) {
  if (!o) return 0;
  return (o->add_self_loops ? RT_OPT_ADD_SELF_LOOPS : 0) | (o->remove_self_loops ? RT_OPT_REMOVE_SELF_LOOPS : 0) |
         (o->dedup ? RT_OPT_DEDUP : 0) | (o->symmetrise ? RT_OPT_SYMMETRISE : 0);
}

/* The batch arrays for graph_of (NULL: one graph of every vertex), checked, replacing g's. */
static gnn_status set_batch(gnn_ctx *ctx, gnn_graph *g, int64_t ng, const int64_t *graph_of) {
  int64_t nv = g->nv;
  if (graph_of) {
    if (ng < 1 || ng > nv) return gnn_set_error(ctx, GNN_ERR_INVALID, "%lld graphs for %lld vertices", (long long)ng, (long long)nv);
    if (nv > 0 && graph_of[0] != 0) /* as the graph_indicator.txt loader says it (tables.c) */
      return gnn_set_error(ctx, GNN_ERR_INVALID, "vertex 0: the first graph id is %lld: the ids start at 0", (long long)graph_of[0]);
    for (int64_t v = 1; v < nv; v++) {
      int64_t prev = graph_of[v - 1];
      if (graph_of[v] != prev && graph_of[v] != prev + 1)
        return gnn_set_error(ctx, GNN_ERR_INVALID,
                             "vertex %lld: graph id %lld after %lld (ids start at 0 and go up by at most 1: each graph's vertices are consecutive)",
                             (long long)v, (long long)graph_of[v], (long long)prev);
    }
    if (graph_of[nv - 1] != ng - 1)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "the last vertex is in graph %lld, but ng is %lld", (long long)graph_of[nv - 1],
                           (long long)ng);
    /* each edge inside one graph: an edge between two graphs of a batch carries messages from
     * one into the other (the folder loaders say it at graph.edges' line; a graph whose host
     * copies are not made, gnn_graph_from_csr's, goes unchecked) */
    for (int64_t e = 0; g->h_src && g->h_dst && e < g->ne; e++) {
      int64_t s = g->h_src[e], d = g->h_dst[e];
      if (graph_of[s] != graph_of[d])
        return gnn_set_error(ctx, GNN_ERR_INVALID, "the edge %lld -> %lld joins two graphs: vertex %lld is in graph %lld, vertex "
                             "%lld in graph %lld; the graphs of a batch share no edges", (long long)s, (long long)d, (long long)s,
                             (long long)graph_of[s], (long long)d, (long long)graph_of[d]);
    }
  } else {
    ng = 1;
  }
  int64_t *ptr = (int64_t *)rt_garray_alloc(ctx, rt_mul((size_t)ng + 1, sizeof(int64_t)), "graph_ptr");
  int32_t *of = (int32_t *)rt_garray_alloc(ctx, rt_mul((size_t)nv ? (size_t)nv : 1, sizeof(int32_t)), "vertex_graph");
#ifdef GNNRT_CUDA
  float *size = (float *)rt_malloc(ctx, rt_mul((size_t)ng, sizeof(float)), "graph_size");
#else
  float *size = (float *)rt_garray_alloc(ctx, rt_mul((size_t)ng, sizeof(float)), "graph_size");
#endif
  gnn_status st = ptr && of && size ? GNN_OK : GNN_ERR_OOM;
  const void *dptr = NULL, *dof = NULL, *dsize = NULL;
  if (!st) {
    memset(ptr, 0, sizeof(int64_t) * (size_t)(ng + 1));
    for (int64_t v = 0; v < nv; v++) {
      of[v] = (int32_t)(graph_of ? graph_of[v] : 0);
      ptr[of[v] + 1]++;
    }
    for (int64_t i = 0; i < ng; i++) {
      size[i] = (float)ptr[i + 1];
      ptr[i + 1] += ptr[i];
    }
#ifdef GNNRT_CUDA
    st = upload_copy(ctx, ptr, sizeof(int64_t) * (size_t)(ng + 1), &dptr);
    /* one graph: vertex_graph is zeros, set on the device (nothing of nv's size crosses the bus) */
    if (!st)
      st = graph_of ? upload_copy(ctx, of, sizeof(int32_t) * (size_t)nv, &dof)
                    : device_zeros(ctx, sizeof(int32_t) * (size_t)nv, &dof);
    if (!st) st = upload_copy(ctx, size, sizeof(float) * (size_t)ng, &dsize);
#else
    dptr = ptr, dof = of, dsize = size;
#endif
  }
  if (st) {
#ifdef GNNRT_CUDA
    if (dptr) gnn_free(ctx, (void *)dptr);
    if (dof) gnn_free(ctx, (void *)dof);
    free(size);
#else
    rt_garray_free(ctx, size);
#endif
    rt_garray_free(ctx, ptr);
    rt_garray_free(ctx, of);
    return st;
  }
#ifdef GNNRT_CUDA
  if (g->graph_ptr) gnn_free(ctx, (void *)g->graph_ptr);
  if (g->vertex_graph) gnn_free(ctx, (void *)g->vertex_graph);
  if (g->graph_size) gnn_free(ctx, (void *)g->graph_size);
  free(size);
#else
  rt_garray_free(ctx, g->graph_size);
#endif
  rt_garray_free(ctx, g->h_graph_ptr);
  rt_garray_free(ctx, g->h_vertex_graph);
  g->ng = ng;
  g->h_graph_ptr = ptr;
  g->h_vertex_graph = of;
  g->graph_ptr = (const int64_t *)dptr;
  g->vertex_graph = (const int32_t *)dof;
  g->graph_size = (const float *)dsize;
  return GNN_OK;
}

gnn_status gnn_graph_set_graphs(gnn_ctx *ctx, gnn_graph *g, int64_t ng, const int64_t *graph_of) {
  if (!ctx) return GNN_ERR_INVALID;
  if (!g || !graph_of) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_set_graphs: %s is NULL", !g ? "g" : "graph_of");
  gnn_status st = rt_check_graph(ctx, g, "gnn_graph_set_graphs");
  /* graph_of holds nv int64: one in the context's memory (a gnn_malloc'd buffer in the host
   * build) that is shorter was read past its end; the caller's own memory passes unchecked */
  if (!st) st = rt_check_array(ctx, "gnn_graph_set_graphs", "graph_of", graph_of, g->nv, 1, 1, sizeof(int64_t));
  if (st) return st;
  return set_batch(ctx, g, ng, graph_of);
}

/* Completes a graph from its CSR (host arrays, ownership passes to g, which is freed on
 * failure): CSC, degrees, one graph of every vertex, and in the CUDA build the device copies. */
static gnn_status graph_finish(gnn_ctx *ctx, gnn_graph *g) {
  int64_t nv = g->nv, ne = g->ne;
  int64_t *out_ptr = (int64_t *)rt_garray_alloc(ctx, rt_mul((size_t)nv + 1, sizeof(int64_t)), "out_ptr");
  g->h_out_ptr = out_ptr;
  int32_t *out_eid = (int32_t *)rt_garray_alloc(ctx, rt_mul((size_t)ne, sizeof(int32_t)), "out_eid");
  g->h_out_eid = out_eid;
  int64_t *fill = (int64_t *)rt_malloc(ctx, rt_mul((size_t)nv, sizeof(int64_t)), "CSC");
#ifdef GNNRT_CUDA
  int32_t *out_dst = (int32_t *)rt_malloc(ctx, rt_mul((size_t)ne ? (size_t)ne : 1, sizeof(int32_t)), "out_dst");
  float *in_deg = (float *)rt_malloc(ctx, rt_mul((size_t)nv, sizeof(float)), "in_deg");
  float *out_deg = (float *)rt_malloc(ctx, rt_mul((size_t)nv, sizeof(float)), "out_deg");
#else
  int32_t *out_dst = (int32_t *)rt_garray_alloc(ctx, rt_mul((size_t)ne, sizeof(int32_t)), "out_dst");
  g->out_dst = out_dst;
  float *in_deg = (float *)rt_garray_alloc(ctx, rt_mul((size_t)nv, sizeof(float)), "in_deg");
  g->in_deg = in_deg;
  float *out_deg = (float *)rt_garray_alloc(ctx, rt_mul((size_t)nv, sizeof(float)), "out_deg");
  g->out_deg = out_deg;
#endif
  gnn_status st = out_ptr && out_eid && out_dst && fill && in_deg && out_deg ? GNN_OK : GNN_ERR_OOM;
  if (!st) {
    const int64_t *in_ptr = g->h_in_ptr;
    const int32_t *src = g->h_src;
    memset(out_ptr, 0, sizeof(int64_t) * (size_t)(nv + 1));
    for (int64_t e = 0; e < ne; e++) out_ptr[src[e] + 1]++;
    for (int64_t u = 0; u < nv; u++) out_ptr[u + 1] += out_ptr[u];
    memcpy(fill, out_ptr, sizeof(int64_t) * (size_t)nv);
    for (int64_t e = 0; e < ne; e++) out_eid[fill[src[e]]++] = (int32_t)e;
    for (int64_t k = 0; k < ne; k++) out_dst[k] = g->h_dst[out_eid[k]];
    g->max_in_deg = g->max_out_deg = 0;
    for (int64_t v = 0; v < nv; v++) {
      int64_t din = in_ptr[v + 1] - in_ptr[v], dout = out_ptr[v + 1] - out_ptr[v];
      in_deg[v] = (float)din;
      out_deg[v] = (float)dout;
      if (din > g->max_in_deg) g->max_in_deg = din;
      if (dout > g->max_out_deg) g->max_out_deg = dout;
    }
  }
  free(fill);
#ifdef GNNRT_CUDA
  if (!st) st = upload_copy(ctx, g->h_in_ptr, sizeof(int64_t) * (size_t)(nv + 1), (const void **)&g->in_ptr);
  if (!st) st = upload_copy(ctx, g->h_src, sizeof(int32_t) * (size_t)ne, (const void **)&g->src);
  if (!st) st = upload_copy(ctx, g->h_dst, sizeof(int32_t) * (size_t)ne, (const void **)&g->dst);
  if (!st) st = upload_copy(ctx, g->h_out_ptr, sizeof(int64_t) * (size_t)(nv + 1), (const void **)&g->out_ptr);
  if (!st) st = upload_copy(ctx, g->h_out_eid, sizeof(int32_t) * (size_t)ne, (const void **)&g->out_eid);
  if (!st) st = upload_copy(ctx, out_dst, sizeof(int32_t) * (size_t)ne, (const void **)&g->out_dst);
  free(out_dst);
  if (!st) st = upload_copy(ctx, in_deg, sizeof(float) * (size_t)nv, (const void **)&g->in_deg);
  if (!st) st = upload_copy(ctx, out_deg, sizeof(float) * (size_t)nv, (const void **)&g->out_deg);
  free(in_deg);
  free(out_deg);
#else
  g->in_ptr = g->h_in_ptr;
  g->src = g->h_src;
  g->dst = g->h_dst;
  g->out_ptr = g->h_out_ptr;
  g->out_eid = g->h_out_eid;
#endif
  if (!st) st = set_batch(ctx, g, 1, NULL);
  return st;
}

/* Derives dst from in_ptr, then completes the graph (graph_finish). */
gnn_status rt_graph_from_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, int64_t *in_ptr, int32_t *src, int64_t *origin,
                             unsigned flags, gnn_graph **out) {
  RtGraph *rg = (RtGraph *)rt_calloc(ctx, 1, sizeof *rg, "a graph");
  if (rg) rg->owner = ctx, rg->live = RT_GRAPH_LIVE;
  gnn_graph *g = rg ? &rg->g : NULL;
  int32_t *dst = (int32_t *)rt_garray_alloc(ctx, rt_mul((size_t)ne, sizeof(int32_t)), "dst");
  if (!g || !dst) {
    free(rg);
    rt_garray_free(ctx, dst);
    rt_garray_free(ctx, in_ptr);
    rt_garray_free(ctx, src);
    free(origin);
    return GNN_ERR_OOM;
  }
  for (int64_t v = 0; v < nv; v++)
    for (int64_t e = in_ptr[v]; e < in_ptr[v + 1]; e++) dst[e] = (int32_t)v;
  g->nv = nv;
  g->ne = ne;
  g->h_in_ptr = in_ptr;
  g->h_src = src;
  g->h_dst = dst;
  g->edge_origin = origin;
  /* the largest origin + 1: what the edges say of their source; the builder and the cache, which
   * know better, set it after */
  g->num_input_edges = 0;
  for (int64_t e = 0; e < ne; e++)
    if (origin[e] >= g->num_input_edges) g->num_input_edges = origin[e] + 1;
  rg->flags = flags;
  gnn_status st = graph_finish(ctx, g);
  if (st) {
    gnn_graph_free(ctx, g);
    return st;
  }
  *out = g;
  return GNN_OK;
}

/* The bytes per vertex a graph holds at once while it is built (graph_finish: in_ptr, out_ptr,
 * the CSC's fill, in_deg, out_deg; set_batch: vertex_graph). */
enum { RT_VERTEX_BYTES = 8 + 8 + 8 + 4 + 4 + 4 };

/* GNN_ERR_OOM, before anything is allocated, when the per-vertex arrays alone would take more
 * host memory than the process can still get. The vertex count comes from the largest id (or
 * num_vertices), so a 13-byte file "0 2147483647" asks for 2^31 vertices, 77 GB: malloc grants it
 * on an overcommitting system, and the kernel's OOM killer takes it back by killing the process
 * as the arrays are filled. Graphs under 256 MB of such arrays are not checked (no /proc read). */
static gnn_status check_vertex_room(gnn_ctx *ctx, int64_t nv, const char *where) {
  size_t need = rt_mul((size_t)nv + 1, RT_VERTEX_BYTES);
  if (need < ((size_t)256 << 20)) return GNN_OK;
  size_t avail = rt_host_available();
  if (need <= avail) return GNN_OK;
  return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: a graph of %lld vertices (the largest id + 1, or num_vertices) needs "
                       "%zu bytes (%.1f GiB) for its per-vertex arrays, more than the %zu bytes (%.1f GiB) of host memory "
                       "this process can still take", where, (long long)nv, need, need / 1073741824.0, avail,
                       avail / 1073741824.0);
}

/* The options (steps 1-4 of the file comment), then the CSR by a stable counting sort. */
gnn_status rt_graph_build(gnn_ctx *ctx, RtEdges *es, int64_t nv, const gnn_graph_opts *opts, const char *where,
                          gnn_graph **out) {
  static const gnn_graph_opts none;
  if (!opts) opts = &none;
  /* the source's edges, before the options drop any: its last ones may go, so the largest origin
   * after them can be less */
  int64_t num_input = 0;
  for (int64_t i = 0; i < es->n; i++)
    if (es->origin[i] >= num_input) num_input = es->origin[i] + 1;
  gnn_status st = check_vertex_room(ctx, nv, where);
  uint8_t *flag = NULL;
  if (st) goto done;
  /* 1. remove_self_loops */
  if (opts->remove_self_loops) {
    if (!(flag = (uint8_t *)rt_malloc(ctx, (size_t)es->n, "remove_self_loops"))) {
      st = GNN_ERR_OOM;
      goto done;
    }
    for (int64_t i = 0; i < es->n; i++) flag[i] = es->src[i] != es->dst[i];
    edges_filter(es, flag);
    free(flag);
    flag = NULL;
  }
  /* 2. symmetrise */
  if (opts->symmetrise) {
    int64_t n0 = es->n;
    for (int64_t i = 0; i < n0 && !st; i++)
      if (es->src[i] != es->dst[i]) st = rt_edges_push(ctx, es, es->dst[i], es->src[i], es->origin[i]);
    if (st) goto done;
  }
  /* 3. dedup */
  if (opts->dedup && (st = dedup_edges(ctx, es, nv))) goto done;
  /* 4. add_self_loops */
  if (opts->add_self_loops) {
    if (!(flag = (uint8_t *)rt_calloc(ctx, (size_t)nv, 1, "add_self_loops"))) {
      st = GNN_ERR_OOM;
      goto done;
    }
    for (int64_t i = 0; i < es->n; i++)
      if (es->src[i] == es->dst[i]) flag[es->src[i]] = 1;
    for (int64_t v = 0; v < nv && !st; v++)
      if (!flag[v]) st = rt_edges_push(ctx, es, v, v, -1);
    if (st) goto done;
  }
  if (es->n > RT_MAX_ID) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: %lld edges; at most %lld fit the int32 edge ids", where,
                       (long long)es->n, (long long)RT_MAX_ID);
    goto done;
  }
  /* The CSR by destination: a stable counting sort of the sequence. */
  {
    int64_t ne = es->n;
    int64_t *in_ptr = (int64_t *)rt_garray_alloc(ctx, rt_mul((size_t)nv + 1, sizeof(int64_t)), "in_ptr");
    int64_t *perm = (int64_t *)rt_malloc(ctx, rt_mul((size_t)ne, sizeof(int64_t)), "CSR");
    int32_t *src = (int32_t *)rt_garray_alloc(ctx, rt_mul((size_t)ne, sizeof(int32_t)), "src");
    int64_t *origin = (int64_t *)rt_malloc(ctx, rt_mul((size_t)ne, sizeof(int64_t)), "edge_origin");
    if (!in_ptr || !perm || !src || !origin) {
      rt_garray_free(ctx, in_ptr);
      free(perm);
      rt_garray_free(ctx, src);
      free(origin);
      st = GNN_ERR_OOM;
      goto done;
    }
    sort_by_dst(es, nv, in_ptr, perm);
    for (int64_t k = 0; k < ne; k++) {
      src[k] = (int32_t)es->src[perm[k]];
      origin[k] = es->origin[perm[k]];
    }
    free(perm);
    /* The source's edge values in CSR order, by origin (1 for an added self-loop). */
    float *vals = NULL;
    int64_t ncols = es->vals ? es->ncols : 0;
    if (ncols && !(vals = (float *)rt_malloc(ctx, rt_mul(rt_mul((size_t)ne, (size_t)ncols), sizeof(float)), "edge values"))) {
      rt_garray_free(ctx, in_ptr);
      rt_garray_free(ctx, src);
      free(origin);
      st = GNN_ERR_OOM;
      goto done;
    }
    for (int64_t k = 0; k < ne && ncols; k++)
      for (int64_t c = 0; c < ncols; c++)
        vals[k * ncols + c] = origin[k] >= 0 ? es->vals[origin[k] * ncols + c] : 1.0f;
    rt_edges_free(es);
    st = rt_graph_from_csr(ctx, nv, ne, in_ptr, src, origin, rt_opts_flags(opts), out);
    if (!st) {
      (*out)->h_edge_values = vals;
      (*out)->edge_ncols = ncols;
      (*out)->num_input_edges = num_input;
    } else {
      free(vals);
    }
  }
done:
  free(flag);
  rt_edges_free(es);
  return st;
}

/* num_vertices in range: every entry point that takes options checks it first. */
gnn_status rt_check_graph_opts(gnn_ctx *ctx, const gnn_graph_opts *opts) {
  if (opts && (opts->num_vertices < 0 || opts->num_vertices > RT_MAX_ID + 1))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "num_vertices %lld out of range (0 .. 2^31)", (long long)opts->num_vertices);
  return GNN_OK;
}


/* Validates the arrays, then builds as the loaders do. */
gnn_status gnn_graph_from_edges(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *src, const int64_t *dst,
                                const gnn_graph_opts *opts, gnn_graph **out) {
  if (out) *out = NULL;
  gnn_status st = rt_args(ctx, out != NULL, "gnn_graph_from_edges", "out is NULL");
  if (st || (st = rt_check_graph_opts(ctx, opts))) return st;
  if (ne < 0 || (ne > 0 && (!src || !dst)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: %lld edges with %s arrays", (long long)ne,
                         ne < 0 ? "a negative count of" : "NULL");
  if (nv < 0 || nv > RT_MAX_ID + 1)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: %lld vertices out of range (0 .. 2^31)", (long long)nv);
  if (ne > INT32_MAX) /* before reading the arrays (as gnn_graph_from_csr): 2^31 edges read 32 GB, then were refused */
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: %lld edges out of range (0 .. 2^31-1: edge ids are int32)",
                         (long long)ne);
  /* As gnn_graph_from_csr: the options' count is 0 (nv decides) or nv's; nv = 0 takes it. */
  if (nv > 0 && opts && opts->num_vertices && opts->num_vertices != nv)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: opts->num_vertices is %lld, but nv is %lld (set one of "
                         "them, or both the same)", (long long)opts->num_vertices, (long long)nv);
  if (nv == 0 && opts) nv = opts->num_vertices;
  int64_t limit = nv > 0 ? nv : RT_MAX_ID + 1, maxid = -1;
  for (int64_t i = 0; i < ne; i++) {
    int64_t ids[2] = {src[i], dst[i]};
    for (int k = 0; k < 2; k++) {
      if (ids[k] < 0) /* not "out of range (ids must be below 2^31)": the bound that matters is 0 */
        return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: edge %lld: %s vertex id %lld is negative (ids "
                             "must be >= 0)", (long long)i, k ? "destination" : "source", (long long)ids[k]);
      if (ids[k] >= limit)
        return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: edge %lld: %s vertex id %lld out of range (%s %lld)",
                             (long long)i, k ? "destination" : "source", (long long)ids[k],
                             nv > 0 ? "the graph has" : "ids must be below", (long long)limit);
      if (ids[k] > maxid) maxid = ids[k];
    }
  }
  if (nv == 0) nv = maxid + 1;
  if (nv == 0) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_edges: empty graph (no edges and no vertex count)");
  RtEdges es = {0};
  for (int64_t i = 0; i < ne && !st; i++) st = rt_edges_push(ctx, &es, src[i], dst[i], i);
  if (!st) st = rt_graph_build(ctx, &es, nv, opts, "gnn_graph_from_edges", out);
  rt_edges_free(&es);
  return st;
}

/* ---------------------------------------------------------------- a graph from a CSR in device memory */

/* Element i of a graph array (int64 or int32), read from the context's memory. */
static int64_t read_at(gnn_ctx *ctx, const void *a, int64_t i, int wide) {
  int64_t v64 = 0;
  int32_t v32 = 0;
  if (wide) gnn_download(ctx, &v64, (const int64_t *)a + i, sizeof v64);
  else gnn_download(ctx, &v32, (const int32_t *)a + i, sizeof v32);
  return wide ? v64 : v32;
}

/* The vertex whose segment of ptr (checked: from 0, never decreasing) holds position k: a
 * binary search, reading one element at a time (an error message's detail). */
static int64_t segment_of(gnn_ctx *ctx, const int64_t *ptr, int64_t nv, int64_t k) {
  int64_t lo = 0, hi = nv - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (read_at(ctx, ptr, mid + 1, 1) > k) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* The message of the first broken rule (internal.h's RT_CSR_*), with the values at fault read
 * back from the graph's copies. */
static gnn_status csr_error(gnn_ctx *ctx, const RtCsr *c) {
  int r = 0;
  while (r < RT_CSR_NRULES && c->first_bad[r] < 0) r++;
  if (r == RT_CSR_NRULES) return GNN_OK;
  int64_t i = c->first_bad[r], nv = c->nv, ne = c->ne;
  const char *fn = "gnn_graph_from_csr";
  switch (r) {
  case RT_CSR_IN_PTR_ENDS:
  case RT_CSR_OUT_PTR_ENDS: {
    const char *name = r == RT_CSR_IN_PTR_ENDS ? "in_ptr" : "out_ptr";
    const int64_t *p = r == RT_CSR_IN_PTR_ENDS ? c->g_in_ptr : c->g_out_ptr;
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s[%lld] = %lld, want %lld (%s)", fn, name, (long long)i,
                         (long long)read_at(ctx, p, i, 1), i ? (long long)ne : 0LL, i ? "ne, the edge count" : "offsets start at 0");
  }
  case RT_CSR_IN_PTR_ORDER:
  case RT_CSR_OUT_PTR_ORDER: {
    const char *name = r == RT_CSR_IN_PTR_ORDER ? "in_ptr" : "out_ptr";
    const int64_t *p = r == RT_CSR_IN_PTR_ORDER ? c->g_in_ptr : c->g_out_ptr;
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s decreases at vertex %lld (%s[%lld] = %lld, %s[%lld] = %lld)", fn, name,
                         (long long)i, name, (long long)i, (long long)read_at(ctx, p, i, 1), name, (long long)(i + 1),
                         (long long)read_at(ctx, p, i + 1, 1));
  }
  case RT_CSR_SRC_RANGE:
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: src[%lld] = %lld out of range (the graph has %lld vertices)", fn,
                         (long long)i, (long long)read_at(ctx, c->g_src, i, 0), (long long)nv);
  case RT_CSR_EID_RANGE:
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: out_eid[%lld] = %lld out of range (the graph has %lld edges)", fn,
                         (long long)i, (long long)read_at(ctx, c->g_out_eid, i, 0), (long long)ne);
  case RT_CSR_EID_SOURCE: {
    int64_t e = read_at(ctx, c->g_out_eid, i, 0);
    return gnn_set_error(ctx, GNN_ERR_INVALID,
                         "%s: out_eid[%lld] = %lld lists edge %lld among the out-edges of vertex %lld, but its source is "
                         "src[%lld] = %lld", fn, (long long)i, (long long)e, (long long)e,
                         (long long)segment_of(ctx, c->g_out_ptr, nv, i), (long long)e, (long long)read_at(ctx, c->g_src, e, 0));
  }
  case RT_CSR_EID_ORDER:
    return gnn_set_error(ctx, GNN_ERR_INVALID,
                         "%s: out_eid is not ascending at %lld (out_eid[%lld] = %lld, out_eid[%lld] = %lld): each "
                         "source's edge ids go up", fn, (long long)i, (long long)(i - 1),
                         (long long)read_at(ctx, c->g_out_eid, i - 1, 0), (long long)i, (long long)read_at(ctx, c->g_out_eid, i, 0));
  default: {
    int64_t o = read_at(ctx, c->g_origin, i, 1);
    if (o < -1)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: edge_origin[%lld] = %lld (an origin is an index >= 0, or -1)", fn,
                           (long long)i, (long long)o);
    return gnn_set_error(ctx, GNN_ERR_INVALID,
                         "%s: edge_origin[%lld] = -1 marks an added self-loop, but edge %lld goes %lld -> %lld", fn,
                         (long long)i, (long long)i, (long long)read_at(ctx, c->g_src, i, 0),
                         (long long)segment_of(ctx, c->g_in_ptr, nv, i));
  }
  }
}

/* gnn_malloc'd memory for one of the graph's arrays (at least a byte: never NULL). */
static void *graph_array(gnn_ctx *ctx, size_t bytes, const char *what, gnn_status *st) {
  void *p = NULL;
  if (*st) return NULL;
  if ((*st = gnn_malloc(ctx, &p, bytes ? bytes : 1))) {
    char why[RT_ERRMAX];
    snprintf(why, sizeof why, "%s", gnn_last_error(ctx));
    gnn_set_error(ctx, *st, "gnn_graph_from_csr: the graph's %s: %s", what, why);
  }
  return p;
}

/* Argument checks, the graph's arrays, then rt_csr_fill where the arrays live. */
gnn_status gnn_graph_from_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *in_ptr, const int32_t *src,
                              const int64_t *out_ptr, const int32_t *out_eid, const int64_t *edge_origin,
                              const gnn_graph_opts *opts, gnn_graph **out) {
  if (out) *out = NULL;
  gnn_status st = rt_args(ctx, out != NULL, "gnn_graph_from_csr", "out is NULL");
  if (st || (st = rt_check_graph_opts(ctx, opts))) return st;
  if (nv < 1 || nv > RT_MAX_ID + 1)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: %lld vertices out of range (1 .. 2^31)", (long long)nv);
  if (ne < 0 || ne > RT_MAX_ID)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: %lld edges out of range (0 .. 2^31-1: edge ids are int32)",
                         (long long)ne);
  if (opts && opts->num_vertices && opts->num_vertices != nv)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: opts->num_vertices is %lld, but nv is %lld",
                         (long long)opts->num_vertices, (long long)nv);
  const char *null = !in_ptr ? "in_ptr" : !out_ptr ? "out_ptr" : ne && !src ? "src" : ne && !out_eid ? "out_eid" : NULL;
  if (null) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_from_csr: %s is NULL (%lld edges)", null, (long long)ne);
  RtGraph *rg = (RtGraph *)rt_calloc(ctx, 1, sizeof *rg, "a graph");
  if (!rg) return GNN_ERR_OOM;
  rg->owner = ctx;
  rg->live = RT_GRAPH_LIVE;
  gnn_graph *g = &rg->g;
  g->nv = nv;
  g->ne = ne;
  g->num_input_edges = edge_origin && ne ? -1 : ne; /* origins given: their source's size is not known here */
  rg->flags = rt_opts_flags(opts);
  RtCsr c = {.nv = nv, .ne = ne, .in_ptr = in_ptr, .out_ptr = out_ptr, .origin = ne ? edge_origin : NULL, .src = src,
             .out_eid = out_eid};
  /* each array in g as soon as it exists, so gnn_graph_free releases what a failure leaves */
  size_t nptr = sizeof(int64_t) * (size_t)(nv + 1), n32 = sizeof(int32_t) * (size_t)ne;
  g->in_ptr = c.g_in_ptr = (int64_t *)graph_array(ctx, nptr, "in_ptr", &st);
  g->out_ptr = c.g_out_ptr = (int64_t *)graph_array(ctx, nptr, "out_ptr", &st);
  g->src = c.g_src = (int32_t *)graph_array(ctx, n32, "src", &st);
  g->dst = c.g_dst = (int32_t *)graph_array(ctx, n32, "dst", &st);
  g->out_eid = c.g_out_eid = (int32_t *)graph_array(ctx, n32, "out_eid", &st);
  g->out_dst = c.g_out_dst = (int32_t *)graph_array(ctx, n32, "out_dst", &st);
  g->in_deg = c.in_deg = (float *)graph_array(ctx, sizeof(float) * (size_t)nv, "in_deg", &st);
  g->out_deg = c.out_deg = (float *)graph_array(ctx, sizeof(float) * (size_t)nv, "out_deg", &st);
  if (c.origin) rg->d_origin = c.g_origin = (int64_t *)graph_array(ctx, sizeof(int64_t) * (size_t)ne, "edge_origin", &st);
  if (!st) st = rt_csr_fill(ctx, &c);
  for (int r = 0; !st && r < RT_CSR_NRULES; r++)
    if (c.first_bad[r] >= 0) st = csr_error(ctx, &c);
  if (!st) {
    g->max_in_deg = c.max_in_deg;
    g->max_out_deg = c.max_out_deg;
    st = set_batch(ctx, g, 1, NULL);
  }
  if (st) {
    gnn_graph_free(ctx, g);
    return st;
  }
  *out = g;
  return GNN_OK;
}

/* A graph from gnn_graph_from_csr is the one whose host copies are missing: h_in_ptr is set by
 * every other builder before anything else. */
gnn_status gnn_graph_host_copies(gnn_ctx *ctx, gnn_graph *g) {
  gnn_status st = rt_check_graph(ctx, g, "gnn_graph_host_copies");
  if (st || g->h_in_ptr) return st;
  RtGraph *rg = (RtGraph *)g;
  int64_t nv = g->nv, ne = g->ne;
  int64_t *origin = (int64_t *)rt_malloc(ctx, rt_mul((size_t)ne, sizeof(int64_t)), "edge_origin");
  if (!origin) return GNN_ERR_OOM;
  if (rg->d_origin) st = gnn_download(ctx, origin, rg->d_origin, sizeof(int64_t) * (size_t)ne);
  else
    for (int64_t e = 0; e < ne; e++) origin[e] = e; /* none given: the caller's edges are the CSR */
#ifdef GNNRT_CUDA
  size_t nptr = sizeof(int64_t) * (size_t)(nv + 1), n32 = sizeof(int32_t) * (size_t)ne;
  void *h[5] = {rt_malloc(ctx, nptr, "h_in_ptr"), rt_malloc(ctx, n32, "h_src"), rt_malloc(ctx, n32, "h_dst"),
                rt_malloc(ctx, nptr, "h_out_ptr"), rt_malloc(ctx, n32, "h_out_eid")};
  const void *d[5] = {g->in_ptr, g->src, g->dst, g->out_ptr, g->out_eid};
  size_t bytes[5] = {nptr, n32, n32, nptr, n32};
  for (int i = 0; i < 5 && !st; i++) st = h[i] ? gnn_download(ctx, h[i], d[i], bytes[i]) : GNN_ERR_OOM;
  if (st) {
    for (int i = 0; i < 5; i++) free(h[i]);
    free(origin);
    return st;
  }
  g->h_in_ptr = (const int64_t *)h[0];
  g->h_src = (const int32_t *)h[1];
  g->h_dst = (const int32_t *)h[2];
  g->h_out_ptr = (const int64_t *)h[3];
  g->h_out_eid = (const int32_t *)h[4];
#else
  (void)nv;
  if (st) {
    free(origin);
    return st;
  }
  g->h_in_ptr = g->in_ptr;
  g->h_src = g->src;
  g->h_dst = g->dst;
  g->h_out_ptr = g->out_ptr;
  g->h_out_eid = g->out_eid;
#endif
  g->edge_origin = origin;
  gnn_free(ctx, (void *)rg->d_origin); /* edge_origin holds it now */
  rg->d_origin = NULL;
  return GNN_OK;
}

/* ---------------------------------------------------------------- datasets */

void gnn_dataset_free(gnn_ctx *ctx, gnn_dataset *ds) {
  if (!ds) return;
  gnn_graph_free(ctx, ds->graph);
  free(ds->features);
  free(ds->labels);
  free(ds->train_mask);
  free(ds->val_mask);
  free(ds->test_mask);
  free(ds);
}

/* The hub rows' pieces (gnnc --split-hubs, gnnrt.h) of one side (ptr: in_ptr or out_ptr, device
 * arrays; hptr: its host copy, or NULL): every row longer than len, cut into pieces of len edges
 * (the last one shorter), in row order, uploaded. */
static gnn_status make_side_pieces(gnn_ctx *ctx, int64_t nv, int64_t len, const int64_t *ptr_dev, const int64_t *hptr, int64_t *npieces,
                                   const int32_t **prow, const int64_t **plo) {
  gnn_status st = GNN_OK;
  int64_t *own = NULL, n = 0;
  const int64_t *ptr = hptr;
  if (!ptr) {
    own = (int64_t *)rt_malloc(ctx, rt_mul((size_t)nv + 1, sizeof(int64_t)), "row offsets (host)");
    if (!own) return GNN_ERR_OOM;
    st = gnn_download(ctx, own, ptr_dev, sizeof(int64_t) * (size_t)(nv + 1));
    if (st) {
      free(own);
      return st;
    }
    ptr = own;
  }
  for (int64_t v = 0; v < nv; v++)
    if (ptr[v + 1] - ptr[v] > len) n += (ptr[v + 1] - ptr[v] + len - 1) / len;
  if (n > GNN_PIECES_MAX || n > nv) { /* cannot happen (gnn_piece_len), but a kernel would write past its buffers */
    free(own);
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_make_pieces: %lld pieces, more than %d", (long long)n, GNN_PIECES_MAX);
  }
  int32_t *row = (int32_t *)rt_malloc(ctx, rt_mul((size_t)n ? (size_t)n : 1, sizeof(int32_t)), "piece_row");
  int64_t *lo = (int64_t *)rt_malloc(ctx, rt_mul((size_t)n ? (size_t)n : 1, sizeof(int64_t)), "piece_lo");
  void *d_row = NULL, *d_lo = NULL;
  st = row && lo ? GNN_OK : GNN_ERR_OOM;
  if (!st) {
    int64_t p = 0;
    for (int64_t v = 0; v < nv; v++)
      if (ptr[v + 1] - ptr[v] > len)
        for (int64_t e = ptr[v]; e < ptr[v + 1]; e += len) row[p] = (int32_t)v, lo[p] = e, p++;
  }
  /* one element at least, so that a graph without hubs still passes kernels valid pointers */
  if (!st) st = gnn_malloc(ctx, &d_row, sizeof(int32_t) * (size_t)(n ? n : 1));
  if (!st) st = gnn_malloc(ctx, &d_lo, sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!st && n) st = gnn_upload(ctx, d_row, row, sizeof(int32_t) * (size_t)n);
  if (!st && n) st = gnn_upload(ctx, d_lo, lo, sizeof(int64_t) * (size_t)n);
  free(row);
  free(lo);
  free(own);
  if (st) {
    gnn_free(ctx, d_row);
    gnn_free(ctx, d_lo);
    return st;
  }
  *prow = (const int32_t *)d_row;
  *plo = (const int64_t *)d_lo;
  *npieces = n;
  return GNN_OK;
}

/* Both sides' pieces, once per graph, on the first forward of a model that walks pieces: from
 * in_ptr and out_ptr alone (the graph may have come from gnn_graph_from_csr, without host copies). */
gnn_status gnn_graph_make_pieces(gnn_ctx *ctx, gnn_graph *g) {
  gnn_status st = rt_check_graph(ctx, g, "gnn_graph_make_pieces");
  if (st || g->piece_len) return st;
  int64_t len = gnn_piece_len(g->nv, g->ne), n_in = 0, n_out = 0;
  const int32_t *row_in = NULL, *row_out = NULL;
  const int64_t *lo_in = NULL, *lo_out = NULL;
  st = make_side_pieces(ctx, g->nv, len, g->in_ptr, g->h_in_ptr, &n_in, &row_in, &lo_in);
  if (!st) st = make_side_pieces(ctx, g->nv, len, g->out_ptr, g->h_out_ptr, &n_out, &row_out, &lo_out);
  if (st) {
    gnn_free(ctx, (void *)row_in);
    gnn_free(ctx, (void *)lo_in);
    return st;
  }
  g->piece_row = row_in, g->piece_lo = lo_in, g->npieces = n_in;
  g->out_piece_row = row_out, g->out_piece_lo = lo_out, g->out_npieces = n_out;
  g->piece_len = len;
  return GNN_OK;
}
