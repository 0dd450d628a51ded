/* Matched probes and their receives (MPI_Mprobe/Improbe/Mrecv/Imrecv): a matched message
 * is no longer there for other receives; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. Also
 * MPI_Request_get_status, the status setters and getters, and the error field a
 * successful receive leaves alone. */
#include "check.h"
#include <string.h>

static void matched(int rank, int size)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    int a[4] = {rank, 1, 2, 3}, b[2] = {rank + 100, 5}, got[4] = {-1, -1, -1, -1}, n;
    MPI_Request sends[2];
    CHECK_OK(MPI_Isend(a, 4, MPI_INT, peer, 6, MPI_COMM_WORLD, &sends[0]));
    CHECK_OK(MPI_Isend(b, 2, MPI_INT, peer, 6, MPI_COMM_WORLD, &sends[1]));

    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status s1, s2;
    s1.MPI_ERROR = MPI_ERR_DIMS;
    CHECK_OK(MPI_Mprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &msg, &s1));
    CHECK(msg != MPI_MESSAGE_NULL && s1.MPI_SOURCE == from && s1.MPI_TAG == 6);
    CHECK(s1.MPI_ERROR == MPI_ERR_DIMS);
    CHECK_OK(MPI_Get_count(&s1, MPI_INT, &n));
    CHECK(n == 4);
    /* The matched message is taken: a plain receive gets the second one. */
    s2.MPI_ERROR = MPI_ERR_ARG;
    CHECK_OK(MPI_Recv(got, 2, MPI_INT, from, 6, MPI_COMM_WORLD, &s2));
    CHECK(got[0] == from + 100 && got[1] == 5 && s2.MPI_ERROR == MPI_ERR_ARG);
    s2.MPI_ERROR = MPI_ERR_TOPOLOGY;
    CHECK_OK(MPI_Mrecv(got, 4, MPI_INT, &msg, &s2));
    CHECK(msg == MPI_MESSAGE_NULL && got[0] == from && got[3] == 3);
    CHECK(s2.MPI_SOURCE == from && s2.MPI_ERROR == MPI_ERR_TOPOLOGY);
    CHECK_OK(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE));

    /* Improbe, then Imrecv into a vector type (every other int). */
    CHECK_OK(MPI_Send(a, 4, MPI_INT, peer, 7, MPI_COMM_WORLD));
    int flag = 0;
    while (!flag)
        CHECK_OK(MPI_Improbe(from, 7, MPI_COMM_WORLD, &flag, &msg, &s1));
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int wide[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    MPI_Request r;
    CHECK_OK(MPI_Imrecv(wide, 1, every_other, &msg, &r));
    CHECK_OK(MPI_Wait(&r, &s2));
    CHECK(wide[0] == from && wide[2] == 1 && wide[6] == 3 && wide[1] == -1);
    CHECK(s2.MPI_SOURCE == from && s2.MPI_TAG == 7);
    MPI_Type_free(&every_other);

    /* A message too large for the buffer is truncated with an error. */
    CHECK_OK(MPI_Send(a, 4, MPI_INT, peer, 8, MPI_COMM_WORLD));
    CHECK_OK(MPI_Mprobe(from, 8, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    int eclass;
    MPI_Error_class(MPI_Mrecv(got, 2, MPI_INT, &msg, MPI_STATUS_IGNORE), &eclass);
    CHECK(eclass == MPI_ERR_TRUNCATE);

    CHECK_OK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &s1));
    CHECK(msg == MPI_MESSAGE_NO_PROC && s1.MPI_SOURCE == MPI_PROC_NULL);
    CHECK_OK(MPI_Mrecv(got, 4, MPI_INT, &msg, &s2));
    CHECK(msg == MPI_MESSAGE_NULL && s2.MPI_SOURCE == MPI_PROC_NULL);
}

