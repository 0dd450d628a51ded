/* clump bench threads, the MPI side (OSU's osu_latency_mt): THREADS threads per process
 * under MPI_THREAD_MULTIPLE; thread t of rank 0 sends 8 bytes to rank 1 with tag t and
 * waits for them back from thread t of rank 1, ITERS times after a warm-up. Built against
 * clump and against Open MPI. Prints "threads=N iters=I lat_us=X rate=Y" at rank 0 (as
 * amtbench does). Usage: mpirun -n 2 mtlat THREADS ITERS */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_THREADS = 64, BYTES = 8 };

static int rank, threads, iters, warmup;

static void *pingpong(void *arg) {
    int t = (int)(intptr_t)arg, peer = 1 - rank;
    char buf[BYTES] = {0};
    for (int i = 0; i < warmup + iters; i++) {
        if (rank == 0) {
            buf[0] = (char)i;
            MPI_Send(buf, BYTES, MPI_CHAR, peer, t, MPI_COMM_WORLD);
            MPI_Recv(buf, BYTES, MPI_CHAR, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (buf[0] != (char)i) {
                fprintf(stderr, "mtlat: thread %d got another thread's message\n", t);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(buf, BYTES, MPI_CHAR, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, BYTES, MPI_CHAR, peer, t, MPI_COMM_WORLD);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    threads = argc > 1 ? atoi(argv[1]) : 0;
    iters = argc > 2 ? atoi(argv[2]) : 0;
    warmup = iters / 10;
    if (provided != MPI_THREAD_MULTIPLE || size != 2 || threads < 1 || threads > MAX_THREADS ||
        iters < 1) {
        fprintf(stderr, "mtlat: needs MPI_THREAD_MULTIPLE (got %d), 2 ranks (got %d), "
                "THREADS 1..%d and ITERS\n", provided, size, MAX_THREADS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_t pool[MAX_THREADS];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int t = 0; t < threads; t++)
        if (pthread_create(&pool[t], NULL, pingpong, (void *)(intptr_t)t)) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int t = 0; t < threads; t++) pthread_join(pool[t], NULL);
    double secs = MPI_Wtime() - t0;
    if (rank == 0) {
        double rtt = secs / (warmup + iters);
        printf("threads=%d iters=%d lat_us=%.3f rate=%.0f\n", threads, iters, rtt / 2 * 1e6,
               threads / rtt);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
