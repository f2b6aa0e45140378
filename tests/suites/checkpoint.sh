# checkpoint.sh -- sourced by tests/run.sh: the checkpoint pass (recompute vs stash) and the
# memory plan (docs/passes/checkpoint.md). The golden IR after checkpoint of every example is in
# the ir suite; codegen_models.sh compares the default (recomputing) build with the interpreter.
#
#   ckpt/same/MODEL/MAPPING        recompute (default) vs -fno-recompute vs --recompute=all host
#                                  libraries: the same output (1e-5) and gradients (1e-4)
#   ckpt/gat-no-edge-stash         with --recompute=all the GAT training plan stashes no edge
#                                  buffer (the softmax is recomputed from per-vertex max and sum);
#                                  the cost model stashes fewer than -fno-recompute (which stashes
#                                  edge buffers: the check can fail)
#   ckpt/reddit/MODEL              at Reddit's size: the cost model's plan fits in 24 GB and is
#                                  smaller than stash-all's; recompute-all's is at least 2x smaller
#   ckpt/peak/MODEL/GRAPH          the runtime's peak allocation over create + a training forward +
#                                  a backward equals the library's plan and gnnc --print-memory-plan's
#                                  total at the same V and E (tests/checkpoint/peak_plan.c)
#   ckpt/memory-limit/MODEL        a graph the plan does not fit: create refuses it with a status
#                                  naming the bytes needed and available and allocates nothing; a
#                                  training forward whose arena does not fit likewise; inference
#                                  still runs (tests/checkpoint/memory_limit.c, with the context's
#                                  gnn_set_memory_limit); ckpt/memory-limit/env: GNN_MEMORY_LIMIT
#                                  in gnn-run (1M: a GNN_ERR_OOM naming the limit or what is
#                                  available, whichever allocation meets it first), and a bad
#                                  value's message
#   ckpt/dropout-replay/MODEL/SEED the backward's dropout masks equal the forward's, bit for bit
#                                  (tests/checkpoint/dropout_replay.gnn; CUDA and host draw the same
#                                  masks: codegen/rng-draws)
#   ckpt/budget/...                --memory-budget: the fastest plan that fits, an error naming the
#                                  smallest plan's bytes below it, an error without V and E
#   ckpt/cli/...                   -fno-recompute, --recompute=all|cost, bad values
ck=$TMP/checkpoint
mkdir -p "$ck"
ck_bin=$ROOT/build/bin
ck_tail() { printf '%s\n' "$1" | tail -n 3 | tr '\n' ' '; }

# ---- the same numbers whatever is recomputed
ck_cmp() { # NAME MODEL GRAPH MAPPING
  local name=$1 model=$2 graph=$3 map=$4 out b="$ck/same" f
  for f in default stash all; do
    local flag=""
    [ $f = stash ] && flag=-fno-recompute
    [ $f = all ] && flag=--recompute=all
    # shellcheck disable=SC2086
    if ! out=$("$GNNC" "$model" --target=host --mapping=$map $flag -o "$b-$f.so" 2>&1); then
      fail "$name" "gnnc $flag: $(ck_tail "$out")"; return; fi
  done
  # (the same parameters, inputs and dropout masks for the three: drawn from the seed)
  for f in default stash all; do
    if ! out=$("$ck_bin/gnn-run" "$b-$f.so" --graph "$graph" --seed 9 --train \
        --save-grads "$b-$f.grads" --output "$b-$f.out" --repeat 1 --warmup 0 2>&1); then
      fail "$name" "gnn-run ($f): $(ck_tail "$out")"; return; fi
  done
  if out=$("$ROOT/build/bin/gnn-compare" "$b-default.out" "$b-stash.out" --tol 1e-5 2>&1) &&
     out=$("$ROOT/build/bin/gnn-compare" "$b-default.grads" "$b-stash.grads" --tol 1e-4 2>&1) &&
     out=$("$ROOT/build/bin/gnn-compare" "$b-all.out" "$b-stash.out" --tol 1e-5 2>&1) &&
     out=$("$ROOT/build/bin/gnn-compare" "$b-all.grads" "$b-stash.grads" --tol 1e-4 2>&1) &&
     [ "$(grep -c '^tensor grad\.' "$b-stash.grads")" -gt 0 ]; then
    pass "$name"
  else
    fail "$name" "$(ck_tail "$out")"
  fi
  rm -f "$b"*
}
for ck_m in gcn sage gin gat edgeconv monet; do
  ck_g=data/cora
  [ $ck_m = edgeconv ] && ck_g=tests/interp/graphs/pointcloud
  ck_cmp "ckpt/same/$ck_m/vertex" "dsl-examples/$ck_m.gnn" $ck_g vertex
  ck_cmp "ckpt/same/$ck_m-small/hub10k/edge" "tests/interp/models/$ck_m.gnn" tests/codegen/graphs/hub10k edge
