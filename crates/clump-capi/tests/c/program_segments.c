/* AM_SetSeg on memory the program owns, used in place: a malloc'd buffer at an odd
 * address, a static array, a small variable on the stack, and (argument "large") a sparse
 * malloc'd buffer of 5 GiB touched only in a few windows, some past 4 GiB.
 * Each rank names its segment, then, with its successor in rank order:
 *   its long request lands in the successor's window 0 (the handler checks it in place
 *   and answers with a long reply that fills this rank's window 3, up to the segment's
 *   last byte), and its get copies the successor's window 1 into its own window 2.
 * Afterwards every window holds what it should, and the guard bytes just outside the
 * segment, on the same pages, are untouched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define GUARD 64
#define GUARD_BYTE 0xA5
#define LARGE ((5ull << 30) + 5)

enum { H_LONG = 1, H_LONG_R = 2, H_GET = 3 };

static eb_t eb;
static ep_t ep;
static int rank, succ, pred;
static unsigned char *seg; /* the current segment */
static size_t seg_len;
static size_t off[4], width[4];
static int pending, landed;
static unsigned char scratch[1 << 20];
static unsigned char static_area[GUARD + 70001 + GUARD];

static unsigned char pat(size_t j, int seed) { return (unsigned char)(j * 131 + seed * 7 + 1); }

static void fill(unsigned char *p, size_t n, int seed) {
    for (size_t j = 0; j < n; j++) p[j] = pat(j, seed);
}

static int holds(const unsigned char *p, size_t n, int seed) {
    for (size_t j = 0; j < n; j++)
        if (p[j] != pat(j, seed)) return 0;
    return 1;
}

/* Window 0 received the predecessor's long request: answer into its window 3. */
static void on_long(void *token, void *buf, size_t nbytes, int32_t from) {
    EXPECT(from == pred && buf == seg + off[0] && nbytes == width[0]);
    EXPECT(holds(buf, nbytes, from));
    fill(scratch, width[3], 200 + from);
    CHECK(AM_ReplyXfer1(token, off[3], H_LONG_R, scratch, width[3], rank));
    landed++;
}

static void on_long_reply(void *token, void *buf, size_t nbytes, int32_t from) {
    (void)token;
    EXPECT(from == succ && buf == seg + off[3] && nbytes == width[3]);
    EXPECT(holds(buf, nbytes, 200 + rank));
    pending--;
}

static void on_get(void *token, void *buf, size_t nbytes, int32_t from) {
    (void)token;
    EXPECT(from == rank && buf == seg + off[2] && nbytes == width[2]); /* its own args */
    EXPECT(holds(buf, nbytes, 100 + succ));
    pending--;
}

/* Windows: four quarters of a small segment, or spots of a large one. */
static void windows(size_t len) {
    if (len < LARGE) {
        size_t q = len / 4;
        for (int i = 0; i < 4; i++) off[i] = i * q, width[i] = q;
    } else {
        size_t w = 65536 + 3;
        off[0] = 0;
        off[1] = (1ull << 32) + 11;
        off[2] = (2ull << 30) + 1;
        off[3] = len - w;
        for (int i = 0; i < 4; i++) width[i] = w;
    }
    width[3] = len - off[3]; /* the reply fills the segment to its last byte */
}

static void exchange(const char *what, unsigned char *area, size_t len) {
    memset(area, GUARD_BYTE, GUARD);
    memset(area + GUARD + len, GUARD_BYTE, GUARD);
    seg = area + GUARD;
    seg_len = len;
    windows(len);
    for (int i = 0; i < 4; i++) memset(seg + off[i], 0, width[i]);
    fill(seg + off[1], width[1], 100 + rank);
    CHECK(AM_SetSeg(ep, seg, len));
    void *base;
    uintptr_t got;
    CHECK(AM_GetSeg(ep, &base, &got));
    EXPECT(base == seg && got == len);
    CHECK(clump_spmd_barrier());

    landed = 0;
    pending = 2;
    fill(scratch, width[0], rank);
    CHECK(AM_RequestXfer1(ep, succ, off[0], H_LONG, scratch, width[0], rank));
    CHECK(AM_GetXfer1(ep, succ, off[1], H_GET, off[2], width[1], rank));
    while (pending > 0 || landed == 0) CHECK(AM_Poll(eb));
    CHECK(clump_spmd_barrier());

    EXPECT(holds(seg + off[0], width[0], pred));
    EXPECT(holds(seg + off[1], width[1], 100 + rank));
    EXPECT(holds(seg + off[2], width[2], 100 + succ));
    EXPECT(holds(seg + off[3], width[3], 200 + rank));
    for (int j = 0; j < GUARD; j++) {
        EXPECT(area[j] == GUARD_BYTE);
        EXPECT(area[GUARD + len + j] == GUARD_BYTE);
    }
    printf("program segments ok: rank %d, %s segment of %zu bytes at %p\n", rank, what, len,
           (void *)seg);
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    rank = clump_spmd_rank();
    int size = clump_spmd_size();
    succ = (rank + 1) % size;
    pred = (rank + size - 1) % size;
    CHECK(AM_SetHandler(ep, H_LONG, on_long));
    CHECK(AM_SetHandler(ep, H_LONG_R, on_long_reply));
    CHECK(AM_SetHandler(ep, H_GET, on_get));

    if (argc > 1 && strcmp(argv[1], "large") == 0) {
        uintptr_t max;
        CHECK(AM_MaxSegLength(&max));
        EXPECT(max >= LARGE);
        unsigned char *big = malloc(GUARD + LARGE + GUARD);
        EXPECT(big != NULL);
        exchange("sparse malloc'd", big, LARGE);
        CHECK(AM_SetSeg(ep, NULL, 0));
        free(big);
    } else {
        /* An odd address inside a malloc'd block: never page- or word-aligned. */
        unsigned char *heap = malloc(GUARD + 100003 + GUARD + 1);
        EXPECT(heap != NULL);
        exchange("malloc'd", heap + ((uintptr_t)heap % 2 == 0), 100003);
        exchange("static", static_area, sizeof static_area - 2 * GUARD);
        unsigned char on_stack[GUARD + 1000 + GUARD];
        exchange("stack", on_stack, 1000);
        CHECK(AM_SetSeg(ep, NULL, 0));
        free(heap);
    }
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
