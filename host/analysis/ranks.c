/* ranks.c: the ranks of ranks.h over MPI (BRISTLE_HAVE_MPI), or one rank. Byte counts travel in
 * pieces of at most 1 GiB (MPI counts are ints). */
#include "analysis/ranks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BRISTLE_HAVE_MPI
#include <mpi.h>
#endif

/* the environment of a process an MPI launcher started (Open MPI's mpirun, PMI and PMIx: MPICH's
 * hydra, Slurm's srun), unless BRISTLE_MPI=0 says to run as one process regardless */
static int launched_by_mpi(void)
{
    const char *off = getenv("BRISTLE_MPI");
    if (off && !strcmp(off, "0")) return 0;
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
        if (getenv(vars[k])) return 1;
    return 0;
}

#ifndef BRISTLE_HAVE_MPI
/* the process count a launcher gave this process's job (1 when none says more) */
static long launched_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    long n = 1;
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        const long m = v ? strtol(v, NULL, 10) : 1;
        n = m > n ? m : n;
    }
    return n;
}
#endif

int br_ranks_begin(br_ranks *R, int *argc, char ***argv)
{
    R->rank = 0, R->size = 1, R->mpi = 0;
    if (!launched_by_mpi()) return 0;
#ifdef BRISTLE_HAVE_MPI
    int provided = 0;
    /* OpenMP threads inside a rank; MPI is called from the main thread only */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "bristle: MPI could not be started\n");
        return -1;
    }
    R->mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &R->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R->size);
#else
    (void)argc, (void)argv;
    /* each of the launcher's processes would run the whole study into the same folder */
    if (launched_size() > 1) {
        fprintf(stderr, "bristle: started as one of %ld processes by an MPI launcher, but built without MPI: "
                        "each would run the whole study into the same folder (build with libopenmpi-dev, or set "
                        "BRISTLE_MPI=0 to run it in each process regardless)\n", launched_size());
        return -1;
    }
#endif
    return 0;
}

void br_ranks_end(br_ranks *R)
{
#ifdef BRISTLE_HAVE_MPI
    if (R->mpi) MPI_Finalize();
#endif
    R->mpi = 0;
}

void br_ranks_block(const br_ranks *R, long nv, int rank, long *v0, long *v1)
{
    /* the first nv % size ranks take one item more */
    const long q = nv / R->size, rem = nv % R->size;
    *v0 = rank * q + (rank < rem ? rank : rem);
    *v1 = *v0 + q + (rank < rem ? 1 : 0);
}

long br_ranks_max(const br_ranks *R, long x)
{
#ifdef BRISTLE_HAVE_MPI
    if (R->size > 1) {
        long y = x;
        MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        return y;
    }
#else
    (void)R;
#endif
    return x;
}

#ifdef BRISTLE_HAVE_MPI
enum { PIECE = 1 << 30 };
#endif

void br_ranks_bcast(const br_ranks *R, void *buf, size_t bytes)
{
#ifdef BRISTLE_HAVE_MPI
    if (R->size > 1)
        for (size_t o = 0; o < bytes; o += PIECE) {
            const size_t k = bytes - o < (size_t)PIECE ? bytes - o : (size_t)PIECE;
            MPI_Bcast((char *)buf + o, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
        }
#else
    (void)R, (void)buf, (void)bytes;
#endif
}

void br_ranks_gather_bytes(const br_ranks *R, const void *send, size_t bytes, void *recv)
{
#ifdef BRISTLE_HAVE_MPI
    if (R->size > 1) {
        /* rank 0 learns each rank's count, then receives them in rank order, a piece at a time */
        long mine = (long)bytes;
        long *all = R->rank == 0 ? malloc((size_t)R->size * sizeof(long)) : NULL;
        if (R->rank == 0 && !all) {
            fprintf(stderr, "bristle: out of memory gathering the ranks' results\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Gather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        if (R->rank == 0) {
            char *p = recv;
            if (p != send) memmove(p, send, bytes);
            p += bytes;
            for (int r = 1; r < R->size; p += all[r], r++)
                for (long o = 0; o < all[r]; o += PIECE) {
                    const long k = all[r] - o < PIECE ? all[r] - o : PIECE;
                    MPI_Recv(p + o, (int)k, MPI_BYTE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            free(all);
        } else {
            for (size_t o = 0; o < bytes; o += PIECE) {
                const size_t k = bytes - o < (size_t)PIECE ? bytes - o : (size_t)PIECE;
                MPI_Send((const char *)send + o, (int)k, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
            }
        }
        return;
    }
#else
    (void)R;
#endif
    if (recv != send) memmove(recv, send, bytes);
}

void br_ranks_barrier(const br_ranks *R)
{
#ifdef BRISTLE_HAVE_MPI
    if (R->size > 1) MPI_Barrier(MPI_COMM_WORLD);
#else
    (void)R;
#endif
}
