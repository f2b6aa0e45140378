"""The binding's error (GnncError, a failed runtime or model call), the messages more than one
module raises it with, and _Handle, the refusal to copy or pickle an object that owns a C handle."""
from ._abi import _STATUS


class GnncError(RuntimeError):
    """A failed runtime or model call: .status is the gnn_status name, the message the runtime's."""

    def __init__(self, status, message):
        self.status = _STATUS[status] if 0 <= status < len(_STATUS) else "GNN_ERR_?"
        self._made_from = (status, message)
        super().__init__("%s: %s" % (self.status, message))

    def __reduce__(self):
        # made again from its two arguments: the default (the class and self.args, one string)
        # cannot call __init__, so an error raised in a DataLoader or multiprocessing worker
        # could not reach the parent process
        return (type(self), self._made_from)


def _no_backward_why(lib):
    """Why a library has no backward: built with -fno-autodiff, or nothing to differentiate (no
    parameters and no --input-grads: autodiff then makes no backward)."""
    if not lib.param_info:
        return ("%s has no backward: it has no parameters and was built without --input-grads, so there is "
                "no gradient to compute" % lib.name)
    return "%s was compiled without autodiff: no backward" % lib.name


class _Handle:
    """The base of the classes whose objects own a runtime handle and free it (Library, Graph, Model,
    Sampler). A copy (copy.copy, copy.deepcopy) would be a second owner of the same handle, freeing
    it again when it goes (a double free, or a crash in the original); a pickle would carry a
    pointer into this process. Both raise TypeError naming the class and _copy_instead, the way to
    get a second one."""

    _owns = "a runtime handle"
    _copy_instead = ""

    def _no_copy(self, *args):
        raise TypeError("a gnnc.%s cannot be copied or pickled: it owns %s (a copy would free it a second time, "
                        "a pickle cannot carry it). %s" % (type(self).__name__, self._owns, self._copy_instead))

    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = _no_copy
