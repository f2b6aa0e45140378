"""tests/python/test_dropout.py LIBDIR WORK -- how GnncModule seeds its dropout masks.

LIBDIR holds libdrop.so (tests/python/models/drop.gnn: y = dropout(x, 0.5) * g, g = 1, so on x = 1
the output is 0 exactly where the mask dropped, and d sum(y) / d g_j is 2 * the kept elements of
column j) and libgcn.so (tests/python/models/gcn.gnn, no dropout); WORK is scratch space (a second
copy of libdrop.so, loaded as another library). docs/embedding.md, "Dropout masks", says what is
checked here:

  - default (dropout_seed=None): each training forward's seed is drawn from torch's default CPU
    generator. Two modules (one library or two, any seed=) draw different masks; torch.manual_seed
    reproduces a module's masks, and another torch seed changes them; one module called twice in
    a step draws two masks, and each backward's gradient is that of its own forward's mask (also
    when the first backward has to recompute its forward); eval mode draws nothing; a library
    without dropout draws nothing from torch's generator.
  - dropout_seed=K: a stream of the module's own, dropout_stream_seed(K, n) at training forward n
    (Model.forward with that seed gives the same output), whatever torch's generator holds, which
    it does not move; the mask sequences of K and K + 1 are not one sequence shifted (as they were
    when the seed was K + n), nor do the seeds of any two K < 256 meet within 2^40 steps.
  - copy.deepcopy and state_dict: with a K, a copy (or a new module loaded from the state_dict)
    draws the masks the original draws next; by default a copy draws from torch's generator like
    any module, so under the same torch seed it draws what the original would.
  - dropout_seed refuses what is not None or an integer 0 .. 2^64 - 1, also when set later.

Prints "ok NAME" / "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import copy
import os
import shutil
import sys

import numpy as np
import torch

import gnnc
from gnnc.nn import GnncModule, dropout_stream_seed

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402

NV = 8  # 8 x 16 mask elements: two independent masks agree with probability 2^-128
EI = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]])
X = torch.ones(NV, 16)


def mask(module):
    """The kept elements of one training forward of a libdrop module (a bool tensor)."""
    with torch.no_grad():
        return module(EI, X) != 0


def masks(module, n):
    return [mask(module) for _ in range(n)]


def same_masks(a, b):
    return len(a) == len(b) and all(torch.equal(p, q) for p, q in zip(a, b))


def shifted_equal(a, b):
    """The shifts d (0 < |d| < len) at which sequence b is sequence a moved by d steps."""
    n = len(a)
    return [d for d in range(-(n - 1), n) if d != 0 and
            all(torch.equal(a[i + d], b[i]) for i in range(max(0, -d), min(n, n - d)))]


def check_default(lib, lib2, nodrop):
    a, b = GnncModule(lib, seed=1).train(), GnncModule(lib, seed=2).train()
    same_seed = GnncModule(lib, seed=1).train()
    other = GnncModule(lib2, seed=1).train()
    ma, mb, ms, mo = mask(a), mask(b), mask(same_seed), mask(other)
    check(not torch.equal(ma, mb) and not torch.equal(ma, ms) and not torch.equal(ma, mo) and not torch.equal(mb, mo),
          "default/modules-differ", "equal masks: seed=1 vs seed=2 %s, two seed=1 modules %s, two libraries %s" % (
              torch.equal(ma, mb), torch.equal(ma, ms), torch.equal(ma, mo)))
    # a stack of two layers of one library (as a PyG model stacks convolutions)
    net = torch.nn.Sequential(GnncModule(lib).train(), GnncModule(lib).train())
    with torch.no_grad():
        h = net[0](EI, X)
        y = net[1](EI, torch.ones_like(h))
    check(not torch.equal(h != 0, y != 0), "default/stacked-layers-differ", "both layers drew the same mask")

    torch.manual_seed(123)
    first = masks(GnncModule(lib, seed=1).train(), 3)
    torch.manual_seed(123)
    again = masks(GnncModule(lib, seed=5).train(), 3)
    torch.manual_seed(124)
    other_seed = masks(GnncModule(lib, seed=1).train(), 3)
    check(same_masks(first, again) and not same_masks(first, other_seed) and not torch.equal(first[0], first[1]),
          "default/torch-manual-seed", "manual_seed(123) twice: same %s; manual_seed(124): same %s; steps 0 and 1 "
          "equal %s" % (same_masks(first, again), same_masks(first, other_seed), torch.equal(first[0], first[1])))
    # fork_rng / get_rng_state govern it too: the generator's state is the whole of the draw
    state = torch.get_rng_state()
    m1 = mask(a)
    torch.set_rng_state(state)
    check(torch.equal(m1, mask(a)), "default/rng-state", "set_rng_state to the same state drew another mask")

    # eval mode draws nothing and drops nothing; a library without dropout draws nothing in training
    state = torch.get_rng_state()
    a.eval()
    with torch.no_grad():
        ye = a(EI, X)
    a.train()
    g = nodrop.lib.graph(EI[0].numpy(), EI[1].numpy(), num_vertices=NV)
    nodrop.train()(g, torch.ones(NV, nodrop.lib.inputs[0].width))
    check(torch.equal(ye, X) and torch.equal(torch.get_rng_state(), state), "default/no-draw-without-dropout",
          "eval output is x: %s; torch's generator unmoved: %s" % (torch.equal(ye, X), torch.equal(torch.get_rng_state(), state)))

    # one module twice in a step: two masks, each gradient that of its own mask (the first backward
    # finds the model ran another forward since, and recomputes it with its own seed)
    m = GnncModule(lib).train()
    y1, y2 = m(EI, X), m(EI, X)
    k1, k2 = (y1 != 0).float(), (y2 != 0).float()
    (y1.sum() + 3 * y2.sum()).backward()
    want = 2 * k1.sum(0) + 6 * k2.sum(0)
    check(not torch.equal(k1, k2) and torch.equal(m.gate0__g.grad, want), "default/two-calls-in-a-step",
          "masks equal %s; gradient %s, from the masks %s" % (torch.equal(k1, k2), m.gate0__g.grad.tolist(), want.tolist()))
    return a


def check_explicit(lib):
    torch.manual_seed(1)
    a = masks(GnncModule(lib, dropout_seed=7).train(), 6)
    torch.manual_seed(2)
    state = torch.get_rng_state()
    b = masks(GnncModule(lib, seed=3, dropout_seed=7).train(), 6)
    check(same_masks(a, b) and torch.equal(torch.get_rng_state(), state) and not torch.equal(a[0], a[1]),
          "explicit/reproducible", "same K, other torch seed: same masks %s; torch's generator unmoved %s" % (
              same_masks(a, b), torch.equal(torch.get_rng_state(), state)))
    # the seed each forward uses is the documented one: Model.forward with it draws the same mask
    model = lib.create(lib.graph(EI[0].numpy(), EI[1].numpy(), num_vertices=NV))
    want = [torch.from_numpy(model.forward(X.numpy(), training=True, seed=dropout_stream_seed(7, n))) != 0 for n in range(6)]
    check(same_masks(a, want), "explicit/dropout-stream-seed", "the module's masks are not Model.forward's with "
          "dropout_stream_seed(7, n)")
    for k in (0, 1, 100, 2**64 - 2):
        s0, s1 = masks(GnncModule(lib, dropout_seed=k).train(), 8), masks(GnncModule(lib, dropout_seed=k + 1).train(), 8)
        d = shifted_equal(s0, s1)
        check(not d and not same_masks(s0, s1), "explicit/no-shift-%d" % k,
              "dropout_seed=%d's masks are dropout_seed=%d's shifted by %s steps" % (k + 1, k, d))
    # no two of the first 256 K meet within 2^40 steps: seeds(K1) at n + d == seeds(K2) at n for
    # every n exactly when mix(K1) + G d == mix(K2) mod 2^64 (G the increment); solve for d
    from gnnc.nn import _GOLDEN, _mix64
    inv = pow(_GOLDEN, -1, 2**64)
    ks = [_mix64(k) for k in range(256)]
    near = [(i, j) for i in range(256) for j in range(256) if i != j and
            min((ks[j] - ks[i]) * inv % 2**64, (ks[i] - ks[j]) * inv % 2**64) < 2**40]
    check(not near and dropout_stream_seed(3, 5) == _mix64((_mix64(3) + 6 * _GOLDEN) % 2**64),
          "explicit/streams-apart", "streams within 2^40 steps of each other: %s" % near[:5])


def check_copies(lib, default_module):
    # with a K: a deep copy and a module loaded from the state_dict draw what the original draws next
    a = GnncModule(lib, dropout_seed=11).train()
    masks(a, 3)
    snap, state = copy.deepcopy(a), a.state_dict()
    saved_step = int(state["dropout_step"])  # (state_dict's tensors are the module's: read it now)
    loaded = GnncModule(lib, dropout_seed=11).train()
    loaded.load_state_dict(state)
    nxt = masks(a, 3)
    check(saved_step == 3 and same_masks(masks(snap, 3), nxt) and same_masks(masks(loaded, 3), nxt),
          "explicit/deepcopy-and-state-dict", "a copy or a loaded module draws other masks than the original's next")
    # without the position (a fresh module), the stream starts again: other masks
    check(not same_masks(masks(GnncModule(lib, dropout_seed=11).train(), 3), nxt), "explicit/position-matters",
          "a fresh module drew the original's masks at step 3")
    # default: a copy draws from torch's generator; under the same state, what the original would
    snap = copy.deepcopy(default_module)
    check(snap.dropout_seed is None and int(snap.dropout_step) == int(default_module.dropout_step),
          "default/deepcopy-settings", "dropout_seed %r, dropout_step %d vs %d" % (
              snap.dropout_seed, int(snap.dropout_step), int(default_module.dropout_step)))
    torch.manual_seed(9)
    m_orig = mask(default_module)
    torch.manual_seed(9)
    m_copy = mask(snap)
    m_next = mask(snap)
    check(torch.equal(m_orig, m_copy) and not torch.equal(m_copy, m_next), "default/deepcopy-draws-from-torch",
          "under one torch seed, copy vs original equal %s; copy's next differs %s" % (
              torch.equal(m_orig, m_copy), not torch.equal(m_copy, m_next)))


def check_refusals(lib):
    for bad, kind in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError), (True, TypeError), ("1", TypeError)):
        try:
            GnncModule(lib, dropout_seed=bad)
            check(False, "refuses/%r" % (bad,), "accepted")
        except kind as e:
            check("dropout_seed" in str(e), "refuses/%r" % (bad,), str(e))
        except Exception as e:  # noqa: BLE001
            check(False, "refuses/%r" % (bad,), "%s: %s" % (type(e).__name__, e))
    m = GnncModule(lib, dropout_seed=np.uint64(5))
    ok = m.dropout_seed == 5 and type(m.dropout_seed) is int
    try:
        m.dropout_seed = -3
        ok = False
    except ValueError:
        m.dropout_seed = None
        ok = ok and m.dropout_seed is None
    check(ok, "refuses/set-later", "a NumPy integer K or a later assignment is not checked as the constructor's")


def main():
    libdir, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(libdir, "libdrop.so")
    copy_path = os.path.join(work, "libdrop_copy.so")  # another library, the same model
    shutil.copy(path, copy_path)
    lib, lib2 = gnnc.load(path), gnnc.load(copy_path)
    nodrop = GnncModule(gnnc.load(os.path.join(libdir, "libgcn.so")))
    default_module = check_default(lib, lib2, nodrop)
    check_explicit(lib)
    check_copies(lib, default_module)
    check_refusals(lib)
    print("%d failed" % check_lines.failures)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
