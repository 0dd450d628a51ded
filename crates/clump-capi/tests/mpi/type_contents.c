/* How datatypes were made, read back: MPI_Type_get_envelope and MPI_Type_get_contents
 * (and their _c forms) for every constructor, a derived constituent handed out as a new
 * type that decodes in turn and packs like the original, and MPI_Get_elements of a
 * partial struct counting the predefined elements that came whole; MPI_Get_count of a
 * type of no data; the names of the predefined types mpi.h gives two names; the
 * large-count constructors, MPI_Type_get_value_index and MPI_Op_create_c; the
 * MPI_Type_create_f90_* types. */
#include "check.h"
#include <string.h>

static void envelope(MPI_Datatype t, int ni, int na, int nd, int combiner)
{
    int i = -1, a = -1, d = -1, c = -1;
    CHECK_OK(MPI_Type_get_envelope(t, &i, &a, &d, &c));
    CHECK(i == ni && a == na && d == nd && c == combiner);
    MPI_Count ci, ca, cc, cd;
    CHECK_OK(MPI_Type_get_envelope_c(t, &ci, &ca, &cc, &cd, &c));
    CHECK(ci == ni && ca == na && cc == 0 && cd == nd && c == combiner);
}

static void constructors(void)
{
    int ints[16];
    MPI_Aint aints[8];
    MPI_Datatype types[4], vec, t;

    envelope(MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED);
    CHECK(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, aints, types) != MPI_SUCCESS);

    CHECK_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
    envelope(vec, 3, 0, 1, MPI_COMBINER_VECTOR);
    CHECK_OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, aints, types));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && types[0] == MPI_INT);
    CHECK(MPI_Type_get_contents(vec, 2, 0, 1, ints, aints, types) != MPI_SUCCESS);

    CHECK_OK(MPI_Type_contiguous(4, MPI_DOUBLE, &t));
    envelope(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    MPI_Type_free(&t);

    CHECK_OK(MPI_Type_create_hvector(2, 1, 24, MPI_INT, &t));
    envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    CHECK_OK(MPI_Type_get_contents(t, 2, 1, 1, ints, aints, types));
    CHECK(ints[0] == 2 && ints[1] == 1 && aints[0] == 24);
    MPI_Type_free(&t);

    int lens[2] = {1, 3}, disps[2] = {4, 0};
    CHECK_OK(MPI_Type_indexed(2, lens, disps, MPI_SHORT, &t));
    envelope(t, 5, 0, 1, MPI_COMBINER_INDEXED);
    CHECK_OK(MPI_Type_get_contents(t, 5, 0, 1, ints, aints, types));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && ints[3] == 4 && ints[4] == 0);
    MPI_Type_free(&t);

    MPI_Aint hd[2] = {16, 0};
    CHECK_OK(MPI_Type_create_hindexed(2, lens, hd, MPI_SHORT, &t));
    envelope(t, 3, 2, 1, MPI_COMBINER_HINDEXED);
    MPI_Type_free(&t);

    CHECK_OK(MPI_Type_create_indexed_block(2, 2, disps, MPI_INT, &t));
    envelope(t, 4, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    MPI_Type_free(&t);

    MPI_Aint bd[4] = {0, 8, 16, 24};
    CHECK_OK(MPI_Type_create_hindexed_block(4, 2, bd, MPI_INT, &t));
    envelope(t, 2, 4, 1, MPI_COMBINER_HINDEXED_BLOCK);
    CHECK_OK(MPI_Type_get_contents(t, 2, 4, 1, ints, aints, types));
    CHECK(ints[0] == 4 && ints[1] == 2 && aints[3] == 24 && types[0] == MPI_INT);
    MPI_Type_free(&t);

    CHECK_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    envelope(t, 0, 2, 1, MPI_COMBINER_RESIZED);
    CHECK_OK(MPI_Type_get_contents(t, 0, 2, 1, ints, aints, types));
    CHECK(aints[0] == -4 && aints[1] == 16 && types[0] == MPI_INT);
    MPI_Type_free(&t);

    CHECK_OK(MPI_Type_dup(MPI_FLOAT, &t));
    envelope(t, 0, 0, 1, MPI_COMBINER_DUP);
    MPI_Type_free(&t);

    int sizes[2] = {4, 6}, sub[2] = {2, 3}, at[2] = {1, 2};
    CHECK_OK(MPI_Type_create_subarray(2, sizes, sub, at, MPI_ORDER_C, MPI_INT, &t));
    envelope(t, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    CHECK_OK(MPI_Type_get_contents(t, 8, 0, 1, ints, aints, types));
    CHECK(ints[0] == 2 && ints[1] == 4 && ints[4] == 3 && ints[6] == 2 && ints[7] == MPI_ORDER_C);
    MPI_Type_free(&t);

    int gs[1] = {8}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
    CHECK_OK(MPI_Type_create_darray(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    envelope(t, 8, 0, 1, MPI_COMBINER_DARRAY);
    CHECK_OK(MPI_Type_get_contents(t, 8, 0, 1, ints, aints, types));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 1 && ints[3] == 8 && ints[6] == 2);
    MPI_Type_free(&t);

    /* A struct over the vector: the vector comes back as a new type (the original is
     * freed first), which decodes and packs like it. */
    int slens[2] = {1, 2};
    MPI_Aint sdisps[2] = {0, 64};
    MPI_Datatype stypes[2] = {vec, MPI_CHAR};
    CHECK_OK(MPI_Type_create_struct(2, slens, sdisps, stypes, &t));
    MPI_Type_free(&vec);
    envelope(t, 3, 2, 2, MPI_COMBINER_STRUCT);
    CHECK_OK(MPI_Type_get_contents(t, 3, 2, 2, ints, aints, types));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && aints[1] == 64 && types[1] == MPI_CHAR);
    envelope(types[0], 3, 0, 1, MPI_COMBINER_VECTOR);
    int m[20], packed[6], pos = 0;
    for (int i = 0; i < 20; i++)
        m[i] = i;
    CHECK_OK(MPI_Pack(m, 1, types[0], packed, sizeof packed, &pos, MPI_COMM_SELF));
    CHECK(pos == 24 && packed[0] == 0 && packed[1] == 1 && packed[2] == 5 && packed[5] == 11);
    CHECK_OK(MPI_Type_free(&types[0]));
    MPI_Type_free(&t);
}

/* A struct of an int and 256 chars receives an int and 17 chars: 18 elements, not a
 * whole number of structs (MPI_Get_count says MPI_UNDEFINED). */
static void partial_struct(int rank, int size)
{
    if (size < 2 || rank > 1)
        return;
    int lens[2] = {1, 256};
    MPI_Aint disps[2] = {0, sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_CHAR}, t;
    CHECK_OK(MPI_Type_create_struct(2, lens, disps, types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    char buf[sizeof(int) + 256];
    memset(buf, 0, sizeof buf);
    if (rank == 0)
        CHECK_OK(MPI_Send(buf, sizeof(int) + 17, MPI_BYTE, 1, 0, MPI_COMM_WORLD));
    else {
        MPI_Status st;
        int n = -1;
        CHECK_OK(MPI_Recv(buf, 1, t, 0, 0, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Get_elements(&st, t, &n));
        CHECK(n == 18);
        CHECK_OK(MPI_Get_count(&st, t, &n));
        CHECK(n == MPI_UNDEFINED);
    }
    MPI_Type_free(&t);
}

/* A type of no data counts zero elements of an empty message; the two-named
 * predefined types answer with the name MPICH gives them. */
static void zero_size_and_names(void)
{
    int blks[3] = {0, 0, 0}, n = -1;
    MPI_Aint disps[3] = {0, 4, 16};
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_hindexed(3, blks, disps, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    MPI_Status st;
    CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_INT, 0, 0, NULL, 1, t, 0, 0, MPI_COMM_SELF, &st));
    CHECK_OK(MPI_Get_count(&st, t, &n));
    CHECK(n == 0);
    CHECK_OK(MPI_Get_elements(&st, t, &n));
    CHECK(n == 0);
    MPI_Type_free(&t);

    char name[MPI_MAX_OBJECT_NAME];
    CHECK_OK(MPI_Type_get_name(MPI_LONG_LONG, name, &n));
    CHECK(strcmp(name, "MPI_LONG_LONG_INT") == 0);
    CHECK_OK(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &n));
    CHECK(strcmp(name, "MPI_C_COMPLEX") == 0);
}

/* The large-count constructors build what their int forms build; a count beyond an int
 * is MPI_ERR_COUNT. MPI_Type_get_value_index names the pair types; a large-count user
 * operation reduces. */
static void add_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *t)
{
    CHECK(*t == MPI_INT);
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void large_count_forms(void)
{
    MPI_Count lens[2] = {2, 1}, disps[2] = {0, 7}, big[1] = {(MPI_Count)1 << 40};
    MPI_Datatype t, u;
    int size, m[10], packed[3], pos = 0;
    for (int i = 0; i < 10; i++)
        m[i] = i;
    CHECK_OK(MPI_Type_indexed_c(2, lens, disps, MPI_INT, &t));
    CHECK_OK(MPI_Pack(m, 1, t, packed, sizeof packed, &pos, MPI_COMM_SELF));
    CHECK(pos == 12 && packed[0] == 0 && packed[1] == 1 && packed[2] == 7);
    MPI_Type_free(&t);
    CHECK(MPI_Type_indexed_c(1, big, disps, MPI_INT, &t) == MPI_ERR_COUNT);

    MPI_Count bytes[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    CHECK_OK(MPI_Type_create_struct_c(2, lens, bytes, types, &t));
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 16);
    MPI_Type_free(&t);
    CHECK_OK(MPI_Type_create_hindexed_c(2, lens, bytes, MPI_INT, &t));
    CHECK_OK(MPI_Type_create_hindexed_block_c(2, 3, bytes, MPI_INT, &u));
    CHECK_OK(MPI_Type_size(u, &size));
    CHECK(size == 24);
    MPI_Type_free(&t);
    MPI_Type_free(&u);
    CHECK_OK(MPI_Type_create_indexed_block_c(2, 2, disps, MPI_INT, &t));
    MPI_Type_free(&t);
    MPI_Count sizes[2] = {4, 6}, sub[2] = {2, 3}, at[2] = {1, 2};
    CHECK_OK(MPI_Type_create_subarray_c(2, sizes, sub, at, MPI_ORDER_C, MPI_INT, &t));
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 24);
    MPI_Type_free(&t);
    MPI_Count gs[1] = {8};
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
    CHECK_OK(MPI_Type_create_darray_c(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 16);
    MPI_Type_free(&t);

    CHECK_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    CHECK(t == MPI_DOUBLE_INT);
    CHECK_OK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    CHECK(t == MPI_2INT);
    CHECK_OK(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &t));
    CHECK(t == MPI_DATATYPE_NULL);

    MPI_Op op;
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    CHECK_OK(MPI_Op_create_c(add_c, 1, &op));
    CHECK_OK(MPI_Reduce_local(a, b, 3, MPI_INT, op));
    CHECK(b[0] == 11 && b[2] == 33);
    CHECK_OK(MPI_Op_free(&op));
}

/* MPI_Type_create_f90_*: the sized type of the kind gfortran selects, the same handle
 * each time, its combiner and arguments in the envelope; it cannot be freed. */
static void f90_types(void)
{
    MPI_Datatype t, again;
    int size, ints[2];
    MPI_Aint aints[1];
    MPI_Datatype types[1];
    CHECK_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &t));
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 8);
    CHECK_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &again));
    CHECK(again == t);
    envelope(t, 2, 0, 0, MPI_COMBINER_F90_REAL);
    CHECK_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, aints, types));
    CHECK(ints[0] == 10 && ints[1] == MPI_UNDEFINED);
    CHECK(MPI_Type_free(&again) != MPI_SUCCESS);
    CHECK_OK(MPI_Type_create_f90_complex(MPI_UNDEFINED, 30, &t));
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 8);
    envelope(t, 2, 0, 0, MPI_COMBINER_F90_COMPLEX);
    CHECK_OK(MPI_Type_create_f90_integer(9, &t));
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 4);
    envelope(t, 1, 0, 0, MPI_COMBINER_F90_INTEGER);
    CHECK(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t) != MPI_SUCCESS);
    CHECK(MPI_Type_create_f90_integer(50, &t) != MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int rank, size;
    start_returning_errors(&argc, &argv, &rank, &size);
    constructors();
    partial_struct(rank, size);
    zero_size_and_names();
    large_count_forms();
    f90_types();
    MPI_Finalize();
    printf("type_contents ok\n");
    return 0;
}
