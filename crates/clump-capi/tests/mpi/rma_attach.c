/* Puts and gets to a same-host process's own memory (MPI_Win_create, and regions attached
 * to a dynamic window) need nothing from the target: they are copied by cross-memory
 * attach, so they complete while the target computes outside MPI. Rank 0 gets the words
 * each other rank published, then puts a strided vector and a last word into them, while
 * those ranks spin on their own memory without calling MPI, for at most 20 s. An access
 * outside what a dynamic window's member attached is still MPI_ERR_RMA_RANGE. Prints
 * "rma_attach ok" on each rank. */
#include "check.h"

#define WORDS 16

static int rank, size;

/* One round over window `win`, whose member t has `mem` at displacement at[t]; `step`
 * is the displacement of one int. */
static void round_trip(MPI_Win win, volatile int *mem, const MPI_Aint *at, MPI_Aint step) {
    for (int i = 0; i < WORDS; i++) mem[i] = 100 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    /* No lock messages either: the targets never answer one while they spin. */
    CHECK_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    if (rank == 0) {
        MPI_Datatype every_other;
        CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other));
        CHECK_OK(MPI_Type_commit(&every_other));
        for (int t = 1; t < size; t++) {
            int seen[WORDS] = {0};
            CHECK_OK(MPI_Get(seen, WORDS, MPI_INT, t, at[t], WORDS, MPI_INT, win));
            CHECK_OK(MPI_Win_flush(t, win));
            for (int i = 0; i < WORDS; i++) CHECK(seen[i] == 100 * t + i);
            int three[3] = {-1, -2, -3};
            CHECK_OK(MPI_Put(three, 3, MPI_INT, t, at[t] + 8 * step, 1, every_other, win));
            int done = 1;
            CHECK_OK(MPI_Put(&done, 1, MPI_INT, t, at[t] + (WORDS - 1) * step, 1, MPI_INT, win));
            CHECK_OK(MPI_Win_flush(t, win));
        }
        CHECK_OK(MPI_Type_free(&every_other));
    } else {
        double until = MPI_Wtime() + 20;
        while (mem[WORDS - 1] != 1 && MPI_Wtime() < until) {
        }
        CHECK(mem[WORDS - 1] == 1);
        CHECK(mem[8] == -1 && mem[9] == 100 * rank + 9 && mem[10] == -2 && mem[12] == -3);
    }
    CHECK_OK(MPI_Win_unlock_all(win));
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    static volatile int mem[WORDS];
    MPI_Aint at[64] = {0};
    CHECK(size <= 64);
    MPI_Win win;
    CHECK_OK(MPI_Win_create((void *)mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &win));
    round_trip(win, mem, at, 1);
    CHECK_OK(MPI_Win_free(&win));

    /* A dynamic window: displacements are the targets' addresses of what they attached. */
    static volatile int other[4], attached[WORDS];
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_attach(win, (void *)other, sizeof other));
    CHECK_OK(MPI_Win_attach(win, (void *)attached, sizeof attached));
    MPI_Aint mine;
    CHECK_OK(MPI_Get_address((void *)attached, &mine));
    CHECK_OK(MPI_Allgather(&mine, 1, MPI_AINT, at, 1, MPI_AINT, MPI_COMM_WORLD));
    round_trip(win, attached, at, sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    /* Far from what the targets attached (they serve messages again now). */
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        for (int t = 1; t < size; t++) {
            int two[2] = {7, 7}, code = -1;
            int rc = MPI_Put(two, 2, MPI_INT, t, at[t] + (1 << 20), 2, MPI_INT, win);
            if (rc == MPI_SUCCESS) rc = MPI_Win_flush(t, win);
            CHECK_OK(MPI_Error_class(rc, &code));
            CHECK(code == MPI_ERR_RMA_RANGE);
        }
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(attached[WORDS - 1] == 1 || rank == 0);
    CHECK_OK(MPI_Win_detach(win, (void *)attached));
    CHECK_OK(MPI_Win_detach(win, (void *)other));
    CHECK_OK(MPI_Win_free(&win));
    MPI_Finalize();
    printf("rma_attach ok\n");
    return 0;
}
