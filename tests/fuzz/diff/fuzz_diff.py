#!/usr/bin/python3
"""fuzz_diff.py -- differential fuzzing of the whole compiler (Csmith-style).

    fuzz_diff.py --gnnc build/gnnc --seconds 300 [--seed N] [--keep tests/fuzz/diff/cases]
    fuzz_diff.py --gnnc build/gnnc --replay FILE.gnn...

Each iteration draws a random *well-typed* .gnn program from a seed: a model whose body is a
chain of statements mixing the language's operators -- projections with 2- and 3-dimensional
parameters (heads), x[src]/x[dst], sum/mean/max/min, edge_softmax, element-wise functions,
+ - * / with prefix broadcasting and biases, concat, dot, flatten, mean_heads/sum_heads, repeat,
degrees, dropout -- over vertex and edge values of small random shapes, returning a vertex or an
edge value. The program then runs twice on a small graph, in training mode (dropout on, masks
from the seed), forward and backward, and twice more forward only, not training:

  1. the float64 interpreter: gnnc run --train --save-params/--save-inputs/--save-outputs;
  2. the host library: gnnc --target=host --mapping=vertex|edge -o lib.so, then gnn-run with
     the interpreter's parameters and inputs, --train --save-grads;

and the output and every parameter's gradient are compared (gnn-compare's measure, beside gnn-run,
1e-4); then the output of a forward not training (the same two, without --train: dropout the
identity, the library's inference path). A program gnnc rejects is a generator bug or a compiler bug: it is reported too. A
mismatch is minimised -- the model is cut to the earliest statement whose value still
disagrees (or is still rejected), returned directly, with every statement it does not depend on
removed -- and kept in
the --keep folder (each file's first line says how to reproduce it: graph, seed, mapping).

--cuda: each program also goes through the CUDA emitter and nvcc (device code only, --cubin for
one arch: ptxas runs, so shared memory past 48 KB, registers and syntax are checked; nothing
runs, no GPU needed), and its first vertex input is wide (WIDE_MIN..WIDE_MAX features, padded
with zeros past the graph's own columns; an edge input drawn as wide as it, so x[src] + w), so
that values of the width of real features (Cora's 1,433) reach the fused kernels' registers and
shared memory. A .cu that does not compile is a finding of its own ("cuda").

--replay runs the same comparison on kept files (make test does, tests/suites/fuzz.sh): each
must agree, unless its header says `expect: mismatch` (a known bug, documented in the file),
which must still disagree -- so a fix shows up and the file's note gets updated.

Prints one line per finding and a summary: programs generated, compiled, compared, agreeing,
mismatching, rejected. Needs Debian's python3 only.
"""
import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GRAPHS = ["tests/interp/graphs/random", "tests/interp/graphs/isolated", "tests/interp/graphs/duplicates",
          "tests/interp/graphs/selfloops", "tests/interp/graphs/pointcloud"]
# --pieces: graphs with a hub cut into pieces (gnnc --split-hubs: rows of more than 32 in-edges):
# `hub`'s 2,001 in-edges in 63 pieces, hub10k's 10,003 in 313
PIECE_GRAPHS = ["tests/interp/graphs/hub", "tests/codegen/graphs/hub10k"]


# --tiles: every program compiled with --tile-columns=TILE_COLUMNS (the generated widths are small:
# 4 tiles a walk that gathers 8 or 12 columns)
TILE_COLUMNS = 2

# --spread: every program compiled with --dots=spread (the CUDA target's form of the dots a fused
# kernel per row computes, the lanes sharing the reduced dim: docs/kernel-ir.md), on the host
# --spmm: every program compiled with --spmm=cusparse (plain weighted sums over the edges as SpMM
# steps: on the host, the runtime's loop, gnn_spmm)


def gnnc_mapping(mapping):
    """gnnc's flags for a mapping as the cases name it: vertex, edge, or either + "+pieces", "+tiles", "+spread" or "+spmm"."""
    base, _, extra = mapping.partition("+")
    return ["--mapping=" + base] + (["--split-hubs"] if extra == "pieces" else []) + \
        (["--tile-columns=%d" % TILE_COLUMNS] if extra == "tiles" else []) + (["--dots=spread"] if extra == "spread" else []) + \
        (["--spmm=cusparse"] if extra == "spmm" else [])


