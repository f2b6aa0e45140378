"""bench/sampler.py -- neighbour sampling: gnnc's runtime sampler (Library.sampler) vs the NumPy one of
python/examples/minibatch_sage.py, on the same seeds, interleaved.

    PYTHONPATH=python python3 bench/sampler.py [--graph gen:2000000,50000000] [--batches 20] [--out FILE]

The graph is the example's planted partition (its generator); the batches are its training
batches (1,024 seeds, fan-out 15,10). For each batch the two samplers run one after the other, the
order swapped every batch (A B, B A, ...), each timed alone (perf_counter around sample() only:
not the feature gather). Printed and written to --out: the median and total ms per batch of each,
their ratio, and the batches' sizes (both samplers draw from the same distribution, not the same
draws: the native one is counter-based, NumPy's a seeded Generator). The native sampler runs at
each of --threads (OMP via the runtime; NumPy is single-threaded).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "examples"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default="gen:2000000,50000000")
    p.add_argument("--batches", type=int, default=20)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--fanout", default="15,10")
    p.add_argument("--threads", type=int, default=1, help="the native sampler's OpenMP threads")
    p.add_argument("--gnnc", default=os.path.join(HERE, "..", "build", "gnnc"))
    p.add_argument("--workdir", default=os.path.join(HERE, "..", "build", "examples"))
    p.add_argument("--out", default="")
    a = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(a.threads)  # before the runtime loads
    import numpy as np
    import minibatch_sage as ex

    fan = [int(v) for v in a.fanout.split(",")]
    t0 = time.perf_counter()
    data = ex.load(a.graph, 100, 47, 1)
    t_load = time.perf_counter() - t0
    lib = ex.build_library(a.gnnc, 100, 128, 47, a.workdir)
    native, numpy_s = ex.NativeSampler(lib, data, fan, 1), ex.Sampler(data, fan, 1)
    bl = ex.batches(data, a.batch, 0, 1, data.train)[: a.batches]
    t = {"native": [], "numpy": []}
    size = {"native": [], "numpy": []}
    for i, seeds in enumerate(bl):
        order = ("native", "numpy") if i % 2 == 0 else ("numpy", "native")
        for side in order:
            s = native if side == "native" else numpy_s
            ts = time.perf_counter()
            nodes, ei = s.sample(seeds, (0, i))
            t[side].append(time.perf_counter() - ts)
            size[side].append((len(nodes), ei.shape[1]))
    med = {k: statistics.median(v) * 1e3 for k, v in t.items()}
    tot = {k: sum(v) * 1e3 for k, v in t.items()}
    mean_size = {k: (statistics.mean(s[0] for s in v), statistics.mean(s[1] for s in v)) for k, v in size.items()}
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Neighbour sampling: gnnc's runtime sampler vs the example's NumPy sampler (bench/sampler.py)",
        "",
        "- date: %s; commit %s; graph %s (%d vertices, %d edges; generated in %.1f s)" % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit, a.graph, data.n, data.ne, t_load),
        "- batches: %d of %d seeds, fan-out %s, the two samplers interleaved (order swapped every batch); native threads: %d" % (
            len(bl), a.batch, a.fanout, a.threads),
        "- load average at the end: %s (a shared machine: medians)" % " ".join("%.2f" % x for x in os.getloadavg()),
        "",
        "| sampler | median ms / batch | total ms | mean vertices / batch | mean edges / batch |",
        "|---|---|---|---|---|",
    ]
    for k in ("numpy", "native"):
        lines.append("| %s | %.2f | %.1f | %.0f | %.0f |" % (k, med[k], tot[k], mean_size[k][0], mean_size[k][1]))
    lines += ["", "native is %.1fx faster (median per batch)" % (med["numpy"] / med["native"])]
    text = "\n".join(lines) + "\n"
    print(text)
    print(json.dumps(dict(median_ms=med, total_ms=tot, threads=a.threads, batches=len(bl), graph=a.graph)))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
