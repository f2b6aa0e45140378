/* emit_host_prefetch.c -- the host C backend's prefetches: which rows a kernel gathers through
 * a staged id or an edge's ends (pf_scan, once per kernel), and the __builtin_prefetch lines that
 * ask for them ahead (printed by emit_host.c at the staging stores and edge rows). Calls only
 * emit_host_expr.c (emit_host_state.h). */
#include "emit_host_state.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- prefetch of the staged rows
 *
 * A walk over a row's edges stages a chunk of them in shared arrays (sh_e[lane] = the edge,
 * sh_u[lane] = its other end), then takes them one at a time, the lanes reading the other end's
 * row (`u = sh_u[t]`, then `t8[u, k]`). On a graph larger than the caches each such row is a
 * random read of memory, and the walk waits for one after the other. The staging region holds
 * the chunk's ids before the walk reads them, so each lane there asks for the rows its id will
 * be read through (__builtin_prefetch: a hint that never faults): a chunk of rows in flight
 * instead of one. Found per kernel: a uniform local set only from one shared integer array, and
 * the buffers loaded with that local as their row. An edge-balanced kernel (a group per edge,
 * `u = src[row]`, then `t4[u, k]`) has no staging: each row asks for the rows of the edge
 * PF_EDGE_AHEAD rows ahead (the OpenMP schedule is static: the same thread's next edges). */

/* A walk's chunk holds only the row's edges, and most rows of a power-law graph have a few: the
 * prefetch of the staged rows (above) has the chunk's rows in flight, two or three where the
 * median in-degree is 2, and each walk then waits for them. A vertex-mapped walk's edges are
 * consecutive across its rows (rows in order, each row's edges [ptr[row], ptr[row + 1])), so
 * each staged id also asks for the rows of the edge PF_WALK_AHEAD positions further on, most
 * often one of the next rows' -- the rows the walk reads a little later, in flight across row
 * boundaries. The staged id is G[sh_e[lane]] (G: src or dst) where sh_e[lane] was the edge
 * counter jj (CSR) or out_eid[jj] (CSC); ahead, G[jj + A] or G[out_eid[jj + A]] (whose
 * dst[...] entry is itself a random read: asked for 2 * A ahead). Bounded by ptr[nrows], the
 * edge count (unsigned: never a read outside the arrays); a chunk's last rows ask for the next
 * chunk's edges, which another thread may walk: a wasted hint. GCN's aggregations on the R-MAT
 * graph of issue 28, 1 thread: docs/benchmarks.md. */
enum { PF_WALK_AHEAD = 16 };
#define PF_STAGE_MANY ((const KExpr *)&pf_stage_many)
static const KExpr pf_stage_many; /* a shared array stored more than once, or not an id: no prefetch ahead */
/* The staged value ahead must index an array of ne entries: an int64 local (read as jj + A < ne)
 * or out_eid[jj] (an edge id), never src[...] or dst[...] (a vertex id: dst[vertex] could pass
 * the end of dst where nv > ne). */

static bool pf_edge_array(KGraphArray g) { return g == KG_SRC || g == KG_DST || g == KG_OUT_EID || g == KG_OUT_DST; }

static void pf_walk(HostK *h, const PtrVec *b, bool in_walk) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_SHSTORE) {
      const KExpr *v = s->val, **st = &h->stage[s->var];
      bool ok = in_walk && !*st && ((v->kind == KE_VAR && !v->a && v->type == KT_I64) ||
                                    (v->kind == KE_GRAPH && v->garr == KG_OUT_EID && v->a->kind == KE_VAR && !v->a->a));
      *st = ok ? v : PF_STAGE_MANY;
    }
    pf_walk(h, &s->body, in_walk || (s->kind == KS_FOR && s->walk));
  }
}

