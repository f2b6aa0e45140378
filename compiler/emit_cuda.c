/* emit_cuda.c -- the CUDA backend: the kernel IR's kernels as real threads.
 *
 * A block is 256 threads: 256/G groups of G lanes (G <= 32, so a group never spans two warps),
 * or fewer groups where their shared arrays would not fit 48 KB (kernel_groups_per_block, kir.c).
 * A group's row is blockIdx.x * groups + threadIdx.x / G; its lane threadIdx.x % G. Every
 * statement of the kernel IR is executed by every lane: uniform loops are uniform because
 * their bounds are, per-lane loops start at the lane. A barrier of the group is __syncwarp on
 * the group's lane mask; a group reduction is a __shfl_xor_sync butterfly of width G; shared
 * arrays are per group, carved from one __shared__ array per block; atomics are atomicAdd or
 * a compare-and-swap loop for float max/min. Float +, - and * print as __fadd_rn, __fsub_rn,
 * __fmul_rn (kir.c, cuda_rounded_fn): never contracted into an FMA, whoever compiles the file,
 * so every kernel rounds a recomputed value as the one that first made it. Register arrays are indexed by fully unrolled
 * loops, so they stay in registers. A global kernel whose lanes share nothing runs grid-wide, a
 * thread per element (grid_elementwise). The host side launches every kernel and cuBLAS call on the
 * context's stream and checks each status (GNN_CUDA_CHECK, GNN_CUBLAS_CHECK).
 *
 * The kernels compile on their own with NVRTC (`__CUDACC_RTC__` hides the host code and the
 * headers NVRTC lacks), which is how the runtime can build them for the GPU in hand.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

static void ind(FILE *out, int d) {
  for (int i = 0; i < d; i++) fputs("  ", out);
}

static void ex(FILE *out, const Kernel *k, const KExpr *e) { kexpr_print(out, k, e, DIALECT_CUDA); }

static void scan_used(const Kernel *k, const PtrVec *b, bool *used, bool *loopvar);

static void scan_expr(const KExpr *e, bool *used) {
  if (!e) return;
  if (e->kind == KE_VAR) used[e->var] = true;
  scan_expr(e->a, used);
  scan_expr(e->b, used);
  scan_expr(e->c, used);
}

static void scan_used(const Kernel *k, const PtrVec *b, bool *used, bool *loopvar) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_FOR || s->kind == KS_FOR_LANES) loopvar[s->var] = true;
    if (s->kind == KS_FOR_LANES) loopvar[s->var2] = true;
    if (s->kind == KS_GROUP_REDUCE || s->kind == KS_TICKET) used[s->var] = true;
    scan_expr(s->row, used);
    scan_expr(s->idx, used);
    scan_expr(s->val, used);
    scan_expr(s->lo, used);
    scan_expr(s->hi, used);
    scan_used(k, &s->body, used, loopvar);
  }
}

static void stmts(FILE *out, const Kernel *k, const PtrVec *b, int d, const bool *used);

/* The longest lane loop unrolled whole when its body holds no per-lane register array (64: 2,048
 * columns at 32 lanes; every example's node-wise loops are shorter). */
enum { FULL_UNROLL_MAX = 64 };

static bool expr_reads_array(const Kernel *k, const KExpr *e) {
  if (!e) return false;
  if (e->kind == KE_VAR && k->locals[e->var].len) return true;
  return expr_reads_array(k, e->a) || expr_reads_array(k, e->b) || expr_reads_array(k, e->c);
}

/* True if a statement of b (or of its bodies) names a per-lane register array (a local of len > 0). */
static bool touches_register_array(const Kernel *k, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if ((s->kind == KS_LET || s->kind == KS_GROUP_REDUCE) && k->locals[s->var].len) return true;
    if (expr_reads_array(k, s->row) || expr_reads_array(k, s->idx) || expr_reads_array(k, s->val) ||
        expr_reads_array(k, s->lo) || expr_reads_array(k, s->hi) || touches_register_array(k, &s->body))
      return true;
  }
  return false;
}

/* ---------------------------------------------------------------- grid-wide element loops
 * A global kernel (one group: MAP_GLOBAL over DOM_GLOBAL) whose lane loops only map elements to
 * elements -- element k of what it stores computed from element k of what it wrote before and
 * from anything it never writes -- needs no group at all: its lanes share nothing. Such a kernel
 * (EdgeConv's parameter-sized apply_global: 45K elements, phi - theta per layer and the
 * gradients' sums) ran as one group of 32 lanes, 1,414 dependent-latency iterations on one warp,
 * twice per training step. It is emitted grid-wide instead: every thread of ceil(n / 256)
 * blocks takes the elements k = thread, thread + threads, ... of every lane loop. Element k of
 * every loop falls to the same thread, so a value stored by one loop and loaded by a later one
 * at the same element needs no barrier. The kernel IR is unchanged (the host serialises the
 * lanes either way); this is how the CUDA emitter runs it. */
static bool writes_buf(const PtrVec *b, const KBuf *buf);

typedef struct {
  const Kernel *k;
  int elem;      /* the enclosing lane loop's element variable */
  bool *local;   /* locals let inside the current lane loop */
} GridScan;

static bool grid_expr_ok(const GridScan *g, const KExpr *e) {
  if (!e) return true;
  switch (e->kind) {
  case KE_LANE:
  case KE_ROW: /* no row variable in a grid-wide kernel */
  case KE_SHARED:
  case KE_GRAPH:
  case KE_KEEP:
  case KE_TRAINING:
  case KE_ITEM:
  case KE_NPIECES:
  case KE_PIECE_LEN:
  case KE_TILE: return false;
  case KE_VAR:
    if (e->var != g->elem && !g->local[e->var]) return false;
    break;
  case KE_LOAD: /* a buffer the kernel writes: only its element k, stored by this thread */
    if (writes_buf(&g->k->body, e->buf) && (e->a || !e->b || e->b->kind != KE_VAR || e->b->var != g->elem)) return false;
    break;
  default: break;
  }
  return grid_expr_ok(g, e->a) && grid_expr_ok(g, e->b) && grid_expr_ok(g, e->c);
}

