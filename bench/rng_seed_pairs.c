/* bench/rng_seed_pairs.c -- do adjacent forward seeds draw related dropout masks? A statistic, not
 * a timing: for seeds s and s + 1 (s from 0, 1, 100, 10^6 + 3, 0x9e3779b97f4a7c15, 2^64 - 256 and
 * 123456789 on, 200 of each; streams 0-2) the share of 65,536 keep decisions (p = 0.5) that agree,
 * as a z-score against independent masks (agreement 1/2, sd 1/(2 sqrt(n))), and the correlation of
 * the uniforms. Independent masks give a mean z^2 near 1 and about 0.27% of pairs beyond 3 sigma.
 * It also shows the one structural alias of gnn_rng_bits: stream t + 1 of seed x is stream t of
 * seed x + 0x9e3779b97f4a7c15. docs/embedding.md ("Dropout masks") quotes its output.
 *
 *   cc -std=c11 -O2 -Iruntime bench/rng_seed_pairs.c -lm -o /tmp/rng_seed_pairs && /tmp/rng_seed_pairs
 */
#include <math.h>
#include <stdio.h>

#include "gnnrt_rng.h"

int main(void) {
  enum { n = 1 << 16, per_base = 200, streams = 3 };
  const uint64_t bases[] = {0, 1, 100, 1000003, 0x9e3779b97f4a7c15ull, 0xffffffffffffff00ull, 123456789};
  const int nbases = (int)(sizeof bases / sizeof bases[0]);
  int pairs = 0, beyond3 = 0;
  double sum_agree = 0, sum_z2 = 0, worst_z = 0, worst_corr = 0;
  for (int b = 0; b < nbases; b++)
    for (uint64_t d = 0; d < per_base; d++)
      for (uint32_t st = 0; st < streams; st++) {
        const uint64_t s = bases[b] + d;
        long agree = 0;
        double cov = 0;
        for (int i = 0; i < n; i++) {
          agree += gnn_dropout_keep(s, st, (uint64_t)i, 0.5f) == gnn_dropout_keep(s + 1, st, (uint64_t)i, 0.5f);
          cov += (gnn_rng_uniform(s, st, (uint64_t)i) - 0.5) * (gnn_rng_uniform(s + 1, st, (uint64_t)i) - 0.5);
        }
        const double f = (double)agree / n, z = fabs(f - 0.5) / (0.5 / sqrt((double)n));
        const double corr = fabs(cov / n * 12); /* a uniform's variance is 1/12 */
        pairs++, sum_agree += f, sum_z2 += z * z, beyond3 += z > 3;
        worst_z = z > worst_z ? z : worst_z, worst_corr = corr > worst_corr ? corr : worst_corr;
      }
  printf("seed pairs (s, s + 1)     %d (x %d elements)\n", pairs, n);
  printf("mean agreement            %.5f (independent: 0.5)\n", sum_agree / pairs);
  printf("mean z^2                  %.3f (independent: 1)\n", sum_z2 / pairs);
  printf("pairs beyond 3 sigma      %d (independent: %.1f)\n", beyond3, 0.0027 * pairs);
  printf("worst |z|                 %.2f\n", worst_z);
  printf("worst |corr| of uniforms  %.4f (1/sqrt(n) = %.4f)\n", worst_corr, 1 / sqrt((double)n));
  int alias = 1;
  for (uint64_t i = 0; i < 1000; i++) alias &= gnn_rng_bits(5, 1, i) == gnn_rng_bits(5 + 0x9e3779b97f4a7c15ull, 0, i);
  printf("(x, stream 1) == (x + 0x9e3779b97f4a7c15, stream 0): %s\n", alias ? "yes (the alias)" : "no");
  return 0;
}
