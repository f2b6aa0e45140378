/* emit_host_lanes.c -- the host C backend's loop analysis: which lane loops may print flat (in
 * order of k), with `#pragma omp simd`, split by a head (k / C), fused with the loop over a
 * chunk's edges (emit_edge_lanes), or as a pairwise sum. Questions only, asked by emit_host.c,
 * which prints the loops; calls only emit_host_expr.c (emit_host_state.h). */
#include "emit_host_state.h"

#include <stdlib.h>
#include <string.h>

/* Whether b holds per-lane statements (a lane region) at any depth of uniform loops and ifs. */
bool has_lanes(const HostK *h, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (!stmt_uniform(h, s) || has_lanes(h, &s->body)) return true;
  }
  return false;
}

/* A lane's float64 sum over a row's elements, `for (j = 0; j < N; j++) sum = sum + E(j)` (the
 * dot products of the attention backward, `sum += (double)x[u * 72 + k * 16 + j] * (double)g[..]`):
 * one dependent add after another, 3-4 cycles each, where the products could be added in a
 * vector. Returns the addend E when s is such a loop (N a power of two from 4 to 256, step 1, the
 * one statement a float64 local's own update, E not reading that local); else NULL. */
const KExpr *pairwise_sum_addend(const HostK *h, const KStmt *s) {
  if (s->count != 1 || s->lo->kind != KE_ICONST || s->lo->i != 0 || s->hi->kind != KE_ICONST) return NULL;
  int64_t n = s->hi->i;
  if (n < 4 || n > 256 || (n & (n - 1)) || s->body.len != 1) return NULL;
  const KStmt *t = s->body.items[0];
  if (t->kind != KS_LET || t->idx || h->k->locals[t->var].type != KT_F64) return NULL;
  const KExpr *v = t->val;
  if (v->kind != KE_BIN || v->op != KO_ADD || v->a->kind != KE_VAR || v->a->var != t->var || v->a->a) return NULL;
  return reads_var(v->b, t->var) ? NULL : v->b;
}

/* ---------------------------------------------------------------- flat lane loops
 *
 * A region that is one `for k, i in lanes(N)` alone prints, serialised, as
 *   for (lane = 0; lane < G; lane++) for (i = 0; i < ceil(N / G); i++) { k = lane + i * G; ... }
 * which walks each row with stride G: no vectorisation, and 4-25x slower than the same body over
 * k = 0, 1, ..., N-1 (Cora's input dropout: 33 against 1.4 ms at -O3 -march=native). Iterating
 * k in order keeps each lane's own order of i (k = lane + i * G grows with i), so it is another
 * interleaving of the group's lanes, as valid as the first: lanes of one region never read what
 * another lane writes in it. What must not change is a per-lane scalar carried from one i to the
 * next of the same lane: the flat loop is used only if every local that lives in this region
 * alone is written before it is read in each iteration (checked below, conservatively). */

/* A local that lives in region alone: per lane, neither promoted nor a loop variable. */
bool region_local(const HostK *h, int v, int region) {
  return !h->k->locals[v].uniform && !h->loopvar[v] && !h->promote[v] && h->region[v] == region;
}

/* Whether e reads a local of region `region` not yet in def. */
static bool reads_undefined(const HostK *h, const KExpr *e, int region, const bool *def) {
  if (!e) return false;
  if (e->kind == KE_VAR && region_local(h, e->var, region) && !def[e->var]) return true;
  return reads_undefined(h, e->a, region, def) || reads_undefined(h, e->b, region, def) ||
         reads_undefined(h, e->c, region, def);
}

/* Whether each region-local read in block b follows a write in the same iteration: a scalar
 * written by a KS_LET earlier in b or in an enclosing block (def, copied per nested block, so a
 * write inside an if or a loop defines it only there). */
static bool written_before_read(const HostK *h, const PtrVec *b, int region, const bool *outer) {
  int n = h->k->nlocals;
  bool *def = malloc((size_t)n + 1), ok = true;
  memcpy(def, outer, (size_t)n + 1);
  for (int i = 0; i < b->len && ok; i++) {
    const KStmt *s = b->items[i];
    ok = !reads_undefined(h, s->row, region, def) && !reads_undefined(h, s->idx, region, def) &&
         !reads_undefined(h, s->val, region, def) && !reads_undefined(h, s->lo, region, def) &&
         !reads_undefined(h, s->hi, region, def);
    if (ok && s->body.len) ok = written_before_read(h, &s->body, region, def);
    if (ok && s->kind == KS_LET && !s->idx) def[s->var] = true; /* an element write defines no array */
  }
  free(def);
  return ok;
}

