/* lower_groups.c -- the kernels of the fused groups other than walks: FG_ROWS (a group of lanes
 * per row storing the group's roots, then the terms of the sums that joined it; the dots it
 * computes at its row spread over the lanes, --dots=spread: find_spread), FG_SINK
 * (reduce_rows: a float64 sum over every row, then one row rounds it), FG_EDGE_REDUCE (--mapping=edge: a group per edge, atomics into the
 * vertex's row, a finish) and FG_GEMM with folded attention dots (the weight [W | W.a ...], then
 * one GEMM).
 *
 * It sits beside lower_walk.c, on the fused lowering (lower_fused.c: eval, the fused kernel;
 * lower_stage.c: staging) and what lies below it (lower_op.c, kbuild.c); lower.c, the driver, calls one of
 * its functions per group of these kinds, and it calls nothing above it. lower_fused.c's header
 * comment has the whole picture.
 */
#include "lower_groups.h"
#include "lower_stage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The context of a kernel with a group per edge: the edge is the row, its ends in uniform locals
 * u = src[row] and v = dst[row]. */
static Ctx edge_row_ctx(Lower *L, Kernel *k) {
  int su = add_local(L, k, "u", KT_I64, 0, true), sv = add_local(L, k, "v", KT_I64, 0, true);
  ks_let(L, &k->body, su, NULL, kgraph(L, k, KG_SRC, krow(L)));
  ks_let(L, &k->body, sv, NULL, kgraph(L, k, KG_DST, krow(L)));
  return (Ctx){.edge = krow(L), .src = kvar(L, k, su, NULL), .dst = kvar(L, k, sv, NULL)};
}

/* ---- the sums over the rows (reduce_rows): every row adds its term into a float64 accumulator */

static KExpr *matmul_term(Fused *F, const Value *v, const Ctx *cx, KExpr *o, KExpr *lead) {
  Lower *L = F->L;
  const Value *x = v->args[0], *y = v->args[1];
  int64_t K = x->shape.d[x->shape.rank - 1], C = shape_elems(&v->shape) / K;
  KExpr *kk = kbin(L, KO_DIV, o, ki(L, C)), *c = kbin(L, KO_MOD, o, ki(L, C));
  return kbin(L, KO_MUL, eval(F, x, cx, kbin(L, KO_ADD, kbin(L, KO_MUL, lead, ki(L, K)), kk)),
              eval(F, y, cx, kbin(L, KO_ADD, kbin(L, KO_MUL, lead, ki(L, C)), c)));
}

/* The row's term of sum v added into acc, in lanes of k's body. */
static void sum_row_term(Fused *F, Kernel *k, Value *v, const Ctx *cx, KBuf *acc) {
  Lower *L = F->L;
  int64_t n = shape_elems(&v->shape);
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  L->cur_blk = lanes;
  KExpr *kk = kvar(L, k, kv, NULL), *term;
  if (v->fn == FN_MATMUL_TN) { /* a small x^T y: the sum over the leading dims of the row */
    const Value *x = v->args[0];
    int64_t lead = shape_elems(&x->shape) / x->shape.d[x->shape.rank - 1];
    int t = add_local(L, k, "mt", KT_F32, 0, false), j = add_local(L, k, "j", KT_I64, 0, false);
    ks_let(L, lanes, t, NULL, kf(L, 0));
    PtrVec *body = ks_for(L, k, lanes, j, ki(L, 0), ki(L, lead));
    L->cur_blk = body;
    KExpr *tt = matmul_term(F, v, cx, kk, kvar(L, k, j, NULL));
    ks_let(L, body, t, NULL, kbin(L, KO_ADD, kvar(L, k, t, NULL), tt));
    L->cur_blk = lanes;
    term = kvar(L, k, t, NULL);
  } else {
    term = eval(F, v->args[0], cx, kk);
  }
  ks_atomic(L, k, lanes, KO_ADD, acc, NULL, kk, kun(L, KU_TO_F64, term));
  /* a sum into a handful of addresses: per block (per thread on the host), then one atomic; a
   * double per element in the CUDA block's shared memory, so only while the block, at its full
   * 256/G groups, stays within GNN_SHARED_MAX (48 KB); the others are plain atomics */
  if (n <= 1024 && kernel_shared_bytes(k, GNN_CUDA_BLOCK / k->group) + n * 8 <= GNN_SHARED_MAX)
    ((KStmt *)lanes->items[lanes->len - 1])->count = 1;
  F->seen[v->id] = true;
}

