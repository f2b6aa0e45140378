"""tests/python/test_sampler.py LIBDIR -- neighbour sampling from Python (Library.sampler, gnn_sampler_*).

The reference is the specification written out again in plain Python from gnnrt.h and
runtime/gnnrt_rng.h, not from sample.c: a draw from 0 .. n - 1 is 64 bits of gnn_rng_bits (streams
2h and 2h + 1, index v << 32 | j) modulo n; a vertex keeps its positions by Floyd's algorithm,
ascending; new sources are numbered in order of first appearance. Every batch of a random graph
with hubs must equal it exactly (nodes, edge_index, eid, the hop counts), through a Graph and
through NumPy CSR arrays, for several fan-outs (-1 and 0 among them) and seeds. Then what a user
gets wrong: repeated or out-of-range seeds, non-integer seeds, an empty fanout, a seed past 64
bits, a CSR that is not one, freeing a graph under an open sampler, a closed sampler.
LIBDIR holds libgcn_interp.so (any model library: the sampler needs its runtime and context).
Prints "ok NAME" / "FAIL NAME: detail" lines.
"""
import os
import sys

import numpy as np

import gnnc

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402
M64 = (1 << 64) - 1


def raises(exc, needle, name, fn):
    try:
        fn()
        check(False, name, "no exception")
    except exc as e:
        check(needle in str(e), name, "message %r lacks %r" % (str(e), needle))
    except Exception as e:  # noqa: BLE001 -- the wrong kind is a failure
        check(False, name, "%s: %s" % (type(e).__name__, e))


# ---------------------------------------------------------------- the specification, in Python

def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


def rng_bits(seed, stream, index):
    k = mix((seed + 0x9e3779b97f4a7c15 * (stream + 1)) & M64)
    return mix(k ^ ((index * 0xd1b54a32d192ed03) & M64)) >> 32


def draw_below(seed, hop, v, j, n):
    index = (v << 32) | j
    r = (rng_bits(seed, 2 * hop, index) << 32) | rng_bits(seed, 2 * hop + 1, index)
    return r % n


def keep(seed, hop, v, d, k):
    """The positions of v's d in-edges kept at this hop, ascending."""
    if k < 0 or d <= k:
        return list(range(d))
    chosen = set()
    for j in range(d - k, d):
        t = draw_below(seed, hop, v, j, j + 1)
        chosen.add(j if t in chosen else t)
    return sorted(chosen)


def reference(indptr, indices, seeds, fanout, seed):
    nodes = list(seeds)
    local = {v: i for i, v in enumerate(seeds)}
    src, dst, eid, hop_nv, hop_ne = [], [], [], [len(seeds)], [0]
    lo = 0
    for h, k in enumerate(fanout):
        hi = len(nodes)
        for f in range(lo, hi):
            v = nodes[f]
            first, d = int(indptr[v]), int(indptr[v + 1] - indptr[v])
            for p in keep(seed, h, v, d, k):
                u = int(indices[first + p])
                if u not in local:
                    local[u] = len(nodes)
                    nodes.append(u)
                src.append(local[u])
                dst.append(f)
                eid.append(first + p)
        hop_nv.append(len(nodes))
        hop_ne.append(len(src))
        lo = hi
    return nodes, src, dst, eid, hop_nv, hop_ne


def same(b, ref):
    nodes, src, dst, eid, hop_nv, hop_ne = ref
    return (b.nodes.tolist() == nodes and b.edge_index[0].tolist() == src and b.edge_index[1].tolist() == dst and
            b.eid.tolist() == eid and b.hop_nodes.tolist() == hop_nv and b.hop_edges.tolist() == hop_ne and
            b.edge_index.dtype == np.int64 and b.nodes.dtype == np.int64)


