/* The tool information interface with no variables: MPI_T_init_thread and MPI_T_finalize
 * nest and work before MPI_Init and after MPI_Finalize; every count is 0; indices,
 * names and handles are refused with the standard's classes; performance-variable
 * sessions open and close; outside init and finalize every call is
 * MPI_T_ERR_NOT_INITIALIZED. Errors are returned, never handled. */
#include "check.h"

/* Every query of the interface on an index, a name or a handle, with its class. */
static void queries(void) {
    int n = -1, idx = -1, count = -1, verbosity, bind, scope, len = 16;
    char name[16], desc[16];
    MPI_Datatype dt;
    MPI_T_enum en;
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
    MPI_Count stamp;
    long long value;

    CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n == 0);
    n = -1;
    CHECK(MPI_T_pvar_get_num(&n) == MPI_SUCCESS && n == 0);
    n = -1;
    CHECK(MPI_T_category_get_num(&n) == MPI_SUCCESS && n == 0);
    n = -1;
    CHECK(MPI_T_event_get_num(&n) == MPI_SUCCESS && n == 0);
    n = -1;
    CHECK(MPI_T_source_get_num(&n) == MPI_SUCCESS && n == 0);
    CHECK(MPI_T_category_changed(&n) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_get_num(NULL) == MPI_T_ERR_INVALID);

    CHECK(MPI_T_cvar_get_info(0, name, &len, &verbosity, &dt, &en, desc, &len, &bind, &scope) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_cvar_get_info(-1, name, &len, &verbosity, &dt, &en, desc, &len, &bind, &scope) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_pvar_get_info(0, name, &len, &verbosity, &n, &dt, &en, desc, &len, &bind, &n, &n,
                              &n) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_info(0, name, &len, desc, &len, &n, &n, &n) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_cvars(0, 1, &idx) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_pvars(0, 1, &idx) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_categories(0, 1, &idx) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_events(0, 1, &idx) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_num_events(0, &n) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_source_get_timestamp(0, &stamp) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_cvar_handle_alloc(0, NULL, &ch, &count) == MPI_T_ERR_INVALID_INDEX);

    CHECK(MPI_T_cvar_get_index("eager_limit", &idx) == MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_pvar_get_index("sent", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
          MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_category_get_index("all", &idx) == MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_event_get_index("arrived", &idx) == MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_cvar_get_index(NULL, &idx) == MPI_T_ERR_INVALID);

    CHECK(MPI_T_cvar_read(ch, &value) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_cvar_write(ch, &value) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_cvar_handle_free(&ch) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, name, &len) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &n, name, &len) == MPI_T_ERR_INVALID_HANDLE);

    /* Sessions: real, each its own, empty. */
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS && s != MPI_T_PVAR_SESSION_NULL);
    CHECK(MPI_T_pvar_session_create(&s2) == MPI_SUCCESS && s2 != s);
    CHECK(MPI_T_pvar_handle_alloc(s, 0, NULL, &ph, &count) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_start(s, ph) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &value) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_readreset(s, ph, &value) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_write(s, ph, &value) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_handle_free(s, &ph) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS && s == MPI_T_PVAR_SESSION_NULL);
    CHECK(MPI_T_pvar_session_free(&s) == MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_handle_alloc(s, 0, NULL, &ph, &count) == MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_session_free(&s2) == MPI_SUCCESS);
}

/* What every call returns outside MPI_T_init_thread ... MPI_T_finalize. */
static void uninitialized(void) {
    int n = -1, idx;
    MPI_T_pvar_session s;
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED && n == -1);
    CHECK(MPI_T_pvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK(MPI_T_cvar_get_index("x", &idx) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK(MPI_T_pvar_session_create(&s) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
}

int main(int argc, char **argv) {
    int provided = -1, rank, size;
    uninitialized();
    /* Before MPI_Init, nested. */
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS &&
          provided == MPI_THREAD_SINGLE);
    CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS &&
          provided == MPI_THREAD_MULTIPLE);
    queries();
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    queries(); /* one init still holds it */
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    uninitialized();
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL) == MPI_T_ERR_INVALID);
    uninitialized();

    start_returning_errors(&argc, &argv, &rank, &size);
    CHECK(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS &&
          provided == MPI_THREAD_FUNNELED);
    queries();
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    uninitialized();
    CHECK_OK(MPI_Finalize());

    /* After MPI_Finalize (CHECK's MPI_Abort is no longer there to call). */
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
        MPI_T_finalize() != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_T after MPI_Finalize failed\n", rank);
        return 1;
    }
    printf("tools ok\n");
    return 0;
}
