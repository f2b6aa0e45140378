# codegen.sh -- sourced by tests/run.sh: the generated code, on a machine without a GPU.
#
#   codegen/nvcc/MODEL/MAPPING     the .cu compiles with nvcc for sm_80 and sm_90, no warnings
#                                  (-Werror all-warnings, and the host compiler's -Wall -Wextra -Werror)
#   codegen/nvrtc/MODEL/ARCH       NVRTC compiles the .cu's kernels to PTX (build/bin/gnn-nvrtc)
#   codegen/cc/MODEL/MAPPING/CC    the host .c compiles with gcc and clang, -Wall -Wextra -Werror
#   codegen/restrict/MODEL/MAPPING/FUSE  no value passes between lanes through a __restrict__
#                                  buffer across a barrier: every dsl-examples/*.gnn, both mappings,
#                                  fused and -fno-fuse, the .cu read by tests/codegen/restrict_check.py
#   codegen/unroll/MODEL/MAPPING/FUSE  no lane loop of more than 64 iterations under a bare
#                                  `#pragma unroll` (nvcc's front end spent 20 s per architecture
#                                  on EdgeConv's 1,024-iteration apply_global unrolled whole)
#   codegen/restrict-ptx/MODEL/MAPPING  the kernels that do pass values between lanes through memory,
#                                  compiled by nvcc -ptx -O3 for sm_90: every load of such a buffer
#                                  after the store and the barrier (issue 27: EdgeConv under
#                                  --mapping=edge gave wrong results on an H200 when it was not)
#   codegen/host/MODEL/GRAPH/MAPPING  the host library (gnnc -o lib.so --target=host) run by gnn-run
#                                  agrees with the float64 interpreter (`gnnc run`) on the same
#                                  parameters and inputs (both draw them from the seed; the graph's
#                                  features from its folder): gnn-compare (runtime/gnn_compare.c), 1e-5 (the
#                                  measure is in its docstring)
#   codegen/host/backward/MODEL/GRAPH/MAPPING  training mode (dropout on) forward and backward:
#                                  out and every grad.<param> vs the interpreter, 1e-4
#   codegen/host/input-grads/MODEL/GRAPH/MAPPING  built with --input-grads=all: out and every
#                                  grad_input.<input> vs the interpreter, 1e-4; .../unasked-params-identical:
#                                  asking for none gives the parameter-only library's gradients, bit for bit
#   codegen/host/chains/MODEL[-fno-fuse]/GRAPH/MAPPING[/backward]  chained row sums (tests/ir/ln6_chain,
#                                  normprop_chain, gated_res), fused and unfused: out, every grad.<param>
#                                  and grad_input.x vs the interpreter
#   codegen/host/gemm-widths/GRAPH/MAPPING (and backward/gemm-widths, .../tn)  the generated GEMM
#                                  loops at N = 72 (masked), 80, 48, C = A . B^T and C = A^T . B,
#                                  vs the interpreter
#   codegen/host/passthrough/[train/]MODEL[-O0]/MAPPING  outputs no kernel writes (in_deg, out_deg,
#                                  graph_size, an input's dropout returned as is, a parameter-free
#                                  chain of 51 ReLUs cut by the fuser): inference and
#                                  training forwards vs the interpreter (tests/codegen/passthrough/)
#   codegen/host/edge-lanes/GRAPH/MAPPING (and backward/edge-lanes, edge-lanes/emitted)  GAT layers
#                                  at 1, 2 and 8 heads of 4..32 (tests/codegen/edge_lanes.gnn):
#                                  the host's one loop over (edge, head) pairs and its pairwise
#                                  float64 sums, vs the interpreter
#   codegen/host-exp/-O3, -O0      the prelude's gnn_expf and gnn_expm1f (tests/codegen/exp_check.c)
#                                  vs glibc over every 61st float32 and the special values: <= 1 and
#                                  <= 2 ulp on normal results, +0 below FLT_MIN, inf/-1/NaN as glibc
#   codegen/host/row-softmax/GRAPH/MAPPING (and backward/row-softmax, nvcc/row-softmax, cc/row-softmax)
#                                  log_softmax / softmax with a row's max and sum before its element
#                                  loop (tests/codegen/row_softmax.gnn) vs the interpreter
#   codegen/rounding/ptx/MAPPING/ARCH, .../nvrtc/MAPPING  tests/codegen/contract.gnn's PTX (nvcc
#                                  sm_80, sm_90; NVRTC): no fma, every float add/sub/mul .rn
#   codegen/host/backward/rounding/GRAPH/MAPPING  its host library built with FMA contraction
#                                  forced (GNNC_HOST_CFLAGS) vs the interpreter (docs/kernel-ir.md,
#                                  "Rounding": max_out's gradient, found by eq(), was lost)
#   codegen/rng/...                the dropout draws of the CUDA and host code paths agree
#   codegen/grid-wide/...          EdgeConv's element-wise global kernels run grid-wide (128 blocks, no
#                                  lanes); a global kernel whose lanes cooperate stays one group;
#                                  .../cpu/MAPPING/KERNEL: every example's grid-wide kernels run on a
#                                  CPU on six grids, both thread orders (grid_wide_check.py)
#   codegen/cuda-lib/...           gnnc -o lib.so --target=cuda builds a CUDA library with nvcc,
#                                  SASS for each --arch and the PTX of the last one
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

# ---- compile checks (make test's: with CG_TARGET=cuda, on a GPU machine, they would only spend
# its time in nvcc, and they do not depend on the GPU)
[ -n "${CG_TARGET:-}" ] && cg_models_compile= || cg_models_compile=$cg_models
for cg_m in $cg_models_compile; do
  shard_take || continue
  for cg_map in $cg_maps; do
    if ! cg_out=$("$GNNC" "dsl-examples/$cg_m.gnn" --mapping=$cg_map --emit=cu -o "$cg/$cg_m-$cg_map.cu" 2>&1) ||
       ! "$GNNC" "dsl-examples/$cg_m.gnn" --mapping=$cg_map --emit=c -o "$cg/$cg_m-$cg_map.c" >/dev/null 2>&1; then
      fail "codegen/emit/$cg_m/$cg_map" "$(cg_tail "$cg_out")"
      continue
    fi
    if ! command -v nvcc >/dev/null; then
      fail "codegen/nvcc/$cg_m/$cg_map" "nvcc not found (the CUDA toolkit is required)"
    elif cg_out=$(cd "$cg" && cached_tool "$cg_m-$cg_map.o" nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 \
        -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I"$ROOT/runtime" -c "$cg_m-$cg_map.cu" -o "$cg_m-$cg_map.o") &&
        ! printf '%s' "$cg_out" | grep -qi warning; then
      pass "codegen/nvcc/$cg_m/$cg_map"
    else
      fail "codegen/nvcc/$cg_m/$cg_map" "$(cg_tail "$cg_out")"
    fi
    cg_cc_check "codegen/cc/$cg_m/$cg_map" "$cg/$cg_m-$cg_map"
  done
  for cg_arch in compute_80 compute_90; do
    if [ ! -x "$cg_bin/gnn-nvrtc" ]; then
      fail "codegen/nvrtc/$cg_m/$cg_arch" "build/bin/gnn-nvrtc is missing (make runtime-cuda)"
    elif cg_out=$("$cg_bin/gnn-nvrtc" "$cg/$cg_m-vertex.cu" $cg_arch "$cg/$cg_m.ptx" 2>&1) && grep -q '\.entry' "$cg/$cg_m.ptx"; then
      pass "codegen/nvrtc/$cg_m/$cg_arch"
    else
      fail "codegen/nvrtc/$cg_m/$cg_arch" "$(cg_tail "$cg_out")"
    fi
  done
done

# a model without parameters (and so without its tables' entries): the placeholder entry names
# every member, so g++ -Wextra (nvcc's host compiler) has no missing-field-initializers warning
# (a tester's find: -Werror builds of such a .cu failed); and gcc/clang on its .c
if cg_plain; then
  printf 'model Bn(x: vertex[2]) -> vertex[2] {\n  return sum(x[src])\n}\n' > "$cg/noparams.gnn"
  if "$GNNC" "$cg/noparams.gnn" --emit=cu -o "$cg/noparams.cu" > /dev/null 2>&1 && "$GNNC" "$cg/noparams.gnn" --emit=c -o "$cg/noparams.c" > /dev/null 2>&1; then
    cg_nvcc_check codegen/nvcc/no-params "$cg/noparams"
    cg_cc_check codegen/cc/no-params "$cg/noparams"
  else
    fail codegen/emit/no-params "gnnc could not emit a model without parameters"
  fi
fi

