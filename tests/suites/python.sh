# python.sh -- sourced by tests/run.sh: the Python package (python/gnnc) and its PyTorch wrapper.
#
#   python/numpy/...      tests/python/test_numpy.py: the NumPy API against the interpreter (forward
#                         in training mode and backward), parameters by name, parameter files,
#                         edge order, datasets, errors; Library, Graph, Model and Sampler refuse
#                         copy.copy, copy.deepcopy and pickle
#   python/init/...       tests/python/test_init.py: Library.initial_params and GnncModule's parameters
#                         equal create()'s bit for bit for every initialiser (Glorot, zeros, a declared
#                         `= value`) and gnnc run's; GnncModule's forward equals create()'s model's; an
#                         added self-loop's edge input is 1 in Model.forward and GnncModule (both graph
#                         builders), as gnnc run --self-loops gives it; initial_params reads the model
#                         table's description (TensorInfo.init) and creates no model, except for a
#                         library without one (an older gnnc's), whose create() it still matches
#   python/torch/...      tests/python/test_torch.py: GnncModule's outputs and gradients equal torch
#                         autograd on the same GCN and GAT written in PyTorch, and so do 5 Adam steps;
#                         a parameter gone NaN is refused by its attribute name, saying training diverged;
#                         after module.double() / .half() the output and gradients in that dtype (computed
#                         in float32)
#   python/ddp/...        tests/python/ddp_edgeconv.py: EdgeConv on point-cloud batches trained by two
#                         processes under DistributedDataParallel (gloo) ends at the parameters of
#                         one process
#   python/resume/...     tests/python/test_resume.py: a GnncModule + Adam loop with dropout, stopped,
#                         torch.save'd, loaded into new objects and resumed, ends at the parameters of
#                         the loop run straight through, bit for bit (with controls that must differ);
#                         so does a copy.deepcopy taken halfway, trained on beside the original;
#                         torch.save(module) refused, naming state_dict(); with the default dropout
#                         (torch's generator) the checkpoint holds torch.get_rng_state() and resumes
#                         bit-identically with it restored, not without
#   python/dropout/...    tests/python/test_dropout.py: how GnncModule seeds its masks (tests/python/models/
#                         drop.gnn shows them): by default from torch's generator (two modules, two
#                         libraries, two stacked layers differ; torch.manual_seed reproduces; two calls
#                         in a step, each gradient its own mask's); dropout_seed=K its own stream,
#                         dropout_stream_seed(K, step), K and K + 1 not one stream shifted; deepcopy
#                         and state_dict continue it; bad dropout_seed values refused
#   python/ddp-minibatch/... tests/python/test_ddp_minibatch.py: python/examples/minibatch_sage.py (sampled
#                         GraphSAGE batches) on two gloo ranks under DDP: identical parameters on both
#                         ranks, each rank its own batches, losses and parameters equal to one process
#                         over the same batches (1e-5)
#   python/minibatch-options/... tests/python/test_minibatch_options.py: the example's bad options
#                         (a fan-out < 1 other than -1, --emulate-world past an epoch's batches,
#                         --batches -1, --batch 0, a missing --graph, ...) exit 2 with a one-line
#                         "minibatch_sage.py: error: ..." and no traceback; good small runs still work
#                         (--fanout -1 in both samplers, --eval 0 reporting no accuracy, a .npy graph
#                         folder), and the peak RSS with loading is at least loading's and training's;
#                         --check refuses --side and --out, and agrees with PyG (with the venv's PyG)
#   python/bench-sampler/... tests/python/test_bench_sampler.py: bench/sampler.py reads --graph, --batch,
#                         --fanout with the example's option types (python/examples/minibatch_args.py):
#                         a bad option (also --batches -1, --threads 0, an --out in no folder) is exit 2
#                         and one "sampler.py: error: ..." line; small runs (--batches 0: the whole
#                         epoch, --fanout -1, a .npy folder) print the table and their JSON line
#   python/bench-edge-index-check  bench/edge_index_check.py on a small graph runs and prints its table
#   python/batches/...    tests/python/test_batches.py: a new graph every batch for 1,000 batches: one
#                         model rebound (set_graph), RSS and the runtime's peak flat (batch 10 vs 1,000),
#                         equal to a fresh module; a reserved capacity allocates once; bad vertex ids
#                         (fractions, booleans, out of range, an empty batch) are refused
#   python/pyg-inputs/... tests/python/test_pyg_inputs.py: GnncModule(edge_index, x) and (data) as with a
#                         gnnc.Graph, exactly; the graph reused while its tensor holds the same edges,
#                         remade when it is refilled in place (through NumPy or .data too, unseen by
#                         torch's version counter; a batch vector too); edge rows in edge_index's order; a real torch_geometric Data where PyG is installed;
#                         a batch of graphs (batch vector, Batch) through a graph-level model, equal
#                         to each graph run alone
#   python/device-csr/... tests/python/test_device_csr.py: the graph of an edge_index built with torch ops
#                         (gnnc.csr, gnn_graph_from_csr: a CUDA edge_index's path) on CPU tensors equals
#                         the runtime's host builder's, array for array, over random graphs and every
#                         option; GnncModule through it equals the host-built graph's bit for bit; the
#                         same refusals
#   python/input-grads/... tests/python/test_input_grads.py: gradients with respect to inputs (libraries
#                         built with --input-grads=all): vertex and edge inputs against torch autograd,
#                         torch.autograd.gradcheck through GnncFunction, computed only when asked for
#                         (parameter gradients then bit-identical to a parameter-only library's), two gnnc
#                         layers with PyTorch between them, and Linear -> gnnc GAT (dsl-examples, dropout
#                         p 0, 64 inputs) -> Linear trained on Cora against torch_geometric's GATConv
#                         (with the venv's PyG; skipped with a note without it)
#   python/sampler/...    tests/python/test_sampler.py: Library.sampler's batches (through a Graph and
#                         through NumPy CSR arrays) equal the sampling rule written again in plain
#                         Python from gnnrt.h, exactly; its refusals and their messages
#   python/pip-install    `pip install ./python` (into a temporary target) gives an importable package
#   python/abi/STRUCT     tests/python/abi_check.py: every ctypes structure of the binding has the
#                         members, offsets and size clang gives the C structure it mirrors
# Debian's python3-numpy and python3-torch (make setup installs them); the host libraries are built
# here from tests/python/models/ and tests/interp/models/gcn.gnn.

