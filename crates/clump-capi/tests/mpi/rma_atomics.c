/* Element-wise atomicity of one-sided accumulates: every rank hammers the same words of
 * rank 0 with fetch-and-op, accumulate and compare-and-swap, each operation on a type of
 * its own (integer sums and bitwise operations, a floating sum and maximum that need a
 * compare-and-swap loop, a 16-byte type that needs the window's guard), into an allocated
 * window (same-host ranks apply them directly, others through rank 0's handler) and into
 * a created one (rank 0 applies its own directly, the others through its handler), and
 * checks that no update was lost and every ticket was handed out once. Prints
 * "rma_atomics ok" on each rank. */
#include "check.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ROUNDS 400

/* The words every rank updates, at their natural alignment. */
struct words {
    int64_t ticket;  /* fetch-and-op MPI_SUM: each old value is a distinct ticket */
    double sum;      /* MPI_SUM on a double: compare-and-swap loop */
    double max;      /* MPI_MAX on a double */
    int32_t cas;     /* incremented by compare-and-swap retries */
    uint8_t bits[4]; /* MPI_BXOR on one byte */
    int16_t small;   /* MPI_SUM on a short */
    int16_t pad;
    int32_t pad2;
    double complex_sum[2]; /* MPI_C_DOUBLE_COMPLEX: 16 bytes, under the guard */
};

static int rank, size;

static void hammer(MPI_Win win) {
    int64_t one = 1, ticket, tickets = 0;
    double half = 0.5, mine = rank;
    int16_t two = 2;
    uint8_t flip = 0xff;
    double c[2] = {1.0, 2.0};
    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_OK(MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, 0,
                                  offsetof(struct words, ticket), MPI_SUM, win));
        tickets += ticket;
        CHECK_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, offsetof(struct words, sum), 1,
                                MPI_DOUBLE, MPI_SUM, win));
        double v = mine + i;
        CHECK_OK(MPI_Accumulate(&v, 1, MPI_DOUBLE, 0, offsetof(struct words, max), 1,
                                MPI_DOUBLE, MPI_MAX, win));
        int32_t seen = 0, want, old;
        CHECK_OK(MPI_Fetch_and_op(NULL, &seen, MPI_INT32_T, 0, offsetof(struct words, cas),
                                  MPI_NO_OP, win));
        do {
            want = seen + 1;
            CHECK_OK(MPI_Compare_and_swap(&want, &seen, &old, MPI_INT32_T, 0,
                                          offsetof(struct words, cas), win));
            if (old == seen)
                break;
            seen = old;
        } while (1);
        CHECK_OK(MPI_Accumulate(&flip, 1, MPI_UINT8_T, 0, offsetof(struct words, bits) + 1,
                                1, MPI_UINT8_T, MPI_BXOR, win));
        CHECK_OK(MPI_Accumulate(&two, 1, MPI_SHORT, 0, offsetof(struct words, small), 1,
                                MPI_SHORT, MPI_SUM, win));
        CHECK_OK(MPI_Accumulate(c, 1, MPI_C_DOUBLE_COMPLEX, 0,
                                offsetof(struct words, complex_sum), 1, MPI_C_DOUBLE_COMPLEX,
                                MPI_SUM, win));
        CHECK_OK(MPI_Win_flush(0, win));
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    /* Tickets 0 .. size * ROUNDS - 1, each once: their sum is known. */
    int64_t all = 0, n = (int64_t)size * ROUNDS;
    CHECK_OK(MPI_Allreduce(&tickets, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    CHECK(all == n * (n - 1) / 2);
}

static void verify(const struct words *w) {
    int n = size * ROUNDS;
    CHECK(w->ticket == n);
    CHECK(w->sum == 0.5 * n);
    CHECK(w->max == (double)(size - 1 + ROUNDS - 1));
    CHECK(w->cas == n);
    CHECK(w->bits[0] == 0 && w->bits[2] == 0 && w->bits[3] == 0);
    CHECK(w->bits[1] == ((n % 2) ? 0xff : 0));
    CHECK(w->small == (int16_t)(2 * n));
    CHECK(w->complex_sum[0] == 1.0 * n && w->complex_sum[1] == 2.0 * n);
}

int main(int argc, char **argv) {
    start_returning_errors(&argc, &argv, &rank, &size);
    struct words *w;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(sizeof *w, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    memset(w, 0, sizeof *w);
    w->max = -1.0;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    hammer(win);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        verify(w);
    CHECK_OK(MPI_Win_free(&win));

    static struct words own;
    own.max = -1.0;
    CHECK_OK(MPI_Win_create(&own, sizeof own, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    hammer(win);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        verify(&own);
    CHECK_OK(MPI_Win_free(&win));
    printf("rma_atomics ok\n");
    MPI_Finalize();
    return 0;
}
