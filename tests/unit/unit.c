/* unit.c -- unit tests of pieces that no .gnn input can reach on its own (tests/suites/unit.sh).
 *
 * Prints one "PASS name" or "FAIL name: why" line per check; exits 1 if any failed.
 */
#include "pipeline.h"
#include "gpucost.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

static int failures;

static void check(bool ok, const char *name, const char *why) {
  if (ok) printf("PASS %s\n", name);
  else {
    printf("FAIL %s: %s\n", name, why);
    failures++;
  }
}

/* StrMap: every key found with its value after growing many times, absent keys absent, and a
 * second put of a key gives the same slot. */
static void test_strmap(void) {
  Arena a = {0};
  StrMap m = {0};
  enum { N = 20000 };
  char **keys = malloc(sizeof(char *) * N);
  for (int i = 0; i < N; i++) {
    keys[i] = arena_printf(&a, "k%d", i);
    void **slot = strmap_put(&a, &m, keys[i]);
    if (*slot) check(false, "strmap-new-slot-empty", keys[i]);
    *slot = keys[i];
  }
  bool ok = m.len == N;
  for (int i = 0; i < N && ok; i++) ok = strmap_get(&m, arena_printf(&a, "k%d", i)) == keys[i];
  check(ok, "strmap-get-after-growth", "a key is missing or maps to the wrong value");
  check(!strmap_get(&m, "k-1") && !strmap_get(&m, ""), "strmap-absent", "an absent key was found");
  void **s1 = strmap_put(&a, &m, "k7"), **s2 = strmap_put(&a, &m, arena_strdup(&a, "k7"));
  check(s1 == s2 && *s1 == keys[7] && m.len == N, "strmap-put-existing", "put of an existing key added a slot");
  StrMap empty = {0};
  check(!strmap_get(&empty, "x"), "strmap-get-empty", "found a key in an empty map");
  free(keys);
  arena_free(&a);
}

/* ir_verify: a parameter name defined twice is one problem, wherever the two are. */
static void test_verify_duplicate_params(void) {
  Arena a = {0};
  Module m = {.name = "M", .arena = &a};
  Shape s = {1, {2}};
  for (int i = 0; i < 1000; i++) ir_leaf(&m, OP_PARAM, FN_NONE, DOM_PARAM, &s, arena_printf(&a, "l%d.W", i), 0, (Loc){0, 0, 0});
  module_add_output(&m, "out", m.vals.items[m.vals.len - 1]);
  FILE *devnull = fopen("/dev/null", "w");
  check(ir_verify(&m, devnull) == 0, "verify-distinct-params", "distinct parameter names were rejected");
  ir_leaf(&m, OP_PARAM, FN_NONE, DOM_PARAM, &s, arena_strdup(&a, "l17.W"), 0, (Loc){0, 0, 0});
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  int bad = ir_verify(&m, out);
  fclose(out);
  check(bad == 1 && strstr(text, "param \"l17.W\" defined twice"), "verify-duplicate-param",
        "a parameter defined twice was not reported exactly once");
  free(text);
  fclose(devnull);
  arena_free(&a);
}

static KStmt *first_store(const PtrVec *body) {
  for (int j = 0; j < body->len; j++) {
    KStmt *x = body->items[j], *y;
    if (x->kind == KS_STORE) return x;
    if ((y = first_store(&x->body))) return y;
  }
  return NULL;
}

/* src parsed and compiled to kernel IR, the IR verified after each pass (NULL if anything failed);
 * the pipeline's printing goes to devnull. The caller frees c. */
static KProgram *lower_source(GnnCtx *c, const char *src, size_t n, FILE *devnull) {
  gnn_ctx_init(c, "unit.gnn", src, n, NULL);
  PipelineOpts o = {.verify_each = true, .lower = true};
  o.out = devnull;
  return gnn_parse(c) && gnn_compile(c, &o) ? c->kprog : NULL;
}

/* The small GAT the kernel-IR verifier's tests lower (plain, fused, with hub pieces) and corrupt. */
static const char gat_src[] =
    "layer GATConv<H, D>(x: vertex[F]) -> vertex[H, D] {\n  param W: [F, H, D]\n  param a: [H, 2*D]\n"
    "  e = leaky_relu(dot(a, concat(W @ x[src], W @ x[dst])), 0.2)\n  alpha = dropout(edge_softmax(e), 0.6)\n"
    "  return sum(alpha * (W @ x[src]))\n}\nmodel GAT(x: vertex[5]) -> vertex[3] {\n"
    "  return mean_heads(GATConv<2, 3>(dropout(x, 0.5)))\n}\n";

