# gnnc -- plain make, no CMake.
#   make              build build/gnnc
#   make test         build, then run every test (tests/run.sh)
#   make test-asan    the test suite against an ASan+UBSan build
#   make fuzz         build and run the libFuzzer target (front end, lower, emitters) for FUZZ_SECONDS
#   make fuzz-diff    differential fuzzing, interpreter vs host library, for SECONDS (tests/fuzz/diff/)
#   make generated    regenerate generated/ (checked byte-for-byte by make test)
#   make run-example  the main job: compile dsl-examples/gat.gnn and run it on Cora
#   make bench        benchmarks under bench/ (not part of make test; docs/benchmarks.md)
#   make runtime      the runtime libraries: build/lib/libgnnrt_host.{so,a} and, with nvcc,
#                     build/lib/libgnnrt.so (make runtime-host / make runtime-cuda for one)
#   make install-runtime PREFIX=...   libraries, headers and pkg-config files
#   make install PREFIX=...   gnnc, the drivers (gnn-run, gnn-train, gnn-nvrtc), the runtime and the man page gnnc.1
#   make gpu-check-prepare  here, without a GPU: builds everything make gpu-check needs, nvcc's work
#                     included, into build/gpu-kit.tar.gz (docs/gpu.md)
#   make gpu-check    on a machine with a GPU (no build tools needed there): every GPU check and
#                     benchmark in one run, results in bench/results/ (tests/gpu/check.sh); test-gpu
#                     is another name for it
#   make bench-gpu    on a machine with a GPU: forward speed of the CUDA target (bench/gpu_forward.sh)
#   make bench-gpu-estimate  without a GPU: the GPU estimate against every GPU time on record
#   make bench-peers  gnnc vs PyTorch Geometric, time and memory (bench/peers.sh; TARGET=cuda on a GPU)

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wno-unused-function
BASE    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Icompiler -Iruntime -Ibuild
OPENMP  ?= -fopenmp
LDLIBS  := -lm

BUILD   := build
SRCS    := compiler/arena.c compiler/diag.c compiler/ir.c compiler/ir_print.c compiler/verify.c \
           compiler/pipeline.c compiler/graph.c compiler/interp.c compiler/gradcheck.c compiler/kbuild.c compiler/lower_op.c \
           compiler/lower_fused.c compiler/lower_stage.c compiler/lower_groups.c compiler/lower_pieces.c compiler/lower_tiles.c compiler/lower_walk.c compiler/lower.c compiler/kstats.c compiler/gpucost.c compiler/kir.c compiler/kverify.c compiler/emit_model_header.c compiler/emit_model.c compiler/emit_host.c compiler/emit_host_expr.c compiler/emit_host_lanes.c compiler/emit_host_prefetch.c compiler/emit_host_gemm.c \
           compiler/emit_cuda.c compiler/build.c compiler/build_run.c compiler/sha256.c compiler/tune.c \
           compiler/passes/sema.c compiler/passes/sema_warn.c compiler/passes/sema_scope.c compiler/passes/canonicalize.c compiler/passes/reorg.c compiler/passes/autodiff.c \
           compiler/passes/compose.c compiler/passes/checkpoint.c compiler/passes/fuse.c compiler/passes/hoist.c
GENSRCS := $(BUILD)/parser.c $(BUILD)/lexer.c
HDRS    := compiler/arena.h compiler/diag.h compiler/sha256.h compiler/graph.h compiler/ast.h compiler/ir.h compiler/ctx.h \
           compiler/passes.h compiler/pipeline.h compiler/kir.h compiler/lower.h compiler/kstats.h compiler/gpucost.h \
           compiler/emit.h compiler/build.h compiler/build_run.h compiler/tune.h compiler/interp.h compiler/gradcheck.h compiler/passes/sema_scope.h compiler/passes/sema_warn.h compiler/emit_host_state.h compiler/kbuild.h compiler/lower_op.h compiler/lower_fused.h compiler/lower_stage.h compiler/lower_groups.h compiler/lower_pieces.h compiler/lower_tiles.h compiler/lower_walk.h compiler/ops.def compiler/funcs.def runtime/gnnrt_rng.h runtime/gnnrt_pieces.h runtime/gnnrt_text.h runtime/gnnrt_hostmem.h runtime/gnnrt_path.h runtime/gnnrt_omp.h $(BUILD)/parser.h

