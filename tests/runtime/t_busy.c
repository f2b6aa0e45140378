/* t_busy.c -- one model used from two threads at once is refused, not run.
 *
 *   t_busy    generated/gcn.c (compiled in), host runtime
 *
 * A generated model keeps its arena, its stash and its scratch in its struct, so two calls on one
 * model at once corrupt each other. Each call that changes the model (and destroy) claims a word
 * in it for its duration and refuses to start while another holds it (emit_model.c's
 * emit_guarded). The test makes the overlap certain rather than likely: a second thread calls
 * gcn_load_params on a named pipe, and the call blocks inside, reading, until this thread writes
 * the file into the pipe. This thread knows the load is inside once it can open the pipe for
 * writing without blocking (the reader has it open). While the load is held there, every
 * guarded entry point (forward, backward, set_graph, reserve, request_input_grad, load_params,
 * save_params, destroy) must return GNN_ERR_INVALID, "gcn_X: model used from two threads at
 * once", and change nothing: the output of the forward before is still there and the same, the
 * backward of that forward still runs (no set_graph or forward came between), the memory plan is
 * the same, no file was saved, the model was not freed. After the load returns, every call works
 * again and the backward's gradients equal, bit for bit, those of a second model that ran the
 * same forward and backward alone; a call that fails early (a NULL input, a missing file)
 * releases the model too. Without the guard (gnnc before it) the refused calls all run, and the
 * test fails on each, deterministically.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcn.h"
#include "rt_test.h"

enum { NV = 40, NE = 160, WIDTH = 1433, CLASSES = 7 };

static gnn_graph *rand_graph(gnn_ctx *ctx, int64_t nv, int64_t ne, uint64_t seed) {
  int64_t src[NE], dst[NE];
  uint64_t s = seed * 2654435761u + 1;
  for (int64_t e = 0; e < ne; e++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    src[e] = (int64_t)(s % (uint64_t)nv);
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    dst[e] = (int64_t)(s % (uint64_t)nv);
  }
  gnn_graph_opts opts = {0};
  gnn_graph *g = NULL;
  if (gnn_graph_from_edges(ctx, nv, ne, src, dst, &opts, &g)) {
    printf("FAIL graph: %s\n", gnn_last_error(ctx));
    exit(1);
  }
  return g;
}

/* Device (or host) memory holding n floats from host. */
static float *upload(gnn_ctx *ctx, const float *host, size_t n) {
  float *d = NULL;
  if (gnn_malloc(ctx, (void **)&d, n * sizeof *d) || gnn_upload(ctx, d, host, n * sizeof *d)) {
    printf("FAIL upload: %s\n", gnn_last_error(ctx));
    exit(1);
  }
  return d;
}

static void download(gnn_ctx *ctx, float *host, const float *d, size_t n) {
  if (gnn_download(ctx, host, d, n * sizeof *host)) {
    printf("FAIL download: %s\n", gnn_last_error(ctx));
    exit(1);
  }
}

typedef struct {
  gcn_model *m;
  const char *path;
  gnn_status st;
} Load;

static void *load_thread(void *arg) {
  Load *l = (Load *)arg;
  l->st = gcn_load_params(l->m, l->path);
  return NULL;
}

/* The refusal of one call: GNN_ERR_INVALID and the message naming it. */
static int refused(gnn_ctx *ctx, gnn_status st, const char *fn, const char *name) {
  char want[128];
  snprintf(want, sizeof want, "%s: model used from two threads at once", fn);
  check_status(ctx, st, GNN_ERR_INVALID, name, want, NULL);
  return st == GNN_ERR_INVALID && strstr(gnn_last_error(ctx), want);
}

