/* params.c -- parameter initialisation and tensor text files.
 *
 * The initialisers are the interpreter's (compiler/interp.c: name_seed, rng_next,
 * rng_uniform, params_init), copied here line for line rather than linked, so that the
 * runtime does not depend on the compiler: each parameter draws from its own splitmix64
 * stream seeded by an FNV-1a hash of (seed, name), values are computed in float64 exactly as
 * the interpreter computes them and rounded once to float32. A model compiled by gnnc and run
 * on either backend therefore starts from the interpreter's parameters to float32 rounding;
 * tests/runtime/t_api.c checks every value of GCN's parameters.
 *
 * Tensor files are the interpreter's --params / --save-params text: "tensor NAME 1 RANK dims"
 * then the values. A file is read whole into memory and tokenised with line numbers, checked
 * completely (headers, counts, finite values, repeated names), and then looked up by name.
 * Files this runtime writes (version 2) start with a checksum line, "#gnn-tensors version 2
 * bytes N fnv1a64 HEX", over the rest of the file: a file cut short or damaged is refused
 * before any tensor is parsed. Files without the line (version 1: older writers, gnnc run
 * --save-params, hand-written files) still load, with only the structural checks.
 */
#include "internal.h"
#include "gnnrt_path.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- initialisers */

/* splitmix64, as compiler/interp.c rng_next. */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

/* FNV-1a of the name, offset by the seed, as compiler/interp.c name_seed. */
static uint64_t name_seed(uint64_t seed, const char *name) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

/* The element count of a shape, or -1 for a bad shape. */
static int64_t shape_elems(int rank, const int64_t *dims) {
  if (rank < 0 || rank > 4 || (rank > 0 && !dims)) return -1;
  int64_t n = 1;
  for (int k = 0; k < rank; k++) {
    if (dims[k] < 0 || (dims[k] > 0 && n > ((int64_t)1 << 48) / dims[k])) return -1;
    n *= dims[k];
  }
  return n;
}

/* params_init's loop for one parameter: glorot = 1 for init="glorot", 0 for "uniform". */
static gnn_status param_init(const char *name, int rank, const int64_t *dims, uint64_t seed, float *out, int glorot) {
  int64_t elems = shape_elems(rank, dims);
  if (!name || elems < 0 || (elems > 0 && !out)) return GNN_ERR_INVALID;
  uint64_t s = name_seed(seed, name);
  double bound = 1.0;
  if (glorot) {
    if (rank < 2 || elems == 0) { /* biases and scalars start at zero */
      for (int64_t k = 0; k < elems; k++) out[k] = 0.0f;
      return GNN_OK;
    }
    double fan_in = (double)dims[0], fan_out = (double)(elems / dims[0]);
    bound = sqrt(6.0 / (fan_in + fan_out));
  }
  for (int64_t k = 0; k < elems; k++) out[k] = (float)((2 * rng_uniform(&s) - 1) * bound);
  return GNN_OK;
}

gnn_status gnn_param_init_glorot(const char *name, int rank, const int64_t *dims, uint64_t seed, float *out) {
  return param_init(name, rank, dims, seed, out, 1);
}

gnn_status gnn_param_init_uniform(const char *name, int rank, const int64_t *dims, uint64_t seed, float *out) {
  return param_init(name, rank, dims, seed, out, 0);
}

/* ---------------------------------------------------------------- tensor files */

typedef struct {
  char *name;
  int rank;
  int64_t dims[4];
  int64_t rows;  /* 1, except in files read by gnn_tensor_file_read_rows */
  int64_t elems; /* rows x the product of dims */
  long line;
  float *data;
} TfTensor;

struct gnn_tensor_file {
  char *path;
  int n;
  int any_rows; /* read by gnn_tensor_file_read_rows */
  TfTensor *t;
};

/* "[2, 3]" into buf. */
static const char *shape_str(char *buf, size_t n, int rank, const int64_t *dims) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)dims[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
  return buf;
}

void gnn_tensor_file_free(gnn_tensor_file *tf) {
  if (!tf) return;
  for (int i = 0; i < tf->n; i++) {
    free(tf->t[i].name);
    free(tf->t[i].data);
  }
  free(tf->t);
  free(tf->path);
  free(tf);
}

