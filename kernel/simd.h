/* The one vector layer: the only file that includes SIMDe or names an
 * intrinsic. SIMDe maps these SSE/AVX names to native SSE/AVX/AVX-512, to
 * NEON on ARM, and to portable C under MINK_SIMD=portable (SIMDE_NO_NATIVE).
 *
 * Two types:
 *   v4 - four floats (x, y, z, pad) for points and directions; pad lanes are
 *        kept at zero so 4-lane sums equal 3-lane dot products.
 *   vw - MINK_W_LANES floats (4 with SSE4.1/NEON/portable, 8 with AVX2,
 *        16 with AVX-512) for scans over structure-of-arrays data;
 *        vn, its narrower form for scans of short hulls (8 lanes with
 *        AVX-512, else vw itself), is defined further down.
 * Masks are all-bits-set lanes on every backend (v4m, vwm); predicates are
 * any/all, never movemask bit tricks (expensive on NEON). */
#ifndef MINK_SIMD_H
#define MINK_SIMD_H

#include <stdint.h>
#include <simde/x86/sse4.1.h>
#include <simde/x86/sse3.h>
#if defined(__AVX512F__) && defined(__AVX512DQ__) && !defined(SIMDE_NO_NATIVE)
#include <simde/x86/avx512.h>
#define MINK_W_LANES 16
#define MINK_SIMD_NAME "avx512"
#elif defined(__AVX2__) && !defined(SIMDE_NO_NATIVE)
#include <simde/x86/avx2.h>
#include <simde/x86/fma.h>
#define MINK_W_LANES 8
#define MINK_SIMD_NAME "avx2"
#else
#define MINK_W_LANES 4
#if defined(SIMDE_NO_NATIVE)
#define MINK_SIMD_NAME "portable"
#elif defined(__ARM_NEON) || defined(__aarch64__)
#define MINK_SIMD_NAME "neon"
#else
#define MINK_SIMD_NAME "sse41"
#endif
#endif

#define MINK_INLINE static inline
/* Inlined even where GCC's size limits would keep a called copy: code
 * written for constant arguments, or hot paths inlined at several sites. */
#define MINK_ALWAYS_INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------ 4-wide */

typedef simde__m128 v4;
typedef simde__m128 v4m; /* mask: lanes all ones or all zeros */

MINK_INLINE v4 v4_zero(void) { return simde_mm_setzero_ps(); }
MINK_INLINE v4 v4_set(float x, float y, float z, float w) { return simde_mm_set_ps(w, z, y, x); }
MINK_INLINE v4 v4_splat(float s) { return simde_mm_set1_ps(s); }
MINK_INLINE v4 v4_load(const float *p) { return simde_mm_loadu_ps(p); }
MINK_INLINE v4 v4_load3(const float *p) { return v4_set(p[0], p[1], p[2], 0.0f); }
MINK_INLINE void v4_store(float *p, v4 a) { simde_mm_storeu_ps(p, a); }
/* The same at a 16-byte aligned p: x86 then folds the load into the
 * operation that uses it. */
MINK_INLINE v4 v4_load_aligned(const float *p) { return simde_mm_load_ps(p); }
MINK_INLINE void v4_store_aligned(float *p, v4 a) { simde_mm_store_ps(p, a); }
MINK_INLINE float v4_x(v4 a) { return simde_mm_cvtss_f32(a); }
MINK_INLINE float v4_y(v4 a) { return simde_mm_cvtss_f32(simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(1, 1, 1, 1))); }
MINK_INLINE float v4_z(v4 a) { return simde_mm_cvtss_f32(simde_mm_movehl_ps(a, a)); }
MINK_INLINE float v4_w(v4 a) { return simde_mm_cvtss_f32(simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(3, 3, 3, 3))); }

MINK_INLINE v4 v4_add(v4 a, v4 b) { return simde_mm_add_ps(a, b); }
MINK_INLINE v4 v4_sub(v4 a, v4 b) { return simde_mm_sub_ps(a, b); }
MINK_INLINE v4 v4_mul(v4 a, v4 b) { return simde_mm_mul_ps(a, b); }
MINK_INLINE v4 v4_div(v4 a, v4 b) { return simde_mm_div_ps(a, b); }
MINK_INLINE v4 v4_sqrt(v4 a) { return simde_mm_sqrt_ps(a); } /* IEEE, per lane */
/* a*b + c, rounded twice: results do not depend on FMA hardware. */
MINK_INLINE v4 v4_madd(v4 a, v4 b, v4 c) { return simde_mm_add_ps(simde_mm_mul_ps(a, b), c); }
MINK_INLINE v4 v4_scale(v4 a, float s) { return simde_mm_mul_ps(a, simde_mm_set1_ps(s)); }
MINK_INLINE v4 v4_neg(v4 a) { return simde_mm_sub_ps(simde_mm_setzero_ps(), a); }
MINK_INLINE v4 v4_abs(v4 a) { return simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), a); } /* sign bits cleared */
MINK_INLINE v4 v4_min(v4 a, v4 b) { return simde_mm_min_ps(a, b); }
MINK_INLINE v4 v4_max(v4 a, v4 b) { return simde_mm_max_ps(a, b); }

