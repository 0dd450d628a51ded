/* shmem.h: OpenSHMEM 1.5 for clump (libclump).
 *
 * Every processing element (PE) is a process of a job started by `clump run` (or `oshrun`);
 * a process started on its own is a job of one PE. Symmetric objects are the blocks of
 * the symmetric heap (shmem_malloc and friends) and the program's global and static
 * variables. Bad use (an address that is not symmetric, a PE out of range, a call before
 * shmem_init) prints what went wrong and ends the job. The state belongs to the thread
 * that called shmem_init, unless shmem_init_thread granted SHMEM_THREAD_SERIALIZED or
 * SHMEM_THREAD_MULTIPLE: then every thread calls, one call at a time.
 */
#ifndef CLUMP_SHMEM_H
#define CLUMP_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "clump"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* pSync and pWrk of the active-set collectives: checked, but clump needs no scratch in
 * them, so the sizes are small. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 4
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
/* The other deprecated spellings OpenSHMEM 1.5 still lists. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

typedef struct clump_shmem_ctx *shmem_ctx_t;
typedef struct clump_shmem_team *shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;

#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
extern shmem_ctx_t SHMEM_CTX_DEFAULT;
extern shmem_team_t SHMEM_TEAM_WORLD;
extern shmem_team_t SHMEM_TEAM_SHARED;

/* Setup, exit and queries. */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe); /* OpenSHMEM 1.6 */
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* The symmetric heap: collective calls. */
void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);

/* Teams. */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_sync(shmem_team_t team);
/* shmem_sync(team) is shmem_team_sync; the deprecated shmem_sync(PE_start, logPE_stride,
 * PE_size, pSync) synchronises an active set. The macro picks by the number of arguments. */
void shmem_sync_deprecated(int PE_start, int logPE_stride, int PE_size, long *pSync);
int (shmem_sync)(shmem_team_t team);
#define CLUMP_SHMEM_SYNC_PICK(a, b, c, d, f, ...) f
#define shmem_sync(...) \
    CLUMP_SHMEM_SYNC_PICK(__VA_ARGS__, shmem_sync_deprecated, 0, 0, shmem_team_sync, 0)(__VA_ARGS__)

/* Contexts. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* The standard RMA types: X(name, C type). */
#define CLUMP_SHMEM_RMA_TYPES(X) \
    X(float, float) X(double, double) X(char, char) X(schar, signed char) \
    X(short, short) X(int, int) X(long, long) X(longlong, long long) \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) \
    X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) \
    X(ptrdiff, ptrdiff_t)

/* Put, get and their forms for elements of type T under the names shmem_[ctx_]N... */
#define CLUMP_SHMEM_BULK(N, T) \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe); \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe); \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe); \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe); \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

#define CLUMP_SHMEM_SINGLE(N, T) \
    CLUMP_SHMEM_BULK(N, T) \
    void shmem_##N##_p(T *dest, T value, int pe); \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe); \
    T shmem_##N##_g(const T *source, int pe); \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);

CLUMP_SHMEM_RMA_TYPES(CLUMP_SHMEM_SINGLE)
CLUMP_SHMEM_BULK(longdouble, long double)
/* long double by value is passed in x87 registers, which the library's Rust side cannot
 * take: p and g are put and get of one element. */
static inline void shmem_ctx_longdouble_p(shmem_ctx_t ctx, long double *dest, long double value, int pe) {
    shmem_ctx_longdouble_put(ctx, dest, &value, 1, pe);
}
static inline void shmem_longdouble_p(long double *dest, long double value, int pe) {
    shmem_longdouble_put(dest, &value, 1, pe);
}
static inline long double shmem_ctx_longdouble_g(shmem_ctx_t ctx, const long double *source, int pe) {
    long double v;
    shmem_ctx_longdouble_get(ctx, &v, source, 1, pe);
    return v;
}
static inline long double shmem_longdouble_g(const long double *source, int pe) {
    long double v;
    shmem_longdouble_get(&v, source, 1, pe);
    return v;
}

