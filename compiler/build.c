/* build.c -- writing the generated sources, and building a model's shared library.
 *
 *   gnnc model.gnn --emit=kir [-o F]        the kernel IR (stdout by default)
 *   gnnc model.gnn --emit=cu  [-o F.cu]     CUDA source + its header F.h (without -o: one file on
 *                                           stdout, the header inlined where the source includes it;
 *                                           -o must end in .cu: main.c)
 *   gnnc model.gnn --emit=c   [-o F.c]      host C source + its header (the same, .c)
 *   gnnc model.gnn --emit=h   [-o F]        the header alone, to F as named (the same for both
 *                                           targets; stdout)
 *   gnnc model.gnn -o libmodel.so [--target=cuda|host] [--arch=sm_80[,sm_90]] [-S]
 *                                           emit, then nvcc (CUDA) or cc (host) into a shared
 *                                           library linked with libgnnrt / libgnnrt_host; -S keeps
 *                                           model.cu/.c and model.h beside the library
 *
 * Extra flags for the compiler gnnc runs come from GNNC_HOST_CFLAGS (cc) and GNNC_NVCC_FLAGS
 * (nvcc), split at spaces: the tests build sanitized libraries this way.
 *
 * Every file is written under a temporary name and renamed, so an error leaves nothing
 * half-written. The runtime's headers and libraries are found through GNNC_RUNTIME_INCLUDE and
 * GNNC_RUNTIME_LIB, else relative to the gnnc executable (an installed tree, or the build tree
 * wherever it was copied: find_runtime), else in the source tree gnnc was built from.
 *
 * The compilers run through build_run.c, which keeps their work in GNNC_CUDA_CACHE (nvcc's
 * objects) and GNNC_HOST_CACHE (host libraries) when those are set.
 */
#include "build.h"
#include "build_run.h"
#include "gnnrt_path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef GNNC_SOURCE_RUNTIME_DIR
#define GNNC_SOURCE_RUNTIME_DIR "runtime"
#endif
#ifndef GNNC_SOURCE_LIB_DIR
#define GNNC_SOURCE_LIB_DIR "build/lib"
#endif

/* path without its directory and without the extension ext (if it has it) */
static char *stem(const char *path, const char *ext) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  char *s = strdup(b);
  size_t n = strlen(s), e = strlen(ext);
  if (n > e && strcmp(s + n - e, ext) == 0) s[n - e] = 0;
  return s;
}

static char *dir_of(const char *path) {
  char *d = strdup(path);
  char *slash = strrchr(d, '/');
  if (slash) *slash = 0;
  else strcpy(d, ".");
  return d;
}

typedef void (*Writer)(FILE *out, const KProgram *p, const EmitOpts *eo, const char *header_name);

static void write_header(FILE *out, const KProgram *p, const EmitOpts *eo, const char *h) {
  (void)h;
  emit_header(out, p, eo->src_name);
}
static void write_cu(FILE *out, const KProgram *p, const EmitOpts *eo, const char *h) {
  emit_source(out, p, &emit_cuda_hooks, eo->src_name, h);
}
static void write_c(FILE *out, const KProgram *p, const EmitOpts *eo, const char *h) {
  emit_source(out, p, &emit_host_hooks, eo->src_name, h);
}

/* path's temporary name, path.PID.tmp: this process's own, so two gnnc runs writing the same file
 * at once (the ranks of a data-parallel job building one model) never write into each other's
 * temporary; each renames a whole file over path, and the last one stays. */
static char *tmp_name(const char *path) {
  char pid[32];
  snprintf(pid, sizeof pid, ".%ld.tmp", (long)getpid());
  return build_cat(path, pid, "");
}

/* An output file (build.h). A regular file (or none yet) is written under a temporary name beside it and
 * renamed over it when whole, so an error never leaves half a file and never touches the old one;
 * through a symlink, beside the file it names (the link stays a link). A file that exists and is
 * not a regular one (/dev/null, a FIFO, a terminal) is written in place: renaming over it would
 * replace the device node. */
