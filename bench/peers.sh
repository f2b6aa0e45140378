#!/usr/bin/env bash
# bench/peers.sh [GNNC] -- issue 12: gnnc against PyTorch Geometric and DGL (issue 27/28), same
# machine, same run, same graphs, same layer sizes, same thread counts (make bench-peers;
# docs/benchmarks.md).
#
# For each workload: compile the .gnn into a model library (--target=host, or cuda with
# PEERS_TARGET=cuda), check on a small graph that gnnc and each peer compute the same output (the
# peer gets gnnc's parameters and input: bench/peer_pyg.py --check, bench/peer_dgl.py --check; a
# mismatch fails the benchmark), then, for each round and thread count, run the sides one after
# the other (gnnc, PyG with edge_index, PyG with a sparse CSR adjacency, PyG's EdgeConv rewritten
# by hand as gnnc rewrites it (EdgeConv only), DGL; the order reversed
# every other round), one process each:
# inference forward (median of PEERS_FORWARD after PEERS_WARMUP) and PEERS_STEPS training steps
# (forward + cross-entropy + backward + Adam; median after 2 warm-up steps), the process's peak
# RSS over all of it, and gnnc's planned arena. A run that fails an allocation (PEERS_MEM_GB is
# each process's address-space limit), is killed, or runs past PEERS_TIMEOUT seconds is
# recorded as OOM / killed / timeout: that is its result.
#
# Writes bench/results/peers-DATE.md (the table, with commit, CPU, threads, load) and .tsv (every
# run), and the plots docs/peers-time.png and docs/peers-memory.png (PEERS_PLOTS=0: none).
#
# Environment (defaults in brackets):
#   PEERS_PYTHON     a python with torch and torch_geometric [build/peers-venv/bin/python: current
#                    torch and PyG from PyPI (bench/peers_env.sh); where that venv is missing,
#                    build/peers-venv-debian/bin/python, its fallback over Debian's torch 1.13]; if
#                    it cannot import them, the PyG side is skipped with a note
#   PEERS_DGL_PYTHON a python with torch and dgl [build/peers-dgl-venv/bin/python]; if it cannot
#                    import them, "DGL: not available (why)" and no DGL side
#   PEERS_WORKLOADS  names to run, in this order [the default set: Cora, PubMed, the 200k power-law graph, MoNet,
#                    EdgeConv k=20 batch 32]; "all" adds EdgeConv k=40 / batch 64, the R-MAT graph of issue 28 and the Reddit-
#                    sized graph; PEERS_REDDIT=1 adds the Reddit-sized workloads to the default set;
#                    PEERS_SCALE=1 the memory scan (gat-rv1m ... gat-rv16m: the Reddit GAT on Reddit's
#                    vertices with 1 to 16 million edges: where each side stops fitting)
#   PEERS_THREADS ["1 2"]  PEERS_ROUNDS [1]  PEERS_FORWARD [10]  PEERS_WARMUP [2]  PEERS_STEPS [20]
#   PEERS_SIDES      ["gnnc pyg-edge_index pyg-csr pyg-rewrite dgl"]; pyg-rewrite runs for EdgeConv only: PyG's
#                    EdgeConv rewritten by hand as gnnc rewrites it (per-vertex products, then gather and
#                    scatter-max: bench/peer_pyg.py --adj rewrite), beside PyG's own (pyg-edge_index), which
#                    materialises E x 2F messages
#   PEERS_TIMEOUT    seconds per process [600]     PEERS_MEM_GB  address-space limit per process [16]
#   PEERS_TARGET     host | cuda [host]            PEERS_ARCH    sm_NN for cuda [from nvidia-smi]
#   PEERS_WORK       graphs and libraries [build/bench/peers]
#   PEERS_GNNC_FLAGS more flags for gnnc's libraries (--split-hubs) []; PEERS_LIBDIR where they go
#                    [$PEERS_WORK/lib]: make gpu-check's pieces step builds a second set this way
#   PEERS_OUT        the results file [bench/results/peers-DATE.md]; PEERS_PLOTS [1], PEERS_PLOT_DIR [docs]
#   PEERS_PROFILE    [1]: where gnnc is slower than PyG, one more gnnc run with GNN_PROFILE=1, its
#                    slowest steps in the results file
#   GEN_GRAPH, PEER_GNNC, GEN_POINTCLOUD   the helper programs [build/bench/...]
#   GNN_BUILD_ONLY=1 builds the selected workloads' libraries (for PEERS_ARCH, default sm_90, with
#                    PEERS_TARGET=cuda; no GPU needed) and stops: make gpu-check-prepare uses it
#   PEERS_GRAPHS_ONLY=1  makes the selected workloads' graphs and stops (make gpu-check makes the
#                    Reddit-sized one in the background while the suites run)
set -u -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
GEN_GRAPH=${GEN_GRAPH:-build/bench/gen_graph}
PEER_GNNC=${PEER_GNNC:-build/bench/peer_gnnc}
GEN_PC=${GEN_POINTCLOUD:-build/bench/gen_pointcloud}
PY=${PEERS_PYTHON:-}
if [ -z "$PY" ]; then
  PY=build/peers-venv/bin/python
  [ ! -x "$PY" ] && [ -x build/peers-venv-debian/bin/python ] && PY=build/peers-venv-debian/bin/python
