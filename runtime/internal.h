/* internal.h -- what the runtime's files share and the public header does not show.
 *
 * The runtime is one set of C files built twice: with GNNRT_CUDA (libgnnrt: device memory,
 * cuBLAS, CUDA kernels in train_cuda.cu) and without (libgnnrt_host: host memory, OpenBLAS,
 * OpenMP loops in train_host.c). Only device_*.c, train_*.c and nvrtc.c differ between the
 * two; the loaders, the parameter code and the error machinery are shared and reach memory
 * through gnn_malloc / gnn_upload. This header is included by C and by CUDA C++ (train_cuda.cu),
 * so it sticks to the common subset of the two languages.
 *
 * The context's allocation table maps each live pointer from gnn_malloc to its size: it is
 * what makes the live/peak counters exact, lets gnn_free reject foreign pointers, and lets
 * gnn_ctx_destroy free what was left. Open addressing with linear probing, deletion by
 * backward shift (no tombstones).
 */
#ifndef GNNRT_INTERNAL_H
#define GNNRT_INTERNAL_H

#include "gnnrt.h"

#include <stdio.h>
#ifdef GNNRT_CUDA
/* cusparse.h declares its deprecated legacy API with attributes that warn in its own header under
 * gcc's -Wall; the generic API used here (spmm_cuda.cu) is not deprecated */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define RT_ERRMAX 1024

typedef struct {
  void *p;
  size_t bytes;
} RtAlloc;

typedef struct RtProfRow RtProfRow; /* profile.c */
struct gnn_ctx {
  gnn_status failed; /* not GNN_OK: creation failed, the context only holds the message */
  int prof_state;      /* GNN_PROFILE: 0 not read yet, 1 on, -1 off (profile.c) */
  double prof_t;       /* the last mark or step */
  RtProfRow *prof_rows;
  size_t prof_n, prof_cap;
  int device;
  char err[RT_ERRMAX];
  char warn[RT_ERRMAX]; /* gnn_last_warning: the most recent rt_warn */
  size_t live, peak;
  size_t limit;    /* gnn_set_memory_limit / GNN_MEMORY_LIMIT: live may not pass it (0: no limit) */
  RtAlloc *allocs; /* the allocation table: cap slots, a power of two; p == NULL is empty */
  size_t nallocs, cap;
#ifdef GNNRT_CUDA
  cudaStream_t stream;
  cublasHandle_t cublas;
  cusparseHandle_t cusparse; /* gnn_spmm's (spmm_cuda.cu), made by its first call */
  void *scratch; /* the training helpers' device scratch (in the allocation table too) */
  size_t scratch_bytes;
  int no_pools; /* the device has no stream-ordered allocator: cudaMalloc/cudaFree instead */
#endif
};

/* spmm.c: gnn_spmm's checks of its arguments, both builds (GNN_ERR_INVALID with a message). */
gnn_status rt_spmm_args(gnn_ctx *ctx, const gnn_graph *g, int dir, const float *x, const float *w, float *y, int64_t width);

/* profile.c: prints the GNN_PROFILE table to stderr and frees it (gnn_ctx_destroy) */
void rt_profile_report(gnn_ctx *ctx);

/* core.c */
/* Reads a whole file into a malloc'd buffer with a NUL after it (*len bytes; NULs inside
 * allowed unless text: then GNN_ERR_FORMAT "NUL byte in a text file" at the first one); GNN_ERR_IO
 * "PATH: error: cannot open: ..." (params.c). */
gnn_status rt_slurp(gnn_ctx *ctx, const char *path, int text, char **out, size_t *len);
/* Reads GNN_MEMORY_LIMIT into ctx->limit (both builds' gnn_ctx_create); GNN_ERR_INVALID with a
 * message for a value that is not a byte count. */