/* By size: shmem_put8..128 (nelems of 1..16 bytes) and shmem_putmem (bytes). */
#define CLUMP_SHMEM_SIZED(S) \
    void shmem_put##S(void *dest, const void *source, size_t nelems, int pe); \
    void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_get##S(void *dest, const void *source, size_t nelems, int pe); \
    void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_put##S##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define CLUMP_SHMEM_STRIDED(S) \
    void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
CLUMP_SHMEM_SIZED(mem)
CLUMP_SHMEM_SIZED(8) CLUMP_SHMEM_SIZED(16) CLUMP_SHMEM_SIZED(32) CLUMP_SHMEM_SIZED(64) CLUMP_SHMEM_SIZED(128)
CLUMP_SHMEM_STRIDED(8) CLUMP_SHMEM_STRIDED(16) CLUMP_SHMEM_STRIDED(32) CLUMP_SHMEM_STRIDED(64) CLUMP_SHMEM_STRIDED(128)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Ordering and the world barrier. */
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_barrier_all(void);
void shmem_sync_all(void);

/* Atomics: X(name, C type). */
#define CLUMP_SHMEM_AMO_FN(N, T, OP, RET, ...) \
    RET shmem_##N##_atomic_##OP(T *dest, __VA_ARGS__ int pe); \
    RET shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, __VA_ARGS__ int pe);
#define CLUMP_SHMEM_AMO_NBI(N, T, OP, ...) \
    void shmem_##N##_atomic_##OP##_nbi(T *fetch, T *dest, __VA_ARGS__ int pe); \
    void shmem_ctx_##N##_atomic_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, __VA_ARGS__ int pe);
#define CLUMP_SHMEM_AMO_EXTENDED(N, T) \
    T shmem_##N##_atomic_fetch(const T *source, int pe); \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe); \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe); \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
    CLUMP_SHMEM_AMO_FN(N, T, set, void, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, swap, T, T value,) \
    CLUMP_SHMEM_AMO_NBI(N, T, swap, T value,)
#define CLUMP_SHMEM_AMO_STANDARD(N, T) \
    CLUMP_SHMEM_AMO_FN(N, T, compare_swap, T, T cond, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, fetch_inc, T, ) \
    CLUMP_SHMEM_AMO_FN(N, T, inc, void, ) \
    CLUMP_SHMEM_AMO_FN(N, T, fetch_add, T, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, add, void, T value,) \
    CLUMP_SHMEM_AMO_NBI(N, T, compare_swap, T cond, T value,) \
    CLUMP_SHMEM_AMO_NBI(N, T, fetch_inc, ) \
    CLUMP_SHMEM_AMO_NBI(N, T, fetch_add, T value,)
#define CLUMP_SHMEM_AMO_BITWISE(N, T) \
    CLUMP_SHMEM_AMO_FN(N, T, fetch_and, T, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, and, void, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, fetch_or, T, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, or, void, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, fetch_xor, T, T value,) \
    CLUMP_SHMEM_AMO_FN(N, T, xor, void, T value,) \
    CLUMP_SHMEM_AMO_NBI(N, T, fetch_and, T value,) \
    CLUMP_SHMEM_AMO_NBI(N, T, fetch_or, T value,) \
    CLUMP_SHMEM_AMO_NBI(N, T, fetch_xor, T value,)
#define CLUMP_SHMEM_AMO_TYPES(X) \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int32, int32_t) \
    X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) \
    X(ptrdiff, ptrdiff_t)
