/* ogb.c -- OGB's node-property-prediction folders (ogbn-arxiv, ogbn-products, ...) as downloaded.
 *
 * The layout is the one ogb.nodeproppred.NodePropPredDataset reads (ogb/io/read_graph_raw.py):
 * CSV files without a header, gzip-compressed, in
 *   raw/edge.csv.gz           "src,dst" per edge, vertex ids 0-based
 *   raw/num-node-list.csv.gz  the vertex count (one line: OGB's node tasks have one graph)
 *   raw/num-edge-list.csv.gz  the edge count (checked against edge.csv.gz)
 *   raw/node-feat.csv.gz      optional: one row of D comma-separated numbers per vertex
 *   raw/node-label.csv.gz     optional: one integer label per vertex (-1 unknown; one task only)
 *   split/NAME/train.csv.gz, valid.csv.gz, test.csv.gz   optional: vertex ids, one per line,
 *                             under exactly one split scheme NAME (arxiv's "time", ...)
 * Each may also be there uncompressed (name.csv): RtReader inflates by content, not by name.
 * The edges keep the file's direction; OGB's add_inverse_edge (products, proteins) and the
 * usual symmetrisation of arxiv are the caller's symmetrise option, as for every other format.
 * raw/edge-feat.csv.gz and the additional node files of some datasets are not read.
 *
 * OGB's binary layout (ogbn-papers100M, too large for CSV) instead has raw/data.npz (the arrays
 * edge_index 2 x E, num_nodes_list, num_edges_list, optional node_feat N x D) and
 * raw/node-label.npz (node_label, N x 1, NaN where unknown), read through npz.c; a folder with
 * raw/edge.csv[.gz] is read as CSV, one with raw/data.npz only as binary, and each of features
 * and labels from its CSV file when there, else from the .npz. Labels of several tasks
 * (ogbn-proteins' 112 columns) are refused: the dataset has one class label per vertex.
 *
 * The graph is what is large (ogbn-products: 62 M edges), so it is cached: after a build it is
 * saved to processed/gnnc-graph-F.gcsr (F: the options' bits, so each set of options has its
 * own file; processed/ is where OGB keeps its own processed copy), stamped with the identity of
 * the files it was built from (edge.csv.gz, num-node-list.csv.gz, num-edge-list.csv.gz, or
 * data.npz: source_stamp), and a later load reads that file instead of edge.csv.gz while the
 * stamp is equal. A cache that does not check out (damaged, stale, an older version) is rebuilt;
 * one that cannot be written (a read-only folder) is simply not kept. The cache's path comes
 * from the dataset, not from the user, so nothing there is followed: a link, a FIFO or a folder
 * at it (or a processed/ that is a link) is not read, not written through and not replaced;
 * the graph is read from raw/ with a warning (gnn_last_warning). Features, labels and splits are
 * read from their CSV files at every load. Every file is checked at its line: a count that
 * disagrees with num-node-list, an id out of range, a row of the wrong width.
 */
#include "internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* folder/name.csv.gz, else folder/name.csv when only that exists; *path NULL when neither does. */
static gnn_status ogb_file(gnn_ctx *ctx, const char *folder, const char *name, char **path) {
  *path = NULL;
  size_t n = strlen(folder) + strlen(name) + 16;
  char *gz = (char *)rt_malloc(ctx, n, "a file name"), *plain = (char *)rt_malloc(ctx, n, "a file name");
  if (!gz || !plain) {
    free(gz);
    free(plain);
    return GNN_ERR_OOM;
  }
  snprintf(gz, n, "%s/%s.csv.gz", folder, name);
  snprintf(plain, n, "%s/%s.csv", folder, name);
  if (rt_exists(gz)) *path = gz, free(plain);
  else if (rt_exists(plain)) *path = plain, free(gz);
  else free(gz), free(plain);
  return GNN_OK;
}

