"""tests/gpu/python_cuda.py LIBDIR GRAPH -- GnncModule on CUDA tensors against the same on CPU tensors.

LIBDIR holds lib<m>-host.so and lib<m>-cuda.so for m in gcn, gat (tests/python/models/, built by
tests/gpu/check.sh). For each model: one GnncModule per library, the same parameters (seed) and
input; the forward in eval mode, then a training-mode forward and backward of loss = sum(w * y) with
dropout seeded alike (the CUDA and host code draw the same masks: codegen/rng checks it); the CUDA
output and every parameter gradient equal the CPU ones to 1e-4 (relative to the tensor's largest
element), and they stay on the device (no copy through the host). Then 3 Adam steps of each end at
the same parameters. Prints "ok NAME" / "FAIL NAME: detail"; exit 1 on a failure. On a machine
without a GPU it says so and exits 2 (make gpu-check runs it only where there is one).

--self-test: both sides the host library on CPU tensors, so make test checks this script itself
on a machine without a GPU (tests/suites/gpukit.sh).
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
        try:
            run(model, args[0], args[1], dev)
        except Exception as e:  # a crash of one model is its failure; the other still runs
            check(False, "%s/run" % model, "%s: %s" % (type(e).__name__, e))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
