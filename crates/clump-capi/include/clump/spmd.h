/* clump/spmd.h: start-up for SPMD programs run by `clump run -n N ./prog`.
 *
 * Every call returns AM_OK or an AM_ERR_* code of clump/amii.h unless it says otherwise.
 * Like bundles and endpoints, the job belongs to the thread that joined it.
 */
#ifndef CLUMP_SPMD_H
#define CLUMP_SPMD_H

#include <clump/amii.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Joins the job (calling AM_Init if needed) and returns a bundle and an endpoint whose
 * translation i reaches rank i, every translation and the endpoint with the job's tag,
 * and AM_SetExpectedResources done. argc and argv are left as they are (either may be
 * NULL). A process started without the launcher is a job of one. */
int clump_spmd_startup(int *argc, char ***argv, eb_t *bundle, ep_t *endpoint);

/* Why this thread's last clump_spmd_startup failed ("clump_spmd_startup: environment
 * variable CLUMP_CREDITS=\"0\" is invalid: ..."), or NULL. clump_spmd_startup also prints
 * it on stderr. Valid until the next clump_spmd_startup of this thread. */
const char *clump_spmd_error(void);

/* This process's rank and the job's size; -1 before clump_spmd_startup. */
int clump_spmd_rank(void);
int clump_spmd_size(void);

/* Waits until every rank arrives, polling the start-up bundle meanwhile. */
int clump_spmd_barrier(void);

/* Every rank contributes len bytes at src (at most 1 MiB); dst receives size * len
 * bytes, rank 0's first. Polls the start-up bundle while it waits. */
int clump_spmd_allgather(const void *src, void *dst, size_t len);

/* The value of environment variable name in the launcher's environment, or NULL. */
const char *clump_spmd_getenv(const char *name);

/* Ends the whole job with exit status `status`, after flushing this process's stdio.
 * Other ranks that are exiting too get a moment to finish and flush theirs; the rest
 * are stopped. The first call never returns (declared int like AMUDP's SPMDExit). A call
 * from a signal or atexit handler while it runs returns 0 at once, so that exit(3) goes
 * on flushing; a call from another thread then waits for the process to end. */
int clump_spmd_exit(int status);

#ifdef __cplusplus
}
#endif

#endif /* CLUMP_SPMD_H */
