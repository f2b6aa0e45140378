/* interp.c -- the float64 interpreter of the operator IR: the oracle for every pass and backend.
 *
 * It evaluates the module's values in order, each into a dense array of rows x elements
 * (one row per vertex, per edge, or a single row for parameters and constants), directly
 * from the operators' definitions, with no fusion and no reordering. Behaviour at the edges
 * of the definitions:
 *   - a vertex with no in-edges gets 0 from sum, mean, max and min, and from any aggregate;
 *   - edge_softmax normalises over the in-edges of each destination (max-subtracted);
 *   - self-loops and duplicate edges count as given: each is one edge;
 *   - dropout is the identity in inference; in training (Interp.training) it keeps element i
 *     of row r when gnn_rng_uniform(seed, stream, r * n + i) >= p and scales it by 1/(1-p),
 *     with r the row's position in CSR order for edge values: the mask the generated code
 *     draws (runtime/gnnrt_rng.h);
 *   - gather.argmax/argmin give the CSR position of the first in-edge attaining the
 *     extremum (-1 with no in-edges), which is the edge id of the generated code;
 *   - reduce_rows sums over every row of its operand(s);
 *   - forward_only skips the backward values of a training module (gnnc run's forward);
 *   - given[i], when set, is value i's array, computed by the caller (gradcheck reuses the
 *     values a perturbed parameter does not reach); it is neither recomputed nor freed.
 * A value's array is freed after its last use, so peak memory follows the live set.
 * Rows are independent, so the row loops run in parallel with OpenMP where available.
 */
#include "interp.h"
#include "gnnrt_path.h"
#include "gnnrt_rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h> /* getpid, fsync */

/* ---------------------------------------------------------------- random numbers */

uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double rng_uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

/* ---------------------------------------------------------------- parameters */

static uint64_t name_seed(uint64_t seed, const char *name) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

bool params_init(ParamSet *ps, const Module *m, const char *init, uint64_t seed) {
  bool glorot = strcmp(init, "glorot") == 0;
  if (!glorot && strcmp(init, "uniform") != 0) return false;
  int n = 0;
  for (int i = 0; i < m->vals.len; i++) n += ((Value *)m->vals.items[i])->op == OP_PARAM;
  ps->params = calloc((size_t)(n ? n : 1), sizeof(Tensor));
  ps->nparams = 0;
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    if (v->op != OP_PARAM) continue;
    Tensor *t = &ps->params[ps->nparams++];
    t->name = v->name;
    t->shape = v->shape;
    int64_t elems = shape_elems(&v->shape);
    t->data = calloc((size_t)elems, sizeof(double));
    /* Each parameter draws from its own stream, keyed by name: adding a parameter does not
     * change the others' values. */
    if (v->iattr) { /* declared with an initial value: in every mode */
      for (int64_t k = 0; k < elems; k++) t->data[k] = v->fattr;
      continue;
    }
    uint64_t s = name_seed(seed, v->name);
    double bound = 1.0;
    if (glorot) {
      if (v->shape.rank < 2) continue; /* biases and scalars start at zero */
      double fan_in = (double)v->shape.d[0], fan_out = (double)(elems / v->shape.d[0]);
      bound = sqrt(6.0 / (fan_in + fan_out));
    }
    for (int64_t k = 0; k < elems; k++) t->data[k] = (2 * rng_uniform(&s) - 1) * bound;
  }
  return true;
}

void params_free(ParamSet *ps) {
  for (int i = 0; i < ps->nparams; i++) free(ps->params[i].data);
  free(ps->params);
  ps->params = NULL;
  ps->nparams = 0;
}

/* FNV-1a, 64 bits: the runtime's tensor-file checksum (runtime/params.c, rt_fnv1a). */
static uint64_t fnv1a64(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* Writes a tensor file's body behind the runtime's checksum line ("#gnn-tensors version 2 bytes N
 * fnv1a64 HEX", as gnn_tensor_file_write does), through PATH.tmp.PID renamed over PATH once
 * flushed to disk (through a symlink, over the file it names: gnnrt_path.h): a killed or failed write leaves the previous file, never half a file that
 * reads as whole. */
bool tensors_write_file(const char *path, const char *body, size_t len, char *err, size_t errlen) {
  if (gnn_write_in_place(path)) { /* a device or FIFO (/dev/null, a terminal): gnnrt_path.h */
    FILE *f = fopen(path, "w");
    bool ok = f && fprintf(f, "#gnn-tensors version 2 bytes %zu fnv1a64 %016llx\n", len, (unsigned long long)fnv1a64(body, len)) > 0 &&
              (len == 0 || fwrite(body, 1, len, f) == len);
    int e = errno;
    if (f && fclose(f) != 0 && ok) ok = false, e = errno;
    if (!ok) snprintf(err, errlen, "%s: error: write failed: %s", path, strerror(e));
    return ok;
  }
  char *target = gnn_replace_target(path); /* through a symlink, the file it names */
  size_t tlen = target ? strlen(target) + 32 : 0;
  char *tmp = target ? malloc(tlen) : NULL;
  if (!tmp) {
    snprintf(err, errlen, "%s: error: out of memory", path);
    free(target);
    return false;
  }
  snprintf(tmp, tlen, "%s.tmp.%ld", target, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "%s: error: cannot write: %s", path, strerror(errno));
    free(tmp);
    free(target);
    return false;
  }
  fprintf(f, "#gnn-tensors version 2 bytes %zu fnv1a64 %016llx\n", len, (unsigned long long)fnv1a64(body, len));
  bool ok = (len == 0 || fwrite(body, 1, len, f) == len) && fflush(f) == 0 && fsync(fileno(f)) == 0;
  int e = errno;
  ok = (fclose(f) == 0) && ok;
  if (ok && rename(tmp, target) != 0) ok = false, e = errno;
  if (!ok) {
    snprintf(err, errlen, "%s: error: write failed: %s (the previous file, if any, is unchanged)", path, strerror(e));
    remove(tmp);
  }
  free(tmp);
  free(target);
  return ok;
}

bool params_save(const ParamSet *ps, const char *path, char *err, size_t errlen) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    snprintf(err, errlen, "%s: error: out of memory", path);
    return false;
  }
  for (int i = 0; i < ps->nparams; i++) {
    const Tensor *t = &ps->params[i];
    fprintf(f, "tensor %s 1 %d", t->name, t->shape.rank);
    for (int k = 0; k < t->shape.rank; k++) fprintf(f, " %lld", (long long)t->shape.d[k]);
    fputc('\n', f);
    int64_t n = shape_elems(&t->shape);
    for (int64_t k = 0; k < n; k++) fprintf(f, "%.17g%c", t->data[k], k + 1 == n ? '\n' : ' ');
  }
  if (fclose(f) != 0 || !text) {
    free(text);
    snprintf(err, errlen, "%s: error: out of memory", path);
    return false;
  }
  bool ok = tensors_write_file(path, text, len, err, errlen);
  free(text);
  return ok;
}