gnn_status rt_limit_from_env(gnn_ctx *ctx);
/* GNN_ERR_OOM (message from fn) when allocating bytes more would take live past the limit. */
gnn_status rt_limit_check(gnn_ctx *ctx, size_t bytes, const char *fn);
/* device_host.c / device_cuda.c: the bytes the device could still allocate (SIZE_MAX unknown). */
size_t rt_device_available(gnn_ctx *ctx);
/* Host memory the process can still take: MemAvailable, the cgroup's room, the address space
 * left under RLIMIT_AS (SIZE_MAX unknown); libgnnrt_host's rt_device_available. */
size_t rt_host_available(void);
/* GNN_OK when ctx can be used; GNN_ERR_INVALID for NULL or a failed context. */
gnn_status rt_check_ctx(const gnn_ctx *ctx);
/* The check an entry point starts with: a usable context, then `ok`, else GNN_ERR_INVALID with
 * the message "FN: WHAT" (a failed context keeps its creation message). */
gnn_status rt_args(gnn_ctx *ctx, int ok, const char *fn, const char *what);
gnn_status rt_track_add(gnn_ctx *ctx, void *p, size_t bytes);
/* Removes p from the table; 0 when p is not there. */
int rt_track_remove(gnn_ctx *ctx, void *p, size_t *bytes);
void rt_track_free_table(gnn_ctx *ctx);
/* GNN_ERR_INVALID ("FN: N bytes at offset K run past the end of a S-byte allocation") when p
 * lies inside one of ctx's allocations and p + bytes goes past its end, or when p lies outside
 * them all and the span runs into one; GNN_OK otherwise (a span that touches no allocation, one
 * that starts exactly at an allocation's end included). */
gnn_status rt_check_span(gnn_ctx *ctx, const void *p, size_t bytes, const char *fn);
/* Stores a one-line warning for gnn_last_warning (a call that succeeds by working around
 * something the caller should hear of), replacing the previous one (one a load, core.c). */
void rt_warn(gnn_ctx *ctx, const char *fmt, ...) GNN_PRINTF(2, 3);
/* rt_check_span for a rows x cols matrix of elem-byte elements, row stride ld (cols for a dense
 * array), with the products checked for overflow; the message starts "FN: WHAT: ". */
gnn_status rt_check_array(gnn_ctx *ctx, const char *fn, const char *what, const void *p, int64_t rows, int64_t cols,
                          int64_t ld, size_t elem);
/* The operand spans of gnn_sgemm, of gnn_softmax_xent / gnn_accuracy, and of the optimiser
 * steps (core.c), shared by both builds. */
gnn_status rt_sgemm_spans(gnn_ctx *ctx, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *A,
                          int64_t lda, const float *B, int64_t ldb, const float *C, int64_t ldc);
gnn_status rt_rows_spans(gnn_ctx *ctx, const char *fn, const float *logits, const int32_t *labels, const uint8_t *mask,
                         const float *dlogits, int64_t n, int64_t C);
gnn_status rt_step_spans(gnn_ctx *ctx, const char *fn, int64_t n, const float *param, const float *grad, const float *m,
                         const float *v);
/* malloc/calloc that report GNN_ERR_OOM through ctx with what was being allocated. */
void *rt_malloc(gnn_ctx *ctx, size_t bytes, const char *what);
void *rt_calloc(gnn_ctx *ctx, size_t n, size_t size, const char *what);
/* a * b, or SIZE_MAX on overflow (malloc of SIZE_MAX fails). */
size_t rt_mul(size_t a, size_t b);
/* FNV-1a, 64 bits, over bytes, continuing from h (start with RT_FNV_INIT): the checksum of the
 * tensor text files (params.c) and of training checkpoints (checkpoint.c). */
#define RT_FNV_INIT 1469598103934665603ull
uint64_t rt_fnv1a(uint64_t h, const void *data, size_t bytes);
/* Frees memory that gnn_ctx_destroy still finds in the table (backend-specific). */
void rt_device_free_raw(gnn_ctx *ctx, void *p);

