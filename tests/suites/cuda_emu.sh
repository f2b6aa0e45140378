# cuda_emu.sh -- sourced by tests/run.sh: whole generated CUDA models run on the CPU, without a GPU
# (docs/gpu.md, "CUDA on the CPU"). Uses $GNNC, $ROOT (= cwd), $TMP, pass, fail, need_tool.
#
# The model's CUDA source (gnnc --target=cuda --emit=cu) and libgnnrt's CUDA build (its C files with
# GNNRT_CUDA, its .cu kernels) are compiled by g++ against tests/cuda_emu (a fake CUDA runtime,
# cuBLAS and cuSPARSE; every kernel launch a loop over blocks whose threads are coroutines meeting
# at __syncwarp, the shuffles and __syncthreads), and gnn-run runs the library as it runs any model
# library. Its numbers are compared with the float64 interpreter by gnn-compare, as the codegen
# suites compare the host library's (tests/codegen/lib.sh: 1e-5 forward, 1e-4 training).
#   cuda_emu/build                 libgnnrt_emu.so builds (tests/cuda_emu/build.sh)
#   cuda_emu/MODEL/GRAPH/MAPPING   tests/interp/models/MODEL.gnn's output on the graph, both thread
#                                  mappings; GRAPH: random (40 vertices), hub (a 2,000 in-edge hub:
#                                  walks in chunks of their group's lanes), isolated
#   cuda_emu/backward/MODEL/...    training mode (dropout from the seed): the output and every
#                                  parameter gradient
#   cuda_emu/layout/MODEL-FLAG      GCN, GAT and SAGE with --vector-loads=4 and with --split-hubs,
#                                  training on the hub graph: the output and every gradient
#   cuda_emu/runtime/{api,csr,ckpt,sample,setgraph}/...  tests/runtime/t_*.c (t_setgraph with
#                                  generated/{sage,gin_graph,gcn}.cu) against libgnnrt_emu: their checks;
#                                  api-no-pools: t_api on a device without memory pools
#   cuda_emu/generated/{edgeconv,gcn}  generated/edgeconv.cu on the point cloud, generated/gcn.cu
#                                  (Cora's widths) on Cora, verbatim: output and gradients
#   cuda_emu/train/gcn             gnn-train, 2 epochs on Cora: its parameters vs the host library's
#   cuda_emu/sabotage/...          the suite can fail: a copy of GCN's source with one kernel's
#                                  index changed (in_deg[v] read as in_deg[u]), and one with the
#                                  __syncwarp between a group's staging of its edges and their
#                                  reading removed, each FAILS against the interpreter
# CUDA_EMU_MODELS="gcn gat" runs those models alone, CUDA_EMU_MODELS= none.
# g++ missing: every check fails (ALLOW_SKIP=1: skipped), never silently passes.

# shellcheck source=tests/codegen/lib.sh
source tests/codegen/lib.sh
ce=$TMP/cuda_emu
mkdir -p "$ce"
ce_tail() { printf '%s\n' "$1" | tail -n 4 | tr '\n' ' '; }
ce_ok=1
need_tool cuda_emu/build g++ || ce_ok=0
if [ $ce_ok = 1 ]; then
  if out=$(bash tests/cuda_emu/build.sh "$ce" "$ROOT" 2>&1) && [ -f "$ce/libgnnrt_emu.so" ]; then
    pass cuda_emu/build
  else
    fail cuda_emu/build "$(ce_tail "$out")"
    ce_ok=0
  fi
fi

