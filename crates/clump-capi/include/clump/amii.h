/* clump/amii.h: the AM-II C interface of clump (Mainwaring & Culler, "Active Message
 * Applications Programming Interface and Communication Subsystem Organization"), with the
 * names, types, constants and return codes of the public implementations (AMUDP, AMMPI).
 *
 * Link with -lclump (see `clump config --cflags --libs` or `pkg-config --cflags --libs clump`).
 *
 * Threads: bundles and endpoints belong to the thread that allocated them (and are freed
 * when it exits). Their handles record that thread, so a handle used on another thread (or
 * after it was freed) gets AM_ERR_BAD_ARG, never a crash. A process with several threads
 * gives each thread its own bundles and endpoints. AM_Init and AM_Terminate are
 * process-wide.
 *
 * Every call checks its arguments and returns one of the AM_ERR_* codes below; nothing
 * that crosses this boundary can crash the library (a pointer the caller declares valid,
 * such as a source buffer of nbytes bytes, is the caller's promise).
 */
#ifndef CLUMP_AMII_H
#define CLUMP_AMII_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Types                                                                               */

/* Endpoint tag: a message is delivered only if the tag its sender's translation holds
 * equals the destination endpoint's tag. clump compares tags exactly. */
typedef uint64_t tag_t;

/* Handler table index. Index 0 is the handler of returned (undeliverable) messages. */
typedef uint8_t handler_t;

/* Bytes in an endpoint name. */
#define CLUMP_NAME_BYTES 32

/* Endpoint name: globally unique and opaque; copy it by value and hand it to other
 * processes as bytes (it may hold a network address). */
typedef struct {
    uint8_t bytes[CLUMP_NAME_BYTES];
} en_t;

/* Endpoint and bundle handles: opaque, checked on every call. */
typedef struct clump_ep *ep_t;
typedef struct clump_eb *eb_t;

/* The generic handler type AM_SetHandler stores. Handlers have one of these shapes:
 *   short:           void h(void *token, int32_t a0, ..., int32_t aM-1)
 *   medium and long: void h(void *token, void *buf, size_t nbytes, int32_t a0, ...)
 *   handler 0:       void h(int status, op_t opcode, void *token)
 * and are called with exactly the arguments the message carries (0..16). */
typedef void (*amx_handler_fn_t)(void);

/* Opcode handler 0 receives: what kind of message came back. */
typedef int op_t;
#define AM_REQUEST_M      1
#define AM_REQUEST_IM     2
#define AM_REQUEST_XFER_M 3
#define AM_REPLY_M        4
#define AM_REPLY_IM       5
#define AM_REPLY_XFER_M   6
#define AM_GET_XFER_M     7 /* clump: a get (AM_GetXferM) */

/* ---------------------------------------------------------------------------------- */
/* Constants                                                                           */

#define AM_NONE 0 /* tag values, for source compatibility (clump compares tags exactly) */
#define AM_ALL  1

/* Bundle access modes. AM_PAR shares the process between threads behind one lock: every
 * call runs inside it, and the bundles and endpoints made from then on may be used from any
 * thread. Allocate it before other threads call. */
#define AM_SEQ 0
#define AM_PAR 1

/* Event masks. An event resets the mask to AM_NOEVENTS. */
#define AM_NOEVENTS 0
#define AM_NOTEMPTY 1

/* Return codes of every call. */
#define AM_OK           0 /* completed successfully */
#define AM_ERR_NOT_INIT 1 /* AM_Init has not been called */
#define AM_ERR_BAD_ARG  2 /* an argument is invalid */
#define AM_ERR_RESOURCE 3 /* a resource is missing or exhausted */
#define AM_ERR_NOT_SENT 4 /* the message could not be sent */
#define AM_ERR_IN_USE   5 /* the resource is in use */
#define AM_ERR_IN_REPLY_HANDLER 6 /* clump: a request from a reply handler, which
                                   * sends nothing */

