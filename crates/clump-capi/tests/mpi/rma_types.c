/* Derived datatypes at the target of one-sided calls: put, get, accumulate and
 * get-accumulate with vector and indexed target types, a vector whose blocks each need
 * more than one request, the padded pair types (MPI_DOUBLE_INT) as plain predefined
 * types, and the type errors an accumulate must give. Run on an allocated window (direct
 * access within a host) and on a created one (the target's handler serves the others).
 * Prints "rma_types ok" on each rank. */
#include "check.h"
#include <string.h>

static int rank, size, right, left;

#define N 64                 /* strided ints: region [0, 2N) */
#define PAIRS (2 * N)        /* 2 MPI_DOUBLE_INT of 16 bytes: region [2N, 2N+8) */
#define BIG (2 * N + 8)      /* the large vector's region */
#define BLOCK 6000           /* ints per block of it, more than one request carries */
#define GAP 5
#define WORDS (BIG + 3 * (BLOCK + GAP))
#define ACCUMULATES 50

typedef struct {
    double d;
    int i;
} double_int;

static int class_of(int code) {
    int c = -1;
    CHECK_OK(MPI_Error_class(code, &c));
    return c;
}

static void fence(MPI_Win win) { CHECK_OK(MPI_Win_fence(0, win)); }

/* `a` holds this rank's WORDS ints of `win`, its value at i being rank * 100000 + i. */
static void reset(MPI_Win win, int *a) {
    fence(win);
    for (int i = 0; i < WORDS; i++) a[i] = rank * 100000 + i;
    fence(win);
}

static void strided(MPI_Win win, int *a) {
    MPI_Datatype every_other, picked;
    CHECK_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    /* Blocks out of address order: the type map's order is the data's. */
    int lens[3] = {2, 1, 3}, disps[3] = {10, 0, 4};
    CHECK_OK(MPI_Type_indexed(3, lens, disps, MPI_INT, &picked));
    CHECK_OK(MPI_Type_commit(&picked));

    reset(win, a);
    int src[N];
    for (int i = 0; i < N; i++) src[i] = -(rank * N + i) - 1;
    CHECK_OK(MPI_Put(src, N, MPI_INT, right, 0, 1, every_other, win));
    fence(win);
    for (int i = 0; i < N; i++) {
        CHECK(a[2 * i] == -(left * N + i) - 1);
        CHECK(a[2 * i + 1] == rank * 100000 + 2 * i + 1);
    }

    int got[6] = {0}, want[6] = {10, 11, 0, 4, 5, 6};
    reset(win, a);
    CHECK_OK(MPI_Get(got, 6, MPI_INT, right, 0, 1, picked, win));
    fence(win);
    for (int i = 0; i < 6; i++) CHECK(got[i] == right * 100000 + want[i]);

    /* Derived on both sides: the origin's every other int into the picked ints. */
    int spread[12];
    for (int i = 0; i < 12; i++) spread[i] = i % 2 ? -7 : 1000 + i / 2;
    MPI_Datatype six;
    CHECK_OK(MPI_Type_vector(6, 1, 2, MPI_INT, &six));
    CHECK_OK(MPI_Type_commit(&six));
    CHECK_OK(MPI_Put(spread, 1, six, right, 0, 1, picked, win));
    fence(win);
    for (int i = 0; i < 6; i++) CHECK(a[want[i]] == 1000 + i);
    CHECK(a[1] == rank * 100000 + 1 && a[12] == rank * 100000 + 12);

    /* Every rank adds to rank 0's strided ints, concurrently; the ints between stay. */
    reset(win, a);
    int ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1;
    for (int k = 0; k < ACCUMULATES; k++)
        CHECK_OK(MPI_Accumulate(ones, N, MPI_INT, 0, 0, 1, every_other, MPI_SUM, win));
    fence(win);
    if (rank == 0)
        for (int i = 0; i < N; i++) {
            CHECK(a[2 * i] == 2 * i + ACCUMULATES * size);
            CHECK(a[2 * i + 1] == 2 * i + 1);
        }

    /* Get-accumulate through the indexed type, under a lock: the old values come back
     * in the type map's order, derived at the origin's result too. */
    reset(win, a);
    MPI_Barrier(MPI_COMM_WORLD);
    int add[6] = {1, 2, 3, 4, 5, 6}, old[12];
    for (int i = 0; i < 12; i++) old[i] = -5;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    CHECK_OK(MPI_Get_accumulate(add, 6, MPI_INT, old, 1, six, right, 0, 1, picked, MPI_SUM,
                                win));
    CHECK_OK(MPI_Win_unlock(right, win));
    for (int i = 0; i < 6; i++) {
        CHECK(old[2 * i] == right * 100000 + want[i]);
        CHECK(old[2 * i + 1] == -5);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 6; i++) CHECK(a[want[i]] == rank * 100000 + want[i] + i + 1);

    CHECK_OK(MPI_Type_free(&every_other));
    CHECK_OK(MPI_Type_free(&picked));
    CHECK_OK(MPI_Type_free(&six));
}

