/* Parts of the OpenSHMEM 1.5 interface that programs and test suites use and that are
 * easy to leave out: shmem_sync in its team and deprecated active-set forms, the C11
 * bitwise reductions on int8_t..int64_t, the deprecated short waits (typed and C11), the
 * deprecated C11 shmem_wait and float/double swap, fetch and set, the deprecated names
 * from before 1.2, shmem_pcontrol, and shmem_team_ptr (1.6). Each is
 * used, and what it computes checked. And the default heap holds the 256 MiB that OSU's
 * message-rate benchmarks need. Prints "interface ok" per PE. */
#include "check.h"

static long psync[SHMEM_BARRIER_SYNC_SIZE];
static short ready;
static int8_t i8, r8;
static int16_t i16, r16;
static int32_t i32, r32;
static int64_t i64, r64;
static long changed;
static float f;
static double d;

int main(void) {
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes());
    shmem_pcontrol(1);
    shmem_pcontrol(2, "more", 3);

    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
    shmem_sync(0, 0, npes, psync);

    /* Bit b of each value is set on PE b only: and is 0 beyond one PE, or and xor all. */
    i8 = (int8_t)(1 << me), i16 = (int16_t)(1 << me), i32 = 1 << me, i64 = 1L << me;
    int64_t all = (1L << npes) - 1, both = npes == 1 ? 1 : 0;
    CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, &r8, &i8, 1) == 0 && r8 == (int8_t)all);
    CHECK(shmem_xor_reduce(SHMEM_TEAM_WORLD, &r16, &i16, 1) == 0 && r16 == all);
    CHECK(shmem_and_reduce(SHMEM_TEAM_WORLD, &r32, &i32, 1) == 0 && r32 == both);
    CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, &r64, &i64, 1) == 0 && r64 == all);
    CHECK(shmem_int8_xor_reduce(SHMEM_TEAM_WORLD, &r8, &i8, 1) == 0 && r8 == (int8_t)all);

    /* A short passed round the PEs, waited for by the deprecated typed and C11 calls. */
    shmem_short_p(&ready, 1, (me + 1) % npes);
    shmem_short_wait_until(&ready, SHMEM_CMP_GE, 1);
    shmem_wait_until(&ready, SHMEM_CMP_EQ, 1);
    CHECK(shmem_test(&ready, SHMEM_CMP_EQ, 1));
    CHECK(shmem_short_test(&ready, SHMEM_CMP_EQ, 1));
    shmem_barrier_all();
    shmem_short_p(&ready, 2, (me + 1) % npes);
    shmem_short_wait(&ready, 1);
    CHECK(ready == 2);
    shmem_barrier_all();
    shmem_long_p(&changed, 7, (me + 1) % npes);
    shmem_wait(&changed, 0L);
    CHECK(changed == 7);

    /* The deprecated float and double atomics, on the next PE. */
    int next = (me + 1) % npes;
    shmem_barrier_all();
    shmem_float_set(&f, 1.5f, next);
    shmem_double_set(&d, 2.5, next);
    shmem_barrier_all();
    CHECK(shmem_float_fetch(&f, next) == 1.5f && shmem_double_fetch(&d, next) == 2.5);
    shmem_barrier_all();
    CHECK(shmem_float_swap(&f, 3.0f, next) == 1.5f && shmem_double_swap(&d, 4.0, next) == 2.5);
    shmem_barrier_all();
    CHECK(f == 3.0f && d == 4.0);

    long *block = shmalloc(4 * sizeof(long));
    CHECK(block != NULL);
    block[0] = me;
    block = shrealloc(block, 8 * sizeof(long));
    CHECK(block != NULL && block[0] == me);
    long *aligned = shmemalign(256, sizeof(long));
    CHECK(aligned != NULL && (uintptr_t)aligned % 256 == 0);
    /* shmem_team_ptr: this PE's own block through any team it is in; a peer's block is
     * reachable directly only on the same host. */
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, block, me) == block);
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, block, me) == NULL);
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, block, npes) == NULL);
    shmem_barrier_all();
    long *peer = shmem_team_ptr(SHMEM_TEAM_WORLD, block, (me + 1) % npes);
    CHECK(peer == shmem_ptr(block, (me + 1) % npes));
    if (peer != NULL) CHECK(*peer == (me + 1) % npes);
    shmem_barrier_all();
    shmem_set_cache_inv();
    shmem_clear_cache_inv();
    shmem_set_cache_line_inv(block);
    shmem_clear_cache_line_inv(block);
    shmem_udcflush();
    shmem_udcflush_line(block);
    shfree(aligned);
    shfree(block);

    /* The default heap: a 256 MiB block, its last byte put to the next PE. */
    size_t big = (size_t)256 << 20;
    char *huge = shmem_malloc(big);
    CHECK(huge != NULL);
    huge[big - 1] = 0;
    shmem_barrier_all();
    shmem_char_p(&huge[big - 1], (char)(me + 1), (me + 1) % npes);
    shmem_barrier_all();
    CHECK(huge[big - 1] == (char)((me + npes - 1) % npes + 1));
    shmem_free(huge);

    printf("interface ok\n");
    shmem_finalize();
    return 0;
}
