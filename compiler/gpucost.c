/* gpucost.c -- gnnc model.gnn --gpu=h100|h200 --graph FILE: a GPU time estimate per step that
 * knows the graph (issue 29's "without a GPU").
 *
 * kstats.c counts each step's bytes the way the paper does: every row a kernel touches, at
 * |V| and |E|. On a GPU what costs is DRAM traffic, and for the gathered rows (x[src] on every
 * edge) that depends on the graph: a neighbour read again while its row is still in L2 costs no
 * DRAM. So, per kernel with gathered reads, the index stream the kernel walks (the sources of
 * every vertex's in-edges in CSR order for a walk over in-edges and for a kernel over edges; the
 * destinations of out-edges for a walk over out-edges) goes through a simulated L2: 16-way
 * set-associative, LRU, whose lines are a vertex's gathered rows, all buffers together (they are
 * read together), in 32-byte sectors. Misses times the rows' bytes are the gathered DRAM bytes;
 * every other byte streams (compulsory).
 *
 * Bytes alone put PubMed's forward 3.5-4x under the one GPU measurement (docs/benchmarks.md): a
 * group of lanes waits on its loads. So each kernel also has a latency bound. A group (one row: a
 * vertex, an edge) runs a chain of dependent global loads: its row's offsets, then per chunk of
 * the walk the edge ids and what they index (one level each), then per edge the serial loops that
 * gather a row (the lanes walk the chunk's edges one by one). The levels are read off the kernel
 * IR (the deepest chain of loads through locals and shared arrays in each region), each costs
 * one memory latency (an L2 hit or a DRAM access, mixed by the kernel's simulated miss rate), and
 * a row with d edges costs prologue + ceil(d / chunk) x chunk levels + d x edge levels: a row
 * shorter than the group still pays a whole chunk (the lanes it leaves idle). The groups run
 * P at a time (the SMs times the groups an SM holds: threads, blocks and shared memory; not
 * registers), so the kernel takes at least max(sum of chains / P, the longest chain) latencies:
 * the work bound, and the span of the hub row that one group walks alone. A step's time is then
 * a launch plus the larger of that and its bytes' time: DRAM bytes / DRAM bandwidth, all bytes /
 * L2 bandwidth and (GEMMs) FLOPs / 70% of the FP32 peak, whichever is largest.
 *
 * Each kernel with gathered rows is costed again as if its gathered columns were walked in 2, 4
 * or 8 tiles (narrower rows: more fit the L2; the graph walked once per tile, its chains too, in
 * one launch), and the fastest tiling is printed beside it: what issue 29's column tiling
 * (--tile-columns, lower_tiles.c) would buy on this graph; --tile-columns=auto takes it, and a
 * kernel compiled in tiles is costed as it is. Estimates, to be held against measurements (make gpu-check,
 * bench/gpu_estimate.sh): the stream is taken in CSR order although thousands of warps
 * interleave it; a kernel over edges also reads x[dst] in order, counted here as if it were
 * gathered like x[src]; atomics, arithmetic, divergence, register-limited occupancy, the order in
 * which blocks start and cuBLAS's own efficiency are not modelled.
 *
 * The graph: a .gcsr cache (runtime/cache.c's layout, read here directly: header, in_ptr, src)
 * or anything gnnc run reads (a dataset folder, an edge list), as it is (no self-loops added).
 */
#include "gpucost.h"
#include "kstats.h"
#include "graph.h"
#include "gnnrt_pieces.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  double dram_bw;    /* bytes/s a device copy reaches (read + write) */
  double l2_bytes;
  double l2_bw;      /* bytes/s */
  double fp32;       /* FLOP/s, FP32 without tensor cores (cuBLAS SGEMM) */
  double tf32;       /* FLOP/s, TF32 on tensor cores, dense (--gemm-precision=tf32) */
  double launch;     /* s per step: launch and the gap between dependent kernels */
  int sms;           /* streaming multiprocessors */
  double l2_lat;     /* s from a load's issue to its use, an L2 hit */
  double dram_lat;   /* the same, an L2 miss served by HBM */
  const char *source;
} GpuSpec;

