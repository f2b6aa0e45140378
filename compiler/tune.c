/* tune.c -- the mapping tuner (--tune-mapping=GRAPH): per reduction, vertex- or edge-balanced,
 * chosen by timing the candidates on the graph the library is for.
 *
 * The paper (section 5) "can select between vertex-balanced or edge-balanced mapping based on
 * performance profiling": which one wins depends on the machine (what an atomic costs, how many
 * groups run at once) and on the graph (its largest in-degree against its edge count), neither
 * of which the compiler sees. So the tuner measures. It compiles the module once to find the
 * reductions that may run either way (a sum, mean, max or min over the edges of a vertex, or an
 * aggregate: not edge_softmax, argmax/argmin or a softmax's statistics), then builds one
 * library per plan -- all vertex-balanced, and each candidate alone edge-balanced -- times each
 * with gnn-run on the graph (a training step for a training library, else a forward), in
 * interleaved rounds with the thread count fixed, and keeps the fastest; when several
 * candidates win alone, their union is timed too. The plan is printed as the --edge-balanced
 * option that reproduces it, and the caller compiles the output with it.
 *
 * Then the schedules (issue 29): the chosen plan against itself with hub rows in pieces
 * (--split-hubs), in column tiles of 64 and of 32 (--tile-columns), and with its plain weighted
 * sums as SpMM steps (--spmm=cusparse), each only where the caller did not ask for it (nor, for
 * SpMM steps, against it: --spmm=fused keeps the walks) and where
 * it changes a kernel or a step (a graph without long rows, a model without wide gathers or
 * plain sums: nothing to time), interleaved again, by the same rule. Whether they pay
 * depends on the machine even more than the mapping does: column tiles are for a GPU's L2, and
 * on the host the repeated walks cost more than the cache saves (docs/benchmarks.md).
 */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TUNE_MAX_CANDIDATES 32
#define TUNE_MAX_PLANS (TUNE_MAX_CANDIDATES + 2)
#define TUNE_MAX_ROUNDS 15

typedef struct {
  int ids[TUNE_MAX_CANDIDATES];
  int n;
  bool split_hubs;   /* the schedules: --split-hubs, --tile-columns (0: the caller's), --spmm=cusparse */
  int tile_columns;
  bool spmm;
  char label[128];
  char lib[4096];
  double ms[TUNE_MAX_ROUNDS];
  int nms;
} Plan;

/* The reductions of m that may run edge-balanced: fuse's rule (fuse.c, step 3). */
static int candidates(const Module *m, int *ids, char labels[][64], int cap) {
  int n = 0;
  for (int i = 0; i < m->vals.len && n < cap; i++) {
    const Value *v = m->vals.items[i];
    if (v->sched != SCHED_ANCHOR) continue;
    if (v->op != OP_GATHER && v->op != OP_AGGREGATE) continue;
    if (v->fn == FN_ARGMAX || v->fn == FN_ARGMIN || v->stat_of) continue;
    snprintf(labels[n], 64, "%%%d %s.%s%s", v->id, op_info[v->op].name, fn_info[v->fn].name, v->bwd ? " (backward)" : "");
    ids[n++] = v->id;
  }
  return n;
}

/* The caller's options with every dump off: the tuner's compiles print nothing of their own. */
static PipelineOpts quiet_opts(const TuneArgs *t, FILE *quiet) {
  PipelineOpts o = *t->popts;
  o.print_after_all = o.time_passes = o.stats = o.stats_symbolic = o.print_plan = false;
  o.nprint_after = o.nprint_before = 0;
  o.out = quiet;
  return o;
}

static bool compile_plan(const TuneArgs *t, const Plan *p, FILE *quiet, GnnCtx *c) {
  gnn_ctx_init(c, t->path, t->text, t->size, quiet);
  c->model_name = t->model_name;
  PipelineOpts o = quiet_opts(t, quiet);
  o.edge_ids = p->ids;
  o.nedge_ids = p->n;
  o.split_hubs |= p->split_hubs;
  if (p->tile_columns) o.tile_columns = p->tile_columns;
  o.spmm_library |= p->spmm;
  o.memory_budget = 0;
  o.remarks = false;
  o.lower = true;
  Module *m = gnn_parse(c) ? gnn_compile(c, &o) : NULL;
  return m && c->kprog && c->diag.errors == 0;
}

