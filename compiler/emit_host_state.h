/* emit_host_state.h -- the host C backend's own header: the state of one kernel's printing, shared by
 * the files of compiler/emit_host*.c, each one job, each calling only the ones below it:
 *   emit_host.c           the kernels' statements and loops, the prelude, the hooks (top)
 *   emit_host_prefetch.c  which gathered rows the walks ask for ahead, and those prefetches
 *   emit_host_lanes.c     which loops may print flat, vectorised or fused (analysis only)
 *   emit_host_expr.c      expressions, locals, and queries on the kernel IR's trees (bottom)
 *   emit_host_gemm.c      the narrow GEMM loops (alone: the prelude prints them)
 * Nothing outside the host backend includes it. */
#ifndef GNNC_EMIT_HOST_STATE_H
#define GNNC_EMIT_HOST_STATE_H

#include "kir.h"

#include <stdio.h>

typedef struct {
  const Kernel *k;
  int *region;       /* per local: the region it was first used in (0 = none yet) */
  bool *promote;     /* per local: used in two regions (or by a group reduction): an array over lanes */
  bool *loopvar;     /* per local: a loop variable (declared in its loop header) */
  bool *used;
  int nregion;       /* regions numbered by scan_block */
  int cur;           /* and counted again, in the same order, by emit_block */
  int flat_k, flat_i; /* inside a flat lane loop (emit_flat_lanes): its k and i locals; else -1 */
  int64_t split;     /* inside a flat loop split by C (k / C and k % C in it): C; else 0 */
  int training;      /* inside an unswitched flat lane loop: the training flag's value (0, 1); else -1 */
  struct PfRow *pf;  /* per shared array, PF_MAX rows (buf NULL-padded) gathered through it: prefetched */
  struct PfRow *pfe[2]; /* an edge-balanced kernel's rows read at src[row] (0), dst[row] (1): PF_MAX each */
  const KExpr **stage; /* per shared array: the value its one store in a walk stages (see pf_walk); else NULL */
  int walk_ptr;        /* a vertex-mapped walk's offsets (KG_IN_PTR, KG_OUT_PTR) for the prefetch ahead; else -1 */
  bool staged;         /* inside the scalar loop over a chunk's staged edges (emit_for) */
  bool *terms;         /* per local: a sum whose terms go to gnn_terms_<name>[gnn_q] (emit_edge_lanes); else NULL */
  int el_t, el_k;      /* inside such a loop: the edge loop's t and the lane loop's k, */
  int64_t el_h;        /* and the lane count H (t * H + k prints as gnn_q); else 0 */
  const KExpr *flat_lo; /* inside a flat lane loop: its first element (a column tile's, KS_FOR_LANES.lo),
                           or NULL: from 0 */
} HostK;

/* At most this many buffers are prefetched per staged id, this many bytes of each row; an
 * edge-balanced kernel asks for the rows of the edge this many rows ahead. */
enum { PF_MAX = 4, PF_ROW_BYTES = 512, PF_EDGE_AHEAD = 16 };

/* A buffer's row read through an id (see pf_scan): the elements [lo, hi] of the row that the
 * kernel's loads can reach, and whether the id is also read after its chunk's barrier (a
 * uniform `u = sh_u[t]`: the rows are asked for at the staging store) or only by the staging
 * region itself (`su = sh_u[lane]`, read a few instructions after the store: only the rows
 * ahead are worth asking for). */
typedef struct PfRow {
  const KBuf *buf;
  int64_t lo, hi;
  bool at_store;
  const char *tile_lo; /* a kernel in column tiles, a row its tiled loops gather: the local holding the
                          tile's first column (the prefetch asks for the tile's elements); else NULL */
} PfRow;

static inline void ind(FILE *out, int d) {
  for (int i = 0; i < d; i++) fputs("  ", out);
}

static inline const char *ctype(KType t) { return ktype_c(t); }

/* emit_host_expr.c */
void host_expr(FILE *out, const HostK *h, const KExpr *e);
void host_var(FILE *out, const HostK *h, int v, const KExpr *idx);
void host_sub(FILE *out, const HostK *h, const KExpr *e);
bool stmt_uniform(const HostK *h, const KStmt *s);
bool reads_var(const KExpr *e, int var);
bool reads_shared_array(const KExpr *e, int sh);
bool stmt_has_training(const KStmt *s);
int training_if_taken(const HostK *h, const KStmt *s);
bool edge_lane_index(const KExpr *x, int t, int k, int64_t nh);

/* emit_host_lanes.c */
bool has_lanes(const HostK *h, const PtrVec *b);
bool region_local(const HostK *h, int v, int region);
bool *flat_region(const HostK *h, const PtrVec *b, int i, int end, int region);
int64_t split_stmts(const PtrVec *b, int kvar, int64_t n);
bool simd_ok(const HostK *h, const KStmt *s, int region);
const KExpr *pairwise_sum_addend(const HostK *h, const KStmt *s);
const KStmt *edge_lanes_of(HostK *h, const KStmt *s, int region, bool *terms, int *slots);
bool reads_promoted(const HostK *h, const KExpr *e, int v);

/* emit_host_prefetch.c */
void pf_scan(HostK *h);
void pf_ahead(FILE *out, HostK *h, const KStmt *s, int d);
void pf_row_end(FILE *out, const PfRow *r);

#endif
