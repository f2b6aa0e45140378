/* kir.h -- the kernel IR (kir.c: its text form, and the helpers the emitters share; kverify.c:
 * its structural checks). Above the operator IR (ir.h): the lowering (lower.h, kbuild.h ...)
 * builds it; the readers (kstats.h, gpucost.h) and the code generators (emit.h, build.h) read it.
 *
 * What the emitters print. A KProgram is the model as an ordered list of steps over buffers:
 * GEMM calls (cuBLAS / cblas) for the dense projections, and kernels for everything else. A
 * kernel is one thread mapping (a group of G lanes per vertex, per edge, or one group for a
 * global row), lanes over feature elements, and a tree of statements that every lane of the
 * group executes: uniform loops (the edges of a vertex), per-lane loops (k = lane, lane+G, ...),
 * locals (uniform, per-lane, or per-lane register arrays), per-group shared arrays, barriers,
 * group reductions (warp shuffles) and atomic updates. The CUDA emitter prints it as real
 * threads; the host emitter serialises the lanes MCUDA-style. A kernel may implement several
 * operator-IR values (a fused group): it lists them. */
#ifndef GNNC_KIR_H
#define GNNC_KIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "ir.h"

typedef enum { KT_F32, KT_I64, KT_F64 } KType;
typedef enum { MAP_VERTEX, MAP_EDGE, MAP_GLOBAL, MAP_WEIGHT } Mapping; /* MAP_WEIGHT: a group per row of a weight */
/* The graph arrays a kernel may read (gnn_graph's fields of these names): KG_GRAPH_PTR the vertex
 * range of each graph of a batch, KG_VERTEX_GRAPH the graph of each vertex, KG_OUT_DST the
 * destination of each out-edge in CSC order (dst[out_eid[k]]: a walk over out-edges' far end). */
typedef enum { KG_IN_PTR, KG_OUT_PTR, KG_SRC, KG_DST, KG_OUT_EID, KG_GRAPH_PTR, KG_VERTEX_GRAPH, KG_OUT_DST, KG_PIECE_ROW,
               KG_PIECE_LO, KG_OUT_PIECE_ROW, KG_OUT_PIECE_LO, KG__COUNT } KGraphArray;
extern const char *const kgraph_name[KG__COUNT]; /* kir.c: "in_ptr", ... */
extern const char *const kgraph_type[KG__COUNT]; /* "int64_t" (offsets) or "int32_t" (ids) */
typedef enum { KO_ADD, KO_SUB, KO_MUL, KO_DIV, KO_MOD, KO_MIN, KO_MAX, KO_LT, KO_LE, KO_GT, KO_GE, KO_EQ,
               KO_NE, KO_AND, KO_OR } KBinOp;
typedef enum { KU_NEG, KU_EXP, KU_EXPM1, KU_LOG, KU_TANH, KU_SQRT, KU_RSQRT, KU_ABS, KU_NOT, KU_TO_F32,
               KU_TO_I64, KU_TO_F64 } KUnOp;

typedef enum { BUF_INPUT, BUF_PARAM, BUF_TEMP, BUF_DEGREE } KBufKind;
typedef struct KBuf {
  int id;
  const char *name;  /* inputs and params: their names; temps: "t<value id>" */
  KBufKind kind;
  Domain dom;        /* rows: nv, ne, or 1 (param, global) */
  ElemType elem;
  int64_t width;     /* elements per row */
  Value *val;        /* the value it holds (NULL for a kernel's scratch) */
  int out;           /* index in the module's outputs, or -1 */
  int fn;            /* BUF_DEGREE: FN_IN or FN_OUT */
  int first, last;   /* steps of definition and last use (the memory plan) */
  bool bwd;
  bool train_only;   /* a forward value kept only for the backward: written when training */
  bool stash64;      /* a float64 copy of val for the backward (val's own buffer is another one) */
  bool per_graph;    /* a value of the graph alone (the hoist pass): written by a per-graph step,
                        alive over every step (kept between calls while the model holds the graph) */
  bool cross_group;  /* stored by one group and loaded by another in the same kernel (the partial
                        results of a hub row's pieces): no __restrict__, loads through L2 (CUDA) */
  int64_t rows_cap;  /* > 0: a vertex buffer of min(nv, rows_cap) rows (a row per hub piece: there are
                        fewer than both, gnnrt_pieces.h) */
  struct KBuf *alias; /* an input this buffer is when not training (the input's dropout, the
                         identity then): written only by training steps, the input read in place */
} KBuf;

