/* graph.c -- graphs, features and labels from text files, for the interpreter.
 *
 * Formats (those of ../shared/datasets, see data/README.md):
 *   graph.edges   '#' comments, then "src dst" per line, 0-based ids; an edge carries a message
 *                 from src to dst. Self-loops and duplicates are kept as given.
 *   features.svm  LIBSVM: "label idx:value ..." per vertex in id order, idx 1-based
 *   labels.txt    '#' comments, then one class id per vertex; -1 = unknown
 * Every malformed line is reported as "file:line: error: what", and nothing is kept from a
 * file that failed. The in-edges of each vertex are kept in CSR by destination (int64
 * offsets) in file order, so results do not depend on how the file was sorted.
 */
#include "graph.h"
#include "gnnrt_text.h"
#include "gnnrt_hostmem.h"
#include "gnnrt_path.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  FILE *f;
  const char *path;
  char *line;
  size_t cap;
  long lineno;
  long bad;        /* the line of a malformed byte (reading stops there), 0 if none */
  const char *why; /* what is wrong with it (bad_line_byte) */
} Reader;

static bool reader_open(Reader *r, const char *path, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  r->path = path;
  if (gnn_is_device(path)) { /* gnnrt_path.h: its "line" need never end; the runtime's words */
    snprintf(err, errlen, "%s: error: cannot read: it is a device, not a file", path);
    return false;
  }
  r->f = fopen(path, "r");
  if (!r->f) snprintf(err, errlen, "%s: error: cannot open: %s", path, strerror(errno));
  return r->f != NULL;
}

/* What is wrong with line s (n bytes), or NULL: a NUL byte, then the runtime's rules and words
 * (gnn_bad_line_byte, runtime/gnnrt_text.h). */
static const char *bad_line_byte(const char *s, size_t n, bool comment) {
  if (memchr(s, 0, n)) return "NUL byte in a text file";
  return gnn_bad_line_byte(s, n, comment);
}

/* Next line that is not blank or a comment; NULL at end of file or at a malformed line (r->bad). */
static char *reader_next(Reader *r) {
  for (;;) {
    ssize_t n = getline(&r->line, &r->cap, r->f);
    if (n < 0) return NULL;
    r->lineno++;
    char *p = r->line + gnn_bom_bytes(r->line, r->lineno);
    while (*p == ' ' || *p == '\t') p++;
    bool comment = *p == '#';
    if ((r->why = bad_line_byte(r->line, (size_t)n, comment))) {
      r->bad = r->lineno;
      return NULL;
    }
    if (comment || *p == '\n' || *p == '\r' || *p == 0) continue;
    return p;
  }
}

/* After a loader's loop: the message for a malformed line (reader_next stopped there). */
static bool reader_ok(const Reader *r, bool ok, char *err, size_t errlen) {
  if (ok && r->bad) {
    snprintf(err, errlen, "%s:%ld: error: %s", r->path, r->bad, r->why);
    return false;
  }
  return ok;
}

static void reader_close(Reader *r) {
  if (r->f) fclose(r->f);
  free(r->line);
}

static void skip_space(char **p) {
  while (**p == ' ' || **p == '\t') (*p)++;
}

static bool at_end(char *p) {
  skip_space(&p);
  return *p == '\n' || *p == '\r' || *p == 0;
}

/* An integer field; on failure writes the error for the reader's current line. */
static bool int_field(Reader *r, char **p, const char *what, int64_t *out, char *err, size_t errlen) {
  skip_space(p);
  if (**p == '\n' || **p == '\r' || **p == 0) {
    snprintf(err, errlen, "%s:%ld: error: missing %s (line ends early)", r->path, r->lineno, what);
    return false;
  }
  char *end;
  errno = 0;
  long long v = strtoll(*p, &end, 10);
  if (end == *p || (*end && !isspace((unsigned char)*end) && *end != ':')) {
    char tok[32];
    size_t n = 0;
    while ((*p)[n] && !isspace((unsigned char)(*p)[n]) && n < sizeof tok - 1) n++;
    memcpy(tok, *p, n);
    tok[n] = 0;
    snprintf(err, errlen, "%s:%ld: error: %s '%s' is not an integer", r->path, r->lineno, what, tok);
    return false;
  }
  if (errno == ERANGE) {
    snprintf(err, errlen, "%s:%ld: error: %s is out of range", r->path, r->lineno, what);
    return false;
  }
  *out = v;
  *p = end;
  return true;
}

