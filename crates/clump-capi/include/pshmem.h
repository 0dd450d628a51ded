/* pshmem.h: the OpenSHMEM profiling interface for clump (libclump), generated from
 * shmem.h by scripts/pshmem-h; do not edit. Every shmem_ routine of shmem.h is also
 * pshmem_, the same implementation: a tool that defines shmem_X in the program calls
 * pshmem_X to reach libclump's; the C11 generic names are pshmem_ too (pshmem_put, ...),
 * selecting the pshmem_ typed routines. */
#ifndef CLUMP_PSHMEM_H
#define CLUMP_PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Setup, exit and queries. */
void pshmem_init(void);
int pshmem_init_thread(int requested, int *provided);
void pshmem_query_thread(int *provided);
void pshmem_finalize(void);
void pshmem_global_exit(int status);
int pshmem_my_pe(void);
int pshmem_n_pes(void);
int pshmem_pe_accessible(int pe);
int pshmem_addr_accessible(const void *addr, int pe);
void *pshmem_ptr(const void *dest, int pe);
void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe); /* OpenSHMEM 1.6 */
void pshmem_info_get_version(int *major, int *minor);
void pshmem_info_get_name(char *name);

/* The symmetric heap: collective calls. */
void *pshmem_malloc(size_t size);
void *pshmem_malloc_with_hints(size_t size, long hints);
void *pshmem_calloc(size_t count, size_t size);
void *pshmem_align(size_t alignment, size_t size);
void *pshmem_realloc(void *ptr, size_t size);
void pshmem_free(void *ptr);

/* Teams. */
int pshmem_team_my_pe(shmem_team_t team);
int pshmem_team_n_pes(shmem_team_t team);
int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void pshmem_team_destroy(shmem_team_t team);
int pshmem_team_sync(shmem_team_t team);
/* pshmem_sync(team) is pshmem_team_sync; the deprecated pshmem_sync(PE_start, logPE_stride,
 * PE_size, pSync) synchronises an active set. The macro picks by the number of arguments. */
void pshmem_sync_deprecated(int PE_start, int logPE_stride, int PE_size, long *pSync);
int (pshmem_sync)(shmem_team_t team);
#define CLUMP_PSHMEM_SYNC_PICK(a, b, c, d, f, ...) f
#define pshmem_sync(...) \
    CLUMP_PSHMEM_SYNC_PICK(__VA_ARGS__, pshmem_sync_deprecated, 0, 0, pshmem_team_sync, 0)(__VA_ARGS__)

/* Contexts. */
int pshmem_ctx_create(long options, shmem_ctx_t *ctx);
int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void pshmem_ctx_destroy(shmem_ctx_t ctx);
int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* The standard RMA types: X(name, C type). */
#define CLUMP_PSHMEM_RMA_TYPES(X) \
    X(float, float) X(double, double) X(char, char) X(schar, signed char) \
    X(short, short) X(int, int) X(long, long) X(longlong, long long) \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) \
    X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) \
    X(ptrdiff, ptrdiff_t)

/* Put, get and their forms for elements of type T under the names pshmem_[ctx_]N... */
#define CLUMP_PSHMEM_BULK(N, T) \
    void pshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void pshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    int pshmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
    int pshmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int pshmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int pshmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int pshmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

#define CLUMP_PSHMEM_SINGLE(N, T) \
    CLUMP_PSHMEM_BULK(N, T) \
    void pshmem_##N##_p(T *dest, T value, int pe); \
    void pshmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe); \
    T pshmem_##N##_g(const T *source, int pe); \
    T pshmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);

CLUMP_PSHMEM_RMA_TYPES(CLUMP_PSHMEM_SINGLE)
CLUMP_PSHMEM_BULK(longdouble, long double)
/* long double by value is passed in x87 registers, which the library's Rust side cannot
 * take: p and g are put and get of one element. */