CLUMP_SHMEM_AMO_TYPES(CLUMP_SHMEM_AMO_EXTENDED)
CLUMP_SHMEM_AMO_EXTENDED(float, float)
CLUMP_SHMEM_AMO_EXTENDED(double, double)
CLUMP_SHMEM_AMO_TYPES(CLUMP_SHMEM_AMO_STANDARD)
CLUMP_SHMEM_AMO_BITWISE(uint, unsigned int)
CLUMP_SHMEM_AMO_BITWISE(ulong, unsigned long)
CLUMP_SHMEM_AMO_BITWISE(ulonglong, unsigned long long)
CLUMP_SHMEM_AMO_BITWISE(int32, int32_t)
CLUMP_SHMEM_AMO_BITWISE(int64, int64_t)
CLUMP_SHMEM_AMO_BITWISE(uint32, uint32_t)
CLUMP_SHMEM_AMO_BITWISE(uint64, uint64_t)

/* The atomic names before OpenSHMEM 1.4. */
#define CLUMP_SHMEM_AMO_OLD(N, T) \
    T shmem_##N##_fadd(T *dest, T value, int pe); \
    T shmem_##N##_finc(T *dest, int pe); \
    void shmem_##N##_add(T *dest, T value, int pe); \
    void shmem_##N##_inc(T *dest, int pe); \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe); \
    void shmem_##N##_wait(T *ivar, T cmp_value);
CLUMP_SHMEM_AMO_OLD(int, int)
CLUMP_SHMEM_AMO_OLD(long, long)
CLUMP_SHMEM_AMO_OLD(longlong, long long)
#define CLUMP_SHMEM_AMO_OLD_EXTENDED(N, T) \
    T shmem_##N##_swap(T *dest, T value, int pe); \
    T shmem_##N##_fetch(const T *source, int pe); \
    void shmem_##N##_set(T *dest, T value, int pe);
CLUMP_SHMEM_AMO_OLD_EXTENDED(int, int)
CLUMP_SHMEM_AMO_OLD_EXTENDED(long, long)
CLUMP_SHMEM_AMO_OLD_EXTENDED(longlong, long long)
CLUMP_SHMEM_AMO_OLD_EXTENDED(float, float)
CLUMP_SHMEM_AMO_OLD_EXTENDED(double, double)
void shmem_short_wait(short *ivar, short cmp_value);
/* The untyped deprecated waits on a long. Under C11 the generic names below take these
 * spellings, and (shmem_wait_until)(...) reaches the function. */
void (shmem_wait_until)(long *ivar, int cmp, long cmp_value);
void (shmem_wait)(long *ivar, long cmp_value);

/* Point-to-point synchronisation on this PE's symmetric variables. */
#define CLUMP_SHMEM_P2P(N, T) \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value); \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values); \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value); \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);
CLUMP_SHMEM_AMO_TYPES(CLUMP_SHMEM_P2P)
/* Deprecated in OpenSHMEM 1.4 and still specified. */
CLUMP_SHMEM_P2P(short, short)
CLUMP_SHMEM_P2P(ushort, unsigned short)

/* Locks on a symmetric long, initially 0. */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* Team collectives by bytes. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

/* Reductions on teams: shmem_N_OP_reduce. */
#define CLUMP_SHMEM_REDUCE(N, T, OP) \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define CLUMP_SHMEM_REDUCE_BITS(N, T) \
    CLUMP_SHMEM_REDUCE(N, T, and) CLUMP_SHMEM_REDUCE(N, T, or) CLUMP_SHMEM_REDUCE(N, T, xor)
#define CLUMP_SHMEM_REDUCE_ARITH(N, T) \
    CLUMP_SHMEM_REDUCE(N, T, max) CLUMP_SHMEM_REDUCE(N, T, min) \
    CLUMP_SHMEM_REDUCE(N, T, sum) CLUMP_SHMEM_REDUCE(N, T, prod)
#define CLUMP_SHMEM_BITS_TYPES(X) \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) \
    X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
