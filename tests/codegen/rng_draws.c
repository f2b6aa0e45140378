/* rng_draws.c -- prints dropout decisions and uniforms of runtime/gnnrt_rng.h, so that the
 * test can compare the build of the host code path (cc) with the CUDA code path's (nvcc -x cu:
 * the same header compiles to __host__ __device__ functions there; on a machine without a GPU
 * we compare their host instantiation, which nvcc compiles from the same source as the device
 * one). Output: one line per (seed, stream, p): a 64-bit FNV hash of 2^20 keep decisions and
 * the sum of the uniforms, then the first 8 uniforms in hex. Identical text = identical masks.
 */
#include <stdio.h>

#include "gnnrt_rng.h"

int main(void) {
  const uint64_t seeds[] = {0, 1, 42, 0xffffffffffffffffull};
  const uint32_t streams[] = {0, 1, 7};
  const float ps[] = {0.1f, 0.5f, 0.6f};
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 3; c++) {
        uint64_t h = 1469598103934665603ull;
        double sum = 0;
        for (uint64_t i = 0; i < (1u << 20); i++) {
          h = (h ^ (uint64_t)gnn_dropout_keep(seeds[a], streams[b], i, ps[c])) * 1099511628211ull;
          sum += gnn_rng_uniform(seeds[a], streams[b], i * 977u);
        }
        printf("seed %llu stream %u p %.2f: keep-hash %016llx uniform-sum %.9g first", (unsigned long long)seeds[a],
               streams[b], (double)ps[c], (unsigned long long)h, sum);
        for (uint64_t i = 0; i < 8; i++) printf(" %a", (double)gnn_rng_uniform(seeds[a], streams[b], i));
        printf("\n");
      }
  return 0;
}
