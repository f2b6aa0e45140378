"""A gnnc-compiled model as a PyTorch layer: torch.autograd.Function + torch.nn.Module.

    import torch, gnnc
    from gnnc.nn import GnncModule
    lib = gnnc.load("libgcn.so")
    g = lib.load_graph("data/cora", add_self_loops=True)
    layer = GnncModule(lib, seed=1)                     # parameters: torch.nn.Parameter, Glorot
    opt = torch.optim.Adam(layer.parameters(), lr=0.01)
    y = layer(g, x)                                     # x: torch tensor (nv, F)
    loss = torch.nn.functional.cross_entropy(y[train], labels[train])
    loss.backward(); opt.step()

The parameters live in PyTorch (nn.Parameter, so optimisers, state_dict and DistributedDataParallel
see them); each forward uploads them to the gnnc model and each backward returns their gradients
from gnnc's autodiff. The module has one gnnc model, created on the first graph it sees and
rebound (Model.set_graph) to each new graph: a new sampled subgraph every batch reuses the model's
arena (grown 1.5x when a batch exceeds it), so memory stays flat and a batch pays a rebind, not a
create. A backward whose graph is no longer bound (several graphs in one step) rebinds it and
recomputes its forward.

Gradients flow to the parameters, and to the inputs the library was compiled to differentiate
(gnnc --input-grads=all, or =x,ew): an encoder before the layer, PyTorch between two gnnc layers,
learnable edge features train end to end. Each backward computes an input's gradient only when
autograd needs it (the input requires grad), so a layer whose inputs are data pays nothing for
it. An input that requires grad but that the library was not compiled to differentiate is
refused with a message naming the flag (detach it, or recompile). First derivatives only: the
backward is compiled code, so a backward through its gradients (torch.autograd.grad with
create_graph=True, then a gradient penalty's backward) raises RuntimeError. CPU tensors use the host library; CUDA tensors use a CUDA library (gnnc
--target=cuda) directly on device memory, synchronising the current torch stream before the
call and the runtime's stream after it.

The graph may be an edge_index tensor or a PyG Data instead of a gnnc.Graph. A CUDA edge_index
with a CUDA library gets its CSR built on the GPU with torch ops (gnnc.csr) and handed to the
runtime there (graph_from_edge_index, gnn_graph_from_csr); a CPU one goes through the runtime's
host builder. Both make the same graph bit for bit (tests/python/test_device_csr.py, on the CPU;
the CUDA path itself has not run on a GPU yet: make gpu-check's python step checks it).
"""
import collections
import copy
import ctypes
import functools
import operator
import weakref

import numpy as np
import torch

from . import GnncError, Graph, Library, Model, _no_backward_why, _pf
from ._args import _integer
from .csr import build_csr

__all__ = ["GnncFunction", "GnncModule", "dropout_stream_seed", "graph_from_edge_index"]

_U64 = 2**64 - 1
_GOLDEN = 0x9e3779b97f4a7c15  # SplitMix64's increment (2^64 / the golden ratio, odd)


def _mix64(z):
    """SplitMix64's finaliser, as runtime/gnnrt_rng.h's gnn_rng_mix (a bijection of 64-bit words)."""
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & _U64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & _U64
    return z ^ (z >> 31)


def dropout_stream_seed(dropout_seed, step):
    """The forward seed of training forward number step (from 0) of a GnncModule(dropout_seed=K):
    output step + 1 of a SplitMix64 generator whose state starts at mix(K), that is
    mix(mix(K) + 0x9e3779b97f4a7c15 * (step + 1)) mod 2^64. K enters through mix, so the streams of
    K and K + 1 (or any two K) are not one stream shifted by some steps, as K + step was (K = 1 at
    step 0 was K = 0 at step 1): two streams meet only where mix(K1) - mix(K2) happens to be a
    multiple of the increment that a run reaches, a 64-bit coincidence."""
    k = _mix64(dropout_seed & _U64)
    return _mix64((k + _GOLDEN * ((step & _U64) + 1)) & _U64)


def _torch_seed():
    """A 64-bit forward seed drawn from torch's default CPU generator (two 32-bit draws), so that
    torch.manual_seed, torch.get_rng_state/set_rng_state and torch.random.fork_rng govern it as
    they govern F.dropout's masks. The CPU generator also for a CUDA module: the seed is a host
    integer, and drawing it on the device would synchronise."""
    hi, lo = torch.randint(0, 2**32, (2,), dtype=torch.int64, device="cpu").tolist()
    return (hi << 32) | lo


