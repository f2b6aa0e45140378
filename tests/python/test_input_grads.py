"""tests/python/test_input_grads.py LIBDIR GRAPH CORA -- gradients with respect to inputs, end to end.

LIBDIR holds host libraries built by tests/suites/python.sh: libgcn_ig.so, libgat_ig.so and
libedgein_ig.so (tests/python/models/, gnnc --input-grads=all), libpassthrough_ig.so
(tests/grad/input_passthrough.gnn, the same flag), libgcn.so (the same GCN,
parameters only) and libgat_cora.so (dsl-examples/gat.gnn with its dropouts at p = 0 and 64 input
features, --input-grads=all). GRAPH is a small dataset folder, CORA the Cora folder.

  grads/MODEL/...     d loss / d x (and the parameters') through GnncModule equal torch autograd of
                      test_torch.py's float64 reference of the same model; an edge input's gradient
                      comes back in edge_index's order
  gradcheck/...       torch.autograd.gradcheck of GnncFunction with respect to a vertex and an edge
                      input (float32 inside: a coarse step and tolerances)
  passthrough/...     an input's gradient that is d loss / d out itself, and one identically zero (None)
  on-request/...      a backward where no input requires grad computes none (input_grad is NULL), and
                      the parameter gradients are then bit for bit those of the parameter-only library
  refused/...         a parameter-only library refuses an input that requires grad, naming the flag
  double-backward/... a gradient through the layer taken with create_graph=True equals a plain
                      backward's, and a backward through it (a gradient penalty) raises
  two-layers/...      gnnc GCN -> PyTorch Linear + ReLU -> gnnc GAT, trained a few SGD steps, against
                      the same composition of the references
  pyg/...             a Linear encoder -> gnnc GAT -> Linear decoder trained end to end on Cora with
                      Adam against the same model with torch_geometric's GATConv: the loss of every
                      epoch and every parameter at the end within 1e-5 (skipped with a note when
                      torch_geometric or Cora is missing)
Prints "ok NAME" / "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gnnc  # noqa: E402
from gnnc.nn import GnncFunction, GnncModule  # noqa: E402
from test_torch import gat_ref, gcn_ref  # noqa: E402  (the float64 references)

torch.manual_seed(0)
import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


def maxdiff(a, b):
    a, b = a.detach().double(), b.detach().double()
    return float((a - b).abs().max()) if a.shape == b.shape else float("inf")


def scaled(a, b):
    """max |a - b| relative to max |b| (float32 against float64 references)."""
    return maxdiff(a, b) / max(float(b.detach().double().abs().max()), 1e-30)


# ---------------------------------------------------------------- gradients against the references

def check_grads(tag, lib, ref, g, F):
    layer = GnncModule(lib, seed=3)
    x = torch.randn(g.nv, F, requires_grad=True)
    w = torch.randn(g.nv, lib.output.width)
    (w * layer(g, x)).sum().backward()
    p64 = {n: t.detach().double().requires_grad_() for n, t in layer.named_gnnc_parameters()}
    x64 = x.detach().double().requires_grad_()
    (w.double() * ref(p64, g, x64)).sum().backward()
    e = scaled(x.grad, x64.grad)
    check(e < 1e-5, "grads/%s/x" % tag, "d loss / d x differs by %.3g (relative to its largest)" % e)
    worst = max(scaled(t.grad, p64[n].grad) for n, t in layer.named_gnnc_parameters())
    check(worst < 1e-5, "grads/%s/params" % tag, "parameter gradients differ by %.3g" % worst)


def check_edge_input(lib):
    """EdgeIO: y[e] = w[e] * (x[src] W): d/dw and d/dx, edges in edge_index's order."""
    rs = np.random.RandomState(3)
    nv, ne = 12, 40
    ei = torch.from_numpy(np.stack([rs.randint(0, nv, ne), rs.randint(0, nv, ne)]).astype(np.int64))
    layer = GnncModule(lib, seed=2)
    x = torch.randn(nv, 3, requires_grad=True)
    w = torch.randn(ne, 2, requires_grad=True)
    r = torch.randn(ne, 2)
    (r * layer(ei, x, w)).sum().backward()
    W = dict(layer.named_gnnc_parameters())["W"].detach().double()
    x64, w64 = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    (r.double() * (w64 * (x64[ei[0]] @ W))).sum().backward()
    check(scaled(w.grad, w64.grad) < 1e-5, "grads/edgein/w", "d/dw differs by %.3g" % scaled(w.grad, w64.grad))
    check(scaled(x.grad, x64.grad) < 1e-5, "grads/edgein/x", "d/dx differs by %.3g" % scaled(x.grad, x64.grad))
    # gradcheck through GnncFunction itself, in double (the library computes in float32): a coarse
    # step so that the differences measure the derivative, not float32 rounding
    g = layer._tensor_graph(ei, (x, w))[0]
    model = layer.model_for(g.graph)
    params = [t.detach().double() for _, t in layer.named_gnnc_parameters()]
    xg = torch.randn(nv, 3, dtype=torch.float64, requires_grad=True)
    wg = torch.randn(g.graph.ne, 2, dtype=torch.float64, requires_grad=True)
    try:
        ok = torch.autograd.gradcheck(lambda a, b: GnncFunction.apply(model, True, 0, 2, a, b, *params), (xg, wg),
                                      eps=1e-2, atol=1e-3, rtol=1e-3)
        check(ok, "gradcheck/edgein/x,w")
    except Exception as e:  # gradcheck raises with the mismatching Jacobians
        check(False, "gradcheck/edgein/x,w", str(e).splitlines()[0])
    # a graph without edges: the edge input's gradient is there and empty, whether the model was
    # made on that graph or rebound to it (made on it, input_grad was NULL: gnn_malloc of 0 bytes)
    g0 = lib.graph(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=3)
    got = {}
    for how in ("fresh", "rebound"):
        m = lib.create(g0, seed=1) if how == "fresh" else lib.create(lib.graph([0, 1], [1, 2], num_vertices=3), seed=1)
        if how == "rebound":
            m.set_graph(g0)
        m.request_input_grads(["x", "w"])
        y = m.forward(np.ones((3, 3), np.float32), np.zeros((0, 2), np.float32), training=True, seed=1)
        m.backward(np.ones_like(y))
        got[how] = {k: v.shape for k, v in m.input_grads().items()}
        m.close()
    check(got["fresh"] == got["rebound"] == {"x": (3, 3), "w": (0, 2)}, "grads/edgein/no-edges", repr(got))
    # a symmetrised graph: edges u->v and v->u come from one input edge and read its row of w, so
    # that row's gradient is the sum of theirs (it was the last edge's alone, half of it here: a
    # tester's find); an edge output has no single input row for them: refused, the graph's order given
    gs = lib.graph(np.array([0, 1]), np.array([1, 2]), num_vertices=3, symmetrise=True)
    m = lib.create(gs, seed=1)
    m.request_input_grads(["w"])
    xs = np.arange(9, dtype=np.float32).reshape(3, 3) / 9
    ws = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    try:  # the output in input order: refused, not half of it
        m.forward(xs, ws, training=True, seed=1)
        check(False, "edges/symmetrise-output-refused", "no exception")
    except ValueError as e:
        check("edge_order='graph'" in str(e), "edges/symmetrise-output-refused", str(e))
    m.forward(xs, gs.to_graph_order(ws), training=True, seed=1, edge_order="graph")
    gy = np.ones((gs.ne, 2), np.float32)
    m.backward(gy, edge_order="graph")
    per_edge = m.input_grads(edge_order="graph")["w"]
    want = np.zeros((2, 2), np.float32)
    np.add.at(want, gs.edge_origin, per_edge)
    got_w = m.input_grads()["w"]
    check(gs.shares_input_rows() and np.allclose(got_w, want, rtol=1e-6) and not np.allclose(got_w, per_edge[[1, 3]]),
          "grads/edgein/symmetrise-summed", "got %r, want %r" % (got_w.tolist(), want.tolist()))
    check(m.output(edge_order="graph").shape == (4, 2), "edges/symmetrise-output-graph-order")
    m.close()


