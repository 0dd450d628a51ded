/* Accumulates of MPI_SHORT_INT, whose elements have a hole (a short, two bytes of
 * padding, an int): every rank applies MPI_MAXLOC to the same two elements of rank 0,
 * through a derived type of two of them, while reading them back with MPI_NO_OP, into an
 * allocated window (same-host ranks apply them directly) and a created one (rank 0's
 * handler serves the others). No pair may be torn or lost, and the holes keep the bytes
 * rank 0 put there. Also: a one-element fetch-and-op with an operation its type does not
 * take is MPI_ERR_OP and changes nothing. Prints "rma_pairs ok" on each rank. */
#include "check.h"
#include <limits.h>
#include <string.h>

#define ROUNDS 200
#define HOLE 0x5a

struct si {
    short v;
    int i;
};

static int rank, size;

/* Element 0 takes value rank+1 with index rank*1000+k: the highest rank's, its first
 * index. Element 1 takes -(rank+1): rank 0's, whose index is the lowest. */
static void hammer(MPI_Win win, MPI_Datatype two) {
    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < ROUNDS; k++) {
        struct si mine[2] = {{(short)(rank + 1), rank * 1000 + k},
                             {(short)-(rank + 1), rank * 1000 + k}};
        CHECK_OK(MPI_Accumulate(mine, 2, MPI_SHORT_INT, 0, 0, 1, two, MPI_MAXLOC, win));
        struct si seen[2];
        CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, seen, 2, MPI_SHORT_INT, 0, 0, 2,
                                    MPI_SHORT_INT, MPI_NO_OP, win));
        /* A pair is whole: each index was written with its own value. */
        CHECK(seen[0].v == SHRT_MIN || seen[0].i / 1000 == seen[0].v - 1);
        CHECK(seen[1].v == SHRT_MIN || seen[1].i / 1000 == -seen[1].v - 1);
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void verify(const struct si *w) {
    CHECK(w[0].v == size && w[0].i == (size - 1) * 1000);
    CHECK(w[1].v == -1 && w[1].i == 0);
    for (int e = 0; e < 2; e++) {
        const unsigned char *hole = (const unsigned char *)&w[e] + sizeof(short);
        CHECK(hole[0] == HOLE && hole[1] == HOLE);
    }
}

static void fill(struct si *w) {
    memset(w, HOLE, 2 * sizeof *w);
    w[0].v = w[1].v = SHRT_MIN;
    w[0].i = w[1].i = 0;
}

/* MPI_BAND does not apply to a double: an error, the target untouched. */
static void refused(MPI_Win win, const double *mem) {
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock_all(0, win));
    double d = 3.0, old = -1;
    int cls = -1;
    CHECK_OK(MPI_Error_class(MPI_Fetch_and_op(&d, &old, MPI_DOUBLE, 0, 0, MPI_BAND, win),
                             &cls));
    CHECK(cls == MPI_ERR_OP);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) CHECK(mem[0] == 1.5);
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    MPI_Datatype two;
    CHECK_OK(MPI_Type_contiguous(2, MPI_SHORT_INT, &two));
    CHECK_OK(MPI_Type_commit(&two));

    struct si *w;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(2 * sizeof *w, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    fill(w);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    hammer(win, two);
    if (rank == 0) verify(w);
    CHECK_OK(MPI_Win_free(&win));

    static struct si own[2];
    fill(own);
    CHECK_OK(MPI_Win_create(own, sizeof own, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    hammer(win, two);
    if (rank == 0) verify(own);
    CHECK_OK(MPI_Win_free(&win));

    double *d;
    CHECK_OK(MPI_Win_allocate(sizeof *d, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &d, &win));
    *d = 1.5;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    refused(win, d);
    CHECK_OK(MPI_Win_free(&win));

    CHECK_OK(MPI_Type_free(&two));
    printf("rma_pairs ok\n");
    MPI_Finalize();
    return 0;
}
