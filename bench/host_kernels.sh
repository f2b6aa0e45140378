#!/usr/bin/env bash
# bench/host_kernels.sh BASE_GNNC [GNNC] -- issue 28: the host kernels of two gnnc builds on a
# large skewed graph, per kernel.
#
# Compiles the GCN and GAT of bench/peers/ (gcn_pl200k.gnn, gat_pl200k.gnn) with each gnnc, the
# inference and the training libraries, then runs bench/peer_gnnc on the graph with
# GNN_PROFILE=1, the two builds' libraries alternating, ROUNDS times, and prints, per figure
# (forward_ms, train_ms, each profiled step's mean ms), the median over the rounds of each side
# and their ratio base / new. Wall times from gnnc's own profile: on a shared machine the ratios
# are the result, not the absolute times (the header gives the load average).
#
# Environment: GRAPH [build/bench/peers/graphs/rmat200k.gcsr; made with gen_graph rmat when
# missing], ROUNDS [3], THREADS ["1 2"], MODELS ["gcn_inf gat_inf gcn gat"], FORWARD [3],
# STEPS [4] (training libraries: 1 forward, then STEPS steps).
set -u -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
BASE=${1:?usage: bench/host_kernels.sh BASE_GNNC [GNNC]}
NEW=${2:-build/gnnc}
GRAPH=${GRAPH:-build/bench/peers/graphs/rmat200k.gcsr}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1 2}
MODELS=${MODELS:-gcn_inf gat_inf gcn gat}
DRV=build/bench/peer_gnnc
for p in "$BASE" "$NEW" "$DRV" build/bench/gen_graph; do
  [ -x "$p" ] || { echo "host_kernels: $p is missing (make all build/bench/gen_graph build/bench/peer_gnnc)" >&2; exit 2; }
done
if [ ! -s "$GRAPH" ]; then
  mkdir -p "$(dirname "$GRAPH")"
  build/bench/gen_graph rmat --vertices 200000 --edges 4000000 --seed 1 -o "$GRAPH" > /dev/null || exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in base new; do
  g=$BASE
  [ $side = new ] && g=$NEW
  mkdir -p "$work/$side"
  for m in $MODELS; do
    flags=
    case $m in *_inf) flags=-fno-autodiff ;; esac
    "$g" "bench/peers/${m%_inf}_pl200k.gnn" --target=host $flags -o "$work/$side/$m.so" > /dev/null ||
      { echo "host_kernels: $g cannot build $m" >&2; exit 1; }
  done
done
echo "# host_kernels: base $BASE, new $NEW; graph $GRAPH; $ROUNDS rounds, alternating; commit $(git rev-parse --short HEAD 2> /dev/null)"
echo "# cpu: $(cpu_words), $(nproc) CPUs online; simd: $(simd_words)"
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min load average at the start)"
for t in $THREADS; do
  for m in $MODELS; do
    args="--forward ${FORWARD:-3} --warmup 1 --steps 0"
    case $m in *_inf) ;; *) args="--forward 1 --warmup 0 --steps ${STEPS:-4}" ;; esac
    env=(OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t")
    [ "$t" -gt 1 ] && env+=(OMP_WAIT_POLICY=passive)
    : > "$work/rows"
    for r in $(seq "$ROUNDS"); do
      for side in base new; do
        # shellcheck disable=SC2086 # the arguments, split on purpose
        env "${env[@]}" GNN_PROFILE=1 "$DRV" "$work/$side/$m.so" --graph "$GRAPH" $args 2>&1 |
          awk -v s=$side '/^(forward_ms|train_ms) /{print s "\t" $1 "\t" $2}
            /^gnn-profile: +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +(forward|backward) /{print s "\t" $6 " " $7 " " $8 " " $9 "\t" $4}' >> "$work/rows"
      done
    done
    echo
    echo "## $m, $t thread(s): median ms (base, new, base / new)"
    python3 - "$work/rows" << 'PY'
import collections, statistics, sys
d = collections.OrderedDict()
for line in open(sys.argv[1]):
    side, key, v = line.rstrip('\n').split('\t')
    d.setdefault(key, {}).setdefault(side, []).append(float(v))
rows = [(k, statistics.median(s['base']), statistics.median(s['new'])) for k, s in d.items() if 'base' in s and 'new' in s]
rows.sort(key=lambda r: (not r[0].endswith('_ms'), -r[1]))
for k, b, n in rows:
    if b < 1 and n < 1: continue
    print(f"{k:32s} {b:10.1f} {n:10.1f} {b / n if n else float('nan'):7.2f}x")
PY
  done
done
