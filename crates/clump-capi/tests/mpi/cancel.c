/* MPI_Cancel of sends and receives. Ranks pair up (0 sends to 1, 2 to 3; one process sends
 * to itself): a send nothing has received is cancelled, whatever its protocol (short, eager,
 * rendezvous, synchronous, persistent), and its message never arrives; a send already
 * received is not cancelled; a cancelled message in the middle of others leaves their
 * order; a receive nothing matches is cancelled. Buffered sends (MPI_Ibsend, a started
 * MPI_Bsend_init) are complete at once yet still cancelled, and give back their part of the
 * attached buffer. */
#include "check.h"
#include <stdlib.h>
#include <string.h>

#define BIG (1 << 18)

enum kind {
    SHORT, EAGER, RENDEZVOUS, SYNCHRONOUS, BUFFERED, BUFFERED_BIG,
    PERSISTENT, PERSISTENT_BIG, PERSISTENT_SYNC, PERSISTENT_BUFFERED, KINDS
};

static char *payload;

/* Starts a send of kind `k` to `peer` with `tag`; a persistent one also gives its handle. */
static void start(enum kind k, int peer, int tag, MPI_Request *r)
{
    switch (k) {
    case SHORT: CHECK_OK(MPI_Isend(payload, 4, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case EAGER: CHECK_OK(MPI_Isend(payload, 1000, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case RENDEZVOUS: CHECK_OK(MPI_Isend(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case SYNCHRONOUS: CHECK_OK(MPI_Issend(payload, 4, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case PERSISTENT: CHECK_OK(MPI_Send_init(payload, 4, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case PERSISTENT_BIG: CHECK_OK(MPI_Send_init(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case BUFFERED: CHECK_OK(MPI_Ibsend(payload, 4, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case BUFFERED_BIG: CHECK_OK(MPI_Ibsend(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case PERSISTENT_SYNC: CHECK_OK(MPI_Ssend_init(payload, 4, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    case PERSISTENT_BUFFERED: CHECK_OK(MPI_Bsend_init(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, r)); break;
    default: CHECK(0);
    }
    if (k >= PERSISTENT)
        CHECK_OK(MPI_Start(r));
}

/* Each kind of send, cancelled before anything receives it: the receiver then gets the
 * marker sent after it under the same tag, not the cancelled bytes. */
static void cancelled_sends(int sender, int receiver, int peer)
{
    for (int k = 0; k < KINDS; k++) {
        int tag = 10 + k, flag = 0, got[2] = {0, 0}, count = -1;
        MPI_Request r;
        MPI_Status s;
        if (sender) {
            start(k, peer, tag, &r);
            CHECK_OK(MPI_Cancel(&r));
            CHECK_OK(MPI_Wait(&r, &s));
            CHECK_OK(MPI_Test_cancelled(&s, &flag));
            CHECK(flag);
            if (k >= PERSISTENT) {
                /* Still a persistent request: freed by the program. */
                CHECK(r != MPI_REQUEST_NULL);
                CHECK_OK(MPI_Request_free(&r));
            }
            CHECK(r == MPI_REQUEST_NULL);
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (sender) {
            int marker = -k - 1;
            CHECK_OK(MPI_Send(&marker, 1, MPI_INT, peer, tag, MPI_COMM_WORLD));
        }
        if (receiver) {
            CHECK_OK(MPI_Recv(got, 2, MPI_INT, peer, tag, MPI_COMM_WORLD, &s));
            CHECK_OK(MPI_Get_count(&s, MPI_INT, &count));
            CHECK(count == 1 && got[0] == -k - 1);
            CHECK_OK(MPI_Test_cancelled(&s, &flag));
            CHECK(!flag);
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* Cancels `r` and completes it: the status says whether it was `cancelled`. */
static void cancel_expecting(MPI_Request *r, int cancelled)
{
    MPI_Status s;
    int flag = !cancelled;
    CHECK_OK(MPI_Cancel(r));
    CHECK_OK(MPI_Wait(r, &s));
    CHECK_OK(MPI_Test_cancelled(&s, &flag));
    CHECK(flag == cancelled);
}

/* The attached buffer holds one big message: a cancelled buffered send gives its part back,
 * so the next one fits while the receiver has taken nothing; a buffered send received
 * already is not cancelled. */
static void buffered_space(int sender, int receiver, int peer)
{
    int tag = 60;
    MPI_Request r;
    char *in = malloc(BIG);
    if (sender) {
        for (int i = 0; i < 3; i++) {
            CHECK_OK(MPI_Ibsend(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r));
            cancel_expecting(&r, 1);
        }
        /* Full: a second message does not fit beside this one. */
        CHECK_OK(MPI_Ibsend(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r));
        CHECK(MPI_Bsend(payload, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (receiver) {
        CHECK_OK(MPI_Recv(in, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(memcmp(in, payload, BIG) == 0);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (sender)
        cancel_expecting(&r, 0);
    free(in);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* A send whose message was received already is not cancelled (short and rendezvous). */
static void received_sends(int sender, int receiver, int peer)
{
    int sizes[2] = {4, BIG};
    for (int i = 0; i < 2; i++) {
        int tag = 30 + i;
        MPI_Request r;
        MPI_Status s;
        char *in = malloc(BIG);
        if (sender)
            CHECK_OK(MPI_Isend(payload, sizes[i], MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r));
        if (receiver) {
            CHECK_OK(MPI_Recv(in, BIG, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &s));
            CHECK(memcmp(in, payload, sizes[i]) == 0);
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (sender)
            cancel_expecting(&r, 0);
        free(in);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* Three sends with one tag, the middle one cancelled: the other two arrive in order. */
static void cancelled_in_between(int sender, int receiver, int peer)
{
    int v[3] = {1, 2, 3}, flags[3], got = 0;
    MPI_Request r[3];
    MPI_Status s[3];
    if (sender) {
        for (int i = 0; i < 3; i++)
            CHECK_OK(MPI_Isend(&v[i], 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &r[i]));
        CHECK_OK(MPI_Cancel(&r[1]));
        CHECK_OK(MPI_Waitall(3, r, s));
        for (int i = 0; i < 3; i++)
            CHECK_OK(MPI_Test_cancelled(&s[i], &flags[i]));
        CHECK(!flags[0] && flags[1] && !flags[2]);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (receiver) {
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == 1);
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == 3);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* A receive nothing matches is cancelled; so is one polled by MPI_Test first. */
static void cancelled_receive(int peer)
{
    int x = 0, flag = 0;
    MPI_Request r;
    MPI_Status s;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Test(&r, &flag, &s));
    CHECK(!flag);
    CHECK_OK(MPI_Cancel(&r));
    CHECK_OK(MPI_Wait(&r, &s));
    CHECK_OK(MPI_Test_cancelled(&s, &flag));
    CHECK(flag && r == MPI_REQUEST_NULL);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    payload = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        payload[i] = (char) (i * 7);
    /* The last rank of an odd job has no partner and only takes part in the barriers. */
    int peer = size == 1 ? 0 : rank ^ 1;
    int paired = peer < size;
    int sender = paired && rank % 2 == 0, receiver = paired && (size == 1 || rank % 2 == 1);
    /* Room for one big buffered send at a time. */
    int room = BIG + MPI_BSEND_OVERHEAD;
    void *attached = malloc(room), *detached;
    CHECK_OK(MPI_Buffer_attach(attached, room));
    cancelled_sends(sender, receiver, peer);
    buffered_space(sender, receiver, peer);
    received_sends(sender, receiver, peer);
    cancelled_in_between(sender, receiver, peer);
    if (paired)
        cancelled_receive(peer);
    CHECK_OK(MPI_Buffer_detach(&detached, &room));
    CHECK(detached == attached && room == BIG + MPI_BSEND_OVERHEAD);
    free(attached);
    free(payload);
    MPI_Finalize();
    printf("cancel ok\n");
    return 0;
}
