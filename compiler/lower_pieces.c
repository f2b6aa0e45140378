/* lower_pieces.c -- hub rows in pieces (--split-hubs; docs/kernel-ir.md, "Hub rows in pieces"), for the
 * walk kernels of lower_walk.c.
 *
 * A vertex's group walks its edges (in-edges; out-edges in the backward's walks) one chunk after
 * another, so the kernel lasts at least as long as its longest row (a hub of 20,000 edges on a
 * Reddit-sized graph) however many groups the GPU runs beside it. With pieces, the graph lists
 * every row longer than its piece length cut into pieces, in the CSR and in the CSC
 * (gnn_graph_make_pieces); the kernel runs a group per piece first, then one per vertex
 * (a hub's own group does nothing). A piece's group walks its edges for the first walk as a row's
 * would, stores its partial results (the accumulators, for a softmax its running max and sum) in
 * a row of a buffer per accumulator, and draws a ticket on its row's counter; the group that draws
 * the row's last ticket merges the pieces' partial results in piece order (so the result does
 * not depend on which piece finished last) and goes on as the row's own group would, over the
 * whole row: the later walks (a stash walk when training) and the epilogue. A sum adds the
 * pieces' sums, a max takes their max, a softmax's sums and the aggregates accumulating with it
 * are rescaled to the largest of the pieces' maxima (the online softmax's own rule). */
#include "lower_pieces.h"
#include "gnnrt_pieces.h"

#include <math.h>
#include <stdlib.h>

/* Every reduction of the first walk has a merge: sums and means, max and min, softmaxes and the
 * aggregates accumulating online with them (argmax/argmin do not: their ties break by edge order
 * across the row). */
bool pieces_ok(Fused *F, const FuseGroup *g, Value **mem, int nmem) {
  if (!F->L->c->split_hubs || (g->dir != GATHER_BY_DST && g->dir != GATHER_BY_SRC)) return false;
  int n = 0;
  for (int i = 0; i < nmem; i++) {
    const Value *a = mem[i];
    if (a->sched != SCHED_ANCHOR || F->walk[a->id] != 1 || is_stat(F, a)) continue;
    if (a->op != OP_REDUCE_SCATTER && a->fn != FN_SUM && a->fn != FN_MEAN && a->fn != FN_MAX && a->fn != FN_MIN) {
      if (F->L->c->diag.out)
        fprintf(F->L->c->diag.out, "%s: note: %s keeps one group per row although --split-hubs: %s\n", F->L->c->diag.path,
                describe(F->L, a), "an argmax or argmin breaks its ties by edge order across the row, which pieces would not see");
      return false;
    }
    n++;
  }
  return n > 0;
}

/* The row offsets the kernel walks: in_ptr (in-edges) or out_ptr (out-edges). */
static KGraphArray rows_ptr(const Kernel *k) { return k->dir == GATHER_BY_SRC ? KG_OUT_PTR : KG_IN_PTR; }

/* lo, hi: a piece's edges, or the vertex's. */
void piece_bounds(Lower *L, Kernel *k, int *lo, int *hi) {
  *lo = add_local(L, k, "lo", KT_I64, 0, true);
  *hi = add_local(L, k, "hi", KT_I64, 0, true);
  KExpr *item = ke_new(L, KE_ITEM, KT_I64), *piece = kbin(L, KO_LT, item, ke_new(L, KE_NPIECES, KT_I64));
  KExpr *end = kgraph(L, k, rows_ptr(k), kbin(L, KO_ADD, krow(L), ki(L, 1)));
  KGraphArray plo = k->dir == GATHER_BY_SRC ? KG_OUT_PIECE_LO : KG_PIECE_LO;
  ks_let(L, &k->body, *lo, NULL, ksel(L, piece, kgraph(L, k, plo, item), kgraph(L, k, rows_ptr(k), krow(L))));
  ks_let(L, &k->body, *hi, NULL,
         ksel(L, piece, kbin(L, KO_MIN, kbin(L, KO_ADD, kvar(L, k, *lo, NULL), ke_new(L, KE_PIECE_LEN, KT_I64)), end), end));
}

/* A buffer of the pieces' partial results of accumulator `what` of a: a row of W per piece, fewer
 * pieces than min(nv, GNN_PIECES_MAX) (gnnrt_pieces.h), which is its size in the arena. */
static KBuf *piece_buf(Lower *L, const Value *a, const char *what, ElemType e, int64_t W, bool bwd) {
  KBuf *b = new_buf(L, BUF_TEMP, value_cname(L, a, "t", what), DOM_VERTEX, e, W, NULL);
  b->cross_group = true;
  b->rows_cap = GNN_PIECES_MAX;
  b->bwd = bwd;
  return b;
}

/* p[s, k] of a buffer of piece rows. */
static KExpr *piece_at(Lower *L, Kernel *k, KBuf *b, KExpr *s, KExpr *kk) { return kload(L, k, b, s, kk); }

/* After the first walk: a piece stores its partial results and draws its ticket; the last one
 * merges them. Appends to the kernel's body; returns the uniform local `last` (1 but in a piece
 * that is not its row's last), which the rest of the kernel runs under. */
