/* The vector vocabulary of kernel/simd.h, lane by lane against scalar loops,
 * on whatever backend this build uses (sse41, avx2, avx512, neon, portable):
 * every build of the matrix runs it once. Then the hull scan that the
 * vocabulary exists for, end to end: simd_support_local against brute force
 * for hulls of 1..70 points (every padding remainder of every lane width),
 * its lowest-index tie rule, and mink_distance against the hull's support
 * function.
 *
 * Inputs are seeded and include -0, equal values, denormals and magnitudes
 * from 1e-18 to 1e18 (products and quotients stay finite, so no NaN appears
 * unless a test makes one on purpose). Arithmetic is compared bit for bit:
 * IEEE add/sub/mul/div are exact to the rounding on every backend, and the
 * build has -ffp-contract=off so the scalar loops do not fuse either. */
#include "test_util.h"

#include "simd.h"
#include "support.h"
#include "support_scan.h"

#define TRIALS 4000
#define W MINK_W_LANES

/* vw arrays must be 64-byte aligned for vw_load / vw_store. */
#define WALIGN _Alignas(64)

/* ---------------------------------------------------------------- inputs */

/* One float from a mix of classes that break vector code in different ways. */
static float rand_float(test_rng *r)
{
    const float sign = rng_below(r, 2) ? -1.0f : 1.0f;
    switch (rng_below(r, 10)) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return (float)((int)rng_below(r, 7) - 3); /* small integers: ties, exact sums */
    case 3: return sign * 1.0e-40f;                   /* denormal */
    case 4: return sign * 1.0e18f;
    case 5: return sign * 1.0e-18f;
    default: return sign * (float)(rng_range(r, 1.0, 10.0) * pow(10.0, (double)rng_below(r, 37) - 18.0));
    }
}

/* A second operand: often equal to the first, or its negation, so that
 * compares, min/max and select see ties and +0 vs -0. */
static float rand_partner(test_rng *r, float a)
{
    switch (rng_below(r, 6)) {
    case 0: return a;
    case 1: return -a;
    default: return rand_float(r);
    }
}