/* A file of dir/raw: its path (*path NULL when it is not there). */
static gnn_status raw_file(gnn_ctx *ctx, const char *dir, const char *name, char **path) {
  *path = NULL;
  char *raw = rt_join(ctx, dir, "raw");
  gnn_status st = raw ? ogb_file(ctx, raw, name, path) : GNN_ERR_OOM;
  free(raw);
  return st;
}

/* A file that raw/ must have: its path, or GNN_ERR_IO naming the file the folder lacks. */
static gnn_status ogb_need(gnn_ctx *ctx, const char *dir, const char *name, char **path) {
  gnn_status st = raw_file(ctx, dir, name, path);
  if (!st && !*path)
    st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: no raw/%s.csv.gz in this OGB folder (it has raw/edge.csv.gz)", dir, name);
  return st;
}

/* dir/raw/NAME.npz (OGB's binary layout), or *path NULL when it is not there. */
static gnn_status raw_npz(gnn_ctx *ctx, const char *dir, const char *name, char **path) {
  size_t n = strlen(dir) + strlen(name) + 16;
  if (!(*path = (char *)rt_malloc(ctx, n, "a file name"))) return GNN_ERR_OOM;
  snprintf(*path, n, "%s/raw/%s.npz", dir, name);
  if (!rt_exists(*path)) free(*path), *path = NULL;
  return GNN_OK;
}

int rt_is_ogb_folder(const char *dir) {
  static const char *const names[] = {"/raw/edge.csv.gz", "/raw/edge.csv", "/raw/data.npz"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(dir) + strlen(names[i]) + 1;
    char *f = (char *)malloc(n);
    if (!f) return 0;
    snprintf(f, n, "%s%s", dir, names[i]);
    int e = rt_exists(f);
    free(f);
    if (e) return 1;
  }
  return 0;
}

/* num-node-list / num-edge-list: one count, 0 .. max (one line: one graph). */
static gnn_status read_count(gnn_ctx *ctx, const char *path, const char *what, int64_t max, int64_t *out) {
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, 0);
  if (st) return st;
  int64_t v = -1;
  char *p = rt_reader_next(ctx, &r, &st);
  if (!st && !p) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: empty file (want the %s)", path, what);
  if (!st) st = rt_int_field(ctx, &r, &p, what, 0, &v);
  if (!st && !rt_at_end(p))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: expected one number, the %s", path, r.lineno, what);
  if (!st && (v < 0 || v > max))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s %lld out of range (0 .. %lld)", path, r.lineno, what,
                       (long long)v, (long long)max);
  if (!st && rt_reader_next(ctx, &r, &st))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: a second graph: an OGB node-property folder holds one graph",
                       path, r.lineno);
  rt_reader_close(&r);
  if (!st) *out = v;
  return st;
}

/* The field at p (up to a comma or the line's end), cut to fit tok, for a message. */
static const char *field_text(const char *p, char *tok, size_t n) {
  size_t len = strcspn(p, ",\r\n");
  snprintf(tok, n, "%.*s", (int)(len < n - 1 ? len : n - 1), p);
  return tok;
}

/* A vertex id of edge.csv ending at `stop` (',' or the line's end): digits only, below nv.
 * Hand-parsed: this is the loop that runs 100 M times on a large graph. */
static gnn_status edge_id(gnn_ctx *ctx, RtReader *r, char **p, const char *what, char stop, int64_t nv, int64_t *out) {
  char *q = *p, tok[40];
  int64_t v = 0;
  int digits = 0;
  while (*q == ' ' || *q == '\t') q++;
  for (; isdigit((unsigned char)*q) && digits < 12; q++, digits++) v = v * 10 + (*q - '0');
  while (*q == ' ' || *q == '\t' || (*q == '\r' && q[1] == '\n')) q++;
  if (digits && *q == ',' && stop != ',')
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more than 2 columns (an edge row is 'src,dst')", r->path,
                         r->lineno);
  if (!digits || (*q != stop && *q != '\n' && *q)) {
    if (*q == stop && !digits) return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: missing %s", r->path, r->lineno, what);
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s '%s' is not a vertex id%s", r->path, r->lineno, what,
                         field_text(*p, tok, sizeof tok), **p == '-' ? " (ids are not negative)" : "");
  }
  if (v >= nv)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: vertex id %lld out of range (the graph has %lld vertices)",
                         r->path, r->lineno, (long long)v, (long long)nv);
  *p = q;
  *out = v;
  return GNN_OK;
}

