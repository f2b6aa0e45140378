/* text.c -- reading the line-oriented text formats, and writing files all-or-nothing.
 *
 * Every text format of the runtime (edge lists, Matrix Market, LIBSVM, labels, splits) is
 * read one line at a time through RtReader, which keeps the line number so that each
 * complaint reads "FILE:LINE: error: what". Fields are parsed by hand with strtoll/strtod and
 * checked to end where a field ends, so "12abc" is an error, not 12. A file that starts with
 * gzip's magic bytes is inflated on the way (zlib, in RT_GZ_CHUNK pieces), so every format can
 * also come compressed (OGB ships its CSV files as .csv.gz); corrupt or truncated gzip data is
 * an error that says how many lines were read before it (zlib checks a piece at a time, so the
 * damage is somewhere after them). Output files are written
 * to a temporary name beside the target (mkstemp), flushed to the disk (fsync) and renamed into
 * place only when complete: a crash, a kill or a full disk leaves the old file or the new one.
 */
#include "internal.h"
#include "gnnrt_path.h"
#include "gnnrt_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* A gzip member starts with these two bytes (RFC 1952): such a file is read through zlib. */
static int is_gzip(FILE *f) {
  unsigned char m[2];
  size_t n = fread(m, 1, 2, f);
  rewind(f);
  return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

gnn_status rt_reader_open(gnn_ctx *ctx, RtReader *r, const char *path, char comment) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->comment = comment;
  if (rt_is_dir(path)) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot read: is a directory", path);
  if (gnn_is_device(path)) /* gnnrt_path.h: its "line" need never end */
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot read: it is a device, not a file", path);
  r->f = fopen(path, "r");
  if (!r->f) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot open: %s", path, strerror(errno));
  /* Only a regular file can be peeked at and rewound: a pipe is read as text, as before. */
  struct stat sb;
  if (fstat(fileno(r->f), &sb) != 0 || !S_ISREG(sb.st_mode) || !is_gzip(r->f)) return GNN_OK;
  /* zlib reads from its own descriptor; the FILE is closed once it has one. */
  int fd = dup(fileno(r->f));
  gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
  if (!gz && fd >= 0) close(fd);
  fclose(r->f);
  r->f = NULL;
  if (!gz) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot open: %s", path, strerror(errno ? errno : EIO));
  (void)gzbuffer(gz, RT_GZ_CHUNK);
  if (!(r->gzbuf = (char *)rt_malloc(ctx, RT_GZ_CHUNK, "a gzip buffer"))) {
    gzclose(gz);
    return GNN_ERR_OOM;
  }
  r->gz = gz;
  return GNN_OK;
}

/* getline over the inflated text: the next line, newline included, into r->line (NUL after
 * it); -1 at the end, or on corrupt or truncated data with *why set to zlib's message. */
static ssize_t gz_getline(RtReader *r, const char **why) {
  gzFile gz = (gzFile)r->gz;
  size_t n = 0;
  *why = NULL;
  for (;;) {
    if (r->gzpos == r->gzlen) {
      if (r->gzeof) break;
      int k = gzread(gz, r->gzbuf, RT_GZ_CHUNK);
      int zerr = Z_OK;
      const char *msg = gzerror(gz, &zerr);
      if (k < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
        /* zlib names the stream "<fd:N>: " (gzdopen): the path is in our message already */
        const char *own = msg && msg[0] == '<' ? strstr(msg, ">: ") : NULL;
        *why = zerr == Z_ERRNO ? strerror(errno ? errno : EIO) : own ? own + 3 : msg;
        return -1;
      }
      if (k == 0) {
        r->gzeof = 1;
        break;
      }
      r->gzpos = 0;
      r->gzlen = (size_t)k;
    }
    const char *s = r->gzbuf + r->gzpos;
    size_t avail = r->gzlen - r->gzpos;
    const char *nl = (const char *)memchr(s, '\n', avail);
    size_t take = nl ? (size_t)(nl - s) + 1 : avail;
    if (n + take + 1 > r->cap) {
      size_t cap = r->cap ? r->cap : 256;
      while (cap < n + take + 1) cap *= 2;
      char *grown = (char *)realloc(r->line, cap);
      if (!grown) {
        errno = ENOMEM;
        *why = "out of host memory";
        return -1;
      }
      r->line = grown;
      r->cap = cap;
    }
    memcpy(r->line + n, s, take);
    n += take;
    r->gzpos += take;
    if (nl) break;
  }
  if (n == 0) return -1;
  r->line[n] = 0;
  return (ssize_t)n;
}

const char *rt_binary_kind(const char *bytes, size_t n) {
  if (n >= 8 && memcmp(bytes, "GNNRTCKP", 8) == 0)
    return "a training checkpoint (binary, gnn_train_state_save: gnn-train --checkpoint), read by gnn_train_state_load "
           "(gnn-train --resume)";
  if (n >= 8 && memcmp(bytes, "GNNRTCSR", 8) == 0)
    return "a graph cache (binary, gnn_graph_save_cache), read by gnn_graph_load from a file named .gcsr";
  return NULL;
}