/* kir_verify: the lowered GAT passes; each corruption a lowering bug could make is reported. */
static void test_kir_verify(void) {
  GnnCtx c;
  FILE *devnull = fopen("/dev/null", "w");
  KProgram *p = lower_source(&c, gat_src, sizeof gat_src - 1, devnull);
  check(p && kir_verify(p, devnull) == 0, "kir-verify-clean", "the lowered GAT was rejected (or did not lower)");
  if (p) {
    /* 1. an intermediate buffer's lifetime that misses a use */
    KBuf *t = NULL;
    for (int i = 0; i < p->bufs.len && !t; i++) {
      KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && b->last > b->first) t = b;
    }
    if (t) {
      int last = t->last;
      t->last = t->first;
      check(kir_verify(p, devnull) > 0, "kir-verify-lifetime", "a use outside a buffer's lifetime was accepted");
      t->last = last;
    }
    /* 2. a kernel that stores to a parameter */
    Kernel *k = NULL;
    KStmt *st = NULL;
    for (int i = 0; i < p->kernels.len && !st; i++) {
      k = p->kernels.items[i];
      st = first_store(&k->body);
    }
    KBuf *param = NULL;
    for (int i = 0; i < p->bufs.len && !param; i++)
      if (((KBuf *)p->bufs.items[i])->kind == BUF_PARAM) param = p->bufs.items[i];
    if (st && param) {
      KBuf *was = st->buf;
      st->buf = param;
      check(kir_verify(p, devnull) > 0, "kir-verify-store-to-param", "a store to a parameter was accepted");
      st->buf = was;
    } else {
      check(false, "kir-verify-store-to-param", "no top-level store or no parameter to corrupt");
    }
    /* 3. nfwd past the steps; 4. a lane count that is not a power of two */
    int nfwd = p->nfwd;
    p->nfwd = p->nsteps + 1;
    check(kir_verify(p, devnull) > 0, "kir-verify-nfwd", "nfwd past the steps was accepted");
    p->nfwd = nfwd;
    if (k) {
      int g = k->group;
      k->group = 3;
      check(kir_verify(p, devnull) > 0, "kir-verify-group", "3 lanes per group was accepted");
      k->group = g;
    }
    check(kir_verify(p, devnull) == 0, "kir-verify-restored", "the restored program was rejected");
  }
  fclose(devnull);
  gnn_ctx_free(&c);
}

/* The first statement of a kind (and, for KS_IF / KS_ATOMIC, of count `count`; -1 any) in a body. */
static KStmt *find_stmt(const PtrVec *body, KStmtKind kind, int64_t count) {
  for (int j = 0; j < body->len; j++) {
    KStmt *x = body->items[j], *y;
    if (x->kind == kind && (count < 0 || x->count == count)) return x;
    if ((y = find_stmt(&x->body, kind, count))) return y;
  }
  return NULL;
}

/* Whether a body stores to a training-only buffer. */
static bool stores_train_only(const PtrVec *body) {
  for (int j = 0; j < body->len; j++) {
    const KStmt *x = body->items[j];
    if ((x->kind == KS_STORE || x->kind == KS_ATOMIC) && x->buf && x->buf->train_only) return true;
    if (stores_train_only(&x->body)) return true;
  }
  return false;
}

/* The first uniform `if training` of a kernel whose body stores to a stash (training-only). */
static KStmt *find_stash_guard(const PtrVec *body) {
  for (int j = 0; j < body->len; j++) {
    KStmt *x = body->items[j], *y;
    if (x->kind == KS_IF && x->count == 1 && x->lo && x->lo->kind == KE_TRAINING && stores_train_only(&x->body)) return x;
    if ((y = find_stash_guard(&x->body))) return y;
  }
  return NULL;
}

/* The first walk (the loop over a row's edges) in a body. */
static KStmt *find_walk(const PtrVec *body) {
  for (int j = 0; j < body->len; j++) {
    KStmt *x = body->items[j], *y;
    if (x->kind == KS_FOR && x->walk) return x;
    if ((y = find_walk(&x->body))) return y;
  }
  return NULL;
}

/* Whether kir_verify rejects p with a message containing needle. */
static bool kverify_says(const KProgram *p, const char *needle) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  int n = kir_verify(p, out);
  fclose(out);
  bool ok = n > 0 && text && strstr(text, needle);
  free(text);
  return ok;
}

/* kir_verify on fused kernels (the fuse pass is on by default): the fused GAT of test_kir_verify,
 * compiled with the checkpoint pass off (-fno-recompute: the cost model now recomputes every edge
 * value of GAT, so nothing would be stashed), has stashes stored under a uniform `if training`,
 * walks, shared arrays and block-reduced atomics; it passes, and each corruption of those
 * constructs is reported. */