/* edge.csv.gz into es: exactly ne rows "src,dst", ids below nv. The arrays are allocated at
 * their size at once (num-edge-list gives it), not grown by doubling. */
static gnn_status read_edges(gnn_ctx *ctx, const char *path, int64_t nv, int64_t ne, RtEdges *es) {
  size_t cap = ne ? (size_t)ne : 1;
  es->src = (int64_t *)malloc(rt_mul(cap, sizeof(int64_t)));
  es->dst = (int64_t *)malloc(rt_mul(cap, sizeof(int64_t)));
  es->origin = (int64_t *)malloc(rt_mul(cap, sizeof(int64_t)));
  if (!es->src || !es->dst || !es->origin)
    return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for %lld edges", path, (long long)ne);
  es->cap = (int64_t)cap;
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, 0);
  if (st) return st;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    int64_t s, d;
    if (es->n == ne) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more edges than the %lld of raw/num-edge-list.csv.gz", path,
                         r.lineno, (long long)ne);
      break;
    }
    if ((st = edge_id(ctx, &r, &p, "source vertex id", ',', nv, &s))) break;
    if (*p != ',') {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: 1 column (an edge row is 'src,dst')", path, r.lineno);
      break;
    }
    p++;
    if ((st = edge_id(ctx, &r, &p, "destination vertex id", '\n', nv, &d))) break;
    es->src[es->n] = s;
    es->dst[es->n] = d;
    es->origin[es->n] = es->n;
    es->n++;
  }
  rt_reader_close(&r);
  if (!st && es->n != ne)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %lld edges, raw/num-edge-list.csv.gz says %lld", path,
                       (long long)es->n, (long long)ne);
  return st;
}

/* ---------------------------------------------------------------- the binary layout (.npz)
 * raw/data.npz holds edge_index (2 x E), num_nodes_list and num_edges_list (one graph: one
 * element each) and optionally node_feat (N x D); raw/node-label.npz holds node_label (N or
 * N x 1; NaN where unknown). The splits stay CSV files under split/NAME. (ogb/io/read_graph_raw.py,
 * read_binary_graph_raw; ogbn-papers100M.) */

/* An array of one count (OGB's per-graph list, for one graph), 0 .. max. */
static gnn_status npz_count(gnn_ctx *ctx, RtNpz *z, const char *name, const char *what, int64_t max, int64_t *out) {
  RtNpy a;
  gnn_status st = rt_npz_array(ctx, z, name, &a);
  if (st) return st;
  if (a.count != 1)
    st = a.count > 1 ? gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %s holds %lld counts: an OGB node-property folder holds one graph",
                                     z->path, name, (long long)a.count)
                     : gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %s is empty (want the %s)", z->path, name, what);
  if (!st) st = rt_npy_read_i64(ctx, &a, out, 1);
  if (!st && (*out < 0 || *out > max))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %s: %s %lld out of range (0 .. %lld)", z->path, name, what,
                       (long long)*out, (long long)max);
  rt_npy_close(&a);
  return st;
}

/* edge_index (2 x ne, row 0 the sources, row 1 the destinations) into es, ids below nv. Read
 * straight into the edge arrays, a megabyte at a time. */
