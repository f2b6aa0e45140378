#!/usr/bin/python3
"""warp_emu.py OUTDIR A.cu:A.kir B.cu:B.kir -- two builds of one model's CUDA kernels, run on a CPU, compared.

The CUDA emitter prints the same kernel IR with other maps of elements to lanes (--vector-loads=4:
4 consecutive elements a lane and float4 loads, emit_cuda.c) whose numbers the host library cannot
check: its lanes are serialised from the kernel IR, not from the CUDA. Without a GPU this runs
the CUDA itself: each .cu is compiled as C++ (under __CUDACC_RTC__ the host code is gone) with a
shim in which every thread of a block is a coroutine (ucontext) and __syncwarp, __shfl_xor_sync
and __shfl_sync make the lanes of the mask meet, as a warp's would. Every kernel whose name
both builds share (and that walks no hub pieces) runs in both on one random graph (a hub of 70
in-edges, 40 out-edges: more than a chunk of 32) and on the same random buffers, each of its size
in the kernel IR, with the training flag 0 and 1; every buffer it writes must agree (1e-5 of the
larger magnitude: a lane's partial sums may add in another order). Prints "ok KERNEL (N buffers)"
or "FAIL KERNEL: ..."; exit 1 on a failure, 2 when it cannot run (no kernel in common).
"""
import os
import re
import struct
import subprocess
import sys

SIG = re.compile(r'^extern "C" __global__ void __launch_bounds__\((\d+)\) ([A-Za-z0-9_]+)\((.*)\) \{$', re.M)
HEAD = re.compile(r'^/\* ([A-Za-z0-9_]+): (.*?), (\d+) lanes per group, (\d+) groups? per block', re.M)
BUF = re.compile(r'^  buffer ([A-Za-z0-9_]+): (\w+)(?: (vertex|edge|global|graph))?\[([0-9, ]*)\](.*)$', re.M)

# the CUDA language on a CPU, threads as coroutines: tests/cuda_emu/cuda_emu.h, pasted whole (the
# one copy of it that every CPU run of the kernels shares); under __CUDACC_RTC__ the .cu's host code is gone
EMU_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../cuda_emu/cuda_emu.h')
SHIM = '// a CPU shim for the CUDA kernels of gnnc (tests/codegen/warp_emu.py)\n'


def shim():
    with open(EMU_H) as f:
        return SHIM + f.read() + '#define __CUDACC_RTC__ 1\n'


MAIN = r'''
// a launch: blocks x threads, every thread running body (cuda_emu.h)
static void emu_launch(unsigned blocks, unsigned threads, void (*body)(void)) {
  if (cuda_emu_grid(dim3(blocks), dim3(threads), 0, body)) { fprintf(stderr, "warp_emu: a launch CUDA refuses\n"); exit(2); }
}
static uint64_t emu_rs;
static double emu_rand(void) {
  uint64_t z = (emu_rs += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}
static void *emu_buffer(int64_t n, int bytes, uint64_t seed, int integer) {
  void *p = malloc((size_t)(n > 0 ? n : 1) * bytes + 64);
  emu_rs = seed;
  for (int64_t i = 0; i < n; i++) {
    double v = emu_rand() * 2.0 - 1.0;
    if (integer) memset((char *)p + i * bytes, 0, (size_t)bytes); /* counters */
    else if (bytes == 4) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
  }
  return p;
}
static void emu_dump(FILE *f, const char *name, const void *p, int64_t n, int bytes) {
  fprintf(f, "%s %lld %d\n", name, (long long)n, bytes);
  fwrite(p, (size_t)bytes, (size_t)n, f);
  fputc('\n', f);
}
'''


def read(path):
    with open(path) as f:
        return f.read()


def kir_sizes(kir):
    sizes = {}
    for name, kind, dom, dims, rest in BUF.findall(kir):
        w = 1
        for d in filter(None, dims.split(',')):  # [] : one element
            w *= int(d)
        elem = 8 if ' f64' in rest.split('#')[0] else 4
        sizes[name] = (dom or ('vertex' if kind == 'degree' else 'global'), w, elem)
    return sizes


def kernels(cu):
    out = {}
    heads = {m.group(1): m for m in HEAD.finditer(cu)}
    for m in SIG.finditer(cu):
        name = m.group(2)
        h = heads.get(name)
        if not h or 'pieces' in h.group(2):
            continue
        tiles = re.search(r'(\d+) column tiles of', h.group(2))
        out[name] = (int(m.group(1)), int(h.group(4)), h.group(2), m.group(3), int(tiles.group(1)) if tiles else 1)
    return out


NV, GRAPH = 48, None


def graph():
    """A graph of NV vertices: vertex 0 a hub of 70 in-edges, vertex 1 of 40 out-edges, the rest random."""
    import random
    r = random.Random(5)
    edges = [(r.randrange(NV), 0) for _ in range(70)] + [(1, r.randrange(NV)) for _ in range(40)]
    edges += [(r.randrange(NV), r.randrange(2, NV)) for _ in range(150)]
    edges.sort(key=lambda e: (e[1], e[0]))  # CSR by destination: edge ids in CSR order
    in_ptr = [0] * (NV + 1)
    for s, d in edges:
        in_ptr[d + 1] += 1
    for v in range(NV):
        in_ptr[v + 1] += in_ptr[v]
    out_eid = sorted(range(len(edges)), key=lambda e: (edges[e][0], e))
    out_ptr = [0] * (NV + 1)
    for s, d in edges:
        out_ptr[s + 1] += 1
    for v in range(NV):
        out_ptr[v + 1] += out_ptr[v]
    return {'in_ptr': ('int64_t', in_ptr), 'out_ptr': ('int64_t', out_ptr), 'src': ('int32_t', [s for s, d in edges]),
            'dst': ('int32_t', [d for s, d in edges]), 'out_eid': ('int32_t', out_eid),
            'out_dst': ('int32_t', [edges[e][1] for e in out_eid])}, len(edges)