done

# ---- GAT: no edge stash; the plan at Reddit's size
ck_edge_stashes() { "$GNNC" "$@" --print-memory-plan V=2708,E=10556 2>&1 | grep '^  stash ' | grep -c ' edge\['; }
ck_e=$(ck_edge_stashes dsl-examples/gat.gnn --recompute=all); ck_ed=$(ck_edge_stashes dsl-examples/gat.gnn)
ck_es=$(ck_edge_stashes dsl-examples/gat.gnn -fno-recompute)
if [ "$ck_e" = 0 ] && [ "$ck_ed" -lt "$ck_es" ]; then pass ckpt/gat-no-edge-stash
else fail ckpt/gat-no-edge-stash "edge stashes: $ck_e recomputing all, $ck_ed by the cost model, $ck_es with -fno-recompute"; fi
ck_total() { "$GNNC" "$@" --print-memory-plan V=232965,E=114615892 2>&1 | awk '$1 == "total" {print $2}'; }
for ck_m in dsl-examples/gat.gnn bench/gat_reddit.gnn; do
  ck_t=$(ck_total "$ck_m"); ck_ts=$(ck_total "$ck_m" -fno-recompute); ck_ta=$(ck_total "$ck_m" --recompute=all)
  if [ -n "$ck_t" ] && [ -n "$ck_ts" ] && [ -n "$ck_ta" ] && [ "$ck_t" -le 24000000000 ] && [ "$ck_t" -lt "$ck_ts" ] &&
     [ "$ck_ta" -le "$ck_t" ] && [ $((ck_ta * 2)) -le "$ck_ts" ]; then
    pass "ckpt/reddit/$(basename "$ck_m" .gnn)"
  else fail "ckpt/reddit/$(basename "$ck_m" .gnn)" "total bytes: $ck_t cost model, $ck_ta recompute all, $ck_ts stash all"; fi
done

# ---- the runtime's peak is the plan
if ck_out=$(cc -std=c11 -O1 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Iruntime tests/checkpoint/peak_plan.c -ldl \
    -o "$ck/peak_plan" 2>&1); then
  for ck_m in gcn sage gin gat edgeconv monet; do
    for ck_g in data/cora tests/codegen/graphs/hub10k; do
      ck_src=dsl-examples/$ck_m.gnn
      [ $ck_g != data/cora ] && ck_src=tests/interp/models/$ck_m.gnn
      [ $ck_m = edgeconv ] && [ $ck_g = data/cora ] && ck_g=tests/interp/graphs/pointcloud
      ck_n="ckpt/peak/$ck_m/$(basename $ck_g)"
      if ! ck_out=$("$GNNC" $ck_src --target=host -o "$ck/pp.so" 2>&1) ||
         ! ck_out=$("$ck/peak_plan" "$ck/pp.so" $ck_g 2>&1); then
        fail "$ck_n" "$(ck_tail "$ck_out")"; continue; fi
      ck_v=$(echo "$ck_out" | awk '{print $2}'); ck_e=$(echo "$ck_out" | awk '{print $4}'); ck_plan=$(echo "$ck_out" | awk '{print $8}')
      ck_printed=$("$GNNC" $ck_src --print-memory-plan V=$ck_v,E=$ck_e 2>&1 | awk '$1 == "total" {print $2}')
      if [ "$ck_printed" = "$ck_plan" ]; then pass "$ck_n"; else fail "$ck_n" "$ck_out; gnnc --print-memory-plan: $ck_printed"; fi
    done
  done
else
  fail ckpt/peak/build "$(ck_tail "$ck_out")"
fi

