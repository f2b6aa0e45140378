# tests/codegen/lib.sh -- sourced by the codegen_* suites (tests/suites/codegen_*.sh), which check
# the generated code on a machine without a GPU, each one of its jobs:
#   codegen_build    the sources compile (nvcc, NVRTC, gcc, clang) and their PTX reads right;
#                    CPU shims of CUDA kernels (grid_wide_check.py); the RNG's draws
#   codegen_models   every example's library vs the float64 interpreter, forward and backward
#   codegen_paths    particular kernel paths (GEMM widths, attention loops, rounding, TF32,
#                    SpMM, input gradients, chained row sums, ...) vs the interpreter
#   codegen_layouts  --split-hubs, --tile-columns, --vector-loads: plans and numbers
#   codegen_host     the host path alone: embedding, valgrind, ASan+UBSan, the prelude's exp
# Their tests are all named codegen/...; tests/run.sh runs each as shards (TEST_SHARDED), and
# make gpu-check runs them together with CG_TARGET=cuda as its `codegen` step (tests/gpu/check.sh).
# Models: every dsl-examples/*.gnn at its own widths on Cora (EdgeConv on the point cloud, R-GCN
# on tests/train/make_relational.py's typed edges), and
# their small variants (tests/interp/models/) on every generated graph (isolated vertices,
# self-loops, duplicates, a 2,000 and a 10,000 in-edge hub with a 3,000 out-edge hub, a random
# graph) and on PubMed (data/pubmed, seeded inputs). Both thread mappings everywhere.
# Needs nvcc (the CUDA toolkit) and the runtime libraries that `make test` builds. Under make
# test-asan the numeric checks on PubMed and hub10k are left to make test (cg_asan_leaves).
#
# CG_TARGET=cuda (make gpu-check, on a machine with a GPU) runs the same numeric comparisons with
# the CUDA libraries (gnnc --target=cuda) instead of the host ones; the host-only checks
# (embedding, valgrind, ASan) are then skipped, since the GPU path has its own.

cg=$TMP/codegen
mkdir -p "$cg"
cg_bin=$ROOT/build/bin
cg_models="gcn sage gin gat edgeconv monet appnp rgcn"
cg_maps="vertex edge"
cg_tail() { printf '%s\n' "$1" | tail -n 4 | tr '\n' ' '; }
# Under TEST_SHARD (make test runs this suite as a shard per job; make gpu-check as 6) every check
# runs in exactly one shard: a numeric one by shard_take in its function, a block of its own below
# by `shard_take` before it, or by cg_plain, a block that make test alone runs (not CG_TARGET's).
cg_plain() { [ -z "${CG_TARGET:-}" ] && shard_take; }
# cg_cc_check NAME BASE: BASE.c compiles with gcc and with clang, -Wall -Wextra -Werror (NAME/gcc, NAME/clang)
cg_cc_check() {
  local cc out
  for cc in gcc clang; do
    need_tool "$1/$cc" $cc || continue
    if out=$(cached_tool "$2-$cc.o" $cc -std=c11 -O1 -fopenmp -Wall -Wextra -Werror -I"$ROOT/runtime" -c "$2.c" -o "$2-$cc.o"); then
      pass "$1/$cc"
    else
      fail "$1/$cc" "$(cg_tail "$out")"
    fi
  done
}
# cg_nvcc_check NAME BASE: BASE.cu compiles with nvcc for sm_80, every warning an error
cg_nvcc_check() {
  local out
  if ! command -v nvcc >/dev/null; then
    fail "$1" "nvcc not found (the CUDA toolkit is required)"
  elif out=$(cd "$(dirname "$2")" && cached_tool "$(basename "$2").o" nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Werror -I"$ROOT/runtime" -c "$(basename "$2").cu" -o "$(basename "$2").o") &&
       ! printf '%s' "$out" | grep -qi warning; then
    pass "$1"
  else
    fail "$1" "$(cg_tail "$out")"
  fi
}