static gnn_status npz_edges(gnn_ctx *ctx, RtNpz *z, int64_t nv, int64_t ne, RtEdges *es) {
  RtNpy a;
  gnn_status st = rt_npz_array(ctx, z, "edge_index", &a);
  if (st) return st;
  if (a.rank != 2 || a.shape[0] != 2 || a.shape[1] != ne)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: edge_index has shape (%lld%s%lld%s): want (2, %lld), num_edges_list's count",
                       z->path, (long long)a.shape[0], a.rank > 1 ? ", " : "", a.rank > 1 ? (long long)a.shape[1] : 0LL,
                       a.rank > 2 ? ", ..." : "", (long long)ne);
  size_t cap = ne ? (size_t)ne : 1;
  if (!st) {
    es->src = (int64_t *)malloc(rt_mul(cap, sizeof(int64_t)));
    es->dst = (int64_t *)malloc(rt_mul(cap, sizeof(int64_t)));
    es->origin = (int64_t *)malloc(rt_mul(cap, sizeof(int64_t)));
    if (!es->src || !es->dst || !es->origin)
      st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for %lld edges", z->path, (long long)ne);
    else es->cap = (int64_t)cap;
  }
  if (!st) st = rt_npy_read_i64(ctx, &a, es->src, ne);
  if (!st) st = rt_npy_read_i64(ctx, &a, es->dst, ne);
  for (int64_t k = 0; !st && k < ne; k++) {
    int64_t *bad = es->src[k] < 0 || es->src[k] >= nv ? &es->src[k] : es->dst[k] < 0 || es->dst[k] >= nv ? &es->dst[k] : NULL;
    if (bad)
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: edge_index[%d][%lld] = %lld out of range (the graph has %lld vertices)",
                         z->path, bad == &es->dst[k], (long long)k, (long long)*bad, (long long)nv);
    es->origin[k] = k;
  }
  if (!st) es->n = ne;
  rt_npy_close(&a);
  return st;
}

/* node_feat (nv x D) of data.npz, when there: float32, every value finite. */
static gnn_status npz_features(gnn_ctx *ctx, const char *path, int64_t nv, gnn_dataset *ds) {
  RtNpz z;
  gnn_status st = rt_npz_open(ctx, path, &z);
  if (st) return st;
  if (!rt_npz_has(&z, "node_feat")) {
    ds->missing |= GNN_DATASET_NO_FEATURES;
    rt_npz_close(&z);
    return GNN_OK;
  }
  RtNpy a;
  float *x = NULL;
  st = rt_npz_array(ctx, &z, "node_feat", &a);
  if (!st && (a.rank != 2 || a.shape[0] != nv))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: node_feat has %d dimension%s (%lld rows): want %lld rows of features",
                       path, a.rank, a.rank == 1 ? "" : "s", a.rank ? (long long)a.shape[0] : 0LL, (long long)nv);
  if (!st && !(x = (float *)malloc(rt_mul((size_t)a.count ? (size_t)a.count : 1, sizeof(float)))))
    st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for %lld x %lld features", path, (long long)nv,
                       (long long)a.shape[1]);
  if (!st) st = rt_npy_read_f32(ctx, &a, x, a.count);
  for (int64_t i = 0; !st && i < a.count; i++)
    if (!isfinite(x[i]))
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: node_feat[%lld][%lld] is not finite%s", path,
                         (long long)(i / a.shape[1]), (long long)(i % a.shape[1]), a.kind == 'f' && a.esize == 8 ? " in float32" : "");
  if (!st) ds->features = x, ds->nfeat = a.shape[1];
  else free(x);
  rt_npy_close(&a);
  rt_npz_close(&z);
  return st;
}

/* node_label of raw/node-label.npz: nv labels (a column of one task), whole numbers, NaN (or
 * -1) unknown. Several tasks (ogbn-proteins' 112 columns) are not a class label: refused. */
