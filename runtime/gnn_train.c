/* gnn_train.c -- gnn-train: train a model library built by gnnc on a dataset with a split.
 *
 *   gnn-train libmodel.so --data data/cora [--epochs N] [--lr X] [--weight-decay X]
 *             [--optimizer adam|sgd] [--patience N] [--seed N] [--self-loops|--no-self-loops] [--symmetrise]
 *             [--raw-features]
 *             [--save-params F] [--load-params F] [--eval-only] [--quiet] [--device N]
 *             [--checkpoint F [--checkpoint-every N]] [--resume F]
 *
 * Semi-supervised node classification as in Kipf & Welling and Velickovic et al.: softmax
 * cross-entropy on the training vertices (the runtime's gnn_softmax_xent), the model's own
 * backward (compiled by gnnc's autodiff), Adam or SGD with L2 weight decay, dropout from a
 * counter-based RNG seeded per epoch. After each epoch an inference forward measures the
 * validation loss and accuracy; training stops early when neither has improved for
 * `patience` epochs (GAT's rule), and the parameters of the best validation epoch are kept:
 * the test accuracy is reported for them, and --save-params writes them (names and shapes,
 * the tensor text format, loadable with --load-params or `gnnc run --params`).
 *
 * Defaults come from the papers, by the model's whole name (GCN: lr 0.01, weight decay 5e-4, 200
 * epochs, patience 10 on the validation loss as Kipf & Welling; GAT: lr 0.005, 5e-4, patience
 * 100; ...), with self-loops added for the models whose papers add them. One line per epoch;
 * a NaN loss stops training with a message naming the epoch. Like gnn-run, one binary serves
 * CUDA and host libraries: the runtime is the one the model library links.
 *
 * Checkpoints (--checkpoint F, every N epochs and at the end) hold the whole state of the loop
 * (gnn_train_state: parameters, Adam's moments and step, the epoch, the dropout stream's
 * position, the best validation scores and parameters, the early-stopping counter); --resume F
 * goes on from one. Every value the loop computes depends only on that state (the dropout
 * masks come from a counter-based RNG keyed by seed and epoch), so a resumed run prints the same
 * epoch lines and ends at the same parameters, bit for bit, as one never interrupted. The
 * checkpoint's config line (optimiser, hyper-parameters, seed, the data's sizes) must match the
 * resumed run's; --epochs may differ (a finished run can be continued for longer). The model is
 * known by its name, its parameter table and its program (gnn_model_api.program, a fingerprint
 * of what it computes), so a library with an edited body is refused (docs/training.md). The
 * checkpoint records the OpenBLAS thread count too (the products' last bits depend on it): a
 * resume at another count goes on with a warning; one already past --epochs is refused.
 *
 * Exit status, as gnn-run's and gnnc run's: 2 when the command line is refused as given, before
 * any work (options, values, outputs that cannot or must not be written -- the first checked by
 * gnn_output_unwritable, which gnn-run and gnnc run call too --, a checkpoint given to
 * --load-params, a parameter file given to --resume, a checkpoint past --epochs); 1 when the run
 * fails (library, dataset, checkpoint contents, divergence, a write). Outputs that are devices or
 * FIFOs are written in place.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver_rt.h"

/* The hyper-parameters of the original papers, by model name. */
typedef struct {
  const char *name;
  double lr, weight_decay;
  int epochs, patience, self_loops;
  const char *cite;
} Defaults;
static const Defaults defaults[] = {
    {"GCN", 0.01, 5e-4, 200, 10, 1, "Kipf & Welling 2017: Adam lr 0.01, L2 5e-4, 200 epochs, early stop 10"},
    {"GAT", 0.005, 5e-4, 100000, 100, 1, "Velickovic et al. 2018: Adam lr 0.005, L2 5e-4, patience 100"},
    {"GraphSAGE", 0.01, 5e-4, 200, 10, 0, "Hamilton et al. 2017 (transductive as GCN): Adam lr 0.01, L2 5e-4"},
    {"GIN", 0.01, 5e-4, 200, 10, 0, "Xu et al. 2019: Adam lr 0.01 (L2 5e-4 for the citation graphs)"},
    {"MoNet", 0.01, 5e-4, 200, 10, 1, "Monti et al. 2017 as GCN's setting: Adam lr 0.01, L2 5e-4"},
    /* APPNP: the paper puts L2 5e-3 on the first layer only; on every parameter, as here, 5e-3
     * underfits Cora (57% test), 5e-4 (PyG's citation benchmark) gives the paper's accuracy. */
    {"APPNP", 0.01, 5e-4, 10000, 100, 1, "Klicpera et al. 2019: Adam lr 0.01, patience 100; L2 5e-4 on every parameter"},
    {NULL, 0.01, 5e-4, 200, 10, 0, "generic: Adam lr 0.01, L2 5e-4, 200 epochs, patience 10"},
};

/* The row of a model named exactly as a paper's model (case-sensitive), or as one with a
 * variant after '_' (GAT_PubMed: bench/gat_pubmed.gnn); any other name gets the generic row. A
 * bare prefix is not enough: GATHER or GCNfoo is another model, and GAT's 100,000 epochs and
 * patience 100 would be a surprise there. */