/* Builds plan p's library; a plan with a schedule (hub pieces, column tiles, SpMM steps) only when
 * some kernel (step) of it takes that schedule: one that changes nothing is not worth timing. 1:
 * built, 0: nothing changed (nothing built), -1: failed. With SpMM steps, the plan's ids that are
 * no longer reductions over the edges (sums that became library calls: their --edge-balanced
 * changed nothing but a note) are dropped from p. */
static int build_plan_if_changed(const TuneArgs *t, Plan *p, FILE *quiet) {
  GnnCtx c;
  bool ok = compile_plan(t, p, quiet, &c), has = !p->split_hubs && !p->tile_columns && !p->spmm;
  if (ok && p->spmm) {
    int n = 0;
    for (int i = 0; i < p->n; i++) {
      const Value *v = p->ids[i] < c.mod->vals.len ? c.mod->vals.items[p->ids[i]] : NULL;
      if (v && v->sched == SCHED_ANCHOR) p->ids[n++] = p->ids[i];
    }
    p->n = n;
  }
  for (int i = 0; ok && !has && !p->spmm && i < c.kprog->kernels.len; i++) {
    const Kernel *k = c.kprog->kernels.items[i];
    has = p->split_hubs ? k->pieces : k->col_tiles > 1;
  }
  for (int i = 0; ok && !has && p->spmm && i < c.kprog->nsteps; i++) has = c.kprog->steps[i].kind == STEP_SPMM;
  if (ok && has) {
    EmitOpts eo = *t->eopts;
    eo.emit = NULL;
    eo.output = p->lib;
    eo.keep = false;
    ok = gnn_emit(c.kprog, &eo);
  }
  gnn_ctx_free(&c);
  return !ok ? -1 : has ? 1 : 0;
}

static bool build_plan(const TuneArgs *t, Plan *p, FILE *quiet) { return build_plan_if_changed(t, p, quiet) == 1; }

/* gnn-run: $GNNC_GNN_RUN, beside gnnc (an install's bin/), in the build's bin/ (build/gnnc) or
 * the one beside it (build/asan/gnnc), else on PATH. */
static char *find_gnn_run(void) {
  const char *e = getenv("GNNC_GNN_RUN");
  if (e && *e) return strdup(e);
  char *dir = gnnc_exe_dir();
  if (dir) {
    static const char *const rel[] = {"/gnn-run", "/bin/gnn-run", "/../bin/gnn-run"};
    for (int i = 0; i < 3; i++) {
      size_t n = strlen(dir) + strlen(rel[i]) + 1;
      char *p = malloc(n);
      snprintf(p, n, "%s%s", dir, rel[i]);
      if (access(p, X_OK) == 0) {
        free(dir);
        return p;
      }
      free(p);
    }
    free(dir);
  }
  return strdup("gnn-run");
}

/* Runs argv with stdout and stderr into buf; the exit status (or -1). */
static int run_capture(char *const argv[], char *buf, size_t cap) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0;
  for (;;) {
    char tmp[4096];
    ssize_t r = read(fd[0], tmp, sizeof tmp);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    size_t take = (size_t)r < cap - 1 - len ? (size_t)r : cap - 1 - len; /* keep the first cap bytes */
    memcpy(buf + len, tmp, take);
    len += take;
  }
  buf[len] = 0;
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One timing of a plan's library: gnn-run's median, in ms; < 0 after printing why. */
static double time_plan(const TuneArgs *t, const char *gnn_run, const Plan *p, bool training) {
  char repeat[32];
  snprintf(repeat, sizeof repeat, "%d", t->repeat);
  char *argv[16];
  int n = 0;
  argv[n++] = (char *)gnn_run;
  argv[n++] = (char *)p->lib;
  argv[n++] = "--graph";
  argv[n++] = (char *)t->graph;
  argv[n++] = "--repeat";
  argv[n++] = repeat;
  argv[n++] = "--warmup";
  argv[n++] = "1";
  argv[n++] = "--rows";
  argv[n++] = "0";
  if (training) argv[n++] = "--backward";
  if (t->self_loops) argv[n++] = "--self-loops";
  argv[n] = NULL;
  static char out[1 << 16];
  int rc = run_capture(argv, out, sizeof out);
  const char *key = training ? "time per training step: " : "time per forward: ";
  const char *at = strstr(out, key);
  if (rc != 0 || !at) {
    /* the last line gnn-run printed says why */
    size_t len = strlen(out);
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' ')) out[--len] = 0;
    const char *last = strrchr(out, '\n');
    fprintf(stderr, "gnnc: --tune-mapping: cannot time '%s' on %s: %s\n", p->label, t->graph,
            len ? (last ? last + 1 : out) : "gnn-run printed nothing");
    return -1;
  }
  return strtod(at + strlen(key), NULL);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const Plan *p) {
  double s[TUNE_MAX_ROUNDS];
  memcpy(s, p->ms, sizeof(double) * (size_t)p->nms);
  qsort(s, (size_t)p->nms, sizeof s[0], cmp_double);
  return p->nms % 2 ? s[p->nms / 2] : 0.5 * (s[p->nms / 2 - 1] + s[p->nms / 2]);
}

