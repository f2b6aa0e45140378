#!/usr/bin/env bash
# bench/gpu_estimate.sh [GNNC] -- issue 29 without a GPU: gnnc's GPU estimate (--gpu=h200 --graph,
# compiler/gpucost.c) beside every GPU time on record, the ratio measured / estimate, and the same
# for the estimate without its latency term (launches and bytes alone, the model before the chains
# of dependent loads were added), so that what the term changed shows per workload.
#
# The measurements, all on one H200 (docs/benchmarks.md, "GPU estimate"):
#   gpu-check  make gpu-check's first run, kit of 1aac3f1 (bench/results/gpu-check-2026-11-26-
#              NVIDIA-H200-1aac3f1): the smoke run (GAT on Cora, gnn-run's inference forward) and
#              bench/gpu_forward.sh (GAT and GCN on PubMed, -fno-autodiff, each mapping), on the
#              graphs as gnn-run loads them (data/cora, data/pubmed: no self-loops);
#   issue29    issue 29's table (commit 97c49dd, bench/peers.sh with PEERS_TARGET=cuda, one round):
#              the inference forward and the training step of the peers' workloads on their graphs
#              (self-loops added), which bench/peers.sh makes (PEERS_GRAPHS_ONLY=1).
# The estimate is of the kernels of the commit this runs at, the measurements of those commits'
# kernels: where the lowering changed since, a ratio mixes the model's error with the change.
#
# ESTIMATE_GRAPHS=DIR reads the peers' .gcsr graphs from DIR (read-only: another checkout's
# build/bench/peers/graphs, the Reddit-sized one is 1.4 GB and takes minutes to make); otherwise
# bench/peers.sh makes them under PEERS_WORK (build/bench/peers). ESTIMATE_REDDIT=0 leaves the
# Reddit-sized rows out. Writes bench/results/gpu_estimate.txt (OUT to change).
set -eu -o pipefail
cd "$(dirname "$0")/.."
GNNC=${1:-build/gnnc}
WORK=${PEERS_WORK:-build/bench/peers}
OUT=${OUT:-bench/results/gpu_estimate.txt}
GPU=${ESTIMATE_GPU:-h200}
[ -x "$GNNC" ] || { echo "gpu_estimate: $GNNC is missing (make)" >&2; exit 2; }
# workload | source | .gnn | gnnc flags | graph (a peers graph name, or a path) | measured forward ms |
# measured training step ms (- where none)
ROWS='
gat-cora-smoke|gpu-check|dsl-examples/gat.gnn||data/cora|0.220|-
gat-pubmed-vertex|gpu-check|bench/gat_pubmed.gnn|-fno-autodiff --mapping=vertex|data/pubmed|0.237|-
gat-pubmed-edge|gpu-check|bench/gat_pubmed.gnn|-fno-autodiff --mapping=edge|data/pubmed|0.206|-
gcn-pubmed-vertex|gpu-check|bench/gcn_pubmed.gnn|-fno-autodiff --mapping=vertex|data/pubmed|0.134|-
gcn-pubmed-edge|gpu-check|bench/gcn_pubmed.gnn|-fno-autodiff --mapping=edge|data/pubmed|0.088|-
gcn-cora|issue29|dsl-examples/gcn.gnn||cora|0.099|0.258
gat-cora|issue29|dsl-examples/gat.gnn||cora|0.215|0.729
gat-pubmed|issue29|bench/gat_pubmed.gnn||pubmed|0.240|0.881
monet-pubmed|issue29|bench/peers/monet_pubmed.gnn||pubmed|0.134|0.467
edgeconv-k20-b32|issue29|dsl-examples/edgeconv.gnn||pc-b32-k20|0.52|1.44
gcn-pl200k|issue29|bench/peers/gcn_pl200k.gnn||pl200k|1.066|2.72
gat-pl200k|issue29|bench/peers/gat_pl200k.gnn||pl200k|3.13|10.85
gcn-reddit|issue29|bench/peers/gcn_reddit.gnn||reddit|28.2|62.5
gat-reddit|issue29|bench/peers/gat_reddit.gnn||reddit|98.3|318
'
peers=$(awk -F'|' '$2 == "issue29" { print $1 }' <<< "$ROWS" | xargs)
[ "${ESTIMATE_REDDIT:-1}" = 1 ] || peers=$(tr ' ' '\n' <<< "$peers" | grep -v reddit | xargs)
if [ -n "${ESTIMATE_GRAPHS:-}" ]; then
  GRAPHS=$ESTIMATE_GRAPHS