int pieces_merge(Fused *F, const FuseGroup *g, Value **mem, int nmem, const WalkAcc *acc, KBuf *tickets, int lo, int hi) {
  Lower *L = F->L;
  Kernel *k = F->k;
  KExpr *item = ke_new(L, KE_ITEM, KT_I64), *plen = ke_new(L, KE_PIECE_LEN, KT_I64);
  int last = add_local(L, k, "last", KT_I64, 0, true);
  ks_let(L, &k->body, last, NULL, ki(L, 1));
  PtrVec *pb = ks_uniform_if(L, &k->body, kbin(L, KO_LT, item, ke_new(L, KE_NPIECES, KT_I64)));
  KBuf **part = calloc((size_t)nmem, sizeof(KBuf *)), **psum = calloc((size_t)nmem, sizeof(KBuf *));
  for (int i = 0; i < nmem; i++) {
    const Value *a = mem[i];
    if (a->sched != SCHED_ANCHOR || F->walk[a->id] != 1 || is_stat(F, a)) continue;
    int64_t W = width_of(a);
    bool soft = a->op == OP_REDUCE_SCATTER, sum = a->fn == FN_SUM || a->fn == FN_MEAN;
    part[i] = piece_buf(L, a, soft ? "_pieces_max" : "_pieces", soft || !sum ? ELEM_F32 : ELEM_F64, W, g->bwd);
    if (soft) psum[i] = piece_buf(L, a, "_pieces_sum", ELEM_F64, W, g->bwd);
    int kv, iv;
    PtrVec *st = ks_lanes(L, k, pb, W, &kv, &iv);
    KExpr *kk = kvar(L, k, kv, NULL), *slot = kvar(L, k, iv, NULL);
    ks_store(L, k, st, part[i], item, kk, kvar(L, k, acc[a->id].acc, slot));
    if (soft) ks_store(L, k, st, psum[i], item, kk, kvar(L, k, acc[a->id].aux, slot));
  }
  /* the row's first piece and its count: pieces are cut at multiples of piece_len from the row's start */
  KExpr *rlo = kgraph(L, k, rows_ptr(k), krow(L)), *rhi = kgraph(L, k, rows_ptr(k), kbin(L, KO_ADD, krow(L), ki(L, 1)));
  int first = add_local(L, k, "first", KT_I64, 0, true), np = add_local(L, k, "npiece", KT_I64, 0, true);
  int tk = add_local(L, k, "ticket", KT_I64, 0, true);
  ks_let(L, pb, first, NULL, kbin(L, KO_SUB, item, kbin(L, KO_DIV, kbin(L, KO_SUB, kvar(L, k, lo, NULL), rlo), plen)));
  ks_let(L, pb, np, NULL, kbin(L, KO_DIV, kbin(L, KO_ADD, kbin(L, KO_SUB, rhi, rlo), kbin(L, KO_SUB, plen, ki(L, 1))), plen));
  KStmt *t = ks_new(L, pb, KS_TICKET);
  t->var = tk;
  t->buf = tickets;
  t->row = kvar(L, k, first, NULL);
  use_buf(k, tickets, L);
  ks_let(L, pb, last, NULL, kbin(L, KO_EQ, kvar(L, k, tk, NULL), kbin(L, KO_SUB, kvar(L, k, np, NULL), ki(L, 1))));
  PtrVec *mb = ks_uniform_if(L, pb, kbin(L, KO_NE, kvar(L, k, last, NULL), ki(L, 0)));
  int sv = add_local(L, k, "s", KT_I64, 0, true);
  KExpr *s0 = kvar(L, k, first, NULL), *s1 = kbin(L, KO_ADD, kvar(L, k, first, NULL), kvar(L, k, np, NULL));
  for (int i = 0; i < nmem; i++) {
    const Value *a = mem[i];
    if (!part[i]) continue;
    int64_t W = width_of(a);
    bool soft = a->op == OP_REDUCE_SCATTER;
    const Value *sm = F->online[a->id];
    int kv, iv;
    if (!soft && !sm) { /* a sum adds the pieces', a max takes theirs */
      PtrVec *init = ks_lanes(L, k, mb, W, &kv, &iv);
      ks_let(L, init, acc[a->id].acc, kvar(L, k, iv, NULL), reduce_init(L, a->fn));
      PtrVec *lp = ks_lanes(L, k, ks_for(L, k, mb, sv, s0, s1), W, &kv, &iv);
      KExpr *slot = kvar(L, k, iv, NULL);
      ks_let(L, lp, acc[a->id].acc, slot,
             reduce_step(L, a->fn, kvar(L, k, acc[a->id].acc, slot), piece_at(L, k, part[i], kvar(L, k, sv, NULL), kvar(L, k, kv, NULL))));
      continue;
    }
    /* a softmax (its own elements) or an aggregate accumulating with one (element j of the
     * softmax per element k: on_idx): the largest of the pieces' maxima, then each piece's sum
     * (aggregate) rescaled to it, exp(max_piece - max) (1 where they are equal: -inf included) */
    KBuf *mxb = soft ? part[i] : NULL;
    if (sm)
      for (int j = 0; j < nmem; j++)
        if (mem[j] == sm) mxb = part[j];
    int m = add_local(L, k, "mall", KT_F32, (int)((W + k->group - 1) / k->group), false);
    PtrVec *init = ks_lanes(L, k, mb, W, &kv, &iv);
    ks_let(L, init, m, kvar(L, k, iv, NULL), kf(L, -INFINITY));
    PtrVec *lp = ks_lanes(L, k, ks_for(L, k, mb, sv, s0, s1), W, &kv, &iv);
    KExpr *slot = kvar(L, k, iv, NULL), *jx = sm ? subst_var(L, k, acc[a->id].on_idx, acc[a->id].on_kv, kv) : kvar(L, k, kv, NULL);
    ks_let(L, lp, m, slot, reduce_step(L, FN_MAX, kvar(L, k, m, slot), piece_at(L, k, mxb, kvar(L, k, sv, NULL), jx)));
    int sumv = soft ? acc[a->id].aux : acc[a->id].acc;
    init = ks_lanes(L, k, mb, W, &kv, &iv);
    ks_let(L, init, sumv, kvar(L, k, iv, NULL), kf(L, 0));
    lp = ks_lanes(L, k, ks_for(L, k, mb, sv, s0, s1), W, &kv, &iv);
    slot = kvar(L, k, iv, NULL);
    jx = sm ? subst_var(L, k, acc[a->id].on_idx, acc[a->id].on_kv, kv) : kvar(L, k, kv, NULL);
    int q = add_local(L, k, "q", KT_F32, 0, false);
    ks_let(L, lp, q, NULL, piece_at(L, k, mxb, kvar(L, k, sv, NULL), jx));
    KExpr *qv = kvar(L, k, q, NULL), *mv = kvar(L, k, m, slot);
    KExpr *f = ksel(L, kbin(L, KO_EQ, qv, mv), kf(L, 1.0), kun(L, KU_EXP, kbin(L, KO_SUB, qv, mv)));
    KExpr *term = piece_at(L, k, soft ? psum[i] : part[i], kvar(L, k, sv, NULL), kvar(L, k, kv, NULL));
    ks_let(L, lp, sumv, slot, kbin(L, KO_ADD, kvar(L, k, sumv, slot), kbin(L, KO_MUL, term, kun(L, KU_TO_F64, f))));
    if (soft) {
      init = ks_lanes(L, k, mb, W, &kv, &iv);
      ks_let(L, init, acc[a->id].acc, kvar(L, k, iv, NULL), kvar(L, k, m, kvar(L, k, iv, NULL)));
    }
  }
  free(part);
  free(psum);
  /* from here on, the whole row */
  ks_let(L, &k->body, lo, NULL, kgraph(L, k, rows_ptr(k), krow(L)));
  ks_let(L, &k->body, hi, NULL, kgraph(L, k, rows_ptr(k), kbin(L, KO_ADD, krow(L), ki(L, 1))));
  return last;
}