bool out_open(OutFile *o, const char *path) {
  memset(o, 0, sizeof *o);
  char *real = realpath(path, NULL); /* NULL when the file does not exist yet */
  struct stat st;
  o->path = real ? real : strdup(path);
  /* a symlink to no file yet: written through the link (which creates its file) */
  bool dangling = !real && lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
  if (dangling || (real && stat(real, &st) == 0 && !S_ISREG(st.st_mode))) {
    if (!dangling && S_ISDIR(st.st_mode)) {
      fprintf(stderr, "gnnc: cannot write '%s': Is a directory\n", path);
      free(o->path);
      o->path = NULL;
      return false;
    }
    /* gathered in memory and written when whole: opening a FIFO for writing waits for its
     * reader, which an error must not (and /dev/null needs nothing else) */
    o->f = open_memstream(&o->buf, &o->len);
  } else {
    o->tmp = tmp_name(o->path);
    o->f = fopen(o->tmp, "w");
  }
  if (!o->f) {
    fprintf(stderr, "gnnc: cannot write '%s': %s\n", path, strerror(errno));
    free(o->path), free(o->tmp);
    o->path = o->tmp = NULL;
    return false;
  }
  return true;
}

/* Finishes an output file: keep = true puts it in place (false after a write error, with a
 * message), keep = false drops it (the old file, if any, untouched). */
bool out_close(OutFile *o, bool keep) {
  if (!o->f) return false;
  bool bad = ferror(o->f) != 0;
  bad |= fclose(o->f) != 0;
  int err = errno;
  if (keep && !bad && o->tmp && rename(o->tmp, o->path) != 0) bad = true, err = errno;
  if (keep && !bad && !o->tmp) { /* a device or FIFO: the whole text at once */
    FILE *f = fopen(o->path, "w");
    if (!f || fwrite(o->buf, 1, o->len, f) != o->len) bad = true, err = errno;
    if (f && fclose(f) != 0 && !bad) bad = true, err = errno;
  }
  if (keep && bad) fprintf(stderr, "gnnc: cannot write '%s': %s\n", o->path, strerror(err ? err : EIO));
  if (o->tmp && (!keep || bad)) remove(o->tmp);
  free(o->path), free(o->tmp), free(o->buf);
  memset(o, 0, sizeof *o);
  return keep && !bad;
}

/* Writes one file whole (out_open). */
static bool write_file(const char *path, Writer w, const KProgram *p, const EmitOpts *eo, const char *header_name) {
  OutFile o;
  if (!out_open(&o, path)) return false;
  w(o.f, p, eo, header_name);
  return out_close(&o, true);
}

/* The source and its header: name.cu|c and name.h in dir. */
static bool write_sources(const KProgram *p, const EmitOpts *eo, Target t, const char *dir, const char *name) {
  char *hname = build_cat(name, ".h", "");
  char *hpath = build_cat(dir, "/", hname);
  char *spath = build_cat(dir, "/", name);
  char *spath2 = build_cat(spath, t == TARGET_CUDA ? ".cu" : ".c", "");
  /* Both written whole before either is put in place: a source that fails (a full disk, ulimit
   * -f) left the new header beside the old source, a pair that does not compile together. */
  OutFile h, src;
  bool ok = out_open(&h, hpath);
  if (ok && !out_open(&src, spath2)) ok = false, out_close(&h, false);
  if (ok) {
    write_header(h.f, p, eo, hname);
    (t == TARGET_CUDA ? write_cu : write_c)(src.f, p, eo, hname);
    OutFile *bad = fflush(h.f) != 0 || ferror(h.f) ? &h : fflush(src.f) != 0 || ferror(src.f) ? &src : NULL;
    if (bad) fprintf(stderr, "gnnc: cannot write '%s': %s\n", bad->path, strerror(errno ? errno : EIO));
    ok = out_close(&h, !bad);
    ok = out_close(&src, ok) && ok;
  }
  free(hname);
  free(hpath);
  free(spath);
  free(spath2);
  return ok;
}

