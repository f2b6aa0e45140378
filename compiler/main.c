/* main.c -- the gnnc driver: options, the pipeline, the emitters, and `gnnc run`.
 *
 *   gnnc [options] model.gnn              compile; print the IR (--emit=ir, the default) or DOT
 *   gnnc run [options] model.gnn --graph G  compile, then evaluate with the float64 interpreter
 *   gnnc gradcheck [options] model.gnn --graph G  autodiff's gradients vs finite differences (gradcheck.c)
 *
 * Exit status: 0 on success, 1 on errors in the input (program, graph, parameters),
 * 2 on a bad command line.
 */
#include "gpucost.h"
#include "tune.h"
#include "gradcheck.h"
#include "gnnrt_hostmem.h"
#include "gnnrt_omp.h"
#include "gnnrt_path.h"
#include "cli_value.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

static void usage(FILE *out) {
  fputs("usage: gnnc [options] FILE.gnn\n"
        "       gnnc run [options] FILE.gnn --graph PATH\n"
        "       gnnc gradcheck [options] FILE.gnn --graph PATH   (gnnc gradcheck --help)\n"
        "\n"
        "  gnnc --help | --version | --list-passes\n"
        "\n"
        "compile options:\n"
        "  -o FILE                 write the output to FILE instead of stdout; FILE.so builds a shared library\n"
        "  --emit=ir|dot|kir|cu|c|h  what to write: the operator IR (default), a Graphviz drawing, the kernel\n"
        "                          IR, CUDA source + header, host C source + header, or the header alone;\n"
        "                          with -o F.cu (F.c: -o must end so) the header goes to F.h beside it, without\n"
        "                          -o the source goes to stdout with its header inlined (one file that compiles\n"
        "                          alone); --emit=h writes its one file to -o as named\n"
        "  --target=cuda|host      the library's target (default cuda: nvcc and cuBLAS; host: cc, OpenMP, OpenBLAS)\n"
        "  --arch=sm_XX[,sm_YY]    GPU architectures for nvcc: SASS for each, and the PTX of the last one\n"
        "                          for newer GPUs (default sm_80; a warning with --target=host)\n"
        "  --host-march=CPU        cc's -march for a host library: native (default: the CPU that builds it),\n"
        "                          portable (none: any x86-64), or a CPU name (x86-64-v3, znver4, ...);\n"
        "                          a warning with the CUDA target\n"
        "  --mapping=auto|vertex|edge  thread mapping of the graph kernels (auto: vertex-balanced, or the\n"
        "                          plan --tune-mapping measured)\n"
        "  --edge-balanced=ID[,ID]  these reductions (value ids, as --print-ir-after=fuse shows) edge-balanced\n"
        "  --tune-mapping=GRAPH    time each reduction that can run either way, edge-balanced alone, against all\n"
        "                          vertex-balanced with gnn-run on GRAPH (training step, or forward), and build\n"
        "                          -o FILE.so with the fastest plan; then that plan against it with hub pieces and\n"
        "                          column tiles of 64 and 32 (those not given, where they change a kernel);\n"
        "                          --tune-rounds=N (3), --tune-repeat=N (5), --self-loops (the graph's); set\n"
        "                          OMP_NUM_THREADS to the threads it will run on\n"
        "  -S                      keep the generated sources beside the library\n"
        "  -v                      show the compiler command lines\n"
        "  --model=NAME            the model to compile (default: the last one in the file)\n"
        "  --list-passes           list the passes in pipeline order\n"
        "  --print-ir-after=P[,P]  print the IR after the named passes (sema is the first)\n"
        "  --print-ir-before=P[,P] print the IR before the named passes\n"
        "  --print-ir-after-all    print the IR after every pass\n"
        "  --time-passes           report the wall time of each pass on stderr\n"
        "  --stats V=N,E=N         print the cost model's FLOPs, bytes and peak live bytes after each pass,\n"
        "                          then each kernel's bytes and arithmetic, fused and unfused (a warning\n"
        "                          where the fused plan does over 4x the unfused one's arithmetic)\n"
        "  --stats=symbolic        the same totals as polynomials in V and E\n"
        "  --gpu=h100|h200 --graph FILE  each step's DRAM and L2 bytes and estimated time on that GPU, the\n"
        "                          gathered rows through a simulated L2 over FILE's edges (.gcsr, folder, edge list)\n"
        "  --print-memory-plan V=N,E=N  print the library's memory plan at that graph size (arena, parameters,\n"
        "                          gradients, output, and the buffers stashed for the backward)\n"
        "  -fno-PASS               switch a pass off (-fno-autodiff: inference only, no backward)\n"
        "  --input-grads=all|X,..  the backward also computes d loss / d input for these inputs, each only when\n"
        "                          the caller asks for it (docs/training.md); default: parameters only\n"
        "  -fno-recompute          stash every value the backward reads (the checkpoint pass off)\n"
        "  --recompute=cost|all    what checkpoint recomputes: the cost model's choice (default), or all it can\n"
        "  --fold-attention=cost|always|never  attention dots a.(x W) as extra columns of the projection's\n"
        "                          GEMM, x.[W | W.a]: where the cost model finds the FLOPs cheaper than\n"
        "                          reading x W again (default), always, or never\n"
        "  --memory-budget=BYTES   the fastest plan whose memory at the --stats/--print-memory-plan size fits\n"
        "                          (24G, 24GiB, 2.4e10); an error naming the smallest plan's bytes if none does\n"
        "  --split-hubs            walks over in- or out-edges split rows longer than the graph's piece length among\n"
        "                          several groups and merge their partial results (docs/kernel-ir.md)\n"
        "  --tile-columns=T        walks gathering rows wider than T columns run once per tile\n"
        "                          of T columns, every row's first tile before any second, so that a tile of the\n"
        "                          gathered rows stays in the cache (L2 on a GPU; docs/kernel-ir.md); =auto with\n"
        "                          --gpu --graph: each walk in the tiles the GPU estimate finds fastest (a note why)\n"
        "  --gemm-precision=fp32|tf32  the GEMM steps (projections, their gradients) in float32 (default) or\n"
        "                          TF32: inputs rounded to a 10-bit mantissa, float32 sums (tensor cores;\n"
        "                          the host emulates the rounding to measure the accuracy); docs/kernel-ir.md\n"
        "  --vector-loads=4|off    CUDA: kernels that gather rows (x[src], an edge's row, a parameter) give each\n"
        "                          lane 4 consecutive columns and read them as one 128-bit float4 where the\n"
        "                          row is 16-byte aligned (else float by float); default off; docs/kernel-ir.md\n"
        "  --spmm=fused|cusparse   a plain weighted sum over the edges (GCN's, GIN's aggregation and their\n"
        "                          gradients) as a fused walk (default) or a library SpMM: cuSPARSE on CUDA,\n"
        "                          the runtime's loop on the host; its epilogue then a kernel of its own\n"
        "  --dots=spread|serial    a fused kernel per row computes a dot or sum_last over a long dim (attention's\n"
        "                          gradient) with the lanes sharing the dim and adding their parts (spread:\n"
        "                          coalesced loads, the CUDA default) or a lane per output (serial: the host's\n"
        "                          default, faster there); docs/kernel-ir.md\n"
        "  -O0                     switch every optimisation pass off (autodiff stays on)\n"
        "  -Rpass-missed=fuse      remarks on stderr: groups the fuse pass could not merge, and why\n"
        "  --no-verify             do not run the IR verifier after each pass\n"
        "\n"
        "run options:\n"
        "  --graph PATH            a dataset folder (graph.edges, features.svm, labels.txt) or an edge list;\n"
        "                          graph.edges' columns after 'src dst' are the first edge input\n"
        "  --features FILE         vertex features in LIBSVM format (overrides the folder's)\n"
        "  --num-vertices N        vertex count for a bare edge list (default: largest id + 1)\n"
        "  --self-loops            add a self-loop v -> v to every vertex that has none (after the\n"
        "                          file's edges, ascending), as gnn-run and gnn-train --self-loops do\n"
        "  --params FILE           load parameters (gnnc tensor text format)\n"
        "  --inputs FILE           load every model input (tensor text format, as --save-inputs writes);\n"
        "                          the backward's seed grad.out too when the file has it\n"
        "  --init=glorot|uniform   initialise parameters: Glorot (default) or uniform [-1, 1)\n"
        "  --seed N                seed for parameters and generated inputs (default 1)\n"
        "  --save-params FILE      write the parameters used\n"
        "  --save-inputs FILE      write the inputs used (features, edge values, generated inputs)\n"
        "  --save-outputs FILE     write every output of the module: out, and the gradients grad.<param>\n"
        "                          of a training module (their seed grad.out is a generated input)\n"
        "  --train                 evaluate in training mode: dropout draws its masks from --seed\n"
        "  --backward              also evaluate the backward pass of a training module (implied by\n"
        "                          --save-outputs); its seed grad.out is generated like an input\n"
        "  --output FILE, -o FILE  write every output row (gnnc tensor text format)\n"
        "  --rows N                rows to print in the summary (default 3)\n",
        out);
}

