# codegen_host.sh -- sourced by tests/run.sh: what only the host path has (the codegen_* suites:
# tests/codegen/lib.sh); nothing with CG_TARGET=cuda, since the GPU path has its own.
#   codegen/embed/...              a program of one's own compiles generated/gcn.c in, agrees with gnn-run
#   codegen/valgrind/..., codegen/asan/...  valgrind over gnn-run and the libraries, ASan+UBSan builds
#   codegen/host-exp/-O3, -O0      the prelude's gnn_expf and gnn_expm1f (tests/codegen/exp_check.c)
#                                  vs glibc over every 61st float32 and the special values: <= 1 and
#                                  <= 2 ulp on normal results, +0 below FLT_MIN, inf/-1/NaN as glibc
#
# The helpers, the models' lists and the closing line under make test-asan: tests/codegen/lib.sh.
# CG_TARGET=cuda (make gpu-check, on a machine with a GPU) runs the same numeric comparisons with
# the CUDA libraries (gnnc --target=cuda) instead of the host ones (docs/gpu.md).

# shellcheck source=tests/codegen/lib.sh
source tests/codegen/lib.sh

if [ $cg_target = host ]; then
# ---- embedding: a program of one's own compiles generated/gcn.c in and agrees with gnn-run.
# With gnnc's -march=native (the CPU's AVX-512, where it has it: the narrow projection as a
# generated loop) the same bits; with the compiler's default target (cblas for it) the same
# values to float rounding (emit_host_gemm.c: the sums are the same, their order is not).
if shard_take; then
cg_out=$(cc -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror -Iruntime -Igenerated tests/embed/embed_gcn.c generated/gcn.c \
  -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" -o "$cg/embed_gcn" 2>&1) &&
  cg_out=$(cc -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -Iruntime -Igenerated tests/embed/embed_gcn.c generated/gcn.c \
    -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" -o "$cg/embed_gcn_default" 2>&1)
if [ $? -ne 0 ]; then
  fail "codegen/embed/build" "$(cg_tail "$cg_out")"
else
  pass "codegen/embed/build"
  cg_lib_gcn=$(cg_lib dsl-examples/gcn.gnn vertex)
  cg_a=$("$cg/embed_gcn" data/cora 2>&1 | grep '^checksum')
  cg_b=$("$cg_bin/gnn-run" "$cg_lib_gcn" --graph data/cora --seed 1 --repeat 1 --warmup 0 2>&1 | grep '^checksum')
  if [ -n "$cg_a" ] && [ "$cg_a" = "$cg_b" ]; then pass "codegen/embed/same-as-gnn-run"
  else fail "codegen/embed/same-as-gnn-run" "embed_gcn: '$cg_a', gnn-run: '$cg_b'"; fi
  cg_c=$("$cg/embed_gcn_default" data/cora 2>&1 | grep '^checksum')
  # "checksum: sum S  abs-sum A": both within 1e-6 relative
  if [ -n "$cg_c" ] && [ -n "$cg_b" ] && awk -v x="$cg_c" -v y="$cg_b" 'BEGIN { split(x, a, " "); split(y, b, " ");
       for (i = 3; i <= 5; i += 2) { d = a[i] - b[i]; if (d < 0) d = -d; m = b[i] < 0 ? -b[i] : b[i];
         if (a[i] == "" || d > 1e-6 * (m + 1)) exit 1 } }'; then pass "codegen/embed/default-target-close-to-gnn-run"
  else fail "codegen/embed/default-target-close-to-gnn-run" "embed_gcn (cc's default target): '$cg_c', gnn-run: '$cg_b'"; fi
fi
fi

# ---- memory checks of the host path: valgrind over gnn-run and the libraries, and ASan+UBSan
# builds of gnn-run and of model libraries (GNNC_HOST_CFLAGS), both mappings, forward and the
# memory plan's arena placement.
cg_small() { # NAME MODEL GRAPH MAPPING RUNNER... -- runs gnn-run (or a wrapped one) on a small case
  local name=$1 model=$2 graph=$3 map=$4 lib out
  shift 4
  if ! lib=$(cg_lib "$model" "$map" ${cg_march:-}); then fail "$name" "no library"; return; fi
  if out=$("$@" "$lib" --graph "$graph" --repeat 2 --warmup 0 2>&1); then pass "$name"
  else fail "$name" "$(cg_tail "$out")"; fi
}
if [ -z "${RT_SANITIZED:-}" ] && command -v valgrind >/dev/null; then
  cg_march=--host-march=portable # valgrind has no AVX-512: libraries built for this CPU stop on SIGILL
  for cg_map in $cg_maps; do
    for cg_m in gat edgeconv monet; do
      shard_take || continue
      cg_small "codegen/valgrind/$cg_m-small/$cg_map" "tests/interp/models/$cg_m.gnn" tests/interp/graphs/random $cg_map \
        valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --suppressions=tests/runtime/valgrind.supp "$cg_bin/gnn-run"
    done
  done
  cg_march=
fi
cg_asan="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
# (this shard's share decided first, whatever the build below does: the shards stay in step)
cg_asan_cases=()
for cg_map in $cg_maps; do
  for cg_m in gat edgeconv monet gin; do
    shard_take && cg_asan_cases+=("$cg_m:$cg_map")
  done
done
if [ ${#cg_asan_cases[@]} -eq 0 ]; then
  :
elif cg_out=$(cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g $cg_asan -Iruntime runtime/gnn_run.c -o "$cg/gnn-run-asan" -ldl -lm 2>&1); then
  for cg_mm in "${cg_asan_cases[@]}"; do
    cg_m=${cg_mm%%:*} cg_map=${cg_mm#*:}
    cg_alib="$cg/libasan-$cg_m-$cg_map.so"
    if ! cg_out=$(GNNC_HOST_CFLAGS="$cg_asan" "$GNNC" "tests/interp/models/$cg_m.gnn" --target=host --mapping=$cg_map -o "$cg_alib" 2>&1); then
      fail "codegen/asan/$cg_m-small/$cg_map" "$(cg_tail "$cg_out")"
      continue
    fi
    if cg_out=$(ASAN_OPTIONS=detect_leaks=1 "$cg/gnn-run-asan" "$cg_alib" --graph tests/codegen/graphs/hub10k --repeat 2 --warmup 0 2>&1) &&
       ! printf '%s' "$cg_out" | grep -q 'runtime error\|Sanitizer'; then
      pass "codegen/asan/$cg_m-small/$cg_map"
    else
      fail "codegen/asan/$cg_m-small/$cg_map" "$(cg_tail "$cg_out")"
    fi
  done
else
  fail "codegen/asan/build" "$(cg_tail "$cg_out")"
fi

# ---- the host prelude's exp and expm1 (gnn_expf, gnn_expm1f) against glibc: cut from a generated
# source, compiled as gnnc compiles host libraries (the checker's loops vectorise), and at -O0
if ! shard_take; then
  :
elif "$GNNC" dsl-examples/gat.gnn --target=host --emit=c -o "$cg/expsrc.c" > /dev/null 2>&1 &&
   { echo '#include <stdint.h>'; echo '#include <math.h>'; echo '#define GNN_HELPER static inline __attribute__((unused))'
     sed -n '/^\/\* c ? a : b as bits/,/^GNN_HELPER int64_t gnn_min_i64/p' "$cg/expsrc.c" | sed '$d'; } > "$cg/exp_prelude.h" &&
   grep -q '^GNN_HELPER float gnn_expm1f' "$cg/exp_prelude.h"; then
  for cg_o in "-O3 -march=native" "-O0"; do
    # shellcheck disable=SC2086
    if cg_out=$(cc $cg_o -ffp-contract=off -std=c11 -include "$cg/exp_prelude.h" tests/codegen/exp_check.c -o "$cg/exp_check" -lm 2>&1) &&
       cg_out=$("$cg/exp_check" 2>&1); then
      pass "codegen/host-exp/${cg_o%% *}"
    else
      fail "codegen/host-exp/${cg_o%% *}" "$(cg_tail "$cg_out")"
    fi
  done
else
  fail codegen/host-exp "the helpers were not found in a generated host source"
fi

fi # host-only checks

cg_done
