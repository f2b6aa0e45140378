"""The binding's error (GnncError, a failed runtime or model call) and the messages more than one
module raises it with."""
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