/* A whitespace tokeniser over a file held in memory, counting lines. */
typedef struct {
  char *p;
  long line;
} Tok;

/* The next blank-separated token, NUL-terminated in place; NULL at the end. */
static char *next_token(Tok *t, long *line) {
  while (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r' || *t->p == '\v' || *t->p == '\f') {
    if (*t->p == '\n') t->line++;
    t->p++;
  }
  if (!*t->p) return NULL;
  char *s = t->p;
  *line = t->line;
  while (*t->p && !(*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r' || *t->p == '\v' || *t->p == '\f'))
    t->p++;
  if (*t->p) {
    if (*t->p == '\n') t->line++;
    *t->p++ = 0;
  }
  return s;
}

/* A whole token as a long long; 0 when it is not one. */
static int token_int(const char *s, long long *v) {
  if (!s) return 0;
  char *end;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return end != s && !*end && errno == 0;
}

/* Reads the whole file at path into a NUL-terminated buffer (*len bytes before the NUL). A text
 * file (text) has no NUL byte: the first one is an error as soon as its block is read, so that
 * --params /dev/zero ends at once instead of growing until memory runs out. */
gnn_status rt_slurp(gnn_ctx *ctx, const char *path, int text, char **out, size_t *len) {
  if (rt_is_dir(path)) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot read: is a directory", path);
  if (gnn_is_device(path)) /* /dev/zero never ends (a checkpoint, binary, has no NUL check) */
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot read: it is a device, not a file", path);
  FILE *f = fopen(path, "rb");
  if (!f) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = (char *)malloc(cap);
  gnn_status st = buf ? GNN_OK : gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory", path);
  while (!st) {
    if (n + 1 == cap) {
      char *grown = (char *)realloc(buf, cap *= 2);
      if (!grown) {
        st = gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory", path);
        break;
      }
      buf = grown;
    }
    size_t k = fread(buf + n, 1, cap - 1 - n, f);
    if (text && memchr(buf + n, 0, k)) {
      /* the runtime's own binary files, named: "NUL byte" sent a --params given a checkpoint
       * looking for damage in a file that was fine */
      const char *kind = n == 0 ? rt_binary_kind(buf, k) : NULL;
      st = kind ? gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: this is %s, not a text file", path, kind)
                : gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: NUL byte in a text file", path);
      break;
    }
    n += k;
    if (k == 0) {
      if (ferror(f)) st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: read failed", path);
      break;
    }
  }
  fclose(f);
  if (st) {
    free(buf);
    return st;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return GNN_OK;
}

/* The checksum line of version 2 files: "#gnn-tensors version 2 bytes N fnv1a64 HEX", the byte
 * count and FNV-1a hash of everything after it. A file that starts otherwise is version 1 (no
 * checksum: files from before the line existed, and hand-written ones) and is read as before;
 * a present line must match exactly, so a cut or damaged file is refused before it is parsed. */
#define TF_MAGIC "#gnn-tensors"
#define TF_VERSION 2

static gnn_status check_sum_line(gnn_ctx *ctx, const char *path, char *buf, size_t len, char **body, long *line) {
  *body = buf;
  *line = 1;
  if (strncmp(buf, TF_MAGIC, strlen(TF_MAGIC)) != 0) return GNN_OK;
  char *nl = strchr(buf, '\n');
  unsigned version = 0;
  unsigned long long bytes = 0, sum = 0;
  int used = 0;
  if (!nl || sscanf(buf, TF_MAGIC " version %u%n", &version, &used) != 1)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:1: error: malformed checksum line (expected '" TF_MAGIC " version %d "
                         "bytes N fnv1a64 HEX')", path, TF_VERSION);
  if (version != TF_VERSION)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:1: error: tensor file version %u; this runtime reads versions 1 and %d",
                         path, version, TF_VERSION);
  if (sscanf(buf + used, " bytes %llu fnv1a64 %llx", &bytes, &sum) != 2)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:1: error: malformed checksum line (expected '" TF_MAGIC " version %d "
                         "bytes N fnv1a64 HEX')", path, TF_VERSION);
  size_t have = len - (size_t)(nl + 1 - buf);
  if (have != bytes)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %s: %zu bytes after the checksum line, expected %llu", path,
                         have < bytes ? "truncated file" : "trailing bytes", have, bytes);
  uint64_t got = rt_fnv1a(RT_FNV_INIT, nl + 1, have);
  if (got != (uint64_t)sum)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: checksum mismatch: expected fnv1a64 %016llx (the checksum line), "
                         "found %016llx: the file is corrupted", path, sum, (unsigned long long)got);
  *body = nl + 1;
  *line = 2;
  return GNN_OK;
}

