/* kir.c -- printing the kernel IR: its own stable text, and the expressions of both emitters.
 *
 * The text form (`gnnc --print-ir-after=lower`, docs/kernel-ir.md) lists the buffers with
 * their lifetimes, the steps in order, then every kernel as its statement tree:
 *
 *   step 3  kernel k2_gather_sum_vertex                      # %9 gather.sum
 *   ...
 *   kernel k2_gather_sum_vertex: vertex-balanced over in-edges, group 8   # %9 gather.sum
 *     local lo: i64 uniform
 *     local acc: f32[1]
 *     lo = in_ptr[row]
 *     for k, i in lanes(8) {
 *       acc[i] = 0
 *     }
 *
 * The expression printer is shared with the CUDA and host emitters: the three differ only in
 * how a local, a load and a few intrinsics are spelled (kexpr_print's dialect).
 */
#include "kir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *ktype_c(KType t) { return t == KT_F32 ? "float" : t == KT_F64 ? "double" : "int64_t"; }
const char *ktype_name(KType t) { return t == KT_F32 ? "f32" : t == KT_F64 ? "f64" : "i64"; }
const char *elem_c(ElemType e) { return e == ELEM_F32 ? "float" : e == ELEM_F64 ? "double" : "int32_t"; }

const char *mapping_name(Mapping m) {
  return m == MAP_VERTEX ? "vertex" : m == MAP_EDGE ? "edge" : m == MAP_WEIGHT ? "weight" : "global";
}

const char *const kgraph_name[KG__COUNT] = {"in_ptr", "out_ptr", "src", "dst", "out_eid", "graph_ptr", "vertex_graph", "out_dst",
                                            "piece_row", "piece_lo", "out_piece_row", "out_piece_lo"};
const char *const kgraph_type[KG__COUNT] = {"int64_t", "int64_t", "int32_t", "int32_t", "int32_t", "int64_t", "int32_t", "int32_t",
                                            "int32_t", "int64_t", "int32_t", "int64_t"};
static const char *bin_name[] = {"+", "-", "*", "/", "%", "min", "max", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};

/* A float constant as C reads it back exactly in float32 (and the KIR text shortest form). */
static void print_float(FILE *out, double x, Dialect d) {
  if (isinf(x)) {
    fputs(x > 0 ? "INFINITY" : "(-INFINITY)", out);
    return;
  }
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, x);
    if (d == DIALECT_KIR ? strtod(buf, NULL) == x : strtof(buf, NULL) == (float)x) break;
  }
  if (d != DIALECT_KIR && !strpbrk(buf, ".en")) strcat(buf, ".0");
  fprintf(out, "%s%s", buf, d == DIALECT_KIR ? "" : "f");
}

/* CUDA: a float +, - or * as its round-to-nearest intrinsic, __fmul_rn(a, b) for a * b (NULL:
 * not one). nvcc contracts a * b + c into one FMA by default (-fmad=true; and ptxas, or the
 * driver's JIT loading NVRTC's PTX, fuses a plain mul.f32 with an add.f32), so the same
 * expression could round once in one kernel and twice in another: in the forward of
 * max_out(h[src] * h[src] + h[dst]) the product is hoisted out of the edge loop (FMUL, then FADD
 * per edge), in the backward's walk over in-edges it is per edge (FFMA), and eq(x, copy_u(max))
 * found no edge holding the maximum: that gradient silently 0. The intrinsics are never
 * contracted, whatever the flags of whoever compiles the .cu; the adds too, since libm's last
 * multiply (expf's 2^k scaling) fuses into a plain add after it. So every kernel rounds each
 * operation once, as the host's -ffp-contract=off build and the kernel IR do (docs/kernel-ir.md,
 * "Rounding"). A division stays `/` (never contracted; __fdiv_rn(1.0f, x) is a call LLVM does not
 * hoist out of the edge loop as it does 1.0f / x, the reciprocal per edge instead of per row);
 * integer (index) arithmetic stays plain. */
static const char *cuda_rounded_fn(const KExpr *e, Dialect d) {
  if (d != DIALECT_CUDA || e->kind != KE_BIN || (e->type != KT_F32 && e->type != KT_F64)) return NULL;
  bool f32 = e->type == KT_F32;
  switch (e->op) {
  case KO_ADD: return f32 ? "__fadd_rn" : "__dadd_rn";
  case KO_SUB: return f32 ? "__fsub_rn" : "__dsub_rn";
  case KO_MUL: return f32 ? "__fmul_rn" : "__dmul_rn";
  default: return NULL;
  }
}

static bool atomic_expr(const KExpr *e, Dialect d) {
  return (e->kind != KE_BIN && e->kind != KE_SELECT) || cuda_rounded_fn(e, d);
}

static void print_sub(FILE *out, const Kernel *k, const KExpr *e, Dialect d) {
  if (atomic_expr(e, d)) {
    kexpr_print(out, k, e, d);
  } else {
    fputc('(', out);
    kexpr_print(out, k, e, d);
    fputc(')', out);
  }
}

