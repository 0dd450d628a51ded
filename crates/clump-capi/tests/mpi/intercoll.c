/* Collectives on an intercommunicator between the lower and the upper half of the world,
 * blocking and non-blocking: rooted ones with MPI_ROOT and MPI_PROC_NULL in the root's
 * group, the all-forms giving each group the other group's data. */
#include "check.h"

static int rank, size, left, lrank, lsize, rsize;

/* World rank of remote rank r. */
static int remote_world(int r) { return left ? size / 2 + r : r; }

static void rooted(MPI_Comm inter) {
    /* Root: rank 0 of the lower half. */
    int root = left ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int v = left && lrank == 0 ? 42 : -1;
    CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, root, inter));
    CHECK(v == (left && lrank != 0 ? -1 : 42));

    int mine = rank + 1, sum = -1;
    CHECK_OK(MPI_Reduce(left ? NULL : &mine, &sum, 1, MPI_INT, MPI_SUM, root, inter));
    if (left && lrank == 0) {
        int want = 0;
        for (int r = 0; r < rsize; r++) want += remote_world(r) + 1;
        CHECK(sum == want);
    } else {
        CHECK(sum == -1);
    }

    int got[64];
    for (int i = 0; i < 64; i++) got[i] = -1;
    CHECK_OK(MPI_Gather(&mine, 1, MPI_INT, got, 1, MPI_INT, root, inter));
    for (int r = 0; left && lrank == 0 && r < rsize; r++) CHECK(got[r] == remote_world(r) + 1);

    int out[64], one = -1;
    for (int r = 0; r < rsize; r++) out[r] = 10 * r + 3;
    CHECK_OK(MPI_Scatter(out, 1, MPI_INT, &one, 1, MPI_INT, root, inter));
    CHECK(one == (left ? -1 : 10 * lrank + 3));
}

static void all_forms(MPI_Comm inter) {
    int mine = rank + 1, sum = -1, got[64], to[64], from[64];
    CHECK_OK(MPI_Barrier(inter));
    CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
    int want = 0;
    for (int r = 0; r < rsize; r++) want += remote_world(r) + 1;
    CHECK(sum == want);
    CHECK_OK(MPI_Allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, inter));
    for (int r = 0; r < rsize; r++) CHECK(got[r] == remote_world(r) + 1);
    for (int r = 0; r < rsize; r++) to[r] = 100 * rank + r;
    CHECK_OK(MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, inter));
    for (int r = 0; r < rsize; r++) CHECK(from[r] == 100 * remote_world(r) + lrank);

    /* Reduce_scatter_block: vectors of lsize * rsize elements (alike in both groups), this
     * rank's block of the other group's sum is rsize of them. */
    int total = lsize * rsize, *vec = malloc(sizeof(int) * total), block[64];
    for (int k = 0; k < total; k++) vec[k] = 1000 * rank + k;
    CHECK_OK(MPI_Reduce_scatter_block(vec, block, rsize, MPI_INT, MPI_SUM, inter));
    for (int k = 0; k < rsize; k++) {
        int expect = 0;
        for (int r = 0; r < rsize; r++) expect += 1000 * remote_world(r) + lrank * rsize + k;
        CHECK(block[k] == expect);
    }
    free(vec);

    /* Non-blocking, several in flight. */
    MPI_Request req[4];
    int root = left ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL), v = left ? -1 : 7, isum = -1;
    CHECK_OK(MPI_Ibcast(&v, 1, MPI_INT, root, inter, &req[0]));
    CHECK_OK(MPI_Iallreduce(&mine, &isum, 1, MPI_INT, MPI_SUM, inter, &req[1]));
    CHECK_OK(MPI_Ibarrier(inter, &req[2]));
    CHECK_OK(MPI_Iallgather(&mine, 1, MPI_INT, got, 1, MPI_INT, inter, &req[3]));
    CHECK_OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(v == 7 && isum == want);
    for (int r = 0; r < rsize; r++) CHECK(got[r] == remote_world(r) + 1);
}

int main(int argc, char **argv) {
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (size >= 2) {
        left = rank < size / 2;
        MPI_Comm local, inter;
        CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, left, rank, &local));
        CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? size / 2 : 0, 5, &inter));
        MPI_Comm_rank(inter, &lrank);
        MPI_Comm_size(inter, &lsize);
        MPI_Comm_remote_size(inter, &rsize);
        rooted(inter);
        all_forms(inter);
        CHECK_OK(MPI_Comm_free(&inter));
        CHECK_OK(MPI_Comm_free(&local));
    }
    CHECK_OK(MPI_Finalize());
    printf("intercoll ok\n");
    return 0;
}