/* ---------------------------------------------------------------- what one run writes */

/* Where a build puts its sources: the library's (or -o's) folder, and the name without the
 * extension (and a library's "lib": libgcn.so -> gcn.cu). */
static void source_place(const EmitOpts *eo, char **dir, char **name) {
  const char *e = eo->emit;
  if (!e) {
    *name = stem(eo->output, ".so");
    if (strncmp(*name, "lib", 3) == 0 && (*name)[3]) memmove(*name, *name + 3, strlen(*name + 3) + 1);
  } else {
    *name = stem(eo->output, strcmp(e, "cu") == 0 ? ".cu" : ".c"); /* main.c refuses any other -o */
  }
  *dir = dir_of(eo->output);
}

static char *printf_alloc(const char *fmt, const char *a, const char *b, const char *c) {
  int n = snprintf(NULL, 0, fmt, a, b, c);
  char *s = malloc((size_t)n + 1);
  if (s) snprintf(s, (size_t)n + 1, fmt, a, b, c);
  return s;
}

static void add_file(RunFile *files, int *n, char *path, const char *role, const char *output) {
  files[*n].path = path;
  files[*n].what = role ? printf_alloc("the %s '%s' that -o '%s' writes beside it", role, path, output)
                        : printf_alloc("-o '%s'%s%s", output, "", "");
  (*n)++;
}

void emit_outputs(const EmitOpts *eo, RunFile *files, int *n) {
  const char *e = eo->emit;
  if (!eo->output) return; /* stdout */
  if (e && (strcmp(e, "kir") == 0 || strcmp(e, "h") == 0)) {
    add_file(files, n, strdup(eo->output), NULL, eo->output);
    return;
  }
  char *dir, *name;
  source_place(eo, &dir, &name);
  char *base = build_cat(dir, "/", name);
  bool cuda = e ? strcmp(e, "cu") == 0 : eo->target == TARGET_CUDA;
  if (!e) add_file(files, n, strdup(eo->output), NULL, eo->output);
  if (e || eo->keep) { /* without -S a library's sources go to a private temporary folder */
    add_file(files, n, build_cat(base, ".h", ""), "header", eo->output);
    add_file(files, n, build_cat(base, cuda ? ".cu" : ".c", ""), "source", eo->output);
  }
  free(base), free(dir), free(name);
}

bool emit_output_named(const char *emit, const char *output) {
  /* A name without the extension (-o src.txt, -o /dev/null, -o x.so) wrote src.txt.c and
   * src.txt.h, files the user never named (/dev/null.c, as root, in /dev), and exited 0. */
  if (strcmp(emit, "c") != 0 && strcmp(emit, "cu") != 0) return true;
  const char *ext = strcmp(emit, "c") == 0 ? ".c" : ".cu", *base = strrchr(output, '/');
  base = base ? base + 1 : output;
  size_t bl = strlen(base), el = strlen(ext);
  if (bl > el && strcmp(base + bl - el, ext) == 0) return true;
  fprintf(stderr, "gnnc: error: -o '%s' with --emit=%s must name a %s file: the source goes there and its header "
          "beside it, with .h in place of %s (-o model%s writes model%s and model.h; without -o, one file on standard output)\n",
          output, emit, ext, ext, ext, ext);
  return false;
}