/* The tensor text format: "tensor NAME ROWS RANK d0 ... d{RANK-1}", then ROWS x elems numbers. */
/* The next whitespace-separated token of a text (NUL-terminated in place), counting lines. */
typedef struct {
  char *p;
  long line;
} PTok;
static char *ptok_next(PTok *t, long *line) {
  while (*t->p == ' ' || *t->p == '\t' || *t->p == '\r' || *t->p == '\n' || *t->p == '\v' || *t->p == '\f')
    if (*t->p++ == '\n') t->line++;
  if (!*t->p) return NULL;
  *line = t->line;
  char *s = t->p;
  while (*t->p && !(*t->p == ' ' || *t->p == '\t' || *t->p == '\r' || *t->p == '\n' || *t->p == '\v' || *t->p == '\f')) t->p++;
  if (*t->p) {
    if (*t->p == '\n') t->line++;
    *t->p++ = 0;
  }
  return s;
}
static bool ptok_int(const char *s, long long *v) {
  if (!s) return false;
  char *end;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return end != s && !*end && errno == 0;
}

/* The runtime's checks (runtime/params.c, gnn_tensor_file_read + expect + get), so that gnnc run
 * --params and gnn-run --params accept and refuse the same files: the whole file is read (a NUL
 * byte is an error), headers "tensor NAME 1 RANK dims", no repeated names, no tensor the model
 * lacks, shapes equal, every value a number finite in float32, every parameter present. */
/* Reads every tensor of want[0..n) (names and shapes set, data allocated for rows[i] rows) from
 * a tensor file. Parameters (rows == NULL) have one row each; inputs have rows[i]. */
/* The runtime's checksum line (runtime/params.c, check_sum_line): "#gnn-tensors version 2 bytes N
 * fnv1a64 HEX" over the rest of the file. Absent: a version 1 file, read as before. *body is
 * where the tensors start. */
static bool tensors_sum_line(char *text, size_t size, const char *path, char **body, long *line, char *err, size_t errlen) {
  *body = text, *line = 1;
  if (strncmp(text, "#gnn-tensors", 12) != 0) return true;
  char *nl = strchr(text, '\n');
  unsigned version = 0;
  unsigned long long bytes = 0, sum = 0;
  if (!nl || sscanf(text, "#gnn-tensors version %u bytes %llu fnv1a64 %llx", &version, &bytes, &sum) != 3 || version != 2) {
    snprintf(err, errlen, "%s:1: error: malformed checksum line or a version other than 2", path);
    return false;
  }
  size_t have = size - (size_t)(nl + 1 - text);
  uint64_t h = fnv1a64(nl + 1, have);
  if (have != bytes || h != (uint64_t)sum) {
    snprintf(err, errlen, "%s: error: %s: expected %llu bytes with fnv1a64 %016llx, found %zu bytes with %016llx", path,
             have < bytes ? "truncated file" : "checksum mismatch", bytes, sum, have, (unsigned long long)h);
    return false;
  }
  *body = nl + 1, *line = 2;
  return true;
}

/* want[0..n): the tensors to read; those from `required` on may be absent (their data then stays
 * as it was, and *found, when not NULL, marks which were read). */
