/* Where the kernel refuses cross-memory attach (here: a seccomp filter at rank 0 makes
 * process_vm_readv/writev fail with EPERM, as Yama or a container's policy would), a long
 * message and a get to a peer's segment in program memory come back to handler 0 as
 * EUNREACHABLE, the peer's segment is untouched, and the job goes on: never a silent
 * failure. The layer explains the refusal on stderr. Run with 2 ranks on one host. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "check.h"

enum { H_NEVER = 1 };

static eb_t eb;
static ep_t ep;
static int returned;
static unsigned char segment[3000];

static void handler0(int status, op_t opcode, void *token) {
    (void)token;
    EXPECT(status == EUNREACHABLE);
    EXPECT(opcode == (returned == 0 ? AM_REQUEST_XFER_M : AM_GET_XFER_M));
    returned++;
}

static void never(void *token, void *buf, size_t nbytes) {
    (void)token, (void)buf, (void)nbytes;
    EXPECT(!"a message the kernel refused to copy ran its handler");
}

static void refuse_cross_memory_attach(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = {sizeof filter / sizeof *filter, filter};
    EXPECT(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    EXPECT(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank();
    EXPECT(clump_spmd_size() == 2);
    CHECK(AM_SetHandler(ep, 0, handler0));
    CHECK(AM_SetHandler(ep, H_NEVER, never));
    memset(segment, 'x', sizeof segment);
    CHECK(AM_SetSeg(ep, segment + 1, 1000));
    CHECK(clump_spmd_barrier());
    if (rank == 0) {
        refuse_cross_memory_attach();
        char buf[100];
        memset(buf, 'y', sizeof buf);
        CHECK(AM_RequestXfer0(ep, 1, 10, H_NEVER, buf, sizeof buf));
        while (returned < 1) CHECK(AM_Poll(eb));
        CHECK(AM_GetXfer0(ep, 1, 10, H_NEVER, 20, sizeof buf));
        while (returned < 2) CHECK(AM_Poll(eb));
    }
    CHECK(clump_spmd_barrier());
    for (size_t i = 0; i < sizeof segment; i++) EXPECT(segment[i] == 'x');
    printf("cma refused ok: rank %d\n", rank);
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
