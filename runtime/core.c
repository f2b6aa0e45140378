/* core.c -- status names, error messages, the allocation table and the memory counters.
 *
 * Shared by both builds. Errors are stored, never printed: gnn_set_error formats into the
 * context's fixed buffer and flattens the text to one line, so a caller can print it as one
 * diagnostic. The allocation table (see internal.h) counts every byte gnn_malloc hands out, in
 * either build, so live and peak are exact rather than estimates from a driver query.
 */
/* vasprintf (ISO/IEC TR 24731-2; glibc declares it under this macro, musl under _DEFAULT_SOURCE) */
#define __STDC_WANT_LIB_EXT2__ 1
#include "internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gnnrt_rng.h"
#include "gnnrt_hostmem.h"

const char *gnn_status_name(gnn_status s) {
  switch (s) {
  case GNN_OK: return "GNN_OK";
  case GNN_ERR_IO: return "GNN_ERR_IO";
  case GNN_ERR_FORMAT: return "GNN_ERR_FORMAT";
  case GNN_ERR_INVALID: return "GNN_ERR_INVALID";
  case GNN_ERR_OOM: return "GNN_ERR_OOM";
  case GNN_ERR_CUDA: return "GNN_ERR_CUDA";
  case GNN_ERR_CUBLAS: return "GNN_ERR_CUBLAS";
  case GNN_ERR_NVRTC: return "GNN_ERR_NVRTC";
  case GNN_ERR_UNSUPPORTED: return "GNN_ERR_UNSUPPORTED";
  case GNN_ERR_NUMERIC: return "GNN_ERR_NUMERIC";
  }
  return "GNN_ERR_?";
}

const char *gnn_last_error(const gnn_ctx *ctx) {
  if (!ctx) return "no context (gnn_ctx_create could not allocate one)";
  return ctx->err;
}

/* Formats the message into the context, one line. */
/* Copies s into out (len bytes, cut if still too long), each run of more than RT_ERR_WORD bytes
 * without a blank shortened to its first and last RT_ERR_WORD / 2 - 2 bytes around "...". */
enum { RT_ERR_WORD = 240 };
static void rt_shorten_words(const char *s, char *out, size_t len) {
  size_t k = 0;
  while (*s && k + 1 < len) {
    size_t w = 0;
    while (s[w] && s[w] != ' ') w++;
    const size_t half = RT_ERR_WORD / 2 - 2;
    if (w > RT_ERR_WORD) {
      k += (size_t)snprintf(out + k, len - k, "%.*s...%.*s", (int)half, s, (int)half, s + w - half);
      if (k >= len) k = len - 1;
      s += w;
    } else {
      size_t take = w + (s[w] == ' ');
      if (take == 0) take = 1;
      if (take > len - 1 - k) take = len - 1 - k;
      memcpy(out + k, s, take);
      k += take;
      s += take;
      continue;
    }
    if (*s == ' ' && k + 1 < len) out[k++] = *s++;
  }
  out[k] = 0;
}

gnn_status gnn_set_error(gnn_ctx *ctx, gnn_status status, const char *fmt, ...) {
  if (!ctx || !fmt) return status;
  /* A failed context keeps the message of its failure, and every call on it is GNN_ERR_INVALID
   * (gnnrt.h): a generated create's own argument check ("no graph") replaced it. */
  if (ctx->failed) return GNN_ERR_INVALID;
  /* Formatted once, whole (vasprintf), then copied. Too long for the buffer: a path of thousands
   * of bytes (most messages start with one) pushed the reason past the end; each word longer
   * than RT_ERR_WORD is shortened to its start and end ("aaa...aaa"): the reason survives, the
   * path stays recognisable. (It was formatted into the buffer, then, when cut, a second time
   * whole.) An argument may be ctx->err itself: it is read before the buffer is written. */
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  char *whole = NULL;
  int full = vasprintf(&whole, fmt, ap);
  va_end(ap);
  if (full < 0) /* no memory for the whole: what fits, from the start */
    vsnprintf(ctx->err, sizeof ctx->err, fmt, again);
  else if (full < (int)sizeof ctx->err)
    memcpy(ctx->err, whole, (size_t)full + 1);
  else
    rt_shorten_words(whole, ctx->err, sizeof ctx->err);
  va_end(again);
  if (full >= 0) free(whole);
  for (char *p = ctx->err; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  return status;
}

void gnn_clear_error(gnn_ctx *ctx) {
  if (ctx) ctx->err[0] = 0;
}

const char *gnn_last_warning(const gnn_ctx *ctx) {
  return ctx ? ctx->warn : "";
}

/* A warning, stored as an error is (one line), never printed: the library does not print. It
 * replaces the previous one: a load raises at most one (ogb.c: processed/'s, or the cache
 * file's, never both, since an unusable processed/ is not looked into). A load that could raise
 * two different ones would have to join them here (docs/runtime.md, gnn_last_warning). */
void rt_warn(gnn_ctx *ctx, const char *fmt, ...) {
  if (!ctx) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->warn, sizeof ctx->warn, fmt, ap);
  va_end(ap);
  for (char *p = ctx->warn; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
}

gnn_status rt_check_ctx(const gnn_ctx *ctx) {
  return ctx && ctx->failed == GNN_OK ? GNN_OK : GNN_ERR_INVALID;
}

gnn_status rt_args(gnn_ctx *ctx, int ok, const char *fn, const char *what) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  return ok ? GNN_OK : gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s", fn, what);
}

