/* gradcheck.h -- a tool on the pipeline (gradcheck.c, gnnc gradcheck): the autodiff pass's
 * gradients against finite differences in the interpreter (interp.h).
 */
#ifndef GNNC_GRADCHECK_H
#define GNNC_GRADCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "interp.h"

/* `gnnc gradcheck [options] FILE.gnn --graph PATH` (argv[0] is "gradcheck"): the gradients
 * of the autodiff pass against finite differences in the float64 interpreter. Returns the
 * exit status (0 all within tolerance, 1 not or an error in the input, 2 a bad command line). */
int gradcheck_main(int argc, char **argv);

typedef struct {
  uint64_t seed;          /* grad.out's random draw */
  uint64_t dropout_seed;
  bool inference;         /* dropout off */
  bool no_fd;             /* evaluate (and save) the gradients only */
  bool verbose;           /* print every entry */
  int64_t samples;        /* > 0: check this many random entries of a larger parameter */
  double tol, eps, floor; /* floor 0: 1e-6 x the largest |grad| */
  const char *grad_out, *save_grads, *corrupt, *graph_name;
  const char *init;       /* the --init the parameters came from (NULL: --params, or unknown) */
} GradcheckOpts;
/* The check itself on a training module (one with grad.out), a graph and parameters;
 * prints the report to stdout and returns the exit status. */
int gradcheck_module(const Module *m, const Graph *g, ParamSet *ps, const GradcheckOpts *o);

#endif
