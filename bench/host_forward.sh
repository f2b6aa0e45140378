#!/usr/bin/env bash
# bench/host_forward.sh [GNNC] -- issue 3: forward speed of the host target on PubMed.
#
# 2-layer GAT (bench/gat_pubmed.gnn) and 2-layer GCN (bench/gcn_pubmed.gnn) on PubMed
# (19,717 vertices, 88,651 edges; 500 generated input features: the shared copy has none),
# compiled inference-only for the host target with each thread mapping, and run with gnn-run
# at each thread count. Per row: gnn-run's median time per forward, its memory plan and peak
# allocated bytes, the cost model's FLOPs and bytes at PubMed's V and E (gnnc --stats, after
# the last pass, -fno-autodiff), and FLOPs/time, bytes/time. Writes bench/results/host_forward.txt.
#
# Environment: REPEAT (timed forwards, default 20), WARMUP (default 3), BENCH_THREADS (thread
# counts, default "1 2"; bench/bench_lib.sh says what each sets), GNN_RUN (build/bin/gnn-run),
# PUBMED (data/pubmed).
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
GNNC=${1:-build/gnnc}
RUN=${GNN_RUN:-build/bin/gnn-run}
REPEAT=${REPEAT:-20}
WARMUP=${WARMUP:-3}
THREADS=${BENCH_THREADS:-1 2}
GRAPH=${PUBMED:-data/pubmed}
out=bench/results/host_forward.txt
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t_start=$(date +%s)
{
  bench_header "host_forward: 2-layer GAT and GCN forward on PubMed, host target (bench/host_forward.sh)"
  echo "# per row: gnnc MODEL --target=host -fno-autodiff --mapping=M -o lib.so"
  echo "#          gnn-run lib.so --graph $GRAPH --repeat $REPEAT --warmup $WARMUP   (inputs: 500 seeded features, seed 1)"
  for n in $THREADS; do echo "# threads $n: $(thread_env "$n")"; done
  echo "# ms: median time per forward (fastest in brackets); plan: the model's memory plan; peak: gnn-run's peak"
  echo "# allocated (plan + graph + inputs); GFLOP, GB: cost model (unfused, docs/ir.md), the same for both mappings;"
  echo "# GFLOP/s = GFLOP / median time, GB/s = GB / median time."
  echo
  printf '%-10s %-7s %3s %9s %9s %9s %9s %8s %8s %8s %7s\n' \
    model mapping thr "ms" "(fastest)" "plan MiB" "peak MiB" GFLOP GB GFLOP/s GB/s
  for m in gat gcn; do
    src=bench/${m}_pubmed.gnn
    for map in vertex edge; do
      lib=$tmp/lib${m}-$map.so
      "$GNNC" "$src" --target=host -fno-autodiff --mapping=$map -o "$lib" 2> "$tmp/cc.err" || {
        echo "FAILED: $GNNC $src --target=host -fno-autodiff --mapping=$map -o $lib"
        cat "$tmp/cc.err"
        continue
      }
      sed 's/^/# gnnc: /' "$tmp/cc.err" >> "$tmp/notes"
      for n in $THREADS; do
        # shellcheck disable=SC2046 # the assignments are words
        if ! env $(thread_env "$n") "$RUN" "$lib" --graph "$GRAPH" --repeat "$REPEAT" --warmup "$WARMUP" > "$tmp/run.txt" 2>&1; then
          echo "FAILED: $(thread_env "$n") $RUN $lib --graph $GRAPH --repeat $REPEAT --warmup $WARMUP"
          cat "$tmp/run.txt"
          continue
        fi
        gnn_run_parse "$tmp/run.txt"
        cost_model "$GNNC" "$src" "$R_V" "$R_E"
        awk -v m="$m" -v map="$map" -v n="$n" -v ms="$R_MS" -v fast="$R_FAST" -v plan="$R_PLAN" -v peak="$R_PEAK" \
          -v fl="$C_FLOPS" -v by="$C_BYTES" 'BEGIN {
            printf "%-10s %-7s %3d %9.2f %9s %9.2f %9.2f %8.3f %8.3f %8.2f %7.2f\n", m, map, n, ms, "(" sprintf("%.2f", fast) ")",
              plan, peak, fl / 1e9, by / 1e9, fl / 1e9 / (ms / 1e3), by / 1e9 / (ms / 1e3) }'
      done
    done
  done
  echo
  [ -s "$tmp/notes" ] && sort -u "$tmp/notes"
  echo "# PubMed as loaded: $R_V vertices, $R_E edges. Run time of this script: $(($(date +%s) - t_start)) s."
} | tee "$out"
