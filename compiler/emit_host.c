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
 */
#include "gnnc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const Kernel *k;
  int *region;       /* per local: the region it was first used in (0 = none yet) */
  bool *promote;     /* per local: used in two regions (or by a group reduction): an array over lanes */
  bool *loopvar;     /* per local: a loop variable (declared in its loop header) */
  bool *used;
  int nregion;       /* regions numbered by scan_block */
  int cur;           /* and counted again, in the same order, by emit_block */
  int flat_k, flat_i; /* inside a flat lane loop (emit_flat_lanes): its k and i locals; else -1 */
  int64_t split;     /* inside a flat loop split by C (k / C and k % C in it): C; else 0 */
  int training;      /* inside an unswitched flat lane loop: the training flag's value (0, 1); else -1 */
  struct PfRow *pf;  /* per shared array, PF_MAX rows (buf NULL-padded) gathered through it: prefetched */
  struct PfRow *pfe[2]; /* an edge-balanced kernel's rows read at src[row] (0), dst[row] (1): PF_MAX each */
  const KExpr **stage; /* per shared array: the value its one store in a walk stages (see pf_walk); else NULL */
  int walk_ptr;        /* a vertex-mapped walk's offsets (KG_IN_PTR, KG_OUT_PTR) for the prefetch ahead; else -1 */
  bool staged;         /* inside the scalar loop over a chunk's staged edges (emit_for) */
  bool *terms;         /* per local: a sum whose terms go to gnn_terms_<name>[gnn_q] (emit_edge_lanes); else NULL */
  int el_t, el_k;      /* inside such a loop: the edge loop's t and the lane loop's k, */
  int64_t el_h;        /* and the lane count H (t * H + k prints as gnn_q); else 0 */
} HostK;

/* At most this many buffers are prefetched per staged id, this many bytes of each row; an
 * edge-balanced kernel asks for the rows of the edge this many rows ahead. */
enum { PF_MAX = 4, PF_ROW_BYTES = 512, PF_EDGE_AHEAD = 16 };

/* A buffer's row read through an id (see pf_scan): the elements [lo, hi] of the row that the
 * kernel's loads can reach, and whether the id is also read after its chunk's barrier (a
 * uniform `u = sh_u[t]`: the rows are asked for at the staging store) or only by the staging
 * region itself (`su = sh_u[lane]`, read a few instructions after the store: only the rows
 * ahead are worth asking for). */
typedef struct PfRow {
  const KBuf *buf;
  int64_t lo, hi;
  bool at_store;
} PfRow;

static bool stmt_uniform(const HostK *h, const KStmt *s) {
  switch (s->kind) {
  case KS_LET: return h->k->locals[s->var].uniform;
  case KS_FOR: return h->k->locals[s->var].uniform;
  case KS_IF: return s->count == 1;
  case KS_BARRIER: case KS_GROUP_REDUCE: return true;
  default: return false;
  }
}

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

/* ---------------------------------------------------------------- printing */

static void ind(FILE *out, int d) {
  for (int i = 0; i < d; i++) fputs("  ", out);
}

/* kexpr_print's host dialect promotes every per-lane local; we promote only some, so every
 * expression that may contain a local is printed here, and only leaves are delegated. */
static void expr(FILE *out, const HostK *h, const KExpr *e);

static void var(FILE *out, const HostK *h, int v, const KExpr *idx) {
  const KLocal *l = &h->k->locals[v];
  if (h->el_h && h->promote[v] && idx && idx->kind == KE_VAR && idx->var == h->flat_i && !idx->a) { /* see emit_edge_lanes */
    fprintf(out, "gnn_rep_%s[gnn_j]", l->name);
    return;
  }
  fputs(l->name, out);
  if (h->promote[v] && idx) { /* element idx of every lane, lane-minor: acc[idx * G + lane] */
    if (h->flat_i >= 0 && idx->kind == KE_VAR && idx->var == h->flat_i && !idx->a) {
      fprintf(out, "[%s]", h->k->locals[h->flat_k].name); /* k = lane + i * G: contiguous in a flat loop */
      return;
    }
    fputs("[(", out);
    expr(out, h, idx);
    fprintf(out, ") * %d + lane]", h->k->group);
    return;
  }
  if (h->promote[v]) fputs("[lane]", out);
  if (idx) {
    fputc('[', out);
    expr(out, h, idx);
    fputc(']', out);
  }
}

static void sub(FILE *out, const HostK *h, const KExpr *e) {
  bool paren = e->kind == KE_BIN && e->op != KO_MIN && e->op != KO_MAX;
  paren |= e->kind == KE_SELECT;
  if (paren) fputc('(', out);
  expr(out, h, e);
  if (paren) fputc(')', out);
}

/* A condition on values (float comparisons, and their and/or/not), not on indices: a select
 * under it chooses between two values that are both safe to compute. A select under an index
 * condition may guard a load (concat's and pad's `c < la ? a[..] : b[c - la]`), and one under
 * the training flag is unswitched by the C compiler (computing both arms would run dropout's
 * RNG in inference). */
static bool value_cond(const KExpr *c) {
  if (c->kind == KE_KEEP) return true;
  if (c->kind == KE_UN && c->op == KU_NOT) return value_cond(c->a);
  if (c->kind != KE_BIN) return false;
  if (c->op == KO_AND || c->op == KO_OR) return value_cond(c->a) && value_cond(c->b);
  bool cmp = c->op == KO_LT || c->op == KO_LE || c->op == KO_GT || c->op == KO_GE || c->op == KO_EQ || c->op == KO_NE;
  return cmp && (c->a->type == KT_F32 || c->a->type == KT_F64) && (c->b->type == KT_F32 || c->b->type == KT_F64);
}

