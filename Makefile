# gnnc -- plain make, no CMake.
#   make              build build/gnnc
#   make test         build, then run every test (tests/run.sh)
#   make test-asan    the test suite against an ASan+UBSan build
#   make fuzz         build and run the libFuzzer target on the front end for FUZZ_SECONDS
#   make generated    regenerate generated/ (checked byte-for-byte by make test)
#   make run-example  the main job: compile dsl-examples/gat.gnn and run it on Cora
#   make bench        benchmarks under bench/ (not part of make test)

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wno-unused-function
BASE    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Icompiler -Ibuild
OPENMP  ?= -fopenmp
LDLIBS  := -lm

BUILD   := build
SRCS    := compiler/arena.c compiler/diag.c compiler/ir.c compiler/ir_print.c compiler/verify.c \
           compiler/pipeline.c compiler/graph.c compiler/interp.c \
           compiler/passes/sema.c compiler/passes/canonicalize.c compiler/passes/compose.c
GENSRCS := $(BUILD)/parser.c $(BUILD)/lexer.c
HDRS    := compiler/gnnc.h compiler/ops.def compiler/funcs.def $(BUILD)/parser.h

OBJS    := $(patsubst compiler/%.c,$(BUILD)/obj/%.o,$(SRCS)) $(BUILD)/obj/parser.o $(BUILD)/obj/lexer.o

all: $(BUILD)/gnnc

$(BUILD)/parser.c $(BUILD)/parser.h: compiler/parser.y
	@mkdir -p $(BUILD)
	bison -Wall -Werror -d -o $(BUILD)/parser.c $<

$(BUILD)/lexer.c: compiler/lexer.l $(BUILD)/parser.h
	flex -o $@ $<

$(BUILD)/obj/%.o: compiler/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $(OPENMP) -c -o $@ $<

# flex and bison output: compiled with the same warnings except the ones their skeletons trip.
$(BUILD)/obj/parser.o $(BUILD)/obj/lexer.o: $(BUILD)/obj/%.o: $(BUILD)/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) -Wno-sign-compare -Wno-unused-parameter -c -o $@ $<

$(BUILD)/gnnc: $(OBJS) compiler/main.c
	$(CC) $(BASE) $(CFLAGS) $(OPENMP) -o $@ compiler/main.c $(OBJS) $(LDLIBS)

# ---------------------------------------------------------------- sanitizers and fuzzing
# (gcc's "undefined" leaves out float-cast-overflow, which clang's includes: ask for it.)
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all

$(BUILD)/asan/gnnc: $(SRCS) $(GENSRCS) compiler/main.c $(HDRS)
	@mkdir -p $(BUILD)/asan
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -o $@ compiler/main.c $(SRCS) $(GENSRCS) $(LDLIBS)

FUZZ_SECONDS ?= 60
$(BUILD)/fuzz/fuzz_frontend: tests/fuzz/fuzz_frontend.c $(SRCS) $(GENSRCS) $(HDRS)
	@mkdir -p $(BUILD)/fuzz
	clang $(BASE) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wno-sign-compare \
	  -Wno-unused-parameter -o $@ tests/fuzz/fuzz_frontend.c $(SRCS) $(GENSRCS) $(LDLIBS)

# A replay driver: runs the fuzz target over files, without libFuzzer (any compiler).
$(BUILD)/fuzz/replay: tests/fuzz/fuzz_frontend.c tests/fuzz/replay.c $(SRCS) $(GENSRCS) $(HDRS)
	@mkdir -p $(BUILD)/fuzz
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -o $@ tests/fuzz/fuzz_frontend.c \
	  tests/fuzz/replay.c $(SRCS) $(GENSRCS) $(LDLIBS)

# C unit tests (tests/suites/unit.sh), under ASan + UBSan like the replay driver.
$(BUILD)/unit: tests/unit/unit.c $(SRCS) $(GENSRCS) $(HDRS)
	$(CC) $(BASE) $(ASAN_FLAGS) -Wno-sign-compare -Wno-unused-parameter -o $@ tests/unit/unit.c $(SRCS) $(GENSRCS) $(LDLIBS)

fuzz: $(BUILD)/fuzz/fuzz_frontend
	@mkdir -p $(BUILD)/fuzz/corpus
	$(BUILD)/fuzz/fuzz_frontend -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=5 \
	  -dict=tests/fuzz/gnn.dict -artifact_prefix=tests/fuzz/crashes/ $(BUILD)/fuzz/corpus tests/fuzz/corpus

# ---------------------------------------------------------------- tests, examples, benchmarks
setup:
	@bash scripts/setup.sh

test: setup
	@$(MAKE) --no-print-directory all $(BUILD)/fuzz/replay $(BUILD)/unit
	@bash tests/run.sh $(BUILD)/gnnc

test-asan: setup
	@$(MAKE) --no-print-directory $(BUILD)/asan/gnnc $(BUILD)/fuzz/replay $(BUILD)/unit
	@bash tests/run.sh $(BUILD)/asan/gnnc

EXAMPLES := $(wildcard dsl-examples/*.gnn)
generated: all
	@mkdir -p generated
	@for f in $(EXAMPLES); do n=$$(basename $$f .gnn); $(BUILD)/gnnc $$f -o generated/$$n.ir || exit 1; done
	@echo "generated/: $(words $(EXAMPLES)) files"

run-example: setup
	@$(MAKE) --no-print-directory all
	$(BUILD)/gnnc run dsl-examples/gat.gnn --graph data/cora

$(BUILD)/bench/compile_time: bench/compile_time.c $(OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $(OPENMP) -o $@ $< $(OBJS) $(LDLIBS)

bench: all $(BUILD)/bench/compile_time
	@mkdir -p bench/results
	$(BUILD)/bench/compile_time $(EXAMPLES)
	@bash bench/interp_time.sh $(BUILD)/gnnc

clean:
	rm -rf $(BUILD)

.PHONY: all setup test test-asan fuzz generated run-example bench clean