static inline void pshmem_ctx_longdouble_p(shmem_ctx_t ctx, long double *dest, long double value, int pe) {
    pshmem_ctx_longdouble_put(ctx, dest, &value, 1, pe);
}
static inline void pshmem_longdouble_p(long double *dest, long double value, int pe) {
    pshmem_longdouble_put(dest, &value, 1, pe);
}
static inline long double pshmem_ctx_longdouble_g(shmem_ctx_t ctx, const long double *source, int pe) {
    long double v;
    pshmem_ctx_longdouble_get(ctx, &v, source, 1, pe);
    return v;
}
static inline long double pshmem_longdouble_g(const long double *source, int pe) {
    long double v;
    pshmem_longdouble_get(&v, source, 1, pe);
    return v;
}

/* By size: pshmem_put8..128 (nelems of 1..16 bytes) and pshmem_putmem (bytes). */
#define CLUMP_PSHMEM_SIZED(S) \
    void pshmem_put##S(void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_get##S(void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void pshmem_put##S##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define CLUMP_PSHMEM_STRIDED(S) \
    void pshmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void pshmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
CLUMP_PSHMEM_SIZED(mem)
CLUMP_PSHMEM_SIZED(8) CLUMP_PSHMEM_SIZED(16) CLUMP_PSHMEM_SIZED(32) CLUMP_PSHMEM_SIZED(64) CLUMP_PSHMEM_SIZED(128)
CLUMP_PSHMEM_STRIDED(8) CLUMP_PSHMEM_STRIDED(16) CLUMP_PSHMEM_STRIDED(32) CLUMP_PSHMEM_STRIDED(64) CLUMP_PSHMEM_STRIDED(128)

uint64_t pshmem_signal_fetch(const uint64_t *sig_addr);
uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Ordering and the world barrier. */
void pshmem_quiet(void);
void pshmem_ctx_quiet(shmem_ctx_t ctx);
void pshmem_fence(void);
void pshmem_ctx_fence(shmem_ctx_t ctx);
void pshmem_barrier_all(void);
void pshmem_sync_all(void);

/* Atomics: X(name, C type). */
#define CLUMP_PSHMEM_AMO_FN(N, T, OP, RET, ...) \
    RET pshmem_##N##_atomic_##OP(T *dest, __VA_ARGS__ int pe); \
    RET pshmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, __VA_ARGS__ int pe);
#define CLUMP_PSHMEM_AMO_NBI(N, T, OP, ...) \
    void pshmem_##N##_atomic_##OP##_nbi(T *fetch, T *dest, __VA_ARGS__ int pe); \
    void pshmem_ctx_##N##_atomic_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, __VA_ARGS__ int pe);
#define CLUMP_PSHMEM_AMO_EXTENDED(N, T) \
    T pshmem_##N##_atomic_fetch(const T *source, int pe); \
    T pshmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe); \
    void pshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe); \
    void pshmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
    CLUMP_PSHMEM_AMO_FN(N, T, set, void, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, swap, T, T value,) \
    CLUMP_PSHMEM_AMO_NBI(N, T, swap, T value,)
#define CLUMP_PSHMEM_AMO_STANDARD(N, T) \
    CLUMP_PSHMEM_AMO_FN(N, T, compare_swap, T, T cond, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, fetch_inc, T, ) \
    CLUMP_PSHMEM_AMO_FN(N, T, inc, void, ) \
    CLUMP_PSHMEM_AMO_FN(N, T, fetch_add, T, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, add, void, T value,) \
    CLUMP_PSHMEM_AMO_NBI(N, T, compare_swap, T cond, T value,) \
    CLUMP_PSHMEM_AMO_NBI(N, T, fetch_inc, ) \
    CLUMP_PSHMEM_AMO_NBI(N, T, fetch_add, T value,)
#define CLUMP_PSHMEM_AMO_BITWISE(N, T) \
    CLUMP_PSHMEM_AMO_FN(N, T, fetch_and, T, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, and, void, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, fetch_or, T, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, or, void, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, fetch_xor, T, T value,) \
    CLUMP_PSHMEM_AMO_FN(N, T, xor, void, T value,) \
    CLUMP_PSHMEM_AMO_NBI(N, T, fetch_and, T value,) \
    CLUMP_PSHMEM_AMO_NBI(N, T, fetch_or, T value,) \
    CLUMP_PSHMEM_AMO_NBI(N, T, fetch_xor, T value,)
