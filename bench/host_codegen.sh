#!/usr/bin/env bash
# bench/host_codegen.sh BASE_GNNC [GNNC] -- what a change of the host code generator buys: the
# same models compiled as training libraries by two gnnc builds (BASE_GNNC, e.g. one built in a
# git worktree at an older commit, and GNNC, default build/gnnc), run with gnn-run on the same
# graph, interleaved (base, new, base, new ... ROUNDS times, each run --repeat R), medians of
# the runs' medians: the inference forward and the training step (a training forward, dropout
# on, and the backward; no optimiser). Both libraries must give the same output checksum in
# training mode (the dropout masks are the same by definition): the script stops otherwise.
# Writes bench/results/host_codegen.txt.
#
#   GCN, GAT, GraphSAGE, GIN, MoNet   dsl-examples/*.gnn   Cora (2,708 vertices, 1,433 features)
#   GAT, GCN                          bench/*_pubmed.gnn   PubMed (500 generated features)
#
# Environment: REPEAT (default 5), WARMUP (1), ROUNDS (3), BENCH_THREADS (default 1), GNN_RUN,
# CORA, PUBMED.
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: bench/host_codegen.sh BASE_GNNC [GNNC]   (BASE_GNNC: a gnnc executable to compare against)" >&2
  exit 2
fi
BASE=$1
GNNC=${2:-build/gnnc}
RUN=${GNN_RUN:-build/bin/gnn-run}
REPEAT=${REPEAT:-5}
WARMUP=${WARMUP:-1}
ROUNDS=${ROUNDS:-3}
THREADS=${BENCH_THREADS:-1}
CORA=${CORA:-data/cora}
PUBMED=${PUBMED:-data/pubmed}
out=bench/results/host_codegen.txt
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rows="GCN|dsl-examples/gcn.gnn|$CORA
GAT|dsl-examples/gat.gnn|$CORA
SAGE|dsl-examples/sage.gnn|$CORA
GIN|dsl-examples/gin.gnn|$CORA
MoNet|dsl-examples/monet.gnn|$CORA
GAT|bench/gat_pubmed.gnn|$PUBMED
GCN|bench/gcn_pubmed.gnn|$PUBMED"

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
base_commit=$(cd "$(dirname "$BASE")" && git rev-parse --short HEAD 2> /dev/null || echo unknown)
header=$(bench_header "host_codegen: training libraries from two gnnc builds, host target (bench/host_codegen.sh)")
t_start=$(date +%s)
res=$tmp/rows.txt
: > "$res"
for n in $THREADS; do
  while IFS='|' read -r name src graph; do
    for v in base new; do
      g=$GNNC
      [ $v = base ] && g=$BASE
      "$g" "$src" --target=host -o "$tmp/lib-$v.so"
      : > "$tmp/run-$v.fwd"
      : > "$tmp/run-$v.step"
    done
    for r in $(seq "$ROUNDS"); do
      for v in base new; do
        echo "  $name on $(basename "$graph"), $v, $n thread(s), round $r" >&2
        time_fwd_step "$n" "$RUN" "$tmp/lib-$v.so" "$graph" "$REPEAT" "$WARMUP" "$tmp/run-$v"
        # training mode: the same masks, so the same output up to float32 rounding
        env $(thread_env "$n") "$RUN" "$tmp/lib-$v.so" --graph "$graph" --train --repeat 1 --warmup 0 \
          | sed -n 's/^checksum: .*abs-sum \([-0-9.e+]*\).*/\1/p' > "$tmp/sum-$v"
      done
      if ! awk -v a="$(cat "$tmp/sum-base")" -v b="$(cat "$tmp/sum-new")" \
          'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-4 * (a < 0 ? -a : a) + 1e-6) }'; then
        echo "host_codegen: $name on $graph: the two libraries' training outputs differ (abs-sum $(cat "$tmp/sum-base") vs $(cat "$tmp/sum-new"))" >&2
        exit 1
      fi
    done
    line="$name $(basename "$graph") $n"
    for v in base new; do line="$line $(median < "$tmp/run-$v.fwd") $(median < "$tmp/run-$v.step")"; done
    echo "$line" >> "$res"
  done <<< "$rows"
done
elapsed=$(($(date +%s) - t_start))

{
  echo "$header"
  echo "# base: $BASE (commit $base_commit); new: $GNNC"
  echo "# per row: gnnc MODEL --target=host -o lib.so (training library) with each, then $ROUNDS rounds of"
  echo "#   gnn-run lib.so --graph GRAPH --repeat $REPEAT --warmup $WARMUP (inference forwards) and the same with --backward"
  echo "#   (training steps), base and new interleaved"
  for n in $THREADS; do echo "# threads $n: $(thread_env "$n")"; done
  echo "# fwd: median ms per inference forward; step: median ms per training step (training forward + backward,"
  echo "# no optimiser). Ratios base / new (> 1: the new code generator is faster). Training outputs checked equal."
  echo
  printf '%-6s %-7s %3s | %9s %9s %7s | %9s %9s %7s\n' model graph thr fwd-base fwd-new ratio step-base step-new ratio
  awk '{ printf "%-6s %-7s %3d | %9.2f %9.2f %6.2fx | %9.2f %9.2f %6.2fx\n", $1, $2, $3, $4, $6, $4 / $6, $5, $7, $5 / $7 }' "$res"
  echo
  echo "# Run time of this script: $elapsed s."
} | tee "$out"
