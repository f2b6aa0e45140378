/* emit.h -- the code generators (emit_model.c over emit_model_header.c; emit_host*.c,
 * emit_cuda.c): the kernel program as CUDA or host C, and the model's C API around it. Above
 * the kernel IR; build.h above it.
 */
#ifndef GNNC_EMIT_H
#define GNNC_EMIT_H

#include <stdio.h>

#include "kir.h"

/* emit_*.c: the generated sources. emit_model.c writes what both targets share (the header,
 * the model's state, create/destroy, forward/backward as steps, the API table) and asks the
 * target's hooks for the rest: kernels, launches, GEMMs. */
typedef enum { TARGET_CUDA, TARGET_HOST } Target;
typedef struct {
  Target target;
  void (*prelude)(FILE *out, const KProgram *p);
  void (*kernel)(FILE *out, const KProgram *p, const Kernel *k);
  void (*launch)(FILE *out, const KProgram *p, const Kernel *k);  /* statements in forward/backward */
  void (*gemm)(FILE *out, const KProgram *p, const KGemm *g);
  void (*fill)(FILE *out, const char *ptr, const char *count, double value);
  void (*copy)(FILE *out, const char *dst, const char *src, const char *bytes);
} EmitHooks;
extern const EmitHooks emit_cuda_hooks, emit_host_hooks;
/* emit_host_gemm.c: the host's GEMMs (narrow ones as generated AVX-512 loops, else cblas), and
 * the functions those loops are, for the prelude. */
void host_gemm(FILE *out, const KProgram *p, const KGemm *g);
void host_gemm_prelude(FILE *out, const KProgram *p);
/* The C expression naming buffer b inside forward/backward (m->t12, m->param[0], ...). */
const char *emit_buf_ref(const KProgram *p, const KBuf *b);
/* rows(b) as C: "g->nv", "g->ne" or "1". */
const char *emit_rows(Domain d);
const char *emit_kernel_rows(const KProgram *p, const Kernel *k); /* its groups: emit_rows, or a weight's rows */
/* The close of the comment atop a kernel: the source lines it computes (a line "Source lines 11-13."). */
const char *emit_kernel_comment_end(const KProgram *p, const Kernel *k);
/* emit_model_header.c: the generated header, and the names it and emit_model.c share. The C
 * prefix of the model's public names (the lower-case name; "model_" before a reserved one); the
 * forward inputs (not the backward seed) in declaration order, in an array from p's arena; the
 * forward input whose gradient output `out` is (gnnc --input-grads), and the output holding
 * input i's gradient, each -1 where there is none; a value's type as the header's comments
 * write it ("vertex[4, 16]"). */
const char *emit_model_prefix(const KProgram *p);
int emit_model_forward_inputs(const KProgram *p, const KBuf ***list);
int emit_model_grad_input(const KProgram *p, int out);
int emit_model_input_grad_out(const KProgram *p, int input);
const char *emit_shape_text(const KProgram *p, const Value *v);
void emit_header(FILE *out, const KProgram *p, const char *src_name);
void emit_source(FILE *out, const KProgram *p, const EmitHooks *h, const char *src_name, const char *header_name);

#endif
