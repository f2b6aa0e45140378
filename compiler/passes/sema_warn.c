/* sema_warn.c -- the lowering's warnings about well-typed programs that are almost always slips:
 * a reduction whose argument is the same on every edge (sum(W @ x[dst])), a value named like an
 * index (src, dst), a parameter that nothing the model returns reads. Each is said, never
 * refused. Between sema.c (which calls them) and sema_scope.c (sema_warn, the builtins' table):
 * they read the IR the lowering made and lower nothing themselves. Split from sema.c when it
 * passed 1,000 lines (style.md: a file of one job).
 */
#include "sema_warn.h"

#include <stdlib.h>
#include <string.h>

/* What an edge value varies with: ON_SRC (a source vertex's value: x[src]), ON_DST (x[dst]),
 * ON_EDGE (an edge input: graph.edges' values, pseudo-coordinates). Dropout is transparent: its
 * expectation is its argument's. memo[id] caches a value's mask + 1 (the IR is a DAG). */
enum { ON_SRC = 1, ON_DST = 2, ON_EDGE = 4 };
static int varies_with(const Value *v, unsigned char *memo) {
  if (memo[v->id]) return memo[v->id] - 1;
  int m = 0;
  switch (v->op) {
  case OP_INPUT: m = v->dom == DOM_EDGE ? ON_EDGE : 0; break;
  case OP_SCATTER: m = v->fn == FN_COPY_U ? ON_SRC : v->fn == FN_COPY_V ? ON_DST : ON_SRC | ON_DST; break;
  case OP_APPLY_EDGE: case OP_REDUCE_SCATTER:
    for (int i = 0; i < v->nargs; i++) m |= varies_with(v->args[i], memo);
    break;
  default: break; /* vertex and global values, leaves: the same on every edge */
  }
  memo[v->id] = (unsigned char)(m + 1);
  return m;
}

/* sum(W @ x[dst]) is in_deg x (W @ x): every in-edge of v carries the same message, so the
 * reduction only counts them, which is almost always a slip for x[src] (and the mirror for the
 * out-edge reductions). Said, not refused: the program is well-typed. */
void sema_warn_same_on_every_edge(Sema *s, const Builtin *b, const Value *x, Loc loc) {
  bool out = b->kind == B_REDUCE_OUT;
  unsigned char *memo = calloc((size_t)s->m->vals.len + 1, 1);
  int m = memo ? varies_with(x, memo) : ON_EDGE;
  free(memo);
  if (m & (ON_EDGE | (out ? ON_DST : ON_SRC))) return;
  const char *what = b->fn == FN_SUM ? (out ? "out_deg times that value" : "in_deg times that value")
                                     : "that value itself (0 for a vertex without such edges)";
  sema_warn(s, loc, "the argument of '%s' is the same on every %s-edge of a vertex (it reads only the %s vertex), so '%s' is %s; "
       "did you mean x[%s]?", b->name, out ? "out" : "in", out ? "source" : "destination", b->name, what, out ? "dst" : "src");
}

/* `src = relu(x)` then `sum(src[src])`: the index is still the edge's source, whatever a value
 * is called. Allowed (src and dst are identifiers, docs/language.md §1), but said. The same
 * for a dimension or a hyper-parameter (`layer L<src>`, `x: vertex[dst]`, `<dst = 0.5>`): in
 * an expression the name is its number, in x[src] still the edge's source. what: "value",
 * "dimension" or "hyper-parameter". */
void sema_warn_index_name(Sema *s, const char *name, const char *what, Loc loc) {
  if (strcmp(name, "src") == 0 || strcmp(name, "dst") == 0)
    sema_warn(s, loc, "'%s' names a %s here, but in an index x[%s] always means each edge's %s vertex, never this %s; "
        "choose another name", name, what, name, name[0] == 's' ? "source" : "destination", what);
}

/* A parameter that reaches no output is dropped as dead code (canonicalize): the built model has
 * no such parameter (lib.param_info lacks it), which surprises whoever declared it. Said at the
 * declaration, once however many instances there are, unless some instance is used (a layer
 * whose second result one caller ignores). vals are in definition order, operands first, so
 * one walk from the end marks everything the outputs read. */
void sema_warn_unused_params(Sema *s, Module *m) {
  int n = m->vals.len;
  unsigned char *live = calloc((size_t)n + 1, 1);
  if (!live) return;
  for (int i = 0; i < m->nouts; i++) live[m->outs[i].val->id] = 1;
  for (int i = n - 1; i >= 0; i--) {
    const Value *v = m->vals.items[i];
    if (live[v->id])
      for (int k = 0; k < v->nargs; k++) live[v->args[k]->id] = 1;
  }
  /* Per declaration ("line:col"): its instances, and whether one is live. Linear in the values,
   * as a file of 10^5 parameters must stay fast (tests/fuzz/crashes/timeout_verify_*). */
  typedef struct { int instances; bool live, warned; } ParamUse;
  StrMap uses = {0};
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    if (v->op != OP_PARAM) continue;
    void **slot = strmap_put(&s->c->arena, &uses, arena_printf(&s->c->arena, "%d:%d", v->loc.line, v->loc.col));
    if (!*slot) *slot = arena_alloc(&s->c->arena, sizeof(ParamUse));
    ParamUse *u = *slot;
    u->instances++;
    u->live |= live[v->id] != 0;
  }
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    if (v->op != OP_PARAM) continue;
    ParamUse *u = strmap_get(&uses, arena_printf(&s->c->arena, "%d:%d", v->loc.line, v->loc.col));
    if (u->live || u->warned) continue;
    u->warned = true;
    int others = u->instances - 1;
    const char *dot = strrchr(v->name, '.');
    sema_warn(s, v->loc, "parameter '%s' is never used: nothing the model returns reads it, so dead-code elimination drops it "
        "(an optimised build has no parameter '%s'%s)", dot ? dot + 1 : v->name, v->name,
        others ? arena_printf(&s->c->arena, ", nor its %d other instance%s", others, others == 1 ? "" : "s") : "");
  }
  free(live);
}