static void test_kir_verify_fused(void) {
  GnnCtx c;
  gnn_ctx_init(&c, "unit.gnn", gat_src, sizeof gat_src - 1, NULL);
  PipelineOpts o = {.verify_each = true, .lower = true};
  o.disabled[o.ndisabled++] = "checkpoint";
  FILE *devnull = fopen("/dev/null", "w");
  o.out = devnull;
  KProgram *p = gnn_parse(&c) && gnn_compile(&c, &o) ? c.kprog : NULL;
  check(p && kir_verify(p, devnull) == 0, "kir-verify-fused-clean", "the fused GAT was rejected (or did not lower)");
  if (!p) {
    fclose(devnull);
    gnn_ctx_free(&c);
    return;
  }
  Kernel *gk = NULL, *wk = NULL, *bk = NULL; /* kernels with a stash guard, a walk, a block-reduced atomic */
  KStmt *guard = NULL, *walk = NULL, *blk = NULL;
  KBuf *stash = NULL;
  for (int i = 0; i < p->kernels.len; i++) {
    Kernel *k = p->kernels.items[i];
    KStmt *x;
    if (!guard && (x = find_stash_guard(&k->body))) guard = x, gk = k;
    if (!walk && (x = find_walk(&k->body))) walk = x, wk = k;
    if (!blk && (x = find_stmt(&k->body, KS_ATOMIC, 1))) blk = x, bk = k;
  }
  for (int i = 0; i < p->bufs.len && !stash; i++)
    if (((KBuf *)p->bufs.items[i])->train_only) stash = p->bufs.items[i];
  check(guard && walk && blk && stash, "kir-verify-fused-constructs",
        "the fused GAT lacks a stash under `if training`, a walk, a block-reduced atomic or a training-only buffer");
  KExpr lane = {.kind = KE_LANE, .type = KT_I64}, one = {.kind = KE_ICONST, .type = KT_I64, .i = 1};
  if (guard) {
    /* 1. the stash's store no longer under the training guard: the inference plan has no stash */
    KExpr *cond = guard->lo;
    guard->lo = &one;
    check(kverify_says(p, "outside a training guard in the forward"), "kir-verify-fused-unguarded-stash",
          "a forward store to a training-only buffer outside `if training` was accepted");
    /* 2. a uniform if whose condition differs between lanes */
    KExpr both = {.kind = KE_BIN, .type = KT_I64, .op = KO_AND, .a = cond, .b = &lane}; /* still a training guard */
    guard->lo = &both;
    check(kverify_says(p, "a uniform if with a per-lane condition") && kir_verify(p, NULL) == 1, "kir-verify-fused-per-lane-uniform-if", "a uniform if on the lane index was accepted");
    guard->lo = cond;
    /* 3. the same if made per-lane while it holds a walk with barriers */
    if (find_stmt(&guard->body, KS_BARRIER, -1)) {
      guard->count = 0;
      check(kverify_says(p, "a barrier inside per-lane code") && kverify_says(p, "a walk inside per-lane code"), "kir-verify-fused-divergent-barrier", "a barrier inside a per-lane if was accepted");
      guard->count = 1;
    }
    (void)gk;
  }
  if (walk && wk) {
    /* 4. a walk in a kernel that is not vertex-mapped */
    Mapping map = wk->map;
    wk->map = MAP_EDGE;
    check(kverify_says(p, "not vertex-mapped"), "kir-verify-fused-walk-mapping", "a walk in an edge-mapped kernel was accepted");
    wk->map = map;
  }
  if (blk && bk) {
    /* 5. a block-reduced atomic that is a max (the per-block arrays only add), 6. or has a row */
    int op = blk->op;
    blk->op = KO_MAX;
    check(kverify_says(p, "that is not a sum"), "kir-verify-fused-block-max", "a block-reduced atomic max was accepted");
    blk->op = op;
    KExpr *row = blk->row;
    KExpr rowe = {.kind = KE_ROW, .type = KT_I64};
    blk->row = &rowe;
    check(kverify_says(p, "not a one-row buffer"), "kir-verify-fused-block-row", "a block-reduced atomic with a row was accepted");
    blk->row = row;
  }
  if (stash) {
    /* 7. a backward value marked training-only */
    stash->bwd = true;
    check(kverify_says(p, "is training-only but not a forward intermediate"), "kir-verify-fused-train-only-bwd",
          "a training-only buffer of the backward was accepted");
    stash->bwd = false;
  }
  if (gk) {
    /* 8. the training flag in a kernel that does not take it */
    bool d = gk->dropout;
    gk->dropout = false;
    check(kverify_says(p, "reads the training flag, which it does not take"), "kir-verify-fused-training-flag", "a kernel reading the training flag without taking it was accepted");
    gk->dropout = d;
  }
  if (wk && wk->nshared > 0) {
    /* 9. a shared array too long for a CUDA block of one group (48 KB of static shared memory:
     * ptxas would refuse the kernel); at 48 KB in all it fits, with fewer groups per block */
    int len = wk->shared[0].len;
    wk->shared[0].len = (GNN_SHARED_MAX + 8) / (wk->shared[0].type == KT_F32 ? 4 : 8);
    check(kverify_says(p, "more than a CUDA block's 48 KB"), "kir-verify-fused-shared-48k", "a kernel with over 48 KB of shared memory was accepted");
    wk->shared[0].len = 0;
    int64_t rest = kernel_shared_bytes(wk, 1);
    wk->shared[0].len = (int)((GNN_SHARED_MAX - rest) / (wk->shared[0].type == KT_F32 ? 4 : 8));
    check(kir_verify(p, devnull) == 0 && kernel_groups_per_block(wk) == 1 && kernel_shared_bytes(wk, 1) <= GNN_SHARED_MAX,
          "kir-verify-fused-shared-one-group", "a kernel of one group in 48 KB was rejected, or ran more groups per block");
    wk->shared[0].len = len;
  }
  if (blk && bk) {
    /* 10. block-reduced sums (a double per element, per block) past 48 KB */
    int64_t w = blk->buf->width;
    blk->buf->width = GNN_SHARED_MAX / 8 + 1;
    check(kverify_says(p, "more than a CUDA block's 48 KB"), "kir-verify-fused-block-48k", "block-reduced sums over 48 KB were accepted");
    blk->buf->width = w;
  }
  /* 11. the float copy of a float64 shared array (an f64 sum's hoisted weights, read when not
   * training: lower_walk.c) lives in that array's storage: it adds no shared bytes, and only a
   * float copy that fits is accepted */
  Kernel *ck = NULL;
  int cp = -1;
  for (int i = 0; i < p->kernels.len && cp < 0; i++) {
    ck = p->kernels.items[i];
    for (int j = 0; j < ck->nshared && cp < 0; j++)
      if (ck->shared[j].storage >= 0) cp = j;
  }
  check(cp >= 0 && ck->shared[ck->shared[cp].storage].type == KT_F64 && ck->shared[cp].type == KT_F32 &&
            shared_f32_copy(ck, ck->shared[cp].storage) == cp,
        "kir-verify-fused-f32-copy", "the fused GAT's attention walk has no float copy of its float64 weights");
  if (cp >= 0) {
    KShared *s = &ck->shared[cp];
    int own = s->storage;
    int64_t with = kernel_shared_group_bytes(ck);
    s->storage = -1;
    check(kernel_shared_group_bytes(ck) == with + 4 * s->len, "kir-verify-fused-f32-copy-bytes",
          "a float copy in its float64 array's storage was counted as shared memory of its own");
    s->len = ck->shared[own].len + 1;
    s->storage = own;
    check(kverify_says(p, "does not fit in the storage of array"), "kir-verify-fused-f32-copy-len", "a float copy longer than its array was accepted");
    s->len = ck->shared[own].len;
    s->type = KT_F64;
    check(kverify_says(p, "does not fit in the storage of array"), "kir-verify-fused-f32-copy-type", "a float64 copy was accepted");
    s->type = KT_F32;
    s->storage = cp;
    check(kverify_says(p, "which has none of its own"), "kir-verify-fused-f32-copy-self", "a shared array in its own storage was accepted");
    s->storage = own;
  }
  check(kir_verify(p, devnull) == 0, "kir-verify-fused-restored", "the restored fused program was rejected");
  fclose(devnull);
  gnn_ctx_free(&c);
}

