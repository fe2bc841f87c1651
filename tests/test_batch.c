/* The batch entry points against the single queries, pair for pair.
 *
 * mink_penetration_batch / mink_intersect_batch answer primitive pairs
 * (sphere, capsule, box, rounded or not) with lane-parallel kernels, one
 * pair per SIMD lane, and everything else with the per-pair query. Every
 * batch answer must equal mink_penetration / mink_intersect of the same pair
 * within the query tolerance, in input order, and carry its own proof:
 * along the reported normal, the support gap of the two shapes (computed
 * here in double) is the reported distance and each witness lies on its
 * shape's supporting plane and surface.
 *
 * Where the two disagree and the single query is the one that is wrong (an
 * exact closed form in double says so, or its normal fails the support gap
 * check that the batch answer passes), the pair is counted and printed as a
 * NOTE, not failed: a report for the per-pair kernel.
 *
 * Families: seeded random batches of every primitive pair kind (random
 * sizes, rounded boxes, flat, point, plank and plate boxes, zero-length and
 * long capsules, random and axis-aligned rotations, far from the origin;
 * separated, touching, deep; hit rate checked to be 30-70 %), the same at
 * scales 1e-3 and 1e3, structured contacts (stacked boxes, boxes turned by
 * tiny angles, parallel, near-parallel and crossing capsules), the case
 * files in one big batch in file order, invalid pairs inside a batch, batch
 * sizes around the lane count, caches, the multi-core variants (bit for bit
 * equal), and the share of pairs the lanes answer. */
#include "test_util.h"

#include <stdlib.h>

#include "batch_lanes.h"
#include "cases.h"

#ifndef MINK_TEST_DATA
#error "MINK_TEST_DATA must name the tests/data directory"
#endif

/* ---------------------------------------------------------------- tolerances */

/* Distances and depths: FORMAT.md's 1e-4 * L for a single-precision kernel;
 * both answers are within ~1e-6 S of the truth, so this is generous. */
#define TOL_VALUE_REL TOL_FORMAT_REL
/* Where the normal is unique: the brief's (and FORMAT.md's) 1e-2 rad for
 * penetrating pairs; separated normals are far better than that. */
#define TOL_NORMAL_ANGLE TOL_PEN_ANGLE
/* A normal counts as unique when the answer is not within this times L of
 * touching cores (below it the direction is ill-conditioned: 1e-7 of input
 * rounding over 1e-3 of distance is 1e-4 rad, and worse closer in). */
#define TOL_UNIQUE_REL 1e-3
/* The support certificate of a batch answer (gap along its normal, support
 * planes of its witnesses): for a lane answer the witness tolerance (the
 * lane kernels certify to ~1e-6 of the scale), for an answer of the
 * per-pair query (hulls, undecided lanes) the value tolerance: that kernel
 * is held to FORMAT.md's bounds by its own tests. */
#define TOL_SUPPORT_LANE_REL TOL_WITNESS_REL
#define TOL_SUPPORT_PAIR_REL TOL_FORMAT_REL
/* Intersect answers may differ inside the touching band (mink.h: ~1e-5 of
 * the size). */
#define TOL_BAND_REL TOL_TOUCH_REL

/* ---------------------------------------------------------------- pair checks */

typedef struct check_stats {
    size_t pairs, failures, lane_answers, normal_checked, single_not_ok, single_wrong;
    char first[2048];
    char single_first[1024];
} check_stats;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 5, 6)))
#endif
static void note_failure(check_stats *st, size_t i, const mink_pair *p, const char *answered_by, const char *fmt, ...)
{
    st->failures++;
    if (st->first[0]) return;
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const mink_shape *a = p->a, *b = p->b;
    snprintf(st->first, sizeof st->first,
             "pair %zu (%s): %s\n  A type %u r %.9g half %.9g %.9g %.9g at %.9g %.9g %.9g q %.9g %.9g %.9g %.9g\n"
             "  B type %u r %.9g half %.9g %.9g %.9g at %.9g %.9g %.9g q %.9g %.9g %.9g %.9g",
             i, answered_by, msg, a ? a->type : 0u, a ? a->radius : 0.0, a ? a->half[0] : 0.0, a ? a->half[1] : 0.0,
             a ? a->half[2] : 0.0, p->pa.p.x, p->pa.p.y, p->pa.p.z, p->pa.q.x, p->pa.q.y, p->pa.q.z, p->pa.q.w,
             b ? b->type : 0u, b ? b->radius : 0.0, b ? b->half[0] : 0.0, b ? b->half[1] : 0.0, b ? b->half[2] : 0.0,
             p->pb.p.x, p->pb.p.y, p->pb.p.z, p->pb.q.x, p->pb.q.y, p->pb.q.z, p->pb.q.w);
}

static int is_zero_error(const mink_result *r)
{
    mink_result z;
    memset(&z, 0, sizeof z);
    z.status = MINK_ERR_INVALID;
    return memcmp(r, &z, sizeof z) == 0;
}

static int is_primitive(const mink_shape *s) { return s->type != MINK_SHAPE_HULL; }

/* Normal uniqueness that the test can tell: separated by more than
 * TOL_UNIQUE_REL * L (the closest direction is unique), or round/point-box
 * pairs whose cores are that far apart, or unrounded boxes overlapping that
 * deep with no tying axis. */
static int normal_unique(const mink_pair *p, double d, double L)
{
    const mink_shape *a = p->a, *b = p->b;
    const double core = d + a->radius + b->radius;
    if (d > TOL_UNIQUE_REL * L) return 1;
    if (!is_primitive(a) || !is_primitive(b)) return 0;
    if (core > TOL_UNIQUE_REL * L) return 1;
    if (a->type == MINK_SHAPE_BOX && b->type == MINK_SHAPE_BOX && core < -TOL_UNIQUE_REL * L) {
        const obb A = obb_of_box(a, &p->pa), B = obb_of_box(b, &p->pb);
        const sat_result s = sat_obb(&A, &B, TOL_UNIQUE_REL * L);
        return !s.tie;
    }
    return 0;
}

/* An exact answer in double where a closed form exists: sphere/capsule
 * pairs (segment distance minus radii, exact for separated and
 * overlapping), sphere-box (signed distance of the center to the box core
 * minus radii), and boxes or capsules whose cores overlap (the separating
 * axis test's depth, exact on a complete axis set). Returns 0 otherwise. */
