/* Every rank ends the job with clump_spmd_exit(0) after a last barrier, its final line
 * still in stdio's buffer (stdout is a pipe): every line must arrive and the job end with
 * status 0. An atexit handler then raises SIGUSR1, whose handler enters clump_spmd_exit
 * again, as programs that end on a signal do: that must end quietly too. */
#include <signal.h>
#include <stdlib.h>
#include "check.h"

static void again(int sig) {
    (void)sig;
    int rc = clump_spmd_exit(0);
    (void)rc;
}

static void at_exit(void) { raise(SIGUSR1); }

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    signal(SIGUSR1, again);
    atexit(at_exit);
    CHECK(clump_spmd_barrier());
    printf("rank %d: final line\n", clump_spmd_rank());
    return clump_spmd_exit(0);
}
