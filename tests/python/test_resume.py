"""tests/python/test_resume.py LIB GRAPH DIR -- checkpoints of a GnncModule training loop.

LIB is a host library of a model with dropout (dsl-examples/gcn.gnn), GRAPH a dataset folder, DIR
scratch space. A loop of Adam steps in training mode (dropout on) is run straight through, and
again stopped halfway: torch.save of the module's and the optimiser's state_dict, a new module
and optimiser, load_state_dict, the rest of the steps. The two must end at the same parameters,
bit for bit (docs/embedding.md, "Checkpoints from Python"). Two controls show the check can fail:
without the optimiser's state (Adam's moments and step) and without the dropout stream's position
(the module's dropout_step buffer) the resumed loop ends elsewhere. That is the module's own
stream (dropout_seed=100); with the default (dropout_seed=None, masks from torch's generator) the
checkpoint also holds torch.get_rng_state(), and the loop resumed with it restored is
bit-identical, without it not.

A snapshot in the process: copy.deepcopy of the module halfway (a best-model copy) shares the
Library and has its own parameters and gnnc model; with an Adam given the optimiser's state it
trains the rest of the steps to the same parameters, bit for bit, while the original, trained on
after it, does too (neither changes the other); a network holding the module and
torch.optim.swa_utils.AveragedModel (EMA) deep-copy it too. torch.save(module) and pickle.dumps
are refused with a TypeError naming state_dict(), the module intact. Prints "ok NAME" / "FAIL
NAME: detail" lines (tests/suites/python.sh counts them).
"""
import copy
import os
import pickle
import sys

import torch

import gnnc
from gnnc.nn import GnncModule

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


def step(layer, opt, g, x, labels):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(layer(g, x), labels).backward()
    opt.step()


def check_snapshots(fresh, g, x, labels, total, half, want, same, path):
    """copy.deepcopy of a GnncModule halfway through the loop, and torch.save(module) refused."""
    layer, opt = fresh()
    for _ in range(half):
        step(layer, opt, g, x, labels)
    for name, fn in [("torch-save", lambda: torch.save(layer, path)), ("pickle", lambda: pickle.dumps(layer))]:
        try:
            fn()
            check(False, "snapshot/refused-" + name, "accepted")
        except TypeError as e:
            check("cannot be pickled" in str(e) and "state_dict()" in str(e), "snapshot/refused-" + name, str(e))
        except Exception as e:  # noqa: BLE001
            check(False, "snapshot/refused-" + name, "%s: %s" % (type(e).__name__, e))
    try:
        snap = copy.deepcopy(layer)
    except Exception as e:  # noqa: BLE001 -- any failure is this check's
        check(False, "snapshot/deepcopy", "%s: %s" % (type(e).__name__, e))
        return
    at_half = {n: t.detach().clone() for n, t in layer.named_gnnc_parameters()}
    own = all(p is not q and torch.equal(p, q) for (_, p), (_, q) in zip(layer.named_gnnc_parameters(),
                                                                          snap.named_gnnc_parameters()))
    check(snap.lib is layer.lib and own and snap._model is None and int(snap.dropout_step) == half,
          "snapshot/deepcopy", "library shared %s, parameters own and equal %s, model %s, dropout_step %d" % (
              snap.lib is layer.lib, own, snap._model, int(snap.dropout_step)))
    # the snapshot trains on, with the optimiser's state, to the straight run's parameters
    opt2 = torch.optim.Adam(snap.parameters(), lr=0.02, weight_decay=5e-4)
    # (a deep copy: newer torch keeps the state's tensors, so both optimisers would share Adam's moments)
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    for _ in range(total - half):
        step(snap, opt2, g, x, labels)
    got = {n: t.detach() for n, t in snap.named_gnnc_parameters()}
    check(same(got) and snap._model is not None and snap._model is not layer._model, "snapshot/trains-as-the-original",
          "parameters differ by up to %g" % max(float((got[n] - want[n]).abs().max()) for n in want))
    check(all(torch.equal(p, at_half[n]) for n, p in layer.named_gnnc_parameters()), "snapshot/original-unchanged",
          "training the copy changed the original's parameters")
    for _ in range(total - half):
        step(layer, opt, g, x, labels)
    check(same({n: t.detach() for n, t in layer.named_gnnc_parameters()}), "snapshot/original-trains-on",
          "the original, trained after its copy, ends elsewhere")

    class Net(torch.nn.Module):  # the module inside a network: deepcopy of the network
        def __init__(self, gnn):
            super().__init__()
            self.enc, self.gnn = torch.nn.Linear(x.shape[1], x.shape[1]), gnn

        def forward(self, g, x):
            return self.gnn(g, self.enc(x).detach())

    net = Net(fresh()[0]).eval()
    with torch.no_grad():
        y = net(g, x)
        try:
            ema = torch.optim.swa_utils.AveragedModel(net)
            y2, y3 = copy.deepcopy(net)(g, x), ema(g, x)
            check(torch.equal(y, y2) and torch.equal(y, y3) and ema.module.gnn.lib is net.gnn.lib, "snapshot/in-a-network",
                  "deepcopy %g, AveragedModel %g" % (float((y - y2).abs().max()), float((y - y3).abs().max())))
        except Exception as e:  # noqa: BLE001
            check(False, "snapshot/in-a-network", "%s: %s" % (type(e).__name__, e))
    shallow = copy.copy(layer)
    check(shallow.gcnconv0__W is layer.gcnconv0__W and layer(g, x).shape == (g.nv, layer.lib.output.width),
          "snapshot/shallow-copy-and-original-usable")


