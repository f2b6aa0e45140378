"""tests/python/test_ddp_minibatch.py GNNC WORKDIR -- the mini-batch example data-parallel (issue 30 item 5).

python/examples/minibatch_sage.py (GraphSAGE as a GnncModule, neighbour-sampled batches) on a small
generated graph, one epoch, twice:

  - as two ranks (the processes and variables of torchrun --standalone --nproc_per_node=2): gloo, DistributedDataParallel over the
    GnncModule, rank r taking the epoch's batches r, r + 2, ... (each rank its own batches);
  - one process with --emulate-world 2: each step takes the two batches the ranks take and
    minimises their mean loss (what DDP's gradient average computes); its backward runs two
    graphs' forwards on one rebound gnnc model.

Checks: both ranks end with identical parameters (bit for bit: DDP keeps replicas in step); the
ranks' losses differ (they did see different batches); each step's loss averaged over the ranks
equals the single process's to 1e-5, and so do the final parameters (rtol 1e-5). Prints "ok NAME"
/ "FAIL NAME: detail" lines (tests/suites/python.sh counts them).
"""
import os
import socket
import subprocess
import sys

import torch

import check_lines  # noqa: E402
from check_lines import check  # noqa: E402
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ARGS = ["--side", "gnnc", "--graph", "gen:6000,60000", "--features", "16", "--classes", "4", "--hidden", "16",
        "--batch", "64", "--fanout", "5,3", "--epochs", "1", "--eval", "256", "--threads", "1", "--lr", "0.01"]


def run(cmd, name):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
    check(p.returncode == 0, name, "exit %d: %s" % (p.returncode, " ".join(p.stdout.strip().splitlines()[-4:])))
    return p.returncode == 0


def launch2(cmd, name):
    """The two ranks, started as torchrun --standalone --nproc_per_node=2 starts them (the env:// variables).
    Not torchrun itself: Debian's torch 1.13 torchrun fails under Python 3.11 before it starts a worker
    (torch/distributed/elastic/multiprocessing/api.py to_map gets None for the redirects)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(2):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2", RANK=str(rank),
                   LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2")
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outs = []
    for p in procs:
        try:
            outs.append(p.communicate(timeout=240)[0])
        except subprocess.TimeoutExpired:
            p.kill()
            outs.append(p.communicate()[0] + " (timed out)")
    rcs = [p.returncode for p in procs]
    check(rcs == [0, 0], name, "exit %s: %s" % (rcs, " | ".join(" ".join(o.strip().splitlines()[-3:]) for o in outs)))
    return rcs == [0, 0]


def main():
    gnnc_bin, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    example = os.path.join(ROOT, "python", "examples", "minibatch_sage.py")
    common = [example] + ARGS + ["--gnnc", gnnc_bin, "--workdir", work]
    env_ok = launch2([sys.executable] + common + ["--out", os.path.join(work, "ddp")], "ddp/two-ranks")
    single_ok = run([sys.executable] + common + ["--emulate-world", "2", "--out", os.path.join(work, "single")], "ddp/single")
    if not (env_ok and single_ok):
        return 1
    r0, r1 = (torch.load(os.path.join(work, "ddp", "rank%d.pt" % r)) for r in (0, 1))
    one = torch.load(os.path.join(work, "single", "rank0.pt"))
    names = sorted(one["params"])
    steps = len(one["losses"])
    check(steps >= 3 and len(r0["losses"]) == steps == len(r1["losses"]), "ddp/steps",
          "single %d steps, ranks %d and %d" % (steps, len(r0["losses"]), len(r1["losses"])))
    check(sorted(r0["params"]) == names and all(torch.equal(r0["params"][n], r1["params"][n]) for n in names),
          "ddp/ranks-identical", "the ranks' parameters differ after the epoch")
    check(r0["losses"] != r1["losses"], "ddp/ranks-own-batches", "both ranks saw the same losses: the same batches?")
    mean = [(a + b) / 2 for a, b in zip(r0["losses"], r1["losses"])]
    worst = max(abs(m - s) / max(1.0, abs(s)) for m, s in zip(mean, one["losses"]))
    check(worst <= 1e-5, "ddp/loss-equals-single", "worst step differs by %.3g (ranks' mean %s, single %s)" % (
        worst, mean, one["losses"]))
    close = all(torch.allclose(r0["params"][n], one["params"][n], rtol=1e-5, atol=1e-7) for n in names)
    diff = max(float((r0["params"][n] - one["params"][n]).abs().max()) for n in names)
    check(close, "ddp/params-equal-single", "max abs difference %.3g" % diff)
    return 1 if check_lines.failures else 0


if __name__ == "__main__":
    sys.exit(main())