/* Parses one tensor whose "tensor" keyword was just read at line `line`. */
static gnn_status parse_tensor(gnn_ctx *ctx, gnn_tensor_file *tf, Tok *t, long line, TfTensor *x) {
  const char *path = tf->path;
  long l = line;
  char *name = next_token(t, &l);
  long long rows = 0, rank = -1, d;
  char *rows_tok = name ? next_token(t, &l) : NULL;
  char *rank_tok = rows_tok ? next_token(t, &l) : NULL;
  if (name && strlen(name) > 255)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor name '%.32s...' is longer than 255 characters", path, line,
                         name);
  if (!name || strlen(name) > 255 || !token_int(rows_tok, &rows) || (tf->any_rows ? rows < 0 : rows != 1) ||
      !token_int(rank_tok, &rank) || rank < 0 || rank > 4)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: malformed tensor header (want 'tensor NAME %s RANK dims...')",
                         path, line, tf->any_rows ? "ROWS" : "1");
  x->rows = rows;
  x->line = line;
  x->rank = (int)rank;
  for (int k = 0; k < x->rank; k++) {
    if (!token_int(next_token(t, &l), &d) || d < 0)
      return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s': malformed dims", path, l, name);
    x->dims[k] = d;
  }
  for (int i = 0; i < tf->n; i++)
    if (strcmp(tf->t[i].name, name) == 0)
      return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s' appears twice (first at line %ld)", path, line,
                           name, tf->t[i].line);
  x->elems = shape_elems(x->rank, x->dims);
  if (x->elems >= 0 && x->rows > 0 && x->elems > ((int64_t)1 << 48) / x->rows) x->elems = -1; /* no overflow */
  if (x->elems >= 0) x->elems *= x->rows;
  if (x->elems < 0)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s': too many elements", path, line, name);
  x->name = strdup(name);
  x->data = (float *)malloc(rt_mul((size_t)x->elems ? (size_t)x->elems : 1, sizeof(float)));
  if (!x->name || !x->data)
    return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory for tensor '%s'", path, name);
  for (int64_t k = 0; k < x->elems; k++) {
    char *s = next_token(t, &l), *end = NULL;
    double v = s ? strtod(s, &end) : 0;
    if (!s)
      return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s': value %lld of %lld is missing (the file ends)",
                           path, t->line, x->name, (long long)k, (long long)x->elems);
    if (strcmp(s, "tensor") == 0) /* the next header: this tensor is short */
      return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s' has %lld values, its shape needs %lld (the next tensor starts here)",
                           path, l, x->name, (long long)k, (long long)x->elems);
    if (end == s || *end || !isfinite(v) || !isfinite((float)v))
      return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s': value %lld '%.32s' is not a finite float32 number",
                           path, l, x->name, (long long)k, s);
    x->data[k] = (float)v;
  }
  return GNN_OK;
}

