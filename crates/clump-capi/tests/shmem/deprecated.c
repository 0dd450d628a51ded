/* Deprecated names OpenSHMEM 1.5 still specifies, beyond interface.c's: the C11 generic
 * names of the atomics from before 1.4 (shmem_add, shmem_inc, shmem_fadd, shmem_finc,
 * shmem_cswap, shmem_swap, shmem_fetch, shmem_set) on each type they had, the untyped
 * shmem_wait_until and shmem_wait functions of a long, and the _SHMEM_ spellings of the
 * constants. Each PE works on the next one's variables. Prints "deprecated ok" per PE. */
#include "check.h"
#include <string.h>

static int i;
static long l;
static long long ll;
static float f;
static double d;
static long flag, changed;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;

    CHECK(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION && _SHMEM_MINOR_VERSION == 5);
    CHECK(_SHMEM_MAX_NAME_LEN == SHMEM_MAX_NAME_LEN);
    CHECK(strcmp(_SHMEM_VENDOR_STRING, SHMEM_VENDOR_STRING) == 0);
    CHECK(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE);
    CHECK(_SHMEM_CMP_GT == SHMEM_CMP_GT && _SHMEM_CMP_GE == SHMEM_CMP_GE);
    CHECK(_SHMEM_CMP_LT == SHMEM_CMP_LT && _SHMEM_CMP_LE == SHMEM_CMP_LE);

    /* The integer atomics on int, long and long long of the next PE. */
    shmem_add(&i, 5, next);
    shmem_add(&l, 5L, next);
    shmem_add(&ll, 5LL, next);
    shmem_inc(&i, next);
    shmem_inc(&l, next);
    shmem_inc(&ll, next);
    shmem_quiet(); /* the fetching calls below must see these */
    CHECK(shmem_fadd(&i, 10, next) == 6 && shmem_fadd(&l, 10L, next) == 6);
    CHECK(shmem_fadd(&ll, 10LL, next) == 6);
    CHECK(shmem_finc(&i, next) == 16 && shmem_finc(&l, next) == 16 && shmem_finc(&ll, next) == 16);
    CHECK(shmem_cswap(&i, 17, 1, next) == 17 && shmem_cswap(&l, 0L, 2L, next) == 17);
    CHECK(shmem_cswap(&ll, 17LL, 3LL, next) == 17);
    /* And those that take float and double too. */
    shmem_set(&f, 1.5f, next);
    shmem_set(&d, 2.5, next);
    shmem_quiet();
    CHECK(shmem_swap(&i, 4, next) == 1 && shmem_swap(&l, 5L, next) == 17);
    CHECK(shmem_swap(&ll, 6LL, next) == 3);
    CHECK(shmem_fetch(&f, next) == 1.5f && shmem_fetch(&d, next) == 2.5);
    CHECK(shmem_swap(&f, 3.5f, next) == 1.5f && shmem_swap(&d, 4.5, next) == 2.5);
    const int *ci = &i;
    CHECK(shmem_fetch(ci, next) == 4 && shmem_fetch(&l, next) == 5 && shmem_fetch(&ll, next) == 6);
    shmem_set(&i, 7, next);
    shmem_set(&l, 8L, next);
    shmem_set(&ll, 9LL, next);
    shmem_barrier_all();
    CHECK(i == 7 && l == 8 && ll == 9 && f == 3.5f && d == 4.5);

    /* The untyped waits of a long: the functions, not the C11 names of that spelling. */
    shmem_long_atomic_set(&flag, 1, next);
    (shmem_wait_until)(&flag, SHMEM_CMP_EQ, 1);
    shmem_long_atomic_set(&changed, 2, next);
    (shmem_wait)(&changed, 0);
    CHECK(flag == 1 && changed == 2);
    void (*wait_until)(long *, int, long) = shmem_wait_until;
    void (*wait)(long *, long) = shmem_wait;
    wait_until(&flag, SHMEM_CMP_GE, 1);
    wait(&changed, 0);

    shmem_barrier_all();
    printf("deprecated ok\n");
    shmem_finalize();
    return 0;
}
