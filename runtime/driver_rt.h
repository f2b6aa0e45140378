/* driver_rt.h -- what gnn-run and gnn-train share: opening a model library and resolving the
 * runtime functions through it.
 *
 * The drivers link no runtime. They dlopen a model library and call the runtime that library
 * links (libgnnrt for a CUDA library, libgnnrt_host for a host one), so one driver binary serves
 * both targets. Header-only: each driver is a single translation unit.
 */
#ifndef GNN_DRIVER_RT_H
#define GNN_DRIVER_RT_H
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnn_model.h"
#include "gnnrt_omp.h"
#include "gnnrt_path.h"

/* The runtime functions the drivers call (gnnrt.h has their documentation). */
typedef struct {
  gnn_status (*ctx_create)(gnn_ctx **, int);
  void (*ctx_destroy)(gnn_ctx *);
  const char *(*last_error)(const gnn_ctx *);
  const char *(*status_name)(gnn_status);
  gnn_status (*upload)(gnn_ctx *, void *, const void *, size_t);
  gnn_status (*download)(gnn_ctx *, void *, const void *, size_t);
  gnn_status (*gmalloc)(gnn_ctx *, void **, size_t);
  gnn_status (*gfree)(gnn_ctx *, void *);
  gnn_status (*memset0)(gnn_ctx *, void *, size_t);
  gnn_status (*sync)(gnn_ctx *);
  gnn_status (*mem_usage)(const gnn_ctx *, size_t *, size_t *);
  gnn_status (*graph_load)(gnn_ctx *, const char *, const gnn_graph_opts *, gnn_graph **);
  void (*graph_free)(gnn_ctx *, gnn_graph *);
  gnn_status (*features_load)(gnn_ctx *, const char *, int64_t, float **, int64_t *);
  gnn_status (*dataset_load)(gnn_ctx *, const char *, const gnn_graph_opts *, gnn_dataset **);
  void (*dataset_free)(gnn_ctx *, gnn_dataset *);
  gnn_status (*xent)(gnn_ctx *, const float *, const int32_t *, const uint8_t *, int64_t, int64_t, float *, float *);
  gnn_status (*accuracy)(gnn_ctx *, const float *, const int32_t *, const uint8_t *, int64_t, int64_t, double *);
  gnn_status (*adam)(gnn_ctx *, float *, const float *, float *, float *, int64_t, float, float, float, float, float, int64_t);
  gnn_status (*sgd)(gnn_ctx *, float *, const float *, int64_t, float, float);
  gnn_status (*tf_read)(gnn_ctx *, const char *, gnn_tensor_file **);
  gnn_status (*tf_get)(gnn_ctx *, const gnn_tensor_file *, const char *, int, const int64_t *, float *);
  gnn_status (*tf_read_rows)(gnn_ctx *, const char *, gnn_tensor_file **);
  gnn_status (*tf_get_rows)(gnn_ctx *, const gnn_tensor_file *, const char *, int64_t, int, const int64_t *, float *);
  gnn_status (*tf_expect)(gnn_ctx *, const gnn_tensor_file *, int, const char *const[]);
  int (*tf_count)(const gnn_tensor_file *);
  gnn_status (*tf_info)(const gnn_tensor_file *, int, const char **, int *, int64_t[4]);
  void (*tf_free)(gnn_tensor_file *);
  gnn_status (*tf_write)(gnn_ctx *, const char *, int, const char *const[], const int[], const int64_t[][4],
                         const float *const[]);
  gnn_status (*ck_save)(gnn_ctx *, const char *, const gnn_train_state *);
  gnn_status (*ck_load)(gnn_ctx *, const char *, gnn_train_state *);
  gnn_status (*ck_check)(gnn_ctx *, const char *, char *, size_t, int64_t *);
  gnn_status (*text_line)(gnn_ctx *, const char *, int64_t, int64_t *); /* optional (0.4): NULL in an older runtime */
  const char *(*last_warning)(const gnn_ctx *);                          /* optional (0.7): NULL in an older runtime */
} Rt;

