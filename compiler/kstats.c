/* kstats.c -- the kernel IR's accounting for --stats: bytes moved per step, its arithmetic (the
 * floating-point operations of its statements, block_bytes and stmt_ops: counted with the bytes'
 * multipliers, docs/passes/fuse.md says what is counted), the fused program's arithmetic against
 * the unfused one's (kprog_ops_check's warning), and the memory plan.
 *
 * Bytes are counted the way the paper counts IO (section 5): the rows a kernel reads and writes,
 * at the element size of their buffers, at the given |V| and |E|. A walk over the edges of every
 * vertex runs its body |E| times in all (once per edge); in one run of a walk's body (one edge),
 * or of the kernel's body outside walks (one row), a row of a buffer counts once per element it
 * reads, however many loads touch it (repeats hit registers or the cache: the distinct elements
 * where the loads' element indices are made of loop counters, elem_enum; in a walk, the far end
 * the chunk's stage loads and the one its edge loop loads are one row, same_row), and a load of the
 * kernel's own row inside a walk counts once per row, not per edge; a load of the kernel's own
 * row of a buffer it stored there before (a root read back by a later root or sum of the same
 * kernel) is not counted: the row is in the cache it was just written through; nor is a
 * block-reduced sum's add (shared memory, one flush a block). Stores count every
 * execution; a conditional store (a stash under `if (training)`) is counted as if taken, so the
 * training forward is what is counted, and what runs only when not training (`if (!training)`:
 * an f64 sum's float messages, lower_walk.c) is not counted (its loads are the training path's
 * again: counted twice, a tile's gathered row would look twice as wide). The one exception,
 * kprog_stats' line on the inference forward, counts the other way (Acct.untrained: `if training`
 * skipped, `if !training` counted, the training-only steps left out). Graph arrays (offsets,
 * edge ends) are not counted, as in the paper. A GEMM reads its two operands and writes its result once (cuBLAS' compulsory
 * traffic). The memory plan is gnn_plan_arena's (runtime/gnn_model.h), the one the generated
 * create() computes, here at the given sizes: the training arena (forward and backward) and the
 * inference arena (the forward without the stashes the backward reads).
 */
#include "gnn_model.h" /* gnn_plan_arena: the plan the generated create() makes */
#include "gnnrt_pieces.h" /* gnn_piece_len: a hub piece's code runs at most 2E / L times */

#include <math.h>
#undef GNN_PRINTF      /* arena.h has its own */
#include "kstats.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const KBuf *buf;
  const KExpr *row;  /* NULL for one-row buffers */
  double count;      /* element reads per execution of the scope whose elements are not known (below) */
  unsigned char *elems; /* the elements read, where every load's element index could be enumerated
                           (elem_enum): a row's distinct elements, however many loops read them;
                           NULL for a buffer wider than ELEM_MAP_MAX */
  double scope;      /* executions of the scope (rows, or edges in a walk) */
  bool per_edge;     /* the scope runs once per edge (a walk's body, a kernel over edges) */
} Site;

/* A loop whose variable takes known values (a FOR with constant bounds, a lane loop over elements
 * 0 .. count - 1): what an element index made of loop variables can be. */
typedef struct {
  int var;
  int64_t lo, hi, step;
} Binding;

enum { ELEM_MAP_MAX = 1 << 16, ELEM_ENUM_MAX = 1 << 16, MAX_BINDINGS = 16 };

/* Every allocation of the accounting goes through here. It runs inside gnnc (--stats,
 * --print-memory-plan, --memory-budget, --gpu), a short-lived process: out of memory, it says so
 * and exits 1, as lower_fused.c's kernel_what does, rather than writing through NULL or printing
 * figures it could not count. */
static void *checked(void *p) {
  if (!p) {
    fputs("gnnc: error: out of memory counting the kernel program's bytes and operations\n", stderr);
    exit(1);
  }
  return p;
}

typedef struct {
  double V, E;
  bool edge_kernel;  /* the kernel's rows are edges */
  double tile_elems; /* a kernel in column tiles: the elements of a tiled lane loop, on average over the
                        tiles (the last may be shorter); else 0 */
  double read, write;
  double ops;        /* arithmetic operations (stmt_ops), every execution */
  int group;         /* the kernel's lanes per group (a group reduction's adds) */
  Site *sites;
  int nsites, cap;
  const KBuf *stored[16]; /* buffers this kernel has stored at its own row so far */
  int nstored;
  bool untrained;    /* count the forward of training = 0: `if training` blocks skipped, `if !training` ones counted */
  Binding bind[MAX_BINDINGS]; /* the loops around the statement being counted whose variables are known */
  int nbind;
  const KStmt *walk; /* the walk being counted (NULL outside walks) */
  const KExpr **def; /* per local: the value its last scalar LET gave it (NULL: none) */
  const KStmt **def_walk; /* per local: the walk that LET was in */
  int nlocals;
  unsigned char *mark; /* elem_enum's scratch map of one load's elements, mark_cap bytes, reused by every
                          load of the step (grown to the widest row enumerated, at most ELEM_MAP_MAX + 1),
                          not a calloc per load */
  int64_t mark_cap;
} Acct;

