/* lower_walk.h -- the kernel of a walk group (lower_walk.c), above the hub pieces, the column
 * tiles and the fused lowering it builds on (lower_pieces.h, lower_tiles.h, lower_fused.h);
 * lower.c, the driver, calls it for each FG_WALK group. Internal to the compiler. */
#ifndef GNNC_LOWER_WALK_H
#define GNNC_LOWER_WALK_H

#include "lower_pieces.h"
#include "lower_tiles.h"

void lower_walk(Fused *F, const FuseGroup *g, Value **mem, int nmem);

#endif
