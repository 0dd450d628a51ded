/* clump/amudp.h: AMUDP's names over libclump, so that AMUDP programs build unchanged.
 *
 * Includes clump/amii.h (the AM-II calls) and adds AMUDP's AMX_ extensions. Every call
 * returns AM_OK or an AM_ERR_* code unless it says otherwise.
 */
#ifndef CLUMP_AMUDP_H
#define CLUMP_AMUDP_H

#include <clump/amii.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined by AMUDP's header, so programs can test for the AMUDP interface. */
#ifndef AMUDP
#define AMUDP 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* AMUDP's switch for printing errors as they happen. clump returns codes only (and
 * AM_ErrorName names them): the variable is kept so programs that set it build. */
extern int AMX_VerboseErrors;
#define AMUDP_VerboseErrors AMX_VerboseErrors
/* AMUDP's switches for its informational output and for yielding while a send waits:
 * clump prints no such output and its waits back off by themselves; kept so programs
 * that set them build. */
extern int AMUDP_SilentMode;
extern int AMUDP_PoliteSync;

/* A message's category, as AMX_GetTokenInfo reports it (a get's completion is long). */
typedef enum {
    amudp_Short = 0,
    amudp_Medium = 1,
    amudp_Long = 2,
    amudp_NumCategories = 3
} amudp_category_t;
typedef amudp_category_t amx_category_t;
/* The categories under GASNet's AMX names, which AMUDP's tests use. */
#define amx_Short amudp_Short
#define amx_Medium amudp_Medium
#define amx_Long amudp_Long
#define amx_NumCategories amudp_NumCategories

/* Nonzero when two endpoint names are the same endpoint. */
static inline int AMX_enEqual(en_t a, en_t b) {
    return memcmp(a.bytes, b.bytes, sizeof a.bytes) == 0;
}
#define AMUDP_enEqual AMX_enEqual

/* Prints "AMX fatal error: " and the printf-style message on stderr, then aborts. */
static inline void AMX_FatalErr(const char *msg, ...) {
    va_list ap;
    va_start(ap, msg);
    fputs("AMX fatal error: ", stderr);
    vfprintf(stderr, msg, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(NULL);
    abort();
}
#define AMUDP_FatalErr AMX_FatalErr

/* The translation index at which the receiving endpoint maps the sender of the message
 * `token` stands for (AM_ERR_RESOURCE if it maps it at none). */
int AMX_GetSourceId(void *token, int *srcid);
#define AMUDP_GetSourceId AMX_GetSourceId

/* The handler index, category and request (1) or reply (0) of the message `token` stands
 * for, in its handler (handler 0: the message that came back). Each out-pointer may be
 * NULL. */
int AMX_GetTokenInfo(void *token, handler_t *handler, amudp_category_t *category, int *is_req);
#define AMUDP_GetTokenInfo AMX_GetTokenInfo

/* Endpoint statistics: the counters clump keeps. AMUDP's per-category arrays (requests
 * and replies by short/medium/long, bytes sent) have no counterpart in clump; the
 * network counters are 0 for an endpoint that has not used the network. */
typedef struct {
    uint64_t RequestsSent;          /* requests enqueued at their destination */
    uint64_t ReturnedMessages;      /* messages delivered to handler 0 */
    uint64_t CreditWaits;           /* send rounds waiting for a credit */
    uint64_t QueueFullWaits;        /* send rounds waiting for a full queue */
    uint64_t DeferredReplies;       /* replies finished by a later poll */
    uint64_t NetMessagesSent;       /* messages sent over the network */
    uint64_t NetMessagesDelivered;  /* messages received over the network */
    uint64_t DatagramsSent;
    uint64_t DatagramsReceived;
    uint64_t RequestsRetransmitted; /* datagrams sent again (requests and replies) */
    uint64_t Timeouts;              /* retransmission timer expiries */
    uint64_t DuplicatesReceived;
    uint64_t OutOfOrderReceived;
} amx_stats_t;
typedef amx_stats_t amudp_stats_t;

/* All zero: the start of a running sum. */
extern const amx_stats_t AMX_initial_stats;
#define AMUDP_initial_stats AMX_initial_stats

/* The endpoint's counters since it was allocated or last reset. */
int AMX_GetEndpointStatistics(ep_t ep, amx_stats_t *stats);
int AMUDP_ResetEndpointStatistics(ep_t ep);
/* Adds each counter of newvalues to runningsum. */
int AMX_AggregateStatistics(amx_stats_t *runningsum, const amx_stats_t *newvalues);
/* Writes the counters as text, one a line, to fp (a FILE *; NULL writes nothing) and
 * returns the text, valid until the calling thread's next call (NULL on a bad argument);
 * globalAnalysis only changes the heading. */
const char *AMX_DumpStatistics(void *fp, const amx_stats_t *stats, int globalAnalysis);
#define AMUDP_GetEndpointStatistics AMX_GetEndpointStatistics
#define AMUDP_AggregateStatistics AMX_AggregateStatistics
#define AMUDP_DumpStatistics AMX_DumpStatistics

#ifdef __cplusplus
}
#endif

#endif /* CLUMP_AMUDP_H */
