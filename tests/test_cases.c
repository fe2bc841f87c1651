/* The query case files against both kernels and all three queries, checked
 * with FORMAT.md's tolerances (bench/cases.c), plus the case-file parser and
 * the checkers (queries and contact manifolds) on small hand-made inputs. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cases.h"

#ifndef MINK_TEST_DATA
#error "MINK_TEST_DATA must name the tests/data directory"
#endif

/* ------------------------------------------------------------ case files */

/* scenes.cases (slabs, planks, needles, size ratios, far offsets) and the
 * probe scenes once answered wrong (scenes-regressions.cases) are checked
 * with FORMAT.md's local tolerance (the smaller shape's size and the float
 * resolution of the coordinates), the others with 1e-4 L. The last two are
 * run again with one cache per group: trajectories frame to frame, scenes
 * case to case. */
static const char *const FILES[] = {"mixed.cases",    "bench.cases",
                                    "degenerate.cases", "degenerate-regressions.cases",
                                    "scenes-regressions.cases", "traj.cases",
                                    "scenes.cases"};
#define NFILES (sizeof FILES / sizeof FILES[0])
#define SCENES (NFILES - 1)
#define SCENE_REGRESSIONS 4
#define NCACHED 2
/* the local tolerance's files */
static int local_rule(unsigned file) { return file == SCENES || file == SCENE_REGRESSIONS; }

/* Loaded once by the group setup, shared read-only by the file tests. */
static case_set g_sets[NFILES];
static int g_loaded[NFILES];
static char g_load_err[NFILES][512];

typedef struct run_param {
    unsigned file;
    int kernel, query;
    int cache; /* one cache per group (trajectory), carried frame to frame */
    char name[96];
} run_param;

static const char *query_name(int q)
{
    return q == CASE_QUERY_INTERSECT ? "intersect" : q == CASE_QUERY_DISTANCE ? "distance" : "penetration";
}

static int load_files(void **state)
{
    (void)state;
    for (unsigned i = 0; i < NFILES; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", MINK_TEST_DATA, FILES[i]);
        g_loaded[i] = case_set_load(path, &g_sets[i], g_load_err[i], sizeof g_load_err[i]) == 0;
        if (g_loaded[i] && local_rule(i)) case_set_use_local_tolerance(&g_sets[i]);
    }
    return 0;
}

static int free_files(void **state)
{
    (void)state;
    for (unsigned i = 0; i < NFILES; ++i) case_set_free(&g_sets[i]);
    return 0;
}

/* An overlapping distance answer promises a common point (README): case_check
 * asks it within FORMAT.md's 1e-4 L, this within 1e-5 L (a quarter of the
 * local rule's tol on scenes.cases). The point comes from
 * the weights of a tetrahedron that holds the origin, exact up to rounding
 * (with the Johnson step's weights it was 1.7e-5 L out of B on traj01/f040). */
static int common_point_ok(const mink_case *c, const mink_result *r, int local, char *why, size_t whylen)
{
    /* the local rule's tol may be as small as 16 eps M: a quarter of it
     * leaves the world point's own rounding, a few eps M */
    const double tol = (local ? 0.25 : 0.1) * c->tol;
    return r->status < 0 || r->distance > 0.0f || case_check_common_point(c, r, tol, why, whylen);
}

static void test_case_file(void **state)
{
    const run_param *p = *state;
    if (!g_loaded[p->file]) fail_msg("%s", g_load_err[p->file]);
    const case_set *set = &g_sets[p->file];
    assert_true(set->count > 0);
    size_t failed = 0;
    mink_cache cache;
    mink_cache_reset(&cache);
    char group[256] = "", prev[256] = "", why[512];
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case *c = &set->cases[i];
        if (p->cache) {
            case_group(c->id, group, sizeof group);
            if (strcmp(group, prev) != 0) mink_cache_reset(&cache);
            memcpy(prev, group, sizeof prev);
        }
        mink_result r;
        case_run(c, p->kernel, p->query, p->cache ? &cache : NULL, &r);
        if (!case_check(c, p->query, &r, why, sizeof why) ||
            (p->query == CASE_QUERY_DISTANCE && !common_point_ok(c, &r, local_rule(p->file), why, sizeof why))) {
            if (failed < 20) print_message("  FAIL %s: %s\n", c->id, why);
            failed++;
        }
    }
    if (failed) print_message("%s: %zu of %zu cases failed\n", p->name, failed, set->count);
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------ parser */

static int parse(const char *text, case_set *set, char *err, size_t errlen)
{
    return case_set_parse(text, strlen(text), set, err, errlen);
}

/* Parses text that must be valid; the test fails with the parser's message otherwise. */
static void parse_ok(const char *text, case_set *set)
{
    char err[512];
    if (parse(text, set, err, sizeof err) != 0) fail_msg("%s", err);
}

/* Expects a parse error whose message names `line` and contains `what`. */
static void expect_error(const char *text, unsigned line, const char *what)
{
    case_set set;
    char err[512], want[32];
    err[0] = '\0';
    assert_int_equal(parse(text, &set, err, sizeof err), -1);
    assert_int_equal(set.count, 0);
    assert_null(set.cases);
    snprintf(want, sizeof want, "line %u:", line);
    if (!strstr(err, want) || (what && !strstr(err, what)))
        fail_msg("error message '%s' should contain '%s' and '%s'", err, want, what ? what : "");
}

#define POSE0 " 0 0 0 1 0 0 0 "
#define SPHERE_PAIR "sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 1 0 0"

