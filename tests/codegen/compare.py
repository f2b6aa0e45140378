#!/usr/bin/python3
"""compare.py GOT REF [--tol T] [--names a,b] -- the generated code's tensors against the interpreter's.

GOT and REF are tensor text files ("tensor NAME ROWS RANK dims..." then ROWS x width values), as
`gnn-run --output/--save-grads` and `gnnc run --output/--save-outputs` write them. Every tensor
of REF (or the named ones) must be in GOT with the same shape, finite, and within T of REF in
this relative measure, per element:

    err_i = |got_i - ref_i| / max(|ref_i|, 0.1 * max_j |ref_j|)

i.e. relative to the element, except that elements below a tenth of the tensor's largest
magnitude are measured against that tenth. Why the floor: float32 arithmetic rounds each
intermediate to about 6e-8 of ITS magnitude, so a value that is the difference of much larger
terms (x_u - x_v, a projection with cancelling weights, four layers of them in EdgeConv) carries
an absolute error of about 1e-7 of those terms, not of itself: against the float64 interpreter
it can show 1e-5..1e-4 relative error with nothing wrong. An indexing or mapping bug, by
contrast, shows errors of order 1 of the tensor's scale, which this measure catches at once.
Printed for every tensor: this error and its worst element, the plain relative error
|got-ref|/|ref| over the elements at or above the floor, and the normwise error
max|got-ref| / max|ref|. Exit 1 above T (default 1e-5).

No NumPy needed: only Debian's python3.
"""
import math
import sys


def read(path):
    out = {}
    with open(path) as f:
        toks = f.read().split()
    i = 0
    while i < len(toks):
        if toks[i] == "#gnn-tensors":  # the runtime's checksum line (version 2 files): 7 tokens, also
            i += 7                     # where files were concatenated (tests/fuzz/diff/fuzz_diff.py)
            continue
        if toks[i] != "tensor":
            raise ValueError("%s: expected 'tensor' at token %d, got %r" % (path, i, toks[i]))
        name, rows, rank = toks[i + 1], int(toks[i + 2]), int(toks[i + 3])
        dims = [int(t) for t in toks[i + 4:i + 4 + rank]]
        i += 4 + rank
        n = rows
        for d in dims:
            n *= d
        vals = [float(t) for t in toks[i:i + n]]
        if len(vals) != n:
            raise ValueError("%s: tensor %s is truncated (%d of %d values)" % (path, name, len(vals), n))
        i += n
        out[name] = ((rows, tuple(dims)), vals)
    return out


def main(argv):
    tol = 1e-5
    names = None
    if "--tol" in argv:
        k = argv.index("--tol")
        tol = float(argv[k + 1])
        del argv[k:k + 2]
    # --file-floor F: the floor is also at least F x the largest magnitude of ANY tensor in REF.
    # For gradients that are zero in exact arithmetic (a softmax over equal values, whose
    # float64 reference is 1e-17 and float32 result 1e-7 of rounding): the differential fuzzer
    # (tests/fuzz/diff/fuzz_diff.py) uses it; the default 0 keeps the per-tensor measure above.
    file_floor = 0.0
    if "--file-floor" in argv:
        k = argv.index("--file-floor")
        file_floor = float(argv[k + 1])
        del argv[k:k + 2]
    # --zero-below Z (with --file-floor): only a tensor whose largest magnitude is below Z x the
    # file's is taken for zero in exact arithmetic and gets the file's floor; any other is measured
    # against its own scale alone. Without it, a gradient 1e-4 of the file's scale could be 100%
    # off unnoticed. The differential fuzzer's programs put their exact zeros below 1e-9 of the
    # file's scale (float64 references of 1e-17) and their smallest real tensors above 1e-6.
    zero_below = None
    if "--zero-below" in argv:
        k = argv.index("--zero-below")
        zero_below = float(argv[k + 1])
        del argv[k:k + 2]
    if "--names" in argv:
        k = argv.index("--names")
        names = argv[k + 1].split(",")
        del argv[k:k + 2]
    got, ref = read(argv[0]), read(argv[1])
    scale = max((abs(x) for _, vals in ref.values() for x in vals), default=0.0)
    bad = 0
    for name in (names or list(ref)):
        if name not in ref:
            print("FAIL %s: not in %s" % (name, argv[1]))
            bad += 1
            continue
        if name not in got:
            print("FAIL %s: not in %s" % (name, argv[0]))
            bad += 1
            continue
        (gs, gv), (rs, rv) = got[name], ref[name]
        if gs != rs:
            print("FAIL %s: shape %s, reference %s" % (name, gs, rs))
            bad += 1
            continue
        if not all(math.isfinite(x) for x in gv):
            print("FAIL %s: %d non-finite values" % (name, sum(not math.isfinite(x) for x in gv)))
            bad += 1
            continue
        big = max((abs(x) for x in rv), default=0.0)
        zero = zero_below is None or big < zero_below * scale
        floor = max(0.1 * big, file_floor * scale if zero else 0.0)
        worst, wi, plain, absmax = 0.0, 0, 0.0, 0.0
        for i, (a, b) in enumerate(zip(gv, rv)):
            d = abs(a - b)
            absmax = max(absmax, d)
            e = d / max(abs(b), floor) if max(abs(b), floor) > 0 else d
            if e > worst:
                worst, wi = e, i
            if abs(b) >= floor and abs(b) > 0:
                plain = max(plain, d / abs(b))
        norm = absmax / big if big > 0 else absmax
        ok = worst <= tol
        bad += not ok
        print("%s %s: max err %.3g (relative, floor %.3g), plain relative %.3g, normwise %.3g; "
              "worst element %d: got %.9g ref %.12g" % ("ok  " if ok else "FAIL", name, worst, floor, plain, norm, wi,
                                                        gv[wi] if gv else 0, rv[wi] if rv else 0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
