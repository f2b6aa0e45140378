#!/usr/bin/env python3
"""bench/peers_report.py -- the table and plots of bench/peers.sh, from its .tsv (one row per run).

  peers_report.py table RESULTS.tsv          markdown on stdout
  peers_report.py plot RESULTS.tsv DIR       DIR/peers-time.png, DIR/peers-memory.png (matplotlib)
  peers_report.py slower RESULTS.tsv         the workloads where gnnc is slower than the best peer (most threads)
  peers_report.py compact RESULTS.tsv        the README's table (the best peer / gnnc per workload and thread count)
RESULTS.tsv may name several files separated by commas (merged, e.g. a default run and a Reddit run).

Per workload, thread count and side: the median over the rounds of each run's median (forward,
train step), and the largest peak RSS. Sides: gnnc, PyG (pyg-edge_index, pyg-csr) and DGL (dgl).
"vs PyG" is PyG's best variant (edge_index or CSR) over gnnc, "vs DGL" DGL over gnnc, "vs best"
the best of DGL and PyG over gnnc: > 1 means gnnc is faster; the memory ratios the same for peak
RSS. Without a DGL side the table has one ratio per metric, "speedup" (PyG's best, as before).
A side whose runs all failed shows its status (OOM, timeout, killed, error) instead of a number.
Plain Python (no NumPy) for the table.
"""
import csv
import os
import statistics
import sys


def load(path):
    """One .tsv, or several separated by commas (merged in order)."""
    rows = []
    for one in path.split(","):
        with open(one) as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    agg = {}
    order = []
    for r in rows:
        key = (r["workload"], r["threads"], r["side"])
        if r["workload"] not in order:
            order.append(r["workload"])
        agg.setdefault(key, []).append(r)
    return agg, order


def summary(runs):
    ok = [r for r in runs if r["status"] == "ok"]
    if not ok:
        st = runs[0]["status"] or "error"
        # the forwards completed, the training did not: training ran out of memory (gnnc: the
        # forward timed again with an inference-only library) or past the time limit
        part = [r for r in runs if r["forward_ms"]]
        if part:
            st = "oom-train" if st in ("oom", "oom-train") else st + "-train"
            return {"status": st, "fwd": statistics.median(float(r["forward_ms"]) for r in part),
                    "nv": part[0]["nv"], "ne": part[0]["ne"],
                    "runs": f"{part[0].get('forward_runs') or '?'}/0"}
        return {"status": st}

    def med(k):
        v = [float(r[k]) for r in ok if r[k]]
        return statistics.median(v) if v else None

    def mx(k):
        v = [float(r[k]) for r in ok if r.get(k)]
        return max(v) if v else None

    # the peak above the process's base (the graph loaded, no model; for a peer, Python and torch
    # imported: ~250-720 MiB before any tensor): the runs' largest, from runs that report a base
    # (bench/peers.sh since 2026-12-03; older .tsv files have no rss_base_mib column)
    above = [float(r["peak_rss_mib"]) - float(r["rss_base_mib"]) for r in ok if r.get("peak_rss_mib") and r.get("rss_base_mib")]
    return {"status": "ok", "fwd": med("forward_ms"), "train": med("train_ms"), "rss": mx("peak_rss_mib"),
            "base": mx("rss_base_mib"), "above": max(above) if above else None,
            "arena": mx("plan_arena_mib"), "rtpeak": mx("runtime_peak_mib"), "cuda": mx("cuda_peak_mib"),
            "nv": ok[0]["nv"], "ne": ok[0]["ne"],
            "runs": f"{ok[0].get('forward_runs') or '?'}/{ok[0].get('train_runs') or '?'}"}


def fmt(s, k, nd=1):
    if s is None:
        return "—"
    if s["status"].endswith("-train"):
        if k != "fwd":
            return "**" + {"oom-train": "OOM"}.get(s["status"], s["status"][:-6]) + "**"
        s = dict(s, status="ok")
    if s["status"] != "ok":
        return {"oom": "**OOM**", "timeout": "**timeout**", "killed": "**killed**"}.get(s["status"], "**" + s["status"] + "**")
    v = s.get(k)
    if v is None:
        return "—"
    return f"{v:.{nd}f}" if v < 1000 else f"{v:,.0f}"


def ratio(g, peers, k, who="PyG"):
    """The peers' best (smallest) over gnnc's; markers for one-sided failures."""
    def why(x):
        st = x["status"].replace("-train", "")
        return "OOM" if st == "oom" else st

    good = [p[k] for p in peers if p and (p["status"] == "ok" or p["status"].endswith("-train")) and p.get(k)]
    if k == "above" and (not good or not g or not g.get(k)):
        return "—"  # a side without a base (an older .tsv) or without a completed run
    fails = sorted({why(p) for p in peers if p and not p.get(k)})
    if not g or not g.get(k):
        gw = why(g) if g else "not run"
        if good:
            return f"{who} only (gnnc {gw})"
        return f"neither (gnnc {gw}, {who} {'/'.join(fails)})" if fails else "—"
    if not good:
        return f"gnnc only ({who} " + "/".join(fails) + ")" if fails else "—"
    r = min(good) / g[k]
    return f"**{r:.2f}x**" if r >= 1 else f"{r:.2f}x"