static bool grid_body_ok(GridScan *g, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    switch (s->kind) {
    case KS_LET:
      if (s->var == g->elem || g->k->locals[s->var].len || g->k->locals[s->var].uniform || s->idx || !grid_expr_ok(g, s->val))
        return false;
      g->local[s->var] = true;
      break;
    case KS_STORE:
      if (s->row || !s->idx || s->idx->kind != KE_VAR || s->idx->var != g->elem || !grid_expr_ok(g, s->val)) return false;
      break;
    case KS_IF:
      if (!grid_expr_ok(g, s->lo) || !grid_body_ok(g, &s->body)) return false;
      break;
    default: return false; /* atomics, shared arrays, reductions, loops within: lanes that cooperate */
    }
  }
  return true;
}

/* True if k runs grid-wide (above): one group, and only lane loops from element 0 and barriers. */
static bool grid_elementwise(const Kernel *k) {
  if (k->map != MAP_GLOBAL || k->rows != DOM_GLOBAL || k->pieces || k->col_tiles > 1 || k->nshared || k->dropout) return false;
  bool *local = calloc((size_t)k->nlocals + 1, 1), ok = local != NULL, any = false;
  for (int i = 0; ok && i < k->body.len; i++) {
    const KStmt *s = k->body.items[i];
    if (s->kind == KS_BARRIER) continue;
    if (s->kind != KS_FOR_LANES || s->lo) {
      ok = false;
      break;
    }
    memset(local, 0, (size_t)k->nlocals + 1);
    GridScan g = {k, s->var, local};
    ok = grid_body_ok(&g, &s->body);
    any = true;
  }
  free(local);
  return ok && any;
}

/* The most elements of one of its lane loops: the threads it launches (grid_elementwise). */
static int64_t grid_elements(const Kernel *k) {
  int64_t n = 0;
  for (int i = 0; i < k->body.len; i++) {
    const KStmt *s = k->body.items[i];
    if (s->kind == KS_FOR_LANES && s->count > n) n = s->count;
  }
  return n;
}

/* The kernel being printed runs grid-wide (set by cuda_kernel around its statements). */
static bool grid_mode;

/* ---------------------------------------------------------------- float4 loads (--vector-loads=4)
 * A kernel with Kernel.vec = 4 gives each lane 4 consecutive elements of every lane loop: lane l
 * takes k = lo + 4 * (l + G * m) + j, j = 0..3, for m = 0 .. ceil(count / 4G) - 1, in slot i = 4m + j
 * of its register arrays (declared 4 * ceil(count / 4G) long where that is more). One map for the
 * whole kernel (kernel_vec4_refusal checks that nothing depends on the old one), so an element's
 * register slot, and an element a lane stores and reads back, stay that lane's. Before the 4
 * elements, each load kload_vec4 accepts (x[u, k + c], u fixed across the loop, x read-only, its
 * row 4n floats) is read once as a float4, gnn_ld4: one 128-bit ld.global.nc.v4 where the address
 * is 16-byte aligned (the rows' base: the arena's buffers are, a caller's input need not be) and
 * all 4 are elements of the loop; else the valid ones a float each, the rest 0 and never used
 * (the last lanes' elements past count, or past the width in a shorter last column tile). The 4
 * elements' statements then read it (gnn_f4_at, a register after unrolling) where they read the
 * load. A load under an if whose condition is fixed across the loop (the training flag's) is read
 * under that condition; anything else (a load under a per-lane condition, in an inner loop, a
 * ?:'s arm) stays a float load. */
typedef struct {
  const KExpr *load[64];
  const KExpr *conds[64][8]; /* the ifs it is read under (NULL: no condition left: read it always) */
  int ncond[64];
  bool skip[64];             /* read under other conditions elsewhere, and its buffer may be NULL: a float load */
  const char *text[64];
  int n;
} Vec4Loads;

/* kvec4_loads' visitor: each load once (a node the lowering shares between statements may come
 * again, under other ifs: GAT's W[u, k] under `if training` and under `if !training`), with the
 * conditions it is read under: the same every time, or none (read it always) where its buffer is
 * there whatever the flag, else it stays a float load (a training-only buffer, NULL when not
 * training) */
static void vec4_load(const Kernel *k, const KStmt *s, const KExpr *e, const KExpr *const *conds, int ncond, void *arg) {
  (void)k, (void)s;
  Vec4Loads *v = arg;
  for (int i = 0; i < v->n; i++) {
    if (v->load[i] != e) continue;
    bool same = v->ncond[i] == ncond;
    for (int c = 0; same && c < ncond; c++) same = v->conds[i][c] == conds[c];
    if (!same && (e->buf->train_only || e->buf->alias)) v->skip[i] = true;
    else if (!same) v->ncond[i] = 0;
    return;
  }
  if (v->n == 64) return; /* the rest stay float loads */
  v->load[v->n] = e;
  v->ncond[v->n] = ncond;
  for (int c = 0; c < ncond; c++) v->conds[v->n][c] = conds[c];
  v->skip[v->n] = false;
  v->n++;
}