static gnn_status npz_labels(gnn_ctx *ctx, const char *path, int64_t nv, gnn_dataset *ds) {
  RtNpz z;
  gnn_status st = rt_npz_open(ctx, path, &z);
  if (st) return st;
  RtNpy a;
  float *v = NULL;
  int32_t *lab = NULL;
  st = rt_npz_array(ctx, &z, "node_label", &a);
  if (!st && a.rank == 2 && a.shape[1] > 1)
    st = gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: node_label has %lld columns: several tasks per vertex (multi-label, "
                       "as ogbn-proteins) are not supported, one class label per vertex is", path, (long long)a.shape[1]);
  else if (!st && (a.rank < 1 || a.rank > 2 || a.shape[0] != nv))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: node_label holds %lld labels for a graph of %lld vertices", path,
                       (long long)a.count, (long long)nv);
  size_t n = nv ? (size_t)nv : 1;
  if (!st && (!(v = (float *)malloc(rt_mul(n, sizeof(float)))) || !(lab = (int32_t *)malloc(rt_mul(n, sizeof(int32_t))))))
    st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for %lld labels", path, (long long)nv);
  if (!st) st = rt_npy_read_f32(ctx, &a, v, nv);
  int top = -1;
  for (int64_t i = 0; !st && i < nv; i++) {
    if (isnan(v[i]) || v[i] == -1.0f) {
      lab[i] = -1;
    } else if (v[i] < 0 || v[i] > 1e6f || v[i] != floorf(v[i])) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: node_label[%lld] = %g is not a class (0, 1, ...; NaN or -1 unknown)", path,
                         (long long)i, (double)v[i]);
    } else {
      lab[i] = (int32_t)v[i];
      if (lab[i] > top) top = lab[i];
    }
  }
  if (!st) ds->labels = lab, ds->nclasses = top + 1;
  else free(lab);
  free(v);
  rt_npy_close(&a);
  rt_npz_close(&z);
  return st;
}

/* The identity of the files a graph is read from, hashed into the cache's sources field: for
 * each its size, modification time, status change time (ctime: set to the present by every write
 * and by nothing set back, so a file replaced with an old modification time, as unzip leaves it,
 * still differs) and inode (a file replaced by another). Compared for equality, never for
 * order: a cache with a modification time in the future (a tarball's, rsync -t's) hid every
 * later edit when it only had to be newer. A chmod or a copy of the folder costs one rebuild.
 * 0 when a file cannot be read: no cache is then used or kept. */
static uint64_t source_stamp(const char *const paths[], int n) {
  uint64_t h = RT_FNV_INIT;
  for (int i = 0; i < n; i++) {
    struct stat sb;
    if (!paths[i]) continue;
    if (stat(paths[i], &sb) != 0) return 0;
    int64_t id[6] = {(int64_t)sb.st_size, (int64_t)sb.st_mtim.tv_sec, (int64_t)sb.st_mtim.tv_nsec,
                     (int64_t)sb.st_ctim.tv_sec, (int64_t)sb.st_ctim.tv_nsec, (int64_t)sb.st_ino};
    h = rt_fnv1a(h, id, sizeof id);
  }
  return h ? h : 1;
}

/* dir/processed opened as a folder, never through a link (-1 when it is not usable: warned,
 * except when it is simply not there and create is 0). The cache's path comes from the
 * dataset, not from the user, so a processed/ that is a link (to /etc, to someone's home) is
 * neither read nor written: a write there would replace a file of that name wherever it
 * points. */
