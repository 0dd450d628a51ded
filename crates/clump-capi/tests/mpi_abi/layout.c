/* The facts of the MPI standard ABI that a program built elsewhere relies on, checked
 * against include/mpi.h: sizes and layouts (at compile time), and a sample of the fixed
 * handle values, written here a second time from the standard's tables (when run: a
 * pointer constant is no integer constant expression). Exits 1 naming each mismatch. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static int mismatches;

static void same(intptr_t handle, intptr_t value, const char *name) {
    if (handle != value) {
        printf("%s is 0x%lx, the standard says 0x%lx\n", name, (long)handle, (long)value);
        mismatches++;
    }
}

#define SAME(handle, value) same((intptr_t)(handle), (value), #handle)

_Static_assert(sizeof(MPI_Status) == 8 * sizeof(int), "MPI_Status is 8 ints");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0, "MPI_SOURCE first");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == sizeof(int), "MPI_TAG second");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(int), "MPI_ERROR third");
_Static_assert(sizeof(MPI_Aint) == sizeof(void *), "MPI_Aint is pointer-sized");
_Static_assert(sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8, "64-bit offsets");
_Static_assert(sizeof(MPI_Comm) == sizeof(void *) && sizeof(MPI_Request) == sizeof(void *),
               "handles are pointers");

_Static_assert(MPI_ANY_SOURCE == -1 && MPI_PROC_NULL == -3 && MPI_ROOT == -4, "ranks");
_Static_assert(MPI_ANY_TAG == -2 && MPI_UNDEFINED == -32766, "sentinels");
_Static_assert(MPI_ERR_TRUNCATE == 15 && MPI_ERR_UNSUPPORTED_OPERATION == 55, "classes");
_Static_assert(MPI_IDENT == 201 && MPI_UNEQUAL == 204 && MPI_TAG_UB == 501, "constants");
_Static_assert(MPI_THREAD_FUNNELED == 1024 && MPI_THREAD_MULTIPLE == 4096, "thread levels");

int main(void) {
    SAME(MPI_OP_NULL, 0x20);
    SAME(MPI_SUM, 0x21);
    SAME(MPI_MAXLOC, 0x39);
    SAME(MPI_NO_OP, 0x3d);
    SAME(MPI_COMM_NULL, 0x100);
    SAME(MPI_COMM_WORLD, 0x101);
    SAME(MPI_COMM_SELF, 0x102);
    SAME(MPI_GROUP_EMPTY, 0x109);
    SAME(MPI_INFO_NULL, 0x130);
    SAME(MPI_ERRORS_ARE_FATAL, 0x141);
    SAME(MPI_ERRORS_ABORT, 0x142);
    SAME(MPI_ERRORS_RETURN, 0x143);
    SAME(MPI_REQUEST_NULL, 0x180);
    SAME(MPI_DATATYPE_NULL, 0x200);
    SAME(MPI_INT, 0x209);
    SAME(MPI_DOUBLE, 0x214);
    SAME(MPI_DOUBLE_INT, 0x229);
    SAME(MPI_CHAR, 0x243);
    SAME(MPI_BYTE, 0x247);
    SAME(MPI_UINT64_T, 0x259);
    return mismatches ? 1 : 0;
}
