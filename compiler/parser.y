/* parser.y -- the grammar of the .gnn language (pure, reentrant bison with locations).
 *
 * The parser only builds the AST; names, domains and shapes are sema's business. Error
 * productions keep going after a syntax error: a bad statement is skipped to the end of its
 * line or to the '}' that closes its body, whichever comes first (a one-line body
 * `{ return x[src][1] }` keeps its '}', so the next declaration parses), and a bad declaration
 * header is skipped to its closing brace, so one run reports the errors of several statements
 * and declarations. Syntax errors are worded by
 * yyreport_syntax_error (parse.error custom), which adds a "to match this '('" note from the
 * lexer's stack of open brackets.
 */
%define api.pure full
%define api.prefix {gnn_yy}
%define parse.error custom
%locations
%expect 0
%parse-param {GnnCtx *c} {void *scanner}
%lex-param {void *scanner}

%code requires {
#include "ctx.h"
typedef struct { double v; long long i; bool is_int; } NumLit;
/* How deeply an expression may nest: parentheses, calls, unary minus, '@' (docs/language.md
 * section 2). The lexer counts the levels; sema's own limit across layer calls is the same. */
enum { GNN_MAX_NESTING = 1000 };
}

%code {
#include <string.h>
int gnn_yylex(GNN_YYSTYPE *lval, GNN_YYLTYPE *lloc, void *scanner);
bool gnn_lex_open_bracket(void *scanner, char *ch, Loc *loc); /* lexer.l */
bool gnn_lex_stopped(void *scanner);
int gnn_lex_token_before(void *scanner);
const char *gnn_lex_cmp(void *scanner);
static void gnn_yyerror(GNN_YYLTYPE *l, GnnCtx *c, void *scanner, const char *msg);
/* A backstop: the lexer stops at GNN_MAX_NESTING levels, which take at most about 7 stack
 * entries each (IDENT '<' gen_args '>' '(' args ',' for a generic call in a second argument). */
#define YYMAXDEPTH (10 * GNN_MAX_NESTING)

static Loc L(GNN_YYLTYPE l) {
  int len = l.last_line == l.first_line ? l.last_column - l.first_column : 1;
  return (Loc){l.first_line, l.first_column, len > 0 ? len : 1};
}
static Node *node(GnnCtx *c, NodeKind k, GNN_YYLTYPE l) {
  Node *n = arena_alloc(&c->arena, sizeof(Node));
  n->kind = k;
  n->loc = L(l);
  return n;
}
static Node *binop(GnnCtx *c, int op, Node *a, Node *b, GNN_YYLTYPE l) {
  Node *n = node(c, N_BINOP, l);
  n->op = op; n->lhs = a; n->rhs = b;
  return n;
}
static DimExpr *dim(GnnCtx *c, int kind, GNN_YYLTYPE l) {
  DimExpr *d = arena_alloc(&c->arena, sizeof(DimExpr));
  d->kind = kind;
  d->loc = L(l);
  return d;
}
static DimExpr *dimbin(GnnCtx *c, int op, DimExpr *a, DimExpr *b, GNN_YYLTYPE l) {
  DimExpr *d = dim(c, DX_BIN, l);
  d->op = op; d->lhs = a; d->rhs = b;
  return d;
}
static PtrVec *vec(GnnCtx *c) { return arena_alloc(&c->arena, sizeof(PtrVec)); }
static PtrVec *push(GnnCtx *c, PtrVec *v, void *p) { vec_push(&c->arena, v, p); return v; }
/* A real literal is a hyper-parameter's value, never a dimension: reported in a type. */
static void check_int_dims(GnnCtx *c, const DimExpr *d) {
  for (; d; d = d->lhs) {
    if (d->kind == DX_NUM && d->is_real) diag_error(&c->diag, d->loc, "a dimension must be an integer");
    if (d->kind == DX_NEG) diag_error(&c->diag, d->loc, "a dimension cannot be negated");
    if (d->kind == DX_BIN) check_int_dims(c, d->rhs);
  }
}
static TypeSpec *typespec(GnnCtx *c, Domain d, PtrVec *dims, GNN_YYLTYPE l) {
  for (int i = 0; i < dims->len; i++) check_int_dims(c, dims->items[i]);
  TypeSpec *t = arena_alloc(&c->arena, sizeof(TypeSpec));
  t->dom = d; t->dims = (DimExpr **)dims->items; t->ndims = dims->len; t->loc = L(l);
  return t;
}
/* The generic names of a layer header (DX_NAME dims, for their locations; a hyper-parameter's
 * default in its key's place: DX_NUM with key = the name) as arrays. */
static void set_gens(GnnCtx *c, Decl *d, PtrVec *names) {
  d->ngens = names->len;
  d->gens = arena_alloc(&c->arena, sizeof(char *) * (size_t)(names->len + 1));
  d->gen_locs = arena_alloc(&c->arena, sizeof(Loc) * (size_t)(names->len + 1));
  d->gen_hyper = arena_alloc(&c->arena, sizeof(bool) * (size_t)(names->len + 1));
  d->gen_default = arena_alloc(&c->arena, sizeof(double) * (size_t)(names->len + 1));
  for (int i = 0; i < names->len; i++) {
    const DimExpr *g = names->items[i];
    if (g->key) {
      d->gens[i] = g->key;
      d->gen_hyper[i] = true;
      d->gen_default[i] = g->real;
    } else {
      d->gens[i] = g->name;
    }
    d->gen_locs[i] = g->loc;
  }
}
/* A hyper-parameter's value: a number, a negated number or a name. */
static DimExpr *hyperval(GnnCtx *c, NumLit n, bool neg, GNN_YYLTYPE l) {
  DimExpr *d = arena_alloc(&c->arena, sizeof(DimExpr));
  d->kind = DX_NUM;
  d->loc = L(l);
  d->num = n.is_int ? n.i : 0;
  d->real = neg ? -n.v : n.v;
  d->is_real = !n.is_int || neg;
  return d;
}
static Stmt *stmt(GnnCtx *c, StmtKind k, GNN_YYLTYPE l) {
  Stmt *s = arena_alloc(&c->arena, sizeof(Stmt));
  s->kind = k;
  s->loc = L(l);
  return s;
}
/* A name and where it is written (a DX_NAME dim, for its location). */
static DimExpr *name_at(GnnCtx *c, char *name, GNN_YYLTYPE l) {
  DimExpr *d = dim(c, DX_NAME, l);
  d->name = name;
  return d;
}
/* NAME = expr, or a, b = expr (names: DimExpr* from name_at). */
static Stmt *assign(GnnCtx *c, PtrVec *names, Node *e, GNN_YYLTYPE l) {
  Stmt *s = stmt(c, S_ASSIGN, l);
  s->nnames = names->len;
  s->names = arena_alloc(&c->arena, sizeof(char *) * (size_t)names->len);
  s->name_locs = arena_alloc(&c->arena, sizeof(Loc) * (size_t)names->len);
  for (int i = 0; i < names->len; i++) {
    const DimExpr *d = names->items[i];
    s->names[i] = d->name;
    s->name_locs[i] = d->loc;
  }
  s->name = s->names[0];
  s->name_loc = s->name_locs[0];
  s->expr = e;
  return s;
}
}

