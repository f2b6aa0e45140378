# shellcheck shell=bash disable=SC2034 # the R_* and C_* variables are the callers'
# bench/bench_lib.sh -- shared by bench/host_forward.sh, bench/gpu_forward.sh and
# bench/reorg_ablation.sh (sourced).
#
#   bench_header TITLE [TARGET]  the results header: date, commit, CPU (model, family/model/stepping),
#                             its SIMD flags, target, load average (TARGET: the target's words;
#                             default the host target, no GPU)
#   bench_stamp FILE TITLE [TARGET]  bench_header's lines put above FILE (a program's own results file)
#   cpu_words, simd_words     the CPU's name and numbers; avx2 / fma / avx512* present or not
#   thread_env N              the environment a run with N threads gets (see below)
#   time_fwd_step N RUN LIB GRAPH REPEAT WARMUP OUTBASE   an inference forward and a training step (below)
#   gnn_run_parse FILE        reads gnn-run's output, sets R_V R_E R_MS R_FAST R_PLAN R_PEAK R_ABSSUM
#   cost_model GNNC MODEL V E [FLAGS...]   sets C_FLOPS C_BYTES C_PEAKLIVE (the last pass's line)
#
# Threads: N = 1 runs OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; N > 1 runs OMP_NUM_THREADS=N
# OPENBLAS_NUM_THREADS=N OMP_WAIT_POLICY=passive. The passive wait policy keeps libgomp's and
# OpenBLAS's idle threads from spinning against each other (and against other processes) on a
# machine with few cores: on the 2-core benchmark machine, with the default (active) policy,
# 2 threads were 1.7-4x slower than 1 whenever another process was busy (docs/benchmarks.md).

thread_env() {
  if [ "$1" = 1 ]; then
    echo "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1"
  else
    echo "OMP_NUM_THREADS=$1 OPENBLAS_NUM_THREADS=$1 OMP_WAIT_POLICY=passive"
  fi
}

# cpu_words: the CPU's model name with its family / model / stepping (a KVM guest's model name can
# be as short as "AMD EPYC": the numbers say which generation), e.g.
# "AMD EPYC (family 25, model 1, stepping 1)"
cpu_words() {
  local name fam mod step
  name=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1)
  [ -n "$name" ] || name=$(lscpu 2> /dev/null | sed -n 's/^Model name: *//p' | head -1)
  fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1)
  mod=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1)
  step=$(sed -n 's/^stepping[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1)
  echo "${name:-unknown CPU}${fam:+ (family $fam, model ${mod:-?}, stepping ${step:-?})}"
}

# simd_words [FLAGS]: which of the vector extensions the generated host code and OpenBLAS can use
# are present (from /proc/cpuinfo's flags, or FLAGS), e.g. "avx2 yes, fma yes, avx512f no,
# avx512vl no, avx512bw no" (the host code generator's AVX-512 loops run only where avx512f is)
simd_words() {
  local flags=${1-$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1)} out= f
  for f in avx2 fma avx512f avx512vl avx512bw; do
    if [[ " $flags " == *" $f "* ]]; then out+="${out:+, }$f yes"; else out+="${out:+, }$f no"; fi
  done
  echo "$out"
}

bench_header() {
  echo "# $1"
  echo "# date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# commit:  $(git rev-parse --short HEAD 2> /dev/null || echo unknown)$(git diff --quiet HEAD -- compiler runtime 2> /dev/null || echo ' (compiler/runtime modified)')"
  echo "# cpu:     $(cpu_words); $(nproc) CPUs online$(lscpu 2> /dev/null | sed -n 's/^Hypervisor vendor: *\(.*\)/, \1 guest/p'); ${2:-target host (C + OpenMP, OpenBLAS); no GPU}"
  echo "# simd:    $(simd_words)"
  echo "# load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min load average at the start: other processes share the cores)"
}

