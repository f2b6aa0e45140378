#!/usr/bin/python3
"""reference.py -- an independent NumPy reference for gnnc's float64 interpreter.

Each of the six example models (dsl-examples/*.gnn) is written here from the textbook
formula in the example's comments -- not from gnnc's operator IR -- with explicit loops over
the in-edges of each vertex for every reduction and for the softmax. Only Debian's
/usr/bin/python3 and python3-numpy are needed.

  reference.py check MODEL GRAPH PARAMS INPUTS OUTPUT [--num-vertices N]
      MODEL is gcn, sage, gin, gat, edgeconv or monet; GRAPH a dataset folder (graph.edges,
      optional features.svm / labels.txt) or a bare edge list; PARAMS, INPUTS and OUTPUT the
      files gnnc run wrote with --save-params, --save-inputs and --output. Recomputes the output
      and compares. Layer widths come from the parameter shapes, so the same code checks the
      examples and the small test variants (tests/interp/models/).
  reference.py compare A B [--tol T]
      Compares two gnnc output files (e.g. -O0 against the default pipeline) with the same
      measure, B as the scale; fails above T (default 1e-12).

The error measure, for output element i:  |gnnc_i - ref_i| / max(1, |ref_i|)
(relative error for large values, absolute error below 1). "check" fails above 1e-9; it
also fails on a shape mismatch, a NaN/inf, or features in INPUTS that differ from
features.svm (zero-padded to the model's width). Prints max abs and max rel error.

Semantics assumed (those of gnnc's documentation): a vertex with no in-edges gets 0 from a
sum/mean/max over its in-edges; the softmax of the attention is over the in-edges of each
destination; self-loops and duplicate edges are edges like any other (each counts in sums and
degrees); dropout is the identity at inference; d_u in GCN/MoNet is the out-degree of the
source u and d_v the in-degree of the destination v, of the graph as given; W h for
W: [K, O...] contracts h's last dim with W's first.
"""
import math
import os
import sys

import numpy as np


# ------------------------------------------------------------------ files

def read_tensors(path):
    """gnnc tensor text: 'tensor NAME ROWS RANK d0 ..' then ROWS x prod(d) numbers.
    Returns {name: array of shape (ROWS, d0, ...)} in file order."""
    out = {}
    with open(path) as f:
        text = f.read()
    pos = 0
    while True:
        start = text.find("tensor ", pos)
        if start < 0:
            break
        eol = text.index("\n", start)
        head = text[start:eol].split()
        name, rows, rank = head[1], int(head[2]), int(head[3])
        dims = tuple(int(d) for d in head[4:4 + rank])
        if len(dims) != rank:
            raise ValueError("%s: malformed header %r" % (path, text[start:eol]))
        n = rows * int(np.prod(dims, dtype=np.int64))
        nxt = text.find("tensor ", eol)
        body = text[eol + 1: nxt if nxt >= 0 else len(text)]
        vals = np.array(body.split(), dtype=np.float64)
        if vals.size != n:
            raise ValueError("%s: tensor %s: %d values, want %d" % (path, name, vals.size, n))
        out[name] = vals.reshape((rows,) + dims)
        pos = eol + 1 if nxt < 0 else nxt
        if nxt < 0:
            break
    return out


def data_lines(path):
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s and not s.startswith("#"):
                yield s


