/* diag.c -- diagnostics: "file:line:col: error: message", the source line, and a caret.
 *
 * Every phase reports through here, so every error looks the same:
 *
 *   gat.gnn:4:22: error: unknown name 'Wx'
 *     e = leaky_relu(dot(a, Wx[src]), 0.2)
 *                           ^~
 *
 * Errors are counted; the driver exits 1 if any were reported. After max_errors the rest
 * are counted but not printed, so a hopeless file does not flood the terminal.
 */
#include "gnnc.h"

#include <stdlib.h>
#include <string.h>

const char *domain_name(Domain d) {
  switch (d) {
  case DOM_VERTEX: return "vertex";
  case DOM_EDGE: return "edge";
  case DOM_PARAM: return "param";
  case DOM_GLOBAL: return "global";
  }
  return "?";
}

const char *domain_a(Domain d) { return d == DOM_EDGE ? "an edge" : d == DOM_VERTEX ? "a vertex" : d == DOM_PARAM ? "a param" : "a global"; }

/* Prints line `line` of the source and a caret under columns [col, col+len). */
static void show_line(Diag *d, Loc loc) {
  if (!d->text || loc.line <= 0) return;
  const char *p = d->text, *end = d->text + d->size;
  for (int l = 1; l < loc.line && p < end; p++)
    if (*p == '\n') l++;
  if (p >= end && loc.line > 1) return;
  const char *e = p;
  while (e < end && *e != '\n') e++;
  if (e > p && e[-1] == '\r') e--; /* CRLF files */
  int col = loc.col > 0 ? loc.col : 1;
  int len = loc.len;
  if (col - 1 + len > (int)(e - p)) len = (int)(e - p) - (col - 1);
  /* Both lines are built in one buffer and written at once: stderr is unbuffered, and a
   * diagnostic on a megabyte-long line must not cost millions of writes. */
  size_t n = (size_t)(e - p), cap = n + (size_t)col + (size_t)(len > 0 ? len : 0) + 8;
  char *buf = malloc(cap), *o = buf;
  if (!buf) return;
  *o++ = ' ', *o++ = ' ';
  /* Non-printable bytes show as '?' so the caret still lines up. */
  for (const char *q = p; q < e; q++) *o++ = ((unsigned char)*q >= 32 && (unsigned char)*q < 127) || *q == '\t' ? *q : '?';
  *o++ = '\n', *o++ = ' ', *o++ = ' ';
  for (int i = 1; i < col; i++) *o++ = (size_t)(i - 1) < n && p[i - 1] == '\t' ? '\t' : ' ';
  *o++ = '^';
  for (int i = 1; i < len; i++) *o++ = '~';
  *o++ = '\n';
  fwrite(buf, 1, (size_t)(o - buf), d->out);
  free(buf);
}

void diag_verror(Diag *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  bool is_error = strcmp(kind, "error") == 0;
  if (is_error) d->errors++;
  if (!d->out) return;
  if (d->errors > d->max_errors) {
    if (is_error && d->errors == d->max_errors + 1)
      fprintf(d->out, "%s: too many errors, stopping\n", d->path);
    return;
  }
  if (loc.line > 0)
    fprintf(d->out, "%s:%d:%d: %s: ", d->path, loc.line, loc.col, kind);
  else
    fprintf(d->out, "%s: %s: ", d->path, kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  show_line(d, loc);
}

void diag_error(Diag *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, "error", loc, fmt, ap);
  va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...) {
  if (d->errors > d->max_errors) return;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, "note", loc, fmt, ap);
  va_end(ap);
}

bool diag_too_many(const Diag *d) { return d->errors > d->max_errors; }

char *read_source_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    cap *= 2;
    char *bigger = realloc(buf, cap + 1);
    if (!bigger) free(buf);
    buf = bigger;
  }
  bool bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *size = n;
  return buf;
}
