# bench.sh -- the benchmark programs that cannot run here are still built and exercised:
#
#   bench/d2d-copy/nvcc            bench/d2d_copy.cu (the copy bandwidth gpu_forward.sh divides by)
#                                  compiles with nvcc for sm_80 and sm_90, no warnings
#   bench/d2d-copy/no-gpu          without a GPU it exits 1 with "no CUDA device here" (nothing else)
#   bench/d2d-copy/bad-args        bad arguments: usage, exit 2
#   bench/gpu-forward/script       bench/gpu_forward.sh with BENCH_TARGET=host on a small generated
#                                  graph: the table has its 4 rows (GAT, GCN x vertex, edge), no
#                                  FAILED line, and the copy column reads n/a
#   bench/gpu-forward/no-gpu       without a GPU, BENCH_TARGET=cuda says so and exits 1
# Speed is never asserted here; only that the programs build, run and print their tables.
bn=$TMP/bench
mkdir -p "$bn"
has_gpu=
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && has_gpu=1
if ! command -v nvcc > /dev/null; then
  fail bench/d2d-copy/nvcc "nvcc not found (the CUDA toolkit is required)"
elif bn_out=$(nvcc -std=c++17 -O2 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 \
    -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror bench/d2d_copy.cu -o "$bn/d2d_copy" 2>&1); then
  pass bench/d2d-copy/nvcc
  if [ -z "$has_gpu" ]; then
    "$bn/d2d_copy" > "$bn/d2d.out" 2> "$bn/d2d.err"; bn_rc=$?
    if [ $bn_rc -eq 1 ] && grep -qx 'd2d_copy: no CUDA device here' "$bn/d2d.err" && [ ! -s "$bn/d2d.out" ]; then
      pass bench/d2d-copy/no-gpu
    else
      fail bench/d2d-copy/no-gpu "exit $bn_rc, stderr '$(head -c 200 "$bn/d2d.err")'"
    fi
  fi
  "$bn/d2d_copy" 0 > /dev/null 2> "$bn/d2d.err"; bn_rc=$?
  if [ $bn_rc -eq 2 ] && grep -q '^usage: d2d_copy' "$bn/d2d.err"; then pass bench/d2d-copy/bad-args
  else fail bench/d2d-copy/bad-args "exit $bn_rc, stderr '$(head -c 200 "$bn/d2d.err")'"; fi
else
  fail bench/d2d-copy/nvcc "$(printf '%s\n' "$bn_out" | tail -n 4 | tr '\n' ' ')"
fi

# the script itself, host libraries, on the 2,001-vertex hub graph (edges only: seeded inputs)
mkdir -p "$bn/graph"
cp tests/interp/graphs/hub/graph.edges "$bn/graph/"
if BENCH_TARGET=host PUBMED="$bn/graph" REPEAT=2 WARMUP=0 OUT="$bn/gf.txt" GNN_RUN="$ROOT/build/bin/gnn-run" \
     bash bench/gpu_forward.sh "$GNNC" > "$bn/gf.log" 2>&1 &&
   [ "$(grep -cE '^(gat|gcn) +(vertex|edge) +[0-9.]+ +\([0-9.]+\) .* n/a$' "$bn/gf.txt")" = 4 ] &&
   ! grep -q FAILED "$bn/gf.txt" && grep -q '^# graph as loaded: 2001 vertices' "$bn/gf.txt"; then
  pass bench/gpu-forward/script
else
  fail bench/gpu-forward/script "$(tail -n 5 "$bn/gf.log" | tr '\n' ' ')"
fi
if [ -z "$has_gpu" ]; then
  bash bench/gpu_forward.sh "$GNNC" > /dev/null 2> "$bn/gf.err"; bn_rc=$?
  if [ $bn_rc -eq 1 ] && grep -q '^gpu_forward: no GPU here' "$bn/gf.err"; then pass bench/gpu-forward/no-gpu
  else fail bench/gpu-forward/no-gpu "exit $bn_rc, stderr '$(head -c 200 "$bn/gf.err")'"; fi
fi
unset bn bn_out bn_rc has_gpu