uint64_t rt_fnv1a(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

size_t rt_mul(size_t a, size_t b) {
  if (a != 0 && b > SIZE_MAX / a) return SIZE_MAX;
  return a * b;
}

void *rt_malloc(gnn_ctx *ctx, size_t bytes, const char *what) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory allocating %zu bytes for %s", bytes, what);
  return p;
}

void *rt_calloc(gnn_ctx *ctx, size_t n, size_t size, const char *what) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory allocating %zu x %zu bytes for %s", n, size, what);
  return p;
}

/* ---------------------------------------------------------------- the memory limit */

gnn_status rt_limit_from_env(gnn_ctx *ctx) {
  const char *e = getenv("GNN_MEMORY_LIMIT");
  if (!e || !*e) return GNN_OK;
  if (!gnn_parse_bytes(e, &ctx->limit)) /* gnnrt_hostmem.h: below 2^64 bytes, as gnnc's --memory-budget */
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_ctx_create: GNN_MEMORY_LIMIT=%s is not a byte count (e.g. 2G, 512MiB, 1048576)", e);
  return GNN_OK;
}

gnn_status rt_limit_check(gnn_ctx *ctx, size_t bytes, const char *fn) {
  if (!ctx->limit || (ctx->live <= ctx->limit && bytes <= ctx->limit - ctx->live)) return GNN_OK;
  return gnn_set_error(ctx, GNN_ERR_OOM, "%s: %zu bytes would pass the context's memory limit of %zu bytes (%zu live)", fn, bytes,
                       ctx->limit, ctx->live);
}

gnn_status gnn_set_memory_limit(gnn_ctx *ctx, size_t bytes) {
  gnn_status st = rt_args(ctx, 1, "gnn_set_memory_limit", "");
  if (st) return st;
  ctx->limit = bytes;
  return GNN_OK;
}

/* Host memory the process can still take (gnnrt_hostmem.h: the rule the interpreter's loader
 * shares). */
size_t rt_host_available(void) { return gnn_host_available(); }

gnn_status gnn_mem_available(gnn_ctx *ctx, size_t *bytes) {
  if (bytes) *bytes = 0;
  gnn_status st = rt_args(ctx, bytes != NULL, "gnn_mem_available", "bytes is NULL");
  if (st) return st;
  size_t a = rt_device_available(ctx);
  if (ctx->limit) {
    size_t room = ctx->live < ctx->limit ? ctx->limit - ctx->live : 0;
    if (room < a) a = room;
  }
  *bytes = a;
  return GNN_OK;
}

/* ---------------------------------------------------------------- the allocation table */

static size_t slot_of(const void *p, size_t cap) {
  uint64_t h = gnn_rng_mix((uint64_t)(uintptr_t)p);
  return (size_t)h & (cap - 1);
}

/* Doubles the table (or creates it) and reinserts every entry. */
static gnn_status table_grow(gnn_ctx *ctx) {
  size_t cap = ctx->cap ? ctx->cap * 2 : 64;
  RtAlloc *t = (RtAlloc *)rt_calloc(ctx, cap, sizeof(RtAlloc), "the allocation table");
  if (!t) return GNN_ERR_OOM;
  for (size_t i = 0; i < ctx->cap; i++) {
    if (!ctx->allocs[i].p) continue;
    size_t j = slot_of(ctx->allocs[i].p, cap);
    while (t[j].p) j = (j + 1) & (cap - 1);
    t[j] = ctx->allocs[i];
  }
  free(ctx->allocs);
  ctx->allocs = t;
  ctx->cap = cap;
  return GNN_OK;
}

