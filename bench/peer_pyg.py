#!/usr/bin/env python3
"""bench/peer_pyg.py -- the PyTorch Geometric side of bench/peers.sh, one process per run.

  peer_pyg.py --graph G.gcsr --model SPEC [--adj edge_index|csr] [--threads N] [--device cpu|cuda]
              [--forward N] [--warmup N] [--steps N] [--seed S] [--check DIR] [--no-dropout]

The same work as bench/peer_gnnc.c, with PyG's layers configured to compute exactly what the
.gnn files say (docs/benchmarks.md, "bench-peers"): the graph as stored in the .gcsr (its
self-loops already there, so no layer adds any), the same edge order (CSR by destination),
no bias where the .gnn has none, dropout only in training (--no-dropout: none at all, the control
against bench/peers/*_nodrop.gnn, whose models have no dropout: torch's dropout on a wide input
can be most of a small graph's training step). SPEC names the model:

  gcn:F,D1,...,C        GCNConv layers, relu between, dropout 0.5 before each (gcn*.gnn)
  gat:F,H1xD1,...,1xC   GATConv layers, elu between (heads concatenated), the last mean over
                        heads, dropout 0.6 before each and on the attention (gat*.gnn)
  monet:F,K,R,D1,...,C  GMMConv layers with pseudo-coordinates tanh(P [deg_u^-1/2, deg_v^-1/2])
                        (monet.gnn), elu between, dropout 0.5 before each
  edgeconv:F,D1,...,Dn  EdgeConv layers (max aggregation, Linear(2F, D) without bias), relu between

--adj edge_index: PyG's default (a [2, E] tensor). --adj csr: a torch.sparse CSR adjacency
(adj_t, rows = destinations; GCN then caches its normalised adjacency, cached=True, as PyG
recommends for a fixed graph): PyG's sparse-matrix path. --adj rewrite (EdgeConv only): PyG's
EdgeConv rewritten by hand as gnnc rewrites it (RewrittenEdgeConv: per-vertex products, then a
gather and a scatter-max over an edge_index: rewritten_edgeconv), the baseline for gnnc's algebraic rewrite.

Prints "key value" lines as peer_gnnc does: forward_ms, train_ms (median; the first two steps
are warm-up), peak_rss_mib (getrusage), rss_base_mib (after import and graph load, before the
model), cuda_peak_mib (torch.cuda.max_memory_allocated, --device cuda), status ok|oom|error.
--check DIR loads gnnc's parameters and input from DIR (peer_gnnc --dump), runs one inference
forward and compares with gnnc's output: "check_max_abs", "check_rel", status ok or mismatch.
"""
import argparse
import os
import resource
import sys
import time

import numpy as np