def _dropout_seed_arg(v):
    """GnncModule's dropout_seed: None (masks from torch's generator) or an integer 0 .. 2^64 - 1."""
    if v is None:
        return None
    v = _integer("GnncModule: dropout_seed (None, or a stream's integer seed)", v)
    if not 0 <= v < 2**64:
        raise ValueError("GnncModule: dropout_seed %d is out of range (0 .. 2^64 - 1)" % v)
    return v


def _param_key(name):
    """'gcnconv0.W' -> 'gcnconv0__W' (nn.Module attribute names cannot hold dots)."""
    return name.replace(".", "__")


class _CudaView:
    """A device pointer as a torch CUDA tensor (no copy), through __cuda_array_interface__."""

    def __init__(self, ptr, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (int(ptr), False), "version": 2}


def _view(ptr, shape, device):
    return torch.as_tensor(_CudaView(ptr, shape), device=device)


def _not_finite(name, v):
    """The message for parameter name (the model's; the module's attribute is _param_key(name)) whose
    float32 values v are not all finite: the attribute the user sees, what is wrong, the likely why."""
    nan, inf = int(torch.isnan(v).sum()), int(torch.isinf(v).sum())
    what = " and ".join(s for s in ("%d NaN" % nan if nan else "", "%d infinite" % inf if inf else "") if s)
    return ("parameter %s (the model's %r) holds %s of its %d values (in float32): gnnc takes finite parameters only. "
            "They became so in training, most likely: it diverged (the loss or the gradients went NaN or infinite and "
            "the optimiser wrote them into the parameters); try a smaller learning rate or gradient clipping "
            "(torch.nn.utils.clip_grad_norm_), from a checkpoint" % (_param_key(name), name, what, v.numel()))


def _upload_params(model, params, cuda):
    for (name, _), p in zip(model.params(), params):
        p = p.detach()
        if cuda:
            _view(model.param_ptr(name), p.shape, p.device).copy_(p.float())
        else:
            v = p.float().cpu()
            if not bool(torch.isfinite(v).all()):  # Model.set_param's refusal, in the module's words
                raise ValueError(_not_finite(name, v))
            model.set_param(name, v.numpy())


def _run_forward(model, inputs, params, training, seed):
    """Uploads params, runs the forward on inputs (torch tensors); returns the output tensor."""
    cuda = inputs[0].is_cuda if inputs else (params[0].is_cuda if params else False)
    lib = model.lib
    if cuda != (lib.target == "cuda"):
        raise ValueError("%s tensors need a %s library; %s is a %s library" % (
            "CUDA" if cuda else "CPU", "CUDA (gnnc --target=cuda)" if cuda else "host (gnnc --target=host)", lib.path,
            lib.target))
    _upload_params(model, params, cuda)
    if cuda:
        xs = [x.detach().float().contiguous() for x in inputs]
        for x, t in zip(xs, lib.inputs):
            want = (model.graph.rows(t.domain),) + t.shape
            if tuple(x.shape) != want:
                raise ValueError("input %r: want shape %s, got %s" % (t.name, want, tuple(x.shape)))
        torch.cuda.current_stream().synchronize()  # the inputs are ready before the runtime's stream reads them
        arr = (_pf * max(1, len(xs)))(*[ctypes.cast(x.data_ptr(), _pf) for x in xs])
        model.forward_pointers(arr, training, seed)  # synchronises the runtime's stream
        model._torch_keep = xs  # the memory must stay unchanged until the backward
        o = lib.output
        return _view(model.output_pointer(), (model.graph.rows(o.domain),) + o.shape, xs[0].device if xs else "cuda").clone()
    y = model.forward(*[x.detach().float().cpu().numpy() for x in inputs], training=training, seed=seed,
                      edge_order="graph")
    return torch.from_numpy(y)


