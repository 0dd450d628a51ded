/*
 * mpi.h: the MPI C interface of clump, following the MPI standard ABI (MPI 5.0).
 *
 * What the standard ABI fixes, and this header therefore fixes too: handles are pointers
 * to incomplete structs; the predefined handles are small integer constants cast to
 * those pointers (so a program built against the ABI by any implementation's wrapper
 * names the same values); the layout of MPI_Status; the integer types; the values of the
 * error classes and other constants.
 *
 * Source of the values: the MPI Forum ABI working group's reference header
 * (mpiwg-abi/header_and_stub_library, include/mpi.h), from which the ABI chapter of
 * MPI 5.0 was written. The published MPI 5.0 document itself could not be consulted
 * here; values the working group's header marks as provisional are flagged below with
 * "UNCONFIRMED" rather than silently taken as final.
 */
#ifndef CLUMP_MPI_H
#define CLUMP_MPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION    5
#define MPI_SUBVERSION 0

/* Integer types: the ABI fixes them to the platform's pointer width and 64 bits. */
typedef intptr_t MPI_Aint;
typedef int64_t  MPI_Offset;
typedef int64_t  MPI_Count;
typedef int      MPI_Fint;

/* The status: three public fields, then five ints the library owns (clump keeps the
 * received byte count and the cancelled flag there). 32 bytes in all. */
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;

/* Fortran status indices (the C struct's field order). */
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2
#define MPI_F_STATUS_SIZE 8

/* ---- Handles and their predefined values ---------------------------------------- */

typedef struct MPI_ABI_Op *MPI_Op;
#define MPI_OP_NULL    ((MPI_Op)0x00000020)
#define MPI_SUM        ((MPI_Op)0x00000021)
#define MPI_MIN        ((MPI_Op)0x00000022)
#define MPI_MAX        ((MPI_Op)0x00000023)
#define MPI_PROD       ((MPI_Op)0x00000024)
#define MPI_BAND       ((MPI_Op)0x00000028)
#define MPI_BOR        ((MPI_Op)0x00000029)
#define MPI_BXOR       ((MPI_Op)0x0000002a)
#define MPI_LAND       ((MPI_Op)0x00000030)
#define MPI_LOR        ((MPI_Op)0x00000031)
#define MPI_LXOR       ((MPI_Op)0x00000032)
#define MPI_MINLOC     ((MPI_Op)0x00000038)
#define MPI_MAXLOC     ((MPI_Op)0x00000039)
#define MPI_REPLACE    ((MPI_Op)0x0000003c)
#define MPI_NO_OP      ((MPI_Op)0x0000003d)

typedef struct MPI_ABI_Comm *MPI_Comm;
#define MPI_COMM_NULL  ((MPI_Comm)0x00000100)
#define MPI_COMM_WORLD ((MPI_Comm)0x00000101)
#define MPI_COMM_SELF  ((MPI_Comm)0x00000102)

typedef struct MPI_ABI_Group *MPI_Group;
#define MPI_GROUP_NULL  ((MPI_Group)0x00000108)
#define MPI_GROUP_EMPTY ((MPI_Group)0x00000109)

typedef struct MPI_ABI_Win *MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0x00000110)

typedef struct MPI_ABI_File *MPI_File;
#define MPI_FILE_NULL ((MPI_File)0x00000118)

typedef struct MPI_ABI_Session *MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0x00000120)

typedef struct MPI_ABI_Message *MPI_Message;
#define MPI_MESSAGE_NULL    ((MPI_Message)0x00000128)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x00000129)

typedef struct MPI_ABI_Info *MPI_Info;
#define MPI_INFO_NULL ((MPI_Info)0x00000130)
#define MPI_INFO_ENV  ((MPI_Info)0x00000131)

typedef struct MPI_ABI_Errhandler *MPI_Errhandler;
#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0x00000140)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x00000141)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x00000142)
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)0x00000143)

