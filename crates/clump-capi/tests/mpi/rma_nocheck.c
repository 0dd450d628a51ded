/* General active target under MPI_MODE_NOCHECK: the program asserts that every start
 * comes after its posts, so a post tells its origins nothing and waits for nobody. Rank 1
 * posts to rank 0 while rank 0 sleeps outside MPI (it could not answer a message): the
 * post must return at once. Then, after a barrier, rank 0 starts (NOCHECK too), puts
 * into rank 1's window and completes; rank 1 waits and checks the value. Two rounds, the
 * second without the sleep. Prints "rma_nocheck ok" on each rank. */
#define _DEFAULT_SOURCE /* usleep, beyond C11 */
#include "check.h"
#include <unistd.h>

#define NAP_US 3000000 /* rank 0's sleep; a post that waited for it takes about as long */

int main(int argc, char **argv) {
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    int a = -1;
    MPI_Win win;
    CHECK_OK(MPI_Win_create(&a, sizeof a, sizeof a, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (size >= 2) {
        MPI_Group world, g;
        CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
        int other = rank == 0 ? 1 : 0;
        CHECK_OK(MPI_Group_incl(world, 1, &other, &g));
        for (int round = 0; round < 2; round++) {
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 1) {
                double t0 = MPI_Wtime();
                CHECK_OK(MPI_Win_post(g, MPI_MODE_NOCHECK, win));
                CHECK(MPI_Wtime() - t0 < NAP_US / 3e6);
            } else if (rank == 0 && round == 0) {
                usleep(NAP_US);
            }
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every post has returned */
            if (rank == 0) {
                int v = 100 + round;
                CHECK_OK(MPI_Win_start(g, MPI_MODE_NOCHECK, win));
                CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
                CHECK_OK(MPI_Win_complete(win));
            } else if (rank == 1) {
                CHECK_OK(MPI_Win_wait(win));
                CHECK(a == 100 + round);
            }
        }
        CHECK_OK(MPI_Group_free(&g));
        CHECK_OK(MPI_Group_free(&world));
    }
    CHECK_OK(MPI_Win_free(&win));
    printf("rma_nocheck ok\n");
    MPI_Finalize();
    return 0;
}
