/* build.c -- writing the generated sources, and building a model's shared library.
 *
 *   gnnc model.gnn --emit=kir [-o F]        the kernel IR (stdout by default)
 *   gnnc model.gnn --emit=cu  [-o F.cu]     CUDA source + its header F.h (without -o: one file on
 *                                           stdout, the header inlined where the source includes it)
 *   gnnc model.gnn --emit=c   [-o F.c]      host C source + its header (the same)
 *   gnnc model.gnn --emit=h   [-o F.h]      the header alone (the same for both targets; stdout)
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
 * GNNC_RUNTIME_LIB, else beside the gnnc executable (an installed tree: ../include, ../lib),
 * else in the source tree gnnc was built from.
 */
#include "gnnc.h"

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

static bool exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

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

static char *cat(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%s%s%s", a, b, c);
  return s;
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

/* Writes one file atomically (a temporary name, then rename). */
static bool write_file(const char *path, Writer w, const KProgram *p, const EmitOpts *eo, const char *header_name) {
  char *tmp = cat(path, ".tmp", "");
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "gnnc: cannot write '%s': %s\n", path, strerror(errno));
    free(tmp);
    return false;
  }
  w(f, p, eo, header_name);
  bool bad = ferror(f) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, "gnnc: cannot write '%s': %s\n", path, strerror(errno));
    remove(tmp);
    free(tmp);
    return false;
  }
  free(tmp);
  return true;
}

/* The source and its header: name.cu|c and name.h in dir. */
static bool write_sources(const KProgram *p, const EmitOpts *eo, Target t, const char *dir, const char *name) {
  char *hname = cat(name, ".h", "");
  char *hpath = cat(dir, "/", hname);
  char *spath = cat(dir, "/", name);
  char *spath2 = cat(spath, t == TARGET_CUDA ? ".cu" : ".c", "");
  bool ok = write_file(hpath, write_header, p, eo, hname) &&
            write_file(spath2, t == TARGET_CUDA ? write_cu : write_c, p, eo, hname);
  free(hname);
  free(hpath);
  free(spath);
  free(spath2);
  return ok;
}

/* ---------------------------------------------------------------- finding the runtime */

char *gnnc_exe_dir(void) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = 0;
  return dir_of(buf);
}

/* Sets *inc and *lib (malloc'ed) to the runtime's header and library folders. */
static bool find_runtime(Target t, char **inc, char **lib) {
  const char *libname = t == TARGET_CUDA ? "/libgnnrt.so" : "/libgnnrt_host.so";
  const char *ei = getenv("GNNC_RUNTIME_INCLUDE"), *el = getenv("GNNC_RUNTIME_LIB");
  char *candidates_inc[3] = {ei ? strdup(ei) : NULL, NULL, strdup(GNNC_SOURCE_RUNTIME_DIR)};
  char *candidates_lib[3] = {el ? strdup(el) : NULL, NULL, strdup(GNNC_SOURCE_LIB_DIR)};
  char *ed = gnnc_exe_dir();
  if (ed) {
    candidates_inc[1] = cat(ed, "/../include", "");
    candidates_lib[1] = cat(ed, "/../lib", "");
    free(ed);
  }
  *inc = *lib = NULL;
  for (int i = 0; i < 3 && !*inc; i++) {
    if (!candidates_inc[i] || !candidates_lib[i]) continue;
    char *h = cat(candidates_inc[i], "/gnn_model.h", ""), *l = cat(candidates_lib[i], libname, "");
    if (exists(h) && exists(l)) {
      *inc = strdup(candidates_inc[i]);
      *lib = strdup(candidates_lib[i]);
    }
    free(h);
    free(l);
  }
  for (int i = 0; i < 3; i++) {
    free(candidates_inc[i]);
    free(candidates_lib[i]);
  }
  if (!*inc)
    fprintf(stderr, "gnnc: cannot find the runtime (gnnrt.h and %s): build it with 'make runtime', or set "
                    "GNNC_RUNTIME_INCLUDE and GNNC_RUNTIME_LIB\n", libname + 1);
  return *inc != NULL;
}

