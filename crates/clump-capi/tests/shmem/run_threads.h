/* What the multithreaded OpenSHMEM tests share: start n threads, each running worker with
 * its index, wait for them all, and say how many seconds they took. */
#ifndef SHMEM_TEST_RUN_THREADS_H
#define SHMEM_TEST_RUN_THREADS_H

#include "check.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/time.h>

static double now(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

static double run_threads(void *(*worker)(void *), int n) {
    pthread_t th[64];
    CHECK(n <= 64);
    double start = now();
    for (int t = 0; t < n; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < n; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    return now() - start;
}

#endif
