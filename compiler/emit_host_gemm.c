/* emit_host_gemm.c -- the host backend's dense products: narrow ones as generated AVX-512 loops,
 * the rest through cblas.
 *
 * A layer's projection is C[V, N] = A[V, K] . W[K, N] with V the vertices (tens of thousands to
 * millions) and N the layer's width (16 or 64 in GCN and GAT). OpenBLAS 0.3.21 (Debian 12, on
 * the AMD EPYC of the CI machines) runs these at half its speed on square matrices or less: it
 * packs both operands into panels for any shape, and its kernels are tuned for N large. On
 * Cora and PubMed the projection is most of an inference forward (GCN on PubMed: 9.6 of 10.7
 * ms at 1 thread, the 500 -> 16 product), so the peers' forward, which calls the same kind of
 * BLAS, could not be beaten by much whatever the walks did.
 *
 * For N a multiple of 16 up to 64 the product has a simple optimal schedule: six rows of C held
 * in 6 x N/16 zmm accumulators (24 at most of the 32 registers), and for each k one row of W
 * loaded (N/16 vectors) and six elements of A broadcast into fused multiply-adds. A is read
 * once, in order, and the next block's rows are asked for while a block computes (a prefetch a
 * line every 16 k: 200,000 x 128 -> 64 took 41 ms without, 32.5 with, 1 thread, the loop alone);
 * W (K x N floats, 32 KB for 500 x 16) stays in L1/L2. Measured against cblas
 * on the same machine, 1 thread: 2.0-2.3x for N = 16 (PubMed's 19,717 x 500, Cora's 2,708 x
 * 1,433), 1.4-1.5x for N = 64 with K of 500-1,433, 1.1x for the 200,000 x 128 x 64 of issue 28.
 * Without AVX-512 (compiled for another CPU: --host-march), the same loops over 256-bit vectors
 * were slower than OpenBLAS (0.6-0.9x), so the generated code keeps the cblas call there: the
 * choice is made by the C preprocessor where the library is compiled (__AVX512F__), so an
 * embedding project's flags decide it too.
 *
 * The backward has two more products per layer, and OpenBLAS's threads help them little or
 * not at all on these shapes (dX = dY . W^T, 200,000 x 16 -> 64: 7.6 ms at 1 thread, 9.6 ms at
 * 2), which made training steps scale worst from 1 to 2 threads (issue 28). dX = dY . W^T runs
 * the same loops on a transposed copy of W (gnn_gemm_nt_n<N>); the weight's gradient
 * dW = X^T . dY, a sum over the vertices, has loops of its own (gnn_gemm_tn_n<N>, below).
 * Widths 65..80 take a masked last vector (GAT's folded [W | W.a], 64 + 8).
 *
 * Numerics: each element of C is sum_k A[i,k] W[k,j] accumulated in k order with FMAs, in float
 * -- the same sum, in another order of rounding, as cblas's (which also accumulates in float
 * with FMAs, in panel order). The order does not depend on the thread count (rows are split,
 * never k; the weight's gradient sums fixed slices of the vertices in a fixed order), so a
 * model's results are the same at 1 and 2 threads.
 */
#include "emit.h"

#include <string.h>

enum {
  GEMM_ROWS = 6,    /* rows of C per block while a row is at most 4 vectors (24 accumulators) */
  GEMM_ROWS_5 = 4,  /* and for 5 vectors (20 accumulators + 5 of B: 25 of the 32 registers) */
  GEMM_ROWS_2M = 12, /* and for 17..31 wide: two vectors, the second masked (24 accumulators) */
  GEMM_MAXN = 80    /* the widest C the loops take: 5 vectors of 16 floats */
};