/* Bandwidths as a copy measures them, not the data sheet's: the H200's 4.15 TB/s is the device
 * copy of the gpu-check run (bench/results/gpu-check-2026-11-26-NVIDIA-H200-1aac3f1: 4,143.5
 * GB/s); the H100's is its 3.35 TB/s data-sheet figure at the same 86%. L2: 50 MB on both (the
 * SXM parts enable 50 of GH100's 60 MB); its bandwidth ~2.5x DRAM's (published microbenchmarks:
 * 7-10 TB/s). FP32: 67 TFLOP/s, TF32 tensor cores 495 TFLOP/s dense (989 with sparsity), 132 SMs
 * (SXM data sheets; the H200 is the same GH100 with HBM3e).
 * Launch: ~5 us a dependent step (the upper end of the 3-5 us a CUDA launch and the gap before a
 * dependent kernel take; not measured yet: gpu-check's per-kernel profile has not run).
 * Latencies: round figures inside the range published pointer-chase microbenchmarks give for
 * Hopper (Chips and Cheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023; Luo et al.,
 * "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture", arXiv 2402.13499): an L2 hit
 * a few hundred cycles, ~200 ns with the load's address arithmetic; HBM about twice and a half
 * that, ~500 ns. The same on both parts (one die, one memory system design); not measured on ours. */
static const GpuSpec gpus[] = {
    {"h100", 2.88e12, 50e6, 7.5e12, 67e12, 495e12, 5e-6, 132, 200e-9, 500e-9,
     "H100 SXM: HBM3 3.35 TB/s x 0.86 (a copy), L2 50 MB, 132 SMs, latency L2 200 ns / HBM 500 ns"},
    {"h200", 4.15e12, 50e6, 10e12, 67e12, 495e12, 5e-6, 132, 200e-9, 500e-9,
     "H200: a device copy measured 4.15 TB/s (gpu-check), L2 50 MB, 132 SMs, latency L2 200 ns / HBM 500 ns"},
};
/* What every Hopper SM holds (CUDA programming guide, compute capability 9.0): resident threads,
 * resident blocks, shared memory (the block's static arrays plus 1 KB the runtime reserves). */
enum { SM_THREADS = 2048, SM_BLOCKS = 32, SM_SHARED = 228 * 1024, BLOCK_RESERVED_SHARED = 1024 };

const char *gpucost_names(void) { return "h100, h200"; }

static const GpuSpec *find_gpu(const char *name) {
  for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
    if (strcmp(name, gpus[i].name) == 0) return &gpus[i];
  return NULL;
}

bool gpucost_known(const char *name) { return find_gpu(name) != NULL; }

/* ---------------------------------------------------------------- the graph's index streams */

typedef struct {
  int64_t nv, ne;
  int32_t *in_src;  /* the source of every in-edge, CSR order (by destination) */
  int32_t *out_dst; /* the destination of every out-edge, CSC order (by source); made on demand */
  int64_t *in_ptr;
  int64_t *out_deg; /* out-degree of every vertex; made on demand */
} Streams;

static void streams_free(Streams *st) { free(st->in_ptr), free(st->in_src), free(st->out_dst), free(st->out_deg); }

static bool read_gcsr(Streams *st, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) return snprintf(err, errlen, "%s: cannot open", path), false;
  unsigned char h[64];
  bool ok = fread(h, 1, 64, f) == 64 && memcmp(h, "GNNRTCSR", 8) == 0;
  uint32_t version = 0;
  if (ok) memcpy(&version, h + 8, 4), memcpy(&st->nv, h + 24, 8), memcpy(&st->ne, h + 32, 8);
  if (!ok || version != 1 || st->nv < 1 || st->ne < 0 || st->nv > ((int64_t)1 << 31) || st->ne > ((int64_t)1 << 40)) {
    fclose(f);
    return snprintf(err, errlen, "%s: not a version-1 graph cache (.gcsr, runtime/cache.c)", path), false;
  }
  st->in_ptr = malloc(sizeof(int64_t) * (size_t)(st->nv + 1));
  st->in_src = malloc(sizeof(int32_t) * (size_t)(st->ne + 1));
  ok = st->in_ptr && st->in_src && fread(st->in_ptr, 8, (size_t)st->nv + 1, f) == (size_t)st->nv + 1 &&
       fread(st->in_src, 4, (size_t)st->ne, f) == (size_t)st->ne;
  fclose(f);
  if (!ok) return snprintf(err, errlen, "%s: truncated graph cache", path), false;
  for (int64_t v = 0; v < st->nv; v++)
    if (st->in_ptr[v] > st->in_ptr[v + 1]) return snprintf(err, errlen, "%s: corrupted graph cache (in_ptr)", path), false;
  if (st->in_ptr[0] != 0 || st->in_ptr[st->nv] != st->ne) return snprintf(err, errlen, "%s: corrupted graph cache", path), false;
  for (int64_t e = 0; e < st->ne; e++)
    if (st->in_src[e] < 0 || st->in_src[e] >= st->nv) return snprintf(err, errlen, "%s: corrupted graph cache (ids)", path), false;
  return true;
}

