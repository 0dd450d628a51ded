/* Ping-pong latency: rank 0 sends a short request, rank 1's handler replies, rank 0 polls
 * for the reply. Prints "pingpong: rtt_us=R" with R the median over batches of the mean
 * round trip, in microseconds (the figure `clump bench loggp` reports as RTT).
 * Usage: clump run -n 2 ./pingpong [iterations-per-batch] [batches] */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include "check.h"

enum { H_PING = 1, H_PONG = 2, H_DONE = 3 };

static int replies, done;

static void ping(void *token) { CHECK(AM_Reply0(token, H_PONG)); }
static void pong(void *token) { (void)token; replies++; }
static void stop(void *token) { (void)token; done = 1; }

/* Pins this process to the rank-th CPU it may run on, as the benchmark does. */
static void pin(int rank) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    int seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        if (seen++ == rank % CPU_COUNT(&allowed)) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
    }
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int iters = argc > 1 ? atoi(argv[1]) : 2000, batches = argc > 2 ? atoi(argv[2]) : 21;
    NEEDS_RANKS(2);
    EXPECT(iters > 0 && batches > 0 && batches <= 1000);
    int rank = clump_spmd_rank();
    pin(rank);
    CHECK(AM_SetHandler(ep, H_PING, ping));
    CHECK(AM_SetHandler(ep, H_PONG, pong));
    CHECK(AM_SetHandler(ep, H_DONE, stop));
    CHECK(clump_spmd_barrier());
    if (rank == 0) {
        double rtt[1000];
        for (int b = -1; b < batches; b++) { /* batch -1 warms up */
            double t0 = now_us();
            for (int i = 0; i < iters; i++) {
                int want = replies + 1;
                CHECK(AM_Request0(ep, 1, H_PING));
                while (replies < want) CHECK(AM_Poll(eb));
            }
            if (b >= 0) rtt[b] = (now_us() - t0) / iters;
        }
        qsort(rtt, batches, sizeof rtt[0], cmp);
        printf("pingpong: rtt_us=%.3f min_us=%.3f batches=%d iters=%d\n", rtt[batches / 2],
               rtt[0], batches, iters);
        CHECK(AM_Request0(ep, 1, H_DONE));
    } else if (rank == 1) {
        while (!done) CHECK(AM_Poll(eb));
    }
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
