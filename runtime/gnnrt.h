/* gnnrt.h -- the C API of the gnnc runtime: libgnnrt (CUDA) and libgnnrt_host (CPU).
 *
 * Generated model code links against one of the two libraries and calls only what is declared
 * here; both libraries implement every function, so a model compiles unchanged for either.
 * The design follows cuBLAS and llm.c:
 *   - Every call that can fail returns a gnn_status and never exits or prints. The context keeps
 *     a one-line message for the most recent failure ("data/x.edges:17: error: ...", or
 *     "runtime/device_cuda.c:88: cudaMalloc... failed: ..."), read with gnn_last_error().
 *   - A context (gnn_ctx) owns a device, a stream and a cuBLAS handle in the CUDA build; in the
 *     host build it owns nothing but the error message and the memory counters. Memory from
 *     gnn_malloc is device memory in the CUDA build and host memory in the host build; the word
 *     "device" below means "memory from gnn_malloc" in both.
 *   - Objects (graphs, datasets, tensor files) are created by one call and freed by one call;
 *     free them before the context that made them.
 *   - Threads. Separate models in separate threads: yes, in both builds -- each thread creates
 *     its own context (in the CUDA build: its own stream and cuBLAS handle), graph, dataset and
 *     model, and gets the results it would get alone, bit for bit; the runtime keeps no global
 *     mutable state (messages, counters, profiles and scratch are the context's; the dropout RNG
 *     is counter-based). One model or one context from two threads at once: no -- calls on one
 *     context must not overlap (the runtime takes no locks); passing a context between threads
 *     from one call to the next is fine. The host build parallelises inside a call with OpenMP
 *     (OMP_NUM_THREADS); the runtime's own loops and gnnc's kernels give results that do not
 *     depend on the number of threads, but gnn_sgemm is OpenBLAS's, which splits a product by its
 *     own thread count (OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS), so a model's outputs and
 *     gradients can differ in the last bits between thread counts (1e-7 relative; bit-identical
 *     with OPENBLAS_NUM_THREADS=1). Many threads each running OpenMP teams want
 *     OMP_WAIT_POLICY=passive on a small machine.
 *   - Files are written whole or not at all (a temporary file, fsync, rename) and carry a
 *     version and a checksum where the format allows (tensor text files, checkpoints, .gcsr);
 *     a truncated or damaged file is refused before anything is loaded.
 * With GNNRT_CUDA defined (generated CUDA code; pkg-config gnnrt adds it) the header also
 * declares the accessors of the context's stream and cuBLAS handle. Under NVRTC
 * (__CUDACC_RTC__) the header is empty, so a generated .cu may include it unconditionally.
 * docs/runtime.md is the reference: every function, its statuses, the graph layout, the
 * cache format and the threading model.
 */
#ifndef GNNRT_H
#define GNNRT_H

#ifndef __CUDACC_RTC__

#include <stddef.h>
#include <stdint.h>

#ifdef GNNRT_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#if defined(__GNUC__)
#define GNN_API __attribute__((visibility("default")))
#define GNN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GNN_API
#define GNN_PRINTF(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GNNRT_VERSION_MAJOR 0
#define GNNRT_VERSION_MINOR 5 /* 0.5: GNN_TRAIN_THREADS_DEVICE (checkpoint version 4); 0.4: gnn_train_state.threads (as 0.2: programs compiled against 0.3 or older that use gnn_train_state must be recompiled), gnn_text_line; 0.3: gnn_check_span, which generated forwards call; 0.2: gnn_train_state.program (programs compiled against 0.1 that use gnn_train_state must be recompiled: the structure grew) */

/* ---------------------------------------------------------------- status codes and errors */

typedef enum {
  GNN_OK = 0,
  GNN_ERR_IO,          /* a file cannot be opened, read or written */
  GNN_ERR_FORMAT,      /* a file is malformed: the message names file and line */
  GNN_ERR_INVALID,     /* a bad argument, or data that breaks the API's rules */
  GNN_ERR_OOM,         /* host or device memory exhausted */
  GNN_ERR_CUDA,        /* a CUDA runtime or driver call failed (or there is no GPU) */
  GNN_ERR_CUBLAS,      /* a cuBLAS call failed */
  GNN_ERR_NVRTC,       /* NVRTC failed to compile (err holds the compiler's log) */
  GNN_ERR_UNSUPPORTED, /* not available in this build (NVRTC in the host build) or format */
  GNN_ERR_NUMERIC      /* a NaN or infinity where a number was needed */
} gnn_status;

typedef struct gnn_ctx gnn_ctx;

/* "GNN_OK", "GNN_ERR_IO", ...; "GNN_ERR_?" for a value outside the enum. */
GNN_API const char *gnn_status_name(gnn_status s);
/* The message of the most recent failing call on ctx ("" if none); never NULL. With ctx NULL:
 * a fixed text saying there is no context (gnn_ctx_create out of host memory). */
GNN_API const char *gnn_last_error(const gnn_ctx *ctx);
/* Stores a printf-formatted one-line message in ctx (newlines become spaces; truncated at
 * 1023 bytes) and returns status, so `return gnn_set_error(ctx, GNN_ERR_INVALID, ...)` reads
 * well; generated code reports through it too. ctx may be NULL (the message is dropped). On a
 * failed context (gnn_ctx_create) it keeps the failure's message and returns GNN_ERR_INVALID. */
GNN_API gnn_status gnn_set_error(gnn_ctx *ctx, gnn_status status, const char *fmt, ...) GNN_PRINTF(3, 4);
GNN_API void gnn_clear_error(gnn_ctx *ctx);

/* ---------------------------------------------------------------- context */

