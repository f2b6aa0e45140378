"""tests/python/abi_check.py RUNTIME_DIR -- the Python binding's ctypes structures against the C headers.

python/gnnc/_abi.py mirrors runtime/gnnrt.h and runtime/gnn_model.h by hand in ctypes (the graph
alone has 34 fields). If the two drift apart, nothing fails until a field is read at the wrong
offset or the C side writes past the end of a Python-allocated structure. So this asks the C
compiler for the real layouts (clang -Xclang -fdump-record-layouts, over a file that includes both
headers) and compares, for every mirrored structure: the member names in order, each member's offset
and size, and the structure's size. Prints "ok NAME" / "FAIL NAME: detail" lines
(tests/suites/python.sh counts them).
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

import gnnc

# the Python class and the C type it mirrors
MIRRORS = [("_TensorInfo", "gnn_tensor_info"), ("_MemoryPlan", "gnn_memory_plan"), ("_GraphOpts", "gnn_graph_opts"),
           ("_Graph", "gnn_graph"), ("_Dataset", "gnn_dataset"), ("_Sample", "gnn_sample"),
           ("_ParamInit", "gnn_param_init"), ("_Api", "gnn_model_api")]


def c_layouts(runtime_dir):
    """{C type: (sizeof, [(member, offset), ...])} for the top-level members of each mirrored type."""
    src = '#include "gnnrt.h"\n#include "gnn_model.h"\nunsigned long gnnc_abi_sizes[] = {%s};\n' % ", ".join(
        "sizeof(%s)" % c for _, c in MIRRORS)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "abi.c")
        with open(path, "w") as f:
            f.write(src)
        out = subprocess.run(["clang", "-std=c11", "-I", runtime_dir, "-fsyntax-only", "-Xclang", "-fdump-record-layouts",
                              path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("clang failed: " + out.stderr[-500:])
    layouts, cur = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^\s*(\d+) \| (?:struct )?(\w+)$", line)  # a record: "0 | struct gnn_graph", "0 | gnn_memory_plan"
        if m and m.group(1) == "0" and cur is None:
            cur = m.group(2)
            layouts[cur] = [None, []]
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*\| \[sizeof=(\d+),", line)
        if m:
            layouts[cur][0] = int(m.group(1))
            cur = None
            continue
        m = re.match(r"^\s*(\d+) \|   (\S.*)$", line)  # a top-level member: two spaces after the bar
        if m:
            layouts[cur][1].append((m.group(2).split()[-1], int(m.group(1))))
    return layouts


def main():
    if len(sys.argv) != 2:
        print("usage: abi_check.py RUNTIME_DIR", file=sys.stderr)
        return 2
    layouts = c_layouts(sys.argv[1])
    failures = 0
    for py_name, c_name in MIRRORS:
        cls = getattr(gnnc, py_name)
        if c_name not in layouts:
            print("FAIL %s: clang printed no layout for %s" % (c_name, c_name))
            failures += 1
            continue
        c_size, c_members = layouts[c_name]
        py_members = [(n, getattr(cls, n).offset) for n, _ in cls._fields_]
        problems = []
        if [n for n, _ in py_members] != [n for n, _ in c_members]:
            problems.append("members differ: C %s, Python %s" % ([n for n, _ in c_members], [n for n, _ in py_members]))
        else:
            for (n, co), (_, po) in zip(c_members, py_members):
                if co != po:
                    problems.append("%s at offset %d in C, %d in Python" % (n, co, po))
            # each member's size: the distance to the next member (or the end), the same on both sides
            ends_c = [o for _, o in c_members[1:]] + [c_size]
            for (n, _), nxt_c, (_, po) in zip(c_members, ends_c, py_members):
                size = getattr(cls, n).size
                if po + size > nxt_c:
                    problems.append("%s is %d bytes in Python, more than its %d in C" % (n, size, nxt_c - po))
        if ctypes.sizeof(cls) != c_size:
            problems.append("sizeof %d in C, %d in Python" % (c_size, ctypes.sizeof(cls)))
        if problems:
            print("FAIL %s: %s (python/gnnc/_abi.py %s)" % (c_name, "; ".join(problems), py_name))
            failures += 1
        else:
            print("ok %s" % c_name)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
