/* kverify.c -- structural checks of the kernel IR (what lower_module produces), the kernel-level
 * counterpart of verify.c. The fuzz target runs it on every program it lowers
 * (tests/fuzz/fuzz_frontend.c), so a lowering bug that would make the emitters write wrong or
 * crashing code shows up as a verifier failure instead.
 *
 * What is checked:
 *   - steps: nfwd within [0, nsteps]; every step of a known kind with what it needs (a kernel of
 *     the program, GEMM operands, a buffer to zero or fill); GEMM sizes positive and leading
 *     dimensions at least the row length;
 *   - buffers: of the program, of a known kind, non-negative width; nothing writes an input, a
 *     parameter or a degree array (the generated code declares them const);
 *   - the memory plan: every step that uses an intermediate buffer lies within the buffer's
 *     lifetime [first, last] (the arena places buffers by these lifetimes, so a use outside it
 *     would read memory another buffer owns);
 *   - kernels: lanes per group a power of two up to 32; every buffer a statement or expression
 *     loads or stores is one of the kernel's parameters; per-row buffers are loaded with a row;
 *     locals and shared arrays in range; no NULL where an operand is required.
 * Returns the number of problems, each printed as "kverify: ..." to err (which may be NULL).
 */
#include "gnnc.h"

#include <string.h>

typedef struct {
  const KProgram *p;
  const Kernel *k;
  FILE *err;
  int problems;
} KV;

static void bad(KV *v, const char *fmt, const char *a, long long n) {
  v->problems++;
  if (!v->err) return;
  fputs("kverify: ", v->err);
  if (v->k) fprintf(v->err, "kernel %s: ", v->k->name ? v->k->name : "?");
  fprintf(v->err, fmt, a, n);
  fputc('\n', v->err);
}

static bool in_vec(const PtrVec *vec, const void *x) {
  for (int i = 0; i < vec->len; i++)
    if (vec->items[i] == x) return true;
  return false;
}

static bool writable(const KBuf *b) { return b->kind == BUF_TEMP; }

/* The memory plan: step s uses b, so s must lie in b's lifetime. */
static void use(KV *v, const KBuf *b, int s) {
  if (!b) return;
  if (!in_vec(&v->p->bufs, b)) {
    bad(v, "step %s%lld uses a buffer that is not the program's", "", s);
    return;
  }
  if (b->kind == BUF_TEMP && (b->first > s || b->last < s))
    bad(v, "buffer %s is used at step %lld, outside its lifetime", b->name ? b->name : "?", s);
}

static void expr(KV *v, const KExpr *e) {
  if (!e) {
    bad(v, "a NULL expression%s%lld", "", 0);
    return;
  }
  switch (e->kind) {
  case KE_FCONST: case KE_ICONST: case KE_LANE: case KE_ROW: case KE_TRAINING: break;
  case KE_VAR:
    if (e->var < 0 || e->var >= v->k->nlocals) bad(v, "local %s%lld out of range", "", e->var);
    else if (v->k->locals[e->var].len > 0 && !e->a) bad(v, "register array %s read without an index%lld", v->k->locals[e->var].name, 0);
    if (e->a) expr(v, e->a);
    break;
  case KE_SHARED:
    if (e->var < 0 || e->var >= v->k->nshared) bad(v, "shared array %s%lld out of range", "", e->var);
    if (e->a) expr(v, e->a);
    break;
  case KE_LOAD:
    if (!e->buf) {
      bad(v, "a load from no buffer%s%lld", "", 0);
      break;
    }
    if (!in_vec(&v->k->bufs, e->buf)) bad(v, "loads %s, which is not among its parameters%lld", e->buf->name, 0);
    if ((e->buf->dom == DOM_VERTEX || e->buf->dom == DOM_EDGE) && !e->a)
      bad(v, "loads per-row buffer %s without a row%lld", e->buf->name, 0);
    if (e->a) expr(v, e->a);
    if (e->b) expr(v, e->b);
    break;
  case KE_GRAPH:
    if (e->garr < 0 || e->garr >= KG__COUNT) bad(v, "graph array %s%lld out of range", "", e->garr);
    if (e->a) expr(v, e->a);
    break;
  case KE_BIN:
    expr(v, e->a);
    expr(v, e->b);
    break;
  case KE_UN:
    expr(v, e->a);
    break;
  case KE_SELECT:
    expr(v, e->a);
    expr(v, e->b);
    expr(v, e->c);
    break;
  case KE_KEEP:
    if (!(e->f >= 0 && e->f < 1)) bad(v, "dropout with p = %s%lld outside [0, 1)", "", (long long)(e->f * 100));
    if (e->a) expr(v, e->a);
    break;
  default: bad(v, "an expression of unknown kind %s%lld", "", e->kind);
  }
}

static void stmts(KV *v, const PtrVec *body);

