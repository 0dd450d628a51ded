/* The large-count (_c) forms of MPI 4 around a ring: point-to-point, collectives and
 * type queries give what their int forms give, and a count beyond an int is a clear
 * MPI_ERR_COUNT through the communicator's error handler, never a truncated count. */
#include "check.h"
#include <limits.h>

int main(int argc, char **argv)
{
    int rank, size, class = 0;
    start_returning_errors(&argc, &argv, &rank, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[3] = {rank, rank + 1, rank + 2}, in[3] = {-1, -1, -1};
    MPI_Count n = -1, lb = -1, extent = -1;
    MPI_Status s;
    MPI_Request r;

    CHECK_OK(MPI_Irecv_c(in, 3, MPI_INT, left, 1, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Send_c(out, 3, MPI_INT, right, 1, MPI_COMM_WORLD));
    CHECK_OK(MPI_Wait(&r, &s));
    CHECK_OK(MPI_Get_count_c(&s, MPI_INT, &n));
    CHECK(n == 3 && in[0] == left && in[2] == left + 2);
    CHECK_OK(MPI_Get_count_c(&s, MPI_DOUBLE, &n)); /* 12 bytes: no whole double count */
    CHECK(n == MPI_UNDEFINED);
    CHECK_OK(MPI_Get_elements_c(&s, MPI_INT, &n));
    CHECK(n == 3);

    CHECK_OK(MPI_Isend_c(out, 2, MPI_INT, right, 2, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Recv_c(in, 3, MPI_INT, left, 2, MPI_COMM_WORLD, &s));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Get_count_c(&s, MPI_INT, &n));
    CHECK(n == 2 && in[1] == left + 1);

    int v = rank == 0 ? 42 : 0, sum = 0;
    CHECK_OK(MPI_Bcast_c(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(v == 42);
    CHECK_OK(MPI_Allreduce_c(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2);

    MPI_Datatype t;
    CHECK_OK(MPI_Type_contiguous_c(5, MPI_SHORT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(MPI_Type_size_c(t, &n));
    CHECK(n == 5 * (MPI_Count) sizeof(short));
    CHECK_OK(MPI_Type_get_extent_c(t, &lb, &extent));
    CHECK(lb == 0 && extent == n);
    CHECK_OK(MPI_Type_get_true_extent_c(t, &lb, &extent));
    CHECK(lb == 0 && extent == n);
    CHECK_OK(MPI_Type_free(&t));

    /* Counts beyond an int: refused, nothing sent. */
    MPI_Count huge = (MPI_Count) INT_MAX + 1;
    int rc = MPI_Send_c(out, huge, MPI_INT, right, 3, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT);
    rc = MPI_Bcast_c(&v, huge, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT);
    rc = MPI_Type_contiguous_c(-huge, MPI_INT, &t);
    MPI_Error_class(rc, &class);
    CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT);
    CHECK(MPI_Type_size_c(MPI_INT, NULL) != MPI_SUCCESS);

    MPI_Finalize();
    printf("large_count ok\n");
    return 0;
}
