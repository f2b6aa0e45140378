/* verify.c -- the invariants of the operator IR, checked after every pass in tests.
 *
 * 1. Values are numbered densely in order, and every operand is defined earlier (SSA, DAG).
 * 2. No live value uses a dead one; the output is live.
 * 3. Re-inferring each operator's domain and shape from its operands gives what it carries
 *    (so a pass cannot build an ill-typed value by hand).
 * 4. Leaves are well formed: inputs are vertex or edge values with a name, parameters are
 *    named uniquely, constants and degrees are scalars.
 * 5. The forward pass never reads a value of the backward pass; outputs have unique names,
 *    the first is the forward output "out".
 */
#include "ir.h"

#include <string.h>

#define BAD(...) do { if (out) { fprintf(out, "verify: %%%d: ", v->id); fprintf(out, __VA_ARGS__); fputc('\n', out); } errors++; } while (0)

int ir_verify(const Module *m, FILE *out) {
  int errors = 0;
  Arena scratch = {0};
  StrMap params = {0}; /* parameter names seen so far: a hash set, so linear in the module */
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    if (v->id != i) BAD("numbered %d at position %d", v->id, i);
    if (v->dead) BAD("dead value left in the module");
    for (int k = 0; k < v->nargs; k++) {
      const Value *a = v->args[k];
      if (!a) { BAD("operand %d is null", k); continue; }
      if (a->id >= i || m->vals.items[a->id] != a) BAD("operand %d (%%%d) is not defined before its use", k, a->id);
      if (a->dead) BAD("operand %d is dead", k);
    }
    switch (v->op) {
    case OP_INPUT:
      if (!v->name || (v->dom != DOM_VERTEX && v->dom != DOM_EDGE && v->dom != DOM_GRAPH)) BAD("malformed input");
      break;
    case OP_PARAM:
      if (!v->name || v->dom != DOM_PARAM) BAD("malformed param");
      if (v->name) {
        void **seen = strmap_put(&scratch, &params, v->name);
        if (*seen) BAD("param \"%s\" defined twice", v->name);
        *seen = (void *)v;
      }
      break;
    case OP_CONST:
      if (v->dom != DOM_GLOBAL || v->shape.rank != 0) BAD("a constant must be a global scalar");
      break;
    case OP_DEGREE:
      if (v->shape.rank != 0 || !((v->dom == DOM_VERTEX && (v->fn == FN_IN || v->fn == FN_OUT)) || (v->dom == DOM_GRAPH && v->fn == FN_SIZE)))
        BAD("malformed degree");
      break;
    default: {
      Domain dom;
      ElemType elem;
      Shape shape;
      const char *why = NULL;
      bool ok = true;
      for (int k = 0; k < v->nargs; k++) ok &= v->args[k] != NULL;
      if (!ok) break;
      if (!ir_infer(&scratch, v, &dom, &elem, &shape, &why))
        BAD("ill-typed: %s", why);
      else if (dom != v->dom || !shape_eq(&shape, &v->shape) || elem != v->elem)
        BAD("carries %s%s%s but its operands give %s%s%s", domain_name(v->dom), shape_str(&scratch, &v->shape),
            v->elem == ELEM_I32 ? " i32" : "", domain_name(dom), shape_str(&scratch, &shape), elem == ELEM_I32 ? " i32" : "");
      /* 5. the forward pass never reads the backward pass */
      for (int k = 0; k < v->nargs; k++)
        if (!v->bwd && v->args[k]->bwd) BAD("a forward value reads backward value %%%d", v->args[k]->id);
    }
    }
  }
  if (m->nouts == 0 || strcmp(m->outs[0].name, "out") != 0 || m->outs[0].val->bwd) {
    if (out) fprintf(out, "verify: the module has no forward output \"out\"\n");
    errors++;
  }
  for (int i = 0; i < m->nouts; i++) {
    const Value *o = m->outs[i].val;
    if (!o || o->dead || o->id < 0 || o->id >= m->vals.len || m->vals.items[o->id] != o) {
      if (out) fprintf(out, "verify: output \"%s\" is not a live value of the module\n", m->outs[i].name);
      errors++;
    }
    for (int j = 0; j < i; j++)
      if (strcmp(m->outs[j].name, m->outs[i].name) == 0) {
        if (out) fprintf(out, "verify: output \"%s\" named twice\n", m->outs[i].name);
        errors++;
      }
  }
  arena_free(&scratch);
  return errors;
}