def harness(cu_path, kir, ks, names):
    sizes = kir_sizes(kir)
    g, ne = graph()
    src = [shim(), '#include "%s"\n' % os.path.abspath(cu_path), MAIN]
    for gname, (t, vals) in g.items():
        src.append('static const %s emu_%s[] = {%s};\n' % (t, gname, ', '.join(map(str, vals))))
    src.append('int main(int argc, char **argv) {\n  FILE *f = fopen(argv[1], "wb");\n  (void)argc;\n')
    for name in names:
        threads, gpb, what, params, tiles = ks[name]
        rows = 'ne' if 'one group per edge' in what else '1' if what == 'one group' else 'nv'
        nrows = {'nv': NV, 'ne': ne, '1': 1}[rows]
        for training in (0, 1):
            src.append('  {\n')
            args, dumps = [], []
            for i, p in enumerate(x.strip() for x in params.split(',')):
                pm = re.match(r'(const )?(\w+) (\*?)(\w+)$', re.sub(r'\*\s*__restrict__\s*', '*', p))
                if not pm:
                    return None, 'cannot fill parameter "%s" of %s' % (p, name)
                const, typ, star, pname = pm.groups()
                if not star:
                    args.append({'nrows': str(nrows), 'training': str(training), 'seed': '12345'}.get(pname, None))
                    if args[-1] is None:
                        return None, 'cannot fill parameter "%s" of %s' % (p, name)
                elif pname in g:
                    args.append('(%s *)emu_%s' % (typ, pname))
                elif pname in sizes:
                    dom, w, elem = sizes[pname]
                    n = w * {'vertex': NV, 'edge': ne, 'global': 1, 'param': 1, 'graph': 1}[dom]
                    bytes_ = 8 if typ in ('double', 'int64_t') else 4
                    src.append('    %s *b%d = (%s *)emu_buffer(%d, %d, %du, %d);\n' % (typ, i, typ, n, bytes_, 1000 + 7 * i, typ.startswith('int')))
                    args.append('b%d' % i)
                    if not const:
                        dumps.append('    emu_dump(f, "%s.%s.t%d", b%d, %d, %d);\n' % (name, pname, training, i, n, bytes_))
                else:
                    return None, 'no size for buffer %s of %s in the kernel IR' % (pname, name)
            blocks = (nrows * tiles + gpb - 1) // gpb
            # the launch's body takes no arguments: they are statics of the block
            src.extend('    static decltype(%s) L_%d; L_%d = %s;\n' % (a, j, j, a) for j, a in enumerate(args))
            src.append('    struct L { static void run(void) { %s(%s); } };\n' % (name, ', '.join('L_%d' % j for j in range(len(args)))))
            src.append('    emu_launch(%d, %d, L::run);\n' % (blocks, threads))
            src.extend(dumps)
            src.append('  }\n')
    src.append('  fclose(f);\n  return 0;\n}\n')
    return ''.join(src), None


def run(outdir, cu, kir, ks, names, tag):
    text, why = harness(cu, kir, ks, names)
    if why:
        print('warp_emu: ' + why)
        sys.exit(2)
    cpp = os.path.join(outdir, tag + '.cpp')
    exe = os.path.join(outdir, tag)
    with open(cpp, 'w') as f:
        f.write(text)
    r = subprocess.run(['g++', '-std=c++17', '-O1', '-ffp-contract=off', '-w', '-I' + os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../runtime'),
                        '-o', exe, cpp], capture_output=True, text=True)
    if r.returncode:
        print('warp_emu: g++ failed on %s:\n%s' % (cpp, r.stderr[-3000:]))
        sys.exit(2)
    dump = exe + '.out'
    r = subprocess.run([exe, dump], capture_output=True, text=True, timeout=600)
    if r.returncode:
        print('warp_emu: %s failed (%d): %s' % (exe, r.returncode, r.stderr[-1000:]))
        sys.exit(1)
    out = {}
    with open(dump, 'rb') as f:
        data = f.read()
    i = 0
    while i < len(data):
        j = data.index(b'\n', i)
        name, n, b = data[i:j].decode().split()
        n, b = int(n), int(b)
        out[name] = struct.unpack('<%d%s' % (n, 'd' if b == 8 and 'int' not in name else 'f' if b == 4 else 'd'), data[j + 1:j + 1 + n * b])
        i = j + 2 + n * b
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    outdir = sys.argv[1]
    (acu, akir), (bcu, bkir) = (x.split(':') for x in sys.argv[2:4])
    a, b = read(acu), read(bcu)
    ka, kb = kernels(a), kernels(b)
    names = sorted(set(ka) & set(kb))
    if not names:
        print('warp_emu: no kernel in common')
        sys.exit(2)
    ra = run(outdir, acu, read(akir), ka, names, 'a')
    rb = run(outdir, bcu, read(bkir), kb, names, 'b')
    bad = 0
    for name in names:
        keys = [k for k in ra if k.startswith(name + '.')]
        why = None
        for key in keys:
            x, y = ra[key], rb.get(key)
            if y is None or len(x) != len(y):
                why = '%s missing or of another size' % key
                break
            for e, (p, q) in enumerate(zip(x, y)):
                if p != p and q != q:
                    continue
                if not abs(p - q) <= 1e-5 * max(1.0, abs(p), abs(q)):
                    why = '%s[%d]: %r against %r' % (key, e, p, q)
                    break
            if why:
                break
        if why:
            bad += 1
            print('FAIL %s: %s' % (name, why))
        else:
            print('ok %s (%d buffers)' % (name, len(keys)))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
