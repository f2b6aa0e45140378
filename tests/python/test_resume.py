"""tests/python/test_resume.py LIB GRAPH DIR -- checkpoints of a GnncModule training loop.

LIB is a host library of a model with dropout (dsl-examples/gcn.gnn), GRAPH a dataset folder, DIR
scratch space. A loop of Adam steps in training mode (dropout on) is run straight through, and
again stopped halfway: torch.save of the module's and the optimiser's state_dict, a new module
and optimiser, load_state_dict, the rest of the steps. The two must end at the same parameters,
bit for bit (docs/embedding.md, "Checkpoints from Python"). Two controls show the check can fail:
without the optimiser's state (Adam's moments and step) and without the dropout stream's position
(the module's dropout_step buffer) the resumed loop ends elsewhere. Prints "ok NAME" / "FAIL
NAME: detail" lines (tests/suites/python.sh counts them).
"""
import os
import sys

import torch

import gnnc
from gnnc.nn import GnncModule

failures = 0


def check(ok, name, detail=""):
    global failures
    print(("ok %s" % name) if ok else ("FAIL %s: %s" % (name, detail)))
    failures += 0 if ok else 1


def step(layer, opt, g, x, labels):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(layer(g, x), labels).backward()
    opt.step()


def main():
    lib_path, graph_path, work = sys.argv[1], sys.argv[2], sys.argv[3]
    lib = gnnc.load(lib_path)
    g = lib.load_graph(graph_path, add_self_loops=True)
    gen = torch.Generator().manual_seed(3)
    x = torch.rand(g.nv, lib.inputs[0].width, generator=gen)
    labels = torch.randint(0, lib.output.width, (g.nv,), generator=gen)
    total, half = 12, 5

    def fresh():
        layer = GnncModule(lib, seed=2, dropout_seed=100)
        return layer, torch.optim.Adam(layer.parameters(), lr=0.02, weight_decay=5e-4)

    # straight through
    layer, opt = fresh()
    for _ in range(total):
        step(layer, opt, g, x, labels)
    want = {n: t.detach().clone() for n, t in layer.named_gnnc_parameters()}

    # stopped halfway, saved, loaded into new objects, resumed
    path = os.path.join(work, "resume.pt")
    layer, opt = fresh()
    for _ in range(half):
        step(layer, opt, g, x, labels)
    torch.save({"model": layer.state_dict(), "optimizer": opt.state_dict()}, path)
    check(int(layer.state_dict()["dropout_step"]) == half, "resume/dropout-step-in-state-dict",
          "state_dict()['dropout_step'] = %s" % layer.state_dict().get("dropout_step"))

    def resumed(load_optimizer=True, keep_dropout=True):
        ck = torch.load(path)
        layer2, opt2 = fresh()
        state = dict(ck["model"])
        if not keep_dropout:
            del state["dropout_step"]  # a state_dict without the buffer (an older one) still loads
        layer2.load_state_dict(state)
        if load_optimizer:
            opt2.load_state_dict(ck["optimizer"])
        for _ in range(total - half):
            step(layer2, opt2, g, x, labels)
        return {n: t.detach() for n, t in layer2.named_gnnc_parameters()}

    def same(got):
        return all(torch.equal(got[n], want[n]) for n in want)

    got = resumed()
    worst = max(float((got[n] - want[n]).abs().max()) for n in want)
    check(same(got), "resume/bit-identical", "parameters differ by up to %g" % worst)
    check(not same(resumed(load_optimizer=False)), "resume/control-without-optimizer",
          "a loop without Adam's state ended at the same parameters: the check cannot tell")
    check(not same(resumed(keep_dropout=False)), "resume/control-without-dropout-position",
          "a loop that restarted the dropout stream ended at the same parameters: the check cannot tell")
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