OBJS    := $(patsubst compiler/%.c,$(BUILD)/obj/%.o,$(SRCS)) $(BUILD)/obj/parser.o $(BUILD)/obj/lexer.o

all: $(BUILD)/gnnc runtime-host tools

# One bison run writes both files. Two targets on one rule would be two rules sharing a recipe,
# and a parallel make (make test's) ran bison twice at once, each rewriting both files while
# other jobs compiled them: parser.h follows parser.c instead (and remakes it only if missing).
# Bison writes parser.h before parser.c: touched after, or it stays older than parser.c and every
# later make (its recipe a no-op) rebuilds everything that includes it.
$(BUILD)/parser.c: compiler/parser.y
	@mkdir -p $(BUILD)
	bison -Wall -Werror -d -o $(BUILD)/parser.c $<
	@touch $(BUILD)/parser.h

$(BUILD)/parser.h: $(BUILD)/parser.c
	@test -f $@ || bison -Wall -Werror -d -o $(BUILD)/parser.c compiler/parser.y

$(BUILD)/lexer.c: compiler/lexer.l $(BUILD)/parser.h
	flex -o $@ $<

$(BUILD)/obj/%.o: compiler/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $(OPENMP) -c -o $@ $<

# gnnc finds the runtime of the tree it was built in (unless installed, or told otherwise).
$(BUILD)/obj/build.o: CFLAGS += -DGNNC_SOURCE_RUNTIME_DIR='"$(abspath runtime)"' -DGNNC_SOURCE_LIB_DIR='"$(abspath $(BUILD)/lib)"' 

# flex and bison output: compiled with the same warnings except the ones their skeletons trip.
$(BUILD)/obj/parser.o $(BUILD)/obj/lexer.o: $(BUILD)/obj/%.o: $(BUILD)/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) -Wno-sign-compare -Wno-unused-parameter -c -o $@ $<

$(BUILD)/gnnc: $(OBJS) compiler/main.c
	$(CC) $(BASE) $(CFLAGS) $(OPENMP) -o $@ compiler/main.c $(OBJS) $(LDLIBS)

# ---------------------------------------------------------------- runtime: libgnnrt_host and libgnnrt
# One set of C sources built twice (runtime/internal.h says how): without GNNRT_CUDA for the
# host library (OpenMP, OpenBLAS), with it for the CUDA one (cudart, cuBLAS, NVRTC; kernels in
# runtime/train_cuda.cu, runtime/csr_cuda.cu). Both link zlib: the text loaders read gzip files (OGB's .csv.gz). Public symbols are the gnn_* functions only (-fvisibility=hidden).
CUDA_HOME   ?= /usr/local/cuda
NVCC        ?= $(CUDA_HOME)/bin/nvcc
CUDA_ARCHS  ?= 80 90
NVCC_WERROR ?=
PREFIX      ?= /usr/local
RT_HDRS     := runtime/gnnrt.h runtime/gnnrt_rng.h runtime/gnnrt_text.h runtime/gnnrt_hostmem.h runtime/gnnrt_path.h runtime/gnnrt_omp.h runtime/internal.h
RT_COMMON   := runtime/core.c runtime/text.c runtime/graph.c runtime/edgelist.c runtime/cache.c runtime/tables.c \
               runtime/dataset.c runtime/ogb.c runtime/npz.c runtime/load.c runtime/params.c runtime/profile.c runtime/checkpoint.c \
               runtime/spmm.c runtime/sample.c
RT_HOST_SRC := $(RT_COMMON) runtime/device_host.c runtime/train_host.c runtime/csr_host.c
RT_CUDA_SRC := $(RT_COMMON) runtime/device_cuda.c runtime/nvrtc.c
RT_BASE     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime -fPIC -fvisibility=hidden
RT_HOST_OBJ := $(patsubst runtime/%.c,$(BUILD)/rt-host/%.o,$(RT_HOST_SRC))
RT_CUDA_OBJ := $(patsubst runtime/%.c,$(BUILD)/rt-cuda/%.o,$(RT_CUDA_SRC)) $(BUILD)/rt-cuda/gnnrt_headers.o \
               $(BUILD)/rt-cuda/train_cuda.o $(BUILD)/rt-cuda/csr_cuda.o $(BUILD)/rt-cuda/spmm_cuda.o