def main():
    lib = gnnc.load(os.path.join(sys.argv[1], "libgcn_interp.so"))
    rng = np.random.default_rng(3)
    n = 600
    # in-degrees 0 .. 5, every tenth vertex a hub of 40 .. 80; self-loops and repeats by chance
    deg = rng.integers(0, 6, n) + np.where(np.arange(n) % 10 == 0, rng.integers(40, 81, n), 0)
    deg[n - 1] = 0
    dst = np.repeat(np.arange(n), deg)
    src = rng.integers(0, n, dst.size)
    g = lib.graph(src, dst, num_vertices=n)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=indptr[1:])
    indices = g.src  # the graph's CSR order: stable by destination, so src as given here
    check(np.array_equal(indices, src), "csr/graph-order", "the graph's sources are not the edge list's")
    by_graph, by_csr = lib.sampler(g), lib.sampler(indptr=indptr, indices=indices)
    cases = [([0], [15, 10], 1), ([5, 10, 20, 599], [3, 3, 3], 7), (list(range(0, 600, 7)), [-1, 2], 2**64 - 1),
             ([30, 1], [0, 5], 11), ([40, 50, 60], [45, 1], 3), (rng.permutation(n)[:100].tolist(), [25, 10], 12345)]
    for i, (seeds, fan, seed) in enumerate(cases):
        ref = reference(indptr, indices, seeds, fan, seed)
        a, b = by_graph.sample(seeds, fan, seed), by_csr.sample(np.array(seeds), fan, seed)
        check(same(a, ref), "spec/graph/%d" % i, "the batch differs from the specification (%d vs %d edges)" % (a.eid.size, len(ref[3])))
        check(same(b, ref), "spec/csr/%d" % i, "the batch differs from the specification (%d vs %d edges)" % (b.eid.size, len(ref[3])))
    # the example's use: features and labels of the batch gathered by nodes, an edge feature by eid
    b = by_graph.sample([10], [5], 9)
    check(np.array_equal(src[b.eid], b.nodes[b.edge_index[0]]) and np.array_equal(dst[b.eid], b.nodes[b.edge_index[1]]),
          "eid/edge-rows", "eid does not name the sampled edges")
    raises(gnnc.GnncError, "seeds[2] = 4 repeats seeds[0]", "error/repeat", lambda: by_graph.sample([4, 5, 4], [2]))
    raises(gnnc.GnncError, "seeds[0] = 600 out of range", "error/range", lambda: by_graph.sample([600], [2]))
    raises(ValueError, "not a whole number", "error/float-seed", lambda: by_graph.sample([1.5], [2]))
    raises(ValueError, "fanout is empty", "error/no-hops", lambda: by_graph.sample([1], []))
    raises(ValueError, "out of range (0 .. 2^64 - 1)", "error/seed-64", lambda: by_graph.sample([1], [2], seed=2**64))
    # fan-outs: a float was truncated (2.9 kept 2), a string split into hops ("15": [1, 5]), 2^63 a bare OverflowError
    raises(TypeError, "fanout[0] = 2.9 is not an integer", "error/fanout-float", lambda: by_graph.sample([1], [2.9]))
    raises(TypeError, "fanout must be a list of integers", "error/fanout-string", lambda: by_graph.sample([1], "15"))
    raises(TypeError, "fanout must be a list of integers", "error/fanout-scalar", lambda: by_graph.sample([1], 15))
    raises(TypeError, "fanout[1] = True is not an integer", "error/fanout-bool", lambda: by_graph.sample([1], [2, True]))
    raises(ValueError, "fanout[0] = 9223372036854775808 is out of range", "error/fanout-2-63",
           lambda: by_graph.sample([1], [2**63]))
    check(same(by_graph.sample([1], (np.int64(3), -1), 4), reference(indptr, indices, [1], [3, -1], 4)), "fanout/numpy-ints",
          "a tuple of NumPy integers differs from the list")
    raises(ValueError, "graph or a CSR", "error/neither", lambda: lib.sampler())
    # a graph of another Library lives in another context: refused, as Model refuses it
    lib2 = gnnc.load(os.path.join(sys.argv[1], "libgcn_interp.so"))
    raises(ValueError, "the graph must come from the same gnnc.Library", "error/other-library", lambda: lib2.sampler(g))
    lib2.close()
    # no vertex: every sample would fail, so no sampler
    raises(gnnc.GnncError, "0 vertices, 0 edges (1 .. 2^31 - 1 vertices", "error/csr-no-vertex",
           lambda: lib.sampler(indptr=np.array([0], np.int64), indices=np.array([], np.int32)))
    raises(TypeError, "1-D integer array", "error/csr-float", lambda: lib.sampler(indptr=indptr.astype(float), indices=indices))
    raises(ValueError, "out of range", "error/csr-range", lambda: lib.sampler(indptr=indptr, indices=indices + 1))
    raises(gnnc.GnncError, "in_ptr[3] = 1 after 4", "error/csr-order", lambda: lib.sampler(indptr=[0, 2, 4, 1, 5], indices=[0, 1, 2, 3, 0]))
    raises(gnnc.GnncError, "open sampler", "error/free-graph", g.free)
    check(same(by_graph.sample([0], [15, 10], 1), reference(indptr, indices, [0], [15, 10], 1)), "after-errors",
          "a batch after the refusals differs")
    by_graph.close()
    raises(gnnc.GnncError, "closed", "error/closed", lambda: by_graph.sample([1], [2]))
    g.free()  # the sampler is closed: allowed now
    check(same(by_csr.sample([0], [15, 10], 1), reference(indptr, indices, [0], [15, 10], 1)), "csr/outlives-graph",
          "the CSR sampler changed when the graph went")
    by_csr.close()
    # the caller's arrays are not copied (int64 indptr, int32 indices): changed after the sampler
    # checked them, a batch is a GnncError naming the entry (the runtime checks what it reads), not a
    # segmentation fault; put back, the same batches
    ip, ix = np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32)
    mut = lib.sampler(indptr=ip, indices=ix)
    ix[0] = 2**31 - 1
    raises(gnnc.GnncError, "src[0] = 2147483647 out of range", "csr-changed/index", lambda: mut.sample([0], [2], 5))
    ix[0] = 1
    ip[1] = 7
    raises(gnnc.GnncError, "in_ptr[0] = 0, in_ptr[1] = 7", "csr-changed/indptr", lambda: mut.sample([0], [2], 5))
    ip[1] = 1
    check(same(mut.sample([0], [2], 5), reference(ip.tolist(), ix.tolist(), [0], [2], 5)), "csr-changed/put-back",
          "the batch differs from the specification")
    mut.close()
    lib.close()
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
