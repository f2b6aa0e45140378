#!/usr/bin/env bash
# bench/fuse_ablation.sh [GNNC] -- issue 11: what the fuse pass (docs/passes/fuse.md) buys, host
# target: each model compiled twice for training (autodiff on), fused (default) and with
# -fno-fuse, and run with gnn-run on its graph: the inference forward and the training step
# (a training forward and the backward), medians; the bytes the kernels move (gnnc --stats: the
# kernel accounting at the graph's V and E, training forward + backward); both arenas; and the
# memory plans of GAT at Reddit's size (232,965 vertices, 114,615,892 edges), computed by the
# compiler without running. Interleaved: fused, unfused, fused, unfused ... ROUNDS times, each
# run --repeat R; the median of the runs' medians. Writes bench/results/fuse_ablation.txt.
#
#   GAT      bench/gat_pubmed.gnn        PubMed (19,717 vertices, 88,651 edges; 500 generated features)
#   GCN      bench/gcn_pubmed.gnn        PubMed
#   EdgeConv dsl-examples/edgeconv.gnn   32 kNN point clouds of 1,024 points, k = 20 (bench/gen_pointcloud.c)
#   MoNet    dsl-examples/monet.gnn      Cora
#
# Environment: REPEAT (default 5), WARMUP (1), ROUNDS (3), BENCH_THREADS (default 1; "1 2" for
# both), GNN_RUN, PUBMED, CORA, POINTCLOUD.
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
RUN=${GNN_RUN:-build/bin/gnn-run}
REPEAT=${REPEAT:-5}
WARMUP=${WARMUP:-1}
ROUNDS=${ROUNDS:-3}
THREADS=${BENCH_THREADS:-1}
CORA=${CORA:-data/cora}
PUBMED=${PUBMED:-data/pubmed}
PC=${POINTCLOUD:-build/bench/pointcloud-32x1024-k20}
GEN=build/bench/gen_pointcloud
out=bench/results/fuse_ablation.txt
mkdir -p bench/results build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$PC/graph.edges" ] || [ ! -f "$PC/features.svm" ]; then
  [ -x "$GEN" ] || cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -o "$GEN" bench/gen_pointcloud.c -lm
  "$GEN" "$PC" --clouds 32 --points 1024 --k 20 --seed 1 >&2
fi

rows="GAT|bench/gat_pubmed.gnn|$PUBMED
GCN|bench/gcn_pubmed.gnn|$PUBMED
EdgeConv|dsl-examples/edgeconv.gnn|$PC
MoNet|dsl-examples/monet.gnn|$CORA"

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# the kernel accounting's totals at V, E: "reads X, writes Y" in GB, and the arenas, from --stats
stats_bytes() { # GNNC MODEL V E FLAGS... -> "GB arena_train_GB arena_infer_GB launches"
  local s
  s=$("$1" "$2" --stats "V=$3,E=$4" "${@:5}" | sed -n '/^kernel stats/,$p')
  printf '%s\n' "$s" | "$PY_BIN" -c '
import re, sys
s = sys.stdin.read()
def gb(x):
    v, u = x.split()
    return float(v) * {"GB": 1, "MB": 1e-3, "kB": 1e-6, "B": 1e-9}[u]
t = re.search(r"total: (\d+) steps \((\d+) kernels and fills\), reads ([0-9.]+ \w+), writes ([0-9.]+ \w+)", s)
p = re.search(r"memory plan: training arena ([0-9.]+ \w+), inference arena ([0-9.]+ \w+)", s)
print("%.4f %.4f %.4f %s" % (gb(t.group(3)) + gb(t.group(4)), gb(p.group(1)), gb(p.group(2)), t.group(2)))'
}
PY_BIN=/usr/bin/python3

