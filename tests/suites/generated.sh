# generated.sh -- generated/ is reproducible: regenerating every file gives the same bytes.
for f in dsl-examples/*.gnn; do
  n=$(basename "$f" .gnn)
  if ! "$GNNC" "$f" -o "$TMP/$n.ir" 2> "$TMP/gen.err"; then fail "generated/$n" "$(head -2 "$TMP/gen.err")"; continue; fi
  if [ ! -f "generated/$n.ir" ]; then fail "generated/$n" "generated/$n.ir is missing (run make generated)"
  elif cmp -s "generated/$n.ir" "$TMP/$n.ir"; then pass "generated/$n"
  else fail "generated/$n" "generated/$n.ir is stale (run make generated and commit)"; fi
done
# and nothing in generated/ without a source
for g in generated/*.ir; do
  [ -f "dsl-examples/$(basename "$g" .ir).gnn" ] || fail "generated/orphan" "$g has no dsl-examples source"
done
