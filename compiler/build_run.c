/* build_run.c -- running the compilers that build a model's library, and their caches.
 *
 * A CUDA library is two nvcc runs: the object (the slow part), then the link. GNNC_CUDA_CACHE=DIR
 * keeps the objects under a hash of their inputs that names no path, so a tree built and warmed
 * on a machine without a GPU builds its CUDA libraries on a GPU machine without nvcc's compile
 * (make gpu-check-prepare, docs/gpu.md). A host library is one cc run (compile and link):
 * GNNC_HOST_CACHE=DIR keeps the library itself under a hash of everything that decides it, paths
 * included (the library records the runtime's folder as its rpath) and, for -march=native, this
 * machine's CPU. The tests share one of each between their shards and between make test and make
 * test-asan, whose gnnc builds are the same compiles (tests/run.sh).
 */
#include "build_run.h"
#include "sha256.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

bool build_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

char *build_cat(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%s%s%s", a, b, c);
  return s;
}

/* Runs argv, waits; true on exit status 0. The command line is echoed with -v. With capture, the
 * command's standard output and error go to that file, copied to stderr when it ends (*printed:
 * whether there was any). */
static bool run_to(char **argv, bool verbose, FILE *capture, bool *printed) {
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
    if (capture) dup2(fileno(capture), 1), dup2(fileno(capture), 2);
    execvp(argv[0], argv);
    fprintf(stderr, "gnnc: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  if (capture) {
    fflush(capture);
    long n = ftell(capture);
    *printed = n != 0;
    char buf[4096];
    size_t k;
    rewind(capture);
    while ((k = fread(buf, 1, sizeof buf, capture)) > 0) fwrite(buf, 1, k, stderr);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  fprintf(stderr, "gnnc: '%s' failed (%s %d)\n", argv[0], WIFEXITED(status) ? "exit status" : "signal",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  return false;
}

bool build_run(char **argv, bool verbose) { return run_to(argv, verbose, NULL, NULL); }

/* build_run for a cache's miss: *quiet is true when the command printed nothing, which alone
 * makes its result fit to keep (a hit prints nothing: a compile that warned must warn again).
 * What it printed is passed on to stderr. */
static bool run_for_cache(char **argv, bool verbose, bool *quiet) {
  FILE *t = tmpfile();
  bool printed = true;
  bool ok = t ? run_to(argv, verbose, t, &printed) : build_run(argv, verbose);
  if (t) fclose(t);
  *quiet = !printed;
  return ok;
}

/* A cache hit: with -v, where the result came from and the command it stands in for (which did
 * not run); the entry's time renewed (tests/run.sh removes entries unused for a day). */
static void cache_hit(char **argv, const char *cached, const char *var, const char *what, bool verbose) {
  if (verbose) {
    fprintf(stderr, "gnnc: %s from %s (%s), in place of:", what, cached, var);
    for (char **a = argv; *a; a++) fprintf(stderr, " %s", *a);
    fputc('\n', stderr);
  }
  (void)utimes(cached, NULL);
}

/* ---------------------------------------------------------------- the CUDA object cache
 * GNNC_CUDA_CACHE=DIR keeps nvcc's work, the model's object file, under the SHA-256 of everything
 * that decides it: a format tag, nvcc's release ("release 13.0": objects of one release link
 * with any of its builds), the compile arguments less their paths (-I, the source, -o), the .cu
 * and its .h as written, and the runtime headers they include, by content. So the key names no
 * folder: a GPU machine reuses what `make gpu-check-prepare` compiled on a machine without one,
 * in another tree, and spends no GPU time in nvcc (docs/gpu.md). The link (host only, under a
 * second) always runs here, with this machine's paths. A hit or miss is appended to DIR/log. */

/* Appends the file's bytes to s; false if it cannot be read. */
static bool hash_file(Sha256 *s, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sha256_update(s, buf, n);
  bool ok = !ferror(f);
  fclose(f);
  return ok;
}

static void hash_str(Sha256 *s, const char *str) { sha256_update(s, str, strlen(str) + 1); }

/* nvcc's "release X.Y" (malloc'ed), or NULL when nvcc does not answer. */
static char *nvcc_release(void) {
  FILE *f = popen("nvcc --version 2>/dev/null", "r");
  if (!f) return NULL;
  char line[512], *rel = NULL;
  while (fgets(line, sizeof line, f)) {
    char *r = strstr(line, "release ");
    if (r && !rel) {
      size_t n = strcspn(r, ",\n");
      rel = strndup(r, n);
    }
  }
  pclose(f);
  return rel;
}

/* The cache key of the object that compile_argv makes (argv: nvcc's words; skip: the words that
 * are paths, left out), or false when the cache cannot be used. */
static bool cuda_cache_key(char **argv, char **skip, const char *inc, const char *src, const char *hdr, char key[65]) {
  char *rel = nvcc_release();
  if (!rel) return false;
  Sha256 s;
  sha256_init(&s);
  hash_str(&s, "gnnc-cuda-object 1");
  hash_str(&s, rel);
  free(rel);
  for (char **a = argv; *a; a++) {
    bool path = false;
    for (char **k = skip; *k; k++) path |= *a == *k;
    if (!path) hash_str(&s, *a);
  }
  bool ok = hash_file(&s, src) && hash_file(&s, hdr);
  static const char *rt_headers[] = {"gnn_model.h", "gnnrt.h", "gnnrt_rng.h"};
  for (size_t i = 0; ok && i < sizeof rt_headers / sizeof *rt_headers; i++) {
    char *h = build_cat(inc, "/", rt_headers[i]);
    ok = hash_file(&s, h);
    free(h);
  }
  sha256_hex(&s, key);
  return ok;
}

static bool copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  bool ok = in && out;
  char buf[65536];
  size_t n;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  ok = ok && !ferror(in);
  if (in) fclose(in);
  if (out) ok &= fclose(out) == 0;
  return ok;
}

static void cache_log(const char *dir, const char *what, const char *key, const char *name) {
  char *path = build_cat(dir, "/log", "");
  FILE *f = fopen(path, "a");
  if (f) {
    fprintf(f, "%s %s %s\n", what, key, name);
    fclose(f);
  }
  free(path);
}

/* The file made that argv makes, from the cache dir under key: a hit copies dir/key.ext (mode: the
 * copy's permissions, 0 to leave them); a miss runs argv and keeps what it made when it printed
 * nothing (a temporary name, then rename: concurrent builds of one key each store a whole file).
 * var, what: the cache's variable and what it keeps, for -v. */
static bool cached_run(char **argv, const char *dir, const char *key, const char *ext, const char *made, mode_t mode,
                       const char *var, const char *what, const char *name, bool verbose) {
  mkdir(dir, 0777); /* an error shows below: a cache that cannot be written is no error */
  char *cached = build_cat(dir, "/", key), *file = build_cat(cached, ext, "");
  bool ok;
  if (build_exists(file) && copy_file(file, made) && (!mode || chmod(made, mode) == 0)) {
    cache_hit(argv, file, var, what, verbose);
    cache_log(dir, "hit", key, name);
    ok = true;
  } else {
    bool quiet;
    ok = run_for_cache(argv, verbose, &quiet);
    cache_log(dir, !ok ? "miss-failed" : quiet ? "miss" : "miss-printed", key, name);
    if (ok && quiet) {
      char tmp[64];
      snprintf(tmp, sizeof tmp, ".%ld.tmp", (long)getpid());
      char *t = build_cat(file, tmp, "");
      if (!copy_file(made, t) || rename(t, file) != 0) remove(t);
      free(t);
    }
  }
  free(cached);
  free(file);
  return ok;
}

bool build_cuda_object(char **argv, char **skip, const char *inc, const char *src, const char *hdr, const char *obj,
                       const char *name, bool verbose) {
  const char *dir = getenv("GNNC_CUDA_CACHE");
  char key[65];
  if (!dir || !*dir || !cuda_cache_key(argv, skip, inc, src, hdr, key)) return build_run(argv, verbose);
  return cached_run(argv, dir, key, ".o", obj, 0, "GNNC_CUDA_CACHE", "the CUDA object", name, verbose);
}


/* ---------------------------------------------------------------- the host library cache */

/* Appends a command's whole output (stdout) to s: the compiler's identity. False if it fails. */
static bool hash_command(Sha256 *s, const char *cmd) {
  FILE *f = popen(cmd, "r");
  if (!f) return false;
  char buf[4096];
  size_t n, total = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sha256_update(s, buf, n), total += n;
  return pclose(f) == 0 && total > 0;
}

/* Appends the lines of /proc/cpuinfo that name this CPU and its instruction sets (the first
 * processor's "model name" and "flags"): what -march=native compiles for. False if unreadable. */
static bool hash_cpu(Sha256 *s) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return false;
  char line[8192];
  int found = 0;
  while (found < 2 && fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0 || strncmp(line, "flags", 5) == 0) sha256_update(s, line, strlen(line)), found++;
  fclose(f);
  return found == 2;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends every .h of dir, by name and content in name order (the runtime's headers: whichever
 * the generated source includes). False if the folder cannot be read. */
static bool hash_headers(Sha256 *s, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return false;
  char **names = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  for (struct dirent *e; ok && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".h") != 0) continue;
    if (n == cap) {
      char **grown = realloc(names, sizeof *names * (cap = cap ? cap * 2 : 64));
      if (!grown) ok = false;
      else names = grown;
    }
    if (ok && !(names[n++] = strdup(e->d_name))) ok = false, n--;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, str_cmp);
  for (size_t i = 0; i < n; i++) {
    if (ok) {
      char *path = build_cat(dir, "/", names[i]);
      hash_str(s, names[i]);
      ok = hash_file(s, path);
      free(path);
    }
    free(names[i]);
  }
  free(names);
  return ok;
}

