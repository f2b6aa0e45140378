/* passes.h -- the passes (compiler/passes/, a file each, one entry point each) and sema, which
 * builds the module from the AST; canonicalize.c's helpers the later passes reuse. Above the
 * compilation context (ctx.h); the pipeline (pipeline.h) calls them in order.
 */
#ifndef GNNC_PASSES_H
#define GNNC_PASSES_H

#include <stdbool.h>
#include <stdint.h>

#include "ctx.h"

/* Each pass returns true if it changed the module. */
typedef bool (*PassFn)(GnnCtx *c, Module *m);

bool pass_canonicalize(GnnCtx *c, Module *m);
bool pass_reorg(GnnCtx *c, Module *m);
/* canonicalize's folding, CSE and DCE on the backward values only (the forward is untouched). */
bool canonicalize_backward(GnnCtx *c, Module *m);
bool pass_autodiff(GnnCtx *c, Module *m);
bool pass_compose(GnnCtx *c, Module *m);
bool pass_checkpoint(GnnCtx *c, Module *m);
bool pass_fuse(GnnCtx *c, Module *m);
bool pass_hoist(GnnCtx *c, Module *m);
/* canonicalize.c's machinery for the passes after it: the CSE key (same operator, function,
 * attributes, name and operands), and a cleanup that re-forms gSDDMM scatters from
 * copy_u/copy_v pairs, merges duplicates and drops dead values (its steps 2, 4 and 5). */
bool canon_same(const Value *x, const Value *y);
uint64_t canon_hash(const Value *v);
bool canon_cleanup(GnnCtx *c, Module *m);
/* sema is not a Module -> Module pass: it builds the module from the AST. */
Module *sema_lower(GnnCtx *c);

#endif