/* No integer division or remainder by a non-constant: nothing that traps when computed. */
static bool no_trap(const KExpr *e) {
  if (!e) return true;
  if (e->kind == KE_BIN && (e->op == KO_DIV || e->op == KO_MOD) && e->type != KT_F32 && e->type != KT_F64 &&
      e->b->kind != KE_ICONST)
    return false;
  return no_trap(e->a) && no_trap(e->b) && no_trap(e->c);
}

/* A float select printed as gnn_sel_f32/f64 (bits under a mask) rather than `?:`: the generated
 * source carries a pragma that turns GCC's if-conversion off (a miscompile, see host_prelude),
 * so a `?:` in a lane loop is control flow that stops the loop from vectorising -- an ELU over
 * PubMed's 19,717 x 64 took 11.0 ms as `?:` with libm's expm1f, 1.1 ms as a mask with
 * gnn_expm1f. */
static bool bitwise_select(const KExpr *e) {
  return (e->type == KT_F32 || e->type == KT_F64) && value_cond(e->a) && no_trap(e->b) && no_trap(e->c);
}

/* k / C or k % C of the flat loop's k, C the split: see emit_flat_loop. */
static bool is_split(const HostK *h, const KExpr *e) {
  return e->kind == KE_BIN && e->a->kind == KE_VAR && e->a->var == h->flat_k && !e->a->a && e->b->kind == KE_ICONST &&
         e->b->i == h->split;
}

static bool edge_lane_index(const KExpr *x, int t, int k, int64_t nh);

static void expr(FILE *out, const HostK *h, const KExpr *e) {
  static const char *bin[] = {"+", "-", "*", "/", "%", "", "", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  if (h->el_h && edge_lane_index(e, h->el_t, h->el_k, h->el_h)) { /* q itself: a contiguous access GCC can see */
    fputs("gnn_q", out);
    return;
  }
  switch (e->kind) {
  case KE_VAR:
    var(out, h, e->var, e->a);
    return;
  case KE_BIN:
    if (h->split && (e->op == KO_DIV || e->op == KO_MOD) && is_split(h, e)) { /* the split loop's counters */
      fprintf(out, "%s_%s", h->k->locals[h->flat_k].name, e->op == KO_DIV ? "hi" : "lo");
      return;
    }
    if (e->op == KO_MIN || e->op == KO_MAX) {
      fprintf(out, "%s(", e->type == KT_F32 ? (e->op == KO_MIN ? "fminf" : "fmaxf") : e->type == KT_F64 ? (e->op == KO_MIN ? "fmin" : "fmax") : (e->op == KO_MIN ? "gnn_min_i64" : "gnn_max_i64"));
      expr(out, h, e->a);
      fputs(", ", out);
      expr(out, h, e->b);
      fputc(')', out);
      return;
    }
    sub(out, h, e->a);
    fprintf(out, " %s ", bin[e->op]);
    sub(out, h, e->b);
    return;
  case KE_SELECT:
    if (e->a->kind == KE_TRAINING && h->training >= 0) { /* unswitched: the flag is known */
      sub(out, h, h->training ? e->b : e->c);
      return;
    }
    /* keep(...) ? x : 0, dropout's select, without a branch: the keep bit is a coin flip that
     * a branch mispredicts half the time (4.4x the time of Cora's input dropout at -O2) */
    if (e->a->kind == KE_KEEP && e->c->kind == KE_FCONST && e->c->f == 0 && !signbit(e->c->f) &&
        (e->type == KT_F32 || e->type == KT_F64)) {
      fprintf(out, "gnn_keep_%s(", e->type == KT_F32 ? "f32" : "f64");
      expr(out, h, e->a);
      fputs(", ", out);
      expr(out, h, e->b);
      fputc(')', out);
      return;
    }
    if (bitwise_select(e)) { /* both arms computed, one kept by a mask: no branch for GCC to if-convert */
      fprintf(out, "gnn_sel_%s(", e->type == KT_F32 ? "f32" : "f64");
      expr(out, h, e->a);
      fputs(", ", out);
      expr(out, h, e->b);
      fputs(", ", out);
      expr(out, h, e->c);
      fputc(')', out);
      return;
    }
    sub(out, h, e->a);
    fputs(" ? ", out);
    sub(out, h, e->b);
    fputs(" : ", out);
    sub(out, h, e->c);
    return;
  default:
    break;
  }
  /* The forms whose children may hold locals are printed here too; leaves are delegated. */
  switch (e->kind) {
  case KE_UN: {
    /* exp, expm1 and tanh are the prelude's branch-free ones, which vectorise (libm's are calls) */
    static const char *c[] = {"-", "gnn_expf", "gnn_expm1f", "logf", "gnn_tanhf", "sqrtf", "gnn_rsqrtf", "fabsf", "!", "(float)", "(int64_t)", "(double)"};
    if (e->op == KU_NEG || e->op == KU_NOT || e->op == KU_TO_F32 || e->op == KU_TO_I64 || e->op == KU_TO_F64) {
      fputs(c[e->op], out);
      sub(out, h, e->a);
    } else {
      fprintf(out, "%s(", c[e->op]);
      expr(out, h, e->a);
      fputc(')', out);
    }
    return;
  }
  case KE_LOAD:
    fprintf(out, "%s[", e->buf->name);
    if (e->a) {
      sub(out, h, e->a);
      fprintf(out, " * %lld", (long long)e->buf->width);
      if (!(e->b->kind == KE_ICONST && e->b->i == 0)) {
        fputs(" + ", out);
        sub(out, h, e->b);
      }
    } else {
      expr(out, h, e->b);
    }
    fputc(']', out);
    return;
  case KE_GRAPH: case KE_SHARED: {
    fprintf(out, "%s[", e->kind == KE_GRAPH ? kgraph_name[e->garr] : h->k->shared[e->var].name);
    expr(out, h, e->a);
    fputc(']', out);
    return;
  }
  case KE_TRAINING:
    fputs(h->training < 0 ? "training" : h->training ? "1" : "0", out);
    return;
  case KE_KEEP:
    fprintf(out, "gnn_dropout_keep(seed, %lldu, (uint64_t)(", (long long)e->i);
    expr(out, h, e->a);
    fputs("), ", out);
    kexpr_print(out, h->k, &(KExpr){.kind = KE_FCONST, .type = KT_F32, .f = (float)e->f}, DIALECT_HOST);
    fputc(')', out);
    return;
  default:
    kexpr_print(out, h->k, e, DIALECT_HOST);
  }
}

static const char *ctype(KType t) { return ktype_c(t); }

static void emit_block(FILE *out, HostK *h, const PtrVec *b, int d, bool in_lanes);

/* Whether b holds per-lane statements (a lane region) at any depth of uniform loops and ifs. */
static bool has_lanes(const HostK *h, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (!stmt_uniform(h, s) || has_lanes(h, &s->body)) return true;
  }
  return false;
}

