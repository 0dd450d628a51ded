/* Preprocessor tables for going through every argument count 0..16 in C tests:
 * Pn declares n int32_t parameters a0.., An passes them on, Vn(b) passes b, b+1, ... */
#ifndef CLUMP_TEST_ARITY_H
#define CLUMP_TEST_ARITY_H

#define P0
#define P1 , int32_t a0
#define P2 P1, int32_t a1
#define P3 P2, int32_t a2
#define P4 P3, int32_t a3
#define P5 P4, int32_t a4
#define P6 P5, int32_t a5
#define P7 P6, int32_t a6
#define P8 P7, int32_t a7
#define P9 P8, int32_t a8
#define P10 P9, int32_t a9
#define P11 P10, int32_t a10
#define P12 P11, int32_t a11
#define P13 P12, int32_t a12
#define P14 P13, int32_t a13
#define P15 P14, int32_t a14
#define P16 P15, int32_t a15

#define A0
#define A1 , a0
#define A2 A1, a1
#define A3 A2, a2
#define A4 A3, a3
#define A5 A4, a4
#define A6 A5, a5
#define A7 A6, a6
#define A8 A7, a7
#define A9 A8, a8
#define A10 A9, a9
#define A11 A10, a10
#define A12 A11, a11
#define A13 A12, a12
#define A14 A13, a13
#define A15 A14, a14
#define A16 A15, a15

#define V0(b)
#define V1(b) , (b)
#define V2(b) V1(b), (b) + 1
#define V3(b) V2(b), (b) + 2
#define V4(b) V3(b), (b) + 3
#define V5(b) V4(b), (b) + 4
#define V6(b) V5(b), (b) + 5
#define V7(b) V6(b), (b) + 6
#define V8(b) V7(b), (b) + 7
#define V9(b) V8(b), (b) + 8
#define V10(b) V9(b), (b) + 9
#define V11(b) V10(b), (b) + 10
#define V12(b) V11(b), (b) + 11
#define V13(b) V12(b), (b) + 12
#define V14(b) V13(b), (b) + 13
#define V15(b) V14(b), (b) + 14
#define V16(b) V15(b), (b) + 15

/* X(n) for every arity. */
#define EVERY_ARITY(X) \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

#endif
