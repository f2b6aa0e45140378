/* t_nvrtc.c -- the CUDA build without a GPU (and with one): context creation and NVRTC.
 *
 *   t_nvrtc --no-gpu   gnn_ctx_create must fail with GNN_ERR_CUDA and a message, and the failed
 *                      context must refuse everything cleanly
 *   t_nvrtc --gpu      gnn_ctx_create must succeed; a kernel compiled by NVRTC is loaded,
 *                      launched, and its dropout mask compared with gnn_dropout_mask_host
 * Both compile kernels with NVRTC, which needs no GPU: one that includes gnnrt_rng.h, gnnrt.h
 * and stdint.h for compute_80 and compute_90 (the PTX must carry the RNG's constants, proof
 * that the embedded header was used), a syntax error (GNN_ERR_NVRTC with the log), a missing
 * header, and bad architecture names.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

static const char *kernel_src =
    "#include \"gnnrt_rng.h\"\n"
    "#include \"gnnrt.h\"\n"
    "#include <stdint.h>\n"
    "extern \"C\" __global__ void dropout_fill(uint8_t *out, uint64_t n, uint64_t seed) {\n"
    "  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = (uint8_t)gnn_dropout_keep(seed, 3, i, 0.25f);\n"
    "}\n";

static void test_compile(void) {
  const char *archs[] = {"compute_80", "compute_90"}, *targets[] = {".target sm_80", ".target sm_90"};
  for (int a = 0; a < 2; a++) {
    char err[4096] = "x", name[64];
    char *ptx = NULL;
    size_t len = 0;
    gnn_status st = gnn_nvrtc_compile(kernel_src, "fill.cu", archs[a], &ptx, &len, err, sizeof err);
    snprintf(name, sizeof name, "nvrtc/compile-%s", archs[a]);
    check(st == GNN_OK && ptx && len == strlen(ptx) && strstr(ptx, targets[a]) && strstr(ptx, ".entry dropout_fill") &&
              strstr(ptx, "-4658895280553007687"),
          name, "%s: %s", gnn_status_name(st), err);
    free(ptx);
  }
  char err[4096] = "";
  char *ptx = (char *)1;
  gnn_status st = gnn_nvrtc_compile("extern \"C\" __global__ void broken(float *x) { x[0] = ; }\n", "broken.cu",
                                    "compute_80", &ptx, NULL, err, sizeof err);
  check(st == GNN_ERR_NVRTC && ptx == NULL && strstr(err, "broken.cu: NVRTC compilation failed") &&
            strstr(err, "broken.cu(1): error: expected an expression"),
        "nvrtc/syntax-error-log", "%s: '%s'", gnn_status_name(st), err);
  st = gnn_nvrtc_compile("#include \"nope.h\"\n", "inc.cu", "compute_90", &ptx, NULL, err, sizeof err);
  check(st == GNN_ERR_NVRTC && strstr(err, "nope.h"), "nvrtc/missing-header", "%s: '%s'", gnn_status_name(st), err);
  st = gnn_nvrtc_compile("__global__ void k() { int x = ; }", NULL, "compute_80", &ptx, NULL, NULL, 0);
  check(st == GNN_ERR_NVRTC, "nvrtc/no-err-buffer", "%s", gnn_status_name(st));
  const char *bad[] = {"sm_80", "compute_", "compute_8x", NULL};
  for (int i = 0; i < 4; i++) {
    st = gnn_nvrtc_compile(kernel_src, "fill.cu", bad[i], &ptx, NULL, err, sizeof err);
    char name[64];
    snprintf(name, sizeof name, "nvrtc/bad-arch-%s", bad[i] ? bad[i] : "null");
    check(st == GNN_ERR_INVALID && strstr(err, "is not of the form compute_NN"), name, "%s: '%s'", gnn_status_name(st), err);
  }
}

/* No GPU: creation fails cleanly and the failed context refuses everything. */
static void test_no_gpu(void) {
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  const char *msg = gnn_last_error(ctx);
  /* the message says what to do: the model built for the CPU */
  check(st == GNN_ERR_CUDA && ctx && strstr(msg, "no usable CUDA device (cudaGetDeviceCount failed: ") &&
            strstr(msg, "build the model with --target=host to run it on the CPU"),
        "cuda/ctx-create-no-gpu",
        "%s: '%s'", gnn_status_name(st), msg);
  printf("note: %s\n", msg);
  char saved[1024];
  snprintf(saved, sizeof saved, "%s", msg);
  void *p = (void *)1;
  gnn_graph *g = NULL;
  float loss;
  int refused = gnn_malloc(ctx, &p, 16) == GNN_ERR_INVALID && p == NULL && gnn_free(ctx, p) == GNN_ERR_INVALID &&
                gnn_sync(ctx) == GNN_ERR_INVALID && gnn_graph_load(ctx, "data/cora", NULL, &g) == GNN_ERR_INVALID &&
                gnn_softmax_xent(ctx, NULL, NULL, NULL, 1, 1, &loss, NULL) == GNN_ERR_INVALID &&
                gnn_nvrtc_load(ctx, "", 0, NULL, NULL, (gnn_module **)&p) == GNN_ERR_INVALID &&
                gnn_ctx_stream(ctx) == NULL && gnn_ctx_cublas(ctx) == NULL && gnn_ctx_is_cuda(ctx) == 1 &&
                /* what a generated create's argument check calls ("no graph" replaced the message) */
                gnn_set_error(ctx, GNN_ERR_IO, "gcn_create: no graph") == GNN_ERR_INVALID;
  check(refused && !strcmp(gnn_last_error(ctx), saved), "cuda/failed-ctx-refuses", "a call went through, or the message "
        "changed to '%s'", gnn_last_error(ctx));
  gnn_ctx_destroy(ctx);
  st = gnn_ctx_create(&ctx, -1);
  check(st != GNN_OK && ctx != NULL, "cuda/ctx-create-bad-device", "%s", gnn_status_name(st));
  gnn_ctx_destroy(ctx);
}

