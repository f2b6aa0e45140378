# fuzz.sh -- sourced by tests/run.sh: the fuzz target (tests/fuzz/fuzz_frontend.c) replayed,
# without libFuzzer, over the seed corpus and over the crash reproducers, under ASan + UBSan
# (build/fuzz/replay; `make test` builds it first).
#
#   fuzz-corpus    every seed in tests/fuzz/corpus/ runs clean (named seeds written by hand;
#                  found_* are inputs from `make fuzz` runs, a greedy set cover of the edges
#                  the hand-written seeds miss)
#   fuzz-crashes   every reproducer in tests/fuzz/crashes/ runs clean (each one is a bug that
#                  the fuzzer found; it stays here as a regression test once fixed)
#
# A case fails if replay exits non-zero (a sanitizer report, an abort in the target: invalid
# IR, an internal error), runs past its time limit (120 s in all, 10 s per input; the whole
# corpus needs well under a second), or if anything sanitizer-like is printed. Memory is
# capped at 2 GiB (ASan's hard_rss_limit_mb), so a runaway input fails fast instead of
# exhausting the machine. On failure the inputs are replayed one by one to name the culprits.

fz_replay="$ROOT/build/fuzz/replay"
fz_env=(env "ASAN_OPTIONS=detect_leaks=1:hard_rss_limit_mb=2048:${ASAN_OPTIONS:-}"
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}")
fz_pattern='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|fuzz_frontend:|replay: '

# fz_case NAME DIR
fz_case() {
  local name=$1 dir=$2 out="$TMP/$1.out" rc
  if [ ! -x "$fz_replay" ]; then
    fail "$name" "$fz_replay is missing (make build/fuzz/replay)"
    return
  fi
  if [ ! -d "$dir" ]; then
    fail "$name" "no directory $dir"
    return
  fi
  # (braces: bash's own "Aborted" notice goes to /dev/null too, not to the test log)
  { timeout 120 "${fz_env[@]}" "$fz_replay" -timeout=10 "$dir" >"$out" 2>&1; } 2>/dev/null
  rc=$?
  if [ $rc -eq 0 ] && ! grep -Eq "$fz_pattern" "$out" && grep -q '^replayed [0-9]* inputs$' "$out"; then
    pass "$name"
    return
  fi
  # Name the failing inputs: replay them one at a time.
  local bad=() f
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    if ! { timeout 30 "${fz_env[@]}" "$fz_replay" -timeout=10 "$f" >"$out.one" 2>&1; } 2>/dev/null ||
      grep -Eq "$fz_pattern" "$out.one"; then
      bad+=("${f#"$ROOT"/}")
    fi
  done
  local why="exit $rc"
  [ $rc -eq 124 ] && why="timed out after 120 s"
  fail "$name" "$why; failing inputs (${#bad[@]}): ${bad[*]:-none found alone}"
  grep -E "SUMMARY|runtime error:|fuzz_frontend:|replay: |hard rss limit" "$out" | head -5 | sed 's/^/    /'
}

fz_case fuzz-corpus "$ROOT/tests/fuzz/corpus"
fz_case fuzz-crashes "$ROOT/tests/fuzz/crashes"
unset -f fz_case
unset fz_replay fz_env fz_pattern