/* The sum of all four lanes, in every lane (fixed order: deterministic). */
MINK_INLINE v4 v4_hsum_splat(v4 a)
{
    const v4 s = simde_mm_add_ps(a, simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return simde_mm_add_ps(s, simde_mm_shuffle_ps(s, s, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
}
/* Dot products: with pad lanes at zero, 4 lanes = 3 lanes. */
MINK_INLINE v4 v4_dot_splat(v4 a, v4 b) { return v4_hsum_splat(simde_mm_mul_ps(a, b)); }
MINK_INLINE float v4_dot(v4 a, v4 b) { return v4_x(v4_dot_splat(a, b)); }
MINK_INLINE float v4_len2(v4 a) { return v4_dot(a, a); }

MINK_INLINE v4 v4_cross(v4 a, v4 b)
{
    /* a.yzx * b.zxy - a.zxy * b.yzx, pad lane stays 0 */
    const v4 a_yzx = simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(3, 0, 2, 1));
    const v4 b_yzx = simde_mm_shuffle_ps(b, b, SIMDE_MM_SHUFFLE(3, 0, 2, 1));
    const v4 c = simde_mm_sub_ps(simde_mm_mul_ps(a, b_yzx), simde_mm_mul_ps(a_yzx, b));
    return simde_mm_shuffle_ps(c, c, SIMDE_MM_SHUFFLE(3, 0, 2, 1));
}

MINK_INLINE v4m v4_cmpgt(v4 a, v4 b) { return simde_mm_cmpgt_ps(a, b); }
MINK_INLINE v4m v4_cmpge(v4 a, v4 b) { return simde_mm_cmpge_ps(a, b); }
MINK_INLINE v4m v4_cmpeq(v4 a, v4 b) { return simde_mm_cmpeq_ps(a, b); }
MINK_INLINE v4m v4_and(v4m a, v4m b) { return simde_mm_and_ps(a, b); }
MINK_INLINE v4m v4_andnot(v4m a, v4m b) { return simde_mm_andnot_ps(a, b); } /* ~a & b */
MINK_INLINE v4m v4_or(v4m a, v4m b) { return simde_mm_or_ps(a, b); }
/* mask ? a : b */
MINK_INLINE v4 v4_select(v4m mask, v4 a, v4 b) { return simde_mm_blendv_ps(b, a, mask); }
MINK_INLINE int v4_any(v4m m)
{
    /* not testz: SIMDe 0.7.4's portable testz answers "zero" as soon as one
     * 64-bit half is zero, so masks set only in the other half were missed */
    const simde__m128i i = simde_mm_castps_si128(m);
    return !simde_mm_test_all_ones(simde_mm_xor_si128(i, simde_mm_cmpeq_epi32(i, i)));
}
MINK_INLINE int v4_all(v4m m)
{
    const simde__m128i i = simde_mm_castps_si128(m);
    return simde_mm_test_all_ones(i);
}
/* 1 if every lane set in `lanes` is set in m: one test, where v4_all
 * would first set the other lanes of m. */
MINK_INLINE int v4_all_in(v4m m, v4m lanes)
{
    return simde_mm_testc_si128(simde_mm_castps_si128(m), simde_mm_castps_si128(lanes));
}
/* The mask as bits: bit i set iff lane i is. A movemask on x86; elsewhere
 * (no cheap movemask on NEON) a sum of the lanes' weights 1, 2, 4, 8. */
#if defined(SIMDE_X86_SSE_NATIVE)
MINK_INLINE uint32_t v4_mask_bits(v4m m) { return (uint32_t)simde_mm_movemask_ps(m); }
#else
MINK_INLINE uint32_t v4_mask_bits(v4m m)
{
    const v4 w = simde_mm_and_ps(m, v4_set(1.0f, 2.0f, 4.0f, 8.0f));
    return (uint32_t)v4_x(v4_hsum_splat(w));
}
#endif
/* Four 32-bit integers in one 16-byte store (p need not be aligned). */
MINK_INLINE void u32x4_store(uint32_t *p, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    simde_mm_storeu_si128((simde__m128i *)(void *)p, simde_mm_set_epi32((int32_t)d, (int32_t)c, (int32_t)b, (int32_t)a));
}
/* Four 32-bit integers, wrapping arithmetic (the cache's checksum). */
typedef simde__m128i u32x4;
MINK_INLINE u32x4 u32x4_load(const uint32_t *p) { return simde_mm_loadu_si128((const simde__m128i *)(const void *)p); }
MINK_INLINE u32x4 u32x4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return simde_mm_set_epi32((int32_t)d, (int32_t)c, (int32_t)b, (int32_t)a);
}
MINK_INLINE u32x4 u32x4_add(u32x4 a, u32x4 b) { return simde_mm_add_epi32(a, b); }
MINK_INLINE u32x4 u32x4_and(u32x4 a, u32x4 b) { return simde_mm_and_si128(a, b); }
/* The low 32 bits of each product (SSE2 has no such multiply: SIMDe
 * emulates it there). */
MINK_INLINE u32x4 u32x4_mul(u32x4 a, u32x4 b) { return simde_mm_mullo_epi32(a, b); }
MINK_INLINE uint32_t u32x4_sum(u32x4 a)
{
    const u32x4 s = simde_mm_add_epi32(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    const u32x4 t = simde_mm_add_epi32(s, simde_mm_shuffle_epi32(s, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)simde_mm_cvtsi128_si32(t);
}
/* Words p[0..2] as the bits of lanes x, y, z (pad 0), read as 8 bytes and
 * 4: each within a 16-byte piece when p[2] starts one. */
MINK_INLINE v4 v4_from_words3(const uint32_t *p)
{
    const simde__m128i xy = simde_mm_loadl_epi64((const simde__m128i *)(const void *)p);
    return simde_mm_castsi128_ps(simde_mm_unpacklo_epi64(xy, simde_mm_cvtsi32_si128((int32_t)p[2])));
}
/* (a, b, 0, 0) in one 16-byte store, a and b paired in a 64-bit register
 * first: from u32x4_store GCC zeroed the upper half with a register to
 * register vmovq it may encode as 66 0F D6, which valgrind 3.19 (the
 * instruction-count gate, memcheck) cannot decode. */
MINK_INLINE void u32x2_store_zero_hi(uint32_t *p, uint32_t a, uint32_t b)
{
    simde_mm_storeu_si128((simde__m128i *)(void *)p, simde_mm_set_epi64x(0, (int64_t)((uint64_t)b << 32 | a)));
}
/* Lanes x, y, z kept; pad lane zeroed. */
MINK_INLINE v4 v4_xyz(v4 a) { return simde_mm_blend_ps(a, simde_mm_setzero_ps(), 8); }

/* Sum of each of four vectors, as the four lanes of one: (sum a, sum b, sum c, sum d). */
MINK_INLINE v4 v4_hsum4(v4 a, v4 b, v4 c, v4 d)
{
    return simde_mm_hadd_ps(simde_mm_hadd_ps(a, b), simde_mm_hadd_ps(c, d));
}

/* The transpose of the 3x3 matrix in rows r[0..2] (pad lanes zero): its
 * columns, pad lanes zero. */
MINK_INLINE void v4_transpose3(const v4 r[3], v4 c[3])
{
    const v4 xy01 = simde_mm_unpacklo_ps(r[0], r[1]); /* r0x r1x r0y r1y */
    const v4 zw01 = simde_mm_unpackhi_ps(r[0], r[1]); /* r0z r1z 0 0 */
    const v4 xy2 = simde_mm_unpacklo_ps(r[2], simde_mm_setzero_ps()); /* r2x 0 r2y 0 */
    const v4 zw2 = simde_mm_unpackhi_ps(r[2], simde_mm_setzero_ps()); /* r2z 0 0 0 */
    c[0] = simde_mm_movelh_ps(xy01, xy2);
    c[1] = simde_mm_movehl_ps(xy2, xy01);
    c[2] = simde_mm_movelh_ps(zw01, zw2);
}

/* Four points (pad lanes ignored) as rows of their x, y and z in lanes. */
MINK_INLINE void v4_transpose_points(const v4 p[4], v4 xyz[3])
{
    const v4 xy01 = simde_mm_unpacklo_ps(p[0], p[1]); /* x0 x1 y0 y1 */
    const v4 xy23 = simde_mm_unpacklo_ps(p[2], p[3]);
    const v4 zw01 = simde_mm_unpackhi_ps(p[0], p[1]); /* z0 z1 w0 w1 */
    const v4 zw23 = simde_mm_unpackhi_ps(p[2], p[3]);
    xyz[0] = simde_mm_movelh_ps(xy01, xy23);
    xyz[1] = simde_mm_movehl_ps(xy23, xy01);
    xyz[2] = simde_mm_movelh_ps(zw01, zw23);
}

/* The inverse: rows of x, y and z in lanes as four points, pad lanes zero. */
MINK_INLINE void v4_transpose_rows(const v4 xyz[3], v4 p[4])
{
    const v4 xy01 = simde_mm_unpacklo_ps(xyz[0], xyz[1]); /* x0 y0 x1 y1 */
    const v4 xy23 = simde_mm_unpackhi_ps(xyz[0], xyz[1]); /* x2 y2 x3 y3 */
    const v4 z01 = simde_mm_unpacklo_ps(xyz[2], simde_mm_setzero_ps()); /* z0 0 z1 0 */
    const v4 z23 = simde_mm_unpackhi_ps(xyz[2], simde_mm_setzero_ps()); /* z2 0 z3 0 */
    p[0] = simde_mm_movelh_ps(xy01, z01);
    p[1] = simde_mm_movehl_ps(z01, xy01);
    p[2] = simde_mm_movelh_ps(xy23, z23);
    p[3] = simde_mm_movehl_ps(z23, xy23);
}

/* Lanes (a[i], a[j], b[k], b[l]), i..l constants: two of a, then two of b.
 * A macro: the lane numbers must be compile-time constants. */
#define v4_shuffle(a, b, i, j, k, l) simde_mm_shuffle_ps((a), (b), SIMDE_MM_SHUFFLE((l), (k), (j), (i)))

/* Lane-wise 3-vectors held as rows of their x, y, z (from
 * v4_transpose_points): per lane, v4_cross's arithmetic, and the dot
 * product summed (x + y) + z like v4_dot (which adds the pad lane's +0
 * too: the same value, except that it turns a -0 sum into +0). */
MINK_INLINE void v4_cross_rows(const v4 a[3], const v4 b[3], v4 out[3])
{
    out[0] = v4_sub(v4_mul(a[1], b[2]), v4_mul(a[2], b[1]));
    out[1] = v4_sub(v4_mul(a[2], b[0]), v4_mul(a[0], b[2]));
    out[2] = v4_sub(v4_mul(a[0], b[1]), v4_mul(a[1], b[0]));
}
MINK_INLINE v4 v4_dot_rows(const v4 a[3], const v4 b[3])
{
    return v4_add(v4_add(v4_mul(a[0], b[0]), v4_mul(a[1], b[1])), v4_mul(a[2], b[2]));
}

/* Lanes of b where bit i of the constant mask is set, of a elsewhere. A
 * macro: the mask must be a compile-time constant. */
#define v4_blend(a, b, mask) simde_mm_blend_ps((a), (b), (mask))

/* Broadcasts of one lane. */
MINK_INLINE v4 v4_splat_x(v4 a) { return simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(0, 0, 0, 0)); }
MINK_INLINE v4 v4_splat_y(v4 a) { return simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(1, 1, 1, 1)); }
MINK_INLINE v4 v4_splat_z(v4 a) { return simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(2, 2, 2, 2)); }