static double slowest(const Plan *p) {
  double s = p->ms[0];
  for (int i = 1; i < p->nms; i++) s = p->ms[i] > s ? p->ms[i] : s;
  return s;
}

/* A plan beats the baseline when its median is at least 2% lower and even its slowest round
 * is faster than the baseline's median: a tie keeps vertex-balanced (no atomics, the sums in
 * edge order, the same bits every run). */
static bool beats(const Plan *p, const Plan *base) {
  return p->nms > 0 && median(p) <= 0.98 * median(base) && slowest(p) < median(base);
}

/* Times plans [from, to) in interleaved rounds (A, B, C, A, B, C, ...). */
static bool time_rounds(const TuneArgs *t, const char *gnn_run, Plan *plans, int from, int to, bool training) {
  for (int r = 0; r < t->rounds; r++)
    for (int i = from; i < to; i++) {
      double ms = time_plan(t, gnn_run, &plans[i], training);
      if (ms < 0) return false;
      plans[i].ms[plans[i].nms++] = ms;
    }
  return true;
}

/* The schedules against the chosen mapping plan (plans[0] on entry, timed already): each that
 * changes a kernel is built and timed with it, interleaved; the winner's flags are set. False
 * after saying why. */
static bool tune_schedules(const TuneArgs *t, const char *gnn_run, Plan *plans, const char *dir, FILE *quiet, bool training,
                           bool *split_hubs, int *tile_columns, bool *spmm) {
  static const struct { bool pieces; int tiles; bool spmm; const char *label; } sched[] = {
      {true, 0, false, "hub rows in pieces (--split-hubs)"},
      {false, 64, false, "column tiles of 64 (--tile-columns=64)"},
      {false, 32, false, "column tiles of 32 (--tile-columns=32)"},
      {false, 0, true, "weighted sums as SpMM steps (--spmm=cusparse)"}};
  int np = 1, skipped = 0;
  for (size_t s = 0; s < sizeof sched / sizeof sched[0]; s++) {
    /* the caller's choice stands */
    if ((sched[s].pieces && *split_hubs) || (sched[s].tiles && *tile_columns) || (sched[s].spmm && (*spmm || t->spmm_given))) continue;
    Plan *p = &plans[np];
    memcpy(p->ids, plans[0].ids, sizeof p->ids);
    p->n = plans[0].n;
    p->split_hubs = sched[s].pieces;
    p->tile_columns = sched[s].tiles;
    p->spmm = sched[s].spmm;
    snprintf(p->label, sizeof p->label, "%s", sched[s].label);
    snprintf(p->lib, sizeof p->lib, "%s/sched%d.so", dir, np);
    int built = build_plan_if_changed(t, p, quiet);
    if (built < 0) {
      fprintf(stderr, "gnnc: --tune-mapping: building the plan '%s' failed\n", p->label);
      return false;
    }
    if (!built) { /* nothing it would change on this model */
      skipped++;
      memset(p, 0, sizeof *p);
      continue;
    }
    np++;
  }
  if (np == 1) {
    fprintf(stderr, "gnnc: --tune-mapping: no schedule to time: %s\n",
            skipped ? "neither hub pieces, column tiles nor SpMM steps change this model's kernels" : "the schedules were given");
    return true;
  }
  fprintf(stderr, "gnnc: --tune-mapping: timing the chosen plan against %d schedule%s\n", np - 1, np == 2 ? "" : "s");
  plans[0].nms = 0; /* the baseline timed again, interleaved with the schedules, after a run untimed */
  if (time_plan(t, gnn_run, &plans[0], training) < 0 || !time_rounds(t, gnn_run, plans, 0, np, training)) return false;
  int best = 0;
  for (int i = 1; i < np; i++)
    if (beats(&plans[i], &plans[0]) && median(&plans[i]) < median(&plans[best])) best = i;
  double base = median(&plans[0]);
  fprintf(stderr, "  %-56s %12s %10s\n", "schedule", "ms (median)", "speed-up");
  for (int i = 0; i < np; i++)
    fprintf(stderr, "  %-56s %12.3f %9.2fx%s\n", i ? plans[i].label : "the chosen plan as it is", median(&plans[i]),
            base / median(&plans[i]), i == best ? "  <- chosen" : i > 0 && beats(&plans[i], &plans[0]) ? "  (wins)" : "");
  *split_hubs |= plans[best].split_hubs;
  if (plans[best].tile_columns) *tile_columns = plans[best].tile_columns;
  *spmm |= plans[best].spmm;
  if (plans[best].spmm && plans[best].n != plans[0].n) { /* the mapping plan without the sums that became SpMM steps */
    plans[0].n = plans[best].n;
    memcpy(plans[0].ids, plans[best].ids, sizeof plans[0].ids);
    fprintf(stderr, "gnnc: --tune-mapping: with SpMM steps, the plan's edge-balanced reductions: %s", plans[0].n ? "--edge-balanced=" : "none");
    for (int i = 0; i < plans[0].n; i++) fprintf(stderr, "%s%d", i ? "," : "", plans[0].ids[i]);
    fputc('\n', stderr);
  }
  fprintf(stderr, "gnnc: --tune-mapping: chosen schedule: %s\n", best ? plans[best].label : "as it is (no schedule wins)");
  return true;
}