static int oracle_distance(const mink_pair *p, double *value)
{
    const mink_shape *a = p->a, *b = p->b;
    if (!is_primitive(a) || !is_primitive(b)) return 0;
    const double margin = (double)a->radius + b->radius;
    const int round_a = a->type != MINK_SHAPE_BOX, round_b = b->type != MINK_SHAPE_BOX;
    if (round_a && round_b) {
        const double ha = a->type == MINK_SHAPE_CAPSULE ? a->half[1] : 0.0;
        const double hb = b->type == MINK_SHAPE_CAPSULE ? b->half[1] : 0.0;
        const double d = segment_segment_distance(pose_apply(&p->pa, dv(0, -ha, 0)), pose_apply(&p->pa, dv(0, ha, 0)),
                                                  pose_apply(&p->pb, dv(0, -hb, 0)), pose_apply(&p->pb, dv(0, hb, 0)));
        *value = d - margin;
        return 1;
    }
    if (a->type == MINK_SHAPE_SPHERE || b->type == MINK_SHAPE_SPHERE) {
        const mink_shape *box = a->type == MINK_SHAPE_BOX ? a : b;
        const mink_pose *bp = a->type == MINK_SHAPE_BOX ? &p->pa : &p->pb, *sp = a->type == MINK_SHAPE_BOX ? &p->pb : &p->pa;
        const double h[3] = {box->half[0], box->half[1], box->half[2]};
        *value = box_signed_distance(pose_unapply(bp, dv_of(sp->p)), h) - margin;
        return 1;
    }
    const obb A = a->type == MINK_SHAPE_BOX ? obb_of_box(a, &p->pa) : obb_make(&p->pa, 0, a->half[1], 0);
    const obb B = b->type == MINK_SHAPE_BOX ? obb_of_box(b, &p->pb) : obb_make(&p->pb, 0, b->half[1], 0);
    const sat_result sr = sat_obb(&A, &B, 0.0);
    if (sr.value > 0.0) return 0;
    *value = sr.value - margin;
    return 1;
}

/* Records a failure of check_pair and leaves it. */
#define FAIL_PAIR(...)                          \
    do {                                        \
        note_failure(st, i, p, rb->support_calls ? "answered by the per-pair query" : "answered in a lane", __VA_ARGS__); \
        return;                                 \
    } while (0)

/* One batch answer against the single query's answer of the same pair. */
static void check_pair(check_stats *st, size_t i, const mink_pair *p, const mink_result *rb, const mink_result *rs)
{
    st->pairs++;
    if (rs->status == MINK_ERR_INVALID || rb->status == MINK_ERR_INVALID) {
        if (rs->status != rb->status) note_failure(st, i, p, "error", "status %d, single query %d", rb->status, rs->status);
        else if (!is_zero_error(rb)) note_failure(st, i, p, "error", "error result not all zero");
        return;
    }
    if (rb->support_calls == 0) st->lane_answers++;
    if (rs->status != MINK_OK) st->single_not_ok++;
    if (rs->status == MINK_OK && rb->status != MINK_OK)
        FAIL_PAIR("status %d, single query MINK_OK", rb->status);
    if (!result_finite(rb)) FAIL_PAIR("non-finite result");
    const double L = pair_L(p->a, &p->pa, p->b, &p->pb);
    const dv3 n = dv_of(rb->normal);
    if (fabs(dv_len(n) - 1.0) > TOL_UNIT) FAIL_PAIR("|normal| = %.9g", dv_len(n));
    const dv3 diff = dv_sub(dv_sub(dv_of(rb->point_b), dv_of(rb->point_a)), dv_scale(n, rb->distance));
    if (dv_len(diff) > TOL_WITNESS_REL * L)
        FAIL_PAIR("|point_b - point_a - distance * normal| = %.3g", dv_len(diff));
    /* the value: the single query's when it converged; where they differ
     * and an exact oracle says the batch is right, the single query is
     * wrong: counted and reported, not a batch failure */
    double exact;
    const int have_exact = oracle_distance(p, &exact);
    if (have_exact && fabs((double)rb->distance - exact) > TOL_VALUE_REL * L)
        FAIL_PAIR("distance %.9g, exact %.9g, single query %.9g (L %.3g)", rb->distance, exact, rs->distance, L);
    int single_wrong = 0;
    if (rs->status == MINK_OK && fabs((double)rb->distance - rs->distance) > TOL_VALUE_REL * L) {
        if (!have_exact) FAIL_PAIR("distance %.9g, single query %.9g (L %.3g)", rb->distance, rs->distance, L);
        single_wrong = 1;
        st->single_wrong++;
        if (!st->single_first[0])
            snprintf(st->single_first, sizeof st->single_first,
                     "pair %zu: single query %.9g, exact %.9g, batch %.9g; A type %u half %.9g %.9g %.9g r %.9g at %.9g "
                     "%.9g %.9g q %.9g %.9g %.9g %.9g; B type %u half %.9g %.9g %.9g r %.9g at %.9g %.9g %.9g q %.9g "
                     "%.9g %.9g %.9g",
                     i, rs->distance, exact, rb->distance, p->a->type, p->a->half[0], p->a->half[1], p->a->half[2],
                     p->a->radius, p->pa.p.x, p->pa.p.y, p->pa.p.z, p->pa.q.x, p->pa.q.y, p->pa.q.z, p->pa.q.w, p->b->type,
                     p->b->half[0], p->b->half[1], p->b->half[2], p->b->radius, p->pb.p.x, p->pb.p.y, p->pb.p.z, p->pb.q.x,
                     p->pb.q.y, p->pb.q.z, p->pb.q.w);
    }
    /* the certificate, in double */
    const double tol = (rb->support_calls == 0 ? TOL_SUPPORT_LANE_REL : TOL_SUPPORT_PAIR_REL) * L;
    const double gap = gap_along(p->a, &p->pa, p->b, &p->pb, n);
    if (fabs(gap - rb->distance) > tol)
        FAIL_PAIR("gap along the normal %.9g, distance %.9g (normal %.6f %.6f %.6f)", gap,
                            rb->distance, n.x, n.y, n.z);
    const double ha = dv_dot(n, dv_of(rb->point_a)) - shape_max(p->a, &p->pa, n);
    const double hb = dv_dot(n, dv_of(rb->point_b)) - shape_min(p->b, &p->pb, n);
    if (fabs(ha) > tol || fabs(hb) > tol)
        FAIL_PAIR("witnesses off their support planes by %.3g, %.3g", ha, hb);
    const double ca = core_distance(p->a, &p->pa, dv_of(rb->point_a));
    const double cb = core_distance(p->b, &p->pb, dv_of(rb->point_b));
    if ((ca >= 0.0 && fabs(ca - p->a->radius) > TOL_WITNESS_REL * L) ||
        (cb >= 0.0 && fabs(cb - p->b->radius) > TOL_WITNESS_REL * L))
        FAIL_PAIR("witnesses off the surfaces: core distances %.9g (r %.9g), %.9g (r %.9g)", ca,
                            p->a->radius, cb, p->b->radius);
    /* the normal, where it is unique; where the batch normal passed its
     * certificate above and the single query's fails the same check, the
     * single query is wrong (noted, as above) */
    if (rs->status == MINK_OK && !single_wrong && normal_unique(p, rs->distance, L)) {
        st->normal_checked++;
        const double ang = dv_angle(n, dv_of(rs->normal));
        const dv3 ns = dv_norm(dv_of(rs->normal));
        const double gap_s = gap_along(p->a, &p->pa, p->b, &p->pb, ns);
        if (ang > TOL_NORMAL_ANGLE && fabs(gap_s - rs->distance) > tol) {
            st->single_wrong++;
            if (!st->single_first[0])
                snprintf(st->single_first, sizeof st->single_first,
                         "pair %zu: single query normal %.6f %.6f %.6f with distance %.9g, but the gap along it is %.9g; "
                         "batch normal %.6f %.6f %.6f distance %.9g; A type %u half %.9g %.9g %.9g r %.9g at %.9g %.9g %.9g "
                         "q %.9g %.9g %.9g %.9g; B type %u half %.9g %.9g %.9g r %.9g at %.9g %.9g %.9g q %.9g %.9g %.9g %.9g",
                         i, ns.x, ns.y, ns.z, rs->distance, gap_s, n.x, n.y, n.z, rb->distance, p->a->type, p->a->half[0],
                         p->a->half[1], p->a->half[2], p->a->radius, p->pa.p.x, p->pa.p.y, p->pa.p.z, p->pa.q.x, p->pa.q.y,
                         p->pa.q.z, p->pa.q.w, p->b->type, p->b->half[0], p->b->half[1], p->b->half[2], p->b->radius,
                         p->pb.p.x, p->pb.p.y, p->pb.p.z, p->pb.q.x, p->pb.q.y, p->pb.q.z, p->pb.q.w);
        } else if (ang > TOL_NORMAL_ANGLE)
            FAIL_PAIR("normal %.6f %.6f %.6f is %.3g rad from the single query's %.6f %.6f %.6f", n.x,
                                n.y, n.z, ang, rs->normal.x, rs->normal.y, rs->normal.z);
    }
}

