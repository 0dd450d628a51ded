/* Edges of one-sided communication that MPICH's rma tests reach: accumulates served by a
 * target blocked in MPI_Recv (its handler must not need what the blocking call holds), a
 * window freed after a fence that opened no epoch, MPI_PROC_NULL as the target of
 * lock, unlock and flush, accumulates of no bytes (a zero count, or a type of none), and
 * the name of MPI_WIN_NULL. Prints "rma_edges ok" on each rank. */
#include "check.h"
#include <string.h>

static int rank, size;

#define ROUNDS 200

/* Rank 0 accumulates into every other rank's MPI_Win_create memory (so each access is a
 * message its target serves) while they wait in MPI_Recv for the message that follows. */
static void served_while_receiving(void) {
    long long *mem = calloc(2, sizeof(long long));
    CHECK(mem != NULL);
    MPI_Win win;
    CHECK_OK(MPI_Win_create(mem, 2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        long long one = 1, old = -1;
        double d = 0.5, d_old = 0;
        for (int t = 1; t < size; t++) {
            for (int i = 0; i < ROUNDS; i++) {
                CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, MPI_SUM,
                                        win));
                CHECK_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, t, 1, MPI_SUM, win));
                CHECK(old == i);
            }
            CHECK_OK(MPI_Get_accumulate(&d, 1, MPI_DOUBLE, &d_old, 1, MPI_DOUBLE, t, 1, 1,
                                        MPI_DOUBLE, MPI_NO_OP, win));
            CHECK_OK(MPI_Win_flush(t, win));
            CHECK_OK(MPI_Send(&one, 1, MPI_LONG_LONG, t, 7, MPI_COMM_WORLD));
        }
    } else {
        long long got = 0;
        CHECK_OK(MPI_Recv(&got, 1, MPI_LONG_LONG, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mem[0] == ROUNDS && mem[1] == ROUNDS);
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Win_free(&win));
    free(mem);
}

static void free_after_fence(void) {
    int *a = NULL;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a,
                              &win));
    *a = 0;
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(*a == (rank + size - 1) % size);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);
}

static void proc_null(void) {
    int x = 0, *a = NULL;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a,
                              &win));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win));
    CHECK_OK(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_flush(MPI_PROC_NULL, win));
    CHECK_OK(MPI_Win_unlock(MPI_PROC_NULL, win));
    /* Locking nothing opened no epoch. */
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int err = MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), cls = -1;
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_free(&win));
}

/* Accumulates that move nothing succeed (with NULL buffers too) and leave the window as
 * it was; one whose origin brings bytes the target cannot take is an error. */
static void zero_bytes(void) {
    int *a = NULL, x = 5, r = 0;
    MPI_Win win;
    MPI_Datatype none;
    CHECK_OK(MPI_Type_contiguous(0, MPI_INT, &none));
    CHECK_OK(MPI_Type_commit(&none));
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a,
                              &win));
    *a = 7;
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_fence(0, win));
    int peer = (rank + 1) % size;
    CHECK_OK(MPI_Accumulate(&x, 1, none, peer, 0, 1, none, MPI_SUM, win));
    CHECK_OK(MPI_Accumulate(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Get_accumulate(NULL, 2, none, NULL, 0, MPI_INT, peer, 0, 1, none, MPI_SUM,
                                win));
    CHECK_OK(MPI_Get_accumulate(&x, 1, MPI_INT, &r, 1, MPI_INT, peer, 0, 1, MPI_INT,
                                MPI_NO_OP, win));
    CHECK(r == 7);
    int err = MPI_Accumulate(&x, 1, MPI_INT, peer, 0, 0, MPI_INT, MPI_SUM, win), cls = -1;
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_TYPE);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(*a == 7);
    CHECK_OK(MPI_Win_free(&win));
    CHECK_OK(MPI_Type_free(&none));

    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_OK(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == (int)strlen(name));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    served_while_receiving();
    free_after_fence();
    proc_null();
    zero_bytes();
    printf("rma_edges ok\n");
    MPI_Finalize();
    return 0;
}