static bool load_streams(Streams *st, const char *path, char *err, size_t errlen) {
  size_t n = strlen(path);
  if (n > 5 && strcmp(path + n - 5, ".gcsr") == 0) return read_gcsr(st, path, err, errlen);
  Graph g = {0};
  if (!graph_load(&g, path, err, errlen) || !graph_build_csr(&g, err, errlen)) {
    graph_free(&g);
    return false;
  }
  st->nv = g.nv, st->ne = g.ne;
  st->in_ptr = malloc(sizeof(int64_t) * (size_t)(g.nv + 1));
  st->in_src = malloc(sizeof(int32_t) * (size_t)(g.ne + 1));
  if (!st->in_ptr || !st->in_src) {
    graph_free(&g);
    return snprintf(err, errlen, "out of memory for the graph"), false;
  }
  memcpy(st->in_ptr, g.in_ptr, sizeof(int64_t) * (size_t)(g.nv + 1));
  for (int64_t k = 0; k < g.ne; k++) st->in_src[k] = (int32_t)g.src[g.in_eid[k]];
  graph_free(&g);
  return true;
}

/* The out-edges' destinations by source (a counting sort of the in-edges). */
static const int32_t *out_stream(Streams *st) {
  if (st->out_dst) return st->out_dst;
  int64_t *ptr = calloc((size_t)st->nv + 1, sizeof(int64_t));
  st->out_dst = malloc(sizeof(int32_t) * (size_t)(st->ne + 1));
  if (!ptr || !st->out_dst) {
    free(ptr);
    return NULL;
  }
  for (int64_t e = 0; e < st->ne; e++) ptr[st->in_src[e] + 1]++;
  for (int64_t v = 0; v < st->nv; v++) ptr[v + 1] += ptr[v];
  for (int64_t v = 0; v < st->nv; v++)
    for (int64_t k = st->in_ptr[v]; k < st->in_ptr[v + 1]; k++) st->out_dst[ptr[st->in_src[k]]++] = (int32_t)v;
  free(ptr);
  return st->out_dst;
}

/* The out-degrees (the walks over out-edges); NULL without memory. */
static const int64_t *out_degrees(Streams *st) {
  if (st->out_deg) return st->out_deg;
  st->out_deg = calloc((size_t)st->nv + 1, sizeof(int64_t));
  if (st->out_deg)
    for (int64_t e = 0; e < st->ne; e++) st->out_deg[st->in_src[e]]++;
  return st->out_deg;
}

/* ---------------------------------------------------------------- the L2 */

/* Misses of the stream through a 16-way LRU cache of `rows` lines (a line: one vertex's rows). */
int64_t gpucost_misses(const int32_t *stream, int64_t n, int64_t rows) {
  enum { WAYS = 16 };
  int64_t sets = rows / WAYS;
  if (sets < 1) sets = 1;
  int32_t *tag = malloc(sizeof(int32_t) * (size_t)(sets * WAYS));
  uint32_t *age = calloc((size_t)(sets * WAYS), sizeof(uint32_t));
  if (!tag || !age) {
    free(tag), free(age);
    return n; /* no memory to simulate: every read a miss (an upper bound) */
  }
  for (int64_t i = 0; i < sets * WAYS; i++) tag[i] = -1;
  int64_t misses = 0;
  uint32_t clock = 0;
  for (int64_t k = 0; k < n; k++) {
    uint32_t v = (uint32_t)stream[k];
    int64_t set = (int64_t)((v * 2654435761u) % (uint64_t)sets); /* hashed: ids are not spread evenly */
    int32_t *t = tag + set * WAYS;
    uint32_t *a = age + set * WAYS;
    int hit = -1, lru = 0;
    for (int w = 0; w < WAYS; w++) {
      if (t[w] == (int32_t)v) hit = w;
      if (a[w] < a[lru]) lru = w;
    }
    if (hit < 0) {
      misses++;
      hit = lru;
      t[hit] = (int32_t)v;
    }
    a[hit] = ++clock;
  }
  free(tag), free(age);
  return misses;
}

/* ---------------------------------------------------------------- latency: a group's chain of loads */

