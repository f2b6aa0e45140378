/* ast.h -- the parser's tree (parser.y): declarations of layers and models, their statements,
 * expressions and dimension expressions; and Domain, where a value's rows live, which the
 * operator IR and the kernel IR take from here (its names, domain_name and domain_a: ir.c).
 * Above the ground floor (arena.h, diag.h).
 */
#ifndef GNNC_AST_H
#define GNNC_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"

/* DOM_GRAPH: a row per graph of a batch of graphs (one graph when the data has no
 * graph_indicator.txt): what readouts give and graph classifiers output. */
typedef enum { DOM_VERTEX, DOM_EDGE, DOM_PARAM, DOM_GLOBAL, DOM_GRAPH } Domain;
const char *domain_name(Domain d);
const char *domain_a(Domain d); /* with its article: "a vertex", "an edge", "a param", "a global" */

/* A dimension expression: 8, D, 2*D, F+1 ... evaluated when a layer is instantiated; also a
 * loop bound and a generic argument, where a hyper-parameter's value may be negated and real
 * (`L<alpha = -(k + 1) / 2>`). DX_NEG is `-lhs`. */
typedef struct DimExpr DimExpr;
struct DimExpr {
  enum { DX_NUM, DX_NAME, DX_BIN, DX_NEG } kind;
  int op; /* '+', '-', '*', '/' */
  int64_t num;
  const char *name;
  DimExpr *lhs, *rhs; /* DX_BIN; DX_NEG: lhs */
  Loc loc;
  bool is_real;      /* DX_NUM written as a real (0.5, 1e-3) or negated: only a hyper-parameter takes it */
  double real;       /* DX_NUM: the literal's value (negated for '-' NUMBER) */
  const char *key;   /* a call's named generic argument `key = value`, else NULL */
  Loc key_loc;       /* where the key is written */
};

typedef struct {
  Domain dom;     /* DOM_PARAM for a parameter's shape */
  DimExpr **dims;
  int ndims;
  Loc loc;
} TypeSpec;

typedef enum { N_NUM, N_NAME, N_INDEX, N_CALL, N_BINOP, N_NEG } NodeKind;

typedef struct Node Node;
struct Node {
  NodeKind kind;
  Loc loc;
  double num;        /* N_NUM */
  const char *name;  /* N_NAME, N_CALL (callee), N_INDEX ("src"/"dst") */
  int op;            /* N_BINOP: '+', '-', '*', '/', '@' */
  Node *lhs, *rhs;   /* N_BINOP, N_NEG (lhs), N_INDEX (lhs = indexed value) */
  Node **args;       /* N_CALL */
  int nargs;
  DimExpr **gens;    /* N_CALL: explicit generic arguments <...> */
  int ngens;
  bool has_gens;
};

typedef enum { S_ASSIGN, S_PARAM, S_RETURN, S_FOR } StmtKind;
typedef struct Stmt Stmt;
struct Stmt {
  StmtKind kind;
  const char *name;
  Loc loc, name_loc;
  Node *expr;      /* S_ASSIGN, S_RETURN; S_PARAM: its initial value (`= 1`), or NULL */
  Node **exprs;    /* S_RETURN: every returned value (exprs[0] = expr) */
  int nexprs;
  const char **names; /* S_ASSIGN: every name bound, `a, b = L(x)` (names[0] = name) */
  Loc *name_locs;
  int nnames;
  TypeSpec *type;  /* S_PARAM */
  DimExpr *from, *to; /* S_FOR: for NAME in from..to (to excluded) */
  Stmt **body;     /* S_FOR: the loop's body */
  int nbody;
};

typedef struct {
  const char *name;
  Loc loc;
  TypeSpec *type;
} ParamDecl; /* an input of a layer or model: x: vertex[F] */

typedef struct {
  bool is_model;
  const char *name;
  Loc loc;
  const char **gens; /* generic names <H, D, alpha = 0.1> */
  Loc *gen_locs;     /* where each is written */
  bool *gen_hyper;   /* a real hyper-parameter (declared with a default), not a dimension */
  double *gen_default; /* a hyper-parameter's default value */
  int ngens;
  ParamDecl **inputs;
  int ninputs;
  TypeSpec *ret;     /* rets[0] */
  TypeSpec **rets;   /* the result types: one, or a layer's several `-> (vertex[D], edge[H])` */
  int nrets;
  Stmt **body;
  int nbody;
} Decl;

typedef struct {
  PtrVec decls; /* Decl* */
} Program;

#endif