RT_HOST_LIBS := $(BUILD)/lib/libgnnrt_host.so $(BUILD)/lib/libgnnrt_host.a
HAVE_NVCC   := $(shell command -v $(NVCC) > /dev/null 2>&1 && echo 1)

$(BUILD)/rt-host/%.o: runtime/%.c $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_BASE) $(CFLAGS) $(OPENMP) -c -o $@ $<

$(BUILD)/lib/libgnnrt_host.so: $(RT_HOST_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libgnnrt_host.so $(OPENMP) -o $@ $^ -lopenblas -lz -lm

$(BUILD)/lib/libgnnrt_host.a: $(RT_HOST_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/rt-cuda/%.o: runtime/%.c $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_BASE) -DGNNRT_CUDA -I$(CUDA_HOME)/include $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/gnnrt_headers.c: runtime/embed.sh runtime/gnnrt_rng.h runtime/gnnrt.h
	@mkdir -p $(dir $@)
	sh runtime/embed.sh runtime/gnnrt_rng.h runtime/gnnrt.h > $@.tmp && mv $@.tmp $@

$(BUILD)/rt-cuda/gnnrt_headers.o: $(BUILD)/gen/gnnrt_headers.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_BASE) $(CFLAGS) -c -o $@ $<

$(BUILD)/rt-cuda/train_cuda.o $(BUILD)/rt-cuda/csr_cuda.o $(BUILD)/rt-cuda/spmm_cuda.o: $(BUILD)/rt-cuda/%.o: runtime/%.cu $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O2 -g -DGNNRT_CUDA -Iruntime $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	  -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS)) \
	  -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra $(NVCC_WERROR) -c -o $@ $<

# cudart, cuBLAS and cuSPARSE are found through the rpath; libcuda is not linked (nvrtc.c explains).
$(BUILD)/lib/libgnnrt.so: $(RT_CUDA_OBJ)
	@mkdir -p $(dir $@)
	$(NVCC) -shared -cudart shared -Xlinker -soname,libgnnrt.so -Xlinker -rpath,$(CUDA_HOME)/lib64 -o $@ $^ \
	  -L$(CUDA_HOME)/lib64 -lcublas -lcusparse -lnvrtc -lz

# ---------------------------------------------------------------- the drivers
# gnn-run and gnn-train link no runtime: they dlopen a model library and use the runtime it
# links (runtime/gnn_run.c says why). gnn-nvrtc needs the CUDA runtime's NVRTC.
TOOLS := $(BUILD)/bin/gnn-run $(BUILD)/bin/gnn-train $(BUILD)/bin/gnn-compare $(if $(HAVE_NVCC),$(BUILD)/bin/gnn-nvrtc)

$(BUILD)/bin/gnn-run $(BUILD)/bin/gnn-train: $(BUILD)/bin/gnn-%: runtime/gnn_%.c runtime/driver_rt.h runtime/gnnrt_omp.h runtime/gnnrt_path.h runtime/gnn_model.h runtime/gnnrt.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime $(CFLAGS) -o $@ $< -ldl -lm

# gnn-compare reads tensor text files alone (a library's outputs against the interpreter's)
$(BUILD)/bin/gnn-compare: runtime/gnn_compare.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) -o $@ $< -lm

$(BUILD)/bin/gnn-nvrtc: runtime/gnn_nvrtc.c runtime/gnnrt.h runtime/gnnrt_path.h $(BUILD)/lib/libgnnrt.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime $(CFLAGS) -o $@ $< \
	  -L$(BUILD)/lib -lgnnrt -Wl,-rpath,'$$ORIGIN/../lib'

tools: $(TOOLS)

runtime-host: $(RT_HOST_LIBS)
runtime-cuda: $(BUILD)/lib/libgnnrt.so
runtime: runtime-host $(if $(HAVE_NVCC),runtime-cuda)

