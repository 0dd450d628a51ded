/* Array datatypes: MPI_Type_create_subarray in C and Fortran order (packed, and sent),
 * and MPI_Type_create_darray with block and cyclic distributions: every process's part
 * of a global array, gathered at rank 0 through the types, rebuilds the whole array. */
#include "check.h"

#define N 8

static void subarray(int rank, int size)
{
    int m[4][6], out[6] = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            m[i][j] = 10 * i + j;
    int sizes[2] = {4, 6}, sub[2] = {2, 3}, at[2] = {1, 2}, pos = 0;
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_subarray(2, sizes, sub, at, MPI_ORDER_C, MPI_INT, &t));
    MPI_Type_commit(&t);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(lb == 0 && extent == sizeof m);
    CHECK_OK(MPI_Pack(m, 1, t, out, sizeof out, &pos, MPI_COMM_SELF));
    CHECK(out[0] == 12 && out[2] == 14 && out[3] == 22 && out[5] == 24);

    /* Around the ring, into the same place of a cleared array. */
    int got[4][6] = {{0}};
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_OK(MPI_Sendrecv(m, 1, t, right, 0, got, 1, t, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got[1][2] == 12 && got[2][4] == 24 && got[0][0] == 0 && got[3][5] == 0);
    MPI_Type_free(&t);

    /* Fortran order: the first index varies fastest. */
    int fs[2] = {6, 4}, fsub[2] = {3, 2}, fat[2] = {2, 1};
    CHECK_OK(MPI_Type_create_subarray(2, fs, fsub, fat, MPI_ORDER_FORTRAN, MPI_INT, &t));
    pos = 0;
    CHECK_OK(MPI_Pack(m, 1, t, out, sizeof out, &pos, MPI_COMM_SELF));
    CHECK(out[0] == 12 && out[3] == 22);
    MPI_Type_free(&t);

    int bad[2] = {4, 7};
    CHECK(MPI_Type_create_subarray(2, sizes, bad, at, MPI_ORDER_C, MPI_INT, &t) != MPI_SUCCESS);
}

/* Each process sends its part of an N x N array; rank 0 receives each part through that
 * process's darray type into one array, which must come out whole. */
static void darray(int rank, int size, int distrib)
{
    int psizes[2] = {0, 0};
    MPI_Dims_create(size, 2, psizes);
    int gsizes[2] = {N, N}, distribs[2] = {distrib, distrib};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, distrib == MPI_DISTRIBUTE_CYCLIC ? 2 : MPI_DISTRIBUTE_DFLT_DARG};
    int global[N][N], local[N * N], n, whole[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            global[i][j] = 100 * i + j;
    MPI_Datatype mine;
    CHECK_OK(MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &mine));
    MPI_Type_commit(&mine);
    MPI_Type_size(mine, &n);
    n /= sizeof(int);
    int pos = 0;
    CHECK_OK(MPI_Pack(global, 1, mine, local, sizeof local, &pos, MPI_COMM_SELF));
    MPI_Request r;
    CHECK_OK(MPI_Isend(local, n, MPI_INT, 0, 1, MPI_COMM_WORLD, &r));
    if (rank == 0) {
        for (int p = 0; p < size; p++) {
            MPI_Datatype theirs;
            CHECK_OK(MPI_Type_create_darray(size, p, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &theirs));
            MPI_Type_commit(&theirs);
            CHECK_OK(MPI_Recv(whole, 1, theirs, p, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_Type_free(&theirs);
        }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                CHECK(whole[i][j] == global[i][j]);
    }
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Type_free(&mine);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    subarray(rank, size);
    darray(rank, size, MPI_DISTRIBUTE_BLOCK);
    darray(rank, size, MPI_DISTRIBUTE_CYCLIC);
    MPI_Finalize();
    printf("arrays ok\n");
    return 0;
}