int tune_mapping(const TuneArgs *t, int *chosen, int cap, bool *split_hubs, int *tile_columns, bool *spmm) {
  FILE *quiet = fopen("/dev/null", "w");
  if (!quiet) {
    fprintf(stderr, "gnnc: --tune-mapping: cannot open /dev/null: %s\n", strerror(errno));
    return -1;
  }
  static Plan plans[TUNE_MAX_PLANS];
  memset(plans, 0, sizeof plans);
  int ids[TUNE_MAX_CANDIDATES];
  char labels[TUNE_MAX_CANDIDATES][64];
  GnnCtx c;
  Module *m = NULL;
  int ncand = 0;
  bool training = false;
  /* the candidates, from the module compiled as asked (diagnostics as usual) */
  gnn_ctx_init(&c, t->path, t->text, t->size, stderr);
  c.model_name = t->model_name;
  PipelineOpts o = quiet_opts(t, quiet);
  if (gnn_parse(&c) && (m = gnn_compile(&c, &o)) && c.diag.errors == 0) {
    ncand = candidates(m, ids, labels, TUNE_MAX_CANDIDATES);
    for (int i = 0; i < m->vals.len && !training; i++) training = ((const Value *)m->vals.items[i])->bwd;
  }
  bool compiled = m && c.diag.errors == 0;
  gnn_ctx_free(&c);
  if (!compiled) {
    fclose(quiet);
    return -1;
  }
  char dir[3072];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/gnnc-tune-XXXXXX", tmp && *tmp && strlen(tmp) < 3000 ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "gnnc: --tune-mapping: cannot make a temporary folder: %s\n", strerror(errno));
    fclose(quiet);
    return -1;
  }
  int np = 0;
  snprintf(plans[np].label, sizeof plans[np].label, "all vertex-balanced");
  np++;
  for (int i = 0; i < ncand; i++, np++) {
    plans[np].ids[0] = ids[i];
    plans[np].n = 1;
    snprintf(plans[np].label, sizeof plans[np].label, "%.64s edge-balanced", labels[i]);
  }
  const char *threads = getenv("OMP_NUM_THREADS");
  fprintf(stderr, "gnnc: --tune-mapping: %d reduction%s can run either way; timing %d plan%s on %s (%s, OMP_NUM_THREADS=%s, %s, %d rounds of --repeat %d, interleaved)\n",
          ncand, ncand == 1 ? "" : "s", np, np == 1 ? "" : "s", t->graph,
          t->eopts->target == TARGET_HOST ? "host" : "cuda", threads && *threads ? threads : "unset",
          training ? "training step" : "inference forward", t->rounds, t->repeat);
  char *gnn_run = find_gnn_run();
  int rc = -1;
  int best = 0;
  for (int i = 0; i < np; i++) {
    snprintf(plans[i].lib, sizeof plans[i].lib, "%s/plan%d.so", dir, i);
    if (!build_plan(t, &plans[i], quiet)) {
      fprintf(stderr, "gnnc: --tune-mapping: building the plan '%s' failed\n", plans[i].label);
      goto done;
    }
    /* one untimed run of the first: a graph or machine gnn-run cannot use fails before the
     * other builds (nvcc takes seconds each), and the graph file is in the page cache */
    if (i == 0 && np > 1 && time_plan(t, gnn_run, &plans[0], training) < 0) goto done;
  }
  if (np > 1 && !time_rounds(t, gnn_run, plans, 0, np, training)) goto done;
  /* the candidates that win alone, together */
  if (np > 1) {
    Plan *u = &plans[np];
    for (int i = 1; i < np; i++)
      if (beats(&plans[i], &plans[0])) u->ids[u->n++] = plans[i].ids[0];
    if (u->n > 1) {
      snprintf(u->label, sizeof u->label, "the %d that win alone, edge-balanced", u->n);
      snprintf(u->lib, sizeof u->lib, "%s/plan%d.so", dir, np);
      if (!build_plan(t, u, quiet)) {
        fprintf(stderr, "gnnc: --tune-mapping: building the plan '%s' failed\n", u->label);
        goto done;
      }
      np++;
      Plan *pair[2] = {&plans[0], u}; /* the union against the baseline, interleaved again */
      for (int r = 0; r < t->rounds; r++)
        for (int k = 0; k < 2; k++) {
          double ms = time_plan(t, gnn_run, pair[k], training);
          if (ms < 0) goto done;
          if (pair[k]->nms < TUNE_MAX_ROUNDS) pair[k]->ms[pair[k]->nms++] = ms;
        }
    }
  }
  for (int i = 1; i < np; i++)
    if (beats(&plans[i], &plans[0]) && median(&plans[i]) < median(&plans[best])) best = i;
  if (np > 1) {
    double base = median(&plans[0]);
    fprintf(stderr, "  %-56s %12s %10s\n", "plan", "ms (median)", "speed-up");
    for (int i = 0; i < np; i++)
      fprintf(stderr, "  %-56s %12.3f %9.2fx%s\n", plans[i].label, median(&plans[i]), base / median(&plans[i]),
              i == best ? "  <- chosen" : i > 0 && beats(&plans[i], &plans[0]) ? "  (wins)" : "");
    fprintf(stderr, "  (a plan wins when its median is >= 2%% below the all-vertex-balanced median and its slowest round\n"
                    "  is below that median too; the fastest winner is chosen)\n");
  }
  if (plans[best].n > cap) goto done;
  memcpy(chosen, plans[best].ids, sizeof(int) * (size_t)plans[best].n);
  if (plans[best].n == 0) {
    fprintf(stderr, "gnnc: --tune-mapping: chosen: every reduction vertex-balanced%s\n",
            ncand ? "" : " (nothing to tune: no reduction of this module can run edge-balanced)");
  } else {
    fprintf(stderr, "gnnc: --tune-mapping: chosen: --edge-balanced=");
    for (int i = 0; i < plans[best].n; i++) fprintf(stderr, "%s%d", i ? "," : "", chosen[i]);
    fputc('\n', stderr);
  }
  /* the schedules, against the chosen plan (its library kept; the others' removed first) */
  if (best != 0) {
    remove(plans[0].lib);
    plans[0] = plans[best];
    memset(&plans[best], 0, sizeof plans[best]);
  }
  for (int i = 1; i < TUNE_MAX_PLANS; i++)
    if (plans[i].lib[0]) remove(plans[i].lib), memset(&plans[i], 0, sizeof plans[i]);
  if (!tune_schedules(t, gnn_run, plans, dir, quiet, training, split_hubs, tile_columns, spmm)) goto done;
  memcpy(chosen, plans[0].ids, sizeof(int) * (size_t)plans[0].n); /* (fewer, when SpMM steps won) */
  rc = plans[0].n;
done:
  for (int i = 0; i < TUNE_MAX_PLANS; i++)
    if (plans[i].lib[0]) remove(plans[i].lib);
  rmdir(dir);
  free(gnn_run);
  fclose(quiet);
  return rc;
}
