/* clump_spmd_exit takes the whole job down with its status (run with -n 3): rank 1 exits
 * with status 3 while the others wait in a barrier it never enters. */
#include "check.h"

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    CHECK(clump_spmd_barrier());
    if (clump_spmd_rank() == 1) {
        printf("rank 1 exits with 3\n");
        clump_spmd_exit(3);
    }
    clump_spmd_barrier();
    printf("rank %d passed a barrier rank 1 never entered\n", clump_spmd_rank());
    return 0;
}