/* The key of the library that argv makes from src (argv's words but src and out, the compiler's
 * --version, the CPU under -march=native, the source and the header beside it, the runtime's
 * headers in inc), or false when the cache cannot be used. */
static bool host_cache_key(char **argv, const char *src, const char *out, const char *inc, char key[65]) {
  Sha256 s;
  sha256_init(&s);
  hash_str(&s, "gnnc-host-library 1");
  bool ok = true, native = false;
  for (char **a = argv; *a; a++) {
    if (*a == src || *a == out) continue;
    hash_str(&s, *a);
    native |= strcmp(*a, "-march=native") == 0;
  }
  char *version = build_cat("'", argv[0], "' --version 2>/dev/null");
  ok = !strchr(argv[0], '\'') && hash_command(&s, version);
  free(version);
  if (ok && native) ok = hash_cpu(&s);
  ok = ok && hash_file(&s, src);
  size_t n = strlen(src);
  char *hdr = build_cat(src, "", "");
  if (n > 2 && strcmp(hdr + n - 2, ".c") == 0) {
    hdr[n - 1] = 'h';
    if (build_exists(hdr)) ok = ok && hash_file(&s, hdr);
  }
  free(hdr);
  ok = ok && hash_headers(&s, inc);
  sha256_hex(&s, key);
  return ok;
}

bool build_host_cached(char **argv, const char *inc, const char *src, const char *out, const char *name, bool verbose) {
  const char *dir = getenv("GNNC_HOST_CACHE");
  char key[65];
  if (!dir || !*dir || !host_cache_key(argv, src, out, inc, key)) return build_run(argv, verbose);
  return cached_run(argv, dir, key, ".so", out, 0755, "GNNC_HOST_CACHE", "the host library", name, verbose);
}
