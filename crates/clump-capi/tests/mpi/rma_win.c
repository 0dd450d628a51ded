/* What a window carries besides its memory: info hints (MPI_Win_get_info/set_info), the
 * program's attributes (keyvals with delete callbacks run on replace, delete and free,
 * copy callbacks never run since windows are not duplicated) and error handlers of the
 * program's own (created, set, read back, called by MPI_Win_call_errhandler and by a
 * failing call, alive after MPI_Errhandler_free). Prints "rma_win ok" on each rank. */
#include "check.h"
#include <string.h>

static int rank, size;

static int deletes, last_deleted;
static int on_delete(MPI_Win win, int key, void *value, void *extra) {
    (void)win, (void)key;
    CHECK(extra == &deletes);
    deletes++;
    last_deleted = *(int *)value;
    return MPI_SUCCESS;
}

static int on_copy(MPI_Win win, int key, void *extra, void *in, void *out, int *flag) {
    (void)win, (void)key, (void)extra, (void)in, (void)out, (void)flag;
    CHECK(!"a window's copy callback ran");
    return MPI_ERR_OTHER;
}

static int errors_seen, error_code;
static MPI_Win error_win;
static void on_error(MPI_Win *win, int *code, ...) {
    errors_seen++;
    error_win = *win;
    error_code = *code;
}

static int class_of(int code) {
    int c = -1;
    CHECK_OK(MPI_Error_class(code, &c));
    return c;
}

static void info(MPI_Win win) {
    MPI_Info used, mine;
    char value[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_OK(MPI_Win_get_info(win, &used));
    CHECK_OK(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag && strcmp(value, "rar,raw,war,waw") == 0);
    CHECK_OK(MPI_Info_free(&used));
    CHECK_OK(MPI_Info_create(&mine));
    CHECK_OK(MPI_Info_set(mine, "no_locks", "true"));
    CHECK_OK(MPI_Win_set_info(win, mine));
    CHECK_OK(MPI_Win_set_info(win, MPI_INFO_NULL));
    MPI_Info gone = mine;
    CHECK_OK(MPI_Info_free(&mine));
    CHECK(class_of(MPI_Win_set_info(win, gone)) == MPI_ERR_INFO);
    CHECK(class_of(MPI_Win_get_info(win, NULL)) == MPI_ERR_ARG);
}

/* Returns a keyval still set on `win`, freed already: MPI_Win_free must delete it. */
static int attributes(MPI_Win win) {
    int key = MPI_KEYVAL_INVALID, plain = MPI_KEYVAL_INVALID, flag = -1;
    static int v1 = 11, v2 = 22, v3 = 33; /* they outlive this call on the window */
    int *got = NULL;
    CHECK_OK(MPI_Win_create_keyval(on_copy, on_delete, &key, &deletes));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &plain, NULL));
    CHECK(key != MPI_KEYVAL_INVALID && plain != key);
    CHECK_OK(MPI_Win_get_attr(win, key, &got, &flag));
    CHECK(flag == 0);
    CHECK_OK(MPI_Win_set_attr(win, key, &v1));
    CHECK_OK(MPI_Win_set_attr(win, plain, &v2));
    CHECK_OK(MPI_Win_get_attr(win, key, &got, &flag));
    CHECK(flag == 1 && got == &v1);
    CHECK_OK(MPI_Win_get_attr(win, plain, &got, &flag));
    CHECK(flag == 1 && got == &v2);
    CHECK(deletes == 0);
    /* Replacing a value deletes the old one first. */
    CHECK_OK(MPI_Win_set_attr(win, key, &v2));
    CHECK(deletes == 1 && last_deleted == 11);
    CHECK_OK(MPI_Win_delete_attr(win, key));
    CHECK(deletes == 2 && last_deleted == 22);
    CHECK_OK(MPI_Win_get_attr(win, key, &got, &flag));
    CHECK(flag == 0);
    /* The predefined attributes are still there beside the program's. */
    MPI_Aint *bytes = NULL;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &bytes, &flag));
    CHECK(flag == 1 && *bytes == 8 * sizeof(int));
    CHECK_OK(MPI_Win_delete_attr(win, plain));
    CHECK_OK(MPI_Win_free_keyval(&plain));
    CHECK(plain == MPI_KEYVAL_INVALID);
    CHECK(class_of(MPI_Win_get_attr(win, 999999, &got, &flag)) == MPI_ERR_KEYVAL);
    /* A freed key keeps its value until the window goes. */
    CHECK_OK(MPI_Win_set_attr(win, key, &v3));
    int freed = key;
    CHECK_OK(MPI_Win_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
    CHECK_OK(MPI_Win_get_attr(win, freed, &got, &flag));
    CHECK(flag == 1 && got == &v3);
    CHECK(deletes == 2);
    return freed;
}

static void handlers(MPI_Win win) {
    MPI_Errhandler mine = MPI_ERRHANDLER_NULL, now = MPI_ERRHANDLER_NULL;
    CHECK_OK(MPI_Win_create_errhandler(on_error, &mine));
    CHECK(mine != MPI_ERRHANDLER_NULL);
    CHECK_OK(MPI_Win_set_errhandler(win, mine));
    CHECK_OK(MPI_Win_get_errhandler(win, &now));
    CHECK(now == mine);

    CHECK_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(errors_seen == 1 && error_win == win && error_code == MPI_ERR_OTHER);

    /* A failing call reaches it with its code, and returns that code. */
    int x = 0;
    CHECK_OK(MPI_Win_fence(0, win));
    int err = MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win);
    CHECK(class_of(err) == MPI_ERR_RANK);
    CHECK(errors_seen == 2 && error_code == err);

    /* Freeing the handle leaves the handler on the window. */
    CHECK_OK(MPI_Errhandler_free(&mine));
    CHECK(mine == MPI_ERRHANDLER_NULL);
    err = MPI_Put(&x, 1, MPI_INT, 0, 1000, 1, MPI_INT, win);
    CHECK(class_of(err) == MPI_ERR_RMA_RANGE);
    CHECK(errors_seen == 3);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

    /* What is no window's handler is refused, through the handler in place. */
    err = MPI_Win_set_errhandler(win, MPI_ERRHANDLER_NULL);
    CHECK(err != MPI_SUCCESS && errors_seen == 4);
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(errors_seen == 4);

    /* With its last reference (the handle the get gave) freed, and no window holding it,
     * the handler is released: its stale handle is refused. */
    MPI_Errhandler stale = now;
    CHECK_OK(MPI_Errhandler_free(&now));
    CHECK(now == MPI_ERRHANDLER_NULL);
    CHECK(class_of(MPI_Win_set_errhandler(win, stale)) == MPI_ERR_ERRHANDLER);
    CHECK(class_of(MPI_Errhandler_free(&stale)) == MPI_ERR_ERRHANDLER);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    int *a = NULL;
    CHECK_OK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a,
                              &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    info(win);
    int freed = attributes(win);
    handlers(win);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(deletes == 3 && last_deleted == 33);
    /* The freed key went with its last value. */
    CHECK(class_of(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &freed,
                                         NULL)) == MPI_SUCCESS);
    CHECK_OK(MPI_Win_free_keyval(&freed));
    printf("rma_win ok\n");
    MPI_Finalize();
    return 0;
}
