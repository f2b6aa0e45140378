/* rt_load.c -- a command-line driver of the runtime's loaders, for tests/suites/runtime.sh.
 *
 *   rt_load [-s] [-r] [-d] [-y] [-n NV] [--null-opts] [--save-cache OUT] [--limit BYTES] GRAPH
 *       loads a graph (any format) and prints its canonical dump (below); --limit sets the
 *       context's memory limit for this run (gnn_set_memory_limit), to fail the loaders midway
 *   rt_load --dataset [-s -r -d -y -n NV] DIR     a dataset: counts, checksums, then the graph's dump
 *   rt_load --features NV FILE | --labels NV FILE | --split NV FILE | --tensors FILE
 *   rt_load --line ROW FILE    gnn_text_line: "line N", the line of data row ROW of FILE
 *   rt_load @CMDFILE   runs each line of CMDFILE as one argument list, in one process (so that
 *                      valgrind sees every error path in one run); prints "== LINE" before each;
 *                      exits 0 unless an invariant broke (load errors are expected there)
 *
 * On failure it prints "error STATUS: message" and the run's exit status is 1. Before the
 * dump it checks the graph's invariants (CSR order, CSC, degrees, host/device copies equal,
 * origins) and prints "invariant: ..." and exits 2 when one breaks; after freeing it checks
 * that the context's live bytes are back to zero. The dump, one array per line:
 *   nv N ne E max_in A max_out B / in_ptr / src / dst / out_ptr / out_eid / in_deg / out_deg / origin
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnnrt.h"

static int fail_invariant(const char *what, long long i) {
  printf("invariant: %s (at %lld)\n", what, i);
  return 2;
}

/* Downloads n elements of size sz from device array d (a host copy in the host build). */
static void *fetch(gnn_ctx *ctx, const void *d, size_t n, size_t sz) {
  void *h = malloc(n * sz + 1);
  if (h && gnn_download(ctx, h, d, n * sz)) {
    free(h);
    return NULL;
  }
  return h;
}

/* Checks what the runtime promises about a graph; 0 when all holds. */
static int check_graph(gnn_ctx *ctx, const gnn_graph *g) {
  int64_t nv = g->nv, ne = g->ne;
  const int64_t *ip = g->h_in_ptr, *op = g->h_out_ptr;
  if (ip[0] != 0 || ip[nv] != ne || op[0] != 0 || op[nv] != ne) return fail_invariant("pointer ends", 0);
  int64_t maxin = 0, maxout = 0;
  for (int64_t v = 0; v < nv; v++) {
    if (ip[v + 1] < ip[v] || op[v + 1] < op[v]) return fail_invariant("pointers decrease", v);
    for (int64_t e = ip[v]; e < ip[v + 1]; e++) {
      if (g->h_dst[e] != v) return fail_invariant("dst disagrees with in_ptr", e);
      if (g->h_src[e] < 0 || g->h_src[e] >= nv) return fail_invariant("src out of range", e);
      if (g->edge_origin[e] == -1 && g->h_src[e] != v) return fail_invariant("origin -1 on a non-loop", e);
    }
    for (int64_t k = op[v]; k < op[v + 1]; k++) {
      int32_t e = g->h_out_eid[k];
      if (e < 0 || e >= ne || g->h_src[e] != v) return fail_invariant("out_eid lists a foreign edge", k);
      if (k > op[v] && e <= g->h_out_eid[k - 1]) return fail_invariant("out_eid not ascending", k);
    }
    if (ip[v + 1] - ip[v] > maxin) maxin = ip[v + 1] - ip[v];
    if (op[v + 1] - op[v] > maxout) maxout = op[v + 1] - op[v];
  }
  if (maxin != g->max_in_deg || maxout != g->max_out_deg) return fail_invariant("max degrees", 0);
  /* The device arrays hold the same values as the host copies. */
  int64_t *d_ip = fetch(ctx, g->in_ptr, (size_t)nv + 1, 8), *d_op = fetch(ctx, g->out_ptr, (size_t)nv + 1, 8);
  int32_t *d_src = fetch(ctx, g->src, (size_t)ne, 4), *d_dst = fetch(ctx, g->dst, (size_t)ne, 4);
  int32_t *d_eid = fetch(ctx, g->out_eid, (size_t)ne, 4);
  float *din = fetch(ctx, g->in_deg, (size_t)nv, 4), *dout = fetch(ctx, g->out_deg, (size_t)nv, 4);
  int bad = !d_ip || !d_op || !d_src || !d_dst || !d_eid || !din || !dout ||
            memcmp(d_ip, ip, 8 * ((size_t)nv + 1)) || memcmp(d_op, op, 8 * ((size_t)nv + 1)) ||
            memcmp(d_src, g->h_src, 4 * (size_t)ne) || memcmp(d_dst, g->h_dst, 4 * (size_t)ne) ||
            memcmp(d_eid, g->h_out_eid, 4 * (size_t)ne);
  for (int64_t v = 0; !bad && v < nv; v++)
    bad = din[v] != (float)(ip[v + 1] - ip[v]) || dout[v] != (float)(op[v + 1] - op[v]);
  if (!gnn_ctx_is_cuda(ctx) && (g->h_in_ptr != g->in_ptr || g->h_src != g->src || g->h_out_eid != g->out_eid))
    bad = 1;
  free(d_ip), free(d_op), free(d_src), free(d_dst), free(d_eid), free(din), free(dout);
  return bad ? fail_invariant("device arrays differ from the host copies or the degrees", 0) : 0;
}

