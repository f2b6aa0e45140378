/* emit_host_expr.c -- the host C backend's expressions: a kernel-IR expression printed as C
 * (locals promoted to per-lane arrays where emit_host.c's regions need them, float selects as
 * bit masks, the flat and split loops' indices), and the queries on the IR's trees that the
 * files above it share. The bottom of compiler/emit_host*.c (emit_host_state.h). */
#include "emit_host_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool stmt_uniform(const HostK *h, const KStmt *s) {
  switch (s->kind) {
  case KS_LET: return h->k->locals[s->var].uniform;
  case KS_FOR: return h->k->locals[s->var].uniform;
  case KS_IF: return s->count == 1;
  case KS_BARRIER: case KS_GROUP_REDUCE: case KS_TICKET: return true;
  default: return false;
  }
}

/* kexpr_print's host dialect promotes every per-lane local; we promote only some, so every
 * expression that may contain a local is printed here, and only leaves are delegated. host_var:
 * a local (element idx of a promoted one); host_sub: an operand, parenthesised where needed. */
void host_var(FILE *out, const HostK *h, int v, const KExpr *idx) {
  const KLocal *l = &h->k->locals[v];
  if (h->el_h && h->promote[v] && idx && idx->kind == KE_VAR && idx->var == h->flat_i && !idx->a) { /* see emit_edge_lanes */
    fprintf(out, "gnn_rep_%s[gnn_j]", l->name);
    return;
  }
  fputs(l->name, out);
  if (h->promote[v] && idx) { /* element idx of every lane, lane-minor: acc[idx * G + lane] */
    if (h->flat_i >= 0 && idx->kind == KE_VAR && idx->var == h->flat_i && !idx->a) {
      fprintf(out, "[%s", h->k->locals[h->flat_k].name); /* k = lane + i * G: contiguous in a flat loop */
      if (h->flat_lo) { /* k = lo + lane + i * G in a column tile's loop */
        fputs(" - ", out);
        host_sub(out, h, h->flat_lo);
      }
      fputc(']', out);
      return;
    }
    fputs("[(", out);
    host_expr(out, h, idx);
    fprintf(out, ") * %d + lane]", h->k->group);
    return;
  }
  if (h->promote[v]) fputs("[lane]", out);
  if (idx) {
    fputc('[', out);
    host_expr(out, h, idx);
    fputc(']', out);
  }
}

