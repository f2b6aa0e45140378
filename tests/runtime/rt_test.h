/* rt_test.h -- the few helpers the runtime's test programs share.
 *
 * A test program prints one line per check, "ok NAME" or "FAIL NAME: detail", and exits 1 if
 * any check failed; tests/suites/runtime.sh turns each line into a pass or a fail. Checks run
 * on and on after a failure, so one run shows every broken thing.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gnnrt.h"

static int rt_failures, rt_checks;

/* Records one check: ok NAME, or FAIL NAME: printf-formatted detail. */
static void check(int ok, const char *name, const char *fmt, ...) GNN_PRINTF(3, 4);
static void check(int ok, const char *name, const char *fmt, ...) {
  rt_checks++;
  if (ok) {
    printf("ok %s\n", name);
    return;
  }
  rt_failures++;
  printf("FAIL %s: ", name);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* Checks that st is want and that the context's message contains every non-NULL needle. */
static void check_status(gnn_ctx *ctx, gnn_status st, gnn_status want, const char *name, const char *needle1,
                         const char *needle2) {
  const char *msg = gnn_last_error(ctx);
  int ok = st == want && (!needle1 || strstr(msg, needle1)) && (!needle2 || strstr(msg, needle2));
  check(ok, name, "got %s '%s', want %s containing '%s' '%s'", gnn_status_name(st), msg, gnn_status_name(want),
        needle1 ? needle1 : "", needle2 ? needle2 : "");
}

static int rt_finish(void) {
  printf("%d checks, %d failed\n", rt_checks, rt_failures);
  return rt_failures ? 1 : 0;
}

#endif
