/* SHMEM_THREAD_MULTIPLE: THREADS threads per PE put, get, add atomically and quiet at the
 * same time, each on its own slice of the heap of the PE to its right, and all on one
 * global counter of PE 0. Every word is checked after the threads end. Prints
 * "threads ok" once per PE, and PE 0 the threads' rate of puts. */
#include "run_threads.h"

#define THREADS 6
#define N 1000

static int me, npes, right, left;
static long *box;   /* THREADS * N words per PE */
static long *count; /* THREADS words per PE */
long total;         /* a global: its atomics go by remote procedure call */

static long value(int pe, int t, int i) { return ((long)pe << 40) ^ ((long)t << 32) ^ i * 7919L; }

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < N; i++) {
        long *slot = &box[t * N + i];
        shmem_long_p(slot, value(me, t, i), right);
        shmem_long_atomic_inc(&count[t], right);
        if (i % 10 == 0)
            shmem_long_atomic_fetch_add(&total, 1, 0);
        if (i % 64 == 63) {
            shmem_quiet();
            CHECK(shmem_long_g(slot, right) == value(me, t, i));
            CHECK(shmem_long_atomic_fetch(&count[t], right) >= i + 1);
        }
    }
    shmem_quiet();
    return NULL;
}

int main(void) {
    int provided = -1, queried = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    shmem_query_thread(&queried);
    CHECK(provided == SHMEM_THREAD_MULTIPLE && queried == provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    box = shmem_calloc(THREADS * N, sizeof(long));
    count = shmem_calloc(THREADS, sizeof(long));
    CHECK(box && count);
    shmem_barrier_all();

    double took = run_threads(worker, THREADS);
    shmem_barrier_all();

    for (int t = 0; t < THREADS; t++) {
        CHECK(count[t] == N);
        for (int i = 0; i < N; i++)
            CHECK(box[t * N + i] == value(left, t, i));
    }
    if (me == 0) {
        CHECK(total == (long)npes * THREADS * (N / 10));
        printf("threads: %d threads x %d puts+atomics in %.3f s: %.0f puts/s\n", THREADS, N,
               took, THREADS * N / took);
    }
    shmem_barrier_all();
    shmem_free(box);
    shmem_free(count);
    printf("threads ok\n");
    shmem_finalize();
    return 0;
}
