#!/usr/bin/env bash
# bench/minibatch.sh [GNNC] -- issue 30 item 4: mini-batch GraphSAGE, gnnc's layer vs PyG's SAGEConv
# on the same sampled batches (python/examples/minibatch_sage.py says how the batches are made).
#
# Steps: --check (one batch, gnnc's parameters copied into PyG's SAGEConvs: the outputs must agree
# to 1e-4 relative, else the benchmark stops), then one training run per side, each in its own
# process (so that each process's peak RSS is its own), the same graph, sampler seed, batches,
# threads and epochs. Writes bench/results/minibatch-DATE.md: the table (epoch time, sampling
# apart from compute, peak memory, test accuracy) and each side's raw JSON line.
#
# Environment (defaults in brackets):
#   MB_PYTHON   a python with torch and torch_geometric [build/peers-venv/bin/python, else
#               build/peers-venv-debian/bin/python (bench/peers_env.sh makes both)]
#   MB_GRAPH    gen:N,E (a planted partition) or an ogbn-products .npy directory [gen:2000000,50000000]
#   MB_BATCHES  at most this many batches per epoch, 0 = all [0]      MB_EPOCHS [1]
#   MB_THREADS  torch's and gnnc's threads [1]    MB_EVAL  test vertices for the accuracy [20000]
#   MB_ARGS     more arguments for the example (--hidden, --lr, --batch, --fanout, ...) []
#   MB_OUT      the results file [bench/results/minibatch-DATE.md]
set -eu -o pipefail
cd "$(dirname "$0")/.."
GNNC=${1:-build/gnnc}
PY=${MB_PYTHON:-build/peers-venv/bin/python}
"$PY" -c 'import torch, torch_geometric' 2> /dev/null || PY=build/peers-venv-debian/bin/python
"$PY" -c 'import torch, torch_geometric' 2> /dev/null || { echo "minibatch.sh: no python with torch and torch_geometric (bench/peers_env.sh)" >&2; exit 1; }
GRAPH=${MB_GRAPH:-gen:2000000,50000000}
OUT=${MB_OUT:-bench/results/minibatch-$(date -u +%Y-%m-%d).md}
args=(--graph "$GRAPH" --batches "${MB_BATCHES:-0}" --epochs "${MB_EPOCHS:-1}" --threads "${MB_THREADS:-1}"
      --eval "${MB_EVAL:-20000}" --gnnc "$GNNC" ${MB_ARGS:-})
ex=python/examples/minibatch_sage.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "minibatch.sh: check on one batch ($GRAPH)" >&2
PYTHONPATH=python "$PY" -W ignore "$ex" --check "${args[@]}" | tee "$tmp/check"
for side in gnnc pyg; do
  echo "minibatch.sh: training, $side" >&2
  PYTHONPATH=python "$PY" -W ignore "$ex" --side "$side" "${args[@]}" | tail -n 1 > "$tmp/$side"
  cat "$tmp/$side" >&2
done

mkdir -p "$(dirname "$OUT")"
"$PY" - "$tmp/check" "$tmp/gnnc" "$tmp/pyg" "$OUT" "$(git rev-parse --short HEAD)" "$GRAPH" <<'EOF'
import json, os, platform, sys
check, g, p = (json.load(open(f)) for f in sys.argv[1:4])
out, commit, graph = sys.argv[4:7]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
mib = lambda b: "%.0f MiB" % (b / 2**20)
full = g["batches_run"] >= g["batches_per_epoch"] * g["epochs"]
rows = [("epoch time (sampling + compute)", lambda r: "%.1f s" % r["epoch_s"]),
        ("  sampling (sampler + feature gather)", lambda r: "%.1f s" % r["sample_s"]),
        ("  compute (forward, loss, backward, Adam)", lambda r: "%.1f s" % r["compute_s"]),
        ("compute per batch", lambda r: "%.0f ms" % (1e3 * r["compute_s"] / r["batches_run"])),
        ("peak RSS, training and evaluation", lambda r: mib(r["peak_rss"])),
        ("  above the RSS after loading the graph", lambda r: mib(r["peak_rss"] - r["rss_loaded"])),
        ("peak RSS with the graph's loading (the whole run)", lambda r: mib(r["peak_rss_with_load"])),
        ("gnnc runtime peak (arena, params, graphs)", lambda r: mib(r["gnnc_peak"]) if "gnnc_peak" in r else "-"),
        ("test accuracy (%d vertices)" % g["eval_vertices"],
         lambda r: "-" if r["accuracy"] is None else "%.2f%%" % (100 * r["accuracy"]))]  # None: --eval 0
with open(out, "w") as f:
    f.write("# Mini-batch GraphSAGE: gnnc vs PyG on the same batches (bench/minibatch.sh)\n\n")
    f.write("commit %s; %s; %d thread(s) each (torch and gnnc's OpenMP); torch %s, torch_geometric %s; a shared "
            "2-core machine (other jobs ran beside it)\n\n" % (commit, cpu, g["threads"], p["torch"], p.get("torch_geometric", "?")))
    f.write("Graph %s: %d vertices, %d edges, %d features, %d classes; %d training vertices. GraphSAGE (mean), 2 "
            "layers, hidden %d; batch %d, fan-out %s; Adam. Batches per epoch: %d; %s. Sampling: "
            "python/examples/minibatch_sage.py's NeighborLoader-style sampler (%s), the same seeded batches for "
            "both sides. gnnc vs PyG with the same parameters on one batch: max relative difference %.2g.\n\n" % (
                graph, g["vertices"], g["edges"], g["features"], g["classes"], g["train_vertices"], g["hidden"],
                g["batch"], "/".join("all" if k < 0 else str(k) for k in g["fanout"]), g["batches_per_epoch"],
                "all of them ran (%d epoch(s))" % g["epochs"] if full else
                "**%d of them ran** per side (a full epoch is too long on this machine; times are for those)" % g["batches_run"],
                "the runtime's, C" if g["sampler"] == "native" else "NumPy", check["max_rel_err"]))
    f.write("| | gnnc (GnncModule, one rebound model) | PyG (SAGEConv) |\n|---|---|---|\n")
    for name, fn in rows:
        f.write("| %s | %s | %s |\n" % (name, fn(g), fn(p)))
    f.write("\nRaw results:\n\n```\n%s\n%s\n```\n" % (json.dumps(g), json.dumps(p)))
print(open(out).read())
EOF
echo "minibatch.sh: wrote $OUT" >&2
