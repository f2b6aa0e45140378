/* kbuild.c -- the kernel-building vocabulary: the bottom layer of the lowering.
 *
 * What a kernel-IR program is made of and how each piece is added: expressions (constants,
 * locals, lanes, rows, graph arrays, shared arrays, loads, operators), statements (lets,
 * stores, atomics, loops, lane loops, ifs), locals and shared arrays of a kernel, buffers,
 * steps (kernels, GEMMs, fills, zeros) and kernels; and finish_kernel, which drops what no
 * statement reads and recounts what a kernel touches. It knows nothing of operators or of the
 * fuse pass's groups: lower_op.c (one kernel per operator), lower_fused.c, lower_groups.c and
 * lower_walk.c (the fused groups) and lower.c (the driver) build with it, and it calls nothing of theirs.
 * kbuild.h declares it, with the Lower state every layer above shares.
 */
#include "kbuild.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- expression and statement builders */

KExpr *ke_new(Lower *L, KExprKind kind, KType t) {
  KExpr *e = arena_alloc(L->a, sizeof(KExpr));
  e->kind = kind;
  e->type = t;
  return e;
}
KExpr *kf(Lower *L, double f) {
  KExpr *e = ke_new(L, KE_FCONST, KT_F32);
  e->f = f;
  return e;
}
KExpr *ki(Lower *L, int64_t i) {
  KExpr *e = ke_new(L, KE_ICONST, KT_I64);
  e->i = i;
  return e;
}
KExpr *kvar(Lower *L, Kernel *k, int var, KExpr *idx) {
  KExpr *e = ke_new(L, KE_VAR, k->locals[var].type);
  e->var = var;
  e->a = idx;
  e->i = idx ? 0 : k->locals[var].ub;
  return e;
}
KExpr *klane(Lower *L) { return ke_new(L, KE_LANE, KT_I64); }
KExpr *krow(Lower *L) { return ke_new(L, KE_ROW, KT_I64); }
KExpr *kgraph(Lower *L, Kernel *k, KGraphArray g, KExpr *idx) {
  KExpr *e = ke_new(L, KE_GRAPH, KT_I64);
  e->garr = g;
  e->a = idx;
  k->graph[g] = true;
  return e;
}
KExpr *kshared(Lower *L, Kernel *k, int sh, KExpr *idx) {
  KExpr *e = ke_new(L, KE_SHARED, k->shared[sh].type);
  e->var = sh;
  e->a = idx;
  return e;
}
void use_buf(Kernel *k, KBuf *b, Lower *L) {
  for (int i = 0; i < k->bufs.len; i++)
    if (k->bufs.items[i] == b) return;
  vec_push(L->a, &k->bufs, b);
}
/* buf[row * width + idx]; row NULL for a one-row buffer (param, global). */
KExpr *kload(Lower *L, Kernel *k, KBuf *b, KExpr *row, KExpr *idx) {
  KExpr *e = ke_new(L, KE_LOAD, b->elem == ELEM_I32 ? KT_I64 : b->elem == ELEM_F64 ? KT_F64 : KT_F32);
  e->buf = b;
  e->a = dom_has_rows(b->dom) ? row : NULL;
  e->b = idx;
  use_buf(k, b, L);
  return e;
}
/* C's usual arithmetic conversions: double over float over integer. */
static KType wider(KType a, KType b) {
  return a == KT_F64 || b == KT_F64 ? KT_F64 : a == KT_F32 || b == KT_F32 ? KT_F32 : KT_I64;
}