/* Creates a context on CUDA device `device` (CUDA build: >= 0; host build: ignored). On
 * failure *out is still a context -- a failed one, holding only the reason: read it with
 * gnn_last_error(*out), then gnn_ctx_destroy(*out). Every other call on a failed context
 * returns GNN_ERR_INVALID. Only when the context itself cannot be allocated is *out NULL
 * (GNN_ERR_OOM). CUDA build: GNN_ERR_CUDA when there is no usable GPU, GNN_ERR_INVALID for a
 * device number out of range, GNN_ERR_CUBLAS when the handle cannot be created. */
GNN_API gnn_status gnn_ctx_create(gnn_ctx **out, int device);
/* Frees everything the context holds, including device memory still allocated from it
 * (objects made from it must be freed first). NULL is a no-op. */
GNN_API void gnn_ctx_destroy(gnn_ctx *ctx);
/* 1 in the CUDA build, 0 in the host build. */
GNN_API int gnn_ctx_is_cuda(const gnn_ctx *ctx);
/* Makes the context's device current on the calling thread (CUDA build; the runtime's own
 * entry points do this themselves, generated forward/backward/create call it before their
 * first launch). GNN_ERR_INVALID for NULL or a failed context; host build: only that check. */
GNN_API gnn_status gnn_ctx_enter(gnn_ctx *ctx);

#ifdef GNNRT_CUDA
/* The context's stream (non-blocking) and its cuBLAS handle, bound to that stream. All the
 * runtime's work is ordered on this stream; generated code launches on it too. */
GNN_API cudaStream_t gnn_ctx_stream(const gnn_ctx *ctx);
GNN_API cublasHandle_t gnn_ctx_cublas(const gnn_ctx *ctx);
#endif

/* ---------------------------------------------------------------- memory */

/* Device memory (CUDA build: cudaMallocAsync on the stream; host build: 64-byte aligned host
 * memory). bytes == 0 gives *p = NULL and GNN_OK. GNN_ERR_OOM when exhausted. */
GNN_API gnn_status gnn_malloc(gnn_ctx *ctx, void **p, size_t bytes);
/* Frees memory from gnn_malloc on this context; NULL is a no-op; a pointer this context did
 * not allocate is GNN_ERR_INVALID (and is not freed). */
GNN_API gnn_status gnn_free(gnn_ctx *ctx, void *p);
/* Sets bytes of device memory to zero (stream-ordered). */
GNN_API gnn_status gnn_memset0(gnn_ctx *ctx, void *p, size_t bytes);
/* Host -> device and device -> host copies. Both return when the copy is complete: host_src
 * may be reused and host_dst read at once. The device side (also gnn_memset0's p) is checked:
 * a span that starts inside one of this context's allocations must end inside it
 * (GNN_ERR_INVALID otherwise); memory the context did not allocate is not checked. */
GNN_API gnn_status gnn_upload(gnn_ctx *ctx, void *dev_dst, const void *host_src, size_t bytes);
GNN_API gnn_status gnn_download(gnn_ctx *ctx, void *host_dst, const void *dev_src, size_t bytes);
/* The same check alone: GNN_ERR_INVALID ("WHAT: N bytes at offset O run past the end of a
 * K-byte allocation") when p points into one of this context's allocations and bytes from p do
 * not fit in it; memory the context did not allocate passes, unchecked. Generated forward and
 * backward functions check each input and grad_out with it: a buffer sized for the previous
 * (smaller) graph of a set_graph was read past its end. */
GNN_API gnn_status gnn_check_span(gnn_ctx *ctx, const void *p, size_t bytes, const char *what);
/* Waits for all work queued on the context's stream; reports asynchronous kernel errors. */
GNN_API gnn_status gnn_sync(gnn_ctx *ctx);
/* Bytes of device memory allocated from this context now (live) and at most since creation
 * or the last reset (peak), counted at gnn_malloc/gnn_free; includes the runtime's own scratch
 * buffers (CUDA build: softmax_xent and accuracy keep one). Either pointer may be NULL. */
GNN_API gnn_status gnn_mem_usage(const gnn_ctx *ctx, size_t *live, size_t *peak);
/* Sets peak to the current live bytes. */
GNN_API void gnn_mem_reset_peak(gnn_ctx *ctx);
/* The bytes gnn_malloc can still hand out on this context, as far as the runtime can tell:
 * CUDA build, the device's free memory (cudaMemGetInfo); host build, the least of the kernel's
 * MemAvailable (/proc/meminfo), the cgroup's memory.max less its memory.current, and the
 * address-space limit (RLIMIT_AS, ulimit -v) less the process's size; then at most the
 * context's memory limit less its live bytes. SIZE_MAX when nothing bounds it. Generated
 * create and forward functions check their memory plans against it before they allocate. */
GNN_API gnn_status gnn_mem_available(gnn_ctx *ctx, size_t *bytes);
/* Caps the bytes live on this context (gnn_malloc past it: GNN_ERR_OOM); 0 removes the cap.
 * The environment variable GNN_MEMORY_LIMIT (bytes, or with a suffix: K, M, G, T powers of 1000,
 * KiB, MiB, GiB, TiB of 1024, as gnnc's --memory-budget)
 * sets it at gnn_ctx_create, for a budget smaller than the device (a shared GPU, a test). */
GNN_API gnn_status gnn_set_memory_limit(gnn_ctx *ctx, size_t bytes);

/* Step profiling for generated code (environment GNN_PROFILE=1; otherwise both return at once).
 * gnn_profile_mark starts the clock (after gnn_sync); gnn_profile_step adds the time since the
 * last mark or step (after gnn_sync) to the row of `label`, a string constant. The table goes to
 * stderr at gnn_ctx_destroy, slowest step first. */
