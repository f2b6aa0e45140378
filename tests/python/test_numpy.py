"""tests/python/test_numpy.py LIBDIR WORKDIR GNNC -- the NumPy API of the gnnc package.

LIBDIR holds libgcn_interp.so (tests/interp/models/gcn.gnn, which has dropout), libedgein.so
(tests/python/models/edgein.gnn: an edge input and an edge output), libnoentry.so (a shared
library without gnn_model_entry) and libold.so (one without gnn_model_program, as an older gnnc
built). Checks:
  - forward in training mode (dropout) and backward on the interpreter's parameters, inputs and
    seed (gnnc run --train --save-outputs) equal the interpreter's output and gradients;
  - parameters listed with names and shapes, get/set as arrays, load/save of parameter files;
  - edge inputs and outputs in the order of the edges given (a shuffled edge list), against NumPy;
  - a dataset folder (Cora) as arrays, and the same in OGB's layout (tests/runtime/make_ogb.py);
  - bad use raises (wrong shapes, unknown names, a library that is not a model, bad files);
  - a Library, Graph, Model or Sampler refuses copy.copy, copy.deepcopy and pickle (TypeError naming
    the way to a second one), and the original stays usable.
Prints "ok NAME" / "FAIL NAME: detail" lines.
"""
import ctypes
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

import gnnc

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402


def raises(exc, needle, name, fn):
    try:
        fn()
        check(False, name, "no exception")
    except exc as e:
        check(needle in str(e), name, "message %r lacks %r" % (str(e), needle))
    except Exception as e:  # noqa: BLE001 -- the wrong kind is a failure
        check(False, name, "%s: %s" % (type(e).__name__, e))


def read_tensors(path):
    """The tensor text format with rows: {name: array (rows, *dims)}."""
    toks = open(path).read().split()
    if toks[:1] == ["#gnn-tensors"]:  # the runtime's checksum line (version 2 files)
        toks = toks[7:]
    out, i = {}, 0
    while i < len(toks):
        assert toks[i] == "tensor"
        name, rows, rank = toks[i + 1], int(toks[i + 2]), int(toks[i + 3])
        dims = [int(t) for t in toks[i + 4:i + 4 + rank]]
        i += 4 + rank
        n = rows * int(np.prod(dims, dtype=np.int64))
        out[name] = np.array(toks[i:i + n], dtype=np.float64).reshape([rows] + dims)
        i += n
    return out


def rel(a, b):
    return float(np.abs(a - b).max() / max(1e-6, np.abs(b).max()))