bool files_safe(const RunFile *reads, int nreads, const RunFile *writes, int nwrites) {
  for (int w = 0; w < nwrites; w++) {
    for (int r = 0; r < nreads; r++) {
      if (!reads[r].path) continue;
      if (reads[r].what && gnn_dataset_file(writes[w].path, reads[r].path)) {
        fprintf(stderr, "gnnc: error: %s is a file of the dataset folder %s '%s': writing it would destroy the dataset; "
                "give another path\n", writes[w].what, reads[r].what, reads[r].path);
        return false;
      }
      if (!gnn_same_file(writes[w].path, reads[r].path)) continue;
      if (!reads[r].what)
        fprintf(stderr, "gnnc: error: %s is the input file: writing it would destroy the source\n", writes[w].what);
      else
        fprintf(stderr, "gnnc: error: %s is the file %s reads: writing it would destroy it\n", writes[w].what, reads[r].what);
      return false;
    }
    for (int k = 0; k < w; k++)
      if (gnn_same_file(writes[w].path, writes[k].path)) {
        fprintf(stderr, "gnnc: error: %s and %s are the same file: the one would overwrite the other\n", writes[k].what,
                writes[w].what);
        return false;
      }
  }
  return true;
}

void run_files_free(RunFile *files, int n) {
  for (int i = 0; i < n; i++) free(files[i].path), free(files[i].what);
}

/* ---------------------------------------------------------------- finding the runtime */

char *gnnc_exe_dir(void) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = 0;
  return dir_of(buf);
}

/* Sets *inc and *lib (malloc'ed) to the runtime's header and library folders. The places, in
 * order: GNNC_RUNTIME_INCLUDE and GNNC_RUNTIME_LIB; then relative to the gnnc executable, as gcc
 * and clang find their own files, so that a tree built on one machine and copied to another
 * folder (make gpu-check on a GPU machine, docs/gpu.md) still finds its runtime: an installed
 * tree (bin/gnnc: ../include, ../lib), the build tree (build/gnnc: ../runtime, lib; the sanitizer
 * build's build/asan/gnnc: ../../runtime, ../lib); last, the source tree gnnc was compiled in
 * (an absolute path, the one place that does not move with the tree). */
static bool find_runtime(Target t, char **inc, char **lib) {
  const char *libname = t == TARGET_CUDA ? "/libgnnrt.so" : "/libgnnrt_host.so";
  const char *ei = getenv("GNNC_RUNTIME_INCLUDE"), *el = getenv("GNNC_RUNTIME_LIB");
  enum { NPLACES = 5 };
  char *candidates_inc[NPLACES] = {ei ? strdup(ei) : NULL, NULL, NULL, NULL, strdup(GNNC_SOURCE_RUNTIME_DIR)};
  char *candidates_lib[NPLACES] = {el ? strdup(el) : NULL, NULL, NULL, NULL, strdup(GNNC_SOURCE_LIB_DIR)};
  char *ed = gnnc_exe_dir();
  if (ed) {
    candidates_inc[1] = build_cat(ed, "/../include", "");
    candidates_lib[1] = build_cat(ed, "/../lib", "");
    candidates_inc[2] = build_cat(ed, "/../runtime", "");
    candidates_lib[2] = build_cat(ed, "/lib", "");
    candidates_inc[3] = build_cat(ed, "/../../runtime", "");
    candidates_lib[3] = build_cat(ed, "/../lib", "");
    free(ed);
  }
  *inc = *lib = NULL;
  for (int i = 0; i < NPLACES && !*inc; i++) {
    if (!candidates_inc[i] || !candidates_lib[i]) continue;
    char *h = build_cat(candidates_inc[i], "/gnn_model.h", ""), *l = build_cat(candidates_lib[i], libname, "");
    if (build_exists(h) && build_exists(l)) {
      *inc = realpath(candidates_inc[i], NULL);
      *lib = realpath(candidates_lib[i], NULL);
    }
    free(h);
    free(l);
  }
  for (int i = 0; i < NPLACES; i++) {
    free(candidates_inc[i]);
    free(candidates_lib[i]);
  }
  if (!*inc || !*lib) {
    fprintf(stderr, "gnnc: cannot find the runtime (gnnrt.h and %s): build it with 'make runtime', or set "
                    "GNNC_RUNTIME_INCLUDE and GNNC_RUNTIME_LIB\n", libname + 1);
    free(*inc), free(*lib);
    *inc = *lib = NULL;
    return false;
  }
  return true;
}


