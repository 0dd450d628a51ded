/* AM-II SPMD and MPI in one process, sharing one job membership: clump_spmd_startup
 * first, then MPI_Init. Active messages go round a ring before, while and after MPI
 * runs, with the SPMD barrier between, and MPI checks what they delivered; the job
 * goes on for AM-II after MPI_Finalize. Prints "spmd_mixed ok" once per process. */
#include "check.h"
#include <clump/spmd.h>

/* CHECK ends the job through MPI, which is gone after MPI_Finalize: AM-II's checks end it
 * through the SPMD layer, which outlives it. */
#define AM_CHECK(cond)                                                                \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", clump_spmd_rank(),  \
                    __FILE__, __LINE__, #cond);                                       \
            clump_spmd_exit(1);                                                       \
        }                                                                             \
    } while (0)

enum { H_PING = 1, H_PONG = 2 };

static int replies, served, last_from = -1;

static void ping(void *token, int32_t from) {
    served++;
    last_from = from;
    AM_CHECK(AM_Reply0(token, H_PONG) == AM_OK);
}
static void pong(void *token) { (void)token; replies++; }

/* One round of the ring: a request to the next rank, polled until it is answered and
 * the previous rank's request of this round has been served. */
static void ring_round(eb_t eb, ep_t ep, int rank, int size, int round) {
    AM_CHECK(AM_Request1(ep, (rank + 1) % size, H_PING, rank) == AM_OK);
    while (replies < round || served < round) AM_CHECK(AM_Poll(eb) == AM_OK);
}

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    if (clump_spmd_startup(&argc, &argv, &eb, &ep) != AM_OK) return 1;
    int rank = clump_spmd_rank(), size = clump_spmd_size();
    AM_CHECK(AM_SetHandler(ep, H_PING, ping) == AM_OK);
    AM_CHECK(AM_SetHandler(ep, H_PONG, pong) == AM_OK);
    AM_CHECK(clump_spmd_barrier() == AM_OK);
    ring_round(eb, ep, rank, size, 1);
    AM_CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    int mpi_rank = -1, mpi_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    CHECK(mpi_rank == rank && mpi_size == size);
    ring_round(eb, ep, rank, size, 2);
    AM_CHECK(clump_spmd_barrier() == AM_OK);
    int from_sum = 0;
    CHECK(MPI_Allreduce(&last_from, &from_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(from_sum == size * (size - 1) / 2);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    ring_round(eb, ep, rank, size, 3);
    AM_CHECK(clump_spmd_barrier() == AM_OK);
    AM_CHECK(AM_Terminate() == AM_OK);
    printf("spmd_mixed ok\n");
    return 0;
}
