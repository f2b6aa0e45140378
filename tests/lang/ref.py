#!/usr/bin/python3
"""ref.py -- NumPy references for the programs of tests/lang/ (the language constructs of issue 16).

  ref.py check NAME GRAPH PARAMS INPUTS OUTPUT

NAME is a program of tests/lang/ (its file name without .gnn); GRAPH, PARAMS, INPUTS and OUTPUT
as for tests/interp/reference.py, whose loaders, projection and error measure this reuses:
|gnnc - ref| / max(1, |ref|) <= 1e-9. Each reference is written from the language reference
(docs/language.md), not from gnnc's IR, with NumPy's own operations for the builtins.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interp"))
from reference import Graph, compare, proj, read_tensors  # noqa: E402


def edges(g):
    return np.array(g.src, dtype=np.int64), np.array(g.dst, dtype=np.int64)


def gather_sum(g, e):
    """sum over the in-edges of each vertex of the edge values e (rows in file order)."""
    _, dst = edges(g)
    out = np.zeros((g.nv,) + e.shape[1:])
    np.add.at(out, dst, e)
    return out


def edge_softmax(g, s):
    _, dst = edges(g)
    out = np.zeros_like(s)
    for v in range(g.nv):
        idx = np.nonzero(dst == v)[0]
        if idx.size:
            z = np.exp(s[idx] - s[idx].max(axis=0))
            out[idx] = z / z.sum(axis=0)
    return out


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def layer_norm(x, eps):
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + eps)


def appnp(g, P, x):
    src, dst = edges(g)
    Q, K = P["score0.Q"][0], P["score0.K"][0]
    q, k = proj(Q, x), proj(K, x)
    s = (q[dst] * k[src]).sum(axis=-1) / np.sqrt(4.0)          # / sqrt(D), D = 4
    h = gather_sum(g, edge_softmax(g, s)[:, None] * k[src])
    c = 1 / np.sqrt(g.in_deg + 1)

    def prop(hh, x0, alpha):
        return (1 - alpha) * c[:, None] * gather_sum(g, c[src, None] * hh[src]) + alpha * x0

    return prop(prop(prop(h, h, 0.1), h, 0.5), h, 0.2)       # default, positional, named


def builtins(g, P, x):
    src, dst = edges(g)
    a, b = proj(P["A"][0], x), proj(P["B"][0], x)              # (nv, 2, 3)
    bias = P["bias"][0][None, :, None]                          # prefix broadcast: per head
    f = lambda c: c.astype(np.float64)  # noqa: E731
    m = (np.where(a >= b, a, b) + np.where(b <= 0.25, b, 0.25) + np.where(bias >= a, bias, a)
         + f(a >= b) - f(b != a) * 0.5 + f(a <= 0) + f(b < a) * f(a == a))
    e = np.where(a[src] > a[dst], a[src] * b[dst], -b[dst])
    q = b ** 2 + (1 + a * a) ** 1.5 + (1 + b * b) ** -2.0 + a ** 3
    t = np.swapaxes(np.swapaxes(a, 1, 2) * 2, 1, 2)
    sm = np.exp(log_softmax(b))
    l = log_softmax(a) + sm + layer_norm(a + b, 0.01)
    c = proj(P["C"][0], x)
    s = c[:, 2:8]
    k = np.concatenate([c[:, 7:8], c[:, 0:2], np.asarray(g.in_deg, np.float64)[:, None], c[:, 4:6]], axis=-1)
    h = m + gather_sum(g, e) + q + t + l
    return h.reshape(g.nv, 6) + s + k


def init(g, P, x):
    src, _ = edges(g)
    c = 1 / np.sqrt(g.in_deg + 1)
    # the declared initial values, whatever --init was (the file holds what gnnc used)
    for k, want in (("g", 1.0), ("b", 0.5), ("neg", -2.0)):
        for layer in ("normconv0", "normconv1"):
            assert np.all(P["%s.%s" % (layer, k)] == want), "%s.%s is not %g" % (layer, k, want)
    assert P["normconv0.mix"].item() == 0.75 and P["normconv1.mix"].item() == 0.25, "mix is not beta"

    def conv(layer, h):
        W, gg, b = P[layer + ".W"][0], P[layer + ".g"][0], P[layer + ".b"][0]
        mix, neg = P[layer + ".mix"].item(), P[layer + ".neg"].item()
        y = gather_sum(g, proj(W, h)[src]) * c[:, None]
        return gg * layer_norm(y, 1e-5) + b + mix * y + neg

    return conv("normconv1", np.maximum(conv("normconv0", x), 0))


def multi(g, P, x):
    src, dst = edges(g)
    ax = proj(P["attprop0.a"][0], x)                             # (nv, 2)
    z = ax[src] + ax[dst]
    alpha = edge_softmax(g, np.where(z > 0, z, 0.2 * z))         # (ne, 2)
    h = gather_sum(g, alpha[:, :, None] * x[src][:, None, :])    # (nv, 2, 5)
    y = proj(P["W"][0], x)
    mix = np.concatenate([y[:, 2:] * y.sum(axis=-1, keepdims=True), y[:, :2]], axis=-1)
    return h + gather_sum(g, alpha[:, :, None] * mix[src][:, None, :])


def loop(g, P, x):
    src, _ = edges(g)
    # every iteration shares its parameters: one instance of each layer, one W and U for all steps
    assert sorted(P) == ["gatedstep0.U", "gatedstep0.W", "lin0.W"], "parameters: %s" % sorted(P)
    W, U, L = P["gatedstep0.W"][0], P["gatedstep0.U"][0], P["lin0.W"][0]
    h = x
    for _ in range(2):                                           # GatedStep<2>
        m = gather_sum(g, proj(W, h)[src]) / np.maximum(g.in_deg, 1)[:, None]   # mean; none: 0
        z = 1 / (1 + np.exp(-(proj(U, m) + h)))
        h = z * h + (1 - z) * np.tanh(m)
    for i in (1, 2):                                             # for i in 1..3
        h = np.tanh(proj(L, h)) + 0.5 * i
        for _ in range(i):                                       # for j in 0..i
            h = h * 0.5 + gather_sum(g, h[src]) * 0.25
    for i in (0, 1):                                             # for i in 0..2
        for _ in range(2):                                       # for j in 0..2
            h = h * 0.5 + gather_sum(g, h[src]) * 0.25
        h = h - 0.125 * (i + 1)                                  # after the nested loop
    c = 1 / np.sqrt(g.in_deg + 1)
    z = h
    for _ in range(4):                                           # APPNPProp<K = 4, alpha = 0.2>
        z = 0.8 * c[:, None] * gather_sum(g, c[src, None] * z[src]) + 0.2 * h
    return z


def outedges(g, P, x):
    src, dst = edges(g)
    out_deg = np.bincount(src, minlength=g.nv).astype(float)

    def sum_out(e):                                              # over the out-edges of each vertex
        out = np.zeros((g.nv,) + e.shape[1:])
        np.add.at(out, src, e)
        return out

    def ext_out(e, f):                                           # max/min over the out-edges; none: 0
        out = np.zeros((g.nv,) + e.shape[1:])
        for u in range(g.nv):
            if (src == u).any():
                out[u] = f(e[src == u], axis=0)
        return out

    def conv(i, x):
        Win, Wout = P["dirconv%d.Win" % i][0], P["dirconv%d.Wout" % i][0]
        m_in = gather_sum(g, proj(Win, x)[src]) / np.maximum(g.in_deg, 1)[:, None]   # none: 0
        m_out = sum_out(proj(Wout, x)[dst]) / np.maximum(out_deg, 1)[:, None]
        return m_in + m_out + ext_out(proj(Wout, x)[dst], np.max) - ext_out(proj(Win, x)[dst], np.min)

    h = np.tanh(conv(0, x))
    s = sum_out(h[src] * h[dst] - 0.5 * h[dst])
    return conv(1, h + s)


def rgcn(g, P, x):
    src, _ = edges(g)
    w = INPUTS["w"].reshape(-1)
    rel = (w > 0.5).astype(int) + (w > 0.8).astype(int)          # 0, 1 or 2 per edge
    onehot = np.eye(3)[rel]                                      # (ne, 3)

    def conv(i, x):
        W, W0 = P["rgcnconv%d.W" % i][0], P["rgcnconv%d.W0" % i][0]   # [F, 3, D], [F, D]
        out = proj(W0, x)
        for r in range(3):
            mask = rel == r
            n_r = np.bincount(np.array(g.dst)[mask], minlength=g.nv)  # in-edges of relation r
            m = gather_sum(g, onehot[:, r, None] * (x @ W[:, r, :])[src])
            out = out + m / np.maximum(n_r, 1)[:, None]
        return out

    h = np.tanh(conv(0, x))
    return conv(1, h)


def hetero(g, P, x):
    src, _ = edges(g)
    rel = (INPUTS["w"].reshape(-1) > 0.5).astype(int)            # 0 or 1 per edge
    vtype = np.eye(2)[(x[:, 0] > 0).astype(int)]                 # (nv, 2)

    def conv(i, x):
        W, V, b = (P["heteroconv%d.%s" % (i, n)][0] for n in "WVb")  # [F, 2, D], [F, 2, D], [2, D]
        out = sum(vtype[:, t, None] * (x @ W[:, t, :] + b[t]) for t in range(2))
        for r in range(2):
            mask = rel == r
            n_r = np.bincount(np.array(g.dst)[mask], minlength=g.nv)
            m = gather_sum(g, mask[:, None] * (x @ V[:, r, :])[src])
            out = out + m / np.maximum(n_r, 1)[:, None]
        return out

    return conv(1, np.tanh(conv(0, x)))


def readout(g, P, x):
    src, _ = edges(g)
    W, eps = P["ginconv0.W"][0], P["ginconv0.eps"][0]
    a, U, V = P["a"][0], P["U"][0], P["V"][0]
    z = proj(W, (1 + eps) * x + gather_sum(g, x[src]))
    h = np.tanh((z - z.mean(axis=0)) / np.sqrt(z.var(axis=0) + 1e-5))   # batch_norm over every vertex
    graphs = [np.flatnonzero(g.graph_of == i) for i in range(g.ng)]

    def per_graph(f, v):                                         # (ng,) + v's row shape
        return np.array([f(v[ids], axis=0) for ids in graphs])

    s = h @ a
    w = np.concatenate([np.exp(s[ids] - s[ids].max()) / np.exp(s[ids] - s[ids].max()).sum() for ids in graphs])
    size = np.array([len(ids) for ids in graphs], dtype=float)
    gv = per_graph(np.sum, w[:, None] * h) + per_graph(np.mean, h) - per_graph(np.max, h) * per_graph(np.min, h) / size[:, None]
    c = h - gv[g.graph_of]
    return proj(U, gv) + proj(V, per_graph(np.mean, c * c))


REFS = {"appnp": appnp, "builtins": builtins, "init": init, "loop": loop, "multi": multi, "outedges": outedges,
        "readout": readout, "rgcn": rgcn, "hetero": hetero}
INPUTS = {}


def main():
    if len(sys.argv) != 7 or sys.argv[1] != "check":
        print(__doc__)
        return 2
    name, graph, params_path, inputs_path, output_path = sys.argv[2:]
    g = Graph(graph)
    params = read_tensors(params_path)
    inputs = read_tensors(inputs_path)
    INPUTS.update(inputs)
    x = inputs["x"]
    ref = REFS[name](g, params, x)
    got = read_tensors(output_path)["output"]
    r = compare(got, ref, "%s on %s (%d vertices, %d edges)" % (name, graph, g.nv, g.ne))
    if r is None:
        return 1
    if r[1] > 1e-9:
        print("FAIL: max rel err %.3g > 1e-9" % r[1])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