/* The accumulators of the group's sums, zeroed by steps before its kernel (NULL for a root). */
static KBuf **sum_accumulators(Fused *F, Value **mem, int nmem) {
  KBuf **acc = calloc((size_t)nmem + 1, sizeof(KBuf *));
  for (int i = 0; i < nmem; i++)
    if (mem[i]->op == OP_REDUCE_ROWS) acc[i] = sum_scratch(F->L, mem[i]);
  return acc;
}

/* After the kernel: each sum's float64 total rounded into its value. */
static void finish_sums(Fused *F, Value **mem, int nmem, KBuf **acc) {
  for (int i = 0; i < nmem; i++)
    if (acc[i]) finish_rows(F->L, mem[i], acc[i], FN_NONE, false);
}

/* ---- reductions spread over the lanes, in a kernel per row */

/* mark[x]: x is one of from, or a value computed here that one of them reads (through others). */
static void reach_computed(Fused *F, Value *const *from, int nfrom, bool *mark) {
  PtrVec stack = {0};
  for (int i = 0; i < nfrom; i++) mark[from[i]->id] = true, vec_push(F->L->a, &stack, from[i]);
  while (stack.len) {
    const Value *x = stack.items[--stack.len];
    for (int a = 0; a < x->nargs; a++) {
      Value *y = x->args[a];
      if (mark[y->id] || y->op == OP_CONST || !computed_here(F, y)) continue;
      mark[y->id] = true;
      vec_push(F->L->a, &stack, y);
    }
  }
}

/* A dot or sum_last with at most 4 outputs over at least 16 elements (split_reduce_len) that a
 * kernel per row computes at its row: GAT's d(alpha) = <X_u, G_v> per head in the attention
 * backward's kernel per edge (4 heads of 64 on the Reddit-sized graph of issue 29), t_v =
 * <G_v, out_v> per vertex. Computed where it is read, lane k takes output k and loops over the
 * reduced dim alone: the lanes of a warp read rows 256 bytes apart, a sector each per load, and a
 * group is as narrow as the outputs (4 lanes). Spread, the lanes take the reduced dim together
 * (lane l its elements l, l + G, ...: a load is one row's 128 contiguous bytes) and a group
 * reduction adds their parts, as the unfused kernel of the same value does (lower_op.c,
 * spread_sum). The group widens to a quarter of the reduced dim (at most 32). *out: such values
 * the group's members read at the row (or are), in value order; returns how many and, in *len,
 * the longest reduced dim. */
static int find_spread(Fused *F, Value **mem, int nmem, Domain rows, Value **out, int64_t *len) {
  int n = F->m->vals.len, nout = 0, nroots = 0;
  bool *reach = calloc((size_t)n + 1, 1);
  Value **roots = malloc(sizeof(Value *) * ((size_t)nmem + 1)); /* the sums' terms are not looked into */
  for (int i = 0; i < nmem; i++)
    if (mem[i]->op != OP_REDUCE_ROWS) roots[nroots++] = mem[i];
  reach_computed(F, roots, nroots, reach);
  free(roots);
  *len = 0;
  for (int i = 0; i < n; i++) { /* in value order: one spread may read another's value (computed inline there) */
    Value *x = F->m->vals.items[i];
    bool red = x->op == OP_APPLY_EDGE || x->op == OP_APPLY_VERTEX || x->op == OP_SCATTER;
    if (!reach[x->id] || !red || x->dom != rows || !split_reduce_len(F->L, x)) continue;
    out[nout++] = x;
    if (split_reduce_len(F->L, x) > *len) *len = split_reduce_len(F->L, x);
  }
  free(reach);
  return nout;
}

/* Before member v of the kernel: the spread values v reads that are not made yet, at the row cx,
 * each output j by the group's lanes together (spread_sum) into a shared array sh_red<id>
 * (float64 for an f64 value), then a barrier; eval reads them there at the row (staged_at),
 * elsewhere computes them as before. Made here, not before every root: a spread value that reads
 * a root stored above reads it back instead of computing it again (the attention gradient's t_v
 * reads the ELU's gradient, a dropout hash and an exp an element, that the kernel stores first). */
/* The values stage_row_pick picked (st, in value order) are made here too, merged with the spread
 * ones in value order (either may read the other), each after a barrier: a staged value reads the
 * roots stored above and the spread sums made here, not their computations inline. */
