#!/usr/bin/env bash
# tests/run.sh GNNC -- runs every test suite (tests/suites/*.sh) against the gnnc binary GNNC.
#
# Each suite is a bash file sourced here; it calls `pass NAME` / `fail NAME [detail]` (or the
# helpers below) once per test case. The run ends with the line "N passed, N failed" and exits
# non-zero if anything failed. SUITE=name runs one suite (SUITE="a b": several; SUITE=codegen: the
# codegen_* suites, the generated code's checks, tests/codegen/lib.sh); UPDATE=1 lets
# golden suites rewrite their expected files instead of comparing (review the diff before
# committing). SUITE_DIR names another folder of suites (the tests of this runner use it).
#
# A check that needs a tool the machine lacks (clang, valgrind) asks `need_tool NAME TOOL`: in
# make test that is a failure (make setup installs every tool), but with ALLOW_SKIP=1 (make
# gpu-check, on a GPU machine that has no clang and no registry) it prints "SKIP NAME: no TOOL",
# counts as skipped, not failed, and the closing line says "N passed, N failed, N skipped".
#
# PY, the python the suites run (NumPy; torch for the python suite): $PY if set, else Debian's
# /usr/bin/python3 where it has NumPy (make setup installs it there), else the python3 on PATH.
set -u
GNNC=${1:-build/gnnc}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
case "$GNNC" in /*) ;; *) GNNC="$ROOT/$GNNC" ;; esac
export GNNC ROOT
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export TMP
# RUN_SHARED: a folder of this run that every suite process shares (each has its own $TMP), for
# what one run computes once: the codegen_* suites' interpreter references (cg_interp), which their
# shards share.
# Always this run's own (removed with $TMP): nothing in it outlives the run.
RUN_SHARED=$TMP/shared
mkdir -p "$RUN_SHARED"
export RUN_SHARED
if [ -z "${PY:-}" ]; then
  PY=python3
  /usr/bin/python3 -c 'import numpy' > /dev/null 2>&1 && PY=/usr/bin/python3
fi
export PY
# The compile caches: gnnc's (GNNC_HOST_CACHE, GNNC_CUDA_CACHE: compiler/build_run.c) for the
# libraries the suites build, and cached_tool's (below) for their compile checks, in
# build/test-cache, shared by the suites' processes and kept from make test to make test-asan:
# gnnc and the sanitized gnnc emit the same sources, so the second run's compiles are the first's
# (and each codegen shard's libraries the other's). A key holds every input of its compile, so a
# hit stands for the same compile of the same bytes by the same compiler. Entries unused for a
# day are removed; TEST_CACHE= (empty) turns both off; a GNNC_*_CACHE already set is kept.
[ -n "${TEST_CACHE+set}" ] || TEST_CACHE=$ROOT/build/test-cache
if [ -n "$TEST_CACHE" ] && mkdir -p "$TEST_CACHE"; then
  TEST_CACHE=$(cd "$TEST_CACHE" && pwd) # the suites change folders
  find "$TEST_CACHE" -type f -mmin +1440 -delete 2> /dev/null
  for _run_log in "$TEST_CACHE"/*/log; do # gnnc's hit/miss logs: cut when past 1 MB
    [ -f "$_run_log" ] && [ "$(stat -c %s "$_run_log")" -gt 1000000 ] && : > "$_run_log"
  done
  export GNNC_HOST_CACHE=${GNNC_HOST_CACHE:-$TEST_CACHE/host} GNNC_CUDA_CACHE=${GNNC_CUDA_CACHE:-$TEST_CACHE/cuda}
