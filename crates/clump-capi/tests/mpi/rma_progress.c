/* A process that loops on one-sided calls to its own window and never calls anything
 * else still serves the accumulates that reach it as messages: MPI's progress rule, and
 * the pattern of MPICH's linked_list_bench tests (which hung at 2 and 4 processes).
 * 1. Rank 0 reads a counter in its own MPI_Win_create memory with MPI_Fetch_and_op
 *    (MPI_NO_OP) and MPI_Win_flush until every other rank has added ROUNDS to it.
 * 2. The same with MPI_Win_lock/MPI_Get/MPI_Win_unlock on itself.
 * 3. A distributed linked list on a dynamic window: each rank appends ELEMS elements,
 *    each after its left neighbour's, chasing the tail with MPI_Get_accumulate and
 *    appending with MPI_Accumulate(MPI_REPLACE); then rank 0 walks it.
 * Every wait gives up after 30 s with a failed check rather than hanging.
 * Prints "rma_progress ok" on each rank. */
#include "check.h"
#include <stddef.h>

#define ROUNDS 50
#define ELEMS 20
#define PATIENCE 30.0

static int rank, size;

static void check_in_time(double since) { CHECK(MPI_Wtime() - since < PATIENCE); }

/* Rounds 1 and 2: the counter at rank 0, `spin` reading it there until it is `want`. */
static void counter(int (*spin)(MPI_Win, volatile int *)) {
    static volatile int count;
    count = 0;
    MPI_Win win;
    CHECK_OK(MPI_Win_create((void *)&count, sizeof count, sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    int want = (size - 1) * ROUNDS;
    if (rank == 0) {
        double since = MPI_Wtime();
        while (spin(win, &count) != want) check_in_time(since);
    } else {
        int one = 1;
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int i = 0; i < ROUNDS; i++) {
            CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
            CHECK_OK(MPI_Win_flush(0, win));
        }
        CHECK_OK(MPI_Win_unlock(0, win));
    }
    CHECK_OK(MPI_Win_free(&win));
}

static int fetch_and_flush(MPI_Win win, volatile int *count) {
    (void)count;
    int seen = -1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_OK(MPI_Fetch_and_op(NULL, &seen, MPI_INT, 0, 0, MPI_NO_OP, win));
    CHECK_OK(MPI_Win_flush(0, win));
    CHECK_OK(MPI_Win_unlock(0, win));
    return seen;
}

static int lock_and_get(MPI_Win win, volatile int *count) {
    (void)count;
    int seen = -1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_OK(MPI_Get(&seen, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_unlock(0, win));
    return seen;
}

typedef struct {
    int rank;
    MPI_Aint disp;
} ptr_t;

typedef struct {
    int value;
    ptr_t next;
} elem_t;

static const ptr_t nil = {-1, 0};
static elem_t elems[ELEMS + 1];

static MPI_Aint attach_elem(MPI_Win win, int at) {
    elems[at].value = rank;
    elems[at].next = nil;
    CHECK_OK(MPI_Win_attach(win, &elems[at], sizeof(elem_t)));
    MPI_Aint disp;
    CHECK_OK(MPI_Get_address(&elems[at], &disp));
    return disp;
}

/* Round 3: the list, its head an element of rank 0 that no rank counts. */
static void linked_list(void) {
    MPI_Win win;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    ptr_t tail = {0, 0};
    if (rank == 0) tail.disp = attach_elem(win, ELEMS);
    CHECK_OK(MPI_Bcast(&tail.disp, 1, MPI_AINT, 0, MPI_COMM_WORLD));
    ptr_t head = tail;
    CHECK_OK(MPI_Win_lock_all(0, win));
    double since = MPI_Wtime();
    for (int i = 0; i < ELEMS; i++) {
        ptr_t mine = {rank, attach_elem(win, i)};
        for (;;) {
            check_in_time(since);
            MPI_Aint next = tail.disp + (MPI_Aint)offsetof(elem_t, next);
            if (tail.rank == (rank + size - 1) % size) {
                CHECK_OK(MPI_Accumulate(&mine, sizeof mine, MPI_BYTE, tail.rank, next,
                                        sizeof mine, MPI_BYTE, MPI_REPLACE, win));
                CHECK_OK(MPI_Win_flush(tail.rank, win));
                tail = mine;
                break;
            }
            ptr_t seen;
            CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &seen, sizeof seen,
                                        MPI_BYTE, tail.rank, next, sizeof seen, MPI_BYTE,
                                        MPI_NO_OP, win));
            CHECK_OK(MPI_Win_flush(tail.rank, win));
            if (seen.rank != nil.rank) tail = seen;
        }
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        int counts[64] = {0}, total = 0;
        CHECK_OK(MPI_Win_lock_all(0, win));
        for (ptr_t at = head; at.rank != nil.rank; total++) {
            elem_t e;
            CHECK_OK(MPI_Get(&e, sizeof e, MPI_BYTE, at.rank, at.disp, sizeof e, MPI_BYTE, win));
            CHECK_OK(MPI_Win_flush(at.rank, win));
            CHECK(e.value >= 0 && e.value < size);
            counts[e.value]++;
            at = e.next;
        }
        CHECK_OK(MPI_Win_unlock_all(win));
        CHECK(total == size * ELEMS + 1);
        for (int r = 0; r < size; r++) CHECK(counts[r] == ELEMS + (r == 0));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i <= ELEMS; i++)
        if (i < ELEMS || rank == 0) CHECK_OK(MPI_Win_detach(win, &elems[i]));
    CHECK_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    CHECK(size <= 64);
    counter(fetch_and_flush);
    counter(lock_and_get);
    linked_list();
    printf("rma_progress ok\n");
    MPI_Finalize();
    return 0;
}