# bench_stamp FILE TITLE [TARGET]: puts bench_header's lines above a results file that a program
# wrote without them (build/bench/compile_time writes bench/results/compile_time.txt)
bench_stamp() {
  local tmp
  tmp=$(mktemp) || return 1
  { bench_header "$2" "${3:-}"; cat "$1"; } > "$tmp" && cat "$tmp" > "$1"
  rm -f "$tmp"
}

# time_fwd_step N RUN LIB GRAPH REPEAT WARMUP OUTBASE: one gnn-run with --backward (its training
# step's median appended to OUTBASE.step, its whole output in OUTBASE.txt) and one without (its
# inference forward's median appended to OUTBASE.fwd: --backward's forwards run with
# training = 1), with N threads. Exits the script, showing gnn-run's output, if either fails.
time_fwd_step() {
  local n=$1 run=$2 lib=$3 graph=$4 repeat=$5 warmup=$6 out=$7
  # shellcheck disable=SC2046 # the assignments are words
  env $(thread_env "$n") "$run" "$lib" --graph "$graph" --repeat "$repeat" --warmup "$warmup" --backward \
    > "$out.txt" 2>&1 || { cat "$out.txt" >&2; exit 1; }
  sed -n 's/^time per training step: \([0-9.]*\) ms.*/\1/p' "$out.txt" >> "$out.step"
  # shellcheck disable=SC2046
  env $(thread_env "$n") "$run" "$lib" --graph "$graph" --repeat "$repeat" --warmup "$warmup" \
    > "$out.inf" 2>&1 || { cat "$out.inf" >&2; exit 1; }
  sed -n 's/^time per forward: \([0-9.]*\) ms.*/\1/p' "$out.inf" >> "$out.fwd"
}

# gnn_run_parse FILE: the lines runtime/gnn_run.c prints.
gnn_run_parse() {
  R_V=$(sed -n 's/.*: \([0-9]*\) vertices, [0-9]* edges$/\1/p' "$1")
  R_E=$(sed -n 's/.* vertices, \([0-9]*\) edges$/\1/p' "$1")
  R_MS=$(sed -n 's/^time per forward: \([0-9.]*\) ms (median.*/\1/p' "$1")
  R_FAST=$(sed -n 's/^time per forward: .*fastest \([0-9.]*\) ms.*/\1/p' "$1")
  R_PLAN=$(sed -n 's/^memory: plan \([0-9.]*\) MiB.*/\1/p' "$1")
  R_PEAK=$(sed -n 's/^memory: .*peak allocated \([0-9.]*\) MiB$/\1/p' "$1")
  R_ABSSUM=$(sed -n 's/^checksum: .*abs-sum \([-0-9.e+]*\).*/\1/p' "$1")
  if [ -z "$R_MS" ] || [ -z "$R_PEAK" ] || [ -z "$R_V" ]; then
    echo "cannot read gnn-run's output ($1):" >&2
    cat "$1" >&2
    return 1
  fi
}

# cost_model GNNC MODEL V E [FLAGS...]: the static cost model after the last pass, inference only.
cost_model() {
  local gnnc=$1 model=$2 v=$3 e=$4 line
  shift 4
  line=$("$gnnc" "$model" -fno-autodiff "$@" --stats "V=$v,E=$e" | grep '^stats after' | tail -1) || true
  # "stats after P  flops X  bytes Y  peak-live Z  (x.. flops, x.. bytes vs before)": the first of each
  C_FLOPS=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "flops") { print $(i + 1); exit }}')
  C_BYTES=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "bytes") { print $(i + 1); exit }}')
  C_PEAKLIVE=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "peak-live") { print $(i + 1); exit }}')
  if [ -z "$C_FLOPS" ] || [ -z "$C_BYTES" ]; then
    echo "cannot read the cost model: $gnnc $model -fno-autodiff $* --stats V=$v,E=$e" >&2
    return 1
  fi
}