#define CLUMP_PSHMEM_AMO_TYPES(X) \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int32, int32_t) \
    X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) \
    X(ptrdiff, ptrdiff_t)
CLUMP_PSHMEM_AMO_TYPES(CLUMP_PSHMEM_AMO_EXTENDED)
CLUMP_PSHMEM_AMO_EXTENDED(float, float)
CLUMP_PSHMEM_AMO_EXTENDED(double, double)
CLUMP_PSHMEM_AMO_TYPES(CLUMP_PSHMEM_AMO_STANDARD)
CLUMP_PSHMEM_AMO_BITWISE(uint, unsigned int)
CLUMP_PSHMEM_AMO_BITWISE(ulong, unsigned long)
CLUMP_PSHMEM_AMO_BITWISE(ulonglong, unsigned long long)
CLUMP_PSHMEM_AMO_BITWISE(int32, int32_t)
CLUMP_PSHMEM_AMO_BITWISE(int64, int64_t)
CLUMP_PSHMEM_AMO_BITWISE(uint32, uint32_t)
CLUMP_PSHMEM_AMO_BITWISE(uint64, uint64_t)

/* The atomic names before OpenSHMEM 1.4. */
#define CLUMP_PSHMEM_AMO_OLD(N, T) \
    T pshmem_##N##_fadd(T *dest, T value, int pe); \
    T pshmem_##N##_finc(T *dest, int pe); \
    void pshmem_##N##_add(T *dest, T value, int pe); \
    void pshmem_##N##_inc(T *dest, int pe); \
    T pshmem_##N##_cswap(T *dest, T cond, T value, int pe); \
    void pshmem_##N##_wait(T *ivar, T cmp_value);
CLUMP_PSHMEM_AMO_OLD(int, int)
CLUMP_PSHMEM_AMO_OLD(long, long)
CLUMP_PSHMEM_AMO_OLD(longlong, long long)
#define CLUMP_PSHMEM_AMO_OLD_EXTENDED(N, T) \
    T pshmem_##N##_swap(T *dest, T value, int pe); \
    T pshmem_##N##_fetch(const T *source, int pe); \
    void pshmem_##N##_set(T *dest, T value, int pe);
CLUMP_PSHMEM_AMO_OLD_EXTENDED(int, int)
CLUMP_PSHMEM_AMO_OLD_EXTENDED(long, long)
CLUMP_PSHMEM_AMO_OLD_EXTENDED(longlong, long long)
CLUMP_PSHMEM_AMO_OLD_EXTENDED(float, float)
CLUMP_PSHMEM_AMO_OLD_EXTENDED(double, double)
void pshmem_short_wait(short *ivar, short cmp_value);
/* The untyped deprecated waits on a long. Under C11 the generic names below take these
 * spellings, and (pshmem_wait_until)(...) reaches the function. */
void (pshmem_wait_until)(long *ivar, int cmp, long cmp_value);
void (pshmem_wait)(long *ivar, long cmp_value);

/* Point-to-point synchronisation on this PE's symmetric variables. */
#define CLUMP_PSHMEM_P2P(N, T) \
    void pshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value); \
    void pshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t pshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t pshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    void pshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t pshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t pshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values); \
    int pshmem_##N##_test(T *ivar, int cmp, T cmp_value); \
    int pshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t pshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t pshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    int pshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t pshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    size_t pshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);
CLUMP_PSHMEM_AMO_TYPES(CLUMP_PSHMEM_P2P)
/* Deprecated in OpenSHMEM 1.4 and still specified. */
CLUMP_PSHMEM_P2P(short, short)
CLUMP_PSHMEM_P2P(ushort, unsigned short)

/* Locks on a symmetric long, initially 0. */
void pshmem_set_lock(long *lock);
void pshmem_clear_lock(long *lock);
int pshmem_test_lock(long *lock);