static const struct {
  size_t offset;
  const char *symbol;
} rt_symbols[] = {
    {offsetof(Rt, ctx_create), "gnn_ctx_create"},
    {offsetof(Rt, ctx_destroy), "gnn_ctx_destroy"},
    {offsetof(Rt, last_error), "gnn_last_error"},
    {offsetof(Rt, status_name), "gnn_status_name"},
    {offsetof(Rt, upload), "gnn_upload"},
    {offsetof(Rt, download), "gnn_download"},
    {offsetof(Rt, gmalloc), "gnn_malloc"},
    {offsetof(Rt, gfree), "gnn_free"},
    {offsetof(Rt, memset0), "gnn_memset0"},
    {offsetof(Rt, sync), "gnn_sync"},
    {offsetof(Rt, mem_usage), "gnn_mem_usage"},
    {offsetof(Rt, graph_load), "gnn_graph_load"},
    {offsetof(Rt, graph_free), "gnn_graph_free"},
    {offsetof(Rt, features_load), "gnn_features_load_svm"},
    {offsetof(Rt, dataset_load), "gnn_dataset_load"},
    {offsetof(Rt, dataset_free), "gnn_dataset_free"},
    {offsetof(Rt, xent), "gnn_softmax_xent"},
    {offsetof(Rt, accuracy), "gnn_accuracy"},
    {offsetof(Rt, adam), "gnn_adam_step"},
    {offsetof(Rt, sgd), "gnn_sgd_step"},
    {offsetof(Rt, tf_read), "gnn_tensor_file_read"},
    {offsetof(Rt, tf_get), "gnn_tensor_file_get"},
    {offsetof(Rt, tf_read_rows), "gnn_tensor_file_read_rows"},
    {offsetof(Rt, tf_get_rows), "gnn_tensor_file_get_rows"},
    {offsetof(Rt, tf_expect), "gnn_tensor_file_expect"},
    {offsetof(Rt, tf_count), "gnn_tensor_file_count"},
    {offsetof(Rt, tf_info), "gnn_tensor_file_info"},
    {offsetof(Rt, tf_free), "gnn_tensor_file_free"},
    {offsetof(Rt, tf_write), "gnn_tensor_file_write"},
    {offsetof(Rt, ck_save), "gnn_train_state_save"},
    {offsetof(Rt, ck_load), "gnn_train_state_load"},
    {offsetof(Rt, ck_check), "gnn_train_state_check"},
    {offsetof(Rt, text_line), "gnn_text_line"}, /* optional: below */
    {offsetof(Rt, last_warning), "gnn_last_warning"}, /* optional: below */
};

/* NULL if the 64-bit ELF file at path holds every segment its program headers map, else why
 * not. The loader maps the segments without checking them against the file's size: a library
 * cut short (a build or a copy interrupted) kills the process with SIGBUS when a page past the
 * end is touched. A file that is not 64-bit ELF is left to dlopen, whose message is clear. */
static const char *elf_truncated(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  struct stat sb;
  Elf64_Ehdr eh;
  const char *why = NULL;
  if (fstat(fd, &sb) == 0 && pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64) {
    uint64_t size = (uint64_t)sb.st_size;
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff)
      why = "its program headers lie past the end of the file";
    for (int i = 0; !why && i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph)
        why = "its program headers cannot be read";
      else if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
        why = "a segment it maps lies past the end of the file";
    }
  }
  close(fd);
  return why;
}

/* Opens the model library at libpath (a bare name is a file in this folder, not a search of the
 * library path), and fills *api and *rt. On failure prints "PROG: ..." and returns false; *lib is
 * then NULL or a handle for the caller to dlclose. */
