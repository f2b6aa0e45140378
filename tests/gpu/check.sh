#!/usr/bin/env bash
# tests/gpu/check.sh [--prepare] -- make gpu-check: every GPU check in one command, from a tree
# built elsewhere; make gpu-check-prepare: build, here, all that it needs (docs/gpu.md).
#
# A GPU is lent for minutes, on a machine with the CUDA toolkit, gcc, make and a python3 with
# numpy, torch and torch_geometric, but no flex, bison, clang or valgrind and no package registry.
# So the work splits in two:
#
#   --prepare (on the machine without a GPU, after make builds everything): runs the same steps
#     with GNNC_CUDA_CACHE=build/cuda-cache, so every CUDA object the checks will build is
#     compiled here by nvcc (compiler/build_run.c keys them by content, never by path); the GPU steps
#     themselves fail here and are ignored. Then packs build/gpu-kit.tar.gz: gnnc, the runtimes,
#     the drivers and test programs, the object cache, the host libraries the host runtime links
#     (OpenBLAS and its Fortran runtime, which the GPU machine lacks) and the commit it came from.
#   (no option, on the GPU machine): unpacks the kit when build/gnnc is absent, then runs, ordered
#     by value, each under its own time limit: a smoke run (GAT on Cora), the GPU suites in
#     parallel (codegen, fuse, train, lang with CUDA libraries against the float64 interpreter;
#     codegen: the codegen_* suites, tests/codegen/lib.sh;
#     the runtime's GPU tests; the Python package with CUDA tensors against CPU ones),
#     bench/gpu_forward.sh, bench/peers.sh with PEERS_TARGET=cuda (the default set and both
#     Reddit-sized rows, PyG beside gnnc), and a per-kernel profile (GNN_PROFILE=1) of the
#     Reddit-sized GCN and GAT. Nothing runs nvcc's compile where the kit has the object.
#
# Results: bench/results/gpu-check-DATE-GPU-COMMIT/, eight small files at most (what the device
# tool brings back): summary.txt (date, GPU, driver, CUDA, torch, PyG and commit at its top, one
# line per step), logs.txt (every FAIL and SKIP line, each suite's count), logs-full.tar.gz,
# gpu_forward.txt, ab.md, peers.md and peers.tsv, profile.txt; copied to $OUT too when it is set.
#
# The ab step (when the kit has build/ab-base, the peers' CUDA libraries of an earlier commit, with
# an info file naming it): bench/ab_cuda.sh, the base's libraries against this tree's on the same
# GPU, interleaved, and their outputs compared -- a change of schedules measured in the same run.
# The long suites run as several processes (TEST_SHARD, tests/run.sh): codegen as
# GPU_CHECK_CG_SHARDS [6], lang as 2.
# The last line: "gpu-check: N passed, N failed, N skipped (...)". Exit status 0 only when nothing
# failed; 2 when there is no GPU (nothing run) or the tree is not prepared.
#
# Environment: GPU_CHECK_BUDGET seconds for everything [480], GPU_CHECK_STEPS the steps to run
# [smoke suites python runtime forward ab spmm pieces tiles spread vec peers profile], GPU_CHECK_SUITES [codegen fuse train lang],
# GPU_CHECK_AB the ab step's workloads [the Reddit-sized, power-law, PubMed and Cora GCN and GAT],
# GPU_CHECK_SPMM the spmm step's (--spmm=cusparse against without) [the Reddit-sized and power-law GCN],
# GPU_CHECK_PIECES the pieces step's (--split-hubs against without, this tree) [the power-law and
# Reddit-sized GCN and GAT, GAT PubMed, GCN Cora], GPU_CHECK_TILES the tiles step's (--tile-columns=64
# against without) [the Reddit-sized GCN and GAT], GPU_CHECK_SPREAD the spread step's (--dots=serial
# against without) [the Reddit-sized and power-law GAT], GPU_CHECK_VEC the vec step's (--vector-loads=4
# against without) [the Reddit-sized and power-law GCN and GAT], GPU_CHECK_VEC_CAP its time [90 s],
# GPU_CHECK_ARCH [sm_90: H100 and H200],
# PEERS_WORKLOADS for the peers step [both Reddit-sized rows, then the default set], PY [a python3
# with numpy and torch], GNNC_CUDA_CACHE [build/cuda-cache].
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
MODE=check
case "${1:-}" in
  --prepare) MODE=prepare ;;
  "") ;;
  *) echo "usage: tests/gpu/check.sh [--prepare]" >&2; exit 2 ;;
