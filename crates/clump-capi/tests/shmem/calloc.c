/* A block of shmem_calloc is usable by every PE as soon as the call returns anywhere, so
 * its zeroes must be in place before any PE can put into it. Each round every PE puts into
 * every PE's new block right after the call returns, with no barrier between, and leaves
 * a tail untouched; every slot is then checked (the put ones hold their puts, the tail
 * zero, though the block before held last round's values). Prints "calloc ok" per PE. */
#include "check.h"

#define ROUNDS 200
#define SLOTS 16 /* per PE, and the untouched tail */

static long value(int round, int pe, int i) {
    return (long)round * 1000003L + pe * 1009L + i + 1;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int round = 0; round < ROUNDS; round++) {
        long *block = shmem_calloc((size_t)(npes + 1) * SLOTS, sizeof(long));
        CHECK(block != NULL);
        long mine[SLOTS];
        for (int i = 0; i < SLOTS; i++) mine[i] = value(round, me, i);
        for (int pe = 0; pe < npes; pe++) shmem_long_put(block + me * SLOTS, mine, SLOTS, pe);
        shmem_barrier_all();
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < SLOTS; i++) CHECK(block[pe * SLOTS + i] == value(round, pe, i));
        for (int i = 0; i < SLOTS; i++) CHECK(block[npes * SLOTS + i] == 0);
        /* Last round's values stay in the block for the next calloc to clear. */
        for (int i = 0; i < SLOTS; i++) block[npes * SLOTS + i] = value(round, me, i);
        shmem_free(block);
    }
    printf("calloc ok\n");
    shmem_finalize();
    return 0;
}
