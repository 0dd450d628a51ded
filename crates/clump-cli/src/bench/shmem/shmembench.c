/* clump bench shmem: OpenSHMEM figures between PE 0 and PE 1, printed by PE 0 as JSON
 * lines. First one line per figure and size ({"bench","bytes","value","unit"}): put and
 * get latency and bandwidth, a put followed by shmem_fence beside one followed by
 * shmem_quiet, and the large collectives (sum reduce, fcollect, broadcast, alltoall; the
 * slower PE's time). Then the summary line the Active Message references are set against.
 * Each figure is the best of several batches (the machine is shared; the best batch is
 * the one least disturbed). Built with `clump oshcc`. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
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
static int me, quick;
/* Symmetric: the target of puts and gets, and the buffers of the collectives. */
static char *heap, *coll_src, *coll_dst;
static double *timing, *slowest;

static void figure(const char *bench, long bytes, double value, const char *unit) {
    if (me == 0)
        printf("{\"bench\":\"%s\",\"bytes\":%ld,\"value\":%.4f,\"unit\":\"%s\"}\n", bench, bytes,
               value, unit);
}

/* Repetitions of an operation on `bytes`: about the same bytes moved at every size. */
static int reps(long bytes) {
    long r = (quick ? 4L << 20 : 32L << 20) / bytes;
    long most = quick ? 200 : 2000;
    return r < 4 ? 4 : r > most ? (int)most : (int)r;
}

enum pt { PUT_LAT, GET_LAT, PUT_BW, GET_BW, PUT_FENCE, PUT_QUIET };

/* Seconds per operation of one batch of `kind` on `bytes`, measured by PE 0. */
static double point_to_point(enum pt kind, long bytes, int n) {
    double t = now();
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case PUT_LAT:
            shmem_putmem(heap, source, bytes, 1);
            shmem_quiet();
            break;
        case GET_LAT:
            shmem_getmem(source, heap, bytes, 1);
            break;
        case PUT_BW:
        case PUT_FENCE:
        case PUT_QUIET:
            shmem_putmem(heap, source, bytes, 1);
            if (kind == PUT_FENCE) shmem_fence();
            if (kind == PUT_QUIET) shmem_quiet();
            break;
        case GET_BW:
            shmem_getmem_nbi(source, heap, bytes, 1);
            break;
        }
    }
    shmem_quiet();
    return (now() - t) / n;
}

/* The size after `b` on a curve from `min` by `step` that ends at `max` itself, whether or
 * not `max` is `min` times a power of `step`. */
static long next_size(long b, long step, long max) {
    return b < max && b * step > max ? max : b * step;
}

static const char *const PT_NAME[] = {"put_lat", "get_lat", "put_bw", "get_bw", "put+fence",
                                      "put+quiet"};

/* The curves of `nk` kinds side by side: at each size the kinds' batches take turns, so that
 * curves set against each other (fence against quiet) see the same load on a shared
 * machine, rather than one curve a quiet minute and the other a busy one. */
static void point_to_point_curves(const enum pt *kinds, int nk, long min, long max, long step) {
    for (long b = min; b <= max; b = next_size(b, step, max)) {
        int n = reps(b);
        double best[PUT_QUIET + 1];
        for (int j = 0; j < nk; j++) best[j] = 1e30;
        for (int k = 0; k < BATCHES; k++) {
            for (int j = 0; j < nk; j++) {
                shmem_barrier_all();
                if (me == 0) {
                    double d = point_to_point(kinds[j], b, n);
                    if (d < best[j]) best[j] = d;
                }
            }
        }
        for (int j = 0; j < nk; j++) {
            int rate = kinds[j] == PUT_BW || kinds[j] == GET_BW;
            figure(PT_NAME[kinds[j]], b, rate ? b / best[j] / 1e6 : best[j] * 1e6,
                   rate ? "MB/s" : "us");
        }
    }
}

static void point_to_point_curve(enum pt kind, long min, long max, long step) {
    point_to_point_curves(&kind, 1, min, max, step);
}

