/* gnn_run.c -- gnn-run: load a model library built by gnnc, run it on a graph, report.
 *
 *   gnn-run libmodel.so --graph data/cora [--params F] [--inputs F] [--output F] [--seed N]
 *           [--repeat N] [--warmup N] [--train] [--backward] [--save-grads F] [--device N] [--rows N]
 *           [--self-loops] [--normalise-features] [--edge-order file|graph] [--save-inputs F]
 *
 * It prints the output's shape, a checksum, the first rows, the time per forward (the median
 * of --repeat timed runs after --warmup untimed ones, each followed by a sync) and the memory
 * plan (both arenas, and the kernel launches per pass); with --backward, also the time per
 * training step (a training forward and the backward, median of --repeat). One binary serves both targets: the model library links its own runtime (libgnnrt or
 * libgnnrt_host), and every runtime function is looked up through the library's handle, so
 * the context, graph and buffers all come from the runtime the model was built for.
 *
 * Inputs the graph does not give are generated exactly as `gnnc run` generates them (the
 * interpreter's seeded streams, edge rows in file order), and parameters start where the
 * interpreter's do (the library's create(): seeded Glorot values, zeros, declared values), so
 * `gnn-run` and `gnnc run` with the same seed compute the same function:
 * that is how the tests compare the generated code with the float64 interpreter.
 *
 * Edge rows in files (--inputs, --output, --save-input-grads, and the generated inputs) are in the
 * order of the graph file, through the graph's edge_origin (EdgeRows below), or with
 * --edge-order graph in the graph's own (CSR) order.
 *
 * Exit status (gnn-train's and gnnc run's too; docs/training.md#exit-status): 2 for a command
 * line refused before any work (an option, a value, an output that cannot be written there --
 * a directory, a missing or read-only folder: gnn_output_unwritable -- or that is a file the run
 * reads or of its dataset; an OMP_NUM_THREADS above 4096: gnnrt_omp.h), 1 for a run that fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "driver_rt.h"

static void usage(FILE *out) {
  fputs("usage: gnn-run LIBMODEL.so --graph PATH [options]\n"
        "  --graph PATH        a dataset folder (graph.edges, features.svm, ...), an edge list, .mtx or .gcsr;\n"
        "                      the features are the first vertex input, the edges' values (columns after\n"
        "                      'src dst', a real .mtx's entries) the first edge input\n"
        "  --params FILE       parameters (tensor text format); default: as the library's create() starts\n"
        "                      them (Glorot from --seed, zeros, values the model declares)\n"
        "  --inputs FILE       inputs by name (tensor text format, rows x width; edge rows in file order)\n"
        "  --output FILE       write every output row (tensor text format, edge rows in file order)\n"
        "  --save-inputs FILE  write the inputs used (read, from the graph, or drawn from --seed), as\n"
        "                      gnnc run --save-inputs does: the same file for the same seed and graph\n"
        "                      (with --backward the seed grad.out too)\n"
        "  --edge-order ORDER  edge rows of those files: 'file' (default): a row per edge of the graph file,\n"
        "                      then the added self-loops; both directions of a symmetric .mtx entry read its\n"
        "                      one row, an input gradient's row is their sum, and an edge output, which has\n"
        "                      no file order then, is refused; 'graph': the graph's own order (CSR by\n"
        "                      destination), a row per edge\n"
        "  --seed N            seed of parameters, generated inputs and dropout (default 1)\n"
        "  --repeat N          timed forwards (default 10); --warmup N untimed ones first (default 2)\n"
        "  --self-loops        add a self-loop v -> v to every vertex that has none (as gnn-train)\n"
        "  --num-vertices N    the vertex count of an edge list (default: the largest id + 1), as gnnc run's\n"
        "  --normalise-features  scale each row of the folder's features.svm to sum 1, as gnn-train does by\n"
        "                      default: the predictions of parameters gnn-train saved (without --raw-features)\n"
        "  --train             forward in training mode (dropout on)\n"
        "  --backward          after the forward, run the backward with grad.out from --inputs, else generated\n"
        "  --save-grads FILE   write the gradients (tensor text format, names grad.<param>)\n"
        "  --save-input-grads FILE  ask for every input gradient the library has (gnnc --input-grads) and\n"
        "                      write them after the first backward (names grad_input.<input>, edge rows in file order)\n"
        "  --device N          CUDA device (default 0)\n"
        "  --rows N            rows to print (default 3)\n"
        "Files written are checked before the run: each a file name in a writable folder, never a file read\n"
        "(the library, --params, --inputs, a graph file), nor one another, nor a file of the --graph folder's\n"
        "dataset; a device or FIFO (/dev/null) is written in place (it only has to be writable).\n",
        out);
}

static bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* ---------------------------------------------------------------- the interpreter's generated inputs */

static uint64_t name_seed(uint64_t seed, const char *name) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform01(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1.0p-53; }

/* Rows of a tensor of the given GNN_DOMAIN_* on g: a row per vertex, edge or graph of the batch, or one. */
static int64_t domain_rows(const gnn_graph *g, int domain) {
  return domain == GNN_DOMAIN_VERTEX ? g->nv : domain == GNN_DOMAIN_EDGE ? g->ne : domain == GNN_DOMAIN_GRAPH ? g->ng : 1;
}

/* ---------------------------------------------------------------- edge rows in files */