/* Copies of option lists live until exit, on a static list so that they stay reachable (a
 * pointer only on main's stack is a leak to LeakSanitizer once main returns, and its report
 * then replaces the exit status and loses buffered output). */
typedef struct OptCopy {
  struct OptCopy *next;
  char text[];
} OptCopy;
static OptCopy *opt_copies;

static void split_list(const char *arg, const char **dst, int *n, int max) {
  OptCopy *c = malloc(sizeof(OptCopy) + strlen(arg) + 1);
  if (!c) return;
  strcpy(c->text, arg);
  c->next = opt_copies;
  opt_copies = c;
  for (char *tok = strtok(c->text, ","); tok && *n < max; tok = strtok(NULL, ",")) dst[(*n)++] = tok;
}

/* A file option given a second time: refused, not the last one silently taken (--graph A then
 * --graph B read B, and an -o then --output wrote one file of two). False after saying so. */
static bool set_file_once(const char **slot, const char *v, const char *flag, const char *given_as) {
  if (*slot) {
    bool other = given_as && strcmp(given_as, flag) != 0; /* -o, then --output: the same file option */
    fprintf(stderr, "gnnc: %s given twice ('%s'%s%s, then '%s'): give it once\n", flag, *slot, other ? " as " : "",
            other ? given_as : "", v);
    return false;
  }
  *slot = v;
  return true;
}

/* A whole decimal integer in [lo, hi] (digits only: no sign, space or suffix). */
static bool parse_uint(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *out) {
  if (!s || *s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (*end || errno == ERANGE || x < lo || x > hi) return false;
  *out = x;
  return true;
}

/* --arch: a comma-separated list of 1 to 7 items sm_NN, each 2 or 3 digits with an optional
 * feature letter (sm_90a, sm_100f), as nvcc's -gencode wants them (compiler/build.c). */
/* A two-way option's value: 0 for `first`, 1 for `second`, -1 after saying what the option wants. */
static int choose(const char *opt, const char *v, const char *first, const char *second) {
  if (strcmp(v, first) == 0) return 0;
  if (strcmp(v, second) == 0) return 1;
  fprintf(stderr, "gnnc: %s wants %s or %s, got '%s'\n", opt, first, second, v);
  return -1;
}

static bool valid_arch_list(const char *s) {
  int items = 0;
  for (const char *p = s;; p++) {
    if (strncmp(p, "sm_", 3) != 0) return false;
    p += 3;
    int digits = 0;
    while (*p >= '0' && *p <= '9') p++, digits++;
    if (digits < 2 || digits > 3) return false;
    if (*p == 'a' || *p == 'f') p++;
    if (++items > 7) return false;
    if (*p == '\0') return true;
    if (*p != ',') return false;
  }
}

/* --host-march: native, portable, or a CPU name cc's -march takes (letters, digits, - _ .). */
static bool valid_march(const char *s) {
  if (!*s || strlen(s) > 40) return false;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
      return false;
  return true;
}

static bool parse_stats(const char *arg, PipelineOpts *o) {
  char *copy = strdup(arg);
  bool ok = true, have_v = false, have_e = false;
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    char *end;
    if ((tok[0] == 'V' || tok[0] == 'E') && tok[1] == '=') {
      /* counts the runtime can hold (int32 vertex and edge ids): the memory plan's byte counts
       * then stay far inside size_t (they wrapped at V = 4e15: a smaller arena than at 1e15) */
      double x = strtod(tok + 2, &end);
      if (*end || end == tok + 2 || !isfinite(x) || x < 0 || x > 2147483647.0 || x != floor(x)) ok = false; /* no "", nan, inf */
      if (tok[0] == 'V') o->stats_V = x, have_v = true;
      else o->stats_E = x, have_e = true;
    } else {
      ok = false;
    }
  }
  free(copy);
  return ok && have_v && have_e;
}

/* An option that takes a value, given last with none. */
static bool takes_value(const char *a, bool run) {
  static const char *const compile[] = {"-o", "--emit", "--model", "--print-ir-after", "--print-ir-before", "--stats", "--gpu", "--graph",
                                        "--recompute", "--fold-attention", "--memory-budget", "--print-memory-plan", "--edge-balanced", "--input-grads",
                                        "--tune-mapping", "--tune-rounds", "--tune-repeat", "--tile-columns"};
  static const char *const run_only[] = {"--features", "--num-vertices", "--params", "--inputs", "--init",
                                         "--seed", "--save-params", "--save-inputs", "--output", "--rows"};
  for (size_t i = 0; i < sizeof compile / sizeof compile[0]; i++)
    if (strcmp(a, compile[i]) == 0) return true;
  for (size_t i = 0; run && i < sizeof run_only / sizeof run_only[0]; i++)
    if (strcmp(a, run_only[i]) == 0) return true;
  return false;
}

