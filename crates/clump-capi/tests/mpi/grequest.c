/* Generalized requests: the query function's status comes out of wait and test, the free
 * function runs once with the extra state (at the wait, or at MPI_Grequest_complete after
 * MPI_Request_free), cancel reports whether the request had completed; a second
 * MPI_Grequest_complete is an error. MPI_Request_get_status and its _all, _any and _some
 * forms over pending, completed, null and inactive requests, which they leave in place;
 * MPI_Comm_disconnect of a duplicate. */
#include "check.h"

struct state {
    int freed, cancelled, complete_at_cancel;
};

static int query(void *extra, MPI_Status *s)
{
    (void) extra;
    s->MPI_SOURCE = 7;
    s->MPI_TAG = 8;
    MPI_Status_set_cancelled(s, 0);
    MPI_Status_set_elements(s, MPI_INT, 3);
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    ((struct state *) extra)->freed++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    struct state *st = extra;
    st->cancelled++;
    st->complete_at_cancel = complete;
    return MPI_SUCCESS;
}

static void generalized(void)
{
    struct state st = {0, 0, 0};
    MPI_Request r;
    MPI_Status s;
    int flag = 1, n = -1;
    CHECK_OK(MPI_Grequest_start(query, release, cancel, &st, &r));
    CHECK_OK(MPI_Test(&r, &flag, &s));
    CHECK(!flag && r != MPI_REQUEST_NULL);
    CHECK_OK(MPI_Request_get_status(r, &flag, &s));
    CHECK(!flag);
    CHECK_OK(MPI_Cancel(&r));
    CHECK(st.cancelled == 1 && st.complete_at_cancel == 0);
    CHECK_OK(MPI_Grequest_complete(r));
    CHECK(MPI_Grequest_complete(r) != MPI_SUCCESS);
    CHECK_OK(MPI_Request_get_status(r, &flag, &s));
    CHECK(flag && s.MPI_SOURCE == 7 && st.freed == 0 && r != MPI_REQUEST_NULL);
    CHECK_OK(MPI_Wait(&r, &s));
    CHECK_OK(MPI_Get_count(&s, MPI_INT, &n));
    CHECK(r == MPI_REQUEST_NULL && s.MPI_SOURCE == 7 && s.MPI_TAG == 8 && n == 3 && st.freed == 1);

    /* Freed before it completes: the free function runs at MPI_Grequest_complete. */
    CHECK_OK(MPI_Grequest_start(query, release, cancel, &st, &r));
    MPI_Request kept = r;
    CHECK_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && st.freed == 1);
    CHECK_OK(MPI_Grequest_complete(kept));
    CHECK(st.freed == 2);

    /* Completed before the test; cancel then says so. */
    CHECK_OK(MPI_Grequest_start(query, release, cancel, &st, &r));
    CHECK_OK(MPI_Grequest_complete(r));
    CHECK_OK(MPI_Cancel(&r));
    CHECK(st.cancelled == 2 && st.complete_at_cancel == 1);
    CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL && st.freed == 3);

    CHECK(MPI_Grequest_start(NULL, release, cancel, &st, &r) != MPI_SUCCESS);
}

static void statuses(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int in = -1, out = rank, flag = 0, index = -2, outcount = -2, indices[4];
    MPI_Request r[4];
    MPI_Status s[4];
    /* A receive nothing sends yet, an inactive persistent one, a null one. */
    CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(MPI_Recv_init(&in, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &r[1]));
    r[2] = MPI_REQUEST_NULL;
    CHECK_OK(MPI_Request_get_status_all(3, r, &flag, s));
    CHECK(!flag);
    CHECK_OK(MPI_Request_get_status_any(3, r, &index, &flag, &s[0]));
    CHECK(!flag && index == MPI_UNDEFINED);
    CHECK_OK(MPI_Request_get_status_some(3, r, &outcount, indices, s));
    CHECK(outcount == 0);
    /* Only null and inactive requests: _any says so with MPI_UNDEFINED, _some likewise. */
    CHECK_OK(MPI_Request_get_status_any(2, &r[1], &index, &flag, &s[0]));
    CHECK(flag && index == MPI_UNDEFINED);
    CHECK_OK(MPI_Request_get_status_some(2, &r[1], &outcount, indices, s));
    CHECK(outcount == MPI_UNDEFINED);

    /* Every rank has seen its receive pending before any sends. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Send(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    do
        CHECK_OK(MPI_Request_get_status_all(3, r, &flag, s));
    while (!flag);
    CHECK(s[0].MPI_SOURCE == left && s[0].MPI_TAG == 5 && in == left && r[0] != MPI_REQUEST_NULL);
    CHECK_OK(MPI_Request_get_status_any(3, r, &index, &flag, &s[0]));
    CHECK(flag && index == 0 && s[0].MPI_SOURCE == left);
    CHECK_OK(MPI_Request_get_status_some(3, r, &outcount, indices, s));
    CHECK(outcount == 1 && indices[0] == 0 && s[0].MPI_TAG == 5);
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_free(&r[1]));
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    generalized();
    statuses(rank, size);
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_disconnect(&dup));
    CHECK(dup == MPI_COMM_NULL);
    MPI_Finalize();
    printf("grequest ok\n");
    return 0;
}
