"""bench/edge_index_check.py LIB NV NE -- what GnncModule's check of a cached edge_index costs.

    build/gnnc bench/gcn64.gnn --target=host -o /tmp/libgcn64.so
    PYTHONPATH=python python3 bench/edge_index_check.py /tmp/libgcn64.so 1000000 10000000

A GnncModule keeps the graph it made from an edge_index tensor with a copy of the tensor, and on
each call compares the tensor with the copy (torch.equal): a buffer refilled in place through NumPy
or .data does not move torch's version counter, so only the contents say whether the graph is
still the tensor's. On a random graph of NV vertices and NE edges (int64 edge_index, CPU) this
times, as medians: the compare; the copy (once per graph built); building the graph (lib.graph and
the edge permutation, what a cache miss costs); one forward in eval mode and one training step
of LIB's model on a gnnc.Graph; and the module on the edge_index, first call and cached.
"""
import sys
import time

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule, _same, _TensorGraph


def timed(f, n):
    ts, r = [], None
    for _ in range(n):
        t = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), r


def main():
    lib, nv, ne = gnnc.load(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    ei = torch.from_numpy(np.random.default_rng(0).integers(0, nv, (2, ne)))
    x = torch.randn(nv, lib.inputs[0].shape[0])
    copy_t, saved = timed(lambda: ei.detach().clone(), 5)
    cmp_t, same = timed(lambda: _same(ei, saved), 9)
    assert same

    def build():
        a = ei.numpy()
        return _TensorGraph(lib.graph(a[0], a[1], num_vertices=nv))

    build_t, tg = timed(build, 3)
    m = GnncModule(lib, seed=1).eval()
    with torch.no_grad():
        m(tg.graph, x)
        fwd_t, _ = timed(lambda: m(tg.graph, x), 5)
    m.train()

    def step():
        m.zero_grad()
        m(tg.graph, x).sum().backward()

    step()
    step_t, _ = timed(step, 3)
    m2 = GnncModule(lib, seed=1).eval()
    with torch.no_grad():
        first_t, _ = timed(lambda: m2(ei, x), 1)
        hit_t, _ = timed(lambda: m2(ei, x), 5)
    print("%s (%s): %d vertices, %d edges (int64 edge_index, %.0f MB); torch threads %d" % (
        sys.argv[1], lib.name, nv, ne, ei.numel() * 8 / 2**20, torch.get_num_threads()))
    for name, t in [("compare (torch.equal with the kept copy)", cmp_t), ("copy kept (clone, once per graph built)", copy_t),
                    ("build the graph (lib.graph + edge permutation)", build_t), ("one forward (eval, no_grad)", fwd_t),
                    ("one training step (forward + backward)", step_t), ("module(edge_index, x), first call", first_t),
                    ("module(edge_index, x), cached (compare + forward)", hit_t)]:
        print("%-52s %9.1f ms" % (name, t * 1e3))
    print("compare / build %.3f, compare / forward %.3f, compare / step %.3f" % (cmp_t / build_t, cmp_t / fwd_t, cmp_t / step_t))


if __name__ == "__main__":
    main()
