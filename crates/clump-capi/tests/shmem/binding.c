/* Where shmem_init leaves each PE: `bound` (each on one CPU of its own, no two PEs of this
 * machine on the same one) or `free` (on every CPU it was allowed before). With `thread`
 * it starts through shmem_init_thread(SHMEM_THREAD_MULTIPLE), whose threads would all
 * share one core if it bound. Every PE prints "binding ok". */
#define _GNU_SOURCE
#include "check.h"
#include <sched.h>
#include <string.h>
#include <unistd.h>

static long cpu[1], all_cpus[64];

int main(int argc, char **argv) {
    CHECK(argc >= 2);
    int bound = strcmp(argv[1], "bound") == 0;
    cpu_set_t before, after;
    CHECK(sched_getaffinity(0, sizeof before, &before) == 0);
    int provided;
    if (argc > 2 && strcmp(argv[2], "thread") == 0)
        CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    else
        shmem_init();
    CHECK(shmem_n_pes() <= 64);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0);
    if (bound) {
        CHECK(CPU_COUNT(&after) == 1);
        CHECK(CPU_ISSET(sched_getcpu(), &before));
        cpu[0] = sched_getcpu();
        shmem_long_fcollect(SHMEM_TEAM_WORLD, all_cpus, cpu, 1);
        /* The test runs every PE on one machine. */
        for (int p = 0; p < shmem_n_pes(); p++)
            CHECK(p == shmem_my_pe() || all_cpus[p] != cpu[0]);
    } else {
        CHECK(CPU_EQUAL(&before, &after));
    }
    shmem_barrier_all();
    printf("binding ok\n");
    shmem_finalize();
    return 0;
}