KExpr *kbin(Lower *L, int op, KExpr *x, KExpr *y) {
  /* Fold integer constants so indices print as people would write them. */
  if (x->kind == KE_ICONST && y->kind == KE_ICONST) {
    int64_t a = x->i, b = y->i;
    switch (op) {
    case KO_ADD: return ki(L, a + b);
    case KO_SUB: return ki(L, a - b);
    case KO_MUL: return ki(L, a * b);
    case KO_DIV: if (b) return ki(L, a / b); break;
    case KO_MOD: if (b) return ki(L, a % b); break;
    default: break;
    }
  }
  /* (p*c + v) / c = p and (p*c + v) % c = v when a loop variable v is in [0, c): the indices of
   * views (slices, heads) read inside loops over their elements print as people write them */
  if (x->type == KT_I64 && y->kind == KE_ICONST && y->i > 0 && (op == KO_DIV || op == KO_MOD)) {
    int64_t c = y->i;
    if (x->kind == KE_VAR && x->i > 0 && x->i <= c) return op == KO_DIV ? ki(L, 0) : x;
    const KExpr *mul = x->kind == KE_BIN && x->op == KO_ADD ? x->a : x;
    const KExpr *v = x->kind == KE_BIN && x->op == KO_ADD ? x->b : NULL;
    if (mul->kind == KE_BIN && mul->op == KO_MUL && mul->b->kind == KE_ICONST && mul->b->i == c &&
        (!v || (v->kind == KE_VAR && v->i > 0 && v->i <= c)))
      return op == KO_DIV ? mul->a : v ? (KExpr *)v : ki(L, 0);
  }
  if (x->type == KT_I64 && y->kind == KE_ICONST) {
    if ((op == KO_ADD || op == KO_SUB) && y->i == 0) return x;
    if ((op == KO_MUL || op == KO_DIV) && y->i == 1) return x;
    if (op == KO_MUL && y->i == 0) return ki(L, 0);
    if (op == KO_MOD && y->i == 1) return ki(L, 0);
  }
  if (x->kind == KE_ICONST && y->type == KT_I64) {
    if (op == KO_ADD && x->i == 0) return y;
    if (op == KO_MUL && x->i == 1) return y;
    if (op == KO_MUL && x->i == 0) return ki(L, 0);
  }
  bool cmp = op >= KO_LT;
  KExpr *e = ke_new(L, KE_BIN, cmp ? KT_I64 : wider(x->type, y->type));
  e->op = op;
  e->a = x;
  e->b = y;
  return e;
}
KExpr *kun(Lower *L, int op, KExpr *x) {
  KType t = op == KU_TO_F32 ? KT_F32 : op == KU_TO_F64 ? KT_F64 : op == KU_TO_I64 || op == KU_NOT ? KT_I64 : x->type;
  KExpr *e = ke_new(L, KE_UN, t);
  e->op = op;
  e->a = x;
  return e;
}
KExpr *ksel(Lower *L, KExpr *c, KExpr *x, KExpr *y) {
  KExpr *e = ke_new(L, KE_SELECT, wider(x->type, y->type));
  e->a = c;
  e->b = x;
  e->c = y;
  return e;
}

/* e's value computed in float: every float64 operation of it in float32, a float64 shared array
 * with a float copy (shared_f32_copy) read there, another float64 local, shared element or load
 * rounded to float where it is read, a float widened to float64 read as itself. For a float64
 * message where no float64 is needed (an f64 sum's walk when not training, lower_walk.c): a float
 * operation per element where a conversion and a float64 one were. */
KExpr *knarrow(Lower *L, Kernel *k, KExpr *e) {
  if (e->type != KT_F64) return e;
  switch (e->kind) {
  case KE_UN:
    if (e->op == KU_TO_F64) return e->a->type == KT_F32 ? e->a : kun(L, KU_TO_F32, e->a);
    return kun(L, e->op, knarrow(L, k, e->a));
  case KE_BIN: return kbin(L, e->op, knarrow(L, k, e->a), knarrow(L, k, e->b));
  case KE_SELECT: return ksel(L, e->a, knarrow(L, k, e->b), knarrow(L, k, e->c));
  case KE_SHARED: {
    int f = shared_f32_copy(k, e->var);
    if (f >= 0) return kshared(L, k, f, e->a);
  } /* fall through */
  default: return kun(L, KU_TO_F32, e); /* a local, a shared element, a load */
  }
}