fi
DGL_PY=${PEERS_DGL_PYTHON:-build/peers-dgl-venv/bin/python}
THREADS=${PEERS_THREADS:-1 2}
ROUNDS=${PEERS_ROUNDS:-1}
NFWD=${PEERS_FORWARD:-10}
NWARM=${PEERS_WARMUP:-2}
NSTEPS=${PEERS_STEPS:-20}
SIDES=${PEERS_SIDES:-gnnc pyg-edge_index pyg-csr pyg-rewrite dgl}
TLIMIT=${PEERS_TIMEOUT:-600}
MEMGB=${PEERS_MEM_GB:-16}
TARGET=${PEERS_TARGET:-host}
WORK=${PEERS_WORK:-build/bench/peers}
LIBDIR=${PEERS_LIBDIR:-$WORK/lib}
read -r -a GNNC_FLAGS <<< "${PEERS_GNNC_FLAGS:-}"
DATE=$(date -u +%Y-%m-%d)
OUT=${PEERS_OUT:-bench/results/peers-$DATE.md}
TSV=${OUT%.md}.tsv
PLOTS=${PEERS_PLOTS:-1}
PLOT_DIR=${PEERS_PLOT_DIR:-docs}

for p in "$GNNC" "$GEN_GRAPH" "$PEER_GNNC"; do
  [ -x "$p" ] || { echo "peers: $p is missing (make all build/bench/gen_graph build/bench/peer_gnnc)" >&2; exit 2; }
done
case $ROUNDS$NFWD$NSTEPS$TLIMIT$MEMGB in *[!0-9]*) echo "peers: PEERS_ROUNDS, _FORWARD, _STEPS, _TIMEOUT, _MEM_GB want integers" >&2; exit 2 ;; esac

