/* A program of both faces, the MPI standard ABI (libmpi_abi.so.1) and OpenSHMEM
 * (libclump.so): the loader must map one library for both, so that the process holds one
 * clump runtime. Prints how many loaded objects are clump's and whether MPI_Init and
 * shmem_init live in the same one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static int count(struct dl_phdr_info *info, size_t size, void *clump_objects) {
    (void)size;
    if (strstr(info->dlpi_name, "libclump") || strstr(info->dlpi_name, "libmpi_abi"))
        ++*(int *)clump_objects;
    return 0;
}

int main(void) {
    int clump_objects = 0;
    dl_iterate_phdr(count, &clump_objects);
    Dl_info mpi, shmem;
    if (!dladdr((void *)MPI_Init, &mpi) || !dladdr((void *)shmem_init, &shmem)) return 1;
    printf("%d clump objects, %s\n", clump_objects,
           mpi.dli_fbase == shmem.dli_fbase ? "one runtime" : "two runtimes");
    return 0;
}
