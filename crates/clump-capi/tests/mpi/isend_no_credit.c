/* Non-blocking sends never wait for their receiver, however many are in flight, and
 * every message still arrives in the order it was sent. Ranks pair up (0 sends to 1, 2
 * to 3; one process sends to itself). After a barrier the receiver sleeps SLEEP_S
 * without calling MPI while the sender starts far more sends than a destination takes
 * in flight (CLUMP_CREDITS, at most 64): eager MPI_Isend, started persistent sends,
 * MPI_Ibsend, an MPI_Issend, a rendezvous MPI_Isend, and a root's MPI_Ibcast; starting
 * them all must take well under the sleep (MPICH's sendrecv3 saw 100 Isends block for
 * the whole of its partner's sleep). Then a blocking MPI_Send goes behind them, and the
 * receiver takes every message of the one tag and checks that its number is the next. */
#include "check.h"
#include <string.h>
#include <unistd.h>

#define EAGER 100
#define PERSISTENT 20
#define BUFFERED 20
#define LARGE (1 << 20)
#define TOTAL (EAGER + PERSISTENT + BUFFERED + 3)
#define TAG 7
#define SLEEP_S 2
#define LIMIT_S 1.0

static void receive_all(int peer, int size, int sleeps);

static void send_all(int peer, int size)
{
    static int small[EAGER + PERSISTENT + BUFFERED + 1];
    static MPI_Request r[TOTAL + 1];
    int n = 0, k = 0;
    for (int i = 0; i < (int)(sizeof small / sizeof small[0]); i++)
        small[i] = i;
    int *large = malloc(LARGE);
    CHECK(large != NULL);
    memset(large, 0x5a, LARGE);
    int bsize = BUFFERED * (sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc(bsize);
    CHECK(bbuf != NULL);
    CHECK_OK(MPI_Buffer_attach(bbuf, bsize));
    int root = 42;

    double t0 = MPI_Wtime();
    for (int i = 0; i < EAGER; i++, k++)
        CHECK_OK(MPI_Isend(&small[k], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD, &r[n++]));
    for (int i = 0; i < PERSISTENT; i++, k++) {
        CHECK_OK(MPI_Send_init(&small[k], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD, &r[n]));
        CHECK_OK(MPI_Start(&r[n++]));
    }
    for (int i = 0; i < BUFFERED; i++, k++) {
        MPI_Request b;
        CHECK_OK(MPI_Ibsend(&small[k], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD, &b));
        CHECK_OK(MPI_Request_free(&b));
    }
    CHECK_OK(MPI_Issend(&small[k], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD, &r[n++]));
    k++;
    large[0] = k++;
    CHECK_OK(MPI_Isend(large, LARGE / sizeof(int), MPI_INT, peer, TAG, MPI_COMM_WORLD,
                       &r[n++]));
    if (size > 1)
        CHECK_OK(MPI_Ibcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[n++]));
    double took = MPI_Wtime() - t0;
    if (took >= LIMIT_S)
        fprintf(stderr, "starting %d sends took %.2f s\n", n, took);
    CHECK(took < LIMIT_S);

    CHECK_OK(MPI_Send(&k, 1, MPI_INT, peer, TAG, MPI_COMM_WORLD));
    if (size == 1)
        receive_all(peer, size, 0); /* the synchronous and rendezvous sends need it */
    CHECK_OK(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
    for (int i = EAGER; i < EAGER + PERSISTENT; i++)
        CHECK_OK(MPI_Request_free(&r[i]));
    CHECK_OK(MPI_Buffer_detach(&bbuf, &bsize));
    free(bbuf);
    free(large);
}

static void receive_all(int peer, int size, int sleeps)
{
    if (sleeps)
        sleep(SLEEP_S);
    int *buf = malloc(LARGE);
    CHECK(buf != NULL);
    for (int k = 0; k < TOTAL; k++) {
        MPI_Status s;
        CHECK_OK(MPI_Recv(buf, LARGE / sizeof(int), MPI_INT, peer, TAG, MPI_COMM_WORLD, &s));
        int count = -1;
        CHECK_OK(MPI_Get_count(&s, MPI_INT, &count));
        if (buf[0] != k)
            fprintf(stderr, "message %d arrived where %d was due\n", buf[0], k);
        CHECK(buf[0] == k);
        CHECK(count == (k == TOTAL - 2 ? (int)(LARGE / sizeof(int)) : 1));
    }
    if (size > 1) {
        int root = 0;
        MPI_Request r;
        CHECK_OK(MPI_Ibcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(root == 42);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    int peer = size == 1 ? 0 : rank ^ 1;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (size == 1)
        send_all(peer, size);
    else if (peer < size) {
        if (rank % 2 == 0)
            send_all(peer, size);
        else
            receive_all(peer, size, 1);
    }
    CHECK_OK(MPI_Finalize());
    printf("isend_no_credit ok\n");
    return 0;
}
