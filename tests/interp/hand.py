#!/usr/bin/python3
"""hand.py -- tiny programs on 2-4 vertex graphs whose outputs are worked out by hand below.

  hand.py GNNC TMPDIR CASE     runs gnnc on CASE and compares with the expected rows
  hand.py --list               the case names

Each case writes its graph folder (graph.edges, features.svm) and program into TMPDIR, runs
`GNNC run` (with -O0 and with the default pipeline) and compares every output element with
the hand-computed value to 1e-12 (absolute; the values are all of order 1). No NumPy needed.
"""
import math
import os
import subprocess
import sys

E = math.e
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def reduce_isolated():
    # 4 vertices; edges 0->1, 0->2, 1->2; vertices 0 and 3 have no in-edges (3 no edges at all,
    # it exists because features.svm has 4 rows).
    #   x0 = [1, -2]   x1 = [3, 5]   x2 = [-1, 0.5]   x3 = [7, 7]
    #   v0, v3: nothing comes in -> 0 from sum, mean, max and min alike
    #   v1: one in-edge from 0 -> every reduction gives x0 = [1, -2] (max keeps the -2)
    #   v2: from 0 and 1 -> sum [4, 3], mean [2, 1.5], max [3, 5], min [1, -2]
    prog = """model R(x: vertex[2]) -> vertex[8] {
  return concat(concat(sum(x[src]), mean(x[src])), concat(max(x[src]), min(x[src])))
}
"""
    edges = [(0, 1), (0, 2), (1, 2)]
    feats = [[1, -2], [3, 5], [-1, 0.5], [7, 7]]
    want = [[0] * 8,
            [1, -2, 1, -2, 1, -2, 1, -2],
            [4, 3, 2, 1.5, 3, 5, 1, -2],
            [0] * 8]
    return prog, edges, feats, None, want


@case
def edge_softmax_two_in_edges():
    # Same graph. e = x[src] is edge[2] (2 heads); softmax over the in-edges of each destination,
    # head by head. Output rows are edges in file order: 0->1, 0->2, 1->2.
    #   x0 = [0, 2]  x1 = [1, -1]
    #   edge 0->1: the only in-edge of 1 -> [1, 1]
    #   v2, head 0: scores 0 (from 0), 1 (from 1) -> 1/(1+e), e/(1+e)
    #   v2, head 1: scores 2, -1 -> e^3/(1+e^3), 1/(1+e^3)
    prog = """model S(x: vertex[2]) -> edge[2] {
  return edge_softmax(x[src])
}
"""
    edges = [(0, 1), (0, 2), (1, 2)]
    feats = [[0, 2], [1, -1], [0, 0], [0, 0]]
    want = [[1, 1],
            [1 / (1 + E), E ** 3 / (1 + E ** 3)],
            [E / (1 + E), 1 / (1 + E ** 3)]]
    return prog, edges, feats, None, want


@case
def attention_sum():
    # sum(alpha * x[src]) with alpha = edge_softmax(x[src]): the GAT pattern, on the graph above
    # (x3 = [5, 5] has no edges: 0).
    #   v1: alpha = 1 -> x0 = [0, 2]
    #   v2: head 0: 0 * 1/(1+e) + 1 * e/(1+e);  head 1: 2 * e^3/(1+e^3) + (-1) * 1/(1+e^3)
    prog = """model A(x: vertex[2]) -> vertex[2] {
  alpha = edge_softmax(x[src])
  return sum(alpha * x[src])
}
"""
    edges = [(0, 1), (0, 2), (1, 2)]
    feats = [[0, 2], [1, -1], [0, 0], [5, 5]]
    want = [[0, 0],
            [0, 2],
            [E / (1 + E), (2 * E ** 3 - 1) / (1 + E ** 3)],
            [0, 0]]
    return prog, edges, feats, None, want


