/* ir_print.c -- the textual and Graphviz forms of the operator IR.
 *
 * The text form is stable (value numbers are positions in the module, no addresses, numbers
 * in their shortest exact decimal form), so golden files can compare it byte for byte:
 *
 *   model GAT {
 *     %0 = input.vertex "x" : vertex[1433]
 *     %1 = param "gatconv0.W" : param[1433, 8, 8]
 *     %2 = scatter.copy_u %0 : edge[1433]
 *     %3 = apply_edge.linear %2, %1 : edge[8, 8]
 *     %4 = apply_edge.leaky_relu %3 {slope = 0.2} : edge[8]
 *     ...
 *     return %17
 *   }
 *
 * Each line is `%id = op.fn operands {attributes} : domain[shape]`; docs/ir.md has the grammar.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* Shortest decimal that reads back as the same double. */
void num_str(char *buf, size_t n, double x) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) return;
  }
}

static void print_shape(FILE *out, const Value *v) {
  fprintf(out, "%s[", domain_name(v->dom));
  for (int i = 0; i < v->shape.rank; i++) fprintf(out, i ? ", %lld" : "%lld", (long long)v->shape.d[i]);
  fputc(']', out);
  if (v->elem == ELEM_I32) fputs(" i32", out);
}

/* The checkpoint pass's decision: "stash, 32*E bytes (recompute: 6 flops/element)". */
static void print_ckpt(FILE *out, const Value *v, bool needed) {
  int64_t n = 4 * shape_elems(&v->shape);
  char bytes[48];
  if (v->dom == DOM_VERTEX || v->dom == DOM_EDGE) snprintf(bytes, sizeof bytes, "%lld*%c bytes", (long long)n, v->dom == DOM_VERTEX ? 'V' : 'E');
  else snprintf(bytes, sizeof bytes, "%lld bytes", (long long)n);
  char flops[64];
  if (v->stat_of) snprintf(flops, sizeof flops, "the %s of edge_softmax %%%d", v->stat == STAT_MAX ? "max" : "denominator", v->stat_of->id);
  else if (v->ckpt_flops >= 1e9f) snprintf(flops, sizeof flops, "recompute: cannot, a reduction");
  else if (v->ckpt_flops == 0 && v->ckpt == CKPT_STASH) snprintf(flops, sizeof flops, "in memory for the forward");
  else snprintf(flops, sizeof flops, "recompute: %g flops/element", (double)v->ckpt_flops);
  fputs(needed ? ": " : "  # ", out);
  if (v->ckpt == CKPT_STASH) fprintf(out, "stash, %s (%s)", bytes, flops);
  else if (v->recomputed_as) fprintf(out, "recompute as %%%d, %g flops/element vs %s", v->recomputed_as->id, (double)v->ckpt_flops, bytes);
  else fprintf(out, "recompute, %g flops/element vs %s", (double)v->ckpt_flops, bytes);
}

