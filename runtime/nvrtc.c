/* nvrtc.c -- kernels compiled at run time: NVRTC to PTX, the driver API to load and launch.
 *
 * Compilation needs no GPU. The headers a generated kernel may include are compiled into the
 * library (build/gen/gnnrt_headers.c is made from runtime/gnnrt_rng.h and runtime/gnnrt.h by
 * runtime/embed.sh) and handed to nvrtcCreateProgram by name, so `#include "gnnrt_rng.h"`
 * resolves to the very text this library was built with, wherever it is installed, and no
 * include path has to be found at run time. NVRTC has no C library headers; a minimal
 * stdint.h (the LP64 types, as glibc defines them) is provided the same way.
 *
 * Loading uses the driver API (cuModuleLoadDataEx, cuModuleGetFunction, cuLaunchKernel). The
 * library does not link libcuda: its entry points are fetched through cudart
 * (cudaGetDriverEntryPointByVersion), so libgnnrt.so loads, and NVRTC works, on machines with
 * the toolkit but no driver -- such as the build machine.
 */
#include "internal.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

extern const char rt_hdr_gnnrt_rng_h[];
extern const char rt_hdr_gnnrt_h[];

static const char stdint_shim[] =
    "#ifndef GNNRT_NVRTC_STDINT_H\n"
    "#define GNNRT_NVRTC_STDINT_H\n"
    "/* the LP64 fixed-width types (glibc's), for NVRTC, which has no C library */\n"
    "typedef signed char int8_t;\n"
    "typedef short int16_t;\n"
    "typedef int int32_t;\n"
    "typedef long int64_t;\n"
    "typedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef unsigned long uint64_t;\n"
    "typedef long intptr_t;\n"
    "typedef unsigned long uintptr_t;\n"
    "#define INT32_MAX 2147483647\n"
    "#define INT64_MAX 9223372036854775807L\n"
    "#define UINT32_MAX 4294967295u\n"
    "#endif\n";

