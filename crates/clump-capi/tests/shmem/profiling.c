/* A profiling tool as OpenSHMEM's profiling interface lets one be written: the program
 * defines shmem_putmem, shmem_int_put and shmem_barrier_all itself, counts their calls
 * and forwards each to libclump's pshmem_ name. Each PE puts to the next one; the data
 * must arrive and the counts must be the program's own calls (the library's internal
 * barriers, in shmem_calloc for one, must not reach the tool). The pshmem_ forms of the
 * C11 generic names select the pshmem_ typed routines, with a context or without.
 * Prints "profiling ok". */
#include <pshmem.h>
#include "check.h"

static int puts_seen, barriers_seen;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    puts_seen++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_int_put(int *dest, const int *source, size_t nelems, int pe) {
    puts_seen++;
    pshmem_put(dest, source, nelems, pe); /* the generic name: pshmem_int_put */
}

void shmem_barrier_all(void) {
    barriers_seen++;
    pshmem_barrier_all();
}

static long word;

int main(void) {
    shmem_init();
    pshmem_pcontrol(1);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    int *block = shmem_calloc(4, sizeof(int));
    CHECK(block != NULL);
    shmem_barrier_all();
    int src[4];
    for (int i = 0; i < 4; i++) src[i] = me * 10 + i;
    long value = me + 100;
    shmem_int_put(block, src, 4, next);
    shmem_putmem(&word, &value, sizeof value, next);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++) CHECK(block[i] == prev * 10 + i);
    CHECK(word == prev + 100);
    CHECK(puts_seen == 2);
    CHECK(barriers_seen == 2);

    long *counter = shmem_calloc(3, sizeof(long));
    CHECK(counter != NULL);
    CHECK(pshmem_atomic_fetch_add(counter, 5L, next) == 0);
    pshmem_atomic_add(SHMEM_CTX_DEFAULT, counter, 2L, next);
    pshmem_p(&counter[1], 1L, next);
    pshmem_barrier_all();
    CHECK(pshmem_g(counter, next) == 7 && counter[0] == 7 && counter[1] == 1);
    pshmem_sum_reduce(SHMEM_TEAM_WORLD, &counter[2], &counter[1], 1);
    CHECK(counter[2] == npes);
    CHECK(puts_seen == 2 && barriers_seen == 2);
    shmem_free(counter);
    shmem_free(block);
    shmem_finalize();
    printf("PE %d: profiling ok\n", me);
    return 0;
}