typedef struct {
  bool run;
  const char *target, *arch, *host_march, *mapping, *dots;
  bool keep, verbose;
  const char *input, *output, *emit, *graph, *features, *params, *inputs, *init, *save_params, *save_inputs, *out_rows;
  const char *output_opt;   /* how the output was given: "-o", or "--output" (gnnc run) */
  const char *compile_only; /* the first option given that only compiling uses (gnnc run refuses it) */
  const char *save_outputs;
  bool train, backward;
  bool self_loops; /* --self-loops: add v -> v for every vertex without one, as gnn-train does */
  const char *tune_graph; /* --tune-mapping=GRAPH */
  int tune_rounds, tune_repeat;
  bool spmm_given; /* --spmm=fused or =cusparse: --tune-mapping keeps it */
  int vector_loads; /* --vector-loads=4: 4 (the CUDA target's kernels alone) */
  const char *kernel_opt; /* the first option that shapes kernels only (--mapping, --split-hubs, ...): not for gnnc run */
  int64_t num_vertices;
  uint64_t seed;
  int rows;
} Cli;

/* ---------------------------------------------------------------- run */

static int run_model(GnnCtx *c, Module *m, const Cli *cli) {
  char err[512] = "";
  Graph g = {0};
  ParamSet ps = {0}, ins = {0};
  Interp in = {0};
  int rc = 1;
  bool ok;
  if (cli->num_vertices > 0) { /* a bare edge list with a given vertex count */
    ok = graph_load_edges(&g, cli->graph, cli->num_vertices, err, sizeof err);
    if (ok) ok = graph_build_csr(&g, err, sizeof err);
  } else {
    ok = graph_load(&g, cli->graph, err, sizeof err);
  }
  if (ok && cli->features) ok = graph_load_features(&g, cli->features, err, sizeof err);
  if (ok && cli->self_loops) ok = graph_add_self_loops(&g, err, sizeof err);
  if (!ok) goto fail;
  if (cli->params ? !params_load(&ps, m, cli->params, err, sizeof err)
                  : !params_init(&ps, m, cli->init ? cli->init : "glorot", cli->seed)) {
    if (!err[0]) snprintf(err, sizeof err, "unknown --init '%s' (glorot or uniform)", cli->init);
    goto fail;
  }
  if (cli->save_params && !params_save(&ps, cli->save_params, err, sizeof err)) goto fail;
  if (cli->inputs && !inputs_load(&ins, m, &g, cli->inputs, err, sizeof err)) goto fail;
  in = (Interp){.m = m, .g = &g, .ps = &ps, .seed = cli->seed, .training = cli->train, .dropout_seed = cli->seed,
                .forward_only = !cli->backward, .inputs = ins.params, .ninputs = ins.nparams};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (!interp_run(&in, err, sizeof err)) goto fail;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (g.edge_vals && !cli->inputs) { /* values the user gave that nothing reads: say so, not drop them silently */
    bool edge_input = false;
    for (int i = 0; i < m->vals.len; i++) {
      const Value *v = m->vals.items[i];
      edge_input |= v->op == OP_INPUT && v->dom == DOM_EDGE && !v->bwd;
    }
    if (!edge_input)
      fprintf(stderr, "gnnc run: note: the %lld value%s per edge of %s %s not read: model %s has no edge input\n",
              (long long)g.edge_ncols, g.edge_ncols == 1 ? "" : "s", cli->graph, g.edge_ncols == 1 ? "is" : "are", m->name);
  }

  if (cli->save_inputs) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
      snprintf(err, sizeof err, "%s: error: out of memory", cli->save_inputs);
      goto fail;
    }
    for (int i = 0; i < m->vals.len; i++) {
      const Value *v = m->vals.items[i];
      if (v->op != OP_INPUT || (v->bwd && !in.vals[v->id])) continue; /* grad.out: only when --backward evaluated it */
      int64_t rows = value_rows(v, &g), n = shape_elems(&v->shape);
      fprintf(f, "tensor %s %lld %d", v->name, (long long)rows, v->shape.rank);
      for (int k = 0; k < v->shape.rank; k++) fprintf(f, " %lld", (long long)v->shape.d[k]);
      fputc('\n', f);
      const double *d = in.vals[v->id];
      for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < n; k++) fprintf(f, "%.17g%c", d[r * n + k], k + 1 == n ? '\n' : ' ');
    }
    if (fclose(f) != 0 || !text) {
      free(text);
      snprintf(err, sizeof err, "%s: error: out of memory", cli->save_inputs);
      goto fail;
    }
    bool written = tensors_write_file(cli->save_inputs, text, len, err, sizeof err);
    free(text);
    if (!written) goto fail;
  }

  if (cli->save_outputs) { /* whole or not at all, a device or a link kept as it is (out_open) */
    OutFile of;
    if (!out_open(&of, cli->save_outputs)) goto fail_reported;
    FILE *f = of.f;
    for (int i = 0; i < m->nouts; i++) {
      const Value *v = m->outs[i].val;
      int64_t rows = value_rows(v, &g), n = shape_elems(&v->shape);
      fprintf(f, "tensor %s %lld %d", m->outs[i].name, (long long)rows, v->shape.rank);
      for (int k = 0; k < v->shape.rank; k++) fprintf(f, " %lld", (long long)v->shape.d[k]);
      fputc('\n', f);
      const double *d = in.vals[v->id];
      for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < n; k++) fprintf(f, "%.17g%c", d[r * n + k], k + 1 == n ? '\n' : ' ');
    }
    if (!out_close(&of, true)) goto fail_reported;
  }

  const Value *out = module_output(m);
  int64_t rows = value_rows(out, &g), n = shape_elems(&out->shape);
  const double *y = in.vals[out->id];
  if (cli->output) {
    /* out_open: a regular file under this process's temporary name (OUT.PID.tmp) renamed over
     * it, so a failure leaves nothing half-written and two runs writing one output do not
     * rename each other's file away; a device or FIFO written in place (renaming over
     * /dev/null replaced the device with a file when run as root) */
    OutFile of;
    if (!out_open(&of, cli->output)) goto fail_reported;
    FILE *f = of.f;
    fprintf(f, "tensor output %lld %d", (long long)rows, out->shape.rank);
    for (int k = 0; k < out->shape.rank; k++) fprintf(f, " %lld", (long long)out->shape.d[k]);
    fputc('\n', f);
    for (int64_t r = 0; r < rows; r++)
      for (int64_t k = 0; k < n; k++) fprintf(f, "%.17g%c", y[r * n + k], k + 1 == n ? '\n' : ' ');
    if (!out_close(&of, true)) goto fail_reported;
  }

  double sum = 0, asum = 0;
  for (int64_t i = 0; i < rows * n; i++) {
    sum += y[i];
    asum += y[i] < 0 ? -y[i] : y[i];
  }
  int64_t nparam_vals = 0;
  for (int i = 0; i < ps.nparams; i++) nparam_vals += shape_elems(&ps.params[i].shape);
  printf("model %s on %s: %lld vertices, %lld edges", m->name, cli->graph, (long long)g.nv, (long long)g.ne);
  if (g.features) printf(", %lld features", (long long)g.nfeat);
  printf("\nparameters: %d tensors, %lld values (%s)\n", ps.nparams, (long long)nparam_vals,
         cli->params ? cli->params : cli->init ? cli->init : "glorot");
  printf("output: %s[", domain_name(out->dom));
  for (int k = 0; k < out->shape.rank; k++) printf(k ? ", %lld" : "%lld", (long long)out->shape.d[k]);
  printf("] x %lld rows\n", (long long)rows);
  printf("checksum: sum %.10g  abs-sum %.10g\n", sum, asum);
  for (int64_t r = 0; r < rows && r < cli->rows; r++) {
    printf("row %lld:", (long long)r);
    for (int64_t k = 0; k < n && k < 8; k++) printf(" %.6g", y[r * n + k]);
    printf(n > 8 ? " ...\n" : "\n");
  }
  printf("interpreter time: %.3f s\n", secs);
  rc = 0;
  goto done;
