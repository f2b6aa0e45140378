#!/usr/bin/env bash
# bench/ab_cuda.sh BASE_DIR NEW_DIR GRAPH_DIR OUT.md -- two builds of the same workloads on the same
# GPU, interleaved: a change to the schedules measured against the commit before it.
#
# BASE_DIR and NEW_DIR hold the CUDA libraries bench/peers.sh builds (NAME-cuda.so, for the
# workloads of its table; BASE_DIR/info names the commit they were built from), GRAPH_DIR its
# graphs (GRAPH.gcsr). For every workload of AB_WORKLOADS whose libraries and graph are there:
#   - both outputs after one inference forward (peer_gnnc --dump): their largest difference,
#     relative to the largest output (the change must not change the numbers beyond rounding);
#   - AB_ROUNDS rounds of base, new (A, B, A, B, ...), each one process: peer_gnnc's forward
#     (median of its --forward timed ones) and training step (median of --steps); the table gives
#     the median over the rounds and new / base.
# A base library links its own tree's runtime by RUNPATH; the runtime of this tree is put first
# (LD_LIBRARY_PATH), which a change of schedules leaves as it is. Writes OUT.md (a table) and
# OUT.tsv (every run). Exit status 0 when every workload ran and every output agreed (1e-4).
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BASE=${1:?usage: bench/ab_cuda.sh BASE_DIR NEW_DIR GRAPH_DIR OUT.md}
NEW=${2:?}
GRAPHS=${3:?}
OUTMD=${4:?}
OUTTSV=${OUTMD%.md}.tsv
WL=${AB_WORKLOADS:-gcn-reddit gat-reddit gcn-pl200k gat-pl200k gat-pubmed gcn-cora gat-cora}
ROUNDS=${AB_ROUNDS:-2}
PY=${PY:-python3}
PEER_GNNC=${PEER_GNNC:-build/bench/peer_gnnc}
export LD_LIBRARY_PATH=$ROOT/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the graph and the counts (forward/warm-up/steps) of each workload, from peers.sh's table
table=$(sed -n "/^WORKLOADS='/,/^'/p" bench/peers.sh)
base_commit=$(sed -n 's/^commit //p' "$BASE/info" 2> /dev/null)
{
  echo "# bench/ab_cuda.sh: base ${base_commit:-?} ($BASE) against this tree ($NEW), same GPU, interleaved"
  echo
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1)"
  echo "- $ROUNDS rounds of base, new; each one process: peer_gnnc --forward F --warmup W --steps S (peers.sh's counts, more on the small graphs)"
  echo "- out diff: max |new - base| / max |base| of one inference forward's output"
  echo
  echo "| workload | forward base ms | forward new ms | new / base | train step base ms | train step new ms | new / base | out diff |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$OUTMD"
printf 'workload\tside\tround\tforward_ms\ttrain_ms\n' > "$OUTTSV"
rc=0
med() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for w in $WL; do
  IFS='|' read -r name gnn graph spec set counts <<< "$(grep "^$w|" <<< "$table")"
  a=$BASE/$w-cuda.so b=$NEW/$w-cuda.so g=$GRAPHS/$graph.gcsr
  if [ -z "$name" ] || [ ! -f "$a" ] || [ ! -f "$b" ] || [ ! -s "$g" ]; then
    echo "| $w | (missing: $([ -f "$a" ] || echo "base library ")$([ -f "$b" ] || echo "new library ")$([ -s "$g" ] || echo graph)) | | | | | | |" >> "$OUTMD"
    rc=1
    continue
  fi
  IFS=/ read -r nf nw ns <<< "${counts:-20/3/10}"
  [ "$nf" -lt 20 ] && [ "$graph" != reddit ] && nf=20 ns=10 # short runs are noisy on the small graphs
  [ "$nf" -lt 5 ] && nf=5
  diff=nan
  rm -rf "$tmp/a" "$tmp/b" && mkdir -p "$tmp/a" "$tmp/b"
  if "$PEER_GNNC" "$a" --graph "$g" --dump "$tmp/a" > "$tmp/a.log" 2>&1 && "$PEER_GNNC" "$b" --graph "$g" --dump "$tmp/b" > "$tmp/b.log" 2>&1; then
    diff=$("$PY" -c 'import numpy as n, sys; a = n.fromfile(sys.argv[1], n.float32); b = n.fromfile(sys.argv[2], n.float32)
print("%.2e" % (abs(a - b).max() / max(abs(a).max(), 1e-30)) if a.shape == b.shape else "shape")' "$tmp/a/out.bin" "$tmp/b/out.bin" 2>&1)
  fi
  case $diff in [0-9]*) awk -v d="$diff" 'BEGIN { exit !(d <= 1e-4) }' || rc=1 ;; *) rc=1 ;; esac
  for r in $(seq 1 "$ROUNDS"); do
    for side in base new; do
      lib=$a
      [ $side = new ] && lib=$b
      out=$("$PEER_GNNC" "$lib" --graph "$g" --forward "$nf" --warmup "$nw" --steps "$((ns + 2))" 2>&1)
      printf '%s\t%s\t%s\t%s\t%s\n' "$w" $side "$r" "$(awk '$1 == "forward_ms" { print $2 }' <<< "$out")" \
        "$(awk '$1 == "train_ms" { print $2 }' <<< "$out")" >> "$OUTTSV"
      grep -q '^status ok' <<< "$out" || { rc=1; echo "ab: $w $side round $r: $(tail -2 <<< "$out" | tr '\n' ' ')" >&2; }
    done
  done
  fa=$(awk -v w="$w" '$1 == w && $2 == "base" { print $4 }' "$OUTTSV" | med) fb=$(awk -v w="$w" '$1 == w && $2 == "new" { print $4 }' "$OUTTSV" | med)
  ta=$(awk -v w="$w" '$1 == w && $2 == "base" { print $5 }' "$OUTTSV" | med) tb=$(awk -v w="$w" '$1 == w && $2 == "new" { print $5 }' "$OUTTSV" | med)
  ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (x + 0 > 0 && y != "nan") printf "%.3f", y / x; else print "-" }'; }
  echo "| $w | $fa | $fb | $(ratio "$fa" "$fb") | $ta | $tb | $(ratio "$ta" "$tb") | $diff |" >> "$OUTMD"
  echo "ab: $w: forward $fa -> $fb ms, step $ta -> $tb ms, out diff $diff ($((SECONDS - T0)) s)"
done
echo >> "$OUTMD"
echo "Run time $((SECONDS - T0)) s." >> "$OUTMD"
cat "$OUTMD"
exit $rc
