/* long double and complex: every RMA form of long double, and the reductions of both
 * types on a team and on an active set. Values use the bits that only 80-bit extended
 * precision holds, and every result is checked exactly. Prints "extended ok" once per PE. */
#include "check.h"
#include <complex.h>
#include <math.h>

long pSync[SHMEM_SYNC_SIZE];
long double pWrkL[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
double _Complex pWrkD[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
long double global_ld[4];

/* A value a double cannot hold: 1 + k * 2^-62 needs the 64-bit significand. */
static long double fine(int k) { return 1.0L + k * ldexpl(1.0L, -62); }

static void rma(int me, int npes) {
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long double *heap = shmem_malloc(8 * sizeof(long double));
    long double src[8];
    for (int i = 0; i < 8; i++) src[i] = fine(me * 8 + i);
    shmem_longdouble_p(&global_ld[0], fine(me), right);
    shmem_ctx_longdouble_p(SHMEM_CTX_DEFAULT, &global_ld[1], -fine(me), right);
    shmem_longdouble_put(heap, src, 8, right);
    shmem_barrier_all();
    CHECK(global_ld[0] == fine(left) && global_ld[1] == -fine(left));
    for (int i = 0; i < 8; i++) CHECK(heap[i] == fine(left * 8 + i));
    CHECK(shmem_longdouble_g(&heap[3], right) == fine(me * 8 + 3));
    CHECK(shmem_ctx_longdouble_g(SHMEM_CTX_DEFAULT, &global_ld[0], left) == fine((left + npes - 1) % npes));
    long double got[8] = {0};
    shmem_longdouble_get(got, heap, 8, left);
    for (int i = 0; i < 8; i++) CHECK(got[i] == fine(((left + npes - 1) % npes) * 8 + i));
    /* Strided: every other element of src into every third of the neighbour's heap. */
    shmem_barrier_all();
    shmem_longdouble_iput(heap, src, 3, 2, 3, right);
    shmem_barrier_all();
    for (int i = 0; i < 3; i++) CHECK(heap[3 * i] == fine(left * 8 + 2 * i));
    long double strided[8] = {0};
    shmem_longdouble_iget(strided, heap, 2, 3, 3, me);
    for (int i = 0; i < 3; i++) CHECK(strided[2 * i] == fine(left * 8 + 2 * i) && strided[2 * i + 1] == 0);
    shmem_barrier_all();
    shmem_free(heap);
}

static void reductions(int me, int npes) {
    long double *ls = shmem_malloc(2 * sizeof(long double)), *ld = shmem_malloc(2 * sizeof(long double));
    double _Complex *zs = shmem_malloc(2 * sizeof(double _Complex)), *zd = shmem_malloc(2 * sizeof(double _Complex));
    float _Complex *fs = shmem_malloc(2 * sizeof(float _Complex)), *fd = shmem_malloc(2 * sizeof(float _Complex));
    int tri = npes * (npes + 1) / 2;

    /* Sums of k * (1 + 2^-60): exact in 64 bits, rounded away in a double. */
    long double e = ldexpl(1.0L, -60);
    ls[0] = (me + 1) * (1 + e), ls[1] = -(me + 1);
    CHECK(shmem_longdouble_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, 2) == 0);
    CHECK(ld[0] == tri * (1 + e) && ld[1] == -tri);
    /* Product: (1 + 2^-58) on PE 0 times 2, 3, 4 on the others. */
    long double fact = 1;
    for (int k = 2; k <= npes; k++) fact *= k;
    ls[0] = me == 0 ? 1 + 4 * e : me + 1, ls[1] = 2;
    CHECK(shmem_longdouble_prod_reduce(SHMEM_TEAM_WORLD, ld, ls, 2) == 0);
    CHECK(ld[0] == fact * (1 + 4 * e) && ld[1] == ldexpl(1.0L, npes));
    ls[0] = fine(me), ls[1] = -fine(me);
    CHECK(shmem_longdouble_min_reduce(SHMEM_TEAM_WORLD, ld, ls, 2) == 0);
    CHECK(ld[0] == fine(0) && ld[1] == -fine(npes - 1));
    CHECK(shmem_longdouble_max_reduce(SHMEM_TEAM_WORLD, ld, ls, 2) == 0);
    CHECK(ld[0] == fine(npes - 1) && ld[1] == -fine(0));

    /* Complex: sums and products of small Gaussian integers are exact. */
    double _Complex zsum = 0, zprod = 1;
    float _Complex fprod = 1;
    for (int p = 0; p < npes; p++) zsum += (p + 1) + 2.0 * p * I, zprod *= (p + 1) + 1.0 * I, fprod *= 1.0f - (float)p * I;
    zs[0] = (me + 1) + 2.0 * me * I, zs[1] = (me + 1) + 1.0 * I;
    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zd, zs, 1) == 0);
    CHECK(zd[0] == zsum);
    CHECK(shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, zd, zs + 1, 1) == 0);
    CHECK(zd[0] == zprod && cimag(zprod) != 0);
    fs[0] = 1.0f - (float)me * I, fs[1] = (float)me * I;
    CHECK(shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fd, fs, 1) == 0);
    CHECK(fd[0] == fprod);
    CHECK(shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fd, fs + 1, 1) == 0);
    CHECK(fd[0] == (float)(npes * (npes - 1) / 2) * I);

    /* The same through the active-set forms, on the whole job. */
    ls[0] = (me + 1) * (1 + e), ls[1] = fine(me);
    shmem_longdouble_sum_to_all(ld, ls, 1, 0, 0, npes, pWrkL, pSync);
    CHECK(ld[0] == tri * (1 + e));
    shmem_barrier_all();
    shmem_longdouble_max_to_all(ld, ls + 1, 1, 0, 0, npes, pWrkL, pSync);
    CHECK(ld[0] == fine(npes - 1));
    shmem_barrier_all();
    shmem_longdouble_min_to_all(ld, ls + 1, 1, 0, 0, npes, pWrkL, pSync);
    CHECK(ld[0] == fine(0));
    shmem_barrier_all();
    ls[0] = me == 0 ? 1 + 4 * e : me + 1;
    shmem_longdouble_prod_to_all(ld, ls, 1, 0, 0, npes, pWrkL, pSync);
    CHECK(ld[0] == fact * (1 + 4 * e));
    shmem_barrier_all();
    shmem_complexd_sum_to_all(zd, zs, 1, 0, 0, npes, pWrkD, pSync);
    CHECK(zd[0] == zsum);
    shmem_barrier_all();
    shmem_complexd_prod_to_all(zd, zs + 1, 1, 0, 0, npes, pWrkD, pSync);
    CHECK(zd[0] == zprod);
    shmem_barrier_all();
    shmem_complexf_prod_to_all(fd, fs, 1, 0, 0, npes, (float _Complex *)pWrkD, pSync);
    CHECK(fd[0] == fprod);
    shmem_barrier_all();
    shmem_complexf_sum_to_all(fd, fs + 1, 1, 0, 0, npes, (float _Complex *)pWrkD, pSync);
    CHECK(fd[0] == (float)(npes * (npes - 1) / 2) * I);
    shmem_barrier_all();
    shmem_free(ls), shmem_free(ld), shmem_free(zs), shmem_free(zd), shmem_free(fs), shmem_free(fd);
}

int main(void) {
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) pSync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    /* The test means nothing if long double is a double. */
    CHECK(fine(1) != 1.0L && (double)fine(1) == 1.0);
    rma(me, npes);
    reductions(me, npes);
    printf("extended ok\n");
    shmem_finalize();
    return 0;
}