/* The batch and the single queries over one array; penetration and
 * intersect. Returns the stats (fails the test on any failure). */
static check_stats check_batch(const char *what, const mink_pair *pairs, size_t n)
{
    mink_result *rb = malloc((n ? n : 1) * sizeof *rb);
    mink_result *rs = malloc((n ? n : 1) * sizeof *rs);
    int *hb = malloc((n ? n : 1) * sizeof *hb);
    assert_non_null(rb);
    assert_non_null(rs);
    assert_non_null(hb);
    for (size_t i = 0; i < n; ++i) {
        memset(&rb[i], 0xff, sizeof rb[i]); /* poison: every slot must be written */
        hb[i] = 12345;
    }
    mink_penetration_batch(pairs, n, rb);
    mink_intersect_batch(pairs, n, hb);
    check_stats st;
    memset(&st, 0, sizeof st);
    size_t hit_fail = 0;
    char hit_first[512] = "";
    for (size_t i = 0; i < n; ++i) {
        const mink_pair *p = &pairs[i];
        mink_penetration(p->a, &p->pa, p->b, &p->pb, NULL, &rs[i]);
        check_pair(&st, i, p, &rb[i], &rs[i]);
        const int hs = mink_intersect(p->a, &p->pa, p->b, &p->pb, NULL);
        if (hs < 0 || hb[i] < 0) {
            if (hs != hb[i]) {
                if (!hit_fail++) snprintf(hit_first, sizeof hit_first, "pair %zu: intersect %d, single %d", i, hb[i], hs);
            }
            continue;
        }
        const double L = pair_L(p->a, &p->pa, p->b, &p->pb);
        const double band = TOL_BAND_REL * L;
        /* the exact answer decides where there is one, else the single
         * query; inside the touching band either answer is right */
        double exact;
        const int have_exact = oracle_distance(p, &exact);
        const int want = have_exact ? exact <= 0.0 : hs;
        const int decided = have_exact ? fabs(exact) > band : fabs(rs[i].distance) > band && fabs(rb[i].distance) > band;
        if ((decided && hb[i] != want) || (hb[i] != 0 && hb[i] != 1)) {
            if (!hit_fail++)
                snprintf(hit_first, sizeof hit_first, "pair %zu: intersect %d, single %d (distance %.9g, L %.3g)", i, hb[i],
                         hs, rs[i].distance, L);
        }
    }
    print_message("%s: %zu pairs, %zu answered in lanes, %zu normals compared, %zu single queries not converged\n", what,
                  st.pairs, st.lane_answers, st.normal_checked, st.single_not_ok);
    if (st.single_wrong)
        print_message("  NOTE: %zu single-query answers are wrong (against an exact answer, or their normal fails the support gap check that the batch answer passes); first:\n  %s\n",
                      st.single_wrong, st.single_first);
    free(rb);
    free(rs);
    free(hb);
    if (st.failures) fail_msg("%s: %zu of %zu penetration answers wrong; first:\n%s", what, st.failures, n, st.first);
    if (hit_fail) fail_msg("%s: %zu of %zu intersect answers wrong; first: %s", what, hit_fail, n, hit_first);
    return st;
}

/* ---------------------------------------------------------------- random pairs */

/* A pool of shapes and pairs: pairs point into the shape array. */
typedef struct pool {
    mink_shape *shapes;
    mink_pair *pairs;
    size_t nshapes, npairs, cap;
} pool;

static void pool_init(pool *P, size_t pairs)
{
    P->shapes = calloc(2 * pairs + 2, sizeof *P->shapes);
    P->pairs = calloc(pairs + 1, sizeof *P->pairs);
    assert_non_null(P->shapes);
    assert_non_null(P->pairs);
    P->nshapes = P->npairs = 0;
    P->cap = pairs;
}

static void pool_free(pool *P)
{
    free(P->shapes);
    free(P->pairs);
}

static mink_pair *pool_add(pool *P, mink_shape a, mink_pose pa, mink_shape b, mink_pose pb)
{
    assert_true(P->npairs < P->cap);
    mink_shape *sa = &P->shapes[P->nshapes++];
    mink_shape *sb = &P->shapes[P->nshapes++];
    *sa = a;
    *sb = b;
    mink_pair *p = &P->pairs[P->npairs++];
    p->a = sa;
    p->b = sb;
    p->pa = pa;
    p->pb = pb;
    p->cache = NULL;
    return p;
}