/* A value field of an edge line: a number finite in float32 (the runtime keeps float32), rounded
 * to float32 so that the interpreter and the generated code see the same weights. */
static bool value_field(Reader *r, char **p, int64_t col, double *out, char *err, size_t errlen) {
  skip_space(p);
  char *end;
  double v = strtod(*p, &end);
  if (end == *p || (*end && !isspace((unsigned char)*end))) {
    char tok[32];
    size_t n = 0;
    while ((*p)[n] && !isspace((unsigned char)(*p)[n]) && n < sizeof tok - 1) n++;
    memcpy(tok, *p, n);
    tok[n] = 0;
    snprintf(err, errlen, "%s:%ld: error: edge value %lld '%s' is not a number", r->path, r->lineno, (long long)col + 1, tok);
    return false;
  }
  if (!isfinite(v) || !isfinite((float)v)) { /* the text itself, as the runtime's words */
    int n = 0;
    while ((*p)[n] && !isspace((unsigned char)(*p)[n]) && n < 31) n++;
    snprintf(err, errlen, "%s:%ld: error: edge value %lld '%.*s' is not finite in float32%s", r->path, r->lineno, (long long)col + 1,
             n, *p, isfinite(v) ? " (its largest magnitude is 3.4e38)" : "");
    return false;
  }
  *out = (double)(float)v;
  *p = end;
  return true;
}

enum { EDGE_MAX_COLS = 1 << 16 };

bool graph_load_edges(Graph *g, const char *path, int64_t nv_hint, char *err, size_t errlen) {
  Reader r;
  if (!reader_open(&r, path, err, errlen)) return false;
  int64_t cap = 1024, ne = 0, maxid = -1, ncols = -1; /* ncols: the first edge line's values */
  int64_t *src = malloc(sizeof(int64_t) * (size_t)cap), *dst = malloc(sizeof(int64_t) * (size_t)cap);
  double *vals = NULL;
  bool ok = src && dst;
  if (!ok) snprintf(err, errlen, "%s: error: out of memory", path);
  char *p;
  while (ok && (p = reader_next(&r))) {
    int64_t s, d;
    ok = int_field(&r, &p, "source vertex id", &s, err, errlen) && int_field(&r, &p, "destination vertex id", &d, err, errlen);
    if (!ok) break;
    int64_t nf = gnn_count_fields(p);
    if (ncols < 0) {
      ncols = nf;
      if (ncols > EDGE_MAX_COLS) {
        snprintf(err, errlen, "%s:%ld: error: %lld values on an edge, more than %d", path, r.lineno, (long long)nf,
                 EDGE_MAX_COLS);
        ok = false;
        break;
      }
      if (ncols > 0 && !(vals = malloc(sizeof(double) * (size_t)(cap * ncols)))) {
        snprintf(err, errlen, "%s: error: out of memory", path);
        ok = false;
        break;
      }
    }
    if (nf != ncols) {
      snprintf(err, errlen, "%s:%ld: error: %lld value%s after 'src dst', the first edge line has %lld", path, r.lineno,
               (long long)nf, nf == 1 ? "" : "s", (long long)ncols);
      ok = false;
    } else if (s < 0 || d < 0) {
      snprintf(err, errlen, "%s:%ld: error: negative vertex id %lld", path, r.lineno, (long long)(s < 0 ? s : d));
      ok = false;
    } else if (nv_hint > 0 && (s >= nv_hint || d >= nv_hint)) {
      snprintf(err, errlen, "%s:%ld: error: vertex id %lld out of range (the graph has %lld vertices)", path, r.lineno,
               (long long)(s >= nv_hint ? s : d), (long long)nv_hint);
      ok = false;
    } else if (s >= (int64_t)1 << 40 || d >= (int64_t)1 << 40) {
      snprintf(err, errlen, "%s:%ld: error: vertex id %lld is too large", path, r.lineno, (long long)(s > d ? s : d));
      ok = false;
    } else if (g->graph_of && s < g->nv && d < g->nv && g->graph_of[s] != g->graph_of[d]) {
      /* a batch of graphs (graph_indicator.txt, read first): as the runtime's loader (dataset.c) */
      snprintf(err, errlen, "%s:%ld: error: the edge %lld -> %lld joins two graphs: vertex %lld is in graph %lld, vertex %lld "
               "in graph %lld (graph_indicator.txt); the graphs of a batch share no edges", path, r.lineno, (long long)s,
               (long long)d, (long long)s, (long long)g->graph_of[s], (long long)d, (long long)g->graph_of[d]);
      ok = false;
    }
    if (!ok) break;
    if (ne == cap) { /* grow all three; on failure the old blocks are kept (and freed below) */
      cap *= 2;
      int64_t *s2 = realloc(src, sizeof(int64_t) * (size_t)cap);
      if (s2) src = s2;
      int64_t *d2 = s2 ? realloc(dst, sizeof(int64_t) * (size_t)cap) : NULL;
      if (d2) dst = d2;
      double *v2 = d2 && vals ? realloc(vals, sizeof(double) * (size_t)cap * (size_t)ncols) : NULL;
      if (v2) vals = v2;
      if (!s2 || !d2 || (vals && !v2)) {
        snprintf(err, errlen, "%s: error: out of memory reading edge %lld", path, (long long)ne + 1);
        ok = false;
        break;
      }
    }
    for (int64_t k = 0; k < ncols && ok; k++) ok = value_field(&r, &p, k, &vals[ne * ncols + k], err, errlen);
    if (!ok) break;
    src[ne] = s;
    dst[ne] = d;
    ne++;
    if (s > maxid) maxid = s;
    if (d > maxid) maxid = d;
  }
  if (ok && ferror(r.f)) {
    snprintf(err, errlen, "%s: error: read failed", path);
    ok = false;
  }
  ok = reader_ok(&r, ok, err, errlen);
  int64_t nv = nv_hint > 0 ? nv_hint : maxid + 1;
  if (ok && nv == 0) {
    snprintf(err, errlen, "%s: error: empty graph (no edges and no vertex count)", path);
    ok = false;
  }
  reader_close(&r);
  if (!ok) {
    free(src);
    free(dst);
    free(vals);
    return false;
  }
  free(g->src);
  free(g->dst);
  free(g->edge_vals);
  g->src = src;
  g->dst = dst;
  g->edge_vals = vals;
  g->edge_ncols = vals ? ncols : 0;
  g->ne = ne;
  g->nv = nv;
  return true;
}

