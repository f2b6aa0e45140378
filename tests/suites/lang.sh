# lang.sh -- sourced by tests/run.sh: the language constructs of issue 16 (values from dimensions,
# real hyper-parameters, the builtins, per-parameter initialisation, --self-loops), end to end on
# the programs of tests/lang/. Their gradients are checked by the grad suite
# (tests/grad/lang_*.gnn), their IR by the ir suite (tests/ir/lang_*.gnn), their misuse by the
# diag suite. Uses $GNNC, $ROOT (= cwd), $TMP, $PY, pass, fail.
#
#   lang/ref/NAME/GRAPH          gnnc run (the float64 interpreter, --init=uniform) against the
#                                NumPy reference tests/lang/ref.py, 1e-9
#   lang/O0/NAME                 -O0 and the default pipeline agree to 1e-12
#   lang/grad/NAME/GRAPH         gnnc gradcheck: autodiff against finite differences, 1e-6, no kink
#   lang/host/NAME/GRAPH/MAP     the host library (gnn-run) against the interpreter, 1e-5
#   lang/host/backward/NAME/GRAPH/MAP  training mode: out and every grad.<param>, 1e-4
#   lang/nvcc/NAME/MAP           the .cu compiles with nvcc (sm_80, sm_90), no warnings
#   lang/cc/NAME/MAP             the host .c compiles with gcc, -Wall -Wextra -Werror
#   lang/init/seeded/MAP         init.gnn: the library's own seeded initialisation (gnn-run without
#                                --params) equals the interpreter's (gnnc run --init=glorot), so
#                                declared initial values reach the generated create()
#   lang/init/glorot-file        gnnc run --init=glorot saves the declared values
#   lang/self-loops/same-as-file/GRAPH   gnnc run --self-loops equals gnnc run on a copy of the
#                                graph whose file has the self-loops appended (v v, ascending, for
#                                each vertex without one), to 1e-12
#   lang/self-loops/host/MODEL/GRAPH/MAP  gnn-run --self-loops against gnnc run --self-loops, 1e-5
#
# LANG_TARGET=cuda (make gpu-check, on a machine with a GPU): only the numeric checks, lang/cuda/...
# and lang/cuda/backward/..., with CUDA libraries, over the programs above and two examples no
# other CUDA check reaches: dsl-examples/hetero.gnn and dsl-examples/gin_graph.gnn (readouts over a
# batch of graphs, on tests/interp/graphs/batch with one feature column, as the model reads).

lang_dir=tests/lang
lang_tmp=$TMP/lang
mkdir -p "$lang_tmp"
lang_bin=$ROOT/build/bin
lang_progs="appnp builtins init loop multi outedges readout rgcn hetero"
lang_graphs="tests/interp/graphs/random tests/interp/graphs/isolated tests/interp/graphs/selfloops tests/interp/graphs/hub tests/interp/graphs/batch"
lang_tail() { printf '%s\n' "$1" | tail -n 3 | tr '\n' ' '; }

# lang_ref NAME GRAPH SEED
lang_ref() {
  local name=$1 graph=$2 seed=$3 b="$lang_tmp/ref" out
  if ! out=$("$GNNC" run "$lang_dir/$name.gnn" --graph "$graph" --init=uniform --seed "$seed" --save-params "$b.params" \
      --save-inputs "$b.inputs" --output "$b.out" 2>&1); then
    fail "lang/ref/$name/$(basename "$graph")" "gnnc run failed: $(lang_tail "$out")"
  elif out=$("$PY" "$lang_dir/ref.py" check "$name" "$graph" "$b.params" "$b.inputs" "$b.out" 2>&1); then
    pass "lang/ref/$name/$(basename "$graph")"
  else
    fail "lang/ref/$name/$(basename "$graph")" "$(lang_tail "$out")"
  fi
  rm -f "$b".*
}

