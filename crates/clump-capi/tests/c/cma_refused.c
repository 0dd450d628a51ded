/* Where the kernel refuses cross-memory attach (here: a seccomp filter at rank 0 makes
 * process_vm_readv/writev fail with EPERM, as Yama or a container's policy would), rank
 * 0's long message and get to rank 1's segment in program memory still arrive: they go
 * over the network (UDP on this host; run with CLUMP_NET=1). With the network off
 * (argument "returned", and the launcher's default on one host) they come back to
 * handler 0 as EUNREACHABLE and rank 1's segment is untouched. Either way
 * the job goes on and the layer says why on stderr: never a silent failure.
 * Run with 2 ranks on one host. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "check.h"

enum { H_LONG = 1, H_GOT = 2 };
#define OFFSET 10
#define LEN 100

static eb_t eb;
static ep_t ep;
static int returned, landed, got;
static unsigned char segment[3000];

static void handler0(int status, op_t opcode, void *token) {
    (void)token;
    EXPECT(status == EUNREACHABLE);
    EXPECT(opcode == (returned == 0 ? AM_REQUEST_XFER_M : AM_GET_XFER_M));
    returned++;
}

static void on_long(void *token, void *buf, size_t nbytes) {
    (void)token;
    EXPECT(buf == segment + 1 + OFFSET && nbytes == LEN);
    for (size_t i = 0; i < LEN; i++) EXPECT(((unsigned char *)buf)[i] == 'y');
    landed++;
}

static void on_get(void *token, void *buf, size_t nbytes) {
    (void)token;
    EXPECT(buf == segment + 1 + 2 * OFFSET + LEN && nbytes == LEN);
    for (size_t i = 0; i < LEN; i++) EXPECT(((unsigned char *)buf)[i] == 'y');
    got++;
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
    int expect_returned = argc > 1 && strcmp(argv[1], "returned") == 0;
    EXPECT(clump_spmd_size() == 2);
    CHECK(AM_SetHandler(ep, 0, handler0));
    CHECK(AM_SetHandler(ep, H_LONG, on_long));
    CHECK(AM_SetHandler(ep, H_GOT, on_get));
    memset(segment, 'x', sizeof segment);
    CHECK(AM_SetSeg(ep, segment + 1, 1000));
    CHECK(clump_spmd_barrier());
    if (rank == 0) {
        refuse_cross_memory_attach();
        unsigned char buf[LEN];
        memset(buf, 'y', sizeof buf);
        CHECK(AM_RequestXfer0(ep, 1, OFFSET, H_LONG, buf, sizeof buf));
        while (expect_returned && returned < 1) CHECK(AM_Poll(eb));
    } else {
        while (!expect_returned && landed < 1) CHECK(AM_Poll(eb));
    }
    CHECK(clump_spmd_barrier());
    if (rank == 0) {
        /* Rank 1's window now holds the long message's bytes (or, returned, its own). */
        CHECK(AM_GetXfer0(ep, 1, OFFSET, H_GOT, 2 * OFFSET + LEN, LEN));
        while (returned + got < (expect_returned ? 2 : 1)) CHECK(AM_Poll(eb));
        EXPECT(expect_returned ? returned == 2 && got == 0 : returned == 0 && got == 1);
    }
    CHECK(clump_spmd_barrier());
    for (size_t i = 0; i < sizeof segment; i++) {
        int window = rank == 1 && !expect_returned && i >= 1 + OFFSET && i < 1 + OFFSET + LEN;
        int fetched =
            rank == 0 && !expect_returned && i >= 1 + 2 * OFFSET + LEN && i < 1 + 2 * OFFSET + 2 * LEN;
        EXPECT(segment[i] == (window || fetched ? 'y' : 'x'));
    }
    printf("cma refused ok: rank %d, %s\n", rank, expect_returned ? "returned" : "delivered");
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
