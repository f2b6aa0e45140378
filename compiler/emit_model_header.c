/* emit_model_header.c -- the generated model's header, and the names it and the source share.
 *
 * The header (model.h) declares the opaque model type, its typed entry points and the API
 * table's accessor, with a comment per entry point saying what it reads and writes; the source
 * (emit_model.c) includes it, or inlines it when the generated C goes to stdout. Both need the
 * same answers about the model's names: the C prefix of its public names, its forward inputs in
 * declaration order, which output holds which input's gradient. Those live here, beneath the
 * source emitter, so that the two files call only downward (emit_model.c -> this file).
 */
#include "emit.h"

#include <string.h>

/* ---------------------------------------------------------------- naming */

/* The C prefix of the model's public names: the name in lower case (lower.c), unless that
 * would enter the namespace reserved for the runtime and gnnc (every identifier starting with
 * "gnn" in any case: gnn_ctx, gnn_model_api, GNN_OK, gnnrt_..., gnnc_...) or one C reserves (a
 * leading underscore); such a name gets "model_" in front ("Gnn_ctx" -> model_gnn_ctx_create).
 * The generated code's own file-scope names start with gnnc_, so no model name can reach them. */
const char *emit_model_prefix(const KProgram *p) {
  const char *c = p->cname;
  bool reserved = c[0] == '_' || ((c[0] | 32) == 'g' && (c[1] | 32) == 'n' && (c[2] | 32) == 'n');
  return reserved ? arena_printf(p->arena, "model_%s", c) : c;
}

/* The forward input (index among emit_model_forward_inputs) whose gradient output i is
 * ("grad_input.<name>", gnnc --input-grads), or -1. */
int emit_model_grad_input(const KProgram *p, int out) {
  const char *name = p->m->outs[out].name;
  if (strncmp(name, "grad_input.", 11) != 0) return -1;
  int n = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *x = p->bufs.items[i];
    if (x->kind != BUF_INPUT || x->bwd) continue;
    if (strcmp(x->val->name, name + 11) == 0) return n;
    n++;
  }
  return -1;
}

/* Per forward input: the output holding its gradient, or -1 (not asked for, or not differentiable). */
int emit_model_input_grad_out(const KProgram *p, int input) {
  for (int o = 1; o < p->m->nouts; o++)
    if (emit_model_grad_input(p, o) == input) return o;
  return -1;
}

/* The forward inputs (not the backward seed) in declaration order, in an array from the
 * program's arena (a model may have any number of inputs: a fixed array here once overflowed
 * past 64). */
int emit_model_forward_inputs(const KProgram *p, const KBuf ***list) {
  const KBuf **l = arena_alloc(p->arena, sizeof *l * (size_t)(p->bufs.len + 1));
  int n = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind == BUF_INPUT && !b->bwd) l[n++] = b;
  }
  *list = l;
  return n;
}

/* A value's type as the generated comments write it: "vertex[4, 16]". */
const char *emit_shape_text(const KProgram *p, const Value *v) {
  return arena_printf(p->arena, "%s%s", domain_name(v->dom), shape_str(p->arena, &v->shape));
}

/* ---------------------------------------------------------------- the header */

/* Appends item to a comment's line in line (cols used so far in *col), breaking before it when
 * the line would pass 100 columns; continuation lines start with " *     ". */
static void comment_item(FILE *out, int *col, const char *item, bool last) {
  int len = (int)strlen(item) + (last ? 1 : 2);
  if (*col + 1 + len > 100) {
    fputs("\n *    ", out);
    *col = 7;
  }
  fprintf(out, " %s%s", item, last ? "" : ",");
  *col += 1 + len - 1;
}

/* The create comment's account of how the parameters start, per kind (gnn_model_api.param_init,
 * emit_model.c's gnnc_param_init): the declared values with their names, then the Glorot and the
 * zero parameters by name. */
static void header_param_starts(FILE *out, const KProgram *p, const char *P) {
  static const char *const kind_text[3] = {"at their declared value (in float32):", "Glorot-uniform from seed (the interpreter's values, in float32):",
                                           "zeros:"};
  if (!p->nparams) {
    fputs(" * The model has no parameters.\n", out);
    return;
  }
  fprintf(out, " * Parameters start as %s_api()->param_init says, whatever the graph and the target:\n", P);
  for (int kind = 0; kind < 3; kind++) {
    int n = 0, seen = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind != BUF_PARAM) continue;
      int k = b->val->iattr ? 0 : b->val->shape.rank >= 2 ? 1 : 2;
      n += k == kind;
    }
    if (!n) continue;
    fprintf(out, " *   %s", kind_text[kind]);
    int col = 5 + (int)strlen(kind_text[kind]);
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind != BUF_PARAM) continue;
      int k = b->val->iattr ? 0 : b->val->shape.rank >= 2 ? 1 : 2;
      if (k != kind) continue;
      const char *item = b->val->name;
      if (kind == 0) {
        char num[64];
        num_str(num, sizeof num, b->val->fattr);
        item = arena_printf(p->arena, "%s = %s", b->val->name, num);
      }
      comment_item(out, &col, item, ++seen == n);
    }
    fputs("\n", out);
  }
}

