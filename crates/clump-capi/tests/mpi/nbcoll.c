/* Non-blocking and persistent collectives from C: each result checked, several in flight
 * on one communicator at once and completed by Wait, Test loops, Testany and Waitall,
 * MPI_IN_PLACE, a strided datatype, and persistent requests started again and again. */
#include "check.h"
#include <string.h>

#define N 8

static int rank, size;

static void nonblocking(void) {
    int root = size - 1;
    int b[N], sum[N], inplace[N], scan[N], exscan[N] = {0};
    int *gath = malloc(sizeof(int) * N * size), *all = malloc(sizeof(int) * N * size);
    int *to = malloc(sizeof(int) * size), *from = malloc(sizeof(int) * size);
    for (int i = 0; i < N; i++) {
        b[i] = rank == root ? 100 + i : -1;
        inplace[i] = rank + i;
    }
    for (int j = 0; j < size; j++) to[j] = rank * 1000 + j;
    int mine[N];
    for (int i = 0; i < N; i++) mine[i] = rank * N + i;
    MPI_Request r[9];
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r[0]));
    CHECK_OK(MPI_Ibcast(b, N, MPI_INT, root, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(MPI_Iallreduce(mine, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]));
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, inplace, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[3]));
    CHECK_OK(MPI_Igather(mine, N, MPI_INT, gath, N, MPI_INT, 0, MPI_COMM_WORLD, &r[4]));
    CHECK_OK(MPI_Iallgather(mine, N, MPI_INT, all, N, MPI_INT, MPI_COMM_WORLD, &r[5]));
    CHECK_OK(MPI_Ialltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD, &r[6]));
    CHECK_OK(MPI_Iscan(mine, scan, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[7]));
    CHECK_OK(MPI_Iexscan(mine, exscan, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[8]));
    /* A blocking collective on the same communicator while they are in flight. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 0;
    while (!flag) CHECK_OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    CHECK(r[0] == MPI_REQUEST_NULL);
    int index;
    CHECK_OK(MPI_Waitany(8, &r[1], &index, MPI_STATUS_IGNORE));
    CHECK(index >= 0 && index < 8 && r[1 + index] == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Waitall(9, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        int below = 0;
        for (int k = 0; k < rank; k++) below += k * N + i;
        CHECK(b[i] == 100 + i);
        CHECK(sum[i] == N * size * (size - 1) / 2 + size * i);
        CHECK(inplace[i] == size - 1 + i);
        CHECK(scan[i] == below + mine[i]);
        CHECK(rank == 0 || exscan[i] == below);
        for (int k = 0; k < size; k++) {
            CHECK(all[k * N + i] == k * N + i);
            CHECK(rank != 0 || gath[k * N + i] == k * N + i);
        }
    }
    for (int j = 0; j < size; j++) CHECK(from[j] == j * 1000 + rank);
    free(gath);
    free(all);
    free(to);
    free(from);
}

/* Scatterv, reduce_scatter_block, gatherv in place at the root into every other int, and
 * a broadcast of a strided type. */
