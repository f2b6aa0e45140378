#!/usr/bin/env bash
# tests/run.sh GNNC -- runs every test suite (tests/suites/*.sh) against the gnnc binary GNNC.
#
# Each suite is a bash file sourced here; it calls `pass NAME` / `fail NAME [detail]` (or the
# helpers below) once per test case. The run ends with the line "N passed, N failed" and exits
# non-zero if anything failed. SUITE=name runs one suite; UPDATE=1 lets golden suites rewrite
# their expected files instead of comparing (review the diff before committing).
set -u
GNNC=${1:-build/gnnc}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
case "$GNNC" in /*) ;; *) GNNC="$ROOT/$GNNC" ;; esac
export GNNC ROOT
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export TMP
PY=/usr/bin/python3
export PY
npass=0
nfail=0
pass() { npass=$((npass + 1)); [ -n "${VERBOSE:-}" ] && echo "PASS $1"; return 0; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1${2:+: $2}"; return 0; }
# expect_same NAME EXPECTED_FILE ACTUAL_FILE: a golden comparison (UPDATE=1 rewrites EXPECTED).
expect_same() {
  if [ -n "${UPDATE:-}" ]; then cp "$3" "$2"; pass "$1"; return; fi
  if [ ! -f "$2" ]; then fail "$1" "missing expected file $2 (run with UPDATE=1)"; return; fi
  if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "differs from $2:"; diff -u "$2" "$3" | head -20; fi
}
# Progress: a line when a suite starts ("[3/16] suite codegen ...") and when it ends, with its time,
# so a newcomer sees where a several-minute run is.
_run_suites=()
for _run_suite in tests/suites/*.sh; do
  _run_name=$(basename "$_run_suite" .sh)
  [ -n "${SUITE:-}" ] && [ "$SUITE" != "$_run_name" ] && continue
  _run_suites+=("$_run_suite")
done
_run_k=0
for _run_suite in "${_run_suites[@]}"; do
  _run_name=$(basename "$_run_suite" .sh)
  _run_k=$((_run_k + 1))
  echo "[$_run_k/${#_run_suites[@]}] suite $_run_name ..."
  _run_p=$npass _run_f=$nfail _run_t=$SECONDS
  # shellcheck disable=SC1090
  source "$_run_suite"
  echo "suite $_run_name: $((npass - _run_p)) passed, $((nfail - _run_f)) failed ($((SECONDS - _run_t)) s)"
done
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
