# ir.sh -- golden operator IR: every example and every tests/ir/*.gnn after every pass,
# each checked by the verifier as the pipeline runs (a verifier failure is an error).
# Expected files: tests/ir/expected/<name>.after-<pass>.ir (UPDATE=1 regenerates them).
mkdir -p tests/ir/expected
passes=$("$GNNC" --list-passes | awk '{print $1}')
for f in dsl-examples/*.gnn tests/ir/*.gnn; do
  n=$(basename "$f" .gnn)
  for p in $passes; do
    if ! "$GNNC" "$f" --print-ir-after="$p" > "$TMP/ir.out" 2> "$TMP/ir.err"; then
      fail "ir/$n/$p" "gnnc failed: $(head -3 "$TMP/ir.err")"
      continue
    fi
    expect_same "ir/$n/$p" "tests/ir/expected/$n.after-$p.ir" "$TMP/ir.out"
  done
done