class Graph:
    def __init__(self, path, num_vertices=None):
        if os.path.isdir(path):
            edges_path = os.path.join(path, "graph.edges")
            feat_path = os.path.join(path, "features.svm")
            lab_path = os.path.join(path, "labels.txt")
        else:
            edges_path, feat_path, lab_path = path, None, None
        self.src, self.dst = [], []
        for s in data_lines(edges_path):
            a, b = s.split()
            self.src.append(int(a))
            self.dst.append(int(b))
        self.features = None
        nv = None
        if feat_path and os.path.exists(feat_path):
            rows = []
            for s in data_lines(feat_path):
                row = {}
                for tok in s.split()[1:]:
                    k, v = tok.split(":")
                    row[int(k) - 1] = float(v)
                rows.append(row)
            width = max([max(r) + 1 for r in rows if r] + [0])
            self.features = np.zeros((len(rows), width))
            for i, r in enumerate(rows):
                for k, v in r.items():
                    self.features[i, k] = v
            nv = len(rows)
        if nv is None and lab_path and os.path.exists(lab_path):
            nv = sum(1 for _ in data_lines(lab_path))
        if nv is None:
            nv = num_vertices if num_vertices else max(self.src + self.dst) + 1
        self.nv, self.ne = nv, len(self.src)
        assert max(self.src + self.dst, default=0) < nv, "edge endpoint out of range"
        # In-edges of each vertex: the sources, one entry per edge (duplicates and self-loops kept).
        self.in_src = [[] for _ in range(nv)]
        for s, t in zip(self.src, self.dst):
            self.in_src[t].append(s)
        self.in_src = [np.array(l, dtype=np.int64) for l in self.in_src]
        self.in_deg = np.array([len(l) for l in self.in_src], dtype=np.float64)
        self.out_deg = np.zeros(nv)
        for s in self.src:
            self.out_deg[s] += 1
        # The graph of each vertex (a folder's graph_indicator.txt; else one graph of them all).
        ind = os.path.join(path, "graph_indicator.txt") if os.path.isdir(path) else None
        self.graph_of = np.array([int(s) for s in data_lines(ind)] if ind and os.path.exists(ind) else [0] * nv, dtype=np.int64)
        self.ng = int(self.graph_of.max()) + 1 if nv else 1


# ------------------------------------------------------------------ building blocks

def proj(W, x):
    """W h for W: [K, O...] and h: [..., K] -> [..., O...]."""
    return np.tensordot(x, W, axes=([x.ndim - 1], [0]))


def relu(x):
    return np.where(x > 0, x, 0.0)


def elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def leaky_relu(x, slope):
    return np.where(x > 0, x, slope * x)


# ------------------------------------------------------------------ layers (textbook formulas)

def gcn_layer(g, p, x):
    # h'_v = b + sum_{u -> v} 1/sqrt(d_u d_v) W h_u   (d_u: out-degree of u, d_v: in-degree of v)
    Wh = proj(p["W"], x)
    out = np.zeros((g.nv,) + p["b"].shape)
    for v in range(g.nv):
        acc = np.zeros(p["b"].shape)
        for u in g.in_src[v]:
            acc += Wh[u] / math.sqrt(g.out_deg[u] * g.in_deg[v])
        out[v] = p["b"] + acc
    return out


def sage_layer(g, p, x):
    # h'_v = W_s h_v + mean_{u -> v} W_n h_u + b   (mean over no in-edges = 0)
    self_part = proj(p["W_self"], x)
    Wn = proj(p["W_neigh"], x)
    out = np.zeros(self_part.shape)
    for v in range(g.nv):
        us = g.in_src[v]
        mean = Wn[us].sum(axis=0) / len(us) if len(us) else 0.0
        out[v] = self_part[v] + mean + p["b"]
    return out


def gin_layer(g, p, x):
    # h'_v = MLP((1 + eps) h_v + sum_u h_u),  MLP(z) = W2 relu(W1 z + b1) + b2
    eps = float(p["eps"])
    out = None
    for v in range(g.nv):
        z = (1 + eps) * x[v] + x[g.in_src[v]].sum(axis=0)
        y = proj(p["W2"], relu(proj(p["W1"], z) + p["b1"])) + p["b2"]
        if out is None:
            out = np.zeros((g.nv,) + y.shape)
        out[v] = y
    return out


def gat_layer(g, p, x):
    # z_u = W h_u, per head h: [H, D]
    # e_uv[h] = LeakyReLU_0.2(a_h . [z_u[h] || z_v[h]]);  alpha = softmax over the in-edges of v
    # h'_v[h] = sum_u alpha_uv[h] z_u[h]
    W, a = p["W"], p["a"]
    H, D = W.shape[1], W.shape[2]
    z = proj(W, x)                      # [N, H, D]
    out = np.zeros((g.nv, H, D))
    for v in range(g.nv):
        us = g.in_src[v]
        if len(us) == 0:
            continue
        e = np.empty((len(us), H))
        for j, u in enumerate(us):
            for h in range(H):
                e[j, h] = np.dot(a[h], np.concatenate([z[u, h], z[v, h]]))
        e = leaky_relu(e, 0.2)
        ex = np.exp(e - e.max(axis=0))  # softmax over the in-edges, per head
        alpha = ex / ex.sum(axis=0)
        for j, u in enumerate(us):
            out[v] += alpha[j][:, None] * z[u]
    return out


