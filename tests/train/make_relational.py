#!/usr/bin/python3
"""make_relational.py OUTDIR [SEED] -- a synthetic node-classification set with typed edges whose
answer is known, for R-GCN (dsl-examples/rgcn.gnn; tests/suites/train.sh).

2000 vertices with 4 features uniform in [0, 1). Each vertex has 3 in-edges of relation 0 and 3
of relation 1 from random other vertices (graph.edges: "src dst rel"). Its label is 1 when the
mean first feature of its relation-0 in-neighbours exceeds that of its relation-1 in-neighbours,
else 0. One R-GCN layer with a mean per relation separates the classes linearly; a model blind to
the relations sees six exchangeable neighbours and can do no better than chance. Split: 1000 train,
400 validation, 600 test. Python's own random module (no NumPy): the same files on every machine.
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
    nv, per_rel = 2000, 3
    feats = [[rng.random() for _ in range(4)] for _ in range(nv)]
    edges, labels = [], []
    for v in range(nv):
        means = []
        for rel in (0, 1):
            srcs = rng.sample([u for u in range(nv) if u != v], per_rel)
            edges += [(u, v, rel) for u in srcs]
            means.append(sum(feats[u][0] for u in srcs) / per_rel)
        labels.append(1 if means[0] > means[1] else 0)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "graph.edges"), "w") as f:
        f.write("# make_relational.py: src dst relation (0 or 1)\n")
        f.writelines("%d %d %d\n" % e for e in edges)
    with open(os.path.join(out, "features.svm"), "w") as f:
        for v in range(nv):
            f.write("%d %s\n" % (labels[v], " ".join("%d:%.6f" % (k + 1, x) for k, x in enumerate(feats[v]))))
    with open(os.path.join(out, "labels.txt"), "w") as f:
        f.writelines("%d\n" % y for y in labels)
    order = list(range(nv))
    rng.shuffle(order)
    for name, part in (("train", order[:1000]), ("val", order[1000:1400]), ("test", order[1400:])):
        with open(os.path.join(out, name + ".idx"), "w") as f:
            f.writelines("%d\n" % v for v in sorted(part))
    return 0


if __name__ == "__main__":
    sys.exit(main())
