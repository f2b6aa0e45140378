/* tables.c -- the per-vertex text files of a dataset: features (LIBSVM), labels, splits, graph ids.
 *
 * Each file holds one row per vertex (or per graph) in id order, or a list of vertex ids:
 *   features.svm  LIBSVM, one line per vertex in id order: "label idx:value ...", idx 1-based
 *                 and ascending; the label is ignored (labels.txt has them)
 *   labels.txt    one integer per vertex, -1 = unknown
 *   *.idx         vertex ids (graph ids for a graph-level dataset), one per line (a split); the
 *                 train, val and test files are disjoint
 *   graph_indicator.txt  one graph id per vertex
 * '#' starts a comment line everywhere. The messages follow the interpreter's loader
 * (compiler/graph.c). The readers go through RtReader, so a gzip-compressed file reads as its
 * text (OGB's split/NAME/train.csv.gz and raw/node-label.csv.gz are read here too, by ogb.c).
 * A row count given by the caller (nv > 0) is checked, so a file one row short or long is an
 * error at its line; nothing from a failed file is kept. These readers call only text.c: the
 * folder loaders (dataset.c, ogb.c) sit above them.
 */
#include "internal.h"
#include "gnnrt_text.h" /* gnn_word_text: the value as written, in a message */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


gnn_status rt_count_rows(gnn_ctx *ctx, const char *path, int64_t *rows) {
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, '#');
  int64_t n = 0;
  if (!st)
    while (rt_reader_next(ctx, &r, &st)) n++;
  rt_reader_close(&r);
  *rows = st ? 0 : n;
  return st;
}

gnn_status gnn_text_line(gnn_ctx *ctx, const char *path, int64_t row, int64_t *line) {
  if (line) *line = 0;
  gnn_status st = rt_args(ctx, path && line && row >= 0, "gnn_text_line", "need a path, a row >= 0 and line");
  if (st) return st;
  RtReader r;
  if ((st = rt_reader_open(ctx, &r, path, '#'))) return st;
  int64_t n = 0;
  while (rt_reader_next(ctx, &r, &st))
    if (n++ == row) {
      *line = r.lineno;
      break;
    }
  rt_reader_close(&r);
  if (!st && !*line)
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: no row %lld: the file has %lld rows", path, (long long)row, (long long)n);
  return st;
}

/* ---------------------------------------------------------------- features */

typedef struct {
  int64_t row;
  int32_t col;
  float v;
} SvmEntry;

