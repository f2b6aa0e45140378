/* emit_host.c -- the host C backend: the kernel IR's kernels serialised MCUDA-style.
 *
 * A kernel's groups become the iterations of one loop over rows, run in parallel with OpenMP
 * (the blocks of the CUDA grid). Inside a group, the lanes are serialised the way MCUDA does
 * it (Stratton et al., 2008): the statement tree is split at every barrier and group reduction
 * into regions, each region becomes `for (lane = 0; lane < G; lane++) { ... }`, and statements
 * uniform across the group (the edge loops, their bounds, the staged edge ids) stay outside the
 * lane loops. A per-lane local that one region writes and another reads is promoted to an array
 * over the lanes (`acc[lane][i]`); a local used inside one region stays a scalar. A group
 * reduction (a warp shuffle butterfly on the GPU) is the same butterfly over the lane array, so
 * its sums are added in the GPU's order (the values summed can still differ in the last bit:
 * nvcc contracts a*b + c into an FMA by default, cc -O2 for x86-64 does not). Per-group shared memory is a local array of the row
 * iteration. Atomics are plain read-modify-writes made atomic for OpenMP (`omp atomic`, or a
 * compare-and-swap loop for max/min), since groups run in parallel.
 *
 * The kernels' statements and loops are printed here; expressions, the loop analysis and the
 * prefetches are in emit_host_expr.c, emit_host_lanes.c and emit_host_prefetch.c (emit_host_state.h
 * says which calls which), the narrow GEMMs in emit_host_gemm.c.
 */
#include "emit_host_state.h"
#include "emit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- analysis: regions and uses */

/* A local's use in a region: reads make it used; every access decides promotion. */
static void mark(HostK *h, int var, int region, bool read) {
  if (read) h->used[var] = true;
  if (h->k->locals[var].uniform || region == 0) return;
  if (!h->region[var]) h->region[var] = region;
  else if (h->region[var] != region) h->promote[var] = true;
}

static void scan_expr(HostK *h, const KExpr *e, int region) {
  if (!e) return;
  if (e->kind == KE_VAR) mark(h, e->var, region, true);
  scan_expr(h, e->a, region);
  scan_expr(h, e->b, region);
  scan_expr(h, e->c, region);
}

static void scan_block(HostK *h, const PtrVec *b, int region);

static void scan_stmt(HostK *h, const KStmt *s, int region) {
  switch (s->kind) {
  case KS_LET: mark(h, s->var, region, false); break;
  case KS_FOR: case KS_FOR_LANES:
    h->loopvar[s->var] = true;
    h->used[s->var] = true;
    if (s->kind == KS_FOR_LANES) h->loopvar[s->var2] = h->used[s->var2] = true;
    break;
  case KS_GROUP_REDUCE:
    h->used[s->var] = true;
    h->promote[s->var] = true;
    break;
  case KS_TICKET: h->used[s->var] = true; break;
  default: break;
  }
  scan_expr(h, s->row, region);
  scan_expr(h, s->idx, region);
  scan_expr(h, s->val, region);
  scan_expr(h, s->lo, region);
  scan_expr(h, s->hi, region);
  if ((s->kind == KS_FOR || s->kind == KS_IF) && stmt_uniform(h, s)) scan_block(h, &s->body, 0);
  else if (s->body.len) scan_block(h, &s->body, region);
}

/* Mirrors emit_block's splitting: a run of non-uniform statements is one region. */
static void scan_block(HostK *h, const PtrVec *b, int region) {
  if (region) { /* already inside a lane loop */
    for (int i = 0; i < b->len; i++) scan_stmt(h, b->items[i], region);
    return;
  }
  bool in_run = false;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (stmt_uniform(h, s)) {
      in_run = false;
      scan_stmt(h, s, 0);
    } else {
      if (!in_run) h->nregion++;
      in_run = true;
      scan_stmt(h, s, h->nregion);
    }
  }
}

static void emit_block(FILE *out, HostK *h, const PtrVec *b, int d, bool in_lanes);

/* Prints such a loop as its N addends into an array (a vector loop), then added pairwise --
 * element j + w into j, w = N/2, N/4, ..., 1 -- and the total added to the sum once. The same
 * products (each exact in float64: two floats' product has 48 significant bits), added in
 * another fixed order: at most a few float64 ulps from the serial sum, and far below a float's
 * ulp once rounded. GAT's edge kernel of the attention gradient (4 heads of 16, R-MAT graph of
 * issue 28): 300 -> 160-190 ms at 1 thread. The CUDA emitter keeps the serial loop: a thread's
 * adds there overlap other warps' latency. */
static void emit_pairwise_sum(FILE *out, HostK *h, const KStmt *s, const KExpr *addend, int d) {
  const char *n = h->k->locals[s->var].name;
  const KStmt *t = s->body.items[0];
  long long cnt = (long long)s->hi->i;
  ind(out, d);
  fputs("{ /* a float64 sum added pairwise: see emit_pairwise_sum */\n", out);
  ind(out, d + 1);
  fprintf(out, "double pairs[%lld] GNN_ALIGNED;\n", cnt);
  fputs("#pragma omp simd\n", out);
  ind(out, d + 1);
  fprintf(out, "for (int64_t %s = 0; %s < %lld; %s++) pairs[%s] = ", n, n, cnt, n, n);
  host_expr(out, h, addend);
  fputs(";\n", out);
  ind(out, d + 1);
  fprintf(out, "for (int64_t w = %lld; w > 0; w >>= 1) {\n", cnt / 2);
  fputs("#pragma omp simd\n", out);
  ind(out, d + 2);
  fputs("for (int64_t p = 0; p < w; p++) pairs[p] = pairs[p] + pairs[p + w];\n", out);
  ind(out, d + 1);
  fputs("}\n", out);
  ind(out, d + 1);
  host_var(out, h, t->var, NULL);
  fputs(" = ", out);
  host_var(out, h, t->var, NULL);
  fputs(" + pairs[0];\n", out);
  ind(out, d);
  fputs("}\n", out);
}