/* ------------------------------------------------------------ wide */

#if MINK_W_LANES == 16
typedef simde__m512 vw;
typedef simde__m512 vwm;
MINK_INLINE vw vw_load(const float *p) { return simde_mm512_load_ps(p); }
MINK_INLINE void vw_store(float *p, vw a) { simde_mm512_store_ps(p, a); }
MINK_INLINE vw vw_splat(float s) { return simde_mm512_set1_ps(s); }
MINK_INLINE vw vw_add(vw a, vw b) { return simde_mm512_add_ps(a, b); }
MINK_INLINE vw vw_sub(vw a, vw b) { return simde_mm512_sub_ps(a, b); }
MINK_INLINE vw vw_mul(vw a, vw b) { return simde_mm512_mul_ps(a, b); }
MINK_INLINE vw vw_min(vw a, vw b) { return simde_mm512_min_ps(a, b); }
MINK_INLINE vw vw_max(vw a, vw b) { return simde_mm512_max_ps(a, b); }
MINK_INLINE vwm vw_cmpgt(vw a, vw b)
{
    return simde_mm512_castsi512_ps(simde_mm512_movm_epi32(simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ)));
}
MINK_INLINE vw vw_select(vwm m, vw a, vw b)
{
    return simde_mm512_mask_blend_ps(simde_mm512_movepi32_mask(simde_mm512_castps_si512(m)), b, a);
}
MINK_INLINE vwm vw_and(vwm a, vwm b) { return simde_mm512_castsi512_ps(simde_mm512_and_si512(simde_mm512_castps_si512(a), simde_mm512_castps_si512(b))); }
MINK_INLINE vwm vw_or(vwm a, vwm b) { return simde_mm512_castsi512_ps(simde_mm512_or_si512(simde_mm512_castps_si512(a), simde_mm512_castps_si512(b))); }
MINK_INLINE int vw_any(vwm m) { return simde_mm512_movepi32_mask(simde_mm512_castps_si512(m)) != 0; }
MINK_INLINE int vw_all(vwm m) { return simde_mm512_movepi32_mask(simde_mm512_castps_si512(m)) == 0xffff; }
MINK_INLINE vw vw_iota(void)
{
    return simde_mm512_set_ps(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}
#elif MINK_W_LANES == 8
typedef simde__m256 vw;
typedef simde__m256 vwm;
MINK_INLINE vw vw_load(const float *p) { return simde_mm256_load_ps(p); }
MINK_INLINE void vw_store(float *p, vw a) { simde_mm256_store_ps(p, a); }
MINK_INLINE vw vw_splat(float s) { return simde_mm256_set1_ps(s); }
MINK_INLINE vw vw_add(vw a, vw b) { return simde_mm256_add_ps(a, b); }
MINK_INLINE vw vw_sub(vw a, vw b) { return simde_mm256_sub_ps(a, b); }
MINK_INLINE vw vw_mul(vw a, vw b) { return simde_mm256_mul_ps(a, b); }
MINK_INLINE vw vw_min(vw a, vw b) { return simde_mm256_min_ps(a, b); }
MINK_INLINE vw vw_max(vw a, vw b) { return simde_mm256_max_ps(a, b); }
MINK_INLINE vwm vw_cmpgt(vw a, vw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
MINK_INLINE vw vw_select(vwm m, vw a, vw b) { return simde_mm256_blendv_ps(b, a, m); }
MINK_INLINE vwm vw_and(vwm a, vwm b) { return simde_mm256_and_ps(a, b); }
MINK_INLINE vwm vw_or(vwm a, vwm b) { return simde_mm256_or_ps(a, b); }
MINK_INLINE int vw_any(vwm m) { return !simde_mm256_testz_ps(m, m); }
MINK_INLINE int vw_all(vwm m) { return simde_mm256_movemask_ps(m) == 0xff; }
MINK_INLINE vw vw_iota(void) { return simde_mm256_set_ps(7, 6, 5, 4, 3, 2, 1, 0); }
#else
typedef simde__m128 vw;
typedef simde__m128 vwm;
MINK_INLINE vw vw_load(const float *p) { return simde_mm_load_ps(p); }
MINK_INLINE void vw_store(float *p, vw a) { simde_mm_store_ps(p, a); }
MINK_INLINE vw vw_splat(float s) { return simde_mm_set1_ps(s); }
MINK_INLINE vw vw_add(vw a, vw b) { return simde_mm_add_ps(a, b); }
MINK_INLINE vw vw_sub(vw a, vw b) { return simde_mm_sub_ps(a, b); }
MINK_INLINE vw vw_mul(vw a, vw b) { return simde_mm_mul_ps(a, b); }
MINK_INLINE vw vw_min(vw a, vw b) { return simde_mm_min_ps(a, b); }
MINK_INLINE vw vw_max(vw a, vw b) { return simde_mm_max_ps(a, b); }
MINK_INLINE vwm vw_cmpgt(vw a, vw b) { return simde_mm_cmpgt_ps(a, b); }
MINK_INLINE vw vw_select(vwm m, vw a, vw b) { return simde_mm_blendv_ps(b, a, m); }
MINK_INLINE vwm vw_and(vwm a, vwm b) { return simde_mm_and_ps(a, b); }
MINK_INLINE vwm vw_or(vwm a, vwm b) { return simde_mm_or_ps(a, b); }
MINK_INLINE int vw_any(vwm m) { return v4_any(m); }
MINK_INLINE int vw_all(vwm m) { return v4_all(m); }
MINK_INLINE vw vw_iota(void) { return simde_mm_set_ps(3, 2, 1, 0); }
#endif

/* a*b + c, rounded twice (deterministic across FMA and non-FMA targets). */
MINK_INLINE vw vw_madd(vw a, vw b, vw c) { return vw_add(vw_mul(a, b), c); }
/* a*b + c fused where the target has FMA (one rounding), else vw_madd:
 * explicit, so results depend on the build's backend, never on the
 * compiler's contraction choices. Used in scans, where only the order of
 * candidates matters. */
#if MINK_W_LANES == 16
MINK_INLINE vw vw_fma(vw a, vw b, vw c) { return simde_mm512_fmadd_ps(a, b, c); }
#elif MINK_W_LANES == 8 && defined(__FMA__)
MINK_INLINE vw vw_fma(vw a, vw b, vw c) { return simde_mm256_fmadd_ps(a, b, c); }
#else
MINK_INLINE vw vw_fma(vw a, vw b, vw c) { return vw_madd(a, b, c); }
#endif

/* More wide operations (used by the lane-parallel batch kernels):
 *   vw_div, vw_sqrt   - IEEE division and square root, per lane
 *   vw_abs            - |a| (sign bit cleared)
 *   vw_cmpge          - a >= b (ordered: false when either is NaN)
 *   vw_andnot(a, b)   - a AND NOT b (note the order: the second operand is
 *                       complemented, unlike the SSE intrinsic)
 *   vw_xor            - bitwise exclusive or (flips sign bits with -0.0f) */
#if MINK_W_LANES == 16
MINK_INLINE vw vw_div(vw a, vw b) { return simde_mm512_div_ps(a, b); }
MINK_INLINE vw vw_sqrt(vw a) { return simde_mm512_sqrt_ps(a); }
MINK_INLINE vwm vw_cmpge(vw a, vw b)
{
    return simde_mm512_castsi512_ps(simde_mm512_movm_epi32(simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GE_OQ)));
}
MINK_INLINE vwm vw_andnot(vwm a, vwm b) { return simde_mm512_castsi512_ps(simde_mm512_andnot_si512(simde_mm512_castps_si512(b), simde_mm512_castps_si512(a))); }
MINK_INLINE vwm vw_xor(vwm a, vwm b) { return simde_mm512_castsi512_ps(simde_mm512_xor_si512(simde_mm512_castps_si512(a), simde_mm512_castps_si512(b))); }
#elif MINK_W_LANES == 8
MINK_INLINE vw vw_div(vw a, vw b) { return simde_mm256_div_ps(a, b); }
MINK_INLINE vw vw_sqrt(vw a) { return simde_mm256_sqrt_ps(a); }
MINK_INLINE vwm vw_cmpge(vw a, vw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
MINK_INLINE vwm vw_andnot(vwm a, vwm b) { return simde_mm256_andnot_ps(b, a); }
MINK_INLINE vwm vw_xor(vwm a, vwm b) { return simde_mm256_xor_ps(a, b); }
#else
MINK_INLINE vw vw_div(vw a, vw b) { return simde_mm_div_ps(a, b); }
MINK_INLINE vw vw_sqrt(vw a) { return simde_mm_sqrt_ps(a); }
MINK_INLINE vwm vw_cmpge(vw a, vw b) { return simde_mm_cmpge_ps(a, b); }
MINK_INLINE vwm vw_andnot(vwm a, vwm b) { return simde_mm_andnot_ps(b, a); }
MINK_INLINE vwm vw_xor(vwm a, vwm b) { return simde_mm_xor_ps(a, b); }
#endif
MINK_INLINE vw vw_abs(vw a) { return vw_andnot(a, vw_splat(-0.0f)); }

/* 1 if no lane of the mask is set. Correct on every backend: SIMDe 0.7.4's
 * portable simde_mm_testz_si128 (behind v4_any, and vw_any at 4 lanes)
 * answers 1 as soon as either 64-bit half of a & b is zero, so under
 * MINK_SIMD=portable v4_any misses a mask whose set lanes all sit in one
 * half; this predicate goes through simde_mm_test_all_ones instead (a
 * reduction over the 32-bit lanes there, native elsewhere). */
#if MINK_W_LANES == 16
MINK_INLINE int vw_none(vwm m) { return simde_mm512_movepi32_mask(simde_mm512_castps_si512(m)) == 0; }
#elif MINK_W_LANES == 8
MINK_INLINE int vw_none(vwm m) { return simde_mm256_testz_ps(m, m); }
#else
MINK_INLINE int vw_none(vwm m)
{
    const simde__m128i i = simde_mm_castps_si128(m);
    return simde_mm_test_all_ones(simde_mm_xor_si128(i, simde_mm_cmpeq_epi32(i, i)));
}
#endif

/* Horizontal max with index: the largest lane of `value` and, among equal
 * maxima, the smallest `index` (indices held as exact floats < 2^24).
 * Reduced with lane shuffles: no store, no data-dependent branch. */
#if MINK_W_LANES == 16
MINK_INLINE v4 vw_fold_max(vw a)
{
    const simde__m256 m = simde_mm256_max_ps(simde_mm512_castps512_ps256(a), simde_mm256_castpd_ps(simde_mm512_extractf64x4_pd(simde_mm512_castps_pd(a), 1)));
    return simde_mm_max_ps(simde_mm256_castps256_ps128(m), simde_mm256_extractf128_ps(m, 1));
}
MINK_INLINE v4 vw_fold_min(vw a)
{
    const simde__m256 m = simde_mm256_min_ps(simde_mm512_castps512_ps256(a), simde_mm256_castpd_ps(simde_mm512_extractf64x4_pd(simde_mm512_castps_pd(a), 1)));
    return simde_mm_min_ps(simde_mm256_castps256_ps128(m), simde_mm256_extractf128_ps(m, 1));
}
MINK_INLINE vwm vw_cmpeq(vw a, vw b)
{
    return simde_mm512_castsi512_ps(simde_mm512_movm_epi32(simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ)));
}
MINK_INLINE vw vw_from_v4(v4 a) { return simde_mm512_broadcast_f32x4(a); }
#elif MINK_W_LANES == 8
MINK_INLINE v4 vw_fold_max(vw a) { return simde_mm_max_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1)); }
MINK_INLINE v4 vw_fold_min(vw a) { return simde_mm_min_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1)); }
MINK_INLINE vwm vw_cmpeq(vw a, vw b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ); }
MINK_INLINE vw vw_from_v4(v4 a) { return simde_mm256_set_m128(a, a); }
#else
MINK_INLINE v4 vw_fold_max(vw a) { return a; }
MINK_INLINE v4 vw_fold_min(vw a) { return a; }
MINK_INLINE vwm vw_cmpeq(vw a, vw b) { return simde_mm_cmpeq_ps(a, b); }
MINK_INLINE vw vw_from_v4(v4 a) { return a; }
#endif

