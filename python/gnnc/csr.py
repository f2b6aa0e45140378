"""The CSR and CSC of an edge_index, built with torch ops on the tensor's own device.

gnnc.nn hands a CUDA edge_index to the runtime this way (Library.graph_from_csr, the runtime's
gnn_graph_from_csr): the graph is made where the edges are, instead of going device -> host ->
device through gnn_graph_from_edges. The arrays must be the ones gnn_graph_from_edges makes
(runtime/graph.c), bit for bit, since edge rows, gradients and summation order all follow them;
so this is that builder step for step, with sorts in place of its counting sorts:

  0. ids: integers in range, else GnncError with the runtime's message (its prefix aside);
     the vertex count is num_vertices, else the largest id + 1;
  1. remove_self_loops drops every v -> v;
  2. symmetrise appends the reverse of each u -> v (u != v), in edge order, with its origin;
  3. dedup keeps the first of equal (src, dst) pairs in the sequence: a stable sort by
     dst * nv + src puts equal pairs together in sequence order, and the first of each run stays;
  4. add_self_loops appends v -> v (origin -1) for each vertex, ascending, that has none left.
  CSR: a stable sort by destination (an edge keeps its place among its destination's edges, as
  the counting sort keeps it); in_ptr = 0 then the cumulative sum of the in-degrees (bincount).
  CSC: a stable sort of the CSR's sources gives, for each source, its edge ids ascending (out_eid);
  out_ptr likewise from the out-degrees.

The origin of each edge is its index in edge_index (-1 for an added self-loop), as for
gnn_graph_from_edges. The only values read back to the host are scalars (the ids' range, counts
that size the next step, the first bad edge) and the synchronisations behind boolean indexing; no
array of the graph's size leaves the device. tests/python/test_device_csr.py checks the arrays
against gnn_graph_from_edges on CPU tensors over random graphs and every option.
"""
import collections

import torch

from . import GnncError

__all__ = ["CsrArrays", "build_csr"]

_MAX_ID = 2**31 - 1  # ids and edge ids are int32 in the runtime

CsrArrays = collections.namedtuple("CsrArrays", "nv ne in_ptr src dst out_ptr out_eid edge_origin num_input_edges")
CsrArrays.__doc__ = """in_ptr, out_ptr: int64 (nv + 1); src, dst, out_eid: int32 (ne); edge_origin: int64 (ne), all on
the edge_index's device and contiguous; num_input_edges: the columns of edge_index."""


def _invalid(msg):
    return GnncError(3, "edge_index: " + msg)  # GNN_ERR_INVALID, as the runtime's builder reports it


def _ids(edge_index):
    """edge_index's two rows as int64 tensors, checked: [2, E], integer ids."""
    if not torch.is_tensor(edge_index) or edge_index.dim() != 2 or edge_index.shape[0] != 2:
        raise ValueError("edge_index must be a tensor of shape [2, E], got %s" % (
            list(edge_index.shape) if torch.is_tensor(edge_index) else type(edge_index).__name__,))
    if edge_index.dtype.is_floating_point or edge_index.dtype == torch.bool or edge_index.dtype.is_complex:
        raise TypeError("edge_index must hold integer vertex ids, not %s" % edge_index.dtype)
    ei = edge_index.detach().long()
    return ei[0].contiguous(), ei[1].contiguous()


def build_csr(edge_index, num_vertices=0, add_self_loops=False, remove_self_loops=False, dedup=False,
              symmetrise=False):
    """The graph gnn_graph_from_edges(src = edge_index[0], dst = edge_index[1], num_vertices, options)
    would make, as CsrArrays of tensors on edge_index's device."""
    s, d = _ids(edge_index)
    dev, n_in = s.device, s.numel()
    nv = int(num_vertices)
    # 0. the ids, as gnn_graph_from_edges checks them
    if nv < 0 or nv > _MAX_ID + 1:
        raise _invalid("%d vertices out of range (0 .. 2^31)" % nv)
    limit = nv if nv > 0 else _MAX_ID + 1
    if n_in:
        bad = (s < 0) | (s >= limit) | (d < 0) | (d >= limit)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            si, di = int(s[i]), int(d[i])
            which, v = ("source", si) if si < 0 or si >= limit else ("destination", di)
            if v < 0:
                raise _invalid("edge %d: %s vertex id %d is negative (ids must be >= 0)" % (i, which, v))
            raise _invalid("edge %d: %s vertex id %d out of range (%s %d)" % (
                i, which, v, "the graph has" if nv > 0 else "ids must be below", limit))
        if nv == 0:
            nv = int(torch.maximum(s.max(), d.max())) + 1
    if nv == 0:
        raise _invalid("empty graph (no edges and no vertex count)")
    origin = torch.arange(n_in, dtype=torch.int64, device=dev)
    # 1. remove_self_loops
    if remove_self_loops:
        keep = s != d
        s, d, origin = s[keep], d[keep], origin[keep]
    # 2. symmetrise: the reverses after all the edges, in edge order
    if symmetrise:
        m = s != d
        s, d, origin = torch.cat([s, d[m]]), torch.cat([d, s[m]]), torch.cat([origin, origin[m]])
    # 3. dedup: the first of each (src, dst) in sequence order
    if dedup and s.numel():
        order = torch.sort(d * nv + s, stable=True).indices
        key = (d * nv + s)[order]
        first = torch.ones_like(key, dtype=torch.bool)
        first[1:] = key[1:] != key[:-1]
        keep = torch.zeros_like(first)
        keep[order[first]] = True
        s, d, origin = s[keep], d[keep], origin[keep]
    # 4. add_self_loops: each vertex without one, ascending
    if add_self_loops:
        has = torch.zeros(nv, dtype=torch.bool, device=dev)
        has[s[s == d]] = True
        v = (~has).nonzero().flatten()
        s, d = torch.cat([s, v]), torch.cat([d, v])
        origin = torch.cat([origin, torch.full_like(v, -1)])
    ne = s.numel()
    if ne > _MAX_ID:
        raise _invalid("%d edges; at most %d fit the int32 edge ids" % (ne, _MAX_ID))
    # the CSR by destination: a stable sort keeps the sequence order within each destination
    perm = torch.sort(d, stable=True).indices
    src, dst, origin = s[perm], d[perm], origin[perm]
    in_ptr = torch.zeros(nv + 1, dtype=torch.int64, device=dev)
    in_ptr[1:] = torch.cumsum(torch.bincount(d, minlength=nv), 0)
    # the CSC by source: edge ids ascending within each source
    out_eid = torch.sort(src, stable=True).indices
    out_ptr = torch.zeros(nv + 1, dtype=torch.int64, device=dev)
    out_ptr[1:] = torch.cumsum(torch.bincount(src, minlength=nv), 0)
    return CsrArrays(nv, ne, in_ptr, src.int().contiguous(), dst.int().contiguous(), out_ptr, out_eid.int().contiguous(),
                     origin.contiguous(), n_in)
