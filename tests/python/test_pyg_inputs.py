"""tests/python/test_pyg_inputs.py LIBDIR -- GnncModule on PyTorch graphs: an edge_index tensor, a PyG Data.

LIBDIR holds libgcn.so and libedgein.so (tests/python/models/: GCN; EdgeIO, an edge input and an
edge output). Checks, on a random graph: layer(edge_index, x) is layer(lib.graph(src, dst), x)
exactly (output and gradients, training mode, two modules stepping the same dropout stream); the
graph made from a tensor is reused while that tensor object holds the same edges and remade when it
changes in place (through torch, NumPy or .data: a preallocated buffer refilled per batch, whose
version counter does not move; a batch vector likewise) or is another tensor; a Data-like object (edge_index, num_nodes, x) gives the
same, and so does torch_geometric's Data where it is installed; edge rows in and out are in
edge_index's order (EdgeIO with added self-loops against the formula in torch, output and dW);
bad graphs are refused with a message; with libgin_graph.so (dsl-examples/gin_graph.gnn) a batch
of graphs (a batch vector, a Batch) gives a row per graph, each equal to the graph run alone.
Prints "ok NAME" / "FAIL NAME: detail" lines.
"""
import os
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


class FakeData:
    """What GnncModule reads of a torch_geometric.data.Data."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def grads(layer):
    return [p.grad.clone() for _, p in layer.named_gnnc_parameters()]


def check_batches(d):
    """A batch of graphs (PyG's Batch, its batch vector) through a graph-level model (GIN with sum
    readouts, dsl-examples/gin_graph.gnn): a row per graph, equal to each graph run alone, and so
    are the parameter gradients (their sum); lib.graph(batch=), layer(edge_index, x, batch=) and a
    Batch-like object alike; bad batch vectors refused. Before, the batch vector was ignored: one
    row, every graph pooled together."""
    lib = gnnc.load(os.path.join(d, "libgin_graph.so"))
    rs = np.random.RandomState(5)
    sizes = [3, 7, 1, 5]
    parts, off = [], 0
    for n in sizes:  # random edges within each graph, ids offset as PyG's Batch does
        k = 3 * n
        parts.append((torch.from_numpy(rs.randint(0, n, (2, k))) + off, n))
        off += n
    ei = torch.cat([p for p, _ in parts], 1)
    batch = torch.cat([torch.full((n,), i, dtype=torch.int64) for i, n in enumerate(sizes)])
    x = torch.from_numpy(rs.rand(off, 1).astype(np.float32))
    layer = GnncModule(lib, seed=4)
    ys, gs = [], []
    for i, (p, n) in enumerate(parts):  # one graph at a time: the reference
        lo = sum(sizes[:i])
        y = layer(p - lo, x[lo:lo + n])
        layer.zero_grad()
        (y * (i + 1)).sum().backward()
        ys.append(y.detach())
        gs.append(grads(layer))
    want = torch.cat(ys)
    want_g = [sum(g[k] for g in gs) for k in range(len(gs[0]))]

    def same(y, name):
        check(tuple(y.shape) == (len(sizes), 3) and torch.allclose(y, want, rtol=1e-5, atol=1e-6), name,
              "shape %s, max diff %s" % (tuple(y.shape), float((y - want).abs().max()) if y.shape == want.shape else "-"))

    weights = torch.arange(1, len(sizes) + 1, dtype=torch.float32)[:, None]
    layer.zero_grad()
    y = layer(ei, x, batch=batch)
    (y * weights).sum().backward()
    same(y.detach(), "batch/edge_index-rows-per-graph")
    check(all(torch.allclose(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(grads(layer), want_g)), "batch/edge_index-grads",
          "parameter gradients differ from the per-graph sums")
    with torch.no_grad():
        same(layer(FakeData(edge_index=ei, num_nodes=off, x=x, batch=batch, num_graphs=len(sizes))), "batch/data-like")
        # the cached graph is the batch's: the same edge_index without a batch is one graph again
        check(tuple(layer(ei, x).shape) == (1, 3), "batch/cache-keeps-batches-apart")
    g = lib.graph(ei[0].numpy(), ei[1].numpy(), num_vertices=off, batch=batch.numpy())
    m = lib.create(g, seed=4)
    for n, p in layer.named_gnnc_parameters():
        m[n] = p.detach().numpy()
    yn = torch.from_numpy(m.forward(x.numpy()))
    check(g.ng == len(sizes), "batch/library-graph-ng", "ng %d" % g.ng)
    same(yn, "batch/library-graph")
    try:
        from torch_geometric.data import Batch, Data
        datas = [Data(x=x[sum(sizes[:i]):sum(sizes[:i]) + n], edge_index=p - sum(sizes[:i]), num_nodes=n)
                 for i, (p, n) in enumerate(parts)]
        with torch.no_grad():
            same(layer(Batch.from_data_list(datas)), "batch/torch_geometric")
    except ImportError:
        print("note: torch_geometric is not installed here: its Batch is not tried (the duck-typed one is)")
    # refused: ValueError naming what is wrong, nothing built
    bad = [("length", batch[:-1], "batch has 15 entries for a graph of 16 vertices"),
           ("start", batch + 1, "batch[0] = 1: the graph ids start at 0"),
           ("jump", torch.tensor([0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]), "batch[3] = 2 after 0"),
           ("decreasing", torch.tensor([0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 2, 2, 2, 2, 2]), "batch[10] = 0 after 1"),
           ("float", batch.float() + 0.5, "not a whole number")]
    for name, b, text in bad:
        try:
            layer(ei, x, batch=b)
            check(False, "batch/refused-" + name, "accepted")
        except ValueError as e:
            check(text in str(e), "batch/refused-" + name, str(e))
        except Exception as e:
            check(False, "batch/refused-" + name, "%s: %s" % (type(e).__name__, e))
    try:
        layer(FakeData(edge_index=ei, num_nodes=off, x=x, batch=batch, num_graphs=5))
        check(False, "batch/refused-empty-graph", "accepted")
    except ValueError as e:
        check("a graph without vertices is not supported" in str(e), "batch/refused-empty-graph", str(e))
    try:
        m.close()
        gb = lib.graph(ei[0].numpy(), ei[1].numpy(), num_vertices=off)
        mb = lib.create(gb)
        gb.set_graphs(batch.numpy())
        check(False, "batch/refused-bound-graph", "accepted")
    except gnnc.GnncError as e:
        check("bound to an open model" in str(e) and gb.ng == 1, "batch/refused-bound-graph", str(e))
    mb.close()


def check_refills(lib, F):
    """A preallocated edge buffer refilled for each batch through NumPy (torch.from_numpy's array) or
    through .data: the tensor's version counter does not move, and the cached graph was the old
    edges' (outputs and gradients of the previous batch's graph, silently). Each refill must give
    what a new tensor of the same edges gives, forward and backward; so must a batch vector refilled
    through NumPy."""
    rs = np.random.RandomState(9)
    nv, ne = 40, 120
    x = torch.randn(nv, F)
    buf = rs.randint(0, nv, (2, ne))

    def step(layer, ei, x, **kw):
        layer.zero_grad()
        y = layer(ei, x, **kw)
        y.square().sum().backward()
        return y.detach(), grads(layer)

    for how in ("numpy", "data"):
        layer, fresh = GnncModule(lib, seed=2), GnncModule(lib, seed=2)
        arr = buf.copy()
        ei = torch.from_numpy(arr)
        step(layer, ei, x)
        version = ei._version
        new = rs.randint(0, nv, (2, ne))
        if how == "numpy":
            arr[...] = new
        else:
            ei.data[...] = torch.from_numpy(new)
        y, g = step(layer, ei, x)
        y0, g0 = step(fresh, torch.from_numpy(new.copy()), x)
        check(ei._version == version and torch.equal(y, y0) and all(torch.equal(p, q) for p, q in zip(g, g0)),
              "edge_index/refilled-through-" + how, "version %d -> %d; output max diff %g" % (
                  version, ei._version, float((y - y0).abs().max())))
    # a batch of graphs whose batch vector is refilled through NumPy: the graph ids are the new ones
    lg = gnnc.load(os.path.join(sys.argv[1], "libgin_graph.so"))
    layer, fresh = GnncModule(lg, seed=4), GnncModule(lg, seed=4)
    xg = torch.from_numpy(rs.rand(nv, 1).astype(np.float32))
    s = np.array([v for v in range(nv - 1) if v % 10 != 9])  # edges within each 10 vertices: in a graph of either
    ei = torch.from_numpy(np.stack([s, s + 1]))
    barr = np.repeat(np.arange(4), 10)
    b = torch.from_numpy(barr)
    step(layer, ei, xg, batch=b)
    barr[:] = np.repeat(np.arange(2), 20)
    y, g = step(layer, ei, xg, batch=b)
    y0, g0 = step(fresh, ei.clone(), xg, batch=torch.from_numpy(barr.copy()))
    check(y.shape == (2, 3) and torch.equal(y, y0) and all(torch.equal(p, q) for p, q in zip(g, g0)),
          "batch/refilled-through-numpy", "shape %s, want %s" % (tuple(y.shape), tuple(y0.shape)))


def main():
    d = sys.argv[1]
    lib = gnnc.load(os.path.join(d, "libgcn.so"))
    F = lib.inputs[0].shape[0]
    torch.manual_seed(0)
    nv, ne = 300, 1500
    ei = torch.randint(0, nv, (2, ne))
    x = torch.randn(nv, F)

    # the same as a gnnc.Graph, exactly
    a, b = GnncModule(lib, seed=2, add_self_loops=True), GnncModule(lib, seed=2)
    g = lib.graph(ei[0].numpy(), ei[1].numpy(), num_vertices=nv, add_self_loops=True)
    for _ in range(2):
        ya, yb = a(ei, x), b(g, x)
        ya.square().sum().backward()
        yb.square().sum().backward()
    check(torch.equal(ya, yb) and all(torch.equal(p, q) for p, q in zip(grads(a), grads(b))), "edge_index/same-as-graph",
          "max diff %g" % float((ya - yb).abs().max()))
    bound = a._model is not None and a._model.graph is a._graphs[id(ei)][3].graph
    bindings = a._model.bindings if a._model is not None else -1
    check(len(a._graphs) == 1 and bound and bindings == 0, "edge_index/reused",
          "%d graphs, the model bound to it: %s, %d rebinds after two calls with one tensor" % (len(a._graphs), bound, bindings))
    first = a._graphs[id(ei)][3]
    ei.add_(0)  # written in place, the same edges: kept
    a(ei, x)
    check(a._graphs[id(ei)][3] is first and len(a._graphs) == 1, "edge_index/kept-when-rewritten-unchanged",
          "%d graphs; the same one: %s" % (len(a._graphs), a._graphs[id(ei)][3] is first))
    ei[0, 0] = (ei[0, 0] + 1) % nv  # changed in place: remade
    a(ei, x)
    check(a._graphs[id(ei)][3] is not first and len(a._graphs) == 1, "edge_index/remade-when-changed",
          "%d graphs; the same one: %s" % (len(a._graphs), a._graphs[id(ei)][3] is first))
    check_refills(lib, F)
    ei2 = ei.clone()
    a(ei2, x)
    check(len(a._graphs) == 2, "edge_index/remade-for-another-tensor", "%d graphs" % len(a._graphs))
    del ei2  # its graph goes with it (a sampler's old batches keep nothing alive)
    check(len(a._graphs) == 1, "edge_index/forgotten-with-its-tensor", "%d graphs" % len(a._graphs))

    # a Data: x from the data
    a.eval(), b.eval()
    with torch.no_grad():
        y1, y2 = a(FakeData(edge_index=ei, num_nodes=nv, x=x)), a(ei, x)
    check(torch.equal(y1, y2), "data/like-edge_index", "max diff %g" % float((y1 - y2).abs().max()))
    try:
        from torch_geometric.data import Data
        with torch.no_grad():
            y3 = a(Data(edge_index=ei, x=x, num_nodes=nv))
        check(torch.equal(y3, y2), "data/torch_geometric", "max diff %g" % float((y3 - y2).abs().max()))
    except ImportError:
        print("note: torch_geometric is not installed here: its Data is not tried (the duck-typed one is)")

    # edge rows in edge_index's order: EdgeIO, y_e = w_e * (x_src W), with self-loops added inside
    le = gnnc.load(os.path.join(d, "libedgein.so"))
    m = GnncModule(le, seed=3, add_self_loops=True)
    xe, w = torch.randn(nv, 3), torch.randn(ne, 2)
    y = m(FakeData(edge_index=ei, num_nodes=nv, x=xe, w=w))
    W = dict(m.named_gnnc_parameters())["edgeconv0.W" if "edgeconv0.W" in dict(m.named_gnnc_parameters()) else
                                        m._names[0]].detach().clone().requires_grad_()
    ref = w * (xe[ei[0]] @ W)
    check(y.shape == (ne, 2) and torch.allclose(y, ref, rtol=1e-5, atol=1e-6), "edges/output-in-input-order",
          "shape %s, max diff %g" % (tuple(y.shape), float((y - ref).abs().max()) if y.shape == ref.shape else -1))
    g_out = torch.randn(ne, 2)
    (y * g_out).sum().backward()
    (ref * g_out).sum().backward()
    got = dict(m.named_gnnc_parameters())[m._names[0]].grad
    check(torch.allclose(got, W.grad, rtol=1e-4, atol=1e-5), "edges/grad-through-the-permutation",
          "max diff %g" % float((got - W.grad).abs().max()))

    # an edge input with more or fewer rows than edge_index has edges: refused with the shape wanted
    # (more were cut silently, fewer a bare IndexError)
    for rows in (ne + 3, 3):
        try:
            m(ei, xe, torch.randn(rows, 2))
            check(False, "edges/input-rows-%s" % ("more" if rows > ne else "fewer"), "accepted %d rows" % rows)
        except ValueError as e:
            check("input 'w': want shape (%d, 2)" % ne in str(e) and "got (%d, 2)" % rows in str(e),
                  "edges/input-rows-%s" % ("more" if rows > ne else "fewer"), str(e))
        except Exception as e:
            check(False, "edges/input-rows-%s" % ("more" if rows > ne else "fewer"), "%s: %s" % (type(e).__name__, e))

    # refused
    for name, fn, kind, text in [
        ("float-ids", lambda: a(ei.float(), x), TypeError, "integer vertex ids"),
        ("bad-shape", lambda: a(ei[:1], x), ValueError, "shape [2, E]"),
        ("no-x", lambda: a(FakeData(edge_index=ei, num_nodes=nv)), ValueError, "nor x"),
        ("not-a-graph", lambda: a([1, 2], x), TypeError, "edge_index tensor"),
    ]:
        try:
            fn()
            check(False, "refused/" + name, "no error")
        except kind as e:
            check(text in str(e), "refused/" + name, str(e))
        except Exception as e:
            check(False, "refused/" + name, "%s: %s" % (type(e).__name__, e))
    check_batches(d)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
