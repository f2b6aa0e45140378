"""tests/python/script_checks.py -- what the tests of the Python scripts with command lines share
(test_minibatch_options.py: python/examples/minibatch_sage.py; test_bench_sampler.py:
bench/sampler.py): the two verdicts on a run (refused as argparse refuses, or a JSON result
line) and the .npy graph folder both scripts read. Their "ok" / "FAIL" lines: check_lines.py."""
import json
import os

import numpy as np

from check_lines import check  # the verdict lines and their count (check_lines.failures)


def refused(prog, name, run, want):
    """run = (exit status, stdout, stderr) must be exit 2 with a last stderr line 'PROG: error: ...'
    that holds want, no traceback and nothing on stdout."""
    rc, out, err = run
    last = err.strip().splitlines()[-1] if err.strip() else ""
    ok = rc == 2 and last.startswith(prog + ": error: ") and want in last and "Traceback" not in err and not out
    check(ok, "refused/" + name, "exit %d, want %r in the error; stderr: %s" % (rc, want, " | ".join(err.strip().splitlines()[-3:])))


def good(name, run):
    """run must be exit 0 with a JSON line last on stdout: the result, or None (after a FAIL)."""
    rc, out, err = run
    try:
        res = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        res = None
    check(rc == 0 and res is not None, "good/" + name, "exit %d: %s" % (rc, " | ".join((out + err).strip().splitlines()[-3:])))
    return res if rc == 0 else None


def npy_folder(path, n=200, e=2000, bad_edge=False):
    """A graph folder as the example reads ogbn-products: edge_index.npy [2, E], x.npy [N, F], y.npy [N, 1]."""
    os.makedirs(path, exist_ok=True)
    rng = np.random.default_rng(3)
    ei = rng.integers(0, n, (2, e)).astype(np.int64)
    if bad_edge:
        ei[0, 7] = n  # a vertex that is not there
    np.save(os.path.join(path, "edge_index.npy"), ei)
    np.save(os.path.join(path, "x.npy"), rng.standard_normal((n, 6)).astype(np.float32))
    np.save(os.path.join(path, "y.npy"), rng.integers(0, 3, (n, 1)).astype(np.int64))
    return path
