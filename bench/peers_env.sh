#!/usr/bin/env bash
# bench/peers_env.sh [VENV [DGL_VENV]] -- the peers' pythons for make bench-peers (bench/peers.sh).
#
# PyG (VENV, default build/peers-venv): current torch and torch_geometric from PyPI in a venv of
# their own (no system site-packages), unless PEERS_PYTHON names a python that imports them
# (then nothing is installed). PyPI's Linux torch wheel is the CUDA build: it pulls the nvidia-*
# CUDA libraries (about 3 GB of wheels, 2026-11: torch 2.15.0, torch_geometric 2.8.1); the
# CPU-only wheels live on download.pytorch.org, which this project's machines cannot reach, and
# the CUDA build runs on the CPU just the same. The sizes are printed before anything is
# downloaded (pip's dry-run report, each wheel's size from PyPI's file host).
#
# Fallback, only when the PyPI install fails: Debian's python3-torch (PyTorch 1.13.1) and
# torch_geometric 2.3.1 from PyPI in VENV-debian (python3 -m venv --system-site-packages; NumPy
# pinned to Debian's, SciPy < 1.12 to match it). bench/peers.sh uses VENV when it works, else
# VENV-debian, and every results file names the versions it ran.
#
# DGL (DGL_VENV, default build/peers-dgl-venv; PEERS_DGL=0: none): dgl 2.1.0, the last DGL on
# PyPI, built against torch 2.1-2.2, so torch 2.2.1 and torchdata 0.7.1 (NumPy < 2: torch 2.2 was
# built against NumPy 1; pandas, PyYAML and pydantic: dgl.graphbolt imports them) in a venv of
# a Python 3.11 (PEERS_DGL_BASE_PYTHON, else python3.11 on PATH, else /usr/bin/python3 if it is
# 3.11). PEERS_DGL_PYTHON names a python that already imports dgl. A DGL that cannot be
# installed is not an error: bench/peers.sh then says "DGL: not available (why)".
#
# Debian's python3-matplotlib (the plots) and python3-venv are installed with apt-get when
# missing. Exit 0 when a PyG python is usable.
set -eu -o pipefail
VENV=${1:-build/peers-venv}
DGL_VENV=${2:-build/peers-dgl-venv}
check() { "$1" -c 'import torch, torch_geometric' > /dev/null 2>&1; }
check_dgl() { "$1" -c 'import torch, dgl, dgl.nn.pytorch' > /dev/null 2>&1; }
vers() { "$1" -c 'import torch, torch_geometric as g; print("torch", torch.__version__, "torch_geometric", g.__version__)' 2> /dev/null; }
vers_dgl() { "$1" -c 'import torch, dgl; print("torch", torch.__version__, "dgl", dgl.__version__)' 2> /dev/null; }
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# apt_need PKG...: installs the Debian packages, their sizes printed first
apt_need() {
  [ $# -gt 0 ] || return 0
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq > /dev/null
  local sizes
  sizes=$(apt-get install -s --no-install-recommends "$@" 2> /dev/null | awk '/^Inst / {print $2}' |
    xargs -r apt-cache show --no-all-versions 2> /dev/null |
    awk '/^Package:/ {n++} /^Size:/ {s += $2} /^Installed-Size:/ {i += $2} END {printf "%d packages, %.0f MB of .deb files, %.0f MB installed", n, s / 1e6, i / 1024}')
  echo "peers-env: installing Debian's $* ($sizes)"
  $SUDO apt-get install -y -qq --no-install-recommends "$@" > /dev/null
}

# pip_sizes VENV REQ...: what pip would download for REQ in VENV, and how much, before it does
pip_sizes() {
  local venv=$1 report
  shift
  report=$(mktemp)
  if ! "$venv/bin/pip" install -q --disable-pip-version-check --dry-run --ignore-installed --report "$report" "$@" > /dev/null 2>&1; then
    rm -f "$report"
    echo "pip cannot resolve $* from PyPI"
    return 1
  fi
  "$venv/bin/python" - "$report" << 'EOF'
import concurrent.futures, json, sys, urllib.request
items = json.load(open(sys.argv[1]))["install"]
def size(it):
    url = it["download_info"]["url"]
    if not url.startswith("http"):
        return 0
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=30) as r:
            return int(r.headers.get("Content-Length") or 0)
    except Exception:
        return 0
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    sizes = list(ex.map(size, items))
total = sum(sizes)
nv = sum(s for it, s in zip(items, sizes) if it["metadata"]["name"].lower().startswith(("nvidia", "cuda", "triton")))
top = sorted(zip(sizes, items), key=lambda p: -p[0])[:4]
names = {it["metadata"]["name"].lower(): it["metadata"]["version"] for it in items}
main = ", ".join(f"{n} {names[n]}" for n in ("torch", "torch-geometric", "dgl", "torchdata") if n in names)
print(f"{main}; {len(items)} wheels, {total / 1e9:.2f} GB to download ({nv / 1e9:.2f} GB of it CUDA libraries: nvidia-*, cuda-*, triton); "
      "largest: " + ", ".join(f"{it['metadata']['name']} {s / 1e6:.0f} MB" for s, it in top)
      + ("" if all(sizes) else "; some sizes unknown"))
EOF
  rm -f "$report"
}

