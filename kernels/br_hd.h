/* br_hd.h: the BR_HD qualifier and small 3-vector helpers shared by the CPU
 * and CUDA backends. Under nvcc BR_HD is __host__ __device__; in C it is
 * plain static inline. No globals, no allocation. */
#ifndef BR_HD_H
#define BR_HD_H

#include <math.h>
#include <stdint.h>
#if !defined(__CUDACC__)
#include <string.h>
#endif

#if defined(__CUDACC__)
#define BR_HD static __forceinline__ __host__ __device__
#elif defined(__GNUC__)
#define BR_HD static inline __attribute__((always_inline))
#else
#define BR_HD static inline
#endif

/* before a loop over a batch's vector lanes whose iterations each touch only their own lane's
 * entries (kernels/ga_step.h's _l functions): the compiler takes it as one vector operation a
 * statement without testing at run time whether its arrays overlap, a test it otherwise makes
 * before every short loop of the lanes (S5b's Keff^-1 product: 24 rows a column). Each lane's
 * arithmetic is the same; off where OpenMP is (a CUDA file: its threads are its lanes) */
#if defined(_OPENMP) && !defined(__CUDACC__)
#define BR_LANEWISE _Pragma("omp simd")
#else
#define BR_LANEWISE
#endif

/* a, b, c -> a b + c rounded once (a fused multiply-add), the same IEEE operation on both backends:
 * the GPU's fma, the CPU's vfmadd where the build targets a core that has one (-march=native on any
 * x86 core since Haswell and Zen; gcc then inlines fma() and vectorizes it). A build for a core
 * without FMA (-DBRISTLE_NATIVE=OFF) rounds a b and then the sum: results move by rounding there,
 * as issue 54's decision allows (docs/physics-choices.md). The compilers contract nothing
 * themselves (C11, nvcc -fmad=false): every fused multiply-add is one of these, written where it
 * pays, so a point's arithmetic stays the same operations in the same order on CPU and GPU. */
#if defined(__CUDA_ARCH__) || defined(__FMA__)
#define br_fma(a, b, c) fma((a), (b), (c))
#else
#define br_fma(a, b, c) ((a) * (b) + (c))
#endif

/* 3-vector dot product: a . b */
BR_HD double br_dot3(const double a[3], const double b[3])
{
    return br_fma(a[2], b[2], br_fma(a[1], b[1], a[0] * b[0]));
}

/* 3-vector cross product: out = a x b (out may not alias a or b) */
BR_HD void br_cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = br_fma(a[1], b[2], -(a[2] * b[1]));
    out[1] = br_fma(a[2], b[0], -(a[0] * b[2]));
    out[2] = br_fma(a[0], b[1], -(a[1] * b[0]));
}

/* Euclidean norm |a| */
BR_HD double br_norm3(const double a[3])
{
    return sqrt(br_dot3(a, a));
}

/* Row-major 3x3 matrix times vector: out = R a */
BR_HD void br_mat3_vec(const double R[9], const double a[3], double out[3])
{
    out[0] = br_fma(R[2], a[2], br_fma(R[1], a[1], R[0] * a[0]));
    out[1] = br_fma(R[5], a[2], br_fma(R[4], a[1], R[3] * a[0]));
    out[2] = br_fma(R[8], a[2], br_fma(R[7], a[1], R[6] * a[0]));
}

/* double -> its IEEE-754 bits, and back (vectorizable in C, intrinsics on the GPU) */
BR_HD uint64_t br_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

BR_HD double br_from_bits(uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)b);
#else
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/* BR_UNROLL_ELEMENTS before a loop over a law's elements (gms: at most BR_GMS_MAX): gcc unrolls
 * it completely when the count is a constant (the CPU chunk loops of gms pass it as one), so
 * the point loop around it has no inner loop left and vectorizes. Nothing on the GPU. */
/* BR_UNROLL_ITERATIONS likewise before a fixed-count iteration inside the point loop
 * (bristle_implicit's slip solve: BR_SLIP_ITER). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define BR_UNROLL_ELEMENTS _Pragma("GCC unroll 8")
#define BR_UNROLL_ITERATIONS _Pragma("GCC unroll 16")
#else
#define BR_UNROLL_ELEMENTS
#define BR_UNROLL_ITERATIONS
#endif

/* c, a, b -> c ? a : b, for a condition c that is the same for every point
 * (it depends on set parameters only). In C it is a bit-mask blend: gcc 12
 * does not vectorize a select whose condition is a loop-invariant scalar, and
 * turns chains of such selects into switches, which stops if-conversion of
 * the whole point loop. The value is exactly a or b either way. */
