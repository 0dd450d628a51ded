/* clump bench threads, the Active Messages side (GASNet-EX's testam under PAR): one AM_PAR
 * bundle and endpoint per process shared by THREADS threads. On rank 0 each thread sends
 * a short request to rank 1 and polls until its reply comes, ITERS times after a warm-up;
 * rank 1's THREADS threads all poll, and whichever polls runs the handler, which replies.
 * Every request is counted at rank 1 and every reply at its thread of rank 0.
 * Prints "threads=N iters=I lat_us=X rate=Y" at rank 0 (lat_us: half a thread's mean
 * round trip; rate: round trips per second of all threads together).
 * Usage: clump run -n 2 amtbench THREADS ITERS */
#define _POSIX_C_SOURCE 200809L
#include <clump/amii.h>
#include <clump/spmd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MAX_THREADS = 64, TAG = 0x7b3c, H_REQUEST = 1, H_REPLY = 2 };

static ep_t ep;
static eb_t eb;
static int threads, iters, warmup;
static atomic_int served, bad;
static atomic_int replies[MAX_THREADS];

#define CHECK(call)                                                                   \
    do {                                                                              \
        int rc_ = (call);                                                             \
        if (rc_ != AM_OK) {                                                           \
            fprintf(stderr, "amtbench: %s failed: %s\n", #call, clump_error_name(rc_)); \
            clump_spmd_exit(1);                                                       \
        }                                                                             \
    } while (0)

static void on_request(void *token, int32_t t) {
    atomic_fetch_add(&served, 1);
    CHECK(AM_Reply1(token, H_REPLY, t));
}

static void on_reply(void *token, int32_t t) {
    (void)token;
    if (t < 0 || t >= threads) atomic_fetch_add(&bad, 1);
    else atomic_fetch_add(&replies[t], 1);
}

static void *client(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < warmup + iters; i++) {
        CHECK(AM_Request1(ep, 1, H_REQUEST, t));
        while (atomic_load(&replies[t]) <= i) CHECK(AM_Poll(eb));
    }
    return NULL;
}

static void *server(void *arg) {
    (void)arg;
    while (atomic_load(&served) < threads * (warmup + iters)) CHECK(AM_Poll(eb));
    return NULL;
}

/* Polls while the main thread is in the last barrier (retransmissions over UDP). */
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
    en_t names[2], mine;
    CHECK(clump_spmd_startup(&argc, &argv, &spmd_eb, &spmd_ep));
    int rank = clump_spmd_rank();
    threads = argc > 1 ? atoi(argv[1]) : 0;
    iters = argc > 2 ? atoi(argv[2]) : 0;
    warmup = iters / 10;
    if (clump_spmd_size() != 2 || threads < 1 || threads > MAX_THREADS || iters < 1) {
        fprintf(stderr, "usage: clump run -n 2 amtbench THREADS(1..%d) ITERS\n", MAX_THREADS);
        clump_spmd_exit(2);
    }
    CHECK(AM_AllocateBundle(AM_PAR, &eb));
    CHECK(AM_AllocateEndpoint(eb, &ep, &mine));
    CHECK(AM_SetTag(ep, TAG));
    CHECK(AM_SetHandler(ep, H_REQUEST, on_request));
    CHECK(AM_SetHandler(ep, H_REPLY, on_reply));
    CHECK(clump_spmd_allgather(&mine, names, sizeof mine));
    for (int r = 0; r < 2; r++) CHECK(AM_Map(ep, r, names[r], TAG));
    CHECK(AM_SetExpectedResources(ep, 2, threads));
    CHECK(clump_spmd_barrier());

    pthread_t pool[MAX_THREADS];
    double t0 = now_s();
    for (int t = 0; t < threads; t++)
        if (pthread_create(&pool[t], NULL, rank == 0 ? client : server, (void *)(intptr_t)t))
            clump_spmd_exit(1);
    for (int t = 0; t < threads; t++) pthread_join(pool[t], NULL);
    double secs = now_s() - t0;

    int lost = 0;
    for (int t = 0; t < threads && rank == 0; t++) lost += atomic_load(&replies[t]) != warmup + iters;
    if (rank == 1) lost = atomic_load(&served) != threads * (warmup + iters);
    if (lost || atomic_load(&bad)) {
        fprintf(stderr, "amtbench: rank %d: messages lost or misdirected\n", rank);
        clump_spmd_exit(1);
    }
    if (rank == 0) {
        /* The warm-up is in the time too, and in the count. */
        double rtt = secs / (warmup + iters);
        printf("threads=%d iters=%d lat_us=%.3f rate=%.0f\n", threads, iters, rtt / 2 * 1e6,
               threads / rtt);
    }
    pthread_t last;
    if (pthread_create(&last, NULL, poller, NULL)) clump_spmd_exit(1);
    CHECK(clump_spmd_barrier());
    atomic_store(&finished, 1);
    pthread_join(last, NULL);
    CHECK(AM_Terminate());
    return 0;
}
