/* fuzz_cases: a libFuzzer target for the case-file parser (bench/cases.c).
 *
 * case_set_parse must never crash on arbitrary bytes (the input is not NUL
 * terminated: reading past it is an ASan report) and must write a
 * NUL-terminated message when it fails. When it succeeds, every parsed case
 * must be usable: both kernels answer all three queries without crashing,
 * agree on whether the input is valid (mink_shape_is_valid and
 * mink_pose_is_valid say which it is), give all-zero MINK_ERR_INVALID results
 * for invalid input and finite, consistent ones otherwise; the checker, the
 * printer and the support function take every case and result. Contact
 * manifolds likewise: an all-zero MINK_ERR_INVALID answer for invalid input,
 * at most four finite points otherwise, and the manifold checker and printer
 * take every case (its patch included) and manifold. Cast lines (the first
 * MAX_CASTS of an input): both kernels' mink_cast / mink_toi answer an
 * all-zero MINK_ERR_INVALID for invalid input, otherwise 0 or 1 with a
 * finite result, t in [0, 1] (1 on a miss) and at most
 * MINK_CAST_MAX_ITERATIONS steps; the cast checker and printer take every
 * case and answer. Odd-sized inputs are checked with the local tolerance.
 *
 * Build with MINK_FUZZ_STANDALONE for a plain driver (AFL++, replaying
 * crash files): it runs every file named on the command line, or stdin. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "tolerance.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Tolerances, relative to L = max(1, |pa.p|inf + |pb.p|inf + extent A +
 * radius A + extent B + radius B) (the shapes' own extent fields): the same
 * constants and reasons as fuzz_queries.c. */
#define UNIT_TOL 1e-3    /* |normal| = 1 within this when distance != 0          */
#define WITNESS_REL 1e-3 /* point_b - point_a = distance * normal within this * L */
#define BAND_REL 1e-3    /* signs compared only beyond this * L (touching band)  */
#define MAX_TOTAL_ITERATIONS (MINK_GJK_MAX_ITERATIONS + MINK_EPA_MAX_VERTICES)
/* Cases queried per input: bounds the time per input (lines are cheap to
 * repeat, and the parser is what this target is about). */
#define MAX_CASES 32
/* Cast lines checked per input: a cast is several queries, and the checker
 * may sample the whole step on a graze. */
#define MAX_CASTS 4

static const mink_case *g_case; /* for the violation report */

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static void violation(const char *fmt, ...);

static void violation(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\nfuzz_cases: PROPERTY VIOLATED: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    const mink_case *c = g_case;
    if (c) {
        fprintf(stderr, "case '%s': shape types %u %u radii %.9g %.9g poses %.9g %.9g %.9g (q %.9g %.9g %.9g %.9g) "
                        "%.9g %.9g %.9g (q %.9g %.9g %.9g %.9g)\n",
                c->id ? c->id : "?", c->a.type, c->b.type, c->a.radius, c->b.radius, c->pa.p.x, c->pa.p.y,
                c->pa.p.z, c->pa.q.w, c->pa.q.x, c->pa.q.y, c->pa.q.z, c->pb.p.x, c->pb.p.y, c->pb.p.z, c->pb.q.w,
                c->pb.q.x, c->pb.q.y, c->pb.q.z);
    }
    abort();
}

static void dump_result(const char *name, const mink_result *r)
{
    fprintf(stderr, "  %s: status %d distance %.9g normal %.9g %.9g %.9g pa %.9g %.9g %.9g pb %.9g %.9g %.9g it %u\n",
            name, (int)r->status, r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x, r->point_a.y,
            r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z, r->iterations);
}

static int finite_result(const mink_result *r)
{
    const float f[10] = {r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int k = 0; k < 10; ++k)
        if (!isfinite(f[k])) return 0;
    return 1;
}

static int zero_result(const mink_result *r)
{
    const float f[10] = {r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int k = 0; k < 10; ++k)
        if (f[k] != 0.0f) return 0;
    return r->iterations == 0 && r->gjk_iterations == 0 && r->support_calls == 0;
}

static double max_abs3(mink_vec3 v) { return fmax(fabs((double)v.x), fmax(fabs((double)v.y), fabs((double)v.z))); }

static const char *const query_name[3] = {"intersect", "distance", "penetration"};
static const char *const kernel_name[2] = {"ref", "simd"};