static void spread_before(Fused *F, Value **sp, int nsp, bool *made, Value **st, int nst, bool *made_st, Value *v,
                          const Ctx *cx) {
  Lower *L = F->L;
  Kernel *k = F->k;
  int any = 0;
  bool *reach = calloc((size_t)F->m->vals.len + 1, 1);
  reach_computed(F, &v, 1, reach);
  for (int i = 0, s = 0; i < nsp || s < nst;) {
    if (s < nst && (i >= nsp || st[s]->id < sp[i]->id)) { /* a staged value next */
      if (!made_st[s] && reach[st[s]->id]) {
        if (any) ks_new(L, &k->body, KS_BARRIER);
        any = 0;
        made_st[s] = true;
        stage_row_one(F, st[s], cx); /* its barrier after */
      }
      s++;
      continue;
    }
    Value *x = sp[i++];
    if (made[i - 1] || !reach[x->id]) continue;
    made[i - 1] = true;
    any = 1;
    int sh = add_shared(L, k, arena_printf(L->a, "sh_red%d", x->id), x->f64 ? KT_F64 : KT_F32, width_of(x));
    int j = add_local(L, k, "j", KT_I64, 0, true);
    PtrVec *body = ks_for(L, k, &k->body, j, ki(L, 0), ki(L, width_of(x)));
    L->cur_blk = body;
    FReader fr;
    Reader r = fused_reader(F, x, cx, &fr);
    F->seen[x->id] = true;
    int part = spread_sum(L, k, body, &r, x, kvar(L, k, j, NULL));
    PtrVec *first = ks_if(L, body, kbin(L, KO_EQ, klane(L), ki(L, 0)));
    ks_shstore(L, first, sh, kvar(L, k, j, NULL), kvar(L, k, part, NULL));
    F->stage[x->id] = sh;
  }
  free(reach);
  if (any) ks_new(L, &k->body, KS_BARRIER);
}

/* The staged values (stage_row_pick) v reads that are not made yet, made before it (a walk's
 * epilogue: lower_walk.c) */
void stage_before(Fused *F, Value **st, int nst, bool *made_st, Value *v, const Ctx *cx) {
  spread_before(F, NULL, 0, NULL, st, nst, made_st, v, cx);
}

/* ---- FG_ROWS: a group of lanes per row storing each root of the group, then the sums over the
 * rows that joined it (fuse.c, sink_host): their terms read this row's roots where it stored them */

