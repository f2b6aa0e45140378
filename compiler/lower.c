/* lower.c -- the lowering's driver: from the operator IR to the kernel IR, the top layer.
 *
 * Requires: a verified module (after every pass the user asked for). Produces a KProgram: the
 * model as an ordered list of steps over buffers, which both emitters print. It owns the
 * decisions, and the files below it own the building:
 *   1. the buffers of the inputs, parameters and degrees (and, unfused, of every value);
 *   2. the steps: unfused, one value at a time in module order, forward then backward, with
 *      the thread mapping chosen here (--mapping=edge, or --edge-balanced naming the value:
 *      the caller passes that down as edge_named) and lowered by lower_op.c; fused, one group
 *      at a time in the fuse pass's order, each handed to the file of its kind (lower_walk.c,
 *      lower_groups.c, lower_op.c's GEMM and SpMM steps), after lower_fused.c has made the buffers;
 *   3. every kernel finished (kbuild.c) and every buffer's lifetime over the steps.
 * The layers below, each calling only downward: lower_walk.c and lower_groups.c -> (lower_pieces.c,
 * the walks' hub pieces) -> lower_fused.c -> lower_op.c -> kbuild.c (docs/architecture.md), and
 * lower_walk.c -> lower_tiles.c (the walks' column tiles, on the finished kernel) -> kbuild.c.
 * Nothing below calls back into this file or the pipeline.
 */
#include "lower.h"
#include "lower_groups.h"
#include "lower_walk.h"

#include <stdlib.h>
#include <string.h>

/* The fused module: the fuse pass's groups in order, each lowered by the file that owns its
 * kind (the walks: lower_walk.c; a single GEMM or an SpMM: lower_op.c; the rest: lower_groups.c). */
static void lower_groups(Lower *L) {
  Module *m = L->m;
  int n = m->vals.len;
  Fused fz, *F = &fz;
  fused_begin(F, L);
  Value **mem = malloc(sizeof(Value *) * ((size_t)n + 1));
  bool fwd_done = false;
  for (int gi = 0; gi < m->ngroups && L->ok; gi++) {
    const FuseGroup *g = &m->groups[gi];
    if (g->bwd && !fwd_done) {
      L->p->nfwd = L->p->nsteps;
      fwd_done = true;
    }
    int nmem = 0;
    for (int i = 0; i < n; i++) {
      Value *v = m->vals.items[i];
      if (grouped(v) && v->group == gi) mem[nmem++] = v;
    }
    if (!nmem) continue;
    fused_group(F, gi);
    switch (g->kind) {
    case FG_GEMM:
      if (nmem > 1) lower_folded_gemm(F, g, mem, nmem);
      else lower_gemm(L, mem[0]);
      break;
    case FG_SPMM: lower_spmm(L, mem[0]); break;
    case FG_WALK: lower_walk(F, g, mem, nmem); break;
    case FG_ROWS: lower_rows(F, g, mem, nmem); break;
    case FG_SINK: lower_sink(F, g, mem, nmem); break;
    case FG_EDGE_REDUCE: lower_edge_reduce(F, g, mem[0]); break;
    }
  }
  if (!fwd_done) L->p->nfwd = L->p->nsteps;
  free(mem);
  fused_end(F);
}

/* The buffers each step reads and writes, for the memory plan's lifetimes. */
static void touch(KBuf *b, int step) {
  if (!b) return;
  if (b->first < 0 || step < b->first) b->first = step;
  if (step > b->last) b->last = step;
}

/* The values whose bits every kernel must reproduce: the operands of an equality test, through
 * everything they are computed from. The backward of an extremum recomputes its argument and finds
 * the edges (elements) that hold it by equality with the forward's result (whose own operands are
 * so among the marked), so a dot the forward's walk sums serially and
 * the backward's kernel per edge spread over lanes (--dots=spread, the CUDA target's default)
 * differed in the last bit and the gradient went to no edge (a fuzzer's find, seed 61045). Such
 * values keep the serial loop everywhere (split_reduce_len); that no kernel contracts a * b + c
 * into an FMA another does not is the emitters' part (every float operation rounded once: kir.c,
 * cuda_rounded_fn; the host source's fp-contract pragma). Values come after their operands,
 * so one pass from the end marks every ancestor. */
static const bool *exact_values(Lower *L) {
  const Module *m = L->m;
  bool *exact = arena_alloc(L->a, (size_t)m->vals.len + 1);
  memset(exact, 0, (size_t)m->vals.len + 1);
  for (int i = m->vals.len - 1; i >= 0; i--) {
    const Value *v = m->vals.items[i];
    if (v->fn != FN_EQ && !exact[v->id]) continue;
    for (int a = 0; a < v->nargs; a++) exact[v->args[a]->id] = true;
  }
  return exact;
}

/* --vector-loads=4, decided on the finished kernel (after its column tiles): a kernel that gathers
 * rows (x[u, k]) takes 4 consecutive elements a lane (Kernel.vec) when its whole kernel can
 * (kernel_vec4_refusal) and a gathered load can then be one float4 (kload_vec4); a note says why
 * not otherwise. Only the CUDA emitter reads Kernel.vec: the host's lanes are serialised, and its
 * own vectoriser reads rows contiguously already. */
typedef struct {
  bool gathers;
} VecScan;

