#!/usr/bin/env bash
# bench/interp_time.sh GNNC -- the float64 interpreter on real graphs: median of 5 runs.
# Cora with its features; PubMed with 500 generated features (the shared copy has none).
# Writes bench/results/interp_time.txt. Target (issue 2): 2-layer GAT on PubMed under 10 s.
set -eu
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
PUBMED=../shared/datasets/pubmed
out=bench/results/interp_time.txt
mkdir -p bench/results
{
  bench_header "interp_time: the float64 interpreter (gnnc run), median of 5 runs (bench/interp_time.sh)" "gnnc run (the float64 interpreter)"
  printf '%-22s %-10s %9s %9s %12s\n' model graph vertices edges "median s"
  run() { # model file, graph
    local ts=() v e
    for i in 1 2 3 4 5; do
      line=$("$GNNC" run "$1" --graph "$2" | tee "$TMPF")
      ts+=("$(sed -n 's/^interpreter time: \([0-9.]*\) s$/\1/p' "$TMPF")")
    done
    v=$(sed -n 's/.*: \([0-9]*\) vertices.*/\1/p' "$TMPF"); e=$(sed -n 's/.*, \([0-9]*\) edges.*/\1/p' "$TMPF")
    med=$(printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p)
    printf '%-22s %-10s %9s %9s %12s\n' "$(basename "$1" .gnn)" "$(basename "$2")" "$v" "$e" "$med"
  }
  TMPF=$(mktemp)
  for m in gcn sage gin gat monet; do run "dsl-examples/$m.gnn" data/cora; done
  if [ -d "$PUBMED" ]; then
    run bench/gat_pubmed.gnn "$PUBMED"
  else
    echo "PubMed not found at $PUBMED (../shared/datasets): skipped"
  fi
  rm -f "$TMPF"
} | tee "$out"