/* The name ("AM_ERR_BAD_ARG") and meaning ("an argument is invalid") of a return code;
 * static strings ("AM_ERR_UNKNOWN" for a value that is no code). */
const char *clump_error_name(int code);
const char *clump_error_desc(int code);

/* Status codes handler 0 receives. */
#define EBADARGS       1  /* the message was malformed */
#define EBADENTRY      2  /* translation table entry not bound */
#define EBADTAG        3  /* sender's tag did not match the destination's */
#define EBADHANDLER    4  /* no handler at that index at the destination */
#define EBADSEGOFF     5  /* offset and length fall outside the destination segment */
#define EBADLENGTH     6  /* payload longer than the limit */
#define EBADENDPOINT   7  /* the destination endpoint was freed */
#define ECONGESTION    8  /* congestion at the destination */
#define EUNREACHABLE   9  /* the destination (or its process) cannot be reached: the
                           * message never left */
#define EREPLYREJECTED 10 /* the requester refused the reply */
#define EOUTCOMEUNKNOWN 11 /* the destination stopped answering, or its process exited,
                             * after the message was sent: it may have run there or not
                             * (EUNREACHABLE says it never left) */

/* The name ("EUNREACHABLE") and meaning of a status handler 0 receives; static strings
 * ("E_UNKNOWN" for a value that is no status). */
const char *clump_status_name(int status);
const char *clump_status_desc(int status);

/* ---------------------------------------------------------------------------------- */
/* Initialization, limits                                                              */

int AM_Init(void);
int AM_Terminate(void); /* frees this thread's bundles and endpoints */

int AM_MaxShort(void);       /* 16 arguments */
int AM_MaxMedium(void);      /* bytes of a medium payload */
int AM_MaxLong(void);        /* bytes of a long payload or get */
int AM_MaxNumHandlers(void); /* 256 */
int AM_MaxNumTranslations(int *ntrans);
int AM_MaxSegLength(uintptr_t *nbytes);

/* The same limits as constants, for programs (AMUDP's among them) that size arrays or
 * write case labels with them: AM_MaxMedium() is then a constant expression. The
 * functions stay callable as (AM_MaxMedium)(). */
#define CLUMP_MAX_SHORT 16
#define CLUMP_MAX_MEDIUM 65536
#define CLUMP_MAX_LONG 1073741824
#define CLUMP_MAX_NUM_HANDLERS 256
#define AM_MaxShort() CLUMP_MAX_SHORT
#define AM_MaxMedium() CLUMP_MAX_MEDIUM
#define AM_MaxLong() CLUMP_MAX_LONG
#define AM_MaxNumHandlers() CLUMP_MAX_NUM_HANDLERS

/* ---------------------------------------------------------------------------------- */
/* Bundles and endpoints                                                               */

int AM_AllocateBundle(int type, eb_t *endb);
int AM_FreeBundle(eb_t bundle); /* frees its endpoints too */
int AM_AllocateEndpoint(eb_t bundle, ep_t *endp, en_t *endpoint_name);
/* Requests the endpoint sent over the network are acknowledged before it returns; those
 * still unacknowledged after CLUMP_NET_TIMEOUT_MS come back to handler 0 (EOUTCOMEUNKNOWN),
 * as does whatever else waits for handler 0, before it returns. */
int AM_FreeEndpoint(ep_t ea);
int AM_MoveEndpoint(ep_t ea, eb_t from_bundle, eb_t to_bundle);

/* The segment long messages write into and gets read from: any readable and writable
 * memory of the program (malloc'd at any alignment, static, on the stack), up to
 * AM_MaxSegLength bytes. It is used in place: its protection and every byte outside
 * [addr, addr+nbytes) stay untouched, and it must stay valid while it is the segment.
 * Memory that is not the program's, not writable, or not wholly mapped gets
 * AM_ERR_BAD_ARG. clump extension: addr NULL with nbytes > 0 lets the layer allocate a
 * zero-filled segment that peers of the host map (AM_GetSeg tells where). nbytes 0
 * removes the segment. */