# ---- values passed between lanes through memory (issue 27). nvcc reads __restrict__ per thread
# and may load a restrict buffer before the barrier that orders another lane's store before the
# load; the CUDA emitter leaves such buffers plain (kernel_reads_back_across_barrier). Read from
# the .cu, independently of that analysis, for every example; the PTX of the kernels concerned
# (EdgeConv's edge-mapped %10..%13 was the case nvcc 13 got wrong; its roots are kept in the
# group's shared array now, so tests/codegen/kept_roots.gnn's 300-wide root, read back from memory
# across lanes under both mappings, is the one that must be there).
# (with CG_TARGET, on the GPU machine, without the PTX: nvcc's time)
for cg_f in dsl-examples/*.gnn tests/codegen/kept_roots.gnn; do
  shard_take || continue
  cg_m=$(basename "$cg_f" .gnn)
  for cg_map in $cg_maps; do
    for cg_fuse in fused unfused; do
      cg_rs=$cg/restrict-$cg_m-$cg_map-$cg_fuse
      cg_name=codegen/restrict/$cg_m/$cg_map/$cg_fuse
      if ! cg_out=$("$GNNC" "$cg_f" --mapping=$cg_map $([ $cg_fuse = unfused ] && echo -fno-fuse) --emit=cu -o "$cg_rs.cu" 2>&1); then
        fail "$cg_name" "$(cg_tail "$cg_out")"
        continue
      fi
      if cg_out=$("$PY" tests/codegen/restrict_check.py cu "$cg_rs.cu" 2>&1); then
        pass "$cg_name"
      else
        fail "$cg_name" "$(cg_tail "$cg_out")"
      fi
      # no lane loop of more than 64 iterations unrolled whole (none of these holds a register
      # array that long): EdgeConv's 1,024-iteration apply_global cost nvcc 20 s per architecture
      cg_long=$(awk '/#pragma unroll$/ { p = 1; next } p && match($0, /< [0-9]+;/) { n = substr($0, RSTART + 2, RLENGTH - 3) + 0; if (n > 64) print FNR ": " $0 } { p = 0 }' "$cg_rs.cu")
      if [ -z "$cg_long" ]; then pass "codegen/unroll/$cg_m/$cg_map/$cg_fuse"; else fail "codegen/unroll/$cg_m/$cg_map/$cg_fuse" "$(cg_tail "$cg_long")"; fi
      [ $cg_fuse = fused ] && [ -z "${CG_TARGET:-}" ] || continue
      cg_name=codegen/restrict-ptx/$cg_m/$cg_map
      if ! "$PY" tests/codegen/restrict_check.py extract "$cg_rs.cu" "$cg_rs-lanes.cu" > /dev/null; then
        [ $cg_m = kept_roots ] && fail "$cg_name" "no kernel passes values between lanes: the check has lost its subject"
        continue
      fi
      if ! command -v nvcc >/dev/null; then
        fail "$cg_name" "nvcc not found (the CUDA toolkit is required)"
      elif ! cg_out=$(cd "$cg" && cached_tool "$cg_rs-lanes.ptx" nvcc -ptx -O3 -arch=sm_90 -I"$ROOT/runtime" "$cg_rs-lanes.cu" -o "$cg_rs-lanes.ptx"); then
        fail "$cg_name" "nvcc -ptx: $(cg_tail "$cg_out")"
      elif cg_out=$("$PY" tests/codegen/restrict_check.py ptx "$cg_rs.cu" "$cg_rs-lanes.ptx" 2>&1); then
        pass "$cg_name"
      else
        fail "$cg_name" "$(cg_tail "$cg_out")"
      fi
    done
  done
done

# ---- element-wise global kernels run grid-wide (emit_cuda.c, grid_elementwise): EdgeConv's two
# parameter-sized apply_global kernels (32,768 elements in the longest loop) ran as one group of 32
# lanes, 1,024 iterations on one warp; now a thread per element, ceil(32768 / 256) = 128 blocks, no
# barrier. A global kernel whose lanes read each other's elements (a softmax over a parameter's
# row) stays one group. (The numbers: the GPU suites, codegen with CG_TARGET=cuda.)
if cg_plain; then
  if ! cg_out=$("$GNNC" dsl-examples/edgeconv.gnn --emit=cu -o "$cg/grid-edgeconv.cu" 2>&1); then
    fail codegen/grid-wide/edgeconv "$(cg_tail "$cg_out")"
  else
    cg_bad=
    for cg_k in dgcnn_k0_apply_global_sub_global dgcnn_k14_apply_global_add_global; do
      cg_body=$(awk -v k="$cg_k" '$0 ~ "^/\\* " k ":" { p = 1 } p { print } p && /^}/ { exit }' "$cg/grid-edgeconv.cu")
      case $cg_body in
        *": grid-wide, a thread per element (32768 in its longest loop)"*) ;;
        *) cg_bad="$cg_bad $cg_k is not grid-wide;" ;;
      esac
      case $cg_body in *__syncwarp*|*lane*) cg_bad="$cg_bad $cg_k still has lanes or barriers;" ;; esac
      grep -A2 "const unsigned blocks = 128;" "$cg/grid-edgeconv.cu" | grep -q "$cg_k<<<blocks, 256" ||
        cg_bad="$cg_bad $cg_k is not launched on 128 blocks of 256;"
    done
    if [ -z "$cg_bad" ]; then pass codegen/grid-wide/edgeconv; else fail codegen/grid-wide/edgeconv "$cg_bad"; fi
  fi
  if ! cg_out=$("$GNNC" tests/codegen/global_softmax.gnn --emit=cu -o "$cg/grid-softmax.cu" 2>&1); then
    fail codegen/grid-wide/cooperating-lanes "$(cg_tail "$cg_out")"
  elif grep -q '^/\* globalsoftmax_k[0-9]*_sub_global: one group, 4 lanes per group' "$cg/grid-softmax.cu" &&
       grep -q '^/\* globalsoftmax_k[0-9]*_reduce_rows_sum_finish_global: grid-wide' "$cg/grid-softmax.cu"; then
    pass codegen/grid-wide/cooperating-lanes
  else
    fail codegen/grid-wide/cooperating-lanes "the softmax's global kernel is not one group, or the finish kernel not grid-wide: $(grep '_global: ' "$cg/grid-softmax.cu" | cut -c1-100 | tr '\n' ' ')"
  fi
fi

# The grid-wide kernels run on a CPU (tests/codegen/grid_wide_check.py; no GPU has run them yet):
# every dsl-examples model's, both mappings, each kernel on 1, 2, 3, 7 and 128 blocks and on its
# launch's grid plus 5, threads in both orders, against its launch's grid, bit for bit, with its
# buffers of their kernel-IR sizes under ASan+UBSan: every element of what it makes written, none
# past a buffer, no thread reading what another wrote (the barriers it dropped ordered nothing).
if cg_plain && need_tool codegen/grid-wide/cpu g++; then
  for cg_map in $cg_maps; do
    cg_pairs= cg_bad=
    for cg_f in dsl-examples/*.gnn; do
      cg_n=$(basename "$cg_f" .gnn)
      if "$GNNC" "$cg_f" --mapping=$cg_map --emit=cu -o "$cg/gw-$cg_n-$cg_map.cu" > /dev/null 2>&1 &&
         "$GNNC" "$cg_f" --mapping=$cg_map --emit=kir > "$cg/gw-$cg_n-$cg_map.kir" 2>&1; then
        cg_pairs="$cg_pairs $cg/gw-$cg_n-$cg_map.cu:$cg/gw-$cg_n-$cg_map.kir"
      else
        cg_bad="$cg_bad $cg_n"
      fi
    done
    if [ -n "$cg_bad" ]; then
      fail "codegen/grid-wide/cpu/$cg_map" "gnnc could not emit the CUDA source or kernel IR of$cg_bad"
    elif ! cg_out=$("$PY" tests/codegen/grid_wide_check.py "$cg/gw-$cg_map.cpp" $cg_pairs 2>&1) ||
         ! cg_out=$(cd "$cg" && cached_tool "gw-$cg_map" g++ -std=c++17 -O1 -g -Wall -Wextra -Werror \
                      -fsanitize=address,undefined -fno-sanitize-recover=all "gw-$cg_map.cpp" -o "gw-$cg_map"); then
      fail "codegen/grid-wide/cpu/$cg_map" "$(cg_tail "$cg_out")"
    else
      cg_out=$("$cg/gw-$cg_map" 2>&1)
      report_lines "codegen/grid-wide/cpu/$cg_map" $? "$cg_out"
    fi
  done
fi

# ---- a CUDA shared library through gnnc itself (nvcc, linked against build/lib/libgnnrt.so),
# with the default --arch: SASS for sm_80 and the PTX of compute_80, which the driver compiles
# for a newer GPU (an H100 is sm_90; SASS for sm_80 alone would not load there).
if cg_plain; then
  if ! command -v nvcc >/dev/null; then
    fail codegen/cuda-lib/gcn "nvcc not found (the CUDA toolkit is required)"
  elif [ ! -f "$ROOT/build/lib/libgnnrt.so" ]; then
    fail codegen/cuda-lib/gcn "build/lib/libgnnrt.so is missing (make runtime-cuda)"
  elif cg_out=$("$GNNC" dsl-examples/gcn.gnn -v -o "$cg/libgcn-cuda.so" 2>&1) &&
       printf '%s' "$cg_out" | grep -q -- '-gencode=arch=compute_80,code=sm_80' &&
       printf '%s' "$cg_out" | grep -q -- '-gencode=arch=compute_80,code=compute_80' &&
       nm -D --defined-only "$cg/libgcn-cuda.so" | grep -qw gcn_api &&
       nm -D --defined-only "$cg/libgcn-cuda.so" | grep -qw gnn_model_entry &&
       readelf -d "$cg/libgcn-cuda.so" | grep -q 'NEEDED.*libcudart\.so'; then
    pass codegen/cuda-lib/gcn
  else
    fail codegen/cuda-lib/gcn "$(cg_tail "$cg_out") $(nm -D --defined-only "$cg/libgcn-cuda.so" 2>&1 | grep -i entry)"
  fi
  # The drivers find the entry point (unmangled) and reach the runtime, which, with no GPU,
  # answers with a status naming the failed call, exit 1.
  if [ -f "$cg/libgcn-cuda.so" ] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
    for cg_drv in "gnn-run $cg/libgcn-cuda.so --graph data/cora" "gnn-train $cg/libgcn-cuda.so --data data/cora --epochs 1"; do
      # shellcheck disable=SC2086 # the words of the command line
      "$cg_bin"/$cg_drv > "$cg/drv.out" 2>&1; cg_rc=$?
      if [ $cg_rc -eq 1 ] && grep -q 'cudaGetDeviceCount' "$cg/drv.out" && ! grep -q 'no gnn_model_entry' "$cg/drv.out"; then
        pass "codegen/cuda-lib/${cg_drv%% *}-no-gpu"
      else
        fail "codegen/cuda-lib/${cg_drv%% *}-no-gpu" "exit $cg_rc: $(head -c 300 "$cg/drv.out")"
      fi
    done
  fi
  # two architectures: SASS for both, PTX of the last only
  if command -v nvcc >/dev/null && [ -f "$ROOT/build/lib/libgnnrt.so" ] &&
     cg_out=$("$GNNC" dsl-examples/gcn.gnn -v --arch=sm_80,sm_90 -o "$cg/libgcn-cuda2.so" 2>&1) &&
     [ "$(printf '%s' "$cg_out" | grep -o -- '-gencode=[^ ]*' | tr '\n' ' ')" = \
       "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 " ]; then
    pass codegen/cuda-lib/gcn-two-archs
  else
    fail codegen/cuda-lib/gcn-two-archs "$(cg_tail "${cg_out:-}")"
  fi
fi

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

# R-GCN's own widths: the typed-edge set of tests/train/make_relational.py (relations in graph.edges)
cg_relational=$cg/relational
"$PY" tests/train/make_relational.py "$cg_relational" > /dev/null || { shard_first && fail codegen/relational-data "make_relational.py failed"; }
if [ ! -x "$cg_bin/gnn-run" ] || [ ! -f "$ROOT/build/lib/libgnnrt_host.so" ] || { [ $cg_target = cuda ] && [ ! -f "$ROOT/build/lib/libgnnrt.so" ]; }; then
  shard_first && fail "codegen/host" "build/bin/gnn-run or build/lib/libgnnrt_host.so is missing (make runtime)"
else
  cg_seed=21
  for cg_map in $cg_maps; do
    for cg_m in $cg_models; do
      cg_g=data/cora
      [ $cg_m = edgeconv ] && cg_g=tests/interp/graphs/pointcloud
      [ $cg_m = rgcn ] && cg_g=$cg_relational
      cg_check "codegen/$cg_target/$cg_m/$(basename $cg_g)/$cg_map" "dsl-examples/$cg_m.gnn" $cg_g $cg_map $cg_seed
      for cg_g in tests/interp/graphs/isolated tests/interp/graphs/selfloops tests/interp/graphs/duplicates \
                  tests/interp/graphs/hub tests/interp/graphs/random tests/codegen/graphs/hub10k data/pubmed; do
        cg_check "codegen/$cg_target/$cg_m-small/$(basename $cg_g)/$cg_map" "tests/interp/models/$cg_m.gnn" $cg_g $cg_map $cg_seed
      done
      cg_seed=$((cg_seed + 1))
    done
  done
fi
# ---- training: forward in training mode (dropout masks drawn from the seed) and the backward,
# host library vs the interpreter: the output and every grad.<param>, 1e-4 (issue 4). The
# forward's dropout masks (features and attention) must be the interpreter's bit for bit, or
# the outputs differ by O(1).
# cg_check_bwd NAME MODEL.gnn GRAPH MAPPING SEED [TOL]
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
if [ -x "$cg_bin/gnn-run" ]; then
  cg_seed=41
  for cg_map in $cg_maps; do
    for cg_m in $cg_models; do
      cg_g=data/cora
      [ $cg_m = edgeconv ] && cg_g=tests/interp/graphs/pointcloud
      [ $cg_m = rgcn ] && cg_g=$cg_relational
      cg_check_bwd "codegen/$cg_target/backward/$cg_m/$(basename $cg_g)/$cg_map" "dsl-examples/$cg_m.gnn" $cg_g $cg_map $cg_seed
      for cg_g in tests/interp/graphs/isolated tests/interp/graphs/duplicates tests/codegen/graphs/hub10k; do
        # GAT on `isolated` at --mapping=edge (seed 52) is the hard case: vertex 1's two in-edges
        # carry attention 1 - 6.05e-6 and 6.05e-6, so d(score) = alpha (1 - alpha) d(alpha) hangs on
        # 1 - alpha, which a float32 alpha (1 - 102 ulp) keeps to 1%. The edge-balanced aggregate
        # recomputes alpha from the softmax walk's statistics in float64 (docs/passes/fuse.md), as
        # the vertex-balanced walk keeps it unrounded: both within 2e-6 of the interpreter there
        # (an edge buffer of float32 alpha was 1.6e-4 off, and needed 3e-4 here).
        cg_check_bwd "codegen/$cg_target/backward/$cg_m-small/$(basename $cg_g)/$cg_map" "tests/interp/models/$cg_m.gnn" $cg_g $cg_map $cg_seed
      done
      cg_seed=$((cg_seed + 1))
    done
  done
fi

# The generated GEMM loops' widths (tests/codegen/gemm_widths.gnn: N = 72 masked, 80, 48, and
# their C = A . B^T in the backward) on PubMed's 19,717 rows (a partial last block) and hub10k:
# the output and every gradient vs the interpreter. The weights' gradients C = A^T . B take the
# generated loops only from 65,536 rows (GNN_GEMM_TN_MIN_ROWS), more than these graphs have: the
# .../tn checks build with -DGNN_GEMM_TN_MIN_ROWS=64 so that they run here (a copy of the model,
# so that the library has its own name).
if [ -x "$cg_bin/gnn-run" ]; then
  cp tests/codegen/gemm_widths.gnn "$cg/gemm_widths_tn.gnn"
  for cg_map in $cg_maps; do
    for cg_g in data/pubmed tests/codegen/graphs/hub10k; do
      cg_check "codegen/$cg_target/gemm-widths/$(basename $cg_g)/$cg_map" tests/codegen/gemm_widths.gnn $cg_g $cg_map 61
      cg_check_bwd "codegen/$cg_target/backward/gemm-widths/$(basename $cg_g)/$cg_map" tests/codegen/gemm_widths.gnn $cg_g $cg_map 62
      GNNC_HOST_CFLAGS="${GNNC_HOST_CFLAGS:+$GNNC_HOST_CFLAGS }-DGNN_GEMM_TN_MIN_ROWS=64" \
        cg_check_bwd "codegen/$cg_target/backward/gemm-widths/$(basename $cg_g)/$cg_map/tn" "$cg/gemm_widths_tn.gnn" $cg_g $cg_map 63
    done
  done
fi

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

# The host emitter's loop forms for attention (tests/codegen/edge_lanes.gnn: a chunk's edges and
# heads as one vector loop at H = 1, 2, 8; float64 dot products added pairwise at D = 4, 8, 32; and
# its ten weight-gradient sums, more than one kernel's eight block-reduced targets, in two
# kernels): the emitted C takes both forms (else the comparisons below lost their subject), and
# the output and every gradient agree with the interpreter on PubMed, hub10k and the graph with
# isolated vertices, both mappings.
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    if ! cg_out=$("$GNNC" tests/codegen/edge_lanes.gnn --target=host --emit=c -o "$cg/edge_lanes.c" 2>&1); then
      fail codegen/host/edge-lanes/emitted "$(cg_tail "$cg_out")"
    elif [ "$(grep -c 'see emit_edge_lanes \*/' "$cg/edge_lanes.c")" -ge 10 ] &&
         [ "$(grep -c 'a float64 sum added pairwise' "$cg/edge_lanes.c")" -ge 10 ] &&
         grep -q 'gnn_b < (cnt) \* 8;' "$cg/edge_lanes.c" && grep -q 'double pairs\[32\]' "$cg/edge_lanes.c"; then
      pass codegen/host/edge-lanes/emitted
    else
      fail codegen/host/edge-lanes/emitted "the emitted C lacks the edge-lanes or pairwise-sum loops"
    fi
    cg_cc_check codegen/cc/edge-lanes "$cg/edge_lanes"
  fi
  cg_check_three edge-lanes tests/codegen/edge_lanes.gnn 71
