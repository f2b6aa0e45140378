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
 * A step's time is then the largest of DRAM bytes / DRAM bandwidth, all bytes / L2 bandwidth
 * and (GEMMs) FLOPs / 70% of the FP32 peak, plus a launch. Each kernel with gathered rows is costed
 * again as if its gathered columns were walked in 2, 4 or 8 tiles (narrower rows: more fit the L2;
 * the graph walked once per tile), and the fastest tiling is printed beside it: what issue 29's
 * column tiling would buy on this graph, before anyone writes it. Estimates, to be held against
 * measurements (make gpu-check): the stream is taken in CSR order although thousands of warps
 * interleave it (close enough while L2 holds far more rows than are in flight); a kernel over
 * edges also reads x[dst] in order, counted here as if it were gathered like x[src]; atomics,
 * divergence and occupancy are not modelled. docs/benchmarks.md compares the estimate with the one
 * GPU run so far.
 *
 * The graph: a .gcsr cache (runtime/cache.c's layout, read here directly: header, in_ptr, src)
 * or anything gnnc run reads (a dataset folder, an edge list), as it is (no self-loops added).
 */
#include "gnnc.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  double dram_bw;    /* bytes/s a device copy reaches (read + write) */
  double l2_bytes;
  double l2_bw;      /* bytes/s */
  double fp32;       /* FLOP/s, FP32 without tensor cores (cuBLAS SGEMM) */
  double launch;     /* s per step: launch and the gap between dependent kernels */
  const char *source;
} GpuSpec;

/* Bandwidths as a copy measures them, not the data sheet's: the H200's 4.15 TB/s is issue 29's
 * d2d_copy on the one GPU run; the H100's is its 3.35 TB/s data-sheet figure at the same 86%.
 * L2: 50 MB on both (the SXM parts enable 50 of GH100's 60 MB); its bandwidth ~2.5x DRAM's
 * (published microbenchmarks: 7-10 TB/s). FP32: 67 TFLOP/s (SXM). Launch: ~5 us a dependent step. */
static const GpuSpec gpus[] = {
    {"h100", 2.88e12, 50e6, 7.5e12, 67e12, 5e-6, "H100 SXM: HBM3 3.35 TB/s x 0.86 (a copy), L2 50 MB"},
    {"h200", 4.15e12, 50e6, 10e12, 67e12, 5e-6, "H200: a device copy measured 4.15 TB/s (issue 29), L2 50 MB"},
};

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
} Streams;

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

/* ---------------------------------------------------------------- the report */