int add_local(Lower *L, Kernel *k, const char *name, KType t, int len, bool uniform) {
  if (k->nlocals == k->localcap) {
    int cap = k->localcap ? 2 * k->localcap : 16;
    KLocal *ls = arena_alloc(L->a, sizeof(KLocal) * (size_t)cap);
    if (k->nlocals) memcpy(ls, k->locals, sizeof(KLocal) * (size_t)k->nlocals);
    k->locals = ls;
    k->localcap = cap;
  }
  /* Names stay unique within the kernel: a second "acc" is "acc1" (no base name ends in a digit
   * followed by more locals of a shorter base: "j0" and "j" give j0, j01 and j, j1, ...). */
  void **slot = strmap_put(L->a, &k->local_names, name);
  intptr_t same = (intptr_t)*slot;
  const char *full = same ? arena_printf(L->a, "%s%d", name, (int)same) : name;
  /* nor the name of a buffer, which a kernel takes as a parameter of that name: a walk's chunk
   * position "t" numbered 1 would hide buffer t1 (the kernel reads the buffer in the loop) */
  while (strmap_get(&L->buf_names, full)) full = arena_printf(L->a, "%s%d", name, (int)++same);
  *slot = (void *)(same + 1);
  k->locals[k->nlocals] = (KLocal){full, t, len, uniform, 0};
  return k->nlocals++;
}
int add_shared(Lower *L, Kernel *k, const char *name, KType t, int len) {
  if (k->nshared == k->sharedcap) {
    int cap = k->sharedcap ? 2 * k->sharedcap : 4;
    KShared *ss = arena_alloc(L->a, sizeof(KShared) * (size_t)cap);
    if (k->nshared) memcpy(ss, k->shared, sizeof(KShared) * (size_t)k->nshared);
    k->shared = ss;
    k->sharedcap = cap;
  }
  k->shared[k->nshared] = (KShared){name, t, len, -1};
  return k->nshared++;
}

KStmt *ks_new(Lower *L, PtrVec *blk, KStmtKind kind) {
  KStmt *s = arena_alloc(L->a, sizeof(KStmt));
  s->kind = kind;
  vec_push(L->a, blk, s);
  return s;
}
void ks_let(Lower *L, PtrVec *blk, int var, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_LET);
  s->var = var;
  s->idx = idx;
  s->val = val;
}
void ks_shstore(Lower *L, PtrVec *blk, int sh, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_SHSTORE);
  s->var = sh;
  s->idx = idx;
  s->val = val;
}
void ks_store(Lower *L, Kernel *k, PtrVec *blk, KBuf *b, KExpr *row, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_STORE);
  s->buf = b;
  s->row = dom_has_rows(b->dom) ? row : NULL;
  s->idx = idx;
  s->val = val;
  use_buf(k, b, L);
}
void ks_atomic(Lower *L, Kernel *k, PtrVec *blk, int op, KBuf *b, KExpr *row, KExpr *idx, KExpr *val) {
  KStmt *s = ks_new(L, blk, KS_ATOMIC);
  s->op = op;
  s->buf = b;
  s->row = dom_has_rows(b->dom) ? row : NULL;
  s->idx = idx;
  s->val = val;
  use_buf(k, b, L);
}
PtrVec *ks_for(Lower *L, Kernel *k, PtrVec *blk, int var, KExpr *lo, KExpr *hi) {
  if (lo->kind == KE_ICONST && lo->i == 0 && hi->kind == KE_ICONST && hi->i > 0) k->locals[var].ub = hi->i;
  KStmt *s = ks_new(L, blk, KS_FOR);
  s->var = var;
  s->lo = lo;
  s->hi = hi;
  s->count = 1; /* step */
  return &s->body;
}
/* for (i = 0; k = lane + i*G < count; i++): the per-lane element loop. */
PtrVec *ks_lanes(Lower *L, Kernel *k, PtrVec *blk, int64_t count, int *kvar_out, int *ivar_out) {
  KStmt *s = ks_new(L, blk, KS_FOR_LANES);
  s->var = add_local(L, k, "k", KT_I64, 0, false);
  s->var2 = add_local(L, k, "i", KT_I64, 0, false);
  s->count = count;
  k->locals[s->var].ub = count; /* k = lane + i*G < count */
  *kvar_out = s->var;
  *ivar_out = s->var2;
  L->elem_loop = s;
  L->elem_outer = blk;
  return &s->body;
}
/* for (var = 0; var < n; var++) over the elements of a row, in blk: the element loop (Lower's
 * elem_loop) until ks_end_row_loop(prev) puts back the one before, so that what a read in its body
 * needs once per row (log_softmax's max and sum) goes before it. */
