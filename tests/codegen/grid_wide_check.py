#!/usr/bin/python3
"""grid_wide_check.py OUT.cpp FILE.cu:FILE.kir... -- the grid-wide kernels of generated CUDA, run on a CPU.

A global kernel whose lanes each map element k to element k is emitted grid-wide (emit_cuda.c,
grid_elementwise): a grid-stride loop `for (k = thread; k < N; k += threads)` per lane loop, the
barriers between the loops dropped, launched on ceil(N/256) blocks. That is right only if every
element below N is visited exactly once whatever the grid, and if no thread reads what another
thread wrote (the dropped barriers ordered nothing then). No GPU is needed to check either: the
kernels are plain C++ once blockIdx, threadIdx and gridDim are variables.

This writes OUT.cpp: every kernel of the .cu files whose comment says "grid-wide", verbatim, under
a small shim (__global__ and __restrict__ as nothing, the index variables, the prelude's helpers),
and a main that runs each kernel on buffers of random values, each of its size in the model's
kernel IR (FILE.kir, `gnnc --emit=kir`: compiled with -fsanitize=address, a read or write past a
buffer stops the run):
  - on the launch's grid (ceil(N/256) blocks), threads in order: the reference;
  - on 1, 2, 3, 7 and 128 blocks and the launch's grid plus 5, threads in order and in reverse
    order (a thread's loops all run before the next thread's, so a thread that read an element
    another wrote in an earlier loop would see it written in one order and not in the other);
and compares every buffer bit for bit with the reference. A buffer the kernel only writes starts
each run with a NaN of a payload of that run's own: an element one run wrote and another did not
differs, and the reference must have written all of it (an element-wise global kernel makes the
whole tensor). The program prints "ok KERNEL" or "FAIL KERNEL: what differed" and exits 1 on a
failure. This script exits 2 when the .cu files have no grid-wide kernel, or one takes a
parameter this harness cannot fill (or a buffer the kernel IR does not size).
"""
import os
import re
import sys

KERNEL = re.compile(r'^/\* ([A-Za-z0-9_]+): grid-wide, a thread per element \((\d+) in its longest loop\)', re.M)
SIGNATURE = re.compile(r'^extern "C" __global__ void __launch_bounds__\(256\) ([A-Za-z0-9_]+)\((.*)\) \{$')
TYPES = {"float": "f32", "double": "f64", "int32_t": "i32", "int64_t": "i64"}

# The CUDA language: tests/cuda_emu/cuda_emu.h (the one copy every CPU run of the kernels shares),
# threads as plain calls (CUDA_EMU_SERIAL), pasted whole where @CUDA_EMU_H@ is: OUT.cpp stands alone
EMU_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../cuda_emu/cuda_emu.h')
SHIM = r'''// The CUDA names the grid-wide kernels use, on a CPU (tests/codegen/grid_wide_check.py).
#define CUDA_EMU_SERIAL 1
@CUDA_EMU_H@
static inline int64_t gnn_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t gnn_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline float gnn_rsqrtf(float x) { return rsqrtf(x); }

static uint64_t shim_state;
static uint64_t shim_next(void) { /* splitmix64 */
  uint64_t z = (shim_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double shim_uniform(void) { return (double)(shim_next() >> 11) * 0x1p-53 * 2.0 - 1.0; }
// A buffer of n elements of `bytes` each: random values (seeded), or NaNs of payload `mark`
static void *shim_buffer(int64_t n, int bytes, char kind, uint64_t seed, int mark) {
  unsigned char *p = (unsigned char *)malloc((size_t)n * (size_t)bytes);
  if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
  shim_state = seed;
  for (int64_t i = 0; i < n; i++) {
    if (mark && kind == 'f' && bytes == 4) { uint32_t b = 0x7fc00000u | (uint32_t)mark; memcpy(p + i * 4, &b, 4); }
    else if (mark && kind == 'f') { uint64_t b = 0x7ff8000000000000ull | (uint64_t)mark; memcpy(p + i * 8, &b, 8); }
    else if (mark) memset(p + i * bytes, 0x5a + mark, (size_t)bytes);
    else if (kind == 'f' && bytes == 4) { float v = (float)shim_uniform(); memcpy(p + i * 4, &v, 4); }
    else if (kind == 'f') { double v = shim_uniform(); memcpy(p + i * 8, &v, 8); }
    else if (bytes == 4) { int32_t v = (int32_t)(shim_next() % 7); memcpy(p + i * 4, &v, 4); }
    else { int64_t v = (int64_t)(shim_next() % 7); memcpy(p + i * 8, &v, 8); }
  }
  return p;
}
// One run: blocks x 256 threads, each thread's whole body before the next thread's
#define SHIM_RUN(blocks, reverse, call)                                              \
  do {                                                                               \
    gridDim.x = (blocks), blockDim.x = 256;                                          \
    for (int64_t t_ = 0; t_ < (int64_t)(blocks) * 256; t_++) {                       \
      const int64_t u_ = (reverse) ? (int64_t)(blocks) * 256 - 1 - t_ : t_;         \
      blockIdx.x = (unsigned)(u_ / 256), threadIdx.x = (unsigned)(u_ % 256);         \
      call;                                                                          \
    }                                                                                \
  } while (0)
// The same bits, or both the mark of their own run (an element neither run wrote)
static int shim_same(const void *a, const void *b, int64_t n, int bytes, int only_written, int64_t *where) {
  for (int64_t i = 0; i < n; i++) {
    const unsigned char *x = (const unsigned char *)a + i * bytes, *y = (const unsigned char *)b + i * bytes;
    if (memcmp(x, y, (size_t)bytes) == 0) continue;
    if (only_written) {
      uint64_t bx = 0, by = 0;
      memcpy(&bx, x, (size_t)bytes), memcpy(&by, y, (size_t)bytes);
      if (bytes == 4 && (bx & 0xfffff000u) == 0x7fc00000u && (by & 0xfffff000u) == 0x7fc00000u) continue;
      if (bytes == 8 && (bx >> 12) == (0x7ff8000000000000ull >> 12) && (by >> 12) == (0x7ff8000000000000ull >> 12)) continue;
    }
    *where = i;
    return 0;
  }
  return 1;
}
'''