void kvar_print(FILE *out, const Kernel *k, int var, const KExpr *idx, Dialect d) {
  const KLocal *l = &k->locals[var];
  fputs(l->name, out);
  if (d == DIALECT_HOST && !l->uniform) fputs("[lane]", out);
  if (idx) {
    fputc('[', out);
    kexpr_print(out, k, idx, d);
    fputc(']', out);
  }
}

bool kexpr_leads_with_minus(const KExpr *e) {
  if (e->kind == KE_UN && e->op == KU_NEG) return true;
  if (e->kind == KE_FCONST) return signbit(e->f) && !isinf(e->f); /* -inf prints as (-INFINITY) */
  return e->kind == KE_ICONST && e->i < 0;
}

/* kernel_gathered_width: the widest lane loop that reads a vertex buffer at a row the graph picks
 * inside a walk. */
static bool gathers(const KExpr *e) {
  if (!e) return false;
  if (e->kind == KE_LOAD && e->buf->dom == DOM_VERTEX && e->a && e->a->kind != KE_ROW) return true;
  return gathers(e->a) || gathers(e->b) || gathers(e->c);
}
static bool block_gathers(const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (gathers(s->row) || gathers(s->idx) || gathers(s->val) || gathers(s->lo) || gathers(s->hi) || block_gathers(&s->body))
      return true;
  }
  return false;
}
static int64_t gathered_width(const PtrVec *b, bool in_walk) {
  int64_t w = 0;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_FOR_LANES && in_walk && block_gathers(&s->body) && s->count > w) w = s->count;
    int64_t x = gathered_width(&s->body, in_walk || (s->kind == KS_FOR && s->walk));
    if (x > w) w = x;
  }
  return w;
}

int64_t kernel_gathered_width(const Kernel *k) { return gathered_width(&k->body, false); }

int64_t tile_width_for(int64_t W, int ntiles, int G) {
  if (ntiles < 2 || W < ntiles || G < 1) return 0;
  int64_t T = (W + ntiles - 1) / ntiles;
  if (T > G && T % G) T = (T + G - 1) / G * G; /* whole groups of lanes */
  return (W + T - 1) / T == ntiles ? T : 0;
}

int kernel_tile_first(const Kernel *k) {
  const KStmt *s = k->col_tiles > 1 && k->body.len ? k->body.items[0] : NULL;
  const KExpr *e = s ? s->val : NULL;
  bool ok = s && s->kind == KS_LET && !s->idx && s->var >= 0 && s->var < k->nlocals && k->locals[s->var].uniform && e &&
            ((e->kind == KE_BIN && e->op == KO_MUL && e->a->kind == KE_TILE && e->b->kind == KE_ICONST && e->b->i == k->col_tile) ||
             (e->kind == KE_TILE && k->col_tile == 1)); /* tiles of one column: tile * 1 folds to tile */
  return ok ? s->var : -1;
}

bool klanes_may_pass_width(const Kernel *k, const KStmt *s) { return s->lo && k->col_tile > 0 && k->col_width % k->col_tile; }

/* ---------------------------------------------------------------- --vector-loads=4 (Kernel.vec) */

bool kload_gathers(const KExpr *e) { return e && e->kind == KE_LOAD && e->a && e->a->kind != KE_ROW; }

/* The vec4 scan of a kernel: why not (the first reason), and where it is */
typedef struct {
  const Kernel *k;
  const char *why;
  int slot;       /* the innermost enclosing lane loop's slot variable, or -1 outside lane loops */
  bool in_lanes;
} V4Scan;

static void v4_expr(V4Scan *v, const KExpr *e) {
  if (!e || v->why) return;
  if (e->kind == KE_LANE && v->in_lanes) v->why = "a lane loop reads the lane index";
  if (e->kind == KE_VAR) {
    const KLocal *l = &v->k->locals[e->var];
    if (l->len && !(e->a && e->a->kind == KE_VAR && e->a->var == v->slot && !e->a->a))
      v->why = "a register array read at another slot than its lane loop's";
    if (l->len && e->a && e->a->kind == KE_VAR && e->a->var == v->slot) return; /* the slot itself, as an index */
  }
  if (e->kind == KE_VAR && e->var == v->slot) v->why = "a lane loop's slot used as a value";
  v4_expr(v, e->a);
  v4_expr(v, e->b);
  v4_expr(v, e->c);
}

/* Whether var is a slot variable of some lane loop of b (used as a value outside its loop: refused too) */
static void v4_stmts(V4Scan *v, const PtrVec *b) {
  for (int i = 0; i < b->len && !v->why; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_LET && s->idx) {
      if (!(s->idx->kind == KE_VAR && s->idx->var == v->slot && !s->idx->a)) v->why = "a register array set at another slot than its lane loop's";
    } else {
      v4_expr(v, s->idx);
    }
    v4_expr(v, s->row);
    v4_expr(v, s->val);
    v4_expr(v, s->lo);
    v4_expr(v, s->hi);
    if (s->kind == KS_FOR_LANES) {
      if (v->in_lanes) {
        v->why = "a lane loop inside another";
        return;
      }
      V4Scan in = *v;
      in.in_lanes = true, in.slot = s->var2;
      v4_stmts(&in, &s->body);
      v->why = in.why;
    } else {
      v4_stmts(v, &s->body);
    }
  }
}

