/* User error classes, codes and strings, and user error handlers: a handler set on a
 * communicator is called for its errors (and by MPI_Comm_call_errhandler), a duplicate
 * inherits it, and freeing the handler leaves it working where it is set. */
#include "check.h"
#include <string.h>

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

static void classes(void)
{
    int class, code, plain, got, len, flag, *last;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_OK(MPI_Add_error_class(&class));
    CHECK_OK(MPI_Add_error_code(class, &code));
    CHECK_OK(MPI_Add_error_code(MPI_ERR_ARG, &plain));
    CHECK_OK(MPI_Error_class(class, &got));
    CHECK(got == class);
    CHECK_OK(MPI_Error_class(code, &got));
    CHECK(got == class);
    CHECK_OK(MPI_Error_class(plain, &got));
    CHECK(got == MPI_ERR_ARG);
    CHECK_OK(MPI_Error_string(code, text, &len));
    CHECK(len == 0 && text[0] == 0);
    CHECK_OK(MPI_Add_error_string(code, "my code"));
    CHECK_OK(MPI_Error_string(code, text, &len));
    CHECK(strcmp(text, "my code") == 0 && len == 7);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= plain && *last >= MPI_ERR_LASTCODE);
    CHECK(MPI_Add_error_string(MPI_ERR_ARG, "no") != MPI_SUCCESS);
    CHECK(MPI_Remove_error_class(class) != MPI_SUCCESS); /* it still has a code */
    CHECK_OK(MPI_Remove_error_string(code));
    CHECK_OK(MPI_Remove_error_code(code));
    CHECK_OK(MPI_Remove_error_class(class));
    CHECK(MPI_Error_class(code, &got) != MPI_SUCCESS);
}

static void handlers(int size)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup, dup2;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_create_errhandler(handler, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(dup, eh));
    CHECK_OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh);
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL);

    CHECK_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(calls == 1 && last_code == MPI_ERR_OTHER && last_comm == dup);

    /* A failing call reaches the handler and still returns its code. */
    int x = 0, class;
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, dup);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_RANK && calls == 2 && last_comm == dup);

    CHECK_OK(MPI_Comm_dup(dup, &dup2));
    CHECK_OK(MPI_Comm_call_errhandler(dup2, MPI_ERR_ARG));
    CHECK(calls == 3 && last_code == MPI_ERR_ARG && last_comm == dup2);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);

    /* Under MPI_ERRORS_RETURN the call only reports success. */
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK(calls == 3);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    classes();
    handlers(size);
    MPI_Finalize();
    printf("errhandlers ok\n");
    return 0;
}
