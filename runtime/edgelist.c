/* edgelist.c -- the text graph formats: edge lists and Matrix Market, read into an edge sequence.
 *
 * Each reader turns a file into the RtEdges sequence of graph.c (origin = the edge's data line
 * in an edge list, its entry in a Matrix Market file) and checks every id at its line, so a bad
 * file is "FILE:LINE: error: what", never a graph built from part of it. The builder
 * (rt_graph_build) applies the options afterwards; load.c and dataset.c call these readers.
 */
#include "internal.h"
#include "gnnrt_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* ---------------------------------------------------------------- edge lists */

/* Checks a vertex id read from line r->lineno: not negative, below nv (when known), int32. */
static gnn_status check_id(gnn_ctx *ctx, const RtReader *r, int64_t id, int64_t nv) {
  if (id < 0) return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: negative vertex id %lld", r->path, r->lineno,
                                   (long long)id);
  if (nv > 0 && id >= nv)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: vertex id %lld out of range (the graph has %lld vertices)",
                         r->path, r->lineno, (long long)id, (long long)nv);
  if (id > RT_MAX_ID)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: vertex id %lld does not fit in 32 bits (ids must be below 2^31)",
                         r->path, r->lineno, (long long)id);
  return GNN_OK;
}

enum { EDGE_MAX_COLS = 1 << 16 };

/* An edge list: "src dst [v1 ... vk]" per line, '#' comments, ids checked at their line; k is
 * the first edge line's and the same on every line. */
gnn_status rt_load_edge_list(gnn_ctx *ctx, const char *path, int64_t nv, RtEdges *es, int64_t *nv_out) {
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, '#');
  if (st) return st;
  int64_t maxid = -1, ncols = -1;
  float *row = NULL;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    int64_t s, d;
    if ((st = rt_int_field(ctx, &r, &p, "source vertex id", 0, &s))) break;
    if ((st = rt_int_field(ctx, &r, &p, "destination vertex id", 0, &d))) break;
    int64_t nf = gnn_count_fields(p);
    if (ncols < 0) {
      if (nf > EDGE_MAX_COLS) {
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %lld values on an edge, more than %d", path, r.lineno,
                           (long long)nf, EDGE_MAX_COLS);
        break;
      }
      ncols = es->ncols = nf;
      if (nf && !(row = (float *)rt_malloc(ctx, sizeof(float) * (size_t)nf, "an edge's values"))) {
        st = GNN_ERR_OOM;
        break;
      }
    }
    if (nf != ncols) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %lld value%s after 'src dst', the first edge line has %lld",
                         path, r.lineno, (long long)nf, nf == 1 ? "" : "s", (long long)ncols);
      break;
    }
    if ((st = check_id(ctx, &r, s, nv)) || (st = check_id(ctx, &r, d, nv))) break;
    for (int64_t k = 0; k < ncols && !st; k++) {
      char what[40];
      snprintf(what, sizeof what, "edge value %lld", (long long)k + 1);
      st = rt_real_field(ctx, &r, &p, what, &row[k]);
    }
    if (st || (ncols && (st = rt_edges_push_vals(ctx, es, row)))) break;
    if ((st = rt_edges_push(ctx, es, s, d, es->n))) break;
    if (s > maxid) maxid = s;
    if (d > maxid) maxid = d;
  }
  rt_reader_close(&r);
  free(row);
  if (st) return st;
  *nv_out = nv > 0 ? nv : maxid + 1;
  if (*nv_out == 0) return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: empty graph (no edges and no vertex count)", path);
  return GNN_OK;
}

/* ---------------------------------------------------------------- Matrix Market */