BR_HD double br_select_uniform(int c, double a, double b)
{
#if defined(__CUDA_ARCH__)
    return c ? a : b;
#else
    const uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
    return br_from_bits((br_bits(a) & m) | (br_bits(b) & ~m));
#endif
}

/* x >= 0, p in {0, 0.5, 1, ..., 4} -> x^p from multiplies and one sqrt, branch-free.
 * Exponents of the normal and Stribeck laws are restricted to multiples of 0.5
 * up to 4 (validated at set creation; docs/physics-choices.md), which covers
 * every value in the specification and keeps the point loop vectorizable.
 * Every candidate is computed and one is selected (p is the same for all
 * points, see br_select_uniform). */
BR_HD double br_pow_half(double x, double p)
{
    const int n = (int)(2.0 * p);
    const int ip = n >> 1; /* x^p = x^ip (sqrt x if n is odd), x^ip = x^(ip&1) x^(ip&2) x^(ip&4) */
    const double x2 = x * x;
    const double x4 = x2 * x2;
    const double xi = (br_select_uniform(ip & 1, x, 1.0) * br_select_uniform(ip & 2, x2, 1.0)) *
                      br_select_uniform(ip & 4, x4, 1.0);
    return xi * br_select_uniform(n & 1, sqrt(x), 1.0);
}

/* p -> 1 if br_pow_half handles it */
BR_HD int br_pow_half_ok(double p)
{
    return p >= 0.0 && p <= 4.0 && 2.0 * p == (double)(int)(2.0 * p);
}

/* x -> 2^k and r with x = k ln2 + r, |r| <= ln2/2, for x clamped to [-708, 709]
 * (Cody-Waite split of ln2; k rounded with the 1.5*2^52 trick, so 2^k is built
 * from the bits of the same sum without an integer conversion). */
BR_HD double br_exp_reduce(double x, double *r)
{
    const double xc = x < -708.0 ? -708.0 : (x > 709.0 ? 709.0 : x);
    const double shift = 0x1.8p52;
    const double t = br_fma(xc, 0x1.71547652b82fep0, shift); /* log2(e) */
    const double k = t - shift;
    /* ln2 = hi + lo with 11 trailing zero bits in hi, so k * hi is exact for |k| < 2^11 */
    *r = br_fma(-k, 1.90821492927058770002e-10, br_fma(-k, 6.93147180369123816490e-01, xc));
    return br_from_bits(br_bits(k + (1023.0 + shift)) << 52);
}

/* r -> exp(r) - 1 for |r| <= ln2/2: Taylor series to degree 13 (truncation
 * below 2e-16 relative), r (1 + r/2! + ... + r^12/13!) with the inner
 * polynomial in Estrin form: a dependency chain of about 7 operations instead
 * of Horner's 24. The vectorized CPU loop is bound by the latency of one
 * point's exp -> divide -> expm1 chain, so this is worth about 1.3x there
 * (docs/performance.md). Rounding: br_exp within 2 ulp, br_expm1 within 4 ulp
 * of glibc (Horner: 1 and 2), inside the 1e-15 bound the tests check. */
BR_HD double br_expm1_poly(double r)
{
    const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const double b0 = br_fma(r, 0.5, 1.0);
    const double b1 = br_fma(r, 1.0 / 24.0, 1.0 / 6.0);
    const double b2 = br_fma(r, 1.0 / 720.0, 1.0 / 120.0);
    const double b3 = br_fma(r, 1.0 / 40320.0, 1.0 / 5040.0);
    const double b4 = br_fma(r, 1.0 / 3628800.0, 1.0 / 362880.0);
    const double b5 = br_fma(r, 1.0 / 479001600.0, 1.0 / 39916800.0);
    const double b6 = 1.0 / 6227020800.0;
    const double c0 = br_fma(r2, b1, b0), c1 = br_fma(r2, b3, b2), c2 = br_fma(r2, b5, b4);
    const double d0 = br_fma(r4, c1, c0), d1 = br_fma(r4, b6, c2);
    return br_fma(r8, d1, d0) * r;
}

/* x -> exp(x), within 2 ulp; 0 below -708 (no subnormals), finite up to 709.
 * Branch-free so the CPU loop vectorizes; the GPU evaluates the same polynomial. */
BR_HD double br_exp(double x)
{
    double r;
    const double s = br_exp_reduce(x, &r);
    const double e = br_fma(s, br_expm1_poly(r), s);
    return x < -708.0 ? 0.0 : e;
}

/* x -> exp(x) - 1 without cancellation near 0: 2^k (exp(r) - 1) + (2^k - 1) */
BR_HD double br_expm1(double x)
{
    double r;
    const double s = br_exp_reduce(x, &r);
    const double e = br_fma(s, br_expm1_poly(r), s - 1.0);
    return x < -708.0 ? -1.0 : e;
}

#endif
