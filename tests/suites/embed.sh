# embed.sh -- sourced by tests/run.sh: embedding generated models in programs of one's own.
#
#   embed/api/...              tests/embed/embed_api.c, compiled with generated/gcn.c and
#                              generated/gat.c (two models in one program): every entry point with
#                              NULL pointers and bad indices, the order of calls, load/save of
#                              parameter files (round trip, the interpreter's file, bad files refused
#                              without a change)
#   embed/names/...            adversarial model names (Gnn, GNN, Gnn_ctx, Gnn_model, api, _x, main,
#                              NULL, ...): the C compiles with gcc and clang -Werror, defines no
#                              global symbol in the runtime's reserved namespace (gnn*, any case)
#                              unless GNNC_MODEL_ENTRY asks for gnn_model_entry, gnn_model_forward_launches,
#                              gnn_model_param_init and gnn_model_program, and the models
#                              link into one program; two of them through nvcc
#   embed/two-cuda-models-link generated/gcn.cu and generated/gat.cu (nvcc) link into one program
#   embed/docs-nvcc-line       docs/embedding.md's nvcc command links embed_gcn.c with gcn.cu
#   embed/older-library/...    a library without gnn_model_program (an older gnnc's: its table may
#                              end before input_grads, set_graph, reserve, program): gnn-run and
#                              gnn-train run it and read none of those (no input gradients)
#   embed/param-init/...       tests/embed/embed_init.c: gnn_model_api.param_init of initval.gnn (every
#                              initialiser) as a driver reads it, create() following it for four seeds;
#                              libraries without gnn_model_param_init (older gnnc's) read without it
#   embed/launches-per-pass    gnn-run's launches per pass: an inference forward's (gcn: 2 kernels), then
#                              what a training forward and a graph's first forward add; a library without
#                              gnn_model_forward_launches (an older gnnc's) prints every launch and says so
#   embed/no-entry             gnn-run on a library built without GNNC_MODEL_ENTRY says how to fix it
#   embed/install/...          make install PREFIX=tmp: the installed gnnc builds a library the
#                              installed gnn-run runs, and `pkg-config --cflags --libs gnnrt_host`
#                              alone builds and links a program with the generated host code;
#                              the .pc files' Version is gnnrt.h's
# Needs the runtime libraries and drivers that `make test` builds.

em=$TMP/embed
mkdir -p "$em"
em_tail() { printf '%s\n' "$1" | tail -n 4 | tr '\n' ' '; }
em_cc="cc -std=c11 -O1 -fopenmp -Wall -Wextra -Werror -Iruntime"

# ---- the generated API's checks, two models in one program
if ! em_out=$($em_cc -Igenerated -o "$em/embed_api" tests/embed/embed_api.c generated/gcn.c generated/gat.c \
    -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2>&1); then
  fail embed/api/build "$(em_tail "$em_out")"
else
  pass embed/api/build
  # parameter files: the interpreter's (seed 1), and damaged copies of it
  mkdir -p "$em/bad"
  if "$GNNC" run dsl-examples/gcn.gnn --graph data/cora --seed 1 --save-params "$em/ref.params" > /dev/null 2>&1; then
    "$PY" - "$em/ref.params" "$em/bad" <<'EOF'