void host_sub(FILE *out, const HostK *h, const KExpr *e) {
  bool paren = e->kind == KE_BIN && e->op != KO_MIN && e->op != KO_MAX;
  paren |= e->kind == KE_SELECT;
  if (paren) fputc('(', out);
  host_expr(out, h, e);
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

/* fn(a, b) or fn(a, b, c): a helper of the prelude or libm over operands. */
static void call(FILE *out, const HostK *h, const char *fn, const KExpr *a, const KExpr *b, const KExpr *c) {
  fprintf(out, "%s(", fn);
  host_expr(out, h, a);
  fputs(", ", out);
  host_expr(out, h, b);
  if (c) {
    fputs(", ", out);
    host_expr(out, h, c);
  }
  fputc(')', out);
}

void host_expr(FILE *out, const HostK *h, const KExpr *e) {
  static const char *bin[] = {"+", "-", "*", "/", "%", "", "", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  if (h->el_h && edge_lane_index(e, h->el_t, h->el_k, h->el_h)) { /* q itself: a contiguous access GCC can see */
    fputs("gnn_q", out);
    return;
  }
  switch (e->kind) {
  case KE_VAR:
    host_var(out, h, e->var, e->a);
    return;
  case KE_BIN:
    if (h->split && (e->op == KO_DIV || e->op == KO_MOD) && is_split(h, e)) { /* the split loop's counters */
      fprintf(out, "%s_%s", h->k->locals[h->flat_k].name, e->op == KO_DIV ? "hi" : "lo");
      return;
    }
    if (e->op == KO_MIN || e->op == KO_MAX) {
      call(out, h, e->type == KT_F32 ? (e->op == KO_MIN ? "fminf" : "fmaxf") : e->type == KT_F64 ? (e->op == KO_MIN ? "fmin" : "fmax") : (e->op == KO_MIN ? "gnn_min_i64" : "gnn_max_i64"), e->a, e->b, NULL);
      return;
    }
    host_sub(out, h, e->a);
    fprintf(out, " %s ", bin[e->op]);
    host_sub(out, h, e->b);
    return;
  case KE_SELECT:
    if (e->a->kind == KE_TRAINING && h->training >= 0) { /* unswitched: the flag is known */
      host_sub(out, h, h->training ? e->b : e->c);
      return;
    }
    /* keep(...) ? x : 0, dropout's select, without a branch: the keep bit is a coin flip that
     * a branch mispredicts half the time (4.4x the time of Cora's input dropout at -O2) */
    if (e->a->kind == KE_KEEP && e->c->kind == KE_FCONST && e->c->f == 0 && !signbit(e->c->f) &&
        (e->type == KT_F32 || e->type == KT_F64)) {
      call(out, h, e->type == KT_F32 ? "gnn_keep_f32" : "gnn_keep_f64", e->a, e->b, NULL);
      return;
    }
    if (bitwise_select(e)) { /* both arms computed, one kept by a mask: no branch for GCC to if-convert */
      call(out, h, e->type == KT_F32 ? "gnn_sel_f32" : "gnn_sel_f64", e->a, e->b, e->c);
      return;
    }
    host_sub(out, h, e->a);
    fputs(" ? ", out);
    host_sub(out, h, e->b);
    fputs(" : ", out);
    host_sub(out, h, e->c);
    return;
  default:
    break;
  }
  /* The forms whose children may hold locals are printed here too; leaves are delegated. */
  switch (e->kind) {
  case KE_UN: {
    /* exp, expm1 and tanh are the prelude's branch-free ones, which vectorise (libm's are calls) */
    static const char *c[] = {"-", "gnn_expf", "gnn_expm1f", "logf", "gnn_tanhf", "sqrtf", "gnn_rsqrtf", "fabsf", "!", "(float)", "(int64_t)", "(double)"};
    if (e->op == KU_NEG && kexpr_leads_with_minus(e->a)) { /* -(-x), not --x */
      fputs("-(", out);
      host_expr(out, h, e->a);
      fputc(')', out);
    } else if (e->op == KU_NEG || e->op == KU_NOT || e->op == KU_TO_F32 || e->op == KU_TO_I64 || e->op == KU_TO_F64) {
      fputs(c[e->op], out);
      host_sub(out, h, e->a);
    } else {
      fprintf(out, "%s(", c[e->op]);
      host_expr(out, h, e->a);
      fputc(')', out);
    }
    return;
  }
  case KE_LOAD:
    fprintf(out, "%s[", e->buf->name);
    if (e->a) {
      host_sub(out, h, e->a);
      fprintf(out, " * %lld", (long long)e->buf->width);
      if (!(e->b->kind == KE_ICONST && e->b->i == 0)) {
        fputs(" + ", out);
        host_sub(out, h, e->b);
      }
    } else {
      host_expr(out, h, e->b);
    }
    fputc(']', out);
    return;
  case KE_GRAPH: case KE_SHARED: {
    fprintf(out, "%s[", e->kind == KE_GRAPH ? kgraph_name[e->garr] : h->k->shared[e->var].name);
    host_expr(out, h, e->a);
    fputc(']', out);
    return;
  }
  case KE_TRAINING:
    fputs(h->training < 0 ? "training" : h->training ? "1" : "0", out);
    return;
  case KE_KEEP:
    fprintf(out, "gnn_dropout_keep(seed, %lldu, (uint64_t)(", (long long)e->i);
    host_expr(out, h, e->a);
    fputs("), ", out);
    kexpr_print(out, h->k, &(KExpr){.kind = KE_FCONST, .type = KT_F32, .f = (float)e->f}, DIALECT_HOST);
    fputc(')', out);
    return;
  default:
    kexpr_print(out, h->k, e, DIALECT_HOST);
  }
}

static bool expr_has_training(const KExpr *e) {
  return e && (e->kind == KE_TRAINING || expr_has_training(e->a) || expr_has_training(e->b) || expr_has_training(e->c));
}
bool stmt_has_training(const KStmt *s) {
  if (expr_has_training(s->row) || expr_has_training(s->idx) || expr_has_training(s->val) ||
      expr_has_training(s->lo) || expr_has_training(s->hi))
    return true;
  for (int i = 0; i < s->body.len; i++)
    if (stmt_has_training(s->body.items[i])) return true;
  return false;
}

/* An `if (training)` or `if (!training)`: 1 when its body runs, 0 when it does not (the flag known:
 * an unswitched copy), 2 when the flag is not known (a lane loop that reads it prints twice, the
 * flag known in each: emit_host.c); -1 for any other statement. */
int training_if_taken(const HostK *h, const KStmt *s) {
  if (s->kind != KS_IF) return -1;
  bool neg = s->lo->kind == KE_UN && s->lo->op == KU_NOT && s->lo->a->kind == KE_TRAINING;
  if (s->lo->kind != KE_TRAINING && !neg) return -1;
  return h->training < 0 ? 2 : neg ? !h->training : h->training;
}

bool reads_var(const KExpr *e, int var) {
  return e && ((e->kind == KE_VAR && e->var == var) || reads_var(e->a, var) || reads_var(e->b, var) || reads_var(e->c, var));
}

bool reads_shared_array(const KExpr *e, int sh) {
  return e && ((e->kind == KE_SHARED && e->var == sh) || reads_shared_array(e->a, sh) || reads_shared_array(e->b, sh) ||
               reads_shared_array(e->c, sh));
}

/* The element index t * H + k (or t + k where H = 1) of the edge loop's t and the lane loop's k. */
bool edge_lane_index(const KExpr *x, int t, int k, int64_t nh) {
  if (!x || x->kind != KE_BIN || x->op != KO_ADD) return false;
  const KExpr *a = x->a, *b = x->b;
  if (!(b->kind == KE_VAR && b->var == k && !b->a)) return false;
  if (nh == 1 && a->kind == KE_VAR && a->var == t && !a->a) return true;
  return a->kind == KE_BIN && a->op == KO_MUL && a->a->kind == KE_VAR && a->a->var == t && !a->a->a && a->b->kind == KE_ICONST &&
         a->b->i == nh;
}
