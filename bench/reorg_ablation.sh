#!/usr/bin/env bash
# bench/reorg_ablation.sh [GNNC] -- issue 5: what propagation-postponed reorganization (the
# reorg pass, docs/passes/reorg.md) buys in the forward pass, host target.
#
# Each model is compiled inference-only for the host target twice, with the pass (default) and
# with -fno-reorg, and run with gnn-run on its graph. Prints, side by side, the cost model's
# FLOPs and bytes at the graph's V and E (gnnc --stats, after the last pass), the measured
# median time per forward and gnn-run's peak allocated memory (and the memory plan), with the
# ratios without/with, and their averages next to the paper's (MLSys 2022, section 6.3, forward
# pass of GAT on PubMed and EdgeConv on a GPU: 1.68x latency, 3.06x IO, 1.30x peak memory on
# average). Writes bench/results/reorg_ablation.txt.
#
#   GAT      dsl-examples/gat.gnn        Cora (2,708 vertices, 10,556 edges, 1,433 features)
#   GAT      bench/gat_pubmed.gnn        PubMed (19,717, 88,651; 500 generated features)
#   EdgeConv dsl-examples/edgeconv.gnn   32 kNN point clouds of 1,024 points, k = 20 (32,768
#                                        vertices, 655,360 edges; bench/gen_pointcloud.c, into
#                                        build/bench/, the coordinates as vertex features)
#   MoNet    dsl-examples/monet.gnn      Cora (pseudo-coordinates from degrees: no edge input)
#
# Environment: REPEAT (default 20), WARMUP (default 2) for the small graphs; EC_REPEAT (default
# 5), EC_WARMUP (default 1) for EdgeConv, whose -fno-reorg forward takes seconds on 2 cores;
# BENCH_THREADS (default 1: bench/bench_lib.sh); GNN_RUN; PUBMED, CORA; POINTCLOUD (the folder,
# default build/bench/pointcloud-32x1024-k20, generated when missing).
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
RUN=${GNN_RUN:-build/bin/gnn-run}
REPEAT=${REPEAT:-20}
WARMUP=${WARMUP:-2}
EC_REPEAT=${EC_REPEAT:-5}
EC_WARMUP=${EC_WARMUP:-1}
THREADS=${BENCH_THREADS:-1}
CORA=${CORA:-data/cora}
PUBMED=${PUBMED:-data/pubmed}
PC=${POINTCLOUD:-build/bench/pointcloud-32x1024-k20}
GEN=build/bench/gen_pointcloud
out=bench/results/reorg_ablation.txt
mkdir -p bench/results build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$PC/graph.edges" ] || [ ! -f "$PC/features.svm" ]; then
  [ -x "$GEN" ] || cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -o "$GEN" bench/gen_pointcloud.c -lm
  "$GEN" "$PC" --clouds 32 --points 1024 --k 20 --seed 1 >&2
fi

# name | model file | graph | repeat | warm-up
rows="GAT|dsl-examples/gat.gnn|$CORA|$REPEAT|$WARMUP
GAT|bench/gat_pubmed.gnn|$PUBMED|$REPEAT|$WARMUP
EdgeConv|dsl-examples/edgeconv.gnn|$PC|$EC_REPEAT|$EC_WARMUP
MoNet|dsl-examples/monet.gnn|$CORA|$REPEAT|$WARMUP"

header=$(bench_header "reorg_ablation: forward pass with and without the reorg pass, host target (bench/reorg_ablation.sh)")
t_start=$(date +%s)
res=$tmp/rows.txt
: > "$res"
for n in $THREADS; do
  while IFS='|' read -r name src graph rep warm; do
    gname=$(basename "$graph")
    case $gname in pointcloud*) gname=pointcloud ;; esac
    line="$name $gname $n $rep"
    ok=1
    for variant in reorg no-reorg; do
      flags=()
      [ $variant = no-reorg ] && flags=(-fno-reorg)
      lib=$tmp/lib-$variant.so
      if ! "$GNNC" "$src" --target=host -fno-autodiff "${flags[@]}" -o "$lib" > "$tmp/cc.err" 2>&1; then
        echo "FAILED: $GNNC $src --target=host -fno-autodiff ${flags[*]} -o $lib" >> "$tmp/failures"
        cat "$tmp/cc.err" >> "$tmp/failures"
        ok=0
        break
      fi
      echo "  $name on $gname, $variant, $n thread(s): $rep runs after $warm warm-up" >&2
      # shellcheck disable=SC2046 # the assignments are words
      if ! env $(thread_env "$n") "$RUN" "$lib" --graph "$graph" --repeat "$rep" --warmup "$warm" > "$tmp/run.txt" 2>&1; then
        echo "FAILED: $(thread_env "$n") $RUN $lib --graph $graph --repeat $rep --warmup $warm" >> "$tmp/failures"
        cat "$tmp/run.txt" >> "$tmp/failures"
        ok=0
        break
      fi
      gnn_run_parse "$tmp/run.txt"
      cost_model "$GNNC" "$src" "$R_V" "$R_E" "${flags[@]}"
      line="$line $R_V $R_E $C_FLOPS $C_BYTES $R_MS $R_PEAK $R_PLAN $R_ABSSUM"
    done
    [ $ok = 1 ] && echo "$line" >> "$res"
  done <<< "$rows"