# ---- make bench-peers (issue 12): bench/gen_graph.c, bench/peer_gnnc.c, bench/peer_pyg.py, bench/peers.sh
#   bench/peers/gen-graph/deterministic  the same arguments give the same bytes, another seed others;
#                                        the counts (E + V edges, V self-loops) are what was asked
#   bench/peers/gen-graph/bad-args       usage errors: a message, exit 2
#   bench/peers/driver/bad-args          peer_gnnc on something that is not a model library: a message
#   bench/peers/profile                  GNN_PROFILE=1 prints the per-step table (and nothing without it)
#   bench/peers/check-mismatch           peer_pyg.py --check fails (status mismatch, exit 4) on a wrong output
#   bench/peers/script                   bench/peers.sh end to end on Cora (GCN, GAT), tiny counts: both
#                                        sides agree (the check table says ok for each PyG variant) and
#                                        every run has a row; without PyG, the PyG side is skipped with
#                                        a note and gnnc still runs (bench/peers/no-pyg)
#   bench/peers/plot                     the two PNGs from the script's table (with Debian's matplotlib)
#   bench/peers/no-gpu                   without a GPU, PEERS_TARGET=cuda and peer_pyg.py --device cuda say so
#   bench/peers/syntax                   bash -n and a Python parse of the scripts (the CUDA path included)
#   bench/peers/bad-workload             an unknown PEERS_WORKLOADS name: a message, exit 2
# The PyG side needs build/peers-venv (make bench-peers) or PEERS_PYTHON; make test never installs it.
pr=$TMP/peers
mkdir -p "$pr"
pr_gen=$ROOT/build/bench/gen_graph
pr_drv=$ROOT/build/bench/peer_gnnc
pr_py=${PEERS_PYTHON:-$ROOT/build/peers-venv/bin/python}
if [ ! -x "$pr_gen" ] || [ ! -x "$pr_drv" ]; then
  fail bench/peers/build "build/bench/gen_graph or build/bench/peer_gnnc is missing (make test builds them)"
else
  "$pr_gen" powerlaw --vertices 3000 --edges 40000 --max-degree 300 --seed 7 -o "$pr/a.gcsr" > "$pr/a.log" 2>&1
  "$pr_gen" powerlaw --vertices 3000 --edges 40000 --max-degree 300 --seed 7 -o "$pr/b.gcsr" > /dev/null 2>&1
  "$pr_gen" powerlaw --vertices 3000 --edges 40000 --max-degree 300 --seed 8 -o "$pr/c.gcsr" > /dev/null 2>&1
  pr_info=$("$pr_gen" info "$pr/a.gcsr" 2>&1)
  if cmp -s "$pr/a.gcsr" "$pr/b.gcsr" && [ -s "$pr/c.gcsr" ] && ! cmp -s "$pr/a.gcsr" "$pr/c.gcsr" &&
     grep -q ': 3000 vertices, 43000 edges (3000 self-loops)' <<< "$pr_info"; then
    pass bench/peers/gen-graph/deterministic
  else
    fail bench/peers/gen-graph/deterministic "$(cat "$pr/a.log") / $pr_info"
  fi
  pr_ok=1
  for pr_args in "" "bogus" "powerlaw" "powerlaw -o $pr/x.gcsr --edges 7" "powerlaw -o $pr/x.gcsr --vertices 10 --max-degree 20" \
                 "powerlaw -o $pr/x.gcsr --vertices 10 --edges 1000" "convert -o $pr/x.gcsr" "powerlaw -o $pr/x.gcsr --seed -1"; do
    # shellcheck disable=SC2086 # the arguments, split on purpose
    "$pr_gen" $pr_args > /dev/null 2> "$pr/err"; pr_rc=$?
    if [ $pr_rc != 2 ] || ! grep -q '^\(gen_graph: \|usage: gen_graph\)' "$pr/err"; then pr_ok=0; echo "gen_graph $pr_args: exit $pr_rc: $(head -c 200 "$pr/err")"; fi
  done
  "$pr_gen" convert /nonexistent -o "$pr/x.gcsr" > /dev/null 2> "$pr/err"; pr_rc=$?
  { [ $pr_rc = 1 ] && grep -q 'gen_graph: GNN_ERR_IO' "$pr/err"; } || { pr_ok=0; echo "convert /nonexistent: exit $pr_rc"; }
  [ $pr_ok = 1 ] && pass bench/peers/gen-graph/bad-args || fail bench/peers/gen-graph/bad-args
  "$pr_drv" "$pr/a.gcsr" --graph "$pr/a.gcsr" > /dev/null 2> "$pr/err"; pr_rc=$?
  "$pr_drv" > /dev/null 2>> "$pr/err"; pr_rc2=$?
  if [ $pr_rc = 1 ] && grep -q 'peer_gnnc: cannot load' "$pr/err" && [ $pr_rc2 = 2 ] && grep -q '^usage: peer_gnnc' "$pr/err"; then
    pass bench/peers/driver/bad-args
  else
    fail bench/peers/driver/bad-args "exit $pr_rc/$pr_rc2: $(head -c 300 "$pr/err")"
  fi
  # GNN_PROFILE on a GCN library and the generated graph
  if "$GNNC" dsl-examples/gcn.gnn --target=host -o "$pr/gcn.so" > "$pr/gnnc.log" 2>&1 &&
     GNN_PROFILE=1 OMP_NUM_THREADS=1 "$pr_drv" "$pr/gcn.so" --graph "$pr/a.gcsr" --forward 2 --warmup 0 --steps 3 > "$pr/p.out" 2> "$pr/p.err" &&
     OMP_NUM_THREADS=1 "$pr_drv" "$pr/gcn.so" --graph "$pr/a.gcsr" --forward 1 --warmup 0 --steps 0 > /dev/null 2> "$pr/np.err" &&
     grep -q '^gnn-profile: .* forward [0-9]* gemm %8 apply_vertex.linear$' "$pr/p.err" &&
     grep -q '^gnn-profile: .* backward .* kernel ' "$pr/p.err" && grep -q '^gnn-profile: gemm [0-9.]*%, kernels' "$pr/p.err" &&
     grep -q '^status ok$' "$pr/p.out" && [ ! -s "$pr/np.err" ]; then
    pass bench/peers/profile
  else
    fail bench/peers/profile "$(cat "$pr/gnnc.log" "$pr/p.err" "$pr/np.err" 2> /dev/null | head -c 400)"
  fi
