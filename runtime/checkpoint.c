/* checkpoint.c -- training checkpoints: everything a run needs to go on as if never stopped.
 *
 * A checkpoint holds the parameters, Adam's moments and step, the epoch, the dropout stream's
 * position, the best validation scores with their parameters and the early-stopping counter
 * (gnn_train_state in gnnrt.h). A resumed run computes from exactly these values, so it is bit
 * for bit the run that was interrupted: nothing is recomputed or rounded on the way through
 * (floats are stored as their bytes, not as text).
 *
 * Layout (little-endian, as the .gcsr cache; docs/runtime.md has the table):
 *   0  char     magic[8]   "GNNRTCKP"
 *   8  uint32   version    3, or 4 for a state with the device mark (versions 1, without the
 *                          program string, and 2, without the thread count, still load;
 *                          a version 3 file never holds the mark)
 *   12 uint32   byte_order 0x01020304 as written by the saving machine
 *   16 uint64   payload    bytes after the header
 *   24 uint64   checksum   FNV-1a 64 of the payload
 *   32 uint64   reserved[4] 0
 *   64 payload: model, config and program strings (uint32 length, bytes; version 1 has no
 *      program), the thread count (uint32; version 3; 0xFFFFFFFF since version 4: computed
 *      on a device, GNN_TRAIN_THREADS_DEVICE), the scalars, the parameter
 *      table (name, rank, dims[4]), then per parameter its values, Adam's m and v (if any)
 *      and the best epoch's values, float32 each.
 * The file is written whole to a temporary name, fsync'd and renamed (rt_tmp_commit), so a
 * kill or a full disk leaves the previous checkpoint. Loading reads the whole file, checks
 * size, magic, version, checksum and structure, then compares model, program, config and every
 * parameter's name and shape with what the caller expects -- and only then writes into the
 * caller's arrays: a refused checkpoint changes nothing.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CK_MAGIC "GNNRTCKP"
#define CK_VERSION 4u
#define CK_BYTE_ORDER 0x01020304u
#define CK_HEADER 64

typedef struct {
  char magic[8];
  uint32_t version, byte_order;
  uint64_t payload, checksum, reserved[4];
} CkHeader;

_Static_assert(sizeof(CkHeader) == CK_HEADER, "the checkpoint header is 64 bytes");

/* ---------------------------------------------------------------- writing */

typedef struct {
  unsigned char *p;
  size_t n, cap;
  int oom;
} Buf;

static void put(Buf *b, const void *data, size_t bytes) {
  if (b->oom || bytes == 0) return;
  if (b->n + bytes > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + bytes) cap *= 2;
    unsigned char *grown = (unsigned char *)realloc(b->p, cap);
    if (!grown) {
      b->oom = 1;
      return;
    }
    b->p = grown;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, bytes);
  b->n += bytes;
}
static void put_u32(Buf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(Buf *b, uint64_t v) { put(b, &v, 8); }
static void put_f64(Buf *b, double v) { put(b, &v, 8); }
static void put_str(Buf *b, const char *s) {
  put_u32(b, (uint32_t)strlen(s));
  put(b, s, strlen(s));
}

/* The element count of parameter i, or -1 for a bad shape. */
static int64_t elems_of(const gnn_train_state *s, int i) {
  if (s->ranks[i] < 0 || s->ranks[i] > 4) return -1;
  int64_t n = 1;
  for (int k = 0; k < s->ranks[i]; k++) {
    int64_t d = s->dims[i][k];
    if (d < 0 || (d > 0 && n > ((int64_t)1 << 40) / d)) return -1;
    n *= d;
  }
  return n;
}

/* The checks save and load share: the description of the model is complete. */
static gnn_status check_state(gnn_ctx *ctx, const char *fn, const char *path, const gnn_train_state *s) {
  gnn_status st = rt_args(ctx, path && s, fn, "path or state is NULL");
  if (st) return st;
  if (!s->model || !s->config || s->nparams < 0 || (s->nparams > 0 && (!s->names || !s->ranks || !s->dims || !s->param ||
                                                                         !s->best)) ||
      (!s->adam_m) != (!s->adam_v))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s: the state lacks its model, config, parameter table or arrays (adam_m "
                         "and adam_v: both or neither)", fn, path);
  if (strlen(s->model) > 4096 || strlen(s->config) > 65536 || (s->program && strlen(s->program) > 255))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s: model name, config or program too long", fn, path);
  for (int i = 0; i < s->nparams; i++) {
    int64_t n = elems_of(s, i);
    if (!s->names[i] || strlen(s->names[i]) > 255 || n < 0 ||
        (n > 0 && (!s->param[i] || !s->best[i] || (s->adam_m && (!s->adam_m[i] || !s->adam_v[i])))))
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s: parameter %d: no name, a bad shape or no array", fn, path, i);
    /* The reader refuses an empty name as a damaged file: refused here, a save never writes one. */
    if (!s->names[i][0])
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: %s: parameter %d has an empty name (names are 1 to 255 bytes)", fn,
                           path, i);
  }
  return GNN_OK;
}