/* One result of case_run for a valid case. */
static void check_valid(int kernel, int query, const mink_result *r, double L)
{
    const char *k = kernel_name[kernel], *q = query_name[query];
    if (r->status != MINK_OK && r->status != MINK_MAX_ITERATIONS) {
        dump_result(q, r);
        violation("%s %s: valid case gave status %d", k, q, (int)r->status);
    }
    if (!finite_result(r)) {
        dump_result(q, r);
        violation("%s %s: non-finite result", k, q);
    }
    if (query == CASE_QUERY_INTERSECT) return; /* case_run's translation: distance 0 or 1 */
    if (r->iterations > MAX_TOTAL_ITERATIONS)
        violation("%s %s: %u iterations exceed the caps", k, q, r->iterations);
    const double d = r->distance;
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z};
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (d != 0.0 && fabs(len - 1.0) > UNIT_TOL) {
        dump_result(q, r);
        violation("%s %s: |normal| = %.9g", k, q, len);
    }
    const double e[3] = {(double)r->point_b.x - r->point_a.x - d * n[0], (double)r->point_b.y - r->point_a.y - d * n[1],
                         (double)r->point_b.z - r->point_a.z - d * n[2]};
    const double err = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (err > WITNESS_REL * L) {
        dump_result(q, r);
        violation("%s %s: witness error %.9g > %.9g", k, q, err, WITNESS_REL * L);
    }
}

static FILE *sink(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

#ifdef MINK_FUZZ_MAX_ASPECT
/* A box or capsule thinner than 1/N of its size (hulls: their bounding box). */
static int too_thin(const case_shape *s)
{
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    if (s->type == MINK_SHAPE_BOX) {
        for (int k = 0; k < 3; ++k) hi[k] = 2.0 * s->param[k] + 2.0 * s->radius;
    } else if (s->type == MINK_SHAPE_CAPSULE) {
        hi[0] = hi[2] = 2.0 * s->radius;
        hi[1] = 2.0 * (s->param[0] + s->radius);
    } else if (s->type == MINK_SHAPE_HULL && s->n > 0) {
        for (int k = 0; k < 3; ++k) lo[k] = hi[k] = s->pts[k];
        for (unsigned i = 1; i < s->n; ++i)
            for (int k = 0; k < 3; ++k) {
                lo[k] = fmin(lo[k], s->pts[3 * i + k]);
                hi[k] = fmax(hi[k], s->pts[3 * i + k]);
            }
        for (int k = 0; k < 3; ++k) hi[k] += 2.0 * s->radius;
    } else {
        return 0;
    }
    const double a = hi[0] - lo[0], b = hi[1] - lo[1], c = hi[2] - lo[2];
    const double big = fmax(a, fmax(b, c)), small = fmin(a, fmin(b, c));
    return small * (MINK_FUZZ_MAX_ASPECT) < big;
}
#endif

/* The manifold of both kernels at margins 0 and 0.025 (FORMAT.md's two),
 * and a one-point manifold made of the penetration answer `pen`, so that the
 * checker's point and patch rules see this case's shapes and patch whatever
 * the kernel answers. */
static void check_manifolds(const mink_case *c, int valid, const mink_result pen[2])
{
    static const float margins[2] = {0.0f, 0.025f};
    char why[256];
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 2; ++i) {
            struct mink_manifold m;
            const mink_status st = case_run_manifold(c, k, margins[i], NULL, &m);
            if (st != m.status) violation("case_run_manifold returned %d, manifold says %d", (int)st, (int)m.status);
            if (!valid) {
                struct mink_manifold zero; /* all members 4 bytes: no padding */
                memset(&zero, 0, sizeof zero);
                zero.status = MINK_ERR_INVALID;
                if (memcmp(&m, &zero, sizeof m) != 0)
                    violation("%s manifold: invalid case not answered with an all-zero MINK_ERR_INVALID",
                              kernel_name[k]);
            } else if (st >= 0) {
                if (m.count > MINK_MANIFOLD_POINTS)
                    violation("%s manifold: count %u", kernel_name[k], (unsigned)m.count);
                const float f[3] = {m.normal.x, m.normal.y, m.normal.z};
                for (unsigned j = 0; j < 3; ++j)
                    if (!isfinite(f[j])) violation("%s manifold: non-finite normal", kernel_name[k]);
                for (unsigned j = 0; j < m.count; ++j) {
                    const mink_contact *p = &m.points[j];
                    const float g[7] = {p->point_a.x, p->point_a.y, p->point_a.z, p->point_b.x,
                                        p->point_b.y, p->point_b.z, p->separation};
                    for (unsigned e = 0; e < 7; ++e)
                        if (!isfinite(g[e])) violation("%s manifold: point %u not finite", kernel_name[k], j);
                }
            }
            why[0] = '\0';
            (void)case_check_manifold(c, margins[i], &m, why, sizeof why);
            if (memchr(why, '\0', sizeof why) == NULL) violation("case_check_manifold left no NUL in why");
            case_print_manifold(sink(), c, &m);
            if (pen[k].status < 0) continue;
            memset(&m, 0, sizeof m);
            m.count = 1;
            m.normal = pen[k].normal;
            m.points[0].point_a = pen[k].point_a;
            m.points[0].point_b = pen[k].point_b;
            m.points[0].separation = pen[k].distance;
            (void)case_check_manifold(c, margins[i], &m, why, sizeof why);
            if (memchr(why, '\0', sizeof why) == NULL) violation("case_check_manifold left no NUL in why");
        }
}