/* A divisor: no zero and no tiny value, so quotients stay finite. */
static float rand_divisor(test_rng *r)
{
    const float b = rand_float(r);
    return fabsf(b) < 1.0e-18f ? 1.5f : b;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---------------------------------------------------------------- checks */

/* Exact: the same bits (NaN never expected here). */
static void expect_same(const char *op, int lane, float got, float want)
{
    if (bits_of(got) != bits_of(want))
        fail_msg("%s lane %d [%s]: got %.9g (0x%08x), want %.9g (0x%08x)", op, lane, test_ctx_buf(),
                 (double)got, bits_of(got), (double)want, bits_of(want));
}

/* Equal as numbers: +0 and -0 both accepted. For min/max/neg, whose sign of
 * zero on ties differs between definitions (SSE returns the second operand,
 * IEEE minNum either) and which no caller depends on. */
static void expect_num(const char *op, int lane, float got, float want)
{
    if (!(got == want))
        fail_msg("%s lane %d [%s]: got %.9g (0x%08x), want %.9g (0x%08x)", op, lane, test_ctx_buf(),
                 (double)got, bits_of(got), (double)want, bits_of(want));
}

/* A mask lane is all ones or all zeros, and the predicate's value. */
static void expect_mask(const char *op, int lane, float got, int want)
{
    const uint32_t u = bits_of(got);
    if (u != 0xffffffffu && u != 0u)
        fail_msg("%s lane %d [%s]: mask lane 0x%08x is not all-bits", op, lane, test_ctx_buf(), u);
    if ((u != 0u) != (want != 0))
        fail_msg("%s lane %d [%s]: mask lane 0x%08x, want %s", op, lane, test_ctx_buf(), u, want ? "true" : "false");
}

/* A v4 mask from lane predicates: all-bits lanes written through memory, so
 * building it does not depend on the compares under test. */
static v4m v4_mask_of(unsigned bits)
{
    float f[4];
    for (int i = 0; i < 4; ++i) f[i] = float_of((bits >> i) & 1u ? 0xffffffffu : 0u);
    return v4_load(f);
}

static vwm vw_mask_of(uint32_t bits)
{
    WALIGN float f[W];
    for (int i = 0; i < W; ++i) f[i] = float_of((bits >> i) & 1u ? 0xffffffffu : 0u);
    return vw_load(f);
}

/* ---------------------------------------------------------------- the backend */

static void test_backend(void **state)
{
    (void)state;
    /* the lane count and the name agree (a build silently falling back to
     * a narrower backend shows up in the printed name) */
    if (strcmp(MINK_SIMD_NAME, "avx512") == 0) assert_int_equal(W, 16);
    else if (strcmp(MINK_SIMD_NAME, "avx2") == 0) assert_int_equal(W, 8);
    else assert_int_equal(W, 4);
    assert_int_equal(sizeof(vw), (size_t)W * sizeof(float));
    assert_int_equal(sizeof(v4), 4 * sizeof(float));
    /* the library runs the backend this executable was compiled for: the
     * one width of a single-width build; in the dispatch build this copy
     * (test_simd_<backend>) runs with MINK_SIMD_BACKEND=<backend> */
    assert_string_equal(mink_simd_backend(), MINK_SIMD_NAME);
}

/* ---------------------------------------------------------------- v4 */

static void test_v4_lanes(void **state)
{
    (void)state;
    test_rng r = rng_seed(1);
    for (int t = 0; t < TRIALS; ++t) {
        float a[4], out[4];
        for (int i = 0; i < 4; ++i) a[i] = rand_float(&r);
        test_ctx("trial %d a = (%g %g %g %g)", t, (double)a[0], (double)a[1], (double)a[2], (double)a[3]);
        const v4 va = v4_load(a);
        v4_store(out, va);
        for (int i = 0; i < 4; ++i) expect_same("v4_load/store", i, out[i], a[i]);
        v4_store(out, v4_set(a[0], a[1], a[2], a[3]));
        for (int i = 0; i < 4; ++i) expect_same("v4_set", i, out[i], a[i]);
        expect_same("v4_x", 0, v4_x(va), a[0]);
        expect_same("v4_y", 1, v4_y(va), a[1]);
        expect_same("v4_z", 2, v4_z(va), a[2]);
        expect_same("v4_w", 3, v4_w(va), a[3]);
        v4_store(out, v4_splat(a[1]));
        for (int i = 0; i < 4; ++i) expect_same("v4_splat", i, out[i], a[1]);
        v4_store(out, v4_splat_x(va));
        for (int i = 0; i < 4; ++i) expect_same("v4_splat_x", i, out[i], a[0]);
        v4_store(out, v4_splat_y(va));
        for (int i = 0; i < 4; ++i) expect_same("v4_splat_y", i, out[i], a[1]);
        v4_store(out, v4_splat_z(va));
        for (int i = 0; i < 4; ++i) expect_same("v4_splat_z", i, out[i], a[2]);
        /* xyz keeps three lanes and writes +0 in the pad */
        const v4 vb = v4_set(a[3], a[2], a[1], a[0]);
        v4_store(out, v4_shuffle(va, vb, 3, 1, 0, 2));
        expect_same("v4_shuffle", 0, out[0], a[3]);
        expect_same("v4_shuffle", 1, out[1], a[1]);
        expect_same("v4_shuffle", 2, out[2], a[3]);
        expect_same("v4_shuffle", 3, out[3], a[1]);
        v4_store(out, v4_shuffle(va, vb, 0, 2, 3, 1));
        expect_same("v4_shuffle", 0, out[0], a[0]);
        expect_same("v4_shuffle", 1, out[1], a[2]);
        expect_same("v4_shuffle", 2, out[2], a[0]);
        expect_same("v4_shuffle", 3, out[3], a[2]);
        v4_store(out, v4_xyz(va));
        for (int i = 0; i < 3; ++i) expect_same("v4_xyz", i, out[i], a[i]);
        expect_same("v4_xyz", 3, out[3], 0.0f);
    }
    float out[4];
    v4_store(out, v4_zero());
    for (int i = 0; i < 4; ++i) expect_same("v4_zero", i, out[i], 0.0f);
}

static void test_v4_arith(void **state)
{
    (void)state;
    test_rng r = rng_seed(2);
    for (int t = 0; t < TRIALS; ++t) {
        float a[4], b[4], c[4], q[4], out[4];
        for (int i = 0; i < 4; ++i) {
            a[i] = rand_float(&r);
            b[i] = rand_partner(&r, a[i]);
            c[i] = rand_partner(&r, a[i]);
            q[i] = rand_divisor(&r);
        }
        test_ctx("trial %d a = (%g %g %g %g) b = (%g %g %g %g) c = (%g %g %g %g)", t, (double)a[0],
                 (double)a[1], (double)a[2], (double)a[3], (double)b[0], (double)b[1], (double)b[2],
                 (double)b[3], (double)c[0], (double)c[1], (double)c[2], (double)c[3]);
        const v4 va = v4_load(a), vb = v4_load(b), vc = v4_load(c), vq = v4_load(q);
        v4_store(out, v4_add(va, vb));
        for (int i = 0; i < 4; ++i) expect_same("v4_add", i, out[i], a[i] + b[i]);
        v4_store(out, v4_sub(va, vb));
        for (int i = 0; i < 4; ++i) expect_same("v4_sub", i, out[i], a[i] - b[i]);
        v4_store(out, v4_mul(va, vb));
        for (int i = 0; i < 4; ++i) expect_same("v4_mul", i, out[i], a[i] * b[i]);
        v4_store(out, v4_div(va, vq));
        for (int i = 0; i < 4; ++i) expect_same("v4_div", i, out[i], a[i] / q[i]);
        v4_store(out, v4_sqrt(v4_max(va, v4_neg(va))));
        for (int i = 0; i < 4; ++i) expect_same("v4_sqrt", i, out[i], sqrtf(fabsf(a[i])));
        v4_store(out, v4_scale(va, b[0]));
        for (int i = 0; i < 4; ++i) expect_same("v4_scale", i, out[i], a[i] * b[0]);
        /* madd rounds twice on every backend: never a fused result */
        v4_store(out, v4_madd(va, vb, vc));
        for (int i = 0; i < 4; ++i) {
            const float p = a[i] * b[i];
            expect_same("v4_madd", i, out[i], p + c[i]);
        }
        v4_store(out, v4_neg(va));
        for (int i = 0; i < 4; ++i) expect_num("v4_neg", i, out[i], -a[i]);
        v4_store(out, v4_min(va, vb));
        for (int i = 0; i < 4; ++i) expect_num("v4_min", i, out[i], a[i] < b[i] ? a[i] : b[i]);
        v4_store(out, v4_max(va, vb));
        for (int i = 0; i < 4; ++i) expect_num("v4_max", i, out[i], a[i] > b[i] ? a[i] : b[i]);
    }
}

/* The documented fixed order of every horizontal sum: (l0 + l1) + (l2 + l3).
 * The same order on every backend makes sums bit-identical across builds. */
static float pair_sum(const float *l) { return (l[0] + l[1]) + (l[2] + l[3]); }

static void test_v4_horizontal(void **state)
{
    (void)state;
    test_rng r = rng_seed(3);
    for (int t = 0; t < TRIALS; ++t) {
        float a[4], b[4], c[4], d[4], out[4];
        for (int i = 0; i < 4; ++i) {
            a[i] = rand_float(&r);
            b[i] = rand_partner(&r, a[i]);
            c[i] = rand_float(&r);
            d[i] = rand_partner(&r, c[i]);
        }
        test_ctx("trial %d a = (%g %g %g %g) b = (%g %g %g %g)", t, (double)a[0], (double)a[1], (double)a[2],
                 (double)a[3], (double)b[0], (double)b[1], (double)b[2], (double)b[3]);
        const v4 va = v4_load(a), vb = v4_load(b), vc = v4_load(c), vd = v4_load(d);

        v4_store(out, v4_hsum_splat(va));
        for (int i = 0; i < 4; ++i) expect_same("v4_hsum_splat", i, out[i], pair_sum(a));

        v4_store(out, v4_hsum4(va, vb, vc, vd));
        expect_same("v4_hsum4", 0, out[0], pair_sum(a));
        expect_same("v4_hsum4", 1, out[1], pair_sum(b));
        expect_same("v4_hsum4", 2, out[2], pair_sum(c));
        expect_same("v4_hsum4", 3, out[3], pair_sum(d));

        float hi = a[0], lo = a[0];
        for (int i = 1; i < 4; ++i) {
            hi = a[i] > hi ? a[i] : hi;
            lo = a[i] < lo ? a[i] : lo;
        }
        v4_store(out, v4_hmax_splat(va));
        for (int i = 0; i < 4; ++i) expect_num("v4_hmax_splat", i, out[i], hi);
        v4_store(out, v4_hmin_splat(va));
        for (int i = 0; i < 4; ++i) expect_num("v4_hmin_splat", i, out[i], lo);

        /* dot products of points: pad lanes zero, so 4 lanes = 3 lanes */
        a[3] = b[3] = 0.0f;
        const v4 pa = v4_load(a), pb = v4_load(b);
        float prod[4];
        for (int i = 0; i < 4; ++i) prod[i] = a[i] * b[i];
        const float dot = pair_sum(prod);
        v4_store(out, v4_dot_splat(pa, pb));
        for (int i = 0; i < 4; ++i) expect_same("v4_dot_splat", i, out[i], dot);
        expect_same("v4_dot", 0, v4_dot(pa, pb), dot);
        for (int i = 0; i < 4; ++i) prod[i] = a[i] * a[i];
        expect_same("v4_len2", 0, v4_len2(pa), pair_sum(prod));
        /* and the 3-lane sum it stands for, within rounding */
        const double exact = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
        const double mag = fabs((double)a[0] * b[0]) + fabs((double)a[1] * b[1]) + fabs((double)a[2] * b[2]);
        EXPECT_NEAR(dot, exact, 2.0 * FLT_EPSILON * mag + 1e-44);

        /* cross product: exact per component, pad lane zero */
        v4_store(out, v4_cross(pa, pb));
        expect_same("v4_cross", 0, out[0], a[1] * b[2] - a[2] * b[1]);
        expect_same("v4_cross", 1, out[1], a[2] * b[0] - a[0] * b[2]);
        expect_same("v4_cross", 2, out[2], a[0] * b[1] - a[1] * b[0]);
        expect_num("v4_cross", 3, out[3], 0.0f);
    }
}

static void test_v4_masks(void **state)
{
    (void)state;
    test_rng r = rng_seed(4);
    for (int t = 0; t < TRIALS; ++t) {
        float a[4], b[4], out[4];
        for (int i = 0; i < 4; ++i) {
            a[i] = rand_float(&r);
            b[i] = rand_partner(&r, a[i]);
        }
        test_ctx("trial %d a = (%g %g %g %g) b = (%g %g %g %g)", t, (double)a[0], (double)a[1], (double)a[2],
                 (double)a[3], (double)b[0], (double)b[1], (double)b[2], (double)b[3]);
        const v4 va = v4_load(a), vb = v4_load(b);
        const v4m gt = v4_cmpgt(va, vb), ge = v4_cmpge(va, vb), eq = v4_cmpeq(va, vb);
        unsigned gt_bits = 0, eq_bits = 0;
        v4_store(out, gt);
        for (int i = 0; i < 4; ++i) {
            expect_mask("v4_cmpgt", i, out[i], a[i] > b[i]);
            gt_bits |= (unsigned)(a[i] > b[i]) << i;
        }
        v4_store(out, ge);
        for (int i = 0; i < 4; ++i) expect_mask("v4_cmpge", i, out[i], a[i] >= b[i]);
        v4_store(out, eq);
        for (int i = 0; i < 4; ++i) {
            expect_mask("v4_cmpeq", i, out[i], a[i] == b[i]);
            eq_bits |= (unsigned)(a[i] == b[i]) << i;
        }
        /* and/or of compare results stay all-bits */
        v4_store(out, v4_and(gt, ge));
        for (int i = 0; i < 4; ++i) expect_mask("v4_and", i, out[i], a[i] > b[i]);
        v4_store(out, v4_or(gt, eq));
        for (int i = 0; i < 4; ++i) expect_mask("v4_or", i, out[i], a[i] >= b[i]);
        v4_store(out, v4_andnot(eq, ge)); /* ~(a == b) & (a >= b) */
        for (int i = 0; i < 4; ++i) expect_mask("v4_andnot", i, out[i], a[i] > b[i]);
        EXPECT_INT(v4_any(gt), gt_bits != 0);
        EXPECT_INT(v4_all(eq), eq_bits == 15u);
        /* select takes whole lanes, bit for bit */
        v4_store(out, v4_select(gt, va, vb));
        for (int i = 0; i < 4; ++i) expect_same("v4_select", i, out[i], a[i] > b[i] ? a[i] : b[i]);
    }
    /* every lane pattern through and/or/any/all/select */
    const v4 one = v4_set(1.0f, 2.0f, 3.0f, 4.0f), two = v4_set(-1.0f, -2.0f, -3.0f, -0.0f);
    const float one_l[4] = {1.0f, 2.0f, 3.0f, 4.0f}, two_l[4] = {-1.0f, -2.0f, -3.0f, -0.0f};
    for (unsigned m = 0; m < 16; ++m) {
        for (unsigned k = 0; k < 16; ++k) {
            float out[4];
            test_ctx("masks 0x%x 0x%x", m, k);
            v4_store(out, v4_and(v4_mask_of(m), v4_mask_of(k)));
            for (int i = 0; i < 4; ++i) expect_mask("v4_and", i, out[i], (m & k) >> i & 1u);
            v4_store(out, v4_or(v4_mask_of(m), v4_mask_of(k)));
            for (int i = 0; i < 4; ++i) expect_mask("v4_or", i, out[i], (m | k) >> i & 1u);
            /* every lane of k set in m */
            EXPECT_INT(v4_all_in(v4_mask_of(m), v4_mask_of(k)), (k & ~m) == 0);
        }
        test_ctx("mask 0x%x", m);
        EXPECT_INT(v4_any(v4_mask_of(m)), m != 0);
        EXPECT_INT(v4_all(v4_mask_of(m)), m == 15u);
        float out[4];
        v4_store(out, v4_select(v4_mask_of(m), one, two));
        for (int i = 0; i < 4; ++i) expect_same("v4_select", i, out[i], (m >> i & 1u) ? one_l[i] : two_l[i]);
    }
    /* v4_blend takes a constant: the four single-lane ones the kernel uses,
     * and two more */
    const unsigned blends[6] = {1, 2, 4, 8, 5, 14};
    for (unsigned k = 0; k < 6; ++k) {
        float out[4];
        test_ctx("blend 0x%x", blends[k]);
        switch (blends[k]) {
        case 1: v4_store(out, v4_blend(two, one, 1)); break;
        case 2: v4_store(out, v4_blend(two, one, 2)); break;
        case 4: v4_store(out, v4_blend(two, one, 4)); break;
        case 8: v4_store(out, v4_blend(two, one, 8)); break;
        case 5: v4_store(out, v4_blend(two, one, 5)); break;
        default: v4_store(out, v4_blend(two, one, 14)); break;
        }
        for (int i = 0; i < 4; ++i) expect_same("v4_blend", i, out[i], (blends[k] >> i & 1u) ? one_l[i] : two_l[i]);
    }
}

/* The bookkeeping operations of the kernel's hot loops: mask to bits
 * (box corners), the 3x3 transpose (R^T from R), the 16-byte id stores. */
static void test_v4_bookkeeping(void **state)
{
    (void)state;
    for (unsigned m = 0; m < 16; ++m) {
        test_ctx("mask 0x%x", m);
        EXPECT_INT(v4_mask_bits(v4_mask_of(m)), m);
    }
    test_rng r = rng_seed(11);
    for (int t = 0; t < TRIALS; ++t) {
        float m[3][4], out[4];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) m[i][j] = rand_float(&r);
            m[i][3] = 0.0f;
        }
        test_ctx("trial %d", t);
        /* the aligned load and store move the four lanes as they are */
        _Alignas(16) float aligned[4], back[4];
        memcpy(aligned, m[0], sizeof aligned);
        v4_store_aligned(back, v4_load_aligned(aligned));
        for (int i = 0; i < 4; ++i) expect_same("v4_load_aligned/v4_store_aligned", i, back[i], m[0][i]);
        const v4 rows[3] = {v4_load(m[0]), v4_load(m[1]), v4_load(m[2])};
        v4 cols[3];
        v4_transpose3(rows, cols);
        for (int j = 0; j < 3; ++j) {
            v4_store(out, cols[j]);
            for (int i = 0; i < 3; ++i) expect_same("v4_transpose3", i, out[i], m[i][j]);
            expect_same("v4_transpose3 pad", 3, out[3], 0.0f);
        }
        /* four points as x, y, z rows; then per lane cross products, bit for
         * bit v4_cross's, and dot products summed (x + y) + z */
        float p[4][4], q[4][4];
        for (int k = 0; k < 4; ++k) {
            for (int i = 0; i < 3; ++i) {
                p[k][i] = rand_float(&r);
                q[k][i] = rand_partner(&r, p[k][i]);
            }
            p[k][3] = q[k][3] = 0.0f;
        }
        const v4 pv[4] = {v4_load(p[0]), v4_load(p[1]), v4_load(p[2]), v4_load(p[3])};
        const v4 qv[4] = {v4_load(q[0]), v4_load(q[1]), v4_load(q[2]), v4_load(q[3])};
        v4 pr[3], qr[3], cr[3];
        v4_transpose_points(pv, pr);
        v4_transpose_points(qv, qr);
        for (int i = 0; i < 3; ++i) {
            v4_store(out, pr[i]);
            for (int k = 0; k < 4; ++k) expect_same("v4_transpose_points", k, out[k], p[k][i]);
        }
        /* and back: the four points, pad lanes zero */
        v4 back_pts[4];
        v4_transpose_rows(pr, back_pts);
        for (int k = 0; k < 4; ++k) {
            v4_store(out, back_pts[k]);
            for (int i = 0; i < 3; ++i) expect_same("v4_transpose_rows", i, out[i], p[k][i]);
            expect_same("v4_transpose_rows pad", 3, out[3], 0.0f);
        }
        v4_cross_rows(pr, qr, cr);
        float dots[4];
        v4_store(dots, v4_dot_rows(pr, qr));
        for (int k = 0; k < 4; ++k) {
            float want[4];
            v4_store(want, v4_cross(pv[k], qv[k]));
            for (int i = 0; i < 3; ++i) {
                v4_store(out, cr[i]);
                expect_same("v4_cross_rows", k, out[k], want[i]);
            }
            expect_same("v4_dot_rows", k, dots[k], (p[k][0] * q[k][0] + p[k][1] * q[k][1]) + p[k][2] * q[k][2]);
        }
        uint32_t ids[6] = {7, 7, 7, 7, 7, 7};
        const uint32_t a = rng_below(&r, 1u << 24), b = rng_below(&r, 1u << 24);
        u32x4_store(ids + 1, a, b, 0, 0xffffffffu); /* unaligned on purpose */
        EXPECT_INT(ids[0], 7);
        EXPECT_INT(ids[1], a);
        EXPECT_INT(ids[2], b);
        EXPECT_INT(ids[3], 0);
        EXPECT_INT(ids[4], 0xffffffffu);
        EXPECT_INT(ids[5], 7);
        u32x2_store_zero_hi(ids + 1, b, a); /* the vertex ids' store: (b, a, 0, 0) */
        EXPECT_INT(ids[0], 7);
        EXPECT_INT(ids[1], b);
        EXPECT_INT(ids[2], a);
        EXPECT_INT(ids[3], 0);
        EXPECT_INT(ids[4], 0);
        EXPECT_INT(ids[5], 7);
    }
}