/* Reads the whole file, then parses tensor after tensor. */
static gnn_status tensor_file_read(gnn_ctx *ctx, const char *path, gnn_tensor_file **out, int any_rows) {
  if (out) *out = NULL;
  gnn_status st = rt_args(ctx, out && path, any_rows ? "gnn_tensor_file_read_rows" : "gnn_tensor_file_read", "out or path is NULL");
  if (st) return st;
  char *buf = NULL, *body = NULL;
  size_t len = 0;
  long first_line = 1;
  if ((st = rt_slurp(ctx, path, 1, &buf, &len))) return st;
  st = check_sum_line(ctx, path, buf, len, &body, &first_line);
  if (st) {
    free(buf);
    return st;
  }
  gnn_tensor_file *tf = (gnn_tensor_file *)rt_calloc(ctx, 1, sizeof *tf, "a tensor file");
  if (tf && !(tf->path = strdup(path))) st = gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory");
  if (tf) tf->any_rows = any_rows;
  if (!tf) st = GNN_ERR_OOM;
  Tok t = {body, first_line};
  int cap = 0;
  long line;
  char *tok;
  while (!st && (tok = next_token(&t, &line))) {
    if (strcmp(tok, "tensor") != 0) {
      char *end = NULL;
      (void)strtod(tok, &end);
      if (tf->n > 0 && end != tok && !*end) /* a number where a header should be: the tensor before is long */
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: tensor '%s' has more values than the %lld its shape needs (the "
                           "next, '%.32s', is here)", path, line, tf->t[tf->n - 1].name, (long long)tf->t[tf->n - 1].elems, tok);
      else
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: malformed tensor header (want 'tensor NAME 1 RANK dims...')",
                           path, line);
      break;
    }
    if (tf->n == cap) {
      cap = cap ? cap * 2 : 16;
      TfTensor *grown = (TfTensor *)realloc(tf->t, rt_mul((size_t)cap, sizeof(TfTensor)));
      if (!grown) {
        st = gnn_set_error(ctx, GNN_ERR_OOM, "out of host memory");
        break;
      }
      tf->t = grown;
    }
    TfTensor *x = &tf->t[tf->n];
    memset(x, 0, sizeof *x);
    st = parse_tensor(ctx, tf, &t, line, x);
    tf->n++; /* a half-parsed tensor is freed with the rest */
  }
  free(buf);
  if (st) {
    gnn_tensor_file_free(tf);
    return st;
  }
  *out = tf;
  return GNN_OK;
}

gnn_status gnn_tensor_file_read(gnn_ctx *ctx, const char *path, gnn_tensor_file **out) {
  return tensor_file_read(ctx, path, out, 0);
}
gnn_status gnn_tensor_file_read_rows(gnn_ctx *ctx, const char *path, gnn_tensor_file **out) {
  return tensor_file_read(ctx, path, out, 1);
}

int gnn_tensor_file_count(const gnn_tensor_file *tf) { return tf ? tf->n : 0; }

gnn_status gnn_tensor_file_info(const gnn_tensor_file *tf, int i, const char **name, int *rank, int64_t dims[4]) {
  if (!tf || i < 0 || i >= tf->n) return GNN_ERR_INVALID;
  const TfTensor *x = &tf->t[i];
  if (name) *name = x->name;
  if (rank) *rank = x->rank;
  if (dims)
    for (int k = 0; k < 4; k++) dims[k] = k < x->rank ? x->dims[k] : 0;
  return GNN_OK;
}

/* Finds a tensor by name and copies it out after checking its rows and shape; fn names the
 * public function in argument errors. */
static gnn_status tensor_get(gnn_ctx *ctx, const char *fn, const gnn_tensor_file *tf, const char *name, int64_t rows,
                             int rank, const int64_t *dims, float *out) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!tf || !name) return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: no file or no name", fn);
  int64_t elems = shape_elems(rank, dims);
  if (elems >= 0 && (rows < 0 || (rows > 0 && elems > ((int64_t)1 << 48) / rows))) elems = -1;
  if (elems >= 0) elems *= rows;
  if (elems < 0 || (elems > 0 && !out))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: bad shape or no output for tensor '%s'", fn, name);
  /* out is the caller's: in the host build a gnn_malloc'd buffer shorter than the shape was
   * written past its end (memory the context does not know passes unchecked) */
  gnn_status st = elems > 0 ? rt_check_array(ctx, fn, "out", out, elems, 1, 1, sizeof(float)) : GNN_OK;
  if (st) return st;
  for (int i = 0; i < tf->n; i++) {
    const TfTensor *x = &tf->t[i];
    if (strcmp(x->name, name) != 0) continue;
    int same = x->rank == rank;
    for (int k = 0; same && k < rank; k++) same = x->dims[k] == dims[k];
    if (!same) {
      char a[96], b[96];
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s:%ld: error: tensor '%s' has shape %s, expected %s", tf->path, x->line,
                           name, shape_str(a, sizeof a, x->rank, x->dims), shape_str(b, sizeof b, rank, dims));
    }
    if (x->rows != rows)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s:%ld: error: tensor '%s' has %lld rows, expected %lld", tf->path, x->line,
                           name, (long long)x->rows, (long long)rows);
    if (elems) memcpy(out, x->data, sizeof(float) * (size_t)elems);
    return GNN_OK;
  }
  return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: no tensor '%s'", tf->path, name);
}