/* KE_ITEM, KE_NPIECES, KE_PIECE_LEN: a kernel over pieces (Kernel.pieces): its group's item, the
 * graph's piece count and piece length (gnn_graph's npieces and piece_len). KE_TILE: a kernel in
 * column tiles (Kernel.col_tiles > 1): its group's tile, 0 .. col_tiles - 1 */
typedef enum { KE_FCONST, KE_ICONST, KE_VAR, KE_LANE, KE_ROW, KE_LOAD, KE_GRAPH, KE_SHARED, KE_BIN, KE_UN,
               KE_SELECT, KE_KEEP, KE_TRAINING, KE_ITEM, KE_NPIECES, KE_PIECE_LEN, KE_TILE } KExprKind;
typedef struct KExpr KExpr;
struct KExpr {
  KExprKind kind;
  KType type;
  double f;          /* KE_FCONST; KE_KEEP: p */
  int64_t i;         /* KE_ICONST; KE_KEEP: stream; KE_VAR: the local's bound ub (0: unknown) */
  int var;           /* KE_VAR: local; KE_SHARED: shared array */
  KBuf *buf;         /* KE_LOAD */
  KGraphArray garr;  /* KE_GRAPH */
  int op;            /* KE_BIN: KBinOp; KE_UN: KUnOp */
  KExpr *a, *b, *c;  /* KE_LOAD: row (NULL for one-row buffers), element; KE_VAR/KE_SHARED/KE_GRAPH:
                        a = index; KE_SELECT: a ? b : c; KE_KEEP: a = element counter */
};

typedef enum { KS_LET, KS_STORE, KS_ATOMIC, KS_SHSTORE, KS_FOR, KS_FOR_LANES, KS_IF, KS_BARRIER,
               KS_GROUP_REDUCE, KS_TICKET } KStmtKind;
typedef struct KStmt KStmt;
struct KStmt {
  KStmtKind kind;
  int var;           /* LET: local (idx = element of a register array); FOR: loop variable; TICKET:
                        the uniform local that gets the count before this group's add;
                        FOR_LANES: the element variable k (lane + i*G); SHSTORE: shared array;
                        GROUP_REDUCE: the local reduced in place across the group's lanes */
  int var2;          /* FOR_LANES: the iteration variable i (0 .. count/G) */
  int op;            /* ATOMIC: KO_ADD / KO_MAX / KO_MIN; GROUP_REDUCE: KO_ADD / KO_MAX / KO_MIN */
  KBuf *buf;         /* STORE / ATOMIC */
  KExpr *row, *idx, *val;
  KExpr *lo, *hi;    /* FOR: [lo, hi); IF: lo = condition; FOR_LANES: lo = NULL (elements 0 .. count - 1)
                        or a column tile's first element, a uniform expression (elements lo .. lo +
                        count - 1: k = lo + lane + i*G) */
  /* TICKET: buf[row] += 1 by one lane, the old count into local var for every lane of the group;
   * the group's earlier stores are visible to whichever group reads the count after it (a fence
   * before, the add, a fence after) */
  int64_t count;     /* FOR_LANES: element count; FOR: step; IF: 1 when the condition is uniform
                        (the same in every lane of the group: the statements stay outside lane loops);
                        ATOMIC: 1 when block-reduced (a sum into a few addresses: the kernel adds its
                        rows' terms per block / per thread, then one atomic per block and element) */
  PtrVec body;       /* FOR, FOR_LANES, IF */
  bool walk;         /* FOR: the loop over the edges of the row (every edge once per walk) */
};

typedef struct {
  const char *name;
  KType type;
  int len;           /* 0: a scalar; > 0: a per-lane register array of len */
  bool uniform;      /* the same value in every lane of the group (computed outside lane loops) */
  int64_t ub;        /* > 0: a loop variable known to be in [0, ub) (index simplification) */
} KLocal;

