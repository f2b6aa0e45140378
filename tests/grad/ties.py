#!/usr/bin/python3
"""ties.py -- gradients of max and min at ties, against values worked out by hand below.

  ties.py GNNC TMPDIR CASE     runs gnnc gradcheck --no-fd on CASE and compares the gradients
  ties.py --list               the case names

Finite differences cannot check a tie (the function has a kink there: gradcheck reports it),
so these cases fix the parameters, the features and grad.out, and compare every gradient
entry with the hand-computed one to 1e-12, with the default pipeline and with -O0.

The rule under test: gather.max/min sends all of dy to ONE in-edge per element, the first in
CSR order (the in-edges of each vertex in file order) among those attaining the extremum, so
a tie between duplicate edges is not counted twice. Every case uses

    model T(x: vertex[2]) -> vertex[2] { param A: [2, 2]; return R(A @ x[src]) }

with A the identity, so the message on edge u->v is x[u], and for grad.out rows r_v:

    dL/dA[j, k] = sum over v of r_v[k] * x[w(v, k)][j],  w(v, k) = the winning source

Vertices without in-edges reduce to 0 and contribute nothing. No NumPy needed.

The two-argument max(a, b) / min(a, b) (element-wise) follow torch.maximum / torch.minimum
instead: the gradient goes to the operand taken, and at a tie half to each. Those cases use

    model T(x: vertex[2]) -> vertex[2] { param A: [2, 2]; param B: [2, 2]; return R(A @ x, B @ x) }

with A the identity and B = diag(1, 2), so element 0 always ties and element 1 compares x[1]
with 2 x[1] (a tie where x[1] = 0); with w the share of A's or B's side at (v, k),

    dL/dA[j, k] = sum over v of r_v[k] * wA(v, k) * x_v[j], and likewise for B.
"""
import os
import subprocess
import sys

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


R_OUT = [[2, -3], [5, 7], [11, 13]]  # grad.out, one row per vertex


@case
def max_tie_first_in_csr_order():
    # Edges in file order: 0->1, 2->0, 1->0. CSR positions: vertex 0's in-edges come first
    # (2->0 at 0, 1->0 at 1), then 0->1 at 2, so a file-order id would pick the wrong edge.
    #   x0 = [-1, 2]  x1 = [1, 3]  x2 = [1, 0.5]
    #   v0, element 0: 1 (from 2) ties 1 (from 1) -> first in CSR order: 2->0, x2 = [1, 0.5]
    #   v0, element 1: max(0.5, 3) = 3 from 1->0, x1 = [1, 3]
    #   v1: one in-edge, from 0: x0 = [-1, 2] for both elements; v2: no in-edges
    #   dA[:, 0] = 2 * [1, 0.5] + 5 * [-1, 2] = [-3, 11]
    #   dA[:, 1] = -3 * [1, 3] + 7 * [-1, 2] = [-10, 5]
    return "max", [(0, 1), (2, 0), (1, 0)], [[-1, 2], [1, 3], [1, 0.5]], [[-3, -10], [11, 5]]


@case
def max_tie_other_order():
    # The same edges with 1->0 before 2->0: the tie in element 0 now goes to 1->0.
    #   dA[:, 0] = 2 * [1, 3] + 5 * [-1, 2] = [-3, 16]
    #   dA[:, 1] = -3 * [1, 3] + 7 * [-1, 2] = [-10, 5]
    return "max", [(0, 1), (1, 0), (2, 0)], [[-1, 2], [1, 3], [1, 0.5]], [[-3, -10], [16, 5]]


@case
def min_tie_first_in_csr_order():
    # Edges 0->1, 2->0, 1->0 as in the first case, min instead of max.
    #   v0, element 0: tie (1, 1) -> 2->0, x2 = [1, 0.5]
    #   v0, element 1: min(0.5, 3) = 0.5 from 2->0, x2 = [1, 0.5]
    #   v1: x0 for both elements
    #   dA[:, 0] = 2 * [1, 0.5] + 5 * [-1, 2] = [-3, 11]
    #   dA[:, 1] = -3 * [1, 0.5] + 7 * [-1, 2] = [-10, 12.5]
    return "min", [(0, 1), (2, 0), (1, 0)], [[-1, 2], [1, 3], [1, 0.5]], [[-3, -10], [11, 12.5]]


@case
def max_duplicate_edges_counted_once():
    # Edges 1->0, 1->0, 2->0: the duplicates carry identical messages, a tie in both elements;
    # element 0 is a three-way tie (x1[0] = x2[0] = 1). All of dy goes to the first 1->0.
    #   dA[:, 0] = 2 * x1 = [2, 6]      (twice that if both duplicates took it)
    #   dA[:, 1] = -3 * x1 = [-3, -9]
    return "max", [(1, 0), (1, 0), (2, 0)], [[-1, 2], [1, 3], [1, 0.5]], [[2, -3], [6, -9]]


@case
def min_self_loop_tie():
    # Edges 0->0 (a self-loop), 1->0, 2->1: at v0 the self-loop ties 1->0 in element 1.
    #   x0 = [4, 2]  x1 = [-1, 2]  x2 = [3, 5]
    #   v0, element 0: min(4, -1) = -1 from 1->0, x1 = [-1, 2]
    #   v0, element 1: tie (2, 2) -> first: the self-loop 0->0, x0 = [4, 2]
    #   v1: one in-edge, from 2: x2 = [3, 5]
    #   dA[:, 0] = 2 * [-1, 2] + 5 * [3, 5] = [13, 29]
    #   dA[:, 1] = -3 * [4, 2] + 7 * [3, 5] = [9, 29]
    return "min", [(0, 0), (1, 0), (2, 1)], [[4, 2], [-1, 2], [3, 5]], [[13, 9], [29, 29]]


