"""tests/python/test_init.py LIBDIR WORKDIR GNNC -- the Python paths start and feed a model as the
library and the C tools do.

LIBDIR holds libinitval.so (tests/python/models/initval.gnn: a parameter of every initialiser --
Glorot, zeros, declared `= value` as a literal, a negated literal, a hyper-parameter and a
dimension name, at rank 0, 1 and 2 -- and an edge input summed over in-edges). Checks:
  - Library.initial_params(seed) and GnncModule(lib, seed)'s parameters equal create(graph, seed)'s
    bit for bit (seeds 0, 1, 7, 2^64 - 1), the declared values exactly, and `gnnc run --seed`'s
    saved parameters at float32; GnncModule's forward equals the created model's (before, both
    Python paths drew Glorot for every parameter: a declared `= 1` started at 0).
Prints "ok NAME" / "FAIL NAME: detail" lines.
"""
import subprocess
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


def read_tensors(path):
    """The tensor text format: {name: float64 array (rows, *dims)}."""
    toks = open(path).read().split()
    if toks[:1] == ["#gnn-tensors"]:  # the checksum line
        toks = toks[7:]
    out, i = {}, 0
    while i < len(toks):
        assert toks[i] == "tensor"
        name, rows, rank = toks[i + 1], int(toks[i + 2]), int(toks[i + 3])
        dims = [int(t) for t in toks[i + 4:i + 4 + rank]]
        i += 4 + rank
        n = rows * int(np.prod(dims, dtype=np.int64))
        out[name] = np.array(toks[i:i + n], dtype=np.float64).reshape([rows] + dims)
        i += n
    return out


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
    # Library.initial_params and GnncModule's nn.Parameters: create's, bit for bit, seed for seed
    for seed in (0, 1, 7, 2**64 - 1):
        created = lib.create(g, seed=seed).state_dict()
        d = diff(lib.initial_params(seed), created)
        check(not d, "init/initial-params-equal-create/seed-%d" % seed, "differ (max abs): %s" % d)
        d = diff(module_params(GnncModule(lib, seed=seed)), created)
        check(not d, "init/module-equals-create/seed-%d" % seed, "differ (max abs): %s" % d)
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

    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