/* A batch's graphs are counted as its vertices: an upper bound (each graph has one at least). */
static double rows_of(Domain d, double V, double E) { return d == DOM_VERTEX || d == DOM_GRAPH ? V : d == DOM_EDGE ? E : 1; }
/* A buffer's rows: its domain's, or at most rows_cap (the hub pieces' buffers). */
static double buf_rows(const KBuf *b, double V, double E) {
  double r = rows_of(b->dom, V, E);
  return b->rows_cap > 0 && r > (double)b->rows_cap ? (double)b->rows_cap : r;
}

static double elem_bytes(ElemType e) { return e == ELEM_F64 ? 8 : 4; }

/* Two row expressions that pick the same row per execution of their scope: the same local, the
 * kernel's row, or in a walk two locals loaded from the same shared array of that walk's chunk
 * (lower_walk.c: the lane that stages edge j0 + l reads its far end as sh_u[lane], the loop over
 * the chunk's edges as sh_u[t]; both run once for each edge of the chunk, so per edge they are
 * the same row: counted as two rows, GAT's backward k10 read t8 twice an edge). */
static bool same_row(const Acct *ac, const KExpr *a, const KExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind == KE_VAR) {
    if (a->var == b->var) return true;
    if (a->var >= ac->nlocals || b->var >= ac->nlocals) return false;
    const KExpr *da = ac->def[a->var], *db = ac->def[b->var];
    return da && db && da->kind == KE_SHARED && db->kind == KE_SHARED && da->var == db->var &&
           ac->def_walk[a->var] && ac->def_walk[a->var] == ac->def_walk[b->var];
  }
  return a->kind == KE_ROW;
}

/* The value of an integer index expression for the bindings' current values in vals; false where
 * it reads anything else (a local that is not a bound loop variable, the lane, a tile). */
static bool elem_eval(const Acct *a, const KExpr *e, const int64_t *vals, int64_t *out) {
  int64_t x, y, z;
  switch (e->kind) {
  case KE_ICONST: *out = e->i; return true;
  case KE_VAR:
    if (e->a) return false; /* a register array's element */
    for (int i = a->nbind - 1; i >= 0; i--)
      if (a->bind[i].var == e->var) return *out = vals[i], true;
    return false;
  case KE_BIN:
    if (e->type != KT_I64 || !elem_eval(a, e->a, vals, &x) || !elem_eval(a, e->b, vals, &y)) return false;
    switch (e->op) {
    case KO_ADD: *out = x + y; return true;
    case KO_SUB: *out = x - y; return true;
    case KO_MUL: *out = x * y; return true;
    case KO_DIV: return y != 0 && (*out = x / y, true);
    case KO_MOD: return y != 0 && (*out = x % y, true);
    case KO_MIN: *out = x < y ? x : y; return true;
    case KO_MAX: *out = x > y ? x : y; return true;
    case KO_LT: *out = x < y; return true;
    case KO_LE: *out = x <= y; return true;
    case KO_GT: *out = x > y; return true;
    case KO_GE: *out = x >= y; return true;
    case KO_EQ: *out = x == y; return true;
    case KO_NE: *out = x != y; return true;
    case KO_AND: *out = x && y; return true;
    case KO_OR: *out = x || y; return true;
    }
    return false;
  case KE_SELECT:
    if (e->type != KT_I64 || !elem_eval(a, e->a, vals, &x) || !elem_eval(a, e->b, vals, &y) || !elem_eval(a, e->c, vals, &z))
      return false;
    *out = x ? y : z;
    return true;
  default: return false;
  }
}

/* Marks in map (width bytes) every element the index idx reads over the bound loops' values.
 * False, nothing marked, where idx reads something else, takes too many values to enumerate, or
 * falls outside the row: the caller then counts the load's reads as they are. */
static bool elem_enum(Acct *a, const KExpr *idx, int64_t width, unsigned char *map) {
  double combos = 1;
  for (int i = 0; i < a->nbind; i++) {
    const Binding *b = &a->bind[i];
    combos *= b->hi > b->lo ? (double)((b->hi - b->lo + b->step - 1) / b->step) : 0;
  }
  if (combos > ELEM_ENUM_MAX) return false;
  if (combos == 0) return true; /* a loop that never runs reads nothing */
  int64_t vals[MAX_BINDINGS];
  if (width + 1 > a->mark_cap) { /* (+ 1: never a 0-byte block, which may come back NULL) */
    a->mark = checked(realloc(a->mark, (size_t)width + 1));
    a->mark_cap = width + 1;
  }
  unsigned char *mark = a->mark;
  memset(mark, 0, (size_t)width);
  for (int i = 0; i < a->nbind; i++) vals[i] = a->bind[i].lo;
  for (;;) {
    int64_t x;
    if (!elem_eval(a, idx, vals, &x) || x < 0 || x >= width) return false;
    mark[x] = 1;
    int i = a->nbind - 1; /* the next combination, the innermost loop fastest */
    for (; i >= 0; i--) {
      vals[i] += a->bind[i].step;
      if (vals[i] < a->bind[i].hi) break;
      vals[i] = a->bind[i].lo;
    }
    if (i < 0) break;
  }
  for (int64_t k = 0; k < width; k++) map[k] |= mark[k];
  return true;
}

