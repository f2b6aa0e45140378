/* compose.c -- form the paper's composite operators from their parts.
 *
 * Requires: canonical form (canonicalize has run). Guarantees: the same results, with
 *   gather.R(scatter.copy_u(h))                         -> aggregate.R.copy_u(h)
 *   gather.R(apply_edge.mul(scatter.copy_u(h), e))      -> aggregate.R.u_mul_e(h, e)   (or e * copy_u)
 *   gather.R(apply_edge.add(scatter.copy_u(h), e))      -> aggregate.R.u_add_e(h, e)   (or e + copy_u)
 * where e is an edge value, the apply_edge has no other use, and every use of the scatter is
 * such a gather (or such an apply_edge): then all of them compose and the scatter goes, so no
 * O(|E|) value is materialised for them (DGL's gSpMM). A scatter with any other use stays,
 * and so do its gathers: composing them would remove nothing. It runs after reorg, which
 * must see the Scatter -> ApplyEdge chains that an Aggregate would hide.
 *
 * Steps: 1. match every gather and count, per scatter, the uses that would compose;
 *        2. rebuild the value list, replacing the gathers whose scatter composes entirely;
 *        3. remove the apply_edge and scatter values that lost their last use here (nothing
 *           else: dead code from before is canonicalize's business, and "unchanged" stays true).
 */
#include "../passes.h"

typedef struct {
  Value *scatter;  /* the copy_u */
  Value *apply;    /* the mul/add between it and the gather, or NULL */
  FnKind msg;
  Value *args[2];
  int nargs;
} Match;

/* The pattern under gather g, without looking at the scatter's other uses. */
static bool match(Arena *a, Value *g, Match *out) {
  /* aggregate reduces over in-edges: a gather over out-edges ({by = src}) is not one */
  if (g->op != OP_GATHER || g->iattr != GATHER_BY_DST) return false;
  Value *e = g->args[0];
  Match mt = {0};
  if (e->op == OP_SCATTER && e->fn == FN_COPY_U) {
    mt = (Match){e, NULL, FN_COPY_U, {e->args[0], NULL}, 1};
  } else if (e->op == OP_APPLY_EDGE && (e->fn == FN_MUL || e->fn == FN_ADD) && e->nuses == 1) {
    int k = -1;
    for (int i = 0; i < 2; i++)
      if (e->args[i]->op == OP_SCATTER && e->args[i]->fn == FN_COPY_U && e->args[1 - i]->dom == DOM_EDGE) k = i;
    if (k < 0) return false;
    mt = (Match){e->args[k], e, e->fn == FN_MUL ? FN_U_MUL_E : FN_U_ADD_E, {e->args[k]->args[0], e->args[1 - k]}, 2};
  } else {
    return false;
  }
  /* The aggregate must have the gather's shape (the message broadcasts as the apply did). */
  Value proto = {.op = OP_AGGREGATE, .fn = g->fn, .msg = mt.msg, .nargs = mt.nargs, .loc = g->loc};
  for (int i = 0; i < mt.nargs; i++) proto.args[i] = mt.args[i];
  Domain dom;
  ElemType elem;
  Shape shape = {0, {0}};
  const char *why = NULL;
  if (!ir_infer(a, &proto, &dom, &elem, &shape, &why) || !shape_eq(&shape, &g->shape)) return false;
  *out = mt;
  return true;
}

bool pass_compose(GnnCtx *c, Module *m) {
  module_count_uses(m);
  int n = m->vals.len;
  Arena *a = &c->arena;
  for (int i = 0; i < n; i++) ((Value *)m->vals.items[i])->id = i;

  /* 1. uses of each scatter that compose; a gather with no use is left to DCE */
  int *absorbed = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  Match *matches = arena_alloc(a, sizeof(Match) * (size_t)(n + 1));
  bool *matched = arena_alloc(a, sizeof(bool) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    Value *g = m->vals.items[i];
    if (g->nuses > 0 && match(a, g, &matches[i])) {
      matched[i] = true;
      absorbed[matches[i].scatter->id]++;
    }
  }

  /* 2. rebuild, replacing each gather whose scatter composes in all its uses */
  PtrVec old = m->vals;
  m->vals = (PtrVec){0};
  PtrVec composed = {0}; /* Match* */
  for (int i = 0; i < old.len; i++) {
    Value *v = old.items[i];
    for (int k = 0; k < v->nargs; k++) v->args[k] = resolve(v->args[k]);
    Match *mt = &matches[i];
    if (matched[i] && absorbed[mt->scatter->id] == mt->scatter->nuses) {
      const char *why = NULL;
      /* the message's operands were matched before the rebuild: one may be a gather replaced
       * above (aggregate(copy_u(gather(...)))), so take its replacement (found by the
       * differential fuzzer: tests/fuzz/diff/cases/compose-stale-operand.gnn) */
      for (int k = 0; k < mt->nargs; k++) mt->args[k] = resolve(mt->args[k]);
      Value *r = ir_make(m, OP_AGGREGATE, mt->msg, mt->args, mt->nargs, 0, v->fn, v->loc, &why);
      if (r) {
        r->bwd = v->bwd; /* a backward gather stays backward */
        v->repl = r;
        ir_inherit_label(r, v);
        v->dead = true;
        vec_push(a, &composed, mt);
        continue;
      }
    }
    v->id = m->vals.len;
    vec_push(a, &m->vals, v);
  }
  for (int i = 0; i < m->nouts; i++) m->outs[i].val = resolve(m->outs[i].val);

  /* 3. the apply_edge values, then the scatters, that lost their last use (module outputs
   *    count as uses; inputs and params are never removed: a training module has a
   *    grad.<param> output for every param, used or not) */
  module_count_uses(m);
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < composed.len; i++) {
      Match *mt = composed.items[i];
      Value *v = pass == 0 ? mt->apply : mt->scatter;
      if (!v || v->dead || v->nuses > 0) continue;
      v->dead = true;
      for (int k = 0; k < v->nargs; k++) v->args[k]->nuses--;
    }
  module_compact(m);
  module_count_uses(m);
  return composed.len > 0;
}
