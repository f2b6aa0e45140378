#!/usr/bin/python3
"""make_graphs.py -- writes the small test graphs under tests/interp/graphs/ (committed).

Deterministic (Python's random.Random with fixed seeds; no NumPy needed), so rerunning it
rewrites the same bytes:  /usr/bin/python3 tests/interp/make_graphs.py

  isolated/    8 vertices: 5 has out-edges only, 6 and 7 have no edges at all (7 exists only
               because features.svm has 8 rows); vertex 6's feature row is empty
  selfloops/   6 vertices: a self-loop on every vertex, a ring 0->1->2->3->4->0, and vertex 5
               whose only edge is its self-loop
  duplicates/  6 vertices: 0->1 three times, 2->1 twice, the self-loop 1->1 twice, 3->4 twice;
               vertex 2 has no in-edges
  hub/         2,001 vertices, bare edge list: vertex 0 has 2,000 in-edges (one from every
               other vertex); no features.svm, so gnnc generates the inputs from the seed
  random/      40 vertices, 160 uniformly random edges (self-loops and duplicates left in
               as drawn), sparse random features, labels.txt
  pointcloud/  96 points in 3-D, the k = 6 nearest-neighbour graph (edge neighbour -> point),
               features.svm = the 3 coordinates (for EdgeConv)
  batch/       14 vertices in 5 graphs (graph_indicator.txt, for readouts): a 4-cycle, a path, a
               lone vertex, a star with a self-loop at a leaf, one directed edge
Features are 5 wide (the small test models' input width) except pointcloud's 3; a model
wider than the file reads zero-padded features.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "graphs")


def write(name, edges, feats=None, labels=None, comment="", graph_of=None):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "graph.edges"), "w") as f:
        f.write("# %s: %s\n# src dst (message src -> dst)\n" % (name, comment))
        for s, t in edges:
            f.write("%d %d\n" % (s, t))
    if feats is not None:
        with open(os.path.join(d, "features.svm"), "w") as f:
            f.write("# %s: LIBSVM 'label idx:value ...', idx 1-based, one line per vertex\n" % name)
            for i, row in enumerate(feats):
                lab = labels[i] if labels else 0
                f.write(" ".join([str(lab)] + ["%d:%s" % (k + 1, v) for k, v in enumerate(row) if v != "0"]) + "\n")
    if graph_of is not None:
        with open(os.path.join(d, "graph_indicator.txt"), "w") as f:
            f.write("# %s: the graph of each vertex, in vertex order\n" % name)
            for gi in graph_of:
                f.write("%d\n" % gi)
    if labels is not None:
        with open(os.path.join(d, "labels.txt"), "w") as f:
            f.write("# %s: one class id per vertex\n" % name)
            for y in labels:
                f.write("%d\n" % y)


def rand_feats(rng, n, width, density=0.7):
    return [["%.6g" % rng.uniform(-2, 2) if rng.random() < density else "0" for _ in range(width)] for _ in range(n)]


def main():
    rng = random.Random(20240611)

    write("isolated",
          [(0, 1), (1, 2), (2, 0), (3, 2), (4, 3), (5, 0), (5, 4), (1, 3), (0, 2)],
          [["1", "-0.5", "0", "2", "0.25"],
           ["-1.5", "0", "3", "0", "1"],
           ["0", "0.75", "-2", "1", "0"],
           ["2", "1", "0", "-1", "-3"],
           ["0", "0", "0.5", "0", "0"],
           ["-0.25", "4", "0", "0", "1.5"],
           ["0", "0", "0", "0", "0"],
           ["1", "1", "-1", "1", "-1"]],
          comment="vertex 5 has only out-edges; 6 and 7 have no edges (7 exists through features.svm)")

    ring = [(i, (i + 1) % 5) for i in range(5)]
    write("selfloops", [(i, i) for i in range(6)] + ring + [(2, 4), (4, 1)], rand_feats(rng, 6, 5),
          comment="a self-loop on every vertex; vertex 5 has nothing else")

    write("duplicates",
          [(0, 1), (2, 1), (0, 1), (1, 1), (3, 4), (0, 1), (1, 1), (4, 3), (2, 1), (3, 4), (5, 0), (1, 5)],
          rand_feats(rng, 6, 5),
          comment="0->1 x3, 2->1 x2, 1->1 x2, 3->4 x2; vertex 2 has no in-edges")

    hub = [(u, 0) for u in range(1, 2001)]
    rng.shuffle(hub)
    hub += [(0, 1), (0, 2), (0, 1999), (7, 8), (8, 7), (0, 0)]
    write("hub", hub, comment="vertex 0 has 2001 in-edges (2000 + a self-loop); no features: inputs come from the seed")

    n = 40
    edges = [(rng.randrange(n - 1), rng.randrange(n - 1)) for _ in range(160)]  # vertex 39: no edges
    write("random", edges, rand_feats(rng, n, 5), [rng.randrange(4) for _ in range(n)],
          comment="40 vertices, 160 uniform random edges; vertex 39 only through features/labels")

    pts = [[rng.gauss(0, 1) for _ in range(3)] for _ in range(96)]
    k = 6
    edges = []
    for i, p in enumerate(pts):
        d = sorted((sum((a - b) ** 2 for a, b in zip(p, q)), j) for j, q in enumerate(pts) if j != i)
        edges += [(j, i) for _, j in d[:k]]
    write("pointcloud", edges, [["%.6f" % c for c in p] for p in pts],
          comment="96 points, k=6 nearest neighbours (neighbour -> point), 3 coordinates")

    both = lambda a, b: [(a, b), (b, a)]
    edges = sum([both(0, 1), both(1, 2), both(2, 3), both(3, 0), both(4, 5), both(5, 6), both(8, 9), both(8, 10),
                 both(8, 11)], []) + [(9, 9), (12, 13)]
    write("batch", edges, rand_feats(rng, 14, 5),
          comment="5 graphs (graph_indicator.txt): a 4-cycle 0-3, a path 4-6, a lone vertex 7, a star 8-11 "
                  "with a self-loop at 9, the edge 12->13",
          graph_of=[0] * 4 + [1] * 3 + [2] + [3] * 4 + [4] * 2)


if __name__ == "__main__":
    main()
