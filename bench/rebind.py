"""bench/rebind.py LIB.so [BATCHES] -- what a mini-batch costs on one rebound model vs a model per batch.

Mini-batch training gives the model a new graph every step. Before Model.set_graph, each batch
paid a create (parameters and gradients allocated and Glorot-initialised, the arenas planned) and
its first forward allocated the arena; now one model is rebound (set_graph: within its capacity a
pointer swap; beyond it a re-plan and a 1.5x bigger arena). For two batch sizes this times, per
batch (median over BATCHES random graphs of that size, +-3% in vertices and edges as a sampler's
batches are), the create + destroy of a model vs a set_graph call, and a whole training step
(forward with training = 1, backward) on a fresh model vs on the rebound one. The graphs are built
before the clock starts (the CSR build is the same in both). Prints a Markdown table
(docs/embedding.md quotes it).
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gnnc  # noqa: E402


def main():
    lib = gnnc.load(sys.argv[1])
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    F = lib.inputs[0].width
    rng = np.random.default_rng(0)
    print("model %s, %d input features; median of %d batches per row; OMP_NUM_THREADS=%s\n" % (
        lib.name, F, batches, os.environ.get("OMP_NUM_THREADS", "(all)")))
    print("| batch (vertices / edges) | create + destroy | set_graph | step, model per batch | step, rebound model | saved per batch |")
    print("|---|---|---|---|---|---|")
    for nv0, deg in ((2000, 8), (20000, 8)):
        graphs, xs = [], []
        for _ in range(batches):
            nv = int(nv0 * rng.uniform(0.97, 1.03))
            ne = int(nv * deg * rng.uniform(0.97, 1.03))
            graphs.append(lib.graph(rng.integers(0, nv, ne), rng.integers(0, nv, ne), num_vertices=nv, add_self_loops=True))
            xs.append(rng.standard_normal((nv, F)).astype(np.float32))
        t_create, t_step_fresh, t_bind, t_step_bound = [], [], [], []
        bound = gnnc.Model(lib, graphs[0])
        for i, (g, x) in enumerate(zip(graphs, xs)):
            # the two ways alternate batch by batch (the order too), so that a shared machine's load
            # falls on both alike
            for way in ((0, 1) if i % 2 else (1, 0)):
                if way == 0:  # a model per batch
                    t0 = time.perf_counter()
                    m = gnnc.Model(lib, g)
                    m.close()
                    t_create.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    m = gnnc.Model(lib, g)
                    y = m.forward(x, training=True, seed=1)
                    m.backward(np.ones_like(y))
                    m.close()
                    t_step_fresh.append(time.perf_counter() - t0)
                else:  # one model, rebound
                    t0 = time.perf_counter()
                    bound.set_graph(graphs[i - 1])
                    t_bind.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    bound.set_graph(g)
                    y = bound.forward(x, training=True, seed=1)
                    bound.backward(np.ones_like(y))
                    t_step_bound.append(time.perf_counter() - t0)
        bound.close()
        med = statistics.median
        ms = lambda v: "%.3f ms" % (1e3 * v)  # noqa: E731
        print("| %d / %d | %s | %s | %s | %s | %s |" % (
            graphs[0].nv, graphs[0].ne, ms(med(t_create)), ms(med(t_bind)), ms(med(t_step_fresh)), ms(med(t_step_bound)),
            ms(med(t_step_fresh) - med(t_step_bound))))


if __name__ == "__main__":
    main()