fail:
  fprintf(stderr, "%s\n", err);
fail_reported: /* out_open and out_close said why */
done:
  interp_free(&in);
  params_free(&ps);
  params_free(&ins);
  graph_free(&g);
  (void)c;
  return rc;
}

/* ---------------------------------------------------------------- main */

/* "12,30" or "%12,%30": value ids, at most cap. */
static bool parse_id_list(const char *s, int *ids, int *n, int cap) {
  *n = 0;
  for (const char *p = s;;) {
    if (*p == '%') p++;
    unsigned long long x = 0;
    const char *q = p;
    while (*q >= '0' && *q <= '9' && x <= INT_MAX) x = x * 10 + (unsigned long long)(*q++ - '0');
    if (q == p || x > INT_MAX || *n == cap) return false;
    ids[(*n)++] = (int)x;
    if (*q == 0) return true;
    if (*q != ',') return false;
    p = q + 1;
  }
}

/* gnnc run's own options: when compiling, "unknown option" would hide that they exist. */
static bool run_only_option(const char *a) {
  static const char *const names[] = {"--features", "--num-vertices", "--params", "--inputs", "--init", "--seed", "--save-params",
                                      "--save-inputs", "--save-outputs", "--train", "--backward", "--output", "--rows"};
  size_t n = strcspn(a, "=");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i]) == n && strncmp(a, names[i], n) == 0) return true;
  return false;
}

/* The end of an error about a pass name: the names there are. */
static void print_pass_names(void) {
  fprintf(stderr, "the passes: sema");
  for (int k = 0; k < pass_count; k++) fprintf(stderr, ", %s", pass_table[k].name);
  fprintf(stderr, ", lower\n");
}

/* --print-ir-after / --print-ir-before: every item a pass name ("", "a,,b" and a trailing
 * comma have an empty one, which strtok would skip silently). */
static bool valid_pass_list(const char *opt, const char *v) {
  size_t len = strlen(v);
  const char *bad = !*v ? "no pass name" : (v[0] == ',' || v[len - 1] == ',' || strstr(v, ",,")) ? "an empty pass name" : NULL;
  if (!bad) return true;
  fprintf(stderr, "gnnc: error: %s='%s' has %s; ", opt, v, bad);
  print_pass_names();
  return false;
}

/* The files this run writes must not be the files it reads, nor one another (files_safe):
 * gnnc run m.gnn --output m.gnn overwrote the source, and -o hx.c --emit=c the source hx.h
 * with the header it derives from -o's name. */
static bool check_files(const Cli *cli, const EmitOpts *eo, bool codegen) {
  RunFile reads[6] = {{0}}, writes[8] = {{0}};
  int nr = 0, nw = 0;
  const char *const read_opts[] = {NULL, "--graph", "--features", "--params", "--inputs", "--tune-mapping"};
  const char *const read_paths[] = {cli->input, cli->graph, cli->features, cli->params, cli->inputs, cli->tune_graph};
  for (int i = 0; i < 6; i++)
    if (read_paths[i]) reads[nr++] = (RunFile){(char *)read_paths[i], (char *)read_opts[i]};
  if (cli->run) {
    const char *const opts[] = {cli->output_opt, "--save-params", "--save-inputs", "--save-outputs"};
    const char *const paths[] = {cli->output, cli->save_params, cli->save_inputs, cli->save_outputs};
    for (int i = 0; i < 4; i++) {
      if (!paths[i]) continue;
      size_t n = strlen(opts[i]) + strlen(paths[i]) + 4;
      writes[nw].what = malloc(n);
      if (writes[nw].what) snprintf(writes[nw].what, n, "%s '%s'", opts[i], paths[i]);
      writes[nw++].path = strdup(paths[i]);
    }
  } else if (codegen) {
    emit_outputs(eo, writes, &nw);
  } else if (cli->output) {
    size_t n = strlen(cli->output) + 8;
    writes[nw].what = malloc(n);
    if (writes[nw].what) snprintf(writes[nw].what, n, "-o '%s'", cli->output);
    writes[nw++].path = strdup(cli->output);
  }
  for (int i = 0; i < nw; i++)
    if (!writes[i].path || !writes[i].what) {
      fputs("gnnc: out of memory\n", stderr);
      run_files_free(writes, nw);
      return false;
    }
  bool ok = files_safe(reads, nr, writes, nw);
  run_files_free(writes, nw);
  return ok;
}

