/* Process topologies: MPI_Dims_create's balanced grids, with given dimensions kept,
 * and its refusal of impossible requests. */
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int d2[2] = {0, 0};
    CHECK_OK(MPI_Dims_create(size, 2, d2));
    CHECK(d2[0] * d2[1] == size && d2[0] >= d2[1]);
    CHECK(size != 4 || (d2[0] == 2 && d2[1] == 2));

    int d3[3] = {0, 0, 0};
    CHECK_OK(MPI_Dims_create(60, 3, d3));
    CHECK(d3[0] == 5 && d3[1] == 4 && d3[2] == 3);

    int kept[3] = {0, 5, 0};
    CHECK_OK(MPI_Dims_create(60, 3, kept));
    CHECK(kept[0] == 4 && kept[1] == 5 && kept[2] == 3);

    CHECK_OK(MPI_Dims_create(1, 0, NULL));

    int bad[2] = {7, 0}, eclass;
    MPI_Error_class(MPI_Dims_create(60, 2, bad), &eclass);
    CHECK(eclass == MPI_ERR_ARG || eclass == MPI_ERR_DIMS);

    MPI_Finalize();
    printf("topology ok\n");
    return 0;
}