fi

# Spread dots (tests/codegen/spread_dots.gnn): the attention backward's d(alpha) per head, in the
# fused kernel per edge, takes the group's lanes over the head's D elements and a group_sum
# (lower_groups.c, find_spread: coalesced loads on a GPU), at D = 64, 16 and 20: the CUDA target's
# default, --dots=serial a lane per head (the host's default, faster there). The plan of each; the
# host library built with --dots=spread (the host's group_sum folds the lanes in halves, as the
# shuffle butterfly adds) and with the default against the interpreter, output and every
# gradient, both mappings; the CUDA source of each compiles (sm_80).
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    if ! cg_out=$("$GNNC" tests/codegen/spread_dots.gnn --emit=kir 2>&1) || ! cg_out2=$("$GNNC" tests/codegen/spread_dots.gnn --dots=serial --emit=kir 2>&1) ||
       ! cg_out3=$("$GNNC" tests/codegen/spread_dots.gnn --target=host --emit=kir 2>&1); then
      fail codegen/host/spread-dots/plan "$(cg_tail "$cg_out${cg_out2:-}${cg_out3:-}")"
    elif [ "$(printf '%s\n' "$cg_out" | grep -c '^kernel k[0-9]*_sub_edge: edge-balanced: one group per edge, group \(4\|8\|16\) ')" -eq 3 ] &&
         printf '%s\n' "$cg_out" | grep -q 'for k, i in lanes(64) {' && printf '%s\n' "$cg_out" | grep -q 'for k, i in lanes(20) {' &&
         [ "$(printf '%s\n' "$cg_out" | grep -c '    part = group_sum(part)$')" -ge 3 ] &&
         [ "$(printf '%s\n' "$cg_out" | grep -c '^  shared sh_red[0-9]*: f64\[')" -ge 3 ] &&
         ! printf '%s\n' "$cg_out2" | grep -q 'group_sum\|sh_red' && [ "$cg_out2" = "$cg_out3" ]; then
      pass codegen/host/spread-dots/plan
    else
      fail codegen/host/spread-dots/plan "the d(alpha) kernels are not spread over the lanes for CUDA, or are with --dots=serial or for the host"
    fi
    for cg_d in spread serial; do
      if ! command -v nvcc >/dev/null; then
        cg_out="nvcc not found (the CUDA toolkit is required)"
      elif cg_out=$("$GNNC" tests/codegen/spread_dots.gnn --dots=$cg_d --emit=cu -o "$cg/spread_dots_$cg_d.cu" 2>&1) &&
         cg_out=$(cd "$cg" && nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
                  -I"$ROOT/runtime" -c "spread_dots_$cg_d.cu" -o "spread_dots_$cg_d.o" 2>&1) && ! printf '%s' "$cg_out" | grep -qi warning; then
        pass codegen/nvcc/spread-dots/$cg_d
      else
        fail codegen/nvcc/spread-dots/$cg_d "$(cg_tail "$cg_out")"
      fi
    done
  fi
  for cg_map in $cg_maps; do
    for cg_g in tests/codegen/graphs/hub10k tests/interp/graphs/isolated; do
      CG_FLAGS=--dots=spread cg_check "codegen/$cg_target/spread-dots/$(basename $cg_g)/$cg_map" tests/codegen/spread_dots.gnn $cg_g $cg_map 161
      CG_FLAGS=--dots=spread cg_check_bwd "codegen/$cg_target/backward/spread-dots/$(basename $cg_g)/$cg_map" tests/codegen/spread_dots.gnn $cg_g $cg_map 162
    done
    CG_FLAGS=--dots=serial cg_check "codegen/$cg_target/serial-dots/hub10k/$cg_map" tests/codegen/spread_dots.gnn tests/codegen/graphs/hub10k $cg_map 163
    CG_FLAGS=--dots=serial cg_check_bwd "codegen/$cg_target/backward/serial-dots/hub10k/$cg_map" tests/codegen/spread_dots.gnn tests/codegen/graphs/hub10k $cg_map 164
  done
fi

# Rounding (tests/codegen/contract.gnn; docs/kernel-ir.md, "Rounding"): the backward of max_out /
# min_out finds the out-edges holding the extremum by eq() with a value it recomputes, so that
# value must round alike in every kernel. nvcc made x = h[src] * h[src] + h[dst] one FMA in the
# backward's walk over in-edges and a multiply (hoisted) and an add in the forward's: no edge
# equal to the maximum, that gradient 0. The model's PTX, from nvcc for sm_80 and sm_90 and from
# NVRTC (the runtime's path: the driver compiles its PTX with contraction on): no fma, and no
# float add, sub or mul without .rn (ptxas fuses a plain mul.f32 and add.f32 itself: the
# forward's min_out chain was an FFMA in the SASS of PTX without one). The host library with
# contraction forced (gcc -ffp-contract=fast -mfma, gcc's GNU-mode default on an FMA CPU; with
# clang, its default -ffp-contract=on: its =fast overrides the source's pragma), forward and
# backward against the interpreter: it lost grad.W as the GPU would (0.16 normwise on the
# random graph, vertex mapping; the edge mapping's kernels happened to agree). With
# CG_TARGET=cuda, on a GPU, the CUDA library as gnnc builds it.
# cg_ptx_rounded PTX: every float add, sub and mul of PTX rounds to nearest (.rn), no fma
cg_ptx_rounded() {
  awk '/^[ \t]*fma\./ || /^[ \t]*(add|sub|mul)\.f(32|64)[ \t]/ { if (bad++ < 3) print FNR ": " $0 }
       /^[ \t]*mul\.rn\.f32/ { rn++ }
       END { if (!rn) print "no mul.rn.f32: the check has lost its subject"; exit (bad || !rn) }' "$1"
}
if cg_plain; then
  for cg_map in $cg_maps; do
    if ! cg_out=$("$GNNC" tests/codegen/contract.gnn --mapping=$cg_map --emit=cu -o "$cg/contract-$cg_map.cu" 2>&1); then
      fail codegen/rounding/emit/$cg_map "$(cg_tail "$cg_out")"
      continue
    fi
    for cg_arch in sm_80 sm_90; do
      if ! command -v nvcc >/dev/null; then
        fail codegen/rounding/ptx/$cg_map/$cg_arch "nvcc not found (the CUDA toolkit is required)"
      elif ! cg_out=$(cd "$cg" && nvcc -std=c++17 -O3 -arch=$cg_arch -ptx -I"$ROOT/runtime" "contract-$cg_map.cu" -o "contract-$cg_map-$cg_arch.ptx" 2>&1); then
        fail codegen/rounding/ptx/$cg_map/$cg_arch "nvcc -ptx: $(cg_tail "$cg_out")"
      elif cg_out=$(cg_ptx_rounded "$cg/contract-$cg_map-$cg_arch.ptx"); then
        pass codegen/rounding/ptx/$cg_map/$cg_arch
      else
        fail codegen/rounding/ptx/$cg_map/$cg_arch "$(cg_tail "$cg_out")"
      fi
    done
    if [ ! -x "$cg_bin/gnn-nvrtc" ]; then
      fail codegen/rounding/nvrtc/$cg_map "build/bin/gnn-nvrtc is missing (make runtime-cuda)"
    elif ! cg_out=$("$cg_bin/gnn-nvrtc" "$cg/contract-$cg_map.cu" compute_80 "$cg/contract-$cg_map-nvrtc.ptx" 2>&1); then
      fail codegen/rounding/nvrtc/$cg_map "$(cg_tail "$cg_out")"
    elif cg_out=$(cg_ptx_rounded "$cg/contract-$cg_map-nvrtc.ptx"); then
      pass codegen/rounding/nvrtc/$cg_map
    else
      fail codegen/rounding/nvrtc/$cg_map "$(cg_tail "$cg_out")"
    fi
  done
fi
if [ -x "$cg_bin/gnn-run" ]; then
  cg_contract=
  if [ "$cg_target" = host ]; then
    cg_contract="-ffp-contract=fast -mfma"
    "${CC:-cc}" -dM -E -x c /dev/null 2>/dev/null | grep -q '__clang__' && cg_contract="-ffp-contract=on -mfma"
  fi
  for cg_map in $cg_maps; do
    for cg_g in tests/interp/graphs/random tests/interp/graphs/duplicates tests/codegen/graphs/hub10k; do
      cg_name=codegen/$cg_target/backward/rounding/$(basename $cg_g)/$cg_map
      if [ -n "$cg_contract" ] && ! grep -qw fma /proc/cpuinfo; then
        shard_take && skip "$cg_name" "this CPU has no FMA: contraction cannot be forced"
      elif [ -n "$cg_contract" ]; then
        GNNC_HOST_CFLAGS=$cg_contract cg_check_bwd "$cg_name" tests/codegen/contract.gnn $cg_g $cg_map 171
      else
        cg_check_bwd "$cg_name" tests/codegen/contract.gnn $cg_g $cg_map 171
      fi
    done
  done
fi

# TF32 GEMMs (--gemm-precision=tf32, issue 29's lever 7): every GEMM step says tf32 in the kernel
# IR, the CUDA source calls cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (and compiles), the host
# C emulates the rounding (gnn_sgemm_tf32: operands rounded to a 10-bit mantissa, emit_host_gemm.c)
# and takes no narrow GEMM. GCN and GAT on Cora against the float64 interpreter: the forward within
# 3e-2, the gradients within 1e-1 (gnn-compare's largest element error, relative above a floor; TF32's
# unit roundoff is 2^-11 = 4.9e-4 and the errors add up over K = 1,433 inputs and two layers:
# measured 5e-3 forward, 3.8e-2 on GAT's grad.gatconv0.W, normwise 3.8e-3; a transposed or
# misplaced operand is O(1)). Float32's 1e-5 and 1e-4 scaled by the ratio of the unit roundoffs
# (2^13) would be 8e-2 and 8e-1: these bounds are tighter than that. And the forward misses
# float32's 1e-5 (the rounding happened).
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    if ! cg_out=$("$GNNC" dsl-examples/gat.gnn --gemm-precision=tf32 --emit=kir 2>&1) ||
       ! "$GNNC" dsl-examples/gat.gnn --gemm-precision=tf32 --target=host --emit=c -o "$cg/gat_tf32.c" > /dev/null 2>&1 ||
       ! "$GNNC" dsl-examples/gat.gnn --gemm-precision=tf32 --emit=cu -o "$cg/gat_tf32.cu" > /dev/null 2>&1; then
      fail codegen/tf32/plan "$(cg_tail "$cg_out")"
    elif cg_n=$(printf '%s\n' "$cg_out" | grep -c '^  step [0-9]* gemm ') && [ "$cg_n" -ge 4 ] &&
         [ "$(printf '%s\n' "$cg_out" | grep -c '^  step [0-9]* gemm .*, tf32)   #')" -eq "$cg_n" ] &&
         ! "$GNNC" dsl-examples/gat.gnn --emit=kir 2>&1 | grep -q 'tf32' &&
         [ "$(grep -c '    if (!gnn_sgemm_tf32(' "$cg/gat_tf32.c")" -eq "$cg_n" ] && ! grep -q 'cblas_sgemm(CblasRowMajor, Cblas\|gnn_gemm_n[0-9]*(M' "$cg/gat_tf32.c" &&
         [ "$(grep -c 'CUBLAS_COMPUTE_32F_FAST_TF32' "$cg/gat_tf32.cu")" -eq "$cg_n" ] && ! grep -q 'cublasSgemm' "$cg/gat_tf32.cu"; then
      pass codegen/tf32/plan
    else
      fail codegen/tf32/plan "not every GEMM step is TF32 in the kernel IR, the host C or the CUDA source"
    fi
    cg_cc_check codegen/cc/tf32 "$cg/gat_tf32"
    cg_nvcc_check codegen/nvcc/tf32 "$cg/gat_tf32"
  fi
  cg_seed=171
  for cg_m in gcn gat; do
    CG_FLAGS=--gemm-precision=tf32 cg_check "codegen/$cg_target/tf32/$cg_m/cora/vertex" dsl-examples/$cg_m.gnn data/cora vertex $cg_seed 3e-2
    CG_FLAGS=--gemm-precision=tf32 cg_check_bwd "codegen/$cg_target/backward/tf32/$cg_m/cora/vertex" dsl-examples/$cg_m.gnn data/cora vertex $((cg_seed + 1)) 1e-1
    if cg_plain; then # float32's tolerance missed: the operands were rounded
      cg_rc=2 cg_out=
      if cg_lib_tf=$(CG_FLAGS=--gemm-precision=tf32 cg_lib dsl-examples/$cg_m.gnn vertex) &&
         cg_interp "$cg/tf.ref" --output dsl-examples/$cg_m.gnn --graph data/cora --seed $cg_seed > /dev/null &&
         "$cg_bin/gnn-run" "$cg_lib_tf" --graph data/cora --seed $cg_seed --output "$cg/tf.got" --repeat 1 --warmup 0 > /dev/null 2>&1; then
        cg_out=$("$ROOT/build/bin/gnn-compare" "$cg/tf.got" "$cg/tf.ref" --tol 1e-5 2>&1)
        cg_rc=$?
      fi
      if [ $cg_rc = 1 ] && printf '%s\n' "$cg_out" | grep -q '^FAIL output: max err'; then
        pass codegen/host/tf32/$cg_m/rounds
      else
        fail codegen/host/tf32/$cg_m/rounds "the TF32 library meets float32's 1e-5 (or did not run): $(cg_tail "${cg_out:-}")"
      fi
      rm -f "$cg"/tf.*
    fi
    cg_seed=$((cg_seed + 2))
  done
