/* lower_pieces.h -- hub rows in pieces (--split-hubs) for the walk kernels: lower_pieces.c, built on
 * the fused lowering (lower_fused.h), called by lower_walk.c. Internal to the compiler. */
#ifndef GNNC_LOWER_PIECES_H
#define GNNC_LOWER_PIECES_H

#include "lower_fused.h"

/* A walk's accumulators of one reduction (lower_walk.c makes them; the merge of the pieces reads them) */
typedef struct {
  int acc, aux;      /* accumulator (sum, max, best, softmax max) and its companion (arg, softmax sum) */
  KExpr *on_idx;     /* an online aggregate: where its term reads the softmax (in the walk's lane variable) */
  int on_kv;         /* that lane variable */
} WalkAcc;

/* Whether the walk group's first walk can run in pieces (--split-hubs, in-edges or out-edges, every
 * reduction of it mergeable; an argmax says why not in a note). */
bool pieces_ok(Fused *F, const FuseGroup *g, Value **mem, int nmem);
/* The rows' ticket counters and the step that zeroes them, before the kernel is made. */
KBuf *pieces_tickets(Fused *F, const FuseGroup *g, Value **mem, int nmem);
/* lo, hi of the kernel F->k: a piece's edges, or the vertex's. */
void piece_bounds(Lower *L, Kernel *k, int *lo, int *hi);
/* After the first walk: the pieces' partial results stored, the ticket, the last piece's merge;
 * lo and hi set to the whole row. Returns the uniform local `last`. */
int pieces_merge(Fused *F, const FuseGroup *g, Value **mem, int nmem, const WalkAcc *acc, KBuf *tickets, int lo, int hi);
/* At the end of the kernel: what follows the merge (from rest_from) runs under `last`, and the
 * body after the bounds (from body_from) only in a piece or a vertex not cut. */
void pieces_finish(Fused *F, int body_from, int rest_from, int last, int lo, int hi);

#endif
