#!/usr/bin/python3
"""cuda_emu.py IN.cu OUT.cpp -- a CUDA source made plain C++ for the CPU emulator (cuda_emu.h).

Each launch `kernel<<<grid, block[, shmem[, stream]]>>>(args)` becomes
`cuda_emu_launch(grid, block, shmem, stream, PLAIN, [&] { kernel(args); })`, a call that runs
every thread of every block (include/cuda_runtime.h); the rest of the text is left as it is, line
for line, so g++'s messages point at the .cu's lines. PLAIN is 1 for a kernel that can meet no
barrier, shuffle or vote (neither it nor a function it calls names __syncwarp, __syncthreads,
__shfl*_sync, __any_sync or __all_sync): its threads then run as plain calls, one after another,
not as coroutines (100x faster; a plain kernel that meets one anyway stops the run with a
message). Exit 1 with a message on a launch it cannot read.
"""
import re
import sys

SYNC = re.compile(r'\b(__syncwarp|__syncthreads|__shfl\w*_sync|__any_sync|__all_sync)\b')
FUNC = re.compile(r"^[^\n;{}#]*?\b([A-Za-z_]\w*)\s*\([^;{}()]*\)\s*\{", re.M)
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def close(text, i, op, cl):
    """The index just past the bracket that closes the one at text[i]."""
    depth = 0
    while i < len(text):
        if text[i] == op:
            depth += 1
        elif text[i] == cl:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def bodies(text):
    out = {}
    for m in FUNC.finditer(text):
        start = m.end() - 1
        end = close(text, start, '{', '}')
        if end > 0 and m.group(1) not in ('if', 'for', 'while', 'switch'):
            out.setdefault(m.group(1), '')
            out[m.group(1)] += text[start:end]
    return out


def syncing(fns):
    """The functions that can meet a barrier: naming one, or calling one that does."""
    sync = {n for n, b in fns.items() if SYNC.search(b)}
    grew = True
    while grew:
        grew = False
        for n, b in fns.items():
            if n not in sync and any(w in sync for w in IDENT.findall(b)):
                sync.add(n)
                grew = True
    return sync


def split_top(s):
    parts, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def transform(text, path):
    sync = syncing(bodies(text))
    out, pos = [], 0
    for m in re.finditer(r'([A-Za-z_]\w*)\s*<<<', text):
        if m.start() < pos:
            continue
        name = m.group(1)
        cfg_end = text.find('>>>', m.end())
        if cfg_end < 0:
            raise SystemExit('%s: a launch of %s without >>>' % (path, name))
        cfg = split_top(text[m.end():cfg_end])
        if not 2 <= len(cfg) <= 4:
            raise SystemExit('%s: the launch of %s has %d configuration values' % (path, name, len(cfg)))
        cfg += ['0', 'NULL'][len(cfg) - 2:]
        a = cfg_end + 3
        while text[a].isspace():
            a += 1
        if text[a] != '(':
            raise SystemExit('%s: the launch of %s has no arguments after >>>' % (path, name))
        b = close(text, a, '(', ')')
        plain = 0 if name in sync else 1
        out.append(text[pos:m.start()])
        out.append('cuda_emu_launch(%s, %s, %s, %s, %d, [&] { %s%s; })' % (cfg[0], cfg[1], cfg[2], cfg[3], plain, name, text[a:b]))
        pos = b
    out.append(text[pos:])
    return ''.join(out)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    with open(sys.argv[1]) as f:
        text = f.read()
    res = transform(text, sys.argv[1])
    with open(sys.argv[2], 'w') as f:
        f.write('#line 1 "%s"\n' % sys.argv[1] + res)


if __name__ == '__main__':
    main()