/* Formats into err, when there is one; returns status. */
static gnn_status err_printf(char *err, size_t errlen, gnn_status status, const char *fmt, ...) GNN_PRINTF(4, 5);
static gnn_status err_printf(char *err, size_t errlen, gnn_status status, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

#define NVRTC_CHECK(call)                                                                                       \
  do {                                                                                                          \
    nvrtcResult r_ = (call);                                                                                    \
    if (r_ != NVRTC_SUCCESS) {                                                                                  \
      st = err_printf(err, errlen, r_ == NVRTC_ERROR_OUT_OF_MEMORY ? GNN_ERR_OOM : GNN_ERR_NVRTC,               \
                      "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, nvrtcGetErrorString(r_));              \
      goto done;                                                                                                \
    }                                                                                                           \
  } while (0)

/* "compute_80", "compute_90a", "compute_100f": compute_ then digits, then at most an a or f. */
static int good_arch(const char *arch) {
  if (!arch || strncmp(arch, "compute_", 8) != 0) return 0;
  const char *p = arch + 8;
  if (*p < '0' || *p > '9') return 0;
  while (*p >= '0' && *p <= '9') p++;
  if (*p == 'a' || *p == 'f') p++;
  return *p == 0 && p - arch < 24;
}

/* NVRTC with the embedded headers; the log goes into err on failure. */
gnn_status gnn_nvrtc_compile(const char *source, const char *name, const char *arch, char **ptx_out, size_t *len,
                             char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  if (!source || !ptx_out) return err_printf(err, errlen, GNN_ERR_INVALID, "gnn_nvrtc_compile: no source or no ptx_out");
  *ptx_out = NULL;
  if (len) *len = 0;
  if (!name) name = "kernel.cu";
  if (!good_arch(arch))
    return err_printf(err, errlen, GNN_ERR_INVALID, "%s: arch '%s' is not of the form compute_NN (PTX targets a "
                      "virtual architecture)", name, arch ? arch : "(null)");
  const char *headers[] = {rt_hdr_gnnrt_rng_h, rt_hdr_gnnrt_h, stdint_shim};
  const char *names[] = {"gnnrt_rng.h", "gnnrt.h", "stdint.h"};
  char archopt[48];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
  const char *opts[] = {archopt, "-default-device", "-std=c++17"};
  nvrtcProgram prog = NULL;
  gnn_status st = GNN_OK;
  char *log = NULL, *ptx = NULL;
  NVRTC_CHECK(nvrtcCreateProgram(&prog, source, name, 3, headers, names));
  nvrtcResult r = nvrtcCompileProgram(prog, 3, opts);
  if (r == NVRTC_ERROR_COMPILATION) {
    size_t n = 0;
    NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &n));
    if (!(log = (char *)malloc(n + 1))) {
      st = err_printf(err, errlen, GNN_ERR_OOM, "%s: out of host memory for the NVRTC log", name);
      goto done;
    }
    log[0] = 0;
    NVRTC_CHECK(nvrtcGetProgramLog(prog, log));
    log[n] = 0;
    st = err_printf(err, errlen, GNN_ERR_NVRTC, "%s: NVRTC compilation failed:\n%s", name, log);
    goto done;
  }
  if (r != NVRTC_SUCCESS) {
    st = err_printf(err, errlen, r == NVRTC_ERROR_INVALID_OPTION ? GNN_ERR_INVALID : GNN_ERR_NVRTC,
                    "%s: nvrtcCompileProgram failed: %s (options %s %s %s)", name, nvrtcGetErrorString(r), opts[0],
                    opts[1], opts[2]);
    goto done;
  }
  size_t n = 0;
  NVRTC_CHECK(nvrtcGetPTXSize(prog, &n));
  if (!(ptx = (char *)malloc(n + 1))) {
    st = err_printf(err, errlen, GNN_ERR_OOM, "%s: out of host memory for %zu bytes of PTX", name, n);
    goto done;
  }
  NVRTC_CHECK(nvrtcGetPTX(prog, ptx));
  ptx[n] = 0;
  *ptx_out = ptx;
  ptx = NULL;
  if (len) *len = strlen(*ptx_out);
done:
  if (prog) nvrtcDestroyProgram(&prog);
  free(log);
  free(ptx);
  return st;
}

/* ---------------------------------------------------------------- the driver API, through cudart */

typedef struct {
  PFN_cuModuleLoadDataEx_v2010 load;
  PFN_cuModuleGetFunction_v2000 get_function;
  PFN_cuModuleUnload_v2000 unload;
  PFN_cuLaunchKernel_v4000 launch;
  PFN_cuGetErrorName_v6000 error_name;
} Driver;

/* Looks up one driver entry point (CUDA 12.0 ABI). */
static gnn_status entry(gnn_ctx *ctx, const char *sym, void **fn) {
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  CUDA_CHECK(ctx, cudaGetDriverEntryPointByVersion(sym, fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !*fn)
    return gnn_set_error(ctx, GNN_ERR_CUDA, "the CUDA driver has no entry point %s (query result %d)", sym, (int)q);
  return GNN_OK;
}

static gnn_status driver(gnn_ctx *ctx, Driver *d) {
  gnn_status st;
  if ((st = entry(ctx, "cuModuleLoadDataEx", (void **)&d->load)) ||
      (st = entry(ctx, "cuModuleGetFunction", (void **)&d->get_function)) ||
      (st = entry(ctx, "cuModuleUnload", (void **)&d->unload)) || (st = entry(ctx, "cuLaunchKernel", (void **)&d->launch)) ||
      (st = entry(ctx, "cuGetErrorName", (void **)&d->error_name)))
    return st;
  return GNN_OK;
}

static const char *cu_name(const Driver *d, CUresult r) {
  const char *s = NULL;
  if (d->error_name(r, &s) != CUDA_SUCCESS || !s) s = "CUDA_ERROR_?";
  return s;
}

struct gnn_module {
  CUmodule mod;
};

/* Loads PTX (JIT) and looks the kernels up by name. */
gnn_status gnn_nvrtc_load(gnn_ctx *ctx, const char *ptx, int nkernels, const char *const names[], void *kernels[],
                          gnn_module **out) {
  if (out) *out = NULL;
  if (rt_args(ctx, out != NULL, "gnn_nvrtc_load", "out is NULL")) return GNN_ERR_INVALID;
  if (!ptx || nkernels < 0 || (nkernels > 0 && (!names || !kernels)))
    return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_nvrtc_load: bad arguments");
  Driver d;
  gnn_status st = rt_cuda_enter(ctx);
  if (st || (st = driver(ctx, &d))) return st;
  char log[4096] = "";
  CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *ov[] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule mod = NULL;
  CUresult r = d.load(&mod, ptx, 2, o, ov);
  if (r != CUDA_SUCCESS)
    return gnn_set_error(ctx, GNN_ERR_CUDA, "%s:%d: cuModuleLoadDataEx failed: %s: %s", __FILE__, __LINE__, cu_name(&d, r),
                         log[0] ? log : "(no JIT log)");
  for (int i = 0; i < nkernels; i++) {
    CUfunction f = NULL;
    r = names[i] ? d.get_function(&f, mod, names[i]) : CUDA_ERROR_INVALID_VALUE;
    if (r != CUDA_SUCCESS) {
      d.unload(mod);
      return gnn_set_error(ctx, GNN_ERR_CUDA, "%s:%d: cuModuleGetFunction('%s') failed: %s (is it extern \"C\"?)", __FILE__,
                           __LINE__, names[i] ? names[i] : "(null)", cu_name(&d, r));
    }
    kernels[i] = (void *)f;
  }
  gnn_module *m = (gnn_module *)rt_malloc(ctx, sizeof *m, "a module");
  if (!m) {
    d.unload(mod);
    return GNN_ERR_OOM;
  }
  m->mod = mod;
  *out = m;
  return GNN_OK;
}

gnn_status gnn_kernel_launch(gnn_ctx *ctx, void *kernel, const unsigned grid[3], const unsigned block[3],
                             unsigned shared_bytes, void **args) {
  if (rt_check_ctx(ctx)) return GNN_ERR_INVALID;
  if (!kernel || !grid || !block) return gnn_set_error(ctx, GNN_ERR_INVALID, "gnn_kernel_launch: bad arguments");
  Driver d;
  gnn_status st = rt_cuda_enter(ctx);
  if (st || (st = driver(ctx, &d))) return st;
  CUresult r = d.launch((CUfunction)kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes,
                        (CUstream)ctx->stream, args, NULL);
  if (r != CUDA_SUCCESS)
    return gnn_set_error(ctx, GNN_ERR_CUDA, "%s:%d: cuLaunchKernel failed: %s", __FILE__, __LINE__, cu_name(&d, r));
  return GNN_OK;
}

void gnn_nvrtc_unload(gnn_ctx *ctx, gnn_module *m) {
  if (!m) return;
  Driver d;
  /* kernels of the module may still be queued on the stream: let them finish first */
  if (ctx && ctx->failed == GNN_OK && !rt_cuda_enter(ctx) && !driver(ctx, &d)) {
    (void)cudaStreamSynchronize(ctx->stream);
    d.unload(m->mod);
  }
  free(m);
}
