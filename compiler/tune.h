/* tune.h -- a tool on the pipeline (tune.c, --tune-mapping): compiles, builds and times the
 * plans. Above the pipeline (pipeline.h) and the builds (build.h).
 */
#ifndef GNNC_TUNE_H
#define GNNC_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "pipeline.h"
#include "build.h"

/* tune.c: --tune-mapping=GRAPH. Times the plans (all vertex-balanced, each reduction that can
 * run edge-balanced alone, the winners together) with gnn-run on graph and writes the fastest
 * plan's --edge-balanced ids to chosen; then that plan against it with each schedule the caller
 * did not ask for that changes its kernels (hub rows in pieces, column tiles of 64 and of 32,
 * SpMM steps), the fastest schedule into *split_hubs, *tile_columns or *spmm (unchanged when
 * none wins). Returns the
 * number of ids, or -1 after saying why. */
typedef struct {
  const char *path, *text;  /* the .gnn file and its text */
  size_t size;
  const char *model_name;
  const PipelineOpts *popts;
  const EmitOpts *eopts;
  const char *graph;        /* what gnn-run --graph loads */
  bool self_loops;          /* gnn-run --self-loops */
  int rounds, repeat;       /* interleaved rounds; gnn-run --repeat per timing */
  bool spmm_given;          /* --spmm given, either way: the caller's choice, not a schedule to time */
} TuneArgs;
int tune_mapping(const TuneArgs *t, int *chosen, int cap, bool *split_hubs, int *tile_columns, bool *spmm);

#endif