bool graph_load_labels(Graph *g, const char *path, char *err, size_t errlen) {
  Reader r;
  if (!reader_open(&r, path, err, errlen)) return false;
  int64_t cap = 1024, n = 0;
  int64_t *lab = malloc(sizeof(int64_t) * (size_t)cap);
  bool ok = true;
  char *p;
  while (ok && (p = reader_next(&r))) {
    int64_t y;
    if (!(ok = int_field(&r, &p, "label", &y, err, errlen))) break;
    if (!at_end(p)) {
      snprintf(err, errlen, "%s:%ld: error: expected one label per line", path, r.lineno);
      ok = false;
    } else if (y < -1) {
      snprintf(err, errlen, "%s:%ld: error: label %lld is negative (-1 marks an unknown label)", path, r.lineno, (long long)y);
      ok = false;
    }
    if (!ok) break;
    if (n == cap) lab = realloc(lab, sizeof(int64_t) * (size_t)(cap *= 2));
    lab[n++] = y;
  }
  ok = reader_ok(&r, ok, err, errlen);
  if (ok && g->nv > 0 && n != g->nv) {
    snprintf(err, errlen, "%s: error: %lld labels for a graph of %lld vertices", path, (long long)n, (long long)g->nv);
    ok = false;
  }
  reader_close(&r);
  if (!ok) {
    free(lab);
    return false;
  }
  free(g->labels);
  g->labels = lab;
  if (g->nv == 0) g->nv = n;
  return true;
}

/* graph_indicator.txt: the graph of each vertex, in vertex order, for a batch of graphs (PyG's
 * `batch`, TU's DS_graph_indicator.txt 0-based): ids start at 0 and never decrease or skip, so
 * each graph's vertices are one contiguous range (graph_ptr). */
