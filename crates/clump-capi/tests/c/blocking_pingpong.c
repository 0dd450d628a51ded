/* Blocking ping-pong in a ring: every rank sends short requests to the next rank and
 * answers the previous one's, sleeping in AM_WaitSema whenever it has nothing to do, so
 * each round trip needs two wake-ups of a sleeping process. Run with CLUMP_SPIN_US=0 so
 * that no process spins before it sleeps. Prints "blocking: rank R rtt_us=X" with X the
 * mean round trip in microseconds.
 * Usage: clump run -n N ./blocking_pingpong [iterations] */
#include <stdlib.h>
#include <time.h>
#include "check.h"

enum { H_PING = 1, H_PONG = 2 };

static int replies, served;

static void ping(void *token) {
    served++;
    CHECK(AM_Reply0(token, H_PONG));
}
static void pong(void *token) { (void)token; replies++; }

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Polls, then sleeps until a message arrives, until *counter reaches want. */
static void wait_for(eb_t eb, const int *counter, int want) {
    for (;;) {
        CHECK(AM_Poll(eb));
        if (*counter >= want) return;
        CHECK(AM_SetEventMask(eb, AM_NOTEMPTY));
        CHECK(AM_WaitSema(eb));
    }
}

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int rank = clump_spmd_rank(), size = clump_spmd_size();
    EXPECT(iters > 0 && size >= 2);
    CHECK(AM_SetHandler(ep, H_PING, ping));
    CHECK(AM_SetHandler(ep, H_PONG, pong));
    CHECK(clump_spmd_barrier());
    double t0 = now_us();
    for (int i = 0; i < iters; i++) {
        CHECK(AM_Request0(ep, (rank + 1) % size, H_PING));
        wait_for(eb, &replies, i + 1);
    }
    double rtt = (now_us() - t0) / iters;
    wait_for(eb, &served, iters); /* the previous rank may still be pinging */
    printf("blocking: rank %d rtt_us=%.1f\n", rank, rtt);
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