/* The scalars' rules, which save and load share (a save never writes a file the load refuses):
 * NULL when s's scalars are consistent, else what is wrong, naming the field, into why. The
 * accuracy and the loss are scores or gnn-train's "none yet" marks (-1 and +infinity); NaN would
 * make every comparison false and select the wrong best epoch. */
static const char *bad_scalar(const gnn_train_state *s, char *why, size_t len) {
  if (s->finished != 0 && s->finished != 1)
    snprintf(why, len, "finished is %d (0 or 1)", s->finished);
  else if (s->epoch < 0)
    snprintf(why, len, "epoch is %lld (at least 0)", (long long)s->epoch);
  else if (s->best_epoch < 0 || s->best_epoch > s->epoch)
    snprintf(why, len, "best_epoch is %lld (0 .. epoch = %lld)", (long long)s->best_epoch, (long long)s->epoch);
  else if (s->waited < 0 || s->waited > s->epoch)
    snprintf(why, len, "waited is %lld (0 .. epoch = %lld)", (long long)s->waited, (long long)s->epoch);
  else if (s->adam_step < 0)
    snprintf(why, len, "adam_step is %lld (at least 0)", (long long)s->adam_step);
  else if (!isfinite(s->best_val_acc))
    snprintf(why, len, "best_val_acc is %g (a finite number)", s->best_val_acc);
  else if (isnan(s->best_val_loss) || s->best_val_loss == -INFINITY)
    snprintf(why, len, "best_val_loss is %g (a number or +infinity: none yet)", s->best_val_loss);
  else if (!isfinite(s->elapsed_ms) || s->elapsed_ms < 0)
    snprintf(why, len, "elapsed_ms is %g (finite, at least 0)", s->elapsed_ms);
  else
    return NULL;
  return why;
}

/* The first value of n floats that is not finite, or -1. */
static int64_t first_nonfinite(const float *v, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    if (!isfinite(v[k])) return k;
  return -1;
}

/* Save only: a table that names one parameter twice. A load compares by position, so such a
 * checkpoint would load, but the names no longer say which array is which (tensor files refuse
 * repeated names too); older files with repeated names still load. */
static gnn_status check_unique_names(gnn_ctx *ctx, const char *path, const gnn_train_state *s) {
  for (int i = 1; i < s->nparams; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(s->names[i], s->names[j]) == 0)
        return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_train_state_save: %s: parameter %d '%s' appears twice (first as "
                             "parameter %d)", path, i, s->names[i], j);
  return GNN_OK;
}

