#!/usr/bin/env bash
# bench/gpu_estimate.sh [GNNC] -- issue 29 without a GPU: gnnc's GPU estimate (--gpu=h200 --graph,
# compiler/gpucost.c) for the workloads of bench/peers.sh on their own graphs, beside the one
# measurement so far (issue 29's table: an H200, commit 97c49dd, bench/peers.sh with
# PEERS_TARGET=cuda, one round). The estimate is each step's DRAM and L2 bytes (the gathered rows
# through a simulated 50 MB L2 over the graph's edges) at bandwidths, FLOPs and launches: a floor
# the kernels could reach, not a prediction of today's kernels, so the ratio measured / estimate
# says how far each workload is from what its bytes allow.
#
# The graphs come from bench/peers.sh (PEERS_GRAPHS_ONLY=1; the Reddit-sized one takes minutes and
# 1.4 GB: ESTIMATE_REDDIT=0 leaves it out). Writes bench/results/gpu_estimate.txt (OUT to change).
set -eu -o pipefail
cd "$(dirname "$0")/.."
GNNC=${1:-build/gnnc}
WORK=${PEERS_WORK:-build/bench/peers}
OUT=${OUT:-bench/results/gpu_estimate.txt}
GPU=${ESTIMATE_GPU:-h200}
# workload | .gnn | graph | measured forward ms | measured training step ms (H200, issue 29)
ROWS='
gcn-cora|dsl-examples/gcn.gnn|cora|0.099|0.258
gat-cora|dsl-examples/gat.gnn|cora|0.215|0.729
gat-pubmed|bench/gat_pubmed.gnn|pubmed|0.240|0.881
monet-pubmed|bench/peers/monet_pubmed.gnn|pubmed|0.134|0.467
edgeconv-k20-b32|dsl-examples/edgeconv.gnn|pc-b32-k20|0.52|1.44
gcn-pl200k|bench/peers/gcn_pl200k.gnn|pl200k|1.066|2.72
gat-pl200k|bench/peers/gat_pl200k.gnn|pl200k|3.13|10.85
gcn-reddit|bench/peers/gcn_reddit.gnn|reddit|28.2|62.5
gat-reddit|bench/peers/gat_reddit.gnn|reddit|98.3|318
'
names=$(cut -d'|' -f1 <<< "$ROWS" | xargs)
[ "${ESTIMATE_REDDIT:-1}" = 1 ] || names=$(tr ' ' '\n' <<< "$names" | grep -v reddit | xargs)
PEERS_GRAPHS_ONLY=1 PEERS_TARGET=host PEERS_WORKLOADS="$names" PEERS_WORK="$WORK" bash bench/peers.sh "$GNNC" > /dev/null
mkdir -p "$(dirname "$OUT")"
{
  echo "# gpu_estimate: gnnc --gpu=$GPU --graph G (compiler/gpucost.c) against the one GPU measurement (issue 29: H200,"
  echo "# commit 97c49dd, bench/peers.sh PEERS_TARGET=cuda, one round); estimate at commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown), $(date -u +%Y-%m-%d)"
  echo "# est: the inference forward and the training step (forward + backward; the measured step adds a loss and Adam,"
  echo "# a few kernels); DRAM: the estimate's bytes a forward; miss: the largest L2 miss rate of a forward kernel's gathered rows."
  echo "# ratio = measured / estimate: how far the kernels are from what their bytes allow (1 = at the floor)."
  echo "# tiled: the estimate with each gathered kernel's best column tiling (2, 4 or 8 tiles; gpucost.c), forward and step."
  printf '%-18s %9s %9s %9s %7s %9s %9s %9s %7s %10s %6s %9s %9s\n' workload "V" "E" "fwd est" "meas" "ratio" "step est" "meas" "ratio" "DRAM fwd" miss "tiled fwd" "tiled stp"
  while IFS='|' read -r name gnn graph mf ms; do
    [ -n "$name" ] || continue
    case " $names " in *" $name "*) ;; *) continue ;; esac
    r=$("$GNNC" "$gnn" --gpu="$GPU" --graph "$WORK/graphs/$graph.gcsr")
    nv=$(sed -n 's/.*(\([0-9]*\) vertices, \([0-9]*\) edges).*/\1/p' <<< "$r" | head -1)
    ne=$(sed -n 's/.*(\([0-9]*\) vertices, \([0-9]*\) edges).*/\2/p' <<< "$r" | head -1)
    tot=$(grep '^  inference forward' <<< "$r")
    f=$(sed 's/^  inference forward \([0-9.]*\) ms.*/\1/' <<< "$tot")
    s=$(sed 's/.*step (forward + backward) \([0-9.]*\) ms.*/\1/' <<< "$tot")
    d=$(sed 's/.*DRAM \(.*\) a forward.*/\1/' <<< "$tot")
    tf=$(sed -n 's/^  with the column tiles above: inference forward \([0-9.]*\) ms, step \([0-9.]*\) ms$/\1/p' <<< "$r")
    ts=$(sed -n 's/^  with the column tiles above: inference forward \([0-9.]*\) ms, step \([0-9.]*\) ms$/\2/p' <<< "$r")
    # a step row: step, pass, kernel, DRAM (2 words), L2 (2 words), then the miss rate where it has one
    miss=$(awk '$2 == "forward" && $8 ~ /%$/ { v = $8; sub("%", "", v); if (v + 0 > m) m = v + 0 } END { printf "%.1f%%", m }' <<< "$r")
    awk -v n="$name" -v nv="$nv" -v ne="$ne" -v f="$f" -v mf="$mf" -v s="$s" -v ms="$ms" -v d="$d" -v miss="$miss" -v tf="$tf" -v ts="$ts" 'BEGIN {
      printf "%-18s %9d %9d %9.3f %7.3f %8.1fx %9.3f %9.3f %6.1fx %10s %6s %9.3f %9.3f\n", n, nv, ne, f, mf, mf / f, s, ms, ms / s, d, miss, tf, ts }'
  done <<< "$ROWS"
  echo
  echo "# the per-step tables: gnnc MODEL --gpu=$GPU --graph $WORK/graphs/GRAPH.gcsr"
} | tee "$OUT"
