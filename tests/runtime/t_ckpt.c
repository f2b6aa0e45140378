/* t_ckpt.c -- training checkpoints and checked files (gnnrt.h: gnn_train_state_*, tensor files).
 *
 *   t_ckpt DIR          the checks below, with scratch files in DIR
 *   t_ckpt check FILE   "ok MODEL EPOCH" when FILE is a readable checkpoint, else the error (exit 1):
 *                       tests/suites/reliability.sh runs it after every kill
 *
 * The checks: a state round-trips bit for bit (Adam and SGD); the file is refused -- with file,
 * expectation and finding in the message, and the caller's arrays untouched -- when it is cut at
 * any length, has any single byte changed, another version, another model, another program,
 * another config, another optimiser or other parameter shapes; a version 1 file (before programs
 * were recorded), a version 2 file (before thread counts) and a state without a program load; the
 * thread count round-trips and is 0 from an older file; a failed save (no such folder) leaves the old
 * file, and so does a save refused for an empty or repeated parameter name; tensor text files
 * carry a checksum line, files without one still load, a damaged or cut one is refused, a write
 * with a repeated name is refused before the file is touched; get/get_rows name themselves in
 * their argument errors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

static const char *names[2] = {"W", "b"};
static const int ranks[2] = {2, 1};
static const int64_t dims[2][4] = {{3, 2}, {2}};

typedef struct {
  float p[2][6], m[2][6], v[2][6], best[2][6];
  float *pp[2], *mp[2], *vp[2], *bp[2];
  gnn_train_state s;
} St;

static void st_init(St *x, const char *model, const char *config, int adam, float base) {
  memset(x, 0, sizeof *x);
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 6; k++) {
      x->p[i][k] = base + (float)(i * 10 + k) / 7.0f;
      x->m[i][k] = base - (float)k / 3.0f;
      x->v[i][k] = base * 0.5f + (float)k;
      x->best[i][k] = base * 2.0f + (float)k / 9.0f;
    }
    x->pp[i] = x->p[i], x->mp[i] = x->m[i], x->vp[i] = x->v[i], x->bp[i] = x->best[i];
  }
  for (int k = 2; k < 6; k++) x->p[1][k] = x->m[1][k] = x->v[1][k] = x->best[1][k] = 0; /* b has 2 elements */
  gnn_train_state *s = &x->s;
  s->model = model;
  s->config = config;
  s->nparams = 2;
  s->names = names;
  s->ranks = ranks;
  s->dims = dims;
  s->param = x->pp;
  s->adam_m = adam ? x->mp : NULL;
  s->adam_v = adam ? x->vp : NULL;
  s->best = x->bp;
  s->epoch = (int64_t)base;
  s->adam_step = (int64_t)base;
  s->dropout_seed = 1000003u;
  s->dropout_counter = (uint64_t)base + 1;
  s->best_epoch = 3;
  s->best_val_acc = 0.7125;
  s->best_val_loss = 1.0 / 3.0;
  s->waited = 2;
  s->finished = 0;
  s->elapsed_ms = 12.5;
}

/* Arrays and scalars of a and b equal, bit for bit. */
static int st_same(const St *a, const St *b) {
  int adam = a->s.adam_m != NULL; /* without Adam, m and v are not part of the state */
  return memcmp(a->p, b->p, sizeof a->p) == 0 && (!adam || memcmp(a->m, b->m, sizeof a->m) == 0) &&
         (!adam || memcmp(a->v, b->v, sizeof a->v) == 0) && memcmp(a->best, b->best, sizeof a->best) == 0 &&
         a->s.epoch == b->s.epoch && a->s.adam_step == b->s.adam_step && a->s.dropout_seed == b->s.dropout_seed &&
         a->s.dropout_counter == b->s.dropout_counter && a->s.best_epoch == b->s.best_epoch &&
         memcmp(&a->s.best_val_acc, &b->s.best_val_acc, 8) == 0 && memcmp(&a->s.best_val_loss, &b->s.best_val_loss, 8) == 0 &&
         a->s.waited == b->s.waited && a->s.finished == b->s.finished;
}

static unsigned char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)len + 1);
  *n = fread(b, 1, (size_t)len, f);
  fclose(f);
  return b;
}

static void write_all(const char *path, const void *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite(b, 1, n, f);
    fclose(f);
  }
}