/* Whether the generated loops take a product of width n: a multiple of 16 up to 64, 17..31 or
 * 65..80 (the last vector masked: GAT's folded projection [W | W.a] is 64 + 8 = 72 wide, its
 * second layer's 16 + 2 = 18). Measured against OpenBLAS on 200,000 rows, 1 / 2 threads: N = 72
 * 1.10x / 1.79x; N = 18 0.97x / 3.4x with twelve rows a block (six: 0.86x at 1 thread; OpenBLAS
 * takes 7.6 ms at 1 thread and 13.4 at 2). Other widths stay with cblas (not measured). */
static bool narrow_width(int64_t n) {
  return n >= 16 && (n <= 64 ? n % 16 == 0 || n < 32 : n <= GEMM_MAXN);
}

/* Rows of C a block holds in registers, for width n. */
static int gemm_rows(int64_t n) {
  int nv = (int)((n + 15) / 16);
  return nv == 2 && n % 16 ? GEMM_ROWS_2M : nv <= 4 ? GEMM_ROWS : GEMM_ROWS_5;
}

/* The width of a GEMM the generated loops take, or 0 (cblas): C = A . B or C = A . B^T, beta 0,
 * N constant (and K constant for B^T, whose transposed copy is made first), B and C dense. */
static int64_t narrow_n(const KGemm *g) {
  if (g->tf32 || g->ta || g->beta != 0.0f || g->n.dom != DOM_GLOBAL) return 0;
  int64_t n = g->n.mult;
  if (!narrow_width(n) || g->ldc != n) return 0;
  if (!g->tb) return g->ldb == n ? n : 0;
  return g->k.dom == DOM_GLOBAL && g->ldb == g->k.mult ? n : 0;
}

/* A row of the loops is nv vectors of 16 floats, the last one whole (tail 16) or its first tail
 * floats under the mask gnn_tail (zeros beyond). The three things done to a row, printed at
 * indentation ind: */

/* b[v] = row k of `base` (N wide). */
static void row_load_b(FILE *out, const char *ind, const char *base, int64_t n, int nv, int tail) {
  fprintf(out, "%sfor (int v = 0; v < %d; v++) b[v] = _mm512_loadu_ps(%s + k * %lld + v * 16);\n", ind, tail == 16 ? nv : nv - 1, base,
          (long long)n);
  if (tail != 16) fprintf(out, "%sb[%d] = _mm512_maskz_loadu_ps(gnn_tail, %s + k * %lld + %d);\n", ind, nv - 1, base, (long long)n, 16 * (nv - 1));
}

/* acc[v] += a * row k of `base`. */
static void row_fma(FILE *out, const char *ind, const char *base, int64_t n, int nv, int tail) {
  fprintf(out, "%sfor (int v = 0; v < %d; v++) acc[v] = _mm512_fmadd_ps(a, _mm512_loadu_ps(%s + k * %lld + v * 16), acc[v]);\n", ind,
          tail == 16 ? nv : nv - 1, base, (long long)n);
  if (tail != 16)
    fprintf(out, "%sacc[%d] = _mm512_fmadd_ps(a, _mm512_maskz_loadu_ps(gnn_tail, %s + k * %lld + %d), acc[%d]);\n", ind, nv - 1, base,
            (long long)n, 16 * (nv - 1), nv - 1);
}

/* Row `row` of C = the vectors `acc`[v]. */
static void row_store_c(FILE *out, const char *ind, const char *row, const char *acc, int64_t n, int nv, int tail) {
  fprintf(out, "%sfor (int v = 0; v < %d; v++) _mm512_storeu_ps(C + %s * %lld + v * 16, %s[v]);\n", ind, tail == 16 ? nv : nv - 1, row,
          (long long)n, acc);
  if (tail != 16) fprintf(out, "%s_mm512_mask_storeu_ps(C + %s * %lld + %d, gnn_tail, %s[%d]);\n", ind, row, (long long)n, 16 * (nv - 1), acc, nv - 1);
}

