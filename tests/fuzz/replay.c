/* replay.c -- runs the fuzz target (fuzz_frontend.c) over files, without libFuzzer.
 *
 *   build/fuzz/replay [-timeout=N] PATH...
 *       each PATH is a file, or a directory whose regular files (not recursively; names
 *       starting with '.' are skipped) are replayed in name order. -timeout=N aborts, naming
 *       the input, if one input uses more than N seconds of CPU time (libFuzzer's -timeout counts
 *       wall time; on a shared machine of two cores under load an input of 3 s of CPU took 10 s
 *       of wall time, and the suite failed for the machine's load, not the input: the suite's
 *       own `timeout` still bounds the wall time).
 *
 * Built with ASan + UBSan (make build/fuzz/replay), so the seed corpus and the crash
 * reproducers in tests/fuzz/ run as regression tests with any compiler. A bug aborts the
 * process inside the target; otherwise it prints "replayed N inputs" and exits 0.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current; /* the input being replayed, for the timeout message */

static void say(const char *s) { /* async-signal-safe */
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

static void on_alarm(int sig) {
  (void)sig;
  say("replay: timeout: the input ran too long: ");
  say(current);
  say("\n");
  abort();
}

static unsigned timeout_s;

/* the CPU-time alarm (ITIMER_PROF: user + system time of the process), or off */
static void cpu_alarm(unsigned seconds) {
  struct itimerval t = {{0, 0}, {(time_t)seconds, 0}};
  setitimer(ITIMER_PROF, &t, NULL);
}

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    cap *= 2;
    buf = realloc(buf, cap);
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    fprintf(stderr, "replay: error reading '%s'\n", path);
    free(buf);
    return -1;
  }
  current = path;
  if (timeout_s) cpu_alarm(timeout_s);
  LLVMFuzzerTestOneInput(buf, n);
  if (timeout_s) cpu_alarm(0);
  free(buf);
  return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  long count = 0;
  int rc = 0;
  int first = 1;
  if (argc > 1 && strncmp(argv[1], "-timeout=", 9) == 0) {
    timeout_s = (unsigned)strtoul(argv[1] + 9, NULL, 10);
    signal(SIGPROF, on_alarm);
    first = 2;
  }
  if (argc <= first) {
    fprintf(stderr, "usage: replay [-timeout=N] FILE-OR-DIRECTORY...\n");
    return 2;
  }
  for (int i = first; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: '%s': %s\n", argv[i], strerror(errno));
      rc = 1;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (replay_file(argv[i]) == 0) count++;
      else rc = 1;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "replay: cannot open '%s': %s\n", argv[i], strerror(errno));
      rc = 1;
      continue;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] == '.') continue; /* ., .., .gitkeep */
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      char *p = malloc(len);
      snprintf(p, len, "%s/%s", argv[i], e->d_name);
      struct stat fs;
      if (stat(p, &fs) != 0 || !S_ISREG(fs.st_mode)) {
        free(p);
        continue;
      }
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        names = realloc(names, cap * sizeof *names);
      }
      names[n++] = p;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t k = 0; k < n; k++) {
      if (replay_file(names[k]) == 0) count++;
      else rc = 1;
      free(names[k]);
    }
    free(names);
  }
  printf("replayed %ld inputs\n", count);
  return rc;
}
