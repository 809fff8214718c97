/* eig.h: `bristle eig SCENARIO [--contacts free|bonded]`: undamped natural
 * frequencies of the linear structure (beams and the bodies attached to them). */
#ifndef BR_EIG_H
#define BR_EIG_H

#include "model/beam.h"

/* structure (M, K), extra stiffness (ndof x ndof column-major, or NULL) -> ascending
 * frequencies in Hz into f[ndof]; 0 or -1 with err */
int br_eig_frequencies(const br_struct *s, const double *Kextra, double *f, char *err, size_t errlen);

/* arguments after "eig" -> exit status (0, 1 failure, 2 bad input) */
int br_eig_main(int argc, char **argv);

#endif