/* A load of buf at row, `mult` times per execution of its scope: reads of one row in one scope
 * count once per element (a row is read from memory once per edge or per vertex; repeats hit
 * the cache). A load of the kernel's own row inside a walk is a per-row read, not per edge. */
static void site(Acct *a, const KBuf *b, const KExpr *row, const KExpr *idx, double mult, double scope, double row_scope,
                 bool in_walk) {
  if (row && row->kind == KE_ROW)
    for (int i = 0; i < a->nstored; i++)
      if (a->stored[i] == b) return; /* written by this kernel at this row: cached */
  bool per_edge = in_walk || a->edge_kernel;
  if (row && row->kind == KE_ROW) scope = row_scope, per_edge = a->edge_kernel;
  Site *s = NULL;
  for (int i = 0; i < a->nsites && !s; i++)
    if (a->sites[i].buf == b && same_row(a, a->sites[i].row, row) && a->sites[i].scope == scope && a->sites[i].per_edge == per_edge)
      s = &a->sites[i];
  if (!s) {
    if (a->nsites == a->cap) {
      a->cap = a->cap ? 2 * a->cap : 32;
      a->sites = checked(realloc(a->sites, sizeof(Site) * (size_t)a->cap));
    }
    s = &a->sites[a->nsites++];
    *s = (Site){b, row, 0, b->width <= ELEM_MAP_MAX ? checked(calloc((size_t)b->width + 1, 1)) : NULL, scope, per_edge};
  }
  /* the elements it reads, where they can be enumerated (two loops over the same 7 of a 9-wide
   * row read 7, not min(14, 9)); else its reads per execution, as many elements */
  if (!s->elems || !idx || !elem_enum(a, idx, b->width, s->elems)) s->count += mult;
}

/* mult: executions per scope execution; scope: executions of the scope in all. */
static void expr_bytes(Acct *a, const KExpr *e, double mult, double scope, double row_scope, bool in_walk) {
  if (!e) return;
  if (e->kind == KE_LOAD) site(a, e->buf, e->a, e->b, mult, scope, row_scope, in_walk);
  expr_bytes(a, e->a, mult, scope, row_scope, in_walk);
  expr_bytes(a, e->b, mult, scope, row_scope, in_walk);
  expr_bytes(a, e->c, mult, scope, row_scope, in_walk);
}

/* The arithmetic of one evaluation of e: its floating-point operators (a binary or unary one, a
 * select, a conversion to a float, a comparison of floats) and a dropout's keep (its hash, as 1);
 * integer arithmetic (rows, indices, loop bounds, the graph's arrays) is addressing, not counted.
 * A node the expression reads twice (relu's x > 0 ? x : 0) counts once: the code evaluates it
 * once (a C compiler's CSE). What a load reads is counted where it was computed. */
typedef struct {
  const KExpr **seen;
  int n, cap;
} Seen;

static double expr_ops_in(const KExpr *e, Seen *sn) {
  if (!e) return 0;
  bool op = e->kind == KE_BIN || e->kind == KE_UN || e->kind == KE_SELECT;
  if (!op && e->kind != KE_KEEP && !e->a && !e->b && !e->c) return 0;
  for (int i = 0; i < sn->n; i++)
    if (sn->seen[i] == e) return 0;
  if (sn->n == sn->cap) {
    sn->cap = sn->cap ? 2 * sn->cap : 64;
    sn->seen = checked(realloc(sn->seen, sizeof(KExpr *) * (size_t)sn->cap));
  }
  sn->seen[sn->n++] = e;
  double n = 0;
  if (op)
    n = e->type != KT_I64 || (e->kind != KE_SELECT && e->a && e->a->type != KT_I64) || (e->kind == KE_BIN && e->b->type != KT_I64);
  else if (e->kind == KE_KEEP) n = 1;
  return n + expr_ops_in(e->a, sn) + expr_ops_in(e->b, sn) + expr_ops_in(e->c, sn);
}

/* The arithmetic of one execution of a statement: its expressions', a shared node once. */
static double stmt_ops(const KStmt *s) {
  Seen sn = {NULL, 0, 0};
  double n = expr_ops_in(s->row, &sn) + expr_ops_in(s->idx, &sn) + expr_ops_in(s->val, &sn) + expr_ops_in(s->lo, &sn) +
             expr_ops_in(s->hi, &sn);
  free(sn.seen);
  return n;
}

/* `!training`: code the training forward does not run. */
static bool untrained_only(const KExpr *c) { return c && c->kind == KE_UN && c->op == KU_NOT && c->a->kind == KE_TRAINING; }
/* `training`: code an inference forward does not run (the stores of stashes). */
static bool trained_only(const KExpr *c) { return c && c->kind == KE_TRAINING; }

/* `item < npieces`: the code a kernel over hub pieces runs in a piece's group only. */
static bool piece_only(const KExpr *c) {
  return c && c->kind == KE_BIN && c->op == KO_LT && c->a->kind == KE_ITEM && c->b->kind == KE_NPIECES;
}