import sys
text = open(sys.argv[1]).read()
# gnnc run writes a checksum line first; the damaged copies drop it (version 1 files) so that each
# reaches the check it is about rather than the checksum's
assert text.startswith("#gnn-tensors version 2 "), text[:40]
text = text.split("\n", 1)[1]
lines = text.rstrip("\n").split("\n")
bad = sys.argv[2]
# the last tensor (gcnconv1.b) is two lines: header, values
open(bad + "/missing.params", "w").write("\n".join(lines[:-2]) + "\n")
open(bad + "/extra.params", "w").write(text + "tensor extra.w 1 1 2\n0 1\n")
open(bad + "/shape.params", "w").write(text.replace("tensor gcnconv1.W 1 2 16 7", "tensor gcnconv1.W 1 2 7 16"))
vals = lines[-1].split(" ")
open(bad + "/nan.params", "w").write("\n".join(lines[:-1] + [" ".join(vals[:-1] + ["nan"])]) + "\n")
open(bad + "/truncated.params", "w").write("\n".join(lines[:-1] + [" ".join(vals[:-1])]) + "\n")
EOF
    em_out=$("$em/embed_api" data/cora "$em/ref.params" "$em/bad" "$em" 2>&1)
    em_rc=$?
    while IFS= read -r em_line; do
      case "$em_line" in
        "ok "*) pass "embed/api/${em_line#ok }" ;;
        "FAIL "*) em_rest=${em_line#FAIL }; fail "embed/api/${em_rest%%:*}" "${em_rest#*: }" ;;
      esac
    done <<< "$em_out"
    if [ $em_rc -ne 0 ] && ! grep -q '^FAIL' <<< "$em_out"; then fail embed/api/run "exit $em_rc: $(em_tail "$em_out")"; fi
    [ "$(grep -c '^ok ' <<< "$em_out")" -ge 40 ] || fail embed/api/count "fewer checks than expected: $(em_tail "$em_out")"
  else
    fail embed/api/reference "gnnc run --save-params failed"
  fi
fi

# ---- adversarial model names
em_names="Gnn GNN Gnn_ctx Gnn_model gnn_memory_plan gnnrt_x GNNC_x gnnc_api_create api k0 int m g st seed training out main _x __x size_t NULL malloc memset"
em_main=$em/names_main.c
printf '#include <stdio.h>\n#include "gnn_model.h"\n' > "$em_main"
em_objs=""
em_calls=""
em_seen=" "
for em_n in $em_names; do
  printf 'layer L<D>(x: vertex[F]) -> vertex[D] {\n  param W: [F, D]\n  return sum(W @ x[src])\n}\nmodel %s(x: vertex[4]) -> vertex[3] {\n  return L<3>(dropout(x, 0.5))\n}\n' \
    "$em_n" > "$em/$em_n.gnn"
  if ! em_out=$("$GNNC" "$em/$em_n.gnn" --emit=c -o "$em/n_$em_n.c" 2>&1); then
    fail "embed/names/$em_n" "gnnc: $(em_tail "$em_out")"
    continue
  fi
  em_p=$(sed -n 's/^gnn_status \([A-Za-z0-9_]*\)_create(.*/\1/p' "$em/n_$em_n.c")
  em_ok=1
  for em_c in clang gcc; do # gcc last: its objects go into the shared program
    for em_def in "" "-DGNNC_MODEL_ENTRY"; do
      [ $em_c = clang ] && [ -n "$em_def" ] && continue # (time: one clang build per name)
      if ! em_out=$($em_c -std=c11 -O1 -fopenmp -Wall -Wextra -Werror -Iruntime $em_def -c "$em/n_$em_n.c" -o "$em/n_$em_n$em_def.o" 2>&1); then
        fail "embed/names/$em_n/$em_c$em_def" "$(em_tail "$em_out")"
        em_ok=0
      fi
    done
  done
  [ $em_ok = 1 ] || continue
  # global definitions in the reserved namespace: none, or gnn_model_entry, gnn_model_forward_launches,
  # gnn_model_param_init and gnn_model_program when asked for
  em_res=$(nm -g --defined-only "$em/n_$em_n.o" | awk '{print $3}' | grep -i '^gnn' | tr '\n' ' ')
  em_res2=$(nm -g --defined-only "$em/n_$em_n-DGNNC_MODEL_ENTRY.o" | awk '{print $3}' | grep -i '^gnn' | tr '\n' ' ')
  if [ -z "$em_res" ] && [ "$em_res2" = "gnn_model_entry gnn_model_forward_launches gnn_model_param_init gnn_model_program " ] && [ -n "$em_p" ] && ! grep -qi '^gnn' <<< "$em_p"; then
    pass "embed/names/$em_n"
  else
    fail "embed/names/$em_n" "prefix '$em_p'; reserved globals: '$em_res' / with GNNC_MODEL_ENTRY: '$em_res2'"
  fi
  # one of each prefix into the shared program (Gnn and GNN share one, as api and Api would)
  case "$em_seen" in *" $em_p "*) continue ;; esac
  em_seen="$em_seen$em_p "
  em_objs="$em_objs $em/n_$em_n.o"
  printf 'const gnn_model_api *%s_api(void);\n' "$em_p" >> "$em_main"
  em_calls="$em_calls  printf(\"%%s\\\\n\", ${em_p}_api()->name);\n"
