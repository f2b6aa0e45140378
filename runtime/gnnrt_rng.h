/* gnnrt_rng.h -- the counter-based random numbers of gnnc: dropout masks and generated inputs.
 *
 * One function of (seed, stream, index) -> 32 random bits, with no state: the same mask can be
 * regenerated anywhere (the float64 interpreter, the host C backend, a CUDA kernel, the
 * backward pass) from the same three numbers, so a dropout mask is never stored (the paper's
 * dgNN kept an fp32 |E| x H mask; we recompute it). Integer arithmetic only, so host and GPU
 * give bit-identical masks.
 *
 *   seed    the run's seed, advanced by the training loop once per step
 *   stream  which dropout in the model (the compiler numbers them: the `stream` attribute)
 *   index   the element: row * elements-per-row + element
 *
 * The mixing is SplitMix64's finaliser applied twice; the bits are statistically strong
 * enough for masks (it passes BigCrush as a counter-based generator, per Steele et al. 2014).
 */
#ifndef GNNRT_RNG_H
#define GNNRT_RNG_H

#include <stdint.h> /* under NVRTC: the minimal one gnn_nvrtc_compile provides */

#if defined(__CUDACC__)
#define GNN_RNG_FN static __host__ __device__ __forceinline__
#else
#define GNN_RNG_FN static inline
#endif

GNN_RNG_FN uint64_t gnn_rng_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 32 random bits for (seed, stream, index). */
GNN_RNG_FN uint32_t gnn_rng_bits(uint64_t seed, uint32_t stream, uint64_t index) {
  uint64_t k = gnn_rng_mix(seed + 0x9e3779b97f4a7c15ull * ((uint64_t)stream + 1));
  return (uint32_t)(gnn_rng_mix(k ^ (index * 0xd1b54a32d192ed03ull)) >> 32);
}

/* Uniform in [0, 1) with 24 bits: exactly representable in float32 and in float64. */
GNN_RNG_FN float gnn_rng_uniform(uint64_t seed, uint32_t stream, uint64_t index) {
  return (float)(gnn_rng_bits(seed, stream, index) >> 8) * (1.0f / 16777216.0f);
}

/* Dropout keeps an element when its uniform draw is >= p, and scales it by 1 / (1 - p).
 * The comparison is done in float32 on every backend: (float)p is what the kernels see. */
GNN_RNG_FN int gnn_dropout_keep(uint64_t seed, uint32_t stream, uint64_t index, float p) {
  return gnn_rng_uniform(seed, stream, index) >= p;
}

#endif
