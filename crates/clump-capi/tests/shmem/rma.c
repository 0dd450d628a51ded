/* The symmetric heap and remote memory access: every put and get form on the heap and on
 * global and static variables, shmem_ptr, contexts, and the setup queries. Each PE puts to
 * its right neighbour and gets from its left; prints "rma ok" once per PE. */
#include "check.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 3000 /* bigger than one message carries, so puts and gets are split */

long global_array[N];           /* .bss */
int global_init[4] = {1, 2, 3, 4}; /* .data */
static double static_value;

static long pattern(int pe, int i) { return (long)pe * 1000003L + i; }

/* Byte i of PE pe's large block: varies within and across pages and PEs. */
static unsigned char byte_at(int pe, size_t i) { return (unsigned char)(pe * 31 + i * 7 + i / 4096); }

/* A get of several MiB into memory off the heap: from another host it comes as more 1 MiB
 * pieces than the four in flight at once, each landing in the segment first. */
static void large_get(int me, int right) {
    size_t big = (6u << 20) + 40;
    unsigned char *block = shmem_malloc(big), *copy = malloc(big);
    CHECK(block && copy);
    for (size_t i = 0; i < big; i++) block[i] = byte_at(me, i);
    shmem_barrier_all();
    shmem_getmem(copy, block, big, right);
    for (size_t i = 0; i < big; i++)
        if (copy[i] != byte_at(right, i)) CHECK(copy[i] == byte_at(right, i));
    shmem_barrier_all(); /* every PE's get is done before any block is freed */
    shmem_free(block);
    free(copy);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == 1 && minor == 5 && strcmp(name, "clump") == 0);
    CHECK(shmem_pe_accessible(right) && !shmem_pe_accessible(npes));

    /* The heap: same addresses everywhere, zeroed calloc, aligned blocks, realloc. */
    long *a = shmem_malloc(N * sizeof(long));
    long *b = shmem_calloc(N, sizeof(long));
    void *aligned = shmem_align(4096, 100);
    CHECK(a && b && aligned && ((uintptr_t)aligned % 4096) == 0);
    CHECK(shmem_malloc(0) == NULL);
    for (int i = 0; i < N; i++) CHECK(b[i] == 0);
    CHECK(shmem_addr_accessible(a, right) && shmem_addr_accessible(global_array, right));
    int on_stack = 0;
    CHECK(!shmem_addr_accessible(&on_stack, right));

    long mine[N];
    for (int i = 0; i < N; i++) mine[i] = pattern(me, i);
    shmem_long_put(a, mine, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(a[i] == pattern(left, i));
    long back[N];
    shmem_long_get(back, a, N, right);
    for (int i = 0; i < N; i++) CHECK(back[i] == mine[i]);
    large_get(me, right);

    /* Sized, byte and non-blocking forms, completed by quiet. */
    shmem_putmem(b, mine, 24, right);
    shmem_put64(b + 3, mine + 3, 2, right);
    shmem_put32(b + 5, mine + 5, 2, right);      /* 2 x 4 bytes = one long */
    shmem_put128(b + 6, mine + 6, 1, right);     /* 16 bytes = two longs */
    shmem_put8_nbi(b + 8, mine + 8, 8, right);
    shmem_put16_nbi(b + 9, mine + 9, 4, right);
    shmem_long_put_nbi(b + 10, mine + 10, 10, right);
    shmem_ctx_long_put(SHMEM_CTX_DEFAULT, b + 20, mine + 20, 5, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 25; i++) CHECK(b[i] == pattern(left, i));
    long got[25];
    shmem_getmem(got, b, 8, right);
    shmem_get64_nbi(got + 1, b + 1, 9, right);
    shmem_get32(got + 10, b + 10, 10, right);
    shmem_ctx_long_get_nbi(SHMEM_CTX_DEFAULT, got + 15, b + 15, 10, right);
    shmem_quiet();
    for (int i = 0; i < 25; i++) CHECK(got[i] == mine[i]);

    /* Single elements and strides. */
    shmem_int_p((int *)aligned, 7000 + me, right);
    shmem_double_p(&static_value, 0.5 + me, right);
    shmem_barrier_all();
    CHECK(*(int *)aligned == 7000 + left && static_value == 0.5 + left);
    CHECK(shmem_int_g((int *)aligned, right) == 7000 + me);
    CHECK(shmem_double_g(&static_value, left) == 0.5 + (left + npes - 1) % npes);
    long strided[10] = {0};
    shmem_long_iput(b + 100, mine, 2, 3, 5, right); /* b[100+2k] = mine[3k] */
    shmem_barrier_all();
    for (int k = 0; k < 5; k++) CHECK(b[100 + 2 * k] == pattern(left, 3 * k));
    shmem_long_iget(strided, b + 100, 2, 2, 5, right); /* strided[2k] = b[100+2k] there */
    for (int k = 0; k < 5; k++) CHECK(strided[2 * k] == pattern(me, 3 * k));
    shmem_iput32(aligned, mine, 1, 2, 1, right);
    shmem_barrier_all();
    CHECK(*(int32_t *)aligned == (int32_t)pattern(left, 0));

    /* Global and static variables: .bss, .data, through a context. */
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    shmem_team_t ctx_team;
    CHECK(shmem_ctx_get_team(ctx, &ctx_team) == 0 && ctx_team == SHMEM_TEAM_WORLD);
    shmem_ctx_long_put(ctx, global_array, mine, N, right);
    shmem_ctx_int_p(ctx, &global_init[2], 300 + me, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(global_array[i] == pattern(left, i));
    CHECK(global_init[0] == 1 && global_init[2] == 300 + left && global_init[3] == 4);
    long from_global[N];
    shmem_long_get(from_global, global_array, N, left);
    for (int i = 0; i < N; i++) CHECK(from_global[i] == pattern((left + npes - 1) % npes, i));

    /* shmem_ptr: this PE always, a same-host peer's heap when mapped, never its globals. */
    CHECK(shmem_ptr(a, me) == a);
    long *peer = shmem_ptr(a, right);
    if (peer) CHECK(peer[5] == pattern(me, 5));
    CHECK(right == me || shmem_ptr(global_array, right) == NULL);

    /* realloc keeps the contents; free gives the space back for the next allocation. */
    shmem_barrier_all();
    long *c = shmem_realloc(a, 2 * N * sizeof(long));
    CHECK(c != NULL);
    for (int i = 0; i < N; i++) CHECK(c[i] == pattern(left, i));
    shmem_free(c);
    shmem_free(b);
    shmem_free(aligned);
    void *again = shmem_malloc(N * sizeof(long));
    CHECK(again != NULL);
    shmem_free(again);

    shmem_finalize();
    printf("rma ok\n");
    return 0;
}
