/* A program that asks for SHMEM_THREAD_MULTIPLE is granted it and, as test suites do,
 * ends the job with shmem_global_exit: cleanly, on every placement, although its state
 * is shared behind the process lock. Prints "granted" per PE. */
#include "check.h"

int main(void) {
    int provided = -1, queried = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    shmem_query_thread(&queried);
    CHECK(provided == SHMEM_THREAD_MULTIPLE && queried == provided);
    printf("granted\n");
    fflush(stdout);
    shmem_barrier_all();
    shmem_global_exit(3);
}
