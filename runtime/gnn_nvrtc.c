/* gnn_nvrtc.c -- gnn-nvrtc: compile a generated .cu's kernels to PTX with NVRTC, as the runtime
 * does for the GPU in hand (gnn_nvrtc_compile). No GPU is needed, so the tests run it here.
 *
 *   gnn-nvrtc model.cu compute_80 [out.ptx]
 *   gnn-nvrtc --help
 *
 * Exit status 0 and the PTX (to out.ptx, or its size on stdout); 1 with NVRTC's log on stderr;
 * 2 on a bad command line. --help (-h) prints what it does to stdout and exits 0.
 * out.ptx is written whole or not at all: a temporary file beside it, fsync'd, then renamed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnnrt.h"
#include "gnnrt_path.h"

static void usage(FILE *out) {
  fputs("usage: gnn-nvrtc FILE.cu compute_XX [OUT.ptx]\n"
        "Compiles the kernels of a CUDA file gnnc generated (gnnc MODEL.gnn --emit=cu -o FILE.cu) to PTX\n"
        "with NVRTC, as the runtime does for the GPU in hand (gnn_nvrtc_compile). No GPU is needed.\n"
        "  FILE.cu     the generated CUDA source\n"
        "  compute_XX  the virtual architecture to compile for: compute_80, compute_90, ...\n"
        "  OUT.ptx     where to write the PTX, whole or not at all (a temporary file beside it,\n"
        "              flushed to disk, then renamed); without it, the PTX's size is printed\n"
        "Exit status: 0 compiled; 1 NVRTC's log on stderr, or a file that cannot be read or written;\n"
        "2 a bad command line.\n",
        out);
}

int main(int argc, char **argv) {
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: gnn-nvrtc FILE.cu compute_XX [OUT.ptx]\n");
    return 2;
  }
  if (argc == 4 && gnn_same_file(argv[3], argv[1])) { /* the PTX replaced the source it came from */
    fprintf(stderr, "gnn-nvrtc: %s is the source file: writing the PTX there would destroy it; give another path\n", argv[3]);
    return 2;
  }
  signal(SIGXFSZ, SIG_IGN); /* a file-size limit: a write error with a message, not a kill mid-write */
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  char *src = malloc(cap + 1);
  for (size_t got; (got = fread(src + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) src = realloc(src, (cap *= 2) + 1);
  }
  fclose(f);
  src[n] = 0;
  char *ptx = NULL, err[65536];
  size_t len = 0;
  gnn_status st = gnn_nvrtc_compile(src, argv[1], argv[2], &ptx, &len, err, sizeof err);
  free(src);
  if (st != GNN_OK) {
    fprintf(stderr, "gnn-nvrtc: %s: %s\n", gnn_status_name(st), err);
    return 1;
  }
  if (argc == 4 && gnn_write_in_place(argv[3])) { /* a device or FIFO: no temporary (gnnrt_path.h) */
    FILE *o = fopen(argv[3], "w");
    int ok = o && fwrite(ptx, 1, len, o) == len, e = errno;
    if (o && fclose(o) != 0 && ok) ok = 0, e = errno;
    if (!ok) fprintf(stderr, "gnn-nvrtc: %s: cannot write: %s\n", argv[3], strerror(e));
    free(ptx);
    return ok ? 0 : 1;
  } else if (argc == 4) {
    char *target = gnn_replace_target(argv[3]); /* through a symlink, the file it names */
    size_t tn = target ? strlen(target) + 16 : 0;
    char *tmp = target ? malloc(tn) : NULL;
    if (!tmp) {
      fprintf(stderr, "gnn-nvrtc: out of memory\n");
      free(target);
      free(ptx);
      return 1;
    }
    snprintf(tmp, tn, "%s.XXXXXX", target);
    int fd = mkstemp(tmp);
    if (fd >= 0) fchmod(fd, 0644); /* mkstemp makes 0600 */
    FILE *o = fd >= 0 ? fdopen(fd, "w") : NULL;
    int ok = o && fwrite(ptx, 1, len, o) == len && fflush(o) == 0 && fsync(fd) == 0;
    int e = errno;
    if (o && fclose(o) != 0) ok = 0, e = errno;
    if (ok && rename(tmp, target) != 0) ok = 0, e = errno;
    if (!ok) {
      fprintf(stderr, "gnn-nvrtc: %s: cannot write: %s\n", argv[3], strerror(e));
      if (fd >= 0) unlink(tmp);
    }
    free(tmp);
    free(target);
    if (!ok) {
      free(ptx);
      return 1;
    }
  } else {
    printf("%s: %zu bytes of PTX for %s\n", argv[1], len, argv[2]);
  }
  free(ptx);
  return 0;
}