/* A kernel's chain of dependent global loads, in levels (one memory latency each), read off its
 * IR: `pro` in the run of the kernel's body outside its walks (the row's offsets, its own row's
 * loads), and per walk over edges: `chunk` levels per run of the walk's body (a chunk of `step`
 * edges: their ids, then what the ids index) and `edge` levels per edge in the serial loops the
 * group runs over a chunk's edges (a gathered row each). */
enum { MAX_WALKS = 4 };
typedef struct {
  int pro;
  int nwalks;
  struct {
    int64_t step;
    int chunk, edge;
  } w[MAX_WALKS];
} Chain;

typedef struct {
  int *var; /* per local: the levels of loads its value waits on in the current region */
  int *sh;  /* per shared array: the same for what was stored in it */
  int nvar, nsh;
  Chain *ch;
} Depth;

static int imax(int a, int b) { return a > b ? a : b; }

/* The levels of dependent global loads an expression waits on: a load or a graph array read is
 * one level after its index; locals and shared arrays carry what their values waited on. */
static int ex_depth(const Depth *d, const KExpr *e) {
  if (!e) return 0;
  int m = imax(ex_depth(d, e->a), imax(ex_depth(d, e->b), ex_depth(d, e->c)));
  switch (e->kind) {
  case KE_LOAD:
  case KE_GRAPH: return m + 1;
  case KE_VAR: return imax(m, e->var >= 0 && e->var < d->nvar ? d->var[e->var] : 0);
  case KE_SHARED: return imax(m, e->var >= 0 && e->var < d->nsh ? d->sh[e->var] : 0);
  default: return m;
  }
}

static bool const_bounds(const KStmt *s) { return s->lo->kind == KE_ICONST && s->hi->kind == KE_ICONST; }

static int region(Depth *d, const PtrVec *blk, bool in_walk);

/* A nested region (a walk's body, a serial loop over a chunk's edges): its chain starts afresh,
 * every value computed before it ready; what it computes is ready after it. */
static int nested(Depth *d, const PtrVec *blk, bool in_walk) {
  int *var = malloc(sizeof(int) * (size_t)(d->nvar + 1)), *sh = malloc(sizeof(int) * (size_t)(d->nsh + 1));
  if (!var || !sh) {
    free(var), free(sh);
    return 1;
  }
  memcpy(var, d->var, sizeof(int) * (size_t)d->nvar), memcpy(sh, d->sh, sizeof(int) * (size_t)d->nsh);
  memset(d->var, 0, sizeof(int) * (size_t)d->nvar), memset(d->sh, 0, sizeof(int) * (size_t)d->nsh);
  int levels = region(d, blk, in_walk);
  memcpy(d->var, var, sizeof(int) * (size_t)d->nvar), memcpy(d->sh, sh, sizeof(int) * (size_t)d->nsh);
  free(var), free(sh);
  return levels;
}

/* The deepest chain of loads in one run of blk, the nested regions apart (recorded in d->ch). */
static int region(Depth *d, const PtrVec *blk, bool in_walk) {
  int deep = 0;
  for (int i = 0; i < blk->len; i++) {
    const KStmt *s = blk->items[i];
    int x = imax(imax(ex_depth(d, s->row), ex_depth(d, s->idx)), imax(ex_depth(d, s->val), ex_depth(d, s->lo)));
    x = imax(x, ex_depth(d, s->hi));
    deep = imax(deep, x);
    if (s->kind == KS_LET && s->var >= 0 && s->var < d->nvar) /* an array element: the deepest of its elements */
      d->var[s->var] = s->idx ? imax(d->var[s->var], x) : x;
    if (s->kind == KS_SHSTORE && s->var >= 0 && s->var < d->nsh) d->sh[s->var] = imax(d->sh[s->var], x);
    if (s->kind == KS_FOR && s->walk && !in_walk) {
      Chain *ch = d->ch;
      if (ch->nwalks < MAX_WALKS) ch->w[ch->nwalks++].step = s->count > 1 ? s->count : 1; /* more: the last slot adds up */
      ch->w[ch->nwalks - 1].chunk += nested(d, &s->body, true);
      continue;
    }
    if (s->kind == KS_FOR && in_walk && !const_bounds(s)) { /* the group's serial loop over the chunk's edges */
      d->ch->w[d->ch->nwalks - 1].edge += nested(d, &s->body, true);
      continue;
    }
    if (s->kind == KS_FOR || s->kind == KS_FOR_LANES || s->kind == KS_IF) deep = imax(deep, region(d, &s->body, in_walk));
  }
  return deep;
}