typedef struct MPI_ABI_Request *MPI_Request;
#define MPI_REQUEST_NULL ((MPI_Request)0x00000180)

typedef struct MPI_ABI_Datatype *MPI_Datatype;
#define MPI_DATATYPE_NULL           ((MPI_Datatype)0x00000200)
#define MPI_AINT                    ((MPI_Datatype)0x00000201)
#define MPI_COUNT                   ((MPI_Datatype)0x00000202)
#define MPI_OFFSET                  ((MPI_Datatype)0x00000203)
#define MPI_PACKED                  ((MPI_Datatype)0x00000207)
#define MPI_SHORT                   ((MPI_Datatype)0x00000208)
#define MPI_INT                     ((MPI_Datatype)0x00000209)
#define MPI_LONG                    ((MPI_Datatype)0x0000020a)
#define MPI_LONG_LONG               ((MPI_Datatype)0x0000020b)
#define MPI_LONG_LONG_INT           MPI_LONG_LONG
#define MPI_UNSIGNED_SHORT          ((MPI_Datatype)0x0000020c)
#define MPI_UNSIGNED                ((MPI_Datatype)0x0000020d)
#define MPI_UNSIGNED_LONG           ((MPI_Datatype)0x0000020e)
#define MPI_UNSIGNED_LONG_LONG      ((MPI_Datatype)0x0000020f)
#define MPI_FLOAT                   ((MPI_Datatype)0x00000210)
#define MPI_C_FLOAT_COMPLEX         ((MPI_Datatype)0x00000212)
#define MPI_C_COMPLEX               MPI_C_FLOAT_COMPLEX
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)0x00000213)
#define MPI_DOUBLE                  ((MPI_Datatype)0x00000214)
#define MPI_C_DOUBLE_COMPLEX        ((MPI_Datatype)0x00000216)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)0x00000217)
#define MPI_INTEGER                 ((MPI_Datatype)0x00000218)
#define MPI_LOGICAL                 ((MPI_Datatype)0x00000219)
#define MPI_REAL                    ((MPI_Datatype)0x0000021a)
#define MPI_COMPLEX                 ((MPI_Datatype)0x0000021b)
#define MPI_DOUBLE_PRECISION        ((MPI_Datatype)0x0000021c)
#define MPI_DOUBLE_COMPLEX          ((MPI_Datatype)0x0000021d)
#define MPI_LONG_DOUBLE             ((MPI_Datatype)0x00000220)
#define MPI_C_LONG_DOUBLE_COMPLEX   ((MPI_Datatype)0x00000224)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x00000225)
#define MPI_FLOAT_INT               ((MPI_Datatype)0x00000228)
#define MPI_DOUBLE_INT              ((MPI_Datatype)0x00000229)
#define MPI_LONG_INT                ((MPI_Datatype)0x0000022a)
#define MPI_2INT                    ((MPI_Datatype)0x0000022b)
#define MPI_SHORT_INT               ((MPI_Datatype)0x0000022c)
#define MPI_LONG_DOUBLE_INT         ((MPI_Datatype)0x0000022d)
#define MPI_2REAL                   ((MPI_Datatype)0x00000230)
#define MPI_2DOUBLE_PRECISION       ((MPI_Datatype)0x00000231)
#define MPI_2INTEGER                ((MPI_Datatype)0x00000232)
#define MPI_C_BOOL                  ((MPI_Datatype)0x00000238)
#define MPI_CXX_BOOL                ((MPI_Datatype)0x00000239)
#define MPI_WCHAR                   ((MPI_Datatype)0x0000023c)
#define MPI_INT8_T                  ((MPI_Datatype)0x00000240)
#define MPI_UINT8_T                 ((MPI_Datatype)0x00000241)
#define MPI_CHAR                    ((MPI_Datatype)0x00000243)
#define MPI_SIGNED_CHAR             ((MPI_Datatype)0x00000244)
#define MPI_UNSIGNED_CHAR           ((MPI_Datatype)0x00000245)
#define MPI_BYTE                    ((MPI_Datatype)0x00000247)
#define MPI_INT16_T                 ((MPI_Datatype)0x00000248)
#define MPI_UINT16_T                ((MPI_Datatype)0x00000249)
#define MPI_INT32_T                 ((MPI_Datatype)0x00000250)
#define MPI_UINT32_T                ((MPI_Datatype)0x00000251)
#define MPI_INT64_T                 ((MPI_Datatype)0x00000258)
#define MPI_UINT64_T                ((MPI_Datatype)0x00000259)
#define MPI_INTEGER1                ((MPI_Datatype)0x000002c0)
#define MPI_CHARACTER               ((MPI_Datatype)0x000002c3)
#define MPI_INTEGER2                ((MPI_Datatype)0x000002c8)
#define MPI_INTEGER4                ((MPI_Datatype)0x000002d0)
#define MPI_REAL4                   ((MPI_Datatype)0x000002d2)
#define MPI_INTEGER8                ((MPI_Datatype)0x000002d8)
#define MPI_REAL8                   ((MPI_Datatype)0x000002da)
#define MPI_COMPLEX8                ((MPI_Datatype)0x000002db)
#define MPI_INTEGER16               ((MPI_Datatype)0x000002e0)
#define MPI_REAL16                  ((MPI_Datatype)0x000002e2)
#define MPI_COMPLEX16               ((MPI_Datatype)0x000002e3)
#define MPI_COMPLEX32               ((MPI_Datatype)0x000002eb)

