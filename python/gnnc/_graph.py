"""Graph: a runtime graph (gnn_graph) made by a Library, its host arrays, its batch of graphs, and
the permutation between the edges' input order and the runtime's CSR order."""
import weakref

import numpy as np

from ._args import _vertex_ids
from ._errors import GnncError, _Handle


def _graph_of(a, nv):
    """a as the int64 graph id of each of nv vertices (a batch vector), as gnn_graph_set_graphs takes
    it: from 0, up by 0 or 1 from one vertex to the next (each graph's vertices consecutive; a
    graph without vertices cannot be)."""
    of = _vertex_ids("batch", a)
    if of.size != nv:
        raise ValueError("batch has %d entries for a graph of %d vertices (one graph id per vertex)" % (of.size, nv))
    if nv == 0:
        raise ValueError("batch: a graph without vertices cannot be split into graphs")
    if of[0] != 0:
        raise ValueError("batch[0] = %d: the graph ids start at 0" % of[0])
    step = np.diff(of)
    bad = np.flatnonzero((step != 0) & (step != 1))
    if bad.size:
        v = int(bad[0]) + 1
        raise ValueError("batch[%d] = %d after %d: graph ids go up by at most 1 from one vertex to the next (each "
                         "graph's vertices consecutive, as in PyG's Batch; a graph without vertices is not supported)"
                         % (v, of[v], of[v - 1]))
    return of