fi
export TEST_CACHE
npass=0
nfail=0
nskip=0
pass() { npass=$((npass + 1)); [ -n "${VERBOSE:-}" ] && echo "PASS $1"; return 0; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1${2:+: $2}"; return 0; }
skip() { nskip=$((nskip + 1)); echo "SKIP $1${2:+: $2}"; return 0; }
# report_lines PREFIX RC OUTPUT: a pass or fail per "ok NAME" / "FAIL NAME: detail" line of a test
# program's output, and PREFIX/exit failed when it printed none or exited non-zero without saying why.
report_lines() {
  local prefix=$1 rc=$2 out=$3 line n=0
  while IFS= read -r line; do
    case $line in
      "ok "*) pass "$prefix/${line#ok }"; n=$((n + 1)) ;;
      "FAIL "*) line=${line#FAIL }; fail "$prefix/${line%%: *}" "${line#*: }"; n=$((n + 1)) ;;
    esac
  done <<< "$out"
  if [ "$n" -eq 0 ] || { [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' <<< "$out"; }; then
    fail "$prefix/exit" "exit $rc: $(tail -n 3 <<< "$out" | tr '\n' ' ')"
  fi
}
# cached_tool OUT TOOL ARG...: TOOL ARG... (a compile check run in the current folder, making the
# file OUT), printing its output and returning its status. With TEST_CACHE, a run that succeeds
# and prints nothing is stored under the hash of TOOL's --version (and g++'s, nvcc's host
# compiler), the words (a file by its name), the bytes of each file named (OUT aside) and of the .h beside
# a .c or .cu, and runtime/*.h: a later hit restores OUT, prints nothing and succeeds. A run that
# fails or warns runs again every time.
cached_tool() {
  local out=$1 key f log rc
  shift
  if [ -z "${TEST_CACHE:-}" ]; then
    "$@" 2>&1
    return
  fi
  key=$({
    "$1" --version 2>&1
    [ "$1" = nvcc ] && g++ --version 2>&1
    for f in "$@"; do # a file by its name alone: the suites' folders differ from run to run
      if [ -f "$f" ] || [ "$f" = "$out" ]; then printf '%s\n' "${f##*/}"; else printf '%s\n' "$f"; fi
    done
    for f in "$@"; do
      [ "$f" != "$out" ] && [ -f "$f" ] || continue
      cat -- "$f"
      case $f in *.c | *.cu) [ -f "${f%.*}.h" ] && cat -- "${f%.*}.h" ;; esac
    done
    cat "$ROOT"/runtime/*.h
  } | sha256sum | cut -c1-64)
  if [ -f "$TEST_CACHE/tools/$key" ] && cp "$TEST_CACHE/tools/$key" "$out"; then
    touch "$TEST_CACHE/tools/$key"
    return 0
  fi
  log=$("$@" 2>&1)
  rc=$?
  [ -n "$log" ] && printf '%s\n' "$log"
  if [ $rc -eq 0 ] && [ -z "$log" ] && [ -f "$out" ] && mkdir -p "$TEST_CACHE/tools"; then
    cp "$out" "$TEST_CACHE/tools/$key.$BASHPID" && mv "$TEST_CACHE/tools/$key.$BASHPID" "$TEST_CACHE/tools/$key"
  fi
  return $rc
}
# TEST_SHARD=I/N (make gpu-check runs the long GPU suites as N processes at once, I = 0 .. N-1):
# shard_take, called once per numeric check by the suites that support it (codegen_*, lang), is true
# for every N-th check from the I-th; shard_first is true in shard 0 only, for the checks that do
# not take a share (each runs once over the N processes). Without TEST_SHARD both are always true.
_shard_k=0
shard_take() {
  [ -n "${TEST_SHARD:-}" ] || return 0
  _shard_k=$((_shard_k + 1))
  [ $(((_shard_k - 1) % ${TEST_SHARD#*/})) -eq "${TEST_SHARD%/*}" ]
}
shard_first() { [ -z "${TEST_SHARD:-}" ] || [ "${TEST_SHARD%/*}" = 0 ]; }
# need_tool NAME TOOL: true if TOOL is on PATH; else a failure of NAME, or a skip under ALLOW_SKIP=1.
need_tool() {
  command -v "$2" > /dev/null 2>&1 && return 0
  if [ "${ALLOW_SKIP:-0}" = 1 ]; then skip "$1" "no $2"; else fail "$1" "$2 not installed (make setup installs it)"; fi
  return 1
}
# expect_same NAME EXPECTED_FILE ACTUAL_FILE: a golden comparison (UPDATE=1 rewrites EXPECTED).
expect_same() {
  if [ -n "${UPDATE:-}" ]; then cp "$3" "$2"; pass "$1"; return; fi
  if [ ! -f "$2" ]; then fail "$1" "missing expected file $2 (run with UPDATE=1)"; return; fi
  if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "differs from $2:"; diff -u "$2" "$3" | head -20; fi
}
# Progress: a line when a suite starts ("[3/16] suite fuse ...") and when it ends, with its time,
# so a newcomer sees where a several-minute run is.
_run_suites=()
for _run_suite in "${SUITE_DIR:-tests/suites}"/*.sh; do
  _run_name=$(basename "$_run_suite" .sh)
  if [ -n "${SUITE:-}" ]; then
    case " $SUITE " in
      *" $_run_name "*) ;;
      *" codegen "*) [[ $_run_name == codegen_* ]] || continue ;; # codegen: every codegen_* suite
      *) continue ;;
    esac
  fi
  _run_suites+=("$_run_suite")
done
if [ ${#_run_suites[@]} -eq 0 ]; then
  echo "run.sh: no suite named '${SUITE:-}' in ${SUITE_DIR:-tests/suites}"
  echo "0 passed, 1 failed"
  exit 1
fi
# TEST_JOBS=N (default: the machine's cores, at most 4) runs N suites at once, each in its own
# process and its own $TMP, its output shown whole when it ends: the long ones first, and the
# codegen_* suites (which support TEST_SHARD) as N shards each, so that make test on CI's 2 cores
# takes about half the time of one suite after another. TEST_JOBS=1, or TEST_SHARD set by the
# caller: one after another, in this shell, as before. A suite's nested tests/run.sh (the runner's
# own tests) runs serially. TEST_SHARDED names the suites run as shards (default the codegen_*
# suites; the runner's tests name theirs).
_run_cg_suites="codegen_build codegen_models codegen_paths codegen_layouts codegen_host"
if [ -z "${TEST_JOBS:-}" ]; then
  TEST_JOBS=$(nproc 2> /dev/null || echo 1)
  [ "$TEST_JOBS" -gt 4 ] && TEST_JOBS=4
fi
case $TEST_JOBS in '' | *[!0-9]* | 0) echo "run.sh: TEST_JOBS must be a whole number >= 1 (it is '$TEST_JOBS')"; echo "0 passed, 1 failed"; exit 1 ;; esac
[ -n "${TEST_SHARD:-}" ] && TEST_JOBS=1
_run_serial=
[ "$TEST_JOBS" -le 1 ] && _run_serial=1
# one suite: in parallel only when it is a sharded one
[ ${#_run_suites[@]} -eq 1 ] && [[ " ${TEST_SHARDED-$_run_cg_suites} " != *" $(basename "${_run_suites[0]}" .sh) "* ]] && _run_serial=1
if [ -n "$_run_serial" ]; then
  export TEST_JOBS=1 # (a nested tests/run.sh: serial too)
  _run_k=0
  for _run_suite in "${_run_suites[@]}"; do
    _run_name=$(basename "$_run_suite" .sh)
    _run_k=$((_run_k + 1))
    echo "[$_run_k/${#_run_suites[@]}] suite $_run_name ..."
    _run_p=$npass _run_f=$nfail _run_s=$nskip _run_t=$SECONDS
    # shellcheck disable=SC1090
    source "$_run_suite"
    _run_sk=
    [ $nskip -gt $_run_s ] && _run_sk=", $((nskip - _run_s)) skipped"
    echo "suite $_run_name: $((npass - _run_p)) passed, $((nfail - _run_f)) failed$_run_sk ($((SECONDS - _run_t)) s)"
  done
else
  # The work: one item per suite, "PATH SHARD" (SHARD "-", or I/N for a sharded suite), the long
  # suites first, longest first (by their times one after another on 2 cores), the rest by name.
  _run_sharded=" ${TEST_SHARDED-$_run_cg_suites} "
  _run_first="codegen_paths codegen_models codegen_layouts codegen_build train lang fuse cuda_emu checkpoint build runtime reliability fuzz python bench codegen_host embed gpukit interp cli grad"
  _run_items=()
  _run_add() { # PATH
    local name i
    name=$(basename "$1" .sh)
    if [[ $_run_sharded == *" $name "* ]]; then
      for ((i = 0; i < TEST_JOBS; i++)); do _run_items+=("$1 $i/$TEST_JOBS"); done
    else
      _run_items+=("$1 -")
    fi
  }
  for _run_name in $_run_first; do
    for _run_suite in "${_run_suites[@]}"; do
      [ "$(basename "$_run_suite" .sh)" = "$_run_name" ] && _run_add "$_run_suite"
    done
  done
  for _run_suite in "${_run_suites[@]}"; do
    [[ " $_run_first " == *" $(basename "$_run_suite" .sh) "* ]] && continue
    _run_add "$_run_suite"
  done
  # OpenMP threads that wait spinning take the core another suite needs (2 suites x 2 threads on
  # 2 cores): waiting threads sleep instead, unless the caller chose otherwise.
  export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
  _run_dir=$TMP/.jobs
  mkdir -p "$_run_dir"
  _run_pids=() _run_next=0 _run_done=0 _run_n=${#_run_items[@]}
  # _run_start K: item K in the background, in its own process: counters from zero, its own $TMP,
  # its output to a file; at the end its counts (pass fail skip seconds) to another.
  _run_start() {
    local item=${_run_items[$1]} path shard d
    path=${item% *} shard=${item##* }
    d=$_run_dir/$1
    mkdir -p "$d/tmp"
    echo "[$(($1 + 1))/$_run_n] suite $(basename "$path" .sh)$([ "$shard" != - ] && echo " (shard $shard)") ..."
    (
      # (the suites' globals are short names: d, p, t; this job's own stay out of their way)
      readonly _run_job_dir=$d _run_job_t0=$SECONDS
      npass=0 nfail=0 nskip=0 _shard_k=0
      TMP=$d/tmp TEST_JOBS=1
      export TMP TEST_JOBS
      [ "$shard" != - ] && export TEST_SHARD=$shard
      # shellcheck disable=SC1090
      source "$path"
      echo "$npass $nfail $nskip $((SECONDS - _run_job_t0))" > "$_run_job_dir/counts"
    ) > "$d/out" 2>&1 < /dev/null &
    _run_pids[$1]=$!
  }
  # _run_finish K: its output, its line, its counts added (a suite that ended without its counts
  # -- killed, or an exit of its own -- is a failure)
  _run_finish() {
    local item=${_run_items[$1]} d=$_run_dir/$1 name shard p f s t sk=
    wait "${_run_pids[$1]}"
    name=$(basename "${item% *}" .sh) shard=${item##* }
    [ "$shard" != - ] && name="$name (shard $shard)" shard=" (shard $shard)"
    cat "$d/out"
    if [ -f "$d/counts" ] && read -r p f s t < "$d/counts"; then
      npass=$((npass + p)) nfail=$((nfail + f)) nskip=$((nskip + s))
      [ "$s" -gt 0 ] && sk=", $s skipped"
      echo "suite $name: $p passed, $f failed$sk ($t s)"
    else
      fail "$(basename "${item% *}" .sh)/exit" "the suite${shard#-} ended before its last check"
    fi
  }
  # Interrupted (Ctrl-C, a CI timeout's TERM): the running suites and what they started stop too
  # (background jobs of a script ignore SIGINT)
  # (the parent first, so that it starts nothing more; then what it had started)
  _run_kill_tree() { local c cs; cs=$(pgrep -P "$1" 2> /dev/null); kill "$1" 2> /dev/null; for c in $cs; do _run_kill_tree "$c"; done; }
  _run_stop() { for _run_k in "${_run_live[@]}"; do _run_kill_tree "${_run_pids[$_run_k]}"; done; exit "$1"; }
  trap '_run_stop 130' INT
  trap '_run_stop 143' TERM
  trap '_run_stop 129' HUP
  _run_live=()
  while [ $_run_done -lt $_run_n ]; do
    while [ ${#_run_live[@]} -lt "$TEST_JOBS" ] && [ $_run_next -lt $_run_n ]; do
      _run_start $_run_next
      _run_live+=($_run_next)
      _run_next=$((_run_next + 1))
    done
    _run_waitfor=()
    for _run_k in "${_run_live[@]}"; do _run_waitfor+=("${_run_pids[$_run_k]}"); done
    wait -n "${_run_waitfor[@]}" 2> /dev/null # (one of them ended: which, kill -0 says)
    _run_still=()
    for _run_k in "${_run_live[@]}"; do
      if kill -0 "${_run_pids[$_run_k]}" 2> /dev/null; then
        _run_still+=("$_run_k")
      else
        _run_finish "$_run_k"
        _run_done=$((_run_done + 1))
      fi
    done
    _run_live=("${_run_still[@]}")
  done
fi
if [ $nskip -gt 0 ]; then echo "$npass passed, $nfail failed, $nskip skipped"; else echo "$npass passed, $nfail failed"; fi
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
