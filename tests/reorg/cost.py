#!/usr/bin/python3
"""cost.py -- the cost report before and after reorg, against closed forms written from the dims.

  cost.py GNNC TMPDIR     prints "ok NAME ..." or "FAIL NAME: why" per case

Each closed form below is derived by hand from the cost table of docs/ir.md (per value: FLOPs
fl * n per row of its domain; bytes = 4 * elements read + 4 * elements written; parameters and
globals once), value by value in the order the IR lists them, and summed per layer. It is
compared exactly with `gnnc MODEL --stats=symbolic`, the lines after canonicalize (what reorg
receives) and after reorg, as polynomials c_E E + c_V V + c. Peak live bytes are not checked.

  attention/f=F   the paper's GAT attention (section 4), one head, h already projected:
                  leaky_relu(dot(a, concat(h[src], h[dst]))) -- 6|E|f + |E| FLOPs before reorg
                  (u_concat_v 2|E|f, dot 4|E|f, leaky_relu |E|), 4|V|f + 2|E| after
  gat, edgeconv, gcn   the examples as written in dsl-examples/
  sgc             tests/ir/reorg_project.gnn: W.(A A x) for Cora's F = 1433 and O = 7, before and
                  after the project rule moves W in front of both propagations; and its bytes at
                  Cora's V = 2708, E = 10556 drop more than 18x (issue 16, item 8: 39x)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class P:
    """c_E E + c_V V + c."""

    def __init__(self, e=0, v=0, c=0):
        self.e, self.v, self.c = e, v, c

    def __add__(self, o):
        return P(self.e + o.e, self.v + o.v, self.c + o.c)

    def __eq__(self, o):
        return (self.e, self.v, self.c) == (o.e, o.v, o.c)

    def __repr__(self):
        t = [("%d*E" % self.e) if self.e else "", ("%d*V" % self.v) if self.v else "", ("%d" % self.c) if self.c else ""]
        return " + ".join(x for x in t if x) or "0"


def total(*ps):
    s = P()
    for p in ps:
        s = s + p
    return s


def parse_poly(text):
    p = P()
    for term in text.split(" + "):
        m = re.fullmatch(r"(\d+)(\*E|\*V)?", term.strip())
        if not m:
            raise ValueError("cannot read %r" % text)
        k = int(m.group(1))
        if m.group(2) == "*E":
            p.e += k
        elif m.group(2) == "*V":
            p.v += k
        else:
            p.c += k
    return p


def stats(gnnc, path):
    r = subprocess.run([gnnc, path, "--stats=symbolic"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"stats after (\S+) +flops (.*?)  bytes (.*?)  peak-live (.*)$", line)
        if m:
            out[m.group(1)] = (parse_poly(m.group(2)), parse_poly(m.group(3)))
    return out


# ------------------------------------------------------------------ the paper's attention

def attention(f):
    # before: u_concat_v(h, h): 2f per E, reads 4f + 4f, writes 8f
    #         dot(a, c): 2 * 2f per E (one head), reads a (8f, once) and 8f per E, writes 4
    #         leaky_relu: 1 per E, reads 4, writes 4
    before = (P(e=2 * f) + P(e=4 * f) + P(e=1),
              P(e=16 * f) + P(c=8 * f, e=8 * f + 4) + P(e=8))
    # after:  a_l, a_r = slice(a): 0 FLOPs, each reads a (8f) and writes f values (4f), once
    #         dot(a_l, h), dot(a_r, h): 2f per V each, reads 4f once and 4f per V, writes 4 per V
    #         u_add_v: 1 per E, reads 4 + 4, writes 4; leaky_relu as before
    after = (P(v=2 * f) + P(v=2 * f) + P(e=1) + P(e=1),
             P(c=12 * f) + P(c=12 * f) + P(c=4 * f, v=4 * f + 4) + P(c=4 * f, v=4 * f + 4) + P(e=12) + P(e=8))
    return before, after


# ------------------------------------------------------------------ GAT

def gat_layer(F, H, D, reorg):
    """GATConv<H, D> on x: vertex[F], as the IR has it (n = HD features per row)."""
    HD = H * D
    if not reorg:
        # copy_u(x) [0; 8F E], linear [2F.HD E; 4F E + 4F.HD + 4HD E], the same for copy_v,
        # concat [2HD E; 16HD E], dot(a, .) [4HD E; 8HD once + 8HD E + 4H E], leaky_relu [H E; 8H E],
        # edge_softmax [5H E; 12H E], dropout on alpha [H E; 8H E], alpha * linear_u [HD E; 4H + 8HD per E],
        # gather.sum [HD E; 4HD E + 4HD V]
        flops = P(e=2 * 2 * F * HD + 2 * HD + 4 * HD + H + 5 * H + H + HD + HD)
        bytes_ = P(e=8 * F + (4 * F + 4 * HD) + 8 * F + (4 * F + 4 * HD) + 16 * HD + (8 * HD + 4 * H) + 8 * H + 12 * H
                   + 8 * H + (4 * H + 8 * HD) + 4 * HD,
                   v=4 * HD, c=2 * 4 * F * HD + 8 * HD)
    else:
        # linear(x, W) per vertex [2F.HD V; 4F V + 4F.HD + 4HD V], copy_u(W x) [0; 8HD E],
        # slices a_l, a_r [0; 12HD once each], dot(a_l, Wx), dot(a_r, Wx) [2HD V each; 4HD once + 4HD V + 4H V],
        # u_add_v [H E; 12H E], leaky_relu, edge_softmax, dropout, the product and the gather as before
        flops = P(v=2 * F * HD + 2 * HD + 2 * HD, e=H + H + 5 * H + H + HD + HD)
        bytes_ = P(v=(4 * F + 4 * HD) + 2 * (4 * HD + 4 * H) + 4 * HD,
                   e=8 * HD + 12 * H + 8 * H + 12 * H + 8 * H + (4 * H + 8 * HD) + 4 * HD,
                   c=4 * F * HD + 2 * 12 * HD + 2 * 4 * HD)
    return flops, bytes_


def gat(reorg):
    F0, H1, D1, H2, D2 = 1433, 8, 8, 1, 7
    l1, l2 = gat_layer(F0, H1, D1, reorg), gat_layer(H1 * D1, H2, D2, reorg)
    n1 = H1 * D1
    # dropout(x) [F0 V; 8F0 V]; flatten [0; 8n1 V]; elu, dropout [n1 V each; 8n1 V each];
    # mean_heads over H2 heads [H2 D2 V; 4 H2 D2 + 4 D2 per V]
    flops = total(P(v=F0), l1[0], P(v=n1 + n1), l2[0], P(v=H2 * D2))
    bytes_ = total(P(v=8 * F0), l1[1], P(v=3 * 8 * n1), l2[1], P(v=4 * H2 * D2 + 4 * D2))
    return flops, bytes_


# ------------------------------------------------------------------ EdgeConv

def edgeconv(reorg):
    widths = [3, 64, 64, 128, 256]
    flops, bytes_ = P(), P()
    for i, (Fi, D) in enumerate(zip(widths, widths[1:])):
        if not reorg:
            # copy_v(x) [0; 8F E], u_sub_v(x, x) [F E; 12F E], linear by theta and by phi
            # [2FD E each; 4F E + 4FD + 4D E each], add [D E; 12D E], gather.max [D E; 4D E + 4D V]
            flops = flops + P(e=Fi + 2 * 2 * Fi * D + D + D)
            bytes_ = bytes_ + P(e=8 * Fi + 12 * Fi + 2 * (4 * Fi + 4 * D) + 12 * D + 4 * D, v=4 * D, c=2 * 4 * Fi * D)
        else:
            # linear(x, theta) [2FD V; 4F V + 4FD + 4D V], phi - theta [FD once; 12FD once],
            # linear(x, phi - theta) [as the first], copy_u(theta x) [0; 8D E], gather.max [D E; 4D E + 4D V],
            # (phi - theta) x * sign(in_deg) [D V; 8D + 4 per V], max + that [D V; 12D V]
            flops = flops + P(v=2 * 2 * Fi * D + D + D, e=D, c=Fi * D)
            bytes_ = bytes_ + P(v=2 * (4 * Fi + 4 * D) + 4 * D + (8 * D + 4) + 12 * D, e=8 * D + 4 * D,
                                c=2 * 4 * Fi * D + 12 * Fi * D)
        if i < 3:  # relu between layers [D V; 8D V]
            flops, bytes_ = flops + P(v=D), bytes_ + P(v=8 * D)
    if reorg:  # sign(in_deg), once for the four layers [1 V; 8 V]
        flops, bytes_ = flops + P(v=1), bytes_ + P(v=8)
    return flops, bytes_


# ------------------------------------------------------------------ GCN

def gcn(reorg):
    F0, H1, C = 1433, 16, 7
    # dropout(x) [F0 V; 8F0 V]; c = rsqrt(u_mul_v(out_deg, in_deg)), shared by both layers
    # [1 E; 12 E] + [1 E; 8 E]; relu and dropout between the layers [H1 V each; 8H1 V each]
    flops, bytes_ = P(v=F0, e=2), P(v=8 * F0, e=12 + 8)
    for Fi, D in ((F0, H1), (H1, C)):
        if not reorg:
            # copy_u(x) [0; 8F E], linear [2FD E; 4F E + 4FD + 4D E]
            flops, bytes_ = flops + P(e=2 * Fi * D), bytes_ + P(e=8 * Fi + 4 * Fi + 4 * D, c=4 * Fi * D)
        else:
            # linear per vertex [2FD V; 4F V + 4FD + 4D V], copy_u(W x) [0; 8D E]
            flops, bytes_ = flops + P(v=2 * Fi * D), bytes_ + P(v=4 * Fi + 4 * D, c=4 * Fi * D, e=8 * D)
        # c * message [D E; 4 + 8D per E], gather.sum [D E; 4D E + 4D V], + b [D V; 8D V + 4D]
        flops = flops + P(e=D + D, v=D)
        bytes_ = bytes_ + P(e=4 + 8 * D + 4 * D, v=4 * D + 8 * D, c=4 * D)
    flops, bytes_ = flops + P(v=2 * H1), bytes_ + P(v=2 * 8 * H1)
    return flops, bytes_


# ------------------------------------------------------------------ SGC (the project rule)

def sgc(reorg, F=1433, O=7):
    # c = rsqrt(in_deg + 1) [1 V; 8 V + 4] + [1 V; 8 V]
    flops, bytes_ = P(v=2), P(v=16, c=4)
    if not reorg:
        # per step: copy_u(c) [0; 8 E] (once, shared), copy_u(h) [0; 8F E], c_u * h_u [F E; (8F + 4) E],
        # gather.sum [F E; 4F E + 4F V], c * sum [F V; (8F + 4) V]; then linear [2FO V; 4F V + 4FO + 4O V]
        flops = flops + P(e=2 * (F + F), v=2 * F + 2 * F * O)
        bytes_ = bytes_ + P(e=8 + 2 * (8 * F + 8 * F + 4 + 4 * F), v=2 * (4 * F + 8 * F + 4) + 4 * F + 4 * O, c=4 * F * O)
    else:
        # linear(x, W) first [2FO V; 4F V + 4FO + 4O V], then per step, all O wide:
        # c * h [O V; (8O + 4) V], copy_u [0; 8O E], gather.sum [O E; 4O E + 4O V], c * sum [O V; (8O + 4) V]
        flops = flops + P(v=2 * F * O + 2 * (O + O), e=2 * O)
        bytes_ = bytes_ + P(v=4 * F + 4 * O + 2 * (2 * (8 * O + 4) + 4 * O), e=2 * (8 * O + 4 * O), c=4 * F * O)
    return flops, bytes_


def check(name, got, want):
    if got is None:
        print("FAIL %s: no stats line" % name)
        return False
    for what, g, w in (("flops", got[0], want[0]), ("bytes", got[1], want[1])):
        if g != w:
            print("FAIL %s: %s %r, the closed form gives %r" % (name, what, g, w))
            return False
    print("ok %s: flops %r, bytes %r" % (name, got[0], got[1]))
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    gnnc, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    ok = True
    for f in (4, 16, 64):
        path = os.path.join(tmp, "attention_%d.gnn" % f)
        with open(path, "w") as fh:
            fh.write("model Att(h: vertex[%d]) -> edge[] {\n  param a: [%d]\n"
                     "  return leaky_relu(dot(a, concat(h[src], h[dst])), 0.2)\n}\n" % (f, 2 * f))
        s = stats(gnnc, path)
        before, after = attention(f)
        ok &= check("attention/f=%d/before" % f, s.get("canonicalize"), before)
        ok &= check("attention/f=%d/after" % f, s.get("reorg"), after)
        # the closed forms above are the paper's FLOP counts: 6|E|f + |E| before, 4|V|f + 2|E| after
        if before[0] == P(e=6 * f + 1) and after[0] == P(v=4 * f, e=2):
            print("ok attention/f=%d/paper: %r before, %r after" % (f, before[0], after[0]))
        else:
            print("FAIL attention/f=%d/paper: the closed forms are not the paper's" % f)
            ok = False
    for name, model in (("gat", gat), ("edgeconv", edgeconv), ("gcn", gcn)):
        s = stats(gnnc, os.path.join(ROOT, "dsl-examples", name + ".gnn"))
        ok &= check("%s/before" % name, s.get("canonicalize"), model(False))
        ok &= check("%s/after" % name, s.get("reorg"), model(True))
    s = stats(gnnc, os.path.join(ROOT, "tests", "ir", "reorg_project.gnn"))
    ok &= check("sgc/before", s.get("canonicalize"), sgc(False))
    ok &= check("sgc/after", s.get("reorg"), sgc(True))
    V, E = 2708, 10556
    if s.get("canonicalize") and s.get("reorg"):
        b0, b1 = s["canonicalize"][1], s["reorg"][1]
        ratio = (b0.e * E + b0.v * V + b0.c) / (b1.e * E + b1.v * V + b1.c)
        if ratio > 18:
            print("ok sgc/cora-bytes: %.1fx fewer bytes after reorg" % ratio)
        else:
            print("FAIL sgc/cora-bytes: only %.2fx fewer bytes after reorg (want > 18x)" % ratio)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
