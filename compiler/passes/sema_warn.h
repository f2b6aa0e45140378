/* sema_warn.h -- the header of sema_warn.c: warnings on well-typed programs that are almost
 * always slips, said at the place of the slip. sema.c alone includes it. */
#ifndef GNNC_SEMA_WARN_H
#define GNNC_SEMA_WARN_H

#include "sema_scope.h"

/* A reduction b (sum, mean, max, ... over in- or out-edges) of x at loc, x read only at the end
 * the reduction groups by (sum(W @ x[dst])): in_deg times x, almost always a slip for x[src]. */
void sema_warn_same_on_every_edge(Sema *s, const Builtin *b, const Value *x, Loc loc);
/* A value, input, parameter or loop variable ("value"), a dimension or a hyper-parameter (what)
 * named src or dst (at loc), which x[src] never reads. */
void sema_warn_index_name(Sema *s, const char *name, const char *what, Loc loc);
/* Every parameter of m that no output reads, once per declaration (dead code: the built model
 * lacks it). */
void sema_warn_unused_params(Sema *s, Module *m);

#endif