/* Sets refs[v] for every local that s reads or writes. */
static void expr_refs(const KExpr *e, bool *refs) {
  if (!e) return;
  if (e->kind == KE_VAR) refs[e->var] = true;
  expr_refs(e->a, refs);
  expr_refs(e->b, refs);
  expr_refs(e->c, refs);
}
static void stmt_refs(const KStmt *s, bool *refs) {
  if (s->kind == KS_LET) refs[s->var] = true;
  expr_refs(s->row, refs);
  expr_refs(s->idx, refs);
  expr_refs(s->val, refs);
  expr_refs(s->lo, refs);
  expr_refs(s->hi, refs);
  for (int i = 0; i < s->body.len; i++) stmt_refs(s->body.items[i], refs);
}

static bool flat_lanes_ok(const HostK *h, const KStmt *s, int region) {
  if (s->kind != KS_FOR_LANES) return false;
  bool *def = calloc((size_t)h->k->nlocals + 1, 1);
  bool ok = written_before_read(h, &s->body, region, def);
  free(def);
  return ok;
}

/* The statements [i, end) of b form one region. If they are lanes loops only, each flat-able,
 * and no region scalar is used by two of them, returns each loop's locals (nlocals + 1 flags per
 * loop, for its declarations); else NULL. Each loop is then printed flat in turn: all lanes
 * through the first, then the second -- as valid a serialisation as lane by lane, since the
 * lanes of a region do not read each other's writes, and each lane still runs its loops in order. */
bool *flat_region(const HostK *h, const PtrVec *b, int i, int end, int region) {
  int nl = h->k->nlocals + 1, nloops = end - i;
  for (int a = i; a < end; a++)
    if (!flat_lanes_ok(h, b->items[a], region)) return NULL;
  bool *refs = calloc((size_t)nl * (size_t)nloops, 1);
  for (int a = 0; a < nloops; a++) {
    stmt_refs(b->items[i + a], refs + (size_t)a * nl);
    for (int v = 0; v < nl - 1; v++) {
      if (!refs[(size_t)a * nl + v] || !region_local(h, v, region)) continue;
      for (int c = 0; c < a; c++)
        if (refs[(size_t)c * nl + v]) {
          free(refs);
          return NULL;
        }
    }
  }
  return refs;
}

/* The divisor C of the largest k / C in e (k the flat loop's variable) that divides n: 0 if none. */
static int64_t split_of(const KExpr *e, int kvar, int64_t n) {
  if (!e) return 0;
  int64_t c = 0;
  if (e->kind == KE_BIN && e->op == KO_DIV && e->a->kind == KE_VAR && e->a->var == kvar && !e->a->a && e->b->kind == KE_ICONST &&
      e->b->i >= 8 && n % e->b->i == 0) /* an inner loop of 8 or more: a vector's worth */
    c = e->b->i;
  int64_t x = split_of(e->a, kvar, n), y = split_of(e->b, kvar, n), z = split_of(e->c, kvar, n);
  c = c > x ? c : x;
  c = c > y ? c : y;
  return c > z ? c : z;
}
int64_t split_stmts(const PtrVec *b, int kvar, int64_t n) {
  int64_t c = 0;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    const KExpr *es[] = {s->row, s->idx, s->val, s->lo, s->hi};
    for (int j = 0; j < 5; j++) {
      int64_t x = split_of(es[j], kvar, n);
      c = c > x ? c : x;
    }
    int64_t x = split_stmts(&s->body, kvar, n);
    c = c > x ? c : x;
  }
  return c;
}

/* `#pragma omp simd` on a flat lane loop over a staged edge's row: GCC 12 unrolls a 16-wide
 * loop completely (GCN's second aggregation, `acc[k] += (double)(x[u * 16 + k] * c)`) and then
 * leaves the 16 float-to-double adds scalar, where the pragma has them as two vector adds (that
 * kernel on the R-MAT graph of issue 28: about 1.4x; docs/benchmarks.md). The pragma asserts the
 * iterations independent, so it is printed only where the loop shows that they are: its body
 * only LETs, each to a local of this region (declared in the loop: one per iteration) or to
 * element k of a promoted local (acc[k]), and a promoted local it writes read at element k alone.
 * No stores, atomics, ifs or loops: nothing another iteration could see. Each element's
 * arithmetic is the same in a vector lane (no reassociation: no reduction clause, and
 * -ffp-contract=off), so the values do not change. */
