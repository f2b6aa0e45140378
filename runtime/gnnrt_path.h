/* gnnrt_path.h -- where a file is written, and whether a write would destroy what a run reads.
 *
 * gnn_replace_target: the file that "write a temporary beside it, then rename it over" replaces.
 *
 * Through a symlink, the file the link names: renaming over the link itself would turn it into
 * a regular file and leave its old target stale (a user who links run/params.txt to a shared
 * folder expects the shared file to change). gnnc's own outputs do the same (compiler/build.c
 * out_open). Otherwise path itself. One rule for the runtime's
 * writers (text.c rt_tmp_open / rt_tmp_commit: tensor files, checkpoints, .gcsr caches), the
 * drivers' (driver_rt.h) and the interpreter's (compiler/interp.c, which does not link the
 * runtime). gnn_write_in_place: a device or FIFO, written where it is. gnn_same_file and
 * gnn_inside_folder: the checks that keep gnnc run and the drivers from writing over a file they
 * read or into the dataset folder they read (compiler/build.c files_safe, driver_rt.h). */
#ifndef GNNRT_PATH_H
#define GNNRT_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* malloc'd (NULL when out of memory): the path to write the temporary beside and rename onto.
 * A link to a file that does not exist yet: the path the link holds (relative to the link's
 * folder), so that the file is created where the link points, as gnnc's out_open does. */
static inline char *gnn_replace_target(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return strdup(path);
  char *real = realpath(path, NULL);
  if (real) return real;
  char to[PATH_MAX];
  ssize_t n = readlink(path, to, sizeof to - 1);
  if (n <= 0) return strdup(path);
  to[n] = 0;
  const char *slash = strrchr(path, '/');
  if (to[0] == '/' || !slash) return strdup(to);
  size_t dir = (size_t)(slash - path) + 1, len = dir + (size_t)n + 1;
  char *joined = (char *)malloc(len);
  if (joined) memcpy(joined, path, dir), memcpy(joined + dir, to, (size_t)n + 1);
  return joined;
}

/* True when path exists (through links) and is neither a regular file nor a folder: a device
 * (/dev/null, /dev/stdout), a FIFO, a socket. Such a file is written in place, never through a
 * temporary renamed over it: the rename would replace the device node with a plain file (as
 * root: gnn-run --output /dev/null left /dev/null a regular file that every later redirection
 * wrote into) or fail (mkstemp in /dev, as anyone else). */
static inline bool gnn_write_in_place(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* True when path is a character or block device (/dev/zero, /dev/urandom, a terminal, a disk):
 * the line readers refuse one, since a device need never send the newline that ends a line (a
 * graph read from /dev/zero grew until memory ran out). A FIFO, a pipe's data, is read. */
static inline bool gnn_is_device(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
}

/* The same file: both exist and are one regular file (device and inode: a link, ./m.c and m.c,
 * a hard link), or neither exists and they name one entry of one (resolved) folder. A device
 * (/dev/null read and written) is not "the same file": nothing is destroyed by writing it. */
static inline bool gnn_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea || eb) return false;
  const char *na = strrchr(a, '/'), *nb = strrchr(b, '/');
  if (strcmp(na ? na + 1 : a, nb ? nb + 1 : b) != 0) return false;
  char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
  snprintf(da, sizeof da, "%.*s", na ? (int)(na - a) + (na == a) : 1, na ? a : ".");
  snprintf(db, sizeof db, "%.*s", nb ? (int)(nb - b) + (nb == b) : 1, nb ? b : ".");
  if (realpath(da, ra) && realpath(db, rb)) return strcmp(ra, rb) == 0;
  return strcmp(da, db) == 0;
}

/* path (which need not exist) lies inside the folder dir, at any depth, both resolved through
 * links; false when dir is not a folder. The drivers and gnnc run write nothing into the dataset
 * folder they read (--graph): a result named like one of its files (features.svm, raw/edge.csv.gz,
 * a split) would replace it, and which names a loader reads is the loader's business. */
static inline bool gnn_inside_folder(const char *path, const char *dir) {
  struct stat sd;
  char rd[PATH_MAX], rp[PATH_MAX], parent[PATH_MAX];
  if (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode) || !realpath(dir, rd)) return false;
  if (!realpath(path, rp)) { /* not there yet: its folder, resolved */
    const char *slash = strrchr(path, '/');
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    if (!realpath(parent, rp)) return false; /* no such folder: the write fails on its own */
  }
  size_t n = strlen(rd);
  if (n == 1) return true; /* dir is / */
  return strncmp(rp, rd, n) == 0 && (rp[n] == 0 || rp[n] == '/');
}

#endif