/* The row of each edge in an edge tensor of a file (--inputs, --output, --save-input-grads; the
 * generated inputs are drawn in that order too). In file order (the default) edge e is row
 * edge_origin[e] of the graph file, and the self-loops --self-loops added (origin -1) follow the
 * file's rows in ascending vertex order, as gnnc run --self-loops appends them: in CSR order they
 * already ascend, so the j-th one met is row nfile + j, nfile being the graph's num_input_edges
 * (the largest origin + 1 unless the options dropped the file's last edges; the Python binding's
 * Graph.num_input_edges reads the same field). Both directions of a symmetric Matrix Market entry
 * share its origin: both read that row of an input, the row of an input gradient is the sum of
 * theirs (the row feeds both), and an edge output has no file order (main refuses it and points
 * to --edge-order graph). The origins are checked before anything is indexed with them, since a
 * .gcsr's are whatever its writer put there: each below the edge count, and every row of the
 * file some edge's (gnn-run builds no graph with dedup or self-loop removal, and a cache built
 * with them is refused by its options, so a row without an edge means a damaged cache). With
 * --edge-order graph, row e is edge e. */
typedef struct {
  int64_t rows; /* rows of an edge tensor in a file */
  int64_t *row; /* ne: each edge's row */
  bool shared;  /* some row is more than one edge's */
} EdgeRows;

/* False after saying what is wrong with the graph's origins (or that memory ran out). */
static bool edge_rows_make(const gnn_graph *g, const char *graph, bool graph_order, EdgeRows *er) {
  int64_t ne = g->ne, added = 0, nfile = 0;
  er->rows = ne;
  er->shared = false;
  if (!(er->row = malloc(sizeof(int64_t) * (size_t)(ne ? ne : 1)))) {
    fprintf(stderr, "gnn-run: out of host memory (the edges' rows)\n");
    return false;
  }
  if (graph_order) {
    for (int64_t e = 0; e < ne; e++) er->row[e] = e;
    return true;
  }
  for (int64_t e = 0; e < ne; e++) {
    int64_t o = g->edge_origin[e];
    if (o < 0) added++;
    else if (o >= ne) {
      fprintf(stderr, "gnn-run: %s: edge %lld comes from row %lld of the graph file, but the graph has %lld edges (a damaged "
                      "cache?): its edge rows have no file order\n", graph, (long long)e, (long long)o, (long long)ne);
      return false;
    } else if (o >= nfile) nfile = o + 1;
  }
  /* the file's count where the graph knows it: past the largest origin when its last edges were
   * dropped, which gnn-run's options never do (a cache built with them is refused by its options),
   * so a row without an edge below is still a damaged cache */
  if (g->num_input_edges > nfile) nfile = g->num_input_edges;
  unsigned char *uses = calloc((size_t)(nfile ? nfile : 1), 1);
  if (!uses) {
    fprintf(stderr, "gnn-run: out of host memory (the edges' rows)\n");
    return false;
  }
  for (int64_t e = 0; e < ne; e++)
    if (g->edge_origin[e] >= 0 && uses[g->edge_origin[e]] < 2) uses[g->edge_origin[e]]++;
  for (int64_t r = 0; r < nfile; r++) {
    if (!uses[r]) {
      fprintf(stderr, "gnn-run: %s: no edge comes from row %lld of the graph file's %lld (a damaged cache?): its edge rows "
                      "have no file order\n", graph, (long long)r, (long long)nfile);
      free(uses);
      return false;
    }
    if (uses[r] > 1) er->shared = true;
  }
  free(uses);
  for (int64_t e = 0, j = 0; e < ne; e++) er->row[e] = g->edge_origin[e] >= 0 ? g->edge_origin[e] : nfile + j++;
  er->rows = nfile + added;
  return true;
}

/* Rows of a tensor of the given domain in a file: an edge tensor's er->rows, else domain_rows. */
static int64_t file_rows(const gnn_graph *g, const EdgeRows *er, int domain) {
  return domain == GNN_DOMAIN_EDGE ? er->rows : domain_rows(g, domain);
}

/* Rows of a tensor in file order -> the graph's (CSR) order: edge e takes file row er->row[e].
 * Vertex rows need no permutation. */
static void to_graph_order(const gnn_graph *g, const EdgeRows *er, int domain, int64_t width, const float *file, float *out) {
  int64_t rows = domain_rows(g, domain);
  for (int64_t r = 0; r < rows; r++) {
    int64_t src = domain == GNN_DOMAIN_EDGE ? er->row[r] : r;
    memcpy(out + r * width, file + src * width, sizeof(float) * (size_t)width);
  }
}

/* Tensor `want` (rows x the product of dims values) from an --inputs file, which the runtime has
 * read and checked as it checks --params (gnn_tensor_file_read_rows: headers, value counts,
 * finite float32 values, no repeated names, no overflowing dims). NULL with the message in ctx. */
static float *input_rows(Rt *rt, gnn_ctx *ctx, const gnn_tensor_file *tf, const char *want, int64_t rows, int rank,
                         const int64_t *dims, int64_t width, gnn_status *st) {
  float *out = malloc(sizeof(float) * (size_t)(rows * width > 0 ? rows * width : 1));
  if (!out) {
    *st = GNN_ERR_OOM;
    return NULL;
  }
  if ((*st = rt->tf_get_rows(ctx, tf, want, rows, rank, dims, out))) {
    free(out);
    return NULL;
  }
  return out;
}

/* The name of tensor i of a tensor file (NULL past its end). */
static const char *file_tensor_name(Rt *rt, const gnn_tensor_file *tf, int i) {
  const char *name = NULL;
  int rank = 0;
  int64_t dims[4];
  return rt->tf_info(tf, i, &name, &rank, dims) == GNN_OK ? name : NULL;
}

/* The --inputs file's tensor `name`, if it has one. */
static bool file_has(Rt *rt, const gnn_tensor_file *tf, const char *name) {
  for (int i = 0, n = rt->tf_count(tf); i < n; i++) {
    const char *have = file_tensor_name(rt, tf, i);
    if (have && strcmp(have, name) == 0) return true;
  }
  return false;
}

