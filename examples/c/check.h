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
            fprintf(stderr, "rank %d: %s:%d: %s returned %d\n", clump_spmd_rank(), \
                    __FILE__, __LINE__, #call, rc_);                             \
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

/* Polls bundle eb until the int *counter reaches 0 (a split-phase sync). */
#define SYNC(eb, counter)                                                        \
    do {                                                                         \
        while ((counter) != 0) CHECK(AM_Poll(eb));                               \
    } while (0)

#endif
