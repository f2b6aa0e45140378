/* cache.c -- the binary graph cache (.gcsr): a graph after its options, ready to upload.
 *
 * Layout (little-endian; docs/runtime.md has the table):
 *   0  char     magic[8]   "GNNRTCSR"
 *   8  uint32   version    2 when sources is set, else 1 (the two layouts are one: version 1's
 *                          sources was a reserved 0)
 *   12 uint32   byte_order 0x01020304 as written by the saving machine
 *   16 uint32   flags      the options the graph was built with (RT_OPT_* bits)
 *   20 uint32   reserved   0
 *   24 int64    nv
 *   32 int64    ne
 *   40 uint64   checksum   over everything after the header (see checksum())
 *   48 uint64   input_edges  0, or the graph's num_input_edges when it is more than its
 *                             largest origin + 1 (its source's last edges dropped by the options)
 *   56 uint64   sources    0, or a hash of the identity of the files the graph was read from
 *                          (an OGB folder's: ogb.c), so that a later load can tell by equality
 *                          whether they are still the files it was built from
 *   64 int64    in_ptr[nv + 1]
 *      int32    src[ne], then 4 zero bytes if ne is odd
 *      int64    edge_origin[ne]
 * Only what cannot be recomputed is stored: dst comes from in_ptr, CSC and degrees from src;
 * num_input_edges is the largest origin + 1 unless input_edges says more. input_edges was a
 * reserved 0 in the first caches, which therefore load as before; it is 0 in every cache but
 * those of graphs whose last input edges the options dropped, so only those are refused (a
 * reserved field not zero) by a runtime older than the field.
 * Only a stamped cache (an OGB folder's) is written as version 2, so a cache written by
 * gnn_graph_save_cache still loads in a runtime (or bench/peer_pyg.py) that reads version 1.
 * Loading trusts nothing: the size must match the header exactly before anything is
 * allocated, the checksum must match, and the arrays must form a CSR (in_ptr from 0 to ne,
 * never decreasing; ids in range; origin -1 only on self-loops), so a truncated or corrupted
 * file is an error, never an out-of-bounds access.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAGIC "GNNRTCSR"
#define CACHE_VERSION 2u /* the newest this runtime reads and writes; it reads version 1 too */
#define CACHE_BYTE_ORDER 0x01020304u
#define CACHE_HEADER 64

typedef struct {
  char magic[8];
  uint32_t version, byte_order, flags, reserved0;
  int64_t nv, ne;
  uint64_t checksum, input_edges, sources;
} CacheHeader;

_Static_assert(sizeof(CacheHeader) == CACHE_HEADER, "the cache header is 64 bytes");

/* A hash of 32-bit words (FNV-1a's constants, a word at a time): every array in the file is a
 * whole number of words, so the sum does not depend on how the bytes are split. */
static uint64_t checksum(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i + 4 <= bytes; i += 4) {
    uint32_t w;
    memcpy(&w, p + i, 4);
    h = (h ^ w) * 1099511628211ull;
  }
  return h;
}
#define CHECKSUM_INIT 1469598103934665603ull

