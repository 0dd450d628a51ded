/* SHMEM_THREAD_MULTIPLE with SHMEM_CTX_PRIVATE: THREADS threads per PE, each with a
 * private context of its own, put (single words and blocks), get and quiet on it at the
 * same time, each on its own slice of the heap of the PE to its right, and put into and
 * add atomically to its own words of globals (which go by message) before a quiet; then
 * every word is checked. Prints
 * "private_ctx ok" once per PE, and PE 0 the threads' rate of puts. */
#include "run_threads.h"
#include <string.h>

#define THREADS 4
#define N 2000
#define BLOCK 32 /* longs in a block put */

static int me, npes, right, left;
static long *box;   /* THREADS * N words per PE */
static long *block; /* THREADS * BLOCK words per PE */
long marks[THREADS]; /* globals: not on the heap, their accesses go by message */
long adds[THREADS];

static long value(int pe, int t, int i) { return ((long)pe << 40) ^ ((long)t << 32) ^ i * 7919L; }

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    long mine[BLOCK], back[BLOCK];
    for (int i = 0; i < N; i++) {
        long *slot = &box[t * N + i];
        shmem_ctx_long_p(ctx, slot, value(me, t, i), right);
        if (i % 64 == 63) {
            shmem_ctx_quiet(ctx);
            CHECK(shmem_ctx_long_g(ctx, slot, right) == value(me, t, i));
            for (int k = 0; k < BLOCK; k++) mine[k] = value(me, t, i + k);
            shmem_ctx_putmem(ctx, &block[t * BLOCK], mine, sizeof mine, right);
            shmem_ctx_quiet(ctx);
            shmem_ctx_long_get(ctx, back, &block[t * BLOCK], BLOCK, right);
            CHECK(memcmp(mine, back, sizeof mine) == 0);
        }
        if (i % 500 == 0) {
            /* By message, then direct again: the quiet must complete both. */
            shmem_ctx_long_p(ctx, &marks[t], value(me, t, i), right);
            shmem_ctx_long_atomic_add(ctx, &adds[t], 1, right);
            shmem_ctx_long_p(ctx, slot, value(me, t, i), right);
            shmem_ctx_quiet(ctx);
            CHECK(shmem_ctx_long_g(ctx, &marks[t], right) == value(me, t, i));
            CHECK(shmem_ctx_long_atomic_fetch(ctx, &adds[t], right) == i / 500 + 1);
        }
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void) {
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    box = shmem_calloc(THREADS * N, sizeof(long));
    block = shmem_calloc(THREADS * BLOCK, sizeof(long));
    CHECK(box && block);
    shmem_barrier_all();

    double took = run_threads(worker, THREADS);
    shmem_barrier_all();

    for (int t = 0; t < THREADS; t++) {
        for (int i = 0; i < N; i++)
            CHECK(box[t * N + i] == value(left, t, i));
        int last = (N + 1) / 64 * 64 - 1; /* the last i with i % 64 == 63 */
        for (int k = 0; k < BLOCK; k++)
            CHECK(block[t * BLOCK + k] == value(left, t, last + k));
        CHECK(marks[t] == value(left, t, (N - 1) / 500 * 500));
        CHECK(adds[t] == (N - 1) / 500 + 1);
    }
    if (me == 0)
        printf("private_ctx: %d threads x %d puts in %.3f s: %.0f puts/s\n", THREADS, N, took,
               THREADS * N / took);
    shmem_barrier_all();
    shmem_free(box);
    shmem_free(block);
    printf("private_ctx ok\n");
    shmem_finalize();
    return 0;
}
