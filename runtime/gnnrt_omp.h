/* gnnrt_omp.h -- the OpenMP thread count gnnc's tools and the host runtime run with: one rule for
 * the drivers (gnn-run, gnn-train: driver_rt.h), gnnc's interpreter (gnnc run, gnnc gradcheck:
 * compiler/main.c, compiler/gradcheck.c, which run OpenMP loops and do not link the runtime) and
 * libgnnrt_host's gnn_ctx_create (device_host.c), for programs of one's own that link it.
 *
 * libgomp takes any OMP_NUM_THREADS and fails on its own at the first parallel region: "Out of
 * memory allocating 224000001344 bytes" at 10^9, "Thread creation failed" at 50,000, a segfault
 * inside GOMP_parallel at 100,000 (gnn-run, gnnc run and gnnc gradcheck on Cora or a small
 * graph, 2 cores, 2026-12). A tool refuses such a count before its first parallel region (the
 * drivers before loading the model library, whose OpenBLAS reads the variable as it loads); the
 * host runtime refuses to create a context, which every parallel region of its own and of a
 * host model comes after. Refused, not clamped: OpenBLAS splits its products by the thread
 * count, so a clamped run would compute other last bits than the count the user set, and
 * gnn-train's checkpoint would record a count nobody asked for. libgnnrt (CUDA) runs no OpenMP
 * and does not check. */
#ifndef GNNRT_OMP_H
#define GNNRT_OMP_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The most OpenMP threads a tool runs with (each level of an OMP_NUM_THREADS list): far above
 * any machine's cores, far below libgomp's failures. */
#define GNN_MAX_OMP_THREADS 4096

/* True when OMP_NUM_THREADS is unset or asks for at most GNN_MAX_OMP_THREADS threads at every
 * level; false, with the reason in why (n bytes, cut to fit), when it asks for more. A value
 * libgomp does not parse as its list of positive counts (it takes "4,2"; "abc", "0", a count past
 * 2^64 are not) is left to libgomp, which says "Invalid value for environment variable
 * OMP_NUM_THREADS" and ignores it. No output: the runtime library prints nothing. */
static inline bool gnn_omp_threads_check(char *why, size_t n) {
  const char *env = getenv("OMP_NUM_THREADS");
  if (!env) return true;
  unsigned long long most = 0;
  const char *p = env;
  for (;;) { /* libgomp's grammar: [ws] digits [ws] { , [ws] digits [ws] } */
    while (*p == ' ' || *p == '\t') p++;
    if (*p < '0' || *p > '9') return true; /* not a list of counts: libgomp ignores it */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE) return true; /* past 2^64: libgomp's "Invalid value" */
    if (v > most) most = v;
    p = end;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0') break;
    if (*p++ != ',') return true;
  }
  if (most <= GNN_MAX_OMP_THREADS) return true;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  snprintf(why, n, "OMP_NUM_THREADS=%s asks for more than %d OpenMP threads (libgomp fails or crashes far above that): "
           "set it to at most the machine's %ld cores, or unset it", env, GNN_MAX_OMP_THREADS, cpus > 0 ? cpus : 1L);
  return false;
}

/* The tools' form: false, after "PROG: " and the reason on stderr, when gnn_omp_threads_check refuses. */
static inline bool gnn_omp_threads_ok(const char *prog) {
  char why[1024];
  if (gnn_omp_threads_check(why, sizeof why)) return true;
  fprintf(stderr, "%s: %s\n", prog, why);
  return false;
}
#endif
