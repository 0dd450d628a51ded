/* Teams and collectives: broadcast, collect, fcollect, alltoall(s) and reductions on
 * SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and split teams, and the active-set forms with
 * pSync. Prints "collectives ok" once per PE. */
#include "check.h"
#include <stdint.h>

long pSync[SHMEM_SYNC_SIZE];
long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 16];

int main(void) {
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) pSync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *src = shmem_malloc(64 * sizeof(int));
    int *dst = shmem_malloc(64 * 64 * sizeof(int));
    long *lsrc = shmem_malloc(8 * sizeof(long));
    long *ldst = shmem_malloc(8 * sizeof(long));
    double *dsrc = shmem_malloc(2 * sizeof(double));
    double *ddst = shmem_malloc(2 * sizeof(double));
    for (int i = 0; i < 64; i++) src[i] = me * 100 + i;

    /* World team. */
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
    int root = npes - 1;
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 5, root) == 0);
    for (int i = 0; i < 5; i++) CHECK(dst[i] == root * 100 + i);
    CHECK(shmem_int_fcollect(SHMEM_TEAM_WORLD, dst, src, 3) == 0);
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < 3; i++) CHECK(dst[pe * 3 + i] == pe * 100 + i);
    /* Large fcollects (on one host, each PE's block goes straight into every heap), twice
     * in a row with different data, so a PE that is ahead must not overwrite the first. */
    enum { BIG = 40000 }; /* 160 KB: above every size from which they go straight */
    int *bsrc = shmem_malloc(BIG * sizeof(int));
    int *bdst = shmem_malloc((size_t)BIG * npes * sizeof(int));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < BIG; i++) bsrc[i] = round * 1000000 + me * BIG + i;
        CHECK(shmem_int_fcollect(SHMEM_TEAM_WORLD, bdst, bsrc, BIG) == 0);
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < BIG; i++)
                CHECK(bdst[pe * BIG + i] == round * 1000000 + pe * BIG + i);
    }
    /* Large broadcast, alltoall and reductions (on one host, straight between the heaps),
     * each twice in a row with different data; the reductions on element counts that do
     * not divide among the PEs, out of place and in place. */
    for (int round = 0; round < 2; round++) {
        int broot = (round + 1) % npes;
        for (int i = 0; i < BIG; i++) bsrc[i] = round * 1000000 + me * BIG + i;
        CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, BIG - round, broot) == 0);
        for (int i = 0; i < BIG - round; i++) CHECK(bdst[i] == round * 1000000 + broot * BIG + i);
        int block = BIG / npes;
        CHECK(shmem_int_alltoall(SHMEM_TEAM_WORLD, bdst, bsrc, block) == 0);
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < block; i++)
                CHECK(bdst[pe * block + i] == round * 1000000 + pe * BIG + me * block + i);
        int n = BIG - 1 - round;
        CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, bdst, bsrc, n) == 0);
        for (int i = 0; i < n; i++)
            CHECK(bdst[i] == npes * (round * 1000000 + i) + BIG * npes * (npes - 1) / 2);
        CHECK(shmem_int_max_reduce(SHMEM_TEAM_WORLD, bsrc, bsrc, n) == 0);
        for (int i = 0; i < n; i++) CHECK(bsrc[i] == round * 1000000 + (npes - 1) * BIG + i);
    }
    double *dbig = shmem_malloc(BIG * sizeof(double));
    for (int i = 0; i < BIG; i++) dbig[i] = me + 0.5;
    CHECK(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dbig, dbig, BIG) == 0);
    for (int i = 0; i < BIG; i++) CHECK(dbig[i] == npes * npes / 2.0);
    shmem_free(dbig);
    shmem_free(bdst);
    shmem_free(bsrc);
    /* collect: PE p contributes p+1 elements. */
    CHECK(shmem_int_collect(SHMEM_TEAM_WORLD, dst, src, me + 1) == 0);
    int at = 0;
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i <= pe; i++) CHECK(dst[at++] == pe * 100 + i);
    /* alltoall: block j of each source goes to PE j. */
    for (int j = 0; j < npes; j++) src[2 * j] = me * 1000 + j, src[2 * j + 1] = -me;
    CHECK(shmem_int_alltoall(SHMEM_TEAM_WORLD, dst, src, 2) == 0);
    for (int i = 0; i < npes; i++) CHECK(dst[2 * i] == i * 1000 + me && dst[2 * i + 1] == -i);
    /* alltoalls with strides 3 (dest) and 2 (source), one element per PE. */
    for (int j = 0; j < npes; j++) src[2 * j] = me * 1000 + j;
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 3, 2, 1) == 0);
    for (int i = 0; i < npes; i++) CHECK(dst[3 * i] == i * 1000 + me);
    /* One side contiguous, the other strided: each side copies its own way. */
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, 2, 1) == 0);
    for (int i = 0; i < npes; i++) CHECK(dst[i] == i * 1000 + me);
    for (int j = 0; j < npes; j++) src[j] = me * 1000 + j;
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 2, 1, 1) == 0);
    for (int i = 0; i < npes; i++) CHECK(dst[2 * i] == i * 1000 + me);
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, "hello", 6, 0) == 0);
    CHECK(((char *)dst)[0] == 'h' && ((char *)dst)[5] == 0);

    /* Reductions. */
    for (int i = 0; i < 8; i++) lsrc[i] = me + i;
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 8) == 0);
    for (int i = 0; i < 8; i++) CHECK(ldst[i] == (long)npes * (npes - 1) / 2 + (long)npes * i);
    CHECK(shmem_long_max_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 8) == 0);
    CHECK(ldst[0] == npes - 1 && ldst[7] == npes + 6);
    CHECK(shmem_long_min_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 1) == 0 && ldst[0] == 0);
    dsrc[0] = 2.0;
    dsrc[1] = me + 0.5;
    CHECK(shmem_double_prod_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 1) == 0);
    CHECK(ddst[0] == (double)(1u << npes));
    CHECK(shmem_double_max_reduce(SHMEM_TEAM_WORLD, ddst + 1, dsrc + 1, 1) == 0);
    CHECK(ddst[1] == npes - 0.5);
    uint64_t *u = shmem_malloc(2 * sizeof(uint64_t));
    u[0] = (uint64_t)1 << me;
    CHECK(shmem_uint64_or_reduce(SHMEM_TEAM_WORLD, u + 1, u, 1) == 0);
    CHECK(u[1] == ((uint64_t)1 << npes) - 1);
    CHECK(shmem_uint64_and_reduce(SHMEM_TEAM_WORLD, u + 1, u, 1) == 0);
    CHECK(u[1] == (npes == 1 ? 1u : 0u));

    /* The shared team holds this PE and the others of its host. */
    int shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(shared_n >= 1 && shared_n <= npes);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED), SHMEM_TEAM_WORLD) == me);
    CHECK(shmem_team_sync(SHMEM_TEAM_SHARED) == 0);
    lsrc[0] = 1;
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_SHARED, ldst, lsrc, 1) == 0 && ldst[0] == shared_n);

    /* Split: the even PEs, then a 2D grid of rows of 2. */
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0);
    if (me % 2 == 0) {
        CHECK(even != SHMEM_TEAM_INVALID && shmem_team_my_pe(even) == me / 2);
        CHECK(shmem_team_translate_pe(even, 1, SHMEM_TEAM_WORLD) == (npes > 2 ? 2 : -1));
        lsrc[0] = me;
        CHECK(shmem_long_sum_reduce(even, ldst, lsrc, 1) == 0);
        long want = 0;
        for (int pe = 0; pe < npes; pe += 2) want += pe;
        CHECK(ldst[0] == want);
        CHECK(shmem_int_broadcast(even, dst, src, 1, 0) == 0 && dst[0] == 0);
        shmem_team_destroy(even);
    } else {
        CHECK(even == SHMEM_TEAM_INVALID);
    }
    shmem_team_t row, column;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &column) == 0);
    CHECK(shmem_team_my_pe(row) == me % 2 && shmem_team_my_pe(column) == me / 2);
    CHECK(shmem_int_fcollect(row, dst, &me, 1) == 0);
    CHECK(dst[me % 2] == me);
    CHECK(shmem_int_fcollect(column, dst, &me, 1) == 0);
    for (int i = 0; i < shmem_team_n_pes(column); i++) CHECK(dst[i] == me % 2 + 2 * i);
    shmem_team_destroy(row);
    shmem_team_destroy(column);

    /* Active sets: all PEs, then the odd ones. */
    shmem_barrier(0, 0, npes, pSync);
    lsrc[0] = me;
    shmem_long_sum_to_all(ldst, lsrc, 1, 0, 0, npes, pWrk, pSync);
    CHECK(ldst[0] == (long)npes * (npes - 1) / 2);
    ldst[0] = -1;
    lsrc[0] = 77;
    shmem_broadcast64(ldst, lsrc, 1, 0, 0, 0, npes, pSync);
    CHECK(me == 0 ? ldst[0] == -1 : ldst[0] == 77);
    shmem_fcollect32(dst, &me, 1, 0, 0, npes, pSync);
    for (int pe = 0; pe < npes; pe++) CHECK(dst[pe] == pe);
    if (npes >= 2 && me % 2 == 1) {
        int odd = npes / 2;
        shmem_int_max_to_all(dst, &me, 1, 1, 1, odd, (int *)pWrk, pSync);
        CHECK(dst[0] == 2 * odd - 1);
        shmem_barrier(1, 1, odd, pSync);
    }
    shmem_barrier_all();
    shmem_finalize();
    printf("collectives ok\n");
    return 0;
}