/* ---- Error classes ---------------------------------------------------------------- */
enum {
    MPI_SUCCESS = 0,
    MPI_ERR_BUFFER = 1,
    MPI_ERR_COUNT = 2,
    MPI_ERR_TYPE = 3,
    MPI_ERR_TAG = 4,
    MPI_ERR_COMM = 5,
    MPI_ERR_RANK = 6,
    MPI_ERR_REQUEST = 7,
    MPI_ERR_ROOT = 8,
    MPI_ERR_GROUP = 9,
    MPI_ERR_OP = 10,
    MPI_ERR_TOPOLOGY = 11,
    MPI_ERR_DIMS = 12,
    MPI_ERR_ARG = 13,
    MPI_ERR_UNKNOWN = 14,
    MPI_ERR_TRUNCATE = 15,
    MPI_ERR_OTHER = 16,
    MPI_ERR_INTERN = 17,
    MPI_ERR_PENDING = 18,
    MPI_ERR_IN_STATUS = 19,
    MPI_ERR_ACCESS = 20,
    MPI_ERR_AMODE = 21,
    MPI_ERR_ASSERT = 22,
    MPI_ERR_BAD_FILE = 23,
    MPI_ERR_BASE = 24,
    MPI_ERR_CONVERSION = 25,
    MPI_ERR_DISP = 26,
    MPI_ERR_DUP_DATAREP = 27,
    MPI_ERR_FILE_EXISTS = 28,
    MPI_ERR_FILE_IN_USE = 29,
    MPI_ERR_FILE = 30,
    MPI_ERR_INFO_KEY = 31,
    MPI_ERR_INFO_NOKEY = 32,
    MPI_ERR_INFO_VALUE = 33,
    MPI_ERR_INFO = 34,
    MPI_ERR_IO = 35,
    MPI_ERR_KEYVAL = 36,
    MPI_ERR_LOCKTYPE = 37,
    MPI_ERR_NAME = 38,
    MPI_ERR_NO_MEM = 39,
    MPI_ERR_NOT_SAME = 40,
    MPI_ERR_NO_SPACE = 41,
    MPI_ERR_NO_SUCH_FILE = 42,
    MPI_ERR_PORT = 43,
    MPI_ERR_PROC_ABORTED = 44,
    MPI_ERR_QUOTA = 45,
    MPI_ERR_READ_ONLY = 46,
    MPI_ERR_RMA_ATTACH = 47,
    MPI_ERR_RMA_CONFLICT = 48,
    MPI_ERR_RMA_RANGE = 49,
    MPI_ERR_RMA_SHARED = 50,
    MPI_ERR_RMA_SYNC = 51,
    MPI_ERR_RMA_FLAVOR = 52,
    MPI_ERR_SERVICE = 53,
    MPI_ERR_SESSION = 54,
    MPI_ERR_SIZE = 55,
    MPI_ERR_SPAWN = 56,
    MPI_ERR_UNSUPPORTED_DATAREP = 57,
    MPI_ERR_UNSUPPORTED_OPERATION = 58,
    MPI_ERR_VALUE_TOO_LARGE = 59,
    MPI_ERR_WIN = 60,
    MPI_ERR_ERRHANDLER = 61,
    MPI_ERR_LASTCODE = 0x3fff
};

