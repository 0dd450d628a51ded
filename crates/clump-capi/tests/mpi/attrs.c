/* Attribute caching on communicators and datatypes: user keys with copy and delete callbacks (called
 * by dup, set over a value, delete, free, and for MPI_COMM_SELF by MPI_Finalize), the
 * predefined MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN, the MPI-1 names, MPI_Type_dup,
 * and MPI_LASTUSEDCODE's value. */
#include "check.h"

static int copies, deletes, self_deleted;

static int copy_plus_one(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)key;
    CHECK(*(int *)extra == 42);
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm; (void)key; (void)value; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t; (void)key;
    CHECK(*(int *)extra == 42);
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int key, void *value, void *extra)
{
    (void)t; (void)key; (void)value; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)key; (void)value; (void)extra;
    CHECK(comm == MPI_COMM_SELF);
    self_deleted = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static int extra = 42;
    int key, dupkey, nullkey, flag;
    void *v;
    CHECK_OK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &key, &extra));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dupkey, NULL));
    CHECK_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &nullkey, NULL));
    CHECK(key != dupkey && key != nullkey && key != MPI_TAG_UB);

    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    CHECK_OK(MPI_Comm_get_attr(a, key, &v, &flag));
    CHECK(flag == 0);
    CHECK_OK(MPI_Comm_set_attr(a, key, (void *)100));
    CHECK_OK(MPI_Comm_set_attr(a, dupkey, (void *)200));
    CHECK_OK(MPI_Attr_put(a, nullkey, (void *)300));
    CHECK_OK(MPI_Comm_set_attr(a, key, (void *)10)); /* replaces: deletes the old */
    CHECK(deletes == 1);
    CHECK_OK(MPI_Comm_get_attr(a, key, &v, &flag));
    CHECK(flag == 1 && v == (void *)10);

    CHECK_OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1);
    CHECK_OK(MPI_Comm_get_attr(b, key, &v, &flag));
    CHECK(flag == 1 && v == (void *)11);
    CHECK_OK(MPI_Attr_get(b, dupkey, &v, &flag));
    CHECK(flag == 1 && v == (void *)200);
    CHECK_OK(MPI_Comm_get_attr(b, nullkey, &v, &flag));
    CHECK(flag == 0);
    /* Predefined attributes still answer. */
    int *ub;
    CHECK_OK(MPI_Comm_get_attr(b, MPI_TAG_UB, &ub, &flag));
    CHECK(flag == 1 && *ub >= 32767);

    CHECK_OK(MPI_Comm_delete_attr(b, key));
    CHECK(deletes == 2);
    CHECK_OK(MPI_Comm_get_attr(b, key, &v, &flag));
    CHECK(flag == 0);

    /* A freed key stays usable by the values that hold it. */
    CHECK_OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
    MPI_Comm_free(&b);
    CHECK(deletes == 2);
    MPI_Comm_free(&a);
    CHECK(deletes == 3);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int eclass;
    MPI_Error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void *)1), &eclass);
    CHECK(eclass == MPI_ERR_KEYVAL);

    /* MPI_LASTUSEDCODE is at least MPI_ERR_LASTCODE. */
    int *last;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag == 1 && *last >= MPI_ERR_LASTCODE);

    /* On datatypes: MPI_Type_dup copies, MPI_Type_free deletes. */
    int tkey;
    MPI_Datatype t, t2;
    CHECK_OK(MPI_Type_create_keyval(type_copy, type_delete, &tkey, &extra));
    MPI_Type_contiguous(3, MPI_INT, &t);
    CHECK_OK(MPI_Type_set_attr(t, tkey, (void *)20));
    CHECK_OK(MPI_Type_dup(t, &t2));
    CHECK_OK(MPI_Type_get_attr(t2, tkey, &v, &flag));
    CHECK(flag == 1 && v == (void *)21 && copies == 2);
    int tsize;
    MPI_Type_size(t2, &tsize);
    CHECK(tsize == 3 * (int)sizeof(int));
    CHECK_OK(MPI_Type_delete_attr(t, tkey));
    CHECK(deletes == 4);
    MPI_Type_free(&t);
    CHECK(deletes == 4);
    MPI_Type_free(&t2);
    CHECK(deletes == 5);
    CHECK_OK(MPI_Type_free_keyval(&tkey));

    int selfkey;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &selfkey, NULL));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, selfkey, (void *)1));
    MPI_Keyval_free(&dupkey);
    MPI_Keyval_free(&nullkey);
    MPI_Finalize();
    if (!self_deleted) {
        fprintf(stderr, "MPI_Finalize did not delete MPI_COMM_SELF's attribute\n");
        return 1;
    }
    printf("attrs ok\n");
    return 0;
}