/* Three blocks of BLOCK ints, GAP apart: each block is more than one request's data. */
static void large(MPI_Win win, int *a) {
    static int src[3 * BLOCK], back[3 * BLOCK];
    MPI_Datatype blocks;
    CHECK_OK(MPI_Type_vector(3, BLOCK, BLOCK + GAP, MPI_INT, &blocks));
    CHECK_OK(MPI_Type_commit(&blocks));
    reset(win, a);
    for (int i = 0; i < 3 * BLOCK; i++) src[i] = -i - rank;
    CHECK_OK(MPI_Put(src, 3 * BLOCK, MPI_INT, right, BIG, 1, blocks, win));
    fence(win);
    for (int b = 0; b < 3; b++) {
        int *at = a + BIG + b * (BLOCK + GAP);
        for (int i = 0; i < BLOCK; i++) CHECK(at[i] == -(b * BLOCK + i) - left);
        for (int g = 0; g < GAP; g++)
            CHECK(at[BLOCK + g] == rank * 100000 + BIG + b * (BLOCK + GAP) + BLOCK + g);
    }
    CHECK_OK(MPI_Get(back, 3 * BLOCK, MPI_INT, right, BIG, 1, blocks, win));
    fence(win);
    for (int i = 0; i < 3 * BLOCK; i++) CHECK(back[i] == -i - rank); /* what this rank put there */
    CHECK_OK(MPI_Type_free(&blocks));
}

/* MPI_DOUBLE_INT is predefined but padded (12 bytes of data in 16): two of them keep
 * both pairs, and MAXLOC from every rank finds the largest. */
static void pairs(MPI_Win win, int *a) {
    double_int mine[2] = {{rank + 0.5, rank}, {-rank - 0.5, 10 + rank}}, got[2];
    double_int *here = (double_int *)(a + PAIRS);
    reset(win, a);
    CHECK_OK(MPI_Put(mine, 2, MPI_DOUBLE_INT, right, PAIRS, 2, MPI_DOUBLE_INT, win));
    fence(win);
    CHECK(here[0].d == left + 0.5 && here[0].i == left);
    CHECK(here[1].d == -left - 0.5 && here[1].i == 10 + left);
    CHECK_OK(MPI_Get(got, 2, MPI_DOUBLE_INT, right, PAIRS, 2, MPI_DOUBLE_INT, win));
    fence(win);
    CHECK(got[1].d == -rank - 0.5 && got[1].i == 10 + rank);

    here[0] = (double_int){-1.0, -1};
    here[1] = (double_int){-1.0, -1};
    fence(win);
    CHECK_OK(MPI_Accumulate(mine, 2, MPI_DOUBLE_INT, 0, PAIRS, 2, MPI_DOUBLE_INT, MPI_MAXLOC,
                            win));
    fence(win);
    if (rank == 0) {
        CHECK(here[0].d == size - 0.5 && here[0].i == size - 1);
        CHECK(here[1].d == -0.5 && here[1].i == 10);
    }
}

/* An accumulate's target type must be made of one predefined type, and the origin's of
 * the same one; nothing moves when they are not. */
static void type_errors(MPI_Win win, int *a) {
    MPI_Datatype mixed;
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    CHECK_OK(MPI_Type_create_struct(2, lens, disps, types, &mixed));
    CHECK_OK(MPI_Type_commit(&mixed));
    MPI_Datatype two_floats;
    CHECK_OK(MPI_Type_contiguous(2, MPI_FLOAT, &two_floats));
    CHECK_OK(MPI_Type_commit(&two_floats));
    reset(win, a);
    char bytes[16] = {0};
    int err = MPI_Accumulate(bytes, 1, mixed, right, 0, 1, mixed, MPI_SUM, win);
    CHECK(class_of(err) == MPI_ERR_TYPE);
    err = MPI_Accumulate(bytes, 1, two_floats, right, 0, 2, MPI_INT, MPI_SUM, win);
    CHECK(class_of(err) == MPI_ERR_TYPE);
    /* A target type that reaches past the window is a range error. */
    MPI_Datatype far;
    CHECK_OK(MPI_Type_vector(2, 1, WORDS, MPI_INT, &far));
    CHECK_OK(MPI_Type_commit(&far));
    err = MPI_Put(bytes, 2, MPI_INT, right, 0, 1, far, win);
    CHECK(class_of(err) == MPI_ERR_RMA_RANGE);
    fence(win);
    CHECK(a[0] == rank * 100000 && a[2] == rank * 100000 + 2);
    CHECK_OK(MPI_Type_free(&mixed));
    CHECK_OK(MPI_Type_free(&two_floats));
    CHECK_OK(MPI_Type_free(&far));
}

static void all_cases(MPI_Win win, int *a) {
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    strided(win, a);
    large(win, a);
    pairs(win, a);
    type_errors(win, a);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    MPI_Win win;
    int *a = NULL;
    CHECK_OK(MPI_Win_allocate(WORDS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &a, &win));
    all_cases(win, a);
    CHECK_OK(MPI_Win_free(&win));

    int *mem = malloc(WORDS * sizeof(int));
    CHECK(mem != NULL);
    CHECK_OK(MPI_Win_create(mem, WORDS * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    all_cases(win, mem);
    CHECK_OK(MPI_Win_free(&win));
    free(mem);
    printf("rma_types ok\n");
    MPI_Finalize();
    return 0;
}
