# unit.sh -- the C unit tests (tests/unit/unit.c, built as build/unit by make test): pieces
# that no .gnn input reaches, such as the verifier's check for a parameter defined twice.
un_bin="$ROOT/build/unit"
if [ ! -x "$un_bin" ]; then
  fail unit "$un_bin is missing (make build/unit)"
else
  "$un_bin" > "$TMP/unit.out" 2>&1
  un_rc=$?
  while read -r un_word un_rest; do
    case $un_word in
    PASS) pass "unit/$un_rest" ;;
    FAIL) fail "unit/${un_rest%%:*}" "${un_rest#*: }" ;;
    esac
  done < "$TMP/unit.out"
  grep -q '^PASS ' "$TMP/unit.out" || fail unit "no test ran: $(head -c 300 "$TMP/unit.out")"
  if [ $un_rc -ne 0 ] && ! grep -q '^FAIL ' "$TMP/unit.out"; then fail unit "exit $un_rc: $(tail -3 "$TMP/unit.out")"; fi
fi
unset un_bin un_rc un_word un_rest
