"""Python arguments as the C types the runtime takes, refusing what a cast would change silently
(ctypes wraps an out-of-range integer, int() truncates a float): counts, seeds, vertex ids. Used by
the graph, sampler, model and library modules alike."""
import operator

import numpy as np


def _integer(what, v):
    """v as a Python int, refusing a bool and what int() would truncate (a float) or parse (a string)."""
    if isinstance(v, bool):
        raise TypeError("%s must be an integer, not a bool" % what)
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (what, type(v).__name__)) from None


def _count(name, n):
    """n as a C int64_t, refusing what ctypes would wrap silently (2**64 + 10 becomes 10) and what
    int() would truncate or accept (num_vertices=1.5 became 1; True became 1)."""
    n = _integer(name, n)
    if not 0 <= n < 2**63:
        raise ValueError("%s = %d is out of range (0 .. 2^63 - 1)" % (name, n))
    return n


def _seed(where, seed):
    """seed as a C uint64_t, refusing what ctypes would wrap silently (2**64 + 1 is seed 1) and
    what int() would truncate (a float)."""
    seed = _integer("%s: seed" % where, seed)
    if not 0 <= seed < 2**64:
        raise ValueError("%s: seed %d is out of range (0 .. 2^64 - 1)" % (where, seed))
    return seed


def _flag(name, v):
    """v as a C int 0 or 1: a bool, or the integers 0 and 1 (numpy's too); a string or another
    number is refused (training="no" turned dropout on, add_self_loops="no" failed in int())."""
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    try:
        i = operator.index(v)
    except TypeError:
        raise TypeError("%s must be True or False, not %s" % (name, type(v).__name__)) from None
    if i not in (0, 1):
        raise ValueError("%s must be True or False (or 0 or 1), not %d" % (name, i))
    return i


def _vertex_ids(name, a):
    """a as int64 vertex ids, refusing what a cast would silently change: booleans, non-numbers,
    and floats that are not whole numbers (0.5 would become vertex 0)."""
    a = np.asarray(a)
    if a.dtype == np.bool_ or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        raise TypeError("%s: vertex ids must be integers, got an array of %s" % (name, a.dtype))
    flat = a.ravel()
    if np.issubdtype(a.dtype, np.floating):
        bad = np.flatnonzero(~np.isfinite(flat) | (flat != np.round(flat)))
        if bad.size:
            raise ValueError("%s[%d] = %r is not a whole number: vertex ids must be integers" % (name, bad[0], flat[bad[0]]))
    elif a.dtype == np.uint64 and flat.size and flat.max() > np.uint64(np.iinfo(np.int64).max):
        # (compared as uint64: against a Python int, NumPy compares in float64, where 2^63 equals it)
        raise ValueError("%s: vertex id %d is out of range" % (name, flat.max()))
    return np.ascontiguousarray(flat, dtype=np.int64)