def side_order(s):
    """gnnc, then PyG's variants, then DGL (then anything else)."""
    return (s != "gnnc", not s.startswith("pyg"), s != "dgl", s)


def ratios(g, S, pyg, k):
    """The ratio cells of one metric: one "speedup" (PyG's best) without DGL; with DGL, vs PyG,
    vs DGL and vs the best of both."""
    P = [S[s] for s in pyg]
    if "dgl" not in S:
        return [ratio(g, P, k)]
    return [ratio(g, P, k) if pyg else "—", ratio(g, [S["dgl"]], k, "DGL"), ratio(g, P + [S["dgl"]], k, "peers")]


def table(path):
    agg, order = load(path)
    sides = sorted({k[2] for k in agg}, key=side_order)
    peers = [s for s in sides if s != "gnnc"]
    pyg = [s for s in peers if s.startswith("pyg")]
    dgl = "dgl" in sides
    threads = sorted({k[1] for k in agg}, key=int)
    out = []

    def rh(what, mem=False):
        if not dgl:
            return [f"{what} ratio" if mem else f"{what} speedup"]
        return [f"{what} vs PyG", f"{what} vs DGL", f"{what} vs best"]
    hdr = ["workload", "V / E", "thr", "runs", "gnnc fwd ms"] + [f"{s} fwd ms" for s in peers] + rh("fwd") + ["gnnc train ms"] + \
          [f"{s} train ms" for s in peers] + rh("train") + ["gnnc RSS MiB"] + [f"{s} RSS MiB" for s in peers] + \
          rh("mem", True) + ["gnnc base MiB"] + [f"{s} base MiB" for s in peers] + rh("mem above base", True) + \
          ["gnnc arena MiB"]
    if any(k[2] != "gnnc" and summary(v).get("cuda") for k, v in agg.items()):
        hdr += ["gnnc device peak MiB"] + [f"{s} cuda peak MiB" for s in peers]
        cuda = True
    else:
        cuda = False
    out.append("| " + " | ".join(hdr) + " |")
    out.append("|" + "---|" * len(hdr))
    for w in order:
        for t in threads:
            S = {s: summary(agg[(w, t, s)]) if (w, t, s) in agg else None for s in sides}
            g = S.get("gnnc")
            P = [S[s] for s in peers]
            any_ok = next((x for x in S.values() if x and x["status"] == "ok"), None) or \
                next((x for x in S.values() if x and x["status"].endswith("-train")), None)
            size = f"{int(any_ok['nv']):,} / {int(any_ok['ne']):,}" if any_ok and any_ok.get("nv") else "—"
            runs = any_ok["runs"] if any_ok else "—"
            row = [w, size, t, runs, fmt(g, "fwd", 2)] + [fmt(p, "fwd", 2) for p in P] + ratios(g, S, pyg, "fwd") + \
                  [fmt(g, "train", 2)] + [fmt(p, "train", 2) for p in P] + ratios(g, S, pyg, "train") + [fmt(g, "rss")] + \
                  [fmt(p, "rss") for p in P] + ratios(g, S, pyg, "rss") + [fmt(g, "base")] + [fmt(p, "base") for p in P] + \
                  ratios(g, S, pyg, "above") + [fmt(g, "arena")]
            if cuda:
                row += [fmt(g, "rtpeak")] + [fmt(p, "cuda") for p in P]
            out.append("| " + " | ".join(str(c) for c in row) + " |")
    print("\n".join(out))
    print()
    print(("vs PyG: PyG's best variant (edge_index, CSR, or for EdgeConv the hand rewrite, pyg-rewrite) divided by gnnc; vs DGL: DGL divided by gnnc; vs best: the best "
           "of DGL and PyG divided by gnnc (> 1: gnnc ahead, in bold). " if dgl else
           "speedup and mem ratio: PyG's best variant divided by gnnc (> 1: gnnc ahead, in bold); for EdgeConv "
           "pyg-rewrite is PyG's EdgeConv rewritten by hand as gnnc rewrites it, pyg-edge_index PyG's own. ") +
          "RSS: the whole process's peak resident memory (a peer's includes Python and torch before any "
          "tensor: ~250 MiB with Debian's torch 1.13, ~500 MiB with PyPI's torch 2.2.1 (DGL's), ~720 MiB with torch 2.15); "
          "base: the process's RSS after the graph's load, before the model (a peer's: Python, torch and the graph; "
          "rss_base_mib in the run logs); mem ratio: the peaks' ratio, mostly the import's cost on small graphs; "
          "mem above base: the ratio of (peak - base), the memory the model and its training took; "
          "arena: gnnc's planned intermediate buffers. "
          "OOM or timeout beside a forward time: the forwards completed, training did not (gnnc's forward is then "
          "timed with an inference-only library, -fno-autodiff). runs: timed forwards / timed training steps per process. — : not run (MoNet and EdgeConv have no CSR variant here).")
    vers = sorted({(k[2], r["versions"]) for k, runs in agg.items() for r in runs if k[2] != "gnnc" and r.get("versions")},
                  key=lambda p: side_order(p[0]))
    if vers:
        print()
        print("Versions, as each peer's runs reported them: " + "; ".join(f"{s}: {v}" for s, v in vers) + ".")


