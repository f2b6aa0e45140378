/* lower_tiles.c -- column tiles (--tile-columns=T; docs/kernel-ir.md, "Column tiles"), for the walk
 * kernels of lower_walk.c.
 *
 * A walk gathers a row of its source's features for every edge: GAT's first layer on a
 * Reddit-sized graph reads 256 floats per edge, 233k rows of 1 KB (239 MB) in no order the L2
 * (50-60 MB) can keep, so nearly every gather comes from DRAM. Walked in tiles of T columns, a
 * tile's rows are W / T times narrower and all of them fit the L2 (233k x 32 floats: 30 MB): the
 * kernel runs a group per (tile, row), tile-major, so every row's first tile is gathered before
 * any second tile, and the gathers hit the L2. The price: the graph's index stream and the narrow
 * values (the edge weights, a softmax's statistics, computed from a few floats per edge) are
 * walked once per tile. On the host the same schedule costs more than the cache saves (its walks
 * pay per edge, not per byte: docs/benchmarks.md), so it is for GPUs.
 *
 * A kernel is cut into tiles after it is built, as kernel IR: its lane loops over the gathered
 * width W (the widest lane loop that gathers inside a walk) run over T elements from the tile's
 * first column (KS_FOR_LANES.lo; the last tile ends at W where T does not divide it), their
 * register arrays shrink to T / G slots (a tile narrower than the group leaves lanes idle), and
 * everything else runs as it did, in every tile. That is the same computation, column for column
 * in the same order (results bit for bit the untiled kernel's), if every value made in a W loop
 * is used only by the same column in a W loop: scan_made and check_uses refuse a kernel otherwise
 * (a dot over the columns, a sum of a row's elements, a value passed to another column through
 * shared memory), and one with atomics (a narrow atomic would add once per tile), block-reduced
 * sums or hub rows in pieces. */
#include "lower_tiles.h"

#include <stdlib.h>

typedef struct {
  const Kernel *k;
  int64_t W;
  const char *why;     /* the first reason the kernel cannot be tiled, or NULL */
  bool *made_local;    /* per local: let inside a W loop */
  const KStmt **let_loop; /* per local: the W loop of its first let there (scalars: read in it only) */
  bool *made_shared;   /* per shared array: stored inside a W loop */
  bool *used_other;    /* per local: used outside W loops (an array must not be) */
  const KBuf *made_buf[32]; /* buffers stored inside a W loop */
  int nmade_buf;
} Tiler;

static void refuse(Tiler *t, const char *why) {
  if (!t->why) t->why = why;
}

static bool is_var(const KExpr *e, int var) { return e && e->kind == KE_VAR && e->var == var && !e->a; }

static bool made_buf(const Tiler *t, const KBuf *b) {
  for (int i = 0; i < t->nmade_buf; i++)
    if (t->made_buf[i] == b) return true;
  return false;
}

/* Pass 1: what the W loops make, and whether they make it column by column. */
static void scan_made(Tiler *t, const PtrVec *b, const KStmt *loop) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_FOR_LANES && s->count == t->W) {
      if (loop) refuse(t, "a lane loop inside another");
      if (s->lo) refuse(t, "a lane loop that already starts at a column of its own");
      scan_made(t, &s->body, s);
      continue;
    }
    if (loop) {
      switch (s->kind) {
      case KS_LET:
        if (t->k->locals[s->var].len && !is_var(s->idx, loop->var2)) refuse(t, "a register array written at another slot");
        if (!t->made_local[s->var]) t->let_loop[s->var] = loop;
        t->made_local[s->var] = true;
        break;
      case KS_SHSTORE:
        if (!is_var(s->idx, loop->var)) refuse(t, "a column's value passed to other columns through shared memory");
        t->made_shared[s->var] = true;
        break;
      case KS_STORE:
        if (!is_var(s->idx, loop->var)) refuse(t, "a store across columns");
        if (t->nmade_buf < 32) t->made_buf[t->nmade_buf++] = s->buf;
        else refuse(t, "too many buffers stored");
        break;
      case KS_FOR_LANES: refuse(t, "a lane loop of another width inside the tiled one"); break;
      case KS_FOR: case KS_IF: break;
      default: refuse(t, "a statement that mixes the lanes' columns"); break;
      }
    } else if (s->kind == KS_ATOMIC) {
      refuse(t, "an atomic update (each tile would add it again)");
    }
    if (s->kind == KS_ATOMIC && s->count == 1) refuse(t, "a block-reduced sum");
    if (s->kind == KS_FOR_LANES && s->lo) refuse(t, "a lane loop that already starts at a column of its own");
    scan_made(t, &s->body, loop);
  }
}

