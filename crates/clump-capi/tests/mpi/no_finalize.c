/* A program that ends without MPI_Finalize (run over UDP): each rank sends its right
 * neighbour short messages nobody replies to, so each still owes their credits when it
 * returns from main. The endpoints close as the process exits: that must not panic, the
 * owed credits sent; the launcher then reports a rank that exited without MPI_Finalize
 * and fails the job, as Open MPI's mpirun does. */
#include "check.h"

int main(int argc, char **argv) {
    int rank, size;
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 3; i++) {
        int got = -1;
        CHECK_OK(MPI_Sendrecv(&i, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == i);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    printf("no_finalize ok\n");
    return 0;
}