@case
def degree_norm_dup_selfloop():
    # 3 vertices; edges 0->1 twice (duplicate), 1->1 (self-loop), 2->0.
    #   out-degrees: d0 = 2, d1 = 1, d2 = 1;  in-degrees: v0 = 1, v1 = 3, v2 = 0
    #   x = [1, 2, 4]
    #   GCN-style sum(rsqrt(out_deg[src] * in_deg[dst]) * x[src]):
    #     v0: 2->0, c = 1/sqrt(1*1) -> 4
    #     v1: 0->1 twice, c = 1/sqrt(2*3) each, x0 = 1 -> 2/sqrt(6); 1->1, c = 1/sqrt(1*3), x1 = 2
    #         -> 2/sqrt(3); total 2/sqrt(6) + 2/sqrt(3)
    #     v2: no in-edges -> 0
    #   in_deg * x = [1, 6, 0];  out_deg * x = [2, 2, 4]
    prog = """model D(x: vertex[1]) -> vertex[3] {
  c = rsqrt(out_deg[src] * in_deg[dst])
  return concat(concat(sum(c * x[src]), in_deg * x), out_deg * x)
}
"""
    edges = [(0, 1), (1, 1), (0, 1), (2, 0)]
    feats = [[1], [2], [4]]
    want = [[4, 1, 2],
            [2 / math.sqrt(6) + 2 / math.sqrt(3), 6, 2],
            [0, 0, 4]]
    return prog, edges, feats, None, want


@case
def linear_heads_repeat():
    # W @ x with W: [2, 2, 3] maps x's last dim (2) to [2, 3]; a: [2] scales head by head
    # (prefix broadcasting); mean_heads averages the 2 heads; flatten(repeat(x, 2)) = [x, x].
    #   W[0] = [[1, 2, 3], [4, 5, 6]]   W[1] = [[-1, 0, 1], [2, -2, 0.5]]   a = [2, -1]
    #   x0 = [1, 2]: y = 1*W[0] + 2*W[1] = [[-1, 2, 5], [8, 1, 7]]
    #       a*y = [[-2, 4, 10], [-8, -1, -7]] -> mean_heads [-5, 1.5, 1.5]
    #   x1 = [0, -1]: y = -W[1] = [[1, 0, -1], [-2, 2, -0.5]]
    #       a*y = [[2, 0, -2], [2, -2, 0.5]] -> mean_heads [2, -1, -0.75]
    #   then elu(m): elu(t) = t for t > 0, e^t - 1 otherwise
    prog = """model L(x: vertex[2]) -> vertex[10] {
  param W: [2, 2, 3]
  param a: [2]
  y = W @ x
  m = mean_heads(a * y)
  return concat(concat(m, flatten(repeat(x, 2))), elu(m))
}
"""
    edges = [(0, 1)]
    feats = [[1, 2], [0, -1]]
    params = "tensor W 1 3 2 2 3\n1 2 3 4 5 6 -1 0 1 2 -2 0.5\ntensor a 1 1 2\n2 -1\n"
    want = [[-5, 1.5, 1.5, 1, 2, 1, 2, math.exp(-5) - 1, 1.5, 1.5],
            [2, -1, -0.75, 0, -1, 0, -1, 2, math.exp(-1) - 1, math.exp(-0.75) - 1]]
    return prog, edges, feats, params, want