bool graph_load_graph_indicator(Graph *g, const char *path, char *err, size_t errlen) {
  Reader r;
  if (!reader_open(&r, path, err, errlen)) return false;
  int64_t cap = 1024, n = 0, last = -1;
  int64_t *of = malloc(sizeof(int64_t) * (size_t)cap);
  bool ok = of != NULL;
  if (!ok) snprintf(err, errlen, "%s: error: out of memory", path);
  char *p;
  while (ok && (p = reader_next(&r))) {
    int64_t id;
    if (!(ok = int_field(&r, &p, "graph id", &id, err, errlen))) break;
    if (!at_end(p)) {
      snprintf(err, errlen, "%s:%ld: error: expected one graph id per line", path, r.lineno);
      ok = false;
    } else if (last < 0 && id != 0) {
      snprintf(err, errlen, "%s:%ld: error: the first graph id is %lld: the ids start at 0", path, r.lineno, (long long)id);
      ok = false;
    } else if (id != last && id != last + 1) {
      snprintf(err, errlen, "%s:%ld: error: graph id %lld after %lld: the ids start at 0 and go up by at most 1 (a graph's vertices are consecutive)",
               path, r.lineno, (long long)id, (long long)last);
      ok = false;
    }
    if (!ok) break;
    if (n == cap) {
      int64_t *bigger = realloc(of, sizeof(int64_t) * (size_t)(cap *= 2));
      if (!bigger) {
        snprintf(err, errlen, "%s: error: out of memory", path);
        ok = false;
        break;
      }
      of = bigger;
    }
    of[n++] = last = id;
  }
  ok = reader_ok(&r, ok, err, errlen);
  if (ok && n == 0) {
    snprintf(err, errlen, "%s: error: no graph ids", path);
    ok = false;
  }
  if (ok && g->nv > 0 && n != g->nv) {
    snprintf(err, errlen, "%s: error: %lld graph ids for a graph of %lld vertices", path, (long long)n, (long long)g->nv);
    ok = false;
  }
  reader_close(&r);
  if (!ok) {
    free(of);
    return false;
  }
  free(g->graph_of);
  g->graph_of = of;
  g->ng = last + 1;
  if (g->nv == 0) g->nv = n;
  return true;
}

bool graph_load_features(Graph *g, const char *path, char *err, size_t errlen) {
  Reader r;
  if (!reader_open(&r, path, err, errlen)) return false;
  /* Two passes would need a seekable file; instead keep (row, idx, value) triples. */
  typedef struct { int64_t row, col; double v; } Entry;
  int64_t cap = 4096, n = 0, rows = 0, maxcol = 0;
  Entry *es = malloc(sizeof(Entry) * (size_t)cap);
  bool ok = true;
  char *p;
  while (ok && (p = reader_next(&r))) {
    int64_t label, prev = 0;
    if (!(ok = int_field(&r, &p, "label", &label, err, errlen))) break;
    for (;;) {
      skip_space(&p);
      if (*p == '\n' || *p == '\r' || *p == 0) break;
      int64_t idx;
      if (!(ok = int_field(&r, &p, "feature index", &idx, err, errlen))) break;
      if (*p != ':') {
        snprintf(err, errlen, "%s:%ld: error: expected 'index:value' after feature index %lld", path, r.lineno, (long long)idx);
        ok = false;
        break;
      }
      p++;
      /* the runtime's rules (runtime/tables.c), so that gnnc run and a compiled model accept the
       * same files: indices from 1 to 2^31 - 1, ascending on a line (a repeated index was the last
       * value here and an error there); the dense matrix's size is checked below */
      if (idx < 1 || idx > 2147483647) {
        snprintf(err, errlen, "%s:%ld: error: feature index %lld out of range (indices are 1-based)", path, r.lineno, (long long)idx);
        ok = false;
        break;
      }
      if (idx <= prev) {
        snprintf(err, errlen, "%s:%ld: error: feature index %lld after %lld (indices must ascend)", path, r.lineno, (long long)idx,
                 (long long)prev);
        ok = false;
        break;
      }
      prev = idx;
      char *end;
      double v = strtod(p, &end);
      if (end == p || (*end && !isspace((unsigned char)*end))) {
        char tok[32];
        snprintf(err, errlen, "%s:%ld: error: feature value '%s' for index %lld is not a number", path, r.lineno,
                 gnn_word_text(p, tok, sizeof tok), (long long)idx);
        ok = false;
        break;
      }
      if (!isfinite(v) || !isfinite((float)v)) { /* the runtime's float32 features: the same files refused */
        char tok[32];
        snprintf(err, errlen, "%s:%ld: error: feature value '%s' for index %lld is not finite in float32%s", path, r.lineno,
                 gnn_word_text(p, tok, sizeof tok), (long long)idx,
                 isfinite(v) ? " (its largest magnitude is 3.4e38)" : "");
        ok = false;
        break;
      }
      p = end;
      if (n == cap) es = realloc(es, sizeof(Entry) * (size_t)(cap *= 2));
      es[n++] = (Entry){rows, idx - 1, v};
      if (idx > maxcol) maxcol = idx;
    }
    rows++;
  }
  ok = reader_ok(&r, ok, err, errlen);
  if (ok && g->nv > 0 && rows != g->nv) {
    snprintf(err, errlen, "%s: error: %lld feature rows for a graph of %lld vertices", path, (long long)rows, (long long)g->nv);
    ok = false;
  }
  if (ok && rows == 0) {
    snprintf(err, errlen, "%s: error: no feature rows", path);
    ok = false;
  }
  if (ok && (double)rows * (double)maxcol > 4e9) {
    snprintf(err, errlen, "%s: error: %lld x %lld features are too many for the interpreter", path, (long long)rows, (long long)maxcol);
    ok = false;
  }
  reader_close(&r);
  if (ok) {
    double *x = calloc((size_t)(rows * maxcol), sizeof(double));
    for (int64_t i = 0; i < n; i++) x[es[i].row * maxcol + es[i].col] = es[i].v;
    free(g->features);
    g->features = x;
    g->nfeat = maxcol;
    if (g->nv == 0) g->nv = rows;
  }
  free(es);
  return ok;
}

