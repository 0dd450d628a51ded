/* The wired MPI subset from C: ring send/recv with status, non-blocking exchange,
 * sendrecv, probe, a large (rendezvous) message, and the collectives. */
#include "check.h"
#include <string.h>

#define BIG (1 << 20)

int main(int argc, char **argv) {
    int provided = -1, flag = 0, rank, size, n;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag == 1);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_OK(MPI_Type_size(MPI_DOUBLE, &n));
    CHECK(n == 8);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Ring: each rank sends its rank to the right, receives from the left. */
    int got = -1;
    MPI_Status st;
    MPI_Request reqs[2];
    CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Isend(&rank, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK(got == left && reqs[0] == MPI_REQUEST_NULL);

    /* Sendrecv with a status and a count. */
    double out[3] = {rank, rank * 2.0, rank * 3.0}, in[3] = {0};
    CHECK_OK(MPI_Sendrecv(out, 3, MPI_DOUBLE, right, 9, in, 3, MPI_DOUBLE, left, 9,
                          MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 9);
    CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    CHECK(n == 3 && in[2] == left * 3.0);

    /* A large message (rendezvous), probed first, through blocking send/recv. */
    unsigned char *big = malloc(BIG);
    CHECK(big != NULL);
    if (rank == 0 && size > 1) {
        for (int i = 0; i < BIG; i++) big[i] = (unsigned char)(i * 7);
        CHECK_OK(MPI_Send(big, BIG, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    } else if (rank == 1) {
        CHECK_OK(MPI_Probe(0, 3, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == BIG);
        memset(big, 0, BIG);
        MPI_Request r;
        CHECK_OK(MPI_Irecv(big, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &r));
        do {
            CHECK_OK(MPI_Test(&r, &flag, &st));
        } while (!flag);
        for (int i = 0; i < BIG; i++) CHECK(big[i] == (unsigned char)(i * 7));
    }
    free(big);

    /* A contiguous type, Issend, the any/some/all completions, and a cancelled receive. */
    MPI_Datatype pair;
    MPI_Aint lb, extent;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_OK(MPI_Type_commit(&pair));
    CHECK_OK(MPI_Type_get_extent(pair, &lb, &extent));
    CHECK(lb == 0 && extent == 8);
    int two[2] = {rank, -rank}, from[2] = {0, 0}, idx = -1, outn = 0, ids[2];
    CHECK_OK(MPI_Irecv(from, 1, pair, left, 11, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Issend(two, 1, pair, right, 11, MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Waitany(2, reqs, &idx, &st));
    CHECK(idx == 0 || idx == 1);
    CHECK(reqs[idx] == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Waitsome(2, reqs, &outn, ids, MPI_STATUSES_IGNORE));
    CHECK(outn == 1 && ids[0] == 1 - idx);
    CHECK_OK(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1 && from[0] == left && from[1] == -left);
    CHECK_OK(MPI_Testsome(2, reqs, &outn, ids, MPI_STATUSES_IGNORE));
    CHECK(outn == MPI_UNDEFINED);
    CHECK_OK(MPI_Irecv(from, 1, pair, left, 12, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Cancel(&reqs[0]));
    CHECK_OK(MPI_Wait(&reqs[0], &st));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
    CHECK_OK(MPI_Type_free(&pair));
    CHECK(pair == MPI_DATATYPE_NULL);

    /* Collectives. */
    int v = rank + 1, sum = 0, max = 0;
    CHECK_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size + 1) / 2);
    CHECK_OK(MPI_Reduce(&v, &max, 1, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD));
    CHECK(rank != size - 1 || max == size);
    long word = rank == 0 ? 424242 : 0;
    CHECK_OK(MPI_Bcast(&word, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    CHECK(word == 424242);
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Errors come back under MPI_ERRORS_RETURN. */
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Barrier(MPI_COMM_NULL) == MPI_ERR_COMM);

    CHECK_OK(MPI_Finalize());
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(flag == 1);
    printf("basic ok\n");
    return 0;
}