%union {
  NumLit num;
  char *str;
  Node *node;
  DimExpr *dim;
  TypeSpec *type;
  Stmt *stmt;
  Decl *decl;
  PtrVec *vec;
}

%token LAYER "'layer'" MODEL "'model'" PARAM "'param'" RETURN "'return'"
%token VERTEX "'vertex'" EDGE "'edge'" GRAPH "'graph'" ARROW "'->'" NL "end of line"
%token FOR "'for'" IN "'in'" DOTDOT "'..'"
%token CMP "comparison operator" /* < > <= >= == != : never valid, named in their error */
%token <str> IDENT "identifier"
%token <num> NUMBER "number"

%type <node> expr postfix primary
%type <dim> dim
%type <type> type shape
%type <stmt> stmt
%type <decl> decl header
%type <dim> gen_decl gen_arg
%type <vec> rettypes types multi_names dims dims_opt gens_opt gen_decls gen_args inputs inputs_opt input_list args args_opt body stmts

%left '+' '-'
%left '*' '/'
%precedence UMINUS
%right '@'

%%

program
  : %empty
  | program NL
  | program decl            { push(c, &c->prog->decls, $2); }
  | program error '}'
  ;

decl
  : header body             { $$ = $1; $$->body = (Stmt **)$2->items; $$->nbody = $2->len; }
  ;

