# tests/suites/grad.sh -- sourced by tests/run.sh: the autodiff pass (gnnc gradcheck: its gradients
# against fourth-order finite differences in the float64 interpreter, relative error <= 1e-6).
# Uses $GNNC, $ROOT (= cwd), $TMP, $PY, pass, fail.
#
#   grad/op/NAME/K          tests/grad/NAME.gnn, its K-th '# check: OPTIONS' line:
#                           gnnc gradcheck tests/grad/NAME.gnn OPTIONS passes (exit 0, no entry at a kink)
#   grad/expect/NAME/K      its K-th '# expect[(OPTIONS)]: TEXT' line: TEXT is in the module after
#                           autodiff (so the program exercises the rule it is there for)
#   grad/model/MODEL-small/GRAPH  tests/interp/models/MODEL.gnn on every graph, every entry
#   grad/model/MODEL/GRAPH  dsl-examples/MODEL.gnn as written, a sample of entries
#   grad/cora/MODEL         the example's layers with narrow widths (tests/grad/cora/MODEL.model)
#                           on Cora, a sample of entries
#   grad/input/...          d L / d input (--input-grads=all) for the small models and the examples,
#                           and the flag's errors
#   grad/forward/...        gnnc run: the forward output of the training module equals that of
#                           the inference module (-fno-autodiff), to 1e-12
#   grad/ties/CASE          gradients at max/min ties against hand-computed values (ties.py)
#   grad/checker/...        the checker itself can fail: a corrupted gradient (also where it retries at a
#                           tenth of the step), a tie, a steep function that wants a smaller --eps
#   grad/rules/CASE         functions no source program reaches yet, in hand-built modules
#                           (tests/grad/rules.c, build/grad_rules)

grad_dir=tests/grad
grad_tmp=$TMP/grad
# Finite differences evaluate the model hundreds of times, mostly on small values: OpenMP's
# spinning barriers between the interpreter's many small parallel loops then cost more than
# the work (10x on a busy machine). Passive waiting changes no result.
grad_gnnc() { OMP_WAIT_POLICY=passive "$GNNC" "$@"; }
mkdir -p "$grad_tmp"

# grad_tail TEXT: the last 3 lines of TEXT on one line (for fail details).
grad_tail() { printf '%s\n' "$1" | tail -n 3 | tr '\n' ' '; }

# grad_check NAME ARGS...: gnnc gradcheck ARGS must exit 0 and report no entry at a kink.
# GRAD_LOG=FILE appends each summary line to FILE.
grad_check() {
  local name=$1 out
  shift
  out=$(grad_gnnc gradcheck "$@" 2>&1)
  local rc=$?
  [ -n "${GRAD_LOG:-}" ] && printf '%s: %s\n' "$name" "$(printf '%s\n' "$out" | tail -n 1)" >> "$GRAD_LOG"
  if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '(0 not checked at kinks; .*): ok$'; then
    pass "$name"
  else
    fail "$name" "$(grad_tail "$out")"
  fi
}

