/* lower_tiles.h -- column tiles (--tile-columns) for the walk kernels: lower_tiles.c, built on the
 * kernel-building vocabulary (kbuild.h), called by lower_walk.c. Internal to the compiler. */
#ifndef GNNC_LOWER_TILES_H
#define GNNC_LOWER_TILES_H

#include "kbuild.h"

/* Cut the finished walk kernel k into column tiles of T (or, ntiles > 1, into ntiles tiles): its
 * lane loops over the gathered width run over one tile's columns, a group per (tile, row). False
 * if its gathered width is not wider than T, or (with a note saying why) if its columns are not
 * independent or the tiles do not divide them. */
bool tile_columns(Lower *L, Kernel *k, int64_t T, int ntiles);

#endif
