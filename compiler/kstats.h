/* kstats.h -- a reader of the kernel IR (kstats.c): the bytes each step reads and writes, and
 * the memory plan of a library. Above the kernel IR.
 */
#ifndef GNNC_KSTATS_H
#define GNNC_KSTATS_H

#include <stdio.h>

#include "kir.h"

/* kstats.c: --stats after lower: the bytes each step reads and writes at |V|, |E| and its
 * arithmetic (fused, and the same program lowered unfused for comparison), and the arenas of the
 * memory plan. */
void kprog_stats(FILE *out, const KProgram *p, const KProgram *unfused, double V, double E);
/* --stats' check of the fusion's arithmetic: the fused program's operations (kernels and GEMMs) in
 * the forward or the backward past KSTATS_OPS_WARN times the unfused program's (a value recomputed
 * per element or per trip of another's loop, not once per row) print "gnnc: warning: ..." to err
 * (NULL: none), naming the kernels responsible. Returns how many passes (forward, backward) are
 * past it. */
#define KSTATS_OPS_WARN 4.0
int kprog_ops_check(FILE *err, const KProgram *p, const KProgram *unfused, double V, double E);
/* "840", "4.20 k", "1.30 G": an operation count for people (4 rotating static buffers). */
const char *kstats_ops_human(double ops);
/* The memory a library of p allocates at |V|, |E| (what the generated *_memory_plan reports):
 * the arena (training plan if p has a backward), parameters, their gradients and the output. */
typedef struct {
  double arena, arena_inference, params, grads, output, total;
  int buffers;       /* temporaries placed in the arena */
} KMemPlan;
KMemPlan kprog_memory_plan(const KProgram *p, double V, double E);
/* --print-memory-plan: the plan, and each buffer of the arena with its bytes, steps and offset. */
void kprog_print_memory_plan(FILE *out, const KProgram *p, double V, double E);
/* "9.86 GB", "134.19 MB", "12.00 kB", "56 B": a byte count for people (4 rotating static buffers). */
const char *kstats_human(double bytes);
/* One step's traffic at V, E as kprog_stats counts it, with the gathered part apart: reads of a
 * vertex buffer at a row the graph picks, once per edge (gpucost.c gives them the graph's
 * locality). gather_row_sectors: 32-byte sectors of one edge's gathered rows, all buffers. */
typedef struct {
  double read, write;        /* bytes, gathered reads included */
  double gathered;           /* bytes of gathered reads, each edge's rows counted whole */
  double gather_row_sectors;
  double flops;              /* a GEMM's 2MNK; 0 for kernels (what gpucost.c's compute bound reads) */
  double ops;                /* --stats' arithmetic: a kernel's floating-point operations (kstats.c,
                                stmt_ops), a GEMM's 2MNK, an SpMM's multiply-adds; 0 for fills.
                                Reported only: no plan choice reads it */
} KTraffic;
KTraffic kstats_step_traffic(const KStep *s, double V, double E);
/* A step's name in tables: its kernel's, or gemm, spmm, zero, fill. */
const char *kstats_step_name(const KStep *s);

#endif
