/* Token queries, translation-table edits, the program's memory as segment, events, moving
 * endpoints between bundles, and the SPMD helpers (run with -n 2 and CLUMP_TEST_VAR=hello). */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { H_ASK = 1, H_ANSWER = 2, H_LAND = 3, H_PING2 = 4 };

static eb_t eb;
static ep_t ep;
static en_t names[2];
static tag_t tag;
static int answers, landed, pinged;
static char *mem;

/* At rank 1: the token names rank 0's endpoint, this endpoint and the job's tag. */
static void ask(void *token, int32_t from) {
    en_t src;
    ep_t dest;
    tag_t t;
    CHECK(AM_GetSourceEndpoint(token, &src));
    CHECK(AM_GetDestEndpoint(token, &dest));
    CHECK(AM_GetMsgTag(token, &t));
    EXPECT(memcmp(&src, &names[from], sizeof src) == 0 && dest == ep && t == tag);
    CHECK(AM_Reply1(token, H_ANSWER, clump_spmd_rank()));
}

static void answer(void *token, int32_t from) {
    en_t src;
    CHECK(AM_GetSourceEndpoint(token, &src));
    EXPECT(memcmp(&src, &names[from], sizeof src) == 0);
    answers++;
}

static void land(void *token, void *buf, size_t nbytes, int32_t offset) {
    (void)token;
    EXPECT((char *)buf == mem + offset && nbytes == 5 && memcmp(buf, "hello", 5) == 0);
    landed++;
}

static void ping2(void *token) { (void)token; pinged++; }

static void translations(void) {
    int n, idx;
    tag_t t;
    en_t name;
    CHECK(AM_GetNumTranslations(ep, &n));
    EXPECT(n == 256);
    for (int i = 0; i < 2; i++) {
        CHECK(AM_GetTranslationInuse(ep, i));
        CHECK(AM_GetTranslationTag(ep, i, &t));
        CHECK(AM_GetTranslationName(ep, i, &name));
        EXPECT(t == tag && memcmp(&name, &names[i], sizeof name) == 0);
    }
    EXPECT(AM_GetTranslationInuse(ep, 2) == AM_ERR_RESOURCE);
    CHECK(AM_MapAny(ep, &idx, names[1], tag));
    EXPECT(idx == 2);
    int before = answers;
    CHECK(AM_Request1(ep, idx, H_ASK, 0));
    SYNC(eb, answers - before - 1);
    CHECK(AM_SetNumTranslations(ep, 1024));
    CHECK(AM_Map(ep, 1000, names[1], tag));
    EXPECT(AM_SetNumTranslations(ep, 512) == AM_ERR_IN_USE);
    CHECK(AM_UnMap(ep, 1000));
    CHECK(AM_UnMap(ep, idx));
    EXPECT(AM_GetTranslationInuse(ep, idx) == AM_ERR_RESOURCE);
    CHECK(AM_SetNumTranslations(ep, 512));
    CHECK(AM_GetNumTranslations(ep, &n));
    EXPECT(n == 512);
}

/* The program's memory becomes the segment in place, with its contents, takes a peer's long
 * message there, and stays the program's memory, unchanged, afterwards. */
static void segment_at_rank1(int step) {
    long page = sysconf(_SC_PAGESIZE);
    if (step == 0) {
        mem = aligned_alloc(page, 2 * page);
        EXPECT(mem != NULL);
        memset(mem, 'x', 2 * page);
        CHECK(AM_SetSeg(ep, mem, page + 100));
        void *base;
        uintptr_t len;
        CHECK(AM_GetSeg(ep, &base, &len));
        EXPECT(base == mem && len == (uintptr_t)page + 100);
        EXPECT(mem[0] == 'x' && mem[page + 99] == 'x' && mem[page + 100] == 'x');
    } else {
        while (landed == 0) CHECK(AM_Poll(eb)); /* the barrier does not wait for it */
        EXPECT(landed == 1 && memcmp(mem + 100, "hello", 5) == 0);
        CHECK(AM_SetSeg(ep, NULL, 0));
        EXPECT(memcmp(mem + 100, "hello", 5) == 0 && mem[page + 200] == 'x');
        mem[0] = 'y';
        free(mem);
    }
}

/* Rank 1 sleeps in AM_WaitSema until rank 0's request arrives. */
static void events(int rank) {
    int mask;
    CHECK(AM_GetEventMask(eb, &mask));
    EXPECT(mask == AM_NOEVENTS);
    if (rank == 1) {
        CHECK(AM_SetEventMask(eb, AM_NOTEMPTY));
        while (pinged == 0) CHECK(AM_WaitSema(eb));
        CHECK(AM_GetEventMask(eb, &mask));
        EXPECT(mask == AM_NOEVENTS); /* an event resets the mask */
    } else {
        usleep(100 * 1000);
        CHECK(AM_Request0(ep, 1, H_PING2));
    }
}

/* An endpoint moved into the start-up bundle is polled with it. */
static void move(int rank) {
    eb_t other;
    ep_t moved;
    en_t name, all[2];
    CHECK(AM_AllocateBundle(AM_SEQ, &other));
    CHECK(AM_AllocateEndpoint(other, &moved, &name));
    CHECK(AM_SetTag(moved, tag));
    CHECK(AM_SetHandler(moved, H_PING2, ping2));
    CHECK(AM_MoveEndpoint(moved, other, eb));
    CHECK(AM_FreeBundle(other)); /* moved is no longer in it */
    CHECK(clump_spmd_allgather(&name, all, sizeof name));
    int before = pinged;
    CHECK(AM_Map(moved, 0, all[1 - rank], tag));
    CHECK(AM_Request0(moved, 0, H_PING2));
    CHECK(clump_spmd_barrier());
    SYNC(eb, pinged - before - 1);
    CHECK(AM_FreeEndpoint(moved));
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank();
    EXPECT(clump_spmd_size() == 2);
    EXPECT(clump_spmd_startup(&argc, &argv, &eb, &ep) == AM_ERR_RESOURCE);
    const char *v = clump_spmd_getenv("CLUMP_TEST_VAR");
    EXPECT(v != NULL && strcmp(v, "hello") == 0 && clump_spmd_getenv("CLUMP_NO_SUCH") == NULL);
    CHECK(AM_GetTag(ep, &tag));
    en_t mine;
    CHECK(AM_GetTranslationName(ep, rank, &mine));
    CHECK(clump_spmd_allgather(&mine, names, sizeof mine));
    int nh;
    CHECK(AM_GetNumHandlers(ep, &nh));
    EXPECT(nh == AM_MaxNumHandlers());
    CHECK(AM_SetHandler(ep, H_ASK, ask));
    CHECK(AM_SetHandler(ep, H_ANSWER, answer));
    CHECK(AM_SetHandler(ep, H_LAND, land));
    CHECK(AM_SetHandler(ep, H_PING2, ping2));
    if (rank == 1) segment_at_rank1(0);
    CHECK(clump_spmd_barrier());
    if (rank == 0) {
        translations();
        CHECK(AM_RequestXfer1(ep, 1, 100, H_LAND, "hello", 5, 100));
    }
    CHECK(clump_spmd_barrier());
    if (rank == 1) segment_at_rank1(1);
    events(rank);
    CHECK(clump_spmd_barrier());
    move(rank);
    CHECK(clump_spmd_barrier());
    printf("queries ok: rank %d\n", rank);
    CHECK(AM_Terminate());
    return 0;
}