done
printf "int main(void) {\n$em_calls  return 0;\n}\n" >> "$em_main"
# shellcheck disable=SC2086 # the object list
if em_out=$(cc -std=c11 -Wall -Werror -Iruntime -fopenmp -o "$em/names_all" "$em_main" $em_objs -Lbuild/lib -lgnnrt_host -lopenblas -lm \
    -Wl,-rpath,"$ROOT/build/lib" 2>&1) && em_got=$("$em/names_all" | tr '\n' ' ') &&
   [ "$em_got" = "$(for em_n in $em_names; do case "$em_n" in GNN) ;; *) printf '%s ' "$em_n" ;; esac; done)" ]; then
  pass embed/names/one-program
else
  fail embed/names/one-program "$(em_tail "$em_out") got '${em_got:-}'"
fi
if command -v nvcc > /dev/null; then
  for em_n in Gnn_ctx api; do
    if em_out=$("$GNNC" "$em/$em_n.gnn" --emit=cu -o "$em/n_$em_n.cu" 2>&1) &&
       em_out=$(cd "$em" && nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
         -I"$ROOT/runtime" -c "n_$em_n.cu" -o "n_$em_n.cu.o" 2>&1); then
      pass "embed/names/nvcc/$em_n"
    else
      fail "embed/names/nvcc/$em_n" "$(em_tail "$em_out")"
    fi
  done
  # two CUDA models (generated/gcn.cu and gat.cu) link into one program: every __global__ name
  # carries its model's prefix (before, both defined k0_dropout_vertex, gnn_fill_kernel, ...)
  printf '#include <stdio.h>\n#include "gcn.h"\n#include "gat.h"\nint main(void) { printf("%%s %%s\\n", gcn_api()->name, gat_api()->name); return 0; }\n' \
    > "$em/two_cuda.c"
  if em_out=$(cd "$em" && for em_m in gcn gat; do
         nvcc -std=c++17 -gencode=arch=compute_80,code=sm_80 -I"$ROOT/runtime" -I"$ROOT/generated" -c "$ROOT/generated/$em_m.cu" \
           -o "two_$em_m.o" || exit 1
       done && cc -std=c11 -Wall -Werror -DGNNRT_CUDA -I"$ROOT/runtime" -I"$ROOT/generated" -c two_cuda.c -o two_cuda.o &&
       nvcc two_cuda.o two_gcn.o two_gat.o -L"$ROOT/build/lib" -lgnnrt -lcublas -o two_cuda 2>&1); then
    pass embed/two-cuda-models-link
  else
    fail embed/two-cuda-models-link "$(em_tail "$em_out")"
  fi
  # docs/embedding.md's nvcc line, as written there (both architectures): it links, and the program
  # runs (a GPU) or says there is no usable device (here)
  if em_out=$(nvcc -O2 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 -DGNNRT_CUDA -Iruntime -Igenerated \
       tests/embed/embed_gcn.c generated/gcn.cu -Lbuild/lib -lgnnrt -lcublas -Xlinker -rpath,"$PWD/build/lib" -o "$em/embed_gcn_cuda" 2>&1); then
    em_out=$("$em/embed_gcn_cuda" data/cora 2>&1)
    if [ $? -eq 0 ] || printf '%s' "$em_out" | grep -q 'no usable CUDA device'; then pass embed/docs-nvcc-line
    else fail embed/docs-nvcc-line "$(em_tail "$em_out")"; fi
  else
    fail embed/docs-nvcc-line "$(em_tail "$em_out")"
  fi
fi

# ---- a library built by hand without GNNC_MODEL_ENTRY: gnn-run says what is missing
if cc -std=c11 -O1 -fopenmp -fPIC -shared -Iruntime -Igenerated -o "$em/libnoentry.so" generated/gcn.c -Lbuild/lib -lgnnrt_host -lopenblas -lm \
     -Wl,-rpath,"$ROOT/build/lib" 2> "$em/noentry.log"; then
  build/bin/gnn-run "$em/libnoentry.so" --graph data/cora > "$em/noentry.out" 2>&1
  em_rc=$?
  if [ $em_rc -eq 1 ] && grep -q 'no gnn_model_entry.*-DGNNC_MODEL_ENTRY' "$em/noentry.out"; then pass embed/no-entry
  else fail embed/no-entry "exit $em_rc: $(head -c 300 "$em/noentry.out")"; fi
else
  fail embed/no-entry "$(head -3 "$em/noentry.log" | tr '\n' ' ')"
fi