/* ---- Buffer addresses and ignored arguments --------------------------------------- */
#define MPI_BOTTOM           ((void *)0)
#define MPI_IN_PLACE         ((void *)1)
#define MPI_BUFFER_AUTOMATIC ((void *)2)
#define MPI_ARGV_NULL        ((char **)0)
#define MPI_ARGVS_NULL       ((char ***)0)
#define MPI_ERRCODES_IGNORE  ((int *)0)
#define MPI_STATUS_IGNORE    ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE  ((MPI_Status *)0)
#define MPI_UNWEIGHTED       ((int *)4)
#define MPI_WEIGHTS_EMPTY    ((int *)5)

/* UNCONFIRMED: the working group's header gives these sizes with notes comparing them
 * to MPICH and Open MPI; MPICH's ABI draft used smaller ones for some (processor name
 * 128, info key 255). A program only relies on them as buffer sizes it passes in. */
#define MPI_BSEND_OVERHEAD             512
#define MPI_MAX_DATAREP_STRING         128
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_INFO_KEY               256
#define MPI_MAX_INFO_VAL               1024
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_PORT_NAME              1024
#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_STRINGTAG_LEN          1024
#define MPI_MAX_PSET_NAME_LEN          512

/* ---- Sentinels, levels, comparison results, attribute keys ------------------------ */
enum {
    MPI_ANY_SOURCE = -1,
    MPI_PROC_NULL = -2,
    MPI_ROOT = -3,
    MPI_ANY_TAG = -31,
    MPI_KEYVAL_INVALID = -127,
    MPI_DISPLACEMENT_CURRENT = -255,
    MPI_UNDEFINED = -32766
};

/* File and window modes: powers of two, OR-ed together. */
enum {
    MPI_MODE_APPEND = 1,
    MPI_MODE_CREATE = 2,
    MPI_MODE_DELETE_ON_CLOSE = 4,
    MPI_MODE_EXCL = 8,
    MPI_MODE_RDONLY = 16,
    MPI_MODE_RDWR = 32,
    MPI_MODE_SEQUENTIAL = 64,
    MPI_MODE_UNIQUE_OPEN = 128,
    MPI_MODE_WRONLY = 256,
    MPI_MODE_NOCHECK = 1024,
    MPI_MODE_NOPRECEDE = 2048,
    MPI_MODE_NOPUT = 4096,
    MPI_MODE_NOSTORE = 8192,
    MPI_MODE_NOSUCCEED = 16384
};

enum {
    MPI_THREAD_SINGLE = 0,
    MPI_THREAD_FUNNELED = 1,
    MPI_THREAD_SERIALIZED = 2,
    MPI_THREAD_MULTIPLE = 7
};