static Chain kernel_chain(const Kernel *k) {
  Chain ch = {0};
  Depth d = {calloc((size_t)k->nlocals + 1, sizeof(int)), calloc((size_t)k->nshared + 1, sizeof(int)), k->nlocals, k->nshared, &ch};
  if (!d.var || !d.sh) {
    free(d.var), free(d.sh);
    ch.pro = 1;
    return ch;
  }
  ch.pro = region(&d, &k->body, false);
  free(d.var), free(d.sh);
  return ch;
}

/* Groups resident at once: per SM as many blocks as its threads, block slots and shared memory
 * allow (registers are not known here), each block gpb groups of G lanes (emit_cuda.c's launch). */
static double resident_groups(const Kernel *k, const GpuSpec *gpu) {
  int G = k->group > 0 ? k->group : 1, gpb = kernel_groups_per_block(k);
  int64_t threads = (int64_t)gpb * G, shared = kernel_shared_bytes(k, gpb);
  int64_t blocks = SM_THREADS / (threads > 0 ? threads : 1);
  if (blocks > SM_BLOCKS) blocks = SM_BLOCKS;
  if (shared > 0 && SM_SHARED / (shared + BLOCK_RESERVED_SHARED) < blocks) blocks = SM_SHARED / (shared + BLOCK_RESERVED_SHARED);
  if (blocks < 1) blocks = 1;
  return (double)gpu->sms * (double)blocks * gpb;
}

typedef struct {
  double work, span; /* levels: summed over the kernel's groups, and the longest group's */
  double lanes;      /* edges over the lane slots their chunks take (the first walk in chunks); -1: none */
} ChainCost;

/* The chains of a kernel's groups on this graph. A group of a walk over in-edges walks in_ptr's
 * rows; over out-edges, the out-degrees; over a graph's vertices (a readout), the file's one graph. */
static ChainCost chain_cost(const Kernel *k, const Chain *ch, Streams *st) {
  ChainCost c = {0, 0, -1};
  double rows = k->rows == DOM_PARAM ? (double)k->nrows : k->rows == DOM_EDGE ? (double)st->ne : k->rows == DOM_GLOBAL ? 1 : (double)st->nv;
  if (ch->nwalks == 0 || k->map != MAP_VERTEX) {
    c.work = rows * ch->pro, c.span = ch->pro;
    return c;
  }
  const int64_t *deg = k->dir == GATHER_BY_SRC ? out_degrees(st) : NULL;
  int64_t n = k->dir == GATHER_BY_GRAPH ? 1 : st->nv;
  double used = 0, slots = 0;
  /* hub rows in pieces (--split-hubs): a row longer than the piece length is walked, in its first
   * walk, by a group per piece; the group of its last piece merges the partial results (a ticket
   * and the partial rows' loads: 2 levels), then runs the later walks over the whole row */
  int64_t plen = k->pieces ? gnn_piece_len(st->nv, st->ne) : 0;
  for (int64_t v = 0; v < n; v++) {
    int64_t d = k->dir == GATHER_BY_GRAPH ? st->nv : deg ? deg[v] : st->in_ptr[v + 1] - st->in_ptr[v];
    if (plen && d > plen) {
      double later = 0;
      for (int w = 1; w < ch->nwalks; w++)
        later += (double)((d + ch->w[w].step - 1) / ch->w[w].step) * ch->w[w].chunk + (double)d * ch->w[w].edge;
      c.work += ch->pro; /* the vertex's own group, which finds its row in pieces */
      for (int64_t lo = 0; lo < d; lo += plen) {
        int64_t pd = d - lo < plen ? d - lo : plen, chunks = (pd + ch->w[0].step - 1) / ch->w[0].step;
        double levels = ch->pro + (double)chunks * ch->w[0].chunk + (double)pd * ch->w[0].edge + 2 + (lo + plen >= d ? later : 0);
        if (ch->w[0].step > 1) used += (double)pd, slots += (double)(chunks * ch->w[0].step);
        c.work += levels;
        if (levels > c.span) c.span = levels;
      }
      continue;
    }
    double levels = ch->pro;
    for (int w = 0; w < ch->nwalks; w++) {
      int64_t chunks = (d + ch->w[w].step - 1) / ch->w[w].step;
      levels += (double)chunks * ch->w[w].chunk + (double)d * ch->w[w].edge;
      if (w == 0 && ch->w[0].step > 1) used += (double)d, slots += (double)(chunks * ch->w[0].step);
    }
    c.work += levels;
    if (levels > c.span) c.span = levels;
  }
  if (slots > 0) c.lanes = used / slots;
  return c;
}