CLUMP_SHMEM_BITS_TYPES(CLUMP_SHMEM_REDUCE_BITS)
CLUMP_SHMEM_BITS_TYPES(CLUMP_SHMEM_REDUCE_ARITH)
CLUMP_SHMEM_REDUCE_ARITH(char, char)
CLUMP_SHMEM_REDUCE_ARITH(schar, signed char)
CLUMP_SHMEM_REDUCE_ARITH(short, short)
CLUMP_SHMEM_REDUCE_ARITH(int, int)
CLUMP_SHMEM_REDUCE_ARITH(long, long)
CLUMP_SHMEM_REDUCE_ARITH(longlong, long long)
CLUMP_SHMEM_REDUCE_ARITH(ptrdiff, ptrdiff_t)
CLUMP_SHMEM_REDUCE_ARITH(float, float)
CLUMP_SHMEM_REDUCE_ARITH(double, double)
CLUMP_SHMEM_REDUCE_ARITH(longdouble, long double)
CLUMP_SHMEM_REDUCE(complexd, double _Complex, sum) CLUMP_SHMEM_REDUCE(complexd, double _Complex, prod)
CLUMP_SHMEM_REDUCE(complexf, float _Complex, sum) CLUMP_SHMEM_REDUCE(complexf, float _Complex, prod)

/* Active-set collectives (before teams): PE_size PEs from PE_start every 2^logPE_stride. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define CLUMP_SHMEM_ACTIVE_SET(S) \
    void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
CLUMP_SHMEM_ACTIVE_SET(32)
CLUMP_SHMEM_ACTIVE_SET(64)
#define CLUMP_SHMEM_TO_ALL(N, T, OP) \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define CLUMP_SHMEM_TO_ALL_BITS(N, T) \
    CLUMP_SHMEM_TO_ALL(N, T, and) CLUMP_SHMEM_TO_ALL(N, T, or) CLUMP_SHMEM_TO_ALL(N, T, xor)
#define CLUMP_SHMEM_TO_ALL_ARITH(N, T) \
    CLUMP_SHMEM_TO_ALL(N, T, max) CLUMP_SHMEM_TO_ALL(N, T, min) \
    CLUMP_SHMEM_TO_ALL(N, T, sum) CLUMP_SHMEM_TO_ALL(N, T, prod)
CLUMP_SHMEM_TO_ALL_BITS(short, short)
CLUMP_SHMEM_TO_ALL_BITS(int, int)
CLUMP_SHMEM_TO_ALL_BITS(long, long)
CLUMP_SHMEM_TO_ALL_BITS(longlong, long long)
CLUMP_SHMEM_TO_ALL_ARITH(short, short)
CLUMP_SHMEM_TO_ALL_ARITH(int, int)
CLUMP_SHMEM_TO_ALL_ARITH(long, long)
CLUMP_SHMEM_TO_ALL_ARITH(longlong, long long)
CLUMP_SHMEM_TO_ALL_ARITH(float, float)
CLUMP_SHMEM_TO_ALL_ARITH(double, double)
CLUMP_SHMEM_TO_ALL_ARITH(longdouble, long double)
CLUMP_SHMEM_TO_ALL(complexd, double _Complex, sum) CLUMP_SHMEM_TO_ALL(complexd, double _Complex, prod)
CLUMP_SHMEM_TO_ALL(complexf, float _Complex, sum) CLUMP_SHMEM_TO_ALL(complexf, float _Complex, prod)

/* The profiling interface: libclump has no profiling of its own, so the level is for a
 * tool that wraps this call. pshmem.h declares the pshmem_ name of every call. */
void shmem_pcontrol(const int level, ...);

/* Deprecated names from before OpenSHMEM 1.2, which 1.5 still lists. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);
void shmem_set_cache_inv(void);
void shmem_set_cache_line_inv(void *dest);
void shmem_clear_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

/* C11 generic names (OpenSHMEM 1.5): shmem_put(dest, ...) or shmem_put(ctx, dest, ...)
 * selects shmem_[ctx_]TYPE_put by the type of dest; team collectives select by dest after
 * the team. A type the standard has no typed function for fails to compile with "too many
 * arguments to function 'clump_shmem_generic_no_such_type'". */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
