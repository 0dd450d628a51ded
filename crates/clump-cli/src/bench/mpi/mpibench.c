/* The MPI benchmarks of `clump bench mpi`, one program built twice (against clump and
 * against another MPI) so both run the very same code. Rank 0 prints one JSON line per
 * figure: {"bench":..., "bytes":..., "value":..., "unit":...}.
 *   latency    ping-pong between ranks 0 and 1, half the round trip (us), MIN .. MAX
 *   bandwidth  rank 0 streams a window of non-blocking sends to rank 1 (MB/s), MIN .. MAX
 *   msg_rate   the same timed windows as messages per second (million/s), as osu_mbw_mr
 *              reports beside its bandwidth for one pair
 *   allreduce  MPI_SUM of doubles on every rank, the slowest rank's time (us)
 *   alltoall   bytes per pair, the slowest rank's time (us)
 * and one-sided communication from rank 0 to rank 1's window, each with passive target
 * (one MPI_Win_lock_all epoch, "/lock") and active target (MPI_Win_fence, "/fence"):
 *   put_lat, get_lat  one access then its completion (flush, or a fence), MIN .. MAX (us)
 *   put_bw, get_bw    a window of accesses then one completion (MB/s), MIN .. MAX
 *   acc_lat           MPI_Accumulate of one double (MPI_SUM), then completion (us)
 *   fop_rate          MPI_Fetch_and_op of one 8-byte integer (MPI_SUM) with its result:
 *                     /lock each flushed, /fence a window per fence (million ops/s)
 * Usage: mpibench [--quick] [--min BYTES] [--max BYTES] (8 B and 1 MiB by default).
 * Each figure is the median of several timed repetitions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOST_BYTES (16 << 20)
#define WINDOW 64
#define REPS 5

static int rank, size, quick;
static int min_bytes = 8, max_bytes = 1 << 20;

/* The message sizes: MIN, then times 4 (16 with --quick), and MAX last. */
static int next_size(int bytes) {
    if (bytes >= max_bytes) return max_bytes + 1;
    bytes *= quick ? 16 : 4;
    return bytes > max_bytes ? max_bytes : bytes;
}

/* Sizes of doubles for allreduce: from MIN rounded up to 8 B, times 8 (64 with --quick). */
static int first_doubles(void) { return (min_bytes + 7) / 8 * 8; }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Fewer iterations for large messages, so each size takes a similar time. */
static int iterations(int bytes) {
    int iters = bytes <= 4096 ? 2000 : bytes <= 65536 ? 400 : 60;
    return quick ? iters / 10 + 1 : iters;
}

static void report(const char *bench, int bytes, double value, const char *unit) {
    if (rank == 0) {
        printf("{\"bench\":\"%s\",\"bytes\":%d,\"value\":%.4f,\"unit\":\"%s\"}\n", bench,
               bytes, value, unit);
        fflush(stdout);
    }
}

static void latency(char *buf) {
    for (int bytes = min_bytes; bytes <= max_bytes; bytes = next_size(bytes)) {
        int iters = iterations(bytes);
        double t[REPS];
        for (int r = 0; r < REPS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters + 10; i++) {
                if (i == 10) t0 = MPI_Wtime(); /* the first rounds warm up */
                if (rank == 0) {
                    MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            t[r] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
        }
        report("latency", bytes, median(t, REPS), "us");
    }
}

static void bandwidth(char *buf) {
    MPI_Request reqs[WINDOW];
    for (int bytes = min_bytes; bytes <= max_bytes; bytes = next_size(bytes)) {
        int rounds = iterations(bytes) / 8 + 1;
        double t[REPS];
        for (int r = 0; r < REPS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < rounds; i++) {
                if (rank == 0) {
                    for (int w = 0; w < WINDOW; w++)
                        MPI_Isend(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[w]);
                    MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
                    MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    for (int w = 0; w < WINDOW; w++)
                        MPI_Irecv(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[w]);
                    MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
                }
            }
            t[r] = MPI_Wtime() - t0;
        }
        double messages = (double)WINDOW * rounds, secs = median(t, REPS);
        report("bandwidth", bytes, bytes * messages / secs / 1e6, "MB/s");
        report("msg_rate", bytes, messages / secs / 1e6, "Mmsg/s");
    }
}