/* Checks that g can be cached, makes its host copies and fills the header. */
static gnn_status cache_header(gnn_ctx *ctx, const gnn_graph *g, const char *path, uint64_t sources, CacheHeader *h) {
  if (g->ng > 1)
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: the .gcsr cache holds one graph, not a batch of %lld: load the "
                         "folder (graph_indicator.txt) instead", path, (long long)g->ng);
  if (g->edge_ncols)
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: the .gcsr cache holds the graph's structure, not the %lld "
                         "value%s of each edge: load the edge list or Matrix Market file instead", path,
                         (long long)g->edge_ncols, g->edge_ncols == 1 ? "" : "s");
  /* a graph built on the device (gnn_graph_from_csr) has no host copies yet: they are what is written */
  gnn_status st = gnn_graph_host_copies(ctx, (gnn_graph *)g);
  if (st) return st;
  size_t nptr = (size_t)g->nv + 1, ne = (size_t)g->ne;
  static const uint32_t zero = 0;
  memset(h, 0, sizeof *h);
  memcpy(h->magic, CACHE_MAGIC, 8);
  h->version = sources ? CACHE_VERSION : 1u;
  h->byte_order = CACHE_BYTE_ORDER;
  h->flags = ((const RtGraph *)g)->flags;
  h->nv = g->nv;
  h->ne = g->ne;
  h->sources = sources;
  int64_t implied = 0; /* what a loader infers without input_edges */
  for (size_t e = 0; e < ne; e++)
    if (g->edge_origin[e] >= implied) implied = g->edge_origin[e] + 1;
  h->input_edges = g->num_input_edges > implied ? (uint64_t)g->num_input_edges : 0;
  uint64_t c = checksum(CHECKSUM_INIT, g->h_in_ptr, nptr * 8);
  c = checksum(c, g->h_src, ne * 4);
  if (ne % 2) c = checksum(c, &zero, 4);
  h->checksum = checksum(c, g->edge_origin, ne * 8);
  return GNN_OK;
}

/* Header and arrays to f (its errors are the caller's to report). */
static int write_arrays(FILE *f, const CacheHeader *h, const gnn_graph *g) {
  static const uint32_t zero = 0;
  size_t nptr = (size_t)g->nv + 1, ne = (size_t)g->ne;
  return fwrite(h, sizeof *h, 1, f) == 1 && fwrite(g->h_in_ptr, 8, nptr, f) == nptr &&
         (ne == 0 || fwrite(g->h_src, 4, ne, f) == ne) && (ne % 2 == 0 || fwrite(&zero, 4, 1, f) == 1) &&
         (ne == 0 || fwrite(g->edge_origin, 8, ne, f) == ne);
}

/* Writes header and arrays to a temporary file beside path, then renames it into place. */
gnn_status gnn_graph_save_cache(gnn_ctx *ctx, const gnn_graph *g, const char *path) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!g || !path) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_graph_save_cache: no graph or no path");
  gnn_status st = rt_check_graph(ctx, g, "gnn_graph_save_cache");
  if (st) return st;
  CacheHeader h;
  st = cache_header(ctx, g, path, 0, &h);
  if (st) return st;
  FILE *f;
  char *tmp;
  if ((st = rt_tmp_open(ctx, path, &f, &tmp))) return st;
  if (!write_arrays(f, &h, g)) st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: write failed: %s", path, strerror(errno));
  return rt_tmp_commit(ctx, f, tmp, path, st);
}

/* The cache of a dataset folder: name in the folder dfd, never through a link. The path there
 * comes from the dataset, not from the user, so nothing at it is followed or written into: the
 * temporary is created new (O_CREAT | O_EXCL | O_NOFOLLOW) in dfd itself, and renameat replaces
 * the folder's entry (a link planted at name is replaced, the file it names untouched). path
 * names the cache in messages. */
gnn_status rt_save_cache_at(gnn_ctx *ctx, const gnn_graph *g, int dfd, const char *name, const char *path, uint64_t sources) {
  CacheHeader h;
  gnn_status st = cache_header(ctx, g, path, sources, &h);
  if (st) return st;
  char tmp[256];
  int fd = -1;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t r = rt_fnv1a(RT_FNV_INIT, &now, sizeof now) ^ (uint64_t)getpid();
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    if (snprintf(tmp, sizeof tmp, "%s.%06llx", name, (unsigned long long)(r >> 40)) >= (int)sizeof tmp)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the file name is too long", path);
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, strerror(errno));
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, strerror(errno));
    close(fd);
    unlinkat(dfd, tmp, 0);
    return st;
  }
  int ok = write_arrays(f, &h, g) && fflush(f) == 0 && fsync(fd) == 0;
  int err = errno;
  if (fclose(f) != 0 && ok) ok = 0, err = errno;
  if (ok && renameat(dfd, tmp, dfd, name) != 0) ok = 0, err = errno;
  if (!ok) {
    unlinkat(dfd, tmp, 0);
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: write failed: %s", path, strerror(err));
  }
  (void)fsync(dfd); /* the rename itself, best effort */
  return GNN_OK;
}

