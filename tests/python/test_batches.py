"""tests/python/test_batches.py LIBDIR -- mini-batches: a new graph every call, and bad vertex ids.

LIBDIR holds libgcn.so (tests/python/models/gcn.gnn, host). GnncModule over 1,000 batches, each a
new random graph of a random size (as a neighbour sampler gives), forward and backward: the module
keeps one gnnc model and rebinds it (Model.set_graph), so the process's resident memory and the
runtime's peak counter at batch 1,000 are within 5% of batch 10 (a model per graph grew RSS by one
arena a batch). A rebound model gives what a fresh module with the same parameters gives, bit for
bit; a capacity reserved up front allocates nothing more over the batches; growth turned off
refuses a bigger graph. Then lib.graph refuses ids a cast would change (floats that are not whole
numbers, booleans) and the runtime refuses ids out of range and an empty batch, each with a
GnncError or ValueError naming the problem. Prints "ok NAME" / "FAIL NAME: detail" lines
(tests/suites/python.sh counts them).
"""
import gc
import os
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


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
    layer = GnncModule(lib, seed=1)
    opt = torch.optim.Adam(layer.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    rss, peak = {}, {}
    for b in range(1, 1001):
        nv = int(rng.integers(1900, 2001))  # a sampler's batches: a fixed number of seeds, sizes within a few %
        ne = int(rng.integers(7600, 8001))
        g = lib.graph(rng.integers(0, nv, ne), rng.integers(0, nv, ne), num_vertices=nv, add_self_loops=True)
        x = torch.randn(nv, F)
        opt.zero_grad()
        layer(g, x).square().mean().backward()
        opt.step()
        del g
        if b in (10, 1000):
            gc.collect()
            rss[b], peak[b] = rss_bytes(), lib.memory_usage()[1]
    m = layer._model
    check(m is not None and m.bindings == 999, "batches/one-model-rebound", "%s rebinds" % (m.bindings if m else None))
    check(abs(rss[1000] - rss[10]) <= 0.05 * rss[10], "batches/rss-flat",
          "RSS %.1f MiB at batch 10, %.1f MiB at batch 1000" % (rss[10] / 2**20, rss[1000] / 2**20))
    check(abs(peak[1000] - peak[10]) <= 0.05 * peak[10], "batches/peak-flat",
          "the runtime's peak %d bytes at batch 10, %d at batch 1000" % (peak[10], peak[1000]))

    # the rebound model against a fresh module with the same parameters, on a smaller and a bigger graph
    fresh_ok = True
    for nv, ne in ((700, 2000), (2600, 9000)):
        g = lib.graph(rng.integers(0, nv, ne), rng.integers(0, nv, ne), num_vertices=nv, add_self_loops=True)
        x = torch.randn(nv, F)
        fresh = GnncModule(lib, seed=1)
        fresh.load_state_dict(layer.state_dict())
        for mod in (layer, fresh):
            mod.zero_grad()
        ya, yb = layer(g, x), fresh(g, x)
        ya.square().mean().backward()
        yb.square().mean().backward()
        fresh_ok &= torch.equal(ya, yb) and all(torch.equal(p.grad, q.grad) for p, q in zip(layer.parameters(), fresh.parameters()))
    check(fresh_ok, "batches/rebound-equals-fresh", "output or gradients differ from a fresh module's")

    # a capacity reserved up front: nothing allocated over the batches; growth off refuses bigger
    capped = GnncModule(lib, seed=1, capacity=(2000, 9000))
    gs = [lib.graph(rng.integers(0, nv, 3 * nv), rng.integers(0, nv, 3 * nv), num_vertices=nv, add_self_loops=True)
          for nv in (1000, 2000, 1500)]
    capped(gs[0], torch.randn(1000, F)).sum().backward()
    lib.reset_peak()
    before = lib.memory_usage()[0]
    for g in gs[1:] + gs[:1]:
        capped(g, torch.randn(g.nv, F)).sum().backward()
    live, pk = lib.memory_usage()
    check(live == before and pk == before, "batches/capacity-allocates-once",
          "live %d -> %d bytes, peak %d over three batches within the capacity" % (before, live, pk))
    capped._model.reserve(2000, 9000, grow=False)
    big = lib.graph(np.arange(2100) % 2100, (np.arange(2100) + 1) % 2100)
    ok, msg = raises(gnnc.GnncError, lambda: capped(big, torch.randn(2100, F)), "exceeds the model's capacity")
    check(ok, "batches/growth-off-refuses", msg)
    y = capped(gs[0], torch.randn(1000, F))  # still bound where it was, and usable
    check(tuple(y.shape) == (1000, 3), "batches/usable-after-refusal", "output shape %s" % (tuple(y.shape),))

    # capacity checked when the module is made (it was at the first forward; a 4th entry became
    # reserve's grow silently)
    for name, cap, kind, text in [("four-entries", (10, 20, 1, False), ValueError, "got 4 entries"),
                                  ("negative", (10, -1), ValueError, "edges = -1 is out of range"),
                                  ("too-large", (2**40, 10), ValueError, "vertices = 1099511627776 is out of range"),
                                  ("float", (10.5, 20), TypeError, "vertices = 10.5 is not an integer"),
                                  ("not-a-tuple", 10, TypeError, "not int")]:
        ok, msg = raises(kind, lambda: GnncModule(lib, seed=1, capacity=cap), text)
        check(ok, "capacity/refused-" + name, msg)

    ok, msg = raises(ValueError, lambda: lib.graph(np.array([0.5, 1.0]), np.array([1, 0])), "src[0] = 0.5 is not a whole number")
    check(ok, "bad-ids/fraction", msg)
    ok, msg = raises(TypeError, lambda: lib.graph(np.array([True, False]), np.array([1, 0])), "vertex ids must be integers")
    check(ok, "bad-ids/bool", msg)
    g = lib.graph(np.array([0.0, 1.0]), np.array([1, 0]))  # whole-number floats are ids
    check(g.nv == 2 and g.ne == 2, "bad-ids/whole-floats-accepted", "nv %d ne %d" % (g.nv, g.ne))
    ok, msg = raises(gnnc.GnncError, lambda: lib.graph(np.array([0, 5]), np.array([1, 0]), num_vertices=3), "out of range")
    check(ok, "bad-ids/out-of-range", msg)
    ok, msg = raises(gnnc.GnncError, lambda: lib.graph(np.array([0, -1]), np.array([1, 2])),
                     "edge 1: source vertex id -1 is negative (ids must be >= 0)")  # was "out of range (ids must be below 2^31)"
    check(ok, "bad-ids/negative", msg)
    ok, msg = raises(gnnc.GnncError, lambda: lib.graph(np.zeros(0, np.int64), np.zeros(0, np.int64)), "empty graph")
    check(ok, "bad-ids/empty-batch", msg)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
