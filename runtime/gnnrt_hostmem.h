/* gnnrt_hostmem.h -- how much host memory this process can still take: one rule for the
 * runtime (rt_host_available, core.c: the graph builder's check and the host build's
 * gnn_mem_available) and the interpreter's graph loader (compiler/graph.c, which does not link
 * the runtime), so that a graph too large for the machine is refused with a message before it
 * is allocated, not OOM-killed while its arrays are filled (an overcommitting kernel grants
 * calloc of any size). And one reading of a byte count (gnn_parse_bytes): the runtime's
 * GNN_MEMORY_LIMIT (core.c) and gnnc's --memory-budget (compiler/main.c). */
#ifndef GNNRT_HOSTMEM_H
#define GNNRT_HOSTMEM_H

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A number from a one-line file (or after `key` in a "key: value kB" file); 0 when absent. */
static inline int gnn_read_number(const char *path, const char *key, unsigned long long *v) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[256];
  int ok = 0;
  size_t kl = key ? strlen(key) : 0;
  while (!ok && fgets(line, sizeof line, f)) {
    if (key && strncmp(line, key, kl) != 0) continue;
    ok = sscanf(line + kl, " %llu", v) == 1;
    if (!key) break;
  }
  fclose(f);
  return ok;
}

/* Host memory the process can still take: MemAvailable, the cgroup's room, the address space
 * left under RLIMIT_AS (ulimit -v: where a process is confined, it is the binding one). */
static inline size_t gnn_host_available(void) {
  size_t a = SIZE_MAX;
  unsigned long long v, cur;
  if (gnn_read_number("/proc/meminfo", "MemAvailable:", &v) && v * 1024 < a) a = (size_t)(v * 1024);
  if (gnn_read_number("/sys/fs/cgroup/memory.max", NULL, &v) && gnn_read_number("/sys/fs/cgroup/memory.current", NULL, &cur)) {
    size_t room = v > cur ? (size_t)(v - cur) : 0;
    if (room < a) a = room;
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && gnn_read_number("/proc/self/statm", NULL, &v)) {
    unsigned long long used = v * (unsigned long long)sysconf(_SC_PAGESIZE);
    size_t room = rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 0;
    if (room < a) a = room;
  }
  return a;
}

/* The reading below is exact only with a long double that holds 64 bits of mantissa (x86-64's
 * 80-bit one, aarch64's 128-bit one): 2^64 - 1 and 2^64 are then two numbers, not one. */
_Static_assert(LDBL_MANT_DIG >= 64, "gnn_parse_bytes needs a long double with 64 bits of mantissa");

/* "123", "64K", "1.5G", "512MiB": *out bytes (K, M, G, T powers of 1000, KiB ... TiB of 1024, a B
 * after the number or after K ... T optional); 0 when not a byte count: NaN, a negative, and also
 * 2^64 bytes or more, in any spelling ("inf", "1e100", "18446744073709551616", "16777216TiB"),
 * which a cap would read as no cap at all, the opposite of a limit. One comparison decides it
 * because the number is read as a long double: a double rounds every whole number from
 * 2^64 - 1024 up to 2^64 itself, so that 2^64 - 1 and 2^64 could not be told apart. A fraction of
 * a byte is dropped ("1.5" is 1). */
static inline int gnn_parse_bytes(const char *s, size_t *out) {
  char *end;
  long double v = strtold(s, &end);
  if (end == s || !(v >= 0)) return 0;
  static const char units[] = "KMGT";
  const char *u = *end ? strchr(units, *end) : NULL;
  int bin = u && end[1] == 'i' && end[2] == 'B'; /* KiB ... TiB */
  if (u) {
    for (int i = 0; i <= (int)(u - units); i++) v *= bin ? 1024.0L : 1000.0L;
    end += bin ? 3 : 1;
  }
  if (!bin && *end == 'B') end++; /* 512B, 2GB */
  if (*end || !(v < 18446744073709551616.0L)) return 0; /* 2^64 or more, infinity included */
  *out = (size_t)v;
  return 1;
}

#endif
