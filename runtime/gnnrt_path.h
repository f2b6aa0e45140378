/* gnnrt_path.h -- the file that "write a temporary beside it, then rename it over" replaces.
 *
 * Through a symlink, the file the link names: renaming over the link itself would turn it into
 * a regular file and leave its old target stale (a user who links run/params.txt to a shared
 * folder expects the shared file to change). gnnc's own outputs do the same (compiler/build.c
 * out_open). Otherwise, and for a link to nothing yet, path itself. One rule for the runtime's
 * writers (text.c rt_tmp_open / rt_tmp_commit: tensor files, checkpoints, .gcsr caches), the
 * drivers' (driver_rt.h) and the interpreter's (compiler/interp.c, which does not link the
 * runtime). */
#ifndef GNNRT_PATH_H
#define GNNRT_PATH_H

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* malloc'd (NULL when out of memory): the path to write the temporary beside and rename onto. */
static inline char *gnn_replace_target(const char *path) {
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    char *real = realpath(path, NULL);
    if (real) return real;
  }
  return strdup(path);
}

#endif