static bool tensors_read(Tensor *want, int n, int required, bool *found, const int64_t *rows_of, const char *path, char *err,
                         size_t errlen) {
  const char *kind = rows_of ? "an input" : "a parameter";
  size_t size = 0;
  char *text = gnn_is_device(path) ? NULL : read_text_file(path, &size), *body = text; /* a device: the runtime's refusal */
  long *seen = calloc((size_t)(n ? n : 1), sizeof(long)); /* the header line, 0 = not yet */
  long first = 1;
  bool ok = text && seen;
  if (!text && gnn_is_device(path)) snprintf(err, errlen, "%s: error: cannot read: it is a device, not a file", path);
  else if (!text && errno == EILSEQ && binary_file_kind(path))
    snprintf(err, errlen, "%s: error: this is %s, not a text file", path, binary_file_kind(path));
  else if (!text && errno == EILSEQ) snprintf(err, errlen, "%s: error: NUL byte in a text file", path);
  else if (!text) snprintf(err, errlen, "%s: error: cannot open: %s", path, read_source_error(errno));
  if (ok) ok = tensors_sum_line(text, size, path, &body, &first, err, errlen);
  PTok t = {body, first};
  long line = 0, l = 0;
  char *tok;
  const char *last_name = NULL; /* the tensor read last, and its value count */
  int64_t last_count = 0;
  while (ok && (tok = ptok_next(&t, &line))) {
    char *name = strcmp(tok, "tensor") == 0 ? ptok_next(&t, &l) : NULL, *num_end = NULL;
    long long rows = 0, rank = -1, d = 0;
    if (!name && last_name && (strtod(tok, &num_end), num_end != tok && !*num_end)) { /* the runtime's words (params.c) */
      snprintf(err, errlen, "%s:%ld: error: tensor '%s' has more values than the %lld its shape needs (the next, '%.32s', is here)",
               path, line, last_name, (long long)last_count, tok);
      ok = false;
      break;
    }
    if (name && strlen(name) > 255) {
      snprintf(err, errlen, "%s:%ld: error: tensor name '%.32s...' is longer than 255 characters", path, line, name);
      ok = false;
      break;
    }
    if (!name || !ptok_int(ptok_next(&t, &l), &rows) || (rows_of ? rows < 0 : rows != 1) ||
        !ptok_int(ptok_next(&t, &l), &rank) || rank < 0 || rank > GNN_MAX_RANK) {
      snprintf(err, errlen, "%s:%ld: error: malformed tensor header (want 'tensor NAME %s RANK dims...')", path, line,
               rows_of ? "ROWS" : "1");
      ok = false;
      break;
    }
    Shape sh = {(int)rank, {0}};
    for (int k = 0; k < sh.rank && ok; k++) {
      if (!ptok_int(ptok_next(&t, &l), &d) || d < 0) ok = false;
      sh.d[k] = d;
    }
    if (!ok) {
      snprintf(err, errlen, "%s:%ld: error: tensor '%s': malformed dims", path, l, name);
      break;
    }
    int idx = -1;
    for (int i = 0; i < n; i++)
      if (strcmp(want[i].name, name) == 0) idx = i;
    if (idx >= 0 && seen[idx]) {
      snprintf(err, errlen, "%s:%ld: error: tensor '%s' appears twice (first at line %ld)", path, line, name, seen[idx]);
      ok = false;
      break;
    }
    if (idx < 0) {
      /* "grad." names are the compiler's (a .gnn name has no dot): a backward's seed or gradient */
      snprintf(err, errlen, "%s:%ld: error: tensor '%s' is not %s of the model%s", path, line, name, kind,
               strncmp(name, "grad.", 5) == 0 ? " (a gradient's name: this module has no backward, or no such output)" : "");
      ok = false;
      break;
    }
    if (!shape_eq(&sh, &want[idx].shape)) {
      char have[96], expect[96];
      const Shape *ms = &want[idx].shape;
      size_t h = (size_t)snprintf(have, sizeof have, "["), w = (size_t)snprintf(expect, sizeof expect, "[");
      for (int k = 0; k < sh.rank; k++) h += (size_t)snprintf(have + h, sizeof have - h, "%s%lld", k ? ", " : "", (long long)sh.d[k]);
      for (int k = 0; k < ms->rank; k++) w += (size_t)snprintf(expect + w, sizeof expect - w, "%s%lld", k ? ", " : "", (long long)ms->d[k]);
      snprintf(have + h, sizeof have - h, "]"), snprintf(expect + w, sizeof expect - w, "]");
      snprintf(err, errlen, "%s:%ld: error: tensor '%s' has shape %s, expected %s", path, line, name, have, expect);
      ok = false;
      break;
    }
    if (rows_of && rows != rows_of[idx]) {
      snprintf(err, errlen, "%s:%ld: error: tensor '%s' has %lld rows, the model's input has %lld on this graph", path, line,
               name, rows, (long long)rows_of[idx]);
      ok = false;
      break;
    }
    seen[idx] = line;
    int64_t nelem = shape_elems(&sh) * (rows_of ? rows : 1);
    last_name = want[idx].name, last_count = nelem;
    for (int64_t k = 0; k < nelem && ok; k++) {
      char *v = ptok_next(&t, &l), *end = NULL;
      double x = v ? strtod(v, &end) : 0;
      if (!v) {
        snprintf(err, errlen, "%s:%ld: error: tensor '%s': value %lld of %lld is missing (the file ends)", path, t.line, name,
                 (long long)k, (long long)nelem);
        ok = false;
      } else if (strcmp(v, "tensor") == 0) { /* the next header: this tensor is short */
        snprintf(err, errlen, "%s:%ld: error: tensor '%s' has %lld values, its shape needs %lld (the next tensor starts here)",
                 path, l, name, (long long)k, (long long)nelem);
        ok = false;
      } else if (end == v || *end || !isfinite(x) || !isfinite((float)x)) {
        snprintf(err, errlen, "%s:%ld: error: tensor '%s': value %lld '%.32s' is not a finite float32 number", path, l, name,
                 (long long)k, v);
        ok = false;
      } else {
        want[idx].data[k] = x;
      }
    }
  }
  for (int i = 0; ok && i < required; i++)
    if (!seen[i]) {
      snprintf(err, errlen, "%s: error: no tensor '%s'", path, want[i].name);
      ok = false;
    }
  for (int i = 0; found && i < n; i++) found[i] = seen[i] != 0;
  free(text);
  free(seen);
  return ok;
}

