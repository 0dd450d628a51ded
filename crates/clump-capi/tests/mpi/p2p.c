/* Point to point: every send mode, blocking and not, sizes on both sides of the eager and
 * rendezvous thresholds, wildcards, non-overtaking order, probe, cancel, MPI_PROC_NULL,
 * persistent requests and the wait/test families. Prints "p2p ok" on each rank. */
#include "check.h"
#include <string.h>

static void fill(unsigned char *buf, int n, int seed) {
    for (int i = 0; i < n; i++) buf[i] = (unsigned char)(i * 31 + seed);
}

static int same(const unsigned char *buf, int n, int seed) {
    for (int i = 0; i < n; i++)
        if (buf[i] != (unsigned char)(i * 31 + seed)) return 0;
    return 1;
}

/* Every size from 0 to 1 MiB at powers of two and one byte either side: whatever the
 * protocol thresholds are, a message exactly at one and one byte over are in the list. */
static void sizes_around_every_power(int rank, int size) {
    int peer = rank ^ 1;
    if (peer >= size) return;
    unsigned char *buf = malloc(1 << 20 | 1);
    for (int p = 0; p <= 20; p++) {
        int sizes[3] = {(1 << p) - 1, 1 << p, (1 << p) + 1};
        for (int k = 0; k < 3; k++) {
            int n = sizes[k] > (1 << 20) ? (1 << 20) : sizes[k];
            MPI_Status st;
            if (rank < peer) {
                fill(buf, n, p);
                CHECK_OK(MPI_Send(buf, n, MPI_BYTE, peer, p, MPI_COMM_WORLD));
                CHECK_OK(MPI_Recv(buf, n, MPI_BYTE, peer, p, MPI_COMM_WORLD, &st));
            } else {
                memset(buf, 0, n);
                CHECK_OK(MPI_Recv(buf, n, MPI_BYTE, peer, p, MPI_COMM_WORLD, &st));
                CHECK(same(buf, n, p));
                CHECK_OK(MPI_Send(buf, n, MPI_BYTE, peer, p, MPI_COMM_WORLD));
            }
            int count = -1;
            CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == n && st.MPI_SOURCE == peer && st.MPI_TAG == p);
        }
    }
    free(buf);
}

/* Messages from one sender on one communicator match in the order sent, small and
 * large mixed (a large one sent first must not be overtaken by a small one). */
