# tests/suites/diag.sh -- diagnostics for bad programs (sourced by tests/run.sh).
#
# Every tests/diag/NN_name.gnn is a small program with one mistake (the 9x_multi_* files
# have several, to check that one run reports them all). Its first line names the first
# diagnostic the compiler must print, exactly, with the path as given on the command line:
#
#   # expect: tests/diag/16_unknown_name.gnn:4:15: error: unknown name 'hh'
#
# and further comment lines may add
#
#   # expect-note: LINE    the first note after that error (before the next error) is LINE
#   # expect-errors: N     exactly N errors: N error lines printed, and "N errors generated."
#   # advice: TEXT         the message's advice taken: the program with the reported line replaced
#                          by TEXT compiles with no diagnostic at all (checked as NAME/advice)
#
# For each file the suite runs `$GNNC FILE` (10 s limit) and checks that
#   - the exit status is exactly 1 (not 0, not a crash, not a hang) and nothing is on stdout;
#   - the first stderr line containing ': error: ' is the expected line;
#   - the next line is the source line it points into (indented by two spaces, CR of a CRLF
#     line ending dropped, other non-printable bytes shown as '?'; a line longer than 160
#     columns cut to a window of 160 around the caret, "..." at each cut) and the line after that
#     is a caret line whose '^' sits exactly at the reported column (a file-level error,
#     without line:col, is followed by no source line);
#   - stderr ends with "N error(s) generated." (N >= the errors printed, singular for 1).
# A few generated inputs (a NUL byte, very long and very deep expressions, a flood of
# errors) are checked the same way or for "no crash" in $TMP.

