# gpukit.sh -- sourced by tests/run.sh: what make gpu-check needs, checked on a machine without a
# GPU (docs/gpu.md). Uses $GNNC, $ROOT (= cwd), $TMP, $PY, pass, fail.
#
#   gpukit/relocate/host          gnnc copied with the runtime into another folder (the build
#                                 tree's layout: build/gnnc, build/lib, runtime/) builds a host
#                                 library against that folder's runtime (-I, -L, the library's
#                                 RUNPATH), and the copied gnn-run runs it: nothing follows the path
#                                 gnnc was built at
#   gpukit/cuda-cache/hit         GNNC_CUDA_CACHE: the same model built by this tree's gnnc and by
#                                 the relocated one compiles once (the log: a miss, then a hit with
#                                 the same key, and the hit runs no nvcc compile), each library's
#                                 RUNPATH its own tree's lib
#   gpukit/cuda-cache/key-headers a changed runtime header is another key (a miss): the key covers
#                                 what the source includes, not only the source
#   gpukit/host-cache/hit         GNNC_HOST_CACHE: the same host library built twice compiles once
#                                 (a miss, then a hit: no cc run, -v names the command it stands
#                                 in for), the two libraries the same bytes, and it runs
#   gpukit/host-cache/key-...     another GNNC_HOST_CFLAGS, another model, a changed runtime header:
#                                 each another key (a miss); without GNNC_HOST_CACHE, no cache
#   gpukit/host-cache/warned-not-kept  a compile that printed warnings is not kept ("miss-printed"):
#                                 built again, it compiles and warns again
#   gpukit/cached-tool            tests/run.sh's cached_tool (the suites' compile checks): a second
#                                 run of the same compile is a hit (the tool does not run, OUT is
#                                 restored); a changed source or the .h beside it runs again; a
#                                 run that warns or fails is never stored; TEST_CACHE= turns it off
#   gpukit/skip/allowed, /strict  need_tool: with ALLOW_SKIP=1 a missing tool is "SKIP NAME: no
#                                 TOOL" and the closing line counts it skipped; without, a failure
#   gpukit/jobs/...               tests/run.sh's TEST_JOBS: suites at once in their own processes
#                                 and $TMP, a sharded suite's checks once each, an early exit a
#                                 failure, the same counts as one after another; a bad count refused
#   gpukit/check/no-gpu           tests/gpu/check.sh on this machine: "no GPU here", exit 2, and
#                                 nothing run
#   gpukit/check/not-prepared     in a tree with no build/ and no kit: names make gpu-check-prepare, exit 2
#   gpukit/kit/prepare, /unpack-hit  check.sh --prepare (the smoke step only) in a copy of the
#                                 tree packs build/gpu-kit.tar.gz (gnnc, runtimes, tools, the object
#                                 cache, the host libraries, the commit); unpacked in a second tree
#                                 without build/, its gnnc builds the same CUDA library with no
#                                 nvcc compile (a cache hit), linked against the second tree
#   gpukit/check/dry-run          check.sh in that second tree with a stand-in nvidia-smi (an H100):
#                                 the smoke step runs from the kit (a cache hit, no miss), fails at
#                                 gnn-run (no GPU), and the results (summary with the GPU's name, the
#                                 hits, the step's line; at most 7 files to $OUT) are what a GPU run writes
#   gpukit/python-cuda/self-test  tests/gpu/python_cuda.py's checks with the host library on both
#                                 sides (on a GPU it compares CUDA tensors with CPU ones): 36 ok
#                                 lines, the mini-batch case's (a module rebound over 4 batches of
#                                 Cora subgraphs, with input gradients) and the edge_index case's (a
#                                 graph built with torch ops against the host builder's) among them