header
  : LAYER IDENT gens_opt '(' inputs_opt ')' ARROW rettypes {
      $$ = arena_alloc(&c->arena, sizeof(Decl));
      $$->is_model = false; $$->name = $2; $$->loc = L(@2);
      set_gens(c, $$, $3);
      $$->inputs = (ParamDecl **)$5->items; $$->ninputs = $5->len;
      $$->rets = (TypeSpec **)$8->items; $$->nrets = $8->len; $$->ret = $$->rets[0];
    }
  | MODEL IDENT '(' inputs_opt ')' ARROW rettypes {
      $$ = arena_alloc(&c->arena, sizeof(Decl));
      $$->is_model = true; $$->name = $2; $$->loc = L(@2);
      $$->gens = NULL; $$->ngens = 0;
      $$->inputs = (ParamDecl **)$4->items; $$->ninputs = $4->len;
      $$->rets = (TypeSpec **)$7->items; $$->nrets = $7->len; $$->ret = $$->rets[0];
    }
  ;

gens_opt
  : %empty                  { $$ = vec(c); }
  | '<' gen_decls '>'       { $$ = $2; }
  ;

gen_decls
  : gen_decl                { $$ = push(c, vec(c), $1); }
  | gen_decls ',' gen_decl  { $$ = push(c, $1, $3); }
  ;

gen_decl
  : IDENT                   { $$ = dim(c, DX_NAME, @1); $$->name = $1; }
  | IDENT '=' NUMBER        { $$ = hyperval(c, $3, false, @1); $$->key = $1; }
  | IDENT '=' '-' NUMBER    { $$ = hyperval(c, $4, true, @1); $$->key = $1; }
  ;

gen_args
  : gen_arg                 { $$ = push(c, vec(c), $1); }
  | gen_args ',' gen_arg    { $$ = push(c, $1, $3); }
  ;

/* A generic argument: a dimension or a hyper-parameter's value, by position or by name; either
 * an expression (`L<2*D>`, `L<alpha = 1 - beta>`, `L<l = k + 1>`), which sema evaluates as
 * integers for a dimension and as reals for a hyper-parameter. */
gen_arg
  : dim                     { $$ = $1; }
  | IDENT '=' dim           { $$ = $3; $$->key = $1; $$->key_loc = L(@1); }
  ;

inputs_opt
  : %empty                  { $$ = vec(c); }
  | input_list              { $$ = $1; }
  ;

input_list
  : inputs                  { $$ = $1; }
  ;

inputs
  : IDENT ':' type {
      ParamDecl *p = arena_alloc(&c->arena, sizeof(ParamDecl));
      p->name = $1; p->loc = L(@1); p->type = $3;
      $$ = push(c, vec(c), p);
    }
  | inputs ',' IDENT ':' type {
      ParamDecl *p = arena_alloc(&c->arena, sizeof(ParamDecl));
      p->name = $3; p->loc = L(@3); p->type = $5;
      $$ = push(c, $1, p);
    }
  ;

rettypes
  : type                    { $$ = push(c, vec(c), $1); }
  | '(' types ')'           { $$ = $2; }
  ;

types
  : type                    { $$ = push(c, vec(c), $1); }
  | types ',' type          { $$ = push(c, $1, $3); }
  ;

type
  : VERTEX '[' dims_opt ']' { $$ = typespec(c, DOM_VERTEX, $3, @$); }
  | EDGE '[' dims_opt ']'   { $$ = typespec(c, DOM_EDGE, $3, @$); }
  | GRAPH '[' dims_opt ']'  { $$ = typespec(c, DOM_GRAPH, $3, @$); }
  ;

