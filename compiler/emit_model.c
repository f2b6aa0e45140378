/* emit_model.c -- the generated model's source: its state, and forward/backward as steps.
 *
 * Both targets generate the same C around their kernels: a header declaring an opaque model
 * type and typed entry points (emit_model_header.c, beneath this file with the names both
 * share), a model struct holding the graph, the parameters, their
 * gradients, the output and an arena for every intermediate buffer (placed by lifetime at
 * create time: gnn_plan_arena in runtime/gnn_model.h), and forward/backward functions that run
 * the kernel IR's steps in order, each under a comment naming the IR values it implements.
 * What differs between CUDA and host C -- the kernels, how they are launched, how a GEMM is
 * called -- comes from the target's EmitHooks (emit_cuda.c, emit_host.c). No globals: all
 * state is in the model and the runtime context; every status is returned, never printed.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- naming */

static int param_index(const KProgram *p, const KBuf *b) {
  int n = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *x = p->bufs.items[i];
    if (x == b) return n;
    n += x->kind == BUF_PARAM;
  }
  return -1;
}

/* The parameter whose gradient output i is ("grad.<name>"), or -1. */
static int grad_param(const KProgram *p, int out) {
  const char *name = p->m->outs[out].name;
  if (strncmp(name, "grad.", 5) != 0) return -1;
  int n = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *x = p->bufs.items[i];
    if (x->kind != BUF_PARAM) continue;
    if (strcmp(x->val->name, name + 5) == 0) return n;
    n++;
  }
  return -1;
}

/* A buffer lives in the model's own storage when it is an output: out, or a gradient (of a
 * parameter, or of an input). */
static bool is_outbuf(const KProgram *p, const KBuf *b) {
  return b->kind == BUF_TEMP && b->out >= 0 && (b->out == 0 || grad_param(p, b->out) >= 0 || emit_model_grad_input(p, b->out) >= 0);
}

const char *emit_rows(Domain d) { return d == DOM_VERTEX ? "g->nv" : d == DOM_EDGE ? "g->ne" : d == DOM_GRAPH ? "g->ng" : "1"; }

/* A buffer's rows: its domain's, or min(nv, cap) for the hub pieces' buffers (KBuf.rows_cap). */
static const char *buf_rows(const KProgram *p, const KBuf *b) {
  if (b->rows_cap > 0)
    return arena_printf(p->arena, "(g->nv < %lld ? g->nv : (int64_t)%lld)", (long long)b->rows_cap, (long long)b->rows_cap);
  return emit_rows(b->dom);
}

const char *emit_kernel_comment_end(const KProgram *p, const Kernel *k) {
  if (!k->lines || !*k->lines) return " */";
  return arena_printf(p->arena, "\n * Source line%s %s. */", strpbrk(k->lines, ",-") ? "s" : "", k->lines);
}

const char *emit_kernel_rows(const KProgram *p, const Kernel *k) {
  if (k->pieces) return k->dir == GATHER_BY_SRC ? "(g->out_npieces + g->nv)" : "(g->npieces + g->nv)";
  return k->rows == DOM_PARAM ? arena_printf(p->arena, "(int64_t)%lld", (long long)k->nrows) : emit_rows(k->rows);
}

const char *emit_buf_ref(const KProgram *p, const KBuf *b) {
  switch (b->kind) {
  case BUF_INPUT: return arena_printf(p->arena, "m->%s", b->name);
  case BUF_PARAM: return arena_printf(p->arena, "m->param[%d]", param_index(p, b));
  case BUF_DEGREE: return b->fn == FN_OUT ? "g->out_deg" : b->fn == FN_SIZE ? "g->graph_size" : "g->in_deg";
  case BUF_TEMP:
    if (is_outbuf(p, b))
      return b->out == 0 ? "m->out"
             : emit_model_grad_input(p, b->out) >= 0 ? arena_printf(p->arena, "m->igrad[%d]", emit_model_grad_input(p, b->out))
                                          : arena_printf(p->arena, "m->grad[%d]", grad_param(p, b->out));
    return arena_printf(p->arena, "m->%s", b->name);
  }
  return "NULL";
}

/* CUDA: the context's device current before the first launch (launches and cuBLAS calls do not
 * go through the runtime, whose entry points would do it). */
static void emit_enter(FILE *out) {
  fputs("  {\n    const gnn_status enter_st = gnn_ctx_enter(m->ctx);\n    if (enter_st) return enter_st;\n  }\n", out);
}

static bool has_backward(const KProgram *p) { return p->nsteps > p->nfwd || p->m->nouts > 1; }

static const char *buf_c(const KBuf *b) { return elem_c(b->elem); }

static void print_dims(FILE *out, const Shape *s) {
  fputc('{', out);
  for (int i = 0; i < 4; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)(i < s->rank ? s->d[i] : 0));
  fputc('}', out);
}

static int dom_code(Domain d) { return d == DOM_VERTEX ? 0 : d == DOM_EDGE ? 1 : d == DOM_GRAPH ? 3 : 2; } /* GNN_DOMAIN_* */

static void tensor_info(FILE *out, const char *name, const Value *v) {
  fprintf(out, "    {\"%s\", %d, %d, ", name, dom_code(v->dom), v->shape.rank);
  print_dims(out, &v->shape);
  fprintf(out, ", %lld},\n", (long long)shape_elems(&v->shape));
}

static const KBuf *seed_input(const KProgram *p) {
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind == BUF_INPUT && b->bwd) return b;
  }
  return NULL;
}



/* Steps that call the runtime and keep its status in `st` (the others return on failure). */
static bool uses_status(const KProgram *p, int from, int to) {
  for (int i = from; i < to; i++)
    if (p->steps[i].kind == STEP_ZERO || p->steps[i].kind == STEP_SPMM) return true;
  return false;
}

/* The per-graph steps (the hoist pass's): the first n forward steps, run once per graph. */
static int per_graph_steps(const KProgram *p) {
  int n = 0;
  while (n < p->nfwd && p->steps[n].per_graph) n++;
  return n;
}

/* GNN_PROFILE (runtime/profile.c): after each step, its time under a constant label. */
static void emit_profile_step(FILE *out, const KProgram *p, int i) {
  const KStep *s = &p->steps[i];
  static const char *const kinds[] = {[STEP_KERNEL] = "kernel", [STEP_GEMM] = "gemm", [STEP_ZERO] = "zero", [STEP_FILL] = "fill",
                                      [STEP_SPMM] = "spmm"};
  fprintf(out, "  gnn_profile_step(m->ctx, \"%s %d %s ", i < p->nfwd ? "forward" : "backward", i, kinds[s->kind]);
  for (const char *c = s->what; *c; c++) fprintf(out, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
  fputs("\");\n", out);
}

static void emit_step(FILE *out, const KProgram *p, const EmitHooks *h, int i) {
  const KStep *s = &p->steps[i];
  fprintf(out, "  /* %d: %s */\n", i, s->what);
  if (s->train_only) fputs("  if (training) {\n", out);
  switch (s->kind) {
  case STEP_KERNEL:
    h->launch(out, p, s->kernel);
    break;
  case STEP_GEMM:
    h->gemm(out, p, &s->gemm);
    break;
  case STEP_SPMM: /* the runtime's: cuSPARSE, or the host's loop */
    fprintf(out, "  if ((st = gnn_spmm(m->ctx, g, %s, %s, %s, %s, %lld))) return st;\n", s->spmm.dir == GATHER_BY_SRC ? "GNN_SPMM_OUT_EDGES" : "GNN_SPMM_IN_EDGES",
            emit_buf_ref(p, s->spmm.x), s->spmm.w ? emit_buf_ref(p, s->spmm.w) : "NULL", emit_buf_ref(p, s->spmm.y), (long long)s->spmm.width);
    break;
  case STEP_ZERO:
    fprintf(out, "  if ((st = gnn_memset0(m->ctx, %s, (size_t)%s * %lld * sizeof(%s)))) return st;\n", emit_buf_ref(p, s->buf),
            buf_rows(p, s->buf), (long long)s->buf->width, buf_c(s->buf));
    break;
  case STEP_FILL:
    h->fill(out, emit_buf_ref(p, s->buf), arena_printf(p->arena, "(int64_t)%s * %lld", emit_rows(s->buf->dom), (long long)s->buf->width),
            s->fill);
    break;
  }
  if (s->train_only) fputs("  }\n", out);
  emit_profile_step(out, p, i);
}

/* Outputs whose value does not live in the output's own storage (an input returned as is, a
 * degree or graph_size: the graph's own array, a gradient shared by two parameters) are copied
 * there after the pass. */
static void emit_output_copies(FILE *out, const KProgram *p, const EmitHooks *h, bool bwd) {
  for (int o = 0; o < p->m->nouts; o++) {
    if ((o > 0) != bwd) continue;
    int gp = o ? grad_param(p, o) : -1, gi = o ? emit_model_grad_input(p, o) : -1;
    if (o > 0 && gp < 0 && gi < 0) continue;
    const KBuf *b = NULL;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *x = p->bufs.items[i];
      if (x->val == p->m->outs[o].val && !x->stash64) b = x;
    }
    const Value *ov = p->m->outs[o].val;
    for (int i = 0; i < p->bufs.len && !b && ov->op == OP_DEGREE; i++) { /* no value: the graph's array */
      const KBuf *x = p->bufs.items[i];
      if (x->kind == BUF_DEGREE && x->fn == (int)ov->fn) b = x;
    }
    if (!b || (is_outbuf(p, b) && b->out == o)) continue;
    const char *dst = o == 0 ? "m->out" : gi >= 0 ? arena_printf(p->arena, "m->igrad[%d]", gi) : arena_printf(p->arena, "m->grad[%d]", gp);
    fprintf(out, "  /* output \"%s\" is %%%d, which lives elsewhere: copy it */\n", p->m->outs[o].name, ov->id);
    if (gi >= 0) fprintf(out, "  if (m->igrad_want & %#llxull) {\n", 1ull << gi);
    h->copy(out, dst, emit_buf_ref(p, b), arena_printf(p->arena, "(size_t)%s * %lld * sizeof(float)", emit_rows(b->dom), (long long)b->width));
    if (gi >= 0) fputs("  }\n", out);
  }
}