GNN_API void gnn_profile_mark(gnn_ctx *ctx);
GNN_API void gnn_profile_step(gnn_ctx *ctx, const char *label);

/* Row-major single-precision GEMM on device memory:
 *   C[m x n] = alpha * op(A) * op(B) + beta * C,  op(X) = X or X^T (trans_x != 0)
 * A is m x k (k x m when transposed) with row stride lda, B is k x n (n x k) with ldb, C has
 * ldc. cuBLAS on the context's stream in the CUDA build, OpenBLAS in the host build.
 * GNN_ERR_INVALID for bad sizes and for a NULL matrix that would be read or written. */
GNN_API gnn_status gnn_sgemm(gnn_ctx *ctx, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                             const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                             int64_t ldc);

/* ---------------------------------------------------------------- graphs */

/* Options for the loaders, applied in this order: remove_self_loops; symmetrise (add the
 * reverse of each edge u->v, u != v); dedup (keep the first of equal (src, dst) pairs);
 * add_self_loops (v->v for every vertex that has none). NULL means all zero. */
typedef struct gnn_graph_opts {
  int add_self_loops, remove_self_loops, dedup, symmetrise;
  int64_t num_vertices; /* 0 = largest id + 1 (a dataset folder: the length of labels.txt) */
} gnn_graph_opts;

/* A graph in CSR by destination and CSC by source; see docs/runtime.md for the order. */
typedef struct gnn_graph {
  int64_t nv, ne;
  /* Edges are stored in CSR-by-destination order: the in-edges of v are edge ids
   * in_ptr[v] .. in_ptr[v+1]-1, stable with respect to file order within one destination.
   * Device arrays in the CUDA build, host arrays in the host build: */
  const int64_t *in_ptr;         /* nv + 1 */
  const int32_t *src, *dst;      /* ne: edge e goes src[e] -> dst[e] */
  const int64_t *out_ptr;        /* nv + 1: CSC by source */
  const int32_t *out_eid;        /* ne: the out-edges of u are out_eid[out_ptr[u] .. out_ptr[u+1]-1], ascending */
  const float *in_deg, *out_deg; /* nv, as floats (degree of the graph as stored, after options) */
  /* Host copies of the same arrays (equal pointers in the host build; NULL for a graph from
   * gnn_graph_from_csr until gnn_graph_host_copies): */
  const int64_t *h_in_ptr, *h_out_ptr;
  const int32_t *h_src, *h_dst, *h_out_eid;
  const int64_t *edge_origin; /* host, ne: the line order index of each edge in the source (-1 = added self-loop) */
  int64_t max_in_deg, max_out_deg;
  /* Values the source gave each edge: an edge list's columns after "src dst", a real or
   * integer Matrix Market file's entries (one column). Host, ne x edge_ncols, row e = edge e
   * (CSR order); an added self-loop's values are 1. NULL and 0 when the source has none. */
  const float *h_edge_values;
  int64_t edge_ncols;
  /* A batch of graphs (PyG's `batch`): the vertices of graph i are graph_ptr[i] ..
   * graph_ptr[i+1]-1, so graph ids never decrease along the vertices. Every loader makes one
   * graph of all the vertices; gnn_graph_set_graphs (a dataset folder's graph_indicator.txt)
   * splits them. Readouts (sum_vertices, ...) reduce over each graph. */
  int64_t ng;
  const int64_t *graph_ptr;      /* ng + 1 (device) */
  const int32_t *vertex_graph;   /* nv (device): the graph of each vertex */
  const float *graph_size;       /* ng (device): the vertices of each graph, as floats */
  const int64_t *h_graph_ptr;    /* host copies */
  const int32_t *h_vertex_graph;
  /* ne (device): dst[out_eid[k]], the destination of each out-edge in CSC order. A walk over
   * out-edges reads the far end here in order, where dst[out_eid[k]] is a random read. Last, so
   * that the fields above keep their offsets. */
  const int32_t *out_dst;
  /* The hub rows' pieces (gnnc --split-hubs; made on demand by gnn_graph_make_pieces, the
   * generated forward calls it): an in-edge row longer than piece_len is walked by several
   * groups, one per piece of at most piece_len edges, and the partial results merged. Piece p
   * (0 <= p < npieces) is row piece_row[p]'s edges piece_lo[p] .. min(piece_lo[p] + piece_len,
   * in_ptr[row + 1]) - 1; a row's pieces are consecutive, in edge order. npieces <
   * GNN_PIECES_MAX (gnnrt_pieces.h) and < nv. Device arrays; piece_len = 0 until made. */
  int64_t piece_len, npieces;
  const int32_t *piece_row;
  const int64_t *piece_lo;
  /* The same for the out-edge rows (the CSC, out_ptr): the backward's walks over out-edges. The
   * piece length is the same. */
  int64_t out_npieces;
  const int32_t *out_piece_row;
  const int64_t *out_piece_lo;
  /* The edges of the graph's source before the options: an edge list's edge lines, a Matrix
   * Market file's entries, an OGB folder's edge rows, gnn_graph_from_edges' ne -- the rows of an
   * edge tensor in the source's order (edge_origin is below it). More than the largest origin + 1
   * when the options dropped the last edges (remove_self_loops, dedup). gnn_graph_from_csr: ne
   * when edge_origin is NULL, else -1 (the arrays do not say; the caller knows). A .gcsr cache
   * keeps it. Last, so that the fields above keep their offsets. */
  int64_t num_input_edges;
} gnn_graph;