static void print_value(FILE *out, const Value *v, bool needed) {
  char num[64];
  fprintf(out, "  %%%d = ", v->id);
  switch (v->op) {
  case OP_INPUT:
    fprintf(out, "input.%s \"%s\"", fn_info[v->fn].name, v->name);
    break;
  case OP_PARAM:
    fprintf(out, "param \"%s\"", v->name);
    if (v->iattr) { /* declared with an initial value */
      num_str(num, sizeof num, v->fattr);
      fprintf(out, " {init = %s}", num);
    }
    break;
  case OP_CONST:
    num_str(num, sizeof num, v->fattr);
    fprintf(out, "const %s", num);
    break;
  case OP_DEGREE:
    fprintf(out, "degree.%s", fn_info[v->fn].name);
    break;
  case OP_BROADCAST:
    fputs("broadcast", out);
    break;
  case OP_AGGREGATE:
    fprintf(out, "aggregate.%s.%s", fn_info[v->fn].name, fn_info[v->msg].name);
    break;
  default:
    fprintf(out, "%s.%s", op_info[v->op].name, fn_info[v->fn].name);
  }
  for (int i = 0; i < v->nargs; i++) fprintf(out, "%s%%%d", i ? ", " : " ", v->args[i]->id);
  switch (v->fn) {
  case FN_LEAKY_RELU: num_str(num, sizeof num, v->fattr); fprintf(out, " {slope = %s}", num); break;
  case FN_ELU: num_str(num, sizeof num, v->fattr); fprintf(out, " {alpha = %s}", num); break;
  case FN_DROPOUT: num_str(num, sizeof num, v->fattr); fprintf(out, " {p = %s, stream = %lld}", num, (long long)v->iattr); break;
  case FN_REPEAT: case FN_ONE_HOT: fprintf(out, " {n = %lld}", (long long)v->iattr); break;
  case FN_POW: num_str(num, sizeof num, v->fattr); fprintf(out, " {p = %s}", num); break;
  case FN_LEAKY_RELU_GRAD: num_str(num, sizeof num, v->fattr); fprintf(out, " {slope = %s}", num); break;
  case FN_ELU_GRAD: num_str(num, sizeof num, v->fattr); fprintf(out, " {alpha = %s}", num); break;
  case FN_SLICE: fprintf(out, " {from = %lld, to = %lld}", (long long)v->iattr, (long long)v->iattr2); break;
  case FN_PAD: fprintf(out, " {at = %lld, width = %lld}", (long long)v->iattr, (long long)v->iattr2); break;
  default: break;
  }
  if (v->op == OP_GATHER && v->iattr == GATHER_BY_SRC) fputs(" {by = src}", out);
  fputs(" : ", out);
  print_shape(out, v);
  if (v->bwd) fputs("  # backward", out);
  else if (needed) fputs("  # needed by backward", out);
  if (v->recomputes) fprintf(out, ", recomputes %%%d", v->recomputes->id);
  if (!v->bwd && v->ckpt) print_ckpt(out, v, needed);
  bool hashed = v->bwd || needed || (!v->bwd && v->ckpt);
  if (v->sched == SCHED_INLINE) fputs(hashed ? ", inline" : "  # inline", out);
  else if (v->sched == SCHED_ROOT || v->sched == SCHED_ANCHOR || v->sched == SCHED_LIBRARY)
    fprintf(out, "%sg%d%s", hashed ? ", " : "  # ", v->group, v->folded ? ", folded" : "");
  bool scheduled = v->sched == SCHED_INLINE || v->sched == SCHED_ROOT || v->sched == SCHED_ANCHOR || v->sched == SCHED_LIBRARY;
  if (v->f64) fputs(hashed || scheduled ? ", f64" : "  # f64", out); /* fuse: computed in float64 */
  fputc('\n', out);
}

static const char *group_kind(const FuseGroup *g) {
  switch (g->kind) {
  case FG_WALK: return g->dir == GATHER_BY_SRC ? "walk over out-edges (CSC), vertex-balanced" : "walk over in-edges (CSR), vertex-balanced";
  case FG_ROWS: return g->rows == DOM_VERTEX ? "rows: a group per vertex" : g->rows == DOM_EDGE ? "rows: a group per edge" : "rows: the global row";
  case FG_EDGE_REDUCE: return "edge-balanced reduction (atomics)";
  case FG_SINK: return "sum over all rows";
  case FG_GEMM: return "gemm";
  case FG_SPMM: return g->dir == GATHER_BY_SRC ? "spmm over out-edges (CSC)" : "spmm over in-edges (CSR)";
  }
  return "?";
}