/* Counting sort of the edge ids by key[e] (stable: file order within one key). False when
 * out of memory (a vertex count from --num-vertices or a large id). */
static bool bucket(int64_t nv, int64_t ne, const int64_t *key, int64_t **ptr_out, int64_t **eid_out) {
  int64_t *ptr = calloc((size_t)nv + 1, sizeof(int64_t));
  int64_t *eid = malloc(sizeof(int64_t) * (size_t)(ne ? ne : 1));
  int64_t *fill = malloc(sizeof(int64_t) * (size_t)(nv ? nv : 1));
  *ptr_out = ptr;
  *eid_out = eid;
  if (!ptr || !eid || !fill) {
    free(fill);
    return false;
  }
  for (int64_t e = 0; e < ne; e++) ptr[key[e] + 1]++;
  for (int64_t v = 0; v < nv; v++) ptr[v + 1] += ptr[v];
  memcpy(fill, ptr, sizeof(int64_t) * (size_t)nv);
  for (int64_t e = 0; e < ne; e++) eid[fill[key[e]]++] = e;
  free(fill);
  return true;
}

/* graph_ptr from graph_of; without graph_indicator.txt every vertex is in graph 0. */
static bool build_graph_ptr(Graph *g, char *err, size_t errlen) {
  if (!g->graph_of) {
    g->ng = 1;
    g->graph_of = calloc((size_t)(g->nv ? g->nv : 1), sizeof(int64_t));
  }
  free(g->graph_ptr);
  g->graph_ptr = calloc((size_t)g->ng + 1, sizeof(int64_t));
  if (!g->graph_of || !g->graph_ptr) {
    snprintf(err, errlen, "error: out of memory for the graph ids of %lld vertices", (long long)g->nv);
    return false;
  }
  for (int64_t v = 0; v < g->nv; v++) g->graph_ptr[g->graph_of[v] + 1]++;
  for (int64_t i = 0; i < g->ng; i++) g->graph_ptr[i + 1] += g->graph_ptr[i];
  return true;
}

/* Bytes per vertex of graph_build_csr's arrays: in_ptr and out_ptr, their fill counters, the
 * vertex's graph (8 each). */
enum { GRAPH_VERTEX_BYTES = 40 };

