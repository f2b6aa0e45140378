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
# A row sum read inside another row sum's loop is staged once per row, not computed on every trip
# (docs/passes/fuse.md, "Row sums inside row sums"): the lowered kernels nest no sum loop inside
# another. The deepest statement of --emit=kir: a kernel's body (1), a lane loop (2), a sum's loop
# (3), and for a walk the edge chunk and its edges around them (normprop_chain: 4). Before, 5 and 8.
# gated_res: the second layer's walk loads the first layer's output, which the forward writes for
# its GEMM anyway (4; before, 6: recomputed at each edge, its layer_norm's two row sums nested).
for ir_case in ln6_chain:3 normprop_chain:4 gated_res:4; do
  ir_n=${ir_case%%:*} ir_max=${ir_case#*:}
  ir_d=$("$GNNC" "tests/ir/$ir_n.gnn" --emit=kir 2> "$TMP/ir.err" | awk '{ match($0, /^ */); d = RLENGTH / 2; if (d > m) m = d } END { print m + 0 }')
  if [ "${ir_d:-0}" -ge 1 ] && [ "$ir_d" -le "$ir_max" ]; then pass "ir/$ir_n/lowered-depth"
  else fail "ir/$ir_n/lowered-depth" "deepest statement at depth ${ir_d:-?}, want at most $ir_max: $(head -2 "$TMP/ir.err")"; fi
done
unset ir_case ir_n ir_max ir_d
