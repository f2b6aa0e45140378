"""Sampler and Sample: neighbour sampling for mini-batches in the runtime (gnn_sampler_*), over a
Graph or a CSR held as NumPy arrays."""
import ctypes
import operator

import numpy as np

from ._abi import _Sample, _vp
from ._args import _seed, _vertex_ids
from ._errors import GnncError, _Handle
from ._graph import Graph


class Sample:
    """One batch of Sampler.sample: nodes (int64, the graph's id of each batch vertex; the seeds
    first), edge_index (int64 [2, num_edges]: batch ids, row 0 the sources), eid (int64, each
    edge's id in the graph: its CSR position), hop_nodes and hop_edges (the counts after each hop,
    starting with the seeds and 0), num_seeds."""

    def __init__(self, nodes, edge_index, eid, hop_nodes, hop_edges, num_seeds):
        self.nodes, self.edge_index, self.eid = nodes, edge_index, eid
        self.hop_nodes, self.hop_edges, self.num_seeds = hop_nodes, hop_edges, num_seeds

    def __repr__(self):
        return "gnnc.Sample(%d vertices, %d edges, %d seeds)" % (self.nodes.size, self.edge_index.shape[1], self.num_seeds)


class Sampler(_Handle):
    """Neighbour sampling in the runtime (Library.sampler): sample(seeds, fanout, seed) draws, from
    the seeds, len(fanout) hops over in-edges, each frontier vertex keeping fanout[h] of its in-edges
    uniformly without replacement (all for -1). The draws depend on (seed, hop, vertex) only: the
    same on any thread count; a new seed per batch gives new batches. Not thread-safe: one per
    thread (or DataLoader worker). Not copied nor pickled (_Handle): make one per thread or worker."""

    _owns = "the runtime's sampler"
    _copy_instead = "Make another: lib.sampler(graph), or lib.sampler(indptr=..., indices=...)."

    def __init__(self, lib, graph=None, indptr=None, indices=None):
        self.lib, self._s, self._keep = lib, None, None
        s = _vp()
        if (graph is None) == (indptr is None and indices is None):
            raise ValueError("Library.sampler takes a graph or a CSR (indptr and indices), not both or neither")
        if graph is not None:
            if not isinstance(graph, Graph) or graph._g is None:
                raise ValueError("Library.sampler: graph must be an open gnnc.Graph")
            if graph.lib is not lib:  # as Model refuses it: the graph lives in another context
                raise ValueError("Library.sampler: the graph must come from the same gnnc.Library (lib.graph / lib.load_graph)")
            lib._check(lib._sampler_create(lib._ctx, graph._g, ctypes.byref(s)))
            self._keep = graph
            graph._samplers.add(self)
        else:
            if indptr is None or indices is None:
                raise ValueError("Library.sampler: a CSR needs both indptr and indices")
            ip = np.asarray(indptr)
            ix = np.asarray(indices)
            for name, a in (("indptr", ip), ("indices", ix)):
                if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer):
                    raise TypeError("Library.sampler: %s must be a 1-D integer array, got %s %s" % (name, a.dtype, a.shape))
            if ip.size < 1:
                raise ValueError("Library.sampler: indptr is empty (it has num_vertices + 1 entries)")
            if ix.size and (ix.min() < 0 or ix.max() >= ip.size - 1):
                raise ValueError("Library.sampler: indices hold vertex %d, out of range (%d vertices)" %
                                 (ix.min() if ix.min() < 0 else ix.max(), ip.size - 1))
            ip = np.ascontiguousarray(ip, dtype=np.int64)
            ix = np.ascontiguousarray(ix, dtype=np.int32)
            lib._check(lib._sampler_from_csr(lib._ctx, ip.size - 1, ix.size, ip.ctypes.data, ix.ctypes.data, ctypes.byref(s)))
            self._keep = (ip, ix)
        self._s = s
        lib._samplers.add(self)

    def sample(self, seeds, fanout, seed=0):
        """A Sample from seeds (distinct vertex ids) over len(fanout) hops; seed: 0 .. 2^64 - 1."""
        if self._s is None:
            raise GnncError(3, "the sampler was closed (Sampler.close)")
        if isinstance(self._keep, Graph) and self._keep._g is None:
            raise GnncError(3, "the sampler's graph was freed")
        if not self.lib._ctx:
            raise GnncError(3, "the gnnc.Library was closed (Library.close): load it again")
        ids = _vertex_ids("seeds", seeds)
        fan = np.ascontiguousarray(_fanout(fanout), dtype=np.int64)
        seed = _seed("Sampler.sample", seed)
        out = ctypes.POINTER(_Sample)()
        self.lib._check(self.lib._sampler_sample(self._s, ids.ctypes.data, ids.size, fan.ctypes.data, fan.size, seed,
                                                 ctypes.byref(out)))
        try:
            b = out.contents
            nv, ne, nh = int(b.nv), int(b.ne), int(b.nhops)
            arr = np.ctypeslib.as_array
            ei = np.empty((2, ne), np.int64)
            if ne:
                ei[0], ei[1] = arr(b.src, (ne,)), arr(b.dst, (ne,))
            return Sample(arr(b.nodes, (nv,)).copy(), ei, arr(b.eid, (ne,)).copy() if ne else np.zeros(0, np.int64),
                          arr(b.hop_nv, (nh + 1,)).copy(), arr(b.hop_ne, (nh + 1,)).copy(), int(b.nseeds))
        finally:
            self.lib._sample_free(out)

    def close(self):
        if self._s is not None:  # host memory of its own: freed also after Library.close
            self.lib._sampler_free(self._s)
        self._s = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _fanout(fanout):
    """fanout as a list of int64 counts, one per hop: a string is not a list of hops ("15" is not
    [1, 5]), a float is not a count (2.9 is not 2), and a count must fit int64."""
    if isinstance(fanout, (str, bytes)) or not hasattr(fanout, "__iter__"):
        raise TypeError("Sampler.sample: fanout must be a list of integers, one per hop (e.g. [15, 10]), not %s"
                        % type(fanout).__name__)
    out = []
    for h, k in enumerate(fanout):
        if isinstance(k, (bool, np.bool_)):
            raise TypeError("Sampler.sample: fanout[%d] = %r is not an integer" % (h, k))
        try:
            k = operator.index(k)
        except TypeError:
            raise TypeError("Sampler.sample: fanout[%d] = %r is not an integer (edges kept per vertex; < 0 for all)"
                            % (h, k)) from None
        if not -2**63 <= k < 2**63:
            raise ValueError("Sampler.sample: fanout[%d] = %d is out of range (an int64; < 0 keeps every in-edge)" % (h, k))
        out.append(k)
    if not out:
        raise ValueError("Sampler.sample: fanout is empty (one entry per hop)")
    return out