done
elapsed=$(($(date +%s) - t_start))

{
  echo "$header"
  echo "# per row and variant: gnnc MODEL --target=host -fno-autodiff [-fno-reorg] -o lib.so   (mapping auto = vertex-balanced)"
  echo "#                      gnn-run lib.so --graph GRAPH --repeat R --warmup W   (seed 1)"
  for n in $THREADS; do echo "# threads $n: $(thread_env "$n")"; done
  echo "# runs: R, the timed forwards per variant (EdgeConv: $EC_REPEAT after $EC_WARMUP warm-up, fewer because its -fno-reorg"
  echo "#       forward takes seconds; the others $REPEAT after $WARMUP). Ratios are without/with (-fno-reorg / reorg): > 1 = reorg wins."
  echo "# GFLOP, GB: the cost model after the last pass (unfused, docs/ir.md) at the graph's V and E; ms: median time per"
  echo "# forward; peak: gnn-run's peak allocated MiB (plan + graph + inputs); plan: the model's memory plan MiB;"
  echo "# out diff: |abs-sum(no-reorg) - abs-sum(reorg)| / abs-sum(reorg) of the output (the two must compute the same function)."
  echo
  echo "cost model (static)"
  printf '%-9s %-10s %6s %7s | %9s %9s %7s | %8s %8s %7s\n' model graph V E "GFLOP" "GFLOP-no" ratio "GB" "GB-no" ratio
  awk '{ printf "%-9s %-10s %6d %7d | %9.3f %9.3f %6.2fx | %8.3f %8.3f %6.2fx\n", $1, $2, $5, $6,
           $7 / 1e9, $15 / 1e9, $15 / $7, $8 / 1e9, $16 / 1e9, $16 / $8 }' "$res"
  echo
  echo "measured (host)"
  printf '%-9s %-10s %3s %4s | %8s %8s %6s | %8s %8s %6s | %8s %8s | %8s\n' model graph thr runs \
    "ms" "ms-no" ratio "peak" "peak-no" ratio "plan" "plan-no" "out diff"
  awk '{ d = $20 - $12; if (d < 0) d = -d
         printf "%-9s %-10s %3d %4d | %8.2f %8.2f %5.2fx | %8.2f %8.2f %5.2fx | %8.2f %8.2f | %8.1e\n", $1, $2, $3, $4,
           $9, $17, $17 / $9, $10, $18, $18 / $10, $11, $19, d / $12 }' "$res"
  echo
  # the averages: over every row, then over the paper's two (GAT on PubMed, EdgeConv)
  for subset in all paper; do
    awk -v subset=$subset '
       subset == "paper" && !(($1 == "GAT" && $2 == "pubmed") || $1 == "EdgeConv") { next }
       { n++; t = $17 / $9; b = $16 / $8; f = $15 / $7; m = $18 / $10
         st += t; sb += b; sf += f; sm += m; lt += log(t); lb += log(b); lf += log(f); lm += log(m) }
       END { if (!n) exit
         if (subset == "all") printf "averages over all %d rows (arithmetic / geometric mean of the ratios without/with):\n", n
         else printf "averages over the paper'"'"'s %d models (GAT on PubMed, EdgeConv; arithmetic / geometric mean):\n", n
         printf "  latency (measured median)   %5.2fx / %5.2fx    paper (GPU, forward): 1.68x\n", st / n, exp(lt / n)
         printf "  IO (cost-model bytes)       %5.2fx / %5.2fx    paper (GPU, forward): 3.06x (measured traffic)\n", sb / n, exp(lb / n)
         printf "  FLOPs (cost model)          %5.2fx / %5.2fx\n", sf / n, exp(lf / n)
         printf "  peak memory (measured)      %5.2fx / %5.2fx    paper (GPU, forward): 1.30x\n", sm / n, exp(lm / n) }' "$res"
  done
  if [ -s "$tmp/failures" ]; then
    echo
    echo "failures:"
    cat "$tmp/failures"
  fi
  echo
  echo "# Run time of this script: $elapsed s."
} | tee "$out"