header=$(bench_header "fuse_ablation: training libraries with and without the fuse pass, host target (bench/fuse_ablation.sh)")
t_start=$(date +%s)
res=$tmp/rows.txt
: > "$res"
for n in $THREADS; do
  while IFS='|' read -r name src graph; do
    gname=$(basename "$graph")
    case $gname in pointcloud*) gname=pointcloud ;; esac
    for variant in fused unfused; do
      flags=()
      [ $variant = unfused ] && flags=(-fno-fuse)
      "$GNNC" "$src" --target=host "${flags[@]}" -o "$tmp/lib-$variant.so"
      : > "$tmp/run-$variant.fwd" ; : > "$tmp/run-$variant.step"
    done
    for r in $(seq "$ROUNDS"); do
      for variant in fused unfused; do
        echo "  $name on $gname, $variant, $n thread(s), round $r" >&2
        time_fwd_step "$n" "$RUN" "$tmp/lib-$variant.so" "$graph" "$REPEAT" "$WARMUP" "$tmp/run-$variant"
      done
    done
    gnn_run_parse "$tmp/run-fused.txt"
    line="$name $gname $n $R_V $R_E"
    for variant in fused unfused; do
      flags=()
      [ $variant = unfused ] && flags=(-fno-fuse)
      line="$line $(median < "$tmp/run-$variant.fwd") $(median < "$tmp/run-$variant.step") $(stats_bytes "$GNNC" "$src" "$R_V" "$R_E" "${flags[@]}")"
    done
    echo "$line" >> "$res"
  done <<< "$rows"
done
elapsed=$(($(date +%s) - t_start))

{
  echo "$header"
  echo "# per row: gnnc MODEL --target=host [-fno-fuse] -o lib.so (training library), then $ROUNDS rounds of"
  echo "#   gnn-run lib.so --graph GRAPH --repeat $REPEAT --warmup $WARMUP (inference forwards) and the same with --backward"
  echo "#   (training steps), fused and unfused interleaved"
  for n in $THREADS; do echo "# threads $n: $(thread_env "$n")"; done
  echo "# fwd: median ms per inference forward; step: median ms per training step (forward with training = 1 + backward,"
  echo "# no optimiser); GB: bytes the kernels of a training step move (gnnc --stats at the graph's V and E, docs/passes/fuse.md);"
  echo "# arena: the training / inference arena (MB); k: kernel launches per step. Ratios are unfused / fused (> 1: fusion wins)."
  echo
  printf '%-9s %-10s %3s | %8s %8s %6s | %8s %8s %6s | %7s %7s %6s | %9s %9s %6s | %4s %4s\n' model graph thr \
    fwd fwd-no ratio step step-no ratio GB GB-no ratio "arena-tr" "arena-no" ratio k k-no
  awk '{ printf "%-9s %-10s %3d | %8.2f %8.2f %5.2fx | %8.2f %8.2f %5.2fx | %7.3f %7.3f %5.2fx | %9.2f %9.2f %5.2fx | %4d %4d\n",
           $1, $2, $3, $6, $12, $12 / $6, $7, $13, $13 / $7, $8, $14, $14 / $8, $9 * 1e3, $15 * 1e3, $15 / $9, $11, $17 }' "$res"
  echo
  echo "inference arenas (MB), fused / unfused:"
  awk '{ printf "  %-9s %-10s %9.2f %9.2f\n", $1, $2, $10 * 1e3, $16 * 1e3 }' "$res"
  echo
  echo "memory plans at Reddit's size (V=232965, E=114615892), computed by gnnc --stats (not run):"
  for m in dsl-examples/gat.gnn bench/gat_reddit.gnn; do
    f=$(stats_bytes "$GNNC" $m 232965 114615892); u=$(stats_bytes "$GNNC" $m 232965 114615892 -fno-fuse)
    echo "$m $f $u" | awk '{ printf "  %-22s training arena %7.2f GB (unfused %7.2f GB, x%.1f); inference arena %6.2f GB; bytes per step %7.1f GB (unfused %7.1f GB)\n",
                               $1, $3, $7, $7 / $3, $4, $2, $6 }'
  done
  echo
  echo "# Run time of this script: $elapsed s."
} | tee "$out"