/* const float4 gnn_<k>_v<i> = [(conditions) ?] gnn_ld4(&x[(row) * W + first (+ c)], elements left) [: 0] */
static void vec4_preload(FILE *out, const Kernel *k, const Vec4Loads *v, int i, int slot, const char *kn, const char *kv, const char *lim) {
  const KExpr *e = v->load[i];
  fprintf(out, "const float4 gnn_%s_v%d = ", kn, slot);
  if (v->ncond[i]) {
    fputc('(', out);
    for (int c = 0; c < v->ncond[i]; c++) {
      if (c) fputs(") && (", out);
      ex(out, k, v->conds[i][c]);
    }
    fputs(") ? ", out);
  }
  fprintf(out, "gnn_ld4(&%s[", e->buf->name);
  if (e->a) {
    fputc('(', out);
    ex(out, k, e->a);
    fprintf(out, ") * %lld + ", (long long)e->buf->width);
  }
  fputs(kv, out);
  if (e->b->kind == KE_BIN) { /* k + c */
    const KExpr *c = e->b->a->kind == KE_ICONST ? e->b->a : e->b->b;
    fprintf(out, " + %lld", (long long)c->i);
  }
  fprintf(out, "], %s)", lim);
  fputs(v->ncond[i] ? " : make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n" : ";\n", out);
}

/* The most register slots a lane loop of b takes with 4 elements a lane: 4 * ceil(count / 4G), which
 * may pass the kernel IR's ceil(count / G) (a loop of fewer than 4G elements) */
static int64_t vec4_slots(const Kernel *k, const PtrVec *b) {
  int64_t n = 0;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    int64_t x = s->kind == KS_FOR_LANES ? 4 * ((s->count + 4 * k->group - 1) / (4 * k->group)) : vec4_slots(k, &s->body);
    if (x > n) n = x;
  }
  return n;
}

/* Whether e, as printed with the loads of alias[0..n) read from registers, names local var */
static bool prints_var(const KExpr *e, int var, const KExpr *const *alias, int n) {
  if (!e) return false;
  for (int i = 0; i < n && e->kind == KE_LOAD; i++)
    if (alias[i] == e) return false;
  if (e->kind == KE_VAR && e->var == var) return true;
  return prints_var(e->a, var, alias, n) || prints_var(e->b, var, alias, n) || prints_var(e->c, var, alias, n);
}

static bool body_prints_var(const PtrVec *b, int var, const KExpr *const *alias, int n, const bool *used) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_LET && !used[s->var]) continue; /* not printed (stmt) */
    if (prints_var(s->row, var, alias, n) || prints_var(s->idx, var, alias, n) || prints_var(s->val, var, alias, n) ||
        prints_var(s->lo, var, alias, n) || prints_var(s->hi, var, alias, n) || body_prints_var(&s->body, var, alias, n, used))
      return true;
  }
  return false;
}

static void vec4_lanes(FILE *out, const Kernel *k, const KStmt *s, int d, const bool *used) {
  int G = k->group;
  int64_t nm = (s->count + 4 * G - 1) / (4 * G);
  const char *kn = k->locals[s->var].name, *in = k->locals[s->var2].name;
  bool tail = klanes_may_pass_width(k, s); /* a shorter last column tile: elements stop at col_width too */
  bool guard = s->count % (4 * G) != 0 || tail;
  /* the loads read as float4 (each once), then what the 4 elements' statements still name */
  Vec4Loads *v = calloc(1, sizeof *v);
  if (v) kvec4_loads(k, s, vec4_load, v);
  const KExpr *alias[64];
  int na = 0;
  for (int i = 0; v && i < v->n; i++)
    if (!v->skip[i]) alias[na++] = v->load[i];
  bool kused = body_prints_var(&s->body, s->var, alias, na, used);
  bool rused = guard || kused || na, vused = s->lo && (tail || kused || na);
  ind(out, d);
  fputs(nm <= FULL_UNROLL_MAX || touches_register_array(k, &s->body) ? "#pragma unroll\n" : "#pragma unroll 4\n", out);
  ind(out, d);
  fprintf(out, "for (int gnn_%s_m = 0; gnn_%s_m < %lld; gnn_%s_m++) {  /* 4 consecutive elements a lane */\n", in, in, (long long)nm, in);
  if (rused) { /* the lane's first element of the 4, from the loop's first (a column tile's) */
    ind(out, d + 1);
    fprintf(out, "const int64_t gnn_%s_r = (lane + (int64_t)gnn_%s_m * %d) * 4;\n", kn, in, G);
  }
  char kv[96], lim[256];
  snprintf(kv, sizeof kv, "gnn_%s_r", kn);
  if (vused) {
    ind(out, d + 1);
    fprintf(out, "const int64_t gnn_%s_v = ", kn);
    ex(out, k, s->lo);
    fprintf(out, " + gnn_%s_r;\n", kn);
  }
  if (s->lo) snprintf(kv, sizeof kv, "gnn_%s_v", kn);
  if (!guard) snprintf(lim, sizeof lim, "4");
  else if (tail) snprintf(lim, sizeof lim, "gnn_min_i64(%lld - gnn_%s_r, %lld - gnn_%s_v)", (long long)s->count, kn, (long long)k->col_width, kn);
  else snprintf(lim, sizeof lim, "%lld - gnn_%s_r", (long long)s->count, kn);
  const char *texts[64];
  char text[64][64];
  for (int i = 0, slot = 0; v && i < v->n; i++) {
    if (v->skip[i]) continue;
    ind(out, d + 1);
    vec4_preload(out, k, v, i, slot, kn, kv, lim);
    snprintf(text[slot], sizeof text[slot], "gnn_f4_at(gnn_%s_v%d, gnn_%s_j)", kn, slot, kn);
    texts[slot] = text[slot];
    slot++;
  }
  free(v);
  ind(out, d + 1);
  fputs("#pragma unroll\n", out);
  ind(out, d + 1);
  fprintf(out, "for (int gnn_%s_j = 0; gnn_%s_j < 4; gnn_%s_j++) {\n", kn, kn, kn);
  if (used[s->var2]) {
    ind(out, d + 2);
    fprintf(out, "const int %s = gnn_%s_m * 4 + gnn_%s_j;\n", in, in, kn);
  }
  if (kused) {
    ind(out, d + 2);
    fprintf(out, "const int64_t %s = %s + gnn_%s_j;\n", kn, kv, kn);
  }
  int dd = d + 2;
  if (guard) {
    ind(out, d + 2);
    if (tail) fprintf(out, "if (gnn_%s_r + gnn_%s_j < %lld && gnn_%s_v + gnn_%s_j < %lld) {\n", kn, kn, (long long)s->count, kn, kn, (long long)k->col_width);
    else fprintf(out, "if (gnn_%s_r + gnn_%s_j < %lld) {\n", kn, kn, (long long)s->count);
    dd++;
  }
  kexpr_alias_loads(alias, texts, na);
  stmts(out, k, &s->body, dd, used);
  kexpr_alias_loads(NULL, NULL, 0);
  if (guard) {
    ind(out, d + 2);
    fputs("}\n", out);
  }
  ind(out, d + 1);
  fputs("}\n", out);
  ind(out, d);
  fputs("}\n", out);
}

