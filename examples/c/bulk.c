/* Bulk transfer with a data check: rank 0 sends medium (AM_RequestI) and long
 * (AM_RequestXfer) messages of growing size to rank 1, whose handler checks every byte
 * and replies with the size it saw. Prints "bulk: long SIZE B MB/s=X" per size.
 * Usage: clump run -n 2 ./bulk */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"

enum { H_MEDIUM = 1, H_LONG = 2, H_SEEN = 3 };
#define MAX_BYTES (2 << 20)
#define ROUNDS 20

static eb_t eb;
static ep_t ep;
static int pending;
static int32_t seen;
static unsigned char *seg, *src;

static unsigned char byte_at(size_t i, int32_t seed) { return (unsigned char)(i * 7 + seed); }

static void check_data(const unsigned char *buf, size_t n, int32_t seed) {
    for (size_t i = 0; i < n; i++) EXPECT(buf[i] == byte_at(i, seed));
}

static void medium(void *token, void *buf, size_t nbytes, int32_t seed) {
    check_data(buf, nbytes, seed);
    CHECK(AM_Reply1(token, H_SEEN, (int32_t)nbytes));
}
static void long_h(void *token, void *buf, size_t nbytes, int32_t seed) {
    EXPECT((unsigned char *)buf == seg);
    check_data(buf, nbytes, seed);
    CHECK(AM_Reply1(token, H_SEEN, (int32_t)nbytes));
}
static void seen_h(void *token, int32_t n) { (void)token; seen = n; pending--; }

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    NEEDS_RANKS(2);
    int rank = clump_spmd_rank();
    CHECK(AM_SetSeg(ep, NULL, MAX_BYTES));
    void *base;
    uintptr_t len;
    CHECK(AM_GetSeg(ep, &base, &len));
    seg = base;
    EXPECT(len == MAX_BYTES);
    CHECK(AM_SetHandler(ep, H_MEDIUM, medium));
    CHECK(AM_SetHandler(ep, H_LONG, long_h));
    CHECK(AM_SetHandler(ep, H_SEEN, seen_h));
    CHECK(clump_spmd_barrier());
    if (rank == 0) {
        src = malloc(MAX_BYTES);
        EXPECT(src != NULL);
        for (int n = 1; n <= AM_MaxMedium(); n *= 4) {
            for (int i = 0; i < n; i++) src[i] = byte_at(i, n);
            pending++;
            CHECK(AM_RequestI1(ep, 1, H_MEDIUM, src, n, n));
            SYNC(eb, pending);
            EXPECT(seen == n);
        }
        for (int n = 1; n <= MAX_BYTES; n *= 8) {
            for (int i = 0; i < n; i++) src[i] = byte_at(i, n);
            double t0 = now_s();
            for (int r = 0; r < ROUNDS; r++) {
                pending++;
                CHECK(AM_RequestXfer1(ep, 1, 0, H_LONG, src, n, n));
                SYNC(eb, pending);
                EXPECT(seen == n);
            }
            double mbs = (double)n * ROUNDS / (now_s() - t0) / 1e6;
            printf("bulk: long %d B MB/s=%.1f (each checked byte by byte)\n", n, mbs);
        }
        printf("bulk ok\n");
        free(src);
    }
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
