/* build.h -- what the driver writes (build.c): sources through the code generators (emit.h),
 * and shared libraries through the C and CUDA compilers.
 */
#ifndef GNNC_BUILD_H
#define GNNC_BUILD_H

#include <stdbool.h>
#include <stdio.h>

#include "kir.h"
#include "emit.h"

/* build.c: what the driver writes. emit: "kir", "cu", "c", "h", or NULL to build the shared
 * library `output` for `target`. False after reporting the problem on stderr. */
typedef struct {
  const char *emit;
  const char *output;
  Target target;
  const char *arch;      /* nvcc: "sm_80" or a list "sm_80,sm_90" */
  const char *host_march; /* cc -march= for host libraries: "native" (NULL), "portable" (none), or a CPU */
  bool keep;             /* -S: keep the sources beside the library */
  bool verbose;          /* -v: echo the compiler's command line */
  const char *src_name;  /* the .gnn file, as given */
} EmitOpts;
bool gnn_emit(const KProgram *p, const EmitOpts *eo);
/* An output file written whole: a regular one (or none yet) under a temporary name renamed over
 * it, so an error leaves the old file as it was; a device, a FIFO or a symlink to no file yet
 * gathered in memory and written in place when whole. out_close(o, false) discards it. */
typedef struct {
  FILE *f;
  char *path, *tmp; /* tmp: a regular file's temporary; NULL: written from buf */
  char *buf;
  size_t len;
} OutFile;
bool out_open(OutFile *o, const char *path);
bool out_close(OutFile *o, bool keep);
/* The folder of the running gnnc (malloc'ed), or NULL: where its runtime and tools are found. */
char *gnnc_exe_dir(void);

#endif