/* The nvcc words of a CUDA library: -gencode for each --arch, and the PTX of the last. */
static int cuda_gencodes(const char *arch_list, char *gencode[8]) {
  int ngen = 0;
  /* SASS for each listed architecture, and the PTX of the last one as well, which the driver
   * compiles at load time for a newer GPU: without it, a library built for sm_80 (the
   * default) fails on an H100 (sm_90) with "no kernel image is available". */
  char *arches = strdup(arch_list ? arch_list : "sm_80");
  for (char *a = strtok(arches, ","); a && ngen < 7; a = strtok(NULL, ",")) {
    const char *num = strncmp(a, "sm_", 3) == 0 ? a + 3 : a;
    gencode[ngen] = malloc(64);
    snprintf(gencode[ngen], 64, "-gencode=arch=compute_%s,code=sm_%s", num, num);
    ngen++;
  }
  if (ngen > 0) {
    const char *last = strrchr(gencode[ngen - 1], '_') + 1; /* the NN of "code=sm_NN" */
    char *ptx = malloc(96);
    snprintf(ptx, 96, "-gencode=arch=compute_%s,code=compute_%s", last, last);
    gencode[ngen++] = ptx;
  }
  free(arches);
  return ngen;
}

/* Splits GNNC_HOST_CFLAGS / GNNC_NVCC_FLAGS at spaces onto argv after n words (malloc'ed copy in *keep). */
static int add_env_flags(char **argv, int n, int max, const char *var, char **keep) {
  const char *v = getenv(var);
  *keep = v ? strdup(v) : NULL;
  for (char *t = *keep ? strtok(*keep, " ") : NULL; t && n < max; t = strtok(NULL, " ")) argv[n++] = t;
  return n;
}

/* nvcc twice: the object (device and host code; the slow part, cached), then the shared library
 * (host link only) against libgnnrt and cuBLAS. */
static bool build_cuda_library(const EmitOpts *eo, const char *inc, const char *lib, const char *dir, const char *name,
                               const char *outtmp) {
  /* the object under this process's name: with -S, dir is the library's folder, which another
   * gnnc building the same library at once shares (the object is removed after the link) */
  char opid[40];
  snprintf(opid, sizeof opid, ".%ld.o", (long)getpid());
  char *src = build_cat(dir, "/", name), *srcf = build_cat(src, ".cu", ""), *hdrf = build_cat(src, ".h", ""), *obj = build_cat(src, opid, "");
  char *incflag = build_cat("-I", inc, ""), *libflag = build_cat("-L", lib, ""), *rpath = build_cat("-rpath,", lib, "");
  char *gencode[8], *extra_c = NULL, *extra_l = NULL;
  int ngen = cuda_gencodes(eo->arch, gencode);
  char *argv[64];
  int n = 0;
  argv[n++] = "nvcc";
  argv[n++] = "-O3";
  argv[n++] = "-std=c++17";
  for (int i = 0; i < ngen; i++) argv[n++] = gencode[i];
  argv[n++] = "-Xcompiler";
  argv[n++] = "-fPIC";
  argv[n++] = "-DGNNC_MODEL_ENTRY"; /* the library exports gnn_model_entry for the drivers */
  argv[n++] = incflag;
  argv[n++] = "-c";
  argv[n++] = srcf;
  argv[n++] = "-o";
  argv[n++] = obj;
  n = add_env_flags(argv, n, 60, "GNNC_NVCC_FLAGS", &extra_c);
  argv[n] = NULL;
  char *paths[] = {incflag, srcf, obj, NULL};
  bool ok = build_cuda_object(argv, paths, inc, srcf, hdrf, obj, name, eo->verbose);
  if (ok) {
    n = 0;
    argv[n++] = "nvcc";
    argv[n++] = "-shared";
    /* the CUDA runtime libgnnrt.so and cuBLAS use, not a private static copy: one last-error
     * state and one current device for the whole process */
    argv[n++] = "-cudart";
    argv[n++] = "shared";
    argv[n++] = obj;
    argv[n++] = "-o";
    argv[n++] = (char *)outtmp;
    argv[n++] = libflag;
    argv[n++] = "-lgnnrt";
    argv[n++] = "-lcublas";
    argv[n++] = "-Xlinker";
    argv[n++] = rpath;
    n = add_env_flags(argv, n, 60, "GNNC_NVCC_FLAGS", &extra_l);
    argv[n] = NULL;
    ok = build_run(argv, eo->verbose);
  }
  remove(obj);
  for (int i = 0; i < ngen; i++) free(gencode[i]);
  free(extra_c), free(extra_l);
  free(src), free(srcf), free(hdrf), free(obj), free(incflag), free(libflag), free(rpath);
  return ok;
}

