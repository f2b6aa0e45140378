#!/usr/bin/env bash
# bench/recompute.sh [GNNC] -- issue 13: what the checkpoint pass (docs/passes/checkpoint.md)
# costs and saves, host target. Each model is compiled for training three ways: the cost model
# (default), -fno-recompute (stash everything the backward reads) and --recompute=all; each is
# run with gnn-run --backward on its graph (time per training step: a forward with training = 1
# and the backward, no optimiser), interleaved default, stash, all, default, ... ROUNDS times,
# each run --repeat R; the median of the runs' medians. Memory: the library's total plan (arena +
# params + grads + output) at the graph's size, printed by gnnc --print-memory-plan, which the
# runtime's peak equals (tests/suites/checkpoint.sh); and the plans at Reddit's size (232,965
# vertices, 114,615,892 edges), computed without running. Writes bench/results/recompute.txt.
#
#   GAT      bench/gat_pubmed.gnn        PubMed (19,717 vertices, 88,651 edges; 500 generated features)
#   MoNet    bench/monet_pubmed.gnn      PubMed
#   EdgeConv dsl-examples/edgeconv.gnn   64 kNN point clouds of 1,024 points, k = 40 (the paper's
#                                        batch; bench/gen_pointcloud.c)
#
# Environment: REPEAT (default 3), WARMUP (1), ROUNDS (3), BENCH_THREADS (default 1), GNN_RUN,
# PUBMED, POINTCLOUD.
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
RUN=${GNN_RUN:-build/bin/gnn-run}
REPEAT=${REPEAT:-3}
WARMUP=${WARMUP:-1}
ROUNDS=${ROUNDS:-3}
THREADS=${BENCH_THREADS:-1}
PUBMED=${PUBMED:-data/pubmed}
PC=${POINTCLOUD:-build/bench/pointcloud-64x1024-k40}
GEN=build/bench/gen_pointcloud
out=bench/results/recompute.txt
mkdir -p bench/results build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$PC/graph.edges" ] || [ ! -f "$PC/features.svm" ]; then
  [ -x "$GEN" ] || cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -o "$GEN" bench/gen_pointcloud.c -lm
  "$GEN" "$PC" --clouds 64 --points 1024 --k 40 --seed 1 >&2
fi

rows="GAT|bench/gat_pubmed.gnn|$PUBMED
MoNet|bench/monet_pubmed.gnn|$PUBMED
EdgeConv|dsl-examples/edgeconv.gnn|$PC"
variants="default stash all"
vflags() { case $1 in stash) echo -fno-recompute ;; all) echo --recompute=all ;; *) ;; esac; }
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
plan_total() { "$GNNC" "$2" $(vflags "$1") --print-memory-plan "V=$3,E=$4" | awk '$1 == "total" {print $2}'; }
plan_stash() { "$GNNC" "$2" $(vflags "$1") --print-memory-plan "V=$3,E=$4" | sed -n 's/^  stashed for the backward: \([0-9]*\) buffers, \([0-9]*\) B.*/\2/p'; }

header=$(bench_header "recompute: training libraries with the checkpoint pass's three plans, host target (bench/recompute.sh)")
t_start=$(date +%s)
res=$tmp/rows.txt
: > "$res"
for n in $THREADS; do
  while IFS='|' read -r name src graph; do
    gname=$(basename "$graph")
    case $gname in pointcloud*) gname=pointcloud ;; esac
    for v in $variants; do
      # shellcheck disable=SC2046
      "$GNNC" "$src" --target=host $(vflags $v) -o "$tmp/lib-$v.so"
      : > "$tmp/step-$v"
    done
    for r in $(seq "$ROUNDS"); do
      for v in $variants; do
        echo "  $name on $gname, $v, $n thread(s), round $r" >&2
        # shellcheck disable=SC2046
        env $(thread_env "$n") "$RUN" "$tmp/lib-$v.so" --graph "$graph" --repeat "$REPEAT" --warmup "$WARMUP" --backward \
          > "$tmp/run-$v.txt" 2>&1 || { cat "$tmp/run-$v.txt" >&2; exit 1; }
        sed -n 's/^time per training step: \([0-9.]*\) ms.*/\1/p' "$tmp/run-$v.txt" >> "$tmp/step-$v"
      done
    done
    gnn_run_parse "$tmp/run-default.txt"
    line="$name $gname $n $R_V $R_E"
    for v in $variants; do
      line="$line $(median < "$tmp/step-$v") $(plan_total $v "$src" "$R_V" "$R_E") $(plan_stash $v "$src" "$R_V" "$R_E")"
    done
    echo "$line" >> "$res"
  done <<< "$rows"
done
elapsed=$(($(date +%s) - t_start))

{
  echo "$header"
  echo "# per row: gnnc MODEL --target=host [-fno-recompute | --recompute=all] -o lib.so, then $ROUNDS rounds of"
  echo "#   gnn-run lib.so --graph GRAPH --repeat $REPEAT --warmup $WARMUP --backward, the three interleaved"
  for n in $THREADS; do echo "# threads $n: $(thread_env "$n")"; done
  echo "# step: median ms per training step (forward with training = 1 + backward); mem: the library's total memory plan"
  echo "# (MB: arena + params + grads + output; = the runtime's peak); stash: the bytes stashed for the backward (MB)."
  echo "# Columns: default (cost model) | stash all (-fno-recompute) | recompute all. time: default / stash-all (> 1: recompute"
  echo "# costs time); mem: stash-all / default (> 1: recompute saves memory)."
  echo
  printf '%-9s %-10s %3s | %9s %9s %9s | %9s %9s %9s | %9s %9s %9s | %6s %6s\n' model graph thr \
    step step-st step-all mem mem-st mem-all stash stash-st stash-all time mem
  awk '{ printf "%-9s %-10s %3d | %9.2f %9.2f %9.2f | %9.2f %9.2f %9.2f | %9.2f %9.2f %9.2f | %5.3fx %5.2fx\n",
           $1, $2, $3, $6, $9, $12, $7 / 1e6, $10 / 1e6, $13 / 1e6, $8 / 1e6, $11 / 1e6, $14 / 1e6, $6 / $9, $10 / $7 }' "$res"
  echo
  echo "memory plans at Reddit's size (V=232965, E=114615892), gnnc --print-memory-plan (not run), total GB:"
  for m in dsl-examples/gat.gnn bench/gat_reddit.gnn dsl-examples/monet.gnn; do
    d=$(plan_total default $m 232965 114615892); s=$(plan_total stash $m 232965 114615892); a=$(plan_total all $m 232965 114615892)
    echo "$m $d $s $a" | awk '{ printf "  %-24s default %7.2f  stash-all %7.2f  recompute-all %7.2f   (stash-all / default: %.2fx)\n",
                                 $1, $2 / 1e9, $3 / 1e9, $4 / 1e9, $3 / $2 }'
  done
  echo
  echo "# Run time of this script: $elapsed s."
} | tee "$out"
