/* bench/gen_pointcloud.c -- a deterministic batch of k-nearest-neighbour point clouds for
 * EdgeConv (DGCNN), in the dataset-folder format gnn-run and gnnc read (docs/runtime.md):
 *
 *   gen_pointcloud DIR [--clouds N] [--points N] [--k N] [--seed N]
 *
 * defaults: 32 clouds of 1024 points, k = 20, seed 1 (32,768 vertices, 655,360 edges), the
 * DGCNN setting (ModelNet40: 1024 points per shape, k = 20). Each cloud is a disjoint block of
 * vertex ids; the clouds are generated shapes (a sphere, a box surface or a torus, scaled and
 * with a little noise), not ModelNet data: only the graph's size and degree profile matter for
 * speed. Every vertex gets exactly k in-edges, one from each of its k nearest other points of
 * its cloud (ties by the lower id); an edge "u v" is the message u -> v (neighbour -> point),
 * as in tests/interp/graphs/pointcloud. Writes:
 *
 *   DIR/graph.edges    "# ..." comments, then "src dst" per line, grouped by destination
 *   DIR/features.svm   one line per vertex: "0 1:x 2:y 3:z" (EdgeConv's input, vertex[3])
 *   DIR/labels.txt     the shape class of each vertex's cloud (0, 1, 2)
 *
 * The output depends only on the arguments (splitmix64, no libc random), so two runs give the
 * same bytes on any machine.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng_state;
static uint64_t splitmix(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform01(void) { return (double)(splitmix() >> 11) * 0x1.0p-53; }
static double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

/* One point on the surface of shape `cls`, plus noise. */
static void sample(int cls, const double scale[3], double p[3]) {
  const double pi = 3.14159265358979323846;
  if (cls == 0) { /* sphere: a uniform direction (rejection sampling in the ball, normalised) */
    double x, y, z, r2;
    do {
      x = uniform(-1, 1), y = uniform(-1, 1), z = uniform(-1, 1);
      r2 = x * x + y * y + z * z;
    } while (r2 < 1e-6 || r2 > 1);
    double r = sqrt(r2);
    p[0] = x / r, p[1] = y / r, p[2] = z / r;
  } else if (cls == 1) { /* surface of the cube [-1, 1]^3: a face, then a point on it */
    int face = (int)(splitmix() % 6);
    double a = uniform(-1, 1), b = uniform(-1, 1), s = face & 1 ? 1 : -1;
    if (face < 2) p[0] = s, p[1] = a, p[2] = b;
    else if (face < 4) p[0] = a, p[1] = s, p[2] = b;
    else p[0] = a, p[1] = b, p[2] = s;
  } else { /* torus, radii 0.7 and 0.3 */
    double u = uniform(0, 2 * pi), v = uniform(0, 2 * pi);
    p[0] = (0.7 + 0.3 * cos(v)) * cos(u);
    p[1] = (0.7 + 0.3 * cos(v)) * sin(u);
    p[2] = 0.3 * sin(v);
  }
  for (int d = 0; d < 3; d++) p[d] = p[d] * scale[d] + uniform(-0.01, 0.01);
}

static long parse(const char *s, long lo, long hi, const char *what) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) {
    fprintf(stderr, "gen_pointcloud: %s wants %ld to %ld, got '%s'\n", what, lo, hi, s);
    exit(2);
  }
  return v;
}

static FILE *open_out(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "gen_pointcloud: cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
  return f;
}

static void close_out(FILE *f, const char *name) {
  if (ferror(f) || fclose(f) != 0) {
    fprintf(stderr, "gen_pointcloud: writing %s failed\n", name);
    exit(1);
  }
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  long clouds = 32, points = 1024, k = 20, seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--clouds") && v) clouds = parse(v, 1, 1 << 20, a), i++;
    else if (!strcmp(a, "--points") && v) points = parse(v, 2, 1 << 16, a), i++;
    else if (!strcmp(a, "--k") && v) k = parse(v, 1, 1 << 16, a), i++;
    else if (!strcmp(a, "--seed") && v) seed = parse(v, 0, 1L << 62, a), i++;
    else if (a[0] != '-' && !dir) dir = a;
    else {
      fprintf(stderr, "usage: gen_pointcloud DIR [--clouds N] [--points N] [--k N] [--seed N]\n");
      return 2;
    }
  }
  if (!dir) {
    fprintf(stderr, "usage: gen_pointcloud DIR [--clouds N] [--points N] [--k N] [--seed N]\n");
    return 2;
  }
  if (k >= points) {
    fprintf(stderr, "gen_pointcloud: --k %ld needs more than %ld points per cloud\n", k, points);
    return 2;
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "gen_pointcloud: cannot create %s: %s\n", dir, strerror(errno));
    return 1;
  }
  rng_state = 0x70c1u ^ (uint64_t)seed * 0x9e3779b97f4a7c15ull;
  long nv = clouds * points;
  double *pts = malloc(sizeof(double) * 3 * (size_t)points);
  double *d2 = malloc(sizeof(double) * (size_t)points);
  long *best = malloc(sizeof(long) * (size_t)(k + 1));
  FILE *fe = open_out(dir, "graph.edges"), *ff = open_out(dir, "features.svm"), *fl = open_out(dir, "labels.txt");
  fprintf(fe, "# pointcloud batch: %ld clouds x %ld points = %ld vertices, k = %ld nearest neighbours "
              "(neighbour -> point), %ld edges, seed %ld (bench/gen_pointcloud.c)\n# src dst (message src -> dst)\n",
          clouds, points, nv, k, nv * k, seed);
  fprintf(ff, "# pointcloud batch: LIBSVM 'label idx:value ...', idx 1-based, the 3 coordinates of each point\n");
  fprintf(fl, "# pointcloud batch: shape class of each point's cloud (0 sphere, 1 cube, 2 torus)\n");
  for (long c = 0; c < clouds; c++) {
    int cls = (int)(c % 3);
    double scale[3];
    for (int d = 0; d < 3; d++) scale[d] = uniform(0.6, 1.4);
    for (long i = 0; i < points; i++) sample(cls, scale, pts + 3 * i);
    long base = c * points;
    for (long i = 0; i < points; i++) {
      fprintf(ff, "%d 1:%.6f 2:%.6f 3:%.6f\n", cls, pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
      fprintf(fl, "%d\n", cls);
    }
    for (long i = 0; i < points; i++) {
      const double *p = pts + 3 * i;
      for (long j = 0; j < points; j++) {
        double dx = pts[3 * j] - p[0], dy = pts[3 * j + 1] - p[1], dz = pts[3 * j + 2] - p[2];
        d2[j] = dx * dx + dy * dy + dz * dz;
      }
      /* the k smallest of d2 over j != i, ties by lower j: insertion into a sorted list */
      long n = 0;
      for (long j = 0; j < points; j++) {
        if (j == i) continue;
        if (n == k && !(d2[j] < d2[best[k - 1]])) continue;
        long at = n < k ? n++ : k - 1;
        while (at > 0 && d2[j] < d2[best[at - 1]]) best[at] = best[at - 1], at--;
        best[at] = j;
      }
      for (long t = 0; t < k; t++) fprintf(fe, "%ld %ld\n", base + best[t], base + i);
    }
  }
  close_out(fe, "graph.edges");
  close_out(ff, "features.svm");
  close_out(fl, "labels.txt");
  free(pts), free(d2), free(best);
  printf("gen_pointcloud: %s: %ld clouds x %ld points = %ld vertices, %ld edges (k = %ld, seed %ld)\n", dir, clouds,
         points, nv, nv * k, k, seed);
  return 0;
}