static int processed_folder(gnn_ctx *ctx, const char *dir, int create) {
  char *pdir = rt_join(ctx, dir, "processed");
  if (!pdir) return -1;
  int dfd = open(pdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0 && errno == ENOENT && create && (mkdir(pdir, 0755) == 0 || errno == EEXIST))
    dfd = open(pdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat sb;
  if (dfd < 0 && errno != ENOENT && errno != EACCES && errno != EROFS) {
    int link = lstat(pdir, &sb) == 0 && S_ISLNK(sb.st_mode);
    rt_warn(ctx, "%s: warning: %s: the graph cache is neither read nor written there; the graph is read from raw/", pdir,
            link ? "a symbolic link (a dataset's cache is never reached through one)" : "not a folder");
  }
  free(pdir);
  return dfd;
}

/* The cache entry `name` of the folder dfd, opened for reading: never through a link, never
 * blocking (a FIFO with no writer held fopen forever), and only a regular file. -1 when there is
 * none (*keep 1: a cache may be written there) or when something else is there (*keep 0:
 * warned, and left alone: a link, a FIFO, a folder is not ours to replace). */
static int cache_entry(gnn_ctx *ctx, int dfd, const char *name, const char *path, int *keep) {
  *keep = 1;
  int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return -1;
  struct stat sb;
  const char *what = NULL;
  char why[160];
  if (fd < 0) {
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
      what = "a symbolic link (a dataset's cache is never read or written through one)";
    else snprintf(why, sizeof why, "cannot open: %s", strerror(errno)), what = why;
  } else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    what = S_ISFIFO(sb.st_mode) ? "a FIFO, not a regular file" : S_ISDIR(sb.st_mode) ? "a folder, not a regular file"
                                                                                      : "not a regular file";
    close(fd);
    fd = -1;
  }
  if (what) {
    *keep = 0;
    rt_warn(ctx, "%s: warning: %s: not used as the graph cache, nor replaced; the graph is read from raw/ (remove it to "
            "keep a cache)", path, what);
  }
  return fd;
}

gnn_status rt_ogb_graph(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_graph **out) {
  char *edges = NULL, *nodes = NULL, *nedges = NULL, *cache = NULL;
  int64_t nv = 0, ne = 0;
  /* the CSV layout, else the binary one: raw/data.npz holds the counts and the edges (nodes
   * names it too) */
  RtNpz z = {0};
  gnn_status st = raw_file(ctx, dir, "edge", &edges);
  if (!st && !edges) {
    st = raw_npz(ctx, dir, "data", &edges);
    if (!st && !edges)
      st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: no raw/edge.csv.gz (nor raw/data.npz) in this OGB folder", dir);
    if (!st && !(nodes = strdup(edges))) st = gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory");
    if (!st) st = rt_npz_open(ctx, edges, &z);
    if (!st) st = npz_count(ctx, &z, "num_nodes_list", "vertex count", RT_MAX_ID + 1, &nv);
  } else {
    if (!st) st = ogb_need(ctx, dir, "num-node-list", &nodes);
    if (!st) st = read_count(ctx, nodes, "vertex count", RT_MAX_ID + 1, &nv);
    if (!st) st = ogb_need(ctx, dir, "num-edge-list", &nedges);
  }
  if (!st && nv == 0) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: empty graph (0 vertices)", nodes);
  if (!st && opts && opts->num_vertices && opts->num_vertices != nv)
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: num_vertices %lld disagrees with the folder's %lld vertices", nodes,
                       (long long)opts->num_vertices, (long long)nv);
  /* The cache, while the files it was built from are the same files (source_stamp: the edges,
   * the vertex and edge counts, or data.npz) and it holds the folder's vertex count. */
  char name[48];
  snprintf(name, sizeof name, "gnnc-graph-%u.gcsr", rt_opts_flags(opts));
  const char *const sources[] = {edges, z.f ? NULL : nodes, nedges};
  uint64_t stamp = st ? 0 : source_stamp(sources, 3);
  if (!st && !(cache = (char *)rt_malloc(ctx, strlen(dir) + sizeof name + 16, "a file name"))) st = GNN_ERR_OOM;
  if (!st) sprintf(cache, "%s/processed/%s", dir, name);
  int dfd = st || !stamp ? -1 : processed_folder(ctx, dir, 0), keep = 1, loaded = 0;
  int fd = dfd >= 0 ? cache_entry(ctx, dfd, name, cache, &keep) : -1;
  if (fd >= 0) {
    gnn_graph_opts want = opts ? *opts : (gnn_graph_opts){0};
    want.num_vertices = nv;
    st = rt_read_cache(ctx, fd, cache, &want, &stamp, out);
    /* Damaged, or not this folder's graph any more: rebuilt. Other failures (memory) stand. */
    if (st == GNN_ERR_FORMAT || st == GNN_ERR_INVALID || st == GNN_ERR_IO) st = GNN_OK;
    else loaded = !st;
  }
  if (!st && !loaded) {
    RtEdges es = {0};
    if (z.f) {
      st = npz_count(ctx, &z, "num_edges_list", "edge count", RT_MAX_ID, &ne);
      if (!st) st = npz_edges(ctx, &z, nv, ne, &es);
    } else {
      st = read_count(ctx, nedges, "edge count", RT_MAX_ID, &ne);
      if (!st) st = read_edges(ctx, edges, nv, ne, &es);
    }
    if (!st) st = rt_graph_build(ctx, &es, nv, opts, edges, out);
    rt_edges_free(&es);
    /* best effort: a folder that cannot hold the cache loads from the CSV each time */
    if (!st && stamp && keep && dfd < 0) dfd = processed_folder(ctx, dir, 1);
    if (!st && stamp && keep && dfd >= 0) (void)rt_save_cache_at(ctx, *out, dfd, name, cache, stamp);
  }
  if (dfd >= 0) close(dfd);
  if (z.f) rt_npz_close(&z);
  free(edges);
  free(nodes);
  free(nedges);
  free(cache);
  return st;
}

