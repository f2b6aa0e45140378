#!/usr/bin/python3
"""equiv.py -- reorg changes no result: gnnc run with and without the pass, compared to 1e-12.

  equiv.py GNNC TMPDIR          runs every case; prints "ok NAME ..." or "FAIL NAME: why" per case
  equiv.py --programs N         prints the first N random programs (to read them)

Cases (the same parameters and generated inputs on both sides, from --seed):
  example/MODEL/GRAPH   dsl-examples/MODEL.gnn, -fno-reorg against the default pipeline, on Cora
                        and on every graph under tests/interp/graphs/ (EdgeConv, whose input is
                        3 wide, reads the bare edge list with --num-vertices: inputs from the seed).
                        Parameters are gnnc run's default Glorot ones: with --init=uniform (weights
                        in [-1, 1)) EdgeConv's four layers grow the output to ~10^3 on Cora, and
                        an output near 0 is then a cancellation whose float64 rounding alone
                        reaches 1e-12 of max(1, |value|) whichever order the sums are taken in
  rule/NAME/GRAPH       tests/ir/reorg_NAME.gnn the same way (bare edge lists with the folders'
                        vertex counts, so isolated vertices stay; inputs from the seed), and with
                        -fno-canonicalize on both sides (reorg then sees sema's module:
                        gather.mean, unfused copy pairs, duplicates)
  (the small programs below use --init=uniform: values stay of order 1)
  random/K              K = 0..N-1: a program drawn from a small grammar of edge expressions
                        (projections, sums, concat under a projection or a dot, row-wise and
                        non-linear functions, products, dropout, edge inputs) under reductions,
                        on three graphs (isolated vertices, duplicates, self-loops), both ways
  random/fired          reorg rewrote at least 60% of the random programs (so the random cases
                        test the pass, not the identity)
Error measure as tests/interp/reference.py: |a - b| / max(1, |b|) per element, b without reorg.
No NumPy needed.
"""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAPHS = os.path.join(ROOT, "tests", "interp", "graphs")
TOL = 1e-12
NRANDOM = 60
# One thread: on these graphs OpenMP's start-up and spinning cost more than the work, by 10x
# on a loaded machine (12 s against 2.5 min for this script).
ENV = dict(os.environ, OMP_NUM_THREADS="1")


def read_output(path):
    """gnnc's tensor text: 'tensor output ROWS RANK dims', then the numbers."""
    with open(path) as f:
        head = f.readline().split()
        return int(head[2]), [float(t) for t in f.read().split()]


def graph_args(graph, bare):
    """--graph arguments: the folder, or its bare edge list with the folder's vertex count."""
    folder = os.path.join(GRAPHS, graph) if graph != "cora" else os.path.join(ROOT, "data", "cora")
    if not bare:
        return ["--graph", folder]
    edges = os.path.join(folder, "graph.edges")
    nv = 0
    with open(edges) as f:
        for line in f:
            t = line.split()
            if t and not t[0].startswith("#"):
                nv = max(nv, int(t[0]) + 1, int(t[1]) + 1)
    feats = os.path.join(folder, "features.svm")
    if os.path.exists(feats):
        with open(feats) as f:
            nv = max(nv, sum(1 for line in f if line.strip() and not line.startswith("#")))
    return ["--graph", edges, "--num-vertices", str(nv)]