def check_gradcheck_gcn(lib, g):
    layer = GnncModule(lib, seed=4)
    model = layer.model_for(g)
    params = [t.detach().double() for _, t in layer.named_gnnc_parameters()]
    x = torch.randn(g.nv, lib.inputs[0].width, dtype=torch.float64, requires_grad=True)
    try:
        ok = torch.autograd.gradcheck(lambda a: GnncFunction.apply(model, True, 0, 1, a, *params), (x,),
                                      eps=1e-2, atol=2e-3, rtol=2e-3)
        check(ok, "gradcheck/gcn/x")
    except Exception as e:
        check(False, "gradcheck/gcn/x", str(e).splitlines()[0])


def check_on_request(lib_ig, lib_plain, g_ig, g, F):
    """No input requires grad: the backward computes none, and the parameters' gradients are the
    parameter-only library's bit for bit (the input-gradient work is skipped, nothing else changes)."""
    a, b = GnncModule(lib_ig, seed=6), GnncModule(lib_plain, seed=6)
    x = torch.randn(g.nv, F)
    a(g_ig, x).square().sum().backward()
    b(g, x).square().sum().backward()
    same = all(torch.equal(p.grad, q.grad) for (_, p), (_, q) in zip(a.named_gnnc_parameters(), b.named_gnnc_parameters()))
    check(same, "on-request/params-bit-identical", "parameter gradients differ from the parameter-only library's")
    model = a.model_for(g_ig)
    check(model.input_grad_ptr("x") is None and model.input_grads() == {}, "on-request/none-computed",
          "an input gradient was computed though none was asked for")
    # asked for: computed; then no longer asked for: NULL again
    x2 = x.clone().requires_grad_()
    a(g_ig, x2).sum().backward()
    check(x2.grad is not None and model.input_grad_ptr("x") is not None, "on-request/computed-when-asked")
    a(g_ig, x).sum().backward()
    check(model.input_grad_ptr("x") is None, "on-request/not-kept-asking")
    # one name as a string is that name, not its characters (a message about input 'x'... or a
    # silent request for single-letter inputs); an unknown name says which inputs there are
    mn = lib_ig.create(g_ig, seed=1)
    mn.request_input_grads("x")
    yn = mn.forward(x.numpy(), training=True)
    mn.backward(np.ones_like(yn))
    check(list(mn.input_grads()) == ["x"], "on-request/one-name-string", repr(list(mn.input_grads())))
    # another graph within the capacity: the last backward's input gradient was the old graph's,
    # gone as the output is (it stayed, read with the new graph's row count; a growing rebind freed it)
    small = lib_ig.graph([0, 1], [1, 0], num_vertices=2)
    mn.set_graph(small)
    check(mn.input_grads() == {} and mn.input_grad_ptr("x") is None, "on-request/none-after-set-graph",
          repr(list(mn.input_grads())))
    mn.close()
    try:
        model.request_input_grads("xy")
        check(False, "on-request/unknown-string", "accepted")
    except ValueError as e:
        check("has no input xy (its inputs: x)" in str(e), "on-request/unknown-string", str(e))
    try:
        model.input_grad_ptr("nope")
        check(False, "on-request/unknown-ptr", "accepted")
    except ValueError as e:
        check("has no input 'nope' (its inputs: x)" in str(e), "on-request/unknown-ptr", str(e))