shape
  : '[' dims_opt ']'        { $$ = typespec(c, DOM_PARAM, $2, @$); }
  ;

dims_opt
  : %empty                  { $$ = vec(c); }
  | dims                    { $$ = $1; }
  ;

dims
  : dim                     { $$ = push(c, vec(c), $1); }
  | dims ',' dim            { $$ = push(c, $1, $3); }
  ;

dim
  : NUMBER {
      $$ = dim(c, DX_NUM, @1);
      $$->is_real = !$1.is_int; /* reported in a type (typespec), or by sema in a dimension argument */
      $$->num = $1.is_int ? $1.i : 0;
      $$->real = $1.v;
    }
  | IDENT                   { $$ = dim(c, DX_NAME, @1); $$->name = $1; }
  | dim '+' dim             { $$ = dimbin(c, '+', $1, $3, @$); }
  | dim '-' dim             { $$ = dimbin(c, '-', $1, $3, @$); }
  | dim '*' dim             { $$ = dimbin(c, '*', $1, $3, @$); }
  | dim '/' dim             { $$ = dimbin(c, '/', $1, $3, @$); }
  | '-' dim %prec UMINUS    { $$ = dim(c, DX_NEG, @$); $$->lhs = $2; } /* a hyper-parameter's value; sema refuses it elsewhere */
  | '(' dim ')'             { $$ = $2; }
  ;

body
  : '{' stmts '}'           { $$ = $2; }
  | '{' stmts stmt '}'      { $$ = push(c, $2, $3); }
  | '{' stmts error '}'     { $$ = $2; yyerrok; } /* a bad last statement: skipped to the '}' that ends the body */
  ;

stmts
  : %empty                  { $$ = vec(c); }
  | stmts NL                { $$ = $1; }
  | stmts ';'               { $$ = $1; }
  | stmts stmt NL           { $$ = push(c, $1, $2); }
  | stmts stmt ';'          { $$ = push(c, $1, $2); }
  | stmts error NL          { $$ = $1; yyerrok; }
  ;

stmt
  : IDENT '=' expr          { $$ = assign(c, push(c, vec(c), name_at(c, $1, @1)), $3, @$); }
  | multi_names '=' expr    { $$ = assign(c, $1, $3, @$); }
  | PARAM IDENT ':' shape   { $$ = stmt(c, S_PARAM, @$); $$->name = $2; $$->name_loc = L(@2); $$->type = $4; }
  | PARAM IDENT ':' shape '=' expr {
      $$ = stmt(c, S_PARAM, @$); $$->name = $2; $$->name_loc = L(@2); $$->type = $4; $$->expr = $6;
    }
  | FOR IDENT IN dim DOTDOT dim body {
      $$ = stmt(c, S_FOR, @$); $$->name = $2; $$->name_loc = L(@2); $$->from = $4; $$->to = $6;
      $$->body = (Stmt **)$7->items; $$->nbody = $7->len;
    }
  | RETURN args             {
      $$ = stmt(c, S_RETURN, @$); $$->exprs = (Node **)$2->items; $$->nexprs = $2->len; $$->expr = $$->exprs[0];
    }
  ;

expr
  : expr '+' expr           { $$ = binop(c, '+', $1, $3, @2); }
  | expr '-' expr           { $$ = binop(c, '-', $1, $3, @2); }
  | expr '*' expr           { $$ = binop(c, '*', $1, $3, @2); }
  | expr '/' expr           { $$ = binop(c, '/', $1, $3, @2); }
  | expr '@' expr           { $$ = binop(c, '@', $1, $3, @2); }
  | '-' expr %prec UMINUS   { $$ = node(c, N_NEG, @1); $$->lhs = $2; }
  | postfix                 { $$ = $1; }
  ;

postfix
  : primary                 { $$ = $1; }
  | postfix '[' IDENT ']'   { $$ = node(c, N_INDEX, @3); $$->lhs = $1; $$->name = $3; }
  | postfix '[' GRAPH ']'   { $$ = node(c, N_INDEX, @3); $$->lhs = $1; $$->name = "graph"; }
  ;