/* Every tensor of an --inputs file is a model input, or the backward's seed grad.out of a model
 * with a backward (what gnnc run --save-inputs writes after --backward; a forward leaves it
 * unread): a misspelt input must not be skipped while the input it meant is generated. False
 * after saying which tensor is not. */
static bool inputs_file_names_ok(Rt *rt, const gnn_model_api *api, const gnn_tensor_file *tf, const char *path) {
  for (int i = 0, n = rt->tf_count(tf); i < n; i++) {
    const char *name = file_tensor_name(rt, tf, i);
    if (!name) continue;
    bool known = api->has_backward && strcmp(name, "grad.out") == 0;
    for (int k = 0; k < api->num_inputs && !known; k++) known = strcmp(api->inputs[k].name, name) == 0;
    if (!known) {
      fprintf(stderr, "gnn-run: %s: tensor '%s' is not an input of %s (its inputs:", path, name, api->name);
      for (int k = 0; k < api->num_inputs; k++) fprintf(stderr, "%s %s", k ? "," : "", api->inputs[k].name);
      fprintf(stderr, "%s)\n", api->has_backward ? "; and grad.out, the backward's seed" : "");
      return false;
    }
  }
  return true;
}

/* Writes tensor `name`, given in the graph's order, with its rows in file order (EdgeRows): a
 * file row that several edges share gets the sum of theirs, in edge order (an input gradient;
 * main writes no edge output whose rows are shared), or with `first` the first edge's (an input,
 * which every edge of the row read). False when out of host memory. */
static bool write_rows(FILE *f, const char *name, const gnn_graph *g, const EdgeRows *er, const gnn_tensor_info *t,
                       const float *graph_rows, bool first) {
  int64_t rows = file_rows(g, er, t->domain), w = t->width;
  const float *out = graph_rows;
  float *file = NULL;
  if (t->domain == GNN_DOMAIN_EDGE) { /* edge rows back to file order */
    file = calloc((size_t)(rows * w > 0 ? rows * w : 1), sizeof(float));
    unsigned char *seen = calloc((size_t)(rows ? rows : 1), 1);
    if (!file || !seen) {
      free(file);
      free(seen);
      return false;
    }
    for (int64_t e = 0; e < g->ne; e++) {
      float *to = file + er->row[e] * w;
      const float *from = graph_rows + e * w;
      if (seen[er->row[e]]) {
        if (!first)
          for (int64_t k = 0; k < w; k++) to[k] += from[k];
      } else memcpy(to, from, sizeof(float) * (size_t)w);
      seen[er->row[e]] = 1;
    }
    free(seen);
    out = file;
  }
  fprintf(f, "tensor %s %lld %d", name, (long long)rows, t->rank);
  for (int k = 0; k < t->rank; k++) fprintf(f, " %lld", (long long)t->dims[k]);
  fputc('\n', f);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < w; k++) fprintf(f, "%.9g%c", out[r * w + k], k + 1 == w ? '\n' : ' ');
  free(file);
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Writes the n tensors infos[i] (given in the graph's order: write_rows) to PATH, named names[i]
 * (infos[i].name when names is NULL), formatted in memory first: the file gets a checksum line and
 * appears whole or not at all. `what` names them in a message. False after saying why. */
static bool save_rows(const char *path, const char *what, const gnn_graph *g, const EdgeRows *er, int n,
                      const gnn_tensor_info *infos, const float *const *data, const char *const *names, bool first) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    fprintf(stderr, "gnn-run: cannot write %s: %s\n", path, strerror(errno));
    return false;
  }
  bool ok = true;
  for (int i = 0; i < n && ok; i++) ok = write_rows(f, names ? names[i] : infos[i].name, g, er, &infos[i], data[i], first);
  ok = fclose(f) == 0 && text && ok;
  if (!ok) fprintf(stderr, "gnn-run: %s: cannot format the %s in memory: %s\n", path, what, strerror(errno));
  ok = ok && driver_write_tensors("gnn-run", path, text, len); /* says why on failure */
  free(text);
  return ok;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    gnn_status st_ = (call);                                                                         \
    if (st_ != GNN_OK) {                                                                             \
      fprintf(stderr, "gnn-run: %s: %s\n", rt.status_name(st_), rt.last_error(ctx));                  \
      goto out;                                                                                      \
    }                                                                                                \
  } while (0)
