"""tests/python/test_device_csr.py LIBDIR -- the graph built with torch ops (gnnc.csr, gnn_graph_from_csr)
against the runtime's host builder (gnn_graph_from_edges), on CPU tensors and the host library.

This is the path a CUDA edge_index takes (GnncModule's graph_builder "auto" with a CUDA library);
here it runs on the CPU, where the same torch ops and the host build of gnn_graph_from_csr can be
compared with the reference:
  - build_csr's arrays (in_ptr, src, dst, out_ptr, out_eid, edge_origin) equal the runtime's host
    builder's, element for element, over random graphs with duplicates, self-loops and isolated
    vertices, a graph of one vertex, graphs without edges, ids with and without a vertex count,
    under each of the 16 combinations of the options;
  - the graph gnn_graph_from_csr makes of them equals the reference in every runtime array (the
    device arrays, degrees, maxima), its host copies appear only when read, and Graph.src, .dst,
    .edge_origin equal the reference's;
  - GnncModule(graph_builder="torch") against graph_builder="runtime": outputs and parameter
    gradients bit for bit over training steps (GCN; EdgeIO with its edge input and edge output in
    edge_index's order, added self-loops dropped), and a PyG-like Data;
  - bad graphs: the same refusals as the host builder (ids out of range, negative, an empty graph:
    GnncError with the runtime's wording), non-integer ids, a builder name, a device mismatch;
    the runtime's memory back to where it was once the graphs are gone.
Prints "ok NAME" / "FAIL NAME: detail"; exit 1 on a failure.
"""
import ctypes
import gc
import itertools
import os
import sys

import numpy as np
import torch

import gnnc
from gnnc.csr import build_csr
from gnnc.nn import GnncModule, graph_from_edge_index

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


def arr(ptr, n, dtype):
    """n elements at a runtime pointer (host memory: the host library), copied."""
    if n == 0:
        return np.zeros(0, dtype)
    return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(np.ctypeslib.as_ctypes_type(dtype))), (n,)).copy()


def runtime_arrays(g, host):
    """The runtime graph's arrays: its device arrays (host=False) or its host copies (host=True)."""
    c = g._g.contents
    nv, ne = int(c.nv), int(c.ne)
    p = (lambda n: getattr(c, "h_" + n)) if host else (lambda n: getattr(c, n))
    return {"in_ptr": arr(p("in_ptr"), nv + 1, np.int64), "src": arr(p("src"), ne, np.int32),
            "dst": arr(p("dst"), ne, np.int32), "out_ptr": arr(p("out_ptr"), nv + 1, np.int64),
            "out_eid": arr(p("out_eid"), ne, np.int32)}


def degrees(g):
    c = g._g.contents
    nv = int(c.nv)
    return (arr(c.in_deg, nv, np.float32), arr(c.out_deg, nv, np.float32), int(c.max_in_deg), int(c.max_out_deg),
            int(c.ng), arr(c.graph_ptr, 2, np.int64), arr(c.vertex_graph, nv, np.int32), arr(c.graph_size, 1, np.float32))


def random_edges(rng, ids, ne):
    """ne edges among ids vertices: a fifth repeats of earlier edges, a seventh self-loops."""
    s = rng.integers(0, ids, ne)
    d = rng.integers(0, ids, ne)
    loops = rng.random(ne) < 1 / 7
    d[loops] = s[loops]
    for i in range(1, ne):
        if rng.random() < 0.2:
            j = rng.integers(0, i)
            s[i], d[i] = s[j], d[j]
    return s, d


OPTION_NAMES = ("add_self_loops", "remove_self_loops", "dedup", "symmetrise")