def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load_gcsr(path):
    """The runtime's .gcsr cache (runtime/cache.c): a 64-byte header, in_ptr (int64, nv+1), src
    (int32, ne, padded to 8 bytes), edge_origin (int64, ne). Memory-mapped, never read through
    Python: the arrays are views of the file (np.memmap), so a 114.8 M-edge graph costs nothing
    to open. The header and the file's size are checked as the runtime checks them; in_ptr's
    ends, its order and the ids' range with vectorised NumPy (no Python loop; the checksum is
    the runtime's business)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(64)
    if len(head) < 64 or head[:8] != b"GNNRTCSR":
        raise SystemExit(f"peer: {path}: not a .gcsr graph cache")
    version, order = np.frombuffer(head, dtype="<u4", count=2, offset=8)
    if order != 0x01020304:
        raise SystemExit(f"peer: {path}: written with the other byte order")
    if version != 1:
        raise SystemExit(f"peer: {path}: .gcsr version {version}; this reader knows version 1")
    nv, ne = (int(v) for v in np.frombuffer(head, dtype="<i8", count=2, offset=24))
    want = 64 + 8 * (nv + 1) + 4 * ne + 4 * (ne % 2) + 8 * ne
    if nv < 1 or ne < 0 or size != want:
        raise SystemExit(f"peer: {path}: {size} bytes, the header ({nv} vertices, {ne} edges) announces {want}")
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    in_ptr = np.frombuffer(mm, dtype="<i8", count=nv + 1, offset=64)
    src = np.frombuffer(mm, dtype="<i4", count=ne, offset=64 + 8 * (nv + 1))
    if in_ptr[0] != 0 or in_ptr[-1] != ne or (nv > 0 and np.diff(in_ptr).min() < 0) or \
            (ne and (src.min() < 0 or src.max() >= nv)):
        raise SystemExit(f"peer: {path}: corrupted (in_ptr is not a CSR over {ne} edges, or an id is out of range)")
    return nv, ne, in_ptr, src


def edge_index_np(nv, in_ptr, src):
    """[2, E] int64 (sources, destinations) in the file's edge order, in one allocation and
    two passes: the sources cast from the map; the destinations as a running count of the row
    starts (a 1 at each row's first edge, then an in-place cumsum), no E-sized temporary.
    Fresh pages cost more than the arithmetic here (first-touch page faults), so fewer bytes
    written is what makes this fast."""
    ei = np.zeros((2, src.shape[0]), dtype=np.int64)
    ei[0] = src
    starts = in_ptr[1:-1]
    np.add.at(ei[1], starts[starts < src.shape[0]], 1)
    np.cumsum(ei[1], out=ei[1])
    return ei


def sorted_rows(nv, in_ptr, src):
    """Each row's sources in ascending order, int64 (torch's sparse CSR wants sorted columns;
    torch 1.13 refuses unsorted ones): one stable sort (timsort: the rows are already in
    order, so it merges within rows) of the keys dst * nv + src in place, then the row part
    taken off (mod nv); no permutation is needed since every value is 1. One E-sized array."""
    key = np.repeat(np.arange(0, nv * nv, nv, dtype=np.int64), np.diff(in_ptr))
    key += src
    key.sort(kind="stable")
    np.remainder(key, nv, out=key)
    return key


def read_tensors(path):
    """gnnc's tensor text format: 'tensor NAME ROWS RANK d0 ..', then the values."""
    out = {}
    with open(path) as f:
        toks = f.read().split()
    i = 0
    while i < len(toks):
        if toks[i] == "#gnn-tensors":  # the runtime's checksum line (version 2 files): 7 tokens
            i += 7
            continue
        if toks[i] != "tensor":
            raise SystemExit(f"peer_pyg: {path}: expected 'tensor' at token {i}")
        name, rows, rank = toks[i + 1], int(toks[i + 2]), int(toks[i + 3])
        dims = [int(t) for t in toks[i + 4:i + 4 + rank]]
        i += 4 + rank
        n = rows * int(np.prod(dims)) if dims else rows
        out[name] = np.array(toks[i:i + n], dtype=np.float64).astype(np.float32).reshape(dims if dims else [])
        i += n
    return out


def parse_spec(spec):
    kind, _, rest = spec.partition(":")
    if kind not in ("gcn", "gat", "monet", "edgeconv") or not rest:
        raise SystemExit(f"peer_pyg: bad --model '{spec}' (gcn:F,D,..,C | gat:F,HxD,..,1xC | monet:F,K,R,D,..,C | edgeconv:F,D,..)")
    return kind, rest.split(",")


def rewritten_edgeconv(torch):
    """--adj rewrite (EdgeConv only): PyG's EdgeConv(Linear(2F, D), aggr="max") rewritten by hand as
    gnnc's reorg pass rewrites it, with the same parameters (nn.weight = [W1 | W2], D x 2F) and the
    same output: max_j (W1 x_i + W2 (x_j - x_i)) = (W1 - W2) x_i + max_j W2 x_j, so both products per
    vertex (V x D each, never E x 2F), then a gather of the projected rows (E x D) and a scatter-max
    (torch.scatter_reduce "amax") per destination; a vertex without in-edges gets 0, as PyG's does.
    The naive side (--adj edge_index) materialises [x_i, x_j - x_i] per edge (E x 2F) and the
    Linear's E x D output. Returns the module class."""
    class RewrittenEdgeConv(torch.nn.Module):
        def __init__(self, lin):
            super().__init__()
            self.nn = lin

        def forward(self, x, ei):
            f = x.shape[1]
            w1, w2 = self.nn.weight[:, :f], self.nn.weight[:, f:]
            a = x @ w2.t()                      # V x D: W2 x_j, per source vertex
            b = x @ (w1 - w2).t()               # V x D: (W1 - W2) x_i, per destination
            src, dst = ei[0], ei[1]
            idx = dst.view(-1, 1).expand(-1, a.shape[1])
            m = torch.zeros_like(b).scatter_reduce(0, idx, a[src], "amax", include_self=False)
            has = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
            has[dst] = True
            return torch.where(has.view(-1, 1), b + m, torch.zeros_like(b))
    return RewrittenEdgeConv


