# generated.sh -- generated/ is reproducible: regenerating every file gives the same bytes.
# Per example: NAME.ir (the optimised IR), NAME.cu, NAME.c and NAME.h (the header of both).
for f in dsl-examples/*.gnn; do
  n=$(basename "$f" .gnn)
  mkdir -p "$TMP/gen"
  if ! "$GNNC" "$f" -o "$TMP/gen/$n.ir" 2> "$TMP/gen.err" || ! "$GNNC" "$f" --emit=cu -o "$TMP/gen/$n.cu" 2>> "$TMP/gen.err" ||
     ! "$GNNC" "$f" --emit=c -o "$TMP/gen/$n.c" 2>> "$TMP/gen.err"; then
    fail "generated/$n" "$(head -2 "$TMP/gen.err")"
    continue
  fi
  for ext in ir cu c h; do
    if [ ! -f "generated/$n.$ext" ]; then fail "generated/$n.$ext" "generated/$n.$ext is missing (run make generated)"
    elif cmp -s "generated/$n.$ext" "$TMP/gen/$n.$ext"; then pass "generated/$n.$ext"
    else fail "generated/$n.$ext" "generated/$n.$ext is stale (run make generated and commit)"; fi
  done
done
# and nothing in generated/ without a source
for g in generated/*; do
  [ -f "dsl-examples/$(basename "${g%.*}").gnn" ] || fail "generated/orphan" "$g has no dsl-examples source"
done
