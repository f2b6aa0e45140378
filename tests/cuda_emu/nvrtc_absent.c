/* nvrtc_absent.c -- libgnnrt_emu's NVRTC entry points (runtime/nvrtc.c's, which the emulated
 * build leaves out: NVRTC and the driver API compile and load PTX for a GPU, and nothing here
 * could run it). They refuse as libgnnrt_host's do (device_host.c), naming the emulator, so a
 * program that calls them links and gets a status instead of a crash. */
#include <stdio.h>

#include "internal.h"

gnn_status gnn_nvrtc_compile(const char *source, const char *name, const char *arch, char **ptx_out, size_t *len,
                             char *err, size_t errlen) {
  (void)source, (void)arch;
  if (ptx_out) *ptx_out = NULL;
  if (len) *len = 0;
  if (err && errlen) snprintf(err, errlen, "%s: NVRTC is not available in the CPU emulation (tests/cuda_emu)", name ? name : "(null)");
  return GNN_ERR_UNSUPPORTED;
}

gnn_status gnn_nvrtc_load(gnn_ctx *ctx, const char *ptx, int nkernels, const char *const names[], void *kernels[],
                          gnn_module **out) {
  (void)ptx, (void)nkernels, (void)names, (void)kernels;
  if (out) *out = NULL;
  return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "gnn_nvrtc_load: no CUDA driver in the CPU emulation (tests/cuda_emu)");
}

gnn_status gnn_kernel_launch(gnn_ctx *ctx, void *kernel, const unsigned grid[3], const unsigned block[3],
                             unsigned shared_bytes, void **args) {
  (void)kernel, (void)grid, (void)block, (void)shared_bytes, (void)args;
  return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "gnn_kernel_launch: no CUDA driver in the CPU emulation (tests/cuda_emu)");
}

void gnn_nvrtc_unload(gnn_ctx *ctx, gnn_module *mod) { (void)ctx, (void)mod; }
