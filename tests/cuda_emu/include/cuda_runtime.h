/* cuda_runtime.h -- the CUDA runtime API that gnnc's generated code and libgnnrt use, faked on
 * the CPU for tests/suites/cuda_emu.sh (tests/cuda_emu/cuda_emu.h says what it can and cannot
 * show). Put first on the include path; implemented by tests/cuda_emu/cuda_api.cpp: memory is
 * malloc (filled with 0xff bytes, a NaN in every float: a read of what nobody wrote shows), the
 * allocations are tracked (cudaPointerGetAttributes, and copies, sets and GEMMs that reach past
 * one fail with cudaErrorInvalidValue), streams are synchronous. C and C++. */
#ifndef CUDA_EMU_CUDA_RUNTIME_H
#define CUDA_EMU_CUDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101
} cudaError_t;
typedef struct CUstream_st *cudaStream_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrMemoryPoolsSupported = 115 };
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
};
#define cudaStreamNonBlocking 0x01

cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s);
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height, cudaStream_t s);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);

/* the emulator's own: a launch's error for cudaGetLastError; whether p .. p+bytes lies in one
 * live allocation (1) */
void cuda_emu_set_error(int e);
int cuda_emu_in_device(const void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* device code: the language itself, and the launch that tests/cuda_emu/cuda_emu.py writes for
 * `k<<<grid, block, shmem, stream>>>(args)` */
#include "../cuda_emu.h"
template <typename F> static void cuda_emu_launch(dim3 grid, dim3 block, size_t shmem, cudaStream_t s, int plain, F f) {
  (void)s;
  int e = shmem > 48 * 1024 ? (int)cudaErrorInvalidValue : cuda_emu_grid(grid, block, plain, f);
  if (e) cuda_emu_set_error(e);
}
#endif

#endif