enum {
    MPI_ORDER_C = 12,
    MPI_ORDER_FORTRAN = 15,
    MPI_DISTRIBUTE_NONE = 16,
    MPI_DISTRIBUTE_BLOCK = 17,
    MPI_DISTRIBUTE_CYCLIC = 18,
    MPI_DISTRIBUTE_DFLT_DARG = 19,
    MPI_LOCK_SHARED = 21,
    MPI_LOCK_EXCLUSIVE = 22,
    MPI_IDENT = 101,
    MPI_CONGRUENT = 102,
    MPI_SIMILAR = 103,
    MPI_UNEQUAL = 104,
    MPI_GRAPH = 201,
    MPI_DIST_GRAPH = 202,
    MPI_CART = 203,
    MPI_COMBINER_NAMED = 301,
    MPI_COMBINER_DUP = 302,
    MPI_COMBINER_CONTIGUOUS = 303,
    MPI_COMBINER_VECTOR = 304,
    MPI_COMBINER_HVECTOR = 305,
    MPI_COMBINER_INDEXED = 306,
    MPI_COMBINER_HINDEXED = 307,
    MPI_COMBINER_INDEXED_BLOCK = 308,
    MPI_COMBINER_HINDEXED_BLOCK = 309,
    MPI_COMBINER_STRUCT = 310,
    MPI_COMBINER_SUBARRAY = 311,
    MPI_COMBINER_DARRAY = 312,
    MPI_COMBINER_RESIZED = 316,
    MPI_SEEK_CUR = 601,
    MPI_SEEK_END = 602,
    MPI_SEEK_SET = 603,
    MPI_COMM_TYPE_SHARED = 1001,
    MPI_COMM_TYPE_HW_UNGUIDED = 1002,
    MPI_COMM_TYPE_HW_GUIDED = 1003,
    MPI_COMM_TYPE_RESOURCE_GUIDED = 1004,
    MPI_TAG_UB = 10001,
    MPI_IO = 10002,
    MPI_HOST = 10003,
    MPI_WTIME_IS_GLOBAL = 10004,
    MPI_APPNUM = 10005,
    MPI_LASTUSEDCODE = 10006,
    MPI_UNIVERSE_SIZE = 10007,
    MPI_WIN_BASE = 20001,
    MPI_WIN_DISP_UNIT = 20002,
    MPI_WIN_SIZE = 20003,
    MPI_WIN_CREATE_FLAVOR = 20004,
    MPI_WIN_MODEL = 20005
};

/* ---- Callback types ---------------------------------------------------------------- */
typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm, int, void *, void *, void *, int *);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm, int, void *, void *);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm *, int *, ...);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0x0)
#define MPI_COMM_DUP_FN         ((MPI_Comm_copy_attr_function *)0x1)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0x0)

/* ---- Functions (each also as PMPI_<name> for profiling tools) ---------------------- */
#define CLUMP_MPI_FN(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

/* Environment */
CLUMP_MPI_FN(int, Init, (int *argc, char ***argv))
CLUMP_MPI_FN(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
CLUMP_MPI_FN(int, Initialized, (int *flag))
CLUMP_MPI_FN(int, Finalize, (void))
CLUMP_MPI_FN(int, Finalized, (int *flag))
CLUMP_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode))
CLUMP_MPI_FN(double, Wtime, (void))
CLUMP_MPI_FN(double, Wtick, (void))
CLUMP_MPI_FN(int, Get_processor_name, (char *name, int *resultlen))
CLUMP_MPI_FN(int, Get_version, (int *version, int *subversion))
CLUMP_MPI_FN(int, Get_library_version, (char *version, int *resultlen))
CLUMP_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
CLUMP_MPI_FN(int, Free_mem, (void *base))
CLUMP_MPI_FN(int, Query_thread, (int *provided))
CLUMP_MPI_FN(int, Is_thread_main, (int *flag))

