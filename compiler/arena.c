/* arena.c -- bump allocation for the AST and the IR.
 *
 * A compilation allocates many small objects whose lifetimes all end together, so they come
 * from a chain of large blocks and are released by one arena_free (chibicc and QBE do the same).
 * Allocations are zeroed so that new nodes start in a known state.
 */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
  ArenaBlock *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (!b || b->size - b->used < n) {
    size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
    b = malloc(sizeof(ArenaBlock) + size);
    if (!b) {
      fputs("gnnc: out of memory\n", stderr);
      abort();
    }
    b->size = size;
    b->used = 0;
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  a->used_total += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
  a->used_total = 0;
}

ArenaMark arena_mark(const Arena *a) {
  return (ArenaMark){a->head, a->head ? a->head->used : 0, a->used_total};
}

void arena_release(Arena *a, ArenaMark m) {
  while (a->head && a->head != m.head) { /* the blocks made since the mark */
    ArenaBlock *next = a->head->next;
    free(a->head);
    a->head = next;
  }
  if (a->head) a->head->used = m.used;
  a->used_total = m.used_total;
}

void vec_push(Arena *a, PtrVec *v, void *p) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    void **items = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (v->len) memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = p;
}

/* FNV-1a, 64-bit. */
static uint64_t str_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

void *strmap_get(const StrMap *m, const char *key) {
  if (!m->cap) return NULL;
  size_t mask = (size_t)m->cap - 1;
  for (size_t i = str_hash(key) & mask;; i = (i + 1) & mask) {
    if (!m->keys[i]) return NULL;
    if (strcmp(m->keys[i], key) == 0) return m->vals[i];
  }
}

/* Linear probing in a power-of-two table at most half full. */
void **strmap_put(Arena *a, StrMap *m, const char *key) {
  if (2 * (m->len + 1) > m->cap) {
    StrMap old = *m;
    m->cap = old.cap ? 2 * old.cap : 16;
    m->keys = arena_alloc(a, sizeof(char *) * (size_t)m->cap);
    m->vals = arena_alloc(a, sizeof(void *) * (size_t)m->cap);
    m->len = 0;
    for (int i = 0; i < old.cap; i++)
      if (old.keys[i]) *strmap_put(a, m, old.keys[i]) = old.vals[i];
  }
  size_t mask = (size_t)m->cap - 1;
  size_t i = str_hash(key) & mask;
  for (; m->keys[i]; i = (i + 1) & mask)
    if (strcmp(m->keys[i], key) == 0) return &m->vals[i];
  m->keys[i] = key;
  m->len++;
  return &m->vals[i];
}
