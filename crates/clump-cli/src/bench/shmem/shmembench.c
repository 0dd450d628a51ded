/* clump bench shmem: OpenSHMEM figures between PE 0 and PE 1, measured by PE 0 and
 * printed as one JSON line. Each figure is the best of several batches (the machine is
 * shared; the best batch is the one least disturbed). Built with `clump oshcc`. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BATCHES 5
#define BIG (1 << 20)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static char source[BIG];

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int rounds = quick ? 200 : 2000, bulk = quick ? 8 : 32;
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        fprintf(stderr, "shmembench: needs exactly 2 PEs\n");
        shmem_global_exit(2);
    }
    char *heap = shmem_malloc(BIG);
    long *word = shmem_calloc(1, sizeof(long));
    memset(source, me + 1, BIG);
    double put_lat = 1e30, get_lat = 1e30, put_bw = 0, get_bw = 0, amo = 0, barrier = 1e30;
    long check = 0;
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        if (me == 0) {
            double t = now();
            for (int i = 0; i < rounds; i++) {
                shmem_putmem(heap, source, 8, 1);
                shmem_quiet();
            }
            double d = (now() - t) / rounds;
            if (d < put_lat) put_lat = d;
            t = now();
            for (int i = 0; i < rounds; i++) shmem_getmem(&check, heap, 8, 1);
            d = (now() - t) / rounds;
            if (d < get_lat) get_lat = d;
            t = now();
            for (int i = 0; i < bulk; i++) {
                shmem_putmem(heap, source, BIG, 1);
                shmem_quiet();
            }
            d = (double)bulk * BIG / (now() - t);
            if (d > put_bw) put_bw = d;
            t = now();
            for (int i = 0; i < bulk; i++) shmem_getmem(source, heap, BIG, 1);
            d = (double)bulk * BIG / (now() - t);
            if (d > get_bw) get_bw = d;
            t = now();
            for (int i = 0; i < rounds; i++) shmem_long_atomic_fetch_add(word, 1, 1);
            d = rounds / (now() - t);
            if (d > amo) amo = d;
        }
        shmem_barrier_all();
        double t = now();
        for (int i = 0; i < rounds / 4; i++) shmem_barrier_all();
        double d = (now() - t) / (rounds / 4);
        if (d < barrier) barrier = d;
    }
    shmem_barrier_all();
    /* What PE 0 did must have landed: every atomic, and its bytes in PE 1's heap. */
    if (me == 1 && (*word != (long)BATCHES * rounds || heap[0] != 1 || heap[BIG - 1] != 1)) {
        fprintf(stderr, "shmembench: PE 1 holds wrong data after the run\n");
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("{\"put_latency_us\":%.4f,\"get_latency_us\":%.4f,\"put_mb_s\":%.1f,"
               "\"get_mb_s\":%.1f,\"atomics_per_s\":%.0f,\"barrier_us\":%.4f}\n",
               put_lat * 1e6, get_lat * 1e6, put_bw / 1e6, get_bw / 1e6, amo, barrier * 1e6);
    shmem_finalize();
    return 0;
}