# ---------------------------------------------------------------- the workloads
# name | .gnn | graph | PyG model (bench/peer_pyg.py --model) | set (default, extra, reddit, scale) |
# forwards/warm-up/steps where the defaults would take too long on 2 cores (PEERS_FULL=1: the defaults everywhere).
# NAME-nodrop: the dropout control, a .gnn without dropout against the peers with --no-dropout (torch's
# dropout of Cora's 2708 x 1433 input was most of PyG's GCN step: bench/results/dropout-control-*.md)
WORKLOADS='
gcn-cora|dsl-examples/gcn.gnn|cora|gcn:1433,16,7|default|
gat-cora|dsl-examples/gat.gnn|cora|gat:1433,8x8,1x7|default|
gcn-pubmed|bench/gcn_pubmed.gnn|pubmed|gcn:500,16,3|default|
gcn-cora-nodrop|bench/peers/gcn_cora_nodrop.gnn|cora|gcn:1433,16,7|default|
gcn-pubmed-nodrop|bench/peers/gcn_pubmed_nodrop.gnn|pubmed|gcn:500,16,3|default|
gat-pubmed|bench/gat_pubmed.gnn|pubmed|gat:500,8x8,1x3|default|
gcn-pl200k|bench/peers/gcn_pl200k.gnn|pl200k|gcn:128,64,16|default|5/1/8
gat-pl200k|bench/peers/gat_pl200k.gnn|pl200k|gat:128,4x16,1x16|default|5/1/8
gcn-rmat200k|bench/peers/gcn_pl200k.gnn|rmat200k|gcn:128,64,16|extra|5/1/8
gat-rmat200k|bench/peers/gat_pl200k.gnn|rmat200k|gat:128,4x16,1x16|extra|5/1/8
monet-cora|dsl-examples/monet.gnn|cora|monet:1433,3,2,16,7|default|
monet-pubmed|bench/peers/monet_pubmed.gnn|pubmed|monet:500,3,2,16,3|default|
edgeconv-k20-b32|dsl-examples/edgeconv.gnn|pc-b32-k20|edgeconv:3,64,64,128,256|default|3/1/5
edgeconv-k40-b32|dsl-examples/edgeconv.gnn|pc-b32-k40|edgeconv:3,64,64,128,256|extra|3/1/5
edgeconv-k20-b64|dsl-examples/edgeconv.gnn|pc-b64-k20|edgeconv:3,64,64,128,256|extra|3/1/5
edgeconv-k20-b4|dsl-examples/edgeconv.gnn|pc-b4-k20|edgeconv:3,64,64,128,256|extra|
edgeconv-k40-b64|dsl-examples/edgeconv.gnn|pc-b64-k40|edgeconv:3,64,64,128,256|extra|3/1/5
gcn-reddit|bench/peers/gcn_reddit.gnn|reddit|gcn:602,128,41|reddit|2/1/4
gat-reddit|bench/peers/gat_reddit.gnn|reddit|gat:602,4x64,1x41|reddit|2/1/4
gat-rv1m|bench/peers/gat_reddit.gnn|rv1m|gat:602,4x64,1x41|scale|1/0/1
gat-rv2m|bench/peers/gat_reddit.gnn|rv2m|gat:602,4x64,1x41|scale|1/0/1
gat-rv4m|bench/peers/gat_reddit.gnn|rv4m|gat:602,4x64,1x41|scale|1/0/1
gat-rv8m|bench/peers/gat_reddit.gnn|rv8m|gat:602,4x64,1x41|scale|1/0/1
gat-rv16m|bench/peers/gat_reddit.gnn|rv16m|gat:602,4x64,1x41|scale|1/0/1
'
want=${PEERS_WORKLOADS:-}
selected=()
# the table's order, or PEERS_WORKLOADS' (a run cut short has done the first ones)
order=$(cut -d'|' -f1 <<< "$WORKLOADS" | xargs)
[ -n "$want" ] && [ "$want" != all ] && order=$want
for w in $order; do
  IFS='|' read -r name gnn graph spec set counts <<< "$(grep "^$w|" <<< "$WORKLOADS")"
  [ -n "$name" ] || continue
  if [ -z "$want" ]; then
    { [ "$set" = default ] || { [ "$set" = reddit ] && [ "${PEERS_REDDIT:-0}" = 1 ]; } ||
      { [ "$set" = scale ] && [ "${PEERS_SCALE:-0}" = 1 ]; }; } || continue
  fi
  [ "${PEERS_FULL:-0}" = 1 ] && counts=
  selected+=("$name|$gnn|$graph|$spec|$counts")
done
if [ -n "$want" ] && [ "$want" != all ]; then
  for w in $want; do
    grep -q "^$w|" <<< "$WORKLOADS" || { echo "peers: unknown workload '$w' (known: $(cut -d'|' -f1 <<< "$WORKLOADS" | xargs))" >&2; exit 2; }
  done
