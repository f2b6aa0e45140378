"""tests/python/concurrent_build.py GNNC WORKDIR [PROCS] [ROUNDS] -- the example's build, from many processes at once.

The ranks of a data-parallel run (tests/python/test_ddp_minibatch.py) each call
python/examples/minibatch_sage.py's build_library on the same workdir at the same moment. Each
rewrote the model's .gnn in place while another rank's gnnc read it, and that gnnc then saw an
empty file ("declares no model") and exited 1: the DDP test's flake. Here PROCS processes [4],
started together (a barrier), call it on a fresh workdir, ROUNDS times [3]: every call returns the
same library, it loads, gnnc ran once per round (the others waited on the lock and reused its
library), and no temporary file is left. Prints "ok NAME" / "FAIL NAME: detail" (counted by
tests/suites/reliability.sh).
"""
import glob
import multiprocessing as mp
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


def build(args):
    gnnc_bin, workdir, barrier = args
    import minibatch_sage
    barrier.wait()  # all start together: the race is in the first moments
    try:
        return "ok", minibatch_sage.build_library(gnnc_bin, 16, 16, 4, workdir)
    except Exception as e:
        return "error", "%s: %s" % (type(e).__name__, e) + traceback.format_exc(limit=1)


def main():
    gnnc_bin, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    procs = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    # a wrapper around gnnc that logs each run, so the test sees how many compiles a round made
    os.makedirs(work, exist_ok=True)
    counter = os.path.join(work, "gnnc-runs.log")
    wrapper = os.path.join(work, "gnnc-logged")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\necho "$$" >> "%s"\nexec "%s" "$@"\n' % (counter, gnnc_bin))
    os.chmod(wrapper, 0o755)
    ctx = mp.get_context("spawn")  # fresh interpreters, as separate ranks are
    errors, libs, runs, leftovers = [], set(), [], []
    with ctx.Manager() as manager:
        for r in range(rounds):
            workdir = os.path.join(work, "round%d" % r)
            if os.path.exists(counter):
                os.remove(counter)
            barrier = manager.Barrier(procs)
            with ctx.Pool(procs) as pool:
                res = pool.map(build, [(wrapper, workdir, barrier)] * procs)
            errors += ["round %d: %s" % (r, v) for k, v in res if k != "ok"]
            libs |= {os.path.basename(v) for k, v in res if k == "ok"}
            with open(counter) as f:
                runs.append(len(f.read().split()))
            # what stays: sage-HASH.gnn, libsage-HASH.so, sage-HASH.lock; a name with a pid in it is a temporary
            leftovers += [n for n in map(os.path.basename, glob.glob(os.path.join(workdir, "*")))
                          if not n.endswith((".gnn", ".so", ".lock")) or n.count(".") > 1]
    check(not errors, "example/all-succeed", "%d of %d calls failed: %s" % (
        len(errors), procs * rounds, " | ".join(errors[:2]).replace("\n", " ")))
    check(len(libs) == 1, "example/one-library", "the calls returned %s" % sorted(libs))
    check(runs == [1] * rounds, "example/compiled-once", "gnnc runs per round: %s" % runs)
    check(not leftovers, "example/no-temporaries", "left behind: %s" % leftovers[:4])
    if not errors and libs:
        import gnnc
        lib = gnnc.load(os.path.join(work, "round0", libs.pop()))
        check(lib.name == "SAGE" and lib.inputs[0].shape == (16,) and lib.output.shape == (4,), "example/loads",
              repr(lib))
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
