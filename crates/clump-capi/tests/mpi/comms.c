/* Communicators, groups, attributes, error handlers and classes, derived datatypes with
 * pack/unpack, the environment queries, and the functions clump leaves out returning an
 * error class. Prints "comms ok" on each rank. */
#include "check.h"
#include <stddef.h>
#include <string.h>

static int rank, size;

static void communicators(void) {
    MPI_Comm dup, half, none;
    int result = -1, r = -1, s = -1;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_compare(dup, dup, &result));
    CHECK(result == MPI_IDENT);

    /* Split by parity, ordered by descending rank; traffic on dup never meets world's. */
    CHECK_OK(MPI_Comm_split(dup, rank % 2, -rank, &half));
    CHECK_OK(MPI_Comm_size(half, &s));
    CHECK_OK(MPI_Comm_rank(half, &r));
    CHECK(s == (size + 1 - rank % 2) / 2);
    CHECK(r == (s - 1) - rank / 2);
    int sum = -1;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
    int expect = 0;
    for (int i = rank % 2; i < size; i += 2) expect += i;
    CHECK(sum == expect);
    CHECK_OK(MPI_Comm_split(dup, MPI_UNDEFINED, 0, &none));
    CHECK(none == MPI_COMM_NULL);

    /* Comm_create from the group of ranks 0 and size-1. */
    MPI_Group world, ends;
    int pick[2] = {0, size - 1};
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Group_incl(world, size > 1 ? 2 : 1, pick, &ends));
    MPI_Comm ends_comm;
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, ends, &ends_comm));
    if (rank == 0 || rank == size - 1) {
        CHECK(ends_comm != MPI_COMM_NULL);
        CHECK_OK(MPI_Comm_size(ends_comm, &s));
        CHECK(s == (size > 1 ? 2 : 1));
        CHECK_OK(MPI_Comm_free(&ends_comm));
    } else {
        CHECK(ends_comm == MPI_COMM_NULL);
    }
    CHECK_OK(MPI_Group_free(&ends));
    CHECK_OK(MPI_Group_free(&world));
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL);

    CHECK_OK(MPI_Comm_size(MPI_COMM_SELF, &s));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
    CHECK(s == 1 && r == 0);
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
}

static void groups(void) {
    MPI_Group world, odd, even, empty_check;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int ranges[1][3] = {{1, size - 1, 2}};
    if (size > 1) {
        CHECK_OK(MPI_Group_range_incl(world, 1, ranges, &odd));
        CHECK_OK(MPI_Group_range_excl(world, 1, ranges, &even));
    } else {
        CHECK_OK(MPI_Group_incl(world, 0, NULL, &odd));
        CHECK_OK(MPI_Group_excl(world, 0, NULL, &even));
    }
    int n_odd = -1, n_even = -1, my = -2;
    CHECK_OK(MPI_Group_size(odd, &n_odd));
    CHECK_OK(MPI_Group_size(even, &n_even));
    CHECK(n_odd == size / 2 && n_even == size - size / 2);
    CHECK_OK(MPI_Group_rank(odd, &my));
    CHECK(rank % 2 ? my == rank / 2 : my == MPI_UNDEFINED);

    int all[64], translated[64];
    for (int i = 0; i < size; i++) all[i] = i;
    CHECK_OK(MPI_Group_translate_ranks(world, size, all, even, translated));
    for (int i = 0; i < size; i++) CHECK(translated[i] == (i % 2 ? MPI_UNDEFINED : i / 2));

    /* Set operations: odd and even make the world again, and share nobody. */
    MPI_Group both, none, left;
    int cmp = -1, n = -1;
    CHECK_OK(MPI_Group_union(even, odd, &both));
    CHECK_OK(MPI_Group_size(both, &n));
    CHECK(n == size);
    CHECK_OK(MPI_Group_translate_ranks(both, 1, all, world, translated));
    CHECK(translated[0] == 0);
    CHECK_OK(MPI_Group_intersection(even, odd, &none));
    CHECK(none == MPI_GROUP_EMPTY);
    CHECK_OK(MPI_Group_difference(world, odd, &left));
    CHECK_OK(MPI_Group_compare(left, even, &cmp));
    CHECK(cmp == MPI_IDENT);
    CHECK_OK(MPI_Group_excl(world, size, all, &none));
    CHECK(none == MPI_GROUP_EMPTY);
    MPI_Group_free(&both);
    MPI_Group_free(&left);

    CHECK_OK(MPI_Group_excl(world, 0, NULL, &empty_check));
    CHECK_OK(MPI_Group_compare(world, empty_check, &cmp));
    CHECK(cmp == MPI_IDENT);
    CHECK_OK(MPI_Group_compare(world, odd, &cmp));
    CHECK(cmp == MPI_UNEQUAL);
    CHECK_OK(MPI_Group_free(&empty_check));
    CHECK_OK(MPI_Group_free(&odd));
    CHECK_OK(MPI_Group_free(&even));
    CHECK_OK(MPI_Group_free(&world));
    CHECK(world == MPI_GROUP_NULL);
}

