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