/* ---------------------------------------------------------------- vw */

static void test_vw_lanes(void **state)
{
    (void)state;
    test_rng r = rng_seed(5);
    WALIGN float a[W], b[W], c[W], out[W];
    /* iota: lane i holds i, exactly */
    vw_store(out, vw_iota());
    for (int i = 0; i < W; ++i) expect_same("vw_iota", i, out[i], (float)i);
    for (int t = 0; t < TRIALS; ++t) {
        for (int i = 0; i < W; ++i) {
            a[i] = rand_float(&r);
            b[i] = rand_partner(&r, a[i]);
            c[i] = rand_partner(&r, b[i]);
        }
        test_ctx("trial %d", t);
        const vw va = vw_load(a), vb = vw_load(b), vc = vw_load(c);
        vw_store(out, va);
        for (int i = 0; i < W; ++i) expect_same("vw_load/store", i, out[i], a[i]);
        vw_store(out, vw_splat(a[W - 1]));
        for (int i = 0; i < W; ++i) expect_same("vw_splat", i, out[i], a[W - 1]);
        vw_store(out, vw_add(va, vb));
        for (int i = 0; i < W; ++i) expect_same("vw_add", i, out[i], a[i] + b[i]);
        vw_store(out, vw_sub(va, vb));
        for (int i = 0; i < W; ++i) expect_same("vw_sub", i, out[i], a[i] - b[i]);
        vw_store(out, vw_mul(va, vb));
        for (int i = 0; i < W; ++i) expect_same("vw_mul", i, out[i], a[i] * b[i]);
        vw_store(out, vw_madd(va, vb, vc));
        for (int i = 0; i < W; ++i) {
            const float p = a[i] * b[i];
            expect_same("vw_madd", i, out[i], p + c[i]);
        }
        /* fma: fused where the backend has it, else madd; nothing else */
        vw_store(out, vw_fma(va, vb, vc));
        for (int i = 0; i < W; ++i) {
            const float p = a[i] * b[i];
            const float fused = fmaf(a[i], b[i], c[i]), twice = p + c[i];
            if (bits_of(out[i]) != bits_of(fused)) expect_same("vw_fma", i, out[i], twice);
        }
        vw_store(out, vw_min(va, vb));
        for (int i = 0; i < W; ++i) expect_num("vw_min", i, out[i], a[i] < b[i] ? a[i] : b[i]);
        vw_store(out, vw_max(va, vb));
        for (int i = 0; i < W; ++i) expect_num("vw_max", i, out[i], a[i] > b[i] ? a[i] : b[i]);

        /* from_v4 repeats the four lanes across the width */
        vw_store(out, vw_from_v4(v4_load(a)));
        for (int i = 0; i < W; ++i) expect_same("vw_from_v4", i, out[i], a[i % 4]);

        /* fold: lane j of the v4 is the max (min) of lanes j, j+4, j+8, ... */
        float fold[4];
        v4_store(fold, vw_fold_max(va));
        for (int j = 0; j < 4; ++j) {
            float m = a[j];
            for (int i = j + 4; i < W; i += 4) m = a[i] > m ? a[i] : m;
            expect_num("vw_fold_max", j, fold[j], m);
        }
        v4_store(fold, vw_fold_min(va));
        for (int j = 0; j < 4; ++j) {
            float m = a[j];
            for (int i = j + 4; i < W; i += 4) m = a[i] < m ? a[i] : m;
            expect_num("vw_fold_min", j, fold[j], m);
        }
    }
}