/* ---------------------------------------------------------------- the report */

typedef struct {
  double dram, l2, time;
  double bytes_time; /* the largest of DRAM, L2 and FLOPs time, no launch */
  double lat_time;   /* the chains' bound: max(work / resident groups, span) latencies */
  const char *bound; /* which term sets the time: dram, l2, flops, groups (work), row (span) */
  double lanes;      /* -1: no walk in chunks */
  double miss_rate;  /* -1: nothing gathered */
  int tiles;         /* the column tiling that the estimate finds fastest (1: none) */
  double tiled_time, tiled_miss;
  int compiled_tiles; /* the kernel's own column tiles (--tile-columns), costed as compiled; else 1 */
} StepEst;

/* Misses already simulated, by stream and cache size (kernels of one model share their widths). */
typedef struct {
  const int32_t *stream;
  int64_t rows, misses;
} Memo;
static int64_t misses_memo(Memo *memo, int *nmemo, const int32_t *stream, int64_t n, int64_t rows) {
  for (int i = 0; i < *nmemo; i++)
    if (memo[i].stream == stream && memo[i].rows == rows) return memo[i].misses;
  int64_t m = gpucost_misses(stream, n, rows);
  if (*nmemo < 64) memo[(*nmemo)++] = (Memo){stream, rows, m};
  return m;
}

/* The bytes' and FLOPs' time, and which of them sets it (FLOPs at 70% of the peak: FP32, or a TF32
 * GEMM's tensor cores). */
static double bytes_seconds(const GpuSpec *gpu, double dram, double l2, double flops, bool tf32, const char **bound) {
  double tm = dram / gpu->dram_bw, peak = 0.7 * (tf32 ? gpu->tf32 : gpu->fp32);
  *bound = "dram";
  if (l2 / gpu->l2_bw > tm) tm = l2 / gpu->l2_bw, *bound = "l2";
  if (flops / peak > tm) tm = flops / peak, *bound = "flops";
  return tm;
}

/* One step. A kernel with gathered rows is also costed as if its gathered columns were walked in
 * T tiles (issue 29's lever 2, as lower_tiles.c compiles it): each tile's rows are T times
 * narrower, so T times more of them fit the L2, at the price of walking the graph (in_ptr, src)
 * T times and T times the chains, in one launch (the tiles' groups run side by side: the longest
 * chain is one tile's). A kernel compiled in tiles (--tile-columns) is costed as it is: its
 * counted bytes are already every tile's (kstats.c), its gathered row one tile's. */
