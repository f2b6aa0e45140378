#!/usr/bin/python3
"""tu_to_dataset.py TUDIR OUTDIR [--seed N] [--split 0.8,0.1,0.1] -- a TU dataset (Morris et al.,
TUDataset: https://chrsmrrs.github.io/datasets/docs/format/) as a gnnc dataset folder.

Reads DS_A.txt ("i, j" per edge, 1-based node ids over the whole set), DS_graph_indicator.txt
(the 1-based graph of each node; nodes of a graph consecutive, as the format has them),
DS_graph_labels.txt (any integers: mapped to 0..C-1 in sorted order), and, when present,
DS_node_labels.txt (one-hot features) and DS_node_attributes.txt (comma-separated reals, after
the one-hot columns). Writes graph.edges, graph_indicator.txt, graph_labels.txt, features.svm
and a split of the graphs, stratified by class and drawn with --seed (default 1):
train.idx, val.idx, test.idx (graph ids). The TU sets have no standard split; papers use
10-fold cross-validation, which this one split is not. Errors name the file and line.
"""
import os
import random
import sys


def die(msg):
    sys.stderr.write("tu_to_dataset: %s\n" % msg)
    sys.exit(1)


def lines(path):
    with open(path) as f:
        for k, s in enumerate(f, 1):
            s = s.strip()
            if s:
                yield k, s


def ints(path, what):
    out = []
    for k, s in lines(path):
        try:
            out.append(int(s))
        except ValueError:
            die("%s:%d: error: %s '%s' is not an integer" % (path, k, what, s))
    return out


def main(argv):
    args, seed, split = [], 1, (0.8, 0.1, 0.1)
    i = 1
    while i < len(argv):
        if argv[i] == "--seed" and i + 1 < len(argv):
            seed, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--split" and i + 1 < len(argv):
            split, i = tuple(float(x) for x in argv[i + 1].split(",")), i + 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2 or len(split) != 3 or abs(sum(split) - 1) > 1e-9:
        sys.stderr.write(__doc__)
        return 2
    src, out = args
    names = [f for f in os.listdir(src) if f.endswith("_A.txt")] if os.path.isdir(src) else []
    if len(names) != 1:
        die("%s: error: expected one DS_A.txt in the folder, found %d" % (src, len(names)))
    ds = os.path.join(src, names[0][:-len("_A.txt")])
    indicator = ints(ds + "_graph_indicator.txt", "graph id")
    nv = len(indicator)
    for v in range(nv):
        prev = indicator[v - 1] if v else 1
        if indicator[v] not in (prev, prev + 1) or (v == 0 and indicator[0] != 1):
            die("%s_graph_indicator.txt:%d: error: graph id %d after %d: the nodes of each graph must be consecutive, from graph 1"
                % (ds, v + 1, indicator[v], prev))
    ng = indicator[-1]
    glabels = ints(ds + "_graph_labels.txt", "graph label")
    if len(glabels) != ng:
        die("%s_graph_labels.txt: error: %d labels for %d graphs" % (ds, len(glabels), ng))
    classes = sorted(set(glabels))
    edges = []
    for k, s in lines(ds + "_A.txt"):
        try:
            a, b = (int(x) for x in s.split(","))
        except ValueError:
            die("%s_A.txt:%d: error: expected 'i, j' (two node ids), got '%s'" % (ds, k, s))
        if not (1 <= a <= nv and 1 <= b <= nv):
            die("%s_A.txt:%d: error: node id out of range 1..%d" % (ds, k, nv))
        edges.append((a - 1, b - 1))
    feats = [[] for _ in range(nv)]
    if os.path.exists(ds + "_node_labels.txt"):
        nl = ints(ds + "_node_labels.txt", "node label")
        if len(nl) != nv:
            die("%s_node_labels.txt: error: %d labels for %d nodes" % (ds, len(nl), nv))
        kinds = sorted(set(nl))
        for v in range(nv):
            feats[v].append((kinds.index(nl[v]), 1.0))
        width = len(kinds)
    else:
        width = 0
    if os.path.exists(ds + "_node_attributes.txt"):
        rows = list(lines(ds + "_node_attributes.txt"))
        if len(rows) != nv:
            die("%s_node_attributes.txt: error: %d rows for %d nodes" % (ds, len(rows), nv))
        for v, (k, s) in enumerate(rows):
            for j, x in enumerate(s.split(",")):
                feats[v].append((width + j, float(x)))
    if not any(feats):
        feats = [[(0, 1.0)] for _ in range(nv)]                 # no node information: a constant 1
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "graph.edges"), "w") as f:
        f.write("# %s (TU format, converted by scripts/tu_to_dataset.py): src dst, 0-based\n" % os.path.basename(ds))
        f.writelines("%d %d\n" % e for e in edges)
    with open(os.path.join(out, "graph_indicator.txt"), "w") as f:
        f.writelines("%d\n" % (g - 1) for g in indicator)
    with open(os.path.join(out, "graph_labels.txt"), "w") as f:
        f.writelines("%d\n" % classes.index(y) for y in glabels)
    with open(os.path.join(out, "features.svm"), "w") as f:
        for row in feats:
            f.write("0 %s\n" % " ".join("%d:%g" % (j + 1, x) for j, x in row if x != 0))
    rng = random.Random(seed)
    parts = ([], [], [])
    for c in range(len(classes)):
        ids = [g for g in range(ng) if classes.index(glabels[g]) == c]
        rng.shuffle(ids)
        a = round(split[0] * len(ids))
        b = a + round(split[1] * len(ids))
        parts[0].extend(ids[:a]), parts[1].extend(ids[a:b]), parts[2].extend(ids[b:])
    for name, ids in zip(("train", "val", "test"), parts):
        with open(os.path.join(out, name + ".idx"), "w") as f:
            f.writelines("%d\n" % g for g in sorted(ids))
    print("tu_to_dataset: %s: %d graphs, %d nodes, %d edges, %d classes, %d features; split %d/%d/%d (seed %d)"
          % (os.path.basename(ds), ng, nv, len(edges), len(classes), max((j + 1 for r in feats for j, _ in r), default=0),
             len(parts[0]), len(parts[1]), len(parts[2]), seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