/* ochunk: the arithmetic's share of the executions counted (1, or in a chunk's lane loops: its
 * chunks per edge); chunk: b is the body of a walk over chunks of edges, and that share (else 0). */
static void block_bytes(Acct *a, const PtrVec *b, double mult, double scope, double row_scope, bool in_walk, double ochunk,
                        double chunk) {
  for (int i = 0; i < b->len; i++) {
    const KStmt *s = b->items[i];
    /* a walk over chunks of c edges (lower_walk.c: each lane loads an edge of the chunk under `if
     * jj < hi`, a loop over the chunk's edges, the chunk's partial sums added to the row's): the
     * bytes count the chunk's statements per edge (its loads are the edges'); the arithmetic of
     * its other statements (lane loops: the partial sums zeroed and added) runs once per chunk */
    if (chunk > 0) ochunk = (s->kind == KS_IF && s->count != 1) || s->kind == KS_FOR ? 1 : chunk;
    /* the training forward is counted, or with a->untrained the inference one */
    if (s->kind == KS_IF && (a->untrained ? trained_only(s->lo) : untrained_only(s->lo))) continue;
    expr_bytes(a, s->row, mult, scope, row_scope, in_walk);
    expr_bytes(a, s->idx, mult, scope, row_scope, in_walk);
    expr_bytes(a, s->val, mult, scope, row_scope, in_walk);
    expr_bytes(a, s->lo, mult, scope, row_scope, in_walk);
    expr_bytes(a, s->hi, mult, scope, row_scope, in_walk);
    /* a local's value, for same_row (the chunk's far end loaded twice in a walk) */
    if (s->kind == KS_LET && !s->idx && s->var < a->nlocals) a->def[s->var] = s->val, a->def_walk[s->var] = a->walk;
    double w = mult * scope * elem_bytes(s->buf ? s->buf->elem : ELEM_F32);
    /* the arithmetic, counted as the bytes are: per element of a lane loop, per edge of a walk,
     * nested loops multiplied; an atomic's add 1, a group reduction's G - 1 (a tree of adds) */
    double ops = stmt_ops(s);
    if (s->kind == KS_ATOMIC) ops += 1;
    if (s->kind == KS_GROUP_REDUCE) ops += a->group - 1;
    a->ops += mult * scope * ochunk * ops;
    if (s->kind == KS_STORE) {
      a->write += w;
      if (s->row && s->row->kind == KE_ROW && a->nstored < 16) a->stored[a->nstored++] = s->buf;
    }
    /* a block-reduced sum (count 1) adds into the block's shared sums (the host: the thread's),
     * flushed once per block: no traffic per row */
    if (s->kind == KS_ATOMIC && s->count != 1) a->read += w, a->write += w;
    double m = mult, sc = scope, oc = ochunk, ch = 0;
    bool wk = in_walk;
    const KStmt *walk = a->walk;
    int nbind = a->nbind;
    Binding bind = {-1, 0, 0, 1}; /* the loop's variable and its values, where known (elem_enum) */
    if (s->kind == KS_IF && piece_only(s->lo)) { /* a hub piece's code: at most 2E / L pieces (gnnrt_pieces.h) */
      double pieces = 2 * a->E / (double)gnn_piece_len((int64_t)a->V, (int64_t)a->E);
      if (pieces < row_scope) sc = scope * pieces / row_scope;
    } else if (s->kind == KS_FOR && s->walk) {
      if (!in_walk) m = 1, sc = a->E * scope / row_scope; /* every edge of every row, once */
      /* chunks of c edges: a row of the average degree's ceil(E / (rows c)) per row */
      if (!in_walk && s->count > 1 && sc > 0) {
        double chunks = scope * ceil(a->E / (row_scope * (double)s->count));
        ch = chunks < sc ? chunks / sc : 1;
      }
      wk = true;
      a->walk = s;
      nbind = a->nbind, a->nbind = 0; /* its body counts per edge (m = 1): the loops outside are not its reads' */
    } else if (s->kind == KS_FOR && s->lo->kind == KE_ICONST && s->hi->kind == KE_ICONST) {
      m = mult * (double)((s->hi->i - s->lo->i + s->count - 1) / (s->count ? s->count : 1));
      if (s->count > 0) bind = (Binding){s->var, s->lo->i, s->hi->i, s->count};
    } else if (s->kind == KS_FOR_LANES) {
      m = mult * (s->lo && a->tile_elems > 0 ? a->tile_elems : (double)s->count);
      if (!s->lo) bind = (Binding){s->var, 0, s->count, 1}; /* a column tile's start is not known */
    }
    bool bound = bind.var >= 0 && a->nbind < MAX_BINDINGS;
    if (bound) a->bind[a->nbind++] = bind;
    block_bytes(a, &s->body, m, sc, row_scope, wk, oc, ch);
    if (bound) a->nbind--;
    a->walk = walk;
    a->nbind = nbind;
  }
}

/* A gathered read: a vertex buffer's row picked by the graph, once per edge (x[src] in a walk,
 * or in a kernel over edges), not the kernel's own row. Its locality is the graph's, which
 * gpucost.c simulates; every other read streams. */
static bool gathered(const Site *s) {
  return s->buf->dom == DOM_VERTEX && s->row && s->row->kind != KE_ROW && s->per_edge;
}

