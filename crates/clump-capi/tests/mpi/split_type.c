/* MPI_Comm_split_type: MPI_COMM_TYPE_SHARED partitions the job by host (each process's
 * communicator holds exactly the processes with its host's leader, and exactly those
 * share its MPI_Get_processor_name, virtual hosts included), the guided types
 * follow the mpi_shared_memory resource and give MPI_COMM_NULL for others; also the name
 * of MPI_COMM_NULL, and the arguments gather and scatter ignore away from the root. */
#include "check.h"
#include <string.h>

static void shared(int rank, int size)
{
    MPI_Comm host;
    int n, leader = rank, leaders[64];
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host));
    CHECK(host != MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_size(host, &n));
    CHECK_OK(MPI_Bcast(&leader, 1, MPI_INT, 0, host));
    CHECK_OK(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD));
    int same = 0;
    for (int i = 0; i < size; i++)
        same += leaders[i] == leader;
    CHECK(same == n && leader <= rank);
    MPI_Comm_free(&host);

    static char names[64][MPI_MAX_PROCESSOR_NAME];
    int len;
    CHECK_OK(MPI_Get_processor_name(names[rank], &len));
    CHECK(len > 0 && len == (int)strlen(names[rank]));
    CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names, MPI_MAX_PROCESSOR_NAME,
                           MPI_CHAR, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK((strcmp(names[i], names[rank]) == 0) == (leaders[i] == leader));

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &host));
    int m;
    CHECK(host != MPI_COMM_NULL && MPI_Comm_size(host, &m) == MPI_SUCCESS && m == n);
    MPI_Comm_free(&host);
    MPI_Info_set(info, "mpi_hw_resource_type", "socket");
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &host));
    CHECK(host == MPI_COMM_NULL);
    MPI_Info_free(&info);
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &host));
    CHECK(host == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &host));
    CHECK(host == MPI_COMM_NULL);
}

static void ignored_arguments(int rank, int size)
{
    int mine = rank, all[64] = {0}, got = -1;
    /* Away from the root, gather's receive and scatter's send arguments are not read. */
    if (rank == 0)
        CHECK_OK(MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD));
    else
        CHECK_OK(MPI_Gather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    for (int i = 0; rank == 0 && i < size; i++)
        CHECK(all[i] == i);
    if (rank == 0)
        CHECK_OK(MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD));
    else
        CHECK_OK(MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, &got, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(got == rank);
}

int main(int argc, char **argv)
{
    int rank, size, len;
    start_returning_errors(&argc, &argv, &rank, &size);
    shared(rank, size);
    ignored_arguments(rank, size);
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0);
    MPI_Finalize();
    printf("split_type ok\n");
    return 0;
}
