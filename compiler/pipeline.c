/* pipeline.c -- the pass pipeline, read top to bottom, with its dumps, timers and checks.
 *
 *   sema -> canonicalize -> reorg -> autodiff -> compose -> checkpoint -> fuse -> hoist -> (lower, to the kernel IR,
 *   when code is wanted or --stats asks for its accounting)
 *
 * After each step: the verifier (a failure is an internal error, reported with the pass's
 * name), --print-ir-after dumps ("(unchanged)" when the pass did nothing), --stats totals,
 * and the pass's wall time for --time-passes. -O0 switches off the optimisations, not autodiff: a training module
 * stays a training module (-fno-autodiff builds inference only). reorg runs before autodiff
 * so that the backward is derived from the reorganised forward (projections per vertex).
 */
#include "pipeline.h"
#include "lower.h"
#include "kstats.h"
#include "gpucost.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const PassInfo pass_table[] = {
    {.name = "canonicalize", .run = pass_canonicalize, .optional = true,
     .doc = "fold constants, expand mean, form gSDDMM scatters, CSE, DCE"},
    {.name = "reorg", .run = pass_reorg, .optional = true,
     .doc = "move projections from edges to vertices, destination terms out of reductions"},
    {.name = "autodiff", .run = pass_autodiff, .optional = true, .kept_at_O0 = true,
     .doc = "reverse-mode differentiation: append the backward pass and the grad.<param> outputs"},
    {.name = "compose", .run = pass_compose, .optional = true,
     .doc = "form Aggregate (gSpMM) from gather(apply_edge(scatter))"},
    {.name = "checkpoint", .run = pass_checkpoint, .optional = true,
     .doc = "recompute vs stash: what the backward reads of the forward (-fno-recompute: stash all)"},
    {.name = "fuse", .run = pass_fuse, .optional = true,
     .doc = "partition into kernels: walks over edges, row kernels and GEMMs; inline what needs no memory"},
    {.name = "hoist", .run = pass_hoist, .optional = true,
     .doc = "edge values of the graph alone (degrees, constants) computed once per graph, not in every walk"},
};
const int pass_count = (int)(sizeof pass_table / sizeof pass_table[0]);

void gnn_ctx_init(GnnCtx *c, const char *path, const char *text, size_t size, FILE *diag_out) {
  memset(c, 0, sizeof *c);
  c->diag.path = path;
  c->diag.text = text;
  c->diag.size = size;
  c->diag.out = diag_out;
  c->diag.max_errors = 20;
  c->diag.arena = &c->arena;
  c->value_budget = 100000;
  c->prog = arena_alloc(&c->arena, sizeof(Program));
}

void gnn_ctx_free(GnnCtx *c) { arena_free(&c->arena); }

bool pipeline_has_pass(const char *name) {
  if (strcmp(name, "sema") == 0 || strcmp(name, "lower") == 0) return true;
  for (int i = 0; i < pass_count; i++)
    if (strcmp(pass_table[i].name, name) == 0) return true;
  return false;
}

