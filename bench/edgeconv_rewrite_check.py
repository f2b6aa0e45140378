#!/usr/bin/env python3
"""bench/edgeconv_rewrite_check.py -- PyG's EdgeConv against its hand rewrite (peer_pyg.py --adj rewrite).

  PYTHON bench/edgeconv_rewrite_check.py GRAPH.gcsr [--model edgeconv:3,64,64,128,256] [--seed 1]

The same parameters in both (the rewrite's nn.weight is EdgeConv's), the same input: the forward
outputs and every parameter's gradient (of sum(out * r), r fixed) must agree to rtol 1e-4 (relative
to each tensor's largest value). Prints the largest relative differences and "status ok" (exit 0)
or "status mismatch" (exit 4). bench/peers.sh's --check compares either side with gnnc's output;
this compares the two PyG sides directly, and their gradients.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_pyg as P  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph")
    ap.add_argument("--model", default="edgeconv:3,64,64,128,256")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    import torch
    import torch_geometric.nn as pyg_nn
    torch.manual_seed(a.seed)
    kind, parts = P.parse_spec(a.model)
    if kind != "edgeconv":
        raise SystemExit("edgeconv_rewrite_check: --model edgeconv:F,D,.. only")
    nv, ne, ip, src = P.load_gcsr(a.graph)
    ei = torch.from_numpy(P.edge_index_np(nv, ip, src))
    naive = P.build_model(torch, pyg_nn, kind, parts, "edge_index")
    rew = P.build_model(torch, pyg_nn, kind, parts, "rewrite")
    rew.load_state_dict(naive.state_dict())
    x = torch.randn(nv, int(parts[0]))
    outs, grads = [], []
    for net in (naive, rew):
        net.zero_grad()
        out = net.forward(x, ei)
        r = torch.linspace(-1, 1, out.numel()).view_as(out)
        (out * r).sum().backward()
        outs.append(out.detach())
        grads.append([p.grad.clone() for p in net.parameters()])

    def rel(u, v):
        return float((u - v).abs().max() / max(float(v.abs().max()), 1e-30))
    r_out = rel(outs[1], outs[0])
    r_grad = max(rel(g1, g0) for g0, g1 in zip(grads[0], grads[1]))
    print(f"nv {nv}\nne {ne}\nout_rel {r_out:.3e}\ngrad_rel {r_grad:.3e}")
    ok = r_out <= 1e-4 and r_grad <= 1e-4 and np.isfinite(outs[1].numpy()).all()
    print("status " + ("ok" if ok else "mismatch"))
    return 0 if ok else 4


if __name__ == "__main__":
    sys.exit(main())