static int zero_cast(const mink_cast_result *r)
{
    mink_cast_result z;
    memset(&z, 0, sizeof z);
    z.status = r->status;
    return memcmp(&z, r, sizeof z) == 0;
}

/* A cast line: both kernels, the checker and the printer. */
static void check_cast(const mink_case *c)
{
    const int valid = mink_shape_is_valid(&c->a) && mink_shape_is_valid(&c->b) && mink_pose_is_valid(&c->pa) &&
                      mink_pose_is_valid(&c->pb) && mink_pose_is_valid(&c->pa1) && mink_pose_is_valid(&c->pb1) &&
                      c->target <= MINK_MAX_MAGNITUDE;
#ifdef MINK_FUZZ_MAX_MAGNITUDE
    const double far = fmax(fmax(max_abs3(c->pa.p), max_abs3(c->pb.p)), fmax(max_abs3(c->pa1.p), max_abs3(c->pb1.p)));
    if (valid && far + c->a.extent + c->b.extent > (MINK_FUZZ_MAX_MAGNITUDE)) return;
#endif
    char why[256];
    for (int k = 0; k < 2; ++k) {
        mink_cast_result r;
        const int rc = case_run_cast(c, k, &r);
        if (!valid) {
            /* the case's own checks may reject what the kernel accepts
             * (e.g. a centre past the limit mid-step): only the error's form */
            if (rc < 0 && (r.status != MINK_ERR_INVALID || !zero_cast(&r)))
                violation("%s cast: an error without an all-zero MINK_ERR_INVALID result", kernel_name[k]);
        } else {
            const float f[10] = {r.t, r.normal.x, r.normal.y, r.normal.z, r.point_a.x,
                                 r.point_a.y, r.point_a.z, r.point_b.x, r.point_b.y, r.point_b.z};
            if (rc < 0) {
                if (r.status != MINK_ERR_INVALID || !zero_cast(&r))
                    violation("%s cast: an error without an all-zero MINK_ERR_INVALID result", kernel_name[k]);
            } else {
                if (rc > 1) violation("%s cast returned %d", kernel_name[k], rc);
                if (r.status != MINK_OK && r.status != MINK_MAX_ITERATIONS)
                    violation("%s cast: status %d", kernel_name[k], (int)r.status);
                for (int i = 0; i < 10; ++i)
                    if (!isfinite(f[i])) violation("%s cast: field %d not finite", kernel_name[k], i);
                if (!(r.t >= 0.0f && r.t <= 1.0f) || (rc == 0 && r.t != 1.0f))
                    violation("%s cast: t = %.9g (returned %d)", kernel_name[k], r.t, rc);
                if (r.iterations < 1 || r.iterations > MINK_CAST_MAX_ITERATIONS)
                    violation("%s cast: %u iterations", kernel_name[k], (unsigned)r.iterations);
            }
        }
        why[0] = '\0';
        (void)case_check_cast(c, rc, &r, why, sizeof why);
        if (memchr(why, '\0', sizeof why) == NULL) violation("case_check_cast left no NUL in why");
        case_print_cast(sink(), c, rc, &r);
    }
}

