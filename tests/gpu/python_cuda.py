"""tests/gpu/python_cuda.py LIBDIR GRAPH -- GnncModule on CUDA tensors against the same on CPU tensors.

LIBDIR holds lib<m>-host.so and lib<m>-cuda.so for m in gcn, gat (tests/python/models/, built by
tests/gpu/check.sh). For each model: one GnncModule per library, the same parameters (seed) and
input; the forward in eval mode, then a training-mode forward and backward of loss = sum(w * y) (the
models have no dropout: tests/python/models/gcn.gnn, gat.gnn; that CUDA and host code draw the
same masks is codegen/rng's check, not this one's); the CUDA output and every parameter gradient equal the CPU ones to 1e-4 (relative to the tensor's largest
element), and they stay on the device (no copy through the host). Then 3 Adam steps of each end at
the same parameters.

Mini-batches (run_batches): LIBDIR also holds lib<m>_ig-host.so and lib<m>_ig-cuda.so, the same
models built with --input-grads=all. One GnncModule per side, fed in lock step 4 induced subgraphs
of GRAPH on random vertex subsets of 300, 900, 200 and 1500 vertices (so its one model is rebound
3 times, its arenas grown at the 900 and the 1500 batch and reused at the 200 one), each a
training forward, a backward to the parameters and to the input x (x requires grad), and one Adam
step: per batch the outputs, the parameter gradients and d loss / d x agree to 1e-4, and at the
end the parameters; the CUDA module rebinds and reallocates (its memory plan changes) at the same
batches as the CPU one, which are the ones the sizes imply.

A CUDA edge_index (run_edge_index): GnncModule(cuda)(edge_index, x) with edge_index on the GPU builds
its graph there (gnnc.csr's torch ops, gnn_graph_from_csr: the graph has no host copies after the
step, and its edge permutation is on the GPU); its training forward and backward equal those of the
same CUDA module with graph_builder="runtime" (the host builder, edge_index copied to the host) to
1e-6 and the CPU module's to 1e-4; the graph's arrays, copied to the host on demand, equal the host
builder's.

Prints "ok NAME" / "FAIL NAME: detail"; exit 1 on a failure. On a machine without a GPU it says so
and exits 2 (make gpu-check runs it only where there is one).

--self-test: both sides the host library on CPU tensors (lib<m>-host.so, lib<m>_ig-host.so), so
make test checks this script itself on a machine without a GPU (tests/suites/gpukit.sh).
"""
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule

failures = 0


def check(ok, name, detail=""):
    global failures
    print(("ok %s" % name) if ok else ("FAIL %s: %s" % (name, detail)))
    failures += 0 if ok else 1


def rel(a, b):
    a, b = a.detach().double().cpu(), b.detach().double().cpu()
    if a.shape != b.shape:
        return float("inf")
    scale = max(float(b.abs().max()), 1e-6)
    return float((a - b).abs().max()) / scale


def run(model, libdir, graph, dev):
    other = "cuda" if dev.type == "cuda" else "host"
    host, cuda = gnnc.load("%s/lib%s-host.so" % (libdir, model)), gnnc.load("%s/lib%s-%s.so" % (libdir, model, other))
    g_h = host.load_graph(graph, add_self_loops=True)
    g_c = cuda.load_graph(graph, add_self_loops=True)
    m_h, m_c = GnncModule(host, seed=3), GnncModule(cuda, seed=3).to(dev)
    torch.manual_seed(0)
    x = torch.randn(g_h.nv, host.inputs[0].shape[0])
    w = torch.randn(g_h.nv, host.output.width)

    m_h.eval(), m_c.eval()
    y_h, y_c = m_h(g_h, x), m_c(g_c, x.to(dev))
    check(y_c.device.type == dev.type, "%s/forward-on-device" % model, "the output is on %s" % y_c.device)
    e = rel(y_c, y_h)
    check(e <= 1e-4, "%s/forward" % model, "CUDA vs CPU %.3g" % e)

    m_h.train(), m_c.train()
    (w * m_h(g_h, x)).sum().backward()
    (w.to(dev) * m_c(g_c, x.to(dev))).sum().backward()
    for (n, p_h), (_, p_c) in zip(m_h.named_gnnc_parameters(), m_c.named_gnnc_parameters()):
        if p_c.grad is None or p_c.grad.device.type != dev.type:
            check(False, "%s/grad/%s" % (model, n), "no gradient on the device")
            continue
        e = rel(p_c.grad, p_h.grad)
        check(e <= 1e-4, "%s/grad/%s" % (model, n), "CUDA vs CPU %.3g" % e)

    opt_h, opt_c = torch.optim.Adam(m_h.parameters(), lr=0.01), torch.optim.Adam(m_c.parameters(), lr=0.01)
    for _ in range(3):
        for m, opt, g, xx, ww in ((m_h, opt_h, g_h, x, w), (m_c, opt_c, g_c, x.to(dev), w.to(dev))):
            opt.zero_grad()
            (ww * m(g, xx)).sum().backward()
            opt.step()
    e = max(rel(p_c, p_h) for (_, p_h), (_, p_c) in zip(m_h.named_gnnc_parameters(), m_c.named_gnnc_parameters()))
    check(e <= 1e-4, "%s/adam-steps" % model, "parameters after 3 steps: CUDA vs CPU %.3g" % e)