static void dump_graph(gnn_ctx *ctx, const gnn_graph *g) {
  int64_t nv = g->nv, ne = g->ne;
  float *din = fetch(ctx, g->in_deg, (size_t)nv, 4), *dout = fetch(ctx, g->out_deg, (size_t)nv, 4);
  printf("nv %" PRId64 " ne %" PRId64 " max_in %" PRId64 " max_out %" PRId64 "\n", nv, ne, g->max_in_deg, g->max_out_deg);
  printf("in_ptr");
  for (int64_t v = 0; v <= nv; v++) printf(" %" PRId64, g->h_in_ptr[v]);
  printf("\nsrc");
  for (int64_t e = 0; e < ne; e++) printf(" %d", (int)g->h_src[e]);
  printf("\ndst");
  for (int64_t e = 0; e < ne; e++) printf(" %d", (int)g->h_dst[e]);
  printf("\nout_ptr");
  for (int64_t v = 0; v <= nv; v++) printf(" %" PRId64, g->h_out_ptr[v]);
  printf("\nout_eid");
  for (int64_t e = 0; e < ne; e++) printf(" %d", (int)g->h_out_eid[e]);
  printf("\nin_deg");
  for (int64_t v = 0; v < nv; v++) printf(" %g", din ? (double)din[v] : -1.0);
  printf("\nout_deg");
  for (int64_t v = 0; v < nv; v++) printf(" %g", dout ? (double)dout[v] : -1.0);
  printf("\norigin");
  for (int64_t e = 0; e < ne; e++) printf(" %" PRId64, g->edge_origin[e]);
  printf("\n");
  if (g->edge_ncols) { /* only for a source with edge values: the dumps of the others are unchanged */
    printf("values %" PRId64, g->edge_ncols);
    for (int64_t k = 0; k < ne * g->edge_ncols; k++) printf(" %.9g", (double)g->h_edge_values[k]);
    printf("\n");
  }
  /* one graph of every vertex unless the source split them: checked, then printed only when split */
  int bad_batch = g->ng < 1 || g->h_graph_ptr[0] != 0 || g->h_graph_ptr[g->ng] != nv;
  for (int64_t v = 0; v < nv && !bad_batch; v++)
    bad_batch = g->h_vertex_graph[v] < 0 || g->h_vertex_graph[v] >= g->ng || v < g->h_graph_ptr[g->h_vertex_graph[v]] ||
                v >= g->h_graph_ptr[g->h_vertex_graph[v] + 1];
  if (bad_batch) printf("graphs: inconsistent graph_ptr / vertex_graph\n");
  if (g->ng > 1) {
    printf("graphs %" PRId64 " graph_ptr", g->ng);
    for (int64_t i = 0; i <= g->ng; i++) printf(" %" PRId64, g->h_graph_ptr[i]);
    printf(" vertex_graph");
    for (int64_t v = 0; v < nv; v++) printf(" %d", (int)g->h_vertex_graph[v]);
    printf("\n");
  }
  free(din);
  free(dout);
}