static void flush_sites(Acct *a, KTraffic *t) {
  for (int i = 0; i < a->nsites; i++) {
    const Site *s = &a->sites[i];
    double n = s->count;
    if (s->elems)
      for (int64_t k = 0; k < s->buf->width; k++) n += s->elems[k];
    if (n > (double)s->buf->width) n = (double)s->buf->width;
    free(s->elems);
    double bytes = n * s->scope * elem_bytes(s->buf->elem);
    a->read += bytes;
    if (t && gathered(s)) {
      t->gathered += bytes;
      double row = n * elem_bytes(s->buf->elem);
      t->gather_row_sectors += (double)(int64_t)((row + 31) / 32); /* DRAM moves 32-byte sectors */
    }
  }
  free(a->sites);
  a->sites = NULL;
  a->nsites = a->cap = 0;
}

static double kernel_rows(const Kernel *k, double V, double E) {
  return k->rows == DOM_PARAM ? (double)k->nrows : rows_of(k->rows, V, E);
}

static double dim_val(KDim d, double V, double E) { return (double)d.mult * rows_of(d.dom, V, E); }

/* Bytes read and written by step i (and, with t, what of it is gathered, and a GEMM's FLOPs). */
static void step_traffic(const KStep *s, double V, double E, double *rd, double *wr, KTraffic *t, bool untrained) {
  Acct a = {V, E, false, 0, 0, 0, 0, 1, NULL, 0, 0, {NULL}, 0, untrained, {{0, 0, 0, 0}}, 0, NULL, NULL, NULL, 0, NULL, 0};
  if (t) memset(t, 0, sizeof *t);
  if (s->kind == STEP_KERNEL) {
    double r = kernel_rows(s->kernel, V, E);
    a.nlocals = s->kernel->nlocals;
    a.def = checked(calloc((size_t)a.nlocals + 1, sizeof *a.def));
    a.def_walk = checked(calloc((size_t)a.nlocals + 1, sizeof *a.def_walk));
    a.edge_kernel = s->kernel->rows == DOM_EDGE;
    a.group = s->kernel->group;
    if (s->kernel->col_tiles > 1) a.tile_elems = (double)s->kernel->col_width / s->kernel->col_tiles;
    block_bytes(&a, &s->kernel->body, 1, r, r, false, 1, 0);
    flush_sites(&a, t);
    free(a.def);
    free(a.def_walk);
    free(a.mark);
    if (s->kernel->col_tiles > 1) { /* column tiles: the body counted is one tile's, run in every tile */
      a.read *= s->kernel->col_tiles, a.write *= s->kernel->col_tiles, a.ops *= s->kernel->col_tiles;
      if (t) t->gathered *= s->kernel->col_tiles; /* (gather_row_sectors: one tile's row, what gpucost.c caches) */
    }
  } else if (s->kind == STEP_GEMM) {
    double M = dim_val(s->gemm.m, V, E), N = dim_val(s->gemm.n, V, E), K = dim_val(s->gemm.k, V, E);
    a.read = 4 * (M * K + K * N);
    a.write = 4 * M * N;
    if (t) t->flops = 2 * M * N * K;
    a.ops = 2 * M * N * K;
  } else if (s->kind == STEP_SPMM) {
    /* as runtime/spmm_cuda.cu runs it: the offsets narrowed to int32 (8 bytes read, 4 written and
     * read back a vertex), the far ends and the values (4 + 4 bytes an edge), the gathered rows of
     * x (each edge's row whole: gpucost.c gives them the graph's locality), y written; values made
     * first over out-edges (out_eid and the weights read, written in CSC order) and without
     * weights (ones written) */
    const KSpmm *sp = &s->spmm;
    double row = 4 * (double)sp->width;
    a.read = 12 * (V + 1) + 8 * E + E * row;
    a.write = 4 * (V + 1) + V * row;
    if (!sp->w || sp->dir == GATHER_BY_SRC) a.write += 4 * E, a.read += sp->w ? 8 * E : 0;
    if (t) t->gathered = E * row, t->gather_row_sectors = ceil(row / 32);
    a.ops = (sp->w ? 2 : 1) * E * (double)sp->width; /* a multiply-add per edge and column (no weights: an add) */
  } else {
    a.write = buf_rows(s->buf, V, E) * (double)s->buf->width * elem_bytes(s->buf->elem);
  }
  *rd = a.read;
  *wr = a.write;
  if (t) t->read = a.read, t->write = a.write, t->ops = a.ops;
}

static void step_bytes(const KStep *s, double V, double E, double *rd, double *wr) { step_traffic(s, V, E, rd, wr, NULL, false); }

const char *kstats_step_name(const KStep *s) {
  switch (s->kind) {
  case STEP_KERNEL: return s->kernel->name;
  case STEP_GEMM: return "gemm";
  case STEP_SPMM: return "spmm";
  case STEP_ZERO: return "zero";
  case STEP_FILL: return "fill";
  }
  return "?";
}

KTraffic kstats_step_traffic(const KStep *s, double V, double E) {
  KTraffic t;
  double rd, wr;
  step_traffic(s, V, E, &rd, &wr, &t, false);
  return t;
}

