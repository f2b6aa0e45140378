/* hoist.c -- values of the graph alone, computed once per graph instead of in every walk.
 *
 * Requires: a fused module (the fuse pass's groups). Guarantees: every hoisted value is a ROOT
 * of one new group, FG_ROWS over the edges with per_graph set, numbered 0 (it runs first); the
 * other groups keep their order, one later. Nothing else changes: an unfused module (-fno-fuse,
 * -O0) is left as it is.
 *
 * An edge value that depends on nothing but the graph (degrees and constants: GCN's symmetric
 * normalisation rsqrt(out_deg[src] * in_deg[dst]), MoNet's pseudo-coordinates) is the same in
 * every forward and backward on that graph. Inline, each walk that reads it recomputes it per
 * edge from a degree gathered at the far end: on the 200,000-vertex R-MAT graph that is a fifth
 * of GCN's first walk (92 -> 75 ms with the value read from memory, its second walk 28 -> 23 ms,
 * 1 thread). Hoisted, one kernel per edge writes it when the model meets a graph (the first
 * forward after create, set_graph or a new arena: emit_model.c), and the walks over in-edges
 * read it in CSR order, a stream of 4 bytes an edge. Walks over out-edges (CSC) would read it
 * at out_eid[j], a random read of a large array, so they recompute it from the degrees as
 * before (lower_fused.c, recomputed_invariant).
 *
 * With --spmm=cusparse the weights of a forward SpMM step (GCN's normalisation) are roots in
 * memory, an edge rows kernel of their own; when that kernel computes graph values alone it
 * becomes this group, once per graph, instead of running in every forward.
 *
 * What is hoisted: an inline forward edge value of float elements, at most HOIST_MAX_WIDTH wide
 * (it costs 4 * width bytes an edge for as long as the model holds the graph), that some
 * forward value other than a graph value reads, with at least a FLOP per element behind it (a
 * bare degree read per edge is a load either way). The same costs as PyG's GCNConv(cached=True)
 * and DGL's norm cache, without asking: the compiler sees that the value cannot change.
 */
#include "../passes.h"

#include <stdlib.h>

enum { HOIST_MAX_WIDTH = 4 };

/* Only the graph decides v: degrees, constants and functions of them (no input, parameter or
 * random draw). inv[] holds the answers of the values before v (operands precede uses). */
static bool graph_only(const Value *v, const bool *inv) {
  switch (v->op) {
  case OP_DEGREE:
  case OP_CONST: return true;
  case OP_INPUT:
  case OP_PARAM: return false;
  default: break;
  }
  if (v->bwd || v->fn == FN_DROPOUT || v->nargs == 0) return false;
  for (int i = 0; i < v->nargs; i++)
    if (!inv[v->args[i]->id]) return false;
  return true;
}

/* FLOPs per element of v with its inline operands (the work each reading walk repeats). */
static double chain_flops(const Value *v, int depth) {
  if (v->sched == SCHED_LEAF || depth > 24) return 0;
  double f = elem_flops(v);
  for (int i = 0; i < v->nargs; i++)
    if (v->args[i]->sched == SCHED_INLINE) f += chain_flops(v->args[i], depth + 1);
  return f;
}

bool pass_hoist(GnnCtx *c, Module *m) {
  (void)c;
  if (!m->fused) return false;
  int n = m->vals.len;
  bool *inv = calloc((size_t)n + 1, sizeof(bool));
  bool *read_fwd = calloc((size_t)n + 1, sizeof(bool)); /* read by a forward value that is not a graph value */
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    inv[i] = graph_only(v, inv);
  }
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    if (v->bwd || inv[i]) continue;
    for (int a = 0; a < v->nargs; a++) read_fwd[v->args[a]->id] = true;
  }
  /* the weights of a forward SpMM (--spmm=cusparse), a root in an edge rows group of graph values
   * alone, move with that whole group into the new one (other roots stay: one the backward alone
   * reads from memory is made by training forwards only) */
  bool *spmm_weight = calloc((size_t)n + 1, sizeof(bool));
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    Value *x, *w;
    int dir;
    if (!v->bwd && v->sched == SCHED_LIBRARY && !value_is_gemm(v) && value_spmm_operands(v, &x, &w, &dir) && w) spmm_weight[w->id] = true;
  }
  bool *graph_group = malloc((size_t)m->ngroups + 1);
  for (int g = 0; g < m->ngroups; g++) graph_group[g] = m->groups[g].kind == FG_ROWS && m->groups[g].rows == DOM_EDGE && !m->groups[g].bwd;
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    if ((v->sched == SCHED_ROOT || v->sched == SCHED_ANCHOR) && v->group >= 0 && !inv[i]) graph_group[v->group] = false;
  }
  int nhoist = 0;
  bool *hoist = calloc((size_t)n + 1, sizeof(bool));
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    bool movable = v->sched == SCHED_INLINE || (v->sched == SCHED_ROOT && spmm_weight[i] && v->group >= 0 && graph_group[v->group]);
    hoist[i] = inv[i] && read_fwd[i] && movable && v->dom == DOM_EDGE && v->elem == ELEM_F32 && !v->f64 &&
               shape_elems(&v->shape) <= HOIST_MAX_WIDTH && chain_flops(v, 0) >= 1;
    nhoist += hoist[i];
  }
  free(graph_group);
  free(spmm_weight);
  free(inv);
  free(read_fwd);
  if (!nhoist) {
    free(hoist);
    return false;
  }
  /* the new group first: it reads only the graph, and every walk that reads its values follows */
  FuseGroup *gs = arena_alloc(m->arena, sizeof(FuseGroup) * ((size_t)m->ngroups + 2));
  gs[0] = (FuseGroup){.id = 0, .kind = FG_ROWS, .rows = DOM_EDGE, .per_graph = true};
  for (int g = 0; g < m->ngroups; g++) {
    gs[g + 1] = m->groups[g];
    gs[g + 1].id = gs[g + 1].order = g + 1;
  }
  for (int i = 0; i < n; i++) {
    Value *v = m->vals.items[i];
    if (hoist[i]) {
      v->sched = SCHED_ROOT;
      v->group = 0;
    } else if (v->group >= 0) {
      v->group++;
    }
  }
  free(hoist);
  m->groups = gs;
  m->ngroups++;
  return true;
}
