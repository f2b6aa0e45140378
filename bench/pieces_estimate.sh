#!/usr/bin/env bash
# bench/pieces_estimate.sh [GNNC] -- issue 29's lever 1 (hub rows in pieces, gnnc --split-hubs) priced
# without a GPU: gnnc's GPU estimate (--gpu=h200 --graph, compiler/gpucost.c) of each workload of
# issue 29's table built without and with --split-hubs, beside what that table measured on an H200
# (97c49dd: gnnc, and PyG's best variant on the same GPU) and the issue's targets.
#
# These are estimates of the kernels at the commit this runs at, not measurements: the model's error
# against the one GPU run on record is in bench/results/gpu_estimate.txt (0.8x-3.0x per workload), so
# read the `pieces / none` column (the same model on both sides) rather than the absolute times.
# make gpu-check's pieces step measures the same two builds on a GPU (docs/gpu.md).
#
# ESTIMATE_FLAGS prices another schedule the same way (the hub-row columns still say what a hub
# row's chain sets): ESTIMATE_FLAGS=--tile-columns=64 OUT=bench/results/tiles_estimate.txt for
# issue 29's lever 2, the column tiles (make gpu-check's tiles step).
#
# The graphs: the peers' (bench/peers.sh makes them under PEERS_WORK, or ESTIMATE_GRAPHS=DIR
# reads them; the Reddit-sized one is 1.4 GB and takes minutes to make; ESTIMATE_REDDIT=0 leaves
# its rows out). Writes bench/results/pieces_estimate.txt (OUT to change).
set -eu -o pipefail
cd "$(dirname "$0")/.."
GNNC=${1:-build/gnnc}
WORK=${PEERS_WORK:-build/bench/peers}
OUT=${OUT:-bench/results/pieces_estimate.txt}
GPU=${ESTIMATE_GPU:-h200}
FLAGS=${ESTIMATE_FLAGS:---split-hubs}
LABEL=new
[ "$FLAGS" = --split-hubs ] && LABEL=pieces
[ -x "$GNNC" ] || { echo "pieces_estimate: $GNNC is missing (make)" >&2; exit 2; }
# workload | .gnn | graph | measured gnnc forward / step ms (97c49dd, H200) | PyG's best forward / step ms
ROWS='
gcn-cora|dsl-examples/gcn.gnn|cora|0.099|0.258|0.157|1.889
gat-cora|dsl-examples/gat.gnn|cora|0.215|0.729|1.224|3.57
gat-pubmed|bench/gat_pubmed.gnn|pubmed|0.240|0.881|0.850|3.69
monet-pubmed|bench/peers/monet_pubmed.gnn|pubmed|0.134|0.467|0.551|2.59
gcn-pl200k|bench/peers/gcn_pl200k.gnn|pl200k|1.066|2.72|0.918|4.75
gat-pl200k|bench/peers/gat_pl200k.gnn|pl200k|3.13|10.85|18.9|35.5
gcn-reddit|bench/peers/gcn_reddit.gnn|reddit|28.2|62.5|20.7|92.1
gat-reddit|bench/peers/gat_reddit.gnn|reddit|98.3|318|-|-
'
names=$(awk -F'|' 'NF > 1 { print $1 }' <<< "$ROWS" | xargs)
[ "${ESTIMATE_REDDIT:-1}" = 1 ] || names=$(tr ' ' '\n' <<< "$names" | grep -v reddit | xargs)
if [ -n "${ESTIMATE_GRAPHS:-}" ]; then
  GRAPHS=$ESTIMATE_GRAPHS
else
  GRAPHS=$WORK/graphs
  PEERS_GRAPHS_ONLY=1 PEERS_TARGET=host PEERS_WORKLOADS="$names" PEERS_WORK="$WORK" bash bench/peers.sh "$GNNC" > /dev/null
fi
mkdir -p "$(dirname "$OUT")"
est() { # GNN GRAPH [FLAGS]: "forward step span" (ms) of the estimate
  # shellcheck disable=SC2086 # the flags, word-split on purpose
  "$GNNC" "$1" ${3:-} --gpu="$GPU" --graph "$2" |
    awk '/^  inference forward / { f = $3; st = $13 } /^  the inference forward.s terms: / { sp = $17 } END { print f, st, sp }'
}
{
  echo "# pieces_estimate: gnnc --gpu=$GPU --graph G (compiler/gpucost.c) without and with $FLAGS, at commit"
  echo "# $(git rev-parse --short HEAD 2> /dev/null || echo unknown)$(git diff --quiet HEAD -- . ":(exclude)$OUT" 2> /dev/null || echo ' with uncommitted changes'), $(date -u +%Y-%m-%d). Estimates, not measurements: compare the two"
  echo "# builds ($LABEL / none); 'measured' is issue 29's H200 table (97c49dd), gnnc and PyG's best on the same GPU."
  echo "# fwd: the inference forward, step: the training step (forward + backward), ms."
  printf '%-13s %8s %8s %7s %8s %8s | %8s %8s %7s | %8s %8s %8s %8s\n' workload "fwd none" $LABEL "${LABEL:0:1}/none" "hub row" \
    "hub ${LABEL:0:1}" "stp none" $LABEL "${LABEL:0:1}/none" "gnnc fwd" "PyG fwd" "gnnc stp" "PyG stp"
  while IFS='|' read -r name gnn graph mf ms pf ps; do
    [ -n "$name" ] || continue
    case " $names " in *" $name "*) ;; *) continue ;; esac
    g=$GRAPHS/$graph.gcsr
    read -r f0 s0 span0 <<< "$(est "$gnn" "$g")"
    read -r f1 s1 span1 <<< "$(est "$gnn" "$g" "$FLAGS")"
    awk -v n="$name" -v f0="$f0" -v f1="$f1" -v s0="$s0" -v s1="$s1" -v h0="$span0" -v h1="$span1" -v mf="$mf" -v ms="$ms" \
      -v pf="$pf" -v ps="$ps" 'BEGIN {
        printf "%-13s %8.3f %8.3f %6.2fx %8.3f %8.3f | %8.3f %8.3f %6.2fx | %8s %8s %8s %8s\n", n, f0, f1, f1 / f0, h0, h1,
          s0, s1, s1 / s0, mf, pf, ms, ps }'
  done <<< "$ROWS"
  echo
  echo "# hub row / hub p: the part of the estimated inference forward that a hub row's chain sets (the span of the"
  echo "# latency-bound steps: 'a hub row's span' of gnnc --gpu), without and with $FLAGS."
} | tee "$OUT"
