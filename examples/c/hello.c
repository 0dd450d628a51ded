#include <stdio.h>
#include <clump/amii.h>
#include <clump/spmd.h>

/* Ends the whole job, naming the call and its error, when a call fails. */
static void check(int rc, const char *call) {
    if (rc != AM_OK) {
        fprintf(stderr, "rank %d: %s: %s (%s)\n", clump_spmd_rank(), call,
                clump_error_name(rc), clump_error_desc(rc));
        clump_spmd_exit(1);
    }
}

static volatile int done;
static void ping(void *token, int32_t a) { check(AM_Reply1(token, 2, a + 1), "AM_Reply1"); }
static void pong(void *token, int32_t a) {
    (void)token;
    printf("rank %d got %d\n", clump_spmd_rank(), a);
    done = 1;
}

int main(int argc, char **argv) {
    eb_t eb; ep_t ep;
    /* On failure (a bad CLUMP_* value, say) it prints the cause on stderr. */
    if (clump_spmd_startup(&argc, &argv, &eb, &ep) != AM_OK) return 1;
    check(AM_SetHandler(ep, 1, ping), "AM_SetHandler");
    check(AM_SetHandler(ep, 2, pong), "AM_SetHandler");
    check(clump_spmd_barrier(), "clump_spmd_barrier");   /* every rank has its handlers */
    int next = (clump_spmd_rank() + 1) % clump_spmd_size(); /* translation i reaches rank i */
    check(AM_Request1(ep, next, 1, 41), "AM_Request1");
    while (!done) check(AM_Poll(eb), "AM_Poll");
    check(clump_spmd_barrier(), "clump_spmd_barrier");   /* polls while it waits */
    return AM_Terminate();
}