/* A GPU: compile, load, launch, and compare with the host mask. Never run on the build machine. */
static void test_gpu(void) {
  gnn_ctx *ctx = NULL;
  gnn_status st = gnn_ctx_create(&ctx, 0);
  check(st == GNN_OK && gnn_ctx_stream(ctx) && gnn_ctx_cublas(ctx), "cuda/ctx-create", "%s: %s", gnn_status_name(st),
        gnn_last_error(ctx));
  if (st) {
    gnn_ctx_destroy(ctx);
    return;
  }
  char err[4096] = "", *ptx = NULL;
  st = gnn_nvrtc_compile(kernel_src, "fill.cu", "compute_80", &ptx, NULL, err, sizeof err);
  const char *names[] = {"dropout_fill"};
  void *kernel = NULL;
  gnn_module *mod = NULL;
  if (!st) st = gnn_nvrtc_load(ctx, ptx, 1, names, &kernel, &mod);
  enum { N = 10000 };
  uint8_t *d = NULL, h[N], want[N];
  uint64_t n = N, seed = 77;
  if (!st) st = gnn_malloc(ctx, (void **)&d, N);
  void *args[] = {&d, &n, &seed};
  const unsigned grid[3] = {(N + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  if (!st) st = gnn_kernel_launch(ctx, kernel, grid, block, 0, args);
  if (!st) st = gnn_download(ctx, h, d, N);
  gnn_dropout_mask_host(seed, 3, N, 0.25f, want);
  check(!st && !memcmp(h, want, N), "cuda/nvrtc-kernel-matches-host-mask", "%s: %s", gnn_status_name(st),
        gnn_last_error(ctx));
  const char *missing[] = {"no_such_kernel"};
  gnn_module *mod2 = NULL;
  check_status(ctx, ptx ? gnn_nvrtc_load(ctx, ptx, 1, missing, &kernel, &mod2) : GNN_ERR_NVRTC, GNN_ERR_CUDA,
               "cuda/nvrtc-missing-kernel", "no_such_kernel", NULL);
  gnn_free(ctx, d);
  gnn_nvrtc_unload(ctx, mod);
  free(ptx);
  gnn_ctx_destroy(ctx);
}

int main(int argc, char **argv) {
  int gpu = argc > 1 && !strcmp(argv[1], "--gpu");
  test_compile();
  if (gpu) test_gpu();
  else test_no_gpu();
  return rt_finish();
}
