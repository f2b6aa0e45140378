#!/usr/bin/env bash
# tests/gpu/run.sh GNNC -- make test-gpu: on a machine with an NVIDIA GPU, the generated CUDA
# libraries against the float64 interpreter (the codegen suite with CG_TARGET=cuda: every
# example, both mappings, the generated graphs and PubMed; forward, and backward in training
# mode; every kernel fused, as the default build), the fused libraries against -fno-fuse ones
# (the fuse suite with FZ_TARGET=cuda), GCN and GAT trained on Cora (the train suite with TR_TARGET=cuda), then the runtime's own GPU tests
# (t_api_cuda, t_nvrtc --gpu). The log goes to bench/results/gpu-test-DATE-GPU-COMMIT.txt,
# with the date, the GPU (nvidia-smi) and the commit at its top. Exit status non-zero on any
# failure; ends with "N passed, N failed" like make test.
set -u
GNNC=${1:-build/gnnc}
cd "$(dirname "$0")/../.."
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test-gpu: no GPU here (nvidia-smi -L fails): nothing run"
  echo "0 passed, 1 failed"
  exit 1
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p bench/results
log=bench/results/gpu-test-$(date +%Y-%m-%d)-$gpu-$commit.txt
{
  echo "# make test-gpu, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  np=0 nf=0
  out=$(CG_TARGET=cuda SUITE=codegen VERBOSE=1 bash tests/run.sh "$GNNC" 2>&1)
  printf '%s\n' "$out"
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  set -- $line
  np=$((np + ${1:-0})) nf=$((nf + ${3:-1}))
  # the fused CUDA libraries against the unfused ones (tests/suites/fuse.sh, fuse/same)
  out=$(FZ_TARGET=cuda SUITE=fuse VERBOSE=1 bash tests/run.sh "$GNNC" 2>&1)
  printf '%s\n' "$out"
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  set -- $line
  np=$((np + ${1:-0})) nf=$((nf + ${3:-1}))
  # training on the GPU: GCN and GAT on Cora reach the host's bars (tests/suites/train.sh)
  out=$(TR_TARGET=cuda SUITE=train VERBOSE=1 bash tests/run.sh "$GNNC" 2>&1)
  printf '%s\n' "$out"
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  set -- $line
  np=$((np + ${1:-0})) nf=$((nf + ${3:-1}))
  for t in "${RT_BIN:-build/rt}/t_api_cuda" "${RT_BIN:-build/rt}/t_nvrtc --gpu"; do
    if [ ! -x "${t%% *}" ]; then nf=$((nf + 1)); echo "FAIL $t: not built (make test-gpu builds it)"; continue; fi
    if $t; then np=$((np + 1)); echo "PASS $t"; else nf=$((nf + 1)); echo "FAIL $t"; fi
  done
  echo "$np passed, $nf failed"
} 2>&1 | tee "$log"
tail -1 "$log" | grep -q ' 0 failed$'
