"""tests/python/test_batches.py LIBDIR -- mini-batches: a new graph every call, and bad vertex ids.

LIBDIR holds libgcn.so (tests/python/models/gcn.gnn, host). GnncModule over 300 batches, each a new
random graph (as a neighbour sampler gives), forward and backward: the module keeps at most
max_graphs models, and the process's resident memory after batch 300 is within 5% (+2 MiB) of
after batch 30, where keeping every graph's model grew it by one arena a batch. Then lib.graph
refuses ids a cast would change (floats that are not whole numbers, booleans) and the runtime
refuses ids out of range and an empty batch, each with a GnncError or ValueError naming the
problem. Prints "ok NAME" / "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import gc
import os
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule

failures = 0


def check(ok, name, detail=""):
    global failures
    print(("ok %s" % name) if ok else ("FAIL %s: %s" % (name, detail)))
    failures += 0 if ok else 1


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def raises(kind, fn, text):
    try:
        fn()
    except kind as e:
        return text in str(e), str(e)
    except Exception as e:  # the wrong kind
        return False, "%s: %s" % (type(e).__name__, e)
    return False, "no error"


def main():
    lib = gnnc.load(os.path.join(sys.argv[1], "libgcn.so"))
    F = lib.inputs[0].shape[0]
    layer = GnncModule(lib, seed=1, max_graphs=4)
    opt = torch.optim.Adam(layer.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    rss = {}
    for b in range(1, 301):
        nv = 2000
        ne = int(rng.integers(6000, 8000))
        g = lib.graph(rng.integers(0, nv, ne), rng.integers(0, nv, ne), num_vertices=nv, add_self_loops=True)
        x = torch.randn(nv, F)
        opt.zero_grad()
        layer(g, x).square().mean().backward()
        opt.step()
        del g
        if b in (30, 300):
            gc.collect()
            rss[b] = rss_bytes()
    check(len(layer._models) <= 4, "batches/models-bounded", "%d models kept" % len(layer._models))
    grow = rss[300] - rss[30]
    check(grow <= 0.05 * rss[30] + 2 * 2**20, "batches/rss-flat",
          "RSS %.1f MiB at batch 30, %.1f MiB at batch 300" % (rss[30] / 2**20, rss[300] / 2**20))

    ok, msg = raises(ValueError, lambda: lib.graph(np.array([0.5, 1.0]), np.array([1, 0])), "src[0] = 0.5 is not a whole number")
    check(ok, "bad-ids/fraction", msg)
    ok, msg = raises(TypeError, lambda: lib.graph(np.array([True, False]), np.array([1, 0])), "vertex ids must be integers")
    check(ok, "bad-ids/bool", msg)
    g = lib.graph(np.array([0.0, 1.0]), np.array([1, 0]))  # whole-number floats are ids
    check(g.nv == 2 and g.ne == 2, "bad-ids/whole-floats-accepted", "nv %d ne %d" % (g.nv, g.ne))
    ok, msg = raises(gnnc.GnncError, lambda: lib.graph(np.array([0, 5]), np.array([1, 0]), num_vertices=3), "out of range")
    check(ok, "bad-ids/out-of-range", msg)
    ok, msg = raises(gnnc.GnncError, lambda: lib.graph(np.array([-1]), np.array([0])), "out of range")
    check(ok, "bad-ids/negative", msg)
    ok, msg = raises(gnnc.GnncError, lambda: lib.graph(np.zeros(0, np.int64), np.zeros(0, np.int64)), "empty graph")
    check(ok, "bad-ids/empty-batch", msg)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
