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
#   bench/header                   bench_lib.sh's results header: the CPU's family/model/stepping, its
#                                  SIMD flags (avx2, avx512f, ...), the commit; bench_stamp prepends it
#   bench/docs-numbers             docs/passes/fuse.md quotes gat.gnn's --stats totals (and the forwards' line) at Reddit's size as
#                                  gnnc prints them; docs/benchmarks.md's GPU estimate table is gpu_estimate.txt's
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
# the results headers (bench/bench_lib.sh): the CPU's numbers and SIMD flags beside its name, a
# commit; bench_stamp puts them above a file a program wrote (make bench's compile_time.txt)
bn_h=$(bash -c '. bench/bench_lib.sh && bench_header "t" && simd_words "fpu avx2 fma avx512f" && simd_words "sse2"' 2>&1)
printf 'a b\n' > "$bn/stamp.txt"
bash -c '. bench/bench_lib.sh && bench_stamp "$1" "stamped"' _ "$bn/stamp.txt" > /dev/null 2>&1
if grep -q '^# cpu:     .*(family [0-9]*, model [0-9]*, stepping [0-9]*);' <<< "$bn_h" &&
   grep -q '^# simd:    avx2 \(yes\|no\), fma \(yes\|no\), avx512f \(yes\|no\), ' <<< "$bn_h" &&
   grep -q '^# commit:  [0-9a-f]\{7\}' <<< "$bn_h" &&
   grep -qx 'avx2 yes, fma yes, avx512f yes, avx512vl no, avx512bw no' <<< "$bn_h" &&
   grep -qx 'avx2 no, fma no, avx512f no, avx512vl no, avx512bw no' <<< "$bn_h" &&
   [ "$(head -1 "$bn/stamp.txt")" = "# stamped" ] && grep -q '^# simd: ' "$bn/stamp.txt" && [ "$(tail -1 "$bn/stamp.txt")" = "a b" ]; then
  pass bench/header
else
  fail bench/header "$(head -c 600 <<< "$bn_h") / $(head -c 300 "$bn/stamp.txt")"
fi
# numbers the docs quote from the tools must be the tools' (they drifted before 2026-12-03): the
# --stats totals of gat.gnn at Reddit's size in docs/passes/fuse.md (the pass's, the inference and
# training forwards'), and the GPU estimate table of
# docs/benchmarks.md against bench/results/gpu_estimate.txt (forward and step estimates, row by row)
bn_stats=$("$GNNC" dsl-examples/gat.gnn --stats V=232965,E=114615892 2>&1)
bn_tot=$(grep '^  total: ' <<< "$bn_stats")
bn_fwd=$(grep '^  inference forward ' <<< "$bn_stats")
bn_est=$("$PY" - docs/benchmarks.md bench/results/gpu_estimate.txt <<'PYEOF' 2>&1
import sys
doc = [l for l in open(sys.argv[1]) if l.startswith("| ") and " / " in l and "x |" in l]
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith(("#", "workload")) and len(l.split()) == 16]
names = ["GAT Cora (smoke", "GAT PubMed, vertex", "GAT PubMed, edge", "GCN PubMed, vertex", "GCN PubMed, edge", "GCN Cora |",
         "GAT Cora |", "GAT PubMed |", "MoNet PubMed |", "EdgeConv k=20, 32 clouds |", "GCN power-law 200k |",
         "GAT power-law 200k |", "GCN Reddit-sized |", "GAT Reddit-sized |"]
bad = []
for n, r in zip(names, rows):
    line = next((l for l in doc if l.startswith("| " + n) and f"{r[4]} / {r[5]} |" in l), None)
    if line is None or (r[11] != "-" and f"{r[11]} / {r[12]} |" not in line):
        bad.append(n + " " + r[5] + " " + r[12])
print("ok" if len(rows) == 14 and not bad else "differ: " + "; ".join(bad) + f" ({len(rows)} rows)")
PYEOF
)
if [ -n "$bn_tot" ] && grep -qF -- "$bn_tot" docs/passes/fuse.md && [ -n "$bn_fwd" ] && grep -qF -- "$bn_fwd" docs/passes/fuse.md &&
   [ "$bn_est" = ok ]; then
  pass bench/docs-numbers
else
  fail bench/docs-numbers "fuse.md lacks '$bn_tot' or '$bn_fwd', or the GPU estimate table: $bn_est"
