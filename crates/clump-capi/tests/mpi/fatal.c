/* MPI_ERRORS_ARE_FATAL, the default handler: an error (here a send to a rank that does not
 * exist) ends the whole job with a message and a non-zero status. Every rank but the last
 * waits in a receive that nothing will match, so only the job's end can release it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) {
        MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
        printf("returned from a fatal error\n");
    } else {
        MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received what was never sent\n");
    }
    MPI_Finalize();
    return 0;
}