static bool expr_reads(const KExpr *e, int var) {
  return e && ((e->kind == KE_VAR && e->var == var) || expr_reads(e->a, var) || expr_reads(e->b, var) || expr_reads(e->c, var));
}
static bool expr_has(const KExpr *e, KExprKind kind) {
  return e && (e->kind == kind || expr_has(e->a, kind) || expr_has(e->b, kind) || expr_has(e->c, kind));
}
static bool stmt_reads(const KStmt *s, int var) {
  return expr_reads(s->row, var) || expr_reads(s->idx, var) || expr_reads(s->val, var) || expr_reads(s->lo, var) ||
         expr_reads(s->hi, var) || (s->kind == KS_GROUP_REDUCE && s->var == var);
}
/* Whether b, less statement skip (and its body), reads local var */
static bool reads_outside(const PtrVec *b, int var, const KStmt *skip) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s == skip) continue;
    if (stmt_reads(s, var) || reads_outside(&s->body, var, skip)) return true;
  }
  return false;
}
/* Whether b's lets of var all read var (a running sum, max, ...: its value after the loop is over
 * all the lane's elements, whichever they are) */
static bool lets_accumulate(const PtrVec *b, int var) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_LET && s->var == var && !expr_reads(s->val, var)) return false;
    if (!lets_accumulate(&s->body, var)) return false;
  }
  return true;
}
/* Whether a lane loop of b reads local var */
static bool lanes_read(const PtrVec *b, int var) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_FOR_LANES && (stmt_reads(s, var) || reads_outside(&s->body, var, NULL))) return true;
    if (lanes_read(&s->body, var)) return true;
  }
  return false;
}

/* Per-lane scalars between lane loops and the rest: one let in a lane loop and read after it is the
 * value of the lane's last element (another element under the new map); one let outside from the
 * lane index and read in a lane loop ties a lane's element to its index (su = sh_u[lane]) */
static const char *v4_carried(const Kernel *k, const PtrVec *b, const KStmt *loop) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    int var = s->kind == KS_LET ? s->var : -1;
    if (var >= 0 && !k->locals[var].uniform && !k->locals[var].len) {
      if (loop && reads_outside(&k->body, var, loop) && !lets_accumulate(&loop->body, var))
        return "a lane's value made in a lane loop read after it";
      if (!loop && expr_has(s->val, KE_LANE)) {
        if (lanes_read(&k->body, var)) return "a lane loop reads a value made from the lane index";
      }
    }
    const char *why = v4_carried(k, &s->body, s->kind == KS_FOR_LANES ? s : loop);
    if (why) return why;
  }
  return NULL;
}

const char *kernel_vec4_refusal(const Kernel *k) {
  if (k->map != MAP_VERTEX && k->map != MAP_EDGE) return "not a kernel per vertex or per edge";
  if (k->col_tiles > 1 && k->col_tile % 4) return "its column tiles do not start at multiples of 4 columns";
  V4Scan v = {k, NULL, -1, false};
  v4_stmts(&v, &k->body);
  return v.why ? v.why : v4_carried(k, &k->body, NULL);
}

/* Whether b (nested bodies too) sets local var */
static bool sets_local(const PtrVec *b, int var) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if ((s->kind == KS_LET || s->kind == KS_FOR || s->kind == KS_FOR_LANES || s->kind == KS_GROUP_REDUCE || s->kind == KS_TICKET) &&
        s->var == var)
      return true;
    if (s->kind == KS_FOR_LANES && s->var2 == var) return true;
    if (sets_local(&s->body, var)) return true;
  }
  return false;
}

static bool writes_buffer(const PtrVec *b, const KBuf *buf) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if ((s->kind == KS_STORE || s->kind == KS_ATOMIC || s->kind == KS_TICKET) && s->buf == buf) return true;
    if (writes_buffer(&s->body, buf)) return true;
  }
  return false;
}

/* Whether e has one value across lane loop s's iterations, evaluated at its start: constants, the
 * row, the tile, the training flag, locals s's body never sets, graph arrays and loads of buffers
 * the kernel never writes at such indices; not the element, the lane, shared memory. */
static bool loop_invariant(const Kernel *k, const KStmt *s, const KExpr *e, bool memory) {
  if (!e) return true;
  switch (e->kind) {
  case KE_LANE: case KE_SHARED: case KE_KEEP: return false;
  case KE_VAR:
    if (e->var == s->var || e->var == s->var2 || k->locals[e->var].len || sets_local(&s->body, e->var)) return false;
    break;
  case KE_LOAD:
    if (!memory || writes_buffer(&k->body, e->buf)) return false;
    break;
  case KE_GRAPH:
    if (!memory) return false;
    break;
  default: break;
  }
  return loop_invariant(k, s, e->a, memory) && loop_invariant(k, s, e->b, memory) && loop_invariant(k, s, e->c, memory);
}

bool kvec4_hoistable_cond(const Kernel *k, const KStmt *s, const KExpr *c) { return loop_invariant(k, s, c, false); }

