/* An AMUDP program, as written for AMUDP: it includes amudp.h and amudp_spmd.h, starts
 * with AMUDP_SPMDStartup and uses AMUDP's SPMD and AMX_ calls, checking every result.
 * Each rank sets AMUDP_TEST_VALUE=rank<R> before start-up; SPMDgetenvMaster must give
 * rank 0's. Prints "amudp ok rank R" and, from the exit callback, "amudp exit 0".
 * Usage: clump run -n N ./amudp_program [net]   (net: the job spans hosts) */
#define _POSIX_C_SOURCE 200809L
#include <amudp.h>
#include <amudp_spmd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AM_Safe(call)                                                          \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != AM_OK) AMX_FatalErr("%s returned %d", #call, rc_);          \
    } while (0)
#define Require(cond)                                                          \
    do {                                                                       \
        if (!(cond)) AMX_FatalErr("rank %d: %s:%d: expected %s", MyProc(),    \
                                  __FILE__, __LINE__, #cond);                  \
    } while (0)

enum { H_PING = 1, H_PONG = 2, H_MED = 3, ITERS = 50 };

static ep_t ep;
static int replies, served, mediums;

#ifndef AMUDP
#error amudp.h defines AMUDP
#endif

/* AMX_GetTokenInfo names the handler, category and direction of the running message. */
static void check_info(void *token, handler_t handler, amx_category_t category, int is_req) {
    handler_t h = 0;
    amx_category_t c = amx_NumCategories;
    int r = -1;
    AM_Safe(AMX_GetTokenInfo(token, &h, &c, &r));
    Require(h == handler && c == category && r == is_req);
    AM_Safe(AMX_GetTokenInfo(token, NULL, NULL, NULL));
}

/* The sender passes its rank: AMX_GetSourceId must name it, and its name must be the
 * one mapped there. */
static void check_source(void *token, int sender) {
    int id = -1;
    en_t from, mapped;
    AM_Safe(AMX_GetSourceId(token, &id));
    Require(id == sender);
    AM_Safe(AM_GetSourceEndpoint(token, &from));
    AM_Safe(AM_GetTranslationName(ep, id, &mapped));
    Require(AMX_enEqual(from, mapped));
}

static void ping(void *token, int sender) {
    check_source(token, sender);
    check_info(token, H_PING, amx_Short, 1);
    served++;
    AM_Safe(AM_Reply1(token, H_PONG, MyProc()));
}

static void pong(void *token, int sender) {
    check_source(token, sender);
    check_info(token, H_PONG, amx_Short, 0);
    replies++;
}

static void medium(void *token, void *buf, size_t nbytes, int sender) {
    check_source(token, sender);
    check_info(token, H_MED, amudp_Medium, 1);
    Require(amx_Medium == amudp_Medium && amx_Long == amudp_Long);
    Require(nbytes == 5 && memcmp(buf, "hello", 5) == 0);
    mediums++;
}

static void on_exit_cb(int status) { printf("amudp exit %d\n", status); }

int main(int argc, char **argv) {
    char value[32];
    const char *rank_var = getenv("CLUMP_RANK");
    snprintf(value, sizeof value, "rank%s", rank_var ? rank_var : "0");
    Require(setenv("AMUDP_TEST_VALUE", value, 1) == 0);

    eb_t eb;
    uint64_t networkpid = 0;
    AM_Safe(AMUDP_SPMDStartup(&argc, &argv, 0, 0, NULL, &networkpid, &eb, &ep));
    int me = MyProc(), n = NumProcs();
    int net = argc > 1 && strcmp(argv[1], "net") == 0;
    tag_t tag;
    AM_Safe(AM_GetTag(ep, &tag));
    Require(networkpid == tag);
    Require(SPMDIsWorker(argv));
    Require(strcmp(value, me == 0 ? "rank0" : value) == 0);
    const char *master = SPMDgetenvMaster("AMUDP_TEST_VALUE");
    Require(master != NULL && strcmp(master, "rank0") == 0);
    Require(SPMDgetenvMaster("AMUDP_TEST_NO_SUCH_VARIABLE") == NULL);
    Require(SPMDSetExitCallback(on_exit_cb) == AM_OK);
    Require(AMX_SPMDkillmyprocess != NULL);
    /* AMX_SPMDStartup takes AMUDP's six arguments (not evaluated: the job has started). */
    (void)sizeof(AMX_SPMDStartup(&argc, &argv, 0, &networkpid, &eb, &ep));
    Require(AMX_GetTokenInfo(NULL, NULL, NULL, NULL) == AM_ERR_BAD_ARG);

    amx_stats_t before;
    AM_Safe(AMX_GetEndpointStatistics(ep, &before));
    AM_Safe(AM_SetHandler(ep, H_PING, ping));
    AM_Safe(AM_SetHandler(ep, H_PONG, pong));
    AM_Safe(AM_SetHandler(ep, H_MED, medium));
    AM_Safe(SPMDBarrier());

    for (int i = 0; i < ITERS; i++)
        for (int dest = 0; dest < n; dest++) AM_Safe(AM_Request1(ep, dest, H_PING, me));
    for (int dest = 0; dest < n; dest++) AM_Safe(AM_RequestI1(ep, dest, H_MED, "hello", 5, me));
    while (replies < ITERS * n || served < ITERS * n || mediums < n) AM_Safe(AM_Poll(eb));
    AM_Safe(SPMDBarrier());

    amx_stats_t after;
    AM_Safe(AMX_GetEndpointStatistics(ep, &after));
    Require(after.RequestsSent - before.RequestsSent >= (uint64_t)(ITERS * n));
    Require(after.ReturnedMessages == 0 && after.Timeouts <= after.RequestsRetransmitted);
    if (net) {
        Require(after.NetMessagesSent > 0 && after.NetMessagesDelivered > 0);
        Require(after.DatagramsSent > 0 && after.DatagramsReceived > 0);
        Require(after.DatagramsSent >= after.RequestsRetransmitted);
    } else {
        Require(after.DatagramsSent == 0 && after.NetMessagesSent == 0);
    }

    /* Every rank's counters, summed with AMX_AggregateStatistics on each rank. */
    amx_stats_t *all = malloc(sizeof(amx_stats_t) * n);
    Require(all != NULL);
    AM_Safe(SPMDAllGather(&after, all, sizeof after));
    Require(memcmp(&all[me], &after, sizeof after) == 0);
    amx_stats_t sum = AMX_initial_stats;
    uint64_t requests = 0;
    for (int r = 0; r < n; r++) {
        AM_Safe(AMX_AggregateStatistics(&sum, &all[r]));
        requests += all[r].RequestsSent;
    }
    Require(sum.RequestsSent == requests && sum.RequestsSent >= (uint64_t)(ITERS * n * n));
    Require(AMX_AggregateStatistics(NULL, &sum) == AM_ERR_BAD_ARG);
    const char *text = AMX_DumpStatistics(me == 0 ? stdout : NULL, &sum, 1);
    Require(text != NULL && strstr(text, "requests sent") != NULL);
    Require(AMX_DumpStatistics(stdout, NULL, 1) == NULL);
    free(all);

    /* After a reset the counters start again from zero. */
    AM_Safe(AMUDP_ResetEndpointStatistics(ep));
    amx_stats_t reset;
    AM_Safe(AMX_GetEndpointStatistics(ep, &reset));
    Require(reset.RequestsSent == 0 && reset.ReturnedMessages == 0);

    printf("amudp ok rank %d\n", me);
    AM_Safe(SPMDBarrier());
    SPMDExit(0);
    return 1; /* not reached */
}