static void test_vw_masks(void **state)
{
    (void)state;
    test_rng r = rng_seed(6);
    WALIGN float a[W], b[W], out[W];
    for (int t = 0; t < TRIALS; ++t) {
        for (int i = 0; i < W; ++i) {
            a[i] = rand_float(&r);
            b[i] = rand_partner(&r, a[i]);
        }
        test_ctx("trial %d", t);
        const vw va = vw_load(a), vb = vw_load(b);
        const vwm gt = vw_cmpgt(va, vb), eq = vw_cmpeq(va, vb);
        uint32_t gt_bits = 0, eq_bits = 0;
        vw_store(out, gt);
        for (int i = 0; i < W; ++i) {
            expect_mask("vw_cmpgt", i, out[i], a[i] > b[i]);
            gt_bits |= (uint32_t)(a[i] > b[i]) << i;
        }
        vw_store(out, eq);
        for (int i = 0; i < W; ++i) {
            expect_mask("vw_cmpeq", i, out[i], a[i] == b[i]);
            eq_bits |= (uint32_t)(a[i] == b[i]) << i;
        }
        vw_store(out, vw_or(gt, eq));
        for (int i = 0; i < W; ++i) expect_mask("vw_or", i, out[i], a[i] >= b[i]);
        vw_store(out, vw_and(gt, eq));
        for (int i = 0; i < W; ++i) expect_mask("vw_and", i, out[i], 0);
        EXPECT_INT(vw_any(gt), gt_bits != 0);
        EXPECT_INT(vw_all(eq), eq_bits == (uint32_t)((1ull << W) - 1));
        vw_store(out, vw_select(gt, va, vb));
        for (int i = 0; i < W; ++i) expect_same("vw_select", i, out[i], a[i] > b[i] ? a[i] : b[i]);
    }
    /* any/all/select on every lane pattern (2^16 at most: cheap) */
    const uint32_t full = (uint32_t)((1ull << W) - 1);
    for (int i = 0; i < W; ++i) {
        a[i] = (float)(i + 1);
        b[i] = -(float)i; /* lane 0 holds -0 */
    }
    const vw va = vw_load(a), vb = vw_load(b);
    for (uint32_t m = 0; m <= full; ++m) {
        test_ctx("mask 0x%x", (unsigned)m);
        const vwm vm = vw_mask_of(m);
        EXPECT_INT(vw_any(vm), m != 0);
        EXPECT_INT(vw_all(vm), m == full);
        vw_store(out, vw_select(vm, va, vb));
        for (int i = 0; i < W; ++i) expect_same("vw_select", i, out[i], (m >> i & 1u) ? a[i] : b[i]);
        const uint32_t k = (m * 2654435761u) & full; /* a scrambled partner pattern */
        vw_store(out, vw_and(vm, vw_mask_of(k)));
        for (int i = 0; i < W; ++i) expect_mask("vw_and", i, out[i], (m & k) >> i & 1u);
        vw_store(out, vw_or(vm, vw_mask_of(k)));
        for (int i = 0; i < W; ++i) expect_mask("vw_or", i, out[i], (m | k) >> i & 1u);
    }
}

/* ---------------------------------------------------------------- argmax */

/* The scalar rule: the largest value; among equal maxima (+0 == -0) the
 * smallest index. */
static uint32_t argmax_scalar(const float *value, const float *index, float *best)
{
    float top = value[0];
    for (int i = 1; i < W; ++i) top = value[i] > top ? value[i] : top;
    float lo = 3.0e38f;
    for (int i = 0; i < W; ++i)
        if (value[i] == top && index[i] < lo) lo = index[i];
    *best = top;
    return (uint32_t)lo;
}

static void check_argmax(const float *value, const float *index)
{
    float want_best, got_best = 0.0f;
    const uint32_t want = argmax_scalar(value, index, &want_best);
    const uint32_t got = vw_argmax(vw_load(value), vw_load(index), &got_best);
    if (got != want || !(got_best == want_best)) {
        char lanes[1024];
        size_t used = 0;
        for (int i = 0; i < W && used < sizeof lanes; ++i)
            used += (size_t)snprintf(lanes + used, sizeof lanes - used, " [%g @%.0f]", (double)value[i],
                                     (double)index[i]);
        fail_msg("vw_argmax [%s]: got index %u best %g, want index %u best %g\n  lanes:%s", test_ctx_buf(),
                 got, (double)got_best, want, (double)want_best, lanes);
    }
}

/* Distinct exact-float indices: base + a permutation of 0..W-1. */
static void rand_indices(test_rng *r, float *index, uint32_t base)
{
    for (int i = 0; i < W; ++i) index[i] = (float)(base + (uint32_t)i);
    for (int i = W - 1; i > 0; --i) {
        const uint32_t j = rng_below(r, (uint32_t)i + 1);
        const float t = index[i];
        index[i] = index[j];
        index[j] = t;
    }
}

