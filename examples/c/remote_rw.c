/* Remote read and write, split-phase with a counter (paper 003's Split-C style): every
 * rank holds WORDS 32-bit words in its segment; get and put start a request and bump the
 * counter, the reply handler lands the value (or the write's acknowledgement) and drops
 * it, and sync() polls until it is 0. Each rank writes its right neighbour's words, then
 * reads them back and checks them. Usage: clump run -n N ./remote_rw */
#include <stdlib.h>
#include "check.h"

enum { H_READ = 1, H_READ_REPLY = 2, H_WRITE = 3, H_WRITE_ACK = 4 };
#define WORDS 4096

static eb_t eb;
static ep_t ep;
static int32_t *words; /* this rank's segment */
static int32_t fetched[WORDS];
static int outstanding;

static void read_h(void *token, int32_t index, int32_t slot) {
    CHECK(AM_Reply2(token, H_READ_REPLY, words[index], slot));
}
static void read_reply(void *token, int32_t value, int32_t slot) {
    (void)token;
    fetched[slot] = value;
    outstanding--;
}
static void write_h(void *token, int32_t index, int32_t value) {
    words[index] = value;
    CHECK(AM_Reply0(token, H_WRITE_ACK));
}
static void write_ack(void *token) { (void)token; outstanding--; }

/* Split-phase remote access: start it now, sync() completes it. */
static void get(int rank, int index, int slot) {
    outstanding++;
    CHECK(AM_Request2(ep, rank, H_READ, index, slot));
}
static void put(int rank, int index, int32_t value) {
    outstanding++;
    CHECK(AM_Request2(ep, rank, H_WRITE, index, value));
}
static void sync_all(void) { SYNC(eb, outstanding); }

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank(), size = clump_spmd_size(), right = (rank + 1) % size;
    words = aligned_alloc(4096, WORDS * sizeof *words);
    EXPECT(words != NULL);
    CHECK(AM_SetSeg(ep, words, WORDS * sizeof *words));
    CHECK(AM_SetHandler(ep, H_READ, read_h));
    CHECK(AM_SetHandler(ep, H_READ_REPLY, read_reply));
    CHECK(AM_SetHandler(ep, H_WRITE, write_h));
    CHECK(AM_SetHandler(ep, H_WRITE_ACK, write_ack));
    CHECK(clump_spmd_barrier());
    for (int i = 0; i < WORDS; i++) put(right, i, rank * 100000 + i);
    sync_all();
    CHECK(clump_spmd_barrier());
    for (int i = 0; i < WORDS; i++) get(right, i, WORDS - 1 - i);
    sync_all();
    for (int i = 0; i < WORDS; i++) EXPECT(fetched[WORDS - 1 - i] == rank * 100000 + i);
    int left = (rank + size - 1) % size;
    for (int i = 0; i < WORDS; i++) EXPECT(words[i] == left * 100000 + i);
    printf("remote_rw ok: rank %d wrote and read back %d words of rank %d\n", rank, WORDS, right);
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    free(words);
    return 0;
}
