# runtime.sh -- the runtime libraries (runtime/, docs/runtime.md), sourced by tests/run.sh.
#
#   runtime/api/...        tests/runtime/t_api.c: errors, memory counters, GEMM, graphs from
#                          arrays, tensor files, softmax cross-entropy (float64 reference and
#                          finite differences), accuracy, SGD and Adam (hand-computed), dropout
#   runtime/csr/...        tests/runtime/t_csr.c: gnn_graph_from_csr (a CSR in the context's memory)
#                          equals gnn_graph_from_edges array for array over random graphs and every
#                          option; host copies on demand; its cache; each broken rule's message
#   runtime/sample/...     tests/runtime/t_sample.c: neighbour sampling (gnn_sampler_*): every batch
#                          against the graph (counts, CSR order, first-appearance numbering), the same
#                          on 1 and 3 threads, uniform draws (5 sigma), each refusal's message
#   runtime/setgraph/...   tests/runtime/t_setgraph.c: one model rebound across graphs of other sizes
#                          (generated sage and gin_graph: set_graph, reserve) equals a fresh model's
#                          output and gradients bit for bit; within capacity it allocates nothing
#   runtime/busy/...       tests/runtime/t_busy.c: a generated model (gcn) held by a call in another
#                          thread (a load_params blocked on a pipe) refuses every other call with a
#                          status and a message, changes nothing, and works again once it returns
#   runtime/omp-threads-refused  t_busy with OMP_NUM_THREADS=100000: gnn_ctx_create fails with the
#                          drivers' message (gnnrt_omp.h), where the program crashed in libgomp
#   runtime/params/...     the interpreter's Glorot and uniform parameters, every value
#   runtime/graph/...      hand-checked CSR/CSC for each option, the same graph from every format
#                          (edge list, Matrix Market, dataset folder, cache), Cora's counts
#   runtime/cache/...      round trips and every kind of damaged cache
#   runtime/layers         the loaders call only lower layers (nm over build/rt-host/*.o)
#   runtime/ogb/...        OGB's node-property layout (tests/runtime/make_ogb.py writes Cora in it):
#                          the same dataset as data/cora, gzip'd or plain, its graph cache (kept,
#                          used, rebuilt when stale, damaged or of version 1; never followed through
#                          a link, nor blocked on by a FIFO), each malformed file at its line;
#                          the binary layout (raw/data.npz, node-label.npz: stored, deflated,
#                          ZIP64, NumPy's own writer) loads the same, each malformed archive refused
#   runtime/bad/...        tests/runtime/bad/: each malformed file, its status and file:line message
#   runtime/valgrind/...   the test programs under valgrind (errors and leaks), error paths too
#   runtime/cuda/...       the CUDA build: warning-free, NVRTC without a GPU, context creation
#                          (t_api_cuda, t_setgraph_cuda, t_csr_cuda: with a GPU, their checks; without, a note
#                          when they exit 77 with "no context: GNN_ERR_CUDA")
#   runtime/install/...    make install-runtime, pkg-config, a program linked from the prefix
# Test programs come from $RT_BIN (make test: build/rt; make test-asan: build/asan/rt, with
# RT_SANITIZED=1, where valgrind is skipped and the sanitizers watch instead).
rt_bin=${RT_BIN:-build/rt}
rt_tmp=$TMP/runtime
rt_bad=tests/runtime/bad
rt_g=tests/runtime/graphs
mkdir -p "$rt_tmp"
rt_cuda_bin=build/rt # the CUDA programs are never sanitized: they always come from the plain build


# rt_expect NAME EXPECTED-FILE ARGS...: rt_load's output must equal the file.
rt_expect() {
  local name=$1 want=$2
  shift 2
  "$rt_bin/rt_load" "$@" > "$rt_tmp/out" 2>&1
  if cmp -s "$want" "$rt_tmp/out"; then pass "$name"; else fail "$name" "rt_load $* differs from $want: $(diff "$want" "$rt_tmp/out" | head -5 | tr '\n' ' ')"; fi
}

# rt_same NAME A-ARGS -- B-ARGS: two loads print the same dump (and neither failed).
rt_same() {
  local name=$1 a=() b=()
  shift
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  if ! "$rt_bin/rt_load" "${a[@]}" > "$rt_tmp/a" 2>&1; then fail "$name" "rt_load ${a[*]}: $(head -1 "$rt_tmp/a")"; return; fi
  if ! "$rt_bin/rt_load" "${b[@]}" > "$rt_tmp/b" 2>&1; then fail "$name" "rt_load ${b[*]}: $(head -1 "$rt_tmp/b")"; return; fi
  if cmp -s "$rt_tmp/a" "$rt_tmp/b"; then pass "$name"; else fail "$name" "rt_load ${a[*]} and ${b[*]} differ"; fi
}

# rt_bad NAME STATUS MESSAGE ARGS...: rt_load fails with STATUS and a message containing MESSAGE.
rt_bad() {
  local name=$1 status=$2 msg=$3 out
  shift 3
  echo "$*" >> "$rt_tmp/cmds"
  out=$(timeout 60 "$rt_bin/rt_load" "$@" 2>&1) # a loader that loops is a failure, not a stuck suite
  local rc=$?
  local err
  err=$(grep -m1 '^error ' <<< "$out")
  if [ $rc -ne 1 ]; then fail "runtime/bad/$name" "exit $rc, want 1: $(head -2 <<< "$out" | tr '\n' ' ')"
  elif [[ "$err" != "error $status: "* ]]; then fail "runtime/bad/$name" "want $status, got: $err"
  elif ! grep -qF -- "$msg" <<< "$err"; then fail "runtime/bad/$name" "want '$msg', got: $err"
  else pass "runtime/bad/$name"; fi
}

if [ ! -x "$rt_bin/rt_load" ] || [ ! -x "$rt_bin/t_api" ]; then
  fail runtime/built "$rt_bin/rt_load or $rt_bin/t_api is missing (make runtime-tests builds them)"