/* Reads n bytes or reports the file as truncated. */
static gnn_status read_exact(gnn_ctx *ctx, FILE *f, void *p, size_t n, const char *path, const char *what) {
  if (n && fread(p, 1, n, f) != n)
    return gnn_set_error(ctx, ferror(f) ? GNN_ERR_IO : GNN_ERR_FORMAT, "%s: error: %s while reading %s", path,
                         ferror(f) ? "read failed" : "truncated file", what);
  return GNN_OK;
}

/* Checks the header against the file's size and the requested options. */
static gnn_status check_header(gnn_ctx *ctx, const CacheHeader *h, uint64_t size, const gnn_graph_opts *opts,
                               const char *path) {
  if (memcmp(h->magic, CACHE_MAGIC, 8) != 0)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: not a graph cache (bad magic; expected \"%s\")", path, CACHE_MAGIC);
  if (h->byte_order != CACHE_BYTE_ORDER)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: the cache was written with the other byte order", path);
  if (h->version < 1 || h->version > CACHE_VERSION)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: cache version %u; this runtime reads versions 1 to %u", path,
                         (unsigned)h->version, CACHE_VERSION);
  if (h->reserved0 || (h->version == 1 && h->sources) || (h->flags & ~15u) || h->input_edges > (uint64_t)INT64_MAX)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted header (reserved fields are not zero, or input_edges "
                         "out of range)", path);
  if (h->nv < 1 || h->nv > RT_MAX_ID + 1 || h->ne < 0 || h->ne > RT_MAX_ID)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted header (%lld vertices, %lld edges)", path,
                         (long long)h->nv, (long long)h->ne);
  uint64_t want = CACHE_HEADER + 8 * ((uint64_t)h->nv + 1) + 4 * (uint64_t)h->ne + 4 * ((uint64_t)h->ne % 2) +
                  8 * (uint64_t)h->ne;
  if (size != want)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %s: %llu bytes, the header announces %llu", path,
                         size < want ? "truncated file" : "trailing bytes", (unsigned long long)size,
                         (unsigned long long)want);
  if (opts && rt_opts_flags(opts) != h->flags)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the cache was built with options (add_self_loops=%d "
                         "remove_self_loops=%d dedup=%d symmetrise=%d), other than those requested; pass NULL options "
                         "or rebuild it", path, !!(h->flags & RT_OPT_ADD_SELF_LOOPS),
                         !!(h->flags & RT_OPT_REMOVE_SELF_LOOPS), !!(h->flags & RT_OPT_DEDUP), !!(h->flags & RT_OPT_SYMMETRISE));
  if (opts && opts->num_vertices && opts->num_vertices != h->nv)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: num_vertices %lld disagrees with the cache's %lld vertices",
                         path, (long long)opts->num_vertices, (long long)h->nv);
  return GNN_OK;
}

/* The CSR must be well formed before anything indexes with it. */
static gnn_status check_arrays(gnn_ctx *ctx, const CacheHeader *h, const int64_t *in_ptr, const int32_t *src,
                               const int64_t *origin, const char *path) {
  int64_t nv = h->nv, ne = h->ne;
  if (in_ptr[0] != 0 || in_ptr[nv] != ne)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted CSR (in_ptr runs from %lld to %lld, not 0 to %lld)",
                         path, (long long)in_ptr[0], (long long)in_ptr[nv], (long long)ne);
  for (int64_t v = 0; v < nv; v++)
    if (in_ptr[v + 1] < in_ptr[v])
      return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted CSR (in_ptr decreases at vertex %lld)", path,
                           (long long)v);
  for (int64_t v = 0; v < nv; v++)
    for (int64_t e = in_ptr[v]; e < in_ptr[v + 1]; e++) {
      if (src[e] < 0 || src[e] >= nv)
        return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted CSR (edge %lld has source %d of %lld vertices)",
                             path, (long long)e, (int)src[e], (long long)nv);
      if (origin[e] < -1 || (origin[e] == -1 && src[e] != v))
        return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted edge_origin (edge %lld)", path, (long long)e);
    }
  return GNN_OK;
}

