#!/bin/bash
# tests/cuda_emu/model.sh LIB.so MODEL.cu EMU_DIR ROOT -- a generated model's CUDA library on the CPU
# emulator: MODEL.cu (gnnc --target=cuda --emit=cu, its header beside it) through cuda_emu.py and
# g++ (-ffp-contract=off), linked with EMU_DIR/libgnnrt_emu.so (build.sh), as gnnc links a model
# with libgnnrt. gnn-run and gnn-train load it as they load any model library.
set -euo pipefail
lib=$1 cu=$2 emu_dir=$3 root=$4
cpp=${lib%.so}.cpp
"${PY:-python3}" "$root/tests/cuda_emu/cuda_emu.py" "$cu" "$cpp"
g++ -std=c++17 -O1 -g -fPIC -shared -ffp-contract=off -w -DGNNRT_CUDA -DGNNC_MODEL_ENTRY -I"$root/tests/cuda_emu/include" -I"$(dirname "$cu")" \
  -I"$root/runtime" -o "$lib" "$cpp" -L"$emu_dir" -lgnnrt_emu -Wl,-rpath,"$emu_dir" -Wl,-z,defs
