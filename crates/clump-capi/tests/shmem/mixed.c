/* MPI and OpenSHMEM in one process, one libclump: MPI_Init first, then shmem_init joins
 * through it. Both work side by side: a ring of puts checked with an MPI reduction, and
 * MPI messages between SHMEM barriers. Prints "mixed ok" once per process. */
#include "check.h"
#include <mpi.h>

int main(int argc, char **argv) {
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    shmem_init();
    CHECK(shmem_my_pe() == rank && shmem_n_pes() == size);
    int *ring = shmem_malloc(sizeof(int));
    shmem_int_p(ring, rank, (rank + 1) % size);
    shmem_barrier_all();
    int left = (rank + size - 1) % size, sum = 0;
    CHECK(*ring == left);
    CHECK(MPI_Allreduce(ring, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    if (size > 1) {
        int token = rank * 7;
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(token == 0);
        }
    }
    CHECK(shmem_int_atomic_fetch_add(ring, 0, 0) == size - 1);
    shmem_free(ring);
    shmem_finalize();
    MPI_Finalize();
    printf("mixed ok\n");
    return 0;
}
