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

/* A session returning errors and a communicator of its process set mpi://WORLD, named
 * `tag`; the caller frees the communicator, then finalizes the session. */
static inline MPI_Comm session_world(MPI_Session *session, const char *tag)
{
    MPI_Group group;
    MPI_Comm comm;
    CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session));
    CHECK_OK(MPI_Group_from_session_pset(*session, "mpi://WORLD", &group));
    CHECK_OK(MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
    CHECK_OK(MPI_Group_free(&group));
    return comm;
}

#endif
