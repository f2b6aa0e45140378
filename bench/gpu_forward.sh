#!/usr/bin/env bash
# bench/gpu_forward.sh [GNNC] -- issue 3 on a GPU: forward speed of the CUDA target on PubMed,
# and the achieved bytes per second as a fraction of a measured device-to-device copy.
#
# The rows of bench/host_forward.sh (2-layer GAT and GCN on PubMed, 500 generated input
# features, inference-only, each thread mapping), built with --target=cuda for the GPU in hand
# (--arch=sm_NN from nvidia-smi's compute capability) and run by gnn-run: median wall time per
# forward (each followed by a stream synchronisation, so launch overheads count), memory plan
# and peak device bytes, the cost model's FLOPs and bytes, GFLOP/s and GB/s, and GB/s as a
# fraction of build/bench/d2d_copy's bandwidth (bench/d2d_copy.cu: a 512 MiB cudaMemcpy
# device to device, read + write bytes), measured in the same run.
# Writes bench/results/gpu_forward-DATE-GPU-COMMIT.txt.
#
# BENCH_TARGET=host runs the same script with host libraries and no copy measurement (the
# fraction column reads n/a): make test uses it, on a small graph, to check the script itself on
# a machine without a GPU (tests/suites/bench.sh); OUT then names the results file.
#
# Environment: REPEAT (timed forwards, default 50), WARMUP (default 5), GNN_RUN
# (build/bin/gnn-run), D2D (build/bench/d2d_copy), PUBMED (data/pubmed), BENCH_TARGET, OUT,
# GPU_ARCH (sm_NN; default from nvidia-smi). GNN_BUILD_ONLY=1 builds the CUDA libraries for
# GPU_ARCH (default sm_90) and stops: make gpu-check-prepare fills gnnc's CUDA object cache so.
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
RUN=${GNN_RUN:-build/bin/gnn-run}
D2D=${D2D:-build/bench/d2d_copy}
REPEAT=${REPEAT:-50}
WARMUP=${WARMUP:-5}
GRAPH=${PUBMED:-data/pubmed}
TARGET=${BENCH_TARGET:-cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build_lib MODEL MAPPING LIB: the row's library (an inference-only forward)
build_lib() {
  # shellcheck disable=SC2086 # archflag is empty or one word
  "$GNNC" "bench/${1}_pubmed.gnn" --target="$TARGET" $archflag -fno-autodiff --mapping="$2" -o "$3"
}

case $TARGET in
  cuda)
    if [ "${GNN_BUILD_ONLY:-0}" = 1 ]; then
      archflag=--arch=${GPU_ARCH:-sm_90}
      for m in gat gcn; do for map in vertex edge; do build_lib $m $map "$tmp/lib$m-$map.so" || exit 1; done; done
      echo "gpu_forward: GNN_BUILD_ONLY=1: the 4 CUDA libraries built ($archflag), nothing run"
      exit 0
    fi
    if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
      echo "gpu_forward: no GPU here (nvidia-smi -L fails); BENCH_TARGET=host checks the script without one" >&2
      exit 1
    fi
    gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
    archflag=--arch=${GPU_ARCH:-sm_$cc}
    "$D2D" > "$tmp/d2d.txt"
    d2d=$(sed -n 's/.* \([0-9.]*\) GB\/s (read + write)$/\1/p' "$tmp/d2d.txt")
    [ -n "$d2d" ] || { echo "gpu_forward: cannot read $D2D's output:" >&2; cat "$tmp/d2d.txt" >&2; exit 1; }
    words="target cuda ($archflag, cuBLAS); gpu: $gpu"
    out=${OUT:-bench/results/gpu_forward-$(date +%Y-%m-%d)-$(echo "${gpu%%,*}" | tr ' ' '-')-$(git rev-parse --short HEAD 2> /dev/null || echo unknown).txt}
    ;;
  host)
    archflag=
    d2d=
    words="target host (BENCH_TARGET=host: a check of the script, no GPU, no copy measurement)"
    out=${OUT:?BENCH_TARGET=host wants OUT, the results file}
    ;;
  *)
    echo "gpu_forward: BENCH_TARGET=$TARGET: want cuda or host" >&2
    exit 2
    ;;
esac
mkdir -p "$(dirname "$out")"

t_start=$(date +%s)
{
  bench_header "gpu_forward: 2-layer GAT and GCN forward on PubMed, $TARGET target (bench/gpu_forward.sh)" "$words"
  echo "# per row: gnnc MODEL --target=$TARGET${archflag:+ $archflag} -fno-autodiff --mapping=M -o lib.so"
  echo "#          gnn-run lib.so --graph $GRAPH --repeat $REPEAT --warmup $WARMUP   (inputs: 500 seeded features, seed 1)"
  if [ -n "$d2d" ]; then
    echo "# $(cat "$tmp/d2d.txt")"
  fi
  echo "# ms: median wall time per forward, stream synchronised (fastest in brackets); plan: the model's memory"
  echo "# plan; peak: gnn-run's peak allocated (plan + graph + inputs); GFLOP, GB: cost model (unfused, docs/ir.md),"
  echo "# the same for both mappings; GFLOP/s = GFLOP / median, GB/s = GB / median; of-d2d: GB/s / copy GB/s."
  echo
  printf '%-10s %-7s %9s %9s %9s %9s %8s %8s %8s %7s %7s\n' \
    model mapping "ms" "(fastest)" "plan MiB" "peak MiB" GFLOP GB GFLOP/s GB/s of-d2d
  for m in gat gcn; do
    src=bench/${m}_pubmed.gnn
    for map in vertex edge; do
      lib=$tmp/lib${m}-$map.so
      if ! build_lib $m $map "$lib" 2> "$tmp/cc.err"; then
        echo "FAILED: $GNNC $src --target=$TARGET${archflag:+ $archflag} -fno-autodiff --mapping=$map -o $lib"
        cat "$tmp/cc.err"
        continue
      fi
      sed 's/^/# gnnc: /' "$tmp/cc.err" >> "$tmp/notes"
      if ! "$RUN" "$lib" --graph "$GRAPH" --repeat "$REPEAT" --warmup "$WARMUP" > "$tmp/run.txt" 2>&1; then
        echo "FAILED: $RUN $lib --graph $GRAPH --repeat $REPEAT --warmup $WARMUP"
        cat "$tmp/run.txt"
        continue
      fi
      gnn_run_parse "$tmp/run.txt"
      cost_model "$GNNC" "$src" "$R_V" "$R_E"
      awk -v m="$m" -v map="$map" -v ms="$R_MS" -v fast="$R_FAST" -v plan="$R_PLAN" -v peak="$R_PEAK" \
        -v fl="$C_FLOPS" -v by="$C_BYTES" -v d2d="$d2d" 'BEGIN {
          gbs = by / 1e9 / (ms / 1e3)
          frac = d2d == "" ? "n/a" : sprintf("%.3f", gbs / d2d)
          printf "%-10s %-7s %9.3f %9s %9.2f %9.2f %8.3f %8.3f %8.2f %7.2f %7s\n", m, map, ms, "(" sprintf("%.3f", fast) ")",
            plan, peak, fl / 1e9, by / 1e9, fl / 1e9 / (ms / 1e3), gbs, frac }'
    done
  done
  echo
  [ -s "$tmp/notes" ] && sort -u "$tmp/notes"
  echo "# graph as loaded: ${R_V:-?} vertices, ${R_E:-?} edges. Run time of this script: $(($(date +%s) - t_start)) s."
} | tee "$out"
! grep -q '^FAILED' "$out"