need=()
/usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1 || need+=(python3-matplotlib)
/usr/bin/python3 -c 'import ensurepip' > /dev/null 2>&1 || need+=(python3-venv)
apt_need "${need[@]}"

# ---------------------------------------------------------------- PyG
pyg_ok=
if [ -n "${PEERS_PYTHON:-}" ]; then
  check "$PEERS_PYTHON" || { echo "peers-env: PEERS_PYTHON=$PEERS_PYTHON cannot import torch and torch_geometric" >&2; exit 1; }
  echo "peers-env: PyG: using PEERS_PYTHON=$PEERS_PYTHON ($(vers "$PEERS_PYTHON"))"
  pyg_ok=1
elif check "$VENV/bin/python" && ! grep -qs '^include-system-site-packages *= *true' "$VENV/pyvenv.cfg"; then
  echo "peers-env: PyG: $VENV ready ($(vers "$VENV/bin/python"))"
  pyg_ok=1
else
  if [ -d "$VENV" ]; then
    # an older bench/peers_env.sh made VENV over Debian's torch 1.13: the fallback now lives in VENV-debian
    echo "peers-env: $VENV is not a working PyPI venv (an older one over Debian's torch, or a broken install): replacing it"
    rm -rf "$VENV"
  fi
  base=${PEERS_BASE_PYTHON:-/usr/bin/python3}
  echo "peers-env: PyG: creating $VENV ($base -m venv, $("$base" --version 2>&1 | head -n 1), no system site-packages)"
  if "$base" -m venv "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check -U pip > /dev/null 2>&1 &&
     sizes=$(pip_sizes "$VENV" torch torch_geometric); then
    echo "peers-env: PyG: installing from PyPI into $VENV: $sizes"
    if "$VENV/bin/pip" install -q --disable-pip-version-check --progress-bar off torch torch_geometric && check "$VENV/bin/python"; then
      echo "peers-env: PyG: $VENV ready ($(du -sh "$VENV" | cut -f1); $(vers "$VENV/bin/python"))"
      pyg_ok=1
    else
      echo "peers-env: PyG: the PyPI install into $VENV failed" >&2
    fi
  else
    echo "peers-env: PyG: ${sizes:-cannot create $VENV}" >&2
  fi
  if [ -z "$pyg_ok" ]; then
    # the fallback: Debian's torch 1.13 and torch_geometric 2.3.1 (its last release from that period)
    DEB=$VENV-debian
    rm -rf "$VENV"
    if check "$DEB/bin/python"; then
      echo "peers-env: PyG: FALLBACK $DEB ready ($(vers "$DEB/bin/python"))"
    else
      /usr/bin/python3 -c 'import torch' > /dev/null 2>&1 || apt_need python3-torch
      echo "peers-env: PyG: FALLBACK: creating $DEB (python3 -m venv --system-site-packages: Debian's torch is visible in it)"
      rm -rf "$DEB"
      /usr/bin/python3 -m venv --system-site-packages "$DEB"
      npv=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')
      echo "peers-env: PyG: FALLBACK: installing torch_geometric==2.3.1 from PyPI into $DEB (0.7 MB source; with its pure-Python dependencies and SciPy < 1.12, NumPy kept at Debian's $npv, the venv is about 100 MB)"
      "$DEB/bin/pip" install -q --disable-pip-version-check torch_geometric==2.3.1 "numpy==$npv" "scipy<1.12"
      check "$DEB/bin/python" || { echo "peers-env: $DEB still cannot import torch and torch_geometric" >&2; exit 1; }
      echo "peers-env: PyG: FALLBACK $DEB ready ($(du -sh "$DEB" | cut -f1) in the venv; $(vers "$DEB/bin/python"))"
    fi
    pyg_ok=1
  fi