gnn_status gnn_train_state_save(gnn_ctx *ctx, const char *path, const gnn_train_state *s) {
  gnn_status st = check_state(ctx, "gnn_train_state_save", path, s);
  if (st || (st = check_unique_names(ctx, path, s))) return st;
  char why[160];
  if (bad_scalar(s, why, sizeof why))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_train_state_save: %s: %s", path, why);
  /* a value that is not finite: a load would refuse the file (a diverged run is not resumable) */
  for (int i = 0; i < s->nparams; i++) {
    int64_t n = elems_of(s, i), k;
    const char *array = NULL;
    if (n == 0) continue;
    if ((k = first_nonfinite(s->param[i], n)) >= 0) array = "its values";
    else if (s->adam_m && (k = first_nonfinite(s->adam_m[i], n)) >= 0) array = "Adam's m";
    else if (s->adam_m && (k = first_nonfinite(s->adam_v[i], n)) >= 0) array = "Adam's v";
    else if ((k = first_nonfinite(s->best[i], n)) >= 0) array = "the best epoch's values";
    if (array) {
      const float *a = array[0] == 'i' ? s->param[i] : array[7] == 'm' ? s->adam_m[i] : array[7] == 'v' ? s->adam_v[i] : s->best[i];
      return gnn_set_error(ctx, GNN_ERR_NUMERIC, "gnn_train_state_save: %s: parameter '%s': %s: element %lld is %g, not finite",
                           path, s->names[i], array, (long long)k, (double)a[k]);
    }
  }
  Buf b = {0};
  put_str(&b, s->model);
  put_str(&b, s->config);
  put_str(&b, s->program ? s->program : "");
  put_u32(&b, s->threads == GNN_TRAIN_THREADS_DEVICE ? UINT32_MAX : s->threads > 0 ? (uint32_t)s->threads : 0);
  put_u64(&b, (uint64_t)s->epoch);
  put_u64(&b, (uint64_t)s->adam_step);
  put_u64(&b, s->dropout_seed);
  put_u64(&b, s->dropout_counter);
  put_u64(&b, (uint64_t)s->best_epoch);
  put_u64(&b, (uint64_t)s->waited);
  put_f64(&b, s->best_val_acc);
  put_f64(&b, s->best_val_loss);
  put_f64(&b, s->elapsed_ms);
  put_u32(&b, (uint32_t)s->finished);
  put_u32(&b, s->adam_m != NULL);
  put_u32(&b, (uint32_t)s->nparams);
  for (int i = 0; i < s->nparams; i++) {
    put_str(&b, s->names[i]);
    put_u32(&b, (uint32_t)s->ranks[i]);
    for (int k = 0; k < 4; k++) put_u64(&b, (uint64_t)(k < s->ranks[i] ? s->dims[i][k] : 0));
  }
  for (int i = 0; i < s->nparams; i++) {
    size_t bytes = sizeof(float) * (size_t)elems_of(s, i);
    put(&b, s->param[i], bytes);
    if (s->adam_m) {
      put(&b, s->adam_m[i], bytes);
      put(&b, s->adam_v[i], bytes);
    }
    put(&b, s->best[i], bytes);
  }
  if (b.oom) {
    free(b.p);
    return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for the checkpoint", path);
  }
  CkHeader h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, CK_MAGIC, 8);
  /* version 4 only for what needs it (the device mark): a host state stays readable by a
   * runtime that reads versions 1 to 3 (0.4) */
  h.version = s->threads == GNN_TRAIN_THREADS_DEVICE ? CK_VERSION : 3u;
  h.byte_order = CK_BYTE_ORDER;
  h.payload = b.n;
  h.checksum = rt_fnv1a(RT_FNV_INIT, b.p, b.n);
  FILE *f;
  char *tmp;
  if ((st = rt_tmp_open(ctx, path, &f, &tmp))) {
    free(b.p);
    return st;
  }
  if (fwrite(&h, sizeof h, 1, f) != 1 || (b.n && fwrite(b.p, 1, b.n, f) != b.n))
    st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: write failed: %s%s", path, strerror(errno),
                       tmp ? " (the previous checkpoint, if any, is unchanged)" : ""); /* (a device is written in place) */
  free(b.p);
  return rt_tmp_commit(ctx, f, tmp, path, st);
}

/* ---------------------------------------------------------------- reading */

typedef struct {
  const unsigned char *p, *end;
  int bad;
} Cur;