/* A sparse-dense product over a graph's edges (what gnnc --spmm=cusparse compiles a plain
 * weighted sum over the edges to): for every vertex v,
 *   y[v, :] = sum over the edges e of v of w[e] * x[far end of e, :]
 * dir GNN_SPMM_IN_EDGES: v's in-edges, far end src[e] (the CSR); GNN_SPMM_OUT_EDGES: v's
 * out-edges, far end dst[e] (the CSC). w: one float per edge by edge id (CSR position), or NULL
 * for 1. x and y: nv x width, row-major, not overlapping; y is overwritten (0 where v has no
 * such edge). CUDA build: cuSPARSE's SpMM (CUSPARSE_SPMM_ALG_DEFAULT, float32 sums, 32-bit
 * indices: GNN_ERR_UNSUPPORTED past 2^31 - 1 vertices or edges) on the context's stream, the
 * offsets narrowed to int32 (and over out-edges the weights put in CSC order) in the context's
 * scratch on each call; host build: a loop summing in float64, OpenMP over the vertices.
 * GNN_ERR_INVALID for a NULL graph, array or bad width or direction; GNN_ERR_CUDA for a cuSPARSE
 * failure, with its message. */
enum { GNN_SPMM_IN_EDGES = 0, GNN_SPMM_OUT_EDGES = 1 };
GNN_API gnn_status gnn_spmm(gnn_ctx *ctx, const gnn_graph *g, int dir, const float *x, const float *w, float *y, int64_t width);

/* Loads a graph, choosing the format by path: a directory is a dataset folder (its
 * graph.edges; the vertex count from labels.txt, else from features.svm, unless
 * opts->num_vertices); *.mtx is Matrix Market; *.gcsr is the binary cache written by
 * gnn_graph_save_cache; anything else is an edge list. Statuses: GNN_ERR_IO (cannot open or
 * read; a folder without graph.edges), GNN_ERR_FORMAT (malformed, ids of 2^31 or more
 * included: the message names file and line), GNN_ERR_UNSUPPORTED (a Matrix Market variant
 * other than coordinate pattern/real/integer general/symmetric), GNN_ERR_INVALID (bad
 * arguments, more than 2^31-1 edges, options or num_vertices other than a cache's or a
 * matrix's), GNN_ERR_OOM, and the device errors of the upload. */
GNN_API gnn_status gnn_graph_load(gnn_ctx *ctx, const char *path, const gnn_graph_opts *opts, gnn_graph **out);
/* A graph from ne edges src[i] -> dst[i] (host arrays, 0-based ids); nv = 0 takes
 * opts->num_vertices, then the largest id + 1; a nonzero opts->num_vertices other than a nonzero
 * nv is GNN_ERR_INVALID (as gnn_graph_from_csr). edge_origin[e] is the index i. */
GNN_API gnn_status gnn_graph_from_edges(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *src, const int64_t *dst,
                                        const gnn_graph_opts *opts, gnn_graph **out);
/* A graph from its final CSR and CSC, already in the context's memory space: device memory of
 * the context's device in the CUDA build (gnn_malloc'd or another allocator's, a torch CUDA
 * tensor's), host memory in the host build. in_ptr (nv + 1) and src (ne) are the CSR by
 * destination, out_ptr (nv + 1) and out_eid (ne) the CSC by source with each source's edge ids
 * ascending, edge_origin (ne) each edge's origin (-1: an added self-loop; NULL: edge e's origin
 * is e), all laid out as in gnn_graph. They are copied (device to device) into arrays the graph
 * owns, so the caller's may go when the call returns; dst and the degrees are computed where the
 * arrays live. opts says how the arrays were made (the cache records it): it is not applied, and
 * its num_vertices must be 0 or nv. Everything is checked there too (on the GPU: one pass of two
 * kernels and a read-back of the first broken rule): GNN_ERR_INVALID "gnn_graph_from_csr: src[7]
 * = 9 out of range (the graph has 5 vertices)", out_eid not ascending, an edge listed under a
 * vertex other than its source, in_ptr not from 0 to ne, ...; in the CUDA build a host pointer,
 * or one of another device, too. The host copies (h_in_ptr, h_src, h_dst, h_out_ptr, h_out_eid,
 * edge_origin) are NULL until gnn_graph_host_copies makes them. */
GNN_API gnn_status gnn_graph_from_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *in_ptr, const int32_t *src,
                                      const int64_t *out_ptr, const int32_t *out_eid, const int64_t *edge_origin,
                                      const gnn_graph_opts *opts, gnn_graph **out);
/* Makes the host copies a graph from gnn_graph_from_csr lacks (h_in_ptr, h_src, h_dst,
 * h_out_ptr, h_out_eid, edge_origin): device-to-host copies in the CUDA build, the arrays
 * themselves in the host build (equal pointers, as for every graph there). A no-op for a graph
 * that has them; g is unchanged on failure. gnn_graph_save_cache calls it. */
GNN_API gnn_status gnn_graph_host_copies(gnn_ctx *ctx, gnn_graph *g);
/* Writes the graph (after its options) to a .gcsr cache, through a temporary file renamed
 * into place: a failed write leaves no file behind. The cache holds the structure only: a
 * graph with edge values, or a batch of graphs (ng > 1), is GNN_ERR_UNSUPPORTED. A graph
 * without host copies (gnn_graph_from_csr) gets them first (gnn_graph_host_copies). */
GNN_API gnn_status gnn_graph_save_cache(gnn_ctx *ctx, const gnn_graph *g, const char *path);
/* Frees g (NULL: nothing) and its arrays, in the memory of the context that made it, whatever
 * ctx is given (it may be NULL); that context must still be alive. */
