/* Teams and contexts at the edges OpenSHMEM 1.5 defines: SHMEM_TEAM_INVALID and
 * SHMEM_CTX_INVALID give a no-op or a nonzero return, never the end of the job; strided
 * splits take negative strides; shmem_team_get_config returns what the team was created
 * with. Prints "team edges ok" per PE. */
#include "check.h"

static long value;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    shmem_team_destroy(SHMEM_TEAM_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);

    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0);
    CHECK(ctx == SHMEM_CTX_INVALID);
    shmem_team_t team = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0);
    CHECK(team == SHMEM_TEAM_INVALID);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0);
    CHECK(team == SHMEM_TEAM_WORLD);

    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0);
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &x) != 0);
    CHECK(x == SHMEM_TEAM_INVALID);

    /* The world backwards: team PE i is world PE npes-1-i. */
    shmem_team_t back;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &back) == 0);
    CHECK(shmem_team_my_pe(back) == npes - 1 - me);
    CHECK(shmem_team_translate_pe(back, 0, SHMEM_TEAM_WORLD) == npes - 1);
    value = me == npes - 1 ? 42 : 0;
    static long got;
    CHECK(shmem_long_broadcast(back, &got, &value, 1, 0) == 0);
    CHECK(got == 42);
    shmem_team_destroy(back);

    /* Every other PE from the last, down: stride -2. */
    shmem_team_t odd;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -2, (npes + 1) / 2, NULL, 0,
                                   &odd) == 0);
    int in = (npes - 1 - me) % 2 == 0;
    CHECK(shmem_team_my_pe(odd) == (in ? (npes - 1 - me) / 2 : -1));
    if (in) CHECK(shmem_team_sync(odd) == 0);
    shmem_team_destroy(odd);
    /* A triplet that leaves the parent is refused with a nonzero return. */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &x) != 0);
    CHECK(x == SHMEM_TEAM_INVALID);

    shmem_team_config_t config = {.num_contexts = 3}, got_config = {.num_contexts = -1};
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &got_config) == 0);
    CHECK(got_config.num_contexts == 0);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &got_config) != 0);
    shmem_team_t three, zero;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &config,
                                   SHMEM_TEAM_NUM_CONTEXTS, &three) == 0);
    CHECK(shmem_team_get_config(three, SHMEM_TEAM_NUM_CONTEXTS, &got_config) == 0);
    CHECK(got_config.num_contexts == 3);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &config, 0, &zero) == 0);
    CHECK(shmem_team_get_config(zero, SHMEM_TEAM_NUM_CONTEXTS, &got_config) == 0);
    CHECK(got_config.num_contexts == 0);
    shmem_team_destroy(three);
    shmem_team_destroy(zero);

    printf("team edges ok\n");
    shmem_finalize();
    return 0;
}