void lower_rows(Fused *F, const FuseGroup *g, Value **mem, int nmem) {
  Lower *L = F->L;
  int maxw = 1;
  for (int i = 0; i < nmem; i++)
    if (width_of(mem[i]) > maxw) maxw = width_of(mem[i]);
  /* the roots in value order, then the sums (each reads roots made before it) */
  Value **ord = malloc(sizeof(Value *) * ((size_t)nmem + 1));
  int nord = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < nmem; i++)
      if ((mem[i]->op == OP_REDUCE_ROWS) == (pass == 1)) ord[nord++] = mem[i];
  mem = ord;
  int nroots = 0;
  while (nroots < nmem && mem[nroots]->op != OP_REDUCE_ROWS) nroots++;
  const char *name = group_name(F, mem, nroots);
  if (nroots < nmem) name = arena_printf(L->a, "%s_sums", name);
  KBuf **acc = sum_accumulators(F, mem, nmem);
  Value **spread = calloc((size_t)F->m->vals.len + 1, sizeof(Value *));
  int64_t spread_len = 0;
  int nspread = g->rows == DOM_GLOBAL || L->c->serial_dots ? 0 : find_spread(F, mem, nmem, g->rows, spread, &spread_len);
  /* about 4 elements a lane: a group of G lanes reads 4G contiguous bytes a load (a warp: 32 / G
   * rows, a line or a part of one each), and 32 / G edges stay in flight per warp; a lane per
   * element (G = 32 for D >= 32) would leave one edge per warp waiting on its loads (the GPU
   * estimate: GAT's second-layer kernel per edge on the Reddit-sized graph 5.1 ms serial, 9.0 ms
   * a lane per element, 5.1 ms at 4 elements a lane) */
  int64_t spread_lanes = (spread_len + 3) / 4;
  if (spread_lanes > maxw) maxw = (int)(spread_lanes < 32 ? spread_lanes : 32);
  Mapping map = g->rows == DOM_VERTEX ? MAP_VERTEX : g->rows == DOM_EDGE ? MAP_EDGE : MAP_GLOBAL;
  Kernel *k = fused_kernel(F, "", map, g->rows == DOM_EDGE ? DOM_EDGE : g->rows == DOM_VERTEX ? DOM_VERTEX : DOM_GLOBAL,
                           group_for(maxw), g->bwd, name);
  int kstep = L->p->nsteps - 1; /* the kernel's step (the sums' finishes follow it) */
  Ctx cx = {0};
  if (g->rows == DOM_VERTEX) cx = vertex_ctx(krow(L), true);
  int nst = 0;
  Value **staged = NULL;
  if (g->rows == DOM_EDGE) cx = edge_row_ctx(L, k);
  bool *made = calloc((size_t)nspread + 1, 1);
  F->st_row = true; /* eval reads the spread values (and the staged ones) at the row */
  if (g->rows == DOM_EDGE || g->rows == DOM_VERTEX) nst = stage_row_pick(F, mem, nmem, &staged);
  bool *made_st = calloc((size_t)nst + 1, 1);
  for (int i = 0; i < nmem; i++) {
    Value *v = mem[i];
    spread_before(F, spread, nspread, made, staged, nst, made_st, v, &cx);
    if (acc[i]) {
      sum_row_term(F, k, v, &cx, acc[i]);
      continue;
    }
    int kv, iv;
    PtrVec *lanes = ks_lanes(L, k, &k->body, width_of(v), &kv, &iv);
    L->cur_blk = lanes;
    KExpr *kk = kvar(L, k, kv, NULL);
    KExpr *row = g->rows == DOM_GLOBAL ? NULL : krow(L);
    KExpr *val = F->stage[v->id] >= 0 ? eval(F, v, &cx, kk) : compute(F, v, &cx, kk); /* a spread root: its array */
    if (F->kept[v->id] && i + 1 < nmem) { /* the later roots read it from the group's array */
      store_kept(F, lanes, v, row, kk, val);
      ks_new(L, &k->body, KS_BARRIER);
      continue;
    }
    store(F, lanes, v, row, kk, val);
    if (!stash_only(F, v) && i + 1 < nmem) { /* the later roots and sums read it back, after the lanes meet */
      F->stored[v->id] = true;
      ks_new(L, &k->body, KS_BARRIER);
    }
  }
  unstage(F, staged, nst);
  unstage(F, spread, nspread);
  free(staged);
  free(spread);
  free(made);
  free(made_st);
  k->what = kernel_what(F);
  finish_sums(F, mem, nmem, acc);
  free(acc);
  /* a forward kernel that only writes stashes for the backward runs only when training */
  bool stashes = !g->bwd;
  for (int i = 0; i < nmem; i++) stashes &= stash_only(F, mem[i]);
  if (stashes) L->p->steps[kstep].train_only = true;
  /* the hoist pass's values of the graph alone: once per graph (lower.c keeps their buffers
   * alive over every step) */
  if (g->per_graph) {
    L->p->steps[kstep].per_graph = true;
    for (int i = 0; i < nmem; i++)
      if (L->buf_of[mem[i]->id]) L->buf_of[mem[i]->id]->per_graph = true;
  }
  /* an input's dropout alone in its kernel is the input itself when not training: the kernel
   * runs only when training, and an inference forward reads the input in place (no V x F copy,
   * no buffer in the inference arena; emit_model points the buffer at the input).
   * An output is not one: it lives in the model's own storage, which the kernel must fill in
   * every forward (KBuf.out is set after the groups, lower.c, so ask the module) */
  const Value *v = mem[0];
  KBuf *b = L->buf_of[v->id], *in = v->nargs ? L->buf_of[v->args[0]->id] : NULL;
  bool is_out = false;
  for (int i = 0; i < L->m->nouts; i++) is_out |= L->m->outs[i].val == v;
  if (!g->bwd && nmem == 1 && v->fn == FN_DROPOUT && v->args[0]->op == OP_INPUT && b && in && b->kind == BUF_TEMP &&
      !is_out && in->kind == BUF_INPUT && b->dom == in->dom && b->width == in->width && b->elem == in->elem) {
    b->alias = in;
    b->train_only = true;
    L->p->steps[kstep].train_only = true;
  }
  free(ord);
}

