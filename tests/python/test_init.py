"""tests/python/test_init.py LIBDIR WORKDIR GNNC -- the Python paths start and feed a model as the
library and the C tools do.

LIBDIR holds libinitval.so (tests/python/models/initval.gnn: a parameter of every initialiser --
Glorot, zeros, declared `= value` as a literal, a negated literal, a hyper-parameter and a
dimension name, at rank 0, 1 and 2 -- and an edge input summed over in-edges) and libedgein.so
(tests/python/models/edgein.gnn: an edge output), and libinitval_noinit.so (initval without
gnn_model_param_init, as an older gnnc built it: its table does not describe the initialisers). Checks:
  - the model table's description of each initialiser (TensorInfo.init, init_value); with it
    Library.initial_params and GnncModule create no model (nothing allocated on the context);
  - Library.initial_params(seed) and GnncModule(lib, seed)'s parameters equal create(graph, seed)'s
    bit for bit (seeds 0, 1, 7, 2^64 - 1), the declared values exactly, and `gnnc run --seed`'s
    saved parameters at float32; GnncModule's forward equals the created model's (before, both
    Python paths drew Glorot for every parameter: a declared `= 1` started at 0); so does the
    older library's initial_params, which creates a model to learn them;
  - an edge input of a self-loop the runtime added is 1 in Model.forward, Graph.to_graph_order and
    GnncModule(add_self_loops=True) (both graph builders), what `gnnc run --self-loops` feeds and
    computes (before, Python gave it 0); the gradient of an edge output still ignores added rows.
Prints "ok NAME" / "FAIL NAME: detail" lines.
"""
import subprocess
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402
from test_numpy import read_tensors  # noqa: E402  (the tensor text format)


def module_params(mod):
    return {n: p.detach().numpy() for n, p in mod.named_gnnc_parameters()}


def diff(a, b):
    return {n: float(np.abs(np.asarray(a[n], np.float64) - np.asarray(b[n], np.float64)).max()) for n in b
            if not np.array_equal(a[n], b[n])}