def check_passthrough(lib):
    """tests/grad/input_passthrough.gnn: out = x + tanh(z W) + gt(lab, 0.5): x's gradient is
    d loss / d out itself, lab's is identically zero (None for autograd, as for an unused input)."""
    check(lib.input_grads == [1, 1, 2], "passthrough/table", "input_grads %s" % lib.input_grads)
    layer = GnncModule(lib, seed=1)
    ei = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    x, z, lab = (torch.randn(4, 2, requires_grad=True) for _ in range(3))
    r = torch.randn(4, 2)
    (r * layer(ei, x, z, lab)).sum().backward()
    check(x.grad is not None and torch.equal(x.grad, r), "passthrough/x-is-the-seed", str(x.grad))
    check(z.grad is not None and lab.grad is None, "passthrough/zero-gradient-is-none",
          "z.grad %s, lab.grad %s" % (z.grad is not None, lab.grad))


def check_refused(lib_plain, g, F):
    layer = GnncModule(lib_plain)
    try:
        layer(g, torch.randn(g.nv, F, requires_grad=True))
        check(False, "refused/param-only-library", "accepted")
    except ValueError as e:
        check("--input-grads=x" in str(e), "refused/param-only-library", str(e))
    m = layer.model_for(g)
    try:
        m.request_input_grads(["x"])
        check(False, "refused/request", "accepted")
    except gnnc.GnncError as e:
        check("--input-grads=x" in str(e), "refused/request", str(e))


