"""tests/python/test_torch.py LIBDIR GRAPH -- the PyTorch wrapper against torch autograd.

LIBDIR holds libgcn.so and libgat.so built from tests/python/models/{gcn,gat}.gnn (host), and
libgin.so from tests/interp/models/gin.gnn (scalar parameters).
For each: the gnnc module's output and parameter gradients equal those of the same function
written in PyTorch (float64, autograd), on GRAPH (a dataset folder) and on a graph from NumPy
edge arrays; a few Adam steps of both in a training loop end at the same parameters; the
same graph used twice in one step (the recompute path); an input that requires grad is
refused (these libraries are compiled for parameters only); a parameter a diverged step made NaN
or infinite is refused by the module's attribute name; module.double() and .half() give their
output and gradients in that dtype, computed in float32. Prints "ok NAME" / "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule

torch.manual_seed(0)
import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


def close(a, b, rtol=1e-4, atol=1e-5):
    a, b = a.detach().double(), b.detach().double()
    return a.shape == b.shape and torch.allclose(a, b, rtol=rtol, atol=atol), float((a - b).abs().max()) if a.shape == b.shape else -1


# ---------------------------------------------------------------- the PyTorch references (float64)

def degrees(g):
    src, dst = torch.from_numpy(g.src.astype(np.int64)), torch.from_numpy(g.dst.astype(np.int64))
    indeg = torch.zeros(g.nv, dtype=torch.float64).index_add_(0, dst, torch.ones(g.ne, dtype=torch.float64))
    outdeg = torch.zeros(g.nv, dtype=torch.float64).index_add_(0, src, torch.ones(g.ne, dtype=torch.float64))
    return src, dst, indeg, outdeg


def gcn_ref(p, g, x):
    src, dst, indeg, outdeg = degrees(g)
    c = torch.rsqrt(outdeg[src] * indeg[dst])

    def conv(W, b, h):
        m = c[:, None] * (h[src] @ W)
        return torch.zeros(g.nv, W.shape[1], dtype=h.dtype).index_add_(0, dst, m) + b

    h = torch.relu(conv(p["gcnconv0.W"], p["gcnconv0.b"], x))
    return conv(p["gcnconv1.W"], p["gcnconv1.b"], h)


def gat_ref(p, g, x):
    src, dst, _, _ = degrees(g)

    def conv(W, a, h):
        H, D = W.shape[1], W.shape[2]
        wx = torch.einsum("nf,fhd->nhd", h, W)
        e = torch.nn.functional.leaky_relu((torch.cat([wx[src], wx[dst]], -1) * a).sum(-1), 0.2)  # [E, H]
        emax = torch.full((g.nv, H), -1e300, dtype=h.dtype).scatter_reduce(0, dst[:, None].expand(-1, H), e.detach(), "amax")
        ex = torch.exp(e - emax[dst])
        den = torch.zeros(g.nv, H, dtype=h.dtype).index_add_(0, dst, ex)
        alpha = ex / den[dst]
        return torch.zeros(g.nv, H, D, dtype=h.dtype).index_add_(0, dst, alpha[..., None] * wx[src])

    h = torch.nn.functional.elu(conv(p["gatconv0.W"], p["gatconv0.a"], x).reshape(g.nv, -1))
    return conv(p["gatconv1.W"], p["gatconv1.a"], h).mean(1)


def gin_ref(p, g, x):
    """tests/interp/models/gin.gnn: its eps are scalar parameters (shape ()), which the binding
    once could not set (numpy's ascontiguousarray makes a scalar (1,))."""
    src, dst, _, _ = degrees(g)

    def conv(k, h):
        agg = torch.zeros_like(h).index_add_(0, dst, h[src])
        z = (1 + p["ginconv%d.eps" % k]) * h + agg
        return torch.relu(z @ p["ginconv%d.W1" % k] + p["ginconv%d.b1" % k]) @ p["ginconv%d.W2" % k] + p["ginconv%d.b2" % k]

    return conv(1, torch.relu(conv(0, x)))


# ---------------------------------------------------------------- the checks

def compare_grads(tag, lib, ref, g, F):
    layer = GnncModule(lib, seed=3)
    x = torch.randn(g.nv, F)
    w = torch.randn(g.nv, lib.output.width)  # loss = sum(w * y): a non-uniform d loss / d y
    y = layer(g, x)
    (w * y).sum().backward()
    p64 = {n: t.detach().double().requires_grad_() for n, t in layer.named_gnnc_parameters()}
    y_ref = ref(p64, g, x.double())
    (w.double() * y_ref).sum().backward()
    ok, err = close(y, y_ref)
    check(ok, "%s/forward" % tag, "max abs difference %g" % err)
    for n, t in layer.named_gnnc_parameters():
        ok, err = close(t.grad, p64[n].grad)
        check(ok, "%s/grad/%s" % (tag, n), "max abs difference %g" % err)
    return layer


def training_loop(tag, lib, ref, g, F, steps=5):
    """Adam on a classification loss, gnnc module vs the PyTorch reference: the same parameters."""
    layer = GnncModule(lib, seed=5)
    p_ref = {n: torch.nn.Parameter(t.detach().clone().double()) for n, t in layer.named_gnnc_parameters()}
    x = torch.randn(g.nv, F)
    labels = torch.randint(0, lib.output.width, (g.nv,))
    opt = torch.optim.Adam(layer.parameters(), lr=0.01)
    opt_ref = torch.optim.Adam(p_ref.values(), lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(layer(g, x), labels).backward()
        opt.step()
        opt_ref.zero_grad()
        torch.nn.functional.cross_entropy(ref(p_ref, g, x.double()), labels).backward()
        opt_ref.step()
    worst = max(float((t.detach().double() - p_ref[n].detach()).abs().max()) for n, t in layer.named_gnnc_parameters())
    check(worst < 1e-4, "%s/adam-%d-steps" % (tag, steps), "parameters differ by %g" % worst)


def check_diverged(libdir):
    """A parameter that became NaN or infinite (a diverged step) is refused naming the module's
    attribute (gcnconv1__b) as well as the model's name, and saying what happened; before, the message
    named only 'gcnconv1.b', which is no attribute of the module, and said "values must be finite"."""
    lib = gnnc.load(libdir + "/libgcn.so")
    g = lib.graph([0, 1, 2], [1, 2, 0])
    layer = GnncModule(lib, seed=1)
    x = torch.randn(3, lib.inputs[0].width)
    opt = torch.optim.SGD(layer.parameters(), lr=1.0)
    layer(g, x).sum().backward()
    with torch.no_grad():
        layer.gcnconv1__b.grad[1] = float("nan")  # what a diverged loss hands the optimiser
        layer.gcnconv1__b.grad[2] = float("inf")
    opt.step()
    try:
        layer(g, x)
        check(False, "diverged/refused", "accepted")
    except ValueError as e:
        want = ["parameter gcnconv1__b (the model's 'gcnconv1.b') holds 1 NaN and 1 infinite of its 3 values", "diverged"]
        check(all(w in str(e) for w in want), "diverged/refused", str(e))


def check_dtypes(libdir):
    """module.double() / .half(): gnnc still computes in float32 (the parameters rounded to it), and
    the output comes in the parameters' dtype, the gradients in theirs: equal to a float32 module's
    on the rounded parameters, cast. A network converted as a whole (gnnc -> Linear) runs forward
    and backward. Before, the output stayed float32, and the next float64 layer failed."""
    lib = gnnc.load(libdir + "/libgcn.so")
    g = lib.graph([0, 1, 2, 3, 1], [1, 2, 3, 0, 3])
    x = torch.randn(4, lib.inputs[0].width)
    for dtype in (torch.float64, torch.float16):
        tag = str(dtype).split(".")[1]
        conv, ref = GnncModule(lib, seed=1).to(dtype), GnncModule(lib, seed=1)
        with torch.no_grad():
            for (_, p), (_, q) in zip(conv.named_gnnc_parameters(), ref.named_gnnc_parameters()):
                q.copy_(p.float())  # the values gnnc computes with
        y, y0 = conv(g, x), ref(g, x)
        (y.float() * 2).sum().backward()
        (y0 * 2).sum().backward()
        grads = [(p.grad, q.grad) for (_, p), (_, q) in zip(conv.named_gnnc_parameters(), ref.named_gnnc_parameters())]
        check(y.dtype == dtype and torch.equal(y, y0.to(dtype)), "dtype/%s-output" % tag,
              "output %s (want %s), max diff %g" % (y.dtype, dtype, float((y.double() - y0.double()).abs().max())))
        check(all(a.dtype == dtype and torch.equal(a, b.to(dtype)) for a, b in grads), "dtype/%s-grads" % tag,
              "gradient dtypes %s" % [a.dtype for a, _ in grads])
    net = torch.nn.ModuleDict({"gnn": GnncModule(lib, seed=1), "dec": torch.nn.Linear(lib.output.width, 2)}).double()
    try:
        out = net["dec"](net["gnn"](g, x.double()))
        out.sum().backward()
        check(out.dtype == torch.float64 and all(p.grad.dtype == torch.float64 for p in net.parameters()),
              "dtype/network-double", "output %s" % out.dtype)
    except Exception as e:  # noqa: BLE001 -- any failure is this check's
        check(False, "dtype/network-double", "%s: %s" % (type(e).__name__, e))


def main():
    libdir, graph_path = sys.argv[1], sys.argv[2]
    rs = np.random.RandomState(7)
    for name, ref in (("gcn", gcn_ref), ("gat", gat_ref), ("gin", gin_ref)):
        lib = gnnc.load("%s/lib%s.so" % (libdir, name))
        F = lib.inputs[0].width
        g_file = lib.load_graph(graph_path)
        # a graph from NumPy arrays, in no particular order, with self-loops added by the runtime
        src, dst = rs.randint(0, 30, 120), rs.randint(0, 30, 120)
        g_np = lib.graph(src, dst, num_vertices=30, add_self_loops=True)
        check(g_np.nv == 30 and g_np.ne >= 120, "%s/graph-from-numpy" % name, "nv %d ne %d" % (g_np.nv, g_np.ne))
        compare_grads("%s/file-graph" % name, lib, ref, g_file, F)
        layer = compare_grads("%s/numpy-graph" % name, lib, ref, g_np, F)
        training_loop(name, lib, ref, g_file, F)
        # the same graph twice in one step: the second forward overwrites the first's activations,
        # so the first backward recomputes its forward
        layer.zero_grad()
        x1, x2 = torch.randn(g_np.nv, F), torch.randn(g_np.nv, F)
        (layer(g_np, x1).sum() + 2 * layer(g_np, x2).sum()).backward()
        p64 = {n: t.detach().double().requires_grad_() for n, t in layer.named_gnnc_parameters()}
        (ref(p64, g_np, x1.double()).sum() + 2 * ref(p64, g_np, x2.double()).sum()).backward()
        # (close's rtol 1e-4, as the other gradient checks: GIN's unnormalised sums make gradients in
        # the tens, whose float32 rounding alone came near an absolute 1e-4)
        bad = [(n, close(t.grad, p64[n].grad)[1]) for n, t in layer.named_gnnc_parameters() if not close(t.grad, p64[n].grad)[0]]
        check(not bad, "%s/same-graph-twice" % name, "gradients differ: %s" % bad)
        # inputs that require grad are refused by a library compiled for parameters only, with a
        # message naming the flag that builds one for them (test_input_grads.py runs such libraries)
        try:
            layer(g_np, torch.randn(g_np.nv, F, requires_grad=True))
            check(False, "%s/input-requires-grad" % name, "accepted")
        except ValueError as e:
            check("gnnc --input-grads=x" in str(e), "%s/input-requires-grad" % name, str(e))
        # inputs that are not floating-point tensors: refused, naming the input (an integer tensor was
        # cast silently; None failed in the graph's vertex count with an AttributeError)
        for bad, want in ((torch.zeros(g_np.nv, F, dtype=torch.int64), "is torch.int64: the model takes floating-point inputs"),
                          (None, "must be a tensor, not NoneType")):
            try:
                layer(g_np, bad)
                check(False, "%s/input-not-float32/%s" % (name, type(bad).__name__), "accepted")
            except TypeError as e:
                check(("input %r " % lib.inputs[0].name) + want in str(e), "%s/input-not-float32/%s" % (name, type(bad).__name__),
                      str(e))
        # eval mode: no autograd state needed, same output as the reference
        layer.eval()
        with torch.no_grad():
            y = layer(g_np, x1)
        p64 = {n: t.detach().double() for n, t in layer.named_gnnc_parameters()}
        ok, err = close(y, ref(p64, g_np, x1.double()))
        check(ok, "%s/eval-no-grad" % name, "max abs difference %g" % err)
        # eval mode with autograd: gnnc's backward needs a training forward, which the wrapper
        # recomputes (these models have no dropout: the same function); the gradients match
        layer.zero_grad()
        (layer(g_np, x1) * 3).sum().backward()
        p64 = {n: t.detach().double().requires_grad_() for n, t in layer.named_gnnc_parameters()}
        (ref(p64, g_np, x1.double()) * 3).sum().backward()
        # (rtol 1e-4 as compare_grads: GIN's unnormalised sums make gradients in the tens)
        bad = [(n, close(t.grad, p64[n].grad)[1]) for n, t in layer.named_gnnc_parameters() if not close(t.grad, p64[n].grad)[0]]
        check(not bad, "%s/eval-backward" % name, "gradients differ: %s" % bad)
    check_diverged(libdir)
    check_dtypes(libdir)
    print("%d failed" % check_lines.failures)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