static mink_shape rand_shape(test_rng *r, int type)
{
    switch (type) {
    case MINK_SHAPE_SPHERE: return mink_sphere((float)rng_range(r, 0.05, 1.0));
    case MINK_SHAPE_CAPSULE: {
        const double u = rng_unit(r);
        const double h = u < 0.1 ? 0.0 : u < 0.15 ? rng_range(r, 5.0, 20.0) : rng_range(r, 0.05, 1.0);
        return mink_capsule((float)rng_range(r, 0.05, 0.6), (float)h);
    }
    default: {
        double h[3];
        for (int k = 0; k < 3; ++k) h[k] = rng_range(r, 0.05, 1.0);
        const double u = rng_unit(r);
        if (u < 0.08) h[rng_below(r, 3)] = 0.0;   /* a rectangle */
        else if (u < 0.12) h[0] = h[1] = h[2] = 0.0; /* a point */
        else if (u < 0.17) h[rng_below(r, 3)] *= 20.0; /* a plank */
        else if (u < 0.20) h[rng_below(r, 3)] *= 0.01; /* a plate */
        const double rad = rng_unit(r) < 0.4 ? rng_range(r, 0.0, 0.3) : 0.0;
        return mink_box((float)h[0], (float)h[1], (float)h[2], (float)rad);
    }
    }
}

/* A rotation: random, identity, or a quarter turn about a coordinate axis. */
static mink_quat rand_rotation(test_rng *r)
{
    const double u = rng_unit(r);
    if (u < 0.7) return rng_quat(r);
    if (u < 0.85) return quat_identity();
    return quat_axis_angle(dv_axis((int)rng_below(r, 3)), 0.5 * TEST_PI * (1 + rng_below(r, 3)));
}

static double bound(const mink_shape *s) { return s->extent + s->radius; }

/* A pair of the given types: separated or overlapping about half the time,
 * some touching (moved by the single query's answer), some deep, some far
 * from the origin. */
static void add_random_pair(pool *P, test_rng *r, int ta, int tb)
{
    const mink_shape a = rand_shape(r, ta), b = rand_shape(r, tb);
    dv3 origin = rng_box(r, 2.0);
    if (rng_unit(r) < 0.1) origin = dv_add(origin, dv_scale(rng_dir(r), rng_unit(r) < 0.5 ? 100.0 : 1000.0));
    const mink_quat qa = rand_rotation(r);
    mink_quat qb = rng_unit(r) < 0.15 ? qa : rand_rotation(r);
    const double mode = rng_unit(r);
    const double reach = bound(&a) + bound(&b);
    /* boxes reach less far than their bounding spheres */
    const double far = ta == MINK_SHAPE_BOX || tb == MINK_SHAPE_BOX ? 1.2 : 1.6;
    double dist = rng_range(r, 0.15, far) * reach;
    if (mode < 0.1) dist = rng_range(r, 0.0, 0.1) * reach; /* deep */
    const dv3 pb = dv_add(origin, dv_scale(rng_dir(r), dist));
    mink_pair *p = pool_add(P, a, pose_make(origin, qa), b, pose_make(pb, qb));
    if (mode > 0.9) {
        /* touching: move B by the answer so that the shapes just touch */
        mink_result res;
        if (mink_penetration(p->a, &p->pa, p->b, &p->pb, NULL, &res) == MINK_OK)
            p->pb.p = vec3_of(dv_sub(dv_of(p->pb.p), dv_scale(dv_of(res.normal), res.distance)));
    }
}

static const int KIND_TYPES[][2] = {
    {MINK_SHAPE_SPHERE, MINK_SHAPE_SPHERE},   {MINK_SHAPE_SPHERE, MINK_SHAPE_CAPSULE},
    {MINK_SHAPE_CAPSULE, MINK_SHAPE_SPHERE},  {MINK_SHAPE_CAPSULE, MINK_SHAPE_CAPSULE},
    {MINK_SHAPE_SPHERE, MINK_SHAPE_BOX},      {MINK_SHAPE_BOX, MINK_SHAPE_SPHERE},
    {MINK_SHAPE_BOX, MINK_SHAPE_BOX},         {MINK_SHAPE_CAPSULE, MINK_SHAPE_BOX},
    {MINK_SHAPE_BOX, MINK_SHAPE_CAPSULE},
};
#define NKINDS (sizeof KIND_TYPES / sizeof KIND_TYPES[0])

static const char *type_name(int t)
{
    return t == MINK_SHAPE_SPHERE ? "sphere" : t == MINK_SHAPE_CAPSULE ? "capsule" : t == MINK_SHAPE_BOX ? "box" : "hull";
}

/* Every kind on its own, 1500 pairs each, with the hit-rate sanity check. */
static void test_random_kinds(void **state)
{
    (void)state;
    for (size_t k = 0; k < NKINDS; ++k) {
        const size_t N = 1500;
        pool P;
        pool_init(&P, N);
        test_rng r = rng_seed(0xba7c4 + k);
        for (size_t i = 0; i < N; ++i) add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
        char what[64];
        snprintf(what, sizeof what, "%s-%s", type_name(KIND_TYPES[k][0]), type_name(KIND_TYPES[k][1]));
        test_ctx("%s", what);
        check_batch(what, P.pairs, P.npairs);
        size_t hits = 0;
        for (size_t i = 0; i < N; ++i)
            hits += mink_intersect(P.pairs[i].a, &P.pairs[i].pa, P.pairs[i].b, &P.pairs[i].pb, NULL) == 1;
        const double rate = (double)hits / (double)N;
        if (rate < 0.3 || rate > 0.7) fail_msg("%s: hit rate %.2f outside 30-70 %%", what, rate);
        pool_free(&P);
    }
}

/* All kinds interleaved in one batch (the staging buffers fill and flush
 * out of step), with a few hulls from the per-pair path among them. */
static void test_random_mixed(void **state)
{
    (void)state;
    const size_t N = 6000;
    pool P;
    pool_init(&P, N);
    test_rng r = rng_seed(77);
    const float cube[] = {-0.4f, -0.3f, -0.2f, 0.4f, -0.3f, -0.2f, -0.4f, 0.3f, -0.2f, 0.4f, 0.3f, -0.2f,
                          -0.4f, -0.3f, 0.2f,  0.4f, -0.3f, 0.2f,  -0.4f, 0.3f, 0.2f,  0.4f, 0.3f, 0.2f};
    test_arena_reset();
    const mink_shape hull = test_hull(cube, 8, 0.05f);
    for (size_t i = 0; i < N; ++i) {
        if (rng_unit(&r) < 0.05) {
            const mink_shape other = rand_shape(&r, MINK_SHAPE_BOX);
            const dv3 o = rng_box(&r, 2.0);
            pool_add(&P, hull, pose_make(o, rng_quat(&r)), other,
                     pose_make(dv_add(o, dv_scale(rng_dir(&r), rng_range(&r, 0.2, 1.5))), rng_quat(&r)));
            continue;
        }
        const size_t k = rng_below(&r, NKINDS);
        add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
    }
    test_ctx("mixed");
    check_batch("mixed random", P.pairs, P.npairs);
    pool_free(&P);
}