# ---- a graph too large for the plan: refused before anything is allocated
if ck_out=$(cc -std=c11 -O1 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Iruntime tests/checkpoint/memory_limit.c -ldl \
    -o "$ck/memory_limit" 2>&1); then
  for ck_m in gcn gat monet; do
    if ck_out=$("$GNNC" dsl-examples/$ck_m.gnn --target=host -o "$ck/ml.so" 2>&1) &&
       ck_out=$("$ck/memory_limit" "$ck/ml.so" data/cora 2>&1) && [ "$(printf '%s\n' "$ck_out" | grep -c '^ok ')" -ge 7 ]; then
      pass "ckpt/memory-limit/$ck_m"
    else
      fail "ckpt/memory-limit/$ck_m" "$(printf '%s\n' "$ck_out" | grep -v '^ok ' | tail -n 3 | tr '\n' ' ')"
    fi
  done
  "$GNNC" dsl-examples/gcn.gnn --target=host -o "$ck/ml.so" > /dev/null 2>&1
  ck_small=$(GNN_MEMORY_LIMIT=1M "$ck_bin/gnn-run" "$ck/ml.so" --graph data/cora 2>&1); ck_rc1=$?
  ck_badv=$(GNN_MEMORY_LIMIT=12Q "$ck_bin/gnn-run" "$ck/ml.so" --graph data/cora 2>&1); ck_rc2=$?
  ck_fits=$(GNN_MEMORY_LIMIT=1G "$ck_bin/gnn-run" "$ck/ml.so" --graph data/cora --repeat 1 --warmup 0 --backward 2>&1); ck_rc3=$?
  if [ $ck_rc1 -ne 0 ] && printf '%s' "$ck_small" | grep -Eq 'GNN_ERR_OOM: .*(available|memory limit of 1000000 bytes)' &&
     [ $ck_rc2 -ne 0 ] && printf '%s' "$ck_badv" | grep -q 'GNN_MEMORY_LIMIT=12Q is not a byte count' &&
     [ $ck_rc3 -eq 0 ]; then
    pass ckpt/memory-limit/env
  else
    fail ckpt/memory-limit/env "1M: rc $ck_rc1 $(ck_tail "$ck_small"); 12Q: rc $ck_rc2 $(ck_tail "$ck_badv"); 1G: rc $ck_rc3 $(ck_tail "$ck_fits")"
  fi
else
  fail ckpt/memory-limit/build "$(ck_tail "$ck_out")"
fi

# ---- dropout: the backward replays the forward's masks
ck_d=$ck/drop
mkdir -p "$ck_d"
"$PY" - "$ck_d" <<'PYEOF'
import sys
d = sys.argv[1]
V = 20
open(d + '/graph.edges', 'w').write(''.join(f'{v} {v}\n' for v in range(V)))
open(d + '/inputs', 'w').write(f'tensor x {V} 1 1\n' + '1\n' * V + f'tensor grad.out {V} 1 1\n' + ''.join(f'{2**v}\n' for v in range(V)))
open(d + '/params', 'w').write('tensor w 1 1 1\n1\n')
PYEOF
for ck_m in DropV DropE; do
  if ! ck_out=$("$GNNC" tests/checkpoint/dropout_replay.gnn --model=$ck_m --target=host -o "$ck_d/$ck_m.so" 2>&1); then
    fail "ckpt/dropout-replay/$ck_m" "$(ck_tail "$ck_out")"; continue; fi
  for ck_s in 1 2 11 12345; do
    if ! ck_out=$("$ck_bin/gnn-run" "$ck_d/$ck_m.so" --graph "$ck_d/graph.edges" --params "$ck_d/params" --inputs "$ck_d/inputs" \
        --seed $ck_s --train --save-grads "$ck_d/g" --output "$ck_d/out" --repeat 1 --warmup 0 2>&1); then
      fail "ckpt/dropout-replay/$ck_m/$ck_s" "$(ck_tail "$ck_out")"; continue; fi
    # kept vertices (output 2) -> 2 * sum 2^v; the gradient must be exactly that (after the files'
    # checksum line, #gnn-tensors ...)
    sed -i '/^#gnn-tensors /d' "$ck_d/out" "$ck_d/g"
    ck_want=$(awk 'NR > 1 { if ($1 == 2) s += 2 ^ (NR - 2); else if ($1 != 0) bad = 1 } END { print bad ? "bad" : 2 * s }' "$ck_d/out")
    ck_got=$(awk 'NR == 2 {print $1}' "$ck_d/g")
    ck_kept=$(awk 'NR > 1 && $1 == 2' "$ck_d/out" | wc -l)
    if [ "$ck_want" = "$ck_got" ] && [ "$ck_kept" -gt 0 ] && [ "$ck_kept" -lt 20 ]; then pass "ckpt/dropout-replay/$ck_m/$ck_s"
    else fail "ckpt/dropout-replay/$ck_m/$ck_s" "grad.w $ck_got, forward's mask gives $ck_want ($ck_kept of 20 kept)"; fi
  done