@case
def reorg_leave_isolated():
    # The reductions reorg rewrites (EdgeConv's max, a sum and a min with a destination term),
    # on a graph where vertex 0 has out-edges only and vertex 3 no edges: both get 0 from every
    # reduction, with -O0 and after reorg (which multiplies the destination term that leaves a
    # max/min by sign(in_deg) and the one that leaves a sum by in_deg).
    #   edges 0->1, 0->2, 1->2;  x0 = [1, -2]  x1 = [3, 5]  x2 = [-1, 0.5]  x3 = [7, 7]
    #   theta = [[1, 2], [0, -1]]  phi = [[0.5, 0], [1, 1]]   (W @ h: y_o = sum_k h_k W[k][o])
    #   m = max_u(theta (h_u - h_v) + phi h_v):
    #     v1, from 0: diff [-2, -7], theta diff [-2, 3], phi x1 [6.5, 5]      -> [4.5, 8]
    #     v2: phi x2 = [0, 0.5]; from 0: diff [2, -2.5] -> [2, 6.5] + [0, 0.5] = [2, 7]
    #                            from 1: diff [4, 4.5]  -> [4, 3.5] + [0, 0.5] = [4, 4]  -> [4, 7]
    #   s = sum_u(x_u + x_v):  v1 [4, 3];  v2 [0, -1.5] + [2, 5.5] = [2, 4]
    #   n = min_u(x_v - x_u):  v1 [2, 7];  v2 min([-2, 2.5], [-4, -4.5]) = [-4, -4.5]
    prog = """model L(x: vertex[2]) -> vertex[6] {
  param theta: [2, 2]
  param phi: [2, 2]
  m = max(theta @ (x[src] - x[dst]) + phi @ x[dst])
  s = sum(x[src] + x[dst])
  n = min(x[dst] - x[src])
  return concat(concat(m, s), n)
}
"""
    edges = [(0, 1), (0, 2), (1, 2)]
    feats = [[1, -2], [3, 5], [-1, 0.5], [7, 7]]
    params = "tensor theta 1 2 2 2\n1 2 0 -1\ntensor phi 1 2 2 2\n0.5 0 1 1\n"
    want = [[0] * 6,
            [4.5, 8, 4, 3, 2, 7],
            [4, 7, 2, 4, -4, -4.5],
            [0] * 6]
    return prog, edges, feats, params, want


def read_output(path):
    with open(path) as f:
        head = f.readline().split()
        rows = int(head[2])
        out = [[float(t) for t in f.readline().split()] for _ in range(rows)]
    return out


def run_case(gnnc, tmp, name):
    prog, edges, feats, params, want = CASES[name]()
    d = os.path.join(tmp, "hand_" + name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "graph.edges"), "w") as f:
        f.writelines("%d %d\n" % e for e in edges)
    with open(os.path.join(d, "features.svm"), "w") as f:
        for row in feats:
            f.write(" ".join(["0"] + ["%d:%r" % (k + 1, float(v)) for k, v in enumerate(row) if v != 0]) + "\n")
    with open(os.path.join(d, "model.gnn"), "w") as f:
        f.write(prog)
    extra = []
    if params:
        with open(os.path.join(d, "params.txt"), "w") as f:
            f.write(params)
        extra = ["--params", os.path.join(d, "params.txt")]
    worst = 0.0
    for opt in (["-O0"], []):
        out = os.path.join(d, "out%s.txt" % ("0" if opt else ""))
        r = subprocess.run([gnnc, "run"] + opt + [os.path.join(d, "model.gnn"), "--graph", d, "--output", out] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode != 0:
            print("FAIL: gnnc %s exited %d: %s" % (" ".join(opt), r.returncode, r.stdout.strip()[-300:]))
            return 1
        got = read_output(out)
        if len(got) != len(want) or any(len(g) != len(w) for g, w in zip(got, want)):
            print("FAIL %s: output is %d rows of %s, expected %d rows of %d" % (
                " ".join(opt), len(got), sorted(set(len(g) for g in got)), len(want), len(want[0])))
            return 1
        for i, (g, w) in enumerate(zip(got, want)):
            for k, (a, b) in enumerate(zip(g, w)):
                if not abs(a - b) <= 1e-12:
                    print("FAIL %s: row %d col %d: gnnc %.17g, by hand %.17g" % (" ".join(opt) or "-O default", i, k, a, b))
                    return 1
                worst = max(worst, abs(a - b))
    print("%s: max abs err %.3g (-O0 and default)" % (name, worst))
    return 0


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        print(__doc__)
        return 2
    return run_case(sys.argv[1], sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    sys.exit(main())