/* node-feat.csv.gz: nv rows of D comma-separated numbers, D fixed by the first row. */
static gnn_status read_features(gnn_ctx *ctx, const char *path, int64_t nv, float **out, int64_t *ncols) {
  RtReader r;
  gnn_status st = rt_reader_open(ctx, &r, path, 0);
  if (st) return st;
  float *x = NULL;
  int64_t d = -1, row = 0;
  char *p;
  while ((p = rt_reader_next(ctx, &r, &st))) {
    if (row == nv) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: more feature rows than the graph's %lld vertices", path,
                         r.lineno, (long long)nv);
      break;
    }
    if (d < 0) { /* the first row: its width is every row's */
      d = 1;
      for (const char *q = p; *q; q++) d += *q == ',';
      size_t cells = rt_mul((size_t)nv, (size_t)d);
      if (!(x = cells < SIZE_MAX / sizeof(float) ? (float *)malloc(cells * sizeof(float)) : NULL)) {
        st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for %lld x %lld features", path,
                           (long long)nv, (long long)d);
        break;
      }
    }
    float *xr = x + row * d;
    int64_t k = 0;
    for (;;) {
      char *end;
      rt_skip_space(&p);
      double v = strtod(p, &end);
      char *after = end;
      rt_skip_space(&after);
      if (end == p || (*after != ',' && !rt_at_end(after))) {
        char tok[32];
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: feature %lld '%s' is not a number", path, r.lineno,
                           (long long)k + 1, field_text(p, tok, sizeof tok));
        break;
      }
      if (!isfinite(v) || !isfinite((float)v)) { /* the text as written, as rt_real_field quotes it */
        char tok[32];
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: feature %lld '%s' is not finite in float32%s", path, r.lineno,
                           (long long)k + 1, field_text(p, tok, sizeof tok), isfinite(v) ? " (its largest magnitude is 3.4e38)" : "");
        break;
      }
      if (k < d) xr[k] = (float)v;
      k++;
      if (*after != ',') break;
      p = after + 1;
    }
    if (st) break;
    if (k != d) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %lld feature%s on this row, the first row has %lld", path,
                         r.lineno, (long long)k, k == 1 ? "" : "s", (long long)d);
      break;
    }
    row++;
  }
  rt_reader_close(&r);
  if (!st && row != nv)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %lld feature rows for a graph of %lld vertices", path, (long long)row,
                       (long long)nv);
  if (st) {
    free(x);
    return st;
  }
  *out = x;
  *ncols = d;
  return GNN_OK;
}

