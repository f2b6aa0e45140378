/* npz.c -- NumPy's .npz archives: a zip file of .npy arrays (OGB's binary downloads).
 *
 * ogbn-papers100M comes as raw/data.npz (edge_index, node_feat, num_nodes_list, ...) and
 * raw/node-label.npz, written by np.savez / np.savez_compressed. An .npz is a zip archive whose
 * members NAME.npy each hold one array: the "\x93NUMPY" magic, a version, a Python dict literal
 * ({'descr': '<f4', 'fortran_order': False, 'shape': (N, D), }) padded with spaces, then the
 * elements in C order. This reader handles what NumPy writes:
 *
 *   - the zip's central directory (at the end of the file) for the members' places and sizes,
 *     with its ZIP64 records: NumPy writes them for members over 4 GiB (papers100M's edge_index
 *     is 26 GB), and Python's zipfile may write them for any member;
 *   - members stored (np.savez) or deflated (np.savez_compressed; zlib, already linked for the
 *     .csv.gz reader), read in pieces, never whole in memory, their CRC-32 checked at the end;
 *   - .npy versions 1.0, 2.0 and 3.0, little-endian or byte-sized integers, unsigned integers,
 *     booleans and floats of 2, 4 and 8 bytes, converted as they stream into the caller's int64
 *     or float32 array.
 *
 * Everything else is refused with the file, the member and what is wrong: big-endian data,
 * Fortran order (of more than one dimension), structured or object arrays (pickles), encrypted
 * members, other compression methods, a member whose size disagrees with its header, a
 * truncated archive. The callers (ogb.c) check shapes and values.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#define NPZ_CHUNK (1 << 20)

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static gnn_status npz_seek(gnn_ctx *ctx, RtNpz *z, uint64_t off) {
  if (off > (uint64_t)INT64_MAX || fseeko(z->f, (off_t)off, SEEK_SET) != 0)
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot seek to byte %llu: %s", z->path, (unsigned long long)off,
                         strerror(errno));
  return GNN_OK;
}

static gnn_status npz_read(gnn_ctx *ctx, RtNpz *z, void *buf, size_t n, const char *what) {
  if (fread(buf, 1, n, z->f) != n)
    return gnn_set_error(ctx, ferror(z->f) ? GNN_ERR_IO : GNN_ERR_FORMAT, "%s: error: %s: %s", z->path, what,
                         ferror(z->f) ? strerror(errno) : "the file ends early (a truncated archive?)");
  return GNN_OK;
}

/* The end of central directory record (and its ZIP64 counterpart): the members' count and the
 * central directory's offset. */
static gnn_status find_directory(gnn_ctx *ctx, RtNpz *z, uint64_t *count, uint64_t *cd_off, uint64_t *cd_size) {
  if (fseeko(z->f, 0, SEEK_END) != 0)
    return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot seek: %s", z->path, strerror(errno));
  off_t size = ftello(z->f);
  /* the record is 22 bytes plus a comment of at most 65535 */
  size_t tail = size < 22 + 65535 ? (size_t)size : 22 + 65535;
  if (tail < 22) return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: not a zip archive (an .npz is one): %lld bytes", z->path, (long long)size);
  unsigned char *b = (unsigned char *)rt_malloc(ctx, tail, "the end of an .npz");
  if (!b) return GNN_ERR_OOM;
  gnn_status st = npz_seek(ctx, z, (uint64_t)size - tail);
  if (!st) st = npz_read(ctx, z, b, tail, "reading its end");
  long at = -1;
  for (long i = (long)tail - 22; !st && i >= 0; i--)
    if (b[i] == 'P' && b[i + 1] == 'K' && b[i + 2] == 5 && b[i + 3] == 6) {
      at = i;
      break;
    }
  if (!st && at < 0)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: not a zip archive (no end of central directory record; an .npz is a zip of .npy files)", z->path);
  if (!st) {
    *count = le16(b + at + 10);
    *cd_size = le32(b + at + 12);
    *cd_off = le32(b + at + 16);
    uint64_t eocd = (uint64_t)size - tail + (uint64_t)at;
    if (*count == 0xFFFF || *cd_off == 0xFFFFFFFFu || *cd_size == 0xFFFFFFFFu) { /* ZIP64: the locator precedes */
      unsigned char loc[20], rec[56];
      if (eocd < 20) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: a ZIP64 archive without its locator", z->path);
      if (!st) st = npz_seek(ctx, z, eocd - 20);
      if (!st) st = npz_read(ctx, z, loc, 20, "reading the ZIP64 locator");
      if (!st && le32(loc) != 0x07064b50u)
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: a ZIP64 archive without its locator", z->path);
      if (!st) st = npz_seek(ctx, z, le64(loc + 8));
      if (!st) st = npz_read(ctx, z, rec, 56, "reading the ZIP64 end of central directory");
      if (!st && le32(rec) != 0x06064b50u)
        st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: a damaged ZIP64 end of central directory record", z->path);
      if (!st) *count = le64(rec + 32), *cd_size = le64(rec + 40), *cd_off = le64(rec + 48);
    }
  }
  free(b);
  return st;
}