gk=$TMP/gpukit
rm -rf "$gk" && mkdir -p "$gk"
gk_tail() { printf '%s\n' "$1" | tail -n 3 | tr '\n' ' '; }
# gk_tree DIR: a tree in the build tree's layout with gnnc, the runtime's headers and libraries,
# the drivers and the programs check.sh wants (copies: nothing links back here)
gk_tree() {
  mkdir -p "$1/build/lib" "$1/build/bin" "$1/build/rt" "$1/build/bench" "$1/runtime" "$1/tests/gpu" "$1/dsl-examples"
  cp "$GNNC" "$1/build/gnnc"
  cp -P build/lib/*.so* build/lib/*.a "$1/build/lib/" 2> /dev/null
  cp build/bin/* "$1/build/bin/"
  cp runtime/*.h "$1/runtime/"
  for f in rt/t_api_cuda rt/t_csr_cuda rt/t_nvrtc rt/t_setgraph_cuda bench/gen_graph bench/peer_gnnc bench/gen_pointcloud bench/d2d_copy; do
    [ -f "build/$f" ] && cp "build/$f" "$1/build/$f"
  done
  cp tests/gpu/check.sh "$1/tests/gpu/"
  cp dsl-examples/*.gnn "$1/dsl-examples/"
}
# check.sh keeps a GNNC_CUDA_CACHE it is given: run.sh's (build/test-cache, shared with the other
# suites) must not stand in for the copied trees' own build/cuda-cache
gk_nocache() { env -u GNNC_CUDA_CACHE -u GNNC_HOST_CACHE "$@"; }
gk_runpath() { readelf -d "$1" 2> /dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p'; }

# ---- relocation: a host library built by a copied gnnc
gk_tree "$gk/a"
if gk_out=$("$gk/a/build/gnnc" dsl-examples/gcn.gnn --target=host -v -o "$gk/a/libgcn.so" 2>&1) &&
   grep -q -- "-I$gk/a/runtime " <<< "$gk_out" && grep -q -- "-L$gk/a/build/lib " <<< "$gk_out" &&
   [ "$(gk_runpath "$gk/a/libgcn.so")" = "$gk/a/build/lib" ] &&
   gk_out=$("$gk/a/build/bin/gnn-run" "$gk/a/libgcn.so" --graph data/cora --repeat 1 --warmup 0 2>&1) &&
   grep -q '^checksum' <<< "$gk_out"; then
  pass gpukit/relocate/host
else
  fail gpukit/relocate/host "$(gk_tail "$gk_out") (runpath: $(gk_runpath "$gk/a/libgcn.so"))"
fi

# ---- the CUDA object cache across trees
if ! command -v nvcc > /dev/null; then
  fail gpukit/cuda-cache "nvcc not found (the CUDA toolkit is required)"
else
  gk_c=$gk/cache
  if gk_out=$(GNNC_CUDA_CACHE=$gk_c "$GNNC" dsl-examples/gcn.gnn --target=cuda -o "$gk/libgcn.so" 2>&1) &&
     gk_out=$(GNNC_CUDA_CACHE=$gk_c "$gk/a/build/gnnc" dsl-examples/gcn.gnn --target=cuda -v -o "$gk/a/libgcn.so" 2>&1) &&
     [ "$(cut -d' ' -f1,3 "$gk_c/log" | xargs)" = "miss gcn hit gcn" ] &&
     [ "$(cut -d' ' -f2 "$gk_c/log" | sort -u | wc -l)" = 1 ] &&
     grep -q '^gnnc: the CUDA object from .*, in place of: nvcc .* -c ' <<< "$gk_out" && ! grep -q -- '^nvcc .* -c ' <<< "$gk_out" &&
     [ "$(gk_runpath "$gk/a/libgcn.so")" = "$gk/a/build/lib" ] && [ "$(gk_runpath "$gk/libgcn.so")" = "$ROOT/build/lib" ]; then
    pass gpukit/cuda-cache/hit
  else
    fail gpukit/cuda-cache/hit "$(gk_tail "$gk_out") log: $(tr '\n' ';' < "$gk_c/log" 2> /dev/null)"
  fi
  echo "/* a changed header */" >> "$gk/a/runtime/gnnrt.h"
  if gk_out=$(GNNC_CUDA_CACHE=$gk_c "$gk/a/build/gnnc" dsl-examples/gcn.gnn --target=cuda -o "$gk/a/libgcn.so" 2>&1) &&
     [ "$(tail -1 "$gk_c/log" | cut -d' ' -f1)" = miss ] && [ "$(ls "$gk_c"/*.o | wc -l)" = 2 ]; then
    pass gpukit/cuda-cache/key-headers
  else
    fail gpukit/cuda-cache/key-headers "$(gk_tail "$gk_out") log: $(tr '\n' ';' < "$gk_c/log" 2> /dev/null)"
  fi
  cp runtime/gnnrt.h "$gk/a/runtime/gnnrt.h"
fi

# ---- the host library cache (GNNC_HOST_CACHE, compiler/build_run.c)
gk_h=$gk/host-cache
mkdir -p "$gk/h1" "$gk/h2" "$gk/h3"
if gk_out=$(GNNC_HOST_CACHE=$gk_h "$GNNC" dsl-examples/gcn.gnn --target=host -o "$gk/h1/libgcn.so" 2>&1) &&
   gk_out=$(GNNC_HOST_CACHE=$gk_h "$GNNC" dsl-examples/gcn.gnn --target=host -v -o "$gk/h2/libgcn.so" 2>&1) &&
   [ "$(cut -d' ' -f1,3 "$gk_h/log" | xargs)" = "miss gcn hit gcn" ] &&
   grep -q '^gnnc: the host library from .*(GNNC_HOST_CACHE), in place of: [^ ]* -O3 .* -shared ' <<< "$gk_out" &&
   ! grep -q -- '^[^ ]* -O3 .* -shared ' <<< "$gk_out" &&
   cmp -s "$gk/h1/libgcn.so" "$gk/h2/libgcn.so" && [ -x "$gk/h2/libgcn.so" ] &&
   gk_out=$(build/bin/gnn-run "$gk/h2/libgcn.so" --graph data/cora --repeat 1 --warmup 0 2>&1) && grep -q '^checksum' <<< "$gk_out"; then
  pass gpukit/host-cache/hit
else
  fail gpukit/host-cache/hit "$(gk_tail "$gk_out") log: $(tr '\n' ';' < "$gk_h/log" 2> /dev/null)"
fi
# another flag, another model, a changed runtime header (the relocated tree's): each a miss;
# without GNNC_HOST_CACHE, no cache at all
if gk_out=$(GNNC_HOST_CACHE=$gk_h GNNC_HOST_CFLAGS=-DGK_OTHER "$GNNC" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   gk_out=$(GNNC_HOST_CACHE=$gk_h "$GNNC" dsl-examples/sage.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   [ "$(cut -d' ' -f1 "$gk_h/log" | xargs)" = "miss hit miss miss" ] && [ "$(ls "$gk_h"/*.so | wc -l)" = 3 ]; then
  pass gpukit/host-cache/key-flags-source
else
  fail gpukit/host-cache/key-flags-source "$(gk_tail "$gk_out") log: $(tr '\n' ';' < "$gk_h/log" 2> /dev/null)"
fi
if gk_out=$(GNNC_HOST_CACHE=$gk_h "$gk/a/build/gnnc" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   gk_out=$(GNNC_HOST_CACHE=$gk_h "$gk/a/build/gnnc" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   echo "/* a changed header */" >> "$gk/a/runtime/gnnrt_rng.h" &&
   gk_out=$(GNNC_HOST_CACHE=$gk_h "$gk/a/build/gnnc" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   [ "$(cut -d' ' -f1 "$gk_h/log" | tail -3 | xargs)" = "miss hit miss" ] &&
   gk_out=$(env -u GNNC_HOST_CACHE "$GNNC" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   [ "$(wc -l < "$gk_h/log")" = 7 ]; then
  pass gpukit/host-cache/key-headers
else
  fail gpukit/host-cache/key-headers "$(gk_tail "$gk_out") log: $(tr '\n' ';' < "$gk_h/log" 2> /dev/null)"
fi
cp runtime/gnnrt_rng.h "$gk/a/runtime/gnnrt_rng.h"
# a compile that warned is not kept (a hit prints nothing): built twice, it warns twice
gk_w=$gk/host-cache-w
if gk_out=$(GNNC_HOST_CACHE=$gk_w GNNC_HOST_CFLAGS="-DGK_W=1 -DGK_W=2" "$GNNC" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   grep -q 'GK_W.* redefined' <<< "$gk_out" &&
   gk_out=$(GNNC_HOST_CACHE=$gk_w GNNC_HOST_CFLAGS="-DGK_W=1 -DGK_W=2" "$GNNC" dsl-examples/gcn.gnn --target=host -o "$gk/h3/libgcn.so" 2>&1) &&
   grep -q 'GK_W.* redefined' <<< "$gk_out" && [ "$(cut -d' ' -f1 "$gk_w/log" | xargs)" = "miss-printed miss-printed" ] &&
   ! ls "$gk_w"/*.so > /dev/null 2>&1; then
  pass gpukit/host-cache/warned-not-kept
else
  fail gpukit/host-cache/warned-not-kept "$(gk_tail "$gk_out") log: $(tr '\n' ';' < "$gk_w/log" 2> /dev/null)"
fi

# ---- the suites' compile-check cache (cached_tool, tests/run.sh): a tool that counts its runs
mkdir -p "$gk/ct"
printf '%s\n' '#!/bin/bash' '[ "$1" = --version ] && { echo "tool 1"; exit 0; }' 'echo run >> "$GK_COUNT"' \
  '[ -n "${GK_WARN:-}" ] && echo "warning: $GK_WARN"' 'cp "$1" "$2"' > "$gk/ct/tool"
chmod +x "$gk/ct/tool"
gk_runs() { wc -l < "$gk/ct/count" 2> /dev/null | tr -d ' '; }
(
  cd "$gk/ct" || exit 1
  export GK_COUNT=$gk/ct/count TEST_CACHE=$gk/ct/cache
  echo one > in.c
  o1=$(cached_tool out.o ./tool in.c out.o) && [ -z "$o1" ] && [ "$(gk_runs)" = 1 ] && rm out.o &&
    o2=$(cached_tool out.o ./tool in.c out.o) && [ -z "$o2" ] && [ "$(gk_runs)" = 1 ] && [ "$(cat out.o)" = one ] || exit 2
  echo two > in.c
  cached_tool out.o ./tool in.c out.o > /dev/null && [ "$(gk_runs)" = 2 ] && [ "$(cat out.o)" = two ] || exit 3
  echo one > in.h # the header beside the source is in the key
  echo one > in.c
  cached_tool out.o ./tool in.c out.o > /dev/null && [ "$(gk_runs)" = 3 ] || exit 4
  echo three > in.c # a run that warns is never stored
  o3=$(GK_WARN=w cached_tool out.o ./tool in.c out.o) && [ "$o3" = "warning: w" ] &&
    o3=$(GK_WARN=w cached_tool out.o ./tool in.c out.o) && [ "$o3" = "warning: w" ] && [ "$(gk_runs)" = 5 ] || exit 5
  TEST_CACHE= cached_tool out.o ./tool in.c out.o > /dev/null && [ "$(gk_runs)" = 6 ] || exit 6 # off
  ! cached_tool out.o ./tool missing.c out.o > /dev/null 2>&1 && [ "$(gk_runs)" = 7 ] || exit 7 # a failure
)
gk_rc=$?
if [ $gk_rc = 0 ]; then pass gpukit/cached-tool; else fail gpukit/cached-tool "step $gk_rc failed (runs: $(gk_runs))"; fi

# ---- SKIP: a check whose tool is missing
mkdir -p "$gk/suites"
printf '%s\n' 'need_tool skipcheck/needs-it gnnc-no-such-tool && pass skipcheck/ran' 'pass skipcheck/other' > "$gk/suites/s.sh"
gk_out=$(ALLOW_SKIP=1 SUITE= SUITE_DIR="$gk/suites" bash tests/run.sh "$GNNC" 2>&1); gk_rc=$?
if [ $gk_rc = 0 ] && grep -qx 'SKIP skipcheck/needs-it: no gnnc-no-such-tool' <<< "$gk_out" &&
   [ "$(tail -1 <<< "$gk_out")" = "1 passed, 0 failed, 1 skipped" ]; then
  pass gpukit/skip/allowed
else
  fail gpukit/skip/allowed "exit $gk_rc: $(gk_tail "$gk_out")"
fi
gk_out=$(ALLOW_SKIP=0 SUITE= SUITE_DIR="$gk/suites" bash tests/run.sh "$GNNC" 2>&1); gk_rc=$?
if [ $gk_rc = 1 ] && grep -q '^FAIL skipcheck/needs-it: gnnc-no-such-tool not installed' <<< "$gk_out" &&
   [ "$(tail -1 <<< "$gk_out")" = "1 passed, 1 failed" ]; then
  pass gpukit/skip/strict
else
  fail gpukit/skip/strict "exit $gk_rc: $(gk_tail "$gk_out")"
fi

# ---- TEST_SHARD: 3 shards of 7 checks take them 0,3,6 / 1,4 / 2,5, each once; shard_first once
mkdir -p "$gk/shards"
printf '%s\n' 'for i in 0 1 2 3 4 5 6; do shard_take && pass "sharded/$i"; done' 'shard_first && pass once' > "$gk/shards/s.sh"
gk_all=
for gk_i in 0 1 2; do
  gk_all+=$(TEST_SHARD=$gk_i/3 VERBOSE=1 SUITE= SUITE_DIR="$gk/shards" bash tests/run.sh "$GNNC" 2>&1 | grep '^PASS' | tr '\n' ' ')"|"
done
gk_one=$(VERBOSE=1 SUITE= SUITE_DIR="$gk/shards" bash tests/run.sh "$GNNC" 2>&1 | grep -c '^PASS')
if [ "$gk_all" = "PASS sharded/0 PASS sharded/3 PASS sharded/6 PASS once |PASS sharded/1 PASS sharded/4 |PASS sharded/2 PASS sharded/5 |" ] &&
   [ "$gk_one" = 8 ]; then
  pass gpukit/shards
else
  fail gpukit/shards "sharded: '$gk_all'; unsharded: $gk_one passes (8 expected)"
fi

# ---- TEST_JOBS (make test's suites at once): each suite in its own process and $TMP (b's short
# globals do not reach the runner), a sharded suite's checks each once over the shards, a suite
# that exits early a failure of its own (its passes lost with it), the counts of all added up
mkdir -p "$gk/jobs"
printf '%s\n' 'pass a/1' 'echo a > "$TMP/f" && sleep 1 && [ "$(cat "$TMP/f")" = a ] && pass a/own-tmp' > "$gk/jobs/a.sh"
printf '%s\n' 'pass b/1' 'fail b/2 wrong' 'echo b > "$TMP/f"; d=/nonexistent; p=1; t=2' > "$gk/jobs/b.sh"
printf '%s\n' 'pass c/1' 'exit 3' 'pass c/never' > "$gk/jobs/c.sh"
printf '%s\n' 'for i in 0 1 2 3 4; do shard_take && pass "s/$i"; done' 'shard_first && pass s/once' > "$gk/jobs/s.sh"
gk_out=$(TEST_JOBS=2 TEST_SHARDED=s VERBOSE=1 SUITE= TEST_SHARD= SUITE_DIR="$gk/jobs" bash tests/run.sh "$GNNC" 2>&1); gk_rc=$?
if [ $gk_rc = 1 ] && [ "$(tail -1 <<< "$gk_out")" = "9 passed, 2 failed" ] &&
   [ "$(grep '^PASS' <<< "$gk_out" | sort | tr '\n' ' ')" = "PASS a/1 PASS a/own-tmp PASS b/1 PASS c/1 PASS s/0 PASS s/1 PASS s/2 PASS s/3 PASS s/4 PASS s/once " ] &&
   grep -qx 'FAIL b/2: wrong' <<< "$gk_out" && grep -qx 'FAIL c/exit: the suite ended before its last check' <<< "$gk_out" &&
   grep -qx 'suite s (shard 0/2): 4 passed, 0 failed ([0-9]* s)' <<< "$gk_out" &&
   grep -qx 'suite s (shard 1/2): 2 passed, 0 failed ([0-9]* s)' <<< "$gk_out"; then
  pass gpukit/jobs/parallel
else
  fail gpukit/jobs/parallel "exit $gk_rc: $(gk_tail "$gk_out")"
fi
rm "$gk/jobs/c.sh"
gk_out=$(TEST_JOBS=1 TEST_SHARDED=s SUITE= TEST_SHARD= SUITE_DIR="$gk/jobs" bash tests/run.sh "$GNNC" 2>&1); gk_rc=$?
gk_par=$(TEST_JOBS=3 TEST_SHARDED=s SUITE= TEST_SHARD= SUITE_DIR="$gk/jobs" bash tests/run.sh "$GNNC" 2>&1)
if [ $gk_rc = 1 ] && [ "$(tail -1 <<< "$gk_out")" = "9 passed, 1 failed" ] && [ "$(tail -1 <<< "$gk_par")" = "9 passed, 1 failed" ] &&
   [ "$(grep -c '^suite s (shard [0-2]/3)' <<< "$gk_par")" = 3 ]; then
  pass gpukit/jobs/serial-same-counts
else
  fail gpukit/jobs/serial-same-counts "serial: $(tail -1 <<< "$gk_out"); 3 jobs: $(gk_tail "$gk_par")"
fi
gk_out=$(TEST_JOBS=two SUITE= TEST_SHARD= SUITE_DIR="$gk/jobs" bash tests/run.sh "$GNNC" 2>&1); gk_rc=$?
if [ $gk_rc = 1 ] && grep -q "^run.sh: TEST_JOBS must be a whole number >= 1 (it is 'two')" <<< "$gk_out"; then
  pass gpukit/jobs/bad-count
else
  fail gpukit/jobs/bad-count "exit $gk_rc: $(gk_tail "$gk_out")"
fi

# ---- bench/ab_cuda.sh (gpu-check's ab step) on host libraries, which it runs the same way: GCN
# fused against unfused on Cora agree (the table's row, exit 0); GCN against GIN (same output
# width, other numbers) is a disagreement (exit 1)
mkdir -p "$gk/ab/a" "$gk/ab/b" "$gk/ab/c" "$gk/ab/g"
if build/bench/gen_graph convert data/cora --symmetrise --dedup --self-loops -o "$gk/ab/g/cora.gcsr" > /dev/null 2>&1 &&
   "$GNNC" dsl-examples/gcn.gnn --target=host -o "$gk/ab/a/gcn-cora-cuda.so" > /dev/null 2>&1 &&
   "$GNNC" dsl-examples/gcn.gnn --target=host -fno-fuse -o "$gk/ab/b/gcn-cora-cuda.so" > /dev/null 2>&1 &&
   "$GNNC" dsl-examples/gin.gnn --target=host -o "$gk/ab/c/gcn-cora-cuda.so" > /dev/null 2>&1; then
  echo "commit gpukit-base" > "$gk/ab/a/info"
  gk_out=$(AB_ROUNDS=1 AB_WORKLOADS=gcn-cora bash bench/ab_cuda.sh "$gk/ab/a" "$gk/ab/b" "$gk/ab/g" "$gk/ab/same.md" 2>&1); gk_rc=$?
  if [ $gk_rc = 0 ] && grep -qE '^\| gcn-cora \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+e' "$gk/ab/same.md" &&
     [ "$(grep -c '^gcn-cora' "$gk/ab/same.tsv")" = 2 ]; then
    pass gpukit/ab/agree
  else
    fail gpukit/ab/agree "exit $gk_rc: $(gk_tail "$gk_out")"
  fi
  gk_out=$(AB_ROUNDS=1 AB_WORKLOADS=gcn-cora bash bench/ab_cuda.sh "$gk/ab/a" "$gk/ab/c" "$gk/ab/g" "$gk/ab/other.md" 2>&1); gk_rc=$?
  if [ $gk_rc = 1 ] && grep -q '^| gcn-cora |' "$gk/ab/other.md"; then pass gpukit/ab/disagree
  else fail gpukit/ab/disagree "exit $gk_rc (1 expected): $(gk_tail "$gk_out")"; fi
else
  fail gpukit/ab/build "the graph or the host libraries could not be built"
fi

# ---- check.sh without a GPU, and without a prepared tree
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  echo "note: gpukit/check/no-gpu not run: this machine has a GPU (make gpu-check runs the real thing)"
else
  gk_out=$(gk_nocache bash "$gk/a/tests/gpu/check.sh" 2>&1); gk_rc=$?
  if [ $gk_rc = 2 ] && grep -q '^gpu-check: no GPU here (nvidia-smi -L fails): nothing run' <<< "$gk_out" &&
     [ ! -e "$gk/a/build/gpu-check" ]; then
    pass gpukit/check/no-gpu
  else
    fail gpukit/check/no-gpu "exit $gk_rc: $(gk_tail "$gk_out")"
  fi
fi
mkdir -p "$gk/bare/tests/gpu" && cp tests/gpu/check.sh "$gk/bare/tests/gpu/"
gk_out=$(gk_nocache bash "$gk/bare/tests/gpu/check.sh" 2>&1); gk_rc=$?
if [ $gk_rc = 2 ] && grep -q "build/gnnc is missing: on a machine with the build tools run 'make gpu-check-prepare'" <<< "$gk_out"; then
  pass gpukit/check/not-prepared
else
  fail gpukit/check/not-prepared "exit $gk_rc: $(gk_tail "$gk_out")"
fi

# ---- the kit: prepared in one tree, unpacked in another, its CUDA object a cache hit there
if command -v nvcc > /dev/null && [ -f build/bench/d2d_copy ] && [ -f build/rt/t_api_cuda ] && [ -f build/rt/t_setgraph_cuda ]; then
  gk_tree "$gk/p"
  gk_out=$(GPU_CHECK_STEPS=smoke gk_nocache bash "$gk/p/tests/gpu/check.sh" --prepare 2>&1); gk_rc=$?
  gk_list=$(tar tzf "$gk/p/build/gpu-kit.tar.gz" 2> /dev/null)
  if [ $gk_rc = 0 ] && grep -q '^gpu-check: build/gpu-kit.tar.gz: ' <<< "$gk_out" &&
     ( for f in build/gnnc build/lib/libgnnrt.so build/lib/libgnnrt_host.so build/bin/gnn-run build/rt/t_api_cuda \
         build/rt/t_setgraph_cuda build/bench/d2d_copy build/gpu-kit-info build/hostlibs/; do grep -qx "$f" <<< "$gk_list" || exit 1; done ) &&
     grep -q '^build/cuda-cache/[0-9a-f]\{64\}\.o$' <<< "$gk_list"; then
    pass gpukit/kit/prepare
  else
    fail gpukit/kit/prepare "exit $gk_rc: $(gk_tail "$gk_out") $(head -c 300 <<< "$gk_list")"
  fi
  mkdir -p "$gk/q/tests/gpu" "$gk/q/dsl-examples"
  cp tests/gpu/check.sh "$gk/q/tests/gpu/" && cp dsl-examples/gat.gnn "$gk/q/dsl-examples/" && cp -r runtime "$gk/q/"
  cp "$gk/p/build/gpu-kit.tar.gz" "$gk/q/kit.tar.gz"
  if (cd "$gk/q" && tar xzf kit.tar.gz) &&
     gk_out=$(cd "$gk/q" && GNNC_CUDA_CACHE=$gk/q/build/cuda-cache build/gnnc dsl-examples/gat.gnn --target=cuda --arch=sm_80,sm_90 \
       -o "$gk/q/build/libgat-cuda.so" 2>&1) &&
     [ "$(cut -d' ' -f1 "$gk/q/build/cuda-cache/log" | tail -1)" = hit ] &&
     [ "$(gk_runpath "$gk/q/build/libgat-cuda.so")" = "$gk/q/build/lib" ]; then
    pass gpukit/kit/unpack-hit
  else
    fail gpukit/kit/unpack-hit "$(gk_tail "$gk_out") log: $(tail -2 "$gk/q/build/cuda-cache/log" 2> /dev/null | tr '\n' ';')"
  fi
  # the check itself, dry: a stand-in nvidia-smi names an H100, so check.sh runs its smoke step from
  # the unpacked kit (a cache hit, then gnn-run fails: no GPU) and reports as on a GPU machine
  mkdir -p "$gk/fakebin" "$gk/out"
  printf '%s\n' '#!/bin/sh' 'case "$*" in -L) echo "GPU 0: NVIDIA H100 80GB HBM3";; *compute_cap*) echo 9.0;;' \
    '*driver_version*) echo "NVIDIA H100 80GB HBM3, 580.00, 81559 MiB";; *name*) echo "NVIDIA H100 80GB HBM3";; esac' > "$gk/fakebin/nvidia-smi"
  chmod +x "$gk/fakebin/nvidia-smi"
  gk_out=$(cd "$gk/q" && PATH="$gk/fakebin:$PATH" OUT="$gk/out" GPU_CHECK_STEPS=smoke gk_nocache bash tests/gpu/check.sh 2>&1); gk_rc=$?
  gk_sum=$(ls "$gk"/q/bench/results/gpu-check-*-NVIDIA-H100-80GB-HBM3-*/summary.txt 2> /dev/null | head -1)
  if [ $gk_rc = 1 ] && [ -n "$gk_sum" ] && grep -q '^gpu-check: 0 passed, 1 failed, 0 skipped' <<< "$gk_out" &&
     grep -q '^smoke *FAILED' "$gk_sum" && grep -q '^- GPU: NVIDIA H100 80GB HBM3, 580.00' "$gk_sum" &&
     grep -q 'GNNC_CUDA_CACHE hits): 1, run here (misses): 0$' "$gk_sum" &&
     [ -s "$gk/out/summary.txt" ] && [ -s "$gk/out/logs.txt" ] && [ "$(ls "$gk/out" | wc -l)" -le 7 ]; then
    pass gpukit/check/dry-run
  else
    fail gpukit/check/dry-run "exit $gk_rc: $(gk_tail "$gk_out") $(cat "$gk_sum" 2> /dev/null | tail -3 | tr '\n' ' ')"
  fi
else
  fail gpukit/kit "nvcc, build/bench/d2d_copy, build/rt/t_api_cuda or build/rt/t_setgraph_cuda missing (make test builds them where nvcc is)"
fi

# ---- python_cuda.py's checks, host on both sides
if "$PY" -c 'import numpy, torch' 2> /dev/null; then
  mkdir -p "$gk/py"
  if gk_out=$("$GNNC" tests/python/models/gcn.gnn --target=host -o "$gk/py/libgcn-host.so" 2>&1) &&
     gk_out=$("$GNNC" tests/python/models/gat.gnn --target=host -o "$gk/py/libgat-host.so" 2>&1) &&
     gk_out=$("$GNNC" tests/python/models/gcn.gnn --target=host --input-grads=all -o "$gk/py/libgcn_ig-host.so" 2>&1) &&
     gk_out=$("$GNNC" tests/python/models/gat.gnn --target=host --input-grads=all -o "$gk/py/libgat_ig-host.so" 2>&1) &&
     gk_out=$(PYTHONPATH=python "$PY" -W ignore tests/gpu/python_cuda.py --self-test "$gk/py" data/cora 2>&1) &&
     [ "$(grep -c '^ok ' <<< "$gk_out")" = 36 ] && ! grep -q '^FAIL ' <<< "$gk_out"; then
    pass gpukit/python-cuda/self-test
  else
    fail gpukit/python-cuda/self-test "$(gk_tail "$gk_out")"
  fi
else
  fail gpukit/python-cuda/self-test "$PY cannot import numpy and torch (make setup installs them)"
fi
unset -f gk_tail gk_tree gk_runpath
unset gk gk_c gk_out gk_rc gk_list gk_sum