static void stmt(FILE *out, const Kernel *k, const KStmt *s, int d, const bool *used) {
  switch (s->kind) {
  case KS_LET:
    if (!used[s->var]) return;
    ind(out, d);
    kvar_print(out, k, s->var, s->idx, DIALECT_CUDA);
    fputs(" = ", out);
    ex(out, k, s->val);
    fputs(";\n", out);
    return;
  case KS_STORE:
    ind(out, d);
    fprintf(out, "%s[", s->buf->name);
    if (s->row) {
      fputc('(', out);
      ex(out, k, s->row);
      fprintf(out, ") * %lld + ", (long long)s->buf->width);
    }
    ex(out, k, s->idx);
    fputs("] = ", out);
    if (s->buf->elem == ELEM_I32) fputs("(int32_t)(", out);
    ex(out, k, s->val);
    fputs(s->buf->elem == ELEM_I32 ? ");\n" : ";\n", out);
    return;
  case KS_ATOMIC:
    ind(out, d);
    if (s->count == 1) { /* block-reduced: into the block's shared sums */
      fprintf(out, "atomicAdd(&blk_%s[", s->buf->name);
      ex(out, k, s->idx);
      fputs("], ", out);
      ex(out, k, s->val);
      fputs(");\n", out);
      return;
    }
    fprintf(out, "%s(&%s[", s->op == KO_ADD ? "atomicAdd" : s->op == KO_MAX ? "gnn_atomic_max_f32" : "gnn_atomic_min_f32", s->buf->name);
    /* (atomicAdd on double is native since sm_60: f64 scratch accumulators use it) */
    if (s->row) {
      fputc('(', out);
      ex(out, k, s->row);
      fprintf(out, ") * %lld + ", (long long)s->buf->width);
    }
    ex(out, k, s->idx);
    fputs("], ", out);
    ex(out, k, s->val);
    fputs(");\n", out);
    return;
  case KS_SHSTORE:
    ind(out, d);
    fprintf(out, "%s[", k->shared[s->var].name);
    ex(out, k, s->idx);
    fputs("] = ", out);
    ex(out, k, s->val);
    fputs(";\n", out);
    return;
  case KS_FOR: {
    const char *n = k->locals[s->var].name;
    ind(out, d);
    fprintf(out, "for (int64_t %s = ", n);
    ex(out, k, s->lo);
    fprintf(out, "; %s < ", n);
    ex(out, k, s->hi);
    if (s->count == 1) fprintf(out, "; %s++) {\n", n);
    else fprintf(out, "; %s += %lld) {\n", n, (long long)s->count);
    stmts(out, k, &s->body, d + 1, used);
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  case KS_FOR_LANES: {
    if (grid_mode) { /* this thread's elements of the loop: grid-stride */
      const char *kn = k->locals[s->var].name;
      ind(out, d);
      fprintf(out, "for (int64_t %s = thread; %s < %lld; %s += threads) {\n", kn, kn, (long long)s->count, kn);
      stmts(out, k, &s->body, d + 1, used);
      ind(out, d);
      fputs("}\n", out);
      return;
    }
    if (k->vec == 4) {
      vec4_lanes(out, k, s, d, used);
      return;
    }
    int64_t nk = (s->count + k->group - 1) / k->group;
    const char *kn = k->locals[s->var].name, *in = k->locals[s->var2].name;
    ind(out, d);
    /* Unrolled whole, a per-lane register array stays in registers and a walk's gathers issue
     * together. A long loop over no register array is unrolled by 4: EdgeConv's parameter-sized
     * apply_global (1,024 iterations of 32 lanes, grid-wide now) unrolled whole cost nvcc's front
     * end 20 s per architecture for one kernel and NVRTC as much at load time. */
    if (nk <= FULL_UNROLL_MAX || touches_register_array(k, &s->body)) fputs("#pragma unroll\n", out);
    else fputs("#pragma unroll 4\n", out);
    ind(out, d);
    fprintf(out, "for (int %s = 0; %s < %lld; %s++) {\n", in, in, (long long)nk, in);
    bool guard = s->count % k->group != 0 || klanes_may_pass_width(k, s);
    if (guard || used[s->var]) { /* (nvcc warns of an unused one: the tests build with -Werror) */
      ind(out, d + 1);
      fprintf(out, "const int64_t %s = ", kn);
      if (s->lo) { /* a column tile's loop: from its first element */
        ex(out, k, s->lo);
        fputs(" + ", out);
      }
      fprintf(out, "lane + (int64_t)%s * %d;\n", in, k->group);
    }
    if (!guard) {
      /* every lane has an element in every iteration: no guard. A guard that nvcc cannot prove
       * true stays a branch around each unrolled edge of the walk, and ptxas then issues one
       * edge's gather at a time instead of several (the walks are latency-bound gathers) */
      stmts(out, k, &s->body, d + 1, used);
    } else {
      ind(out, d + 1);
      if (s->lo) fprintf(out, "if (lane + (int64_t)%s * %d < %lld && %s < %lld) {\n", in, k->group, (long long)s->count, kn,
                         (long long)k->col_width);
      else fprintf(out, "if (%s < %lld) {\n", kn, (long long)s->count);
      stmts(out, k, &s->body, d + 2, used);
      ind(out, d + 1);
      fputs("}\n", out);
    }
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  case KS_IF:
    ind(out, d);
    fputs("if (", out);
    ex(out, k, s->lo);
    fputs(") {\n", out);
    stmts(out, k, &s->body, d + 1, used);
    ind(out, d);
    fputs("}\n", out);
    return;
  case KS_BARRIER:
    if (grid_mode) return; /* element k of every loop is this thread's: nothing to wait for */
    ind(out, d);
    fputs("__syncwarp(gmask);\n", out);
    return;
  case KS_GROUP_REDUCE: {
    const char *n = k->locals[s->var].name;
    ind(out, d);
    fprintf(out, "for (int off = %d; off > 0; off >>= 1) {\n", k->group / 2);
    ind(out, d + 1);
    fprintf(out, "const %s other = __shfl_xor_sync(gmask, %s, off, %d);\n", ktype_c(k->locals[s->var].type), n, k->group);
    ind(out, d + 1);
    if (s->op == KO_ADD && k->locals[s->var].type != KT_I64) /* rounded once, as every float add (kir.c) */
      fprintf(out, "%s = %s(%s, other);\n", n, k->locals[s->var].type == KT_F32 ? "__fadd_rn" : "__dadd_rn", n);
    else if (s->op == KO_ADD) fprintf(out, "%s = %s + other;\n", n, n);
    else fprintf(out, "%s = other %s %s ? other : %s;\n", n, s->op == KO_MAX ? ">" : "<", n, n);
    ind(out, d);
    fputs("}\n", out);
    return;
  }
  case KS_TICKET: { /* the group's stores, then its count: whoever draws the last count sees them */
    const char *n = k->locals[s->var].name;
    ind(out, d);
    fputs("__threadfence();  /* this group's partial results, device-wide, before its count */\n", out);
    ind(out, d);
    fputs("__syncwarp(gmask);\n", out);
    ind(out, d);
    fprintf(out, "%s = 0;\n", n);
    ind(out, d);
    fprintf(out, "if (lane == 0) %s = atomicAdd(&%s[", n, s->buf->name);
    ex(out, k, s->row);
    fputs("], 1);\n", out);
    ind(out, d);
    fprintf(out, "%s = __shfl_sync(gmask, %s, 0, %d);\n", n, n, k->group);
    ind(out, d);
    fputs("__threadfence();  /* the others' partial results are read after the count */\n", out);
    return;
  }
  }
}

static void stmts(FILE *out, const Kernel *k, const PtrVec *b, int d, const bool *used) {
  for (int i = 0; i < b->len; i++) stmt(out, k, b->items[i], d, used);
}

static bool writes_buf(const PtrVec *b, const KBuf *buf) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if ((s->kind == KS_STORE || s->kind == KS_ATOMIC || s->kind == KS_TICKET) && s->buf == buf) return true;
    if (writes_buf(&s->body, buf)) return true;
  }
  return false;
}

