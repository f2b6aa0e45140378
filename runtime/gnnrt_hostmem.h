/* gnnrt_hostmem.h -- how much host memory this process can still take: one rule for the
 * runtime (rt_host_available, core.c: the graph builder's check and the host build's
 * gnn_mem_available) and the interpreter's graph loader (compiler/graph.c, which does not link
 * the runtime), so that a graph too large for the machine is refused with a message before it
 * is allocated, not OOM-killed while its arrays are filled (an overcommitting kernel grants
 * calloc of any size). */
#ifndef GNNRT_HOSTMEM_H
#define GNNRT_HOSTMEM_H

#include <stdint.h>
#include <stdio.h>
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

#endif
