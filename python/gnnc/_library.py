"""Library: loading a model library built by gnnc (and, through its handle, the runtime it links),
the runtime functions the binding calls, one runtime context, and the graphs, datasets, samplers
and models made from it (Library.graph, load_dataset, sampler, create), which it frees on close.
load is its short name."""
import ctypes
import os
import struct
import warnings
import weakref

import numpy as np

from ._abi import INIT_GLOROT, INIT_VALUE, INIT_ZEROS, TARGET_CUDA, _Api, _Dataset, _Graph, _GraphOpts, _ParamInit, _Sample, _p64, _pf, _vp
from ._args import _count, _flag, _seed, _vertex_ids
from ._errors import GnncError, _Handle
from ._graph import Graph
from ._model import Model
from ._sampler import Sampler


class TensorInfo:
    """A model input, parameter or output: name, domain ("vertex", "edge", "global", "graph") and shape per row.
    A parameter's also says how create() starts it (gnn_model_api.param_init): init is "glorot"
    (Glorot-uniform from the seed), "zeros" or "value" (every element init_value, the value the
    .gnn source declares, at float32); None for inputs, the output, every parameter of a library
    whose table predates the description (no gnn_model_param_init), and a kind this package does
    not know."""

    def __init__(self, t, init=None):
        self.name = t.name.decode()
        self.domain = ("vertex", "edge", "global", "graph")[t.domain]
        self.shape = tuple(int(t.dims[k]) for k in range(t.rank))
        self.width = int(t.width)
        self._rank, self._dims = int(t.rank), tuple(int(t.dims[k]) for k in range(4))
        self.init = self.init_value = None
        # a kind this package does not know (a later gnnc's) stays None: initial_params then asks create()
        if init is not None and init.kind in (INIT_GLOROT, INIT_ZEROS, INIT_VALUE):
            self.init = ("glorot", "zeros", "value")[init.kind]
            self.init_value = float(np.float32(init.value)) if init.kind == INIT_VALUE else None

    def __repr__(self):
        init = "" if self.init is None else ", init=%s" % self.init
        if self.init == "value":
            init += " %s" % np.float32(self.init_value)  # float32's shortest form: 0.1, not 0.10000000149011612
        return "TensorInfo(%r, %s%s%s)" % (self.name, self.domain, list(self.shape), init)


def _fn(handle, name, restype, *argtypes):
    f = getattr(handle, name)
    f.restype, f.argtypes = restype, list(argtypes)
    return f


