/* pipeline.h -- the pipeline (pipeline.c): the passes in order with the verifier after each,
 * the dumps, then the lowering and the reports on its program: its table of passes and its
 * options. pipeline.c calls the passes (passes.h), the lowering (lower.h) and the readers
 * (kstats.h, gpucost.h); its declarations need only the passes'.
 */
#ifndef GNNC_PIPELINE_H
#define GNNC_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "ctx.h"
#include "passes.h"

/* A row of the table of passes (pass_table, in pipeline order). */
typedef struct {
  const char *name;
  PassFn run;
  bool optional;    /* switched off by -fno-NAME, and by -O0 unless kept_at_O0 */
  const char *doc;
  bool kept_at_O0;  /* not an optimisation (autodiff: it changes what is computed): -O0 keeps it */
} PassInfo;

extern const PassInfo pass_table[];
extern const int pass_count;

typedef struct {
  const char *print_before[16], *print_after[16];
  int nprint_before, nprint_after;
  bool print_after_all;
  bool time_passes;
  bool verify_each; /* run the verifier after every pass (on by default) */
  const char *disabled[16];
  int ndisabled;
  bool O0;
  bool stats;       /* print the cost model's totals after each pass, at |V| = stats_V, |E| = stats_E */
  bool stats_symbolic; /* ... and as polynomials in |V| and |E| (--stats=symbolic) */
  double stats_V, stats_E;
  FILE *out;        /* where dumps go */
  bool lower;       /* lower to the kernel IR after the passes (c->kprog) */
  bool remarks;     /* -Rpass-missed=fuse: say what fuse could not merge, and why */
  int mapping;      /* MappingChoice for lower */
  const int *edge_ids; /* --edge-balanced=ID,...: reductions to run edge-balanced (GnnCtx.edge_ids) */
  int nedge_ids;
  bool recompute_all; /* --recompute=all: checkpoint recomputes every value it can */
  int fold_dots;      /* FoldChoice (--fold-attention) */
  const char *input_grads; /* --input-grads=all|NAME,... (GnnCtx.input_grads) */
  double memory_budget; /* --memory-budget=BYTES (> 0): the fastest plan whose memory at stats_V, stats_E fits */
  bool print_plan;  /* --print-memory-plan V=,E=: the memory plan after lower */
  const char *gpu;       /* --gpu=h100|h200 with --graph FILE: gpucost_report after lower */
  bool split_hubs;       /* --split-hubs (GnnCtx.split_hubs) */
  bool serial_dots;      /* --dots=serial, or the host target without --dots (GnnCtx.serial_dots) */
  bool gemm_tf32;        /* --gemm-precision=tf32 (GnnCtx.gemm_tf32) */
  bool spmm_library;     /* --spmm=cusparse (GnnCtx.spmm_library) */
  int tile_columns;      /* --tile-columns=T (GnnCtx.tile_columns); -1: auto, by the GPU estimate of gpu on gpu_graph */
  const char *gpu_graph;
  int vector_loads;      /* --vector-loads=4 on the CUDA target (GnnCtx.vector_loads); 0: off */
  bool no_sum_staging;   /* --test-no-sum-staging, a hidden option for tests (GnnCtx.no_sum_staging) */
} PipelineOpts;

/* Runs sema and the pass pipeline. Returns the module, or NULL after errors. */
Module *gnn_compile(GnnCtx *c, const PipelineOpts *o);
bool pipeline_has_pass(const char *name);
/* True when o switches the pass off (-fno-NAME, or -O0 for an optimisation): it does not run. */
bool pipeline_pass_off(const PipelineOpts *o, const char *name);

#endif
