#!/usr/bin/env bash
# bench/attention_precision.sh [BASE_GNNC] -- how close the GAT training gradients of a host library
# come to the float64 interpreter, over many seeds, fused (build/gnnc), unfused (build/gnnc
# -fno-fuse) and, given BASE_GNNC (e.g. a gnnc built in a git worktree at an older commit), that
# build's fused library. It measures what docs/passes/fuse.md ("Float64 where it cancels") is
# about: the fused attention backward's t_v = <g_v, out_v> and d(alpha) cancel where one edge
# carries a vertex's attention, and float32 keeps little of the difference.
#
# Per graph and seed: gnnc run MODEL --train --save-outputs (the interpreter, float64: the output and
# every gradient, with the parameters, inputs and dropout masks of the seed), then gnn-run LIB --train
# --save-grads with the same parameters and inputs, and gnn-compare (runtime/gnn_compare.c): the run's error is
# the largest "max err" (relative, floored) over the gradient tensors whose floor is >= 1e-3 (a
# tensor of all ~0, where dropout removed every path, compares noise with noise). Precision only:
# nothing is timed.
#
#   MODEL   tests/interp/models/gat.gnn (dsl-examples/gat.gnn with small widths)
#   GRAPHS  tests/interp/graphs/{isolated,duplicates,hub}: vertices with one, two and many in-edges
#
# Environment: SEEDS (default "$(seq 40 79)"), MAPPINGS ("vertex edge"), GNN_RUN. Writes
# bench/results/attention_precision.txt.
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
BASE=${1:-}
if [ -n "$BASE" ] && [ ! -x "$BASE" ]; then
  echo "usage: bench/attention_precision.sh [BASE_GNNC]   (BASE_GNNC: a gnnc executable to compare too)" >&2
  exit 2
fi
GNNC=build/gnnc
RUN=${GNN_RUN:-build/bin/gnn-run}
COMPARE=build/bin/gnn-compare
SEEDS=${SEEDS:-$(seq 40 79)}
MAPPINGS=${MAPPINGS:-vertex edge}
MODEL=tests/interp/models/gat.gnn
GRAPHS="tests/interp/graphs/isolated tests/interp/graphs/duplicates tests/interp/graphs/hub"
out=bench/results/attention_precision.txt
for t in "$GNNC" "$RUN" "$COMPARE"; do
  [ -x "$t" ] || { echo "attention_precision: $t is missing (make first)" >&2; exit 1; }
done
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_start=$(date +%s)
header=$(bench_header "attention_precision: GAT training gradients vs the float64 interpreter (bench/attention_precision.sh)")

variants="fused|$GNNC|
unfused|$GNNC|-fno-fuse"
if [ -n "$BASE" ]; then
  base_commit=$(cd "$(dirname "$BASE")" && git rev-parse --short HEAD 2> /dev/null || echo unknown)
  variants="$variants
base-fused|$BASE|"
fi
res="$tmp/res"
: > "$res"
while IFS='|' read -r name gnnc flags; do
  for map in $MAPPINGS; do
  # shellcheck disable=SC2086
  "$gnnc" "$MODEL" --target=host --mapping="$map" $flags -o "$tmp/$name.so" > /dev/null
  for g in $GRAPHS; do
    : > "$tmp/errs"
    for seed in $SEEDS; do
      echo "  $name, $map, $(basename "$g"), seed $seed" >&2
      "$GNNC" run "$MODEL" --graph "$g" --seed "$seed" --train --save-params "$tmp/p" --save-inputs "$tmp/i" \
        --save-outputs "$tmp/ref" > /dev/null
      "$RUN" "$tmp/$name.so" --graph "$g" --params "$tmp/p" --inputs "$tmp/i" --seed "$seed" --train \
        --save-grads "$tmp/got" --output "$tmp/out" --repeat 1 --warmup 0 > /dev/null
      sed 's/^tensor output /tensor out /' "$tmp/out" >> "$tmp/got"
      { "$COMPARE" "$tmp/got" "$tmp/ref" --tol 1e-4 || true; } |
        sed -n 's/^.*\(grad\.[^:]*\): max err \([-0-9.e+]*\) (relative, floor \([-0-9.e+]*\)).*/\2 \3/p' |
        awk 'BEGIN { m = 0 } $2 >= 1e-3 && $1 > m { m = $1 } END { print m }' >> "$tmp/errs"
    done
    sort -g "$tmp/errs" | awk -v n="$name" -v m="$map" -v g="$(basename "$g")" \
      '{ a[NR] = $1; if ($1 > 1e-4) over++ } END { printf "%s %s %s %d %s %s %s %d\n", n, m, g, NR, a[int((NR + 1) / 2)], a[int(NR * 0.9 + 0.5)], a[NR], over }' >> "$res"
  done
  done
done <<< "$variants"
elapsed=$(($(date +%s) - t_start))

{
  echo "$header"
  [ -n "$BASE" ] && echo "# base-fused: $BASE (commit $base_commit)"
  # shellcheck disable=SC2086
  echo "# model $MODEL, host libraries; seeds: $(echo $SEEDS | awk '{print $1 ".." $NF " (" NF ")"}')"
  echo "# per run: the largest relative error (gnn-compare's max err, floored) over the gradient tensors whose"
  echo "# floor is >= 1e-3, against gnnc run's float64 interpreter with the same parameters, inputs and masks"
  echo
  printf '%-10s %-7s %-10s %5s | %10s %10s %10s | %s\n' variant mapping graph runs median p90 max '> 1e-4'
  awk '{ printf "%-10s %-7s %-10s %5d | %10.3g %10.3g %10.3g | %d\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$res"
  echo
  echo "# Run time of this script: $elapsed s."
} | tee "$out"