def main():
    libdir, work, gnnc_bin = sys.argv[1], sys.argv[2], sys.argv[3]
    graph = "tests/interp/graphs/random"
    # the interpreter: parameters, inputs, out and the gradients, training mode, seed 9
    subprocess.run([gnnc_bin, "run", "tests/interp/models/gcn.gnn", "--graph", graph, "--seed", "9", "--train",
                    "--save-params", work + "/p", "--save-inputs", work + "/i", "--save-outputs", work + "/o"],
                   check=True, stdout=subprocess.DEVNULL)
    lib = gnnc.load(libdir + "/libgcn_interp.so")
    check(lib.name == "GCN" and lib.target == "host" and [t.name for t in lib.inputs] == ["x"] and lib.has_backward and
          lib.num_dropout > 0, "library/info", repr(lib))
    # the program: 16 hex digits, the one gnnc prints into the generated source for this model
    src = subprocess.run([gnnc_bin, "tests/interp/models/gcn.gnn", "--target=host", "--emit=c"], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    check(re.fullmatch("[0-9a-f]{16}", lib.program) is not None and '"%s", /* the program' % lib.program in src,
          "library/program", lib.program)
    g = lib.load_graph(graph)
    m = lib.create(g, seed=1)
    check(m.params() == [("gcnconv0.W", (5, 4)), ("gcnconv0.b", (4,)), ("gcnconv1.W", (4, 3)), ("gcnconv1.b", (3,))],
          "params/names-and-shapes", repr(m.params()))
    m.load_params(work + "/p")
    ref_p, ins, outs = read_tensors(work + "/p"), read_tensors(work + "/i"), read_tensors(work + "/o")
    check(all(np.array_equal(m[n], ref_p[n][0].astype(np.float32)) for n, _ in m.params()), "params/load-interpreter-file")
    y = m.forward(ins["x"], training=True, seed=9)
    check(rel(y, outs["out"]) < 1e-5, "forward/training-vs-interpreter", "relative error %g" % rel(y, outs["out"]))
    grads = m.backward(ins["grad.out"])
    for n, _ in m.params():
        e = rel(grads[n], outs["grad." + n][0])
        check(e < 1e-4, "backward/vs-interpreter/%s" % n, "relative error %g" % e)
    raises(gnnc.GnncError, "each backward needs its own forward", "backward/twice", lambda: m.backward(ins["grad.out"]))
    m.forward(ins["x"])
    raises(gnnc.GnncError, "needs a forward with training = 1", "backward/after-inference",
           lambda: m.backward(ins["grad.out"]))
    # get/set, save/load
    w = np.arange(20, dtype=np.float32).reshape(5, 4) / 10
    m["gcnconv0.W"] = w
    check(np.array_equal(m["gcnconv0.W"], w), "params/set-get")
    m.save_params(work + "/saved")
    m2 = lib.create(g, seed=5)
    m2.load_params(work + "/saved")
    check(all(np.array_equal(m2[n], m[n]) for n, _ in m.params()), "params/save-load-round-trip")
    init = lib.initial_params(5)
    m3 = lib.create(g, seed=5)
    check(all(np.array_equal(init[n], m3[n]) for n, _ in m.params()), "params/initial-equals-create")
    raises(ValueError, "has shape (5, 4), got (4, 5)", "params/set-wrong-shape", lambda: m.set_param("gcnconv0.W", w.T))
    raises(ValueError, "finite", "params/set-nan", lambda: m.set_param("gcnconv0.b", np.array([0, np.nan, 0, 0])))
    raises(KeyError, "no parameter 'nope'", "params/unknown-name", lambda: m["nope"])
    with open(work + "/bad", "w") as f:
        f.write(open(work + "/saved").read().replace("tensor gcnconv1.b 1 1 3", "tensor gcnconv1.b 1 1 3 extra"))
    raises(gnnc.GnncError, "GNN_ERR_FORMAT", "params/load-bad-file", lambda: m2.load_params(work + "/bad"))
    check(all(np.array_equal(m2[n], m[n]) for n, _ in m.params()), "params/bad-file-changes-nothing")
    # a GnncError survives pickling (a DataLoader or multiprocessing worker sends it to its parent)
    try:
        m2.load_params(work + "/bad")
    except gnnc.GnncError as e:
        import pickle
        try:
            back = pickle.loads(pickle.dumps(e))
            check(type(back) is gnnc.GnncError and str(back) == str(e) and back.status == e.status, "errors/pickle",
                  "%r became %r" % (e, back))
        except Exception as pe:  # noqa: BLE001 -- failing to pickle is the failure
            check(False, "errors/pickle", "%s: %s" % (type(pe).__name__, pe))
    raises(ValueError, "want shape (40, 5), got (40, 4)", "forward/wrong-input-shape", lambda: m.forward(np.zeros((40, 4))))
    raises(TypeError, "takes 1 inputs", "forward/wrong-input-count", lambda: m.forward())
    # a capacity past the runtime's counts: refused (its byte counts wrapped, and a forward wrote past
    # the output); one past int64 before ctypes wraps it
    raises(gnnc.GnncError, "each count must be in 0 .. 2^31", "reserve/too-large", lambda: m.reserve(2**62, 10))
    raises(ValueError, "num_edges = 18446744073709551617 is out of range", "reserve/wraps", lambda: m.reserve(40, 2**64 + 1))
    check(m.forward(ins["x"]).shape == (40, 3), "reserve/model-usable-after")
    plan = m.memory_plan()
    check(plan["total"] == plan["arena"] + plan["params"] + plan["grads"] + plan["output"] > 0, "memory-plan", repr(plan))

    # edges in the order given: a shuffled edge list, self-loops added by the runtime
    le = gnnc.load(libdir + "/libedgein.so")
    rs = np.random.RandomState(3)
    src, dst = rs.randint(0, 20, 90), rs.randint(0, 20, 90)
    ge = le.graph(src, dst, num_vertices=20, add_self_loops=True)
    me = le.create(ge, seed=2)
    x, wv = rs.randn(20, 3).astype(np.float32), rs.randn(90, 2).astype(np.float32)
    ye = me.forward(x, wv)
    want = wv * (x[src] @ me["W"])
    check(ye.shape == (90, 2) and np.allclose(ye, want, rtol=1e-5, atol=1e-6), "edges/input-order",
          "max difference %g" % (float(np.abs(ye - want).max()) if ye.shape == want.shape else -1))
    yg = me.forward(x, ge.to_graph_order(wv), edge_order="graph")
    check(yg.shape == (ge.ne, 2) and np.allclose(ge.to_input_order(yg), want, rtol=1e-5, atol=1e-6), "edges/graph-order")
    raises(ValueError, "edges in input order", "edges/wrong-length", lambda: me.forward(x, wv[:10]))
    # an edge array with the wrong number of rows, in input order: refused with the shape wanted (more
    # rows were cut to the graph's silently, fewer a bare IndexError)
    for rows in (91, 10):
        me.forward(x, wv, training=True)
        raises(ValueError, "grad_out: want shape (90, 2) (edges in input order), got (%d, 2)" % rows,
               "edges/backward-rows-%d" % rows, lambda: me.backward(np.ones((rows, 2), np.float32)))
        raises(ValueError, "want 90 rows (the graph's input edges), got shape (%d, 2)" % rows,
               "edges/to-graph-order-rows-%d" % rows, lambda: ge.to_graph_order(np.ones((rows, 2), np.float32)))
        raises(ValueError, "want %d rows (the graph's edges), got shape (%d, 2)" % (ge.ne, rows),
               "edges/to-input-order-rows-%d" % rows, lambda: ge.to_input_order(np.ones((rows, 2), np.float32)))

    # an edge file whose last edge the options drop (a self-loop, remove_self_loops): the file has 4
    # edges, the largest origin is 2; num_input_edges is the runtime's count of the file's edges (it was
    # max(edge_origin) + 1 = 3, and a 4-row input-order array was refused), and a .gcsr keeps it
    with open(work + "/trail.edges", "w") as f:
        f.write("0 1\n1 2\n2 0\n2 2\n")
    gt = le.load_graph(work + "/trail.edges", remove_self_loops=True)
    check(gt.ne == 3 and gt.num_input_edges == 4, "edges/dropped-last-counted", "ne %d, num_input_edges %d" % (gt.ne, gt.num_input_edges))
    mt = le.create(gt, seed=2)
    wt = rs.randn(4, 2).astype(np.float32)
    yt = mt.forward(rs.randn(3, 3).astype(np.float32), wt)
    check(yt.shape == (4, 2) and not yt[3].any(), "edges/dropped-last-output", "shape %s, row 3 %s" % (yt.shape, yt[-1]))
    save = le._h.gnn_graph_save_cache
    save.restype, save.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
    for name, gr, want48 in (("trail", gt, 4), ("plain", ge, 0)):
        st = save(le._ctx, ctypes.cast(gr._g, ctypes.c_void_p), (work + "/%s.gcsr" % name).encode())
        with open(work + "/%s.gcsr" % name, "rb") as f:
            head = f.read(64)
        check(st == 0 and struct.unpack_from("<Q", head, 48)[0] == want48, "cache/input-edges-field-" + name,
              "status %d, input_edges %d" % (st, struct.unpack_from("<Q", head, 48)[0] if len(head) == 64 else -1))
    gtc = le.load_graph(work + "/trail.gcsr", remove_self_loops=True)
    check(gtc.num_input_edges == 4 and np.array_equal(gtc.edge_origin, gt.edge_origin), "cache/keeps-num-input-edges",
          "num_input_edges %d" % gtc.num_input_edges)
    gpc = le.load_graph(work + "/plain.gcsr", add_self_loops=True)  # field 0: the largest origin + 1, as before
    check(gpc.num_input_edges == 90, "cache/implied-num-input-edges", "num_input_edges %d" % gpc.num_input_edges)
    with open(work + "/trail.gcsr", "rb") as f:
        bad = bytearray(f.read())
    struct.pack_into("<Q", bad, 48, 2)  # fewer than the origins say: a damaged header
    with open(work + "/bad-input-edges.gcsr", "wb") as f:
        f.write(bad)
    raises(gnnc.GnncError, "corrupted header (input_edges 2, but an edge comes from input edge 2)", "cache/input-edges-damaged",
           lambda: le.load_graph(work + "/bad-input-edges.gcsr", remove_self_loops=True))

    # a dataset folder
    gc, feats, labels, masks = lib.load_dataset("data/cora")
    check(gc.nv == 2708 and feats.shape == (2708, 1433) and labels.shape == (2708,) and
          [int(masks[k].sum()) for k in ("train", "val", "test")] == [140, 500, 1000], "dataset/cora",
          "%s %s %s" % (gc.nv, feats.shape, [int(masks[k].sum()) for k in ("train", "val", "test")]))

    # the same dataset in OGB's layout (tests/runtime/make_ogb.py): the same arrays; symmetrise adds
    # the reverse edges; a malformed file is a GnncError naming its file and line
    ogb = work + "/ogb-cora"
    shutil.rmtree(ogb, ignore_errors=True)
    subprocess.run([sys.executable, "tests/runtime/make_ogb.py", "data/cora", ogb], check=True)
    go, feats_o, labels_o, masks_o = lib.load_dataset(ogb)
    check(go.nv == gc.nv and go.ne == gc.ne and np.array_equal(go.src, gc.src) and np.array_equal(go.dst, gc.dst) and
          np.array_equal(feats_o, feats) and np.array_equal(labels_o, labels) and
          all(np.array_equal(masks_o[k], masks[k]) for k in ("train", "val", "test")), "dataset/ogb-equals-folder",
          "nv %d ne %d" % (go.nv, go.ne))
    gs = lib.load_dataset(ogb, symmetrise=True)[0]
    pairs = set(zip(gs.src.tolist(), gs.dst.tolist()))
    check(gs.ne == 2 * gc.ne and all((d, s) in pairs for s, d in zip(gc.src.tolist(), gc.dst.tolist())),
          "dataset/ogb-symmetrise", "ne %d, the folder's %d" % (gs.ne, gc.ne))
    bad = work + "/ogb-bad"
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(ogb, bad)
    with gzip.open(bad + "/raw/node-feat.csv.gz", "wt") as f:
        f.write("1,2\n3\n")
    raises(gnnc.GnncError, bad + "/raw/node-feat.csv.gz:2: error: 1 feature on this row, the first row has 2",
           "dataset/ogb-ragged-features", lambda: lib.load_dataset(bad))

    # a graph-classification folder (graph_labels.txt): a label and a mask entry per graph, not per vertex
    # (they were read as nv entries, past the end of the runtime's arrays)
    tu, shapes = work + "/shapes-tu", work + "/shapes"
    subprocess.run([sys.executable, "tests/train/make_shapes_tu.py", tu], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "scripts/tu_to_dataset.py", tu, shapes], check=True, stdout=subprocess.DEVNULL)
    gg, _, glabels, gmasks = lib.load_dataset(shapes)
    glines = [l for l in open(shapes + "/graph_labels.txt").read().split() if not l.startswith("#")]
    check(gg.ng > 1 and gg.nv > gg.ng and glabels.shape == (gg.ng,) and
          np.array_equal(glabels, np.array(glines, np.int32)) and
          all(gmasks[k].shape == (gg.ng,) for k in ("train", "val", "test")) and
          int(sum(gmasks[k].sum() for k in ("train", "val", "test"))) <= gg.ng, "dataset/graph-level-rows",
          "nv %d ng %d labels %s masks %s" % (gg.nv, gg.ng, glabels.shape, [gmasks[k].shape for k in gmasks]))
    gg.free()

    # a graph an open model is bound to is not freed under it; a closed model, a closed library, an
    # edge order that is neither, a count ctypes would wrap: each a clear error, no crash
    gb = lib.load_graph(graph)
    mb = lib.create(gb, seed=1)
    raises(gnnc.GnncError, "bound to an open model", "graph/free-while-bound", gb.free)
    check(mb.forward(ins["x"]).shape == (40, 3), "graph/free-refused-model-runs")
    gb2 = lib.load_graph(graph)
    mb.set_graph(gb2)
    gb.free()  # bound no more
    check(gb._g is None and mb.forward(ins["x"]).shape == (40, 3), "graph/free-after-rebind")
    mb.close()
    gb2.free()
    check(gb2._g is None, "graph/free-after-close")
    raises(gnnc.GnncError, "the model was closed", "model/forward-after-close", lambda: mb.forward(ins["x"]))
    raises(gnnc.GnncError, "the model was closed", "model/param-after-close", lambda: mb["gcnconv0.W"])
    raises(gnnc.GnncError, "the graph was freed", "model/create-on-freed-graph", lambda: lib.create(gb2))
    raises(ValueError, "edge_order='inputs'", "edges/order-typo", lambda: me.forward(x, wv, edge_order="inputs"))
    raises(ValueError, "edge_order='graphs'", "edges/order-typo-output", lambda: me.output(edge_order="graphs"))
    raises(ValueError, "num_vertices = 18446744073709551626 is out of range", "graph/num-vertices-wraps",
           lambda: lib.graph([0, 1], [1, 0], num_vertices=2**64 + 10))
    raises(ValueError, "num_vertices = -1 is out of range", "graph/num-vertices-negative",
           lambda: lib.load_graph(graph, num_vertices=-1))
    lc = gnnc.load(libdir + "/libgcn_interp.so")
    mc = lc.create(lc.load_graph(graph), seed=1)
    lc.close()
    raises(gnnc.GnncError, "gnnc.Library was closed", "library/forward-after-close", lambda: mc.forward(ins["x"]))
    raises(gnnc.GnncError, "gnnc.Library was closed", "library/graph-after-close", lambda: lc.graph([0, 1], [1, 0]))
    # create after close: the closed library, not "the graph was freed" (the close freed it too)
    raises(gnnc.GnncError, "gnnc.Library was closed", "library/create-after-close", lambda: lc.create(None))
    # arguments a cast would change silently: refused like seeds and vertex ids (num_vertices=1.5
    # became 1, training="no" turned dropout on, forward's seed wrapped at 2^64, a uint64 id 2^63
    # passed the range check, a complex input lost its imaginary part, a NaN grad_out gave NaN
    # gradients)
    raises(TypeError, "num_vertices must be an integer, not float", "graph/num-vertices-float",
           lambda: lib.graph([0, 1], [1, 0], num_vertices=1.5))
    raises(TypeError, "num_vertices must be an integer, not a bool", "graph/num-vertices-bool",
           lambda: lib.graph([0, 1], [1, 0], num_vertices=True))
    raises(TypeError, "add_self_loops must be True or False, not str", "graph/flag-string",
           lambda: lib.graph([0, 1], [1, 0], add_self_loops="no"))
    raises(ValueError, "vertex id 9223372036854775808 is out of range", "graph/uint64-id-2-63",
           lambda: lib.graph(np.array([0, 2**63], np.uint64), np.array([1, 0], np.uint64)))
    raises(TypeError, "forward: training must be True or False, not str", "forward/training-string",
           lambda: m.forward(ins["x"], training="no"))
    raises(ValueError, "forward: seed 18446744073709551621 is out of range", "forward/seed-wraps",
           lambda: m.forward(ins["x"], training=True, seed=2**64 + 5))
    raises(TypeError, "forward: seed must be an integer, not float", "forward/seed-float",
           lambda: m.forward(ins["x"], training=True, seed=1.9))
    raises(TypeError, "want real numbers (float32), got an array of complex128", "forward/complex-input",
           lambda: m.forward(ins["x"] + 0j))
    raises(TypeError, "want real numbers (float32), got an array of bool", "forward/bool-input",
           lambda: m.forward(ins["x"] > 0))
    raises(TypeError, "num_vertices must be an integer, not float", "reserve/float-count", lambda: m.reserve(10.7, 20))
    m.forward(ins["x"], training=True, seed=3)
    raises(ValueError, "grad_out: values must be finite", "backward/nan-grad-out",
           lambda: m.backward(np.full_like(m.output(), np.nan)))

    # a scalar parameter (GIN's eps, shape ()): set, read back, through the state dict; (1,) refused
    lg = gnnc.load(libdir + "/libgin.so")
    mg = lg.create(lg.load_graph(graph), seed=1)
    mg["ginconv0.eps"] = 0.25
    mg.load_state_dict(mg.state_dict())
    check(mg["ginconv0.eps"].shape == () and float(mg["ginconv0.eps"]) == 0.25, "params/scalar", repr(mg["ginconv0.eps"]))
    raises(ValueError, "has shape (), got (1,)", "params/scalar-wrong-shape", lambda: mg.set_param("ginconv0.eps", [0.5]))

    # Library.close frees what it made that is still open: models, samplers, graphs, datasets (a graph
    # or dataset still referenced at close leaked its host arrays for good, 15 MB a cycle with Cora)
    def rss_mb():
        return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    def cycle():
        lk = gnnc.load(libdir + "/libgcn_interp.so")
        kept = lk.load_dataset("data/cora")
        gk = lk.load_graph(graph)
        mk, sk = lk.create(gk, seed=1), lk.sampler(gk)
        lk.close()
        return kept[0], gk, mk, sk
    for _ in range(3):
        cycle()
    r0 = rss_mb()
    for _ in range(12):
        kept = cycle()
    grew = (rss_mb() - r0) / 12
    check(kept[0]._g is None and kept[1]._g is None and kept[2]._m is None and kept[3]._s is None,
          "library/close-frees-what-it-made", "graph %s, dataset %s, model %s, sampler %s still open" % tuple(
              x is not None for x in (kept[1]._g, kept[0]._g, kept[2]._m, kept[3]._s)))
    check(grew < 3, "library/close-leaks-nothing", "resident memory grew %.1f MB a cycle" % grew)
    raises(gnnc.GnncError, "gnnc.Library was closed", "library/model-of-closed", lambda: kept[2].forward(ins["x"]))

    # arguments refused rather than half applied or wrapped
    mh = lib.create(g, seed=1)
    before = mh.state_dict()
    bad = {k: v + 1 for k, v in before.items()}
    bad["gcnconv1.b"] = np.array([1, np.nan, 1], np.float32)  # the last entry; the others were set before
    raises(ValueError, "'gcnconv1.b': values must be finite", "params/load-state-dict-bad", lambda: mh.load_state_dict(bad))
    check(all(np.array_equal(mh[k], v) for k, v in before.items()), "params/load-state-dict-bad-changes-nothing",
          "changed: %s" % [k for k, v in before.items() if not np.array_equal(mh[k], v)])
    bad["gcnconv1.b"] = np.zeros(4, np.float32)
    raises(ValueError, "has shape (3,), got (4,)", "params/load-state-dict-shape", lambda: mh.load_state_dict(bad))
    check(all(np.array_equal(mh[k], v) for k, v in before.items()), "params/load-state-dict-shape-changes-nothing")
    raises(ValueError, "create: seed 18446744073709551617 is out of range", "params/create-seed-wraps",
           lambda: lib.create(g, seed=2**64 + 1))
    raises(ValueError, "initial_params: seed -1 is out of range", "params/initial-seed-negative",
           lambda: lib.initial_params(-1))
    raises(TypeError, "seed must be an integer, not float", "params/create-seed-float", lambda: lib.create(g, seed=1.5))
    check(np.array_equal(lib.create(g, seed=2**64 - 1)["gcnconv0.W"], lib.initial_params(2**64 - 1)["gcnconv0.W"]),
          "params/seed-2-64-minus-1")
    # Model.reserve to a smaller capacity gives back the staging copies a bigger one made
    mr = lib.create(g, seed=1)
    live0 = lib.memory_usage()[0]
    mr.reserve(200000, 400000)
    big = mr._inputs[0].nbytes
    mr.reserve(g.nv, g.ne)
    live1 = lib.memory_usage()[0]
    check(big == 200000 * 5 * 4 and mr._inputs[0].nbytes == g.nv * 5 * 4 and live1 < live0 + 2**20,
          "reserve/shrinks-staging", "staging %d then %d bytes; live %d -> %d" % (big, mr._inputs[0].nbytes, live0, live1))
    check(mr.forward(ins["x"]).shape == (40, 3), "reserve/usable-after-shrink")
    mr.close()
    mh.close()

    # objects that own a runtime handle refuse copy.copy, copy.deepcopy and pickle (a copy was a second
    # owner: dropping it freed the handle, then the original double-freed or crashed), naming the way
    # to get a second one; the originals stay whole
    import copy
    import pickle
    lc = gnnc.load(libdir + "/libgcn_interp.so")
    gc_ = lc.load_graph(graph)
    mc, sc = lc.create(gc_, seed=1), lc.sampler(gc_)
    y_before = mc.forward(ins["x"])
    for what, obj, needle in [("library", lc, "gnnc.load(lib.path)"), ("graph", gc_, "lib.load_graph(path)"),
                              ("model", mc, "m2.load_state_dict(m.state_dict())"), ("sampler", sc, "lib.sampler(graph)")]:
        for how, fn in [("copy", copy.copy), ("deepcopy", copy.deepcopy), ("pickle", pickle.dumps)]:
            raises(TypeError, "a gnnc.%s cannot be copied or pickled" % type(obj).__name__, "copy/%s-%s" % (what, how),
                   lambda: fn(obj))
        try:
            copy.copy(obj)
        except TypeError as e:
            check(needle in str(e), "copy/%s-says-how" % what, str(e))
    import gc
    gc.collect()
    ok = np.array_equal(mc.forward(ins["x"]), y_before) and sc.sample([0, 1], [2]).num_seeds == 2
    mc.close()
    sc.close()
    gc_.free()
    lc.close()
    check(ok, "copy/originals-intact")

    # a library cut short: a GnncError, not SIGBUS in the loader
    with open(libdir + "/libgcn_interp.so", "rb") as f:
        whole = f.read()
    with open(work + "/libcut.so", "wb") as f:
        f.write(whole[:len(whole) // 2])
    raises(gnnc.GnncError, "libcut.so: the file is cut short", "library/cut-short", lambda: gnnc.load(work + "/libcut.so"))

    # not a model library; a file that does not exist
    raises(gnnc.GnncError, "no gnn_model_entry", "library/not-a-model", lambda: gnnc.load(libdir + "/libnoentry.so"))
    # an older gnnc's library: gnn_model_entry without gnn_model_program (its table may end before
    # input_grads, set_graph, reserve, program): forward runs; those are refused, never read
    try:
        old = gnnc.load(libdir + "/libold.so")
        om = old.create(old.load_graph("data/cora"), seed=1)
        oo = om.forward(np.random.default_rng(3).standard_normal((2708, 1433)).astype(np.float32))
        check(old.legacy and old.program == "" and old.input_grads == [0] and oo.shape == (2708, 7) and np.isfinite(oo).all(),
              "library/older-gnnc/forward", "legacy %s program %r output %s" % (old.legacy, old.program, oo.shape))
        raises(gnnc.GnncError, "libold.so was built by an older gnnc (no gnn_model_program): it has no set_graph",
               "library/older-gnnc/set-graph", lambda: om.set_graph(om.graph))
        raises(gnnc.GnncError, "it has no reserve", "library/older-gnnc/reserve", lambda: om.reserve(3000, 20000))
        raises(gnnc.GnncError, "it has no input gradients", "library/older-gnnc/input-grads",
               lambda: om.request_input_grads(["x"]))
        check(lib.legacy is False, "library/not-legacy")
    except Exception as e:  # noqa: BLE001 -- any failure of the above is this check's
        check(False, "library/older-gnnc/forward", "%s: %s" % (type(e).__name__, e))
    raises(FileNotFoundError, "nope.so", "library/missing", lambda: gnnc.load(libdir + "/nope.so"))
    print("%d failed" % check_lines.failures)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