class GnncFunction(torch.autograd.Function):
    """y = model(inputs; params). apply(model, training, seed, n_inputs, *inputs, *params)."""

    @staticmethod
    def forward(ctx, model, training, seed, n_inputs, *tensors):
        inputs, params = tensors[:n_inputs], tensors[n_inputs:]
        for x, t, how in zip(inputs, model.lib.inputs, model.lib.input_grads):
            if x.requires_grad and how == 0:
                raise ValueError("input %r requires grad, but %s was not compiled to differentiate it: compile it with "
                                 "gnnc --input-grads=%s (or =all), or detach the input" % (t.name, model.lib.path, t.name))
        y = _run_forward(model, inputs, params, training, seed)
        ctx.model, ctx.training, ctx.seed, ctx.n_inputs = model, training, seed, n_inputs
        ctx.graph = model.graph  # held until the backward, which may have to bind it again
        ctx.generation = (model.forwards, model.bindings)
        ctx.save_for_backward(*tensors)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        model = ctx.model
        tensors = ctx.saved_tensors
        inputs, params = tensors[:ctx.n_inputs], tensors[ctx.n_inputs:]
        if not model.lib.has_backward:
            raise GnncError(8, _no_backward_why(model.lib))
        # A gnnc backward needs a forward with training = 1 (an inference forward keeps nothing for
        # it): after an eval-mode forward, recompute it in training mode, the same function when
        # the model has no dropout. With dropout, eval mode's function (dropout the identity) has no
        # compiled backward.
        if not ctx.training and model.lib.num_dropout > 0:
            raise GnncError(3, "%s: no backward of an eval-mode forward: the model has dropout, and its backward "
                               "differentiates the training-mode forward (call module.train())" % model.lib.name)
        # Each gnnc backward needs its own forward: if the model ran another forward since this
        # one (the same graph used twice in a step) or was bound to another graph (several graphs
        # in a step), recompute this one on its graph (dropout is seeded: the same)
        if model.graph is not ctx.graph:
            model.set_graph(ctx.graph)
        if not ctx.training or (model.forwards, model.bindings) != ctx.generation or \
                getattr(model, "_consumed", None) == ctx.generation:
            _run_forward(model, inputs, params, True, ctx.seed)
            ctx.generation = (model.forwards, model.bindings)
        model._consumed = ctx.generation
        lib = model.lib
        # the inputs whose gradients autograd wants (and that are not identically zero): only
        # those cost the backward any work
        want = [t.name for k, t in enumerate(lib.inputs)
                if ctx.needs_input_grad[4 + k] and lib.input_grads[k] == 1]
        if any(lib.input_grads):
            model.request_input_grads(want)
        cuda = lib.target == "cuda"
        g = grad_out.detach().float().contiguous()
        if cuda:
            torch.cuda.current_stream().synchronize()
            model.backward_pointer(g.data_ptr())
            grads = [_view(model.grad_ptr(n), s, g.device).clone() for n, s in model.params()]
            dx = {n: _view(model.input_grad_ptr(n), (model.graph.rows(t.domain),) + t.shape, g.device).clone()
                  for n, t in ((t.name, t) for t in lib.inputs) if n in want}
        else:
            d = model.backward(g.cpu().numpy(), edge_order="graph")
            grads = [torch.from_numpy(d[n]) for n, _ in model.params()]
            dx = {n: torch.from_numpy(v) for n, v in model.input_grads(edge_order="graph").items()}
        grads = [gr.to(p.dtype) if p.requires_grad else None for gr, p in zip(grads, params)]
        # integer inputs, inputs not wanted and identically zero gradients: None
        dxs = [dx[t.name].to(device=x.device, dtype=x.dtype) if t.name in dx and t.name in want else None
               for t, x in zip(lib.inputs, inputs)]
        out = tuple(dxs) + tuple(grads)
        # create_graph=True (a gradient penalty): these gradients come from compiled code and have
        # no derivative, yet they depend on the inputs and parameters. Returned as they are, they
        # would not require grad and a term built on them would silently add nothing (the
        # once_differentiable decorator catches only a grad_out that requires grad, not this).
        # Tied to what they depend on through _NoSecondDerivative, a backward through them raises.
        deps = [t for t in (grad_out,) + tuple(tensors) if t.requires_grad]
        if torch.is_grad_enabled() and deps:
            out = tuple(None if o is None else _NoSecondDerivative.apply(o, *deps) for o in out)
        return (None, None, None, None) + out


class _NoSecondDerivative(torch.autograd.Function):
    """The identity on a gradient gnnc computed, whose own backward raises: what GnncFunction.backward
    returns under create_graph=True, so that differentiating it again fails loudly."""

    @staticmethod
    def forward(ctx, grad, *deps):
        return grad.clone()

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise RuntimeError("a second derivative through a gnnc layer (GnncModule, GnncFunction): its backward is "
                           "compiled code and has no derivative of its own. Take gradients through it without "
                           "create_graph=True, or write the term that differentiates them (a gradient penalty) in "
                           "PyTorch")


