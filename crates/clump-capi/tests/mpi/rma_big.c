/* Windows larger than the global address space segment (CLUMP_GAS_SEGMENT, 64 MiB by
 * default), as OSU's one-sided bandwidth programs make at 1 MiB (64 MiB windows):
 * - MPI_Win_allocate of BIG bytes on even ranks beside a page on odd ranks, then
 *   MPI_Win_create over MPI_Alloc_mem of BIG bytes on every rank, both alive at once;
 *   in each, every rank puts, gets and fetch-and-ops at the far end of its right
 *   neighbour's part and accumulates into the first word of every rank's, under lock_all
 *   and under fence;
 * - a window of more bytes than the host has is MPI_ERR_NO_MEM on every rank, as is
 *   MPI_Alloc_mem of as many, and windows are made as before afterwards.
 * Only the pages written are touched. Prints "rma_big ok" on each rank. */
#include "check.h"

#define BIG ((MPI_Aint)96 << 20)
#define SMALL ((MPI_Aint)4096)
#define HUGE_BYTES ((MPI_Aint)1 << 50)

static int rank, size;

static int class_of(int code) {
    int c = -1;
    CHECK_OK(MPI_Error_class(code, &c));
    return c;
}

/* The number of longs in rank r's part. */
static MPI_Aint words_of(MPI_Aint bytes) { return bytes / (MPI_Aint)sizeof(long); }

/* Puts, gets, accumulates and fetch-and-ops on `win`, whose rank r has `part(r)` bytes
 * at `mine` here; `flavor` is what MPI_WIN_CREATE_FLAVOR must say. */
static void exercise(MPI_Win win, long *mine, MPI_Aint (*part)(int), int flavor) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Aint last = words_of(part(right)) - 1, my_last = words_of(part(rank)) - 1;
    int *got_flavor, flag = 0;
    MPI_Aint *got_size;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &got_flavor, &flag));
    CHECK(flag && *got_flavor == flavor);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
    CHECK(flag && *got_size == part(rank));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    mine[0] = mine[my_last] = mine[my_last / 2] = 0;
    CHECK_OK(MPI_Win_unlock(rank, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    CHECK_OK(MPI_Win_lock_all(0, win));
    long v = 1000 + rank, one = 1, got = 0, old = 0;
    CHECK_OK(MPI_Put(&v, 1, MPI_LONG, right, last, 1, MPI_LONG, win));
    for (int t = 0; t < size; t++)
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_OK(MPI_Win_flush_all(win));
    CHECK_OK(MPI_Get(&got, 1, MPI_LONG, right, last, 1, MPI_LONG, win));
    CHECK_OK(MPI_Win_flush(right, win));
    CHECK(got == v);
    CHECK_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, right, last, MPI_SUM, win));
    CHECK_OK(MPI_Win_flush(right, win));
    CHECK(old == v);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mine[0] == size);
    CHECK(mine[my_last] == 1000 + left + 1);

    CHECK_OK(MPI_Win_fence(0, win));
    long mid = 2000 + rank;
    CHECK_OK(MPI_Put(&mid, 1, MPI_LONG, right, last / 2, 1, MPI_LONG, win));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(mine[my_last / 2] == 2000 + left);
}

static MPI_Aint allocated_part(int r) { return r % 2 ? SMALL : BIG; }
static MPI_Aint created_part(int r) { (void)r; return BIG; }
static MPI_Aint small_part(int r) { (void)r; return SMALL; }

/* A window nobody can have: every rank fails alike, and nothing is left half made. */
static void too_big(void) {
    long *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    CHECK(class_of(MPI_Win_allocate(HUGE_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                    &win)) == MPI_ERR_NO_MEM);
    CHECK(win == MPI_WIN_NULL);
    void *mem = NULL;
    CHECK(class_of(MPI_Alloc_mem(HUGE_BYTES, MPI_INFO_NULL, &mem)) == MPI_ERR_NO_MEM);
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    long *allocated, *created;
    MPI_Win awin, cwin;
    CHECK_OK(MPI_Win_allocate(allocated_part(rank), sizeof(long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &allocated, &awin));
    CHECK_OK(MPI_Win_set_errhandler(awin, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Alloc_mem(BIG, MPI_INFO_NULL, &created));
    CHECK_OK(MPI_Win_create(created, BIG, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &cwin));
    CHECK_OK(MPI_Win_set_errhandler(cwin, MPI_ERRORS_RETURN));
    exercise(awin, allocated, allocated_part, MPI_WIN_FLAVOR_ALLOCATE);
    exercise(cwin, created, created_part, MPI_WIN_FLAVOR_CREATE);
    CHECK_OK(MPI_Win_free(&cwin));
    CHECK_OK(MPI_Free_mem(created));
    too_big();
    CHECK_OK(MPI_Win_free(&awin));
    /* The segment's own windows still come after a big one is freed. */
    long *small;
    CHECK_OK(MPI_Win_allocate(SMALL, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &small,
                              &awin));
    CHECK_OK(MPI_Win_set_errhandler(awin, MPI_ERRORS_RETURN));
    exercise(awin, small, small_part, MPI_WIN_FLAVOR_ALLOCATE);
    CHECK_OK(MPI_Win_free(&awin));
    printf("rma_big ok\n");
    MPI_Finalize();
    return 0;
}