/* LIBSVM rows; nv = 0 takes as many rows as the file has (reported in *rows). */
gnn_status rt_load_svm(gnn_ctx *ctx, const char *path, int64_t nv, float **out, int64_t *ncols, int64_t *rows) {
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, '#');
  if (st) return st;
  SvmEntry *es = NULL;
  int64_t n = 0, cap = 0, row = 0, maxcol = 0;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    if (nv > 0 && row == nv) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more feature rows than the graph's %lld vertices", path,
                         r.lineno, (long long)nv);
      break;
    }
    /* The label: any number, ignored. */
    char *end;
    (void)strtod(p, &end);
    if (end == p || (*end && !isspace((unsigned char)*end))) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: missing label (a LIBSVM line starts with one)", path,
                         r.lineno);
      break;
    }
    p = end;
    int64_t prev = 0;
    for (;;) {
      rt_skip_space(&p);
      if (rt_at_end(p)) break;
      int64_t idx;
      if ((st = rt_int_field(ctx, &r, &p, "feature index", ':', &idx))) break;
      if (*p != ':') {
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected 'index:value' after feature index %lld", path,
                           r.lineno, (long long)idx);
        break;
      }
      p++;
      if (idx < 1 || idx > RT_MAX_ID) {
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: feature index %lld out of range (indices are 1-based)",
                           path, r.lineno, (long long)idx);
        break;
      }
      if (idx <= prev) {
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: feature index %lld after %lld (indices must ascend)", path,
                           r.lineno, (long long)idx, (long long)prev);
        break;
      }
      prev = idx;
      double v = strtod(p, &end);
      if (end == p || (*end && !isspace((unsigned char)*end))) {
        char tok[32];
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: feature value '%s' for index %lld is not a number", path,
                           r.lineno, gnn_word_text(p, tok, sizeof tok), (long long)idx);
        break;
      }
      if (!isfinite(v) || !isfinite((float)v)) { /* the text as written, as rt_real_field quotes it */
        char tok[32];
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: feature value '%s' for index %lld is not finite in float32%s",
                           path, r.lineno, gnn_word_text(p, tok, sizeof tok), (long long)idx,
                           isfinite(v) ? " (its largest magnitude is 3.4e38)" : "");
        break;
      }
      p = end;
      if (n == cap) {
        cap = cap ? cap * 2 : 4096;
        SvmEntry *grown = (SvmEntry *)realloc(es, rt_mul((size_t)cap, sizeof(SvmEntry)));
        if (!grown) {
          st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory at line %ld", path, r.lineno);
          break;
        }
        es = grown;
      }
      es[n].row = row;
      es[n].col = (int32_t)(idx - 1);
      es[n].v = (float)v;
      n++;
      if (idx > maxcol) maxcol = idx;
    }
    if (st) break;
    row++;
  }
  rt_reader_close(&r);
  if (!st && nv > 0 && row != nv)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %lld feature rows for a graph of %lld vertices", path,
                       (long long)row, (long long)nv);
  if (!st && row == 0) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: no feature rows", path);
  float *x = NULL;
  size_t cells = rt_mul((size_t)row, (size_t)maxcol), bytes = cells < SIZE_MAX / sizeof(float) ? cells * sizeof(float) : SIZE_MAX;
  /* The dense table is sized by the largest index: one "1:1 2000000000:1" line asks for 8 GB a
   * row. calloc grants it lazily on an overcommitting system and the process is killed when the
   * table is later read whole (normalised, uploaded): refused here, as the graph builder refuses
   * a vertex count (graph.c check_vertex_room). Tables under 256 MB are not checked. */
  size_t avail = !st && bytes >= ((size_t)256 << 20) ? rt_host_available() : SIZE_MAX;
  if (!st && bytes > avail)
    st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: %lld x %lld features (the largest feature index sets the columns) need "
                       "%zu bytes (%.1f GiB), more than the %zu bytes (%.1f GiB) of host memory this process can still take",
                       path, (long long)row, (long long)maxcol, bytes, bytes / 1073741824.0, avail, avail / 1073741824.0);
  if (!st) {
    if (cells < SIZE_MAX / sizeof(float)) x = (float *)calloc(cells ? cells : 1, sizeof(float));
    if (!x)
      st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for %lld x %lld features", path,
                         (long long)row, (long long)maxcol);
  }
  if (!st) {
    for (int64_t i = 0; i < n; i++) x[es[i].row * maxcol + es[i].col] = es[i].v;
    *out = x;
    *ncols = maxcol;
    *rows = row;
  }
  free(es);
  return st;
}

gnn_status gnn_features_load_svm(gnn_ctx *ctx, const char *path, int64_t nv, float **out, int64_t *ncols) {
  if (out) *out = NULL;
  if (ncols) *ncols = 0;
  gnn_status st = rt_args(ctx, out && ncols, "gnn_features_load_svm", "out or ncols is NULL");
  if (st) return st;
  if (!path || nv <= 0)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_features_load_svm: need a path and a vertex count > 0 (got %lld)",
                         (long long)nv);
  int64_t rows;
  return rt_load_svm(ctx, path, nv, out, ncols, &rows);
}

/* ---------------------------------------------------------------- graph ids */

/* graph_indicator.txt: one graph id per vertex, 0-based, starting at 0 and going up by at most 1
 * (each graph's vertices consecutive: PyG's `batch`, TU's DS_graph_indicator.txt less one).
 * nv > 0 fixes the count; *out (malloc) holds n ids, *ng the graphs. */
