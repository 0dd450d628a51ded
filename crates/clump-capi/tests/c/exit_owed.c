/* Exit while an ack is owed (run with -n 2): rank 1 sends rank 0 one medium request whose
 * handler does not reply, then both ranks pass a barrier and end with clump_spmd_exit(0).
 * Rank 0 still owes the request's credit when it exits: its endpoint's close must send it
 * (no panic), and rank 1 must not see its request, which ran, come back to handler 0. */
#include "check.h"

enum { H_NOTE = 1 };

static int noted;

static void handler0(int status, op_t opcode, void *token) {
    (void)token;
    /* stderr: this may run inside exit(3), while the endpoints close. */
    fprintf(stderr, "rank %d: handler 0 got status %d (%s), opcode %d\n", clump_spmd_rank(),
            status, clump_status_name(status), opcode);
}

static void note(void *token, void *buf, size_t nbytes, int32_t a0) {
    (void)token;
    (void)buf;
    EXPECT(nbytes == 5 && a0 == 1);
    noted++;
}

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    CHECK(AM_SetHandler(ep, 0, handler0));
    CHECK(AM_SetHandler(ep, H_NOTE, note));
    CHECK(clump_spmd_barrier());
    if (clump_spmd_rank() == 1) CHECK(AM_RequestI1(ep, 0, H_NOTE, "hello", 5, 1));
    if (clump_spmd_rank() == 0)
        while (!noted) CHECK(AM_Poll(eb));
    CHECK(clump_spmd_barrier());
    printf("rank %d: exits\n", clump_spmd_rank());
    return clump_spmd_exit(0);
}
