#!/usr/bin/env bash
# bench/train_accuracy.sh [GNNC] -- GCN and GAT trained by gnn-train on the Planetoid splits of
# Cora (data/cora, shipped) and Citeseer (../shared/datasets/citeseer: skipped, and said so,
# when absent), host target, the papers' defaults, seeds 1..SEEDS (default 3). Prints and
# writes bench/results/train_accuracy.txt: per run the test accuracy, epochs, ms per epoch;
# per model and dataset the mean beside the published number. make test checks only the
# Cora seed-1 runs (tests/suites/train.sh); this is the wider record.
#
# GNNC_FLAGS: more gnnc flags for every library, and OUT the results file: the TF32 GEMMs'
# accuracy (issue 29's lever 7, emulated on the host) is
#   GNNC_FLAGS=--gemm-precision=tf32 OUT=bench/results/train_accuracy_tf32.txt bench/train_accuracy.sh
set -u
. "$(dirname "$0")/bench_lib.sh"
GNNC=${1:-build/gnnc}
SEEDS=${SEEDS:-3}
CITESEER=${CITESEER:-../shared/datasets/citeseer}
FLAGS=${GNNC_FLAGS:-}
out=${OUT:-bench/results/train_accuracy.txt}
mkdir -p bench/results build/bench
{
  echo "# gnn-train accuracies, host target; $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null),"
  echo "# $(cpu_words), $(nproc) cores, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}${FLAGS:+; gnnc $FLAGS}"
  echo "# simd: $(simd_words)"
  printf '%-6s %-9s %4s %9s %7s %10s\n' model dataset seed "test acc" epochs "ms/epoch"
  declare -A sum n
  run() { # model-file dataset-dir dataset-name model-name
    local lib=build/bench/lib$(basename "$1" .gnn)-train${FLAGS:+-$(tr -c 'a-z0-9\n' _ <<< "$FLAGS")}.so
    # shellcheck disable=SC2086 # FLAGS: words
    "$GNNC" "$1" --target=host $FLAGS -o "$lib" || { echo "gnnc failed on $1"; return; }
    for s in $(seq 1 "$SEEDS"); do
      local log=build/bench/train.log
      build/bin/gnn-train "$lib" --data "$2" --seed "$s" --quiet > "$log" 2>&1
      local acc ep ms
      acc=$(sed -n 's/^accuracy: .* test \([0-9.]*\)$/\1/p' "$log")
      ep=$(sed -n 's/^trained \([0-9]*\) epochs (\([0-9.]*\) ms per epoch).*/\1/p' "$log")
      ms=$(sed -n 's/^trained \([0-9]*\) epochs (\([0-9.]*\) ms per epoch).*/\2/p' "$log")
      [ -z "$acc" ] && { echo "$4 $3 seed $s: gnn-train failed: $(tail -2 "$log")"; continue; }
      printf '%-6s %-9s %4s %9s %7s %10s\n' "$4" "$3" "$s" "$acc" "$ep" "$ms"
      sum[$4/$3]=$(awk -v a="${sum[$4/$3]:-0}" -v b="$acc" 'BEGIN { print a + b }')
      n[$4/$3]=$(( ${n[$4/$3]:-0} + 1 ))
    done
  }
  run dsl-examples/gcn.gnn data/cora cora GCN
  run dsl-examples/gat.gnn data/cora cora GAT
  if [ -d "$CITESEER" ]; then
    run bench/gcn_citeseer.gnn "$CITESEER" citeseer GCN
    run bench/gat_citeseer.gnn "$CITESEER" citeseer GAT
  else
    echo "Citeseer not found at $CITESEER (../shared/datasets): skipped"
  fi
  echo
  printf '%-6s %-9s %6s %9s %10s\n' model dataset runs "mean acc" published
  for k in GCN/cora GAT/cora GCN/citeseer GAT/citeseer; do
    [ -n "${n[$k]:-}" ] || continue
    case $k in GCN/cora) p=81.5 ;; GAT/cora) p=83.0 ;; GCN/citeseer) p=70.3 ;; GAT/citeseer) p=72.5 ;; esac
    printf '%-6s %-9s %6s %8.1f%% %9s%%\n' "${k%/*}" "${k#*/}" "${n[$k]}" "$(awk -v a="${sum[$k]}" -v c="${n[$k]}" 'BEGIN { print 100 * a / c }')" "$p"
  done
} | tee "$out"