bool kload_vec4(const Kernel *k, const KStmt *s, const KExpr *e) {
  if (!e || e->kind != KE_LOAD || s->kind != KS_FOR_LANES) return false;
  const KBuf *b = e->buf;
  if (b->elem != ELEM_F32 || b->cross_group || writes_buffer(&k->body, b)) return false;
  if (e->a && (b->width % 4 || !loop_invariant(k, s, e->a, true))) return false;
  const KExpr *x = e->b;
  int64_t c = 0;
  if (x && x->kind == KE_BIN && x->op == KO_ADD && x->b->kind == KE_ICONST) c = x->b->i, x = x->a;
  else if (x && x->kind == KE_BIN && x->op == KO_ADD && x->a->kind == KE_ICONST) c = x->a->i, x = x->b;
  return x && x->kind == KE_VAR && x->var == s->var && !x->a && c >= 0 && c % 4 == 0;
}

typedef struct {
  const Kernel *k;
  const KStmt *s;
  KVec4Visit f;
  void *arg;
  const KExpr *conds[8];
  int ncond, n;
} V4Loads;

/* The loads of e that every evaluation of e performs (not an arm of ?: or the right of && and ||) */
static void v4_eager_loads(V4Loads *v, const KExpr *e) {
  if (!e) return;
  if (kload_vec4(v->k, v->s, e)) {
    if (v->f) v->f(v->k, v->s, e, v->conds, v->ncond, v->arg);
    v->n++;
    return;
  }
  v4_eager_loads(v, e->a);
  if (e->kind == KE_SELECT || (e->kind == KE_BIN && (e->op == KO_AND || e->op == KO_OR))) return;
  v4_eager_loads(v, e->b);
  v4_eager_loads(v, e->c);
}

static void v4_body_loads(V4Loads *v, const PtrVec *b) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    switch (s->kind) {
    case KS_LET: case KS_STORE: case KS_ATOMIC: case KS_SHSTORE:
      v4_eager_loads(v, s->row);
      v4_eager_loads(v, s->idx);
      v4_eager_loads(v, s->val);
      break;
    case KS_IF: /* the training flag's ifs (and other conditions fixed across the loop): read before, under it */
      if (v->ncond < 8 && kvec4_hoistable_cond(v->k, v->s, s->lo)) {
        v->conds[v->ncond++] = s->lo;
        v4_body_loads(v, &s->body);
        v->ncond--;
      }
      break;
    default: break; /* inner loops: their loads stay as they are */
    }
  }
}

int kvec4_loads(const Kernel *k, const KStmt *s, KVec4Visit f, void *arg) {
  V4Loads v = {k, s, f, arg, {NULL}, 0, 0};
  v4_body_loads(&v, &s->body);
  return v.n;
}

int kstmts_count_lets(const PtrVec *b, int var) {
  int n = 0;
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    n += (s->kind == KS_LET && s->var == var) + kstmts_count_lets(&s->body, var);
  }
  return n;
}

/* kexpr_alias_loads: the emitter's current float4 registers (set around one lane loop's body) */
static const KExpr *const *alias_load;
static const char *const *alias_text;
static int nalias;

void kexpr_alias_loads(const KExpr *const *loads, const char *const *texts, int n) {
  alias_load = loads, alias_text = texts, nalias = n > 0 ? n : 0;
}