/* Point to point */
CLUMP_MPI_FN(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CLUMP_MPI_FN(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CLUMP_MPI_FN(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CLUMP_MPI_FN(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CLUMP_MPI_FN(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
CLUMP_MPI_FN(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
CLUMP_MPI_FN(int, Start, (MPI_Request *request))
CLUMP_MPI_FN(int, Startall, (int count, MPI_Request array_of_requests[]))
CLUMP_MPI_FN(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
CLUMP_MPI_FN(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
CLUMP_MPI_FN(int, Buffer_attach, (void *buffer, int size))
CLUMP_MPI_FN(int, Buffer_detach, (void *buffer_addr, int *size))
CLUMP_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
CLUMP_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
CLUMP_MPI_FN(int, Cancel, (MPI_Request *request))
CLUMP_MPI_FN(int, Test_cancelled, (const MPI_Status *status, int *flag))
CLUMP_MPI_FN(int, Request_free, (MPI_Request *request))
CLUMP_MPI_FN(int, Wait, (MPI_Request *request, MPI_Status *status))
CLUMP_MPI_FN(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
CLUMP_MPI_FN(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))
CLUMP_MPI_FN(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status))
CLUMP_MPI_FN(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))
CLUMP_MPI_FN(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]))
CLUMP_MPI_FN(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
CLUMP_MPI_FN(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
CLUMP_MPI_FN(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
CLUMP_MPI_FN(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))

/* Communicators and groups */
CLUMP_MPI_FN(int, Comm_size, (MPI_Comm comm, int *size))
CLUMP_MPI_FN(int, Comm_rank, (MPI_Comm comm, int *rank))
CLUMP_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
CLUMP_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
CLUMP_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
CLUMP_MPI_FN(int, Comm_free, (MPI_Comm *comm))
CLUMP_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
CLUMP_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
CLUMP_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
CLUMP_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
CLUMP_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
CLUMP_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
CLUMP_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
CLUMP_MPI_FN(int, Errhandler_free, (MPI_Errhandler *errhandler))
CLUMP_MPI_FN(int, Error_class, (int errorcode, int *errorclass))
CLUMP_MPI_FN(int, Error_string, (int errorcode, char *string, int *resultlen))
CLUMP_MPI_FN(int, Group_size, (MPI_Group group, int *size))
CLUMP_MPI_FN(int, Group_rank, (MPI_Group group, int *rank))
CLUMP_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
CLUMP_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
CLUMP_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
CLUMP_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
CLUMP_MPI_FN(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
CLUMP_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
CLUMP_MPI_FN(int, Group_free, (MPI_Group *group))

/* Datatypes */
CLUMP_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
CLUMP_MPI_FN(int, Type_commit, (MPI_Datatype *datatype))
CLUMP_MPI_FN(int, Type_free, (MPI_Datatype *datatype))
CLUMP_MPI_FN(int, Type_size, (MPI_Datatype datatype, int *size))
CLUMP_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
CLUMP_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
CLUMP_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
CLUMP_MPI_FN(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
CLUMP_MPI_FN(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
CLUMP_MPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
CLUMP_MPI_FN(int, Get_address, (const void *location, MPI_Aint *address))

/* Collectives and operations */
CLUMP_MPI_FN(int, Barrier, (MPI_Comm comm))
CLUMP_MPI_FN(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
CLUMP_MPI_FN(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
CLUMP_MPI_FN(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CLUMP_MPI_FN(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
CLUMP_MPI_FN(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
CLUMP_MPI_FN(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
CLUMP_MPI_FN(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
CLUMP_MPI_FN(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
CLUMP_MPI_FN(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
CLUMP_MPI_FN(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
CLUMP_MPI_FN(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
CLUMP_MPI_FN(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CLUMP_MPI_FN(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CLUMP_MPI_FN(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CLUMP_MPI_FN(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CLUMP_MPI_FN(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
CLUMP_MPI_FN(int, Op_free, (MPI_Op *op))

/* Not implemented by clump: present so programs that name them link; each returns
 * MPI_ERR_UNSUPPORTED_OPERATION (through the communicator's error handler). */
CLUMP_MPI_FN(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
CLUMP_MPI_FN(int, Win_free, (MPI_Win *win))
CLUMP_MPI_FN(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
CLUMP_MPI_FN(int, File_close, (MPI_File *fh))
CLUMP_MPI_FN(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))

#undef CLUMP_MPI_FN

#ifdef __cplusplus
}
#endif

#endif /* CLUMP_MPI_H */