static void v_forms(void) {
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    int *ones = malloc(sizeof(int) * size), *evens = malloc(sizeof(int) * size);
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 1;
        ones[i] = 1;
        evens[i] = 2 * i;
    }
    int *src = malloc(sizeof(int) * total), got[8];
    for (int i = 0; i < total; i++) src[i] = rank == 0 ? 7 * i : -1;
    MPI_Request r;
    CHECK_OK(MPI_Iscatterv(src, counts, displs, MPI_INT, got, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &r));
    int flag = 0, index;
    while (!flag) CHECK_OK(MPI_Testany(1, &r, &index, &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i <= rank; i++) CHECK(got[i] == 7 * (displs[rank] + i));

    int *vec = malloc(sizeof(int) * size), one = -1;
    for (int i = 0; i < size; i++) vec[i] = rank + i;
    CHECK_OK(MPI_Ireduce_scatter_block(vec, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(one == size * (size - 1) / 2 + size * rank);

    int *col = malloc(sizeof(int) * 2 * size), val = rank * 3;
    for (int i = 0; i < 2 * size; i++) col[i] = -9;
    col[0] = 0;
    if (rank == 0)
        CHECK_OK(MPI_Igatherv(MPI_IN_PLACE, 1, MPI_INT, col, ones, evens, MPI_INT, 0, MPI_COMM_WORLD, &r));
    else
        CHECK_OK(MPI_Igatherv(&val, 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int k = 0; rank == 0 && k < size; k++) CHECK(col[2 * k] == 3 * k && col[2 * k + 1] == -9);

    /* Ialltoallw: one int to each rank, from and to byte displacements. */
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    int *bytes = malloc(sizeof(int) * size), *wout = malloc(sizeof(int) * size), *win = malloc(sizeof(int) * size);
    for (int j = 0; j < size; j++) {
        types[j] = MPI_INT;
        bytes[j] = (int)sizeof(int) * j;
        wout[j] = 10 * rank + j;
        win[j] = -1;
    }
    CHECK_OK(MPI_Ialltoallw(wout, ones, bytes, types, win, ones, bytes, types, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int j = 0; j < size; j++) CHECK(win[j] == 10 * j + rank);
    free(types);
    free(bytes);
    free(wout);
    free(win);

    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    int strided[8];
    for (int i = 0; i < 8; i++) strided[i] = rank == 0 ? i : -1;
    CHECK_OK(MPI_Ibcast(strided, 1, every_other, 0, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Type_free(&every_other)); /* the request keeps what it needs */
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) CHECK(strided[i] == (rank == 0 || i % 2 == 0 ? i : -1));
    free(counts);
    free(displs);
    free(ones);
    free(evens);
    free(src);
    free(vec);
    free(col);
}

/* Persistent collectives: inactive until started, started again after each completion,
 * several started together with Startall; Wait on an inactive one returns at once. */
static void persistent(void) {
    int in = rank + 1, out = -1, bval = -1;
    MPI_Request r[3];
    CHECK_OK(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_OK(MPI_Bcast_init(&bval, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    CHECK_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    CHECK(r[0] != MPI_REQUEST_NULL);
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE)); /* inactive */
    CHECK(r[0] != MPI_REQUEST_NULL);
    for (int round = 0; round < 3; round++) {
        in = rank + round;
        if (rank == 0) bval = 40 + round;
        CHECK_OK(MPI_Startall(3, r));
        CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        CHECK(out == size * (size - 1) / 2 + size * round);
        CHECK(bval == 40 + round);
        CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL);
    }
    /* Started in another order on odd ranks: they pair by their init calls. */
    if (rank == 0) bval = 77;
    for (int k = 0; k < 3; k++) CHECK_OK(MPI_Start(&r[rank % 2 ? 2 - k : k]));
    CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(bval == 77);
    CHECK_OK(MPI_Start(&r[0]));
    int flag = 0;
    while (!flag) CHECK_OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++) CHECK_OK(MPI_Request_free(&r[i]));
    CHECK(r[0] == MPI_REQUEST_NULL);
}

/* Comm_idup: each rank dups the pair it leads, then the pair it follows, so the dups
 * overlap in a ring (with blocking dups this deadlocks); an allreduce in flight
 * on the parent beside them; each dup congruent with its parent and usable. */
static void idup(void) {
    MPI_Comm pair[2] = {MPI_COMM_NULL, MPI_COMM_NULL}, dup[3], made;
    MPI_Request r[4];
    /* Pair i joins ranks i and i+1: this rank leads pair[0] and follows in pair[1]. */
    for (int i = 0; i < size; i++) {
        int in_pair = rank == i || rank == (i + 1) % size;
        CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, in_pair ? 0 : MPI_UNDEFINED, rank == i ? 0 : 1, &made));
        if (rank == i) pair[0] = made;
        else if (in_pair) pair[1] = made;
    }
    int in = rank + 1, sum = 0, n = 0;
    for (int i = 0; i < 2; i++)
        if (pair[i] != MPI_COMM_NULL) CHECK_OK(MPI_Comm_idup(pair[i], &dup[i], &r[n++]));
    CHECK_OK(MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[n++]));
    CHECK_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup[2], &r[n++]));
    CHECK_OK(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
    CHECK(sum == size * (size + 1) / 2);
    /* An allreduce on each dup, all in flight at once (blocking ones in this order would
     * wait in a ring). */
    int total[3] = {0, 0, 0}, want[3];
    n = 0;
    for (int i = 0; i < 3; i++) {
        MPI_Comm parent = i < 2 ? pair[i] : MPI_COMM_WORLD;
        if (parent == MPI_COMM_NULL) continue;
        int cmp;
        CHECK_OK(MPI_Comm_compare(parent, dup[i], &cmp));
        CHECK(cmp == MPI_CONGRUENT);
        /* The other member of a pair is the next rank (pair[0]) or the one before. */
        int other = (rank + (i == 0 ? 1 : size - 1)) % size + 1;
        want[i] = i == 2 ? size * (size + 1) / 2 : size == 1 ? in : in + other;
        CHECK_OK(MPI_Iallreduce(&in, &total[i], 1, MPI_INT, MPI_SUM, dup[i], &r[n++]));
    }
    CHECK_OK(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
    /* Duplicates of two duplicates, started in another order on odd ranks. */
    MPI_Comm other, again[2];
    int twice[2] = {0, 0};
    CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &other, &r[0]));
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    MPI_Comm parents[2] = {dup[2], other};
    for (int k = 0; k < 2; k++) {
        int j = rank % 2 ? 1 - k : k;
        CHECK_OK(MPI_Comm_idup(parents[j], &again[j], &r[j]));
    }
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int j = 0; j < 2; j++) {
        CHECK_OK(MPI_Allreduce(&in, &twice[j], 1, MPI_INT, MPI_SUM, again[j]));
        CHECK(twice[j] == size * (size + 1) / 2);
        CHECK_OK(MPI_Comm_free(&again[j]));
    }
    CHECK_OK(MPI_Comm_free(&other));
    for (int i = 0; i < 3; i++) {
        if (i < 2 && pair[i] == MPI_COMM_NULL) continue;
        CHECK(total[i] == want[i]);
        CHECK_OK(MPI_Comm_free(&dup[i]));
        if (i < 2) CHECK_OK(MPI_Comm_free(&pair[i]));
    }
}

int main(int argc, char **argv) {
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int k = 0; k < 3; k++) nonblocking();
    v_forms();
    persistent();
    idup();
    CHECK_OK(MPI_Finalize());
    printf("nbcoll ok\n");
    return 0;
}
