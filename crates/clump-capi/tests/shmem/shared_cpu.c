/* Every PE of this host on one CPU, as a loaded machine queues an unbound job's PEs: a
 * PE that waits must let the CPU go to the PE it waits for soon, not spin a budget meant
 * for a core of its own. Small broadcasts with barriers, then a ping-pong of puts each
 * watched by shmem_wait_until, must each cost a PE little CPU time: spinning 2 ms per
 * wait costs about a millisecond a round. Over shared memory, a PE that wakes a PE asleep
 * on its CPU, or is woken by one, must not spin at all before it sleeps: that PE cannot
 * run meanwhile, so barriers alone must cost little CPU per round of messages (spinning
 * CLUMP_SPIN_US, 50 us, at each cost 33-35 us a barrier at 2 PEs, 73-82 at 4; without
 * the spin 7 and 20). Every PE prints "shared cpu ok". */
#define _GNU_SOURCE
#include "check.h"
#include <sched.h>
#include <sys/resource.h>

#define ROUNDS 200
/* CPU time a PE may spend per round, in microseconds (a sleep and a wake-up cost tens). */
#define LIMIT_US 400.0
/* CPU time a PE may spend per round of a barrier's messages over shared memory. */
#define BARRIER_ROUND_LIMIT_US 20.0
#define BARRIERS 1000

static long src, dst;
static long flag;

static double cpu_us(void) {
    struct rusage r;
    CHECK(getrusage(RUSAGE_SELF, &r) == 0);
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

static void check_rate(const char *what, double used) {
    double per = used / ROUNDS;
    if (per > LIMIT_US) {
        fprintf(stderr, "PE %d: %s: %.0f us of CPU per round (limit %.0f)\n", shmem_my_pe(), what,
                per, LIMIT_US);
        shmem_global_exit(1);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    cpu_set_t set, one;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    int first = 0;
    while (!CPU_ISSET(first, &set))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    shmem_barrier_all();

    double t0 = cpu_us();
    for (int i = 0; i < ROUNDS; i++) {
        int root = i % n;
        src = me == root ? i : -1;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &dst, &src, 1, root);
        CHECK(dst == i);
        shmem_barrier_all();
    }
    check_rate("broadcast and barrier", cpu_us() - t0);

    if (n > 1 && shmem_team_n_pes(SHMEM_TEAM_SHARED) == n) {
        int rounds = 0; /* of the dissemination barrier: ceil(log2 n) */
        while ((1 << rounds) < n)
            rounds++;
        shmem_barrier_all();
        t0 = cpu_us();
        for (int i = 0; i < BARRIERS; i++)
            shmem_barrier_all();
        double per = (cpu_us() - t0) / BARRIERS / rounds;
        if (per > BARRIER_ROUND_LIMIT_US) {
            fprintf(stderr, "PE %d: barriers: %.1f us of CPU per round (limit %.0f)\n", me, per,
                    BARRIER_ROUND_LIMIT_US);
            shmem_global_exit(1);
        }
    }

    /* Ping-pong between PE 0 and the last PE: each put is a store into the peer's memory
     * on one host, which no message announces. */
    int peer = me == 0 ? n - 1 : 0;
    shmem_barrier_all();
    t0 = cpu_us();
    if (n > 1 && (me == 0 || me == n - 1)) {
        for (long i = 1; i <= ROUNDS; i++) {
            if (me == 0) {
                shmem_long_atomic_set(&flag, i, peer);
                shmem_long_wait_until(&flag, SHMEM_CMP_EQ, -i);
            } else {
                shmem_long_wait_until(&flag, SHMEM_CMP_EQ, i);
                shmem_long_atomic_set(&flag, -i, peer);
            }
        }
    }
    check_rate("put and wait_until", cpu_us() - t0);
    shmem_barrier_all();
    printf("shared cpu ok\n");
    shmem_finalize();
    return 0;
}