static bool has_kind(const PtrVec *b, KStmtKind kind) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == kind || has_kind(&s->body, kind)) return true;
  }
  return false;
}

static void cuda_kernel(FILE *out, const KProgram *p, const Kernel *k) {
  int G = k->group, gpb = kernel_groups_per_block(k), nthreads = gpb * G;
  bool *used = calloc((size_t)k->nlocals + 1, 1), *loopvar = calloc((size_t)k->nlocals + 1, 1);
  scan_used(k, &k->body, used, loopvar);
  /* __restrict__ tells nvcc that, while the kernel runs, nothing but this pointer touches its
   * memory, and nvcc reads that per thread: a store by another lane does not exist for it, so it
   * may move a load of a restrict buffer above the __syncwarp that orders that store before it
   * (nvcc 13 -O3 for sm_90 does: lanes 1..31 loaded t10[row] before lane 0 stored it, in
   * EdgeConv's edge-mapped kernel of %10..%13, issue 27). So a buffer through which a value
   * passes between lanes across a barrier (kernel_reads_back_across_barrier, from the kernel
   * IR) is a plain pointer; every other buffer, read-only or written and read back by its own
   * lane only, keeps __restrict__ (read-only ones load through the non-coherent cache). */
  bool *plain = calloc((size_t)k->bufs.len + 1, 1);
  for (int i = 0; i < k->bufs.len; i++)
    plain[i] = kernel_reads_back_across_barrier(k, k->bufs.items[i]) || ((const KBuf *)k->bufs.items[i])->cross_group;
  bool grid = grid_elementwise(k);
  if (grid)
    fprintf(out, "\n/* %s_%s: grid-wide, a thread per element (%lld in its longest loop), %d threads per block. %s", p->cname,
            k->name, (long long)grid_elements(k), nthreads, k->what);
  else
    fprintf(out, "\n/* %s_%s: %s, %d lanes per group, %d group%s per block. %s", p->cname, k->name, kernel_mapping_desc(k), G, gpb,
            gpb == 1 ? "" : "s", k->what);
  if (k->vec == 4) fputs(". 4 consecutive elements a lane, gathered rows read as float4 (--vector-loads=4)", out);
  for (int i = 0; i < k->bufs.len; i++)
    if (plain[i])
      fprintf(out, ". %s is not __restrict__: %s", ((const KBuf *)k->bufs.items[i])->name,
              ((const KBuf *)k->bufs.items[i])->cross_group ? "groups read what other groups stored in it (a hub row's pieces)"
                                                            : "lanes read what other lanes stored in it before a barrier");
  fprintf(out, "%s\n", emit_kernel_comment_end(p, k));
  fprintf(out, "extern \"C\" __global__ void __launch_bounds__(%d) %s_%s(int64_t nrows%s", nthreads, p->cname, k->name,
          k->pieces ? ", int64_t npieces, int64_t piece_len" : "");
  for (int g = 0; g < KG__COUNT; g++)
    if (k->graph[g]) fprintf(out, ", const %s *__restrict__ %s", kgraph_type[g], kgraph_name[g]);
  for (int i = 0; i < k->bufs.len; i++) {
    const KBuf *b = k->bufs.items[i];
    fprintf(out, ", %s%s *%s%s", writes_buf(&k->body, b) ? "" : "const ", elem_c(b->elem), plain[i] ? "" : "__restrict__ ", b->name);
  }
  free(plain);
  if (k->dropout) fputs(", int training, uint64_t seed", out);
  fputs(") {\n", out);
  if (k->dropout) fputs("  (void)training;\n  (void)seed;  /* a kernel may use the flag alone (stores of stashes) */\n", out);
  if (grid) { /* grid_elementwise: no lanes, no groups, no barriers */
    fprintf(out, "  const int64_t thread = (int64_t)blockIdx.x * %d + threadIdx.x, threads = (int64_t)gridDim.x * %d;\n", nthreads, nthreads);
    fputs("  (void)nrows;  /* the one global row */\n", out);
    for (int i = 0; i < k->nlocals; i++)
      if (used[i] && !loopvar[i]) fprintf(out, "  %s %s;\n", ktype_c(k->locals[i].type), k->locals[i].name);
    grid_mode = true;
    stmts(out, k, &k->body, 1, used);
    grid_mode = false;
    fputs("}\n", out);
    free(used);
    free(loopvar);
    return;
  }
  fprintf(out, "  const int lane = threadIdx.x %% %d;\n", G);
  /* a kernel over pieces or column tiles: its group's item, then the row (after the early return) */
  const char *grp = k->pieces || k->col_tiles > 1 ? "item" : "row";
  fprintf(out, "  const int64_t %s = (int64_t)blockIdx.x * %d + threadIdx.x / %d;\n", grp, gpb, G);
  for (int i = 0; i < k->nshared; i++) {
    const KShared *sh = &k->shared[i];
    const char *t = ktype_c(sh->type);
    if (sh->storage >= 0) continue;
    fprintf(out, "  __shared__ %s %s_block[%d][%d];\n", t, sh->name, gpb, sh->len);
    fprintf(out, "  %s *const %s = %s_block[threadIdx.x / %d];  /* this group's */\n", t, sh->name, sh->name, G);
  }
  for (int i = 0; i < k->nshared; i++) { /* a float copy in its float64 array's storage: a launch uses one */
    const KShared *sh = &k->shared[i];
    if (sh->storage >= 0)
      fprintf(out, "  %s *const %s = (%s *)%s;  /* in %s's storage: one or the other, by the training flag */\n", ktype_c(sh->type),
              sh->name, ktype_c(sh->type), k->shared[sh->storage].name, k->shared[sh->storage].name);
  }
  if (has_kind(&k->body, KS_BARRIER) || has_kind(&k->body, KS_GROUP_REDUCE) || has_kind(&k->body, KS_TICKET)) {
    if (G == 32) fputs("  const unsigned gmask = 0xffffffffu;\n", out);
    else fprintf(out, "  const unsigned gmask = 0x%xu << (threadIdx.x & %d);  /* this group's lanes of the warp */\n", (1u << G) - 1u,
                 32 - G);
  }
  const KBuf *blk[8];
  int nblk = block_targets(&k->body, blk, 8, 0);
  for (int i = 0; i < nblk; i++) { /* block-reduced sums: zeroed, added to by the block, then flushed */
    fprintf(out, "  __shared__ double blk_%s[%lld];\n", blk[i]->name, (long long)blk[i]->width);
    fprintf(out, "  for (int i = threadIdx.x; i < %lld; i += %d) blk_%s[i] = 0;\n", (long long)blk[i]->width, nthreads, blk[i]->name);
  }
  if (nblk) fprintf(out, "  __syncthreads();\n  if (%s < nrows) {  /* no early return: the block meets at the flush */\n", grp);
  else if (k->col_tiles > 1) fprintf(out, "  if (item >= nrows * %d) return;  /* a whole group leaves together */\n", k->col_tiles);
  else fprintf(out, "  if (%s >= nrows) return;  /* a whole group leaves together */\n", grp);
  int d0 = nblk ? 2 : 1;
  if (k->pieces) { /* the hub rows' pieces first, then a group per vertex (docs/kernel-ir.md) */
    ind(out, d0);
    fprintf(out, "const int64_t row = item < npieces ? (int64_t)%s[item] : item - npieces;\n",
            kgraph_name[k->dir == GATHER_BY_SRC ? KG_OUT_PIECE_ROW : KG_PIECE_ROW]);
  }
  if (k->col_tiles > 1) { /* a group per (tile, row), tile-major: every row's tile 0 before any tile 1 */
    ind(out, d0);
    fputs("const int64_t tile = item / nrows, row = item - tile * nrows;\n", out);
  }
  if (!has_kind(&k->body, KS_FOR_LANES)) fprintf(out, "%s(void)lane;\n", nblk ? "    " : "  ");
  for (int i = 0; i < k->nlocals; i++) {
    const KLocal *l = &k->locals[i];
    if (!used[i] || loopvar[i]) continue;
    ind(out, d0);
    fprintf(out, "%s %s", ktype_c(l->type), l->name);
    if (l->len) fprintf(out, "[%lld]", (long long)(k->vec == 4 && vec4_slots(k, &k->body) > l->len ? vec4_slots(k, &k->body) : l->len));
    fputs(";\n", out);
  }
  stmts(out, k, &k->body, d0, used);
  if (nblk) {
    fputs("  }\n  __syncthreads();\n", out);
    for (int i = 0; i < nblk; i++)
      fprintf(out, "  for (int i = threadIdx.x; i < %lld; i += %d)\n    if (blk_%s[i] != 0) atomicAdd(&%s[i], blk_%s[i]);\n",
              (long long)blk[i]->width, nthreads, blk[i]->name, blk[i]->name, blk[i]->name);
  }
  fputs("}\n", out);
  free(used);
  free(loopvar);
}