def induced(graph_src, graph_dst, nv_all, size, rng):
    """(src, dst, n): the subgraph induced on size random vertices of the graph, renumbered 0..n-1."""
    keep = np.sort(rng.choice(nv_all, size, replace=False))
    new_id = np.full(nv_all, -1, np.int64)
    new_id[keep] = np.arange(size)
    s, d = new_id[graph_src], new_id[graph_dst]
    both = (s >= 0) & (d >= 0)
    return s[both], d[both], size


BATCH_SIZES = (300, 900, 200, 1500)  # grows, grows, fits, grows: the capacity goes up and a batch reuses it


def run_batches(model, libdir, graph, dev):
    """One module per side over mini-batches of different sizes, in lock step (see the top)."""
    other = "cuda" if dev.type == "cuda" else "host"
    host, cuda = gnnc.load("%s/lib%s_ig-host.so" % (libdir, model)), gnnc.load("%s/lib%s_ig-%s.so" % (libdir, model, other))
    full = host.load_graph(graph)
    m_h, m_c = GnncModule(host, seed=5), GnncModule(cuda, seed=5).to(dev)
    m_h.train(), m_c.train()
    opt_h, opt_c = torch.optim.Adam(m_h.parameters(), lr=0.01), torch.optim.Adam(m_c.parameters(), lr=0.01)
    rng = np.random.default_rng(11)
    torch.manual_seed(1)
    F, D = host.inputs[0].shape[0], host.output.width
    worst = {"forward": 0.0, "param-grads": 0.0, "input-grads": 0.0}
    where = {k: "" for k in worst}
    on_device = []
    plans = {"cpu": [], "other": []}
    prev = {"cpu": None, "other": None}
    for b, size in enumerate(BATCH_SIZES):
        src, dst, n = induced(full.src, full.dst, full.nv, size, rng)
        g_h = host.graph(src, dst, num_vertices=n, add_self_loops=True)
        g_c = cuda.graph(src, dst, num_vertices=n, add_self_loops=True)
        x = torch.randn(n, F)
        w = torch.randn(n, D)
        x_h, x_c = x.clone().requires_grad_(), x.to(dev).requires_grad_()
        ys = []
        for m, opt, g, xx, ww in ((m_h, opt_h, g_h, x_h, w), (m_c, opt_c, g_c, x_c, w.to(dev))):
            opt.zero_grad()
            y = m(g, xx)
            (ww * y).sum().backward()
            ys.append(y)
        # the memory plan after this batch's bind: a change is a reallocation of the arenas
        for side, m in (("cpu", m_h), ("other", m_c)):
            plan = m._model.memory_plan()
            plans[side].append(plan != prev[side])
            prev[side] = plan
        on_device.append(ys[1].device.type == dev.type and x_c.grad is not None and x_c.grad.device.type == dev.type and
                         all(p.grad is not None and p.grad.device.type == dev.type for _, p in m_c.named_gnnc_parameters()))
        errs = {"forward": rel(ys[1], ys[0]),
                "param-grads": max(rel(p_c.grad, p_h.grad) if p_c.grad is not None else float("inf")
                                   for (_, p_h), (_, p_c) in zip(m_h.named_gnnc_parameters(), m_c.named_gnnc_parameters())),
                "input-grads": rel(x_c.grad, x_h.grad) if x_c.grad is not None and x_h.grad is not None else float("inf")}
        for k, e in errs.items():
            if not e <= worst[k]:
                worst[k], where[k] = e, "batch %d (%d vertices, %d edges)" % (b, n, g_h.ne)
        opt_h.step(), opt_c.step()
    check(all(on_device), "%s/batches/on-device" % model,
          "output, d loss / d x or a parameter gradient not on %s at batches %s" % (
              dev.type, [b for b, ok in enumerate(on_device) if not ok]))
    for k in ("forward", "param-grads", "input-grads"):
        check(worst[k] <= 1e-4, "%s/batches/%s" % (model, k), "CUDA vs CPU %.3g at %s" % (worst[k], where[k]))
    e = max(rel(p_c, p_h) for (_, p_h), (_, p_c) in zip(m_h.named_gnnc_parameters(), m_c.named_gnnc_parameters()))
    check(e <= 1e-4, "%s/batches/adam-steps" % model, "parameters after %d batches: CUDA vs CPU %.3g" % (len(BATCH_SIZES), e))
    # one model each, rebound per batch; reallocated at the batches that exceed the capacity (the
    # first batch creates it: not counted), the same on both sides
    rb_h, rb_c = m_h._model.bindings, m_c._model.bindings
    check(rb_h == rb_c == len(BATCH_SIZES) - 1, "%s/batches/rebinds" % model,
          "rebinds: CPU %d, CUDA %d, want %d" % (rb_h, rb_c, len(BATCH_SIZES) - 1))
    grew_h = [b for b, changed in enumerate(plans["cpu"]) if changed and b > 0]
    grew_c = [b for b, changed in enumerate(plans["other"]) if changed and b > 0]
    check(grew_h == grew_c == [1, 3], "%s/batches/reallocations" % model,
          "the memory plan grew at batches CPU %s, CUDA %s; want [1, 3] (sizes %s)" % (grew_h, grew_c, list(BATCH_SIZES)))