/* text.c: line-by-line reading of the text formats with line numbers for messages. */
typedef struct {
  FILE *f;
  const char *path;
  char *line;
  size_t cap;
  long lineno;
  char comment; /* lines starting with this (after blanks) are skipped; 0 = none */
  /* A gzip file (found by its magic bytes): f is NULL, gz is zlib's gzFile, and lines come out
   * of gzbuf (gzlen inflated bytes, gzpos read). */
  void *gz;
  char *gzbuf;
  size_t gzpos, gzlen;
  int gzeof;
} RtReader;
#define RT_GZ_CHUNK (256 * 1024)

gnn_status rt_reader_open(gnn_ctx *ctx, RtReader *r, const char *path, char comment);
/* The next line that is not blank or a comment, with leading blanks skipped; NULL at the end
 * of the file or on a read error (then *st is GNN_ERR_IO with the message set) or a malformed
 * line (GNN_ERR_FORMAT: a NUL byte; a carriage return not followed by LF, comments included; a
 * vertical tab or form feed outside a comment). Lines end with LF or CRLF; fields are separated
 * by spaces and tabs. */
char *rt_reader_next(gnn_ctx *ctx, RtReader *r, gnn_status *st);
/* The runtime's own binary files told by their first n bytes, for a text reader that meets one
 * ("this is a training checkpoint ..., not a text file" rather than "NUL byte"); NULL: neither. */
const char *rt_binary_kind(const char *bytes, size_t n);
void rt_reader_close(RtReader *r);
void rt_skip_space(char **p);
int rt_at_end(const char *p);
/* A base-10 integer field ending at a blank, the end of the line or `stop` (0 = none):
 * "FILE:LINE: error: missing WHAT (line ends early)", "WHAT 'x1' is not an integer",
 * "WHAT is out of range". */
gnn_status rt_int_field(gnn_ctx *ctx, RtReader *r, char **p, const char *what, char stop, int64_t *out);
/* A real field: a number finite in float32 ("edge value 2 'x' is not a number"). */
gnn_status rt_real_field(gnn_ctx *ctx, RtReader *r, char **p, const char *what, float *out);
/* The next blank-separated word of p into w (at most n - 1 characters); 0 when there is none. */
int rt_next_word(char **p, char *w, size_t n);
int rt_is_dir(const char *path);
int rt_exists(const char *path);
/* A malloc'd "dir/name". */
char *rt_join(gnn_ctx *ctx, const char *dir, const char *name);
/* Opens a temporary file beside path for an all-or-nothing write; *tmp is malloc'd. A device or
 * FIFO (gnn_write_in_place) is opened itself, *tmp NULL. */
gnn_status rt_tmp_open(gnn_ctx *ctx, const char *path, FILE **f, char **tmp);
/* Flushes and fsyncs f, closes it and renames tmp over path when ok (then fsyncs the folder),
 * else removes tmp; frees tmp. A failure leaves the previous file at path untouched. With tmp
 * NULL (a device written in place) it flushes and closes. */
gnn_status rt_tmp_commit(gnn_ctx *ctx, FILE *f, char *tmp, const char *path, gnn_status ok);

/* The graph code in layers, each calling only those below it (docs/runtime.md, "Layers"):
 *   load.c                        gnn_graph_load, gnn_dataset_load: a loader by what the path holds
 *   dataset.c  ogb.c              the two dataset-folder layouts
 *   edgelist.c cache.c tables.c   edge lists and Matrix Market; the .gcsr cache; per-vertex files;
 *   npz.c                         NumPy .npz archives
 *   graph.c                       the in-memory graph and its builder
 * text.c and core.c lie under all of them. */

/* graph.c: the host-side graph under construction, and the CSR/CSC builder. */
typedef struct {
  int64_t *src, *dst, *origin;
  int64_t n, cap;
  /* Values carried by the source's edges (an edge list's columns after src dst, a Matrix
   * Market file's entries): ncols per source entry, indexed by origin; NULL when none. */
  float *vals;
  int64_t ncols, nvals, capvals; /* nvals: entries stored */
} RtEdges;
/* Appends one source entry's ncols values (es->ncols set first). */
gnn_status rt_edges_push_vals(gnn_ctx *ctx, RtEdges *es, const float *v);
gnn_status rt_edges_push(gnn_ctx *ctx, RtEdges *es, int64_t s, int64_t d, int64_t origin);
void rt_edges_free(RtEdges *es);
/* Applies the options to es (a sequence of edges with ids in [0, nv)), builds CSR and CSC,
 * uploads, and returns the graph. `where` names the source in messages. es is consumed. */
