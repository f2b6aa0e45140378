"""bench/sampler.py -- neighbour sampling: gnnc's runtime sampler (Library.sampler) vs the NumPy one of
python/examples/minibatch_sage.py, on the same seeds, interleaved.

    PYTHONPATH=python python3 bench/sampler.py [--graph gen:2000000,50000000] [--batches 20] [--out FILE]

The graph is the example's planted partition (its generator); the batches are its training
batches (1,024 seeds, fan-out 15,10). For each batch the two samplers run one after the other, the
order swapped every batch (A B, B A, ...), each timed alone (perf_counter around sample() only:
not the feature gather). Printed and written to --out: the median and total ms per batch of each,
their ratio, and the batches' sizes (both samplers draw from the same distribution, not the same
draws: the native one is counter-based, NumPy's a seeded Generator). The native sampler runs at
--threads threads (OpenMP in the runtime, OMP_NUM_THREADS set before torch loads libgomp; NumPy
is single-threaded).

--graph, --batch and --fanout are read as python/examples/minibatch_sage.py reads them (its option
types, python/examples/minibatch_args.py, which import no torch): gen:N,E (N >= 10) or a folder of
the three .npy files; counts >= 1; each hop's fan-out >= 1 or -1 (all: every in-edge), 1 to 64
hops. --batches is the first N training batches of the epoch (0: all of them), --threads >= 1.
A bad option, a bad graph folder, a missing --gnnc, a --workdir that is a file or an --out whose
folder is not there is one line "sampler.py: error: ..." and exit 2, before the graph is made
(a folder's contents: once loaded). Tests: tests/python/test_bench_sampler.py.
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
from minibatch_args import Refused, check_gnnc, fanout_arg, graph_arg, int_arg, make_folder  # noqa: E402


def check_out(p, path):
    """Refuses (p.error) an --out that cannot be written: a folder, or a file in a folder that is not there."""
    if os.path.isdir(path):
        p.error("--out %s: a folder (--out names the results file)" % path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        p.error("--out %s: no folder %s" % (path, folder))


def hops(fanout):
    return ",".join("all" if k < 0 else str(k) for k in fanout)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graph", type=graph_arg, default="gen:2000000,50000000",
                   help="gen:N,E (the example's planted partition; N >= 10) or an ogbn-products .npy directory")
    p.add_argument("--batches", type=int_arg(0, meaning=" (batches timed; 0: all of an epoch)"), default=20,
                   help="the first N training batches of an epoch (0: all of them)")
    p.add_argument("--batch", type=int_arg(1, meaning=" (seed vertices per batch)"), default=1024)
    p.add_argument("--fanout", type=fanout_arg, default="15,10",
                   help="in-edges kept per vertex at each hop; -1 or all: every in-edge (write --fanout=-1,10)")
    p.add_argument("--threads", type=int_arg(1, meaning=" (the native sampler's OpenMP threads)"), default=1,
                   help="the native sampler's OpenMP threads")
    p.add_argument("--gnnc", default=os.path.join(HERE, "..", "build", "gnnc"))
    p.add_argument("--workdir", default=os.path.join(HERE, "..", "build", "examples"))
    p.add_argument("--out", default="", help="a file for the table (its folder must exist)")
    a = p.parse_args()
    check_gnnc(p, a.gnnc)  # refused now, not after the graph is made
    make_folder(p, "workdir", a.workdir)
    if a.out:
        check_out(p, a.out)
    os.environ["OMP_NUM_THREADS"] = str(a.threads)  # before torch (the example imports it) loads libgomp
    import minibatch_sage as ex

    t0 = time.perf_counter()
    try:
        data = ex.load(a.graph, 100, 47, 1)
    except Refused as err:  # a graph folder's contents
        p.error(str(err))
    t_load = time.perf_counter() - t0
    try:
        lib = ex.build_library(a.gnnc, 100, 128, 47, a.workdir)  # for the runtime and its context: any model does
    except subprocess.CalledProcessError as err:  # gnnc said why on stderr
        print("%s: error: %s failed (exit %d) compiling the model" % (p.prog, err.cmd[0], err.returncode), file=sys.stderr)
        return 1
    native, numpy_s = ex.NativeSampler(lib, data, a.fanout, 1), ex.Sampler(data, a.fanout, 1)
    bl = ex.batches(data, a.batch, 0, 1, data.train)
    if a.batches:
        bl = bl[: a.batches]
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
        "- date: %s; commit %s; graph %s (%d vertices, %d edges; %s in %.1f s)" % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit, a.graph, data.n, data.ne,
            "generated" if a.graph.startswith("gen:") else "loaded", t_load),
        "- batches: %d of %d seeds, fan-out %s, the two samplers interleaved (order swapped every batch); native threads: %d" % (
            len(bl), a.batch, hops(a.fanout), a.threads),
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
    print(json.dumps(dict(median_ms=med, total_ms=tot, threads=a.threads, batches=len(bl), batch=a.batch, fanout=a.fanout,
                          graph=a.graph, vertices=data.n, edges=data.ne)))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