/* The model's C prefix: every __global__ name carries it, so that the kernels of two models (each
 * an extern "C" function with a host-side stub) link into one program, and NVRTC still finds them
 * by name. Set by the prelude, read by cuda_fill (its hook has no program). */
static const char *kernel_prefix = "gnn";

static void cuda_prelude(FILE *out, const KProgram *p) {
  kernel_prefix = p->cname;
  fputs("#ifndef __CUDACC_RTC__\n#define GNNRT_CUDA 1 /* gnnrt.h: the stream and cuBLAS accessors */\n#include <cublas_v2.h>\n#include <cuda_runtime.h>\n#include <math.h>\n#include <stdint.h>\n"
        "#include <stdlib.h>\n#include <string.h>\n#else\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n\n"
        "#include \"gnnrt_rng.h\"\n\n",
        out);
  fputs("__device__ __forceinline__ float gnn_rsqrtf(float x) { return rsqrtf(x); }\n"
        "__device__ __forceinline__ int64_t gnn_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }\n"
        "__device__ __forceinline__ int64_t gnn_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }\n"
        "/* float max/min by compare-and-swap, for every float and the infinities; a NaN is never stored\n"
        " * (as the vertex-balanced path and the host); -0.0 against +0.0 keeps whichever came first */\n"
        "__device__ __forceinline__ void gnn_atomic_max_f32(float *p, float v) {\n"
        "  int *ip = (int *)p;\n  int old = *ip;\n"
        "  while (v > __int_as_float(old)) {\n    const int seen = atomicCAS(ip, old, __float_as_int(v));\n"
        "    if (seen == old) break;\n    old = seen;\n  }\n}\n"
        "__device__ __forceinline__ void gnn_atomic_min_f32(float *p, float v) {\n"
        "  int *ip = (int *)p;\n  int old = *ip;\n"
        "  while (v < __int_as_float(old)) {\n    const int seen = atomicCAS(ip, old, __float_as_int(v));\n"
        "    if (seen == old) break;\n    old = seen;\n  }\n}\n"
        , out);
  bool vec = false;
  for (int i = 0; i < p->kernels.len; i++) vec |= ((const Kernel *)p->kernels.items[i])->vec == 4;
  if (vec) /* --vector-loads=4 (vec4_lanes) */
    fputs("/* 4 consecutive floats of a read-only row from p: one 128-bit load where p is 16-byte aligned and\n"
          " * all 4 are wanted (n >= 4), else the n wanted ones a float each (the rest 0, never used) */\n"
          "__device__ __forceinline__ float4 gnn_ld4(const float *p, int64_t n) {\n"
          "  if (n >= 4 && ((unsigned long long)p & 15) == 0) return __ldg((const float4 *)p);\n"
          "  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n"
          "  if (n > 0) v.x = __ldg(p);\n  if (n > 1) v.y = __ldg(p + 1);\n  if (n > 2) v.z = __ldg(p + 2);\n  if (n > 3) v.w = __ldg(p + 3);\n"
          "  return v;\n}\n"
          "__device__ __forceinline__ float gnn_f4_at(float4 v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }\n",
          out);
  fprintf(out, "extern \"C\" __global__ void %s_fill_kernel(float *p, int64_t n, float v) {\n"
        "  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) p[i] = v;\n}\n\n", p->cname);
  fputs("#ifndef __CUDACC_RTC__\n"
        "#define GNN_CUDA_CHECK(ctx, call)                                                              \\\n"
        "  do {                                                                                         \\\n"
        "    const cudaError_t e_ = (call);                                                             \\\n"
        "    if (e_ != cudaSuccess) {                                                                   \\\n"
        "      (void)cudaGetLastError(); /* clear it: the next launch check must not see it */          \\\n"
        "      return gnn_set_error((ctx), GNN_ERR_CUDA, \"%s:%d: %s: %s\", __FILE__, __LINE__, #call,    \\\n"
        "                           cudaGetErrorString(e_));                                            \\\n"
        "    }                                                                                          \\\n"
        "  } while (0)\n"
        "#define GNN_CUBLAS_CHECK(ctx, call)                                                            \\\n"
        "  do {                                                                                         \\\n"
        "    const cublasStatus_t s_ = (call);                                                          \\\n"
        "    if (s_ != CUBLAS_STATUS_SUCCESS)                                                           \\\n"
        "      return gnn_set_error((ctx), GNN_ERR_CUBLAS, \"%s:%d: %s: cuBLAS status %d\", __FILE__,      \\\n"
        "                           __LINE__, #call, (int)s_);                                          \\\n"
        "  } while (0)\n"
        "#endif\n",
        out);
}