static bool reads_var(const KExpr *e, int var);

/* A lane's float64 sum over a row's elements, `for (j = 0; j < N; j++) sum = sum + E(j)` (the
 * dot products of the attention backward, `sum += (double)x[u * 72 + k * 16 + j] * (double)g[..]`):
 * one dependent add after another, 3-4 cycles each, where the products could be added in a
 * vector. Returns the addend E when s is such a loop (N a power of two from 4 to 256, step 1, the
 * one statement a float64 local's own update, E not reading that local); else NULL. */
static const KExpr *pairwise_sum_addend(const HostK *h, const KStmt *s) {
  if (s->count != 1 || s->lo->kind != KE_ICONST || s->lo->i != 0 || s->hi->kind != KE_ICONST) return NULL;
  int64_t n = s->hi->i;
  if (n < 4 || n > 256 || (n & (n - 1)) || s->body.len != 1) return NULL;
  const KStmt *t = s->body.items[0];
  if (t->kind != KS_LET || t->idx || h->k->locals[t->var].type != KT_F64) return NULL;
  const KExpr *v = t->val;
  if (v->kind != KE_BIN || v->op != KO_ADD || v->a->kind != KE_VAR || v->a->var != t->var || v->a->a) return NULL;
  return reads_var(v->b, t->var) ? NULL : v->b;
}

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
  fprintf(out, "double pairs[%lld];\n", cnt);
  fputs("#pragma omp simd\n", out);
  ind(out, d + 1);
  fprintf(out, "for (int64_t %s = 0; %s < %lld; %s++) pairs[%s] = ", n, n, cnt, n, n);
  expr(out, h, addend);
  fputs(";\n", out);
  ind(out, d + 1);
  fprintf(out, "for (int64_t w = %lld; w > 0; w >>= 1) {\n", cnt / 2);
  fputs("#pragma omp simd\n", out);
  ind(out, d + 2);
  fputs("for (int64_t p = 0; p < w; p++) pairs[p] = pairs[p] + pairs[p + w];\n", out);
  ind(out, d + 1);
  fputs("}\n", out);
  ind(out, d + 1);
  var(out, h, t->var, NULL);
  fputs(" = ", out);
  var(out, h, t->var, NULL);
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
  expr(out, h, s->lo);
  fprintf(out, "; %s < ", n);
  expr(out, h, s->hi);
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

static void pf_ahead(FILE *out, HostK *h, const KStmt *s, int d);
static void pf_row_end(FILE *out, const PfRow *r);