else
  : > "$rt_tmp/cmds"

  # ---------------------------------------------------------------- unit tests
  out=$("$rt_bin/t_api" 2>&1); report_lines runtime/api $? "$out"
  # a graph from a CSR in the context's memory equals gnn_graph_from_edges'; each broken rule its message
  if [ -x "$rt_bin/t_csr" ]; then
    out=$("$rt_bin/t_csr" 2>&1); report_lines runtime/csr $? "$out"
  else
    fail runtime/csr/built "$rt_bin/t_csr is missing (make runtime-tests builds it)"
  fi
  # neighbour sampling: batches valid against the graph, thread-count independent, uniform
  if [ -x "$rt_bin/t_sample" ]; then
    out=$("$rt_bin/t_sample" 2>&1); report_lines runtime/sample $? "$out"
  else
    fail runtime/sample/built "$rt_bin/t_sample is missing (make runtime-tests builds it)"
  fi
  # one model rebound across graphs (set_graph, reserve) equals fresh models, allocating nothing within capacity
  if [ -x "$rt_bin/t_setgraph" ]; then
    out=$("$rt_bin/t_setgraph" 2>&1); report_lines runtime/setgraph $? "$out"
  else
    fail runtime/setgraph/built "$rt_bin/t_setgraph is missing (make runtime-tests builds it)"
  fi

  # one model from two threads at once: each call refused while another thread's holds the model
  if [ -x "$rt_bin/t_busy" ]; then
    out=$("$rt_bin/t_busy" 2>&1); report_lines runtime/busy $? "$out"
  else
    fail runtime/busy/built "$rt_bin/t_busy is missing (make runtime-tests builds it)"
  fi

  # an OMP_NUM_THREADS libgomp crashes on (a segfault in GOMP_parallel at 100000): a program of
  # one's own linking libgnnrt_host gets a failed context with the drivers' message (gnnrt_omp.h)
  out=$(OMP_NUM_THREADS=100000 "$rt_bin/t_busy" 2>&1); rc=$?
  if [ $rc -eq 77 ] && grep -qF "no context: gnn_ctx_create: OMP_NUM_THREADS=100000 asks for more than 4096 OpenMP threads" <<< "$out"
  then pass runtime/omp-threads-refused
  else fail runtime/omp-threads-refused "exit $rc: $(head -c 300 <<< "$out")"; fi

  # ---------------------------------------------------------------- parameters vs the interpreter
  if "$GNNC" run dsl-examples/gcn.gnn --graph data/cora --save-params "$rt_tmp/gcn.params" > /dev/null 2>&1; then
    out=$("$rt_bin/t_api" --params "$rt_tmp/gcn.params" glorot 1 2>&1); report_lines runtime/params/gcn $? "$out"
  else fail runtime/params/gcn "gnnc run gcn.gnn --save-params failed"; fi
  if "$GNNC" run dsl-examples/gat.gnn --graph data/cora --init=uniform --seed 7 --save-params "$rt_tmp/gat.params" > /dev/null 2>&1; then
    out=$("$rt_bin/t_api" --params "$rt_tmp/gat.params" uniform 7 2>&1); report_lines runtime/params/gat $? "$out"
  else fail runtime/params/gat "gnnc run gat.gnn --save-params failed"; fi
  # the interpreter reads what the runtime writes, and gives back the same float32 values
  if "$rt_bin/t_api" --roundtrip "$rt_tmp/gcn.params" "$rt_tmp/gcn2.params" > /dev/null &&
     "$GNNC" run dsl-examples/gcn.gnn --graph data/cora --params "$rt_tmp/gcn2.params" --save-params "$rt_tmp/gcn3.params" > /dev/null 2>&1 &&
     out=$("$rt_bin/t_api" --params "$rt_tmp/gcn3.params" glorot 1 2>&1); then pass runtime/params/interpreter-reads-runtime-file
  else fail runtime/params/interpreter-reads-runtime-file "$(tail -n 2 <<< "${out:-}" | tr '\n' ' ')"; fi

  # ---------------------------------------------------------------- graphs: hand-checked options
  for c in plain: r:-r d:-d y:-y s:-s "rdys:-r -d -y -s"; do
    n=${c%%:*}; o=${c#*:}
    # shellcheck disable=SC2086
    rt_expect "runtime/graph/options-$n" "$rt_g/small.$n.expected" $o -n 5 "$rt_g/small.edges"
    # shellcheck disable=SC2086
    rt_same "runtime/graph/mtx-equals-edges-$n" $o "$rt_g/small.mtx" -- $o -n 5 "$rt_g/small.edges"
  done
  rt_expect runtime/graph/mtx-symmetric "$rt_g/sym.expected" "$rt_g/sym.mtx"
  # a batch of graphs: graph_indicator.txt splits the folder's vertices (tests/interp/graphs/batch)
  rt_expect runtime/graph/batch tests/runtime/graphs/batch.expected tests/interp/graphs/batch
  # edge values (columns after 'src dst'; a real .mtx's values) follow their edge through every
  # option into CSR order, an added self-loop's are 1 (values.*.expected checked by hand)
  for c in plain: r:-r d:-d y:-y s:-s "rdys:-r -d -y -s"; do
    n=${c%%:*}; o=${c#*:}
    # shellcheck disable=SC2086
    rt_expect "runtime/graph/values-$n" "$rt_g/values.$n.expected" $o -n 5 "$rt_g/values.edges"
    # shellcheck disable=SC2086
    rt_same "runtime/graph/mtx-values-equal-edge-values-$n" $o "$rt_g/values.mtx" -- $o -n 5 "$rt_g/values1.edges"
  done
  # Cora from every format: the same CSR, CSC, degrees and origins
  { echo '%%MatrixMarket matrix coordinate pattern general'; echo '2708 2708 10556'
    grep -v '^#' data/cora/graph.edges | awk '{ print $1 + 1, $2 + 1 }'; } > "$rt_tmp/cora.mtx"
  rt_same runtime/graph/cora-dir-equals-edges data/cora -- data/cora/graph.edges
  rt_same runtime/graph/cora-mtx-equals-edges "$rt_tmp/cora.mtx" -- data/cora/graph.edges
  "$rt_bin/rt_load" data/cora --save-cache "$rt_tmp/cora.gcsr" > /dev/null 2>&1
  rt_same runtime/graph/cora-cache-equals-edges "$rt_tmp/cora.gcsr" -- data/cora/graph.edges
  rt_same runtime/graph/cora-dataset-graph --dataset data/cora -- --dataset data/cora
  out=$("$rt_bin/rt_load" --dataset data/cora 2>&1 | head -2)
  want_fsum=$(grep -v '^#' data/cora/features.svm | awk '{ for (i = 2; i <= NF; i++) { split($i, a, ":"); s += a[2] } } END { print s }')
  want_lsum=$(grep -v '^#' data/cora/labels.txt | awk '{ s += $1 } END { print s }')
  if [ "$(head -1 <<< "$out")" = "nv 2708 ne 10556 nfeat 1433 nclasses 7 ntrain 140 nval 500 ntest 1000 missing 0" ] &&
     [ "$(tail -1 <<< "$out")" = "feature_sum $want_fsum label_sum $want_lsum mask_counts 140 500 1000" ]; then
    pass runtime/graph/cora-dataset
  else fail runtime/graph/cora-dataset "$(tr '\n' ' ' <<< "$out")"; fi
  # a folder with only graph.edges and labels.txt (4 vertices, the last isolated), and val.idx
  out=$("$rt_bin/rt_load" --dataset "$rt_bad/ds-partial" 2>&1 | head -3)
  if [ "$(head -1 <<< "$out")" = "nv 4 ne 2 nfeat 0 nclasses 2 ntrain 0 nval 1 ntest 0 missing 21" ]; then
    pass runtime/graph/dataset-partial; else fail runtime/graph/dataset-partial "$(tr '\n' ' ' <<< "$out")"; fi
  rt_same runtime/graph/dir-vertex-count-from-labels "$rt_bad/ds-partial" -- -n 4 "$rt_bad/ds-partial/graph.edges"

  # ---------------------------------------------------------------- OGB's layout
  # Cora written as an OGB download: everything it loads equals data/cora's (graph, features,
  # labels, splits); the first load keeps the graph in processed/, the second reads it from there.
  og=$rt_tmp/ogb
  rm -rf "$og" && mkdir -p "$og"
  if ! out=$("$PY" tests/runtime/make_ogb.py data/cora "$og/cora" 2>&1) ||
     ! out=$("$PY" tests/runtime/make_ogb.py data/cora "$og/cora-plain" --plain --split time 2>&1); then
    fail runtime/ogb/make "$(tail -2 <<< "$out")"
  fi
  rt_same runtime/ogb/cora-dataset --dataset "$og/cora" -- --dataset data/cora
  if [ -f "$og/cora/processed/gnnc-graph-0.gcsr" ]; then pass runtime/ogb/cache-written
  else fail runtime/ogb/cache-written "no $og/cora/processed/gnnc-graph-0.gcsr after a load"; fi
  rt_same runtime/ogb/cora-dataset-cached --dataset "$og/cora" -- --dataset data/cora
  rt_same runtime/ogb/cora-graph-cached "$og/cora" -- data/cora/graph.edges
  rt_same runtime/ogb/symmetrise -y -s "$og/cora" -- -y -s data/cora/graph.edges
  rt_same runtime/ogb/symmetrise-cached -y -s "$og/cora" -- -y -s data/cora/graph.edges
  rt_same runtime/ogb/plain-csv --dataset "$og/cora-plain" -- --dataset data/cora
  # a small folder: its counts, hand-computed (features 1+.5+0+1+2+2-1+.25, labels 0+1+0+1)
  rt_ogb_tiny() { # DIR: 4 vertices, 3 edges, 2 features, 2 classes, a split under split/s
    rm -rf "$1" && mkdir -p "$1/raw" "$1/split/s"
    printf '0,1\n1,2\n2,3\n' | gzip > "$1/raw/edge.csv.gz"
    printf '4\n' | gzip > "$1/raw/num-node-list.csv.gz"
    printf '3\n' | gzip > "$1/raw/num-edge-list.csv.gz"
    printf '1.0,0.5\n0,1\n2,2\n-1,0.25\n' | gzip > "$1/raw/node-feat.csv.gz"
    printf '0\n1\n0\n1\n' | gzip > "$1/raw/node-label.csv.gz"
    printf '0\n1\n' | gzip > "$1/split/s/train.csv.gz"
    printf '2\n' | gzip > "$1/split/s/valid.csv.gz"
    printf '3\n' | gzip > "$1/split/s/test.csv.gz"
  }
  rt_ogb_tiny "$og/tiny"
  out=$("$rt_bin/rt_load" --dataset "$og/tiny" 2>&1 | head -2 | tr '\n' ' ')
  if [ "$out" = "nv 4 ne 3 nfeat 2 nclasses 2 ntrain 2 nval 1 ntest 1 missing 0 feature_sum 5.75 label_sum 2 mask_counts 2 1 1 " ]; then
    pass runtime/ogb/tiny-dataset; else fail runtime/ogb/tiny-dataset "$out"; fi
  rm -r "$og/tiny/split" "$og/tiny/raw/node-feat.csv.gz"
  out=$("$rt_bin/rt_load" --dataset "$og/tiny" 2>&1 | head -1)
  if [ "$out" = "nv 4 ne 3 nfeat 0 nclasses 2 ntrain 0 nval 0 ntest 0 missing 29" ]; then
    pass runtime/ogb/optional-files-missing; else fail runtime/ogb/optional-files-missing "$out"; fi
  # the cache follows the CSV: new edges (a newer edge.csv.gz) are read, not the old cache; a
  # damaged cache is rebuilt, and written again whole
  rt_ogb_tiny "$og/tiny"
  "$rt_bin/rt_load" "$og/tiny" > /dev/null 2>&1
  sleep 0.01; printf '3,0\n0,2\n1,1\n' | gzip > "$og/tiny/raw/edge.csv.gz"
  printf '3 0\n0 2\n1 1\n' > "$og/tiny.edges"
  rt_same runtime/ogb/cache-stale "$og/tiny" -- -n 4 "$og/tiny.edges"
  c=$og/tiny/processed/gnnc-graph-0.gcsr; size=$(stat -c %s "$c" 2> /dev/null || echo 0)
  head -c 100 "$c" > "$c.tmp" && mv "$c.tmp" "$c" && touch "$c"
  rt_same runtime/ogb/cache-damaged "$og/tiny" -- -n 4 "$og/tiny.edges"
  if [ "$size" -gt 100 ] && [ "$(stat -c %s "$c")" = "$size" ]; then pass runtime/ogb/cache-rewritten
  else fail runtime/ogb/cache-rewritten "$size bytes before, $(stat -c %s "$c") after"; fi
  # an edge.csv.gz replaced with an old modification time (as unzip leaves it; the same size and
  # count here) is newer by its change time (ctime): the cache is rebuilt, not the old graph read
  rt_ogb_tiny "$og/tiny"
  "$rt_bin/rt_load" "$og/tiny" > /dev/null 2>&1
  sleep 0.01; printf '3,0\n2,1\n1,0\n' | gzip > "$og/tiny/raw/edge.csv.gz"; touch -d 2020-01-01 "$og/tiny/raw/edge.csv.gz"
  printf '3 0\n2 1\n1 0\n' > "$og/tiny-old-mtime.edges"
  rt_same runtime/ogb/cache-stale-old-mtime "$og/tiny" -- -n 4 "$og/tiny-old-mtime.edges"
  # a cache newer than everything (copied in from another download) that holds another edge
  # count than raw/num-edge-list.csv.gz: rebuilt
  rt_ogb_tiny "$og/tiny"
  "$rt_bin/rt_load" "$og/tiny" > /dev/null 2>&1
  printf '3,0\n2,1\n1,0\n0,3\n' | gzip > "$og/tiny/raw/edge.csv.gz"; printf '4\n' | gzip > "$og/tiny/raw/num-edge-list.csv.gz"
  sleep 0.01; touch "$og/tiny/processed/gnnc-graph-0.gcsr"
  printf '3 0\n2 1\n1 0\n0 3\n' > "$og/tiny-count.edges"
  rt_same runtime/ogb/cache-stale-edge-count "$og/tiny" -- -n 4 "$og/tiny-count.edges"
  # a cache with a modification time in the future (a tarball's, rsync -t's): a later edit of
  # edge.csv.gz (the same edge count) is read, not hidden by the cache (the stamp is compared for
  # equality, never for order)
  rt_ogb_tiny "$og/tiny"
  "$rt_bin/rt_load" "$og/tiny" > /dev/null 2>&1
  touch -d 2099-01-01 "$og/tiny/processed/gnnc-graph-0.gcsr"
  sleep 0.01; printf '3,0\n2,1\n1,0\n' | gzip > "$og/tiny/raw/edge.csv.gz"
  rt_same runtime/ogb/cache-stale-future-mtime "$og/tiny" -- -n 4 "$og/tiny-old-mtime.edges"
  # a version-1 cache (no stamp; here another graph of as many edges, newer than every file):
  # rebuilt, not read
  rt_ogb_tiny "$og/tiny"
  mkdir -p "$og/tiny/processed"
  "$rt_bin/rt_load" -n 4 "$og/tiny-old-mtime.edges" --save-cache "$og/tiny/processed/gnnc-graph-0.gcsr" > /dev/null 2>&1
  printf '0 1\n1 2\n2 3\n' > "$og/tiny-first.edges"
  v=$(od -An -tu4 -j8 -N4 "$og/tiny/processed/gnnc-graph-0.gcsr" | tr -d ' ')
  rt_same runtime/ogb/cache-version-1-rebuilt "$og/tiny" -- -n 4 "$og/tiny-first.edges"
  v2=$(od -An -tu4 -j8 -N4 "$og/tiny/processed/gnnc-graph-0.gcsr" | tr -d ' ')
  if [ "$v.$v2" = 1.2 ]; then pass runtime/ogb/cache-version-2-written; else fail runtime/ogb/cache-version-2-written "versions $v then $v2"; fi
  # The cache's path comes from the dataset, not from the user: a link planted there (to any
  # file the loader may write), or a processed/ that is a link, is never written through nor
  # read; a FIFO there never blocks the load, a folder there never fails it. Each loads the
  # graph from raw/ with a warning, and leaves the entry as it was.
  rt_ogb_tiny "$og/tiny"
  mkdir "$og/tiny/processed" && echo precious > "$og/victim" && ln -s "$og/victim" "$og/tiny/processed/gnnc-graph-0.gcsr"
  "$rt_bin/rt_load" "$og/tiny" > "$rt_tmp/a" 2> "$rt_tmp/err"
  "$rt_bin/rt_load" -n 4 "$og/tiny-first.edges" > "$rt_tmp/b" 2>&1
  if cmp -s "$rt_tmp/a" "$rt_tmp/b" && [ "$(cat "$og/victim")" = precious ] && [ -L "$og/tiny/processed/gnnc-graph-0.gcsr" ] &&
     grep -q "^rt_load: $og/tiny/processed/gnnc-graph-0.gcsr: warning: a symbolic link (a dataset's cache is never read or written through one): not used as the graph cache, nor replaced; the graph is read from raw/" "$rt_tmp/err"; then
    pass runtime/ogb/cache-symlink
  else fail runtime/ogb/cache-symlink "graph differs, or victim '$(head -c 20 "$og/victim")', $(head -c 300 "$rt_tmp/err")"; fi
  rt_ogb_tiny "$og/tiny"
  rm -rf "$og/elsewhere" && mkdir "$og/elsewhere" && ln -s "$og/elsewhere" "$og/tiny/processed"
  "$rt_bin/rt_load" --dataset "$og/tiny" > /dev/null 2> "$rt_tmp/err"
  "$rt_bin/rt_load" "$og/tiny" > "$rt_tmp/a" 2> /dev/null
  if cmp -s "$rt_tmp/a" "$rt_tmp/b" && [ -z "$(ls -A "$og/elsewhere")" ] && grep -q "^rt_load: $og/tiny/processed: warning: a symbolic link (a dataset's cache is never reached through one): the graph cache is neither read nor written there" "$rt_tmp/err"; then
    pass runtime/ogb/processed-symlink
  else fail runtime/ogb/processed-symlink "graph differs, or written: $(ls -A "$og/elsewhere" | head -3) $(head -c 300 "$rt_tmp/err")"; fi
  for kind in fifo folder; do
    rt_ogb_tiny "$og/tiny"
    mkdir "$og/tiny/processed"
    if [ $kind = fifo ]; then mkfifo "$og/tiny/processed/gnnc-graph-0.gcsr"; else mkdir "$og/tiny/processed/gnnc-graph-0.gcsr"; fi
    timeout 20 "$rt_bin/rt_load" "$og/tiny" > "$rt_tmp/a" 2> "$rt_tmp/err"; rc=$?
    "$rt_bin/rt_load" -n 4 "$og/tiny-first.edges" > "$rt_tmp/b" 2>&1
    want="a FIFO"; [ $kind = folder ] && want="a folder"
    if [ $rc = 0 ] && cmp -s "$rt_tmp/a" "$rt_tmp/b" && grep -q "gnnc-graph-0.gcsr: warning: $want, not a regular file: not used as the graph cache, nor replaced" "$rt_tmp/err" &&
       { [ $kind = fifo ] && [ -p "$og/tiny/processed/gnnc-graph-0.gcsr" ] || [ -d "$og/tiny/processed/gnnc-graph-0.gcsr" ]; }; then
      pass runtime/ogb/cache-$kind
    else fail runtime/ogb/cache-$kind "exit $rc (124: hung), $(head -c 300 "$rt_tmp/err")"; fi
  done
  # a .gcsr path that is a FIFO, given by the user: refused at once, not waited on
  mkfifo "$og/pipe.gcsr"
  out=$(timeout 20 "$rt_bin/rt_load" "$og/pipe.gcsr" 2>&1); rc=$?
  if [ $rc = 1 ] && [ "$out" = "error GNN_ERR_IO: $og/pipe.gcsr: error: not a regular file" ]; then pass runtime/cache/fifo-refused
  else fail runtime/cache/fifo-refused "exit $rc (124: hung): $out"; fi
  # malformed folders: each a copy of the small one with one defect, named at its file and line
  rt_ogb_bad() { # NAME STATUS MESSAGE FILE CONTENT [rt_load options]: FILE (under the folder) replaced by CONTENT
    local name=$1 status=$2 msg=$3 file=$4 content=$5 d=$og/bad-$1
    shift 5
    rt_ogb_tiny "$d"
    mkdir -p "$(dirname "$d/$file")"
    if [ "$content" = "-" ]; then rm -r "${d:?}/$file"; else printf "$content" | gzip > "$d/$file"; fi
    rt_bad "ogb-$name" "$status" "$(sed "s|@|$d/$file|" <<< "$msg")" "$@" --dataset "$d"
  }
  rt_ogb_bad no-vertex-count GNN_ERR_IO "error: no raw/num-node-list.csv.gz in this OGB folder" raw/num-node-list.csv.gz -
  rt_ogb_bad no-edge-count GNN_ERR_IO "error: no raw/num-edge-list.csv.gz in this OGB folder" raw/num-edge-list.csv.gz -
  rt_ogb_bad edge-3-columns GNN_ERR_FORMAT "@:2: error: more than 2 columns (an edge row is 'src,dst')" raw/edge.csv.gz '0,1\n1,2,7\n2,3\n'
  rt_ogb_bad edge-1-column GNN_ERR_FORMAT "@:3: error: 1 column (an edge row is 'src,dst')" raw/edge.csv.gz '0,1\n1,2\n3\n'
  rt_ogb_bad edge-out-of-range GNN_ERR_FORMAT "@:2: error: vertex id 4 out of range (the graph has 4 vertices)" raw/edge.csv.gz '0,1\n1,4\n2,3\n'
  rt_ogb_bad edge-negative GNN_ERR_FORMAT "@:1: error: destination vertex id '-1' is not a vertex id (ids are not negative)" raw/edge.csv.gz '0,-1\n1,2\n2,3\n'
  rt_ogb_bad edge-text GNN_ERR_FORMAT "@:2: error: source vertex id 'a' is not a vertex id" raw/edge.csv.gz '0,1\na,2\n2,3\n'
  rt_ogb_bad edge-fraction GNN_ERR_FORMAT "@:2: error: destination vertex id '2.5' is not a vertex id" raw/edge.csv.gz '0,1\n1,2.5\n2,3\n'
  rt_ogb_bad edge-missing-src GNN_ERR_FORMAT "@:1: error: missing source vertex id" raw/edge.csv.gz ',1\n1,2\n2,3\n'
  rt_ogb_bad edges-fewer GNN_ERR_FORMAT "@: error: 2 edges, raw/num-edge-list.csv.gz says 3" raw/edge.csv.gz '0,1\n1,2\n'
  rt_ogb_bad edges-more GNN_ERR_FORMAT "@:4: error: more edges than the 3 of raw/num-edge-list.csv.gz" raw/edge.csv.gz '0,1\n1,2\n2,3\n3,0\n'
  rt_ogb_bad two-graphs GNN_ERR_FORMAT "@:2: error: a second graph: an OGB node-property folder holds one graph" raw/num-node-list.csv.gz '4\n4\n'
  rt_ogb_bad zero-vertices GNN_ERR_FORMAT "@: error: empty graph (0 vertices)" raw/num-node-list.csv.gz '0\n'
  rt_ogb_bad vertex-count-text GNN_ERR_FORMAT "@:1: error: vertex count 'four' is not an integer" raw/num-node-list.csv.gz 'four\n'
  rt_ogb_bad vertex-count-range GNN_ERR_FORMAT "@:1: error: vertex count 3000000000 out of range (0 .. 2147483648)" raw/num-node-list.csv.gz '3000000000\n'
  rt_ogb_bad num-vertices GNN_ERR_INVALID "@: error: num_vertices 5 disagrees with the folder's 4 vertices" raw/num-node-list.csv.gz '4\n' -n 5
  rt_ogb_bad features-ragged GNN_ERR_FORMAT "@:3: error: 1 feature on this row, the first row has 2" raw/node-feat.csv.gz '1,2\n3,4\n5\n6,7\n'
  rt_ogb_bad features-wide GNN_ERR_FORMAT "@:2: error: 3 features on this row, the first row has 2" raw/node-feat.csv.gz '1,2\n3,4,5\n5,1\n6,7\n'
  rt_ogb_bad features-text GNN_ERR_FORMAT "@:2: error: feature 2 'x' is not a number" raw/node-feat.csv.gz '1,2\n3,x\n5,1\n6,7\n'
  rt_ogb_bad features-nan GNN_ERR_FORMAT "@:4: error: feature 1 'nan' is not finite in float32" raw/node-feat.csv.gz '1,2\n3,4\n5,1\nnan,7\n'
  rt_ogb_bad features-rows GNN_ERR_FORMAT "@: error: 3 feature rows for a graph of 4 vertices" raw/node-feat.csv.gz '1,2\n3,4\n5,1\n'
  rt_ogb_bad features-more-rows GNN_ERR_FORMAT "@:5: error: more feature rows than the graph's 4 vertices" raw/node-feat.csv.gz '1,2\n3,4\n5,1\n6,7\n8,9\n'
  rt_ogb_bad labels-count GNN_ERR_FORMAT "@: error: 3 labels for a graph of 4 vertices" raw/node-label.csv.gz '0\n1\n0\n'
  # 2^31 - 1 fits the int32 label, but not the class count (largest + 1): the message says so
  rt_ogb_bad labels-class-count GNN_ERR_FORMAT "@:4: error: label 2147483647 is too large: the class count (the largest label + 1) must fit in 32 bits, so labels go up to 2147483646" raw/node-label.csv.gz '0\n1\n0\n2147483647\n'
  rt_ogb_bad labels-multi-task GNN_ERR_FORMAT "@:1: error: label '0,1' is not an integer" raw/node-label.csv.gz '0,1\n1,0\n0,0\n1,1\n'
  rt_ogb_bad split-range GNN_ERR_FORMAT "@:2: error: vertex id 7 out of range (the graph has 4 vertices)" split/s/train.csv.gz '0\n7\n'
  rt_ogb_bad split-repeat GNN_ERR_FORMAT "@:2: error: vertex 2 is listed twice" split/s/valid.csv.gz '2\n2\n'
  rt_ogb_bad two-schemes GNN_ERR_UNSUPPORTED "split: error: split schemes" split/t/train.csv.gz '0\n'
  # the splits are disjoint: a later file's id in an earlier file, named with OGB's file names
  rt_ogb_bad split-overlap-train GNN_ERR_FORMAT "@:1: error: vertex 0 is also in train.csv.gz: the train, validation and test splits must be disjoint" split/s/test.csv.gz '0\n'
  rt_ogb_bad split-overlap-valid GNN_ERR_FORMAT "@:2: error: vertex 2 is also in valid.csv.gz" split/s/test.csv.gz '3\n2\n'
  # no edges at all: a graph of 4 isolated vertices, not an error
  rt_ogb_tiny "$og/no-edges"
  printf '' | gzip > "$og/no-edges/raw/edge.csv.gz"; printf '0\n' | gzip > "$og/no-edges/raw/num-edge-list.csv.gz"
  out=$("$rt_bin/rt_load" "$og/no-edges" 2>&1 | head -2 | tr '\n' ' ')
  if [ "$out" = "nv 4 ne 0 max_in 0 max_out 0 in_ptr 0 0 0 0 0 " ]; then pass runtime/ogb/no-edges; else fail runtime/ogb/no-edges "$out"; fi
  # a memory limit that the loaders reach midway (the edge arrays, CSR, CSC, the batch arrays;
  # from the CSV and from the cache): GNN_ERR_OOM, and rt_load finds no byte left allocated
  # (valgrind and ASan replay these for the host memory)
  for lim in 20000 50000 100000 200000; do
    rt_bad "ogb-memory-limit-$lim" GNN_ERR_OOM "would pass the context's memory limit of $lim bytes" --limit $lim -d "$og/cora-plain"
  done
  rt_bad ogb-memory-limit-cache GNN_ERR_OOM "would pass the context's memory limit of 50000 bytes" --limit 50000 --dataset "$og/cora"
  # GNN_MEMORY_LIMIT: a value that is no byte count fails the context (rt_load exits 3), the
  # non-finite and 2^64 or more in any spelling too, which were read as no cap at all (or, for
  # 16777216TiB and 18446744073709551616.0, as SIZE_MAX); 2^64 - 1 is a count
  for v in inf Infinity 1e100 99999999999999999999999 18446744073709551616 18446744073709551616.0 16777216TiB 20000000T nan -1; do
    out=$(GNN_MEMORY_LIMIT=$v "$rt_bin/rt_load" "$rt_g/small.edges" 2>&1); rc=$?
    if [ $rc = 3 ] && [ "$out" = "error GNN_ERR_INVALID: gnn_ctx_create: GNN_MEMORY_LIMIT=$v is not a byte count (e.g. 2G, 512MiB, 1048576)" ]; then
      pass "runtime/memory-limit/refused-$v"; else fail "runtime/memory-limit/refused-$v" "exit $rc: $(head -c 200 <<< "$out")"; fi
  done
  for v in 18446744073709551615 16777215.99TiB 1.5G 2GiB 0; do
    if GNN_MEMORY_LIMIT=$v "$rt_bin/rt_load" "$rt_g/small.edges" > /dev/null 2>&1; then pass "runtime/memory-limit/accepted-$v"
    else fail "runtime/memory-limit/accepted-$v" "$(GNN_MEMORY_LIMIT=$v "$rt_bin/rt_load" "$rt_g/small.edges" 2>&1 | head -c 200)"; fi
  done
  # gzip data cut short, and with its checksum changed: zlib's complaint, after the lines read
  # (zlib inflates 256 KB at a time, so the whole of this small file is one piece: line 0)
  rt_ogb_tiny "$og/bad-gzip-cut"
  seq 0 2000 | awk '{ print $1 % 4 "," ($1 + 1) % 4 }' | gzip > "$og/edges.gz"
  printf '2001\n' | gzip > "$og/bad-gzip-cut/raw/num-edge-list.csv.gz"
  head -c $(($(stat -c %s "$og/edges.gz") - 20)) "$og/edges.gz" > "$og/bad-gzip-cut/raw/edge.csv.gz"
  rt_bad ogb-gzip-truncated GNN_ERR_FORMAT "$og/bad-gzip-cut/raw/edge.csv.gz:" --dataset "$og/bad-gzip-cut"
  if grep -q "edge.csv.gz: error: bad gzip data after line [0-9]*: unexpected end of file" <<< "$("$rt_bin/rt_load" "$og/bad-gzip-cut" 2>&1)"; then
    pass runtime/bad/ogb-gzip-truncated-message; else fail runtime/bad/ogb-gzip-truncated-message "$("$rt_bin/rt_load" "$og/bad-gzip-cut" 2>&1 | head -1)"; fi
  rt_ogb_tiny "$og/bad-gzip-crc"
  cp "$og/bad-gzip-cut/raw/num-edge-list.csv.gz" "$og/bad-gzip-crc/raw/"
  "$PY" -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[-6] ^= 0xff; open(sys.argv[2], "wb").write(d)' \
    "$og/edges.gz" "$og/bad-gzip-crc/raw/edge.csv.gz"
  rt_bad ogb-gzip-crc GNN_ERR_FORMAT "$og/bad-gzip-crc/raw/edge.csv.gz: error: bad gzip data after line 0: incorrect data check" --dataset "$og/bad-gzip-crc"

  # ---- OGB's binary layout (ogbn-papers100M's raw/data.npz and raw/node-label.npz)
  # Cora written stored (np.savez), deflated (np.savez_compressed) and with ZIP64 records: the
  # same dataset as data/cora; the graph cached as from the CSV
  for v in stored: deflated:--deflate zip64:--deflate_--zip64; do
    n=${v%%:*} o=${v#*:}
    # shellcheck disable=SC2086
    if out=$("$PY" tests/runtime/make_ogb.py data/cora "$og/npz-$n" --npz ${o//_/ } 2>&1); then
      rt_same "runtime/ogb/npz-$n" --dataset "$og/npz-$n" -- --dataset data/cora
    else fail "runtime/ogb/npz-$n" "make_ogb.py --npz $o: $(tail -1 <<< "$out")"; fi
  done
  if [ -f "$og/npz-stored/processed/gnnc-graph-0.gcsr" ]; then
    rt_same runtime/ogb/npz-graph-cached "$og/npz-stored" -- data/cora/graph.edges
  else fail runtime/ogb/npz-graph-cached "no processed/gnnc-graph-0.gcsr after a load"; fi
  # NumPy's own writer, where there is NumPy: savez and savez_compressed, a NaN label (unknown)
  if "$PY" -c 'import numpy' 2> /dev/null; then
    rm -rf "$og/npz-numpy" && cp -r "$og/npz-stored" "$og/npz-numpy" && rm -r "$og/npz-numpy/processed"
    "$PY" -c 'import numpy as np, sys; r = sys.argv[1] + "/raw/"
d = dict(np.load(r + "data.npz")); np.savez(r + "data.npz", **d)
l = np.load(r + "node-label.npz")["node_label"].copy(); l[5] = np.nan; np.savez_compressed(r + "node-label.npz", node_label=l)' \
      "$og/npz-numpy"
    out=$("$rt_bin/rt_load" --dataset "$og/npz-numpy" 2>&1 | head -2 | tr '\n' ' ')
    want_lsum=$(grep -v '^#' data/cora/labels.txt | awk 'NR == 6 { skip = $1 } { s += $1 } END { print s - skip - 1 }')  # vertex 5's label now -1
    if [ "$out" = "nv 2708 ne 10556 nfeat 1433 nclasses 7 ntrain 140 nval 500 ntest 1000 missing 0 feature_sum $want_fsum label_sum $want_lsum mask_counts 140 500 1000 " ]; then
      pass runtime/ogb/npz-numpy; else fail runtime/ogb/npz-numpy "$out"; fi
  fi
  # the small folder in the binary layout: what its CSV twin loads
  rt_npz_tiny() { # DIR: rt_ogb_tiny's folder, raw/ as .npz
    rt_ogb_tiny "$1"
    rm "$1"/raw/*.csv.gz
    "$PY" tests/runtime/make_npz.py "$1/raw/data.npz" edge_index:'<i8':2,3:0,1,2,1,2,3 num_nodes_list:'<i8':1:4 \
      num_edges_list:'<i8':1:3 node_feat:'<f4':4,2:1.0,0.5,0,1,2,2,-1,0.25
    "$PY" tests/runtime/make_npz.py "$1/raw/node-label.npz" node_label:'<f8':4,1:0,1,0,1
  }
  rt_ogb_tiny "$og/tiny"
  rt_npz_tiny "$og/npz-tiny"
  rt_same runtime/ogb/npz-tiny --dataset "$og/npz-tiny" -- --dataset "$og/tiny"
  rm "$og/npz-tiny/raw/node-label.npz"
  out=$("$rt_bin/rt_load" --dataset "$og/npz-tiny" 2>&1 | head -1)
  if [ "$out" = "nv 4 ne 3 nfeat 2 nclasses 0 ntrain 2 nval 1 ntest 1 missing 2" ]; then
    pass runtime/ogb/npz-no-labels; else fail runtime/ogb/npz-no-labels "$out"; fi
  # malformed archives: a copy of the small folder with FILE rewritten from ARRAYS (make_npz.py's
  # arguments), refused with the file, the array and what is wrong
  rt_npz_bad() { # NAME STATUS MESSAGE FILE ARGS...
    local name=$1 status=$2 msg=$3 file=$4 d=$og/npz-bad-$1
    shift 4
    rt_npz_tiny "$d"
    "$PY" tests/runtime/make_npz.py "$d/$file" "$@"
    rt_bad "ogb-npz-$name" "$status" "$d/$file: error: $msg" --dataset "$d"
  }
  rt_g4='num_nodes_list:<i8:1:4 num_edges_list:<i8:1:3'
  # shellcheck disable=SC2086
  {
  rt_npz_bad no-edges GNN_ERR_FORMAT "no array 'edge_index' in the archive" raw/data.npz $rt_g4
  rt_npz_bad float-ids GNN_ERR_FORMAT "member edge_index.npy holds floats (dtype f8): want integers" raw/data.npz edge_index:'<f8':2,3:0,1,2,1,2,3 $rt_g4
  rt_npz_bad id-range GNN_ERR_FORMAT "edge_index[1][1] = 4 out of range (the graph has 4 vertices)" raw/data.npz edge_index:'<i8':2,3:0,1,2,1,4,3 $rt_g4
  rt_npz_bad id-negative GNN_ERR_FORMAT "edge_index[0][0] = -1 out of range (the graph has 4 vertices)" raw/data.npz edge_index:'<i4':2,3:-1,1,2,1,2,3 $rt_g4
  rt_npz_bad edge-shape GNN_ERR_FORMAT "edge_index has shape (3, 2): want (2, 3), num_edges_list's count" raw/data.npz edge_index:'<i8':3,2:0,1,2,1,2,3 $rt_g4
  rt_npz_bad two-graphs GNN_ERR_FORMAT "num_nodes_list holds 2 counts: an OGB node-property folder holds one graph" raw/data.npz edge_index:'<i8':2,3:0,1,2,1,2,3 num_nodes_list:'<i8':2:2,2 num_edges_list:'<i8':1:3
  rt_npz_bad big-endian GNN_ERR_UNSUPPORTED "member edge_index.npy: dtype '>i8' is big-endian: want little-endian ('<')" raw/data.npz edge_index:'>i8':2,3:0,1,2,1,2,3 $rt_g4
  rt_npz_bad fortran GNN_ERR_UNSUPPORTED "member edge_index.npy: Fortran order: want C order" raw/data.npz --fortran edge_index edge_index:'<i8':2,3:0,1,1,2,2,3 $rt_g4
  rt_npz_bad bzip2 GNN_ERR_UNSUPPORTED "member num_nodes_list.npy: compression method 12" raw/data.npz --bzip2 edge_index:'<i8':2,3:0,1,2,1,2,3 $rt_g4
  rt_npz_bad not-npy GNN_ERR_FORMAT "member edge_index.npy is not a .npy array" raw/data.npz edge_index:raw::hello $rt_g4
  rt_npz_bad feature-rows GNN_ERR_FORMAT "node_feat has 2 dimensions (3 rows): want 4 rows of features" raw/data.npz edge_index:'<i8':2,3:0,1,2,1,2,3 $rt_g4 node_feat:'<f4':3,2:1,2,3,4,5,6
  rt_npz_bad feature-nan GNN_ERR_FORMAT "node_feat[3][0] is not finite" raw/data.npz edge_index:'<i8':2,3:0,1,2,1,2,3 $rt_g4 node_feat:'<f4':4,2:1,2,3,4,5,6,nan,8
  rt_npz_bad multi-task GNN_ERR_UNSUPPORTED "node_label has 2 columns: several tasks per vertex" raw/node-label.npz node_label:'<f8':4,2:0,1,1,0,0,0,1,1
  rt_npz_bad label-fraction GNN_ERR_FORMAT "node_label[1] = 0.5 is not a class" raw/node-label.npz node_label:'<f8':4,1:0,0.5,0,1
  rt_npz_bad label-count GNN_ERR_FORMAT "node_label holds 3 labels for a graph of 4 vertices" raw/node-label.npz node_label:'<i8':3:0,1,0
  # a shape whose size in bytes passes 2^64: said so (it read "shape and dtype make 48 bytes of
  # data, the member holds 48", the product wrapped to the member's size), for a product of the
  # dimensions that passes 2^63 too; never allocated
  rt_npz_bad shape-overflow GNN_ERR_FORMAT "member edge_index.npy: shape (2, 1152921504606846979) overflows: its elements of 8 bytes make more than 2^64 bytes of data (the member holds 48)" raw/data.npz edge_index:'<i8':2,1152921504606846979:0,1,2,1,2,3 $rt_g4
  rt_npz_bad shape-overflow-count GNN_ERR_FORMAT "member edge_index.npy: shape (4611686018427387904, 4) overflows" raw/data.npz edge_index:'<i8':4611686018427387904,4:0,1,2,1,2,3 $rt_g4
  rt_npz_bad label-shape-overflow GNN_ERR_FORMAT "member node_label.npy: shape (4, 2305843009213693953) overflows: its elements of 8 bytes make more than 2^64 bytes of data (the member holds 32)" raw/node-label.npz node_label:'<f8':4,2305843009213693953:0,1,0,1
  }
  # not an archive; cut short (its directory gone); one byte of stored data changed (the CRC)
  rt_npz_tiny "$og/npz-bad-text" && echo hello > "$og/npz-bad-text/raw/data.npz"
  rt_bad ogb-npz-not-zip GNN_ERR_FORMAT "npz-bad-text/raw/data.npz: error: not a zip archive" --dataset "$og/npz-bad-text"
  rt_npz_tiny "$og/npz-bad-cut" && f=$og/npz-bad-cut/raw/data.npz && head -c 300 "$f" > "$f.cut" && mv "$f.cut" "$f"
  rt_bad ogb-npz-truncated GNN_ERR_FORMAT "npz-bad-cut/raw/data.npz: error: not a zip archive (no end of central directory record" --dataset "$og/npz-bad-cut"
  rt_npz_tiny "$og/npz-bad-crc"
  "$PY" -c 'import sys, zipfile; p = sys.argv[1]; i = zipfile.ZipFile(p).getinfo("edge_index.npy"); d = bytearray(open(p, "rb").read())
o = i.header_offset; o += 30 + int.from_bytes(d[o + 26:o + 28], "little") + int.from_bytes(d[o + 28:o + 30], "little")
d[o + i.compress_size - 8] ^= 1; open(p, "wb").write(d)' "$og/npz-bad-crc/raw/data.npz"
  rt_bad ogb-npz-crc GNN_ERR_FORMAT "npz-bad-crc/raw/data.npz: error: member edge_index.npy: CRC-32 mismatch" --dataset "$og/npz-bad-crc"
  # deflated data with a byte changed: zlib's complaint, or the CRC's, for that member
  rt_npz_tiny "$og/npz-bad-deflate"
  "$PY" tests/runtime/make_npz.py "$og/npz-bad-deflate/raw/data.npz" --deflate edge_index:'<i8':2,3:0,1,2,1,2,3 \
    num_nodes_list:'<i8':1:4 num_edges_list:'<i8':1:3
  "$PY" -c 'import sys, zipfile; p = sys.argv[1]; i = zipfile.ZipFile(p).getinfo("edge_index.npy"); d = bytearray(open(p, "rb").read())
o = i.header_offset; o += 30 + int.from_bytes(d[o + 26:o + 28], "little") + int.from_bytes(d[o + 28:o + 30], "little")
d[o + i.compress_size // 2] ^= 0x55; open(p, "wb").write(d)' "$og/npz-bad-deflate/raw/data.npz"
  rt_bad ogb-npz-deflate GNN_ERR_FORMAT "npz-bad-deflate/raw/data.npz: error: member edge_index.npy: " --dataset "$og/npz-bad-deflate"
  unset -f rt_ogb_tiny rt_ogb_bad rt_npz_tiny rt_npz_bad

  # ---------------------------------------------------------------- cache
  "$rt_bin/rt_load" -s -d -n 5 "$rt_g/small.edges" --save-cache "$rt_tmp/small.gcsr" > /dev/null 2>&1
  rt_same runtime/cache/options-round-trip -s -d "$rt_tmp/small.gcsr" -- -s -d -n 5 "$rt_g/small.edges"
  rt_same runtime/cache/null-options --null-opts "$rt_tmp/small.gcsr" -- -s -d -n 5 "$rt_g/small.edges"
  if [ -z "$(find "$rt_tmp" -name '*.gcsr.*')" ]; then pass runtime/cache/no-temp-files; else fail runtime/cache/no-temp-files "$(find "$rt_tmp" -name '*.gcsr.*')"; fi
  rt_bad cache-options GNN_ERR_INVALID "small.gcsr: error: the cache was built with options (add_self_loops=1 remove_self_loops=0 dedup=1 symmetrise=0)" "$rt_tmp/small.gcsr"
  rt_bad cache-num-vertices GNN_ERR_INVALID "num_vertices 6 disagrees with the cache's 5 vertices" -s -d -n 6 "$rt_tmp/small.gcsr"
  c=$rt_tmp/cora.gcsr; size=$(stat -c %s "$c")
  head -c $((size - 4)) "$c" > "$rt_tmp/trunc.gcsr"
  rt_bad cache-truncated GNN_ERR_FORMAT "trunc.gcsr: error: truncated file: $((size - 4)) bytes, the header announces $size" "$rt_tmp/trunc.gcsr"
  head -c 40 "$c" > "$rt_tmp/short.gcsr"
  rt_bad cache-short-header GNN_ERR_FORMAT "short.gcsr: error: truncated file: 40 bytes, shorter than the 64-byte header" "$rt_tmp/short.gcsr"
  : > "$rt_tmp/empty.gcsr"
  rt_bad cache-empty GNN_ERR_FORMAT "empty.gcsr: error: truncated file: 0 bytes" "$rt_tmp/empty.gcsr"
  { cat "$c"; printf 'x'; } > "$rt_tmp/trailing.gcsr"
  rt_bad cache-trailing GNN_ERR_FORMAT "trailing.gcsr: error: trailing bytes: $((size + 1)) bytes, the header announces $size" "$rt_tmp/trailing.gcsr"
  { printf 'X'; tail -c +2 "$c"; } > "$rt_tmp/magic.gcsr"
  rt_bad cache-magic GNN_ERR_FORMAT "magic.gcsr: error: not a graph cache (bad magic" "$rt_tmp/magic.gcsr"
  # a cache under another name is read as an edge list: named for what it is, not "NUL byte"
  cp "$c" "$rt_tmp/cache.bin"
  rt_bad cache-not-named-gcsr GNN_ERR_FORMAT "cache.bin: error: this is a graph cache (binary, gnn_graph_save_cache), read by gnn_graph_load from a file named .gcsr, not a text file" "$rt_tmp/cache.bin"
  { head -c 8 "$c"; printf '\003'; tail -c +10 "$c"; } > "$rt_tmp/version.gcsr"
  rt_bad cache-version GNN_ERR_FORMAT "version.gcsr: error: cache version 3; this runtime reads versions 1 to 2" "$rt_tmp/version.gcsr"
  # version 1's sources field was reserved: not zero there, the header is damaged
  { head -c 56 "$c"; printf '\001'; tail -c +58 "$c"; } > "$rt_tmp/v1sources.gcsr"
  rt_bad cache-version-1-sources GNN_ERR_FORMAT "v1sources.gcsr: error: corrupted header (reserved fields are not zero" "$rt_tmp/v1sources.gcsr"
  { head -c 24 "$c"; printf '\377\377\377\377\377\377\377\177'; tail -c +33 "$c"; } > "$rt_tmp/nv.gcsr"
  rt_bad cache-huge-nv GNN_ERR_FORMAT "nv.gcsr: error: corrupted header" "$rt_tmp/nv.gcsr"
  # a flipped byte; then a broken CSR whose checksum was recomputed (the structure is checked too)
  "$PY" - "$c" "$rt_tmp" <<'PYEOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
flip = bytearray(data)
flip[len(flip) // 2] ^= 0xff
open(sys.argv[2] + '/flip.gcsr', 'wb').write(flip)
def checksum(body):
    h = 1469598103934665603
    for (w,) in struct.iter_unpack('<I', body):
        h = ((h ^ w) * 1099511628211) % (1 << 64)
    return h
csr = bytearray(data)
struct.pack_into('<q', csr, 64 + 8 * 5, 10 ** 6)  # in_ptr[5]: beyond ne
struct.pack_into('<Q', csr, 40, checksum(bytes(csr[64:])))
open(sys.argv[2] + '/csr.gcsr', 'wb').write(csr)
PYEOF
  rt_bad cache-checksum GNN_ERR_FORMAT "flip.gcsr: error: checksum mismatch: the cache is corrupted" "$rt_tmp/flip.gcsr"
  rt_bad cache-structure GNN_ERR_FORMAT "csr.gcsr: error: corrupted CSR (in_ptr decreases at vertex 5)" "$rt_tmp/csr.gcsr"
  rt_bad cache-missing GNN_ERR_IO "nope.gcsr: error: cannot open" "$rt_tmp/nope.gcsr"
  rt_bad cache-write-no-dir GNN_ERR_IO "$rt_tmp/no/dir/x.gcsr: error: cannot write" "$rt_g/small.edges" --save-cache "$rt_tmp/no/dir/x.gcsr"

  # ---------------------------------------------------------------- malformed files
  b=$rt_bad
  rt_bad edges-nonnumeric GNN_ERR_FORMAT "$b/nonnumeric.edges:3: error: destination vertex id 'abc' is not an integer" "$b/nonnumeric.edges"
  rt_bad edges-nonnumeric-src GNN_ERR_FORMAT "$b/nonnumeric-src.edges:1: error: source vertex id 'x' is not an integer" "$b/nonnumeric-src.edges"
  rt_bad edges-truncated GNN_ERR_FORMAT "$b/truncated.edges:2: error: missing destination vertex id (line ends early)" "$b/truncated.edges"
  rt_bad edges-negative GNN_ERR_FORMAT "$b/negative.edges:2: error: negative vertex id -3" "$b/negative.edges"
  rt_bad edges-extra-field GNN_ERR_FORMAT "$b/extra.edges:2: error: 1 value after 'src dst', the first edge line has 0" "$b/extra.edges"
  rt_bad edges-empty GNN_ERR_FORMAT "$b/empty.edges: error: empty graph (no edges and no vertex count)" "$b/empty.edges"
  rt_bad edges-id-2-31 GNN_ERR_FORMAT "$b/huge.edges:2: error: vertex id 2147483648 does not fit in 32 bits" "$b/huge.edges"
  # a 13-byte file whose one id makes 2^31 vertices: GNN_ERR_OOM before anything is allocated,
  # naming the vertex count and the bytes (an overcommitting kernel granted the 72 GiB of arrays and
  # killed the process filling them); ulimit -v gives every machine the same room (not under ASan)
  if [ -z "${RT_SANITIZED:-}" ]; then
    printf '0 2147483647\n' > "$rt_tmp/big-id.edges"
    out=$( (ulimit -v 4000000; OPENBLAS_NUM_THREADS=1 timeout 60 "$rt_bin/rt_load" "$rt_tmp/big-id.edges") 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -qF "error GNN_ERR_OOM: $rt_tmp/big-id.edges: error: a graph of 2147483648 vertices (the largest id + 1, or num_vertices) needs 77309411364 bytes (72.0 GiB) for its per-vertex arrays, more than the" <<< "$out"; then
      pass runtime/bad/edges-vertex-count-memory
    else fail runtime/bad/edges-vertex-count-memory "exit $rc: $(head -2 <<< "$out")"; fi
    # the same for a feature table sized by one large index (3 rows of 400,000,000 columns, 4.8 GB)
    mkdir -p "$rt_tmp/big-features" && printf '0 1\n1 2\n' > "$rt_tmp/big-features/graph.edges" &&
      printf '0 1:1\n0 1:1\n0 400000000:1\n' > "$rt_tmp/big-features/features.svm"
    out=$( (ulimit -v 4000000; OPENBLAS_NUM_THREADS=1 timeout 60 "$rt_bin/rt_load" --dataset "$rt_tmp/big-features") 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -qF "error GNN_ERR_OOM: $rt_tmp/big-features/features.svm: error: 3 x 400000000 features (the largest feature index sets the columns) need 4800000000 bytes (4.5 GiB), more than the" <<< "$out"; then
      pass runtime/bad/features-table-memory
    else fail runtime/bad/features-table-memory "exit $rc: $(head -2 <<< "$out")"; fi
  fi
  rt_bad edges-overflow GNN_ERR_FORMAT "$b/overflow.edges:2: error: destination vertex id is out of range" "$b/overflow.edges"
  rt_bad edges-float GNN_ERR_FORMAT "$b/float.edges:2: error: destination vertex id '1.5' is not an integer" "$b/float.edges"
  rt_bad edges-num-vertices GNN_ERR_FORMAT "$b/ok.edges:2: error: vertex id 2 out of range (the graph has 2 vertices)" -n 2 "$b/ok.edges"
  rt_bad edges-missing GNN_ERR_IO "$b/nope.edges: error: cannot open: No such file or directory" "$b/nope.edges"
  rt_bad edges-bad-num-vertices GNN_ERR_INVALID "num_vertices -4 out of range" -n -4 "$b/ok.edges"
  printf '0 1\n1\0002\n' > "$rt_tmp/nul.edges"
  rt_bad edges-nul-byte GNN_ERR_FORMAT "nul.edges:2: error: NUL byte in a text file" "$rt_tmp/nul.edges"
  # lines end with LF or CRLF, fields are separated by blanks: a vertical tab or form feed (which
  # once made the field counter loop forever) and a CR inside a line (a classic Mac file read as
  # one line, its other edges lost) are refused at their line, in every text format
  printf '0 1\v\n' > "$rt_tmp/vt.edges"
  rt_bad edges-vertical-tab GNN_ERR_FORMAT "vt.edges:1: error: a vertical tab in the line (fields are separated by spaces or tabs)" "$rt_tmp/vt.edges"
  printf '0 1\n1\f2\n' > "$rt_tmp/ff.edges"
  rt_bad edges-form-feed GNN_ERR_FORMAT "ff.edges:2: error: a form feed in the line" "$rt_tmp/ff.edges"
  printf '0 1 0.5\n1 2 \f\n' > "$rt_tmp/ff-value.edges"
  rt_bad edges-form-feed-value GNN_ERR_FORMAT "ff-value.edges:2: error: a form feed in the line" "$rt_tmp/ff-value.edges"
  printf '0 1\r5 6\n' > "$rt_tmp/cr.edges"
  rt_bad edges-bare-cr GNN_ERR_FORMAT "cr.edges:1: error: a carriage return inside the line (a file with classic Mac line ends?" "$rt_tmp/cr.edges"
  printf '# made on a Mac\r0 1\r1 2\r' > "$rt_tmp/mac.edges"
  rt_bad edges-mac-comment GNN_ERR_FORMAT "mac.edges:1: error: a carriage return inside the line" "$rt_tmp/mac.edges"
  printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\r2 3\n' > "$rt_tmp/cr.mtx"
  rt_bad mtx-bare-cr GNN_ERR_FORMAT "cr.mtx:3: error: a carriage return inside the line" "$rt_tmp/cr.mtx"
  mkdir -p "$rt_tmp/ds-cr" && printf '0 1\n1 2\n' > "$rt_tmp/ds-cr/graph.edges" && printf '0\n1\r1\n' > "$rt_tmp/ds-cr/labels.txt"
  rt_bad labels-bare-cr GNN_ERR_FORMAT "ds-cr/labels.txt:2: error: a carriage return inside the line" --dataset "$rt_tmp/ds-cr"
  # CRLF files load as their LF twins; a CR just before the end of the file ends the last line
  printf '# c\r\n0 1 0.5\r\n\r\n1 2 2\r\n' > "$rt_tmp/crlf.edges"; printf '# c\n0 1 0.5\n\n1 2 2\n' > "$rt_tmp/lf.edges"
  rt_same runtime/graph/crlf-edges "$rt_tmp/crlf.edges" -- "$rt_tmp/lf.edges"
  printf '0 1 0.5\n1 2 2\r' > "$rt_tmp/cr-eof.edges"
  rt_same runtime/graph/cr-at-end-of-file "$rt_tmp/cr-eof.edges" -- "$rt_tmp/lf.edges"
  mkdir -p "$rt_tmp/ds-crlf" && printf '0 1\r\n1 2\r\n' > "$rt_tmp/ds-crlf/graph.edges" && printf '0\r\n1\r\n1\r\n' > "$rt_tmp/ds-crlf/labels.txt"
  mkdir -p "$rt_tmp/ds-lf" && printf '0 1\n1 2\n' > "$rt_tmp/ds-lf/graph.edges" && printf '0\n1\n1\n' > "$rt_tmp/ds-lf/labels.txt"
  rt_same runtime/graph/crlf-dataset --dataset "$rt_tmp/ds-crlf" -- --dataset "$rt_tmp/ds-lf"
  rt_bad mtx-banner GNN_ERR_FORMAT "$b/banner.mtx:1: error: malformed Matrix Market header" "$b/banner.mtx"
  rt_bad mtx-no-banner GNN_ERR_FORMAT "$b/nobanner.mtx:1: error: not a Matrix Market file" "$b/nobanner.mtx"
  rt_bad mtx-array GNN_ERR_UNSUPPORTED "$b/array.mtx:1: error: Matrix Market format 'array' is not supported" "$b/array.mtx"
  rt_bad mtx-complex GNN_ERR_UNSUPPORTED "$b/complex.mtx:1: error: Matrix Market field 'complex' is not supported" "$b/complex.mtx"
  rt_bad mtx-skew GNN_ERR_UNSUPPORTED "$b/skew.mtx:1: error: Matrix Market symmetry 'skew-symmetric' is not supported" "$b/skew.mtx"
  rt_bad mtx-bad-symmetry GNN_ERR_FORMAT "$b/symmetry.mtx:1: error: Matrix Market symmetry 'diagonal' is not supported" "$b/symmetry.mtx"
  rt_bad mtx-not-square GNN_ERR_FORMAT "$b/nonsquare.mtx:2: error: a 3 x 4 matrix with 1 entries is not an adjacency matrix" "$b/nonsquare.mtx"
  rt_bad mtx-truncated GNN_ERR_FORMAT "$b/short.mtx:4: error: the file ends after 2 of the 3 entries the size line announces" "$b/short.mtx"
  rt_bad mtx-too-many GNN_ERR_FORMAT "$b/long.mtx:4: error: more entries than the 1 the size line announces" "$b/long.mtx"
  rt_bad mtx-range GNN_ERR_FORMAT "$b/range.mtx:4: error: entry (4, 1) out of range for a 3 x 3 matrix" "$b/range.mtx"
  rt_bad mtx-zero-index GNN_ERR_FORMAT "$b/zero-index.mtx:3: error: entry (0, 1) out of range for a 3 x 3 matrix (indices are 1-based)" "$b/zero-index.mtx"
  rt_bad mtx-value GNN_ERR_FORMAT "$b/value.mtx:3: error: value 'abc' is not a number" "$b/value.mtx"
  rt_bad mtx-no-value GNN_ERR_FORMAT "$b/novalue.mtx:3: error: missing value (line ends early)" "$b/novalue.mtx"
  rt_bad mtx-integer-value GNN_ERR_FORMAT "$b/intvalue.mtx:3: error: integer value '1.5' is not an integer" "$b/intvalue.mtx"
  rt_bad cache-batch GNN_ERR_UNSUPPORTED "batch.gcsr: error: the .gcsr cache holds one graph, not a batch of 5" tests/interp/graphs/batch --save-cache "$rt_tmp/batch.gcsr"
  rt_bad gi-decreasing GNN_ERR_FORMAT "gi-decreasing/graph_indicator.txt:5: error: graph id 0 after 1: the ids start at 0" tests/graph/gi-decreasing
  rt_bad gi-gap GNN_ERR_FORMAT "gi-gap/graph_indicator.txt:4: error: graph id 2 after 0" tests/graph/gi-gap
  rt_bad gi-start GNN_ERR_FORMAT "gi-start/graph_indicator.txt:2: error: the first graph id is 1: the ids start at 0" tests/graph/gi-start
  rt_bad gi-count GNN_ERR_FORMAT "gi-count/graph_indicator.txt: error: 3 graph ids for a graph of 4 vertices" tests/graph/gi-count
  rt_bad gi-count-dataset GNN_ERR_FORMAT "gi-count/graph_indicator.txt: error: 3 graph ids for a graph of 4 vertices" --dataset tests/graph/gi-count
  # an edge between two graphs of a batch, at its line, in both loaders (and gnnc run's: graph/gi-cross)
  rt_bad gi-cross GNN_ERR_FORMAT "gi-cross/graph.edges:4: error: the edge 1 -> 2 joins two graphs: vertex 1 is in graph 0, vertex 2 in graph 1 (graph_indicator.txt); the graphs of a batch share no edges" tests/graph/gi-cross
  rt_bad gi-cross-dataset GNN_ERR_FORMAT "gi-cross/graph.edges:4: error: the edge 1 -> 2 joins two graphs" --dataset tests/graph/gi-cross
  rt_bad mtx-value-inf GNN_ERR_FORMAT "$b/values-inf.mtx:3: error: value '1e39' is not finite in float32 (its largest magnitude is 3.4e38)" "$b/values-inf.mtx"
  rt_bad edges-value-text GNN_ERR_FORMAT "$b/values-text.edges:2: error: edge value 1 'abc' is not a number" "$b/values-text.edges"
  rt_bad edges-value-inf GNN_ERR_FORMAT "$b/values-inf.edges:2: error: edge value 1 '1e39' is not finite in float32 (its largest magnitude is 3.4e38)" "$b/values-inf.edges"
  rt_bad edges-value-nan GNN_ERR_FORMAT "$b/values-nan.edges:2: error: edge value 1 'nan' is not finite in float32" "$b/values-nan.edges"
  rt_bad edges-values-fewer GNN_ERR_FORMAT "$b/values-fewer.edges:2: error: 1 value after 'src dst', the first edge line has 2" "$b/values-fewer.edges"
  rt_bad cache-edge-values GNN_ERR_UNSUPPORTED "values.gcsr: error: the .gcsr cache holds the graph's structure, not the 2 values of each edge" "$rt_g/values.edges" --save-cache "$rt_tmp/values.gcsr"
  rt_bad mtx-pattern-extra GNN_ERR_FORMAT "$b/pattern-extra.mtx:3: error: expected 2 fields, found more" "$b/pattern-extra.mtx"
  rt_bad mtx-no-size GNN_ERR_FORMAT "$b/nosize.mtx:3: error: the size line 'ROWS COLS ENTRIES' is missing" "$b/nosize.mtx"
  rt_bad mtx-empty GNN_ERR_FORMAT "$b/empty.mtx:2: error: empty graph (a 0 x 0 matrix)" "$b/empty.mtx"
  rt_bad mtx-too-large GNN_ERR_FORMAT "$b/toolarge.mtx:2: error: 3000000000 vertices do not fit 32-bit ids" "$b/toolarge.mtx"
  rt_bad mtx-num-vertices GNN_ERR_INVALID "$rt_g/small.mtx: error: num_vertices 7 disagrees with the matrix's 5 rows" -n 7 "$rt_g/small.mtx"
  rt_bad ds-feature-value GNN_ERR_FORMAT "$b/ds-badfeat/features.svm:2: error: feature value 'x' for index 2 is not a number" --dataset "$b/ds-badfeat"
  rt_bad ds-feature-nan GNN_ERR_FORMAT "$b/ds-nanfeat/features.svm:2: error: feature value 'nan' for index 1 is not finite in float32" --dataset "$b/ds-nanfeat"
  rt_bad ds-feature-inf GNN_ERR_FORMAT "$b/ds-inffeat/features.svm:2: error: feature value '-inf' for index 1 is not finite in float32" --dataset "$b/ds-inffeat"
  rt_bad ds-feature-float32 GNN_ERR_FORMAT "$b/ds-bigfeat/features.svm:1: error: feature value '1e39' for index 1 is not finite in float32 (its largest magnitude is 3.4e38)" --dataset "$b/ds-bigfeat"
  rt_bad ds-feature-index-0 GNN_ERR_FORMAT "$b/ds-zeroidx/features.svm:1: error: feature index 0 out of range (indices are 1-based)" --dataset "$b/ds-zeroidx"
  rt_bad ds-feature-order GNN_ERR_FORMAT "$b/ds-unsorted/features.svm:1: error: feature index 2 after 3 (indices must ascend)" --dataset "$b/ds-unsorted"
  rt_bad ds-feature-no-label GNN_ERR_FORMAT "$b/ds-nolabel/features.svm:1: error: missing label (a LIBSVM line starts with one)" --dataset "$b/ds-nolabel"
  rt_bad ds-feature-no-colon GNN_ERR_FORMAT "$b/ds-colon/features.svm:1: error: expected 'index:value' after feature index 2" --dataset "$b/ds-colon"
  # labels.txt and features.svm that disagree: the shorter named first, both counts, the other's line past it
  rt_bad ds-feature-more-rows GNN_ERR_FORMAT "$b/ds-morerows/labels.txt: error: 2 labels, but features.svm has 3 rows (both have one per vertex): labels.txt is 1 line short, or features.svm has 1 row too many (from its line 3)" --dataset "$b/ds-morerows"
  rt_bad ds-feature-fewer-rows GNN_ERR_FORMAT "$b/ds-fewrows/features.svm: error: 1 feature row, but labels.txt has 2 labels (both have one per vertex): features.svm is 1 row short, or labels.txt has 1 label too many (from its line 2)" --dataset "$b/ds-fewrows"
  rt_bad ds-feature-more-rows-given-count GNN_ERR_FORMAT "$b/ds-morerows/features.svm:3: error: more feature rows than the graph's 2 vertices" --dataset -n 2 "$b/ds-morerows"
  rt_bad ds-label-negative GNN_ERR_FORMAT "$b/ds-badlabel/labels.txt:3: error: label -2 is negative (-1 marks an unknown label)" --dataset "$b/ds-badlabel"
  rt_bad ds-label-text GNN_ERR_FORMAT "$b/ds-textlabel/labels.txt:2: error: label 'cat' is not an integer" --dataset "$b/ds-textlabel"
  rt_bad ds-label-count GNN_ERR_FORMAT "$b/ds-outofrange/labels.txt: error: 3 labels for a graph of 5 vertices" --dataset -n 5 "$b/ds-outofrange"
  rt_bad ds-edge-out-of-range GNN_ERR_FORMAT "$b/ds-outofrange/graph.edges:2: error: vertex id 7 out of range (the graph has 3 vertices)" --dataset "$b/ds-outofrange"
  rt_bad dir-edge-out-of-range GNN_ERR_FORMAT "$b/ds-outofrange/graph.edges:2: error: vertex id 7 out of range (the graph has 3 vertices)" "$b/ds-outofrange"
  rt_bad ds-split-range GNN_ERR_FORMAT "$b/ds-split-range/train.idx:2: error: vertex id 5 out of range (the graph has 3 vertices)" --dataset "$b/ds-split-range"
  rt_bad ds-split-repeat GNN_ERR_FORMAT "$b/ds-split-dup/val.idx:2: error: vertex 2 is listed twice" --dataset "$b/ds-split-dup"
  rt_bad ds-split-negative GNN_ERR_FORMAT "$b/ds-split-neg/test.idx:2: error: vertex id -1 out of range (the graph has 3 vertices)" --dataset "$b/ds-split-neg"
  # a vertex in two splits (training on test vertices went unnoticed): the later file's line, both files
  rt_bad ds-split-overlap-test GNN_ERR_FORMAT "$b/ds-split-overlap-test/test.idx:2: error: vertex 1 is also in train.idx: the train, validation and test splits must be disjoint" --dataset "$b/ds-split-overlap-test"
  rt_bad ds-split-overlap-val GNN_ERR_FORMAT "$b/ds-split-overlap-val/val.idx:2: error: vertex 0 is also in train.idx" --dataset "$b/ds-split-overlap-val"
  rt_bad ds-split-overlap-val-test GNN_ERR_FORMAT "$b/ds-split-overlap-val-test/test.idx:2: error: vertex 1 is also in val.idx" --dataset "$b/ds-split-overlap-val-test"
  rt_bad ds-no-graph GNN_ERR_IO "$b/ds-noedges: error: no graph.edges in this folder" --dataset "$b/ds-noedges"
  rt_bad dir-no-graph GNN_ERR_IO "$b/ds-noedges: error: no graph.edges in this folder" "$b/ds-noedges"
  rt_bad ds-not-a-folder GNN_ERR_IO "$b/ok.edges: error: not a folder" --dataset "$b/ok.edges"
  rt_bad features-count GNN_ERR_FORMAT "$b/ds-fewrows/features.svm: error: 1 feature rows for a graph of 2 vertices" --features 2 "$b/ds-fewrows/features.svm"
  rt_bad labels-count GNN_ERR_FORMAT "$b/ds-outofrange/labels.txt:4: error: more labels than the graph's 2 vertices" --labels 2 "$b/ds-outofrange/labels.txt"
  # gnn_text_line: the line of a data row, comment lines not counted (cora's labels.txt opens with one)
  out=$("$rt_bin/rt_load" --line 1000 data/cora/labels.txt 2>&1)
  if [ "$out" = "line 1002" ]; then pass runtime/text-line/row; else fail runtime/text-line/row "$out"; fi
  rt_bad text-line-past-end GNN_ERR_INVALID "data/cora/labels.txt: error: no row 2708: the file has 2708 rows" --line 2708 data/cora/labels.txt
  rt_bad split-range GNN_ERR_FORMAT "data/cora/test.idx:1: error: vertex id 1708 out of range (the graph has 100 vertices)" --split 100 data/cora/test.idx
  rt_bad tensors-header GNN_ERR_FORMAT "$b/t-header.txt:1: error: malformed tensor header (want 'tensor NAME 1 RANK dims...')" --tensors "$b/t-header.txt"
  rt_bad tensors-short GNN_ERR_FORMAT "$b/t-short.txt:3: error: tensor 'W': value 3 of 6 is missing (the file ends)" --tensors "$b/t-short.txt"
  rt_bad tensors-nan GNN_ERR_FORMAT "$b/t-nan.txt:2: error: tensor 'W': value 2 'nan' is not a finite float32 number" --tensors "$b/t-nan.txt"
  rt_bad tensors-float32 GNN_ERR_FORMAT "$b/t-big.txt:2: error: tensor 'W': value 2 '1e39' is not a finite float32 number" --tensors "$b/t-big.txt"
  rt_bad tensors-repeated GNN_ERR_FORMAT "$b/t-dup.txt:3: error: tensor 'W' appears twice (first at line 1)" --tensors "$b/t-dup.txt"
  rt_bad tensors-rows GNN_ERR_FORMAT "$b/t-rows.txt:1: error: malformed tensor header" --tensors "$b/t-rows.txt"
  rt_bad tensors-rank GNN_ERR_FORMAT "$b/t-rank.txt:1: error: malformed tensor header" --tensors "$b/t-rank.txt"
  rt_bad tensors-dims GNN_ERR_FORMAT "$b/t-dims.txt:1: error: tensor 'W': malformed dims" --tensors "$b/t-dims.txt"
  rt_bad tensors-missing GNN_ERR_IO "$b/t-nope.txt: error: cannot open" --tensors "$b/t-nope.txt"
  out=$("$rt_bin/rt_load" --tensors "$b/t-ok.txt" 2>&1)
  if [ "$out" = "$(printf 'W rank 2 dims 2 2 0 0\nb rank 1 dims 2 0 0 0')" ]; then pass runtime/bad/tensors-ok; else fail runtime/bad/tensors-ok "$out"; fi

  # ---------------------------------------------------------------- the loaders' layers
  # Each loader's object file calls only files of lower layers (docs/runtime.md, "How the loaders
  # are layered"): 5 load, 4 dataset ogb, 3 edgelist cache tables npz, 2 graph, 1 the rest (text, core,
  # the device files). A name a file uses is looked up in the objects that define it (nm).
  rt_o=build/rt-host
  if [ ! -f "$rt_o/load.o" ]; then fail runtime/layers "$rt_o/load.o is missing (make runtime-host)"
  else
    rt_layer() { case $1 in load) echo 5 ;; dataset | ogb) echo 4 ;; edgelist | cache | tables | npz) echo 3 ;; graph) echo 2 ;; *) echo 1 ;; esac; }
    for f in "$rt_o"/*.o; do n=$(basename "$f" .o); nm -g --defined-only "$f" | awk -v n="$n" 'NF == 3 { print $3, n }'; done > "$rt_tmp/defs"
    rt_bad_calls=""
    for n in load dataset ogb edgelist cache tables npz graph; do
      for s in $(nm -u "$rt_o/$n.o" | awk '{ print $2 }'); do
        d=$(awk -v s="$s" '$1 == s { print $2; exit }' "$rt_tmp/defs")
        [ -n "$d" ] && [ "$d" != "$n" ] && [ "$(rt_layer "$d")" -ge "$(rt_layer "$n")" ] && rt_bad_calls+="$n.c -> $d.c ($s); "
      done
    done
    if [ -z "$rt_bad_calls" ]; then pass runtime/layers; else fail runtime/layers "calls up or across: $rt_bad_calls"; fi
    unset -f rt_layer
  fi

  # ---------------------------------------------------------------- valgrind
  if [ -z "${RT_SANITIZED:-}" ]; then
    if command -v valgrind > /dev/null; then
      vg=(valgrind -q --error-exitcode=1 --leak-check=full --suppressions=tests/runtime/valgrind.supp)
      if out=$("${vg[@]}" "$rt_bin/t_api" 2>&1); then pass runtime/valgrind/t_api
      else fail runtime/valgrind/t_api "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
      if out=$("${vg[@]}" "$rt_bin/t_api" --params "$rt_tmp/gcn.params" glorot 1 2>&1); then pass runtime/valgrind/t_api-params
      else fail runtime/valgrind/t_api-params "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
      if out=$("${vg[@]}" "$rt_bin/t_csr" 2>&1); then pass runtime/valgrind/t_csr
      else fail runtime/valgrind/t_csr "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
      if out=$("${vg[@]}" "$rt_bin/t_sample" 2>&1); then pass runtime/valgrind/t_sample
      else fail runtime/valgrind/t_sample "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
      if out=$(OMP_NUM_THREADS=1 "${vg[@]}" "$rt_bin/t_setgraph" 2>&1); then pass runtime/valgrind/t_setgraph
      else fail runtime/valgrind/t_setgraph "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
      if out=$(OMP_NUM_THREADS=1 "${vg[@]}" "$rt_bin/t_busy" 2>&1); then pass runtime/valgrind/t_busy
      else fail runtime/valgrind/t_busy "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
      # every malformed file above, the good loads and a cache write, in one process
      { cat "$rt_tmp/cmds"; echo "--dataset data/cora"; echo "-r -d -y -s -n 5 $rt_g/small.edges"; echo "$rt_g/sym.mtx"
        echo "data/cora --save-cache $rt_tmp/vg.gcsr"; echo "$rt_tmp/vg.gcsr"; echo "--tensors $rt_tmp/gcn.params"
        echo "--dataset $rt_tmp/ogb/cora"; echo "--dataset $rt_tmp/ogb/cora-plain"; echo "-y -d $rt_tmp/ogb/cora-plain"; } > "$rt_tmp/vg.cmds"
      if out=$("${vg[@]}" "$rt_bin/rt_load" "@$rt_tmp/vg.cmds" 2>&1) && [ "$(grep -c '^== ' <<< "$out")" -eq "$(wc -l < "$rt_tmp/vg.cmds")" ]; then
        pass runtime/valgrind/loaders-and-errors
      else fail runtime/valgrind/loaders-and-errors "$(grep -m3 -E '==[0-9]+==|invariant' <<< "$out" | tr '\n' ' ')"; fi
    else
      fail runtime/valgrind "valgrind is not installed (make setup installs it)"
    fi
  fi
fi

# ---------------------------------------------------------------- the CUDA build
if [ -z "${RT_SANITIZED:-}" ]; then
  if ! command -v "${NVCC:-/usr/local/cuda/bin/nvcc}" > /dev/null; then
    fail runtime/cuda/nvcc "no nvcc (the CUDA toolkit is required to build libgnnrt)"
  else
    # warning-free: the whole runtime and its tests with -Werror (nvcc included) with gcc, and
    # the C parts of both builds with clang
    for cc in gcc clang; do
      target=runtime-tests want=lib/libgnnrt.so
      [ $cc = clang ] && target=runtime-cobjs want=rt-cuda/nvrtc.o
      if make -s -j2 BUILD="$rt_tmp/werror-$cc" CC=$cc CFLAGS="-O1 -Werror" NVCC_WERROR="-Werror all-warnings -Xcompiler -Werror" \
          $target > "$rt_tmp/werror-$cc.log" 2>&1 && [ -f "$rt_tmp/werror-$cc/$want" ]; then
        pass "runtime/cuda/build-werror-$cc"
      else fail "runtime/cuda/build-werror-$cc" "$(grep -m3 -E 'warning|error' "$rt_tmp/werror-$cc.log" | tr '\n' ' ')"; fi
    done
    for lib in libgnnrt.so libgnnrt_host.so; do
      extra=$(nm -D --defined-only "build/lib/$lib" 2> /dev/null | awk '$3 !~ /^gnn_/ { print $3 }' | tr '\n' ' ')
      if [ -f "build/lib/$lib" ] && [ -z "$extra" ]; then pass "runtime/cuda/exports-$lib"; else fail "runtime/cuda/exports-$lib" "exports $extra"; fi
    done
    if ldd build/lib/libgnnrt.so | grep -q 'libcuda\.so'; then fail runtime/cuda/no-libcuda "libgnnrt.so links libcuda"
    else pass runtime/cuda/no-libcuda; fi
    # the header is C++-clean (extern "C", GNNRT_CUDA accessors)
    printf '#include "gnnrt.h"\nint main() { gnn_ctx *c = nullptr; return gnn_ctx_stream(c) != nullptr; }\n' > "$rt_tmp/hdr.cpp"
    if g++ -std=c++17 -Wall -Wextra -Werror -DGNNRT_CUDA -Iruntime -I/usr/local/cuda/include -c -o "$rt_tmp/hdr.o" "$rt_tmp/hdr.cpp" 2> "$rt_tmp/hdr.log"
    then pass runtime/cuda/header-cxx; else fail runtime/cuda/header-cxx "$(head -3 "$rt_tmp/hdr.log" | tr '\n' ' ')"; fi
    if [ -x "$rt_cuda_bin/t_nvrtc" ]; then
      gpu=--no-gpu
      command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q '^GPU' && gpu=--gpu
      out=$("$rt_cuda_bin/t_nvrtc" $gpu 2>&1); report_lines runtime/cuda $? "$out"
      out=$("$rt_cuda_bin/t_api_cuda" 2>&1); rc=$?
      if [ $rc -eq 77 ] && [ $gpu = --no-gpu ]; then
        echo "note: runtime/cuda/api not run: no GPU ($(head -1 <<< "$out"))"
      else report_lines runtime/cuda/api $rc "$out"; fi
      # the mini-batch rebinding against the CUDA models (make gpu-check runs it too)
      if [ -x "$rt_cuda_bin/t_setgraph_cuda" ]; then
        out=$("$rt_cuda_bin/t_setgraph_cuda" 2>&1); rc=$?
        if [ $rc -eq 77 ] && [ $gpu = --no-gpu ] && grep -q '^no context: GNN_ERR_CUDA: ' <<< "$out"; then
          echo "note: runtime/cuda/setgraph not run: no GPU ($(head -1 <<< "$out"))"
        else report_lines runtime/cuda/setgraph $rc "$out"; fi
      else fail runtime/cuda/setgraph "$rt_cuda_bin/t_setgraph_cuda is missing (make runtime-tests builds it where nvcc is)"; fi
      # a graph from a CSR already on the GPU (gnn_graph_from_csr; make gpu-check runs it too)
      if [ -x "$rt_cuda_bin/t_csr_cuda" ]; then
        out=$("$rt_cuda_bin/t_csr_cuda" 2>&1); rc=$?
        if [ $rc -eq 77 ] && [ $gpu = --no-gpu ] && grep -q '^no context: GNN_ERR_CUDA: ' <<< "$out"; then
          echo "note: runtime/cuda/csr not run: no GPU ($(head -1 <<< "$out"))"
        else report_lines runtime/cuda/csr $rc "$out"; fi
      else fail runtime/cuda/csr "$rt_cuda_bin/t_csr_cuda is missing (make runtime-tests builds it where nvcc is)"; fi
    else fail runtime/cuda/t_nvrtc "$rt_cuda_bin/t_nvrtc is missing (make runtime-tests builds it)"; fi
  fi

  # ---------------------------------------------------------------- install and pkg-config
  prefix=$rt_tmp/prefix
  if make -s install-runtime PREFIX="$prefix" > "$rt_tmp/install.log" 2>&1 &&
     [ -f "$prefix/include/gnnrt.h" ] && [ -f "$prefix/include/gnnrt_rng.h" ] && [ -f "$prefix/lib/libgnnrt_host.so" ] &&
     [ -f "$prefix/lib/libgnnrt_host.a" ] && [ -f "$prefix/lib/libgnnrt.so" ]; then pass runtime/install/files
  else fail runtime/install/files "$(tail -3 "$rt_tmp/install.log" | tr '\n' ' ')"; fi
  printf '#include <gnnrt.h>\n#include <stdio.h>\nint main(void) { gnn_ctx *c; gnn_status s = gnn_ctx_create(&c, 0);\n  printf("%%s %%d\\n", gnn_status_name(s), gnn_ctx_is_cuda(c)); gnn_ctx_destroy(c); return 0; }\n' > "$rt_tmp/use.c"
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  # shellcheck disable=SC2046
  if cc -std=c11 -Wall -Werror -o "$rt_tmp/use_host" "$rt_tmp/use.c" $(pkg-config --cflags --libs gnnrt_host) -Wl,-rpath,"$prefix/lib" 2> "$rt_tmp/use.log" &&
     [ "$("$rt_tmp/use_host")" = "GNN_OK 0" ]; then pass runtime/install/pkg-config-host
  else fail runtime/install/pkg-config-host "$(head -3 "$rt_tmp/use.log" | tr '\n' ' ')"; fi
  # shellcheck disable=SC2046
  if cc -std=c11 -Wall -Werror -o "$rt_tmp/use_cuda" "$rt_tmp/use.c" $(pkg-config --cflags --libs gnnrt) -Wl,-rpath,"$prefix/lib" 2> "$rt_tmp/use.log" &&
     out=$("$rt_tmp/use_cuda") && { [ "$out" = "GNN_ERR_CUDA 1" ] || [ "$out" = "GNN_OK 1" ]; }; then pass runtime/install/pkg-config-cuda
  else fail runtime/install/pkg-config-cuda "${out:-} $(head -3 "$rt_tmp/use.log" | tr '\n' ' ')"; fi
  unset PKG_CONFIG_PATH
fi