else
  GRAPHS=$WORK/graphs
  PEERS_GRAPHS_ONLY=1 PEERS_TARGET=host PEERS_WORKLOADS="$peers" PEERS_WORK="$WORK" bash bench/peers.sh "$GNNC" > /dev/null
fi
mkdir -p "$(dirname "$OUT")"
{
  echo "# gpu_estimate: gnnc --gpu=$GPU --graph G (compiler/gpucost.c) against every GPU time on record (all on one H200):"
  echo "# gpu-check = make gpu-check's run of the kit of 1aac3f1 (graphs as gnn-run loads them), issue29 = issue 29's table"
  echo "# (97c49dd, bench/peers.sh PEERS_TARGET=cuda, one round; the peers' graphs; bench/results/peers-h200-97c49dd-issue29.md). Estimate at commit"
  echo "# $(git rev-parse --short HEAD 2> /dev/null || echo unknown), $(date -u +%Y-%m-%d): today's kernels against those commits' times."
  echo "# fwd: the inference forward, ms; step: the training step (forward + backward; the measured step adds a loss and"
  echo "# Adam, a few kernels). ratio = measured / estimate (1: exact; > 1: the estimate is low). before = the same estimate"
  echo "# without the chains' latency (launches + bytes: the model until this change). lat%: the share of the estimated"
  echo "# forward in steps that latency bounds (span: the part a hub row's chain sets)."
  printf '%-18s %-9s %9s %9s %7s %7s %6s %7s %6s %5s %5s %8s %8s %6s %8s %6s\n' workload source V E "fwd ms" est ratio before ratio \
    "lat%" "span%" "step ms" est ratio before ratio
  while IFS='|' read -r name src gnn flags graph mf ms; do
    [ -n "$name" ] || continue
    [ "$src" = gpu-check ] || case " $peers " in *" $name "*) ;; *) continue ;; esac
    case $graph in */*) g=$graph ;; *) g=$GRAPHS/$graph.gcsr ;; esac
    # shellcheck disable=SC2086 # the flags, word-split on purpose
    r=$("$GNNC" "$gnn" $flags --gpu="$GPU" --graph "$g")
    awk -v n="$name" -v src="$src" -v mf="$mf" -v ms="$ms" '
      /^GPU estimate: / && match($0, /\([0-9]+ vertices, [0-9]+ edges\)/) {
        split(substr($0, RSTART + 1, RLENGTH - 2), a, " "); nv = a[1]; ne = a[3] }
      /^  inference forward / { f = $3; st = $13 }
      /^  the inference forward.s terms: / { lat = $11; span = $17 }
      /^  without the chains/ { bf = $11; bs = $14 }
      END {
        rs = ms == "-" ? "-" : sprintf("%.1fx", ms / st); rbs = ms == "-" ? "-" : sprintf("%.1fx", ms / bs)
        printf "%-18s %-9s %9d %9d %7s %7.3f %5.1fx %7.3f %5.1fx %4.0f%% %4.0f%% %8s %8.3f %6s %8.3f %6s\n", n, src, nv, ne, mf, f,
          mf / f, bf, mf / bf, 100 * lat / f, 100 * span / f, ms, st, rs, bs, rbs }' <<< "$r"
  done <<< "$ROWS"
  echo
  echo "# the per-step tables: gnnc MODEL [FLAGS] --gpu=$GPU --graph GRAPH (columns: docs/benchmarks.md, \"GPU estimate\")"
} | tee "$OUT"