fi
[ ${#selected[@]} -gt 0 ] || { echo "peers: no workload selected" >&2; exit 2; }
# EdgeConv's point clouds need gen_pointcloud (make bench-peers builds it): said before the other
# workloads' hour of runs, not at the check that follows them
for s in "${selected[@]}"; do
  IFS='|' read -r _ _ g _ _ <<< "$s"
  case $g in pc-*) [ -x "$GEN_PC" ] || { echo "peers: $GEN_PC is missing (make build/bench/gen_pointcloud), needed for graph $g" >&2; exit 2; } ;; esac
done

# ---------------------------------------------------------------- the PyG side, the target
pyg_note=
if ! pyv=$("$PY" -c 'import torch, torch_geometric; print(torch.__version__, torch_geometric.__version__, torch.__file__)' 2> /dev/null); then
  pyg_note="PyG side skipped: $PY cannot import torch and torch_geometric (make bench-peers installs them; PEERS_PYTHON= names another python)"
  echo "peers: $pyg_note" >&2
  SIDES=$(tr ' ' '\n' <<< "$SIDES" | grep -v '^pyg' | xargs)
  pyv="none"
fi
# where that torch comes from: Debian's package (bench/peers_env.sh's fallback) or pip (PyPI)
case $pyv in *" /usr/lib/python3/"*) pyenv="Debian's torch (the fallback of bench/peers_env.sh), torch_geometric from PyPI" ;; *) pyenv="both from PyPI" ;; esac
archflag=
pydev=cpu
case $TARGET in
  host) words="target host (C + OpenMP, OpenBLAS) vs PyG and DGL on the CPU" ;;
  cuda)
    if [ "${GNN_BUILD_ONLY:-0}" = 1 ]; then
      archflag=--arch=${PEERS_ARCH:-sm_90} pydev=cuda words="build only"
    elif ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
      echo "peers: PEERS_TARGET=cuda but there is no GPU here (nvidia-smi -L fails)" >&2
      exit 1
    else
      gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)
      cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
      archflag=--arch=${PEERS_ARCH:-sm_$cc}
      pydev=cuda
      words="target cuda ($archflag) vs PyG (and DGL where its build has CUDA) on CUDA; gpu: $gpu"
    fi
    ;;
  *) echo "peers: PEERS_TARGET=$TARGET: want host or cuda" >&2; exit 2 ;;
esac

dgl_note=
if [[ " $SIDES " == *" dgl "* ]]; then
  if [ ! -x "$DGL_PY" ] && ! command -v "$DGL_PY" > /dev/null; then
    dgl_note="DGL: not available ($DGL_PY does not exist: make bench-peers makes it with bench/peers_env.sh; PEERS_DGL_PYTHON= names another python)"
  else
    dgl_err=$(mktemp)
    if ! dglv=$("$DGL_PY" -c 'import torch, dgl, dgl.nn.pytorch; print(torch.__version__, dgl.__version__)' 2> "$dgl_err"); then
      dgl_note="DGL: not available ($DGL_PY cannot import dgl: $(grep -v '^ \|^Traceback\|Warning' "$dgl_err" | tail -n 1 | cut -c1-200))"
    elif [ "$pydev" = cuda ] && ! "$DGL_PY" -c 'import torch, dgl; dgl.graph(([0], [0])).to("cuda")' > /dev/null 2> "$dgl_err"; then
      # PyPI's dgl 2.1.0 is the CPU build (DGL's CUDA builds are on data.dgl.ai)
      dgl_note="DGL: not available (this dgl $dglv cannot put a graph on CUDA: $(grep -v '^ \|^Traceback\|Warning' "$dgl_err" | tail -n 1 | cut -c1-160))"
    fi
    rm -f "$dgl_err"
  fi
  if [ -n "$dgl_note" ]; then
    echo "peers: $dgl_note" >&2
    SIDES=$(tr ' ' '\n' <<< "$SIDES" | grep -v '^dgl$' | xargs)
  fi
else
  dgl_note="DGL: not run (PEERS_SIDES has no dgl)"
fi
mkdir -p "$WORK/graphs" "$LIBDIR" "$WORK/runs" "$(dirname "$OUT")"

