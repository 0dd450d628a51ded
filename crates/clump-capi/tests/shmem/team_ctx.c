/* A context created on a team numbers PEs in that team (OpenSHMEM 1.5 §9.4): the odd
 * world PEs form a team, and each puts, gets, adds and signals to the next member by its
 * team number through a context of that team; the even PEs must see none of it. A context
 * on SHMEM_TEAM_SHARED reaches team PE 0 of this host. shmem_team_ptr and the other
 * team-relative calls give NULL or -1 at their edges. Prints "team ctx ok" per PE. */
#include "check.h"

#define N 4

static long slot = -1, ident, row[N], strided[2 * N], counter, from_shared = -1;
static uint64_t sig;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *heap = shmem_malloc(sizeof(long));
    *heap = me;
    ident = me;
    for (int i = 0; i < N; i++) row[i] = -1;
    for (int i = 0; i < 2 * N; i++) strided[i] = -1;
    shmem_barrier_all();

    shmem_team_t odd = SHMEM_TEAM_INVALID;
    int made = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    CHECK(npes < 2 ? made != 0 : made == 0);
    CHECK((odd != SHMEM_TEAM_INVALID) == (me % 2 == 1));
    if (odd != SHMEM_TEAM_INVALID) {
        int t = shmem_team_my_pe(odd), tn = shmem_team_n_pes(odd);
        CHECK(t == me / 2 && tn == npes / 2);
        int right = (t + 1) % tn, left = (t + tn - 1) % tn;
        int right_world = 2 * right + 1, left_world = 2 * left + 1;
        CHECK(shmem_team_translate_pe(odd, right, SHMEM_TEAM_WORLD) == right_world);

        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        CHECK(shmem_team_create_ctx(odd, 0, &ctx) == 0);
        shmem_team_t of = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &of) == 0 && of == odd);
        long values[N] = {me, me + 1, me + 2, me + 3};
        shmem_ctx_long_p(ctx, &slot, me, right);
        shmem_ctx_long_put(ctx, row, values, N, right);
        shmem_ctx_long_iput(ctx, strided, values, 2, 1, N, right);
        shmem_ctx_long_atomic_add(ctx, &counter, me, right);
        CHECK(shmem_ctx_long_atomic_fetch_add(ctx, &counter, 1, right) >= 0);
        CHECK(shmem_ctx_long_g(ctx, &ident, right) == right_world);
        CHECK(shmem_ctx_long_g(ctx, heap, right) == right_world);
        long got[N];
        shmem_ctx_long_get(ctx, got, &ident, 1, left);
        CHECK(got[0] == left_world);
        shmem_ctx_quiet(ctx);
        shmem_ctx_uint64_atomic_add(ctx, &sig, 1, right);
        shmem_ctx_quiet(ctx);
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
        CHECK(shmem_team_sync(odd) == 0);

        /* What the left member sent by its team number arrived here. */
        CHECK(slot == left_world);
        CHECK(counter == left_world + 1);
        for (int i = 0; i < N; i++) {
            CHECK(row[i] == left_world + i);
            CHECK(strided[2 * i] == left_world + i && strided[2 * i + 1] == -1);
        }

        /* shmem_team_ptr numbers PEs in its team; NULL past the team's end, below 0 and
         * on an invalid team. */
        CHECK(shmem_team_ptr(odd, heap, t) == heap);
        CHECK(shmem_team_ptr(odd, heap, right) == shmem_ptr(heap, right_world));
        CHECK(shmem_team_ptr(odd, heap, tn) == NULL);
        CHECK(shmem_team_ptr(odd, heap, -1) == NULL);
        CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, heap, 0) == NULL);
        CHECK(shmem_team_translate_pe(odd, tn, SHMEM_TEAM_WORLD) == -1);
        CHECK(shmem_team_translate_pe(odd, -1, SHMEM_TEAM_WORLD) == -1);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, odd) == -1); /* 0 is even */
        shmem_ctx_destroy(ctx);
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();
    /* The even PEs were never a target. */
    if (me % 2 == 0) {
        CHECK(slot == -1 && counter == 0 && sig == 0);
        for (int i = 0; i < N; i++) CHECK(row[i] == -1);
    }

    /* A context on this host's team: team PE 0 is the host's first PE. */
    shmem_ctx_t shared;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &shared) == 0);
    int first = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    CHECK(first >= 0 && first <= me);
    CHECK(shmem_ctx_long_g(shared, &ident, 0) == first);
    CHECK(shmem_ctx_long_atomic_fetch_add(shared, &from_shared, 0, 0) == -1);
    shmem_ctx_destroy(shared);

    printf("team ctx ok\n");
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