static bool driver_open(const char *prog, const char *libpath, void **lib, const gnn_model_api **api, Rt *rt) {
  const char *cut = elf_truncated(libpath);
  if (cut) return fprintf(stderr, "%s: cannot load %s: the file is cut short (%s): build or copy it again\n", prog, libpath, cut), false;
  char *full = malloc(strlen(libpath) + 3);
  if (!full) return fprintf(stderr, "%s: out of memory\n", prog), false;
  sprintf(full, strchr(libpath, '/') ? "%s" : "./%s", libpath);
  /* RTLD_NODELETE: the library's OpenMP runtime keeps worker threads, which must not see their
   * code unmapped by dlclose before the process exits. */
  *lib = dlopen(full, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  free(full);
  if (!*lib) return fprintf(stderr, "%s: cannot load %s: %s\n", prog, libpath, dlerror()), false;
  const gnn_model_api *(*entry)(void) = NULL;
  *(void **)&entry = dlsym(*lib, "gnn_model_entry");
  if (!entry) return fprintf(stderr, "%s: %s is not a gnnc model library (no gnn_model_entry: build it with gnnc -o lib.so, or compile the generated source with -DGNNC_MODEL_ENTRY)\n", prog, libpath), false;
  *api = entry();
  /* A library without gnn_model_program was built by an older gnnc (before 04c48cf), whose table
   * may end before input_grads, set_graph, reserve or program: reading those would take whatever
   * follows the table for a pointer. Such a library gets a copy of the fields every gnnc's
   * table has (up to backward_gemms) with the later ones NULL: it runs forward and backward, has
   * no input gradients (gnn-run --save-input-grads says so) and no program (api->program NULL).
   * The copies stay reachable. */
  /* Likewise a library with gnn_model_program but without gnn_model_param_init (a gnnc before
   * runtime 0.6) ends its table at program: its copy has param_init NULL. */
  /* And a library with gnn_model_param_init but without gnn_model_forward_launches (a gnnc
   * before runtime 0.9) ends its table at param_init: its copy has both launch counts 0. */
  size_t table_end = !dlsym(*lib, "gnn_model_program")            ? offsetof(gnn_model_api, input_grads)
                     : !dlsym(*lib, "gnn_model_param_init")       ? offsetof(gnn_model_api, param_init)
                     : !dlsym(*lib, "gnn_model_forward_launches") ? offsetof(gnn_model_api, forward_kernels_training)
                                                                  : sizeof(gnn_model_api);
  if (table_end < sizeof(gnn_model_api)) {
    static struct driver_legacy_table { gnn_model_api api; struct driver_legacy_table *next; } *legacy_tables;
    struct driver_legacy_table *t = calloc(1, sizeof *t);
    if (!t) return fprintf(stderr, "%s: out of memory\n", prog), false;
    memcpy(&t->api, *api, table_end);
    t->next = legacy_tables;
    legacy_tables = t;
    *api = &t->api;
  }
  for (size_t i = 0; i < sizeof rt_symbols / sizeof rt_symbols[0]; i++) {
    void *f = dlsym(*lib, rt_symbols[i].symbol);
    if (!f && rt_symbols[i].offset == offsetof(Rt, text_line)) continue; /* (0.4) an older runtime: messages without a line */
    if (!f && rt_symbols[i].offset == offsetof(Rt, last_warning)) continue; /* (0.7) an older runtime warns of nothing */
    if (!f) return fprintf(stderr, "%s: %s: the runtime has no %s\n", prog, libpath, rt_symbols[i].symbol), false;
    memcpy((char *)rt + rt_symbols[i].offset, &f, sizeof f);
  }
  return true;
}

/* Prints the runtime's warning, if any, as "PROG: ..." (after a load: gnn_last_warning). */
static inline void driver_warning(const char *prog, const Rt *rt, const gnn_ctx *ctx) {
  const char *w = rt->last_warning ? rt->last_warning(ctx) : "";
  if (w && *w) fprintf(stderr, "%s: %s\n", prog, w);
}

/* A file option's value, refused when the option comes twice (the last was taken silently: two
 * --graph read the second), as gnnc does. False after saying so. */
static inline bool driver_file_once(const char *prog, const char **slot, const char *flag, const char *v) {
  if (*slot) {
    fprintf(stderr, "%s: %s given twice ('%s', then '%s'): give it once\n", prog, flag, *slot, v);
    return false;
  }
  *slot = v;
  return true;
}

/* Writes a tensor text file the way the runtime writes one (gnn_tensor_file_write): the
 * checksum line "#gnn-tensors version 2 bytes N fnv1a64 HEX" over text, then text, to a
 * temporary file beside path, fsync'd and renamed into place (then the folder fsync'd). On
 * failure prints "PROG: PATH: ..." and returns false; a previous file at path is untouched. A
 * device or FIFO (/dev/null) is written in place (gnn_write_in_place).
 * (inline: programs that include this header and do not write, such as the tests, get no
 * unused-function warning.) */
static inline bool driver_write_tensors(const char *prog, const char *path, const char *text, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
  if (gnn_write_in_place(path)) { /* a device or FIFO: no temporary (gnnrt_path.h) */
    FILE *f = fopen(path, "wb");
    bool ok = f && fprintf(f, "#gnn-tensors version 2 bytes %zu fnv1a64 %016llx\n", len, (unsigned long long)h) > 0 &&
              (len == 0 || fwrite(text, 1, len, f) == len);
    int err = errno;
    if (f && fclose(f) != 0 && ok) ok = false, err = errno;
    if (!ok) fprintf(stderr, "%s: %s: cannot write: %s\n", prog, path, strerror(err));
    return ok;
  }
  char *target = gnn_replace_target(path); /* through a symlink, the file it names */
  size_t n = target ? strlen(target) + 16 : 0;
  char *tmp = target ? malloc(n) : NULL;
  if (!tmp) return free(target), fprintf(stderr, "%s: out of memory\n", prog), false;
  snprintf(tmp, n, "%s.XXXXXX", target);
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  bool ok = f != NULL;
  if (f) {
    fchmod(fd, 0644);
    fprintf(f, "#gnn-tensors version 2 bytes %zu fnv1a64 %016llx\n", len, (unsigned long long)h);
    ok = (len == 0 || fwrite(text, 1, len, f) == len) && fflush(f) == 0 && fsync(fd) == 0;
  }
  int err = errno;
  if (f && fclose(f) != 0 && ok) ok = false, err = errno;
  if (!f && fd >= 0) close(fd);
  if (ok && rename(tmp, target) != 0) ok = false, err = errno;
  if (!ok) {
    fprintf(stderr, "%s: %s: cannot write: %s (a previous file, if any, is unchanged)\n", prog, path, strerror(err));
    if (fd >= 0) unlink(tmp);
  } else {
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, (size_t)(slash - target) + (slash == target)) : strdup(".");
    int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
    if (dfd >= 0) fsync(dfd), close(dfd);
    free(dir);
  }
  free(tmp);
  free(target);
  return ok;
}
/* A file a driver reads or writes: the option that names it ("--output") and its path (NULL:
 * not given). */
