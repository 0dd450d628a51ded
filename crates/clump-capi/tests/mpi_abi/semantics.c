/* A program as another implementation's ABI wrapper builds it: only the standard ABI's
 * values and names, linked against libmpi_abi.so.1. It checks what such programs rely on
 * and what went wrong when clump's values were its own: the thread level, the MPI_TAG_UB
 * attribute, MPI_ANY_TAG and MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ERRORS_RETURN (with a
 * supported call's error and an unsupported one's), Fortran datatypes, the ABI version
 * and the handle conversions (toint/fromint, and mpi_fortran.h's c2f/f2c names and its
 * status conversions). Each rank prints "abi ok". */
#include "../mpi/check.h"

#include <mpi_fortran.h>
#include <string.h>

static void thread_levels(void) {
    int queried = -1;
    CHECK_OK(MPI_Query_thread(&queried));
    CHECK(queried == MPI_THREAD_MULTIPLE);
    int main_thread = 0;
    CHECK_OK(MPI_Is_thread_main(&main_thread));
    CHECK(main_thread);
}

static void attributes(int size) {
    int *value = NULL, flag = 0;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag));
    CHECK(flag && value && *value >= 32767);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &value, &flag));
    CHECK(flag && *value == MPI_PROC_NULL);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag));
    CHECK(!flag || *value >= size);
}

/* Each rank sends its right neighbour a message tagged with its own rank + 7; each
 * receives with both wildcards and learns the sender and tag from the status. */
static void wildcards(int rank, int size) {
    int out = 100 + rank, in = -1, count = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req;
    MPI_Status st;
    CHECK_OK(MPI_Isend(&out, 1, MPI_INT, right, rank + 7, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(in == 100 + left && st.MPI_SOURCE == left && st.MPI_TAG == left + 7);
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 1);
}

static void proc_null(void) {
    int x = 5, count = -1;
    MPI_Status st;
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(x == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0);
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &x, 1, MPI_INT, MPI_PROC_NULL,
                          MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
}

static void errors_return(int size) {
    MPI_Errhandler eh;
    int x = 0, cls = -1;
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    int err = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK_OK(MPI_Error_class(err, &cls));
    CHECK(cls == MPI_ERR_RANK);
    MPI_Comm accepted;
    err = MPI_Comm_accept("no port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &accepted);
    CHECK(err == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* An unsupported call's error goes to the handler of the communicator it names, even
     * as its seventh argument (passed on the stack): world's stays fatal meanwhile. */
    MPI_Comm dup, spawned;
    char *commands[1] = {"true"};
    int maxprocs[1] = {1}, errcodes[1];
    MPI_Info infos[1] = {MPI_INFO_NULL};
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    err = MPI_Comm_spawn_multiple(1, commands, MPI_ARGVS_NULL, maxprocs, infos, 0, dup, &spawned,
                                  errcodes);
    CHECK(err == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_OK(MPI_Comm_free(&dup));
}

static void fortran_types_and_conversions(void) {
    int size = 0;
    CHECK_OK(MPI_Type_size(MPI_INTEGER8, &size));
    CHECK(size == 8);
    CHECK_OK(MPI_Type_size(MPI_INTEGER, &size));
    CHECK(size == 4);
    CHECK_OK(MPI_Type_size(MPI_DOUBLE_PRECISION, &size));
    CHECK(size == 8);
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_OK(MPI_Type_get_name(MPI_INTEGER8, name, &len));
    CHECK(strcmp(name, "MPI_INTEGER8") == 0 && len == 12);
    int major = 0, minor = -1;
    CHECK_OK(MPI_Abi_get_version(&major, &minor));
    CHECK(major == MPI_ABI_VERSION && minor == MPI_ABI_SUBVERSION);
    CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE);
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup);
    /* The classic names of mpi_fortran.h. */
    MPI_Fint f_type = MPI_Type_c2f(MPI_INTEGER8);
    CHECK(MPI_Type_f2c(f_type) == MPI_INTEGER8);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup);
    CHECK(PMPI_Op_f2c(PMPI_Op_c2f(MPI_SUM)) == MPI_SUM);
    MPI_Status c_status = {.MPI_SOURCE = 3, .MPI_TAG = 7, .MPI_ERROR = MPI_ERR_TAG,
                           .MPI_internal = {1, 2, 3, 4, 5}};
    MPI_Fint f_status[8];
    MPI_Status back;
    CHECK_OK(MPI_Status_c2f(&c_status, f_status));
    CHECK(f_status[0] == 3 && f_status[1] == 7 && f_status[2] == MPI_ERR_TAG && f_status[7] == 5);
    CHECK_OK(MPI_Status_f2c(f_status, &back));
    CHECK(memcmp(&back, &c_status, sizeof back) == 0);
    MPI_F08_status f08_status;
    MPI_Fint f_again[8];
    CHECK_OK(MPI_Status_c2f08(&c_status, &f08_status));
    CHECK(f08_status.MPI_SOURCE == 3 && f08_status.MPI_TAG == 7 && f08_status.MPI_internal[4] == 5);
    CHECK_OK(PMPI_Status_f082f(&f08_status, f_again));
    CHECK(memcmp(f_again, f_status, sizeof f_again) == 0);
    CHECK_OK(MPI_Status_f2f08(f_again, &f08_status));
    memset(&back, 0, sizeof back);
    CHECK_OK(MPI_Status_f082c(&f08_status, &back));
    CHECK(memcmp(&back, &c_status, sizeof back) == 0);
    int result = -1;
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_free(&dup));
    long long sum = 0, one = 1;
    int nprocs = 0;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &nprocs));
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == nprocs);
}

int main(int argc, char **argv) {
    int provided = -1, rank, size;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    thread_levels();
    attributes(size);
    wildcards(rank, size);
    proc_null();
    errors_return(size);
    fortran_types_and_conversions();
    CHECK_OK(MPI_Finalize());
    printf("abi ok\n");
    return 0;
}
