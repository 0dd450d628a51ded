/* The C11 generic names: RMA, atomics, waits and team collectives chosen by the type of
 * their buffer, with and without a context first. Every use compiles all of a name's
 * choices, so a missing typed function fails the build. Prints "generic ok" once per PE. */
#include "check.h"
#include <complex.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "this test needs C11"
#endif

long counter;
unsigned int bits;
double dglobal;
short sglobal[6];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    long double *ld = shmem_malloc(4 * sizeof(long double));
    float *f = shmem_malloc(4 * sizeof(float));
    unsigned long long *flag = shmem_calloc(1, sizeof(unsigned long long));
    int *ints = shmem_malloc(4 * sizeof(int));

    /* RMA: the element type picks the function. */
    float fsrc[4] = {me + 0.5f, me + 1.5f, me + 2.5f, me + 3.5f};
    shmem_put(f, fsrc, 4, right);
    shmem_p(&dglobal, me * 2.25, right);
    shmem_p(ctx, &ld[0], (long double)me + 0.125L, right);
    short ssrc[3] = {(short)me, (short)-me, (short)(me + 7)};
    shmem_iput(ctx, sglobal, ssrc, 2, 1, 3, right);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++) CHECK(f[i] == left + i + 0.5f);
    CHECK(dglobal == left * 2.25 && ld[0] == (long double)left + 0.125L);
    CHECK(sglobal[0] == left && sglobal[2] == -left && sglobal[4] == left + 7);
    const float *cf = f;
    CHECK(shmem_g(cf, right) == me + 0.5f && shmem_g(ctx, &dglobal, left) == ((left + npes - 1) % npes) * 2.25);
    float fget[4];
    shmem_get(ctx, fget, f, 4, left);
    shmem_get_nbi(fget, f, 2, left);
    shmem_quiet();
    for (int i = 0; i < 4; i++) CHECK(fget[i] == (left + npes - 1) % npes + i + 0.5f);
    short sget[3];
    shmem_iget(sget, sglobal, 1, 2, 3, me);
    CHECK(sget[0] == left && sget[1] == -left && sget[2] == left + 7);
    shmem_barrier_all();

    /* Atomics on a global and the heap, then point-to-point waits. */
    shmem_atomic_add(&counter, (long)me + 1, 0);
    shmem_atomic_inc(ctx, &counter, 0);
    shmem_atomic_or(&bits, 1u << me, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_atomic_fetch(&counter, 0) == npes * (npes + 1) / 2 + npes);
        CHECK(shmem_atomic_fetch_and(ctx, &bits, 1u, 0) == (1u << npes) - 1);
        CHECK(shmem_atomic_compare_swap(&counter, (long)(npes * (npes + 1) / 2 + npes), -1L, 0) ==
              npes * (npes + 1) / 2 + npes);
        CHECK(shmem_atomic_swap(ctx, &counter, 5L, 0) == -1 && bits == 1u);
        long fetched = 0;
        shmem_atomic_fetch_add_nbi(&fetched, &counter, 2L, 0);
        shmem_quiet();
        CHECK(fetched == 5 && counter == 7);
    }
    shmem_atomic_set(ctx, flag, 10ull + (unsigned long long)me, right);
    shmem_wait_until(flag, SHMEM_CMP_EQ, 10ull + (unsigned long long)left);
    CHECK(shmem_test(flag, SHMEM_CMP_GE, 10ull));
    CHECK(shmem_atomic_fetch_inc(ctx, flag, me) == 10ull + (unsigned long long)left);
    size_t idx;
    CHECK(shmem_test_some(flag, 1, &idx, NULL, SHMEM_CMP_GT, 10ull + (unsigned long long)left) == 1 && idx == 0);
    shmem_barrier_all();

    /* Team collectives: the buffer after the team picks the function. */
    ints[0] = me + 1, ints[1] = 1 << me;
    int isum[2];
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, isum, ints, 1) == 0 && isum[0] == npes * (npes + 1) / 2);
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, isum, ints, 2) == 0 && isum[0] == npes && isum[1] == 1 << (npes - 1));
    unsigned char *u = shmem_malloc(2);
    unsigned char uout[2];
    u[0] = (unsigned char)(1u << me), u[1] = 0xff;
    CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, uout, u, 2) == 0 && uout[0] == (1u << npes) - 1 && uout[1] == 0xff);
    double _Complex *z = shmem_malloc(sizeof(double _Complex)), zout;
    *z = 1.0 * I;
    CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, &zout, z, 1) == 0);
    double _Complex zwant = 1;
    for (int p = 0; p < npes; p++) zwant *= 1.0 * I;
    CHECK(zout == zwant);
    int all[64];
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, all, ints, 1) == 0);
    for (int p = 0; p < npes; p++) CHECK(all[p] == p + 1);
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, ints, ints, 2, npes - 1) == 0 && ints[0] == npes);

    shmem_barrier_all();
    shmem_free(z), shmem_free(u), shmem_free(ints), shmem_free(flag), shmem_free(f), shmem_free(ld);
    printf("generic ok\n");
    shmem_finalize();
    return 0;
}