bool params_load(ParamSet *ps, const Module *m, const char *path, char *err, size_t errlen) {
  if (!params_init(ps, m, "glorot", 0)) return false;
  bool ok = tensors_read(ps->params, ps->nparams, ps->nparams, NULL, NULL, path, err, errlen);
  if (!ok) params_free(ps);
  return ok;
}

/* The model's forward inputs, every one, from a tensor file (gnnc run --inputs; what
 * --save-inputs writes): rows = the graph's vertices or edges (file order), or 1. The backward's
 * seed (grad.out of a training module) may be there too, as --save-inputs writes it after a
 * backward: taken when present (the backward then reads it, as gnn-run --backward does), drawn
 * from the seed when not; a forward alone leaves it unread. */
bool inputs_load(ParamSet *ins, const Module *m, const Graph *g, const char *path, char *err, size_t errlen) {
  int n = 0, required = 0;
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    n += v->op == OP_INPUT;
    required += v->op == OP_INPUT && !v->bwd;
  }
  ins->params = calloc((size_t)(n ? n : 1), sizeof(Tensor));
  ins->nparams = n;
  int64_t *rows = calloc((size_t)(n ? n : 1), sizeof(int64_t));
  bool *found = calloc((size_t)(n ? n : 1), sizeof(bool));
  int k = 0;
  for (int pass = 0; pass < 2; pass++) /* the forward's inputs first, then the optional seeds */
    for (int i = 0; i < m->vals.len; i++) {
      const Value *v = m->vals.items[i];
      if (v->op != OP_INPUT || v->bwd != (pass == 1)) continue;
      rows[k] = value_rows(v, g);
      ins->params[k] = (Tensor){v->name, v->shape, calloc((size_t)(rows[k] * shape_elems(&v->shape) + 1), sizeof(double))};
      k++;
    }
  bool ok = tensors_read(ins->params, n, required, found, rows, path, err, errlen);
  if (ok) { /* a seed the file lacks is not given: drop it, the interpreter draws it */
    int kept = 0;
    for (int i = 0; i < n; i++)
      if (found[i]) ins->params[kept++] = ins->params[i];
      else free(ins->params[i].data);
    ins->nparams = kept;
  }
  free(rows);
  free(found);
  if (!ok) params_free(ins);
  return ok;
}

/* ---------------------------------------------------------------- evaluation */

int64_t value_rows(const Value *v, const Graph *g) {
  return v->dom == DOM_VERTEX ? g->nv : v->dom == DOM_EDGE ? g->ne : v->dom == DOM_GRAPH ? g->ng : 1;
}

/* Element-wise functions of one or two scalars. */
static double elem1(FnKind fn, double x, double fattr) {
  switch (fn) {
  case FN_NEG: return -x;
  case FN_RELU: return x > 0 ? x : 0;
  case FN_LEAKY_RELU: return x > 0 ? x : fattr * x;
  case FN_ELU: return x > 0 ? x : fattr * expm1(x);
  case FN_TANH: return tanh(x);
  case FN_SIGMOID: return 1 / (1 + exp(-x));
  case FN_EXP: return exp(x);
  case FN_LOG: return log(x);
  case FN_SQRT: return sqrt(x);
  case FN_RSQRT: return 1 / sqrt(x);
  case FN_ABS: return fabs(x);
  case FN_INV_OR_ZERO: return x == 0 ? 0 : 1 / x;
  case FN_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
  case FN_POW: return pow(x, fattr);
  case FN_DROPOUT: case FN_FLATTEN: case FN_RESHAPE: case FN_COPY_U: case FN_COPY_V: case FN_COPY_E: return x;
  default: return NAN;
  }
}

/* dy * f'(x) for the derivative functions. */
static double deriv(FnKind fn, double x, double dy, double fattr) {
  switch (fn) {
  case FN_RELU_GRAD: return x > 0 ? dy : 0;
  case FN_LEAKY_RELU_GRAD: return x > 0 ? dy : fattr * dy;
  case FN_ELU_GRAD: return x > 0 ? dy : fattr * exp(x) * dy;
  default: return NAN;
  }
}

static double elem2(FnKind fn, double x, double y) {
  switch (fn) {
  case FN_ADD: case FN_U_ADD_V: case FN_U_ADD_E: return x + y;
  case FN_SUB: case FN_U_SUB_V: return x - y;
  case FN_MUL: case FN_U_MUL_V: case FN_U_MUL_E: case FN_DOT: case FN_U_DOT_V: return x * y;
  case FN_DIV: case FN_U_DIV_V: return x / y;
  case FN_MAXIMUM: return x >= y ? x : y; /* ties take x (equal values; the gradient splits there) */
  case FN_MINIMUM: return x <= y ? x : y;
  case FN_GT: return x > y;
  case FN_GE: return x >= y;
  case FN_LT: return x < y;
  case FN_LE: return x <= y;
  case FN_EQ: return x == y;
  case FN_NE: return x != y;
  default: return NAN;
  }
}

/* One row of a row-wise function: out (shape so) from a (shape sa) and b (shape sb).
 * Prefix broadcasting: element i of a k-element operand inside an n-element result is
 * operand element i / (n / k). */