static void stmt(KV *v, const KStmt *s) {
  if (!s) {
    bad(v, "a NULL statement%s%lld", "", 0);
    return;
  }
  switch (s->kind) {
  case KS_LET:
    if (s->var < 0 || s->var >= v->k->nlocals) bad(v, "let of local %s%lld out of range", "", s->var);
    if (s->idx) expr(v, s->idx);
    expr(v, s->val);
    break;
  case KS_STORE: case KS_ATOMIC:
    if (!s->buf) {
      bad(v, "a store to no buffer%s%lld", "", 0);
      break;
    }
    if (!in_vec(&v->k->bufs, s->buf)) bad(v, "stores to %s, which is not among its parameters%lld", s->buf->name, 0);
    if (!writable(s->buf)) bad(v, "stores to %s, an input, parameter or degree array%lld", s->buf->name, 0);
    if ((s->buf->dom == DOM_VERTEX || s->buf->dom == DOM_EDGE) && !s->row)
      bad(v, "stores to per-row buffer %s without a row%lld", s->buf->name, 0);
    if (s->row) expr(v, s->row);
    if (s->idx) expr(v, s->idx);
    expr(v, s->val);
    break;
  case KS_SHSTORE:
    if (s->var < 0 || s->var >= v->k->nshared) bad(v, "store to shared array %s%lld out of range", "", s->var);
    if (s->idx) expr(v, s->idx);
    expr(v, s->val);
    break;
  case KS_FOR:
    if (s->var < 0 || s->var >= v->k->nlocals) bad(v, "loop variable %s%lld out of range", "", s->var);
    expr(v, s->lo);
    expr(v, s->hi);
    stmts(v, &s->body);
    break;
  case KS_FOR_LANES:
    if (s->var < 0 || s->var >= v->k->nlocals || s->var2 < 0 || s->var2 >= v->k->nlocals)
      bad(v, "lane loop variable %s%lld out of range", "", s->var);
    if (s->count < 0) bad(v, "lane loop over %s%lld elements", "", s->count);
    stmts(v, &s->body);
    break;
  case KS_IF:
    expr(v, s->lo);
    stmts(v, &s->body);
    break;
  case KS_BARRIER: break;
  case KS_GROUP_REDUCE:
    if (s->var < 0 || s->var >= v->k->nlocals) bad(v, "group reduction of local %s%lld out of range", "", s->var);
    break;
  default: bad(v, "a statement of unknown kind %s%lld", "", s->kind);
  }
}

static void stmts(KV *v, const PtrVec *body) {
  for (int i = 0; i < body->len; i++) stmt(v, body->items[i]);
}

static void gemm_dim_ok(KV *v, const KDim *d, const char *which) {
  if (d->mult <= 0) bad(v, "GEMM dimension %s has multiplier %lld", which, d->mult);
}

int kir_verify(const KProgram *p, FILE *err) {
  KV v = {.p = p, .err = err};
  if (!p) {
    bad(&v, "no program%s%lld", "", 0);
    return v.problems;
  }
  if (p->nfwd < 0 || p->nfwd > p->nsteps) bad(&v, "nfwd %s%lld outside [0, nsteps]", "", p->nfwd);
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (!b) {
      bad(&v, "a NULL buffer%s%lld", "", i);
      continue;
    }
    if (b->width < 0) bad(&v, "buffer %s has width %lld", b->name ? b->name : "?", b->width);
    if (b->kind != BUF_INPUT && b->kind != BUF_PARAM && b->kind != BUF_DEGREE && b->kind != BUF_TEMP)
      bad(&v, "buffer %s has unknown kind %lld", b->name ? b->name : "?", b->kind);
    if (b->kind == BUF_TEMP && b->first >= 0 && (b->first > b->last || b->last >= p->nsteps))
      bad(&v, "buffer %s has lifetime ending at %lld, past the steps or before its start", b->name ? b->name : "?", b->last);
  }
  for (int s = 0; s < p->nsteps; s++) {
    const KStep *st = &p->steps[s];
    v.k = NULL;
    switch (st->kind) {
    case STEP_KERNEL: {
      const Kernel *k = st->kernel;
      if (!k || !in_vec(&p->kernels, k)) {
        bad(&v, "step %s%lld runs a kernel that is not the program's", "", s);
        break;
      }
      v.k = k;
      if (k->group < 1 || k->group > 32 || (k->group & (k->group - 1))) bad(&v, "%s%lld lanes per group", "", k->group);
      for (int i = 0; i < k->bufs.len; i++) use(&v, k->bufs.items[i], s);
      stmts(&v, &k->body);
      break;
    }
    case STEP_GEMM: {
      const KGemm *g = &st->gemm;
      if (!g->a || !g->b || !g->c) {
        bad(&v, "step %s%lld: a GEMM without its three operands", "", s);
        break;
      }
      use(&v, g->a, s), use(&v, g->b, s), use(&v, g->c, s);
      if (!writable(g->c)) bad(&v, "a GEMM writes %s, an input, parameter or degree array%lld", g->c->name, s);
      gemm_dim_ok(&v, &g->m, "m"), gemm_dim_ok(&v, &g->n, "n"), gemm_dim_ok(&v, &g->k, "k");
      if (g->lda < 1 || g->ldb < 1 || g->ldc < g->n.mult)
        bad(&v, "step %s%lld: a GEMM leading dimension is smaller than its row", "", s);
      if (g->beta != 0 && g->beta != 1) bad(&v, "step %s%lld: a GEMM with beta other than 0 or 1", "", s);
      break;
    }
    case STEP_ZERO: case STEP_FILL:
      if (!st->buf) {
        bad(&v, "step %s%lld zeroes or fills no buffer", "", s);
        break;
      }
      use(&v, st->buf, s);
      if (!writable(st->buf)) bad(&v, "a step writes %s, an input, parameter or degree array%lld", st->buf->name, s);
      break;
    default: bad(&v, "step %s%lld of unknown kind", "", s);
    }
  }
  return v.problems;
}