/* Moves the statements of blk from `from` on into a uniform `if cond`. */
static void wrap_from(Lower *L, PtrVec *blk, int from, KExpr *cond) {
  KStmt *iff = arena_alloc(L->a, sizeof(KStmt));
  iff->kind = KS_IF;
  iff->lo = cond;
  iff->count = 1;
  for (int i = from; i < blk->len; i++) vec_push(L->a, &iff->body, blk->items[i]);
  blk->len = from;
  vec_push(L->a, blk, iff);
}

KBuf *pieces_tickets(Fused *F, const FuseGroup *g, Value **mem, int nmem) {
  Lower *L = F->L;
  KBuf *tickets = NULL;
  for (int i = 0; i < nmem && !tickets; i++)
    if (mem[i]->sched == SCHED_ANCHOR && F->walk[mem[i]->id] == 1 && !is_stat(F, mem[i]))
      tickets = new_buf(L, BUF_TEMP, value_cname(L, mem[i], "t", "_tickets"), DOM_VERTEX, ELEM_I32, 1, NULL);
  tickets->rows_cap = GNN_PIECES_MAX;
  tickets->bwd = g->bwd;
  KStep *z = add_step(L, STEP_ZERO, "the hub rows' tickets", g->bwd);
  z->buf = tickets;
  return tickets;
}

void pieces_finish(Fused *F, int body_from, int rest_from, int last, int lo, int hi) {
  Lower *L = F->L;
  Kernel *k = F->k;
  wrap_from(L, &k->body, rest_from, kbin(L, KO_NE, kvar(L, k, last, NULL), ki(L, 0)));
  KExpr *item = ke_new(L, KE_ITEM, KT_I64);
  wrap_from(L, &k->body, body_from,
            kbin(L, KO_OR, kbin(L, KO_LT, item, ke_new(L, KE_NPIECES, KT_I64)),
                 kbin(L, KO_LE, kbin(L, KO_SUB, kvar(L, k, hi, NULL), kvar(L, k, lo, NULL)), ke_new(L, KE_PIECE_LEN, KT_I64))));
}