def check_builder(lib):
    rng = np.random.default_rng(7)
    # (vertex count given or 0, ids below, edges)
    shapes = [(1, 1, 0), (7, 7, 0), (1, 1, 6), (6, 4, 30), (0, 40, 400), (50, 40, 400), (300, 300, 3000),
              (2000, 1500, 1500), (0, 9, 1)]
    cases = arrays_bad = graph_bad = 0
    last = ""
    for k, (nv, ids, ne) in enumerate(shapes):
        s, d = random_edges(rng, ids, ne)
        ei = torch.from_numpy(np.stack([s, d]))
        for bits in itertools.product((False, True), repeat=4):
            opts = dict(zip(OPTION_NAMES, bits))
            cases += 1
            ref = lib.graph(s, d, num_vertices=nv, **opts)
            want = runtime_arrays(ref, host=True)
            csr = build_csr(ei, nv, **opts)
            got = {"in_ptr": csr.in_ptr.numpy(), "src": csr.src.numpy(), "dst": csr.dst.numpy(),
                   "out_ptr": csr.out_ptr.numpy(), "out_eid": csr.out_eid.numpy()}
            diff = [n for n in want if got[n].dtype != want[n].dtype or not np.array_equal(got[n], want[n])]
            if csr.nv != ref.nv or csr.ne != ref.ne or not np.array_equal(csr.edge_origin.numpy(), ref.edge_origin):
                diff.append("nv, ne or edge_origin")
            if diff:
                arrays_bad += 1
                last = "shape %d %s: %s differ" % (k, opts, diff)
                continue
            # the graph gnn_graph_from_csr makes of them
            tg = graph_from_edge_index(lib, ei, nv, **opts)
            g = tg.graph
            lazy = not g._g.contents.h_in_ptr and not g._g.contents.edge_origin
            dev_ok = all(np.array_equal(v, want[n]) for n, v in runtime_arrays(g, host=False).items())
            deg_ok = all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
                         for a, b in zip(degrees(g), degrees(ref)))
            host_ok = np.array_equal(g.src, ref.src) and np.array_equal(g.dst, ref.dst) and \
                np.array_equal(g.edge_origin, ref.edge_origin) and \
                all(np.array_equal(v, want[n]) for n, v in runtime_arrays(g, host=True).items())
            rows_ok = g.num_input_edges == ne and torch.equal(tg._csr_rows, torch.nonzero(torch.from_numpy(ref.edge_origin) >= 0).flatten())
            if not (lazy and dev_ok and deg_ok and host_ok and rows_ok):
                graph_bad += 1
                last = "shape %d %s: host copies made before asked %s, device arrays %s, degrees %s, host copies %s, " \
                       "permutation %s" % (k, opts, not lazy, dev_ok, deg_ok, host_ok, rows_ok)
    check(arrays_bad == 0, "builder/arrays-equal-host-builder", "%d of %d cases: %s" % (arrays_bad, cases, last))
    check(graph_bad == 0, "builder/graph-equals-host-builder", "%d of %d cases: %s" % (graph_bad, cases, last))
    check(cases == len(shapes) * 16, "builder/cases", "%d cases" % cases)


def grads(m):
    return [p.grad.clone() for _, p in m.named_gnnc_parameters()]


class FakeData:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def check_modules(d):
    lib = gnnc.load(os.path.join(d, "libgcn.so"))
    F = lib.inputs[0].shape[0]
    torch.manual_seed(3)
    nv, ne = 400, 3000
    ei = torch.randint(0, nv, (2, ne))
    ei[:, :40] = ei[:, 40:80]  # duplicates
    ei[1, 80:120] = ei[0, 80:120]  # self-loops
    x = torch.randn(nv, F)
    for opts in (dict(add_self_loops=True), dict(symmetrise=True, dedup=True), dict(add_self_loops=True, dedup=True)):
        a = GnncModule(lib, seed=2, graph_builder="torch", **opts)
        b = GnncModule(lib, seed=2, graph_builder="runtime", **opts)
        a.train(), b.train()
        same = True
        for step in range(3):
            ya, yb = a(ei, x), b(ei, x)
            ya.square().sum().backward()
            yb.square().sum().backward()
            same = same and torch.equal(ya, yb) and all(torch.equal(p, q) for p, q in zip(grads(a), grads(b)))
        built = a._graphs[id(ei)][3].graph
        on_device = not built._g.contents.h_in_ptr  # made by gnn_graph_from_csr, host copies never asked for
        name = "module/gcn-" + "-".join(sorted(opts))
        check(same and on_device, name, "outputs or gradients differ: %s; graph from gnn_graph_from_csr: %s" % (
            not same, on_device))
    # a Data, in eval mode
    a.eval(), b.eval()
    with torch.no_grad():
        ya, yb = a(FakeData(edge_index=ei, num_nodes=nv, x=x)), b(FakeData(edge_index=ei, num_nodes=nv, x=x))
    check(torch.equal(ya, yb), "module/data", "max diff %g" % float((ya - yb).abs().max()))

    # edge rows in edge_index's order through the device-built permutation
    le = gnnc.load(os.path.join(d, "libedgein.so"))
    a = GnncModule(le, seed=3, add_self_loops=True, graph_builder="torch")
    b = GnncModule(le, seed=3, add_self_loops=True, graph_builder="runtime")
    xe, w, g_out = torch.randn(nv, 3), torch.randn(ne, 2), torch.randn(ne, 2)
    ya, yb = a(ei, xe, w), b(ei, xe, w)
    (ya * g_out).sum().backward()
    (yb * g_out).sum().backward()
    check(ya.shape == (ne, 2) and torch.equal(ya, yb) and all(torch.equal(p, q) for p, q in zip(grads(a), grads(b))),
          "module/edge-rows", "shape %s, max diff %g" % (tuple(ya.shape), float((ya - yb).abs().max())))
    return lib


