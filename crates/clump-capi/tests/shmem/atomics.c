/* Atomics of both widths on the heap and on globals, locks, put with signal and the
 * wait/test family. Prints "atomics ok" once per PE. */
#include "check.h"
#include <stdint.h>

long counter;                 /* a global: atomics reach it by remote procedure call */
long lock;                    /* a lock must start at 0 */
int pair[2];                  /* two 32-bit neighbours in one 64-bit word */
uint64_t sig;
long inbox[8];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *hc = shmem_calloc(1, sizeof(long));
    int *h32 = shmem_calloc(4, sizeof(int));
    double *hd = shmem_calloc(1, sizeof(double));
    uint64_t *bits = shmem_calloc(1, sizeof(uint64_t));

    /* Every PE adds to PE 0's counters: heap and global, 64 and 32 bits. */
    for (int i = 0; i < 10; i++) {
        shmem_long_atomic_add(hc, 1, 0);
        shmem_long_atomic_inc(&counter, 0);
        shmem_int_atomic_fetch_add(&h32[1], 2, 0);
        shmem_int_atomic_inc(&pair[0], 0);
        shmem_int_atomic_add(&pair[1], -1, 0);
    }
    shmem_uint64_atomic_or(bits, (uint64_t)1 << me, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*hc == 10L * npes && counter == 10L * npes);
        CHECK(h32[1] == 20 * npes && h32[0] == 0 && h32[2] == 0);
        CHECK(pair[0] == 10 * npes && pair[1] == -10 * npes);
        CHECK(*bits == ((uint64_t)1 << npes) - 1);
    }
    CHECK(shmem_long_atomic_fetch(hc, 0) == 10L * npes);
    CHECK(shmem_int_atomic_fetch(&pair[1], 0) == -10 * npes);
    shmem_barrier_all();

    /* Fetching forms, swaps and compare-swap, on the right neighbour. */
    shmem_long_atomic_set(hc, 100 + me, right);
    shmem_int_atomic_set(&h32[3], 7, right);
    shmem_double_atomic_set(hd, 1.25 * me, right);
    shmem_barrier_all();
    CHECK(*hc == 100 + left && h32[3] == 7 && *hd == 1.25 * left);
    shmem_barrier_all();
    CHECK(shmem_long_atomic_swap(hc, 5, right) == 100 + me);
    CHECK(shmem_double_atomic_swap(hd, 2.5, right) == 1.25 * me);
    CHECK(shmem_int_atomic_compare_swap(&h32[3], 7, 8, right) == 7);
    CHECK(shmem_int_atomic_compare_swap(&h32[3], 7, 9, right) == 8);
    CHECK(shmem_long_atomic_fetch_inc(hc, right) == 5);
    CHECK(shmem_long_fadd(hc, 10, right) == 6); /* the name before 1.4 */
    uint32_t u = 0;
    shmem_uint32_atomic_fetch_nbi(&u, (uint32_t *)&h32[3], right);
    shmem_quiet();
    CHECK(u == 8);
    shmem_barrier_all();
    CHECK(*hc == 16 && *hd == 2.5);
    shmem_barrier_all();
    *bits = 0xf0;
    shmem_barrier_all();
    CHECK(shmem_uint64_atomic_fetch_and(bits, 0x3c, right) == 0xf0);
    CHECK(shmem_uint64_atomic_fetch_xor(bits, 0xff, right) == 0x30);
    CHECK(shmem_ctx_uint64_atomic_fetch_or(SHMEM_CTX_DEFAULT, bits, 1, right) == 0xcf);
    shmem_barrier_all();
    CHECK(*bits == 0xcf);

    /* A lock serialises a read-modify-write that is not atomic by itself. */
    for (int i = 0; i < 5; i++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(hc, 0);
        shmem_long_p(hc, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(*hc == 16 + 5L * npes);
    if (npes == 1) {
        CHECK(shmem_test_lock(&lock) == 0);
        CHECK(shmem_test_lock(&lock) == 1);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();

    /* Put with signal: the data is there once the signal is. */
    long data[8];
    for (int i = 0; i < 8; i++) data[i] = me * 10 + i;
    shmem_long_put_signal(inbox, data, 8, &sig, 1, SHMEM_SIGNAL_ADD, right);
    CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 1) == 1);
    for (int i = 0; i < 8; i++) CHECK(inbox[i] == left * 10 + i);
    CHECK(shmem_signal_fetch(&sig) == 1);

    /* wait_until / test and their _all/_any/_some forms on an array others fill. */
    int *flags = shmem_calloc(npes, sizeof(int));
    CHECK(shmem_int_test(&flags[left], SHMEM_CMP_EQ, 0) == 1 || npes == 1);
    shmem_barrier_all();
    shmem_int_atomic_set(&flags[me], me + 1, right);
    shmem_int_wait_until(&flags[left], SHMEM_CMP_EQ, left + 1);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) shmem_int_atomic_set(&flags[me], me + 1, pe);
    shmem_int_wait_until_all(flags, npes, NULL, SHMEM_CMP_GT, 0);
    for (int i = 0; i < npes; i++) CHECK(flags[i] == i + 1);
    size_t any = shmem_int_wait_until_any(flags, npes, NULL, SHMEM_CMP_EQ, npes);
    CHECK(any == (size_t)npes - 1);
    size_t idx[64];
    int status[64] = {0};
    status[0] = 1; /* leave out PE 0's flag */
    size_t some = shmem_int_wait_until_some(flags, npes, idx, status, SHMEM_CMP_GE, 1);
    CHECK(some == (size_t)npes - 1 && (npes == 1 || idx[0] == 1));
    CHECK(shmem_int_test_all(flags, npes, NULL, SHMEM_CMP_GE, 1) == 1);
    CHECK(shmem_int_test_any(flags, npes, NULL, SHMEM_CMP_GT, npes) == SIZE_MAX);
    CHECK(shmem_int_test_some(flags, npes, idx, NULL, SHMEM_CMP_LE, 1) == 1 && idx[0] == 0);
    int wanted[64];
    for (int i = 0; i < npes; i++) wanted[i] = i + 1;
    shmem_int_wait_until_all_vector(flags, npes, NULL, SHMEM_CMP_EQ, wanted);
    CHECK(shmem_int_test_any_vector(flags, npes, NULL, SHMEM_CMP_NE, wanted) == SIZE_MAX);

    shmem_barrier_all();
    shmem_finalize();
    printf("atomics ok\n");
    return 0;
}
