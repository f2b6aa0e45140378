#!/usr/bin/env python3
"""bench/peer_dgl.py -- the DGL side of bench/peers.sh (DGL: the MLSys 2022 paper's own baseline),
one process per run, with bench/peer_pyg.py's interface and output:

  peer_dgl.py --graph G.gcsr --model SPEC [--threads N] [--device cpu|cuda]
              [--forward N] [--warmup N] [--steps N] [--seed S] [--check DIR]

SPEC as in peer_pyg.py (gcn:F,D1,..,C | gat:F,H1xD1,..,1xC | monet:F,K,R,D1,..,C |
edgeconv:F,D1,..,Dn), the layers configured to compute what the .gnn files say:

  gcn       dgl.nn.GraphConv(norm="both"): c_uv = out_deg(u)^-1/2 in_deg(v)^-1/2, as gcn.gnn
  gat       dgl.nn.GATConv(bias=False, attn_drop=0.6): attn_l is a[:, :D] (the source half),
            attn_r a[:, D:]; heads concatenated (flatten), the last layer's mean over heads
  monet     dgl.nn.GMMConv(bias=False): exp(-0.5 sum((u - mu)^2 inv_sigma^2)) as monet.gnn,
            summed over the K kernels (gnnc takes the mean: scaled by 1/K here)
  edgeconv  dgl.nn.EdgeConv: theta(x_dst - x_src) + phi(x_dst), max; gnnc's
            theta (x_src - x_dst) + phi x_dst, so DGL's theta gets -theta, no biases

The graph is the .gcsr's CSR by destination handed to DGL as its CSC format (dgl.graph(("csc",
...)), int32 ids, the file's edge order, its self-loops already there): no conversion in
Python. DGL has one adjacency path, so there is no --adj (accepted and ignored for symmetry).
Output lines as peer_pyg.py's ("side dgl", versions, forward_ms, train_ms, peak_rss_mib,
status ok|oom|error; --check: check_max_abs, check_rel, status ok|mismatch, exit 4 on a
mismatch).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_pyg import check_output, load_gcsr, measure, out_of_memory, parse_spec, read_tensors, rss_mib  # noqa: E402 (shared with PyG's side)


def build_model(torch, dglnn, kind, parts, dropout=True):
    F = torch.nn.functional

    def drop(x, p, training):  # --no-dropout (peer_pyg.py's): not even a call
        return F.dropout(x, p, training) if dropout else x

    class Net(torch.nn.Module):
        pass

    net = Net()
    if kind == "gcn":
        w = [int(p) for p in parts]
        net.convs = torch.nn.ModuleList(
            dglnn.GraphConv(w[i], w[i + 1], norm="both", weight=True, bias=True, allow_zero_in_degree=True)
            for i in range(len(w) - 1))

        def fwd(g, x):
            for i, c in enumerate(net.convs):
                x = drop(x, 0.5, net.training)
                x = c(g, x)
                if i + 1 < len(net.convs):
                    x = F.relu(x)
            return x
    elif kind == "gat":
        hd = [tuple(int(t) for t in p.split("x")) for p in parts[1:]]
        convs, f = [], int(parts[0])
        for h, d in hd:
            convs.append(dglnn.GATConv(f, d, num_heads=h, feat_drop=0.0, attn_drop=0.6 if dropout else 0.0, negative_slope=0.2,
                                       residual=False, allow_zero_in_degree=True, bias=False))
            f = h * d
        net.convs = torch.nn.ModuleList(convs)

        def fwd(g, x):
            for i, c in enumerate(net.convs):
                x = drop(x, 0.6, net.training)
                x = c(g, x)  # [N, H, D]
                if i + 1 < len(net.convs):
                    x = F.elu(x.flatten(1))
                else:
                    x = x.mean(1)
            return x
    elif kind == "monet":
        fin, K, R = int(parts[0]), int(parts[1]), int(parts[2])
        w = [fin] + [int(p) for p in parts[3:]]
        net.K = K
        net.convs = torch.nn.ModuleList(
            dglnn.GMMConv(w[i], w[i + 1], dim=R, n_kernels=K, aggregator_type="sum", residual=False, bias=False,
                          allow_zero_in_degree=True) for i in range(len(w) - 1))
        net.P = torch.nn.ParameterList(torch.nn.Parameter(torch.zeros(2, R)) for _ in range(len(w) - 1))

        def fwd(g, x):
            for i, c in enumerate(net.convs):
                x = drop(x, 0.5, net.training)
                ps = torch.tanh(g.edata["dd"] @ net.P[i])  # edge[R]: [out_deg(u)^-1/2, in_deg(v)^-1/2] P
                x = c(g, x, ps) / net.K
                if i + 1 < len(net.convs):
                    x = F.elu(x)
            return x
    else:  # edgeconv
        w = [int(p) for p in parts]
        net.convs = torch.nn.ModuleList(dglnn.EdgeConv(w[i], w[i + 1], batch_norm=False, allow_zero_in_degree=True)
                                        for i in range(len(w) - 1))
        for c in net.convs:  # gnnc's EdgeConv has no biases
            c.theta.bias = None
            c.phi.bias = None

        def fwd(g, x):
            for i, c in enumerate(net.convs):
                x = c(g, x)
                if i + 1 < len(net.convs):
                    x = F.relu(x)
            return x

    net.forward = fwd
    return net


def load_params(torch, net, kind, P):
    """gnnc's parameter names and layouts -> DGL's modules."""
    def t(a):
        return torch.from_numpy(np.ascontiguousarray(a))

    with torch.no_grad():
        for i, c in enumerate(net.convs):
            if kind == "gcn":
                c.weight.copy_(t(P[f"gcnconv{i}.W"]))  # [F, D]: x @ W
                c.bias.copy_(t(P[f"gcnconv{i}.b"]))
            elif kind == "gat":
                W, a = P[f"gatconv{i}.W"], P[f"gatconv{i}.a"]  # [F, H, D], [H, 2D]
                f, h, d = W.shape
                c.fc.weight.copy_(t(W.reshape(f, h * d).T))
                c.attn_l.copy_(t(a[:, :d].reshape(1, h, d)))
                c.attn_r.copy_(t(a[:, d:].reshape(1, h, d)))
            elif kind == "monet":
                W = P[f"gmmconv{i}.W"]  # [F, K, D]
                f, k, d = W.shape
                c.fc.weight.copy_(t(W.reshape(f, k * d).T))
                c.mu.copy_(t(P[f"gmmconv{i}.mu"]))
                c.inv_sigma.copy_(t(P[f"gmmconv{i}.isigma"]))
                net.P[i].copy_(t(P[f"gmmconv{i}.P"]))
            else:
                th, ph = P[f"edgeconv{i}.theta"], P[f"edgeconv{i}.phi"]  # [F, D]
                c.theta.weight.copy_(t(-th.T))
                c.phi.weight.copy_(t(ph.T))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--adj", default="dgl", help="ignored (DGL has one path)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--forward", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check")
    ap.add_argument("--no-dropout", action="store_true", help="no dropout anywhere (the control)")
    a = ap.parse_args()
    kind, parts = parse_spec(a.model)

    import torch
    import dgl
    import dgl.nn.pytorch as dglnn
    torch.set_num_threads(a.threads)
    dgl.utils.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dev = torch.device(a.device)
    if a.device == "cuda" and not torch.cuda.is_available():
        print("peer_dgl: --device cuda but torch sees no GPU", file=sys.stderr)
        print("status error")
        return 1
    print("side dgl")
    print(f"versions torch {torch.__version__} dgl {dgl.__version__}")
    print(f"threads {torch.get_num_threads()}")
    t0, c0 = time.perf_counter(), time.process_time()
    nv, ne, in_ptr, src = load_gcsr(a.graph)
    print(f"nv {nv}\nne {ne}")
    try:
        ip = torch.from_numpy(in_ptr.astype(np.int32))
        ix = torch.from_numpy(np.array(src, dtype=np.int32))  # a copy: the map is read-only
        # explicit edge ids (0..E-1, the file's order): with none, DGL's libxsmm SpMM (max
        # reductions over edge data, EdgeConv) stops at "Check notnull: edges"
        g = dgl.graph(("csc", (ip, ix, torch.arange(ne, dtype=torch.int32))), num_nodes=nv, idtype=torch.int32)
        del ip, ix
        if kind == "monet":
            u, v = g.edges()
            g.edata["dd"] = torch.stack([g.out_degrees().float().rsqrt()[u.long()],
                                         g.in_degrees().float().rsqrt()[v.long()]], 1)
            del u, v
        g = g.to(dev)
        print(f"load_s {time.perf_counter() - t0:.3f}\nload_cpu_s {time.process_time() - c0:.3f}")
        print(f"rss_base_mib {rss_mib():.2f}")

        print(f"dropout {'none' if a.no_dropout else 'as the model'}")
        net = build_model(torch, dglnn, kind, parts, dropout=not a.no_dropout).to(dev)
        F_in = int(parts[0])
        C = int(parts[-1].split("x")[-1])
        forward = lambda x: net.forward(g, x)  # noqa: E731
        if a.check:
            load_params(torch, net, kind, read_tensors(os.path.join(a.check, "params.txt")))
            return check_output(torch, forward, net.to(dev), a.check, nv, F_in, C, dev)
        return measure(torch, forward, net, a, nv, F_in, C, dev)
    except (MemoryError, RuntimeError) as e:
        rc = out_of_memory(e, "peer_dgl")
        if rc is None:
            raise
        return rc


if __name__ == "__main__":
    sys.exit(main())