/* The slowest rank's time per call, so one fast rank does not flatter the figure. */
static double slowest(double mine) {
    double worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static void allreduce(void) {
    double *in = malloc(max_bytes), *out = malloc(max_bytes);
    for (int i = 0; i < max_bytes / 8; i++) in[i] = i;
    for (int bytes = first_doubles(); bytes <= max_bytes; bytes *= (quick ? 64 : 8)) {
        int iters = iterations(bytes), n = bytes / 8;
        double t[REPS];
        for (int r = 0; r < REPS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            t[r] = slowest((MPI_Wtime() - t0) / iters * 1e6);
        }
        if (out[n - 1] != (double)(n - 1) * size) {
            fprintf(stderr, "allreduce gave a wrong sum\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        report("allreduce", bytes, median(t, REPS), "us");
    }
    free(in), free(out);
}

static void alltoall(void) {
    int most = max_bytes / size / 4;
    if (most < 1) return;
    char *in = malloc((size_t)most * size), *out = malloc((size_t)most * size);
    memset(in, rank, (size_t)most * size);
    for (int bytes = min_bytes; bytes <= most; bytes *= (quick ? 64 : 8)) {
        int iters = iterations(bytes * size);
        double t[REPS];
        for (int r = 0; r < REPS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Alltoall(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, MPI_COMM_WORLD);
            t[r] = slowest((MPI_Wtime() - t0) / iters * 1e6);
        }
        if (out[(size_t)(size - 1) * bytes] != (char)(size - 1)) {
            fprintf(stderr, "alltoall delivered the wrong bytes\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        report("alltoall", bytes, median(t, REPS), "us");
    }
    free(in), free(out);
}

/* One-sided: how rank 0's accesses to rank 1 complete. */
enum sync { LOCK, FENCE };
static const char *sync_name[] = {"lock", "fence"};

static void rma_report(const char *bench, enum sync s, int bytes, double value,
                       const char *unit) {
    char name[32];
    snprintf(name, sizeof name, "%s/%s", bench, sync_name[s]);
    report(name, bytes, value, unit);
}

/* Completes rank 0's accesses: a flush in the lock_all epoch, or a fence of both ranks. */
static void complete(enum sync s, MPI_Win win) {
    if (s == LOCK) {
        if (rank == 0) MPI_Win_flush(1, win);
    } else {
        MPI_Win_fence(0, win);
    }
}

/* Opens and closes the epoch of `s` (rank 1 only exposes its window under a fence). */
static void epoch(enum sync s, MPI_Win win, int open) {
    if (s == FENCE) {
        MPI_Win_fence(open ? MPI_MODE_NOPRECEDE : MPI_MODE_NOSUCCEED, win);
    } else if (rank == 0) {
        if (open) MPI_Win_lock_all(0, win); else MPI_Win_unlock_all(win);
    }
}

/* Times `per_round` accesses of `bytes` (put or get) then one completion: per access (us),
 * or bytes per second (MB/s) when `rate`. */
static double rma_time(enum sync s, MPI_Win win, char *buf, int bytes, int per_round,
                       int get, int rate) {
    int rounds = rate ? iterations(bytes) / 8 + 1 : iterations(bytes);
    if (s == FENCE && !rate) rounds = rounds / 4 + 1; /* a fence is a barrier: fewer */
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        epoch(s, win, 1);
        double t0 = MPI_Wtime();
        for (int i = 0; i < rounds + 2; i++) {
            if (i == 2) t0 = MPI_Wtime(); /* the first rounds warm up */
            if (rank == 0)
                for (int k = 0; k < per_round; k++) {
                    if (get)
                        MPI_Get(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
                    else
                        MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
                }
            complete(s, win);
        }
        double secs = MPI_Wtime() - t0;
        epoch(s, win, 0);
        t[r] = rate ? (double)bytes * per_round * rounds / secs / 1e6 : secs / rounds * 1e6;
    }
    return median(t, REPS);
}

/* Accumulate latency (us) and fetch-and-op rate (million ops/s) at 8 bytes. */
static void rma_atomics(enum sync s, MPI_Win win) {
    int per_round = s == LOCK ? 1 : WINDOW, rounds = iterations(8) / (s == LOCK ? 1 : 16) + 1;
    double one = 1, t[REPS], u[REPS];
    long long add = 1, old[WINDOW];
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        epoch(s, win, 1);
        double t0 = MPI_Wtime();
        for (int i = 0; i < rounds; i++) {
            if (rank == 0) MPI_Accumulate(&one, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, MPI_SUM, win);
            complete(s, win);
        }
        t[r] = (MPI_Wtime() - t0) / rounds * 1e6;
        t0 = MPI_Wtime();
        for (int i = 0; i < rounds; i++) {
            if (rank == 0)
                for (int k = 0; k < per_round; k++)
                    MPI_Fetch_and_op(&add, &old[k], MPI_LONG_LONG, 1, 8, MPI_SUM, win);
            complete(s, win);
        }
        u[r] = (double)rounds * per_round / (MPI_Wtime() - t0) / 1e6;
        epoch(s, win, 0);
    }
    rma_report("acc_lat", s, 8, median(t, REPS), "us");
    rma_report("fop_rate", s, 8, median(u, REPS), "Mop/s");
}

static void one_sided(char *buf) {
    MPI_Win win;
    char *mem;
    MPI_Win_allocate(max_bytes < 16 ? 16 : max_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    memset(mem, 0, max_bytes < 16 ? 16 : max_bytes);
    for (enum sync s = LOCK; s <= FENCE; s++) {
        for (int get = 0; get <= 1; get++)
            for (int bytes = min_bytes; bytes <= max_bytes; bytes = next_size(bytes))
                rma_report(get ? "get_lat" : "put_lat", s, bytes,
                           rma_time(s, win, buf, bytes, 1, get, 0), "us");
        for (int get = 0; get <= 1; get++)
            for (int bytes = min_bytes; bytes <= max_bytes; bytes = next_size(bytes))
                rma_report(get ? "get_bw" : "put_bw", s, bytes,
                           rma_time(s, win, buf, bytes, WINDOW, get, 1), "MB/s");
        rma_atomics(s, win);
    }
    MPI_Win_free(&win);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (i + 1 < argc && strcmp(argv[i], "--min") == 0) {
            min_bytes = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--max") == 0) {
            max_bytes = atoi(argv[++i]);
        } else {
            if (rank == 0) fprintf(stderr, "mpibench: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (min_bytes < 1 || max_bytes < min_bytes || max_bytes > MOST_BYTES) {
        if (rank == 0) fprintf(stderr, "mpibench: sizes run from 1 B to 16 MiB, min <= max\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "mpibench needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc(max_bytes);
    memset(buf, 7, max_bytes);
    latency(buf);
    bandwidth(buf);
    allreduce();
    alltoall();
    one_sided(buf);
    free(buf);
    MPI_Finalize();
    return 0;
}