static void eval_row(const Value *v, FnKind fn, const double *a, const Shape *sa, const double *b, const Shape *sb,
                     double *out) {
  int64_t n = shape_elems(&v->shape), na = shape_elems(sa), nb = sb ? shape_elems(sb) : 1;
  switch (fn) {
  case FN_ADD: case FN_SUB: case FN_MUL: case FN_DIV:
  case FN_MAXIMUM: case FN_MINIMUM: case FN_GT: case FN_GE: case FN_LT: case FN_LE: case FN_EQ: case FN_NE:
  case FN_U_ADD_V: case FN_U_SUB_V: case FN_U_MUL_V: case FN_U_DIV_V: case FN_U_ADD_E: case FN_U_MUL_E: {
    int64_t ra = n / na, rb = n / nb;
    for (int64_t i = 0; i < n; i++) out[i] = elem2(fn, a[i / ra], b[i / rb]);
    return;
  }
  case FN_DOT: case FN_U_DOT_V: {
    const Shape *l = sa->rank >= sb->rank ? sa : sb;
    int64_t L = l->d[l->rank - 1], nl = shape_elems(l), ra = nl / na, rb = nl / nb;
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t k = 0; k < L; k++) s += a[(j * L + k) / ra] * b[(j * L + k) / rb];
      out[j] = s;
    }
    return;
  }
  case FN_CONCAT: case FN_U_CONCAT_V: {
    int64_t la = sa->rank ? sa->d[sa->rank - 1] : 1, lb = sb->rank ? sb->d[sb->rank - 1] : 1;
    int64_t outer = n / (la + lb);
    for (int64_t o = 0; o < outer; o++) {
      memcpy(out + o * (la + lb), a + o * la, sizeof(double) * (size_t)la);
      memcpy(out + o * (la + lb) + la, b + o * lb, sizeof(double) * (size_t)lb);
    }
    return;
  }
  case FN_LINEAR: {
    int64_t K = sb->d[0], O = nb / K, outer = na / K;
    /* k outside c: the inner loop runs along W's rows and vectorises; zeros of x (sparse
     * bag-of-words features) skip a whole row of W. */
    for (int64_t o = 0; o < outer; o++) {
      double *y = out + o * O;
      for (int64_t c = 0; c < O; c++) y[c] = 0;
      for (int64_t k = 0; k < K; k++) {
        double xk = a[o * K + k];
        if (xk == 0) continue;
        const double *w = b + k * O;
        for (int64_t c = 0; c < O; c++) y[c] += xk * w[c];
      }
    }
    return;
  }
  case FN_MEAN_HEADS: case FN_SUM_HEADS: {
    int64_t H = sa->d[0];
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t h = 0; h < H; h++) s += a[h * n + j];
      out[j] = fn == FN_MEAN_HEADS ? s / (double)H : s;
    }
    return;
  }
  case FN_REPEAT:
    for (int64_t i = 0; i < n; i++) out[i] = a[i % na];
    return;
  case FN_RELU_GRAD: case FN_LEAKY_RELU_GRAD: case FN_ELU_GRAD:
    for (int64_t i = 0; i < n; i++) out[i] = deriv(fn, a[i], b[i], v->fattr);
    return;
  case FN_SLICE: {
    int64_t la = sa->d[sa->rank - 1], lo = v->iattr, w = v->iattr2 - v->iattr;
    for (int64_t o = 0; o < na / la; o++) memcpy(out + o * w, a + o * la + lo, sizeof(double) * (size_t)w);
    return;
  }
  case FN_PAD: {
    int64_t la = sa->d[sa->rank - 1], lo = v->iattr, w = v->iattr2;
    for (int64_t i = 0; i < n; i++) out[i] = 0;
    for (int64_t o = 0; o < na / la; o++) memcpy(out + o * w + lo, a + o * la, sizeof(double) * (size_t)la);
    return;
  }
  case FN_ONE_HOT: /* out[..., c] = t[...] == c */
    for (int64_t i = 0; i < n; i++) out[i] = a[i / v->iattr] == (double)(i % v->iattr);
    return;
  case FN_TRANSPOSE: { /* [..., A, B] -> [..., B, A] */
    int64_t Ad = sa->d[sa->rank - 2], Bd = sa->d[sa->rank - 1];
    for (int64_t o = 0; o < na / (Ad * Bd); o++)
      for (int64_t i = 0; i < Ad; i++)
        for (int64_t j = 0; j < Bd; j++) out[o * Ad * Bd + j * Ad + i] = a[o * Ad * Bd + i * Bd + j];
    return;
  }
  case FN_LOG_SOFTMAX: { /* per last-dim row: x - m - log(sum exp(x - m)), m its max */
    int64_t L = sa->d[sa->rank - 1];
    for (int64_t o = 0; o < n / L; o++) {
      const double *x = a + o * L;
      double m = -INFINITY, se = 0;
      for (int64_t k = 0; k < L; k++) m = x[k] > m ? x[k] : m;
      for (int64_t k = 0; k < L; k++) se += exp(x[k] - m);
      for (int64_t k = 0; k < L; k++) out[o * L + k] = x[k] - m - log(se);
    }
    return;
  }
  case FN_SUM_LAST: {
    int64_t L = sa->d[sa->rank - 1];
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t k = 0; k < L; k++) s += a[j * L + k];
      out[j] = s;
    }
    return;
  }
  case FN_LINEAR_T: {
    /* y[o, k] = sum_c x[o, c] W[k, c]: W is K x C with C = its trailing elements */
    int64_t K = sb->d[0], C = nb / K, outer = na / C;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t k = 0; k < K; k++) {
        double s = 0;
        for (int64_t c = 0; c < C; c++) s += a[o * C + c] * b[k * C + c];
        out[o * K + k] = s;
      }
    return;
  }
  default:
    for (int64_t i = 0; i < n; i++) out[i] = elem1(fn, a[i], v->fattr);
  }
}