def run(gnnc, tmp, name, model, gargs, opts, seed, init):
    out = os.path.join(tmp, name.replace("/", "_") + ".out")
    r = subprocess.run([gnnc, "run", model] + gargs + opts + ["--init=" + init, "--seed", str(seed), "--output", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=ENV)
    if r.returncode != 0:
        return None, "gnnc run %s exited %d: %s" % (" ".join(opts), r.returncode, r.stdout.strip()[-200:])
    rows, vals = read_output(out)
    os.remove(out)
    return (rows, vals), None


def compare(gnnc, tmp, name, model, gargs, base_opts=(), seed=7, init="uniform"):
    """Prints one result line; returns True if the outputs agree."""
    a, err = run(gnnc, tmp, name + ".ref", model, gargs, list(base_opts) + ["-fno-reorg"], seed, init)
    b, err2 = (None, None) if err else run(gnnc, tmp, name + ".new", model, gargs, list(base_opts), seed, init)
    err = err or err2
    if not err and (a[0] != b[0] or len(a[1]) != len(b[1])):
        err = "outputs differ in size: %d x %d and %d x %d" % (a[0], len(a[1]), b[0], len(b[1]))
    if err:
        print("FAIL %s: %s" % (name, err))
        return False
    worst, at = 0.0, -1
    for i, (x, y) in enumerate(zip(b[1], a[1])):
        e = abs(x - y) / max(1.0, abs(y))
        if not e <= worst:  # NaN counts as an error
            worst, at = (e if e == e else float("inf")), i
    if worst > TOL:
        print("FAIL %s: element %d: %.17g with reorg, %.17g without (rel err %.3g > %g)" %
              (name, at, b[1][at], a[1][at], worst, TOL))
        return False
    print("ok %s: %d rows, max rel err %.3g" % (name, a[0], worst))
    return True


def reorg_fired(gnnc, model, opts=()):
    r = subprocess.run([gnnc, model, "--print-ir-after=reorg"] + list(opts), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return r.returncode == 0 and "IR after reorg (unchanged)" not in r.stdout


# ------------------------------------------------------------------ random programs

def edge_expr(rng, depth):
    """An edge[5] expression over x, y (vertex[5]) and w (edge[5])."""
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(["x[src]", "x[dst]", "y[src]", "y[dst]", "x[src]", "x[dst]", "w"] if rng.random() < 0.3
                          else ["x[src]", "x[dst]", "y[src]", "y[dst]"])
    e = lambda: edge_expr(rng, depth - 1)
    k = rng.randrange(20)
    if k < 4:
        return "(W @ %s)" % e()
    if k < 6:
        return "(V @ concat(%s, %s))" % (e(), e())
    if k < 9:
        return "(%s %s %s)" % (e(), rng.choice("+-"), e())
    if k == 9:
        return "(-%s)" % e()
    if k == 10:
        return "(%s * %s)" % (e(), rng.choice(["0.5", "b", "-2"]))
    if k == 11:
        return "(%s %s b)" % (e(), rng.choice("+-"))
    if k == 12:
        return "%s(%s)" % (rng.choice(["relu", "tanh"]), e())
    if k == 13:
        return "(%s * %s)" % (e(), e())
    if k == 14:
        return "(dot(a, concat(%s, %s)) * %s)" % (e(), e(), e())
    if k == 15:
        return "dropout(%s, 0.5)" % e()
    if k == 16:
        return "(W2 @ %s)" % e()
    if k == 17:
        return "(0.5 * %s)" % e()
    if k == 18:
        return "(W @ %s + W2 @ %s)" % ((e(),) * 2 if rng.random() < 0.5 else (e(), e()))
    return "(V @ concat(x[dst], %s))" % e()


def program(k):
    rng = random.Random(1000 + k)
    terms = []
    for _ in range(rng.randint(1, 3)):
        terms.append("%s(%s)" % (rng.choice(["sum", "max", "min", "mean"]), edge_expr(rng, rng.randint(1, 3))))
    if rng.random() < 0.3:
        terms.append("W @ x")
    return """model R(x: vertex[5], y: vertex[5], w: edge[5]) -> vertex[5] {
  param W: [5, 5]
  param W2: [5, 5]
  param V: [10, 5]
  param a: [10]
  param b: [5]
  return %s
}
""" % " + ".join(terms)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--programs":
        for k in range(int(sys.argv[2])):
            print("# random/%d\n%s" % (k, program(k)))
        return 0
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    gnnc, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    graphs = sorted(os.listdir(GRAPHS))
    ok = True

    for m in ["gcn", "sage", "gin", "gat", "edgeconv", "monet"]:
        model = os.path.join(ROOT, "dsl-examples", m + ".gnn")
        for g in ["cora"] + graphs:
            bare = m == "edgeconv" and g != "pointcloud"
            ok &= compare(gnnc, tmp, "example/%s/%s" % (m, g), model, graph_args(g, bare), init="glorot")

    rule_dir = os.path.join(ROOT, "tests", "ir")
    for f in sorted(os.listdir(rule_dir)):
        if not (f.startswith("reorg_") and f.endswith(".gnn")):
            continue
        model, name = os.path.join(rule_dir, f), f[len("reorg_"):-len(".gnn")]
        for g in ["isolated", "duplicates", "selfloops", "hub", "random"]:
            # the bare edge list: every input from the seed, whatever its shape
            ok &= compare(gnnc, tmp, "rule/%s/%s" % (name, g), model, graph_args(g, True))
            ok &= compare(gnnc, tmp, "rule/%s/%s/no-canon" % (name, g), model, graph_args(g, True), ["-fno-canonicalize"])

    fired = 0
    for k in range(NRANDOM):
        model = os.path.join(tmp, "random_%d.gnn" % k)
        with open(model, "w") as f:
            f.write(program(k))
        fired += reorg_fired(gnnc, model)
        for g in ["isolated", "duplicates", "selfloops"]:
            ok &= compare(gnnc, tmp, "random/%d/%s" % (k, g), model, graph_args(g, False), seed=k)
            ok &= compare(gnnc, tmp, "random/%d/%s/no-canon" % (k, g), model, graph_args(g, False),
                          ["-fno-canonicalize"], seed=k)
    if fired >= 0.6 * NRANDOM:
        print("ok random/fired: reorg rewrote %d of %d programs" % (fired, NRANDOM))
    else:
        print("FAIL random/fired: reorg rewrote only %d of %d programs" % (fired, NRANDOM))
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
