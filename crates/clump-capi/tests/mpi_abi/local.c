/* The MPI functions libclump answers without a job, called from C through mpi.h: error
 * classes and strings, clocks, versions, the processor name, Alloc_mem/Free_mem, each by
 * its MPI_ and its PMPI_ name. Prints "local ok". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(void) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    CHECK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls) == MPI_SUCCESS && cls == MPI_ERR_TRUNCATE);
    CHECK(PMPI_Error_string(MPI_ERR_RANK, text, &len) == MPI_SUCCESS);
    CHECK(strncmp(text, "MPI_ERR_RANK", 12) == 0 && len == (int)strlen(text));
    CHECK(MPI_Error_class(-7, &cls) == MPI_ERR_ARG);

    double t0 = MPI_Wtime(), t1 = PMPI_Wtime();
    CHECK(t1 >= t0 && MPI_Wtick() > 0);
    int v = 0, sv = -1;
    CHECK(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == MPI_VERSION && sv == MPI_SUBVERSION);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
    CHECK(MPI_Get_library_version(lib, &len) == MPI_SUCCESS && strncmp(lib, "clump", 5) == 0);
    CHECK(MPI_Get_processor_name(host, &len) == MPI_SUCCESS && len == (int)strlen(host));

    double *mem = NULL;
    CHECK(MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &mem) == MPI_SUCCESS && mem);
    for (int i = 0; i < 1000; i++) mem[i] = i;
    CHECK(MPI_Free_mem(mem) == MPI_SUCCESS);
    CHECK(MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem) == MPI_ERR_ARG);
    printf("local ok\n");
    return 0;
}