# The runtime's test programs (tests/runtime/*.c), against the shared libraries: *_host link
# libgnnrt_host, *_cuda libgnnrt. The ASan+UBSan variants compile the host sources in.
RT_TEST_NAMES := rt_load t_api t_ckpt t_csr t_sample
RT_TESTS    := $(patsubst %,$(BUILD)/rt/%,$(RT_TEST_NAMES)) $(if $(HAVE_NVCC),$(BUILD)/rt/t_api_cuda $(BUILD)/rt/t_csr_cuda $(BUILD)/rt/t_nvrtc)
RT_TEST_CC  := $(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime $(CFLAGS)

$(BUILD)/rt/%: tests/runtime/%.c tests/runtime/rt_test.h runtime/gnnrt.h runtime/gnnrt_rng.h $(RT_HOST_LIBS)
	@mkdir -p $(dir $@)
	$(RT_TEST_CC) -o $@ $< -L$(BUILD)/lib -lgnnrt_host -Wl,-rpath,'$$ORIGIN/../lib' -lm

$(BUILD)/rt/t_api_cuda $(BUILD)/rt/t_csr_cuda: $(BUILD)/rt/%_cuda: tests/runtime/%.c tests/runtime/rt_test.h runtime/gnnrt.h $(BUILD)/lib/libgnnrt.so
	@mkdir -p $(dir $@)
	$(RT_TEST_CC) -o $@ $< -L$(BUILD)/lib -lgnnrt -Wl,-rpath,'$$ORIGIN/../lib' -lm

$(BUILD)/rt/t_nvrtc: tests/runtime/t_nvrtc.c tests/runtime/rt_test.h runtime/gnnrt.h $(BUILD)/lib/libgnnrt.so
	@mkdir -p $(dir $@)
	$(RT_TEST_CC) -DGNNRT_CUDA -I$(CUDA_HOME)/include -o $@ $< -L$(BUILD)/lib -lgnnrt -Wl,-rpath,'$$ORIGIN/../lib' \
	  -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lm

$(BUILD)/asan/rt/%: tests/runtime/%.c tests/runtime/rt_test.h $(RT_HOST_SRC) $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime $(ASAN_FLAGS) $(OPENMP) -o $@ $< \
	  $(RT_HOST_SRC) -lopenblas -lz -lm

runtime-tests: runtime $(RT_TESTS)
# tests/runtime/t_threads.c reaches the runtime through the model libraries it loads (driver_rt.h)
runtime-tests: $(BUILD)/rt/t_threads
$(BUILD)/rt/t_threads: tests/runtime/t_threads.c runtime/driver_rt.h runtime/gnnrt_omp.h runtime/gnnrt_path.h runtime/gnn_model.h runtime/gnnrt.h
	@mkdir -p $(dir $@)
	$(RT_TEST_CC) -o $@ $< -ldl -lpthread -lm
# tests/runtime/t_setgraph.c compiles two generated models in (their set_graph and reserve)
SETGRAPH_SRC := tests/runtime/t_setgraph.c generated/sage.c generated/gin_graph.c generated/gcn.c
runtime-tests: $(BUILD)/rt/t_setgraph
$(BUILD)/rt/t_setgraph: $(SETGRAPH_SRC) generated/sage.h generated/gin_graph.h generated/gcn.h tests/runtime/rt_test.h runtime/gnn_model.h $(RT_HOST_LIBS)
	@mkdir -p $(dir $@)
	$(RT_TEST_CC) $(OPENMP) -Igenerated -o $@ $(SETGRAPH_SRC) -L$(BUILD)/lib -lgnnrt_host -Wl,-rpath,'$$ORIGIN/../lib' -lopenblas -lm
# tests/runtime/t_busy.c compiles generated/gcn.c in (one model from two threads at once: refused)
BUSY_SRC := tests/runtime/t_busy.c generated/gcn.c
runtime-tests: $(BUILD)/rt/t_busy
$(BUILD)/rt/t_busy: $(BUSY_SRC) generated/gcn.h tests/runtime/rt_test.h runtime/gnn_model.h $(RT_HOST_LIBS)
	@mkdir -p $(dir $@)
	$(RT_TEST_CC) $(OPENMP) -Igenerated -o $@ $(BUSY_SRC) -L$(BUILD)/lib -lgnnrt_host -Wl,-rpath,'$$ORIGIN/../lib' -lopenblas -lpthread -lm
runtime-tests-asan: $(BUILD)/asan/rt/t_busy
$(BUILD)/asan/rt/t_busy: $(BUSY_SRC) generated/gcn.h tests/runtime/rt_test.h $(RT_HOST_SRC) $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime -Igenerated $(ASAN_FLAGS) $(OPENMP) -o $@ \
	  $(BUSY_SRC) $(RT_HOST_SRC) -lopenblas -lz -lpthread -lm
# The same test against the CUDA models (the .c is target-agnostic: gnn_upload/gnn_download), for
# make gpu-check: the two generated .cu compiled by nvcc as compiler/build.c compiles a model (SASS
# for CUDA_ARCHS, -Xcompiler flags; no GNNC_MODEL_ENTRY: two models in one program), linked with
# libgnnrt and cuBLAS. Without a GPU it prints "no context: GNN_ERR_CUDA: ..." and exits 77.
SETGRAPH_CU := generated/sage.cu generated/gin_graph.cu generated/gcn.cu
$(BUILD)/rt/t_setgraph_cuda: tests/runtime/t_setgraph.c $(SETGRAPH_CU) generated/sage.h generated/gin_graph.h generated/gcn.h tests/runtime/rt_test.h \
  runtime/gnn_model.h runtime/gnnrt.h $(BUILD)/lib/libgnnrt.so
	@mkdir -p $(BUILD)/rt-setgraph-cuda
	$(NVCC) -std=c++17 -O3 $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	  -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS)) \
	  -Iruntime -Xcompiler -fPIC,-Wall $(NVCC_WERROR) -c -o $(BUILD)/rt-setgraph-cuda/sage.o generated/sage.cu
	$(NVCC) -std=c++17 -O3 $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	  -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS)) \
	  -Iruntime -Xcompiler -fPIC,-Wall $(NVCC_WERROR) -c -o $(BUILD)/rt-setgraph-cuda/gin_graph.o generated/gin_graph.cu
	$(NVCC) -std=c++17 -O3 $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	  -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS)) \
	  -Iruntime -Xcompiler -fPIC,-Wall $(NVCC_WERROR) -c -o $(BUILD)/rt-setgraph-cuda/gcn.o generated/gcn.cu
	$(RT_TEST_CC) -Igenerated -c -o $(BUILD)/rt-setgraph-cuda/t_setgraph.o tests/runtime/t_setgraph.c
	$(NVCC) -cudart shared -o $@ $(BUILD)/rt-setgraph-cuda/t_setgraph.o $(BUILD)/rt-setgraph-cuda/sage.o \
	  $(BUILD)/rt-setgraph-cuda/gin_graph.o $(BUILD)/rt-setgraph-cuda/gcn.o -L$(BUILD)/lib -lgnnrt -L$(CUDA_HOME)/lib64 -lcublas \
	  -Xlinker -rpath,'$$ORIGIN/../lib' -Xlinker -rpath,$(CUDA_HOME)/lib64 -lm