static double reduce_init(FnKind r) { return r == FN_MAX ? -INFINITY : r == FN_MIN ? INFINITY : 0; }
static double reduce_step(FnKind r, double acc, double x) {
  return r == FN_MAX ? (x > acc ? x : acc) : r == FN_MIN ? (x < acc ? x : acc) : acc + x;
}

static bool given_by_name(const Interp *in, const Value *v) {
  for (int i = 0; i < in->ninputs; i++)
    if (strcmp(in->inputs[i].name, v->name) == 0) return true;
  return false;
}

/* feat: the input that takes the graph's features (the first forward vertex input not given by
 * name); evals: the one that takes the graph's edge values (the first such edge input). */
static bool fill_input(Interp *in, const Value *v, double *out, const Value *feat, const Value *evals, char *err,
                       size_t errlen) {
  const Graph *g = in->g;
  int64_t rows = value_rows(v, g), n = shape_elems(&v->shape);
  for (int i = 0; i < in->ninputs; i++) /* given by name */
    if (strcmp(in->inputs[i].name, v->name) == 0) {
      if (!shape_eq(&in->inputs[i].shape, &v->shape)) {
        snprintf(err, errlen, "error: input '%s' is given with shape %s, the model wants %s", v->name,
                 shape_str(in->m->arena, &in->inputs[i].shape), shape_str(in->m->arena, &v->shape));
        return false;
      }
      memcpy(out, in->inputs[i].data, sizeof(double) * (size_t)(rows * n));
      return true;
    }
  if (v == feat) {
    /* The first vertex input takes the graph's features. LIBSVM rows are sparse, so a file
     * whose largest index is below the declared width is zero-padded. */
    if (v->shape.rank != 1 || g->nfeat > n) {
      snprintf(err, errlen, "error: model input '%s' is vertex%s but the graph's features have %lld columns", v->name,
               v->shape.rank == 1 ? arena_printf(in->m->arena, "[%lld]", (long long)n) : "[...]", (long long)g->nfeat);
      return false;
    }
    for (int64_t r = 0; r < rows; r++)
      for (int64_t k = 0; k < n; k++) out[r * n + k] = k < g->nfeat ? g->features[r * g->nfeat + k] : 0;
    return true;
  }
  if (v == evals) {
    /* The first edge input takes graph.edges' values (file order, as every edge value here);
     * its row must be exactly as wide as the file's. */
    if (n != g->edge_ncols) {
      snprintf(err, errlen, "error: model input '%s' is edge%s (%lld value%s per edge) but the graph's edges carry %lld",
               v->name, shape_str(in->m->arena, &v->shape), (long long)n, n == 1 ? "" : "s", (long long)g->edge_ncols);
      return false;
    }
    memcpy(out, g->edge_vals, sizeof(double) * (size_t)(rows * n));
    return true;
  }
  /* Inputs the graph does not provide are generated from the seed: uniform in [-1, 1) for
   * vertex values, [0, 1) for edge values (weights, pseudo-coordinates); the backward's seed
   * grad.out in [-1, 1) whatever its domain, as gnn-run draws it (an edge output's was drawn in
   * [0, 1) here: the two backwards disagreed). */
  uint64_t s = name_seed(in->seed ^ 0x5eedull, v->name);
  bool weight = v->dom == DOM_EDGE && !v->bwd;
  for (int64_t i = 0; i < rows * n; i++) out[i] = weight ? rng_uniform(&s) : 2 * rng_uniform(&s) - 1;
  return true;
}