gnn_status rt_read_graph_indicator(gnn_ctx *ctx, const char *path, int64_t nv, int64_t **out, int64_t *n_out, int64_t *ng) {
  *out = NULL;
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, '#');
  if (st) return st;
  int64_t *of = NULL, n = 0, cap = 0, last = -1;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    int64_t id;
    if ((st = rt_int_field(ctx, &r, &p, "graph id", 0, &id))) break;
    if (!rt_at_end(p)) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected one graph id per line", path, r.lineno);
      break;
    }
    if (last < 0 && id != 0) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: the first graph id is %lld: the ids start at 0", path, r.lineno,
                         (long long)id);
      break;
    }
    if (id != last && id != last + 1) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT,
                         "%s:%ld: error: graph id %lld after %lld: the ids start at 0 and go up by at most 1 (a graph's vertices are consecutive)",
                         path, r.lineno, (long long)id, (long long)last);
      break;
    }
    if (nv > 0 && n == nv) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more graph ids than the graph's %lld vertices", path, r.lineno,
                         (long long)nv);
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      int64_t *grown = (int64_t *)realloc(of, rt_mul((size_t)cap, sizeof(int64_t)));
      if (!grown) {
        st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory at line %ld", path, r.lineno);
        break;
      }
      of = grown;
    }
    of[n++] = last = id;
  }
  rt_reader_close(&r);
  if (!st && n == 0) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: no graph ids", path);
  if (!st && nv > 0 && n != nv)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %lld graph ids for a graph of %lld vertices", path, (long long)n, (long long)nv);
  if (st) {
    free(of);
    return st;
  }
  *out = of;
  *n_out = n;
  *ng = last + 1;
  return GNN_OK;
}

/* ---------------------------------------------------------------- labels and splits */

/* One integer label per line, -1 = unknown, checked against nv. */
gnn_status gnn_labels_load(gnn_ctx *ctx, const char *path, int64_t nv, int32_t **out, int64_t *count, int *nclasses) {
  if (out) *out = NULL;
  gnn_status st = rt_args(ctx, out && path && nv >= 0, "gnn_labels_load", "need out, a path and nv >= 0");
  if (st) return st;
  RtReader r;
  st = rt_reader_open(ctx, &r, path, '#');
  if (st) return st;
  int32_t *lab = NULL;
  int64_t n = 0, cap = 0, maxlab = -1;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    int64_t y;
    if ((st = rt_int_field(ctx, &r, &p, "label", 0, &y))) break;
    if (!rt_at_end(p)) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected one label per line", path, r.lineno);
      break;
    }
    if (y < -1) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: label %lld is negative (-1 marks an unknown label)", path,
                         r.lineno, (long long)y);
      break;
    }
    if (y >= RT_MAX_ID) { /* the label is an int32, but the class count, the largest + 1, is an int too */
      st = gnn_set_error(ctx, GNN_ERR_FORMAT,
                         "%s:%ld: error: label %lld is too large: the class count (the largest label + 1) must fit in "
                         "32 bits, so labels go up to %lld", path, r.lineno, (long long)y, (long long)RT_MAX_ID - 1);
      break;
    }
    if (nv > 0 && n == nv) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more labels than the graph's %lld vertices", path, r.lineno,
                         (long long)nv);
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      int32_t *grown = (int32_t *)realloc(lab, rt_mul((size_t)cap, sizeof(int32_t)));
      if (!grown) {
        st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory at line %ld", path, r.lineno);
        break;
      }
      lab = grown;
    }
    lab[n++] = (int32_t)y;
    if (y > maxlab) maxlab = y;
  }
  rt_reader_close(&r);
  if (!st && nv > 0 && n != nv)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %lld labels for a graph of %lld vertices", path, (long long)n,
                       (long long)nv);
  if (!st && n == 0) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: no labels", path);
  if (st) {
    free(lab);
    return st;
  }
  *out = lab;
  if (count) *count = n;
  if (nclasses) *nclasses = (int)(maxlab + 1);
  return GNN_OK;
}

/* A split file into a 0/1 mask of nv rows; ids in range, none repeated, and none in an earlier
 * split: earlier[k] (NULL-terminated, at most 2) is that split's mask and earlier_name[k] its
 * file. `what` is the row: "vertex", or "graph" for a graph-level dataset, whose split files
 * list graph ids, so a message about a vertex count would send the user to the wrong file. */