def check_two_layers(lib_gcn, lib_gat, g1, g):
    """gnnc GCN -> Linear + ReLU -> gnnc GAT: the GAT's input gradient flows through the Linear into
    the GCN's parameters; SGD steps against the references composed the same way (SGD: the
    parameters follow the gradients; Adam would divide near-zero gradients by their own size)."""
    torch.manual_seed(21)
    F = lib_gcn.inputs[0].width
    l1, l2 = GnncModule(lib_gcn, seed=7), GnncModule(lib_gat, seed=8)
    mid = torch.nn.Linear(lib_gcn.output.width, lib_gat.inputs[0].width)
    p1 = {n: torch.nn.Parameter(t.detach().double().clone()) for n, t in l1.named_gnnc_parameters()}
    p2 = {n: torch.nn.Parameter(t.detach().double().clone()) for n, t in l2.named_gnnc_parameters()}
    mid64 = torch.nn.Linear(mid.in_features, mid.out_features).double()
    mid64.load_state_dict({k: v.double() for k, v in mid.state_dict().items()})
    x = torch.randn(g.nv, F)
    labels = torch.randint(0, lib_gat.output.width, (g.nv,))
    opt = torch.optim.SGD(list(l1.parameters()) + list(mid.parameters()) + list(l2.parameters()), lr=0.1, momentum=0.9)
    opt64 = torch.optim.SGD(list(p1.values()) + list(mid64.parameters()) + list(p2.values()), lr=0.1, momentum=0.9)
    worst_loss, first = 0.0, None
    for _ in range(5):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(l2(g, torch.relu(mid(l1(g1, x)))), labels)
        first = float(loss) if first is None else first
        loss.backward()
        opt.step()
        opt64.zero_grad()
        loss64 = torch.nn.functional.cross_entropy(gat_ref(p2, g, torch.relu(mid64(gcn_ref(p1, g, x.double())))), labels)
        loss64.backward()
        opt64.step()
        worst_loss = max(worst_loss, abs(float(loss) - float(loss64)))
    check(worst_loss < 1e-5, "two-layers/loss", "losses differ by %.3g" % worst_loss)
    worst = max([maxdiff(t, p1[n]) for n, t in l1.named_gnnc_parameters()] +
                [maxdiff(t, p2[n]) for n, t in l2.named_gnnc_parameters()] +
                [maxdiff(mid.weight, mid64.weight), maxdiff(mid.bias, mid64.bias)])
    check(worst < 1e-5, "two-layers/params", "parameters differ by %.3g after 5 SGD steps" % worst)
    check(float(loss) < first, "two-layers/trains", "loss %.4f after 5 steps, %.4f before" % (float(loss), first))


# ---------------------------------------------------------------- PyG parity on Cora

