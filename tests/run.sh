#!/usr/bin/env bash
# tests/run.sh GNNC -- runs every test suite (tests/suites/*.sh) against the gnnc binary GNNC.
#
# Each suite is a bash file sourced here; it calls `pass NAME` / `fail NAME [detail]` (or the
# helpers below) once per test case. The run ends with the line "N passed, N failed" and exits
# non-zero if anything failed. SUITE=name runs one suite (SUITE="a b": several); UPDATE=1 lets
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
if [ -z "${PY:-}" ]; then
  PY=python3
  /usr/bin/python3 -c 'import numpy' > /dev/null 2>&1 && PY=/usr/bin/python3
fi
export PY
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
# TEST_SHARD=I/N (make gpu-check runs the long GPU suites as N processes at once, I = 0 .. N-1):
# shard_take, called once per numeric check by the suites that support it (codegen, lang), is true
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
# Progress: a line when a suite starts ("[3/16] suite codegen ...") and when it ends, with its time,
# so a newcomer sees where a several-minute run is.
_run_suites=()
for _run_suite in "${SUITE_DIR:-tests/suites}"/*.sh; do
  _run_name=$(basename "$_run_suite" .sh)
  if [ -n "${SUITE:-}" ]; then
    case " $SUITE " in *" $_run_name "*) ;; *) continue ;; esac
  fi
  _run_suites+=("$_run_suite")
done
if [ ${#_run_suites[@]} -eq 0 ]; then
  echo "run.sh: no suite named '${SUITE:-}' in ${SUITE_DIR:-tests/suites}"
  echo "0 passed, 1 failed"
  exit 1
fi
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
if [ $nskip -gt 0 ]; then echo "$npass passed, $nfail failed, $nskip skipped"; else echo "$npass passed, $nfail failed"; fi
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