/* Every kind at small and large scales: sizes and positions multiplied by
 * 1e-3 and 1e3 (tolerances scale with L = max(1, size), as FORMAT.md's). */
static void test_scales(void **state)
{
    (void)state;
    const double scales[] = {1e-3, 1e3};
    for (size_t si = 0; si < 2; ++si) {
        const size_t N = 3000;
        pool P;
        pool_init(&P, N);
        test_rng r = rng_seed(8080 + si);
        for (size_t i = 0; i < N; ++i) {
            const size_t k = rng_below(&r, NKINDS);
            add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
        }
        const float s = (float)scales[si];
        for (size_t i = 0; i < P.nshapes; ++i) {
            mink_shape *sh = &P.shapes[i];
            *sh = sh->type == MINK_SHAPE_SPHERE    ? mink_sphere(sh->radius * s)
                : sh->type == MINK_SHAPE_CAPSULE ? mink_capsule(sh->radius * s, sh->half[1] * s)
                                                 : mink_box(sh->half[0] * s, sh->half[1] * s, sh->half[2] * s, sh->radius * s);
        }
        for (size_t i = 0; i < P.npairs; ++i) {
            P.pairs[i].pa.p = vec3_of(dv_scale(dv_of(P.pairs[i].pa.p), scales[si]));
            P.pairs[i].pb.p = vec3_of(dv_scale(dv_of(P.pairs[i].pb.p), scales[si]));
        }
        char what[64];
        snprintf(what, sizeof what, "scale %g", scales[si]);
        test_ctx("%s", what);
        check_batch(what, P.pairs, P.npairs);
        pool_free(&P);
    }
}

/* ---------------------------------------------------------------- structured contacts */

/* Boxes stacked face on face (the common resting contact: tied support
 * features), edge on face, and capsules parallel and crossing. */
static void test_structured(void **state)
{
    (void)state;
    const size_t N = 3000;
    pool P;
    pool_init(&P, N);
    test_rng r = rng_seed(4242);
    const double gaps[] = {-0.2, -0.01, -1e-4, 0.0, 1e-4, 0.01, 0.2};
    while (P.npairs + 5 <= N) {
        const mink_quat frame = rng_unit(&r) < 0.5 ? quat_identity() : rng_quat(&r);
        const dv3 o = rng_box(&r, 3.0);
        const double gap = gaps[rng_below(&r, sizeof gaps / sizeof gaps[0])];
        /* stacked boxes: B on A's +y face, turned about y or not */
        {
            const mink_shape a = rand_shape(&r, MINK_SHAPE_BOX), b = rand_shape(&r, MINK_SHAPE_BOX);
            const double turn = rng_unit(&r) < 0.5 ? 0.0 : rng_range(&r, 0, TEST_PI);
            const mink_quat qb = quat_mul(frame, quat_axis_angle(dv(0, 1, 0), turn));
            const double up = a.half[1] + b.half[1] + a.radius + b.radius + gap;
            const dv3 side = dv(rng_range(&r, -1, 1) * (a.half[0] + 0.5 * b.half[0]), up,
                                rng_range(&r, -1, 1) * (a.half[2] + 0.5 * b.half[2]));
            pool_add(&P, a, pose_make(o, frame), b, pose_make(dv_add(o, quat_rotate(frame, side)), qb));
        }
        /* parallel capsules: side by side, overlapping along the axis or not */
        {
            const mink_shape a = rand_shape(&r, MINK_SHAPE_CAPSULE), b = rand_shape(&r, MINK_SHAPE_CAPSULE);
            const double side = a.radius + b.radius + gap;
            const dv3 off = dv(side, rng_range(&r, -1.5, 1.5) * (a.half[1] + b.half[1]), 0);
            const mink_quat qb = rng_unit(&r) < 0.5 ? frame : quat_mul(frame, quat_axis_angle(dv(1, 0, 0), TEST_PI));
            pool_add(&P, a, pose_make(o, frame), b, pose_make(dv_add(o, quat_rotate(frame, off)), qb));
        }
        /* boxes turned by a tiny angle from A's axes (near-parallel edges),
         * face to face or edge to face */
        {
            const mink_shape a = rand_shape(&r, MINK_SHAPE_BOX), b = rand_shape(&r, MINK_SHAPE_BOX);
            const double tiny_angles[] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2};
            const double angle = tiny_angles[rng_below(&r, 6)];
            const mink_quat qb = quat_mul(frame, quat_axis_angle(rng_dir(&r), angle));
            const double up = a.half[1] + b.half[1] + a.radius + b.radius + gap;
            const dv3 side = dv(rng_range(&r, -1, 1) * (a.half[0] + b.half[0]), up, rng_range(&r, -1, 1) * (a.half[2] + b.half[2]));
            pool_add(&P, a, pose_make(o, frame), b, pose_make(dv_add(o, quat_rotate(frame, side)), qb));
        }
        /* capsules at a small angle: near-parallel segments */
        {
            const mink_shape a = rand_shape(&r, MINK_SHAPE_CAPSULE), b = rand_shape(&r, MINK_SHAPE_CAPSULE);
            const double small[] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1};
            const mink_quat qb = quat_mul(frame, quat_axis_angle(rng_dir(&r), small[rng_below(&r, 7)]));
            const dv3 off = dv(a.radius + b.radius + gap, rng_range(&r, -1.5, 1.5) * (a.half[1] + b.half[1]), 0);
            pool_add(&P, a, pose_make(o, frame), b, pose_make(dv_add(o, quat_rotate(frame, off)), qb));
        }
        /* crossing capsules: segments crossing at distance |gap| (0: they cut) */
        {
            const mink_shape a = rand_shape(&r, MINK_SHAPE_CAPSULE), b = rand_shape(&r, MINK_SHAPE_CAPSULE);
            const double angle = rng_range(&r, 0.05, TEST_PI - 0.05);
            const mink_quat qb = quat_mul(frame, quat_axis_angle(dv(0, 0, 1), angle));
            const dv3 off = dv(0, rng_range(&r, -0.5, 0.5) * a.half[1], fabs(gap) < 0.05 ? gap : 0.0);
            pool_add(&P, a, pose_make(o, frame), b, pose_make(dv_add(o, quat_rotate(frame, off)), qb));
        }
    }
    test_ctx("structured");
    check_batch("structured contacts", P.pairs, P.npairs);
    pool_free(&P);
}

