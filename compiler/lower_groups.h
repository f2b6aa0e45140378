/* lower_groups.h -- the kernels of the fused groups other than walks (lower_groups.c), above the
 * fused lowering they build on (lower_fused.h); lower.c, the driver, calls one per group of
 * these kinds. Internal to the compiler. */
#ifndef GNNC_LOWER_GROUPS_H
#define GNNC_LOWER_GROUPS_H

#include "lower_fused.h"

void lower_rows(Fused *F, const FuseGroup *g, Value **mem, int nmem);
void lower_sink(Fused *F, const FuseGroup *g, Value **mem, int nmem);
void lower_edge_reduce(Fused *F, const FuseGroup *g, Value *v);
void lower_folded_gemm(Fused *F, const FuseGroup *g, Value **mem, int nmem);

#endif