/* The bytes of a step of every forward and backward (per_graph 0), or of the hoist pass's steps that
 * run once per graph (per_graph 1: the graph's own values, computed by the first forward on a
 * graph and kept in the arena; not a cost of every step, as gpucost.c does not count them either). */
static void totals(const KProgram *p, double V, double E, bool per_graph, double *rd, double *wr) {
  *rd = *wr = 0;
  for (int i = 0; i < p->nsteps; i++) {
    if (p->steps[i].per_graph != per_graph) continue;
    double r, w;
    step_bytes(&p->steps[i], V, E, &r, &w);
    *rd += r;
    *wr += w;
  }
}

/* The bytes of every forward's steps (per_graph ones apart), with untrained those of an inference
 * forward (training = 0): its training-only steps (an input's dropout, a kernel of stashes alone)
 * skipped, and in the others the stores under `if training` (stashes). Returns the steps counted;
 * *launches: those of them that are not GEMMs or SpMMs. */
static int forward_totals(const KProgram *p, double V, double E, bool untrained, double *rd, double *wr, int *launches) {
  int n = 0;
  *rd = *wr = 0;
  *launches = 0;
  for (int i = 0; i < p->nfwd; i++) {
    const KStep *s = &p->steps[i];
    if (s->per_graph || (untrained && s->train_only)) continue;
    double r, w;
    step_traffic(s, V, E, &r, &w, NULL, untrained);
    *rd += r;
    *wr += w;
    n++;
    *launches += s->kind != STEP_GEMM && s->kind != STEP_SPMM;
  }
  return n;
}

static bool is_out(const KBuf *b) { return b->out >= 0; }

/* The arenas at V, E: training (all temporaries) and inference (the forward's, no stashes). */
static void arenas(const KProgram *p, double V, double E, double *train, double *infer, double *unshared) {
  int n = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    n += b->kind == BUF_TEMP && !is_out(b);
  }
  size_t *size = checked(calloc((size_t)n + 1, sizeof(size_t))), *size_i = checked(calloc((size_t)n + 1, sizeof(size_t)));
  size_t *off = checked(calloc((size_t)n + 1, sizeof(size_t)));
  int *first = checked(calloc((size_t)n + 1, sizeof(int))), *last = checked(calloc((size_t)n + 1, sizeof(int)));
  int *last_i = checked(calloc((size_t)n + 1, sizeof(int))), *order = checked(calloc((size_t)n + 1, sizeof(int)));
  int k = 0;
  *unshared = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind != BUF_TEMP || is_out(b)) continue;
    double bytes = buf_rows(b, V, E) * (double)b->width * elem_bytes(b->elem); /* <= 2^31 x 2^24 x 8 */
    size[k] = (size_t)bytes;
    size_i[k] = !b->bwd && !b->train_only && b->first < p->nfwd ? size[k] : 0;
    first[k] = b->first;
    last[k] = b->last;
    last_i[k] = b->last < p->nfwd ? b->last : p->nfwd - 1;
    *unshared += (double)size[k];
    k++;
  }
  if (*unshared < 0x1p62) {
    *train = (double)gnn_plan_arena(n, size, first, last, off, order);
    *infer = (double)gnn_plan_arena(n, size_i, first, last_i, off, order);
  } else { /* past what size_t offsets can place (only rows of millions of elements at V near
            * 2^31 come here): the unshared sum, an upper bound, rather than a wrapped one */
    *train = *infer = *unshared;
  }
  free(size), free(size_i), free(off), free(first), free(last), free(last_i), free(order);
}

/* n with a decimal prefix of units[0..4] (none, k, M, G, T), in one of 4 rotating static buffers:
 * a line may print four such numbers. */
static const char *human(double n, const char *const units[5]) {
  static char buf[4][32];
  static int i;
  i = (i + 1) % 4;
  int k = 0;
  double scale = 1;
  while (k < 4 && units[k + 1] && n >= scale * 1e3) k++, scale *= 1e3;
  if (k) snprintf(buf[i], sizeof buf[i], "%.2f %s", n / scale, units[k]);
  else snprintf(buf[i], sizeof buf[i], "%.0f%s%s", n, *units[0] ? " " : "", units[0]);
  return buf[i];
}

/* "840 B", "4.20 kB", "1.30 GB": bytes for people. */
const char *kstats_human(double b) {
  static const char *const units[5] = {"B", "kB", "MB", "GB", NULL};
  return human(b, units);
}

/* "840", "4.20 k", "1.30 G": an operation count for people. */
const char *kstats_ops_human(double n) {
  static const char *const units[5] = {"", "k", "M", "G", "T"};
  return human(n, units);
}

/* A pass's arithmetic at V, E: kernels' (element-wise) and GEMMs' and SpMMs' apart. */
typedef struct {
  double kern[2], dense[2]; /* [0] forward, [1] backward */
} Ops;

static Ops prog_ops(const KProgram *p, double V, double E) {
  Ops o = {{0, 0}, {0, 0}};
  for (int i = 0; i < p->nsteps; i++) {
    if (p->steps[i].per_graph) continue; /* once per graph, not every pass's (totals) */
    KTraffic t = kstats_step_traffic(&p->steps[i], V, E);
    int d = i >= p->nfwd;
    if (p->steps[i].kind == STEP_KERNEL) o.kern[d] += t.ops;
    else o.dense[d] += t.ops;
  }
  return o;
}