def expect(name, fn, kind, text):
    try:
        fn()
        check(False, "refused/" + name, "no error")
    except kind as e:
        check(text in str(e), "refused/" + name, "%s: %s" % (type(e).__name__, e))
    except Exception as e:
        check(False, "refused/" + name, "%s: %s" % (type(e).__name__, e))


def runtime_message(fn):
    try:
        fn()
    except gnnc.GnncError as e:
        return str(e).split("gnn_graph_from_edges: ", 1)[-1]
    return "no error"


def check_refusals(lib):
    gc.collect()  # the graphs of the checks before: gone before the count
    live0 = lib.memory_usage()[0]
    cases = [("negative-source", [[0, -5], [1, 0]], 3), ("negative-no-count", [[0, -1], [1, 2]], 0),
             ("destination-beyond", [[0, 1], [1, 3]], 3),
             ("beyond-2-31", [[0, 2**31], [1, 0]], 0), ("empty", [[], []], 0)]
    for name, e, nv in cases:
        ei = torch.tensor(e, dtype=torch.int64).reshape(2, -1)
        want = runtime_message(lambda: lib.graph(ei[0].numpy(), ei[1].numpy(), num_vertices=nv))
        expect(name, lambda: build_csr(ei, nv), gnnc.GnncError, "GNN_ERR_INVALID: edge_index: " + want)
    m = GnncModule(lib, graph_builder="torch")
    x = torch.randn(3, lib.inputs[0].shape[0])
    expect("module-out-of-range", lambda: m(torch.tensor([[0, 1], [1, 7]]), x), gnnc.GnncError,
           "edge 1: destination vertex id 7 out of range (the graph has 3)")
    expect("float-ids", lambda: build_csr(torch.tensor([[0.0, 1.0], [1.0, 0.0]])), TypeError, "integer vertex ids")
    expect("bad-shape", lambda: build_csr(torch.zeros(3, 2, dtype=torch.int64)), ValueError, "shape [2, E]")
    expect("builder-name", lambda: GnncModule(lib, graph_builder="gpu"), ValueError, "graph_builder must be")
    expect("not-a-tensor", lambda: graph_from_edge_index(lib, np.zeros((2, 1), np.int64)), ValueError,
           "edge_index on the library's device")
    expect("num-vertices", lambda: build_csr(torch.zeros(2, 1, dtype=torch.int64), -1), gnnc.GnncError,
           "-1 vertices out of range")
    # the runtime's own checks behind the Python builder: a CSR that breaks a rule
    ip = torch.tensor([0, 2, 1, 2], dtype=torch.int64)
    src = torch.tensor([0, 1], dtype=torch.int32)
    expect("runtime-rule", lambda: lib.graph_from_csr(3, 2, ip.data_ptr(), src.data_ptr(), ip.data_ptr(), src.data_ptr()),
           gnnc.GnncError, "gnn_graph_from_csr: in_ptr decreases at vertex 1 (in_ptr[1] = 2, in_ptr[2] = 1)")
    del m
    gc.collect()
    live1 = lib.memory_usage()[0]
    check(live1 == live0, "refused/no-leak", "%d bytes live before, %d after" % (live0, live1))


def main():
    d = sys.argv[1]
    lib = check_modules(d)
    check_builder(lib)
    check_refusals(lib)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
