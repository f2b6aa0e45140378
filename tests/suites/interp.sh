# tests/suites/interp.sh -- sourced by tests/run.sh: the float64 interpreter (`gnnc run`) against
# an independent NumPy reference (tests/interp/reference.py) that implements the six example
# models from their textbook formulas. Uses $GNNC, $ROOT (= cwd), $TMP, $PY, pass, fail.
#
#   interp/ref/MODEL-small/GRAPH  tests/interp/models/MODEL.gnn (the example's layers, small
#                                 widths) on each graph under tests/interp/graphs/
#   interp/ref/MODEL/GRAPH        the unmodified dsl-examples/MODEL.gnn (Cora; EdgeConv on a
#                                 3-D point cloud)
#   interp/O0/...                 -O0 and the default pipeline agree to 1e-12
#   interp/hand/CASE              tiny programs with hand-computed outputs (tests/interp/hand.py)
#   interp/sync/MODEL             the small variant's text above 'model' is the example's verbatim
#   interp/output-through-symlink --save-params through a symlink writes the linked file
# Parameters are uniform in [-1, 1) (--init=uniform) so that biases and eps are not zero.
# The reference needs NumPy in Debian's python3 (scripts/setup.sh installs python3-numpy):
# without it the suite fails rather than skips.

interp_dir=tests/interp
interp_tmp=$TMP/interp
mkdir -p "$interp_tmp"
interp_models="gcn sage gin gat edgeconv monet appnp"
interp_graphs="isolated selfloops duplicates hub random pointcloud"

# interp_tail TEXT: the last 3 lines of TEXT on one line (for fail details).
interp_tail() { printf '%s\n' "$1" | tail -n 3 | tr '\n' ' '; }