/* Loads a .gcsr: opened without blocking (a FIFO with no writer would hold open() forever),
 * then refused unless a regular file. */
gnn_status rt_load_cache(gnn_ctx *ctx, const char *path, const gnn_graph_opts *opts, gnn_graph **out) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot open: %s", path, strerror(errno));
  return rt_read_cache(ctx, fd, path, opts, NULL, out);
}

/* Reads the .gcsr open at fd: size, header, checksum and structure are checked before any use. */
gnn_status rt_read_cache(gnn_ctx *ctx, int fd, const char *path, const gnn_graph_opts *opts, const uint64_t *sources,
                         gnn_graph **out) {
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: not a regular file", path);
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: cannot open: %s", path, strerror(errno));
  }
  CacheHeader h;
  int64_t *in_ptr = NULL, *origin = NULL;
  int32_t *src = NULL;
  gnn_status st = GNN_OK;
  if ((uint64_t)sb.st_size < CACHE_HEADER) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: truncated file: %lld bytes, shorter than the %d-byte header",
                       path, (long long)sb.st_size, CACHE_HEADER);
    goto fail;
  }
  if ((st = read_exact(ctx, f, &h, sizeof h, path, "the header"))) goto fail;
  if ((st = check_header(ctx, &h, (uint64_t)sb.st_size, opts, path))) goto fail;
  if (sources && h.sources != *sources) { /* before anything is allocated: a stale cache costs one header */
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the cache was built from other source files", path);
    goto fail;
  }
  size_t nptr = (size_t)h.nv + 1, ne = (size_t)h.ne;
  in_ptr = (int64_t *)rt_garray_alloc(ctx, nptr * 8, "in_ptr");
  src = (int32_t *)rt_garray_alloc(ctx, ne * 4, "src");
  origin = (int64_t *)rt_malloc(ctx, ne * 8, "edge_origin");
  if (!in_ptr || !src || !origin) {
    st = GNN_ERR_OOM;
    goto fail;
  }
  uint32_t pad = 0;
  if ((st = read_exact(ctx, f, in_ptr, nptr * 8, path, "in_ptr")) || (st = read_exact(ctx, f, src, ne * 4, path, "src")) ||
      (st = read_exact(ctx, f, &pad, (ne % 2) * 4, path, "padding")) ||
      (st = read_exact(ctx, f, origin, ne * 8, path, "edge_origin")))
    goto fail;
  uint64_t c = checksum(CHECKSUM_INIT, in_ptr, nptr * 8);
  c = checksum(c, src, ne * 4);
  c = checksum(c, &pad, (ne % 2) * 4);
  c = checksum(c, origin, ne * 8);
  if (c != h.checksum) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: checksum mismatch: the cache is corrupted", path);
    goto fail;
  }
  if ((st = check_arrays(ctx, &h, in_ptr, src, origin, path))) goto fail;
  int64_t implied = 0;
  for (size_t e = 0; e < ne; e++)
    if (origin[e] >= implied) implied = origin[e] + 1;
  if (h.input_edges && (int64_t)h.input_edges <= implied) {
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted header (input_edges %llu, but an edge comes from input edge "
                       "%lld)", path, (unsigned long long)h.input_edges, (long long)implied - 1);
    goto fail;
  }
  fclose(f);
  st = rt_graph_from_csr(ctx, h.nv, h.ne, in_ptr, src, origin, h.flags, out);
  if (!st && h.input_edges) (*out)->num_input_edges = (int64_t)h.input_edges;
  return st;
fail:
  fclose(f);
  rt_garray_free(ctx, in_ptr);
  rt_garray_free(ctx, src);
  free(origin);
  return st;
}
