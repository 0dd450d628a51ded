/* The one-sided calls' large-count (_c) forms on an MPI_Win_allocate_c window: each gives
 * what its int form gives, to the right neighbour, and a count beyond an int is a clear
 * MPI_ERR_COUNT through the window's error handler, never a truncated access.
 * Prints "rma_large_count ok" on each rank. */
#include "check.h"
#include <limits.h>

int main(int argc, char **argv) {
    int rank, size, class = 0;
    start_returning_errors(&argc, &argv, &rank, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *mem;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate_c(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &mem, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    for (int i = 0; i < 8; i++) mem[i] = 0;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    int two[2] = {rank, rank + 1}, got[2] = {-1, -1}, old[2] = {-1, -1}, one = 1;
    MPI_Request r[4];
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Put_c(two, 2, MPI_INT, right, 0, 2, MPI_INT, win));
    CHECK_OK(MPI_Rput_c(two, 2, MPI_INT, right, 2, 2, MPI_INT, win, &r[0]));
    CHECK_OK(MPI_Accumulate_c(&one, 1, MPI_INT, right, 4, 1, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Raccumulate_c(&one, 1, MPI_INT, right, 4, 1, MPI_INT, MPI_SUM, win, &r[1]));
    CHECK_OK(MPI_Get_accumulate_c(&one, 1, MPI_INT, old, 1, MPI_INT, right, 5, 1, MPI_INT,
                                  MPI_SUM, win));
    CHECK(old[0] == 0);
    CHECK_OK(MPI_Rget_accumulate_c(&one, 1, MPI_INT, &old[1], 1, MPI_INT, right, 5, 1, MPI_INT,
                                   MPI_SUM, win, &r[2]));
    CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(old[1] == 1);
    CHECK_OK(MPI_Win_flush_all(win));
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[0] == left && mem[1] == left + 1 && mem[2] == left && mem[3] == left + 1);
    CHECK(mem[4] == 2 && mem[5] == 2);

    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Get_c(got, 2, MPI_INT, right, 0, 2, MPI_INT, win));
    CHECK(got[0] == rank && got[1] == rank + 1);
    got[0] = got[1] = -1;
    CHECK_OK(MPI_Rget_c(got, 2, MPI_INT, right, 4, 2, MPI_INT, win, &r[3]));
    CHECK_OK(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
    CHECK(got[0] == 2 && got[1] == 2);

    /* Counts beyond an int: refused through the window's handler, nothing moved. */
    MPI_Count huge = (MPI_Count)INT_MAX + 1;
    int rc = MPI_Put_c(two, huge, MPI_INT, right, 0, huge, MPI_INT, win);
    MPI_Error_class(rc, &class);
    CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT);
    rc = MPI_Get_accumulate_c(&one, 1, MPI_INT, old, huge, MPI_INT, right, 5, 1, MPI_INT,
                              MPI_SUM, win);
    MPI_Error_class(rc, &class);
    CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT);
    rc = MPI_Rget_c(got, 1, MPI_INT, right, 0, -huge, MPI_INT, win, &r[3]);
    MPI_Error_class(rc, &class);
    CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[5] == 2);

    CHECK_OK(MPI_Win_free(&win));
    MPI_Finalize();
    printf("rma_large_count ok\n");
    return 0;
}
