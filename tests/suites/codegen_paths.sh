# codegen_paths.sh -- sourced by tests/run.sh: the kernel paths that particular models, flags and
# graphs take, against the float64 interpreter (the codegen_* suites: tests/codegen/lib.sh).
#
#   codegen/host/input-grads/MODEL/GRAPH/MAPPING  built with --input-grads=all: out and every
#                                  grad_input.<input> vs the interpreter, 1e-4; .../unasked-params-identical:
#                                  asking for none gives the parameter-only library's gradients, bit for bit
#   codegen/host/chains/MODEL[-fno-fuse]/GRAPH/MAPPING[/backward]  chained row sums (tests/ir/ln6_chain,
#                                  normprop_chain, gated_res), fused and unfused: out, every grad.<param>
#                                  and grad_input.x vs the interpreter (1e-5; CUDA 1e-4)
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
#   codegen/host/backward/rounding/GRAPH/MAPPING  its host library built with FMA contraction
#                                  forced (GNNC_HOST_CFLAGS) vs the interpreter (docs/kernel-ir.md,
#                                  "Rounding": max_out's gradient, found by eq(), was lost)
#   codegen/host/{tf32,f64-untrained,spmm,kept-roots,row-sums,extremum,...}/...  the sections below
#   codegen/host/row-softmax/GRAPH/MAPPING (and backward/row-softmax, nvcc/row-softmax, cc/row-softmax)
#                                  log_softmax / softmax with a row's max and sum before its element
#                                  loop (tests/codegen/row_softmax.gnn) vs the interpreter
#   codegen/host/heads-softmax/GRAPH/MAPPING (and backward/, nvcc/, cc/, plan/heads-softmax)  the same
#                                  over values of several rows ([4, 6]; tests/codegen/heads_softmax.gnn):
#                                  each row's statistics once, in shared arrays, vs the interpreter;
#                                  the .c compiles with gcc and clang -Werror (no logf in an omp simd loop)
#
# The helpers, the models' lists and the closing line under make test-asan: tests/codegen/lib.sh.
# CG_TARGET=cuda (make gpu-check, on a machine with a GPU) runs the same numeric comparisons with
# the CUDA libraries (gnnc --target=cuda) instead of the host ones (docs/gpu.md).

# shellcheck source=tests/codegen/lib.sh
source tests/codegen/lib.sh

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

# Rounding (tests/codegen/contract.gnn; docs/kernel-ir.md, "Rounding"; its PTX: codegen_build.sh):
# the host library with contraction forced (gcc -ffp-contract=fast -mfma, gcc's GNU-mode default on
# an FMA CPU; with clang, its default -ffp-contract=on: its =fast overrides the source's pragma),
# forward and backward against the interpreter: it lost grad.W as the GPU would (0.16 normwise on
# the random graph, vertex mapping; the edge mapping's kernels happened to agree). With
# CG_TARGET=cuda, on a GPU, the CUDA library as gnnc builds it.
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
# and a log_softmax of 3 rows (a lane loop over its rows first: heads_softmax.gnn, below): the
# output and every gradient agree with the interpreter; its .cu compiles with nvcc and its .c
# with the C compilers.
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

# The same over values of several rows (tests/codegen/heads_softmax.gnn: [4, 6], a head's row
# each): a lane loop over the rows puts each row's max and log of its sum in shared arrays (sh_mx<id>,
# sh_lse<id>) before the lane loop over the elements (a rows kernel, a walk's loop over a chunk's
# edges, a softmax recomputed in the backward, a log_softmax of a log_softmax), a dot's row loop
# has its row's two loops before it, and no max or exponential is left at an element (reading from
# `(k / 6) * 6`, the element's row's first):
# fused and unfused, the output and every gradient agree with the interpreter; .cu and .c compile.
if cg_plain; then
  for cg_map in $cg_maps; do
    for cg_o in "" -fno-fuse; do
      if ! cg_out=$("$GNNC" tests/codegen/heads_softmax.gnn --mapping=$cg_map $cg_o --emit=kir 2>&1); then
        fail codegen/host/plan/heads-softmax/$cg_map$cg_o "$(cg_tail "$cg_out")"
      elif [ "$(printf '%s\n' "$cg_out" | grep -c '^  shared sh_mx')" -ge 7 ] &&
           [ "$(printf '%s\n' "$cg_out" | grep -cE '(max\(mx[0-9]*, |exp\().*/ 6\) \* 6\)')" = 0 ]; then
        pass codegen/host/plan/heads-softmax/$cg_map$cg_o
      else
        fail codegen/host/plan/heads-softmax/$cg_map$cg_o "a row's max and sum are not once per row (shared sh_mx<id>), or some are at an element"
      fi
    done
    if "$GNNC" tests/codegen/heads_softmax.gnn --mapping=$cg_map --emit=cu -o "$cg/heads_softmax-$cg_map.cu" > /dev/null 2>&1 &&
       "$GNNC" tests/codegen/heads_softmax.gnn --mapping=$cg_map --emit=c -o "$cg/heads_softmax-$cg_map.c" > /dev/null 2>&1; then
      cg_nvcc_check codegen/nvcc/heads-softmax/$cg_map "$cg/heads_softmax-$cg_map"
      cg_cc_check codegen/cc/heads-softmax/$cg_map "$cg/heads_softmax-$cg_map"
    else
      fail codegen/emit/heads-softmax/$cg_map "gnnc could not emit tests/codegen/heads_softmax.gnn"
    fi
  done
fi
if [ -x "$cg_bin/gnn-run" ]; then
  cg_check_three heads-softmax tests/codegen/heads_softmax.gnn 103
  CG_FLAGS=-fno-fuse cg_check_three heads-softmax-fno-fuse tests/codegen/heads_softmax.gnn 105 "data/pubmed tests/interp/graphs/isolated"
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
# output, every grad.<param> and grad_input.x (1e-5 on the host, 1e-4 with CG_TARGET=cuda) vs the
# interpreter. The host's worst over the 36 backward checks, measured (2026-12-03): 3.3e-6
# (normprop_chain -fno-fuse on hub, grad.W2; ln6_chain's worst 2.8e-6, its grad.W on hub), so 1e-5
# leaves 3x; the CUDA libraries' have not been measured yet: 1e-4 there, as for every other
# backward check. Sabotage: a staged row sum left unstored (stage_row_one) fails every fused check
# of the three models.
# cg_check_chain NAME MODEL.gnn GRAPH MAPPING SEED (CG_FLAGS: more gnnc flags)
cg_check_chain() {
  local name=$1 model=$2 graph=$3 map=$4 seed=$5 flags=${CG_FLAGS:-} lib out b="$cg/chain" btol=1e-5
  [ "$cg_target" = cuda ] && btol=1e-4
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
    if out=$("$ROOT/build/bin/gnn-compare" "$b.tgot" "$b.tref" --tol $btol 2>&1) &&
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

cg_done