# interp_check NAME KIND MODEL.gnn GRAPH SEED [NV]: gnnc run, then the reference recomputes the
# output. NV: a bare edge list's vertex count (--num-vertices).
interp_check() {
  local name=$1 kind=$2 model=$3 graph=$4 seed=$5 base out nv=()
  [ $# -ge 6 ] && nv=(--num-vertices "$6")
  base="$interp_tmp/$(printf '%s' "$1" | tr '/' '_')"
  if ! out=$("$GNNC" run "$model" --graph "$graph" "${nv[@]}" --init=uniform --seed "$seed" --save-params "$base.params" \
      --save-inputs "$base.inputs" --output "$base.out" 2>&1); then
    fail "$name" "gnnc run exited non-zero: $(interp_tail "$out")"
    return
  fi
  if out=$("$PY" "$interp_dir/reference.py" check "$kind" "$graph" "$base.params" "$base.inputs" "$base.out" "${nv[@]}" 2>&1); then
    pass "$name"
  else
    fail "$name" "$(interp_tail "$out")"
  fi
  rm -f "$base.params" "$base.inputs" "$base.out"
}

# interp_O0 NAME MODEL.gnn GRAPH SEED: -O0 against the default pipeline, same parameters.
interp_O0() {
  local name=$1 model=$2 graph=$3 seed=$4 base out
  base="$interp_tmp/$(printf '%s' "$1" | tr '/' '_')"
  if ! out=$("$GNNC" run -O0 "$model" --graph "$graph" --init=uniform --seed "$seed" --output "$base.O0" 2>&1) ||
     ! out=$("$GNNC" run "$model" --graph "$graph" --init=uniform --seed "$seed" --output "$base.O" 2>&1); then
    fail "$name" "gnnc run exited non-zero: $(interp_tail "$out")"
    return
  fi
  if out=$("$PY" "$interp_dir/reference.py" compare "$base.O0" "$base.O" --tol 1e-12 2>&1); then
    pass "$name"
  else
    fail "$name" "$(interp_tail "$out")"
  fi
  rm -f "$base.O0" "$base.O"
}

# The small variants must keep the examples' layers: everything above the model line is verbatim.
for interp_m in $interp_models; do
  if [ ! -f "$interp_dir/models/$interp_m.gnn" ]; then
    fail "interp/sync/$interp_m" "missing $interp_dir/models/$interp_m.gnn"
  elif diff <(awk '/^model /{exit} {print}' "dsl-examples/$interp_m.gnn") \
            <(awk 'NR == 1 {next} /^model /{exit} {print}' "$interp_dir/models/$interp_m.gnn") >/dev/null; then
    pass "interp/sync/$interp_m"
  else
    fail "interp/sync/$interp_m" "$interp_dir/models/$interp_m.gnn (after its first line) differs from dsl-examples/$interp_m.gnn above the model"
  fi
done

# Hand-computed cases (no NumPy needed).
for interp_c in $("$PY" "$interp_dir/hand.py" --list); do
  if interp_out=$("$PY" "$interp_dir/hand.py" "$GNNC" "$interp_tmp" "$interp_c" 2>&1); then
    pass "interp/hand/$interp_c"
  else
    fail "interp/hand/$interp_c" "$(interp_tail "$interp_out")"
  fi
done

if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
  fail "interp/numpy" "$PY cannot import numpy: run scripts/setup.sh (installs python3-numpy); the reference checks did not run"
else
  interp_seed=11
  for interp_m in $interp_models; do
    for interp_g in $interp_graphs; do
      interp_check "interp/ref/$interp_m-small/$interp_g" "$interp_m" "$interp_dir/models/$interp_m.gnn" "$interp_dir/graphs/$interp_g" $interp_seed
      interp_seed=$((interp_seed + 1))
    done
  done
  # The examples as written, with their own widths.
  for interp_m in gcn sage gin gat monet appnp; do
    interp_check "interp/ref/$interp_m/cora" "$interp_m" "dsl-examples/$interp_m.gnn" data/cora 3
  done
  interp_check "interp/ref/edgeconv/pointcloud" edgeconv dsl-examples/edgeconv.gnn "$interp_dir/graphs/pointcloud" 3
  # A bare edge list with --num-vertices: vertices 2001..2009 have no edges at all.
  cp "$interp_dir/graphs/hub/graph.edges" "$interp_tmp/hub.edges"
  interp_check "interp/ref/gat-small/hub-bare-nv2010" gat "$interp_dir/models/gat.gnn" "$interp_tmp/hub.edges" 9 2010
fi

# -O0 and the default pipeline: every example, and the small variants on two graphs.
if "$PY" -c 'import numpy' >/dev/null 2>&1; then
  for interp_m in gcn sage gin gat monet appnp; do
    interp_O0 "interp/O0/$interp_m/cora" "dsl-examples/$interp_m.gnn" data/cora 5
  done
  interp_O0 "interp/O0/edgeconv/pointcloud" dsl-examples/edgeconv.gnn "$interp_dir/graphs/pointcloud" 5
  for interp_m in $interp_models; do
    for interp_g in random duplicates; do
      interp_O0 "interp/O0/$interp_m-small/$interp_g" "$interp_dir/models/$interp_m.gnn" "$interp_dir/graphs/$interp_g" 6
    done
  done
  # compose's golden tests, their inputs all generated (a bare edge list has no features)
  for interp_f in tests/ir/compose_*.gnn; do
    interp_O0 "interp/O0/$(basename "$interp_f" .gnn)/random" "$interp_f" "$interp_dir/graphs/random/graph.edges" 8
  done
fi
# Outputs through a symlink: the file the link names is written, the link stays a link (a rename
# over the link turned it into a regular file and left the linked file as it was).
# A link to a file not there yet (o-link) creates the file where it points.
mkdir -p "$interp_tmp/linked" && echo old > "$interp_tmp/linked/p.txt" && ln -sfn linked/p.txt "$interp_tmp/p-link" &&
  rm -f "$interp_tmp/linked/o.txt" && ln -sfn linked/o.txt "$interp_tmp/o-link"
if "$GNNC" run "$interp_dir/models/gcn.gnn" --graph "$interp_dir/graphs/random" --save-params "$interp_tmp/p-link" \
     --output "$interp_tmp/o-link" > /dev/null 2>&1 &&
   [ -L "$interp_tmp/p-link" ] && head -c 12 "$interp_tmp/linked/p.txt" | grep -q '^#gnn-tensors' &&
   [ -L "$interp_tmp/o-link" ] && head -c 7 "$interp_tmp/linked/o.txt" | grep -q '^tensor ' &&
   [ "$(ls "$interp_tmp/linked" | tr '\n' ' ')" = "o.txt p.txt " ]; then
  pass interp/output-through-symlink
else fail interp/output-through-symlink "$(ls -l "$interp_tmp/p-link" "$interp_tmp/linked" 2>&1 | tr '\n' ' ')"; fi
unset -f interp_tail interp_check interp_O0
unset interp_dir interp_tmp interp_models interp_graphs interp_m interp_g interp_c interp_seed interp_out interp_f