def compact(path):
    """The README's table: per workload, the best peer (DGL or PyG's best variant) over gnnc at each thread count."""
    agg, order = load(path)
    threads = sorted({k[1] for k in agg}, key=int)
    hdr = ["workload"] + [f"train step, {t} thr" for t in threads] + [f"forward, {t} thr" for t in threads] + \
          [f"peak RSS, {threads[-1]} thr", f"peak RSS above base, {threads[-1]} thr"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for w in order:
        cells = []
        for k in ("train", "fwd"):
            for t in threads:
                if (w, t, "gnnc") not in agg:
                    cells.append("—")
                    continue
                g = summary(agg[(w, t, "gnnc")])
                P = [summary(v) for (ww, tt, sd), v in agg.items() if ww == w and tt == t and sd != "gnnc"]
                cells.append(ratio(g, P, k))
        t = threads[-1]
        if (w, t, "gnnc") in agg:
            g = summary(agg[(w, t, "gnnc")])
            P = [summary(v) for (ww, tt, sd), v in agg.items() if ww == w and tt == t and sd != "gnnc"]
            cells.append(ratio(g, P, "rss"))
            cells.append(ratio(g, P, "above"))
        else:
            cells += ["—", "—"]
        print("| " + " | ".join([w] + cells) + " |")


def slower(path):
    """Workloads where gnnc's forward or training step is slower than the best peer (DGL or PyG), at the most threads."""
    agg, order = load(path)
    threads = sorted({k[1] for k in agg}, key=int)
    t = threads[-1]
    names = []
    for w in order:
        g = summary(agg[(w, t, "gnnc")]) if (w, t, "gnnc") in agg else None
        if not g or g["status"] != "ok":
            continue
        peers = [summary(v) for (ww, tt, s), v in agg.items() if ww == w and tt == t and s != "gnnc"]
        for k in ("fwd", "train"):
            best = [p[k] for p in peers if p["status"] == "ok" and p.get(k)]
            if best and g.get(k) and min(best) < g[k]:
                names.append(w)
                break
    print(" ".join(names))


def plot(path, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agg, order = load(path)
    sides = sorted({k[2] for k in agg}, key=side_order)
    threads = sorted({k[1] for k in agg}, key=int)
    t = threads[-1]
    colors = {"gnnc": "#1f77b4", "pyg-edge_index": "#ff7f0e", "pyg-csr": "#2ca02c", "dgl": "#d62728"}
    os.makedirs(outdir, exist_ok=True)

    def bars(ax, key, title, ylabel):
        n = len(sides)
        width = 0.8 / n
        for i, s in enumerate(sides):
            xs, ys, fails = [], [], []
            for j, w in enumerate(order):
                sm = summary(agg[(w, t, s)]) if (w, t, s) in agg else None
                x = j + (i - (n - 1) / 2) * width
                if sm and (sm["status"] == "ok" or sm["status"].endswith("-train")) and sm.get(key):
                    xs.append(x)
                    ys.append(sm[key])
                elif sm:
                    fails.append((x, sm["status"].replace("-train", "")))
            ax.bar(xs, ys, width, label=s, color=colors.get(s))
            for x, st in fails:
                ax.text(x, 0.02, st.upper(), rotation=90, ha="center", va="bottom", fontsize=7, color=colors.get(s),
                        transform=ax.get_xaxis_transform())
        ax.set_yscale("log")
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order, rotation=35, ha="right", fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", which="both", alpha=0.3)

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    bars(axes[0], "fwd", f"inference forward, {t} thread(s)", "ms (median, log scale)")
    bars(axes[1], "train", f"training step (fwd + bwd + Adam), {t} thread(s)", "ms (median, log scale)")
    axes[0].legend(fontsize=8)
    fig.suptitle("gnnc vs PyTorch Geometric and DGL: time (lower is better; " + ", ".join(os.path.basename(x) for x in path.split(",")) + ")", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "peers-time.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.8))
    bars(ax, "rss", f"peak RSS of the process, {len(order)} workloads, {t} thread(s)", "MiB (log scale)")
    ax.legend(fontsize=8)
    fig.suptitle("gnnc vs PyTorch Geometric and DGL: peak memory (lower is better; " + ", ".join(os.path.basename(x) for x in path.split(",")) + ")", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "peers-memory.png"), dpi=110)
    plt.close(fig)
    print(f"peers: wrote {outdir}/peers-time.png and {outdir}/peers-memory.png", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "compact":
        compact(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "slower":
        slower(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "plot":
        plot(sys.argv[2], sys.argv[3])
    else:
        print("usage: peers_report.py table|slower|compact RESULTS.tsv[,MORE.tsv] | plot RESULTS.tsv[,MORE.tsv] DIR", file=sys.stderr)
        sys.exit(2)