fi

# ---------------------------------------------------------------- DGL
if [ "${PEERS_DGL:-1}" = 0 ]; then
  echo "peers-env: DGL: not installed (PEERS_DGL=0)"
elif [ -n "${PEERS_DGL_PYTHON:-}" ]; then
  if check_dgl "$PEERS_DGL_PYTHON"; then echo "peers-env: DGL: using PEERS_DGL_PYTHON=$PEERS_DGL_PYTHON ($(vers_dgl "$PEERS_DGL_PYTHON"))"
  else echo "peers-env: DGL: PEERS_DGL_PYTHON=$PEERS_DGL_PYTHON cannot import dgl: DGL will not be available" >&2; fi
elif check_dgl "$DGL_VENV/bin/python"; then
  echo "peers-env: DGL: $DGL_VENV ready ($(vers_dgl "$DGL_VENV/bin/python"))"
else
  dbase=${PEERS_DGL_BASE_PYTHON:-$(command -v python3.11 || true)}
  if [ -z "$dbase" ] && [ "$(/usr/bin/python3 -c 'import sys; print(sys.version_info[:2] == (3, 11))')" = True ]; then dbase=/usr/bin/python3; fi
  dreq=(dgl==2.1.0 torch==2.2.1 torchdata==0.7.1 "numpy<2" pandas pyyaml pydantic)
  if [ -z "$dbase" ]; then
    echo "peers-env: DGL: not available (no Python 3.11 here: dgl 2.1.0 on PyPI wants torch <= 2.2.1; PEERS_DGL_BASE_PYTHON= names one)" >&2
  else
    rm -rf "$DGL_VENV"
    echo "peers-env: DGL: creating $DGL_VENV ($dbase -m venv, $("$dbase" --version 2>&1 | head -n 1))"
    if "$dbase" -m venv "$DGL_VENV" && "$DGL_VENV/bin/pip" install -q --disable-pip-version-check -U pip > /dev/null 2>&1 &&
       sizes=$(pip_sizes "$DGL_VENV" "${dreq[@]}"); then
      echo "peers-env: DGL: installing from PyPI into $DGL_VENV: $sizes"
      if "$DGL_VENV/bin/pip" install -q --disable-pip-version-check --progress-bar off "${dreq[@]}" && check_dgl "$DGL_VENV/bin/python"; then
        echo "peers-env: DGL: $DGL_VENV ready ($(du -sh "$DGL_VENV" | cut -f1); $(vers_dgl "$DGL_VENV/bin/python"))"
      else
        echo "peers-env: DGL: the install into $DGL_VENV failed: DGL will not be available" >&2
      fi
    else
      echo "peers-env: DGL: not available (${sizes:-cannot create $DGL_VENV})" >&2
    fi
  fi
fi
[ -n "$pyg_ok" ]