/* gnn_gemm_n<N>(M, K, A, lda, B, C): C[M, N] = A[M, K] . B[K, N]. */
static void narrow_kernel(FILE *out, int64_t n) {
  int nv = (int)((n + 15) / 16), rows = gemm_rows(n), tail = (int)(n - 16 * (nv - 1));
  fprintf(out,
          "static void gnn_gemm_n%lld(int64_t M, int64_t K, const float *restrict A, int64_t lda, const float *restrict B,\n"
          "                        float *restrict C) {\n",
          (long long)n);
  if (tail != 16) fprintf(out, "  const __mmask16 gnn_tail = 0x%x; /* the last vector's %d floats */\n", (1u << tail) - 1u, tail);
  fprintf(out,
          "  const int64_t blocks = (M + %d) / %d;\n"
          "#pragma omp parallel for schedule(static)\n"
          "  for (int64_t blk = 0; blk < blocks; blk++) {\n"
          "    const int64_t i0 = blk * %d;\n"
          "    if (i0 + %d <= M) {\n"
          "      /* the next block's rows of A (those below M), asked for a line of 16 floats at a time while this\n"
          "       * block computes: the hardware's prefetch alone left the loop waiting on them */\n"
          "      const float *next = A + (i0 + %d) * lda;\n"
          "      __m512 acc[%d][%d];\n"
          "      for (int r = 0; r < %d; r++)\n"
          "        for (int v = 0; v < %d; v++) acc[r][v] = _mm512_setzero_ps();\n"
          "      for (int64_t k = 0; k < K; k++) {\n"
          "        if ((k & 15) == 0)\n"
          "          for (int r = 0; r < %d && i0 + %d + r < M; r++) _mm_prefetch((const char *)(next + r * lda + k), _MM_HINT_T0);\n"
          "        __m512 b[%d];\n",
          rows - 1, rows, rows, rows, rows, rows, nv, rows, nv, rows, rows, nv);
  row_load_b(out, "        ", "B", n, nv, tail);
  fprintf(out,
          "        for (int r = 0; r < %d; r++) {\n"
          "          const __m512 a = _mm512_set1_ps(A[(i0 + r) * lda + k]);\n"
          "          for (int v = 0; v < %d; v++) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);\n"
          "        }\n"
          "      }\n"
          "      for (int r = 0; r < %d; r++)",
          rows, nv, rows);
  fputs(tail == 16 ? "\n" : " {\n", out);
  row_store_c(out, "        ", "(i0 + r)", "acc[r]", n, nv, tail);
  if (tail != 16) fputs("      }\n", out);
  fprintf(out,
          "    } else {\n"
          "      for (int64_t i = i0; i < M; i++) { /* the last rows, one at a time (same order of sums) */\n"
          "        __m512 acc[%d];\n"
          "        for (int v = 0; v < %d; v++) acc[v] = _mm512_setzero_ps();\n"
          "        for (int64_t k = 0; k < K; k++) {\n"
          "          const __m512 a = _mm512_set1_ps(A[i * lda + k]);\n",
          nv, nv);
  row_fma(out, "          ", "B", n, nv, tail);
  fputs("        }\n", out);
  row_store_c(out, "        ", "i", "acc", n, nv, tail);
  fputs("      }\n    }\n  }\n}\n", out);
}

/* gnn_gemm_nt_n<N>(M, K, A, lda, B, C): C[M, N] = A[M, K] . B[N, K]^T, through a transposed copy
 * of B (K x N floats: a layer's weight, read once) and gnn_gemm_n<N>. The backward's
 * dX = dY . W^T: OpenBLAS took 7.6 ms at 1 thread and 9.6 ms at 2 for 200,000 x 16 -> 64, these
 * 4.2 and 2.1 ms. Returns 0 when the copy cannot be allocated (the caller then calls cblas). */