fi

# Float64 only when training (issue 29's lever 6, docs/kernel-ir.md): the attention's forward sum
# (out_v, f64 for the backward's t_v) adds float64 messages only when the forward trains; when not,
# float messages into the chunk's float partial, reading a float copy of the hoisted weights in the
# float64 array's storage. The plan: both attention walks of GAT hold the copy (kernel IR; CUDA: a
# cast of the float64 array, no __shared__ of its own) and `if !training`; the inference library
# (-fno-autodiff: nothing is f64) has none. The numbers: the training library's forward (not
# training) is the inference library's arithmetic, bit for bit, on the host (GAT and the small GAT
# on Cora and the skewed graphs, vertex-balanced: an edge-balanced aggregate is an atomic kernel of
# its own, whose float64 messages stay); the training path is unchanged (the backward checks
# above). A float64 message left in, or a copy read without being stored, would differ.
if [ -z "${CG_TARGET:-}" ] && [ -x "$cg_bin/gnn-run" ]; then
  cg_f64=
  if ! shard_take; then
    :
  elif ! cg_out=$("$GNNC" dsl-examples/gat.gnn --emit=kir 2>&1) || ! "$GNNC" dsl-examples/gat.gnn --emit=cu -o "$cg/gat_f64.cu" > /dev/null 2>&1; then
    fail codegen/nvcc/f64-untrained "no CUDA source to compile"
    fail codegen/f64-untrained/plan "$(cg_tail "$cg_out")"
  elif [ "$(printf '%s\n' "$cg_out" | grep -c "^  shared sh_w[0-9]*_f32: f32\[[0-9]*\] in sh_w[0-9]*'s storage$")" -eq 2 ] &&
       [ "$(printf '%s\n' "$cg_out" | grep -c '^ *if !training {$')" -ge 4 ] &&
       [ "$(grep -c '^  float \*const sh_w[0-9]*_f32 = (float \*)sh_w[0-9]*;' "$cg/gat_f64.cu")" -eq 2 ] &&
       ! grep -q '__shared__ float sh_w[0-9]*_f32' "$cg/gat_f64.cu" &&
       ! "$GNNC" dsl-examples/gat.gnn -fno-autodiff --emit=kir 2>&1 | grep -q '_f32: \|if !training'; then
    pass codegen/f64-untrained/plan
    cg_f64=1
  else
    fail codegen/f64-untrained/plan "GAT's attention walks lack the float path when not training (or the inference library has one)"
    cg_f64=1
  fi
  [ -n "$cg_f64" ] && cg_nvcc_check codegen/nvcc/f64-untrained "$cg/gat_f64"
  for cg_mg in dsl-examples/gat.gnn:data/cora tests/interp/models/gat.gnn:tests/interp/graphs/hub \
               tests/interp/models/gat.gnn:tests/interp/graphs/duplicates tests/interp/models/gat.gnn:tests/interp/graphs/isolated; do
    cg_model=${cg_mg%%:*} cg_graph=${cg_mg#*:}
    for cg_map in vertex; do
      cg_name=codegen/host/f64-untrained/$(basename "$(dirname "$cg_model")")-$(basename "$cg_model" .gnn)/$(basename "$cg_graph")/$cg_map
      shard_take || continue
      if cg_lib_t=$(cg_lib "$cg_model" $cg_map) && cg_lib_i=$(CG_FLAGS=-fno-autodiff cg_lib "$cg_model" $cg_map) &&
         "$cg_bin/gnn-run" "$cg_lib_t" --graph "$cg_graph" --seed 7 --output "$cg/f64.t" --repeat 1 --warmup 0 > /dev/null 2>&1 &&
         "$cg_bin/gnn-run" "$cg_lib_i" --graph "$cg_graph" --seed 7 --output "$cg/f64.i" --repeat 1 --warmup 0 > /dev/null 2>&1; then
        if cmp -s "$cg/f64.t" "$cg/f64.i"; then
          pass "$cg_name"
        else
          fail "$cg_name" "the training library's forward differs from the inference library's: $(cg_tail "$("$ROOT/build/bin/gnn-compare" "$cg/f64.t" "$cg/f64.i" --tol 0 2>&1)")"
        fi
      else
        fail "$cg_name" "a library did not build or run"
      fi
      rm -f "$cg"/f64.*
    done
  done
fi

# The SpMM path (--spmm=cusparse, issue 29's lever 3): GCN's aggregations (in-edges, weighted by
# its per-graph normalisation) and their gradients (out-edges) are SpMM steps in the kernel IR, calls
# of gnn_spmm in the host C and the CUDA source (which compiles); GAT's weighted sum is not (its
# alpha would have to be written, E floats a step), and nothing is without the flag. GCN, GIN,
# GraphSAGE and APPNP built so (the host: the runtime's float64 loop; CG_TARGET=cuda: cuSPARSE,
# float32 sums, hence 1e-4) against the interpreter, output and every gradient, on Cora and hub10k
# (a 10,000 in-edge hub), both mappings. Sabotage: the host loop reading every weight as 1 fails
# 12 of the 28 (GCN's output on Cora by a relative 513, APPNP's by 2.7e11).
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    if ! cg_out=$("$GNNC" dsl-examples/gcn.gnn --spmm=cusparse --emit=kir 2>&1) ||
       ! "$GNNC" dsl-examples/gcn.gnn --spmm=cusparse --target=host --emit=c -o "$cg/gcn_spmm.c" > /dev/null 2>&1 ||
       ! "$GNNC" dsl-examples/gcn.gnn --spmm=cusparse --emit=cu -o "$cg/gcn_spmm.cu" > /dev/null 2>&1; then
      fail codegen/spmm/plan "$(cg_tail "$cg_out")"
    elif [ "$(printf '%s\n' "$cg_out" | grep -c '^  step [0-9]* spmm .* sum over in-edges e (CSR) of gcnconv0_c\[e\] \. ')" -eq 2 ] &&
         [ "$(printf '%s\n' "$cg_out" | grep -c '^  step [0-9]* spmm .* sum over out-edges e (CSC) of gcnconv0_c\[e\] \. ')" -eq 2 ] &&
         printf '%s\n' "$cg_out" | grep -q '^  step 0 kernel .*once per graph: fused %6 %7' &&
         [ "$(grep -c 'gnn_spmm(m->ctx, g, GNN_SPMM_' "$cg/gcn_spmm.c")" -eq 4 ] &&
         [ "$(grep -c 'gnn_spmm(m->ctx, g, GNN_SPMM_' "$cg/gcn_spmm.cu")" -eq 4 ] &&
         ! "$GNNC" dsl-examples/gcn.gnn --emit=kir 2>&1 | grep -q ' spmm ' &&
         ! "$GNNC" dsl-examples/gat.gnn --spmm=cusparse --emit=kir 2>&1 | grep -q ' spmm '; then
      pass codegen/spmm/plan
    else
      fail codegen/spmm/plan "GCN's four sums are not SpMM steps (weighted by the per-graph c) in the kernel IR, the host C and the CUDA source, or GAT's or the default's are"
    fi
    cg_cc_check codegen/cc/spmm "$cg/gcn_spmm"
    cg_nvcc_check codegen/nvcc/spmm "$cg/gcn_spmm"
  fi
  cg_seed=181
  for cg_map in $cg_maps; do
    for cg_m in gcn gin sage appnp; do
      CG_FLAGS=--spmm=cusparse cg_check "codegen/$cg_target/spmm/$cg_m/cora/$cg_map" dsl-examples/$cg_m.gnn data/cora $cg_map $cg_seed 1e-4
      CG_FLAGS=--spmm=cusparse cg_check_bwd "codegen/$cg_target/backward/spmm/$cg_m/cora/$cg_map" dsl-examples/$cg_m.gnn data/cora $cg_map $((cg_seed + 1)) 1e-4
      cg_seed=$((cg_seed + 2))
    done
    for cg_m in gcn gin; do
      CG_FLAGS=--spmm=cusparse cg_check "codegen/$cg_target/spmm/$cg_m/hub10k/$cg_map" tests/interp/models/$cg_m.gnn tests/codegen/graphs/hub10k $cg_map $cg_seed 1e-4
      CG_FLAGS=--spmm=cusparse cg_check_bwd "codegen/$cg_target/backward/spmm/$cg_m/hub10k/$cg_map" tests/interp/models/$cg_m.gnn tests/codegen/graphs/hub10k $cg_map $((cg_seed + 1)) 1e-4
      cg_seed=$((cg_seed + 2))
    done
  done
fi

# Kept roots (tests/codegen/kept_roots.gnn): the roots that later roots of their kernel read are
# in memory only when training (their buffers are not in the inference arena: the kernel IR says
# "training only"), the 300-wide one is not kept; the output and every gradient agree with the
# interpreter, both mappings, on hub10k and the graph with isolated vertices (a vertex without
# edges: the kept value is the bias). Not on PubMed: its 19,717 rows of 300 outputs (and their
# gradients) took over 20 s of text to write and compare per check and reach no kernel path that
# hub10k's 10,000 in-edge hub does not.
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    for cg_map in $cg_maps; do
      if ! cg_out=$("$GNNC" tests/codegen/kept_roots.gnn --mapping=$cg_map --print-ir-after=lower 2>&1); then
        fail codegen/host/kept-roots/plan/$cg_map "$(cg_tail "$cg_out")"
      elif printf '%s\n' "$cg_out" | grep -q 'buffer conv0_out: temp vertex\[64\] .*training only' &&
           printf '%s\n' "$cg_out" | grep -q 'buffer edgemax0_out: temp vertex\[16\] .*training only' &&
           printf '%s\n' "$cg_out" | grep -q 'shared sh_root6: f32\[64\]' && printf '%s\n' "$cg_out" | grep -q 'shared sh_root19: f32\[16\]' &&
           printf '%s\n' "$cg_out" | grep 'buffer conv1_out: ' | grep -qv 'training only'; then
        pass codegen/host/kept-roots/plan/$cg_map
      else
        fail codegen/host/kept-roots/plan/$cg_map "the kept roots' buffers are not training-only, or the 300-wide root is"
      fi
    done
  fi
  cg_check_three kept-roots tests/codegen/kept_roots.gnn 81 "tests/codegen/graphs/hub10k tests/interp/graphs/isolated"
fi

# Sums over the rows in the rows kernels that make what they sum (tests/codegen/row_sums.gnn;
# fuse.c, sink_host): the bias gradients of Dense<10> and Conv<40> are summed by the kernels of
# their ReLU gradients (two `relu_grad_sums` kernels, grad.out's sum in the second), EdgeBias's
# by a kernel of its own under the vertex mapping (it sums a walk's result) and by the `mul`
# rows kernel under the edge mapping; the output and every gradient agree with the interpreter.
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    for cg_map in $cg_maps; do
      cg_own=1 cg_mul=0
      [ $cg_map = edge ] && cg_own=0 cg_mul=1
      if ! cg_out=$("$GNNC" tests/codegen/row_sums.gnn --mapping=$cg_map --print-ir-after=lower 2>&1); then
        fail codegen/host/row-sums/plan/$cg_map "$(cg_tail "$cg_out")"
      elif [ "$(printf '%s\n' "$cg_out" | grep -cE '^  step [0-9]+ kernel k[0-9]+_relu_grad_sums_vertex ')" = 2 ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -cE '^  step [0-9]+ kernel k[0-9]+_mul_sums_vertex ')" = $cg_mul ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -cE '^  step [0-9]+ kernel k[0-9]+_reduce_rows[0-9]*_sum_vertex ')" = $cg_own ]; then
        pass codegen/host/row-sums/plan/$cg_map
      else
        fail codegen/host/row-sums/plan/$cg_map "the sums are not in the rows kernels that make what they sum"
      fi
    done
  fi
  cg_check_three row-sums tests/codegen/row_sums.gnn 91
fi

# log_softmax and softmax over a row (tests/codegen/row_softmax.gnn; lower_op.c,
# log_softmax_elem): a row's max and sum built once before the loop over its elements (a rows
# kernel's lanes, a softmax read inside another's row loop, an edge's staging loop in a walk),
# and a log_softmax of 3 rows that keeps them at each element: the output and every gradient
# agree with the interpreter; its .cu compiles with nvcc and its .c with the C compilers.
if cg_plain; then
  for cg_map in $cg_maps; do
    if "$GNNC" tests/codegen/row_softmax.gnn --mapping=$cg_map --emit=cu -o "$cg/row_softmax-$cg_map.cu" > /dev/null 2>&1 &&
       "$GNNC" tests/codegen/row_softmax.gnn --mapping=$cg_map --emit=c -o "$cg/row_softmax-$cg_map.c" > /dev/null 2>&1; then
      cg_nvcc_check codegen/nvcc/row-softmax/$cg_map "$cg/row_softmax-$cg_map"
      cg_cc_check codegen/cc/row-softmax/$cg_map "$cg/row_softmax-$cg_map"
    else
      fail codegen/emit/row-softmax/$cg_map "gnnc could not emit tests/codegen/row_softmax.gnn"
    fi
  done
fi
if [ -x "$cg_bin/gnn-run" ]; then
  cg_check_three row-softmax tests/codegen/row_softmax.gnn 101
fi

# ---- outputs no kernel of the pass writes (tests/codegen/passthrough/): a graph array returned
# as is (in_deg, out_deg, graph_size: the output was never written, zeros), an input's dropout
# returned as is (an inference forward read the input in place and left the output unwritten),
# and a parameter-free chain of 51 ReLUs (the fused chain's cut value, a stash for a backward
# that never comes, was stored by a training forward into the inference arena, which lacks it:
# a NULL store). Inference and training forwards, fused and -O0, vs the interpreter.
# cg_check_train NAME MODEL.gnn GRAPH MAPPING SEED: the output of a training forward (no
# gradients: these models have no backward), 1e-5.
cg_check_train() {
  local name=$1 model=$2 graph=$3 map=$4 seed=$5 lib out b="$cg/train"
  shard_take || return 0
  if ! lib=$(cg_lib "$model" "$map"); then
    fail "$name" "gnnc could not build the library"
    return
  fi
  if ! out=$(cg_interp "$b.ref" --output "$model" --graph "$graph" --seed "$seed" --train); then
    fail "$name" "gnnc run --train failed: $(cg_tail "$out")"
    return
  fi
  if ! out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" --train --output "$b.got" --repeat 1 --warmup 0 2>&1); then
    fail "$name" "gnn-run --train failed: $(cg_tail "$out")"
    return
  fi
  if out=$("$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" 2>&1); then
    pass "$name"
  else
    fail "$name" "$(cg_tail "$out")"
  fi
  rm -f "$b".*
}
if [ -x "$cg_bin/gnn-run" ]; then
  for cg_m in in_deg out_deg graph_size input_dropout relu_chain51; do
    for cg_map in $cg_maps; do
      for cg_fl in "" -O0; do
        CG_FLAGS=$cg_fl cg_check "codegen/$cg_target/passthrough/$cg_m${cg_fl}/$cg_map" tests/codegen/passthrough/$cg_m.gnn tests/interp/graphs/random $cg_map 171
        CG_FLAGS=$cg_fl cg_check_train "codegen/$cg_target/passthrough/train/$cg_m${cg_fl}/$cg_map" tests/codegen/passthrough/$cg_m.gnn tests/interp/graphs/random $cg_map 172
      done
    done
  done
fi

# ---- an extremum's backward finds the edges that hold it by equality with the forward's result,
# recomputing its argument: the recomputation must be the forward's value bit for bit. max_out /
# min_out of an edge_softmax: the forward divided in float64 and rounded once, the backward
# recomputed in float by the float stash of the sum, and on half the seeds below every gradient
# through the extremum was 0 (a tester's find: grad.a = 0 0 for g3). Both mappings, fused and not,
# seeds 1-8, parameters uniform in [-1, 1) (larger scores than Glorot's: distinct softmax values).
cg_extremum() { # NAME FLAGS...
  local name=$1 lib="$cg/libextremum.so" b="$cg/ext" bad="" out sd
  shift
  # shellcheck disable=SC2068
  if ! out=$("$GNNC" "$cg/extremum.gnn" --target=$cg_target $@ -o "$lib" 2>&1); then fail "$name" "$(cg_tail "$out")"; return; fi
  for sd in 1 2 3 4 5 6 7 8; do
    if ! "$GNNC" run "$cg/extremum.gnn" --graph "$cg/g3.edges" --init=uniform --seed $sd --save-params "$b.p" \
           --save-inputs "$b.in" --save-outputs "$b.ref" > /dev/null 2>&1 ||
       ! "$cg_bin/gnn-run" "$lib" --graph "$cg/g3.edges" --params "$b.p" --inputs "$b.in" --backward --save-grads "$b.got" \
           --repeat 1 --warmup 0 > /dev/null 2>&1; then
      bad+=" seed $sd: a run failed;"
      continue
    fi
    awk '/^tensor /{skip = ($2 == "out")} !skip' "$b.ref" > "$b.grads"
    out=$("$ROOT/build/bin/gnn-compare" "$b.got" "$b.grads" --tol 1e-4 2>&1) || bad+=" seed $sd: $(grep FAIL <<< "$out" | head -1);"
  done
  if [ -z "$bad" ]; then pass "$name"; else fail "$name" "${bad:0:400}"; fi
  rm -f "$b".* "$lib"
}
if [ -x "$cg_bin/gnn-run" ]; then
  printf '0 0\n0 1\n1 1\n' > "$cg/g3.edges"
  printf 'model MM(x: vertex[2]) -> vertex[2] {\n  param a: [2]\n  s = edge_softmax(dot(a, x[src] * x[dst]))\n  return concat(repeat(max_out(s), 1), repeat(min_out(s), 1))\n}\n' > "$cg/extremum.gnn"
  for cg_map in $cg_maps; do
    shard_take && cg_extremum "codegen/$cg_target/extremum/softmax-max-out/$cg_map" --mapping=$cg_map
    shard_take && cg_extremum "codegen/$cg_target/extremum/softmax-max-out-unfused/$cg_map" --mapping=$cg_map -fno-fuse
  done
fi
unset -f cg_extremum

# ---- an edge input and an edge output on a graph without edges: gnn_malloc of 0 bytes is NULL, so
# the driver's edge input and the backward's edge seed are NULL there; the generated forward and
# backward take NULL for a tensor of no rows (a tester's find: "eo_forward: input 'w' is NULL"),
# and match the interpreter (an empty output; every gradient 0)
if [ -x "$cg_bin/gnn-run" ]; then
  mkdir -p "$cg/noedges"
  : > "$cg/noedges/graph.edges"
  printf '0\n1\n0\n' > "$cg/noedges/labels.txt"
  printf 'model Eo(x: vertex[4], w: edge[2]) -> edge[2] {\n  param W: [4, 2]\n  h = W @ x\n  return edge_softmax(h[src] * h[dst] + w) * w\n}\n' > "$cg/eo.gnn"
  for cg_map in $cg_maps; do
    shard_take || continue
    cg_name="codegen/$cg_target/edge-tensors-no-edges/$cg_map"
    if ! out=$("$GNNC" "$cg/eo.gnn" --target=$cg_target --mapping=$cg_map -o "$cg/libeo.so" 2>&1); then fail "$cg_name" "$(cg_tail "$out")"; continue; fi
    if ! out=$("$GNNC" run "$cg/eo.gnn" --graph "$cg/noedges" --save-params "$cg/eo.p" --save-inputs "$cg/eo.in" --save-outputs "$cg/eo.ref" 2>&1) ||
       ! out=$("$cg_bin/gnn-run" "$cg/libeo.so" --graph "$cg/noedges" --params "$cg/eo.p" --inputs "$cg/eo.in" --backward \
                 --save-grads "$cg/eo.got" --output "$cg/eo.out" --repeat 1 --warmup 0 2>&1); then
      fail "$cg_name" "$(cg_tail "$out")"
      continue
    fi
    awk '/^tensor /{skip = ($2 == "out")} !skip' "$cg/eo.ref" > "$cg/eo.grads"
    if out=$("$ROOT/build/bin/gnn-compare" "$cg/eo.got" "$cg/eo.grads" 2>&1) && grep -q '^tensor output 0 1 2$' "$cg/eo.out"; then pass "$cg_name"
    else fail "$cg_name" "$(grep FAIL <<< "$out" | head -2 | tr '\n' ' ') $(grep tensor "$cg/eo.out")"; fi
  done
fi

# ---- hub rows in pieces (gnnc --split-hubs; docs/kernel-ir.md, "Hub rows in pieces"): a walk over
# in-edges or out-edges (the backward's) whose first pass merges (sums, max/min, softmaxes and the
# aggregates accumulating with them) runs a group per piece of every row longer than the graph's
# piece length (32 on these graphs: Cora's hub of 168 edges each way in 6 pieces, hub10k's 10,003
# in-edges in 313 and 3,001 out-edges in 94, the `hub` graph's 2,001 in-edges in 63), and the
# group of a row's last piece merges the partial results and finishes the row. The plan (kernels
# "hub rows in pieces" over in-edges and over out-edges, a zeroed ticket buffer before each) and
# the output and every gradient vs the interpreter, both mappings. Leaving out a piece's partial
# result in the merge fails GCN's and GAT's outputs by O(1); cutting the out-edge rows at the
# in-edge pieces' starts fails GCN's first weight gradient on hub10k (2.0 relative).
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    for cg_m in gcn gat sage; do
      if ! cg_out=$("$GNNC" dsl-examples/$cg_m.gnn --split-hubs --print-ir-after=lower 2>&1); then
        fail codegen/host/pieces/plan/$cg_m "$(cg_tail "$cg_out")"
      elif [ "$(printf '%s\n' "$cg_out" | grep -c 'in-edges (CSR), hub rows in pieces,')" -ge 1 ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -c 'out-edges (CSC), hub rows in pieces,')" -ge 1 ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -cE '^  step [0-9]+ zero [a-z0-9_]+_tickets ')" = \
             "$(printf '%s\n' "$cg_out" | grep -c 'hub rows in pieces,')" ] &&
           ! "$GNNC" dsl-examples/$cg_m.gnn --print-ir-after=lower 2>&1 | grep -q 'pieces'; then
        pass codegen/host/pieces/plan/$cg_m
      else
        fail codegen/host/pieces/plan/$cg_m "the walks do not take pieces under --split-hubs (or do without it)"
      fi
    done
    # a walk whose first pass has an argmax keeps one group per row, and says so
    if cg_out=$("$GNNC" tests/grad/gather.gnn --split-hubs --emit=kir -o "$cg/gather-pieces.kir" 2>&1) &&
       grep -q 'note: %[0-9]* gather.argmax keeps one group per row although --split-hubs' <<< "$cg_out"; then
      pass codegen/host/pieces/argmax-note
    else
      fail codegen/host/pieces/argmax-note "$(cg_tail "$cg_out")"
    fi
  fi
  cg_seed=121
  for cg_map in $cg_maps; do
    for cg_m in gcn gat sage gin monet appnp; do
      for cg_g in data/cora tests/codegen/graphs/hub10k tests/interp/graphs/hub; do
        CG_FLAGS=--split-hubs cg_check "codegen/$cg_target/pieces/$cg_m/$(basename $cg_g)/$cg_map" "dsl-examples/$cg_m.gnn" $cg_g $cg_map $cg_seed
        CG_FLAGS=--split-hubs cg_check_bwd "codegen/$cg_target/backward/pieces/$cg_m/$(basename $cg_g)/$cg_map" "dsl-examples/$cg_m.gnn" $cg_g $cg_map $((cg_seed + 1))
      done
      cg_seed=$((cg_seed + 2))
    done
  done
  # R-GCN's per-relation walks: the typed-edge set with a hub (vertex 5 gets an in-edge of
  # relation v % 2 from every vertex v: 2,000 in 63 pieces; vertex 7 an out-edge to every vertex)
  cg_relhub=$cg/relational-hub
  mkdir -p "$cg_relhub"
  cp "$cg_relational/features.svm" "$cg_relational/labels.txt" "$cg_relhub/" 2> /dev/null
  awk '{ print } END { for (v = 0; v < 2000; v++) { print v, 5, v % 2; print 7, v, (v + 1) % 2 } }' "$cg_relational/graph.edges" \
    > "$cg_relhub/graph.edges"
  for cg_map in $cg_maps; do
    CG_FLAGS=--split-hubs cg_check "codegen/$cg_target/pieces/rgcn/relational-hub/$cg_map" dsl-examples/rgcn.gnn "$cg_relhub" $cg_map 141
    CG_FLAGS=--split-hubs cg_check_bwd "codegen/$cg_target/backward/pieces/rgcn/relational-hub/$cg_map" dsl-examples/rgcn.gnn "$cg_relhub" $cg_map 142
  done
