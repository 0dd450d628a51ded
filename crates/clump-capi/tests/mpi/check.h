/* What the MPI test programs share: a check that names the failing line and ends the
 * whole job, so a wrong result never passes silently. */
#ifndef MPI_TEST_CHECK_H
#define MPI_TEST_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            int check_rank_ = -1;                                                     \
            MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                              \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", check_rank_,      \
                    __FILE__, __LINE__, #cond);                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
        }                                                                             \
    } while (0)

#define CHECK_OK(call) CHECK((call) == MPI_SUCCESS)

/* MPI_Init with errors returned on MPI_COMM_WORLD; this process's rank, the job's size. */
static inline void start_returning_errors(int *argc, char ***argv, int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

#endif