GNN_API void gnn_graph_free(gnn_ctx *ctx, gnn_graph *g);
/* Makes g's hub pieces (piece_len, npieces, piece_row, piece_lo, and out_npieces, out_piece_row,
 * out_piece_lo above) once; a no-op when they exist. The piece length is gnn_piece_len(nv, ne)
 * (gnnrt_pieces.h). The CUDA build reads in_ptr and out_ptr back from the device (8 (nv + 1)
 * bytes each) and uploads the pieces. GNN_ERR_OOM, the device's errors. */
GNN_API gnn_status gnn_graph_make_pieces(gnn_ctx *ctx, gnn_graph *g);
/* Splits g's vertices into ng graphs: graph_of[v] (host, nv entries) is the graph of vertex v,
 * starting at 0 and going up by at most 1 from one vertex to the next (each graph's vertices
 * consecutive, no graph empty), and every edge inside one graph (when g has host copies of its
 * edges: a graph from gnn_graph_from_csr before gnn_graph_host_copies goes unchecked).
 * GNN_ERR_INVALID "vertex 7: graph id 3 after 1 (...)" or "the edge 2 -> 0 joins two graphs:
 * ..." otherwise; g is unchanged on failure. */
GNN_API gnn_status gnn_graph_set_graphs(gnn_ctx *ctx, gnn_graph *g, int64_t ng, const int64_t *graph_of);

/* ---------------------------------------------------------------- neighbour sampling */

/* Mini-batches of a graph too large to train on whole (GraphSAGE; PyG's NeighborLoader): from
 * seed vertices, nhops hops over in-edges; at hop h every vertex of the frontier (hop 0: the
 * seeds; hop h: the vertices hop h - 1 added) keeps fanout[h] of its in-edges, drawn uniformly
 * without replacement, or all of them when it has no more or fanout[h] < 0. A sampled edge's
 * source joins the sample if it is not in it yet. The draws are a function of (seed, hop,
 * vertex) alone (gnnrt_rng.h): a batch is the same for any thread count and any batch it is
 * drawn beside, and a new seed per batch gives new batches. Host memory and host loops in both
 * builds (OpenMP over the frontier in libgnnrt_host); the graph's host CSR is read, not copied.
 *
 * A sampler is not thread-safe (it keeps a map from the graph's vertices to the sample's):
 * make one per thread. Its graph or CSR must outlive it. */
typedef struct gnn_sampler gnn_sampler;
typedef struct gnn_sample {
  int64_t nv, ne;  /* the sample's vertices and edges */
  int64_t nseeds;  /* the seeds are the sample's vertices 0 .. nseeds - 1, in the order given */
  int nhops;
  /* nv: each sample vertex's id in the graph; after the seeds, each hop's new vertices in the
   * order their first edge was drawn */
  const int64_t *nodes;
  /* ne: the sampled edges src[i] -> dst[i] in sample ids, hop by hop; within a hop by
   * destination in the frontier's order, within a destination in the graph's CSR order; eid[i]
   * is the edge's id in the graph (its CSR position: for edge features) */
  const int64_t *src, *dst, *eid;
  /* nhops + 1: vertices and edges after hop h (hop_nv[0] = nseeds, hop_ne[0] = 0) */
  const int64_t *hop_nv, *hop_ne;
} gnn_sample;
/* A sampler over g's in-edges (its host CSR: h_in_ptr, h_src; a graph from gnn_graph_from_csr
 * needs gnn_graph_host_copies first). GNN_ERR_INVALID, GNN_ERR_OOM. */
GNN_API gnn_status gnn_sampler_create(gnn_ctx *ctx, const gnn_graph *g, gnn_sampler **out);
/* A sampler over a CSR by destination in host memory (as in gnn_graph: the in-edges of v are
 * in_ptr[v] .. in_ptr[v + 1] - 1, their sources src[...]): for callers that hold one already
 * (NumPy arrays). The arrays are checked here (in_ptr from 0, never decreasing, to ne; every
 * src in 0 .. nv - 1: GNN_ERR_INVALID naming the first broken entry) and not copied: they must
 * outlive the sampler. Each batch checks again what it reads of them (0 <= in_ptr[v] <=
 * in_ptr[v + 1] <= ne for each frontier vertex v, each sampled source in 0 .. nv - 1), so arrays
 * changed since are a GNN_ERR_INVALID from gnn_sampler_sample naming the entry, never a read or
 * write out of bounds. */
GNN_API gnn_status gnn_sampler_from_csr(gnn_ctx *ctx, int64_t nv, int64_t ne, const int64_t *in_ptr,
                                        const int32_t *src, gnn_sampler **out);
/* One batch: seeds (nseeds >= 1 distinct vertex ids), fanout (nhops >= 1 entries; < 0: every
 * in-edge). GNN_ERR_INVALID names a seed out of range or repeated, a bad count; GNN_ERR_OOM.
 * *out is freed with gnn_sample_free; the sampler may draw the next batch meanwhile. */
GNN_API gnn_status gnn_sampler_sample(gnn_sampler *s, const int64_t *seeds, int64_t nseeds, const int64_t *fanout,
                                      int nhops, uint64_t seed, gnn_sample **out);
GNN_API void gnn_sample_free(gnn_sample *sample);
GNN_API void gnn_sampler_free(gnn_sampler *s);

/* ---------------------------------------------------------------- datasets */

/* Bits of gnn_dataset.missing: the optional files a folder did not have. */
enum {
  GNN_DATASET_NO_FEATURES = 1, /* features.svm */
  GNN_DATASET_NO_LABELS = 2,   /* labels.txt */
  GNN_DATASET_NO_TRAIN = 4,    /* train.idx */
  GNN_DATASET_NO_VAL = 8,      /* val.idx */
  GNN_DATASET_NO_TEST = 16     /* test.idx */
};