void kexpr_print(FILE *out, const Kernel *k, const KExpr *e, Dialect d) {
  if (e->kind == KE_LOAD)
    for (int i = 0; i < nalias; i++)
      if (alias_load[i] == e) {
        fputs(alias_text[i], out);
        return;
      }
  switch (e->kind) {
  case KE_FCONST: print_float(out, e->f, d); return;
  case KE_ICONST: fprintf(out, "%lld", (long long)e->i); return;
  case KE_VAR: kvar_print(out, k, e->var, e->a, d); return;
  case KE_LANE: fputs("lane", out); return;
  case KE_ROW: fputs("row", out); return;
  case KE_TRAINING: fputs("training", out); return;
  case KE_ITEM: fputs("item", out); return;
  case KE_NPIECES: fputs("npieces", out); return;
  case KE_PIECE_LEN: fputs("piece_len", out); return;
  case KE_TILE: fputs("tile", out); return;
  case KE_LOAD:
    /* what another group stored in this kernel (a hub piece's partial result): from L2, past the
     * SM's own L1, which is not coherent with the other SMs' stores */
    if (d == DIALECT_CUDA && e->buf->cross_group) fputs("__ldcg(&", out);
    fputs(e->buf->name, out);
    fputc('[', out);
    if (d == DIALECT_KIR) {
      if (e->a) {
        kexpr_print(out, k, e->a, d);
        fputs(", ", out);
      }
      kexpr_print(out, k, e->b, d);
    } else {
      if (e->a) {
        print_sub(out, k, e->a, d);
        fprintf(out, " * %lld", (long long)e->buf->width);
        if (!(e->b->kind == KE_ICONST && e->b->i == 0)) {
          fputs(" + ", out);
          print_sub(out, k, e->b, d);
        }
      } else {
        kexpr_print(out, k, e->b, d);
      }
    }
    fputc(']', out);
    if (d == DIALECT_CUDA && e->buf->cross_group) fputc(')', out);
    return;
  case KE_GRAPH:
    fprintf(out, "%s[", kgraph_name[e->garr]);
    kexpr_print(out, k, e->a, d);
    fputc(']', out);
    return;
  case KE_SHARED:
    fprintf(out, "%s[", k->shared[e->var].name);
    kexpr_print(out, k, e->a, d);
    fputc(']', out);
    return;
  case KE_BIN:
    if (e->op == KO_MIN || e->op == KO_MAX) {
      if (d == DIALECT_KIR) fprintf(out, "%s(", bin_name[e->op]);
      else fprintf(out, "%s(", e->type == KT_F32 ? (e->op == KO_MIN ? "fminf" : "fmaxf") : e->type == KT_F64 ? (e->op == KO_MIN ? "fmin" : "fmax") : (e->op == KO_MIN ? "gnn_min_i64" : "gnn_max_i64"));
      kexpr_print(out, k, e->a, d);
      fputs(", ", out);
      kexpr_print(out, k, e->b, d);
      fputc(')', out);
      return;
    }
    if (cuda_rounded_fn(e, d)) {
      fprintf(out, "%s(", cuda_rounded_fn(e, d));
      kexpr_print(out, k, e->a, d);
      fputs(", ", out);
      kexpr_print(out, k, e->b, d);
      fputc(')', out);
      return;
    }
    print_sub(out, k, e->a, d);
    fprintf(out, " %s ", bin_name[e->op]);
    print_sub(out, k, e->b, d);
    return;
  case KE_UN: {
    static const char *kir[] = {"-", "exp", "expm1", "log", "tanh", "sqrt", "rsqrt", "abs", "!", "f32", "i64", "f64"};
    static const char *c[] = {"-", "expf", "expm1f", "logf", "tanhf", "sqrtf", "gnn_rsqrtf", "fabsf", "!", "(float)", "(int64_t)", "(double)"};
    const char *name = d == DIALECT_KIR ? kir[e->op] : c[e->op];
    if (e->op == KU_NEG && kexpr_leads_with_minus(e->a)) { /* -(-x), not --x */
      fputs("-(", out);
      kexpr_print(out, k, e->a, d);
      fputc(')', out);
    } else if (e->op == KU_NEG || e->op == KU_NOT) {
      fputs(name, out);
      print_sub(out, k, e->a, d);
    } else if (d != DIALECT_KIR && (e->op == KU_TO_F32 || e->op == KU_TO_I64 || e->op == KU_TO_F64)) {
      fputs(name, out);
      print_sub(out, k, e->a, d);
    } else {
      fprintf(out, "%s(", name);
      kexpr_print(out, k, e->a, d);
      fputc(')', out);
    }
    return;
  }
  case KE_SELECT:
    print_sub(out, k, e->a, d);
    fputs(" ? ", out);
    print_sub(out, k, e->b, d);
    fputs(" : ", out);
    print_sub(out, k, e->c, d);
    return;
  case KE_KEEP:
    if (d == DIALECT_KIR) {
      fprintf(out, "keep(stream %lld, p ", (long long)e->i);
      print_float(out, e->f, d);
      fputs(", ", out);
      kexpr_print(out, k, e->a, d);
      fputc(')', out);
    } else {
      fprintf(out, "gnn_dropout_keep(seed, %lldu, (uint64_t)(", (long long)e->i);
      kexpr_print(out, k, e->a, d);
      fputs("), ", out);
      print_float(out, (float)e->f, d);
      fputc(')', out);
    }
    return;
  }
}

/* ---------------------------------------------------------------- the text form */

static void indent(FILE *out, int n) {
  for (int i = 0; i < n; i++) fputs("  ", out);
}

static void print_stmts(FILE *out, const Kernel *k, const PtrVec *b, int depth);