/* Team collectives by bytes. */
int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

/* Reductions on teams: pshmem_N_OP_reduce. */
#define CLUMP_PSHMEM_REDUCE(N, T, OP) \
    int pshmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define CLUMP_PSHMEM_REDUCE_BITS(N, T) \
    CLUMP_PSHMEM_REDUCE(N, T, and) CLUMP_PSHMEM_REDUCE(N, T, or) CLUMP_PSHMEM_REDUCE(N, T, xor)
#define CLUMP_PSHMEM_REDUCE_ARITH(N, T) \
    CLUMP_PSHMEM_REDUCE(N, T, max) CLUMP_PSHMEM_REDUCE(N, T, min) \
    CLUMP_PSHMEM_REDUCE(N, T, sum) CLUMP_PSHMEM_REDUCE(N, T, prod)
#define CLUMP_PSHMEM_BITS_TYPES(X) \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) \
    X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
CLUMP_PSHMEM_BITS_TYPES(CLUMP_PSHMEM_REDUCE_BITS)
CLUMP_PSHMEM_BITS_TYPES(CLUMP_PSHMEM_REDUCE_ARITH)
CLUMP_PSHMEM_REDUCE_ARITH(char, char)
CLUMP_PSHMEM_REDUCE_ARITH(schar, signed char)
CLUMP_PSHMEM_REDUCE_ARITH(short, short)
CLUMP_PSHMEM_REDUCE_ARITH(int, int)
CLUMP_PSHMEM_REDUCE_ARITH(long, long)
CLUMP_PSHMEM_REDUCE_ARITH(longlong, long long)
CLUMP_PSHMEM_REDUCE_ARITH(ptrdiff, ptrdiff_t)
CLUMP_PSHMEM_REDUCE_ARITH(float, float)
CLUMP_PSHMEM_REDUCE_ARITH(double, double)
CLUMP_PSHMEM_REDUCE_ARITH(longdouble, long double)
CLUMP_PSHMEM_REDUCE(complexd, double _Complex, sum) CLUMP_PSHMEM_REDUCE(complexd, double _Complex, prod)
CLUMP_PSHMEM_REDUCE(complexf, float _Complex, sum) CLUMP_PSHMEM_REDUCE(complexf, float _Complex, prod)

/* Active-set collectives (before teams): PE_size PEs from PE_start every 2^logPE_stride. */
void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define CLUMP_PSHMEM_ACTIVE_SET(S) \
    void pshmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void pshmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void pshmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void pshmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void pshmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
CLUMP_PSHMEM_ACTIVE_SET(32)
CLUMP_PSHMEM_ACTIVE_SET(64)
#define CLUMP_PSHMEM_TO_ALL(N, T, OP) \
    void pshmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define CLUMP_PSHMEM_TO_ALL_BITS(N, T) \
    CLUMP_PSHMEM_TO_ALL(N, T, and) CLUMP_PSHMEM_TO_ALL(N, T, or) CLUMP_PSHMEM_TO_ALL(N, T, xor)
#define CLUMP_PSHMEM_TO_ALL_ARITH(N, T) \
    CLUMP_PSHMEM_TO_ALL(N, T, max) CLUMP_PSHMEM_TO_ALL(N, T, min) \
    CLUMP_PSHMEM_TO_ALL(N, T, sum) CLUMP_PSHMEM_TO_ALL(N, T, prod)
CLUMP_PSHMEM_TO_ALL_BITS(short, short)
CLUMP_PSHMEM_TO_ALL_BITS(int, int)
CLUMP_PSHMEM_TO_ALL_BITS(long, long)
CLUMP_PSHMEM_TO_ALL_BITS(longlong, long long)
CLUMP_PSHMEM_TO_ALL_ARITH(short, short)
CLUMP_PSHMEM_TO_ALL_ARITH(int, int)
CLUMP_PSHMEM_TO_ALL_ARITH(long, long)
CLUMP_PSHMEM_TO_ALL_ARITH(longlong, long long)
CLUMP_PSHMEM_TO_ALL_ARITH(float, float)
CLUMP_PSHMEM_TO_ALL_ARITH(double, double)
CLUMP_PSHMEM_TO_ALL_ARITH(longdouble, long double)
CLUMP_PSHMEM_TO_ALL(complexd, double _Complex, sum) CLUMP_PSHMEM_TO_ALL(complexd, double _Complex, prod)
CLUMP_PSHMEM_TO_ALL(complexf, float _Complex, sum) CLUMP_PSHMEM_TO_ALL(complexf, float _Complex, prod)