/* cc once: the host C source into a shared library against libgnnrt_host and OpenBLAS. */
/* GCC's major version when cc is GCC (not clang, which defines __GNUC__ too), else 0: from its
 * predefined macros, one preprocessor run. */
static int gcc_major(const char *cc) {
  char *cmd = build_cat(cc, " -dM -E -x c /dev/null 2>/dev/null", "");
  FILE *f = popen(cmd, "r");
  free(cmd);
  if (!f) return 0;
  char line[256];
  int major = 0;
  bool clang = false;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "#define __clang__ ", 18) == 0) clang = true;
    if (strncmp(line, "#define __GNUC__ ", 17) == 0) major = atoi(line + 17);
  }
  pclose(f);
  return clang ? 0 : major;
}

static bool build_host_library(const EmitOpts *eo, const char *inc, const char *lib, const char *srcf, const char *outtmp,
                               const char *name) {
  char *march = build_cat("-march=", eo->host_march ? eo->host_march : "native", "");
  char *incflag = build_cat("-I", inc, ""), *libflag = build_cat("-L", lib, ""), *rpath = build_cat("-Wl,-rpath,", lib, "");
  char *argv[64], *extra = NULL;
  int n = 0;
  const char *cc = getenv("CC");
  argv[n++] = (char *)(cc && *cc ? cc : "cc");
  /* -O3 and the building CPU's vector units: the element-wise kernels (dropout, epilogues,
   * the lanes of a walk) vectorise, 4-25x over -O2 for x86-64 (docs/benchmarks.md). No FMA
   * contraction (clang's default otherwise), so results match -O2's and the interpreter's
   * rounding as before; float sums are not reassociated (no -ffast-math). The GCC 12 -O3
   * workaround is a pragma in the generated source (emit_host.c). */
  argv[n++] = "-O3";
  if (!eo->host_march || strcmp(eo->host_march, "portable") != 0) argv[n++] = march;
  argv[n++] = "-ffp-contract=off";
  /* GCC 12's vectoriser, where the tuning favours gathers (-march=native on Zen 3: znver3), gave
   * a masked gather (vgatherqps) a mask register it had just overwritten with an index, so the
   * gather loaded nothing and a backward walk of GAT summed stale values: gradients wrong by
   * their own size (tests/codegen/edge_lanes.gnn; -mtune=generic, clang, or no gathers are
   * right). No gathers for GCC 12; the generated code's own loops read rows, where gathers buy
   * little. */
  if (gcc_major(argv[0]) == 12) argv[n++] = "-mtune-ctrl=^use_gather_2parts,^use_gather_4parts,^use_gather";
  argv[n++] = "-std=c11";
  argv[n++] = "-fopenmp";
  argv[n++] = "-fPIC";
  argv[n++] = "-shared";
  argv[n++] = "-DGNNC_MODEL_ENTRY";
  argv[n++] = incflag;
  argv[n++] = (char *)srcf;
  argv[n++] = "-o";
  argv[n++] = (char *)outtmp;
  argv[n++] = libflag;
  argv[n++] = "-lgnnrt_host";
  argv[n++] = "-lopenblas";
  argv[n++] = "-lm";
  argv[n++] = rpath;
  n = add_env_flags(argv, n, 60, "GNNC_HOST_CFLAGS", &extra); /* after ours */
  argv[n] = NULL;
  bool ok = build_host_cached(argv, inc, srcf, outtmp, name, eo->verbose);
  free(extra), free(march), free(incflag), free(libflag), free(rpath);
  return ok;
}