static void print_stmt(FILE *out, const Kernel *k, const KStmt *s, int depth) {
  indent(out, depth);
  switch (s->kind) {
  case KS_LET:
    kvar_print(out, k, s->var, s->idx, DIALECT_KIR);
    fputs(" = ", out);
    kexpr_print(out, k, s->val, DIALECT_KIR);
    break;
  case KS_STORE: case KS_ATOMIC:
    if (s->kind == KS_ATOMIC)
      fprintf(out, "atomic_%s%s ", s->op == KO_ADD ? "add" : s->op == KO_MAX ? "max" : "min", s->count == 1 ? "(block-reduced)" : "");
    fprintf(out, "%s[", s->buf->name);
    if (s->row) {
      kexpr_print(out, k, s->row, DIALECT_KIR);
      fputs(", ", out);
    }
    kexpr_print(out, k, s->idx, DIALECT_KIR);
    fputs(s->kind == KS_ATOMIC ? "], " : "] = ", out);
    kexpr_print(out, k, s->val, DIALECT_KIR);
    break;
  case KS_SHSTORE:
    fprintf(out, "%s[", k->shared[s->var].name);
    kexpr_print(out, k, s->idx, DIALECT_KIR);
    fputs("] = ", out);
    kexpr_print(out, k, s->val, DIALECT_KIR);
    break;
  case KS_FOR:
    fprintf(out, "for %s = ", k->locals[s->var].name);
    kexpr_print(out, k, s->lo, DIALECT_KIR);
    fputs(" to ", out);
    kexpr_print(out, k, s->hi, DIALECT_KIR);
    if (s->count != 1) fprintf(out, " step %lld", (long long)s->count);
    fputs(" {\n", out);
    print_stmts(out, k, &s->body, depth + 1);
    indent(out, depth);
    fputc('}', out);
    break;
  case KS_FOR_LANES:
    fprintf(out, "for %s, %s in lanes(%lld)", k->locals[s->var].name, k->locals[s->var2].name, (long long)s->count);
    if (s->lo) { /* a column tile's: elements lo .. lo + count - 1 */
      fputs(" from ", out);
      kexpr_print(out, k, s->lo, DIALECT_KIR);
    }
    fputs(" {\n", out);
    print_stmts(out, k, &s->body, depth + 1);
    indent(out, depth);
    fputc('}', out);
    break;
  case KS_IF:
    fputs("if ", out);
    kexpr_print(out, k, s->lo, DIALECT_KIR);
    fputs(" {\n", out);
    print_stmts(out, k, &s->body, depth + 1);
    indent(out, depth);
    fputc('}', out);
    break;
  case KS_BARRIER:
    fputs("barrier", out);
    break;
  case KS_GROUP_REDUCE:
    fprintf(out, "%s = group_%s(%s)", k->locals[s->var].name, s->op == KO_ADD ? "sum" : s->op == KO_MAX ? "max" : "min",
            k->locals[s->var].name);
    break;
  case KS_TICKET:
    fprintf(out, "%s = ticket %s[", k->locals[s->var].name, s->buf->name);
    kexpr_print(out, k, s->row, DIALECT_KIR);
    fputc(']', out);
    break;
  }
  fputc('\n', out);
}

static void print_stmts(FILE *out, const Kernel *k, const PtrVec *b, int depth) {
  for (int i = 0; i < b->len; i++) print_stmt(out, k, b->items[i], depth);
}

const char *kernel_mapping_desc(const Kernel *k) {
  if (k->map == MAP_VERTEX && k->rows == DOM_GRAPH) return k->graph[KG_GRAPH_PTR] ? "one group per graph, over its vertices" : "one group per graph";
  if (k->map == MAP_VERTEX)
    return k->pieces && k->dir == GATHER_BY_SRC ? "vertex-balanced over out-edges (CSC), hub rows in pieces"
           : k->pieces                          ? "vertex-balanced over in-edges (CSR), hub rows in pieces"
           : k->body.len && k->graph[KG_IN_PTR] ? "vertex-balanced over in-edges (CSR)"
           : k->graph[KG_OUT_PTR]             ? "vertex-balanced over out-edges (CSC)"
                                              : "one group per vertex";
  if (k->map == MAP_EDGE) return "edge-balanced: one group per edge";
  if (k->map == MAP_WEIGHT) return "one group per row of the weight";
  return "one group";
}

static void print_kernel(FILE *out, const Kernel *k) {
  char rows[64] = "";
  if (k->map == MAP_WEIGHT) snprintf(rows, sizeof rows, " (%lld rows)", (long long)k->nrows);
  if (k->col_tiles > 1)
    snprintf(rows, sizeof rows, ", %d column tiles of %lld", k->col_tiles, (long long)k->col_tile);
  fprintf(out, "kernel %s: %s%s, group %d%s   # %s\n", k->name, kernel_mapping_desc(k), rows, k->group,
          k->vec == 4 ? ", 4 elements a lane (float4 loads)" : "", k->what);
  for (int i = 0; i < k->nshared; i++) {
    fprintf(out, "  shared %s: %s[%d]", k->shared[i].name, ktype_name(k->shared[i].type), k->shared[i].len);
    int o = k->shared[i].storage;
    if (o >= 0) fprintf(out, " in %s's storage", o < k->nshared ? k->shared[o].name : "?");
    fputc('\n', out);
  }
  for (int i = 0; i < k->nlocals; i++) {
    const KLocal *l = &k->locals[i];
    fprintf(out, "  local %s: %s", l->name, ktype_name(l->type));
    if (l->len) fprintf(out, "[%d]", l->len);
    fputs(l->uniform ? " uniform\n" : "\n", out);
  }
  print_stmts(out, k, &k->body, 1);
}

static void print_dim(FILE *out, KDim d) {
  if (d.dom == DOM_GLOBAL) fprintf(out, "%lld", (long long)d.mult);
  else if (d.mult == 1) fputs(d.dom == DOM_VERTEX ? "nv" : d.dom == DOM_GRAPH ? "ng" : "ne", out);
  else fprintf(out, "%s*%lld", d.dom == DOM_VERTEX ? "nv" : d.dom == DOM_GRAPH ? "ng" : "ne", (long long)d.mult);
}

static const char *kind_name(KBufKind k) {
  return k == BUF_INPUT ? "input" : k == BUF_PARAM ? "param" : k == BUF_DEGREE ? "degree" : "temp";
}

