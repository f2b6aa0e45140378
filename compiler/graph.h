/* graph.h -- the ground floor: the compiler's own graph loaders (graph.c), for the float64
 * interpreter and the GPU estimate (--gpu): edge lists, dataset folders, CSR and CSC. Includes
 * nothing of the compiler's.
 */
#ifndef GNNC_GRAPH_H
#define GNNC_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int64_t nv, ne;
  int64_t *src, *dst;        /* edge e goes src[e] -> dst[e], in file order */
  int64_t *in_ptr, *in_eid;  /* CSR by destination: in-edges of v are in_eid[in_ptr[v]..in_ptr[v+1]) */
  int64_t *out_ptr, *out_eid;/* CSC by source: out-edges of u are out_eid[out_ptr[u]..out_ptr[u+1]) */
  int64_t *csr_pos;          /* csr_pos[e]: the position of edge e in CSR order (the generated code's edge id) */
  double *features;          /* nv x nfeat, or NULL */
  int64_t nfeat;
  int64_t *labels;           /* nv, or NULL; -1 = unknown */
  double *edge_vals;         /* ne x edge_ncols in file order: graph.edges' columns after src dst (float32 values), or NULL */
  int64_t edge_ncols;
  int64_t ng;                /* graphs in the batch (graph_indicator.txt; 1 without it) */
  int64_t *graph_of;         /* nv: the graph of each vertex, non-decreasing */
  int64_t *graph_ptr;        /* ng + 1: the vertices of graph i are graph_ptr[i] .. graph_ptr[i+1]-1 */
} Graph;

/* Loaders report "file:line: error: ..." into err (size errlen) and return false. */
bool graph_load_edges(Graph *g, const char *path, int64_t nv_hint, char *err, size_t errlen);
bool graph_load_features(Graph *g, const char *path, char *err, size_t errlen);
bool graph_load_labels(Graph *g, const char *path, char *err, size_t errlen);
bool graph_load_graph_indicator(Graph *g, const char *path, char *err, size_t errlen);
/* A dataset folder (graph.edges, features.svm, labels.txt) or a single edge-list file. */
bool graph_load(Graph *g, const char *path, char *err, size_t errlen);
bool graph_build_csr(Graph *g, char *err, size_t errlen); /* false (err set) when out of memory */
/* Appends v -> v for every vertex v (ascending) without a self-loop, after the edges as given, and
 * rebuilds the CSR: the runtime's add_self_loops (gnn-run/gnn-train --self-loops), edge for edge. */
bool graph_add_self_loops(Graph *g, char *err, size_t errlen);
void graph_free(Graph *g);

#endif