PtrVec *ks_row_loop(Lower *L, Kernel *k, PtrVec *blk, int var, int64_t n, ElemLoop *prev) {
  PtrVec *body = ks_for(L, k, blk, var, ki(L, 0), ki(L, n));
  *prev = (ElemLoop){L->elem_loop, L->elem_outer};
  L->elem_loop = blk->items[blk->len - 1];
  L->elem_outer = blk;
  return body;
}
void ks_end_row_loop(Lower *L, ElemLoop prev) {
  L->elem_loop = prev.loop;
  L->elem_outer = prev.outer;
}
/* Whether e is the same in every lane: no lane index, no per-lane local (kverify's rule). */
static bool expr_uniform(const Kernel *k, const KExpr *e) {
  if (!e) return true;
  if (e->kind == KE_LANE || e->kind == KE_KEEP) return false;
  if (e->kind == KE_VAR && (e->var < 0 || e->var >= k->nlocals || !k->locals[e->var].uniform)) return false;
  return expr_uniform(k, e->a) && expr_uniform(k, e->b) && expr_uniform(k, e->c);
}
static void assigned_locals(Lower *L, const PtrVec *blk, PtrVec *vars, bool *plain) {
  for (int i = 0; i < blk->len; i++) {
    const KStmt *s = blk->items[i];
    if (s->kind == KS_LET || s->kind == KS_FOR) vec_push(L->a, vars, (void *)(intptr_t)s->var);
    else *plain = false;
    if (s->kind == KS_FOR) assigned_locals(L, &s->body, vars, plain);
  }
}
static bool block_uniform(const Kernel *k, const PtrVec *blk) {
  for (int i = 0; i < blk->len; i++) {
    const KStmt *s = blk->items[i];
    if (!expr_uniform(k, s->idx) || !expr_uniform(k, s->val) || !expr_uniform(k, s->lo) || !expr_uniform(k, s->hi)) return false;
    if (s->kind == KS_FOR && !block_uniform(k, &s->body)) return false;
  }
  return true;
}
/* Makes the locals that blk (lets and serial loops, built to run where every lane of the group
 * has the same values) assigns uniform when everything it computes is the same in every lane:
 * the host then runs it once, not in a region of per-lane statements. Returns whether it did. */
bool ks_make_uniform(Lower *L, Kernel *k, const PtrVec *blk) {
  PtrVec vars = {0};
  bool plain = true;
  assigned_locals(L, blk, &vars, &plain);
  if (!plain) return false;
  for (int i = 0; i < vars.len; i++) k->locals[(intptr_t)vars.items[i]].uniform = true;
  if (block_uniform(k, blk)) return true;
  for (int i = 0; i < vars.len; i++) k->locals[(intptr_t)vars.items[i]].uniform = false;
  return false;
}
/* The position of statement s in block blk, -1 if it is not there. */
int ks_index(const PtrVec *blk, const KStmt *s) {
  for (int i = blk->len - 1; i >= 0; i--)
    if (blk->items[i] == s) return i;
  return -1;
}
/* Moves the statements of pre (a block built on its own) into blk just before its statement s,
 * which must be there (ks_index). */