def build_model(torch, pyg_nn, kind, parts, adj_kind, dropout=True):
    F = torch.nn.functional

    def drop(x, p, training):  # --no-dropout: not even a call (a p = 0 dropout may still copy)
        return F.dropout(x, p, training) if dropout else x

    class Net(torch.nn.Module):
        pass

    net = Net()
    net.kind = kind
    if kind == "gcn":
        w = [int(p) for p in parts]
        net.convs = torch.nn.ModuleList(
            pyg_nn.GCNConv(w[i], w[i + 1], add_self_loops=False, normalize=True, bias=True, cached=(adj_kind == "csr"))
            for i in range(len(w) - 1))

        def fwd(x, adj):
            for i, c in enumerate(net.convs):
                x = drop(x, 0.5, net.training)
                x = c(x, adj)
                if i + 1 < len(net.convs):
                    x = F.relu(x)
            return x
    elif kind == "gat":
        fin = int(parts[0])
        hd = [tuple(int(t) for t in p.split("x")) for p in parts[1:]]
        convs, f = [], fin
        for i, (h, d) in enumerate(hd):
            last = i + 1 == len(hd)
            convs.append(pyg_nn.GATConv(f, d, heads=h, concat=not last, negative_slope=0.2, dropout=0.6 if dropout else 0.0,
                                        add_self_loops=False, bias=False))
            f = h * d
        net.convs = torch.nn.ModuleList(convs)

        def fwd(x, adj):
            for i, c in enumerate(net.convs):
                x = drop(x, 0.6, net.training)
                x = c(x, adj)
                if i + 1 < len(net.convs):
                    x = F.elu(x)
            return x
    elif kind == "monet":
        fin, K, R = int(parts[0]), int(parts[1]), int(parts[2])
        w = [fin] + [int(p) for p in parts[3:]]
        net.K = K
        net.convs = torch.nn.ModuleList(
            pyg_nn.GMMConv(w[i], w[i + 1], dim=R, kernel_size=K, separate_gaussians=False, aggr="add", root_weight=False,
                           bias=False) for i in range(len(w) - 1))
        for c in net.convs:  # PyG 2.3.1's GMMConv reads self.root even with root_weight=False
            if not hasattr(c, "root"):
                c.root = None
        net.P = torch.nn.ParameterList(torch.nn.Parameter(torch.zeros(2, R)) for _ in range(len(w) - 1))

        def fwd(x, adj):
            ei, dsrc, ddst = adj
            for i, c in enumerate(net.convs):
                x = drop(x, 0.5, net.training)
                ps = torch.tanh(torch.stack([dsrc, ddst], 1) @ net.P[i])  # edge[R]
                # gnnc: w = exp(-0.5 * sum((ps - mu)^2 * isigma^2)), mean over the K kernels;
                # PyG divides by sigma^2 (sigma = 1/isigma) and sums over K: scaled by 1/K below
                x = c(x, ei, ps) / net.K
                if i + 1 < len(net.convs):
                    x = F.elu(x)
            return x
    else:  # edgeconv
        w = [int(p) for p in parts]
        conv = rewritten_edgeconv(torch) if adj_kind == "rewrite" else (lambda lin: pyg_nn.EdgeConv(lin, aggr="max"))
        net.convs = torch.nn.ModuleList(
            conv(torch.nn.Linear(2 * w[i], w[i + 1], bias=False)) for i in range(len(w) - 1))

        def fwd(x, adj):
            for i, c in enumerate(net.convs):
                x = c(x, adj)
                if i + 1 < len(net.convs):
                    x = F.relu(x)
            return x

    net.forward = fwd
    return net