static void attributes_errors(void) {
    int *tag_ub = NULL, flag = 0;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767);

    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0, cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    int err = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(err != MPI_SUCCESS);
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_RANK);
    CHECK_OK(MPI_Error_string(err, text, &len));
    CHECK(len > 0 && len == (int)strlen(text));
    err = MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_TAG);
    err = MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_COUNT);
    err = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_TYPE);
    err = MPI_Barrier(MPI_COMM_NULL);
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_COMM);

    /* What clump leaves out exists and answers with an error class (another MPI has a
     * name service, which may wait for a server: not probed there). */
#ifdef CLUMP_MPI_H
    err = MPI_Unpublish_name("clump-none", MPI_INFO_NULL, "none");
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
#endif
    MPI_File fh;
    err = MPI_File_open(MPI_COMM_WORLD, "/nonexistent/clump", MPI_MODE_RDONLY, MPI_INFO_NULL,
                        &fh);
    CHECK(err != MPI_SUCCESS);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void datatypes(void) {
    /* A 4x5 int matrix: its column 1 as a vector, resized so consecutive columns follow. */
    int m[4][5], col[4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) m[i][j] = i * 10 + j;
    MPI_Datatype column, column_resized, idx, blk, hv, hidx, st;
    CHECK_OK(MPI_Type_vector(4, 1, 5, MPI_INT, &column));
    CHECK_OK(MPI_Type_create_resized(column, 0, sizeof(int), &column_resized));
    CHECK_OK(MPI_Type_commit(&column_resized));
    int sz = -1;
    MPI_Aint lb = -1, extent = -1;
    CHECK_OK(MPI_Type_size(column_resized, &sz));
    CHECK_OK(MPI_Type_get_extent(column_resized, &lb, &extent));
    CHECK(sz == 4 * (int)sizeof(int) && lb == 0 && extent == sizeof(int));
    CHECK_OK(MPI_Sendrecv(&m[0][1], 1, column_resized, rank, 1, col, 4, MPI_INT, rank, 1,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) CHECK(col[i] == i * 10 + 1);

    int lens[2] = {2, 1}, disps[2] = {0, 7};
    CHECK_OK(MPI_Type_indexed(2, lens, disps, MPI_INT, &idx));
    CHECK_OK(MPI_Type_create_indexed_block(2, 2, disps, MPI_INT, &blk));
    CHECK_OK(MPI_Type_create_hvector(2, 1, 3 * sizeof(int), MPI_INT, &hv));
    MPI_Aint hdisps[2] = {0, 7 * sizeof(int)};
    CHECK_OK(MPI_Type_create_hindexed(2, lens, hdisps, MPI_INT, &hidx));
    MPI_Datatype types[4] = {idx, blk, hv, hidx};
    int expect_size[4] = {3, 4, 2, 3};
    for (int k = 0; k < 4; k++) {
        CHECK_OK(MPI_Type_commit(&types[k]));
        CHECK_OK(MPI_Type_size(types[k], &sz));
        CHECK(sz == expect_size[k] * (int)sizeof(int));
    }
    int flat[20], out[4] = {0};
    for (int i = 0; i < 20; i++) flat[i] = i;
    CHECK_OK(MPI_Sendrecv(flat, 1, idx, rank, 2, out, 3, MPI_INT, rank, 2, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 7);

    /* A struct {char; double} sent as itself and packed/unpacked. */
    struct item { char c; double d; } items[2] = {{'a', 1.25}, {'b', 2.5}}, back[2];
    int blens[2] = {1, 1};
    MPI_Aint sdisps[2] = {offsetof(struct item, c), offsetof(struct item, d)};
    MPI_Datatype stypes[2] = {MPI_CHAR, MPI_DOUBLE};
    CHECK_OK(MPI_Type_create_struct(2, blens, sdisps, stypes, &st));
    MPI_Datatype st_resized;
    CHECK_OK(MPI_Type_create_resized(st, 0, sizeof(struct item), &st_resized));
    CHECK_OK(MPI_Type_commit(&st_resized));
    char packed[64];
    int pos = 0, packed_size = 0;
    CHECK_OK(MPI_Pack_size(2, st_resized, MPI_COMM_WORLD, &packed_size));
    CHECK(packed_size >= 2 * 9 && packed_size <= (int)sizeof packed);
    CHECK_OK(MPI_Pack(items, 2, st_resized, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 2 * 9);
    int upos = 0;
    memset(back, 0, sizeof back);
    CHECK_OK(MPI_Unpack(packed, pos, &upos, back, 2, st_resized, MPI_COMM_WORLD));
    CHECK(upos == pos && back[1].c == 'b' && back[1].d == 2.5 && back[0].d == 1.25);

    char tname[MPI_MAX_OBJECT_NAME];
    int tlen = 0;
    CHECK_OK(MPI_Type_get_name(MPI_DOUBLE, tname, &tlen));
    CHECK(strcmp(tname, "MPI_DOUBLE") == 0 && tlen == 10);
    CHECK_OK(MPI_Type_set_name(st_resized, "item"));
    CHECK_OK(MPI_Type_get_name(st_resized, tname, &tlen));
    CHECK(strcmp(tname, "item") == 0);

    MPI_Datatype all[] = {column, column_resized, idx, blk, hv, hidx, st, st_resized};
    for (unsigned k = 0; k < sizeof all / sizeof all[0]; k++) {
        CHECK_OK(MPI_Type_free(&all[k]));
        CHECK(all[k] == MPI_DATATYPE_NULL);
    }
}

static void environment(void) {
    int flag = 0, version = 0, subversion = -1, provided = -1, len = 0;
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag);
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(!flag);
    CHECK_OK(MPI_Get_version(&version, &subversion));
    CHECK(version >= 3 && subversion >= 0);
    CHECK_OK(MPI_Query_thread(&provided));
    CHECK(provided >= MPI_THREAD_FUNNELED);
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    CHECK_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len == (int)strlen(name));
    CHECK_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len >= (int)strlen(lib)); /* some count the terminating NUL */
    double t0 = MPI_Wtime(), t1 = MPI_Wtime();
    CHECK(t1 >= t0 && MPI_Wtick() > 0 && MPI_Wtick() < 1);
    void *mem = NULL;
    CHECK_OK(MPI_Alloc_mem(4096, MPI_INFO_NULL, &mem));
    CHECK(mem != NULL);
    memset(mem, 1, 4096);
    CHECK_OK(MPI_Free_mem(mem));
}

int main(int argc, char **argv) {
    int provided = -1;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    CHECK(provided >= MPI_THREAD_FUNNELED);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 64);
    communicators();
    groups();
    attributes_errors();
    datatypes();
    environment();
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    printf("comms ok rank %d of %d\n", rank, size);
    CHECK_OK(MPI_Finalize());
    int finalized = 0;
    MPI_Finalized(&finalized);
    return finalized ? 0 : 1;
}