void ks_insert_before(Lower *L, PtrVec *blk, const KStmt *s, const PtrVec *pre) {
  int at = ks_index(blk, s), n = pre->len;
  for (int i = 0; i < n; i++) vec_push(L->a, blk, NULL);
  memmove(&blk->items[at + n], &blk->items[at], sizeof(void *) * (size_t)(blk->len - n - at));
  memcpy(&blk->items[at], pre->items, sizeof(void *) * (size_t)n);
}
PtrVec *ks_if(Lower *L, PtrVec *blk, KExpr *cond) {
  KStmt *s = ks_new(L, blk, KS_IF);
  s->lo = cond;
  return &s->body;
}
/* An if whose condition every lane of the group shares (count 1): its statements stay outside
 * lane loops (a walk, a barrier, lane loops of their own may be inside). */
PtrVec *ks_uniform_if(Lower *L, PtrVec *blk, KExpr *cond) {
  KStmt *s = ks_new(L, blk, KS_IF);
  s->lo = cond;
  s->count = 1;
  return &s->body;
}

/* ---------------------------------------------------------------- buffers and steps */

KBuf *new_buf(Lower *L, KBufKind kind, const char *name, Domain dom, ElemType elem, int64_t width, Value *v) {
  /* Names from the source can meet (a name rebound in a loop, a model name that makes a
   * layer's prefix): the later buffer gets the first free _2, _3, ... */
  if (strmap_get(&L->buf_names, name)) {
    const char *base = name;
    for (int n = 2; strmap_get(&L->buf_names, name); n++) name = arena_printf(L->a, "%s_%d", base, n);
  }
  KBuf *b = arena_alloc(L->a, sizeof(KBuf));
  b->id = L->p->bufs.len;
  b->kind = kind;
  b->name = name;
  b->dom = dom == DOM_PARAM ? DOM_GLOBAL : dom;
  b->elem = elem;
  b->width = width;
  b->val = v;
  b->out = -1;
  b->first = b->last = -1;
  b->bwd = v && v->bwd;
  vec_push(L->a, &L->p->bufs, b);
  *strmap_put(L->a, &L->buf_names, name) = b;
  return b;
}

KBuf *degree_buf(Lower *L, FnKind which) {
  int i = which == FN_OUT ? 1 : which == FN_SIZE ? 2 : 0;
  static const char *const name[3] = {"in_deg", "out_deg", "graph_size"};
  if (!L->deg[i]) L->deg[i] = new_buf(L, BUF_DEGREE, name[i], i == 2 ? DOM_GRAPH : DOM_VERTEX, ELEM_F32, 1, NULL);
  L->deg[i]->fn = which;
  return L->deg[i];
}