enum coll { REDUCE, FCOLLECT, BROADCAST, ALLTOALL };

/* One collective on `bytes` per PE (the whole of a reduce or broadcast; each PE's part of
 * an fcollect or alltoall). */
static void collective(enum coll kind, long bytes) {
    switch (kind) {
    case REDUCE:
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)coll_dst, (long *)coll_src,
                              bytes / sizeof(long));
        break;
    case FCOLLECT:
        shmem_fcollectmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, bytes);
        break;
    case BROADCAST:
        shmem_broadcastmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, bytes, 0);
        break;
    case ALLTOALL:
        shmem_alltoallmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, bytes / 2);
        break;
    }
}

/* What `kind` on `bytes` leaves at long i of this PE's destination, each PE's source
 * holding (pe + 1) * 1000 + i. */
static long expected(enum coll kind, long n, long i) {
    long half = n / 2;
    switch (kind) {
    case REDUCE: return 3000 + 2 * i;
    case BROADCAST: return 1000 + i;
    case FCOLLECT: return (i / n + 1) * 1000 + i % n;
    case ALLTOALL: return (i / half + 1) * 1000 + me * half + i % half;
    }
    return 0;
}

/* One call of `kind` on `bytes` gives every PE the right data: catches a fast wrong path. */
static int collective_right(enum coll kind, long bytes) {
    long *s = (long *)coll_src, *d = (long *)coll_dst, n = bytes / sizeof(long);
    for (long i = 0; i < n; i++) s[i] = (me + 1) * 1000 + i;
    memset(coll_dst, 0, 2 * bytes);
    shmem_barrier_all();
    collective(kind, bytes);
    for (long i = 0; i < (kind == FCOLLECT ? 2 * n : n); i++)
        if (d[i] != expected(kind, n, i)) return 0;
    return 1;
}

static void collective_curve(enum coll kind, const char *bench, long min, long max, long step) {
    for (long b = min; b <= max; b = next_size(b, step, max)) {
        if (!collective_right(kind, b)) {
            fprintf(stderr, "shmembench: %s of %ld bytes delivered wrong data\n", bench, b);
            shmem_global_exit(1);
        }
        int n = reps(b) / 4 + 1;
        double best = 1e30;
        for (int k = 0; k < BATCHES; k++) {
            shmem_barrier_all();
            double t = now();
            for (int i = 0; i < n; i++) collective(kind, b);
            timing[0] = (now() - t) / n;
            shmem_double_max_reduce(SHMEM_TEAM_WORLD, slowest, timing, 1);
            if (slowest[0] < best) best = slowest[0];
        }
        figure(bench, b, best * 1e6, "us");
    }
}

int main(int argc, char **argv) {
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int rounds = quick ? 200 : 2000, bulk = quick ? 8 : 32;
    long step = quick ? 16 : 4;
    shmem_init();
    me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        fprintf(stderr, "shmembench: needs exactly 2 PEs\n");
        shmem_global_exit(2);
    }
    heap = shmem_malloc(BIG);
    coll_src = shmem_malloc(BIG);
    coll_dst = shmem_malloc(2 * BIG);
    timing = shmem_malloc(2 * sizeof(double));
    slowest = timing + 1;
    long *word = shmem_calloc(1, sizeof(long));
    memset(source, me + 1, BIG);

    point_to_point_curve(PUT_LAT, 8, BIG, step);
    point_to_point_curve(GET_LAT, 8, BIG, step);
    point_to_point_curve(PUT_BW, 8, BIG, step);
    point_to_point_curve(GET_BW, 8, BIG, step);
    const enum pt ordering[] = {PUT_FENCE, PUT_QUIET};
    point_to_point_curves(ordering, 2, 8, 8 << 10, step);
    collective_curve(REDUCE, "reduce", 64, BIG, step);
    collective_curve(FCOLLECT, "fcollect", 64, BIG, step);
    collective_curve(BROADCAST, "broadcast", 64, BIG, step);
    collective_curve(ALLTOALL, "alltoall", 64, BIG, step);

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