static StepEst estimate(const KStep *s, const GpuSpec *gpu, Streams *st, Memo *memo, int *nmemo) {
  double V = (double)st->nv, E = (double)st->ne;
  KTraffic t = kstats_step_traffic(s, V, E);
  StepEst r = {t.read + t.write, t.read + t.write, 0, 0, 0, "dram", -1, -1, 1, 0, -1, 1};
  int kt = s->kind == STEP_KERNEL && s->kernel->col_tiles > 1 ? s->kernel->col_tiles : 1;
  r.compiled_tiles = kt;
  ChainCost cc = {0, 0, -1};
  double groups = 1;
  if (s->kind == STEP_KERNEL) {
    Chain ch = kernel_chain(s->kernel);
    cc = chain_cost(s->kernel, &ch, st);
    groups = resident_groups(s->kernel, gpu);
    r.lanes = cc.lanes;
  }
  const int32_t *stream = st->in_src;
  if (s->kind == STEP_KERNEL && s->kernel->map == MAP_VERTEX && s->kernel->dir == GATHER_BY_SRC) stream = out_stream(st);
  if (s->kind == STEP_SPMM && s->spmm.dir == GATHER_BY_SRC) stream = out_stream(st);
  bool gathers = t.gathered > 0 && t.gather_row_sectors > 0;
  double comp = t.read + t.write - t.gathered, index = 8 * V + 4 * E;
  /* (an SpMM is cuSPARSE's to schedule: priced at its bytes, untiled, no chains) */
  for (int T = 1; T <= (gathers && kt == 1 && s->kind == STEP_KERNEL ? 8 : 1); T *= 2) {
    if (gathers && t.gather_row_sectors < T) break; /* a tile narrower than a sector saves nothing */
    double l2 = r.l2, dram = r.dram, miss = -1;
    int nt = T * kt; /* the tiles walked */
    if (gathers) {
      double row = 32 * t.gather_row_sectors / T;
      int64_t rows = (int64_t)(gpu->l2_bytes / row);
      int64_t misses = stream ? misses_memo(memo, nmemo, stream, st->ne, rows) : st->ne;
      /* the compulsory part as counted, the gathered part at sector granularity: E reads from
       * L2, the misses from DRAM, in each of the tiles */
      l2 = comp + E * row * nt + index * (nt - 1), dram = comp + (double)misses * row * nt + index * (nt - 1);
      miss = st->ne ? (double)misses / (double)st->ne : 0;
    }
    /* a level's latency: the gathered rows' mix of L2 hits and misses; a kernel that gathers
     * nothing streams, each group's first loads from DRAM */
    double lat = miss >= 0 ? miss * gpu->dram_lat + (1 - miss) * gpu->l2_lat : gpu->dram_lat;
    double work = cc.work / groups * lat * nt, span = cc.span * lat;
    const char *bound;
    double bytes = bytes_seconds(gpu, dram, l2, t.flops, s->kind == STEP_GEMM && s->gemm.tf32, &bound), tm = bytes;
    if (work > tm) tm = work, bound = "groups";
    if (span > tm) tm = span, bound = "row";
    tm += gpu->launch;
    /* an SpMM also launches the offsets' narrowing and (over out-edges, or without weights) the
     * values' kernel before cuSPARSE's (runtime/spmm_cuda.cu) */
    if (s->kind == STEP_SPMM) tm += gpu->launch * (s->spmm.w && s->spmm.dir == GATHER_BY_DST ? 1 : 2);
    if (T == 1) {
      r.dram = dram, r.l2 = l2, r.time = tm, r.miss_rate = miss, r.bytes_time = bytes, r.bound = bound;
      r.lat_time = work > span ? work : span;
    }
    if (T == 1 || tm < r.tiled_time) r.tiles = T, r.tiled_time = tm, r.tiled_miss = miss;
  }
  return r;
}

/* gpucost_choose_tiles and gpucost_check_tiles: with check, p is the program lowered with out's
 * choices, and a kernel whose compiled tiles are not 5% faster than it was whole loses its choice
 * (the explored tiling leaves out that the narrow values are gathered in every tile); returns the
 * kernels dropped, or -1. */
static int tiles_pass(const KProgram *p, const char *gpu_name, const char *graph_path, TileChoice *out, bool check) {
  const GpuSpec *gpu = find_gpu(gpu_name);
  char err[512] = "";
  Streams st = {0};
  if (!gpu || !load_streams(&st, graph_path, err, sizeof err)) {
    fprintf(stderr, "gnnc: --tile-columns=auto: %s\n", gpu ? err : "an unknown GPU");
    streams_free(&st);
    return -1;
  }
  Memo memo[64];
  int nmemo = 0, dropped = 0;
  for (int i = 0; i < p->nsteps; i++) {
    const KStep *s = &p->steps[i];
    const Kernel *k = s->kernel;
    if (s->kind != STEP_KERNEL || k->map != MAP_VERTEX || k->rows != DOM_VERTEX || k->pieces) continue;
    if (check) {
      if (k->col_tiles <= 1 || out[k->id].tiles <= 1) continue;
      StepEst e = estimate(s, gpu, &st, &memo[0], &nmemo);
      if (e.time > 0.95 * out[k->id].ms) out[k->id].tiles = 0, dropped++;
      else out[k->id].tiled_ms = e.time, out[k->id].tiled_miss = e.miss_rate; /* the note gives the compiled kernel's */
      continue;
    }
    if (k->col_tiles > 1) continue;
    StepEst e = estimate(s, gpu, &st, &memo[0], &nmemo);
    if (e.tiles <= 1 || e.tiled_time > 0.95 * e.time || !tile_width_for(kernel_gathered_width(k), e.tiles, k->group)) continue;
    out[k->id] = (TileChoice){e.tiles, e.time, e.tiled_time, e.miss_rate, e.tiled_miss};
  }
  streams_free(&st);
  return dropped;
}

bool gpucost_choose_tiles(const KProgram *p, const char *gpu, const char *graph_path, TileChoice *out) {
  return tiles_pass(p, gpu, graph_path, out, false) >= 0;
}

int gpucost_check_tiles(const KProgram *p, const char *gpu, const char *graph_path, TileChoice *out) {
  return tiles_pass(p, gpu, graph_path, out, true);
}