static void narrow_nt_kernel(FILE *out, int64_t n) {
  fprintf(out,
          "static int gnn_gemm_nt_n%lld(int64_t M, int64_t K, const float *restrict A, int64_t lda, const float *restrict B,\n"
          "                           float *restrict C) {\n"
          "  float *bt = K > 0 ? malloc(sizeof(float) * (size_t)K * %lld) : NULL;\n"
          "  if (!bt) return 0;\n"
          "  for (int64_t k = 0; k < K; k++)\n"
          "    for (int64_t j = 0; j < %lld; j++) bt[k * %lld + j] = B[j * K + k];\n"
          "  gnn_gemm_n%lld(M, K, A, lda, bt, C);\n"
          "  free(bt);\n"
          "  return 1;\n"
          "}\n",
          (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
}

/* The width of a weight's gradient C[M, N] = A[K, M]^T . B[K, N] (K: the vertices) the generated
 * loops take, or 0: beta 0, N as narrow_width, B and C dense. */
static int64_t narrow_tn(const KGemm *g) {
  if (g->tf32 || !g->ta || g->tb || g->beta != 0.0f || g->n.dom != DOM_GLOBAL) return 0;
  int64_t n = g->n.mult;
  bool mostly_masked = n > 16 && n < 32; /* N = 18: 0.87x of OpenBLAS at 1 thread, here too */
  return narrow_width(n) && !mostly_masked && g->ldb == n && g->ldc == n ? n : 0;
}

/* The weight gradient's `p += acc` (`p = acc` on a slice's first block) for the vector `acc`
 * at `ind`entation: whole, or under the mask where v is the last vector. */
static void tn_add_store(FILE *out, const char *ind, const char *acc, int tail, int nv) {
  if (tail == 16) {
    fprintf(out, "%s_mm512_storeu_ps(p, first ? %s : _mm512_add_ps(_mm512_loadu_ps(p), %s));\n", ind, acc, acc);
    return;
  }
  fprintf(out, "%sconst __mmask16 m = v < %d ? (__mmask16)0xffff : gnn_tail;\n", ind, nv - 1);
  fprintf(out, "%s_mm512_mask_storeu_ps(p, m, first ? %s : _mm512_add_ps(_mm512_maskz_loadu_ps(m, p), %s));\n", ind, acc, acc);
}

/* gnn_gemm_tn_n<N>(M, K, A, lda, B, C): C[M, N] = A[K, M]^T . B[K, N], the sum over K's rows.
 * OpenBLAS runs it at 1 thread at about the rate of the forward's product, but its threads
 * help little (200,000 x 128 -> 64: 53 ms at 1 thread, 33-60 at 2) and it made GCN's and
 * GAT's training steps scale worst from 1 to 2 threads. Here K is cut into 16 fixed slices,
 * whichever thread takes them, each summed into its own partial C; the slices are then added in
 * order, so the bits do not depend on the thread count. A slice goes KB rows at a time: the
 * block of A transposed (M x KB, in cache), then the same schedule as gnn_gemm_n<N> with the
 * block of B as the weight -- the transposed copy costs about one FMA per element, which N = 16
 * does not pay back on few rows. Measured against OpenBLAS, 1 / 2 threads, 200,000 rows:
 * N = 64 (M = 128) 1.09-1.18x / 1.6-1.9x, N = 16 (M = 64) 1.47x / 2.6-4.2x, N = 72 0.94-0.98x /
 * 1.2-1.8x; on Cora's and PubMed's 2,708 and 19,717 rows 0.83-0.87x at 1 thread, so below 65,536
 * rows (GNN_GEMM_TN_MIN_ROWS: the tests compile with a smaller one to run these loops on their
 * graphs), where the partial sums would pass 64 MB, or where an allocation fails, it returns 0
 * and the caller calls cblas. */
static void narrow_tn_kernel(FILE *out, int64_t n) {
  int nv = (int)((n + 15) / 16), rows = gemm_rows(n), tail = (int)(n - 16 * (nv - 1));
  long long N = (long long)n;
  fprintf(out,
          "static int gnn_gemm_tn_n%lld(int64_t M, int64_t K, const float *restrict A, int64_t lda, const float *restrict B,\n"
          "                           float *restrict C) {\n"
          "  enum { KB = 32, SLICES = 16 };\n"
          "  if (K < GNN_GEMM_TN_MIN_ROWS || (size_t)M * %lld * SLICES > ((size_t)1 << 24)) return 0;\n"
          "  float *part = malloc(sizeof(float) * (size_t)M * %lld * SLICES), *at = malloc(sizeof(float) * (size_t)M * KB * SLICES);\n"
          "  if (!part || !at) {\n"
          "    free(part), free(at);\n"
          "    return 0;\n"
          "  }\n",
          N, N, N);
  if (tail != 16) fprintf(out, "  const __mmask16 gnn_tail = 0x%x; /* the last vector's %d floats */\n", (1u << tail) - 1u, tail);
  fprintf(out,
          "#pragma omp parallel for schedule(static)\n"
          "  for (int64_t s = 0; s < SLICES; s++) {\n"
          "    float *restrict at_s = at + (size_t)M * KB * s, *restrict p_s = part + (size_t)M * %lld * s;\n"
          "    const int64_t k_lo = K * s / SLICES, k_hi = K * (s + 1) / SLICES;\n"
          "    for (int64_t kb = k_lo; kb < k_hi; kb += KB) {\n"
          "      const int64_t kn = kb + KB < k_hi ? KB : k_hi - kb;\n"
          "      const int first = kb == k_lo;\n"
          "      for (int64_t k = 0; k < kn; k++)\n"
          "        for (int64_t i = 0; i < M; i++) at_s[i * KB + k] = A[(kb + k) * lda + i];\n"
          "      const float *restrict b_blk = B + kb * %lld;\n"
          "      int64_t i0 = 0;\n"
          "      for (; i0 + %d <= M; i0 += %d) {\n"
          "        __m512 acc[%d][%d];\n"
          "        for (int r = 0; r < %d; r++)\n"
          "          for (int v = 0; v < %d; v++) acc[r][v] = _mm512_setzero_ps();\n"
          "        for (int64_t k = 0; k < kn; k++) {\n"
          "          __m512 b[%d];\n",
          N, N, rows, rows, rows, nv, rows, nv, nv);
  row_load_b(out, "          ", "b_blk", n, nv, tail);
  fprintf(out,
          "          for (int r = 0; r < %d; r++) {\n"
          "            const __m512 a = _mm512_set1_ps(at_s[(i0 + r) * KB + k]);\n"
          "            for (int v = 0; v < %d; v++) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);\n"
          "          }\n"
          "        }\n"
          "        for (int r = 0; r < %d; r++) /* the block's sums added to the slice's */\n"
          "          for (int v = 0; v < %d; v++) {\n"
          "            float *restrict p = p_s + (i0 + r) * %lld + v * 16;\n",
          rows, nv, rows, nv, N);
  tn_add_store(out, "            ", "acc[r][v]", tail, nv);
  fprintf(out,
          "          }\n"
          "      }\n"
          "      for (; i0 < M; i0++) { /* the last rows of C, one at a time */\n"
          "        __m512 acc[%d];\n"
          "        for (int v = 0; v < %d; v++) acc[v] = _mm512_setzero_ps();\n"
          "        for (int64_t k = 0; k < kn; k++) {\n"
          "          const __m512 a = _mm512_set1_ps(at_s[i0 * KB + k]);\n",
          nv, nv);
  row_fma(out, "          ", "b_blk", n, nv, tail);
  fprintf(out,
          "        }\n"
          "        for (int v = 0; v < %d; v++) {\n"
          "          float *restrict p = p_s + i0 * %lld + v * 16;\n",
          nv, N);
  tn_add_store(out, "          ", "acc[v]", tail, nv);
  fprintf(out,
          "        }\n"
          "      }\n"
          "    }\n"
          "  }\n"
          "#pragma omp parallel for schedule(static)\n"
          "  for (int64_t i = 0; i < M * %lld; i++) { /* the slices' sums, in slice order */\n"
          "    float t = part[i];\n"
          "    for (int64_t s = 1; s < SLICES; s++) t += part[(size_t)M * %lld * s + i];\n"
          "    C[i] = t;\n"
          "  }\n"
          "  free(part), free(at);\n"
          "  return 1;\n"
          "}\n",
          N, N);
}

/* One function per width (and form) the program's GEMMs use. */
/* --gemm-precision=tf32: what a GPU's tensor cores compute (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32),
 * emulated so that its accuracy can be measured here (not its speed): A and B rounded to TF32, a
 * 10-bit mantissa (to nearest, ties away from zero: PTX's cvt.rna.tf32.f32; inf and NaN as they
 * are), in copies, then a float32 GEMM of the copies (its sums in cblas's order, not the tensor
 * cores'). Returns 0 when the copies cannot be allocated. */
static void tf32_prelude(FILE *out) {
  fputs("\n/* --gemm-precision=tf32 emulated (emit_host_gemm.c): A and B rounded to TF32 in copies, a float32 GEMM */\n"
        "static float gnn_tf32(float x) {\n"
        "  uint32_t u;\n"
        "  memcpy(&u, &x, sizeof u);\n"
        "  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u; /* 13 bits off, to nearest, ties away */\n"
        "  memcpy(&x, &u, sizeof x);\n"
        "  return x;\n"
        "}\n"
        "static float *gnn_tf32_copy(const float *a, int rows, int cols, int ld) {\n"
        "  float *c = malloc(sizeof(float) * ((size_t)rows * (size_t)cols + 1));\n"
        "  if (!c) return NULL;\n"
        "  for (int64_t i = 0; i < rows; i++)\n"
        "    for (int64_t j = 0; j < cols; j++) c[i * cols + j] = gnn_tf32(a[i * ld + j]);\n"
        "  return c;\n"
        "}\n"
        "static int gnn_sgemm_tf32(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B, int ldb,\n"
        "                          float beta, float *C, int ldc) {\n"
        "  const int ra = ta ? K : M, ca = ta ? M : K, rb = tb ? N : K, cb = tb ? K : N;\n"
        "  float *a = gnn_tf32_copy(A, ra, ca, lda), *b = gnn_tf32_copy(B, rb, cb, ldb);\n"
        "  if (a && b)\n"
        "    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, a,\n"
        "                ca > 0 ? ca : 1, b, cb > 0 ? cb : 1, beta, C, ldc);\n"
        "  const int ok = a && b;\n"
        "  free(a);\n"
        "  free(b);\n"
        "  return ok;\n"
        "}\n",
        out);
}

void host_gemm_prelude(FILE *out, const KProgram *p) {
  bool want[GEMM_MAXN + 1] = {false}, want_t[GEMM_MAXN + 1] = {false}, want_tn[GEMM_MAXN + 1] = {false};
  bool any = false, tf32 = false;
  for (int i = 0; i < p->nsteps; i++) tf32 |= p->steps[i].kind == STEP_GEMM && p->steps[i].gemm.tf32;
  if (tf32) tf32_prelude(out);
  for (int i = 0; i < p->nsteps; i++)
    if (p->steps[i].kind == STEP_GEMM) {
      int64_t n = narrow_n(&p->steps[i].gemm), tn = narrow_tn(&p->steps[i].gemm);
      if (n) want[n] = any = true;
      if (n && p->steps[i].gemm.tb) want_t[n] = true;
      if (tn) want_tn[tn] = any = true;
    }
  if (!any) return;
  fputs("\n/* Narrow projections C[M, N] = A[M, K] . B[K, N] (N = 16..80): rows of C in registers,\n"
        " * one row of B and a broadcast element of A per row and k (emit_host_gemm.c says why). */\n"
        "#if defined(__AVX512F__)\n#include <immintrin.h>\n#define GNN_NARROW_GEMM 1\n",
        out);
  bool any_tn = false;
  for (int64_t n = 16; n <= GEMM_MAXN; n++) any_tn |= want_tn[n];
  if (any_tn) fputs("#ifndef GNN_GEMM_TN_MIN_ROWS\n#define GNN_GEMM_TN_MIN_ROWS 65536 /* fewer rows: cblas (emit_host_gemm.c) */\n#endif\n", out);
  for (int64_t n = 16; n <= GEMM_MAXN; n++) {
    if (want[n]) narrow_kernel(out, n);
    if (want_t[n]) narrow_nt_kernel(out, n);
    if (want_tn[n]) narrow_tn_kernel(out, n);
  }
  fputs("#endif\n", out);
}

static const char *dim_c(const KProgram *p, KDim d) {
  return d.dom == DOM_GLOBAL ? arena_printf(p->arena, "%lld", (long long)d.mult)
                             : arena_printf(p->arena, "(int64_t)%s * %lld", emit_rows(d.dom), (long long)d.mult);
}

void host_gemm(FILE *out, const KProgram *p, const KGemm *g) {
  fputs("  {\n", out);
  fprintf(out, "    const int M = gnn_blas_dim(%s), N = gnn_blas_dim(%s), K = gnn_blas_dim(%s);\n", dim_c(p, g->m), dim_c(p, g->n),
          dim_c(p, g->k));
  fputs("    if (M < 0 || N < 0 || K < 0) return gnn_set_error(m->ctx, GNN_ERR_UNSUPPORTED, \"a GEMM dimension exceeds INT_MAX\");\n", out);
  int64_t n = narrow_n(g), tn = narrow_tn(g);
  if (g->tf32) {
    fprintf(out, "    if (!gnn_sgemm_tf32(%d, %d, M, N, K, %s, %lld, %s, %lld, %.1ff, %s, %lld))\n", g->ta, g->tb, emit_buf_ref(p, g->a),
            (long long)g->lda, emit_buf_ref(p, g->b), (long long)g->ldb, (double)g->beta, emit_buf_ref(p, g->c), (long long)g->ldc);
    fputs("      return gnn_set_error(m->ctx, GNN_ERR_OOM, \"the TF32 copies of a GEMM's operands: out of memory\");\n  }\n", out);
    return;
  }
  if (tn) {
    fprintf(out, "#ifdef GNN_NARROW_GEMM\n    if (!gnn_gemm_tn_n%lld(M, K, %s, %lld, %s, %s))\n#endif\n  ", (long long)tn, emit_buf_ref(p, g->a),
            (long long)g->lda, emit_buf_ref(p, g->b), emit_buf_ref(p, g->c));
  } else if (n && g->tb) {
    fprintf(out, "#ifdef GNN_NARROW_GEMM\n    if (!gnn_gemm_nt_n%lld(M, K, %s, %lld, %s, %s))\n#endif\n  ", (long long)n, emit_buf_ref(p, g->a),
            (long long)g->lda, emit_buf_ref(p, g->b), emit_buf_ref(p, g->c));
  } else if (n) {
    fprintf(out, "#ifdef GNN_NARROW_GEMM\n    (void)N;\n    gnn_gemm_n%lld(M, K, %s, %lld, %s, %s);\n#else\n", (long long)n, emit_buf_ref(p, g->a),
            (long long)g->lda, emit_buf_ref(p, g->b), emit_buf_ref(p, g->c));
  }
  fprintf(out, "    cblas_sgemm(CblasRowMajor, %s, %s, M, N, K, 1.0f, %s, %lld, %s, %lld, %.1ff, %s, %lld);\n",
          g->ta ? "CblasTrans" : "CblasNoTrans", g->tb ? "CblasTrans" : "CblasNoTrans", emit_buf_ref(p, g->a), (long long)g->lda,
          emit_buf_ref(p, g->b), (long long)g->ldb, (double)g->beta, emit_buf_ref(p, g->c), (long long)g->ldc);
  if (n && !g->tb) fputs("#endif\n", out);
  fputs("  }\n", out);
}
