/* gnn_compare.c -- gnn-compare: a library's tensors against the interpreter's, by a measure that
 * tells float32 rounding from a wrong result.
 *
 *   gnn-compare GOT REF [--tol T] [--names a,b] [--file-floor F] [--zero-below Z]
 *
 * GOT and REF are tensor text files ("tensor NAME ROWS RANK dims..." then ROWS x width values,
 * behind an optional "#gnn-tensors ..." checksum line, also where files were concatenated), as
 * `gnn-run --output/--save-grads` and `gnnc run --output/--save-outputs` write them. Every tensor
 * of REF (or the named ones) must be in GOT with the same shape, finite, and within T of REF in
 * this relative measure, per element (a non-finite value in either file is a failure):
 *
 *     err_i = |got_i - ref_i| / max(|ref_i|, 0.1 * max_j |ref_j|)
 *
 * i.e. relative to the element, except that elements below a tenth of the tensor's largest
 * magnitude are measured against that tenth. Why the floor: float32 arithmetic rounds each
 * intermediate to about 6e-8 of ITS magnitude, so a value that is the difference of much larger
 * terms (x_u - x_v, a projection with cancelling weights, four layers of them in EdgeConv)
 * carries an absolute error of about 1e-7 of those terms, not of itself: against the float64
 * interpreter it can show 1e-5..1e-4 relative error with nothing wrong. An indexing or mapping
 * bug, by contrast, shows errors of order 1 of the tensor's scale, which this measure catches.
 *
 * Printed for every tensor: this error and its worst element, the plain relative error
 * |got-ref|/|ref| over the elements at or above the floor, and the normwise error
 * max|got-ref| / max|ref|. Exit 0 when every tensor is within T (default 1e-5), 1 when one is
 * not (or is missing, misshapen, or not finite in GOT or REF), 2 when a file cannot be read.
 *
 * --file-floor F: the floor is also at least F x the largest magnitude of ANY tensor of REF, for
 * gradients that are zero in exact arithmetic (a softmax over equal values, whose float64
 * reference is 1e-17 and float32 result 1e-7 of rounding): the differential fuzzer
 * (tests/fuzz/diff/fuzz_diff.py) uses it; the default 0 keeps the per-tensor measure.
 * --zero-below Z (with --file-floor): only a tensor whose largest magnitude is below Z x the
 * file's is taken for zero in exact arithmetic and gets the file's floor; any other is measured
 * against its own scale alone (without it, a gradient 1e-4 of the file's scale could be 100% off
 * unnoticed).
 *
 * The tests ran this measure as a Python script, one process per comparison, whose element loop
 * took most of a second on a model's gradients (a tenth of the codegen suite's time): in C it is
 * the reading of the text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *name;
  long long rows;
  int rank;
  long long dims[8];
  long long n; /* rows x the product of dims */
  double *vals;
} Tensor;

typedef struct {
  const char *path;
  char *text; /* the file, the tensors' names pointing into it */
  Tensor *t;
  int n, cap;
} TensorFile;

static void die(const char *path, const char *what) {
  fprintf(stderr, "gnn-compare: %s: %s\n", path, what);
  exit(2);
}

/* The next whitespace-separated token of *p (NUL-terminated in place), or NULL at the end. */
static char *next_token(char **p) {
  char *s = *p;
  while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f') s++;
  if (!*s) return *p = s, NULL;
  char *e = s;
  while (*e && !(*e == ' ' || *e == '\n' || *e == '\t' || *e == '\r' || *e == '\v' || *e == '\f')) e++;
  if (*e) *e++ = '\0';
  *p = e;
  return s;
}

static long long parse_count(const char *path, const char *tok, const char *what) {
  char *end;
  errno = 0;
  long long v = tok ? strtoll(tok, &end, 10) : 0;
  if (!tok || *end || errno || v < 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "expected %s, got '%s'", what, tok ? tok : "(end of file)");
    die(path, msg);
  }
  return v;
}