bool gpucost_report(FILE *out, const KProgram *p, const char *gpu_name, const char *graph_path) {
  const GpuSpec *gpu = find_gpu(gpu_name);
  char err[512] = "";
  Streams st = {0};
  if (!gpu) {
    fprintf(stderr, "gnnc: --gpu=%s: known GPUs are %s\n", gpu_name, gpucost_names());
    return false;
  }
  if (!load_streams(&st, graph_path, err, sizeof err)) {
    fprintf(stderr, "gnnc: --gpu: %s\n", err);
    streams_free(&st);
    return false;
  }
  fprintf(out, "GPU estimate: %s on %s (%lld vertices, %lld edges); %s; docs/benchmarks.md\n", gpu->name, graph_path,
          (long long)st.nv, (long long)st.ne, gpu->source);
  fprintf(out, "  %-4s %-8s %-44s %10s %10s %7s %9s %9s %-6s %5s %9s  %s\n", "step", "pass", "kernel", "DRAM", "L2", "L2 miss",
          "bytes ms", "lat. ms", "bound", "lanes", "est. ms", "column tiles: ms (miss)");
  double fwd = 0, infer = 0, all = 0, dram_f = 0, dram_all = 0, infer_t = 0, all_t = 0;
  double infer_launch = 0, infer_lat = 0, infer_row = 0, infer_bytes = 0, all_bytes = 0;
  int infer_steps = 0;
  Memo memo[64];
  int nmemo = 0;
  for (int i = 0; i < p->nsteps; i++) {
    const KStep *s = &p->steps[i];
    StepEst e = estimate(s, gpu, &st, memo, &nmemo);
    const char *name = kstats_step_name(s);
    char miss[16] = "", tiled[64] = "", lanes[16] = "-";
    if (e.miss_rate >= 0) snprintf(miss, sizeof miss, "%.1f%%", 100 * e.miss_rate);
    if (e.lanes >= 0) snprintf(lanes, sizeof lanes, "%.2f", e.lanes);
    if (e.tiles > 1) snprintf(tiled, sizeof tiled, "  %d: %.3f (%.1f%%)", e.tiles, 1e3 * e.tiled_time, 100 * e.tiled_miss);
    if (e.compiled_tiles > 1) snprintf(tiled, sizeof tiled, "  %d, compiled", e.compiled_tiles);
    fprintf(out, "  %-4d %-8s %-44s %10s %10s %7s %9.3f %9.3f %-6s %5s %9.3f%s\n", i,
            s->per_graph ? "graph" : i < p->nfwd ? "forward" : "backward", name,
            kstats_human(e.dram), kstats_human(e.l2), miss, 1e3 * e.bytes_time, 1e3 * e.lat_time, e.bound, lanes, 1e3 * e.time,
            tiled);
    if (s->per_graph) continue; /* once per graph (the hoist pass), not in every forward */
    all += e.time, dram_all += e.dram, all_t += e.tiled_time, all_bytes += e.bytes_time + gpu->launch;
    if (i < p->nfwd) {
      fwd += e.time, dram_f += e.dram;
      if (!s->train_only) {
        infer += e.time, infer_t += e.tiled_time, infer_steps++, infer_launch += gpu->launch;
        infer_bytes += e.bytes_time + gpu->launch;
        bool lat = strcmp(e.bound, "groups") == 0 || strcmp(e.bound, "row") == 0;
        if (lat) infer_lat += e.time - gpu->launch;
        if (strcmp(e.bound, "row") == 0) infer_row += e.time - gpu->launch;
      }
    }
  }
  fprintf(out, "  inference forward %.3f ms; training forward %.3f ms, step (forward + backward) %.3f ms; "
               "DRAM %s a forward, %s a step\n",
          1e3 * infer, 1e3 * fwd, 1e3 * all, kstats_human(dram_f), kstats_human(dram_all));
  fprintf(out, "  the inference forward's terms: %d launches %.3f ms, latency-bound steps %.3f ms (a hub row's span %.3f ms), "
               "bytes-bound steps %.3f ms\n",
          infer_steps, 1e3 * infer_launch, 1e3 * infer_lat, 1e3 * infer_row, 1e3 * (infer - infer_launch - infer_lat));
  fprintf(out, "  without the chains' latency (bytes and launches alone): inference forward %.3f ms, step %.3f ms\n",
          1e3 * infer_bytes, 1e3 * all_bytes);
  fprintf(out, "  with the column tiles above: inference forward %.3f ms, step %.3f ms\n", 1e3 * infer_t, 1e3 * all_t);
  streams_free(&st);
  return true;
}