/* Records a new allocation and updates live and peak. */
gnn_status rt_track_add(gnn_ctx *ctx, void *p, size_t bytes) {
  if ((ctx->nallocs + 1) * 2 > ctx->cap) {
    gnn_status st = table_grow(ctx);
    if (st) return st;
  }
  size_t j = slot_of(p, ctx->cap);
  while (ctx->allocs[j].p) j = (j + 1) & (ctx->cap - 1);
  ctx->allocs[j].p = p;
  ctx->allocs[j].bytes = bytes;
  ctx->nallocs++;
  ctx->live += bytes;
  if (ctx->live > ctx->peak) ctx->peak = ctx->live;
  return GNN_OK;
}

/* Forgets an allocation (0 if p is unknown) and updates live. */
int rt_track_remove(gnn_ctx *ctx, void *p, size_t *bytes) {
  if (!ctx->cap) return 0;
  size_t mask = ctx->cap - 1, j = slot_of(p, ctx->cap);
  while (ctx->allocs[j].p && ctx->allocs[j].p != p) j = (j + 1) & mask;
  if (!ctx->allocs[j].p) return 0;
  *bytes = ctx->allocs[j].bytes;
  ctx->live -= *bytes;
  ctx->nallocs--;
  /* Backward-shift deletion: move later entries of the probe run into the hole when their
   * home slot does not lie cyclically in (hole, k]. */
  size_t hole = j, k = j;
  ctx->allocs[hole].p = NULL;
  for (;;) {
    k = (k + 1) & mask;
    if (!ctx->allocs[k].p) break;
    size_t home = slot_of(ctx->allocs[k].p, ctx->cap);
    int in_range = hole <= k ? (home > hole && home <= k) : (home > hole || home <= k);
    if (in_range) continue;
    ctx->allocs[hole] = ctx->allocs[k];
    ctx->allocs[k].p = NULL;
    hole = k;
  }
  return 1;
}

/* A span of bytes at p must lie wholly inside one of this context's allocations when it touches
 * any: it may start inside one (interior pointers included: an offset into an arena) and must then
 * end inside it; one that starts outside them all but runs into one is refused. A span that
 * touches none passes: the caller's own memory, which the table cannot know, even when it begins
 * exactly where an allocation ends (x + n for an n-element x: in the host build, memory of the
 * caller's may lie there; a span refused for that alone was refused for memory it does not touch).
 * A linear scan over the table: a context holds tens of allocations, and the callers do O(bytes)
 * work or more. */
gnn_status rt_check_span(gnn_ctx *ctx, const void *p, size_t bytes, const char *fn) {
  uintptr_t a = (uintptr_t)p;
  size_t into = 0, into_size = 0;
  int runs_into = 0;
  for (size_t i = 0; i < ctx->cap; i++) {
    uintptr_t base = (uintptr_t)ctx->allocs[i].p;
    size_t size = ctx->allocs[i].bytes;
    if (!base) continue;
    if (a >= base && a - base < size) {
      if (bytes > size - (a - base))
        return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %zu bytes at offset %zu run past the end of a %zu-byte allocation",
                             fn, bytes, (size_t)(a - base), size);
      return GNN_OK;
    }
    /* not inside this one: remember whether the span reaches it (the start of another
     * allocation at p is found by the test above in a later iteration) */
    if (base > a && bytes > base - a && !runs_into) runs_into = 1, into = base - a, into_size = size;
  }
  if (runs_into)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %zu bytes starting %zu bytes before a %zu-byte allocation run into it", fn,
                         bytes, into, into_size);
  return GNN_OK;
}

/* The span of a rows x cols matrix of elem-byte elements with row stride ld at p, checked as
 * rt_check_span does ("FN: WHAT: ..."); a size whose bytes overflow is refused whatever p is.
 * The entry points that take device arrays and their sizes (gnn_spmm, gnn_sgemm, the training
 * helpers) call it on each operand before they touch one. */
gnn_status rt_check_array(gnn_ctx *ctx, const char *fn, const char *what, const void *p, int64_t rows, int64_t cols,
                          int64_t ld, size_t elem) {
  if (rows <= 0 || cols <= 0) return GNN_OK;
  /* the last row need only hold cols elements: (rows - 1) * ld + cols */
  size_t span = rt_mul((size_t)(rows - 1), (size_t)ld);
  if (span != SIZE_MAX && span <= SIZE_MAX - (size_t)cols) span += (size_t)cols;
  else span = SIZE_MAX;
  size_t bytes = rt_mul(span, elem);
  if (bytes == SIZE_MAX || bytes > (size_t)PTRDIFF_MAX)
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s: %lld x %lld elements of %zu bytes do not fit in memory", fn, what,
                         (long long)rows, (long long)cols, elem);
  if (!p) return GNN_OK;
  char name[128];
  snprintf(name, sizeof name, "%s: %s", fn, what);
  return rt_check_span(ctx, p, bytes, name);
}

