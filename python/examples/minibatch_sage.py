"""python/examples/minibatch_sage.py -- mini-batch GraphSAGE: gnnc's layer vs PyG's SAGEConv on the same batches.

    PYTHONPATH=python python3 python/examples/minibatch_sage.py --side gnnc --graph gen:2000000,50000000
    PYTHONPATH=python python3 python/examples/minibatch_sage.py --side pyg  --graph gen:2000000,50000000
    torchrun --standalone --nproc_per_node=2 python/examples/minibatch_sage.py --side gnnc ...  # data-parallel

The model: GraphSAGE with the mean aggregator, 2 layers (h = relu(SAGE(x)); y = SAGE(h)), trained
with Adam on cross-entropy over mini-batches of `--batch` seed vertices (1024), each batch the 2-hop
neighbourhood sampled with fan-out `--fanout` (15,10) as PyG's NeighborLoader does: 15 in-neighbours
of each seed, then 10 of each of those, sampled without replacement, the subgraph's vertices
relabelled seeds first, the loss on the seeds' rows. A fan-out of -1 keeps every in-edge at that
hop, as the runtime's sampler and NeighborLoader read it (`--fanout=-1,10`, with the `=`: argparse
takes `--fanout -1,10` for an option; `--fanout all,10` is the same; 0 keeps none and is refused); 1
to 64 hops. The sampler is gnnc's runtime's (`--sampler native`, the default: Library.sampler, C and
OpenMP; new vertices numbered in order of first appearance) or this file's (`--sampler numpy`; new
vertices of a hop in ascending id), both deterministic: batch i of epoch e draws from the seed
(seed, e, i), so two processes, one per side, see the very same batches, and so do the ranks of a
data-parallel run; NeighborLoader itself needs pyg-lib or torch-sparse, which are not wheels on
PyPI. The native sampler needs gnnc's runtime on PyG's side too: that side loads the model library
for its context only.

gnnc's side: the model below, compiled by gnnc (--gnnc) into a host library, as a GnncModule: one
gnnc model rebound to each batch's graph (its arena reused). PyG's side: two SAGEConv(aggr="mean")
with the same shapes (lin_l = W_neigh with the bias, lin_r = W_self). --check runs both on one
batch with gnnc's parameters copied into PyG's and compares the outputs; it trains nothing, so it
takes no --side (it runs both; --side pyg was silently turned into gnnc) and no --out (it writes no
losses or parameters): both are refused with it. The training options (--epochs, --batches,
--eval, --lr, --emulate-world) are checked and then unused under --check, so that one command line
serves the check and the training runs (bench/minibatch.sh passes the same arguments to both).

The graph: `gen:N,E` a planted partition (stochastic block model) of N vertices and E edges (each
edge's source uniform, its destination in the source's class with probability P_SAME, else
uniform; `--classes` balanced classes in no order), features = SIGNAL x the class's random
centroid + Gaussian noise (a vertex's own features are a weak signal; its neighbours help);
or a directory holding ogbn-products as .npy (edge_index.npy [2, E], x.npy, y.npy) when present.
10% of the vertices train, 10% test (seeded). Memory: E int32 twice plus the CSR, N x F floats.

Timing is reported apart: sampling (the sampler and the gather of the batch's features), compute
(forward, loss, backward, optimiser step), and the epoch. Peak memory, all from the kernel's
high-water mark (VmHWM): peak_rss_load, the peak up to the end of loading (the graph's generation
has temporaries of its own); peak_rss, the peak while training and evaluating (the mark reset after
loading; where the kernel cannot reset it, the whole run's peak, and peak_rss_includes_load says
so); peak_rss_with_load, the larger of the two: the whole run's peak; rss_loaded, the RSS after
loading (peak_rss - rss_loaded is what training added); for gnnc also the runtime's peak counter
(its arena, parameters, graphs). `--batches N` caps the batches per epoch (0, the default: all of
them; a full epoch of a 2M-vertex graph on two cores takes long); the result says how many ran.
Accuracy: the trained model on `--eval` test vertices (the same sampler, in eval mode; at most the
test split; `--eval 0` evaluates nothing and reports accuracy null). One JSON line of results on
stdout (rank 0), the losses per step and the final parameters in --out (for the data-parallel
test: tests/python/test_ddp_minibatch.py).

Bad options are refused before anything runs, as argparse refuses them: a line
"minibatch_sage.py: error: ..." on stderr and exit 2 (counts that must be >= 1, a fan-out entry
that is neither >= 1 nor -1, a graph that is neither gen:N,E nor a folder with the three .npy
files, a missing --gnnc, --side pyg without torch_geometric, --check with --side or --out, ...);
what only the loaded graph
tells (more batches per step than an epoch has) the same way once it is loaded. The option types
are in minibatch_args.py, shared with bench/sampler.py. Tests: tests/python/test_minibatch_options.py.

Data-parallel: under torchrun (WORLD_SIZE > 1) the process group is gloo (NCCL for CUDA tensors is
not wired here: the example runs on the host), the module is wrapped in DistributedDataParallel, and
rank r takes the epoch's batches r, r + W, r + 2W, ...; the step count is the same on every rank.
`--emulate-world W` is the single-process run of the same schedule: each step takes the W batches
the ranks would take and minimises their mean loss, which is what DDP's gradient average computes.
An epoch's batches past the last whole step are left out (as DDP's ranks leave them); W (or
WORLD_SIZE) more than an epoch's batches, or a --batches below W, is refused: no step would run.
"""
import argparse
import fcntl
import gc
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import gnnc  # noqa: E402
from gnnc.nn import GnncModule  # noqa: E402
# the option types, shared with bench/sampler.py (minibatch_args.py imports no torch)
from minibatch_args import (MAX_VERTICES, MIN_VERTICES, NPY_FILES, Refused, check_gnnc, fanout_arg,  # noqa: E402,F401
                            gen_size, graph_arg, int_arg, lr_arg, make_folder)

