/* diag.c -- diagnostics: "file:line:col: error: message", the source line, and a caret.
 *
 * Every phase reports through here, so every error looks the same:
 *
 *   gat.gnn:4:22: error: unknown name 'Wx'
 *     e = leaky_relu(dot(a, Wx[src]), 0.2)
 *                           ^~
 *
 * Errors are counted; the driver exits 1 if any were reported. After max_errors the rest
 * are counted but not printed, so a hopeless file does not flood the terminal; a line longer
 * than DIAG_WINDOW columns is shown as a window around the caret, and a message is cut at
 * DIAG_MESSAGE_MAX bytes, so the output of one diagnostic is bounded whatever the input.
 */
#include "diag.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Columns of a long source line shown around the caret: a diagnostic on a megabyte-long line
 * (a 1 MB identifier, a file of NULs) prints a window, not the line. */
enum { DIAG_WINDOW = 160, DIAG_BEFORE = 80, DIAG_MESSAGE_MAX = 400 };

/* Prints line `line` of the source and a caret under columns [col, col+len); a line longer
 * than DIAG_WINDOW is cut to a window around the caret, "..." marking each cut. */
static void show_line(Diag *d, Loc loc) {
  if (!d->text || loc.line <= 0) return;
  const char *p = d->text, *end = d->text + d->size;
  int l = 1;
  if (d->shown_line > 0 && d->shown_line <= loc.line && d->shown_off <= d->size)
    l = d->shown_line, p = d->text + d->shown_off; /* on from the last line shown */
  for (; l < loc.line && p < end; p++)
    if (*p == '\n') l++;
  if (l == loc.line) d->shown_line = l, d->shown_off = (size_t)(p - d->text);
  if (p >= end && loc.line > 1) return;
  const char *e = p;
  while (e < end && *e != '\n') e++;
  if (e > p && e[-1] == '\r') e--; /* CRLF files */
  size_t col = loc.col > 0 ? (size_t)loc.col : 1, len = loc.len > 0 ? (size_t)loc.len : 0, n = (size_t)(e - p);
  if (col - 1 > n) col = n + 1;
  if (col - 1 + len > n) len = n - (col - 1);
  size_t from = 0, to = n; /* the window [from, to) of the line */
  if (n > DIAG_WINDOW) {
    from = col - 1 > DIAG_BEFORE ? col - 1 - DIAG_BEFORE : 0;
    if (from + DIAG_WINDOW > n) from = n - DIAG_WINDOW;
    to = from + DIAG_WINDOW;
  }
  if (col - 1 + len > to) len = to - (col - 1);
  /* Both lines are built in one buffer and written at once: stderr is unbuffered. */
  size_t cap = 2 * (to - from) + 32;
  char *buf = malloc(cap), *o = buf;
  if (!buf) return;
  *o++ = ' ', *o++ = ' ';
  if (from > 0) memcpy(o, "...", 3), o += 3;
  /* Non-printable bytes show as '?' so the caret still lines up. */
  for (const char *q = p + from; q < p + to; q++) *o++ = ((unsigned char)*q >= 32 && (unsigned char)*q < 127) || *q == '\t' ? *q : '?';
  if (to < n) memcpy(o, "...", 3), o += 3;
  *o++ = '\n', *o++ = ' ', *o++ = ' ';
  if (from > 0) memcpy(o, "   ", 3), o += 3;
  for (size_t i = from + 1; i < col; i++) *o++ = p[i - 1] == '\t' ? '\t' : ' ';
  *o++ = '^';
  for (size_t i = 1; i < len; i++) *o++ = '~';
  *o++ = '\n';
  fwrite(buf, 1, (size_t)(o - buf), d->out);
  free(buf);
}

void diag_verror(Diag *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  bool is_error = strcmp(kind, "error") == 0, is_note = strcmp(kind, "note") == 0;
  if (is_error) d->errors++;
  if (is_note && d->muted) return;
  if (!is_note) d->muted = false;
  if (!d->out) return;
  if (diag_count(d) > d->max_errors) { /* past the limit nothing is printed, so nothing is a repeat */
    if (is_error && diag_count(d) == d->max_errors + 1)
      fprintf(d->out, "%s: too many errors, stopping\n", d->path);
    return;
  }
  /* a message quoting a huge name is cut too */
  char msg[DIAG_MESSAGE_MAX + 1];
  int need = vsnprintf(msg, sizeof msg, fmt, ap);
  if (is_error && d->arena) {
    void **seen = strmap_put(d->arena, &d->printed, arena_printf(d->arena, "%d:%d:%s", loc.line, loc.col, msg));
    if (*seen) {
      d->repeats++;
      d->muted = true;
      return;
    }
    *seen = d;
  }
  if (loc.line > 0)
    fprintf(d->out, "%s:%d:%d: %s: ", d->path, loc.line, loc.col, kind);
  else
    fprintf(d->out, "%s: %s: ", d->path, kind);
  fputs(msg, d->out);
  if (need > DIAG_MESSAGE_MAX) fputs("...", d->out);
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
  if (diag_too_many(d)) return;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, "note", loc, fmt, ap);
  va_end(ap);
}

int diag_count(const Diag *d) { return d->errors - d->repeats; }

bool diag_too_many(const Diag *d) { return diag_count(d) > d->max_errors; }

/* path whole, NUL-terminated: refused past `limit` bytes (EFBIG) and, with stop_at_nul, at the
 * first NUL byte (EILSEQ), checked as each block arrives so that /dev/zero ends at once. */
static char *read_whole(const char *path, size_t limit, bool stop_at_nul, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  bool too_big = false, nul = false;
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    if (stop_at_nul && memchr(buf + n, 0, got)) {
      nul = true;
      break;
    }
    n += got;
    if (n < cap) break;
    if (n > limit) { /* /dev/zero, a huge file: refuse before memory runs out */
      too_big = true;
      break;
    }
    cap *= 2;
    char *bigger = realloc(buf, cap + 1);
    if (!bigger) free(buf);
    buf = bigger;
  }
  if (n > limit) too_big = true;
  bool bad = !buf || ferror(f) || too_big || nul;
  /* a directory opens (fopen "rb" succeeds on Linux) and fails to read with EISDIR: say that,
   * not "Input/output error" */
  int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (bad) {
    free(buf);
    errno = nul ? EILSEQ : too_big ? EFBIG : !buf ? ENOMEM : read_errno ? read_errno : EIO;
    return NULL;
  }
  buf[n] = 0;
  *size = n;
  return buf;
}

char *read_source_file(const char *path, size_t *size) { return read_whole(path, GNNC_MAX_SOURCE_BYTES, false, size); }

char *read_text_file(const char *path, size_t *size) { return read_whole(path, SIZE_MAX - 1, true, size); }

const char *read_source_error(int err) {
  return err == EFBIG    ? "larger than 64 MiB, the limit for a source file"
         : err == EILSEQ ? "NUL byte in a text file"
                         : strerror(err);
}

const char *binary_file_kind(const char *path) {
  char b[8];
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  if (n == 8 && memcmp(b, "GNNRTCKP", 8) == 0)
    return "a training checkpoint (binary, gnn_train_state_save: gnn-train --checkpoint), read by gnn_train_state_load "
           "(gnn-train --resume)";
  if (n == 8 && memcmp(b, "GNNRTCSR", 8) == 0)
    return "a graph cache (binary, gnn_graph_save_cache), read by gnn_graph_load from a file named .gcsr";
  return NULL;
}