/* A dataset folder (graph.edges, features.svm, labels.txt, train.idx, val.idx, test.idx).
 * Everything but the graph is host memory. */
typedef struct gnn_dataset {
  gnn_graph *graph;
  int64_t nv;                               /* = graph->nv */
  float *features;                          /* nv x nfeat, row-major; NULL if missing */
  int64_t nfeat;                            /* the largest feature index (1-based in the file) */
  int32_t *labels;                          /* nrows, -1 = unknown; NULL if missing */
  int nclasses;                             /* largest label + 1 */
  uint8_t *train_mask, *val_mask, *test_mask; /* nrows each, 1 = in the split; NULL if missing */
  int64_t ntrain, nval, ntest;              /* rows in each split */
  unsigned missing;                         /* GNN_DATASET_NO_* bits */
  /* Graph classification: a folder with graph_labels.txt (one label per graph of
   * graph_indicator.txt) is graph-level: labels and the splits (graph ids) have a row per graph,
   * nrows = graph->ng, and labels.txt is not read. Otherwise nrows = nv. */
  int graph_level;
  int64_t nrows;
} gnn_dataset;

/* Loads a dataset folder. The vertex count comes from opts->num_vertices, else labels.txt,
 * else features.svm, else the graph; the files must agree with it (labels.txt and features.svm
 * that disagree: the shorter is named, with both counts). A batch of graphs keeps every edge
 * inside its graph ("graph.edges:4: error: the edge 1 -> 2 joins two graphs ..."). A missing
 * graph.edges is GNN_ERR_IO; missing optional files are recorded in `missing`. Malformed files:
 * GNN_ERR_FORMAT with file and line. */
GNN_API gnn_status gnn_dataset_load(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_dataset **out);
GNN_API void gnn_dataset_free(gnn_ctx *ctx, gnn_dataset *ds);
/* LIBSVM features: nv rows (nv > 0; another row count is GNN_ERR_FORMAT), "label idx:value
 * ...", idx 1-based and ascending, the label ignored. *out is a malloc'd nv x *ncols float
 * matrix (free() it), *ncols the largest index. NaN, inf or a value beyond float32 is
 * GNN_ERR_FORMAT. */
GNN_API gnn_status gnn_features_load_svm(gnn_ctx *ctx, const char *path, int64_t nv, float **out, int64_t *ncols);
/* Labels, one integer per line ('#' comments), -1 = unknown: nv of them (nv = 0: any number,
 * reported in *count, which may be NULL otherwise). *out is malloc'd (free() it); *nclasses =
 * the largest label + 1. */
GNN_API gnn_status gnn_labels_load(gnn_ctx *ctx, const char *path, int64_t nv, int32_t **out, int64_t *count,
                                   int *nclasses);
/* A split file: vertex ids < nv, one per line ('#' comments), no repeats; sets mask[id] = 1
 * (mask: nv bytes, cleared first) and *count (may be NULL). */
GNN_API gnn_status gnn_split_load(gnn_ctx *ctx, const char *path, int64_t nv, uint8_t *mask, int64_t *count);
/* The line (1-based) of data row `row` (0-based; comment and blank lines are not rows) of a text
 * file as the loaders above read it (gzip too), for a message that points at a row found bad
 * after loading ("labels.txt:1002: error: label 9 of vertex 1000 ..."). GNN_ERR_INVALID when the
 * file has fewer rows; the reader's statuses. Since 0.4. */
GNN_API gnn_status gnn_text_line(gnn_ctx *ctx, const char *path, int64_t row, int64_t *line);

/* ---------------------------------------------------------------- parameters */

/* The interpreter's initialisers (compiler/interp.c, params_init), bit for bit at float32:
 * each element is (2u - 1) * bound with u from a splitmix64 stream seeded by an FNV-1a hash
 * of (seed, name). glorot: bound = sqrt(6 / (d0 + elems/d0)), and rank < 2 gives zeros;
 * uniform: bound = 1. out holds the product of dims (1 for rank 0). GNN_ERR_INVALID for a
 * rank outside 0..4, a negative dim or a NULL pointer. */
GNN_API gnn_status gnn_param_init_glorot(const char *name, int rank, const int64_t *dims, uint64_t seed, float *out);
GNN_API gnn_status gnn_param_init_uniform(const char *name, int rank, const int64_t *dims, uint64_t seed, float *out);

/* Tensor text files, the interpreter's --params/--save-params format: per tensor a header
 * "tensor NAME 1 RANK d0 .. d{RANK-1}" then its values, whitespace-separated. */
typedef struct gnn_tensor_file gnn_tensor_file;

/* Writes n tensors (host data) through a temporary file renamed into place; values as %.9g,
 * which reads back to the same float32. Everything the reader checks is checked before the file
 * is created (GNN_ERR_INVALID: a name not 1..255 characters without blanks, a repeated name
 * "tensor 2 'W' appears twice (first as tensor 0)", a bad shape; GNN_ERR_NUMERIC: a value not
 * finite), so a refused write leaves the previous file. */
GNN_API gnn_status gnn_tensor_file_write(gnn_ctx *ctx, const char *path, int n, const char *const names[],
                                         const int ranks[], const int64_t dims[][4], const float *const data[]);
/* Reads and checks a whole file (headers, counts, finite values, no repeated names):
 * GNN_ERR_IO, GNN_ERR_FORMAT with file, line and tensor. Values are rounded to float32. */