/* A host allocation that failed: said, not dereferenced. */
#define NEED(p)                                                                                      \
  do {                                                                                               \
    if (!(p)) {                                                                                      \
      fprintf(stderr, "gnn-run: out of host memory (%s)\n", #p);                                    \
      goto out;                                                                                      \
    }                                                                                                \
  } while (0)

int main(int argc, char **argv) {
  const char *libpath = NULL, *graph = NULL, *params = NULL, *inputs = NULL, *output = NULL, *save_grads = NULL,
             *save_input_grads = NULL, *save_inputs = NULL;
  int64_t seed = 1, repeat = 10, warmup = 2, device = 0, nrows = 3, num_vertices = 0;
  bool train = false, backward = false, self_loops = false, graph_order = false, normalise = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && (i++, true))
    /* the file options: each given once (driver_file_once) */
    const struct {
      const char *flag;
      const char **slot;
    } files[] = {{"--graph", &graph},           {"--params", &params},
                 {"--inputs", &inputs},         {"--output", &output},
                 {"--save-grads", &save_grads}, {"--save-input-grads", &save_input_grads},
                 {"--save-inputs", &save_inputs}};
    int file_opt = -1;
    for (int k = 0; k < (int)(sizeof files / sizeof files[0]) && file_opt < 0; k++)
      if (OPT(files[k].flag)) file_opt = k;
    if (file_opt >= 0) {
      if (!driver_file_once("gnn-run", files[file_opt].slot, files[file_opt].flag, v)) return 2;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (OPT("--edge-order")) {
      if (strcmp(v, "file") != 0 && strcmp(v, "graph") != 0)
        return fprintf(stderr, "gnn-run: --edge-order wants 'file' or 'graph', got '%s'\n", v), 2;
      graph_order = strcmp(v, "graph") == 0;
    } else if (OPT("--seed")) {
      if (!parse_i64(v, 0, INT64_MAX, &seed)) return fprintf(stderr, "gnn-run: --seed wants a non-negative integer, got '%s'\n", v), 2;
    } else if (OPT("--repeat")) {
      if (!parse_i64(v, 1, 1000000, &repeat)) return fprintf(stderr, "gnn-run: --repeat wants 1 to 1000000, got '%s'\n", v), 2;
    } else if (OPT("--warmup")) {
      if (!parse_i64(v, 0, 1000000, &warmup)) return fprintf(stderr, "gnn-run: --warmup wants 0 to 1000000, got '%s'\n", v), 2;
    } else if (OPT("--device")) {
      if (!parse_i64(v, 0, 1024, &device)) return fprintf(stderr, "gnn-run: --device wants a device number, got '%s'\n", v), 2;
    } else if (OPT("--num-vertices")) { /* as gnnc run's: vertices past the largest id (isolated), or a graph of no edges */
      if (!parse_i64(v, 1, (int64_t)1 << 31, &num_vertices))
        return fprintf(stderr, "gnn-run: --num-vertices wants an integer from 1 to 2147483648, got '%s'\n", v), 2;
    } else if (OPT("--rows")) {
      if (!parse_i64(v, 0, INT64_MAX, &nrows)) return fprintf(stderr, "gnn-run: --rows wants a non-negative integer, got '%s'\n", v), 2;
    } else if (strcmp(a, "--train") == 0) train = true;
    else if (strcmp(a, "--backward") == 0) backward = train = true;
    else if (strcmp(a, "--self-loops") == 0) self_loops = true;
    else if (strcmp(a, "--normalise-features") == 0) normalise = true;
    else if (a[0] == '-') return fprintf(stderr, "gnn-run: unknown option '%s' (or it lacks its value; see --help)\n", a), 2;
    else if (!libpath) libpath = a;
    else return fprintf(stderr, "gnn-run: more than one model library ('%s' and '%s')\n", libpath, a), 2;
  }
  if (!libpath || !graph) {
    usage(stderr);
    fprintf(stderr, "gnn-run: %s is missing\n", !libpath ? "the model library (LIBMODEL.so)" : "--graph PATH");
    return 2;
  }
  if (save_grads || save_input_grads) backward = train = true;
  if (!gnn_omp_threads_ok("gnn-run")) return 2;
  /* a file-size limit (ulimit -f): a write error with a message and the temporary removed, not a
   * SIGXFSZ that kills gnn-run mid-write (gnn-train does the same) */
  signal(SIGXFSZ, SIG_IGN);
  const DriverFile reads[] = {{"the model library", libpath}, {"--graph", graph}, {"--params", params}, {"--inputs", inputs}};
  const DriverFile writes[] = {{"--output", output}, {"--save-grads", save_grads}, {"--save-input-grads", save_input_grads},
                               {"--save-inputs", save_inputs}};
  /* the outputs, written after the run: what would fail at the write is refused now, in
   * gnn-train's words (gnn_output_unwritable), before anything is loaded */
  for (int k = 0; k < 4; k++) {
    char why[3 * PATH_MAX];
    if (writes[k].path && gnn_output_unwritable(writes[k].opt, writes[k].path, why, sizeof why))
      return fprintf(stderr, "gnn-run: %s\n", why), 2;
  }
  if (!driver_files_safe("gnn-run", reads, 4, writes, 4)) return 2;
  struct stat graph_st;
  if (num_vertices && stat(graph, &graph_st) == 0 && S_ISDIR(graph_st.st_mode)) /* gnnc run's words */
    return fprintf(stderr, "gnn-run: --num-vertices is for a bare edge list; the folder '%s' gives its vertex count in its "
                   "files (labels.txt, features.svm, else the largest id in graph.edges + 1)\n", graph), 2;
  /* Line-buffered even into a pipe: a caller that merges stderr into stdout (2>&1) then sees an
   * error message after the report lines printed before it, not ahead of all of them (a block-
   * buffered stdout reaches the pipe only at exit, so the message came first and a tail of the
   * output showed only the normal report: tests/suites/lang.sh's CUDA backward/multi failure). */
  setvbuf(stdout, NULL, _IOLBF, 0);

  int rc = 1;
  Rt rt = {0};
  gnn_ctx *ctx = NULL;
  gnn_graph *g = NULL;
  void *model = NULL;
  float **in_host = NULL, **in_dev = NULL, *host_out = NULL, *dgrad = NULL, *hgrad = NULL, **gsave = NULL;
  double *times = NULL, *steps = NULL;
  gnn_tensor_file *tf = NULL, *tf_in = NULL;
  EdgeRows er = {0};
  const gnn_model_api *api = NULL;
  void *lib = NULL;
  if (!driver_open("gnn-run", libpath, &lib, &api, &rt)) goto out;

  if (rt.ctx_create(&ctx, (int)device) != GNN_OK) {
    fprintf(stderr, "gnn-run: %s\n", rt.last_error(ctx));
    goto out;
  }
  gnn_graph_opts gopts = {0};
  gopts.add_self_loops = self_loops; /* v -> v for every vertex without one, as gnnc run and gnn-train */
  gopts.num_vertices = num_vertices;
  CHECK(rt.graph_load(ctx, graph, &gopts, &g));
  driver_warning("gnn-run", &rt, ctx);
  /* the file rows of the edges, for a model with an edge input or output (EdgeRows) */
  const gnn_tensor_info *ot = &api->output_info;
  bool edge_tensors = ot->domain == GNN_DOMAIN_EDGE;
  for (int i = 0; i < api->num_inputs; i++) edge_tensors |= api->inputs[i].domain == GNN_DOMAIN_EDGE;
  if (edge_tensors && !edge_rows_make(g, graph, graph_order, &er)) goto out;
  if (er.shared && ot->domain == GNN_DOMAIN_EDGE && output) {
    fprintf(stderr, "gnn-run: %s: %lld edges come from %lld rows of the graph file (both directions of a symmetric Matrix "
                    "Market entry share its row), so the edge output of %s has no file order: --edge-order graph writes its "
                    "rows in the graph's order\n", graph, (long long)g->ne, (long long)er.rows, api->name);
    goto out;
  }
  CHECK(api->create(ctx, g, (uint64_t)seed, &model));

  /* parameters from a file */
  if (params) {
    CHECK(rt.tf_read(ctx, params, &tf));
    const char *names[256];
    int np = api->num_params < 256 ? api->num_params : 256;
    for (int i = 0; i < np; i++) names[i] = api->params[i].name;
    CHECK(rt.tf_expect(ctx, tf, np, names));
    for (int i = 0; i < api->num_params; i++) {
      const gnn_tensor_info *t = &api->params[i];
      float *h = malloc(sizeof(float) * (size_t)(t->width ? t->width : 1));
      NEED(h);
      gnn_status st = rt.tf_get(ctx, tf, t->name, t->rank, t->dims, h);
      if (st == GNN_OK) st = rt.upload(ctx, api->param(model, i), h, sizeof(float) * (size_t)t->width);
      free(h);
      CHECK(st);
    }
  }

  /* inputs: --inputs by name, else the first vertex input takes the dataset's features, else
   * generated as the interpreter generates them */
  if (inputs) {
    CHECK(rt.tf_read_rows(ctx, inputs, &tf_in));
    if (!inputs_file_names_ok(&rt, api, tf_in, inputs)) goto out;
  }
  in_host = calloc((size_t)api->num_inputs + 1, sizeof(float *));
  in_dev = calloc((size_t)api->num_inputs + 1, sizeof(float *));
  NEED(in_host);
  NEED(in_dev);
  bool features_used = false, edge_values_used = false;
  struct stat st_dir;
  bool is_dir = stat(graph, &st_dir) == 0 && S_ISDIR(st_dir.st_mode);
  for (int i = 0; i < api->num_inputs; i++) {
    const gnn_tensor_info *t = &api->inputs[i];
    int64_t rows = file_rows(g, &er, t->domain); /* in the file; domain_rows in the graph */
    size_t bytes = sizeof(float) * (size_t)(domain_rows(g, t->domain) * t->width), fbytes = sizeof(float) * (size_t)(rows * t->width);
    float *frows = NULL;
    if (inputs) {
      gnn_status st = GNN_OK;
      frows = input_rows(&rt, ctx, tf_in, t->name, rows, t->rank, t->dims, t->width, &st);
      CHECK(st);
    } else if (t->domain == GNN_DOMAIN_VERTEX && is_dir && !features_used) {
      char path[4096];
      snprintf(path, sizeof path, "%s/features.svm", graph);
      if (stat(path, &st_dir) == 0) {
        float *feat = NULL;
        int64_t ncols = 0;
        CHECK(rt.features_load(ctx, path, g->nv, &feat, &ncols));
        if (ncols == 0) { /* zero-padded, every input would be zero (gnn-train refuses it alike) */
          fprintf(stderr, "gnn-run: %s has no feature columns (no index:value on any row): model input '%s' would be all "
                          "zeros; give the features, or a constant column (\"1:1\" on every row)\n", path, t->name);
          free(feat);
          goto out;
        }
        if (t->rank != 1 || ncols > t->width) {
          fprintf(stderr, "gnn-run: model input '%s' has %lld columns but %s has %lld\n", t->name, (long long)t->width, path,
                  (long long)ncols);
          free(feat);
          goto out;
        }
        frows = calloc((size_t)(rows * t->width > 0 ? rows * t->width : 1), sizeof(float));
        if (!frows) free(feat);
        NEED(frows);
        for (int64_t r = 0; r < rows; r++) {
          float *row = frows + r * t->width;
          memcpy(row, feat + r * ncols, sizeof(float) * (size_t)ncols);
          /* gnn-train's scaling, operation for operation (a double sum of the floats, each
           * quotient rounded to float), so the forward sees the bits training saw */
          double sum = 0;
          for (int64_t k = 0; k < ncols; k++) sum += row[k];
          if (normalise && sum != 0)
            for (int64_t k = 0; k < ncols; k++) row[k] = (float)(row[k] / sum);
        }
        free(feat);
        features_used = true;
      }
    }
    if (normalise && !features_used && t->domain == GNN_DOMAIN_VERTEX) {
      fprintf(stderr, "gnn-run: --normalise-features scales the features of a dataset folder's features.svm, but input '%s' "
                      "does not read them (%s): scale the rows of the file it reads instead\n", t->name,
              inputs ? "--inputs gives every input" : !is_dir ? "--graph is not a folder" : "the folder has no features.svm");
      goto out;
    }
    if (!inputs && t->domain == GNN_DOMAIN_EDGE && g->edge_ncols && !edge_values_used) {
      /* The first edge input takes the graph's edge values (already in the graph's order). */
      edge_values_used = true;
      if (t->width != g->edge_ncols) {
        fprintf(stderr, "gnn-run: model input '%s' has %lld value%s per edge but the edges of %s carry %lld\n", t->name,
                (long long)t->width, t->width == 1 ? "" : "s", graph, (long long)g->edge_ncols);
        goto out;
      }
      in_host[i] = malloc(bytes ? bytes : 1);
      NEED(in_host[i]);
      memcpy(in_host[i], g->h_edge_values, bytes);
      CHECK(rt.gmalloc(ctx, (void **)&in_dev[i], bytes));
      CHECK(rt.upload(ctx, in_dev[i], in_host[i], bytes));
      continue;
    }
    if (!frows) { /* the interpreter's generated input */
      uint64_t s = name_seed((uint64_t)seed ^ 0x5eedull, t->name);
      frows = malloc(fbytes ? fbytes : 1);
      NEED(frows);
      for (int64_t k = 0; k < rows * t->width; k++)
        frows[k] = (float)(t->domain == GNN_DOMAIN_EDGE ? uniform01(&s) : 2 * uniform01(&s) - 1);
    }
    in_host[i] = malloc(bytes ? bytes : 1);
    if (!in_host[i]) free(frows);
    NEED(in_host[i]);
    to_graph_order(g, &er, t->domain, t->width, frows, in_host[i]);
    free(frows);
    CHECK(rt.gmalloc(ctx, (void **)&in_dev[i], bytes));
    CHECK(rt.upload(ctx, in_dev[i], in_host[i], bytes));
  }
  /* what the model reads, edge rows in file order (a test of the seeded draw), written before
   * the run so that a run that fails leaves them; with a backward written again there with its
   * seed grad.out last, as gnnc run --backward --save-inputs writes it */
  if (save_inputs && !save_rows(save_inputs, "inputs", g, &er, api->num_inputs, api->inputs, (const float *const *)in_host, NULL, true))
    goto out;

  /* forward: warm-up, then timed runs */
  times = malloc(sizeof(double) * (size_t)repeat);
  NEED(times);
  for (int64_t r = 0; r < warmup + repeat; r++) {
    double t0 = now();
    gnn_status st = api->forward(model, (const float *const *)in_dev, train, (uint64_t)seed);
    if (st == GNN_OK) st = rt.sync(ctx);
    CHECK(st);
    if (r >= warmup) times[r - warmup] = now() - t0;
  }
  qsort(times, (size_t)repeat, sizeof(double), cmp_double);
  double median = repeat % 2 ? times[repeat / 2] : 0.5 * (times[repeat / 2 - 1] + times[repeat / 2]);
  double fastest = times[0];
  free(times);
  times = NULL;

  int64_t orows = domain_rows(g, ot->domain);
  size_t obytes = sizeof(float) * (size_t)(orows * ot->width);
  host_out = malloc(obytes ? obytes : 1);
  NEED(host_out);
  CHECK(rt.download(ctx, host_out, api->output(model), obytes));
  double sum = 0, asum = 0;
  int64_t nonfinite = 0;
  for (int64_t i = 0; i < orows * ot->width; i++) {
    if (!isfinite(host_out[i])) nonfinite++;
    sum += host_out[i];
    asum += fabs(host_out[i]);
  }
  if (g->edge_ncols && !inputs && !edge_values_used) /* values the user gave that nothing reads: said, not dropped silently */
    fprintf(stderr, "gnn-run: note: the %lld value%s per edge of %s %s not read: model %s has no edge input\n",
            (long long)g->edge_ncols, g->edge_ncols == 1 ? "" : "s", graph, g->edge_ncols == 1 ? "is" : "are", api->name);
  printf("model %s (%s, %s) on %s: %lld vertices, %lld edges\n", api->name, api->source,
         api->target == GNN_TARGET_CUDA ? "CUDA" : "host", graph, (long long)g->nv, (long long)g->ne);
  printf("output: %s[", ot->domain == GNN_DOMAIN_VERTEX ? "vertex" : ot->domain == GNN_DOMAIN_EDGE ? "edge" : ot->domain == GNN_DOMAIN_GRAPH ? "graph" : "global");
  for (int k = 0; k < ot->rank; k++) printf(k ? ", %lld" : "%lld", (long long)ot->dims[k]);
  printf("] x %lld rows%s\n", (long long)orows, train ? " (training mode)" : "");
  printf("checksum: sum %.10g  abs-sum %.10g%s\n", sum, asum, nonfinite ? "  (NOT FINITE)" : "");
  for (int64_t r = 0; r < orows && r < nrows; r++) {
    printf("row %lld:", (long long)r);
    for (int64_t k = 0; k < ot->width && k < 8; k++) printf(" %.6g", host_out[r * ot->width + k]);
    printf(ot->width > 8 ? " ...\n" : "\n");
  }
  printf("time per forward: %.3f ms (median of %lld, fastest %.3f ms, after %lld warm-up)\n", median * 1e3, (long long)repeat,
         fastest * 1e3, (long long)warmup);
  gnn_memory_plan plan;
  api->memory_plan(model, &plan);
  size_t live = 0, peak = 0;
  rt.mem_usage(ctx, &live, &peak);
  printf("memory: plan %.2f MiB (arena %.2f MiB for %d buffers, %.2f MiB unshared; params %.2f MiB, grads %.2f MiB); "
         "peak allocated %.2f MiB\n",
         plan.total / 1048576.0, plan.arena / 1048576.0, plan.buffers, plan.unshared / 1048576.0, plan.params / 1048576.0,
         plan.grads / 1048576.0, peak / 1048576.0);
  /* launches per pass: an inference forward's on a graph it has run before (forward_kernels less
   * the training-only and once-per-graph ones), then what a training forward and a graph's first
   * forward add; a library of an older gnnc (no gnn_model_forward_launches) does not say which
   * they are: its count is every launch a forward can make */
  char fwd_more[160] = "";
  long long fk = (long long)api->forward_kernels, fk_train = (long long)api->forward_kernels_training,
            fk_graph = (long long)api->forward_kernels_graph;
  if (!dlsym(lib, "gnn_model_forward_launches"))
    snprintf(fwd_more, sizeof fwd_more, " (every launch a forward can make: a library of an older gnnc does not say which run only when training)");
  else {
    fk -= fk_train + fk_graph;
    char train_more[64] = "", graph_more[64] = "";
    if (fk_train) snprintf(train_more, sizeof train_more, "a training forward: %lld more", fk_train);
    if (fk_graph) snprintf(graph_more, sizeof graph_more, "a graph's first forward: %lld more", fk_graph);
    if (fk_train || fk_graph) snprintf(fwd_more, sizeof fwd_more, " (%s%s%s)", train_more, fk_train && fk_graph ? "; " : "", graph_more);
  }
  printf("arena: %.2f MiB for inference, %.2f MiB for training; launches per pass: forward %lld kernels + %lld GEMMs%s, "
         "backward %lld kernels + %lld GEMMs\n",
         plan.arena_inference / 1048576.0, plan.arena / 1048576.0, fk, (long long)api->forward_gemms, fwd_more,
         (long long)api->backward_kernels, (long long)api->backward_gemms);
  if (output && !save_rows(output, "output", g, &er, 1, ot, (const float *const *)&host_out, (const char *const[]){"output"}, false)) goto out;

  if (backward) {
    if (!api->has_backward) {
      if (api->num_params == 0) /* autodiff made no backward: it would compute nothing */
        fprintf(stderr, "gnn-run: %s (model %s) has no backward: it has no parameters and was built without --input-grads, "
                "so there is no gradient to compute\n", libpath, api->name);
      else
        fprintf(stderr, "gnn-run: %s was compiled without autodiff (no backward)\n", libpath);
      goto out;
    }
    float *seed_rows = NULL;
    int64_t srows = file_rows(g, &er, ot->domain); /* the output's rows in a file */
    if (inputs && file_has(&rt, tf_in, "grad.out")) { /* else drawn, as gnnc run --inputs draws it */
      if (er.shared && ot->domain == GNN_DOMAIN_EDGE) { /* the output's rows have no file order */
        fprintf(stderr, "gnn-run: %s: grad.out of %s: %lld edges come from %lld rows of the graph file (a symmetric Matrix "
                        "Market file?), so an edge output's rows have no file order: use --edge-order graph\n", inputs, graph,
                (long long)g->ne, (long long)er.rows);
        goto out;
      }
      gnn_status st = GNN_OK;
      seed_rows = input_rows(&rt, ctx, tf_in, "grad.out", srows, ot->rank, ot->dims, ot->width, &st);
      CHECK(st);
    } else { /* drawn per file row, as an input is */
      uint64_t s = name_seed((uint64_t)seed ^ 0x5eedull, "grad.out");
      seed_rows = malloc(sizeof(float) * (size_t)(srows * ot->width > 0 ? srows * ot->width : 1));
      NEED(seed_rows);
      for (int64_t k = 0; k < srows * ot->width; k++) seed_rows[k] = (float)(2 * uniform01(&s) - 1);
    }
    hgrad = malloc(obytes ? obytes : 1);
    if (!hgrad) free(seed_rows);
    NEED(hgrad);
    to_graph_order(g, &er, ot->domain, ot->width, seed_rows, hgrad);
    free(seed_rows);
    if (save_inputs) { /* the inputs again, then the seed, in the graph's order as the inputs are */
      int n = api->num_inputs;
      gnn_tensor_info *infos = calloc((size_t)n + 1, sizeof *infos);
      const float **data = calloc((size_t)n + 1, sizeof *data);
      const char **names = calloc((size_t)n + 1, sizeof *names);
      bool ok = infos && data && names;
      for (int i = 0; ok && i <= n; i++) {
        infos[i] = i < n ? api->inputs[i] : *ot;
        data[i] = i < n ? in_host[i] : hgrad;
        names[i] = i < n ? api->inputs[i].name : "grad.out";
      }
      ok = ok && save_rows(save_inputs, "inputs", g, &er, n + 1, infos, data, names, true);
      bool oom = !infos || !data || !names;
      free(infos);
      free(data);
      free(names);
      NEED(!oom);
      if (!ok) goto out;
    }
    CHECK(rt.gmalloc(ctx, (void **)&dgrad, obytes));
    CHECK(rt.upload(ctx, dgrad, hgrad, obytes));
    int nig = 0;
    for (int i = 0; save_input_grads && api->input_grads && i < api->num_inputs; i++)
      if (api->input_grads[i] == 1) {
        CHECK(api->request_input_grad(model, i, 1));
        nig++;
      }
    if (save_input_grads && !nig) {
      fprintf(stderr, "gnn-run: --save-input-grads: %s computes no input gradient (compile it with gnnc --input-grads=all)\n", libpath);
      goto out;
    }
    double t0 = now();
    CHECK(api->backward(model, dgrad));
    CHECK(rt.sync(ctx));
    /* one cold run (the first backward allocates and touches its buffers): the steady-state
     * figure is the training step timed below */
    printf("time of the first backward: %.3f ms (one cold run; the training step below is the median)\n", (now() - t0) * 1e3);
    if (save_input_grads) { /* the first backward's, like --save-grads */
      /* downloaded first, then written like the other tensor files, named grad_input.<input> */
      int n = 0;
      gnn_tensor_info *infos = calloc((size_t)nig, sizeof *infos);
      float **host = calloc((size_t)nig, sizeof *host);
      char **names = calloc((size_t)nig, sizeof *names);
      bool oom = !infos || !host || !names;
      gnn_status st = GNN_OK;
      for (int i = 0; i < api->num_inputs && !st && !oom; i++) {
        const gnn_tensor_info *t = &api->inputs[i];
        const float *d = api->input_grads[i] == 1 ? api->input_grad(model, i) : NULL;
        if (!d) continue;
        size_t b = sizeof(float) * (size_t)(domain_rows(g, t->domain) * t->width);
        size_t nb = strlen(t->name) + sizeof "grad_input.";
        infos[n] = *t;
        host[n] = malloc(b ? b : 1);
        names[n] = malloc(nb);
        if (!host[n] || !names[n]) {
          oom = true;
          n++;
          break;
        }
        snprintf(names[n], nb, "grad_input.%s", t->name);
        st = rt.download(ctx, host[n], d, b);
        n++;
      }
      bool ok = !st && !oom && save_rows(save_input_grads, "input gradients", g, &er, n, infos, (const float *const *)host,
                                 (const char *const *)names, false); /* says why on failure */
      for (int i = 0; i < n; i++) {
        free(host[i]);
        free(names[i]);
      }
      free(infos);
      free(host);
      free(names);
      NEED(!oom);
      CHECK(st);
      if (!ok) goto out;
    }
    /* a training step without the optimiser: a training forward then the backward, --repeat
     * times after --warmup (the gradients saved below are the first backward's, as before) */
    steps = malloc(sizeof(double) * (size_t)repeat);
    NEED(steps);
    if (save_grads) { /* keep the first backward's gradients: the timed steps redo them */
      gsave = calloc((size_t)api->num_params + 1, sizeof(float *));
      NEED(gsave);
      for (int i = 0; i < api->num_params; i++) {
        size_t b = sizeof(float) * (size_t)api->params[i].width;
        gsave[i] = malloc(b ? b : 1);
        NEED(gsave[i]);
        CHECK(rt.download(ctx, gsave[i], api->grad(model, i), b));
      }
    }
    for (int64_t r = 0; r < warmup + repeat; r++) {
      double t1 = now();
      CHECK(api->forward(model, (const float *const *)in_dev, 1, (uint64_t)seed));
      CHECK(api->backward(model, dgrad));
      CHECK(rt.sync(ctx));
      if (r >= warmup) steps[r - warmup] = now() - t1;
    }
    qsort(steps, (size_t)repeat, sizeof(double), cmp_double);
    printf("time per training step: %.3f ms (forward with training = 1 and backward, median of %lld after %lld warm-up)\n",
           (repeat % 2 ? steps[repeat / 2] : 0.5 * (steps[repeat / 2 - 1] + steps[repeat / 2])) * 1e3, (long long)repeat,
           (long long)warmup);
    free(steps);
    steps = NULL;
    if (gsave)
      for (int i = 0; i < api->num_params; i++)
        CHECK(rt.upload(ctx, api->grad(model, i), gsave[i], sizeof(float) * (size_t)api->params[i].width));
    if (save_grads) {
      int np = api->num_params;
      const char **names = calloc((size_t)np + 1, sizeof(char *));
      int *ranks = calloc((size_t)np + 1, sizeof(int));
      int64_t(*dims)[4] = calloc((size_t)np + 1, sizeof *dims);
      float **data = calloc((size_t)np + 1, sizeof(float *));
      bool oom = !names || !ranks || !dims || !data;
      gnn_status st = GNN_OK;
      for (int i = 0; i < np && st == GNN_OK && !oom; i++) {
        const gnn_tensor_info *t = &api->params[i];
        char *nm = malloc(strlen(t->name) + 6);
        names[i] = nm;
        data[i] = malloc(sizeof(float) * (size_t)(t->width ? t->width : 1));
        if ((oom = !nm || !data[i])) break;
        sprintf(nm, "grad.%s", t->name);
        ranks[i] = t->rank;
        memcpy(dims[i], t->dims, sizeof dims[i]);
        st = rt.download(ctx, data[i], api->grad(model, i), sizeof(float) * (size_t)t->width);
      }
      if (oom) fprintf(stderr, "gnn-run: %s: out of host memory\n", save_grads);
      if (st == GNN_OK && !oom) st = rt.tf_write(ctx, save_grads, np, names, ranks, (const int64_t(*)[4])dims, (const float *const *)data);
      for (int i = 0; i < np && names && data; i++) {
        free((void *)names[i]);
        free(data[i]);
      }
      free(names), free(ranks), free(dims), free(data);
      CHECK(st);
      if (oom) goto out;
    }
  }
  rc = 0;
out:
  free(times);
  free(steps);
  if (gsave)
    for (int i = 0; i < api->num_params; i++) free(gsave[i]);
  free(gsave);
  if (in_dev)
    for (int i = 0; api && i < api->num_inputs; i++) {
      if (in_dev[i]) rt.gfree(ctx, in_dev[i]);
      free(in_host[i]);
    }
  free(in_dev);
  free(in_host);
  free(host_out);
  free(hgrad);
  free(er.row);
  if (dgrad) rt.gfree(ctx, dgrad);
  if (tf) rt.tf_free(tf);
  if (tf_in) rt.tf_free(tf_in);
  if (model) api->destroy(model);
  if (g) rt.graph_free(ctx, g);
  if (ctx) rt.ctx_destroy(ctx);
  if (lib) dlclose(lib);
  return rc;
}