static void cuda_launch(FILE *out, const KProgram *p, const Kernel *k) {
  int gpb = kernel_groups_per_block(k), nthreads = gpb * k->group;
  fprintf(out, "  if (%s > 0) {\n", emit_kernel_rows(p, k));
  if (grid_elementwise(k)) /* a thread per element of its longest loop */
    fprintf(out, "    const unsigned blocks = %lld;\n", (long long)((grid_elements(k) + nthreads - 1) / nthreads + (grid_elements(k) == 0)));
  else if (k->col_tiles > 1) /* a group per (tile, row) */
    fprintf(out, "    const unsigned blocks = (unsigned)((%s * %d + %d - 1) / %d);\n", emit_kernel_rows(p, k), k->col_tiles, gpb, gpb);
  else
    fprintf(out, "    const unsigned blocks = (unsigned)((%s + %d - 1) / %d);\n", emit_kernel_rows(p, k), gpb, gpb);
  fprintf(out, "    %s_%s<<<blocks, %d, 0, gnn_ctx_stream(m->ctx)>>>(%s%s", p->cname, k->name, nthreads, emit_kernel_rows(p, k),
          !k->pieces ? "" : k->dir == GATHER_BY_SRC ? ", g->out_npieces, g->piece_len" : ", g->npieces, g->piece_len");
  for (int g = 0; g < KG__COUNT; g++)
    if (k->graph[g]) fprintf(out, ", g->%s", kgraph_name[g]);
  for (int i = 0; i < k->bufs.len; i++) fprintf(out, ", %s", emit_buf_ref(p, k->bufs.items[i]));
  if (k->dropout) fputs(", training, seed", out);
  fputs(");\n    GNN_CUDA_CHECK(m->ctx, cudaGetLastError());\n  }\n", out);
}