static void check_case(const mink_case *c)
{
    g_case = c;
    if (!c->id) violation("case without an id");
    if ((c->patch_count == 0) != (c->patch == NULL))
        violation("patch_count %u with patch %s", c->patch_count, c->patch ? "set" : "NULL");
    for (size_t i = 0; i < 3 * (size_t)c->patch_count; ++i)
        if (!isfinite(c->patch[i])) violation("patch coordinate %zu not finite", i + 1);
    char group[64];
    case_group(c->id, group, sizeof group);
    if (memchr(group, '\0', sizeof group) == NULL) violation("case_group left no NUL");

    const int valid = mink_shape_is_valid(&c->a) && mink_shape_is_valid(&c->b) && mink_pose_is_valid(&c->pa) &&
                      mink_pose_is_valid(&c->pb);
    double L = 1.0;
    if (valid)
        L = fmax(1.0, max_abs3(c->pa.p) + max_abs3(c->pb.p) + c->a.extent + c->a.radius + c->b.extent + c->b.radius);
#ifdef MINK_FUZZ_MAX_MAGNITUDE
    /* Exploration knob (off by default, see fuzz_queries.c): leave cases
     * beyond the magnitude to the parser checks above. */
    if (L > (MINK_FUZZ_MAX_MAGNITUDE)) return;
#endif
#ifdef MINK_FUZZ_MAX_ASPECT
    /* The CI domain (see fuzz_queries.c): kernel checks only for shapes no
     * thinner than 1/N of their size; thinner ones get the parser checks. */
    if (valid && (too_thin(&c->sa) || too_thin(&c->sb))) return;
#endif
    const double band = BAND_REL * L;

    mink_result r[2][3], warm;
    char why[256];
    for (int k = 0; k < 2; ++k) {
        for (int q = 0; q < 3; ++q) {
            const mink_status st = case_run(c, k, q, NULL, &r[k][q]);
            if (st != r[k][q].status) violation("case_run returned %d, result says %d", (int)st, (int)r[k][q].status);
            if (!valid) {
                if (st != MINK_ERR_INVALID || !zero_result(&r[k][q])) {
                    dump_result(query_name[q], &r[k][q]);
                    violation("%s %s: invalid case not answered with an all-zero MINK_ERR_INVALID",
                              kernel_name[k], query_name[q]);
                }
            } else {
                check_valid(k, q, &r[k][q], L);
            }
            /* the same query with a cache, twice: the warm answer is valid too */
            mink_cache cache;
            mink_cache_reset(&cache);
            case_run(c, k, q, &cache, &warm);
            case_run(c, k, q, &cache, &warm);
            if ((warm.status == MINK_ERR_INVALID) != !valid)
                violation("%s %s: warm status %d", kernel_name[k], query_name[q], (int)warm.status);
            if (valid) check_valid(k, q, &warm, L);
            /* the checker and the printer take any case and result */
            why[0] = '\0';
            (void)case_check(c, q, &r[k][q], why, sizeof why);
            if (memchr(why, '\0', sizeof why) == NULL) violation("case_check left no NUL in why");
            case_print_result(sink(), c, q, &r[k][q]);
        }
    }
    const mink_result pen[2] = {r[0][2], r[1][2]};
    check_manifolds(c, valid, pen);
    if (!valid) return;
    /* away from the touching band: ref and simd agree, intersect agrees with penetration */
    const double dr = r[0][2].distance, ds = r[1][2].distance;
    if ((dr > band && ds < -band) || (dr < -band && ds > band))
        violation("ref penetration %.9g and simd penetration %.9g have opposite signs", dr, ds);
    for (int k = 0; k < 2; ++k) {
        const double dp = r[k][2].distance;
        const int hit = r[k][0].distance == 0.0f;
        if ((dp > band && hit) || (dp < -band && !hit))
            violation("%s: intersect says %s, penetration distance %.9g", kernel_name[k], hit ? "overlap" : "separated", dp);
    }
    /* the support function in double, along a few directions */
    static const double dirs[4][3] = {{1, 0, 0}, {0, -1, 0}, {0.6, 0, 0.8}, {-0.5, 0.5, -0.70710678}};
    for (int i = 0; i < 4; ++i) {
        const double ha = case_support_h(&c->sa, &c->qa, dirs[i]);
        const double hb = case_support_h(&c->sb, &c->qb, dirs[i]);
        if (!isfinite(ha) || !isfinite(hb)) violation("case_support_h not finite (%.9g, %.9g) on a valid case", ha, hb);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    case_set set;
    char err[256];
    memset(err, 'x', sizeof err);
    if (case_set_parse((const char *)data, size, &set, err, sizeof err) != 0) {
        if (memchr(err, '\0', sizeof err) == NULL) violation("case_set_parse failed without a NUL-terminated message");
        return 0;
    }
    if (set.count > 0 && !set.cases) violation("case_set_parse: %zu cases but no array", set.count);
    if (size & 1) case_set_use_local_tolerance(&set);
    for (size_t i = 0; i < set.count && i < MAX_CASES; ++i) check_case(&set.cases[i]);
    for (size_t i = 0, casts = 0; i < set.count && casts < MAX_CASTS; ++i)
        if (set.cases[i].is_cast) {
            g_case = &set.cases[i];
            check_cast(&set.cases[i]);
            casts++;
        }
    g_case = NULL;
    case_set_free(&set);
    return 0;
}

#define FUZZ_TARGET_NAME "fuzz_cases"
#include "fuzz_standalone.h"