static void emit_lane_stmt(FILE *out, HostK *h, const KStmt *s, int d) {
  const Kernel *k = h->k;
  switch (s->kind) {
  case KS_LET:
    if (!h->used[s->var]) return;
    ind(out, d);
    if (h->terms && h->terms[s->var]) { /* sum = sum + x: x alone, added in order after the loop */
      fprintf(out, "gnn_terms_%s[gnn_q] = ", k->locals[s->var].name);
      expr(out, h, s->val->b);
      fputs(";\n", out);
      return;
    }
    var(out, h, s->var, s->idx);
    fputs(" = ", out);
    expr(out, h, s->val);
    fputs(";\n", out);
    return;
  case KS_STORE: case KS_ATOMIC: {
    ind(out, d);
    if (s->kind == KS_ATOMIC && s->count == 1) { /* block-reduced: this thread's private sums */
      fprintf(out, "blk_%s[", s->buf->name);
      expr(out, h, s->idx);
      fputs("] += ", out);
      expr(out, h, s->val);
      fputs(";\n", out);
      return;
    }
    if (s->kind == KS_ATOMIC)
      fprintf(out, "gnn_atomic_%s_%s(&", s->op == KO_ADD ? "add" : s->op == KO_MAX ? "max" : "min", s->buf->elem == ELEM_F64 ? "f64" : "f32");
    fprintf(out, "%s[", s->buf->name);
    if (s->row) {
      sub(out, h, s->row);
      fprintf(out, " * %lld + ", (long long)s->buf->width);
      sub(out, h, s->idx);
    } else {
      expr(out, h, s->idx);
    }
    fputs(s->kind == KS_ATOMIC ? "], " : "] = ", out);
    if (s->buf->elem == ELEM_I32 && s->kind == KS_STORE) fputs("(int32_t)", out);
    if (s->buf->elem == ELEM_I32 && s->kind == KS_STORE) sub(out, h, s->val);
    else expr(out, h, s->val);
    fputs(s->kind == KS_ATOMIC ? ");\n" : ";\n", out);
    return;
  }
  case KS_SHSTORE:
    ind(out, d);
    fprintf(out, "%s[", k->shared[s->var].name);
    expr(out, h, s->idx);
    fputs("] = ", out);
    expr(out, h, s->val);
    fputs(";\n", out);
    /* a staged id read from a graph array (a source, an edge id of the CSC order), not the edge
     * counter itself (consecutive edges: the hardware's prefetcher sees those): its rows */
    for (int i = 0; s->val->kind == KE_GRAPH && i < PF_MAX && h->pf[s->var * PF_MAX + i].buf; i++) {
      const PfRow *r = &h->pf[s->var * PF_MAX + i];
      if (!r->at_store) continue;
      ind(out, d);
      fprintf(out, "gnn_prefetch_row(&%s[%s[", r->buf->name, k->shared[s->var].name);
      expr(out, h, s->idx);
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
    fprintf(out, "const int64_t %s = lane + (int64_t)%s * %d;\n", k->locals[s->var].name, k->locals[s->var2].name, k->group);
    ind(out, d + 1);
    fprintf(out, "if (%s < %lld) {\n", k->locals[s->var].name, (long long)s->count);
    emit_block(out, h, &s->body, d + 2, true);
    ind(out, d + 1);
    fputs("}\n", out);
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  case KS_IF:
    if (s->lo->kind == KE_TRAINING && h->training >= 0) { /* unswitched: the flag is known */
      if (h->training) emit_block(out, h, &s->body, d, true);
      return;
    }
    ind(out, d);
    fputs("if (", out);
    expr(out, h, s->lo);
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
static bool region_local(const HostK *h, int v, int region);

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
    var(out, h, s->var, s->idx);
    fputs(" = ", out);
    expr(out, h, s->val);
    fputs(";\n", out);
    return;
  case KS_FOR:
    emit_for(out, h, s, d, false);
    return;
  case KS_IF: /* a uniform condition: the lane loops go inside */
    ind(out, d);
    fputs("if (", out);
    expr(out, h, s->lo);
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
    const char *n = k->locals[s->var].name;
    ind(out, d);
    fprintf(out, "for (int off = %d; off > 0; off >>= 1) { /* group_%s: the shuffle butterfly over the lanes */\n", k->group / 2,
            s->op == KO_ADD ? "sum" : s->op == KO_MAX ? "max" : "min");
    ind(out, d + 1);
    fprintf(out, "float nxt[%d];\n", k->group);
    ind(out, d + 1);
    fprintf(out, "for (int lane = 0; lane < %d; lane++) {\n", k->group);
    ind(out, d + 2);
    if (s->op == KO_ADD) fprintf(out, "nxt[lane] = %s[lane] + %s[lane ^ off];\n", n, n);
    else fprintf(out, "nxt[lane] = %s[lane ^ off] %s %s[lane] ? %s[lane ^ off] : %s[lane];\n", n, s->op == KO_MAX ? ">" : "<", n, n, n);
    ind(out, d + 1);
    fputs("}\n", out);
    ind(out, d + 1);
    fprintf(out, "for (int lane = 0; lane < %d; lane++) %s[lane] = nxt[lane];\n", k->group, n);
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  default:
    return;
  }
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
static bool region_local(const HostK *h, int v, int region) {
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
static bool *flat_region(const HostK *h, const PtrVec *b, int i, int end, int region) {
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

static bool expr_has_training(const KExpr *e) {
  return e && (e->kind == KE_TRAINING || expr_has_training(e->a) || expr_has_training(e->b) || expr_has_training(e->c));
}
static bool stmt_has_training(const KStmt *s) {
  if (expr_has_training(s->row) || expr_has_training(s->idx) || expr_has_training(s->val) ||
      expr_has_training(s->lo) || expr_has_training(s->hi))
    return true;
  for (int i = 0; i < s->body.len; i++)
    if (stmt_has_training(s->body.items[i])) return true;
  return false;
}

static void emit_flat_loop(FILE *out, HostK *h, const KStmt *s, int region, int d, const bool *only);

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
static int64_t split_stmts(const PtrVec *b, int kvar, int64_t n) {
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

static bool reads_var(const KExpr *e, int var) {
  return e && ((e->kind == KE_VAR && e->var == var) || reads_var(e->a, var) || reads_var(e->b, var) || reads_var(e->c, var));
}

static bool reads_shared_array(const KExpr *e, int sh) {
  return e && ((e->kind == KE_SHARED && e->var == sh) || reads_shared_array(e->a, sh) || reads_shared_array(e->b, sh) ||
               reads_shared_array(e->c, sh));
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

static bool simd_ok(const HostK *h, const KStmt *s, int region) {
  const PtrVec *b = &s->body;
  bool *written = calloc((size_t)h->k->nlocals + 1, 1), ok = true;
  for (int i = 0; i < b->len && ok; i++) {
    const KStmt *t = b->items[i];
    if (t->kind == KS_SHSTORE) {
      ok = simd_shstore_ok(s, t);
      continue;
    }
    if (t->kind != KS_LET) ok = false;
    else if (h->promote[t->var]) ok = t->idx && t->idx->kind == KE_VAR && t->idx->var == s->var2 && !t->idx->a;
    else ok = region_local(h, t->var, region);
    if (ok) written[t->var] = true;
  }
  for (int i = 0; i < b->len && ok; i++) {
    const KStmt *t = b->items[i];
    ok = simd_expr_ok(h, t->idx, written) && simd_expr_ok(h, t->val, written);
  }
  free(written);
  return ok;
}

/* A flat loop whose body reads k / C (a head's value for each of its C elements: GAT's attention
 * weight sh_w[k / 16] times the row's element k) prints as two loops, over k / C and k % C, the
 * same order of k: in the inner loop k / C is a constant, which GCC broadcasts, where over one
 * loop of k it gathered each element by its computed index (GAT's forward walk on the 200k
 * power-law graph: vgatherqps its hottest instructions). */
static void emit_flat_loop(FILE *out, HostK *h, const KStmt *s, int region, int d, const bool *only) {
  const Kernel *k = h->k;
  const char *kv = k->locals[s->var].name, *iv = k->locals[s->var2].name;
  int64_t c = split_stmts(&s->body, s->var, s->count);
  int save_k = h->flat_k, save_i = h->flat_i; /* simd_ok reads the flat loop's i */
  h->flat_k = s->var, h->flat_i = s->var2;
  bool simd = h->staged && simd_ok(h, s, region);
  h->flat_k = save_k, h->flat_i = save_i;
  if (simd && !c) fputs("#pragma omp simd /* see simd_ok */\n", out);
  ind(out, d);
  if (c) {
    fprintf(out, "for (int64_t %s_hi = 0; %s_hi < %lld; %s_hi++) { /* k / %lld: see emit_flat_loop */\n", kv, kv,
            (long long)(s->count / c), kv, (long long)c);
    if (simd) fputs("#pragma omp simd /* see simd_ok */\n", out);
    ind(out, ++d);
    fprintf(out, "for (int64_t %s_lo = 0; %s_lo < %lld; %s_lo++) { /* the lanes in order of k: see emit_host.c */\n", kv, kv,
            (long long)c, kv);
    ind(out, d + 1);
    fprintf(out, "const int64_t %s = %s_hi * %lld + %s_lo;\n", kv, kv, (long long)c, kv);
  } else {
    fprintf(out, "for (int64_t %s = 0; %s < %lld; %s++) { /* the lanes in order of k: see emit_host.c */\n", kv, kv,
            (long long)s->count, kv);
  }
  ind(out, d + 1);
  fprintf(out, "const int lane = (int)(%s %% %d), %s = (int)(%s / %d);\n", kv, k->group, iv, kv, k->group);
  ind(out, d + 1);
  fprintf(out, "(void)lane;\n");
  ind(out, d + 1);
  fprintf(out, "(void)%s;\n", iv);
  region_decls(out, h, region, d + 1, only);
  h->flat_k = s->var, h->flat_i = s->var2, h->split = c;
  emit_block(out, h, &s->body, d + 1, true);
  h->flat_k = h->flat_i = -1, h->split = 0;
  ind(out, d);
  fputs("}\n", out);
  if (c) {
    ind(out, d - 1);
    fputs("}\n", out);
  }
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
 * The shared stores' array has a slot for each q, so it bounds the terms' arrays. */

/* The element index t * H + k (or t + k where H = 1) of the edge loop's t and the lane loop's k. */
static bool edge_lane_index(const KExpr *x, int t, int k, int64_t nh) {
  if (!x || x->kind != KE_BIN || x->op != KO_ADD) return false;
  const KExpr *a = x->a, *b = x->b;
  if (!(b->kind == KE_VAR && b->var == k && !b->a)) return false;
  if (nh == 1 && a->kind == KE_VAR && a->var == t && !a->a) return true;
  return a->kind == KE_BIN && a->op == KO_MUL && a->a->kind == KE_VAR && a->a->var == t && !a->a->a && a->b->kind == KE_ICONST &&
         a->b->i == nh;
}

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
static int count_lets(const PtrVec *b, int var) {
  int n = 0;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    n += (s->kind == KS_LET && s->var == var) + count_lets(&s->body, var);
  }
  return n;
}

/* The lane loop of edge loop s when the two can be one loop (above), the sums' locals flagged
 * in terms and the bound of q in *slots; else NULL. */
static const KStmt *edge_lanes_of(HostK *h, const KStmt *s, int region, bool *terms, int *slots) {
  const Kernel *k = h->k;
  if (s->kind != KS_FOR || s->count != 1 || s->lo->kind != KE_ICONST || s->lo->i != 0 || !s->body.len) return NULL;
  const KStmt *l = s->body.items[s->body.len - 1];
  if (l->kind != KS_FOR_LANES || l->count >= 16 || (l->count & (l->count - 1)) || l->count > k->group) return NULL;
  for (int i = 0; i + 1 < s->body.len; i++) { /* uniform LETs, written and read only in this loop */
    const KStmt *u = s->body.items[i];
    if (u->kind != KS_LET || u->idx || !k->locals[u->var].uniform || k->locals[u->var].len ||
        count_lets(&k->body, u->var) != 1 || count_reads_stmts(&k->body, u->var) != count_reads_stmts(&s->body, u->var))
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
  for (int i = 0; i < l->body.len; i++) {
    const KStmt *t = l->body.items[i];
    if (t->kind == KS_SHSTORE) {
      if (!edge_lane_index(t->idx, s->var, l->var, l->count)) return NULL;
      if (!*slots || k->shared[t->var].len < *slots) *slots = k->shared[t->var].len;
      continue;
    }
    if (!h->promote[t->var]) continue; /* a local of this lane loop alone */
    const KExpr *v = t->val;
    if (v->kind != KE_BIN || v->op != KO_ADD || v->a->kind != KE_VAR || v->a->var != t->var || !v->a->a ||
        v->a->a->kind != KE_VAR || v->a->a->var != l->var2 || v->a->a->a || reads_var(v->b, t->var) ||
        count_reads_stmts(&l->body, t->var) != 1 || count_lets(&l->body, t->var) != 1)
      return NULL;
    terms[t->var] = true;
  }
  return *slots ? l : NULL;
}

/* Whether e reads promoted local v at element k alone (P[k], the lane's own: in the loop, the
 * copy gnn_rep_P[gnn_j]). */
static bool reads_promoted(const HostK *h, const KExpr *e, int v) {
  return e && ((e->kind == KE_VAR && e->var == v && h->promote[v]) || reads_promoted(h, e->a, v) || reads_promoted(h, e->b, v) ||
               reads_promoted(h, e->c, v));
}

static void edge_lanes_loop(FILE *out, HostK *h, const KStmt *s, const KStmt *l, int region, int d, const bool *only) {
  const Kernel *k = h->k;
  const char *tv = k->locals[s->var].name, *kv = k->locals[l->var].name, *iv = k->locals[l->var2].name;
  long long nh = (long long)l->count;
  ind(out, d);
  fputs("for (int64_t gnn_b = 0; gnn_b < (", out);
  expr(out, h, s->hi);
  fprintf(out, ") * %lld; gnn_b += 16) { /* 16 (edge, lane) pairs at a time: see emit_edge_lanes */\n", nh);
  ind(out, d + 1);
  fputs("const int64_t gnn_nb = gnn_min_i64((", out);
  expr(out, h, s->hi);
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
  ind(out, d + 2);
  fprintf(out, "const int lane = (int)(%s %% %d), %s = (int)(%s / %d);\n", kv, k->group, iv, kv, k->group);
  ind(out, d + 2);
  fprintf(out, "(void)gnn_q;\n");
  ind(out, d + 2);
  fprintf(out, "(void)lane;\n");
  ind(out, d + 2);
  fprintf(out, "(void)%s;\n", iv);
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
      fprintf(out, "%s gnn_terms_%s[%d];\n", ctype(k->locals[v].type), k->locals[v].name, slots);
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
    expr(out, h, s->hi);
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

/* ---------------------------------------------------------------- prefetch of the staged rows
 *
 * A walk over a row's edges stages a chunk of them in shared arrays (sh_e[lane] = the edge,
 * sh_u[lane] = its other end), then takes them one at a time, the lanes reading the other end's
 * row (`u = sh_u[t]`, then `t8[u, k]`). On a graph larger than the caches each such row is a
 * random read of memory, and the walk waits for one after the other. The staging region holds
 * the chunk's ids before the walk reads them, so each lane there asks for the rows its id will
 * be read through (__builtin_prefetch: a hint that never faults): a chunk of rows in flight
 * instead of one. Found per kernel: a uniform local set only from one shared integer array, and
 * the buffers loaded with that local as their row. An edge-balanced kernel (a group per edge,
 * `u = src[row]`, then `t4[u, k]`) has no staging: each row asks for the rows of the edge
 * PF_EDGE_AHEAD rows ahead (the OpenMP schedule is static: the same thread's next edges). */

/* A walk's chunk holds only the row's edges, and most rows of a power-law graph have a few: the
 * prefetch of the staged rows (above) has the chunk's rows in flight, two or three where the
 * median in-degree is 2, and each walk then waits for them. A vertex-mapped walk's edges are
 * consecutive across its rows (rows in order, each row's edges [ptr[row], ptr[row + 1])), so
 * each staged id also asks for the rows of the edge PF_WALK_AHEAD positions further on, most
 * often one of the next rows' -- the rows the walk reads a little later, in flight across row
 * boundaries. The staged id is G[sh_e[lane]] (G: src or dst) where sh_e[lane] was the edge
 * counter jj (CSR) or out_eid[jj] (CSC); ahead, G[jj + A] or G[out_eid[jj + A]] (whose
 * dst[...] entry is itself a random read: asked for 2 * A ahead). Bounded by ptr[nrows], the
 * edge count (unsigned: never a read outside the arrays); a chunk's last rows ask for the next
 * chunk's edges, which another thread may walk: a wasted hint. GCN's aggregations on the R-MAT
 * graph of issue 28, 1 thread: docs/benchmarks.md. */
enum { PF_WALK_AHEAD = 16 };
#define PF_STAGE_MANY ((const KExpr *)&pf_stage_many)
static const KExpr pf_stage_many; /* a shared array stored more than once, or not an id: no prefetch ahead */
/* The staged value ahead must index an array of ne entries: an int64 local (read as jj + A < ne)
 * or out_eid[jj] (an edge id), never src[...] or dst[...] (a vertex id: dst[vertex] could pass
 * the end of dst where nv > ne). */

static bool pf_edge_array(KGraphArray g) { return g == KG_SRC || g == KG_DST || g == KG_OUT_EID || g == KG_OUT_DST; }

static void pf_walk(HostK *h, const PtrVec *b, bool in_walk) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_SHSTORE) {
      const KExpr *v = s->val, **st = &h->stage[s->var];
      bool ok = in_walk && !*st && ((v->kind == KE_VAR && !v->a && v->type == KT_I64) ||
                                    (v->kind == KE_GRAPH && v->garr == KG_OUT_EID && v->a->kind == KE_VAR && !v->a->a));
      *st = ok ? v : PF_STAGE_MANY;
    }
    pf_walk(h, &s->body, in_walk || (s->kind == KS_FOR && s->walk));
  }
}

/* The prefetch ahead of a staged id's store s (see pf_walk), when it is one. */
static void pf_ahead(FILE *out, HostK *h, const KStmt *s, int d) {
  const KExpr *v = s->val, *e = NULL;
  if (h->walk_ptr < 0 || !h->pf[s->var * PF_MAX].buf || v->kind != KE_GRAPH || !pf_edge_array(v->garr)) return;
  if (v->a->kind == KE_VAR && !v->a->a && v->a->type == KT_I64) e = v->a; /* out_dst[jj]: the counter itself */
  else if (v->a->kind == KE_SHARED) e = h->stage[v->a->var];
  if (!e || e == PF_STAGE_MANY) return;
  const KExpr *j = e->kind == KE_VAR ? e : e->a; /* the edge counter */
  if (e->kind == KE_GRAPH) { /* out_eid[jj + 2A]'s entry of dst, asked for before it is read */
    ind(out, d);
    fputs("if ((uint64_t)(", out);
    expr(out, h, j);
    fprintf(out, " + %d) < (uint64_t)gnn_pf_ne) __builtin_prefetch(&%s[%s[", 2 * PF_WALK_AHEAD, kgraph_name[v->garr], kgraph_name[e->garr]);
    expr(out, h, j);
    fprintf(out, " + %d]]);\n", 2 * PF_WALK_AHEAD);
  }
  ind(out, d);
  fputs("if ((uint64_t)(", out);
  expr(out, h, j);
  fprintf(out, " + %d) < (uint64_t)gnn_pf_ne) {\n", PF_WALK_AHEAD);
  ind(out, d + 1);
  fprintf(out, "const int64_t gnn_pf_u = %s[", kgraph_name[v->garr]);
  if (e->kind == KE_GRAPH) fprintf(out, "%s[", kgraph_name[e->garr]);
  expr(out, h, j);
  fprintf(out, " + %d]%s;\n", PF_WALK_AHEAD, e->kind == KE_GRAPH ? "]" : "");
  for (int i = 0; i < PF_MAX && h->pf[s->var * PF_MAX + i].buf; i++) {
    ind(out, d + 1);
    fprintf(out, "gnn_prefetch_row(&%s[gnn_pf_u", h->pf[s->var * PF_MAX + i].buf->name);
    pf_row_end(out, &h->pf[s->var * PF_MAX + i]);
  }
  ind(out, d);
  fputs("}\n", out);
}

static void pf_lets(const HostK *h, const PtrVec *b, int *from, bool *late) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    /* u = sh_u[t] in the loop over the chunk's edges (uniform), or su = sh_u[lane] where the
     * staging region itself reads at the far end (a walk over out-edges: the attention
     * statistics and the edge values of GAT's backward at out_eid[jj], each a random read) */
    const KExpr *sv = s->val;
    bool staged_lane = s->kind == KS_LET && sv->kind == KE_SHARED && sv->a && sv->a->kind == KE_LANE;
    if (s->kind == KS_LET && (h->k->locals[s->var].uniform || staged_lane)) {
      const KExpr *v = s->val;
      int src = v->kind == KE_SHARED && !s->idx && h->k->shared[v->var].type == KT_I64 ? v->var : -2;
      if (v->kind == KE_GRAPH && (v->garr == KG_SRC || v->garr == KG_DST) && v->a->kind == KE_ROW && h->k->rows == DOM_EDGE)
        src = -3 - (v->garr == KG_DST); /* an edge-balanced kernel's src[row] (-3) or dst[row] (-4) */
      from[s->var] = from[s->var] == -1 || from[s->var] == src ? src : -2; /* -2: set from elsewhere too */
      late[s->var] |= !staged_lane;
    }
    pf_lets(h, &s->body, from, late);
  }
}

/* The elements of a row an element index can reach, [*lo, *hi] (constants, loop variables in
 * [0, ub), their sums and their products with a constant >= 0: k * 16 + j), or false: anywhere
 * in the row. */
static bool pf_cols(const KExpr *e, int64_t *lo, int64_t *hi) {
  int64_t al, ah, bl, bh;
  switch (e->kind) {
  case KE_ICONST: *lo = *hi = e->i; return true;
  case KE_VAR: if (e->a || e->i <= 0) return false; *lo = 0, *hi = e->i - 1; return true;
  case KE_BIN:
    if ((e->op != KO_ADD && e->op != KO_MUL) || !pf_cols(e->a, &al, &ah) || !pf_cols(e->b, &bl, &bh)) return false;
    if (e->op == KO_ADD) {
      *lo = al + bl, *hi = ah + bh;
      return true;
    }
    if (al < 0 || bl < 0) return false; /* products of ranges >= 0: the ends' products */
    *lo = al * bl, *hi = ah * bh;
    return true;
  default: return false;
  }
}

static void pf_loads(HostK *h, const KExpr *e, const int *from, const bool *late) {
  if (!e) return;
  int f = e->kind == KE_LOAD && e->a && e->a->kind == KE_VAR && !e->a->a ? from[e->a->var] : -1;
  if (f >= 0 || f <= -3) {
    PfRow *l = f >= 0 ? &h->pf[f * PF_MAX] : h->pfe[-3 - f];
    int64_t lo, hi, w = e->buf->width;
    if (!e->b || !pf_cols(e->b, &lo, &hi) || lo < 0 || hi >= w) lo = 0, hi = w - 1;
    for (int i = 0; i < PF_MAX; i++) {
      if (!l[i].buf) l[i] = (PfRow){e->buf, lo, hi, false};
      if (l[i].buf != e->buf) continue;
      l[i].lo = lo < l[i].lo ? lo : l[i].lo, l[i].hi = hi > l[i].hi ? hi : l[i].hi;
      l[i].at_store |= late[e->a->var];
      break;
    }
  }
  pf_loads(h, e->a, from, late);
  pf_loads(h, e->b, from, late);
  pf_loads(h, e->c, from, late);
}

static void pf_stmts(HostK *h, const PtrVec *b, const int *from, const bool *late) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    pf_loads(h, s->row, from, late), pf_loads(h, s->idx, from, late), pf_loads(h, s->val, from, late);
    pf_loads(h, s->lo, from, late), pf_loads(h, s->hi, from, late);
    pf_stmts(h, &s->body, from, late);
  }
}

/* The end of a prefetch of a row's reachable elements, after `&buf[id`: ` * W + lo], bytes);`. */
static void pf_row_end(FILE *out, const PfRow *r) {
  int64_t bytes = (r->hi - r->lo + 1) * (r->buf->elem == ELEM_F64 ? 8 : 4);
  fprintf(out, " * %lld", (long long)r->buf->width);
  if (r->lo) fprintf(out, " + %lld", (long long)r->lo);
  fprintf(out, "], %lld);\n", (long long)(bytes < PF_ROW_BYTES ? bytes : PF_ROW_BYTES));
}

static void pf_scan(HostK *h) {
  int *from = malloc(((size_t)h->k->nlocals + 1) * sizeof(int));
  bool *late = calloc((size_t)h->k->nlocals + 1, 1);
  for (int i = 0; i <= h->k->nlocals; i++) from[i] = -1;
  pf_lets(h, &h->k->body, from, late);
  pf_stmts(h, &h->k->body, from, late);
  free(from);
  free(late);
  const Kernel *k = h->k;
  int ptr = k->dir == GATHER_BY_DST ? KG_IN_PTR : k->dir == GATHER_BY_SRC ? KG_OUT_PTR : -1;
  h->walk_ptr = k->map == MAP_VERTEX && k->rows == DOM_VERTEX && ptr >= 0 && k->graph[ptr] ? ptr : -1;
  if (h->walk_ptr >= 0) pf_walk(h, &k->body, false);
}

/* Which buffers the kernel writes (stores, atomics): the others are const. */
static bool writes_buf(const PtrVec *b, const KBuf *buf) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if ((s->kind == KS_STORE || s->kind == KS_ATOMIC) && s->buf == buf) return true;
    if (writes_buf(&s->body, buf)) return true;
  }
  return false;
}