static bool emit_edge_lanes(FILE *out, HostK *h, const KStmt *s, int d);

/* A counted loop (KS_FOR): inside the lane loops (a per-lane loop) or outside them (uniform). */
static void emit_for(FILE *out, HostK *h, const KStmt *s, int d, bool in_lanes) {
  const char *n = h->k->locals[s->var].name;
  const KExpr *addend = in_lanes ? pairwise_sum_addend(h, s) : NULL;
  if (addend) {
    emit_pairwise_sum(out, h, s, addend, d);
    return;
  }
  if (!in_lanes && emit_edge_lanes(out, h, s, d)) return;
  ind(out, d);
  fprintf(out, "for (int64_t %s = ", n);
  host_expr(out, h, s->lo);
  fprintf(out, "; %s < ", n);
  host_expr(out, h, s->hi);
  if (s->count == 1) fprintf(out, "; %s++) {\n", n);
  else fprintf(out, "; %s += %lld) {\n", n, (long long)s->count);
  if (!in_lanes && s->count == 1 && has_lanes(h, &s->body)) {
    /* A serial loop of the group (the staged edges, one at a time) around lane loops: GCC 12
     * unrolls a short lanes loop completely, then vectorises this loop across edges, with a
     * gather per column (stride: the row width) where the lanes loop would read each gathered
     * row with contiguous vector loads. The empty asm keeps this loop scalar (GCN's 64-wide
     * aggregation on the 200k power-law graph: 2.5-4x faster; docs/benchmarks.md). */
    ind(out, d + 1);
    fputs("__asm__ volatile(\"\"); /* keeps this loop scalar: see emit_host.c */\n", out);
    bool was = h->staged;
    h->staged = true;
    emit_block(out, h, &s->body, d + 1, in_lanes);
    h->staged = was;
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  emit_block(out, h, &s->body, d + 1, in_lanes);
  ind(out, d);
  fputs("}\n", out);
}

static void emit_lane_stmt(FILE *out, HostK *h, const KStmt *s, int d) {
  const Kernel *k = h->k;
  switch (s->kind) {
  case KS_LET:
    if (!h->used[s->var]) return;
    ind(out, d);
    if (h->terms && h->terms[s->var]) { /* sum = sum + x: x alone, added in order after the loop */
      fprintf(out, "gnn_terms_%s[gnn_q] = ", k->locals[s->var].name);
      host_expr(out, h, s->val->b);
      fputs(";\n", out);
      return;
    }
    host_var(out, h, s->var, s->idx);
    fputs(" = ", out);
    host_expr(out, h, s->val);
    fputs(";\n", out);
    return;
  case KS_STORE: case KS_ATOMIC: {
    ind(out, d);
    if (s->kind == KS_ATOMIC && s->count == 1) { /* block-reduced: this thread's private sums */
      fprintf(out, "blk_%s[", s->buf->name);
      host_expr(out, h, s->idx);
      fputs("] += ", out);
      host_expr(out, h, s->val);
      fputs(";\n", out);
      return;
    }
    if (s->kind == KS_ATOMIC)
      fprintf(out, "gnn_atomic_%s_%s(&", s->op == KO_ADD ? "add" : s->op == KO_MAX ? "max" : "min", s->buf->elem == ELEM_F64 ? "f64" : "f32");
    fprintf(out, "%s[", s->buf->name);
    if (s->row) {
      host_sub(out, h, s->row);
      fprintf(out, " * %lld + ", (long long)s->buf->width);
      host_sub(out, h, s->idx);
    } else {
      host_expr(out, h, s->idx);
    }
    fputs(s->kind == KS_ATOMIC ? "], " : "] = ", out);
    if (s->buf->elem == ELEM_I32 && s->kind == KS_STORE) fputs("(int32_t)", out);
    if (s->buf->elem == ELEM_I32 && s->kind == KS_STORE) host_sub(out, h, s->val);
    else host_expr(out, h, s->val);
    fputs(s->kind == KS_ATOMIC ? ");\n" : ";\n", out);
    return;
  }
  case KS_SHSTORE:
    ind(out, d);
    fprintf(out, "%s[", k->shared[s->var].name);
    host_expr(out, h, s->idx);
    fputs("] = ", out);
    host_expr(out, h, s->val);
    fputs(";\n", out);
    /* a staged id read from a graph array (a source, an edge id of the CSC order), not the edge
     * counter itself (consecutive edges: the hardware's prefetcher sees those): its rows */
    for (int i = 0; s->val->kind == KE_GRAPH && i < PF_MAX && h->pf[s->var * PF_MAX + i].buf; i++) {
      const PfRow *r = &h->pf[s->var * PF_MAX + i];
      if (!r->at_store) continue;
      ind(out, d);
      fprintf(out, "gnn_prefetch_row(&%s[%s[", r->buf->name, k->shared[s->var].name);
      host_expr(out, h, s->idx);
      fputc(']', out);
      pf_row_end(out, r);
    }
    pf_ahead(out, h, s, d);
    return;
  case KS_FOR:
    emit_for(out, h, s, d, true);
    return;
  case KS_FOR_LANES: {
    int64_t nk = (s->count + k->group - 1) / k->group;
    ind(out, d);
    fprintf(out, "for (int %s = 0; %s < %lld; %s++) {\n", k->locals[s->var2].name, k->locals[s->var2].name, (long long)nk,
            k->locals[s->var2].name);
    ind(out, d + 1);
    fprintf(out, "const int64_t %s = ", k->locals[s->var].name);
    if (s->lo) { /* a column tile's loop: from its first element */
      host_sub(out, h, s->lo);
      fputs(" + ", out);
    }
    fprintf(out, "lane + (int64_t)%s * %d;\n", k->locals[s->var2].name, k->group);
    ind(out, d + 1);
    if (s->lo) fprintf(out, "if (lane + (int64_t)%s * %d < %lld && %s < %lld) {\n", k->locals[s->var2].name, k->group,
                       (long long)s->count, k->locals[s->var].name, (long long)k->col_width);
    else fprintf(out, "if (%s < %lld) {\n", k->locals[s->var].name, (long long)s->count);
    emit_block(out, h, &s->body, d + 2, true);
    ind(out, d + 1);
    fputs("}\n", out);
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  case KS_IF:
    if (training_if_taken(h, s) == 0 || training_if_taken(h, s) == 1) { /* unswitched: the flag is known */
      if (training_if_taken(h, s)) emit_block(out, h, &s->body, d, true);
      return;
    }
    ind(out, d);
    fputs("if (", out);
    host_expr(out, h, s->lo);
    fputs(") {\n", out);
    emit_block(out, h, &s->body, d + 1, true);
    ind(out, d);
    fputs("}\n", out);
    return;
  default:
    ind(out, d);
    fputs("/* unexpected statement */\n", out);
  }
}

/* Locals that live in one region only: declared at the top of its lane loop. */
static void region_decls(FILE *out, const HostK *h, int region, int d, const bool *only) {
  for (int i = 0; i < h->k->nlocals; i++) {
    const KLocal *l = &h->k->locals[i];
    if (!h->used[i] || !region_local(h, i, region) || (only && !only[i])) continue;
    ind(out, d);
    fprintf(out, "%s %s", ctype(l->type), l->name);
    if (l->len) fprintf(out, "[%d]", l->len);
    fputs(";\n", out);
    if (h->training >= 0) { /* an unswitched copy may have folded its only uses away */
      ind(out, d);
      fprintf(out, "(void)%s;\n", l->name);
    }
  }
}

static void emit_uniform(FILE *out, HostK *h, const KStmt *s, int d) {
  const Kernel *k = h->k;
  switch (s->kind) {
  case KS_LET:
    if (!h->used[s->var]) return;
    ind(out, d);
    host_var(out, h, s->var, s->idx);
    fputs(" = ", out);
    host_expr(out, h, s->val);
    fputs(";\n", out);
    return;
  case KS_FOR:
    emit_for(out, h, s, d, false);
    return;
  case KS_IF: /* a uniform condition: the lane loops go inside */
    ind(out, d);
    fputs("if (", out);
    host_expr(out, h, s->lo);
    fputs(") {\n", out);
    emit_block(out, h, &s->body, d + 1, false);
    ind(out, d);
    fputs("}\n", out);
    return;
  case KS_BARRIER:
    ind(out, d);
    fputs("/* barrier: the lane loops above and below are separate regions */\n", out);
    return;
  case KS_GROUP_REDUCE: {
    /* the butterfly's total folded in halves: lane l < off takes l + off, as the butterfly's lane
     * 0 does at each step, and every butterfly lane ends with lane 0's bits (after the step at off,
     * lanes l and l ^ off hold a + b and b + a); then lane 0's total to every lane. G - 1
     * operations, contiguous, where the butterfly takes G log G through a copy */
    const char *n = k->locals[s->var].name;
    const char *op = s->op == KO_ADD ? "sum" : s->op == KO_MAX ? "max" : "min";
    for (int off = k->group / 2; off > 0; off /= 2) { /* a loop per step, its count a constant: vectorised */
      ind(out, d);
      fprintf(out, "for (int lane = 0; lane < %d; lane++) ", off);
      if (s->op == KO_ADD) fprintf(out, "%s[lane] = %s[lane] + %s[lane + %d];", n, n, n, off);
      else fprintf(out, "%s[lane] = %s[lane + %d] %s %s[lane] ? %s[lane + %d] : %s[lane];", n, n, off, s->op == KO_MAX ? ">" : "<", n, n, off, n);
      fprintf(out, off == k->group / 2 ? "  /* group_%s, in the shuffle butterfly's order */\n" : "\n", op);
    }
    ind(out, d);
    fprintf(out, "for (int lane = 1; lane < %d; lane++) %s[lane] = %s[0];\n", k->group, n, n);
    return;
  }
  case KS_TICKET: /* the group's stores above happen before its add; the group that draws the last
                     count reads them after its own (acquire-release) */
    ind(out, d);
    fprintf(out, "%s = __atomic_fetch_add(&%s[", k->locals[s->var].name, s->buf->name);
    host_expr(out, h, s->row);
    fputs("], 1, __ATOMIC_ACQ_REL);\n", out);
    return;
  default:
    return;
  }
}

static void emit_flat_loop(FILE *out, HostK *h, const KStmt *s, int region, int d, const bool *only);

/* A flat lane loop's element k as the lane and its iteration: lane = k % G, i = k / G. */
static void lane_ids(FILE *out, const HostK *h, const KStmt *l, int d) {
  const char *kv = h->k->locals[l->var].name, *iv = h->k->locals[l->var2].name;
  ind(out, d);
  if (l->lo) { /* a column tile's loop: k - lo = lane + i * G */
    fprintf(out, "const int lane = (int)((%s - ", kv);
    host_sub(out, h, l->lo);
    fprintf(out, ") %% %d), %s = (int)((%s - ", h->k->group, iv, kv);
    host_sub(out, h, l->lo);
    fprintf(out, ") / %d);\n", h->k->group);
  } else {
    fprintf(out, "const int lane = (int)(%s %% %d), %s = (int)(%s / %d);\n", kv, h->k->group, iv, kv, h->k->group);
  }
  ind(out, d);
  fputs("(void)lane;\n", out);
  ind(out, d);
  fprintf(out, "(void)%s;\n", iv);
}

/* ---------------------------------------------------------------- flat lane loops
 *
 * A region's lane loop printed in order of k (`for (k = 0; k < N; k++)`, "the lanes in order of
 * k" in the generated code): why that is a valid serialisation of the lanes, and when it is used,
 * `#pragma omp simd` and the split by k / C, are in emit_host_lanes.c, which answers the
 * questions; the loops are printed here. */

/* A flat lane loop that reads the training flag prints twice, under `if (training)` and its
 * else, the flag a constant in each: GCC does not unswitch a loop this deep, and a `training ?
 * a : b` left in it is control flow, which stops the loop from vectorising (the pragma against
 * if-conversion, host_prelude); computing both arms instead would draw dropout's random bits
 * in inference too. */
static void emit_flat_lanes(FILE *out, HostK *h, const KStmt *s, int region, int d, const bool *only) {
  if (h->training >= 0 || !stmt_has_training(s)) {
    emit_flat_loop(out, h, s, region, d, only);
    return;
  }
  ind(out, d);
  fputs("if (training) {\n", out);
  h->training = 1;
  emit_flat_loop(out, h, s, region, d + 1, only);
  ind(out, d);
  fputs("} else {\n", out);
  h->training = 0;
  emit_flat_loop(out, h, s, region, d + 1, only);
  h->training = -1;
  ind(out, d);
  fputs("}\n", out);
}

/* A flat loop whose body reads k / C (a head's value for each of its C elements: GAT's attention
 * weight sh_w[k / 16] times the row's element k) prints as two loops, over k / C and k % C, the
 * same order of k: in the inner loop k / C is a constant, which GCC broadcasts, where over one
 * loop of k it gathered each element by its computed index (GAT's forward walk on the 200k
 * power-law graph: vgatherqps its hottest instructions). */
static void emit_flat_loop(FILE *out, HostK *h, const KStmt *s, int region, int d, const bool *only) {
  const Kernel *k = h->k;
  const char *kv = k->locals[s->var].name;
  bool ragged = klanes_may_pass_width(k, s); /* the last tile shorter: its loop ends at the width, not split */
  int64_t c = ragged ? 0 : split_stmts(&s->body, s->var, s->count);
  int save_k = h->flat_k, save_i = h->flat_i; /* simd_ok reads the flat loop's i */
  h->flat_k = s->var, h->flat_i = s->var2;
  bool simd = h->staged && simd_ok(h, s, region);
  h->flat_k = save_k, h->flat_i = save_i;
  if (simd && !c) fputs("#pragma omp simd /* see simd_ok */\n", out);
  ind(out, d);
  if (c) { /* in a column tile's loop from k / C = lo / C (C divides the tile, hence lo) */
    fprintf(out, "for (int64_t %s_hi = ", kv);
    if (s->lo) host_sub(out, h, s->lo), fprintf(out, " / %lld", (long long)c);
    else fputc('0', out);
    fprintf(out, "; %s_hi < ", kv);
    if (s->lo) host_sub(out, h, s->lo), fprintf(out, " / %lld + ", (long long)c);
    fprintf(out, "%lld; %s_hi++) { /* k / %lld: see emit_flat_loop */\n", (long long)(s->count / c), kv, (long long)c);
    if (simd) fputs("#pragma omp simd /* see simd_ok */\n", out);
    ind(out, ++d);
    fprintf(out, "for (int64_t %s_lo = 0; %s_lo < %lld; %s_lo++) { /* the lanes in order of k: see emit_host.c */\n", kv, kv,
            (long long)c, kv);
    ind(out, d + 1);
    fprintf(out, "const int64_t %s = %s_hi * %lld + %s_lo;\n", kv, kv, (long long)c, kv);
  } else if (s->lo) { /* a column tile's: its elements from lo (the last tile to the width) */
    fprintf(out, "for (int64_t %s = ", kv);
    host_sub(out, h, s->lo);
    fprintf(out, "; %s < %s", kv, ragged ? "gnn_min_i64(" : "");
    host_sub(out, h, s->lo);
    fprintf(out, " + %lld", (long long)s->count);
    if (ragged) fprintf(out, ", %lld)", (long long)k->col_width);
    fprintf(out, "; %s++) { /* the lanes in order of k: see emit_host.c */\n", kv);
  } else {
    fprintf(out, "for (int64_t %s = 0; %s < %lld; %s++) { /* the lanes in order of k: see emit_host.c */\n", kv, kv,
            (long long)s->count, kv);
  }
  lane_ids(out, h, s, d + 1);
  region_decls(out, h, region, d + 1, only);
  h->flat_k = s->var, h->flat_i = s->var2, h->split = c, h->flat_lo = s->lo;
  emit_block(out, h, &s->body, d + 1, true);
  h->flat_k = h->flat_i = -1, h->split = 0, h->flat_lo = NULL;
  ind(out, d);
  fputs("}\n", out);
  if (c) {
    ind(out, d - 1);
    fputs("}\n", out);
  }
}

static void edge_lanes_loop(FILE *out, HostK *h, const KStmt *s, const KStmt *l, int region, int d, const bool *only) {
  const Kernel *k = h->k;
  const char *tv = k->locals[s->var].name, *kv = k->locals[l->var].name;
  long long nh = (long long)l->count;
  ind(out, d);
  fputs("for (int64_t gnn_b = 0; gnn_b < (", out);
  host_expr(out, h, s->hi);
  fprintf(out, ") * %lld; gnn_b += 16) { /* 16 (edge, lane) pairs at a time: see emit_edge_lanes */\n", nh);
  ind(out, d + 1);
  fputs("const int64_t gnn_nb = gnn_min_i64((", out);
  host_expr(out, h, s->hi);
  fprintf(out, ") * %lld - gnn_b, 16);\n", nh);
  fputs("#pragma omp simd", out);
  int np = 0; /* the uniform locals, one per pair */
  for (int i = 0; i + 1 < s->body.len; i++) {
    const KStmt *u = s->body.items[i];
    if (h->used[u->var]) fprintf(out, "%s%s", np++ ? ", " : " private(", k->locals[u->var].name);
  }
  fputs(np ? ") /* see emit_edge_lanes */\n" : " /* see emit_edge_lanes */\n", out);
  ind(out, d + 1);
  fputs("for (int64_t gnn_j = 0; gnn_j < gnn_nb; gnn_j++) {\n", out);
  ind(out, d + 2);
  fprintf(out, "const int64_t gnn_q = gnn_b + gnn_j, %s = gnn_q / %lld, %s = gnn_j %% %lld;\n", tv, nh, kv, nh);
  lane_ids(out, h, l, d + 2);
  ind(out, d + 2);
  fprintf(out, "(void)gnn_q;\n");
  ind(out, d + 2);
  fprintf(out, "(void)%s; /* the edge: read by an edge value or a uniform local, if any */\n", tv);
  for (int i = 0; i + 1 < s->body.len; i++) emit_uniform(out, h, s->body.items[i], d + 2);
  region_decls(out, h, region, d + 2, only);
  h->flat_k = l->var, h->flat_i = l->var2, h->el_t = s->var, h->el_k = l->var, h->el_h = l->count;
  emit_block(out, h, &l->body, d + 2, true);
  h->flat_k = h->flat_i = -1, h->el_h = 0;
  ind(out, d + 1);
  fputs("}\n", out);
  ind(out, d);
  fputs("}\n", out);
}

/* Prints edge loop s as one loop over its edges and lanes when it can be (above): true; else
 * prints nothing and returns false. */
static bool emit_edge_lanes(FILE *out, HostK *h, const KStmt *s, int d) {
  const Kernel *k = h->k;
  int region = h->cur + 1, slots = 0;
  bool *terms = calloc((size_t)k->nlocals + 1, 1);
  const KStmt *l = edge_lanes_of(h, s, region, terms, &slots);
  if (!l) {
    free(terms);
    return false;
  }
  h->cur = region;
  bool *only = flat_region(h, &s->body, s->body.len - 1, s->body.len, region);
  const char *tv = k->locals[s->var].name;
  ind(out, d);
  fputs("{ /* the chunk's edges and their lanes as one loop: see emit_edge_lanes */\n", out);
  for (int v = 0; v < k->nlocals; v++)
    if (terms[v]) {
      ind(out, d + 1);
      fprintf(out, "%s gnn_terms_%s[%d] GNN_ALIGNED;\n", ctype(k->locals[v].type), k->locals[v].name, slots);
    }
  for (int v = 0; v < k->nlocals; v++) { /* the lanes' values the pairs read: a vector's worth, in pair order */
    bool read = false;
    for (int i = 0; i < l->body.len && h->promote[v] && !terms[v] && !read; i++) {
      const KStmt *t = l->body.items[i];
      read = reads_promoted(h, t->idx, v) || reads_promoted(h, t->val, v);
    }
    if (!read) continue;
    const char *n = k->locals[v].name;
    ind(out, d + 1);
    fprintf(out, "%s gnn_rep_%s[16];\n", ctype(k->locals[v].type), n);
    ind(out, d + 1);
    fprintf(out, "for (int gnn_r = 0; gnn_r < 16; gnn_r++) gnn_rep_%s[gnn_r] = %s[gnn_r %% %lld];\n", n, n, (long long)l->count);
  }
  bool was = h->staged;
  h->staged = true, h->terms = terms;
  if (h->training < 0 && stmt_has_training(l)) {
    ind(out, d + 1);
    fputs("if (training) {\n", out);
    h->training = 1;
    edge_lanes_loop(out, h, s, l, region, d + 2, only);
    ind(out, d + 1);
    fputs("} else {\n", out);
    h->training = 0;
    edge_lanes_loop(out, h, s, l, region, d + 2, only);
    h->training = -1;
    ind(out, d + 1);
    fputs("}\n", out);
  } else {
    edge_lanes_loop(out, h, s, l, region, d + 1, only);
  }
  h->staged = was, h->terms = NULL;
  for (int v = 0; v < k->nlocals; v++) {
    if (!terms[v]) continue;
    const char *n = k->locals[v].name;
    ind(out, d + 1);
    fprintf(out, "for (int64_t %s = 0; %s < ", tv, tv);
    host_expr(out, h, s->hi);
    fprintf(out, "; %s++) /* the terms in the serial loop's order */\n", tv);
    ind(out, d + 2);
    fprintf(out, "for (int64_t gnn_k = 0; gnn_k < %lld; gnn_k++) %s[gnn_k] = %s[gnn_k] + gnn_terms_%s[%s * %lld + gnn_k];\n",
            (long long)l->count, n, n, n, tv, (long long)l->count);
  }
  ind(out, d);
  fputs("}\n", out);
  free(only);
  free(terms);
  return true;
}

/* Lane-uniform statements print as they are; each maximal run of per-lane statements becomes
 * one lane loop (a region). Inside a lane loop (in_lanes) everything is per-lane code. */
static void emit_block(FILE *out, HostK *h, const PtrVec *b, int d, bool in_lanes) {
  if (in_lanes) {
    for (int i = 0; i < b->len; i++) emit_lane_stmt(out, h, b->items[i], d);
    return;
  }
  for (int i = 0; i < b->len;) {
    const KStmt *s = b->items[i];
    if (stmt_uniform(h, s)) {
      emit_uniform(out, h, s, d);
      i++;
      continue;
    }
    int region = ++h->cur, end = i;
    while (end < b->len && !stmt_uniform(h, b->items[end])) end++;
    bool *refs = flat_region(h, b, i, end, region);
    if (refs) {
      for (int a = i; a < end; a++) emit_flat_lanes(out, h, b->items[a], region, d, refs + (size_t)(a - i) * (h->k->nlocals + 1));
      free(refs);
      i = end;
      continue;
    }
    ind(out, d);
    fprintf(out, "for (int lane = 0; lane < %d; lane++) {\n", h->k->group);
    region_decls(out, h, region, d + 1, NULL);
    for (; i < b->len && !stmt_uniform(h, b->items[i]); i++) emit_lane_stmt(out, h, b->items[i], d + 1);
    ind(out, d);
    fputs("}\n", out);
  }
}

/* Which buffers the kernel writes (stores, atomics): the others are const. */
static bool writes_buf(const PtrVec *b, const KBuf *buf) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if ((s->kind == KS_STORE || s->kind == KS_ATOMIC || s->kind == KS_TICKET) && s->buf == buf) return true;
    if (writes_buf(&s->body, buf)) return true;
  }
  return false;
}