/* getline, skipping blank and comment lines; NUL bytes, a CR inside a line and a vertical tab or
 * form feed in a data line are errors (gnn_bad_line_byte, gnnrt_text.h). */
char *rt_reader_next(gnn_ctx *ctx, RtReader *r, gnn_status *st) {
  *st = GNN_OK;
  for (;;) {
    errno = 0;
    const char *why = NULL;
    ssize_t n = r->gz ? gz_getline(r, &why) : getline(&r->line, &r->cap, r->f);
    if (n < 0) {
      if (why)
        /* zlib checks a piece at a time: the damage is somewhere after the lines read so far */
        *st = gnn_set_error(ctx, errno == ENOMEM ? GNN_ERR_OOM : GNN_ERR_FORMAT,
                            "%s: error: bad gzip data after line %ld: %s", r->path, r->lineno, why);
      else if (!r->gz && (ferror(r->f) || errno == ENOMEM))
        *st = gnn_set_error(ctx, errno == ENOMEM ? GNN_ERR_OOM : GNN_ERR_IO, "%s:%ld: error: read failed: %s", r->path,
                            r->lineno + 1, strerror(errno ? errno : EIO));
      return NULL;
    }
    r->lineno++;
    if ((size_t)n != strlen(r->line)) {
      const char *kind = r->lineno == 1 ? rt_binary_kind(r->line, (size_t)n) : NULL;
      *st = kind ? gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: this is %s, not a text file", r->path, kind)
                 : gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: NUL byte in a text file", r->path, r->lineno);
      return NULL;
    }
    char *p = r->line + gnn_bom_bytes(r->line, r->lineno);
    while (*p == ' ' || *p == '\t') p++;
    int comment = r->comment && *p == r->comment;
    const char *bad = gnn_bad_line_byte(r->line, (size_t)n, comment);
    if (bad) {
      *st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s", r->path, r->lineno, bad);
      return NULL;
    }
    if (comment || *p == '\n' || *p == '\r' || *p == 0) continue;
    return p;
  }
}

void rt_reader_close(RtReader *r) {
  if (r->f) fclose(r->f);
  if (r->gz) gzclose((gzFile)r->gz);
  free(r->line);
  free(r->gzbuf);
  r->f = NULL;
  r->gz = NULL;
  r->line = NULL;
  r->gzbuf = NULL;
}

void rt_skip_space(char **p) {
  while (**p == ' ' || **p == '\t') (*p)++;
}

int rt_at_end(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return *p == '\n' || *p == '\r' || *p == 0;
}

/* Parses one integer field and checks that it ends where a field ends. */
gnn_status rt_int_field(gnn_ctx *ctx, RtReader *r, char **p, const char *what, char stop, int64_t *out) {
  rt_skip_space(p);
  if (rt_at_end(*p))
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: missing %s (line ends early)", r->path, r->lineno, what);
  const char *q = *p + (**p == '-' || **p == '+');
  char *end = *p;
  long long v = 0;
  errno = 0;
  if (isdigit((unsigned char)*q)) v = strtoll(*p, &end, 10);
  if (end == *p || (*end && !isspace((unsigned char)*end) && *end != stop)) {
    char tok[40];
    size_t n = 0;
    while ((*p)[n] && !isspace((unsigned char)(*p)[n]) && n < sizeof tok - 1) n++;
    memcpy(tok, *p, n);
    tok[n] = 0;
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s '%s' is not an integer", r->path, r->lineno, what, tok);
  }
  if (errno == ERANGE)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s is out of range", r->path, r->lineno, what);
  *out = v;
  *p = end;
  return GNN_OK;
}

/* The next blank-separated word of p into w (at most n - 1 characters). */
int rt_next_word(char **p, char *w, size_t n) {
  rt_skip_space(p);
  size_t k = 0;
  while (**p && !isspace((unsigned char)**p)) {
    if (k + 1 < n) w[k++] = **p;
    (*p)++;
  }
  w[k] = 0;
  return k > 0;
}


gnn_status rt_real_field(gnn_ctx *ctx, RtReader *r, char **p, const char *what, float *out) {
  rt_skip_space(p);
  if (rt_at_end(*p))
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: missing %s (line ends early)", r->path, r->lineno, what);
  char *end;
  double v = strtod(*p, &end);
  if (end == *p || (*end && !isspace((unsigned char)*end))) {
    char tok[32];
    rt_next_word(p, tok, sizeof tok);
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s '%s' is not a number", r->path, r->lineno, what, tok);
  }
  if (!isfinite(v) || !isfinite((float)v)) { /* the text itself: "edge value 1" alone read as the value 1 */
    char tok[32];
    rt_next_word(p, tok, sizeof tok);
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s:%ld: error: %s '%s' is not finite in float32%s", r->path, r->lineno, what, tok,
                         isfinite(v) ? " (its largest magnitude is 3.4e38)" : "");
  }
  *out = (float)v;
  *p = end;
  return GNN_OK;
}

