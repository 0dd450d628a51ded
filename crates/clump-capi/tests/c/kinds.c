/* Every request and reply kind with 0..16 arguments, at and past each size limit.
 * Ranks take turns; the one whose turn it is sends to the next rank:
 *   short request -> short reply echoing the arguments,
 *   medium request (0, 1, AM_MaxMedium() bytes) -> medium reply echoing the payload,
 *   long request (1 B .. the whole landing area, blocking and async) -> long reply
 *     echoing it into the sender's segment,
 *   get (1 B .. 1 MiB) -> local handler.
 * Every handler checks its arguments (a_i = 1000 * n + i), its payload and where it lies. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "arity.h"

#define MiB (1 << 20)
#define LANDING 0             /* long messages land here, 2 MiB */
#define GET_SRC (2 * MiB)     /* gets read from here, 1 MiB of pattern */
#define GET_DST (3 * MiB)     /* and write here */
#define SEG_LEN (4 * MiB)

enum { H_SHORT = 1, H_SHORT_R = 20, H_MED = 40, H_MED_R = 60, H_LONG = 80, H_LONG_R = 100,
       H_GET = 120 };

static eb_t eb;
static ep_t ep;
static char *seg;
static int pending;
static unsigned char src[2 * MiB];

static unsigned char pat(size_t j, size_t seed) { return (unsigned char)(j * 31 + seed); }

static void fill(unsigned char *p, size_t n, size_t seed) {
    for (size_t j = 0; j < n; j++) p[j] = pat(j, seed);
}

static void check_bytes(const void *buf, size_t n, size_t seed) {
    const unsigned char *p = buf;
    for (size_t j = 0; j < n; j++) EXPECT(p[j] == pat(j, seed));
}

static void check_args(int n, const int32_t *got) {
    for (int i = 0; i < n; i++) EXPECT(got[i + 1] == 1000 * n + i);
}

static void check_in_seg(const void *buf, size_t n, size_t offset) {
    EXPECT((const char *)buf == seg + offset && offset + n <= SEG_LEN);
}