# ---------------------------------------------------------------- graphs (.gcsr caches)
graph_file() { echo "$WORK/graphs/$1.gcsr"; }
make_graph() { # NAME: builds the cache when missing
  local g=$1 f
  f=$(graph_file "$g")
  [ -s "$f" ] && return 0
  echo "peers: generating graph $g" >&2
  case $g in
    cora | pubmed) "$GEN_GRAPH" convert "data/$g" --symmetrise --dedup --self-loops -o "$f" ;;
    pl200k) "$GEN_GRAPH" powerlaw --vertices 200000 --edges 4000000 --max-degree 2000 --seed 1 -o "$f" ;;
    rmat200k) "$GEN_GRAPH" rmat --vertices 200000 --edges 4000000 --seed 1 -o "$f" ;; # issue 28's skew
    reddit) "$GEN_GRAPH" powerlaw --vertices 232965 --edges 114615892 --max-degree 21657 --seed 1 -o "$f" ;;
    rv*m) # Reddit's vertices with fewer edges (the memory scan): N million, the maximum degree scaled
      local n=${g#rv}
      n=${n%m}
      "$GEN_GRAPH" powerlaw --vertices 232965 --edges $((n * 1000000)) --max-degree $((21657 * n * 1000000 / 114615892 + 100)) \
        --seed 1 -o "$f" ;;
    pc-b*-k*)
      local b=${g#pc-b} k
      k=${b#*-k}
      b=${b%-k*}
      [ -x "$GEN_PC" ] || { echo "peers: $GEN_PC is missing" >&2; return 1; }
      "$GEN_PC" "$WORK/graphs/$g.d" --clouds "$b" --points 1024 --k "$k" > /dev/null &&
        "$GEN_GRAPH" convert "$WORK/graphs/$g.d" -o "$f" && rm -rf "$WORK/graphs/$g.d"
      ;;
    pc-check)
      "$GEN_PC" "$WORK/graphs/$g.d" --clouds 2 --points 256 --k 20 > /dev/null &&
        "$GEN_GRAPH" convert "$WORK/graphs/$g.d" -o "$f" && rm -rf "$WORK/graphs/$g.d"
      ;;
    *) echo "peers: no recipe for graph $g" >&2; return 1 ;;
  esac > "$WORK/graphs/$g.log" 2>&1 || { cat "$WORK/graphs/$g.log" >&2; rm -f "$f"; return 1; }
  cat "$WORK/graphs/$g.log" >&2
}

# ---------------------------------------------------------------- one run
# run_side SIDE LIB GRAPH SPEC THREADS LOG: one process under the time and memory limits.
run_side() {
  local side=$1 lib=$2 graph=$3 spec=$4 thr=$5 log=$6 rc
  local -a cmd
  if [ "$side" = gnnc ]; then
    cmd=("$PEER_GNNC" "$lib" --graph "$graph" --forward "$nfwd" --warmup "$nwarm" --steps "$nsteps")
  elif [ "$side" = dgl ]; then
    cmd=("$DGL_PY" bench/peer_dgl.py --graph "$graph" --model "$spec" --threads "$thr" --device "$pydev"
         --forward "$nfwd" --warmup "$nwarm" --steps "$nsteps" "${peer_extra[@]}")
  else
    cmd=("$PY" bench/peer_pyg.py --graph "$graph" --model "$spec" --adj "${side#pyg-}" --threads "$thr" --device "$pydev"
         --forward "$nfwd" --warmup "$nwarm" --steps "$nsteps" "${peer_extra[@]}")
  fi
  (
    # shellcheck disable=SC2046 # the thread variables, word-split on purpose
    export $(thread_env "$thr")
    [ "$TARGET" = host ] && ulimit -v $((MEMGB * 1024 * 1024))
    exec timeout --kill-after=10 "$TLIMIT" "${cmd[@]}"
  ) > "$log" 2>&1
  rc=$?
  if [ $rc = 124 ] || [ $rc = 137 ] && ! grep -q '^status' "$log"; then
    [ $rc = 124 ] && echo "status timeout" >> "$log" || echo "status killed" >> "$log"
  elif ! grep -q '^status' "$log"; then
    echo "status error" >> "$log"
  fi
  return 0
}
val() { sed -n "s/^$1 //p" "$2" | tail -1; }

# ---------------------------------------------------------------- build, check, run
failed=0
# (a run that only builds or only makes graphs writes no results: it would empty the day's file)
if [ "${GNN_BUILD_ONLY:-0}" != 1 ] && [ "${PEERS_GRAPHS_ONLY:-0}" != 1 ]; then
  printf 'workload\tthreads\tside\tround\tforward_ms\ttrain_ms\tpeak_rss_mib\tplan_arena_mib\truntime_peak_mib\tcuda_peak_mib\tstatus\tnv\tne\tforward_runs\ttrain_runs\tload_s\tversions\trss_base_mib\n' > "$TSV"