def features_width(graph):
    """A folder with features.svm fixes the width of the first vertex input (gnnc run uses them)."""
    path = os.path.join(ROOT, graph, "features.svm")
    if not os.path.exists(path):
        return None
    width = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            for tok in line.split()[1:]:
                width = max(width, int(tok.split(":")[0]))
    return width
TOL = "1e-4"
# --cuda: the first vertex input's width (the graphs' features are padded with zeros up to it), and
# nvcc's target (one arch keeps the time down; shared memory is limited to 48 KB on every one)
WIDE_MIN, WIDE_MAX = 1024, 3072
CUDA_ARCH = "sm_80"
# gnn-compare --file-floor: errors are measured against at least 10% of the largest reference value
# in the file, so a gradient that is zero in exact arithmetic (float64 1e-17, float32 1e-7 of
# rounding) is not a finding; a real bug is off by the scale of the values, far above it.
FILE_FLOOR = "0.1"
# ... but only for a tensor whose own scale is below 1e-6 of the file's (zero in exact arithmetic);
# every other tensor is measured against its own scale (gnn-compare --zero-below). Measured over
# 3,300 tensors of 790 programs (all four modes): exact zeros below 1e-9 of the file's scale, none
# between 1e-9 and 1e-6, and the 177 between 1e-6 and 0.1 within 7.4e-6 of their own scale.
ZERO_BELOW = "1e-6"


# ---------------------------------------------------------------- the generator

class Val:
    def __init__(self, name, dom, shape, deps):
        self.name, self.dom, self.shape, self.deps = name, dom, tuple(shape), set(deps)


def shape_text(s):
    return "[" + ", ".join(str(d) for d in s) + "]"


# Layers the generator may call (each instantiated with a generic width): their parameters get
# the layer's prefix (gc0.W, ...), which exercises instantiation and parameter naming.
LAYERS = {
    "GC": "layer GC<D>(x: vertex[F]) -> vertex[D] {\n  param W: [F, D]\n  c = rsqrt(out_deg[src] * in_deg[dst])\n"
          "  return sum(c * (W @ x[src]))\n}\n",
    "SG": "layer SG<D>(x: vertex[F]) -> vertex[D] {\n  param Ws: [F, D]\n  param Wn: [F, D]\n"
          "  return Ws @ x + Wn @ mean(x[src])\n}\n",
    "AT": "layer AT<H, D>(x: vertex[F]) -> vertex[H, D] {\n  param W: [F, H, D]\n  param a: [H, 2*D]\n"
          "  e = leaky_relu(dot(a, concat(W @ x[src], W @ x[dst])), 0.2)\n  return sum(edge_softmax(e) * (W @ x[src]))\n}\n",
    # GAT's attention dropout: the aggregate's weights are hoisted, and its float64 sum adds float
    # messages from their float copy when not training (lower_walk.c, chunk_partial_untrained), a
    # path the statements alone rarely build
    "AD": "layer AD<H, D>(x: vertex[F]) -> vertex[H, D] {\n  param W: [F, H, D]\n  param a: [H, 2*D]\n"
          "  e = leaky_relu(dot(a, concat(W @ x[src], W @ x[dst])), 0.2)\n"
          "  return sum(dropout(edge_softmax(e), 0.5) * (W @ x[src]))\n}\n",
}


class Program:
    """A model: inputs, params, statements (name, expr, deps), and the value returned. A dep
    "PL_NAME" is a call of layer NAME (whose parameters count as the statement's)."""

    def __init__(self):
        self.inputs = []   # (name, dom, shape)
        self.params = []   # (name, shape)
        self.stmts = []    # (name, text, deps, dom, shape)
        self.ret = None

    def text(self, ret=None, header=""):
        ret = ret if ret is not None else self.ret
        by_name = {s[0]: s for s in self.stmts}
        need, todo = set(), [ret]
        while todo:  # the statements ret depends on, transitively
            n = todo.pop()
            if n in by_name and n not in need:
                need.add(n)
                todo.extend(by_name[n][2])
        used_params, used_layers = set(), set()
        for s in self.stmts:
            if s[0] in need:
                used_params |= {d for d in s[2] if d.startswith("P") and not d.startswith("PL_")}
                used_layers |= {d[3:] for d in s[2] if d.startswith("PL_")}
        r = by_name[ret]
        lines = [header] if header else []
        lines += [LAYERS[n] for n in sorted(used_layers)]
        ins = ", ".join("%s: %s%s" % (n, d, shape_text(s)) for n, d, s in self.inputs)
        lines.append("model Fuzz(%s) -> %s%s {" % (ins, r[3], shape_text(r[4])))
        for n, s in self.params:
            if n in used_params:
                lines.append("  param %s: %s" % (n, shape_text(s)))
        for s in self.stmts:
            if s[0] in need:
                lines.append("  %s = %s" % (s[0], s[1]))
        lines.append("  return %s" % ret)
        lines.append("}")
        return "\n".join(lines) + "\n"


