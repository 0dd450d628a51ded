/* What every OpenSHMEM test program shares: a check that names the PE and the line and
 * ends the whole job when it fails. */
#ifndef SHMEM_TEST_CHECK_H
#define SHMEM_TEST_CHECK_H

#include <shmem.h>
#include <stdio.h>

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s\n", shmem_my_pe(),       \
                    __FILE__, __LINE__, #cond);                                       \
            shmem_global_exit(1);                                                     \
        }                                                                             \
    } while (0)

#endif
