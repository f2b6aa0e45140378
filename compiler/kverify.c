/* kverify.c -- structural checks of the kernel IR (what lower_module produces, unfused or fused),
 * the kernel-level counterpart of verify.c. The pipeline runs it after lower when verify_each is
 * on, and the fuzz target on every program it lowers (tests/fuzz/fuzz_frontend.c), so a lowering
 * bug that would make the emitters write wrong or crashing code shows up as a verifier failure
 * instead.
 *
 * What is checked:
 *   - steps: nfwd within [0, nsteps]; every step of a known kind with what it needs (a kernel of
 *     the program, GEMM operands, a buffer to zero or fill); GEMM sizes positive and leading
 *     dimensions at least the row length;
 *   - buffers: of the program, of a known kind, non-negative width; nothing writes an input, a
 *     parameter or a degree array (the generated code declares them const); a training-only
 *     buffer is a forward value (not a backward one, defined in the forward);
 *   - the memory plans: every step that uses an intermediate buffer lies within the buffer's
 *     lifetime [first, last] (the arenas place buffers by these lifetimes, so a use outside it
 *     would read memory another buffer owns). The inference plan (emit_model.c) leaves out the
 *     backward's buffers and the training-only stashes: their pointers are NULL after an inference
 *     forward, so a forward step may touch such a buffer only inside a kernel, under a training
 *     guard (`if training`, `training && ...`, or the true side of `training ? a : b`), and never
 *     in a GEMM, zero or fill;
 *   - kernels: lanes per group a power of two up to 32; every buffer a statement or expression
 *     loads or stores is one of the kernel's parameters, every graph array one it declares, the
 *     training flag and dropout only in a kernel that takes them (Kernel.dropout); per-row buffers
 *     are loaded with a row; locals and shared arrays in range, shared arrays of positive length
 *     and a constant index within it; no NULL where an operand is required;
 *   - lanes and uniformity (what the emitters rely on: the host serialises the lanes MCUDA-style,
 *     keeping uniform statements outside the lane loops; CUDA needs every lane at a barrier):
 *     barriers and group reductions only where every lane of the group gets to them (not inside a
 *     lane loop, a per-lane loop or a per-lane `if`); a uniform `if` (count 1), a uniform local's
 *     value and a uniform loop's bounds computed from uniform values only (no lane, no per-lane
 *     local); a walk (the loop over a row's edges) only in a vertex-mapped kernel, over a uniform
 *     loop variable, where every lane takes it;
 *   - block-reduced atomics (count 1): sums (atomic_add) into a one-row buffer, without a row, at
 *     most 8 target buffers per kernel (what the emitters' per-block arrays hold);
 *   - indices in range (in_range_index): every index that is evaluated whenever its statement runs
 *     (not inside an arm of a select, which C and CUDA evaluate lazily) and whose value interval
 *     follows from constants, the lane, lane loops (k in [0, count)) and loops with constant
 *     bounds lies within what it indexes: a shared array's length, a register array's, a row's
 *     width. Other values (rows, edges, loads, lets) are unknown and make an index unchecked. The
 *     lowering once emitted the statements a fused operand needs (a sum_heads loop) ahead of a
 *     concat's select, unclamped, for every lane: a shared array read at -2 and at 18 of 10, an
 *     illegal address on CUDA (tests/lang/multi.gnn, backward, vertex mapping) and an unseen
 *     out-of-bounds read on the host;
 *   - shared memory (shared_fits): a CUDA block of one group holds at most GNN_SHARED_MAX bytes
 *     (48 KB) of static shared memory, every per-group array and the block's sums counted, so
 *     that kernel_groups_per_block finds a block that fits and ptxas never refuses one.
 * Returns the number of problems, each printed as "kverify: ..." to err (which may be NULL).
 */
#include "kir.h"

#include <stdlib.h>
#include <string.h>

/* An interval of integer values [lo, hi], or unknown. */
typedef struct {
  bool known;
  int64_t lo, hi;
} Range;

typedef struct {
  const KProgram *p;
  const Kernel *k;
  FILE *err;
  int problems;
  bool fwd;     /* the step being checked is part of the forward pass */
  Range *range; /* per local of k: a loop variable's values while its loop is being checked */
} KV;