static gnn_status split_read(gnn_ctx *ctx, const char *path, int64_t nv, const char *what, const uint8_t *const *earlier,
                             const char *const *earlier_name, uint8_t *mask, int64_t *count) {
  memset(mask, 0, (size_t)nv);
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, '#');
  if (st) return st;
  const int graphs = strcmp(what, "graph") == 0;
  char field[32];
  snprintf(field, sizeof field, "%s id", what);
  int64_t n = 0;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    int64_t id;
    if ((st = rt_int_field(ctx, &r, &p, field, 0, &id))) break;
    if (!rt_at_end(p)) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected one %s id per line", path, r.lineno, what);
      break;
    }
    if (id < 0 || id >= nv) {
      st = graphs ? gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: graph id %lld out of range (the dataset has %lld graphs, "
                                  "ids 0 to %lld of graph_indicator.txt)", path, r.lineno, (long long)id, (long long)nv,
                                  (long long)nv - 1)
                  : gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: vertex id %lld out of range (the graph has %lld vertices)",
                                  path, r.lineno, (long long)id, (long long)nv);
      break;
    }
    if (mask[id]) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s %lld is listed twice", path, r.lineno, what, (long long)id);
      break;
    }
    /* A row in two splits would be trained on and then reported as unseen (test), or would
     * choose the epoch it was trained on (val): the accuracy printed would not measure
     * generalisation, and nothing would say so. */
    for (int k = 0; earlier && earlier[k]; k++)
      if (earlier[k][id]) {
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s %lld is also in %s: the train, validation and test splits "
                           "must be disjoint (remove it from one of the two files)", path, r.lineno, what, (long long)id,
                           earlier_name[k]);
        break;
      }
    if (st) break;
    mask[id] = 1;
    n++;
  }
  rt_reader_close(&r);
  if (st) {
    memset(mask, 0, (size_t)nv);
    return st;
  }
  if (count) *count = n;
  return GNN_OK;
}

/* A split file into a 0/1 mask; ids in range, none repeated. */
gnn_status gnn_split_load(gnn_ctx *ctx, const char *path, int64_t nv, uint8_t *mask, int64_t *count) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!path || nv <= 0 || !mask)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_split_load: need a path, nv > 0 and a mask");
  return split_read(ctx, path, nv, "vertex", NULL, NULL, mask, count);
}

/* The file of an earlier split beside split file `name` of dir, for a message: gnnc's folder
 * has train.idx and val.idx; OGB's split/NAME/ has train and valid, .csv.gz or else .csv (as
 * ogb.c picks them). */
static void earlier_split_name(const char *dir, const char *name, int k, char *out, size_t len) {
  const char *ext = strchr(name, '.');
  if (ext && strcmp(ext, ".idx") == 0) {
    snprintf(out, len, "%s.idx", k == 0 ? "train" : "val");
    return;
  }
  const char *base = k == 0 ? "train" : "valid";
  snprintf(out, len, "%s.csv.gz", base);
  size_t n = strlen(dir) + len + 2;
  char *f = (char *)malloc(n);
  if (f) {
    snprintf(f, n, "%s/%s", dir, out);
    if (!rt_exists(f)) snprintf(out, len, "%s.csv", base);
    free(f);
  }
}

/* Loads split file `name` of dir into *mask when it exists, else records `bit` as missing. The
 * splits are loaded train, val, test: each is checked against those before it. */
gnn_status rt_dataset_split(gnn_ctx *ctx, gnn_dataset *ds, const char *dir, const char *name, unsigned bit,
                            uint8_t **mask, int64_t *count) {
  char *f = rt_join(ctx, dir, name);
  if (!f) return GNN_ERR_OOM;
  gnn_status st = GNN_OK;
  const uint8_t *earlier[3] = {NULL, NULL, NULL};
  char names[2][32];
  const char *earlier_name[2] = {names[0], names[1]};
  int ne = 0;
  if (bit != GNN_DATASET_NO_TRAIN && ds->train_mask) earlier_split_name(dir, name, 0, names[ne], sizeof names[0]), earlier[ne++] = ds->train_mask;
  if (bit == GNN_DATASET_NO_TEST && ds->val_mask) earlier_split_name(dir, name, 1, names[ne], sizeof names[0]), earlier[ne++] = ds->val_mask;
  if (!rt_exists(f)) {
    ds->missing |= bit;
  } else if (!(*mask = (uint8_t *)rt_malloc(ctx, (size_t)ds->nrows, name))) {
    st = GNN_ERR_OOM;
  } else if (ds->nrows <= 0) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the dataset has no %s to split", f, ds->graph_level ? "graphs" : "vertices");
  } else {
    st = split_read(ctx, f, ds->nrows, ds->graph_level ? "graph" : "vertex", earlier, earlier_name, *mask, count);
  }
  free(f);
  return st;
}
