/* fuzz_frontend.c -- the libFuzzer target for the whole compiler short of running a C compiler:
 * lexer, parser, sema, passes, verifier and printers, then lower (both thread mappings, with and
 * without hub rows in pieces, and in column tiles), the kernel-IR verifier (kverify.c) and both
 * emitters, on arbitrary bytes.
 *
 *   make fuzz FUZZ_SECONDS=600     libFuzzer + ASan + UBSan (clang)
 *   make build/fuzz/replay         the same target without libFuzzer (replay.c), for tests
 *
 * What counts as a bug (besides what the sanitizers catch: memory errors, undefined
 * behaviour, leaks, and libFuzzer's timeouts):
 *
 *   1. An IR the verifier rejects. gnn_compile runs with verify_each, and pipeline.c's
 *      after_pass reports a verifier failure as "internal error: the IR is invalid after pass
 *      'P'" by bumping diag.errors and returning NULL -- from the outside that looks like an
 *      ordinary user error. It is told apart like this: sema_lower sets c->mod only when it
 *      succeeded with no error at all, and the passes themselves never report diagnostics
 *      (they only rewrite the module), so `gnn_compile` returning NULL while c->mod is set
 *      can only be after_pass's internal error. The verifier has already listed the
 *      problems on stderr; the harness then aborts.
 *   2. A compilation that fails without reporting any error, or succeeds with errors.
 *   3. A module that gnn_compile returns but that ir_verify rejects (checked once more here,
 *      independently of verify_each).
 *   4. A kernel program that kir_verify rejects, or a lower_module that fails silently.
 *
 * Printers and costs: every pass's dump and --stats totals go to /dev/null; the final module is
 * printed as text and as DOT, and ir_to_string is called and freed, so the printers and the
 * cost model run on every module the fuzzer manages to build.
 * Diagnostics go nowhere (NULL out = count only), as in the driver's count-only mode.
 */
#include "pipeline.h"
#include "lower.h"
#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull(void) {
  static FILE *f;
  if (!f) {
    f = fopen("/dev/null", "w");
    if (!f) {
      perror("fuzz_frontend: /dev/null");
      abort();
    }
  }
  return f;
}

static void die(const char *what) {
  fprintf(stderr, "fuzz_frontend: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* NUL bytes included: the lexer reports them as stray bytes, as the driver does. */
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  if (size) memcpy(buf, data, size);
  buf[size] = 0;

  FILE *out = devnull();
  GnnCtx c;
  gnn_ctx_init(&c, "fuzz.gnn", buf, size, NULL);
  if (gnn_parse(&c)) {
    /* Every dump and the cost model's totals after every pass, into /dev/null: the printers
     * and cost_of run on every module the fuzzer builds, at every stage. */
    PipelineOpts o = {.verify_each = true, .out = out, .print_after_all = true, .stats = true, .stats_V = 1000, .stats_E = 5000};
    Module *m = gnn_compile(&c, &o);
    if (!m && c.mod) die("internal error: the verifier rejected the IR after a pass (see 'verify:' lines above)");
    if (!m && c.diag.errors == 0) die("gnn_compile failed without reporting an error");
    if (m && c.diag.errors) die("gnn_compile returned a module after reporting errors");
    if (m) {
      if (ir_verify(m, stderr) != 0) die("ir_verify rejects the module gnn_compile returned");
      ir_print(out, m);
      ir_print_dot(out, m);
      char *s = ir_to_string(m);
      if (!s) die("ir_to_string returned NULL");
      free(s);
      /* Past the front end: lower with both thread mappings, verify the kernel IR, and run
       * both emitters (header, CUDA and host sources) into /dev/null. lower may refuse a
       * module with a diagnostic (then it must have reported one); it must not crash, and
       * what it returns must verify. */
      for (int v = 0; v < 6; v++) { /* vertex, edge; both with hub rows in pieces (--split-hubs); in column tiles */
        int map = v % 2 ? MAPPING_EDGE : MAPPING_VERTEX;
        c.split_hubs = v == 2 || v == 3;
        c.tile_columns = v >= 4 ? 4 : 0; /* --tile-columns=4: narrow enough for the fuzzer's widths */
        int before = c.diag.errors;
        ArenaMark mark = arena_mark(&c.arena); /* each lowering's memory freed after it (6 of a long program: > 2 GB) */
        KProgram *p = lower_module(&c, m, (MappingChoice)map, NULL);
        if (!p) {
          if (c.diag.errors == before) die("lower_module failed without reporting an error");
          arena_release(&c.arena, mark);
          continue;
        }
        if (kir_verify(p, stderr) != 0) die("kir_verify rejects the kernel IR lower_module returned");
        kir_print(out, p);
        emit_header(out, p, "fuzz.gnn");
        emit_source(out, p, &emit_cuda_hooks, "fuzz.gnn", "fuzz.h");
        emit_source(out, p, &emit_host_hooks, "fuzz.gnn", NULL);
        arena_release(&c.arena, mark);
      }
    }
  } else if (c.diag.errors == 0) {
    die("gnn_parse failed without reporting an error");
  }
  gnn_ctx_free(&c);
  free(buf);
  return 0;
}