/* Where a statement or expression sits in its kernel. */
typedef struct {
  bool lanes;   /* per-lane code: inside a lane loop, a per-lane loop or a per-lane if */
  bool trained; /* under a training guard: runs only when the forward's training flag is set */
  bool lazy;    /* inside an arm of a select: evaluated only when the select takes it */
} At;

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

/* A buffer the model keeps in its own storage (emit_model.c's is_outbuf): the output, or the
 * gradient of a parameter. Neither is in an arena. */
static bool own_storage(const KProgram *p, const KBuf *b) {
  if (b->kind != BUF_TEMP || b->out < 0) return false;
  if (b->out == 0) return true;
  if (!p->m || b->out >= p->m->nouts) return false;
  const char *name = p->m->outs[b->out].name;
  if (name && strncmp(name, "grad_input.", 11) == 0) /* an input's gradient (--input-grads) */
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *x = p->bufs.items[i];
      if (x->kind == BUF_INPUT && !x->bwd && x->val && x->val->name && strcmp(x->val->name, name + 11) == 0) return true;
    }
  if (!name || strncmp(name, "grad.", 5) != 0) return false;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *x = p->bufs.items[i];
    if (x->kind == BUF_PARAM && x->val && x->val->name && strcmp(x->val->name, name + 5) == 0) return true;
  }
  return false;
}

/* An intermediate buffer the inference plan leaves out (emit_model.c: in_infer): NULL after an
 * inference forward. */
static bool not_in_inference(const KProgram *p, const KBuf *b) {
  return b->kind == BUF_TEMP && !own_storage(p, b) && !b->alias && (b->bwd || b->train_only || b->first >= p->nfwd);
}

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

/* A forward kernel's access to b: b must be in the inference plan, or the access guarded. */
static void plan_access(KV *v, const KBuf *b, At at, bool store) {
  if (store && b->alias && !(v->fwd && at.trained)) /* it is the input itself when not training */
    bad(v, "stores to %s outside a training guard of the forward, but it is an input itself when not training%.0lld", b->name ? b->name : "?", 0);
  if (v->fwd && !at.trained && not_in_inference(v->p, b))
    bad(v, store ? "stores to %s outside a training guard in the forward, but the inference plan does not have it%lld"
                 : "loads %s outside a training guard in the forward, but the inference plan does not have it%lld",
        b->name ? b->name : "?", 0);
}

/* Whether condition e holds only when the training flag is set. */
static bool implies_training(const KExpr *e) {
  if (!e) return false;
  if (e->kind == KE_TRAINING) return true;
  return e->kind == KE_BIN && e->op == KO_AND && (implies_training(e->a) || implies_training(e->b));
}

/* Whether e is the same in every lane of the group: no lane index, no per-lane local, and
 * everything it reads indexed uniformly. */
static bool uniform_expr(const Kernel *k, const KExpr *e) {
  if (!e) return true;
  switch (e->kind) {
  case KE_LANE: return false;
  case KE_VAR:
    if (e->var < 0 || e->var >= k->nlocals || !k->locals[e->var].uniform) return false;
    break;
  case KE_KEEP: return false; /* a draw per element */
  default: break;
  }
  return uniform_expr(k, e->a) && uniform_expr(k, e->b) && uniform_expr(k, e->c);
}

/* ---- index ranges (in_range_index) */

#define RANGE_CAP ((int64_t)1 << 40) /* beyond it an interval is unknown: no overflow below */

static Range unknown_range(void) { return (Range){false, 0, 0}; }
static Range mk_range(int64_t lo, int64_t hi) {
  if (lo > hi || lo < -RANGE_CAP || hi > RANGE_CAP) return unknown_range();
  return (Range){true, lo, hi};
}
static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t m = a < b ? a : b, n = c < d ? c : d;
  return m < n ? m : n;
}
static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t m = a > b ? a : b, n = c > d ? c : d;
  return m > n ? m : n;
}

/* The values integer expression e can take in the kernel being checked, as C computes them
 * (division truncates toward zero, a remainder takes the dividend's sign). */