/* Every nonempty mask as bits, four masks in one word; integer lane equality. */
static void test_vw_bookkeeping(void **state)
{
    (void)state;
    test_rng r = rng_seed(12);
    for (int t = 0; t < TRIALS; ++t) {
        uint32_t bits = (uint32_t)rng_below(&r, 1u << W);
        if (t < W) bits = 1u << t; /* every single lane */
        if (bits == 0) bits = 1u << (W - 1);
        test_ctx("mask 0x%x", bits);
        EXPECT_INT(vw_mask_bits(vw_mask_of(bits)), bits);
        /* four masks in one word, each group of W bits in its place */
        uint32_t g[4];
        for (int k = 0; k < 4; ++k) g[k] = k == t % 4 ? bits : (uint32_t)rng_below(&r, 1u << W);
        const uint64_t want4 = (uint64_t)g[0] | (uint64_t)g[1] << W | (uint64_t)g[2] << 2 * W | (uint64_t)g[3] << 3 * W;
        const uint64_t got4 = vw_mask_bits4(vw_mask_of(g[0]), vw_mask_of(g[1]), vw_mask_of(g[2]), vw_mask_of(g[3]));
        if (got4 != want4) fail_msg("vw_mask_bits4 [%s]: 0x%llx, want 0x%llx", test_ctx_buf(), (unsigned long long)got4, (unsigned long long)want4);

        _Alignas(64) uint32_t ids[W];
        const uint32_t x = rng_below(&r, 3) == 0 ? 0xffffffffu : (uint32_t)rng_below(&r, 4);
        for (int i = 0; i < W; ++i) ids[i] = rng_below(&r, 2) ? x : (uint32_t)rng_below(&r, 4) + (x == 0 ? 1u : 0u);
        WALIGN float out[W];
        vw_store(out, vw_cmpeq_u32(ids, x));
        for (int i = 0; i < W; ++i) expect_mask("vw_cmpeq_u32", i, out[i], ids[i] == x);
    }
}

/* vw_select_gt / vw_select_eq and vw_eq_bits / vw_eq_bits4 against a scalar
 * loop: values drawn from a few levels, so lanes tie often, with -0 against
 * +0 (equal) and NaN (never greater, never equal). */
static void test_vw_compare_select(void **state)
{
    (void)state;
    static const float levels[] = {-1.0f, -0.0f, 0.0f, 0.5f, 2.0f, NAN};
    test_rng r = rng_seed(13);
    for (int t = 0; t < TRIALS; ++t) {
        WALIGN float a[4][W], b[W], x[W], y[W], out[W];
        for (int i = 0; i < W; ++i) {
            for (int g = 0; g < 4; ++g) a[g][i] = levels[rng_below(&r, 6)];
            b[i] = levels[rng_below(&r, 6)];
            x[i] = (float)i + 100.0f;
            y[i] = -(float)i - 100.0f;
        }
        test_ctx("trial %d", t);
        const vw va = vw_load(a[0]), vb = vw_load(b), vx = vw_load(x), vy = vw_load(y);
        vw_store(out, vw_select_gt(va, vb, vx, vy));
        for (int i = 0; i < W; ++i) EXPECT_TRUE(out[i] == (a[0][i] > b[i] ? x[i] : y[i]));
        vw_store(out, vw_select_eq(va, vb, vx, vy));
        for (int i = 0; i < W; ++i) EXPECT_TRUE(out[i] == (a[0][i] == b[i] ? x[i] : y[i]));
        uint64_t want4 = 0;
        for (int g = 0; g < 4; ++g)
            for (int i = 0; i < W; ++i) want4 |= (uint64_t)(a[g][i] == b[i]) << (g * W + i);
        EXPECT_INT(vw_eq_bits(va, vb), (uint32_t)(want4 & ((1ull << W) - 1)));
        const uint64_t got4 = vw_eq_bits4(va, vw_load(a[1]), vw_load(a[2]), vw_load(a[3]), vb);
        if (got4 != want4) fail_msg("vw_eq_bits4 [%s]: 0x%llx, want 0x%llx", test_ctx_buf(), (unsigned long long)got4, (unsigned long long)want4);
    }
}

/* vn, the narrow lanes of short scans (8 with AVX-512, vw itself
 * elsewhere): each word against a scalar loop, as vw's above. */
static void test_vn_lanes(void **state)
{
    (void)state;
    enum { N = MINK_N_LANES };
    static const float levels[] = {-1.0f, -0.0f, 0.0f, 0.5f, 2.0f, NAN};
    test_rng r = rng_seed(14);
    WALIGN float a[4][N], b[N], c[N], x[N], y[N], out[N];
    vn_store(out, vn_iota());
    for (int i = 0; i < N; ++i) expect_same("vn_iota", i, out[i], (float)i);
    for (int t = 0; t < TRIALS; ++t) {
        for (int i = 0; i < N; ++i) {
            a[0][i] = rand_float(&r);
            b[i] = rand_partner(&r, a[0][i]);
            c[i] = rand_partner(&r, b[i]);
        }
        test_ctx("trial %d", t);
        const vn va = vn_load(a[0]), vb = vn_load(b), vc = vn_load(c);
        vn_store(out, vn_splat(a[0][N - 1]));
        for (int i = 0; i < N; ++i) expect_same("vn_splat", i, out[i], a[0][N - 1]);
        vn_store(out, vn_add(va, vb));
        for (int i = 0; i < N; ++i) expect_same("vn_add", i, out[i], a[0][i] + b[i]);
        vn_store(out, vn_mul(va, vb));
        for (int i = 0; i < N; ++i) expect_same("vn_mul", i, out[i], a[0][i] * b[i]);
        vn_store(out, vn_fma(va, vb, vc));
        for (int i = 0; i < N; ++i) {
            const float p = a[0][i] * b[i];
            if (bits_of(out[i]) != bits_of(fmaf(a[0][i], b[i], c[i]))) expect_same("vn_fma", i, out[i], p + c[i]);
        }
        vn_store(out, vn_min(va, vb));
        for (int i = 0; i < N; ++i) expect_num("vn_min", i, out[i], a[0][i] < b[i] ? a[0][i] : b[i]);
        vn_store(out, vn_max(va, vb));
        for (int i = 0; i < N; ++i) expect_num("vn_max", i, out[i], a[0][i] > b[i] ? a[0][i] : b[i]);
        vn_store(out, vn_from_v4(v4_load(a[0])));
        for (int i = 0; i < N; ++i) expect_same("vn_from_v4", i, out[i], a[0][i % 4]);
        float fold[4];
        v4_store(fold, vn_fold_max(va));
        for (int j = 0; j < 4; ++j) {
            float m = a[0][j];
            for (int i = j + 4; i < N; i += 4) m = a[0][i] > m ? a[0][i] : m;
            expect_num("vn_fold_max", j, fold[j], m);
        }
        v4_store(fold, vn_fold_min(va));
        for (int j = 0; j < 4; ++j) {
            float m = a[0][j];
            for (int i = j + 4; i < N; i += 4) m = a[0][i] < m ? a[0][i] : m;
            expect_num("vn_fold_min", j, fold[j], m);
        }

        /* compares, from a few levels: ties, -0 against +0, NaN */
        for (int i = 0; i < N; ++i) {
            for (int g = 0; g < 4; ++g) a[g][i] = levels[rng_below(&r, 6)];
            b[i] = levels[rng_below(&r, 6)];
            x[i] = (float)i + 100.0f;
            y[i] = -(float)i - 100.0f;
        }
        const vn ca = vn_load(a[0]), cb = vn_load(b), vx = vn_load(x), vy = vn_load(y);
        vn_store(out, vn_select_gt(ca, cb, vx, vy));
        for (int i = 0; i < N; ++i) EXPECT_TRUE(out[i] == (a[0][i] > b[i] ? x[i] : y[i]));
        vn_store(out, vn_select_eq(ca, cb, vx, vy));
        for (int i = 0; i < N; ++i) EXPECT_TRUE(out[i] == (a[0][i] == b[i] ? x[i] : y[i]));
        uint64_t want4 = 0;
        for (int g = 0; g < 4; ++g)
            for (int i = 0; i < N; ++i) want4 |= (uint64_t)(a[g][i] == b[i]) << (g * N + i);
        EXPECT_INT(vn_eq_bits(ca, cb), (uint32_t)(want4 & ((1ull << N) - 1)));
        const uint64_t got4 = vn_eq_bits4(ca, vn_load(a[1]), vn_load(a[2]), vn_load(a[3]), cb);
        if (got4 != want4) fail_msg("vn_eq_bits4 [%s]: 0x%llx, want 0x%llx", test_ctx_buf(), (unsigned long long)got4, (unsigned long long)want4);
    }
}

