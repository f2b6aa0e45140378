/* lower_stage.h -- staging (lower_stage.c): values computed once per edge or row into shared
 * memory for the lane loops of a fused kernel that read them; what the walks (lower_walk.c) and
 * the other group kernels (lower_groups.c) call. Sits on lower_fused.h. Internal to the
 * compiler. */
#ifndef GNNC_LOWER_STAGE_H
#define GNNC_LOWER_STAGE_H

#include "lower_fused.h"

/* lower_stage.c */
int stage_rows(Fused *F, Value **mem, int nmem, const Ctx *cx, Value ***out);
int stage_row_pick(Fused *F, Value **mem, int nmem, Value ***out);
void stage_row_one(Fused *F, const Value *x, const Ctx *cx);
void stage_before(Fused *F, Value **st, int nst, bool *made_st, Value *v, const Ctx *cx); /* lower_groups.c */
int pick_stages(Fused *F, Value **mem, int nmem, const int *lanes, int w, Domain dom, Value **out, int slots);
void stage_walk(Fused *F, const Walk *wk, int dir, Value **st, int nst);
void unstage(Fused *F, Value **st, int nst);

#endif