def check_pyg(lib, cora):
    try:
        from torch_geometric.nn import GATConv
    except ImportError:
        print("note: torch_geometric is not installed here: the PyG parity test is skipped")
        return
    if not os.path.isfile(os.path.join(cora, "graph.edges")):
        print("note: no Cora at %s: the PyG parity test is skipped" % cora)
        return
    g, feats, labels, masks = lib.load_dataset(cora)
    x = torch.from_numpy(feats)
    y = torch.from_numpy(labels.astype(np.int64))
    train = torch.from_numpy(masks["train"])
    edge_index = torch.from_numpy(np.stack([g.src, g.dst]).astype(np.int64))  # the graph's edges, as they are
    F, C, hidden = feats.shape[1], lib.output.width, lib.inputs[0].width

    def models():
        """(gnnc's modules, PyG's modules, PyG's forward, a way to read PyG's parameters as gnnc's),
        from the same initial weights. gnnc's W [F, H, D] is PyG's lin.weight [H*D, F] transposed;
        its a [H, 2D] is att_src (the source half) beside att_dst."""
        torch.manual_seed(11)
        enc, dec = torch.nn.Linear(F, hidden), torch.nn.Linear(C, C)
        gat = GnncModule(lib, seed=12)
        enc2, dec2 = torch.nn.Linear(F, hidden), torch.nn.Linear(C, C)
        enc2.load_state_dict(enc.state_dict())
        dec2.load_state_dict(dec.state_dict())
        p = dict(gat.named_gnnc_parameters())
        H, D = p["gatconv0.W"].shape[1], p["gatconv0.W"].shape[2]
        conv0 = GATConv(hidden, D, heads=H, concat=True, negative_slope=0.2, dropout=0.0, add_self_loops=False, bias=False)
        conv1 = GATConv(H * D, C, heads=1, concat=False, negative_slope=0.2, dropout=0.0, add_self_loops=False, bias=False)
        convs = {"gatconv0": conv0, "gatconv1": conv1}

        def pyg_as_gnnc(name):
            conv, W = convs[name[:8]], p[name[:8] + ".W"]
            if name.endswith(".W"):
                lin = conv.lin_src if hasattr(conv, "lin_src") else conv.lin
                return lin.weight.t().reshape(W.shape)
            return torch.cat([conv.att_src.reshape(W.shape[1], W.shape[2]), conv.att_dst.reshape(W.shape[1], W.shape[2])], -1)

        with torch.no_grad():
            for name, conv in convs.items():
                W, a = p[name + ".W"].detach(), p[name + ".a"].detach()
                lin = conv.lin_src if hasattr(conv, "lin_src") else conv.lin
                lin.weight.copy_(W.reshape(W.shape[0], -1).t())
                conv.att_src.copy_(a[:, :W.shape[2]].reshape(conv.att_src.shape))
                conv.att_dst.copy_(a[:, W.shape[2]:].reshape(conv.att_dst.shape))

        def pyg_forward(h):
            return conv1(torch.nn.functional.elu(conv0(h, edge_index)), edge_index)
        return (enc, gat, dec), (enc2, conv0, conv1, dec2), pyg_forward, pyg_as_gnnc, p

    def compare(opt_name, make_opt, epochs):
        (enc, gat, dec), mods2, pyg_forward, pyg_as_gnnc, p = models()
        enc2, dec2 = mods2[0], mods2[3]
        opt = make_opt([q for m in (enc, gat, dec) for q in m.parameters()])
        opt2 = make_opt([q for m in mods2 for q in m.parameters()])
        worst_loss = worst_grad = 0.0
        for _ in range(epochs):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(dec(gat(g, enc(x)))[train], y[train])
            loss.backward()
            opt2.zero_grad()
            loss2 = torch.nn.functional.cross_entropy(dec2(pyg_forward(enc2(x)))[train], y[train])
            loss2.backward()
            worst_loss = max(worst_loss, abs(float(loss) - float(loss2)))
            # every gradient, relative to its largest element (float32 on both sides)
            pairs = [(enc.weight.grad, enc2.weight.grad), (dec.weight.grad, dec2.weight.grad)]
            for n in p:
                conv = mods2[1] if n.startswith("gatconv0") else mods2[2]
                if n.endswith(".W"):
                    lin = conv.lin_src if hasattr(conv, "lin_src") else conv.lin
                    pairs.append((p[n].grad, lin.weight.grad.t().reshape(p[n].shape)))
                else:
                    pairs.append((p[n].grad, torch.cat([conv.att_src.grad.reshape(p[n].shape[0], -1),
                                                        conv.att_dst.grad.reshape(p[n].shape[0], -1)], -1)))
            worst_grad = max([worst_grad] + [scaled(a, b) for a, b in pairs])
            opt.step()
            opt2.step()
        tag = "pyg/cora/%s-%d-epochs" % (opt_name, epochs)
        check(worst_loss < 1e-5, tag + "/loss", "the losses differ by %.3g (last: gnnc %.8f, PyG %.8f)" % (
            worst_loss, float(loss), float(loss2)))
        if opt_name == "sgd":  # (under Adam the parameters part by up to 3e-5, and the gradients with them)
            check(worst_grad < 1e-5, tag + "/grads", "gradients differ by %.3g of their largest" % worst_grad)
        with torch.no_grad():
            diffs = {"encoder": max(maxdiff(enc.weight, enc2.weight), maxdiff(enc.bias, enc2.bias)),
                     "decoder": max(maxdiff(dec.weight, dec2.weight), maxdiff(dec.bias, dec2.bias))}
            for n in p:
                diffs[n] = maxdiff(p[n], pyg_as_gnnc(n))
        worst = max(diffs.values())
        print("note: %s: final loss %.6f (PyG %.6f); largest differences: loss %.3g, gradient %.3g (relative), "
              "parameter %.3g" % (tag, float(loss), float(loss2), worst_loss, worst_grad, worst))
        return tag, worst, diffs

    epochs = int(os.environ.get("PYG_EPOCHS", "20"))
    # SGD with momentum: the parameters follow the gradients, so they match to what float32 keeps
    tag, worst, diffs = compare("sgd", lambda ps: torch.optim.SGD(ps, lr=0.2, momentum=0.9), epochs)
    check(worst < 1e-5, tag + "/params", "parameters differ by " + ", ".join("%s %.3g" % kv for kv in diffs.items()))
    # Adam: the same losses and gradients; its first steps divide each gradient by its own magnitude
    # (m / (sqrt(v) + 1e-8)), so an entry of ~1e-8 (Cora's encoder has hundreds) turns float32
    # rounding of 1e-9 into a parameter difference of up to lr/10: parameters to 1e-4 there
    tag, worst, diffs = compare("adam", lambda ps: torch.optim.Adam(ps, lr=0.005), epochs)
    check(worst < 1e-4, tag + "/params", "parameters differ by " + ", ".join("%s %.3g" % kv for kv in diffs.items()))


