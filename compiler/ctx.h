/* ctx.h -- the compilation context (GnnCtx): the options every pass and the lowering read, and
 * what one compilation makes (tree, module, kernel program). The pipeline owns it (pipeline.c:
 * gnn_ctx_init, gnn_ctx_free); the parser's entry (gnn_parse, lexer.l) fills in the tree. Above
 * the operator IR.
 *
 * The compiler is a straight pipeline over one compilation context (GnnCtx): no globals.
 *   source text --lexer.l/parser.y--> AST --sema--> operator IR --passes--> operator IR
 * and the float64 interpreter (interp.c) evaluates the operator IR on a graph.
 *
 * Memory: every AST node and IR value lives in the context's arena and is freed in one go
 * with the context (gnn_ctx_free). Nothing else is heap-allocated for the lifetime of a
 * compilation, so an error path never has to free anything by hand.
 */
#ifndef GNNC_CTX_H
#define GNNC_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "ast.h"
#include "ir.h"

typedef struct KProgram KProgram;
typedef struct {
  Arena arena;
  Diag diag;
  Program *prog;
  Module *mod;
  KProgram *kprog;        /* the kernel IR, when the pipeline lowered the module */
  const char *model_name; /* --model=NAME; NULL = the last model in the file */
  long value_budget;      /* sema's limit on IR values + statements + layer instances: no input
                             can blow up time or memory */
  int mapping;            /* MappingChoice (--mapping), for fuse and lower */
  const int *edge_ids;    /* --edge-balanced=ID,...: these reductions edge-balanced whatever --mapping says */
  int nedge_ids;          /*   (the mapping tuner's plans, compiler/tune.c) */
  bool remarks;           /* -Rpass-missed=fuse: notes on what fuse left unfused, and why */
  int recompute_level;    /* checkpoint: 0 the cost model (default), 1 recompute all it can */
  int fold_dots;          /* FoldChoice (--fold-attention): fuse folds attention dots into GEMMs */
  const char *input_grads; /* --input-grads=all|NAME,...: autodiff also derives these inputs' adjoints
                              (outputs "grad_input.<name>"); NULL: parameters only (the default) */
  bool split_hubs;        /* --split-hubs: walks split hub rows into pieces (lower_walk.c) */
  bool no_sum_staging;    /* --test-no-sum-staging (hidden, for tests: not in --help, docs/gnnc.1, "Hidden
                             options for tests"): pick_stages leaves row sums read inside other row sums'
                             loops unstaged (lower_stage.c), so that tests/suites/fuse.sh can check
                             that --stats warns about the nested sums the staging removes */
  bool gemm_tf32;         /* --gemm-precision=tf32: the GEMM steps in TF32 (KGemm.tf32) */
  bool spmm_library;      /* --spmm=cusparse: a plain weighted sum over the edges is a library call
                             (STEP_SPMM), not a fused walk (passes/fuse.c) */
  bool serial_dots;       /* --dots=serial (the host's default): a kernel per row computes a dot or sum_last
                             a lane per output, not spread over the lanes (lower_groups.c, find_spread) */
  int tile_columns;       /* --tile-columns=T (> 0): walks gathering rows wider than T run in column
                             tiles of T (lower_tiles.c); 0: off */
  int vector_loads;       /* --vector-loads=4 (the CUDA target): kernels that gather rows read them 4 floats
                             at a time where they can (Kernel.vec, lower.c); 0: off */
  const int *tiles_of_kernel; /* --tile-columns=auto: per kernel id (ntiles_of_kernel of them), the column
                                 tiles the GPU estimate chose (0: none); NULL: tile_columns rules */
  int ntiles_of_kernel;
} GnnCtx;
/* --fold-attention: whether fuse folds the dots a . (x W) into the GEMM as x . [W | W.a] */
typedef enum { FOLD_COST, FOLD_ALWAYS, FOLD_NEVER } FoldChoice;
/* --mapping: the thread mapping of the graph kernels, for fuse and lower (GnnCtx.mapping) */
typedef enum { MAPPING_AUTO, MAPPING_VERTEX, MAPPING_EDGE } MappingChoice;

void gnn_ctx_init(GnnCtx *c, const char *path, const char *text, size_t size, FILE *diag_out);
void gnn_ctx_free(GnnCtx *c);
/* Whether --edge-balanced (or the tuner's plan) named value id: a query of the options, inline
 * here so that the passes (fuse) and the driver read it without a pass calling up into
 * pipeline.c (docs/architecture.md). */
static inline bool ctx_edge_balanced(const GnnCtx *c, int id) {
  for (int i = 0; i < c->nedge_ids; i++)
    if (c->edge_ids[i] == id) return true;
  return false;
}
/* Parses c->diag's text into c->prog. Returns false if any error was reported. */
bool gnn_parse(GnnCtx *c);

#endif
