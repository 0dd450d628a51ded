/* Collectives: each one against the value computed locally, at sizes from one element to
 * past the eager threshold, with every predefined operation and a user operation.
 * Prints "collectives ok" on each rank. */
#include "check.h"
#include <string.h>

static int rank, size;

static void barrier_bcast(void) {
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int counts[3] = {1, 1000, 100000};
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        int *buf = malloc(n * sizeof(int));
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < n; i++) buf[i] = rank == root ? root * 7 + i : -1;
            CHECK_OK(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++) CHECK(buf[i] == root * 7 + i);
        }
        free(buf);
    }
}

/* Integer ops on ranks' values 1..size: sum, prod, min, max, bitwise and logical. */
static void every_predefined_op(void) {
    int v = rank + 1, r;
    struct { MPI_Op op; int expect; } ops[8];
    int sum = 0, prod = 1, band = ~0, bor = 0, bxor = 0;
    for (int i = 1; i <= size; i++) sum += i, prod *= i, band &= i, bor |= i, bxor ^= i;
    ops[0].op = MPI_SUM, ops[0].expect = sum;
    ops[1].op = MPI_PROD, ops[1].expect = prod;
    ops[2].op = MPI_MIN, ops[2].expect = 1;
    ops[3].op = MPI_MAX, ops[3].expect = size;
    ops[4].op = MPI_BAND, ops[4].expect = band;
    ops[5].op = MPI_BOR, ops[5].expect = bor;
    ops[6].op = MPI_BXOR, ops[6].expect = bxor;
    ops[7].op = MPI_LAND, ops[7].expect = 1;
    for (int k = 0; k < 8; k++) {
        CHECK_OK(MPI_Allreduce(&v, &r, 1, MPI_INT, ops[k].op, MPI_COMM_WORLD));
        CHECK(r == ops[k].expect);
        r = -1;
        CHECK_OK(MPI_Reduce(&v, &r, 1, MPI_INT, ops[k].op, size - 1, MPI_COMM_WORLD));
        CHECK(rank != size - 1 || r == ops[k].expect);
    }
    int zero_on_0 = rank != 0, lor, lxor;
    CHECK_OK(MPI_Allreduce(&zero_on_0, &lor, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    CHECK(lor == (size > 1));
    CHECK_OK(MPI_Allreduce(&zero_on_0, &lxor, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(lxor == ((size - 1) % 2));

    struct { double value; int rank; } in = {(double)((rank * 3) % size), rank}, out;
    CHECK_OK(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(out.value == size - 1);
    CHECK_OK(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(out.value == 0 && out.rank == 0);

    /* Doubles, long vectors and MPI_IN_PLACE. */
    enum { N = 50000 };
    double *d = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) d[i] = rank + i;
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, d, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) CHECK(d[i] == (double)size * (size - 1) / 2 + (double)size * i);
    free(d);
}

/* A non-commutative user operation: composition of 2x2 integer matrices, in rank order. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type) {
    int *a = in, *b = inout;
    (void)type;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

/* A committed type of 4 ints (one 2x2 matrix). */
static MPI_Datatype mat4(void) {
    static MPI_Datatype mat = MPI_DATATYPE_NULL;
    if (mat == MPI_DATATYPE_NULL) {
        CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &mat));
        CHECK_OK(MPI_Type_commit(&mat));
    }
    return mat;
}

static void user_op_scan_exscan(void) {
    MPI_Op op;
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    MPI_Datatype mat;
    CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    /* [[1, r], [0, 1]] multiplied in rank order gives [[1, sum r], [0, 1]]. */
    int m[4] = {1, rank, 0, 1}, r[4];
    CHECK_OK(MPI_Allreduce(m, r, 1, mat, op, MPI_COMM_WORLD));
    CHECK(r[0] == 1 && r[1] == size * (size - 1) / 2 && r[2] == 0 && r[3] == 1);
    CHECK_OK(MPI_Type_free(&mat));
    CHECK_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL);

    int v = rank + 1, s = -1, e = -1;
    CHECK_OK(MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == (rank + 1) * (rank + 2) / 2);
    CHECK_OK(MPI_Exscan(&v, &e, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rank == 0 || e == rank * (rank + 1) / 2);
}

static void gather_scatter(void) {
    int root = size / 2;
    int *all = malloc(size * 3 * sizeof(int));
    int mine[3] = {rank, rank * 2, rank * 3};
    CHECK_OK(MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
        for (int i = 0; i < size; i++) CHECK(all[3 * i + 2] == i * 3);
    CHECK_OK(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++) CHECK(all[3 * i + 1] == i * 2);
    int back[3];
    CHECK_OK(MPI_Scatter(all, 3, MPI_INT, back, 3, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(back[0] == rank && back[2] == rank * 3);

    /* v-forms: rank i contributes i+1 elements, placed in reverse rank order. */
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int total = size * (size + 1) / 2, off = total;
    for (int i = 0; i < size; i++) counts[i] = i + 1, off -= i + 1, displs[i] = off;
    int *v = malloc(total * sizeof(int)), contrib[64];
    for (int i = 0; i <= rank; i++) contrib[i] = rank * 100 + i;
    CHECK_OK(MPI_Gatherv(contrib, rank + 1, MPI_INT, v, counts, displs, MPI_INT, root,
                         MPI_COMM_WORLD));
    if (rank == root)
        for (int i = 0; i < size; i++) CHECK(v[displs[i] + i] == i * 100 + i);
    memset(v, 0, total * sizeof(int));
    CHECK_OK(MPI_Allgatherv(contrib, rank + 1, MPI_INT, v, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    for (int i = 0; i < size; i++) CHECK(v[displs[i]] == i * 100);
    int got[64];
    CHECK_OK(MPI_Scatterv(v, counts, displs, MPI_INT, got, rank + 1, MPI_INT, root,
                          MPI_COMM_WORLD));
    for (int i = 0; i <= rank; i++) CHECK(got[i] == rank * 100 + i);
    free(v), free(counts), free(displs), free(all);
}

static void alltoall_reduce_scatter(void) {
    /* Around the size where a rank's blocks (and their lengths) stop fitting its 64 KiB
     * shared-memory slot, and far past it; every element checked. */
    int fit = (65536 - 8 * size) / (4 * size);
    int counts[7] = {1, 2, fit, fit + 2, fit + 4, fit + 8, 20000};
    for (int c = 0; c < 7; c++) {
        int n = counts[c];
        int *s = malloc(size * n * sizeof(int)), *r = malloc(size * n * sizeof(int));
        for (int i = 0; i < size * n; i++) s[i] = rank * 1000000 + i;
        CHECK_OK(MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++)
            for (int k = 0; k < n; k++) CHECK(r[i * n + k] == i * 1000000 + rank * n + k);
        free(s), free(r);
    }
    /* alltoallv: rank i sends j+1 elements to rank j. */
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = j + 1, sd[j] = stotal, stotal += j + 1;
        rc[j] = rank + 1, rd[j] = rtotal, rtotal += rank + 1;
    }
    int *s = malloc(stotal * sizeof(int)), *r = malloc(rtotal * sizeof(int));
    for (int j = 0; j < size; j++)
        for (int k = 0; k < sc[j]; k++) s[sd[j] + k] = rank * 100 + j;
    CHECK_OK(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int j = 0; j < size; j++)
        for (int k = 0; k < rc[j]; k++) CHECK(r[rd[j] + k] == j * 100 + rank);
    free(s), free(r), free(sc), free(sd), free(rc), free(rd);

    /* reduce_scatter_block: element i of every rank's vector is i; rank r gets 2 sums. */
    int *vec = malloc(2 * size * sizeof(int)), out[2];
    for (int i = 0; i < 2 * size; i++) vec[i] = i;
    CHECK_OK(MPI_Reduce_scatter_block(vec, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[0] == 2 * rank * size && out[1] == (2 * rank + 1) * size);
    int *rcounts = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) rcounts[i] = i == 0 ? 2 * size - (size - 1) : 1;
    int out2[64];
    CHECK_OK(MPI_Reduce_scatter(vec, out2, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int first = rank == 0 ? 0 : 2 * size - (size - 1) + rank - 1;
    CHECK(out2[0] == first * size);
    free(vec), free(rcounts);
}

/* Reduce_local in operand order with a non-commutative user operation and with a
 * predefined one; Op_commutative of both. */
static void reduce_local(void) {
    MPI_Op op;
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    int commute = -1;
    CHECK_OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0);
    CHECK_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1);
    /* in = [[1, 2], [0, 1]], inout = [[1, 0], [3, 1]]: inout becomes in x inout. */
    int a[4] = {1, 2, 0, 1}, b[4] = {1, 0, 3, 1};
    CHECK_OK(MPI_Reduce_local(a, b, 1, mat4(), op));
    CHECK(b[0] == 7 && b[1] == 2 && b[2] == 3 && b[3] == 1);
    CHECK_OK(MPI_Op_free(&op));
    double x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    CHECK_OK(MPI_Reduce_local(x, y, 3, MPI_DOUBLE, MPI_SUM));
    CHECK(y[0] == 11 && y[1] == 22 && y[2] == 33);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Op_commutative(MPI_OP_NULL, &commute) != MPI_SUCCESS);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Alltoallw: rank j's block is j+1 ints at byte displacements of its own, received as
 * doubles-sized slots of a vector type on one side; and in place. */
static void alltoallw(void) {
    int *scounts = malloc(sizeof(int) * size), *sdispls = malloc(sizeof(int) * size);
    int *rcounts = malloc(sizeof(int) * size), *rdispls = malloc(sizeof(int) * size);
    MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * size), *rtypes = malloc(sizeof(MPI_Datatype) * size);
    int *sbuf = malloc(sizeof(int) * 2 * size * size), *rbuf = malloc(sizeof(int) * 2 * size * size);
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(rank + 1, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    for (int j = 0; j < size; j++) {
        /* To rank j: j+1 ints; from rank j: rank+1 ints, spread every other int. */
        scounts[j] = j + 1;
        sdispls[j] = (int)sizeof(int) * j * size;
        stypes[j] = MPI_INT;
        rcounts[j] = 1;
        rdispls[j] = (int)sizeof(int) * 2 * j * size;
        rtypes[j] = every_other;
        for (int k = 0; k <= j; k++) sbuf[j * size + k] = 1000 * rank + 10 * j + k;
    }
    for (int i = 0; i < 2 * size * size; i++) rbuf[i] = -1;
    CHECK_OK(MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD));
    for (int j = 0; j < size; j++)
        for (int k = 0; k <= rank; k++) {
            CHECK(rbuf[2 * j * size + 2 * k] == 1000 * j + 10 * rank + k);
            CHECK(rbuf[2 * j * size + 2 * k + 1] == -1);
        }
    /* In place: every rank exchanges one int with each. */
    for (int j = 0; j < size; j++) {
        rcounts[j] = 1;
        rdispls[j] = (int)sizeof(int) * j;
        rtypes[j] = MPI_INT;
        rbuf[j] = 100 * rank + j;
    }
    CHECK_OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD));
    for (int j = 0; j < size; j++) CHECK(rbuf[j] == 100 * j + rank);
    CHECK_OK(MPI_Type_free(&every_other));
    free(scounts); free(sdispls); free(rcounts); free(rdispls);
    free(stypes); free(rtypes); free(sbuf); free(rbuf);
}

/* Arguments the standard says are ignored: the receive side of a gather and the send side
 * of a scatter off the root, the send count and type with MPI_IN_PLACE at the root. */
static void ignored_arguments(void) {
    int root = size - 1, *all = malloc(sizeof(int) * size), mine = rank * 5;
    for (int i = 0; i < size; i++) all[i] = rank == root ? i * 5 : -1;
    if (rank == root)
        CHECK_OK(MPI_Gather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, 1, MPI_INT, root, MPI_COMM_WORLD));
    else
        CHECK_OK(MPI_Gather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
    for (int i = 0; rank == root && i < size; i++) CHECK(all[i] == i * 5);
    int got = -1;
    if (rank == root)
        CHECK_OK(MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
    else
        CHECK_OK(MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, &got, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(rank == root || got == rank * 5);
    MPI_Request r;
    if (rank == root)
        CHECK_OK(MPI_Igather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, 1, MPI_INT, root, MPI_COMM_WORLD, &r));
    else
        CHECK_OK(MPI_Igather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    free(all);
}

int main(int argc, char **argv) {
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 64);
    barrier_bcast();
    every_predefined_op();
    user_op_scan_exscan();
    gather_scatter();
    alltoall_reduce_scatter();
    reduce_local();
    alltoallw();
    ignored_arguments();
    printf("collectives ok rank %d of %d\n", rank, size);
    CHECK_OK(MPI_Finalize());
    return 0;
}