static bool listed(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* A pass is skipped when -fno-NAME names it, or under -O0 if it is an optimisation. */
static bool pass_off(const PassInfo *p, const PipelineOpts *o) {
  return p->optional && (listed(o->disabled, o->ndisabled, p->name) || (o->O0 && !p->kept_at_O0));
}

bool pipeline_pass_off(const PipelineOpts *o, const char *name) {
  for (int i = 0; i < pass_count; i++)
    if (strcmp(pass_table[i].name, name) == 0) return pass_off(&pass_table[i], o);
  return false;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
  CostPoly flops, bytes, peak_poly; /* sums over the module; the live set at the symbolic peak */
  double peak;                      /* the largest live sum at the given |V|, |E| */
} Totals;

/* Lexicographic order of polynomials by the |E| coefficient, then |V|, then the constant:
 * the order of their values when |E| >> |V| >> 1. */
static bool poly_greater(CostPoly a, CostPoly b) {
  if (a.e != b.e) return a.e > b.e;
  if (a.v != b.v) return a.v > b.v;
  return a.c > b.c;
}

/* Totals of the cost model. The peak is the largest sum of live bytes when every value lives
 * from its definition to its last use; inputs and parameters live throughout. peak is taken at
 * the given sizes, peak_poly in the order of poly_greater. */
static Totals totals(const Module *m, double V, double E) {
  Totals t = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0};
  int n = m->vals.len;
  int *last = calloc((size_t)n + 1, sizeof(int));
  bool *freed = calloc((size_t)n + 1, sizeof(bool));
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    last[i] = i;
    for (int k = 0; k < v->nargs; k++) last[v->args[k]->id] = i;
  }
  for (int i = 0; i < m->nouts; i++) last[m->outs[i].val->id] = n;
  CostPoly live = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    const Value *v = m->vals.items[i];
    Cost c = cost_of(v);
    cost_add(&t.flops, c.flops);
    cost_add(&t.bytes, c.read);
    cost_add(&t.bytes, c.write);
    cost_add(&live, c.live);
    if (cost_eval(live, V, E) > t.peak) t.peak = cost_eval(live, V, E);
    if (poly_greater(live, t.peak_poly)) t.peak_poly = live;
    const Value *dying[GNN_MAX_ARGS + 1];
    int nd = 0;
    for (int k = 0; k < v->nargs; k++) dying[nd++] = v->args[k];
    dying[nd++] = v;
    for (int k = 0; k < nd; k++) {
      const Value *w = dying[k];
      if (last[w->id] != i || freed[w->id] || w->op == OP_INPUT || w->op == OP_PARAM) continue;
      freed[w->id] = true;
      CostPoly l = cost_of(w).live;
      live.c -= l.c, live.v -= l.v, live.e -= l.e;
    }
  }
  free(last);
  free(freed);
  return t;
}

/* "2*E + 4*V + 64": the nonzero terms, |E| first; "0" if none. */
static void poly_print(FILE *out, CostPoly p) {
  double coef[3] = {p.e, p.v, p.c};
  const char *var[3] = {"*E", "*V", ""};
  bool any = false;
  for (int i = 0; i < 3; i++) {
    if (coef[i] == 0) continue;
    fprintf(out, "%s%.17g%s", any ? " + " : "", coef[i], var[i]);
    any = true;
  }
  if (!any) fputc('0', out);
}

static void print_stats(FILE *out, const char *after, const Module *m, const PipelineOpts *o, Totals *prev) {
  Totals t = totals(m, o->stats_V, o->stats_E);
  if (o->stats) {
    double flops = cost_eval(t.flops, o->stats_V, o->stats_E), bytes = cost_eval(t.bytes, o->stats_V, o->stats_E);
    double pflops = cost_eval(prev->flops, o->stats_V, o->stats_E), pbytes = cost_eval(prev->bytes, o->stats_V, o->stats_E);
    fprintf(out, "stats after %-13s flops %.6g  bytes %.6g  peak-live %.6g", after, flops, bytes, t.peak);
    if (pflops > 0 || pbytes > 0)
      fprintf(out, "  (x%.3g flops, x%.3g bytes vs before)", flops / (pflops ? pflops : 1), bytes / (pbytes ? pbytes : 1));
    fputc('\n', out);
  }
  if (o->stats_symbolic) {
    fprintf(out, "stats after %-13s flops ", after);
    poly_print(out, t.flops);
    fputs("  bytes ", out);
    poly_print(out, t.bytes);
    fputs("  peak-live ", out);
    poly_print(out, t.peak_poly);
    fputc('\n', out);
  }
  *prev = t;
}

static bool after_pass(GnnCtx *c, Module *m, const char *name, bool changed, const PipelineOpts *o, Totals *prev) {
  if (o->verify_each) {
    int bad = ir_verify(m, stderr);
    if (bad) {
      fprintf(stderr, "%s: internal error: the IR is invalid after pass '%s' (%d problems)\n", c->diag.path, name, bad);
      c->diag.errors++;
      return false;
    }
  }
  if (o->print_after_all || listed(o->print_after, o->nprint_after, name)) {
    fprintf(o->out, "// -----// IR after %s%s //----- //\n", name, changed ? "" : " (unchanged)");
    ir_print(o->out, m);
  }
  if (o->stats || o->stats_symbolic) print_stats(o->out, name, m, o, prev);
  return true;
}

/* --input-grads names forward inputs of the model, and needs autodiff (a command-line error:
 * no source location to point at). */