def edgeconv_layer(g, p, x):
    # h'_v = max_{u -> v} ( Theta (h_u - h_v) + Phi h_v )   (no in-edges: 0)
    D = p["theta"].shape[1]
    out = np.zeros((g.nv, D))
    for v in range(g.nv):
        us = g.in_src[v]
        if len(us) == 0:
            continue
        best = np.full(D, -np.inf)
        for u in us:
            best = np.maximum(best, proj(p["theta"], x[u] - x[v]) + proj(p["phi"], x[v]))
        out[v] = best
    return out


def monet_layer(g, p, x):
    # ps_uv = tanh(P [1/sqrt(d_u), 1/sqrt(d_v)])            r pseudo-coordinates
    # w_k(uv) = exp(-1/2 sum_j (ps_j - mu_kj)^2 isigma_kj^2)  K gaussian kernels
    # h'_v = 1/K sum_k sum_u w_k(uv) (W h_u)_k               W h_u: [K, D]
    P, mu, isig, W = p["P"], p["mu"], p["isigma"], p["W"]
    K, D = W.shape[1], W.shape[2]
    Wh = proj(W, x)                     # [N, K, D]
    out = np.zeros((g.nv, D))
    for v in range(g.nv):
        acc = np.zeros(D)
        for u in g.in_src[v]:
            pseudo = np.array([1 / math.sqrt(g.out_deg[u]), 1 / math.sqrt(g.in_deg[v])])
            ps = np.tanh(proj(P, pseudo))
            for k in range(K):
                w = math.exp(-0.5 * np.sum((ps - mu[k]) ** 2 * isig[k] ** 2))
                acc += w * Wh[u, k]
        out[v] = acc / K
    return out


def linear_layer(p, x):
    return proj(p["W"], x) + p["b"]


def appnp_propagate(g, h, K=10, alpha=0.1):
    # Z^0 = H, Z^{k+1}_v = (1 - alpha) sum_{u -> v} Z^k_u / sqrt(d_u d_v) + alpha H_v, K times
    z = h
    for _ in range(K):
        nz = np.empty_like(z)
        for v in range(g.nv):
            acc = np.zeros(h.shape[1:])
            for u in g.in_src[v]:
                acc += z[u] / math.sqrt(g.out_deg[u] * g.in_deg[v])
            nz[v] = (1 - alpha) * acc + alpha * h[v]
        z = nz
    return z


# ------------------------------------------------------------------ models (as in dsl-examples)

def gcn(g, L, x):
    return gcn_layer(g, L[1], relu(gcn_layer(g, L[0], x)))


def sage(g, L, x):
    return sage_layer(g, L[1], relu(sage_layer(g, L[0], x)))


def gin(g, L, x):
    return gin_layer(g, L[1], relu(gin_layer(g, L[0], x)))


def gat(g, L, x):
    h = gat_layer(g, L[0], x)
    h = elu(h.reshape(g.nv, -1))       # flatten [H, D] row-major, then ELU
    return gat_layer(g, L[1], h).mean(axis=1)  # average over the heads


def edgeconv(g, L, x):
    h = x
    for i in range(3):
        h = relu(edgeconv_layer(g, L[i], h))
    return edgeconv_layer(g, L[3], h)


def monet(g, L, x):
    return monet_layer(g, L[1], elu(monet_layer(g, L[0], x)))


def appnp(g, L, x):
    return appnp_propagate(g, linear_layer(L[1], relu(linear_layer(L[0], x))))


MODELS = {  # name: (function, layer-name prefix in gnnc's parameter names, layer count)
    "gcn": (gcn, "gcnconv", 2),
    "sage": (sage, "sageconv", 2),
    "gin": (gin, "ginconv", 2),
    "gat": (gat, "gatconv", 2),
    "edgeconv": (edgeconv, "edgeconv", 4),
    "monet": (monet, "gmmconv", 2),
    "appnp": (appnp, "linear", 2),
}