fi

if "$pr_py" -c 'import torch, torch_geometric' > /dev/null 2>&1; then pr_have_pyg=1; else pr_have_pyg=; fi
pr_env=(PEERS_WORKLOADS="gcn-cora gat-cora" PEERS_THREADS=1 PEERS_ROUNDS=1 PEERS_FORWARD=2 PEERS_WARMUP=0 PEERS_STEPS=3
        PEERS_TIMEOUT=300 PEERS_WORK="$pr/work" PEERS_PLOTS=0)
if [ -n "$pr_have_pyg" ]; then
  # a wrong output must fail the check
  mkdir -p "$pr/chk"
  if "$pr_drv" "$pr/gcn.so" --graph "$pr/a.gcsr" --dump "$pr/chk" > /dev/null 2>&1; then
    "$PY" -c "import numpy as np, sys; a = np.fromfile(sys.argv[1], dtype=np.float32); a[5] += 0.5; a.tofile(sys.argv[1])" "$pr/chk/out.bin"
    "$pr_py" bench/peer_pyg.py --graph "$pr/a.gcsr" --model gcn:1433,16,7 --check "$pr/chk" > "$pr/chk.log" 2>&1; pr_rc=$?
    if [ $pr_rc = 4 ] && grep -q '^status mismatch$' "$pr/chk.log"; then pass bench/peers/check-mismatch
    else fail bench/peers/check-mismatch "exit $pr_rc: $(tail -n 3 "$pr/chk.log" | tr '\n' ' ')"; fi
  else
    fail bench/peers/check-mismatch "peer_gnnc --dump failed"
  fi
  env "${pr_env[@]}" PEERS_PYTHON="$pr_py" PEERS_OUT="$pr/r.md" bash bench/peers.sh "$GNNC" > "$pr/script.log" 2>&1; pr_rc=$?
  if [ $pr_rc = 0 ] && grep -q '^| gcn-cora | pyg-edge_index ok (max rel diff [0-9.e+-]*), pyg-csr ok ' "$pr/r.md" &&
     grep -q '^| gat-cora | pyg-edge_index ok (max rel diff [0-9.e+-]*), pyg-csr ok ' "$pr/r.md" &&
     [ "$(awk -F'\t' '$11 == "ok"' "$pr/r.tsv" | wc -l)" = 6 ] && grep -q '^| gat-cora | 2,708 / 13,264 | 1 | 2/1 | [0-9.]* | [0-9.]* | [0-9.]* | ' "$pr/r.md"; then
    pass bench/peers/script
  else
    fail bench/peers/script "exit $pr_rc: $(tail -n 8 "$pr/script.log" | tr '\n' ' ' | head -c 600)"
  fi
else
  echo "note: bench/peers: no PyG here ($pr_py cannot import torch_geometric; make bench-peers installs it): the PyG side is skipped"
  env "${pr_env[@]}" PEERS_PYTHON="$pr_py" PEERS_OUT="$pr/r.md" bash bench/peers.sh "$GNNC" > "$pr/script.log" 2>&1; pr_rc=$?
  if [ $pr_rc = 0 ] && grep -q 'PyG side skipped' "$pr/r.md" && [ "$(awk -F'\t' '$11 == "ok"' "$pr/r.tsv" | wc -l)" = 2 ]; then pass bench/peers/script
  else fail bench/peers/script "exit $pr_rc: $(tail -n 8 "$pr/script.log" | tr '\n' ' ' | head -c 600)"; fi
