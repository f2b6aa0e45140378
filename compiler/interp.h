/* interp.h -- a reader of the operator IR (interp.c): the float64 interpreter, the oracle the
 * generated code is checked against; parameters and tensor files. Above the operator IR and
 * the graph loaders (graph.h).
 */
#ifndef GNNC_INTERP_H
#define GNNC_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "graph.h"

typedef struct {
  const char *name;
  Shape shape;
  double *data;
} Tensor;

typedef struct {
  Tensor *params;
  int nparams;
} ParamSet;

/* Seeded initialisation: Glorot-uniform for rank >= 2, zeros below (init="glorot"), or
 * uniform in [-1, 1) for every parameter (init="uniform", for tests). A parameter declared
 * with an initial value (`param g: [D] = 1`: iattr 1, the value in fattr) takes it in every mode. */
bool params_init(ParamSet *ps, const Module *m, const char *init, uint64_t seed);
bool params_load(ParamSet *ps, const Module *m, const char *path, char *err, size_t errlen);
bool params_save(const ParamSet *ps, const char *path, char *err, size_t errlen);
/* A tensor file's body written behind the runtime's checksum line, atomically (interp.c). */
bool tensors_write_file(const char *path, const char *body, size_t len, char *err, size_t errlen);
/* Every forward input of m from a tensor file (rows: the graph's vertices or edges in file order,
 * or 1), checked as params_load checks parameters; ins holds them by name (Interp.inputs). */
bool inputs_load(ParamSet *ins, const Module *m, const Graph *g, const char *path, char *err, size_t errlen);
void params_free(ParamSet *ps);

typedef struct {
  const Module *m;
  const Graph *g;
  const ParamSet *ps;
  uint64_t seed;     /* for edge inputs not given */
  bool training;     /* dropout active (inference: dropout is the identity) */
  uint64_t dropout_seed;
  const Tensor *inputs; /* optional: inputs by name (features, d_out, edge inputs); rows x elems */
  int ninputs;
  bool keep_all;     /* keep every value's array (for tests that read intermediates) */
  bool forward_only; /* skip the backward values of a training module (their arrays stay NULL) */
  const bool *keep;  /* optional, per value id: keep this value's array after its last use */
  double *const *given; /* optional, per value id: its array, computed by the caller (not freed) */
  double **vals;     /* per value id: rows x elems */
} Interp;

/* Evaluates the module in float64. Returns false with err set on a runtime error
 * (an input that does not match the graph). The output is vals[m->output->id]. */
bool interp_run(Interp *in, char *err, size_t errlen);
void interp_free(Interp *in);
int64_t value_rows(const Value *v, const Graph *g);

uint64_t rng_next(uint64_t *state); /* splitmix64 */
double rng_uniform(uint64_t *state); /* [0, 1) */

#endif