GNN_API gnn_status gnn_tensor_file_read(gnn_ctx *ctx, const char *path, gnn_tensor_file **out);
GNN_API int gnn_tensor_file_count(const gnn_tensor_file *tf);
/* The name, rank and dims (dims[rank..3] = 0) of tensor i, in file order. */
GNN_API gnn_status gnn_tensor_file_info(const gnn_tensor_file *tf, int i, const char **name, int *rank,
                                        int64_t dims[4]);
/* Copies the tensor called name into host out, after checking its shape: GNN_ERR_INVALID
 * "FILE: error: no tensor 'b'" or "...: tensor 'W' has shape [3, 2], expected [2, 3]". */
GNN_API gnn_status gnn_tensor_file_get(gnn_ctx *ctx, const gnn_tensor_file *tf, const char *name, int rank,
                                       const int64_t *dims, float *out);
/* GNN_ERR_INVALID if the file holds a tensor whose name is not among names[0..n-1]. */
GNN_API gnn_status gnn_tensor_file_expect(gnn_ctx *ctx, const gnn_tensor_file *tf, int n, const char *const names[]);
/* The same reader for files whose tensors have ROWS >= 0 rows ("tensor NAME ROWS RANK dims..."
 * then ROWS x the product of dims values: gnnc run --save-inputs, gnn-run --inputs), with the
 * same checks; gnn_tensor_file_get_rows copies one out after checking its rows and shape
 * (gnn_tensor_file_get is get_rows with rows = 1). */
GNN_API gnn_status gnn_tensor_file_read_rows(gnn_ctx *ctx, const char *path, gnn_tensor_file **out);
GNN_API gnn_status gnn_tensor_file_get_rows(gnn_ctx *ctx, const gnn_tensor_file *tf, const char *name, int64_t rows,
                                            int rank, const int64_t *dims, float *out);
GNN_API void gnn_tensor_file_free(gnn_tensor_file *tf);

/* ---------------------------------------------------------------- training */

/* Mean softmax cross-entropy of logits (n x C, device) over the rows with mask[i] != 0 (mask
 * may be NULL: every row) and labels[i] >= 0 (-1 = unknown, skipped); log-sum-exp, so large
 * logits are safe. *loss_out_host receives the loss. If dlogits (device, n x C) is not NULL it
 * receives the gradient: (softmax - onehot) / count on the counted rows, 0 elsewhere.
 * GNN_ERR_INVALID: no counted rows, a label >= C or < -1 (message names the row);
 * GNN_ERR_NUMERIC: the loss is not finite (message names the first such row). */
GNN_API gnn_status gnn_softmax_xent(gnn_ctx *ctx, const float *logits, const int32_t *labels, const uint8_t *mask,
                                   int64_t n, int64_t C, float *loss_out_host, float *dlogits);
/* Fraction of the counted rows (as above) whose argmax (first index on ties) is the label. */
GNN_API gnn_status gnn_accuracy(gnn_ctx *ctx, const float *logits, const int32_t *labels, const uint8_t *mask,
                                int64_t n, int64_t C, double *acc);
/* param -= lr * (grad + weight_decay * param), n floats of device memory. */
GNN_API gnn_status gnn_sgd_step(gnn_ctx *ctx, float *param, const float *grad, int64_t n, float lr,
                                float weight_decay);
/* PyTorch's Adam (torch.optim.Adam, amsgrad off) with L2 weight decay added to the gradient:
 *   g = grad + wd * param;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
 *   param -= lr / (1 - b1^step) * m / (sqrt(v) / sqrt(1 - b2^step) + eps)
 * step counts from 1 (GNN_ERR_INVALID below). m and v start at zero (gnn_memset0). */
GNN_API gnn_status gnn_adam_step(gnn_ctx *ctx, float *param, const float *grad, float *m, float *v, int64_t n,
                                 float lr, float beta1, float beta2, float eps, float weight_decay, int64_t step);
/* The dropout keep-mask of gnnrt_rng.h on the host: out[i] = gnn_dropout_keep(seed, stream, i,
 * p), for tests and host code that compare masks. GNN_ERR_INVALID unless 0 <= p < 1. */
GNN_API gnn_status gnn_dropout_mask_host(uint64_t seed, uint32_t stream, int64_t n, float p, uint8_t *out);

/* ---------------------------------------------------------------- training checkpoints */

/* Everything a training loop needs to go on after a restart exactly as if it had never stopped
 * (gnn-train --checkpoint / --resume; docs/training.md). The caller describes the model (model,
 * config, the parameter table) and points at host arrays of the product of dims floats each;
 * gnn_train_state_save writes them and the scalars, gnn_train_state_load fills them.
 * Device data is downloaded (gnn_download) before a save and uploaded after a load. */
