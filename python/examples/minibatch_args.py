"""python/examples/minibatch_args.py -- the option types of the mini-batch example, shared by bench/sampler.py.

minibatch_sage.py and bench/sampler.py read the same options the same way (a graph spec, a
fan-out, counts with a lower bound, the gnnc binary, a work folder), and refuse a bad one as
argparse does: one line "PROG: error: ..." on stderr and exit 2, never a traceback. They live here,
apart from the example, because this file imports neither torch nor numpy: bench/sampler.py sets
OMP_NUM_THREADS from its options before torch loads (torch brings libgomp, which reads the
variable once, when it loads), so it parses its options before it imports the example.

The types raise argparse.ArgumentTypeError (argparse prefixes "argument --NAME: "); what is found
after parsing raises Refused, which the scripts print with parser.error. The checks that take the
parser call parser.error themselves.
"""
import argparse
import os


class Refused(Exception):
    """A bad option or input, found after argparse: main prints it as argparse does (exit 2)."""


NPY_FILES = ("edge_index.npy", "x.npy", "y.npy")
MIN_VERTICES = 10  # a tenth trains and a tenth tests: at least one vertex each
MAX_VERTICES = 2**31 - 1  # the CSR's int32 sources and the runtime's int32 ids


def gen_size(spec):
    """gen:N,E as (N, E): counts written as integers or as integral floats (2e6), N in 10 .. 2^31 - 1, E >= 0."""
    parts = spec[4:].split(",")
    if len(parts) != 2:
        raise Refused("%r: gen:N,E takes two counts, vertices and edges (e.g. gen:20000,400000)" % spec)
    out = []
    for name, v, lo, hi in (("N", parts[0], MIN_VERTICES, MAX_VERTICES), ("E", parts[1], 0, 2**62)):
        try:
            k = int(v)
        except ValueError:
            try:
                f = float(v)
            except ValueError:
                f = None
            if f is None or not f.is_integer():
                raise Refused("%r: %s = %r is not a count" % (spec, name, v.strip())) from None
            k = int(f)
        if not lo <= k <= hi:
            raise Refused("%r: %s = %d is out of range (%d .. %d%s)" % (
                spec, name, k, lo, hi, ": a tenth of the vertices trains, a tenth tests" if name == "N" else ""))
        out.append(k)
    return tuple(out)


def int_arg(lo, hi=None, meaning=""):
    """An argparse type: an integer in lo .. hi (hi None: no bound); meaning says what it counts in the message."""
    def parse(v):
        try:
            k = int(v)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not an integer%s" % (v, meaning)) from None
        if k < lo or (hi is not None and k > hi):
            raise argparse.ArgumentTypeError("%d is out of range: %s%s" % (
                k, ("an integer >= %d" % lo) if hi is None else ("%d .. %d" % (lo, hi)), meaning))
        return k
    return parse


def lr_arg(v):
    try:
        f = float(v)
    except ValueError:
        f = None
    if f is None or not (0 < f < float("inf")):
        raise argparse.ArgumentTypeError("%r is not a learning rate (a finite number > 0)" % v)
    return f


def fanout_arg(v):
    """--fanout K1,K2,...: each hop's in-edges kept per vertex, >= 1, or -1 (or all) for every in-edge
    (the runtime's sampler: any k < 0; 0 would keep none: the hop would add nothing); 1 to 64 hops."""
    hops = v.split(",")
    if not 1 <= len(hops) <= 64:
        raise argparse.ArgumentTypeError("%d hops: 1 to 64 (the runtime's sampler's limit)" % len(hops))
    out = []
    for h, k in enumerate(hops):
        try:
            n = -1 if k.strip() == "all" else int(k)
        except ValueError:
            n = None
        if n is None or not (n == -1 or 1 <= n <= 2**31 - 1):
            raise argparse.ArgumentTypeError(
                "hop %d of %r is %r: each hop keeps 1 .. 2^31 - 1 in-edges per vertex, or -1 (all) for every "
                "in-edge, comma-separated (e.g. 15,10; -1 as --fanout=-1,10)" % (h + 1, v, k.strip()))
        out.append(n)
    return out


def graph_arg(spec):
    """gen:N,E (checked here), or a folder that holds the three .npy files (their contents checked when loaded)."""
    if spec.startswith("gen:"):
        try:
            gen_size(spec)
        except Refused as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return spec
    if not os.path.isdir(spec):
        raise argparse.ArgumentTypeError("%r is neither gen:N,E (a generated graph) nor a folder (%s)" % (
            spec, "no such file or folder" if not os.path.exists(spec) else "not a folder"))
    missing = [f for f in NPY_FILES if not os.path.isfile(os.path.join(spec, f))]
    if missing:
        raise argparse.ArgumentTypeError("the folder %s has no %s (a graph folder holds %s: ogbn-products as .npy)" % (
            spec, " and no ".join(missing), ", ".join(NPY_FILES)))
    return spec


def check_gnnc(p, path):
    """Refuses (p.error) a --gnnc that is not an executable file: found now, not when the model compiles."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        p.error("--gnnc %s: %s (make builds build/gnnc)" % (
            path, "not an executable file" if os.path.exists(path) else "no such file"))


def make_folder(p, name, path):
    """Makes the folder of option --name (with its parents), or refuses it (p.error): a file there, or no permission."""
    if os.path.exists(path) and not os.path.isdir(path):
        p.error("--%s %s: not a folder" % (name, path))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as err:
        p.error("--%s %s: %s" % (name, path, err.strerror or err))
