#!/usr/bin/env bash
# Installs what gnnc needs to build and test, from Debian's packages, only when missing.
# Idempotent: a second run installs nothing. Used by the README's commands and by .ci/run.
set -eu
need=()
command -v flex  >/dev/null 2>&1 || need+=(flex)
command -v bison >/dev/null 2>&1 || need+=(bison)
command -v cc    >/dev/null 2>&1 || need+=(gcc)
command -v g++   >/dev/null 2>&1 || need+=(g++) # the CUDA emulator (tests/cuda_emu, warp_emu.py) compiles kernels as C++
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v make  >/dev/null 2>&1 || need+=(make)
command -v pgrep >/dev/null 2>&1 || need+=(procps) # tests/run.sh stops its suites' processes with it
# The independent reference for the interpreter tests is a NumPy script run by Debian's python3.
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
# OpenBLAS: the GEMM of libgnnrt_host (cblas.h and -lopenblas must both work).
printf '#include <cblas.h>\nint main(void) { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1); return 0; }\n' |
  cc -x c - -o /dev/null -lopenblas >/dev/null 2>&1 || need+=(libopenblas-dev)
# zlib: the runtime's loaders read gzip-compressed files (OGB's .csv.gz); zlib.h and -lz.
printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 0; }\n' |
  cc -x c - -o /dev/null -lz >/dev/null 2>&1 || need+=(zlib1g-dev)
# The Python package's tests (tests/suites/python.sh): PyTorch from Debian, CPU build.
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || need+=(python3-torch)
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip) # the pip install ./python test
# The README's drawing (gnnc --emit=dot | dot -Tsvg) and its test.
command -v dot >/dev/null 2>&1 || need+=(graphviz)
# The runtime's test programs run under valgrind (tests/suites/runtime.sh).
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
# libFuzzer and the sanitizer runtimes come with clang's compiler-rt.
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # other package managers may hold the lock for a while (a shared machine): wait for it
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# clang's OpenMP runtime (the warning check builds with clang -fopenmp).
if command -v clang >/dev/null 2>&1 && ! echo 'int main(void){return 0;}' | clang -fopenmp -x c - -o /dev/null >/dev/null 2>&1; then
  echo "setup: installing libomp-dev"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libomp-dev >/dev/null
fi
# PyG 2.3.1 over Debian's torch, in build/peers-venv-debian (bench/peers_env.sh's fallback, about
# 100 MB): the bench suite checks bench/peer_pyg.py against gnnc with it (bench/peers/check/pyg-debian).
# The current PyG needs PyPI's torch (3 GB with its CUDA libraries): make bench-peers makes that one.
# A failed install is a note, not an error: the check is then not registered, and says so.
deb=build/peers-venv-debian
if ! "$deb/bin/python" -c 'import torch, torch_geometric' >/dev/null 2>&1; then
  echo "setup: making $deb (torch_geometric 2.3.1 from PyPI over Debian's torch)"
  npv=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')
  rm -rf "$deb" && mkdir -p build &&
    /usr/bin/python3 -m venv --system-site-packages "$deb" &&
    "$deb/bin/pip" install -q --disable-pip-version-check torch_geometric==2.3.1 "numpy==$npv" "scipy<1.12" >/dev/null 2>&1 &&
    "$deb/bin/python" -c 'import torch, torch_geometric' >/dev/null 2>&1 ||
    { echo "setup: note: could not make $deb; bench/peers/check/pyg-debian will not run"; rm -rf "$deb"; }
fi