static void test_parse_empty(void **state)
{
    (void)state;
    case_set set;
    char err[256];
    assert_int_equal(case_set_parse("", 0, &set, err, sizeof err), 0);
    assert_int_equal(set.count, 0);
    case_set_free(&set);
    assert_int_equal(case_set_parse(NULL, 0, &set, err, sizeof err), 0);
    assert_int_equal(set.count, 0);
    case_set_free(&set);
    assert_int_equal(parse("# only a comment\n\n   \t\r\n#\n", &set, err, sizeof err), 0);
    assert_int_equal(set.count, 0);
    case_set_free(&set);
}

static void test_parse_errors(void **state)
{
    (void)state;
    /* the malformed line is the third, after a comment and a good case */
    expect_error("# header\na " SPHERE_PAIR "\nb cube 1" POSE0 "sphere 1" POSE0 "sep 1 1 0 0\n", 3, "unknown shape");
    /* a short hull eats the pose: the error shows up as a bad pose number */
    expect_error("t hull 0 4 0 0 0 1 0 0 0 1" POSE0 "sphere 1" POSE0 "sep 1 1 0 0\n", 1, "bad number");
    expect_error("t hull 0 4 0 0 0 1 0 0 0 1 0", 1, "hull");
    expect_error("t hull 0 0" POSE0 "sphere 1" POSE0 "sep 1 1 0 0", 1, "count");
    expect_error("t hull 0 -3 0 0 0" POSE0 "sphere 1" POSE0 "sep 1 1 0 0", 1, "count");
    expect_error("t hull 0 99999999999999999999 0 0 0" POSE0 "sphere 1" POSE0 "sep 1 1 0 0", 1, "count");
    expect_error("t hull 0 1.5 0 0 0" POSE0 "sphere 1" POSE0 "sep 1 1 0 0", 1, "count");
    expect_error("t sphere 1.5x" POSE0 "sphere 1" POSE0 "sep 1 1 0 0", 1, "bad number");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 1 0", 1, "missing");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0", 1, "missing");
    expect_error("t", 1, "missing");
    expect_error("t " SPHERE_PAIR " extra", 1, "trailing");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 hit 1 1 0 0", 1, "expectation");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep nan 1 0 0", 1, "finite");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 inf 0 0", 1, "finite");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep -1 1 0 0", 1, "negative");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 1 1 0", 1, "unit");
    expect_error("t sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 1 0 0 # ok\nt " SPHERE_PAIR "\n", 2, "duplicate");
    expect_error("\n\n\n\nt sphere" POSE0, 5, NULL);
    /* a NUL byte inside a number or an id */
    static const char nul_num[] = "t sphere 1\0 0 0 0 1 0 0 0 sphere 1 3 0 0 1 0 0 0 sep 1 1 0 0";
    case_set set;
    char err[256];
    assert_int_equal(case_set_parse(nul_num, sizeof nul_num - 1, &set, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 1:"));
    static const char nul_id[] = "t\0u " SPHERE_PAIR;
    assert_int_equal(case_set_parse(nul_id, sizeof nul_id - 1, &set, err, sizeof err), -1);
    /* a tiny error buffer, and none at all, are fine */
    assert_int_equal(parse("t", &set, err, 4), -1);
    assert_true(strlen(err) < 4);
    assert_int_equal(parse("t", &set, NULL, 0), -1);
}

static void test_parse_patch_errors(void **state)
{
    (void)state;
    /* what follows a good case line, and what the message must say */
    static const char *const bad[][2] = {
        {" patch", "missing token: expected patch point count"},
        {" patch 0", "bad patch point count"},
        {" patch -1 0 0 0", "bad patch point count"},
        {" patch 1.5 0 0 0", "bad patch point count"},
        {" patch x 0 0 0", "bad patch point count"},
        {" patch 99999999999999999999 0 0 0", "bad patch point count"},
        {" patch 2 0 0 0 1 0", "patch of 2 points needs 6 coordinates"},
        {" patch 1 0 x 0", "bad number for patch coordinate 2"},
        {" patch 1 0 0 1e999", "not finite"},
        {" patch 1 0 nan 0", "not finite"},
        {" patch 1 0 0 0 0", "1 trailing token(s) after the patch"},
        {" patch 1 0 0 0 patch 1 0 0 0", "trailing token(s) after the patch"},
        {" patchy 1 0 0 0", "trailing token(s) after the expectation"},
    };
    char text[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        snprintf(text, sizeof text, "a " SPHERE_PAIR "\nt " SPHERE_PAIR "%s\n", bad[i][0]);
        expect_error(text, 2, bad[i][1]);
    }
}

static void test_parse_patch(void **state)
{
    (void)state;
    case_set set;
    parse_ok("a " SPHERE_PAIR " patch 2 1 0 0 -1 0.5 2e-3  # a segment\nb " SPHERE_PAIR "\n", &set);
    assert_int_equal(set.count, 2);
    const mink_case *c = &set.cases[0];
    assert_int_equal(c->patch_count, 2);
    assert_non_null(c->patch);
    const double want[6] = {1, 0, 0, -1, 0.5, 2e-3};
    for (int k = 0; k < 6; ++k) assert_true(c->patch[k] == want[k]);
    assert_int_equal(set.cases[1].patch_count, 0);
    assert_null(set.cases[1].patch);
    case_set_free(&set);
}

static void test_parse_bounded(void **state)
{
    (void)state;
    /* only len bytes are read: what follows (no NUL, a broken line) is unseen */
    const char text[] = "a " SPHERE_PAIR "\nb sphere oops";
    const size_t len = strlen("a " SPHERE_PAIR);
    case_set set;
    char err[256];
    assert_int_equal(case_set_parse(text, len, &set, err, sizeof err), 0);
    assert_int_equal(set.count, 1);
    assert_string_equal(set.cases[0].id, "a");
    case_set_free(&set);
    /* and a cut inside a number changes the number, not the memory read */
    const char cut[] = "a sphere 1" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 1 0 0.000";
    assert_int_equal(case_set_parse(cut, sizeof cut - 5, &set, err, sizeof err), 0);
    assert_int_equal(set.count, 1);
    case_set_free(&set);
}

static void test_parse_values(void **state)
{
    (void)state;
    const char *text =
        "# two hand-made cases\n"
        "  c.1 box 0.1 1 2 3  10 20 30  0 1 0 0\tsphere 0.5 -1 0 0 1 0 0 0 pen 0.25 0 0 -1 # comment\r\n"
        "traj3/f07 hull 0.2 4 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 capsule 0.3 0.7 0 2 0 1 0 0 0 sep 0.5 0 1 0";
    case_set set;
    parse_ok(text, &set);
    assert_int_equal(set.count, 2);

    const mink_case *c = &set.cases[0];
    assert_string_equal(c->id, "c.1");
    assert_int_equal(c->sa.type, MINK_SHAPE_BOX);
    assert_true(c->sa.radius == 0.1 && c->sa.param[0] == 1 && c->sa.param[1] == 2 && c->sa.param[2] == 3);
    /* `box r hx hy hz` in the file; mink_box(hx, hy, hz, r) */
    assert_int_equal(c->a.type, MINK_SHAPE_BOX);
    assert_true(c->a.half[0] == 1.0f && c->a.half[1] == 2.0f && c->a.half[2] == 3.0f);
    assert_true(c->a.radius == 0.1f);
    /* w first in the file; mink_quat is x, y, z, w */
    assert_true(c->qa.q[0] == 0 && c->qa.q[1] == 1 && c->qa.q[2] == 0 && c->qa.q[3] == 0);
    assert_true(c->pa.q.w == 0.0f && c->pa.q.x == 1.0f && c->pa.q.y == 0.0f && c->pa.q.z == 0.0f);
    assert_true(c->pa.p.x == 10.0f && c->pa.p.y == 20.0f && c->pa.p.z == 30.0f);
    assert_true(c->pb.q.w == 1.0f && c->pb.q.x == 0.0f);
    assert_int_equal(c->sb.type, MINK_SHAPE_SPHERE);
    assert_int_equal(c->b.type, MINK_SHAPE_SPHERE);
    assert_true(c->b.radius == 0.5f);
    assert_int_equal(c->kind, CASE_PEN);
    assert_true(c->value == 0.25 && c->normal[0] == 0 && c->normal[1] == 0 && c->normal[2] == -1);
    /* Box corners after a half turn about x: (10 +- 1, 20 -+ 2, 30 -+ 3);
     * the largest |coordinate| is 33, plus radius 0.1. The sphere: 1 + 0.5. */
    assert_float_equal(c->L, 33.1, 1e-12);

    c = &set.cases[1];
    assert_string_equal(c->id, "traj3/f07");
    assert_int_equal(c->sa.type, MINK_SHAPE_HULL);
    assert_int_equal(c->sa.n, 4);
    assert_true(c->sa.pts[3] == 1 && c->sa.pts[7] == 1 && c->sa.pts[11] == 1);
    assert_int_equal(c->a.type, MINK_SHAPE_HULL);
    assert_int_equal(c->a.count, 4);
    assert_true(c->a.radius == 0.2f);
    assert_int_equal((uintptr_t)c->a.x % MINK_HULL_ALIGN, 0);
    assert_true(c->a.x[1] == 1.0f && c->a.y[2] == 1.0f && c->a.z[3] == 1.0f);
    assert_int_equal(c->b.type, MINK_SHAPE_CAPSULE);
    assert_true(c->b.half[1] == 0.7f && c->b.radius == 0.3f);
    assert_true(c->sb.param[0] == 0.7 && c->sb.radius == 0.3);
    assert_int_equal(c->kind, CASE_SEP);
    /* hull: 1 + 0.2; capsule: end (0, 2.7, 0) + 0.3 */
    assert_float_equal(c->L, 3.0, 1e-12);

    /* support functions, d not unit */
    const double dx[3] = {2, 0, 0}, dy[3] = {0, 1, 0}, dz[3] = {0, 0, 1}, dmy[3] = {0, -1, 0};
    assert_float_equal(case_support_h(&c->sa, &c->qa, dx), 2.0 + 0.4, 1e-12);
    assert_float_equal(case_support_h(&c->sb, &c->qb, dy), 2.7 + 0.3, 1e-12);
    assert_float_equal(case_support_h(&c->sb, &c->qb, dmy), -1.3 + 0.3, 1e-12);
    c = &set.cases[0];
    /* the box turned half about x: its top along z is 30 + 3 (the -z face moved up) */
    assert_float_equal(case_support_h(&c->sa, &c->qa, dz), 33.1, 1e-12);
    assert_float_equal(case_support_h(&c->sa, &c->qa, dy), 22.1, 1e-12);
    case_set_free(&set);
}

static void test_parse_invalid_shape_kept(void **state)
{
    (void)state;
    /* A shape the constructor rejects is a case whose query fails, not a
     * parse error. */
    case_set set;
    char why[256];
    parse_ok("neg sphere -1" POSE0 "box 0 1 1 1 3 0 0 1 0 0 0 sep 1 1 0 0\n"
              "nan hull 0 1 nan 0 0" POSE0 "sphere 1 3 0 0 1 0 0 0 sep 1 1 0 0\n", &set);
    assert_int_equal(set.count, 2);
    for (size_t i = 0; i < 2; ++i) {
        assert_int_equal(set.cases[i].a.type, MINK_SHAPE_INVALID);
        mink_result r;
        assert_int_equal(case_run(&set.cases[i], CASE_KERNEL_REF, CASE_QUERY_PENETRATION, NULL, &r), MINK_ERR_INVALID);
        assert_int_equal(case_check(&set.cases[i], CASE_QUERY_PENETRATION, &r, why, sizeof why), 0);
        assert_int_equal(case_run(&set.cases[i], CASE_KERNEL_SIMD, CASE_QUERY_INTERSECT, NULL, &r), MINK_ERR_INVALID);
        assert_int_equal(case_check(&set.cases[i], CASE_QUERY_INTERSECT, &r, why, sizeof why), 0);
    }
    case_set_free(&set);
}

/* Mutations of a good file (byte flips, cuts, inserted separators):
 * whatever they parse to, no crash, no leak (run under ASan in sanitizer
 * builds). The real fuzzing is libFuzzer's; this keeps the basics in ctest. */
static void test_parse_garbage(void **state)
{
    (void)state;
    static const char good[] =
        "# comment\n"
        "a.1 hull 0.1 4 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 box 0.1 1 2 3 1 2 3 0.5 0.5 0.5 0.5 pen 0.25 0 0 -1\n"
        "a.2 capsule 0.3 0.7 0 2 0 1 0 0 0 sphere 1 3 0 0 1 0 0 0 sep 1e-3 1 0 0\n"
        "a.3 box 0 1 1 1 0 0 0 1 0 0 0 sphere 0.5 0 1.49 0 1 0 0 0 pen 0.01 0 1 0 patch 2 0 1 0 1 1 0\n";
    static const char alphabet[] = " \t\n#.-+0123456789eEnaifxhullsepboxspherepatch\r";
    char buf[sizeof good + 64];
    uint32_t seed = 12345u;
    for (int iter = 0; iter < 20000; ++iter) {
        memcpy(buf, good, sizeof good);
        size_t len = sizeof good - 1;
        const int edits = 1 + iter % 4;
        for (int e = 0; e < edits; ++e) {
            seed = seed * 1664525u + 1013904223u;
            const size_t at = (seed >> 8) % len;
            seed = seed * 1664525u + 1013904223u;
            const unsigned what = seed >> 28;
            if (what < 8) buf[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
            else if (what < 10) buf[at] = (char)(seed >> 16);
            else if (what < 12) len = at + 1;
            else if (len + 1 < sizeof buf) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
                len++;
            }
        }
        case_set set;
        char err[256];
        if (case_set_parse(buf, len, &set, err, sizeof err) == 0) {
            for (size_t i = 0; i < set.count; ++i) {
                mink_result r;
                case_run(&set.cases[i], CASE_KERNEL_REF, CASE_QUERY_PENETRATION, NULL, &r);
                (void)case_check(&set.cases[i], CASE_QUERY_PENETRATION, &r, err, sizeof err);
            }
            case_set_free(&set);
        } else {
            assert_non_null(strstr(err, "line "));
        }
    }
}

static void test_group(void **state)
{
    (void)state;
    char g[64];
    case_group("hull32-sep.017", g, sizeof g);
    assert_string_equal(g, "hull32-sep");
    case_group("traj07/f001", g, sizeof g);
    assert_string_equal(g, "traj07");
    case_group("mixed.0001", g, sizeof g);
    assert_string_equal(g, "mixed");
    case_group("a.b.c", g, sizeof g);
    assert_string_equal(g, "a.b");
    case_group("plain", g, sizeof g);
    assert_string_equal(g, "plain");
    case_group("hull32-sep.017", g, 5);
    assert_string_equal(g, "hull");
}

/* ------------------------------------------------------------ checker */

static mink_result result(float d, float nx, float ny, float nz, float ax, float ay, float az, float bx, float by, float bz)
{
    mink_result r;
    memset(&r, 0, sizeof r);
    r.distance = d;
    r.normal.x = nx; r.normal.y = ny; r.normal.z = nz;
    r.point_a.x = ax; r.point_a.y = ay; r.point_a.z = az;
    r.point_b.x = bx; r.point_b.y = by; r.point_b.z = bz;
    return r;
}

static void want_check(const mink_case *c, int query, mink_result r, int want, const char *reason)
{
    char why[512];
    const int got = case_check(c, query, &r, why, sizeof why);
    if (got != want) fail_msg("case %s, %s: want %s, got %s (%s)", c->id, query_name(query), want ? "pass" : "fail",
                              got ? "pass" : "fail", why);
    if (!want && reason && !strstr(why, reason)) fail_msg("reason '%s' should mention '%s'", why, reason);
}

static void test_check_spheres(void **state)
{
    (void)state;
    /* unit spheres: centres 3 apart (sep 1), 1.5 apart (pen 0.5); L = 4, tol 4e-4 */
    case_set set;
    parse_ok("s " SPHERE_PAIR "\np sphere 1" POSE0 "sphere 1 1.5 0 0 1 0 0 0 pen 0.5 1 0 0\n", &set);
    const mink_case *s = &set.cases[0], *p = &set.cases[1];
    assert_float_equal(s->L, 4.0, 0.0);
    assert_float_equal(p->L, 2.5, 0.0);
    const int D = CASE_QUERY_DISTANCE, P = CASE_QUERY_PENETRATION, I = CASE_QUERY_INTERSECT;

    const mink_result sep = result(1.0002f, 1, 0, 0, 1, 0, 0, 2.0002f, 0, 0);
    want_check(s, D, sep, 1, NULL);
    want_check(s, P, sep, 1, NULL);
    want_check(s, I, sep, 1, NULL);
    want_check(s, D, result(1.001f, 1, 0, 0, 1, 0, 0, 2.001f, 0, 0), 0, "distance");
    want_check(s, D, result(1, 0.99f, 0.141f, 0, 1, 0, 0, 1.99f, 0.141f, 0), 0, "normal");
    want_check(s, D, result(1, 1, 0, 0, 1, 0.5f, 0, 2, 0.5f, 0), 0, "pA");
    want_check(s, D, result(1, 1, 0, 0, 1, 0, 0, 2.5f, 0, 0), 0, "witnesses");
    want_check(s, P, result(-1, 1, 0, 0, 1, 0, 0, 0, 0, 0), 0, "expected sep");
    want_check(s, I, result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, "expected sep");
    mink_result bad = sep;
    bad.status = MINK_ERR_INVALID;
    want_check(s, D, bad, 0, "status");
    bad = sep;
    bad.point_a.y = NAN;
    want_check(s, D, bad, 0, "finite");
    bad = sep;
    bad.status = MINK_MAX_ITERATIONS; /* a capped query passes on its numbers */
    want_check(s, D, bad, 1, NULL);

    /* pen: pB - pA = -depth * n, pA A's point deepest in B */
    const mink_result pen = result(-0.5f, 1, 0, 0, 1, 0, 0, 0.5f, 0, 0);
    want_check(p, P, pen, 1, NULL);
    want_check(p, P, result(-0.501f, 1, 0, 0, 1, 0, 0, 0.499f, 0, 0), 0, "depth");
    want_check(p, P, result(0.5f, 1, 0, 0, 1, 0, 0, 1.5f, 0, 0), 0, "expected pen");
    want_check(p, P, result(-0.5f, 1, 0, 0, 1, 0, 0, 0.6f, 0, 0), 0, "witnesses");
    /* the distance query only says "overlapping" on pen cases */
    want_check(p, D, result(0, 1, 0, 0, 0.75f, 0, 0, 0.75f, 0, 0), 1, NULL);
    want_check(p, D, result(0.1f, 1, 0, 0, 1, 0, 0, 1.1f, 0, 0), 0, "expected pen");
    want_check(p, I, result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, NULL);
    want_check(p, I, result(1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, "expected pen");
    case_set_free(&set);
}

static void test_check_touching_and_ties(void **state)
{
    (void)state;
    case_set set;
    /* t: spheres 2.0001 apart, sep 1e-4 < 1e-3 * L (L = 3.0001): either kind
     * within tol 3.0001e-4 of the signed value; u: the same 2.0009 apart.
     * b: unit cubes (half 1), B at (1.9, 1.90005, 0): depth 0.09995 along y,
     * 0.1 along x: a near tie, L = 2.90005, tol 2.9e-4. */
    parse_ok("t sphere 1" POSE0 "sphere 1 2.0001 0 0 1 0 0 0 sep 0.0001 1 0 0\n"
              "u sphere 1" POSE0 "sphere 1 2.0009 0 0 1 0 0 0 sep 0.0009 1 0 0\n"
              "b box 0 1 1 1" POSE0 "box 0 1 1 1 1.9 1.90005 0 1 0 0 0 pen 0.09995 0 1 0\n", &set);
    const mink_case *t = &set.cases[0], *u = &set.cases[1], *b = &set.cases[2];
    const int D = CASE_QUERY_DISTANCE, P = CASE_QUERY_PENETRATION, I = CASE_QUERY_INTERSECT;
    /* touching: the kind is free, the signed value is not; the normal is free */
    want_check(t, P, result(0.0003f, 0, 1, 0, 1.00005f, -0.00015f, 0, 1.00005f, 0.00015f, 0), 1, NULL);
    want_check(t, P, result(-0.0001f, 1, 0, 0, 1.0001f, 0, 0, 1.0f, 0, 0), 1, NULL);
    want_check(t, P, result(-0.0004f, 1, 0, 0, 1.0002f, 0, 0, 0.9998f, 0, 0), 0, "near-touching");
    want_check(t, D, result(0, 1, 0, 0, 1, 0, 0, 1, 0, 0), 1, NULL);
    want_check(u, D, result(0, 1, 0, 0, 1, 0, 0, 1, 0, 0), 0, "near-touching"); /* 9e-4 > tol */
    want_check(u, D, result(0.0009f, 1, 0, 0, 1, 0, 0, 1.0009f, 0, 0), 1, NULL);
    want_check(u, I, result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, NULL);
    want_check(u, I, result(1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, NULL);
    /* near tie: the x face is 5e-5 deeper than the y face: accepted */
    want_check(b, P, result(-0.09995f, 0, 1, 0, 0.95f, 1, 0, 0.95f, 0.90005f, 0), 1, NULL);
    want_check(b, P, result(-0.1f, 1, 0, 0, 1, 0.95f, 0, 0.9f, 0.95f, 0), 1, NULL);
    want_check(b, P, result(-0.1f, 0, 0, 1, 0.95f, 0.95f, 1, 0.95f, 0.95f, 0.9f), 0, "depth along");
    case_set_free(&set);
}

static void test_check_witnesses_on_shapes(void **state)
{
    (void)state;
    /* a unit sphere over the edge of a cube's top face (half 1): its centre
     * at (1.02, 3, 0), the distance sqrt(4 + 0.02^2) - 1 = 1.0001, a free
     * normal (0 0 0); L = 4, tol 4e-4. On the face's plane 0.02 beyond its
     * edge, pA is on A's support plane along y but not on A. */
    case_set set;
    parse_ok("e box 0 1 1 1" POSE0 "sphere 1 1.02 3 0 1 0 0 0 sep 1.0001 0 0 0\n", &set);
    const mink_case *e = &set.cases[0];
    const int D = CASE_QUERY_DISTANCE, P = CASE_QUERY_PENETRATION;
    const float d = 1.0001f, ny = 2.0f / 2.0001f, nx = 0.02f / 2.0001f;
    /* the edge and the sphere's nearest point */
    want_check(e, D, result(d, nx, ny, 0, 1, 1, 0, 1.0f + nx * d, 1.0f + ny * d, 0), 1, NULL);
    want_check(e, P, result(d, nx, ny, 0, 1, 1, 0, 1.0f + nx * d, 1.0f + ny * d, 0), 1, NULL);
    /* the foot beyond the edge, the sphere's lowest point above it */
    want_check(e, D, result(d, 0, 1, 0, 1.02f, 1, 0, 1.02f, 2.0001f, 0), 0, "outside A's surface");
    want_check(e, P, result(d, 0, 1, 0, 1.02f, 1, 0, 1.02f, 2.0001f, 0), 0, "outside A's surface");
    case_set_free(&set);
}

static char *print_to_string(const mink_case *c, int query, const mink_result *r)
{
    static char buf[512];
    FILE *f = tmpfile();
    assert_non_null(f);
    case_print_result(f, c, query, r);
    rewind(f);
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_print(void **state)
{
    (void)state;
    case_set set;
    parse_ok("x.1 " SPHERE_PAIR, &set);
    const mink_case *c = &set.cases[0];
    mink_result r = result(1.5f, 1, 0, 0, 1, 0, 0, 2.5f, 0, 0);
    assert_string_equal(print_to_string(c, CASE_QUERY_PENETRATION, &r), "x.1 sep 1.5 1 0 0 1 0 0 2.5 0 0\n");
    r = result(-0.25f, 0, 1, 0, 0, 1, 0, 0, 0.75f, 0);
    assert_string_equal(print_to_string(c, CASE_QUERY_PENETRATION, &r), "x.1 pen 0.25 0 1 0 0 1 0 0 0.75 0\n");
    r = result(0, 0, 1, 0, 0.5f, 0, 0, 0.5f, 0, 0);
    assert_string_equal(print_to_string(c, CASE_QUERY_DISTANCE, &r), "x.1 pen 0 0 1 0 0.5 0 0 0.5 0 0\n");
    r = result(-0.0f, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    assert_string_equal(print_to_string(c, CASE_QUERY_PENETRATION, &r), "x.1 pen 0 0 1 0 0 0 0 0 0 0\n");
    r = result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    assert_string_equal(print_to_string(c, CASE_QUERY_INTERSECT, &r), "x.1 pen 0 0 0 0 0 0 0 0 0 0\n");
    r = result(0.1f, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    assert_string_equal(print_to_string(c, CASE_QUERY_DISTANCE, &r), "x.1 sep 0.100000001 0 0 0 0 0 0 0 0 0\n");
    r.status = MINK_ERR_INVALID;
    assert_string_equal(print_to_string(c, CASE_QUERY_DISTANCE, &r), "x.1 err -1\n");
    case_set_free(&set);
}

/* ------------------------------------------------------------ manifolds */

/* A manifold with normal (0, 1, 0) and n points, each row pa, pb, separation;
 * keys 1..n. */
static struct mink_manifold up_manifold(unsigned n, const float pts[][7])
{
    struct mink_manifold m;
    memset(&m, 0, sizeof m);
    m.normal.y = 1.0f;
    m.count = n;
    for (unsigned i = 0; i < n && i < MINK_MANIFOLD_POINTS; ++i) {
        mink_contact *c = &m.points[i];
        c->point_a.x = pts[i][0]; c->point_a.y = pts[i][1]; c->point_a.z = pts[i][2];
        c->point_b.x = pts[i][3]; c->point_b.y = pts[i][4]; c->point_b.z = pts[i][5];
        c->separation = pts[i][6];
        c->id = i + 1;
    }
    return m;
}

static void want_manifold(const mink_case *c, double margin, struct mink_manifold m, int want, const char *reason)
{
    char why[512];
    const int got = case_check_manifold(c, margin, &m, why, sizeof why);
    if (got != want)
        fail_msg("case %s, margin %g: want %s, got %s (%s)", c->id, margin, want ? "pass" : "fail",
                 got ? "pass" : "fail", why);
    if (!want && reason && !strstr(why, reason)) fail_msg("reason '%s' should mention '%s'", why, reason);
}

/* A 1 x 1 x 1 box sunk 0.01 into a slab whose top face is y = 0.5: four
 * corners, each pa on the slab's top, pb 0.01 below it on the box's bottom. */
#define SLAB "box 0 2 0.5 2" POSE0
#define REST_PATCH "patch 4 0.5 0.5 0.5 0.5 0.5 -0.5 -0.5 0.5 -0.5 -0.5 0.5 0.5"
static const float REST[4][7] = {{0.5f, 0.5f, 0.5f, 0.5f, 0.49f, 0.5f, -0.01f},
                                 {0.5f, 0.5f, -0.5f, 0.5f, 0.49f, -0.5f, -0.01f},
                                 {-0.5f, 0.5f, -0.5f, -0.5f, 0.49f, -0.5f, -0.01f},
                                 {-0.5f, 0.5f, 0.5f, -0.5f, 0.49f, 0.5f, -0.01f}};

static void test_manifold_box_on_slab(void **state)
{
    (void)state;
    case_set set;
    /* L = 2 (the slab): tol 2e-4, near 2e-3 */
    parse_ok("rest " SLAB "box 0 0.5 0.5 0.5 0 0.99 0 1 0 0 0 pen 0.01 0 1 0 " REST_PATCH "\n"
              "gap " SLAB "box 0 0.5 0.5 0.5 0 1.1 0 1 0 0 0 sep 0.1 0 1 0\n"
              "touch " SLAB "box 0 0.5 0.5 0.5 0 0.9995 0 1 0 0 0 pen 0.0005 0 1 0\n", &set);
    const mink_case *rest = &set.cases[0], *gap = &set.cases[1], *touch = &set.cases[2];
    assert_float_equal(rest->L, 2.0, 0.0);
    const struct mink_manifold good = up_manifold(4, REST);
    want_manifold(rest, 0.0, good, 1, NULL);
    want_manifold(rest, 0.025, good, 1, NULL);
    struct mink_manifold m = good; /* in any order, with any distinct keys */
    m.points[0] = good.points[2];
    m.points[2] = good.points[0];
    m.points[0].id = 77;
    m.points[3].id = 0;
    want_manifold(rest, 0.0, m, 1, NULL);

    /* count, status */
    want_manifold(rest, 0.0, up_manifold(0, REST), 0, "count 0");
    m = good;
    m.count = 5;
    want_manifold(rest, 0.0, m, 0, "count 5 > 4");
    m = good;
    m.status = MINK_ERR_INVALID;
    want_manifold(rest, 0.0, m, 0, "status -1");
    m.status = MINK_MAX_ITERATIONS; /* a capped query passes on its numbers */
    want_manifold(rest, 0.0, m, 1, NULL);
    /* separated by 0.1: nothing at margin 0, the bottom's corners at 0.2 */
    const float above[2][7] = {{0.5f, 0.5f, 0.5f, 0.5f, 0.6f, 0.5f, 0.1f},
                               {-0.5f, 0.5f, -0.5f, -0.5f, 0.6f, -0.5f, 0.1f}};
    want_manifold(gap, 0.0, up_manifold(0, above), 1, NULL);
    want_manifold(gap, 0.0, up_manifold(2, above), 0, "above the margin");
    want_manifold(gap, 0.2, up_manifold(2, above), 1, NULL);
    want_manifold(gap, 0.2, up_manifold(0, above), 0, "count 0");
    /* within near of the margin either answer, but no point above it */
    want_manifold(gap, 0.099, up_manifold(0, above), 1, NULL);
    want_manifold(gap, 0.099, up_manifold(2, above), 0, "separation 0.100000001 > margin 0.099");
    const float grazing[1][7] = {{0.5f, 0.5f, 0.5f, 0.5f, 0.4995f, 0.5f, -0.0005f}};
    want_manifold(touch, 0.0, up_manifold(0, grazing), 1, NULL);
    want_manifold(touch, 0.0, up_manifold(1, grazing), 1, NULL);

    /* the normal: 0.05 rad off (limit 1e-2 for pen, and no near tie), not unit */
    m = good;
    m.normal.x = (float)sin(0.05);
    m.normal.y = (float)cos(0.05);
    want_manifold(rest, 0.0, m, 0, "rad from expected");
    m = good;
    m.normal.y = 1.01f;
    want_manifold(rest, 0.0, m, 0, "not unit");

    /* the points: on the surfaces, consistent, keys distinct */
    m = good;
    m.points[2].point_a.y += 0.001f; /* above the slab, inside the box */
    m.points[2].point_b.y += 0.001f;
    want_manifold(rest, 0.0, m, 0, "point 2: pA -0.5 0.500999987 -0.5 is 0.001 outside A's surface");
    m = good;
    m.points[1].point_a.x = m.points[1].point_b.x = 0.6f; /* on the slab's top, off the box */
    want_manifold(rest, 0.0, m, 0, "outside B's surface");
    m = good;
    m.points[3].separation = -0.005f;
    want_manifold(rest, 0.0, m, 0, "point 3: witnesses");
    m = good;
    m.points[3].id = m.points[0].id;
    want_manifold(rest, 0.0, m, 0, "points 0 and 3 share the key 1");
    m = good;
    m.points[1].point_b.z = NAN;
    want_manifold(rest, 0.0, m, 0, "non-finite");

    /* the patch: three corners hold half its area */
    want_manifold(rest, 0.0, up_manifold(3, REST), 0, "50 % of the patch's 1");
    case_set_free(&set);
}

static void test_manifold_patches(void **state)
{
    (void)state;
    case_set set;
    /* ball: a sphere sunk 0.01 into the slab (k = 1). small: the box on the
     * slab with a patch that claims less than the box's bottom. oct: a box
     * turned 45 degrees about y on a box of the same size: their faces
     * overlap in an octagon (k = 8). rod: a capsule lying along x (k = 2). */
    parse_ok("ball " SLAB "sphere 0.5 0 0.99 0 1 0 0 0 pen 0.01 0 1 0 patch 1 0 0.5 0\n"
              "small " SLAB "box 0 0.5 0.5 0.5 0 0.99 0 1 0 0 0 pen 0.01 0 1 0 "
              "patch 4 0.4 0.5 0.4 0.4 0.5 -0.4 -0.4 0.5 -0.4 -0.4 0.5 0.4\n"
              "oct box 0 0.5 0.5 0.5" POSE0 "box 0 0.5 0.5 0.5 0 0.99 0 0.9238795325112867 0 0.3826834323650898 0 "
              "pen 0.01 0 1 0 patch 8 0.5 0.5 0.20710678118654757 0.5 0.5 -0.20710678118654757 "
              "0.20710678118654757 0.5 -0.5 -0.20710678118654757 0.5 -0.5 -0.5 0.5 -0.20710678118654757 "
              "-0.5 0.5 0.20710678118654757 -0.20710678118654757 0.5 0.5 0.20710678118654757 0.5 0.5\n"
              "rod " SLAB "capsule 0.25 0.5 0 0.74 0 0.7071067811865476 0 0 0.7071067811865476 pen 0.01 0 1 0 "
              "patch 2 -0.5 0.5 0 0.5 0.5 0\n", &set);
    const mink_case *ball = &set.cases[0], *small = &set.cases[1], *oct = &set.cases[2], *rod = &set.cases[3];

    /* k = 1: the lowest point; a second point on both surfaces, consistent
     * and within the margin, is still off the patch */
    const float bottom[2][7] = {{0, 0.5f, 0, 0, 0.49f, 0, -0.01f},
                                {0.1f, 0.5f, 0, 0.1f, 0.500102f, 0, 0.000102f}};
    want_manifold(ball, 0.025, up_manifold(1, bottom), 1, NULL);
    want_manifold(ball, 0.025, up_manifold(2, bottom), 0, "point 1: pA 0.100000001 0.5 0 is 0.1 outside the patch");
    /* the smallest separation is the signed distance */
    want_manifold(ball, 0.025, up_manifold(1, bottom + 1), 0, "smallest separation");

    /* in the patch, within tol */
    want_manifold(small, 0.0, up_manifold(4, REST), 0, "is 0.141 outside the patch of 4");

    /* k > 4: every other corner of the octagon holds 71 % of it (>= 50 %), three 35 % */
    const float h = 0.20710678f;
    const float alt[4][7] = {{0.5f, 0.5f, h, 0.5f, 0.49f, h, -0.01f},
                             {-h, 0.5f, 0.5f, -h, 0.49f, 0.5f, -0.01f},
                             {-0.5f, 0.5f, -h, -0.5f, 0.49f, -h, -0.01f},
                             {h, 0.5f, -0.5f, h, 0.49f, -0.5f, -0.01f}};
    want_manifold(oct, 0.0, up_manifold(4, alt), 1, NULL);
    want_manifold(oct, 0.0, up_manifold(3, alt), 0, "want >= 50 %");

    /* k = 2: both ends; one end, or 80 % of the segment, is too little */
    const float ends[2][7] = {{-0.5f, 0.5f, 0, -0.5f, 0.49f, 0, -0.01f}, {0.5f, 0.5f, 0, 0.5f, 0.49f, 0, -0.01f}};
    const float inner[2][7] = {{-0.4f, 0.5f, 0, -0.4f, 0.49f, 0, -0.01f}, {0.4f, 0.5f, 0, 0.4f, 0.49f, 0, -0.01f}};
    want_manifold(rod, 0.0, up_manifold(2, ends), 1, NULL);
    want_manifold(rod, 0.0, up_manifold(1, ends), 0, "cover 0 % of the patch segment");
    want_manifold(rod, 0.0, up_manifold(2, inner), 0, "cover 80 % of the patch segment");
    case_set_free(&set);
}

static void test_manifold_run_and_print(void **state)
{
    (void)state;
    case_set set;
    parse_ok("rest " SLAB "box 0 0.5 0.5 0.5 0 0.99 0 1 0 0 0 pen 0.01 0 1 0 " REST_PATCH "\n"
              "neg sphere -1" POSE0 "box 0 1 1 1 3 0 0 1 0 0 0 sep 1 1 0 0\n", &set);
    /* an invalid shape is an error for both kernels, and fails the check */
    const mink_case *neg = &set.cases[1];
    char why[256];
    struct mink_manifold m;
    for (int k = CASE_KERNEL_REF; k <= CASE_KERNEL_SIMD; ++k) {
        assert_int_equal(case_run_manifold(neg, k, 0.0f, NULL, &m), MINK_ERR_INVALID);
        assert_int_equal(m.status, MINK_ERR_INVALID);
        assert_int_equal(case_check_manifold(neg, 0.0, &m, why, sizeof why), 0);
    }

    char buf[512];
    FILE *f = tmpfile();
    assert_non_null(f);
    case_print_manifold(f, neg, &m);
    m = up_manifold(1, REST);
    m.points[0].id = 4000000000u;
    case_print_manifold(f, &set.cases[0], &m);
    m.count = 0;
    case_print_manifold(f, &set.cases[0], &m);
    rewind(f);
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_string_equal(buf, "neg err -1\n"
                             "rest man 1 0 1 0 0.5 0.5 0.5 0.5 0.49000001 0.5 -0.00999999978 4000000000\n"
                             "rest man 0 0 1 0\n");
    case_set_free(&set);
}

/* ------------------------------------------------------------ main */

int main(void)
{
    const struct CMUnitTest unit[] = {
        cmocka_unit_test(test_parse_empty),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_patch_errors),
        cmocka_unit_test(test_parse_patch),
        cmocka_unit_test(test_parse_bounded),
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_parse_invalid_shape_kept),
        cmocka_unit_test(test_parse_garbage),
        cmocka_unit_test(test_group),
        cmocka_unit_test(test_check_spheres),
        cmocka_unit_test(test_check_touching_and_ties),
        cmocka_unit_test(test_check_witnesses_on_shapes),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_manifold_box_on_slab),
        cmocka_unit_test(test_manifold_patches),
        cmocka_unit_test(test_manifold_run_and_print),
    };
    int failed = cmocka_run_group_tests_name("case parser and checker", unit, NULL, NULL);

    /* every file x kernel x query, and the last NCACHED again with caches */
    enum { NQ = 3, NK = 2, NRUNS = (NFILES + NCACHED) * NK * NQ };
    static run_param params[NRUNS];
    static struct CMUnitTest runs[NRUNS];
    static const int queries[NQ] = {CASE_QUERY_INTERSECT, CASE_QUERY_DISTANCE, CASE_QUERY_PENETRATION};
    size_t n = 0;
    for (unsigned f = 0; f < NFILES + NCACHED; ++f)
        for (int k = 0; k < NK; ++k)
            for (int q = 0; q < NQ; ++q) {
                run_param *p = &params[n];
                const int cached = f >= NFILES;
                p->file = cached ? f - NCACHED : f;
                p->kernel = k == 0 ? CASE_KERNEL_REF : CASE_KERNEL_SIMD;
                p->query = queries[q];
                p->cache = cached;
                snprintf(p->name, sizeof p->name, "%s %s %s%s", FILES[p->file], k == 0 ? "ref" : "simd",
                         query_name(p->query), cached ? " cached" : "");
                runs[n].name = p->name;
                runs[n].test_func = test_case_file;
                runs[n].setup_func = NULL;
                runs[n].teardown_func = NULL;
                runs[n].initial_state = p;
                n++;
            }
    failed += _cmocka_run_group_tests("case files", runs, n, load_files, free_files);
    return failed;
}