esac
KIT=build/gpu-kit.tar.gz
export GNNC_CUDA_CACHE=${GNNC_CUDA_CACHE:-$ROOT/build/cuda-cache}
BUDGET=${GPU_CHECK_BUDGET:-480}
[ $MODE = prepare ] && BUDGET=${GPU_CHECK_BUDGET:-7200} # nvcc on 2 cores: about 10 s a library
STEPS=${GPU_CHECK_STEPS:-smoke suites python runtime forward ab spmm pieces tiles spread vec peers profile}
ARCH=${GPU_CHECK_ARCH:-sm_90}
SUITES=${GPU_CHECK_SUITES:-codegen fuse train lang}
T0=$SECONDS
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
left() { echo $((BUDGET - (SECONDS - T0))); }
# The cut on building a step's libraries: 120 s on the GPU machine (its cores, the cache's hits);
# prepare, on two cores and compiling each library with nvcc, takes what the budget leaves (six
# workloads twice, the pieces step's, ran past 120 s there and went uncached)
build_cut() { if [ $MODE = prepare ]; then echo $(( $(left) > 180 ? $(left) - 60 : 120 )); else echo 120; fi; }
say() { echo "gpu-check: $*"; }

# ---------------------------------------------------------------- the tree: built here or carried
if [ $MODE = check ] && [ ! -x build/gnnc ] && [ -f $KIT ]; then
  say "unpacking $KIT"
  tar xzf $KIT || { say "cannot unpack $KIT"; exit 2; }
fi
need=(build/gnnc build/lib/libgnnrt.so build/lib/libgnnrt_host.so build/bin/gnn-run build/bin/gnn-train build/bin/gnn-compare
      build/rt/t_api_cuda build/rt/t_csr_cuda build/rt/t_nvrtc build/rt/t_setgraph_cuda build/bench/gen_graph build/bench/peer_gnnc build/bench/gen_pointcloud
      build/bench/d2d_copy)
for f in "${need[@]}"; do
  if [ ! -x "$f" ] && [ ! -f "$f" ]; then
    if [ $MODE = prepare ]; then say "$f is missing (make gpu-check-prepare builds it)"
    else say "$f is missing: on a machine with the build tools run 'make gpu-check-prepare' and carry $KIT here (docs/gpu.md)"; fi
    exit 2
  fi
done
# the CUDA toolkit's bin (nvcc links the libraries, and answers its release for the cache key)
command -v nvcc > /dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH; }
command -v nvcc > /dev/null || { say "nvcc is not on PATH (nor in /usr/local/cuda/bin): the CUDA libraries cannot be linked"; exit 2; }
# the host libraries the kit brings, where this machine lacks them (LIBRARY_PATH: -lopenblas when
# gnnc links a host library)
if [ -d build/hostlibs ] && ldd build/lib/libgnnrt_host.so 2>/dev/null | grep -q 'not found'; then
  export LD_LIBRARY_PATH=$ROOT/build/hostlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LIBRARY_PATH=$ROOT/build/hostlibs${LIBRARY_PATH:+:$LIBRARY_PATH}
fi
# the python: numpy (the numeric comparisons) and, for the python and peers steps, torch
if [ -z "${PY:-}" ]; then
  PY=python3
  /usr/bin/python3 -c 'import numpy' > /dev/null 2>&1 && ! python3 -c 'import numpy' > /dev/null 2>&1 && PY=/usr/bin/python3
fi
export PY ALLOW_SKIP=1

# ---------------------------------------------------------------- prepare: fill the cache, pack
has_gpu=0
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && has_gpu=1
if [ $MODE = check ] && [ $has_gpu = 0 ]; then
  say "no GPU here (nvidia-smi -L fails): nothing run. On a machine without a GPU, 'make gpu-check-prepare' builds what a GPU machine needs (docs/gpu.md)"
  exit 2