X_BIN = [[1, 2], [-1, -3], [2, 0]]  # features of the binary cases; the edges do not matter


@case
def maximum_tie_split_evenly():
    # Element 0: a tie at every vertex, half to each: dA[:, 0] = dB[:, 0] = 0.5 * (2 x0 + 5 x1 + 11 x2)
    #   = 0.5 * [2 - 5 + 22, 4 - 15 + 0] = [9.5, -5.5]
    # Element 1: v0 max(2, 4): B; v1 max(-3, -6): A; v2 max(0, 0): a tie, 6.5 each
    #   dA[:, 1] = 7 x1 + 6.5 x2 = [6, -21];  dB[:, 1] = -3 x0 + 6.5 x2 = [10, -6]
    # (The old rule, the whole of a tie to a: dA[:, 0] = [19, -11], dB[:, 0] = 0, dA[:, 1] = [19, -21].)
    return {"prog": "max(A @ x, B @ x)", "feats": X_BIN, "want": {"grad.A": [9.5, 6, -5.5, -21], "grad.B": [9.5, 10, -5.5, -6]}}


@case
def minimum_tie_split_evenly():
    # Element 0 as above. Element 1: v0 min(2, 4): A; v1 min(-3, -6): B; v2 a tie
    #   dA[:, 1] = -3 x0 + 6.5 x2 = [10, -6];  dB[:, 1] = 7 x1 + 6.5 x2 = [6, -21]
    return {"prog": "min(A @ x, B @ x)", "feats": X_BIN, "want": {"grad.A": [9.5, 10, -5.5, -6], "grad.B": [9.5, 6, -5.5, -21]}}


@case
def maximum_tie_with_a_constant():
    # max(B @ x, 0): only B has a gradient; element 1 of v2 is 0 = 0, a tie: half of r_2[1] = 13.
    # Element 0: x[0] > 0 at v0 and v2 (B's side), -1 < 0 at v1 (the constant's):
    #   dB[:, 0] = 2 x0 + 11 x2 = [24, 4];  element 1: v0 4 > 0: -3 x0; v1 -6 < 0; v2 tie: 6.5 x2
    #   dB[:, 1] = -3 x0 + 6.5 x2 = [10, -6]
    return {"prog": "max(B @ x, 0) + 0 * (A @ x)", "feats": X_BIN, "want": {"grad.A": [0, 0, 0, 0], "grad.B": [24, 10, 4, -6]}}


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read_tensors(path):
    out, toks, i = {}, open(path).read().split(), 0
    if toks[:1] == ["#gnn-tensors"]:  # the runtime's checksum line (version 2 files)
        toks = toks[7:]
    while i < len(toks):
        assert toks[i] == "tensor", toks[i]
        name, rows, rank = toks[i + 1], int(toks[i + 2]), int(toks[i + 3])
        dims = [int(t) for t in toks[i + 4:i + 4 + rank]]
        n = rows
        for d in dims:
            n *= d
        i += 4 + rank
        out[name] = [float(t) for t in toks[i:i + n]]
        i += n
    return out


def run(gnnc, tmp, name):
    c = CASES[name]()
    d = os.path.join(tmp, "ties-" + name)
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "t.gnn")
    if isinstance(c, dict):  # a binary max/min: params A and B
        edges, feats, want = [(0, 1), (1, 2)], c["feats"], c["want"]
        write(prog, "model T(x: vertex[2]) -> vertex[2] {\n  param A: [2, 2]\n  param B: [2, 2]\n  return %s\n}\n" % c["prog"])
        write(os.path.join(d, "params"), "tensor A 1 2 2 2\n1 0\n0 1\ntensor B 1 2 2 2\n1 0\n0 2\n")
    else:  # a reduction over in-edges: param A
        red, edges, feats, rows = c
        write(prog, "model T(x: vertex[2]) -> vertex[2] {\n  param A: [2, 2]\n  return %s(A @ x[src])\n}\n" % red)
        write(os.path.join(d, "params"), "tensor A 1 2 2 2\n1 0\n0 1\n")
        want = {"grad.A": [v for row in rows for v in row]}
    write(os.path.join(d, "graph.edges"), "".join("%d %d\n" % e for e in edges))
    write(os.path.join(d, "features.svm"), "".join("0 1:%r 2:%r\n" % tuple(f) for f in feats))
    write(os.path.join(d, "grad.out"), "tensor grad.out 3 1 2\n" + "".join("%r %r\n" % tuple(r) for r in R_OUT))
    for opts in ([], ["-O0"]):
        out = os.path.join(d, "grads")
        cmd = [gnnc, "gradcheck", prog, "--graph", d, "--params", os.path.join(d, "params"), "--grad-out",
               os.path.join(d, "grad.out"), "--no-fd", "--save-grads", out] + opts
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("FAIL %s %s: gnnc exited %d: %s" % (name, opts, p.returncode, p.stderr.strip()[-300:]))
        got = read_tensors(out)
        if sorted(got) != sorted(want) or any(len(got[t]) != 4 for t in got):
            sys.exit("FAIL %s %s: want the 2x2 gradients %s, got %s" % (name, opts, sorted(want), sorted(got)))
        for t in sorted(want):
            for i, (g, w) in enumerate(zip(got[t], want[t])):
                if abs(g - w) > 1e-12:
                    sys.exit("FAIL %s %s: %s[%d] = %r, want %r (all: %s)" % (name, opts, t, i, g, w, got[t]))


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        sys.exit("usage: ties.py GNNC TMPDIR CASE | ties.py --list")
    run(*sys.argv[1:4])


if __name__ == "__main__":
    main()