typedef struct {
  const char *name;
  KType type;
  int len;           /* elements per group */
  int storage;       /* -1: its own storage; else the (float64) array whose storage it takes on a GPU:
                        its float copy, which a launch uses instead of it, never beside it (lower_walk.c:
                        the hoisted weights of an f64 sum, float when not training) */
} KShared;

typedef struct Kernel {
  int id;
  const char *name;  /* k<id>_<what>_<mapping>; <what>: the source's names of its values where it
                        names them (value_cname), else their functions */
  const char *what;  /* one line: the IR values it implements */
  const char *lines; /* the source lines those values come from ("11-13, 17"), or "" */
  Mapping map;
  Domain rows;       /* DOM_VERTEX: nv groups, DOM_EDGE: ne groups, DOM_GLOBAL: 1, DOM_PARAM: nrows */
  int64_t nrows;     /* DOM_PARAM: the rows of the weight it makes (MAP_WEIGHT) */
  int dir;           /* MAP_VERTEX: GATHER_BY_DST (CSR in-edges) or GATHER_BY_SRC (CSC out-edges) */
  int group;         /* lanes per group, a power of two <= 32 */
  KLocal *locals;
  int nlocals, localcap;
  StrMap local_names; /* base name -> how many locals took it (the next gets a number suffix) */
  KShared *shared;
  int nshared, sharedcap;
  PtrVec body;       /* KStmt* */
  PtrVec bufs;       /* KBuf* it reads or writes, in first-use order: its parameters */
  bool graph[KG__COUNT];
  bool dropout;      /* takes the training flag and the seed */
  bool pieces;       /* MAP_VERTEX over in-edges or out-edges, hub rows split (--split-hubs): npieces + nv
                        groups, the pieces of the hub rows (KE_ITEM < npieces: row piece_row[item], or
                        out_piece_row[item] over out-edges) then one per vertex (row item - npieces), a
                        hub's own group doing nothing */
  int col_tiles;     /* > 1: a walk in column tiles (--tile-columns, lower_tiles.c): col_tiles * nv
                        groups, tile-major (KE_TILE = group / nv, row = group % nv: a tile's gathered
                        columns of every row are read before the next tile's, so they stay in L2);
                        its lane loops over col_width elements run over col_tile of them from the
                        tile's first column (the last tile stops at col_width: ceil(col_width /
                        col_tile) tiles); everything else (the edge loop, narrow values such as a
                        softmax's statistics) runs in every tile. 0 or 1: none */
  int64_t col_tile, col_width;
  int vec;           /* 4: --vector-loads=4 (the CUDA emitter alone): each lane takes 4 consecutive elements
                        of every lane loop, k = lo + 4 * (lane + G * m) + j (slot i = 4 * m + j), and the
                        loads kload_vec4 accepts are one 128-bit load per 4 elements; 0: k = lo + lane + G * i.
                        The host's serialised lanes ignore it (lower.c: vector_loads; kernel_vec4_refusal) */
} Kernel;

typedef enum { STEP_KERNEL, STEP_GEMM, STEP_ZERO, STEP_FILL, STEP_SPMM } StepKind;
/* A dimension of a GEMM: mult * rows(dom), rows(DOM_GLOBAL) = 1. */
typedef struct {
  int64_t mult;
  Domain dom;
} KDim;
typedef struct {
  bool ta, tb;       /* row-major C[M,N] = op(A)[M,K] . op(B)[K,N] */
  KDim m, n, k;
  KBuf *a, *b, *c;
  int64_t lda, ldb, ldc;
  float beta;        /* 0: overwrite C, 1: accumulate */
  bool tf32;         /* --gemm-precision=tf32: A and B rounded to TF32 (10-bit mantissa), products summed in
                        float32: cuBLAS on tensor cores; the host emulates the rounding (emit_host_gemm.c) */
} KGemm;
/* A sparse-dense product over the graph (--spmm=cusparse): for every vertex v,
 *   y[v, :] = sum over the edges e of v in direction dir of w[e] * x[far end of e, :]
 * dir GATHER_BY_DST: v's in-edges, far end src[e] (the CSR); GATHER_BY_SRC: v's out-edges, far
 * end dst[e] (the CSC). w is an edge scalar (edge ids as everywhere: CSR positions), NULL for 1.
 * The runtime's gnn_spmm runs it: cuSPARSE in the CUDA build, a loop in the host build. */