typedef struct {
  double dram, l2, time;
  double miss_rate; /* -1: nothing gathered */
  int tiles;        /* the column tiling that the estimate finds fastest (1: none) */
  double tiled_time, tiled_miss;
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

static double seconds(const GpuSpec *gpu, double dram, double l2, double flops) {
  double tm = dram / gpu->dram_bw;
  if (l2 / gpu->l2_bw > tm) tm = l2 / gpu->l2_bw;
  if (flops / (0.7 * gpu->fp32) > tm) tm = flops / (0.7 * gpu->fp32);
  return tm + gpu->launch;
}

/* One step. A kernel with gathered rows is also costed as if its gathered columns were walked in
 * T tiles (issue 29's lever 2): each tile's rows are T times narrower, so T times more of them fit
 * the L2, at the price of walking the graph (in_ptr, src) T times and T launches. */
static StepEst estimate(const KStep *s, const GpuSpec *gpu, Streams *st, Memo *memo, int *nmemo) {
  double V = (double)st->nv, E = (double)st->ne;
  KTraffic t = kstats_step_traffic(s, V, E);
  StepEst r = {t.read + t.write, t.read + t.write, 0, -1, 1, 0, -1};
  r.time = seconds(gpu, r.dram, r.l2, t.flops);
  r.tiled_time = r.time;
  if (t.gathered <= 0 || t.gather_row_sectors <= 0) return r;
  const int32_t *stream = st->in_src;
  if (s->kind == STEP_KERNEL && s->kernel->map == MAP_VERTEX && s->kernel->dir == GATHER_BY_SRC) stream = out_stream(st);
  double comp = t.read + t.write - t.gathered, index = 8 * V + 4 * E;
  for (int T = 1; T <= 8; T *= 2) {
    if (t.gather_row_sectors < T) break; /* a tile narrower than a sector saves nothing */
    double row = 32 * t.gather_row_sectors / T;
    int64_t rows = (int64_t)(gpu->l2_bytes / row);
    int64_t misses = stream ? misses_memo(memo, nmemo, stream, st->ne, rows) : st->ne;
    /* the compulsory part as counted, the gathered part at sector granularity: E reads from L2,
     * the misses from DRAM, in each of T tiles */
    double l2 = comp + E * row * T + index * (T - 1), dram = comp + (double)misses * row * T + index * (T - 1);
    double tm = seconds(gpu, dram, l2, t.flops) + gpu->launch * (T - 1);
    double miss = st->ne ? (double)misses / (double)st->ne : 0;
    if (T == 1) r.dram = dram, r.l2 = l2, r.time = tm, r.miss_rate = miss;
    if (T == 1 || tm < r.tiled_time) r.tiles = T, r.tiled_time = tm, r.tiled_miss = miss;
  }
  return r;
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
    free(st.in_ptr), free(st.in_src), free(st.out_dst);
    return false;
  }
  fprintf(out, "GPU estimate: %s on %s (%lld vertices, %lld edges); %s; docs/benchmarks.md\n", gpu->name, graph_path,
          (long long)st.nv, (long long)st.ne, gpu->source);
  fprintf(out, "  %-4s %-8s %-44s %10s %10s %7s %9s  %s\n", "step", "pass", "kernel", "DRAM", "L2", "L2 miss", "est. ms",
          "column tiles: ms (miss)");
  double fwd = 0, infer = 0, all = 0, dram_f = 0, dram_all = 0, infer_t = 0, all_t = 0;
  Memo memo[64];
  int nmemo = 0;
  for (int i = 0; i < p->nsteps; i++) {
    const KStep *s = &p->steps[i];
    StepEst e = estimate(s, gpu, &st, memo, &nmemo);
    const char *name = s->kind == STEP_KERNEL ? s->kernel->name : s->kind == STEP_GEMM ? "gemm" : s->kind == STEP_ZERO ? "zero" : "fill";
    char miss[16] = "", tiled[64] = "";
    if (e.miss_rate >= 0) snprintf(miss, sizeof miss, "%.1f%%", 100 * e.miss_rate);
    if (e.tiles > 1) snprintf(tiled, sizeof tiled, "  %d: %.3f (%.1f%%)", e.tiles, 1e3 * e.tiled_time, 100 * e.tiled_miss);
    fprintf(out, "  %-4d %-8s %-44s %10s %10s %7s %9.3f%s\n", i, i < p->nfwd ? "forward" : "backward", name, kstats_human(e.dram),
            kstats_human(e.l2), miss, 1e3 * e.time, tiled);
    all += e.time, dram_all += e.dram, all_t += e.tiled_time;
    if (i < p->nfwd) {
      fwd += e.time, dram_f += e.dram;
      if (!s->train_only) infer += e.time, infer_t += e.tiled_time;
    }
  }
  fprintf(out, "  inference forward %.3f ms; training forward %.3f ms, step (forward + backward) %.3f ms; "
               "DRAM %s a forward, %s a step\n",
          1e3 * infer, 1e3 * fwd, 1e3 * all, kstats_human(dram_f), kstats_human(dram_all));
  fprintf(out, "  with the column tiles above: inference forward %.3f ms, step %.3f ms\n", 1e3 * infer_t, 1e3 * all_t);
  free(st.in_ptr), free(st.in_src), free(st.out_dst);
  return true;
}
