/* unit.c -- unit tests of pieces that no .gnn input can reach on its own (tests/suites/unit.sh).
 *
 * Prints one "PASS name" or "FAIL name: why" line per check; exits 1 if any failed.
 */
#include "gnnc.h"

#include <stdlib.h>
#include <string.h>

static int failures;

static void check(bool ok, const char *name, const char *why) {
  if (ok) printf("PASS %s\n", name);
  else {
    printf("FAIL %s: %s\n", name, why);
    failures++;
  }
}

/* StrMap: every key found with its value after growing many times, absent keys absent, and a
 * second put of a key gives the same slot. */
static void test_strmap(void) {
  Arena a = {0};
  StrMap m = {0};
  enum { N = 20000 };
  char **keys = malloc(sizeof(char *) * N);
  for (int i = 0; i < N; i++) {
    keys[i] = arena_printf(&a, "k%d", i);
    void **slot = strmap_put(&a, &m, keys[i]);
    if (*slot) check(false, "strmap-new-slot-empty", keys[i]);
    *slot = keys[i];
  }
  bool ok = m.len == N;
  for (int i = 0; i < N && ok; i++) ok = strmap_get(&m, arena_printf(&a, "k%d", i)) == keys[i];
  check(ok, "strmap-get-after-growth", "a key is missing or maps to the wrong value");
  check(!strmap_get(&m, "k-1") && !strmap_get(&m, ""), "strmap-absent", "an absent key was found");
  void **s1 = strmap_put(&a, &m, "k7"), **s2 = strmap_put(&a, &m, arena_strdup(&a, "k7"));
  check(s1 == s2 && *s1 == keys[7] && m.len == N, "strmap-put-existing", "put of an existing key added a slot");
  StrMap empty = {0};
  check(!strmap_get(&empty, "x"), "strmap-get-empty", "found a key in an empty map");
  free(keys);
  arena_free(&a);
}

/* ir_verify: a parameter name defined twice is one problem, wherever the two are. */
static void test_verify_duplicate_params(void) {
  Arena a = {0};
  Module m = {.name = "M", .arena = &a};
  Shape s = {1, {2}};
  for (int i = 0; i < 1000; i++) ir_leaf(&m, OP_PARAM, FN_NONE, DOM_PARAM, &s, arena_printf(&a, "l%d.W", i), 0, (Loc){0, 0, 0});
  module_add_output(&m, "out", m.vals.items[m.vals.len - 1]);
  FILE *devnull = fopen("/dev/null", "w");
  check(ir_verify(&m, devnull) == 0, "verify-distinct-params", "distinct parameter names were rejected");
  ir_leaf(&m, OP_PARAM, FN_NONE, DOM_PARAM, &s, arena_strdup(&a, "l17.W"), 0, (Loc){0, 0, 0});
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  int bad = ir_verify(&m, out);
  fclose(out);
  check(bad == 1 && strstr(text, "param \"l17.W\" defined twice"), "verify-duplicate-param",
        "a parameter defined twice was not reported exactly once");
  free(text);
  fclose(devnull);
  arena_free(&a);
}

int main(void) {
  test_strmap();
  test_verify_duplicate_params();
  return failures ? 1 : 0;
}
