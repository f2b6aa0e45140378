/* gnnrt_path.h -- the file that "write a temporary beside it, then rename it over" replaces.
 *
 * Through a symlink, the file the link names: renaming over the link itself would turn it into
 * a regular file and leave its old target stale (a user who links run/params.txt to a shared
 * folder expects the shared file to change). gnnc's own outputs do the same (compiler/build.c
 * out_open). Otherwise path itself. One rule for the runtime's
 * writers (text.c rt_tmp_open / rt_tmp_commit: tensor files, checkpoints, .gcsr caches), the
 * drivers' (driver_rt.h) and the interpreter's (compiler/interp.c, which does not link the
 * runtime). */
#ifndef GNNRT_PATH_H
#define GNNRT_PATH_H

#include <limits.h>
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

#endif