static void params(FILE *out, const Kernel *k, const char *restrict_kw) {
  fputs(k->pieces ? "int64_t nrows, int64_t npieces, int64_t piece_len" : "int64_t nrows", out);
  for (int g = 0; g < KG__COUNT; g++)
    if (k->graph[g]) fprintf(out, ", const %s *%s %s", kgraph_type[g], restrict_kw, kgraph_name[g]);
  for (int i = 0; i < k->bufs.len; i++) {
    const KBuf *b = k->bufs.items[i];
    bool w = writes_buf(&k->body, b);
    fprintf(out, ", %s%s *%s %s", w ? "" : "const ", elem_c(b->elem), restrict_kw, b->name);
  }
  if (k->dropout) fputs(", int training, uint64_t seed", out);
}

static void host_kernel(FILE *out, const KProgram *p, const Kernel *k) {
  (void)p;
  int n = k->nlocals;
  HostK h = {k, calloc((size_t)n + 1, sizeof(int)), calloc((size_t)n + 1, 1), calloc((size_t)n + 1, 1), calloc((size_t)n + 1, 1), 0, 0, -1, -1, 0, -1,
             calloc((size_t)k->nshared * PF_MAX + 1, sizeof(PfRow)), {calloc(PF_MAX, sizeof(PfRow)), calloc(PF_MAX, sizeof(PfRow))},
             calloc((size_t)k->nshared + 1, sizeof(KExpr *)), -1, false, NULL, -1, -1, 0, NULL};
  scan_block(&h, &k->body, 0);
  pf_scan(&h);
  fprintf(out, "\n/* %s: %s, %d lanes per group. %s%s\n", k->name, kernel_mapping_desc(k), k->group, k->what, emit_kernel_comment_end(p, k));
  fprintf(out, "static void %s(", k->name);
  params(out, k, "restrict");
  fputs(") {\n", out);
  if (k->dropout) fputs("  (void)training;\n  (void)seed;  /* a kernel may use the flag alone (stores of stashes) */\n", out);
  if (h.walk_ptr >= 0) /* the edge count: the bound of the prefetch ahead (pf_walk) */
    fprintf(out, "  const int64_t gnn_pf_ne = nrows > 0 ? %s[%s] : 0;\n  (void)gnn_pf_ne;\n", kgraph_name[h.walk_ptr],
            k->pieces ? "nrows - npieces" : "nrows");
  const KBuf *blk[8];
  int nblk = block_targets(&k->body, blk, 8, 0);
  if (nblk) { /* block-reduced sums: each thread adds into its own, then one atomic per element */
    fputs("#pragma omp parallel\n  {\n", out);
    for (int i = 0; i < nblk; i++) fprintf(out, "  double blk_%s[%lld] GNN_ALIGNED = {0};\n", blk[i]->name, (long long)blk[i]->width);
    fprintf(out, "#pragma omp for schedule(%s)\n", k->map == MAP_VERTEX ? "dynamic, 64" : "static");
  } else {
    fprintf(out, "#pragma omp parallel for schedule(%s)\n", k->map == MAP_VERTEX ? "dynamic, 64" : "static");
  }
  if (k->pieces) /* the hub rows' pieces, then a group per vertex (docs/kernel-ir.md, "Hub rows in pieces") */
    fprintf(out, "  for (int64_t item = 0; item < nrows; item++) {\n"
                 "    const int64_t row = item < npieces ? (int64_t)%s[item] : item - npieces;\n",
            kgraph_name[k->dir == GATHER_BY_SRC ? KG_OUT_PIECE_ROW : KG_PIECE_ROW]);
  else if (k->col_tiles > 1) /* a group per (tile, row), tile-major (docs/kernel-ir.md, "Column tiles") */
    fprintf(out, "  for (int64_t item = 0; item < nrows * %d; item++) {\n"
                 "    const int64_t tile = item / nrows, row = item - tile * nrows;\n",
            k->col_tiles);
  else
    fputs("  for (int64_t row = 0; row < nrows; row++) {\n", out);
  for (int side = 0; side < 2; side++) /* an edge's rows, a few edges ahead: see pf_scan */
    for (int i = 0; i < PF_MAX && h.pfe[side][i].buf; i++) {
      fprintf(out, "    if (row + %d < nrows) gnn_prefetch_row(&%s[(int64_t)%s[row + %d]", PF_EDGE_AHEAD, h.pfe[side][i].buf->name,
              kgraph_name[side ? KG_DST : KG_SRC], PF_EDGE_AHEAD);
      pf_row_end(out, &h.pfe[side][i]);
    }
  for (int i = 0; i < k->nshared; i++)
    fprintf(out, "    %s %s[%d] GNN_ALIGNED = {0};  /* shared by the group (zeroed: gcc cannot see that each read follows a write) */\n",
            ctype(k->shared[i].type), k->shared[i].name, k->shared[i].len);
  for (int i = 0; i < n; i++) {
    const KLocal *l = &k->locals[i];
    if (!h.used[i] || h.loopvar[i]) continue;
    if (l->uniform) {
      fprintf(out, "    %s %s", ctype(l->type), l->name);
      if (l->len) fprintf(out, "[%d] GNN_ALIGNED", l->len);
      fputs(";\n", out);
    } else if (h.promote[i]) {
      fprintf(out, "    %s %s[%d] GNN_ALIGNED", ctype(l->type), l->name, k->group * (l->len ? l->len : 1));
      fputs(";  /* per lane, live across regions */\n", out);
    }
  }
  emit_block(out, &h, &k->body, 2, false);
  fputs("  }\n", out);
  for (int i = 0; i < nblk; i++)
    fprintf(out, "  for (int64_t i = 0; i < %lld; i++)\n    if (blk_%s[i] != 0) gnn_atomic_add_f64(&%s[i], blk_%s[i]);\n",
            (long long)blk[i]->width, blk[i]->name, blk[i]->name, blk[i]->name);
  if (nblk) fputs("  }\n", out);
  fputs("}\n", out);
  free(h.region);
  free(h.promote);
  free(h.loopvar);
  free(h.used);
  free(h.pf);
  free(h.pfe[0]);
  free(h.pfe[1]);
  free(h.stage);
}