static bool simd_expr_ok(const HostK *h, const KExpr *e, const bool *written) {
  if (!e) return true;
  if (e->kind == KE_VAR && written[e->var] && h->promote[e->var] &&
      !(e->a && e->a->kind == KE_VAR && e->a->var == h->flat_i && !e->a->a))
    return false;
  return simd_expr_ok(h, e->a, written) && simd_expr_ok(h, e->b, written) && simd_expr_ok(h, e->c, written);
}

/* A shared-memory store of a lane loop over k that the lanes may make at once: at k plus an offset
 * the same in every lane (sh_w[t * 4 + k]: the chunk's attention weights of edge t, one per
 * head), the only store to that array in the loop, which nothing in the loop reads. Each lane then
 * writes its own element, and GAT's softmax factors (an exp per head and edge) vectorise. */
static bool simd_shstore_ok(const KStmt *s, const KStmt *t) {
  const KExpr *x = t->idx;
  int kv = s->var;
  bool lane = x && ((x->kind == KE_VAR && x->var == kv && !x->a) ||
                    (x->kind == KE_BIN && x->op == KO_ADD &&
                     ((x->b->kind == KE_VAR && x->b->var == kv && !x->b->a && !reads_var(x->a, kv)) ||
                      (x->a->kind == KE_VAR && x->a->var == kv && !x->a->a && !reads_var(x->b, kv)))));
  if (!lane) return false;
  for (int i = 0; i < s->body.len; i++) {
    const KStmt *u = s->body.items[i];
    if (u != t && u->kind == KS_SHSTORE && u->var == t->var) return false;
    if (reads_shared_array(u->idx, t->var) || reads_shared_array(u->val, t->var)) return false;
  }
  return true;
}

/* The statements of lane loop s's body b for simd_ok: pass 0 their kinds and targets (marking the
 * locals written), pass 1 their expressions. An `if` on the training flag is its body or nothing,
 * as it prints where the flag is known (training_if_taken); its body where it is not yet. */
static bool simd_stmts_ok(const HostK *h, const KStmt *s, const PtrVec *b, int region, bool *written, int pass) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *t = b->items[i];
    int taken = training_if_taken(h, t);
    if (taken >= 0) {
      if (taken && !simd_stmts_ok(h, s, &t->body, region, written, pass)) return false;
      continue;
    }
    if (pass == 1) {
      if (!simd_expr_ok(h, t->idx, written) || !simd_expr_ok(h, t->val, written)) return false;
      continue;
    }
    bool ok;
    if (t->kind == KS_SHSTORE) {
      if (!simd_shstore_ok(s, t)) return false;
      continue;
    }
    if (t->kind != KS_LET) ok = false;
    else if (h->promote[t->var]) ok = t->idx && t->idx->kind == KE_VAR && t->idx->var == s->var2 && !t->idx->a;
    else ok = region_local(h, t->var, region);
    if (!ok) return false;
    written[t->var] = true;
  }
  return true;
}

bool simd_ok(const HostK *h, const KStmt *s, int region) {
  bool *written = calloc((size_t)h->k->nlocals + 1, 1);
  bool ok = simd_stmts_ok(h, s, &s->body, region, written, 0) && simd_stmts_ok(h, s, &s->body, region, written, 1);
  free(written);
  return ok;
}

/* ---------------------------------------------------------------- a chunk's edges and lanes as one loop
 *
 * The online softmax takes a chunk's staged edges one at a time and, for each, its heads as a
 * lane loop: `for (t = 0; t < cnt; t++) { e = sh_e[t]; for (k = 0; k < H; k++) { p = exp(sh_st[t *
 * H + k] - m[k]); sh_w[t * H + k] = p; csum[k] = csum[k] + (double)p; } }`. With H = 1 or 4 heads
 * the lane loop is one element or a quarter of a vector, so the exps are scalar or nearly (GAT's
 * one-head second layer on the R-MAT graph of issue 28: 74 ms, most of it the exps). The edges
 * and heads are one index space, q = t * H + k, and the body is one loop over it when:
 *   - the edge loop holds lane-uniform LETs (e = sh_e[t]: made private to each q) and one lane
 *     loop of H < 16 elements, H a power of two, flat and vectorisable (simd_ok);
 *   - each shared store of it is at t * H + k (one element per q: no two iterations write one);
 *   - each per-lane value it writes across regions is a sum, `csum[k] = csum[k] + x`, read
 *     nowhere else in the loop: x goes to gnn_terms_csum[q], and after the loop the terms are
 *     added per k in order of t, the order of the serial loop: the same sums, bit for bit.
 * The shared stores' array has a slot for each q, so it bounds the terms' arrays. emit_host.c
 * prints the loop 16 pairs at a time (q = b + j, j < 16), so that a head's values read in it,
 * m[k] with k = q % H, come from a copy in pair order, gnn_rep_m[j] (16 % H == 0): a contiguous
 * load, where GCC would not vectorise the gather from the local array m. */

