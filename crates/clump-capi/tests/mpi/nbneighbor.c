/* Non-blocking and persistent neighbourhood collectives: on a periodic ring (on 1 or 2
 * processes one process is both neighbours, so blocks pair by direction), on a
 * non-periodic line (MPI_PROC_NULL ends leave their blocks untouched) and on a
 * distributed graph; every form, completed by wait, test and waitall, two of them in
 * flight at once, persistent ones started three times. */
#include "check.h"

static MPI_Comm line(int size, int periodic)
{
    int d[1] = {size}, p[1] = {periodic};
    MPI_Comm c;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &c));
    return c;
}

static void ring(int rank, int size)
{
    MPI_Comm c = line(size, 1);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int send[2] = {10 * rank, 10 * rank + 1}, recv[2] = {-1, -1};
    int me = rank, both[2] = {-1, -1};
    MPI_Request r[2];
    /* Two in flight at once; block 0 comes from the lower neighbour's upward block. */
    CHECK_OK(MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c, &r[0]));
    CHECK_OK(MPI_Ineighbor_allgather(&me, 1, MPI_INT, both, 1, MPI_INT, c, &r[1]));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(recv[0] == 10 * left + 1 && recv[1] == 10 * right);
    CHECK(both[0] == left && both[1] == right);

    int gapped[5] = {-1, -1, -1, -1, -1}, counts[2] = {1, 1}, displs[2] = {3, 0};
    CHECK_OK(MPI_Ineighbor_allgatherv(&me, 1, MPI_INT, gapped, counts, displs, MPI_INT, c, &r[0]));
    int flag = 0;
    while (!flag)
        CHECK_OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    CHECK(gapped[3] == left && gapped[0] == right && gapped[1] == -1);

    int s2[4] = {rank, -7, 100 + rank, -7}, r2[4] = {-1, -1, -1, -1};
    int sd[2] = {0, 2}, rd[2] = {2, 0};
    CHECK_OK(MPI_Ineighbor_alltoallv(s2, counts, sd, MPI_INT, r2, counts, rd, MPI_INT, c, &r[0]));
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(r2[2] == 100 + left && r2[0] == right);

    double dv[2] = {0.5 + rank, 1.5 + rank}, dr[2] = {0, 0};
    MPI_Aint bd[2] = {0, sizeof(double)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
    CHECK_OK(MPI_Ineighbor_alltoallw(dv, counts, bd, types, dr, counts, bd, types, c, &r[0]));
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(dr[0] == 1.5 + left && dr[1] == 0.5 + right);

    /* Persistent: each start sends the buffer as it is then. */
    MPI_Request p[2];
    CHECK_OK(MPI_Neighbor_alltoall_init(send, 1, MPI_INT, recv, 1, MPI_INT, c, MPI_INFO_NULL, &p[0]));
    CHECK_OK(MPI_Neighbor_allgather_init(&me, 1, MPI_INT, both, 1, MPI_INT, c, MPI_INFO_NULL, &p[1]));
    for (int round = 0; round < 3; round++) {
        send[0] = 10 * rank + 1000 * round;
        send[1] = send[0] + 1;
        me = rank + 1000 * round;
        CHECK_OK(MPI_Startall(2, p));
        CHECK_OK(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
        CHECK(recv[0] == 10 * left + 1 + 1000 * round && recv[1] == 10 * right + 1000 * round);
        CHECK(both[0] == left + 1000 * round && both[1] == right + 1000 * round);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    MPI_Request q;
    CHECK_OK(MPI_Neighbor_allgatherv_init(&me, 1, MPI_INT, gapped, counts, displs, MPI_INT, c, MPI_INFO_NULL, &q));
    CHECK_OK(MPI_Start(&q));
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(gapped[3] == left + 2000 && gapped[0] == right + 2000);
    MPI_Request_free(&q);
    CHECK_OK(MPI_Neighbor_alltoallv_init(s2, counts, sd, MPI_INT, r2, counts, rd, MPI_INT, c, MPI_INFO_NULL, &q));
    CHECK_OK(MPI_Start(&q));
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(r2[2] == 100 + left && r2[0] == right);
    MPI_Request_free(&q);
    CHECK_OK(MPI_Neighbor_alltoallw_init(dv, counts, bd, types, dr, counts, bd, types, c, MPI_INFO_NULL, &q));
    CHECK_OK(MPI_Start(&q));
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(dr[0] == 1.5 + left && dr[1] == 0.5 + right);
    MPI_Request_free(&q);
    MPI_Comm_free(&c);
}

static void open_line(int rank, int size)
{
    MPI_Comm c = line(size, 0);
    int me = rank, both[2] = {-1, -1};
    MPI_Request r;
    CHECK_OK(MPI_Ineighbor_allgather(&me, 1, MPI_INT, both, 1, MPI_INT, c, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(both[0] == (rank == 0 ? -1 : rank - 1));
    CHECK(both[1] == (rank == size - 1 ? -1 : rank + 1));
    MPI_Comm_free(&c);
}

static void dist_graph(int rank, int size)
{
    /* Everyone sends to rank 0; rank 0 hears from everyone. */
    int all[64], dst[1] = {0}, got[64];
    for (int i = 0; i < size; i++)
        all[i] = i;
    MPI_Comm g;
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank == 0 ? size : 0, all, MPI_UNWEIGHTED,
                                            1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    int me = 7 * rank;
    MPI_Request r;
    CHECK_OK(MPI_Ineighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, g, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; rank == 0 && i < size; i++)
        CHECK(got[i] == 7 * i);
    /* A call on a communicator without a topology is an error. */
    int eclass;
    MPI_Error_class(MPI_Ineighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD, &r), &eclass);
    CHECK(eclass == MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    ring(rank, size);
    open_line(rank, size);
    dist_graph(rank, size);
    MPI_Finalize();
    printf("nbneighbor ok\n");
    return 0;
}
