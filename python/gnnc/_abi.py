"""The C side's layouts in ctypes: runtime/gnnrt.h's and runtime/gnn_model.h's structures, the
model table's function types, and the enums' values (status names, targets, domains).

Nothing here calls the runtime; the modules above read and fill these structures. Kept apart, and
importing nothing of the package, so that tests/python/abi_check.py checks one file's worth of
mirrors against the layouts clang gives.
"""
import ctypes

TARGET_HOST, TARGET_CUDA = 0, 1
DOMAIN_VERTEX, DOMAIN_EDGE, DOMAIN_GLOBAL = 0, 1, 2

_STATUS = ["GNN_OK", "GNN_ERR_IO", "GNN_ERR_FORMAT", "GNN_ERR_INVALID", "GNN_ERR_OOM", "GNN_ERR_CUDA",
           "GNN_ERR_CUBLAS", "GNN_ERR_NVRTC", "GNN_ERR_UNSUPPORTED", "GNN_ERR_NUMERIC"]


# Mirrors of runtime/gnnrt.h and runtime/gnn_model.h, field for field: tests/python/abi_check.py
# compares every one with the layout the C compiler gives (names, offsets, sizes) in make test.

class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("domain", ctypes.c_int), ("rank", ctypes.c_int),
                ("dims", ctypes.c_int64 * 4), ("width", ctypes.c_int64)]


class _ParamInit(ctypes.Structure):  # gnn_param_init (gnn_model.h): how create() starts a parameter
    _fields_ = [("kind", ctypes.c_int), ("value", ctypes.c_float)]


INIT_GLOROT, INIT_ZEROS, INIT_VALUE = 0, 1, 2  # gnn_param_init.kind: GNN_INIT_*


class _MemoryPlan(ctypes.Structure):
    _fields_ = [("arena", ctypes.c_size_t), ("unshared", ctypes.c_size_t), ("params", ctypes.c_size_t),
                ("grads", ctypes.c_size_t), ("output", ctypes.c_size_t), ("total", ctypes.c_size_t),
                ("buffers", ctypes.c_int), ("arena_inference", ctypes.c_size_t)]


class _GraphOpts(ctypes.Structure):
    _fields_ = [("add_self_loops", ctypes.c_int), ("remove_self_loops", ctypes.c_int), ("dedup", ctypes.c_int),
                ("symmetrise", ctypes.c_int), ("num_vertices", ctypes.c_int64)]


_p64, _p32, _pf = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_float)


class _Graph(ctypes.Structure):
    _fields_ = [("nv", ctypes.c_int64), ("ne", ctypes.c_int64), ("in_ptr", _p64), ("src", _p32), ("dst", _p32),
                ("out_ptr", _p64), ("out_eid", _p32), ("in_deg", _pf), ("out_deg", _pf), ("h_in_ptr", _p64),
                ("h_out_ptr", _p64), ("h_src", _p32), ("h_dst", _p32), ("h_out_eid", _p32), ("edge_origin", _p64),
                ("max_in_deg", ctypes.c_int64), ("max_out_deg", ctypes.c_int64), ("h_edge_values", _pf),
                ("edge_ncols", ctypes.c_int64), ("ng", ctypes.c_int64), ("graph_ptr", _p64), ("vertex_graph", _p32),
                ("graph_size", _pf), ("h_graph_ptr", _p64), ("h_vertex_graph", _p32), ("out_dst", _p32),
                ("piece_len", ctypes.c_int64), ("npieces", ctypes.c_int64), ("piece_row", _p32), ("piece_lo", _p64),
                ("out_npieces", ctypes.c_int64), ("out_piece_row", _p32), ("out_piece_lo", _p64),
                ("num_input_edges", ctypes.c_int64)]


class _Sample(ctypes.Structure):  # gnn_sample (gnnrt.h)
    _fields_ = [("nv", ctypes.c_int64), ("ne", ctypes.c_int64), ("nseeds", ctypes.c_int64), ("nhops", ctypes.c_int),
                ("nodes", _p64), ("src", _p64), ("dst", _p64), ("eid", _p64), ("hop_nv", _p64), ("hop_ne", _p64)]


class _Dataset(ctypes.Structure):
    _fields_ = [("graph", ctypes.POINTER(_Graph)), ("nv", ctypes.c_int64), ("features", _pf), ("nfeat", ctypes.c_int64),
                ("labels", _p32), ("nclasses", ctypes.c_int), ("train_mask", ctypes.POINTER(ctypes.c_uint8)),
                ("val_mask", ctypes.POINTER(ctypes.c_uint8)), ("test_mask", ctypes.POINTER(ctypes.c_uint8)),
                ("ntrain", ctypes.c_int64), ("nval", ctypes.c_int64), ("ntest", ctypes.c_int64),
                ("missing", ctypes.c_uint), ("graph_level", ctypes.c_int), ("nrows", ctypes.c_int64)]


_vp = ctypes.c_void_p
_CREATE = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.POINTER(_Graph), ctypes.c_uint64, ctypes.POINTER(_vp))
_DESTROY = ctypes.CFUNCTYPE(None, _vp)
_FORWARD = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.POINTER(_pf), ctypes.c_int, ctypes.c_uint64)
_OUTPUT = ctypes.CFUNCTYPE(_vp, _vp)
_BACKWARD = ctypes.CFUNCTYPE(ctypes.c_int, _vp, _vp)
_PARAM = ctypes.CFUNCTYPE(_vp, _vp, ctypes.c_int)
_PLAN = ctypes.CFUNCTYPE(None, _vp, ctypes.POINTER(_MemoryPlan))
_REQUEST = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.c_int, ctypes.c_int)
_SET_GRAPH = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.POINTER(_Graph))
_RESERVE = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int)


class _Api(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("source", ctypes.c_char_p), ("target", ctypes.c_int),
                ("num_inputs", ctypes.c_int), ("inputs", ctypes.POINTER(_TensorInfo)), ("num_params", ctypes.c_int),
                ("params", ctypes.POINTER(_TensorInfo)), ("output_info", _TensorInfo), ("has_backward", ctypes.c_int),
                ("num_dropout", ctypes.c_int), ("forward_steps", ctypes.c_int64), ("backward_steps", ctypes.c_int64),
                ("create", _CREATE), ("destroy", _DESTROY), ("forward", _FORWARD), ("output", _OUTPUT),
                ("backward", _BACKWARD), ("param", _PARAM), ("grad", _PARAM), ("memory_plan", _PLAN),
                ("forward_kernels", ctypes.c_int64), ("backward_kernels", ctypes.c_int64),
                ("forward_gemms", ctypes.c_int64), ("backward_gemms", ctypes.c_int64),
                ("input_grads", ctypes.POINTER(ctypes.c_int)), ("request_input_grad", _REQUEST),
                ("input_grad", _PARAM), ("set_graph", _SET_GRAPH), ("reserve", _RESERVE),
                ("program", ctypes.c_char_p), ("param_init", ctypes.POINTER(_ParamInit)),
                # runtime 0.9 (gnn_model_forward_launches): read only from libraries that export it
                ("forward_kernels_training", ctypes.c_int64), ("forward_kernels_graph", ctypes.c_int64)]
