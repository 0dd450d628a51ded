/* One-sided communication: windows (allocated, created over the program's memory,
 * shared), their attributes, put/get/accumulates under fence and passive-target locks,
 * concurrent accumulates and atomics from every rank to one location, request-based
 * calls, a derived origin datatype, and bad use returning its error class. Prints
 * "rma ok" on each rank. */
#include "check.h"
#include <string.h>

static int rank, size;

/* Accumulates from each rank to one block of SPAN ints: enough for unguarded ones to
 * collide. A window holds 8 ints of its own, then the block. */
#define ACCUMULATES 500
#define SPAN 256
#define WORDS (8 + SPAN)

static int class_of(int code) {
    int c = -1;
    CHECK_OK(MPI_Error_class(code, &c));
    return c;
}

static void attributes(MPI_Win win, void *base, MPI_Aint bytes, int unit, int flavor) {
    void *b = NULL;
    MPI_Aint *s = NULL;
    int *u = NULL, *f = NULL, *m = NULL, flag = 0;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
    CHECK(flag && b == base);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &flag));
    CHECK(flag && *s == bytes);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &u, &flag));
    CHECK(flag && *u == unit);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag));
    CHECK(flag && *f == flavor);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &flag));
    CHECK(flag && *m == MPI_WIN_UNIFIED);

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_OK(MPI_Win_set_name(win, "halo"));
    CHECK_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 4 && strcmp(name, "halo") == 0);

    MPI_Group g, world;
    int result = -1;
    CHECK_OK(MPI_Win_get_group(win, &g));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Group_compare(g, world, &result));
    CHECK(result == MPI_IDENT);
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Group_free(&world));
}

/* Put to the right neighbour, get from it, and accumulate from every rank into rank 0,
 * all between fences; `a` is this rank's part of `win` (WORDS ints). */