/* ---------------------------------------------------------------- case files */

/* bench, mixed and degenerate cases, and the scenes under FORMAT.md's local
 * rule, in one batch, in file order. */
static void test_case_files(void **state)
{
    (void)state;
    static const char *const files[] = {"bench.cases", "mixed.cases", "degenerate.cases", "scenes.cases",
                                        "scenes-regressions.cases"};
    enum { FILES = sizeof files / sizeof files[0] };
    case_set sets[FILES];
    size_t total = 0;
    for (int f = 0; f < FILES; ++f) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", MINK_TEST_DATA, files[f]);
        if (case_set_load(path, &sets[f], err, sizeof err) != 0) fail_msg("%s: %s", path, err);
        /* the scenes under FORMAT.md's local rule, as the single queries */
        if (strncmp(files[f], "scenes", 6) == 0) case_set_use_local_tolerance(&sets[f]);
        total += sets[f].count;
    }
    mink_pair *pairs = calloc(total, sizeof *pairs);
    assert_non_null(pairs);
    size_t n = 0;
    for (int f = 0; f < FILES; ++f)
        for (size_t i = 0; i < sets[f].count; ++i) {
            const mink_case *c = &sets[f].cases[i];
            pairs[n].a = &c->a;
            pairs[n].pa = c->pa;
            pairs[n].b = &c->b;
            pairs[n].pb = c->pb;
            pairs[n].cache = NULL;
            ++n;
        }
    test_ctx("case files");
    check_batch("case files", pairs, n);
    /* and the batch answers against the files' exact expectations */
    mink_result *res = malloc(n * sizeof *res);
    assert_non_null(res);
    mink_penetration_batch(pairs, n, res);
    size_t k = 0, bad = 0;
    char first[512] = "";
    for (int f = 0; f < FILES; ++f)
        for (size_t i = 0; i < sets[f].count; ++i, ++k) {
            char why[256];
            if (case_check(&sets[f].cases[i], CASE_QUERY_PENETRATION, &res[k], why, sizeof why)) continue;
            print_message("FAIL %s: %s\n", sets[f].cases[i].id, why);
            if (!bad++) snprintf(first, sizeof first, "%s: %s", sets[f].cases[i].id, why);
        }
    free(res);
    free(pairs);
    for (int f = 0; f < FILES; ++f) case_set_free(&sets[f]);
    if (bad) fail_msg("%zu batch answers fail the case files' expectations; first: %s", bad, first);
}

/* ---------------------------------------------------------------- sizes, errors, caches */

/* Batches of every size around the lane count and the staging capacity,
 * each kind alone and mixed; a batch of 0 writes nothing. */
static void test_sizes(void **state)
{
    (void)state;
#if defined(MINK_DISPATCH)
    const size_t W = 16; /* the widest backend's lanes (the others' divide it) */
#else
    const size_t W = MINK_W_LANES;
#endif
    const size_t sizes[] = {1, 2, W - 1, W, W + 1, 2 * W - 1, LANE_CAP - 1, LANE_CAP, LANE_CAP + 1, 3 * LANE_CAP + 5, 4099};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        if (sizes[s] == 0) continue;
        for (size_t k = 0; k <= NKINDS; ++k) {
            pool P;
            pool_init(&P, sizes[s]);
            test_rng r = rng_seed(1000 * s + k);
            for (size_t i = 0; i < sizes[s]; ++i) {
                const size_t kk = k < NKINDS ? k : rng_below(&r, NKINDS);
                add_random_pair(&P, &r, KIND_TYPES[kk][0], KIND_TYPES[kk][1]);
            }
            test_ctx("size %zu kind %zu", sizes[s], k);
            char what[64];
            snprintf(what, sizeof what, "size %zu, kind %zu", sizes[s], k);
            check_batch(what, P.pairs, P.npairs);
            pool_free(&P);
        }
    }
    /* n = 0 */
    mink_result r0;
    memset(&r0, 0xff, sizeof r0);
    int h0 = 7;
    const mink_shape s = mink_sphere(1.0f);
    mink_pair p;
    memset(&p, 0, sizeof p);
    p.a = p.b = &s;
    p.pa = pose_make(dv(0, 0, 0), quat_identity());
    p.pb = pose_make(dv(1, 0, 0), quat_identity());
    mink_penetration_batch(&p, 0, &r0);
    mink_intersect_batch(&p, 0, &h0);
    mink_penetration_batch_mt(&p, 0, &r0, 4);
    mink_intersect_batch_mt(&p, 0, &h0, 4);
    test_ctx("n = 0");
    EXPECT_TRUE(isnan(r0.distance));
    EXPECT_INT(h0, 7);
}

/* Invalid pairs scattered through a batch of lane pairs: each answers
 * MINK_ERR_INVALID with an all-zero result; every other answer is the same,
 * bit for bit, as in the batch without them. */
static void test_invalid_inside(void **state)
{
    (void)state;
    const size_t N = 3 * LANE_CAP + 7;
    pool P;
    pool_init(&P, N);
    test_rng r = rng_seed(31337);
    for (size_t i = 0; i < N; ++i) {
        const size_t k = rng_below(&r, NKINDS);
        add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
    }
    mink_result *clean = calloc(N, sizeof *clean), *dirty = calloc(N, sizeof *dirty);
    int *hclean = calloc(N, sizeof *hclean), *hdirty = calloc(N, sizeof *hdirty);
    mink_pair *bad = calloc(N, sizeof *bad);
    assert_true(clean && dirty && hclean && hdirty && bad);
    mink_penetration_batch(P.pairs, N, clean);
    mink_intersect_batch(P.pairs, N, hclean);
    memcpy(bad, P.pairs, N * sizeof *bad);
    const mink_shape broken = mink_box(-1.0f, 1.0f, 1.0f, 0.0f); /* type INVALID */
    mink_shape nan_radius = mink_sphere(1.0f);
    nan_radius.radius = NAN;
    int is_bad[3 * LANE_CAP + 7] = {0};
    for (size_t i = 0; i < N; i += 1 + rng_below(&r, 5)) {
        is_bad[i] = 1;
        switch (rng_below(&r, 6)) {
        case 0: bad[i].a = NULL; break;
        case 1: bad[i].b = &broken; break;
        case 2: bad[i].pa.p.x = NAN; break;
        case 3: bad[i].pb.q.w = 2.0f; break; /* not unit */
        case 4: bad[i].pb.p.z = INFINITY; break;
        default: bad[i].a = &nan_radius; break;
        }
    }
    for (size_t i = 0; i < N; ++i) memset(&dirty[i], 0xff, sizeof dirty[i]);
    mink_penetration_batch(bad, N, dirty);
    mink_intersect_batch(bad, N, hdirty);
    for (size_t i = 0; i < N; ++i) {
        test_ctx("pair %zu (%s)", i, is_bad[i] ? "invalid" : "valid");
        if (is_bad[i]) {
            EXPECT_TRUE(is_zero_error(&dirty[i]));
            EXPECT_INT(hdirty[i], MINK_ERR_INVALID);
        } else {
            EXPECT_TRUE(memcmp(&dirty[i], &clean[i], sizeof clean[i]) == 0);
            EXPECT_INT(hdirty[i], hclean[i]);
        }
    }
    free(clean);
    free(dirty);
    free(hclean);
    free(hdirty);
    free(bad);
    pool_free(&P);
}

