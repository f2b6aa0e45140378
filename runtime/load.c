/* load.c -- the loading entry points: gnn_graph_load and gnn_dataset_load pick a loader by what
 * the path holds.
 *
 * The top of the graph code's layers (internal.h lists them): a folder is OGB's layout when it
 * has raw/edge.csv.gz or raw/data.npz (ogb.c), else gnnc's dataset folder (dataset.c); a file is
 * a .gcsr cache (cache.c), a Matrix Market file (.mtx) or an edge list (edgelist.c). The loaders
 * know nothing of each other or of this file, and all of them build through graph.c, so a new
 * layout is one loader and one line here.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

gnn_status gnn_graph_load(gnn_ctx *ctx, const char *path, const gnn_graph_opts *opts, gnn_graph **out) {
  if (out) *out = NULL;
  gnn_status st = rt_args(ctx, out && path, "gnn_graph_load", "out or path is NULL");
  if (st || (st = rt_check_graph_opts(ctx, opts))) return st;
  ctx->warn[0] = 0; /* gnn_last_warning: this load's warning, or none */
  if (has_suffix(path, ".gcsr")) return rt_load_cache(ctx, path, opts, out);
  if (rt_is_dir(path)) return rt_is_ogb_folder(path) ? rt_ogb_graph(ctx, path, opts, out) : rt_folder_graph(ctx, path, opts, out);
  int64_t nv = opts ? opts->num_vertices : 0;
  RtEdges es = {0};
  st = has_suffix(path, ".mtx") ? rt_load_mtx(ctx, path, nv, &es, &nv) : rt_load_edge_list(ctx, path, nv, &es, &nv);
  if (!st) st = rt_graph_build(ctx, &es, nv, opts, path, out);
  rt_edges_free(&es);
  return st;
}

gnn_status gnn_dataset_load(gnn_ctx *ctx, const char *dir, const gnn_graph_opts *opts, gnn_dataset **out) {
  if (out) *out = NULL;
  gnn_status st = rt_args(ctx, out && dir, "gnn_dataset_load", "out or dir is NULL");
  if (st || (st = rt_check_graph_opts(ctx, opts))) return st;
  ctx->warn[0] = 0;
  if (!rt_is_dir(dir))
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: %s", dir, rt_exists(dir) ? "not a folder" : "cannot open: no such folder");
  gnn_dataset *ds = (gnn_dataset *)rt_calloc(ctx, 1, sizeof *ds, "a dataset");
  if (!ds) return GNN_ERR_OOM;
  st = rt_is_ogb_folder(dir) ? rt_ogb_dataset(ctx, dir, opts, ds) : rt_folder_dataset(ctx, dir, opts, ds);
  if (st) {
    gnn_dataset_free(ctx, ds);
    return st;
  }
  *out = ds;
  return GNN_OK;
}