int AM_SetSeg(ep_t ea, void *addr, uintptr_t nbytes);
int AM_GetSeg(ep_t ea, void **addr, uintptr_t *nbytes);

int AM_SetTag(ep_t ea, tag_t tag);
int AM_GetTag(ep_t ea, tag_t *tag);

/* ---------------------------------------------------------------------------------- */
/* Translation table (256 entries by default, up to AM_MaxNumTranslations)             */

int AM_Map(ep_t ea, int index, en_t name, tag_t tag);
int AM_MapAny(ep_t ea, int *index, en_t name, tag_t tag);
int AM_UnMap(ep_t ea, int index);
int AM_GetNumTranslations(ep_t ea, int *ntrans);
int AM_SetNumTranslations(ep_t ea, int ntrans);
int AM_GetTranslationInuse(ep_t ea, int index); /* AM_OK if in use, else AM_ERR_RESOURCE */
int AM_GetTranslationTag(ep_t ea, int index, tag_t *tag);
int AM_GetTranslationName(ep_t ea, int index, en_t *name);
int AM_SetExpectedResources(ep_t ea, int n_endpoints, int n_outstanding_requests);

/* ---------------------------------------------------------------------------------- */
/* Handler table                                                                       */

/* A NULL function clears the entry (handler 0: back to the default, which reports the
 * returned message on standard error). The macros cast any handler shape. */
int AM_SetHandler(ep_t ea, handler_t handler, amx_handler_fn_t function);
int AM_SetHandlerAny(ep_t ea, handler_t *handler, amx_handler_fn_t function);
#define AM_SetHandler(ea, handler, function) \
    (AM_SetHandler)((ea), (handler), (amx_handler_fn_t)(function))
#define AM_SetHandlerAny(ea, handler, function) \
    (AM_SetHandlerAny)((ea), (handler), (amx_handler_fn_t)(function))
int AM_GetNumHandlers(ep_t ea, int *nhandlers);
int AM_SetNumHandlers(ep_t ea, int nhandlers);

/* ---------------------------------------------------------------------------------- */
/* Events and polling                                                                  */

int AM_GetEventMask(eb_t eb, int *mask);
int AM_SetEventMask(eb_t eb, int mask);
/* Blocks (sleeping, not spinning) until the event of the mask, then polls. */
int AM_WaitSema(eb_t eb);
/* Runs the handlers of the messages waiting on the bundle's endpoints. */
int AM_Poll(eb_t bundle);

/* ---------------------------------------------------------------------------------- */
/* Message interrogation: valid only inside the handler the token was given to         */

int AM_GetSourceEndpoint(void *token, en_t *gan);
int AM_GetDestEndpoint(void *token, ep_t *endp);
int AM_GetMsgTag(void *token, tag_t *tagp);

/* clump extension, inside handler 0: the returned message's handler index, arguments
 * (args has room for 16) and the translation index it was sent through (-1 for a reply
 * or a get). Any pointer may be NULL. */
int clump_returned_msg(void *token, handler_t *handler, int32_t *args, int *numargs,
                       int *translation);

/* ---------------------------------------------------------------------------------- */
/* Requests and replies: N = 0..16 arguments, each a real function                     */
/*                                                                                     */
/*   AM_RequestN(ep_t ep, int dest, handler_t h, int32_t a0, ...)                      */
/*   AM_RequestIN(ep_t ep, int dest, handler_t h, void *src, int nbytes, a0, ...)      */
/*   AM_RequestXferN(ep_t ep, int dest, uintptr_t dest_offset, handler_t h,            */
/*                   void *src, int nbytes, a0, ...)                                   */
/*   AM_RequestXferAsyncN(...same...)  AM_ERR_IN_USE instead of waiting for credit     */
/*   AM_GetXferN(ep_t ep, int dest, uintptr_t src_offset, handler_t h,                 */
/*               uintptr_t dest_offset, int nbytes, a0, ...)                           */
/*       copies nbytes at src_offset of the destination's segment to dest_offset of    */
/*       this endpoint's segment, then runs local handler h (long shape) at a poll.    */
/*   AM_ReplyN(void *token, handler_t h, a0, ...)                                      */
/*   AM_ReplyIN(void *token, handler_t h, void *src, int nbytes, a0, ...)              */
/*   AM_ReplyXferN(void *token, uintptr_t dest_offset, handler_t h, void *src,         */
/*                 int nbytes, a0, ...)                                                */
/*                                                                                     */
/* A request handler may reply once; a reply handler may not send. A message that      */
/* cannot be delivered comes back to the sender's handler 0.                            */