int main(int argc, char **argv) {
  PipelineOpts o = {.verify_each = true, .out = stdout};
  static int edge_ids[256]; /* --edge-balanced, or the tuner's plan */
  Cli cli = {.seed = 1, .rows = 3};
  const char *model_name = NULL;
  bool backward_asked = false; /* --backward itself (--save-outputs also sets cli.backward) */
  int first = 1;
  /* A file-size limit (ulimit -f) or a full disk: a write error with a message and the temporary
   * removed, not a SIGXFSZ that kills gnnc mid-write and leaves F.PID.tmp behind. */
  signal(SIGXFSZ, SIG_IGN);
  if (argc > 1 && strcmp(argv[1], "gradcheck") == 0) return gradcheck_main(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "run") == 0) {
    cli.run = true;
    first = 2;
  }
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    const char *missing = NULL; /* an option matched that got no value (cli_value.h) */
#define ARGVAL(flag) cli_option_value(a, flag, argc, argv, &i, &missing)
    const char *v;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("gnnc %s\n", GNNC_VERSION);
      return 0;
    } else if (strcmp(a, "--list-passes") == 0) {
      printf("%-14s %s\n", "sema", "names, domains, shapes; lowers the AST to the operator IR");
      for (int k = 0; k < pass_count; k++)
        printf("%-14s %s%s\n", pass_table[k].name, pass_table[k].doc,
               pass_table[k].kept_at_O0 ? " (not an optimisation: -O0 keeps it, -fno-autodiff builds inference only)" : "");
      printf("%-14s %s\n", "lower", "operator IR to kernel IR: GEMMs and kernels with a thread mapping (when code is emitted)");
      return 0;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc && !cli_looks_like_option(argv[i + 1])) {
      if (!set_file_once(&cli.output, argv[++i], "-o", cli.output_opt)) return 2; /* gnnc run: the same as --output */
      cli.output_opt = "-o";
    } else if ((v = ARGVAL("--emit"))) {
      cli.emit = v;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--target"))) {
      cli.target = v;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--arch"))) {
      cli.arch = v;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--host-march"))) {
      cli.host_march = v;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--edge-balanced"))) {
      if (!cli.kernel_opt) cli.kernel_opt = a;
      if (!parse_id_list(v, edge_ids, &o.nedge_ids, (int)(sizeof edge_ids / sizeof edge_ids[0]))) {
        fprintf(stderr, "gnnc: --edge-balanced wants value ids (12,30 or %%12,%%30; at most %d), got '%s'\n",
                (int)(sizeof edge_ids / sizeof edge_ids[0]), v);
        return 2;
      }
      o.edge_ids = edge_ids;
    } else if ((v = ARGVAL("--tune-mapping"))) {
      if (!set_file_once(&cli.tune_graph, v, "--tune-mapping", NULL)) return 2;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--tune-rounds"))) {
      unsigned long long n;
      if (!parse_uint(v, 1, 7, &n)) {
        fprintf(stderr, "gnnc: --tune-rounds wants an integer from 1 to 7, got '%s'\n", v);
        return 2;
      }
      cli.tune_rounds = (int)n;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--tune-repeat"))) {
      unsigned long long n;
      if (!parse_uint(v, 1, 1000, &n)) {
        fprintf(stderr, "gnnc: --tune-repeat wants an integer from 1 to 1000, got '%s'\n", v);
        return 2;
      }
      cli.tune_repeat = (int)n;
      if (!cli.compile_only) cli.compile_only = a;
    } else if (!cli.run && strcmp(a, "--self-loops") == 0) {
      cli.self_loops = true; /* the tuning graph's, checked below */
    } else if ((v = ARGVAL("--mapping"))) {
      cli.mapping = v;
      if (!cli.kernel_opt) cli.kernel_opt = a;
    } else if (strcmp(a, "-S") == 0) {
      cli.keep = true;
      if (!cli.compile_only) cli.compile_only = a;
    } else if (strcmp(a, "-v") == 0) {
      cli.verbose = true;
      if (!cli.compile_only) cli.compile_only = a;
    } else if ((v = ARGVAL("--model"))) {
      model_name = v;
    } else if ((v = ARGVAL("--print-ir-after"))) {
      if (!valid_pass_list("--print-ir-after", v)) return 2;
      split_list(v, o.print_after, &o.nprint_after, 16);
    } else if ((v = ARGVAL("--print-ir-before"))) {
      if (!valid_pass_list("--print-ir-before", v)) return 2;
      split_list(v, o.print_before, &o.nprint_before, 16);
    } else if (strcmp(a, "--print-ir-after-all") == 0) {
      o.print_after_all = true;
    } else if (strcmp(a, "--time-passes") == 0) {
      o.time_passes = true;
    } else if (strcmp(a, "--no-verify") == 0) {
      o.verify_each = false;
    } else if ((v = ARGVAL("--stats"))) {
      if (strcmp(v, "symbolic") == 0) {
        o.stats_symbolic = true;
      } else if (!parse_stats(v, &o)) {
        fprintf(stderr, "gnnc: --stats wants V=N,E=N (whole numbers up to 2^31 - 1, the runtime's limit) or symbolic, got '%s'\n", v);
        return 2;
      } else {
        o.stats = true;
      }
    } else if (strcmp(a, "-O0") == 0) {
      o.O0 = true;
    } else if (strcmp(a, "--split-hubs") == 0) {
      o.split_hubs = true;
      if (!cli.kernel_opt) cli.kernel_opt = a;
    } else if (strcmp(a, "--test-no-sum-staging") == 0) { /* hidden: for tests (docs/gnnc.1, "Hidden options for tests") */
      o.no_sum_staging = true;
      if (!cli.kernel_opt) cli.kernel_opt = a;
    } else if ((v = ARGVAL("--gemm-precision"))) {
      if (!cli.kernel_opt) cli.kernel_opt = a;
      int c = choose("--gemm-precision", v, "fp32", "tf32");
      if (c < 0) return 2;
      o.gemm_tf32 = c == 1;
    } else if ((v = ARGVAL("--spmm"))) {
      if (!cli.kernel_opt) cli.kernel_opt = a;
      int c = choose("--spmm", v, "fused", "cusparse");
      if (c < 0) return 2;
      o.spmm_library = c == 1;
      cli.spmm_given = true;
    } else if ((v = ARGVAL("--vector-loads"))) {
      if (!cli.kernel_opt) cli.kernel_opt = a;
      int c = choose("--vector-loads", v, "off", "4");
      if (c < 0) return 2;
      cli.vector_loads = c == 1 ? 4 : 0;
    } else if ((v = ARGVAL("--dots"))) {
      if (!cli.kernel_opt) cli.kernel_opt = a;
      if (choose("--dots", v, "spread", "serial") < 0) return 2;
      cli.dots = v;
    } else if ((v = ARGVAL("--tile-columns"))) {
      if (!cli.kernel_opt) cli.kernel_opt = a;
      unsigned long long n;
      if (strcmp(v, "auto") == 0) {
        o.tile_columns = -1;
      } else if (!parse_uint(v, 1, 4096, &n)) {
        fprintf(stderr, "gnnc: --tile-columns wants a column count from 1 to 4096, or auto, got '%s'\n", v);
        return 2;
      } else {
        o.tile_columns = (int)n;
      }
    } else if (strcmp(a, "-Rpass-missed=fuse") == 0) {
      o.remarks = true;
    } else if (strcmp(a, "-fno-recompute") == 0) { /* the checkpoint pass off: stash all */
      if (o.ndisabled < 16) o.disabled[o.ndisabled++] = "checkpoint";
    } else if ((v = ARGVAL("--recompute"))) {
      int c = choose("--recompute", v, "cost", "all");
      if (c < 0) return 2;
      o.recompute_all = c == 1;
    } else if ((v = ARGVAL("--input-grads"))) {
      if (!*v) {
        fprintf(stderr, "gnnc: --input-grads wants all or input names (x,ew)\n");
        return 2;
      }
      o.input_grads = v;
    } else if ((v = ARGVAL("--fold-attention"))) {
      if (strcmp(v, "cost") == 0) o.fold_dots = FOLD_COST;
      else if (strcmp(v, "always") == 0) o.fold_dots = FOLD_ALWAYS;
      else if (strcmp(v, "never") == 0) o.fold_dots = FOLD_NEVER;
      else {
        fprintf(stderr, "gnnc: --fold-attention wants cost, always or never, got '%s'\n", v);
        return 2;
      }
    } else if ((v = ARGVAL("--memory-budget"))) {
      size_t budget = 0; /* gnnrt_hostmem.h, as the runtime's GNN_MEMORY_LIMIT: 1e100 and inf are refused, not "no cap" */
      if (!gnn_parse_bytes(v, &budget) || budget == 0) {
        fprintf(stderr, "gnnc: --memory-budget wants a positive number of bytes below 2^64 (suffixes K, M, G, T, or KiB, MiB, GiB, TiB), got '%s'\n", v);
        return 2;
      }
      o.memory_budget = (double)budget;
    } else if ((v = ARGVAL("--print-memory-plan"))) {
      if (!parse_stats(v, &o)) {
        fprintf(stderr, "gnnc: --print-memory-plan wants V=N,E=N (whole numbers up to 2^31 - 1, the runtime's limit), got '%s'\n", v);
        return 2;
      }
      o.print_plan = true;
    } else if (strncmp(a, "-fno-", 5) == 0) {
      /* sema and lower are not optional: the IR does not exist without the one, the code without the other */
      if (!pipeline_has_pass(a + 5) || strcmp(a + 5, "sema") == 0 || strcmp(a + 5, "lower") == 0) {
        fprintf(stderr, "gnnc: %s: no optional pass named '%s' (see --list-passes)\n", a, a + 5);
        return 2;
      }
      if (o.ndisabled < 16) o.disabled[o.ndisabled++] = a + 5;
    } else if ((v = ARGVAL("--gpu"))) {
      if (!gpucost_known(v)) {
        fprintf(stderr, "gnnc: --gpu wants one of %s, got '%s'\n", gpucost_names(), v);
        return 2;
      }
      o.gpu = v;
    } else if ((v = ARGVAL("--graph"))) { /* gnnc run's graph; when compiling, --gpu's */
      if (!set_file_once(&cli.graph, v, "--graph", NULL)) return 2;
    } else if (cli.run && (v = ARGVAL("--features"))) {
      if (!set_file_once(&cli.features, v, "--features", NULL)) return 2;
    } else if (cli.run && (v = ARGVAL("--num-vertices"))) {
      /* vertex ids are below 2^40 (graph.c), so a graph has at most 2^40 vertices */
      unsigned long long n;
      if (!parse_uint(v, 1, 1ull << 40, &n)) {
        fprintf(stderr, "gnnc: --num-vertices wants an integer from 1 to %llu, got '%s'\n", 1ull << 40, v);
        return 2;
      }
      cli.num_vertices = (int64_t)n;
    } else if (cli.run && (v = ARGVAL("--params"))) {
      if (!set_file_once(&cli.params, v, "--params", NULL)) return 2;
    } else if (cli.run && (v = ARGVAL("--inputs"))) {
      if (!set_file_once(&cli.inputs, v, "--inputs", NULL)) return 2;
    } else if (cli.run && (v = ARGVAL("--init"))) {
      if (strcmp(v, "glorot") != 0 && strcmp(v, "uniform") != 0) {
        fprintf(stderr, "gnnc: --init wants glorot or uniform, got '%s'\n", v);
        return 2;
      }
      cli.init = v;
    } else if (cli.run && (v = ARGVAL("--seed"))) {
      unsigned long long n;
      if (!parse_uint(v, 0, UINT64_MAX, &n)) {
        fprintf(stderr, "gnnc: --seed wants an integer from 0 to %llu, got '%s'\n", (unsigned long long)UINT64_MAX, v);
        return 2;
      }
      cli.seed = n;
    } else if (cli.run && (v = ARGVAL("--save-params"))) {
      if (!set_file_once(&cli.save_params, v, "--save-params", NULL)) return 2;
    } else if (cli.run && (v = ARGVAL("--save-inputs"))) {
      if (!set_file_once(&cli.save_inputs, v, "--save-inputs", NULL)) return 2;
    } else if (cli.run && (v = ARGVAL("--save-outputs"))) {
      if (!set_file_once(&cli.save_outputs, v, "--save-outputs", NULL)) return 2;
      cli.backward = true;
    } else if (cli.run && strcmp(a, "--self-loops") == 0) {
      cli.self_loops = true;
    } else if (cli.run && strcmp(a, "--train") == 0) {
      cli.train = true;
    } else if (cli.run && strcmp(a, "--backward") == 0) {
      cli.backward = backward_asked = true;
    } else if (cli.run && (v = ARGVAL("--output"))) {
      if (!set_file_once(&cli.output, v, "--output", cli.output_opt)) return 2;
      cli.output_opt = "--output";
    } else if (cli.run && (v = ARGVAL("--rows"))) {
      unsigned long long n;
      if (!parse_uint(v, 0, INT_MAX, &n)) {
        fprintf(stderr, "gnnc: --rows wants an integer from 0 to %d, got '%s'\n", INT_MAX, v);
        return 2;
      }
      cli.rows = (int)n;
    } else if (missing || strcmp(a, "-o") == 0) { /* the value is absent, or the next word is an option */
      if (!missing) missing = a;
      if (i + 1 < argc && strcmp(missing, "-o") == 0)
        fprintf(stderr, "gnnc: option '-o' needs a value, and the next word '%s' is an option (a file name that begins with '-': -o ./NAME)\n",
                argv[i + 1]);
      else if (i + 1 < argc)
        fprintf(stderr, "gnnc: option '%s' needs a value, and the next word '%s' is an option (a value that begins with '-': %s=VALUE)\n",
                missing, argv[i + 1], missing);
      else
        fprintf(stderr, "gnnc: option '%s' needs a value\n", missing);
      return 2;
    } else if (!cli.run && run_only_option(a)) {
      fprintf(stderr, "gnnc: error: %.*s is an option of gnnc run (gnnc run [options] FILE.gnn --graph PATH)\n",
              (int)strcspn(a, "="), a);
      return 2;
    } else if (takes_value(a, cli.run)) {
      fprintf(stderr, "gnnc: option '%s' needs a value\n", a);
      return 2;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "gnnc: unknown option '%s' (see --help)\n", a);
      return 2;
    } else if (!cli.input) {
      cli.input = a;
    } else {
      bool sub = strcmp(a, "run") == 0 || strcmp(a, "gradcheck") == 0 || strcmp(cli.input, "run") == 0 ||
                 strcmp(cli.input, "gradcheck") == 0;
      fprintf(stderr, "gnnc: more than one input file ('%s' and '%s')%s\n", cli.input, a,
              sub ? ": gnnc run and gnnc gradcheck take their word first (gnnc run [options] FILE.gnn)" : "");
      return 2;
    }
  }
  for (int k = 0; k < o.nprint_after + o.nprint_before; k++) {
    const char *p = k < o.nprint_after ? o.print_after[k] : o.print_before[k - o.nprint_after];
    const char *when = k < o.nprint_after ? "after" : "before";
    if (!pipeline_has_pass(p)) {
      fprintf(stderr, "gnnc: error: --print-ir-%s: no pass named '%s'; ", when, p);
      print_pass_names();
      return 2;
    }
    /* a dump that would print nothing, exit 0: none before sema (it makes the IR from the
     * source), none around a pass switched off */
    if (k >= o.nprint_after && strcmp(p, "sema") == 0) {
      fprintf(stderr, "gnnc: error: --print-ir-before=sema: there is no IR before sema, which builds it from the source "
              "(--print-ir-after=sema prints the first IR)\n");
      return 2;
    }
    if (pipeline_pass_off(&o, p)) {
      bool named = false;
      for (int d = 0; d < o.ndisabled; d++) named |= strcmp(o.disabled[d], p) == 0;
      fprintf(stderr, "gnnc: error: --print-ir-%s=%s: %s does not run here (%s%s), so there is no IR %s it\n", when, p, p,
              named ? "-fno-" : "-O0", named ? p : "", when);
      return 2;
    }
  }
  if (!cli.input) {
    usage(stderr);
    return 2;
  }
  if (cli.run && !cli.graph) {
    fprintf(stderr, "gnnc run: --graph PATH is required\n");
    return 2;
  }
  /* --backward without the backward ran none, exit 0 (--save-outputs writes `out` alone then, as
   * documented for a module without one) */
  if (cli.run && backward_asked && pipeline_pass_off(&o, "autodiff")) {
    fprintf(stderr, "gnnc: error: --backward evaluates the backward, which -fno-autodiff switches off\n");
    return 2;
  }
  if (cli.run && cli.compile_only) { /* silently ignored before: --emit=c wrote no C */
    fprintf(stderr, "gnnc: error: %s is an option for compiling: gnnc run evaluates the model with the interpreter and writes no code\n",
            cli.compile_only);
    return 2;
  }
  if (cli.run && cli.kernel_opt) { /* silently ignored before: the interpreter has no kernels */
    fprintf(stderr, "gnnc: error: %s shapes the generated kernels: gnnc run evaluates the operator IR with the float64 "
            "interpreter, which it would not change (gnn-run runs a library built with it)\n", cli.kernel_opt);
    return 2;
  }
  if (cli.run && cli.num_vertices > 0) {
    struct stat st;
    if (stat(cli.graph, &st) == 0 && S_ISDIR(st.st_mode)) { /* was "read failed": the folder read as an edge list */
      fprintf(stderr, "gnnc: error: --num-vertices is for a bare edge list; the folder '%s' gives its vertex count in its "
              "files (labels.txt, features.svm, else the largest id in graph.edges + 1)\n", cli.graph);
      return 2;
    }
  }
  const char *emit = cli.emit ? cli.emit : "ir";
  static const char *emits[] = {"ir", "dot", "kir", "cu", "c", "h"};
  bool known = false;
  for (size_t k = 0; k < sizeof emits / sizeof emits[0]; k++) known |= strcmp(emit, emits[k]) == 0;
  if (!known) {
    fprintf(stderr, "gnnc: --emit=%s is not supported (ir, dot, kir, cu, c, h)\n", emit);
    return 2;
  }
  /* "-" names standard output, as tools have it: compiling, that is where every --emit goes
   * without -o, so `-o -` is the same (it wrote a file named "-", and "-.h" beside it). gnn run
   * prints its summary there, so its files need names (./- is a file named "-"). */
  if (!cli.run && cli.output && strcmp(cli.output, "-") == 0) cli.output = NULL;
  if (cli.run) {
    const char *const opts[] = {cli.output_opt, "--save-params", "--save-inputs", "--save-outputs"};
    const char *const paths[] = {cli.output, cli.save_params, cli.save_inputs, cli.save_outputs};
    for (int i = 0; i < 4; i++)
      if (paths[i] && strcmp(paths[i], "-") == 0) {
        fprintf(stderr, "gnnc: %s -: gnnc run prints its summary on standard output, so its files need a name "
                "(./- for a file named '-')\n", opts[i] ? opts[i] : "--output");
        return 2;
      }
    /* written after the run: what would fail at the write (a directory, a missing or read-only
     * folder) is refused now, in gnn-train's and gnn-run's words (runtime/gnnrt_path.h) */
    for (int i = 0; i < 4; i++) {
      char why[3 * PATH_MAX];
      if (paths[i] && gnn_output_unwritable(opts[i] ? opts[i] : "--output", paths[i], why, sizeof why)) {
        fprintf(stderr, "gnnc: error: %s\n", why);
        return 2;
      }
    }
  }
  size_t outlen = cli.output ? strlen(cli.output) : 0;
  bool build_lib = !cli.run && !cli.emit && outlen > 3 && strcmp(cli.output + outlen - 3, ".so") == 0;
  bool codegen = build_lib || strcmp(emit, "kir") == 0 || strcmp(emit, "cu") == 0 || strcmp(emit, "c") == 0 ||
                 strcmp(emit, "h") == 0;
  EmitOpts eo = {.emit = build_lib ? NULL : emit, .output = cli.output, .target = TARGET_CUDA, .arch = cli.arch,
                 .host_march = cli.host_march,
                 .keep = cli.keep, .verbose = cli.verbose, .src_name = cli.input};
  if (cli.target && strcmp(cli.target, "cuda") != 0 && strcmp(cli.target, "host") != 0) {
    fprintf(stderr, "gnnc: --target=%s: want cuda or host\n", cli.target);
    return 2;
  }
  if (cli.target && strcmp(cli.target, "host") == 0) eo.target = TARGET_HOST;
  /* the dots spread over the lanes where the loads are a warp's (a GPU), a lane per output on the
   * host, where the serial form is faster (docs/kernel-ir.md, "Reductions spread over lanes") */
  o.serial_dots = cli.dots ? strcmp(cli.dots, "serial") == 0 : eo.target == TARGET_HOST || strcmp(emit, "c") == 0;
  /* float4 loads are the CUDA kernels' (a warp's lanes each reading 16 bytes of a row); the host's
   * lanes are serialised and its vectoriser reads the rows whole already: its code does not change */
  o.vector_loads = eo.target == TARGET_CUDA && strcmp(emit, "c") != 0 ? cli.vector_loads : 0;
  if (cli.vector_loads && !o.vector_loads)
    fprintf(stderr, "gnnc: note: --vector-loads applies to the CUDA target's kernels: the host code does not change\n");
  if (cli.mapping) {
    if (strcmp(cli.mapping, "auto") == 0) o.mapping = MAPPING_AUTO;
    else if (strcmp(cli.mapping, "vertex") == 0) o.mapping = MAPPING_VERTEX;
    else if (strcmp(cli.mapping, "edge") == 0) o.mapping = MAPPING_EDGE;
    else {
      fprintf(stderr, "gnnc: --mapping=%s: want auto, vertex or edge\n", cli.mapping);
      return 2;
    }
  }
  if (cli.arch && !valid_arch_list(cli.arch)) {
    fprintf(stderr, "gnnc: --arch=%s: want sm_NN[,sm_NN...] (at most 7; e.g. sm_80,sm_90 or sm_90a)\n", cli.arch);
    return 2;
  }
  if (cli.host_march && !valid_march(cli.host_march)) {
    fprintf(stderr, "gnnc: --host-march=%s: want native, portable or a CPU name for cc's -march (e.g. x86-64-v3)\n",
            cli.host_march);
    return 2;
  }
  /* each names the other target's compiler: silently dropping one hides a mistaken --target */
  if (cli.arch && eo.target == TARGET_HOST && codegen)
    fprintf(stderr, "gnnc: warning: --arch=%s is for the CUDA target: a host library ignores it (--host-march sets its CPU)\n", cli.arch);
  if (cli.host_march && eo.target == TARGET_CUDA && codegen)
    fprintf(stderr, "gnnc: warning: --host-march=%s is for the host target: a CUDA library ignores it (--arch sets its GPUs)\n",
            cli.host_march);
  o.lower = codegen;
  if (cli.tune_graph && !build_lib) {
    fprintf(stderr, "gnnc: --tune-mapping times libraries: give -o FILE.so\n");
    return 2;
  }
  if (cli.tune_graph && (o.mapping == MAPPING_EDGE || o.nedge_ids > 0)) {
    fprintf(stderr, "gnnc: --tune-mapping chooses the mapping itself: drop %s\n",
            o.mapping == MAPPING_EDGE ? "--mapping=edge" : "--edge-balanced");
    return 2;
  }
  if (!cli.run && cli.self_loops && !cli.tune_graph) {
    fprintf(stderr, "gnnc: --self-loops (when compiling) is for the --tune-mapping graph; add --tune-mapping=GRAPH\n");
    return 2;
  }
  if (!cli.tune_graph && (cli.tune_rounds || cli.tune_repeat)) {
    fprintf(stderr, "gnnc: --tune-rounds and --tune-repeat need --tune-mapping=GRAPH\n");
    return 2;
  }
  if (o.tile_columns < 0 && (!o.gpu || cli.run)) {
    fprintf(stderr, "gnnc: --tile-columns=auto chooses by the GPU estimate on a graph: add --gpu=h100|h200 --graph FILE\n");
    return 2;
  }
  if (!cli.run && (!o.gpu) != (!cli.graph)) {
    fprintf(stderr, "gnnc: %s\n", o.gpu ? "--gpu estimates on a graph: add --graph FILE" : "--graph (when compiling) is for --gpu=h100|h200");
    return 2;
  }
  o.gpu_graph = cli.graph;
  if (cli.run && !gnn_omp_threads_ok("gnnc")) return 2; /* before the interpreter's first parallel region */
  if (o.memory_budget > 0 && !o.stats && !o.print_plan) {
    fprintf(stderr, "gnnc: --memory-budget needs the graph's size: add --print-memory-plan V=N,E=N (or --stats V=N,E=N)\n");
    return 2;
  }
  size_t size = 0;
  char *text = read_source_file(cli.input, &size);
  if (!text) {
    fprintf(stderr, "gnnc: cannot read '%s': %s\n", cli.input, read_source_error(errno));
    return 1;
  }
  GnnCtx c;
  gnn_ctx_init(&c, cli.input, text, size, stderr);
  c.model_name = model_name;
  int rc = 1;
  Module *m = NULL;
  FILE *out = stdout;
  OutFile outfile = {0};
  if (!cli.run && cli.output && cli.output[0] && cli.output[strlen(cli.output) - 1] == '/') {
    fprintf(stderr, "gnnc: -o '%s' names a folder: give a file name in it\n", cli.output);
    rc = 2;
    goto done;
  }
  if (!cli.run && cli.output && !emit_output_named(emit, cli.output)) { /* -o src.txt --emit=c: build.c */
    rc = 2;
    goto done;
  }
  if (!cli.run && cli.output && (strcmp(emit, "c") == 0 || strcmp(emit, "cu") == 0) && strpbrk(cli.output, "\"\\\n")) {
    /* the source includes its header by name: #include "..." cannot hold a quote (C11 6.4.7) */
    fprintf(stderr, "gnnc: -o '%s': the source would #include its header by this name, which cannot hold '\"', '\\' or a newline\n",
            cli.output);
    rc = 2;
    goto done;
  }
  if (!check_files(&cli, &eo, codegen)) { /* the source itself (gnnc m.gnn -o m.gnn), a link to it, a derived header */
    rc = 2;
    goto done;
  }
  if (!cli.run && cli.output && !codegen) {
    if (!out_open(&outfile, cli.output)) goto done;
    out = outfile.f;
  }
  if (!gnn_parse(&c)) goto done;
  /* The IR dumps (--print-ir-*) share standard output with the operator IR only: beside code
   * written there (--emit=c without -o) they made a file that did not compile. */
  o.out = cli.run || (!cli.output && strcmp(emit, "ir") != 0) ? stderr : stdout;
  if (cli.tune_graph) { /* the plan first (compiler/tune.c), then the library with it */
    TuneArgs t = {.path = cli.input, .text = text, .size = size, .model_name = model_name, .popts = &o, .eopts = &eo,
                  .graph = cli.tune_graph, .self_loops = cli.self_loops, .rounds = cli.tune_rounds ? cli.tune_rounds : 3,
                  .repeat = cli.tune_repeat ? cli.tune_repeat : 5, .spmm_given = cli.spmm_given};
    int n = tune_mapping(&t, edge_ids, (int)(sizeof edge_ids / sizeof edge_ids[0]), &o.split_hubs, &o.tile_columns, &o.spmm_library);
    if (n < 0) goto done;
    o.edge_ids = edge_ids;
    o.nedge_ids = n;
  }
  if (!(m = gnn_compile(&c, &o))) goto done;
  if (cli.run) {
    rc = run_model(&c, m, &cli);
  } else {
    bool dumping = o.print_after_all || o.nprint_after || o.nprint_before || o.stats || o.stats_symbolic || o.print_plan || o.gpu;
    if (codegen) rc = gnn_emit(c.kprog, &eo) ? 0 : 1;
    else if (strcmp(emit, "dot") == 0) ir_print_dot(out, m), rc = 0;
    else if (!dumping || cli.output || cli.emit) ir_print(out, m), rc = 0;
    else rc = 0;
  }
done:
  if (c.diag.errors > 0 && rc == 0) rc = 1;
  if (c.diag.errors > 0 && c.diag.out)
    fprintf(stderr, "%d error%s generated.\n", diag_count(&c.diag), diag_count(&c.diag) == 1 ? "" : "s");
  if (outfile.f && !out_close(&outfile, rc == 0)) rc = rc ? rc : 1; /* after an error the old file stays as it was */
  /* stdout: the IR, --print-ir-after, --stats (a full disk or a closed pipe is an error, not a
   * silent success) */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "gnnc: cannot write to standard output: %s\n", strerror(errno ? errno : EIO));
    rc = rc ? rc : 1;
  }
  gnn_ctx_free(&c);
  free(text);
  return rc;
}