/* The profiling interface: libclump has no profiling of its own, so the level is for a
 * tool that wraps this call. pshmem.h declares the pshmem_ name of every call. */
void pshmem_pcontrol(const int level, ...);

/* Deprecated names from before OpenSHMEM 1.2, which 1.5 still lists. */
void pshmem_set_cache_inv(void);
void pshmem_set_cache_line_inv(void *dest);
void pshmem_clear_cache_inv(void);
void pshmem_clear_cache_line_inv(void *dest);
void pshmem_udcflush(void);
void pshmem_udcflush_line(void *dest);

#ifdef __cplusplus
}
#endif

/* C11 generic names: pshmem_put(dest, ...) or pshmem_put(ctx, dest, ...) selects
 * pshmem_[ctx_]TYPE_put as shmem.h's shmem_put selects shmem_[ctx_]TYPE_put. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define pshmem_put(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, put, __VA_ARGS__)
#define pshmem_get(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, get, __VA_ARGS__)
#define pshmem_put_nbi(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, put_nbi, __VA_ARGS__)
#define pshmem_get_nbi(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, get_nbi, __VA_ARGS__)
#define pshmem_p(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, p, __VA_ARGS__)
#define pshmem_g(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC_CONST, pshmem, g, __VA_ARGS__)
#define pshmem_iput(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, iput, __VA_ARGS__)
#define pshmem_iget(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, iget, __VA_ARGS__)
#define pshmem_put_signal(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, put_signal, __VA_ARGS__)
#define pshmem_put_signal_nbi(...) CLUMP_C11_CTX(CLUMP_C11_RMA, CLUMP_C11_ASSOC, pshmem, put_signal_nbi, __VA_ARGS__)
#define pshmem_atomic_fetch(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC_CONST, pshmem, atomic_fetch, __VA_ARGS__)
#define pshmem_atomic_set(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, pshmem, atomic_set, __VA_ARGS__)
#define pshmem_atomic_swap(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, pshmem, atomic_swap, __VA_ARGS__)
#define pshmem_atomic_compare_swap(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_compare_swap, __VA_ARGS__)
#define pshmem_atomic_fetch_inc(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_fetch_inc, __VA_ARGS__)
#define pshmem_atomic_inc(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_inc, __VA_ARGS__)
#define pshmem_atomic_fetch_add(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_fetch_add, __VA_ARGS__)
#define pshmem_atomic_add(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_add, __VA_ARGS__)
#define pshmem_atomic_fetch_and(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_fetch_and, __VA_ARGS__)
#define pshmem_atomic_and(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_and, __VA_ARGS__)
#define pshmem_atomic_fetch_or(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_fetch_or, __VA_ARGS__)
#define pshmem_atomic_or(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_or, __VA_ARGS__)
#define pshmem_atomic_fetch_xor(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_fetch_xor, __VA_ARGS__)
#define pshmem_atomic_xor(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_xor, __VA_ARGS__)
#define pshmem_atomic_fetch_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, pshmem, atomic_fetch_nbi, __VA_ARGS__)
#define pshmem_atomic_swap_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_EXTENDED, CLUMP_C11_ASSOC, pshmem, atomic_swap_nbi, __VA_ARGS__)
#define pshmem_atomic_compare_swap_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_compare_swap_nbi, __VA_ARGS__)
#define pshmem_atomic_fetch_inc_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_fetch_inc_nbi, __VA_ARGS__)
#define pshmem_atomic_fetch_add_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO, CLUMP_C11_ASSOC, pshmem, atomic_fetch_add_nbi, __VA_ARGS__)
#define pshmem_atomic_fetch_and_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_fetch_and_nbi, __VA_ARGS__)
#define pshmem_atomic_fetch_or_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_fetch_or_nbi, __VA_ARGS__)
#define pshmem_atomic_fetch_xor_nbi(...) CLUMP_C11_CTX(CLUMP_C11_AMO_BITWISE, CLUMP_C11_ASSOC, pshmem, atomic_fetch_xor_nbi, __VA_ARGS__)
#define pshmem_add(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, pshmem, add, __VA_ARGS__)
#define pshmem_inc(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, pshmem, inc, __VA_ARGS__)
#define pshmem_fadd(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, pshmem, fadd, __VA_ARGS__)
#define pshmem_finc(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, pshmem, finc, __VA_ARGS__)
#define pshmem_cswap(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD, pshmem, cswap, __VA_ARGS__)
#define pshmem_swap(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD_EXTENDED, pshmem, swap, __VA_ARGS__)
#define pshmem_set(...) CLUMP_C11_PLAIN(CLUMP_C11_AMO_OLD_EXTENDED, pshmem, set, __VA_ARGS__)
#define pshmem_fetch(...) CLUMP_C11_BY(CLUMP_C11_AMO_OLD_EXTENDED, CLUMP_C11_ASSOC_CONST, pshmem, fetch, CLUMP_C11_A0(__VA_ARGS__, 0))(__VA_ARGS__)
#define pshmem_wait_until(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until, __VA_ARGS__)
#define pshmem_wait_until_all(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until_all, __VA_ARGS__)
#define pshmem_wait_until_any(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until_any, __VA_ARGS__)
#define pshmem_wait_until_some(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until_some, __VA_ARGS__)
#define pshmem_wait_until_all_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until_all_vector, __VA_ARGS__)
#define pshmem_wait_until_any_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until_any_vector, __VA_ARGS__)
#define pshmem_wait_until_some_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, wait_until_some_vector, __VA_ARGS__)
#define pshmem_wait(...) CLUMP_C11_PLAIN(CLUMP_C11_WAIT_OLD, pshmem, wait, __VA_ARGS__)
#define pshmem_test(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test, __VA_ARGS__)
#define pshmem_test_all(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test_all, __VA_ARGS__)
#define pshmem_test_any(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test_any, __VA_ARGS__)
#define pshmem_test_some(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test_some, __VA_ARGS__)
#define pshmem_test_all_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test_all_vector, __VA_ARGS__)
#define pshmem_test_any_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test_any_vector, __VA_ARGS__)
#define pshmem_test_some_vector(...) CLUMP_C11_PLAIN(CLUMP_C11_P2P, pshmem, test_some_vector, __VA_ARGS__)
#define pshmem_broadcast(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, pshmem, broadcast, __VA_ARGS__)
#define pshmem_collect(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, pshmem, collect, __VA_ARGS__)
#define pshmem_fcollect(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, pshmem, fcollect, __VA_ARGS__)
#define pshmem_alltoall(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, pshmem, alltoall, __VA_ARGS__)
#define pshmem_alltoalls(...) CLUMP_C11_TEAM(CLUMP_C11_RMA, pshmem, alltoalls, __VA_ARGS__)
#define pshmem_and_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_BITS, pshmem, and_reduce, __VA_ARGS__)
#define pshmem_or_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_BITS, pshmem, or_reduce, __VA_ARGS__)
#define pshmem_xor_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_BITS, pshmem, xor_reduce, __VA_ARGS__)
#define pshmem_max_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ORDER, pshmem, max_reduce, __VA_ARGS__)
#define pshmem_min_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ORDER, pshmem, min_reduce, __VA_ARGS__)
#define pshmem_sum_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ARITH, pshmem, sum_reduce, __VA_ARGS__)
#define pshmem_prod_reduce(...) CLUMP_C11_TEAM(CLUMP_C11_REDUCE_ARITH, pshmem, prod_reduce, __VA_ARGS__)
#endif

#endif