fi
declare -A checkres
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
header=$(bench_header "bench-peers: gnnc vs PyTorch Geometric and DGL (issues 12, 27, 28)" "$words" | sed 's/^# /- /')
t_start=$(date +%s)
for w in "${selected[@]}"; do
  IFS='|' read -r name gnn graph spec counts <<< "$w"
  peer_extra=() # the peers' flags for this workload: the dropout control's --no-dropout
  case $name in *-nodrop) peer_extra=(--no-dropout) ;; esac
  if [ "${PEERS_GRAPHS_ONLY:-0}" = 1 ]; then
    case $spec in edgeconv:*) make_graph pc-check ;; *) make_graph cora ;; esac || exit 1
    make_graph "$graph" || exit 1
    continue
  fi
  if [ -n "$counts" ]; then IFS=/ read -r nfwd nwarm nsteps <<< "$counts"; else nfwd=$NFWD nwarm=$NWARM nsteps=$NSTEPS; fi
  # never more than asked for (a quick run with PEERS_FORWARD=2 PEERS_STEPS=3 stays quick)
  [ "$nfwd" -gt "$NFWD" ] && nfwd=$NFWD
  [ "$nsteps" -gt "$NSTEPS" ] && nsteps=$NSTEPS
  lib=$LIBDIR/$name-$TARGET.so
  if ! "$GNNC" "$gnn" --target="$TARGET" $archflag "${GNNC_FLAGS[@]}" -o "$lib" > "$LIBDIR/$name.log" 2>&1; then
    echo "peers: $name: gnnc failed:" >&2
    cat "$LIBDIR/$name.log" >&2
    checkres[$name]="gnnc failed"
    failed=1
    continue
  fi
  [ "${GNN_BUILD_ONLY:-0}" = 1 ] && continue
  # the check: a small graph (Cora, or 2 point clouds for EdgeConv), gnnc's parameters and input
  cg=cora
  case $spec in edgeconv:*) cg=pc-check ;; esac
  make_graph "$cg" || exit 1
  make_graph "$graph" || exit 1
  checkres[$name]="not checked (no PyG, no DGL)"
  if [ -n "$(tr ' ' '\n' <<< "$SIDES" | grep -v '^gnnc$')" ]; then
    cdir=$WORK/runs/check-$name
    rm -rf "$cdir" && mkdir -p "$cdir"
    crow=""
    if "$PEER_GNNC" "$lib" --graph "$(graph_file "$cg")" --dump "$cdir" > "$cdir/gnnc.log" 2>&1; then
      for side in $SIDES; do
        [ "$side" = gnnc ] && continue
        case $spec in monet:* | edgeconv:*) [ "$side" = pyg-csr ] && continue ;; esac
        case $spec in edgeconv:*) ;; *) [ "$side" = pyg-rewrite ] && continue ;; esac
        if [ "$side" = dgl ]; then
          "$DGL_PY" bench/peer_dgl.py --graph "$(graph_file "$cg")" --model "$spec" --device "$pydev" \
            --check "$cdir" > "$cdir/$side.log" 2>&1
        else
          "$PY" bench/peer_pyg.py --graph "$(graph_file "$cg")" --model "$spec" --adj "${side#pyg-}" --device "$pydev" \
            --check "$cdir" > "$cdir/$side.log" 2>&1
        fi
        st=$(val status "$cdir/$side.log")
        crow+="${crow:+, }$side ${st:-error} (max rel diff $(val check_rel "$cdir/$side.log"))"
        if [ "$st" != ok ]; then
          echo "peers: $name: CHECK FAILED: $side and gnnc disagree on $cg:" >&2
          tail -n 5 "$cdir/$side.log" >&2
          failed=1
        fi
      done
    else
      crow="gnnc --dump failed: $(tail -n 1 "$cdir/gnnc.log")"
      failed=1
    fi
    checkres[$name]="$crow"
    case $crow in *mismatch* | *error* | *failed*) echo "peers: $name: not timed (the check failed)" >&2; continue ;; esac
  fi
  gfile=$(graph_file "$graph")
  for ((r = 1; r <= ROUNDS; r++)); do
    order=$SIDES
    [ $((r % 2)) = 0 ] && order=$(tr ' ' '\n' <<< "$SIDES" | tac | xargs)
    for thr in $THREADS; do
      for side in $order; do
        case $spec in monet:* | edgeconv:*) [ "$side" = pyg-csr ] && continue ;; esac
        case $spec in edgeconv:*) ;; *) [ "$side" = pyg-rewrite ] && continue ;; esac
        log=$WORK/runs/$name-$side-t$thr-r$r.log
        echo "peers: $name  $side  threads $thr  round $r" >&2
        run_side "$side" "$lib" "$gfile" "$spec" "$thr" "$log"
        st=$(val status "$log")
        # gnnc out of memory with training: the model allocates its training arena (the
        # backward's buffers too) at create, so measure the forward alone with an inference-only
        # library (-fno-autodiff); the row then says oom-train (forward time, training OOM)
        if [ "$side" = gnnc ] && [ "$st" = oom ] && [ "$nsteps" -gt 0 ]; then
          ilib=$LIBDIR/$name-$TARGET-infer.so
          [ -f "$ilib" ] || "$GNNC" "$gnn" --target="$TARGET" $archflag "${GNNC_FLAGS[@]}" -fno-autodiff -o "$ilib" > /dev/null 2>&1
          ilog=${log%.log}-infer.log
          nsteps_save=$nsteps
          nsteps=0
          [ -f "$ilib" ] && run_side gnnc "$ilib" "$gfile" "$spec" "$thr" "$ilog"
          nsteps=$nsteps_save
          if [ -f "$ilog" ] && [ "$(val status "$ilog")" = ok ]; then
            st=oom-train
            sed -i 's/^status oom$/status oom-train/' "$log"
            echo "forward_ms $(val forward_ms "$ilog")" >> "$log"
            echo "forward_runs $(val forward_runs "$ilog")" >> "$log"
            echo "infer_rss_mib $(val peak_rss_mib "$ilog")" >> "$log"
            echo "infer_arena_mib $(val plan_arena_mib "$ilog")" >> "$log"
          fi
        fi
        [ "$st" = ok ] || echo "peers:   -> $st ($(grep -v '^[a-z_]* \|Warning\|^  ' "$log" | tail -n 1 | cut -c1-200))" >&2
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$thr" "$side" "$r" \
          "$(val forward_ms "$log")" "$(val train_ms "$log")" "$(val peak_rss_mib "$log")" "$(val plan_arena_mib "$log")" \
          "$(val runtime_peak_mib "$log")" "$(val cuda_peak_mib "$log")" "$st" "$(val nv "$log")" "$(val ne "$log")" \
          "$(val forward_runs "$log")" "$(val train_runs "$log")" "$(val load_s "$log")" "$(val versions "$log")" \
          "$(val rss_base_mib "$log")" >> "$TSV"
      done
    done
  done