gnn_status rt_npz_open(gnn_ctx *ctx, const char *path, RtNpz *z) {
  memset(z, 0, sizeof *z);
  z->path = path;
  if (!(z->f = fopen(path, "rb"))) return gnn_set_error(ctx, GNN_ERR_IO, "%s: error: cannot open: %s", path, strerror(errno));
  uint64_t count = 0, cd_off = 0, cd_size = 0;
  gnn_status st = find_directory(ctx, z, &count, &cd_off, &cd_size);
  if (!st && (count > 4096 || cd_size > ((uint64_t)64 << 20)))
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: %llu members in %llu bytes of directory: not an .npz", path,
                       (unsigned long long)count, (unsigned long long)cd_size);
  unsigned char *cd = NULL;
  if (!st && !(cd = (unsigned char *)rt_malloc(ctx, cd_size ? cd_size : 1, "an .npz directory"))) st = GNN_ERR_OOM;
  if (!st && !(z->m = (RtNpzMember *)rt_calloc(ctx, count ? count : 1, sizeof *z->m, "an .npz directory"))) st = GNN_ERR_OOM;
  if (!st) st = npz_seek(ctx, z, cd_off);
  if (!st) st = npz_read(ctx, z, cd, cd_size, "reading the central directory");
  size_t pos = 0;
  for (uint64_t i = 0; !st && i < count; i++) {
    if (pos + 46 > cd_size || le32(cd + pos) != 0x02014b50u) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: a damaged central directory (entry %llu)", path, (unsigned long long)i);
      break;
    }
    const unsigned char *e = cd + pos;
    size_t nlen = le16(e + 28), xlen = le16(e + 30), clen = le16(e + 32);
    if (pos + 46 + nlen + xlen + clen > cd_size) {
      st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: a damaged central directory (entry %llu)", path, (unsigned long long)i);
      break;
    }
    RtNpzMember *m = &z->m[z->n];
    if (!(m->name = (char *)rt_malloc(ctx, nlen + 1, "an .npz member name"))) {
      st = GNN_ERR_OOM;
      break;
    }
    z->n++;
    memcpy(m->name, e + 46, nlen);
    m->name[nlen] = 0;
    m->flags = le16(e + 8);
    m->method = le16(e + 10);
    m->crc = le32(e + 16);
    m->csize = le32(e + 20);
    m->usize = le32(e + 24);
    m->offset = le32(e + 42);
    /* ZIP64: the sizes and the offset that do not fit 32 bits are in extra field 0x0001, in
     * this order, each present only where the 32-bit field is 0xFFFFFFFF */
    for (const unsigned char *x = e + 46 + nlen, *xend = x + xlen; x + 4 <= xend;) {
      size_t len = le16(x + 2);
      if (x + 4 + len > xend) break;
      if (le16(x) == 1) {
        const unsigned char *v = x + 4, *vend = v + len;
        if (m->usize == 0xFFFFFFFFu && v + 8 <= vend) m->usize = le64(v), v += 8;
        if (m->csize == 0xFFFFFFFFu && v + 8 <= vend) m->csize = le64(v), v += 8;
        if (m->offset == 0xFFFFFFFFu && v + 8 <= vend) m->offset = le64(v), v += 8;
      }
      x += 4 + len;
    }
    pos += 46 + nlen + xlen + clen;
  }
  free(cd);
  if (st) rt_npz_close(z);
  return st;
}

void rt_npz_close(RtNpz *z) {
  if (z->f) fclose(z->f);
  for (int i = 0; i < z->n; i++) free(z->m[i].name);
  free(z->m);
  memset(z, 0, sizeof *z);
}

/* The member NAME.npy, or NULL. */
static const RtNpzMember *member(const RtNpz *z, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < z->n; i++)
    if (strncmp(z->m[i].name, name, n) == 0 && strcmp(z->m[i].name + n, ".npy") == 0) return &z->m[i];
  return NULL;
}

int rt_npz_has(const RtNpz *z, const char *name) { return member(z, name) != NULL; }

/* The next n bytes of the member's data, inflated when it is deflated; its CRC checked once
 * the last byte is out. */
