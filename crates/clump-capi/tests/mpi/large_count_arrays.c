/* The large-count (_c) forms whose counts come in arrays give what their int forms give:
 * rank i sends i+1 ints to each rank (Alltoallv/w, blocking, non-blocking and persistent,
 * the persistent one started twice), the v-forms of gather, scatter and allgather,
 * Reduce_scatter and a ring's neighbourhood alltoallv; a count beyond an int is
 * MPI_ERR_COUNT; the root-side arrays are not read elsewhere (NULL there), nor the send
 * arrays of an MPI_IN_PLACE exchange. */
#include "check.h"
#include <limits.h>
#include <string.h>

static int rank, size;
static MPI_Count *sc, *rc;
static MPI_Aint *sd, *rd;
static int *sbuf, *rbuf;

/* Each rank sends rank+1 ints (valued 100*rank + j) to every rank. */
static void setup(void)
{
    for (int i = 0; i < size; i++) {
        sc[i] = rank + 1;
        sd[i] = (MPI_Aint) i * (rank + 1);
        rc[i] = i + 1;
        rd[i] = i == 0 ? 0 : rd[i - 1] + rc[i - 1];
    }
    for (int j = 0; j < size * (rank + 1); j++)
        sbuf[j] = 100 * rank + j % (rank + 1);
    memset(rbuf, -1, sizeof(int) * size * (size + 1));
}

static void check_exchanged(void)
{
    for (int i = 0; i < size; i++)
        for (int j = 0; j <= i; j++)
            CHECK(rbuf[rd[i] + j] == 100 * i + j);
}

static void in_bytes(MPI_Aint *d)
{
    for (int i = 0; i < size; i++)
        d[i] *= sizeof(int);
}

int main(int argc, char **argv)
{
    start_returning_errors(&argc, &argv, &rank, &size);
    sc = malloc(sizeof(MPI_Count) * size);
    rc = malloc(sizeof(MPI_Count) * size);
    sd = malloc(sizeof(MPI_Aint) * size);
    rd = malloc(sizeof(MPI_Aint) * size);
    sbuf = malloc(sizeof(int) * size * (size + 1));
    rbuf = malloc(sizeof(int) * size * (size + 1));
    MPI_Request r;
    int class = 0;

    setup();
    CHECK_OK(MPI_Alltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    check_exchanged();
    setup();
    CHECK_OK(MPI_Ialltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_exchanged();
    /* Persistent: the arrays are the call's; they are overwritten before each start. */
    setup();
    CHECK_OK(MPI_Alltoallv_init_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 2; round++) {
        MPI_Count keep_sc0 = sc[0];
        sc[0] = -7;
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        sc[0] = keep_sc0;
        check_exchanged();
        memset(rbuf, -1, sizeof(int) * size * (size + 1));
    }
    CHECK_OK(MPI_Request_free(&r));

    /* The w-form: byte displacements, a type per block. */
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    for (int i = 0; i < size; i++)
        types[i] = MPI_INT;
    setup();
    in_bytes(sd);
    in_bytes(rd);
    CHECK_OK(MPI_Alltoallw_c(sbuf, sc, sd, types, rbuf, rc, rd, types, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        rd[i] /= sizeof(int);
    check_exchanged();

    /* In place: the send arrays are not read (NULL). */
    setup();
    for (int i = 0; i < size; i++)
        rc[i] = 1, rd[i] = i, rbuf[i] = 10 * rank + i;
    CHECK_OK(MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(rbuf[i] == 10 * i + rank);

    /* Gatherv and Scatterv at root 0; elsewhere the root-side arrays are NULL. */
    setup();
    int root = 0, mine[1] = {rank * 3};
    for (int i = 0; i < size; i++)
        rc[i] = 1, rd[i] = size - 1 - i;
    CHECK_OK(MPI_Gatherv_c(mine, 1, MPI_INT, rbuf, rank == root ? rc : NULL, rank == root ? rd : NULL, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
        for (int i = 0; i < size; i++)
            CHECK(rbuf[size - 1 - i] == i * 3);
    for (int i = 0; i < size; i++)
        sbuf[i] = 7 * i;
    mine[0] = -1;
    CHECK_OK(MPI_Scatterv_c(sbuf, rank == root ? rc : NULL, rank == root ? rd : NULL, MPI_INT, mine, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(mine[0] == 7 * (size - 1 - rank));

    /* Allgatherv: rank i gives i+1 ints. */
    setup();
    CHECK_OK(MPI_Allgatherv_c(sbuf, rank + 1, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    check_exchanged();

    /* Reduce_scatter: rank i gets i+1 sums. */
    int total = size * (size + 1) / 2;
    for (int j = 0; j < total; j++)
        sbuf[j] = j;
    for (int i = 0; i < size; i++)
        rc[i] = i + 1;
    CHECK_OK(MPI_Reduce_scatter_c(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int j = 0; j <= rank; j++)
        CHECK(rbuf[j] == size * (rank * (rank + 1) / 2 + j));

    /* A ring's neighbourhood alltoallv: one int from each side. */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_Count nc[2] = {1, 1};
    MPI_Aint nd[2] = {0, 1};
    int nout[2] = {rank * 2, rank * 2 + 1}, nin[2] = {-1, -1};
    CHECK_OK(MPI_Neighbor_alltoallv_c(nout, nc, nd, MPI_INT, nin, nc, nd, MPI_INT, ring));
    /* From the left neighbour its "right" block, from the right its "left" block. */
    CHECK(nin[0] == ((rank + size - 1) % size) * 2 + 1 && nin[1] == ((rank + 1) % size) * 2);
    CHECK_OK(MPI_Comm_free(&ring));

    /* A count beyond an int: refused before anything is sent. */
    setup();
    sc[size - 1] = (MPI_Count) INT_MAX + 1;
    int err = MPI_Alltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(err, &class);
    CHECK(err != MPI_SUCCESS && class == MPI_ERR_COUNT);

    free(types);
    free(sc), free(rc), free(sd), free(rd), free(sbuf), free(rbuf);
    MPI_Finalize();
    printf("large_count_arrays ok\n");
    return 0;
}