void kir_print(FILE *out, const KProgram *p) {
  fprintf(out, "program %s {   # %d buffers, %d steps (%d forward, %d backward), %d kernels\n", p->name, p->bufs.len,
          p->nsteps, p->nfwd, p->nsteps - p->nfwd, p->kernels.len);
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->val && b->val->sched == SCHED_LIBRARY && b->width != shape_elems(&b->val->shape)) /* with the dots folded into it */
      fprintf(out, "  buffer %s: %s %s[%lld] (%%%d %s, then its folded dots)", b->name, kind_name(b->kind), domain_name(b->dom),
              (long long)b->width, b->val->id, shape_str(p->arena, &b->val->shape));
    else if (b->val) /* the value's own shape: param[1433, 16], temp vertex[8, 8] */
      fprintf(out, "  buffer %s: %s%s%s%s", b->name, kind_name(b->kind), b->kind == BUF_PARAM ? "" : " ",
              b->kind == BUF_PARAM ? "" : domain_name(b->dom), shape_str(p->arena, &b->val->shape));
    else
      fprintf(out, "  buffer %s: %s %s[%lld]", b->name, b->kind == BUF_TEMP ? "scratch" : kind_name(b->kind), domain_name(b->dom),
              (long long)b->width);
    if (b->elem == ELEM_I32) fputs(" i32", out);
    if (b->elem == ELEM_F64) fputs(" f64", out);
    if (b->rows_cap > 0) fprintf(out, " (at most %lld rows)", (long long)b->rows_cap);
    if (b->out >= 0) fprintf(out, " output \"%s\"", p->m->outs[b->out].name);
    if (b->kind == BUF_TEMP && b->first >= 0)
      fprintf(out, "   # steps %d..%d%s%s%s%s", b->first, b->last, b->train_only ? ", training only" : "",
              b->per_graph ? ", once per graph" : "",
              b->alias ? "; when not training, the input " : "", b->alias ? b->alias->name : "");
    fputc('\n', out);
  }
  for (int i = 0; i < p->nsteps; i++) {
    const KStep *s = &p->steps[i];
    if (i == p->nfwd) fputs("  # backward\n", out);
    fprintf(out, "  step %d ", i);
    switch (s->kind) {
    case STEP_KERNEL: fprintf(out, "kernel %s", s->kernel->name); break;
    case STEP_ZERO: fprintf(out, "zero %s", s->buf->name); break;
    case STEP_FILL:
      fprintf(out, "fill %s ", s->buf->name);
      print_float(out, s->fill, DIALECT_KIR);
      break;
    case STEP_GEMM: {
      const KGemm *g = &s->gemm;
      fprintf(out, "gemm %s[", g->c->name);
      print_dim(out, g->m);
      fputs(", ", out);
      print_dim(out, g->n);
      fprintf(out, "] = %s%s . %s%s (k = ", g->a->name, g->ta ? "^T" : "", g->b->name, g->tb ? "^T" : "");
      print_dim(out, g->k);
      fputs(g->tf32 ? ", tf32)" : ")", out);
      break;
    }
    case STEP_SPMM: {
      const KSpmm *sp = &s->spmm;
      bool in = sp->dir == GATHER_BY_DST;
      fprintf(out, "spmm %s[V, %lld] = sum over %s of %s%s . %s[%s]", sp->y->name, (long long)sp->width, in ? "in-edges e (CSR)" : "out-edges e (CSC)",
              sp->w ? sp->w->name : "", sp->w ? "[e]" : "", sp->x->name, in ? "src[e]" : "dst[e]");
      break;
    }
    }
    fprintf(out, "   # %s%s%s\n", s->train_only ? "training only: " : "", s->per_graph ? "once per graph: " : "", s->what);
  }
  fputs("}\n", out);
  for (int i = 0; i < p->kernels.len; i++) {
    fputc('\n', out);
    print_kernel(out, p->kernels.items[i]);
  }
}

/* The buffers of the kernel's block-reduced atomics (at most n), in first-use order. */
int block_targets(const PtrVec *b, const KBuf **out, int n, int have) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    if (s->kind == KS_ATOMIC && s->count == 1) {
      bool seen = false;
      for (int j = 0; j < have; j++) seen |= out[j] == s->buf;
      if (!seen && have < n) out[have++] = s->buf;
    }
    have = block_targets(&s->body, out, n, have);
  }
  return have;
}

/* ---- values that pass between lanes through memory (kernel_reads_back_across_barrier)
 *
 * The walk follows the statements in the order a lane runs them, with one state for buffer b:
 * `written` once a store or atomic to b may have run, `synced` once a barrier or group
 * reduction may have run after one. A load of b while `synced` may read what another lane
 * stored, unless it is a lane-owned read-back: every write to b is a plain store to
 * b[row, k] (or b[k]) with k a lane loop's element, and the load reads b[row, k'] (b[k']) with
 * k' one too. Elements go to lanes as k = lane + i*G in every lane loop of the kernel, so
 * element k is stored and loaded by the same lane, and that lane's program order is all that
 * is needed. A uniform loop runs its body until the state stops changing (a store late in one
 * iteration reaches a load after the barrier of the next); an `if` may or may not run its body,
 * and the state only grows, so the body's state is the join. */
typedef struct {
  const KBuf *b;
  const bool *lane_elem; /* locals that are a lane loop's element variable */
  bool any_write;        /* the kernel stores or adds to b somewhere */
  bool owned_stores;     /* every write to b is a lane-owned plain store */
  bool written, synced, reads_back;
} ReadBack;

