/* The non-blocking flushes of MPI 4.1's buffers (MPI_Buffer_iflush, MPI_Comm_iflush_buffer,
 * MPI_Session_iflush_buffer): the request completes once the buffered sends the buffer
 * holds have left, not before. Each rank makes a buffered send too large to go eagerly to
 * the next rank around the ring (to itself alone), which receives it only after a barrier
 * the sender enters after testing the flush: so the flush cannot be complete at that
 * test, and must be once the message is received. A flush with nothing pending completes
 * at its first test. */
#include "check.h"
#include <string.h>

#define N (1 << 18)

static int data[N], in[N];
static char buffer[sizeof data + MPI_BSEND_OVERHEAD];

enum owner { PROCESS, COMM, SESSION };

static int iflush(enum owner o, MPI_Comm comm, MPI_Session session, MPI_Request *r)
{
    switch (o) {
    case PROCESS: return MPI_Buffer_iflush(r);
    case COMM: return MPI_Comm_iflush_buffer(comm, r);
    default: return MPI_Session_iflush_buffer(session, r);
    }
}

/* One round of the ring in `comm` through `o`'s buffer (attached by the caller). */
static void round_trip(enum owner o, MPI_Comm comm, MPI_Session session, int tag)
{
    int rank, size, flag = 0;
    MPI_Request r;
    CHECK_OK(MPI_Comm_rank(comm, &rank));
    CHECK_OK(MPI_Comm_size(comm, &size));

    CHECK_OK(iflush(o, comm, session, &r));
    CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL);

    for (int i = 0; i < N; i++)
        data[i] = i * 7 + tag;
    CHECK_OK(MPI_Bsend(data, N, MPI_INT, (rank + 1) % size, tag, comm));
    CHECK_OK(iflush(o, comm, session, &r));
    CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag);
    CHECK_OK(MPI_Barrier(comm));
    memset(in, 0, sizeof in);
    CHECK_OK(MPI_Recv(in, N, MPI_INT, (rank + size - 1) % size, tag, comm, MPI_STATUS_IGNORE));
    CHECK(in[N - 1] == (N - 1) * 7 + tag);
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL);
}

int main(int argc, char **argv)
{
    int rank, size, got_size;
    void *got;
    start_returning_errors(&argc, &argv, &rank, &size);

    CHECK(MPI_Buffer_iflush(NULL) != MPI_SUCCESS);

    CHECK_OK(MPI_Buffer_attach(buffer, sizeof buffer));
    round_trip(PROCESS, MPI_COMM_WORLD, MPI_SESSION_NULL, 1);
    CHECK_OK(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == buffer);

    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_attach_buffer(dup, buffer, sizeof buffer));
    round_trip(COMM, dup, MPI_SESSION_NULL, 2);
    CHECK_OK(MPI_Comm_detach_buffer(dup, &got, &got_size));
    CHECK_OK(MPI_Comm_free(&dup));

    MPI_Session session;
    MPI_Comm sc = session_world(&session, "bsend_iflush");
    CHECK_OK(MPI_Session_attach_buffer(session, buffer, sizeof buffer));
    round_trip(SESSION, sc, session, 3);
    CHECK_OK(MPI_Session_detach_buffer(session, &got, &got_size));
    CHECK_OK(MPI_Comm_free(&sc));
    CHECK_OK(MPI_Session_finalize(&session));

    MPI_Finalize();
    printf("bsend_iflush ok\n");
    return 0;
}
