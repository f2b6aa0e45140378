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
# IR, an internal error), runs past its time limit (120 s in all, 10 s of CPU per input; the whole
# corpus needs well under a second), or if anything sanitizer-like is printed. Memory is
# capped at 2 GiB (ASan's hard_rss_limit_mb), so a runaway input fails fast instead of
# exhausting the machine. On failure the inputs are replayed one by one to name the culprits.
#
#   fuzz-diff/replay/F   a kept program of the differential fuzzer (tests/fuzz/diff/cases/F)
#                        compares as its header says (interpreter vs host library); tiles-N are
#                        generated programs (make fuzz-diff TILES=1) whose walks gnnc cuts into
#                        column tiles (--tile-columns=2), kept so that every run checks tiles;
#                        spread-N (make fuzz-diff SPREAD=1) a dot spread over the lanes (--dots=spread),
#                        spmm-N (make fuzz-diff SPMM=1) SpMM steps (--spmm=cusparse)
#   fuzz-diff/generate-6 six generated programs (seeds 1..6) all agree
#   fuzz-diff/pieces-6   the same with --pieces (gnnc --split-hubs, graphs with a hub)
#   fuzz-diff/spread-6   the same with --spread (gnnc --dots=spread, projections 16..40 wide and more
#                        dots), seeds 3..8: seeds 3, 5 and 8 spread a dot over a kernel's lanes
#   fuzz-diff/spread-cases-spread  each kept spread-N case still spreads a dot (a group_sum)
#   fuzz-diff/spmm-6     the same with --spmm (gnnc --spmm=cusparse), seeds 3..8: seeds 3, 5 and 6
#                        make SpMM steps of their sums (the runtime's gnn_spmm on the host)
#   fuzz-diff/spmm-cases-spmm  each kept spmm-N case still makes an SpMM step
#   fuzz-diff/cuda-6     six generated programs with wide inputs (seeds 1..6 of --cuda: 1,024 to
#                        3,072 features) all agree on the host and their CUDA source compiles with
#                        nvcc (--cubin for sm_80: ptxas, so shared memory over 48 KB fails here;
#                        gnnc of 97c49dd fails seeds 3 and 6 that way). No GPU needed.

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

# Differential fuzzing (tests/fuzz/diff/fuzz_diff.py, make fuzz-diff): the kept programs
# (tests/fuzz/diff/cases/, each a minimised finding or a seed program) replayed through the
# interpreter and the host library, forward and backward, then forward not training; each must come out as its header says
# (agree, unless it documents a known bug). Then a fixed batch of 6 generated programs (seeds
# 1..6), so the generator and the comparison themselves stay working.
fz_cases=("$ROOT"/tests/fuzz/diff/cases/*.gnn)
if [ -e "${fz_cases[0]}" ]; then
  fz_out=$("$PY" tests/fuzz/diff/fuzz_diff.py --gnnc "$GNNC" --replay "${fz_cases[@]}" 2>&1)
  while IFS= read -r fz_line; do
    case "$fz_line" in
      "ok "*) fz_n=${fz_line#ok }; pass "fuzz-diff/replay/${fz_n%% *}" ;;
      "FAIL "*) fz_rest=${fz_line#FAIL }; fail "fuzz-diff/replay/${fz_rest%%:*}" "${fz_rest#*: }" ;;
    esac
  done <<< "$fz_out"
else
  fail fuzz-diff/replay "no kept programs in tests/fuzz/diff/cases/"
fi
fz_out=$("$PY" tests/fuzz/diff/fuzz_diff.py --gnnc "$GNNC" --seed 1 --max-programs 6 --seconds 300 --keep "$TMP/fuzz-diff" 2>&1)
if grep -qx 'programs 6: agree 6, mismatch 0, rejected by gnnc 0, errors 0 (seeds 1..6)' <<< "$fz_out"; then
  pass fuzz-diff/generate-6
else
  fail fuzz-diff/generate-6 "$(tail -3 <<< "$fz_out" | tr '\n' ' ')"
fi
# the same with hub rows in pieces (--split-hubs) on the graphs with a hub (make fuzz-diff's --pieces)
fz_out=$("$PY" tests/fuzz/diff/fuzz_diff.py --gnnc "$GNNC" --pieces --seed 1 --max-programs 6 --seconds 300 --keep "$TMP/fuzz-diff-pieces" 2>&1)
if grep -qx 'programs 6: agree 6, mismatch 0, rejected by gnnc 0, errors 0 (seeds 1..6)' <<< "$fz_out"; then
  pass fuzz-diff/pieces-6
else
  fail fuzz-diff/pieces-6 "$(tail -3 <<< "$fz_out" | tr '\n' ' ')"
fi
# fz_schedule KIND FLAG PATTERN WHAT: the kept KIND-N cases (make fuzz-diff KIND=1) still take their
# schedule with gnnc FLAG (the kernel IR matches PATTERN; else their replays above lost their
# subject), and six generated programs (seeds 3..8) compiled so all agree
fz_schedule() {
  local kind=$1 flag=$2 pattern=$3 what=$4 ok=1 f map out
  for f in tests/fuzz/diff/cases/$kind-*.gnn; do
    map=$(sed -n "1s/.* mapping=\([a-z]*\)+$kind .*/\1/p" "$f")
    "$GNNC" "$f" "$flag" --mapping="${map:-none}" --emit=kir 2>&1 | grep -q "$pattern" || ok=0
  done
  if [ $ok = 1 ] && ls tests/fuzz/diff/cases/$kind-*.gnn > /dev/null 2>&1; then
    pass fuzz-diff/$kind-cases-$kind
  else
    fail fuzz-diff/$kind-cases-$kind "a kept $kind-N case no longer $what with gnnc $flag (or there are none)"
  fi
  out=$("$PY" tests/fuzz/diff/fuzz_diff.py --gnnc "$GNNC" --$kind --seed 3 --max-programs 6 --seconds 300 --keep "$TMP/fuzz-diff-$kind" 2>&1)
  if grep -qx 'programs 6: agree 6, mismatch 0, rejected by gnnc 0, errors 0 (seeds 3..8)' <<< "$out"; then
    pass fuzz-diff/$kind-6
  else
    fail fuzz-diff/$kind-6 "$(tail -3 <<< "$out" | tr '\n' ' ')"
  fi
}
# the dots of kernels per row spread over the lanes (--dots=spread: the CUDA target's form) on the host
fz_schedule spread --dots=spread ' = group_sum(' "spreads a dot"
# plain weighted sums as SpMM steps (--spmm=cusparse: the runtime's loop on the host)
fz_schedule spmm --spmm=cusparse '^  step [0-9]* spmm ' "makes an SpMM step"
if ! command -v nvcc >/dev/null; then
  fail fuzz-diff/cuda-6 "nvcc not found (the CUDA toolkit is required)"
else
  fz_out=$("$PY" tests/fuzz/diff/fuzz_diff.py --gnnc "$GNNC" --cuda --seed 1 --max-programs 6 --seconds 300 \
    --keep "$TMP/fuzz-diff-cuda" 2>&1)
  if grep -qx 'programs 6: agree 6, mismatch 0, rejected by gnnc 0, errors 0, CUDA failing to compile 0 (seeds 1..6)' <<< "$fz_out"; then
    pass fuzz-diff/cuda-6
  else
    fail fuzz-diff/cuda-6 "$(tail -3 <<< "$fz_out" | tr '\n' ' ')"
  fi
fi
unset fz_cases fz_out fz_line fz_n fz_rest fz_ok fz_f fz_map
unset -f fz_case
unset fz_replay fz_env fz_pattern