# ---- a library of an older gnnc (gnn_model_entry without gnn_model_program: its table may end
# before input_grads, set_graph, reserve and program): the drivers run it on the fields every
# table has and never read the later ones. Its source has input gradients (--input-grads=all), which
# the same library with gnn_model_program computes: without the symbol, --save-input-grads finds none
mkdir -p "$em/old"
if "$GNNC" dsl-examples/gcn.gnn --input-grads=all --emit=c -o "$em/old/gcn.c" 2> "$em/old.log" &&
   sed '/^const char \*gnn_model_program(void)/d' "$em/old/gcn.c" > "$em/oldgcn.c" &&
   grep -q '^const gnn_model_api \*gnn_model_entry' "$em/oldgcn.c" && ! grep -q '^const char \*gnn_model_program' "$em/oldgcn.c" &&
   cc -std=c11 -O1 -fopenmp -fPIC -shared -DGNNC_MODEL_ENTRY -Iruntime -I"$em/old" -o "$em/libold.so" "$em/oldgcn.c" -Lbuild/lib \
     -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2> "$em/old.log" &&
   cc -std=c11 -O1 -fopenmp -fPIC -shared -DGNNC_MODEL_ENTRY -Iruntime -I"$em/old" -o "$em/libnew.so" "$em/old/gcn.c" -Lbuild/lib \
     -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2> "$em/old.log"; then
  build/bin/gnn-run "$em/libold.so" --graph data/cora --repeat 1 --warmup 0 > "$em/old.out" 2>&1; em_rc=$?
  if [ $em_rc -eq 0 ] && grep -q '^output: vertex\[7\] x 2708 rows' "$em/old.out"; then pass embed/older-library/gnn-run
  else fail embed/older-library/gnn-run "exit $em_rc: $(head -c 300 "$em/old.out")"; fi
  build/bin/gnn-run "$em/libold.so" --graph data/cora --save-input-grads "$em/old.ig" > "$em/old.out" 2>&1; em_rc=$?
  build/bin/gnn-run "$em/libnew.so" --graph data/cora --save-input-grads "$em/new.ig" > "$em/new.out" 2>&1; em_rc2=$?
  if [ $em_rc -eq 1 ] && grep -q 'computes no input gradient' "$em/old.out" && [ ! -e "$em/old.ig" ] &&
     [ $em_rc2 -eq 0 ] && grep -q '^tensor grad_input\.x ' "$em/new.ig"; then pass embed/older-library/no-input-grads
  else fail embed/older-library/no-input-grads "exit $em_rc: $(head -c 300 "$em/old.out"); with the symbol: exit $em_rc2"; fi
  build/bin/gnn-train "$em/libold.so" --data data/cora --epochs 2 > "$em/old.out" 2>&1; em_rc=$?
  if [ $em_rc -eq 0 ]; then pass embed/older-library/gnn-train
  else fail embed/older-library/gnn-train "exit $em_rc: $(tail -c 300 "$em/old.out")"; fi
else
  fail embed/older-library "$(head -3 "$em/old.log" | tr '\n' ' ')"
fi

