/* Graph topologies: a ring as an MPI_Graph_create graph (its arrays, neighbours, map),
 * and as distributed graphs, given adjacently (weighted and MPI_UNWEIGHTED) and as edges
 * any process may name (MPI_Dist_graph_create). */
#include "check.h"

static void graph(int rank, int size)
{
    int index[64], edges[128], kind, n, e, nb[2], got[128];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm g;
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    CHECK_OK(MPI_Topo_test(g, &kind));
    CHECK(kind == MPI_GRAPH);
    CHECK_OK(MPI_Graphdims_get(g, &n, &e));
    CHECK(n == size && e == 2 * size);
    CHECK_OK(MPI_Graph_get(g, size, 2 * size, got, got + size));
    for (int i = 0; i < size; i++)
        CHECK(got[i] == index[i] && got[size + 2 * i] == edges[2 * i]);
    CHECK_OK(MPI_Graph_neighbors_count(g, rank, &n));
    CHECK(n == 2);
    CHECK_OK(MPI_Graph_neighbors(g, rank, 2, nb));
    CHECK(nb[0] == (rank + size - 1) % size && nb[1] == (rank + 1) % size);
    int lone[1] = {0};
    CHECK_OK(MPI_Graph_map(MPI_COMM_WORLD, 1, lone, NULL, &n));
    CHECK(n == (rank == 0 ? 0 : MPI_UNDEFINED));

    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(g, &dup));
    CHECK_OK(MPI_Topo_test(dup, &kind));
    CHECK(kind == MPI_GRAPH);
    int eclass;
    MPI_Error_class(MPI_Cartdim_get(dup, &n), &eclass);
    CHECK(eclass == MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);

    int bad_edge[1] = {size};
    int one[1] = {1};
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, 1, one, bad_edge, 0, &g) != MPI_SUCCESS);
}

static void adjacent(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int src[1] = {left}, sw[1] = {10 + left}, dst[1] = {right}, dw[1] = {10 + rank};
    int in, out, weighted, kind, s[1], w[1], d[1], v[1];
    MPI_Comm dg;
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, sw, 1, dst, dw,
                                            MPI_INFO_NULL, 0, &dg));
    CHECK_OK(MPI_Topo_test(dg, &kind));
    CHECK(kind == MPI_DIST_GRAPH);
    CHECK_OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && weighted);
    CHECK_OK(MPI_Dist_graph_neighbors(dg, 1, s, w, 1, d, v));
    CHECK(s[0] == left && w[0] == 10 + left && d[0] == right && v[0] == 10 + rank);
    MPI_Comm_free(&dg);

    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    CHECK_OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted);
    MPI_Comm_free(&dg);

    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0,
                                            NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg));
    CHECK_OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
    CHECK(in == 0 && out == 0);
    MPI_Comm_free(&dg);
}

/* Rank 0 names every edge of the ring (i -> i+1, weight i); each process learns its own. */
static void general(int rank, int size)
{
    int sources[64], degrees[64], dests[64], weights[64];
    int n = rank == 0 ? size : 0;
    for (int i = 0; i < n; i++) {
        sources[i] = i;
        degrees[i] = 1;
        dests[i] = (i + 1) % size;
        weights[i] = i;
    }
    MPI_Comm dg;
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, weights,
                                   MPI_INFO_NULL, 0, &dg));
    int in, out, weighted, s[2], w[2], d[2], v[2];
    CHECK_OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && weighted);
    CHECK_OK(MPI_Dist_graph_neighbors(dg, 1, s, w, 1, d, v));
    int left = (rank + size - 1) % size;
    CHECK(s[0] == left && w[0] == left && d[0] == (rank + 1) % size && v[0] == rank);
    MPI_Comm_free(&dg);

    int bad[1] = {size}, deg[1] = {1}, me[1] = {rank};
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, deg, bad, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &dg) != MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    graph(rank, size);
    adjacent(rank, size);
    general(rank, size);
    MPI_Finalize();
    printf("graphs ok\n");
    return 0;
}
