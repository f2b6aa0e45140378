/* sema_scope.h -- the header of sema_scope.c, the foundation under the lowering from the AST
 * to the operator IR (sema.c, the recursion): the types of the lowering's state (Sema, its
 * frames and loops, a body's names and their bindings, the builtins) and the functions on
 * them: bindings, diagnostics, the budget, compile-time constants, the builtin table. None of
 * them calls anything of sema.c's; sema_scope.c's opening says why the split is there. Only
 * those two files and sema_warn.c (the lowering's warnings, between them) include it. Its functions carry the prefix sema_: they are external now,
 * and glibc's <err.h> has err() and warn(), POSIX's <sys/socket.h> bind(). */
#ifndef GNNC_SEMA_SCOPE_H
#define GNNC_SEMA_SCOPE_H

#include "../ctx.h"

typedef struct Binding Binding;
struct Binding {
  const char *name;
  Value *val;     /* NULL = poisoned by an earlier error */
  int64_t dim;    /* for dimension bindings */
  double real;    /* for hyper-parameter bindings */
  Loc loc;
  long pass;      /* the pass (Sema.passes) whose own statement bound it; see sema.c, define */
  bool loop_var;  /* the variable of a `for` loop (a hyper-parameter binding) */
};

typedef struct Frame Frame; /* one layer instantiation, for "instantiated here" notes */
struct Frame {
  const Decl *decl;
  Loc call_loc;
  const char *path;  /* parameter name prefix, "" for the model */
  StrMap calls;      /* callee name -> Binding whose dim is the next instance number */
  StrMap sites;      /* inside a loop: a call's node ("%p") -> its instance path, one per call site */
  Frame *up;
};

/* A `for` loop being unrolled, in the body of the current frame. */
typedef struct Loop Loop;
struct Loop {
  long pass;  /* the current iteration's number among every pass of the model (Sema.passes) */
  StrMap own; /* name -> its latest binding by a statement of this body; the current iteration's if its pass is `pass` */
  Loop *up;
};

typedef struct {
  GnnCtx *c;
  Module *m;
  Frame *frame;
  int depth;         /* of lower_expr's recursion */
  long steps;        /* statements lowered and layers instantiated, for the budget */
  bool abandoned;    /* the model hit a limit (size, depth): stop lowering it */
  StrMap decls;      /* name -> the first Decl of that name */
  Value **rets;      /* every value the last lowered body returned (a layer may return several) */
  int nrets;
  bool want_multi;   /* the call being lowered is the right side of `a, b = L(x)` */
  long passes;       /* loop iterations begun so far: each is a pass with its own statements (Binding.pass) */
  Loop *loop;        /* the innermost loop of the current frame's body, NULL outside loops */
  int loops;         /* loops being unrolled, in every frame: parameters are then shared */
  StrMap params;     /* parameter path name -> its Value, for the iterations of a loop to share */
  StrMap warned;     /* "line:col" of each warning given: a layer called twice, or a loop, warns once */
} Sema;

/* The names of one body (hash maps, so a body of 100,000 statements is not quadratic). */
typedef struct {
  StrMap vals; /* values: inputs, params, assignments */
  StrMap dims; /* dimension names: generics and input dims */
  StrMap hypers; /* real hyper-parameters: generics declared with a default (alpha = 0.1) */
  StrMap own;  /* the names bound by the body's own statements (and its inputs), not by its loops */
} Env;

typedef enum { B_UNARY, B_LEAKY, B_ELU, B_DROPOUT, B_BINARY, B_REDUCE, B_REDUCE_OUT, B_SOFTMAX, B_REPEAT, B_ONE_HOT, B_READOUT, B_SOFTMAX_VERTICES, B_WHERE, B_POW, B_SLICE,
               B_LAYER_NORM, B_SOFTMAX_LAST, B_BATCH_NORM, B_CONCAT } BuiltinKind;
typedef struct {
  const char *name;
  BuiltinKind kind;
  FnKind fn;
  int min_args, max_args; /* max_args -1: no upper bound (concat) */
  const char *signature;
} Builtin;

/* ---------------------------------------------------------------- sema_scope.c */

/* bindings */
Binding *sema_lookup(const StrMap *names, const char *name);
Binding *sema_bind(Sema *s, StrMap *names, const char *name, Value *v, int64_t dim, Loc loc);

/* diagnostics: each followed by the "instantiated here" notes of the enclosing calls */
void sema_report_frames(Sema *s);
void sema_err(Sema *s, Loc loc, const char *fmt, ...) GNN_PRINTF(3, 4);
void sema_warn(Sema *s, Loc loc, const char *fmt, ...) GNN_PRINTF(3, 4);

/* the budget */
bool sema_over_budget(Sema *s, Loc loc);
bool sema_step(Sema *s, Loc loc);
Value *sema_leaf(Sema *s, OpKind op, FnKind fn, Domain dom, const Shape *shape, const char *name, double fattr, Loc loc);

/* compile-time constants */
int64_t sema_eval_dim(Sema *s, Env *env, const DimExpr *d);
bool sema_eval_shape(Sema *s, Env *env, const TypeSpec *t, Shape *out);
bool sema_literal(Sema *s, Env *env, const Node *n, const char *what, double *out);
int64_t sema_index_arg(Sema *s, Env *env, const Node *n, const char *what);
int64_t sema_dim_arg(Sema *s, Env *env, const Node *n, const char *what);
int64_t sema_loop_bound(Sema *s, Env *env, const DimExpr *d);
bool sema_hyper_arg(Sema *s, Env *caller, const DimExpr *a, const char *name, double *out);

/* builtins */
bool sema_is_builtin_value(const char *name);
const Builtin *sema_find_builtin(const char *name);

#endif
