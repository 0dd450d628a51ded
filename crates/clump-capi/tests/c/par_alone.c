/* AM_PAR with one thread: an empty AM_Poll yields the core only when it can help, as
 * under AM_SEQ (its first polls of a wait spin), not on every call: with no other thread
 * waiting for the process lock, letting it go and yielding made each round trip about
 * thirty times slower. Rank 0 makes ROUND_TRIPS round trips to rank 1, which serves them;
 * this program defines sched_yield, so it sees the library's yields (per thread), and
 * counts those made inside the first SPIN_POLLS empty polls of each wait: there must be
 * none. Last, a poll loop with nothing to come must yield once its spin is spent (within
 * IDLE_MS), which shows that the library's yields are the ones counted.
 * Prints "par_alone ok" per rank. Usage: clump run -n 2 ./par_alone */
#define _DEFAULT_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

enum { H_PING = 1, H_PONG = 2, TAG = 0xa10e };
enum { ROUND_TRIPS = 2000, SPIN_POLLS = 8, IDLE_MS = 5000 };

static _Thread_local long yields;

/* The library's yields come here (the program's definition wins the dynamic lookup). */
int sched_yield(void) {
    yields++;
    return (int)syscall(SYS_sched_yield);
}

static eb_t eb;
static ep_t ep;
static atomic_int seen;
static long early_yields, early_polls;

static void on_ping(void *token, int32_t i) {
    atomic_fetch_add(&seen, 1);
    CHECK(AM_Reply1(token, H_PONG, i));
}
static void on_pong(void *token, int32_t i) {
    (void)token;
    (void)i;
    atomic_fetch_add(&seen, 1);
}

/* Polls until `seen` reaches want, counting the yields of the wait's first empty polls. */
static void wait_for(int want) {
    for (int empty = 0; atomic_load(&seen) < want; empty++) {
        long before = yields;
        CHECK(AM_Poll(eb));
        if (atomic_load(&seen) >= want) break;
        if (empty < SPIN_POLLS) {
            early_yields += yields - before;
            early_polls++;
        }
    }
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    eb_t spmd_eb;
    ep_t spmd_ep;
    CHECK(clump_spmd_startup(&argc, &argv, &spmd_eb, &spmd_ep));
    int rank = clump_spmd_rank();
    NEEDS_RANKS(2);

    en_t names[2], mine;
    CHECK(AM_AllocateBundle(AM_PAR, &eb));
    CHECK(AM_AllocateEndpoint(eb, &ep, &mine));
    CHECK(AM_SetTag(ep, TAG));
    CHECK(AM_SetHandler(ep, H_PING, on_ping));
    CHECK(AM_SetHandler(ep, H_PONG, on_pong));
    /* Ranks 2 and up take no part. */
    if (rank < 2) {
        CHECK(clump_spmd_allgather(&mine, names, sizeof mine));
    } else {
        en_t all[64];
        EXPECT(clump_spmd_size() <= 64);
        CHECK(clump_spmd_allgather(&mine, all, sizeof mine));
        names[0] = all[0];
        names[1] = all[1];
    }
    for (int r = 0; r < 2; r++) CHECK(AM_Map(ep, r, names[r], TAG));
    CHECK(AM_SetExpectedResources(ep, 2, 4));
    CHECK(clump_spmd_barrier());

    /* Counted from the second wait: the first follows the barrier's. */
    for (int i = 0; i < ROUND_TRIPS && rank < 2; i++) {
        if (rank == 0) CHECK(AM_Request1(ep, 1, H_PING, i));
        wait_for(i + 1);
        if (i == 0) early_yields = early_polls = 0;
    }
    if (rank < 2) {
        printf("par_alone: rank %d yields in %ld early empty polls: %ld\n", rank, early_polls,
               early_yields);
        EXPECT(early_yields == 0);
    }

    /* Nothing is asked now: past its spin, an empty poll lets the core go (a poll that
     * finds protocol traffic, such as a late ack over UDP, starts a fresh spin). */
    long before = yields;
    for (double end = now_ms() + IDLE_MS; yields == before && now_ms() < end;)
        CHECK(AM_Poll(eb));
    EXPECT(yields > before);

    CHECK(clump_spmd_barrier());
    printf("par_alone ok\n");
    CHECK(AM_Terminate());
    return 0;
}
