/* diag.h -- the ground floor: diagnostics (diag.c). A source position (Loc), the Diag that
 * counts and prints "file:line:col: error: message" with the source line and a caret, reading
 * a source file, and the compiler's version. Includes arena.h only for GNN_PRINTF.
 */
#ifndef GNNC_DIAG_H
#define GNNC_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"

/* A source position: 1-based line and column, and the length of the span to underline. */
typedef struct {
  int line, col, len;
} Loc;

typedef struct {
  const char *path;  /* as given on the command line */
  const char *text;  /* whole file, size bytes (NUL bytes included) and a terminating NUL */
  size_t size;
  FILE *out;         /* where diagnostics go (stderr; NULL = count only, for the fuzzer) */
  int errors;        /* every error found, those not printed again included (control flow reads it) */
  int max_errors;    /* stop reporting after this many */
  /* Each error is printed once: an error with the place and message of one already printed (a
   * mistake in a layer that two calls instantiate) is counted in errors and in repeats, not
   * printed, nor are its notes. Needs arena (set by gnn_ctx_init); without one, none is dropped. */
  Arena *arena;
  StrMap printed;    /* "line:col:message" of each error printed */
  int repeats;
  bool muted;        /* the last error was a repeat: its notes are dropped too */
  /* Where the last source line shown starts (diag.c, show_line): the next diagnostic at that line
   * or below scans on from there, not from the file's start, so N diagnostics in line order cost
   * one pass over the text, not N (20,000 unused-parameter warnings: 2.6 s before). 0 = none. */
  int shown_line;
  size_t shown_off;
} Diag;
/* The errors to report in "N errors generated.": each printed error once. */
int diag_count(const Diag *d);

void diag_error(Diag *d, Loc loc, const char *fmt, ...) GNN_PRINTF(3, 4);
void diag_note(Diag *d, Loc loc, const char *fmt, ...) GNN_PRINTF(3, 4);
void diag_verror(Diag *d, const char *kind, Loc loc, const char *fmt, va_list ap);
bool diag_too_many(const Diag *d);
/* A source file, whole and NUL-terminated (a Diag's text): malloc'ed, *size its bytes (NUL bytes
 * included); NULL when it cannot be read (errno says why) or memory runs out. */
char *read_source_file(const char *path, size_t *size);
/* A data file (tensor text: --params, --inputs), whole and NUL-terminated, of any size (gnnc run
 * --save-inputs writes 200 MB for PubMed): NULL with errno EILSEQ at the first NUL byte, which a
 * text file never has (reading /dev/zero ends at once), else as read_source_file. */
char *read_text_file(const char *path, size_t *size);
/* The version gnnc --version prints; the runtime's API version is GNNRT_VERSION_* in gnnrt.h. */
#define GNNC_VERSION "0.1.0"
/* Sources larger than this are refused (errno EFBIG), so reading /dev/zero ends. */
#define GNNC_MAX_SOURCE_BYTES ((size_t)64 << 20)
/* The reason read_source_file or read_text_file failed, for errno err: strerror, the size
 * limit, or a NUL byte. */
const char *read_source_error(int err);
/* The runtime's binary files, told by their first bytes, for a text reader that met a NUL byte
 * there: "a training checkpoint (...)" or "a graph cache (...)"; NULL: neither (or unreadable).
 * The runtime says the same (runtime/text.c, rt_binary_kind). */
const char *binary_file_kind(const char *path);

#endif