gnn_status rt_graph_build(gnn_ctx *ctx, RtEdges *es, int64_t nv, const gnn_graph_opts *opts, const char *where,
                          gnn_graph **out);
/* The graph behind every gnn_graph the runtime returns: the options it was built with travel
 * with it into the cache. */
typedef struct {
  gnn_graph g;
  unsigned flags; /* RT_OPT_* */
  /* A graph from gnn_graph_from_csr: the origins given, in gnn_malloc'd memory (NULL: edge e's
   * origin is e), from which gnn_graph_host_copies makes edge_origin. */
  const int64_t *d_origin;
  /* The context that made it, whose memory holds its arrays: gnn_graph_free frees through it
   * whatever context it is given (another one freed the struct and left the arrays live). */
  gnn_ctx *owner;
  /* RT_GRAPH_LIVE from creation until gnn_graph_free clears it: a graph freed twice, or used
   * after its free, is refused where its memory still holds the cleared word (best effort:
   * freed memory may be reused; docs/runtime.md says so). */
  uint64_t live;
} RtGraph;
#define RT_GRAPH_LIVE 0x48504152474e4e47ull /* "GNNGRAPH" in little-endian bytes */
/* GNN_OK for a live graph; GNN_ERR_INVALID "FN: g is NULL" or "FN: g is not a live graph ...". */
gnn_status rt_check_graph(gnn_ctx *ctx, const gnn_graph *g, const char *fn);
enum { RT_OPT_ADD_SELF_LOOPS = 1, RT_OPT_REMOVE_SELF_LOOPS = 2, RT_OPT_DEDUP = 4, RT_OPT_SYMMETRISE = 8 };
unsigned rt_opts_flags(const gnn_graph_opts *opts);
/* GNN_ERR_INVALID "num_vertices N out of range" unless 0 <= num_vertices <= 2^31. */
gnn_status rt_check_graph_opts(gnn_ctx *ctx, const gnn_graph_opts *opts);
/* Arrays the kernels read: gnn_malloc'd in the host build (they are the device arrays), plain
 * host memory in the CUDA build (the host copies, uploaded). */
void *rt_garray_alloc(gnn_ctx *ctx, size_t bytes, const char *what);
void rt_garray_free(gnn_ctx *ctx, const void *p);
/* A graph from final CSR arrays (in_ptr and src from rt_garray_alloc, origin from malloc;
 * ownership passes, freed on failure): the cache loader's way in. */
gnn_status rt_graph_from_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, int64_t *in_ptr, int32_t *src, int64_t *origin,
                             unsigned flags, gnn_graph **out);

/* csr_host.c / csr_cuda.cu: the part of gnn_graph_from_csr (graph.c) that runs where the
 * arrays live. The rules the caller's arrays must keep, in the order they are reported (each
 * rule may assume the ones before it hold): */
