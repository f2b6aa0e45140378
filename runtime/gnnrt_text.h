/* gnnrt_text.h -- the line rules of the text formats (edge lists, feature and label files), and
 * the message for a folder whose labels and features disagree in length, in one place for the
 * runtime's loaders (text.c, edgelist.c, dataset.c) and the interpreter's own loader
 * (compiler/graph.c, which does not link the runtime): the same file is accepted or refused, with
 * the same words, by `gnnc run` and by a compiled model. */
#ifndef GNNRT_TEXT_H
#define GNNRT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* The blank-separated word at p, cut to fit tok (n bytes), for a message that quotes what the file
 * says ("feature value 'nan' for index 1 is not finite in float32"). */
static inline const char *gnn_word_text(const char *p, char *tok, size_t n) {
  size_t len = strcspn(p, " \t\r\n");
  snprintf(tok, n, "%.*s", (int)(len < n - 1 ? len : n - 1), p);
  return tok;
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

/* The error of a dataset folder whose labels.txt (nlabels labels) and features.svm (rows rows)
 * differ in length, both having a row per vertex, written into buf (len bytes) and returned: the
 * shorter file is named first (a file cut short is the likelier accident), by its path (labels
 * or features), with both counts and the line of the longer one where it runs past the shorter
 * (line 0: not known, left out). One rule and one wording for the runtime's folder loaders
 * (runtime/dataset.c: gnn-train, gnn-run, Python's load_dataset and load_graph) and the
 * interpreter's (compiler/graph.c: gnnc run): a short labels.txt is blamed on labels.txt, not on
 * the edge to the vertex it lacks, nor on the features' extra row. */
static inline const char *gnn_rows_disagree(char *buf, size_t len, const char *labels, const char *features, int64_t nlabels,
                                            int64_t rows, int64_t line) {
  int labels_short = nlabels < rows;
  long long k = labels_short ? rows - nlabels : nlabels - rows;
  const char *s = k == 1 ? "" : "s";
  char from[48] = "";
  if (line > 0) snprintf(from, sizeof from, " (from its line %lld)", (long long)line);
  if (labels_short)
    snprintf(buf, len, "%s: error: %lld label%s, but features.svm has %lld rows (both have one per vertex): labels.txt is %lld "
             "line%s short, or features.svm has %lld row%s too many%s", labels, (long long)nlabels, nlabels == 1 ? "" : "s",
             (long long)rows, k, s, k, s, from);
  else
    snprintf(buf, len, "%s: error: %lld feature row%s, but labels.txt has %lld labels (both have one per vertex): features.svm "
             "is %lld row%s short, or labels.txt has %lld label%s too many%s", features, (long long)rows, rows == 1 ? "" : "s",
             (long long)nlabels, k, s, k, s, from);
  return buf;
}

#endif
