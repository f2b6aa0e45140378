"""tests/python/test_minibatch_options.py GNNC WORKDIR [PYG_PYTHON] -- python/examples/minibatch_sage.py's options.

Each bad option is refused as argparse refuses one: exit 2, a last line "minibatch_sage.py: error: ..."
on stderr saying what is wrong, and no traceback (a negative --fanout was a traceback from
capacity(), --emulate-world above the epoch's batches trained nothing with exit 0, --batches -1 ran
one batch, --batch 0 / --fanout abc / --emulate-world 0 / a missing --graph were tracebacks; --check
silently turned --side pyg into gnnc, and made --out's folder to write nothing in it). Good
runs still work: a small run; --fanout -1 (every in-edge, the runtime sampler's meaning) with both
samplers, checked against the graph's in-degrees; --eval 0 (no evaluation: accuracy null, not 0.0);
--emulate-world equal to the epoch's batches (one step); a graph folder of .npy files; and the peak
RSS figures ordered (peak_rss_with_load the whole run's peak: at least loading's, at least
training's; it read below peak_rss, from a counter that the reset had made forget the loading);
--check, alone and with the training options bench/minibatch.sh gives it, run by PYG_PYTHON (a
python with torch_geometric; this one's if not given) when it imports torch_geometric.
Prints "ok NAME" / "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import concurrent.futures
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_lines  # noqa: E402
import script_checks  # noqa: E402
from script_checks import check, npy_folder  # noqa: E402,F401

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLE = os.path.join(ROOT, "python", "examples", "minibatch_sage.py")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
# 3,000 vertices: 300 train, in 5 batches of 64
SMALL = ["--graph", "gen:3000,30000", "--features", "8", "--classes", "4", "--hidden", "8", "--batch", "64",
         "--fanout", "5,3", "--threads", "1", "--eval", "256"]


def example(args, env=None, python=None):
    """(exit status, stdout, stderr) of the example with args (later options win over SMALL's), run by python."""
    p = subprocess.run([python or sys.executable, "-W", "ignore", EXAMPLE] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


REFUSALS = []


def refused(name, args, want, env=None, python=None):
    """args must be refused: exit 2, one last line "minibatch_sage.py: error: ..." holding want (script_checks).
    Run later, by run_refusals."""
    REFUSALS.append((name, args, want, env, python))


def run_refusals():
    """The refusals, 4 processes at a time, checked in their order. Each is a process of its own that
    imports torch before it parses its options (1.3 s of CPU, 16 s of wall time at load 15): the ~40
    of them one after another took most of the 600 s that tests/suites/python.sh gives this script
    on a loaded machine, where it timed out (passing alone in 6 min 18 s)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(lambda r: example(r[1], r[3], r[4]), REFUSALS))
    for (name, _, want, _, _), run in zip(REFUSALS, runs):
        script_checks.refused("minibatch_sage.py", name, run, want)
    del REFUSALS[:]


def good(name, args, env=None, python=None):
    """args must exit 0 with a JSON line last on stdout: the result, or None (after a FAIL)."""
    return script_checks.good(name, example(args, env, python))


def main():
    gnnc_bin, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    # a python with torch_geometric (tests/suites/python.sh passes the venv's where make setup made one): --check's runs
    pyg = sys.argv[3] if len(sys.argv) > 3 else sys.executable
    has_pyg = subprocess.run([pyg, "-c", "import torch, torch_geometric"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL).returncode == 0
    os.makedirs(work, exist_ok=True)
    base = SMALL + ["--gnnc", gnnc_bin, "--workdir", os.path.join(work, "lib")]
    # a graph folder's features and classes are its own: SMALL without --features and --classes
    i = SMALL.index("--features")
    assert SMALL[i:i + 4] == ["--features", "8", "--classes", "4"]
    on_folder = SMALL[:i] + SMALL[i + 4:] + ["--gnnc", gnnc_bin, "--workdir", os.path.join(work, "lib")]
    folder = npy_folder(os.path.join(work, "npy"))
    bad_folder = npy_folder(os.path.join(work, "npy-bad-edge"), bad_edge=True)
    part = os.path.join(work, "npy-part")
    os.makedirs(part, exist_ok=True)
    np.save(os.path.join(part, "x.npy"), np.zeros((20, 2), np.float32))
    a_file = os.path.join(work, "a-file")
    open(a_file, "w").close()

    # ---- refusals: one per bad option
    refused("fanout-negative", base + ["--fanout", "5,-2"], "hop 2 of '5,-2' is '-2'")
    refused("fanout-zero", base + ["--fanout", "0,3"], "hop 1 of '0,3' is '0'")
    refused("fanout-not-a-number", base + ["--fanout", "abc"], "hop 1 of 'abc' is 'abc'")
    refused("fanout-empty-hop", base + ["--fanout", "5,,3"], "hop 2 of '5,,3' is ''")
    refused("fanout-65-hops", base + ["--fanout", ",".join(["2"] * 65)], "65 hops: 1 to 64")
    refused("emulate-world-over-batches", base + ["--emulate-world", "6"],
            "--emulate-world 6: a step takes 6 batches and an epoch has only 5 (300 training vertices in batches of 64)")
    # a folder's training split is known once it is loaded: refused then, the same way
    refused("emulate-world-over-batches-folder", on_folder + ["--graph", folder, "--emulate-world", "2"],
            "--emulate-world 2: a step takes 2 batches and an epoch has only 1 (20 training vertices")
    refused("world-size-over-batches", base + ["--emulate-world", "1"], "WORLD_SIZE=6 (a batch per rank): a step takes 6",
            env={"WORLD_SIZE": "6", "RANK": "0"})
    refused("emulate-world-under-torchrun", base + ["--emulate-world", "2"], "--emulate-world 2 under torchrun (WORLD_SIZE=2)",
            env={"WORLD_SIZE": "2", "RANK": "1"})
    refused("world-size-not-a-count", base, "WORLD_SIZE='two' is not an integer >= 1", env={"WORLD_SIZE": "two"})
    refused("rank-past-world", base, "RANK=2 with WORLD_SIZE=2", env={"WORLD_SIZE": "2", "RANK": "2"})
    refused("batches-below-step", base + ["--emulate-world", "3", "--batches", "2"],
            "--batches 2: a step takes 3 batches (--emulate-world 3): no step would run")
    refused("batches-negative", base + ["--batches", "-1"], "argument --batches: -1 is out of range: an integer >= 0")
    refused("eval-negative", base + ["--eval", "-5"], "argument --eval: -5 is out of range: an integer >= 0")
    refused("batch-zero", base + ["--batch", "0"], "argument --batch: 0 is out of range: an integer >= 1")
    refused("batch-not-a-number", base + ["--batch", "1k"], "argument --batch: '1k' is not an integer")
    refused("emulate-world-zero", base + ["--emulate-world", "0"], "argument --emulate-world: 0 is out of range")
    refused("epochs-zero", base + ["--epochs", "0"], "argument --epochs: 0 is out of range: an integer >= 1")
    refused("features-zero", base + ["--features", "0"], "argument --features: 0 is out of range")
    refused("classes-zero", base + ["--classes", "0"], "argument --classes: 0 is out of range")
    refused("hidden-zero", base + ["--hidden", "0"], "argument --hidden: 0 is out of range")
    refused("threads-negative", base + ["--threads", "-2"], "argument --threads: -2 is out of range")
    refused("seed-negative", base + ["--seed", "-1"], "argument --seed: -1 is out of range: 0 .. 18446744073709551615")
    refused("seed-past-64-bits", base + ["--seed", str(2**64)], "argument --seed: %d is out of range" % 2**64)
    refused("lr-nan", base + ["--lr", "nan"], "argument --lr: 'nan' is not a learning rate (a finite number > 0)")
    refused("lr-zero", base + ["--lr", "0"], "argument --lr: '0' is not a learning rate")
    missing = os.path.join(work, "no-such-folder")
    refused("graph-missing", base + ["--graph", missing], "argument --graph: %r is neither gen:N,E" % missing)
    refused("graph-not-a-folder", base + ["--graph", a_file], "(not a folder)")
    refused("graph-folder-incomplete", base + ["--graph", part], "has no edge_index.npy and no y.npy")
    refused("graph-folder-bad-edge", on_folder + ["--graph", bad_folder],
            "edge_index.npy names vertex 200; x.npy has 200 (0 .. 199)")
    refused("graph-folder-with-features", base + ["--graph", folder], "--features: the graph %s has its own" % folder)
    refused("graph-gen-one-count", base + ["--graph", "gen:100"], "gen:N,E takes two counts")
    refused("graph-gen-too-few-vertices", base + ["--graph", "gen:5,10"], "N = 5 is out of range (10 .. ")
    refused("graph-gen-fraction", base + ["--graph", "gen:1e4,2.5"], "E = '2.5' is not a count")
    refused("gnnc-missing", base + ["--gnnc", os.path.join(work, "no-gnnc")], "no such file (make builds build/gnnc)")
    refused("out-not-a-folder", base + ["--out", a_file], "--out %s: not a folder" % a_file)
    refused("workdir-not-a-folder", base + ["--workdir", a_file], "--workdir %s: not a folder" % a_file)
    # --check runs both sides on one batch and trains nothing: --side pyg was silently made gnnc (exit 0, the
    # check's line), --out made its folder and wrote nothing in it; with PyG where there is one (without it
    # the old example refused them too, for want of torch_geometric: the message tells the two apart)
    refused("check-with-side-pyg", base + ["--check", "--side", "pyg"], "--check takes no --side (--side pyg): it runs both sides",
            python=pyg)
    refused("check-with-side-gnnc", base + ["--side", "gnnc", "--check"], "--check takes no --side (--side gnnc)", python=pyg)
    out_dir = os.path.join(work, "check-out")
    refused("check-with-out", base + ["--check", "--out", out_dir], "--check takes no --out (--out %s): it trains nothing" % out_dir,
            python=pyg)
    try:
        import torch_geometric  # noqa: F401
    except ImportError:  # the refusal is only seen without it
        refused("side-pyg-without-torch-geometric", base + ["--side", "pyg"], "--side pyg needs torch_geometric")
    run_refusals()
    check(not os.path.exists(out_dir), "refused/check-with-out-made-nothing", "%s was made" % out_dir)

    # ---- good runs
    if has_pyg:  # --check itself, also with the training options bench/minibatch.sh gives it (checked, then unused)
        for name, extra in (("check", []), ("check-training-options", ["--epochs", "2", "--batches", "1", "--eval", "0"])):
            res = good(name, base + ["--check"] + extra, python=pyg)
            if res:
                check(res.get("check") == "gnnc-vs-pyg" and res["max_rel_err"] < 1e-4, "good/%s-agrees" % name, "%r" % res)
    else:
        print("note: no python with torch_geometric here (%s): --check's good runs not run" % pyg)
    res = good("small", base)
    if res:
        check(res["batches_run"] == res["batches_per_epoch"] == 5 and res["eval_vertices"] == 256
              and isinstance(res["accuracy"], float), "good/small-result",
              "batches %s of %s, eval %s, accuracy %r" % (res["batches_run"], res["batches_per_epoch"], res["eval_vertices"], res["accuracy"]))
    res = good("eval-zero", base + ["--eval", "0"])
    if res:
        check(res["accuracy"] is None and res["eval_vertices"] == 0, "good/eval-zero-no-accuracy",
              "accuracy %r over %r vertices (nothing evaluated must not read as 0.0)" % (res["accuracy"], res["eval_vertices"]))
    res = good("emulate-world-all-batches", base + ["--emulate-world", "5"])
    if res:
        check(res["batches_run"] == 5, "good/emulate-world-one-step", "ran %s batches" % res["batches_run"])
    for sampler, spelling in (("native", "--fanout=-1,3"), ("numpy", "--fanout=all,3")):
        res = good("fanout-all-" + sampler, base + [spelling, "--sampler", sampler])
        if res:
            check(res["fanout"] == [-1, 3], "good/fanout-all-%s-reported" % sampler, "fanout %r" % res["fanout"])
    res = good("graph-folder", on_folder + ["--graph", folder, "--batches", "1"])
    if res:
        check(res["vertices"] == 200 and res["features"] == 6 and res["batches_run"] == 1, "good/graph-folder-result",
              "%r vertices, %r features, %r batches" % (res["vertices"], res["features"], res["batches_run"]))
    # loading a graph of 4M edges has temporaries (its edge arrays, the sort): a peak that training does not reach
    res = good("peak-rss", base + ["--graph", "gen:20000,4000000", "--batches", "1", "--eval", "64"])
    if res:
        load, train, whole, loaded = (res.get(k, 0) for k in ("peak_rss_load", "peak_rss", "peak_rss_with_load", "rss_loaded"))
        check(whole == max(load, train) and whole >= train and load >= loaded + (32 << 20), "good/peak-rss-ordered",
              "peak_rss_load %d, peak_rss %d, peak_rss_with_load %d, rss_loaded %d (includes_load %r)" % (
                  load, train, whole, loaded, res.get("peak_rss_includes_load")))

    # ---- --fanout -1 keeps every in-edge, in both samplers; capacity() has no bound then
    import minibatch_sage as ex
    data = ex.generate(500, 3000, 4, 3, 1)
    seeds = data.train[:16]
    indeg = int(sum(data.indptr[v + 1] - data.indptr[v] for v in seeds))
    lib = ex.build_library(gnnc_bin, 4, 8, 3, os.path.join(work, "lib"))
    for name, s in (("numpy", ex.Sampler(data, [-1], 1)), ("native", ex.NativeSampler(lib, data, [-1], 1))):
        nodes, ei = s.sample(seeds, (0, 0))
        check(ei.shape[1] == indeg, "fanout-all/%s-every-in-edge" % name,
              "%d edges for seeds of in-degree %d" % (ei.shape[1], indeg))
    check(ex.capacity(64, [-1, 3]) is None and ex.capacity(64, [5, 3], 100, 1000) == (100, 1000)
          and ex.capacity(64, [5, 3]) == (64 + 320 + 960, 320 + 960), "fanout-all/capacity",
          "%r %r %r" % (ex.capacity(64, [-1, 3]), ex.capacity(64, [5, 3], 100, 1000), ex.capacity(64, [5, 3])))
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
