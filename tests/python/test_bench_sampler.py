"""tests/python/test_bench_sampler.py GNNC WORKDIR -- bench/sampler.py's options, and small runs of it.

bench/sampler.py reads --graph, --batch and --fanout with the mini-batch example's option types
(python/examples/minibatch_args.py) and refuses a bad option as argparse does: exit 2, a last
line "sampler.py: error: ..." on stderr, no traceback and nothing on stdout. Before, it took them
unchecked: --fanout abc and a missing graph folder were tracebacks, --batch 0 a traceback after the
graph was made, --fanout 0,3 and --threads 0 ran (a hop that keeps nothing; OMP_NUM_THREADS=0),
--batches -1 timed all the batches but the last and --batches 0 none (then a traceback from the
median of nothing), an --out in a folder that is not there a traceback after the whole run. Good
runs: a small generated graph (the table in --out, the JSON line's counts), --batches 0 (every
batch of the epoch), --fanout=-1,3 (every in-edge at hop 1, in both samplers), a graph folder.
Prints "ok NAME" / "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_lines  # noqa: E402
import script_checks  # noqa: E402
from script_checks import check, npy_folder  # noqa: E402,F401

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BENCH = os.path.join(ROOT, "bench", "sampler.py")
# 3,000 vertices: 300 train, in 5 batches of 64
SMALL = ["--graph", "gen:3000,30000", "--batch", "64", "--fanout", "5,3", "--batches", "3"]


def bench(args):
    """(exit status, stdout, stderr) of bench/sampler.py with args (later options win over earlier ones)."""
    p = subprocess.run([sys.executable, "-W", "ignore", BENCH] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def refused(name, args, want):
    """args must be refused: exit 2, one last line "sampler.py: error: ..." holding want (script_checks)."""
    script_checks.refused("sampler.py", name, bench(args), want)


def good(name, args):
    """args must exit 0 with a JSON line last on stdout: the result, or None (after a FAIL)."""
    return script_checks.good(name, bench(args))


def main():
    gnnc_bin, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    base = SMALL + ["--gnnc", gnnc_bin, "--workdir", os.path.join(work, "lib")]
    folder = npy_folder(os.path.join(work, "npy"))
    bad_folder = npy_folder(os.path.join(work, "npy-bad-edge"), bad_edge=True)
    a_file = os.path.join(work, "a-file")
    open(a_file, "w").close()
    missing = os.path.join(work, "no-such-folder")

    # ---- refusals: one per bad option
    refused("fanout-negative", base + ["--fanout", "5,-2"], "argument --fanout: hop 2 of '5,-2' is '-2'")
    refused("fanout-zero", base + ["--fanout", "0,3"], "argument --fanout: hop 1 of '0,3' is '0'")
    refused("fanout-not-a-number", base + ["--fanout", "abc"], "argument --fanout: hop 1 of 'abc' is 'abc'")
    refused("fanout-65-hops", base + ["--fanout", ",".join(["2"] * 65)], "65 hops: 1 to 64")
    refused("batches-negative", base + ["--batches", "-1"], "argument --batches: -1 is out of range: an integer >= 0")
    refused("batches-not-a-number", base + ["--batches", "ten"], "argument --batches: 'ten' is not an integer")
    refused("batch-zero", base + ["--batch", "0"], "argument --batch: 0 is out of range: an integer >= 1")
    refused("threads-zero", base + ["--threads", "0"], "argument --threads: 0 is out of range: an integer >= 1")
    refused("graph-missing", base + ["--graph", missing], "argument --graph: %r is neither gen:N,E" % missing)
    refused("graph-not-a-folder", base + ["--graph", a_file], "(not a folder)")
    refused("graph-gen-one-count", base + ["--graph", "gen:100"], "gen:N,E takes two counts")
    refused("graph-gen-too-few-vertices", base + ["--graph", "gen:5,10"], "N = 5 is out of range (10 .. ")
    refused("graph-folder-bad-edge", base + ["--graph", bad_folder], "edge_index.npy names vertex 200; x.npy has 200 (0 .. 199)")
    refused("gnnc-missing", base + ["--gnnc", os.path.join(work, "no-gnnc")], "no such file (make builds build/gnnc)")
    refused("workdir-not-a-folder", base + ["--workdir", a_file], "--workdir %s: not a folder" % a_file)
    refused("out-in-missing-folder", base + ["--out", os.path.join(missing, "t.md")], "--out %s/t.md: no folder %s" % (missing, missing))
    refused("out-is-a-folder", base + ["--out", work], "--out %s: a folder" % work)

    # ---- good runs
    out = os.path.join(work, "small.md")
    res = good("small", base + ["--out", out])
    if res:
        text = open(out).read() if os.path.exists(out) else ""
        check(res.get("batches") == 3 and res.get("batch") == 64 and res.get("fanout") == [5, 3] and res.get("vertices") == 3000
              and "| numpy |" in text and "| native |" in text and "3 of 64 seeds, fan-out 5,3" in text,
              "good/small-result", "%r; --out: %r" % (res, text[:300]))
    res = good("batches-zero-all", base + ["--batches", "0"])
    if res:
        check(res.get("batches") == 5, "good/batches-zero-all-ran", "%r batches, not the epoch's 5" % res.get("batches"))
    res = good("fanout-all", base + ["--fanout=-1,3"])
    if res:
        check(res.get("fanout") == [-1, 3], "good/fanout-all-reported", "fanout %r" % res.get("fanout"))
    res = good("graph-folder", base + ["--graph", folder, "--batches", "1"])
    if res:
        check(res.get("vertices") == 200 and res.get("batches") == 1, "good/graph-folder-result", "%r" % res)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