bool graph_build_csr(Graph *g, char *err, size_t errlen) {
  /* A vertex count from one large id (`0 2147483647`: 13 bytes) or --num-vertices: refused
   * before anything is allocated when the arrays would not fit (gnnrt_hostmem.h; the runtime's
   * builder checks the same), rather than killed while filling them. Small graphs skip it. */
  double need = ((double)g->nv + 1) * GRAPH_VERTEX_BYTES;
  if (need >= (double)(256u << 20)) {
    size_t avail = gnn_host_available();
    if (need > (double)avail) {
      snprintf(err, errlen, "error: a graph of %lld vertices (the largest id + 1, or --num-vertices) needs %.0f bytes (%.1f GiB) "
               "for its per-vertex arrays, more than the %zu bytes (%.1f GiB) of host memory this process can still take",
               (long long)g->nv, need, need / 1073741824.0, avail, avail / 1073741824.0);
      return false;
    }
  }
  free(g->in_ptr);
  free(g->in_eid);
  free(g->out_ptr);
  free(g->out_eid);
  free(g->csr_pos);
  g->out_ptr = g->out_eid = g->csr_pos = NULL;
  bool ok = bucket(g->nv, g->ne, g->dst, &g->in_ptr, &g->in_eid) && bucket(g->nv, g->ne, g->src, &g->out_ptr, &g->out_eid) &&
            (g->csr_pos = malloc(sizeof(int64_t) * (size_t)(g->ne ? g->ne : 1))) != NULL;
  if (!ok) {
    snprintf(err, errlen, "error: out of memory for a graph of %lld vertices and %lld edges", (long long)g->nv,
             (long long)g->ne);
    return false;
  }
  for (int64_t j = 0; j < g->ne; j++) g->csr_pos[g->in_eid[j]] = j;
  return build_graph_ptr(g, err, errlen);
}

