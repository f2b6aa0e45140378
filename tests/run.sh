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
for suite in tests/suites/*.sh; do
  name=$(basename "$suite" .sh)
  [ -n "${SUITE:-}" ] && [ "$SUITE" != "$name" ] && continue
  before_p=$npass before_f=$nfail
  # shellcheck disable=SC1090
  source "$suite"
  echo "suite $name: $((npass - before_p)) passed, $((nfail - before_f)) failed"
done
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
