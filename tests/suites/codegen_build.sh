# codegen_build.sh -- sourced by tests/run.sh: the generated sources compile, and what a compiler
# makes of them reads right, on a machine without a GPU (the codegen_* suites: tests/codegen/lib.sh).
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
#   codegen/rounding/ptx/MAPPING/ARCH, .../nvrtc/MAPPING  tests/codegen/contract.gnn's PTX (nvcc
#                                  sm_80, sm_90; NVRTC): no fma, every float add/sub/mul .rn
#   codegen/rng/...                the dropout draws of the CUDA and host code paths agree
#   codegen/grid-wide/...          EdgeConv's element-wise global kernels run grid-wide (128 blocks, no
#                                  lanes); a global kernel whose lanes cooperate stays one group;
#                                  .../cpu/MAPPING/KERNEL: every example's grid-wide kernels run on a
#                                  CPU on six grids, both thread orders (grid_wide_check.py)
#   codegen/cuda-lib/...           gnnc -o lib.so --target=cuda builds a CUDA library with nvcc,
#                                  SASS for each --arch and the PTX of the last one
# Needs nvcc (the CUDA toolkit). With CG_TARGET=cuda (make gpu-check) only the restrict and
# unroll checks run (without the PTX): the rest does not depend on the GPU.
#
# The helpers, the models' lists and the closing line under make test-asan: tests/codegen/lib.sh.
# CG_TARGET=cuda (make gpu-check, on a machine with a GPU) runs the same numeric comparisons with
# the CUDA libraries (gnnc --target=cuda) instead of the host ones (docs/gpu.md).

# shellcheck source=tests/codegen/lib.sh
source tests/codegen/lib.sh

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

cg_done
