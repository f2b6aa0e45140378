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
from gnnc's autodiff. One gnnc model is created per graph the module sees (a batch of point
clouds is several graphs), all sharing the module's parameters; the module keeps the models of its
max_graphs (8) most recently used graphs, so a new sampled subgraph every batch keeps memory flat
(each new graph still pays a model's create).

Gradients flow to the parameters only: gnnc's autodiff differentiates with respect to parameters,
not inputs, so an input that requires grad is refused (use the layer where its inputs are data,
or detach them). CPU tensors use the host library; CUDA tensors use a CUDA library (gnnc
--target=cuda) directly on device memory, synchronising the current torch stream before the
call and the runtime's stream after it.
"""
import collections
import ctypes

import numpy as np
import torch

from . import GnncError, Graph, Library, Model, _pf

__all__ = ["GnncFunction", "GnncModule"]


def _param_key(name):
    """'gcnconv0.W' -> 'gcnconv0__W' (nn.Module attribute names cannot hold dots)."""
    return name.replace(".", "__")


class _CudaView:
    """A device pointer as a torch CUDA tensor (no copy), through __cuda_array_interface__."""

    def __init__(self, ptr, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (int(ptr), False), "version": 2}


def _view(ptr, shape, device):
    return torch.as_tensor(_CudaView(ptr, shape), device=device)


def _upload_params(model, params, cuda):
    for (name, _), p in zip(model.params(), params):
        p = p.detach()
        if cuda:
            _view(model.param_ptr(name), p.shape, p.device).copy_(p.float())
        else:
            model.set_param(name, p.float().cpu().numpy())


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
        for x, t in zip(inputs, model.lib.inputs):
            if x.requires_grad:
                raise ValueError("input %r requires grad, but gnnc computes gradients for parameters only "
                                 "(detach it, or put this layer where its inputs are data)" % t.name)
        y = _run_forward(model, inputs, params, training, seed)
        ctx.model, ctx.training, ctx.seed, ctx.n_inputs = model, training, seed, n_inputs
        ctx.generation = model.forwards
        ctx.save_for_backward(*tensors)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        model = ctx.model
        tensors = ctx.saved_tensors
        inputs, params = tensors[:ctx.n_inputs], tensors[ctx.n_inputs:]
        if not model.lib.has_backward:
            raise GnncError(8, "%s was compiled without autodiff: no backward" % model.lib.name)
        # A gnnc backward needs a forward with training = 1 (an inference forward keeps nothing for
        # it): after an eval-mode forward, recompute it in training mode, the same function when
        # the model has no dropout. With dropout, eval mode's function (dropout the identity) has no
        # compiled backward.
        if not ctx.training and model.lib.num_dropout > 0:
            raise GnncError(3, "%s: no backward of an eval-mode forward: the model has dropout, and its backward "
                               "differentiates the training-mode forward (call module.train())" % model.lib.name)
        # Each gnnc backward needs its own forward: if the model ran another forward since this
        # one (the same graph used twice in a step), recompute this one (dropout is seeded: the same)
        if not ctx.training or model.forwards != ctx.generation or getattr(model, "_consumed", None) == ctx.generation:
            _run_forward(model, inputs, params, True, ctx.seed)
            ctx.generation = model.forwards
        model._consumed = ctx.generation
        cuda = model.lib.target == "cuda"
        g = grad_out.detach().float().contiguous()
        if cuda:
            torch.cuda.current_stream().synchronize()
            model.backward_pointer(g.data_ptr())
            grads = [_view(model.grad_ptr(n), s, g.device).clone() for n, s in model.params()]
        else:
            d = model.backward(g.cpu().numpy(), edge_order="graph")
            grads = [torch.from_numpy(d[n]) for n, _ in model.params()]
        grads = [gr.to(p.dtype) if p.requires_grad else None for gr, p in zip(grads, params)]
        return (None, None, None, None) + (None,) * ctx.n_inputs + tuple(grads)


class GnncModule(torch.nn.Module):
    """A gnnc model library as a torch.nn.Module: forward(graph, *inputs).

    library: a gnnc.Library or the path of one. The parameters are nn.Parameters initialised as
    the model's create does (Glorot from seed, the interpreter's values). In training mode
    (module.train()) dropout draws its masks from dropout_seed + the number of training forwards
    so far; that count is the buffer `dropout_step`, so it travels in state_dict() and a
    checkpoint (torch.save of the module's and the optimiser's state_dict) resumes the dropout
    stream where it stopped. A state_dict from before the buffer existed loads, leaving the count
    as it is. Edge inputs and outputs are in the graph's (CSR) order; graph.to_graph_order
    converts.

    Threads: one module (and its gnnc models) is used by one thread at a time; separate modules,
    each with its own Library or not, may run in separate threads (docs/embedding.md)."""

    def __init__(self, library, seed=1, dropout_seed=0, max_graphs=8):
        super().__init__()
        self.lib = library if isinstance(library, Library) else Library(library)
        self._seed = seed
        # the gnnc models of the graphs seen last (a model holds its graph's arena): at most
        # max_graphs, least recently used out first, so a new subgraph every batch keeps memory flat
        self.max_graphs = max(1, int(max_graphs))
        self._models = collections.OrderedDict()
        self.dropout_seed = dropout_seed
        # the dropout stream's position: a buffer, so that state_dict() saves it
        self.register_buffer("dropout_step", torch.zeros((), dtype=torch.int64))
        self._names = [p.name for p in self.lib.param_info]
        init = self.lib.initial_params(seed)
        for n in self._names:
            self.register_parameter(_param_key(n), torch.nn.Parameter(torch.from_numpy(init[n])))

    def model_for(self, graph):
        """The gnnc model of graph: created on first use, kept for the module's max_graphs most
        recently used graphs (an evicted one is freed once autograd no longer holds it)."""
        if not isinstance(graph, Graph):
            raise TypeError("graph must be a gnnc.Graph (lib.graph(src, dst) or lib.load_graph(path))")
        m = self._models.get(id(graph))
        if m is not None and m[0] is graph:
            self._models.move_to_end(id(graph))
            return m[1]
        self._models[id(graph)] = m = (graph, Model(self.lib, graph, self._seed))
        while len(self._models) > self.max_graphs:
            self._models.popitem(last=False)
        return m[1]

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

    def forward(self, graph, *inputs):
        model = self.model_for(graph)
        params = [getattr(self, _param_key(n)) for n in self._names]
        seed = 0
        if self.training:
            seed = self.dropout_seed + int(self.dropout_step)
            self.dropout_step += 1
        return GnncFunction.apply(model, self.training, seed, len(inputs), *inputs, *params)
