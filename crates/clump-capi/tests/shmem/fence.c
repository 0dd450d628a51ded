/* shmem_fence orders the puts to each PE: every PE streams rounds of data to the next PE,
 * each round a block of the heap followed, after a fence, by a flag (on the heap in even
 * rounds, a static variable in odd ones); the next PE, seeing a round's flag, finds that
 * round's data and every earlier round's in place. Prints "fence ok" per PE. */
#include "check.h"

#define ROUNDS 64
#define WORDS 4096 /* 32 KiB a round: more than one message */

static long static_flag;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;
    long *data = shmem_calloc((size_t)ROUNDS * WORDS, sizeof(long));
    long *heap_flag = shmem_calloc(1, sizeof(long));
    static long block[WORDS];
    shmem_barrier_all();
    int seen = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < WORDS; i++) block[i] = (long)r * WORDS + i + 1;
        shmem_long_put_nbi(data + (size_t)r * WORDS, block, WORDS, next);
        shmem_fence();
        shmem_long_atomic_set(r % 2 ? &static_flag : heap_flag, r + 1, next);
        /* Check what has arrived here so far, without waiting. */
        long flags[2] = {shmem_long_atomic_fetch(heap_flag, me),
                         shmem_long_atomic_fetch(&static_flag, me)};
        int arrived = flags[0] > flags[1] ? flags[0] : flags[1];
        for (; seen < arrived; seen++)
            for (int i = 0; i < WORDS; i++)
                CHECK(data[(size_t)seen * WORDS + i] == (long)seen * WORDS + i + 1);
    }
    shmem_barrier_all();
    for (; seen < ROUNDS; seen++)
        for (int i = 0; i < WORDS; i++)
            CHECK(data[(size_t)seen * WORDS + i] == (long)seen * WORDS + i + 1);
    shmem_free(heap_flag);
    shmem_free(data);
    printf("fence ok\n");
    shmem_finalize();
    return 0;
}
