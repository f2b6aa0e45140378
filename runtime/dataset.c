/* dataset.c -- the dataset folder of gnnc: graph.edges, features.svm, labels.txt and the splits.
 *
 * The layout is that of ../shared/datasets (the Planetoid graphs) and of the interpreter's
 * loader (compiler/graph.c): graph.edges (an edge list, edgelist.c), features.svm, labels.txt,
 * train.idx / val.idx / test.idx (tables.c), and for a batch of graphs graph_indicator.txt and
 * graph_labels.txt. The vertex count of a folder is fixed first (the caller's num_vertices, else
 * the length of labels.txt, else the rows of features.svm), and every file is checked against
 * it, so an edge to vertex 2708 of a 2708-vertex graph is an error at its line rather than a
 * silently larger graph; labels.txt and features.svm that disagree name the shorter file first
 * (one cut short is the likelier accident), with both counts (gnn_rows_disagree, gnnrt_text.h:
 * the words of the interpreter's loader too), for a dataset and for a folder's graph alone
 * (gnn-run), before graph.edges is read. A batch of graphs keeps each edge
 * inside its graph. Nothing from a failed file is kept. load.c sends a folder here unless it is
 * laid out as OGB's (ogb.c).
 */
#include "internal.h"
#include "gnnrt_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int rt_exists_in(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *f = (char *)malloc(n);
  if (!f) return 0;
  snprintf(f, n, "%s/%s", dir, name);
  int e = rt_exists(f);
  free(f);
  return e;
}

/* graph.edges of dir with nv vertices (0: the largest id + 1), built with opts and split into
 * its graphs by graph_indicator.txt when the folder has one. Each edge must join two vertices of
 * one graph: an edge between two graphs of a batch would carry messages from one graph into
 * another, and every graph's readout would depend on its neighbours in the file. */
static gnn_status folder_graph_build(gnn_ctx *ctx, const char *dir, const char *edges, int64_t nv, const gnn_graph_opts *opts,
                                     gnn_graph **out) {
  char *gi = rt_join(ctx, dir, "graph_indicator.txt");
  if (!gi) return GNN_ERR_OOM;
  RtEdges es = {0};
  int64_t *of = NULL, n = 0, ng = 0;
  gnn_status st = rt_load_edge_list(ctx, edges, nv, &es, &nv);
  if (!st && rt_exists(gi)) st = rt_read_graph_indicator(ctx, gi, nv, &of, &n, &ng);
  for (int64_t e = 0; !st && of && e < es.n; e++) {
    int64_t s = es.src[e], d = es.dst[e];
    if (of[s] == of[d]) continue;
    int64_t line = 0; /* the edge's line: its origin is its row of the file */
    if (gnn_text_line(ctx, edges, es.origin[e], &line)) gnn_clear_error(ctx), line = 0;
    char at[32] = "";
    if (line > 0) snprintf(at, sizeof at, ":%lld", (long long)line);
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s%s: error: the edge %lld -> %lld joins two graphs: vertex %lld is in graph %lld, "
                       "vertex %lld in graph %lld (graph_indicator.txt); the graphs of a batch share no edges", edges, at,
                       (long long)s, (long long)d, (long long)s, (long long)of[s], (long long)d, (long long)of[d]);
  }
  if (!st) st = rt_graph_build(ctx, &es, nv, opts, edges, out);
  rt_edges_free(&es);
  if (!st && of && (st = gnn_graph_set_graphs(ctx, *out, ng, of))) {
    gnn_graph_free(ctx, *out);
    *out = NULL;
  }
  free(of);
  free(gi);
  return st;
}

/* labels.txt (nlabels labels) and features.svm (rows rows) of one folder differ in length: the
 * error, the shorter file named first, with the line where the longer runs past it. */
static gnn_status rows_disagree(gnn_ctx *ctx, const char *labels, const char *features, int64_t nlabels, int64_t rows) {
  int64_t line = 0;
  if (gnn_text_line(ctx, nlabels < rows ? features : labels, nlabels < rows ? nlabels : rows, &line)) gnn_clear_error(ctx), line = 0;
  char msg[RT_ERRMAX];
  return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s", gnn_rows_disagree(msg, sizeof msg, labels, features, nlabels, rows, line));
}

/* The vertex count of a dataset folder: labels.txt, else features.svm, else graph_indicator.txt,
 * else 0 (unknown). labels.txt and features.svm both there (a vertex-level folder) must agree, as
 * rt_folder_dataset has them: a short labels.txt was blamed on the first edge to the vertex it
 * lacks ("vertex id 2707 out of range"). */