primary
  : NUMBER                  { $$ = node(c, N_NUM, @1); $$->num = $1.v; }
  | IDENT                   { $$ = node(c, N_NAME, @1); $$->name = $1; }
  | IDENT '(' args_opt ')' {
      $$ = node(c, N_CALL, @1); $$->name = $1;
      $$->args = (Node **)$3->items; $$->nargs = $3->len;
    }
  | IDENT '<' gen_args '>' '(' args_opt ')' {
      $$ = node(c, N_CALL, @1); $$->name = $1;
      $$->args = (Node **)$6->items; $$->nargs = $6->len;
      $$->gens = (DimExpr **)$3->items; $$->ngens = $3->len; $$->has_gens = true;
    }
  | '(' expr ')'            { $$ = $2; }
  ;

multi_names
  : IDENT ',' IDENT         { $$ = push(c, push(c, vec(c), name_at(c, $1, @1)), name_at(c, $3, @3)); }
  | multi_names ',' IDENT   { $$ = push(c, $1, name_at(c, $3, @3)); }
  ;

args_opt
  : %empty                  { $$ = vec(c); }
  | args                    { $$ = $1; }
  ;

args
  : expr                    { $$ = push(c, vec(c), $1); }
  | args ',' expr           { $$ = push(c, $1, $3); }
  ;

%%

/* Appends a token's name to buf: bison double-quotes aliases ("'layer'", "end of line"); the
 * message shows them without the double quotes. */
static void append_name(char *buf, size_t size, size_t *n, const char *s) {
  for (; *s && *n < size - 1; s++)
    if (*s != '"') buf[(*n)++] = *s;
  buf[*n] = 0;
}

/* A syntax error, worded as bison's "verbose" errors ("syntax error, unexpected X, expecting
 * A or B", the expected tokens listed only when there are at most four), and followed by a
 * note at the innermost open bracket when its closing bracket is the one token expected, or
 * the file ended: "note: to match this '('". */
