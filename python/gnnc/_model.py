"""Model: a created model on one graph -- its parameters, forward and backward on NumPy arrays or on
caller-owned memory, input gradients, parameter files, rebinding to another graph (mini-batches)."""
import ctypes
import os

import numpy as np

from ._abi import _MemoryPlan, _pf, _vp
from ._args import _count, _flag, _seed
from ._errors import GnncError, _Handle, _no_backward_why
from ._graph import Graph


def _edge_order(edge_order):
    """edge_order as given, if it is one of the two orders: a typo must not select the other one."""
    if edge_order not in ("input", "graph"):
        raise ValueError("edge_order=%r: 'input' (the order the edges were given in) or 'graph' (the runtime's)"
                         % (edge_order,))
    return edge_order


class _Buffer:
    """gnn_malloc'd memory (device memory in a CUDA library) freed with the model."""

    def __init__(self, lib, nbytes):
        self.lib, self.nbytes, self.ptr = lib, nbytes, _vp()
        lib._check(lib._malloc(lib._ctx, ctypes.byref(self.ptr), nbytes))

    def free(self):
        if self.ptr and self.lib._ctx:
            self.lib._free(self.lib._ctx, self.ptr)
        self.ptr = _vp()


class Model(_Handle):
    """A created model on one graph: parameters, forward, backward, parameter files. Not copied nor
    pickled (_Handle): create another and give it the parameters."""

    _owns = "the runtime's model (its parameters and arenas)"
    _copy_instead = ("Create another from the Library and give it these parameters: m2 = lib.create(graph); "
                     "m2.load_state_dict(m.state_dict()); or keep them in a file: m.save_params(path), then "
                     "m2.load_params(path).")

    def __init__(self, lib, graph, seed=1):
        if not lib._ctx:  # before the graph's checks: a closed library has freed its graphs too
            raise GnncError(3, "the gnnc.Library was closed (Library.close): load it again")
        if not isinstance(graph, Graph) or graph.lib is not lib:
            raise ValueError("the graph must come from the same gnnc.Library (lib.graph / lib.load_graph)")
        self.lib, self.graph = lib, graph
        self._api = lib._api
        seed = _seed("create", seed)
        h = _vp()
        if graph._g is None:
            raise GnncError(3, "the graph was freed (Graph.free)")
        lib._check(self._api.create(lib._ctx, graph._g, seed, ctypes.byref(h)))
        self._m = h
        graph._models.add(self)
        lib._models.add(self)
        self._inputs = [None] * len(lib.inputs)  # device copies of the last forward's inputs (grown by forward, sized by reserve)
        self._grad_buf = None
        self.forwards = 0  # successful forwards so far (the torch wrapper uses it)
        self.bindings = 0  # set_graph calls so far (the torch wrapper uses it)
        self._index = {p.name: i for i, p in enumerate(lib.param_info)}

    def close(self):
        if getattr(self, "_m", None) and self.lib._ctx:
            self._api.destroy(self._m)
            for b in self._inputs + [self._grad_buf]:
                if b is not None:
                    b.free()
        self._m = None
        if getattr(self, "graph", None) is not None:
            self.graph._models.discard(self)

    def _live(self):
        """The model's handle, or GnncError once it or its library is closed (the handle and the
        context it points into are freed then)."""
        if not self.lib._ctx:
            raise GnncError(3, "the model's gnnc.Library was closed (Library.close): load it and create the model again")
        if self._m is None:
            raise GnncError(3, "the model was closed (Model.close)")
        return self._m

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # mini-batches
    def set_graph(self, graph):
        """Binds another graph of the same Library (a mini-batch): parameters and gradients stay, the
        arenas are reused within the model's capacity and grown 1.5x beyond it (or, after
        reserve(grow=False), a bigger graph raises GnncError). The output and what backward reads are
        the old graph's no more: run forward next."""
        if not isinstance(graph, Graph) or graph.lib is not self.lib:
            raise ValueError("the graph must come from the same gnnc.Library (lib.graph / lib.load_graph)")
        if graph._g is None:
            raise GnncError(3, "the graph was freed (Graph.free)")
        self.lib._need_full_table("set_graph")
        self.lib._check(self._api.set_graph(self._live(), graph._g))
        self.graph._models.discard(self)
        self.graph = graph
        graph._models.add(self)
        self.bindings += 1

    def reserve(self, num_vertices, num_edges, num_graphs=1, grow=True):
        """Sets the capacity the arenas are planned for (each count at least the bound graph's), so a loop
        over batches up to that size allocates once; grow=False makes set_graph refuse a bigger graph.
        The staging copies of the inputs and of backward's grad_out are sized to it too: a smaller
        capacity gives back what a bigger one (or a bigger batch) took."""
        lib = self.lib
        num_vertices, num_edges = _count("num_vertices", num_vertices), _count("num_edges", num_edges)
        num_graphs = _count("num_graphs", num_graphs)
        lib._need_full_table("reserve")
        lib._check(self._api.reserve(self._live(), num_vertices, num_edges, num_graphs, int(bool(grow))))
        # the staging copies of the inputs and of the backward's seed, for the same capacity
        # (at least the bound graph's rows, as the C reserve)
        g = self.graph
        rows = {"vertex": max(int(num_vertices), g.nv), "edge": max(int(num_edges), g.ne),
                "graph": max(int(num_graphs), g.ng), "global": 1}
        # exactly that size: a smaller capacity gives back what a bigger batch grew them to, as the C
        # reserve re-plans the arenas (the forward's state is gone either way: forward next)
        for k, t in enumerate(lib.inputs):
            need = max(rows[t.domain] * t.width * 4, 1)
            if self._inputs[k] is None or self._inputs[k].nbytes != need:
                if self._inputs[k] is not None:
                    self._inputs[k].free()
                    self._inputs[k] = None
                self._inputs[k] = _Buffer(lib, need)
        need = max(rows[lib.output.domain] * lib.output.width * 4, 1)
        if lib.has_backward and (self._grad_buf is None or self._grad_buf.nbytes != need):
            if self._grad_buf is not None:
                self._grad_buf.free()
                self._grad_buf = None
            self._grad_buf = _Buffer(lib, need)

    # parameters
    def params(self):
        """[(name, shape)] of the parameters, in the model's order."""
        return [(p.name, p.shape) for p in self.lib.param_info]

    def _pinfo(self, name):
        if name not in self._index:
            raise KeyError("the model %s has no parameter %r (it has %s)" % (self.lib.name, name, ", ".join(self._index)))
        i = self._index[name]
        return i, self.lib.param_info[i]

    def get_param(self, name):
        i, p = self._pinfo(name)
        out = np.empty(p.shape, np.float32)
        self.lib._check(self.lib._download(self.lib._ctx, out.ctypes.data, self._api.param(self._live(), i), out.nbytes))
        return out

    def _param_value(self, name, value):
        """(index, value as float32) of parameter name, checked: its shape, finite."""
        i, p = self._pinfo(name)
        v = np.asarray(value, dtype=np.float32, order="C")  # (ascontiguousarray makes a scalar's () (1,))
        if v.shape != p.shape:
            raise ValueError("parameter %r has shape %s, got %s" % (name, p.shape, v.shape))
        if not np.isfinite(v).all():
            raise ValueError("parameter %r: values must be finite" % name)
        return i, v

    def set_param(self, name, value):
        i, v = self._param_value(name, value)
        self.lib._check(self.lib._upload(self.lib._ctx, self._api.param(self._live(), i), v.ctypes.data, v.nbytes))

    __getitem__ = get_param
    __setitem__ = set_param

    def param_ptr(self, name):
        """The parameter's memory (device memory in a CUDA library)."""
        return self._api.param(self._live(), self._pinfo(name)[0])

    def state_dict(self):
        return {n: self.get_param(n) for n, _ in self.params()}

    def load_state_dict(self, d):
        missing = set(self._index) - set(d)
        extra = set(d) - set(self._index)
        if missing or extra:
            raise KeyError("parameters missing: %s; not in the model: %s" % (sorted(missing), sorted(extra)))
        # every entry checked before any is applied: a bad one leaves the model as it was, not half loaded
        vals = [self._param_value(n, v) for n, v in d.items()]
        for i, v in vals:
            self.lib._check(self.lib._upload(self.lib._ctx, self._api.param(self._live(), i), v.ctypes.data, v.nbytes))

    def load_params(self, path):
        """Parameters from a tensor text file (gnn-train --save-params, gnnc run --save-params), checked whole (the checksum too)."""
        lib = self.lib
        tf = _vp()
        lib._check(lib._tf_read(lib._ctx, os.fsencode(path), ctypes.byref(tf)))
        try:
            names = (ctypes.c_char_p * max(1, len(lib.param_info)))(*[p.name.encode() for p in lib.param_info])
            lib._check(lib._tf_expect(lib._ctx, tf, len(lib.param_info), names))
            vals = {}
            for p in lib.param_info:
                v = np.empty(p.shape, np.float32)
                dims = (ctypes.c_int64 * 4)(*(list(p.shape) + [0] * (4 - len(p.shape))))
                lib._check(lib._tf_get(lib._ctx, tf, p.name.encode(), len(p.shape), dims, v.ctypes.data))
                vals[p.name] = v
        finally:
            lib._tf_free(tf)
        for n, v in vals.items():
            self.set_param(n, v)

    def save_params(self, path):
        """Writes the parameters in the tensor text format with its checksum line (a temporary file, fsync'd, renamed into place)."""
        lib = self.lib
        ps = lib.param_info
        n = len(ps)
        vals = [np.ascontiguousarray(self.get_param(p.name)) for p in ps]
        names = (ctypes.c_char_p * max(1, n))(*[p.name.encode() for p in ps])
        ranks = (ctypes.c_int * max(1, n))(*[len(p.shape) for p in ps])
        dims = np.zeros((max(1, n), 4), np.int64)
        for i, p in enumerate(ps):
            dims[i, :len(p.shape)] = p.shape
        data = (_vp * max(1, n))(*[v.ctypes.data for v in vals])
        lib._check(lib._tf_write(lib._ctx, os.fsencode(path), n, names, ranks, dims.ctypes.data, data))

    def memory_plan(self):
        p = _MemoryPlan()
        self._api.memory_plan(self._live(), ctypes.byref(p))
        return {k: getattr(p, k) for k, _ in _MemoryPlan._fields_}

    # forward and backward on host (NumPy) arrays
    def _input_array(self, t, x, edge_order):
        rows = self.graph.rows(t.domain)
        if np.asarray(x).dtype.kind not in "fiu":  # bool, complex, object: a cast would change them silently
            raise TypeError("input %r: want real numbers (float32), got an array of %s" % (t.name, np.asarray(x).dtype))
        a = np.ascontiguousarray(x, dtype=np.float32)
        if t.domain == "edge" and edge_order == "input":
            want = (self.graph.num_input_edges,) + t.shape
            if a.shape != want:
                raise ValueError("input %r: want shape %s (edges in input order), got %s" % (t.name, want, a.shape))
            a = np.ascontiguousarray(self.graph.to_graph_order(a))
        elif a.shape != (rows,) + t.shape:
            raise ValueError("input %r: want shape %s, got %s" % (t.name, (rows,) + t.shape, a.shape))
        if not np.isfinite(a).all():
            raise ValueError("input %r: values must be finite" % t.name)
        return a

    def forward(self, *inputs, training=False, seed=0, edge_order="input"):
        """One forward: one NumPy array per model input (rows x shape); returns the output as a NumPy
        array. training=True applies dropout with masks drawn from seed and keeps what the backward
        reads: backward needs a forward with training=True (an inference forward keeps nothing for it)."""
        lib = self.lib
        self._live()
        _edge_order(edge_order)
        if len(inputs) != len(lib.inputs):
            raise TypeError("the model %s takes %d inputs (%s), got %d" % (
                lib.name, len(lib.inputs), ", ".join(t.name for t in lib.inputs), len(inputs)))
        ptrs = []
        for k, (t, x) in enumerate(zip(lib.inputs, inputs)):
            a = self._input_array(t, x, edge_order)
            if self._inputs[k] is None or self._inputs[k].nbytes < max(a.nbytes, 1):  # batches: grow only
                if self._inputs[k] is not None:
                    self._inputs[k].free()
                self._inputs[k] = _Buffer(lib, max(a.nbytes, 1))
            lib._check(lib._upload(lib._ctx, self._inputs[k].ptr, a.ctypes.data, a.nbytes))
            ptrs.append(ctypes.cast(self._inputs[k].ptr, _pf))
        arr = (_pf * max(1, len(ptrs)))(*ptrs)
        self.forward_pointers(arr, training, seed)
        return self.output(edge_order)

    def forward_pointers(self, ptr_array, training=False, seed=0):
        """forward on memory the caller owns: ptr_array is a ctypes array of float pointers (device
        memory for a CUDA library), kept unchanged until the backward."""
        lib = self.lib
        training, seed = _flag("forward: training", training), _seed("forward", seed)  # (seed & (2^64-1) wrapped)
        lib._check(self._api.forward(self._live(), ptr_array, training, seed))
        lib._check(lib._sync(lib._ctx))
        self.forwards += 1

    def output_pointer(self):
        p = self._api.output(self._live())
        if not p:
            raise GnncError(3, "%s: no output: run forward first" % self.lib.name)
        return p

    def output(self, edge_order="input"):
        _edge_order(edge_order)
        o = self.lib.output
        rows = self.graph.rows(o.domain)
        y = np.empty((rows,) + o.shape, np.float32)
        self.lib._check(self.lib._download(self.lib._ctx, y.ctypes.data, self.output_pointer(), y.nbytes))
        if o.domain == "edge" and edge_order == "input":
            y = self.graph.to_input_order(y)
        return y

    def backward(self, grad_out, edge_order="input"):
        """The backward of the last forward with d loss / d output = grad_out (like the output);
        returns {parameter name: gradient}. Each backward needs its own forward, with training=True."""
        lib, o = self.lib, self.lib.output
        self._live()
        _edge_order(edge_order)
        if not lib.has_backward:
            raise GnncError(8, _no_backward_why(lib))
        if np.asarray(grad_out).dtype.kind not in "fiu":
            raise TypeError("grad_out: want real numbers (float32), got an array of %s" % np.asarray(grad_out).dtype)
        g = np.ascontiguousarray(grad_out, dtype=np.float32)
        if not np.isfinite(g).all():  # as forward refuses its inputs: NaN gradients came back silently
            raise ValueError("grad_out: values must be finite")
        if o.domain == "edge" and edge_order == "input":
            want = (self.graph.num_input_edges,) + o.shape
            if g.shape != want:  # checked before the permutation, which would cut or fail on it
                raise ValueError("grad_out: want shape %s (edges in input order), got %s" % (want, g.shape))
            g = np.ascontiguousarray(self.graph.to_graph_order(g, fill=0))  # added rows: no output
        want = (self.graph.rows(o.domain),) + o.shape
        if g.shape != want:
            raise ValueError("grad_out: want shape %s, got %s" % (want, g.shape))
        if self._grad_buf is None or self._grad_buf.nbytes < max(g.nbytes, 1):  # a bigger graph bound since
            if self._grad_buf is not None:
                self._grad_buf.free()
            self._grad_buf = _Buffer(lib, max(g.nbytes, 1))
        lib._check(lib._upload(lib._ctx, self._grad_buf.ptr, g.ctypes.data, g.nbytes))
        self.backward_pointer(self._grad_buf.ptr)
        return self.grads()

    def backward_pointer(self, ptr):
        lib = self.lib
        lib._check(self._api.backward(self._live(), ptr))
        lib._check(lib._sync(lib._ctx))

    def request_input_grads(self, names):
        """Asks for d loss / d input for the inputs named (a name or an iterable of names; the others are no
        longer asked for) in the backwards that follow. Each must be one the library computes
        (lib.input_grads, gnnc --input-grads): GnncError otherwise."""
        names = {names} if isinstance(names, str) else set(names)  # one name, not its characters
        known = {t.name for t in self.lib.inputs}
        if names - known:
            raise ValueError("%s has no input %s (its inputs: %s)" % (
                self.lib.name, ", ".join(sorted(names - known)), ", ".join(t.name for t in self.lib.inputs)))
        if self.lib.legacy:  # nothing to stop asking for (its input_grads are all 0); nothing to ask
            if names:
                self.lib._need_full_table("input gradients")
            return
        for i, t in enumerate(self.lib.inputs):
            if t.name in names or self.lib.input_grads[i]:
                self.lib._check(self._api.request_input_grad(self._live(), i, int(t.name in names)))

    def input_grad_ptr(self, name):
        """The device pointer of input name's gradient from the last backward, or None."""
        names = [t.name for t in self.lib.inputs]
        if name not in names:
            raise ValueError("%s has no input %r (its inputs: %s)" % (self.lib.name, name, ", ".join(names)))
        self.lib._need_full_table("input gradients")
        return self._api.input_grad(self._live(), names.index(name)) or None

    def input_grads(self, edge_order="input"):
        """{input name: d loss / d input} for the inputs the last backward computed (request_input_grads)."""
        _edge_order(edge_order)
        out = {}
        for i, t in enumerate(self.lib.inputs):
            p = self._api.input_grad(self._live(), i) if self.lib.input_grads[i] == 1 else None
            if not p:
                continue
            v = np.empty((self.graph.rows(t.domain),) + t.shape, np.float32)
            self.lib._check(self.lib._download(self.lib._ctx, v.ctypes.data, p, v.nbytes))
            if t.domain == "edge" and edge_order == "input":
                v = self.graph.to_input_order(v, gradient=True)  # an input row read by several edges: their sum
            out[t.name] = v
        return out

    def grad_ptr(self, name):
        return self._api.grad(self._live(), self._pinfo(name)[0])

    def grads(self):
        out = {}
        for i, p in enumerate(self.lib.param_info):
            v = np.empty(p.shape, np.float32)
            self.lib._check(self.lib._download(self.lib._ctx, v.ctypes.data, self._api.grad(self._live(), i), v.nbytes))
            out[p.name] = v
        return out
