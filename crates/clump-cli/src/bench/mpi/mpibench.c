/* The MPI benchmarks of `clump bench mpi`, one program built twice (against clump and
 * against another MPI) so both run the very same code. Rank 0 prints one JSON line per
 * figure: {"bench":..., "bytes":..., "value":..., "unit":...}.
 *   latency    ping-pong between ranks 0 and 1, half the round trip (us), 8 B .. 1 MiB
 *   bandwidth  rank 0 streams a window of non-blocking sends to rank 1 (MB/s)
 *   allreduce  MPI_SUM of doubles on every rank, the slowest rank's time (us)
 *   alltoall   bytes per pair, the slowest rank's time (us)
 * Usage: mpibench [--quick]. Each figure is the median of several timed repetitions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (1 << 20)
#define WINDOW 64
#define REPS 5

static int rank, size, quick;

/* The message sizes: 8 B, then times STEP (4, or 16 with --quick), and 1 MiB last. */
static int next_size(int bytes) {
    if (bytes >= MAX_BYTES) return MAX_BYTES + 1;
    bytes *= quick ? 16 : 4;
    return bytes > MAX_BYTES ? MAX_BYTES : bytes;
}

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
    for (int bytes = 8; bytes <= MAX_BYTES; bytes = next_size(bytes)) {
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
    for (int bytes = 8; bytes <= MAX_BYTES; bytes = next_size(bytes)) {
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
            double secs = MPI_Wtime() - t0;
            t[r] = (double)bytes * WINDOW * rounds / secs / 1e6;
        }
        report("bandwidth", bytes, median(t, REPS), "MB/s");
    }
}

/* The slowest rank's time per call, so one fast rank does not flatter the figure. */
static double slowest(double mine) {
    double worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static void allreduce(void) {
    double *in = malloc(MAX_BYTES), *out = malloc(MAX_BYTES);
    for (int i = 0; i < MAX_BYTES / 8; i++) in[i] = i;
    for (int bytes = 8; bytes <= MAX_BYTES; bytes *= (quick ? 64 : 8)) {
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
    int most = MAX_BYTES / size / 4;
    char *in = malloc((size_t)most * size), *out = malloc((size_t)most * size);
    memset(in, rank, (size_t)most * size);
    for (int bytes = 8; bytes <= most; bytes *= (quick ? 64 : 8)) {
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

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "mpibench needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc(MAX_BYTES);
    memset(buf, 7, MAX_BYTES);
    latency(buf);
    bandwidth(buf);
    allreduce();
    alltoall();
    free(buf);
    MPI_Finalize();
    return 0;
}