/* ---------------------------------------------------------------- input gradients on request
 *
 * A library compiled with --input-grads computes the gradient of input i only when the caller
 * asked for it (P_request_input_grad): every backward step that no parameter gradient needs is
 * run under `if (m->igrad_want & mask)`, mask the inputs whose gradients it serves. Which steps
 * those are follows from the steps' reads and writes, backwards from the outputs: a step is
 * needed for a set of outputs when it writes a buffer that an output is, or that a step needed
 * for them reads. A step that serves both (a fused kernel computing a parameter's and an input's
 * adjoint) always runs; the steps of a parameter-only library are never guarded. */

static void stmt_writes(const PtrVec *body, bool *w) {
  for (int i = 0; i < body->len; i++) {
    const KStmt *st = body->items[i];
    if ((st->kind == KS_STORE || st->kind == KS_ATOMIC) && st->buf) w[st->buf->id] = true;
    if (st->kind == KS_FOR || st->kind == KS_FOR_LANES || st->kind == KS_IF) stmt_writes(&st->body, w);
  }
}

/* The buffers step s writes (w) and reads (r), by KBuf id. A kernel's reads: every buffer it
 * names (a superset: what it writes too), which can only make more steps needed. */
static void step_access(const KProgram *p, const KStep *s, bool *w, bool *r) {
  memset(w, 0, sizeof(bool) * (size_t)p->bufs.len);
  memset(r, 0, sizeof(bool) * (size_t)p->bufs.len);
  switch (s->kind) {
  case STEP_KERNEL:
    stmt_writes(&s->kernel->body, w);
    for (int i = 0; i < s->kernel->bufs.len; i++) r[((const KBuf *)s->kernel->bufs.items[i])->id] = true;
    break;
  case STEP_GEMM:
    w[s->gemm.c->id] = true;
    r[s->gemm.a->id] = r[s->gemm.b->id] = true;
    if (s->gemm.beta != 0) r[s->gemm.c->id] = true;
    break;
  case STEP_SPMM:
    w[s->spmm.y->id] = true;
    r[s->spmm.x->id] = true;
    if (s->spmm.w) r[s->spmm.w->id] = true;
    break;
  case STEP_ZERO: case STEP_FILL:
    w[s->buf->id] = true;
    break;
  }
}

/* need[s - nfwd] for each backward step s: whether the outputs `outs` (flags per output) need it. */
static void backward_needs(const KProgram *p, const bool *outs, bool *need) {
  int nb = p->bufs.len;
  bool *live = calloc((size_t)nb + 1, sizeof(bool)), *w = calloc((size_t)nb + 1, sizeof(bool)), *r = calloc((size_t)nb + 1, sizeof(bool));
  for (int i = 0; i < nb; i++) {
    const KBuf *b = p->bufs.items[i];
    for (int o = 1; o < p->m->nouts; o++) live[i] |= outs[o] && b->val == p->m->outs[o].val && !b->stash64;
  }
  for (int s = p->nsteps - 1; s >= p->nfwd; s--) {
    step_access(p, &p->steps[s], w, r);
    bool n = false;
    for (int i = 0; i < nb && !n; i++) n = w[i] && live[i];
    need[s - p->nfwd] = n;
    if (n)
      for (int i = 0; i < nb; i++) live[i] |= r[i];
  }
  free(live);
  free(w);
  free(r);
}

/* Per backward step: 0 when it runs always (a parameter's gradient needs it, or it serves no
 * input gradient), else the mask of the inputs whose gradients alone need it. */
static uint64_t *input_grad_masks(const KProgram *p) {
  int nb = p->nsteps - p->nfwd, no = p->m->nouts;
  uint64_t *mask = calloc((size_t)nb + 1, sizeof(uint64_t));
  bool *outs = calloc((size_t)no + 1, sizeof(bool)), *need = calloc((size_t)nb + 1, sizeof(bool)), *pneed = calloc((size_t)nb + 1, sizeof(bool));
  bool any = false;
  for (int o = 1; o < no; o++) any |= emit_model_grad_input(p, o) >= 0;
  if (any) {
    for (int o = 1; o < no; o++) outs[o] = emit_model_grad_input(p, o) < 0;
    backward_needs(p, outs, pneed);
    for (int o = 1; o < no; o++) {
      int gi = emit_model_grad_input(p, o);
      if (gi < 0) continue;
      for (int k = 1; k < no; k++) outs[k] = k == o;
      backward_needs(p, outs, need);
      for (int s = 0; s < nb; s++)
        if (need[s] && !pneed[s]) mask[s] |= 1ull << gi;
    }
  }
  free(outs);
  free(need);
  free(pneed);
  return mask;
}

/* One model used from two threads at once is refused, not run (docs/runtime.md#threading-model).
 * Every call that changes the model or uses its context on its behalf is the public name of a
 * wrapper around a static gnnc_<fn>_body: the wrapper claims the model's in_use word with an
 * atomic exchange, runs the body and clears the word with a release store, so each of the body's
 * many early returns releases it without a line of its own. A claim that finds the word set
 * returns GNN_ERR_INVALID and touches nothing but the context's message: the other call is still
 * inside (a check, not a lock: nothing waits). The body keeps its own NULL and live checks;
 * gnnc_claim makes no claim on a model they refuse, so a destroyed model's memory is only read,
 * as before. params and args continue the signature and the call after `m`. */
static void emit_guarded(FILE *out, const char *P, const char *fn, const char *params, const char *args) {
  fprintf(out, "gnn_status %s_%s(%s_model *m%s) {\n", P, fn, P, params);
  fprintf(out, "  const int claim = gnnc_claim(m);\n  if (claim < 0) return gnnc_busy(m, \"%s_%s\");\n", P, fn);
  fprintf(out, "  const gnn_status st = gnnc_%s_body(m%s);\n  gnnc_release(m, claim);\n  return st;\n}\n\n", fn, args);
}

/* P_load_params and P_save_params: the tensor text files of gnn-train and gnnc run, through the
 * runtime's checked reader and atomic writer; every tensor is read and checked into host memory
 * before the first upload, so a bad file changes nothing. */
static void emit_param_files(FILE *out, const KProgram *p, const char *P) {
  int n = p->nparams, n1 = n ? n : 1;
  fprintf(out, "static gnn_status gnnc_load_params_body(%s_model *m, const char *path) {\n", P);
  fprintf(out, "  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_load_params: m is NULL\");\n", P);
  fprintf(out, "  if (!path) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_load_params: path is NULL\");\n", P);
  fprintf(out, "  gnn_tensor_file *tf = NULL;\n  const char *names[%d] = {0};\n  float *host[%d] = {0};\n", n1, n1);
  fputs("  gnn_status st = gnn_tensor_file_read(m->ctx, path, &tf);\n", out);
  fprintf(out, "  for (int i = 0; i < %d; i++) names[i] = gnnc_params[i].name;\n", n);
  fprintf(out, "  if (!st) st = gnn_tensor_file_expect(m->ctx, tf, %d, names);\n", n);
  fprintf(out, "  for (int i = 0; i < %d && !st; i++) {\n", n);
  fputs("    const gnn_tensor_info *t = &gnnc_params[i];\n"
        "    host[i] = (float *)malloc(t->width ? (size_t)t->width * sizeof(float) : 1);\n", out);
  fprintf(out, "    if (!host[i]) st = gnn_set_error(m->ctx, GNN_ERR_OOM, \"%s_load_params: out of host memory\");\n", P);
  fputs("    else st = gnn_tensor_file_get(m->ctx, tf, t->name, t->rank, t->dims, host[i]);\n  }\n", out);
  fprintf(out, "  for (int i = 0; i < %d && !st; i++) st = gnn_upload(m->ctx, m->param[i], host[i], (size_t)gnnc_params[i].width * sizeof(float));\n", n);
  fprintf(out, "  for (int i = 0; i < %d; i++) free(host[i]);\n  gnn_tensor_file_free(tf);\n  return st;\n}\n", n);
  emit_guarded(out, P, "load_params", ", const char *path", ", path");

  fprintf(out, "static gnn_status gnnc_save_params_body(%s_model *m, const char *path) {\n", P);
  fprintf(out, "  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_save_params: m is NULL\");\n", P);
  fprintf(out, "  if (!path) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_save_params: path is NULL\");\n", P);
  fprintf(out, "  gnn_status st = GNN_OK;\n  const char *names[%d] = {0};\n  int ranks[%d] = {0};\n  int64_t dims[%d][4];\n"
               "  float *host[%d] = {0};\n  const float *data[%d] = {0};\n", n1, n1, n1, n1, n1);
  fputs("  memset(dims, 0, sizeof dims);\n", out);
  if (n) { /* no loop at all without parameters: g++ warned of its dead memcpy (stringop-overflow) */
    fprintf(out, "  for (int i = 0; i < %d && !st; i++) {\n", n);
    fputs("    const gnn_tensor_info *t = &gnnc_params[i];\n"
          "    names[i] = t->name;\n    ranks[i] = t->rank;\n    memcpy(dims[i], t->dims, sizeof dims[i]);\n"
          "    host[i] = (float *)malloc(t->width ? (size_t)t->width * sizeof(float) : 1);\n", out);
    fprintf(out, "    if (!host[i]) st = gnn_set_error(m->ctx, GNN_ERR_OOM, \"%s_save_params: out of host memory\");\n", P);
    fputs("    else st = gnn_download(m->ctx, host[i], m->param[i], (size_t)t->width * sizeof(float));\n"
          "    data[i] = host[i];\n  }\n", out);
  }
  fprintf(out, "  if (!st) st = gnn_tensor_file_write(m->ctx, path, %d, names, ranks, (const int64_t(*)[4])dims, data);\n", n);
  fprintf(out, "  for (int i = 0; i < %d; i++) free(host[i]);\n  return st;\n}\n", n);
  emit_guarded(out, P, "save_params", ", const char *path", ", path");
}