/* The prefetch ahead of a staged id's store s (see pf_walk), when it is one. */
void pf_ahead(FILE *out, HostK *h, const KStmt *s, int d) {
  const KExpr *v = s->val, *e = NULL;
  if (h->walk_ptr < 0 || !h->pf[s->var * PF_MAX].buf || v->kind != KE_GRAPH || !pf_edge_array(v->garr)) return;
  if (v->a->kind == KE_VAR && !v->a->a && v->a->type == KT_I64) e = v->a; /* out_dst[jj]: the counter itself */
  else if (v->a->kind == KE_SHARED) e = h->stage[v->a->var];
  if (!e || e == PF_STAGE_MANY) return;
  const KExpr *j = e->kind == KE_VAR ? e : e->a; /* the edge counter */
  if (e->kind == KE_GRAPH) { /* out_eid[jj + 2A]'s entry of dst, asked for before it is read */
    ind(out, d);
    fputs("if ((uint64_t)(", out);
    host_expr(out, h, j);
    fprintf(out, " + %d) < (uint64_t)gnn_pf_ne) __builtin_prefetch(&%s[%s[", 2 * PF_WALK_AHEAD, kgraph_name[v->garr], kgraph_name[e->garr]);
    host_expr(out, h, j);
    fprintf(out, " + %d]]);\n", 2 * PF_WALK_AHEAD);
  }
  ind(out, d);
  fputs("if ((uint64_t)(", out);
  host_expr(out, h, j);
  fprintf(out, " + %d) < (uint64_t)gnn_pf_ne) {\n", PF_WALK_AHEAD);
  ind(out, d + 1);
  fprintf(out, "const int64_t gnn_pf_u = %s[", kgraph_name[v->garr]);
  if (e->kind == KE_GRAPH) fprintf(out, "%s[", kgraph_name[e->garr]);
  host_expr(out, h, j);
  fprintf(out, " + %d]%s;\n", PF_WALK_AHEAD, e->kind == KE_GRAPH ? "]" : "");
  for (int i = 0; i < PF_MAX && h->pf[s->var * PF_MAX + i].buf; i++) {
    ind(out, d + 1);
    fprintf(out, "gnn_prefetch_row(&%s[gnn_pf_u", h->pf[s->var * PF_MAX + i].buf->name);
    pf_row_end(out, &h->pf[s->var * PF_MAX + i]);
  }
  ind(out, d);
  fputs("}\n", out);
}

static void pf_lets(const HostK *h, const PtrVec *b, int *from, bool *late) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    /* u = sh_u[t] in the loop over the chunk's edges (uniform), or su = sh_u[lane] where the
     * staging region itself reads at the far end (a walk over out-edges: the attention
     * statistics and the edge values of GAT's backward at out_eid[jj], each a random read) */
    const KExpr *sv = s->val;
    bool staged_lane = s->kind == KS_LET && sv->kind == KE_SHARED && sv->a && sv->a->kind == KE_LANE;
    if (s->kind == KS_LET && (h->k->locals[s->var].uniform || staged_lane)) {
      const KExpr *v = s->val;
      int src = v->kind == KE_SHARED && !s->idx && h->k->shared[v->var].type == KT_I64 ? v->var : -2;
      if (v->kind == KE_GRAPH && (v->garr == KG_SRC || v->garr == KG_DST) && v->a->kind == KE_ROW && h->k->rows == DOM_EDGE)
        src = -3 - (v->garr == KG_DST); /* an edge-balanced kernel's src[row] (-3) or dst[row] (-4) */
      from[s->var] = from[s->var] == -1 || from[s->var] == src ? src : -2; /* -2: set from elsewhere too */
      late[s->var] |= !staged_lane;
    }
    pf_lets(h, &s->body, from, late);
  }
}

/* The elements of a row an element index can reach, [*lo, *hi] (constants, loop variables in
 * [0, ub), their sums and their products with a constant >= 0: k * 16 + j), or false: anywhere
 * in the row. */
static bool pf_cols(const KExpr *e, int64_t *lo, int64_t *hi) {
  int64_t al, ah, bl, bh;
  switch (e->kind) {
  case KE_ICONST: *lo = *hi = e->i; return true;
  case KE_VAR: if (e->a || e->i <= 0) return false; *lo = 0, *hi = e->i - 1; return true;
  case KE_BIN:
    if ((e->op != KO_ADD && e->op != KO_MUL) || !pf_cols(e->a, &al, &ah) || !pf_cols(e->b, &bl, &bh)) return false;
    if (e->op == KO_ADD) {
      *lo = al + bl, *hi = ah + bh;
      return true;
    }
    if (al < 0 || bl < 0) return false; /* products of ranges >= 0: the ends' products */
    *lo = al * bl, *hi = ah * bh;
    return true;
  default: return false;
  }
}