# 1. One program per operator and function attribute.
for grad_f in "$grad_dir"/*.gnn; do
  grad_n=$(basename "$grad_f" .gnn)
  grad_k=0
  while IFS= read -r grad_line; do
    grad_k=$((grad_k + 1))
    # shellcheck disable=SC2086
    grad_check "grad/op/$grad_n/$grad_k" "$grad_f" ${grad_line#\# check: }
  done < <(grep '^# check: ' "$grad_f")
  [ $grad_k -gt 0 ] || fail "grad/op/$grad_n" "no '# check:' line"
  grad_k=0
  while IFS= read -r grad_line; do
    grad_k=$((grad_k + 1))
    grad_opts=""
    case "$grad_line" in "# expect("*) grad_opts=${grad_line#\# expect(}; grad_opts=${grad_opts%%)*} ;; esac
    grad_text=${grad_line#*: }
    # shellcheck disable=SC2086
    if ! "$GNNC" "$grad_f" $grad_opts --print-ir-after=autodiff > "$grad_tmp/expect.ir" 2>&1; then
      fail "grad/expect/$grad_n/$grad_k" "gnnc failed: $(head -2 "$grad_tmp/expect.ir")"
    elif grep -qF -- "$grad_text" "$grad_tmp/expect.ir"; then
      pass "grad/expect/$grad_n/$grad_k"
    else
      fail "grad/expect/$grad_n/$grad_k" "'$grad_text' not in the module after autodiff ($grad_opts)"
    fi
  done < <(grep '^# expect[(:]' "$grad_f")
done

# 2. The six examples end to end. Small widths, every entry, on every graph (isolated vertices,
# self-loops, duplicate edges, a 2,000-in-edge hub, a random graph, a point cloud).
grad_models="gcn sage gin gat edgeconv monet appnp"
for grad_m in $grad_models; do
  for grad_g in isolated selfloops duplicates hub random pointcloud; do
    grad_check "grad/model/$grad_m-small/$grad_g" tests/interp/models/$grad_m.gnn --graph tests/interp/graphs/$grad_g
  done
done
# As written (1433 features, padded from the small graph's 5; EdgeConv on its 3-D point cloud),
# a sample of each parameter's entries. Parameters are uniform in [-1, 1) (gradcheck's default):
# Glorot's zero biases put a GCN ReLU exactly at its kink wherever dropout zeroes a vertex's
# whole neighbourhood, and gradcheck reports such entries instead of checking them.
for grad_m in gcn sage gin gat monet appnp; do
  grad_check "grad/model/$grad_m/random" dsl-examples/$grad_m.gnn --graph tests/interp/graphs/random --samples 6
done
grad_check "grad/model/edgeconv/pointcloud" dsl-examples/edgeconv.gnn --graph tests/interp/graphs/pointcloud --samples 4
# 2b. Gradients with respect to inputs (--input-grads=all: outputs grad_input.<input>), the
# small models on three graphs and the examples as written, a sample of each input's and
# parameter's entries. GAT and MoNet run with --inference: with dropout on, a vertex whose few
# features are all dropped has a zero projection, so GAT's e = 0 on an edge between two such
# vertices (leaky_relu's kink) and MoNet's hidden value is 0 at a vertex whose in-neighbours are
# all such (elu's branch point), and a difference in x there straddles it (gradcheck reports
# those entries instead of checking them).
for grad_m in $grad_models; do
  grad_io=""
  case $grad_m in gat | monet) grad_io=--inference ;; esac
  for grad_g in random duplicates pointcloud; do
    grad_check "grad/input/$grad_m-small/$grad_g" tests/interp/models/$grad_m.gnn --graph tests/interp/graphs/$grad_g \
      --input-grads=all --samples 40 $grad_io
  done
  grad_g=tests/interp/graphs/random
  [ $grad_m = edgeconv ] && grad_g=tests/interp/graphs/pointcloud
  grad_check "grad/input/$grad_m/$(basename $grad_g)" dsl-examples/$grad_m.gnn --graph $grad_g --input-grads=all --samples 6 $grad_io
done
# the checker fails on a corrupted input gradient too
grad_out=$(grad_gnnc gradcheck tests/interp/models/gcn.gnn --graph tests/interp/graphs/random --input-grads=x --corrupt grad_input.x 2>&1)
grad_rc=$?
if [ $grad_rc -eq 1 ] && printf '%s\n' "$grad_out" | grep -q '^grad_input.x .*max rel error 1.00e-04 .*FAIL$'; then
  pass grad/checker/corrupt-input
else
  fail grad/checker/corrupt-input "exit $grad_rc: $(grad_tail "$grad_out")"
fi
# without --input-grads the module is the parameters' only (generated/*.ir, the golden IR, holds it)
if "$GNNC" dsl-examples/gat.gnn --print-ir-after=autodiff 2>&1 | grep -q grad_input; then
  fail grad/input/default-none "an input's gradient is derived without --input-grads"
else
  pass grad/input/default-none
fi
# a name that is no input, and the flag without autodiff, are errors
grad_out=$("$GNNC" dsl-examples/gat.gnn --input-grads=x,y --emit=ir 2>&1)
if [ $? -ne 0 ] && [[ $grad_out == *"--input-grads: model GAT has no input 'y' (its inputs: x; or all)"* ]]; then
  pass grad/input/unknown-name
else
  fail grad/input/unknown-name "$(grad_tail "$grad_out")"
fi
grad_out=$("$GNNC" dsl-examples/gat.gnn --input-grads=x -fno-autodiff --emit=ir 2>&1)
if [ $? -ne 0 ] && [[ $grad_out == *"--input-grads needs the autodiff pass"* ]]; then
  pass grad/input/needs-autodiff
else
  fail grad/input/needs-autodiff "$(grad_tail "$grad_out")"
fi

# On Cora: the example's layers verbatim with narrow widths (tests/grad/cora/MODEL.model).
for grad_m in $grad_models; do
  { awk '/^model /{exit} {print}' dsl-examples/$grad_m.gnn; cat $grad_dir/cora/$grad_m.model; } > "$grad_tmp/$grad_m-cora.gnn"
  grad_check "grad/cora/$grad_m" "$grad_tmp/$grad_m-cora.gnn" --graph data/cora --samples 4
done

# 3. The forward output of the training module is the inference module's (gnnc run evaluates
# the forward values only; the same parameters), to 1e-12.
grad_same() { # NAME MODEL GRAPH
  local out
  if ! out=$("$GNNC" run -fno-autodiff "$2" --graph "$3" --init=uniform --seed 4 --output "$grad_tmp/fwd.inf" 2>&1) ||
     ! out=$("$GNNC" run "$2" --graph "$3" --init=uniform --seed 4 --output "$grad_tmp/fwd.train" 2>&1); then
    fail "$1" "gnnc run exited non-zero: $(grad_tail "$out")"
    return
  fi
  if out=$("$PY" - "$grad_tmp/fwd.inf" "$grad_tmp/fwd.train" 2>&1 <<'PYEOF'
import sys
a, b = (open(p).read().split() for p in sys.argv[1:3])
if a[:4] != b[:4] or len(a) != len(b):
    sys.exit("headers or lengths differ: %s vs %s" % (a[:6], b[:6]))
worst = max((abs(float(x) - float(y)) / max(1.0, abs(float(x))) for x, y in zip(a[4:], b[4:])), default=0.0)
if worst > 1e-12:
    sys.exit("largest difference %.3g" % worst)
PYEOF
  ); then pass "$1"; else fail "$1" "$(grad_tail "$out")"; fi
}
for grad_m in gcn sage gin gat monet appnp; do
  grad_same "grad/forward/$grad_m/cora" dsl-examples/$grad_m.gnn data/cora
done
grad_same "grad/forward/edgeconv/pointcloud" dsl-examples/edgeconv.gnn tests/interp/graphs/pointcloud
for grad_m in $grad_models; do
  grad_same "grad/forward/$grad_m-small/duplicates" tests/interp/models/$grad_m.gnn tests/interp/graphs/duplicates
done

# 4. Ties in max/min: hand-computed gradients (the first in-edge in CSR order takes it all).
for grad_c in $("$PY" $grad_dir/ties.py --list); do
  if grad_out=$("$PY" $grad_dir/ties.py "$GNNC" "$grad_tmp" "$grad_c" 2>&1); then
    pass "grad/ties/$grad_c"
  else
    fail "grad/ties/$grad_c" "$(grad_tail "$grad_out")"
  fi
done

# 5. Rules of functions no source program reaches yet (slice, pad, reshape, sum_last, linear_t,
# sign, inv_or_zero, the *_grad functions, gathers over out-edges), in hand-built modules.
grad_rules="$ROOT/build/grad_rules"
if [ ! -x "$grad_rules" ]; then
  fail grad/rules "$grad_rules is missing (make build/grad_rules)"
else
  for grad_c in $("$grad_rules" --list); do
    grad_out=$(OMP_WAIT_POLICY=passive "$grad_rules" "$grad_c" tests/grad/graphs/small 2>&1)
    if [ $? -eq 0 ] && printf '%s\n' "$grad_out" | grep -q '(0 not checked at kinks; .*): ok$'; then
      pass "grad/rules/$grad_c"
    else
      fail "grad/rules/$grad_c" "$(printf '%s\n' "$grad_out" | grep -m3 'FAIL\|error\|invalid')"
    fi
  done
fi

# 6. The checker can fail: a gradient off by 1e-4 (relative) in one entry is reported.
grad_out=$(grad_gnnc gradcheck tests/interp/models/gat.gnn --graph tests/interp/graphs/random --corrupt gatconv0.a 2>&1)
grad_rc=$?
if [ $grad_rc -eq 1 ] && printf '%s\n' "$grad_out" | grep -q '^grad.gatconv0.a .*max rel error 1.00e-04 .*FAIL$' &&
   printf '%s\n' "$grad_out" | grep -q ': FAIL$'; then
  pass grad/checker/corrupt
else
  fail grad/checker/corrupt "exit $grad_rc: $(grad_tail "$grad_out")"
fi

# ... also where gradcheck retries at a tenth of the step (tests/grad/steep.gnn: the truncation
# error of a steep tanh at the default step, 6e-6, is forgiven when a tenth of the step errs 10
# times less; a corrupted entry errs 1e-4 at both) ...
grad_out=$(grad_gnnc gradcheck tests/grad/steep.gnn --graph tests/interp/graphs/random --corrupt W 2>&1)
grad_rc=$?
if [ $grad_rc -eq 1 ] && printf '%s\n' "$grad_out" | grep -q '^grad.W .*max rel error 1.00e-04 .*FAIL$' &&
   printf '%s\n' "$grad_out" | grep -q ': FAIL$'; then
  pass grad/checker/corrupt-steep
else
  fail grad/checker/corrupt-steep "exit $grad_rc: $(grad_tail "$grad_out")"
fi
# ... and where even a tenth of the step is too coarse (tanh(300 x)), the failure says what the
# error looks like and suggests a smaller --eps, with which the check passes.
sed 's/tanh(30 \*/tanh(300 */' tests/grad/steep.gnn > "$grad_tmp/steep300.gnn"
grad_out=$(grad_gnnc gradcheck "$grad_tmp/steep300.gnn" --graph tests/interp/graphs/random 2>&1)
grad_rc=$?
if [ $grad_rc -eq 1 ] && printf '%s\n' "$grad_out" | grep -q 'as the difference.s truncation error does: try a smaller step (--eps 1e-05)$' &&
   grad_gnnc gradcheck "$grad_tmp/steep300.gnn" --graph tests/interp/graphs/random --eps 1e-5 > /dev/null 2>&1; then
  pass grad/checker/truncation-suggests-eps
else
  fail grad/checker/truncation-suggests-eps "exit $grad_rc: $(grad_tail "$grad_out")"
fi

# ... and a tie that a difference straddles is reported, not averaged: in the first ties case,
# moving A[1, 0] breaks the tie of element 0 one way or the other (A[0, 0] moves both sides).
grad_out=$(grad_gnnc gradcheck "$grad_tmp/ties-max_tie_first_in_csr_order/t.gnn" \
  --graph "$grad_tmp/ties-max_tie_first_in_csr_order" --params "$grad_tmp/ties-max_tie_first_in_csr_order/params" 2>&1)
grad_rc=$?
if [ $grad_rc -eq 1 ] && printf '%s\n' "$grad_out" | grep -q '^  A\[2\]: a kink lies within the stencil' &&
   printf '%s\n' "$grad_out" | grep -q '(1 not checked at kinks; .*): FAIL$'; then
  pass grad/checker/tie-is-a-kink
else
  fail grad/checker/tie-is-a-kink "exit $grad_rc: $(grad_tail "$grad_out")"
fi

# ... and the verdict says why it failed when entries sat at kinks: which parameter had no entry
# checked at all, and the remedy (--init=glorot's zero bias puts relu(b) at its kink; uniform does not).
cat > "$grad_tmp/kinked-bias.gnn" <<'EOF'
layer Lin<D>(x: vertex[F]) -> vertex[D] {
  param W: [F, D]
  param b: [D]
  return W @ x + relu(b)
}
model K(x: vertex[5]) -> vertex[3] {
  return Lin<3>(x)
}
EOF
grad_out=$(grad_gnnc gradcheck "$grad_tmp/kinked-bias.gnn" --graph tests/interp/graphs/random --init=glorot --samples 2 2>&1)
grad_rc=$?
if [ $grad_rc -eq 1 ] && printf '%s\n' "$grad_out" | tail -n 4 | head -n 3 | tr '\n' '|' | grep -qxF \
  "2 entries were not checked: a kink (relu, leaky_relu, elu, abs, sign or inv_or_zero at 0, a max/min tie) lies within their stencil, where no derivative exists for a difference to measure; an entry at a kink fails the check|not one entry checked of lin0.b (the 2 drawn of 3, all at kinks)|--init=glorot starts biases at 0, which puts an activation exactly at its kink wherever a vertex's input is 0: try --init=uniform (the default)|" &&
   printf '%s\n' "$grad_out" | tail -n 1 | grep -q '(2 not checked at kinks; .*): FAIL$' &&
   grad_gnnc gradcheck "$grad_tmp/kinked-bias.gnn" --graph tests/interp/graphs/random --init=uniform --samples 2 > /dev/null 2>&1; then
  pass grad/checker/kinks-say-why
else
  fail grad/checker/kinks-say-why "exit $grad_rc: $(grad_tail "$grad_out")"
fi

unset -f grad_gnnc grad_tail grad_check grad_same
unset grad_io grad_dir grad_tmp grad_f grad_n grad_k grad_line grad_opts grad_text grad_models grad_m grad_g grad_out grad_rc grad_c grad_rules