static void params(FILE *out, const Kernel *k, const char *restrict_kw) {
  fputs("int64_t nrows", out);
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
             calloc((size_t)k->nshared + 1, sizeof(KExpr *)), -1, false, NULL, -1, -1, 0};
  scan_block(&h, &k->body, 0);
  pf_scan(&h);
  fprintf(out, "\n/* %s: %s, %d lanes per group. %s%s\n", k->name, kernel_mapping_desc(k), k->group, k->what, emit_kernel_comment_end(p, k));
  fprintf(out, "static void %s(", k->name);
  params(out, k, "restrict");
  fputs(") {\n", out);
  if (k->dropout) fputs("  (void)training;\n  (void)seed;  /* a kernel may use the flag alone (stores of stashes) */\n", out);
  if (h.walk_ptr >= 0) /* the edge count: the bound of the prefetch ahead (pf_walk) */
    fprintf(out, "  const int64_t gnn_pf_ne = nrows > 0 ? %s[nrows] : 0;\n  (void)gnn_pf_ne;\n", kgraph_name[h.walk_ptr]);
  const KBuf *blk[8];
  int nblk = block_targets(&k->body, blk, 8, 0);
  if (nblk) { /* block-reduced sums: each thread adds into its own, then one atomic per element */
    fputs("#pragma omp parallel\n  {\n", out);
    for (int i = 0; i < nblk; i++) fprintf(out, "  double blk_%s[%lld] = {0};\n", blk[i]->name, (long long)blk[i]->width);
    fprintf(out, "#pragma omp for schedule(%s)\n", k->map == MAP_VERTEX ? "dynamic, 64" : "static");
  } else {
    fprintf(out, "#pragma omp parallel for schedule(%s)\n", k->map == MAP_VERTEX ? "dynamic, 64" : "static");
  }
  fputs("  for (int64_t row = 0; row < nrows; row++) {\n", out);
  for (int side = 0; side < 2; side++) /* an edge's rows, a few edges ahead: see pf_scan */
    for (int i = 0; i < PF_MAX && h.pfe[side][i].buf; i++) {
      fprintf(out, "    if (row + %d < nrows) gnn_prefetch_row(&%s[(int64_t)%s[row + %d]", PF_EDGE_AHEAD, h.pfe[side][i].buf->name,
              kgraph_name[side ? KG_DST : KG_SRC], PF_EDGE_AHEAD);
      pf_row_end(out, &h.pfe[side][i]);
    }
  for (int i = 0; i < k->nshared; i++)
    fprintf(out, "    %s %s[%d] = {0};  /* shared by the group (zeroed: gcc cannot see that each read follows a write) */\n", ctype(k->shared[i].type), k->shared[i].name, k->shared[i].len);
  for (int i = 0; i < n; i++) {
    const KLocal *l = &k->locals[i];
    if (!h.used[i] || h.loopvar[i]) continue;
    if (l->uniform) {
      fprintf(out, "    %s %s", ctype(l->type), l->name);
      if (l->len) fprintf(out, "[%d]", l->len);
      fputs(";\n", out);
    } else if (h.promote[i]) {
      fprintf(out, "    %s %s[%d]", ctype(l->type), l->name, k->group * (l->len ? l->len : 1));
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
  fputs("\n/* Helpers a model may not use all of. */\n#define GNN_HELPER static inline __attribute__((unused))\n"
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
  fprintf(out, "  %s(%s", k->name, emit_kernel_rows(p, k));
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