static void pf_loads(HostK *h, const KExpr *e, const int *from, const bool *late) {
  if (!e) return;
  int f = e->kind == KE_LOAD && e->a && e->a->kind == KE_VAR && !e->a->a ? from[e->a->var] : -1;
  if (f >= 0 || f <= -3) {
    PfRow *l = f >= 0 ? &h->pf[f * PF_MAX] : h->pfe[-3 - f];
    int64_t lo, hi, w = e->buf->width;
    if (!e->b || !pf_cols(e->b, &lo, &hi) || lo < 0 || hi >= w) lo = 0, hi = w - 1;
    for (int i = 0; i < PF_MAX; i++) {
      if (!l[i].buf) l[i] = (PfRow){e->buf, lo, hi, false, NULL};
      if (l[i].buf != e->buf) continue;
      l[i].lo = lo < l[i].lo ? lo : l[i].lo, l[i].hi = hi > l[i].hi ? hi : l[i].hi;
      l[i].at_store |= late[e->a->var];
      break;
    }
  }
  pf_loads(h, e->a, from, late);
  pf_loads(h, e->b, from, late);
  pf_loads(h, e->c, from, late);
}

static void pf_stmts(HostK *h, const PtrVec *b, const int *from, const bool *late) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    pf_loads(h, s->row, from, late), pf_loads(h, s->idx, from, late), pf_loads(h, s->val, from, late);
    pf_loads(h, s->lo, from, late), pf_loads(h, s->hi, from, late);
    pf_stmts(h, &s->body, from, late);
  }
}

/* The end of a prefetch of a row's reachable elements, after `&buf[id`: ` * W + lo], bytes);`. */
void pf_row_end(FILE *out, const PfRow *r) {
  int64_t bytes = (r->hi - r->lo + 1) * (r->buf->elem == ELEM_F64 ? 8 : 4);
  fprintf(out, " * %lld", (long long)r->buf->width);
  if (r->tile_lo) fprintf(out, " + %s", r->tile_lo);
  if (r->lo) fprintf(out, " + %lld", (long long)r->lo);
  fprintf(out, "], %lld);\n", (long long)(bytes < PF_ROW_BYTES ? bytes : PF_ROW_BYTES));
}

void pf_scan(HostK *h) {
  int *from = malloc(((size_t)h->k->nlocals + 1) * sizeof(int));
  bool *late = calloc((size_t)h->k->nlocals + 1, 1);
  for (int i = 0; i <= h->k->nlocals; i++) from[i] = -1;
  pf_lets(h, &h->k->body, from, late);
  pf_stmts(h, &h->k->body, from, late);
  free(from);
  free(late);
  const Kernel *k = h->k;
  /* a kernel in column tiles: a row its tiled loops gather whole is asked for a tile at a time,
   * from the tile's first column (lower_tiles.c's first statement, tile_lo = tile * T) */
  int first = kernel_tile_first(k);
  if (first >= 0)
    for (int side = -1; side < 2; side++) {
      PfRow *rows = side < 0 ? h->pf : h->pfe[side];
      int n = side < 0 ? k->nshared * PF_MAX : PF_MAX;
      for (int i = 0; i < n; i++)
        if (rows[i].buf && rows[i].buf->width == k->col_width && rows[i].lo == 0 && rows[i].hi == k->col_width - 1)
          rows[i].tile_lo = k->locals[first].name, rows[i].hi = k->col_tile - 1;
    }
  int ptr = k->dir == GATHER_BY_DST ? KG_IN_PTR : k->dir == GATHER_BY_SRC ? KG_OUT_PTR : -1;
  h->walk_ptr = k->map == MAP_VERTEX && k->rows == DOM_VERTEX && ptr >= 0 && k->graph[ptr] ? ptr : -1;
  if (h->walk_ptr >= 0) pf_walk(h, &k->body, false);
}