/* Caches: a pair answered in a lane leaves its cache as it was; a hull pair
 * updates it as the single query does; answers do not change with caches. */
static void test_caches(void **state)
{
    (void)state;
    const size_t N = 2 * LANE_CAP + 3;
    pool P;
    pool_init(&P, N + 1);
    test_rng r = rng_seed(99);
    for (size_t i = 0; i < N; ++i) {
        const size_t k = rng_below(&r, NKINDS);
        add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
    }
    const float tet[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    test_arena_reset();
    const mink_shape hull = test_hull(tet, 4, 0.0f);
    pool_add(&P, hull, pose_make(dv(0, 0, 0), quat_identity()), mink_sphere(0.5f),
             pose_make(dv(1.5, 1.5, 1.5), quat_identity()));
    const size_t M = P.npairs;
    mink_cache *caches = calloc(M, sizeof *caches), *before = calloc(M, sizeof *before);
    mink_result *cold = calloc(M, sizeof *cold), *warm = calloc(M, sizeof *warm);
    assert_true(caches && before && cold && warm);
    mink_penetration_batch(P.pairs, M, cold);
    for (size_t i = 0; i < M; ++i) {
        mink_cache_reset(&caches[i]);
        P.pairs[i].cache = &caches[i];
    }
    memcpy(before, caches, M * sizeof *caches);
    mink_penetration_batch(P.pairs, M, warm);
    for (size_t i = 0; i < M; ++i) {
        test_ctx("pair %zu", i);
        EXPECT_NEAR(warm[i].distance, cold[i].distance, 1e-5 * pair_L(P.pairs[i].a, &P.pairs[i].pa, P.pairs[i].b, &P.pairs[i].pb));
        if (warm[i].support_calls == 0) EXPECT_TRUE(memcmp(&caches[i], &before[i], sizeof caches[i]) == 0);
    }
    /* the hull pair went through the per-pair query: its cache now holds something */
    test_ctx("hull pair cache");
    EXPECT_TRUE(memcmp(&caches[M - 1], &before[M - 1], sizeof caches[0]) != 0);
    /* a second, warm pass answers the same */
    mink_penetration_batch(P.pairs, M, warm);
    for (size_t i = 0; i < M; ++i) {
        test_ctx("warm pair %zu", i);
        EXPECT_NEAR(warm[i].distance, cold[i].distance, 1e-5 * pair_L(P.pairs[i].a, &P.pairs[i].pa, P.pairs[i].b, &P.pairs[i].pb));
    }
    free(caches);
    free(before);
    free(cold);
    free(warm);
    pool_free(&P);
}

/* ---------------------------------------------------------------- multi-core */

/* The _mt variants equal the single-threaded batch bit for bit, for any
 * thread count (including more threads than chunks and threads <= 1). */
static void test_mt(void **state)
{
    (void)state;
    const size_t N = 5000;
    pool P;
    pool_init(&P, N);
    test_rng r = rng_seed(2024);
    for (size_t i = 0; i < N; ++i) {
        const size_t k = rng_below(&r, NKINDS);
        add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
    }
    P.pairs[17].a = NULL; /* an invalid pair in there too */
    mink_result *one = calloc(N, sizeof *one), *many = calloc(N, sizeof *many);
    int *hone = calloc(N, sizeof *hone), *hmany = calloc(N, sizeof *hmany);
    assert_true(one && many && hone && hmany);
    mink_penetration_batch(P.pairs, N, one);
    mink_intersect_batch(P.pairs, N, hone);
    const unsigned threads[] = {0, 1, 2, 3, 4, 7, 16, 1000};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
        for (size_t i = 0; i < N; ++i) memset(&many[i], 0xff, sizeof many[i]);
        memset(hmany, 0xff, N * sizeof *hmany);
        mink_penetration_batch_mt(P.pairs, N, many, threads[t]);
        mink_intersect_batch_mt(P.pairs, N, hmany, threads[t]);
        test_ctx("threads %u", threads[t]);
        EXPECT_TRUE(memcmp(one, many, N * sizeof *one) == 0);
        EXPECT_TRUE(memcmp(hone, hmany, N * sizeof *hone) == 0);
    }
    /* small batches run inline; NULL pairs answer every slot with the error */
    mink_penetration_batch_mt(P.pairs, 10, many, 4);
    test_ctx("small mt batch");
    EXPECT_TRUE(memcmp(one, many, 10 * sizeof *one) == 0);
    mink_penetration_batch_mt(NULL, 3, many, 4);
    mink_intersect_batch_mt(NULL, 3, hmany, 4);
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(is_zero_error(&many[i]));
        EXPECT_INT(hmany[i], MINK_ERR_INVALID);
    }
    mink_penetration_batch_mt(P.pairs, N, NULL, 4);
    mink_intersect_batch_mt(P.pairs, N, NULL, 4);
    free(one);
    free(many);
    free(hone);
    free(hmany);
    pool_free(&P);
}

/* ---------------------------------------------------------------- near edges */

/* Spheres and capsules (along y, thin) just past a box's edges and
 * corners, 1e-5 to 1e-3 beyond contact, near the origin: where the lanes'
 * float rounding of B's origin and the second-order match of a distance
 * leave a normal most room to tilt. Separated answers past FORMAT.md's near
 * band must agree with the per-pair query (double precision there) within
 * the separated normal's limit, 2e-3 rad. A capsule 2e-6 below a face's
 * plane, beside its edge, once came out along the face's axis, 14 mrad off. */
