/* The SIMD kernel against the scalar reference on every case file: same
 * status, and the same answer within tolerance on every field that is
 * unique (distance, normal where the case's normal is unique, the witness
 * points' positions along the normal; along a face the witnesses are not
 * unique, so their tangential parts are not compared). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <cmocka.h>

#include "cases.h"
#include "mink/mink_ref.h"

/* Each kernel is within 1e-4 * L of the exact value (FORMAT.md), so the two
 * are within twice that of each other. */
#define SCALAR_AGREE 2e-4
/* Twice FORMAT.md's normal limits (2e-3 rad sep, 1e-2 rad pen). */
#define SEP_ANGLE 4e-3
#define PEN_ANGLE 2e-2

static double dot3(mink_vec3 a, mink_vec3 b) { return (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z; }

static double angle(mink_vec3 a, mink_vec3 b)
{
    const double c = dot3(a, b) / sqrt(dot3(a, a) * dot3(b, b));
    return acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
}

/* Counts disagreements between the kernels on one file and query. */
static unsigned compare_file(const char *name, int query)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s", MINK_TEST_DATA, name);
    case_set set;
    if (case_set_load(path, &set, err, sizeof err) != 0) fail_msg("%s", err);
    unsigned bad = 0;
    for (size_t i = 0; i < set.count; ++i) {
        const mink_case *c = &set.cases[i];
        mink_result r, s;
        if (query == CASE_QUERY_INTERSECT) {
            const int hr = mink_ref_intersect(&c->a, &c->pa, &c->b, &c->pb, NULL);
            const int hs = mink_intersect(&c->a, &c->pa, &c->b, &c->pb, NULL);
            if (hr != hs && c->value >= 1e-3 * c->L) {
                if (bad++ < 10) printf("  %s intersect: ref %d simd %d\n", c->id, hr, hs);
            }
            continue;
        }
        if (query == CASE_QUERY_DISTANCE) {
            mink_ref_distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &r);
            mink_distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &s);
        } else {
            mink_ref_penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &r);
            mink_penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &s);
        }
        const double tol = SCALAR_AGREE * c->L;
        const int near = c->value < 1e-3 * c->L;
        const int overlap_dist = query == CASE_QUERY_DISTANCE && c->kind == CASE_PEN;
        const int unique_normal = !near && !overlap_dist && (c->normal[0] != 0 || c->normal[1] != 0 || c->normal[2] != 0);
        const double limit = c->kind == CASE_SEP ? SEP_ANGLE : PEN_ANGLE;
        const char *why = NULL;
        if (r.status != s.status) why = "status";
        else if (fabs((double)r.distance - s.distance) > tol) why = "distance";
        else if (unique_normal && angle(r.normal, s.normal) > limit) why = "normal";
        /* witnesses along the normal, where the normal is unique (ties such
         * as identical shapes have several equally good normals) */
        else if (unique_normal && (fabs(dot3(r.normal, r.point_a) - dot3(r.normal, s.point_a)) > tol ||
                                   fabs(dot3(r.normal, r.point_b) - dot3(r.normal, s.point_b)) > tol))
            why = "witness along the normal";
        if (why && bad++ < 10)
            printf("  %s %s: ref %.9g (%g %g %g) simd %.9g (%g %g %g) status %d %d\n", c->id, why, r.distance,
                   r.normal.x, r.normal.y, r.normal.z, s.distance, s.normal.x, s.normal.y, s.normal.z, r.status, s.status);
    }
    printf("%s %s: %zu cases, %u disagreements\n", name,
           query == CASE_QUERY_INTERSECT ? "intersect" : query == CASE_QUERY_DISTANCE ? "distance" : "penetration",
           set.count, bad);
    case_set_free(&set);
    return bad;
}

static void test_all_files(void **state)
{
    (void)state;
    static const char *files[] = {"mixed.cases", "degenerate.cases", "bench.cases", "traj.cases"};
    unsigned bad = 0;
    for (unsigned f = 0; f < 4; ++f)
        for (int q = CASE_QUERY_INTERSECT; q <= CASE_QUERY_PENETRATION; ++q) bad += compare_file(files[f], q);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_all_files)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