# lang_lib NAME MAP: builds (once) and prints the library's path (host, or LANG_TARGET's)
lang_target=${LANG_TARGET:-host}
lang_src() { case $1 in */*) printf '%s' "$1" ;; *) printf '%s' "$lang_dir/$1.gnn" ;; esac; }
lang_lib() {
  local lib="$lang_tmp/lib$(basename "$(dirname "$(lang_src "$1")")")-$(basename "$1" .gnn)-$2-$lang_target.so"
  [ -f "$lib" ] || "$GNNC" "$(lang_src "$1")" --target=$lang_target $([ "$lang_target" = cuda ] && echo --arch=sm_80,sm_90) --mapping="$2" -o "$lib" >"$lib.log" 2>&1 || return 1
  printf '%s' "$lib"
}

# lang_run STEP CMD...: runs one step of a check, its stdout to $lang_tmp/step.out and its stderr
# to $lang_tmp/step.err; on failure sets lang_why to the step, its exit status (or the signal that
# killed it) and the tail of its stderr, else of its stdout. Separate streams because a program's
# stdout to a pipe is block-buffered: merged with stderr (2>&1), an error message printed on
# stderr lands before the whole of stdout, and the tail showed only gnn-run's normal report (the
# CUDA failure of backward/multi, which printed nothing the message kept).
lang_run() {
  local step=$1 rc=0 sig tailtext
  shift
  "$@" >"$lang_tmp/step.out" 2>"$lang_tmp/step.err" || rc=$?
  [ $rc -eq 0 ] && return 0
  lang_why="$step exited $rc"
  if [ $rc -gt 128 ] && sig=$(kill -l $((rc - 128)) 2>/dev/null); then lang_why="$step was killed by SIG$sig (exit $rc)"; fi
  tailtext=$(tail -n 3 "$lang_tmp/step.err" | tr '\n' ' ')
  [ -n "${tailtext// /}" ] || tailtext="(nothing on stderr) stdout: $(tail -n 3 "$lang_tmp/step.out" | tr '\n' ' ')"
  lang_why="$lang_why: $tailtext"
  return 1
}

# lang_host NAME GRAPH MAP SEED [--train]: the library against the interpreter (NAME: a program
# of tests/lang/, or the path of a .gnn). A failure names the step that failed (lang_run).
lang_host() {
  local name=$1 graph=$2 map=$3 seed=$4 train=${5:-} lib b="$lang_tmp/host" t src ngrad
  shard_take || return 0
  src=$(lang_src "$name")
  t="lang/$lang_target/$(basename "$name" .gnn)/$(basename "$graph")/$map"
  [ -n "$train" ] && t="lang/$lang_target/backward/$(basename "$name" .gnn)/$(basename "$graph")/$map"
  if ! lib=$(lang_lib "$name" "$map"); then
    fail "$t" "gnnc could not build the library: $(lang_tail "$(cat "$lang_tmp/lib"*"-$(basename "$name" .gnn)-$map-$lang_target.so.log")")"
    return
  fi
  lang_why=""
  if [ -z "$train" ]; then
    # (gnn-run draws the interpreter's parameters and inputs from the same seed: runtime/gnn_run.c)
    lang_run "gnnc run (the interpreter)" "$GNNC" run "$src" --graph "$graph" --seed "$seed" --output "$b.ref" &&
    lang_run "gnn-run" "$lang_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" --output "$b.got" --repeat 1 --warmup 0 &&
    lang_run "compare (1e-5)" "$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol 1e-5
  else
    lang_run "gnnc run --train (the interpreter)" "$GNNC" run "$src" --graph "$graph" --seed "$seed" --train --save-outputs "$b.ref" &&
    lang_run "gnn-run --train" "$lang_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" \
      --train --save-grads "$b.got" --output "$b.out" --repeat 1 --warmup 0 &&
    if [ ! -s "$b.out" ] || [ ! -s "$b.got" ]; then
      lang_why="gnn-run --train exited 0 but left its --output or --save-grads file missing or empty"
      false
    elif ! sed 's/^tensor output /tensor out /' "$b.out" >> "$b.got"; then
      lang_why="sed could not append gnn-run's --output to its --save-grads file"
      false
    elif ngrad=$(grep -c '^tensor grad\.' "$b.ref"); [ "$ngrad" -eq 0 ]; then
      lang_why="the interpreter's --save-outputs has no grad.* tensor to compare"
      false
    else
      lang_run "compare (1e-4)" "$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol 1e-4
    fi
  fi
  if [ $? -eq 0 ]; then pass "$t"; else fail "$t" "$lang_why"; fi
  rm -f "$b".*
}

if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
  fail "lang/numpy" "$PY cannot import numpy: run scripts/setup.sh (installs python3-numpy)"
fi

if [ "$lang_target" != host ]; then
  # the batch of graphs with one feature column: gin_graph's x is vertex[1]
  mkdir -p "$lang_tmp/batch1"
  cp tests/interp/graphs/batch/graph.edges tests/interp/graphs/batch/graph_indicator.txt "$lang_tmp/batch1/"
  awk '/^#/ { print; next } { split($2, kv, ":"); print $1, "1:" (kv[1] == "1" ? kv[2] : 0.5) }' \
    tests/interp/graphs/batch/features.svm > "$lang_tmp/batch1/features.svm"
  # the seeds of the host's checks below, case for case
  lang_seed=31
  for lang_p in $lang_progs dsl-examples/hetero.gnn dsl-examples/gin_graph.gnn; do
    lang_graphs_p="tests/interp/graphs/random tests/interp/graphs/isolated tests/codegen/graphs/hub10k"
    [ "$lang_p" = readout ] && lang_graphs_p+=" tests/interp/graphs/batch"
    [ "$lang_p" = dsl-examples/gin_graph.gnn ] && lang_graphs_p=$lang_tmp/batch1
    lang_seed=$((lang_seed + 5))
    for lang_map in vertex edge; do
      for lang_g in $lang_graphs_p; do
        lang_host "$lang_p" "$lang_g" $lang_map $lang_seed
        [ "$lang_p/$(basename "$lang_g")" = outedges/hub10k ] || lang_host "$lang_p" "$lang_g" $lang_map $lang_seed --train
        lang_seed=$((lang_seed + 1))
      done
    done
  done
else # the host's checks, and the language's own (interpreter, gradients, compile checks)
lang_seed=31
for lang_p in $lang_progs; do
  for lang_g in $lang_graphs; do
    lang_ref "$lang_p" "$lang_g" $lang_seed
    lang_seed=$((lang_seed + 1))
  done
  if lang_out=$("$GNNC" run -O0 "$lang_dir/$lang_p.gnn" --graph tests/interp/graphs/random --init=uniform --seed 7 \
        --output "$lang_tmp/O0.out" 2>&1) &&
     lang_out=$("$GNNC" run "$lang_dir/$lang_p.gnn" --graph tests/interp/graphs/random --init=uniform --seed 7 \
        --output "$lang_tmp/O.out" 2>&1) &&
     lang_out=$("$PY" tests/interp/reference.py compare "$lang_tmp/O0.out" "$lang_tmp/O.out" --tol 1e-12 2>&1); then
    pass "lang/O0/$lang_p"
  else
    fail "lang/O0/$lang_p" "$(lang_tail "$lang_out")"
  fi
  # the batch of graphs only where readouts read it (init's layer_norm of the rows of vertices
  # without in-edges, all zero, is too ill-conditioned there for the 1e-6 finite differences)
  lang_batch=""
  [ "$lang_p" = readout ] && lang_batch=tests/interp/graphs/batch
  for lang_g in tests/grad/graphs/small tests/interp/graphs/random $lang_batch; do
    lang_out=$(OMP_WAIT_POLICY=passive "$GNNC" gradcheck "$lang_dir/$lang_p.gnn" --graph $lang_g 2>&1)
    if [ $? -eq 0 ] && printf '%s\n' "$lang_out" | grep -q '(0 not checked at kinks; .*): ok$'; then
      pass "lang/grad/$lang_p/$(basename $lang_g)"
    else
      fail "lang/grad/$lang_p/$(basename $lang_g)" "$(lang_tail "$lang_out")"
    fi
  done
  for lang_map in vertex edge; do
    if ! lang_out=$("$GNNC" "$lang_dir/$lang_p.gnn" --mapping=$lang_map --emit=cu -o "$lang_tmp/$lang_p-$lang_map.cu" 2>&1) ||
       ! lang_out=$("$GNNC" "$lang_dir/$lang_p.gnn" --mapping=$lang_map --emit=c -o "$lang_tmp/$lang_p-$lang_map.c" 2>&1); then
      fail "lang/emit/$lang_p/$lang_map" "$(lang_tail "$lang_out")"
    else
      if ! command -v nvcc >/dev/null; then
        fail "lang/nvcc/$lang_p/$lang_map" "nvcc not found (the CUDA toolkit is required)"
      elif lang_out=$(cd "$lang_tmp" && nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 \
          -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I"$ROOT/runtime" -c "$lang_p-$lang_map.cu" -o "$lang_p-$lang_map.o" 2>&1) &&
          ! printf '%s' "$lang_out" | grep -qi warning; then
        pass "lang/nvcc/$lang_p/$lang_map"
      else
        fail "lang/nvcc/$lang_p/$lang_map" "$(lang_tail "$lang_out")"
      fi
      if lang_out=$(gcc -std=c11 -O1 -fopenmp -Wall -Wextra -Werror -I"$ROOT/runtime" -c "$lang_tmp/$lang_p-$lang_map.c" \
          -o "$lang_tmp/$lang_p-$lang_map-gcc.o" 2>&1); then
        pass "lang/cc/$lang_p/$lang_map"
      else
        fail "lang/cc/$lang_p/$lang_map" "$(lang_tail "$lang_out")"
      fi
    fi
    for lang_g in tests/interp/graphs/random tests/interp/graphs/isolated tests/codegen/graphs/hub10k $lang_batch; do
      lang_host "$lang_p" "$lang_g" $lang_map $lang_seed
      # outedges' backward on hub10k is left out: mean_out gives the 10,000 senders of the hub
      # nearly equal rows h, so dWin of the second layer is a sum of 10,000 nearly cancelling
      # products, and the float32 GEMM keeps 3-4 digits of it (4e-4 against the float64
      # interpreter, both mappings, fused or not; one layer alone agrees to 3e-6)
      [ "$lang_p/$(basename "$lang_g")" = outedges/hub10k ] ||
        lang_host "$lang_p" "$lang_g" $lang_map $lang_seed --train
      lang_seed=$((lang_seed + 1))
    done
  done
done

# Declared initial values in the generated code: no parameter file, both sides seeded.
for lang_map in vertex edge; do
  lang_b="$lang_tmp/seeded"
  if lang_lib_init=$(lang_lib init $lang_map) &&
     lang_out=$("$GNNC" run "$lang_dir/init.gnn" --graph tests/interp/graphs/random --seed 9 --save-inputs "$lang_b.inputs" \
        --output "$lang_b.ref" 2>&1) &&
     lang_out=$("$lang_bin/gnn-run" "$lang_lib_init" --graph tests/interp/graphs/random --seed 9 --inputs "$lang_b.inputs" \
        --output "$lang_b.got" --repeat 1 --warmup 0 2>&1) &&
     lang_out=$("$ROOT/build/bin/gnn-compare" "$lang_b.got" "$lang_b.ref" --tol 1e-5 2>&1); then
    pass "lang/init/seeded/$lang_map"
  else
    fail "lang/init/seeded/$lang_map" "$(lang_tail "$lang_out")"
  fi
done
if "$GNNC" run "$lang_dir/init.gnn" --graph tests/interp/graphs/random --save-params "$lang_tmp/glorot.params" >/dev/null 2>&1 &&
   grep -A1 -x 'tensor normconv1.g 1 1 3' "$lang_tmp/glorot.params" | grep -qx '1 1 1' &&
   grep -A1 -x 'tensor normconv0.mix 1 0' "$lang_tmp/glorot.params" | grep -qx '0.75' &&
   grep -A1 -x 'tensor normconv0.neg 1 0' "$lang_tmp/glorot.params" | grep -qx -- '-2'; then
  pass "lang/init/glorot-file"
else
  fail "lang/init/glorot-file" "the declared values are not in the saved parameters: $(head -c 300 "$lang_tmp/glorot.params" 2>&1)"
fi

# --self-loops in gnnc run and gnn-run, as gnn-train adds them.
for lang_g in tests/interp/graphs/isolated tests/interp/graphs/selfloops tests/interp/graphs/random; do
  lang_n=$(basename $lang_g)
  rm -rf "$lang_tmp/sl-$lang_n" && mkdir -p "$lang_tmp/sl-$lang_n"
  cp "$lang_g"/* "$lang_tmp/sl-$lang_n/"
  "$PY" - "$lang_g" "$lang_tmp/sl-$lang_n/graph.edges" <<'PYEOF'
import os, sys
g, out = sys.argv[1], sys.argv[2]
edges = [l.split() for l in open(os.path.join(g, "graph.edges")) if l.strip() and not l.startswith("#")]
feat = os.path.join(g, "features.svm")
nv = sum(1 for l in open(feat) if l.strip() and not l.startswith("#")) if os.path.exists(feat) else \
    1 + max(max(int(a), int(b)) for a, b in edges)
has = {int(a) for a, b in edges if a == b}
with open(out, "a") as f:
    f.write("".join("%d %d\n" % (v, v) for v in range(nv) if v not in has))
PYEOF
  if lang_out=$("$GNNC" run tests/interp/models/gcn.gnn --graph "$lang_g" --self-loops --seed 4 --output "$lang_tmp/sl.a" 2>&1) &&
     lang_out2=$("$GNNC" run tests/interp/models/gcn.gnn --graph "$lang_tmp/sl-$lang_n" --seed 4 --output "$lang_tmp/sl.b" 2>&1) &&
     [ "$(printf '%s\n' "$lang_out" | head -1 | sed 's/ on [^:]*:/:/')" = "$(printf '%s\n' "$lang_out2" | head -1 | sed 's/ on [^:]*:/:/')" ] &&
     lang_out=$("$PY" tests/interp/reference.py compare "$lang_tmp/sl.a" "$lang_tmp/sl.b" --tol 1e-12 2>&1); then
    pass "lang/self-loops/same-as-file/$lang_n"
  else
    fail "lang/self-loops/same-as-file/$lang_n" "$(lang_tail "$lang_out") / $(printf '%s' "${lang_out2:-}" | head -1)"
  fi
  for lang_m in tests/interp/models/gcn.gnn tests/lang/appnp.gnn; do
    for lang_map in vertex edge; do
      lang_t="lang/self-loops/host/$(basename $lang_m .gnn)/$lang_n/$lang_map"
      lang_b="$lang_tmp/slh"
      if lang_lib_sl="$lang_tmp/libsl-$(basename $lang_m .gnn)-$lang_map.so" &&
         { [ -f "$lang_lib_sl" ] || "$GNNC" "$lang_m" --target=host --mapping=$lang_map -o "$lang_lib_sl" >/dev/null 2>&1; } &&
         lang_out=$("$GNNC" run "$lang_m" --graph "$lang_g" --self-loops --seed 5 --save-params "$lang_b.params" \
           --save-inputs "$lang_b.inputs" --output "$lang_b.ref" 2>&1) &&
         lang_out=$("$lang_bin/gnn-run" "$lang_lib_sl" --graph "$lang_g" --self-loops --params "$lang_b.params" \
           --inputs "$lang_b.inputs" --output "$lang_b.got" --repeat 1 --warmup 0 2>&1) &&
         lang_out=$("$ROOT/build/bin/gnn-compare" "$lang_b.got" "$lang_b.ref" --tol 1e-5 2>&1); then
        pass "$lang_t"
      else
        fail "$lang_t" "$(lang_tail "$lang_out")"
      fi
    done
  done
done

fi # host

unset -f lang_tail lang_ref lang_lib lang_host lang_src
unset lang_target lang_batch lang_graphs_p lang_n lang_m lang_t lang_out2 lang_lib_sl lang_b lang_lib_init lang_dir lang_tmp lang_bin lang_progs lang_graphs lang_p lang_g lang_map lang_seed lang_out