static bool input_grads_valid(GnnCtx *c, const Module *m, const PipelineOpts *o) {
  const PassInfo *ad = NULL;
  for (int i = 0; i < pass_count; i++)
    if (strcmp(pass_table[i].name, "autodiff") == 0) ad = &pass_table[i];
  if (!ad || pass_off(ad, o)) {
    fprintf(stderr, "gnnc: error: --input-grads needs the autodiff pass (it is off: -fno-autodiff)\n");
    c->diag.errors++;
    return false;
  }
  int nin = 0;
  for (int i = 0; i < m->vals.len; i++) {
    const Value *v = m->vals.items[i];
    nin += v->op == OP_INPUT && !v->bwd;
  }
  if (nin > 64) { /* the generated model asks for them with a 64-bit mask */
    fprintf(stderr, "gnnc: error: --input-grads: model %s has %d inputs; input gradients support at most 64\n", m->name, nin);
    c->diag.errors++;
    return false;
  }
  if (strcmp(o->input_grads, "all") == 0) return true;
  bool ok = true;
  for (const char *p = o->input_grads; ok;) {
    const char *q = strchr(p, ',');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    bool found = false;
    for (int i = 0; i < m->vals.len && n; i++) {
      const Value *v = m->vals.items[i];
      found |= v->op == OP_INPUT && !v->bwd && strlen(v->name) == n && strncmp(v->name, p, n) == 0;
    }
    if (!found) {
      fprintf(stderr, "gnnc: error: --input-grads: model %s has no input '%.*s' (its inputs:", m->name, (int)n, p);
      for (int i = 0; i < m->vals.len; i++) {
        const Value *v = m->vals.items[i];
        if (v->op == OP_INPUT && !v->bwd) fprintf(stderr, " %s", v->name);
      }
      fputs("; or all)\n", stderr);
      c->diag.errors++;
      ok = false;
    }
    if (!q) break;
    p = q + 1;
  }
  return ok;
}

/* Module.program: the model's computation named by the IR sema produced (a printed IR is the
 * module's whole meaning; value ids and names are sema's, deterministic from the source), less
 * the parameters' initial values: a resume loads the parameters, so where they started is no
 * part of what the checkpoint must match (ir_print writes them as {init = X} while iattr is set). */
static bool name_program(Module *m) {
  int64_t *declared = calloc((size_t)m->vals.len + 1, sizeof(int64_t));
  if (!declared) return false;
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    if (v->op == OP_PARAM) declared[i] = v->iattr, v->iattr = 0;
  }
  char *text = ir_to_string(m);
  for (int i = 0; i < m->vals.len; i++) {
    Value *v = m->vals.items[i];
    if (v->op == OP_PARAM) v->iattr = declared[i];
  }
  free(declared);
  if (!text) return false;
  Sha256 h;
  sha256_init(&h);
  sha256_update(&h, text, strlen(text));
  free(text);
  char hex[65];
  sha256_hex(&h, hex);
  m->program = arena_strndup(m->arena, hex, 16);
  return true;
}

