/* Bad use ends the job with a clear message: `bad_use addr` puts to a stack address,
 * `bad_use pe` to a PE past the end, `bad_use team_pe` through a context of a team of
 * one to its team PE 1 (world PE 1 exists), `bad_use free` frees what shmem_malloc did not
 * return, `bad_use init` calls before shmem_init, `bad_use thread` asks for
 * SHMEM_THREAD_FUNNELED, is told so, and calls from a second thread. */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static void *other_thread(void *arg) {
    (void)arg;
    shmem_my_pe();
    return NULL;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "init") == 0) {
        shmem_my_pe();
        return 0;
    }
    if (strcmp(what, "thread") == 0) {
        int provided = -1, queried = -1;
        shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided);
        shmem_query_thread(&queried);
        if (provided != SHMEM_THREAD_FUNNELED || queried != SHMEM_THREAD_FUNNELED) {
            printf("thread level %d (queried %d) is not FUNNELED\n", provided, queried);
            return 0;
        }
        pthread_t t;
        pthread_create(&t, NULL, other_thread, NULL);
        pthread_join(t, NULL);
        shmem_finalize();
        printf("bad use not noticed\n");
        return 0;
    }
    shmem_init();
    long *heap = shmem_malloc(sizeof(long));
    long local = 1;
    if (strcmp(what, "addr") == 0) shmem_long_put(&local, heap, 1, 0);
    if (strcmp(what, "pe") == 0) shmem_long_p(heap, 1, shmem_n_pes());
    if (strcmp(what, "team_pe") == 0) {
        shmem_team_t first;
        shmem_ctx_t ctx;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &first);
        if (shmem_team_create_ctx(first, 0, &ctx) == 0) shmem_ctx_long_p(ctx, heap, 1, 1);
    }
    if (strcmp(what, "free") == 0) shmem_free(heap + 1);
    shmem_finalize();
    printf("bad use not noticed\n");
    return 0;
}