typedef struct gnn_train_state {
  /* What identifies the run: a checkpoint of another model, or whose config text differs, is
   * refused. config is the caller's own text for the settings a bit-identical resume needs
   * (optimiser, hyper-parameters, seed, data); "" when there are none. */
  const char *model;
  const char *config;
  int nparams;
  const char *const *names;  /* nparams names (1..255 bytes, no two the same) */
  const int *ranks;          /* 0..4 */
  const int64_t (*dims)[4];
  float **param;             /* the parameters now */
  float **adam_m, **adam_v;  /* Adam's first and second moments; both NULL for an optimiser without (SGD) */
  float **best;              /* the parameters of the best validation epoch so far */
  int64_t epoch;             /* epochs completed */
  int64_t adam_step;         /* Adam's step count: the last step taken (0 before the first) */
  uint64_t dropout_seed;     /* the dropout stream: its seed and its position (the counter the next */
  uint64_t dropout_counter;  /* training forward uses; gnn-train: forward seed = dropout_seed + counter) */
  int64_t best_epoch;        /* 0: none yet */
  double best_val_acc, best_val_loss;
  int64_t waited;            /* epochs without progress (early stopping) */
  int finished;              /* 1: training has ended (early stop or the last epoch) */
  double elapsed_ms;         /* training time so far (reported, not part of the results) */
  /* What the model computes (gnn_model_api.program, 16 hex digits): a checkpoint of another
   * program is refused. NULL or "": not recorded, not checked (a checkpoint written without one,
   * or by checkpoint version 1, loads into any program of the same model and parameters).
   * Added in 0.2 as the last field: a caller compiled against an older gnnrt.h must be
   * recompiled (the runtime would read past its structure). */
  const char *program;
  /* The host threads the state was computed with (gnn-train: OpenBLAS's thread count, which
   * splits a product by its number, so the last bits of a host run depend on it); 0: not
   * recorded. Saved as given; a load sets it from the file (0 for a checkpoint of version 1 or
   * 2, or one saved without) and compares nothing: a resume at another count goes on, not bit
   * for bit, and the caller may say so (gnn-train warns). Added in 0.4 as the last field, as
   * program in 0.2: a caller compiled against an older gnnrt.h must be recompiled.
   * GNN_TRAIN_THREADS_DEVICE (since 0.5): computed on a device, with no host threads in the
   * products (gnn-train of a CUDA library), so a host resume of it can say it is not bit for
   * bit; before 0.5 such a state was saved as 0. */
  int threads;
} gnn_train_state;

#define GNN_TRAIN_THREADS_DEVICE (-1) /* gnn_train_state.threads of a state computed on a device */

/* Writes the state to path: a binary file (magic "GNNRTCKP", version, FNV-1a 64 checksum of
 * the payload; docs/runtime.md) written to a temporary name beside path, fsync'd and renamed,
 * so a crash, a kill or a full disk (GNN_ERR_IO, "...: write failed: File too large") leaves
 * the previous file intact. GNN_ERR_INVALID for a state without model, config, table or arrays,
 * a parameter with an empty name ("parameter 0 has an empty name") or a name used twice
 * ("parameter 1 'W' appears twice (first as parameter 0)"), checked before anything is written.
 * (A load compares the table by position and does not refuse a file with repeated names.) */
GNN_API gnn_status gnn_train_state_save(gnn_ctx *ctx, const char *path, const gnn_train_state *s);
/* Reads path whole and checks it (GNN_ERR_FORMAT: truncated, trailing bytes, a checksum
 * mismatch, another version or byte order, a damaged structure), then compares it with s's
 * model, program (where both have one), config, optimiser (Adam moments or none) and every
 * parameter's name and shape
 * (GNN_ERR_INVALID: "FILE: error: a checkpoint of model 'GAT', expected model 'GCN'", "...
 * parameter 0 is 'W1' [1433, 8] in the checkpoint, expected 'W1' [1433, 16]"); only then fills
 * s's arrays and scalars. On any failure s and its arrays are unchanged. */
GNN_API gnn_status gnn_train_state_load(gnn_ctx *ctx, const char *path, gnn_train_state *s);
/* The same checks of the file alone (no model needed): GNN_OK when a load could read it. The
 * model's name goes to model (model_len bytes, may be NULL), the completed epochs to *epoch
 * (may be NULL). */
GNN_API gnn_status gnn_train_state_check(gnn_ctx *ctx, const char *path, char *model, size_t model_len, int64_t *epoch);

/* ---------------------------------------------------------------- NVRTC: kernels compiled at run time */

/* Compiles CUDA C source to PTX for arch ("compute_80", "compute_90", ...) with -default-device
 * -std=c++17. The headers gnnrt_rng.h, gnnrt.h (empty under NVRTC) and a minimal stdint.h are
 * built into the library, so `#include "gnnrt_rng.h"` works wherever the library is installed;
 * no GPU is needed. *ptx_out is malloc'd and NUL-terminated (free() it), *len its length
 * without the NUL. On failure err (errlen bytes, may be NULL) holds the reason: for
 * GNN_ERR_NVRTC, "NAME: NVRTC compilation failed:" and the compiler's log. GNN_ERR_INVALID for
 * an arch not of the form compute_NN; GNN_ERR_UNSUPPORTED in the host build. */
GNN_API gnn_status gnn_nvrtc_compile(const char *source, const char *name, const char *arch, char **ptx_out,
                                     size_t *len, char *err, size_t errlen);

typedef struct gnn_module gnn_module;
/* Loads PTX into the context's device (driver API: cuModuleLoadData) and looks up nkernels
 * kernels by name (extern "C" names) into kernels[] (CUfunction handles). GNN_ERR_CUDA when
 * the driver refuses; GNN_ERR_UNSUPPORTED in the host build. */
GNN_API gnn_status gnn_nvrtc_load(gnn_ctx *ctx, const char *ptx, int nkernels, const char *const names[],
                                  void *kernels[], gnn_module **out);
/* Launches a kernel from gnn_nvrtc_load on the context's stream (cuLaunchKernel); args[i]
 * points at the i-th argument. */
GNN_API gnn_status gnn_kernel_launch(gnn_ctx *ctx, void *kernel, const unsigned grid[3], const unsigned block[3],
                                     unsigned shared_bytes, void **args);
GNN_API void gnn_nvrtc_unload(gnn_ctx *ctx, gnn_module *mod);

#ifdef __cplusplus
}
#endif

#endif /* __CUDACC_RTC__ */
#endif /* GNNRT_H */