gnn_status gnn_tensor_file_get_rows(gnn_ctx *ctx, const gnn_tensor_file *tf, const char *name, int64_t rows, int rank,
                                    const int64_t *dims, float *out) {
  return tensor_get(ctx, "gnn_tensor_file_get_rows", tf, name, rows, rank, dims, out);
}

gnn_status gnn_tensor_file_get(gnn_ctx *ctx, const gnn_tensor_file *tf, const char *name, int rank, const int64_t *dims,
                               float *out) {
  return tensor_get(ctx, "gnn_tensor_file_get", tf, name, 1, rank, dims, out);
}

gnn_status gnn_tensor_file_expect(gnn_ctx *ctx, const gnn_tensor_file *tf, int n, const char *const names[]) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!tf || n < 0 || (n > 0 && !names)) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_tensor_file_expect: bad arguments");
  for (int i = 0; i < tf->n; i++) {
    int found = 0;
    for (int k = 0; k < n && !found; k++) found = names[k] && strcmp(names[k], tf->t[i].name) == 0;
    if (!found)
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s:%ld: error: tensor '%s' is not a parameter of the model", tf->path,
                           tf->t[i].line, tf->t[i].name);
  }
  return GNN_OK;
}

/* A name the reader can read back: 1..255 printable characters, no blanks. */
static int good_name(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > 255) return 0;
  for (; *s; s++)
    if ((unsigned char)*s <= ' ' || *s == 127) return 0;
  return 1;
}

/* Checks every tensor, then writes them all through a temporary file. */
gnn_status gnn_tensor_file_write(gnn_ctx *ctx, const char *path, int n, const char *const names[], const int ranks[],
                                 const int64_t dims[][4], const float *const data[]) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!path || n < 0 || (n > 0 && (!names || !ranks || !dims || !data)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_tensor_file_write: bad arguments");
  /* Check everything before creating the file. */
  for (int i = 0; i < n; i++) {
    int64_t elems = shape_elems(ranks[i], dims[i]);
    if (!good_name(names[i]))
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: tensor %d: a name must be 1 to 255 characters without blanks",
                           path, i);
    for (int j = 0; j < i; j++) /* the reader refuses a repeated name */
      if (strcmp(names[i], names[j]) == 0)
        return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: tensor %d '%s' appears twice (first as tensor %d)", path, i,
                             names[i], j);
    if (elems < 0 || (elems > 0 && !data[i]))
      return gnn_set_error(ctx, GNN_ERR_INVALID, "%s: error: tensor '%s': bad shape (rank %d) or no data", path, names[i],
                           ranks[i]);
    for (int64_t k = 0; k < elems; k++)
      if (!isfinite(data[i][k]))
        return gnn_set_error(ctx, GNN_ERR_NUMERIC, "%s: error: tensor '%s': value %lld is not finite", path, names[i],
                             (long long)k);
  }
  /* The body goes to memory first: the checksum line in front of it needs its hash. */
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory", path);
  for (int i = 0; i < n; i++) {
    fprintf(m, "tensor %s 1 %d", names[i], ranks[i]);
    for (int k = 0; k < ranks[i]; k++) fprintf(m, " %lld", (long long)dims[i][k]);
    fputc('\n', m);
    int64_t elems = shape_elems(ranks[i], dims[i]);
    for (int64_t k = 0; k < elems; k++) fprintf(m, "%.9g%c", (double)data[i][k], k + 1 == elems ? '\n' : ' ');
  }
  if (fclose(m) != 0 || !text) {
    free(text);
    return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of host memory", path);
  }
  FILE *f;
  char *tmp;
  gnn_status st = rt_tmp_open(ctx, path, &f, &tmp);
  if (st) {
    free(text);
    return st;
  }
  fprintf(f, TF_MAGIC " version %d bytes %zu fnv1a64 %016llx\n", TF_VERSION, len,
          (unsigned long long)rt_fnv1a(RT_FNV_INIT, text, len));
  if (len && fwrite(text, 1, len, f) != len)
    st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: write failed: %s%s", path, strerror(errno),
                       tmp ? " (the previous file, if any, is unchanged)" : ""); /* (a device is written in place) */
  free(text);
  return rt_tmp_commit(ctx, f, tmp, path, st);
}