static bool lane_owned(const ReadBack *r, const KExpr *row, const KExpr *elem) {
  return (!row || row->kind == KE_ROW) && elem && elem->kind == KE_VAR && !elem->a && r->lane_elem[elem->var];
}

static void mark_lane_elems(const PtrVec *body, bool *lane_elem) {
  for (int i = 0; i < body->len; i++) {
    const KStmt *s = body->items[i];
    if (s->kind == KS_FOR_LANES) lane_elem[s->var] = true;
    mark_lane_elems(&s->body, lane_elem);
  }
}

static void rb_check_stores(ReadBack *r, const PtrVec *body) {
  for (int i = 0; i < body->len; i++) {
    const KStmt *s = body->items[i];
    if ((s->kind == KS_STORE || s->kind == KS_ATOMIC) && s->buf == r->b) r->any_write = true;
    if (s->kind == KS_ATOMIC && s->buf == r->b) r->owned_stores = false;
    if (s->kind == KS_STORE && s->buf == r->b && !lane_owned(r, s->row, s->idx)) r->owned_stores = false;
    if (s->kind == KS_LET && r->lane_elem[s->var]) r->owned_stores = false; /* a lane element reassigned: no proof */
    rb_check_stores(r, &s->body);
  }
}

static void rb_expr(ReadBack *r, const KExpr *e) {
  if (!e) return;
  if (e->kind == KE_LOAD && e->buf == r->b && r->synced && !(r->owned_stores && lane_owned(r, e->a, e->b))) r->reads_back = true;
  rb_expr(r, e->a);
  rb_expr(r, e->b);
  rb_expr(r, e->c);
}

static void rb_stmts(ReadBack *r, const PtrVec *body) {
  for (int i = 0; i < body->len; i++) {
    const KStmt *s = body->items[i];
    rb_expr(r, s->row); /* the operands are read before the statement writes */
    rb_expr(r, s->idx);
    rb_expr(r, s->val);
    rb_expr(r, s->lo);
    rb_expr(r, s->hi);
    switch (s->kind) {
    case KS_STORE:
    case KS_ATOMIC:
      if (s->buf == r->b) r->written = true;
      break;
    case KS_BARRIER:
    case KS_GROUP_REDUCE:
      if (r->written) r->synced = true;
      break;
    case KS_FOR:
    case KS_FOR_LANES:
      for (;;) { /* at most four rounds: three bits that only grow */
        bool written = r->written, synced = r->synced, back = r->reads_back;
        rb_stmts(r, &s->body);
        rb_expr(r, s->hi); /* the bound is evaluated again before the next iteration */
        if (written == r->written && synced == r->synced && back == r->reads_back) break;
      }
      break;
    case KS_IF:
      rb_stmts(r, &s->body);
      break;
    default:
      break;
    }
  }
}

bool kernel_reads_back_across_barrier(const Kernel *k, const KBuf *b) {
  bool *lane_elem = calloc((size_t)k->nlocals + 1, 1);
  ReadBack r = {.b = b, .lane_elem = lane_elem, .owned_stores = true};
  mark_lane_elems(&k->body, lane_elem);
  rb_check_stores(&r, &k->body);
  if (r.any_write) rb_stmts(&r, &k->body); /* a buffer the kernel only reads needs no walk */
  free(lane_elem);
  return r.reads_back;
}

/* ---- shared memory per block (kir.h: GNN_SHARED_MAX) */

static int64_t ktype_bytes(KType t) { return t == KT_F32 ? 4 : 8; }

/* The float copy of float64 shared array sh (KShared.storage), or -1. */
int shared_f32_copy(const Kernel *k, int sh) {
  for (int i = 0; i < k->nshared; i++)
    if (k->shared[i].storage == sh && k->shared[i].type == KT_F32) return i;
  return -1;
}

int64_t kernel_shared_group_bytes(const Kernel *k) {
  int64_t b = 0;
  for (int i = 0; i < k->nshared; i++)
    if (k->shared[i].storage < 0) b += (int64_t)k->shared[i].len * ktype_bytes(k->shared[i].type);
  return b;
}

int64_t kernel_shared_block_bytes(const Kernel *k) {
  const KBuf *blk[8];
  int nblk = block_targets(&k->body, blk, 8, 0);
  int64_t b = 0;
  for (int i = 0; i < nblk; i++) b += blk[i]->width * 8; /* double blk_<name>[width] */
  return b;
}

int64_t kernel_shared_bytes(const Kernel *k, int gpb) {
  return (int64_t)gpb * kernel_shared_group_bytes(k) + kernel_shared_block_bytes(k);
}

int kernel_groups_per_block(const Kernel *k) {
  int gpb = GNN_CUDA_BLOCK / (k->group > 0 ? k->group : 1);
  int64_t per = kernel_shared_group_bytes(k), room = GNN_SHARED_MAX - kernel_shared_block_bytes(k);
  if (per > 0 && (int64_t)gpb * per > room) gpb = room >= per ? (int)(room / per) : 1;
  return gpb;
}
