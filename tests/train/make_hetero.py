#!/usr/bin/python3
"""make_hetero.py OUTDIR [SEED] -- a synthetic bipartite, heterogeneous node-classification set
whose answer is known, for dsl-examples/hetero.gnn (tests/suites/train.sh).

1000 users (vertex type 0) and 1000 items (type 1), 4 features uniform in [0, 1) each, and a
fifth feature column that is the vertex's type. Every user rates 5 random items; each rating is
two typed edges (graph.edges: "src dst rel"): user -> item of relation 0 ("rates") and
item -> user of relation 1 ("rated by"). Labels:
  user v:  1 when the mean feature 0 of its items exceeds its own feature 1, else 0
  item v:  1 when its own feature 1 exceeds the mean feature 0 of its users, else 0
(an item no one rated: 1 when its feature 1 exceeds 0.5). The same two quantities decide both
types, with opposite signs: a layer with one projection per relation (for the neighbours) and
one per vertex type (for the vertex's own features) separates both linearly; R-GCN (relations
only, one self projection) cannot flip the sign of the vertex's own feature, and a layer blind
to both is no better than chance. Split: 1000 train, 400 validation, 600 test. Python's own
random module (no NumPy): the same files on every machine.
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
    nu, ni, per_user = 1000, 1000, 5
    nv = nu + ni
    feats = [[rng.random() for _ in range(4)] for _ in range(nv)]
    edges, nbrs = [], [[] for _ in range(nv)]
    for user in range(nu):
        for item in rng.sample(range(nu, nv), per_user):
            edges.append((user, item, 0))
            edges.append((item, user, 1))
            nbrs[item].append(user)
            nbrs[user].append(item)
    labels = []
    for v in range(nv):
        m0 = sum(feats[u][0] for u in nbrs[v]) / len(nbrs[v]) if nbrs[v] else 0.5
        labels.append(int(m0 > feats[v][1]) if v < nu else int(feats[v][1] > m0))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "graph.edges"), "w") as f:
        f.write("# make_hetero.py: src dst relation (0: user rates item, 1: item rated by user)\n")
        f.writelines("%d %d %d\n" % e for e in sorted(edges, key=lambda e: (e[1], e[0])))
    with open(os.path.join(out, "features.svm"), "w") as f:
        for v in range(nv):
            cols = feats[v] + [0.0 if v < nu else 1.0]
            f.write("%d %s\n" % (labels[v], " ".join("%d:%.6f" % (k + 1, x) for k, x in enumerate(cols))))
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