/* The one folder under dir/split (*sub NULL when there is no split/). */
static gnn_status split_scheme(gnn_ctx *ctx, const char *dir, char **sub) {
  *sub = NULL;
  char *sdir = rt_join(ctx, dir, "split");
  if (!sdir) return GNN_ERR_OOM;
  gnn_status st = GNN_OK;
  DIR *dp = rt_is_dir(sdir) ? opendir(sdir) : NULL;
  if (rt_is_dir(sdir) && !dp) st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot open: %s", sdir, strerror(errno));
  char first[256] = "";
  int count = 0;
  for (struct dirent *e; dp && (e = readdir(dp));) {
    if (e->d_name[0] == '.') continue;
    char *f = rt_join(ctx, sdir, e->d_name);
    if (!f) {
      st = GNN_ERR_OOM;
      break;
    }
    if (rt_is_dir(f)) {
      if (!count++) snprintf(first, sizeof first, "%s", e->d_name);
      else if (!st)
        st = gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: split schemes '%s' and '%s': keep the one to train with",
                           sdir, first, e->d_name);
    }
    free(f);
  }
  if (dp) closedir(dp);
  if (!st && count == 1 && !(*sub = rt_join(ctx, sdir, first))) st = GNN_ERR_OOM;
  free(sdir);
  return st;
}

/* split/NAME/{train,valid,test}.csv[.gz] into ds's masks; a missing one sets its bit. */
static gnn_status read_splits(gnn_ctx *ctx, const char *dir, gnn_dataset *ds) {
  static const char *const names[] = {"train", "valid", "test"};
  static const unsigned bits[] = {GNN_DATASET_NO_TRAIN, GNN_DATASET_NO_VAL, GNN_DATASET_NO_TEST};
  uint8_t **masks[] = {&ds->train_mask, &ds->val_mask, &ds->test_mask};
  int64_t *counts[] = {&ds->ntrain, &ds->nval, &ds->ntest};
  char *sub = NULL;
  gnn_status st = split_scheme(ctx, dir, &sub);
  for (int i = 0; i < 3 && !st; i++) {
    char *f = NULL;
    if (sub && (st = ogb_file(ctx, sub, names[i], &f))) break;
    if (f) st = rt_dataset_split(ctx, ds, sub, strrchr(f, '/') + 1, bits[i], masks[i], counts[i]);
    else ds->missing |= bits[i];
    free(f);
  }
  free(sub);
  return st;
}

gnn_status rt_ogb_dataset(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_dataset *ds) {
  char *feat = NULL, *label = NULL, *npz = NULL;
  gnn_status st = rt_ogb_graph(ctx, dir, opts, &ds->graph);
  if (!st) {
    ds->nv = ds->nrows = ds->graph->nv;
    st = raw_file(ctx, dir, "node-feat", &feat);
  }
  /* each file in the CSV layout, else in the binary one (data.npz's node_feat, node-label.npz) */
  if (!st && !feat) st = raw_npz(ctx, dir, "data", &npz);
  if (!st && feat) st = read_features(ctx, feat, ds->nv, &ds->features, &ds->nfeat);
  else if (!st && npz) st = npz_features(ctx, npz, ds->nv, ds);
  else if (!st) ds->missing |= GNN_DATASET_NO_FEATURES;
  free(npz);
  npz = NULL;
  if (!st) st = raw_file(ctx, dir, "node-label", &label);
  if (!st && !label) st = raw_npz(ctx, dir, "node-label", &npz);
  if (!st && label) st = gnn_labels_load(ctx, label, ds->nv, &ds->labels, NULL, &ds->nclasses);
  else if (!st && npz) st = npz_labels(ctx, npz, ds->nv, ds);
  else if (!st) ds->missing |= GNN_DATASET_NO_LABELS;
  if (!st) st = read_splits(ctx, dir, ds);
  free(feat);
  free(label);
  free(npz);
  return st;
}
