/* Sessions (MPI 4.0) without MPI_Init: the process sets and their info, communicators
 * and intercommunicators made from their groups, session error handlers, a session started again after the
 * first ended, and MPI_Init afterwards taking the runtime the sessions started. */
#include "check.h"
#include <string.h>

static int calls;
static void count_call(MPI_Session *s, int *code, ...)
{
    (void)s;
    calls += *code == MPI_ERR_OTHER;
}

/* A communicator of process set `pset`, checked with an allreduce of ranks. */
static int sum_over(MPI_Session s, const char *pset, int *size)
{
    MPI_Group g;
    MPI_Comm c;
    CHECK_OK(MPI_Group_from_session_pset(s, pset, &g));
    CHECK_OK(MPI_Comm_create_from_group(g, "org.clump.test.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK_OK(MPI_Group_free(&g));
    int rank, sum = -1;
    CHECK_OK(MPI_Comm_rank(c, &rank));
    CHECK_OK(MPI_Comm_size(c, size));
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == *size * (*size - 1) / 2);
    /* The handler given is the communicator's. */
    MPI_Errhandler h;
    CHECK_OK(MPI_Comm_get_errhandler(c, &h));
    CHECK(h == MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Comm_free(&c));
    return rank;
}

/* An intercommunicator of the even and the odd ranks of the world process set. */
static void inter_from_groups(MPI_Session s)
{
    MPI_Group world, evens, odds;
    CHECK_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    int size, rank;
    MPI_Group_size(world, &size);
    MPI_Group_rank(world, &rank);
    if (size >= 2) {
        int even[1][3] = {{0, size - 1, 2}}, odd[1][3] = {{1, size - 1, 2}};
        MPI_Group_range_incl(world, 1, even, &evens);
        MPI_Group_range_incl(world, 1, odd, &odds);
        MPI_Comm ic;
        CHECK_OK(MPI_Intercomm_create_from_groups(rank % 2 ? odds : evens, 0, rank % 2 ? evens : odds, 0,
                                                  "org.clump.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
        int flag, remote, local;
        MPI_Comm_test_inter(ic, &flag);
        MPI_Comm_remote_size(ic, &remote);
        CHECK(flag && remote == (rank % 2 ? (size + 1) / 2 : size / 2));
        MPI_Comm_rank(ic, &local);
        if (local == 0) {
            int got = -1;
            CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE));
            CHECK(got == (rank % 2 ? 0 : 1));
        }
        CHECK_OK(MPI_Comm_free(&ic));
        MPI_Group_free(&evens);
        MPI_Group_free(&odds);
    }
    MPI_Group_free(&world);
}

static void one_session(void)
{
    MPI_Info asked;
    MPI_Info_create(&asked);
    MPI_Info_set(asked, "thread_level", "MPI_THREAD_MULTIPLE");
    MPI_Session s;
    CHECK_OK(MPI_Session_init(asked, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&asked);

    int flag;
    MPI_Initialized(&flag);
    CHECK(!flag); /* sessions alone leave the world model uninitialised */

    MPI_Info got;
    char level[64];
    CHECK_OK(MPI_Session_get_info(s, &got));
    MPI_Info_get(got, "thread_level", sizeof level - 1, level, &flag);
    CHECK(flag && strncmp(level, "MPI_THREAD_", 11) == 0);
    MPI_Info_free(&got);

    int n, world = 0, self = 0;
    CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2);
    for (int i = 0; i < n; i++) {
        int len = 0;
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        char name[64];
        CHECK(len > 1 && len <= (int)sizeof name);
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) + 1 == len);
        MPI_Info info;
        char size[16];
        CHECK_OK(MPI_Session_get_pset_info(s, name, &info));
        MPI_Info_get(info, "mpi_size", sizeof size - 1, size, &flag);
        CHECK(flag && atoi(size) >= 1);
        MPI_Info_free(&info);
        world += strcmp(name, "mpi://WORLD") == 0;
        self += strcmp(name, "mpi://SELF") == 0 && atoi(size) == 1;
    }
    CHECK(world == 1 && self == 1);

    int size;
    sum_over(s, "mpi://world", &size); /* names compare without case */
    int me = sum_over(s, "mpi://SELF", &size);
    CHECK(me == 0 && size == 1);
    inter_from_groups(s);

    /* Errors of session calls go to the session's handler. */
    int eclass;
    MPI_Group g;
    MPI_Error_class(MPI_Group_from_session_pset(s, "mpi://nowhere", &g), &eclass);
    CHECK(eclass == MPI_ERR_ARG);
    MPI_Errhandler mine, back;
    CHECK_OK(MPI_Session_create_errhandler(count_call, &mine));
    CHECK_OK(MPI_Session_set_errhandler(s, mine));
    CHECK_OK(MPI_Session_get_errhandler(s, &back));
    CHECK(back == mine);
    CHECK_OK(MPI_Errhandler_free(&back));
    CHECK_OK(MPI_Errhandler_free(&mine));
    calls = 0;
    CHECK_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(calls == 1);
    CHECK_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));

    CHECK_OK(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL);
}

int main(int argc, char **argv)
{
    one_session();
    one_session(); /* a session again after the first ended */
    int flag, rank;
    CHECK_OK(MPI_Init(&argc, &argv)); /* takes the runtime the sessions started */
    MPI_Initialized(&flag);
    CHECK(flag);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Init(&argc, &argv) != MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    printf("sessions ok\n");
    return 0;
}