void clump_shmem_generic_no_such_type(void);
#define CLUMP_C11_A0(a, ...) a
#define CLUMP_C11_A1(a, b, ...) b
/* Type lists X(name, C type, prefix, operation), one association each. */
#define CLUMP_C11_RMA(X, P, OP) \
    X(float, float, P, OP) X(double, double, P, OP) X(longdouble, long double, P, OP) \
    X(char, char, P, OP) X(schar, signed char, P, OP) X(short, short, P, OP) X(int, int, P, OP) \
    X(long, long, P, OP) X(longlong, long long, P, OP) X(uchar, unsigned char, P, OP) \
    X(ushort, unsigned short, P, OP) X(uint, unsigned int, P, OP) X(ulong, unsigned long, P, OP) \
    X(ulonglong, unsigned long long, P, OP)
#define CLUMP_C11_AMO(X, P, OP) \
    X(int, int, P, OP) X(long, long, P, OP) X(longlong, long long, P, OP) \
    X(uint, unsigned int, P, OP) X(ulong, unsigned long, P, OP) X(ulonglong, unsigned long long, P, OP)
#define CLUMP_C11_AMO_EXTENDED(X, P, OP) CLUMP_C11_AMO(X, P, OP) X(float, float, P, OP) X(double, double, P, OP)
#define CLUMP_C11_AMO_BITWISE(X, P, OP) \
    X(uint, unsigned int, P, OP) X(ulong, unsigned long, P, OP) X(ulonglong, unsigned long long, P, OP) \
    X(int32, int, P, OP) X(int64, long, P, OP)
/* The sized types that are other C types' twins (uint8_t is unsigned char) are reached
 * through those; int8_t..int64_t are the signed types of their size. */
#define CLUMP_C11_REDUCE_BITS(X, P, OP) \
    X(uchar, unsigned char, P, OP) X(ushort, unsigned short, P, OP) X(uint, unsigned int, P, OP) \
    X(ulong, unsigned long, P, OP) X(ulonglong, unsigned long long, P, OP) \
    X(int8, int8_t, P, OP) X(int16, int16_t, P, OP) X(int32, int32_t, P, OP) X(int64, int64_t, P, OP)
/* The point-to-point types, with the deprecated short ones. */
#define CLUMP_C11_P2P(X, P, OP) \
    CLUMP_C11_AMO(X, P, OP) X(short, short, P, OP) X(ushort, unsigned short, P, OP)
#define CLUMP_C11_REDUCE_ORDER(X, P, OP) CLUMP_C11_RMA(X, P, OP)
#define CLUMP_C11_REDUCE_ARITH(X, P, OP) \
    CLUMP_C11_RMA(X, P, OP) X(complexd, double _Complex, P, OP) X(complexf, float _Complex, P, OP)
#define CLUMP_C11_ASSOC(N, T, P, OP) T *: P##_##N##_##OP,
#define CLUMP_C11_ASSOC_CONST(N, T, P, OP) T *: P##_##N##_##OP, const T *: P##_##N##_##OP,
/* The function for OP of LIST's type of x. */
#define CLUMP_C11_BY(LIST, X, P, OP, x) \
    _Generic((x), LIST(X, P, OP) default: clump_shmem_generic_no_such_type)
/* Called with or without a context first. PRE is the routines' prefix: shmem here,
 * pshmem in pshmem.h. */