/* Lanes of the aligned array p (MINK_W_LANES of them) that equal x, as a
 * mask: integer equality, for ids kept alongside float lanes. */
#if MINK_W_LANES == 16
MINK_INLINE vwm vw_cmpeq_u32(const uint32_t *p, uint32_t x)
{
    const simde__mmask16 m = simde_mm512_cmpeq_epi32_mask(simde_mm512_load_si512(p), simde_mm512_set1_epi32((int32_t)x));
    return simde_mm512_castsi512_ps(simde_mm512_movm_epi32(m));
}
#elif MINK_W_LANES == 8
MINK_INLINE vwm vw_cmpeq_u32(const uint32_t *p, uint32_t x)
{
    return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(simde_mm256_load_si256((const simde__m256i *)p), simde_mm256_set1_epi32((int32_t)x)));
}
#else
MINK_INLINE vwm vw_cmpeq_u32(const uint32_t *p, uint32_t x)
{
    return simde_mm_castsi128_ps(simde_mm_cmpeq_epi32(simde_mm_load_si128((const simde__m128i *)p), simde_mm_set1_epi32((int32_t)x)));
}
#endif

/* ------------------------------------------------------------ narrow scans */

/* vn - MINK_N_LANES floats, for scans of short arrays (hulls of up to
 * MINK_NARROW_SCAN_POINTS points, EPA's first faces): 8 with AVX-512, vw
 * itself elsewhere. On such arrays AVX-512's 16 lanes are largely padding,
 * each reduction takes one step more, and on Zen 4 (which runs them as
 * two halves) they add no throughput: its scans were 1-6 % slower than
 * AVX2's on hulls of 8 to 128 points, and EPA up to 5 % slower. */