# ---- gnn-run's launches per pass (runtime 0.9: gnn_model_api.forward_kernels_training and
# forward_kernels_graph). dsl-examples/gcn.gnn's forward (--emit=kir, host) has four kernels and two
# GEMMs: k0 the edge norms, once per graph (hoist: graph_values_ready); k1 the input's dropout, only
# when training (an inference forward reads the input in place); the GEMM, k2, the GEMM, k3. So an
# inference forward on a graph it has run launches k2, k3 and the two GEMMs, "forward 2 kernels + 2
# GEMMs", a training forward k1 more, a graph's first forward k0 more; the backward k4, k5, k6, k7,
# k8 and three GEMMs (its two zero steps are memsets). gnn-run said "forward 4 kernels" before. A
# library without gnn_model_forward_launches (an older gnnc's) gives every launch and says so.
mkdir -p "$em/launch"
if "$GNNC" dsl-examples/gcn.gnn --emit=c -o "$em/launch/gcn.c" 2> "$em/launch.log" &&
   sed '/^const int64_t \*gnn_model_forward_launches(void)/d' "$em/launch/gcn.c" > "$em/launch/oldgcn.c" &&
   grep -q '^const int64_t \*gnn_model_forward_launches' "$em/launch/gcn.c" &&
   ! grep -q '^const int64_t \*gnn_model_forward_launches' "$em/launch/oldgcn.c" &&
   em_libs_ok=1 && for em_v in gcn oldgcn; do
     cc -std=c11 -O1 -fopenmp -fPIC -shared -DGNNC_MODEL_ENTRY -Iruntime -I"$em/launch" -o "$em/launch/lib$em_v.so" "$em/launch/$em_v.c" \
       -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2>> "$em/launch.log" || em_libs_ok=0
   done && [ $em_libs_ok = 1 ]; then
  em_l1=$(build/bin/gnn-run "$em/launch/libgcn.so" --graph data/cora --repeat 1 --warmup 0 2>&1 | grep 'launches per pass')
  em_l2=$(build/bin/gnn-run "$em/launch/liboldgcn.so" --graph data/cora --repeat 1 --warmup 0 2>&1 | grep 'launches per pass')
  if grep -qF 'launches per pass: forward 2 kernels + 2 GEMMs (a training forward: 1 more; a graph'"'"'s first forward: 1 more), backward 5 kernels + 3 GEMMs' <<< "$em_l1"
  then pass embed/launches-per-pass
  else fail embed/launches-per-pass "$em_l1"; fi
  if grep -qF 'launches per pass: forward 4 kernels + 2 GEMMs (every launch a forward can make: a library of an older gnnc does not say which run only when training), backward 5 kernels + 3 GEMMs' <<< "$em_l2"
  then pass embed/launches-per-pass-older-library
  else fail embed/launches-per-pass-older-library "$em_l2"; fi
else
  fail embed/launches-per-pass "$(head -3 "$em/launch.log" | tr '\n' ' ')"
fi
unset em_l1 em_l2

# ---- how parameters start (gnn_model_api.param_init), read as a driver reads it: the description
# of initval.gnn's parameters (every initialiser), create() following it for four seeds, and
# libraries of older gnnc's (no gnn_model_param_init; no gnn_model_program either) read without it
mkdir -p "$em/init"
printf '0 1\n1 2\n2 0\n2 3\n' > "$em/init/g.edges"
if "$GNNC" tests/python/models/initval.gnn --emit=c -o "$em/init/initval.c" 2> "$em/init.log" &&
   sed '/^const gnn_param_init \*gnn_model_param_init(void)/d' "$em/init/initval.c" > "$em/init/noinit.c" &&
   sed '/^const char \*gnn_model_program(void)/d' "$em/init/noinit.c" > "$em/init/noprog.c" &&
   [ "$(grep -c '^const gnn_param_init \*gnn_model_param_init\|^const char \*gnn_model_program' "$em/init/initval.c")" = 2 ] &&
   ! grep -q '^const gnn_param_init \*gnn_model_param_init' "$em/init/noinit.c" && ! grep -q '^const char \*gnn_model_program' "$em/init/noprog.c" &&
   em_libs_ok=1 && for em_v in initval noinit noprog; do
     cc -std=c11 -O1 -fopenmp -fPIC -shared -DGNNC_MODEL_ENTRY -Iruntime -I"$em/init" -o "$em/init/lib$em_v.so" "$em/init/$em_v.c" \
       -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$ROOT/build/lib" 2>> "$em/init.log" || em_libs_ok=0
   done && [ $em_libs_ok = 1 ] &&
   $em_cc -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -o "$em/init/embed_init" tests/embed/embed_init.c -ldl 2>> "$em/init.log"; then
  em_out=$("$em/init/embed_init" "$em/init/libinitval.so" "$em/init/libnoinit.so" "$em/init/libnoprog.so" "$em/init/g.edges" 2>&1)
  em_rc=$?
  while IFS= read -r em_line; do
    case "$em_line" in
      "ok "*) pass "embed/${em_line#ok }" ;;
      "FAIL "*) em_rest=${em_line#FAIL }; fail "embed/${em_rest%%:*}" "${em_rest#*: }" ;;
    esac
  done <<< "$em_out"
  if [ $em_rc -ne 0 ] && ! grep -q '^FAIL' <<< "$em_out"; then fail embed/param-init/run "exit $em_rc: $(em_tail "$em_out")"; fi
  [ "$(grep -c '^ok ' <<< "$em_out")" -eq 8 ] || fail embed/param-init/count "want 8 checks: $(em_tail "$em_out")"
  # the header's create comment names each parameter's start, the declared values with theirs (its
  # lines joined: where they wrap is no matter)
  em_hc=$(sed -n '/Creates the model/,/_create(/p' "$em/init/initval.h" | tr '\n' ' ' | sed 's/  *\*  */ /g')
  case "$em_hc" in
    *"at their declared value (in float32): init0.g = 1, init0.eps = 0.1, init0.neg = -2, init0.h = 0.25, init0.f = 4, init0.M = -0.5 Glorot-uniform from seed (the interpreter's values, in float32): init0.W zeros: init0.b, init0.s "*)
      pass embed/param-init/header-comment ;;
    *) fail embed/param-init/header-comment "$em_hc" ;;
  esac
  # gnn-run runs the library whose table ends at program (the drivers copy what it has)
  build/bin/gnn-run "$em/init/libnoinit.so" --graph "$em/init/g.edges" --repeat 1 --warmup 0 > "$em/init/noinit.out" 2>&1; em_rc=$?
  if [ $em_rc -eq 0 ] && grep -q '^output: vertex\[3\] x 4 rows' "$em/init/noinit.out"; then pass embed/param-init/older-library-gnn-run
  else fail embed/param-init/older-library-gnn-run "exit $em_rc: $(head -c 300 "$em/init/noinit.out")"; fi