fi

# ---- column tiles (gnnc --tile-columns=T; docs/kernel-ir.md, "Column tiles"): a walk whose
# gathered width W is a multiple of T runs a group per (tile, row), tile-major, its lane loops over
# W from the tile's first column; a walk whose columns mix (a value read by other columns) keeps
# them whole and says why. The plan (GAT's, GIN's and EdgeConv's forward and backward walks in tiles
# of 32, none without the flag; MoNet's note), the CUDA source of GAT and EdgeConv in tiles through
# nvcc, and the output and every gradient vs the interpreter, both mappings: GAT, GIN in tiles of
# 32, SAGE, GCN and R-GCN in tiles of 8 (narrower than the group: idle lanes), MoNet in 16 (its
# backward walk tiled, its forward refused), EdgeConv in 32 (2, 4 and 8 tiles); and tiles that do
# not divide the width, the last one shorter: GAT, GIN and EdgeConv in 24 (EdgeConv's 64, 128 and
# 256 columns in 3, 6 and 11 tiles, the last of 16, 8 and 16), MoNet in 32 (48: 32 + 16). The host's
# sums run column for column in the untiled order: GAT's (tiles of 32 and of 24) and MoNet's
# outputs and gradients are also the untiled library's bit for bit. Letting MoNet's first walk,
# whose columns mix, be tiled fails its output by 2.7 (relative) and its weight gradient by 5.3.
if [ -x "$cg_bin/gnn-run" ]; then
  if cg_plain; then
    for cg_m in gat gin edgeconv; do
      if ! cg_out=$("$GNNC" dsl-examples/$cg_m.gnn --tile-columns=32 --print-ir-after=lower 2>&1); then
        fail codegen/host/tiles/plan/$cg_m "$(cg_tail "$cg_out")"
      elif [ "$(printf '%s\n' "$cg_out" | grep -c 'in-edges (CSR), [0-9] column tiles of 32,')" -ge 1 ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -c 'out-edges (CSC), [0-9] column tiles of 32,')" -ge 1 ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -c 'lanes(32) from tile_lo')" -ge 2 ] &&
           ! "$GNNC" dsl-examples/$cg_m.gnn --print-ir-after=lower 2>&1 | grep -q 'tile'; then
        pass codegen/host/tiles/plan/$cg_m
      else
        fail codegen/host/tiles/plan/$cg_m "the walks are not in column tiles under --tile-columns=32 (or are without it)"
      fi
    done
    if cg_out=$("$GNNC" dsl-examples/monet.gnn --tile-columns=16 --emit=kir -o "$cg/monet-tiles.kir" 2>&1) &&
       grep -q "note: kernel k3_[a-z0-9_]* (.*) walks its 48 gathered columns whole although --tile-columns=16: a column's value read by other columns" <<< "$cg_out" &&
       grep -q 'out-edges (CSC), 3 column tiles of 16' "$cg/monet-tiles.kir"; then
      pass codegen/host/tiles/monet-note
    else
      fail codegen/host/tiles/monet-note "$(cg_tail "$cg_out")"
    fi
    # with --split-hubs the walks are in pieces, which tiles do not combine with: a note each
    if cg_out=$("$GNNC" dsl-examples/gat.gnn --split-hubs --tile-columns=32 --emit=kir -o "$cg/gat-pieces-tiles.kir" 2>&1) &&
       [ "$(grep -c 'walks its 64 gathered columns whole although --tile-columns=32: its hub rows are in pieces' <<< "$cg_out")" -eq 2 ] &&
       ! grep -q 'column tiles' "$cg/gat-pieces-tiles.kir" && grep -q 'hub rows in pieces' "$cg/gat-pieces-tiles.kir"; then
      pass codegen/host/tiles/pieces-note
    else
      fail codegen/host/tiles/pieces-note "$(cg_tail "$cg_out")"
    fi
    for cg_m in gat edgeconv; do
      if ! command -v nvcc >/dev/null; then
        fail "codegen/nvcc/tiles/$cg_m" "nvcc not found (the CUDA toolkit is required)"
      elif cg_out=$("$GNNC" dsl-examples/$cg_m.gnn --tile-columns=32 --emit=cu -o "$cg/$cg_m-tiles.cu" 2>&1) &&
           cg_out=$(cd "$cg" && nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 \
             -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I"$ROOT/runtime" -c "$cg_m-tiles.cu" -o "$cg_m-tiles.o" 2>&1) &&
           ! printf '%s' "$cg_out" | grep -qi warning && grep -q 'const int64_t tile = item / nrows, row = item - tile \* nrows;' "$cg/$cg_m-tiles.cu"; then
        pass "codegen/nvcc/tiles/$cg_m"
      else
        fail "codegen/nvcc/tiles/$cg_m" "$(cg_tail "$cg_out")"
      fi
    done
  fi
  cg_seed=161
  for cg_map in $cg_maps; do
    for cg_mt in gat:32 gin:32 sage:8 gcn:8 monet:16 edgeconv:32 rgcn:8 gat:24 gin:24 edgeconv:24 monet:32 gcn:1; do
      cg_m=${cg_mt%%:*}
      cg_gs="data/cora tests/codegen/graphs/hub10k"
      [ $cg_m = edgeconv ] && cg_gs=tests/interp/graphs/pointcloud
      [ $cg_m = rgcn ] && cg_gs=$cg_relational
      for cg_g in $cg_gs; do
        CG_FLAGS=--tile-columns=${cg_mt#*:} cg_check "codegen/$cg_target/tiles/$cg_m-t${cg_mt#*:}/$(basename $cg_g)/$cg_map" "dsl-examples/$cg_m.gnn" $cg_g $cg_map $cg_seed
        CG_FLAGS=--tile-columns=${cg_mt#*:} cg_check_bwd "codegen/$cg_target/backward/tiles/$cg_m-t${cg_mt#*:}/$(basename $cg_g)/$cg_map" "dsl-examples/$cg_m.gnn" $cg_g $cg_map $((cg_seed + 1))
      done
      cg_seed=$((cg_seed + 2))
    done
  done
  # an attention of width 20 in tiles of 8 (the last of 4): the host library died with SIGSEGV in
  # its first walk, gcc 12 -O3 -march=native (AVX-512) storing the zeroed shared float[20] with
  # aligned 32-byte stores into a slot 16 bytes off; every array a kernel declares now asks for 64
  # (GNN_ALIGNED). A tester's find; widths 20..52 with 4 over a multiple of 8 all died.
  mkdir -p "$cg/att20"
  printf '%s\n' 'layer Att<H, D>(x: vertex[F]) -> vertex[H, D] {' '  param W: [F, H, D]' '  param a: [H, 2*D]' \
    '  e = leaky_relu(dot(a, concat(W @ x[src], W @ x[dst])), 0.2)' '  return sum(edge_softmax(e) * (W @ x[src]))' '}' \
    'model A2(x: vertex[7]) -> vertex[20] {' '  return flatten(Att<1, 20>(x))' '}' > "$cg/att20/att.gnn"
  for cg_map in $cg_maps; do
    CG_FLAGS=--tile-columns=8 cg_check_bwd "codegen/$cg_target/backward/tiles/att20-t8/random/$cg_map" "$cg/att20/att.gnn" \
      tests/interp/graphs/random $cg_map 171
  done
  # bit for bit the untiled library's (host: each column's sum in the same order)
  if [ -z "${CG_TARGET:-}" ]; then
    for cg_mt in gat:32 monet:16 gat:24; do
      cg_m=${cg_mt%%:*}
      shard_take || continue
      cg_b=$cg/tiles-same
      if cg_la=$(CG_FLAGS=--tile-columns=${cg_mt#*:} cg_lib dsl-examples/$cg_m.gnn vertex) && cg_lb=$(cg_lib dsl-examples/$cg_m.gnn vertex) &&
         "$cg_bin/gnn-run" "$cg_la" --graph data/pubmed --seed 7 --train \
           --save-grads "$cg_b.ga" --output "$cg_b.oa" --repeat 1 --warmup 0 > /dev/null 2>&1 &&
         "$cg_bin/gnn-run" "$cg_lb" --graph data/pubmed --seed 7 --train \
           --save-grads "$cg_b.gb" --output "$cg_b.ob" --repeat 1 --warmup 0 > /dev/null 2>&1 &&
         [ -s "$cg_b.ga" ] && cmp -s "$cg_b.ga" "$cg_b.gb" && cmp -s "$cg_b.oa" "$cg_b.ob"; then
        pass codegen/host/tiles/same-as-untiled/$cg_m-${cg_mt#*:}
      else
        fail codegen/host/tiles/same-as-untiled/$cg_m-${cg_mt#*:} "the tiled library's output or gradients differ from the untiled one's (or a run failed)"
      fi
      rm -f "$cg_b".*
    done
  fi
fi

# ---- float4 loads (gnnc --vector-loads=4; docs/kernel-ir.md, "Float4 loads"): the CUDA emitter
# gives each lane 4 consecutive columns of every lane loop of a kernel that gathers rows and reads
# each gathered row x[u, k] as one 128-bit load. The host code does not change (its lanes are
# serialised), so the numbers are checked where the kernels run: under CG_TARGET=cuda (make
# gpu-check) the output and every gradient vs the interpreter, GAT, GCN, SAGE (Cora, hub10k), GAT
# in hub pieces and in column tiles of 24 (64 = 24 + 24 + 16: the last tile's lanes stop at the
# width), EdgeConv (point clouds), both mappings. Here: the plan (which kernels, the refusal note),
# nvcc -Werror for sm_80 and sm_90 on the examples and with pieces and tiles, the PTX's 128-bit
# loads in GAT's forward and backward walks (none without the flag), the host C unchanged.
if [ -n "${CG_TARGET:-}" ]; then
  for cg_map in $cg_maps; do
    for cg_m in gat gcn sage; do
      for cg_g in data/cora tests/codegen/graphs/hub10k; do
        CG_FLAGS=--vector-loads=4 cg_check "codegen/$cg_target/vec4/$cg_m/$(basename $cg_g)/$cg_map" dsl-examples/$cg_m.gnn $cg_g $cg_map 181
        CG_FLAGS=--vector-loads=4 cg_check_bwd "codegen/$cg_target/backward/vec4/$cg_m/$(basename $cg_g)/$cg_map" dsl-examples/$cg_m.gnn $cg_g $cg_map 182
      done
    done
    CG_FLAGS="--vector-loads=4 --split-hubs" cg_check_bwd "codegen/$cg_target/backward/vec4/gat-pieces/hub10k/$cg_map" dsl-examples/gat.gnn tests/codegen/graphs/hub10k $cg_map 183
    CG_FLAGS="--vector-loads=4 --tile-columns=24" cg_check_bwd "codegen/$cg_target/backward/vec4/gat-t24/cora/$cg_map" dsl-examples/gat.gnn data/cora $cg_map 184
    CG_FLAGS=--vector-loads=4 cg_check_bwd "codegen/$cg_target/backward/vec4/edgeconv/pointcloud/$cg_map" dsl-examples/edgeconv.gnn tests/interp/graphs/pointcloud $cg_map 185
  done
elif shard_take; then
  # the plan: GAT's walks (forward, backward over out-edges) take 4 elements a lane, nothing without the flag
  if cg_out=$("$GNNC" dsl-examples/gat.gnn --vector-loads=4 --emit=kir -o "$cg/gat-vec4.kir" 2>&1) &&
     [ "$(grep -c '^kernel .*in-edges (CSR), group 32, 4 elements a lane (float4 loads)' "$cg/gat-vec4.kir")" -ge 1 ] &&
     [ "$(grep -c '^kernel .*out-edges (CSC), group 32, 4 elements a lane (float4 loads)' "$cg/gat-vec4.kir")" -ge 1 ] &&
     "$GNNC" dsl-examples/gat.gnn --emit=kir -o "$cg/gat-novec.kir" && ! grep -q 'elements a lane' "$cg/gat-novec.kir"; then
    pass codegen/vec4/plan
  else
    fail codegen/vec4/plan "GAT's walks do not take 4 elements a lane under --vector-loads=4 (or do without it): $(cg_tail "$cg_out")"
  fi
  # column tiles of 6 start at columns 6, 12, ...: no 16-byte row there, the kernel stays a float a lane, with a note
  if cg_out=$("$GNNC" dsl-examples/gat.gnn --vector-loads=4 --tile-columns=6 --emit=kir -o "$cg/gat-vec4-t6.kir" 2>&1) &&
     grep -q 'keeps its gathers a float a lane although --vector-loads=4: its column tiles do not start at multiples of 4 columns' <<< "$cg_out" &&
     ! grep -q 'column tiles of 6, group 32, 4 elements a lane' "$cg/gat-vec4-t6.kir"; then
    pass codegen/vec4/tiles-note
  else
    fail codegen/vec4/tiles-note "$(cg_tail "$cg_out")"
  fi
  # the host code is the same with the flag (and says so)
  mkdir -p "$cg/vec4-host/a" "$cg/vec4-host/b" # (one name: the C includes its header by it)
  if cg_out=$("$GNNC" dsl-examples/gat.gnn --vector-loads=4 --emit=c -o "$cg/vec4-host/a/gat.c" 2>&1) &&
     "$GNNC" dsl-examples/gat.gnn --emit=c -o "$cg/vec4-host/b/gat.c" && cmp -s "$cg/vec4-host/a/gat.c" "$cg/vec4-host/b/gat.c" &&
     grep -q 'note: --vector-loads applies to the CUDA target' <<< "$cg_out"; then
    pass codegen/vec4/host-unchanged
  else
    fail codegen/vec4/host-unchanged "the host C differs with --vector-loads=4 (or no note): $(cg_tail "$cg_out")"
  fi
  if ! command -v nvcc >/dev/null; then
    fail codegen/nvcc/vec4 "nvcc not found (the CUDA toolkit is required)"
  else
    for cg_v in gat:vertex: gat:edge: edgeconv:vertex: rgcn:vertex: gin_graph:vertex: gat:vertex:--split-hubs gat:vertex:--tile-columns=24; do
      cg_m=${cg_v%%:*}; cg_r=${cg_v#*:}; cg_map=${cg_r%%:*}; cg_x=${cg_r#*:}
      cg_n=$cg_m-$cg_map${cg_x:+-${cg_x#--}}
      cg_n=vec4-${cg_n//=/}
      if cg_out=$("$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map --vector-loads=4 $cg_x --emit=cu -o "$cg/$cg_n.cu" 2>&1) &&
         grep -q 'gnn_ld4(&' "$cg/$cg_n.cu" &&
         cg_out=$(cd "$cg" && cached_tool "$cg_n.o" nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 \
           -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I"$ROOT/runtime" -c "$cg_n.cu" -o "$cg_n.o" 2>&1) &&
         ! printf '%s' "$cg_out" | grep -qi warning; then
        pass "codegen/nvcc/$cg_n"
      else
        fail "codegen/nvcc/$cg_n" "$(cg_tail "$cg_out")"
      fi
    done
    # the numbers without a GPU: every kernel of both builds (without and with the flag) run as C++ on
    # a CPU, each thread a coroutine, __syncwarp and the shuffles making a mask's lanes meet
    # (tests/codegen/warp_emu.py), on one random graph with hubs past a chunk and the same random
    # buffers, the training flag 0 and 1: what each writes must agree (1e-5). It found GAT's first
    # walk reading W[u, k] as a float4 under `if training` alone where the same load serves `if
    # !training` too (the inference output 0).
    for cg_v in gat:vertex: gat:edge: gcn:vertex: edgeconv:vertex: rgcn:vertex: gat:vertex:--tile-columns=24; do
      cg_m=${cg_v%%:*}; cg_r=${cg_v#*:}; cg_map=${cg_r%%:*}; cg_x=${cg_r#*:}
      cg_n=emu-$cg_m-$cg_map${cg_x:+-${cg_x#--}}
      cg_n=${cg_n//=/}
      mkdir -p "$cg/$cg_n"
      if cg_out=$("$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map $cg_x --emit=cu -o "$cg/$cg_n/a.cu" 2>&1 &&
           "$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map $cg_x --emit=kir -o "$cg/$cg_n/a.kir" 2>&1 &&
           "$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map $cg_x --vector-loads=4 --emit=cu -o "$cg/$cg_n/b.cu" 2>&1 &&
           "$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map $cg_x --vector-loads=4 --emit=kir -o "$cg/$cg_n/b.kir" 2>&1) &&
         grep -q '4 elements a lane' "$cg/$cg_n/b.kir" &&
         cg_out=$($PY tests/codegen/warp_emu.py "$cg/$cg_n" "$cg/$cg_n/a.cu:$cg/$cg_n/a.kir" "$cg/$cg_n/b.cu:$cg/$cg_n/b.kir" 2>&1) &&
         ! grep -q '^FAIL' <<< "$cg_out"; then
        pass "codegen/vec4/cpu/$cg_n"
      else
        fail "codegen/vec4/cpu/$cg_n" "$(grep -v '^ok' <<< "$cg_out" | head -5)"
      fi
    done
    # the PTX: GAT's forward walk (k2) and the backward's walk over out-edges read rows with
    # ld.global.nc.v4.f32; the default's kernels have no such load
    if cg_out=$("$GNNC" dsl-examples/gat.gnn --emit=cu -o "$cg/gat-novec.cu" 2>&1) &&
       cg_out=$(cd "$cg" && nvcc -std=c++17 -arch=sm_90 -O3 -ptx -I"$ROOT/runtime" vec4-gat-vertex.cu -o vec4-gat.ptx 2>&1 &&
         nvcc -std=c++17 -arch=sm_90 -O3 -ptx -I"$ROOT/runtime" gat-novec.cu -o gat-novec.ptx 2>&1) &&
       cg_v4=$(awk '/^.visible .entry/ { name = $3 } /ld\.global\.nc\.v4\.f32/ { print name }' "$cg/vec4-gat.ptx" | sort -u) &&
       grep -q '^gat_k2_' <<< "$cg_v4" && grep -q '_sum_sum_vertex' <<< "$cg_v4" &&
       ! grep -q 'ld\.global\.nc\.v4\.f32' "$cg/gat-novec.ptx"; then
      pass codegen/ptx/vec4
    else
      fail codegen/ptx/vec4 "no ld.global.nc.v4.f32 in GAT's walks under --vector-loads=4 (kernels with one: $(tr '\n' ' ' <<< "${cg_v4:-}")) $(cg_tail "$cg_out")"
    fi
  fi
fi

# ---- gradients with respect to inputs (gnnc --input-grads=all): the library's grad_input.<input>
# (gnn-run --save-input-grads asks for every one) and out vs the interpreter's, 1e-4; and
# a backward that asks for none leaves the parameters' gradients bit for bit those of the
# parameter-only library (the input-only steps are skipped; nothing else changes).
# cg_check_igrad NAME MODEL.gnn GRAPH MAPPING SEED
cg_check_igrad() {
  local name=$1 model=$2 graph=$3 map=$4 seed=$5 lib plain out b="$cg/igrad"
  cg_asan_leaves "$graph" && return 0
  shard_take || return 0
  lib="$cg/lib-ig-$(basename "$(dirname "$model")")-$(basename "$model" .gnn)-$map-$cg_target.so"
  if ! { [ -f "$lib" ] || "$GNNC" "$model" --target=$cg_target $([ "$cg_target" = cuda ] && echo --arch=sm_80,sm_90) --mapping="$map" --input-grads=all -o "$lib" > "$lib.log" 2>&1; } ||
     ! plain=$(cg_lib "$model" "$map"); then
    fail "$name" "gnnc could not build the libraries: $(cg_tail "$(cat "$lib.log" 2>/dev/null)")"
    return
  fi
  if ! out=$(cg_interp "$b.ref" --save-outputs "$model" --input-grads=all --graph "$graph" --seed "$seed" --train); then
    fail "$name" "gnnc run --train --input-grads=all failed: $(cg_tail "$out")"
    return
  fi
  if ! out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" \
      --save-grads "$b.got" --save-input-grads "$b.igot" --output "$b.out" --repeat 1 --warmup 0 2>&1); then
    fail "$name" "gnn-run --save-input-grads failed: $(cg_tail "$out")"
    return
  fi
  cat "$b.igot" >> "$b.got"
  sed 's/^tensor output /tensor out /' "$b.out" >> "$b.got"
  # the output and the inputs' gradients (the parameters' are codegen/host/backward's: some seeds
  # make one identically zero, e.g. GAT-small's attention on `duplicates` at seed 64, where
  # float32 and float64 rounding noise of 1e-15 cannot be compared relatively)
  local names
  names=$(awk '/^tensor grad_input\./ {printf ",%s", $2}' "$b.ref")
  if [ -n "$names" ] && out=$("$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol 1e-4 --names "out$names" 2>&1); then
    pass "$name"
  else
    fail "$name" "$(cg_tail "$out")"
  fi
  # nothing asked for: the same parameter gradients as the parameter-only library, bit for bit
  if out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" \
        --save-grads "$b.g1" --repeat 1 --warmup 0 2>&1) &&
     out=$("$cg_bin/gnn-run" "$plain" --graph "$graph" --seed "$seed" \
        --save-grads "$b.g0" --repeat 1 --warmup 0 2>&1) && cmp -s "$b.g0" "$b.g1"; then
    pass "$name/unasked-params-identical"
  else
    fail "$name/unasked-params-identical" "the parameter gradients differ from the parameter-only library's: $(cg_tail "$out")"
  fi
  rm -f "$b".*
}
if [ -x "$cg_bin/gnn-run" ]; then
  cg_seed=61
  # (the examples at their own widths on the random graph's edge list, 39 vertices, their inputs
  # drawn (its folder's features.svm has 5 columns): on Cora their grad_input.x is 2,708 x 1,433
  # values, 4 M to write and compare as text per check, 15 s, for the same kernels; the skewed
  # graphs are the parameter gradients' checks above)
  for cg_m in gcn sage gin gat edgeconv monet appnp; do
    cg_g=tests/interp/graphs/random/graph.edges cg_gn=random-drawn
    [ $cg_m = edgeconv ] && cg_g=tests/interp/graphs/pointcloud cg_gn=pointcloud
    cg_check_igrad "codegen/$cg_target/input-grads/$cg_m/$cg_gn/vertex" "dsl-examples/$cg_m.gnn" $cg_g vertex $cg_seed
    for cg_map in $cg_maps; do
      cg_check_igrad "codegen/$cg_target/input-grads/$cg_m-small/duplicates/$cg_map" "tests/interp/models/$cg_m.gnn" \
        tests/interp/graphs/duplicates $cg_map $cg_seed
    done
    cg_seed=$((cg_seed + 1))
  done
  # a vertex and an edge input (tests/grad/input_grads.gnn); an input's gradient that is the seed
  # itself, copied into the model's storage, and one identically zero (input_passthrough.gnn); a
  # graph input, a row per graph of a batch (input_graph.gnn)
  for cg_map in $cg_maps; do
    cg_check_igrad "codegen/$cg_target/input-grads/input_grads/random/$cg_map" tests/grad/input_grads.gnn \
      tests/interp/graphs/random $cg_map 71
    cg_check_igrad "codegen/$cg_target/input-grads/input_passthrough/small/$cg_map" tests/grad/input_passthrough.gnn \
      tests/grad/graphs/small $cg_map 72
    cg_check_igrad "codegen/$cg_target/input-grads/input_graph/batch/$cg_map" tests/grad/input_graph.gnn \
      tests/interp/graphs/batch $cg_map 73
  done
fi

# ---- chained row sums (tests/ir/ln6_chain.gnn: six layer_norms in a row; normprop_chain.gnn: six
# hops of a mean and a layer_norm; gated_res.gnn: two gated residual layers, each a layer_norm
# over a walk's mean): row sums read inside other row sums' loops are staged once per row
# (docs/passes/fuse.md, "Row sums inside row sums"), and a stash the forward keeps in memory for
# a GEMM is loaded by the next layer's walk, not recomputed. Fused and -fno-fuse, both mappings,
# one library each (--input-grads=all) on the graph with a 2,000 in-edge hub, the one with
# isolated vertices and the one with duplicate edges: the inference output (1e-5), and training's
# output, every grad.<param> and grad_input.x (1e-4) vs the interpreter. Sabotage: a staged row
# sum left unstored (stage_row_one) fails every fused check of the three models.
# cg_check_chain NAME MODEL.gnn GRAPH MAPPING SEED (CG_FLAGS: more gnnc flags)
cg_check_chain() {
  local name=$1 model=$2 graph=$3 map=$4 seed=$5 flags=${CG_FLAGS:-} lib out b="$cg/chain"
  shard_take || return 0
  lib="$cg/lib-chain-$(basename "$model" .gnn)-$map-$cg_target${flags:+$(printf '%s' "$flags" | tr -cs 'a-zA-Z0-9' '-')}.so"
  # shellcheck disable=SC2086 # CG_FLAGS: words
  if ! { [ -f "$lib" ] || "$GNNC" "$model" --target=$cg_target $([ "$cg_target" = cuda ] && echo --arch=sm_80,sm_90) --mapping="$map" --input-grads=all $flags -o "$lib" > "$lib.log" 2>&1; }; then
    fail "$name" "gnnc could not build the library: $(cg_tail "$(cat "$lib.log" 2>/dev/null)")"
    return
  fi
  if ! out=$(cg_interp "$b.ref" --output "$model" --graph "$graph" --seed "$seed") ||
     ! out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" --output "$b.got" --repeat 1 --warmup 0 2>&1) ||
     ! out=$("$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol 1e-5 2>&1); then
    fail "$name" "$(cg_tail "$out")"
  else
    pass "$name"
  fi
  if ! out=$(cg_interp "$b.tref" --save-outputs "$model" --input-grads=all --graph "$graph" --seed "$seed" --train) ||
     ! out=$("$cg_bin/gnn-run" "$lib" --graph "$graph" --seed "$seed" --train --save-grads "$b.tgot" \
               --save-input-grads "$b.igot" --output "$b.out" --repeat 1 --warmup 0 2>&1); then
    fail "$name/backward" "$(cg_tail "$out")"
  else
    cat "$b.igot" >> "$b.tgot"
    sed 's/^tensor output /tensor out /' "$b.out" >> "$b.tgot"
    if out=$("$ROOT/build/bin/gnn-compare" "$b.tgot" "$b.tref" --tol 1e-4 2>&1) &&
       [ "$(grep -c '^tensor grad\.' "$b.tref")" -gt 0 ] && grep -q '^tensor grad_input\.x ' "$b.tref"; then
      pass "$name/backward"
    else
      fail "$name/backward" "$(cg_tail "$out")"
    fi
  fi
  rm -f "$b".*
}
if [ -x "$cg_bin/gnn-run" ]; then
  cg_seed=191
  for cg_m in ln6_chain normprop_chain gated_res; do
    for cg_fl in "" -fno-fuse; do
      for cg_map in $cg_maps; do
        for cg_g in tests/interp/graphs/hub tests/interp/graphs/isolated tests/interp/graphs/duplicates; do
          CG_FLAGS=$cg_fl cg_check_chain "codegen/$cg_target/chains/$cg_m${cg_fl}/$(basename $cg_g)/$cg_map" tests/ir/$cg_m.gnn $cg_g $cg_map $cg_seed
        done
      done
    done
    cg_seed=$((cg_seed + 1))
  done
fi
unset -f cg_check_chain

# ---- dropout draws: the CUDA and host code paths draw the same masks (issue 4). (1) The RNG of
# runtime/gnnrt_rng.h built by cc and by nvcc (as CUDA source, whose host instantiation is
# compiled from the same code as the device one; no GPU here) prints identical draws. (2) Every
# dropout of the generated .cu calls it with the same stream, counter expression and p as the
# .c from the same kernel IR, in the same order.
if [ $cg_target = host ] && shard_take; then
  if cg_out=$(cc -std=c11 -O2 -Wall -Wextra -Werror -Iruntime tests/codegen/rng_draws.c -o "$cg/rng_c" 2>&1) &&
     cg_out=$(nvcc -x cu -O2 -Iruntime tests/codegen/rng_draws.c -o "$cg/rng_cu" 2>&1) &&
     "$cg/rng_c" > "$cg/rng_c.txt" && "$cg/rng_cu" > "$cg/rng_cu.txt" && [ "$(wc -l < "$cg/rng_c.txt")" -eq 36 ] &&
     cmp -s "$cg/rng_c.txt" "$cg/rng_cu.txt"; then
    pass codegen/rng/cc-vs-nvcc
  else
    fail codegen/rng/cc-vs-nvcc "$(cg_tail "$cg_out") $(diff "$cg/rng_c.txt" "$cg/rng_cu.txt" 2>&1 | head -3)"
  fi
  for cg_m in gat gcn; do
    for cg_map in $cg_maps; do
      # its own sources (the compile checks' may be another shard's)
      "$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map --emit=c -o "$cg/rng-$cg_m-$cg_map.c" > /dev/null 2>&1
      "$GNNC" dsl-examples/$cg_m.gnn --mapping=$cg_map --emit=cu -o "$cg/rng-$cg_m-$cg_map.cu" > /dev/null 2>&1
      cg_a=$(grep -oP 'gnn_dropout_keep\(seed, \d+u, \(uint64_t\)\(.*?\), [-0-9.e+]+f\)' "$cg/rng-$cg_m-$cg_map.c" 2>/dev/null)
      cg_b=$(grep -oP 'gnn_dropout_keep\(seed, \d+u, \(uint64_t\)\(.*?\), [-0-9.e+]+f\)' "$cg/rng-$cg_m-$cg_map.cu" 2>/dev/null)
      if [ -n "$cg_a" ] && [ "$cg_a" = "$cg_b" ]; then pass "codegen/rng/same-calls/$cg_m/$cg_map"
      else fail "codegen/rng/same-calls/$cg_m/$cg_map" "the .c and .cu dropout calls differ (or there are none)"; fi
    done
  done
fi

if [ $cg_target = host ]; then
# ---- embedding: a program of one's own compiles generated/gcn.c in and agrees with gnn-run.
# With gnnc's -march=native (the CPU's AVX-512, where it has it: the narrow projection as a
# generated loop) the same bits; with the compiler's default target (cblas for it) the same
# values to float rounding (emit_host_gemm.c: the sums are the same, their order is not).
if shard_take; then
cg_out=$(cc -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror -Iruntime -Igenerated tests/embed/embed_gcn.c generated/gcn.c \
  -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" -o "$cg/embed_gcn" 2>&1) &&
  cg_out=$(cc -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -Iruntime -Igenerated tests/embed/embed_gcn.c generated/gcn.c \
    -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" -o "$cg/embed_gcn_default" 2>&1)
if [ $? -ne 0 ]; then
  fail "codegen/embed/build" "$(cg_tail "$cg_out")"
else
  pass "codegen/embed/build"
  cg_lib_gcn=$(cg_lib dsl-examples/gcn.gnn vertex)
  cg_a=$("$cg/embed_gcn" data/cora 2>&1 | grep '^checksum')
  cg_b=$("$cg_bin/gnn-run" "$cg_lib_gcn" --graph data/cora --seed 1 --repeat 1 --warmup 0 2>&1 | grep '^checksum')
  if [ -n "$cg_a" ] && [ "$cg_a" = "$cg_b" ]; then pass "codegen/embed/same-as-gnn-run"
  else fail "codegen/embed/same-as-gnn-run" "embed_gcn: '$cg_a', gnn-run: '$cg_b'"; fi
  cg_c=$("$cg/embed_gcn_default" data/cora 2>&1 | grep '^checksum')
  # "checksum: sum S  abs-sum A": both within 1e-6 relative
  if [ -n "$cg_c" ] && [ -n "$cg_b" ] && awk -v x="$cg_c" -v y="$cg_b" 'BEGIN { split(x, a, " "); split(y, b, " ");
       for (i = 3; i <= 5; i += 2) { d = a[i] - b[i]; if (d < 0) d = -d; m = b[i] < 0 ? -b[i] : b[i];
         if (a[i] == "" || d > 1e-6 * (m + 1)) exit 1 } }'; then pass "codegen/embed/default-target-close-to-gnn-run"
  else fail "codegen/embed/default-target-close-to-gnn-run" "embed_gcn (cc's default target): '$cg_c', gnn-run: '$cg_b'"; fi
fi
fi

# ---- memory checks of the host path: valgrind over gnn-run and the libraries, and ASan+UBSan
# builds of gnn-run and of model libraries (GNNC_HOST_CFLAGS), both mappings, forward and the
# memory plan's arena placement.
cg_small() { # NAME MODEL GRAPH MAPPING RUNNER... -- runs gnn-run (or a wrapped one) on a small case
  local name=$1 model=$2 graph=$3 map=$4 lib out
  shift 4
  if ! lib=$(cg_lib "$model" "$map" ${cg_march:-}); then fail "$name" "no library"; return; fi
  if out=$("$@" "$lib" --graph "$graph" --repeat 2 --warmup 0 2>&1); then pass "$name"
  else fail "$name" "$(cg_tail "$out")"; fi
}
if [ -z "${RT_SANITIZED:-}" ] && command -v valgrind >/dev/null; then
  cg_march=--host-march=portable # valgrind has no AVX-512: libraries built for this CPU stop on SIGILL
  for cg_map in $cg_maps; do
    for cg_m in gat edgeconv monet; do
      shard_take || continue
      cg_small "codegen/valgrind/$cg_m-small/$cg_map" "tests/interp/models/$cg_m.gnn" tests/interp/graphs/random $cg_map \
        valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --suppressions=tests/runtime/valgrind.supp "$cg_bin/gnn-run"
    done
  done
  cg_march=
fi
cg_asan="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
# (this shard's share decided first, whatever the build below does: the shards stay in step)
cg_asan_cases=()
for cg_map in $cg_maps; do
  for cg_m in gat edgeconv monet gin; do
    shard_take && cg_asan_cases+=("$cg_m:$cg_map")
  done
done
if [ ${#cg_asan_cases[@]} -eq 0 ]; then
  :
elif cg_out=$(cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g $cg_asan -Iruntime runtime/gnn_run.c -o "$cg/gnn-run-asan" -ldl -lm 2>&1); then
  for cg_mm in "${cg_asan_cases[@]}"; do
    cg_m=${cg_mm%%:*} cg_map=${cg_mm#*:}
    cg_alib="$cg/libasan-$cg_m-$cg_map.so"
    if ! cg_out=$(GNNC_HOST_CFLAGS="$cg_asan" "$GNNC" "tests/interp/models/$cg_m.gnn" --target=host --mapping=$cg_map -o "$cg_alib" 2>&1); then
      fail "codegen/asan/$cg_m-small/$cg_map" "$(cg_tail "$cg_out")"
      continue
    fi
    if cg_out=$(ASAN_OPTIONS=detect_leaks=1 "$cg/gnn-run-asan" "$cg_alib" --graph tests/codegen/graphs/hub10k --repeat 2 --warmup 0 2>&1) &&
       ! printf '%s' "$cg_out" | grep -q 'runtime error\|Sanitizer'; then
      pass "codegen/asan/$cg_m-small/$cg_map"
    else
      fail "codegen/asan/$cg_m-small/$cg_map" "$(cg_tail "$cg_out")"
    fi
  done
else
  fail "codegen/asan/build" "$(cg_tail "$cg_out")"
fi

# ---- the host prelude's exp and expm1 (gnn_expf, gnn_expm1f) against glibc: cut from a generated
# source, compiled as gnnc compiles host libraries (the checker's loops vectorise), and at -O0
if ! shard_take; then
  :
elif "$GNNC" dsl-examples/gat.gnn --target=host --emit=c -o "$cg/expsrc.c" > /dev/null 2>&1 &&
   { echo '#include <stdint.h>'; echo '#include <math.h>'; echo '#define GNN_HELPER static inline __attribute__((unused))'
     sed -n '/^\/\* c ? a : b as bits/,/^GNN_HELPER int64_t gnn_min_i64/p' "$cg/expsrc.c" | sed '$d'; } > "$cg/exp_prelude.h" &&
   grep -q '^GNN_HELPER float gnn_expm1f' "$cg/exp_prelude.h"; then
  for cg_o in "-O3 -march=native" "-O0"; do
    # shellcheck disable=SC2086
    if cg_out=$(cc $cg_o -ffp-contract=off -std=c11 -include "$cg/exp_prelude.h" tests/codegen/exp_check.c -o "$cg/exp_check" -lm 2>&1) &&
       cg_out=$("$cg/exp_check" 2>&1); then
      pass "codegen/host-exp/${cg_o%% *}"
    else
      fail "codegen/host-exp/${cg_o%% *}" "$(cg_tail "$cg_out")"
    fi
  done
else
  fail codegen/host-exp "the helpers were not found in a generated host source"
fi

fi # host-only checks

unset -f cg_tail cg_lib cg_check cg_small
unset cg_lib_gcn cg_march cg_a cg_b cg_asan cg_alib cg_target
unset cg cg_bin cg_models cg_maps cg_m cg_map cg_cc cg_arch cg_out cg_g cg_gn cg_seed cg_drv cg_rc cg_o cg_pairs cg_bad cg_n

# (the large-graph checks this sanitized run left to make test: said once, counted neither way)
if [ "$cg_left_to_plain" -gt 0 ] && shard_first; then
  echo "  codegen: $cg_left_to_plain numeric checks on PubMed and hub10k are make test's (this run is sanitized: RT_SANITIZED)"
fi
unset cg_left_to_plain
