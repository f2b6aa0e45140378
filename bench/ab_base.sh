#!/usr/bin/env bash
# bench/ab_base.sh COMMIT -- the base of gpu-check's ab step: the CUDA libraries of bench/peers.sh's
# workloads as the compiler of COMMIT builds them, in build/ab-base/ (with an info file naming the
# commit), for make gpu-check-prepare to pack into the kit beside this tree's.
#
# A change of schedules is then measured on the GPU in one run, base and new interleaved on the
# same graphs (bench/ab_cuda.sh, docs/gpu.md). COMMIT is checked out in a worktree under build/
# (no change to this checkout), its gnnc built there (flex, bison, a C compiler: this machine's
# tools), and its libraries built for sm_90 (the H100 and the H200) against that tree's runtime.
# The base libraries link the runtime of the kit on the GPU machine (LD_LIBRARY_PATH), so COMMIT
# must have the runtime's ABI of this tree (a change of the compiler only, as a schedule is).
# Environment: AB_WORKLOADS (bench/ab_cuda.sh's default set), AB_ARCH [sm_90].
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
COMMIT=${1:?usage: bench/ab_base.sh COMMIT (e.g. HEAD~3, a hash)}
hash=$(git rev-parse --short "$COMMIT^{commit}")
WL=${AB_WORKLOADS:-gcn-reddit gat-reddit gcn-pl200k gat-pl200k gat-pubmed gcn-cora gat-cora}
ARCH=${AB_ARCH:-sm_90}
src=$ROOT/build/ab-src
out=$ROOT/build/ab-base
if [ -d "$src" ]; then git worktree remove --force "$src" 2> /dev/null || rm -rf "$src"; fi
git worktree prune
git worktree add --detach -q "$src" "$hash"
echo "ab_base: building gnnc and the runtime of $hash in $src"
make -C "$src" -s -j2 all runtime-cuda build/bench/gen_graph build/bench/peer_gnnc > "$src.log" 2>&1 || { echo "ab_base: the build of $hash failed: $src.log" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
# that tree's peers.sh and workloads, this tree's graphs folder is not needed (nothing runs)
(cd "$src" && PEERS_TARGET=cuda PEERS_ARCH=$ARCH PEERS_WORKLOADS="$WL" PEERS_WORK="$src/build/bench/peers-gpu" GNN_BUILD_ONLY=1 \
  bash bench/peers.sh build/gnnc) > "$src.peers.log" 2>&1 || { echo "ab_base: building the libraries failed: $src.peers.log" >&2; exit 1; }
cp "$src"/build/bench/peers-gpu/lib/*-cuda.so "$out"/
{ echo "commit $hash"; echo "built $(date -u '+%Y-%m-%d %H:%M UTC') by bench/ab_base.sh for $ARCH: $WL"; } > "$out/info"
git worktree remove --force "$src"
echo "ab_base: $(ls "$out"/*-cuda.so | wc -l) libraries of $hash in build/ab-base; make gpu-check-prepare packs them"