else
  fail embed/param-init/build "$(tail -3 "$em/init.log" | tr '\n' ' ')"
fi

# ---- make install, then everything from the prefix alone
em_prefix=$em/prefix
if make -s install PREFIX="$em_prefix" > "$em/install.log" 2>&1 && [ -x "$em_prefix/bin/gnnc" ] && [ -x "$em_prefix/bin/gnn-run" ]; then
  pass embed/install/files
  export PKG_CONFIG_PATH=$em_prefix/lib/pkgconfig
  # shellcheck disable=SC2046 # pkg-config's words
  # -march=native as gnnc compiles its libraries: the same code paths (the AVX-512 projection), the same bits
  if em_out=$(cc -std=c11 -O2 -march=native -Wall -Wextra -Werror -Igenerated -o "$em/embed_gcn_pc" tests/embed/embed_gcn.c generated/gcn.c \
       $(pkg-config --cflags --libs gnnrt_host) -Wl,-rpath,"$em_prefix/lib" 2>&1); then
    pass embed/install/pkg-config-links-generated-code
    # the .pc files carry gnnrt.h's version (they said 0.1 while the header was 0.4)
    em_a=$(pkg-config --modversion gnnrt_host 2>&1)
    em_b=$(sed -n 's/^#define GNNRT_VERSION_MAJOR \([0-9]*\).*/\1/p' runtime/gnnrt.h).$(sed -n 's/^#define GNNRT_VERSION_MINOR \([0-9]*\).*/\1/p' runtime/gnnrt.h)
    if [ "$em_a" = "$em_b" ] && [ "$em_b" != . ]; then pass embed/install/pkg-config-version
    else fail embed/install/pkg-config-version "pkg-config says '$em_a', gnnrt.h '$em_b'"; fi
    if em_out=$("$em_prefix/bin/gnnc" dsl-examples/gcn.gnn --target=host -o "$em/libgcn_inst.so" 2>&1) &&
       em_a=$("$em/embed_gcn_pc" data/cora 2>&1 | grep '^checksum') &&
       em_b=$("$em_prefix/bin/gnn-run" "$em/libgcn_inst.so" --graph data/cora --seed 1 --repeat 1 --warmup 0 2>&1 | grep '^checksum') &&
       [ -n "$em_a" ] && [ "$em_a" = "$em_b" ] && ldd "$em/libgcn_inst.so" | grep -q "$(cd "$em_prefix/lib" && pwd -P)/libgnnrt_host.so"; then
      pass embed/install/installed-gnnc-and-gnn-run
    else
      fail embed/install/installed-gnnc-and-gnn-run "$(em_tail "$em_out") '${em_a:-}' vs '${em_b:-}'"
    fi
  else
    fail embed/install/pkg-config-links-generated-code "$(em_tail "$em_out")"
  fi
  unset PKG_CONFIG_PATH
else
  fail embed/install/files "$(tail -3 "$em/install.log" | tr '\n' ' ')"
fi

unset -f em_tail
unset em em_cc em_out em_rc em_line em_rest em_names em_main em_objs em_calls em_seen em_n em_p em_ok em_c em_def em_res em_res2
unset em_got em_prefix em_a em_b em_v em_hc em_libs_ok