static const void *take(Cur *c, size_t bytes) {
  if (c->bad || (size_t)(c->end - c->p) < bytes) {
    c->bad = 1;
    return NULL;
  }
  const void *r = c->p;
  c->p += bytes;
  return r;
}
static uint32_t get_u32(Cur *c) {
  uint32_t v = 0;
  const void *p = take(c, 4);
  if (p) memcpy(&v, p, 4);
  return v;
}
static uint64_t get_u64(Cur *c) {
  uint64_t v = 0;
  const void *p = take(c, 8);
  if (p) memcpy(&v, p, 8);
  return v;
}
static double get_f64(Cur *c) {
  double v = 0;
  const void *p = take(c, 8);
  if (p) memcpy(&v, p, 8);
  return v;
}
/* A string as a pointer into the file and a length (not NUL-terminated). */
static const char *get_str(Cur *c, uint32_t *len) {
  *len = get_u32(c);
  return (const char *)take(c, *len);
}

/* What a checkpoint file holds, pointing into the file's bytes. */
typedef struct {
  const char *model, *config, *program;
  uint32_t model_len, config_len, program_len; /* program_len 0: none recorded (or version 1) */
  gnn_train_state s;
  int has_adam;
  uint32_t nparams;
  const unsigned char *table, *data; /* the parameter table and the values */
} CkFile;

/* Reads and checks the whole file: header, size, checksum, structure. *buf owns the bytes. */
static gnn_status ck_read(gnn_ctx *ctx, const char *path, char **buf, CkFile *ck) {
  size_t len = 0;
  gnn_status st = rt_slurp(ctx, path, 0, buf, &len);
  if (st) return st;
  CkHeader h;
  char found[9] = "";
  for (size_t i = 0; i < 8 && i < len; i++) found[i] = (*buf)[i] >= ' ' && (*buf)[i] < 127 ? (*buf)[i] : '?';
  if (len >= 8 && memcmp(*buf, CK_MAGIC, 8) != 0)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: not a training checkpoint (expected magic \"%s\", found \"%s\")",
                         path, CK_MAGIC, found);
  if (len < CK_HEADER)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: truncated checkpoint: %zu bytes, shorter than the %d-byte header",
                         path, len, CK_HEADER);
  memcpy(&h, *buf, sizeof h);
  if (h.byte_order != CK_BYTE_ORDER)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: the checkpoint was written with the other byte order", path);
  if (h.version < 1 || h.version > CK_VERSION)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: checkpoint version %u; this runtime reads versions 1 to %u", path,
                         (unsigned)h.version, CK_VERSION);
  if (h.reserved[0] || h.reserved[1] || h.reserved[2] || h.reserved[3])
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted header (reserved fields are not zero)", path);
  if (h.payload != len - CK_HEADER)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %s: %zu bytes, the header announces %llu", path,
                         len - CK_HEADER < h.payload ? "truncated checkpoint" : "trailing bytes", len,
                         (unsigned long long)(h.payload + CK_HEADER));
  uint64_t sum = rt_fnv1a(RT_FNV_INIT, *buf + CK_HEADER, len - CK_HEADER);
  if (sum != h.checksum)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: checksum mismatch: expected fnv1a64 %016llx (the header), found "
                         "%016llx: the checkpoint is corrupted", path, (unsigned long long)h.checksum,
                         (unsigned long long)sum);
  Cur c = {(const unsigned char *)*buf + CK_HEADER, (const unsigned char *)*buf + len, 0};
  memset(ck, 0, sizeof *ck);
  ck->model = get_str(&c, &ck->model_len);
  ck->config = get_str(&c, &ck->config_len);
  if (h.version >= 2) ck->program = get_str(&c, &ck->program_len);
  if (ck->program_len > 255) c.bad = 1;
  if (h.version >= 3) { /* (0: not recorded; versions 1 and 2 have none) */
    uint32_t threads = get_u32(&c);
    /* The device mark is version 4's: a version 3 file never holds it (a runtime that wrote
     * version 3 saved a CUDA run's count as 0), nor any count past INT_MAX. */
    if (threads == UINT32_MAX && h.version >= 4) ck->s.threads = GNN_TRAIN_THREADS_DEVICE;
    else if (threads > INT32_MAX) c.bad = 1;
    else ck->s.threads = (int)threads;
  }
  ck->s.epoch = (int64_t)get_u64(&c);
  ck->s.adam_step = (int64_t)get_u64(&c);
  ck->s.dropout_seed = get_u64(&c);
  ck->s.dropout_counter = get_u64(&c);
  ck->s.best_epoch = (int64_t)get_u64(&c);
  ck->s.waited = (int64_t)get_u64(&c);
  ck->s.best_val_acc = get_f64(&c);
  ck->s.best_val_loss = get_f64(&c);
  ck->s.elapsed_ms = get_f64(&c);
  ck->s.finished = (int)get_u32(&c);
  ck->has_adam = (int)get_u32(&c);
  ck->nparams = get_u32(&c);
  ck->table = c.p;
  uint64_t values = 0;
  for (uint32_t i = 0; i < ck->nparams && !c.bad; i++) {
    uint32_t nl;
    get_str(&c, &nl);
    uint32_t rank = get_u32(&c);
    uint64_t n = 1;
    for (int k = 0; k < 4; k++) {
      uint64_t d = get_u64(&c);
      if (k < (int)rank) n = d <= ((uint64_t)1 << 40) && n <= ((uint64_t)1 << 40) / (d ? d : 1) ? n * d : ((uint64_t)1 << 62);
    }
    if (rank > 4 || nl == 0 || nl > 255) c.bad = 1;
    values += n;
  }
  ck->data = c.p;
  uint64_t copies = ck->has_adam ? 4 : 2;
  if (!c.bad && ((unsigned)ck->has_adam > 1 || values > ((uint64_t)1 << 58) ||
                 (uint64_t)(c.end - c.p) != values * copies * sizeof(float)))
    c.bad = 1;
  if (c.bad)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted checkpoint (its parts do not add up to its size)", path);
  /* The parts add up: now what they hold. The checksum matched, so a bad value was written so
   * (by another writer, or edited with the checksum fixed): refused here, where the field can
   * be named, rather than after the restart as a wrong best epoch or a failed update. */
  char why[160];
  if (bad_scalar(&ck->s, why, sizeof why))
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted checkpoint: %s", path, why);
  Cur t = {ck->table, ck->data, 0};
  const unsigned char *v = ck->data;
  static const char *const arrays[4] = {"its values", "Adam's m", "Adam's v", "the best epoch's values"};
  for (uint32_t i = 0; i < ck->nparams; i++) {
    uint32_t nl;
    const char *name = get_str(&t, &nl);
    uint32_t rank = get_u32(&t);
    uint64_t n = 1;
    for (int k = 0; k < 4; k++) {
      uint64_t d = get_u64(&t);
      if (k < (int)rank) n *= d;
    }
    for (int a = 0; a < 4; a++) {
      if (!ck->has_adam && (a == 1 || a == 2)) continue;
      for (uint64_t k = 0; k < n; k++, v += sizeof(float)) {
        float x;
        memcpy(&x, v, sizeof x);
        if (!isfinite(x))
          return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: corrupted checkpoint: parameter '%.*s': %s: element %llu is "
                               "%g, not finite", path, (int)nl, name, arrays[a], (unsigned long long)k, (double)x);
      }
    }
  }
  return GNN_OK;
}

