/* Process topologies: MPI_Dims_create's balanced grids, with given dimensions kept, and
 * its refusal of impossible requests; Cartesian communicators (create, coordinates,
 * ranks, shifts, sub-grids, map), MPI_Topo_test, and the topology Comm_dup keeps. */
#include "check.h"

static void dims(int size)
{
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
}

/* A periodic ring of every process: shifts wrap, coordinates wrap in MPI_Cart_rank. */
static void ring(int rank, int size)
{
    int d[1] = {size}, p[1] = {1}, kind, nd, r, src, dst;
    MPI_Comm ring;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &ring));
    CHECK_OK(MPI_Topo_test(ring, &kind));
    CHECK(kind == MPI_CART);
    CHECK_OK(MPI_Cartdim_get(ring, &nd));
    CHECK(nd == 1);
    CHECK_OK(MPI_Comm_rank(ring, &r));
    CHECK(r == rank);
    CHECK_OK(MPI_Cart_shift(ring, 0, 1, &src, &dst));
    CHECK(src == (rank + size - 1) % size && dst == (rank + 1) % size);
    CHECK_OK(MPI_Cart_shift(ring, 0, -2, &src, &dst));
    CHECK(src == (rank + 2) % size && dst == (rank + 2 * size - 2) % size);
    int c[1] = {rank + size};
    CHECK_OK(MPI_Cart_rank(ring, c, &r));
    CHECK(r == rank);

    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(ring, &dup));
    CHECK_OK(MPI_Topo_test(dup, &kind));
    CHECK(kind == MPI_CART);
    int gd[1], gp[1], gc[1];
    CHECK_OK(MPI_Cart_get(dup, 1, gd, gp, gc));
    CHECK(gd[0] == size && gp[0] == 1 && gc[0] == rank);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&ring);
}

/* A non-periodic grid: shifts off the edge give MPI_PROC_NULL; sub-grids split it. */
static void grid(int rank, int size)
{
    int d[2] = {0, 0}, p[2] = {0, 0}, c[2], src, dst, r, n;
    MPI_Dims_create(size, 2, d);
    MPI_Comm g;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, d, p, 1, &g));
    CHECK_OK(MPI_Cart_coords(g, rank, 2, c));
    CHECK(c[0] == rank / d[1] && c[1] == rank % d[1]);
    CHECK_OK(MPI_Cart_rank(g, c, &r));
    CHECK(r == rank);
    CHECK_OK(MPI_Cart_shift(g, 1, 1, &src, &dst));
    CHECK(src == (c[1] == 0 ? MPI_PROC_NULL : rank - 1));
    CHECK(dst == (c[1] == d[1] - 1 ? MPI_PROC_NULL : rank + 1));
    int outside[2] = {d[0], 0}, eclass;
    MPI_Error_class(MPI_Cart_rank(g, outside, &r), &eclass);
    CHECK(eclass != MPI_SUCCESS);

    int keep[2] = {0, 1};
    MPI_Comm row;
    CHECK_OK(MPI_Cart_sub(g, keep, &row));
    CHECK_OK(MPI_Comm_size(row, &n));
    CHECK(n == d[1]);
    CHECK_OK(MPI_Comm_rank(row, &r));
    CHECK(r == c[1]);
    CHECK_OK(MPI_Cartdim_get(row, &n));
    CHECK(n == 1);
    MPI_Comm_free(&row);

    /* Keeping no dimension: a zero-dimensional grid on rank 0, nothing elsewhere. */
    int none[2] = {0, 0};
    CHECK_OK(MPI_Cart_sub(g, none, &row));
    CHECK((row == MPI_COMM_NULL) == (rank != 0));
    if (row != MPI_COMM_NULL) {
        CHECK_OK(MPI_Cartdim_get(row, &n));
        CHECK(n == 0);
        MPI_Comm_free(&row);
    }
    MPI_Comm_free(&g);

    /* Fewer grid points than processes: the rest get MPI_COMM_NULL; too many is an error. */
    int one[1] = {1};
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, one, p, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (rank != 0));
    if (g != MPI_COMM_NULL)
        MPI_Comm_free(&g);
    CHECK_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, one, p, &r));
    CHECK(r == (rank == 0 ? 0 : MPI_UNDEFINED));
    int many[1] = {size + 1};
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, many, p, 0, &g) != MPI_SUCCESS);

    /* Zero dimensions: a grid of one process. */
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (rank != 0));
    if (g != MPI_COMM_NULL) {
        CHECK_OK(MPI_Comm_size(g, &n));
        CHECK(n == 1);
        CHECK_OK(MPI_Cart_rank(g, NULL, &r));
        CHECK(r == 0);
        MPI_Comm_free(&g);
    }
}

int main(int argc, char **argv)
{
    int rank, size, kind, eclass, n;
    start_returning_errors(&argc, &argv, &rank, &size);

    dims(size);
    ring(rank, size);
    grid(rank, size);

    CHECK_OK(MPI_Topo_test(MPI_COMM_WORLD, &kind));
    CHECK(kind == MPI_UNDEFINED);
    MPI_Error_class(MPI_Cartdim_get(MPI_COMM_WORLD, &n), &eclass);
    CHECK(eclass == MPI_ERR_TOPOLOGY);

    MPI_Finalize();
    printf("topology ok\n");
    return 0;
}