static void vec_visit(const Kernel *k, const KStmt *s, const KExpr *e, const KExpr *const *conds, int ncond, void *arg) {
  (void)k, (void)s, (void)conds, (void)ncond;
  if (kload_gathers(e)) ((VecScan *)arg)->gathers = true;
}

static bool expr_gathers(const KExpr *e) {
  return e && (kload_gathers(e) || expr_gathers(e->a) || expr_gathers(e->b) || expr_gathers(e->c));
}

/* Whether a lane loop of b gathers (any load), and whether one's gathers can be float4 (*vec) */
static bool lanes_gather(const Kernel *k, const PtrVec *b, bool in_lanes, bool *vec) {
  bool any = false;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (in_lanes && (expr_gathers(s->row) || expr_gathers(s->idx) || expr_gathers(s->val) || expr_gathers(s->lo))) any = true;
    if (s->kind == KS_FOR_LANES) {
      VecScan v = {false};
      kvec4_loads(k, s, vec_visit, &v);
      if (v.gathers) *vec = true;
    }
    if (lanes_gather(k, &s->body, in_lanes || s->kind == KS_FOR_LANES, vec)) any = true;
  }
  return any;
}

static void vector_loads(Lower *L, Kernel *k) {
  bool vec = false;
  if (!lanes_gather(k, &k->body, false, &vec)) return; /* nothing gathered: nothing to say */
  const char *why = kernel_vec4_refusal(k);
  if (!why && !vec) return; /* no gathered load can be one (rows of 41 floats, ...): the kernel IR says which are */
  if (!why) k->vec = 4;
  else if (L->c->diag.out)
    fprintf(L->c->diag.out, "%s: note: kernel %s (%s) keeps its gathers a float a lane although --vector-loads=4: %s\n", L->c->diag.path,
            k->name, k->what, why);
}

KProgram *lower_module(GnnCtx *c, Module *m, MappingChoice mapping, const bool *edge_named) {
  Lower L = {.c = c, .m = m, .a = &c->arena, .mapping = mapping, .ok = true};
  KProgram *p = arena_alloc(&c->arena, sizeof(KProgram));
  p->name = m->name;
  char *cn = arena_strdup(&c->arena, m->name);
  for (char *q = cn; *q; q++) *q = (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
  p->cname = cn;
  p->m = m;
  p->arena = &c->arena;
  L.p = p;
  L.buf_of = arena_alloc(&c->arena, sizeof(KBuf *) * (size_t)(m->vals.len + 1));
  L.col_of = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(m->vals.len + 1));
  L.exact = exact_values(&L);
  /* 1. one buffer per value, except constants (inlined) and degrees (the graph's arrays) */
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    int64_t w = shape_elems(&v->shape);
    switch (v->op) {
    case OP_CONST: break;
    case OP_DEGREE: L.buf_of[i] = degree_buf(&L, v->fn); break;
    case OP_INPUT: L.buf_of[i] = new_buf(&L, BUF_INPUT, c_ident(&L, "in_", v->name), v->dom, ELEM_F32, w, v); break;
    case OP_PARAM:
      L.buf_of[i] = new_buf(&L, BUF_PARAM, c_ident(&L, "p_", v->name), DOM_GLOBAL, ELEM_F32, w, v);
      p->nparams++;
      break;
    default:
      /* fused: lower_fused.c makes buffers for what lives in memory, and nothing else */
      if (!m->fused) L.buf_of[i] = new_buf(&L, BUF_TEMP, value_cname(&L, v, "t", ""), v->dom, v->elem, w, v);
    }
  }
  if (m->fused) lower_groups(&L);
  for (int i = 0; i < m->nouts; i++) {
    KBuf *b = L.buf_of[m->outs[i].val->id];
    if (b && b->out < 0) b->out = i;
  }
  /* 2. steps: the forward values, then the backward ones (fused: made above) */
  for (int pass = 0; pass < 2 && !m->fused; pass++) {
    for (int i = 0; i < m->vals.len; i++) {
      Value *v = m->vals.items[i];
      if (v->bwd == (pass == 1)) lower_op_value(&L, v, mapping == MAPPING_EDGE || (edge_named && edge_named[v->id]));
    }
    if (pass == 0) p->nfwd = p->nsteps;
  }
  if (!L.ok) return NULL;
  for (int i = 0; i < p->kernels.len; i++) finish_kernel(&L, p->kernels.items[i]);
  if (c->vector_loads == 4)
    for (int i = 0; i < p->kernels.len; i++) vector_loads(&L, p->kernels.items[i]);
  /* 3. lifetimes */
  for (int s = 0; s < p->nsteps; s++) {
    KStep *st = &p->steps[s];
    if (st->kind == STEP_GEMM) {
      touch(st->gemm.a, s);
      touch(st->gemm.b, s);
      touch(st->gemm.c, s);
    } else if (st->kind == STEP_SPMM) {
      touch(st->spmm.x, s);
      touch(st->spmm.w, s);
      touch(st->spmm.y, s);
    } else if (st->kind == STEP_KERNEL) {
      for (int b = 0; b < st->kernel->bufs.len; b++) touch(st->kernel->bufs.items[b], s);
    } else {
      touch(st->buf, s);
    }
  }
  /* values of the graph alone live from the first step to the last: the per-graph step that
   * writes them runs only on a new graph, and every later call reads them */
  for (int i = 0; i < p->bufs.len; i++) {
    KBuf *b = p->bufs.items[i];
    if (b->per_graph) b->first = 0, b->last = p->nsteps - 1;
  }
  return p;
}