typedef struct {
  int dir;
  KBuf *x, *w, *y;
  int64_t width;     /* columns of x and y */
} KSpmm;
typedef struct {
  StepKind kind;
  Kernel *kernel;    /* STEP_KERNEL */
  KGemm gemm;        /* STEP_GEMM */
  KSpmm spmm;        /* STEP_SPMM */
  KBuf *buf;         /* STEP_ZERO, STEP_FILL */
  double fill;       /* STEP_FILL */
  bool bwd;          /* part of the backward pass */
  bool train_only;   /* a forward step that only makes a stash for the backward: skipped unless training */
  bool per_graph;    /* a forward step at the start that computes values of the graph alone: run by the
                        first forward on a graph (after create, set_graph, or a new arena), then skipped */
  const char *what;  /* the IR value(s) it implements */
} KStep;

typedef struct KProgram KProgram;
struct KProgram {
  const char *name;  /* the model's name */
  const char *cname; /* its C identifier prefix (lower case) */
  Module *m;
  PtrVec bufs;       /* KBuf* */
  KStep *steps;
  int nsteps, stepcap;
  int nfwd;          /* steps [0, nfwd) are the forward pass, the rest the backward */
  PtrVec kernels;    /* Kernel* */
  int nparams;       /* params are bufs with kind BUF_PARAM, in module order */
  Arena *arena;
};

/* kverify.c: structural checks of a kernel program (steps, buffers, the memory plan's lifetimes,
 * kernels' loads and stores); returns the number of problems, each printed to err (may be NULL).
 * The pipeline runs it after lower when verify_each is on. */
int kir_verify(const KProgram *p, FILE *err);
/* kir.c: the text form, and the expression printer the emitters share */
typedef enum { DIALECT_KIR, DIALECT_CUDA, DIALECT_HOST } Dialect;
void kir_print(FILE *out, const KProgram *p);
void kexpr_print(FILE *out, const Kernel *k, const KExpr *e, Dialect d);
/* How many statements of b (nested ones too) let local var. */
int kstmts_count_lets(const PtrVec *b, int var);
/* A walk kernel's gathered width: its widest lane loop that reads a vertex buffer at a row the
 * graph picks inside a walk (x[u, k]); 0 if none. What column tiles cut (lower_tiles.c), of an
 * untiled kernel (a tiled one's loops run over one tile). */
int64_t kernel_gathered_width(const Kernel *k);
/* The tile width that cuts W columns into ntiles tiles for a group of G lanes (a multiple of G,
 * or fewer than G; the last tile the shorter), or 0 if none gives exactly ntiles. */
int64_t tile_width_for(int64_t W, int ntiles, int G);
/* A kernel in column tiles: the local its first statement sets to the tile's first column
 * (`tile_lo = tile * col_tile`, lower_tiles.c), or -1 if it does not. */
int kernel_tile_first(const Kernel *k);
/* Whether lane loop s is a column tile's that may pass the tiled width (col_tile does not divide
 * col_width: the last tile is shorter, its lanes guarded by k < col_width). */
bool klanes_may_pass_width(const Kernel *k, const KStmt *s);
/* Whether e prints with a leading '-' (a negation, a negative constant): a negation of it must
 * parenthesise it, or C reads `--x` as a decrement. */
bool kexpr_leads_with_minus(const KExpr *e);
void kvar_print(FILE *out, const Kernel *k, int var, const KExpr *idx, Dialect d);
/* While set, kexpr_print prints each of these n load nodes (by identity) as its text instead: the
 * CUDA emitter's float4 registers (--vector-loads). n = 0 clears it. The printer's one state. */
