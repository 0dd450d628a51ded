/* MPI_THREAD_MULTIPLE: THREADS threads per process, each around the ring on a tag of its
 * own (thread 0 receiving from MPI_ANY_SOURCE), every message checked word by word and in
 * order; then each thread runs collectives on a duplicate of MPI_COMM_WORLD of its own.
 * Rank 0 prints the threads' message rate. */
#include "check.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define THREADS 6
#define MESSAGES 2000
#define ROUNDS 200
#define BIG 32768 /* ints: 128 KiB, a rendezvous */

static int rank, size, left, right;
static MPI_Comm comms[THREADS];

/* The ints of message `i` of thread `t`: a few sizes, now and then a large one. */
static int words(int i) {
    static const int sizes[4] = {1, 64, 1024, 7};
    return i % 250 == 249 ? BIG : sizes[i % 4];
}

static int word(int from, int t, int i, int k) {
    return (int)((uint32_t)from * 2654435761u ^ (uint32_t)(t << 24) ^ (uint32_t)i * 40503u ^
                 (uint32_t)k);
}

static void check_main(int expected) {
    int main_thread = -1;
    CHECK_OK(MPI_Is_thread_main(&main_thread));
    CHECK(main_thread == expected);
}

static void *ring(void *arg) {
    int t = (int)(intptr_t)arg;
    int *out = malloc(BIG * sizeof(int)), *in = malloc(BIG * sizeof(int));
    CHECK(out && in);
    check_main(0);
    for (int i = 0; i < MESSAGES; i++) {
        int n = words(i);
        for (int k = 0; k < n; k++)
            out[k] = word(rank, t, i, k);
        MPI_Request req;
        MPI_Status st;
        int src = t == 0 ? MPI_ANY_SOURCE : left;
        CHECK_OK(MPI_Irecv(in, BIG, MPI_INT, src, t, MPI_COMM_WORLD, &req));
        CHECK_OK(MPI_Send(out, n, MPI_INT, right, t, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&req, &st));
        int got = -1;
        CHECK_OK(MPI_Get_count(&st, MPI_INT, &got));
        CHECK(got == n && st.MPI_SOURCE == left && st.MPI_TAG == t);
        for (int k = 0; k < n; k++)
            CHECK(in[k] == word(left, t, i, k));
    }
    free(out);
    free(in);
    return NULL;
}

static void *collectives(void *arg) {
    int t = (int)(intptr_t)arg;
    MPI_Comm comm = comms[t];
    for (int j = 0; j < ROUNDS; j++) {
        long mine = (long)rank * (t + 1) + j, sum = -1;
        CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
        CHECK(sum == (long)size * (size - 1) / 2 * (t + 1) + (long)size * j);
        int root = j % size, v = rank == root ? t * 1000 + j : -1;
        CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, root, comm));
        CHECK(v == t * 1000 + j);
        if (j % 50 == 0)
            CHECK_OK(MPI_Barrier(comm));
    }
    return NULL;
}

static void all_threads(void *(*body)(void *)) {
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, body, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
}

int main(int argc, char **argv) {
    int provided = -1;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_OK(MPI_Query_thread(&provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    check_main(1);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;

    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    double start = MPI_Wtime();
    all_threads(ring);
    double took = MPI_Wtime() - start;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("threads: %d threads x %d messages each way in %.3f s: %.0f messages/s\n",
               THREADS, MESSAGES, took, THREADS * MESSAGES / took);

    for (int t = 0; t < THREADS; t++)
        CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    all_threads(collectives);
    for (int t = 0; t < THREADS; t++)
        CHECK_OK(MPI_Comm_free(&comms[t]));

    CHECK_OK(MPI_Finalize());
    printf("threads ok\n");
    return 0;
}