typedef struct {
  const char *opt, *path;
} DriverFile;

/* False, after "PROG: ..." on stderr, when a file to be written is one the run reads (the model
 * library, --params, the graph file), is one of the files of the dataset folder it reads
 * (gnn_dataset_file), or is another file to be written: gnn-run wrote --output over its own --params, or
 * over the dataset's features.svm, without a word. gnnc run refuses the same (compiler/build.c
 * files_safe). */
static inline bool driver_files_safe(const char *prog, const DriverFile *reads, int nreads, const DriverFile *writes,
                                     int nwrites) {
  for (int w = 0; w < nwrites; w++) {
    if (!writes[w].path) continue;
    for (int r = 0; r < nreads; r++) {
      if (!reads[r].path) continue;
      if (gnn_dataset_file(writes[w].path, reads[r].path))
        return fprintf(stderr, "%s: %s %s is a file of the dataset folder %s %s: writing it would destroy the dataset; "
                       "give another path\n", prog, writes[w].opt, writes[w].path, reads[r].opt, reads[r].path), false;
      if (gnn_same_file(writes[w].path, reads[r].path))
        return fprintf(stderr, "%s: %s %s is the file %s reads: writing it would destroy it; give another path\n", prog,
                       writes[w].opt, writes[w].path, reads[r].opt), false;
    }
    for (int k = 0; k < w; k++)
      if (writes[k].path && gnn_same_file(writes[w].path, writes[k].path))
        return fprintf(stderr, "%s: %s and %s are the same file %s: the one would overwrite the other; give another path\n",
                       prog, writes[k].opt, writes[w].opt, writes[w].path), false;
  }
  return true;
}
#endif