fi
unset bn bn_out bn_rc has_gpu bn_h bn_stats bn_tot bn_fwd bn_est

# ---- make bench-peers (issue 12): bench/gen_graph.c, bench/peer_gnnc.c, bench/peer_pyg.py, bench/peers.sh
#   bench/peers/gen-graph/deterministic  the same arguments give the same bytes, another seed others;
#                                        the counts (E + V edges, V self-loops) are what was asked
#   bench/peers/gen-graph/bad-args       usage errors: a message, exit 2
#   bench/peers/driver/bad-args          peer_gnnc on something that is not a model library: a message
#   bench/peers/profile                  GNN_PROFILE=1 prints the per-step table (and nothing without it)
#   bench/peers/check-mismatch           peer_pyg.py --check fails (status mismatch, exit 4) on a wrong output
#   bench/peers/check/pyg                peer_pyg.py --check agrees with gnnc on a tiny power-law graph (its rows'
#                                        sources unsorted): GCN and GAT, edge_index and CSR, with the PyG python
#                                        (PEERS_PYTHON or build/peers-venv: current torch/PyG from PyPI)
#   bench/peers/check/pyg-debian         the same with build/peers-venv-debian (Debian's torch 1.13, PyG 2.3.1),
#                                        where that fallback venv exists
#   bench/peers/check/dgl                peer_dgl.py --check, GCN and GAT, with PEERS_DGL_PYTHON or
#                                        build/peers-dgl-venv (dgl 2.1.0), where it exists
#   bench/peers/load                     peer_pyg.py reads a .gcsr as the runtime does: a truncated or corrupted file
#                                        is refused (no python loops: memory-mapped)
#   bench/peers/script                   bench/peers.sh end to end on Cora (GCN, GAT), tiny counts: the
#                                        sides agree (the check table says ok for each PyG variant, and
#                                        DGL where it exists) and every run has a row, the versions at the
#                                        top; without PyG or DGL, they are skipped with a note and gnnc
#                                        still runs (bench/peers/no-pyg)
#   bench/peers/plot                     the two PNGs from the script's table (with Debian's matplotlib)
#   bench/peers/rss-base                 the runs' base RSS (rss_base_mib: graph loaded, no model) in the .tsv,
#                                        and the report's ratio of the peaks above base beside the peaks'
#   bench/peers/no-gpu                   without a GPU, PEERS_TARGET=cuda and peer_pyg.py --device cuda say so
#   bench/peers/syntax                   bash -n and a Python parse of the scripts (the CUDA path included)
#   bench/peers/bad-workload             an unknown PEERS_WORKLOADS name: a message, exit 2
#   bench/peers/no-dropout               peer_pyg.py --no-dropout trains without dropout (a first loss other
#                                        than with it, the same twice), and peers.sh passes it to a -nodrop
#                                        workload's peers (the dropout control), whose .gnn has none
#   bench/peers/edgeconv-rewrite         peer_pyg.py --adj rewrite (PyG's EdgeConv rewritten by hand as gnnc
#                                        rewrites it): output and gradients equal PyG's EdgeConv's
#                                        (bench/edgeconv_rewrite_check.py), output gnnc's (--check); it trains;
#                                        refused for other models
# The PyG side needs build/peers-venv (make bench-peers) or PEERS_PYTHON, DGL build/peers-dgl-venv or
# PEERS_DGL_PYTHON; make test never installs them, and registers no test for a peer that is absent.
pr=$TMP/peers
mkdir -p "$pr"
pr_gen=$ROOT/build/bench/gen_graph
pr_drv=$ROOT/build/bench/peer_gnnc
pr_py=${PEERS_PYTHON:-$ROOT/build/peers-venv/bin/python}
pr_dgl=${PEERS_DGL_PYTHON:-$ROOT/build/peers-dgl-venv/bin/python}
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
  # rmat (issue 28): the same bytes for the same seed, exactly E + N edges, skewed; --order degree
  # relabels the vertices (another file) and keeps every count
  "$pr_gen" rmat --vertices 3000 --edges 40000 --seed 7 -o "$pr/r.gcsr" > "$pr/r.log" 2>&1
  "$pr_gen" rmat --vertices 3000 --edges 40000 --seed 7 -o "$pr/r2.gcsr" > /dev/null 2>&1
  "$pr_gen" convert "$pr/r.gcsr" --order degree -o "$pr/rd.gcsr" > "$pr/rd.log" 2>&1
  pr_ri=$("$pr_gen" info "$pr/r.gcsr" 2>&1)
  pr_rdi=$("$pr_gen" info "$pr/rd.gcsr" 2>&1)
  pr_max=$(sed -n 's/.*max in-degree \([0-9]*\),.*/\1/p' <<< "$pr_ri")
  if cmp -s "$pr/r.gcsr" "$pr/r2.gcsr" && grep -q ': 3000 vertices, 43000 edges (3000 self-loops)' <<< "$pr_ri" &&
     [ "${pr_max:-0}" -gt 400 ] && grep -q 'median in-degree [0-9]' "$pr/r.log" && [ -s "$pr/rd.gcsr" ] && ! cmp -s "$pr/r.gcsr" "$pr/rd.gcsr" &&
     [ "$(sed 's/^[^:]*: //; s/ (.*s)$//' <<< "$pr_rdi")" = "$(sed 's/^[^:]*: //; s/ (.*s)$//' <<< "$pr_ri")" ]; then
    pass bench/peers/gen-graph/rmat
  else
    fail bench/peers/gen-graph/rmat "$(cat "$pr/r.log" "$pr/rd.log") / $pr_ri / $pr_rdi"
  fi
  pr_ok=1
  for pr_args in "" "bogus" "powerlaw" "powerlaw -o $pr/x.gcsr --edges 7" "powerlaw -o $pr/x.gcsr --vertices 10 --max-degree 20" \
                 "powerlaw -o $pr/x.gcsr --vertices 10 --edges 1000" "convert -o $pr/x.gcsr" "powerlaw -o $pr/x.gcsr --seed -1" \
                 "rmat -o $pr/x.gcsr --max-degree 5" "rmat -o $pr/x.gcsr --vertices 10 --edges 91" "convert $pr/a.gcsr -o $pr/x.gcsr --order id"; do
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
if "$pr_dgl" -c 'import torch, dgl, dgl.nn.pytorch' > /dev/null 2>&1; then pr_have_dgl=1; else pr_have_dgl=; fi