int rt_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int rt_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

char *rt_join(gnn_ctx *ctx, const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = (char *)rt_malloc(ctx, n, "a file name");
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

/* mkstemp beside the target (through a symlink, the file it names: gnnrt_path.h), so the final
 * rename stays on one file system. The temporary's name is the target's cut so that it and
 * ".XXXXXX" fit in NAME_MAX: a 250-byte name made a 257-byte one, ENAMETOOLONG after a whole
 * training run. *tmp holds the temporary's path, a NUL, then the target's: rt_tmp_commit renames
 * the one to the other. */
gnn_status rt_tmp_open(gnn_ctx *ctx, const char *path, FILE **f, char **tmp) {
  *f = NULL;
  if (gnn_write_in_place(path)) { /* a device or FIFO: no temporary (gnnrt_path.h) */
    *tmp = NULL;
    *f = fopen(path, "wb");
    return *f ? GNN_OK : gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, strerror(errno));
  }
  char *target = gnn_replace_target(path);
  size_t tlen = target ? strlen(target) : 0, n = 2 * tlen + 16;
  *tmp = target ? (char *)rt_malloc(ctx, n, "a file name") : NULL;
  if (!*tmp) {
    int had_target = target != NULL; /* rt_malloc set the error; a failed strdup did not */
    free(target);
    return had_target ? GNN_ERR_OOM : gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: out of memory", path);
  }
  const char *slash = strrchr(target, '/');
  size_t dir = slash ? (size_t)(slash - target) + 1 : 0, base = tlen - dir;
  size_t keep = dir + (base > NAME_MAX - 7 ? NAME_MAX - 7 : base);
  memcpy(*tmp, target, keep);
  memcpy(*tmp + keep, ".XXXXXX", 8);
  memcpy(*tmp + keep + 8, target, tlen + 1);
  free(target);
  int fd = mkstemp(*tmp);
  if (fd < 0) {
    gnn_status st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, strerror(errno));
    free(*tmp);
    *tmp = NULL;
    return st;
  }
  fchmod(fd, 0644); /* mkstemp makes 0600; a cache or parameter file is not a secret */
  *f = fdopen(fd, "wb");
  if (!*f) {
    gnn_status st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot write: %s", path, strerror(errno));
    close(fd);
    unlink(*tmp);
    free(*tmp);
    *tmp = NULL;
    return st;
  }
  return GNN_OK;
}

/* Flush stdio, fsync the data, close, rename over the target, then fsync the folder so the
 * rename itself survives a power cut. A failure anywhere removes the temporary file and leaves
 * whatever was at path before untouched: a reader sees the old file or the new one, never a mix.
 * GNNRT_TEST_COMMIT_DELAY_MS (tests only: tests/suites/reliability.sh) sleeps before the last
 * of the data leaves stdio's buffer, so a test can kill a writer in the middle of a write: the
 * file being written is then incomplete, and only the rename keeps readers from seeing it. */
gnn_status rt_tmp_commit(gnn_ctx *ctx, FILE *f, char *tmp, const char *path, gnn_status ok) {
  gnn_status st = ok;
  const char *delay = getenv("GNNRT_TEST_COMMIT_DELAY_MS");
  if (st == GNN_OK && delay && atoi(delay) > 0) { /* stdio still holds the last part of the data */
    struct timespec ts = {atoi(delay) / 1000, (long)(atoi(delay) % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  int bad = fflush(f) != 0 || ferror(f);
  int err = bad ? errno : 0;
  if (!bad && tmp && fsync(fileno(f)) != 0) bad = 1, err = errno; /* a device written in place: no fsync (EINVAL) */
  if (fclose(f) != 0 && !bad) bad = 1, err = errno;
  if (st == GNN_OK && bad)
    st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: write failed: %s%s", path, strerror(err ? err : EIO),
                       tmp ? " (the previous file, if any, is unchanged)" : "");
  if (!tmp) return st; /* a device written in place */
  /* the target rt_tmp_open resolved, after the temporary's name (not resolved again: the link
   * could have changed since, and a second resolution is a second way to fail) */
  const char *target = tmp + strlen(tmp) + 1;
  if (st == GNN_OK && rename(tmp, target) != 0)
    st = gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot rename the temporary file into place: %s", path,
                       strerror(errno));
  if (st == GNN_OK) { /* the folder's entry: best effort (some file systems refuse a folder fsync) */
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, (size_t)(slash - target) + (slash == target)) : strdup(".");
    int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
    if (dfd >= 0) {
      (void)fsync(dfd);
      close(dfd);
    }
    free(dir);
  }
  if (st != GNN_OK) unlink(tmp);
  free(tmp);
  return st;
}
