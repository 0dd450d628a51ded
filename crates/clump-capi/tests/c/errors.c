/* The error code of every kind of bad argument, in one process (run it with -n 1):
 * calls before AM_Init, forged, stale and foreign handles, bad indices, lengths and
 * pointers, tokens used outside their handler, replies that break the rules. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define IS(call, code)                                                                \
    do {                                                                              \
        int rc_ = (call);                                                             \
        if (rc_ != (code)) {                                                          \
            fprintf(stderr, "%s:%d: %s returned %d, expected %s\n", __FILE__, __LINE__, \
                    #call, rc_, #code);                                               \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

enum { H_REQ = 1, H_REP = 2, H_NOREPLY = 3 };

static eb_t eb;
static ep_t ep;
static void *saved_token;
static int replies;

/* Replies once; a second reply and queries with a forged token are refused. */
static void req(void *token, int32_t a0) {
    en_t name;
    saved_token = token;
    IS(AM_Reply1(token, H_REP, a0), AM_OK);
    IS(AM_Reply1(token, H_REP, a0), AM_ERR_BAD_ARG);
    IS(AM_Reply0((char *)token + 1000, H_REP), AM_ERR_BAD_ARG);
    IS(AM_GetSourceEndpoint(NULL, &name), AM_ERR_BAD_ARG);
    IS(AM_GetSourceEndpoint(token, NULL), AM_ERR_BAD_ARG);
    IS(clump_returned_msg(token, NULL, NULL, NULL, NULL), AM_ERR_BAD_ARG); /* not handler 0 */
}

/* A reply handler may not send: no reply, and no request of any kind (its own code). */
static void rep(void *token, int32_t a0) {
    (void)a0;
    IS(AM_Reply0(token, H_REP), AM_ERR_BAD_ARG);
    IS(AM_Request1(ep, 0, H_NOREPLY, 1), AM_ERR_IN_REPLY_HANDLER);
    IS(AM_RequestI0(ep, 0, H_NOREPLY, "abc", 3), AM_ERR_IN_REPLY_HANDLER);
    if (strstr(clump_error_desc(AM_ERR_IN_REPLY_HANDLER), "reply handler") == NULL) exit(1);
    replies++;
}

static void noreply(void *token) { (void)token; }

static void *foreign_thread(void *arg) {
    (void)arg;
    tag_t tag;
    IS(AM_GetTag(ep, &tag), AM_ERR_BAD_ARG); /* ep belongs to the main thread */
    IS(AM_Poll(eb), AM_ERR_BAD_ARG);
    return NULL;
}

/* Allocates a bundle and an endpoint and exits without freeing them. */
static eb_t exited_eb;
static ep_t exited_ep;
static void *exiting_thread(void *arg) {
    (void)arg;
    en_t name;
    IS(AM_AllocateBundle(AM_SEQ, &exited_eb), AM_OK);
    IS(AM_AllocateEndpoint(exited_eb, &exited_ep, &name), AM_OK);
    return NULL;
}

/* A later thread (often with the same pthread_t) cannot use them: they went with their thread. */
static void *later_thread(void *arg) {
    (void)arg;
    tag_t tag;
    IS(AM_Poll(exited_eb), AM_ERR_BAD_ARG);
    IS(AM_GetTag(exited_ep, &tag), AM_ERR_BAD_ARG);
    return NULL;
}