class Gen:
    def __init__(self, seed, graph, wide=False, spread=False):
        self.r = random.Random(seed)
        self.spread = spread  # projections 16..40 wide at times (heads of them): dots over 16 or more
        self.p = Program()
        self.vals = []
        self.nparam = 0
        self.nstmt = 0
        r = self.r
        f = features_width(graph) or r.randint(1, 4)
        self.wide = wide
        if wide:  # (drawn from a stream of its own: the rest of the program is the narrow one's)
            f = random.Random(seed ^ 0x3d1de).randint(max(f, WIDE_MIN), WIDE_MAX)
        self.add_input("x", "vertex", (f,))
        if r.random() < 0.3:
            self.add_input("y", "vertex", (r.randint(1, 3),))
        if r.random() < 0.3:
            self.add_input("w", "edge", (f,) if wide else r.choice([(), (2,), (r.randint(1, 3),)]))

    def add_input(self, name, dom, shape):
        self.p.inputs.append((name, dom, shape))
        self.vals.append(Val(name, dom, shape, []))

    def param(self, shape):
        self.nparam += 1
        n = "P%d" % self.nparam
        self.p.params.append((n, tuple(shape)))
        return n

    def stmt(self, text, deps, dom, shape):
        self.nstmt += 1
        n = "t%d" % self.nstmt
        deps = set(deps)
        self.p.stmts.append((n, text, deps, dom, tuple(shape)))
        v = Val(n, dom, shape, deps)
        self.vals.append(v)
        return v

    def pick(self, pred=lambda v: True):
        c = [v for v in self.vals if pred(v)]
        if not c:
            return None
        # prefer recent values: chains get deep
        return c[-1] if self.r.random() < 0.5 else self.r.choice(c)

    # each op returns a new Val or None (not applicable)
    def op_proj(self):
        v = self.pick(lambda v: len(v.shape) >= 1 and len(v.shape) <= 2)
        if not v:
            return None
        k = v.shape[-1]
        out = self.r.choice([(self.r.randint(1, 4),), (self.r.randint(1, 3), self.r.randint(1, 3))])
        if self.spread and self.r.random() < 0.5:
            out = self.r.choice([(self.r.randint(16, 40),), (self.r.randint(1, 3), self.r.randint(16, 40))])
        if len(v.shape) - 1 + len(out) > 3:
            out = out[:1]
        W = self.param((k,) + out)
        return self.stmt("%s @ %s" % (W, v.name), [v.name, W], v.dom, v.shape[:-1] + out)

    def op_gather(self):
        v = self.pick(lambda v: v.dom == "vertex")
        if not v:
            return None
        side = self.r.choice(["src", "dst"])
        return self.stmt("%s[%s]" % (v.name, side), [v.name], "edge", v.shape)

    def op_reduce(self):
        v = self.pick(lambda v: v.dom == "edge")
        if not v:
            return None
        f = self.r.choice(["sum", "mean", "max", "min", "sum"])
        if self.r.random() < 0.25:  # over out-edges, by the source: the backward's walks by CSC, max_out's ties
            f += "_out"
        return self.stmt("%s(%s)" % (f, v.name), [v.name], "vertex", v.shape)

    def op_unary(self):
        v = self.pick()
        f = self.r.choice(["relu(%s)", "leaky_relu(%s, 0.2)", "elu(%s)", "tanh(%s)", "sigmoid(%s)", "abs(%s)", "-%s",
                           "exp(tanh(%s))", "log(abs(%s) + 1)", "sqrt(abs(%s) + 1)", "rsqrt(abs(%s) + 1)"])
        return self.stmt(f % v.name, [v.name], v.dom, v.shape)

    def op_binary(self):
        a = self.pick()
        r = self.r
        kind = r.random()
        if kind < 0.25:  # a literal
            c = r.choice(["0.5", "2", "1.5", "-1"])
            op = r.choice(["+", "-", "*"])
            return self.stmt("%s %s %s" % (a.name, op, c) if r.random() < 0.5 else "%s %s %s" % (c, op, a.name),
                             [a.name], a.dom, a.shape)
        if kind < 0.45 and a.shape:  # a bias, a prefix of the shape
            b = self.param(a.shape[:r.randint(1, len(a.shape))])
            return self.stmt("%s %s %s" % (a.name, r.choice(["+", "-", "*"]), b), [a.name, b], a.dom, a.shape)
        # two values of one domain; b's shape a prefix of a's
        b = self.pick(lambda v: v.dom == a.dom and v.shape == a.shape[:len(v.shape)] and v.name != a.name)
        if not b:
            return None
        op = r.choice(["+", "-", "*", "/"])
        if op == "/":
            return self.stmt("%s / (abs(%s) + 1)" % (a.name, b.name), [a.name, b.name], a.dom, a.shape)
        return self.stmt("%s %s %s" % (a.name, op, b.name), [a.name, b.name], a.dom, a.shape)

    def op_softmax(self):
        v = self.pick(lambda v: v.dom == "edge")
        if not v:
            return None
        return self.stmt("edge_softmax(%s)" % v.name, [v.name], "edge", v.shape)

    def op_dropout(self):
        v = self.pick()
        return self.stmt("dropout(%s, %s)" % (v.name, self.r.choice(["0.5", "0.2", "0.1"])), [v.name], v.dom, v.shape)

    def op_concat(self):
        a = self.pick(lambda v: len(v.shape) >= 1)
        if not a:
            return None
        b = self.pick(lambda v: v.dom == a.dom and len(v.shape) == len(a.shape) and v.shape[:-1] == a.shape[:-1])
        if not b:
            return None
        return self.stmt("concat(%s, %s)" % (a.name, b.name), [a.name, b.name], a.dom, a.shape[:-1] + (a.shape[-1] + b.shape[-1],))

    def op_dot(self):
        v = None
        if self.spread:  # over 16 or more, at most 4 outputs: split_reduce_len's dots
            v = self.pick(lambda v: len(v.shape) >= 1 and v.shape[-1] >= 16 and math.prod(v.shape[:-1]) <= 4)
        v = v or self.pick(lambda v: len(v.shape) >= 1)
        if not v:
            return None
        a = self.param(v.shape)
        return self.stmt("dot(%s, %s)" % (a, v.name), [a, v.name], v.dom, v.shape[:-1])

    def op_shape(self):
        v = self.pick()
        r = self.r
        c = r.random()
        if c < 0.3:
            n = 1
            for d in v.shape:
                n *= d
            return self.stmt("flatten(%s)" % v.name, [v.name], v.dom, (n,))
        if c < 0.6 and len(v.shape) >= 1:
            return self.stmt("%s(%s)" % (r.choice(["mean_heads", "sum_heads"]), v.name), [v.name], v.dom, v.shape[1:])
        if len(v.shape) <= 1:
            n = r.randint(1, 3)
            return self.stmt("repeat(%s, %d)" % (v.name, n), [v.name], v.dom, (n,) + v.shape)
        return None

    def op_degree(self):
        v = self.pick(lambda v: v.dom == "vertex")
        r = self.r
        if v and r.random() < 0.5:
            return self.stmt("%s * rsqrt(%s + 1)" % (v.name, r.choice(["in_deg", "out_deg"])), [v.name], "vertex", v.shape)
        e = self.pick(lambda v: v.dom == "edge")
        if not e:
            return None
        return self.stmt("%s * rsqrt(out_deg[src] * in_deg[dst] + 1)" % e.name, [e.name], "edge", e.shape)

    def op_global(self):
        """Parameter arithmetic (the global domain) broadcast over a value: v * (Pa * Pb + 1)."""
        a = self.pick(lambda v: len(v.shape) >= 1)
        if not a:
            return None
        pre = a.shape[:self.r.randint(1, len(a.shape))]
        p1, p2 = self.param(pre), self.param(pre)
        return self.stmt("%s * (%s * %s + 1)" % (a.name, p1, p2), [a.name, p1, p2], a.dom, a.shape)

    def op_layer(self):
        v = self.pick(lambda v: v.dom == "vertex" and len(v.shape) == 1)
        if not v:
            return None
        name = self.r.choice(sorted(LAYERS))
        if name in ("AT", "AD"):
            h, d = self.r.randint(1, 3), self.r.randint(1, 3)
            return self.stmt("%s<%d, %d>(%s)" % (name, h, d, v.name), [v.name, "PL_" + name], "vertex", (h, d))
        d = self.r.randint(1, 4)
        return self.stmt("%s<%d>(%s)" % (name, d, v.name), [v.name, "PL_" + name], "vertex", (d,))

    def wide_start(self):
        """--cuda: a reduction over the neighbours' wide features first (GIN's, GINE's with the edge
        input, GraphSAGE-pool's), often read element-wise after it, as a vertex value of the full
        width that the next statements (recent values are preferred) go on from."""
        r, x = self.r, self.vals[0]
        e = self.stmt("%s[src]" % x.name, [x.name], "edge", x.shape)
        w = [v for v in self.vals if v.name == "w"]
        if w and r.random() < 0.7:
            e = self.stmt("%s + %s" % (e.name, w[0].name), [e.name, "w"], "edge", x.shape)
        if r.random() < 0.5:
            e = self.stmt(r.choice(["relu(%s)", "tanh(%s)", "-%s"]) % e.name, [e.name], "edge", x.shape)
        v = self.stmt("%s(%s)" % (r.choice(["sum", "mean", "max", "min", "sum"]), e.name), [e.name], "vertex", x.shape)
        c = r.random()
        if c < 0.4:
            self.stmt("%s + %s" % (x.name, v.name), [x.name, v.name], "vertex", x.shape)
        elif c < 0.7:
            self.stmt(r.choice(["relu(%s)", "elu(%s)", "%s * 0.5"]) % v.name, [v.name], "vertex", x.shape)

    def generate(self, nstmts):
        ops = [(self.op_proj, 5), (self.op_gather, 4), (self.op_reduce, 4), (self.op_unary, 3), (self.op_binary, 3),
               (self.op_softmax, 2), (self.op_dropout, 1), (self.op_concat, 1), (self.op_dot, 1), (self.op_shape, 1),
               (self.op_degree, 1), (self.op_global, 1), (self.op_layer, 2)]
        if self.spread:  # dots (over the wide projections) in kernels per row
            ops.append((self.op_dot, 5))
        total = sum(w for _, w in ops)
        if self.wide:
            self.wide_start()
        self.op_proj()  # at least one parameter: something to differentiate
        tries = 0
        while self.nstmt < nstmts and tries < nstmts * 20:
            tries += 1
            x = self.r.uniform(0, total)
            for f, w in ops:
                x -= w
                if x <= 0:
                    f()
                    break
        # return a vertex value that depends on a parameter if there is one, else the last value
        cands = [s for s in self.p.stmts if self._has_param(s[0])]
        vcands = [s for s in cands if s[3] == "vertex"]
        pool = vcands if vcands and self.r.random() < 0.8 else cands
        self.p.ret = pool[-1][0]
        return self.p

    def _has_param(self, name):
        by = {s[0]: s for s in self.p.stmts}
        todo, seen = [name], set()
        while todo:
            n = todo.pop()
            if n.startswith("P"):
                return True
            if n in by and n not in seen:
                seen.add(n)
                todo.extend(by[n][2])
        return False