done

# ---- --memory-budget
ck_sz="--print-memory-plan V=232965,E=114615892"
ck_b() { "$GNNC" bench/gat_reddit.gnn "$@" 2>&1 >/dev/null; }
# shellcheck disable=SC2086
ck_out=$(ck_b --memory-budget=100G $ck_sz)
case "$ck_out" in *"plan 'stash all"*"(the fastest)"*) pass ckpt/budget/fits-stash-all ;;
  *) fail ckpt/budget/fits-stash-all "$(ck_tail "$ck_out")" ;; esac
# shellcheck disable=SC2086
ck_out=$(ck_b --memory-budget=6G $ck_sz)
case "$ck_out" in *"plan 'the cost model"*) pass ckpt/budget/recompute ;;
  *) fail ckpt/budget/recompute "$(ck_tail "$ck_out")" ;; esac
# shellcheck disable=SC2086
if ck_out=$(ck_b --memory-budget=1G $ck_sz); then fail ckpt/budget/too-small "exit 0: $(ck_tail "$ck_out")"
else case "$ck_out" in *"error: --memory-budget=1000000000 (1.00 GB) is below the smallest plan"*"needs "[0-9]*" bytes"*) pass ckpt/budget/too-small ;;
  *) fail ckpt/budget/too-small "$(ck_tail "$ck_out")" ;; esac; fi
if ck_out=$(ck_b --memory-budget=6G); then fail ckpt/budget/needs-size "exit 0"
else case "$ck_out" in *"needs the graph's size"*) pass ckpt/budget/needs-size ;; *) fail ckpt/budget/needs-size "$ck_out" ;; esac; fi
# beyond 2^64 bytes, in any spelling: 1e100 and the others were taken as a budget (that every plan fits)
for ck_bad in 0 -5 12Q abc inf nan 1e100 99999999999999999999999 18446744073709551616 20000000T 16777216TiB; do
  if ck_out=$(ck_b --memory-budget=$ck_bad $ck_sz); then fail "ckpt/budget/bad/$ck_bad" "exit 0"
  else case "$ck_out" in *"--memory-budget wants a positive number"*) pass "ckpt/budget/bad/$ck_bad" ;;
    *) fail "ckpt/budget/bad/$ck_bad" "$ck_out" ;; esac; fi
done

# ---- options
if ck_out=$(ck_b --recompute=some); then fail ckpt/cli/bad-recompute "exit 0"
else case "$ck_out" in *"--recompute wants cost or all"*) pass ckpt/cli/bad-recompute ;; *) fail ckpt/cli/bad-recompute "$ck_out" ;; esac; fi
ck_out=$("$GNNC" dsl-examples/gat.gnn -fno-recompute --print-ir-after=checkpoint 2>&1)
case "$ck_out" in *"IR after checkpoint"*) fail ckpt/cli/fno-recompute "the pass ran" ;; *) pass ckpt/cli/fno-recompute ;; esac
ck_out=$("$GNNC" dsl-examples/gat.gnn --list-passes 2>&1)
case "$ck_out" in *"compose"*"checkpoint"*"fuse"*) pass ckpt/cli/pipeline-order ;; *) fail ckpt/cli/pipeline-order "$ck_out" ;; esac
ck_out=$("$GNNC" dsl-examples/gcn.gnn -fno-autodiff --print-ir-after=checkpoint 2>&1)
case "$ck_out" in *"IR after checkpoint (unchanged)"*) pass ckpt/cli/inference-unchanged ;; *) fail ckpt/cli/inference-unchanged "$(ck_tail "$ck_out")" ;; esac