runtime-tests: $(if $(HAVE_NVCC),$(BUILD)/rt/t_setgraph_cuda)
runtime-tests-asan: $(BUILD)/asan/rt/t_setgraph
$(BUILD)/asan/rt/t_setgraph: $(SETGRAPH_SRC) generated/sage.h generated/gin_graph.h generated/gcn.h tests/runtime/rt_test.h $(RT_HOST_SRC) $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime -Igenerated $(ASAN_FLAGS) $(OPENMP) -o $@ \
	  $(SETGRAPH_SRC) $(RT_HOST_SRC) -lopenblas -lz -lm
# The C parts of both builds and the host test programs, without nvcc (the clang warning check).
runtime-cobjs: $(RT_HOST_LIBS) $(filter-out %/train_cuda.o %/csr_cuda.o %/spmm_cuda.o,$(RT_CUDA_OBJ)) $(patsubst %,$(BUILD)/rt/%,$(RT_TEST_NAMES))
runtime-tests-asan: $(patsubst %,$(BUILD)/asan/rt/%,$(RT_TEST_NAMES))

# The pkg-config files' Version: gnnrt.h's (pkg-config --atleast-version means something).
GNNRT_VERSION = $(shell sed -n 's/^\#define GNNRT_VERSION_MAJOR \([0-9]*\).*/\1/p' runtime/gnnrt.h).$(shell sed -n 's/^\#define GNNRT_VERSION_MINOR \([0-9]*\).*/\1/p' runtime/gnnrt.h)
install-runtime: runtime
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 runtime/gnnrt.h runtime/gnnrt_rng.h runtime/gnn_model.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(BUILD)/lib/libgnnrt_host.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(BUILD)/lib/libgnnrt_host.a $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(GNNRT_VERSION)|' runtime/gnnrt_host.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gnnrt_host.pc
	if [ -f $(BUILD)/lib/libgnnrt.so ]; then \
	  install -m 755 $(BUILD)/lib/libgnnrt.so $(DESTDIR)$(PREFIX)/lib/ && \
	  sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(GNNRT_VERSION)|' -e 's|@CUDA_HOME@|$(CUDA_HOME)|' runtime/gnnrt.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gnnrt.pc; fi

