/* long double and its kin in every operation that applies: sizes and extents, messages,
 * and reductions (sum, product, min, max; MINLOC and MAXLOC on MPI_LONG_DOUBLE_INT; sum
 * and product of long double and double complex numbers). */
#include "check.h"
#include <complex.h>

int main(int argc, char **argv)
{
    int rank, size, n;
    start_returning_errors(&argc, &argv, &rank, &size);

    MPI_Aint lb, extent;
    CHECK_OK(MPI_Type_size(MPI_LONG_DOUBLE, &n));
    CHECK(n == sizeof(long double));
    CHECK_OK(MPI_Type_size(MPI_C_LONG_DOUBLE_COMPLEX, &n));
    CHECK(n == sizeof(long double _Complex));
    struct { long double v; int i; } pair[2];
    CHECK_OK(MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &extent));
    CHECK(lb == 0 && extent == sizeof pair[0]);

    /* A value whose low bits a double would lose. */
    long double fine = 1.0L + 1.0L / (1ULL << 60), got = 0;
    if (size > 1) {
        if (rank == 0)
            CHECK_OK(MPI_Send(&fine, 1, MPI_LONG_DOUBLE, 1, 0, MPI_COMM_WORLD));
        if (rank == 1) {
            CHECK_OK(MPI_Recv(&got, 1, MPI_LONG_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got == fine);
        }
    }

    long double mine[4] = {rank + 1, rank + 1, rank + 1, fine}, all[4];
    CHECK_OK(MPI_Allreduce(mine, all, 4, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(all[0] == size * (size + 1) / 2 && all[3] == size * fine);
    long double fact = 1;
    for (int i = 1; i <= size; i++)
        fact *= i;
    CHECK_OK(MPI_Allreduce(mine, all, 1, MPI_LONG_DOUBLE, MPI_PROD, MPI_COMM_WORLD));
    CHECK(all[0] == fact);
    CHECK_OK(MPI_Allreduce(mine, all, 1, MPI_LONG_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CHECK(all[0] == 1);
    CHECK_OK(MPI_Reduce(mine, all, 1, MPI_LONG_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    CHECK(rank != 0 || all[0] == size);

    pair[0].v = rank % 2;
    pair[0].i = rank;
    CHECK_OK(MPI_Allreduce(pair, pair + 1, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(pair[1].v == (size > 1) && pair[1].i == (size > 1));
    CHECK_OK(MPI_Allreduce(pair, pair + 1, 1, MPI_LONG_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(pair[1].v == 0 && pair[1].i == 0);

    long double _Complex z = 1.0L * I, zs;
    CHECK_OK(MPI_Allreduce(&z, &zs, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creall(zs) == 0 && cimagl(zs) == size);
    CHECK_OK(MPI_Allreduce(&z, &zs, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    long double _Complex want = 1;
    for (int i = 0; i < size; i++)
        want *= I;
    CHECK(zs == want);
    double _Complex d = 1.0 + 1.0 * I, ds;
    CHECK_OK(MPI_Allreduce(&d, &ds, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    double _Complex dwant = 1;
    for (int i = 0; i < size; i++)
        dwant *= d;
    CHECK(ds == dwant);

    /* Bitwise operations do not apply to floating types. */
    int eclass;
    MPI_Error_class(MPI_Allreduce(mine, all, 1, MPI_LONG_DOUBLE, MPI_BAND, MPI_COMM_WORLD),
                    &eclass);
    CHECK(eclass == MPI_ERR_OP);

    MPI_Finalize();
    printf("longdouble ok\n");
    return 0;
}
