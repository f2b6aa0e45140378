#!/usr/bin/python3
"""hub_graph.py DIR N -- a star: vertex 0 has N in-edges (from 1..N, the last 10 duplicated),
vertex 1 has 1,000 out-edges, and 3 vertices have no edges; 5-wide features in [-2, 2).
Deterministic. For tests/suites/fuse.sh: a vertex with 10^6 in-edges must not overflow shared
memory, registers or int32 indices, and the online softmax must stay exact over it."""
import os
import random
import sys

d, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
nv = n + 4
os.makedirs(d, exist_ok=True)
with open(os.path.join(d, "graph.edges"), "w") as f:
    f.write("# star: vertex 0 has %d in-edges; src dst\n" % (n + 10))
    for u in range(1, n + 1):
        f.write("%d 0\n" % u)
    for u in range(n - 9, n + 1):
        f.write("%d 0\n" % u)
    for _ in range(1000):
        f.write("1 %d\n" % rng.randrange(2, n + 1))
with open(os.path.join(d, "features.svm"), "w") as f:
    for v in range(nv):
        f.write("0 " + " ".join("%d:%.4f" % (k + 1, rng.uniform(-2, 2)) for k in range(5)) + "\n")