#if MINK_W_LANES == 16
#define MINK_N_LANES 8
/* 16 lanes were as fast at 256 points and 4-8 % faster from 384 (distance
 * queries, Zen 4, the 1024-point hulls of bench.cases cut to each size). */
#define MINK_NARROW_SCAN_POINTS 256
typedef simde__m256 vn;
MINK_INLINE vn vn_load(const float *p) { return simde_mm256_load_ps(p); }
MINK_INLINE void vn_store(float *p, vn a) { simde_mm256_store_ps(p, a); }
MINK_INLINE vn vn_splat(float s) { return simde_mm256_set1_ps(s); }
MINK_INLINE vn vn_mul(vn a, vn b) { return simde_mm256_mul_ps(a, b); }
MINK_INLINE vn vn_fma(vn a, vn b, vn c) { return simde_mm256_fmadd_ps(a, b, c); } /* fused, as vw_fma here */
MINK_INLINE vn vn_max(vn a, vn b) { return simde_mm256_max_ps(a, b); }
MINK_INLINE vn vn_min(vn a, vn b) { return simde_mm256_min_ps(a, b); }
MINK_INLINE v4 vn_fold_max(vn a) { return simde_mm_max_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1)); }
MINK_INLINE v4 vn_fold_min(vn a) { return simde_mm_min_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1)); }
MINK_INLINE vn vn_from_v4(v4 a) { return simde_mm256_set_m128(a, a); }
MINK_INLINE vn vn_add(vn a, vn b) { return simde_mm256_add_ps(a, b); }
MINK_INLINE vn vn_iota(void) { return simde_mm256_set_ps(7, 6, 5, 4, 3, 2, 1, 0); }
/* as vw_select_gt and vw_select_eq: blends by the compare's mask register */
MINK_INLINE vn vn_select_gt(vn a, vn b, vn x, vn y) { return simde_mm256_mask_blend_ps(simde_mm256_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ), y, x); }
MINK_INLINE vn vn_select_eq(vn a, vn b, vn x, vn y) { return simde_mm256_mask_blend_ps(simde_mm256_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ), y, x); }
#else
#define MINK_N_LANES MINK_W_LANES
typedef vw vn;
MINK_INLINE vn vn_load(const float *p) { return vw_load(p); }
MINK_INLINE void vn_store(float *p, vn a) { vw_store(p, a); }
MINK_INLINE vn vn_splat(float s) { return vw_splat(s); }
MINK_INLINE vn vn_mul(vn a, vn b) { return vw_mul(a, b); }
MINK_INLINE vn vn_fma(vn a, vn b, vn c) { return vw_fma(a, b, c); }
MINK_INLINE vn vn_max(vn a, vn b) { return vw_max(a, b); }
MINK_INLINE vn vn_min(vn a, vn b) { return vw_min(a, b); }
MINK_INLINE v4 vn_fold_max(vn a) { return vw_fold_max(a); }
MINK_INLINE v4 vn_fold_min(vn a) { return vw_fold_min(a); }
MINK_INLINE vn vn_from_v4(v4 a) { return vw_from_v4(a); }
MINK_INLINE vn vn_add(vn a, vn b) { return vw_add(a, b); }
MINK_INLINE vn vn_iota(void) { return vw_iota(); }
#endif

