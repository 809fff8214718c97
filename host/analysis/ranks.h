/* ranks.h: the processes a study is split across (MPI ranks when Bristle is built with MPI and
 * started by an MPI launcher: mpirun, srun; otherwise one rank). The study engine (study.c,
 * study_out.c) needs only these few collective operations; without MPI they are the one-rank
 * identities, so the same code runs either way. Every call is collective: each rank makes it, in
 * the same order. */
#ifndef BR_RANKS_H
#define BR_RANKS_H

#include <stddef.h>

typedef struct br_ranks {
    int rank, size; /* this process, how many */
    int mpi;        /* MPI was started here (br_ranks_end finalizes it) */
} br_ranks;

/* argc, argv -> R: MPI started when built with it and launched by an MPI launcher (its environment
 * says so; BRISTLE_MPI=0 in it: never), else one rank; 0, or -1 with a message on stderr (MPI would
 * not start, or a launcher started several processes of a build without MPI) */
int br_ranks_begin(br_ranks *R, int *argc, char ***argv);

/* R -> MPI finalized where br_ranks_begin started it */
void br_ranks_end(br_ranks *R);

/* nv items, R -> [*v0, *v1): this rank's block of the static split (blocks differ by one at most,
 * rank order is item order) */
void br_ranks_block(const br_ranks *R, long nv, int rank, long *v0, long *v1);

/* x on every rank -> the largest on every rank */
long br_ranks_max(const br_ranks *R, long x);

/* bytes at buf on rank 0 -> the same bytes at buf on every rank */
void br_ranks_bcast(const br_ranks *R, void *buf, size_t bytes);

/* each rank's send (bytes of it) -> on rank 0, every rank's bytes one after another in rank order
 * at recv (which must hold their sum; NULL elsewhere) */
void br_ranks_gather_bytes(const br_ranks *R, const void *send, size_t bytes, void *recv);

/* R -> every rank waits for the others */
void br_ranks_barrier(const br_ranks *R);

#endif