# ce_lib NAME MODEL.gnn MAPPING [CU]: builds NAME's emulated library (from CU, with the headers
# beside it, else from gnnc's --emit=cu of MODEL, with CE_FLAGS' flags) and prints its path
ce_lib() {
  local base=$ce/$1
  mkdir -p "$base"
  if [ -n "${4:-}" ]; then
    cp "$4" "$base/model.cu" && cp "$(dirname "$4")"/*.h "$base/" || return 1
  else # (the source includes model.h, which --emit=cu writes beside it)
    # shellcheck disable=SC2086 # CE_FLAGS: words
    "$GNNC" "$2" --target=cuda --mapping="$3" ${CE_FLAGS:-} --emit=cu -o "$base/model.cu" >"$base/log" 2>&1 || return 1
  fi
  bash tests/cuda_emu/model.sh "$base/lib.so" "$base/model.cu" "$ce" "$ROOT" >>"$base/log" 2>&1 || return 1
  printf '%s' "$base/lib.so"
}
# ce_fwd NAME LIB MODEL.gnn GRAPH SEED: the output vs the interpreter's (1e-5); prints gnn-compare's
# lines, exit 1 when they differ
ce_fwd() {
  local b=$ce/run-$$ out
  cg_interp "$b.ref" --output "$3" --graph "$4" --seed "$5" || return 2
  out=$("$cg_bin/gnn-run" "$2" --graph "$4" --seed "$5" --output "$b.got" --repeat 1 --warmup 0 2>&1) || { printf '%s\n' "$out"; return 2; }
  "$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol 1e-5 || { rm -f "$b".*; return 1; }
  rm -f "$b".*
}
# ce_bwd NAME LIB MODEL.gnn GRAPH SEED: training: the output and every gradient (1e-4)
ce_bwd() {
  local b=$ce/bwd-$$ out
  cg_interp "$b.ref" --save-outputs "$3" --graph "$4" --seed "$5" --train || return 2
  out=$("$cg_bin/gnn-run" "$2" --graph "$4" --seed "$5" --train --save-grads "$b.got" --output "$b.out" --repeat 1 --warmup 0 2>&1) ||
    { printf '%s\n' "$out"; return 2; }
  sed 's/^tensor output /tensor out /' "$b.out" >> "$b.got"
  grep -q '^tensor grad\.' "$b.ref" || { echo "no gradient in the reference"; return 2; }
  "$ROOT/build/bin/gnn-compare" "$b.got" "$b.ref" --tol 1e-4 || { rm -f "$b".*; return 1; }
  rm -f "$b".*
}
# ce_expect NAME WANT CMD...: pass when CMD's exit status is WANT (0 agrees, 1 differs)
ce_expect() {
  local name=$1 want=$2 out rc
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc = "$want" ]; then pass "$name"; else fail "$name" "exit $rc, wanted $want: $(ce_tail "$out")"; fi
}

if [ $ce_ok = 1 ]; then
  ce_seed=301
  for ce_m in ${CUDA_EMU_MODELS-gcn sage gin gat appnp monet edgeconv rgcn}; do
    for ce_map in vertex edge; do
      if ! ce_l=$(ce_lib "$ce_m-$ce_map" "tests/interp/models/$ce_m.gnn" $ce_map); then
        fail "cuda_emu/$ce_m/$ce_map" "the library did not build: $(ce_tail "$(cat "$ce/$ce_m-$ce_map/log")")"
        continue
      fi
      for ce_g in random hub isolated; do
        ce_expect "cuda_emu/$ce_m/$ce_g/$ce_map" 0 ce_fwd x "$ce_l" "tests/interp/models/$ce_m.gnn" "tests/interp/graphs/$ce_g" $ce_seed
        ce_expect "cuda_emu/backward/$ce_m/$ce_g/$ce_map" 0 ce_bwd x "$ce_l" "tests/interp/models/$ce_m.gnn" "tests/interp/graphs/$ce_g" $((ce_seed + 1))
      done
    done
    ce_seed=$((ce_seed + 2))
  done
fi

# ---- the layouts gnnc's options choose, whose CUDA differs most from the default's: float4 loads
# (--vector-loads=4: each lane 4 consecutive elements) and hub rows in pieces (--split-hubs: a
# group per piece of the 2,000 in-edge hub, the last piece's group merging), training mode on the
# hub graph: the output and every gradient
if [ $ce_ok = 1 ]; then
  for ce_f in --vector-loads=4 --split-hubs; do
    for ce_m in gcn gat sage; do
      ce_n=$ce_m-${ce_f#--}
      if ! ce_l=$(CE_FLAGS=$ce_f ce_lib "${ce_n//=/}" "tests/interp/models/$ce_m.gnn" vertex); then
        fail "cuda_emu/layout/$ce_n" "the library did not build: $(ce_tail "$(cat "$ce/${ce_n//=/}/log")")"
      elif ! grep -q "$([ $ce_f = --split-hubs ] && echo 'hub rows in pieces' || echo float4)" "$ce/${ce_n//=/}/model.cu"; then
        fail "cuda_emu/layout/$ce_n" "the source does not take the layout (no float4 load, no pieces)"
      else
        ce_expect "cuda_emu/layout/$ce_n" 0 ce_bwd x "$ce_l" "tests/interp/models/$ce_m.gnn" tests/interp/graphs/hub 331
      fi
    done
  done
fi

# ---- the runtime's own test programs against libgnnrt_emu, as make builds them against libgnnrt
# (t_api_cuda, t_csr_cuda, t_setgraph_cuda, which make test runs only on a GPU; t_ckpt and t_sample,
# which it runs against the host library alone): the CUDA build's context, memory table, span
# checks, uploads, graphs (gnn_graph_from_csr's device-side checks in csr_cuda.cu), SpMM, losses
# and optimisers, training states saved from and loaded to the device, sampled subgraphs; t_setgraph with generated/sage.cu, gin_graph.cu and
# gcn.cu compiled in (no GNNC_MODEL_ENTRY: three models in one program), rebound over mini-batches
if [ $ce_ok = 1 ]; then
  ce_rt=$ce/rt
  mkdir -p "$ce_rt"
  ce_cc=(gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -Iruntime -Igenerated)
  ce_link=(-L"$ce" -lgnnrt_emu -Wl,-rpath,"$ce" -lm)
  for ce_t in api csr ckpt sample; do
    if ! out=$("${ce_cc[@]}" -o "$ce_rt/t_$ce_t" "tests/runtime/t_$ce_t.c" "${ce_link[@]}" 2>&1); then
      fail "cuda_emu/runtime/$ce_t" "it did not build: $(ce_tail "$out")"
    else
      mkdir -p "$ce_rt/$ce_t.d" # (t_ckpt's folder for its files)
      out=$(cd "$ce_rt" && "./t_$ce_t" $([ $ce_t = ckpt ] && echo "$ce_rt/$ce_t.d") 2>&1)
      report_lines "cuda_emu/runtime/$ce_t" $? "$out"
      if [ $ce_t = api ]; then # a device without memory pools: cudaMalloc, and cudaFree after a sync
        out=$(cd "$ce_rt" && CUDA_EMU_NO_POOLS=1 ./t_api 2>&1)
        report_lines cuda_emu/runtime/api-no-pools $? "$out"
      fi
    fi
  done
  ce_objs=() ce_bad=
  for ce_m in sage gin_graph gcn; do
    "$PY" tests/cuda_emu/cuda_emu.py "generated/$ce_m.cu" "$ce_rt/$ce_m.cpp" &&
      g++ -std=c++17 -O1 -fPIC -ffp-contract=off -w -DGNNRT_CUDA -Itests/cuda_emu/include -Igenerated -Iruntime \
        -c -o "$ce_rt/$ce_m.o" "$ce_rt/$ce_m.cpp" > "$ce_rt/$ce_m.log" 2>&1 || ce_bad="$ce_bad $ce_m"
    ce_objs+=("$ce_rt/$ce_m.o")
  done
  if [ -n "$ce_bad" ] || ! out=$("${ce_cc[@]}" -c -o "$ce_rt/t_setgraph.o" tests/runtime/t_setgraph.c 2>&1) ||
     ! out=$(g++ -o "$ce_rt/t_setgraph" "$ce_rt/t_setgraph.o" "${ce_objs[@]}" "${ce_link[@]}" 2>&1); then
    fail cuda_emu/runtime/setgraph "it did not build:${ce_bad:+ generated/ of$ce_bad} $(ce_tail "$out")"
  else
    out=$(cd "$ce_rt" && ./t_setgraph 2>&1)
    report_lines cuda_emu/runtime/setgraph $? "$out"
  fi
fi

# ---- generated/edgeconv.cu itself on the point cloud, generated/gcn.cu at Cora's widths on Cora
# (GAT, SAGE, APPNP, GIN and MoNet pass too, 18-40 s each here: left out for time): the output and
# the gradients vs the interpreter; and two epochs of gnn-train (the runtime's CUDA loss, accuracy and Adam kernels)
# against the host library's, the parameters within 1e-3 (Adam's first steps, lr / sqrt(v), turn
# a gradient's rounding into a step's: 6e-5 seen after three)
if [ $ce_ok = 1 ]; then
  if ! ce_l=$(ce_lib generated-edgeconv "" "" generated/edgeconv.cu); then
    fail cuda_emu/generated/edgeconv "generated/edgeconv.cu did not build: $(ce_tail "$(cat "$ce/generated-edgeconv/log")")"
  else
    ce_expect cuda_emu/generated/edgeconv 0 ce_bwd x "$ce_l" dsl-examples/edgeconv.gnn tests/interp/graphs/pointcloud 313
  fi
  if ! ce_l=$(ce_lib generated-gcn "" "" generated/gcn.cu); then
    fail cuda_emu/generated/gcn "generated/gcn.cu did not build: $(ce_tail "$(cat "$ce/generated-gcn/log")")"
  else
    ce_expect cuda_emu/generated/gcn 0 ce_bwd x "$ce_l" dsl-examples/gcn.gnn data/cora 311
    if ! out=$("$GNNC" dsl-examples/gcn.gnn --target=host -o "$ce/gcn-host.so" 2>&1); then
      fail cuda_emu/train/gcn "the host library did not build: $(ce_tail "$out")"
    elif ! out=$("$cg_bin/gnn-train" "$ce_l" --data data/cora --epochs 2 --seed 3 --quiet --save-params "$ce/train-emu.txt" 2>&1) ||
         ! out=$("$cg_bin/gnn-train" "$ce/gcn-host.so" --data data/cora --epochs 2 --seed 3 --quiet --save-params "$ce/train-host.txt" 2>&1); then
      fail cuda_emu/train/gcn "gnn-train failed: $(ce_tail "$out")"
    else
      ce_expect cuda_emu/train/gcn 0 "$ROOT/build/bin/gnn-compare" "$ce/train-emu.txt" "$ce/train-host.txt" --tol 1e-3
    fi
  fi
fi

# ---- the suite can fail: GCN's source sabotaged two ways, each run against the interpreter
# ce_sabotage NAME SCRIPT: a copy of GCN's vertex-mapping source edited by the Python SCRIPT (on
# `s`, which must change), built and run: it must differ from the interpreter (exit 1)
ce_sabotage() {
  local dir=$ce/sabotage-$1 l
  mkdir -p "$dir"
  if ! "$PY" -c "import sys; s = open(sys.argv[1]).read(); t = s; $2; assert t != s, 'the edit found nothing'; open(sys.argv[2], 'w').write(s)" \
      "$ce/gcn-vertex/model.cu" "$dir/model.cu" 2>"$dir/log" || ! cp "$ce/gcn-vertex/model.h" "$dir/"; then
    fail "cuda_emu/sabotage/$1" "the edit failed: $(ce_tail "$(cat "$dir/log")")"
  elif ! l=$(ce_lib "sabotage-$1-lib" "" "" "$dir/model.cu"); then
    fail "cuda_emu/sabotage/$1" "the sabotaged library did not build"
  else
    ce_expect "cuda_emu/sabotage/$1" 1 ce_fwd x "$l" tests/interp/models/gcn.gnn tests/interp/graphs/random 301
  fi
}
# (GCN's vertex-mapping source: the models' loop made it, unless CUDA_EMU_MODELS left GCN out)
if [ $ce_ok = 1 ] && { [ -f "$ce/gcn-vertex/model.cu" ] || ce_lib gcn-vertex tests/interp/models/gcn.gnn vertex > /dev/null ||
                      { fail cuda_emu/sabotage "GCN's source did not build"; false; }; }; then
  # an index: the edge's normalisation reads the source's in-degree for the destination's
  ce_sabotage index "s = s.replace('in_deg[v * 1 + k]', 'in_deg[u * 1 + k]', 1)"
  # a barrier: the lanes read the edges their group staged in shared memory without waiting for them
  ce_sabotage syncwarp "s = s.replace('sh_u[lane] = src[sh_e[lane]];\n    }\n    __syncwarp(gmask);\n', 'sh_u[lane] = src[sh_e[lane]];\n    }\n', 1)"
fi
