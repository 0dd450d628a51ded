/* AM_PAR: a thread that waits inside AM_Request for credit must not keep the other
 * threads of its process out meanwhile. Rank 1 stays away from clump for HOLD_MS after
 * the barrier, so rank 0's sender runs out of credit to it (CREDITS) and waits inside
 * its AM_Request; meanwhile rank 0's pinger sends requests to its own rank and polls for
 * each reply. Every ping must come back within LIMIT_MS, and pings must complete while
 * rank 1 is away; then rank 1 serves every request and each reply reaches the sender.
 * Prints "par_credit ok" per rank. Usage: clump run -n 2 ./par_credit */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

enum { H_REQUEST = 1, H_REPLY = 2, H_PING = 3, H_PONG = 4, TAG = 0xc4ed };
enum { CREDITS = 4, REQUESTS = 32, HOLD_MS = 4000, LIMIT_MS = 1500 };

static ep_t ep;
static eb_t eb;
static int rank;
static atomic_int served, replies, pongs, sender_done;

static void on_request(void *token, int32_t i) {
    (void)i;
    atomic_fetch_add(&served, 1);
    CHECK(AM_Reply1(token, H_REPLY, i));
}
static void on_reply(void *token, int32_t i) {
    (void)token;
    (void)i;
    atomic_fetch_add(&replies, 1);
}
static void on_ping(void *token, int32_t i) { CHECK(AM_Reply1(token, H_PONG, i)); }
static void on_pong(void *token, int32_t i) {
    (void)token;
    (void)i;
    atomic_fetch_add(&pongs, 1);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void poll_until(atomic_int *counter, int want) {
    while (atomic_load(counter) < want) CHECK(AM_Poll(eb));
}

/* Rank 0: REQUESTS requests to rank 1, which answers none of them for HOLD_MS. */
static void *sender(void *arg) {
    (void)arg;
    for (int i = 0; i < REQUESTS; i++) CHECK(AM_Request1(ep, 1, H_REQUEST, i));
    poll_until(&replies, REQUESTS);
    atomic_store(&sender_done, 1);
    return NULL;
}

/* Rank 0: round trips to itself while the sender waits; the slowest in *worst_ms, and
 * how many ended before rank 1 came back in *early. */
static void ping_while_sending(double start_ms, double *worst_ms, int *early) {
    int sent = 0;
    *worst_ms = 0;
    *early = 0;
    while (!atomic_load(&sender_done)) {
        double t0 = now_ms();
        CHECK(AM_Request1(ep, 0, H_PING, sent));
        poll_until(&pongs, ++sent);
        double t1 = now_ms();
        if (t1 - t0 > *worst_ms) *worst_ms = t1 - t0;
        if (t1 - start_ms < HOLD_MS) ++*early;
    }
    EXPECT(atomic_load(&pongs) == sent);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Polls while the main thread is in the last barrier (retransmissions over UDP). */
static atomic_int finished;
static void *poller(void *arg) {
    (void)arg;
    while (!atomic_load(&finished)) CHECK(AM_Poll(eb));
    return NULL;
}

int main(int argc, char **argv) {
    eb_t spmd_eb;
    ep_t spmd_ep;
    en_t names[2], mine;
    CHECK(clump_spmd_startup(&argc, &argv, &spmd_eb, &spmd_ep));
    rank = clump_spmd_rank();
    EXPECT(clump_spmd_size() == 2);
    CHECK(AM_AllocateBundle(AM_PAR, &eb));
    CHECK(AM_AllocateEndpoint(eb, &ep, &mine));
    CHECK(AM_SetTag(ep, TAG));
    CHECK(AM_SetHandler(ep, H_REQUEST, on_request));
    CHECK(AM_SetHandler(ep, H_REPLY, on_reply));
    CHECK(AM_SetHandler(ep, H_PING, on_ping));
    CHECK(AM_SetHandler(ep, H_PONG, on_pong));
    CHECK(clump_spmd_allgather(&mine, names, sizeof mine));
    for (int r = 0; r < 2; r++) CHECK(AM_Map(ep, r, names[r], TAG));
    CHECK(AM_SetExpectedResources(ep, 2, CREDITS));
    CHECK(clump_spmd_barrier());

    double start = now_ms();
    if (rank == 0) {
        pthread_t t;
        double worst;
        int early;
        EXPECT(pthread_create(&t, NULL, sender, NULL) == 0);
        ping_while_sending(start, &worst, &early);
        EXPECT(pthread_join(t, NULL) == 0);
        printf("par_credit: slowest ping %.1f ms, %d pings while rank 1 was away\n", worst,
               early);
        EXPECT(worst < LIMIT_MS);
        EXPECT(early > 0);
        EXPECT(atomic_load(&replies) == REQUESTS);
    } else {
        sleep_ms(HOLD_MS);
        poll_until(&served, REQUESTS);
        EXPECT(atomic_load(&served) == REQUESTS);
    }
    pthread_t last;
    EXPECT(pthread_create(&last, NULL, poller, NULL) == 0);
    CHECK(clump_spmd_barrier());
    atomic_store(&finished, 1);
    EXPECT(pthread_join(last, NULL) == 0);
    printf("par_credit ok\n");
    CHECK(AM_Terminate());
    return 0;
}
