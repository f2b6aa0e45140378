# ir.sh -- golden operator IR: every example and every tests/ir/*.gnn after every pass,
# each checked by the verifier as the pipeline runs (a verifier failure is an error).
# Expected files: tests/ir/expected/<name>.after-<pass>.ir (UPDATE=1 regenerates them).
# A line "# flags: OPTIONS" in a test adds gnnc options (e.g. -fno-canonicalize); a pass that
# they switch off has no expected file.
mkdir -p tests/ir/expected
passes=$("$GNNC" --list-passes | awk '{print $1}')
for f in dsl-examples/*.gnn tests/ir/*.gnn; do
  n=$(basename "$f" .gnn)
  flags=$(sed -n 's/^# flags: *//p' "$f" | head -n 1)
  for p in $passes; do
    case " $flags " in *" -fno-$p "*) continue ;; esac
    # shellcheck disable=SC2086 # flags are words
    if ! "$GNNC" "$f" $flags --print-ir-after="$p" > "$TMP/ir.out" 2> "$TMP/ir.err"; then
      fail "ir/$n/$p" "gnnc failed: $(head -3 "$TMP/ir.err")"
      continue
    fi
    expect_same "ir/$n/$p" "tests/ir/expected/$n.after-$p.ir" "$TMP/ir.out"
  done
done