def params(sig, path, name):
    """The kernel's parameters: (C type, name, element kind, bytes, writable)."""
    out = []
    for p in [s.strip() for s in sig.split(",")]:
        m = re.fullmatch(r'(const )?(float|double|int32_t|int64_t) \*__restrict__ ([A-Za-z0-9_]+)', p)
        if m:
            t = m.group(2)
            out.append((t, m.group(3), "f" if t in ("float", "double") else "i", 4 if t in ("float", "int32_t") else 8,
                        m.group(1) is None))
        elif p == "int64_t nrows":
            out.append(("int64_t", "nrows", None, 0, False))
        else:
            sys.stderr.write("grid_wide_check: %s: kernel %s: a parameter this harness cannot fill: '%s'\n" % (path, name, p))
            sys.exit(2)
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: grid_wide_check.py OUT.cpp FILE.cu...\n")
        return 2
    kernels, runs = [], []
    for pair in argv[1:]:
        path, kir = pair.split(":")
        text = open(path).read()
        sizes = {}  # buffer -> elements, from the kernel IR: "  buffer NAME: KIND [DOMAIN][DIMS] ..."
        for bm in re.finditer(r'^  buffer ([A-Za-z0-9_]+): (?:param|[a-z]+ global)\[([0-9, ]*)\]', open(kir).read(), re.M):
            elems = 1
            for d in bm.group(2).split(","):  # (a scalar's dims are [])
                elems *= int(d) if d.strip() else 1
            sizes[bm.group(1)] = elems
        for m in KERNEL.finditer(text):
            name, n = m.group(1), int(m.group(2))
            start = text.index("\n", m.start()) + 1
            while not text.startswith('extern "C"', start):  # the comment's other lines
                start = text.index("\n", start) + 1
            end = text.index("\n}\n", start) + 3
            body = text[start:end]
            sig = SIGNATURE.match(body.split("\n", 1)[0])
            if not sig or sig.group(1) != name:
                sys.stderr.write("grid_wide_check: %s: kernel %s: its signature was not found\n" % (path, name))
                return 2
            ps = params(sig.group(2), path, name)
            # a buffer the kernel reads as well as writes starts alike in every run (its old values
            # are part of the result); one it only writes starts with each run's own NaNs
            for i, (t, pn, kind, size, writable) in enumerate(ps):
                if writable:
                    # (a store is `NAME[k] = ...` at the start of a line: grid_elementwise's form)
                    reads = len(re.findall(r'\b%s\[' % pn, body)) - len(re.findall(r'^ *%s\[k\d*\] = ' % pn, body, re.M))
                    ps[i] = (t, pn, kind, size, "rw" if reads > 0 else "w")
            # each buffer the kernel only writes: the bound of the loop that stores it (every
            # element below it written, none above)
            bounds = {}
            for lm in re.finditer(r'^  for \(int64_t (k\d*) = thread; \1 < (\d+); \1 \+= threads\) \{\n(.*?)^  \}$', body, re.M | re.S):
                for sm in re.finditer(r'^ *([A-Za-z0-9_]+)\[%s\] = ' % lm.group(1), lm.group(3), re.M):
                    bounds[sm.group(1)] = max(bounds.get(sm.group(1), 0), int(lm.group(2)))
            for (t, pn, kind, size, w) in ps:
                if kind and pn not in sizes:
                    sys.stderr.write("grid_wide_check: %s: kernel %s: %s is not a global buffer or parameter of %s\n" % (path, name, pn, kir))
                    return 2
                if w == "w" and pn not in bounds:
                    sys.stderr.write("grid_wide_check: %s: kernel %s: no loop found that stores %s\n" % (path, name, pn))
                    return 2
            kernels.append(body)
            runs.append((name, n, ps, bounds, {pn: sizes[pn] for (t, pn, kind, b, w) in ps if kind}))

    if not runs:
        sys.stderr.write("grid_wide_check: no grid-wide kernel in %s\n" % " ".join(argv[1:]))
        return 2
    with open(argv[0], "w") as f:
        with open(EMU_H) as h:
            f.write(SHIM.replace('@CUDA_EMU_H@', h.read(), 1))
        f.write("\n// ---- the kernels, verbatim\n\n")
        for k in kernels:
            f.write(k + "\n")
        f.write("// ---- every kernel on every grid and order against the launch's grid\n")
        f.write("int main(void) {\n  int bad = 0;\n  int64_t where;\n  (void)where;\n")
        for name, n, ps, bounds, elems in runs:
            grid = (n + 255) // 256
            f.write("  { /* %s */\n" % name)
            bufs = [(t, pn, kind, b, w) for (t, pn, kind, b, w) in ps if kind]
            for j, (t, pn, kind, b, w) in enumerate(bufs):
                f.write("    %s *ref_%s = (%s *)shim_buffer(%d, %d, '%s', %d, %d);\n" % (t, pn, t, elems[pn], b, kind, 1000 + j, 1 if w == "w" else 0))
            call_ref = "%s(%s)" % (name, ", ".join("1" if pn == "nrows" else "ref_" + pn for (t, pn, kind, b, w) in ps))
            f.write("    SHIM_RUN(%d, 0, %s);\n" % (grid, call_ref))
            f.write("    int runs = 0, ok = 1;\n")
            for (t, pn, kind, b, w) in bufs:  # the reference wrote every element
                if w == "w":
                    f.write("    for (int64_t i = 0; i < %d && ok; i++) {\n" % elems[pn])
                    f.write("      uint64_t bits = 0;\n      memcpy(&bits, &ref_%s[i], %d);\n" % (pn, b))
                    f.write("      if (bits == %s) {\n" % ("0x7fc00001u" if b == 4 else "0x7ff8000000000001ull"))
                    f.write("        printf(\"FAIL %s: %s[%%lld] of %d not written on the launch's grid (its loop runs to %d)\\n\", (long long)i);\n" % (name, pn, elems[pn], bounds[pn]))
                    f.write("        ok = 0, bad++;\n      }\n    }\n")
            f.write("    const int64_t grids[] = {1, 2, 3, 7, 128, %d};\n" % (grid + 5))
            f.write("    for (int g = 0; g < 6 && ok; g++)\n      for (int rev = 0; rev < 2 && ok; rev++) {\n")
            for j, (t, pn, kind, b, w) in enumerate(bufs):
                f.write("        %s *run_%s = (%s *)shim_buffer(%d, %d, '%s', %d, %s);\n" % (t, pn, t, elems[pn], b, kind, 1000 + j, "2 + g * 2 + rev" if w == "w" else "0"))
            call = "%s(%s)" % (name, ", ".join("1" if pn == "nrows" else "run_" + pn for (t, pn, kind, b, w) in ps))
            f.write("        SHIM_RUN(grids[g], rev, %s);\n        runs++;\n" % call)
            for (t, pn, kind, b, w) in bufs:
                f.write("        if (ok && !shim_same(ref_%s, run_%s, %d, %d, %d, &where)) {\n" % (pn, pn, elems[pn], b, 1 if w == "w" else 0))
                f.write("          printf(\"FAIL %s: %s[%%lld] differs on %%lld blocks, threads in %%s order, from the launch's %d\\n\", "
                        "(long long)where, (long long)grids[g], rev ? \"reverse\" : \"ascending\");\n" % (name, pn, grid))
                f.write("          ok = 0, bad++;\n        }\n")
            for (t, pn, kind, b, w) in bufs:
                f.write("        free(run_%s);\n" % pn)
            f.write("      }\n")
            f.write("    if (ok && runs == 12) printf(\"ok %s\\n\");\n" % name)
            for (t, pn, kind, b, w) in bufs:
                f.write("    free(ref_%s);\n" % pn)
            f.write("  }\n")
        f.write("  return bad ? 1 : 0;\n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