static void fenced(MPI_Win win, int *a) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < WORDS; i++) a[i] = -1;
    a[1] = 0;
    for (int i = 8; i < WORDS; i++) a[i] = 0;
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    int one = 1, ones[SPAN];
    for (int i = 0; i < SPAN; i++) ones[i] = 1;
    for (int i = 0; i < ACCUMULATES; i++) {
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win));
        CHECK_OK(MPI_Accumulate(ones, SPAN, MPI_INT, 0, 8, SPAN, MPI_INT, MPI_SUM, win));
    }
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(a[0] == left);
    if (rank == 0) {
        CHECK(a[1] == ACCUMULATES * size);
        for (int i = 8; i < WORDS; i++) CHECK(a[i] == ACCUMULATES * size);
    }
    int got = -2;
    CHECK_OK(MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(got == rank);

    /* A vector of every other int at the origin lands contiguous at the target. */
    int spread[6] = {rank, -9, rank + 1, -9, rank + 2, -9};
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    CHECK_OK(MPI_Put(spread, 1, every_other, right, 2, 3, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(a[2] == left && a[3] == left + 1 && a[4] == left + 2);
    int back[6] = {0, 7, 0, 7, 0, 7};
    CHECK_OK(MPI_Get(back, 1, every_other, right, 2, 3, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(back[0] == rank && back[1] == 7 && back[2] == rank + 1 && back[4] == rank + 2);
    CHECK_OK(MPI_Type_free(&every_other));
}

/* Passive target: fetch-and-add, compare-and-swap and an exclusive read-modify-write
 * from every rank on rank 0's words; `a` is this rank's part (WORDS ints). */
static void passive(MPI_Win win, int *a) {
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    a[5] = 0;
    a[6] = -1;
    a[7] = 0;
    CHECK_OK(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);

    int one = 1, ticket = -1;
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Fetch_and_op(&one, &ticket, MPI_INT, 0, 5, MPI_SUM, win));
    CHECK_OK(MPI_Win_flush(0, win));
    int minus = -1, old = -2;
    CHECK_OK(MPI_Compare_and_swap(&rank, &minus, &old, MPI_INT, 0, 6, win));
    CHECK_OK(MPI_Win_flush_all(win));
    CHECK_OK(MPI_Win_unlock_all(win));

    /* The tickets are 0..size-1, each once; exactly one swap found -1. */
    int tickets[64], won = old == -1, winners = 0;
    CHECK(size <= 64);
    CHECK_OK(MPI_Allgather(&ticket, 1, MPI_INT, tickets, 1, MPI_INT, MPI_COMM_WORLD));
    for (int t = 0; t < size; t++) {
        int seen = 0;
        for (int i = 0; i < size; i++) seen += tickets[i] == t;
        CHECK(seen == 1);
    }
    CHECK_OK(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(winners == 1);

    /* Get, add, put under an exclusive lock: no update is lost. */
    for (int i = 0; i < 20; i++) {
        int v = -1;
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_OK(MPI_Get(&v, 1, MPI_INT, 0, 7, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_flush(0, win));
        v += 1;
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, 0, 7, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(a[5] == size && a[7] == 20 * size);
        CHECK(a[6] >= 0 && a[6] < size);
        CHECK_OK(MPI_Win_unlock(0, win));
    }

    /* Request-based put and get, and a get-accumulate that only reads. */
    MPI_Request reqs[2];
    int mine = 100 + rank, peer = -1, seen = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win));
    CHECK_OK(MPI_Rput(&mine, 1, MPI_INT, right, 4, 1, MPI_INT, win, &reqs[0]));
    CHECK_OK(MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(a[4] == 100 + left);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CHECK_OK(MPI_Rget(&peer, 1, MPI_INT, right, 4, 1, MPI_INT, win, &reqs[1]));
    CHECK_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &seen, 1, MPI_INT, right, 4, 1, MPI_INT,
                                MPI_NO_OP, win));
    CHECK_OK(MPI_Win_unlock(right, win));
    CHECK(peer == 100 + rank && seen == 100 + rank);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Bad use is an error of its class, and changes nothing. */
static void misuse(MPI_Win win, int *a) {
    int v = 5, two[2] = {1, 2};
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* No epoch is open (the last fence had MPI_MODE_NOSUCCEED). */
    CHECK(class_of(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC);
    CHECK(class_of(MPI_Win_unlock(0, win)) == MPI_ERR_RMA_SYNC);
    CHECK(class_of(MPI_Win_lock(12345, 0, 0, win)) == MPI_ERR_LOCKTYPE);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(class_of(MPI_Put(&v, 1, MPI_INT, 0, WORDS, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
    CHECK(class_of(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
    CHECK(class_of(MPI_Put(two, 2, MPI_INT, 0, 0, 1, MPI_INT, win)) == MPI_ERR_TYPE);
    CHECK(class_of(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
    CHECK(class_of(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win)) == MPI_ERR_RMA_SYNC);
    CHECK(class_of(MPI_Win_fence(0, win)) == MPI_ERR_RMA_SYNC);
    MPI_Win same = win;
    CHECK(class_of(MPI_Win_free(&same)) == MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_unlock(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    (void)a;
}

/* A shared window: every rank stores into its own part, then loads its neighbours'
 * through the pointers MPI_Win_shared_query gives. Processes on different hosts share
 * no memory, which is MPI_ERR_RMA_SHARED. */
static void shared(void) {
    int *mine = NULL;
    MPI_Win win;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                     &mine, &win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rc != MPI_SUCCESS) {
        CHECK(class_of(rc) == MPI_ERR_RMA_SHARED);
        return;
    }
    attributes(win, mine, sizeof(int), sizeof(int), MPI_WIN_FLAVOR_SHARED);
    *mine = 1000 + rank;
    CHECK_OK(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        MPI_Aint bytes = -1;
        int unit = -1;
        int *theirs = NULL;
        CHECK_OK(MPI_Win_shared_query(win, r, &bytes, &unit, &theirs));
        CHECK(bytes == sizeof(int) && unit == sizeof(int) && theirs != NULL);
        CHECK(*theirs == 1000 + r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Win_free(&win));

    /* A member without memory has no base: size 0 and NULL. */
    int *some = NULL;
    CHECK_OK(MPI_Win_allocate_shared(rank % 2 ? 0 : sizeof(int), sizeof(int), MPI_INFO_NULL,
                                     MPI_COMM_WORLD, &some, &win));
    for (int r = 1; r < size; r += 2) {
        MPI_Aint bytes = -1;
        int unit = -1, *theirs = &unit;
        CHECK_OK(MPI_Win_shared_query(win, r, &bytes, &unit, &theirs));
        CHECK(bytes == 0 && theirs == NULL);
    }
    CHECK_OK(MPI_Win_free(&win));
}

/* General active target over a ring: each rank exposes its window to its left
 * neighbour and accesses its right one, ended by a wait and then by a test loop. */
static void active_target(MPI_Win win, int *a) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size, flag = 0;
    MPI_Group world, lg, rg;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Group_incl(world, 1, &left, &lg));
    CHECK_OK(MPI_Group_incl(world, 1, &right, &rg));
    CHECK(class_of(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC);
    CHECK(class_of(MPI_Win_wait(win)) == MPI_ERR_RMA_SYNC);
    for (int round = 0; round < 2; round++) {
        int v = 10 * round + rank;
        CHECK_OK(MPI_Win_post(lg, 0, win));
        CHECK_OK(MPI_Win_start(rg, 0, win));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 3, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_complete(win));
        if (round == 0) {
            CHECK_OK(MPI_Win_wait(win));
        } else {
            for (flag = 0; !flag;) CHECK_OK(MPI_Win_test(win, &flag));
        }
        CHECK(a[3] == 10 * round + left);
    }
    CHECK_OK(MPI_Group_free(&lg));
    CHECK_OK(MPI_Group_free(&rg));
    CHECK_OK(MPI_Group_free(&world));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A dynamic window: each rank attaches a buffer as two adjacent regions, the others
 * address it by its address (MPI_Get_address), an access may cross from one region into
 * the next, and an address outside every attached region is MPI_ERR_RMA_RANGE. */
static void dynamic(void) {
    static int buf[4];
    MPI_Aint mine, addrs[64];
    MPI_Win win;
    CHECK(size <= 64);
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *f = NULL, flag = 0;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag));
    CHECK(flag && *f == MPI_WIN_FLAVOR_DYNAMIC);
    for (int i = 0; i < 4; i++) buf[i] = 0;
    CHECK_OK(MPI_Win_attach(win, buf, 2 * sizeof(int)));
    CHECK_OK(MPI_Win_attach(win, buf + 2, 2 * sizeof(int)));
    CHECK_OK(MPI_Get_address(buf, &mine));
    CHECK_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    int right = (rank + 1) % size, left = (rank + size - 1) % size, one = 1;
    int pair[2] = {rank, rank};
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(pair, 2, MPI_INT, right, addrs[right] + sizeof(int), 2, MPI_INT, win));
    CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, addrs[0] + 3 * sizeof(int), 1, MPI_INT,
                            MPI_SUM, win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int v = 0;
    CHECK(class_of(MPI_Put(&v, 1, MPI_INT, right, addrs[right] + sizeof buf, 1, MPI_INT,
                           win)) == MPI_ERR_RMA_RANGE);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(buf[1] == left && buf[2] == left);
    if (rank == 0) CHECK(buf[3] == size);
    CHECK(class_of(MPI_Win_detach(win, buf + 1)) == MPI_ERR_RMA_ATTACH);
    CHECK_OK(MPI_Win_detach(win, buf));
    CHECK_OK(MPI_Win_detach(win, buf + 2));
    CHECK_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *a = NULL;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(WORDS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a,
                              &win));
    attributes(win, a, WORDS * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
    fenced(win, a);
    passive(win, a);
    misuse(win, a);
    active_target(win, a);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);

    /* The same over memory the program owns, reached by messages from every rank. */
    static int own[WORDS];
    CHECK_OK(MPI_Win_create(own, sizeof own, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    attributes(win, own, sizeof own, sizeof(int), MPI_WIN_FLAVOR_CREATE);
    fenced(win, own);
    passive(win, own);
    CHECK_OK(MPI_Win_free(&win));

    /* Freed windows give their segment memory back: far more than one segment's worth. */
    for (int i = 0; i < 200; i++) {
        char *big = NULL;
        CHECK_OK(MPI_Win_allocate(1 << 20, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &big, &win));
        big[(1 << 20) - 1] = 1;
        CHECK_OK(MPI_Win_free(&win));
    }

    shared();
    dynamic();
    MPI_Finalize();
    printf("rma ok\n");
    return 0;
}