static Range range_of(const KV *v, const KExpr *e) {
  if (!e || e->type != KT_I64) return unknown_range();
  switch (e->kind) {
  case KE_ICONST: return mk_range(e->i, e->i);
  case KE_LANE: return mk_range(0, v->k->group - 1);
  case KE_TILE: return mk_range(0, v->k->col_tiles - 1);
  case KE_VAR:
    if (e->a || e->var < 0 || e->var >= v->k->nlocals) return unknown_range();
    return v->range[e->var];
  case KE_UN:
    if (e->op == KU_NEG) {
      Range a = range_of(v, e->a);
      return a.known ? mk_range(-a.hi, -a.lo) : a;
    }
    return unknown_range();
  case KE_BIN: {
    if (e->op >= KO_LT) return unknown_range(); /* comparisons and logic: 0 or 1, never an index here */
    Range a = range_of(v, e->a), b = range_of(v, e->b);
    if (!a.known || !b.known) return unknown_range();
    switch (e->op) {
    case KO_ADD: return mk_range(a.lo + b.lo, a.hi + b.hi);
    case KO_SUB: return mk_range(a.lo - b.hi, a.hi - b.lo);
    case KO_MUL:
      return mk_range(min4(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi),
                      max4(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi));
    case KO_DIV: /* monotone in the dividend and, for a positive divisor, in the divisor */
      if (b.lo <= 0) return unknown_range();
      return mk_range(min4(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi),
                      max4(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi));
    case KO_MOD:
      if (b.lo <= 0) return unknown_range();
      if (a.lo >= 0 && a.hi < b.lo) return a;
      return mk_range(a.lo >= 0 ? 0 : (a.lo > -(b.hi - 1) ? a.lo : -(b.hi - 1)),
                      a.hi <= 0 ? 0 : (a.hi < b.hi - 1 ? a.hi : b.hi - 1));
    case KO_MIN: return mk_range(a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
    case KO_MAX: return mk_range(a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    default: return unknown_range();
    }
  }
  default: return unknown_range();
  }
}

/* An index that runs whenever its statement does must lie in [0, len): what names what it
 * indexes ("shared array sh13", "a row of t44"). */
static void in_range_index(KV *v, const KExpr *idx, int64_t len, At at, const char *what, const char *name) {
  if (!idx || at.lazy || len < 1) return;
  Range r = range_of(v, idx);
  if (!r.known || (r.lo >= 0 && r.hi < len)) return;
  v->problems++;
  if (!v->err) return;
  fprintf(v->err, "kverify: kernel %s: %s %s (%lld elements) indexed in [%lld, %lld], outside it\n",
          v->k->name ? v->k->name : "?", what, name ? name : "?", (long long)len, (long long)r.lo, (long long)r.hi);
}

static void expr(KV *v, const KExpr *e, At at) {
  if (!e) {
    bad(v, "a NULL expression%s%.0lld", "", 0);
    return;
  }
  switch (e->kind) {
  case KE_FCONST: case KE_ICONST: case KE_LANE: case KE_ROW: break;
  case KE_ITEM: case KE_NPIECES: case KE_PIECE_LEN:
    if (!v->k->pieces) bad(v, "reads a piece's item or the graph's pieces, but does not walk pieces%s%.0lld", "", 0);
    break;
  case KE_TILE:
    if (v->k->col_tiles <= 1) bad(v, "reads its group's column tile, but is not in column tiles%s%.0lld", "", 0);
    break;
  case KE_TRAINING:
    if (!v->k->dropout) bad(v, "reads the training flag, which it does not take (not a dropout kernel)%s%.0lld", "", 0);
    break;
  case KE_VAR:
    if (e->var < 0 || e->var >= v->k->nlocals) bad(v, "local %s%lld out of range", "", e->var);
    else if (v->k->locals[e->var].len > 0 && !e->a) bad(v, "register array %s read without an index%lld", v->k->locals[e->var].name, 0);
    else if (e->a && v->k->locals[e->var].len > 0)
      in_range_index(v, e->a, v->k->locals[e->var].len, at, "register array", v->k->locals[e->var].name);
    if (e->a) expr(v, e->a, at);
    break;
  case KE_SHARED:
    if (e->var < 0 || e->var >= v->k->nshared) bad(v, "shared array %s%lld out of range", "", e->var);
    else if (e->a && e->a->kind == KE_ICONST && (e->a->i < 0 || e->a->i >= v->k->shared[e->var].len))
      bad(v, "reads shared array %s at %lld, outside its length", v->k->shared[e->var].name, e->a->i);
    else if (e->a) in_range_index(v, e->a, v->k->shared[e->var].len, at, "shared array", v->k->shared[e->var].name);
    if (e->a) expr(v, e->a, at);
    break;
  case KE_LOAD:
    if (!e->buf) {
      bad(v, "a load from no buffer%s%.0lld", "", 0);
      break;
    }
    if (!in_vec(&v->k->bufs, e->buf)) bad(v, "loads %s, which is not among its parameters%lld", e->buf->name, 0);
    if (dom_has_rows(e->buf->dom) && !e->a)
      bad(v, "loads per-row buffer %s without a row%lld", e->buf->name, 0);
    plan_access(v, e->buf, at, false);
    in_range_index(v, e->b, e->buf->width, at, e->a ? "a row of buffer" : "buffer", e->buf->name);
    if (e->a) expr(v, e->a, at);
    if (e->b) expr(v, e->b, at);
    break;
  case KE_GRAPH:
    if (e->garr < 0 || e->garr >= KG__COUNT) bad(v, "graph array %s%lld out of range", "", e->garr);
    else if (!v->k->graph[e->garr]) bad(v, "reads graph array %s%lld, which it does not declare", "", e->garr);
    if (e->a) expr(v, e->a, at);
    break;
  case KE_BIN:
    expr(v, e->a, at);
    expr(v, e->b, at);
    break;
  case KE_UN:
    expr(v, e->a, at);
    break;
  case KE_SELECT: {
    expr(v, e->a, at);
    At then = at, other = at;
    then.trained |= implies_training(e->a);
    then.lazy = other.lazy = true;
    expr(v, e->b, then);
    expr(v, e->c, other);
    break;
  }
  case KE_KEEP:
    if (!v->k->dropout) bad(v, "draws dropout masks but does not take the seed (not a dropout kernel)%s%.0lld", "", 0);
    if (!(e->f >= 0 && e->f < 1)) bad(v, "dropout with p = %s%lld outside [0, 1)", "", (long long)(e->f * 100));
    if (e->a) expr(v, e->a, at);
    break;
  default: bad(v, "an expression of unknown kind %s%lld", "", e->kind);
  }
}

/* A column tile's first column, as lower_tiles.c computes it: the kernel's first statement
 * `tile_lo = tile * T` (kernel_tile_first), a uniform local that nothing else sets. */
static bool tile_first(const Kernel *k, const KExpr *lo) {
  int first = kernel_tile_first(k);
  return first >= 0 && lo->kind == KE_VAR && !lo->a && lo->var == first && kstmts_count_lets(&k->body, first) == 1;
}

static void stmts(KV *v, const PtrVec *body, At at);

static bool local_ok(const KV *v, int var) { return var >= 0 && var < v->k->nlocals; }

static void stmt(KV *v, const KStmt *s, At at) {
  if (!s) {
    bad(v, "a NULL statement%s%.0lld", "", 0);
    return;
  }
  const Kernel *k = v->k;
  if (s->walk && s->kind != KS_FOR) bad(v, "a walk that is not a loop (statement kind %s%lld)", "", s->kind);
  switch (s->kind) {
  case KS_LET:
    if (!local_ok(v, s->var)) bad(v, "let of local %s%lld out of range", "", s->var);
    else if (s->idx && k->locals[s->var].len > 0) in_range_index(v, s->idx, k->locals[s->var].len, at, "register array", k->locals[s->var].name);
    if (s->idx) expr(v, s->idx, at);
    if (local_ok(v, s->var)) v->range[s->var] = unknown_range(); /* assigned: no longer a loop's variable alone */
    expr(v, s->val, at);
    if (local_ok(v, s->var) && k->locals[s->var].uniform && !at.lanes && (!uniform_expr(k, s->idx) || !uniform_expr(k, s->val)))
      bad(v, "uniform local %s gets a per-lane value%lld", k->locals[s->var].name, 0);
    break;
  case KS_STORE: case KS_ATOMIC:
    if (!s->buf) {
      bad(v, "a store to no buffer%s%.0lld", "", 0);
      break;
    }
    if (!in_vec(&k->bufs, s->buf)) bad(v, "stores to %s, which is not among its parameters%lld", s->buf->name, 0);
    if (!writable(s->buf)) bad(v, "stores to %s, an input, parameter or degree array%lld", s->buf->name, 0);
    if (dom_has_rows(s->buf->dom) && !s->row)
      bad(v, "stores to per-row buffer %s without a row%lld", s->buf->name, 0);
    if (s->kind == KS_ATOMIC && s->count == 1) { /* block-reduced: per-block sums of row 0, then one atomic each */
      if (s->op != KO_ADD) bad(v, "block-reduced atomic into %s that is not a sum (op %lld)", s->buf->name, s->op);
      if (s->buf->dom != DOM_GLOBAL || s->row) bad(v, "block-reduced atomic into %s, not a one-row buffer%lld", s->buf->name, 0);
      if (!s->idx) bad(v, "block-reduced atomic into %s without an element index%lld", s->buf->name, 0);
    }
    plan_access(v, s->buf, at, true);
    in_range_index(v, s->idx, s->buf->width, at, s->row ? "a row of buffer" : "buffer", s->buf->name);
    if (s->row) expr(v, s->row, at);
    if (s->idx) expr(v, s->idx, at);
    expr(v, s->val, at);
    break;
  case KS_SHSTORE:
    if (s->var < 0 || s->var >= k->nshared) bad(v, "store to shared array %s%lld out of range", "", s->var);
    else if (!s->idx && k->shared[s->var].len > 1)
      bad(v, "store to shared array %s (%lld elements) without an index", k->shared[s->var].name, k->shared[s->var].len);
    else if (s->idx && s->idx->kind == KE_ICONST && (s->idx->i < 0 || s->idx->i >= k->shared[s->var].len))
      bad(v, "store to shared array %s at %lld, outside its length", k->shared[s->var].name, s->idx->i);
    else if (s->idx) in_range_index(v, s->idx, k->shared[s->var].len, at, "shared array", k->shared[s->var].name);
    if (s->idx) expr(v, s->idx, at);
    expr(v, s->val, at);
    break;
  case KS_FOR: {
    bool uni = local_ok(v, s->var) && k->locals[s->var].uniform;
    if (!local_ok(v, s->var)) bad(v, "loop variable %s%lld out of range", "", s->var);
    if (s->count < 1) bad(v, "a loop with step %s%lld", "", s->count);
    expr(v, s->lo, at);
    expr(v, s->hi, at);
    if (uni && !at.lanes && (!uniform_expr(k, s->lo) || !uniform_expr(k, s->hi)))
      bad(v, "uniform loop over %s with per-lane bounds%lld", k->locals[s->var].name, 0);
    if (s->walk) {
      if (k->map != MAP_VERTEX || (k->rows != DOM_VERTEX && k->rows != DOM_GRAPH)) bad(v, "a walk over a row's edges in a kernel that is not vertex-mapped%s%.0lld", "", 0);
      if (!uni) bad(v, "a walk over a per-lane loop variable%s%.0lld", "", 0);
      if (at.lanes) bad(v, "a walk inside per-lane code (every lane of the group walks the edges together)%s%.0lld", "", 0);
    }
    At in = at;
    in.lanes |= !uni;
    Range lo = range_of(v, s->lo), hi = range_of(v, s->hi), saved = unknown_range();
    if (local_ok(v, s->var)) { /* in the body the variable lies in [lo, hi) */
      saved = v->range[s->var];
      v->range[s->var] = lo.known && hi.known ? mk_range(lo.lo, hi.hi - 1) : unknown_range();
    }
    stmts(v, &s->body, in);
    if (local_ok(v, s->var)) v->range[s->var] = saved;
    break;
  }
  case KS_FOR_LANES: {
    if (!local_ok(v, s->var) || !local_ok(v, s->var2)) bad(v, "lane loop variable %s%lld out of range", "", s->var);
    if (s->count < 0) bad(v, "lane loop over %s%lld elements", "", s->count);
    At in = at;
    in.lanes = true;
    bool vars = local_ok(v, s->var) && local_ok(v, s->var2) && s->var != s->var2;
    Range sk = unknown_range(), si = unknown_range();
    if (s->lo) { /* a column tile's loop: from the tile's first column (lower_tiles.c) */
      expr(v, s->lo, at);
      if (!tile_first(k, s->lo))
        bad(v, "a lane loop from an element other than its column tile's first (tile * %s%lld, the kernel's first statement)", "",
            k->col_tile);
      else if (s->count != k->col_tile)
        bad(v, "a column tile's lane loop over %s%lld elements, not the tile's", "", s->count);
    }
    if (vars) { /* k = lane + i * G < count: the emitters guard each element */
      sk = v->range[s->var], si = v->range[s->var2];
      v->range[s->var] = s->lo ? mk_range(0, k->col_width - 1) : mk_range(0, s->count - 1);
      v->range[s->var2] = mk_range(0, (s->count - 1) / (k->group > 0 ? k->group : 1));
    }
    stmts(v, &s->body, in);
    if (vars) v->range[s->var] = sk, v->range[s->var2] = si;
    break;
  }
  case KS_IF: {
    expr(v, s->lo, at);
    if (s->count == 1 && !at.lanes && !uniform_expr(k, s->lo)) bad(v, "a uniform if with a per-lane condition%s%.0lld", "", 0);
    At in = at;
    in.lanes |= s->count != 1;
    in.trained |= implies_training(s->lo);
    stmts(v, &s->body, in);
    break;
  }
  case KS_BARRIER:
    if (at.lanes) bad(v, "a barrier inside per-lane code (not every lane of the group reaches it)%s%.0lld", "", 0);
    break;
  case KS_GROUP_REDUCE:
    if (!local_ok(v, s->var)) bad(v, "group reduction of local %s%lld out of range", "", s->var);
    if (s->op != KO_ADD && s->op != KO_MAX && s->op != KO_MIN) bad(v, "group reduction with op %s%lld", "", s->op);
    if (at.lanes) bad(v, "a group reduction inside per-lane code (not every lane of the group reaches it)%s%.0lld", "", 0);
    break;
  case KS_TICKET: /* a count another group waits on: every lane reaches it, and it is a group's */
    if (!local_ok(v, s->var) || !k->locals[s->var].uniform) bad(v, "a ticket into a local %s%lld that is not uniform", "", s->var);
    if (!s->buf || !in_vec(&k->bufs, s->buf) || s->buf->elem != ELEM_I32) bad(v, "a ticket on no int32 buffer of its own%s%.0lld", "", 0);
    if (at.lanes) bad(v, "a ticket inside per-lane code (not every lane of the group reaches it)%s%.0lld", "", 0);
    if (s->row) {
      expr(v, s->row, at);
      if (!uniform_expr(k, s->row)) bad(v, "a ticket at a per-lane index%s%.0lld", "", 0);
    }
    if (!k->pieces) bad(v, "a ticket in a kernel that does not walk pieces%s%.0lld", "", 0);
    break;
  default: bad(v, "a statement of unknown kind %s%lld", "", s->kind);
  }
}

static void stmts(KV *v, const PtrVec *body, At at) {
  for (int i = 0; i < body->len; i++) stmt(v, body->items[i], at);
}

/* The kernel's own declarations: shared arrays, and at most 8 block-reduced targets. */
static void kernel_decls(KV *v, const Kernel *k) {
  for (int i = 0; i < k->nshared; i++) {
    const KShared *s = &k->shared[i], *o = s->storage >= 0 && s->storage < k->nshared ? &k->shared[s->storage] : NULL;
    if (s->len < 1) bad(v, "shared array %s has length %lld", s->name ? s->name : "?", s->len);
    if (s->storage >= 0 && (!o || o->storage >= 0 || s->storage == i))
      bad(v, "shared array %s takes the storage of array %lld, which has none of its own", s->name ? s->name : "?", s->storage);
    else if (o && (s->type != KT_F32 || o->type != KT_F64 || s->len > o->len))
      bad(v, "shared array %s does not fit in the storage of array %lld (only a float copy of a float64 array does)",
          s->name ? s->name : "?", s->storage);
  }
  const KBuf *blk[9];
  int nblk = block_targets(&k->body, blk, 9, 0);
  if (nblk > 8) bad(v, "block-reduced atomics into more than %s%lld buffers", "", 8);
  if (k->pieces && (k->map != MAP_VERTEX || (k->dir != GATHER_BY_DST && k->dir != GATHER_BY_SRC) || k->rows != DOM_VERTEX))
    bad(v, "walks hub pieces but is not a vertex-balanced kernel over in-edges or out-edges%s%.0lld", "", 0);
  if (k->col_tiles > 1) { /* column tiles (lower_tiles.c): a vertex kernel, the tiles cover the width */
    if (k->map != MAP_VERTEX || k->rows != DOM_VERTEX || k->pieces)
      bad(v, "in column tiles but not a vertex kernel without pieces%s%.0lld", "", 0);
    if (k->col_tile < 1 || (k->col_tile % k->group && k->col_tile > k->group) || k->col_tile * k->col_tiles < k->col_width ||
        k->col_tile * (k->col_tiles - 1) >= k->col_width)
      bad(v, "column tiles of %s%lld columns that are neither a multiple of its lanes per group nor fewer, or do not cover its width", "",
          k->col_tile);
    if (kernel_tile_first(k) < 0)
      bad(v, "in column tiles but its first statement does not compute the tile's first column (tile * %s%lld)", "", k->col_tile);
  }
  if (k->vec && (k->vec != 4 || kernel_vec4_refusal(k))) /* --vector-loads: one element-to-lane map for the whole kernel */
    bad(v, "takes several elements a lane (--vector-loads), but cannot: %s%.0lld",
        k->vec != 4 ? "only 4 is a vector width" : kernel_vec4_refusal(k), 0);
}

/* The kernel's static shared memory in CUDA: one group's arrays (each element 4 bytes, i64 and f64
 * 8) and the block-reduced sums (a double per element) within GNN_SHARED_MAX (48 KB, the most a
 * block gets without opting in to dynamic shared memory); the emitter then runs as many groups
 * per block as fit (kernel_groups_per_block). Lower keeps to it: staging and block-reduced sums
 * stop at the limit, and a finished reduction too wide for it goes to memory. */
static void shared_fits(KV *v, const Kernel *k) {
  int64_t one = kernel_shared_bytes(k, 1), gpb = kernel_groups_per_block(k);
  if (one > GNN_SHARED_MAX)
    bad(v, "shared memory: one group's arrays and the block's sums take %s%lld bytes, more than a CUDA block's 48 KB (49152)", "", one);
  else if (gpb < 1 || gpb * k->group > GNN_CUDA_BLOCK || kernel_shared_bytes(k, (int)gpb) > GNN_SHARED_MAX)
    bad(v, "shared memory: no block of %s%lld groups fits 48 KB", "", gpb);
}

static void gemm_dim_ok(KV *v, const KDim *d, const char *which) {
  if (d->mult <= 0) bad(v, "GEMM dimension %s has multiplier %lld", which, d->mult);
}

int kir_verify(const KProgram *p, FILE *err) {
  KV v = {.p = p, .err = err};
  if (!p) {
    bad(&v, "no program%s%.0lld", "", 0);
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
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b && b->alias && (b->kind != BUF_TEMP || !b->train_only || b->alias->kind != BUF_INPUT || b->alias->dom != b->dom ||
                          b->alias->width != b->width || b->alias->elem != b->elem))
      bad(&v, "buffer %s stands for an input when not training but is not a training-only copy of its shape%.0lld", b->name ? b->name : "?", 0);
    if (b && b->train_only && (b->kind != BUF_TEMP || b->bwd || b->first >= p->nfwd))
      bad(&v, "buffer %s is training-only but not a forward intermediate (defined at step %lld)", b->name ? b->name : "?", b->first);
  }
  for (int s = 0; s < p->nsteps; s++) {
    const KStep *st = &p->steps[s];
    v.k = NULL;
    v.fwd = s < p->nfwd;
    if (st->train_only && !v.fwd) bad(&v, "step %s%lld of the backward is marked training-only (only forward steps can be)", "", s);
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
      kernel_decls(&v, k);
      shared_fits(&v, k);
      v.range = calloc((size_t)k->nlocals + 1, sizeof *v.range); /* all unknown */
      if (!v.range) {
        bad(&v, "out of memory checking kernel %s%.0lld", "", 0);
        break;
      }
      stmts(&v, &k->body, (At){false, st->train_only, false}); /* a training-only step: all of it guarded */
      free(v.range);
      v.range = NULL;
      break;
    }
    case STEP_GEMM: {
      const KGemm *g = &st->gemm;
      if (!g->a || !g->b || !g->c) {
        bad(&v, "step %s%lld: a GEMM without its three operands", "", s);
        break;
      }
      use(&v, g->a, s), use(&v, g->b, s), use(&v, g->c, s);
      if (v.fwd && !st->train_only && (not_in_inference(p, g->a) || not_in_inference(p, g->b) || not_in_inference(p, g->c)))
        bad(&v, "step %s%lld: a forward GEMM on a buffer the inference plan does not have", "", s);
      if (!writable(g->c)) bad(&v, "a GEMM writes %s, an input, parameter or degree array%lld", g->c->name, s);
      if (g->c->alias && !(v.fwd && st->train_only)) bad(&v, "a GEMM writes %s, the input itself when not training (step %lld)", g->c->name, s);
      gemm_dim_ok(&v, &g->m, "m"), gemm_dim_ok(&v, &g->n, "n"), gemm_dim_ok(&v, &g->k, "k");
      if (g->lda < 1 || g->ldb < 1 || g->ldc < g->n.mult)
        bad(&v, "step %s%lld: a GEMM leading dimension is smaller than its row", "", s);
      if (g->beta != 0 && g->beta != 1) bad(&v, "step %s%lld: a GEMM with beta other than 0 or 1", "", s);
      break;
    }
    case STEP_SPMM: {
      const KSpmm *sp = &st->spmm;
      if (!sp->x || !sp->y) {
        bad(&v, "step %s%lld: an SpMM without its operand and result", "", s);
        break;
      }
      use(&v, sp->x, s), use(&v, sp->y, s);
      if (sp->w) use(&v, sp->w, s);
      if (v.fwd && !st->train_only && (not_in_inference(p, sp->x) || not_in_inference(p, sp->y) || (sp->w && not_in_inference(p, sp->w))))
        bad(&v, "step %s%lld: a forward SpMM on a buffer the inference plan does not have", "", s);
      if (!writable(sp->y)) bad(&v, "an SpMM writes %s, an input, parameter or degree array%lld", sp->y->name, s);
      if (sp->y->alias && !(v.fwd && st->train_only)) bad(&v, "an SpMM writes %s, the input itself when not training (step %lld)", sp->y->name, s);
      if (sp->x->dom != DOM_VERTEX || sp->y->dom != DOM_VERTEX || sp->x->elem != ELEM_F32 || sp->y->elem != ELEM_F32)
        bad(&v, "step %s%lld: an SpMM's operand and result are not float vertex buffers", "", s);
      if (sp->width < 1 || sp->x->width != sp->width || sp->y->width != sp->width)
        bad(&v, "step %s%lld: an SpMM's operand and result are not as wide as it", "", s);
      if (sp->w && (sp->w->dom != DOM_EDGE || sp->w->elem != ELEM_F32 || sp->w->width != 1))
        bad(&v, "step %s%lld: an SpMM's weights are not a float edge scalar", "", s);
      if (sp->dir != GATHER_BY_DST && sp->dir != GATHER_BY_SRC) bad(&v, "step %s%lld: an SpMM in an unknown direction", "", s);
      break;
    }
    case STEP_ZERO: case STEP_FILL:
      if (!st->buf) {
        bad(&v, "step %s%lld zeroes or fills no buffer", "", s);
        break;
      }
      use(&v, st->buf, s);
      if (v.fwd && !st->train_only && not_in_inference(p, st->buf))
        bad(&v, "a forward step zeroes or fills %s, which the inference plan does not have (step %lld)", st->buf->name ? st->buf->name : "?", s);
      if (!writable(st->buf)) bad(&v, "a step writes %s, an input, parameter or degree array%lld", st->buf->name, s);
      if (st->buf->alias && !(v.fwd && st->train_only))
        bad(&v, "a step writes %s, the input itself when not training (step %lld)", st->buf->name, s);
      break;
    default: bad(&v, "step %s%lld of unknown kind", "", s);
    }
  }
  return v.problems;
}