def check_rebound(tag, lib, small, big, F):
    """One module, a small graph then a bigger one: set_graph grows the capacity, and with it the
    input gradients' buffers (sized like the output); d loss / d x on the big graph equals a fresh
    module's, bit for bit, and the module rebound its one model rather than making another."""
    torch.manual_seed(7)
    layer = GnncModule(lib, seed=3)
    xs = torch.randn(small.nv, F, requires_grad=True)
    layer(small, xs).sum().backward()
    x = torch.randn(big.nv, F, requires_grad=True)
    w = torch.randn(big.nv, lib.output.width)
    (w * layer(big, x)).sum().backward()
    fresh = GnncModule(lib, seed=3)
    x2 = x.detach().clone().requires_grad_()
    (w * fresh(big, x2)).sum().backward()
    rebinds = layer._model.bindings if layer._model is not None else -1
    check(x.grad is not None and torch.equal(x.grad, x2.grad) and rebinds == 1, "rebound/%s" % tag,
          "%d rebinds; d loss / d x differs from a fresh module's by %.3g" % (rebinds, maxdiff(x.grad, x2.grad)))


def check_double_backward(lib, g, F):
    """A gradient penalty through the layer: torch.autograd.grad(create_graph=True) gives the same
    d/dx as a plain backward, and a backward through it raises (gnnc has no second derivative);
    before, d/dx did not require grad and the penalty silently added nothing to W's gradient."""
    torch.manual_seed(11)
    x0 = torch.randn(g.nv, F)
    layer = GnncModule(lib, seed=1)
    x = x0.clone().requires_grad_()
    y = layer(g, x)
    gx, = torch.autograd.grad(y.sum(), x, create_graph=True)
    x1 = x0.clone().requires_grad_()
    layer(g, x1).sum().backward()
    check(gx.requires_grad and torch.equal(gx.detach(), x1.grad), "double-backward/first-order-unchanged",
          "requires_grad %s, differs by %.3g" % (gx.requires_grad, maxdiff(gx, x1.grad)))
    try:
        (y.pow(2).mean() + 100.0 * gx.pow(2).sum()).backward()
        check(False, "double-backward/refused", "the penalty's backward ran (its term adds nothing through gnnc)")
    except RuntimeError as e:
        check("second derivative through a gnnc layer" in str(e), "double-backward/refused", str(e))


def main():
    libdir, graph_path, cora = sys.argv[1], sys.argv[2], sys.argv[3]
    lib_gcn, lib_gat = gnnc.load(libdir + "/libgcn_ig.so"), gnnc.load(libdir + "/libgat_ig.so")
    lib_plain = gnnc.load(libdir + "/libgcn.so")
    g = lib_gcn.load_graph(graph_path)
    check_grads("gcn", lib_gcn, gcn_ref, g, lib_gcn.inputs[0].width)
    check_grads("gat", lib_gat, gat_ref, lib_gat.load_graph(graph_path), lib_gat.inputs[0].width)
    check_edge_input(gnnc.load(libdir + "/libedgein_ig.so"))
    check_gradcheck_gcn(lib_gcn, lib_gcn.graph(np.array([0, 1, 2, 3, 4, 0]), np.array([1, 2, 3, 4, 0, 2]), num_vertices=5))
    check_on_request(lib_gcn, lib_plain, g, lib_plain.load_graph(graph_path), lib_gcn.inputs[0].width)
    check_passthrough(gnnc.load(libdir + "/libpassthrough_ig.so"))
    check_refused(lib_plain, lib_plain.load_graph(graph_path), lib_plain.inputs[0].width)
    check_double_backward(lib_gcn, g, lib_gcn.inputs[0].width)
    g2 = lib_gat.load_graph(graph_path)
    check_two_layers(lib_gcn, lib_gat, g, g2)
    tiny = np.array([0, 1, 2, 3, 4, 0]), np.array([1, 2, 3, 4, 0, 2])
    check_rebound("gcn", lib_gcn, lib_gcn.graph(*tiny, num_vertices=5), g, lib_gcn.inputs[0].width)
    check_rebound("gat", lib_gat, lib_gat.graph(*tiny, num_vertices=5), g2, lib_gat.inputs[0].width)
    check_pyg(gnnc.load(libdir + "/libgat_cora.so"), cora)
    print("%d failed" % check_lines.failures)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