static void handles(void) {
    ep_t forged = (ep_t)(uintptr_t)0x12345;
    eb_t eb2;
    ep_t ep2;
    en_t name2;
    tag_t tag;
    IS(AM_GetTag(NULL, &tag), AM_ERR_BAD_ARG);
    IS(AM_GetTag(forged, &tag), AM_ERR_BAD_ARG);
    IS(AM_GetTag(ep, NULL), AM_ERR_BAD_ARG);
    IS(AM_Poll(NULL), AM_ERR_BAD_ARG);
    IS(AM_AllocateBundle(AM_PAR, NULL), AM_ERR_BAD_ARG); /* AM_PAR itself: par_threads.c */
    IS(AM_AllocateBundle(7, &eb2), AM_ERR_BAD_ARG);
    IS(AM_AllocateBundle(AM_SEQ, NULL), AM_ERR_BAD_ARG);
    IS(AM_AllocateEndpoint((eb_t)forged, &ep2, &name2), AM_ERR_BAD_ARG);
    IS(AM_AllocateEndpoint(eb, NULL, &name2), AM_ERR_BAD_ARG);
    IS(AM_AllocateEndpoint(eb, &ep2, NULL), AM_ERR_BAD_ARG);
    /* Freed endpoints and bundles, and the endpoints of a freed bundle. */
    IS(AM_AllocateBundle(AM_SEQ, &eb2), AM_OK);
    IS(AM_AllocateEndpoint(eb2, &ep2, &name2), AM_OK);
    IS(AM_MoveEndpoint(ep2, eb, eb2), AM_ERR_BAD_ARG); /* it is not in eb */
    IS(AM_MoveEndpoint(ep2, eb2, (eb_t)forged), AM_ERR_BAD_ARG);
    IS(AM_FreeBundle(eb2), AM_OK);
    IS(AM_GetTag(ep2, &tag), AM_ERR_BAD_ARG);
    IS(AM_FreeEndpoint(ep2), AM_ERR_BAD_ARG);
    IS(AM_FreeBundle(eb2), AM_ERR_BAD_ARG);
    IS(AM_AllocateEndpoint(eb, &ep2, &name2), AM_OK);
    IS(AM_FreeEndpoint(ep2), AM_OK);
    IS(AM_SetTag(ep2, 1), AM_ERR_BAD_ARG);
    /* Handles belong to their thread. */
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, foreign_thread, NULL) == 0);
    EXPECT(pthread_join(t, NULL) == 0);
    /* A thread's bundles and endpoints are freed when it exits. */
    EXPECT(pthread_create(&t, NULL, exiting_thread, NULL) == 0);
    EXPECT(pthread_join(t, NULL) == 0);
    EXPECT(pthread_create(&t, NULL, later_thread, NULL) == 0);
    EXPECT(pthread_join(t, NULL) == 0);
}

static void tables(en_t self, tag_t tag) {
    int n, idx;
    en_t bad = self, got;
    IS(AM_Map(ep, -1, self, tag), AM_ERR_BAD_ARG);
    IS(AM_GetNumTranslations(ep, &n), AM_OK);
    IS(AM_Map(ep, n, self, tag), AM_ERR_BAD_ARG);
    bad.bytes[CLUMP_NAME_BYTES - 1] ^= 0xff;
    IS(AM_Map(ep, 3, bad, tag), AM_ERR_BAD_ARG);
    IS(AM_Map(ep, 0, self, tag), AM_ERR_RESOURCE); /* mapped already */
    IS(AM_MapAny(ep, NULL, self, tag), AM_ERR_BAD_ARG);
    IS(AM_UnMap(ep, 7), AM_ERR_BAD_ARG);
    IS(AM_GetTranslationInuse(ep, 7), AM_ERR_RESOURCE);
    IS(AM_GetTranslationInuse(ep, -7), AM_ERR_BAD_ARG);
    IS(AM_GetTranslationName(ep, 7, &got), AM_ERR_RESOURCE);
    IS(AM_GetTranslationTag(ep, 0, NULL), AM_ERR_BAD_ARG);
    IS(AM_SetNumTranslations(ep, 0), AM_ERR_BAD_ARG);
    IS(AM_MaxNumTranslations(&n), AM_OK);
    IS(AM_SetNumTranslations(ep, n + 1), AM_ERR_RESOURCE);
    IS(AM_Map(ep, 9, self, tag), AM_OK);
    IS(AM_SetNumTranslations(ep, 9), AM_ERR_IN_USE);
    IS(AM_MapAny(ep, &idx, self, tag), AM_OK);
    EXPECT(idx == 1);
    IS(AM_SetHandler(ep, 0, NULL), AM_OK);
    IS(AM_SetNumHandlers(ep, 0), AM_ERR_BAD_ARG);
    IS(AM_SetNumHandlers(ep, 257), AM_ERR_RESOURCE);
    IS(AM_SetNumHandlers(ep, 2), AM_ERR_IN_USE); /* H_NOREPLY is 3 */
    IS(AM_SetNumHandlers(ep, 8), AM_OK);
    IS(AM_SetHandler(ep, 8, req), AM_ERR_BAD_ARG);
    handler_t h;
    IS(AM_SetHandlerAny(ep, NULL, req), AM_ERR_BAD_ARG);
    IS(AM_SetHandlerAny(ep, &h, NULL), AM_ERR_BAD_ARG);
    IS(AM_SetHandlerAny(ep, &h, req), AM_OK);
    EXPECT(h == 4);
    IS(AM_SetHandler(ep, h, NULL), AM_OK);
}