/* ---- FG_SINK: reduce_rows, a float64 sum over every row of its operand */

void lower_sink(Fused *F, const FuseGroup *g, Value **mem, int nmem) {
  Lower *L = F->L;
  int64_t maxn = 1;
  for (int s = 0; s < nmem; s++)
    if (shape_elems(&mem[s]->shape) > maxn) maxn = shape_elems(&mem[s]->shape);
  KBuf **acc = sum_accumulators(F, mem, nmem);
  Value *v = mem[0];
  Domain d = v->args[0]->dom;
  Kernel *k = fused_kernel(F, "", d == DOM_VERTEX ? MAP_VERTEX : MAP_EDGE, d, group_for(maxn), g->bwd,
                           arena_printf(L->a, "reduce_rows%s_%s", nmem > 1 ? arena_printf(L->a, "%d", nmem) : "", fn_info[v->fn].name));
  Ctx cx = vertex_ctx(krow(L), true);
  int nst = 0;
  Value **staged = NULL;
  if (d == DOM_EDGE) {
    cx = edge_row_ctx(L, k);
    nst = stage_rows(F, mem, nmem, &cx, &staged);
  } else if (g->bwd && d == DOM_VERTEX) { /* a backward's row sums read inside the terms' loops: once per row */
    nst = stage_rows(F, mem, nmem, &cx, &staged);
  }
  for (int si = 0; si < nmem; si++) sum_row_term(F, k, mem[si], &cx, acc[si]);
  unstage(F, staged, nst);
  free(staged);
  k->what = kernel_what(F);
  finish_sums(F, mem, nmem, acc);
  free(acc);
}

/* ---- FG_EDGE_REDUCE: --mapping=edge, atomics into the vertex rows, then a finish */

void lower_edge_reduce(Fused *F, const FuseGroup *g, Value *v) {
  Lower *L = F->L;
  int64_t n = shape_elems(&v->shape);
  bool agg = v->op == OP_AGGREGATE, sum = v->fn == FN_SUM || v->fn == FN_MEAN;
  int dir = agg ? GATHER_BY_DST : (int)v->iattr;
  KBuf *target = L->buf_of[v->id];
  int first_step = L->p->nsteps;
  if (sum) {
    target = sum_scratch(L, v);
    target->train_only = stash_only(F, v);
    /* an f64 sum the forward reads as float: the backward reads the float64 sums themselves */
    if (v->f64 && v->fn == FN_SUM && !v->bwd && L->buf_of[v->id]->elem != ELEM_F64) F->buf64[v->id] = target;
  } else {
    KStep *fill = add_step(L, STEP_FILL, describe(L, v), v->bwd);
    fill->buf = target;
    fill->fill = v->fn == FN_MAX ? -INFINITY : INFINITY;
  }
  Kernel *k = fused_kernel(F, "", MAP_EDGE, DOM_EDGE, group_for(n), g->bwd, group_name(F, &v, 1));
  k->dir = dir;
  Ctx cx = edge_row_ctx(L, k);
  Value **staged;
  int nst = stage_rows(F, &v, 1, &cx, &staged);
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, n, &kv, &iv);
  L->cur_blk = lanes;
  KExpr *kk = kvar(L, k, kv, NULL), *msg;
  if (agg) {
    FReader fr = {F, v, {vertex_ctx(cx.src, false), cx}, -1};
    Reader r = {fused_read, v->args, {NULL, NULL, NULL}, &fr};
    msg = fn_elem(L, k, lanes, v, v->msg, &r, kk, NULL);
  } else {
    msg = eval(F, v->args[0], &cx, kk);
  }
  int op = v->fn == FN_MAX ? KO_MAX : v->fn == FN_MIN ? KO_MIN : KO_ADD;
  ks_atomic(L, k, lanes, op, target, dir == GATHER_BY_SRC ? cx.src : cx.dst, kk, sum ? kun(L, KU_TO_F64, msg) : msg);
  unstage(F, staged, nst);
  free(staged);
  F->seen[v->id] = true;
  k->what = kernel_what(F);
  FnKind degfn = dir == GATHER_BY_SRC ? FN_OUT : FN_IN;
  if (sum) finish_rows(L, v, target, v->fn == FN_MEAN ? degfn : FN_NONE, v->fn == FN_MEAN);
  else finish_rows(L, v, target, degfn, false);
  /* a stash for the backward (checkpoint's softmax statistics): its steps run only when training
   * (its buffers are not in the inference arena) */
  for (int i = first_step; i < L->p->nsteps && stash_only(F, v); i++) L->p->steps[i].train_only = true;
}