# peer_pyg.py / peer_dgl.py --check against gnnc on a tiny graph with whatever torch/PyG/DGL each python
# has: 300 vertices, each row's sources in a seeded order (the CSR path sorts them)
pr_checks=()
[ -n "$pr_have_pyg" ] && pr_checks+=("pyg|$pr_py|bench/peer_pyg.py|edge_index csr")
pr_deb=$ROOT/build/peers-venv-debian/bin/python
if [ -z "${PEERS_PYTHON:-}" ] && [ -x "$pr_deb" ] && "$pr_deb" -c 'import torch, torch_geometric' > /dev/null 2>&1; then
  pr_checks+=("pyg-debian|$pr_deb|bench/peer_pyg.py|edge_index csr")
elif [ -z "${PEERS_PYTHON:-}" ]; then
  echo "note: bench/peers/check/pyg-debian not registered: no working $pr_deb (bench/peers_env.sh's fallback over Debian's torch 1.13 and PyG 2.3.1)"
fi
[ -n "$pr_have_dgl" ] && pr_checks+=("dgl|$pr_dgl|bench/peer_dgl.py|dgl")
[ -n "$pr_have_pyg" ] || echo "note: bench/peers/check/pyg not registered: $pr_py cannot import torch and torch_geometric (make bench-peers makes build/peers-venv)"
[ -n "$pr_have_dgl" ] || echo "note: bench/peers/check/dgl not registered: $pr_dgl cannot import dgl (make bench-peers makes build/peers-dgl-venv)"
if [ ${#pr_checks[@]} -gt 0 ] && [ -x "$pr_gen" ] && [ -x "$pr_drv" ]; then
  "$pr_gen" powerlaw --vertices 300 --edges 3000 --max-degree 60 --seed 3 -o "$pr/tiny.gcsr" > /dev/null 2>&1
  pr_dumped=1
  for pr_m in gcn gat; do
    mkdir -p "$pr/tiny-$pr_m"
    "$GNNC" "dsl-examples/$pr_m.gnn" --target=host -o "$pr/tiny-$pr_m.so" > /dev/null 2>&1 &&
      "$pr_drv" "$pr/tiny-$pr_m.so" --graph "$pr/tiny.gcsr" --dump "$pr/tiny-$pr_m" > /dev/null 2>&1 || pr_dumped=
  done
  for pr_c in "${pr_checks[@]}"; do
    IFS='|' read -r pr_name pr_cpy pr_script pr_adjs <<< "$pr_c"
    pr_ok=1 pr_msg= pr_v=
    if [ -z "$pr_dumped" ]; then pr_ok=0 pr_msg="gnnc or peer_gnnc --dump failed on the tiny graph"; fi
    for pr_m in gcn:gcn:1433,16,7 gat:gat:1433,8x8,1x7; do
      [ $pr_ok = 1 ] || break
      IFS=: read -r pr_lib pr_kind pr_spec <<< "$pr_m"
      for pr_adj in $pr_adjs; do
        "$pr_cpy" "$pr_script" --graph "$pr/tiny.gcsr" --model "$pr_kind:$pr_spec" --adj "$pr_adj" --check "$pr/tiny-$pr_lib" \
          > "$pr/chk-$pr_name.log" 2>&1; pr_rc=$?
        pr_v=$(sed -n 's/^versions //p' "$pr/chk-$pr_name.log")
        if [ $pr_rc != 0 ] || ! grep -q '^status ok$' "$pr/chk-$pr_name.log" || [ -z "$pr_v" ]; then
          pr_ok=0 pr_msg="$pr_kind $pr_adj: exit $pr_rc: $(grep -v Warning "$pr/chk-$pr_name.log" | tail -n 3 | tr '\n' ' ' | head -c 300)"
          break
        fi
      done
    done
    if [ $pr_ok = 1 ]; then
      pass "bench/peers/check/$pr_name"
      [ -n "${VERBOSE:-}" ] && echo "     ($pr_v)"
    else
      fail "bench/peers/check/$pr_name" "$pr_msg"
    fi
  done
fi
# the loader: a truncated or corrupted .gcsr is refused with a message (any python with NumPy: the PyG
# one, else the test python; --check is never reached)
if [ -x "$pr_gen" ] && [ -s "$pr/a.gcsr" ]; then
  pr_lpy=$PY
  [ -n "$pr_have_pyg" ] && pr_lpy=$pr_py
  head -c 1000 "$pr/a.gcsr" > "$pr/trunc.gcsr"
  cp "$pr/a.gcsr" "$pr/bad.gcsr"
  # in_ptr[1] (offset 72) set past the edge count: the CSR is broken, the size is right
  printf '\xff\xff\xff\x7f' | dd of="$pr/bad.gcsr" bs=1 seek=72 conv=notrunc status=none
  pr_ok=1
  for pr_f in trunc bad; do
    "$pr_lpy" -c 'import sys; sys.path.insert(0, "bench"); import peer_pyg; peer_pyg.load_gcsr(sys.argv[1])' "$pr/$pr_f.gcsr" \
      > /dev/null 2> "$pr/load-$pr_f.err"; pr_rc=$?
    [ $pr_rc = 1 ] && grep -q "^peer: .*$pr_f.gcsr: " "$pr/load-$pr_f.err" || { pr_ok=0; echo "load $pr_f: exit $pr_rc: $(head -c 200 "$pr/load-$pr_f.err")"; }
  done
  "$pr_lpy" -c 'import sys; sys.path.insert(0, "bench"); import peer_pyg; nv, ne, p, s = peer_pyg.load_gcsr(sys.argv[1]); assert (nv, ne) == (3000, 43000) and p[-1] == ne; print(peer_pyg.edge_index_np(nv, p, s)[:, -1].tolist(), sorted(peer_pyg.sorted_rows(nv, p, s)[p[-2]:].tolist()) == peer_pyg.sorted_rows(nv, p, s)[p[-2]:].tolist())' \
    "$pr/a.gcsr" > "$pr/load-ok.out" 2> "$pr/load-ok.err" || pr_ok=0
  grep -q '^\[[0-9]*, 2999\] True$' "$pr/load-ok.out" || { pr_ok=0; echo "load a.gcsr: $(cat "$pr/load-ok.out" "$pr/load-ok.err" | head -c 300)"; }
  [ $pr_ok = 1 ] && pass bench/peers/load || fail bench/peers/load
fi
# the dropout control (bench/peers.sh's *-nodrop workloads): peer_pyg.py --no-dropout runs the same
# model without any dropout (same seed: the same first loss twice, another than with dropout), and
# peers.sh passes it to the peers of a -nodrop workload, whose .gnn has no dropout
pr_ndpy=
[ -n "$pr_have_pyg" ] && pr_ndpy=$pr_py
[ -z "$pr_ndpy" ] && [ -x "$pr_deb" ] && "$pr_deb" -c 'import torch, torch_geometric' > /dev/null 2>&1 && pr_ndpy=$pr_deb
if [ -n "$pr_ndpy" ]; then
  pr_nd=(bench/peer_pyg.py --graph "$pr/a.gcsr" --model gcn:64,16,7 --forward 1 --warmup 0 --steps 3)
  "$pr_ndpy" "${pr_nd[@]}" > "$pr/d1.log" 2>&1
  "$pr_ndpy" "${pr_nd[@]}" --no-dropout > "$pr/d0.log" 2>&1
  "$pr_ndpy" "${pr_nd[@]}" --no-dropout > "$pr/d0b.log" 2>&1
  env PEERS_WORKLOADS=gcn-cora-nodrop PEERS_SIDES="gnnc pyg-edge_index" PEERS_THREADS=1 PEERS_FORWARD=1 PEERS_WARMUP=0 \
    PEERS_STEPS=3 PEERS_WORK="$pr/ndwork" PEERS_PLOTS=0 PEERS_PYTHON="$pr_ndpy" PEERS_DGL_PYTHON=/bin/false \
    PEERS_OUT="$pr/nd.md" bash bench/peers.sh "$GNNC" > "$pr/nd.log" 2>&1; pr_rc=$?
  pr_l1=$(sed -n 's/^loss_first //p' "$pr/d1.log") pr_l0=$(sed -n 's/^loss_first //p' "$pr/d0.log")
  if grep -q '^dropout as the model$' "$pr/d1.log" && grep -q '^dropout none$' "$pr/d0.log" && [ -n "$pr_l0" ] &&
     [ -n "$pr_l1" ] && [ "$pr_l0" != "$pr_l1" ] && [ "$pr_l0" = "$(sed -n 's/^loss_first //p' "$pr/d0b.log")" ] &&
     grep -q '^status ok$' "$pr/d0.log" && [ $pr_rc = 0 ] &&
     grep -q '^dropout none$' "$pr/ndwork/runs/gcn-cora-nodrop-pyg-edge_index-t1-r1.log" &&
     grep -q '^| gcn-cora-nodrop | pyg-edge_index ok ' "$pr/nd.md" &&
     ! grep -v '^#' bench/peers/gcn_cora_nodrop.gnn | grep -q dropout; then
    pass bench/peers/no-dropout
  else
    fail bench/peers/no-dropout "losses $pr_l1 / $pr_l0, peers.sh exit $pr_rc: $(tail -n 3 "$pr/d0.log" "$pr/nd.log" | tr '\n' ' ' | head -c 500)"
  fi
  # EdgeConv's hand rewrite (peer_pyg.py --adj rewrite, the pyg-rewrite side): the same output and
  # gradients as PyG's EdgeConv, the same output as gnnc's (--check), and only for EdgeConv
  pr_gpc=$ROOT/build/bench/gen_pointcloud
  if [ -x "$pr_gpc" ] && "$pr_gpc" "$pr/pc.d" --clouds 2 --points 128 --k 10 > /dev/null 2>&1 &&
     "$pr_gen" convert "$pr/pc.d" -o "$pr/pc.gcsr" > /dev/null 2>&1 &&
     "$GNNC" dsl-examples/edgeconv.gnn --target=host -o "$pr/ec.so" > /dev/null 2>&1 && mkdir -p "$pr/ecchk" &&
     "$pr_drv" "$pr/ec.so" --graph "$pr/pc.gcsr" --dump "$pr/ecchk" > /dev/null 2>&1; then
    "$pr_ndpy" bench/edgeconv_rewrite_check.py "$pr/pc.gcsr" > "$pr/ecr.log" 2>&1
    "$pr_ndpy" bench/peer_pyg.py --graph "$pr/pc.gcsr" --model edgeconv:3,64,64,128,256 --adj rewrite --check "$pr/ecchk" > "$pr/ecc.log" 2>&1
    "$pr_ndpy" bench/peer_pyg.py --graph "$pr/pc.gcsr" --model edgeconv:3,64,64,128,256 --adj rewrite --forward 1 --warmup 0 --steps 3 > "$pr/ect.log" 2>&1
    "$pr_ndpy" bench/peer_pyg.py --graph "$pr/a.gcsr" --model gcn:64,16,7 --adj rewrite > /dev/null 2> "$pr/ecg.err"; pr_rc=$?
    if grep -q '^status ok$' "$pr/ecr.log" && grep -q '^status ok$' "$pr/ecc.log" && grep -q '^side pyg-rewrite$' "$pr/ecc.log" &&
       grep -q '^train_ms [0-9.]*$' "$pr/ect.log" && grep -q '^status ok$' "$pr/ect.log" &&
       [ $pr_rc != 0 ] && grep -q 'rewrite is EdgeConv' "$pr/ecg.err"; then
      pass bench/peers/edgeconv-rewrite
    else
      fail bench/peers/edgeconv-rewrite "$(tail -n 3 "$pr/ecr.log" "$pr/ecc.log" "$pr/ect.log" "$pr/ecg.err" | tr '\n' ' ' | head -c 600)"
    fi
  else
    fail bench/peers/edgeconv-rewrite "cannot make the point-cloud graph or gnnc's EdgeConv library"
  fi
else
  echo "note: bench/peers/no-dropout and edgeconv-rewrite not registered: no python with torch and torch_geometric"
fi
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
  env "${pr_env[@]}" PEERS_PYTHON="$pr_py" PEERS_DGL_PYTHON="$pr_dgl" PEERS_OUT="$pr/r.md" bash bench/peers.sh "$GNNC" > "$pr/script.log" 2>&1; pr_rc=$?
  # 3 sides per workload, 4 with DGL (its check ok too, its versions and a "vs DGL" column); the versions at the top
  pr_n=6 pr_dglok=1
  if [ -n "$pr_have_dgl" ]; then
    pr_n=8
    { grep -q '^| gat-cora | pyg-edge_index ok .*, pyg-csr ok .*, dgl ok (max rel diff' "$pr/r.md" && grep -q '^- DGL: *torch [0-9.]*.*, dgl [0-9]' "$pr/r.md" &&
      grep -q '| fwd vs DGL | fwd vs best |' "$pr/r.md"; } || pr_dglok=0
  else
    grep -q '^- DGL: not available (' "$pr/r.md" || pr_dglok=0
  fi
  if [ $pr_rc = 0 ] && grep -q '^| gcn-cora | pyg-edge_index ok (max rel diff [0-9.e+-]*), pyg-csr ok ' "$pr/r.md" &&
     grep -q '^| gat-cora | pyg-edge_index ok (max rel diff [0-9.e+-]*), pyg-csr ok ' "$pr/r.md" && [ $pr_dglok = 1 ] &&
     grep -q '^- PyG: *torch [0-9].*, torch_geometric [0-9]' "$pr/r.md" &&
     [ "$(awk -F'\t' '$11 == "ok"' "$pr/r.tsv" | wc -l)" = $pr_n ] && grep -q '^| gat-cora | 2,708 / 13,264 | 1 | 2/1 | [0-9.]* | [0-9.]* | [0-9.]* | ' "$pr/r.md"; then
    pass bench/peers/script
  else
    fail bench/peers/script "exit $pr_rc: $(tail -n 8 "$pr/script.log" | tr '\n' ' ' | head -c 600)"
  fi
else
  echo "note: bench/peers: no PyG here ($pr_py cannot import torch_geometric; make bench-peers installs it): the PyG side is skipped"
  env "${pr_env[@]}" PEERS_PYTHON="$pr_py" PEERS_DGL_PYTHON=/bin/false PEERS_OUT="$pr/r.md" bash bench/peers.sh "$GNNC" > "$pr/script.log" 2>&1; pr_rc=$?
  if [ $pr_rc = 0 ] && grep -q 'PyG side skipped' "$pr/r.md" && [ "$(awk -F'\t' '$11 == "ok"' "$pr/r.tsv" | wc -l)" = 2 ]; then pass bench/peers/script
  else fail bench/peers/script "exit $pr_rc: $(tail -n 8 "$pr/script.log" | tr '\n' ' ' | head -c 600)"; fi
fi
# the no-PyG path, whatever this machine has (a python without torch_geometric)
env "${pr_env[@]}" PEERS_WORKLOADS=gcn-cora PEERS_PYTHON=/bin/false PEERS_DGL_PYTHON=/bin/false PEERS_OUT="$pr/n.md" bash bench/peers.sh "$GNNC" > "$pr/n.log" 2>&1; pr_rc=$?
if [ $pr_rc = 0 ] && grep -q 'PyG side skipped' "$pr/n.md" && grep -q '^| gcn-cora | not checked (no PyG, no DGL) |$' "$pr/n.md" &&
   grep -q '^- DGL: not available (/bin/false cannot import dgl' "$pr/n.md" &&
   [ "$(awk -F'\t' '$11 == "ok"' "$pr/n.tsv" | wc -l)" = 1 ]; then
  pass bench/peers/no-pyg
else
  fail bench/peers/no-pyg "exit $pr_rc: $(tail -n 5 "$pr/n.log" | tr '\n' ' ' | head -c 400)"
fi
# the processes' base RSS (peer_gnnc and the peers print rss_base_mib: the graph loaded, no model
# yet; a peer's includes Python and torch): a column of the .tsv, and the report's ratio of the
# peaks above each base beside the ratio of the peaks (here a made-up run: 345/45 and 80/40)
pr_col=$(head -1 "$pr/n.tsv" 2> /dev/null | tr '\t' '\n' | grep -n '^rss_base_mib$' | cut -d: -f1)
pr_base=$([ -n "$pr_col" ] && awk -F'\t' -v c="$pr_col" 'NR == 2 { print $c }' "$pr/n.tsv")
printf 'workload\tthreads\tside\tround\tforward_ms\ttrain_ms\tpeak_rss_mib\tplan_arena_mib\truntime_peak_mib\tcuda_peak_mib\tstatus\tnv\tne\tforward_runs\ttrain_runs\tload_s\tversions\trss_base_mib\n' > "$pr/b.tsv"
printf 'w\t1\tgnnc\t1\t1\t2\t45\t\t\t\tok\t10\t20\t1\t1\t0\t\t5\nw\t1\tpyg-csr\t1\t2\t4\t345\t\t\t\tok\t10\t20\t1\t1\t0\tt\t265\n' >> "$pr/b.tsv"
if [ -n "$pr_base" ] && awk -v b="$pr_base" 'BEGIN { exit !(b > 0) }' && grep -q '| gnnc base MiB |' "$pr/n.md" &&
   grep -q 'mem above base' "$pr/n.md" &&
   "$PY" bench/peers_report.py compact "$pr/b.tsv" 2>&1 | grep -q '^| w | \*\*2.00x\*\* | \*\*2.00x\*\* | \*\*7.67x\*\* | \*\*2.00x\*\* |$'; then
  pass bench/peers/rss-base
else
  fail bench/peers/rss-base "base '$pr_base' (column '$pr_col'): $("$PY" bench/peers_report.py compact "$pr/b.tsv" 2>&1 | tail -n 2 | tr '\n' ' ' | head -c 300)"
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
  PEERS_TARGET=cuda PEERS_WORKLOADS=gcn-cora PEERS_WORK="$pr/work" PEERS_PYTHON=/bin/false PEERS_DGL_PYTHON=/bin/false bash bench/peers.sh "$GNNC" > /dev/null 2> "$pr/err"; pr_rc=$?
  pr_ok=0
  [ $pr_rc = 1 ] && grep -q '^peers: PEERS_TARGET=cuda but there is no GPU here' "$pr/err" && pr_ok=1
  if [ -n "$pr_have_pyg" ]; then
    "$pr_py" bench/peer_pyg.py --graph "$pr/a.gcsr" --model gcn:1433,16,7 --device cuda > "$pr/cu.out" 2> "$pr/cu.err"; pr_rc=$?
    [ $pr_rc = 1 ] && grep -q 'torch sees no GPU' "$pr/cu.err" && grep -q '^status error$' "$pr/cu.out" || pr_ok=0
  fi
  [ $pr_ok = 1 ] && pass bench/peers/no-gpu || fail bench/peers/no-gpu "$(head -c 300 "$pr/err")"
fi
if bash -n bench/peers.sh && bash -n bench/peers_env.sh && "$PY" -c 'import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' bench/peer_pyg.py bench/peer_dgl.py bench/peers_report.py 2> "$pr/err"; then
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
unset pr pr_dgl pr_have_dgl pr_checks pr_deb pr_dumped pr_m pr_c pr_name pr_cpy pr_script pr_adjs pr_msg pr_v pr_lib pr_kind
unset pr_spec pr_adj pr_lpy pr_f pr_n pr_dglok pr_gen pr_drv pr_py pr_info pr_ok pr_args pr_rc pr_rc2 pr_have_pyg pr_env pr_gpu