/* P_set_graph and P_reserve: mini-batches on one model. The arenas are planned for a capacity (a
 * vertex, edge and graph count, at least the bound graph's), so rebinding a graph within it only
 * swaps the pointer: the plan's offsets are valid for any smaller graph, since every buffer's size
 * grows with the counts and the capacity's plan keeps capacity-sized extents apart. A graph beyond
 * it grows each exceeded count to at least 1.5 times (a slowly growing stream of batches re-plans a
 * logarithmic number of times) and frees the old arena at once (the next forward allocates the new
 * plan's), so no batch's memory outlives the switch. Parameters and gradients have no vertex or
 * edge dimension (a parameter's shape is fixed in the .gnn source), so they stay as they are. */
/* The entry checks against use after free (best effort, docs/runtime.md): a model destroyed
 * already, a graph freed already (gnn_graph_check reads the word gnn_graph_free clears). */
static void emit_model_live(FILE *out, const char *P, const char *fn) {
  fprintf(out, "  if (m->live != GNNC_MODEL_LIVE)\n"
               "    return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_%s: m is not a live model (destroyed already?)\");\n", P, fn);
}
static void emit_graph_live(FILE *out, const char *ctx, const char *g, const char *P, const char *fn) {
  fprintf(out, "  {\n    const gnn_status graph_st = gnn_graph_check(%s, %s, \"%s_%s\");\n    if (graph_st) return graph_st;\n  }\n", ctx, g,
          P, fn);
}

static void emit_rebind(FILE *out, const KProgram *p, const char *P, const KBuf **ins, int nin, int nig) {
  /* The counts a capacity may take are the runtime's (int32 ids: at most 2^31 vertices, edges or
   * graphs): past them the buffers' byte counts wrapped in size_t (a reserve of 2^62 vertices
   * planned a 64-byte output, and the next forward wrote past it). */
  fputs("/* The capacity that holds need: cap if it does, else at least 1.5 x cap (at most GNNC_MAX_COUNT). */\n"
        "static int64_t gnnc_grow(int64_t cap, int64_t need) {\n"
        "  if (need <= cap) return cap;\n"
        "  const int64_t more = cap + cap / 2 < GNNC_MAX_COUNT ? cap + cap / 2 : GNNC_MAX_COUNT;\n"
        "  return need > more ? need : more;\n}\n\n", out);
  fputs("/* Re-plans the arenas and reallocates the output for a capacity of nv vertices, ne edges and ng\n"
        " * graphs. The arena goes at once (the next forward allocates the new plan's); the output is\n"
        " * allocated before the old one goes, so a failure leaves the model bound and planned as it was\n"
        " * (its arena freed, its output invalid: forward again). Nothing is allocated unless the new\n"
        " * buffers and the new inference arena fit in the memory available, as create checks (`who`,\n"
        " * the caller, names the refusal). */\n", out);
  fprintf(out, "static gnn_status gnnc_resize(%s_model *m, int64_t nv, int64_t ne, int64_t ng, const char *who) {\n", P);
  fputs("  gnn_graph shape;\n  memset(&shape, 0, sizeof shape);\n  shape.nv = nv;\n  shape.ne = ne;\n  shape.ng = ng;\n", out);
  /* The check comes before anything changes: a refusal keeps the model as it was, its arena and
   * last forward included. The new plan is made to size the inference arena and undone at once
   * (the last gnnc_plan below makes it current); the old arena, which goes before the new one is
   * allocated, counts as available. A reserve of 2^27 vertices allocated a 3.7 GB output that only
   * the first forward refused. The input gradients are allocated anew whatever their size (every
   * new buffer before any old one goes), so they count in full; the output only when it changes. */
  fputs("  {\n"
        "    gnn_graph old;\n    memset(&old, 0, sizeof old);\n    old.nv = m->cap_nv;\n    old.ne = m->cap_ne;\n    old.ng = m->cap_ng;\n"
        "    gnnc_plan(m, &shape);\n"
        "    const size_t arena = m->arena_infer_bytes;\n"
        "    gnnc_plan(m, &old);\n"
        "    const size_t old_arena = m->arena_mode == 2 ? m->arena_bytes : m->arena_mode == 1 ? m->arena_infer_bytes : 0;\n"
        "    size_t need = gnnc_out_bytes(&shape) != m->out_cap ? gnnc_out_bytes(&shape) : 0; /* beside the old until it goes */\n", out);
  if (nig) fputs("    need += gnnc_igrad_bytes(&shape);\n", out);
  fprintf(out, "    size_t avail = SIZE_MAX;\n"
               "    if (gnn_mem_available(m->ctx, &avail) == GNN_OK && avail < SIZE_MAX - old_arena) avail += old_arena;\n"
               "    if (avail != SIZE_MAX && (need > avail || arena > avail - need))\n"
               "      return gnn_set_error(m->ctx, GNN_ERR_OOM, \"%%s: a capacity of %%lld vertices, %%lld edges and %%lld graphs \"\n"
               "                           \"needs %%zu bytes more (new output%s %%zu, inference arena %%zu), %%zu available; \"\n"
               "                           \"the model keeps its capacity (%%lld vertices, %%lld edges, %%lld graphs)\", who,\n"
               "                           (long long)nv, (long long)ne, (long long)ng, need + arena, need, arena, avail,\n"
               "                           (long long)m->cap_nv, (long long)m->cap_ne, (long long)m->cap_ng);\n"
               "  }\n"
               "  gnn_free(m->ctx, m->arena);\n  m->arena = NULL;\n  m->arena_mode = 0;\n"
               "  m->forward_done = m->trained = m->backward_ready = 0;\n", nig ? " and input gradients" : "");
  /* The input gradients (--input-grads) follow the capacity like the output (a buffer of no rows,
   * an edge input's on a graph without edges, is a byte: input_grad then says the gradient was
   * computed whatever the graph, as after a bigger graph; create allocates them so too). Every new buffer is
   * allocated before any old one goes, so a failure leaves the model's buffers, capacity and plan
   * as they were (a half-resized model could be rebound to a graph its output no longer holds). */
  if (nig) {
    fprintf(out, "  float *ig[%d] = {0};\n  {\n    const gnn_graph *g = &shape;\n    gnn_status st = GNN_OK;\n", nin);
    for (int i = 0; i < nin; i++)
      if (emit_model_input_grad_out(p, i) >= 0)
        fprintf(out, "    if (!st) st = gnn_malloc(m->ctx, (void **)&ig[%d], %s > 0 ? (size_t)%s * %lld * sizeof(float) : 1);\n", i,
                emit_rows(ins[i]->dom), emit_rows(ins[i]->dom), (long long)ins[i]->width);
    fprintf(out, "    if (st) {\n      for (int i = 0; i < %d; i++) gnn_free(m->ctx, ig[i]);\n      return st;\n    }\n  }\n", nin);
  }
  fputs("  const size_t out_bytes = gnnc_out_bytes(&shape);\n"
        "  if (out_bytes != m->out_cap) {\n"
        "    float *o = NULL;\n"
        "    const gnn_status st = gnn_malloc(m->ctx, (void **)&o, out_bytes ? out_bytes : 1);\n", out);
  if (nig) fprintf(out, "    if (st) {\n      for (int i = 0; i < %d; i++) gnn_free(m->ctx, ig[i]);\n      return st;\n    }\n", nin);
  else fputs("    if (st) return st;\n", out);
  fputs("    gnn_free(m->ctx, m->out);\n"
        "    m->out = o;\n"
        "    m->fixed_bytes = m->fixed_bytes - m->out_cap + out_bytes;\n"
        "    m->out_cap = out_bytes;\n  }\n", out);
  if (nig) {
    fprintf(out, "  for (int i = 0; i < %d; i++) {\n    gnn_free(m->ctx, m->igrad[i]);\n    m->igrad[i] = ig[i];\n  }\n", nin);
    fputs("  const size_t igrad_bytes = gnnc_igrad_bytes(&shape);\n"
          "  m->fixed_bytes = m->fixed_bytes - m->igrad_cap + igrad_bytes;\n"
          "  m->igrad_cap = igrad_bytes;\n  m->igrad_valid = 0;\n", out);
  }
  fputs("  gnnc_plan(m, &shape);\n"
        "  m->cap_nv = nv;\n  m->cap_ne = ne;\n  m->cap_ng = ng;\n  return GNN_OK;\n}\n\n", out);

  fprintf(out, "static gnn_status gnnc_set_graph_body(%s_model *m, const gnn_graph *g) {\n", P);
  fprintf(out, "  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_set_graph: m is NULL\");\n", P);
  emit_model_live(out, P, "set_graph");
  fprintf(out, "  if (!g) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_set_graph: no graph\");\n", P);
  emit_graph_live(out, "m->ctx", "g", P, "set_graph");
  fputs("  if (g->nv < 0 || g->ne < 0 || g->ng < 0 || g->nv > GNNC_MAX_COUNT || g->ne > GNNC_MAX_COUNT || g->ng > GNNC_MAX_COUNT)\n", out);
  fprintf(out, "    return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_set_graph: a graph of %%lld vertices, %%lld edges and %%lld graphs: each \"\n"
               "                         \"count must be in 0 .. 2^31\", (long long)g->nv, (long long)g->ne, (long long)g->ng);\n", P);
  fputs("  if (g->nv > m->cap_nv || g->ne > m->cap_ne || g->ng > m->cap_ng) {\n"
        "    if (!m->grow)\n", out);
  fprintf(out, "      return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_set_graph: a graph of %%lld vertices, %%lld edges and %%lld graphs \"\n"
               "                           \"exceeds the model's capacity (%%lld vertices, %%lld edges, %%lld graphs) and growth is off \"\n"
               "                           \"(%s_reserve with grow = 1 allows it)\", (long long)g->nv, (long long)g->ne, (long long)g->ng,\n"
               "                           (long long)m->cap_nv, (long long)m->cap_ne, (long long)m->cap_ng);\n", P, P);
  fprintf(out, "    const gnn_status st = gnnc_resize(m, gnnc_grow(m->cap_nv, g->nv), gnnc_grow(m->cap_ne, g->ne), gnnc_grow(m->cap_ng, g->ng),\n"
               "                                      \"%s_set_graph\");\n", P);
  fputs("    if (st) return st;\n  }\n"
        "  m->g = g;\n"
        "  m->bound_nv = g->nv;\n  m->bound_ne = g->ne;\n  m->bound_ng = g->ng;\n"
        "  m->forward_done = m->trained = m->backward_ready = 0; /* the output and the stash were the old graph's */\n", out);
  if (nig) fputs("  m->igrad_valid = 0; /* the input gradients were the old graph's */\n", out);
  if (per_graph_steps(p)) fputs("  m->graph_values_ready = 0; /* the values of the graph alone were the old graph's */\n", out);
  fputs("  return GNN_OK;\n}\n", out);
  emit_guarded(out, P, "set_graph", ", const gnn_graph *g", ", g");

  fprintf(out, "static gnn_status gnnc_reserve_body(%s_model *m, int64_t nv, int64_t ne, int64_t ng, int grow) {\n", P);
  fprintf(out, "  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_reserve: m is NULL\");\n", P);
  emit_model_live(out, P, "reserve");
  fputs("  if (nv < 0 || ne < 0 || ng < 0 || nv > GNNC_MAX_COUNT || ne > GNNC_MAX_COUNT || ng > GNNC_MAX_COUNT)\n", out);
  fprintf(out, "    return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_reserve: a capacity of %%lld vertices, %%lld edges and %%lld graphs: each \"\n"
               "                         \"count must be in 0 .. 2^31 (the runtime's graphs have int32 ids)\", (long long)nv, (long long)ne, (long long)ng);\n", P);
  fprintf(out, "  const gnn_graph *g = m->g;\n"
        "  /* the bound graph always fits */\n"
        "  if (nv < g->nv) nv = g->nv;\n  if (ne < g->ne) ne = g->ne;\n  if (ng < g->ng) ng = g->ng;\n"
        "  if (nv != m->cap_nv || ne != m->cap_ne || ng != m->cap_ng) {\n"
        "    const gnn_status st = gnnc_resize(m, nv, ne, ng, \"%s_reserve\");\n"
        "    if (st) return st;\n  }\n"
        "  m->grow = grow != 0;\n  return GNN_OK;\n}\n", P);
  emit_guarded(out, P, "reserve", ", int64_t nv, int64_t ne, int64_t ng, int grow", ", nv, ne, ng, grow");
}

