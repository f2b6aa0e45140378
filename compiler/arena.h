/* arena.h -- the ground floor: allocation (arena.c). Every AST node and IR value lives in one
 * arena per compilation, freed in one go; the growable arrays and string maps every layer uses
 * keep their storage in it. Also GNN_PRINTF, the printf-format check of the compiler's variadic
 * declarations. Includes nothing of the compiler's.
 */
#ifndef GNNC_ARENA_H
#define GNNC_ARENA_H

#include <stddef.h>

#if defined(__GNUC__)
#define GNN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GNN_PRINTF(a, b)
#endif

typedef struct ArenaBlock ArenaBlock;
typedef struct {
  ArenaBlock *head;
  size_t used_total;
} Arena;

void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned; aborts only on OOM */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) GNN_PRINTF(2, 3);
void arena_free(Arena *a);
/* A point to return to: arena_release frees everything allocated since arena_mark (a scratch
 * use of the arena, such as a lowering thrown away: nothing older may point into it). */
typedef struct {
  ArenaBlock *head;
  size_t used, used_total;
} ArenaMark;
ArenaMark arena_mark(const Arena *a);
void arena_release(Arena *a, ArenaMark m);

/* A growable array of pointers whose storage lives in an arena. */
typedef struct {
  void **items;
  int len, cap;
} PtrVec;
void vec_push(Arena *a, PtrVec *v, void *p);

/* A hash map from strings to pointers, stored in an arena. Keys are not copied; a key whose
 * value was set to NULL reads as absent. */
typedef struct {
  const char **keys;
  void **vals;
  int len, cap;
} StrMap;
void *strmap_get(const StrMap *m, const char *key);     /* NULL if absent */
void **strmap_put(Arena *a, StrMap *m, const char *key); /* the key's slot, added (NULL) if absent */

#endif
