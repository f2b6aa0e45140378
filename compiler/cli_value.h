/* cli_value.h -- the value of a command-line option, for gnnc's two parsers (main.c, gradcheck.c).
 *
 * "--flag=V" gives V. "--flag V" gives the next word, unless that word looks like an option
 * ("-o", "--target=host", "-O0"): then it is not taken. A user who wrote "--tune-mapping
 * --target=host" meant a value-less flag, and taking the next option as the value turned
 * "--target=host" into a graph path and left the target at cuda (a reviewer's MED). A value that
 * really begins with '-' is still given with '='; negative numbers ("-1", "-.5") are values.
 * When FLAG matched but no value was taken, *missing is set to FLAG (the caller says so). */
#ifndef GNNC_CLI_VALUE_H
#define GNNC_CLI_VALUE_H

#include <stdbool.h>
#include <string.h>

static inline bool cli_looks_like_option(const char *w) {
  return w[0] == '-' && w[1] && !(w[1] >= '0' && w[1] <= '9') && w[1] != '.';
}

static inline const char *cli_option_value(const char *a, const char *flag, int argc, char **argv, int *i,
                                           const char **missing) {
  size_t n = strlen(flag);
  if (strncmp(a, flag, n) == 0 && a[n] == '=') return a + n + 1;
  if (strcmp(a, flag) != 0) return NULL;
  if (*i + 1 < argc && !cli_looks_like_option(argv[*i + 1])) return argv[++*i];
  *missing = flag;
  return NULL;
}

#endif