fi
WORK=build/gpu-check
rm -rf "$WORK" && mkdir -p "$WORK/logs" "$WORK/py"
# this run's lines of the cache's log start after the ones there now (the kit brings prepare's)
log_from=$(( $(cat "$GNNC_CUDA_CACHE/log" 2> /dev/null | wc -l) + 1 ))

if [ $MODE = prepare ]; then
  mkdir -p "$GNNC_CUDA_CACHE"
  : > "$GNNC_CUDA_CACHE/log"
  export GNN_BUILD_ONLY=1 # the benchmark scripts build their libraries and stop
fi

# ---------------------------------------------------------------- the results
commit=$( (git rev-parse --short HEAD 2> /dev/null && { git diff --quiet HEAD 2> /dev/null || echo "+changes"; }) | tr -d '\n')
if [ $MODE = check ] && [ -f build/gpu-kit-info ]; then commit=$(sed -n 's/^commit //p' build/gpu-kit-info); fi
commit=${commit:-unknown}
if [ $has_gpu = 1 ]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  gpuinfo=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
else
  gpu=none gpuinfo="none (prepare)"
fi
RES=bench/results/gpu-check-$(date -u +%Y-%m-%d)-$(echo "$gpu" | tr -c 'A-Za-z0-9.\n-' '-' | sed 's/-*$//')-${commit%%+*}
[ $MODE = prepare ] && RES=$WORK/results
rm -rf "$RES" && mkdir -p "$RES"
SUM=$RES/summary.txt
{
  echo "# make gpu-check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit$([ -f build/gpu-kit-info ] && echo " ($(sed -n 's/^prepared //p' build/gpu-kit-info))")"
  echo "- GPU: $gpuinfo"
  echo "- CUDA: $(nvcc --version | grep -o 'release [0-9.]*' | head -1); driver's CUDA: $(nvidia-smi 2> /dev/null | grep -o 'CUDA Version: [0-9.]*' | head -1)"
  echo "- python: $($PY -c 'import sys; print(sys.version.split()[0])' 2>&1), torch $($PY -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2> /dev/null || echo none), torch_geometric $($PY -c 'import torch_geometric; print(torch_geometric.__version__)' 2> /dev/null || echo none)"
  echo "- host: $(nproc) cores; tools missing here: $(for t in clang flex bison valgrind; do command -v $t > /dev/null || printf '%s ' $t; done)"
  echo "- budget $BUDGET s; steps: $STEPS"
  echo
} > "$SUM"
np=0 nf=0 ns=0
# step NAME RC DETAIL: one line of the summary and the counts
step() {
  local name=$1 rc=$2 detail=$3 word=ok
  [ "$rc" = 0 ] || word=FAILED
  [ "$rc" = skip ] && word=skipped
  printf '%-10s %-8s %5d s  %s\n' "$name" "$word" $((SECONDS - T0)) "$detail" | tee -a "$SUM"
}
# counts SUMMARY_LINE: adds "N passed, N failed[, N skipped]" to the totals
counts() {
  local p f s
  read -r p f s <<< "$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p' <<< "$1" | tail -1)"
  np=$((np + ${p:-0})) nf=$((nf + ${f:-1})) ns=$((ns + ${s:-0}))
}

# the peers' graphs (the Reddit-sized one takes a minute or two on one core) made in the
# background while the suites run
# (the order: issue 29's targets first, since a run cut at the budget keeps the rows done)
wl=${PEERS_WORKLOADS:-gcn-reddit gat-reddit gcn-pl200k gat-pl200k gat-pubmed gcn-cora gat-cora gcn-pubmed monet-pubmed monet-cora edgeconv-k20-b32}
graphs_pid=
if { want peers || want ab; } && [ $MODE = check ]; then
  PEERS_TARGET=cuda PEERS_WORKLOADS="$wl" PEERS_WORK=build/bench/peers-gpu PEERS_GRAPHS_ONLY=1 PEERS_PYTHON=$PY \
    bash bench/peers.sh build/gnnc > "$WORK/logs/peers-graphs.log" 2>&1 &
  graphs_pid=$!
