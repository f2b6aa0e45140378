"""tests/python/ddp_edgeconv.py LIB WORKDIR -- data-parallel EdgeConv with torch.distributed (gloo).

LIB is the host library of tests/python/models/edgeconv.gnn. The data: 8 random point clouds of
48 points each, every one a kNN graph (k = 6, edges neighbour -> point), the points' coordinates
as features and a random regression target per point. Training: SGD with momentum, 4 steps of
2 point clouds each.

  - one process: each step, loss = the mean over the step's two clouds of MSE(out, target);
  - two processes (torch.multiprocessing, gloo, file:// rendezvous in WORKDIR), wrapped in
    DistributedDataParallel: each step, rank r takes cloud 2 * step + r; DDP averages the
    gradients across the ranks.

The final parameters of both ranks must equal each other exactly (DDP keeps replicas in step)
and the single process's to float32 rounding (rtol 1e-5). Prints "ok NAME" / "FAIL NAME" lines.
"""
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import gnnc
from gnnc.nn import GnncModule

CLOUDS, POINTS, K, STEPS = 8, 48, 6, 4


def clouds():
    rs = np.random.RandomState(11)
    out = []
    for _ in range(CLOUDS):
        p = rs.randn(POINTS, 3).astype(np.float32)
        d = ((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)
        np.fill_diagonal(d, np.inf)
        nbr = np.argsort(d, axis=1)[:, :K]  # the K nearest neighbours of each point
        src, dst = nbr.ravel(), np.repeat(np.arange(POINTS), K)
        out.append((src, dst, p, rs.randn(POINTS, 4).astype(np.float32)))
    return out


def make(lib_path):
    lib = gnnc.load(lib_path)
    graphs = [(lib.graph(s, d, num_vertices=POINTS), torch.from_numpy(x), torch.from_numpy(y)) for s, d, x, y in clouds()]
    torch.manual_seed(0)
    return lib, GnncModule(lib, seed=4), graphs


def loss_of(model, g, x, y):
    return torch.nn.functional.mse_loss(model(g, x), y)


def single(lib_path):
    _, layer, graphs = make(lib_path)
    opt = torch.optim.SGD(layer.parameters(), lr=0.1, momentum=0.9)
    for step in range(STEPS):
        opt.zero_grad()
        loss = sum(loss_of(layer, *graphs[2 * step + r]) for r in range(2)) / 2
        loss.backward()
        opt.step()
    return {n: p.detach().clone() for n, p in layer.named_gnnc_parameters()}


def worker(rank, lib_path, workdir):
    dist.init_process_group("gloo", init_method="file://" + os.path.join(workdir, "rendezvous"), rank=rank, world_size=2)
    _, layer, graphs = make(lib_path)
    ddp = torch.nn.parallel.DistributedDataParallel(layer)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    for step in range(STEPS):
        opt.zero_grad()
        loss_of(ddp, *graphs[2 * step + rank]).backward()
        opt.step()
    torch.save({n: p.detach().clone() for n, p in layer.named_gnnc_parameters()}, os.path.join(workdir, "rank%d.pt" % rank))
    dist.destroy_process_group()


def main():
    lib_path, workdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    for f in ("rendezvous", "rank0.pt", "rank1.pt"):
        if os.path.exists(os.path.join(workdir, f)):
            os.remove(os.path.join(workdir, f))
    mp.spawn(worker, args=(lib_path, workdir), nprocs=2, join=True)
    r0 = torch.load(os.path.join(workdir, "rank0.pt"))
    r1 = torch.load(os.path.join(workdir, "rank1.pt"))
    one = single(lib_path)
    _, fresh, _ = make(lib_path)
    failures = 0
    for n in one:
        same = torch.equal(r0[n], r1[n])
        print(("ok ddp/replicas-equal/%s" % n) if same else ("FAIL ddp/replicas-equal/%s: ranks differ by %g" % (n, float((r0[n] - r1[n]).abs().max()))))
        close = torch.allclose(r0[n], one[n], rtol=1e-5, atol=1e-6)
        print(("ok ddp/same-as-one-process/%s" % n) if close else
              ("FAIL ddp/same-as-one-process/%s: differs by %g" % (n, float((r0[n] - one[n]).abs().max()))))
        moved = float((one[n] - getattr(fresh, n.replace(".", "__")).detach()).abs().max())
        print(("ok ddp/trained/%s" % n) if moved > 1e-3 else ("FAIL ddp/trained/%s: moved only %g" % (n, moved)))
        failures += (not same) + (not close) + (moved <= 1e-3)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