void emit_source(FILE *out, const KProgram *p, const EmitHooks *h, const char *src_name, const char *header_name) {
  const char *P = emit_model_prefix(p);
  const KBuf **ins;
  int nin = emit_model_forward_inputs(p, &ins);
  const KBuf *seed_in = seed_input(p);
  Value *ov = module_output(p->m);
  bool bwd = has_backward(p);
  bool cuda = h->target == TARGET_CUDA;
  int nig = 0; /* inputs with a gradient (--input-grads) */
  for (int i = 0; i < nin; i++) nig += emit_model_input_grad_out(p, i) >= 0;

  fprintf(out, "/* %s.%s -- generated by gnnc from %s: the model %s, %s. Do not edit; regenerate.\n", P, cuda ? "cu" : "c",
          src_name, p->name, cuda ? "CUDA" : "host C (the CUDA kernels serialised MCUDA-style, OpenMP across groups)");
  fprintf(out, " * %d kernels, %d steps (%d forward, %d backward); `gnnc --emit=kir` prints the kernel IR it comes from.\n */\n",
          p->kernels.len, p->nsteps, p->nfwd, p->nsteps - p->nfwd);
  h->prelude(out, p);
  if (cuda) fputs("#ifndef __CUDACC_RTC__\n", out);
  if (header_name) fprintf(out, "#include \"%s\"\n", header_name);
  else emit_header(out, p, src_name); /* one self-contained file (gnnc --emit=c|cu to stdout) */
  if (cuda) fputs("#endif\n", out);
  fputs("\n/* ---------------------------------------------------------------- kernels */\n", out);
  for (int i = 0; i < p->kernels.len; i++) h->kernel(out, p, p->kernels.items[i]);
  if (cuda) fputs("\n#ifndef __CUDACC_RTC__ /* NVRTC compiles the kernels above; the host code is nvcc's */\n", out);

  /* the model's state */
  fputs("\n/* ---------------------------------------------------------------- the model */\n\n", out);
  fprintf(out, "static const gnn_tensor_info gnnc_inputs[%d] = {\n", nin ? nin : 1);
  for (int i = 0; i < nin; i++) tensor_info(out, ins[i]->val->name, ins[i]->val);
  if (!nin) fputs("    {NULL, 0, 0, {0, 0, 0, 0}, 0}, /* none: every member named (g++ -Wextra) */\n", out);
  fputs("};\n", out);
  fputs("/* per input: 1 = the library computes its gradient on request (gnnc --input-grads), 2 = asked for\n"
        " * but identically zero (the output does not depend on it differentiably), 0 = not asked for */\n", out);
  fprintf(out, "static const int gnnc_input_grads[%d] = {", nin ? nin : 1);
  for (int i = 0; i < (nin ? nin : 1); i++)
    fprintf(out, "%s%d", i ? ", " : "",
            i >= nin ? 0 : emit_model_input_grad_out(p, i) >= 0 ? 1 : module_input_grad_listed(p->m->input_grads, ins[i]->val->name) ? 2 : 0);
  fputs("};\n", out);
  fprintf(out, "static const gnn_tensor_info gnnc_params[%d] = {\n", p->nparams ? p->nparams : 1);
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind == BUF_PARAM) tensor_info(out, b->val->name, b->val);
  }
  if (!p->nparams) fputs("    {NULL, 0, 0, {0, 0, 0, 0}, 0}, /* none: every member named (g++ -Wextra) */\n", out);
  fputs("};\n\n", out);
  /* How each parameter starts (gnn_model_api.param_init): create() follows this table, and callers
   * read it to get create()'s parameters without creating a model. */
  fputs("/* per parameter, how create() initialises it (gnn_param_init in gnn_model.h) */\n", out);
  fprintf(out, "static const gnn_param_init gnnc_param_init[%d] = {\n", p->nparams ? p->nparams : 1);
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind != BUF_PARAM) continue;
    if (b->val->iattr) {
      char num[40];
      snprintf(num, sizeof num, "%.9g", (double)(float)b->val->fattr);
      fprintf(out, "    {GNN_INIT_VALUE, %s%sf}, /* %s */\n", num, strpbrk(num, ".e") ? "" : ".0", b->val->name);
    } else {
      fprintf(out, "    {%s, 0.0f}, /* %s */\n", b->val->shape.rank >= 2 ? "GNN_INIT_GLOROT" : "GNN_INIT_ZEROS", b->val->name);
    }
  }
  if (!p->nparams) fputs("    {GNN_INIT_ZEROS, 0.0f}, /* none: every member named (g++ -Wextra) */\n", out);
  fputs("};\n\n", out);

  int ntemp = 0;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    ntemp += b->kind == BUF_TEMP && !is_outbuf(p, b);
  }
  fputs("/* m->live from create until destroy clears it: a model destroyed twice or used after its\n"
        " * destroy is refused where its memory still holds the cleared word (best effort: freed\n"
        " * memory can be reused). \"GNNMODEL\" in little-endian bytes. */\n"
        "#define GNNC_MODEL_LIVE 0x4c45444f4d4e4e47ull\n\n", out);
  fprintf(out, "struct %s_model {\n  gnn_ctx *ctx;\n  const gnn_graph *g;\n  uint64_t live;\n", P);
  fputs("  int in_use;  /* 1 while a call runs on the model (gnnc_claim): a second one at once is refused */\n", out);
  fprintf(out, "  float *param[%d], *grad[%d];\n", p->nparams ? p->nparams : 1, p->nparams ? p->nparams : 1);
  fprintf(out, "  float *out;  /* %s */\n", emit_shape_text(p, ov));
  for (int i = 0; i < nin; i++) fprintf(out, "  const float *%s;  /* input \"%s\" of the current pass */\n", ins[i]->name, ins[i]->val->name);
  if (seed_in) fprintf(out, "  const float *%s;  /* the backward seed d loss / d out */\n", seed_in->name);
  if (nig) {
    fprintf(out, "  float *igrad[%d];  /* d loss / d input i (NULL: none in this library) */\n", nin);
    fputs("  uint64_t igrad_want;   /* bit i: the caller asked for input i's gradient */\n"
          "  uint64_t igrad_valid;  /* bit i: igrad[i] holds the last backward's */\n"
          "  size_t igrad_cap;      /* the bytes of igrad[], for the capacity (set_graph, reserve) */\n", out);
  }
  fputs("  uint64_t dropout_seed;  /* of the last forward: the backward redraws its masks */\n", out);
  fputs("  char *arena;          /* allocated by the first forward: the inference plan, or the training one */\n"
        "  int arena_mode;        /* 0 none, 1 inference, 2 training */\n"
        "  int forward_done;      /* the output is valid: a forward succeeded (and none failed since) */\n"
        "  int trained;           /* the last forward ran with training = 1 (the stash is in the arena) */\n"
        "  int backward_ready;    /* a forward since the last backward: its activations are intact */\n"
        "  size_t arena_bytes, arena_infer_bytes, unshared_bytes, fixed_bytes;\n"
        "  /* the capacity the arenas are planned for and the output is allocated for (set_graph, reserve):\n"
        "   * at least the bound graph's vertices, edges and graphs; grow = 0 refuses a graph beyond it */\n"
        "  int64_t cap_nv, cap_ne, cap_ng;\n"
        "  /* the bound graph's counts when it was bound (create, set_graph): a graph changed in place\n"
        "   * since (gnn_graph_set_graphs) is bound again by the next forward, refused by a backward */\n"
        "  int64_t bound_nv, bound_ne, bound_ng;\n"
        "  size_t out_cap;\n"
        "  int grow;\n", out);
  if (ntemp) fprintf(out, "  size_t offset[2][%d];  /* per plan (0 inference, 1 training); SIZE_MAX: not in it */\n", ntemp);
  if (per_graph_steps(p))
    fputs("  int graph_values_ready;  /* the values of the graph alone are in the arena: its per-graph steps ran for g */\n", out);
  if (ntemp) fputs("  /* intermediate buffers, in the arena */\n", out);
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    if (b->kind == BUF_TEMP && !is_outbuf(p, b))
      fprintf(out, "  %s *%s;  /* %s, steps %d..%d */\n", buf_c(b), b->name,
              b->val ? arena_printf(p->arena, "%%%d %s", b->val->id, emit_shape_text(p, b->val))
                     : arena_printf(p->arena, "scratch %s[%lld] %s%s", domain_name(b->dom), (long long)b->width,
                                    b->elem == ELEM_F64 ? "f64" : b->elem == ELEM_I32 ? "i32" : "f32",
                                    b->rows_cap ? arena_printf(p->arena, ", at most %lld rows", (long long)b->rows_cap) : ""),
              b->first, b->last);
  }
  fputs("};\n\n", out);

  /* the guard against two threads at once (emit_guarded) */
  fputs("/* One model used from two threads at once: each call that changes the model (and save_params, which\n"
        " * uses its context) claims m->in_use for its duration; a call that finds it claimed is refused, with\n"
        " * a status and a message, and changes nothing -- the other call is still running on the model's\n"
        " * scratch, arena and stash. A check, not a lock: nothing waits. 1: claimed; 0: no claim (m NULL or\n"
        " * not live: the call refuses it, and memory that may be freed is only read); -1: in use. */\n", out);
  fprintf(out, "static int gnnc_claim(%s_model *m) {\n"
               "  if (!m || m->live != GNNC_MODEL_LIVE) return 0;\n"
               "  return __atomic_exchange_n(&m->in_use, 1, __ATOMIC_ACQUIRE) ? -1 : 1;\n}\n", P);
  fprintf(out, "static void gnnc_release(%s_model *m, int claim) {\n"
               "  if (claim > 0) __atomic_store_n(&m->in_use, 0, __ATOMIC_RELEASE);\n}\n", P);
  fprintf(out, "static gnn_status gnnc_busy(%s_model *m, const char *fn) {\n"
               "  return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%%s: model used from two threads at once (a call on it from another \"\n"
               "                       \"thread has not returned): calls on one model must not overlap\", fn);\n}\n\n", P);

  /* destroy, create */
  fprintf(out, "void %s_destroy(%s_model *m) {\n  if (!m || m->live != GNNC_MODEL_LIVE) return; /* destroyed already */\n", P, P);
  fprintf(out, "  if (gnnc_claim(m) < 0) { /* freeing would pull the memory from under the other call: leak it instead */\n"
               "    gnnc_busy(m, \"%s_destroy\");\n    return;\n  }\n  m->live = 0;\n", P);
  fprintf(out, "  for (int i = 0; i < %d; i++) {\n    gnn_free(m->ctx, m->param[i]);\n    gnn_free(m->ctx, m->grad[i]);\n  }\n", p->nparams);
  if (nig) fprintf(out, "  for (int i = 0; i < %d; i++) gnn_free(m->ctx, m->igrad[i]);\n", nin);
  fputs("  gnn_free(m->ctx, m->out);\n  gnn_free(m->ctx, m->arena);\n  free(m);\n}\n\n", out);

  /* The arena plans for a graph of g's size (its nv, ne and ng; nothing else is read): create plans
   * for its graph, P_set_graph and P_reserve for the capacity, a shape with those counts. */
  fputs("/* The most vertices, edges or graphs a plan is made for: the runtime's graphs have int32 ids,\n"
        " * and past them the buffers' byte counts would wrap in size_t. */\n"
        "#define GNNC_MAX_COUNT ((int64_t)1 << 31)\n\n", out);
  fputs("/* Plans the arenas for a graph of g's size (only g->nv, g->ne and g->ng are read): the model's\n"
        " * graph at create, its capacity after set_graph grew it or reserve set it. */\n", out);
  fprintf(out, "static void gnnc_plan(%s_model *m, const gnn_graph *g) {\n", P);
  if (!ntemp) fputs("  (void)m;\n  (void)g;\n", out);
  if (ntemp) {
    /* Two plans over the same buffers: training (every buffer, its whole lifetime over the
     * forward and backward steps) and inference (the forward's buffers without the stashes the
     * backward reads, alive up to the forward's last step). Neither is allocated here: the first
     * forward allocates the one it needs (a training arena serves inference too). */
    fprintf(out, "  /* the arenas: %d buffers placed by lifetime (steps first..last) */\n", ntemp);
    fprintf(out, "  static const int first[%d] = {", ntemp);
    int k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && !is_outbuf(p, b)) fprintf(out, "%s%d", k++ ? ", " : "", b->first);
    }
    fprintf(out, "};\n  static const int last[%d] = {", ntemp);
    k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && !is_outbuf(p, b)) fprintf(out, "%s%d", k++ ? ", " : "", b->last);
    }
    fprintf(out, "};\n  static const int last_infer[%d] = {", ntemp);
    k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && !is_outbuf(p, b)) fprintf(out, "%s%d", k++ ? ", " : "", b->last < p->nfwd ? b->last : p->nfwd - 1);
    }
    fprintf(out, "};\n  static const char in_infer[%d] = {", ntemp);
    k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && !is_outbuf(p, b)) fprintf(out, "%s%d", k++ ? ", " : "", !b->bwd && !b->train_only && b->first < p->nfwd);
    }
    fprintf(out, "};\n  size_t size[%d], size_infer[%d];\n  int order[%d];\n", ntemp, ntemp, ntemp);
    k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && !is_outbuf(p, b))
        fprintf(out, "  size[%d] = (size_t)%s * %lld * sizeof(%s);  /* %s */\n", k++, buf_rows(p, b), (long long)b->width, buf_c(b),
                b->name);
    }
    fprintf(out, "  for (int i = 0; i < %d; i++) size_infer[i] = in_infer[i] ? size[i] : 0;\n", ntemp);
    fprintf(out, "  m->arena_bytes = gnn_plan_arena(%d, size, first, last, m->offset[1], order);\n", ntemp);
    fprintf(out, "  m->arena_infer_bytes = gnn_plan_arena(%d, size_infer, first, last_infer, m->offset[0], order);\n", ntemp);
    fprintf(out, "  m->unshared_bytes = 0;\n  for (int i = 0; i < %d; i++) {\n    m->unshared_bytes += size[i];\n"
                 "    if (!in_infer[i]) m->offset[0][i] = SIZE_MAX;\n  }\n", ntemp);
  }
  fputs("}\n\n", out);
  fputs("/* The bytes of the output for a graph of g's size. */\n", out);
  fprintf(out, "static size_t gnnc_out_bytes(const gnn_graph *g) { return (size_t)%s * %lld * sizeof(float); }\n\n",
          emit_rows(ov->dom), (long long)shape_elems(&ov->shape));
  if (nig) {
    fputs("/* The bytes of the input gradients for a graph of g's size (set_graph reallocates them with the output). */\n"
          "static size_t gnnc_igrad_bytes(const gnn_graph *g) {\n  size_t n = 0;\n", out);
    for (int i = 0; i < nin; i++)
      if (emit_model_input_grad_out(p, i) >= 0)
        fprintf(out, "  n += (size_t)%s * %lld * sizeof(float);  /* input '%s' */\n", emit_rows(ins[i]->dom), (long long)ins[i]->width,
                ins[i]->val->name);
    fputs("  return n;\n}\n\n", out);
  }

  fprintf(out, "gnn_status %s_create(gnn_ctx *ctx, const gnn_graph *g, uint64_t seed, %s_model **out) {\n", P, P);
  fputs("  gnn_status st = GNN_OK;\n  if (out) *out = NULL;\n", out);
  fprintf(out, "  if (!ctx) return GNN_ERR_INVALID;\n"
               "  if (!out) return gnn_set_error(ctx, GNN_ERR_INVALID, \"%s_create: out is NULL\");\n"
               "  if (!g) return gnn_set_error(ctx, GNN_ERR_INVALID, \"%s_create: no graph\");\n", P, P);
  emit_graph_live(out, "ctx", "g", P, "create");
  fputs("  if (g->nv < 0 || g->ne < 0 || g->ng < 0 || g->nv > GNNC_MAX_COUNT || g->ne > GNNC_MAX_COUNT || g->ng > GNNC_MAX_COUNT)\n", out);
  fprintf(out, "    return gnn_set_error(ctx, GNN_ERR_INVALID, \"%s_create: a graph of %%lld vertices, %%lld edges and %%lld graphs: each \"\n"
               "                         \"count must be in 0 .. 2^31\", (long long)g->nv, (long long)g->ne, (long long)g->ng);\n", P);
  fputs("  if ((st = gnn_ctx_enter(ctx))) return st; /* a usable context (CUDA: its device, on this thread) */\n", out);
  fprintf(out, "  %s_model *m = (%s_model *)calloc(1, sizeof *m);\n", P, P);
  fprintf(out, "  if (!m) return gnn_set_error(ctx, GNN_ERR_OOM, \"%s_create: out of host memory\");\n", P);
  fputs("  m->ctx = ctx;\n  m->g = g;\n  m->live = GNNC_MODEL_LIVE;\n", out);
  fputs("  m->cap_nv = g->nv;\n  m->cap_ne = g->ne;\n  m->cap_ng = g->ng;\n  m->grow = 1;\n  gnnc_plan(m, g);\n"
        "  m->bound_nv = g->nv;\n  m->bound_ne = g->ne;\n  m->bound_ng = g->ng;\n", out);
  /* Before anything is allocated: the smallest plan this graph allows (parameters, gradients,
   * output, the inference arena) must fit in what the device has left; a training forward checks
   * the training arena the same way (gnnc_use_arena). */
  fputs("  /* nothing is allocated unless the inference plan fits (a training forward checks its arena) */\n", out);
  fputs("  size_t fixed = gnnc_out_bytes(g);  /* the output */\n", out);
  fprintf(out, "  for (int i = 0; i < %d; i++) fixed += 2 * (size_t)gnnc_params[i].width * sizeof(float);\n", p->nparams);
  if (nig) fputs("  fixed += gnnc_igrad_bytes(g);  /* the input gradients */\n", out);
  fputs("  m->fixed_bytes = fixed;\n", out);
  fputs("  size_t avail = SIZE_MAX;\n"
        "  if (gnn_mem_available(ctx, &avail) == GNN_OK && (fixed > avail || m->arena_infer_bytes > avail - fixed)) {\n", out);
  fprintf(out, "    st = gnn_set_error(ctx, GNN_ERR_OOM, \"%s_create: a graph of %%lld vertices and %%lld edges needs %%zu bytes \"\n"
               "                       \"(parameters, gradients and output %%zu, inference arena %%zu; training arena %%zu), %%zu available\",\n"
               "                       (long long)g->nv, (long long)g->ne, fixed + m->arena_infer_bytes, fixed, m->arena_infer_bytes,\n"
               "                       m->arena_bytes, avail);\n", P);
  fputs("    free(m);\n    return st;\n  }\n", out);
  fprintf(out, "  for (int i = 0; i < %d && !st; i++) { /* parameters and gradients */\n", p->nparams);
  fputs("    const gnn_tensor_info *t = &gnnc_params[i];\n", out);
  fputs("    size_t bytes = (size_t)t->width * sizeof(float);\n"
        "    float *init = (float *)malloc(bytes ? bytes : 1);\n"
        "    if (!init) st = gnn_set_error(ctx, GNN_ERR_OOM, \"out of host memory\");\n"
        "    if (!st && gnnc_param_init[i].kind == GNN_INIT_GLOROT) gnn_param_init_glorot(t->name, t->rank, t->dims, seed, init);\n"
        "    else if (!st) /* GNN_INIT_ZEROS (value 0), GNN_INIT_VALUE */\n"
        "      for (int64_t k = 0; k < t->width; k++) init[k] = gnnc_param_init[i].value;\n"
        , out);
  fputs(
        "    if (!st) st = gnn_malloc(ctx, (void **)&m->param[i], bytes);\n"
        "    if (!st) st = gnn_upload(ctx, m->param[i], init, bytes);\n"
        "    if (!st) st = gnn_malloc(ctx, (void **)&m->grad[i], bytes);\n"
        "    if (!st) st = gnn_memset0(ctx, m->grad[i], bytes);\n"
        "    free(init);\n  }\n",
        out);
  fputs("  m->out_cap = gnnc_out_bytes(g);\n  if (!st) st = gnn_malloc(ctx, (void **)&m->out, m->out_cap ? m->out_cap : 1);\n", out);
  for (int i = 0; i < nin; i++)
    if (emit_model_input_grad_out(p, i) >= 0)
      fprintf(out, "  if (!st) st = gnn_malloc(ctx, (void **)&m->igrad[%d], %s > 0 ? (size_t)%s * %lld * sizeof(float) : 1);\n", i,
              emit_rows(ins[i]->dom), emit_rows(ins[i]->dom), (long long)ins[i]->width);
  if (nig) fputs("  m->igrad_cap = gnnc_igrad_bytes(g);\n", out);
  fprintf(out, "  if (st) {\n    %s_destroy(m);\n    return st;\n  }\n  *out = m;\n  return GNN_OK;\n}\n\n", P);

  /* the arena a pass needs */
  fprintf(out, "/* Makes the arena of the plan a pass needs (0 inference, 1 training) current: the first forward\n"
               " * allocates it; a training arena serves inference too; an inference arena gives way to a training one. */\n");
  fprintf(out, "static gnn_status gnnc_use_arena(%s_model *m, int plan) {\n", P);
  fputs("  const int want = plan ? 2 : 1;\n  if (m->arena_mode >= want) return GNN_OK;\n", out);
  fputs("  gnn_free(m->ctx, m->arena);\n  m->arena = NULL;\n  m->arena_mode = 0;\n", out);
  fputs("  const size_t bytes = plan ? m->arena_bytes : m->arena_infer_bytes;\n", out);
  fputs("  size_t avail = SIZE_MAX;\n"
        "  if (gnn_mem_available(m->ctx, &avail) == GNN_OK && bytes > avail)\n", out);
  fprintf(out, "    return gnn_set_error(m->ctx, GNN_ERR_OOM, \"%s_forward: the %%s arena needs %%zu bytes, %%zu available%%s\",\n"
               "                         plan ? \"training\" : \"inference\", bytes, avail,\n"
               "                         plan && m->arena_infer_bytes <= avail ? \" (an inference forward, training = 0, fits; a smaller training \"\n"
               "                                                                \"plan: gnnc --recompute=all or --memory-budget)\" : \"\");\n", P);
  fputs("  gnn_status st = gnn_malloc(m->ctx, (void **)&m->arena, bytes ? bytes : 1);\n  if (st) return st;\n", out);
  {
    int k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind == BUF_TEMP && !is_outbuf(p, b)) {
        fprintf(out, "  m->%s = m->offset[plan][%d] == SIZE_MAX ? NULL : (%s *)(m->arena + m->offset[plan][%d]);\n", b->name, k, buf_c(b), k);
        k++;
      }
    }
  }
  if (per_graph_steps(p)) fputs("  m->graph_values_ready = 0;  /* a new arena: the next forward computes them in it */\n", out);
  fputs("  m->arena_mode = want;\n  return GNN_OK;\n}\n\n", out);
  emit_rebind(out, p, P, ins, nin, nig);
  fprintf(out, "/* The bound graph has the counts it was bound with. A graph changed in place since (split by\n"
               " * gnn_graph_set_graphs) is another graph: the last output and input gradients were not made\n"
               " * for it, a forward binds it again, a backward is refused. */\n"
               "static int gnnc_graph_as_bound(const %s_model *m) {\n"
               "  return m->g->nv == m->bound_nv && m->g->ne == m->bound_ne && m->g->ng == m->bound_ng;\n}\n\n", P);

  /* forward */
  const char *fwd_params = "", *fwd_args = "";
  for (int i = 0; i < nin; i++) {
    fwd_params = arena_printf(p->arena, "%s, const float *%s", fwd_params, ins[i]->name);
    fwd_args = arena_printf(p->arena, "%s, %s", fwd_args, ins[i]->name);
  }
  fprintf(out, "static gnn_status gnnc_forward_body(%s_model *m%s", P, fwd_params);
  fprintf(out, ", int training, uint64_t seed) {\n  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_forward: m is NULL\");\n", P);
  emit_model_live(out, P, "forward");
  emit_graph_live(out, "m->ctx", "m->g", P, "forward");
  fputs("  const gnn_graph *g = m->g;\n", out);
  if (uses_status(p, 0, p->nfwd)) fputs("  gnn_status st = GNN_OK;\n", out);
  fputs("  (void)g;\n  (void)training;\n", out);
  /* NULL is an input of no rows (an edge input on a graph without edges: gnn_malloc of 0 bytes
   * gives NULL); nothing reads it then */
  for (int i = 0; i < nin; i++) {
    const char *rows = emit_rows(ins[i]->val->dom); /* only an edge count can be 0 */
    if (ins[i]->val->dom != DOM_EDGE)
      fprintf(out, "  if (!%s) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_forward: input '%s' is NULL\");\n", ins[i]->name, P,
              ins[i]->val->name);
    else
      fprintf(out, "  if (!%s && %s > 0) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_forward: input '%s' is NULL\");\n",
              ins[i]->name, rows, P, ins[i]->val->name);
  }
  if (cuda) emit_enter(out);
  /* The bound graph changed in place (gnn_graph_set_graphs splits it into another number of
   * graphs): its counts no longer match the plan and the output's rows, so bind it again as
   * set_graph would (growing the capacity, or refusing when growth is off) before anything
   * reads it. (A change that keeps every count is the caller's to announce with set_graph.) */
  fputs("  m->forward_done = m->trained = m->backward_ready = 0; /* until this forward succeeds */\n", out);
  fprintf(out, "  if (!gnnc_graph_as_bound(m)) {\n"
               "    if (!m->grow && (g->nv > m->cap_nv || g->ne > m->cap_ne || g->ng > m->cap_ng))\n"
               "      return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_forward: the bound graph changed in place (now %%lld vertices, \"\n"
               "                           \"%%lld edges, %%lld graphs) beyond the model's capacity (%%lld, %%lld, %%lld) and growth is off \"\n"
               "                           \"(%s_reserve with grow = 1 allows it)\", (long long)g->nv, (long long)g->ne, (long long)g->ng,\n"
               "                           (long long)m->cap_nv, (long long)m->cap_ne, (long long)m->cap_ng);\n"
               "    const gnn_status bind_st = gnnc_set_graph_body(m, g); /* this call holds the model already */\n"
               "    if (bind_st) return bind_st;\n  }\n", P, P);
  /* Each input spans this graph's rows: one in the context's memory but sized for another graph
   * (the batch before a set_graph) was read past its end (gnn_check_span; the caller's own
   * memory cannot be checked). */
  for (int i = 0; i < nin; i++)
    fprintf(out, "  {\n    const gnn_status span_st = gnn_check_span(m->ctx, %s, (size_t)%s * %lld * sizeof(float), \"%s_forward: input '%s'\");\n"
                 "    if (span_st) return span_st;\n  }\n", ins[i]->name, emit_rows(ins[i]->dom), (long long)ins[i]->width, P, ins[i]->val->name);
  fputs("  m->dropout_seed = seed;\n", out);
  /* the training arena when a training forward writes what the inference one lacks: the
   * backward's buffers, an input's dropout (its alias), and the stashes of a library without a
   * backward (-fno-autodiff, or no parameters: a fused chain cut at its depth limit keeps the cut
   * value for a backward that never comes, but a training forward still stores it) */
  bool train_bufs = false;
  for (int i = 0; i < p->bufs.len; i++) {
    const KBuf *b = p->bufs.items[i];
    train_bufs |= b->alias != NULL || (b->train_only && b->kind == BUF_TEMP && !is_outbuf(p, b));
  }
  fprintf(out, "  {\n    const gnn_status arena_st = gnnc_use_arena(m, %s);\n    if (arena_st) return arena_st;\n  }\n",
          bwd || train_bufs ? "training != 0" : "0");
  for (int i = 0; i < nin; i++) fprintf(out, "  m->%s = %s;\n", ins[i]->name, ins[i]->name);
  { /* a dropout of an input is the input itself when not training: read in place (its step runs
     * only when training) */
    int k = 0;
    for (int i = 0; i < p->bufs.len; i++) {
      const KBuf *b = p->bufs.items[i];
      if (b->kind != BUF_TEMP || is_outbuf(p, b)) continue;
      if (b->alias)
        fprintf(out, "  m->%s = training ? (%s *)(m->arena + m->offset[1][%d]) : (%s *)m->%s;  /* the input when not training */\n",
                b->name, buf_c(b), k, buf_c(b), b->alias->name);
      k++;
    }
  }
  fputs("  gnn_profile_mark(m->ctx);\n", out);
  bool pieces = false;
  for (int i = 0; i < p->kernels.len; i++) pieces |= ((const Kernel *)p->kernels.items[i])->pieces;
  if (pieces) /* the graph's cache of its hub rows' pieces, made by the first forward that needs them */
    fputs("  if (!g->piece_len) { /* the hub rows' pieces (gnnc --split-hubs): made once per graph */\n"
          "    const gnn_status pst = gnn_graph_make_pieces(m->ctx, (gnn_graph *)g);\n"
          "    if (pst) return pst;\n  }\n", out);
  int npg = per_graph_steps(p);
  if (npg) fputs("  if (!m->graph_values_ready) { /* values of the graph alone: once per graph (set_graph and a new arena reset it) */\n", out);
  for (int i = 0; i < npg; i++) emit_step(out, p, h, i);
  if (npg) fputs("  m->graph_values_ready = 1;\n  }\n", out);
  for (int i = npg; i < p->nfwd; i++) emit_step(out, p, h, i);
  emit_output_copies(out, p, h, false);
  fputs("  m->forward_done = 1;\n  m->trained = training != 0;\n  m->backward_ready = 1;\n  return GNN_OK;\n}\n", out);
  emit_guarded(out, P, "forward", arena_printf(p->arena, "%s, int training, uint64_t seed", fwd_params),
               arena_printf(p->arena, "%s, training, seed", fwd_args));
  fprintf(out, "const float *%s_output(const %s_model *m) { return m && m->forward_done && gnnc_graph_as_bound(m) ? m->out : NULL; }\n", P, P);
  fprintf(out, "float *%s_param(%s_model *m, int i) { return m && i >= 0 && i < %d ? m->param[i] : NULL; }\n", P, P, p->nparams);
  fprintf(out, "float *%s_grad(%s_model *m, int i) { return m && i >= 0 && i < %d ? m->grad[i] : NULL; }\n", P, P, p->nparams);
  fprintf(out, "static gnn_status gnnc_request_input_grad_body(%s_model *m, int i, int on) {\n", P);
  fprintf(out, "  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_request_input_grad: m is NULL\");\n", P);
  fprintf(out, "  if (i < 0 || i >= %d)\n    return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_request_input_grad: no input %%d (the model has %d)\", i);\n",
          nin, P, nin);
  fprintf(out, "  if (!gnnc_input_grads[i])\n"
               "    return gnn_set_error(m->ctx, GNN_ERR_UNSUPPORTED, \"%s_request_input_grad: input '%%s' has no gradient in this library \"\n"
               "                         \"(compile with gnnc --input-grads=%%s)\",\n"
               "                         gnnc_inputs[i].name, gnnc_inputs[i].name);\n", P);
  if (nig) fputs("  if (on && gnnc_input_grads[i] == 1) m->igrad_want |= 1ull << i;\n  else m->igrad_want &= ~(1ull << i);\n", out);
  else fputs("  (void)on;\n", out);
  fputs("  return GNN_OK;\n}\n", out);
  emit_guarded(out, P, "request_input_grad", ", int i, int on", ", i, on");
  fprintf(out, "float *%s_input_grad(%s_model *m, int i) {\n", P, P);
  if (nig) fprintf(out, "  return m && i >= 0 && i < %d && gnnc_input_grads[i] == 1 && (m->igrad_valid >> i & 1) && gnnc_graph_as_bound(m) ? m->igrad[i] : NULL;\n}\n", nin);
  else fputs("  (void)m;\n  (void)i;\n  return NULL;\n}\n", out);
  fprintf(out, "int %s_param_index(const char *name) {\n  for (int i = 0; i < %d; i++)\n    if (name && strcmp(gnnc_params[i].name, name) == 0) return i;\n  return -1;\n}\n\n",
          P, p->nparams);
  emit_param_files(out, p, P);

  /* backward */
  fprintf(out, "static gnn_status gnnc_backward_body(%s_model *m, const float *grad_out) {\n", P);
  fprintf(out, "  if (!m) return gnn_set_error(NULL, GNN_ERR_INVALID, \"%s_backward: m is NULL\");\n", P);
  emit_model_live(out, P, "backward");
  emit_graph_live(out, "m->ctx", "m->g", P, "backward");
  if (!bwd || !seed_in) {
    fprintf(out, "  (void)grad_out;\n  return gnn_set_error(m->ctx, GNN_ERR_UNSUPPORTED, \"%s was compiled without autodiff: no backward\");\n}\n", P);
  } else {
    fputs("  const gnn_graph *g = m->g;\n  const int training = 1;\n", out);
    if (uses_status(p, p->nfwd, p->nsteps)) fputs("  gnn_status st = GNN_OK;\n", out);
    fputs("  (void)g;\n  (void)training;\n", out);
    if (seed_in->dom != DOM_EDGE)
      fprintf(out, "  if (!grad_out) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_backward: grad_out is NULL\");\n", P);
    else /* NULL: an output of no rows (an edge output on a graph without edges) */
      fprintf(out, "  if (!grad_out && %s > 0) return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_backward: grad_out is NULL\");\n",
              emit_rows(seed_in->dom), P);
    fprintf(out, "  if (!m->backward_ready)\n    return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_backward: no forward to differentiate (call %s_forward first; "
                 "each backward needs its own forward)\");\n", P, P);
    fprintf(out, "  if (!m->trained)\n    return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_backward: needs a forward with training = 1 just "
                 "before it (an inference forward keeps nothing for the backward)\");\n", P);
    fprintf(out, "  if (!gnnc_graph_as_bound(m))\n"
                 "    return gnn_set_error(m->ctx, GNN_ERR_INVALID, \"%s_backward: the graph changed since the forward (now %%lld vertices, \"\n"
                 "                         \"%%lld edges, %%lld graphs; at the forward %%lld, %%lld, %%lld): forward again\", (long long)g->nv,\n"
                 "                         (long long)g->ne, (long long)g->ng, (long long)m->bound_nv, (long long)m->bound_ne,\n"
                 "                         (long long)m->bound_ng);\n", P);
    fprintf(out, "  {\n    const gnn_status span_st = gnn_check_span(m->ctx, grad_out, (size_t)%s * %lld * sizeof(float), \"%s_backward: grad_out\");\n"
                 "    if (span_st) return span_st;\n  }\n", emit_rows(seed_in->dom), (long long)seed_in->width, P);
    if (cuda) emit_enter(out);
    fputs("  m->backward_ready = 0; /* the backward reuses the forward's memory */\n", out);
    fprintf(out, "  m->%s = grad_out;\n", seed_in->name);
    bool dropout = false;
    for (int i = p->nfwd; i < p->nsteps; i++) dropout |= p->steps[i].kind == STEP_KERNEL && p->steps[i].kernel->dropout;
    if (dropout) {
      fputs("  /* dropout's adjoint redraws the forward's masks: the seed of the last forward */\n", out);
      fputs("  const uint64_t seed = m->dropout_seed;\n", out);
    }
    fputs("  gnn_profile_mark(m->ctx);\n", out);
    uint64_t *mask = input_grad_masks(p);
    if (nig) fputs("  m->igrad_valid = 0; /* until this backward succeeds */\n", out);
    for (int i = p->nfwd; i < p->nsteps; i++) {
      uint64_t mk = mask[i - p->nfwd];
      if (!mk) {
        emit_step(out, p, h, i);
        continue;
      }
      /* the step, indented one level inside its test */
      char *text = NULL;
      size_t len = 0;
      FILE *f = open_memstream(&text, &len);
      if (f) {
        emit_step(f, p, h, i);
        fclose(f);
      }
      fprintf(out, "  if (m->igrad_want & %#llxull) { /* only for input gradients asked for */\n", (unsigned long long)mk);
      for (const char *l = text; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
        fprintf(out, "%s%.*s", n > 1 ? "  " : "", (int)n, l);
        l += n;
      }
      if (!f) emit_step(out, p, h, i); /* no memory for the copy: unindented, the same code */
      fputs("  }\n", out);
      free(text);
    }
    free(mask);
    emit_output_copies(out, p, h, true);
    if (nig) fputs("  m->igrad_valid = m->igrad_want;\n", out);
    fputs("  return GNN_OK;\n}\n", out);
  }
  emit_guarded(out, P, "backward", ", const float *grad_out", ", grad_out");

  /* the memory plan and the API table */
  fprintf(out, "void %s_memory_plan(const %s_model *m, gnn_memory_plan *plan) {\n", P, P);
  fputs("  if (!plan) return;\n  memset(plan, 0, sizeof *plan);\n  if (!m) return;\n", out);
  fprintf(out, "  size_t pb = 0;\n  for (int i = 0; i < %d; i++) pb += (size_t)gnnc_params[i].width * sizeof(float);\n", p->nparams);
  fprintf(out, "  plan->arena = %s;\n  plan->arena_inference = m->arena_infer_bytes;\n  plan->unshared = m->unshared_bytes;\n  plan->params = pb;\n",
          bwd ? "m->arena_bytes" : "m->arena_infer_bytes");
  fprintf(out, "  plan->grads = %s;\n", bwd ? "pb" : "pb /* allocated, unused: no backward */");
  if (nig) fputs("  plan->grads += m->igrad_cap;  /* the input gradients, for the capacity */\n", out);
  fputs("  plan->output = m->out_cap;\n", out);
  fputs("  plan->total = plan->arena + plan->params + plan->grads + plan->output;\n", out);
  fprintf(out, "  plan->buffers = %d;\n}\n\n", ntemp);

  fprintf(out, "static gnn_status gnnc_api_create(gnn_ctx *ctx, const gnn_graph *g, uint64_t seed, void **m) {\n"
               "  return %s_create(ctx, g, seed, (%s_model **)m);\n}\n", P, P);
  fprintf(out, "static void gnnc_api_destroy(void *m) { %s_destroy((%s_model *)m); }\n", P, P);
  fprintf(out, "static gnn_status gnnc_api_forward(void *m, const float *const *in, int training, uint64_t seed) {\n");
  if (nin)
    fprintf(out, "  if (m && !in) return gnn_set_error(((%s_model *)m)->ctx, GNN_ERR_INVALID, \"%s_forward: the input array is NULL\");\n",
            P, P);
  else
    fputs("  (void)in;\n", out);
  fprintf(out, "  return %s_forward((%s_model *)m", P, P);
  for (int i = 0; i < nin; i++) fprintf(out, ", m ? in[%d] : NULL", i);
  fputs(", training, seed);\n}\n", out);
  fprintf(out, "static const float *gnnc_api_output(const void *m) { return %s_output((const %s_model *)m); }\n", P, P);
  fprintf(out, "static gnn_status gnnc_api_backward(void *m, const float *d) { return %s_backward((%s_model *)m, d); }\n", P, P);
  fprintf(out, "static float *gnnc_api_param(void *m, int i) { return %s_param((%s_model *)m, i); }\n", P, P);
  fprintf(out, "static float *gnnc_api_grad(void *m, int i) { return %s_grad((%s_model *)m, i); }\n", P, P);
  fprintf(out, "static void gnnc_api_memory_plan(const void *m, gnn_memory_plan *p) { %s_memory_plan((const %s_model *)m, p); }\n", P, P);
  fprintf(out, "static gnn_status gnnc_api_request_input_grad(void *m, int i, int on) { return %s_request_input_grad((%s_model *)m, i, on); }\n", P, P);
  fprintf(out, "static float *gnnc_api_input_grad(void *m, int i) { return %s_input_grad((%s_model *)m, i); }\n", P, P);
  fprintf(out, "static gnn_status gnnc_api_set_graph(void *m, const gnn_graph *g) { return %s_set_graph((%s_model *)m, g); }\n", P, P);
  fprintf(out, "static gnn_status gnnc_api_reserve(void *m, int64_t nv, int64_t ne, int64_t ng, int grow) {\n"
               "  return %s_reserve((%s_model *)m, nv, ne, ng, grow);\n}\n\n", P, P);
  fputs("static const gnn_model_api gnnc_api_table = {\n", out);
  fprintf(out, "    \"%s\", \"%s\", %s, %d, gnnc_inputs, %d, gnnc_params,\n", p->name, src_name, cuda ? "GNN_TARGET_CUDA" : "GNN_TARGET_HOST", nin,
          p->nparams);
  fputs("    ", out);
  tensor_info(out, "out", ov);
  fprintf(out, "    %d, %d, %d, %d,\n", bwd, p->m->ndropout, p->nfwd, p->nsteps - p->nfwd);
  fputs("    gnnc_api_create, gnnc_api_destroy, gnnc_api_forward, gnnc_api_output, gnnc_api_backward, gnnc_api_param,\n"
        "    gnnc_api_grad, gnnc_api_memory_plan,\n", out);
  /* launches per pass; of the forward's, those only a training forward makes (emit_step's `if
   * (training)`) and those only the first forward on a graph makes (graph_values_ready) */
  int launches[2] = {0, 0}, gemms[2] = {0, 0}, train_only = 0, per_graph = 0;
  for (int i = 0; i < p->nsteps; i++) {
    const KStep *st = &p->steps[i];
    int b = i >= p->nfwd;
    bool launch = st->kind == STEP_KERNEL || st->kind == STEP_FILL;
    if (launch) launches[b]++;
    if (launch && !b && st->per_graph) per_graph++;
    else if (launch && !b && st->train_only) train_only++;
    if (st->kind == STEP_GEMM) gemms[b]++;
  }
  fprintf(out, "    %d, %d, %d, %d,\n", launches[0], launches[1], gemms[0], gemms[1]);
  fputs("    gnnc_input_grads, gnnc_api_request_input_grad, gnnc_api_input_grad, gnnc_api_set_graph, gnnc_api_reserve,\n", out);
  fprintf(out, "    \"%s\", /* the program: what the model computes (gnn_model_api.program) */\n", p->m->program ? p->m->program : "");
  fputs("    gnnc_param_init,\n", out);
  fprintf(out, "    %d, %d, /* of the forward's launches: only when training; once per graph */\n};\n", train_only, per_graph);
  fprintf(out, "const gnn_model_api *%s_api(void) { return &gnnc_api_table; }\n", P);
  fputs("#ifdef GNNC_MODEL_ENTRY\n"
        "/* The fixed entry point drivers (gnn-run, gnn-train) look up with dlsym in a library they\n"
        " * dlopen (gnnc -o lib.so defines GNNC_MODEL_ENTRY); programs that link several models leave it\n"
        " * undefined and use the typed names above. */\n"
        "const gnn_model_api *gnn_model_entry(void) { return &gnnc_api_table; }\n"
        "/* The table's program, for drivers: its presence says that the table has every field up to\n"
        " * program (an older gnnc's may end before some, which drivers then leave unread). */\n"
        "const char *gnn_model_program(void) { return gnnc_api_table.program; }\n"
        "/* The table's param_init: its presence says that the table has every field up to param_init. */\n"
        "const gnn_param_init *gnn_model_param_init(void) { return gnnc_api_table.param_init; }\n"
        "/* The table's forward launch counts: its presence says that the table has every field. */\n"
        "const int64_t *gnn_model_forward_launches(void) { return &gnnc_api_table.forward_kernels_training; }\n"
        "#endif\n", out);
  if (cuda) fputs("#endif /* __CUDACC_RTC__ */\n", out);
}