/* Runs argv, waits; true on exit status 0. The command line is echoed with -v. */
static bool run(char **argv, bool verbose) {
  if (verbose) {
    for (char **a = argv; *a; a++) fprintf(stderr, "%s%s", a == argv ? "" : " ", *a);
    fputc('\n', stderr);
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gnnc: cannot start '%s': %s\n", argv[0], strerror(errno));
    return false;
  }
  if (pid == 0) {
    execvp(argv[0], argv);
    fprintf(stderr, "gnnc: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  fprintf(stderr, "gnnc: '%s' failed (%s %d)\n", argv[0], WIFEXITED(status) ? "exit status" : "signal",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  return false;
}

static bool build_library(const KProgram *p, const EmitOpts *eo) {
  const char *out = eo->output;
  char *inc = NULL, *lib = NULL;
  if (!find_runtime(eo->target, &inc, &lib)) return false;
  /* sources: beside the library with -S, else in a private temporary folder */
  char *name = stem(out, ".so");
  if (strncmp(name, "lib", 3) == 0 && name[3]) memmove(name, name + 3, strlen(name + 3) + 1);
  char *dir = NULL;
  char tmpl[] = "/tmp/gnnc-XXXXXX";
  if (eo->keep) {
    dir = dir_of(out);
  } else {
    if (!mkdtemp(tmpl)) {
      fprintf(stderr, "gnnc: cannot make a temporary folder: %s\n", strerror(errno));
      free(inc), free(lib), free(name);
      return false;
    }
    dir = strdup(tmpl);
  }
  bool cuda = eo->target == TARGET_CUDA;
  bool ok = write_sources(p, eo, eo->target, dir, name);
  char *src = cat(dir, "/", name), *srcf = cat(src, cuda ? ".cu" : ".c", "");
  char *outtmp = cat(out, ".tmp", "");
  char *march = cat("-march=", eo->host_march ? eo->host_march : "native", "");
  char *incflag = cat("-I", inc, ""), *libflag = cat("-L", lib, ""), *rpath = cat(cuda ? "-rpath," : "-Wl,-rpath,", lib, "");
  char *argv[64];
  int n = 0;
  char *gencode[8];
  int ngen = 0;
  if (ok && cuda) {
    argv[n++] = "nvcc";
    argv[n++] = "-O3";
    argv[n++] = "-std=c++17";
    /* SASS for each listed architecture, and the PTX of the last one as well, which the driver
     * compiles at load time for a newer GPU: without it, a library built for sm_80 (the
     * default) fails on an H100 (sm_90) with "no kernel image is available". */
    char *arches = strdup(eo->arch ? eo->arch : "sm_80");
    for (char *a = strtok(arches, ","); a && ngen < 7; a = strtok(NULL, ",")) {
      const char *num = strncmp(a, "sm_", 3) == 0 ? a + 3 : a;
      gencode[ngen] = malloc(64);
      snprintf(gencode[ngen], 64, "-gencode=arch=compute_%s,code=sm_%s", num, num);
      argv[n++] = gencode[ngen++];
    }
    if (ngen > 0) {
      const char *last = strrchr(gencode[ngen - 1], '_') + 1; /* the NN of "code=sm_NN" */
      char *ptx = malloc(96);
      snprintf(ptx, 96, "-gencode=arch=compute_%s,code=compute_%s", last, last);
      gencode[ngen] = ptx;
      argv[n++] = gencode[ngen++];
    }
    free(arches);
    argv[n++] = "-Xcompiler";
    argv[n++] = "-fPIC";
    argv[n++] = "-shared";
    /* the CUDA runtime libgnnrt.so and cuBLAS use, not a private static copy: one last-error
     * state and one current device for the whole process */
    argv[n++] = "-cudart";
    argv[n++] = "shared";
    argv[n++] = "-DGNNC_MODEL_ENTRY"; /* the library exports gnn_model_entry for the drivers */
    argv[n++] = incflag;
    argv[n++] = srcf;
    argv[n++] = "-o";
    argv[n++] = outtmp;
    argv[n++] = libflag;
    argv[n++] = "-lgnnrt";
    argv[n++] = "-lcublas";
    argv[n++] = "-Xlinker";
    argv[n++] = rpath;
  } else if (ok) {
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
    argv[n++] = "-std=c11";
    argv[n++] = "-fopenmp";
    argv[n++] = "-fPIC";
    argv[n++] = "-shared";
    argv[n++] = "-DGNNC_MODEL_ENTRY";
    argv[n++] = incflag;
    argv[n++] = srcf;
    argv[n++] = "-o";
    argv[n++] = outtmp;
    argv[n++] = libflag;
    argv[n++] = "-lgnnrt_host";
    argv[n++] = "-lopenblas";
    argv[n++] = "-lm";
    argv[n++] = rpath;
  }
  /* extra flags from the environment, after ours */
  char *extra = getenv(cuda ? "GNNC_NVCC_FLAGS" : "GNNC_HOST_CFLAGS") ? strdup(getenv(cuda ? "GNNC_NVCC_FLAGS" : "GNNC_HOST_CFLAGS")) : NULL;
  for (char *t = extra ? strtok(extra, " ") : NULL; t && n < 60; t = strtok(NULL, " ")) argv[n++] = t;
  argv[n] = NULL;
  if (ok) ok = run(argv, eo->verbose);
  free(extra);
  if (ok && rename(outtmp, out) != 0) {
    fprintf(stderr, "gnnc: cannot write '%s': %s\n", out, strerror(errno));
    ok = false;
  }
  if (!ok) remove(outtmp);
  if (!eo->keep) { /* the temporary sources go */
    char *h = cat(src, ".h", "");
    remove(srcf);
    remove(h);
    rmdir(dir);
    free(h);
  }
  for (int i = 0; i < ngen; i++) free(gencode[i]);
  free(inc), free(lib), free(name), free(dir), free(src), free(srcf), free(outtmp), free(incflag), free(march), free(libflag), free(rpath);
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
  const char *ext = strcmp(e, "cu") == 0 ? ".cu" : strcmp(e, "c") == 0 ? ".c" : ".h";
  char *dir = dir_of(eo->output);
  char *name = stem(eo->output, ext);
  bool ok;
  if (strcmp(e, "h") == 0) {
    char *hp = cat(dir, "/", name), *hpath = cat(hp, ".h", "");
    ok = write_file(hpath, write_header, p, eo, NULL);
    free(hp);
    free(hpath);
  } else {
    ok = write_sources(p, eo, t, dir, name);
  }
  free(dir);
  free(name);
  return ok;
}
