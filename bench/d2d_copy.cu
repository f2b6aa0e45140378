/*
 * bench/d2d_copy.cu [MIB] [REPEAT] -- the device's achievable memory bandwidth, measured as a
 * device-to-device copy (cudaMemcpyAsync, DeviceToDevice) of MIB MiB (default 512), timed with
 * CUDA events over REPEAT copies (default 20) after 3 warm-up copies. bench/gpu_forward.sh
 * divides the generated kernels' bytes per second by this figure.
 *
 * A copy of N bytes reads N and writes N, so the bandwidth printed counts 2N bytes per copy
 * (GB = 1e9 bytes), as the cost model counts bytes read + written.
 *
 * Prints one line "d2d-copy: ... GB/s ..." (bench/gpu_forward.sh reads the GB/s figure).
 * Exit status 1, with a message, when there is no CUDA device or a CUDA call fails.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "d2d_copy: %s: %s\n", #call, cudaGetErrorString(e_));                   \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < lo || v > hi) return 0;
  *out = (int)v;
  return 1;
}

int main(int argc, char **argv) {
  int mib = 512, repeat = 20;
  if (argc > 3 || (argc > 1 && !parse_int(argv[1], 1, 65536, &mib)) ||
      (argc > 2 && !parse_int(argv[2], 1, 10000, &repeat))) {
    fprintf(stderr, "usage: d2d_copy [MIB 1..65536 (512)] [REPEAT 1..10000 (20)]\n");
    return 2;
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    fprintf(stderr, "d2d_copy: no CUDA device here\n");
    return 1;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  size_t bytes = (size_t)mib << 20;
  void *src = NULL, *dst = NULL;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; i++) CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
  float *ms = (float *)malloc(sizeof(float) * (size_t)repeat);
  if (!ms) return fprintf(stderr, "d2d_copy: out of host memory\n"), 1;
  for (int i = 0; i < repeat; i++) {
    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  qsort(ms, (size_t)repeat, sizeof(float), cmp_float);
  double median = repeat % 2 ? ms[repeat / 2] : 0.5 * (ms[repeat / 2 - 1] + ms[repeat / 2]);
  double gbs = 2.0 * (double)bytes / 1e9 / (median / 1e3);
  printf("d2d-copy: %s, %d MiB, median %.3f ms of %d (fastest %.3f), %.1f GB/s (read + write)\n", prop.name, mib,
         median, repeat, ms[0], gbs);
  free(ms);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 0;
}