static void non_overtaking(int rank, int size) {
    enum { N = 8, BIG = 300000 };
    if (size < 2 || rank > 1) return;
    static int bufs[N][BIG / 4];
    if (rank == 0) {
        MPI_Request reqs[N];
        for (int i = 0; i < N; i++) {
            int n = (i % 2) ? 1 : BIG / 4;
            for (int j = 0; j < n; j++) bufs[i][j] = i * 1000 + j;
            CHECK_OK(MPI_Isend(bufs[i], n, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs[i]));
        }
        CHECK_OK(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
    } else {
        /* Let every message arrive unexpected before any receive is posted. */
        MPI_Status st;
        CHECK_OK(MPI_Probe(0, 7, MPI_COMM_WORLD, &st));
        for (int i = 0; i < N; i++) {
            MPI_Status s;
            CHECK_OK(MPI_Recv(bufs[i], BIG / 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &s));
            int n = -1;
            CHECK_OK(MPI_Get_count(&s, MPI_INT, &n));
            CHECK(n == ((i % 2) ? 1 : BIG / 4));
            CHECK(bufs[i][0] == i * 1000 && bufs[i][n - 1] == i * 1000 + n - 1);
        }
    }
}

/* Every rank sends to rank 0; rank 0 receives with MPI_ANY_SOURCE and sees each once.
 * The barrier keeps later traffic (which an MPI_ANY_TAG receive would match as well) back
 * until rank 0 is done. */
static void any_source(int rank, int size) {
    if (rank != 0) {
        CHECK_OK(MPI_Ssend(&rank, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        return;
    }
    int seen[64] = {0};
    for (int i = 1; i < size; i++) {
        int v = -1;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(v == st.MPI_SOURCE && st.MPI_TAG == 100 + v && !seen[v]);
        seen[v] = 1;
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void proc_null_probe_cancel(int rank, int size) {
    MPI_Status st;
    int x = 5;
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    int n = -1;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0 && x == 5);

    /* A receive nobody will match is cancelled and says so. */
    MPI_Request req;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, rank, 9999, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Cancel(&req));
    CHECK_OK(MPI_Wait(&req, &st));
    int cancelled = 0;
    CHECK_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled && req == MPI_REQUEST_NULL);

    /* Iprobe finds nothing, then a message to self, whose size it reports. */
    int flag = 1;
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag);
    double d[3] = {1.5, 2.5, 3.5}, r[3] = {0};
    CHECK_OK(MPI_Isend(d, 3, MPI_DOUBLE, rank, 4242, MPI_COMM_WORLD, &req));
    do {
        CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &flag, &st));
    } while (!flag);
    CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    CHECK(n == 3 && st.MPI_SOURCE == rank);
    CHECK_OK(MPI_Recv(r, 3, MPI_DOUBLE, rank, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(r[0] == 1.5 && r[2] == 3.5);
    (void)size;
}

/* A ring exchange with Sendrecv, then the any/some/all forms of wait and test. */
static void ring_and_completion(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    CHECK_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == left);
    int v = rank;
    CHECK_OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
    CHECK(v == left);

    enum { K = 4 };
    int recv[K], send[K];
    MPI_Request reqs[2 * K];
    for (int i = 0; i < K; i++) {
        send[i] = rank * 10 + i;
        CHECK_OK(MPI_Irecv(&recv[i], 1, MPI_INT, left, 20 + i, MPI_COMM_WORLD, &reqs[i]));
    }
    for (int i = 0; i < K; i++)
        CHECK_OK(MPI_Isend(&send[i], 1, MPI_INT, right, 20 + i, MPI_COMM_WORLD, &reqs[K + i]));
    int done = 0, index = -1, flag = 0;
    CHECK_OK(MPI_Waitany(2 * K, reqs, &index, MPI_STATUS_IGNORE));
    CHECK(index >= 0 && index < 2 * K && reqs[index] == MPI_REQUEST_NULL);
    done++;
    while (done < 2 * K) {
        int outcount = 0, indices[2 * K];
        CHECK_OK(MPI_Testsome(2 * K, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
        CHECK(outcount != MPI_UNDEFINED);
        done += outcount;
        if (done < 2 * K) {
            CHECK_OK(MPI_Waitsome(2 * K, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
            done += outcount;
        }
    }
    CHECK_OK(MPI_Testall(2 * K, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag);
    CHECK_OK(MPI_Testany(2 * K, reqs, &index, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && index == MPI_UNDEFINED);
    for (int i = 0; i < K; i++) CHECK(recv[i] == left * 10 + i);
}

/* Persistent requests started three times; ready and buffered sends. */
static void persistent_ready_buffered(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = 0, in = -1;
    MPI_Request r[2];
    CHECK_OK(MPI_Recv_init(&in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(MPI_Send_init(&out, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &r[1]));
    for (int round = 0; round < 3; round++) {
        out = rank * 100 + round;
        CHECK_OK(MPI_Startall(2, r));
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(in == left * 100 + round && r[0] != MPI_REQUEST_NULL);
    }
    CHECK_OK(MPI_Request_free(&r[0]));
    CHECK_OK(MPI_Request_free(&r[1]));

    /* Ready send: the receive is known posted (the barrier orders it). */
    MPI_Request req;
    CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Rsend(&rank, 1, MPI_INT, right, 4, MPI_COMM_WORLD));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(in == left);

    int bufsize = 4 * (64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *attached = malloc(bufsize);
    CHECK_OK(MPI_Buffer_attach(attached, bufsize));
    int data[64], got[64];
    for (int i = 0; i < 64; i++) data[i] = rank + i;
    CHECK_OK(MPI_Bsend(data, 64, MPI_INT, right, 5, MPI_COMM_WORLD));
    for (int i = 0; i < 64; i++) data[i] = -1; /* the buffered copy went already */
    CHECK_OK(MPI_Recv(got, 64, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 64; i++) CHECK(got[i] == left + i);
    void *detached = NULL;
    int detached_size = 0;
    CHECK_OK(MPI_Buffer_detach(&detached, &detached_size));
    CHECK(detached == attached && detached_size == bufsize);
    free(attached);
}

/* A message longer than the receive buffer is an MPI_ERR_TRUNCATE (with errors returned). */
static void truncation(int rank, int size) {
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int two[2] = {1, 2}, one = 0;
    MPI_Request req;
    CHECK_OK(MPI_Isend(two, 2, MPI_INT, rank, 77, MPI_COMM_WORLD, &req));
    int err = MPI_Recv(&one, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int cls = -1;
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_TRUNCATE);
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    (void)size;
}

/* Persistent requests keep their datatype: the program may free it after the init call
 * (MPICH pt2pt/multi_psend_derived). */
static void persistent_after_type_free(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = 0, in = -1;
    char buffer[256 + MPI_BSEND_OVERHEAD];
    MPI_Datatype dup;
    MPI_Request r[3];
    MPI_Type_contiguous(1, MPI_INT, &dup);
    MPI_Type_commit(&dup);
    CHECK_OK(MPI_Recv_init(&in, 1, dup, left, 4, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(MPI_Send_init(&out, 1, dup, right, 4, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(MPI_Type_free(&dup));
    for (int round = 0; round < 3; round++) {
        out = 100 * rank + round;
        CHECK_OK(MPI_Startall(2, r));
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(in == 100 * left + round);
    }
    MPI_Type_contiguous(1, MPI_INT, &dup);
    MPI_Type_commit(&dup);
    CHECK_OK(MPI_Bsend_init(&out, 1, dup, right, 4, MPI_COMM_WORLD, &r[2]));
    CHECK_OK(MPI_Type_free(&dup));
    CHECK_OK(MPI_Buffer_attach(buffer, sizeof buffer));
    CHECK_OK(MPI_Start(&r[0]));
    CHECK_OK(MPI_Start(&r[2]));
    CHECK_OK(MPI_Waitall(1, &r[2], MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(in == 100 * left + 2);
    void *back;
    int len;
    CHECK_OK(MPI_Buffer_detach(&back, &len));
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_Request_free(&r[i]));
}

/* No data with MPI_DATATYPE_NULL (as MPICH accepts it), to MPI_PROC_NULL and to a peer;
 * with data it is still an error. */
static void null_type_without_data(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Request r;
    CHECK_OK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK_OK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, left, 3, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, right, 3, MPI_COMM_WORLD));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 3);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, eclass;
    MPI_Error_class(MPI_Send(&x, 1, MPI_DATATYPE_NULL, right, 3, MPI_COMM_WORLD), &eclass);
    CHECK(eclass == MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
    CHECK_OK(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 64);
    sizes_around_every_power(rank, size);
    non_overtaking(rank, size);
    any_source(rank, size);
    proc_null_probe_cancel(rank, size);
    ring_and_completion(rank, size);
    persistent_ready_buffered(rank, size);
    truncation(rank, size);
    null_type_without_data(rank, size);
    persistent_after_type_free(rank, size);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    printf("p2p ok rank %d of %d\n", rank, size);
    CHECK_OK(MPI_Finalize());
    return 0;
}
