#!/usr/bin/python3
"""restrict_check.py -- no value passes between lanes through a __restrict__ buffer (issue 27).

    restrict_check.py cu FILE.cu...          every kernel of the generated CUDA
    restrict_check.py extract FILE.cu OUT.cu  OUT.cu: FILE.cu's prelude and the kernels `ptx` checks
    restrict_check.py ptx FILE.cu FILE.ptx    their PTX (nvcc -ptx of OUT.cu)

A lane of a group may read an element of a buffer that another lane stored, once a barrier
(__syncwarp, __syncthreads, or a shuffle) has ordered the store before the load. nvcc reads
__restrict__ per thread: nothing but this thread's own accesses through this pointer touch the
memory while the kernel runs. So it may move a load of a restrict buffer above the barrier,
before the other lane's store (nvcc 13 -O3 for sm_90 did, in EdgeConv's kernel of %10..%13
under --mapping=edge: lanes 1..31 loaded t10[row] before lane 0 stored it).

`cu` reads the generated source as text, independently of the compiler's own analysis
(kernel_reads_back_across_barrier, compiler/kir.c), and fails when a kernel has a buffer
parameter that is __restrict__, written (a store or an atomic) and loaded back across a
barrier, unless the load is the lane's own element: every write is `b[(row) * W + k]` (or
`b[k]`) and the load `b[row * W + k']` (`b[k']`), with k and k' lane loop elements
(`const int64_t k = lane + (int64_t)i * G`), so the same lane stores and loads each element.
"Across a barrier": a path from the write through a barrier to the load, where a statement
reaches every later one and, inside a loop, every statement of that loop (the next
iteration). Conditions are ignored (a may-analysis).

`ptx` finds the kernels of FILE.cu with buffers that pass values between lanes so, restrict or
not (at least one, or the check has lost its subject; `extract` writes them alone, which nvcc
compiles in a second rather than the whole file's half minute), and checks in their PTX that
every load through such a parameter comes after the first store through it and the first
bar.warp.sync / bar.sync after that store (in the text of the PTX: what nvcc did with it).

Prints what it found; exit 1 on a violation. Only Debian's python3.
"""
import os
import re
import sys

BARRIER = re.compile(r'__syncwarp\(|__syncthreads\(|__shfl_xor_sync\(')
KERNEL = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\((.*?)\) \{\n(.*?)\n\}\n', re.S)
ATOMIC = re.compile(r'(?:atomicAdd|gnn_atomic_max_f32|gnn_atomic_min_f32)\(&(\w+)\[')


