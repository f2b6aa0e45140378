/* gnnrt_text.h -- the line rules of the text formats (edge lists, feature and label files), in
 * one place for the runtime's loaders (text.c, edgelist.c) and the interpreter's own loader
 * (compiler/graph.c, which does not link the runtime): the same file is accepted or refused, with
 * the same words, by `gnnc run` and by a compiled model. */
#ifndef GNNRT_TEXT_H
#define GNNRT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What is wrong with line `s` (n bytes, its newline included), or NULL. A line ends with LF or
 * CRLF: a carriage return anywhere else (a file with classic Mac line ends reads as one long
 * line) would silently end the line early, so it is refused, comment lines included (a first
 * comment line would swallow the whole file). Fields are separated by spaces and tabs: a vertical
 * tab or form feed in a data line is refused rather than guessed at (comments may hold them). A
 * CR right before the end of the file (no LF after it) is the line's end. NUL bytes are the
 * caller's to find (s is NUL-terminated after its n bytes). */
static inline const char *gnn_bad_line_byte(const char *s, size_t n, int comment) {
  for (const char *c = (const char *)memchr(s, '\r', n); c; c = (const char *)memchr(c + 1, '\r', n - (size_t)(c + 1 - s)))
    if (c[1] != '\n' && c[1] != 0)
      return "a carriage return inside the line (a file with classic Mac line ends? lines end with LF or CRLF)";
  if (comment) return NULL;
  if (memchr(s, '\v', n)) return "a vertical tab in the line (fields are separated by spaces or tabs)";
  if (memchr(s, '\f', n)) return "a form feed in the line (fields are separated by spaces or tabs)";
  return NULL;
}

/* The bytes to skip at the start of line `lineno` (1-based): a UTF-8 byte-order mark (EF BB BF) at
 * the start of the file, which editors and spreadsheet exports on Windows write, is not part of
 * the first field (read as one it made "source vertex id '0' is not an integer", the mark
 * invisible in the message); elsewhere nothing. */
static inline size_t gnn_bom_bytes(const char *line, long lineno) {
  return lineno == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* The fields left on a line: runs of bytes between blanks (spaces, tabs), up to the line's end
 * (LF, CR or NUL). Each turn consumes at least one byte, whatever the line holds. */
static inline int64_t gnn_count_fields(const char *p) {
  int64_t n = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\n' || *p == '\r' || *p == 0) return n;
    n++;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
  }
}

#endif
