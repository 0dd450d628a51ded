/* A synchronous send completes once its receive is posted, while the receiver waits in
 * MPI_Finalize. Ranks pair up (0 sends to 1, 2 to 3; one process sends to itself). The
 * sender starts synchronous sends (MPI_Issend and a started MPI_Ssend_init, empty and
 * not) and tests them; the receiver waits until each message is stored unexpected
 * (MPI_Probe), receives it, and goes on to MPI_Finalize, which waits for the sender. A
 * receive that matched a stored request to send at once owes the sender its answer then:
 * MPICH's pssend hung here over UDP. The sender gives up (and fails) after LIMIT_S. */
#include "check.h"

#define SENDS 4
#define LIMIT_S 30.0

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    int peer = size == 1 ? 0 : rank ^ 1;
    int sender = size == 1 || (rank % 2 == 0 && peer < size);
    int receiver = size == 1 || (rank % 2 == 1);
    int data[SENDS] = {11, 22, 33, 44}, got[SENDS] = {0, 0, 0, 0};
    MPI_Request r[SENDS];

    if (sender) {
        CHECK_OK(MPI_Issend(NULL, 0, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[0]));
        CHECK_OK(MPI_Issend(&data[1], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]));
        CHECK_OK(MPI_Ssend_init(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[2]));
        CHECK_OK(MPI_Ssend_init(&data[3], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[3]));
        CHECK_OK(MPI_Startall(2, &r[2]));
        int flag = 1;
        CHECK_OK(MPI_Testall(SENDS, r, &flag, MPI_STATUSES_IGNORE));
        CHECK(!flag || size == 1);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (receiver) {
        MPI_Request rr;
        for (int t = 0; t < SENDS; t++) {
            MPI_Status s;
            CHECK_OK(MPI_Probe(peer, t, MPI_COMM_WORLD, &s));
            int n = t % 2;
            if (t < 2) {
                CHECK_OK(MPI_Recv(&got[t], n, MPI_INT, peer, t, MPI_COMM_WORLD, &s));
            } else {
                CHECK_OK(MPI_Irecv(&got[t], n, MPI_INT, peer, t, MPI_COMM_WORLD, &rr));
                CHECK_OK(MPI_Wait(&rr, &s));
            }
            int count = -1;
            CHECK_OK(MPI_Get_count(&s, MPI_INT, &count));
            CHECK(count == n && (n == 0 || got[t] == data[t]));
        }
    }
    if (sender) {
        double t0 = MPI_Wtime();
        int done = 0;
        while (!done && MPI_Wtime() - t0 < LIMIT_S)
            CHECK_OK(MPI_Testall(SENDS, r, &done, MPI_STATUSES_IGNORE));
        if (!done)
            fprintf(stderr, "rank %d: synchronous sends not complete after %.0f s\n", rank,
                    LIMIT_S);
        CHECK(done);
        CHECK_OK(MPI_Request_free(&r[2]));
        CHECK_OK(MPI_Request_free(&r[3]));
    }
    CHECK_OK(MPI_Finalize());
    printf("ssend_matched ok\n");
    return 0;
}