static void test_near_edges(void **state)
{
    (void)state;
    const size_t N = 4096;
    test_rng r = rng_seed(808);
    const mink_shape box = mink_box(0.5f, 0.7f, 0.9f, 0.0f);
    const mink_shape kinds[2] = {mink_sphere(1e-4f), mink_capsule(1e-4f, 0.02f)};
    mink_pair *pairs = calloc(N, sizeof *pairs);
    mink_result *rb = calloc(N, sizeof *rb);
    assert_non_null(pairs);
    assert_non_null(rb);
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i < N; ++i) {
            dv3 d = rng_dir(&r);
            const double cx = d.x > 0 ? 0.5 : -0.5, cz = d.z > 0 ? 0.9 : -0.9;
            double cy = d.y > 0 ? 0.7 : -0.7;
            /* half of them off an edge along y, the capsule's axis: beside
             * it, some nearly in one face's plane (d near that face's axis) */
            if (i % 2) cy = rng_range(&r, -0.6, 0.6), d.y = 0.0, d.z *= i % 4 == 1 ? 1e-2 : 1.0;
            d = dv_norm(d);
            const double gap = pow(10.0, rng_range(&r, -5.0, -3.0)) + 1e-4, off = rng_range(&r, 0.3, 3.0);
            pairs[i].a = &box;
            pairs[i].pa = (mink_pose){{(float)off, (float)-off, (float)off}, {0, 0, 0, 1}};
            pairs[i].b = &kinds[k];
            pairs[i].pb = (mink_pose){{(float)(off + cx + d.x * gap), (float)(-off + cy + d.y * gap),
                                       (float)(off + cz + d.z * gap)}, {0, 0, 0, 1}};
            pairs[i].cache = NULL;
        }
        mink_penetration_batch(pairs, N, rb);
        size_t bad = 0, compared = 0;
        double worst = 0.0;
        for (size_t i = 0; i < N; ++i) {
            mink_result rs;
            mink_penetration(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, NULL, &rs);
            const double l = kinds[k].extent + kinds[k].radius; /* the smaller shape */
            if (!(rs.distance > 1e-3 * l)) continue; /* FORMAT.md's near band */
            compared++;
            const double ang = dv_angle(dv_of(rb[i].normal), dv_of(rs.normal));
            worst = ang > worst ? ang : worst;
            bad += ang > TOL_SEP_ANGLE;
        }
        print_message("%s by box edges and corners: %zu separated answers compared, worst normal %.3g rad\n",
                      k ? "capsule" : "sphere", compared, worst);
        test_ctx("near edges, %s", k ? "capsule" : "sphere");
        EXPECT_LE(1000.0, (double)compared, 0.0);
        EXPECT_LE((double)bad, 0.0, 0.0);
    }
    free(pairs);
    free(rb);
}

/* Capsules side by side (capsules_side_by_side): the lanes' closest points
 * against the segments' own in double. Once the lines' parameter (c.y - b ru) / denom lost
 * its numerator to rounding: two capsules 1.7e-5 rad from parallel came
 * out 12 % too close and 0.18 rad off. */
static void test_near_parallel_capsules(void **state)
{
    (void)state;
    const size_t N = 4096;
    test_rng r = rng_seed(909);
    const mink_shape a = mink_capsule(CAPSULES_SIDE_RADIUS, CAPSULES_SIDE_HALF_A),
                     b = mink_capsule(CAPSULES_SIDE_RADIUS, CAPSULES_SIDE_HALF_B);
    mink_pair *pairs = calloc(N, sizeof *pairs);
    mink_result *rb = calloc(N, sizeof *rb);
    assert_non_null(pairs);
    assert_non_null(rb);
    for (size_t i = 0; i < N; ++i) {
        mink_pose pa, pb;
        capsules_side_by_side(&r, i, &pa, &pb);
        pairs[i] = (mink_pair){&a, pa, &b, pb, NULL};
    }
    mink_penetration_batch(pairs, N, rb);
    size_t bad = 0, compared = 0;
    double worst_n = 0.0, worst_d = 0.0;
    const double l = a.extent + a.radius; /* the smaller shape */
    for (size_t i = 0; i < N; ++i) {
        dv3 n;
        const double d = capsule_distance(&a, &pairs[i].pa, &b, &pairs[i].pb, &n);
        const double err = fabs(rb[i].distance - d), ang = dv_angle(dv_of(rb[i].normal), n);
        worst_d = err > worst_d ? err : worst_d;
        bad += err > 1e-4 * l;
        if (d > 1e-3 * l) { /* FORMAT.md's near band: the normal is checked past it */
            compared++;
            worst_n = ang > worst_n ? ang : worst_n;
            bad += ang > TOL_SEP_ANGLE;
        }
    }
    print_message("capsules side by side: distance off by %.3g at worst, %zu normals compared, worst %.3g rad\n",
                  worst_d, compared, worst_n);
    test_ctx("near-parallel capsules");
    EXPECT_LE(1000.0, (double)compared, 0.0);
    EXPECT_LE((double)bad, 0.0, 0.0);
    free(pairs);
    free(rb);
}

/* ---------------------------------------------------------------- lane usage */

/* The lane kernels answer the bulk of the primitive pairs (a guard against
 * a silent slide into the per-pair path): lane answers report no support
 * calls. */
static void test_lane_coverage(void **state)
{
    (void)state;
    for (size_t k = 0; k < NKINDS; ++k) {
        const size_t N = 2000;
        pool P;
        pool_init(&P, N);
        test_rng r = rng_seed(555 + k);
        for (size_t i = 0; i < N; ++i) add_random_pair(&P, &r, KIND_TYPES[k][0], KIND_TYPES[k][1]);
        mink_result *res = calloc(N, sizeof *res);
        assert_non_null(res);
        mink_penetration_batch(P.pairs, N, res);
        size_t lanes = 0;
        for (size_t i = 0; i < N; ++i) lanes += res[i].status == MINK_OK && res[i].support_calls == 0;
        const double frac = (double)lanes / (double)N;
        print_message("%s-%s: %.1f %% answered in lanes\n", type_name(KIND_TYPES[k][0]), type_name(KIND_TYPES[k][1]),
                      100.0 * frac);
        test_ctx("kind %zu", k);
        EXPECT_LE(0.9, frac, 0.0);
        free(res);
        pool_free(&P);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_kinds),   cmocka_unit_test(test_random_mixed), cmocka_unit_test(test_structured), cmocka_unit_test(test_scales),
        cmocka_unit_test(test_case_files),     cmocka_unit_test(test_sizes),        cmocka_unit_test(test_invalid_inside),
        cmocka_unit_test(test_caches),         cmocka_unit_test(test_mt),           cmocka_unit_test(test_lane_coverage),
        cmocka_unit_test(test_near_edges),     cmocka_unit_test(test_near_parallel_capsules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