void kprog_stats(FILE *out, const KProgram *p, const KProgram *unfused, double V, double E) {
  fprintf(out, "kernel stats at V=%.17g, E=%.17g (bytes each step reads and writes, its arithmetic; docs/passes/fuse.md)\n", V, E);
  for (int i = 0; i < p->nsteps; i++) {
    const KStep *s = &p->steps[i];
    KTraffic t = kstats_step_traffic(s, V, E);
    const char *name = kstats_step_name(s);
    fprintf(out, "  step %-3d %-9s %-44s reads %-10s writes %-10s ops %s\n", i,
            s->per_graph ? "graph" : i >= p->nfwd ? "backward" : s->train_only ? "training" : "forward", name,
            kstats_human(t.read), kstats_human(t.write), kstats_ops_human(t.ops));
  }
  double r, w, ur = 0, uw = 0, gr, gw;
  totals(p, V, E, false, &r, &w);
  totals(p, V, E, true, &gr, &gw);
  int launches = 0, ulaunches = 0, npg = 0;
  for (int i = 0; i < p->nsteps; i++) launches += p->steps[i].kind != STEP_GEMM && p->steps[i].kind != STEP_SPMM;
  for (int i = 0; i < p->nsteps; i++) npg += p->steps[i].per_graph;
  fprintf(out, "  total: %d steps (%d kernels and fills), reads %s, writes %s", p->nsteps, launches, kstats_human(r), kstats_human(w));
  if (npg) /* the "graph" steps: once per graph, not in every forward (the total above is a pass's) */
    fprintf(out, " (+ %d step%s once per graph: reads %s, writes %s)", npg, npg == 1 ? "" : "s", kstats_human(gr), kstats_human(gw));
  if (unfused) {
    totals(unfused, V, E, false, &ur, &uw);
    for (int i = 0; i < unfused->nsteps; i++) ulaunches += unfused->steps[i].kind != STEP_GEMM && unfused->steps[i].kind != STEP_SPMM;
    fprintf(out, "; unfused: %d steps (%d kernels and fills), reads %s, writes %s (x%.3g bytes)", unfused->nsteps, ulaunches,
            kstats_human(ur), kstats_human(uw), (ur + uw) / (r + w > 0 ? r + w : 1));
  }
  fputc('\n', out);
  { /* what training = 0 saves: the training-only steps (an input's dropout: the GEMM reads the input
     * in place) and the stashes' stores */
    double ir, iw, tr, tw;
    int il, tl, in = forward_totals(p, V, E, true, &ir, &iw, &il), tn = forward_totals(p, V, E, false, &tr, &tw, &tl);
    fprintf(out, "  inference forward (training = 0): %d steps (%d kernels and fills), reads %s, writes %s", in, il, kstats_human(ir),
            kstats_human(iw));
    fprintf(out, "; training forward: %d steps (%d kernels and fills), reads %s, writes %s\n", tn, tl, kstats_human(tr), kstats_human(tw));
  }
  /* the arithmetic, kernels + GEMMs and SpMMs, per pass; the unfused program's beside it (xN: its
   * ops over the fused one's, as the bytes; kprog_ops_check warns below 1 / KSTATS_OPS_WARN) */
  Ops o = prog_ops(p, V, E), u = {{0, 0}, {0, 0}};
  if (unfused) u = prog_ops(unfused, V, E);
  bool bwd = p->nsteps > p->nfwd;
  fprintf(out, "  arithmetic: forward %s ops in kernels + %s in GEMMs", kstats_ops_human(o.kern[0]), kstats_ops_human(o.dense[0]));
  if (bwd) fprintf(out, ", backward %s + %s", kstats_ops_human(o.kern[1]), kstats_ops_human(o.dense[1]));
  for (int d = 0; unfused && d < 1 + bwd; d++) {
    double f = o.kern[d] + o.dense[d];
    fprintf(out, "%s %s + %s (x%.3g)", d ? ", backward" : "; unfused: forward", kstats_ops_human(u.kern[d]), kstats_ops_human(u.dense[d]),
            (u.kern[d] + u.dense[d]) / (f > 0 ? f : 1));
  }
  fputc('\n', out);
  double tr, inf, un;
  arenas(p, V, E, &tr, &inf, &un);
  fprintf(out, "  memory plan: training arena %s, inference arena %s (%s unshared)", kstats_human(tr), kstats_human(inf), kstats_human(un));
  if (unfused) {
    double utr, uinf, uun;
    arenas(unfused, V, E, &utr, &uinf, &uun);
    fprintf(out, "; unfused: training arena %s (x%.3g)", kstats_human(utr), utr / (tr > 0 ? tr : 1));
  }
  fputc('\n', out);
}