# ---- host numerics against the interpreter
# cg_lib MODEL.gnn MAPPING: builds (once) and prints the host library's path.
cg_target=${CG_TARGET:-host}
# CG_FLAGS: more gnnc flags (--split-hubs), which name the library too.
cg_lib() { # MODEL MAPPING [--host-march=X] (GNNC_HOST_CFLAGS, when set, names a library of its own)
  local flags=${CG_FLAGS:-} cflags=${GNNC_HOST_CFLAGS:-} lib
  lib="$cg/lib$(basename "$(dirname "$1")")-$(basename "$1" .gnn)-$2-$cg_target${3:+-${3#--host-march=}}${flags:+$(printf '%s' "$flags" | tr -cs 'a-zA-Z0-9' '-')}${cflags:+-cc$(printf '%s' "$cflags" | tr -cs 'a-zA-Z0-9' '-')}.so"
  # shellcheck disable=SC2086 # CG_FLAGS: words
  [ -f "$lib" ] || "$GNNC" "$1" --target=$cg_target $([ "$cg_target" = cuda ] && echo --arch=sm_80,sm_90) --mapping="$2" ${3:-} $flags -o "$lib" >"$lib.log" 2>&1 || return 1
  printf '%s' "$lib"
}

# Under make test-asan (RT_SANITIZED) the numeric checks on the two large graphs, PubMed and
# hub10k, are make test's alone: they compare the same unsanitized libraries (gnnc-asan emits the
# same sources) with the same interpreter, and took about half the sanitized run's codegen time
# (the interpreter runs 2-3x slower under ASan). The sanitized gnnc still emits, builds and
# interprets every model on every other graph, and the ASan block below runs sanitized libraries.
# cg_asan_leaves GRAPH: true, counted, for such a check (before shard_take: the shards stay in step).
cg_left_to_plain=0
cg_asan_leaves() {
  [ -n "${RT_SANITIZED:-}" ] && [ -z "${CG_TARGET:-}" ] || return 1
  case $1 in data/pubmed | tests/codegen/graphs/hub10k) ;; *) return 1 ;; esac
  cg_left_to_plain=$((cg_left_to_plain + 1))
}

# cg_interp OUT FLAG MODEL.gnn ARG...: the float64 interpreter's reference, `gnnc run MODEL.gnn ARG...
# FLAG OUT` (FLAG --output, or --save-outputs when training), printing its output when it fails.
# The reference depends on the model, the graph, the seed and the mode, not on the library's
# mapping or flags: both mappings' checks (and --split-hubs', --tile-columns', ...) share one run,
# kept in $RUN_SHARED (tests/run.sh: this run's folder, shared by the shards) under the hash of
# gnnc's path, inode, size and time, the model's bytes and the words. Parameters and inputs are not saved: gnn-run
# draws the same ones from the same seed (runtime/gnn_run.c), and the graph's features are read
# from its folder by both; the --params/--inputs files are the cli and interp suites' subject.
cg_interp() {
  local out=$1 flag=$2 model=$3 dir key log
  shift 2
  dir=${RUN_SHARED:-$cg}/interp
  mkdir -p "$dir"
  key=$({ printf '%s\n' "$GNNC" "$flag" "$@"; stat -L -c '%i %s %Y' "$GNNC"; cat -- "$model"; } | sha256sum | cut -c1-64)
  if [ -f "$dir/$key" ] && cp "$dir/$key" "$out"; then return 0; fi
  log=$("$GNNC" run "$@" "$flag" "$out" 2>&1) || { printf '%s\n' "$log"; return 1; }
  cp "$out" "$dir/$key.$BASHPID" && mv "$dir/$key.$BASHPID" "$dir/$key"
  return 0
}