static int yyreport_syntax_error(const yypcontext_t *ctx, GnnCtx *c, void *scanner) {
  enum { MAX_EXPECTED = 4 };
  yysymbol_kind_t expected[YYNTOKENS];
  int nexp = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
  if (nexp < 0) return nexp;
  yysymbol_kind_t tok = yypcontext_token(ctx);
  if (gnn_lex_stopped(scanner)) return 0; /* the input was cut at a nesting error: that is the error */
  Loc at = L(*yypcontext_location(ctx));
  if (tok == YYSYMBOL_CMP) { /* `where(x < 0, x, 0)`, `a = x == 0` */
    static const char *const fn[][2] = {{"<", "lt"}, {"<=", "le"}, {">", "gt"}, {">=", "ge"}, {"==", "eq"}, {"!=", "ne"}};
    const char *op = gnn_lex_cmp(scanner), *f = "lt";
    for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++)
      if (strcmp(op, fn[i][0]) == 0) f = fn[i][1];
    diag_error(&c->diag, at, "there are no comparison operators: write %s(a, b) for 'a %s b' (the builtins gt, ge, lt, "
               "le, eq and ne give 1 where true, else 0)", f, op);
    return 0;
  }
  char buf[512] = "syntax error";
  size_t n = strlen(buf);
  char open;
  Loc open_loc;
  bool have_open = gnn_lex_open_bracket(scanner, &open, &open_loc);
  const char *closer = open == '(' ? "')'" : open == '[' ? "']'" : "'}'";
  bool wants_closer = tok == YYSYMBOL_YYEOF;
  /* A token the lexer closes an open ( or [ at (lexer.l, close_parens), where that bracket's
   * closer could have come: `h = x + (x * 0` with `return h` on the next line. Many tokens could
   * continue the expression there, but the missing closer is the likely mistake. */
  bool ends_parens = tok == YYSYMBOL_LAYER || tok == YYSYMBOL_MODEL || tok == YYSYMBOL_PARAM ||
                     tok == YYSYMBOL_RETURN || tok == YYSYMBOL_FOR || tok == YYSYMBOL_IN ||
                     tok == YYSYMBOL_ARROW || tok == YYSYMBOL_YYEOF ||
                     (tok != YYSYMBOL_YYEMPTY && strstr("'{' '}' ';' '='", yysymbol_name(tok)));
  /* a keyword where a name could be: `edge = relu(x)`, `return edge` */
  bool keyword = tok == YYSYMBOL_VERTEX || tok == YYSYMBOL_EDGE || tok == YYSYMBOL_GRAPH || tok == YYSYMBOL_LAYER ||
                 tok == YYSYMBOL_MODEL || tok == YYSYMBOL_PARAM || tok == YYSYMBOL_RETURN || tok == YYSYMBOL_FOR ||
                 tok == YYSYMBOL_IN;
  bool name_expected = false, graph_expected = false;
  for (int i = 0; i < nexp; i++) name_expected |= expected[i] == YYSYMBOL_IDENT;
  for (int i = 0; i < nexp; i++) graph_expected |= expected[i] == YYSYMBOL_GRAPH;
  /* a number as an index, `x[0]`: an index moves a value between domains (src, dst, graph); a
   * reader from NumPy means an element, which slice picks */
  bool number_index = tok == YYSYMBOL_NUMBER && graph_expected && gnn_lex_token_before(scanner) == '[';
  if (nexp > MAX_EXPECTED) {
    int k = -1;
    for (int i = 0; i < nexp; i++)
      if (have_open && open != '{' && ends_parens && strcmp(yysymbol_name(expected[i]), closer) == 0) k = i;
    nexp = k < 0 ? 0 : 1;
    if (k >= 0) expected[0] = expected[k];
  }
  /* a line end right after a binary operator: `h = a +` then `b` on the next line (which then
   * gets its own follow-on error: it parses as a statement of its own) */
  int before = gnn_lex_token_before(scanner);
  bool operator_at_end = tok == YYSYMBOL_NL && before > 0 && before < 256 && strchr("+-*/@", before);
  if (tok != YYSYMBOL_YYEMPTY) {
    append_name(buf, sizeof buf, &n, ", unexpected ");
    append_name(buf, sizeof buf, &n, yysymbol_name(tok));
    for (int i = 0; i < nexp; i++) {
      append_name(buf, sizeof buf, &n, i == 0 ? ", expecting " : " or ");
      append_name(buf, sizeof buf, &n, yysymbol_name(expected[i]));
      if (nexp == 1 && strcmp(yysymbol_name(expected[i]), closer) == 0) wants_closer = true;
    }
  }
  if (keyword && name_expected) {
    append_name(buf, sizeof buf, &n, ": ");
    append_name(buf, sizeof buf, &n, yysymbol_name(tok));
    append_name(buf, sizeof buf, &n, " is a keyword and cannot be used as a name");
  }
  if (number_index)
    append_name(buf, sizeof buf, &n, ": an index in [ ] is src, dst (a vertex value read on each edge) or graph (a "
                "graph value read at each vertex), never a number; slice(x, k, k + 1) picks element k of the last "
                "dim (transpose(x) first for the dim before it; flatten drops dims of 1)");
  diag_error(&c->diag, at, "%s", buf);
  if (have_open && wants_closer) diag_note(&c->diag, open_loc, "to match this '%c'", open);
  if (operator_at_end)
    diag_note(&c->diag, at, "a statement ends at the end of its line; to continue an expression on the next "
                            "line, break it inside parentheses: 'return (a +' then 'b)'");
  return 0;
}

/* Bison's other errors: only "memory exhausted", when the parser's stack would pass YYMAXDEPTH
 * (the backstop: nesting the lexer does not count). */
static void gnn_yyerror(GNN_YYLTYPE *l, GnnCtx *c, void *scanner, const char *msg) {
  (void)scanner;
  if (strcmp(msg, "memory exhausted") == 0)
    diag_error(&c->diag, L(*l), "expression nested too deeply (more than %d levels)", GNN_MAX_NESTING);
  else
    diag_error(&c->diag, L(*l), "%s", msg);
}