enum {
  RT_CSR_IN_PTR_ENDS,   /* in_ptr[0] = 0 (index 0), in_ptr[nv] = ne (index nv) */
  RT_CSR_IN_PTR_ORDER,  /* in_ptr[v] <= in_ptr[v + 1] (index v) */
  RT_CSR_OUT_PTR_ENDS,  /* the same for out_ptr */
  RT_CSR_OUT_PTR_ORDER,
  RT_CSR_SRC_RANGE,     /* 0 <= src[e] < nv (index e) */
  RT_CSR_EID_RANGE,     /* 0 <= out_eid[k] < ne (index k) */
  RT_CSR_EID_SOURCE,    /* src[out_eid[k]] = u for k in out_ptr[u] .. out_ptr[u+1]-1 (index k) */
  RT_CSR_EID_ORDER,     /* out_eid[k - 1] < out_eid[k] within one source (index k) */
  RT_CSR_ORIGIN,        /* origin[e] >= -1, and -1 only on a self-loop (index e) */
  RT_CSR_NRULES
};
typedef struct {
  int64_t nv, ne;
  /* the caller's arrays (origin may be NULL) */
  const int64_t *in_ptr, *out_ptr, *origin;
  const int32_t *src, *out_eid;
  /* the graph's, gnn_malloc'd by the caller of rt_csr_fill (origin only when the caller's is given) */
  int64_t *g_in_ptr, *g_out_ptr, *g_origin;
  int32_t *g_src, *g_dst, *g_out_eid, *g_out_dst; /* g_out_dst: dst[out_eid[k]] */
  float *in_deg, *out_deg;
  /* results: per rule, the first index that breaks it (-1: none); the largest degrees */
  int64_t first_bad[RT_CSR_NRULES];
  int64_t max_in_deg, max_out_deg;
} RtCsr;
/* Checks that the caller's arrays are the context's memory (CUDA: device memory of its device;
 * GNN_ERR_INVALID naming the array otherwise), copies them into the graph's, checks the rules
 * and, where they hold, fills dst, the degrees and their maxima. A broken rule is not an error
 * here: graph.c reads first_bad and words the message. */
gnn_status rt_csr_fill(gnn_ctx *ctx, RtCsr *c);

/* edgelist.c: an edge list with nv vertices (0: largest id + 1); a Matrix Market file. */
gnn_status rt_load_edge_list(gnn_ctx *ctx, const char *path, int64_t nv, RtEdges *es, int64_t *nv_out);
gnn_status rt_load_mtx(gnn_ctx *ctx, const char *path, int64_t nv, RtEdges *es, int64_t *nv_out);

/* cache.c: a .gcsr file, checked whole before use; opened without blocking (a FIFO). */
gnn_status rt_load_cache(gnn_ctx *ctx, const char *path, const gnn_graph_opts *opts, gnn_graph **out);
/* The .gcsr open at fd (closed here; refused unless a regular file), named path in messages.
 * sources non-NULL: a header stamped otherwise is GNN_ERR_INVALID before the arrays are read. */
gnn_status rt_read_cache(gnn_ctx *ctx, int fd, const char *path, const gnn_graph_opts *opts, const uint64_t *sources,
                         gnn_graph **out);
/* Writes g's cache, stamped with sources (nonzero), as name in the folder open at dfd: a new
 * temporary there renamed over name, nothing followed through a link (a dataset's cache: its
 * path comes from the dataset, not from the user). path names it in messages. */
gnn_status rt_save_cache_at(gnn_ctx *ctx, const gnn_graph *g, int dfd, const char *name, const char *path, uint64_t sources);

/* tables.c: the number of data lines (not blank, not '#') of a text file; LIBSVM features with
 * nv rows (0: as many as the file has, in *rows); graph_indicator.txt (ids per vertex, see
 * gnn_graph_set_graphs; nv > 0 fixes the count). */
gnn_status rt_count_rows(gnn_ctx *ctx, const char *path, int64_t *rows);
gnn_status rt_load_svm(gnn_ctx *ctx, const char *path, int64_t nv, float **out, int64_t *ncols, int64_t *rows);
gnn_status rt_read_graph_indicator(gnn_ctx *ctx, const char *path, int64_t nv, int64_t **out, int64_t *n, int64_t *ng);
/* Split file `name` of dir into *mask (ds->nrows rows) when it exists, else `bit` set in
 * ds->missing. */
gnn_status rt_dataset_split(gnn_ctx *ctx, gnn_dataset *ds, const char *dir, const char *name, unsigned bit, uint8_t **mask,
                            int64_t *count);

/* The dataset loaders fill ds, zeroed by gnn_dataset_load, which frees it when they fail.
 * dataset.c: gnnc's dataset folder (graph.edges, labels.txt, ...): its graph alone (split by
 * graph_indicator.txt when there is one), or the whole dataset. */