def run_edge_index(model, libdir, graph, dev):
    """A CUDA edge_index: the graph built on the device against the host builder's (see the top)."""
    other = "cuda" if dev.type == "cuda" else "host"
    host, cuda = gnnc.load("%s/lib%s-host.so" % (libdir, model)), gnnc.load("%s/lib%s-%s.so" % (libdir, model, other))
    full = host.load_graph(graph)
    ei = torch.from_numpy(np.stack([full.src.astype(np.int64), full.dst.astype(np.int64)]))
    opts = dict(add_self_loops=True, dedup=True)
    # "auto" builds on the device for a CUDA edge_index; the self-test (CPU) asks for the torch ops by name
    m_d = GnncModule(cuda, seed=4, graph_builder="auto" if dev.type == "cuda" else "torch", **opts).to(dev)
    m_r = GnncModule(cuda, seed=4, graph_builder="runtime", **opts).to(dev)
    m_h = GnncModule(host, seed=4, **opts)
    torch.manual_seed(2)
    x = torch.randn(full.nv, host.inputs[0].shape[0])
    w = torch.randn(full.nv, host.output.width)
    ys = []
    for m, e, xx, ww in ((m_d, ei.to(dev), x.to(dev), w.to(dev)), (m_r, ei.to(dev), x.to(dev), w.to(dev)), (m_h, ei, x, w)):
        m.train()
        y = m(e, xx)
        (ww * y).sum().backward()
        ys.append((y, [p.grad for _, p in m.named_gnnc_parameters()], e))
    tg = m_d._graphs[id(ys[0][2])][3]
    g = tg.graph
    check(not g._g.contents.h_in_ptr and tg._csr_rows.device.type == dev.type, "%s/edge_index/built-on-device" % model,
          "host copies made: %s; the permutation on %s" % (bool(g._g.contents.h_in_ptr), tg._csr_rows.device))
    for (y, gr, _), tol, name in ((ys[1], 1e-6, "runtime-built"), (ys[2], 1e-4, "cpu")):
        e = max([rel(ys[0][0], y)] + [rel(a, b) if a is not None and b is not None else float("inf")
                                      for a, b in zip(ys[0][1], gr)])
        check(e <= tol, "%s/edge_index/vs-%s" % (model, name), "output and parameter gradients differ by %.3g" % e)
    ref = m_r._graphs[id(ys[1][2])][3].graph
    check(np.array_equal(g.src, ref.src) and np.array_equal(g.dst, ref.dst) and
          np.array_equal(g.edge_origin, ref.edge_origin), "%s/edge_index/host-copies" % model,
          "the device-built graph's arrays differ from the host builder's")


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    if len(args) != 2:
        print("usage: python_cuda.py [--self-test] LIBDIR GRAPH", file=sys.stderr)
        return 2
    dev = torch.device("cpu" if "--self-test" in sys.argv else "cuda")
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("python_cuda: no CUDA device for torch here: nothing run", file=sys.stderr)
        return 2
    for model in ("gcn", "gat"):
        for fn, tag in ((run, "run"), (run_batches, "batches/run"), (run_edge_index, "edge_index/run")):
            try:
                fn(model, args[0], args[1], dev)
            except Exception as e:  # a crash of one case is its failure; the others still run
                check(False, "%s/%s" % (model, tag), "%s: %s" % (type(e).__name__, e))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
