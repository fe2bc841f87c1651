/* Johnson's distance subalgorithm on hand-built simplices: every Voronoi
 * region of the segment, triangle and tetrahedron, exact closest points and
 * weights, the determinant cache, the backup procedure, Catto's example. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "ref/johnson_ref.h"

/* Hand-built simplices have small integer coordinates: float results are
 * exact to a few ulps. */
#define EXACT_TOL 1e-6f

static ref_vertex vert(float x, float y, float z, uint32_t id)
{
    ref_vertex v;
    v.pa = v3_make(0, 0, 0);
    v.pb = v.w = v3_make(x, y, z);
    v.ia = 0;
    v.ib = id;
    return v;
}

/* Loads points in order, keeping all of them (as GJK does when each new
 * point is in the closest subset), then lets Johnson reduce after the last. */
static int load(ref_simplex *s, const ref_vertex *pts, unsigned n, v3 *v)
{
    mink_scalar_simplex_init(s);
    int main_path = 1;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned keep = s->bits;
        mink_scalar_simplex_add(s, &pts[i]);
        main_path = mink_scalar_johnson(s, v, 0.0f);
        if (i + 1 < n) s->bits = keep | (1u << s->last);
    }
    return main_path;
}

static void expect_closest(const ref_simplex *s, v3 v, v3 want, unsigned want_bits, const float *want_lambda)
{
    assert_float_equal(v.x, want.x, EXACT_TOL);
    assert_float_equal(v.y, want.y, EXACT_TOL);
    assert_float_equal(v.z, want.z, EXACT_TOL);
    assert_int_equal(s->bits, want_bits);
    float sum = 0;
    for (unsigned i = 0; i < 4; ++i) {
        if (want_lambda) assert_float_equal(s->lambda[i], want_lambda[i], EXACT_TOL);
        sum += s->lambda[i];
        if (!(s->bits & (1u << i))) assert_float_equal(s->lambda[i], 0.0f, 0.0f);
    }
    assert_float_equal(sum, 1.0f, EXACT_TOL);
}

static void test_segment_regions(void **state)
{
    (void)state;
    ref_simplex s;
    v3 v;
    /* interior of the edge: origin projects to (0,1,0), halfway */
    ref_vertex a[2] = {vert(-1, 1, 0, 1), vert(1, 1, 0, 2)};
    assert_true(load(&s, a, 2, &v));
    const float half[4] = {0.5f, 0.5f, 0, 0};
    expect_closest(&s, v, v3_make(0, 1, 0), 3u, half);

    /* vertex region of the newest point */
    ref_vertex b[2] = {vert(3, 1, 0, 1), vert(1, 1, 0, 2)};
    assert_true(load(&s, b, 2, &v));
    const float only_new[4] = {0, 1, 0, 0};
    expect_closest(&s, v, v3_make(1, 1, 0), 2u, only_new);

    /* weights 1/4, 3/4 */
    ref_vertex c[2] = {vert(-3, 2, 0, 1), vert(1, 2, 0, 2)};
    assert_true(load(&s, c, 2, &v));
    const float quarter[4] = {0.25f, 0.75f, 0, 0};
    expect_closest(&s, v, v3_make(0, 2, 0), 3u, quarter);
}

static void test_triangle_regions(void **state)
{
    (void)state;
    ref_simplex s;
    v3 v;
    /* face: triangle in z = 1 around the z axis */
    ref_vertex f[3] = {vert(-1, -1, 1, 1), vert(2, -1, 1, 2), vert(-1, 2, 1, 3)};
    assert_true(load(&s, f, 3, &v));
    const float third[4] = {1.0f / 3, 1.0f / 3, 1.0f / 3, 0};
    expect_closest(&s, v, v3_make(0, 0, 1), 7u, third);

    /* edge between the first and newest point: origin beyond edge 0-2 */
    ref_vertex e[3] = {vert(-1, 1, 0, 1), vert(0, 5, 0, 2), vert(1, 1, 0, 3)};
    assert_true(load(&s, e, 3, &v));
    const float edge[4] = {0.5f, 0, 0.5f, 0};
    expect_closest(&s, v, v3_make(0, 1, 0), 5u, edge);

    /* vertex region of the newest point */
    ref_vertex p[3] = {vert(3, 3, 0, 1), vert(5, 1, 0, 2), vert(1, 1, 0, 3)};
    assert_true(load(&s, p, 3, &v));
    const float vert_only[4] = {0, 0, 1, 0};
    expect_closest(&s, v, v3_make(1, 1, 0), 4u, vert_only);
}