/* gnn_sgemm's operands (both builds), after its size checks: A is m x k (k x m transposed) with
 * stride lda, B k x n (n x k) with ldb, C m x n with ldc. */
gnn_status rt_sgemm_spans(gnn_ctx *ctx, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *A,
                          int64_t lda, const float *B, int64_t ldb, const float *C, int64_t ldc) {
  gnn_status st;
  if ((st = rt_check_array(ctx, "gnn_sgemm", "A", A, trans_a ? k : m, trans_a ? m : k, lda, sizeof(float))) ||
      (st = rt_check_array(ctx, "gnn_sgemm", "B", B, trans_b ? n : k, trans_b ? k : n, ldb, sizeof(float))) ||
      (st = rt_check_array(ctx, "gnn_sgemm", "C", C, m, n, ldc, sizeof(float))))
    return st;
  return GNN_OK;
}

/* The training helpers' operands (train_host.c, train_cuda.cu): logits and dlogits n x C floats,
 * labels n int32, mask n bytes. */
gnn_status rt_rows_spans(gnn_ctx *ctx, const char *fn, const float *logits, const int32_t *labels, const uint8_t *mask,
                         const float *dlogits, int64_t n, int64_t C) {
  gnn_status st;
  if ((st = rt_check_array(ctx, fn, "logits", logits, n, C, C, sizeof(float))) ||
      (st = rt_check_array(ctx, fn, "labels", labels, n, 1, 1, sizeof(int32_t))) ||
      (st = rt_check_array(ctx, fn, "mask", mask, n, 1, 1, 1)) ||
      (st = rt_check_array(ctx, fn, "dlogits", dlogits, n, C, C, sizeof(float))))
    return st;
  return GNN_OK;
}

/* An optimiser step's n-float arrays (NULL entries skipped): param, grad, m, v. */
gnn_status rt_step_spans(gnn_ctx *ctx, const char *fn, int64_t n, const float *param, const float *grad, const float *m,
                         const float *v) {
  gnn_status st;
  if ((st = rt_check_array(ctx, fn, "param", param, n, 1, 1, sizeof(float))) ||
      (st = rt_check_array(ctx, fn, "grad", grad, n, 1, 1, sizeof(float))) ||
      (st = rt_check_array(ctx, fn, "m", m, n, 1, 1, sizeof(float))) ||
      (st = rt_check_array(ctx, fn, "v", v, n, 1, 1, sizeof(float))))
    return st;
  return GNN_OK;
}

gnn_status gnn_check_span(gnn_ctx *ctx, const void *p, size_t bytes, const char *what) {
  gnn_status st = rt_args(ctx, 1, "gnn_check_span", "");
  if (st || !p || !bytes) return st;
  return rt_check_span(ctx, p, bytes, what ? what : "gnn_check_span");
}

/* Frees whatever is still allocated, then the table itself. */
void rt_track_free_table(gnn_ctx *ctx) {
  for (size_t i = 0; i < ctx->cap; i++)
    if (ctx->allocs[i].p) rt_device_free_raw(ctx, ctx->allocs[i].p);
  free(ctx->allocs);
  ctx->allocs = NULL;
  ctx->cap = ctx->nallocs = 0;
  ctx->live = 0;
}

gnn_status gnn_mem_usage(const gnn_ctx *ctx, size_t *live, size_t *peak) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (live) *live = ctx->live;
  if (peak) *peak = ctx->peak;
  return GNN_OK;
}

void gnn_mem_reset_peak(gnn_ctx *ctx) {
  if (ctx) ctx->peak = ctx->live;
}

/* ---------------------------------------------------------------- dropout masks on the host */

gnn_status gnn_dropout_mask_host(uint64_t seed, uint32_t stream, int64_t n, float p, uint8_t *out) {
  if (!(p >= 0.0f && p < 1.0f) || n < 0 || (n > 0 && !out)) return GNN_ERR_INVALID;
  for (int64_t i = 0; i < n; i++) out[i] = (uint8_t)gnn_dropout_keep(seed, stream, (uint64_t)i, p);
  return GNN_OK;
}
