/* Bad use ends the job with a clear message: `bad_use addr` puts to a stack address,
 * `bad_use pe` to a PE past the end, `bad_use free` frees what shmem_malloc did not
 * return, `bad_use init` calls before shmem_init. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "init") == 0) {
        shmem_my_pe();
        return 0;
    }
    shmem_init();
    long *heap = shmem_malloc(sizeof(long));
    long local = 1;
    if (strcmp(what, "addr") == 0) shmem_long_put(&local, heap, 1, 0);
    if (strcmp(what, "pe") == 0) shmem_long_p(heap, 1, shmem_n_pes());
    if (strcmp(what, "free") == 0) shmem_free(heap + 1);
    shmem_finalize();
    printf("bad use not noticed\n");
    return 0;
}