static int check_file(const char *path) {
  gnn_ctx *ctx = NULL;
  gnn_ctx_create(&ctx, 0);
  char model[256] = "";
  int64_t epoch = -1;
  gnn_status st = gnn_train_state_check(ctx, path, model, sizeof model, &epoch);
  if (st == GNN_OK) printf("ok %s %lld\n", model, (long long)epoch);
  else printf("error %s: %s\n", gnn_status_name(st), gnn_last_error(ctx));
  gnn_ctx_destroy(ctx);
  return st == GNN_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "check") == 0) return check_file(argv[2]);
  if (argc != 2) {
    fprintf(stderr, "usage: t_ckpt DIR | t_ckpt check FILE\n");
    return 2;
  }
  char path[4096], other[4096];
  snprintf(path, sizeof path, "%s/state.ckpt", argv[1]);
  snprintf(other, sizeof other, "%s/damaged.ckpt", argv[1]);
  gnn_ctx *ctx = NULL;
  if (gnn_ctx_create(&ctx, 0) != GNN_OK) return printf("FAIL ctx: %s\n", gnn_last_error(ctx)), 1;
  const char *cfg = "adam lr 0.01 seed 1";
  St a, b;

  /* round trips */
  for (int adam = 1; adam >= 0; adam--) {
    st_init(&a, "GCN", cfg, adam, 5.0f);
    a.s.finished = adam; /* both values of the flag */
    gnn_status st = gnn_train_state_save(ctx, path, &a.s);
    st_init(&b, "GCN", cfg, adam, 0.0f);
    if (st == GNN_OK) st = gnn_train_state_load(ctx, path, &b.s);
    check(st == GNN_OK && st_same(&a, &b), adam ? "ckpt/roundtrip-adam" : "ckpt/roundtrip-sgd", "%s: %s (epoch %lld/%lld, p %g/%g, m %g/%g, best %g/%g, fin %d/%d)",
          gnn_status_name(st), gnn_last_error(ctx), (long long)a.s.epoch, (long long)b.s.epoch, a.p[1][5], b.p[1][5], a.m[1][5], b.m[1][5], a.best[1][5], b.best[1][5], a.s.finished, b.s.finished);
  }
  st_init(&a, "GCN", cfg, 1, 5.0f);
  gnn_train_state_save(ctx, path, &a.s);
  char model[64];
  int64_t epoch = 0;
  gnn_status st = gnn_train_state_check(ctx, path, model, sizeof model, &epoch);
  check(st == GNN_OK && strcmp(model, "GCN") == 0 && epoch == 5, "ckpt/check", "%s %s %lld", gnn_status_name(st), model,
        (long long)epoch);

  size_t n = 0;
  unsigned char *good = read_all(path, &n);
  if (!good) return printf("FAIL ckpt/read: cannot read %s\n", path), 1;

  /* Cut at every length: always refused, never partly loaded. */
  int cut_ok = 1;
  char cut_msg[1100] = "";
  for (size_t len = 0; len < n && cut_ok; len++) {
    write_all(other, good, len);
    st_init(&b, "GCN", cfg, 1, 0.0f);
    St before = b;
    st = gnn_train_state_load(ctx, other, &b.s);
    if (st != GNN_ERR_FORMAT || !strstr(gnn_last_error(ctx), other) || !st_same(&b, &before)) cut_ok = 0;
    if (!cut_ok) snprintf(cut_msg, sizeof cut_msg, "cut at %zu bytes: %s %s", len, gnn_status_name(st), gnn_last_error(ctx));
  }
  check(cut_ok, "ckpt/truncated-every-length", "%s", cut_msg);
  write_all(other, good, n / 2);
  check_status(ctx, gnn_train_state_load(ctx, other, &b.s), GNN_ERR_FORMAT, "ckpt/truncated-message", "truncated checkpoint",
               "the header announces");

  /* Any single byte changed: refused (header fields by their own checks, the rest by the sum). */
  int flip_ok = 1;
  char flip_msg[1100] = "";
  for (size_t i = 0; i < n && flip_ok; i++) {
    unsigned char *c = malloc(n);
    memcpy(c, good, n);
    c[i] ^= 0x10;
    write_all(other, c, n);
    free(c);
    st_init(&b, "GCN", cfg, 1, 0.0f);
    St before = b;
    st = gnn_train_state_load(ctx, other, &b.s);
    if (st == GNN_OK || !strstr(gnn_last_error(ctx), other) || !st_same(&b, &before)) flip_ok = 0;
    if (!flip_ok) snprintf(flip_msg, sizeof flip_msg, "byte %zu: %s %s", i, gnn_status_name(st), gnn_last_error(ctx));
  }
  check(flip_ok, "ckpt/corrupted-every-byte", "%s", flip_msg);
  {
    unsigned char *c = malloc(n);
    memcpy(c, good, n);
    c[n - 3] ^= 1;
    write_all(other, c, n);
    check_status(ctx, gnn_train_state_load(ctx, other, &b.s), GNN_ERR_FORMAT, "ckpt/checksum-message", "checksum mismatch: expected",
                 "found");
    memcpy(c, good, n);
    c[8] = 5; /* the version */
    write_all(other, c, n);
    check_status(ctx, gnn_train_state_load(ctx, other, &b.s), GNN_ERR_FORMAT, "ckpt/version", "checkpoint version 5",
                 "reads versions 1 to 4");
    write_all(other, "tensor W 1 0\n1\n", 15);
    check_status(ctx, gnn_train_state_load(ctx, other, &b.s), GNN_ERR_FORMAT, "ckpt/not-a-checkpoint",
                 "not a training checkpoint", "GNNRTCKP");
    free(c);
  }

  /* Another model, config, optimiser, shape: GNN_ERR_INVALID naming both sides, nothing loaded. */
  st_init(&b, "GAT", cfg, 1, 0.0f);
  St before = b;
  check_status(ctx, gnn_train_state_load(ctx, path, &b.s), GNN_ERR_INVALID, "ckpt/wrong-model", "of model 'GCN'",
               "expected model 'GAT'");
  check(st_same(&b, &before), "ckpt/wrong-model-untouched", "the arrays changed");
  st_init(&b, "GCN", "adam lr 0.02 seed 1", 1, 0.0f);
  check_status(ctx, gnn_train_state_load(ctx, path, &b.s), GNN_ERR_INVALID, "ckpt/wrong-config", "written for 'adam lr 0.01 seed 1'",
               "this run is 'adam lr 0.02 seed 1'");
  st_init(&b, "GCN", cfg, 0, 0.0f);
  check_status(ctx, gnn_train_state_load(ctx, path, &b.s), GNN_ERR_INVALID, "ckpt/wrong-optimiser", "holds Adam's moments", NULL);
  {
    static const int64_t dims2[2][4] = {{2, 3}, {2}};
    st_init(&b, "GCN", cfg, 1, 0.0f);
    b.s.dims = dims2;
    before = b;
    check_status(ctx, gnn_train_state_load(ctx, path, &b.s), GNN_ERR_INVALID, "ckpt/wrong-shape", "'W' [3, 2] in the checkpoint",
                 "expected 'W' [2, 3]");
    check(st_same(&b, &before), "ckpt/wrong-shape-untouched", "the arrays changed");
  }
  /* The program: a checkpoint of another computation of the same model and parameters is
   * refused, naming both; where either side has none, nothing is checked. */
  {
    char pp[4200];
    snprintf(pp, sizeof pp, "%s/program.ckpt", argv[1]);
    st_init(&a, "GCN", cfg, 1, 5.0f);
    a.s.program = "0123456789abcdef";
    st = gnn_train_state_save(ctx, pp, &a.s);
    st_init(&b, "GCN", cfg, 1, 0.0f);
    b.s.program = "fedcba9876543210";
    before = b;
    check_status(ctx, st ? st : gnn_train_state_load(ctx, pp, &b.s), GNN_ERR_INVALID, "ckpt/wrong-program",
                 "another program of model 'GCN' (program 0123456789abcdef, this library's fedcba9876543210)",
                 "resume with the library the checkpoint was written with");
    check(st_same(&b, &before), "ckpt/wrong-program-untouched", "the arrays changed");
    b.s.program = "0123456789abcdef";
    st = gnn_train_state_load(ctx, pp, &b.s);
    check(st == GNN_OK && st_same(&a, &b), "ckpt/same-program", "%s: %s", gnn_status_name(st), gnn_last_error(ctx));
    st_init(&b, "GCN", cfg, 1, 0.0f); /* the caller has none: not checked */
    st = gnn_train_state_load(ctx, pp, &b.s);
    check(st == GNN_OK && st_same(&a, &b), "ckpt/caller-without-program", "%s: %s", gnn_status_name(st), gnn_last_error(ctx));
    st_init(&b, "GCN", cfg, 1, 0.0f); /* the file has none (path was saved without): not checked */
    b.s.program = "fedcba9876543210";
    st = gnn_train_state_load(ctx, path, &b.s);
    check(st == GNN_OK, "ckpt/file-without-program", "%s: %s", gnn_status_name(st), gnn_last_error(ctx));
    /* Versions 1 and 2: the version 3 file of a state without a program or thread count, less
     * the program's length word and the thread count (version 1) or the thread count alone
     * (version 2; model, config and program strings come first), payload size and checksum
     * remade. Both load, with no thread count. */
    for (uint32_t version = 1; version <= 2; version++) {
      size_t at = 64 + 4 + strlen("GCN") + 4 + strlen(cfg) + (version == 2 ? 4 : 0), cut = version == 1 ? 8 : 4, m = n - cut;
      unsigned char *v1 = malloc(n);
      memcpy(v1, good, at);
      memcpy(v1 + at, good + at + cut, n - at - cut);
      uint64_t payload = m - 64, sum = 1469598103934665603ull;
      for (size_t i = 64; i < m; i++) sum = (sum ^ v1[i]) * 1099511628211ull;
      memcpy(v1 + 8, &version, 4);
      memcpy(v1 + 16, &payload, 8);
      memcpy(v1 + 24, &sum, 8);
      snprintf(pp, sizeof pp, "%s/version%u.ckpt", argv[1], (unsigned)version);
      write_all(pp, v1, m);
      free(v1);
      st_init(&a, "GCN", cfg, 1, 5.0f); /* what path holds */
      st_init(&b, "GCN", cfg, 1, 0.0f);
      b.s.program = "fedcba9876543210";
      b.s.threads = 7;
      st = gnn_train_state_load(ctx, pp, &b.s);
      check(st == GNN_OK && st_same(&a, &b) && b.s.threads == 0, version == 1 ? "ckpt/version-1-loads" : "ckpt/version-2-loads",
            "%s: %s (threads %d)", gnn_status_name(st), gnn_last_error(ctx), b.s.threads);
    }
    /* The thread count: saved as given, loaded as saved (0: not recorded), never refused. */
    snprintf(pp, sizeof pp, "%s/threads.ckpt", argv[1]);
    st_init(&a, "GCN", cfg, 1, 5.0f);
    a.s.threads = 3;
    st = gnn_train_state_save(ctx, pp, &a.s);
    st_init(&b, "GCN", cfg, 1, 0.0f);
    b.s.threads = 1;
    if (!st) st = gnn_train_state_load(ctx, pp, &b.s);
    check(st == GNN_OK && st_same(&a, &b) && b.s.threads == 3, "ckpt/threads-round-trip", "%s: %s (threads %d)",
          gnn_status_name(st), gnn_last_error(ctx), b.s.threads);
    /* A device's mark (gnn-train of a CUDA library: no host threads) round-trips as itself; the
     * same file labelled version 3 (layout unchanged, the checksum covers the payload only) is
     * refused, as version 3 never wrote the mark; version 3 with a count loads; a count past
     * INT_MAX is refused. The thread word follows model, config and program (no program here). */
    {
      size_t at = 64 + 4 + strlen("GCN") + 4 + strlen(cfg) + 4, m = 0;
      char dp[4200];
      snprintf(dp, sizeof dp, "%s/device.ckpt", argv[1]);
      st_init(&a, "GCN", cfg, 1, 5.0f);
      a.s.threads = GNN_TRAIN_THREADS_DEVICE;
      st = gnn_train_state_save(ctx, dp, &a.s);
      st_init(&b, "GCN", cfg, 1, 0.0f);
      if (!st) st = gnn_train_state_load(ctx, dp, &b.s);
      check(st == GNN_OK && st_same(&a, &b) && b.s.threads == GNN_TRAIN_THREADS_DEVICE, "ckpt/threads-device-round-trip",
            "%s: %s (threads %d)", gnn_status_name(st), gnn_last_error(ctx), b.s.threads);
      unsigned char *d = read_all(dp, &m);
      uint32_t word = 0;
      if (d && m > at + 4) memcpy(&word, d + at, 4);
      check(word == 0xFFFFFFFFu, "ckpt/threads-device-word", "thread word %08x at byte %zu", (unsigned)word, at);
      /* version 4 only where the mark needs it: a host state stays version 3 (runtime 0.4 reads it) */
      check(d && d[8] == 4, "ckpt/threads-device-is-version-4", "version %d", d ? d[8] : -1);
      {
        size_t tm = 0;
        unsigned char *t3 = read_all(pp, &tm);
        check(t3 && t3[8] == 3, "ckpt/host-state-is-version-3", "version %d", t3 ? t3[8] : -1);
        free(t3);
      }
      if (d && m > at + 4) {
        d[8] = 3;
        write_all(dp, d, m);
        check_status(ctx, gnn_train_state_load(ctx, dp, &b.s), GNN_ERR_FORMAT, "ckpt/threads-device-in-version-3", "corrupted checkpoint", NULL);
        unsigned char *t = read_all(pp, &m); /* threads.ckpt: a count of 3 */
        if (t) {
          t[8] = 3;
          write_all(dp, t, m);
          st_init(&b, "GCN", cfg, 1, 0.0f);
          st = gnn_train_state_load(ctx, dp, &b.s);
          check(st == GNN_OK && b.s.threads == 3, "ckpt/threads-version-3-loads", "%s: %s (threads %d)", gnn_status_name(st),
                gnn_last_error(ctx), b.s.threads);
          t[8] = 4;
          word = 0x80000000u;
          memcpy(t + at, &word, 4);
          uint64_t sum = 1469598103934665603ull; /* the payload changed: its checksum remade */
          for (size_t i = 64; i < m; i++) sum = (sum ^ t[i]) * 1099511628211ull;
          memcpy(t + 24, &sum, 8);
          write_all(dp, t, m);
          check_status(ctx, gnn_train_state_load(ctx, dp, &b.s), GNN_ERR_FORMAT, "ckpt/threads-past-int-max", "corrupted checkpoint", NULL);
          free(t);
        }
      }
      free(d);
    }
  }
  /* Scalars and values a resumed run cannot use: save refuses them (naming the field) before
   * anything is written, and a file that holds them anyway (written by another program, or
   * edited with its checksum remade) is refused on load, naming the field, with s unchanged. */
  {
    char sp[4200], bp[4200];
    snprintf(sp, sizeof sp, "%s/scalars.ckpt", argv[1]);
    snprintf(bp, sizeof bp, "%s/scalars-bad.ckpt", argv[1]);
    static const struct { const char *field, *want; } bad[] = {
        {"finished=2", "finished is 2 (0 or 1)"},
        {"finished=-1", "finished is -1 (0 or 1)"},
        {"epoch=-5", "epoch is -5 (at least 0)"},
        {"best_epoch=6", "best_epoch is 6 (0 .. epoch = 5)"},
        {"best_epoch=-1", "best_epoch is -1 (0 .. epoch = 5)"},
        {"waited=-1", "waited is -1"},
        {"adam_step=-1", "adam_step is -1"},
        {"best_val_acc=nan", "best_val_acc is nan"},
        {"best_val_acc=inf", "best_val_acc is inf"},
        {"best_val_loss=nan", "best_val_loss is nan"},
        {"elapsed_ms=nan", "elapsed_ms is nan"},
        {"elapsed_ms=-1", "elapsed_ms is -1"},
        {"param=nan", "parameter 'W': its values: element 4 is nan, not finite"},
        {"m=inf", "parameter 'b': Adam's m: element 1 is inf, not finite"},
        {"best=-inf", "parameter 'W': the best epoch's values: element 0 is -inf, not finite"},
    };
    /* the good state, saved: each bad file is it with one field changed, checksum remade */
    st_init(&a, "GCN", cfg, 1, 5.0f);
    st = gnn_train_state_save(ctx, sp, &a.s);
    check(st == GNN_OK, "ckpt/scalars-good-saves", "%s", gnn_last_error(ctx));
    size_t gm = 0;
    unsigned char *g0 = read_all(sp, &gm);
    /* the scalars follow model, config, program (empty) and the thread count */
    size_t sc = 64 + 4 + strlen("GCN") + 4 + strlen(cfg) + 4 + 4;
    size_t data = sc + 6 * 8 + 3 * 8 + 3 * 4 + (4 + 1 + 4 + 32) * 2; /* two table entries: "W", "b" */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      char name[96];
      snprintf(name, sizeof name, "ckpt/refused/%s", bad[i].field);
      st_init(&a, "GCN", cfg, 1, 5.0f);
      const char *f = bad[i].field, *eq = strchr(f, '=');
      double v = strtod(eq + 1, NULL);
      int64_t iv = isfinite(v) ? (int64_t)v : 0; /* nan/inf go to float fields only (a cast would be UB) */
      size_t off = 0, len = 8; /* where the file holds it */
      float fv = (float)v;
      int is_f64 = 0, is_f32 = 0;
      if (!strncmp(f, "finished", 8)) a.s.finished = (int)iv, off = sc + 9 * 8, len = 4;
      else if (!strncmp(f, "epoch", 5)) a.s.epoch = iv, off = sc;
      else if (!strncmp(f, "best_epoch", 10)) a.s.best_epoch = iv, off = sc + 4 * 8;
      else if (!strncmp(f, "waited", 6)) a.s.waited = iv, off = sc + 5 * 8;
      else if (!strncmp(f, "adam_step", 9)) a.s.adam_step = iv, off = sc + 8;
      else if (!strncmp(f, "best_val_acc", 12)) a.s.best_val_acc = v, off = sc + 6 * 8, is_f64 = 1;
      else if (!strncmp(f, "best_val_loss", 13)) a.s.best_val_loss = v, off = sc + 7 * 8, is_f64 = 1;
      else if (!strncmp(f, "elapsed_ms", 10)) a.s.elapsed_ms = v, off = sc + 8 * 8, is_f64 = 1;
      /* per parameter: values, m, v, best (W 6 floats, then b 2) */
      else if (!strncmp(f, "param", 5)) a.p[0][4] = fv, off = data + 4 * 4, is_f32 = 1;
      else if (!strncmp(f, "m", 1)) a.m[1][1] = fv, off = data + (24 + 2 + 1) * 4, is_f32 = 1;
      else if (!strncmp(f, "best", 4)) a.best[0][0] = fv, off = data + 3 * 6 * 4, is_f32 = 1;
      gnn_status want_save = is_f32 ? GNN_ERR_NUMERIC : GNN_ERR_INVALID;
      char nsave[128];
      snprintf(nsave, sizeof nsave, "%s-save", name);
      check_status(ctx, gnn_train_state_save(ctx, bp, &a.s), want_save, nsave, bad[i].want, "gnn_train_state_save");
      if (!g0 || off + len > gm) continue;
      unsigned char *c = malloc(gm);
      memcpy(c, g0, gm);
      if (is_f64) memcpy(c + off, &v, 8);
      else if (is_f32) memcpy(c + off, &fv, 4), len = 4;
      else if (len == 4) {
        int32_t x = (int32_t)iv;
        memcpy(c + off, &x, 4);
      } else
        memcpy(c + off, &iv, 8);
      uint64_t sum = 1469598103934665603ull;
      for (size_t k = 64; k < gm; k++) sum = (sum ^ c[k]) * 1099511628211ull;
      memcpy(c + 24, &sum, 8);
      write_all(bp, c, gm);
      free(c);
      st_init(&b, "GCN", cfg, 1, 0.0f);
      St unchanged = b;
      char nload[128];
      snprintf(nload, sizeof nload, "%s-load", name);
      check_status(ctx, gnn_train_state_load(ctx, bp, &b.s), GNN_ERR_FORMAT, nload, "corrupted checkpoint: ", bad[i].want);
      snprintf(nload, sizeof nload, "%s-changes-nothing", name);
      check(st_same(&b, &unchanged), nload, "the state changed");
    }
    free(g0);
    /* the edges of the rules still load: best_epoch = epoch, no best loss yet (+infinity), epoch 0 */
    st_init(&a, "GCN", cfg, 1, 5.0f);
    a.s.best_epoch = 5, a.s.best_val_loss = INFINITY, a.s.best_val_acc = -1;
    st = gnn_train_state_save(ctx, bp, &a.s);
    st_init(&b, "GCN", cfg, 1, 0.0f);
    if (!st) st = gnn_train_state_load(ctx, bp, &b.s);
    check(!st && st_same(&a, &b), "ckpt/scalars-edges-load", "%s", gnn_last_error(ctx));
    st_init(&a, "GCN", cfg, 1, 0.0f);
    a.s.best_epoch = a.s.waited = 0;
    st = gnn_train_state_save(ctx, bp, &a.s);
    if (!st) st = gnn_train_state_load(ctx, bp, &b.s);
    check(!st && st_same(&a, &b), "ckpt/scalars-epoch-0-loads", "%s", gnn_last_error(ctx));
  }
  /* A file name of 250 to 255 bytes (NAME_MAX): the temporary beside it, NAME.XXXXXX, was longer
   * than NAME_MAX and the save failed (ENAMETOOLONG); its name is cut to fit now. */
  for (int len = 249; len <= 255; len += 3) {
    char lp[4600], name[64];
    int k = snprintf(lp, sizeof lp, "%s/", argv[1]);
    memset(lp + k, 'n', (size_t)len);
    lp[k + len] = 0;
    snprintf(name, sizeof name, "ckpt/name-of-%d-bytes", len);
    st_init(&a, "GCN", cfg, 1, 5.0f);
    st = gnn_train_state_save(ctx, lp, &a.s);
    st_init(&b, "GCN", cfg, 1, 0.0f);
    if (!st) st = gnn_train_state_load(ctx, lp, &b.s);
    check(!st && st_same(&a, &b), name, "%s", gnn_last_error(ctx));
    remove(lp);
  }
  /* bad arguments */
  st_init(&b, "GCN", cfg, 1, 0.0f);
  b.s.adam_v = NULL;
  check_status(ctx, gnn_train_state_save(ctx, path, &b.s), GNN_ERR_INVALID, "ckpt/bad-state", "adam_m and adam_v", NULL);
  check_status(ctx, gnn_train_state_load(ctx, NULL, &b.s), GNN_ERR_INVALID, "ckpt/null-path", "path or state is NULL", NULL);
  check_status(ctx, gnn_train_state_check(ctx, other, NULL, 0, NULL), GNN_ERR_FORMAT, "ckpt/check-refuses", "not a training", NULL);

  /* A failed save leaves the previous file, and no temporary one. */
  {
    char bad[4200];
    snprintf(bad, sizeof bad, "%s/no-such-folder/x.ckpt", argv[1]);
    st_init(&a, "GCN", cfg, 1, 9.0f);
    check_status(ctx, gnn_train_state_save(ctx, bad, &a.s), GNN_ERR_IO, "ckpt/save-no-folder", "no-such-folder/x.ckpt",
                 "cannot write");
    size_t m = 0;
    unsigned char *now = read_all(path, &m);
    check(now && m == n && memcmp(now, good, n) == 0, "ckpt/previous-intact", "the previous checkpoint changed");
    free(now);
  }
  /* Names the reader would refuse, or that say nothing: an empty one (the reader calls the file
   * corrupted) and one used twice are refused before anything is written; path keeps the good
   * checkpoint. */
  {
    static const char *empty[2] = {"W", ""}, *twice[2] = {"W", "W"};
    st_init(&a, "GCN", cfg, 1, 9.0f);
    a.s.names = empty;
    check_status(ctx, gnn_train_state_save(ctx, path, &a.s), GNN_ERR_INVALID, "ckpt/empty-name",
                 "parameter 1 has an empty name", path);
    a.s.names = twice;
    check_status(ctx, gnn_train_state_save(ctx, path, &a.s), GNN_ERR_INVALID, "ckpt/repeated-name",
                 "parameter 1 'W' appears twice (first as parameter 0)", path);
    size_t m = 0;
    unsigned char *now = read_all(path, &m);
    check(now && m == n && memcmp(now, good, n) == 0, "ckpt/bad-names-previous-intact", "the previous checkpoint changed");
    free(now);
    st = gnn_train_state_check(ctx, path, NULL, 0, NULL);
    check(st == GNN_OK, "ckpt/bad-names-previous-loads", "%s: %s", gnn_status_name(st), gnn_last_error(ctx));
  }
  free(good);

  /* Tensor text files: the checksum line; old files (without it) load; damage is refused. */
  {
    char tp[4200], tq[4200];
    snprintf(tp, sizeof tp, "%s/p.tensors", argv[1]);
    snprintf(tq, sizeof tq, "%s/q.tensors", argv[1]);
    const float w[6] = {1, 2, 3, 4, 5, 6.5f}, bb[2] = {-1, 0.25f};
    const float *data[2] = {w, bb};
    st = gnn_tensor_file_write(ctx, tp, 2, names, ranks, dims, data);
    size_t tn = 0;
    unsigned char *t = read_all(tp, &tn);
    check(st == GNN_OK && t && strncmp((char *)t, "#gnn-tensors version 2 bytes ", 29) == 0, "tensors/checksum-line", "%s: %.60s",
          gnn_status_name(st), t ? (char *)t : "(no file)");
    gnn_tensor_file *tf = NULL;
    float got[6] = {0};
    st = gnn_tensor_file_read(ctx, tp, &tf);
    if (st == GNN_OK) st = gnn_tensor_file_get(ctx, tf, "W", 2, dims[0], got);
    check(st == GNN_OK && memcmp(got, w, sizeof w) == 0, "tensors/roundtrip", "%s: %s", gnn_status_name(st), gnn_last_error(ctx));
    gnn_tensor_file_free(tf);
    char *nl = t ? strchr((char *)t, '\n') : NULL;
    if (nl) {
      /* version 1: the same text without its checksum line */
      write_all(tq, nl + 1, tn - (size_t)(nl + 1 - (char *)t));
      tf = NULL;
      st = gnn_tensor_file_read(ctx, tq, &tf);
      if (st == GNN_OK) st = gnn_tensor_file_get(ctx, tf, "W", 2, dims[0], got);
      check(st == GNN_OK && memcmp(got, w, sizeof w) == 0, "tensors/old-format-loads", "%s: %s", gnn_status_name(st),
            gnn_last_error(ctx));
      gnn_tensor_file_free(tf);
      /* a changed digit: still well-formed text, refused by the sum */
      char *c = malloc(tn + 1);
      memcpy(c, t, tn);
      char *six = strstr(c + (nl + 1 - (char *)t), "6.5");
      if (six) six[0] = '7';
      write_all(tq, c, tn);
      tf = NULL;
      check_status(ctx, gnn_tensor_file_read(ctx, tq, &tf), GNN_ERR_FORMAT, "tensors/corrupted", "checksum mismatch", tq);
      check(tf == NULL, "tensors/corrupted-no-file", "a file object came back");
      write_all(tq, c, tn - 4);
      check_status(ctx, gnn_tensor_file_read(ctx, tq, &tf), GNN_ERR_FORMAT, "tensors/truncated", "truncated file", "expected");
      memcpy(c, t, tn);
      c[21] = '3'; /* "version 3" */
      write_all(tq, c, tn);
      check_status(ctx, gnn_tensor_file_read(ctx, tq, &tf), GNN_ERR_FORMAT, "tensors/version", "version 3",
                   "reads versions 1 and 2");
      free(c);
    }
    /* Repeated names: the reader refuses them, so the writer does, before the file is touched. */
    static const char *twice[3] = {"W", "b", "W"};
    static const int ranks3[3] = {2, 1, 2};
    static const int64_t dims3[3][4] = {{3, 2}, {2}, {3, 2}};
    const float *data3[3] = {w, bb, w};
    check_status(ctx, gnn_tensor_file_write(ctx, tp, 3, twice, ranks3, dims3, data3), GNN_ERR_INVALID,
                 "tensors/repeated-name", "tensor 2 'W' appears twice (first as tensor 0)", tp);
    size_t tm = 0;
    unsigned char *now = read_all(tp, &tm);
    check(now && t && tm == tn && memcmp(now, t, tn) == 0, "tensors/repeated-name-previous-intact", "the file changed");
    free(now);
    /* get_rows' errors carry its own name */
    tf = NULL;
    st = gnn_tensor_file_read(ctx, tp, &tf);
    check_status(ctx, st ? st : gnn_tensor_file_get_rows(ctx, tf, NULL, 1, 2, dims[0], got), GNN_ERR_INVALID,
                 "tensors/get-rows-name", "gnn_tensor_file_get_rows: no file or no name", NULL);
    check_status(ctx, st ? st : gnn_tensor_file_get_rows(ctx, tf, "W", -1, 2, dims[0], got), GNN_ERR_INVALID,
                 "tensors/get-rows-bad-shape", "gnn_tensor_file_get_rows: bad shape", NULL);
    check_status(ctx, st ? st : gnn_tensor_file_get(ctx, tf, "W", 2, dims[0], NULL), GNN_ERR_INVALID,
                 "tensors/get-bad-shape", "gnn_tensor_file_get: bad shape", NULL);
    gnn_tensor_file_free(tf);
    free(t);
  }
  gnn_ctx_destroy(ctx);
  return rt_finish();
}