static const char *dim_c(const KProgram *p, KDim d) {
  return d.dom == DOM_GLOBAL ? arena_printf(p->arena, "%lld", (long long)d.mult)
                             : arena_printf(p->arena, "(int64_t)%s * %lld", emit_rows(d.dom), (long long)d.mult);
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands. */
static void cuda_gemm(FILE *out, const KProgram *p, const KGemm *g) {
  fputs("  {\n", out);
  fprintf(out, "    const int64_t M = %s, N = %s, K = %s;\n", dim_c(p, g->m), dim_c(p, g->n), dim_c(p, g->k));
  fputs("    if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)\n"
        "      return gnn_set_error(m->ctx, GNN_ERR_UNSUPPORTED, \"a GEMM dimension exceeds INT32_MAX\");\n",
        out);
  fprintf(out, "    const float alpha = 1.0f, beta = %.1ff;\n", (double)g->beta);
  if (g->tf32) { /* --gemm-precision=tf32: tensor cores, the inputs rounded to TF32, float32 sums */
    fprintf(out, "    GNN_CUBLAS_CHECK(m->ctx, cublasGemmEx(gnn_ctx_cublas(m->ctx), %s, %s, (int)N, (int)M, (int)K, &alpha, %s, CUDA_R_32F, %lld, %s, CUDA_R_32F, %lld, &beta, %s, CUDA_R_32F, %lld, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));\n  }\n",
            g->tb ? "CUBLAS_OP_T" : "CUBLAS_OP_N", g->ta ? "CUBLAS_OP_T" : "CUBLAS_OP_N", emit_buf_ref(p, g->b), (long long)g->ldb,
            emit_buf_ref(p, g->a), (long long)g->lda, emit_buf_ref(p, g->c), (long long)g->ldc);
    return;
  }
  fprintf(out, "    GNN_CUBLAS_CHECK(m->ctx, cublasSgemm(gnn_ctx_cublas(m->ctx), %s, %s, (int)N, (int)M, (int)K, &alpha, %s, %lld, %s, %lld, &beta, %s, %lld));\n",
          g->tb ? "CUBLAS_OP_T" : "CUBLAS_OP_N", g->ta ? "CUBLAS_OP_T" : "CUBLAS_OP_N", emit_buf_ref(p, g->b), (long long)g->ldb,
          emit_buf_ref(p, g->a), (long long)g->lda, emit_buf_ref(p, g->c), (long long)g->ldc);
  fputs("  }\n", out);
}

static void cuda_fill(FILE *out, const char *ptr, const char *count, double v) {
  fprintf(out, "  {\n    const int64_t n = %s;\n    if (n > 0) {\n", count);
  fprintf(out, "      %s_fill_kernel<<<(unsigned)((n + 255) / 256), 256, 0, gnn_ctx_stream(m->ctx)>>>(%s, n, %s);\n", kernel_prefix, ptr,
          v > 0 ? "INFINITY" : v < 0 ? "-INFINITY" : "0.0f");
  fputs("      GNN_CUDA_CHECK(m->ctx, cudaGetLastError());\n    }\n  }\n", out);
}

static void cuda_copy(FILE *out, const char *dst, const char *src, const char *bytes) {
  fprintf(out, "  GNN_CUDA_CHECK(m->ctx, cudaMemcpyAsync(%s, %s, %s, cudaMemcpyDeviceToDevice, gnn_ctx_stream(m->ctx)));\n", dst, src, bytes);
}

const EmitHooks emit_cuda_hooks = {TARGET_CUDA, cuda_prelude, cuda_kernel, cuda_launch, cuda_gemm, cuda_fill, cuda_copy};