void emit_header(FILE *out, const KProgram *p, const char *src_name) {
  const char *P = emit_model_prefix(p);
  const KBuf **ins;
  int nin = emit_model_forward_inputs(p, &ins);
  Value *ov = module_output(p->m);
  fprintf(out, "/* %s.h -- generated by gnnc from %s: the model %s. Do not edit; regenerate.\n", P, src_name, p->name);
  fputs(" *\n"
        " * Link with the library built from the matching .cu (CUDA, libgnnrt) or .c (host, libgnnrt_host).\n"
        " * All float pointers are device memory in the CUDA build and host memory in the host build.\n"
        " * Edge rows are in the graph's edge order (CSR by destination, gnn_graph in gnnrt.h).\n"
        " * Every function returns a gnn_status; on failure gnn_last_error(ctx) says why.\n"
        " */\n",
        out);
  char *U = arena_strdup(p->arena, P);
  for (char *q = U; *q; q++) *q = (char)(*q >= 'a' && *q <= 'z' ? *q - 'a' + 'A' : *q);
  fprintf(out, "#ifndef GNNC_%s_H\n#define GNNC_%s_H\n\n", U, U);
  fputs("#include <stdint.h>\n\n#include \"gnn_model.h\"\n#include \"gnnrt.h\"\n\n"
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
        out);
  fprintf(out, "typedef struct %s_model %s_model;\n\n", P, P);
  fprintf(out, "enum { %s_NUM_INPUTS = %d, %s_NUM_PARAMS = %d };\n\n", U, nin, U, p->nparams);
  fputs("/* Preconditions are checked: a NULL pointer, a call out of order or a bad index returns\n"
        " * GNN_ERR_INVALID (with a message in gnn_last_error(ctx) when the model or ctx is known) and\n"
        " * changes nothing; functions that return a pointer return NULL instead. A model is used by one\n"
        " * thread at a time: a call that returns a status, or destroy, made while a call on the same model\n"
        " * from another thread has not returned is refused (GNN_ERR_INVALID, \"model used from two threads\n"
        " * at once\") and changes nothing; a check, not a lock (docs/runtime.md, the threading model). */\n\n",
        out);
  fprintf(out,
          "/* Creates the model for graph g, which must outlive it (or its binding: %s_set_graph binds\n"
          " * another): its parameters, their gradients (zeros) and the output, and plans the activation\n"
          " * arenas (the first forward allocates one). ctx, g and out must not be NULL; *out is NULL on\n"
          " * failure.\n",
          P);
  header_param_starts(out, p, P);
  fprintf(out,
          " */\n"
          "gnn_status %s_create(gnn_ctx *ctx, const gnn_graph *g, uint64_t seed, %s_model **out);\n"
          "/* Frees the model (before its context). NULL is a no-op. While a call on it from another thread\n"
          " * runs, it frees nothing (gnn_last_error(ctx) says so): the model leaks, the other call goes on. */\n"
          "void %s_destroy(%s_model *m);\n\n",
          P, P, P, P);
  fprintf(out,
          "/* Mini-batches on one model: binds graph g (not NULL; it must outlive the binding) in place of the\n"
          " * model's graph, keeping the parameters, their gradients and the arenas. Within the capacity (at\n"
          " * first the create graph's vertices, edges and graphs) it only swaps the graph; a bigger one grows\n"
          " * each exceeded count to at least 1.5x, re-plans the arenas and frees the old one (the next forward\n"
          " * allocates the new), or, when %s_reserve turned growth off, returns GNN_ERR_INVALID and changes\n"
          " * nothing. The output and what the backward reads are the old graph's no more: forward next. */\n"
          "gnn_status %s_set_graph(%s_model *m, const gnn_graph *g);\n"
          "/* Sets the capacity to nv vertices, ne edges and ng graphs (a count below the bound graph's is\n"
          " * raised to it; none negative): the arenas are re-planned and the output reallocated for it when it changes, the\n"
          " * next forward allocating the arena, so a loop over batches allocates once. grow = 0 makes\n"
          " * %s_set_graph refuse a graph beyond the capacity instead of growing it. A capacity whose\n"
          " * new output and inference arena exceed the memory available (gnn_mem_available) is\n"
          " * GNN_ERR_OOM before anything is allocated, here and in a growing set_graph, the capacity\n"
          " * unchanged. */\n"
          "gnn_status %s_reserve(%s_model *m, int64_t nv, int64_t ne, int64_t ng, int grow);\n\n",
          P, P, P, P, P, P);
  fputs("/* The forward pass. Inputs, rows x width floats, none NULL:\n", out);
  for (int i = 0; i < nin; i++) fprintf(out, " *   %s: %s\n", ins[i]->val->name, emit_shape_text(p, ins[i]->val));
  fprintf(out,
          " * training != 0 applies dropout with masks drawn from seed (gnnrt_rng.h) and keeps what the backward\n"
          " * reads; 0 is inference. The first forward allocates its arena: the inference plan (training = 0)\n"
          " * or the training plan, which then serves both. The inputs must stay unchanged until the backward\n"
          " * of this forward. */\n"
          "gnn_status %s_forward(%s_model *m",
          P, P);
  for (int i = 0; i < nin; i++) fprintf(out, ", const float *%s", ins[i]->name);
  fprintf(out, ", int training, uint64_t seed);\n");
  fprintf(out,
          "/* The output of the last successful forward, %s: rows x %lld floats, owned by the model;\n"
          " * NULL before the first forward, after a failed one, and for m NULL. */\n",
          emit_shape_text(p, ov), (long long)shape_elems(&ov->shape));
  fprintf(out, "const float *%s_output(const %s_model *m);\n\n", P, P);
  fprintf(out,
          "/* The backward pass: grad_out (not NULL) is d loss / d output (like the output). It reads what the\n"
          " * last forward left and its inputs, which must be unchanged, and writes every parameter's gradient.\n"
          " * Needs a successful forward with training = 1 since the last backward (an inference forward keeps\n"
          " * nothing for the backward, and the backward reuses the forward's memory); GNN_ERR_INVALID otherwise.\n"
          " * GNN_ERR_UNSUPPORTED if the model was compiled without autodiff. */\n"
          "gnn_status %s_backward(%s_model *m, const float *grad_out);\n\n",
          P, P);
  {
    int nig = 0;
    for (int i = 0; i < nin; i++) nig += emit_model_input_grad_out(p, i) >= 0;
    fputs("/* Gradients with respect to inputs (gnnc --input-grads): ", out);
    if (!nig) fputs("none in this library. */\n", out);
    else {
      fputs("the inputs with one are", out);
      for (int i = 0, k = 0; i < nin; i++)
        if (emit_model_input_grad_out(p, i) >= 0) fprintf(out, "%s %s (%d)", k++ ? "," : "", ins[i]->val->name, i);
      fputs(".\n * Each is computed by a backward only when asked for, and costs its own work. */\n", out);
    }
    fprintf(out,
            "/* Asks (on != 0) or stops asking for d loss / d input i in the backwards that follow. GNN_ERR_UNSUPPORTED\n"
            " * for an input the library was not compiled to differentiate (gnnc --input-grads=NAME); GNN_OK for one\n"
            " * whose gradient is identically zero (api->input_grads[i] == 2: P_input_grad stays NULL);\n"
            " * GNN_ERR_INVALID for i out of range. */\n"
            "gnn_status %s_request_input_grad(%s_model *m, int i, int on);\n"
            "/* d loss / d input i from the last successful backward, shaped like the input (rows x width floats,\n"
            " * edge rows in the graph's order), owned by the model; NULL where that backward did not compute it\n"
            " * (not asked for, or identically zero). */\n"
            "float *%s_input_grad(%s_model *m, int i);\n\n",
            P, P, P, P);
  }
  fprintf(out, "/* Parameter i (0 .. %s_NUM_PARAMS-1; names and shapes in %s_api()->params) and its gradient;\n"
               " * NULL for m NULL or i out of range. */\n", U, P);
  fprintf(out, "float *%s_param(%s_model *m, int i);\nfloat *%s_grad(%s_model *m, int i);\n", P, P, P, P);
  fprintf(out, "/* The index of the parameter called name (\"gatconv0.W\"), or -1 (also for NULL). */\nint %s_param_index(const char *name);\n\n", P);
  fprintf(out,
          "/* Parameters from a tensor text file (gnn-train --save-params, gnnc run --save-params): every\n"
          " * parameter, with its shape, and nothing else; all are checked before any is changed.\n"
          " * GNN_ERR_IO, GNN_ERR_FORMAT (with file and line), GNN_ERR_INVALID (a missing, extra or\n"
          " * misshapen tensor). */\n"
          "gnn_status %s_load_params(%s_model *m, const char *path);\n"
          "/* Writes every parameter to a tensor text file that %s_load_params and gnn-run --params read\n"
          " * (through a temporary file renamed into place). */\n"
          "gnn_status %s_save_params(%s_model *m, const char *path);\n\n",
          P, P, P, P, P);
  fprintf(out, "/* The memory plan: arena (the training plan's, shared by lifetime), arena_inference, parameters,\n"
               " * gradients, output. m NULL gives zeros; plan NULL is a no-op. */\n");
  fprintf(out, "void %s_memory_plan(const %s_model *m, gnn_memory_plan *plan);\n\n", P, P);
  fprintf(out, "/* The same entry points behind gnn_model.h's fixed interface, for drivers that load any model.\n"
               " * Compiled with GNNC_MODEL_ENTRY defined (gnnc -o lib.so does), the source also defines\n"
               " * gnn_model_entry(), the name drivers look up with dlsym; without it several models link into\n"
               " * one program. */\n");
  fprintf(out, "const gnn_model_api *%s_api(void);\n\n", P);
  fputs("#ifdef __cplusplus\n}\n#endif\n#endif\n", out);
}