static void statuses(int rank, int size)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, x = rank, y = -1, flag = 0;
    MPI_Request r;
    MPI_Status s;
    CHECK_OK(MPI_Irecv(&y, 1, MPI_INT, from, 9, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, peer, 9, MPI_COMM_WORLD));
    while (!flag)
        CHECK_OK(MPI_Request_get_status(r, &flag, &s));
    CHECK(r != MPI_REQUEST_NULL && s.MPI_SOURCE == from && y == from);
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &s));
    CHECK(flag);

    MPI_Count big = (MPI_Count)1 << 33, n = 0;
    int v;
    CHECK_OK(MPI_Status_set_elements_x(&s, MPI_INT, big));
    CHECK_OK(MPI_Get_elements_x(&s, MPI_INT, &n));
    CHECK(n == big);
    CHECK_OK(MPI_Status_set_elements(&s, MPI_DOUBLE, 3));
    CHECK_OK(MPI_Get_count(&s, MPI_DOUBLE, &v));
    CHECK(v == 3);
    CHECK_OK(MPI_Status_set_cancelled(&s, 1));
    CHECK_OK(MPI_Test_cancelled(&s, &v));
    CHECK(v);
    CHECK_OK(MPI_Status_set_source(&s, 3));
    CHECK_OK(MPI_Status_set_tag(&s, 4));
    CHECK_OK(MPI_Status_get_source(&s, &v));
    CHECK(v == 3);
    CHECK_OK(MPI_Status_get_tag(&s, &v));
    CHECK(v == 4);
}

static void types(void)
{
    MPI_Datatype t, m;
    MPI_Aint lb, extent;
    MPI_Count xlb, xextent, size;
    int blen[2] = {1, 1};
    MPI_Aint disp[2] = {4, 12};
    MPI_Datatype parts[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, blen, disp, parts, &t);
    MPI_Type_create_resized(t, -8, 64, &m);
    CHECK_OK(MPI_Type_get_true_extent(m, &lb, &extent));
    CHECK(lb == 4 && extent == 12);
    CHECK_OK(MPI_Type_get_true_extent_x(m, &xlb, &xextent));
    CHECK(xlb == 4 && xextent == 12);
    CHECK_OK(MPI_Type_get_extent_x(m, &xlb, &xextent));
    CHECK(xlb == -8 && xextent == 64);
    CHECK_OK(MPI_Type_size_x(m, &size));
    CHECK(size == 8);
    MPI_Type_free(&m);
    MPI_Type_free(&t);

    /* A negative extent, hindexed blocks, and a struct's alignment of float complex. */
    MPI_Type_create_resized(MPI_INT, 6, -9, &m);
    CHECK_OK(MPI_Type_get_extent(m, &lb, &extent));
    CHECK(lb == 6 && extent == -9);
    MPI_Type_free(&m);
    MPI_Aint hd[2] = {0, 16};
    CHECK_OK(MPI_Type_create_hindexed_block(2, 3, hd, MPI_CHAR, &m));
    CHECK_OK(MPI_Type_get_extent(m, &lb, &extent));
    int n;
    MPI_Type_size(m, &n);
    CHECK(n == 6 && extent == 19);
    MPI_Type_free(&m);
    struct { char c; float _Complex z; } cz;
    MPI_Aint czd[2] = {0, (char *)&cz.z - (char *)&cz};
    MPI_Datatype czt[2] = {MPI_CHAR, MPI_C_FLOAT_COMPLEX};
    MPI_Type_create_struct(2, blen, czd, czt, &m);
    CHECK_OK(MPI_Type_get_extent(m, &lb, &extent));
    CHECK(extent == sizeof cz);
    MPI_Type_free(&m);

    /* Predefined types can be renamed; C++ types have their own names. */
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_OK(MPI_Type_get_name(MPI_CXX_BOOL, name, &n));
    CHECK(strcmp(name, "MPI_CXX_BOOL") == 0);
    CHECK_OK(MPI_Type_set_name(MPI_LONG, "my long"));
    CHECK_OK(MPI_Type_get_name(MPI_LONG, name, &n));
    CHECK(strcmp(name, "my long") == 0 && n == 7);

    CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &t));
    MPI_Type_size(t, &n);
    CHECK(n == sizeof(double));
    CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &t));
    MPI_Type_size(t, &n);
    CHECK(n == 2);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t) != MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    matched(rank, size);
    statuses(rank, size);
    types();
    MPI_Finalize();
    printf("matched ok\n");
    return 0;
}
