/* AM_PAR: one bundle and endpoint per process used by THREADS threads at once. Each
 * thread sends MSGS requests (short and medium, in turn) to the next rank, at most WINDOW
 * of them unanswered; whichever thread polls runs the handlers, which reply from
 * whatever thread they run on. Even threads wait by polling, odd ones sleep in
 * AM_WaitSema. Every request is checked to run its handler once (a bit per message),
 * every medium payload byte by byte, and every reply to reach its sender's counter.
 * Prints "par ok" per rank and "par: rank R msgs_per_s=X".
 * Usage: clump run -n 2 ./par_threads [msgs per thread] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"

enum { THREADS = 6, WINDOW = 8, MEDIUM = 256, MAX_MSGS = 1 << 14, TAG = 0x7a11 };
enum { H_SHORT = 1, H_MEDIUM = 2, H_REPLY = 3 };

static ep_t ep;
static eb_t eb;
static int msgs, rank, size;
/* seen[t][i / 64]: bit i%64 set when message i of the peer's thread t ran its handler. */
static _Atomic uint64_t seen[THREADS][MAX_MSGS / 64];
static atomic_int served, duplicates, corrupt;
static atomic_int replies[THREADS];

static void mark(int thread, int i) {
    if (thread < 0 || thread >= THREADS || i < 0 || i >= msgs) {
        atomic_fetch_add(&corrupt, 1);
        return;
    }
    uint64_t bit = UINT64_C(1) << (i % 64);
    if (atomic_fetch_or(&seen[thread][i / 64], bit) & bit) atomic_fetch_add(&duplicates, 1);
    atomic_fetch_add(&served, 1);
}

static void on_short(void *token, int32_t thread, int32_t i) {
    mark(thread, i);
    CHECK(AM_Reply1(token, H_REPLY, thread));
}

static void on_medium(void *token, void *buf, size_t nbytes, int32_t thread, int32_t i) {
    const unsigned char *p = buf;
    int bad = nbytes != MEDIUM;
    for (size_t k = 0; !bad && k < nbytes; k++) bad = p[k] != (unsigned char)(thread * 31 + i + k);
    if (bad) atomic_fetch_add(&corrupt, 1);
    mark(thread, i);
    CHECK(AM_Reply1(token, H_REPLY, thread));
}

static void on_reply(void *token, int32_t thread) {
    (void)token;
    if (thread < 0 || thread >= THREADS) atomic_fetch_add(&corrupt, 1);
    else atomic_fetch_add(&replies[thread], 1);
}

/* Makes progress until *counter reaches want: polling, or sleeping between polls. */
static void progress_until(atomic_int *counter, int want, int sleeper) {
    while (atomic_load(counter) < want) {
        CHECK(AM_Poll(eb));
        /* The mask first, then the look: a reply another thread's poll runs after the
         * mask is set fires the event; one run before it would not, and the wait would
         * sleep on for a message that may never come. */
        if (sleeper) {
            CHECK(AM_SetEventMask(eb, AM_NOTEMPTY));
            if (atomic_load(counter) < want) CHECK(AM_WaitSema(eb));
        }
    }
}

static void *sender(void *arg) {
    int t = (int)(intptr_t)arg, peer = (rank + 1) % size;
    unsigned char buf[MEDIUM];
    for (int i = 0; i < msgs; i++) {
        progress_until(&replies[t], i - WINDOW + 1, t % 2);
        if (i % 2 == 0) {
            CHECK(AM_Request2(ep, peer, H_SHORT, t, i));
        } else {
            for (int k = 0; k < MEDIUM; k++) buf[k] = (unsigned char)(t * 31 + i + k);
            CHECK(AM_RequestI2(ep, peer, H_MEDIUM, buf, MEDIUM, t, i));
        }
    }
    progress_until(&replies[t], msgs, t % 2);
    return NULL;
}

/* Polls while the main thread is in the last barrier: a peer may still need answers
 * retransmitted (over UDP) for its last requests. */
static atomic_int finished;
static void *poller(void *arg) {
    (void)arg;
    while (!atomic_load(&finished)) CHECK(AM_Poll(eb));
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    eb_t spmd_eb;
    ep_t spmd_ep;
    CHECK(clump_spmd_startup(&argc, &argv, &spmd_eb, &spmd_ep));
    rank = clump_spmd_rank();
    size = clump_spmd_size();
    msgs = argc > 1 ? atoi(argv[1]) : 4000;
    EXPECT(size >= 2 && msgs > 0 && msgs <= MAX_MSGS);

    en_t names[64], mine;
    EXPECT(size <= 64);
    CHECK(AM_AllocateBundle(AM_PAR, &eb));
    CHECK(AM_AllocateEndpoint(eb, &ep, &mine));
    CHECK(AM_SetTag(ep, TAG));
    CHECK(AM_SetHandler(ep, H_SHORT, on_short));
    CHECK(AM_SetHandler(ep, H_MEDIUM, on_medium));
    CHECK(AM_SetHandler(ep, H_REPLY, on_reply));
    CHECK(clump_spmd_allgather(&mine, names, sizeof mine));
    for (int r = 0; r < size; r++) CHECK(AM_Map(ep, r, names[r], TAG));
    CHECK(AM_SetExpectedResources(ep, size, THREADS * WINDOW));
    CHECK(clump_spmd_barrier());

    double t0 = now_s();
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        EXPECT(pthread_create(&threads[t], NULL, sender, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++) EXPECT(pthread_join(threads[t], NULL) == 0);
    /* The previous rank's threads may still be sending: serve them all. */
    progress_until(&served, THREADS * msgs, 0);
    double secs = now_s() - t0;

    for (int t = 0; t < THREADS; t++) {
        EXPECT(atomic_load(&replies[t]) == msgs);
        for (int i = 0; i < msgs; i++) EXPECT(seen[t][i / 64] & (UINT64_C(1) << (i % 64)));
    }
    EXPECT(atomic_load(&served) == THREADS * msgs);
    EXPECT(atomic_load(&duplicates) == 0 && atomic_load(&corrupt) == 0);
    printf("par: rank %d msgs_per_s=%.0f\n", rank, THREADS * msgs / secs);
    pthread_t last;
    EXPECT(pthread_create(&last, NULL, poller, NULL) == 0);
    CHECK(clump_spmd_barrier());
    atomic_store(&finished, 1);
    EXPECT(pthread_join(last, NULL) == 0);
    printf("par ok\n");
    CHECK(AM_Terminate());
    return 0;
}
