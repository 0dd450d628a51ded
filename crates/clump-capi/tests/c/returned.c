/* Handler 0 receives each returned-message status clump can produce between processes
 * (run with -n 2): rank 0 sends what cannot be delivered, rank 1 helps.
 *   EBADTAG, EBADHANDLER (request, medium, and a reply), EBADSEGOFF (long, get),
 *   EBADENDPOINT (freed endpoint), EREPLYREJECTED (requester changed its tag, seen by the
 *   replier), EOUTCOMEUNKNOWN (the destination process exited: what was in flight may
 *   have run there); over the network, a request to a freed endpoint comes back
 *   EOUTCOMEUNKNOWN too (it left; no answer came). */
#define _DEFAULT_SOURCE
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

enum { H_NEVER = 1, H_BADREPLY = 2, H_REPLYER = 3, H_ACK = 4, H_MISSING = 200, H_NO_REPLY_HANDLER = 250 };

static eb_t eb;
static ep_t ep;
static int returned;
static struct {
    int status, opcode, nargs, translation;
    handler_t handler;
    int32_t args[16];
} last;

static void handler0(int status, op_t opcode, void *token) {
    last.status = status;
    last.opcode = opcode;
    CHECK(clump_returned_msg(token, &last.handler, last.args, &last.nargs, &last.translation));
    returned++;
}

static void never(void *token) { (void)token; EXPECT(0); }
static void bad_reply(void *token) { CHECK(AM_Reply1(token, H_NO_REPLY_HANDLER, 10)); }
static void replyer(void *token) { CHECK(AM_Reply0(token, H_ACK)); }
static void ack(void *token) { (void)token; }

/* Polls until handler 0 ran `want` times in all, then checks the last one. */
static void expect_returned(int want, int status, int opcode, handler_t handler, int nargs,
                            int translation) {
    time_t give_up = time(NULL) + 10;
    while (returned < want && time(NULL) < give_up) {
        CHECK(AM_Poll(eb));
        sched_yield(); /* the liveness of peers is checked every few thousand polls */
    }
    EXPECT(returned == want);
    int args_ok = 1;
    for (int i = 0; i < nargs; i++) args_ok &= last.args[i] == 10 + i;
    if (last.status != status || last.opcode != opcode || last.handler != handler ||
        last.nargs != nargs || last.translation != translation || !args_ok) {
        fprintf(stderr, "returned #%d: status %d opcode %d handler %d nargs %d (a0 %d) translation %d\n",
                want, last.status, last.opcode, last.handler, last.nargs, last.args[0], last.translation);
        EXPECT(0);
    }
}

static void poll_for_ms(int ms) {
    for (int i = 0; i < ms; i++) {
        CHECK(AM_Poll(eb));
        usleep(1000);
    }
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank();
    /* "net": the two ranks are on different hosts. A freed endpoint's socket is closed
       there, so what is sent to it comes back EOUTCOMEUNKNOWN once the silence is
       judged (it left; no answer came); and a reply carries no requester tag to reject. */
    int net = argc > 1 && strcmp(argv[1], "net") == 0;
    EXPECT(clump_spmd_size() == 2);
    tag_t tag;
    CHECK(AM_GetTag(ep, &tag));
    CHECK(AM_SetHandler(ep, 0, handler0));
    CHECK(AM_SetHandler(ep, H_NEVER, never));
    CHECK(AM_SetHandler(ep, H_BADREPLY, bad_reply));
    CHECK(AM_SetHandler(ep, H_REPLYER, replyer));
    CHECK(AM_SetHandler(ep, H_ACK, ack));
    CHECK(AM_SetSeg(ep, NULL, 4096));

    /* A second endpoint at rank 1, which it frees before rank 0 sends to it. */
    eb_t eb2;
    ep_t ep2;
    en_t names[2], name2;
    CHECK(AM_AllocateBundle(AM_SEQ, &eb2));
    CHECK(AM_AllocateEndpoint(eb2, &ep2, &name2));
    CHECK(AM_SetTag(ep2, 77));
    CHECK(clump_spmd_allgather(&name2, names, sizeof name2));
    if (rank == 0) CHECK(AM_Map(ep, 101, names[1], 77));
    CHECK(clump_spmd_barrier());
    CHECK(AM_FreeBundle(eb2));
    CHECK(clump_spmd_barrier());

    if (rank == 0) {
        en_t peer;
        char buf[256] = {0};
        CHECK(AM_GetTranslationName(ep, 1, &peer));
        CHECK(AM_Map(ep, 100, peer, tag + 1));
        CHECK(AM_Request2(ep, 100, H_NEVER, 10, 11));
        expect_returned(1, EBADTAG, AM_REQUEST_M, H_NEVER, 2, 100);
        CHECK(AM_Request3(ep, 1, H_MISSING, 10, 11, 12));
        expect_returned(2, EBADHANDLER, AM_REQUEST_M, H_MISSING, 3, 1);
        CHECK(AM_RequestI1(ep, 1, H_MISSING, buf, 10, 10));
        expect_returned(3, EBADHANDLER, AM_REQUEST_IM, H_MISSING, 1, 1);
        CHECK(AM_RequestXfer1(ep, 1, 4000, H_NEVER, buf, 200, 10));
        expect_returned(4, EBADSEGOFF, AM_REQUEST_XFER_M, H_NEVER, 1, 1);
        CHECK(AM_GetXfer2(ep, 1, 4000, H_NEVER, 0, 200, 10, 11));
        expect_returned(5, EBADSEGOFF, AM_GET_XFER_M, H_NEVER, 2, 1);
        CHECK(AM_Request0(ep, 1, H_BADREPLY));
        expect_returned(6, EBADHANDLER, AM_REPLY_M, H_NO_REPLY_HANDLER, 1, -1);
        CHECK(AM_Request0(ep, 101, H_NEVER));
        /* Over the network the request left and no answer came: it may have arrived. */
        expect_returned(7, net ? EOUTCOMEUNKNOWN : EBADENDPOINT, AM_REQUEST_M, H_NEVER, 0, 101);
        printf("returned ok: EBADTAG EBADHANDLER EBADSEGOFF %s at rank 0\n",
               net ? "EOUTCOMEUNKNOWN" : "EBADENDPOINT");
    }
    CHECK(clump_spmd_barrier());

    /* The requester changes its tag while rank 1 does not poll: its reply is rejected. */
    if (net) {
        if (rank == 1) printf("returned ok: EREPLYREJECTED not applicable over the network\n");
    } else if (rank == 0) {
        CHECK(AM_Request0(ep, 1, H_REPLYER));
        CHECK(AM_SetTag(ep, tag ^ 0xff));
        poll_for_ms(600);
        CHECK(AM_SetTag(ep, tag));
    } else {
        usleep(300 * 1000);
        expect_returned(1, EREPLYREJECTED, AM_REPLY_M, H_ACK, 0, -1);
        printf("returned ok: EREPLYREJECTED at rank 1\n");
    }
    CHECK(clump_spmd_barrier());

    /* Rank 1's process ends without freeing anything: requests to it come back. */
    if (rank == 1) {
        fflush(stdout);
        _exit(0);
    }
    usleep(300 * 1000);
    CHECK(AM_Request1(ep, 1, H_NEVER, 10));
    expect_returned(8, EOUTCOMEUNKNOWN, AM_REQUEST_M, H_NEVER, 1, 1);
    printf("returned ok: EOUTCOMEUNKNOWN (its process exited) at rank 0\n");
    CHECK(AM_Terminate());
    return 0;
}