static void test_vw_argmax(void **state)
{
    (void)state;
    test_rng r = rng_seed(7);
    WALIGN float value[W], index[W];
    /* largest base whose indices are still exact floats (< 2^24) */
    const uint32_t top_base = (1u << 24) - W;

    /* random values, sometimes from a tiny set so ties are common */
    for (int t = 0; t < TRIALS; ++t) {
        const int tiny = (int)rng_below(&r, 3);
        for (int i = 0; i < W; ++i) {
            if (tiny == 0) value[i] = rand_float(&r);
            else if (tiny == 1) value[i] = (float)((int)rng_below(&r, 3) - 1);
            else value[i] = rng_below(&r, 2) ? -0.0f : (rng_below(&r, 2) ? 0.0f : -1.0f); /* +0/-0 ties */
        }
        if (rng_below(&r, 8) == 0) value[rng_below(&r, W)] = -INFINITY; /* the scan's starting value */
        const uint32_t base = rng_below(&r, 4) == 0 ? top_base : rng_below(&r, top_base);
        if (rng_below(&r, 2)) {
            rand_indices(&r, index, base);
        } else {
            for (int i = 0; i < W; ++i) index[i] = (float)(base + (uint32_t)i);
        }
        test_ctx("random trial %d", t);
        check_argmax(value, index);
    }

    /* every pair of lanes tied at the max, the rest below, with indices
     * increasing, decreasing and scrambled: ties within a 4-lane group and
     * across groups (the fold) */
    for (int i = 0; i < W; ++i) {
        for (int j = i; j < W; ++j) {
            for (int order = 0; order < 3; ++order) {
                for (int k = 0; k < W; ++k) value[k] = (float)rng_range(&r, -10.0, 4.0);
                value[i] = value[j] = 5.0f;
                for (int k = 0; k < W; ++k)
                    index[k] = order == 0 ? (float)k : order == 1 ? (float)(top_base + (uint32_t)(W - 1 - k)) : 0.0f;
                if (order == 2) rand_indices(&r, index, rng_below(&r, top_base));
                test_ctx("tie lanes %d,%d order %d", i, j, order);
                check_argmax(value, index);
            }
        }
    }
    /* all lanes equal: the smallest index wherever it sits */
    for (int at = 0; at < W; ++at) {
        for (int k = 0; k < W; ++k) {
            value[k] = -0.0f;
            index[k] = (float)(100 + k);
        }
        index[at] = 7.0f;
        value[W - 1 - at] = 0.0f;
        test_ctx("all equal, smallest index at %d", at);
        check_argmax(value, index);
    }
}

/* ---------------------------------------------------------------- the hull scan */

/* Hull sizes the scan tests run: every size up to 70 (one lane-width, up
 * to four in registers, the first loops), then sizes about the limits
 * further up (with AVX-512 the 8-lane loop ends at 256 points) and past. */
static const uint32_t big_sizes[] = {127, 128, 129, 255, 256, 257, 263, 384, 520};
#define SMALL_SIZES 70u
#define SCAN_SIZES (SMALL_SIZES + (unsigned)(sizeof big_sizes / sizeof big_sizes[0]))
#define MAX_POINTS 520
static uint32_t scan_size(unsigned k) { return k < SMALL_SIZES ? k + 1 : big_sizes[k - SMALL_SIZES]; }

/* The brute-force support: max over the input points of p.d in double. */
static double brute_support(const float *xyz, uint32_t n, dv3 d, double *mag)
{
    double best = -HUGE_VAL;
    *mag = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        const dv3 p = dv(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
        best = fmax(best, dv_dot(p, d));
        *mag = fmax(*mag, fabs(p.x * d.x) + fabs(p.y * d.y) + fabs(p.z * d.z));
    }
    return best;
}

/* Calls the SIMD support and checks what holds for any input: the index is
 * an input point, the point returned is that input point with pad 0, and
 * its dot with d is the maximum within float rounding of a 3-term dot
 * product (the scan may pick either of two points closer than that). */
static uint32_t check_support(const mink_shape *s, const float *xyz, uint32_t n, dv3 d)
{
    uint32_t k = 0xffffffffu;
    const v4 p = mink_simd_support_local(s, v4_set((float)d.x, (float)d.y, (float)d.z, 0.0f), &k);
    if (k >= n) fail_msg("simd_support_local [%s]: index %u of %u points", test_ctx_buf(), k, n);
    float got[4];
    v4_store(got, p);
    for (int c = 0; c < 3; ++c) expect_same("support point", c, got[c], xyz[3 * k + (uint32_t)c]);
    expect_same("support point pad", 3, got[3], 0.0f);
    const dv3 df = dv((float)d.x, (float)d.y, (float)d.z);
    double mag;
    const double want = brute_support(xyz, n, df, &mag);
    const double have = dv_dot(dv(got[0], got[1], got[2]), df);
    EXPECT_NEAR(have, want, 8.0 * FLT_EPSILON * mag + 1e-30);
    /* the largest dot product alone: out of line, and the intersect's held
     * test's (inline, up to eight lane-widths, one branch each) */
    const v4 dir = v4_set((float)d.x, (float)d.y, (float)d.z, 0.0f);
    EXPECT_NEAR(mink_simd_support_dot(s, dir), want, 8.0 * FLT_EPSILON * mag + 1e-30);
    if (!support_scan_long(s)) EXPECT_NEAR(support_dot_sized(s, dir, 0), want, 8.0 * FLT_EPSILON * mag + 1e-30);
    return k;
}

/* The lowest index among the points whose dot with the integer direction
 * is the largest. Integer points and directions make every dot exact in
 * float, so ties are real ties and the rule is checked exactly. */
static uint32_t lowest_max_index(const float *xyz, uint32_t n, const int *d)
{
    uint32_t best_i = 0;
    float best = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        const float t = xyz[3 * i] * (float)d[0] + xyz[3 * i + 1] * (float)d[1] + xyz[3 * i + 2] * (float)d[2];
        if (t > best) {
            best = t;
            best_i = i;
        }
    }
    return best_i;
}

/* The 26 directions with components in {-1, 0, 1}, then a few longer ones. */
static int grid_directions(int (*out)[3])
{
    int n = 0;
    for (int x = -1; x <= 1; ++x)
        for (int y = -1; y <= 1; ++y)
            for (int z = -1; z <= 1; ++z)
                if (x || y || z) {
                    out[n][0] = x;
                    out[n][1] = y;
                    out[n][2] = z;
                    ++n;
                }
    static const int extra[4][3] = {{2, 1, 0}, {-3, 1, 2}, {1, -2, 5}, {0, 3, -1}};
    for (int i = 0; i < 4; ++i) {
        out[n][0] = extra[i][0];
        out[n][1] = extra[i][1];
        out[n][2] = extra[i][2];
        ++n;
    }
    return n;
}

static void test_support_scan_random(void **state)
{
    (void)state;
    test_rng r = rng_seed(8);
    float xyz[3 * MAX_POINTS];
    for (unsigned si = 0; si < SCAN_SIZES; ++si) {
        const uint32_t n = scan_size(si);
        for (int set = 0; set < 4; ++set) {
            const double size = pow(10.0, rng_range(&r, -3.0, 3.0));
            for (uint32_t i = 0; i < 3 * n; ++i) xyz[i] = (float)rng_range(&r, -size, size);
            /* repeated points: duplicates must not confuse the index */
            if (set & 1)
                for (uint32_t i = 1; i < n; i += 3) memcpy(xyz + 3 * i, xyz + 3 * rng_below(&r, i), 3 * sizeof(float));
            /* points on a sphere: many near-ties in every direction */
            if (set == 2) points_on_sphere(xyz, n, size);
            test_arena_reset();
            const mink_shape s = test_hull(xyz, n, 0.0f);
            for (int t = 0; t < 60; ++t) {
                const dv3 d = dv_scale(rng_dir(&r), pow(10.0, rng_range(&r, -3.0, 3.0)));
                test_ctx("n %u set %d dir %d (%g %g %g)", n, set, t, d.x, d.y, d.z);
                check_support(&s, xyz, n, d);
            }
        }
    }
    test_arena_reset();
}