#define CLUMP_ARGS0
#define CLUMP_ARGS1 , int32_t
#define CLUMP_ARGS2 CLUMP_ARGS1, int32_t
#define CLUMP_ARGS3 CLUMP_ARGS2, int32_t
#define CLUMP_ARGS4 CLUMP_ARGS3, int32_t
#define CLUMP_ARGS5 CLUMP_ARGS4, int32_t
#define CLUMP_ARGS6 CLUMP_ARGS5, int32_t
#define CLUMP_ARGS7 CLUMP_ARGS6, int32_t
#define CLUMP_ARGS8 CLUMP_ARGS7, int32_t
#define CLUMP_ARGS9 CLUMP_ARGS8, int32_t
#define CLUMP_ARGS10 CLUMP_ARGS9, int32_t
#define CLUMP_ARGS11 CLUMP_ARGS10, int32_t
#define CLUMP_ARGS12 CLUMP_ARGS11, int32_t
#define CLUMP_ARGS13 CLUMP_ARGS12, int32_t
#define CLUMP_ARGS14 CLUMP_ARGS13, int32_t
#define CLUMP_ARGS15 CLUMP_ARGS14, int32_t
#define CLUMP_ARGS16 CLUMP_ARGS15, int32_t

#define CLUMP_DECLARE_AM(N)                                                                  \
    int AM_Request##N(ep_t ep, int dest, handler_t h CLUMP_ARGS##N);                         \
    int AM_RequestI##N(ep_t ep, int dest, handler_t h, void *src, int nbytes CLUMP_ARGS##N); \
    int AM_RequestXfer##N(ep_t ep, int dest, uintptr_t dest_offset, handler_t h, void *src,  \
                          int nbytes CLUMP_ARGS##N);                                         \
    int AM_RequestXferAsync##N(ep_t ep, int dest, uintptr_t dest_offset, handler_t h,        \
                               void *src, int nbytes CLUMP_ARGS##N);                         \
    int AM_GetXfer##N(ep_t ep, int dest, uintptr_t src_offset, handler_t h,                  \
                      uintptr_t dest_offset, int nbytes CLUMP_ARGS##N);                      \
    int AM_Reply##N(void *token, handler_t h CLUMP_ARGS##N);                                 \
    int AM_ReplyI##N(void *token, handler_t h, void *src, int nbytes CLUMP_ARGS##N);         \
    int AM_ReplyXfer##N(void *token, uintptr_t dest_offset, handler_t h, void *src,          \
                        int nbytes CLUMP_ARGS##N);

CLUMP_DECLARE_AM(0)
CLUMP_DECLARE_AM(1)
CLUMP_DECLARE_AM(2)
CLUMP_DECLARE_AM(3)
CLUMP_DECLARE_AM(4)
CLUMP_DECLARE_AM(5)
CLUMP_DECLARE_AM(6)
CLUMP_DECLARE_AM(7)
CLUMP_DECLARE_AM(8)
CLUMP_DECLARE_AM(9)
CLUMP_DECLARE_AM(10)
CLUMP_DECLARE_AM(11)
CLUMP_DECLARE_AM(12)
CLUMP_DECLARE_AM(13)
CLUMP_DECLARE_AM(14)
CLUMP_DECLARE_AM(15)
CLUMP_DECLARE_AM(16)

#undef CLUMP_DECLARE_AM

#ifdef __cplusplus
}
#endif

#endif /* CLUMP_AMII_H */