# gnnc finds the installed runtime beside itself ($(PREFIX)/include, $(PREFIX)/lib): compiler/build.c.
install: all install-runtime tools
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/gnnc $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/gnnc.1 $(DESTDIR)$(PREFIX)/share/man/man1/

# ---------------------------------------------------------------- sanitizers and fuzzing
# (gcc's "undefined" leaves out float-cast-overflow, which clang's includes: ask for it.)
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all

$(BUILD)/asan/gnnc: $(SRCS) $(GENSRCS) compiler/main.c $(HDRS)
	@mkdir -p $(BUILD)/asan
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -Wno-unknown-pragmas -o $@ compiler/main.c $(SRCS) $(GENSRCS) $(LDLIBS)

FUZZ_SECONDS ?= 60
$(BUILD)/fuzz/fuzz_frontend: tests/fuzz/fuzz_frontend.c $(SRCS) $(GENSRCS) $(HDRS)
	@mkdir -p $(BUILD)/fuzz
	clang $(BASE) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wno-sign-compare \
	  -Wno-unused-parameter -Wno-unknown-pragmas -o $@ tests/fuzz/fuzz_frontend.c $(SRCS) $(GENSRCS) $(LDLIBS)

# A replay driver: runs the fuzz target over files, without libFuzzer (any compiler).
$(BUILD)/fuzz/replay: tests/fuzz/fuzz_frontend.c tests/fuzz/replay.c $(SRCS) $(GENSRCS) $(HDRS)
	@mkdir -p $(BUILD)/fuzz
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -Wno-unknown-pragmas -o $@ tests/fuzz/fuzz_frontend.c \
	  tests/fuzz/replay.c $(SRCS) $(GENSRCS) $(LDLIBS)

# The autodiff rules that no source program reaches yet (tests/grad/rules.c), with the sanitizers.
$(BUILD)/grad_rules: tests/grad/rules.c $(SRCS) $(GENSRCS) $(HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -Wno-unknown-pragmas -o $@ tests/grad/rules.c $(SRCS) $(GENSRCS) $(LDLIBS)

# C unit tests (tests/suites/unit.sh), under ASan + UBSan like the replay driver.
$(BUILD)/unit: tests/unit/unit.c $(SRCS) $(GENSRCS) $(HDRS)
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -Wno-unknown-pragmas -o $@ tests/unit/unit.c $(SRCS) $(GENSRCS) $(LDLIBS)

fuzz: $(BUILD)/fuzz/fuzz_frontend
	@mkdir -p $(BUILD)/fuzz/corpus
	$(BUILD)/fuzz/fuzz_frontend -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=5 \
	  -dict=tests/fuzz/gnn.dict -artifact_prefix=tests/fuzz/crashes/ $(BUILD)/fuzz/corpus tests/fuzz/corpus

# Differential fuzzing of the whole compiler: random well-typed programs through the interpreter
# and the host library, forward and backward (tests/fuzz/diff/fuzz_diff.py); findings, minimised,
# land in tests/fuzz/diff/cases/ and make test replays them. make fuzz-diff SECONDS=600 [SEED=N]
# [CUDA=1: wide inputs, and each program's CUDA compiled with nvcc too] [PIECES=1: gnnc --split-hubs, on graphs with a hub]
# [TILES=1: gnnc --tile-columns=2, walks in column tiles]
# [SPREAD=1: gnnc --dots=spread, the CUDA form of the dots of kernels per row, on the host]
# [SPMM=1: gnnc --spmm=cusparse, plain weighted sums as SpMM steps (the runtime's loop on the host)]
SECONDS ?= 60
fuzz-diff: all
	/usr/bin/python3 tests/fuzz/diff/fuzz_diff.py --gnnc $(BUILD)/gnnc --gnn-run $(BUILD)/bin/gnn-run --seconds $(SECONDS) \
	  $(if $(SEED),--seed $(SEED)) $(if $(CUDA),--cuda) $(if $(PIECES),--pieces) $(if $(TILES),--tiles) $(if $(SPREAD),--spread) $(if $(SPMM),--spmm)

# ---------------------------------------------------------------- tests, examples, benchmarks
# bench-peers' helpers, which tests/suites/bench.sh runs too
BENCH_TOOLS := $(BUILD)/bench/gen_graph $(BUILD)/bench/peer_gnnc $(BUILD)/bench/gen_pointcloud

setup:
	@bash scripts/setup.sh

# test and test-asan build what they need on every core (make test alone, as CI runs it, would
# build one file at a time); a make already given -j keeps its own job count
BUILD_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc 2> /dev/null || echo 2))

