/* The last rank returns from main after MPI_Init without MPI_Finalize while every other
 * rank waits in MPI_Recv for it: the launcher must end the job at once, naming that
 * rank, with a failed status (as Open MPI's mpirun does), not leave the others waiting
 * forever. The leaving rank prints when it leaves (CLOCK_REALTIME, in ms) for the test
 * to time the end of the job. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include <time.h>

int main(int argc, char **argv) {
    int rank, size, x = 0;
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        printf("leaving at %lld\n", (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
        fflush(stdout);
        return 0;
    }
    CHECK_OK(MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    printf("received %d\n", x);
    MPI_Finalize();
    return 0;
}