_diag_check() { # NAME FILE EXPECT NOTE NERRORS -- one pass/fail
  local LC_ALL=C
  local name=$1 f=$2 expect=$3 note=$4 nerr=$5
  local out="$TMP/diag.out" err="$TMP/diag.err" rc problems=() lines=()
  { timeout 10 "$GNNC" "$f" >"$out" 2>"$err"; } 2>/dev/null # no "Segmentation fault" noise
  rc=$?
  mapfile -t lines <"$err"
  local n=${#lines[@]}
  case $rc in
  1) ;;
  0) problems+=("exit status 0: the bad program was accepted") ;;
  124) problems+=("timed out after 10 s") ;;
  *) if [ "$rc" -gt 128 ]; then problems+=("crashed (exit status $rc, signal $((rc - 128)))")
     else problems+=("exit status $rc, want 1"); fi ;;
  esac
  [ -s "$out" ] && problems+=("wrote to stdout")

  # The first error line.
  local i=-1 k
  for ((k = 0; k < n; k++)); do
    if [[ ${lines[k]} == *': error: '* ]]; then i=$k; break; fi
  done
  if [ "$i" -lt 0 ]; then
    problems+=("no ': error: ' line on stderr (expected '$expect')")
  else
    [ "${lines[i]}" == "$expect" ] || problems+=("first error is '${lines[i]}', expected '$expect'")
    # The source line and the caret under the reported column.
    local rest=${lines[i]#"$f":} ln col
    if [[ $rest =~ ^([0-9]+):([0-9]+):\ error:\  ]]; then
      ln=${BASH_REMATCH[1]} col=${BASH_REMATCH[2]}
      local src
      # (made printable before bash sees it: a command substitution drops NUL bytes)
      src=$(sed -n "${ln}p" "$f" | sed 's/\r$//' | tr -c '\t\040-\176\n' '?')
      # a line longer than 160 columns is shown as the window of 160 around the caret (80 before
      # it when there is room), "..." marking each cut (compiler/diag.c, show_line)
      local slen=${#src} from=0 shown="  $src" ccol=$((col - 1))
      if [ "$slen" -gt 160 ]; then
        [ $ccol -gt "$slen" ] && ccol=$slen
        [ $ccol -gt 80 ] && from=$((ccol - 80))
        [ $((from + 160)) -gt "$slen" ] && from=$((slen - 160))
        shown="  $([ $from -gt 0 ] && printf '...')${src:from:160}$([ $((from + 160)) -lt "$slen" ] && printf '...')"
        ccol=$((ccol - from + (from > 0 ? 3 : 0)))
      fi
      if [ $((i + 1)) -ge "$n" ] || [ "${lines[i + 1]}" != "$shown" ]; then
        problems+=("the line after the error is '${lines[i + 1]:-}', expected the source line '$shown'")
      elif [ $((i + 2)) -ge "$n" ] || ! [[ ${lines[i + 2]} =~ ^\ \ ([[:blank:]]*)\^~*$ ]]; then
        problems+=("no caret line under the source line (got '${lines[i + 2]:-}')")
      elif [ "${#BASH_REMATCH[1]}" -ne "$ccol" ]; then
        problems+=("the caret is at column $((${#BASH_REMATCH[1]} + 1)) of the line shown, the message says column $col")
      fi
    elif [[ $rest =~ ^\ error:\  ]]; then
      if [ $((i + 1)) -lt "$n" ] && [[ ${lines[i + 1]} == "  "* ]]; then
        problems+=("a file-level error is followed by a source line '${lines[i + 1]}'")
      fi
    else
      problems+=("the error line does not start with '$f:LINE:COL: error: '")
    fi
    # The first note after the first error, before the next error.
    if [ -n "$note" ]; then
      local got=""
      for ((k = i + 1; k < n; k++)); do
        [[ ${lines[k]} == *': error: '* ]] && break
        if [[ ${lines[k]} == *': note: '* ]]; then got=${lines[k]}; break; fi
      done
      [ "$got" == "$note" ] || problems+=("first note is '${got:-<none>}', expected '$note'")
    fi
  fi

  # The count line.
  local printed=0 last=""
  [ "$n" -gt 0 ] && last=${lines[n - 1]}
  for ((k = 0; k < n; k++)); do [[ ${lines[k]} == *': error: '* ]] && printed=$((printed + 1)); done
  if [[ $last =~ ^([0-9]+)\ errors?\ generated\.$ ]]; then
    local total=${BASH_REMATCH[1]}
    if [ "$total" -eq 1 ] && [ "$last" != "1 error generated." ]; then problems+=("'$last' should be '1 error generated.'"); fi
    if [ "$total" -ne 1 ] && [ "$last" != "$total errors generated." ]; then problems+=("'$last' should be '$total errors generated.'"); fi
    [ "$total" -ge "$printed" ] || problems+=("'$last' but $printed errors were printed")
    if [ -n "$nerr" ]; then
      [ "$total" -eq "$nerr" ] || problems+=("$total errors generated, expected $nerr")
      [ "$printed" -eq "$nerr" ] || [ "$nerr" -gt 20 ] || problems+=("$printed error lines printed, expected $nerr")
    fi
  else
    problems+=("stderr does not end with 'N error(s) generated.' (last line '$last')")
  fi

  if [ ${#problems[@]} -eq 0 ]; then
    pass "$name"
  else
    local detail
    detail=$(printf '%s; ' "${problems[@]}")
    fail "$name" "${detail%; }"
  fi
}

_diag_no_crash() { # NAME FILE [PATTERN] -- rc 0, or rc 1 with an error (matching PATTERN if given)
  local name=$1 f=$2 pat=${3:-}
  local out="$TMP/diag.out" err="$TMP/diag.err" rc
  { timeout 10 "$GNNC" "$f" >"$out" 2>"$err"; } 2>/dev/null # no "Segmentation fault" noise
  rc=$?
  local last
  last=$(tail -n 1 "$err")
  if [ "$rc" -eq 0 ] && [ -z "$pat" ]; then
    pass "$name"
  elif [ "$rc" -eq 1 ] && grep -q ': error: ' "$err" && [[ $last =~ ^[0-9]+\ errors?\ generated\.$ ]] &&
    { [ -z "$pat" ] || grep -q -- "$pat" "$err"; }; then
    pass "$name"
  elif [ "$rc" -eq 124 ]; then
    fail "$name" "timed out after 10 s"
  elif [ "$rc" -gt 128 ]; then
    fail "$name" "crashed (exit status $rc, signal $((rc - 128)))"
  else
    fail "$name" "exit status $rc; want 0, or 1 with an error${pat:+ matching '$pat'} and a count line; stderr: $(head -c 300 "$err" | tr '\n' '|')"
  fi
}

_diag_run_files() {
  local f name expect note nerr first advice ln
  local count=0
  for f in tests/diag/*.gnn; do
    [ -f "$f" ] || continue
    count=$((count + 1))
    name="diag/$(basename "$f" .gnn)"
    first=$(head -n 1 "$f")
    first=${first%$'\r'}
    if [[ $first != '# expect: '* ]]; then
      fail "$name" "the first line is not '# expect: <first diagnostic line>'"
      continue
    fi
    expect=${first#'# expect: '}
    note=$(grep -a -m 1 '^# expect-note: ' "$f" | tr -d '\r')
    note=${note#'# expect-note: '}
    nerr=$(grep -a -m 1 '^# expect-errors: ' "$f" | sed 's/^# expect-errors: *\([0-9]*\).*/\1/')
    _diag_check "$name" "$f" "$expect" "$note" "$nerr"
    advice=$(grep -a -m 1 '^# advice: ' "$f" | tr -d '\r')
    if [ -n "$advice" ]; then
      advice=${advice#'# advice: '}
      ln=$(sed 's/^[^:]*:\([0-9]*\):.*/\1/' <<< "$expect")
      awk -v n="$ln" -v t="$advice" 'NR == n { print t; next } { print }' "$f" > "$TMP/advice.gnn"
      if timeout 10 "$GNNC" "$TMP/advice.gnn" --emit=ir -o "$TMP/advice.ir" > /dev/null 2> "$TMP/advice.err" &&
         [ ! -s "$TMP/advice.err" ]; then
        pass "$name/advice"
      else
        fail "$name/advice" "line $ln as '$advice' does not compile cleanly: $(head -c 300 "$TMP/advice.err" | tr '\n' '|')"
      fi
    fi
  done
  [ "$count" -gt 0 ] || fail "diag/files" "no tests/diag/*.gnn found"
}

_diag_run_generated() {
  local d="$TMP/diag_gen" f
  mkdir -p "$d"

  # A NUL byte is a stray byte like any other: located, and counted.
  f="$d/nul_byte.gnn"
  printf 'model M(x: vertex[16]) -> vertex[16] {\n  h = relu(x)\0\n  return h\n}\n' >"$f"
  _diag_check "diag/gen_nul_byte" "$f" "$f:2:14: error: stray byte \\x00 in program" "" 1

  # A UTF-8 byte-order mark is skipped at the file's start (it was "stray character U+FEFF"),
  # and only there; columns count its three bytes, as the source line shows them as '???'.
  f="$d/bom.gnn"
  printf '\357\273\277model M(x: vertex[16]) -> vertex[16] {\n  return relu(y)\n}\n' >"$f"
  _diag_check "diag/gen_bom_at_start" "$f" "$f:2:15: error: unknown name 'y'" "" 1
  f="$d/bom_later.gnn"
  printf 'model M(x: vertex[16]) -> vertex[16] {\n  return \357\273\277x\n}\n' >"$f"
  _diag_check "diag/gen_bom_not_at_start" "$f" "$f:2:10: error: stray character U+FEFF in program" "" 1

  # Line ends: LF or CRLF. A lone CR (classic Mac line ends) was skipped as a blank, so the first
  # comment hid the whole file ("this file declares no model", no location): now an error where
  # the first one is, and the input ends there (one error, no cascade).
  f="$d/cr_only.gnn"
  printf '# a comment\rmodel M(x: vertex[16]) -> vertex[16] {\r  return relu(x)\r}\r' >"$f"
  _diag_check "diag/gen_cr_only_line_ends" "$f" "$f:1:12: error: a carriage return not followed by a newline (a file with classic Mac line ends? lines end with LF or CRLF)" "" 1
  f="$d/cr_stray.gnn"
  printf 'model M(x: vertex[16]) -> vertex[16] {\n  return relu(x)\r\r\n}\n' >"$f"
  _diag_check "diag/gen_cr_before_crlf" "$f" "$f:2:17: error: a carriage return not followed by a newline (a file with classic Mac line ends? lines end with LF or CRLF)" "" 1
  # ... and a CRLF file, comments at line ends included, is the LF file to the compiler
  printf '# c\r\nmodel M(x: vertex[16]) -> vertex[16] { # c\r\n  param W: [16, 16] # c\r\n  return relu(W @ x) # c\r\n}\r\n' >"$d/crlf.gnn"
  tr -d '\r' <"$d/crlf.gnn" >"$d/lf.gnn"
  if "$GNNC" "$d/crlf.gnn" >"$d/crlf.ir" 2>"$d/crlf.err" && "$GNNC" "$d/lf.gnn" >"$d/lf.ir" 2>&1 &&
     cmp -s <(grep -v 'lf.gnn' "$d/crlf.ir") <(grep -v 'lf.gnn' "$d/lf.ir"); then pass diag/gen_crlf_same_as_lf
  else fail diag/gen_crlf_same_as_lf "$(head -2 "$d/crlf.err")"; fi

  # Long left-associative chains: the parser accepts them without growing its stack, so
  # nothing may recurse once per operand (a crash here is a stack overflow).
  f="$d/long_sum.gnn"
  {
    printf 'model M(x: vertex[16]) -> vertex[16] {\n  return x'
    local k
    for ((k = 0; k < 20000; k++)); do printf ' + x'; done
    printf '\n}\n'
  } >"$f"
  _diag_no_crash "diag/gen_long_sum_chain" "$f"
  f="$d/long_dim.gnn"
  {
    printf 'model M(x: vertex[16]) -> vertex[16] {\n  param W: [1'
    for ((k = 0; k < 300000; k++)); do printf '+1'; done
    printf ']\n  return x\n}\n'
  } >"$f"
  _diag_no_crash "diag/gen_long_dim_chain" "$f"

  # The same with x[src][src]... (20,000 reads on edges of edges): an error at the second
  # index, with the caret there (it was at the first, which is right).
  f="$d/long_index.gnn"
  {
    printf 'model M(x: vertex[16]) -> vertex[16] {\n  return sum(x'
    for ((k = 0; k < 20000; k++)); do printf '[src]'; done
    printf ')\n}\n'
  } >"$f"
  _diag_check "diag/gen_long_index_chain" "$f" "$f:2:21: error: only vertex values can be read on edges with [src]; this is an edge value" "" 1

  # Nesting that does cost stack: 1000 layers, each returning a call of the next. Sema stops
  # at 1000 levels (the layer bodies count: the call L0(x) in the model is level 1, L1(x) in
  # L0's body level 2, so L1000(x) in L999's body is level 1001; a name inside level 1000, as
  # x in L999(x), recurses no further), and shows 5 + 5 of the 1000 "instantiated here" notes.
  f="$d/deep_layers.gnn"
  {
    for ((k = 0; k < 1000; k++)); do printf 'layer L%d(x: vertex[1]) -> vertex[1] { return L%d(x) }\n' $k $((k + 1)); done
    printf 'layer L1000(x: vertex[1]) -> vertex[1] { return x }\nmodel M(x: vertex[1]) -> vertex[1] { return L0(x) }\n'
  } >"$f"
  _diag_check "diag/gen_deep_layers" "$f" \
    "$f:1000:48: error: expression nested too deeply (more than 1000 levels, counting the bodies of the layers it calls)" \
    "$f:999:48: note: in layer 'L999' instantiated here" 1
  if [ "$(grep -c ': note: ' "$TMP/diag.err")" -eq 11 ] && grep -q "^$f: note: (990 more layer instantiations)$" "$TMP/diag.err"; then
    pass "diag/gen_deep_layers_notes"
  else
    fail "diag/gen_deep_layers_notes" "want 10 'instantiated here' notes and '(990 more layer instantiations)'; got $(grep -c ': note: ' "$TMP/diag.err") notes"
  fi

  # The documented limit is the real one (docs/language.md section 2): 1000 levels of each
  # kind compile, through code generation (--emit=c: every later pass walks the same depth),
  # and the token that opens level 1001 is the one error, with its caret. The parser's stack
  # bounded it before, at 497 calls, 332 parenthesised right operands or 996 parentheses.
  local kind n pre post
  for kind in calls parens right-operands unary-minus matmul; do
    case $kind in
    calls) pre='relu(' post=')' ;;
    parens) pre='(' post=')' ;;
    right-operands) pre='x + (' post=')' ;;
    unary-minus) pre='-' post='' ;;
    matmul) pre='W @ ' post='' ;;
    esac
    for n in 1000 1001; do
      f="$d/nest_${kind}_$n.gnn"
      {
        # W only where the expression reads it: an unused parameter is warned about (a line
        # either way, so the expression stays on line 3)
        if [ $kind = matmul ]; then printf 'model M(x: vertex[2]) -> vertex[2] {\n  param W: [2, 2]\n  return '
        else printf 'model M(x: vertex[2]) -> vertex[2] {\n  # no parameter\n  return '; fi
        for ((k = 0; k < n; k++)); do printf '%s' "$pre"; done
        printf 'x'
        for ((k = 0; k < n; k++)); do printf '%s' "$post"; done
        printf '\n}\n'
      } >"$f"
    done
    f="$d/nest_${kind}_1000.gnn"
    if { timeout 20 "$GNNC" "$f" --emit=c >"$TMP/diag.out" 2>"$TMP/diag.err"; } 2>/dev/null && [ ! -s "$TMP/diag.err" ]; then
      pass "diag/gen_nest_$kind/1000"
    else
      fail "diag/gen_nest_$kind/1000" "exit $?, want 0: $(head -c 300 "$TMP/diag.err")"
    fi
    f="$d/nest_${kind}_1001.gnn"
    # the caret: after "  return " (9 columns), 1000 openers, then the 1001st's own column
    local col=$((10 + 1000 * ${#pre} + ${#pre} - 1))
    [ "$kind" = matmul ] && col=$((10 + 1000 * ${#pre} + 2))
    _diag_check "diag/gen_nest_$kind/1001" "$f" "$f:3:$col: error: expression nested too deeply (more than 1000 levels)" "" 1
  done

  # Deep nesting is an error, not a crash.
  f="$d/deep_parens.gnn"
  {
    printf 'model M(x: vertex[16]) -> vertex[16] {\n  return '
    for ((k = 0; k < 3000; k++)); do printf '('; done
    printf 'x'
    for ((k = 0; k < 3000; k++)); do printf ')'; done
    printf '\n}\n'
  } >"$f"
  _diag_no_crash "diag/gen_deep_parens" "$f" "nested too deeply"

  # Large programs compile in linear time (10 s limit; names were looked up in lists, which
  # took ~40 s for the first and several seconds for the others): 90,000 statements in one
  # body (within the 100,000-step budget), 50,000 declarations, 150,000 generic names.
  f="$d/many_stmts.gnn"
  { printf 'model M(x: vertex[1]) -> vertex[1] {\n'; printf '  a%d = x\n' $(seq 90000); printf '  return a89999\n}\n'; } >"$f"
  _diag_no_crash "diag/gen_many_statements" "$f"
  f="$d/many_decls.gnn"
  { printf 'layer L%d() -> vertex[] { return in_deg }\n' $(seq 50000); printf 'model M(x: vertex[1]) -> vertex[1] { return x }\n'; } >"$f"
  _diag_no_crash "diag/gen_many_declarations" "$f"
  f="$d/many_generics.gnn"
  { printf 'layer L<G0'; printf ', G%d' $(seq 150000); printf '>() -> vertex[] { return in_deg }\n'
    printf 'model M(x: vertex[1]) -> vertex[1] { return x }\n'; } >"$f"
  _diag_no_crash "diag/gen_many_generic_names" "$f"

  # 20 errors shown on one 3 MB line: the source line is written at once, not byte by byte
  # to unbuffered stderr (which took 16 s for 3 MB at -O2).
  f="$d/long_line.gnn"
  head -c 3000000 /dev/zero | tr '\0' '\377' >"$f"
  _diag_no_crash "diag/gen_errors_on_a_3MB_line" "$f" 'stray byte \\xff in program'

  # A flood of errors: 20 are shown, then "too many errors", and all are counted.
  f="$d/many_errors.gnn"
  {
    printf 'model M(x: vertex[16]) -> vertex[16] {\n'
    for ((k = 0; k < 30; k++)); do printf '  h%d = relu(q%d)\n' "$k" "$k"; done
    printf '  return x\n}\n'
  } >"$f"
  { timeout 10 "$GNNC" "$f" >"$TMP/diag.out" 2>"$TMP/diag.err"; } 2>/dev/null
  local rc=$? shown last
  shown=$(grep -a -c ': error: ' "$TMP/diag.err")
  last=$(tail -n 1 "$TMP/diag.err")
  if [ "$rc" -eq 1 ] && [ "$shown" -eq 20 ] && grep -qx "$f: too many errors, stopping" "$TMP/diag.err" &&
    [[ $last =~ ^([0-9]+)\ errors\ generated\.$ ]] && [ "${BASH_REMATCH[1]}" -gt 20 ]; then
    pass "diag/gen_too_many_errors"
  else
    fail "diag/gen_too_many_errors" "exit $rc, $shown error lines shown (want 20), last line '$last'"
  fi
}

# Warnings (tests/diag/warn/NN_name.gnn): the program compiles (exit 0) and its first stderr line is
#   # expect-warning: FILE:LINE:COL: warning: ...
# followed by the source line and a caret at COL; "# expect-note: LINE" is the first note after
# it, "# expect-warnings: N" the number of warning lines (each place warns once, however often
# a layer or a loop lowers it). The examples and the programs of tests/lang/ compile without any.
_diag_run_warnings() {
  local f name expect note nwarn lines n got col src
  for f in tests/diag/warn/*.gnn; do
    [ -f "$f" ] || continue
    name="diag/warn/$(basename "$f" .gnn)"
    expect=$(grep -a -m 1 '^# expect-warning: ' "$f"); expect=${expect#'# expect-warning: '}
    note=$(grep -a -m 1 '^# expect-note: ' "$f"); note=${note#'# expect-note: '}
    nwarn=$(grep -a -m 1 '^# expect-warnings: ' "$f" | sed 's/^# expect-warnings: *\([0-9]*\).*/\1/')
    timeout 10 "$GNNC" "$f" --emit=ir -o "$TMP/warn.ir" 2> "$TMP/warn.err" > /dev/null
    local rc=$?
    mapfile -t lines < "$TMP/warn.err"
    n=${#lines[@]}
    got=$(grep -c ': warning: ' "$TMP/warn.err")
    col=$(sed 's/^[^:]*:[0-9]*:\([0-9]*\):.*/\1/' <<< "$expect")
    src=$(sed -n "$(sed 's/^[^:]*:\([0-9]*\):.*/\1/' <<< "$expect")p" "$f")
    if [ -z "$expect" ]; then fail "$name" "no '# expect-warning: ' line"
    elif [ $rc -ne 0 ]; then fail "$name" "exit $rc, want 0 (a warning does not stop the build): ${lines[0]:-}"
    elif [ "${lines[0]:-}" != "$expect" ]; then fail "$name" "first line '${lines[0]:-}', want '$expect'"
    elif [ "${lines[1]:-}" != "  $src" ] || ! [[ ${lines[2]:-} =~ ^\ \ ([[:blank:]]*)\^~*$ ]] || [ "${#BASH_REMATCH[1]}" -ne $((col - 1)) ]; then
      fail "$name" "no source line with a caret at column $col after the warning"
    elif [ -n "$note" ] && [ "$(grep -m 1 ': note: ' "$TMP/warn.err")" != "$note" ]; then
      fail "$name" "first note '$(grep -m 1 ': note: ' "$TMP/warn.err")', want '$note'"
    elif [ -n "$nwarn" ] && [ "$got" -ne "$nwarn" ]; then fail "$name" "$got warnings, want $nwarn"
    elif grep -q ': error: ' "$TMP/warn.err"; then fail "$name" "an error: $(grep -m 1 ': error: ' "$TMP/warn.err")"
    else pass "$name"; fi
  done
  local quiet=()
  for f in dsl-examples/*.gnn tests/lang/*.gnn; do
    "$GNNC" "$f" --emit=ir -o "$TMP/warn.ir" 2> "$TMP/warn.err" > /dev/null
    [ -s "$TMP/warn.err" ] && quiet+=("$f: $(head -1 "$TMP/warn.err")")
  done
  if [ ${#quiet[@]} -eq 0 ]; then pass diag/warn/examples-quiet; else fail diag/warn/examples-quiet "${quiet[*]}"; fi
}

_diag_run_files
_diag_run_generated
_diag_run_warnings