/* ---- FG_GEMM with folded attention dots: the weight [W | W.a ...], then one GEMM */

typedef struct {
  Fused *F;
  const Value *h;    /* the GEMM result the dots read: here the weight's row instead */
  KBuf *w;
  int64_t width;     /* elements of a row of h (= of the weight) */
} FoldReader;

static KExpr *fold_read(Lower *L, Kernel *k, const Reader *r, int i, KExpr *idx) {
  const FoldReader *fr = r->ctx;
  if (r->args[i] == fr->h) return kload(L, k, fr->w, NULL, kbin(L, KO_ADD, kbin(L, KO_MUL, krow(L), ki(L, fr->width)), idx));
  Ctx global = {0};
  return eval(fr->F, r->args[i], &global, idx);
}

/* h = x W with the dots d_i = a_i . h folded in (passes/fuse.c, fold_attention_dots): a kernel
 * with a group per row r of W makes the K x C weight [W | W.a_1 | ...] (row r: W's row, then
 * the dots of a_i with it, d_i(W[r]) by d_i's own definition), then one GEMM writes h and the
 * dots side by side, C = HD + the dots' widths a row; readers find the dots at L->col_of. */
void lower_folded_gemm(Fused *F, const FuseGroup *g, Value **mem, int nmem) {
  Lower *L = F->L;
  Value *h = mem[0];
  const Value *x = h->args[0], *w = h->args[1];
  int64_t K = w->shape.d[0], HD = shape_elems(&h->shape);
  KBuf *out = L->buf_of[h->id], *wb = L->buf_of[w->id];
  int64_t C = out->width;
  KBuf *wcat = new_buf(L, BUF_TEMP, value_cname(L, h, "w", "_fold"), DOM_GLOBAL, ELEM_F32, K * C, NULL);
  wcat->bwd = g->bwd;
  const char *dots = "";
  for (int i = 1; i < nmem; i++) dots = arena_printf(L->a, "%s %%%d", dots, mem[i]->id);
  Kernel *k = fused_kernel(F, arena_printf(L->a, "the weight of %%%d with the dots%s as columns: [W | W.a]", h->id, dots), MAP_WEIGHT,
                           DOM_PARAM, group_for(C), g->bwd, "fold_dots");
  k->lines = src_lines(L, (const Value *const *)mem, nmem);
  k->nrows = K;
  int kv, iv;
  PtrVec *lanes = ks_lanes(L, k, &k->body, HD, &kv, &iv);
  KExpr *kk = kvar(L, k, kv, NULL);
  ks_store(L, k, lanes, wcat, NULL, kbin(L, KO_ADD, kbin(L, KO_MUL, krow(L), ki(L, C)), kk),
           kload(L, k, wb, NULL, kbin(L, KO_ADD, kbin(L, KO_MUL, krow(L), ki(L, HD)), kk)));
  for (int i = 1; i < nmem; i++) {
    Value *d = mem[i];
    FoldReader fr = {F, h, wb, HD};
    Reader r = {fold_read, d->args, {NULL, NULL, NULL}, &fr};
    lanes = ks_lanes(L, k, &k->body, width_of(d), &kv, &iv);
    L->cur_blk = lanes;
    kk = kvar(L, k, kv, NULL);
    KExpr *val = fn_elem(L, k, lanes, d, FN_DOT, &r, kk, NULL);
    ks_store(L, k, lanes, wcat, NULL, kbin(L, KO_ADD, kbin(L, KO_MUL, krow(L), ki(L, C)), kbin(L, KO_ADD, ki(L, L->col_of[d->id]), kk)),
             val);
    F->seen[d->id] = true;
  }
  KStep *s = add_step(L, STEP_GEMM, arena_printf(L->a, "%s, and the dots%s folded into it", describe(L, h), dots), g->bwd);
  KGemm *gm = &s->gemm;
  gm->m = kdim(1, x->dom);
  gm->n = kdim(C, DOM_GLOBAL);
  gm->k = kdim(K, DOM_GLOBAL);
  gm->a = L->buf_of[x->id], gm->lda = K;
  gm->b = wcat, gm->ldb = C;
  gm->c = out, gm->ldc = C;
  gm->beta = 0;
}
