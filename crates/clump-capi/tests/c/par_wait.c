/* AM_PAR: a thread that sets the event mask and then sleeps in AM_WaitSema wakes when a
 * message arrives after the mask was set, even when another thread's AM_Poll runs its
 * handler (the event fired; the message no longer waits). Each rank, messages to itself:
 *   round 0: the waiter sets the mask; the main thread sends a request and polls until it
 *            and its reply ran; only then does the waiter call AM_WaitSema;
 *   round 1: the waiter sets the mask and sleeps; the main thread sends and polls;
 *   round 2: as round 0, but after the handler ran the main thread clears the mask and
 *            sets it again (what another thread's AM_WaitSema does as it ends and its
 *            thread waits again): the waiter's event fired before, and still ends its wait.
 * The waiter must return within LIMIT_S seconds each round (the main thread polls no more then).
 * Prints "par_wait ok" per rank. Usage: clump run -n 2 ./par_wait */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

enum { H_REQUEST = 1, H_REPLY = 2, ROUNDS = 3, LIMIT_S = 10, TAG = 0x5e3a };

static ep_t ep;
static eb_t eb;
static atomic_int armed, handled, woke, replies;

static void on_request(void *token, int32_t round) { CHECK(AM_Reply1(token, H_REPLY, round)); }
static void on_reply(void *token, int32_t round) {
    (void)token;
    (void)round;
    atomic_fetch_add(&replies, 1);
}

static void *waiter(void *arg) {
    (void)arg;
    for (int round = 0; round < ROUNDS; round++) {
        CHECK(AM_SetEventMask(eb, AM_NOTEMPTY));
        atomic_store(&armed, round + 1);
        if (round != 1)
            while (atomic_load(&handled) < round + 1) sched_yield();
        CHECK(AM_WaitSema(eb));
        atomic_store(&woke, round + 1);
    }
    return NULL;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    eb_t spmd_eb;
    ep_t spmd_ep;
    en_t mine;
    CHECK(clump_spmd_startup(&argc, &argv, &spmd_eb, &spmd_ep));
    CHECK(AM_AllocateBundle(AM_PAR, &eb));
    CHECK(AM_AllocateEndpoint(eb, &ep, &mine));
    CHECK(AM_SetTag(ep, TAG));
    CHECK(AM_SetHandler(ep, H_REQUEST, on_request));
    CHECK(AM_SetHandler(ep, H_REPLY, on_reply));
    CHECK(AM_Map(ep, 0, mine, TAG));
    CHECK(AM_SetExpectedResources(ep, 1, 4));

    pthread_t t;
    EXPECT(pthread_create(&t, NULL, waiter, NULL) == 0);
    for (int round = 0; round < ROUNDS; round++) {
        while (atomic_load(&armed) < round + 1) sched_yield();
        if (round == 1) sleep_ms(50); /* the waiter is asleep by now */
        CHECK(AM_Request1(ep, 0, H_REQUEST, round));
        while (atomic_load(&replies) < round + 1) CHECK(AM_Poll(eb));
        if (round == 2) {
            CHECK(AM_SetEventMask(eb, AM_NOEVENTS));
            CHECK(AM_SetEventMask(eb, AM_NOTEMPTY));
        }
        atomic_store(&handled, round + 1);
        /* At least LIMIT_S seconds: each nap is at least 1 ms. */
        for (long ms = 0; atomic_load(&woke) < round + 1; ms++) {
            if (ms > LIMIT_S * 1000L) {
                fprintf(stderr, "rank %d: round %d: AM_WaitSema still asleep %d s after its "
                        "event's handler ran\n", clump_spmd_rank(), round, LIMIT_S);
                clump_spmd_exit(1);
            }
            sleep_ms(1);
        }
    }
    EXPECT(pthread_join(t, NULL) == 0);
    CHECK(clump_spmd_barrier());
    printf("par_wait ok\n");
    CHECK(AM_Terminate());
    return 0;
}