KStep *add_step(Lower *L, StepKind kind, const char *what, bool bwd) {
  KProgram *p = L->p;
  if (p->nsteps == p->stepcap) {
    int cap = p->stepcap ? 2 * p->stepcap : 32;
    KStep *s = arena_alloc(L->a, sizeof(KStep) * (size_t)cap);
    if (p->nsteps) memcpy(s, p->steps, sizeof(KStep) * (size_t)p->nsteps);
    p->steps = s;
    p->stepcap = cap;
  }
  KStep *s = &p->steps[p->nsteps++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->what = what;
  if (kind == STEP_GEMM) s->gemm.tf32 = L->c->gemm_tf32;
  s->bwd = bwd;
  return s;
}

/* "%12 gather.sum" for comments. */
const char *describe(Lower *L, const Value *v) {
  if (v->op == OP_AGGREGATE)
    return arena_printf(L->a, "%%%d aggregate.%s.%s", v->id, fn_info[v->fn].name, fn_info[v->msg].name);
  return arena_printf(L->a, "%%%d %s.%s%s", v->id, op_info[v->op].name, fn_info[v->fn].name,
                      v->op == OP_GATHER && v->iattr == GATHER_BY_SRC ? " {by = src}" : "");
}

Kernel *new_kernel(Lower *L, const Value *v, const char *what, Mapping map, Domain rows, int group) {
  Kernel *k = arena_alloc(L->a, sizeof(Kernel));
  k->id = L->p->kernels.len;
  const char *fn = v->op == OP_AGGREGATE ? arena_printf(L->a, "aggregate_%s_%s", fn_info[v->fn].name, fn_info[v->msg].name)
                                         : arena_printf(L->a, "%s_%s", op_info[v->op].name, fn_info[v->fn].name);
  if (v->label) fn = value_cname(L, v, "", "");
  k->name = arena_printf(L->a, "k%d_%s%s_%s", k->id, fn, what, mapping_name(map));
  k->what = describe(L, v);
  k->lines = src_lines(L, &v, 1);
  k->map = map;
  k->rows = rows;
  k->group = group;
  k->dir = GATHER_BY_DST;
  vec_push(L->a, &L->p->kernels, k);
  KStep *s = add_step(L, STEP_KERNEL, k->what, v->bwd);
  s->kernel = k;
  return k;
}

/* The smallest power of two >= n, at most 32. */
int group_for(int64_t n) {
  int g = 1;
  while (g < n && g < 32) g *= 2;
  return g;
}

/* ---------------------------------------------------------------- names and dims */

/* The names a buffer must not take besides other buffers' (new_buf): what the generated model
 * struct and kernels name themselves. Only a name of the model itself can meet one (gat_h; a
 * model "In" with a value "ptr" would make in_ptr): a layer's path ends in a digit. */
static bool reserved_cname(const char *s) {
  static const char *const fixed[] = {"ctx", "g", "param", "grad", "out", "dropout_seed", "arena", "arena_mode",
                                      "forward_done", "trained", "backward_ready", "arena_bytes", "arena_infer_bytes",
                                      "unshared_bytes", "fixed_bytes", "offset", "nrows", "training", "seed"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (strcmp(s, fixed[i]) == 0) return true;
  for (int i = 0; i < KG__COUNT; i++)
    if (strcmp(s, kgraph_name[i]) == 0) return true;
  return false;
}

/* value_cname's base, or NULL where neither the source nor what v was made from names it. */
static const char *source_cname(Lower *L, const Value *v, int depth) {
  if (v->label && strchr(v->label, '.')) return c_ident(L, "", v->label);
  if (v->label) {
    const char *s = c_ident(L, arena_printf(L->a, "%s_", L->p->cname), v->label);
    return reserved_cname(s) ? arena_printf(L->a, "%s_v", s) : s;
  }
  if (v->op == OP_PARAM) { /* its last component: W of gatconv0.W */
    const char *dot = strrchr(v->name, '.');
    return c_ident(L, "", dot ? dot + 1 : v->name);
  }
  if (v->op == OP_INPUT || depth > 3) return NULL;
  for (int i = 0; i < L->m->nouts; i++) /* a gradient the module outputs: grad.gatconv0.W -> grad_gatconv0_W */
    if (L->m->outs[i].val == v && strncmp(L->m->outs[i].name, "grad.", 5) == 0) return c_ident(L, "", L->m->outs[i].name);
  /* values the passes made from named ones: a softmax statistic, a softmax, a projection */
  if (v->stat_of && (v->stat == STAT_MAX || v->stat == STAT_SUM)) {
    const char *s = source_cname(L, v->stat_of, depth + 1);
    return s ? arena_printf(L->a, "%s_%s", s, v->stat == STAT_MAX ? "max" : "sum") : NULL;
  }
  if (v->op == OP_REDUCE_SCATTER && v->nargs == 1) {
    const char *s = source_cname(L, v->args[0], depth + 1);
    return s ? arena_printf(L->a, "%s_softmax", s) : NULL;
  }
  if ((v->fn == FN_LINEAR || v->fn == FN_LINEAR_T) && v->nargs == 2 && !v->bwd && v->args[0]->label) {
    const char *x = source_cname(L, v->args[0], depth + 1), *w = source_cname(L, v->args[1], depth + 1);
    return x && w ? arena_printf(L->a, "%s_%s", x, w) : NULL;
  }
  return NULL;
}

/* The C name of a value's buffer (and of the kernels and shared subexpressions that compute it):
 * its label from the source, the instance path's dots as '_' (gatconv0.alpha -> gatconv0_alpha),
 * a name of the model itself after the model's C name (h -> gat_h); else a name made from the
 * named values it was made from (source_cname); else `unnamed` and the value id (t24). Then the
 * suffix. A layer path ends in a digit, so no C keyword or kernel local is ever made here;
 * new_buf makes buffers' names unique. Parameters keep their p_ names (made by lower.c). */
const char *value_source_cname(Lower *L, const Value *v) { return v->op == OP_PARAM ? NULL : source_cname(L, v, 0); }

const char *value_cname(Lower *L, const Value *v, const char *unnamed, const char *suffix) {
  const char *base = value_source_cname(L, v);
  if (!base) return arena_printf(L->a, "%s%d%s", unnamed, v->id, suffix);
  return arena_printf(L->a, "%s%s", base, suffix);
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* "11-13, 17": the source lines of n values, for the comment atop a kernel ("" if none). */
const char *src_lines(Lower *L, const Value *const *vals, int n) {
  int *ln = arena_alloc(L->a, sizeof(int) * ((size_t)n + 1)), m = 0;
  for (int i = 0; i < n; i++)
    if (vals[i]->loc.line > 0) ln[m++] = vals[i]->loc.line;
  qsort(ln, (size_t)m, sizeof(int), cmp_int);
  char *s = "";
  for (int i = 0; i < m;) {
    int j = i;
    while (j + 1 < m && ln[j + 1] <= ln[j] + 1) j++;
    s = arena_printf(L->a, "%s%s%d", s, *s ? ", " : "", ln[i]);
    if (ln[j] != ln[i]) s = arena_printf(L->a, "%s-%d", s, ln[j]);
    i = j + 1;
  }
  return s;
}

const char *c_ident(Lower *L, const char *prefix, const char *name) {
  char *s = arena_printf(L->a, "%s%s", prefix, name);
  for (char *q = s; *q; q++)
    if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'))) *q = '_';
  return s;
}

KDim kdim(int64_t mult, Domain d) { return (KDim){mult, d == DOM_PARAM ? DOM_GLOBAL : d}; }

/* ---------------------------------------------------------------- finishing a kernel: drop the dead locals, recount what it touches */

/* The locals (read) and shared arrays (shread) some expression or statement reads. */
static void reads_expr(const KExpr *e, bool *read, bool *shread) {
  if (!e) return;
  if (e->kind == KE_VAR) read[e->var] = true;
  if (e->kind == KE_SHARED) shread[e->var] = true;
  reads_expr(e->a, read, shread);
  reads_expr(e->b, read, shread);
  reads_expr(e->c, read, shread);
}

static void reads_block(const PtrVec *b, bool *read, bool *shread) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    reads_expr(s->row, read, shread);
    reads_expr(s->idx, read, shread);
    reads_expr(s->val, read, shread);
    reads_expr(s->lo, read, shread);
    reads_expr(s->hi, read, shread);
    if (s->kind == KS_GROUP_REDUCE) read[s->var] = true;
    if (s->kind == KS_FOR || s->kind == KS_FOR_LANES) read[s->var] = true;
    reads_block(&s->body, read, shread);
  }
}

/* Removes lets of locals nobody reads and stores to shared arrays nobody reads (a walk over
 * out-edges stages the edge ids, which only a kernel that loads edge values reads); true if it
 * removed any. */
static bool drop_dead(PtrVec *b, const bool *read, const bool *shread) {
  bool changed = false;
  int n = 0;
  for (int i = 0; i < b->len; i++) {
    KStmt *s = b->items[i];
    if ((s->kind == KS_LET && !read[s->var]) || (s->kind == KS_SHSTORE && !shread[s->var])) {
      changed = true;
      continue;
    }
    changed |= drop_dead(&s->body, read, shread);
    b->items[n++] = s;
  }
  b->len = n;
  return changed;
}

static void touches_expr(Lower *L, Kernel *k, const KExpr *e) {
  if (!e) return;
  if (e->kind == KE_GRAPH) k->graph[e->garr] = true;
  if (e->kind == KE_LOAD) use_buf(k, e->buf, L);
  if (e->kind == KE_KEEP || e->kind == KE_TRAINING) k->dropout = true;
  touches_expr(L, k, e->a);
  touches_expr(L, k, e->b);
  touches_expr(L, k, e->c);
}

static void touches_block(Lower *L, Kernel *k, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_STORE || s->kind == KS_ATOMIC || s->kind == KS_TICKET) use_buf(k, s->buf, L);
    touches_expr(L, k, s->row);
    touches_expr(L, k, s->idx);
    touches_expr(L, k, s->val);
    touches_expr(L, k, s->lo);
    touches_expr(L, k, s->hi);
    touches_block(L, k, &s->body);
  }
}