def main():
    libdir, work, gnnc_bin = sys.argv[1], sys.argv[2], sys.argv[3]
    model = "tests/python/models/initval.gnn"
    lib = gnnc.load(libdir + "/libinitval.so")
    rs = np.random.RandomState(11)
    nv, ne = 12, 30
    src, dst = rs.randint(0, nv, ne), rs.randint(0, nv, ne)
    src[:3] = dst[:3]  # a few self-loops of the input's own: add_self_loops adds none there
    g = lib.graph(src, dst, num_vertices=nv)

    # the declared values, exactly; Glorot (rank 2) and zeros (below) for the others
    init = lib.initial_params(1)
    want = {"init0.g": 1, "init0.eps": np.float32(0.1), "init0.neg": -2, "init0.h": 0.25, "init0.f": 4, "init0.M": -0.5,
            "init0.b": 0, "init0.s": 0}
    bad = {n: init[n].tolist() for n, v in want.items() if not np.all(init[n] == np.float32(v))}
    check(not bad, "init/declared-values", "got %s" % bad)
    check(init["init0.W"].shape == (4, 3) and np.all(init["init0.W"] != 0), "init/glorot-rank-2", repr(init["init0.W"]))
    # the model table describes every initialiser (gnn_model_api.param_init, TensorInfo.init), the
    # declared values at float32
    got = {p.name: (p.init, p.init_value) for p in lib.param_info}
    want = {"init0.W": ("glorot", None), "init0.b": ("zeros", None), "init0.s": ("zeros", None), "init0.g": ("value", 1.0),
            "init0.eps": ("value", float(np.float32(0.1))), "init0.neg": ("value", -2.0), "init0.h": ("value", 0.25),
            "init0.f": ("value", 4.0), "init0.M": ("value", -0.5)}
    check(got == want, "init/description", "got %s" % got)
    # a kind this package does not know (a later gnnc's) is no description: initial_params asks create()
    t = gnnc.TensorInfo(lib._api.params[0], gnnc._ParamInit(7, 0.0))
    check(t.init is None and t.init_value is None, "init/unknown-kind-is-none", "init %r" % t.init)
    # so initial_params and GnncModule build no model to learn them (they created one on a graph of
    # one vertex before the table said): nothing is allocated on the library's context
    live, _ = lib.memory_usage()
    lib.reset_peak()
    lib.initial_params(3)
    GnncModule(lib, seed=3)
    check(lib.memory_usage() == (live, live), "init/no-model-built", "live, peak %s, were %d before" % (lib.memory_usage(), live))
    # Library.initial_params and GnncModule's nn.Parameters: create's, bit for bit, seed for seed
    for seed in (0, 1, 7, 2**64 - 1):
        created = lib.create(g, seed=seed).state_dict()
        d = diff(lib.initial_params(seed), created)
        check(not d, "init/initial-params-equal-create/seed-%d" % seed, "differ (max abs): %s" % d)
        d = diff(module_params(GnncModule(lib, seed=seed)), created)
        check(not d, "init/module-equals-create/seed-%d" % seed, "differ (max abs): %s" % d)
    # a library of an older gnnc (no gnn_model_param_init): no description, so initial_params reads
    # create()'s values from a model it makes (the only way to learn a declared value there)
    old = gnnc.load(libdir + "/libinitval_noinit.so")
    check(all(p.init is None for p in old.param_info) and not old.legacy, "init/older-library/no-description",
          repr(old.param_info))
    go = old.graph(src, dst, num_vertices=nv)
    for seed in (0, 2**64 - 1):
        live, _ = old.memory_usage()
        old.reset_peak()
        got = old.initial_params(seed)
        made = old.memory_usage()[1] > live
        d = diff(got, old.create(go, seed=seed).state_dict())
        d2 = diff(got, lib.initial_params(seed))
        check(not d and not d2 and made, "init/older-library/equals-create/seed-%d" % seed,
              "differ from its create %s, from the described library's %s; a model made: %s" % (d, d2, made))
    # the interpreter's parameters (gnnc run --seed 7 --save-params), at float32
    with open(work + "/init.edges", "w") as f:
        f.writelines("%d %d 1\n" % e for e in zip(src, dst))
    subprocess.run([gnnc_bin, "run", model, "--graph", work + "/init.edges", "--num-vertices", str(nv), "--seed", "7",
                    "--save-params", work + "/init.params"], check=True, stdout=subprocess.DEVNULL)
    interp = {n: a[0].astype(np.float32) for n, a in read_tensors(work + "/init.params").items()}
    d = diff(lib.initial_params(7), interp)
    check(not d and set(interp) == set(init), "init/equals-gnnc-run", "differ (max abs): %s" % d)
    # GnncModule's forward is the created model's
    x, w = rs.randn(nv, 4).astype(np.float32), rs.randn(ne).astype(np.float32)
    ref = lib.create(g, seed=3).forward(x, w)
    with torch.no_grad():
        y = GnncModule(lib, seed=3)(torch.tensor(np.stack([src, dst])), torch.from_numpy(x), torch.from_numpy(w)).numpy()
    check(np.array_equal(y, ref), "init/module-forward-equals-create",
          "max difference %g (max |y| %g)" % (float(np.abs(y - ref).max()), float(np.abs(ref).max())))

    # self-loops the runtime adds: their edge input is 1 everywhere, as gnnc run --self-loops gives
    vals = np.round(rs.uniform(-2, 2, ne), 3)  # three decimals: the file's text parses to the same float32
    with open(work + "/sl.edges", "w") as f:
        f.writelines("%d %d %.3f\n" % e for e in zip(src, dst, vals))
    subprocess.run([gnnc_bin, "run", model, "--graph", work + "/sl.edges", "--num-vertices", str(nv), "--self-loops",
                    "--seed", "5", "--save-params", work + "/sl.params", "--save-inputs", work + "/sl.inputs",
                    "--output", work + "/sl.out"], check=True, stdout=subprocess.DEVNULL)
    ins = read_tensors(work + "/sl.inputs")
    out = read_tensors(work + "/sl.out")["output"]
    added = nv - len(set(int(s) for s, t in zip(src, dst) if s == t))
    wi = ins["w"].reshape(-1)
    check(wi.size == ne + added and np.array_equal(wi[:ne].astype(np.float32), vals.astype(np.float32)) and np.all(wi[ne:] == 1), "selfloops/gnnc-run-feeds-1",
          "w %s" % wi.tolist())
    xs, ws = ins["x"].reshape(nv, 4).astype(np.float32), vals.astype(np.float32)
    gs = lib.graph(src, dst, num_vertices=nv, add_self_loops=True)
    o = gs.edge_origin
    wg = gs.to_graph_order(ws)
    check(gs.ne == ne + added and np.all(wg[o < 0] == 1) and np.array_equal(wg[o >= 0], ws[o[o >= 0]]),
          "selfloops/to-graph-order-fills-1", "rows of added edges: %s" % wg[o < 0].tolist())
    check(np.all(gs.to_graph_order(ws, fill=0)[o < 0] == 0), "selfloops/to-graph-order-fill-0")
    m = lib.create(gs, seed=1)
    m.load_params(work + "/sl.params")
    ym = m.forward(xs, ws)
    err = float(np.abs(ym - out).max() / np.abs(out).max())
    check(err < 1e-5, "selfloops/model-equals-gnnc-run", "relative error %g" % err)
    ei = torch.tensor(np.stack([src, dst]))
    for builder in ("runtime", "torch"):
        mod = GnncModule(lib, add_self_loops=True, graph_builder=builder)
        with torch.no_grad():
            for n, p in mod.named_gnnc_parameters():
                p.copy_(torch.from_numpy(m[n]))
            y = mod(ei, torch.from_numpy(xs), torch.from_numpy(ws)).numpy()
        err = float(np.abs(y - out).max() / np.abs(out).max())
        check(err < 1e-5 and np.allclose(y, ym, rtol=1e-6, atol=1e-6), "selfloops/module-%s-equals-gnnc-run" % builder,
              "relative error %g against gnnc run, max difference %g from Model.forward" % (err, float(np.abs(y - ym).max())))

    # the gradient of an edge output in input order: the added self-loops' rows are no output, so
    # they seed nothing (edgein: y_e = w_e * (W x_src))
    le = gnnc.load(libdir + "/libedgein.so")
    ge = le.graph(src, dst, num_vertices=nv, add_self_loops=True)
    me = le.create(ge, seed=2)
    xe, we, go = rs.randn(nv, 3).astype(np.float32), rs.randn(ne, 2).astype(np.float32), rs.randn(ne, 2).astype(np.float32)
    me.forward(xe, we, training=True)
    dW = me.backward(go)["W"]
    ref = xe[src].astype(np.float64).T @ (we * go).astype(np.float64)
    check(np.allclose(dW, ref, rtol=1e-5, atol=1e-5), "selfloops/edge-output-grad-ignores-added",
          "max difference %g" % float(np.abs(dW - ref).max()))
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