gnn_status rt_folder_graph(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_graph **out);
gnn_status rt_folder_dataset(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_dataset *ds);

/* npz.c: NumPy .npz archives (a zip of .npy arrays): open, then per array rt_npz_array (its
 * dtype and shape) and reads of its elements in order, converted to int64 or float32. */
typedef struct {
  char *name;
  uint64_t offset, csize, usize; /* the local header's offset; compressed and real sizes */
  uint32_t crc;
  int method, flags;
} RtNpzMember;
typedef struct {
  FILE *f;
  const char *path;
  RtNpzMember *m;
  int n;
} RtNpz;
typedef struct {
  RtNpz *z;
  const char *name;
  char kind;               /* 'i', 'u', 'f', 'b' */
  int esize, rank;         /* bytes per element; dimensions */
  int64_t shape[4], count; /* count = the product of shape */
  /* the stream: bytes left to read (compressed) and to produce, the inflate state, the CRC */
  int method, inflating;
  uint64_t cleft, uleft;
  void *zs;
  unsigned char *inbuf;
  uint32_t crc, want_crc;
} RtNpy;
gnn_status rt_npz_open(gnn_ctx *ctx, const char *path, RtNpz *z); /* z->path points at path */
void rt_npz_close(RtNpz *z);
int rt_npz_has(const RtNpz *z, const char *name);
/* Array NAME (member NAME.npy): its header read, a ready to read its elements. One array of an
 * archive at a time; rt_npy_close after. */
gnn_status rt_npz_array(gnn_ctx *ctx, RtNpz *z, const char *name, RtNpy *a);
/* The next n elements: as int64 (an array of floats is GNN_ERR_FORMAT) or as float32. */
gnn_status rt_npy_read_i64(gnn_ctx *ctx, RtNpy *a, int64_t *out, int64_t n);
gnn_status rt_npy_read_f32(gnn_ctx *ctx, RtNpy *a, float *out, int64_t n);
void rt_npy_close(RtNpy *a);

/* ogb.c: OGB's node-property-prediction layout (raw/edge.csv.gz, ...): whether dir has it; its
 * graph (through the cache in dir/processed); the whole dataset. */
int rt_is_ogb_folder(const char *dir);
gnn_status rt_ogb_graph(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_graph **out);
gnn_status rt_ogb_dataset(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_dataset *ds);

/* The largest vertex count: ids are int32 (vertex ids < 2^31), offsets int64. */
#define RT_MAX_ID ((int64_t)2147483647)

#ifdef GNNRT_CUDA
/* Checks a CUDA runtime call; on failure sets the message (call, file, line) and returns
 * GNN_ERR_CUDA from the enclosing function. The runtime's last-error state is cleared first:
 * a non-sticky error (an invalid argument) would otherwise be reported again by the next
 * launch's cudaGetLastError, as a failure of a kernel that did not fail. */
#define CUDA_CHECK(ctx, call)                                                                                   \
  do {                                                                                                          \
    cudaError_t e_ = (call);                                                                                    \
    if (e_ != cudaSuccess) {                                                                                    \
      (void)cudaGetLastError();                                                                                 \
      return gnn_set_error((ctx), GNN_ERR_CUDA, "%s:%d: %s failed: %s (%s)", __FILE__, __LINE__, #call,         \
                           cudaGetErrorName(e_), cudaGetErrorString(e_));                                       \
    }                                                                                                           \
  } while (0)
#define CUBLAS_CHECK(ctx, call)                                                                                 \
  do {                                                                                                          \
    cublasStatus_t s_ = (call);                                                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                                            \
      return gnn_set_error((ctx), GNN_ERR_CUBLAS, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call,            \
                           cublasGetStatusName(s_));                                                            \
  } while (0)
/* Makes the context's device current on the calling thread. */
gnn_status rt_cuda_enter(gnn_ctx *ctx);
/* Device scratch of at least bytes, kept in the context. */
gnn_status rt_cuda_scratch(gnn_ctx *ctx, size_t bytes, void **p);
#endif

#ifdef __cplusplus
}
#endif

#endif