static void sends(en_t self, tag_t tag) {
    char buf[16] = {0};
    IS(AM_Request0(ep, 5, H_REQ), AM_ERR_BAD_ARG);     /* unmapped */
    IS(AM_Request0(ep, -1, H_REQ), AM_ERR_BAD_ARG);
    IS(AM_Request0(ep, 0, 0), AM_ERR_BAD_ARG);         /* handler 0 is reserved */
    IS(AM_RequestI0(ep, 0, H_REQ, NULL, 4), AM_ERR_BAD_ARG);
    IS(AM_RequestI0(ep, 0, H_REQ, buf, -1), AM_ERR_BAD_ARG);
    IS(AM_RequestXfer0(ep, 0, 0, H_REQ, NULL, 4), AM_ERR_BAD_ARG);
    IS(AM_GetXfer0(ep, 0, 0, H_REQ, 0, 4), AM_ERR_BAD_ARG); /* no local segment */
    IS(AM_GetXfer0(ep, 0, 0, H_REQ, 0, -4), AM_ERR_BAD_ARG);
    IS(AM_SetSeg(ep, (void *)4096, 16), AM_ERR_BAD_ARG);     /* not the program's memory */
    IS(AM_Reply0(NULL, H_REP), AM_ERR_BAD_ARG);
    /* A token is dead once its handler returned. */
    IS(AM_Request1(ep, 0, H_REQ, 5), AM_OK);
    while (replies < 1) IS(AM_Poll(eb), AM_OK);
    IS(AM_Reply0(saved_token, H_REP), AM_ERR_BAD_ARG);
    en_t name;
    ep_t dest;
    tag_t msg_tag;
    IS(AM_GetSourceEndpoint(saved_token, &name), AM_ERR_BAD_ARG);
    IS(AM_GetDestEndpoint(saved_token, &dest), AM_ERR_BAD_ARG);
    IS(AM_GetMsgTag(saved_token, &msg_tag), AM_ERR_BAD_ARG);
    /* Async long sends refuse to wait once the credit window is full. */
    int sent = 0, rc;
    IS(AM_SetSeg(ep, NULL, 4096), AM_OK);
    while ((rc = AM_RequestXferAsync0(ep, 0, 0, H_NOREPLY, buf, 0)) == AM_OK) sent++;
    IS(rc, AM_ERR_IN_USE);
    EXPECT(sent >= 1);
    IS(AM_UnMap(ep, 0), AM_ERR_IN_USE); /* requests in flight through it */
    IS(AM_SetEventMask(eb, 5), AM_ERR_BAD_ARG);
    IS(AM_WaitSema(eb), AM_ERR_BAD_ARG); /* no event could end the wait */
    while ((rc = AM_UnMap(ep, 0)) == AM_ERR_IN_USE) IS(AM_Poll(eb), AM_OK);
    IS(rc, AM_OK);
    IS(AM_Map(ep, 0, self, tag), AM_OK);
}

int main(void) {
    eb_t early;
    IS(AM_AllocateBundle(AM_SEQ, &early), AM_ERR_NOT_INIT);
    IS(AM_Poll(NULL), AM_ERR_NOT_INIT);
    IS(AM_Init(), AM_OK);
    en_t self;
    tag_t tag = 0x5eed;
    IS(AM_AllocateBundle(AM_SEQ, &eb), AM_OK);
    IS(AM_AllocateEndpoint(eb, &ep, &self), AM_OK);
    IS(AM_SetTag(ep, tag), AM_OK);
    IS(AM_Map(ep, 0, self, tag), AM_OK);
    IS(AM_SetHandler(ep, H_REQ, req), AM_OK);
    IS(AM_SetHandler(ep, H_REP, rep), AM_OK);
    IS(AM_SetHandler(ep, H_NOREPLY, noreply), AM_OK);
    handles();
    sends(self, tag);
    tables(self, tag);
    IS(AM_Terminate(), AM_OK);
    IS(AM_Poll(eb), AM_ERR_NOT_INIT);
    printf("errors ok\n");
    return 0;
}