static void read_file(TensorFile *tf, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    if (memchr(buf + len, '\0', got)) die(path, "a NUL byte: not a tensor text file"); /* /dev/zero: at once */
    len += got;
    if (len + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  if (!buf) die(path, "out of memory");
  if (ferror(f)) die(path, "read error");
  fclose(f);
  if (memchr(buf, '\0', len)) die(path, "a NUL byte: not a tensor text file"); /* (the rest would go unread) */
  buf[len] = '\0';
  tf->path = path;
  tf->text = buf;
  char *p = buf, *tok;
  while ((tok = next_token(&p))) {
    if (strcmp(tok, "#gnn-tensors") == 0) { /* the runtime's checksum line: 7 tokens */
      for (int k = 0; k < 6; k++) next_token(&p);
      continue;
    }
    if (strcmp(tok, "tensor") != 0) {
      char msg[160];
      snprintf(msg, sizeof msg, "expected 'tensor', got '%.60s'", tok);
      die(path, msg);
    }
    if (tf->n == tf->cap) {
      tf->cap = tf->cap ? 2 * tf->cap : 16;
      tf->t = realloc(tf->t, sizeof *tf->t * tf->cap);
      if (!tf->t) die(path, "out of memory");
    }
    Tensor *t = &tf->t[tf->n++];
    memset(t, 0, sizeof *t);
    t->name = next_token(&p);
    if (!t->name) die(path, "a tensor line without a name");
    t->rows = parse_count(path, next_token(&p), "a row count");
    if (t->rows > (1LL << 40)) die(path, "a tensor of more than 2^40 values");
    long long rank = parse_count(path, next_token(&p), "a rank");
    if (rank > 8) die(path, "a rank above 8");
    t->rank = (int)rank;
    t->n = t->rows;
    for (int k = 0; k < t->rank; k++) {
      t->dims[k] = parse_count(path, next_token(&p), "a dimension");
      if (t->dims[k] && t->n > (1LL << 40) / t->dims[k]) die(path, "a tensor of more than 2^40 values");
      t->n *= t->dims[k];
    }
    t->vals = malloc(sizeof(double) * (size_t)(t->n ? t->n : 1));
    if (!t->vals) die(path, "out of memory");
    for (long long i = 0; i < t->n; i++) {
      char *v = next_token(&p), *end;
      if (!v) {
        char msg[200];
        snprintf(msg, sizeof msg, "tensor %s is truncated (%lld of %lld values)", t->name, i, t->n);
        die(path, msg);
      }
      t->vals[i] = strtod(v, &end);
      if (*end || end == v) {
        char msg[200];
        snprintf(msg, sizeof msg, "tensor %s: '%.40s' is not a number", t->name, v);
        die(path, msg);
      }
    }
  }
}

/* The tensor NAME (its last occurrence, as a later tensor of the same name replaces it), or NULL. */
static const Tensor *find(const TensorFile *tf, const char *name) {
  for (int k = tf->n - 1; k >= 0; k--)
    if (strcmp(tf->t[k].name, name) == 0) return &tf->t[k];
  return NULL;
}

/* "(rows, (d0, d1))", the shape as the Python script printed it (",)" for one dim). */
static void shape_str(const Tensor *t, char *out, size_t cap) {
  int n = snprintf(out, cap, "(%lld, (", t->rows);
  for (int k = 0; k < t->rank && n > 0 && (size_t)n < cap; k++)
    n += snprintf(out + n, cap - n, "%s%lld", k ? ", " : "", t->dims[k]);
  if (n > 0 && (size_t)n < cap) snprintf(out + n, cap - n, "%s))", t->rank == 1 ? "," : "");
}

static bool same_shape(const Tensor *a, const Tensor *b) {
  if (a->rows != b->rows || a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->dims[k] != b->dims[k]) return false;
  return true;
}

/* The largest finite magnitude (0 for none). Non-finite values are skipped: an inf in a tensor not
 * compared (--names) made the file's floor infinite, and every compared tensor passed; a
 * non-finite value in a compared tensor fails it on its own (compare_one). */
static double largest(const double *v, long long n, double start, bool have_start) {
  double m = start;
  for (long long i = 0; i < n; i++) {
    if (!isfinite(v[i])) continue;
    double a = fabs(v[i]);
    if (!have_start) m = a, have_start = true;
    else if (a > m) m = a;
  }
  return have_start ? m : 0.0;
}

/* A NaN prints as "nan", whatever its sign bit (glibc would print "-nan" for inf - inf). */
static double unsigned_nan(double x) { return isnan(x) ? fabs(x) : x; }

/* Compares one tensor; prints its line; true when within tol. */
static bool compare_one(const char *name, const TensorFile *got, const TensorFile *ref, double tol, double scale,
                        double file_floor, bool have_zero_below, double zero_below) {
  const Tensor *r = find(ref, name), *g = find(got, name);
  if (!r) return printf("FAIL %s: not in %s\n", name, ref->path), false;
  if (!g) return printf("FAIL %s: not in %s\n", name, got->path), false;
  if (!same_shape(g, r)) {
    char gs[200], rs[200];
    shape_str(g, gs, sizeof gs);
    shape_str(r, rs, sizeof rs);
    return printf("FAIL %s: shape %s, reference %s\n", name, gs, rs), false;
  }
  long long nonfinite = 0, ref_nonfinite = 0;
  for (long long i = 0; i < g->n; i++) nonfinite += !isfinite(g->vals[i]);
  if (nonfinite) return printf("FAIL %s: %lld non-finite values\n", name, nonfinite), false;
  /* A NaN or infinity in the reference measures nothing (every comparison with a NaN is false,
   * so its elements counted as agreeing whatever GOT held, and an infinite one set the floor
   * to infinity): the reference's model is undefined there, which is the finding. */
  for (long long i = 0; i < r->n; i++) ref_nonfinite += !isfinite(r->vals[i]);
  if (ref_nonfinite)
    return printf("FAIL %s: %lld non-finite values in the reference (%s): nothing to compare them with\n", name,
                  ref_nonfinite, ref->path), false;
  double big = largest(r->vals, r->n, 0.0, false);
  bool zero = !have_zero_below || big < zero_below * scale;
  double floor_v = 0.1 * big, ff = zero ? file_floor * scale : 0.0;
  if (ff > floor_v) floor_v = ff;
  double worst = 0.0, plain = 0.0, absmax = 0.0;
  long long wi = 0;
  for (long long i = 0; i < g->n; i++) {
    double a = g->vals[i], b = r->vals[i], d = fabs(a - b), ab = fabs(b);
    if (d > absmax) absmax = d;
    double den = floor_v > ab ? floor_v : ab; /* max(|ref_i|, floor): |ref_i| unless the floor is larger */
    double e = den > 0 ? d / den : d;
    if (e > worst) worst = e, wi = i;
    if (ab >= floor_v && ab > 0 && d / ab > plain) plain = d / ab;
  }
  double norm = big > 0 ? absmax / big : absmax;
  bool ok = worst <= tol;
  printf("%s %s: max err %.3g (relative, floor %.3g), plain relative %.3g, normwise %.3g; worst element %lld: got %.9g ref %.12g\n",
         ok ? "ok  " : "FAIL", name, unsigned_nan(worst), unsigned_nan(floor_v), unsigned_nan(plain), unsigned_nan(norm), wi,
         unsigned_nan(g->n ? g->vals[wi] : 0.0), unsigned_nan(r->n ? r->vals[wi] : 0.0));
  return ok;
}

/* A finite number at least 0 (--tol 0: equal bit for bit): --tol -1 or nan made every tensor
 * fail, error 0 too (nothing compares below a NaN); inf let every tensor pass. */
static double parse_real(const char *opt, const char *v) {
  char *end;
  double x = v ? strtod(v, &end) : 0;
  if (!v || *end || end == v || !isfinite(x) || x < 0) {
    fprintf(stderr, "gnn-compare: %s wants a finite number at least 0, got '%s'\n", opt, v ? v : "(nothing)");
    exit(2);
  }
  return x;
}

static void usage(FILE *out) {
  fputs("usage: gnn-compare GOT REF [--tol T] [--names a,b] [--file-floor F] [--zero-below Z]\n"
        "Compares every tensor of REF (or the named ones) with GOT's, element by element, relative to\n"
        "max(|ref_i|, 0.1 max|ref|); exit 0 when all are within T (default 1e-5), 1 when one is not or\n"
        "is missing, misshapen or not finite, or REF holds no tensor; 2 when a file cannot be read.\n"
        "docs/interpreter.md has the measure and the options.\n",
        out);
}

int main(int argc, char **argv) {
  double tol = 1e-5, file_floor = 0.0, zero_below = 0.0;
  bool have_zero_below = false;
  char *names = NULL;
  const char *files[2];
  int nfiles = 0;
  bool seen[4] = {false, false, false, false};
  static const char *const options[4] = {"--tol", "--file-floor", "--zero-below", "--names"};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return usage(stdout), 0;
    for (int o = 0; o < 4; o++) {
      if (strcmp(a, options[o]) != 0) continue;
      if (seen[o]) {
        fprintf(stderr, "gnn-compare: %s given twice\n", a);
        return 2;
      }
      seen[o] = true;
    }
    if (strcmp(a, "--tol") == 0) tol = parse_real(a, k + 1 < argc ? argv[++k] : NULL);
    else if (strcmp(a, "--file-floor") == 0) file_floor = parse_real(a, k + 1 < argc ? argv[++k] : NULL);
    else if (strcmp(a, "--zero-below") == 0) zero_below = parse_real(a, k + 1 < argc ? argv[++k] : NULL), have_zero_below = true;
    else if (strcmp(a, "--names") == 0 && k + 1 < argc) names = argv[++k];
    else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "gnn-compare: unknown option '%s'\n", a);
      return 2;
    } else if (nfiles < 2) files[nfiles++] = a;
    else {
      fprintf(stderr, "gnn-compare: more than two files ('%s')\n", a);
      return 2;
    }
  }
  if (nfiles != 2) return usage(stderr), 2;
  TensorFile got = {0}, ref = {0};
  read_file(&got, files[0]);
  read_file(&ref, files[1]);
  /* The largest magnitude in REF: over each name in the order it first appears, the values of
   * its last tensor (a later tensor of a name replaces the earlier one) */
  double scale = 0.0;
  bool have = false;
  for (int k = 0; k < ref.n; k++) {
    bool first = true;
    for (int j = 0; j < k && first; j++) first = strcmp(ref.t[j].name, ref.t[k].name) != 0;
    if (!first) continue;
    const Tensor *t = find(&ref, ref.t[k].name);
    scale = largest(t->vals, t->n, scale, have);
    have = have || t->n > 0;
  }
  int bad = 0;
  if (!names && ref.n == 0) { /* nothing compared is no agreement (gnn-compare got.txt /dev/null exited 0) */
    printf("FAIL %s holds no tensor: nothing to compare\n", ref.path);
    bad = 1;
  } else if (names) { /* every item, an empty one too (it is in neither file: a failure) */
    for (char *nm = names, *comma;; nm = comma + 1) {
      if ((comma = strchr(nm, ','))) *comma = '\0';
      bad += !compare_one(nm, &got, &ref, tol, scale, file_floor, have_zero_below, zero_below);
      if (!comma) break;
    }
  } else {
    for (int k = 0; k < ref.n; k++) {
      bool first = true; /* each name once, where it first appears */
      for (int j = 0; j < k && first; j++) first = strcmp(ref.t[j].name, ref.t[k].name) != 0;
      if (first) bad += !compare_one(ref.t[k].name, &got, &ref, tol, scale, file_floor, have_zero_below, zero_below);
    }
  }
  for (TensorFile *tf = &got; tf; tf = tf == &got ? &ref : NULL) {
    for (int k = 0; k < tf->n; k++) free(tf->t[k].vals);
    free(tf->t);
    free(tf->text);
  }
  return bad ? 1 : 0;
}