test: setup
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all $(BUILD)/fuzz/replay runtime-tests tools $(BUILD)/grad_rules $(BUILD)/unit $(BENCH_TOOLS) \
	  $(if $(HAVE_NVCC),$(BUILD)/bench/d2d_copy)
	@RT_BIN=$(BUILD)/rt bash tests/run.sh $(BUILD)/gnnc

# (all too: embed's make install, which builds it, runs beside other suites and must find it built)
test-asan: setup
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all $(BUILD)/asan/gnnc $(BUILD)/fuzz/replay runtime-tests runtime-tests-asan tools $(BUILD)/grad_rules $(BUILD)/unit $(BENCH_TOOLS) \
	  $(if $(HAVE_NVCC),$(BUILD)/bench/d2d_copy)
	@RT_BIN=$(BUILD)/asan/rt RT_SANITIZED=1 bash tests/run.sh $(BUILD)/asan/gnnc

EXAMPLES := $(wildcard dsl-examples/*.gnn)
# Per example: the optimised IR, the CUDA and host C sources and their (shared) header.
generated: all
	@mkdir -p generated
	@for f in $(EXAMPLES); do n=$$(basename $$f .gnn); \
	  $(BUILD)/gnnc $$f -o generated/$$n.ir && $(BUILD)/gnnc $$f --emit=cu -o generated/$$n.cu && \
	  $(BUILD)/gnnc $$f --emit=c -o generated/$$n.c || exit 1; done
	@echo "generated/: $(words $(EXAMPLES)) examples, 4 files each"

# The main job: GAT compiled to a host library and run on Cora (TARGET=cuda: the CUDA library,
# on a machine with a GPU).
TARGET ?= host
run-example: setup
	@$(MAKE) --no-print-directory all $(if $(filter cuda,$(TARGET)),runtime-cuda)
	$(BUILD)/gnnc dsl-examples/gat.gnn --target=$(TARGET) -o $(BUILD)/libgat-$(TARGET).so
	$(BUILD)/bin/gnn-run $(BUILD)/libgat-$(TARGET).so --graph data/cora

# The GPU checks in one shot (docs/gpu.md). gpu-check-prepare, on a machine with the build tools
# and no GPU: everything built, the CUDA objects of every library the checks build compiled into
# build/cuda-cache (GNNC_CUDA_CACHE), all packed into build/gpu-kit.tar.gz. gpu-check, on the GPU
# machine: depends on no build rule (that machine has no flex or bison), unpacks the kit if the
# tree has no build/, runs tests/gpu/check.sh; results in bench/results/gpu-check-*/.
GPU_KIT_DEPS := all runtime-cuda tools $(BUILD)/rt/t_api_cuda $(BUILD)/rt/t_csr_cuda $(BUILD)/rt/t_nvrtc $(BUILD)/rt/t_setgraph_cuda $(BENCH_TOOLS) \
  $(BUILD)/bench/d2d_copy
gpu-check-prepare: setup
	@$(MAKE) --no-print-directory $(GPU_KIT_DEPS)
	@bash tests/gpu/check.sh --prepare

gpu-check:
	@bash tests/gpu/check.sh

test-gpu: gpu-check

$(BUILD)/bench/compile_time: bench/compile_time.c $(OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $(OPENMP) -o $@ $< $(OBJS) $(LDLIBS)

# The kNN point-cloud generator for EdgeConv (bench/reorg_ablation.sh writes the graph into build/bench/).
$(BUILD)/bench/gen_pointcloud: bench/gen_pointcloud.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) -o $@ $< -lm

# bench-peers (bench/peers.sh): the graph generator and converter (.gcsr caches), linked with the
# static host runtime, and the gnnc side's driver (dlopens a model library, like gnn-run).
$(BUILD)/bench/gen_graph: bench/gen_graph.c runtime/gnnrt.h $(BUILD)/lib/libgnnrt_host.a
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime $(CFLAGS) -o $@ $< \
	  $(BUILD)/lib/libgnnrt_host.a $(OPENMP) -lopenblas -lz -lm

$(BUILD)/bench/peer_gnnc: bench/peer_gnnc.c runtime/driver_rt.h runtime/gnnrt_omp.h runtime/gnnrt_path.h runtime/gnn_model.h runtime/gnnrt.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Iruntime $(CFLAGS) -o $@ $< -ldl -lm

# The device-to-device copy bandwidth that bench/gpu_forward.sh divides by (a CUDA program).
$(BUILD)/bench/d2d_copy: bench/d2d_copy.cu
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O2 $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	  -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS)) \
	  -Xcompiler -Wall,-Wextra $(NVCC_WERROR) -o $@ $<

