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
 * once, in order; W (K x N floats, 32 KB for 500 x 16) stays in L1/L2. Measured against cblas
 * on the same machine, 1 thread: 2.0-2.3x for N = 16 (PubMed's 19,717 x 500, Cora's 2,708 x
 * 1,433), 1.4-1.5x for N = 64 with K of 500-1,433, 1.1x for the 200,000 x 128 x 64 of issue 28.
 * Without AVX-512 (compiled for another CPU: --host-march), the same loops over 256-bit vectors
 * were slower than OpenBLAS (0.6-0.9x), so the generated code keeps the cblas call there: the
 * choice is made by the C preprocessor where the library is compiled (__AVX512F__), so an
 * embedding project's flags decide it too.
 *
 * Numerics: each element of C is sum_k A[i,k] W[k,j] accumulated in k order with FMAs, in float
 * -- the same sum, in another order of rounding, as cblas's (which also accumulates in float
 * with FMAs, in panel order). The order does not depend on the thread count (rows are split,
 * never k), so a model's results are the same at 1 and 2 threads.
 */
#include "gnnc.h"

#include <string.h>

enum { GEMM_ROWS = 6, GEMM_MAXV = 4 }; /* rows of C per block; 16-float vectors per row, at most */

/* The column vectors of a GEMM the generated loops take, or 0 (cblas): C = A . B, no
 * transposes, beta 0, N constant and a multiple of 16 up to 64, B and C dense (ld = N). */
static int narrow_vectors(const KGemm *g) {
  if (g->ta || g->tb || g->beta != 0.0f || g->n.dom != DOM_GLOBAL) return 0;
  int64_t n = g->n.mult;
  if (n < 16 || n > 16 * GEMM_MAXV || n % 16 || g->ldb != n || g->ldc != n) return 0;
  return (int)(n / 16);
}

/* One function per width the program's GEMMs use: gnn_gemm_n<N>(M, K, A, lda, B, C). */
void host_gemm_prelude(FILE *out, const KProgram *p) {
  bool want[GEMM_MAXV + 1] = {false};
  bool any = false;
  for (int i = 0; i < p->nsteps; i++)
    if (p->steps[i].kind == STEP_GEMM) {
      int nv = narrow_vectors(&p->steps[i].gemm);
      if (nv) want[nv] = any = true;
    }
  if (!any) return;
  fputs("\n/* Narrow projections C[M, N] = A[M, K] . B[K, N] (N = 16..64): six rows of C in registers,\n"
        " * one row of B and six broadcast elements of A per k (emit_host_gemm.c says why). */\n"
        "#if defined(__AVX512F__)\n#include <immintrin.h>\n#define GNN_NARROW_GEMM 1\n",
        out);
  for (int nv = 1; nv <= GEMM_MAXV; nv++) {
    if (!want[nv]) continue;
    int n = 16 * nv;
    fprintf(out,
            "static void gnn_gemm_n%d(int64_t M, int64_t K, const float *restrict A, int64_t lda, const float *restrict B,\n"
            "                        float *restrict C) {\n"
            "  const int64_t blocks = (M + %d) / %d;\n"
            "#pragma omp parallel for schedule(static)\n"
            "  for (int64_t blk = 0; blk < blocks; blk++) {\n"
            "    const int64_t i0 = blk * %d;\n"
            "    if (i0 + %d <= M) {\n"
            "      __m512 acc[%d][%d];\n"
            "      for (int r = 0; r < %d; r++)\n"
            "        for (int v = 0; v < %d; v++) acc[r][v] = _mm512_setzero_ps();\n"
            "      for (int64_t k = 0; k < K; k++) {\n"
            "        __m512 b[%d];\n"
            "        for (int v = 0; v < %d; v++) b[v] = _mm512_loadu_ps(B + k * %d + v * 16);\n"
            "        for (int r = 0; r < %d; r++) {\n"
            "          const __m512 a = _mm512_set1_ps(A[(i0 + r) * lda + k]);\n"
            "          for (int v = 0; v < %d; v++) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);\n"
            "        }\n"
            "      }\n"
            "      for (int r = 0; r < %d; r++)\n"
            "        for (int v = 0; v < %d; v++) _mm512_storeu_ps(C + (i0 + r) * %d + v * 16, acc[r][v]);\n"
            "    } else {\n"
            "      for (int64_t i = i0; i < M; i++) { /* the last rows, one at a time (same order of sums) */\n"
            "        __m512 acc[%d];\n"
            "        for (int v = 0; v < %d; v++) acc[v] = _mm512_setzero_ps();\n"
            "        for (int64_t k = 0; k < K; k++) {\n"
            "          const __m512 a = _mm512_set1_ps(A[i * lda + k]);\n"
            "          for (int v = 0; v < %d; v++) acc[v] = _mm512_fmadd_ps(a, _mm512_loadu_ps(B + k * %d + v * 16), acc[v]);\n"
            "        }\n"
            "        for (int v = 0; v < %d; v++) _mm512_storeu_ps(C + i * %d + v * 16, acc[v]);\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n",
            n, GEMM_ROWS - 1, GEMM_ROWS, GEMM_ROWS, GEMM_ROWS, GEMM_ROWS, nv, GEMM_ROWS, nv, nv, nv, n, GEMM_ROWS, nv,
            GEMM_ROWS, nv, n, nv, nv, nv, n, nv, n);
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
  int nv = narrow_vectors(g);
  if (nv) {
    fprintf(out, "#ifdef GNN_NARROW_GEMM\n    (void)N;\n    gnn_gemm_n%d(M, K, %s, %lld, %s, %s);\n#else\n", 16 * nv, emit_buf_ref(p, g->a),
            (long long)g->lda, emit_buf_ref(p, g->b), emit_buf_ref(p, g->c));
  }
  fprintf(out, "    cblas_sgemm(CblasRowMajor, %s, %s, M, N, K, 1.0f, %s, %lld, %s, %lld, %.1ff, %s, %lld);\n",
          g->ta ? "CblasTrans" : "CblasNoTrans", g->tb ? "CblasTrans" : "CblasNoTrans", emit_buf_ref(p, g->a), (long long)g->lda,
          emit_buf_ref(p, g->b), (long long)g->ldb, (double)g->beta, emit_buf_ref(p, g->c), (long long)g->ldc);
  if (nv) fputs("#endif\n", out);
  fputs("  }\n", out);
}
