/* A flush serves at once a request that already waits from a process of this host: a
 * process looping on one-sided calls to its own memory must not keep such a peer waiting
 * for a number of its calls (MPI's progress rule, without a poll on every flush).
 * Ranks 0 and 1, when they share memory (MPI_Win_allocate_shared succeeds between them;
 * it refuses processes reached over the network): TRIALS times, rank 0 raises a flag in
 * the shared window, then adds 1 to a counter in rank 1's MPI_Win_create memory (which
 * travels as a message to rank 1's handler). Rank 1 waits for the flag without calling
 * MPI, gives the message time to arrive, then calls MPI_Win_flush on its own window at
 * most TRIES times, each after a longer pause (a loaded machine may keep rank 0 from
 * sending for tens of milliseconds), and checks the counter moved; it then raises a
 * second flag, which rank 0 waits for before its next trial (else the poll that serves
 * one accumulate may serve the next as well). Fewer flushes in all than the one-in-16
 * poll needs.
 * Prints "rma_serve ok" on each rank. */
#define _DEFAULT_SOURCE /* usleep, beyond C11 */
#include "check.h"
#include <sched.h>
#include <unistd.h>

#define TRIALS 5
#define TRIES 3

static int rank, size;

/* Rank 1's side of one trial: whether the counter reached `want` within TRIES flushes,
 * the first after 20 ms, each next after ten times as long. */
static int served(MPI_Win win, long long *counter, long long want) {
    useconds_t pause = 20000;
    for (int t = 0; t < TRIES; t++, pause *= 10) {
        usleep(pause);
        CHECK_OK(MPI_Win_flush(1, win));
        if (__atomic_load_n(counter, __ATOMIC_SEQ_CST) == want) return 1;
    }
    return 0;
}

/* Waits, outside MPI, until `*flag` is `value`. */
static void await_flag(int *flag, int value) {
    double since = MPI_Wtime();
    while (__atomic_load_n(flag, __ATOMIC_SEQ_CST) != value) {
        CHECK(MPI_Wtime() - since < 30.0);
        sched_yield();
    }
}

/* flags[0]: the trial rank 0 started; flags[1]: the trial rank 1 checked. */
static void trials(MPI_Win win, long long *counter, int *flags) {
    long long one = 1;
    CHECK_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int i = 1; i <= TRIALS; i++) {
        if (rank == 0) {
            __atomic_store_n(&flags[0], i, __ATOMIC_SEQ_CST);
            CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, MPI_SUM,
                                    win));
            CHECK_OK(MPI_Win_flush(1, win));
            await_flag(&flags[1], i);
        } else {
            await_flag(&flags[0], i);
            if (!served(win, counter, i)) {
                fprintf(stderr, "rank 1: trial %d: a waiting accumulate not served by %d "
                                "flushes (counter %lld)\n", i, TRIES,
                        __atomic_load_n(counter, __ATOMIC_SEQ_CST));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            __atomic_store_n(&flags[1], i, __ATOMIC_SEQ_CST);
        }
    }
    CHECK_OK(MPI_Win_unlock_all(win));
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    long long counter = 0;
    MPI_Win win;
    CHECK_OK(MPI_Win_create(&counter, sizeof counter, sizeof counter, MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    MPI_Comm pair;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
    if (pair != MPI_COMM_NULL && size >= 2) {
        CHECK_OK(MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN));
        int *flags;
        MPI_Win shared;
        if (MPI_Win_allocate_shared(rank == 0 ? 2 * sizeof(int) : 0, sizeof(int),
                                    MPI_INFO_NULL, pair, &flags, &shared) == MPI_SUCCESS) {
            MPI_Aint bytes;
            int unit;
            CHECK_OK(MPI_Win_shared_query(shared, 0, &bytes, &unit, &flags));
            if (rank == 0) flags[0] = flags[1] = 0;
            CHECK_OK(MPI_Barrier(pair));
            trials(win, &counter, flags);
            CHECK_OK(MPI_Win_free(&shared));
            if (rank == 1) CHECK(counter == TRIALS);
        }
    }
    if (pair != MPI_COMM_NULL) CHECK_OK(MPI_Comm_free(&pair));
    CHECK_OK(MPI_Win_free(&win));
    printf("rma_serve ok\n");
    MPI_Finalize();
    return 0;
}