/* The arithmetic of the fused program against the unfused one's, forward and backward apart,
 * GEMMs and SpMMs included (the fuse pass computes some products inside kernels that the unfused
 * program gives to a GEMM: a weight's gradient reduced over the edges, reduce_rows(matmul_tn);
 * and folds attention dots into a projection's GEMM); past KSTATS_OPS_WARN times, a warning naming
 * the fused kernels that do most of it: the fewest, largest first, whose removal would bring the
 * pass under the threshold (at most 4 named). */
int kprog_ops_check(FILE *err, const KProgram *p, const KProgram *unfused, double V, double E) {
  Ops o = prog_ops(p, V, E), u = prog_ops(unfused, V, E);
  int warned = 0;
  for (int d = 0; d < 2; d++) {
    double fo = o.kern[d] + o.dense[d], uo = u.kern[d] + u.dense[d];
    if (!(fo > KSTATS_OPS_WARN * uo) || o.kern[d] <= 0) continue;
    warned++;
    if (!err) continue;
    int lo = d ? p->nfwd : 0, hi = d ? p->nsteps : p->nfwd, n = hi - lo;
    double *ops = checked(calloc((size_t)n + 1, sizeof(double)));
    for (int i = 0; i < n; i++) ops[i] = p->steps[lo + i].kind == STEP_KERNEL ? kstats_step_traffic(&p->steps[lo + i], V, E).ops : 0;
    fprintf(err, "gnnc: warning: the fused %s does x%.3g the unfused program's arithmetic at V=%.17g, E=%.17g "
                 "(%s ops, unfused %s; docs/passes/fuse.md, accounting): most in",
            d ? "backward" : "forward", fo / (uo > 0 ? uo : 1), V, E, kstats_ops_human(fo), kstats_ops_human(uo));
    double left = fo;
    for (int named = 0; named < 4 && left > KSTATS_OPS_WARN * uo; named++) {
      int best = -1;
      for (int i = 0; i < n; i++)
        if (ops[i] > 0 && (best < 0 || ops[i] > ops[best])) best = i;
      if (best < 0) break;
      fprintf(err, "%s step %d %s (%s ops)", named ? "," : "", lo + best, kstats_step_name(&p->steps[lo + best]), kstats_ops_human(ops[best]));
      left -= ops[best];
      ops[best] = 0;
    }
    fputc('\n', err);
    free(ops);
  }
  return warned;
}

KMemPlan kprog_memory_plan(const KProgram *p, double V, double E) {
  KMemPlan mp = {0};
  double un;
  arenas(p, V, E, &mp.arena, &mp.arena_inference, &un);
  bool bwd = p->nsteps > p->nfwd;
  if (!bwd) mp.arena = mp.arena_inference;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind == BUF_PARAM) mp.params += (double)b->width * 4;
    if (b->kind == BUF_TEMP && b->out == 0) mp.output = rows_of(b->dom, V, E) * (double)b->width * 4;
    mp.buffers += b->kind == BUF_TEMP && !is_out(b);
  }
  mp.grads = mp.params; /* allocated with the parameters, also without a backward */
  for (int o = 1; o < p->m->nouts; o++) { /* input gradients (--input-grads): in the model's storage too */
    const Value *v = p->m->outs[o].val;
    if (strncmp(p->m->outs[o].name, "grad_input.", 11) == 0) mp.grads += rows_of(v->dom, V, E) * (double)shape_elems(&v->shape) * 4;
  }
  mp.total = mp.arena + mp.params + mp.grads + mp.output;
  return mp;
}

void kprog_print_memory_plan(FILE *out, const KProgram *p, double V, double E) {
  KMemPlan mp = kprog_memory_plan(p, V, E);
  bool bwd = p->nsteps > p->nfwd;
  fprintf(out, "memory plan at V=%.17g, E=%.17g (%s library; docs/passes/checkpoint.md)\n", V, E, bwd ? "training" : "inference");
  fprintf(out, "  arena       %14.0f B  %s (%d buffers placed by lifetime)\n", mp.arena, kstats_human(mp.arena), mp.buffers);
  if (bwd) fprintf(out, "  inference   %14.0f B  %s (the arena of a forward with training = 0)\n", mp.arena_inference, kstats_human(mp.arena_inference));
  fprintf(out, "  params      %14.0f B  %s\n", mp.params, kstats_human(mp.params));
  fprintf(out, "  grads       %14.0f B  %s\n", mp.grads, kstats_human(mp.grads));
  fprintf(out, "  output      %14.0f B  %s\n", mp.output, kstats_human(mp.output));
  fprintf(out, "  total       %14.0f B  %s\n", mp.total, kstats_human(mp.total));
  /* the stashes: forward buffers the backward reads, alive across the forward/backward boundary */
  double stash = 0;
  int nst = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind != BUF_TEMP || is_out(b) || b->bwd || b->last < p->nfwd) continue;
    double bytes = buf_rows(b, V, E) * (double)b->width * elem_bytes(b->elem);
    fprintf(out, "  stash %-10s %14.0f B  %-10s %s[%lld] (steps %d..%d)\n", b->name, bytes, kstats_human(bytes), domain_name(b->dom),
            (long long)b->width, b->first, b->last);
    stash += bytes;
    nst++;
  }
  if (bwd) fprintf(out, "  stashed for the backward: %d buffers, %.0f B (%s)\n", nst, stash, kstats_human(stash));
}
