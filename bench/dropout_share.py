#!/usr/bin/env python3
"""bench/dropout_share.py -- how much of PyG's GCN training step is torch's dropout (one process).

  PYTHON bench/dropout_share.py GRAPH.gcsr [--model gcn:1433,16,7] [--threads 1] [--rounds 7] [--steps 5]

bench/peer_pyg.py's GCN (the PyG side of bench/peers.sh), both adjacencies, timed in one process:
per round, in turn (the order reversed every other round), --steps training steps with dropout
(as the model: 0.5 before each layer), --steps without (peer_pyg's --no-dropout), and --steps
calls of F.dropout(x, 0.5, True) on the input alone; the medians over all rounds' steps (the
first round untimed). Prints "key value" lines and the shares. The control that bench/peers.sh
runs across processes is the *-nodrop workloads; this is the same question inside one process,
without process start-up or the other side's cache traffic in between.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_pyg as P  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph")
    ap.add_argument("--model", default="gcn:1433,16,7")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    import torch
    import torch_geometric
    import torch_geometric.nn as pyg_nn
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    kind, parts = P.parse_spec(a.model)
    if kind != "gcn":
        raise SystemExit("dropout_share: --model gcn:F,D,..,C only")
    print(f"versions torch {torch.__version__} torch_geometric {torch_geometric.__version__}")
    print(f"threads {torch.get_num_threads()}")
    nv, ne, ip, src = P.load_gcsr(a.graph)
    F_in, C = int(parts[0]), int(parts[-1])
    g = torch.Generator().manual_seed(1)
    x = torch.rand(nv, F_in, generator=g) * 2 - 1
    y = torch.randint(0, C, (nv,), generator=g)
    adjs = {"csr": torch.sparse_csr_tensor(torch.from_numpy(np.array(ip, dtype=np.int64)),
                                           torch.from_numpy(P.sorted_rows(nv, ip, src)), torch.ones(ne), size=(nv, nv)),
            "edge_index": torch.from_numpy(P.edge_index_np(nv, ip, src))}
    cases = {}
    for adj_kind, adj in adjs.items():
        for drop in (True, False):
            net = P.build_model(torch, pyg_nn, kind, parts, adj_kind, dropout=drop)
            net.train()
            opt = torch.optim.Adam(net.parameters(), lr=0.01)

            def step(net=net, opt=opt, adj=adj):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net.forward(x, adj), y).backward()
                opt.step()
            cases[f"{adj_kind} step {'dropout' if drop else 'no-dropout'}"] = step
    cases["F.dropout(x) alone"] = lambda: torch.nn.functional.dropout(x, 0.5, True)
    names = list(cases)
    times = {n: [] for n in names}
    for r in range(a.rounds + 1):
        for n in (names if r % 2 == 0 else names[::-1]):
            for _ in range(a.steps):
                t = time.perf_counter()
                cases[n]()
                if r > 0:
                    times[n].append(time.perf_counter() - t)
    med = {n: 1e3 * float(np.median(v)) for n, v in times.items()}
    print(f"nv {nv}\nne {ne}\nF {F_in}\nrounds {a.rounds} x {a.steps} steps (the first round untimed), order reversed every other round")
    for n in names:
        print(f"{n.replace(' ', '_').replace('(x)', 'x')}_ms {med[n]:.3f}")
    d = med["F.dropout(x) alone"]
    for adj_kind in adjs:
        w, wo = med[f"{adj_kind} step dropout"], med[f"{adj_kind} step no-dropout"]
        print(f"{adj_kind}: step {w:.2f} ms with dropout, {wo:.2f} ms without ({w / wo:.2f}x); "
              f"the input's F.dropout alone {d:.2f} ms = {100 * d / w:.0f}% of the step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