/* Pass 2: every use of what a W loop made is in a W loop, at the same column. */
static void check_expr(Tiler *t, const KExpr *e, const KStmt *loop) {
  if (!e) return;
  switch (e->kind) {
  case KE_VAR:
    if (!loop) t->used_other[e->var] = true;
    if (t->made_local[e->var]) {
      if (!loop) refuse(t, "a column's value read outside the column loops");
      else if (t->k->locals[e->var].len && !is_var(e->a, loop->var2)) refuse(t, "a register array read at another slot");
      else if (!t->k->locals[e->var].len && t->let_loop[e->var] != loop) refuse(t, "a lane's scalar read in another loop");
    }
    break;
  case KE_SHARED:
    if (t->made_shared[e->var] && (!loop || !is_var(e->a, loop->var))) refuse(t, "a column's value read by other columns");
    break;
  case KE_LOAD:
    if (made_buf(t, e->buf) && (!loop || !is_var(e->b, loop->var))) refuse(t, "a stored column read back by other columns");
    break;
  default: break;
  }
  check_expr(t, e->a, loop);
  check_expr(t, e->b, loop);
  check_expr(t, e->c, loop);
}
static void check_uses(Tiler *t, const PtrVec *b, const KStmt *loop) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    const KStmt *in = s->kind == KS_FOR_LANES && s->count == t->W ? s : loop;
    check_expr(t, s->row, loop);
    check_expr(t, s->idx, loop);
    check_expr(t, s->val, loop);
    check_expr(t, s->lo, loop);
    check_expr(t, s->hi, loop);
    if (!loop && (s->kind == KS_LET || s->kind == KS_FOR || s->kind == KS_GROUP_REDUCE || s->kind == KS_TICKET) && s->var >= 0)
      t->used_other[s->var] = true;
    if (s->kind == KS_GROUP_REDUCE && t->made_local[s->var]) refuse(t, "a reduction across the columns");
    check_uses(t, &s->body, in);
  }
}

/* The W loops from the tile's first column, T elements each. */
static void cut(Tiler *t, PtrVec *b, KExpr *first, int64_t T) {
  for (int i = 0; i < b->len; i++) {
    KStmt *s = b->items[i];
    if (s->kind == KS_FOR_LANES && s->count == t->W) s->lo = first, s->count = T;
    cut(t, &s->body, first, T);
  }
}

bool tile_columns(Lower *L, Kernel *k, int64_t T, int ntiles) {
  if ((T <= 0 && ntiles <= 1) || k->map != MAP_VERTEX || k->rows != DOM_VERTEX || k->col_tiles > 1) return false;
  int64_t W = kernel_gathered_width(k);
  int G = k->group;
  if (ntiles > 1) T = tile_width_for(W, ntiles, G); /* 0: no tile of whole lanes gives that count */
  if (ntiles <= 1 && W <= T) return false; /* nothing wider than a tile: no note (the usual case of a narrow layer) */
  Tiler t = {k, W, NULL, calloc((size_t)k->nlocals + 1, 1), calloc((size_t)k->nlocals + 1, sizeof(KStmt *)),
             calloc((size_t)k->nshared + 1, 1), calloc((size_t)k->nlocals + 1, 1), {NULL}, 0};
  if (k->pieces) refuse(&t, "its hub rows are in pieces (--split-hubs), which column tiles do not combine with");
  if (T <= 0 || W <= T) refuse(&t, "no tile of whole lane groups cuts it into that many");
  else if (T % G && T > G) refuse(&t, "the tile is neither a multiple of the kernel's lanes per group nor fewer");
  scan_made(&t, &k->body, NULL);
  check_uses(&t, &k->body, NULL);
  for (int i = 0; i < k->nlocals; i++) /* the W loops' register arrays, only there */
    if (t.made_local[i] && k->locals[i].len && (t.used_other[i] || (int64_t)k->locals[i].len != (W + G - 1) / G))
      refuse(&t, "a register array shared with other loops");
  const char *why = t.why;
  if (!why) {
    int first = add_local(L, k, "tile_lo", KT_I64, 0, true);
    KStmt *let = ks_new(L, &k->body, KS_LET); /* tile_lo = tile * T, the kernel's first statement */
    let->var = first;
    let->val = kbin(L, KO_MUL, ke_new(L, KE_TILE, KT_I64), ki(L, T));
    for (int i = k->body.len - 1; i > 0; i--) k->body.items[i] = k->body.items[i - 1];
    k->body.items[0] = let;
    cut(&t, &k->body, kvar(L, k, first, NULL), T);
    for (int i = 0; i < k->nlocals; i++)
      if (t.made_local[i] && k->locals[i].len) k->locals[i].len = (int)((T + G - 1) / G);
    k->col_tiles = (int)((W + T - 1) / T), k->col_tile = T, k->col_width = W; /* the last tile shorter if T does not divide W */
  } else if (L->c->diag.out) {
    fprintf(L->c->diag.out, "%s: note: kernel %s (%s) walks its %lld gathered columns whole although --tile-columns=%lld%s: %s\n",
            L->c->diag.path, k->name, k->what, (long long)W, (long long)T, ntiles > 1 ? " (auto)" : "", why);
  }
  free(t.made_local), free(t.let_loop), free(t.made_shared), free(t.used_other);
  return !why;
}