# On a machine with a GPU: GAT and GCN forward on PubMed with the CUDA target, and achieved
# bandwidth against a measured copy; writes bench/results/gpu_forward-DATE-GPU-COMMIT.txt.
# make gpu-check runs it with the rest (docs/gpu.md).
bench-gpu: setup
	@$(MAKE) --no-print-directory all runtime-cuda tools $(BUILD)/bench/d2d_copy
	@bash bench/gpu_forward.sh $(BUILD)/gnnc

# Without a GPU (issue 29): gnnc's GPU estimate beside every GPU time on record, measured / estimate
# per workload, with and without the latency term (bench/gpu_estimate.sh; makes the peers' graphs,
# the Reddit-sized one 1.4 GB and minutes: ESTIMATE_GRAPHS=DIR reads them from another checkout's
# build/bench/peers/graphs, ESTIMATE_REDDIT=0 leaves it out). bench/results/gpu_estimate.txt.
bench-gpu-estimate: all $(BENCH_TOOLS)
	@bash bench/gpu_estimate.sh $(BUILD)/gnnc

# compile time, interpreter time, host forward speed on PubMed (issue 3), the reorg ablation
# (issue 5), the fusion ablation (issue 11), the GPU estimate on the peers' graphs (issue 29; makes
# the Reddit-sized graph, minutes); each prints its table and writes it to bench/results/ (docs/benchmarks.md).
bench: all $(BUILD)/bench/compile_time $(BENCH_TOOLS)
	@mkdir -p bench/results
	$(BUILD)/bench/compile_time $(EXAMPLES)
	@bash -c '. bench/bench_lib.sh && bench_stamp bench/results/compile_time.txt "compile_time: gnnc front end and passes per example, in process (build/bench/compile_time, make bench)" "no code generated"'
	@bash bench/interp_time.sh $(BUILD)/gnnc
	@bash bench/host_forward.sh $(BUILD)/gnnc
	@bash bench/reorg_ablation.sh $(BUILD)/gnnc
	@bash bench/fuse_ablation.sh $(BUILD)/gnnc
	@bash bench/attention_precision.sh
	@bash bench/recompute.sh $(BUILD)/gnnc
	@bash bench/train_accuracy.sh $(BUILD)/gnnc
	@bash bench/gpu_estimate.sh $(BUILD)/gnnc

# Issue 12: gnnc against PyTorch Geometric and DGL, same machine, same run (bench/peers.sh; never
# part of make test). Makes build/peers-venv (current torch + torch_geometric from PyPI; Debian's
# torch in build/peers-venv-debian only if that fails) and build/peers-dgl-venv (dgl 2.1.0, torch
# 2.2.1, Python 3.11; none: the DGL column says why); bench/peers_env.sh prints the sizes first.
# PEERS_PYTHON / PEERS_DGL_PYTHON name pythons that have them. PEERS_REDDIT=1 adds the Reddit-sized
# graph; TARGET=cuda runs gnnc's CUDA libraries against PyG on CUDA. docs/benchmarks.md.
bench-peers: all $(BENCH_TOOLS)
	@bash bench/peers_env.sh $(BUILD)/peers-venv $(BUILD)/peers-dgl-venv
	@PEERS_TARGET=$(TARGET) bash bench/peers.sh $(BUILD)/gnnc

clean:
	rm -rf $(BUILD)

.PHONY: all setup test test-asan fuzz fuzz-diff generated run-example bench clean runtime runtime-host runtime-cuda \
        runtime-tests runtime-tests-asan runtime-cobjs install-runtime install tools test-gpu bench-gpu bench-gpu-estimate bench-peers \
        gpu-check gpu-check-prepare