#define HANDLERS(N)                                                                         \
    static void short_##N(void *token P##N) {                                               \
        int32_t g[] = {0 A##N};                                                             \
        check_args(N, g);                                                                   \
        CHECK(AM_Reply##N(token, H_SHORT_R + N A##N));                                      \
    }                                                                                       \
    static void short_r_##N(void *token P##N) {                                             \
        int32_t g[] = {0 A##N};                                                             \
        (void)token;                                                                        \
        check_args(N, g);                                                                   \
        pending--;                                                                          \
    }                                                                                       \
    static void med_##N(void *token, void *buf, size_t nbytes P##N) {                       \
        int32_t g[] = {0 A##N};                                                             \
        check_args(N, g);                                                                   \
        check_bytes(buf, nbytes, nbytes);                                                   \
        CHECK(AM_ReplyI##N(token, H_MED_R + N, buf, (int)nbytes A##N));                     \
    }                                                                                       \
    static void med_r_##N(void *token, void *buf, size_t nbytes P##N) {                     \
        int32_t g[] = {0 A##N};                                                             \
        (void)token;                                                                        \
        check_args(N, g);                                                                   \
        check_bytes(buf, nbytes, nbytes);                                                   \
        pending--;                                                                          \
    }                                                                                       \
    static void long_##N(void *token, void *buf, size_t nbytes P##N) {                      \
        int32_t g[] = {0 A##N};                                                             \
        check_args(N, g);                                                                   \
        check_in_seg(buf, nbytes, LANDING);                                                 \
        check_bytes(buf, nbytes, nbytes);                                                   \
        CHECK(AM_ReplyXfer##N(token, LANDING, H_LONG_R + N, buf, (int)nbytes A##N));        \
    }                                                                                       \
    static void long_r_##N(void *token, void *buf, size_t nbytes P##N) {                    \
        int32_t g[] = {0 A##N};                                                             \
        (void)token;                                                                        \
        check_args(N, g);                                                                   \
        check_in_seg(buf, nbytes, LANDING);                                                 \
        check_bytes(buf, nbytes, nbytes);                                                   \
        pending--;                                                                          \
    }                                                                                       \
    static void get_##N(void *token, void *buf, size_t nbytes P##N) {                       \
        int32_t g[] = {0 A##N};                                                             \
        (void)token;                                                                        \
        check_args(N, g);                                                                   \
        check_in_seg(buf, nbytes, GET_DST);                                                 \
        check_bytes(buf, nbytes, 0);                                                        \
        pending--;                                                                          \
    }
EVERY_ARITY(HANDLERS)

#define INSTALL(N)                                     \
    CHECK(AM_SetHandler(ep, H_SHORT + N, short_##N));  \
    CHECK(AM_SetHandler(ep, H_SHORT_R + N, short_r_##N)); \
    CHECK(AM_SetHandler(ep, H_MED + N, med_##N));      \
    CHECK(AM_SetHandler(ep, H_MED_R + N, med_r_##N));  \
    CHECK(AM_SetHandler(ep, H_LONG + N, long_##N));    \
    CHECK(AM_SetHandler(ep, H_LONG_R + N, long_r_##N)); \
    CHECK(AM_SetHandler(ep, H_GET + N, get_##N));

static const int medium_sizes[] = {0, 1, -1 /* AM_MaxMedium() */};
static const int long_sizes[] = {1, 4096, 65537, 2 * MiB};
static const int get_sizes[] = {1, 4096, MiB};

/* Sends one message of every kind and size with N arguments to `peer`, one at a time. */
#define SEND_ALL(N)                                                                        \
    do {                                                                                   \
        pending++;                                                                         \
        CHECK(AM_Request##N(ep, peer, H_SHORT + N V##N(1000 * N)));                        \
        SYNC(eb, pending);                                                                 \
        for (size_t k = 0; k < sizeof medium_sizes / sizeof *medium_sizes; k++) {          \
            int s = medium_sizes[k] < 0 ? AM_MaxMedium() : medium_sizes[k];                \
            fill(src, s, s);                                                               \
            pending++;                                                                     \
            CHECK(AM_RequestI##N(ep, peer, H_MED + N, src, s V##N(1000 * N)));             \
            SYNC(eb, pending);                                                             \
        }                                                                                  \
        for (size_t k = 0; k < sizeof long_sizes / sizeof *long_sizes; k++) {              \
            int s = long_sizes[k], rc;                                                     \
            fill(src, s, s);                                                               \
            pending++;                                                                     \
            CHECK(AM_RequestXfer##N(ep, peer, LANDING, H_LONG + N, src, s V##N(1000 * N))); \
            SYNC(eb, pending);                                                             \
            pending++;                                                                     \
            while ((rc = AM_RequestXferAsync##N(ep, peer, LANDING, H_LONG + N, src,        \
                                                s V##N(1000 * N))) == AM_ERR_IN_USE)       \
                CHECK(AM_Poll(eb));                                                        \
            CHECK(rc);                                                                     \
            SYNC(eb, pending);                                                             \
        }                                                                                  \
        for (size_t k = 0; k < sizeof get_sizes / sizeof *get_sizes; k++) {                \
            pending++;                                                                     \
            memset(seg + GET_DST, 0, MiB);                                                 \
            CHECK(AM_GetXfer##N(ep, peer, GET_SRC, H_GET + N, GET_DST, get_sizes[k]        \
                                V##N(1000 * N)));                                          \
            SYNC(eb, pending);                                                             \
        }                                                                                  \
    } while (0);

/* Past each limit the call fails and sends nothing. */
static void limits(int peer) {
    EXPECT(AM_MaxShort() == 16 && AM_MaxNumHandlers() == 256);
    /* The header's constants are the library's limits. */
    EXPECT((AM_MaxShort)() == AM_MaxShort() && (AM_MaxMedium)() == AM_MaxMedium() &&
           (AM_MaxLong)() == AM_MaxLong() && (AM_MaxNumHandlers)() == AM_MaxNumHandlers());
    _Static_assert(AM_MaxMedium() >= 512, "AM_MaxMedium() is a constant expression");
    EXPECT(AM_MaxMedium() >= 512 && AM_MaxLong() >= AM_MaxMedium());
    int over = AM_MaxMedium() + 1;
    EXPECT(AM_RequestI0(ep, peer, H_MED, src, over) == AM_ERR_BAD_ARG);
    EXPECT(AM_RequestXfer0(ep, peer, 0, H_LONG, src, AM_MaxLong() + 1) == AM_ERR_BAD_ARG);
    EXPECT(AM_GetXfer0(ep, peer, 0, H_GET, 0, AM_MaxLong() + 1) == AM_ERR_BAD_ARG);
    EXPECT(AM_GetXfer0(ep, peer, 0, H_GET, GET_DST, SEG_LEN) == AM_ERR_BAD_ARG); /* local end */
    uintptr_t max;
    CHECK(AM_MaxSegLength(&max));
    EXPECT(AM_SetSeg(ep, NULL, max + 1) == AM_ERR_BAD_ARG);
    EXPECT(pending == 0);
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank(), size = clump_spmd_size(), peer = (rank + 1) % size;
    seg = aligned_alloc(4096, SEG_LEN);
    EXPECT(seg != NULL);
    CHECK(AM_SetSeg(ep, seg, SEG_LEN));
    fill((unsigned char *)seg + GET_SRC, MiB, 0);
    EVERY_ARITY(INSTALL)
    CHECK(clump_spmd_barrier());
    for (int turn = 0; turn < size; turn++) {
        if (turn == rank) {
            EVERY_ARITY(SEND_ALL)
            limits(peer);
        }
        CHECK(clump_spmd_barrier());
    }
    printf("kinds ok: rank %d sent every kind with 0..16 arguments to rank %d\n", rank, peer);
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    free(seg);
    return 0;
}
