/* cuda_emu.h -- the CUDA device language on a CPU, for tests without a GPU (docs/gpu.md, "CUDA on
 * the CPU").
 *
 * One header for every CPU run of gnnc's CUDA kernels, so the runs cannot drift apart:
 *   - tests/codegen/grid_wide_check.py: the grid-wide kernels, each thread a plain call
 *     (CUDA_EMU_SERIAL: threadIdx and blockIdx are variables the harness sets);
 *   - tests/codegen/warp_emu.py: one kernel of two builds, threads as coroutines;
 *   - tests/suites/cuda_emu.sh: whole generated models and libgnnrt's own kernels, launched by
 *     cuda_emu_launch (tests/cuda_emu/cuda_emu.py turns `k<<<g, b, s, st>>>(args)` into it).
 * It is compiled as C++ by g++ with -ffp-contract=off: the emitter's once-rounded __fadd_rn & co
 * are then the plain operators, and no other expression is contracted either (nvcc would fuse a
 * plain a * b + c into an FMA: that difference is rounding, which the tolerances allow).
 *
 * Threads (unless CUDA_EMU_SERIAL): every thread of a block is a coroutine (ucontext) run by a
 * scheduler in thread order; a thread runs until it meets __syncwarp, a shuffle, a vote or
 * __syncthreads, where it waits for the lanes of the mask (the block's threads) to arrive, as a
 * warp's would. Blocks run one after another. A kernel that meets none of those
 * (cuda_emu.py decides from its text) runs each thread as a plain call instead: much faster. What
 * this cannot show: timing, races of the memory model (a thread sees every earlier write at once,
 * atomics are trivially atomic), warp scheduling other than this fixed order, independent thread
 * scheduling's interleavings, and results of reads past a __shared__ array (no bounds).
 */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef CUDA_EMU_SERIAL
#include <ucontext.h>
#endif

/* ---- types */
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct float2 { float x, y; };
struct float3 { float x, y, z; };
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { float4 v = {a, b, c, d}; return v; }
static inline float2 make_float2(float a, float b) { float2 v = {a, b}; return v; }

/* ---- the qualifiers */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static /* one block at a time: the block's threads share a function's statics */
#define __restrict__ __restrict

/* ---- arithmetic: the emitter's once-rounded + - * (kir.c, cuda_rounded_fn); g++ runs with
 * -ffp-contract=off, so the plain operators round once too */
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
/* the GPU's rsqrtf is within 2 ulp; this one is exact (as the host library's 1/sqrtf) */
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return *p; }
static inline void __threadfence(void) {}

/* ---- atomics: a thread runs alone until it meets a barrier, so a read-modify-write is atomic */
template <typename T> static inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <typename T> static inline T atomicMax(T *p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <typename T> static inline T atomicMin(T *p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <typename T> static inline T atomicCAS(T *p, T cmp, T v) { T o = *p; if (o == cmp) *p = v; return o; }
template <typename T> static inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }

#ifdef CUDA_EMU_SERIAL
/* ---- threads as plain calls, one after another: the harness sets the indices */
static dim3 threadIdx, blockIdx, gridDim, blockDim;
#else
/* ---- threads as coroutines */
enum { CUDA_EMU_MAX_THREADS = 1024, CUDA_EMU_STACK = 64 * 1024 };
struct CudaEmuThread {
  ucontext_t ctx;
  dim3 tid;
  int done, waiting; /* waiting: 1 at a __syncwarp, 2 arrived at __syncthreads, 3 leaving it */
  unsigned mask;
  long gen;
};
static CudaEmuThread cuda_emu_t[CUDA_EMU_MAX_THREADS];
static int cuda_emu_n, cuda_emu_cur, cuda_emu_plain;
static ucontext_t cuda_emu_sched;
static long cuda_emu_gen[CUDA_EMU_MAX_THREADS / 32];
static char *cuda_emu_stacks;
static dim3 blockIdx, gridDim, blockDim;
#define threadIdx (cuda_emu_t[cuda_emu_cur].tid)

static void cuda_emu_die(const char *what) {
  fprintf(stderr, "cuda_emu: %s\n", what);
  abort();
}
static inline void cuda_emu_yield(void) {
  if (cuda_emu_plain) cuda_emu_die("a kernel launched as plain calls met a barrier (cuda_emu.py missed it)");
  swapcontext(&cuda_emu_t[cuda_emu_cur].ctx, &cuda_emu_sched);
}
/* The lanes of mask (within this thread's warp) meet: wait until every one has arrived. A
 * generation counter per warp tells a lane that the others left the barrier it waits at. */
static void __syncwarp(unsigned mask = 0xffffffffu) {
  CudaEmuThread *t = &cuda_emu_t[cuda_emu_cur];
  int w = cuda_emu_cur / 32;
  t->waiting = 1, t->mask = mask, t->gen = cuda_emu_gen[w];
  for (;;) {
    int all = 1;
    for (int l = 0; l < 32; l++)
      if ((mask >> l) & 1u) {
        CudaEmuThread *o = &cuda_emu_t[w * 32 + l];
        if (w * 32 + l >= cuda_emu_n || o->done || !(o->waiting || o->gen != t->gen)) all = 0;
      }
    if (all) {
      cuda_emu_gen[w]++;
      break;
    }
    if (cuda_emu_gen[w] != t->gen) break;
    cuda_emu_yield();
  }
  t->waiting = 0;
  cuda_emu_yield(); /* let the others see the new generation before anyone arrives at the next */
}
static double cuda_emu_slot[CUDA_EMU_MAX_THREADS];
template <typename T> static T cuda_emu_exchange(unsigned mask, T v, int from) {
  memcpy(&cuda_emu_slot[cuda_emu_cur], &v, sizeof v);
  __syncwarp(mask);
  T r;
  memcpy(&r, &cuda_emu_slot[(cuda_emu_cur / 32) * 32 + from], sizeof r);
  __syncwarp(mask);
  return r;
}
template <typename T> static T __shfl_xor_sync(unsigned mask, T v, int off, int width = 32) {
  int lane = cuda_emu_cur % 32;
  return cuda_emu_exchange(mask, v, (lane & ~(width - 1)) + (((lane % width) ^ off) % width));
}
template <typename T> static T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  return cuda_emu_exchange(mask, v, ((cuda_emu_cur % 32) & ~(width - 1)) + src % width);
}
template <typename T> static T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) {
  int lane = cuda_emu_cur % 32, in = lane % width;
  return cuda_emu_exchange(mask, v, in + (int)d < width ? lane + (int)d : lane);
}
static int __any_sync(unsigned mask, int p) {
  int any = 0;
  for (int l = 0; l < 32; l++)
    if ((mask >> l) & 1u) any |= cuda_emu_exchange(mask, p ? 1 : 0, l);
  return any;
}
static int __all_sync(unsigned mask, int p) {
  int all = 1;
  for (int l = 0; l < 32; l++)
    if ((mask >> l) & 1u) all &= cuda_emu_exchange(mask, p ? 1 : 0, l);
  return all;
}
/* every thread of the block that has not returned */
static void __syncthreads(void) {
  CudaEmuThread *t = &cuda_emu_t[cuda_emu_cur];
  t->waiting = 2;
  for (;;) {
    int all = 1;
    for (int i = 0; i < cuda_emu_n; i++)
      if (!cuda_emu_t[i].done && cuda_emu_t[i].waiting != 2 && cuda_emu_t[i].waiting != 3) all = 0;
    if (all) break;
    cuda_emu_yield();
  }
  t->waiting = 3;
  cuda_emu_yield();
  t->waiting = 0;
}

