/* What every clump C example and test shares: stop the whole job on a failed call. */
#ifndef CLUMP_EXAMPLE_CHECK_H
#define CLUMP_EXAMPLE_CHECK_H

#include <stdio.h>
#include <clump/amii.h>
#include <clump/spmd.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        int rc_ = (call);                                                        \
        if (rc_ != AM_OK) {                                                      \
            fprintf(stderr, "rank %d: %s:%d: %s returned %s (%s)\n",            \
                    clump_spmd_rank(), __FILE__, __LINE__, #call,                \
                    clump_error_name(rc_), clump_error_desc(rc_));               \
            clump_spmd_exit(1);                                                  \
        }                                                                        \
    } while (0)

#define EXPECT(cond)                                                             \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "rank %d: %s:%d: expected %s\n", clump_spmd_rank(),  \
                    __FILE__, __LINE__, #cond);                                  \
            clump_spmd_exit(1);                                                  \
        }                                                                        \
    } while (0)

/* Stops with a clear message when the job has fewer than n ranks. */
#define NEEDS_RANKS(n)                                                           \
    do {                                                                         \
        if (clump_spmd_size() < (n)) {                                           \
            fprintf(stderr, "%s needs -n %d or more (this job has %d)\n",        \
                    __FILE__, (n), clump_spmd_size());                           \
            clump_spmd_exit(2);                                                  \
        }                                                                        \
    } while (0)

/* Polls bundle eb until the int *counter reaches 0 (a split-phase sync). */
#define SYNC(eb, counter)                                                        \
    do {                                                                         \
        while ((counter) != 0) CHECK(AM_Poll(eb));                               \
    } while (0)

#endif