def load_params(torch, net, kind, P):
    """gnnc's parameter names and layouts -> PyG's modules."""
    def t(a):
        return torch.from_numpy(np.ascontiguousarray(a))

    with torch.no_grad():
        for i, c in enumerate(net.convs):
            if kind == "gcn":
                c.lin.weight.copy_(t(P[f"gcnconv{i}.W"].T))
                c.bias.copy_(t(P[f"gcnconv{i}.b"]))
            elif kind == "gat":
                W, a = P[f"gatconv{i}.W"], P[f"gatconv{i}.a"]  # [F, H, D], [H, 2D]
                f, h, d = W.shape
                lin = getattr(c, "lin", None) or c.lin_src  # PyG >= 2.4: one lin (lin_src None); 2.3: lin_src
                lin.weight.copy_(t(W.reshape(f, h * d).T))
                c.att_src.copy_(t(a[:, :d].reshape(1, h, d)))
                c.att_dst.copy_(t(a[:, d:].reshape(1, h, d)))
            elif kind == "monet":
                W = P[f"gmmconv{i}.W"]  # [F, K, D]
                f, k, d = W.shape
                c.g.copy_(t(W.reshape(f, k * d)))
                c.mu.copy_(t(P[f"gmmconv{i}.mu"]))
                c.sigma.copy_(t(1.0 / P[f"gmmconv{i}.isigma"]))
                net.P[i].copy_(t(P[f"gmmconv{i}.P"]))
            else:  # edgeconv: gnnc theta @ (x_u - x_v) + phi @ x_v; PyG nn([x_i, x_j - x_i]) -> [phi; theta]
                th, ph = P[f"edgeconv{i}.theta"], P[f"edgeconv{i}.phi"]  # [F, D]
                c.nn.weight.copy_(t(np.concatenate([ph, th], 0).T))


def check_output(torch, forward, net, check_dir, nv, F_in, C, dev):
    """--check: gnnc's parameters (already in net) and input through forward(x), against gnnc's
    output; prints check_* and status ok|mismatch; returns the exit code (4 on a mismatch)."""
    x = torch.from_numpy(np.fromfile(os.path.join(check_dir, "x.bin"), dtype=np.float32).reshape(nv, F_in)).to(dev)
    ref = np.fromfile(os.path.join(check_dir, "out.bin"), dtype=np.float32).reshape(nv, C)
    net.eval()
    with torch.no_grad():
        out = forward(x).cpu().numpy()
    diff = float(np.abs(out - ref).max())
    scale = float(np.abs(ref).max())
    rel = diff / max(scale, 1e-30)
    print(f"check_max_abs {diff:.3e}\ncheck_max_ref {scale:.3e}\ncheck_rel {rel:.3e}")
    ok = rel <= 1e-4 and np.isfinite(out).all()
    print("status " + ("ok" if ok else "mismatch"))
    return 0 if ok else 4


def measure(torch, forward, net, a, nv, F_in, C, dev):
    """The timed runs (peers.sh reads the lines): a.forward inference forwards after a.warmup, then
    a.steps training steps (cross-entropy, backward, Adam; the first 2 untimed), the peak memory."""
    g = torch.Generator().manual_seed(a.seed)
    x = (torch.rand(nv, F_in, generator=g) * 2 - 1).to(dev)
    y = torch.randint(0, C, (nv,), generator=g).to(dev)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    if a.device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    net.eval()
    times = []
    with torch.no_grad():
        for r in range(a.warmup + a.forward):
            t1 = time.perf_counter()
            forward(x)
            sync()
            if r >= a.warmup:
                times.append(time.perf_counter() - t1)
    print(f"forward_ms {1e3 * float(np.median(times)):.4f}\nforward_runs {len(times)}")
    if a.steps > 0:
        net.train()
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        times = []
        for k in range(1, a.steps + 1):
            t1 = time.perf_counter()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(forward(x), y)
            loss.backward()
            opt.step()
            sync()
            if k > 2 or a.steps <= 2:
                times.append(time.perf_counter() - t1)
            if k == 1:
                print(f"loss_first {loss.item():.6f}")
        print(f"loss_last {loss.item():.6f}\ntrain_ms {1e3 * float(np.median(times)):.4f}\ntrain_runs {len(times)}")
    if a.device == "cuda":
        print(f"cuda_peak_mib {torch.cuda.max_memory_allocated() / 1048576.0:.2f}")
    print(f"peak_rss_mib {rss_mib():.2f}\nstatus ok")
    return 0