bool interp_run(Interp *in, char *err, size_t errlen) {
  const Module *m = in->m;
  const Graph *g = in->g;
  int nv = m->vals.len;
  in->vals = calloc((size_t)nv, sizeof(double *));
  int *last = calloc((size_t)nv, sizeof(int));
  for (int i = 0; i < nv; i++) {
    const Value *v = m->vals.items[i];
    last[i] = i;
    if (v->bwd && in->forward_only) continue;
    for (int k = 0; k < v->nargs; k++) last[v->args[k]->id] = i;
  }
  for (int i = 0; i < m->nouts; i++) last[m->outs[i].val->id] = nv;
  const Value *feat = NULL; /* not the backward's seed grad.out */
  for (int i = 0; i < nv && g->features && !feat; i++) {
    const Value *v = m->vals.items[i];
    if (v->op == OP_INPUT && v->dom == DOM_VERTEX && !v->bwd && !given_by_name(in, v)) feat = v;
  }
  const Value *evals = NULL;
  for (int i = 0; i < nv && g->edge_vals && !evals; i++) {
    const Value *v = m->vals.items[i];
    if (v->op == OP_INPUT && v->dom == DOM_EDGE && !v->bwd && !given_by_name(in, v)) evals = v;
  }
  for (int i = 0; i < nv; i++) {
    const Value *v = m->vals.items[i];
    if (v->bwd && in->forward_only) continue;
    if (in->given && in->given[i]) { /* computed by the caller */
      in->vals[i] = in->given[i];
      continue;
    }
    int64_t rows = value_rows(v, g), n = shape_elems(&v->shape);
    if ((double)rows * (double)n > 2e9) {
      snprintf(err, errlen, "error: value %%%d needs %lld x %lld doubles, too many for the interpreter", v->id,
               (long long)rows, (long long)n);
      free(last);
      return false;
    }
    double *out = calloc((size_t)(rows * n > 0 ? rows * n : 1), sizeof(double));
    in->vals[i] = out;
    const double *A = v->nargs > 0 ? in->vals[v->args[0]->id] : NULL;
    const double *B = v->nargs > 1 ? in->vals[v->args[1]->id] : NULL;
    const Shape *sa = v->nargs > 0 ? &v->args[0]->shape : NULL, *sb = v->nargs > 1 ? &v->args[1]->shape : NULL;
    int64_t na = sa ? shape_elems(sa) : 0, nb = sb ? shape_elems(sb) : 0;
    switch (v->op) {
    case OP_INPUT:
      if (!fill_input(in, v, out, feat, evals, err, errlen)) {
        free(last);
        return false;
      }
      break;
    case OP_PARAM:
      for (int k = 0; k < in->ps->nparams; k++)
        if (strcmp(in->ps->params[k].name, v->name) == 0) memcpy(out, in->ps->params[k].data, sizeof(double) * (size_t)n);
      break;
    case OP_CONST:
      out[0] = v->fattr;
      break;
    case OP_DEGREE:
      if (v->fn == FN_IN)
        for (int64_t u = 0; u < g->nv; u++) out[u] = (double)(g->in_ptr[u + 1] - g->in_ptr[u]);
      else if (v->fn == FN_OUT)
        for (int64_t e = 0; e < g->ne; e++) out[g->src[e]] += 1;
      else /* FN_SIZE: the vertices of each graph */
        for (int64_t gi = 0; gi < g->ng; gi++) out[gi] = (double)(g->graph_ptr[gi + 1] - g->graph_ptr[gi]);
      break;
    case OP_APPLY_EDGE: case OP_APPLY_VERTEX: case OP_APPLY_GLOBAL: case OP_APPLY_GRAPH: {
      if (v->fn == FN_DROPOUT && in->training) {
        float p = (float)v->fattr;
        double scale = 1.0 / (1.0 - (double)p);
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < rows; r++) {
          uint64_t row = (uint64_t)(v->dom == DOM_EDGE ? g->csr_pos[r] : r);
          for (int64_t k = 0; k < n; k++)
            out[r * n + k] = gnn_dropout_keep(in->dropout_seed, (uint32_t)v->iattr, row * (uint64_t)n + (uint64_t)k, p)
                                 ? A[r * n + k] * scale : 0;
        }
        break;
      }
      /* Operands of another domain (params, constants) have one row, used by every row. */
      int64_t sa_rows = value_rows(v->args[0], g), sb_rows = sb ? value_rows(v->args[1], g) : 0;
      if (v->fn == FN_WHERE) { /* c != 0 ? a : b, each operand prefix-broadcast */
        const Value *c3[3] = {v->args[0], v->args[1], v->args[2]};
        const double *p3[3];
        int64_t n3[3], r3[3];
        for (int k = 0; k < 3; k++) {
          p3[k] = in->vals[c3[k]->id];
          n3[k] = shape_elems(&c3[k]->shape);
          r3[k] = value_rows(c3[k], g) == rows ? n3[k] : 0; /* row stride: 0 for a one-row operand */
        }
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < rows; r++)
          for (int64_t q = 0; q < n; q++) {
            double cv = p3[0][r * r3[0] + q / (n / n3[0])];
            out[r * n + q] = cv != 0 ? p3[1][r * r3[1] + q / (n / n3[1])] : p3[2][r * r3[2] + q / (n / n3[2])];
          }
        break;
      }
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < rows; r++)
        eval_row(v, v->fn, A + (sa_rows == rows ? r : 0) * na, sa, B ? B + (sb_rows == rows ? r : 0) * nb : NULL, sb,
                 out + r * n);
      break;
    }
    case OP_REDUCE_ROWS: {
      int64_t arows = value_rows(v->args[0], g);
      if (v->fn == FN_SUM) {
        for (int64_t r = 0; r < arows; r++)
          for (int64_t k = 0; k < n; k++) out[k] += A[r * n + k];
      } else { /* matmul_tn: out[k, c] = sum over rows and leading dims of x[.., k] y[.., c] */
        int64_t K = sa->d[sa->rank - 1], lead = na / K, C = nb / lead;
        for (int64_t r = 0; r < arows; r++)
          for (int64_t l = 0; l < lead; l++) {
            const double *x = A + r * na + l * K, *y = B + r * nb + l * C;
            for (int64_t k = 0; k < K; k++) {
              if (x[k] == 0) continue;
              for (int64_t c = 0; c < C; c++) out[k * C + c] += x[k] * y[c];
            }
          }
      }
      break;
    }
    case OP_SCATTER:
      if (v->fn == FN_ARGSEL_V) { /* a[dst] where arg[dst] names this edge (its CSR position) */
#pragma omp parallel for schedule(static)
        for (int64_t e = 0; e < g->ne; e++)
          for (int64_t k = 0; k < n; k++)
            out[e * n + k] = B[g->dst[e] * n + k] == (double)g->csr_pos[e] ? A[g->dst[e] * n + k] : 0;
        break;
      }
