/* General active target as a ping-pong (OSU's osu_put_latency -s pscw): in each round
 * rank 0 starts, puts the round's number into rank 1's window and completes, then posts
 * and waits; rank 1 posts and waits, checks the number, then starts, puts it back and
 * completes. Every call waits for the other rank's message, so a wait that gives its core
 * away at once (a time slice of whatever else runs on the machine per handoff) makes each
 * round take milliseconds; with 2 processes, which have a core each on 2 cores, the
 * rounds must take 50 ms or less on average (under 5 ms at load 30, 11 at load 49;
 * 190 ms at load 24 when every wait yielded). With more processes than cores the waits
 * must yield, so fewer rounds, untimed. Other ranks only take part in the window.
 * Prints "rma_pscw_pingpong ok" on each rank. */
#include "check.h"

#define ROUNDS 400
#define ROUNDS_SHARING_CORES 50
#define MAX_ROUND_S 0.05

int main(int argc, char **argv) {
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    int a = -1;
    MPI_Win win;
    CHECK_OK(MPI_Win_create(&a, sizeof a, sizeof a, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (size >= 2 && rank < 2) {
        MPI_Group world, g;
        CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
        int other = 1 - rank;
        CHECK_OK(MPI_Group_incl(world, 1, &other, &g));
        int rounds = size == 2 ? ROUNDS : ROUNDS_SHARING_CORES;
        double t0 = MPI_Wtime();
        for (int round = 0; round < rounds; round++) {
            int v = round;
            if (rank == 0) {
                CHECK_OK(MPI_Win_start(g, 0, win));
                CHECK_OK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
                CHECK_OK(MPI_Win_complete(win));
                CHECK_OK(MPI_Win_post(g, 0, win));
                CHECK_OK(MPI_Win_wait(win));
            } else {
                CHECK_OK(MPI_Win_post(g, 0, win));
                CHECK_OK(MPI_Win_wait(win));
                CHECK(a == round);
                CHECK_OK(MPI_Win_start(g, 0, win));
                CHECK_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
                CHECK_OK(MPI_Win_complete(win));
            }
        }
        double per_round = (MPI_Wtime() - t0) / rounds;
        CHECK(a == rounds - 1);
        if (size == 2 && per_round > MAX_ROUND_S) {
            printf("rank %d: %.3f ms per round\n", rank, per_round * 1e3);
            CHECK(per_round <= MAX_ROUND_S);
        }
        CHECK_OK(MPI_Group_free(&g));
        CHECK_OK(MPI_Group_free(&world));
    }
    CHECK_OK(MPI_Win_free(&win));
    printf("rma_pscw_pingpong ok\n");
    MPI_Finalize();
    return 0;
}