static void test_tetrahedron_regions(void **state)
{
    (void)state;
    ref_simplex s;
    v3 v;
    /* interior: the origin is inside, all four points stay */
    ref_vertex in[4] = {vert(1, 1, 1, 1), vert(-1, -1, 1, 2), vert(-1, 1, -1, 3), vert(1, -1, -1, 4)};
    assert_true(load(&s, in, 4, &v));
    const float quarter[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    expect_closest(&s, v, v3_make(0, 0, 0), 15u, quarter);

    /* face: tetrahedron above z = 1 whose base face (slots 0,1,3) is closest */
    ref_vertex face[4] = {vert(-1, -1, 1, 1), vert(2, -1, 1, 2), vert(0, 0, 4, 3), vert(-1, 2, 1, 4)};
    assert_true(load(&s, face, 4, &v));
    const float third[4] = {1.0f / 3, 1.0f / 3, 0, 1.0f / 3};
    expect_closest(&s, v, v3_make(0, 0, 1), 11u, third);

    /* edge: the closest feature is the edge from slot 1 to the newest point */
    ref_vertex edge[4] = {vert(0, 4, 4, 1), vert(-1, 1, 0, 2), vert(0, 5, 3, 3), vert(1, 1, 0, 4)};
    assert_true(load(&s, edge, 4, &v));
    const float half[4] = {0, 0.5f, 0, 0.5f};
    expect_closest(&s, v, v3_make(0, 1, 0), 10u, half);

    /* vertex: the newest point is closest */
    ref_vertex pt[4] = {vert(3, 3, 3, 1), vert(4, 1, 2, 2), vert(2, 4, 1, 3), vert(1, 1, 1, 4)};
    assert_true(load(&s, pt, 4, &v));
    const float newest[4] = {0, 0, 0, 1};
    expect_closest(&s, v, v3_make(1, 1, 1), 8u, newest);
}

/* The determinants of subsets without the new point are reused: adding a
 * fourth point to a triangle evaluates only the 20 entries of the subsets
 * that contain it (1 + 3*2 + 3*3 + 4), not all 32. */
static void test_determinant_cache(void **state)
{
    (void)state;
    ref_simplex s;
    v3 v;
    ref_vertex t[4] = {vert(1, 1, 1, 1), vert(-1, -1, 1, 2), vert(-1, 1, -1, 3), vert(1, -1, -1, 4)};
    load(&s, t, 3, &v);
    s.bits = 7u; /* keep the triangle as GJK would when the origin lies past it */
    const unsigned before = s.det_evals;
    const float tri_det0 = s.det[7][0], tri_det1 = s.det[7][1], tri_det2 = s.det[7][2];
    mink_scalar_simplex_add(&s, &t[3]);
    mink_scalar_johnson(&s, &v, 0.0f);
    assert_int_equal(s.det_evals - before, 20);
    assert_true(s.det[7][0] == tri_det0 && s.det[7][1] == tri_det1 && s.det[7][2] == tri_det2);

    /* replace a point: only subsets holding the slot it lands in are redone */
    mink_scalar_simplex_init(&s);
    ref_vertex a[3] = {vert(-1, 1, 0, 1), vert(1, 1, 0, 2), vert(0, 5, 0, 3)};
    load(&s, a, 3, &v);               /* reduces to the edge in slots 0, 1 */
    assert_int_equal(s.bits, 3u);
    const unsigned mid = s.det_evals;
    const ref_vertex d = vert(0, 1, 1, 9);
    mink_scalar_simplex_add(&s, &d);          /* lands in the free slot 2 */
    assert_int_equal(s.last, 2u);
    mink_scalar_johnson(&s, &v, 0.0f);
    assert_int_equal(s.det_evals - mid, 1 + 2 * 2 + 3); /* {2}, {0,2}, {1,2}, {0,1,2} */
}

/* The backup procedure: a new point that does not belong to the closest
 * subset (which GJK never produces in exact arithmetic) still yields the
 * true closest point. */
static void test_backup(void **state)
{
    (void)state;
    ref_simplex s;
    v3 v;
    ref_vertex a[2] = {vert(0, 1, 0, 1), vert(0, 5, 0, 2)};
    assert_false(load(&s, a, 2, &v));
    assert_int_equal(s.backups, 1);
    assert_float_equal(v.y, 1.0f, EXACT_TOL);
    assert_int_equal(s.bits, 1u);
}

/* Catto (GDC 2010): in single precision the closest point of this long
 * segment to the origin must come out without cycling, to float precision. */
static void test_catto_segment(void **state)
{
    (void)state;
    const double ax = 0.021119118, ay = 79.584320, bx = 0.020964622, by = -31.515678;
    /* exact distance from the origin to the segment's line, in double */
    const double ex = bx - ax, ey = by - ay;
    const double exact = fabs(ax * ey - ay * ex) / sqrt(ex * ex + ey * ey);
    ref_simplex s;
    v3 v;
    ref_vertex p[2] = {vert((float)ax, (float)ay, 0, 1), vert((float)bx, (float)by, 0, 2)};
    assert_true(load(&s, p, 2, &v));
    assert_int_equal(s.bits, 3u);
    const double got = sqrt((double)v.x * v.x + (double)v.y * v.y);
    assert_true(fabs(got - exact) <= 1e-5 * exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segment_regions),   cmocka_unit_test(test_triangle_regions),
        cmocka_unit_test(test_tetrahedron_regions), cmocka_unit_test(test_determinant_cache),
        cmocka_unit_test(test_backup),            cmocka_unit_test(test_catto_segment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