py=$TMP/python
mkdir -p "$py/work"
py_tail() { printf '%s\n' "$1" | tail -n 4 | tr '\n' ' '; }
# py_lines PREFIX RC OUTPUT: one pass/fail per "ok NAME" / "FAIL NAME: detail" line
py_lines() {
  local prefix=$1 rc=$2 out=$3 line rest nok=0
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "$prefix/${line#ok }"; nok=$((nok + 1)) ;;
      "FAIL "*) rest=${line#FAIL }; fail "$prefix/${rest%%:*}" "${rest#*: }" ;;
    esac
  done <<< "$out"
  if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' <<< "$out"; then fail "$prefix/run" "exit $rc: $(py_tail "$out")"; fi
  [ $nok -gt 0 ] || fail "$prefix/ran" "no checks ran: $(py_tail "$out")"
}

if ! "$PY" -c 'import numpy, torch' 2> /dev/null; then
  fail python/deps "python3-numpy and python3-torch are required (make setup installs them)"
else
  py_ok=1
  for py_m in gcn gat edgeconv edgein initval drop; do
    if ! py_out=$("$GNNC" "tests/python/models/$py_m.gnn" --target=host -o "$py/lib$py_m.so" 2>&1); then
      fail "python/build/$py_m" "$(py_tail "$py_out")"; py_ok=0
    fi
  done
  if ! py_out=$("$GNNC" tests/interp/models/gin.gnn --target=host -o "$py/libgin.so" 2>&1); then
    fail python/build/gin "$(py_tail "$py_out")"; py_ok=0
  fi
  # initval as an older gnnc built it: no gnn_model_param_init, so its table says nothing of how the
  # parameters start (test_init.py: initial_params then reads them from a model create() makes)
  if ! py_out=$("$GNNC" tests/python/models/initval.gnn --emit=c -o "$py/initval_noinit_src.c" 2>&1) ||
     ! py_out=$(sed '/^const gnn_param_init \*gnn_model_param_init(void)/d' "$py/initval_noinit_src.c" > "$py/initval_noinit.c" &&
       ! grep -q '^const gnn_param_init \*gnn_model_param_init' "$py/initval_noinit.c" &&
       cc -std=c11 -O1 -fopenmp -fPIC -shared -DGNNC_MODEL_ENTRY -Iruntime -I"$py" -o "$py/libinitval_noinit.so" "$py/initval_noinit.c" \
       -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2>&1); then
    fail python/build/initval-noinit "$(py_tail "$py_out")"; py_ok=0
  fi
  # a graph-level model (sum readouts): batches of graphs in test_pyg_inputs.py
  if ! py_out=$("$GNNC" dsl-examples/gin_graph.gnn --target=host -o "$py/libgin_graph.so" 2>&1); then
    fail python/build/gin_graph "$(py_tail "$py_out")"; py_ok=0
  fi
  if ! py_out=$("$GNNC" tests/interp/models/gcn.gnn --target=host -o "$py/libgcn_interp.so" 2>&1) ||
     ! py_out=$(cc -std=c11 -O1 -fopenmp -fPIC -shared -Iruntime -Igenerated -o "$py/libnoentry.so" generated/gcn.c \
       -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2>&1) ||
     ! py_out=$(sed '/^const char \*gnn_model_program(void)/d' generated/gcn.c > "$py/oldgcn.c" &&
       cc -std=c11 -O1 -fopenmp -fPIC -shared -DGNNC_MODEL_ENTRY -Iruntime -Igenerated -o "$py/libold.so" "$py/oldgcn.c" \
       -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2>&1); then
    fail python/build/interp "$(py_tail "$py_out")"; py_ok=0
  fi
  if [ $py_ok = 1 ]; then
    py_out=$(PYTHONPATH=python "$PY" tests/python/test_numpy.py "$py" "$py/work" "$GNNC" 2>&1); py_lines python/numpy $? "$py_out"
    # parameters start where create() puts them (declared `= value` too); added self-loops' edge inputs
    py_out=$(PYTHONPATH=python timeout 300 "$PY" -W ignore tests/python/test_init.py "$py" "$py/work" "$GNNC" 2>&1)
    py_lines python/init $? "$py_out"
    # neighbour sampling (Library.sampler) equals its specification written again in Python
    py_out=$(PYTHONPATH=python "$PY" tests/python/test_sampler.py "$py" 2>&1); py_lines python/sampler $? "$py_out"
    py_out=$(PYTHONPATH=python "$PY" -W ignore::UserWarning tests/python/test_torch.py "$py" tests/interp/graphs/random 2>&1)
    py_lines python/torch $? "$py_out"
    # dropout masks: torch's generator by default, a module's own stream with dropout_seed=K
    py_out=$(PYTHONPATH=python timeout 300 "$PY" -W ignore::UserWarning tests/python/test_dropout.py "$py" "$py/dropout" 2>&1)
    py_lines python/dropout $? "$py_out"
    py_out=$(PYTHONPATH=python timeout 300 "$PY" tests/python/ddp_edgeconv.py "$py/libedgeconv.so" "$py/ddp" 2>&1)
    py_lines python/ddp $? "$py_out"
    # the mini-batch example data-parallel: two gloo ranks under DDP vs one process over the same batches
    py_out=$(PYTHONPATH=python timeout 600 "$PY" -W ignore tests/python/test_ddp_minibatch.py "$GNNC" "$py/ddp-minibatch" 2>&1)
    py_lines python/ddp-minibatch $? "$py_out"
    # a python with torch_geometric where make setup made its venv (over the same Debian torch), else $PY
    py_pyg=$ROOT/build/peers-venv-debian/bin/python
    "$py_pyg" -c 'import torch_geometric' > /dev/null 2>&1 || py_pyg=$PY
    # the example's options: each bad one refused (exit 2, one error line), good small runs; --check with PyG.
    # About 50 runs of the example, each a process that imports torch (16 s of wall time at load 15):
    # alone 6 min 18 s when they ran one after another, and past 600 s under load twice; with the
    # refusals 4 at a time, 519 s at load 12-19 (2026-12-03), hence 900 s.
    py_out=$(PYTHONPATH=python timeout 900 "$PY" -W ignore tests/python/test_minibatch_options.py "$GNNC" "$py/minibatch-options" \
      "$py_pyg" 2>&1)
    py_lines python/minibatch-options $? "$py_out"
    # bench/sampler.py: the example's option types (each bad option refused the same way), small runs
    py_out=$(PYTHONPATH=python timeout 300 "$PY" -W ignore tests/python/test_bench_sampler.py "$GNNC" "$py/bench-sampler" 2>&1)
    py_lines python/bench-sampler $? "$py_out"
    # bench/edge_index_check.py runs and prints its table (a small graph; its times are not checked)
    if py_out=$(PYTHONPATH=python timeout 120 "$PY" -W ignore bench/edge_index_check.py "$py/libgcn.so" 1000 5000 2>&1) &&
       grep -q '^compare (torch.equal with the kept copy) ' <<< "$py_out" && grep -q '^compare / build ' <<< "$py_out"; then
      pass python/bench-edge-index-check
    else
      fail python/bench-edge-index-check "$(py_tail "$py_out")"
    fi
    py_out=$(PYTHONPATH=python timeout 300 "$PY" -W ignore::UserWarning tests/python/test_batches.py "$py" 2>&1)
    py_lines python/batches $? "$py_out"
    # torch_geometric's Data too, with the venv's python (py_pyg)
    py_out=$(PYTHONPATH=python timeout 300 "$py_pyg" -W ignore tests/python/test_pyg_inputs.py "$py" 2>&1)
    py_lines python/pyg-inputs $? "$py_out"
    # the CSR built with torch ops (a CUDA edge_index's path) against the runtime's host builder, on CPU
    py_out=$(PYTHONPATH=python timeout 300 "$PY" -W ignore tests/python/test_device_csr.py "$py" 2>&1)
    py_lines python/device-csr $? "$py_out"
    # gradients with respect to inputs: the same models compiled with --input-grads=all, and
    # dsl-examples/gat.gnn with its dropouts at p = 0 (PyG's GATConv gets dropout 0) on 64 features
    py_ig=1
    for py_m in gcn gat edgein; do
      py_out=$("$GNNC" "tests/python/models/$py_m.gnn" --target=host --input-grads=all -o "$py/lib${py_m}_ig.so" 2>&1) ||
        { fail "python/build/${py_m}_ig" "$(py_tail "$py_out")"; py_ig=0; }
    done
    py_out=$("$GNNC" tests/grad/input_passthrough.gnn --target=host --input-grads=all -o "$py/libpassthrough_ig.so" 2>&1) ||
      { fail python/build/passthrough_ig "$(py_tail "$py_out")"; py_ig=0; }
    sed -e 's/, 0\.6)/, 0.0)/g' -e 's/^model GAT(x: vertex\[1433\])/model GAT(x: vertex[64])/' dsl-examples/gat.gnn > "$py/gat_cora.gnn"
    if [ "$(grep -c ', 0\.0)' "$py/gat_cora.gnn")" != 3 ] || ! grep -q '^model GAT(x: vertex\[64\])' "$py/gat_cora.gnn"; then
      fail python/build/gat_cora "dsl-examples/gat.gnn no longer has the 3 dropouts and the input the test edits"; py_ig=0
    elif ! py_out=$("$GNNC" "$py/gat_cora.gnn" --target=host --input-grads=all -o "$py/libgat_cora.so" 2>&1); then
      fail python/build/gat_cora "$(py_tail "$py_out")"; py_ig=0
    fi
    if [ $py_ig = 1 ]; then
      py_out=$(PYTHONPATH=python timeout 300 "$py_pyg" -W ignore tests/python/test_input_grads.py "$py" \
        tests/interp/graphs/random data/cora 2>&1)
      py_lines python/input-grads $? "$py_out"
    fi
    # checkpoints of a training loop: dsl-examples/gcn.gnn has dropout, so the stream's position matters
    if py_out=$("$GNNC" dsl-examples/gcn.gnn --target=host -o "$py/libgcn_dropout.so" 2>&1); then
      py_out=$(PYTHONPATH=python "$PY" -W ignore::UserWarning tests/python/test_resume.py "$py/libgcn_dropout.so" \
        tests/interp/graphs/random "$py/work" 2>&1)
      py_lines python/resume $? "$py_out"
    else
      fail python/build/gcn_dropout "$(py_tail "$py_out")"
    fi
  fi
  if need_tool python/abi clang; then
    py_out=$(PYTHONPATH=python "$PY" tests/python/abi_check.py runtime 2>&1); py_lines python/abi $? "$py_out"
  fi
  # pip install ./python, from a copy (pip writes build files beside the sources)
  rm -rf "$py/src" "$py/site" && cp -r python "$py/src"
  if py_out=$("$PY" -m pip install --quiet --no-deps --no-build-isolation --no-index --target "$py/site" "$py/src" 2>&1) &&
     py_got=$(cd "$py" && PYTHONPATH="$py/site" "$PY" -c 'import gnnc, gnnc.nn; print(gnnc.__version__, gnnc.__file__)' 2>&1) &&
     [[ $py_got == "0.1.0 $py/site/gnnc/__init__.py" ]]; then
    pass python/pip-install
  else
    fail python/pip-install "$(py_tail "$py_out") ${py_got:-}"
  fi
fi
unset -f py_tail py_lines
unset py py_ok py_m py_out py_got py_pyg py_ig