static gnn_status folder_vertex_count(gnn_ctx *ctx, const char *dir, int64_t *nv) {
  static const char *const files[] = {"labels.txt", "features.svm", "graph_indicator.txt"};
  char *path[3] = {NULL, NULL, NULL};
  int64_t n[3] = {0, 0, 0};
  gnn_status st = GNN_OK;
  *nv = 0;
  for (int i = 0; i < 3 && !st; i++) {
    if (!(path[i] = rt_join(ctx, dir, files[i]))) st = GNN_ERR_OOM;
    else if (rt_exists(path[i]) && (i < 2 || (n[0] == 0 && n[1] == 0))) st = rt_count_rows(ctx, path[i], &n[i]);
  }
  if (!st && n[0] > 0 && n[1] > 0 && n[0] != n[1] && !rt_exists_in(dir, "graph_labels.txt"))
    st = rows_disagree(ctx, path[0], path[1], n[0], n[1]);
  if (!st) *nv = n[0] > 0 ? n[0] : n[1] > 0 ? n[1] : n[2];
  for (int i = 0; i < 3; i++) free(path[i]);
  return st;
}

/* The graph of a folder alone (gnn_graph_load on a folder): graph.edges with the folder's
 * vertex count, split by graph_indicator.txt when there is one. */
gnn_status rt_folder_graph(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_graph **out) {
  int64_t nv = opts ? opts->num_vertices : 0;
  gnn_status st = GNN_OK;
  if (nv == 0 && (st = folder_vertex_count(ctx, dir, &nv))) return st;
  char *file = rt_join(ctx, dir, "graph.edges");
  if (!file) return GNN_ERR_OOM;
  if (!rt_exists(file)) {
    free(file);
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: no graph.edges in this folder", dir);
  }
  st = folder_graph_build(ctx, dir, file, nv, opts, out);
  free(file);
  return st;
}


/* A dataset folder: the vertex count first (labels, features), then the graph, then the splits. */
gnn_status rt_folder_dataset(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_dataset *ds) {
  char *edges = rt_join(ctx, dir, "graph.edges"), *labels = rt_join(ctx, dir, "labels.txt");
  char *features = rt_join(ctx, dir, "features.svm"), *glabels = rt_join(ctx, dir, "graph_labels.txt");
  gnn_status st = edges && labels && features && glabels ? GNN_OK : GNN_ERR_OOM;
  int64_t nv = opts ? opts->num_vertices : 0;
  if (!st && !rt_exists(edges)) st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: no graph.edges in this folder", dir);
  /* A graph-level dataset (graph_labels.txt: a label per graph of graph_indicator.txt) has no
   * vertex labels: labels and splits are over graphs, read once the graph is split. */
  if (!st) ds->graph_level = rt_exists(glabels);
  /* 1. The vertex count: labels, then features fix it (or check it). Without a count from the
   * caller the two files are read whole and compared: the shorter is named first (a file cut
   * short is the likelier accident), with the other's count and the line where it runs past. */
  int64_t nlabels = 0; /* labels.txt's rows when it set the count */
  if (!st && ds->graph_level) {
    /* labels.txt, if any, is not read */
  } else if (!st && rt_exists(labels)) {
    int64_t n = 0;
    st = gnn_labels_load(ctx, labels, nv, &ds->labels, &n, &ds->nclasses);
    if (!st && nv == 0) nlabels = n;
    if (!st) nv = n;
  } else if (!st) {
    ds->missing |= GNN_DATASET_NO_LABELS;
  }
  if (!st && rt_exists(features)) {
    int64_t rows = 0;
    st = rt_load_svm(ctx, features, nlabels ? 0 : nv, &ds->features, &ds->nfeat, &rows);
    if (!st && nlabels && rows != nlabels) st = rows_disagree(ctx, labels, features, nlabels, rows);
    if (!st) nv = rows;
  } else if (!st) {
    ds->missing |= GNN_DATASET_NO_FEATURES;
  }
  /* 2. The graph, its ids checked against that count, split by graph_indicator.txt. */
  if (!st) st = folder_graph_build(ctx, dir, edges, nv, opts, &ds->graph);
  /* 3. The splits. */
  if (!st) {
    ds->nv = ds->graph->nv;
    ds->nrows = ds->graph_level ? ds->graph->ng : ds->nv;
  }
  if (!st && ds->graph_level) {
    int64_t n = 0;
    st = gnn_labels_load(ctx, glabels, 0, &ds->labels, &n, &ds->nclasses);
    if (!st && n != ds->nrows)
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %lld graph labels for %lld graphs (graph_indicator.txt%s)", glabels,
                         (long long)n, (long long)ds->nrows, ds->nrows == 1 && !rt_exists_in(dir, "graph_indicator.txt") ? " is missing" : "");
  }
  if (!st) {
    st = rt_dataset_split(ctx, ds, dir, "train.idx", GNN_DATASET_NO_TRAIN, &ds->train_mask, &ds->ntrain);
    if (!st) st = rt_dataset_split(ctx, ds, dir, "val.idx", GNN_DATASET_NO_VAL, &ds->val_mask, &ds->nval);
    if (!st) st = rt_dataset_split(ctx, ds, dir, "test.idx", GNN_DATASET_NO_TEST, &ds->test_mask, &ds->ntest);
  }
  free(edges);
  free(labels);
  free(features);
  free(glabels);
  return st;
}
