/* Remote operations on a PE's global and static variables complete while that PE spins
 * on local calls (OpenSHMEM's progress rule), and a series of _any calls returns every
 * index whose condition holds. Prints "progress ok" per PE.
 *
 * 1. A token goes round the PEs: each spins on shmem_int_atomic_fetch of its own static
 *    flag until the PE before it sets the flag with shmem_int_atomic_set (a call that
 *    returns only once the target has applied it); PE 0 waits for it to come back.
 * 2. Every PE takes and releases a lock, a static long, by spinning on shmem_test_lock,
 *    counting its turns in a static counter on PE 0.
 * 3. With every variable's condition true, n calls of shmem_int_test_any (and the vector
 *    and wait_until_any forms) return each of the n indices once. */
#include "check.h"

#define N 5

static int flag;
static long lock;
static int turns;
static int ivars[N];

static void fair(const char *what, size_t (*call)(void)) {
    int seen[N] = {0};
    for (int k = 0; k < N; k++) {
        size_t i = call();
        CHECK(i < N);
        seen[i]++;
    }
    for (int i = 0; i < N; i++)
        if (seen[i] != 1) {
            fprintf(stderr, "PE %d: %s returned index %d %d times in %d calls\n",
                    shmem_my_pe(), what, i, seen[i], N);
            shmem_global_exit(1);
        }
}

static const int ones[N] = {1, 1, 1, 1, 1};
static size_t test_any(void) { return shmem_int_test_any(ivars, N, NULL, SHMEM_CMP_EQ, 1); }
static size_t test_any_vector(void) {
    return shmem_int_test_any_vector(ivars, N, NULL, SHMEM_CMP_EQ, (int *)ones);
}
static size_t wait_until_any(void) {
    return shmem_int_wait_until_any(ivars, N, NULL, SHMEM_CMP_EQ, 1);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    if (me == 0) shmem_int_atomic_set(&flag, 1, me);
    while (shmem_int_atomic_fetch(&flag, me) < 1) {
    }
    shmem_int_atomic_set(&flag, me == npes - 1 ? 2 : 1, (me + 1) % npes);
    if (me == 0)
        while (shmem_int_atomic_fetch(&flag, me) != 2) {
        }

    for (int round = 0; round < 20; round++) {
        while (shmem_test_lock(&lock)) {
        }
        shmem_int_atomic_inc(&turns, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(turns == 20 * npes);

    for (int i = 0; i < N; i++) ivars[i] = 1;
    fair("shmem_int_test_any", test_any);
    fair("shmem_int_test_any_vector", test_any_vector);
    fair("shmem_int_wait_until_any", wait_until_any);

    printf("progress ok\n");
    shmem_finalize();
    return 0;
}