static void (*cuda_emu_body)(void *);
static void *cuda_emu_arg;
static void cuda_emu_entry(void) {
  cuda_emu_body(cuda_emu_arg);
  cuda_emu_t[cuda_emu_cur].done = 1;
  swapcontext(&cuda_emu_t[cuda_emu_cur].ctx, &cuda_emu_sched);
}
/* One block of `threads` threads running body(arg): as plain calls, or as coroutines. */
static void cuda_emu_block(const dim3 &block, int plain, void (*body)(void *), void *arg) {
  const int n = (int)(block.x * block.y * block.z);
  cuda_emu_body = body, cuda_emu_arg = arg;
  cuda_emu_n = n;
  cuda_emu_plain = plain;
  memset(cuda_emu_gen, 0, sizeof cuda_emu_gen);
  for (int i = 0; i < n; i++) {
    CudaEmuThread *t = &cuda_emu_t[i];
    t->tid = dim3((unsigned)i % block.x, (unsigned)i / block.x % block.y, (unsigned)i / (block.x * block.y));
    t->done = t->waiting = 0, t->mask = 0, t->gen = 0;
    if (plain) {
      cuda_emu_cur = i;
      body(arg);
      t->done = 1;
      continue;
    }
    if (!cuda_emu_stacks &&
        !(cuda_emu_stacks = (char *)malloc((size_t)CUDA_EMU_MAX_THREADS * CUDA_EMU_STACK)))
      cuda_emu_die("out of memory for the threads' stacks");
    getcontext(&t->ctx);
    t->ctx.uc_stack.ss_sp = cuda_emu_stacks + (size_t)i * CUDA_EMU_STACK;
    t->ctx.uc_stack.ss_size = CUDA_EMU_STACK;
    t->ctx.uc_link = &cuda_emu_sched;
    makecontext(&t->ctx, cuda_emu_entry, 0);
  }
  if (plain) return;
  for (int left = n; left > 0;) {
    left = 0;
    for (int i = 0; i < n; i++) {
      if (cuda_emu_t[i].done) continue;
      cuda_emu_cur = i;
      swapcontext(&cuda_emu_sched, &cuda_emu_t[i].ctx);
      left += !cuda_emu_t[i].done;
    }
  }
}
template <typename F> static void cuda_emu_call(void *f) { (*(F *)f)(); }
/* A launch: every block of the grid in turn. A configuration CUDA refuses (no thread, more
 * than 1024 a block, a grid dimension of 0) runs nothing and returns what cudaGetLastError
 * would (cudaErrorInvalidConfiguration, 9), as the runtime does. */
template <typename F> static int cuda_emu_grid(dim3 grid, dim3 block, int plain, F f) {
  if (!block.x || !block.y || !block.z || block.x * block.y * block.z > CUDA_EMU_MAX_THREADS || !grid.x || !grid.y ||
      !grid.z || grid.y > 65535 || grid.z > 65535)
    return 9;
  gridDim = grid, blockDim = block;
  for (unsigned z = 0; z < grid.z; z++)
    for (unsigned y = 0; y < grid.y; y++)
      for (unsigned x = 0; x < grid.x; x++) {
        blockIdx = dim3(x, y, z);
        cuda_emu_block(block, plain, cuda_emu_call<F>, &f);
      }
  return 0;
}
#endif /* CUDA_EMU_SERIAL */

#endif
