#!/usr/bin/python3
"""make_graphs.py -- the generated graph of the code-generation tests (tests/codegen/graphs/).

Deterministic (random.Random with a fixed seed), so rerunning rewrites the same bytes:
    /usr/bin/python3 tests/codegen/make_graphs.py

  hub10k/   10,006 vertices. Vertex 0 is an in-hub: 10,000 in-edges, one from each of 1..10000,
            of which 3 are duplicated (5->0 three times in all) and one is its self-loop 0->0.
            Vertex 1 is an out-hub: 3,000 out-edges to random vertices (for the backward's
            gathers over out-edges). Self-loops on 7 and 11 (twice), a 10-cycle among 20..29,
            and vertices 10001..10005 have no edges at all (they exist through features.svm).
            Features are 5 wide, dense, in [-2, 2).
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = random.Random(9001)
    nv = 10006
    edges = [(u, 0) for u in range(1, 10001)]
    edges += [(5, 0), (5, 0), (0, 0)]
    edges += [(1, rng.randrange(2, 10001)) for _ in range(3000)]
    edges += [(7, 7), (11, 11), (11, 11)]
    edges += [(20 + i, 20 + (i + 1) % 10) for i in range(10)]
    rng.shuffle(edges)
    d = os.path.join(HERE, "graphs", "hub10k")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "graph.edges"), "w") as f:
        f.write("# hub10k: vertex 0 has 10,003 in-edges (duplicates, a self-loop); vertex 1 has 3,000 out-edges;\n")
        f.write("# 10001..10005 have no edges. src dst (message src -> dst)\n")
        for s, t in edges:
            f.write("%d %d\n" % (s, t))
    with open(os.path.join(d, "features.svm"), "w") as f:
        f.write("# hub10k: LIBSVM 'label idx:value ...', idx 1-based, one line per vertex\n")
        for _ in range(nv):
            f.write("0 " + " ".join("%d:%.5g" % (k + 1, rng.uniform(-2, 2)) for k in range(5)) + "\n")


if __name__ == "__main__":
    main()