/* sha256: FIPS 180-2's test vectors (one block, two blocks, a million 'a's fed in odd-sized
 * pieces so the buffering across blocks is exercised). */
static void test_sha256(void) {
  static const struct {
    const char *msg, *hex;
  } v[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  char out[65];
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    Sha256 s;
    sha256_init(&s);
    sha256_update(&s, v[i].msg, strlen(v[i].msg));
    sha256_hex(&s, out);
    check(strcmp(out, v[i].hex) == 0, "sha256-vector", v[i].msg);
  }
  Sha256 s;
  sha256_init(&s);
  char a[997];
  memset(a, 'a', sizeof a);
  size_t left = 1000000;
  while (left) {
    size_t n = left < sizeof a ? left : sizeof a;
    sha256_update(&s, a, n);
    left -= n;
  }
  sha256_hex(&s, out);
  check(strcmp(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0, "sha256-million-a", out);
}

/* gpucost_misses: a stream of 1,000 ids read 5 times misses once per id when the cache holds them
 * all, and every time when it holds far fewer (LRU over a cyclic stream); one id is one miss. */
static void test_gpucost_misses(void) {
  enum { N = 1000, R = 5 };
  int32_t *s = malloc(sizeof(int32_t) * N * R);
  for (int r = 0; r < R; r++)
    for (int i = 0; i < N; i++) s[r * N + i] = i;
  char why[96];
  int64_t m = gpucost_misses(s, N * R, 4096);
  snprintf(why, sizeof why, "%lld misses, want %d", (long long)m, N);
  check(m == N, "gpucost-misses-fits", why);
  m = gpucost_misses(s, N * R, 64);
  snprintf(why, sizeof why, "%lld misses, want %d", (long long)m, N * R);
  check(m == N * R, "gpucost-misses-thrash", why);
  for (int i = 0; i < N * R; i++) s[i] = 7;
  m = gpucost_misses(s, N * R, 16);
  snprintf(why, sizeof why, "%lld misses, want 1", (long long)m);
  check(m == 1, "gpucost-misses-one-id", why);
  free(s);
}

/* kernel_reads_back_across_barrier, on the smallest kernels that show each case: what the CUDA
 * emitter must leave without __restrict__ (a lane loads what another lane stored before a
 * barrier: nvcc may hoist the load above the barrier, issue 27) and what may keep it. */
static KStmt *rb_stmt(Arena *a, KStmtKind kind, KBuf *buf, KExpr *row, KExpr *idx, KExpr *val) {
  KStmt *s = arena_alloc(a, sizeof *s);
  *s = (KStmt){.kind = kind, .buf = buf, .row = row, .idx = idx, .val = val, .count = kind == KS_FOR_LANES ? 4 : 0};
  return s;
}

static KStmt *rb_lanes(Arena *a, KStmt *body) { /* for k, i in lanes(4) { body } */
  KStmt *s = rb_stmt(a, KS_FOR_LANES, NULL, NULL, NULL, NULL);
  s->var = 0, s->var2 = 1;
  vec_push(a, &s->body, body);
  return s;
}

static bool rb_case(Arena *a, Kernel *k, KBuf *t, KStmt *s1, KStmt *s2, KStmt *s3, bool loop) {
  k->body = (PtrVec){0};
  PtrVec *into = &k->body;
  if (loop) { /* for j = 0 to 4 { s1 s2 s3 } */
    static KExpr lo = {.kind = KE_ICONST, .type = KT_I64}, hi = {.kind = KE_ICONST, .type = KT_I64, .i = 4};
    KStmt *f = rb_stmt(a, KS_FOR, NULL, NULL, NULL, NULL);
    f->var = 2, f->lo = &lo, f->hi = &hi, f->count = 1;
    vec_push(a, &k->body, f);
    into = &f->body;
  }
  KStmt *ss[] = {s1, s2, s3};
  for (int i = 0; i < 3; i++)
    if (ss[i]) vec_push(a, into, ss[i]);
  return kernel_reads_back_across_barrier(k, t);
}

static void test_reads_back_across_barrier(void) {
  Arena a = {0};
  KLocal locals[] = {{.name = "k", .type = KT_I64}, {.name = "i", .type = KT_I64}, {.name = "j", .type = KT_I64, .uniform = true}};
  Kernel k = {.name = "k0_unit", .map = MAP_VERTEX, .rows = DOM_VERTEX, .group = 4, .locals = locals, .nlocals = 3};
  KBuf t = {.name = "t1", .kind = BUF_TEMP, .dom = DOM_VERTEX, .width = 4}, u = {.name = "t2", .kind = BUF_TEMP, .dom = DOM_VERTEX, .width = 4};
  KExpr row = {.kind = KE_ROW, .type = KT_I64}, kv = {.kind = KE_VAR, .type = KT_I64, .var = 0};
  KExpr zero = {.kind = KE_ICONST, .type = KT_I64}, one = {.kind = KE_FCONST, .type = KT_F32, .f = 1};
  KExpr t_own = {.kind = KE_LOAD, .type = KT_F32, .buf = &t, .a = &row, .b = &kv}; /* t[row, k] */
  KExpr t_first = {.kind = KE_LOAD, .type = KT_F32, .buf = &t, .a = &row, .b = &zero}; /* t[row, 0] */
  Arena *ar = &a;
#define STORE_T() rb_lanes(ar, rb_stmt(ar, KS_STORE, &t, &row, &kv, &one))       /* t[row, k] = 1 */
#define READ_T(x) rb_lanes(ar, rb_stmt(ar, KS_STORE, &u, &row, &kv, (x)))        /* u[row, k] = x */
#define BARRIER() rb_stmt(ar, KS_BARRIER, NULL, NULL, NULL, NULL)
  check(rb_case(ar, &k, &t, STORE_T(), BARRIER(), READ_T(&t_first), false), "reads-back-other-lane",
        "t[row, 0] read by every lane after lane 0 stored it and a barrier was not found");
  check(!rb_case(ar, &k, &t, STORE_T(), BARRIER(), READ_T(&t_own), false), "reads-back-own-lane",
        "t[row, k] stored and read back by the same lane counted as passing between lanes");
  check(!rb_case(ar, &k, &t, STORE_T(), READ_T(&t_first), NULL, false), "reads-back-no-barrier",
        "a load with no barrier after the store counted as across a barrier");
  check(!rb_case(ar, &k, &t, READ_T(&t_first), BARRIER(), STORE_T(), false), "reads-back-load-first",
        "a load before the store counted as reading it back");
  /* in a loop: the store of one iteration, the barrier of the next, the load of the one after */
  check(rb_case(ar, &k, &t, READ_T(&t_first), BARRIER(), STORE_T(), true), "reads-back-loop-carried",
        "a load reached by a store and a barrier of earlier iterations was not found");
  KStmt *atomic = rb_lanes(ar, rb_stmt(ar, KS_ATOMIC, &t, &row, &kv, &one)); /* atomic_add t[row, k], 1 */
  check(rb_case(ar, &k, &t, atomic, BARRIER(), READ_T(&t_own), false), "reads-back-atomic",
        "a load after an atomic and a barrier was taken for the lane's own element");
#undef STORE_T
#undef READ_T
#undef BARRIER
  arena_free(&a);
}

/* A store of a lane loop indexed by the loop's element variable k (so k's range is known there). */
static KStmt *lane_store(const PtrVec *body, KStmt **lanes) {
  for (int j = 0; j < body->len; j++) {
    KStmt *x = body->items[j], *y;
    if (x->kind == KS_FOR_LANES)
      for (int i = 0; i < x->body.len; i++) {
        KStmt *st = x->body.items[i];
        if (st->kind == KS_STORE && st->idx && st->idx->kind == KE_VAR && st->idx->var == x->var && st->row) {
          *lanes = x;
          return st;
        }
      }
    if ((y = lane_store(&x->body, lanes))) return y;
  }
  return NULL;
}

/* kir_verify's index ranges (in_range_index): multi.gnn's Mix -- a concat whose operand needs a
 * sum_heads loop, and in the backward pads of slices of a sum_heads -- lowers with every
 * unconditional index in range (the lowering once hoisted the operand's loop ahead of the
 * concat's select unclamped: a shared array read at -2 and 18 of 10, a CUDA illegal address);
 * a load a row's width past the end is reported where it always runs, and accepted in an arm
 * of a select (evaluated only when taken). */
static void test_kir_verify_index_range(void) {
  static const char src[] =
      "layer Split(x: vertex[F]) -> (vertex[2], vertex[F - 2], vertex[]) {\n"
      "  return slice(x, 0, 2), slice(x, 2, F), sum_heads(x)\n}\n"
      "layer Mix(x: vertex[F]) -> vertex[F] {\n  lo, hi, tot = Split(x)\n  return concat(hi * tot, lo)\n}\n"
      "model M(x: vertex[5]) -> vertex[2, 5] {\n  param W: [5, 5]\n  param a: [5, 2]\n"
      "  s = edge_softmax(leaky_relu((a @ x)[src] + (a @ x)[dst], 0.2))\n"
      "  return sum(s * repeat(Mix(W @ x), 2)[src])\n}\n";
  GnnCtx c;
  FILE *devnull = fopen("/dev/null", "w");
  KProgram *p = lower_source(&c, src, sizeof src - 1, devnull);
  check(p && kir_verify(p, devnull) == 0, "kir-verify-index-clean", "Mix's concat and its gradient were rejected (or did not lower)");
  KStmt *lanes = NULL, *st = NULL;
  for (int i = 0; p && i < p->kernels.len && !st; i++) st = lane_store(&((Kernel *)p->kernels.items[i])->body, &lanes);
  check(st != NULL, "kir-verify-index-lane-store", "no store indexed by a lane loop's element to corrupt");
  if (st) {
    KExpr w = {.kind = KE_ICONST, .type = KT_I64, .i = st->buf->width}, one = {.kind = KE_ICONST, .type = KT_I64, .i = 1};
    KExpr past = {.kind = KE_BIN, .type = KT_I64, .op = KO_ADD, .a = st->idx, .b = &w};
    KExpr load = {.kind = KE_LOAD, .type = KT_F32, .buf = st->buf, .a = st->row, .b = &past};
    KExpr *val = st->val;
    KExpr sel = {.kind = KE_SELECT, .type = KT_F32, .a = &one, .b = val, .c = &load};
    st->val = &load;
    check(kverify_says(p, "indexed in [") && kir_verify(p, NULL) == 1, "kir-verify-index-past-row",
          "a load a row's width past the element a lane stores was accepted");
    st->val = &sel;
    check(kir_verify(p, devnull) == 0, "kir-verify-index-lazy-arm", "an out-of-range load in a select's untaken arm was rejected");
    st->val = val;
    KExpr *idx = st->idx;
    st->idx = &past;
    check(kverify_says(p, "indexed in ["), "kir-verify-index-store", "a store past a row's end was accepted");
    st->idx = idx;
    check(kir_verify(p, devnull) == 0, "kir-verify-index-restored", "the restored program was rejected");
  }
  fclose(devnull);
  gnn_ctx_free(&c);
}

/* kir_verify on a kernel over hub pieces (--split-hubs): the fused GAT's walks take pieces and
 * pass; a ticket outside a kernel over pieces, into a per-lane local, on a float buffer, or inside
 * a lane loop is reported, and so is a read of `item` outside a kernel over pieces. */
static void test_kir_verify_pieces(void) {
  GnnCtx c;
  gnn_ctx_init(&c, "unit.gnn", gat_src, sizeof gat_src - 1, NULL);
  PipelineOpts o = {.verify_each = true, .lower = true, .split_hubs = true};
  FILE *devnull = fopen("/dev/null", "w");
  o.out = devnull;
  KProgram *p = gnn_parse(&c) && gnn_compile(&c, &o) ? c.kprog : NULL;
  check(p && kir_verify(p, devnull) == 0, "kir-verify-pieces-clean", "the GAT with pieces was rejected (or did not lower)");
  Kernel *k = NULL;
  KStmt *t = NULL;
  for (int i = 0; p && i < p->kernels.len && !t; i++)
    if ((t = find_stmt(&((Kernel *)p->kernels.items[i])->body, KS_TICKET, -1))) k = p->kernels.items[i];
  check(t && k->pieces, "kir-verify-pieces-ticket", "no kernel over pieces with a ticket");
  if (t) {
    k->pieces = false;
    check(kverify_says(p, "a ticket in a kernel that does not walk pieces") && kverify_says(p, "reads a piece's item"),
          "kir-verify-pieces-not-pieces", "a ticket and `item` in a kernel not over pieces were accepted");
    k->pieces = true;
    int var = t->var, lanevar = -1;
    for (int i = 0; i < k->nlocals && lanevar < 0; i++)
      if (!k->locals[i].uniform && !k->locals[i].len) lanevar = i;
    t->var = lanevar;
    check(lanevar >= 0 && kverify_says(p, "that is not uniform"), "kir-verify-pieces-lane-local", "a ticket into a per-lane local was accepted");
    t->var = var;
    ElemType e = t->buf->elem;
    t->buf->elem = ELEM_F32;
    check(kverify_says(p, "a ticket on no int32 buffer"), "kir-verify-pieces-float-counter", "a ticket on a float buffer was accepted");
    t->buf->elem = e;
    KStmt *lanes = find_stmt(&k->body, KS_FOR_LANES, -1);
    if (lanes) {
      vec_push(&c.arena, &lanes->body, t);
      check(kverify_says(p, "a ticket inside per-lane code"), "kir-verify-pieces-in-lanes", "a ticket inside a lane loop was accepted");
      lanes->body.len--;
    }
    check(kir_verify(p, devnull) == 0, "kir-verify-pieces-restored", "the restored program is rejected");
  }
  fclose(devnull);
  gnn_ctx_free(&c);
}

/* --vector-loads=4 (Kernel.vec): a walk gathering 8 columns takes 4 elements a lane and passes;
 * kverify reports a vector width other than 4, and a kernel that reads the lane index in a lane
 * loop (the old map of elements to lanes) while taking the new one. */
static const char vec_src[] =
    "model V(x: vertex[8]) -> vertex[8] {\n  return sum(relu(x[src]) * 2)\n}\n";

static void test_kir_verify_vec4(void) {
  GnnCtx c;
  gnn_ctx_init(&c, "unit.gnn", vec_src, sizeof vec_src - 1, NULL);
  PipelineOpts o = {.verify_each = true, .lower = true, .vector_loads = 4};
  FILE *devnull = fopen("/dev/null", "w");
  o.out = devnull;
  KProgram *p = gnn_parse(&c) && gnn_compile(&c, &o) ? c.kprog : NULL;
  Kernel *k = NULL;
  for (int i = 0; p && i < p->kernels.len && !k; i++)
    if (((Kernel *)p->kernels.items[i])->vec == 4) k = p->kernels.items[i];
  check(p && k && kir_verify(p, devnull) == 0, "kir-verify-vec4-clean", "no walk took 4 elements a lane (or the program was rejected)");
  if (k) {
    k->vec = 2;
    check(kverify_says(p, "only 4 is a vector width"), "kir-verify-vec4-width", "a vector width of 2 was accepted");
    k->vec = 4;
    KStmt *lanes = find_stmt(&k->body, KS_FOR_LANES, -1);
    KStmt *let = lanes ? find_stmt(&lanes->body, KS_LET, -1) : NULL;
    if (let) {
      KExpr *val = let->val, lane = {.kind = KE_LANE, .type = KT_I64};
      KExpr sum = {.kind = KE_BIN, .type = val->type, .op = KO_ADD, .a = val, .b = &lane};
      let->val = &sum;
      check(kverify_says(p, "a lane loop reads the lane index"), "kir-verify-vec4-lane", "the lane index read in a lane loop of a vec kernel was accepted");
      let->val = val;
    } else {
      check(false, "kir-verify-vec4-lane", "no let in the walk's lane loop to corrupt");
    }
    check(kir_verify(p, devnull) == 0, "kir-verify-vec4-restored", "the restored program is rejected");
  }
  fclose(devnull);
  gnn_ctx_free(&c);
}

/* kir_verify on a kernel in column tiles (--tile-columns): the GAT's walks (6 gathered columns) in
 * tiles of 3 pass (the heads flattened); a tiled lane loop over other than the tile's count or from another first
 * element, a kernel that reads `tile` but is not in tiles, and tiles that do not cover the width
 * are reported. */
static void test_kir_verify_tiles(void) {
  /* the heads flattened (mean_heads would mix the columns in the walk's epilogue: not tiled) */
  static const char src[] =
      "layer GATConv<H, D>(x: vertex[F]) -> vertex[H, D] {\n  param W: [F, H, D]\n  param a: [H, 2*D]\n"
      "  e = leaky_relu(dot(a, concat(W @ x[src], W @ x[dst])), 0.2)\n  alpha = dropout(edge_softmax(e), 0.6)\n"
      "  return sum(alpha * (W @ x[src]))\n}\nmodel GAT(x: vertex[5]) -> vertex[6] {\n"
      "  return flatten(GATConv<2, 3>(dropout(x, 0.5)))\n}\n";
  GnnCtx c;
  gnn_ctx_init(&c, "unit.gnn", src, sizeof src - 1, NULL);
  PipelineOpts o = {.verify_each = true, .lower = true, .tile_columns = 3};
  FILE *devnull = fopen("/dev/null", "w");
  o.out = devnull;
  KProgram *p = gnn_parse(&c) && gnn_compile(&c, &o) ? c.kprog : NULL;
  check(p && kir_verify(p, devnull) == 0, "kir-verify-tiles-clean", "the GAT in column tiles was rejected (or did not lower)");
  Kernel *k = NULL;
  for (int i = 0; p && i < p->kernels.len && !k; i++)
    if (((Kernel *)p->kernels.items[i])->col_tiles == 2) k = p->kernels.items[i];
  check(k != NULL, "kir-verify-tiles-tiled", "no kernel of the GAT in 2 column tiles of 3");
  KStmt *lanes = k ? find_stmt(&k->body, KS_FOR_LANES, 3) : NULL;
  if (lanes && !lanes->lo) lanes = NULL; /* the first loop of 3 elements is a tiled one (the heads' loops have 2) */
  check(lanes != NULL, "kir-verify-tiles-loop", "no lane loop from the tile's first column");
  if (k && lanes) {
    lanes->count = 6;
    check(kverify_says(p, "a column tile's lane loop over 6 elements"), "kir-verify-tiles-count", "a tiled loop over the whole width was accepted");
    lanes->count = 3;
    KExpr *lo = lanes->lo;
    lanes->lo = ((KStmt *)k->body.items[0])->val->a; /* `tile`, not tile * 3 */
    check(kverify_says(p, "a lane loop from an element other than its column tile's first"), "kir-verify-tiles-first",
          "a tiled loop from `tile` was accepted");
    lanes->lo = lo;
    k->col_tiles = 1;
    check(kverify_says(p, "reads its group's column tile, but is not in column tiles"), "kir-verify-tiles-not-tiled",
          "`tile` in a kernel not in tiles was accepted");
    k->col_tiles = 2;
    k->col_width = 7;
    check(kverify_says(p, "do not cover its width"), "kir-verify-tiles-width", "tiles of 3 over 7 columns were accepted");
    k->col_width = 6;
    check(kir_verify(p, devnull) == 0, "kir-verify-tiles-restored", "the restored program is rejected");
  }
  fclose(devnull);
  gnn_ctx_free(&c);
}

int main(void) {
  test_strmap();
  test_verify_duplicate_params();
  test_kir_verify();
  test_kir_verify_fused();
  test_kir_verify_pieces();
  test_kir_verify_vec4();
  test_kir_verify_tiles();
  test_kir_verify_index_range();
  test_sha256();
  test_gpucost_misses();
  test_reads_back_across_barrier();
  return failures ? 1 : 0;
}