/* Builders add locals and graph reads generously (both ends of an edge, say); what no
 * statement reads is dropped here, so emitted kernels declare and pass only what they use. */
/* Renumbers the shared arrays read by expressions and stores after dropping the unread ones
 * (newid[i] < 0). Expressions may be shared between statements (a DAG): the first sweep marks
 * each renumbered node with a negative id, so that a second visit leaves it alone, and the
 * second sweep makes the ids positive again. */
static void renumber_shared_expr(KExpr *e, const int *newid, bool mark) {
  if (!e) return;
  if (e->kind == KE_SHARED) {
    if (mark && e->var >= 0) e->var = -1 - newid[e->var];
    else if (!mark && e->var < 0) e->var = -1 - e->var;
  }
  renumber_shared_expr(e->a, newid, mark);
  renumber_shared_expr(e->b, newid, mark);
  renumber_shared_expr(e->c, newid, mark);
}

static void renumber_shared_block(PtrVec *b, const int *newid, bool mark) {
  for (int i = 0; i < b->len; i++) {
    KStmt *s = b->items[i];
    if (s->kind == KS_SHSTORE && mark) s->var = newid[s->var];
    renumber_shared_expr(s->row, newid, mark);
    renumber_shared_expr(s->idx, newid, mark);
    renumber_shared_expr(s->val, newid, mark);
    renumber_shared_expr(s->lo, newid, mark);
    renumber_shared_expr(s->hi, newid, mark);
    renumber_shared_block(&s->body, newid, mark);
  }
}

