/* clump/amudp_spmd.h: AMUDP's SPMD calls over clump's job (clump/spmd.h), for
 * programs run by `clump run -n N ./prog`, which plays AMUDP's master.
 */
#ifndef CLUMP_AMUDP_SPMD_H
#define CLUMP_AMUDP_SPMD_H

#include <clump/amudp.h>
#include <clump/spmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* AMUDP's spawn function type; clump's launcher starts the processes instead. */
typedef int (*amudp_spawnfn_t)(int nproc, int argc, char **argv, char **extra_env);
typedef void (*amudp_exitcallback_t)(int);

/* Joins the job like clump_spmd_startup. nproc must be 0 or the job's size
 * (AM_ERR_BAD_ARG otherwise); networkdepth and spawnfn are ignored; *networkpid (if not
 * NULL) receives the job's tag. Collective: every rank calls it. */
int AMUDP_SPMDStartup(int *argc, char ***argv, int nproc, int networkdepth,
                      amudp_spawnfn_t spawnfn, uint64_t *networkpid, eb_t *eb, ep_t *ep);

/* Runs the exit callback (if any), then ends the whole job like clump_spmd_exit. */
int AMUDP_SPMDExit(int exitcode);
/* The function that ends this process at once after flushing stdio (the launcher then
 * ends the job); a program may call it or replace it. */
extern void (*AMUDP_SPMDkillmyprocess)(int);
/* Installs the function AMUDP_SPMDExit calls first (NULL for none). */
int AMUDP_SPMDSetExitCallback(amudp_exitcallback_t fp);

int AMUDP_SPMDBarrier(void);
int AMUDP_SPMDAllGather(void *source, void *dest, size_t len);
/* Rank 0's value of name at start-up (the same on every rank), or NULL. */
const char *AMUDP_SPMDgetenvMaster(const char *name);
/* Nonzero in a process started by `clump run`. */
int AMUDP_SPMDIsWorker(char **argv);
int AMUDP_SPMDMyProc(void);
int AMUDP_SPMDNumProcs(void);

#define MyProc() AMUDP_SPMDMyProc()
#define NumProcs() AMUDP_SPMDNumProcs()
#define SPMDExit AMUDP_SPMDExit
#define SPMDkillmyprocess AMUDP_SPMDkillmyprocess
#define SPMDSetExitCallback AMUDP_SPMDSetExitCallback
#define SPMDBarrier AMUDP_SPMDBarrier
#define SPMDAllGather AMUDP_SPMDAllGather
#define SPMDgetenvMaster AMUDP_SPMDgetenvMaster
#define SPMDIsWorker AMUDP_SPMDIsWorker
#define AMX_SPMDStartup(pargc, pargv, networkdepth, pnetworkpid, peb, pep) \
    AMUDP_SPMDStartup((pargc), (pargv), 0, (networkdepth), NULL, (pnetworkpid), (peb), (pep))
#define AMX_SPMDExit AMUDP_SPMDExit
#define AMX_SPMDSetExitCallback AMUDP_SPMDSetExitCallback
#define AMX_SPMDkillmyprocess AMUDP_SPMDkillmyprocess
#define AMX_SPMDIsWorker AMUDP_SPMDIsWorker
#define AMX_SPMDBarrier AMUDP_SPMDBarrier
#define AMX_SPMDAllGather AMUDP_SPMDAllGather
#define AMX_SPMDgetenvMaster AMUDP_SPMDgetenvMaster
#define AMX_SPMDMyProc AMUDP_SPMDMyProc
#define AMX_SPMDNumProcs AMUDP_SPMDNumProcs

#ifdef __cplusplus
}
#endif

#endif /* CLUMP_AMUDP_SPMD_H */