bool graph_add_self_loops(Graph *g, char *err, size_t errlen) {
  bool *has = calloc((size_t)(g->nv ? g->nv : 1), sizeof(bool));
  if (!has) {
    snprintf(err, errlen, "error: out of memory adding self-loops");
    return false;
  }
  int64_t add = 0;
  for (int64_t e = 0; e < g->ne; e++)
    if (g->src[e] == g->dst[e]) has[g->src[e]] = true;
  for (int64_t v = 0; v < g->nv; v++) add += !has[v];
  int64_t *src = realloc(g->src, sizeof(int64_t) * (size_t)(g->ne + add + 1));
  if (src) g->src = src;
  int64_t *dst = src ? realloc(g->dst, sizeof(int64_t) * (size_t)(g->ne + add + 1)) : NULL;
  if (dst) g->dst = dst;
  double *vals = dst && g->edge_vals ? realloc(g->edge_vals, sizeof(double) * (size_t)((g->ne + add + 1) * g->edge_ncols))
                                     : NULL;
  if (vals) g->edge_vals = vals;
  if (!src || !dst || (g->edge_vals && !vals)) {
    free(has);
    snprintf(err, errlen, "error: out of memory adding self-loops");
    return false;
  }
  /* An added self-loop's edge values are 1 (a weight of 1, as PyG's add_self_loops fills). */
  for (int64_t v = 0; v < g->nv; v++)
    if (!has[v]) {
      for (int64_t k = 0; k < g->edge_ncols; k++) g->edge_vals[g->ne * g->edge_ncols + k] = 1;
      g->src[g->ne] = g->dst[g->ne] = v, g->ne++;
    }
  free(has);
  return graph_build_csr(g, err, errlen);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The formats gnn-run reads and the interpreter does not, told by their first bytes, so that a
 * user hears which format it is and where it is read rather than "'%%MatrixMarket' is not an
 * integer" from the edge-list parser. NULL: none of them (or not a regular file). */
typedef struct {
  const char *what, *where;
} ForeignFormat;

static const ForeignFormat *foreign_format(const char *path) {
  static const ForeignFormat mtx = {"a Matrix Market file", "gnn-run reads one named .mtx"},
                             gcsr = {"a binary CSR cache (.gcsr)", "gnn-run reads one named .gcsr"},
                             checkpoint = {"a training checkpoint (binary: gnn-train --checkpoint)", "gnn-train --resume reads one"},
                             gz = {"a gzip-compressed file", "gnn-run reads gzip-compressed edge lists"},
                             npz = {"a zip archive (an .npz)", "gnn-run and gnn-train read one as an OGB folder's raw/data.npz"};
  struct stat st; /* a regular file only: peeking at a pipe (--graph /dev/stdin, <(...)) would eat its first bytes */
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char b[14] = {0};
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  if (n >= 14 && memcmp(b, "%%MatrixMarket", 14) == 0) return &mtx;
  if (n >= 8 && memcmp(b, "GNNRTCSR", 8) == 0) return &gcsr;
  if (n >= 8 && memcmp(b, "GNNRTCKP", 8) == 0) return &checkpoint;
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return &gz;
  if (n >= 4 && memcmp(b, "PK\3\4", 4) == 0) return &npz;
  /* named as a cache but damaged (or another program's): gnn-run would refuse it for its magic,
   * and the edge-list parser would only say "NUL byte" */
  static const ForeignFormat named_gcsr = {"a file named .gcsr, a binary CSR cache (its first bytes are not the cache's "
                                           "\"GNNRTCSR\")", "gnn-run reads one named .gcsr"};
  size_t len = strlen(path); /* (binary: a NUL in its first bytes; a text edge list so named is read) */
  if (len >= 5 && strcmp(path + len - 5, ".gcsr") == 0 && memchr(b, 0, n)) return &named_gcsr;
  return NULL;
}

/* The line of row `row` (0-based, blank and comment lines not counted) of a text file, or 0 when
 * the file has no such row or cannot be read: gnn_text_line of the runtime, for a message. */
static int64_t row_line(const char *path, int64_t row) {
  Reader r;
  char err[16];
  if (!reader_open(&r, path, err, sizeof err)) return 0;
  int64_t n = 0, line = 0;
  while (!line && reader_next(&r))
    if (n++ == row) line = r.lineno;
  reader_close(&r);
  return line;
}

bool graph_load(Graph *g, const char *path, char *err, size_t errlen) {
  if (!is_dir(path)) {
    const ForeignFormat *foreign = foreign_format(path);
    if (foreign) {
      snprintf(err, errlen, "%s: error: %s: gnnc run reads a dataset folder or a plain edge list (docs/interpreter.md); %s",
               path, foreign->what, foreign->where);
      return false;
    }
    return graph_load_edges(g, path, 0, err, errlen) && graph_build_csr(g, err, errlen);
  }
  size_t n = strlen(path) + 32;
  char *f = malloc(n);
  bool ok = true;
  /* Labels and features first: they fix the vertex count that edge ids are checked against. The
   * features count their own rows, and two counts that differ name the shorter file first, in the
   * runtime's words (gnn_rows_disagree, runtime/gnnrt_text.h: gnn-run and gnn-train say the same). */
  snprintf(f, n, "%s/labels.txt", path);
  if (exists(f)) ok = graph_load_labels(g, f, err, errlen);
  int64_t nlabels = g->nv;
  snprintf(f, n, "%s/features.svm", path);
  if (ok && exists(f)) {
    g->nv = 0;
    ok = graph_load_features(g, f, err, errlen);
    if (ok && nlabels > 0 && g->nv != nlabels) {
      char labels[4096 + 16];
      snprintf(labels, sizeof labels, "%.4096s/labels.txt", path);
      int64_t rows = g->nv, line = nlabels < rows ? row_line(f, nlabels) : row_line(labels, rows);
      gnn_rows_disagree(err, errlen, labels, f, nlabels, rows, line);
      ok = false;
    }
    if (!ok) g->nv = nlabels;
  }
  snprintf(f, n, "%s/graph_indicator.txt", path);
  if (ok && exists(f)) ok = graph_load_graph_indicator(g, f, err, errlen);
  snprintf(f, n, "%s/graph.edges", path);
  if (ok && !exists(f)) {
    char ogb[64 + 4096];
    snprintf(ogb, sizeof ogb, "%.4096s/raw/edge.csv.gz", path);
    bool is_ogb = exists(ogb);
    snprintf(ogb, sizeof ogb, "%.4096s/raw/edge.csv", path);
    is_ogb |= exists(ogb);
    snprintf(ogb, sizeof ogb, "%.4096s/raw/data.npz", path);
    is_ogb |= exists(ogb);
    snprintf(err, errlen, "%s: error: no graph.edges in this folder%s", path,
             is_ogb ? " (it is laid out as an OGB download, which gnn-run and gnn-train read; gnnc run reads graph.edges, "
                      "features.svm, labels.txt)" : "");
    ok = false;
  }
  if (ok) ok = graph_load_edges(g, f, g->nv, err, errlen);
  free(f);
  if (ok) ok = graph_build_csr(g, err, errlen);
  return ok;
}

void graph_free(Graph *g) {
  free(g->src);
  free(g->dst);
  free(g->in_ptr);
  free(g->in_eid);
  free(g->out_ptr);
  free(g->out_eid);
  free(g->csr_pos);
  free(g->features);
  free(g->labels);
  free(g->edge_vals);
  free(g->graph_of);
  free(g->graph_ptr);
  memset(g, 0, sizeof *g);
}
