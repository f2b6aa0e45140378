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
/* A file one run of gnnc reads or writes: its path, and how to name it in a message ("-o 'm.c'",
 * "the header 'm.h' that -o 'm.c' writes beside it"; for a file read, the option that reads it,
 * "--graph", or NULL for the source). */
typedef struct {
  char *path, *what; /* malloc'ed */
} RunFile;
/* The files gnn_emit(eo) writes, temporaries aside (the library or -o's file, and the sources
 * beside it): appended to files[*n], at most 3. */
void emit_outputs(const EmitOpts *eo, RunFile *files, int *n);
/* False, after a "gnnc: error:" line, when -o cannot name --emit's output: a source (c, cu) goes
 * to -o and its header beside it, named from -o without the extension, so -o must end in it. */
bool emit_output_named(const char *emit, const char *output);
/* False, after a "gnnc: error:" line, when a file to be written is one the run reads (reads[0]:
 * the source), is a file of a dataset folder it reads (--graph: gnn_dataset_file), or when two files to be
 * written are one: gnnc never overwrites its own input and never writes one file twice. "One
 * file" is gnn_same_file's (runtime/gnnrt_path.h): the same device and inode when both exist,
 * the same name in the same folder when neither does yet; a device, a FIFO or a terminal is
 * never "the same file" (two outputs to /dev/null are fine). */
bool files_safe(const RunFile *reads, int nreads, const RunFile *writes, int nwrites);
void run_files_free(RunFile *files, int n);
/* The folder of the running gnnc (malloc'ed), or NULL: where its runtime and tools are found. */
char *gnnc_exe_dir(void);

#endif