/* After fuse: each group (a kernel, or a GEMM) with the values it computes, in run order. */
static void print_groups(FILE *out, const Module *m) {
  for (int g = 0; g < m->ngroups; g++) {
    bool folds = false;
    for (int i = 0; i < m->vals.len; i++) folds |= ((const Value *)m->vals.items[i])->folded && ((const Value *)m->vals.items[i])->group == g;
    fprintf(out, "  group g%d: %s%s%s%s:", g, group_kind(&m->groups[g]), folds ? " with the attention dots as columns, x . [W | W.a]" : "",
            m->groups[g].bwd ? ", backward" : "", m->groups[g].per_graph ? ", once per graph" : "");
    for (int i = 0; i < m->vals.len; i++) {
      const Value *v = m->vals.items[i];
      if ((v->sched == SCHED_ROOT || v->sched == SCHED_ANCHOR || v->sched == SCHED_LIBRARY) && v->group == g) fprintf(out, " %%%d", v->id);
    }
    fputc('\n', out);
  }
}

/* needed[i]: forward value i is read by the backward pass (one sweep, not a search per value). */
static bool *needed_by_backward(const Module *m) {
  bool *needed = calloc((size_t)m->vals.len + 1, sizeof(bool));
  for (int i = 0; i < m->vals.len; i++) {
    const Value *u = m->vals.items[i];
    if (u->bwd)
      for (int k = 0; k < u->nargs; k++)
        if (!u->args[k]->bwd) needed[u->args[k]->id] = true;
  }
  return needed;
}

void ir_print(FILE *out, const Module *m) {
  bool *needed = needed_by_backward(m);
  fprintf(out, "model %s {\n", m->name);
  for (int i = 0; i < m->vals.len; i++) print_value(out, m->vals.items[i], needed[i]);
  if (m->nouts) fprintf(out, "  return %%%d\n", m->outs[0].val->id);
  for (int i = 1; i < m->nouts; i++) fprintf(out, "  output \"%s\" %%%d\n", m->outs[i].name, m->outs[i].val->id);
  if (m->fused) print_groups(out, m);
  fputs("}\n", out);
  free(needed);
}

char *ir_to_string(const Module *m) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  ir_print(f, m);
  fclose(f);
  return buf;
}

/* Graphviz: one node per value, coloured by domain; edges are operand -> use. */
void ir_print_dot(FILE *out, const Module *m) {
  /* by Domain, every one named: a missing entry would print whatever memory follows */
  static const char *colour[] = {[DOM_VERTEX] = "lightblue", [DOM_EDGE] = "lightsalmon", [DOM_PARAM] = "khaki",
                                 [DOM_GLOBAL] = "lightgrey", [DOM_GRAPH] = "palegreen"};
  _Static_assert(sizeof colour / sizeof *colour == DOM_GRAPH + 1, "a colour for every Domain");
  fprintf(out, "digraph \"%s\" {\n  rankdir=TB;\n  node [shape=box, style=filled, fontname=\"monospace\"];\n", m->name);
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    fprintf(out, "  v%d [fillcolor=%s, label=\"%%%d ", v->id, colour[v->dom], v->id);
    if (v->op == OP_AGGREGATE)
      fprintf(out, "aggregate.%s.%s", fn_info[v->fn].name, fn_info[v->msg].name);
    else if (v->op == OP_PARAM || v->op == OP_INPUT)
      fprintf(out, "%s %s", op_info[v->op].name, v->name);
    else if (v->op == OP_CONST)
      fprintf(out, "const %g", v->fattr);
    else if (v->op == OP_BROADCAST)
      fputs("broadcast", out);
    else
      fprintf(out, "%s.%s", op_info[v->op].name, fn_info[v->fn].name);
    fprintf(out, "\\n%s[", domain_name(v->dom));
    for (int k = 0; k < v->shape.rank; k++) fprintf(out, k ? ",%lld" : "%lld", (long long)v->shape.d[k]);
    bool is_out = false;
    for (int k = 0; k < m->nouts; k++) is_out |= m->outs[k].val == v;
    fprintf(out, "]\"%s%s];\n", is_out ? ", peripheries=2" : "", v->bwd ? ", style=\"filled,dashed\"" : "");
    for (int k = 0; k < v->nargs; k++) fprintf(out, "  v%d -> v%d;\n", v->args[k]->id, v->id);
  }
  fputs("}\n", out);
}
