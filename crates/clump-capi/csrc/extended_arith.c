/* Arithmetic on the C types Rust does not have, for OpenSHMEM's and MPI's reductions: long
 * double (x86-64: 80-bit extended in 16 bytes) and its complex, and binary128 (MPI's only)
 * with its complex. Values come and go by
 * pointer, copied through memcpy so Rust's byte buffers need no alignment. */
#include <complex.h>
#include <math.h>
#include <string.h>

/* The Rust side holds these values as [u8; 16] and [u8; 32]; double and float _Complex
 * as [f64; 2] and [f32; 2], which clump-coll combines. */
_Static_assert(sizeof(long double) == 16, "long double must take 16 bytes");
_Static_assert(sizeof(double _Complex) == 16, "double _Complex must take 16 bytes");
_Static_assert(sizeof(float _Complex) == 8, "float _Complex must take 8 bytes");
_Static_assert(sizeof(long double _Complex) == 32, "long double _Complex must take 32 bytes");

/* void clump_NAME(const T *a, const T *b, T *out): *out = EXPR of x = *a and y = *b. */
#define CLUMP_BINARY(NAME, T, EXPR)                                       \
    void clump_##NAME(const void *a, const void *b, void *out) {          \
        T x, y, r;                                                        \
        memcpy(&x, a, sizeof x);                                          \
        memcpy(&y, b, sizeof y);                                          \
        r = (EXPR);                                                       \
        memcpy(out, &r, sizeof r);                                        \
    }

CLUMP_BINARY(longdouble_sum, long double, x + y)
CLUMP_BINARY(longdouble_prod, long double, x * y)
/* fminl/fmaxl: a NaN loses to a number, as with Rust's f64::min and max. */
CLUMP_BINARY(longdouble_min, long double, fminl(x, y))
CLUMP_BINARY(longdouble_max, long double, fmaxl(x, y))
/* Complex numbers have no order: they are reduced by sum and product only. */
CLUMP_BINARY(complexld_sum, long double _Complex, x + y)
CLUMP_BINARY(complexld_prod, long double _Complex, x * y)

/* Whether *a < *b as long doubles (MPI_MINLOC and MPI_MAXLOC compare values). */
int clump_longdouble_less(const void *a, const void *b) {
    long double x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y;
}

/* IEEE binary128 (_Float128: GCC's on x86-64, long double itself on aarch64), Fortran's
 * REAL(KIND=16) and COMPLEX(KIND=16) (MPI_REAL16, MPI_COMPLEX32); soft-float through
 * libgcc where the machine has no such arithmetic. */
_Static_assert(sizeof(_Float128) == 16, "_Float128 must take 16 bytes");
/* fmin/fmax's rule: a NaN loses to a number. */
#define CLUMP_QUAD_MIN(x, y) ((x) != (x) ? (y) : (y) != (y) ? (x) : (y) < (x) ? (y) : (x))
#define CLUMP_QUAD_MAX(x, y) ((x) != (x) ? (y) : (y) != (y) ? (x) : (y) > (x) ? (y) : (x))
CLUMP_BINARY(quad_sum, _Float128, x + y)
CLUMP_BINARY(quad_prod, _Float128, x * y)
CLUMP_BINARY(quad_min, _Float128, CLUMP_QUAD_MIN(x, y))
CLUMP_BINARY(quad_max, _Float128, CLUMP_QUAD_MAX(x, y))
CLUMP_BINARY(complexq_sum, _Complex _Float128, x + y)
CLUMP_BINARY(complexq_prod, _Complex _Float128, x * y)
