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
 * gnn_dataset_file: the checks that keep gnnc run and the drivers from writing over a file they
 * read or over a file of the dataset folder they read (compiler/build.c files_safe, driver_rt.h).
 * gnn_output_unwritable: an output that could only fail at the write, found before the run
 * (gnn-train, gnn-run, gnnc run and gnnc gradcheck, with the same words). */
#ifndef GNNRT_PATH_H
#define GNNRT_PATH_H

#include <errno.h>
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
 * (/dev/null, a terminal), a FIFO, a socket. Such a file is written in place, never through a
 * temporary renamed over it: the rename would replace the device node with a plain file (as
 * root: gnn-run --output /dev/null left /dev/null a regular file that every later redirection
 * wrote into) or fail (mkstemp in /dev, as anyone else). */
static inline bool gnn_write_in_place(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Why the file an output option names cannot be written there, or NULL when it can: the message,
 * after the tool's own "PROG: " (or "gnnc: error: "), written into buf (len bytes) and returned,
 * so that every tool refuses a bad output in the same words. opt names the option in it
 * ("--save-params"). A file name, not a folder's (an existing directory, or a path ending in
 * '/'), in a folder that exists and is writable: the folder of the file the write replaces
 * (gnn_replace_target: through a link, the file it names, where the temporary goes). A device
 * or FIFO (/dev/null, a pipe to a reader; through a link too) is written in place, never renamed
 * over (gnn_write_in_place): it only has to be writable. The tools write their outputs after the
 * run (or during it: a checkpoint), so a typo in a path must not cost the run: everything that
 * would fail at the write for the path alone is found here, before any work (exit 2). */
static inline const char *gnn_output_unwritable(const char *opt, const char *path, char *buf, size_t len) {
  size_t n = strlen(path);
  struct stat sb;
  const char *why = n == 0                                        ? "the path is empty"
                    : path[n - 1] == '/'                          ? "it names a folder (it ends in '/'): give a file name in it"
                    : stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? "it is a directory: give a file name in it"
                                                                  : NULL;
  if (why) return snprintf(buf, len, "%s '%s': %s", opt, path, why), buf;
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  if (strlen(name) > NAME_MAX && !gnn_write_in_place(path))
    return snprintf(buf, len, "%s %s: cannot write it: its name is %zu bytes, more than the %d a file name may have", opt, path,
                    strlen(name), NAME_MAX), buf;
  if (gnn_write_in_place(path)) { /* a device or FIFO: opened and written where it is */
    if (access(path, W_OK) == 0) return NULL;
    return snprintf(buf, len, "%s %s: cannot write it: %s", opt, path, strerror(errno)), buf;
  }
  char *target = gnn_replace_target(path), dir[PATH_MAX];
  const char *t = target ? target : path, *slash = strrchr(t, '/');
  int k = !slash ? snprintf(dir, sizeof dir, ".") : slash == t ? snprintf(dir, sizeof dir, "/")
                                                               : snprintf(dir, sizeof dir, "%.*s", (int)(slash - t), t);
  free(target);
  why = k < 0 || k >= (int)sizeof dir ? "the path is too long"
        : stat(dir, &sb) != 0         ? strerror(errno)
        : !S_ISDIR(sb.st_mode)        ? "not a directory"
        : access(dir, W_OK) != 0      ? strerror(errno)
                                      : NULL;
  if (!why) return NULL;
  return snprintf(buf, len, "%s %s: cannot write into '%s': %s", opt, path, dir, why), buf;
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

/* True when path (which need not exist) names one of the files the loaders read from the
 * dataset folder dir, both resolved through links; false when dir is not a folder. The files:
 * graph.edges, features.svm, labels.txt, graph_indicator.txt, graph_labels.txt, the splits
 * train.idx / val.idx / test.idx, and anything under raw/ or split/ (an OGB download). gnnc run
 * and the drivers refuse to write one (gnn-run --output cora/features.svm replaced the features,
 * a gnn-train --checkpoint named labels.txt the labels); other files in the folder are the user's
 * to write (a scratch folder holding a graph and its results). */
static inline bool gnn_dataset_file(const char *path, const char *dir) {
  static const char *const names[] = {"graph.edges", "features.svm", "labels.txt", "graph_indicator.txt", "graph_labels.txt",
                                      "train.idx", "val.idx", "test.idx"};
  struct stat sd;
  char rd[PATH_MAX], rp[PATH_MAX], parent[PATH_MAX];
  if (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode) || !realpath(dir, rd)) return false;
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  if (!realpath(path, rp)) { /* not there yet: its folder, resolved, and its name */
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    char rparent[PATH_MAX];
    if (!realpath(parent, rparent)) return false;
    size_t np = strcmp(rparent, "/") == 0 ? 0 : strlen(rparent), nb = strlen(base);
    if (np + nb + 2 > sizeof rp) return false;
    memcpy(rp, rparent, np), rp[np] = '/', memcpy(rp + np + 1, base, nb + 1);
  }
  size_t n = strcmp(rd, "/") == 0 ? 0 : strlen(rd);
  if (strncmp(rp, rd, n) == 0 && rp[n] == '/') { /* inside dir */
    const char *rel = rp + n + 1;
    if (strncmp(rel, "raw/", 4) == 0 || strncmp(rel, "split/", 6) == 0) return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strcmp(rel, names[i]) == 0) return true;
  }
  /* a dataset file that is a link (cp -rs) resolves elsewhere: the file it names is the
   * dataset's too, and the writers follow the link to it */
  for (size_t i = 0; i < sizeof names / sizeof names[0] + 2; i++) {
    const char *name = i < sizeof names / sizeof names[0] ? names[i] : i == sizeof names / sizeof names[0] ? "raw" : "split";
    char entry[PATH_MAX], target[PATH_MAX];
    if (strlen(rd) + strlen(name) + 2 > sizeof entry) continue;
    memcpy(entry, rd, strlen(rd)), entry[strlen(rd)] = '/', memcpy(entry + strlen(rd) + 1, name, strlen(name) + 1);
    if (!realpath(entry, target)) continue;
    size_t t = strlen(target);
    if (strcmp(rp, target) == 0 || (strcmp(name, "raw") == 0 || strcmp(name, "split") == 0 ? strncmp(rp, target, t) == 0 && rp[t] == '/' : false))
      return true;
  }
  return false;
}

#endif
