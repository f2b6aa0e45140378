/* lower.h -- the lowering's entry point (lower.c, the top of its layers: lower_walk.h,
 * lower_groups.h ... kbuild.h, docs/architecture.md), called by the pipeline. Above the
 * compilation context and the kernel IR.
 */
#ifndef GNNC_LOWER_H
#define GNNC_LOWER_H

#include <stdbool.h>

#include "ctx.h"
#include "kir.h"

/* lower.c: the operator IR to the kernel IR: the fuse pass's groups (m->fused), or each graph
 * operator its own kernel (unfused). edge_named (per value id, or NULL): the values
 * --edge-balanced names, run edge-balanced unfused whatever `mapping` says. NULL after
 * reporting an error. Notes on mapping choices go to c->diag.out. */
KProgram *lower_module(GnnCtx *c, Module *m, MappingChoice mapping, const bool *edge_named);

#endif
