/* gpucost.h -- a reader of the kernel IR (gpucost.c): a kernel program's time on a GPU, and the
 * column tiles --tile-columns=auto chooses from it. Above the kernel IR.
 */
#ifndef GNNC_GPUCOST_H
#define GNNC_GPUCOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kir.h"

/* gpucost.c: --gpu=NAME --graph FILE: each step's DRAM and L2 bytes and time on that GPU, the
 * gathered rows through a simulated L2 over the graph's own index stream. False after saying why. */
bool gpucost_report(FILE *out, const KProgram *p, const char *gpu, const char *graph_path);
bool gpucost_known(const char *gpu);
const char *gpucost_names(void);
/* --tile-columns=auto: for each walk kernel of p (untiled), the column tiles (2, 4 or 8, that
 * lower_tiles.c can cut its gathered width into: tile_width_for) whose estimate on the graph is at least 5%
 * faster than the kernel's, in out[kernel id] (tiles 0: none; out has p's kernel count), with the
 * estimate's figures for the note the pipeline prints. False after saying why (a graph it cannot
 * read). */
typedef struct {
  int tiles;
  double ms, tiled_ms, miss, tiled_miss; /* the estimate whole and in those tiles; misses: of the edges */
} TileChoice;
bool gpucost_choose_tiles(const KProgram *p, const char *gpu, const char *graph_path, TileChoice *out);
/* Then, p lowered with those choices: a kernel whose compiled tiles are not 5% faster than it was
 * whole loses its choice (tiles 0); the others' notes get the compiled figures. Returns how many
 * lost theirs (the caller lowers again), or -1 after saying why. */
int gpucost_check_tiles(const KProgram *p, const char *gpu, const char *graph_path, TileChoice *out);
/* Misses of an index stream through a 16-way LRU cache of `rows` lines (tests/unit). */
int64_t gpucost_misses(const int32_t *stream, int64_t n, int64_t rows);

#endif