static int report(gnn_ctx *ctx, gnn_status st) {
  printf("error %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
  return 1;
}

/* One run: the argument list of one command. */
static int run(gnn_ctx *ctx, int argc, char **argv) {
  gnn_graph_opts o = {0};
  const gnn_graph_opts *opts = &o;
  const char *mode = "graph", *cache = NULL, *path = NULL;
  int64_t nv = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-s")) o.add_self_loops = 1;
    else if (!strcmp(a, "-r")) o.remove_self_loops = 1;
    else if (!strcmp(a, "-d")) o.dedup = 1;
    else if (!strcmp(a, "-y")) o.symmetrise = 1;
    else if (!strcmp(a, "-n") && i + 1 < argc) o.num_vertices = strtoll(argv[++i], NULL, 10);
    else if (!strcmp(a, "--null-opts")) opts = NULL;
    else if (!strcmp(a, "--limit") && i + 1 < argc) gnn_set_memory_limit(ctx, (size_t)strtoull(argv[++i], NULL, 10));
    else if (!strcmp(a, "--save-cache") && i + 1 < argc) cache = argv[++i];
    else if (!strcmp(a, "--dataset") || !strcmp(a, "--tensors")) mode = a + 2;
    else if ((!strcmp(a, "--features") || !strcmp(a, "--labels") || !strcmp(a, "--split") || !strcmp(a, "--line")) && i + 1 < argc) {
      mode = a + 2;
      nv = strtoll(argv[++i], NULL, 10);
    } else path = a;
  }
  if (!path) {
    printf("usage: rt_load [options] PATH\n");
    return 2;
  }
  gnn_status st;
  if (!strcmp(mode, "graph")) {
    gnn_graph *g = NULL;
    if ((st = gnn_graph_load(ctx, path, opts, &g))) return report(ctx, st);
    if (*gnn_last_warning(ctx)) fprintf(stderr, "rt_load: %s\n", gnn_last_warning(ctx));
    int rc = check_graph(ctx, g);
    if (!rc) dump_graph(ctx, g);
    if (!rc && cache && (st = gnn_graph_save_cache(ctx, g, cache))) rc = report(ctx, st);
    gnn_graph_free(ctx, g);
    return rc;
  }
  if (!strcmp(mode, "dataset")) {
    gnn_dataset *ds = NULL;
    if ((st = gnn_dataset_load(ctx, path, opts, &ds))) return report(ctx, st);
    if (*gnn_last_warning(ctx)) fprintf(stderr, "rt_load: %s\n", gnn_last_warning(ctx));
    double fsum = 0, lsum = 0;
    for (int64_t i = 0; ds->features && i < ds->nv * ds->nfeat; i++) fsum += ds->features[i];
    for (int64_t i = 0; ds->labels && i < ds->nv; i++) lsum += ds->labels[i];
    int64_t m[3] = {0, 0, 0};
    uint8_t *masks[3] = {ds->train_mask, ds->val_mask, ds->test_mask};
    for (int k = 0; k < 3; k++)
      for (int64_t i = 0; masks[k] && i < ds->nv; i++) m[k] += masks[k][i];
    printf("nv %" PRId64 " ne %" PRId64 " nfeat %" PRId64 " nclasses %d ntrain %" PRId64 " nval %" PRId64 " ntest %" PRId64
           " missing %u\n", ds->nv, ds->graph->ne, ds->nfeat, ds->nclasses, ds->ntrain, ds->nval, ds->ntest, ds->missing);
    printf("feature_sum %.17g label_sum %.17g mask_counts %" PRId64 " %" PRId64 " %" PRId64 "\n", fsum, lsum, m[0], m[1], m[2]);
    int rc = check_graph(ctx, ds->graph);
    if (!rc) dump_graph(ctx, ds->graph);
    gnn_dataset_free(ctx, ds);
    return rc;
  }
  if (!strcmp(mode, "features")) {
    float *x = NULL;
    int64_t ncols = 0;
    if ((st = gnn_features_load_svm(ctx, path, nv, &x, &ncols))) return report(ctx, st);
    double s = 0;
    for (int64_t i = 0; i < nv * ncols; i++) s += x[i];
    printf("ncols %" PRId64 " sum %.17g\n", ncols, s);
    free(x);
    return 0;
  }
  if (!strcmp(mode, "labels")) {
    int32_t *y = NULL;
    int64_t count = 0;
    int nc = 0;
    if ((st = gnn_labels_load(ctx, path, nv, &y, &count, &nc))) return report(ctx, st);
    printf("count %" PRId64 " nclasses %d\n", count, nc);
    free(y);
    return 0;
  }
  if (!strcmp(mode, "line")) { /* nv: the row */
    int64_t line = 0;
    if ((st = gnn_text_line(ctx, path, nv, &line))) return report(ctx, st);
    printf("line %" PRId64 "\n", line);
    return 0;
  }
  if (!strcmp(mode, "split")) {
    uint8_t *mask = calloc((size_t)(nv > 0 ? nv : 1), 1);
    int64_t count = 0;
    st = gnn_split_load(ctx, path, nv, mask, &count);
    free(mask);
    if (st) return report(ctx, st);
    printf("count %" PRId64 "\n", count);
    return 0;
  }
  gnn_tensor_file *tf = NULL;
  if ((st = gnn_tensor_file_read(ctx, path, &tf))) return report(ctx, st);
  for (int i = 0; i < gnn_tensor_file_count(tf); i++) {
    const char *name;
    int rank;
    int64_t d[4];
    gnn_tensor_file_info(tf, i, &name, &rank, d);
    printf("%s rank %d dims %lld %lld %lld %lld\n", name, rank, (long long)d[0], (long long)d[1], (long long)d[2],
           (long long)d[3]);
  }
  gnn_tensor_file_free(tf);
  return 0;
}

/* Runs one command, then checks that it left no device memory behind. */
static int run_checked(gnn_ctx *ctx, int argc, char **argv) {
  int rc = run(ctx, argc, argv);
  gnn_set_memory_limit(ctx, 0); /* --limit is for one run */
  size_t live = 1;
  gnn_mem_usage(ctx, &live, NULL);
  if (live != 0) {
    printf("invariant: %zu bytes still allocated after the run\n", live);
    return 2;
  }
  return rc;
}

int main(int argc, char **argv) {
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  if (st) {
    printf("error %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 3;
  }
  int rc = 0;
  if (argc == 2 && argv[1][0] == '@') {
    FILE *f = fopen(argv[1] + 1, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
      char *args[32];
      int n = 0;
      line[strcspn(line, "\n")] = 0;
      printf("== %s\n", line);
      for (char *tok = strtok(line, " "); tok && n < 32; tok = strtok(NULL, " ")) args[n++] = tok;
      if (run_checked(ctx, n, args) > 1) rc = 2; /* errors are expected here; broken invariants are not */
    }
    if (f) fclose(f);
    else rc = 2;
  } else {
    rc = run_checked(ctx, argc - 1, argv + 1);
  }
  gnn_ctx_destroy(ctx);
  return rc;
}