static gnn_status stream_bytes(gnn_ctx *ctx, RtNpy *a, void *out, size_t n) {
  unsigned char *o = (unsigned char *)out;
  if (n > a->uleft)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: its data ends early", a->z->path, a->name);
  if (a->method == 0) {
    gnn_status st = npz_read(ctx, a->z, o, n, a->name);
    if (st) return st;
  } else {
    z_stream *zs = (z_stream *)a->zs;
    zs->next_out = o;
    zs->avail_out = 0;
    size_t done = 0;
    while (done < n) {
      if (zs->avail_in == 0 && a->cleft > 0) {
        size_t k = a->cleft < NPZ_CHUNK ? (size_t)a->cleft : NPZ_CHUNK;
        gnn_status st = npz_read(ctx, a->z, a->inbuf, k, a->name);
        if (st) return st;
        a->cleft -= k;
        zs->next_in = a->inbuf;
        zs->avail_in = (uInt)k;
      }
      size_t want = n - done < (1u << 30) ? n - done : (1u << 30);
      zs->next_out = o + done;
      zs->avail_out = (uInt)want;
      int r = inflate(zs, Z_NO_FLUSH);
      done += want - zs->avail_out;
      /* the stream's end before the bytes the directory announces, or no input left for them */
      if ((r == Z_STREAM_END && done < n) || (r == Z_BUF_ERROR && zs->avail_in == 0 && a->cleft == 0))
        return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: the deflate data ends early", a->z->path, a->name);
      if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
        return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: bad deflate data (%s)", a->z->path, a->name,
                             zs->msg ? zs->msg : "zlib error");
    }
  }
  for (size_t k = 0; k < n; k += 1u << 30) a->crc = crc32(a->crc, o + k, (uInt)(n - k < (1u << 30) ? n - k : (1u << 30)));
  a->uleft -= n;
  if (a->uleft == 0 && a->crc != a->want_crc)
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: CRC-32 mismatch (damaged data)", a->z->path, a->name);
  return GNN_OK;
}

/* The value of 'key' in the .npy header dict: a pointer just after "'key':" and blanks. */
static const char *header_value(const char *h, const char *key) {
  char pat[32];
  snprintf(pat, sizeof pat, "'%s'", key);
  const char *p = strstr(h, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  if (*p++ != ':') return NULL;
  while (*p == ' ') p++;
  return p;
}

/* The .npy header: descr, fortran_order and shape into a. */
static gnn_status parse_header(gnn_ctx *ctx, RtNpy *a, const char *h) {
  const char *path = a->z->path, *name = a->name;
  const char *d = header_value(h, "descr"), *f = header_value(h, "fortran_order"), *s = header_value(h, "shape");
  if (!d || !f || !s) {
    char shown[81]; /* the header's start, printable (a damaged one may hold any byte) */
    size_t k = 0;
    for (; h[k] && k < sizeof shown - 1; k++) shown[k] = h[k] >= 32 && h[k] < 127 ? h[k] : '?';
    shown[k] = 0;
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: a header without descr, fortran_order and shape: %s",
                         path, name, shown);
  }
  if (*d != '\'')
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: member %s.npy: a structured array (descr %.40s): want plain numbers",
                         path, name, d);
  const char *de = strchr(d + 1, '\'');
  size_t dl = de ? (size_t)(de - d - 1) : 0;
  char descr[16] = "";
  if (dl && dl < sizeof descr) memcpy(descr, d + 1, dl), descr[dl] = 0;
  /* '<' little-endian, '|' not applicable (one byte); '=' native (little-endian here) */
  char order = descr[0], kind = descr[0] ? descr[1] : 0;
  int size = descr[0] && descr[1] ? atoi(descr + 2) : 0;
  int known = (kind == 'i' || kind == 'u') ? (size == 1 || size == 2 || size == 4 || size == 8)
              : kind == 'f' ? (size == 2 || size == 4 || size == 8) : kind == 'b' ? size == 1 : 0;
  if (!known || (order != '<' && order != '|' && order != '='))
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: member %s.npy: dtype '%s' %s", path, name, descr,
                         order == '>' ? "is big-endian: want little-endian ('<')"
                                      : "is not supported (integers, unsigned, bool, float16/32/64)");
  a->kind = kind;
  a->esize = size;
  a->rank = 0;
  a->count = 1;
  if (*s != '(') return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: a shape that is not a tuple", path, name);
  for (const char *p = s + 1;;) {
    while (*p == ' ' || *p == ',') p++;
    if (*p == ')') break;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || a->rank == 4)
      return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: member %s.npy: shape %.40s (at most 4 dimensions)", path, name, s);
    a->shape[a->rank++] = v;
    a->count = v && a->count > INT64_MAX / v ? INT64_MAX : a->count * v;
    p = end;
  }
  if (strncmp(f, "True", 4) == 0 && a->rank > 1)
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: member %s.npy: Fortran order: want C order (np.ascontiguousarray)",
                         path, name);
  return GNN_OK;
}