class Library(_Handle):
    """A model library (gnnc -o libmodel.so): its model table, the runtime it links, one context.
    Not copied nor pickled (_Handle): share it, or load the file again."""

    _owns = "the loaded library's runtime context"
    _copy_instead = ("Share this one (any number of models, graphs and GnncModules may use it), or load the file "
                     "again for a context of its own: gnnc.load(lib.path).")

    def __init__(self, path, device=0):
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        cut = _elf_truncated(path)
        if cut:  # the loader would map it and die with SIGBUS at the first page past the end
            raise GnncError(3, "cannot load %s: the file is cut short (%s): build or copy it again" % (path, cut))
        # RTLD_LOCAL: two model libraries never see each other's symbols; the runtime's are
        # found through this handle all the same (dlsym on a handle searches the library's
        # dependencies), so the binding uses the runtime the library was built with.
        self._h = ctypes.CDLL(os.path.abspath(path), mode=ctypes.RTLD_LOCAL)
        try:
            entry = _fn(self._h, "gnn_model_entry", ctypes.POINTER(_Api))
        except AttributeError:
            raise GnncError(3, "%s is not a gnnc model library (no gnn_model_entry: build it with gnnc -o lib.so, "
                               "or compile the generated source with -DGNNC_MODEL_ENTRY)" % path) from None
        # without gnn_model_program an older gnnc (before 04c48cf) built the library, and its table
        # may end before input_grads, set_graph, reserve and program: those are never read then
        # (Library.legacy; runtime/driver_rt.h does the same for the C drivers)
        try:
            program = _fn(self._h, "gnn_model_program", ctypes.c_char_p)
        except AttributeError:
            program = None
        self.legacy = program is None
        # without gnn_model_param_init (an older gnnc: runtime 0.5 or before) the table ends at program
        # and says nothing of how parameters start: initial_params then creates a model to see
        try:
            param_init = None if self.legacy else _fn(self._h, "gnn_model_param_init", ctypes.POINTER(_ParamInit))
        except AttributeError:
            param_init = None
        self.path = path
        self._api = entry().contents
        h = self._h
        self._last_error = _fn(h, "gnn_last_error", ctypes.c_char_p, _vp)
        try:  # (runtime 0.7) an older runtime warns of nothing
            self._last_warning = _fn(h, "gnn_last_warning", ctypes.c_char_p, _vp)
        except AttributeError:
            self._last_warning = None
        self._ctx_create = _fn(h, "gnn_ctx_create", ctypes.c_int, ctypes.POINTER(_vp), ctypes.c_int)
        self._ctx_destroy = _fn(h, "gnn_ctx_destroy", None, _vp)
        self._malloc = _fn(h, "gnn_malloc", ctypes.c_int, _vp, ctypes.POINTER(_vp), ctypes.c_size_t)
        self._free = _fn(h, "gnn_free", ctypes.c_int, _vp, _vp)
        self._upload = _fn(h, "gnn_upload", ctypes.c_int, _vp, _vp, _vp, ctypes.c_size_t)
        self._download = _fn(h, "gnn_download", ctypes.c_int, _vp, _vp, _vp, ctypes.c_size_t)
        self._sync = _fn(h, "gnn_sync", ctypes.c_int, _vp)
        self._mem_usage = _fn(h, "gnn_mem_usage", ctypes.c_int, _vp, ctypes.POINTER(ctypes.c_size_t),
                              ctypes.POINTER(ctypes.c_size_t))
        self._mem_reset_peak = _fn(h, "gnn_mem_reset_peak", None, _vp)
        self._graph_load = _fn(h, "gnn_graph_load", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.POINTER(_GraphOpts),
                               ctypes.POINTER(ctypes.POINTER(_Graph)))
        self._graph_from_edges = _fn(h, "gnn_graph_from_edges", ctypes.c_int, _vp, ctypes.c_int64, ctypes.c_int64, _vp, _vp,
                                     ctypes.POINTER(_GraphOpts), ctypes.POINTER(ctypes.POINTER(_Graph)))
        self._graph_free = _fn(h, "gnn_graph_free", None, _vp, ctypes.POINTER(_Graph))
        self._graph_from_csr = _fn(h, "gnn_graph_from_csr", ctypes.c_int, _vp, ctypes.c_int64, ctypes.c_int64, _vp, _vp,
                                   _vp, _vp, _vp, ctypes.POINTER(_GraphOpts), ctypes.POINTER(ctypes.POINTER(_Graph)))
        self._graph_host_copies = _fn(h, "gnn_graph_host_copies", ctypes.c_int, _vp, ctypes.POINTER(_Graph))
        self._graph_set_graphs = _fn(h, "gnn_graph_set_graphs", ctypes.c_int, _vp, ctypes.POINTER(_Graph), ctypes.c_int64,
                                     _vp)
        self._dataset_load = _fn(h, "gnn_dataset_load", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.POINTER(_GraphOpts),
                                 ctypes.POINTER(ctypes.POINTER(_Dataset)))
        self._dataset_free = _fn(h, "gnn_dataset_free", None, _vp, ctypes.POINTER(_Dataset))
        self._sampler_create = _fn(h, "gnn_sampler_create", ctypes.c_int, _vp, ctypes.POINTER(_Graph), ctypes.POINTER(_vp))
        self._sampler_from_csr = _fn(h, "gnn_sampler_from_csr", ctypes.c_int, _vp, ctypes.c_int64, ctypes.c_int64, _vp, _vp,
                                     ctypes.POINTER(_vp))
        self._sampler_sample = _fn(h, "gnn_sampler_sample", ctypes.c_int, _vp, _vp, ctypes.c_int64, _vp, ctypes.c_int,
                                   ctypes.c_uint64, ctypes.POINTER(ctypes.POINTER(_Sample)))
        self._sample_free = _fn(h, "gnn_sample_free", None, ctypes.POINTER(_Sample))
        self._sampler_free = _fn(h, "gnn_sampler_free", None, _vp)
        self._tf_read = _fn(h, "gnn_tensor_file_read", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.POINTER(_vp))
        self._tf_expect = _fn(h, "gnn_tensor_file_expect", ctypes.c_int, _vp, _vp, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p))
        self._tf_get = _fn(h, "gnn_tensor_file_get", ctypes.c_int, _vp, _vp, ctypes.c_char_p, ctypes.c_int, _p64, _vp)
        self._tf_free = _fn(h, "gnn_tensor_file_free", None, _vp)
        self._param_init_glorot = _fn(h, "gnn_param_init_glorot", ctypes.c_int, ctypes.c_char_p, ctypes.c_int, _p64,
                                      ctypes.c_uint64, _pf)
        self._tf_write = _fn(h, "gnn_tensor_file_write", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.c_int,
                             ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int), _vp, ctypes.POINTER(_vp))
        a = self._api
        self.name = a.name.decode()
        self.source = a.source.decode()
        # what the model computes: 16 hex digits, the same for every library built from the model
        # (gnn_model_api.program; gnn-train's checkpoints record it)
        program = program() if program else None
        self.program = program.decode() if program else ""
        self.target = "cuda" if a.target == TARGET_CUDA else "host"
        self.inputs = [TensorInfo(a.inputs[i]) for i in range(a.num_inputs)]
        inits = param_init() if param_init else None
        self.param_info = [TensorInfo(a.params[i], inits[i] if inits else None) for i in range(a.num_params)]
        self.output = TensorInfo(a.output_info)
        self.has_backward = bool(a.has_backward)
        self.num_dropout = int(a.num_dropout)
        # per input (gnnc --input-grads): 1 the library computes its gradient on request, 2 asked for
        # but identically zero (the output does not depend on it differentiably), 0 not compiled for it
        self.input_grads = [0 if self.legacy else int(a.input_grads[i]) for i in range(a.num_inputs)]
        # what this library made and has not freed yet, weakly: close frees it all before the
        # context (a graph's or dataset's host arrays, a model's, a sampler's, are the runtime's
        # malloc memory, which the context does not own; freed after the context they could not be)
        self._models, self._samplers, self._graphs = weakref.WeakSet(), weakref.WeakSet(), weakref.WeakSet()
        ctx = _vp()
        st = self._ctx_create(ctypes.byref(ctx), int(device))
        if st:
            msg = self._last_error(ctx).decode(errors="replace")
            self._ctx_destroy(ctx)
            raise GnncError(st, msg)
        self._ctx = ctx

    def close(self):
        """Frees everything made from this library that is still open -- its models, then its
        samplers, then its graphs and datasets -- and then the context (and with it any device memory
        still allocated from it). What is freed stays usable as an object only to say so (GnncError)."""
        if getattr(self, "_ctx", None):
            for m in list(self._models):
                m.close()
            for smp in list(self._samplers):
                smp.close()
            for g in list(self._graphs):
                g.free()  # no model and no sampler holds it now
            self._ctx_destroy(self._ctx)
            self._ctx = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _need_full_table(self, what):
        """GnncError for a library of an older gnnc, whose model table may end before `what`."""
        if self.legacy:
            raise GnncError(3, "%s was built by an older gnnc (no gnn_model_program): it has no %s; build it again "
                               "with this gnnc" % (self.path, what))

    def _check(self, st):
        if st:
            if not self._ctx:  # the runtime's "no context" would blame an allocation
                raise GnncError(st, "the gnnc.Library was closed (Library.close): load it again")
            raise GnncError(st, self._last_error(self._ctx).decode(errors="replace"))

    def __repr__(self):
        return "gnnc.Library(%r: model %s, %s, %d inputs, %d parameters)" % (
            self.path, self.name, self.target, len(self.inputs), len(self.param_info))

    # graphs and datasets
    def memory_usage(self):
        """(live, peak): the bytes gnn_malloc holds on this library's context now, and at most since
        the context was made or reset_peak (device memory for a CUDA library)."""
        live, peak = ctypes.c_size_t(), ctypes.c_size_t()
        self._check(self._mem_usage(self._ctx, ctypes.byref(live), ctypes.byref(peak)))
        return int(live.value), int(peak.value)

    def reset_peak(self):
        """Sets the peak counter of memory_usage to the live bytes."""
        self._mem_reset_peak(self._ctx)

    def graph(self, src, dst, num_vertices=0, add_self_loops=False, remove_self_loops=False, dedup=False,
              symmetrise=False, batch=None):
        """A graph from NumPy edge arrays (or CPU tensors): edge i goes src[i] -> dst[i] (0-based vertex
        ids, integers; floats only where every value is a whole number). batch: a batch of graphs
        (PyG's batch vector, Graph.set_graphs): batch[v] the graph of vertex v, so that a readout
        reduces over each graph and a graph-level output has a row per graph."""
        src, dst = _vertex_ids("src", src), _vertex_ids("dst", dst)
        if src.shape != dst.shape:
            raise ValueError("src and dst differ in length (%d and %d)" % (src.size, dst.size))
        num_vertices = _count("num_vertices", num_vertices)
        opts = _GraphOpts(_flag("add_self_loops", add_self_loops), _flag("remove_self_loops", remove_self_loops),
                          _flag("dedup", dedup), _flag("symmetrise", symmetrise), num_vertices)
        g = ctypes.POINTER(_Graph)()
        self._check(self._graph_from_edges(self._ctx, num_vertices, src.size, src.ctypes.data, dst.ctypes.data,
                                           ctypes.byref(opts), ctypes.byref(g)))
        graph = Graph(self, g, num_input_edges=src.size)
        if batch is not None:
            try:
                graph.set_graphs(batch)
            except Exception:
                graph.free()
                raise
        return graph

    def graph_from_csr(self, num_vertices, num_edges, in_ptr, src, out_ptr, out_eid, edge_origin=None,
                       num_input_edges=None, add_self_loops=False, remove_self_loops=False, dedup=False, symmetrise=False):
        """A graph from its CSR and CSC already in this library's memory space: the addresses (integers,
        e.g. tensor.data_ptr()) of device memory for a CUDA library, of host memory for a host one,
        laid out as gnn_graph_from_csr takes them (in_ptr, out_ptr int64 of num_vertices + 1; src,
        out_eid int32 of num_edges; edge_origin int64 of num_edges, or None for 0 .. num_edges-1).
        The runtime copies and checks them; the caller's memory may go when this returns. The options
        say how the arrays were made (recorded, not applied). gnnc.nn builds the arrays from an
        edge_index with torch ops (gnnc.csr); the graph's src, dst and edge_origin are then copied to
        the host only when read."""
        opts = _GraphOpts(_flag("add_self_loops", add_self_loops), _flag("remove_self_loops", remove_self_loops),
                          _flag("dedup", dedup), _flag("symmetrise", symmetrise), 0)
        g = ctypes.POINTER(_Graph)()
        nv, ne = _count("num_vertices", num_vertices), _count("num_edges", num_edges)
        self._check(self._graph_from_csr(self._ctx, nv, ne, in_ptr, src, out_ptr, out_eid, edge_origin, ctypes.byref(opts),
                                         ctypes.byref(g)))
        return Graph(self, g, num_input_edges=num_input_edges)

    def _warn(self):
        """The runtime's warning of the call just made, if any (gnn_last_warning), as a Python warning."""
        w = self._last_warning(self._ctx) if self._last_warning else None
        if w:
            warnings.warn(w.decode(errors="replace"), RuntimeWarning, stacklevel=3)

    def load_graph(self, path, add_self_loops=False, remove_self_loops=False, dedup=False, symmetrise=False,
                   num_vertices=0):
        """A graph from a file: a dataset folder, an edge list, Matrix Market, a .gcsr cache."""
        opts = _GraphOpts(_flag("add_self_loops", add_self_loops), _flag("remove_self_loops", remove_self_loops),
                          _flag("dedup", dedup), _flag("symmetrise", symmetrise), _count("num_vertices", num_vertices))
        g = ctypes.POINTER(_Graph)()
        self._check(self._graph_load(self._ctx, os.fsencode(path), ctypes.byref(opts), ctypes.byref(g)))
        self._warn()
        return Graph(self, g)

    def load_dataset(self, path, add_self_loops=False, symmetrise=False):
        """A dataset folder: returns (graph, features, labels, masks) as NumPy arrays (None if missing);
        masks is a dict with "train", "val", "test" boolean arrays. The folder is gnnc's (graph.edges,
        features.svm, labels.txt, *.idx) or an OGB node-property download (raw/edge.csv.gz, ...,
        split/NAME/, or the binary raw/data.npz and node-label.npz; its valid split is masks["val"]); symmetrise adds the reverse of every edge
        (OGB's add_inverse_edge). A graph-classification folder (graph_labels.txt) has a label and a
        mask entry per graph (graph.ng of them), another has one per vertex."""
        opts = _GraphOpts(_flag("add_self_loops", add_self_loops), 0, 0, _flag("symmetrise", symmetrise), 0)
        ds = ctypes.POINTER(_Dataset)()
        self._check(self._dataset_load(self._ctx, os.fsencode(path), ctypes.byref(opts), ctypes.byref(ds)))
        self._warn()
        d = ds.contents
        nv, nrows = int(d.nv), int(d.nrows)  # labels and masks: nrows entries (gnnrt.h), ng or nv
        feats = np.ctypeslib.as_array(d.features, (nv, int(d.nfeat))).copy() if d.features else None
        labels = np.ctypeslib.as_array(d.labels, (nrows,)).copy() if d.labels else None
        masks = {}
        for k in ("train", "val", "test"):
            p = getattr(d, k + "_mask")
            masks[k] = np.ctypeslib.as_array(p, (nrows,)).astype(bool) if p else None
        graph = Graph(self, d.graph, owner_dataset=ds)
        return graph, feats, labels, masks

    def sampler(self, graph=None, indptr=None, indices=None):
        """A neighbour sampler for mini-batches (GraphSAGE, NeighborLoader-style; gnn_sampler_* in
        gnnrt.h) over a Graph's in-edges, or over a CSR by destination held as NumPy arrays (indptr:
        num_vertices + 1 offsets; indices: the in-edges' sources), which it keeps a reference to and
        does not copy (int64 indptr and int32 indices; other types are converted once): changing them
        afterwards makes Sampler.sample raise GnncError naming the entry it finds out of range (the
        runtime checks what each batch reads), never crash. Sampler.sample draws batches."""
        return Sampler(self, graph, indptr, indices)

    def initial_params(self, seed=1):
        """{name: array}: the parameters a model created with seed starts from, without a graph of
        the caller's, as create() makes them bit for bit: from each parameter's initialiser in the
        model table (TensorInfo.init: Glorot-uniform from seed through the runtime's own
        gnn_param_init_glorot, which create() calls, for rank >= 2; zeros below; the declared value of
        `param NAME: [..] = value`, which only the library knows; the interpreter's values at float32).
        Where the table does not describe every parameter (TensorInfo.init None: a library of an
        older gnnc, or a kind this package does not know), the values are read back from a model
        create() makes on a graph of one vertex and no edges: the only other source."""
        seed = _seed("initial_params", seed)
        if not self.param_info:
            return {}
        if any(p.init is None for p in self.param_info):
            return self._initial_params_created(seed)
        out = {}
        for p in self.param_info:
            a = np.zeros(p.shape, np.float32)
            if p.init == "value":
                a[...] = np.float32(p.init_value)
            elif p.init == "glorot" and a.size:
                dims = (ctypes.c_int64 * 4)(*p._dims)
                st = self._param_init_glorot(p.name.encode(), p._rank, dims, seed, a.ctypes.data_as(_pf))
                if st:
                    raise GnncError(st, "gnn_param_init_glorot refused parameter '%s' %s" % (p.name, list(p.shape)))
            out[p.name] = a
        return out

    def _initial_params_created(self, seed):
        """initial_params for a library whose table does not describe its initialisers (an older
        gnnc's): create()'s values, read back from a model on a graph of one vertex and no edges."""
        none = np.zeros(0, np.int64)
        g = self.graph(none, none, num_vertices=1)
        try:
            m = Model(self, g, seed)
            try:
                return m.state_dict()
            finally:
                m.close()
        finally:
            g.free()

    def create(self, graph, seed=1):
        """A model on graph (parameters initialised from seed as gnnc run and gnn-run do: Glorot for rank
        >= 2, zeros below, a parameter declared `= value` at that value)."""
        return Model(self, graph, seed)