class Graph(_Handle):
    """A runtime graph (gnn_graph); nv, ne, ng (graphs of a batch), and edge_origin (runtime edge -> index
    of the input edge), src and dst (NumPy, CSR order). A graph built on the device (graph_from_csr)
    has no host copies until edge_origin, src, dst or num_input_edges is first read. Not copied nor
    pickled (_Handle): share it, or make another from its source."""

    _owns = "the runtime's graph"
    _copy_instead = ("Share this one (any number of models may be bound to it), or make another from the same "
                     "source: lib.graph(src, dst, ...) or lib.load_graph(path).")

    def __init__(self, lib, g, num_input_edges=None, owner_dataset=None):
        self.lib, self._g, self._ds = lib, g, owner_dataset
        self._models = weakref.WeakSet()  # the open models bound to it (Model, set_graph)
        self._samplers = weakref.WeakSet()  # the open samplers over it (Library.sampler)
        c = g.contents
        self.nv, self.ne, self.ng = int(c.nv), int(c.ne), int(c.ng)   # ng: graphs of the batch
        self._host = None  # (edge_origin, src, dst), copied from the runtime's host arrays
        self._num_input_edges = None if num_input_edges is None else int(num_input_edges)
        lib._graphs.add(self)
        if c.h_in_ptr:  # every graph but one built on the device: copied now, as the arrays are at hand
            self._host_arrays()

    def _host_arrays(self):
        if self._host is None:
            if self._g is None or not self.lib._ctx:
                raise GnncError(3, "the graph was freed (or its library closed) before its arrays were read")
            c = self._g.contents
            if not c.h_in_ptr:  # built on the device: the runtime makes the host copies now
                self.lib._check(self.lib._graph_host_copies(self.lib._ctx, self._g))
                c = self._g.contents
            ne = self.ne
            self._host = (np.ctypeslib.as_array(c.edge_origin, (ne,)).copy() if ne else np.zeros(0, np.int64),
                          np.ctypeslib.as_array(c.h_src, (ne,)).copy() if ne else np.zeros(0, np.int32),
                          np.ctypeslib.as_array(c.h_dst, (ne,)).copy() if ne else np.zeros(0, np.int32))
        return self._host

    @property
    def edge_origin(self):
        return self._host_arrays()[0]

    @property
    def src(self):
        return self._host_arrays()[1]

    @property
    def dst(self):
        return self._host_arrays()[2]

    @property
    def num_input_edges(self):
        """The edges of the graph's source (the rows of an edge array in input order): the edges given
        to lib.graph, an edge file's edge lines, as the runtime counted them before the options (its
        last edges may be dropped, so it can exceed max(edge_origin) + 1)."""
        if self._num_input_edges is None:
            n = int(self._g.contents.num_input_edges) if self._g is not None else -1
            if n < 0:  # a graph_from_csr with origins and no count given: what the origins say
                o = self.edge_origin
                n = int(o.max() + 1) if o.size else 0
            self._num_input_edges = n
        return self._num_input_edges

    def free(self):
        """Frees the runtime's graph. A graph an open model is bound to stays: GnncError (the model
        reads it on every forward and backward; close the model or bind it to another graph first)."""
        if self._g is not None and self.lib._ctx and any(m._m is not None for m in self._models):
            raise GnncError(3, "the graph is bound to an open model: close the model (Model.close) or bind it to another "
                               "graph (Model.set_graph) before freeing the graph")
        if self._g is not None and self.lib._ctx and any(s._s is not None for s in self._samplers):
            raise GnncError(3, "the graph has an open sampler (Library.sampler): close it (Sampler.close) before freeing the graph")
        if self._g is not None and self.lib._ctx:
            if self._ds is not None:
                self.lib._dataset_free(self.lib._ctx, self._ds)
            else:
                self.lib._graph_free(self.lib._ctx, self._g)
        self._g = self._ds = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def set_graphs(self, graph_of):
        """Splits the vertices into a batch of graphs (gnn_graph_set_graphs; PyG's batch vector):
        graph_of[v] is the graph of vertex v, starting at 0 and going up by at most 1 from one vertex
        to the next (each graph's vertices consecutive, none empty), so a readout (sum_vertices,
        ...) reduces over each graph and a graph-level tensor has ng rows. ValueError otherwise; a
        graph an open model is bound to is refused (the model's memory is planned for its count)."""
        if self._g is None or not self.lib._ctx:
            raise GnncError(3, "the graph was freed (or its library closed)")
        if any(m._m is not None for m in self._models):
            raise GnncError(3, "set_graphs: the graph is bound to an open model, whose memory is planned for its graph "
                               "count: split it before binding, or bind the model again (Model.set_graph) to a new graph")
        of = _graph_of(graph_of, self.nv)
        ng = int(of[-1]) + 1
        self.lib._check(self.lib._graph_set_graphs(self.lib._ctx, self._g, ng, of.ctypes.data))
        self.ng = int(self._g.contents.ng)

    def rows(self, domain):
        return self.nv if domain == "vertex" else self.ne if domain == "edge" else self.ng if domain == "graph" else 1

    def to_graph_order(self, a, fill=1):
        """Edge rows in input order -> the runtime's order. An edge the runtime added (a self-loop)
        has no input row: its row is fill, 1 by default, what gnnc run, gnn-run and gnn-train give
        an added self-loop's edge input (and PyG's add_self_loops); Model.backward passes 0 for
        the gradient of an edge output, whose added rows are no output."""
        a = np.asarray(a)
        if a.ndim < 1 or a.shape[0] != self.num_input_edges:  # more rows would be cut, fewer an IndexError
            raise ValueError("edge rows in input order: want %d rows (the graph's input edges), got shape %s" % (
                self.num_input_edges, a.shape))
        out = np.full((self.ne,) + a.shape[1:], fill, a.dtype)
        keep = self.edge_origin >= 0
        out[keep] = a[self.edge_origin[keep]]
        return out

    def shares_input_rows(self):
        """True when several of the graph's edges come from one input edge (symmetrise, a symmetric
        Matrix Market file): they read its row of an edge input, and their rows of an edge output
        have no single input row to go to."""
        if getattr(self, "_shared", None) is None:
            o = self.edge_origin
            o = o[o >= 0]
            self._shared = bool(o.size != np.unique(o).size)
        return self._shared

    def to_input_order(self, a, gradient=False):
        """Edge rows in the runtime's order -> input order (rows of added edges dropped). gradient:
        a, the gradient of an edge input, is summed over the edges that share an input row (each
        read it); otherwise (an output) shared rows are refused: they have no single value."""
        a = np.asarray(a)
        if a.ndim < 1 or a.shape[0] != self.ne:
            raise ValueError("edge rows in the graph's order: want %d rows (the graph's edges), got shape %s" % (
                self.ne, a.shape))
        out = np.zeros((self.num_input_edges,) + a.shape[1:], a.dtype)
        keep = self.edge_origin >= 0
        if gradient:
            np.add.at(out, self.edge_origin[keep], a[keep])
            return out
        if self.shares_input_rows():
            raise ValueError("edge rows in input order: some of the graph's edges share an input edge (symmetrise, or a "
                             "symmetric Matrix Market file), so their rows have no single input row; use edge_order='graph' "
                             "(the graph's rows; Graph.edge_origin names each one's input edge)")
        out[self.edge_origin[keep]] = a[keep]
        return out