gnn_status rt_npz_array(gnn_ctx *ctx, RtNpz *z, const char *name, RtNpy *a) {
  memset(a, 0, sizeof *a);
  a->z = z;
  a->name = name;
  const RtNpzMember *m = member(z, name);
  if (!m) return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: no array '%s' in the archive", z->path, name);
  if (m->flags & 1) return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: member %s.npy is encrypted", z->path, name);
  if (m->method != 0 && m->method != 8)
    return gnn_set_error(ctx, GNN_ERR_UNSUPPORTED,
                         "%s: error: member %s.npy: compression method %d (np.savez stores, np.savez_compressed deflates; "
                         "nothing else is read)", z->path, name, m->method);
  unsigned char lh[30];
  gnn_status st = npz_seek(ctx, z, m->offset);
  if (!st) st = npz_read(ctx, z, lh, 30, name);
  if (!st && le32(lh) != 0x04034b50u)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: no local header at byte %llu", z->path, name,
                       (unsigned long long)m->offset);
  if (!st) st = npz_seek(ctx, z, m->offset + 30 + le16(lh + 26) + le16(lh + 28));
  if (st) return st;
  a->method = m->method;
  a->cleft = m->csize;
  a->uleft = m->usize;
  a->want_crc = m->crc;
  a->crc = crc32(0, Z_NULL, 0);
  if (m->method == 8) {
    z_stream *zs = (z_stream *)rt_calloc(ctx, 1, sizeof *zs, "an inflate stream");
    a->inbuf = (unsigned char *)rt_malloc(ctx, NPZ_CHUNK, "an .npz read buffer");
    a->zs = zs;
    if (!zs || !a->inbuf) return rt_npy_close(a), GNN_ERR_OOM;
    if (inflateInit2(zs, -MAX_WBITS) != Z_OK) {
      rt_npy_close(a);
      return gnn_set_error(ctx, GNN_ERR_OOM, "%s: error: zlib cannot start inflating %s.npy", z->path, name);
    }
    a->inflating = 1;
  }
  /* the .npy header: magic, version, its length (2 bytes in 1.0, 4 in 2.0 and 3.0) */
  unsigned char pre[12];
  if (a->uleft < 10) {
    rt_npy_close(a);
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy is not a .npy array (%llu bytes)", z->path, name,
                         (unsigned long long)a->uleft);
  }
  st = stream_bytes(ctx, a, pre, 10);
  if (!st && memcmp(pre, "\x93NUMPY", 6) != 0)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy is not a .npy array (no \\x93NUMPY magic)", z->path, name);
  if (!st && (pre[6] < 1 || pre[6] > 3))
    st = gnn_set_error(ctx, GNN_ERR_UNSUPPORTED, "%s: error: member %s.npy: .npy version %d.%d (1.0 to 3.0 are read)", z->path,
                       name, pre[6], pre[7]);
  size_t hlen = 0, pre_len = 10;
  if (!st && pre[6] == 1) hlen = le16(pre + 8);
  else if (!st) {
    st = stream_bytes(ctx, a, pre + 10, 2);
    hlen = le32(pre + 8), pre_len = 12;
  }
  char *h = NULL;
  if (!st && hlen > (1u << 20)) st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: a header of %zu bytes", z->path, name, hlen);
  if (!st && !(h = (char *)rt_malloc(ctx, hlen + 1, "an .npy header"))) st = GNN_ERR_OOM;
  if (!st) st = stream_bytes(ctx, a, h, hlen);
  if (!st) {
    h[hlen] = 0;
    st = parse_header(ctx, a, h);
  }
  free(h);
  /* a->count is INT64_MAX when the product of the dimensions overflowed (parse_header); the
   * bytes are checked before they are computed, so a wrapped product (2 x (2^60 + 3) x 8 is 48
   * mod 2^64) is not compared with the member's size, nor printed as if it were the size */
  uint64_t holds = (uint64_t)m->usize - pre_len - hlen;
  if (!st && (a->count == INT64_MAX || (uint64_t)a->count > UINT64_MAX / (uint64_t)a->esize)) {
    char shape[128];
    int k = snprintf(shape, sizeof shape, "(");
    for (int i = 0; i < a->rank && k < (int)sizeof shape; i++)
      k += snprintf(shape + k, sizeof shape - (size_t)k, "%s%lld", i ? ", " : "", (long long)a->shape[i]);
    if (k < (int)sizeof shape) snprintf(shape + k, sizeof shape - (size_t)k, a->rank == 1 ? ",)" : ")");
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: shape %s overflows: its elements of %d byte%s make more "
                       "than 2^64 bytes of data (the member holds %llu)", z->path, name, shape, a->esize,
                       a->esize == 1 ? "" : "s", (unsigned long long)holds);
  } else if (!st && (uint64_t)a->count * (uint64_t)a->esize != a->uleft)
    st = gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy: shape and dtype make %llu bytes of data, the member holds %llu",
                       z->path, name, (unsigned long long)((uint64_t)a->count * (uint64_t)a->esize), (unsigned long long)holds);
  if (st) rt_npy_close(a);
  return st;
}