def out_of_memory(e, who):
    """3 (and the status lines) when the exception e is an allocation failure; None otherwise."""
    msg = str(e)
    if isinstance(e, MemoryError) or "can't allocate memory" in msg or "out of memory" in msg.lower() or "bad_alloc" in msg:
        print(f"{who}: out of memory: {msg[:300]}", file=sys.stderr)
        print(f"status oom\npeak_rss_mib {rss_mib():.2f}")
        return 3
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--adj", default="edge_index", choices=["edge_index", "csr", "rewrite"])
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
    if a.adj == "rewrite" and kind != "edgeconv":
        raise SystemExit("peer_pyg: --adj rewrite is EdgeConv's hand-rewritten baseline (--model edgeconv:...)")

    import torch
    import torch_geometric
    import torch_geometric.nn as pyg_nn
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dev = torch.device(a.device)
    if a.device == "cuda" and not torch.cuda.is_available():
        print("peer_pyg: --device cuda but torch sees no GPU", file=sys.stderr)
        print("status error")
        return 1
    print("side pyg-" + a.adj)
    print(f"versions torch {torch.__version__} torch_geometric {torch_geometric.__version__}")
    print(f"threads {torch.get_num_threads()}")
    t0, c0 = time.perf_counter(), time.process_time()
    nv, ne, in_ptr, src = load_gcsr(a.graph)
    print(f"nv {nv}\nne {ne}")
    try:
        if kind == "monet":
            ei = torch.from_numpy(edge_index_np(nv, in_ptr, src))
            ind = torch.from_numpy(np.diff(in_ptr).astype(np.float32))
            outd = torch.bincount(ei[0], minlength=nv).to(torch.float32)
            ei = ei.to(dev)
            adj = (ei, outd.to(dev)[ei[0]].rsqrt(), ind.to(dev)[ei[1]].rsqrt())
        elif a.adj == "csr":
            adj = torch.sparse_csr_tensor(torch.from_numpy(np.array(in_ptr, dtype=np.int64)),
                                          torch.from_numpy(sorted_rows(nv, in_ptr, src)), torch.ones(ne),
                                          size=(nv, nv)).to(dev)
        else:
            adj = torch.from_numpy(edge_index_np(nv, in_ptr, src)).to(dev)
        print(f"load_s {time.perf_counter() - t0:.3f}\nload_cpu_s {time.process_time() - c0:.3f}")
        print(f"rss_base_mib {rss_mib():.2f}")

        print(f"dropout {'none' if a.no_dropout else 'as the model'}")
        net = build_model(torch, pyg_nn, kind, parts, a.adj, dropout=not a.no_dropout).to(dev)
        F_in = int(parts[0])
        C = int(parts[-1].split("x")[-1])
        forward = lambda x: net.forward(x, adj)  # noqa: E731
        if a.check:
            load_params(torch, net, kind, read_tensors(os.path.join(a.check, "params.txt")))
            return check_output(torch, forward, net.to(dev), a.check, nv, F_in, C, dev)
        return measure(torch, forward, net, a, nv, F_in, C, dev)
    except (MemoryError, RuntimeError) as e:
        rc = out_of_memory(e, "peer_pyg")
        if rc is None:
            raise
        return rc


if __name__ == "__main__":
    sys.exit(main())