int main(void) {
  gnn_ctx *ctx = NULL;
  if (gnn_ctx_create(&ctx, 0)) {
    printf("no context: %s\n", gnn_last_error(ctx));
    gnn_ctx_destroy(ctx);
    return 77;
  }
  gnn_graph *g = rand_graph(ctx, NV, NE, 1), *g2 = rand_graph(ctx, NV / 2, NE / 2, 2);
  static float x[NV * WIDTH], dout[NV * CLASSES];
  for (int i = 0; i < NV * WIDTH; i++) x[i] = (float)((i * 7919) % 13) / 13.0f - 0.5f;
  for (int i = 0; i < NV * CLASSES; i++) dout[i] = (float)((i * 31) % 11) / 11.0f - 0.5f;
  float *dx = upload(ctx, x, NV * WIDTH), *ddout = upload(ctx, dout, NV * CLASSES);

  char dir[] = "/tmp/gnnc-busy-XXXXXX";
  if (!mkdtemp(dir)) {
    printf("FAIL mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  char params[256], fifo[256], saved[256];
  snprintf(params, sizeof params, "%s/params.txt", dir);
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  snprintf(saved, sizeof saved, "%s/saved.txt", dir);

  /* m runs a training forward, m2 the same forward alone (the reference for the backward) */
  gcn_model *m = NULL, *m2 = NULL;
  if (gcn_create(ctx, g, 7, &m) || gcn_create(ctx, g, 7, &m2)) {
    printf("FAIL create: %s\n", gnn_last_error(ctx));
    return 1;
  }
  check_status(ctx, gcn_save_params(m, params), GNN_OK, "busy/save-params", NULL, NULL);
  check_status(ctx, gcn_forward(m, dx, 1, 11), GNN_OK, "busy/forward-before", NULL, NULL);
  check_status(ctx, gcn_forward(m2, dx, 1, 11), GNN_OK, "busy/forward-reference", NULL, NULL);
  static float out0[NV * CLASSES], out1[NV * CLASSES];
  download(ctx, out0, gcn_output(m), NV * CLASSES);
  gnn_memory_plan plan0, plan1;
  gcn_memory_plan(m, &plan0);

  /* the load, held inside gcn_load_params by the pipe */
  if (mkfifo(fifo, 0600)) {
    printf("FAIL mkfifo: %s\n", strerror(errno));
    return 1;
  }
  Load load = {m, fifo, GNN_ERR_INVALID};
  pthread_t t;
  if (pthread_create(&t, NULL, load_thread, &load)) {
    printf("FAIL pthread_create\n");
    return 1;
  }
  int wfd = -1;
  for (int tries = 0; wfd < 0; tries++) { /* ENXIO until the load has the pipe open for reading */
    wfd = open(fifo, O_WRONLY | O_NONBLOCK);
    if (wfd >= 0) break;
    if (errno != ENXIO || tries > 120000) { /* two minutes */
      printf("FAIL busy/pipe: the load never opened the pipe (%s)\n", strerror(errno));
      return 1;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }

  /* every guarded call, while the load holds the model */
  const int fwd_refused = refused(ctx, gcn_forward(m, dx, 1, 12), "gcn_forward", "busy/forward");
  const float *o = gcn_output(m);
  check(o != NULL, "busy/forward-kept-output", "the output of the forward before is gone");
  if (o) {
    download(ctx, out1, o, NV * CLASSES);
    check(memcmp(out0, out1, sizeof out0) == 0, "busy/forward-same-output", "the refused forward changed the output");
  }
  refused(ctx, gcn_backward(m, ddout), "gcn_backward", "busy/backward");
  refused(ctx, gcn_set_graph(m, g2), "gcn_set_graph", "busy/set-graph");
  refused(ctx, gcn_reserve(m, 4 * NV, 4 * NE, 1, 1), "gcn_reserve", "busy/reserve");
  gcn_memory_plan(m, &plan1);
  check(memcmp(&plan0, &plan1, sizeof plan0) == 0, "busy/reserve-same-plan", "the refused reserve changed the memory plan");
  refused(ctx, gcn_request_input_grad(m, 0, 1), "gcn_request_input_grad", "busy/request-input-grad");
  refused(ctx, gcn_load_params(m, params), "gcn_load_params", "busy/load-params");
  refused(ctx, gcn_save_params(m, saved), "gcn_save_params", "busy/save-params-refused");
  check(access(saved, F_OK) != 0, "busy/save-params-no-file", "%s was written", saved);
  /* destroy says nothing but gnn_last_error; tried only where the forward was refused (without
   * the guard it would free the model under the held load) */
  if (fwd_refused) {
    gnn_clear_error(ctx);
    gcn_destroy(m);
    refused(ctx, GNN_ERR_INVALID, "gcn_destroy", "busy/destroy");
  } else {
    check(0, "busy/destroy", "not tried: the forward ran on the busy model");
  }

  /* the file into the pipe: the load reads it and returns */
  FILE *pf = fopen(params, "rb");
  char buf[1 << 16];
  size_t n;
  while (pf && (n = fread(buf, 1, sizeof buf, pf)) > 0) {
    int flags = fcntl(wfd, F_GETFL);
    fcntl(wfd, F_SETFL, flags & ~O_NONBLOCK);
    if (write(wfd, buf, n) != (ssize_t)n) {
      printf("FAIL busy/pipe-write: %s\n", strerror(errno));
      return 1;
    }
  }
  if (pf) fclose(pf);
  close(wfd);
  pthread_join(t, NULL);
  check_status(ctx, load.st, GNN_OK, "busy/load-through-pipe", NULL, NULL);

  /* free again: the backward of the forward before, as the reference's */
  check_status(ctx, gcn_backward(m, ddout), GNN_OK, "busy/backward-after", NULL, NULL);
  check_status(ctx, gcn_backward(m2, ddout), GNN_OK, "busy/backward-reference", NULL, NULL);
  int same = 1;
  for (int i = 0; i < GCN_NUM_PARAMS; i++) {
    const int64_t w = gcn_api()->params[i].width;
    float *a = malloc((size_t)w * sizeof *a), *b = malloc((size_t)w * sizeof *b);
    download(ctx, a, gcn_grad(m, i), (size_t)w);
    download(ctx, b, gcn_grad(m2, i), (size_t)w);
    same &= memcmp(a, b, (size_t)w * sizeof *a) == 0;
    free(a);
    free(b);
  }
  check(same, "busy/gradients-after", "the gradients differ from the reference model's");
  /* a call that fails early releases the model */
  check_status(ctx, gcn_forward(m, NULL, 1, 12), GNN_ERR_INVALID, "busy/early-return", "input 'x' is NULL", NULL);
  check_status(ctx, gcn_load_params(m, saved), GNN_ERR_IO, "busy/early-return-load", "cannot open", NULL);
  check_status(ctx, gcn_set_graph(m, g2), GNN_OK, "busy/released-set-graph", NULL, NULL);
  check_status(ctx, gcn_forward(m, dx, 0, 12), GNN_OK, "busy/released-forward", NULL, NULL);
  check_status(ctx, gcn_save_params(m, saved), GNN_OK, "busy/released-save", NULL, NULL);

  gcn_destroy(m);
  gcn_destroy(m2);
  gnn_free(ctx, dx);
  gnn_free(ctx, ddout);
  gnn_graph_free(ctx, g);
  gnn_graph_free(ctx, g2);
  gnn_ctx_destroy(ctx);
  unlink(params);
  unlink(saved);
  unlink(fifo);
  rmdir(dir);
  return rt_finish();
}
