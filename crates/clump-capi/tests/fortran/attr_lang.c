/* The C half of attr_lang.f90: reads and sets attributes from C on the handles Fortran
 * passes (kind 0 a communicator, 1 a datatype, 2 a window), and makes keys with C
 * callbacks. Each reader returns the number of errors it found, naming each. */
#include <mpi_fortran.h> /* MPI_Fint and MPI_<Kind>_f2c beside the ABI's mpi.h */
#include <stdint.h>
#include <stdio.h>

static int get(int kind, MPI_Fint handle, int key, void *value, int *flag)
{
    switch (kind) {
    case 0:
        return MPI_Comm_get_attr(MPI_Comm_f2c(handle), key, value, flag);
    case 1:
        return MPI_Type_get_attr(MPI_Type_f2c(handle), key, value, flag);
    default:
        return MPI_Win_get_attr(MPI_Win_f2c(handle), key, value, flag);
    }
}

/* A value Fortran set with MPI_XXX_SET_ATTR: C gets a pointer to an MPI_Aint. */
int c_read_aint(int kind, MPI_Fint handle, int key, intptr_t expected)
{
    MPI_Aint *value = NULL;
    int flag = 0;
    if (get(kind, handle, key, &value, &flag) != MPI_SUCCESS || !flag || value == NULL) {
        printf("FAILED: kind %d key %d: not found from C\n", kind, key);
        return 1;
    }
    if (*value != (MPI_Aint) expected) {
        printf("FAILED: kind %d key %d: C read %ld, not %ld\n", kind, key, (long) *value,
               (long) expected);
        return 1;
    }
    return 0;
}

/* A value Fortran set with MPI_ATTR_PUT: C gets a pointer to an int. */
int c_read_int(MPI_Fint comm, int key, int expected)
{
    int *value = NULL;
    int flag = 0;
    if (MPI_Attr_get(MPI_Comm_f2c(comm), key, &value, &flag) != MPI_SUCCESS || !flag
        || value == NULL) {
        printf("FAILED: key %d: not found by MPI_Attr_get\n", key);
        return 1;
    }
    if (*value != expected) {
        printf("FAILED: key %d: MPI_Attr_get read %d, not %d\n", key, *value, expected);
        return 1;
    }
    return 0;
}

/* Sets the address `value` from C. */
void c_set(int kind, MPI_Fint handle, int key, intptr_t value)
{
    switch (kind) {
    case 0:
        MPI_Comm_set_attr(MPI_Comm_f2c(handle), key, (void *) value);
        break;
    case 1:
        MPI_Type_set_attr(MPI_Type_f2c(handle), key, (void *) value);
        break;
    default:
        MPI_Win_set_attr(MPI_Win_f2c(handle), key, (void *) value);
    }
}

/* What the callbacks below saw: the values their pointer argument pointed at. */
static MPI_Aint copied_from, deleted;
/* The copy the copy callback makes: an address-valued attribute pointing here. */
static MPI_Aint copy;

/* Copies an integer-valued attribute (Fortran's), which C sees through a pointer, as the
 * address of a copy 2 more than it. */
static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    copied_from = *(MPI_Aint *) in;
    copy = copied_from + 2;
    *(void **) out = &copy;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra)
{
    deleted = *(MPI_Aint *) value;
    return MPI_SUCCESS;
}

int c_keyval(void)
{
    int key;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    return key;
}

/* What the callbacks saw: the value copied from, and the value of the last deleted. */
void c_seen(MPI_Aint *from, MPI_Aint *gone)
{
    *from = copied_from;
    *gone = deleted;
}