# ---------------------------------------------------------------- running one program

def sh(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, cwd=ROOT)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "timed out"


def cuda_compiles(gnnc, gnn, mapping, work):
    """'' when the program's CUDA source compiles with nvcc (device code for CUDA_ARCH, through
    ptxas), else what went wrong."""
    cu = os.path.join(work, "p.cu")
    rc, out = sh([gnnc, gnn] + gnnc_mapping(mapping) + ["--emit=cu", "-o", cu])
    if rc != 0:
        return "gnnc --emit=cu (the interpreter accepted it): " + out.strip()[-400:]
    rc, out = sh(["nvcc", "-std=c++17", "--cubin", "-arch=" + CUDA_ARCH, "-I" + os.path.join(ROOT, "runtime"), cu,
                  "-o", os.path.join(work, "p.cubin")], timeout=300)
    if rc != 0:
        return "nvcc --cubin -arch=%s: %s" % (CUDA_ARCH, out.strip()[-400:])
    return ""


def compare(gnnc, gnn_run, src, graph, seed, mapping, work, cuda=False):
    """('agree' | 'mismatch' | 'rejected' | 'error' | 'cuda', detail) for one program text."""
    gnn = os.path.join(work, "p.gnn")
    with open(gnn, "w") as f:
        f.write(src)
    b = os.path.join(work, "r")
    rc, out = sh([gnnc, "run", gnn, "--graph", graph, "--seed", str(seed), "--train", "--save-params", b + ".params",
                  "--save-inputs", b + ".inputs", "--save-outputs", b + ".ref"])
    if rc != 0:
        return "rejected", "gnnc run: " + out.strip()[-400:]
    if cuda:
        why = cuda_compiles(gnnc, gnn, mapping, work)
        if why:
            return "cuda", why
    lib = os.path.join(work, "lib.so")
    rc, out = sh([gnnc, gnn, "--target=host"] + gnnc_mapping(mapping) + ["-o", lib])
    if rc != 0:
        return "error", "gnnc -o lib.so (the interpreter accepted it): " + out.strip()[-400:]
    rc, out = sh([gnn_run, lib, "--graph", graph, "--params", b + ".params", "--inputs", b + ".inputs", "--seed", str(seed),
                  "--train", "--save-grads", b + ".got", "--output", b + ".out", "--repeat", "1", "--warmup", "0"])
    if rc != 0:
        return "error", "gnn-run: " + out.strip()[-400:]
    with open(b + ".out") as f, open(b + ".got", "a") as g:
        g.write(f.read().replace("tensor output ", "tensor out ", 1))
    rc, out = sh([os.path.join(os.path.dirname(gnn_run), "gnn-compare"), b + ".got", b + ".ref", "--tol", TOL, "--file-floor", FILE_FLOOR, "--zero-below", ZERO_BELOW])
    if rc != 0:
        return "mismatch", "\n".join(l for l in out.splitlines() if l.startswith("FAIL") or "missing" in l)[-600:]
    # the forward not training (dropout the identity), same parameters and inputs: the library's
    # own inference path (an attention's f64 sum adds float messages there, lower_walk.c)
    # (the training run's file: its seed grad.out is left unread by a forward)
    rc, out = sh([gnnc, "run", gnn, "--graph", graph, "--seed", str(seed), "--params", b + ".params", "--inputs", b + ".inputs",
                  "--output", b + ".iref"])
    if rc != 0:
        return "error", "gnnc run, not training (training ran): " + out.strip()[-400:]
    rc, out = sh([gnn_run, lib, "--graph", graph, "--params", b + ".params", "--inputs", b + ".inputs", "--output", b + ".iout",
                  "--repeat", "1", "--warmup", "0"])
    if rc != 0:
        return "error", "gnn-run, not training: " + out.strip()[-400:]
    rc, out = sh([os.path.join(os.path.dirname(gnn_run), "gnn-compare"), b + ".iout", b + ".iref", "--tol", TOL, "--file-floor", FILE_FLOOR, "--zero-below", ZERO_BELOW])
    if rc != 0:
        return "mismatch", "not training: " + "\n".join(l for l in out.splitlines() if l.startswith("FAIL") or "missing" in l)[-600:]
    return "agree", ""