#pragma omp parallel for schedule(static)
      for (int64_t e = 0; e < g->ne; e++) {
        const double *ua = A + g->src[e] * na;
        const double *vb = B ? B + g->dst[e] * nb : NULL;
        if (v->fn == FN_COPY_V) ua = A + g->dst[e] * na;
        eval_row(v, v->fn, ua, sa, vb, sb, out + e * n);
      }
      break;
    case OP_GATHER: {
      const int64_t *ptr = v->iattr == GATHER_BY_SRC ? g->out_ptr : g->in_ptr;
      const int64_t *eid = v->iattr == GATHER_BY_SRC ? g->out_eid : g->in_eid;
      bool arg = v->fn == FN_ARGMAX || v->fn == FN_ARGMIN;
#pragma omp parallel for schedule(dynamic, 64)
      for (int64_t u = 0; u < g->nv; u++) {
        int64_t lo = ptr[u], hi = ptr[u + 1];
        double *o = out + u * n;
        if (arg) { /* the first edge (in CSR order) that attains the extremum */
          for (int64_t k = 0; k < n; k++) {
            double best = 0;
            o[k] = -1;
            for (int64_t j = lo; j < hi; j++) {
              double x = A[eid[j] * n + k];
              if (o[k] < 0 || (v->fn == FN_ARGMAX ? x > best : x < best)) best = x, o[k] = (double)g->csr_pos[eid[j]];
            }
          }
          continue;
        }
        if (lo == hi) continue; /* no in-edges: 0 */
        for (int64_t k = 0; k < n; k++) o[k] = reduce_init(v->fn);
        for (int64_t j = lo; j < hi; j++) {
          const double *x = A + eid[j] * n;
          for (int64_t k = 0; k < n; k++) o[k] = reduce_step(v->fn, o[k], x[k]);
        }
        if (v->fn == FN_MEAN)
          for (int64_t k = 0; k < n; k++) o[k] /= (double)(hi - lo);
      }
      break;
    }
    case OP_AGGREGATE:
#pragma omp parallel
      {
        double *msg = malloc(sizeof(double) * (size_t)n);
#pragma omp for schedule(dynamic, 64)
        for (int64_t u = 0; u < g->nv; u++) {
          int64_t lo = g->in_ptr[u], hi = g->in_ptr[u + 1];
          double *o = out + u * n;
          if (lo == hi) continue;
          for (int64_t k = 0; k < n; k++) o[k] = reduce_init(v->fn);
          for (int64_t j = lo; j < hi; j++) {
            int64_t e = g->in_eid[j];
            if (v->msg == FN_COPY_E) eval_row(v, FN_COPY_E, A + e * na, sa, NULL, NULL, msg);
            else if (v->msg == FN_COPY_U) eval_row(v, FN_COPY_U, A + g->src[e] * na, sa, NULL, NULL, msg);
            else eval_row(v, v->msg, A + g->src[e] * na, sa, B + e * nb, sb, msg);
            for (int64_t k = 0; k < n; k++) o[k] = reduce_step(v->fn, o[k], msg[k]);
          }
          if (v->fn == FN_MEAN)
            for (int64_t k = 0; k < n; k++) o[k] /= (double)(hi - lo);
        }
        free(msg);
      }
      break;
    case OP_READOUT: /* over the vertices of each graph; a graph without vertices gets 0 */
#pragma omp parallel for schedule(dynamic, 16)
      for (int64_t gi = 0; gi < g->ng; gi++) {
        int64_t lo = g->graph_ptr[gi], hi = g->graph_ptr[gi + 1];
        double *o = out + gi * n;
        if (lo == hi) continue;
        for (int64_t k = 0; k < n; k++) o[k] = reduce_init(v->fn);
        for (int64_t u = lo; u < hi; u++)
          for (int64_t k = 0; k < n; k++) o[k] = reduce_step(v->fn, o[k], A[u * n + k]);
        if (v->fn == FN_MEAN)
          for (int64_t k = 0; k < n; k++) o[k] /= (double)(hi - lo);
      }
      break;
    case OP_BROADCAST:
#pragma omp parallel for schedule(static)
      for (int64_t u = 0; u < g->nv; u++)
        memcpy(out + u * n, A + (v->args[0]->dom == DOM_GRAPH ? g->graph_of[u] * n : 0), sizeof(double) * (size_t)n);
      break;
    case OP_REDUCE_SCATTER: /* edge_softmax over the in-edges of each destination */
#pragma omp parallel for schedule(dynamic, 64)
      for (int64_t u = 0; u < g->nv; u++) {
        int64_t lo = g->in_ptr[u], hi = g->in_ptr[u + 1];
        for (int64_t k = 0; k < n; k++) {
          double mx = -INFINITY, sum = 0;
          for (int64_t j = lo; j < hi; j++) mx = fmax(mx, A[g->in_eid[j] * n + k]);
          for (int64_t j = lo; j < hi; j++) sum += exp(A[g->in_eid[j] * n + k] - mx);
          for (int64_t j = lo; j < hi; j++) out[g->in_eid[j] * n + k] = exp(A[g->in_eid[j] * n + k] - mx) / sum;
        }
      }
      break;
    default:
      break;
    }
    /* Free operands whose last use this was. */
    for (int k = 0; k < v->nargs; k++) {
      int a = v->args[k]->id;
      if (last[a] == i && in->vals[a] && v->args[k]->op != OP_INPUT && !in->keep_all && !(in->keep && in->keep[a]) &&
          !(in->given && in->given[a])) {
        free(in->vals[a]);
        in->vals[a] = NULL;
      }
    }
  }
  free(last);
  return true;
}

void interp_free(Interp *in) {
  if (!in->vals) return;
  for (int i = 0; i < in->m->vals.len; i++)
    if (!(in->given && in->given[i])) free(in->vals[i]);
  free(in->vals);
  in->vals = NULL;
}
