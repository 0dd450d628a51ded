/* The portable external32 representation: MPI_Pack_external_size at the canonical sizes
 * (a long is 4 bytes, wchar_t 2, long double 16), big-endian bytes from MPI_Pack_external
 * for a struct of mixed elements, and MPI_Unpack_external bringing every value back;
 * each rank sends its packed bytes round the ring as MPI_BYTE, where the neighbour
 * unpacks them, as a file or another machine would. Bad arguments are errors. */
#include "check.h"
#include <stddef.h>
#include <string.h>

struct rec {
    char c;
    double d;
    long l;
    short s;
    long double x;
};

static MPI_Datatype rec_type(void)
{
    int lens[5] = {1, 1, 1, 1, 1};
    MPI_Aint disps[5] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, l),
                         offsetof(struct rec, s), offsetof(struct rec, x)};
    MPI_Datatype types[5] = {MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT, MPI_LONG_DOUBLE}, t;
    CHECK_OK(MPI_Type_create_struct(5, lens, disps, types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

static void sizes(void)
{
    struct { MPI_Datatype t; MPI_Aint size; } canon[] = {
        {MPI_CHAR, 1}, {MPI_WCHAR, 2}, {MPI_SHORT, 2}, {MPI_INT, 4}, {MPI_LONG, 4},
        {MPI_UNSIGNED_LONG, 4}, {MPI_LONG_LONG, 8}, {MPI_FLOAT, 4}, {MPI_DOUBLE, 8},
        {MPI_LONG_DOUBLE, 16}, {MPI_C_BOOL, 1}, {MPI_AINT, 8}, {MPI_C_DOUBLE_COMPLEX, 16},
        {MPI_C_LONG_DOUBLE_COMPLEX, 32}, {MPI_DOUBLE_INT, 12}, {MPI_LONG_INT, 8},
        {MPI_INTEGER, 4}, {MPI_DOUBLE_PRECISION, 8},
    };
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
        MPI_Aint size = -1;
        CHECK_OK(MPI_Pack_external_size("external32", 3, canon[i].t, &size));
        CHECK(size == 3 * canon[i].size);
    }
    MPI_Count big = -1;
    CHECK_OK(MPI_Pack_external_size_c("external32", 2, MPI_LONG, &big));
    CHECK(big == 8);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    sizes();

    MPI_Datatype t = rec_type();
    struct rec in[2] = {{'a' + rank, 1.5, -2 - rank, -3, 0.25L}, {'z', -0.0, 70000, 7, 1.0L / 3}};
    MPI_Aint need;
    CHECK_OK(MPI_Pack_external_size("external32", 2, t, &need));
    CHECK(need == 2 * (1 + 8 + 4 + 2 + 16));
    unsigned char buf[2 * 31 + 1], back[sizeof buf];
    MPI_Aint pos = 0;
    CHECK_OK(MPI_Pack_external("external32", in, 2, t, buf, sizeof buf, &pos));
    CHECK(pos == need);

    /* The canonical bytes: 'a' + rank, 1.5 as a big-endian double, -2 - rank in 4 bytes,
     * -3 in 2, then 0.25 as binary128 (exponent 0x3ffd). */
    unsigned char want[] = {'a' + rank, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff,
                            (unsigned char)(0xfe - rank), 0xff, 0xfd, 0x3f, 0xfd, 0};
    CHECK(memcmp(buf, want, sizeof want) == 0);

    /* Round the ring as plain bytes, then unpacked by the neighbour. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_OK(MPI_Sendrecv(buf, (int)need, MPI_BYTE, right, 0, back, (int)need, MPI_BYTE, left, 0,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    struct rec out[2];
    memset(out, 0, sizeof out);
    pos = 0;
    CHECK_OK(MPI_Unpack_external("external32", back, need, &pos, out, 2, t));
    CHECK(pos == need);
    CHECK(out[0].c == 'a' + left && out[0].d == 1.5 && out[0].l == -2 - left && out[0].s == -3);
    CHECK(out[0].x == 0.25L && out[1].c == 'z' && out[1].l == 70000 && out[1].s == 7);
    /* The 80-bit value keeps its 64 significant bits through binary128. */
    CHECK(out[1].x == 1.0L / 3);

    /* The _c forms agree. */
    MPI_Count cpos = 0;
    CHECK_OK(MPI_Pack_external_c("external32", in, 2, t, back, sizeof back, &cpos));
    CHECK(cpos == need && memcmp(back, buf, need) == 0);
    cpos = 0;
    CHECK_OK(MPI_Unpack_external_c("external32", back, need, &cpos, out, 2, t));
    CHECK(cpos == need && out[0].c == 'a' + rank);

    /* Errors: another representation, a buffer too small, data that ends early. */
    pos = 0;
    CHECK(MPI_Pack_external("native", in, 2, t, buf, sizeof buf, &pos) != MPI_SUCCESS);
    pos = 0;
    CHECK(MPI_Pack_external("external32", in, 2, t, buf, need - 1, &pos) != MPI_SUCCESS);
    pos = 1;
    CHECK(MPI_Unpack_external("external32", back, need, &pos, out, 2, t) != MPI_SUCCESS);
    CHECK(MPI_Pack_external_size("external32", -1, t, &need) != MPI_SUCCESS);

    MPI_Type_free(&t);
    MPI_Finalize();
    printf("external32 ok\n");
    return 0;
}