def layer_params(params, prefix, nlayers):
    """gnnc names a layer's parameters PREFIX<call index>.NAME; returns one dict per layer."""
    L = [dict() for _ in range(nlayers)]
    for name, t in params.items():
        head, _, field = name.partition(".")
        if not head.startswith(prefix) or not head[len(prefix):].isdigit():
            raise ValueError("unexpected parameter %r" % name)
        i = int(head[len(prefix):])
        if i >= nlayers:
            raise ValueError("parameter %r: more than %d layers" % (name, nlayers))
        L[i][field] = t[0]
    return L


# ------------------------------------------------------------------ comparison

def compare(got, ref, what, names=("gnnc", "ref")):
    if got.shape != ref.shape:
        print("FAIL %s: shape %s, %s %s" % (what, got.shape, names[1], ref.shape))
        return None
    if not np.all(np.isfinite(got)) or not np.all(np.isfinite(ref)):
        print("FAIL %s: non-finite values (%s %d, %s %d)"
              % (what, names[0], np.sum(~np.isfinite(got)), names[1], np.sum(~np.isfinite(ref))))
        return None
    if got.size == 0:
        return 0.0, 0.0
    ad = np.abs(got - ref)
    rel = ad / np.maximum(1.0, np.abs(ref))
    i = np.unravel_index(np.argmax(rel), rel.shape)
    print("%s: max abs err %.3g, max rel err %.3g (scale max(1,|%s|)), worst at %s: %s %.17g, %s %.17g; max |%s| %.3g"
          % (what, ad.max(), rel.max(), names[1], tuple(int(k) for k in i), names[0], got[i], names[1], ref[i],
             names[1], np.abs(ref).max()))
    return ad.max(), rel.max()


def cmd_check(argv):
    nv = None
    if "--num-vertices" in argv:
        k = argv.index("--num-vertices")
        nv = int(argv[k + 1])
        del argv[k:k + 2]
    model, graph, params_path, inputs_path, output_path = argv
    fn, prefix, nlayers = MODELS[model]
    g = Graph(graph, nv)
    params = read_tensors(params_path)
    inputs = read_tensors(inputs_path)
    if list(inputs) != ["x"]:
        print("FAIL: expected one input 'x', the inputs file has %s" % list(inputs))
        return 1
    x = inputs["x"]
    if x.ndim != 2 or x.shape[0] != g.nv:
        print("FAIL: input x has shape %s; the graph has %d vertices" % (x.shape, g.nv))
        return 1
    if g.features is not None:
        # The graph's features, zero-padded to the model's width, must be what gnnc used.
        if g.features.shape[1] > x.shape[1]:
            print("FAIL: features.svm is %d wide, the model's input %d" % (g.features.shape[1], x.shape[1]))
            return 1
        want = np.zeros_like(x)
        want[:, :g.features.shape[1]] = g.features
        if not np.array_equal(want, x):
            print("FAIL: the inputs gnnc used differ from features.svm at %d entries" % np.sum(want != x))
            return 1
    elif not (np.all(x >= -1) and np.all(x < 1)):
        print("FAIL: generated vertex inputs outside [-1, 1)")
        return 1
    ref = fn(g, layer_params(params, prefix, nlayers), x)
    got = read_tensors(output_path)["output"]
    r = compare(got, ref, "%s on %s (%d vertices, %d edges)" % (model, graph, g.nv, g.ne))
    if r is None:
        return 1
    if r[1] > 1e-9:
        print("FAIL: max rel err %.3g > 1e-9" % r[1])
        return 1
    return 0


def cmd_compare(argv):
    tol = 1e-12
    if "--tol" in argv:
        k = argv.index("--tol")
        tol = float(argv[k + 1])
        del argv[k:k + 2]
    a, b = argv
    r = compare(read_tensors(a)["output"], read_tensors(b)["output"], "A=%s vs B=%s" % (a, b), ("A", "B"))
    if r is None:
        return 1
    if r[1] > tol:
        print("FAIL: max rel err %.3g > %g" % (r[1], tol))
        return 1
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "compare"):
        print(__doc__)
        return 2
    try:
        return cmd_check(sys.argv[2:]) if sys.argv[1] == "check" else cmd_compare(sys.argv[2:])
    except (ValueError, KeyError, OSError, AssertionError) as e:
        print("FAIL: %s: %s" % (type(e).__name__, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