fi

# ---------------------------------------------------------------- 1. smoke: the main job on the GPU
if want smoke; then
  out=$(timeout 120 build/gnnc dsl-examples/gat.gnn --target=cuda --arch=sm_80,sm_90 -o "$WORK/libgat-cuda.so" 2>&1 &&
        { [ $MODE = prepare ] || timeout 60 build/bin/gnn-run "$WORK/libgat-cuda.so" --graph data/cora 2>&1; })
  rc=$?
  printf '%s\n' "$out" > "$WORK/logs/smoke.log"
  [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
  step smoke $rc "$(grep -m1 -i 'forward\|error' <<< "$out" | cut -c1-120)"
fi

# ---------------------------------------------------------------- 2. the GPU suites, in parallel
# (each its own tests/run.sh; the interpreter's side runs on the CPU, so they overlap well)
if want suites; then
  lim=$(( $(left) < 330 ? $(left) - 30 : 300 ))
  # prepare compiles every library with nvcc on a machine of two cores: no 300 s cut there (a cut
  # suite leaves its later libraries for the GPU machine's nvcc)
  [ $MODE = prepare ] && lim=$(( $(left) - 60 ))
  declare -A env_of=([codegen]=CG_TARGET [fuse]=FZ_TARGET [train]=TR_TARGET [lang]=LANG_TARGET)
  # the step codegen is the codegen_* suites (tests/codegen/lib.sh), one after another in each of its
  # processes (tests/run.sh's SUITE=codegen; with TEST_SHARD, serially in one shell)
  # the long suites as several processes (tests/run.sh's TEST_SHARD; the first run's codegen took
  # over 300 s as one): the machine has 16 cores, the interpreter's side of each check is one
  declare -A shards_of=([codegen]=${GPU_CHECK_CG_SHARDS:-6} [lang]=2)
  [ $MODE = prepare ] && shards_of=() # two cores here: one process a suite
  suite_pids=()
  for s in $SUITES; do
    n=${shards_of[$s]:-1}
    for ((i = 0; i < n; i++)); do
      log=$WORK/logs/$s.log
      [ "$n" -gt 1 ] && log=$WORK/logs/$s-$i.log
      # (TEST_JOBS=1: the processes are these, not tests/run.sh's own)
      ( export "${env_of[$s]}"=cuda SUITE=$s VERBOSE=1 RT_BIN=build/rt OMP_NUM_THREADS=2 TEST_JOBS=1
        [ "$n" -gt 1 ] && export TEST_SHARD=$i/$n
        timeout --kill-after=10 $lim bash tests/run.sh build/gnnc > "$log" 2>&1 ) &
      suite_pids+=($!)
    done
  done
  wait "${suite_pids[@]}" # (not the peers' graphs, made in the background meanwhile)
  for s in $SUITES; do
    n=${shards_of[$s]:-1} p=0 f=0 k=0 line=
    for log in "$WORK/logs/$s.log" "$WORK/logs/$s"-[0-9]*.log; do
      [ -f "$log" ] || continue
      k=$((k + 1))
      l=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
      [ -n "$l" ] || l="0 passed, 1 failed"
      p=$((p + $(cut -d' ' -f1 <<< "$l"))) f=$((f + $(cut -d' ' -f3 <<< "$l")))
    done
    line="$p passed, $f failed"
    [ $k = "$n" ] || line="$p passed, $((f + 1)) failed"
    nfl=$(cat "$WORK/logs/$s.log" "$WORK/logs/$s"-[0-9]*.log 2> /dev/null | grep -c '^FAIL')
    cut=$(for log in "$WORK/logs/$s.log" "$WORK/logs/$s"-[0-9]*.log; do [ -f "$log" ] && ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$log" && echo x; done | wc -l)
    if [ $MODE = prepare ]; then # its GPU runs fail here; what counts is nvcc's (the cache's log)
      step "$s" 0 "libraries built ($line without a GPU)"
      continue
    fi
    counts "$line"
    step "$s" "$(grep -q ' 0 failed' <<< "$line" && echo 0 || echo 1)" "$line$([ "$n" -gt 1 ] && echo " ($n shards)"); $nfl FAIL lines$([ "$cut" -gt 0 ] && echo "; $cut cut at $lim s without a closing line")"
  done
fi

# ---------------------------------------------------------------- 3. the Python package with CUDA tensors
if want python; then
  ok=1
  for m in gcn gat; do
    for t in host cuda; do
      timeout 120 build/gnnc tests/python/models/$m.gnn --target=$t -o "$WORK/py/lib$m-$t.so" > "$WORK/logs/py-build-$m-$t.log" 2>&1 || ok=0
      # the mini-batch case's: the same model differentiating its input too
      timeout 120 build/gnnc tests/python/models/$m.gnn --target=$t --input-grads=all -o "$WORK/py/lib${m}_ig-$t.so" \
        > "$WORK/logs/py-build-${m}_ig-$t.log" 2>&1 || ok=0
    done
  done
  if [ $MODE = check ]; then
    out=$(PYTHONPATH=python timeout 120 "$PY" -W ignore tests/gpu/python_cuda.py "$WORK/py" data/cora 2>&1); rc=$?
    printf '%s\n' "$out" > "$WORK/logs/python.log"
    [ $ok = 1 ] || { rc=1; out+=$'\nFAIL build: a library did not build'; }
    p=$(grep -c '^ok ' <<< "$out") f=$(grep -c '^FAIL ' <<< "$out")
    [ $rc = 0 ] || [ "$f" -gt 0 ] || f=1
    np=$((np + p)) nf=$((nf + f))
    step python "$([ "$f" = 0 ] && echo 0 || echo 1)" "$p passed, $f failed (GnncModule on CUDA vs CPU)"
  else
    step python $([ $ok = 1 ] && echo 0 || echo 1) "libraries built"
  fi
fi

# ---------------------------------------------------------------- 4. the runtime's own GPU tests
if want runtime && [ $MODE = check ]; then
  for t in "build/rt/t_api_cuda" "build/rt/t_csr_cuda" "build/rt/t_nvrtc --gpu" "build/rt/t_setgraph_cuda"; do
    # shellcheck disable=SC2086
    out=$(timeout 120 $t 2>&1); rc=$?
    printf '%s\n' "$out" > "$WORK/logs/$(basename "${t%% *}").log"
    [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
    step "$(basename "${t%% *}")" $rc "$(tail -1 <<< "$out" | cut -c1-100)"
  done
fi

# ---------------------------------------------------------------- 5. forward speed against a copy's bandwidth
if want forward; then
  out=$(GPU_ARCH=$ARCH OUT="$RES/gpu_forward.txt" timeout $(( $(left) > 120 ? 120 : $(left) )) bash bench/gpu_forward.sh build/gnnc 2>&1); rc=$?
  [ $MODE = prepare ] || printf '%s\n' "$out" > "$WORK/logs/gpu_forward.log"
  [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
  step forward $rc "$(tail -1 <<< "$out" | cut -c1-100)"
fi

# ---------------------------------------------------------------- 6. this tree's schedules against a base's
# build/ab-base (prepare copies it into the kit when there): the peers' CUDA libraries of an earlier
# commit (its info file names it); bench/ab_cuda.sh runs both on the same GPU, interleaved
if want ab && [ -d build/ab-base ]; then
  abw=${GPU_CHECK_AB:-gcn-reddit gat-reddit gcn-pl200k gat-pl200k gat-pubmed gcn-cora gat-cora}
  out=$(PEERS_TARGET=cuda PEERS_ARCH=$ARCH PEERS_PYTHON=$PY PEERS_WORKLOADS="$abw" PEERS_WORK=build/bench/peers-gpu GNN_BUILD_ONLY=1 \
        PEERS_OUT="$WORK/ab-build.md" \
        timeout $(build_cut) bash bench/peers.sh build/gnnc 2>&1); rc=$?
  if [ $MODE = prepare ]; then
    step ab $rc "the new libraries built; base $(sed -n 's/^commit //p' build/ab-base/info 2> /dev/null)"
  else
    [ -n "$graphs_pid" ] && wait "$graphs_pid"
    graphs_pid=
    lim=$(( $(left) - 60 ))
    out=$(AB_WORKLOADS="$abw" PY=$PY timeout --kill-after=5 $(( lim > 30 ? lim : 30 )) bash bench/ab_cuda.sh build/ab-base build/bench/peers-gpu/lib \
          build/bench/peers-gpu/graphs "$RES/ab.md" 2>&1); rc=$?
    printf '%s\n' "$out" > "$WORK/logs/ab.log"
    mv "$RES/ab.tsv" "$WORK/logs/ab.tsv" 2> /dev/null # (every run, in logs-full: eight files come back)
    [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
    step ab $rc "$(grep '^ab: ' <<< "$out" | sed 's/^ab: //' | cut -d'(' -f1 | tr '\n' ';' | cut -c1-400)"
  fi
fi

# ---------------------------------------------------------------- 6b. schedules, each against without
# the peers' CUDA libraries of this tree built with a schedule's flag against the same without it, on
# the same GPU, interleaved (bench/ab_cuda.sh); each table goes after the ab step's in ab.md (eight
# files come back). pieces: gnnc --split-hubs (docs/kernel-ir.md, "Hub rows in pieces"), issue 29's
# lever 1; tiles: --tile-columns=64 ("Column tiles"), lever 2, on the Reddit-sized graph (the
# others' gathered rows are 64 columns or fewer: nothing to cut); spread: --dots=serial, the
# attention backward's per-head dots a lane per head as before (the table's "new" is the old form:
# base = the CUDA default, the dots spread over the lanes; docs/kernel-ir.md, "Reductions spread
# over lanes"); spmm: --spmm=cusparse, GCN's weighted sums and their gradients as cuSPARSE SpMM
# calls (lever 3; docs/kernel-ir.md, "SpMM steps"), first: PyG's cuSPARSE beat gnnc's walks there;
# vec: --vector-loads=4, the gathered rows read as float4 (lever 4; "Float4 loads"), under a cap of
# its own (GPU_CHECK_VEC_CAP, 90 s) so that the peers and profile steps after it keep their time.
# schedule_step NAME FLAG WORKLOADS [CAP: at most this many seconds for its A/B, 150]
schedule_step() {
  local name=$1 flag=$2 sw=$3 cap=${4:-150} out rc lim
  out=
  for flags in "" "$flag"; do
    out+=$(PEERS_TARGET=cuda PEERS_ARCH=$ARCH PEERS_PYTHON=$PY PEERS_WORKLOADS="$sw" PEERS_WORK=build/bench/peers-gpu GNN_BUILD_ONLY=1 \
          PEERS_GNNC_FLAGS="$flags" PEERS_LIBDIR=build/bench/peers-gpu/lib${flags:+-$name} PEERS_OUT="$WORK/$name-build.md" \
          timeout $(build_cut) bash bench/peers.sh build/gnnc 2>&1)
    rc=$?
    [ $rc = 0 ] || break
  done
  if [ $MODE = prepare ]; then
    step $name $rc "the libraries with and without $flag built"
  elif [ $rc != 0 ]; then
    nf=$((nf + 1))
    step $name $rc "building the libraries failed: $(tail -1 <<< "$out" | cut -c1-100)"
  else
    [ -n "$graphs_pid" ] && wait "$graphs_pid"
    graphs_pid=
    lim=$(( $(left) - 150 ))
    [ $lim -gt $cap ] && lim=$cap
    if [ $lim -lt 30 ]; then
      ns=$((ns + 1)); step $name skip "no time left (budget $BUDGET s)"
    else
      echo "commit $commit, gnnc without $flag" > build/bench/peers-gpu/lib/info
      out=$(AB_WORKLOADS="$sw" PY=$PY timeout --kill-after=5 $lim bash bench/ab_cuda.sh build/bench/peers-gpu/lib \
            build/bench/peers-gpu/lib-$name build/bench/peers-gpu/graphs "$WORK/$name.md" 2>&1); rc=$?
      printf '%s\n' "$out" > "$WORK/logs/$name.log"
      mv "$WORK/$name.tsv" "$WORK/logs/$name.tsv" 2> /dev/null
      { [ -f "$RES/ab.md" ] && echo; echo "# $flag (new) against without (base), this tree"; cat "$WORK/$name.md"; } >> "$RES/ab.md" 2> /dev/null
      [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
      step $name $rc "$([ $rc = 124 ] && echo "cut at $lim s; ")$(grep '^ab: ' <<< "$out" | sed 's/^ab: //' | cut -d'(' -f1 | tr '\n' ';' | cut -c1-400)"
    fi
  fi
}
want spmm && schedule_step spmm --spmm=cusparse "${GPU_CHECK_SPMM:-gcn-reddit gcn-pl200k}"
want pieces && schedule_step pieces --split-hubs "${GPU_CHECK_PIECES:-gcn-pl200k gat-pl200k gcn-reddit gat-reddit gat-pubmed gcn-cora}"
want tiles && schedule_step tiles --tile-columns=64 "${GPU_CHECK_TILES:-gcn-reddit gat-reddit}"
want spread && schedule_step spread --dots=serial "${GPU_CHECK_SPREAD:-gat-reddit gat-pl200k}"
want vec && schedule_step vec --vector-loads=4 "${GPU_CHECK_VEC:-gcn-reddit gat-reddit gcn-pl200k gat-pl200k}" "${GPU_CHECK_VEC_CAP:-90}"

# ---------------------------------------------------------------- 7. gnnc vs PyG on the same GPU
if want peers; then
  [ -n "$graphs_pid" ] && wait "$graphs_pid"
  lim=$(( $(left) - 60 ))
  [ $MODE = prepare ] && lim=1800
  if [ $lim -lt 60 ]; then
    ns=$((ns + 1)); step peers skip "no time left (budget $BUDGET s)"
  else
    out=$(PEERS_TARGET=cuda PEERS_ARCH=$ARCH PEERS_PYTHON=$PY PEERS_WORKLOADS="$wl" PEERS_THREADS=8 PEERS_PLOTS=0 \
          PEERS_TIMEOUT=$(( lim / 3 )) PEERS_MEM_GB=120 PEERS_WORK=build/bench/peers-gpu PEERS_OUT="$RES/peers.md" \
          timeout --kill-after=10 $lim bash bench/peers.sh build/gnnc 2>&1); rc=$?
    printf '%s\n' "$out" > "$WORK/logs/peers.log"
    [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
    step peers $rc "$([ $rc = 124 ] && echo "cut at $lim s: the rows done are in peers.tsv; ")$(tail -1 <<< "$out" | cut -c1-100)"
  fi
fi

# ---------------------------------------------------------------- 8. where the time goes on the big graphs
if want profile && [ $MODE = check ]; then
  for w in gcn-reddit gat-reddit; do
    lib=build/bench/peers-gpu/lib/$w-cuda.so g=build/bench/peers-gpu/graphs/reddit.gcsr
    if [ -f "$lib" ] && [ -f "$g" ] && [ "$(left)" -gt 30 ]; then
      out=$(GNN_PROFILE=1 timeout $(( $(left) - 10 )) build/bench/peer_gnnc "$lib" --graph "$g" --forward 2 --warmup 1 --steps 3 2>&1); rc=$?
      { echo "==== $w: GNN_PROFILE=1 peer_gnnc --forward 2 --warmup 1 --steps 3"; printf '%s\n' "$out"; } >> "$RES/profile.txt"
      [ $rc = 0 ] && np=$((np + 1)) || nf=$((nf + 1))
      step "prof-${w%-reddit}" $rc "$(grep -m1 'gnn-profile' <<< "$out" | cut -c1-100)"
    else
      ns=$((ns + 1)); step "prof-${w%-reddit}" skip "$([ -f "$lib" ] && echo "no time left" || echo "no library (the peers step builds it)")"
    fi
  done
fi

# ---------------------------------------------------------------- the end
if [ $MODE = prepare ]; then
  hits=$(grep -c '^hit ' "$GNNC_CUDA_CACHE/log") miss=$(grep -cE '^miss(-printed)? ' "$GNNC_CUDA_CACHE/log")
  say "the CUDA object cache: $(ls "$GNNC_CUDA_CACHE"/*.o 2> /dev/null | wc -l) objects ($miss compiled now, $hits already there)"
  # (an object whose compile printed anything is not kept: its warnings must show again)
  if grep -q '^miss-printed ' "$GNNC_CUDA_CACHE/log"; then
    say "nvcc printed warnings for: $(awk '/^miss-printed / { print $3 }' "$GNNC_CUDA_CACHE/log" | sort -u | xargs): not kept, the GPU machine compiles them"
  fi
  if grep -q '^miss-failed ' "$GNNC_CUDA_CACHE/log"; then
    say "nvcc FAILED for: $(awk '/^miss-failed / { print $3 }' "$GNNC_CUDA_CACHE/log" | sort -u | xargs) (their logs: $WORK/logs/)"
    nf=$((nf + 1))
  fi
  # the host libraries the host runtime links that a GPU machine's image may lack
  rm -rf build/hostlibs && mkdir -p build/hostlibs
  ldd build/lib/libgnnrt_host.so | awk '/=> \// { print $3 }' | grep -E 'openblas|gfortran|quadmath' | while read -r l; do cp -L "$l" build/hostlibs/; done
  for l in build/hostlibs/libopenblas.so.*; do [ -f "$l" ] && ln -sf "$(basename "$l")" build/hostlibs/libopenblas.so; done
  { echo "commit $commit"; echo "prepared $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"; } > build/gpu-kit-info
  tar czf $KIT build/gnnc build/lib build/bin build/rt/t_api_cuda build/rt/t_csr_cuda build/rt/t_nvrtc build/rt/t_setgraph_cuda build/bench/gen_graph build/bench/peer_gnnc \
    build/bench/gen_pointcloud build/bench/d2d_copy build/hostlibs build/gpu-kit-info $([ -d build/ab-base ] && echo build/ab-base) \
    -C "$(dirname "$GNNC_CUDA_CACHE")" --transform "s|^$(basename "$GNNC_CUDA_CACHE")|build/cuda-cache|" \
    $(cd "$(dirname "$GNNC_CUDA_CACHE")" && c=$(basename "$GNNC_CUDA_CACHE") &&
      { echo "$c/log"; awk '$1 == "hit" || $1 == "miss" { print $2 }' "$c/log" | sort -u |
        while read -r key; do [ -f "$c/$key.o" ] && echo "$c/$key.o"; done; }) ||
    { say "cannot write $KIT"; exit 1; }
  # (only the objects this prepare asked for: the cache here keeps every earlier commit's too)
  say "$KIT: $(du -h $KIT | cut -f1) (commit $commit). Carry it to the GPU machine beside the sources and run 'make gpu-check' there (docs/gpu.md)"
  [ $nf = 0 ]
  exit
fi
if [ -f "$GNNC_CUDA_CACHE/log" ]; then
  tail -n +"$log_from" "$GNNC_CUDA_CACHE/log" > "$WORK/logs/cuda-cache.log"
  say "nvcc compiles avoided (GNNC_CUDA_CACHE hits): $(grep -c '^hit ' "$WORK/logs/cuda-cache.log"), run here (misses):" \
    "$(grep -c '^miss' "$WORK/logs/cuda-cache.log")" | tee -a "$SUM"
fi
# the logs, small: every FAIL and SKIP line in full, the rest as the suites' closing lines
{
  for f in "$WORK"/logs/*.log; do
    echo "==== $(basename "$f")"
    grep -E '^(FAIL|SKIP)|passed, [0-9]+ failed|^ok |^suite ' "$f" | cut -c1-2000
  done
} > "$RES/logs.txt"
tar czf "$RES/logs-full.tar.gz" -C "$WORK" logs 2> /dev/null
total="$np passed, $nf failed, $ns skipped"
echo | tee -a "$SUM"
say "$total ($((SECONDS - T0)) s); results in $RES" | tee -a "$SUM"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then cp "$RES"/* "$OUT"/ 2> /dev/null; fi
[ $nf = 0 ]