def _check_inputs(lib, inputs):
    """Each input a floating-point tensor, refused by name otherwise (None failed in the graph's
    vertex count; bool and integer tensors were cast silently). A float64, float16 or bfloat16 input
    is computed in float32, as before, and the input's gradient cast back; the output has the
    parameters' dtype (GnncModule.forward: float32 unless the module was converted)."""
    for x, t in zip(inputs, lib.inputs):
        if not torch.is_tensor(x):
            raise TypeError("input %r must be a tensor, not %s" % (t.name, type(x).__name__))
        if not x.dtype.is_floating_point:
            raise TypeError("input %r is %s: the model takes floating-point inputs (computed in float32)" % (t.name, x.dtype))


class GnncModule(torch.nn.Module):
    """A gnnc model library as a torch.nn.Module: forward(graph, *inputs).

    forward(graph, *inputs, batch=None): graph is a gnnc.Graph; or an edge_index tensor [2, E] (PyG's:
    edge i goes edge_index[0, i] -> edge_index[1, i]; the vertex count from the first vertex input);
    or a PyG Data / Batch (anything with edge_index and num_nodes), whose attributes named like the
    model's inputs, else x (vertex) and edge_attr (edge), are the inputs unless given. batch (PyG's
    batch vector: the graph of each vertex, from 0, each graph's vertices consecutive, none empty;
    a Batch's own .batch when not given) splits a graph made from tensors into graphs, so that a
    readout pools each graph and a graph-level output has a row per graph; without it the graph is
    one graph (a gnnc.Graph has its own: Graph.set_graphs). A graph made
    from a tensor takes the module's add_self_loops / symmetrise / dedup, is kept while that same
    tensor object holds the same edges (full-graph training builds it once), and takes and gives
    edge rows in edge_index's order. Each call compares the tensor (and batch) exactly with a copy
    kept from when the graph was made, so a buffer refilled in place gets its new graph however it
    was written (through NumPy or .data too, which torch's version counter does not see); the
    compare reads the edges once (16-19 ms at 10M edges, about 1% of building the graph).
    graph_builder says where its CSR is built: "auto" (default) on the
    device for a CUDA edge_index with a CUDA library (torch ops, then gnn_graph_from_csr: no trip
    through the host), by the runtime's host builder otherwise; "torch" always with torch ops on
    the edge_index's device (which must be the library's: CPU for a host library); "runtime"
    always by the host builder (a CUDA edge_index copied to the host). Both give the same graph,
    bit for bit.

    Mini-batches: the module has one gnnc model, rebound to each new graph (Model.set_graph), its
    arena reused and grown 1.5x when a batch is bigger than any before. capacity=(vertices, edges)
    or (vertices, edges, graphs) (checked here: counts in 0 .. 2^31) reserves that much when the
    model is made, so batches up to it
    allocate nothing more. Graphs made from tensors are cached for the max_graphs most recently used
    tensors, each entry dropped when its tensor is freed.

    library: a gnnc.Library or the path of one. The parameters are nn.Parameters initialised as
    the model's create does, as the library's model table describes it (Library.initial_params:
    Glorot from seed for rank >= 2, zeros below, a parameter declared `= value` at that value; the
    interpreter's values; no model is made). seed is the parameters' only: it does not seed dropout.

    Dropout (module.train(); a library compiled with dropout): each training forward runs with
    one 64-bit forward seed, from which the compiled model draws every dropout's mask (each
    dropout its own stream, runtime/gnnrt_rng.h); a backward reuses its forward's seed, so the
    gradients are those of the masks applied. Where the forward seed comes from:
      dropout_seed=None (default): drawn from torch's default CPU generator at each training
        forward, as F.dropout draws its masks from torch's generator: torch.manual_seed(s)
        reproduces a run, two modules (two layers, two libraries) draw different masks, and so
        does each call of one module. A bit-identical resume needs torch's RNG state saved and
        restored (torch.get_rng_state / set_rng_state), as for any torch model with dropout.
      dropout_seed=K (an integer 0 .. 2^64 - 1): a stream of the module's own, independent of
        torch's generator: training forward number n uses dropout_stream_seed(K, n), a 64-bit
        mix of (K, n). Two modules with the same K draw the same masks at the same step (give
        each its own K); K and K + 1 are unrelated streams, not one stream shifted.
    n is the buffer `dropout_step` (the training forwards so far, counted in both cases), so it
    travels in state_dict() and copy.deepcopy: with a dropout_seed, a checkpoint (torch.save of
    the module's and the optimiser's state_dict) resumes the masks where they stopped, and a deep
    copy draws the masks the original would draw next. A state_dict from before the buffer
    existed loads, leaving the count as it is. A module without dropout draws nothing from
    torch's generator. Edge inputs and outputs are in the graph's (CSR) order;
    graph.to_graph_order converts.

    Dtypes: gnnc computes in float32. Inputs of another floating dtype are rounded to float32 and
    their gradients cast back to their dtype; so are the parameters of a converted module
    (module.double(), .half(), .to(dtype): they stay in that dtype for the optimiser, rounded to
    float32 for each forward, their gradients cast back). The output has the parameters' dtype
    (float32 unless converted; several dtypes: the one torch promotes them to), so that a network
    converted as a whole runs: module.double() does not make gnnc compute in float64.

    Threads: one module (and its gnnc models) is used by one thread at a time; separate modules,
    each with its own Library or not, may run in separate threads (docs/embedding.md)."""

    def __init__(self, library, seed=1, dropout_seed=None, max_graphs=8, add_self_loops=False, symmetrise=False,
                 dedup=False, capacity=None, graph_builder="auto"):
        super().__init__()
        self.lib = library if isinstance(library, Library) else Library(library)
        self._seed = seed
        if graph_builder not in ("auto", "torch", "runtime"):
            raise ValueError("graph_builder must be 'auto', 'torch' or 'runtime', not %r" % (graph_builder,))
        self.graph_builder = graph_builder
        # for graphs made from an edge_index or a PyG Data (forward's first argument), as lib.graph's
        self.graph_options = dict(add_self_loops=add_self_loops, symmetrise=symmetrise, dedup=dedup)
        # id(edge_index) -> _CachedGraph (a weak reference to it, a copy of its edges, nv, the graph,
        # a copy of the batch vector): at most max_graphs, least recently used out first, and an entry
        # goes with its tensor
        self._graphs = collections.OrderedDict()
        self.max_graphs = max(1, int(max_graphs))
        # the one gnnc model, rebound per graph; capacity (vertices, edges[, graphs]) is reserved on it
        # when it is made, so batches up to that size allocate nothing more
        self._model = None
        self.capacity = _capacity(capacity)
        self.dropout_seed = dropout_seed  # checked by the property's setter
        # the dropout stream's position: a buffer, so that state_dict() saves it
        self.register_buffer("dropout_step", torch.zeros((), dtype=torch.int64))
        self._names = [p.name for p in self.lib.param_info]
        init = self.lib.initial_params(seed)
        for n in self._names:
            self.register_parameter(_param_key(n), torch.nn.Parameter(torch.from_numpy(init[n])))

    @property
    def dropout_seed(self):
        """None: each training forward's seed drawn from torch's generator; an integer K: the
        module's own stream, dropout_stream_seed(K, dropout_step) (the class's docstring)."""
        return self._dropout_seed

    @dropout_seed.setter
    def dropout_seed(self, v):
        self._dropout_seed = _dropout_seed_arg(v)

    def _forward_seed(self):
        """The seed of this training forward (the class's docstring), and the count advanced."""
        step = int(self.dropout_step)
        self.dropout_step += 1
        if self._dropout_seed is not None:
            return dropout_stream_seed(self._dropout_seed, step)
        # a library without dropout ignores the seed: drawing one would move torch's generator
        # under the rest of the user's network for nothing
        return _torch_seed() if self.lib.num_dropout > 0 else 0

    def __deepcopy__(self, memo):
        """copy.deepcopy (a best-model snapshot, an EMA copy, torch.optim.swa_utils.AveragedModel): a
        new module over the same Library -- shared, as a library and its context cannot be copied --
        with copies of the parameters, buffers (dropout_step) and settings, and a gnnc model of its
        own, made at its first forward (the original's is not touched); its cache of graphs made
        from tensors starts empty. It computes what the original does and trains independently."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        memo[id(self.lib)] = self.lib
        for k, v in self.__dict__.items():
            if k == "_model":
                v = None
            elif k == "_graphs":
                v = collections.OrderedDict()
            else:
                v = copy.deepcopy(v, memo)
            new.__dict__[k] = v
        return new

    def __copy__(self):
        # copy.copy: the default's shallow copy (the same parameters, model and cache), kept as it was
        # once __reduce_ex__ refuses pickling
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __reduce_ex__(self, protocol):
        raise TypeError("a GnncModule cannot be pickled (torch.save(module), multiprocessing): it holds a gnnc.Library, "
                        "a loaded shared library and its runtime context. Save its state instead: "
                        "torch.save(module.state_dict(), path), then GnncModule(library, ...).load_state_dict("
                        "torch.load(path)) (the parameters and dropout_step); copy.deepcopy(module) copies it in "
                        "this process")

    def model_for(self, graph):
        """The module's gnnc model bound to graph: created on first use (with the module's capacity
        reserved), rebound when graph is not the one bound (the arena reused; no old graph kept)."""
        if not isinstance(graph, Graph):
            raise TypeError("graph must be a gnnc.Graph (lib.graph(src, dst) or lib.load_graph(path))")
        m = self._model
        if m is None:
            m = self._model = Model(self.lib, graph, self._seed)
            if self.capacity is not None:
                m.reserve(*self.capacity)
        elif m.graph is not graph:
            m.set_graph(graph)
        return m

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # a state_dict saved before dropout_step existed: keep the module's own count
        key = prefix + "dropout_step"
        if key not in state_dict:
            state_dict = dict(state_dict)
            state_dict[key] = self.dropout_step.detach().clone()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def named_gnnc_parameters(self):
        return [(n, getattr(self, _param_key(n))) for n in self._names]

    def forward(self, graph, *inputs, batch=None):
        tg = None
        _check_inputs(self.lib, inputs)  # before the graph: None failed in its vertex count
        if isinstance(graph, Graph) and batch is not None:
            raise ValueError("batch= goes with an edge_index; a gnnc.Graph has its own (Graph.set_graphs, lib.graph(batch=))")
        if not isinstance(graph, Graph):
            tg, inputs = self._tensor_graph(graph, inputs, batch)
            graph = tg.graph
            inputs = [tg.to_graph_order(x, t) if t.domain == "edge" else x for x, t in zip(inputs, self.lib.inputs)]
        if len(inputs) != len(self.lib.inputs):  # (a PyG Data gives its own)
            raise TypeError("the model %s takes %d inputs (%s), got %d" % (
                self.lib.name, len(self.lib.inputs), ", ".join(t.name for t in self.lib.inputs), len(inputs)))
        _check_inputs(self.lib, inputs)
        model = self.model_for(graph)
        params = [getattr(self, _param_key(n)) for n in self._names]
        seed = self._forward_seed() if self.training else 0
        y = GnncFunction.apply(model, self.training, seed, len(inputs), *inputs, *params)
        if tg is not None and self.lib.output.domain == "edge":
            y = tg.to_input_order(y)
        # computed in float32, given in the parameters' dtype (module.double(), .half()) as a torch
        # layer's output is, so that the next layer of a network converted as a whole takes it
        dtypes = {p.dtype for p in params}
        if dtypes and dtypes != {torch.float32}:
            y = y.to(functools.reduce(torch.promote_types, dtypes))
        return y

    def _tensor_graph(self, g, inputs, batch=None):
        """(the _TensorGraph of an edge_index tensor or a PyG Data, the inputs). batch: the graph of
        each vertex (PyG's batch vector; a Data's own .batch when not given), else one graph."""
        if torch.is_tensor(g):
            edge_index = g
            vin = [x for x, t in zip(inputs, self.lib.inputs) if t.domain == "vertex"]
            nv = int(vin[0].shape[0]) if vin else (int(edge_index.max()) + 1 if edge_index.numel() else 0)
        elif hasattr(g, "edge_index"):
            edge_index, nv = g.edge_index, int(g.num_nodes)
            if batch is None:  # a PyG Batch: its graphs, so that a readout pools each one
                batch = getattr(g, "batch", None)
                ng = getattr(g, "num_graphs", None) if batch is not None else None
                if ng is not None and batch.numel() and int(ng) != int(batch.max()) + 1:
                    raise ValueError("the batch holds %d graphs (num_graphs) but its batch vector names %d: a graph "
                                     "without vertices is not supported" % (int(ng), int(batch.max()) + 1))
            if not inputs:
                inputs = []
                for t in self.lib.inputs:
                    v = getattr(g, t.name, None)
                    if v is None:
                        v = getattr(g, {"vertex": "x", "edge": "edge_attr"}.get(t.domain, t.name), None)
                    if v is None:
                        raise ValueError("input %r (%s): the data has no attribute %r%s" % (
                            t.name, t.domain, t.name, {"vertex": " nor x", "edge": " nor edge_attr"}.get(t.domain, "")))
                    inputs.append(v)
        else:
            raise TypeError("the first argument must be a gnnc.Graph, an edge_index tensor [2, E] or a PyG Data "
                            "(with edge_index), not %s" % type(g).__name__)
        if not torch.is_tensor(edge_index) or edge_index.dim() != 2 or edge_index.shape[0] != 2:
            raise ValueError("edge_index must be a tensor of shape [2, E], got %s" % (
                list(edge_index.shape) if torch.is_tensor(edge_index) else type(edge_index).__name__,))
        if edge_index.dtype.is_floating_point or edge_index.dtype == torch.bool or edge_index.dtype.is_complex:
            raise TypeError("edge_index must hold integer vertex ids, not %s" % edge_index.dtype)
        if batch is not None and not torch.is_tensor(batch):
            batch = torch.as_tensor(np.asarray(batch))
        # the graph made from this tensor before, if it still holds the same edges (and batch), compared
        # exactly: a write through NumPy (torch.from_numpy's buffer) or .data changes a tensor without
        # moving its version counter, so neither the tensor's identity nor its version says it is unchanged
        hit = self._graphs.get(id(edge_index))
        if hit is not None and hit.tensor() is edge_index and hit.nv == nv and _same(edge_index, hit.edges) and (
                hit.batch is None if batch is None else hit.batch is not None and _same(batch, hit.batch)):
            self._graphs.move_to_end(id(edge_index))
            return hit.tg, inputs
        on_device = self.graph_builder == "torch" or (
            self.graph_builder == "auto" and edge_index.is_cuda and self.lib.target == "cuda")
        graph_of = None if batch is None else batch.detach().cpu().numpy()  # the runtime reads it on the host
        if on_device:
            tg = graph_from_edge_index(self.lib, edge_index, nv, **self.graph_options)
            if graph_of is not None:
                tg.graph.set_graphs(graph_of)
        else:
            ei = edge_index.detach().cpu().numpy()
            tg = _TensorGraph(self.lib.graph(ei[0], ei[1], num_vertices=nv, batch=graph_of, **self.graph_options))
        key = id(edge_index)
        graphs = weakref.ref(self._graphs)
        # the batch's graph goes when its edge_index does (a sampler's old batches keep nothing alive)
        weakref.finalize(edge_index, _forget, graphs, key, weakref.ref(tg))
        self._graphs[key] = _CachedGraph(weakref.ref(edge_index), edge_index.detach().clone(), nv, tg,
                                         None if batch is None else batch.detach().clone())
        while len(self._graphs) > self.max_graphs:
            self._graphs.popitem(last=False)
        return tg, inputs


def _capacity(capacity):
    """capacity as (vertices, edges) or (vertices, edges, graphs), checked when the module is made
    rather than at its first forward (and a fourth entry is not silently Model.reserve's grow)."""
    if capacity is None:
        return None
    try:
        c = tuple(capacity)
    except TypeError:
        raise TypeError("capacity must be (vertices, edges) or (vertices, edges, graphs), not %s"
                        % type(capacity).__name__) from None
    if len(c) not in (2, 3):
        raise ValueError("capacity must be (vertices, edges) or (vertices, edges, graphs), got %d entries: %r" % (len(c), c))
    out = []
    for name, n in zip(("vertices", "edges", "graphs"), c):
        if isinstance(n, bool):
            raise TypeError("capacity: %s = %r is not a count" % (name, n))
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError("capacity: %s = %r is not an integer" % (name, n)) from None
        if not 0 <= n <= 2**31:  # the runtime's int32 ids (Model.reserve's GnncError otherwise, at the first forward)
            raise ValueError("capacity: %s = %d is out of range (0 .. 2^31)" % (name, n))
        out.append(n)
    return tuple(out)


# A graph GnncModule made from a tensor: tensor, a weak reference to the edge_index; edges, a copy of
# its contents when the graph was made (on its device); nv, the vertex count; tg, the _TensorGraph;
# batch, a copy of the batch vector, or None
_CachedGraph = collections.namedtuple("_CachedGraph", "tensor edges nv tg batch")


def _same(t, saved):
    """Whether tensor t holds exactly saved's contents (same device, dtype and shape)."""
    return t.device == saved.device and t.dtype == saved.dtype and t.shape == saved.shape and torch.equal(t, saved)


def _forget(graphs_ref, key, tg_ref):
    """weakref.finalize of an edge_index: drops its cache entry, if still that graph's."""
    graphs, tg = graphs_ref(), tg_ref()
    if graphs is not None and tg is not None and key in graphs and graphs[key].tg is tg:
        del graphs[key]


def graph_from_edge_index(lib, edge_index, num_vertices=0, add_self_loops=False, remove_self_loops=False, dedup=False,
                          symmetrise=False):
    """The graph of edge_index (PyG's [2, E]) for lib, its CSR built with torch ops on edge_index's device
    (gnnc.csr.build_csr) and handed to the runtime there (Library.graph_from_csr): a CUDA edge_index
    never goes through the host. The device must be lib's (CUDA for a CUDA library, CPU for a host
    one). Returns the _TensorGraph GnncModule keeps: .graph, and the edge permutation between
    edge_index's order and the runtime's, as tensors on that device. The same graph as
    lib.graph(edge_index[0], edge_index[1], num_vertices, ...) bit for bit."""
    cuda = lib.target == "cuda"
    if not torch.is_tensor(edge_index) or edge_index.is_cuda != cuda:
        raise ValueError("a graph built on the device needs edge_index on the library's device: %s tensor for %s, a %s "
                         "library" % ("a CUDA" if cuda else "a CPU", lib.path, lib.target))
    csr = build_csr(edge_index, num_vertices, add_self_loops=add_self_loops, remove_self_loops=remove_self_loops,
                    dedup=dedup, symmetrise=symmetrise)
    if cuda:
        torch.cuda.current_stream(edge_index.device).synchronize()  # the runtime's stream reads what torch's wrote
    g = lib.graph_from_csr(csr.nv, csr.ne, csr.in_ptr.data_ptr(), csr.src.data_ptr(), csr.out_ptr.data_ptr(),
                           csr.out_eid.data_ptr(), csr.edge_origin.data_ptr(), num_input_edges=csr.num_input_edges,
                           add_self_loops=add_self_loops, remove_self_loops=remove_self_loops, dedup=dedup,
                           symmetrise=symmetrise)
    return _TensorGraph(g, csr.edge_origin)


class _TensorGraph:
    """A gnnc.Graph made from an edge_index, with its edge permutation as index tensors per device
    (from the graph's edge_origin, or from origin, the same as a tensor, for a graph built on the
    device: its permutation stays there)."""

    def __init__(self, graph, origin=None):
        self.graph = graph
        if origin is None:
            origin = torch.from_numpy(graph.edge_origin)
        self._keep = origin >= 0
        self._csr_rows = torch.nonzero(self._keep).flatten()  # the runtime's rows that come from an input edge
        self._input_rows = origin[self._keep]                 # ... and which input edge each is
        self._on = {origin.device: (self._csr_rows, self._input_rows)}

    def _idx(self, device):
        if device not in self._on:
            self._on[device] = (self._csr_rows.to(device), self._input_rows.to(device))
        return self._on[device]

    def to_graph_order(self, a, t=None):
        """Edge rows in edge_index's order -> the runtime's, differentiably; an added self-loop's row
        is 1, as gnnc run, gnn-run and gnn-train give it (Graph.to_graph_order). t: the model
        input a is, for the message."""
        n = self.graph.num_input_edges
        if a.dim() < 1 or a.shape[0] != n:  # index_select would cut more rows and fail on fewer
            want = (n,) + (t.shape if t is not None else tuple(a.shape[1:]))
            raise ValueError("%s: want shape %s (a row per edge of edge_index, in its order), got %s" % (
                "input %r" % t.name if t is not None else "edge rows", want, tuple(a.shape)))
        csr, inp = self._idx(a.device)
        out = a.new_ones((self.graph.ne,) + tuple(a.shape[1:]))
        return out.index_copy(0, csr, a.index_select(0, inp))

    def to_input_order(self, a):
        """The runtime's edge rows -> edge_index's order (added edges dropped), differentiably. With
        symmetrise two of the graph's edges come from one input edge, and an edge output's rows have
        no single input row: refused (an edge input's rows are read by both, and autograd sums)."""
        if getattr(self, "_shared", None) is None:
            self._shared = bool(self._input_rows.numel() != torch.unique(self._input_rows).numel())
        if self._shared:
            raise ValueError("an edge output in edge_index's order: some of the graph's edges share an input edge "
                             "(symmetrise), so their rows have no single input row; build the gnnc.Graph yourself "
                             "(gnnc.nn.graph_from_edge_index) and pass it to get the output in the graph's order")
        csr, inp = self._idx(a.device)
        out = a.new_zeros((self.graph.num_input_edges,) + tuple(a.shape[1:]))
        return out.index_copy(0, inp, a.index_select(0, csr))
