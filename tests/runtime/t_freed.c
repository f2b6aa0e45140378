/* t_freed.c -- use after free, detected where the freed memory still says so (docs/runtime.md,
 * "Freed graphs and models": best effort, not a guarantee).
 *
 *   t_freed graph | model | graphfirst | graphcheck
 *
 * Each case frees something, then uses it: a graph freed twice, a model destroyed twice, a
 * forward (and a set_graph, a backward) on a model whose graph was freed, and the runtime's own
 * entry points (gnn_spmm, gnn_graph_check) on a freed graph. Prints "ok"/"FAIL" lines; exits 0
 * when every check holds. Compiled with generated/gcn.c and run outside valgrind and the
 * sanitizers by tests/suites/reliability.sh: the checks read freed memory on purpose, so glibc's
 * allocator (which keeps the word they read) is part of what it tests. */
#include <stdio.h>
#include <string.h>

#include "gcn.h"

static int bad = 0;
static void expect(int ok, const char *what, const char *detail) {
  printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail && !ok ? ": " : "", detail && !ok ? detail : "");
  if (!ok) bad = 1;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: t_freed graph|model|graphfirst|graphcheck\n"), 2;
  const char *c = argv[1];
  gnn_ctx *ctx = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) return printf("no context: %s\n", gnn_last_error(ctx)), 77;
  int64_t s[2] = {0, 1}, d[2] = {1, 0};
  gnn_graph *g = NULL;
  if (gnn_graph_from_edges(ctx, 2, 2, s, d, NULL, &g) != GNN_OK) return printf("FAIL graph: %s\n", gnn_last_error(ctx)), 1;
  if (!strcmp(c, "graph")) {
    gnn_graph_free(ctx, g);
    gnn_clear_error(ctx);
    gnn_graph_free(ctx, g); /* aborted in free() before */
    expect(strstr(gnn_last_error(ctx), "gnn_graph_free: g is not a live graph") != NULL, "graph/double-free", gnn_last_error(ctx));
  } else if (!strcmp(c, "graphcheck")) {
    expect(gnn_graph_check(ctx, g, "t") == GNN_OK, "graph/check-live", gnn_last_error(ctx));
    float *x = NULL, *y = NULL;
    gnn_malloc(ctx, (void **)&x, 8), gnn_malloc(ctx, (void **)&y, 8);
    gnn_graph_free(ctx, g);
    gnn_status st = gnn_graph_check(ctx, g, "t");
    expect(st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), "t: g is not a live graph"), "graph/check-freed", gnn_last_error(ctx));
    st = gnn_spmm(ctx, g, GNN_SPMM_IN_EDGES, x, NULL, y, 1);
    expect(st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), "gnn_spmm: g is not a live graph"), "graph/spmm-freed", gnn_last_error(ctx));
    gnn_free(ctx, x), gnn_free(ctx, y);
  } else if (!strcmp(c, "model")) {
    gcn_model *m = NULL;
    gnn_status st = gcn_create(ctx, g, 1, &m);
    expect(st == GNN_OK, "model/create", gnn_last_error(ctx));
    gcn_destroy(m);
    gcn_destroy(m); /* a SIGSEGV before */
    st = gcn_forward(m, NULL, 0, 1);
    expect(st == GNN_ERR_INVALID, "model/forward-after-destroy", gnn_status_name(st));
    expect(1, "model/double-destroy", NULL);
    gnn_graph_free(ctx, g);
  } else if (!strcmp(c, "graphfirst")) {
    gcn_model *m = NULL;
    gnn_status st = gcn_create(ctx, g, 1, &m);
    expect(st == GNN_OK, "graphfirst/create", gnn_last_error(ctx));
    gnn_graph_free(ctx, g);
    float *x = NULL;
    gnn_malloc(ctx, (void **)&x, 2 * 1433 * 4);
    gnn_memset0(ctx, x, 2 * 1433 * 4);
    st = gcn_forward(m, x, 0, 1); /* read the freed graph before */
    expect(st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), "gcn_forward: g is not a live graph"), "graphfirst/forward",
           gnn_last_error(ctx));
    st = gcn_backward(m, x);
    expect(st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), "gcn_backward: g is not a live graph"), "graphfirst/backward",
           gnn_last_error(ctx));
    st = gcn_set_graph(m, g);
    expect(st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), "gcn_set_graph: g is not a live graph"), "graphfirst/set-graph",
           gnn_last_error(ctx));
    gcn_destroy(m);
    gnn_free(ctx, x);
  } else
    return fprintf(stderr, "t_freed: unknown case '%s'\n", c), 2;
  gnn_ctx_destroy(ctx);
  return bad;
}
