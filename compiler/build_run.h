/* build_run.h -- running the compilers that build a model's library, and their caches
 * (build_run.c). Below build.c, which writes the sources and chooses the commands.
 */
#ifndef GNNC_BUILD_RUN_H
#define GNNC_BUILD_RUN_H

#include <stdbool.h>

/* True if path names something (stat succeeds). */
bool build_exists(const char *path);
/* a, b and c joined (malloc'ed). */
char *build_cat(const char *a, const char *b, const char *c);

/* Runs argv (argv[0] found on PATH), waits; true on exit status 0, else false after a "gnnc:"
 * line on stderr. The command line is echoed with verbose (-v). */
bool build_run(char **argv, bool verbose);
/* nvcc's object obj of src (argv: the compile, ending with "-o obj"; skip: its words that are
 * paths, left out of the key; hdr: the .h beside src; inc: the runtime's headers): from
 * GNNC_CUDA_CACHE on a hit, else by running argv and, with the cache set, storing it. */
bool build_cuda_object(char **argv, char **skip, const char *inc, const char *src, const char *hdr, const char *obj,
                       const char *name, bool verbose);
/* The host library out that argv (one cc run: compile and link) makes from src: from
 * GNNC_HOST_CACHE on a hit, else by running argv and, with the cache set, storing it. name: the
 * model's, for the cache's log. */
bool build_host_cached(char **argv, const char *inc, const char *src, const char *out, const char *name, bool verbose);

#endif