#define CLUMP_C11_CTX(LIST, X, PRE, OP, ...) \
    _Generic((CLUMP_C11_A0(__VA_ARGS__, 0)), \
        shmem_ctx_t: CLUMP_C11_BY(LIST, X, PRE##_ctx, OP, CLUMP_C11_A1(__VA_ARGS__, 0)), \
        default: CLUMP_C11_BY(LIST, X, PRE, OP, CLUMP_C11_A0(__VA_ARGS__, 0)))(__VA_ARGS__)
#define CLUMP_C11_PLAIN(LIST, PRE, OP, ...) \
    CLUMP_C11_BY(LIST, CLUMP_C11_ASSOC, PRE, OP, CLUMP_C11_A0(__VA_ARGS__, 0))(__VA_ARGS__)
#define CLUMP_C11_TEAM(LIST, PRE, OP, ...) \
    CLUMP_C11_BY(LIST, CLUMP_C11_ASSOC, PRE, OP, CLUMP_C11_A1(__VA_ARGS__, 0))(__VA_ARGS__)

#define shmem_put(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, put, __VA_ARGS__)
#define shmem_get(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, get, __VA_ARGS__)
#define shmem_put_nbi(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, get_nbi, __VA_ARGS__)
#define shmem_p(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, p, __VA_ARGS__)
#define shmem_g(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC_CONST, shmem, g, __VA_ARGS__)
#define shmem_iput(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, iput, __VA_ARGS__)
#define shmem_iget(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, iget, __VA_ARGS__)
#define shmem_put_signal(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, shmem, put_signal_nbi, __VA_ARGS__)

#define shmem_atomic_fetch(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC_CONST, shmem, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, shmem, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, shmem, atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_xor, __VA_ARGS__)
/* The non-blocking fetching atomics select by the fetch buffer, the first after a context. */
#define shmem_atomic_fetch_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, shmem, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, shmem, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, shmem, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, shmem, atomic_fetch_xor_nbi, __VA_ARGS__)
/* The deprecated names of the atomics (before 1.4), for the types they had. */
#define CLUMP_C11_AMO_OLD(X, P, OP) X(int, int, P, OP) X(long, long, P, OP) X(longlong, long long, P, OP)
#define CLUMP_C11_AMO_OLD_EXTENDED(X, P, OP) CLUMP_C11_AMO_OLD(X, P, OP) X(float, float, P, OP) X(double, double, P, OP)
#define shmem_add(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, shmem, add, __VA_ARGS__)
#define shmem_inc(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, shmem, inc, __VA_ARGS__)
#define shmem_fadd(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, shmem, fadd, __VA_ARGS__)
#define shmem_finc(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, shmem, finc, __VA_ARGS__)
#define shmem_cswap(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, shmem, cswap, __VA_ARGS__)
#define shmem_swap(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD_EXTENDED, shmem, swap, __VA_ARGS__)
#define shmem_set(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD_EXTENDED, shmem, set, __VA_ARGS__)
#define shmem_fetch(...) CLUMP_C11_BY(CLUMP_C11_AMO_OLD_EXTENDED, CLUMP_C11_ASSOC_CONST, shmem, fetch, CLUMP_C11_A0(__VA_ARGS__, 0))(__VA_ARGS__)

#define shmem_wait_until(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, wait_until_some_vector, __VA_ARGS__)
/* The deprecated wait of OpenSHMEM 1.3, for the types it had. */
#define CLUMP_C11_WAIT_OLD(X, P, OP) \
    X(short, short, P, OP) X(int, int, P, OP) X(long, long, P, OP) X(longlong, long long, P, OP)
#define shmem_wait(...) CLUMP_C11_PLAIN(CLUMP_C11_WAIT_OLD, shmem, wait, __VA_ARGS__)
#define shmem_test(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test, __VA_ARGS__)
#define shmem_test_all(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test_all, __VA_ARGS__)
#define shmem_test_any(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test_any, __VA_ARGS__)
#define shmem_test_some(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, shmem, test_some_vector, __VA_ARGS__)

#define shmem_broadcast(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, shmem, broadcast, __VA_ARGS__)
#define shmem_collect(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, shmem, collect, __VA_ARGS__)
#define shmem_fcollect(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, shmem, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, shmem, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, shmem, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_BITS, shmem, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_BITS, shmem, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_BITS, shmem, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ORDER, shmem, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ORDER, shmem, min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ARITH, shmem, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ARITH, shmem, prod_reduce, __VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif
