/* MPI_Isendrecv and MPI_Isendrecv_replace around a ring (small and rendezvous-sized
 * messages, completed by wait, test and waitall), and MPI_BOTTOM with a struct type of
 * absolute addresses in sends, receives and MPI_Pack. */
#include "check.h"
#include <stdlib.h>

#define BIG (1 << 18)

static void ring(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    MPI_Request r;
    MPI_Status s;
    CHECK_OK(MPI_Isendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, &s));
    CHECK(in == left && s.MPI_SOURCE == left && s.MPI_TAG == 1 && r == MPI_REQUEST_NULL);

    int *buf = malloc(BIG * sizeof(int)), flag = 0;
    for (int i = 0; i < BIG; i++)
        buf[i] = rank * 7 + i;
    CHECK_OK(MPI_Isendrecv_replace(buf, BIG, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD, &r));
    while (!flag)
        CHECK_OK(MPI_Test(&r, &flag, &s));
    CHECK(buf[0] == left * 7 && buf[BIG - 1] == left * 7 + BIG - 1);
    CHECK(s.MPI_SOURCE == left);
    free(buf);

    /* Two at once in one waitall, one of them to MPI_PROC_NULL. */
    int a = -1, b = -1;
    MPI_Request two[2];
    CHECK_OK(MPI_Isendrecv(&out, 1, MPI_INT, right, 3, &a, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &two[0]));
    CHECK_OK(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 4, &b, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &two[1]));
    MPI_Status ss[2];
    CHECK_OK(MPI_Waitall(2, two, ss));
    CHECK(a == left && b == -1 && ss[1].MPI_SOURCE == MPI_PROC_NULL);
}

/* A struct of absolute addresses: sent from and received into MPI_BOTTOM. */
static void bottom(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int i = rank;
    double d = rank + 0.5;
    int ri = -1;
    double rd = -1;
    MPI_Aint disp[2];
    MPI_Get_address(&i, &disp[0]);
    MPI_Get_address(&d, &disp[1]);
    int lens[2] = {1, 1};
    MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE}, t, rt;
    MPI_Type_create_struct(2, lens, disp, parts, &t);
    MPI_Type_commit(&t);
    MPI_Get_address(&ri, &disp[0]);
    MPI_Get_address(&rd, &disp[1]);
    MPI_Type_create_struct(2, lens, disp, parts, &rt);
    MPI_Type_commit(&rt);
    CHECK_OK(MPI_Sendrecv(MPI_BOTTOM, 1, t, right, 5, MPI_BOTTOM, 1, rt, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(ri == left && rd == left + 0.5);

    char packed[64];
    int pos = 0;
    CHECK_OK(MPI_Pack(MPI_BOTTOM, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == sizeof(int) + sizeof(double));
    pos = 0;
    ri = -1;
    CHECK_OK(MPI_Unpack(packed, sizeof packed, &pos, MPI_BOTTOM, 1, rt, MPI_COMM_WORLD));
    CHECK(ri == rank && rd == rank + 0.5);
    MPI_Type_free(&t);
    MPI_Type_free(&rt);

    /* A NULL buffer with an ordinary type is still refused. */
    int eclass;
    MPI_Error_class(MPI_Send(NULL, 1, MPI_INT, right, 6, MPI_COMM_WORLD), &eclass);
    CHECK(eclass == MPI_ERR_BUFFER);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    ring(rank, size);
    bottom(rank, size);
    MPI_Finalize();
    printf("isendrecv ok\n");
    return 0;
}