def check_default_stream(fresh, g, x, labels, total, half, path):
    """dropout_seed=None: the masks come from torch's generator, so the checkpoint holds its state
    (torch.get_rng_state) beside the two state_dicts; restored, the resumed loop is bit-identical,
    and without it (another process's generator) it is not."""
    torch.manual_seed(0)
    layer, opt = fresh(None)
    for _ in range(total):
        step(layer, opt, g, x, labels)
    want = {n: t.detach().clone() for n, t in layer.named_gnnc_parameters()}
    torch.manual_seed(0)
    layer, opt = fresh(None)
    for _ in range(half):
        step(layer, opt, g, x, labels)
    torch.save({"model": layer.state_dict(), "optimizer": opt.state_dict(), "rng": torch.get_rng_state()}, path)

    def resumed(restore_rng):
        torch.manual_seed(999)  # a new process: its own generator state
        ck = torch.load(path)
        layer2, opt2 = fresh(None)
        layer2.load_state_dict(ck["model"])
        opt2.load_state_dict(ck["optimizer"])
        if restore_rng:
            torch.set_rng_state(ck["rng"])
        for _ in range(total - half):
            step(layer2, opt2, g, x, labels)
        return {n: t.detach() for n, t in layer2.named_gnnc_parameters()}

    got = resumed(True)
    check(all(torch.equal(got[n], want[n]) for n in want), "resume/default-stream-with-rng-state",
          "parameters differ by up to %g" % max(float((got[n] - want[n]).abs().max()) for n in want))
    got = resumed(False)
    check(not all(torch.equal(got[n], want[n]) for n in want), "resume/default-stream-control-without-rng-state",
          "a loop whose torch generator was not restored ended at the same parameters: the masks are not torch's")


def main():
    lib_path, graph_path, work = sys.argv[1], sys.argv[2], sys.argv[3]
    lib = gnnc.load(lib_path)
    g = lib.load_graph(graph_path, add_self_loops=True)
    gen = torch.Generator().manual_seed(3)
    # centred inputs: with torch.rand's (all positive) one Adam step at lr 0.02 moved every hidden
    # unit's pre-activation coherently and the first layer's ReLUs were all dead by step 6, after
    # which masks and moments changed nothing and the controls below saw only the first steps
    x = torch.randn(g.nv, lib.inputs[0].width, generator=gen)
    labels = torch.randint(0, lib.output.width, (g.nv,), generator=gen)
    total, half = 12, 5

    def fresh(dropout_seed=100, lr=0.02):
        layer = GnncModule(lib, seed=2, dropout_seed=dropout_seed)
        return layer, torch.optim.Adam(layer.parameters(), lr=lr, weight_decay=5e-4)

    # straight through
    layer, opt = fresh()
    for _ in range(total):
        step(layer, opt, g, x, labels)
    w0 = layer.gcnconv0__W  # the first layer of dsl-examples/gcn.gnn
    dead = float((w0.grad == 0).float().mean())
    check(dead < 0.5, "resume/first-layer-alive-at-the-end",
          "%.0f%% of the first layer's weight gradient is 0 at the last step: the controls see only the first steps" % (100 * dead))
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

    check_snapshots(fresh, g, x, labels, total, half, want, same, os.path.join(work, "module.pt"))

    got = resumed()
    worst = max(float((got[n] - want[n]).abs().max()) for n in want)
    check(same(got), "resume/bit-identical", "parameters differ by up to %g" % worst)
    check(not same(resumed(load_optimizer=False)), "resume/control-without-optimizer",
          "a loop without Adam's state ended at the same parameters: the check cannot tell")
    check(not same(resumed(keep_dropout=False)), "resume/control-without-dropout-position",
          "a loop that restarted the dropout stream ended at the same parameters: the check cannot tell")
    check_default_stream(fresh, g, x, labels, total, half, os.path.join(work, "resume-default.pt"))
    print("%d failed" % check_lines.failures)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
