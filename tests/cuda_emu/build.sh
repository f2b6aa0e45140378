#!/bin/bash
# tests/cuda_emu/build.sh OUT ROOT -- libgnnrt's CUDA build on the CPU emulator: OUT/libgnnrt_emu.so.
#
# The runtime's C sources are compiled as the Makefile compiles libgnnrt (-DGNNRT_CUDA, RT_CUDA_SRC
# but nvrtc.c: NVRTC and the driver API compile kernels for a GPU, nothing here runs them;
# nvrtc_absent.c refuses its calls with a status) against
# the fake CUDA headers of tests/cuda_emu/include; its .cu files (train_cuda, csr_cuda, spmm_cuda)
# go through cuda_emu.py and g++; cuda_api.cpp implements the CUDA runtime, cuBLAS and cuSPARSE
# calls. A generated model's .cu is built against it by model.sh. Objects are rebuilt only when
# their source is newer. Prints g++'s or gcc's messages and exits 1 when a file does not compile.
set -euo pipefail
out=$1 root=$2
emu=$root/tests/cuda_emu
mkdir -p "$out/obj"
cflags=(-O1 -g -fPIC -ffp-contract=off -DGNNRT_CUDA -I"$emu/include" -I"$root/runtime")
objs=()
newer() { [ ! -f "$2" ] || [ "$1" -nt "$2" ] || [ "$emu/include/cuda_runtime.h" -nt "$2" ] || [ "$emu/cuda_emu.h" -nt "$2" ]; }
for c in core text graph edgelist cache tables dataset ogb npz load params profile checkpoint spmm sample device_cuda; do
  o=$out/obj/$c.o
  newer "$root/runtime/$c.c" "$o" && gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -w -Werror=implicit-function-declaration "${cflags[@]}" -c -o "$o" "$root/runtime/$c.c"
  objs+=("$o")
done
for c in train_cuda csr_cuda spmm_cuda; do
  o=$out/obj/$c.o
  if newer "$root/runtime/$c.cu" "$o" || [ "$emu/cuda_emu.py" -nt "$o" ]; then
    "${PY:-python3}" "$emu/cuda_emu.py" "$root/runtime/$c.cu" "$out/obj/$c.cpp"
    g++ -std=c++17 -w "${cflags[@]}" -c -o "$o" "$out/obj/$c.cpp"
  fi
  objs+=("$o")
done
# NVRTC's entry points refuse, as the host library's do
o=$out/obj/nvrtc_absent.o
newer "$emu/nvrtc_absent.c" "$o" && gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -w -Werror=implicit-function-declaration "${cflags[@]}" -c -o "$o" "$emu/nvrtc_absent.c"
objs+=("$o")
o=$out/obj/cuda_api.o
newer "$emu/cuda_api.cpp" "$o" && g++ -std=c++17 -w "${cflags[@]}" -c -o "$o" "$emu/cuda_api.cpp"
objs+=("$o")
# the runtime's headers as strings (gnnrt_headers.c, for NVRTC) are left out with nvrtc.c
g++ -shared -Wl,-z,defs -o "$out/libgnnrt_emu.so" "${objs[@]}" -lz -lm