static bool build_library(const KProgram *p, const EmitOpts *eo) {
  const char *out = eo->output;
  char *inc = NULL, *lib = NULL;
  if (!find_runtime(eo->target, &inc, &lib)) return false;
  /* sources: beside the library with -S, else in a private temporary folder */
  char *name, *dir;
  source_place(eo, &dir, &name);
  char tmpl[] = "/tmp/gnnc-XXXXXX";
  if (!eo->keep) {
    free(dir);
    dir = NULL;
    if (!mkdtemp(tmpl)) {
      fprintf(stderr, "gnnc: cannot make a temporary folder: %s\n", strerror(errno));
      free(inc), free(lib), free(name);
      return false;
    }
    dir = strdup(tmpl);
  }
  bool cuda = eo->target == TARGET_CUDA;
  bool ok = write_sources(p, eo, eo->target, dir, name);
  char *src = build_cat(dir, "/", name), *srcf = build_cat(src, cuda ? ".cu" : ".c", "");
  char *outtmp = tmp_name(out);
  if (ok) ok = cuda ? build_cuda_library(eo, inc, lib, dir, name, outtmp) : build_host_library(eo, inc, lib, srcf, outtmp, name);
  if (ok && rename(outtmp, out) != 0) {
    fprintf(stderr, "gnnc: cannot write '%s': %s\n", out, strerror(errno));
    ok = false;
  }
  if (!ok) remove(outtmp);
  if (!eo->keep) { /* the temporary sources go */
    char *h = build_cat(src, ".h", "");
    remove(srcf);
    remove(h);
    rmdir(dir);
    free(h);
  }
  free(inc), free(lib), free(name), free(dir), free(src), free(srcf), free(outtmp);
  return ok;
}

/* ---------------------------------------------------------------- the entry point */

static void write_kir(FILE *out, const KProgram *p, const EmitOpts *eo, const char *h) {
  (void)eo, (void)h;
  kir_print(out, p);
}

bool gnn_emit(const KProgram *p, const EmitOpts *eo) {
  const char *e = eo->emit;
  if (!e) return build_library(p, eo);
  if (strcmp(e, "kir") == 0) {
    if (!eo->output) {
      kir_print(stdout, p);
      return true;
    }
    return write_file(eo->output, write_kir, p, eo, NULL);
  }
  Target t = strcmp(e, "cu") == 0 ? TARGET_CUDA : TARGET_HOST;
  if (!eo->output) { /* stdout: the header alone, or the source with its header inlined */
    if (strcmp(e, "h") == 0) emit_header(stdout, p, eo->src_name);
    else emit_source(stdout, p, t == TARGET_CUDA ? &emit_cuda_hooks : &emit_host_hooks, eo->src_name, NULL);
    return fflush(stdout) == 0 && !ferror(stdout);
  }
  char *dir, *name;
  source_place(eo, &dir, &name);
  bool ok;
  if (strcmp(e, "h") == 0) { /* the header alone: one file, written where -o says (d.c got d.c.h) */
    ok = write_file(eo->output, write_header, p, eo, NULL);
  } else {
    ok = write_sources(p, eo, t, dir, name);
  }
  free(dir);
  free(name);
  return ok;
}