done
t_total=$(($(date +%s) - t_start))
if [ "${PEERS_GRAPHS_ONLY:-0}" = 1 ]; then
  echo "peers: PEERS_GRAPHS_ONLY=1: the graphs of ${#selected[@]} workloads made, nothing run"
  exit 0
fi
if [ "${GNN_BUILD_ONLY:-0}" = 1 ]; then
  echo "peers: GNN_BUILD_ONLY=1: ${#selected[@]} libraries built ($TARGET${archflag:+ $archflag}), nothing run"
  exit $failed
fi

# ---------------------------------------------------------------- the report
{
  echo "$header"
  set -- $pyv
  echo "- PyG:     ${pyg_note:-torch $1, torch_geometric $2 ($PY; $pyenv)}"
  if [ -n "$dgl_note" ]; then echo "- $dgl_note"; else set -- $dglv; echo "- DGL:     torch $1, dgl $2 ($DGL_PY)"; fi
  echo "- runs:    $ROUNDS rounds, sides interleaved ($SIDES; the order reversed every other round), threads: $THREADS"
  for thr in $THREADS; do echo "- threads $thr: $(thread_env "$thr") (gnnc); torch.set_num_threads($thr) and the same variables (PyG; DGL also dgl.utils.set_num_threads($thr))"; done
  echo "- forward: median of $NFWD after $NWARM warm-up; train: median step of $NSTEPS (forward + cross-entropy over all vertices + backward + Adam), the first 2 untimed; peak RSS: the process (graph load, forwards, then the steps). Workloads marked in the table's runs column use fewer (forwards/steps timed), to keep the default run short on 2 cores; PEERS_FULL=1 uses the defaults everywhere"
  echo "- limits per process: ${TLIMIT} s, address space ${MEMGB} GiB (ulimit -v); load at the start: $load_start; total $t_total s"
  echo "- other jobs were running on this machine during the runs (a shared 2-core machine): medians, not minima; ratios within ~30% are noise"
  echo
  echo "## Check (same output on a small graph, gnnc's parameters and input in each peer)"
  echo
  echo "| workload | result |"
  echo "|---|---|"
  for w in "${selected[@]}"; do echo "| ${w%%|*} | ${checkres[${w%%|*}]} |"; done
  echo
  echo "## Results"
  echo
  /usr/bin/python3 bench/peers_report.py table "$TSV"
  # every run that did not end with status ok, and why (the last line of its stderr)
  if awk -F'\t' 'NR > 1 && $11 != "ok" { f = 1 } END { exit !f }' "$TSV"; then
    echo
    echo "## Runs that did not complete (their result is the failure)"
    echo
    tail -n +2 "$TSV" | tr '\t' '|' | while IFS='|' read -r name thr side r _ _ _ _ _ _ st _; do
      [ "$st" != ok ] || continue
      log=$WORK/runs/$name-$side-t$thr-r$r.log
      why=$(grep -v '^[a-z_]* ' "$log" | grep -v '^side \|^status\|Warning\|^  ' | tail -n 1 | cut -c1-300)
      case $st in timeout*) why="ran past the ${TLIMIT} s limit" ;; killed*) why="killed (by the kernel's OOM killer or a signal) ${why:+: $why}" ;; esac
      b=$(basename "$log" .log)
      extra=
      [ "$st" = oom-train ] && extra=" (forward alone, -fno-autodiff: $(val forward_ms "$log") ms, peak RSS $(val infer_rss_mib "$log") MiB, arena $(val infer_arena_mib "$log") MiB)"
      echo "- \`$b\`: **$st**$extra: ${why:-no message}"
    done
  fi
  # where gnnc is slower than PyG's best (forward or training step, at the most threads), one
  # more gnnc run with GNN_PROFILE=1: the steps that take its time
  slower=$(/usr/bin/python3 bench/peers_report.py slower "$TSV")
  if [ -n "$slower" ] && [ "${PEERS_PROFILE:-1}" = 1 ]; then
    pthr=$(tr ' ' '\n' <<< "$THREADS" | sort -n | tail -1)
    echo
    echo "## Where gnnc is slower: its steps (GNN_PROFILE=1, $pthr thread(s), one more run of 2 forwards and 5 training steps)"
    for name in $slower; do
      gfile=; lib=$LIBDIR/$name-$TARGET.so
      for w in "${selected[@]}"; do
        IFS='|' read -r n _ graph _ _ <<< "$w"
        [ "$n" = "$name" ] && gfile=$(graph_file "$graph")
      done
      plog=$WORK/runs/$name-profile.log
      (
        # shellcheck disable=SC2046
        export $(thread_env "$pthr") GNN_PROFILE=1
        [ "$TARGET" = host ] && ulimit -v $((MEMGB * 1024 * 1024))
        exec timeout --kill-after=10 "$TLIMIT" "$PEER_GNNC" "$lib" --graph "$gfile" --forward 2 --warmup 1 --steps 5
      ) > "$plog" 2>&1
      echo
      echo "**$name** ($(sed -n 's/^gnn-profile: gemm/gemm/p' "$plog"); the 8 slowest steps, over the whole run):"
      echo
      echo '```'
      grep '^gnn-profile:' "$plog" | sed -n '2,10p' | sed 's/^gnn-profile: //'
      echo '```'
    done
  fi
} > "$OUT"
echo "peers: wrote $OUT and $TSV" >&2
cat "$OUT"
if [ "$PLOTS" = 1 ]; then
  if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
    /usr/bin/python3 bench/peers_report.py plot "$TSV" "$PLOT_DIR" || failed=1
  else
    echo "peers: no plots: Debian's python3-matplotlib is not installed (make bench-peers installs it)" >&2
  fi
fi
exit $failed