/* Max of the four lanes, in every lane. */
MINK_INLINE v4 v4_hmax_splat(v4 a)
{
    const v4 m = simde_mm_max_ps(a, simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return simde_mm_max_ps(m, simde_mm_shuffle_ps(m, m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
}
MINK_INLINE v4 v4_hmin_splat(v4 a)
{
    const v4 m = simde_mm_min_ps(a, simde_mm_shuffle_ps(a, a, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return simde_mm_min_ps(m, simde_mm_shuffle_ps(m, m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
}

/* The mask as bits, bit i set iff lane i is (movemask on x86; the lanes'
 * weights summed elsewhere). */
#if MINK_W_LANES == 16
MINK_INLINE uint32_t vw_mask_bits(vwm m) { return (uint32_t)simde_mm512_movepi32_mask(simde_mm512_castps_si512(m)); }
#elif MINK_W_LANES == 8
MINK_INLINE uint32_t vw_mask_bits(vwm m) { return (uint32_t)simde_mm256_movemask_ps(m); }
#else
MINK_INLINE uint32_t vw_mask_bits(vwm m) { return v4_mask_bits(m); }
#endif

/* Four masks' bits in one word, bit g * MINK_W_LANES + i set iff lane i of
 * mask g is (lanes of four lane-widths in scan order). With AVX2, four
 * movemasks side by side: packing to bytes for one movemask (and putting
 * AVX2's 128-bit halves back in order) took a longer chain, 3 % of a
 * 32-point hull's GJK query. With SSE the masks are packed to bytes. */
#if MINK_W_LANES == 8
MINK_INLINE uint64_t vw_mask_bits4(vwm m0, vwm m1, vwm m2, vwm m3)
{
    return (uint32_t)simde_mm256_movemask_ps(m0) | (uint32_t)simde_mm256_movemask_ps(m1) << 8 |
           (uint32_t)simde_mm256_movemask_ps(m2) << 16 | (uint32_t)simde_mm256_movemask_ps(m3) << 24;
}
#elif MINK_W_LANES == 4 && defined(SIMDE_X86_SSE2_NATIVE)
MINK_INLINE uint64_t vw_mask_bits4(vwm m0, vwm m1, vwm m2, vwm m3)
{
    const simde__m128i p01 = simde_mm_packs_epi32(simde_mm_castps_si128(m0), simde_mm_castps_si128(m1));
    const simde__m128i p23 = simde_mm_packs_epi32(simde_mm_castps_si128(m2), simde_mm_castps_si128(m3));
    return (uint32_t)simde_mm_movemask_epi8(simde_mm_packs_epi16(p01, p23));
}
#else
MINK_INLINE uint64_t vw_mask_bits4(vwm m0, vwm m1, vwm m2, vwm m3)
{
    return (uint64_t)vw_mask_bits(m0) | (uint64_t)vw_mask_bits(m1) << MINK_W_LANES |
           (uint64_t)vw_mask_bits(m2) << 2 * MINK_W_LANES | (uint64_t)vw_mask_bits(m3) << 3 * MINK_W_LANES;
}
#endif

/* x where a > b (a == b), else y: AVX-512 blends by the compare's mask
 * register itself, not through a vector mask and back. */
#if MINK_W_LANES == 16
MINK_INLINE vw vw_select_gt(vw a, vw b, vw x, vw y) { return simde_mm512_mask_blend_ps(simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ), y, x); }
MINK_INLINE vw vw_select_eq(vw a, vw b, vw x, vw y) { return simde_mm512_mask_blend_ps(simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ), y, x); }
#else
MINK_INLINE vw vw_select_gt(vw a, vw b, vw x, vw y) { return vw_select(vw_cmpgt(a, b), x, y); }
MINK_INLINE vw vw_select_eq(vw a, vw b, vw x, vw y) { return vw_select(vw_cmpeq(a, b), x, y); }
#endif

/* Lanes of a equal to b as bits (bit i for lane i), and the same over
 * four lane-widths in scan order (bit g * MINK_W_LANES + i). AVX-512
 * takes them straight from the compare's mask register: through a vector
 * mask and back cost two steps more per compare. */
#if MINK_W_LANES == 16
MINK_INLINE uint32_t vw_eq_bits(vw a, vw b) { return (uint32_t)simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ); }
MINK_INLINE uint64_t vw_eq_bits4(vw a0, vw a1, vw a2, vw a3, vw b)
{
    return (uint64_t)vw_eq_bits(a0, b) | (uint64_t)vw_eq_bits(a1, b) << 16 | (uint64_t)vw_eq_bits(a2, b) << 32 |
           (uint64_t)vw_eq_bits(a3, b) << 48;
}
#else
MINK_INLINE uint32_t vw_eq_bits(vw a, vw b) { return vw_mask_bits(vw_cmpeq(a, b)); }
MINK_INLINE uint64_t vw_eq_bits4(vw a0, vw a1, vw a2, vw a3, vw b)
{
    return vw_mask_bits4(vw_cmpeq(a0, b), vw_cmpeq(a1, b), vw_cmpeq(a2, b), vw_cmpeq(a3, b));
}
#endif

#if MINK_N_LANES == MINK_W_LANES
MINK_INLINE vn vn_select_gt(vn a, vn b, vn x, vn y) { return vw_select_gt(a, b, x, y); }
MINK_INLINE vn vn_select_eq(vn a, vn b, vn x, vn y) { return vw_select_eq(a, b, x, y); }
#endif

/* vw_eq_bits and vw_eq_bits4 for vn lanes (bit g * MINK_N_LANES + i) */
#if MINK_N_LANES < MINK_W_LANES
MINK_INLINE uint32_t vn_eq_bits(vn a, vn b) { return (uint32_t)simde_mm256_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ); }
MINK_INLINE uint64_t vn_eq_bits4(vn a0, vn a1, vn a2, vn a3, vn b)
{
    return vn_eq_bits(a0, b) | vn_eq_bits(a1, b) << 8 | vn_eq_bits(a2, b) << 16 | vn_eq_bits(a3, b) << 24;
}
#else
MINK_INLINE uint32_t vn_eq_bits(vn a, vn b) { return vw_eq_bits(a, b); }
MINK_INLINE uint64_t vn_eq_bits4(vn a0, vn a1, vn a2, vn a3, vn b) { return vw_eq_bits4(a0, a1, a2, a3, b); }
#endif

MINK_INLINE uint32_t vw_argmax(vw value, vw index, float *best)
{
    const v4 top = v4_hmax_splat(vw_fold_max(value));
    const vw candidates = vw_select(vw_cmpeq(value, vw_from_v4(top)), index, vw_splat(3.0e38f));
    *best = v4_x(top);
    return (uint32_t)v4_x(v4_hmin_splat(vw_fold_min(candidates)));
}

#endif