void finish_kernel(Lower *L, Kernel *k) {
  bool *read = arena_alloc(L->a, (size_t)k->nlocals + 1), *shread = arena_alloc(L->a, (size_t)k->nshared + 1);
  do {
    memset(read, 0, (size_t)k->nlocals + 1);
    memset(shread, 0, (size_t)k->nshared + 1);
    reads_block(&k->body, read, shread);
  } while (drop_dead(&k->body, read, shread));
  int *newid = arena_alloc(L->a, sizeof(int) * ((size_t)k->nshared + 1)), n = 0;
  for (int i = 0; i < k->nshared; i++) newid[i] = shread[i] ? n++ : -1;
  if (n < k->nshared) {
    renumber_shared_block(&k->body, newid, true);
    renumber_shared_block(&k->body, newid, false);
    for (int i = 0; i < k->nshared; i++)
      if (newid[i] >= 0) k->shared[newid[i]] = k->shared[i];
    k->nshared = n;
    for (int i = 0; i < n; i++) /* a float copy whose float64 array went keeps storage of its own */
      if (k->shared[i].storage >= 0) k->shared[i].storage = newid[k->shared[i].storage];
  }
  memset(k->graph, 0, sizeof k->graph);
  k->dropout = false;
  k->bufs = (PtrVec){0};
  touches_block(L, k, &k->body);
  if (k->pieces) k->graph[k->dir == GATHER_BY_SRC ? KG_OUT_PIECE_ROW : KG_PIECE_ROW] = true; /* the emitters' prologue: a piece's row */
}

