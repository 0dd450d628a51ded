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

#endif