# cg_check NAME MODEL.gnn GRAPH MAPPING SEED [TOL]
cg_check() {
  local name=$1 model=$2 graph=$3 map=$4 seed=$5 tol=${6:-1e-5} lib out b="$cg/run"
  cg_asan_leaves "$graph" && return 0
  shard_take || return 0
  if ! lib=$(cg_lib "$model" "$map"); then
    fail "$name" "gnnc could not build the host library: $(cg_tail "$(cat "$cg/"*"$(basename "$model" .gnn)-$map.so.log" 2>/dev/null)")"
    return
  fi
  if ! out=$(cg_interp "$b.ref" --output "$model" --graph "$graph" --seed "$seed"); then
    fail "$name" "gnnc run failed: $(cg_tail "$out")"
    return
  fi
  if ! out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" --output "$b.got" --repeat 1 --warmup 0 2>&1); then
    fail "$name" "gnn-run failed: $(cg_tail "$out")"
    return
  fi
  if out=$("$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol "$tol" 2>&1); then
    pass "$name"
  else
    fail "$name" "$(cg_tail "$out")"
  fi
  rm -f "$b".*
}

# cg_relational_data: R-GCN's own widths, the typed-edge set of tests/train/make_relational.py
# (relations in graph.edges), in $cg_relational
cg_relational_data() {
  cg_relational=$cg/relational
  [ -f "$cg_relational/graph.edges" ] && return 0
  "$PY" tests/train/make_relational.py "$cg_relational" > /dev/null || { shard_first && fail codegen/relational-data "make_relational.py failed"; }
}

# cg_check_bwd NAME MODEL.gnn GRAPH MAPPING SEED [TOL]: training mode (dropout masks drawn from the
# seed), forward and backward, vs the interpreter: the output and every grad.<param>, 1e-4
cg_check_bwd() {
  local name=$1 model=$2 graph=$3 map=$4 seed=$5 tol=${6:-1e-4} lib out b="$cg/bwd"
  cg_asan_leaves "$graph" && return 0
  shard_take || return 0
  if ! lib=$(cg_lib "$model" "$map"); then
    fail "$name" "gnnc could not build the library"
    return
  fi
  if ! out=$(cg_interp "$b.ref" --save-outputs "$model" --graph "$graph" --seed "$seed" --train); then
    fail "$name" "gnnc run --train failed: $(cg_tail "$out")"
    return
  fi
  if ! out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" --train --save-grads "$b.got" --output "$b.out" \
      --repeat 1 --warmup 0 2>&1); then
    fail "$name" "gnn-run --train --backward failed: $(cg_tail "$out")"
    return
  fi
  sed 's/^tensor output /tensor out /' "$b.out" >> "$b.got"
  if out=$("$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol "$tol" 2>&1) &&
     [ "$(grep -c '^tensor grad\.' "$b.ref")" -gt 0 ]; then
    pass "$name"
  else
    fail "$name" "$(cg_tail "$out")"
  fi
  rm -f "$b".*
}

# cg_check_three NAME MODEL.gnn SEED [GRAPHS]: the output (seed SEED) and, training, the output and
# every gradient (seed SEED + 1) vs the interpreter on PubMed, hub10k and the graph with isolated
# vertices (or the GRAPHS named), both mappings
cg_check_three() {
  local map g
  for map in $cg_maps; do
    for g in ${4:-data/pubmed tests/codegen/graphs/hub10k tests/interp/graphs/isolated}; do
      cg_check "codegen/$cg_target/$1/$(basename $g)/$map" "$2" $g $map "$3"
      cg_check_bwd "codegen/$cg_target/backward/$1/$(basename $g)/$map" "$2" $g $map $(($3 + 1))
    done
  done
}

# cg_done: the end of a codegen_* suite: its names out of the way of the next suite (they are
# sourced into one shell), and the large-graph checks this sanitized run left to make test, said
# once, counted neither way
cg_done() {
  unset -f cg_tail cg_plain cg_cc_check cg_nvcc_check cg_lib cg_asan_leaves cg_interp cg_check cg_relational_data \
    cg_check_bwd cg_check_three cg_small
  unset cg_lib_gcn cg_march cg_a cg_b cg_asan cg_alib cg_target
  unset cg cg_bin cg_models cg_maps cg_m cg_map cg_cc cg_arch cg_out cg_g cg_gn cg_seed cg_drv cg_rc cg_o cg_pairs cg_bad cg_n
  unset cg_relational
  if [ "$cg_left_to_plain" -gt 0 ] && shard_first; then
    echo "  $(basename "${BASH_SOURCE[1]}" .sh): $cg_left_to_plain numeric checks on PubMed and hub10k are make test's (this run is sanitized: RT_SANITIZED)"
  fi
  unset cg_left_to_plain
}
