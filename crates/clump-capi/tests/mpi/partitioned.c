/* Partitioned communication (MPI 4.0) around a ring: MPI_Psend_init / MPI_Precv_init
 * started several times, partitions marked ready one by one, by range and by list (in
 * reverse order), a receive polled with MPI_Parrived, a rendezvous-sized message of a
 * derived type, sender and receiver partitioned differently, a message that ordinary
 * receives must not take, and the errors of bad partitions. */
#include "check.h"
#include <stdlib.h>

#define PARTS 8
#define PER 4
#define BIG (1 << 18)

static int right, left;

/* Three starts of one pair of requests, each marking the partitions another way. */
static void ring(int rank)
{
    int out[PARTS * PER] = {0}, in[PARTS * PER] = {0};
    MPI_Request s, r;
    CHECK_OK(MPI_Psend_init(out, PARTS, PER, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init(in, PARTS, PER, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < PARTS * PER; i++) {
            out[i] = rank * 1000 + round * 100 + i;
            in[i] = -1;
        }
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Start(&s));
        int flag = 1;
        CHECK_OK(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag); /* no partition is ready yet */
        if (round == 0) {
            for (int p = 0; p < PARTS; p++)
                CHECK_OK(MPI_Pready(p, s));
        } else if (round == 1) {
            CHECK_OK(MPI_Pready_range(0, PARTS / 2 - 1, s));
            CHECK_OK(MPI_Pready_range(PARTS / 2, PARTS - 1, s));
        } else {
            int list[PARTS];
            for (int p = 0; p < PARTS; p++)
                list[p] = PARTS - 1 - p;
            CHECK_OK(MPI_Pready_list(PARTS, list, s));
        }
        for (int p = 0; p < PARTS; p++) {
            int arrived = 0;
            while (!arrived)
                CHECK_OK(MPI_Parrived(r, p, &arrived));
            CHECK(in[p * PER] == left * 1000 + round * 100 + p * PER);
        }
        MPI_Status st;
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5);
        int n;
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == PARTS * PER);
        CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK(r != MPI_REQUEST_NULL && s != MPI_REQUEST_NULL); /* persistent */
        for (int i = 0; i < PARTS * PER; i++)
            CHECK(in[i] == left * 1000 + round * 100 + i);
    }
    /* An inactive receive has nothing left to arrive. */
    int arrived = 0;
    CHECK_OK(MPI_Parrived(r, 0, &arrived));
    CHECK(arrived);
    CHECK_OK(MPI_Request_free(&s));
    CHECK_OK(MPI_Request_free(&r));
}

/* A rendezvous-sized message of a strided type, sent in 16 partitions and received in 2;
 * an ordinary send with the same tag goes first and the ordinary receive gets it. */
static void big(void)
{
    double *out = malloc(2 * BIG * sizeof(double)), *in = malloc(BIG * sizeof(double));
    for (int i = 0; i < 2 * BIG; i++)
        out[i] = i;
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &every_other);
    MPI_Type_commit(&every_other);
    MPI_Request s, r;
    CHECK_OK(MPI_Psend_init(out, 16, BIG / 16, every_other, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init_c(in, 2, BIG / 2, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_OK(MPI_Start(&s));
    CHECK_OK(MPI_Pready_range(0, 15, s));
    int plain = 1, got = -1;
    CHECK_OK(MPI_Send(&plain, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
    MPI_Status st;
    CHECK_OK(MPI_Recv(&got, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(got == 1 && st.MPI_TAG == 7);
    CHECK_OK(MPI_Start(&r));
    MPI_Request both[2] = {s, r};
    CHECK_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    for (int i = 0; i < BIG; i++)
        CHECK(in[i] == 2.0 * i);
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Type_free(&every_other);
    free(out);
    free(in);
}

/* Bad partitions and calls on the wrong side are errors, not crashes. */
static void errors(void)
{
    int x = 0, eclass;
    MPI_Request s, r;
    CHECK_OK(MPI_Psend_init(&x, 1, 1, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_OK(MPI_Precv_init(&x, 1, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_Error_class(MPI_Pready(0, s), &eclass); /* not started */
    CHECK(eclass == MPI_ERR_REQUEST);
    CHECK_OK(MPI_Start(&s));
    MPI_Error_class(MPI_Pready(1, s), &eclass);
    CHECK(eclass == MPI_ERR_ARG);
    MPI_Error_class(MPI_Pready_range(0, 3, s), &eclass);
    CHECK(eclass == MPI_ERR_ARG);
    MPI_Error_class(MPI_Pready(0, MPI_REQUEST_NULL), &eclass);
    CHECK(eclass == MPI_ERR_REQUEST);
    int flag;
    MPI_Error_class(MPI_Parrived(s, 0, &flag), &eclass);
    CHECK(eclass == MPI_ERR_REQUEST);
    CHECK_OK(MPI_Pready(0, s));
    MPI_Error_class(MPI_Pready(0, s), &eclass);
    CHECK(eclass == MPI_ERR_ARG);
    CHECK_OK(MPI_Start(&r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Error_class(MPI_Psend_init(&x, 0, 1, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s), &eclass);
    CHECK(eclass == MPI_ERR_ARG);
    MPI_Error_class(MPI_Precv_init(&x, 1, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r), &eclass);
    CHECK(eclass != MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    ring(rank);
    big();
    errors();
    MPI_Finalize();
    printf("partitioned ok\n");
    return 0;
}
