/* gnnrt_pieces.h -- how long a piece of a hub row is (gnnc --split-hubs): one formula for the
 * runtime, which cuts the rows (gnn_graph_make_pieces, graph.c), and the compiler's GPU estimate,
 * which prices the walks that way (gpucost.c). */
#ifndef GNNRT_PIECES_H
#define GNNRT_PIECES_H

#include <stdint.h>

/* Fewer pieces than this in a graph, and fewer than its vertices: the kernels' buffers of partial
 * results have a row per piece, min(nv, GNN_PIECES_MAX) rows in the arena (a float64 sum over 64
 * columns: 8 MB at most). */
#define GNN_PIECES_MAX 16384

/* A multiple of 32 (a walk's chunk is up to 32 edges), at least 32, at least 2E / GNN_PIECES_MAX
 * = E / 8192 and at least 2E / V: a row of d > L edges has ceil(d / L) < 2d / L pieces, the rows
 * together fewer than 2E / L, which is at most GNN_PIECES_MAX and at most V. E / 8192 is also
 * about one group's share of the edges on a GPU that runs 8,192 groups at once (an H100 or H200:
 * 132 SMs x 64 warps): shorter pieces would add merges without shortening the kernel, whose time is
 * then the edges over the groups. Cora (V 2,708, E 13,264 with self-loops): 32, its hub of 169
 * edges in 6 pieces. A Reddit-sized graph (232,965 / 114.8 M): 14,048, its hub of ~20,000 edges in
 * 2. (2E / V binds only on dense graphs: a multigraph of 10 vertices and 10,000 edges, 2,016.) */
static inline int64_t gnn_piece_len(int64_t nv, int64_t ne) {
  int64_t len = 32, share = (2 * ne + GNN_PIECES_MAX - 1) / GNN_PIECES_MAX, dense = nv > 0 ? (2 * ne + nv - 1) / nv : 0;
  if (share > len) len = share;
  if (dense > len) len = dense;
  return (len + 31) / 32 * 32;
}

#endif