def load(path, device=0):
    """Loads a model library built by gnnc (host or CUDA) and makes a runtime context on device."""
    return Library(path, device)


def _elf_truncated(path):
    """None if the 64-bit ELF file at path holds every segment its program headers map, else why
    not (driver_rt.h's elf_truncated: a library cut short kills the process in the loader). A file
    that is not 64-bit ELF is left to the loader, whose error is clear."""
    try:
        with open(path, "rb") as f:
            eh = f.read(64)
            size = os.fstat(f.fileno()).st_size
            if len(eh) < 64 or eh[:4] != b"\x7fELF" or eh[4] != 2:
                return None
            order = "<" if eh[5] == 1 else ">"
            phoff, = struct.unpack_from(order + "Q", eh, 32)
            phentsize, phnum = struct.unpack_from(order + "HH", eh, 54)
            if phentsize != 56 or phoff > size or phnum * 56 > size - phoff:
                return "its program headers lie past the end of the file"
            f.seek(phoff)
            ph = f.read(phnum * 56)
            for i in range(phnum):
                ptype, = struct.unpack_from(order + "I", ph, i * 56)
                offset, = struct.unpack_from(order + "Q", ph, i * 56 + 8)
                filesz, = struct.unpack_from(order + "Q", ph, i * 56 + 32)
                if ptype == 1 and (offset > size or filesz > size - offset):  # PT_LOAD
                    return "a segment it maps lies past the end of the file"
    except OSError:
        return None
    return None
