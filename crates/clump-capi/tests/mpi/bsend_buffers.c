/* The buffers of buffered sends (MPI 4.1): a communicator's own buffer comes first, then
 * the one of the session it was made in, then the process's; MPI_BUFFER_AUTOMATIC has no
 * limit; detach gives back what was attached, and flush and detach wait for the sends. Each
 * rank sends to the next around the ring (to itself alone). */
#include "check.h"
#include <string.h>

#define N 1000

static int data[N], in[N];

/* A buffered send of `n` ints to the next rank in `comm`, received from the previous one;
 * the send's result (the receive happens only if it was sent). */
static int ring(MPI_Comm comm, int n, int tag)
{
    int rank, size;
    CHECK_OK(MPI_Comm_rank(comm, &rank));
    CHECK_OK(MPI_Comm_size(comm, &size));
    int rc = MPI_Bsend(data, n, MPI_INT, (rank + 1) % size, tag, comm);
    int sent = rc == MPI_SUCCESS, all = 0;
    CHECK_OK(MPI_Allreduce(&sent, &all, 1, MPI_INT, MPI_MIN, comm));
    CHECK(all == sent);
    if (sent) {
        memset(in, 0, sizeof in);
        CHECK_OK(MPI_Recv(in, n, MPI_INT, (rank + size - 1) % size, tag, comm, MPI_STATUS_IGNORE));
        CHECK(memcmp(in, data, n * sizeof(int)) == 0);
    }
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size, got_size;
    void *got;
    static char small[64 + MPI_BSEND_OVERHEAD], big[sizeof data + MPI_BSEND_OVERHEAD];
    start_returning_errors(&argc, &argv, &rank, &size);
    for (int i = 0; i < N; i++)
        data[i] = i * 3 + 1;

    /* Nothing attached: no room. */
    CHECK(ring(MPI_COMM_WORLD, N, 1) == MPI_ERR_BUFFER);

    /* A small process buffer, a big one on a duplicate: each communicator uses its own. */
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Buffer_attach(small, sizeof small));
    CHECK_OK(MPI_Comm_attach_buffer(dup, big, sizeof big));
    CHECK(MPI_Comm_attach_buffer(dup, big, sizeof big) == MPI_ERR_BUFFER);
    CHECK(ring(MPI_COMM_WORLD, N, 2) == MPI_ERR_BUFFER);
    CHECK_OK(ring(MPI_COMM_WORLD, 16, 3));
    CHECK_OK(ring(dup, N, 4));
    CHECK_OK(MPI_Comm_flush_buffer(dup));
    CHECK_OK(MPI_Buffer_flush());
    CHECK_OK(MPI_Comm_detach_buffer(dup, &got, &got_size));
    CHECK(got == big && got_size == (int) sizeof big);
    CHECK(MPI_Comm_detach_buffer(dup, &got, &got_size) == MPI_ERR_BUFFER);
    /* Detached: the duplicate falls back to the process buffer. */
    CHECK(ring(dup, N, 5) == MPI_ERR_BUFFER);
    MPI_Count got_count;
    CHECK_OK(MPI_Buffer_detach_c(&got, &got_count));
    CHECK(got == small && got_count == (MPI_Count) sizeof small);

    /* Automatic: any size, given back as MPI_BUFFER_AUTOMATIC and 0. */
    CHECK_OK(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0));
    CHECK_OK(ring(dup, N, 6));
    CHECK_OK(ring(dup, N, 7));
    CHECK_OK(MPI_Comm_detach_buffer_c(dup, &got, &got_count));
    CHECK(got == MPI_BUFFER_AUTOMATIC && got_count == 0);
    CHECK_OK(MPI_Comm_free(&dup));

    /* A session's buffer serves the communicators made of its process sets, after their own. */
    MPI_Session session;
    MPI_Comm sc = session_world(&session, "bsend_buffers");
    CHECK(ring(sc, N, 8) == MPI_ERR_BUFFER);
    CHECK_OK(MPI_Session_attach_buffer(session, big, sizeof big));
    CHECK_OK(ring(sc, N, 9));
    CHECK(ring(MPI_COMM_WORLD, N, 10) == MPI_ERR_BUFFER);
    CHECK_OK(MPI_Comm_attach_buffer(sc, small, sizeof small));
    CHECK(ring(sc, N, 11) == MPI_ERR_BUFFER);
    CHECK_OK(MPI_Comm_detach_buffer(sc, &got, &got_size));
    CHECK(got == small);
    CHECK_OK(MPI_Session_flush_buffer(session));
    CHECK_OK(MPI_Session_detach_buffer(session, &got, &got_size));
    CHECK(got == big && got_size == (int) sizeof big);
    CHECK_OK(MPI_Session_attach_buffer_c(session, MPI_BUFFER_AUTOMATIC, 0));
    CHECK_OK(ring(sc, N, 12));
    CHECK_OK(MPI_Session_detach_buffer_c(session, &got, &got_count));
    CHECK(got == MPI_BUFFER_AUTOMATIC && got_count == 0);
    CHECK_OK(MPI_Comm_free(&sc));
    CHECK_OK(MPI_Session_finalize(&session));

    MPI_Finalize();
    printf("bsend_buffers ok\n");
    return 0;
}
