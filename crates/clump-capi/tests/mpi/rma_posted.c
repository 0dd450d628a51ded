/* Puts and accumulates that do not wait for their answer: to a process on another host
 * they are sent and counted, and the epoch's completion (flush, unlock, fence, complete)
 * waits for them. Checked here:
 * - many puts and accumulates, then one completion, land whole under lock_all/flush_all,
 *   lock/unlock, fence and post/start/complete/wait; a put then accumulates to one
 *   location from one origin apply in order (MPI's default accumulate ordering);
 * - a put or accumulate to a process that sleeps outside MPI returns without it (before,
 *   each waited for the sleeper's answer over the network); the flush then waits for it.
 * Prints "rma_posted ok" on each rank. */
#define _DEFAULT_SOURCE /* usleep, beyond C11 */
#include "check.h"
#include <unistd.h>

#define ITER 2048 /* accesses per rank and mode */
#define SLOTS 64
#define ORDERED SLOTS /* the word a put and then accumulates go to */
#define COUNTER (SLOTS + 1)
#define WORDS (SLOTS + 2)
#define QUICK 32      /* accesses made while their target sleeps */
#define NAP_US 2000000 /* the sleep; accesses that waited for it take about as long */

static int rank, size;

/* ITER puts into the right neighbour's slots, one put then ITER accumulates to its ORDERED
 * word, and one accumulate into every rank's COUNTER: no completion in between. */
static void storm(MPI_Win win, long round) {
    int right = (rank + 1) % size;
    long one = 1;
    for (int i = 0; i < ITER; i++) {
        long v = round * 1000000 + i;
        CHECK_OK(MPI_Put(&v, 1, MPI_LONG, right, i % SLOTS, 1, MPI_LONG, win));
    }
    long base = round * 1000;
    CHECK_OK(MPI_Put(&base, 1, MPI_LONG, right, ORDERED, 1, MPI_LONG, win));
    for (int i = 0; i < ITER; i++)
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, right, ORDERED, 1, MPI_LONG, MPI_SUM, win));
    for (int t = 0; t < size; t++)
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, t, COUNTER, 1, MPI_LONG, MPI_SUM, win));
}

/* What the left neighbour's storm of `round` left in this process's window; the counter
 * must have gained `size` since `counted`. */
static void check_storm(const long *w, long round, long counted) {
    for (int s = 0; s < SLOTS; s++) {
        int last = ITER - SLOTS + s; /* the last put to slot s */
        CHECK(w[s] == round * 1000000 + last);
    }
    CHECK(w[ORDERED] == round * 1000 + ITER);
    CHECK(w[COUNTER] == counted + size);
}

/* The origin's own view right after its completion, before any barrier: a get to the
 * right neighbour sees its puts and accumulates. */
static void check_right(MPI_Win win, long round) {
    long got[WORDS];
    CHECK_OK(MPI_Get(got, WORDS, MPI_LONG, (rank + 1) % size, 0, WORDS, MPI_LONG, win));
    CHECK_OK(MPI_Win_flush((rank + 1) % size, win));
    CHECK(got[ORDERED] == round * 1000 + ITER);
    CHECK(got[SLOTS - 1] == round * 1000000 + ITER - 1);
}

static void modes(MPI_Win win, long *w) {
    long counted = 0;
    /* lock_all, then one flush_all */
    CHECK_OK(MPI_Win_lock_all(0, win));
    storm(win, 1);
    CHECK_OK(MPI_Win_flush_all(win));
    check_right(win, 1);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_storm(w, 1, counted);
    counted += size;
    /* Every rank has checked before any writes round 2 (shared locks wait for nobody):
     * a left neighbour past the barrier above may otherwise overwrite this process's
     * window before it looks. The other rounds open with a collective already. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* a lock per target, each completed by its unlock */
    int right = (rank + 1) % size;
    for (int t = 0; t < size; t++) CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    storm(win, 2);
    for (int t = 0; t < size; t++) CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    check_right(win, 2);
    CHECK_OK(MPI_Win_unlock(right, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_storm(w, 2, counted);
    counted += size;
    /* fence */
    CHECK_OK(MPI_Win_fence(0, win));
    storm(win, 3);
    CHECK_OK(MPI_Win_fence(0, win));
    check_storm(w, 3, counted);
    counted += size;
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* post/start/complete/wait: every rank exposes to and accesses all */
    MPI_Group world;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Win_post(world, 0, win));
    CHECK_OK(MPI_Win_start(world, 0, win));
    storm(win, 4);
    CHECK_OK(MPI_Win_complete(win));
    CHECK_OK(MPI_Win_wait(win));
    check_storm(w, 4, counted);
    CHECK_OK(MPI_Group_free(&world));
}

/* Rank 0 puts and accumulates into the last rank while that one sleeps outside MPI. */
static void while_asleep(MPI_Win win, long *w) {
    int last = size - 1;
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == last) {
        usleep(NAP_US);
    } else if (rank == 0) {
        long v = 77, one = 1;
        double t0 = MPI_Wtime();
        for (int i = 0; i < QUICK; i++) {
            CHECK_OK(MPI_Put(&v, 1, MPI_LONG, last, i % SLOTS, 1, MPI_LONG, win));
            CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, last, COUNTER, 1, MPI_LONG, MPI_SUM,
                                    win));
        }
        double took = MPI_Wtime() - t0;
        if (took >= NAP_US / 2e6) {
            fprintf(stderr, "rank 0: %d puts and accumulates to a sleeping rank took %.3f s\n",
                    2 * QUICK, took);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK_OK(MPI_Win_flush(last, win));
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == last && rank != 0) {
        for (int s = 0; s < QUICK && s < SLOTS; s++) CHECK(w[s] == 77);
    }
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    long *w;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(WORDS * sizeof(long), sizeof(long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &w, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i < WORDS; i++) w[i] = 0;
    CHECK_OK(MPI_Win_unlock(rank, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    modes(win, w);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    while_asleep(win, w);
    CHECK_OK(MPI_Win_free(&win));
    printf("rma_posted ok\n");
    MPI_Finalize();
    return 0;
}
