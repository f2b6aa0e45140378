#!/usr/bin/env bash
# bench/peers_env.sh VENV -- the PyG side's python for make bench-peers (bench/peers.sh).
#
# With PEERS_PYTHON set: checks that it imports torch and torch_geometric, installs nothing.
# Otherwise makes VENV (build/peers-venv) when it does not import them yet:
#
#   1. Debian's python3-torch (PyTorch 1.13.1, CPU only, built against the system's OpenMP and
#      BLAS) and python3-matplotlib (the plots), with apt-get, when missing. PyPI's Linux torch
#      wheels pull several GB of nvidia-* CUDA libraries (the CPU-only wheels live on
#      download.pytorch.org, which this project's machines cannot reach); on Debian 12 the
#      packages and their dependencies were 215 packages, 190 MB of .deb files, 870 MB installed.
#   2. a virtual environment over the system site-packages (python3 -m venv
#      --system-site-packages), so it sees Debian's torch, and in it torch_geometric 2.3.1 from
#      PyPI (from the torch 1.13/2.0 period; checked with Debian's torch 1.13; GCNConv, GATConv,
#      GMMConv and EdgeConv are pure Python and need neither torch_scatter nor torch_sparse)
#      with its pure-Python dependencies (the venv is about 100 MB).
#
# The sizes are printed before anything is installed. Exit 0 when the python is usable.
set -eu -o pipefail
VENV=${1:-build/peers-venv}
check() { "$1" -c 'import torch, torch_geometric' > /dev/null 2>&1; }

if [ -n "${PEERS_PYTHON:-}" ]; then
  if check "$PEERS_PYTHON"; then
    echo "peers-env: using PEERS_PYTHON=$PEERS_PYTHON ($("$PEERS_PYTHON" -c 'import torch, torch_geometric as g; print("torch", torch.__version__, "torch_geometric", g.__version__)'))"
    exit 0
  fi
  echo "peers-env: PEERS_PYTHON=$PEERS_PYTHON cannot import torch and torch_geometric" >&2
  exit 1
fi
if check "$VENV/bin/python"; then
  echo "peers-env: $VENV ready ($("$VENV/bin/python" -c 'import torch, torch_geometric as g; print("torch", torch.__version__, "torch_geometric", g.__version__)'))"
  exit 0
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
need=()
/usr/bin/python3 -c 'import torch' > /dev/null 2>&1 || need+=(python3-torch)
/usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1 || need+=(python3-matplotlib)
/usr/bin/python3 -c 'import ensurepip' > /dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq > /dev/null
  # the package and installed sizes of everything apt would install, before installing it
  sizes=$(apt-get install -s --no-install-recommends "${need[@]}" 2> /dev/null | awk '/^Inst / {print $2}' |
    xargs -r apt-cache show --no-all-versions 2> /dev/null |
    awk '/^Package:/ {n++} /^Size:/ {s += $2} /^Installed-Size:/ {i += $2} END {printf "%d packages, %.0f MB of .deb files, %.0f MB installed", n, s / 1e6, i / 1024}')
  echo "peers-env: installing Debian's ${need[*]} ($sizes)"
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null
fi
echo "peers-env: creating $VENV (python3 -m venv --system-site-packages: Debian's torch is visible in it)"
/usr/bin/python3 -m venv --system-site-packages "$VENV"
echo "peers-env: installing torch_geometric==2.3.1 from PyPI into $VENV (0.7 MB source; with its pure-Python dependencies, tqdm, jinja2, scikit-learn, joblib and others, the venv is about 100 MB)"
"$VENV/bin/pip" install -q --disable-pip-version-check torch_geometric==2.3.1
check "$VENV/bin/python" || { echo "peers-env: $VENV still cannot import torch and torch_geometric" >&2; exit 1; }
echo "peers-env: $VENV ready ($(du -sh "$VENV" | cut -f1) in the venv; $("$VENV/bin/python" -c 'import torch, torch_geometric as g; print("torch", torch.__version__, "torch_geometric", g.__version__)'))"