/* Integer points: exact ties, and the lowest index must win over every
 * later tie, every padding lane (copies of point 0) and either of the
 * scan's two running maxima. */
static void test_support_scan_ties(void **state)
{
    (void)state;
    test_rng r = rng_seed(9);
    int dirs[30][3];
    const int nd = grid_directions(dirs);
    float xyz[3 * MAX_POINTS];
    for (unsigned si = 0; si < SCAN_SIZES; ++si) {
        const uint32_t n = scan_size(si);
        for (int set = 0; set < 3; ++set) {
            const int span = set == 0 ? 1 : set == 1 ? 3 : 100; /* fewer values: more ties */
            for (uint32_t i = 0; i < 3 * n; ++i) xyz[i] = (float)((int)rng_below(&r, 2u * (uint32_t)span + 1) - span);
            test_arena_reset();
            const mink_shape s = test_hull(xyz, n, 0.0f);
            for (int k = 0; k < nd; ++k) {
                const dv3 d = dv(dirs[k][0], dirs[k][1], dirs[k][2]);
                test_ctx("n %u set %d dir (%d %d %d)", n, set, dirs[k][0], dirs[k][1], dirs[k][2]);
                EXPECT_INT(check_support(&s, xyz, n, d), lowest_max_index(xyz, n, dirs[k]));
            }
        }
    }
    test_arena_reset();
}

/* The maximum at every position, alone and tied with a later position:
 * each lane of each step, the tail step, both running maxima. */
static void test_support_scan_positions(void **state)
{
    (void)state;
    float xyz[3 * MAX_POINTS];
    for (unsigned si = 0; si < SCAN_SIZES; ++si) {
        const uint32_t n = scan_size(si);
        for (uint32_t i = 0; i < n; ++i) {
            /* a ring in the plane x = 0 .. below the peak along +x */
            xyz[3 * i + 0] = (float)(i % 3);
            xyz[3 * i + 1] = (float)(i % 5) - 2.0f;
            xyz[3 * i + 2] = (float)(i % 7) - 3.0f;
        }
        for (uint32_t a = 0; a < n; ++a) {
            /* past SMALL_SIZES, two ties per peak (itself, one later) */
            for (uint32_t b = a; b < n; b = n <= SMALL_SIZES ? b + 1 : b == a ? a + 1 + (a * 7u) % (n - a) : n) {
                float pts[3 * MAX_POINTS];
                memcpy(pts, xyz, 3 * n * sizeof(float));
                pts[3 * a] = pts[3 * b] = 10.0f;
                test_arena_reset();
                const mink_shape s = test_hull(pts, n, 0.0f);
                test_ctx("n %u peak at %u and %u", n, a, b);
                EXPECT_INT(check_support(&s, pts, n, dv(1, 0, 0)), a);
            }
        }
    }
    test_arena_reset();
}

/* End to end through the public API: a hull against a slab (a wide, thin
 * box whose near face is the plane d.x = s, wider than the hull's shadow)
 * is exactly s minus the hull's support in d. That is the scan's answer,
 * checked by the whole query: pair frame, GJK, witnesses. */
/* A NaN direction (from a broken caller upstream) still gives an input
 * point: every scan path (one lane-width, up to four in registers, longer
 * loops) has a defined answer when no dot product is a number. */
static void test_support_scan_nan(void **state)
{
    (void)state;
    test_rng r = rng_seed(12);
    float xyz[3 * MAX_POINTS];
    const float nan = NAN;
    const v4 dirs[3] = {v4_set(nan, nan, nan, 0.0f), v4_set(1.0f, nan, 0.5f, 0.0f), v4_set(INFINITY, -INFINITY, 0.0f, 0.0f)};
    for (unsigned si = 0; si < SCAN_SIZES; ++si) {
        const uint32_t n = scan_size(si);
        for (uint32_t i = 0; i < 3 * n; ++i) xyz[i] = (float)rng_range(&r, -2.0, 2.0);
        test_arena_reset();
        const mink_shape s = test_hull(xyz, n, 0.0f);
        for (int t = 0; t < 3; ++t) {
            uint32_t k = 0xffffffffu;
            const v4 p = mink_simd_support_local(&s, dirs[t], &k);
            test_ctx("n %u direction %d", n, t);
            if (k >= n) fail_msg("simd_support_local [%s]: index %u of %u points", test_ctx_buf(), k, n);
            float got[4];
            v4_store(got, p);
            for (int c = 0; c < 3; ++c) expect_same("support point", c, got[c], xyz[3 * k + (uint32_t)c]);
        }
    }
}

/* Hill climbing (hull.h) on big solids: round ones (every corner a few
 * faces), a cylinder (two wide polygon faces: climbs across them run long
 * and end in the scan), a cone (an apex in hundreds of faces: its
 * neighbours fill continuation blocks) and near-duplicates welded to
 * corners. The support is an input point within merge_tol (plus float
 * rounding) of the maximum along d; the support's dot product agrees. */
static uint32_t climb_shape(test_rng *r, int kind, float *xyz)
{
    const uint32_t n = kind == 0 ? 1000 : kind == 4 ? 4096 : 1024;
    const double pi = 3.14159265358979323846;
    for (uint32_t i = 0; i < n; ++i) {
        dv3 p;
        if (kind == 2) { /* cylinder: two rims of n / 2 */
            const double a = 2.0 * pi * (i / 2) / (n / 2);
            p = dv(cos(a), (i & 1) ? 0.5 : -0.5, sin(a));
        } else if (kind == 3) { /* cone: a rim and an apex, repeated */
            const double a = 2.0 * pi * i / (n - 8);
            p = i >= n - 8 ? dv(0, 2.0, 0) : dv(cos(a), 0.0, sin(a));
        } else {
            p = rng_dir(r);
            if (kind == 1 && i % 4 == 3) p = dv_add(dv(xyz[3 * (i - 1)], xyz[3 * (i - 1) + 1], xyz[3 * (i - 1) + 2]), dv(1e-8, -1e-8, 1e-8));
        }
        xyz[3 * i] = (float)p.x, xyz[3 * i + 1] = (float)p.y, xyz[3 * i + 2] = (float)p.z;
    }
    return n;
}

static void test_support_climb(void **state)
{
    (void)state;
    test_rng r = rng_seed(21);
    static float xyz[3 * 4096];
    for (int kind = 0; kind < 5; ++kind) {
        const uint32_t n = climb_shape(&r, kind, xyz);
        test_arena_reset();
        const mink_shape s = test_hull(xyz, n, 0.0f);
        test_ctx("climb shape %d", kind);
        EXPECT_TRUE(hull_climbs(&s)); /* the test runs the climb */
        const double merge = s.topology->merge_tol;
        for (int t = 0; t < 3000; ++t) {
            dv3 d = dv_scale(rng_dir(&r), pow(10.0, rng_range(&r, -3.0, 3.0)));
            if (t < 6) d = dv(t % 3 == 0, t % 3 == 1, t % 3 == 2), d = t >= 3 ? dv_scale(d, -1.0) : d;
            test_ctx("climb shape %d dir %d (%g %g %g)", kind, t, d.x, d.y, d.z);
            uint32_t k = 0xffffffffu;
            const v4 dir = v4_set((float)d.x, (float)d.y, (float)d.z, 0.0f);
            const v4 p = mink_simd_support_local(&s, dir, &k);
            if (k >= n) fail_msg("climb [%s]: index %u of %u points", test_ctx_buf(), k, n);
            float got[4];
            v4_store(got, p);
            for (int c = 0; c < 3; ++c) expect_same("support point", c, got[c], xyz[3 * k + (uint32_t)c]);
            const dv3 df = dv((float)d.x, (float)d.y, (float)d.z);
            double mag;
            const double want = brute_support(xyz, n, df, &mag);
            const double have = dv_dot(dv(got[0], got[1], got[2]), df);
            const double tol = merge * dv_len(df) + 8.0 * FLT_EPSILON * mag;
            EXPECT_NEAR(have, want, tol);
            EXPECT_NEAR(mink_simd_support_dot(&s, dir), have, 8.0 * FLT_EPSILON * mag);
        }
        /* a NaN direction still names an input point */
        uint32_t k = 0xffffffffu;
        (void)mink_simd_support_local(&s, v4_set(NAN, 1.0f, 0.0f, 0.0f), &k);
        EXPECT_TRUE(k < n);
    }
    test_arena_reset();
}

