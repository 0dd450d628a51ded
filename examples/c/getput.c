/* Get and put: each rank puts a block (a long request) into its right neighbour's
 * segment, then, after a barrier, gets it back (AM_GetXfer) into its own segment and
 * checks it; a second round puts with AM_RequestXferAsync, retrying while the credit
 * window is full. Usage: clump run -n N ./getput */
#include <string.h>
#include "check.h"

enum { H_PUT_DONE = 1, H_ACK = 2, H_GOT = 3 };
#define BLOCK 65536
#define MAX_RANKS 64

static eb_t eb;
static ep_t ep;
static unsigned char *seg; /* MAX_RANKS put slots, then one get slot */
static int pending;

static unsigned char pat(int rank, int round, size_t i) { return (unsigned char)(rank * 37 + round * 11 + i); }

static void put_done(void *token, void *buf, size_t nbytes, int32_t from) {
    EXPECT((unsigned char *)buf == seg + (size_t)from * BLOCK && nbytes == BLOCK);
    CHECK(AM_Reply0(token, H_ACK));
}
static void ack(void *token) { (void)token; pending--; }
static void got(void *token, void *buf, size_t nbytes) {
    (void)token;
    EXPECT((unsigned char *)buf == seg + MAX_RANKS * BLOCK && nbytes == BLOCK);
    pending--;
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank(), size = clump_spmd_size(), right = (rank + 1) % size;
    EXPECT(size <= MAX_RANKS);
    CHECK(AM_SetSeg(ep, NULL, (MAX_RANKS + 1) * BLOCK));
    void *base;
    uintptr_t len;
    CHECK(AM_GetSeg(ep, &base, &len));
    seg = base;
    CHECK(AM_SetHandler(ep, H_PUT_DONE, put_done));
    CHECK(AM_SetHandler(ep, H_ACK, ack));
    CHECK(AM_SetHandler(ep, H_GOT, got));
    unsigned char block[BLOCK];
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < BLOCK; i++) block[i] = pat(rank, round, i);
        CHECK(clump_spmd_barrier());
        pending++;
        uintptr_t slot = (uintptr_t)rank * BLOCK;
        if (round == 0) {
            CHECK(AM_RequestXfer1(ep, right, slot, H_PUT_DONE, block, BLOCK, rank));
        } else {
            int rc;
            while ((rc = AM_RequestXferAsync1(ep, right, slot, H_PUT_DONE, block, BLOCK, rank)) ==
                   AM_ERR_IN_USE)
                CHECK(AM_Poll(eb));
            CHECK(rc);
        }
        SYNC(eb, pending);
        CHECK(clump_spmd_barrier());
        memset(seg + MAX_RANKS * BLOCK, 0, BLOCK);
        pending++;
        CHECK(AM_GetXfer0(ep, right, slot, H_GOT, MAX_RANKS * BLOCK, BLOCK));
        SYNC(eb, pending);
        EXPECT(memcmp(seg + MAX_RANKS * BLOCK, block, BLOCK) == 0);
    }
    printf("getput ok: rank %d put and got back 2 blocks of %d bytes at rank %d\n", rank, BLOCK, right);
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