void rt_npy_close(RtNpy *a) {
  if (a->inflating) inflateEnd((z_stream *)a->zs);
  free(a->zs);
  free(a->inbuf);
  a->zs = NULL, a->inbuf = NULL, a->inflating = 0;
}

/* IEEE half to float. */
static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

/* One element at p (the array's dtype) as a double. */
static double element(const RtNpy *a, const unsigned char *p) {
  switch (a->kind) {
  case 'f':
    if (a->esize == 2) return half_to_float(le16(p));
    if (a->esize == 4) {
      float f;
      uint32_t u = le32(p);
      memcpy(&f, &u, 4);
      return f;
    } else {
      double d;
      uint64_t u = le64(p);
      memcpy(&d, &u, 8);
      return d;
    }
  case 'i':
    return a->esize == 1 ? (double)(int8_t)p[0] : a->esize == 2 ? (double)(int16_t)le16(p)
           : a->esize == 4 ? (double)(int32_t)le32(p) : (double)(int64_t)le64(p);
  default: /* 'u', 'b' */
    return a->esize == 1 ? (double)p[0] : a->esize == 2 ? (double)le16(p) : a->esize == 4 ? (double)le32(p) : (double)le64(p);
  }
}

/* The next n elements as int64 (integer dtypes only: a float array of ids is refused) or as
 * float (any dtype), in pieces of NPZ_CHUNK bytes. */
static gnn_status read_elems(gnn_ctx *ctx, RtNpy *a, int64_t *ints, float *floats, int64_t n) {
  if (ints && a->kind == 'f')
    return gnn_set_error(ctx, GNN_ERR_FORMAT, "%s: error: member %s.npy holds floats (dtype f%d): want integers", a->z->path,
                         a->name, a->esize);
  size_t per = NPZ_CHUNK / (size_t)a->esize;
  unsigned char *buf = (unsigned char *)rt_malloc(ctx, per * (size_t)a->esize, "an .npy read buffer");
  if (!buf) return GNN_ERR_OOM;
  gnn_status st = GNN_OK;
  for (int64_t done = 0; done < n && !st;) {
    size_t k = (size_t)(n - done) < per ? (size_t)(n - done) : per;
    if ((st = stream_bytes(ctx, a, buf, k * (size_t)a->esize))) break;
    if (ints && a->kind == 'u' && a->esize == 8) {
      for (size_t i = 0; i < k; i++) { /* above int64's range: kept out of it, the caller's range check refuses it */
        uint64_t u = le64(buf + i * 8);
        ints[done + (int64_t)i] = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
      }
    } else if (ints && a->kind == 'i' && a->esize == 8) {
      for (size_t i = 0; i < k; i++) ints[done + (int64_t)i] = (int64_t)le64(buf + i * 8);
    } else if (ints) {
      for (size_t i = 0; i < k; i++) ints[done + (int64_t)i] = (int64_t)element(a, buf + i * (size_t)a->esize);
    } else if (a->kind == 'f' && a->esize == 4) {
      memcpy(floats + done, buf, k * 4); /* little-endian here, as everywhere gnnc runs */
    } else {
      for (size_t i = 0; i < k; i++) floats[done + (int64_t)i] = (float)element(a, buf + i * (size_t)a->esize);
    }
    done += (int64_t)k;
  }
  free(buf);
  return st;
}

gnn_status rt_npy_read_i64(gnn_ctx *ctx, RtNpy *a, int64_t *out, int64_t n) { return read_elems(ctx, a, out, NULL, n); }
gnn_status rt_npy_read_f32(gnn_ctx *ctx, RtNpy *a, float *out, int64_t n) { return read_elems(ctx, a, NULL, out, n); }