def minimise(gnnc, gnn_run, prog, graph, seed, mapping, work, want, cuda=False):
    """The earliest statement whose value, returned directly (with only the statements it depends
    on kept), still gives the same finding (a mismatch, a rejection, an error)."""
    for s in prog.stmts:
        if s[0] == prog.ret:
            break
        status, _ = compare(gnnc, gnn_run, prog.text(s[0]), graph, seed, mapping, work, cuda)
        if status == want:
            return s[0]
    return prog.ret


def header_of(path):
    with open(path) as f:
        for line in f:
            if line.startswith("# fuzz-diff:"):
                kv = dict(t.split("=", 1) for t in line[len("# fuzz-diff:"):].split() if "=" in t)
                return kv
    return None


def replay(args):
    bad = 0
    work = tempfile.mkdtemp(prefix="fuzzdiff-")
    try:
        for path in args.replay:
            kv = header_of(path)
            if not kv:
                print("FAIL %s: no '# fuzz-diff: graph=... seed=... mapping=...' line" % path)
                bad += 1
                continue
            with open(path) as f:
                src = f.read()
            status, detail = compare(args.gnnc, args.gnn_run, src, kv["graph"], int(kv["seed"]), kv["mapping"], work,
                                     kv.get("cuda") == "1")
            if args.verbose and detail:
                print(detail)
            want = kv.get("expect", "agree")
            name = os.path.basename(path)
            if status == want:
                print("ok %s (%s)" % (name, status))
            else:
                print("FAIL %s: %s, expected %s: %s" % (name, status, want, detail.replace("\n", " | ")))
                bad += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gnnc", default=os.path.join(ROOT, "build/gnnc"))
    ap.add_argument("--gnn-run", default=os.path.join(ROOT, "build/bin/gnn-run"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--max-programs", type=int, default=0)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", default=os.path.join(ROOT, "tests/fuzz/diff/cases"))
    ap.add_argument("--replay", nargs="*")
    ap.add_argument("--print", action="store_true", help="print the programs as they are generated")
    ap.add_argument("-v", "--verbose", action="store_true", help="print what gnn-compare found")
    ap.add_argument("--pieces", action="store_true",
                    help="every program compiled with --split-hubs, on a graph with a hub (%s)" % ", ".join(PIECE_GRAPHS))
    ap.add_argument("--tiles", action="store_true",
                    help="every program compiled with --tile-columns=%d (walks in column tiles)" % TILE_COLUMNS)
    ap.add_argument("--spread", action="store_true",
                    help="every program compiled with --dots=spread (dots spread over the lanes, as for CUDA)")
    ap.add_argument("--spmm", action="store_true",
                    help="every program compiled with --spmm=cusparse (plain weighted sums as SpMM steps)")
    ap.add_argument("--cuda", action="store_true",
                    help="wide inputs (%d..%d features), and compile each program's CUDA with nvcc" % (WIDE_MIN, WIDE_MAX))
    args = ap.parse_args()
    args.gnnc, args.gnn_run = os.path.abspath(args.gnnc), os.path.abspath(args.gnn_run)
    if args.replay is not None:
        return replay(args)
    os.makedirs(args.keep, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fuzzdiff-")
    counts = {"generated": 0, "agree": 0, "mismatch": 0, "rejected": 0, "error": 0, "cuda": 0}
    t_end = time.time() + args.seconds
    n = 0
    try:
        while time.time() < t_end and (not args.max_programs or n < args.max_programs):
            seed = args.seed + n
            n += 1
            r = random.Random(seed)
            graph = r.choice(PIECE_GRAPHS if args.pieces else GRAPHS)
            mapping = r.choice(["vertex", "edge"]) + ("+pieces" if args.pieces else "+tiles" if args.tiles else "+spread" if args.spread
                                                    else "+spmm" if args.spmm else "")
            prog = Gen(seed, graph, args.cuda, args.spread).generate(r.randint(3, 12))
            counts["generated"] += 1
            src = prog.text()
            if args.print:
                print(src)
            status, detail = compare(args.gnnc, args.gnn_run, src, graph, seed, mapping, work, args.cuda)
            counts[status] += 1
            if status == "agree":
                continue
            small = minimise(args.gnnc, args.gnn_run, prog, graph, seed, mapping, work, status, args.cuda)
            hdr = "# fuzz-diff: graph=%s seed=%d mapping=%s expect=%s%s" % (graph, seed, mapping, status,
                                                                          " cuda=1" if args.cuda else "")
            path = os.path.join(args.keep, "%s-%d.gnn" % (status, seed))
            with open(path, "w") as f:
                f.write(prog.text(small, hdr + "\n# " + detail.replace("\n", "\n# ")[:2000]))
            print("%s: seed %d (%s, %s) -> %s" % (status, seed, graph, mapping, path), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("programs %d: agree %d, mismatch %d, rejected by gnnc %d, errors %d%s (seeds %d..%d)" % (
        counts["generated"], counts["agree"], counts["mismatch"], counts["rejected"], counts["error"],
        ", CUDA failing to compile %d" % counts["cuda"] if args.cuda else "", args.seed, args.seed + n - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
