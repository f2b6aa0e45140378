# codegen_layouts.sh -- sourced by tests/run.sh: the kernel layouts gnnc's options choose (hub rows
# in pieces, column tiles, float4 loads): the plan, the sources, and the numbers against the
# float64 interpreter (the codegen_* suites: tests/codegen/lib.sh).
#   codegen/host/[backward/]pieces/...  --split-hubs
#   codegen/host/[backward/]tiles/...   --tile-columns
#   codegen/vec4/..., codegen/cuda/[backward/]vec4/...  --vector-loads=4 (the numbers with CG_TARGET=cuda)
#
# The helpers, the models' lists and the closing line under make test-asan: tests/codegen/lib.sh.
# CG_TARGET=cuda (make gpu-check, on a machine with a GPU) runs the same numeric comparisons with
# the CUDA libraries (gnnc --target=cuda) instead of the host ones (docs/gpu.md).

# shellcheck source=tests/codegen/lib.sh
source tests/codegen/lib.sh

cg_relational_data
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

cg_done
