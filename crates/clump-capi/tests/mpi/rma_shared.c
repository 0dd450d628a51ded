/* MPI_Win_allocate_shared over the processes of one host: by default their parts are one
 * contiguous block (rank r's part starts where rank r-1's ends, a zero-byte part
 * included), so a program may index across them from the first part; with the hint
 * alloc_shared_noncontig they need not be, but each stays reachable through
 * MPI_Win_shared_query. Accumulates from every member to one element through the shared
 * window stay atomic. Where the host's processes share no memory (over UDP), the window is
 * MPI_ERR_RMA_SHARED. Prints "shared over N" when it made the window over N processes,
 * then "rma_shared ok". */
#include "check.h"

static int class_of(int code) {
    int c = -1;
    CHECK_OK(MPI_Error_class(code, &c));
    return c;
}

/* Rank r's part: 4 * (r + 1) bytes, except rank 1's, which is empty beside others. */
static MPI_Aint part_bytes(int r, int n) { return r == 1 && n > 2 ? 0 : 4 * (r + 1); }

#define ADDS 300

static void contiguous(MPI_Comm host, int me, int n) {
    int *mine = NULL;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate_shared(part_bytes(me, n), sizeof(int), MPI_INFO_NULL, host,
                                     &mine, &win));
    char *first = NULL;
    MPI_Aint total = 0;
    for (int r = 0; r < n; r++) {
        MPI_Aint bytes = -1;
        int unit = -1;
        char *base = NULL;
        CHECK_OK(MPI_Win_shared_query(win, r, &bytes, &unit, &base));
        CHECK(bytes == part_bytes(r, n) && unit == (int)sizeof(int));
        if (r == 0) first = base;
        if (bytes > 0) CHECK(base == first + total);
        if (r == me && bytes > 0) CHECK(base == (char *)mine);
        total += bytes;
    }
    MPI_Aint bytes = -1;
    int unit = -1;
    char *lowest = NULL;
    CHECK_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &bytes, &unit, &lowest));
    CHECK(lowest == first && bytes == part_bytes(0, n));

    CHECK_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (MPI_Aint i = 0; i < part_bytes(me, n) / 4; i++) mine[i] = 1000 * me + (int)i;
    CHECK_OK(MPI_Win_sync(win));
    MPI_Barrier(host);
    CHECK_OK(MPI_Win_sync(win));
    /* Every part read from the first part's address onwards. */
    int *all = (int *)first;
    for (int r = 0, at = 0; r < n; r++)
        for (MPI_Aint i = 0; i < part_bytes(r, n) / 4; i++, at++)
            CHECK(all[at] == 1000 * r + (int)i);
    MPI_Barrier(host);

    /* Accumulates from every member into rank 0's first int, beside direct loads. */
    if (me == 0) mine[0] = 0;
    CHECK_OK(MPI_Win_sync(win));
    MPI_Barrier(host);
    int one = 1;
    for (int i = 0; i < ADDS; i++) {
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
        CHECK_OK(MPI_Win_flush(0, win));
    }
    MPI_Barrier(host);
    int sum = -1;
    CHECK_OK(MPI_Get(&sum, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_flush(0, win));
    CHECK(sum == ADDS * n);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Win_free(&win));
}

/* With alloc_shared_noncontig the parts may lie apart, yet each is every member's. */
static void noncontig(MPI_Comm host, int me, int n) {
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    double *mine = NULL;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate_shared(3 * sizeof(double), sizeof(double), info, host, &mine, &win));
    CHECK_OK(MPI_Info_free(&info));
    for (int i = 0; i < 3; i++) mine[i] = me + i / 4.0;
    CHECK_OK(MPI_Win_fence(0, win));
    for (int r = 0; r < n; r++) {
        MPI_Aint bytes = -1;
        int unit = -1;
        double *theirs = NULL;
        CHECK_OK(MPI_Win_shared_query(win, r, &bytes, &unit, &theirs));
        CHECK(bytes == 3 * sizeof(double) && unit == (int)sizeof(double));
        for (int i = 0; i < 3; i++) CHECK(theirs[i] == r + i / 4.0);
    }
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    /* The job's first window is over every process: it joins the address space. */
    int *joined = NULL;
    MPI_Win first;
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &joined,
                              &first));
    CHECK_OK(MPI_Win_free(&first));

    MPI_Comm host;
    int me, n;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                 &host));
    CHECK_OK(MPI_Comm_rank(host, &me));
    CHECK_OK(MPI_Comm_size(host, &n));
    MPI_Comm_set_errhandler(host, MPI_ERRORS_RETURN);
    int *probe = NULL;
    MPI_Win win;
    int rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, host, &probe, &win);
    if (rc == MPI_SUCCESS) {
        CHECK_OK(MPI_Win_free(&win));
        contiguous(host, me, n);
        noncontig(host, me, n);
        if (me == 0) printf("shared over %d\n", n);
    } else {
        CHECK(class_of(rc) == MPI_ERR_RMA_SHARED);
    }
    CHECK_OK(MPI_Comm_free(&host));
    MPI_Finalize();
    printf("rma_shared ok\n");
    return 0;
}