/* ---------------------------------------------------------------- the driver's side */

static void host_prelude(FILE *out, const KProgram *p) {
  fputs("#include <limits.h>\n#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
        "#include <cblas.h>\n\n#include \"gnnrt_rng.h\"\n",
        out);
  /* GCC 12.2 miscompiles if-converted masked loads at -O3 with AVX2/AVX-512: GIN's relu
   * gradient over rows of 3 lost elements (docs/kernel-ir.md has the reproduction). In the
   * source, so whoever compiles it (gnnc's cc line, an embedding project's flags) is safe. */
  fputs("\n/* GCC 12 at -O3 with AVX2/AVX-512 miscompiles if-converted masked loads (docs/kernel-ir.md). */\n"
        "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize(\"no-tree-loop-if-convert\")\n#endif\n",
        out);
  /* No FMA contraction, whatever the flags: gnnc's own cc line has -ffp-contract=off, but GCC
   * in its GNU modes (gcc -O2 -march=native) and clang by default contract a * b + c, in one
   * kernel and not another (a product hoisted out of a loop, or not), and the backward of
   * max_out / readout.max finds the edges holding the forward's maximum by equality with a value
   * it recomputes: built with -ffp-contract=fast -mfma, max_out(h[src] * h[src] + h[dst]) lost
   * gradients (tests/codegen/contract.gnn). clang -ffp-contract=fast overrides the standard
   * pragma; nothing in the source can stop it (docs/kernel-ir.md, "Rounding"). */
  fputs("\n/* Every operation rounds once: no FMA contraction, as the CUDA kernels (docs/kernel-ir.md). */\n"
        "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize(\"fp-contract=off\")\n#else\n"
        "#pragma STDC FP_CONTRACT OFF\n#endif\n",
        out);
  fputs("\n/* Helpers a model may not use all of. */\n#define GNN_HELPER static inline __attribute__((unused))\n"
        "/* Every array a kernel declares asks for 64 bytes: gcc 12 at -O3 with AVX-512 (-march=native\n"
        " * on a Zen 4) vectorised the zeroing of a float[20] in an OpenMP region with aligned 32-byte\n"
        " * stores into a stack slot it had placed 16 bytes off (SIGSEGV); an alignment the declaration\n"
        " * asks for is honoured. */\n#define GNN_ALIGNED __attribute__((aligned(64)))\n"
        "GNN_HELPER float gnn_rsqrtf(float x) { return 1.0f / sqrtf(x); }\n"
        "/* x where the mask keeps it, +0 where it drops it: a select without a branch. */\n"
        "GNN_HELPER float gnn_keep_f32(int keep, float x) {\n"
        "  uint32_t b;\n  memcpy(&b, &x, sizeof b);\n  b &= 0u - (uint32_t)(keep != 0);\n  memcpy(&x, &b, sizeof b);\n  return x;\n}\n"
        "GNN_HELPER double gnn_keep_f64(int keep, double x) {\n"
        "  uint64_t b;\n  memcpy(&b, &x, sizeof b);\n  b &= 0ull - (uint64_t)(keep != 0);\n  memcpy(&x, &b, sizeof b);\n  return x;\n}\n"
        "/* c ? a : b as bits under a mask: both computed, no branch (a vector select where the loop vectorises). */\n"
        "GNN_HELPER float gnn_sel_f32(int c, float a, float b) {\n"
        "  union { float f; uint32_t u; } x = {a}, y = {b};\n"
        "  uint32_t m = 0u - (uint32_t)(c != 0);\n  x.u = (x.u & m) | (y.u & ~m);\n  return x.f;\n}\n"
        "GNN_HELPER double gnn_sel_f64(int c, double a, double b) {\n"
        "  union { double f; uint64_t u; } x = {a}, y = {b};\n"
        "  uint64_t m = 0ull - (uint64_t)(c != 0);\n  x.u = (x.u & m) | (y.u & ~m);\n  return x.f;\n}\n"
        "/* exp(x) without a call or a branch, so that lane loops vectorise: Cephes' expf (x = k ln2 + r,\n"
        " * ln2 in two parts, a degree-5 polynomial; k rounded by adding 1.5 * 2^23, as floorf does not\n"
        " * vectorise without -fno-trapping-math). At most 1 ulp from glibc's expf where the result is a\n"
        " * normal float; results below FLT_MIN (x < -87.34) are +0, x > 88.72 is +inf, NaN stays NaN. */\n"
        "GNN_HELPER float gnn_expf(float x) {\n"
        "  float xc = gnn_sel_f32(x < -87.33654f, -87.33654f, gnn_sel_f32(x > 88.72283f, 88.72283f, x));\n"
        "  float k = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;\n"
        "  float r = xc - k * 0.693359375f;\n  r = r - k * -2.12194440e-4f;\n"
        "  float y = 1.9875691500e-4f;\n  y = y * r + 1.3981999507e-3f;\n  y = y * r + 8.3334519073e-3f;\n"
        "  y = y * r + 4.1665795894e-2f;\n  y = y * r + 1.6666665459e-1f;\n  y = y * r + 5.0000001201e-1f;\n"
        "  y = y * (r * r) + r + 1.0f;\n"
        "  int32_t ki = (int32_t)k, top = ki > 127; /* 2^128 is not a float: 2^127, then 2 */\n"
        "  union { float f; uint32_t u; } s;\n  s.u = (uint32_t)(ki - top + 127) << 23;\n"
        "  y = y * s.f * (1.0f + (float)top);\n"
        "  y = gnn_sel_f32(x < -87.33654f, 0.0f, y);\n  y = gnn_sel_f32(x > 88.72283f, INFINITY, y);\n"
        "  return gnn_sel_f32(x != x, x, y);\n}\n"
        "/* exp(x) - 1 without cancellation near 0: Taylor to x^9 where |x| < 0.5 (remainder below\n"
        " * 2^-28 relative), else gnn_expf(x) - 1; at most 2 ulp from glibc's expm1f. */\n"
        "GNN_HELPER float gnn_expm1f(float x) {\n"
        "  float p = 2.75573192e-6f;\n  p = p * x + 2.48015873e-5f;\n  p = p * x + 1.98412698e-4f;\n"
        "  p = p * x + 1.38888889e-3f;\n  p = p * x + 8.33333333e-3f;\n  p = p * x + 4.16666667e-2f;\n"
        "  p = p * x + 1.66666667e-1f;\n  p = p * x + 0.5f;\n"
        "  return gnn_sel_f32((x > -0.5f) & (x < 0.5f), x + (x * x) * p, gnn_expf(x) - 1.0f);\n}\n"
        "/* tanh(x) = t / (t + 2), t = expm1(2x): no cancellation near 0; |x| > 9 is +-1 in float32.\n"
        " * At most 4 ulp from glibc's tanhf. */\n"
        "GNN_HELPER float gnn_tanhf(float x) {\n"
        "  float t = gnn_expm1f(2.0f * gnn_sel_f32(x > 9.0f, 9.0f, gnn_sel_f32(x < -9.0f, -9.0f, x)));\n"
        "  return t / (t + 2.0f);\n}\n"
        "/* Asks for the cache lines of a row read soon (a gathered row of a walk): a hint, never a fault. */\n"
        "GNN_HELPER void gnn_prefetch_row(const void *p, int64_t bytes) {\n"
        "  const char *c = (const char *)p;\n"
        "  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(c + b);\n"
        "  __builtin_prefetch(c + bytes - 1); /* the last line of a row that does not start on one */\n}\n"
        "GNN_HELPER int64_t gnn_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }\n"
        "GNN_HELPER int64_t gnn_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }\n"
        "/* Groups run in parallel: an atomic of the GPU is an atomic of OpenMP here. */\n"
        "GNN_HELPER void gnn_atomic_add_f32(float *p, float v) {\n#pragma omp atomic\n  *p += v;\n}\n"
        "GNN_HELPER void gnn_atomic_add_f64(double *p, double v) {\n#pragma omp atomic\n  *p += v;\n}\n"
        "GNN_HELPER void gnn_atomic_max_f32(float *p, float v) {\n"
        "  float old;\n  __atomic_load(p, &old, __ATOMIC_RELAXED);\n"
        "  while (v > old && !__atomic_compare_exchange(p, &old, &v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {\n  }\n}\n"
        "GNN_HELPER void gnn_atomic_min_f32(float *p, float v) {\n"
        "  float old;\n  __atomic_load(p, &old, __ATOMIC_RELAXED);\n"
        "  while (v < old && !__atomic_compare_exchange(p, &old, &v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {\n  }\n}\n"
        "GNN_HELPER void gnn_fill(float *p, int64_t n, float v) {\n#pragma omp parallel for schedule(static)\n"
        "  for (int64_t i = 0; i < n; i++) p[i] = v;\n}\n"
        "/* cblas takes int dimensions. */\n"
        "GNN_HELPER int gnn_blas_dim(int64_t x) { return x <= INT_MAX ? (int)x : -1; }\n",
        out);
  host_gemm_prelude(out, p);
}

