/* Communicators made collectively over a group only (MPI_Comm_create_group: the ranks
 * outside it take no part), and the info-hint calls on communicators. */
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* The even ranks make a communicator; the odd ones do not call at all but talk
     * among themselves on world meanwhile. */
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[64], nev = 0;
    for (int r = 0; r < size; r += 2)
        ranks[nev++] = r;
    MPI_Group_incl(world, nev, ranks, &evens);
    if (rank % 2 == 0) {
        MPI_Comm ev;
        CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &ev));
        CHECK(ev != MPI_COMM_NULL);
        MPI_Comm_size(ev, &n);
        CHECK(n == nev);
        int r, sum = 0;
        MPI_Comm_rank(ev, &r);
        CHECK(r == rank / 2);
        CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ev));
        CHECK(sum == nev * (nev - 1));
        MPI_Comm_free(&ev);
    } else if (rank + 2 < size) {
        CHECK_OK(MPI_Send(&rank, 1, MPI_INT, rank + 2, 3, MPI_COMM_WORLD));
    }
    if (rank % 2 == 1 && rank >= 3) {
        int got;
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, rank - 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == rank - 2);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    /* World's collectives still line up afterwards. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Info info;
    MPI_Comm dup;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
    CHECK_OK(MPI_Comm_set_info(dup, info));
    MPI_Info used;
    CHECK_OK(MPI_Comm_get_info(dup, &used));
    MPI_Info_get_nkeys(used, &n);
    CHECK(n == 0);
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    int sum = 0;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == size * (size - 1) / 2);
    MPI_Comm_free(&dup);

    MPI_Finalize();
    printf("comm_group ok\n");
    return 0;
}