fi
# the no-PyG path, whatever this machine has (a python without torch_geometric)
env "${pr_env[@]}" PEERS_WORKLOADS=gcn-cora PEERS_PYTHON=/bin/false PEERS_OUT="$pr/n.md" bash bench/peers.sh "$GNNC" > "$pr/n.log" 2>&1; pr_rc=$?
if [ $pr_rc = 0 ] && grep -q 'PyG side skipped' "$pr/n.md" && grep -q '^| gcn-cora | not checked (no PyG) |$' "$pr/n.md" &&
   [ "$(awk -F'\t' '$11 == "ok"' "$pr/n.tsv" | wc -l)" = 1 ]; then
  pass bench/peers/no-pyg
else
  fail bench/peers/no-pyg "exit $pr_rc: $(tail -n 5 "$pr/n.log" | tr '\n' ' ' | head -c 400)"
fi
if "$PY" -c 'import matplotlib' > /dev/null 2>&1 && [ -s "$pr/r.tsv" ]; then
  if "$PY" bench/peers_report.py plot "$pr/r.tsv" "$pr/plots" > /dev/null 2>&1 && [ -s "$pr/plots/peers-time.png" ] &&
     [ -s "$pr/plots/peers-memory.png" ] && [ "$(head -c 4 "$pr/plots/peers-time.png" | tail -c 3)" = PNG ]; then
    pass bench/peers/plot
  else
    fail bench/peers/plot "peers_report.py plot failed"
  fi
fi
# the GPU path, checked here without a GPU: PEERS_TARGET=cuda says there is none; the PyG side
# refuses --device cuda when torch sees no GPU; every script parses
pr_gpu=
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && pr_gpu=1
if [ -z "$pr_gpu" ]; then
  PEERS_TARGET=cuda PEERS_WORKLOADS=gcn-cora PEERS_WORK="$pr/work" PEERS_PYTHON=/bin/false bash bench/peers.sh "$GNNC" > /dev/null 2> "$pr/err"; pr_rc=$?
  pr_ok=0
  [ $pr_rc = 1 ] && grep -q '^peers: PEERS_TARGET=cuda but there is no GPU here' "$pr/err" && pr_ok=1
  if [ -n "$pr_have_pyg" ]; then
    "$pr_py" bench/peer_pyg.py --graph "$pr/a.gcsr" --model gcn:1433,16,7 --device cuda > "$pr/cu.out" 2> "$pr/cu.err"; pr_rc=$?
    [ $pr_rc = 1 ] && grep -q 'torch sees no GPU' "$pr/cu.err" && grep -q '^status error$' "$pr/cu.out" || pr_ok=0
  fi
  [ $pr_ok = 1 ] && pass bench/peers/no-gpu || fail bench/peers/no-gpu "$(head -c 300 "$pr/err")"
fi
if bash -n bench/peers.sh && bash -n bench/peers_env.sh && "$PY" -c 'import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' bench/peer_pyg.py bench/peers_report.py 2> "$pr/err"; then
  pass bench/peers/syntax
else
  fail bench/peers/syntax "$(head -c 300 "$pr/err")"
fi
# unknown workload: a message, exit 2
PEERS_WORKLOADS=nope PEERS_WORK="$pr/work" bash bench/peers.sh "$GNNC" > /dev/null 2> "$pr/err"; pr_rc=$?
if [ $pr_rc = 2 ] && grep -q "peers: unknown workload 'nope'" "$pr/err"; then pass bench/peers/bad-workload
else fail bench/peers/bad-workload "exit $pr_rc: $(head -c 200 "$pr/err")"; fi
# bench/host_codegen.sh without a base gnnc: its usage, exit 2, nothing written
bash bench/host_codegen.sh > /dev/null 2> "$pr/err"; pr_rc=$?
if bash -n bench/host_codegen.sh && [ $pr_rc = 2 ] && grep -q 'usage: bench/host_codegen.sh BASE_GNNC' "$pr/err"; then
  pass bench/host_codegen/usage
else fail bench/host_codegen/usage "exit $pr_rc: $(head -c 200 "$pr/err")"; fi
unset pr pr_gen pr_drv pr_py pr_info pr_ok pr_args pr_rc pr_rc2 pr_have_pyg pr_env pr_gpu