/* A Matrix Market coordinate file: banner, size line, entries. */
gnn_status rt_load_mtx(gnn_ctx *ctx, const char *path, int64_t nv, RtEdges *es, int64_t *nv_out) {
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, 0);
  if (st) return st;
  char *p = rt_reader_next(ctx, &r, &st);
  char w[5][32];
  int pattern = 0, integer = 0, symmetric = 0;
  if (st) goto done;
  /* 1. The banner: %%MatrixMarket matrix coordinate FIELD SYMMETRY */
  if (!p || strncasecmp(p, "%%MatrixMarket", 14) != 0) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: not a Matrix Market file (the first line must be "
                       "'%%%%MatrixMarket matrix coordinate FIELD SYMMETRY')", path, p ? r.lineno : 1L);
    goto done;
  }
  p += 14;
  int nw = 0;
  while (nw < 5 && rt_next_word(&p, w[nw], sizeof w[nw])) nw++;
  if (nw != 4 || strcasecmp(w[0], "matrix") != 0) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: malformed Matrix Market header (want "
                       "'%%%%MatrixMarket matrix coordinate FIELD SYMMETRY')", path, r.lineno);
    goto done;
  }
  if (strcasecmp(w[1], "coordinate") != 0) {
    st = gnn_set_error(ctx, strcasecmp(w[1], "array") == 0 ? GNN_ERR_UNSUPPORTED : GNN_ERR_FORMAT,
                       "%s:%ld: error: Matrix Market format '%s' is not supported (a graph is 'coordinate')", path,
                       r.lineno, w[1]);
    goto done;
  }
  pattern = strcasecmp(w[2], "pattern") == 0;
  integer = strcasecmp(w[2], "integer") == 0;
  if (!pattern && !integer && strcasecmp(w[2], "real") != 0 && strcasecmp(w[2], "double") != 0) {
    st = gnn_set_error(ctx, strcasecmp(w[2], "complex") == 0 ? GNN_ERR_UNSUPPORTED : GNN_ERR_FORMAT,
                       "%s:%ld: error: Matrix Market field '%s' is not supported (pattern, real or integer)", path,
                       r.lineno, w[2]);
    goto done;
  }
  symmetric = strcasecmp(w[3], "symmetric") == 0;
  if (!symmetric && strcasecmp(w[3], "general") != 0) {
    int known = strcasecmp(w[3], "skew-symmetric") == 0 || strcasecmp(w[3], "hermitian") == 0;
    st = gnn_set_error(ctx, known ? GNN_ERR_UNSUPPORTED : GNN_ERR_FORMAT,
                       "%s:%ld: error: Matrix Market symmetry '%s' is not supported (general or symmetric)", path,
                       r.lineno, w[3]);
    goto done;
  }
  /* 2. The size line: ROWS COLS ENTRIES, after '%' comments. */
  r.comment = '%';
  if (!(p = rt_reader_next(ctx, &r, &st))) {
    if (!st) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: the size line 'ROWS COLS ENTRIES' is missing",
                                path, r.lineno + 1);
    goto done;
  }
  int64_t rows, cols, nnz;
  if ((st = rt_int_field(ctx, &r, &p, "row count", 0, &rows)) || (st = rt_int_field(ctx, &r, &p, "column count", 0, &cols)) ||
      (st = rt_int_field(ctx, &r, &p, "entry count", 0, &nnz)))
    goto done;
  if (!rt_at_end(p)) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected 3 fields 'ROWS COLS ENTRIES', found more", path, r.lineno);
    goto done;
  }
  if (rows != cols || rows < 0 || nnz < 0) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: a %lld x %lld matrix with %lld entries is not an adjacency "
                       "matrix (square, counts not negative)", path, r.lineno, (long long)rows, (long long)cols, (long long)nnz);
    goto done;
  }
  if (rows == 0) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: empty graph (a 0 x 0 matrix)", path, r.lineno);
    goto done;
  }
  if (rows > RT_MAX_ID + 1) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %lld vertices do not fit 32-bit ids", path, r.lineno,
                       (long long)rows);
    goto done;
  }
  if (nv > 0 && nv != rows) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: num_vertices %lld disagrees with the matrix's %lld rows", path,
                       (long long)nv, (long long)rows);
    goto done;
  }
  /* 3. The entries: "I J [VALUE]", 1-based; A(I, J) is the edge I-1 -> J-1, its value the
   * edge's (both directions of a symmetric entry share it). */
  if (!pattern) es->ncols = 1;
  for (int64_t k = 0; k < nnz; k++) {
    if (!(p = rt_reader_next(ctx, &r, &st))) {
      if (!st) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: the file ends after %lld of the %lld entries "
                                  "the size line announces", path, r.lineno, (long long)k, (long long)nnz);
      goto done;
    }
    int64_t i, j, iv;
    float val = 1;
    if ((st = rt_int_field(ctx, &r, &p, "row index", 0, &i)) || (st = rt_int_field(ctx, &r, &p, "column index", 0, &j)))
      goto done;
    if (integer) {
      if ((st = rt_int_field(ctx, &r, &p, "integer value", 0, &iv))) goto done;
      val = (float)iv;
    } else if (!pattern) {
      rt_skip_space(&p);
      if (rt_at_end(p)) {
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: missing value (line ends early)", path, r.lineno);
        goto done;
      }
      if ((st = rt_real_field(ctx, &r, &p, "value", &val))) goto done;
    }
    if (!rt_at_end(p)) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected %d fields, found more", path, r.lineno,
                         pattern ? 2 : 3);
      goto done;
    }
    if (i < 1 || i > rows || j < 1 || j > rows) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: entry (%lld, %lld) out of range for a %lld x %lld matrix "
                         "(indices are 1-based)", path, r.lineno, (long long)i, (long long)j, (long long)rows, (long long)rows);
      goto done;
    }
    if (!pattern && (st = rt_edges_push_vals(ctx, es, &val))) goto done;
    if ((st = rt_edges_push(ctx, es, i - 1, j - 1, k))) goto done;
    if (symmetric && i != j && (st = rt_edges_push(ctx, es, j - 1, i - 1, k))) goto done;
  }
  if ((p = rt_reader_next(ctx, &r, &st)))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more entries than the %lld the size line announces", path,
                       r.lineno, (long long)nnz);
  *nv_out = rows;
done:
  rt_reader_close(&r);
  return st;
}
