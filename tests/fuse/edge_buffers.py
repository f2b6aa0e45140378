"""edge_buffers.py KIR -- the edge buffers of a kernel-IR dump, and the stores to them outside
`if training` blocks (docs/passes/fuse.md).

Prints one line per edge buffer: `NAME WIDTH RANK` and, with --untrained-stores, the edge
buffers that some forward kernel stores to outside an `if training { ... }` block. The kernels of
the once-per-graph steps (the hoist pass: values of the graph alone, written when the model meets
a graph, not in every forward) are not forward kernels here."""
import re
import sys

text = open(sys.argv[1]).read()
bufs = {}
for m in re.finditer(r"^  buffer (\w+): \w+ edge\[([0-9, ]*)\]", text, re.M):
    dims = [int(d) for d in m.group(2).split(",") if d.strip()]
    w = 1
    for d in dims:
        w *= d
    bufs[m.group(1)] = (w, len(dims))
if "--untrained-stores" not in sys.argv:
    for name, (w, r) in sorted(bufs.items()):
        print(name, w, r)
    sys.exit(0)
# forward kernels: the kernels of the steps before "# backward"
fwd = set()
for line in text.split("\n"):
    if line.strip() == "# backward":
        break
    m = re.match(r"  step \d+ kernel (\w+)", line)
    if m and "# once per graph: " not in line:
        fwd.add(m.group(1))
bad = set()
kernel = None
stack = []  # (indent, is_training_if)
for line in text.split("\n"):
    m = re.match(r"kernel (\w+):", line)
    if m:
        kernel, stack = m.group(1), []
        continue
    if kernel not in fwd or not line.strip():
        continue
    ind = len(line) - len(line.lstrip())
    while stack and stack[-1][0] >= ind:
        stack.pop()
    s = line.strip()
    if s.endswith("{"):
        stack.append((ind, s.startswith("if training")))
    m = re.match(r"(\w+)\[.*\] = ", s)
    if m and m.group(1) in bufs and not any(t for _, t in stack):
        bad.add(m.group(1))
for b in sorted(bad):
    print(b)