static int count_reads_stmts(const PtrVec *b, int var);
static int count_reads_stmt(const KStmt *s, int var) {
  const KExpr *es[] = {s->row, s->idx, s->val, s->lo, s->hi};
  int n = 0;
  for (int j = 0; j < 5; j++) n += reads_var(es[j], var);
  return n + count_reads_stmts(&s->body, var);
}
static int count_reads_stmts(const PtrVec *b, int var) {
  int n = 0;
  for (int i = 0; i < b->len; i++) n += count_reads_stmt(b->items[i], var);
  return n;
}

/* The statements b of lane loop l in edge loop s (edge_lanes_of): shared stores at t * H + k, sums
 * into promoted locals read nowhere else. An `if` on the training flag is its body or nothing, or
 * its body where the flag is not yet known (simd_ok). */
static bool edge_lane_stmts_ok(const HostK *h, const KStmt *s, const KStmt *l, const PtrVec *b, bool *terms, int *slots) {
  const Kernel *k = h->k;
  for (int i = 0; i < b->len; i++) {
    const KStmt *t = b->items[i];
    int taken = training_if_taken(h, t);
    if (taken >= 0) {
      if (taken && !edge_lane_stmts_ok(h, s, l, &t->body, terms, slots)) return false;
      continue;
    }
    if (t->kind == KS_SHSTORE) {
      if (!edge_lane_index(t->idx, s->var, l->var, l->count)) return false;
      if (!*slots || k->shared[t->var].len < *slots) *slots = k->shared[t->var].len;
      continue;
    }
    if (!h->promote[t->var]) continue; /* a local of this lane loop alone */
    const KExpr *v = t->val;
    if (v->kind != KE_BIN || v->op != KO_ADD || v->a->kind != KE_VAR || v->a->var != t->var || !v->a->a ||
        v->a->a->kind != KE_VAR || v->a->a->var != l->var2 || v->a->a->a || reads_var(v->b, t->var) ||
        count_reads_stmts(&l->body, t->var) != 1 || kstmts_count_lets(&l->body, t->var) != 1)
      return false;
    terms[t->var] = true;
  }
  return true;
}

/* The lane loop of edge loop s when the two can be one loop (above), the sums' locals flagged
 * in terms and the bound of q in *slots; else NULL. */
const KStmt *edge_lanes_of(HostK *h, const KStmt *s, int region, bool *terms, int *slots) {
  const Kernel *k = h->k;
  if (s->kind != KS_FOR || s->count != 1 || s->lo->kind != KE_ICONST || s->lo->i != 0 || !s->body.len) return NULL;
  const KStmt *l = s->body.items[s->body.len - 1];
  if (l->kind != KS_FOR_LANES || l->lo || l->count >= 16 || (l->count & (l->count - 1)) || l->count > k->group) return NULL;
  for (int i = 0; i + 1 < s->body.len; i++) { /* uniform LETs, written and read only in this loop */
    const KStmt *u = s->body.items[i];
    if (u->kind != KS_LET || u->idx || !k->locals[u->var].uniform || k->locals[u->var].len ||
        kstmts_count_lets(&k->body, u->var) != 1 || count_reads_stmts(&k->body, u->var) != count_reads_stmts(&s->body, u->var))
      return NULL;
  }
  if (!flat_lanes_ok(h, l, region) || split_stmts(&l->body, l->var, l->count)) return NULL;
  bool was = h->staged;
  int fk = h->flat_k, fi = h->flat_i;
  h->staged = true, h->flat_k = l->var, h->flat_i = l->var2;
  bool ok = simd_ok(h, l, region);
  h->staged = was, h->flat_k = fk, h->flat_i = fi;
  if (!ok) return NULL;
  *slots = 0;
  return edge_lane_stmts_ok(h, s, l, &l->body, terms, slots) && *slots ? l : NULL;
}

/* Whether e reads promoted local v at element k alone (P[k], the lane's own: in the loop, the
 * copy gnn_rep_P[gnn_j]). */
bool reads_promoted(const HostK *h, const KExpr *e, int v) {
  return e && ((e->kind == KE_VAR && e->var == v && h->promote[v]) || reads_promoted(h, e->a, v) || reads_promoted(h, e->b, v) ||
               reads_promoted(h, e->c, v));
}
