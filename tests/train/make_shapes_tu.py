#!/usr/bin/python3
"""make_shapes_tu.py OUTDIR [SEED] -- a synthetic graph classification set in the TU text format
(Morris et al., TUDataset: DS_A.txt, DS_graph_indicator.txt, DS_graph_labels.txt,
DS_node_labels.txt; DS = SHAPES), whose answer is known.

300 graphs of 5 to 15 vertices, 100 of each class: 0 a cycle, 1 a path, 2 a star (the centre
joined to every other vertex); edges in both directions, vertex ids shuffled within each graph.
Every vertex has the same node label (no information in the features), so a classifier must
read the structure: the degree counts separate the classes (a sum readout of a GIN layer
does), a model without message passing can do no better than chance (1/3). Python's own random
module: the same files on every machine.
"""
import os
import random
import sys


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    out = sys.argv[1]
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) == 3 else 1)
    graphs = [(c, rng.randint(5, 15)) for c in (0, 1, 2) for _ in range(100)]
    rng.shuffle(graphs)
    os.makedirs(out, exist_ok=True)
    files = {k: open(os.path.join(out, "SHAPES_%s.txt" % k), "w") for k in ("A", "graph_indicator", "graph_labels", "node_labels")}
    base = 1                                                     # TU ids are 1-based
    for gi, (c, n) in enumerate(graphs, 1):
        perm = list(range(n))
        rng.shuffle(perm)
        if c == 0:
            und = [(i, (i + 1) % n) for i in range(n)]
        elif c == 1:
            und = [(i, i + 1) for i in range(n - 1)]
        else:
            und = [(0, i) for i in range(1, n)]
        for a, b in und:
            for s, t in ((a, b), (b, a)):
                files["A"].write("%d, %d\n" % (base + perm[s], base + perm[t]))
        for _ in range(n):
            files["graph_indicator"].write("%d\n" % gi)
            files["node_labels"].write("0\n")
        files["graph_labels"].write("%d\n" % c)
        base += n
    for f in files.values():
        f.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