/* The pair support with B a hull of every size: B is moved into A's frame
 * once when its scan fits in registers and rotated per call otherwise; both
 * must give B's input point (within float rounding of the double pose
 * transform), a maximal one along d, and w = pb - pa. */
/* n points in a cube of a random size (0.1 to 10) about the origin, or on
 * its sphere; returns the size. */
static double random_points(test_rng *r, float *xyz, uint32_t n, int on_sphere)
{
    const double size = pow(10.0, rng_range(r, -1.0, 1.0));
    for (uint32_t i = 0; i < 3 * n; ++i) xyz[i] = (float)rng_range(r, -size, size);
    if (on_sphere) points_on_sphere(xyz, n, size);
    return size;
}

static void test_support_pair_hull_b(void **state)
{
    (void)state;
    test_rng r = rng_seed(13);
    float xyz[3 * MAX_POINTS];
    for (unsigned si = 0; si < SCAN_SIZES; ++si) {
        const uint32_t n = scan_size(si);
        const double size = random_points(&r, xyz, n, n % 3 == 0);
        test_arena_reset();
        const mink_shape b = test_hull(xyz, n, 0.0f);
        const mink_shape a = mink_box((float)size, (float)(0.5 * size), (float)(2.0 * size), 0.0f);
        for (int t = 0; t < 20; ++t) {
            const mink_pose pa = pose_make(rng_box(&r, 3.0 * size), rng_quat(&r));
            const mink_pose pb = pose_make(rng_box(&r, 3.0 * size), rng_quat(&r));
            const float na2 = pa.q.w * pa.q.w + pa.q.x * pa.q.x + pa.q.y * pa.q.y + pa.q.z * pa.q.z;
            const float nb2 = pb.q.w * pb.q.w + pb.q.x * pb.q.x + pb.q.y * pb.q.y + pb.q.z * pb.q.z;
            simd_pair pair;
            v4 rot_a[3];
            mink_simd_pair_init(&pair, &a, &pa, na2, &b, &pb, nb2, rot_a);
            const double S = pair.scale;
            const dv3 d = dv_scale(rng_dir(&r), pow(10.0, rng_range(&r, -2.0, 2.0)));
            const dv3 df = dv((float)d.x, (float)d.y, (float)d.z);
            test_ctx("n %u pose %d", n, t);
            const simd_vertex v = mink_simd_support_pair(&pair, v4_set((float)d.x, (float)d.y, (float)d.z, 0.0f));
            if (v.ib >= n) fail_msg("support_pair [%s]: index %u of %u points", test_ctx_buf(), v.ib, n);
            float got_b[4], got_a[4], got_w[4];
            v4_store(got_b, v.pb);
            v4_store(got_a, v.pa);
            v4_store(got_w, v.w);
            /* B's point ib in A's frame, in double from the poses */
            const uint32_t k = v.ib;
            const dv3 want = pose_unapply(&pa, pose_apply(&pb, dv(xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2])));
            for (int c = 0; c < 3; ++c) EXPECT_NEAR(got_b[c], dv_comp(want, c), 1e-5 * S);
            double best = -HUGE_VAL;
            for (uint32_t i = 0; i < n; ++i)
                best = fmax(best, dv_dot(df, pose_unapply(&pa, pose_apply(&pb, dv(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2])))));
            EXPECT_NEAR(dv_dot(df, dv(got_b[0], got_b[1], got_b[2])), best, 1e-5 * S * dv_len(df));
            for (int c = 0; c < 3; ++c) expect_same("w = pb - pa", c, got_w[c], got_b[c] - got_a[c]);
        }
    }
}

static void test_support_distance(void **state)
{
    (void)state;
    test_rng r = rng_seed(10);
    float xyz[3 * MAX_POINTS];
    unsigned queries = 0;
    for (unsigned si = 0; si < SCAN_SIZES; ++si) {
        const uint32_t n = scan_size(si);
        random_points(&r, xyz, n, n % 2 == 0);
        test_arena_reset();
        const mink_shape hull = test_hull(xyz, n, 0.0f);
        double E = 0.0; /* the hull's radius about its local origin */
        for (uint32_t i = 0; i < n; ++i) E = fmax(E, dv_len(dv(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2])));
        E = fmax(E, 1e-3);
        for (int t = 0; t < 24; ++t) {
            /* A anywhere; the slab's local +z is its normal, rotated onto d */
            const mink_pose pa = pose_make(rng_box(&r, 4.0 * E), rng_quat(&r));
            const mink_quat q = rng_quat(&r);
            const mink_pose probe = pose_make(dv(0, 0, 0), q);
            const dv3 d = pose_axis(&probe, 2);
            const double half_w = 1.5 * E, half_t = 0.25 * E;
            /* the plane d.x = s_plane: every hull point is within E of A's
             * origin, so the plane is beyond the hull by 0.05 E .. 3 E */
            const double s_plane = dv_dot(d, dv_of(pa.p)) + E * rng_range(&r, 1.05, 3.0);
            const mink_shape slab = mink_box((float)half_w, (float)half_w, (float)half_t, 0.0f);
            /* the near face (local z = -half_t) is centred on A's origin's
             * line along d, so it covers the hull's shadow (radius E) */
            const dv3 foot = dv_add(dv_of(pa.p), dv_scale(d, s_plane - dv_dot(d, dv_of(pa.p)) + half_t));
            const mink_pose pb = pose_make(foot, q);
            /* exact answer from the float poses the kernel sees: the slab's
             * near face minus the hull's support (double brute force) */
            const double want = shape_min(&slab, &pb, d) - shape_max(&hull, &pa, d);
            mink_result res;
            memset(&res, 0, sizeof res);
            test_ctx("n %u query %d d = (%g %g %g)", n, t, d.x, d.y, d.z);
            const mink_status st = mink_distance(&hull, &pa, &slab, &pb, NULL, &res);
            EXPECT_INT(st, MINK_OK);
            const double L = pair_L(&hull, &pa, &slab, &pb);
            EXPECT_NEAR(res.distance, want, TOL_FORMAT_REL * L);
            EXPECT_TRUE(res.distance > 0.0f);
            check_result_basic(&res, L);
            ++queries;
        }
    }
    print_message("support distance: %u queries, hulls of %u sizes up to %d points\n", queries, SCAN_SIZES, MAX_POINTS);
    test_arena_reset();
}

int main(void)
{
    /* which backend this executable exercises, in the test log */
    printf("test_simd: MINK_SIMD_NAME = %s, MINK_W_LANES = %d\n", MINK_SIMD_NAME, MINK_W_LANES);
    fflush(stdout);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_v4_lanes),
        cmocka_unit_test(test_v4_arith),
        cmocka_unit_test(test_v4_horizontal),
        cmocka_unit_test(test_v4_masks),
        cmocka_unit_test(test_v4_bookkeeping),
        cmocka_unit_test(test_vw_lanes),
        cmocka_unit_test(test_vw_masks),
        cmocka_unit_test(test_vw_bookkeeping),
        cmocka_unit_test(test_vw_compare_select),
        cmocka_unit_test(test_vn_lanes),
        cmocka_unit_test(test_vw_argmax),
        cmocka_unit_test(test_support_scan_random),
        cmocka_unit_test(test_support_scan_ties),
        cmocka_unit_test(test_support_scan_positions),
        cmocka_unit_test(test_support_climb),
        cmocka_unit_test(test_support_distance),
        cmocka_unit_test(test_support_scan_nan),
        cmocka_unit_test(test_support_pair_hull_b),
    };
    return cmocka_run_group_tests_name("simd (" MINK_SIMD_NAME ")", tests, NULL, NULL);
}