static Module *compile_once(GnnCtx *c, const PipelineOpts *o) {
  Totals prev = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0};
  c->mapping = o->mapping;
  c->edge_ids = o->edge_ids;
  c->nedge_ids = o->nedge_ids;
  c->remarks = o->remarks;
  c->recompute_level = o->recompute_all;
  c->fold_dots = o->fold_dots;
  c->input_grads = o->input_grads;
  c->split_hubs = o->split_hubs;
  c->no_sum_staging = o->no_sum_staging;
  c->serial_dots = o->serial_dots;
  c->gemm_tf32 = o->gemm_tf32;
  c->spmm_library = o->spmm_library;
  c->vector_loads = o->vector_loads;
  c->tile_columns = o->tile_columns > 0 ? o->tile_columns : 0; /* auto: chosen after a first lowering */
  double t0 = now();
  double times[64];
  Module *m = sema_lower(c);
  times[0] = now() - t0;
  if (!m) return NULL;
  module_count_uses(m);
  if (!name_program(m)) {
    fprintf(stderr, "%s: error: out of memory\n", c->diag.path);
    c->diag.errors++;
    return NULL;
  }
  if (!after_pass(c, m, "sema", true, o, &prev)) return NULL;
  if (o->input_grads && !input_grads_valid(c, m, o)) return NULL;
  for (int i = 0; i < pass_count; i++) {
    const PassInfo *p = &pass_table[i];
    times[i + 1] = 0;
    if (pass_off(p, o)) continue;
    if (listed(o->print_before, o->nprint_before, p->name)) {
      fprintf(o->out, "// -----// IR before %s //----- //\n", p->name);
      ir_print(o->out, m);
    }
    double t = now();
    bool changed = p->run(c, m);
    times[i + 1] = now() - t;
    if (!after_pass(c, m, p->name, changed, o, &prev)) return NULL;
  }
  /* The last step: the operator IR to the kernel IR, when code is wanted or its dump asked for. */
  bool dump_lower = o->print_after_all || listed(o->print_after, o->nprint_after, "lower");
  double tl = 0;
  if (o->lower || dump_lower || o->stats || o->print_plan || o->gpu) {
    if (listed(o->print_before, o->nprint_before, "lower")) {
      fprintf(o->out, "// -----// IR before lower //----- //\n");
      ir_print(o->out, m);
    }
    /* --edge-balanced, as the lowering reads it: per value id (the decision passed down, so
     * that the lowering never asks the context) */
    bool *edge_named = arena_alloc(&c->arena, (size_t)m->vals.len + 1);
    for (int i = 0; i < m->vals.len; i++) {
      const Value *v = m->vals.items[i];
      edge_named[v->id] = ctx_edge_balanced(c, v->id);
    }
    double t = now();
    if (o->spmm_library && !m->fused && c->diag.out) /* the fuse pass chooses SpMM steps: unfused, every sum is a kernel */
      fprintf(c->diag.out, "%s: note: --spmm=cusparse: the module is not fused (-fno-fuse, -O0, or graph-level values), so its sums "
              "stay kernels of their own\n", c->diag.path);
    c->kprog = lower_module(c, m, (MappingChoice)o->mapping, edge_named);
    if (c->kprog && o->tile_columns < 0) { /* --tile-columns=auto: the GPU estimate chooses per kernel, then lower again */
      int nk = c->kprog->kernels.len;
      TileChoice *ch = arena_alloc(&c->arena, sizeof(TileChoice) * ((size_t)nk + 1));
      int *tiles = arena_alloc(&c->arena, sizeof(int) * ((size_t)nk + 1));
      if (!gpucost_choose_tiles(c->kprog, o->gpu, o->gpu_graph, ch)) {
        c->diag.errors++;
        return NULL;
      }
      for (int i = 0; i < nk; i++) tiles[i] = ch[i].tiles;
      c->tiles_of_kernel = tiles, c->ntiles_of_kernel = nk;
      c->kprog = lower_module(c, m, (MappingChoice)o->mapping, edge_named);
      int dropped = c->kprog ? gpucost_check_tiles(c->kprog, o->gpu, o->gpu_graph, ch) : 0; /* as compiled */
      if (dropped < 0) {
        c->diag.errors++;
        return NULL;
      }
      if (dropped > 0) {
        for (int i = 0; i < nk; i++) tiles[i] = ch[i].tiles;
        c->kprog = lower_module(c, m, (MappingChoice)o->mapping, edge_named);
      }
      for (int i = 0; c->kprog && c->diag.out && i < c->kprog->kernels.len && i < nk; i++) { /* (the same kernels: ids match) */
        const Kernel *k = c->kprog->kernels.items[i];
        if (k->col_tiles > 1)
          fprintf(c->diag.out, "%s: note: kernel %s in %d column tiles of %lld (--tile-columns=auto): the %s estimate on %s, "
                               "%.3f -> %.3f ms (gathered rows missing L2 on %.1f%% -> %.1f%% of the edges)\n",
                  c->diag.path, k->name, k->col_tiles, (long long)k->col_tile, o->gpu, o->gpu_graph, 1e3 * ch[i].ms,
                  1e3 * ch[i].tiled_ms, 100 * ch[i].miss, 100 * ch[i].tiled_miss);
      }
    }
    tl = now() - t;
    if (!c->kprog) {
      c->diag.errors++;
      return NULL;
    }
    if (o->verify_each && kir_verify(c->kprog, stderr) != 0) {
      fprintf(stderr, "internal error: the kernel IR is invalid after lower\n");
      c->diag.errors++;
      c->kprog = NULL;
      return NULL;
    }
    if (dump_lower) {
      fprintf(o->out, "// -----// IR after lower //----- //\n");
      kir_print(o->out, c->kprog);
    }
    if (o->stats) { /* the kernels' bytes, beside the same module lowered one kernel per operator */
      bool fused = m->fused;
      m->fused = false;
      KProgram *unfused = fused ? lower_module(c, m, (MappingChoice)o->mapping, edge_named) : NULL;
      m->fused = fused;
      kprog_stats(o->out, c->kprog, unfused, o->stats_V, o->stats_E);
      if (unfused) kprog_ops_check(c->diag.out, c->kprog, unfused, o->stats_V, o->stats_E); /* a warning, not an error */
    }
    if (o->print_plan) kprog_print_memory_plan(o->out, c->kprog, o->stats_V, o->stats_E);
    if (o->gpu && !gpucost_report(o->out, c->kprog, o->gpu, o->gpu_graph)) {
      c->diag.errors++;
      return NULL;
    }
  }
  if (o->time_passes) {
    double total = now() - t0;
    fprintf(stderr, "===-------------------------------------------------------------------------===\n");
    fprintf(stderr, "                          gnnc pass execution timing report\n");
    fprintf(stderr, "===-------------------------------------------------------------------------===\n");
    fprintf(stderr, "  Total: %.4f ms\n\n   Wall time (ms)   %%     Name\n", total * 1e3);
    fprintf(stderr, "   %12.4f  %5.1f%%  %s\n", times[0] * 1e3, 100 * times[0] / total, "sema");
    for (int i = 0; i < pass_count; i++) {
      if (!pass_off(&pass_table[i], o)) fprintf(stderr, "   %12.4f  %5.1f%%  %s\n", times[i + 1] * 1e3, 100 * times[i + 1] / total, pass_table[i].name);
    }
    if (c->kprog) fprintf(stderr, "   %12.4f  %5.1f%%  %s\n", tl * 1e3, 100 * tl / total, "lower");
  }
  return m;
}