static void host_launch(FILE *out, const KProgram *p, const Kernel *k) {
  fprintf(out, "  %s(%s%s", k->name, emit_kernel_rows(p, k),
          !k->pieces ? "" : k->dir == GATHER_BY_SRC ? ", g->out_npieces, g->piece_len" : ", g->npieces, g->piece_len");
  for (int g = 0; g < KG__COUNT; g++)
    if (k->graph[g]) fprintf(out, ", g->%s", kgraph_name[g]);
  for (int i = 0; i < k->bufs.len; i++) fprintf(out, ", %s", emit_buf_ref(p, k->bufs.items[i]));
  if (k->dropout) fputs(", training, seed", out);
  fputs(");\n", out);
}

static void host_fill(FILE *out, const char *ptr, const char *count, double v) {
  fprintf(out, "  gnn_fill(%s, %s, %s);\n", ptr, count, v > 0 ? "INFINITY" : v < 0 ? "-INFINITY" : "0.0f");
}

static void host_copy(FILE *out, const char *dst, const char *src, const char *bytes) {
  fprintf(out, "  memcpy(%s, %s, %s);\n", dst, src, bytes);
}

const EmitHooks emit_host_hooks = {TARGET_HOST, host_prelude, host_kernel, host_launch, host_gemm, host_fill, host_copy};