/* "FIELD 'x'" comparisons of the file against the caller's description. */
static int same_str(const char *a, uint32_t alen, const char *b) { return strlen(b) == alen && memcmp(a, b, alen) == 0; }

gnn_status gnn_train_state_load(gnn_ctx *ctx, const char *path, gnn_train_state *s) {
  gnn_status st = check_state(ctx, "gnn_train_state_load", path, s);
  if (st) return st;
  char *buf = NULL;
  CkFile ck;
  if ((st = ck_read(ctx, path, &buf, &ck))) goto done;
  if (!same_str(ck.model, ck.model_len, s->model)) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: a checkpoint of model '%.*s', expected model '%s'", path,
                       (int)(ck.model_len > 200 ? 200 : ck.model_len), ck.model, s->model);
    goto done;
  }
  /* Before the config: a library that computes something else is the likelier mistake, and its
   * config (same model, same data) would match. */
  if (ck.program_len && s->program && s->program[0] && !same_str(ck.program, ck.program_len, s->program)) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the checkpoint was written by another program of model '%s' (program "
                       "%.*s, this library's %s): the model computes something else now (its body, an activation, a "
                       "dropout rate); resume with the library the checkpoint was written with, or start again",
                       path, s->model, (int)ck.program_len, ck.program, s->program);
    goto done;
  }
  if (!same_str(ck.config, ck.config_len, s->config)) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the checkpoint was written for '%.*s', this run is '%s': resume with "
                       "the same settings", path, (int)(ck.config_len > 400 ? 400 : ck.config_len), ck.config, s->config);
    goto done;
  }
  if (ck.has_adam != (s->adam_m != NULL)) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the checkpoint %s Adam's moments, this run %s them", path,
                       ck.has_adam ? "holds" : "lacks", s->adam_m ? "needs" : "has no place for");
    goto done;
  }
  if (ck.nparams != (uint32_t)s->nparams) {
    st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: the checkpoint has %u parameters, the model %d", path,
                       (unsigned)ck.nparams, s->nparams);
    goto done;
  }
  Cur c = {ck.table, ck.data, 0};
  for (int i = 0; i < s->nparams; i++) {
    uint32_t nl;
    const char *name = get_str(&c, &nl);
    int rank = (int)get_u32(&c);
    int64_t dims[4];
    for (int k = 0; k < 4; k++) dims[k] = (int64_t)get_u64(&c);
    int same = rank == s->ranks[i];
    for (int k = 0; same && k < rank; k++) same = dims[k] == s->dims[i][k];
    if (!same_str(name, nl, s->names[i]) || !same) {
      char a[128], b[128];
      size_t ka = (size_t)snprintf(a, sizeof a, "'%.*s' [", (int)nl, name), kb = (size_t)snprintf(b, sizeof b, "'%s' [", s->names[i]);
      for (int k = 0; k < rank && k < 4 && ka < sizeof a; k++) ka += (size_t)snprintf(a + ka, sizeof a - ka, "%s%lld", k ? ", " : "", (long long)dims[k]);
      for (int k = 0; k < s->ranks[i] && kb < sizeof b; k++) kb += (size_t)snprintf(b + kb, sizeof b - kb, "%s%lld", k ? ", " : "", (long long)s->dims[i][k]);
      if (ka < sizeof a) snprintf(a + ka, sizeof a - ka, "]");
      if (kb < sizeof b) snprintf(b + kb, sizeof b - kb, "]");
      st = gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: parameter %d is %s in the checkpoint, expected %s", path, i, a, b);
      goto done;
    }
  }
  /* Everything matches: now, and only now, the caller's arrays and scalars change. */
  const unsigned char *p = ck.data;
  for (int i = 0; i < s->nparams; i++) {
    size_t bytes = sizeof(float) * (size_t)elems_of(s, i);
    if (!bytes) continue; /* an empty parameter may have NULL arrays */
    memcpy(s->param[i], p, bytes), p += bytes;
    if (s->adam_m) {
      memcpy(s->adam_m[i], p, bytes), p += bytes;
      memcpy(s->adam_v[i], p, bytes), p += bytes;
    }
    memcpy(s->best[i], p, bytes), p += bytes;
  }
  s->epoch = ck.s.epoch;
  s->adam_step = ck.s.adam_step;
  s->dropout_seed = ck.s.dropout_seed;
  s->dropout_counter = ck.s.dropout_counter;
  s->best_epoch = ck.s.best_epoch;
  s->waited = ck.s.waited;
  s->best_val_acc = ck.s.best_val_acc;
  s->best_val_loss = ck.s.best_val_loss;
  s->elapsed_ms = ck.s.elapsed_ms;
  s->finished = ck.s.finished;
  s->threads = ck.s.threads;
done:
  free(buf);
  return st;
}

gnn_status gnn_train_state_check(gnn_ctx *ctx, const char *path, char *model, size_t model_len, int64_t *epoch) {
  gnn_status st = rt_args(ctx, path != NULL, "gnn_train_state_check", "path is NULL");
  if (st) return st;
  char *buf = NULL;
  CkFile ck;
  st = ck_read(ctx, path, &buf, &ck);
  if (!st && model && model_len) snprintf(model, model_len, "%.*s", (int)ck.model_len, ck.model);
  if (!st && epoch) *epoch = ck.s.epoch;
  free(buf);
  return st;
}