/* --memory-budget: the plans from fastest to smallest (stash everything the backward reads;
 * the cost model's choice; recompute all that can be), each compiled quietly and measured at
 * the given |V|, |E|; the first whose memory fits is compiled for real. Compiling is cheap
 * (milliseconds), and measuring the lowered program is exact: the same plan the library makes. */
Module *gnn_compile(GnnCtx *c, const PipelineOpts *o) {
  if (o->memory_budget <= 0) return compile_once(c, o);
  static const char *const names[3] = {"stash all (-fno-recompute)", "the cost model (default)", "recompute all (--recompute=all)"};
  PipelineOpts plans[3];
  double need[3];
  for (int k = 0; k < 3; k++) {
    PipelineOpts q = *o;
    if (k == 0 && q.ndisabled < 16) q.disabled[q.ndisabled++] = "checkpoint";
    q.recompute_all = k == 2;
    plans[k] = q;
    q.print_after_all = q.time_passes = q.stats = q.stats_symbolic = q.print_plan = false;
    q.nprint_after = q.nprint_before = 0;
    q.lower = true;
    FILE *diag = c->diag.out;
    c->diag.out = NULL;
    int errors = c->diag.errors;
    Module *m = compile_once(c, &q);
    c->diag.out = diag;
    if (!m || !c->kprog) {
      c->diag.errors = errors;
      return compile_once(c, o); /* reports the errors */
    }
    need[k] = kprog_memory_plan(c->kprog, o->stats_V, o->stats_E).total;
  }
  for (int k = 0; k < 3; k++) {
    if (need[k] > o->memory_budget) continue;
    if (c->diag.out)
      fprintf(c->diag.out, "%s: note: --memory-budget=%.0f: the plan '%s' needs %s at V=%.17g, E=%.17g%s\n", c->diag.path,
              o->memory_budget, names[k], kstats_human(need[k]), o->stats_V, o->stats_E,
              k == 0 ? " (the fastest)" : "");
    return compile_once(c, &plans[k]);
  }
  int best = 0;
  for (int k = 1; k < 3; k++)
    if (need[k] < need[best]) best = k;
  if (c->diag.out)
    fprintf(c->diag.out, "%s: error: --memory-budget=%.0f (%s) is below the smallest plan at V=%.17g, E=%.17g: '%s' needs %.0f bytes (%s)\n",
            c->diag.path, o->memory_budget, kstats_human(o->memory_budget), o->stats_V, o->stats_E, names[best],
            need[best], kstats_human(need[best]));
  c->diag.errors++;
  return NULL;
}