def bracket(text, start):
    """The text between text[start] == '[' and its matching ']'."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == '[':
            depth += 1
        elif text[i] == ']':
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    raise ValueError('unbalanced [ in ' + text)


def parse_params(sig):
    params = []
    for n, p in enumerate(sig.split(', ')):
        name = re.sub(r'.*[ *]', '', p)
        params.append({'index': n, 'name': name, 'pointer': '*' in p, 'restrict': '__restrict__' in p,
                       'const': p.startswith('const ')})
    return params


def events(body):
    """(kind, buffer, index text, line, enclosing loops) for every write, read and barrier."""
    out, stack, nloops = [], [], 0
    lane_elems = set(re.findall(r'const int64_t (\w+) = lane \+ \(int64_t\)\w+ \* \d+;', body))
    for pos, line in enumerate(body.split('\n')):
        s = re.sub(r'/\*.*?\*/', '', line).strip()
        while s.startswith('}'):
            stack.pop()
            s = s[1:].strip()
        loops = tuple(x for x in stack if x is not None)
        if BARRIER.search(s):
            out.append(('barrier', None, None, pos, loops))
        write = None
        m = re.match(r'(\w+)\[', s)
        if m and s[m.end(1) + len(bracket(s, m.end(1))) + 2:].startswith(' = '):
            write = (m.group(1), 0)
        a = ATOMIC.search(s)
        if a:
            write = (a.group(1), a.start(1))
        for r in re.finditer(r'\b(\w+)\[', s):
            idx = bracket(s, r.end(1))
            if write and r.group(1) == write[0] and r.start(1) == write[1]:
                out.append(('atomic' if a else 'write', r.group(1), idx, pos, loops))
            else:
                out.append(('read', r.group(1), idx, pos, loops))
        if s.endswith('{'):
            if s.startswith('for ('):
                nloops += 1
                stack.append(nloops)
            else:
                stack.append(None)
    return out, lane_elems


def lane_elem(idx, store):
    """The variable an index of this row names, `(row) * W + k` (a store: the row in parentheses),
    `row * W + k` (a load) or `k`; None for any other index."""
    m = re.fullmatch((r'\(row\)' if store else r'row') + r' \* \d+ \+ (\w+)|(\w+)', idx)
    return m and (m.group(1) or m.group(2))


def reaches(x, y):
    """Whether statement y may run after x: later in the text, or in a loop around both."""
    return y[3] > x[3] or bool(set(x[4]) & set(y[4]))


def reads_back(body):
    """The buffers a lane may load after another lane wrote them and a barrier: {name: (write line, read line)}."""
    evs, lane_elems = events(body)
    found = {}
    barriers = [e for e in evs if e[0] == 'barrier']
    for name in {e[1] for e in evs if e[0] in ('write', 'atomic')}:
        writes = [e for e in evs if e[1] == name and e[0] in ('write', 'atomic')]
        owned = all(w[0] == 'write' and lane_elem(w[2], True) in lane_elems for w in writes)
        for r in (e for e in evs if e[1] == name and e[0] == 'read'):
            if owned and lane_elem(r[2], False) in lane_elems:
                continue
            for w in writes:
                if any(reaches(w, b) and reaches(b, r) for b in barriers):
                    found.setdefault(name, (w[3], r[3]))
    return found


def kernels(path):
    """(name, parameters, body, source text) of every __global__ function of a .cu file."""
    with open(path) as f:
        text = f.read()
    return [(m.group(1), parse_params(m.group(2)), m.group(3), m.group(0)) for m in KERNEL.finditer(text)]


def passing(path):
    """The kernels of a .cu file through whose buffer parameters values pass between lanes, with those parameters."""
    out = []
    for name, params, body, src in kernels(path):
        back = reads_back(body)
        ps = [p for p in params if p['pointer'] and p['name'] in back]
        if ps:
            out.append((name, ps, src))
    return out


def extract(cu, out):
    """A .cu to compile quickly: the prelude of cu and the kernels that pass values between lanes."""
    with open(cu) as f:
        text = f.read()
    m = re.search(r'^/\* -+ kernels \*/$', text, re.M)
    ks = passing(cu)
    with open(out, 'w') as f:
        f.write(text[:m.end()] + '\n' if m else '')
        for _, _, src in ks:
            f.write('\n' + src)
    print(' '.join(k[0] for k in ks))
    return 0 if m and ks else 1


def check_cu(paths):
    bad = nkernels = nback = 0
    for path in paths:
        for name, params, body, _ in kernels(path):
            nkernels += 1
            back = reads_back(body)
            nback += sum(p['pointer'] and p['name'] in back for p in params)
            for p in params:
                if p['pointer'] and p['name'] in back and p['restrict']:
                    w, r = back[p['name']]
                    print(f'{os.path.basename(path)}: {name}: {p["name"]} is __restrict__ but a lane loads (body line {r + 1}) what another '
                          f'lane wrote (line {w + 1}) before a barrier')
                    bad += 1
    print(f'{nkernels} kernels, {nback} buffers passing values between lanes across a barrier, {bad} of them __restrict__')
    return 1 if bad or not nkernels else 0


def check_ptx(cu, ptx):
    ks = passing(cu)
    if not ks:
        print(f'{cu}: no kernel passes values between lanes: the check has lost its subject')
        return 1
    status = 0
    for kernel, back, _ in ks:
        status |= check_ptx_kernel(ptx, kernel, back)
    return status


def check_ptx_kernel(ptx, kernel, back):
    with open(ptx) as f:
        text = f.read()
    m = re.search(r'\.entry ' + kernel + r'\((.*?)\n\}\n', text, re.S)
    if not m:
        print(f'{ptx}: no .entry {kernel}')
        return 1
    lines = m.group(1).split('\n')
    status = 0
    for p in back:
        derived, first_store, first_bar, loads = set(), None, None, []
        for pos, line in enumerate(lines):
            ins = line.strip().rstrip(';').replace(',', ' ').split()
            if not ins:
                continue
            if ins[0].startswith('ld.param') and line.strip().endswith(f'_param_{p["index"]}];'):
                derived.add(ins[1])
            elif ins[0].split('.')[0] in ('cvta', 'add', 'sub', 'mov') and len(ins) > 2 and set(ins[2:]) & derived:
                derived.add(ins[1])
            elif ins[0].startswith('bar.') and first_store is not None and first_bar is None:
                first_bar = pos
            addr = re.search(r'\[(%\w+)(?:\+\d+)?\]', line)
            if addr and addr.group(1) in derived:
                if ins[0].startswith('st.global') and first_store is None:
                    first_store = pos
                elif ins[0].startswith('ld.global'):
                    loads.append(pos)
        if first_store is None or first_bar is None or not loads:
            print(f'{kernel}: {p["name"]} (param {p["index"]}): no store, barrier and load found in the PTX '
                  f'(store {first_store}, barrier {first_bar}, {len(loads)} loads)')
            status = 1
            continue
        early = [x for x in loads if x < first_bar]
        print(f'{kernel}: {p["name"]} (param {p["index"]}, {"__restrict__" if p["restrict"] else "plain"}): '
              f'first store at PTX line {first_store + 1}, barrier at {first_bar + 1}, loads at '
              f'{", ".join(str(x + 1) for x in loads)}{": loaded before the barrier" if early else ""}')
        if early:
            status = 1
    return status


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'cu':
        sys.exit(check_cu(sys.argv[2:]))
    if len(sys.argv) == 4 and sys.argv[1] in ('extract', 'ptx'):
        sys.exit((extract if sys.argv[1] == 'extract' else check_ptx)(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