GNN_SOURCE = """# GraphSAGE, mean aggregator, 2 layers (python/examples/minibatch_sage.py writes this file)
layer SAGEConv<D>(x: vertex[F]) -> vertex[D] {
  param W_self: [F, D]
  param W_neigh: [F, D]
  param b: [D]
  return W_self @ x + mean(W_neigh @ x[src]) + b
}

model SAGE(x: vertex[%d]) -> vertex[%d] {
  return SAGEConv<%d>(relu(SAGEConv<%d>(x)))
}
"""


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def reset_hwm():
    """Resets the kernel's RSS high-water mark (VmHWM; Linux >= 4.0), so that hwm_bytes() is training's peak.
    getrusage's ru_maxrss is not a peak over the reset: it reads the same mark (reset too, so it
    forgets the loading), through the kernel's approximate counters (a little below VmHWM): the
    peak with the loading is the mark read before the reset."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def hwm_bytes():
    """The kernel's RSS high-water mark (VmHWM: since the start, or since reset_hwm); ru_maxrss where
    /proc/self/status has none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# ---------------------------------------------------------------- the data

class Data:
    """A graph as in-neighbour CSR (indptr over destinations, the sources in indices), features, labels, splits."""

    def __init__(self, n, src, dst, x, y, classes, seed):
        order = np.argsort(dst, kind="stable")
        self.indices = src[order].astype(np.int32)
        del order
        self.indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(dst, minlength=n), out=self.indptr[1:])
        self.n, self.ne, self.x, self.y, self.classes = n, len(self.indices), x, y, classes
        perm = np.random.default_rng(seed + 1).permutation(n)
        self.train = np.sort(perm[: train_count(n)])
        self.test = np.sort(perm[train_count(n): n // 5])


def train_count(n):
    """The training split's size: a tenth of the vertices (the test split the next tenth)."""
    return n // 10


# the planted partition's difficulty: an edge stays in its source's class with probability P_SAME
# (else it goes anywhere), and a vertex's features are SIGNAL x its class's centroid + N(0, 1) noise
P_SAME, SIGNAL = 0.3, 0.3


def generate(n, e, features, classes, seed):
    rng = np.random.default_rng(seed)
    label = rng.permutation(n) % classes  # balanced classes, in no order
    members = np.argsort(label, kind="stable")  # the vertices of class c: members[start[c]:start[c+1]]
    start = np.zeros(classes + 1, np.int64)
    np.cumsum(np.bincount(label, minlength=classes), out=start[1:])
    src = np.empty(e, np.int32)
    dst = np.empty(e, np.int32)
    chunk = 1 << 22
    for a in range(0, e, chunk):  # in chunks: int64 temporaries of E would double the memory
        b = min(e, a + chunk)
        s = rng.integers(0, n, b - a)
        c = label[s]
        size = start[c + 1] - start[c]
        same = members[start[c] + (rng.random(b - a) * size).astype(np.int64)]
        d = np.where(rng.random(b - a) < P_SAME, same, rng.integers(0, n, b - a))
        src[a:b], dst[a:b] = s, d
    centroid = rng.standard_normal((classes, features)).astype(np.float32)
    x = np.empty((n, features), np.float32)
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        x[a:b] = SIGNAL * centroid[label[a:b]] + rng.standard_normal((b - a, features), dtype=np.float32)
    return Data(n, src, dst, x, label.astype(np.int64), classes, seed)


def load_npy(folder, seed):
    """ogbn-products as .npy (edge_index [2, E], x [N, F], y [N] or [N, 1]), checked before use:
    a wrong shape or an edge to a vertex that is not there is refused, not a NumPy error later."""
    arrays = {}
    for name in NPY_FILES:
        path = os.path.join(folder, name)
        try:
            arrays[name] = np.load(path, mmap_mode="r")
        except (OSError, ValueError) as err:  # missing, unreadable, not a .npy (or a pickle)
            raise Refused("--graph %s: %s: %s" % (folder, name, getattr(err, "strerror", None) or err)) from None
    ei, x, y = arrays["edge_index.npy"], arrays["x.npy"], arrays["y.npy"]
    if ei.ndim != 2 or ei.shape[0] != 2 or not np.issubdtype(ei.dtype, np.integer):
        raise Refused("--graph %s: edge_index.npy is %s %s, not integers of shape [2, E]" % (folder, ei.dtype, ei.shape))
    if x.ndim != 2 or x.shape[1] < 1 or not np.issubdtype(x.dtype, np.number) or np.issubdtype(x.dtype, np.complexfloating):
        raise Refused("--graph %s: x.npy is %s %s, not real numbers of shape [N, F]" % (folder, x.dtype, x.shape))
    n = x.shape[0]
    if not MIN_VERTICES <= n <= MAX_VERTICES:
        raise Refused("--graph %s: x.npy has %d vertices (%d .. %d: a tenth trains, a tenth tests)" % (
            folder, n, MIN_VERTICES, MAX_VERTICES))
    if not np.issubdtype(y.dtype, np.integer) or y.size != n or y.ndim not in (1, 2):
        raise Refused("--graph %s: y.npy is %s %s, not one integer label per vertex of x.npy (%d)" % (folder, y.dtype, y.shape, n))
    y = np.asarray(y, np.int64).reshape(-1)
    if y.size and y.min() < 0:
        raise Refused("--graph %s: y.npy holds the label %d (labels are 0 .. classes - 1)" % (folder, y.min()))
    if ei.shape[1] and (ei.min() < 0 or ei.max() >= n):
        bad = ei.min() if ei.min() < 0 else ei.max()
        raise Refused("--graph %s: edge_index.npy names vertex %d; x.npy has %d (0 .. %d)" % (folder, bad, n, n - 1))
    return Data(n, np.asarray(ei[0], np.int32), np.asarray(ei[1], np.int64), np.asarray(x, np.float32), y,
                int(y.max()) + 1, seed)


def load(spec, features, classes, seed):
    if spec.startswith("gen:"):
        n, e = gen_size(spec)
        return generate(n, e, features, classes, seed)
    return load_npy(spec, seed)


# ---------------------------------------------------------------- the sampler

class Sampler:
    """NeighborLoader's sampling, in NumPy: k in-neighbours per vertex per hop without replacement (k < 0: all)."""

    def __init__(self, data, fanout, seed):
        self.d, self.fanout, self.seed = data, fanout, seed
        self.local = np.full(data.n, -1, np.int64)  # global -> local id of the batch being built

    def sample(self, seeds, key):
        """(the batch's vertices, global ids with the seeds first; edge_index [2, E] local ids)."""
        d, rng = self.d, np.random.default_rng([self.seed, *key])
        nodes = [seeds]
        self.local[seeds] = np.arange(len(seeds))
        count, frontier, srcs, dsts = len(seeds), seeds, [], []
        for k in self.fanout:
            lo, hi = d.indptr[frontier], d.indptr[frontier + 1]
            deg = hi - lo
            # every in-edge of the frontier, with a random key; the k smallest keys of each vertex win
            seg = np.repeat(np.arange(len(frontier)), deg)
            pos = np.arange(deg.sum()) - np.repeat(np.cumsum(deg) - deg, deg)
            order = np.lexsort((rng.random(len(seg)), seg))
            rank = np.empty(len(seg), np.int64)
            rank[order] = pos  # rank of each edge within its vertex after shuffling
            keep = rank < k if k >= 0 else np.ones(len(seg), bool)  # < 0: every in-edge, as the runtime's
            eid = np.repeat(lo, deg)[keep] + pos[keep]
            u = d.indices[eid].astype(np.int64)
            v = frontier[seg[keep]]
            new = np.unique(u[self.local[u] < 0])
            self.local[new] = count + np.arange(len(new))
            count += len(new)
            nodes.append(new)
            srcs.append(self.local[u])
            dsts.append(self.local[v])
            frontier = new
        all_nodes = np.concatenate(nodes)
        self.local[all_nodes] = -1
        return all_nodes, np.stack([np.concatenate(srcs), np.concatenate(dsts)])


class NativeSampler:
    """The same batches' rule in gnnc's runtime (Library.sampler over the data's CSR, not copied):
    batch key (e, i) draws with the 64-bit seed made of (seed, e, i)."""

    def __init__(self, lib_path, data, fanout, seed):
        self.lib = gnnc.load(lib_path)  # its runtime and a context of its own
        self.s = self.lib.sampler(indptr=data.indptr, indices=data.indices)
        self.fanout, self.seed = fanout, seed

    def sample(self, seeds, key):
        k = ((self.seed * 1000003 + key[0]) * 1000003 + key[1]) % 2**64
        b = self.s.sample(seeds, self.fanout, k)
        return b.nodes, b.edge_index


def batches(data, batch, epoch, seed, split):
    ids = split if epoch < 0 else np.random.default_rng([seed, 7, epoch]).permutation(split)
    return [ids[i:i + batch] for i in range(0, len(ids), batch)]


# ---------------------------------------------------------------- the two models

def build_library(gnnc_bin, features, hidden, classes, workdir):
    """The model's library in workdir, compiled once per source and gnnc. The ranks of a
    data-parallel run call this at the same time on the same workdir: the first to take the lock
    compiles, the others wait and load its library. Every file appears whole or not at all (written
    under a name of this process, then renamed), so a process never reads another's half-written
    .gnn: rewriting it in place while another rank's gnnc read it was a flake of the DDP test."""
    src = GNN_SOURCE % (features, classes, classes, hidden)
    os.makedirs(workdir, exist_ok=True)
    tag = hashlib.sha256((src + os.path.abspath(gnnc_bin)).encode()).hexdigest()[:12]
    gnn, lib = os.path.join(workdir, "sage-%s.gnn" % tag), os.path.join(workdir, "libsage-%s.so" % tag)
    if os.path.exists(lib):
        return lib
    with open(os.path.join(workdir, "sage-%s.lock" % tag), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when this process dies
        if not os.path.exists(lib):  # another process may have built it while this one waited
            tmp_gnn = "%s.%d.tmp" % (gnn, os.getpid())
            with open(tmp_gnn, "w") as f:
                f.write(src)
            os.replace(tmp_gnn, gnn)
            tmp = lib[:-3] + ".%d.so" % os.getpid()  # gnnc picks the output's kind by its extension
            try:
                subprocess.run([gnnc_bin, gnn, "--target=host", "-o", tmp], check=True)
                os.replace(tmp, lib)
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
    return lib


class PygSage(torch.nn.Module):
    def __init__(self, features, hidden, classes):
        super().__init__()
        from torch_geometric.nn import SAGEConv
        self.conv1 = SAGEConv(features, hidden, aggr="mean")
        self.conv2 = SAGEConv(hidden, classes, aggr="mean")

    def forward(self, edge_index, x):
        return self.conv2(torch.relu(self.conv1(x, edge_index)), edge_index)

    def load_gnnc(self, params):
        """gnnc's parameters (name -> tensor) into the SAGEConvs: lin_l = W_neigh^T with b, lin_r = W_self^T."""
        with torch.no_grad():
            for i, conv in enumerate((self.conv1, self.conv2)):
                conv.lin_l.weight.copy_(params["sageconv%d.W_neigh" % i].t())
                conv.lin_l.bias.copy_(params["sageconv%d.b" % i])
                conv.lin_r.weight.copy_(params["sageconv%d.W_self" % i].t())


def capacity(batch, fanout, n=None, ne=None):
    """The most vertices and edges a batch can have: batch seeds, each hop adding fanout[k] per frontier
    vertex, and never more than the graph's n vertices and ne edges (a vertex joins a batch once, and
    its in-edges are drawn at one hop only). None where a hop keeps every in-edge (fanout -1): then
    the only bound is the whole graph, and the module's arena grows with the batches instead."""
    if any(k < 0 for k in fanout):
        return None
    v, e, frontier = batch, 0, batch
    for k in fanout:
        frontier *= k
        v, e = v + frontier, e + frontier
    if n is not None:
        v = min(v, n)
    if ne is not None:
        e = min(e, ne)
    return min(v, 2**31), min(e, 2**31)  # GnncModule's capacity: the runtime's int32 ids


def make_model(side, a, data, features, classes):
    if side == "gnnc":
        lib = build_library(a.gnnc, features, a.hidden, classes, a.workdir)
        # the sampler's bound as the capacity: one arena for every batch, no 1.5x growth step
        # (the batches' sizes differ by a few %, so growing past the first would overshoot)
        return GnncModule(lib, seed=a.seed, capacity=capacity(a.batch, a.fanout, data.n, data.ne)), lib
    torch.manual_seed(a.seed)
    return PygSage(features, a.hidden, classes), None


# ---------------------------------------------------------------- training

def run(a):
    if a.threads:  # the same on both sides: torch's intra-op threads and gnnc's OpenMP (read when the library loads)
        torch.set_num_threads(a.threads)
        os.environ["OMP_NUM_THREADS"] = str(a.threads)
    world, rank = a.world, a.rank
    if world > 1:
        import torch.distributed as dist
        dist.init_process_group("gloo")
    torch.manual_seed(a.seed)
    t0 = time.perf_counter()
    data = load(a.graph, a.features, a.classes, a.seed)
    t_load = time.perf_counter() - t0
    if not a.check:
        check_steps(a, len(data.train))
    gc.collect()
    rss_loaded = rss_bytes()
    peak_load = hwm_bytes()  # the peak so far: loading's (before the reset forgets it)
    hwm_reset = reset_hwm()  # from here on the high-water mark is training's (and evaluation's)
    x_all, y_all = torch.from_numpy(data.x), torch.from_numpy(data.y)
    features, classes = data.x.shape[1], data.classes
    model, lib = make_model(a.side, a, data, features, classes)
    net = model
    if world > 1:
        net = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    if a.sampler == "native":
        sampler = NativeSampler(lib or build_library(a.gnnc, features, a.hidden, classes, a.workdir), data, a.fanout, a.seed)
    else:
        sampler = Sampler(data, a.fanout, a.seed)
    share = batches_per_step(a)

    def batch_of(key, seeds):
        nodes, ei = sampler.sample(seeds, key)
        return torch.from_numpy(ei), x_all[torch.from_numpy(nodes)], y_all[torch.from_numpy(seeds)], len(seeds)

    if a.check:
        return check(a, data, model, lib, batch_of, features, classes)

    losses, t_sample, t_compute, seen = [], 0.0, 0.0, 0
    t_epoch = []
    model.train()
    for epoch in range(a.epochs):
        te = time.perf_counter()
        bl = batches(data, a.batch, epoch, a.seed, data.train)
        steps = len(bl) // share
        if a.batches:
            steps = min(steps, a.batches // share)  # >= 1: check_steps refused a --batches below share
        for step in range(steps):
            mine = [step * share + rank] if world > 1 else [step * share + r for r in range(share)]
            ts = time.perf_counter()
            got = [batch_of((epoch, i), bl[i]) for i in mine]
            tc = time.perf_counter()
            t_sample += tc - ts
            opt.zero_grad()
            loss = sum(torch.nn.functional.cross_entropy(net(ei, x)[:bs], y) for ei, x, y, bs in got) / len(got)
            loss.backward()
            opt.step()
            t_compute += time.perf_counter() - tc
            losses.append(float(loss))
            seen += len(got)
        t_epoch.append(time.perf_counter() - te)

    # accuracy on test vertices: the same sampler, eval mode (--eval 0: none, and no accuracy)
    model.eval()
    correct = total = 0
    te = time.perf_counter()
    with torch.no_grad():
        for i, seeds in enumerate(batches(data, a.batch, -1, a.seed, data.test[: a.eval])):
            ei, x, y, bs = batch_of((10**6, i), seeds)
            correct += int((model(ei, x)[:bs].argmax(1) == y).sum())
            total += bs
    t_eval = time.perf_counter() - te
    peak = hwm_bytes()
    res = dict(side=a.side, sampler=a.sampler, rank=rank, world=world, emulate_world=a.emulate_world, vertices=data.n, edges=data.ne,
               features=features, classes=classes, hidden=a.hidden, batch=a.batch, fanout=a.fanout,
               train_vertices=len(data.train), batches_per_epoch=len(batches(data, a.batch, 0, a.seed, data.train)),
               batches_run=seen, epochs=a.epochs, load_s=t_load, sample_s=t_sample, compute_s=t_compute,
               epoch_s=sum(t_epoch), eval_s=t_eval, accuracy=correct / total if total else None, eval_vertices=total,
               peak_rss=peak, peak_rss_includes_load=not hwm_reset, peak_rss_load=peak_load,
               peak_rss_with_load=max(peak, peak_load), rss_loaded=rss_loaded, threads=torch.get_num_threads(),
               torch=torch.__version__)
    if lib is not None:
        res["gnnc_peak"] = model.lib.memory_usage()[1]
    if a.side == "pyg":
        import torch_geometric
        res["torch_geometric"] = torch_geometric.__version__
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        torch.save({"losses": losses, "params": {n: p.detach().clone() for n, p in model.named_parameters()}, "res": res},
                   os.path.join(a.out, "rank%d.pt" % rank))
    if rank == 0:
        print(json.dumps(res), flush=True)
    if world > 1:
        torch.distributed.destroy_process_group()
    return 0


def check(a, data, model, lib, batch_of, features, classes):
    """gnnc's module and PyG's SAGEConvs with the same parameters on one batch: the same output."""
    pyg = PygSage(features, a.hidden, classes)
    pyg.load_gnnc({n: getattr(model, n.replace(".", "__")).detach() for n in model._names})
    ei, x, _, _ = batch_of((0, 0), batches(data, a.batch, 0, a.seed, data.train)[0])
    model.eval()
    with torch.no_grad():
        yg, yp = model(ei, x), pyg(ei, x)
    err = float((yg - yp).abs().max() / yp.abs().max())
    print(json.dumps(dict(check="gnnc-vs-pyg", vertices=int(x.shape[0]), edges=int(ei.shape[1]), max_rel_err=err)))
    return 0 if err < 1e-4 else 1


def batches_per_step(a):
    """Batches per optimiser step: one per rank (WORLD_SIZE ranks, or --emulate-world in one process)."""
    return a.world if a.world > 1 else a.emulate_world


def check_steps(a, ntrain):
    """Refuses a schedule that runs no step: an epoch of fewer batches than one step takes, or
    --batches below one step (the ranks' batches of a step are never split)."""
    share = batches_per_step(a)
    nb = -(-ntrain // a.batch)
    who = "WORLD_SIZE=%d (a batch per rank)" % a.world if a.world > 1 else "--emulate-world %d" % a.emulate_world
    if nb < share:
        raise Refused("%s: a step takes %d batches and an epoch has only %d (%d training vertices in batches of "
                      "%d): no step would run; lower it, or --batch" % (who, share, nb, ntrain, a.batch))
    if a.batches and a.batches < share:
        raise Refused("--batches %d: a step takes %d batches (%s): no step would run; give %d or more (0: all)" % (
            a.batches, share, who, share))


def env_count(name, default, lo):
    v = os.environ.get(name, default)
    try:
        k = int(v)
    except ValueError:
        k = None
    if k is None or k < lo:
        raise Refused("%s=%r is not an integer >= %d (torchrun sets it)" % (name, v, lo))
    return k


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--side", choices=("gnnc", "pyg"), help="the side that trains (gnnc; not with --check: it runs both)")
    p.add_argument("--graph", type=graph_arg, default="gen:20000,400000",
                   help="gen:N,E (a planted partition; N >= 10) or an ogbn-products .npy directory")
    p.add_argument("--features", type=int_arg(1), help="features of a generated graph (100; a folder's come from x.npy)")
    p.add_argument("--classes", type=int_arg(1), help="classes of a generated graph (47; a folder's come from y.npy)")
    p.add_argument("--hidden", type=int_arg(1), default=128)
    p.add_argument("--batch", type=int_arg(1, meaning=" (seed vertices per batch)"), default=1024)
    p.add_argument("--fanout", type=fanout_arg, default="15,10",
                   help="in-edges kept per vertex at each hop; -1 or all: every in-edge (write --fanout=-1,10)")
    p.add_argument("--sampler", choices=("native", "numpy"), default="native",
                   help="gnnc's runtime's sampler (C, OpenMP) or this file's NumPy one")
    p.add_argument("--epochs", type=int_arg(1), default=1)
    p.add_argument("--batches", type=int_arg(0, meaning=" (batches per epoch; 0: all)"), default=0,
                   help="at most this many batches per epoch (0: all)")
    p.add_argument("--eval", type=int_arg(0, meaning=" (test vertices; 0: no evaluation)"), default=20000,
                   help="test vertices for the accuracy (at most the test split; 0: no evaluation, accuracy null)")
    p.add_argument("--lr", type=lr_arg, default=0.01)
    p.add_argument("--seed", type=int_arg(0, 2**64 - 1), default=1)
    p.add_argument("--threads", type=int_arg(0, meaning=" (0: as they are)"), default=0,
                   help="torch's and gnnc's threads (0: as they are)")
    p.add_argument("--emulate-world", type=int_arg(1, meaning=" (ranks emulated)"), default=1,
                   help="one process running W ranks' batches per step")
    p.add_argument("--gnnc", default=os.path.join(HERE, "..", "..", "build", "gnnc"))
    p.add_argument("--workdir", default=os.path.join(HERE, "..", "..", "build", "examples"))
    p.add_argument("--out", default="", help="a directory for each rank's losses and parameters")
    p.add_argument("--check", action="store_true", help="compare gnnc and PyG on one batch with the same parameters")
    a = p.parse_args()
    if a.check:  # one batch through both sides, nothing trained: an option for one side or training's files would be ignored
        if a.side is not None:
            p.error("--check takes no --side (--side %s): it runs both sides on one batch, gnnc's parameters "
                    "copied into PyG's SAGEConvs; --side picks the one side that trains" % a.side)
        if a.out:
            p.error("--check takes no --out (--out %s): it trains nothing and writes no losses or parameters" % a.out)
    a.side = a.side or "gnnc"  # under --check: gnnc's module, whose parameters PyG's side copies
    generated = a.graph.startswith("gen:")
    for name in ("features", "classes"):
        if getattr(a, name) is not None and not generated:
            p.error("--%s: the graph %s has its own (%s); --%s is for a generated graph (gen:N,E)" % (
                name, a.graph, "x.npy's columns" if name == "features" else "y.npy's labels", name))
    a.features = 100 if a.features is None else a.features
    a.classes = 47 if a.classes is None else a.classes
    try:
        a.world = env_count("WORLD_SIZE", "1", 1)
        a.rank = env_count("RANK", "0", 0)
        if a.rank >= a.world:
            raise Refused("RANK=%d with WORLD_SIZE=%d (ranks are 0 .. %d)" % (a.rank, a.world, a.world - 1))
        if a.world > 1 and a.emulate_world != 1:
            raise Refused("--emulate-world %d under torchrun (WORLD_SIZE=%d): the ranks are real; --emulate-world "
                          "is for one process" % (a.emulate_world, a.world))
        if generated and not a.check:  # the training split's size is known now: refuse before generating
            check_steps(a, train_count(gen_size(a.graph)[0]))
    except Refused as err:
        p.error(str(err))
    if a.side == "pyg" or a.check:
        try:
            import torch_geometric  # noqa: F401
        except ImportError as err:
            p.error("%s needs torch_geometric, which %s cannot import (%s): bench/peers_env.sh makes a venv with it" % (
                "--check" if a.check else "--side pyg", sys.executable, err))
    if a.side == "gnnc" or a.sampler == "native":
        check_gnnc(p, a.gnnc)
    for name in ("workdir", "out"):  # made now: a bad folder refused before the graph is loaded
        d = getattr(a, name)
        if d and (name == "out" or a.side == "gnnc" or a.sampler == "native"):
            make_folder(p, name, d)
    try:
        return run(a)
    except Refused as err:
        p.error(str(err))
    except subprocess.CalledProcessError as err:  # gnnc said why on stderr
        print("%s: error: %s failed (exit %d) compiling the model" % (p.prog, err.cmd[0], err.returncode), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