static const Defaults *defaults_for(const char *model) {
  for (const Defaults *d = defaults; d->name; d++) {
    size_t n = strlen(d->name);
    if (strncmp(model, d->name, n) == 0 && (model[n] == '\0' || (model[n] == '_' && model[n + 1] != '\0'))) return d;
  }
  return &defaults[sizeof defaults / sizeof defaults[0] - 1];
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A number in [lo, hi]; false with *why NULL when it is not one, with *why set when it is one
 * that cannot be taken as written. */
static bool parse_num(const char *s, double lo, double hi, double *out, const char **why) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  *why = NULL;
  if (!*s || *end) return false;
  /* 1e-400 is not 0 to the user who typed it: say so rather than "not in [0, 10]" */
  if (errno == ERANGE && fabs(v) <= DBL_MIN) return *why = "underflows: it is too small for a double (write 0 if 0 is meant)", false;
  if (errno || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    gnn_status st_ = (call);                                                                          \
    if (st_ != GNN_OK) {                                                                              \
      fprintf(stderr, "gnn-train: %s: %s\n", rt.status_name(st_), rt.last_error(ctx));                 \
      goto out;                                                                                       \
    }                                                                                                 \
  } while (0)

/* A file gnn-train will write (path NULL: nothing to check) can be written there; false after
 * saying why. The files are written after training (--save-params) or during it (--checkpoint):
 * gnn_output_unwritable (gnnrt_path.h) finds before it what would fail at the write, in the
 * words gnn-run and gnnc run use too. */
static bool output_ok(const char *opt, const char *path) {
  char why[3 * PATH_MAX];
  if (!path || !gnn_output_unwritable(opt, path, why, sizeof why)) return true;
  fprintf(stderr, "gnn-train: %s\n", why);
  return false;
}

/* dir/name exists. */
static int has_file(const char *dir, const char *name) {
  char path[4096];
  struct stat sb;
  return snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path && stat(path, &sb) == 0;
}

/* The first bytes of the regular file at path are magic. A FIFO or device is not peeked at (that
 * would take data its reader is owed). */
static bool starts_with(const char *path, const char *magic) {
  struct stat sb;
  char buf[16] = {0};
  size_t n = strlen(magic);
  FILE *f = n <= sizeof buf && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
  bool yes = f && fread(buf, 1, n, f) == n && memcmp(buf, magic, n) == 0;
  if (f) fclose(f);
  return yes;
}

/* The regular file at path starts as a tensor text file does (what --save-params writes): the
 * checksum line "#gnn-tensors", or, after blanks, a "tensor" header (a file without the line:
 * gnnc run --save-params of old, a hand-written one). A FIFO or device is not peeked at. */
static bool tensor_text_file(const char *path) {
  struct stat sb;
  char buf[64] = {0};
  FILE *f = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  const char *p = buf;
  while (p < buf + n && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return strncmp(buf, "#gnn-tensors", 12) == 0 || (strncmp(p, "tensor", 6) == 0 && (p[6] == ' ' || p[6] == '\t'));
}

/* Where row `row` of the dataset's labels is, for a message: "DIR/labels.txt:LINE" (the line
 * when the runtime can say: gnn_text_line), else the file alone. The labels file is gnnc's
 * labels.txt, graph_labels.txt for graph classification, OGB's raw/node-label.csv.gz (.csv, or
 * the binary node-label.npz, which has no lines). */
static void label_where(const Rt *rt, gnn_ctx *ctx, const char *data, int ogb, int graph_level, int64_t row, char *out,
                        size_t len) {
  const char *file = graph_level ? "graph_labels.txt"
                     : !ogb      ? "labels.txt"
                     : has_file(data, "raw/node-label.csv.gz") ? "raw/node-label.csv.gz"
                     : has_file(data, "raw/node-label.csv")    ? "raw/node-label.csv"
                                                               : "raw/node-label.npz";
  int64_t line = 0;
  int n = snprintf(out, len, "%s/%s", data, file);
  if (n > 0 && (size_t)n < len && rt->text_line && strstr(file, ".npz") == NULL && rt->text_line(ctx, out, row, &line) == GNN_OK)
    snprintf(out + n, len - (size_t)n, ":%lld", (long long)line);
}

/* Writes the loop's state to path: ck's scalars as the caller set them, the parameters and
 * Adam's moments (ck->adam_m NULL: SGD, none) from the device into ck's host arrays. */
static gnn_status save_checkpoint(const Rt *rt, gnn_ctx *ctx, const gnn_model_api *api, void *model, float **mom, float **vel,
                                  gnn_train_state *ck, const char *path) {
  for (int i = 0; i < ck->nparams; i++) {
    size_t b = sizeof(float) * (size_t)api->params[i].width;
    gnn_status st = rt->download(ctx, ck->param[i], api->param(model, i), b);
    if (st == GNN_OK && ck->adam_m) st = rt->download(ctx, ck->adam_m[i], mom[i], b);
    if (st == GNN_OK && ck->adam_m) st = rt->download(ctx, ck->adam_v[i], vel[i], b);
    if (st != GNN_OK) return st;
  }
  ck->adam_step = ck->adam_m ? ck->epoch : 0; /* Adam's step is the epoch: one update per epoch */
  return rt->ck_save(ctx, path, ck);
}

static void usage(FILE *f) {
  fputs("usage: gnn-train LIBMODEL.so --data DIR [options]\n"
        "  --data DIR            a dataset folder: graph.edges, features.svm, labels.txt, train/val/test.idx;\n"
        "                        or one laid out as an OGB download (raw/edge.csv.gz, ..., split/NAME/)\n"
        "  --epochs N            at most N epochs (default: the model's paper)\n"
        "  --lr X --weight-decay X --patience N   (defaults: the model's paper; printed at start)\n"
        "  --optimizer adam|sgd  (default adam)\n"
        "  --seed N              parameters and dropout masks (default 1)\n"
        "  --self-loops / --no-self-loops   add a self-loop to every vertex (default: the paper's choice)\n"
        "  --symmetrise          add the reverse of every edge (OGB's add_inverse_edge; ogbn-arxiv is directed)\n"
        "  --raw-features        do not scale each feature row to sum 1 (the papers' preprocessing; default on)\n"
        "  --load-params F       start from saved parameters;  --save-params F  write the best ones\n"
        "  --eval-only           no training: report the accuracies of the (loaded) parameters\n"
        "  --quiet               no line per epoch\n"
        "  --device N            CUDA device (default 0)\n"
        "  --checkpoint F        write the whole training state to F every --checkpoint-every N epochs\n"
        "                        (default 1) and at the end, atomically (a kill leaves the previous one)\n"
        "  --resume F            go on from checkpoint F: the same results, bit for bit, as an uninterrupted run\n",
        f);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines before a diagnostic on stderr, in order */
  const char *libpath = NULL, *data = NULL, *save = NULL, *load = NULL, *optimizer = "adam";
  const char *ckpt = NULL, *resume = NULL;
  double epochs = -1, lr = -1, wd = -1, patience = -1, seed = 1, device = 0, ckpt_every = 1;
  int self_loops = -1, symmetrise = 0;
  bool raw_features = false;
  bool quiet = false, eval_only = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(n) (strcmp(a, n) == 0 && v && (i++, true))
#define NUM(n, var, lo, hi)                                                                           \
  else if (OPT(n)) {                                                                                  \
    const char *why_;                                                                                 \
    if (!parse_num(v, lo, hi, &var, &why_))                                                           \
      return (why_ ? fprintf(stderr, "gnn-train: %s '%s' %s\n", n, v, why_)                            \
                   : fprintf(stderr, "gnn-train: %s wants a number in [%g, %g], got '%s'\n", n, (double)lo, (double)hi, v)), 2; \
  }
/* a count or a seed: a fraction would be printed rounded and used truncated */
#define INT(n, var, lo, hi)                                                                           \
  else if (OPT(n)) {                                                                                  \
    const char *why_;                                                                                 \
    if (!parse_num(v, lo, hi, &var, &why_) || var != floor(var))                                     \
      return fprintf(stderr, "gnn-train: %s wants a whole number in [%.0f, %.0f], got '%s'\n", n, (double)lo, (double)hi, v), 2; \
  }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return usage(stdout), 0;
    else if (OPT("--data")) {
      if (!driver_file_once("gnn-train", &data, "--data", v)) return 2;
    } else if (OPT("--save-params")) {
      if (!driver_file_once("gnn-train", &save, "--save-params", v)) return 2;
    } else if (OPT("--load-params")) {
      if (!driver_file_once("gnn-train", &load, "--load-params", v)) return 2;
    } else if (OPT("--optimizer")) optimizer = v;
    else if (OPT("--checkpoint")) {
      if (!driver_file_once("gnn-train", &ckpt, "--checkpoint", v)) return 2;
    } else if (OPT("--resume")) {
      if (!driver_file_once("gnn-train", &resume, "--resume", v)) return 2;
    }
    INT("--epochs", epochs, 0, 1e9)
    NUM("--lr", lr, 0, 10)
    NUM("--weight-decay", wd, 0, 1)
    INT("--patience", patience, 1, 1e9)
    INT("--seed", seed, 0, 9.0e15)
    INT("--device", device, 0, 1024)
    INT("--checkpoint-every", ckpt_every, 1, 1e9)
    else if (strcmp(a, "--self-loops") == 0) self_loops = 1;
    else if (strcmp(a, "--raw-features") == 0) raw_features = true;
    else if (strcmp(a, "--no-self-loops") == 0) self_loops = 0;
    else if (strcmp(a, "--symmetrise") == 0) symmetrise = 1;
    else if (strcmp(a, "--quiet") == 0) quiet = true;
    else if (strcmp(a, "--eval-only") == 0) eval_only = true;
    else if (a[0] == '-') return fprintf(stderr, "gnn-train: unknown option '%s' (or it lacks its value; see --help)\n", a), 2;
    else if (!libpath) libpath = a;
    else return fprintf(stderr, "gnn-train: more than one model library ('%s' and '%s')\n", libpath, a), 2;
  }
  if (!libpath || !data) return usage(stderr), 2;
  const bool epochs_given = epochs >= 0;
  if (strcmp(optimizer, "adam") != 0 && strcmp(optimizer, "sgd") != 0)
    return fprintf(stderr, "gnn-train: --optimizer wants adam or sgd, got '%s'\n", optimizer), 2;
  if (resume && (load || eval_only))
    return fprintf(stderr, "gnn-train: --resume continues a training run: it cannot go with %s\n",
                   load ? "--load-params" : "--eval-only"), 2;
  if (ckpt && eval_only) return fprintf(stderr, "gnn-train: --checkpoint saves training: it cannot go with --eval-only\n"), 2;
  /* the files written during or after training: now, not after the run. Exit 2 from here to the
   * dataset guard, as gnn-run's and gnnc run's refusals of their outputs: the command line is
   * refused before any work (docs/training.md#exit-status). */
  if (!output_ok("--save-params", save) || !output_ok("--checkpoint", ckpt)) return 2;
  /* Two roles for one file: the later write destroys the earlier file, or what the run reads.
   * (--checkpoint F --resume F is the usual pair, --save-params F --load-params F a refinement.) */
  const char *roles[][2] = {{"--save-params", save}, {"--checkpoint", ckpt}, {"--resume", resume}, {"--load-params", load},
                            {"the model library", libpath}, {"--data", data}};
  for (int a = 0; a < 2; a++)
    for (int b = a + 1; b < 6; b++)
      if (roles[a][1] && roles[b][1] && !(a == 1 && b == 2) && !(a == 0 && b == 3) && gnn_same_file(roles[a][1], roles[b][1]))
        return fprintf(stderr, "gnn-train: %s %s and %s %s are the same file: %s would overwrite it; give another path\n",
                       roles[a][0], roles[a][1], roles[b][0], roles[b][1], roles[a][0]), 2;
  for (int a = 0; a < 2; a++) /* the dataset is input: its files are never written */
    if (roles[a][1] && gnn_dataset_file(roles[a][1], data))
      return fprintf(stderr, "gnn-train: %s %s is a file of the dataset folder --data %s: writing it would destroy the dataset; "
                     "give another path\n", roles[a][0], roles[a][1], data), 2;
  /* A checkpoint is not a parameter file: the tensor reader would stop at its first NUL byte */
  if (load && starts_with(load, "GNNRTCKP"))
    return fprintf(stderr, "gnn-train: --load-params %s: this is a training checkpoint (written by --checkpoint), not a parameter "
                   "file (--save-params): use --resume %s to go on from it%s\n", load, load,
                   eval_only ? " (not with --eval-only: --epochs N, N the checkpoint's epoch, reports its accuracies without "
                               "training)" : ""), 2;
  /* Nor is a parameter file a checkpoint: the checkpoint reader said only that its magic was not
   * "GNNRTCKP" (exit 1, as a damaged checkpoint) */
  if (resume && tensor_text_file(resume))
    return fprintf(stderr, "gnn-train: --resume %s: this is a parameter file (written by --save-params), not a training "
                   "checkpoint (--checkpoint): use --load-params %s to train from its parameters (a new run: the epochs, "
                   "Adam's moments and early stopping start afresh)\n", resume, resume), 2;
  if (!gnn_omp_threads_ok("gnn-train")) return 2;
  /* A full disk, or a file-size limit (ulimit -f), must be a write error with a message, not a
   * SIGXFSZ that kills the process in the middle of a checkpoint. */
  signal(SIGXFSZ, SIG_IGN);

  int rc = 1;
  Rt rt = {0};
  gnn_ctx *ctx = NULL;
  gnn_dataset *ds = NULL;
  void *model = NULL;
  float *x = NULL, *ew = NULL, *dlogits = NULL, **mom = NULL, **vel = NULL, **best = NULL, *scan = NULL;
  float **h_param = NULL, **h_mom = NULL, **h_vel = NULL; /* host copies for the checkpoints */
  const char **ck_names = NULL;
  int *ck_ranks = NULL;
  int64_t(*ck_dims)[4] = NULL;
  int32_t *labels = NULL;
  uint8_t *masks[3] = {NULL, NULL, NULL};
  const gnn_model_api *api = NULL;
  void *lib = NULL;
  if (!driver_open("gnn-train", libpath, &lib, &api, &rt)) goto out;

  const Defaults *d = defaults_for(api->name);
  if (lr < 0) lr = d->lr;
  if (wd < 0) wd = d->weight_decay;
  if (epochs < 0) epochs = d->epochs;
  if (patience < 0) patience = d->patience;
  if (self_loops < 0) self_loops = d->self_loops;
  if (api->num_params == 0 && !eval_only) {
    fprintf(stderr, "gnn-train: %s (model %s) has no parameters: there is nothing to train (gnn-run runs it; --eval-only evaluates it)\n",
            libpath, api->name);
    goto out;
  }
  if (!api->has_backward && !eval_only) {
    fprintf(stderr, "gnn-train: %s was compiled without autodiff: it has no backward (rebuild without -fno-autodiff)\n", libpath);
    goto out;
  }
  /* One vertex input (the features) and at most one edge input (the graph's edge values). */
  int xi = -1, wi = -1, others = 0;
  for (int i = 0; i < api->num_inputs; i++) {
    int *slot = api->inputs[i].domain == GNN_DOMAIN_VERTEX ? &xi : api->inputs[i].domain == GNN_DOMAIN_EDGE ? &wi : NULL;
    if (slot && *slot < 0) *slot = i;
    else others++;
  }
  const int graph_out = api->output_info.domain == GNN_DOMAIN_GRAPH; /* graph classification */
  if (xi < 0 || others || (api->output_info.domain != GNN_DOMAIN_VERTEX && !graph_out) || api->output_info.rank != 1) {
    fprintf(stderr, "gnn-train: training needs a model with one vertex input (the features), at most one edge input (the "
                    "values of graph.edges) and a vertex[C] output (node classification) or a graph[C] one (graph "
                    "classification)\n");
    goto out;
  }
  if (rt.ctx_create(&ctx, (int)device) != GNN_OK) {
    fprintf(stderr, "gnn-train: %s\n", rt.last_error(ctx));
    goto out;
  }
  /* A checkpoint past --epochs would train nothing and report the old accuracies, exit 0: the
   * user asked for fewer epochs than it has. Found before the dataset is read (the file's own
   * checks too: a damaged checkpoint is refused here, exit 1). At --epochs exactly, the run has
   * reached its end: it reports again, as one that stopped early. */
  if (resume) {
    int64_t at = 0;
    CHECK(rt.ck_check(ctx, resume, NULL, 0, &at));
    if (at > (int64_t)epochs) {
      char given[96] = "";
      if (!epochs_given) snprintf(given, sizeof given, " (model %s's default)", api->name);
      fprintf(stderr, "gnn-train: --resume %s is at epoch %lld, past --epochs %.0f%s: it would train nothing; give --epochs %lld "
                      "or more (at %lld it reports its accuracies again; more trains on, unless the run had stopped early)\n", resume, (long long)at, epochs, given,
              (long long)at, (long long)at);
      rc = 2;
      goto out;
    }
  }
  gnn_graph_opts opts = {0};
  opts.add_self_loops = self_loops;
  opts.symmetrise = symmetrise;
  CHECK(rt.dataset_load(ctx, data, &opts, &ds));
  driver_warning("gnn-train", &rt, ctx);
  if (graph_out != ds->graph_level) {
    if (graph_out)
      fprintf(stderr, "gnn-train: %s outputs graph[%lld] (graph classification), but %s has no graph_labels.txt (a label per "
                      "graph of graph_indicator.txt)\n", api->name, (long long)api->output_info.width, data);
    else
      fprintf(stderr, "gnn-train: %s has graph_labels.txt (graph classification), but %s outputs vertex[%lld]: a graph "
                      "classifier returns a graph value (sum_vertices, ...)\n", data, api->name, (long long)api->output_info.width);
    goto out;
  }
  /* The files' names in messages: those of gnnc's folder, or of OGB's layout (the runtime reads
   * a folder as OGB's when it has raw/edge.csv.gz or raw/edge.csv: runtime/load.c). */
  const int ogb = has_file(data, "raw/edge.csv.gz") || has_file(data, "raw/edge.csv");
  const char *split_names[3] = {"train.idx", "val.idx", "test.idx"};
  if (ogb) split_names[0] = "split/NAME/train.csv.gz", split_names[1] = "split/NAME/valid.csv.gz", split_names[2] = "split/NAME/test.csv.gz";
  if (!ds->features || !ds->labels || !ds->train_mask || !ds->val_mask || !ds->test_mask) {
    fprintf(stderr, "gnn-train: %s lacks %s: %s classification needs features, labels and the train/val/test split\n", data,
            !ds->features ? (ogb ? "raw/node-feat.csv.gz" : "features.svm")
            : !ds->labels ? (graph_out ? "graph_labels.txt" : ogb ? "raw/node-label.csv.gz" : "labels.txt")
            : ogb         ? "a split (split/NAME/ with train.csv.gz, valid.csv.gz, test.csv.gz)"
                          : "a split file (train.idx, val.idx, test.idx)",
            graph_out ? "graph" : "node");
    goto out;
  }
  /* A feature table without a column (features.svm rows with a label and no index:value) would be
   * zero-padded to the model's width: every input zero, every vertex alike, and a model that
   * learns only its biases, silently. An error, not a warning: no model reads a 0-wide input, and
   * training on the structure alone wants a nonzero constant, which the message offers. */
  if (ds->nfeat == 0) {
    fprintf(stderr, "gnn-train: %s/%s has no feature columns (no index:value on any of its %lld rows): every vertex's input "
                    "would be all zeros, and the model could learn nothing from it; give the features, or a constant column "
                    "(\"1:1\" on every row) to train on the graph's structure alone\n", data,
            ogb ? "raw/node-feat.csv.gz" : has_file(data, "raw/data.npz") ? "raw/data.npz (node_feat)" : "features.svm",
            (long long)ds->nv);
    goto out;
  }
  /* an empty split: the loss (train), early stopping and the best epoch (val) or the accuracy
   * reported (test) would fail only after the epochs */
  const int64_t split_rows[3] = {ds->ntrain, ds->nval, ds->ntest};
  const char *split_use[3] = {"the loss is taken over it", "early stopping and the best epoch are chosen on it",
                              "the accuracy is reported on it"};
  for (int s = 0; s < 3; s++) /* (every one's accuracy is reported, --eval-only's too) */
    if (split_rows[s] == 0) {
      fprintf(stderr, "gnn-train: %s: %s is empty: %s\n", data, split_names[s], eval_only ? split_use[2] : split_use[s]);
      goto out;
    }
  /* labels, masks and logits have a row per vertex (node classification) or per graph */
  const int64_t nv = ds->nv, rows = ds->nrows, C = api->output_info.width, F = api->inputs[xi].width;
  const char *row_name = graph_out ? "graph" : "vertex";
  if (wi >= 0 && api->inputs[wi].width != ds->graph->edge_ncols) {
    const gnn_tensor_info *t = &api->inputs[wi];
    if (ds->graph->edge_ncols == 0)
      fprintf(stderr, "gnn-train: model input '%s' is an edge input, but the edges of %s/graph.edges carry no values "
                      "(columns after 'src dst': a weight, or features)\n", t->name, data);
    else
      fprintf(stderr, "gnn-train: model input '%s' has %lld value%s per edge, the edges of %s/graph.edges carry %lld\n",
              t->name, (long long)t->width, t->width == 1 ? "" : "s", data, (long long)ds->graph->edge_ncols);
    goto out;
  }
  if (ds->nfeat > F) {
    fprintf(stderr, "gnn-train: %s has %lld feature columns, the model's input has %lld\n", data, (long long)ds->nfeat, (long long)F);
    goto out;
  }
  /* Each label against the model's classes, and each row of a split against an unknown label: a
   * message at the label's line, naming the row (vertex or graph) and its split. */
  char where[4200];
  if (ds->nclasses > C) { /* the first label the model cannot output, in a split or not */
    int64_t v = 0;
    while (v < rows - 1 && ds->labels[v] < C) v++;
    const char *split = ds->train_mask[v] ? split_names[0] : ds->val_mask[v] ? split_names[1] : ds->test_mask[v] ? split_names[2] : NULL;
    label_where(&rt, ctx, data, ogb, graph_out, v, where, sizeof where);
    fprintf(stderr, "gnn-train: %s: error: %s %lld has label %d, but the model's output has %lld classes (0 to %lld; -1 marks an "
                    "unknown label): %s has %d classes, the model %lld; correct the label (or mark it -1), or give the model %d "
                    "outputs (%s %lld is in %s)\n", where, row_name, (long long)v, ds->labels[v], (long long)C, (long long)C - 1,
            data, ds->nclasses, (long long)C, ds->nclasses, row_name, (long long)v, split ? split : "no split");
    goto out;
  }
  for (int64_t v = 0; v < rows; v++) {
    int s = ds->train_mask[v] ? 0 : ds->val_mask[v] ? 1 : ds->test_mask[v] ? 2 : -1;
    if (s >= 0 && ds->labels[v] < 0) { /* what the split's row is for, and so why it needs a label */
      static const char *const why[3] = {
          "it cannot be trained on",
          "it cannot be validated on (early stopping and the best epoch are chosen on the validation split)",
          "the test accuracy cannot count it",
      };
      static const char *const acc[3] = {"train", "validation", "test"};
      char what[160];
      if (eval_only) snprintf(what, sizeof what, "the %s accuracy cannot count it", acc[s]);
      else snprintf(what, sizeof what, "%s", why[s]);
      label_where(&rt, ctx, data, ogb, graph_out, v, where, sizeof where);
      fprintf(stderr, "gnn-train: %s: error: %s %lld is in %s but its label is %d (unknown): %s; give it a label or remove it "
                      "from %s\n", where, row_name, (long long)v, split_names[s], ds->labels[v], what, split_names[s]);
      goto out;
    }
  }
  for (int64_t i = 0; i < nv * ds->nfeat; i++) /* (the loaders refuse one already: a dataset made otherwise) */
    if (!isfinite(ds->features[i])) {
      fprintf(stderr, "gnn-train: %s: vertex %lld has a non-finite feature: the model reads every vertex's features\n", data,
              (long long)(i / ds->nfeat));
      goto out;
    }
  CHECK(api->create(ctx, ds->graph, (uint64_t)seed, &model));
  if (load) {
    gnn_tensor_file *tf = NULL;
    CHECK(rt.tf_read(ctx, load, &tf));
    const char *names[256];
    int np = api->num_params < 256 ? api->num_params : 256;
    for (int i = 0; i < np; i++) names[i] = api->params[i].name;
    gnn_status st = rt.tf_expect(ctx, tf, np, names);
    for (int i = 0; i < api->num_params && st == GNN_OK; i++) {
      const gnn_tensor_info *t = &api->params[i];
      float *h = malloc(sizeof(float) * (size_t)(t->width ? t->width : 1));
      st = rt.tf_get(ctx, tf, t->name, t->rank, t->dims, h);
      if (st == GNN_OK) st = rt.upload(ctx, api->param(model, i), h, sizeof(float) * (size_t)t->width);
      free(h);
    }
    rt.tf_free(tf);
    CHECK(st);
  }
  /* features (zero-padded to the model's width; each row scaled to sum 1 unless --raw-features,
   * the preprocessing of Kipf & Welling and Velickovic et al.), labels and masks on the device */
  {
    float *h = calloc((size_t)(nv * F), sizeof(float));
    for (int64_t v = 0; v < nv; v++) {
      float *row = h + v * F;
      memcpy(row, ds->features + v * ds->nfeat, sizeof(float) * (size_t)ds->nfeat);
      double sum = 0;
      for (int64_t k = 0; k < ds->nfeat; k++) sum += row[k];
      if (!raw_features && sum != 0)
        for (int64_t k = 0; k < ds->nfeat; k++) row[k] = (float)(row[k] / sum);
    }
    gnn_status st = rt.gmalloc(ctx, (void **)&x, sizeof(float) * (size_t)(nv * F));
    if (st == GNN_OK) st = rt.upload(ctx, x, h, sizeof(float) * (size_t)(nv * F));
    free(h);
    CHECK(st);
  }
  if (wi >= 0) { /* the edge values, in the graph's order (an added self-loop's are 1) */
    size_t b = sizeof(float) * (size_t)(ds->graph->ne * ds->graph->edge_ncols);
    CHECK(rt.gmalloc(ctx, (void **)&ew, b));
    CHECK(rt.upload(ctx, ew, ds->graph->h_edge_values, b));
  }
  CHECK(rt.gmalloc(ctx, (void **)&labels, sizeof(int32_t) * (size_t)rows));
  CHECK(rt.upload(ctx, labels, ds->labels, sizeof(int32_t) * (size_t)rows));
  uint8_t *hm[3] = {ds->train_mask, ds->val_mask, ds->test_mask};
  for (int s = 0; s < 3; s++) {
    CHECK(rt.gmalloc(ctx, (void **)&masks[s], (size_t)rows));
    CHECK(rt.upload(ctx, masks[s], hm[s], (size_t)rows));
  }
  CHECK(rt.gmalloc(ctx, (void **)&dlogits, sizeof(float) * (size_t)(rows * C)));
  int np = api->num_params;
  mom = calloc((size_t)np + 1, sizeof(float *));
  vel = calloc((size_t)np + 1, sizeof(float *));
  best = calloc((size_t)np + 1, sizeof(float *));
  h_param = calloc((size_t)np + 1, sizeof(float *));
  h_mom = calloc((size_t)np + 1, sizeof(float *));
  h_vel = calloc((size_t)np + 1, sizeof(float *));
  ck_names = calloc((size_t)np + 1, sizeof(char *));
  ck_ranks = calloc((size_t)np + 1, sizeof(int));
  ck_dims = calloc((size_t)np + 1, sizeof *ck_dims);
  int64_t widest = 1; /* the host copy the divergence check scans a parameter in */
  for (int i = 0; i < np; i++)
    if (api->params[i].width > widest) widest = api->params[i].width;
  if (!(scan = malloc(sizeof(float) * (size_t)widest))) {
    fprintf(stderr, "gnn-train: out of host memory\n");
    goto out;
  }
  for (int i = 0; i < np; i++) {
    size_t b = sizeof(float) * (size_t)api->params[i].width;
    CHECK(rt.gmalloc(ctx, (void **)&mom[i], b));
    CHECK(rt.gmalloc(ctx, (void **)&vel[i], b));
    CHECK(rt.memset0(ctx, mom[i], b));
    CHECK(rt.memset0(ctx, vel[i], b));
    best[i] = malloc(b ? b : 1);
    CHECK(rt.download(ctx, best[i], api->param(model, i), b));
    if (ckpt || resume) {
      h_param[i] = malloc(b ? b : 1);
      h_mom[i] = malloc(b ? b : 1);
      h_vel[i] = malloc(b ? b : 1);
      ck_names[i] = api->params[i].name;
      ck_ranks[i] = api->params[i].rank;
      memcpy(ck_dims[i], api->params[i].dims, sizeof ck_dims[i]);
    }
  }
  /* The checkpoint's state: the arrays above, the scalars of the loop below. */
  char config[512];
  snprintf(config, sizeof config, "%s lr %.9g weight-decay %.9g seed %.0f patience %.0f self-loops %d raw-features %d; "
           "data: %lld vertices, %lld edges, %lld features, %d classes, split %lld/%lld/%lld", optimizer, lr, wd, seed,
           patience, self_loops, (int)raw_features, (long long)nv, (long long)ds->graph->ne, (long long)ds->nfeat,
           ds->nclasses, (long long)ds->ntrain, (long long)ds->nval, (long long)ds->ntest);
  gnn_train_state ck = {0};
  ck.model = api->name;
  ck.program = api->program ? api->program : ""; /* NULL: an older gnnc's library (driver_open) */
  ck.config = config;
  ck.nparams = np;
  ck.names = ck_names;
  ck.ranks = ck_ranks;
  ck.dims = (const int64_t(*)[4])ck_dims;
  ck.param = h_param;
  ck.adam_m = optimizer[0] == 'a' ? h_mom : NULL;
  ck.adam_v = optimizer[0] == 'a' ? h_vel : NULL;
  ck.best = best;
  ck.dropout_seed = (uint64_t)seed * 1000003u;
  /* The host threads a run's last bits depend on: OpenBLAS's, which splits a product by their
   * number (docs/runtime.md#threading-model; OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS). The
   * model library's OpenBLAS is the process's; a CUDA library computes on the device (marked so,
   * and a host resume of its checkpoint warns). */
  int threads = api->target == GNN_TARGET_CUDA ? GNN_TRAIN_THREADS_DEVICE : 0;
  if (api->target != GNN_TARGET_CUDA) {
    int (*blas_threads)(void) = NULL;
    *(void **)&blas_threads = dlsym(lib, "openblas_get_num_threads");
    if (blas_threads) threads = blas_threads();
  }
  ck.threads = threads;
  char graphs_note[64];
  snprintf(graphs_note, sizeof graphs_note, " graphs of %lld", (long long)ds->graph->ng);
  const float *inputs[2] = {NULL, NULL};
  inputs[xi] = x;
  if (wi >= 0) inputs[wi] = ew;
  printf("gnn-train: %s (%s, %s) on %s: %lld vertices, %lld edges%s, %lld features, %d classes, split %lld/%lld/%lld%s\n",
         api->name, api->source, api->target == GNN_TARGET_CUDA ? "CUDA" : "host", data, (long long)nv,
         (long long)ds->graph->ne, self_loops ? " (with self-loops)" : "", (long long)ds->nfeat, ds->nclasses,
         (long long)ds->ntrain, (long long)ds->nval, (long long)ds->ntest,
         graph_out ? graphs_note : "");
  if (!eval_only) /* (--eval-only trains nothing: no optimiser, no epochs) */
    printf("gnn-train: %s, lr %g, weight decay %g, at most %.0f epochs, patience %.0f, seed %.0f (defaults: %s)\n", optimizer,
           lr, wd, epochs, patience, seed, d->cite);

  double best_val_acc = -1, best_val_loss = INFINITY, total_ms = 0;
  int best_epoch = 0, waited = 0, epoch = 0, start = 1, stopped = 0;
  uint64_t dropout_counter = 1; /* the dropout stream's position: epoch e draws from seed * 1000003 + e */
  if (resume) { /* the whole state of the loop, as the checkpoint left it */
    CHECK(rt.ck_load(ctx, resume, &ck));
    /* The loop takes Adam's step from the epoch (one update per epoch, save_checkpoint records
     * it so): a file whose step says otherwise was not written by this loop, and resuming it
     * would restart or skip the bias correction. The epoch is an int here. */
    if (ck.epoch > INT_MAX - 1) {
      fprintf(stderr, "gnn-train: %s: the checkpoint is at epoch %lld, past the %d epochs gnn-train counts\n", resume,
              (long long)ck.epoch, INT_MAX - 1);
      goto out;
    }
    if (optimizer[0] == 'a' && ck.adam_step != ck.epoch) {
      fprintf(stderr, "gnn-train: %s: Adam's step is %lld at epoch %lld: gnn-train takes one Adam step per epoch, so this "
                      "checkpoint was not written by gnn-train (or was edited); it cannot be resumed here\n",
              resume, (long long)ck.adam_step, (long long)ck.epoch);
      goto out;
    }
    for (int i = 0; i < np; i++) {
      size_t b = sizeof(float) * (size_t)api->params[i].width;
      CHECK(rt.upload(ctx, api->param(model, i), h_param[i], b));
      if (optimizer[0] == 'a') {
        CHECK(rt.upload(ctx, mom[i], h_mom[i], b));
        CHECK(rt.upload(ctx, vel[i], h_vel[i], b));
      }
    }
    start = (int)ck.epoch + 1;
    dropout_counter = ck.dropout_counter;
    best_epoch = (int)ck.best_epoch;
    best_val_acc = ck.best_val_acc;
    best_val_loss = ck.best_val_loss;
    waited = (int)ck.waited;
    total_ms = ck.elapsed_ms;
    stopped = ck.finished;
    char end[96] = "";
    if (stopped) snprintf(end, sizeof end, " (training had ended)");
    else if (ck.epoch >= (int64_t)epochs) snprintf(end, sizeof end, " (it is at --epochs %.0f: nothing to train)", epochs);
    printf("gnn-train: resumed from %s after epoch %lld%s\n", resume, (long long)ck.epoch, end);
    /* Not bit for bit at another thread count (or on another target): go on, and say so (when
     * there is an epoch to train). */
    if (!end[0] && ck.threads > 0 && threads > 0 && ck.threads != threads)
      fprintf(stderr, "gnn-train: warning: %s was written with %d OpenBLAS thread%s, this run has %d: it goes on, but not bit for "
                      "bit as an uninterrupted run (OPENBLAS_NUM_THREADS=%d%s%.0d, as when it was written, makes it so)\n",
              resume, ck.threads, ck.threads == 1 ? "" : "s", threads, ck.threads,
              getenv("OPENBLAS_NUM_THREADS") ? "" : ", or OMP_NUM_THREADS=", /* OpenBLAS reads its own first */
              getenv("OPENBLAS_NUM_THREADS") ? 0 : ck.threads); /* (%.0d of 0 prints nothing) */
    else if (!end[0] && ck.threads == GNN_TRAIN_THREADS_DEVICE && api->target != GNN_TARGET_CUDA)
      fprintf(stderr, "gnn-train: warning: %s was written by a CUDA library, this run is on the host: it goes on, but not bit for "
                      "bit as an uninterrupted run\n", resume);
    else if (!end[0] && ck.threads > 0 && api->target == GNN_TARGET_CUDA)
      fprintf(stderr, "gnn-train: warning: %s was written by a host library (%d OpenBLAS thread%s), this run is CUDA: it goes on, "
                      "but not bit for bit as an uninterrupted run\n", resume, ck.threads, ck.threads == 1 ? "" : "s");
    ck.threads = threads; /* the checkpoints this run writes: its own count */
  }
  epoch = stopped ? start - 1 : start;
  int done = start - 1; /* the last epoch completed: the checkpoint's, then this run's */
  bool wrote_ckpt = false;
  for (; !eval_only && !stopped && epoch <= (int)epochs; epoch++) {
    double t0 = now();
    float loss = 0, val_loss = 0;
    double train_acc = 0, val_acc = 0;
    /* a training step: forward with dropout, loss and its gradient, backward, update */
    CHECK(api->forward(model, inputs, 1, ck.dropout_seed + dropout_counter++));
    gnn_status st = rt.xent(ctx, api->output(model), labels, masks[0], rows, C, &loss, dlogits);
    if (st == GNN_ERR_NUMERIC || !isfinite(loss)) {
      fprintf(stderr, "gnn-train: epoch %d: the training loss is not finite (%s): training diverged; stopping\n", epoch,
              st == GNN_OK ? "nan" : rt.last_error(ctx));
      goto out;
    }
    CHECK(st);
    CHECK(rt.accuracy(ctx, api->output(model), labels, masks[0], rows, C, &train_acc));
    CHECK(api->backward(model, dlogits));
    for (int i = 0; i < np; i++) {
      int64_t n = api->params[i].width;
      if (optimizer[0] == 'a')
        CHECK(rt.adam(ctx, api->param(model, i), api->grad(model, i), mom[i], vel[i], n, (float)lr, 0.9f, 0.999f, 1e-8f, (float)wd, epoch));
      else
        CHECK(rt.sgd(ctx, api->param(model, i), api->grad(model, i), n, (float)lr, (float)wd));
    }
    CHECK(rt.sync(ctx));
    double ms = (now() - t0) * 1e3;
    total_ms += ms;
    /* validation: an inference forward */
    CHECK(api->forward(model, inputs, 0, 0));
    st = rt.xent(ctx, api->output(model), labels, masks[1], rows, C, &val_loss, NULL);
    if (st == GNN_ERR_NUMERIC || !isfinite(val_loss)) {
      fprintf(stderr, "gnn-train: epoch %d: the validation loss after the update is not finite (%s): training diverged; stopping\n",
              epoch, st == GNN_OK ? "nan" : rt.last_error(ctx));
      goto out;
    }
    CHECK(st);
    /* A parameter that overflowed can leave both losses finite (relu maps NaN to 0: the hidden
     * layer goes to zero and the logits are the bias): training went on with NaN weights, saved
     * them in checkpoints, and only --save-params refused them at the end. */
    for (int i = 0; i < np; i++) {
      int64_t n = api->params[i].width, bad = -1;
      CHECK(rt.download(ctx, scan, api->param(model, i), sizeof(float) * (size_t)n));
      for (int64_t k = 0; k < n && bad < 0; k++)
        if (!isfinite(scan[k])) bad = k;
      if (bad >= 0) {
        fprintf(stderr, "gnn-train: epoch %d: parameter '%s' is not finite after the update (value %lld is %s): training "
                        "diverged; stopping\n", epoch, api->params[i].name, (long long)bad,
                isnan(scan[bad]) ? "nan" : scan[bad] > 0 ? "inf" : "-inf");
        goto out;
      }
    }
    CHECK(rt.accuracy(ctx, api->output(model), labels, masks[1], rows, C, &val_acc));
    if (!quiet)
      printf("epoch %4d  loss %.4f  train acc %.4f  val loss %.4f  val acc %.4f  %.2f ms\n", epoch, loss, train_acc, val_loss,
             val_acc, ms);
    /* GAT's rule: progress is a better validation accuracy or loss */
    if (val_acc >= best_val_acc || val_loss <= best_val_loss) {
      if (val_acc >= best_val_acc && val_loss <= best_val_loss) { /* the checkpoint: better on both */
        best_epoch = epoch;
        for (int i = 0; i < np; i++)
          CHECK(rt.download(ctx, best[i], api->param(model, i), sizeof(float) * (size_t)api->params[i].width));
      }
      if (val_acc > best_val_acc) best_val_acc = val_acc;
      if (val_loss < best_val_loss) best_val_loss = val_loss;
      waited = 0;
    } else if (++waited >= (int)patience) {
      if (!quiet) printf("early stop at epoch %d: no progress on the validation set for %d epochs\n", epoch, waited);
      stopped = 1;
    }
    if (ckpt && (epoch % (int)ckpt_every == 0 || stopped || epoch == (int)epochs)) {
      ck.epoch = epoch;
      ck.dropout_counter = dropout_counter;
      ck.best_epoch = best_epoch;
      ck.best_val_acc = best_val_acc;
      ck.best_val_loss = best_val_loss;
      ck.waited = waited;
      ck.finished = stopped;
      ck.elapsed_ms = total_ms;
      CHECK(save_checkpoint(&rt, ctx, api, model, mom, vel, &ck, ckpt));
      wrote_ckpt = true;
    }
    done = epoch;
    if (stopped) break;
  }
  /* A run that trained no epoch (--epochs 0, or a resumed run already at --epochs or finished)
   * still leaves the checkpoint it was asked for: the state it starts from, which a later
   * --resume goes on from as from any other. */
  if (ckpt && !wrote_ckpt) {
    ck.epoch = done;
    ck.dropout_counter = dropout_counter;
    ck.best_epoch = best_epoch;
    ck.best_val_acc = best_val_acc;
    ck.best_val_loss = best_val_loss;
    ck.waited = waited;
    ck.finished = stopped;
    ck.elapsed_ms = total_ms;
    CHECK(save_checkpoint(&rt, ctx, api, model, mom, vel, &ck, ckpt));
  }
  int trained = eval_only ? 0 : done;
  if (!eval_only) { /* back to the best epoch's parameters */
    if (best_epoch == 0) best_epoch = trained;
    else
      for (int i = 0; i < np; i++) CHECK(rt.upload(ctx, api->param(model, i), best[i], sizeof(float) * (size_t)api->params[i].width));
  }
  double acc[3];
  CHECK(api->forward(model, inputs, 0, 0));
  for (int s = 0; s < 3; s++) CHECK(rt.accuracy(ctx, api->output(model), labels, masks[s], rows, C, &acc[s]));
  if (!eval_only) {
    char this_run[64] = ""; /* a resumed run: the epochs in all, and those of this run */
    if (resume) snprintf(this_run, sizeof this_run, " in all, %d in this run", trained - (start - 1));
    printf("trained %d epochs%s (%.2f ms per epoch), best validation at epoch %d\n", trained, this_run,
           trained ? total_ms / trained : 0.0, best_epoch);
  }
  printf("accuracy: train %.4f  val %.4f  test %.4f\n", acc[0], acc[1], acc[2]);
  if (save) {
    const char **names = calloc((size_t)np + 1, sizeof(char *));
    int *ranks = calloc((size_t)np + 1, sizeof(int));
    int64_t(*dims)[4] = calloc((size_t)np + 1, sizeof *dims);
    float **data_p = calloc((size_t)np + 1, sizeof(float *));
    gnn_status st = GNN_OK;
    for (int i = 0; i < np && st == GNN_OK; i++) {
      const gnn_tensor_info *t = &api->params[i];
      names[i] = t->name;
      ranks[i] = t->rank;
      memcpy(dims[i], t->dims, sizeof dims[i]);
      data_p[i] = malloc(sizeof(float) * (size_t)(t->width ? t->width : 1));
      st = rt.download(ctx, data_p[i], api->param(model, i), sizeof(float) * (size_t)t->width);
    }
    if (st == GNN_OK) st = rt.tf_write(ctx, save, np, names, ranks, (const int64_t(*)[4])dims, (const float *const *)data_p);
    for (int i = 0; i < np; i++) free(data_p[i]);
    free(names), free(ranks), free(dims), free(data_p);
    CHECK(st);
    printf("parameters written to %s\n", save);
  }
  rc = 0;
out:
  free(scan);
  if (mom)
    for (int i = 0; api && i < api->num_params; i++) {
      if (mom[i]) rt.gfree(ctx, mom[i]);
      if (vel[i]) rt.gfree(ctx, vel[i]);
      free(best[i]);
    }
  if (h_param)
    for (int i = 0; api && i < api->num_params; i++) free(h_param[i]), free(h_mom[i]), free(h_vel[i]);
  free(mom), free(vel), free(best), free(h_param), free(h_mom), free(h_vel), free(ck_names), free(ck_ranks), free(ck_dims);
  if (x) rt.gfree(ctx, x);
  if (ew) rt.gfree(ctx, ew);
  if (labels) rt.gfree(ctx, labels);
  for (int s = 0; s < 3; s++)
    if (masks[s]) rt.gfree(ctx, masks[s]);
  if (dlogits) rt.gfree(ctx, dlogits);
  if (model) api->destroy(model);
  if (ds) rt.dataset_free(ctx, ds);
  if (ctx) rt.ctx_destroy(ctx);
  if (lib) dlclose(lib);
  return rc;
}
