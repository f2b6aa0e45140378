/* compose.c -- form the paper's composite operators from their parts.
 *
 * Requires: canonical form (canonicalize has run). Guarantees: the same results, with
 *   gather.R(scatter.copy_u(h))                         -> aggregate.R.copy_u(h)
 *   gather.R(apply_edge.mul(scatter.copy_u(h), e))      -> aggregate.R.u_mul_e(h, e)   (or e * copy_u)
 *   gather.R(apply_edge.add(scatter.copy_u(h), e))      -> aggregate.R.u_add_e(h, e)   (or e + copy_u)
 * where the edge values inside have no other use, so no O(|E|) value is materialised for
 * them (DGL's gSpMM). It runs after reorg, which must see the Scatter -> ApplyEdge chains
 * that an Aggregate would hide.
 */
#include "../gnnc.h"

static Value *try_compose(Module *m, Value *g) {
  /* aggregate reduces over in-edges: a gather over out-edges ({by = src}) is not one */
  if (g->op != OP_GATHER || g->iattr != GATHER_BY_DST) return NULL;
  Value *e = g->args[0];
  Value *args[2];
  FnKind msg;
  int n;
  if (e->op == OP_SCATTER && e->fn == FN_COPY_U && e->nuses == 1) {
    msg = FN_COPY_U;
    args[0] = e->args[0];
    n = 1;
  } else if (e->op == OP_APPLY_EDGE && (e->fn == FN_MUL || e->fn == FN_ADD) && e->nuses == 1) {
    int k = -1;
    for (int i = 0; i < 2; i++)
      if (e->args[i]->op == OP_SCATTER && e->args[i]->fn == FN_COPY_U && e->args[i]->nuses == 1 &&
          e->args[1 - i]->dom == DOM_EDGE) k = i;
    if (k < 0) return NULL;
    msg = e->fn == FN_MUL ? FN_U_MUL_E : FN_U_ADD_E;
    args[0] = e->args[k]->args[0];
    args[1] = e->args[1 - k];
    n = 2;
  } else {
    return NULL;
  }
  const char *why = NULL;
  Value *r = ir_make(m, OP_AGGREGATE, msg, args, n, 0, g->fn, g->loc, &why);
  if (r && !shape_eq(&r->shape, &g->shape)) return NULL;
  if (r) r->bwd = g->bwd; /* a backward gather stays backward */
  return r;
}

bool pass_compose(GnnCtx *c, Module *m) {
  (void)c;
  module_count_uses(m);
  PtrVec old = m->vals;
  m->vals = (PtrVec){0};
  bool changed = false;
  for (int i = 0; i < old.len; i++) {
    Value *v = old.items[i];
    for (int k = 0; k < v->nargs; k++) v->args[k] = resolve(v->args[k]);
    Value *r = try_compose(m, v);
    if (r) {
      v->repl = r;
      v->dead = true;
      changed = true;
      continue;
    }
    v->id = m->vals.len;
    vec_push(m->arena, &m->vals, v);
  }
  for (int i = 0; i < m->nouts; i++) m->outs[i].val = resolve(m->outs[i].val);
  /* The scatter and apply_edge values folded into aggregates are now unused. Inputs and
   * params stay: they are the model's signature (a training module has a grad.<param>
   * output for every param, used or not). */
  module_count_uses(m);
  for (int i = m->vals.len - 1; i >= 0; i--) {
    Value *v = m->vals.items[i];
    if (v->nuses == 0 && v->op != OP_INPUT && v->op != OP_PARAM) { /* outputs count as uses */
      v->dead = true;
      for (int k = 0; k < v->nargs; k++) v->args[k]->nuses--;
    }
  }
  module_compact(m);
  module_count_uses(m);
  return changed;
}