void kexpr_alias_loads(const KExpr *const *loads, const char *const *texts, int n);
/* --vector-loads=4 (Kernel.vec). Why kernel k's lanes cannot take 4 consecutive elements each, or
 * NULL: the new element-to-lane map must be one map for the whole kernel (a register array's slot,
 * an element a lane stores and reads back later, are the same lane's under it), so every lane loop
 * of the kernel takes it, none nested in another, none reading the lane index, and register arrays
 * indexed only by their lane loop's slot; a column tile starts at a multiple of 4. */
const char *kernel_vec4_refusal(const Kernel *k);
/* Whether load e, evaluated unconditionally in an iteration of lane loop s (its body's statements,
 * or under ifs that kvec4_hoistable_cond accepts), can be read 4 elements at a time: a float
 * buffer the kernel never writes, its element the loop's k (+ a multiple of 4), its row a multiple
 * of 4 floats and fixed across the loop (no local the body sets). */
bool kload_vec4(const Kernel *k, const KStmt *s, const KExpr *e);
/* Whether condition c of an if in lane loop s's body has one value in every iteration (no local the
 * body sets, no element or lane, no memory): the loop's float4 loads under it can be read before. */
bool kvec4_hoistable_cond(const Kernel *k, const KStmt *s, const KExpr *c);
/* Calls f(k, s, e, conds, ncond, arg) for each load of lane loop s's body that kload_vec4 accepts (nested
 * ifs' conditions in conds, outermost first, at most 8); returns how many. */
typedef void (*KVec4Visit)(const Kernel *k, const KStmt *s, const KExpr *e, const KExpr *const *conds, int ncond, void *arg);
int kvec4_loads(const Kernel *k, const KStmt *s, KVec4Visit f, void *arg);
/* Whether e is a load whose row the graph picks (x[u, k], not x[row, k] or a one-row buffer's). */
bool kload_gathers(const KExpr *e);
const char *mapping_name(Mapping m);
const char *kernel_mapping_desc(const Kernel *k);
const char *ktype_c(KType t);        /* float, int64_t, double */
const char *ktype_name(KType t);     /* f32, i64, f64 */
const char *elem_c(ElemType e);      /* float, int32_t, double */
/* The buffers of a kernel's block-reduced atomics (at most n; call with have = 0), first use first. */
int block_targets(const PtrVec *b, const KBuf **out, int n, int have);
/* Whether a lane of kernel k may load an element of buffer b that another lane of its group
 * stored (or added to atomically) before a barrier or group reduction: a value passing between
 * lanes through memory. The CUDA emitter leaves such a buffer without __restrict__ (see
 * cuda_kernel); a lane reading back its own element (b[row, k] stored and loaded with k a lane
 * loop's element) does not count. */
bool kernel_reads_back_across_barrier(const Kernel *k, const KBuf *b);
/* Shared memory (kir.c). A CUDA block is GNN_CUDA_BLOCK threads, 256/G groups of G lanes, unless
 * its shared arrays do not fit: the static shared memory of one block may not exceed
 * GNN_SHARED_MAX bytes (48 KB, what every CUDA device gives a kernel without the opt-in to
 * dynamic shared memory; ptxas refuses more: "uses too much shared data (0xc320 bytes, 0xc000
 * max)"). A kernel's block holds each per-group shared array once per group (elements x 4 or 8
 * bytes: f32 4, i64 and f64 8) and each block-reduced sum once (width x 8, a double per element).
 * kernel_groups_per_block is the most groups, at most GNN_CUDA_BLOCK / G, whose block fits; lower
 * keeps one group's arrays and the block's sums within GNN_SHARED_MAX (kverify checks it), so
 * there is always at least one. */
enum { GNN_CUDA_BLOCK = 256, GNN_SHARED_MAX = 48 * 1024 };
int64_t kernel_shared_group_bytes(const Kernel *k); /* one group's shared arrays (a float copy in another's storage: none) */
int shared_f32_copy(const Kernel *k, int sh);       /* the float copy of float64 shared array sh (KShared.storage), or -1 */
int64_t kernel_shared_block_bytes(const Kernel *k); /* the block's own: block-reduced sums */
int64_t kernel_shared_bytes(const Kernel *k, int gpb); /* a block of gpb groups */
int kernel_groups_per_block(const Kernel *k);

#endif
