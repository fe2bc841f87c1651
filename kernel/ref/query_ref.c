/* Public entry points of the scalar reference: validate, move B into A's
 * frame, GJK on the cores (warm from the pair's cache when it has one), EPA
 * when the cores overlap, radii, back to world, cache updated. */
#include "mink/mink_ref.h"
#include "cache.h"
#include "epa_ref.h"
#include "gjk_ref.h"
#include "gjk_double.h"
#include "shape.h"

#include <string.h>

typedef struct ref_query {
    mink_pose pa, pb;   /* validated, unit quaternions */
    const mink_pose *pose_a, *pose_b; /* as given (the double check's) */
    m33 rot_a;          /* A local -> world            */
    ref_pair pair;
    float ra, rb;
    cache_state cached;
    int have_cache;
    ref_vertex seed[4]; /* the cached simplex at the new poses */
    unsigned nseed;
} ref_query;

static int query_begin(ref_query *q, const mink_shape *a, const mink_pose *pa,
                       const mink_shape *b, const mink_pose *pb, const mink_cache *cache)
{
    if (mink_check_query(a, pa, b, pb, &q->pa, &q->pb) != 0) return 0;
    q->pose_a = pa;
    q->pose_b = pb;
    q->rot_a = m33_from_quat(q->pa.q);
    mink_scalar_pair_init(&q->pair, a, &q->pa, b, &q->pb);
    q->ra = a->radius;
    q->rb = b->radius;
    q->have_cache = mink_cache_load(cache, a, b, &q->cached);
    q->nseed = 0;
    for (unsigned i = 0; q->have_cache && i < q->cached.count; ++i) {
        ref_vertex *v = &q->seed[q->nseed++];
        v->ia = q->cached.ia[i];
        v->ib = q->cached.ib[i];
        v->pa = mink_scalar_core_point(a, v->ia);
        v->pb = v3_add(m33_mul(&q->pair.rot_b, mink_scalar_core_point(b, v->ib)), q->pair.pos_b);
        v->w = v3_sub(v->pb, v->pa);
    }
    return 1;
}

static void remember(const ref_query *q, mink_cache *cache, cache_outcome outcome, v3 axis, const ref_simplex *s)
{
    if (!cache) return;
    cache_state st;
    memset(&st, 0, sizeof st);
    st.axis[0] = axis.x;
    st.axis[1] = axis.y;
    st.axis[2] = axis.z;
    st.outcome = outcome;
    for (unsigned i = 0; s && i < 4; ++i) {
        if (!(s->bits & (1u << i))) continue;
        st.ia[st.count] = s->vert[i].ia;
        st.ib[st.count] = s->vert[i].ib;
        st.count++;
    }
    mink_cache_store(cache, q->pair.a, q->pair.b, &st, &q->cached);
}

static void run_gjk(ref_query *q, ref_gjk_mode mode, ref_gjk_result *g)
{
    const v3 v0 = q->have_cache ? v3_make(q->cached.axis[0], q->cached.axis[1], q->cached.axis[2]) : q->pair.pos_b;
    mink_scalar_gjk(&q->pair, mode, mode == REF_GJK_INTERSECT ? q->ra + q->rb : 0.0f, v0, q->seed, q->nseed, g);
}

static v3 world_point(const ref_query *q, v3 p) { return v3_add(m33_mul(&q->rot_a, p), q->pa.p); }

/* Fills the result from core witnesses (A frame), a unit normal and the
 * signed distance of the rounded shapes: each witness moves out by its radius. */
/* |v| and v / |v| without underflow for tiny v (squares of 1e-22 are
 * denormal): v is scaled by its largest component first. */
static float length_and_unit(v3 v, v3 *unit)
{
    const float m = fmaxf(fabsf(v.x), fmaxf(fabsf(v.y), fabsf(v.z)));
    if (!(m > 0.0f)) {
        *unit = v3_make(1, 0, 0);
        return 0.0f;
    }
    const v3 scaled = v3_make(v.x / m, v.y / m, v.z / m); /* 1 / m overflows for denormal m */
    const float len = v3_len(scaled);
    *unit = v3_scale(scaled, 1.0f / len);
    return m * len;
}

static void finish(const ref_query *q, v3 pa_core, v3 pb_core, v3 n, float distance, mink_result *out)
{
    /* Both points from the smaller shape's witness, the other one
     * distance * normal from it (point_b - point_a = distance * normal): a
     * weighted sum of a shape's points is off by the weights' rounding
     * times the points' spread, the less on the smaller shape. Then out by
     * the radii. */
    const v3 core = v3_scale(n, distance + q->ra + q->rb); /* core_b - core_a */
    const int from_b = q->pair.b->extent + q->rb < q->pair.a->extent + q->ra;
    const v3 core_a = from_b ? v3_sub(pb_core, core) : pa_core, core_b = from_b ? pb_core : v3_add(pa_core, core);
    out->distance = distance;
    out->normal = m33_mul(&q->rot_a, n);
    out->point_a = world_point(q, v3_add(core_a, v3_scale(n, q->ra)));
    out->point_b = world_point(q, v3_sub(core_b, v3_scale(n, q->rb)));
}

/* GJK's simplex beside a sliver (mink_sliver_doubt). */
static int beside_sliver(const ref_query *q, const ref_gjk_result *g, float dc)
{
    uint32_t ia[4], ib[4];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (g->simplex.bits >> i & 1u) ia[n] = g->simplex.vert[i].ia, ib[n] = g->simplex.vert[i].ib, ++n;
    const float width = MINK_REF_SLIVER_REACH * mink_sliver_width(q->pair.scale);
    if (!(dc > 0.0f) || !mink_sliver_features(q->pair.a, ia, q->pair.b, ib, n, width)) return 0;
    const v3 u = v3_scale(g->v, 1.0f / dc), ub = m33_tmul(&q->pair.rot_b, v3_neg(u));
    const float da[3] = {u.x, u.y, u.z}, db[3] = {ub.x, ub.y, ub.z};
    return mink_sliver_doubt(q->pair.a, da, ia, q->pair.b, db, ib, n, q->pair.scale, width);
}

/* Whether the float answer is too close to contact for float: an overlap
 * that only the touching band or a stall decided (no tetrahedron holds the
 * origin), or cores near contact, or rounded shapes touching
 * (mink_double_doubt), or cores apart where GJK stalled before its bounds
 * met (a sliver simplex whose float weights repeat a point: a 1 mm hull of
 * 64 points 0.08 mm from a plank stopped 10 % long) or on a vertex or an
 * edge of D with a point tied within rounding (MINK_GJK_TIE_ANGLE), or GJK
 * ended beside a sliver (mink_sliver_doubt). dc: |v|. */
static int in_doubt(const ref_query *q, const ref_gjk_result *g, float dc)
{
    if (g->overlap) return g->simplex.bits != 15u;
    return g->stalled || g->tied || mink_double_doubt(dc, q->ra + q->rb, q->pair.scale) || beside_sliver(q, g, dc);
}

static uint32_t hull_support(const mink_shape *hull, const float d[3])
{
    return mink_scalar_support_local(hull, v3_make(d[0], d[1], d[2])).index;
}

/* An intersect's overlap (the cores within rA + rB, v not a tetrahedron's)
 * that float cannot tell from a gap: |v| within the touching band of the
 * margin (GJK stops at the first |v| below it). */
static int intersect_in_doubt(const ref_query *q, v3 v)
{
    const float margin = q->ra + q->rb, near = MINK_TOUCH_REL * q->pair.scale;
    return margin <= near || v3_len2(v) >= (margin - near) * (margin - near);
}

/* GJK in double from the float simplex's features. */
static void double_closest(const ref_query *q, const ref_simplex *s, mink_double_closest *d)
{
    uint32_t ia[4], ib[4];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (s->bits >> i & 1u) ia[n] = s->vert[i].ia, ib[n] = s->vert[i].ib, ++n;
    mink_gjk_double(q->pair.a, q->pose_a, q->pair.b, q->pose_b, ia, ib, n, hull_support, d);
}

/* The double check's simplex in float (A frame), to start EPA from. */
static void simplex_of_double(const ref_query *q, const mink_double_closest *d, ref_simplex *s)
{
    mink_scalar_simplex_init(s);
    for (unsigned i = 0; i < 4; ++i) {
        ref_vertex *v = &s->vert[i];
        v->ia = d->ia[i];
        v->ib = d->ib[i];
        v->pa = mink_scalar_core_point(q->pair.a, v->ia);
        v->pb = v3_add(m33_mul(&q->pair.rot_b, mink_scalar_core_point(q->pair.b, v->ib)), q->pair.pos_b);
        v->w = v3_sub(v->pb, v->pa);
        s->lambda[i] = (float)d->lambda[i];
    }
    s->bits = d->bits;
}

static mink_vec3 vec3_of_double(const double p[3]) { return v3_make((float)p[0], (float)p[1], (float)p[2]); }

/* B's direction from A when no better normal is known. */
static v3 fallback_normal(const ref_query *q)
{
    v3 n;
    length_and_unit(q->pair.pos_b, &n); /* (1, 0, 0) when B sits on A's origin */
    return n;
}

int mink_ref_intersect_ex(const mink_shape *a, const mink_pose *pa,
                          const mink_shape *b, const mink_pose *pb, mink_cache *cache, mink_result *info)
{
    ref_query q;
    if (info) mink_result_error(info, MINK_OK);
    if (!query_begin(&q, a, pa, b, pb, cache)) {
        if (info) info->status = MINK_ERR_INVALID;
        return MINK_ERR_INVALID;
    }
    const float margin = q.ra + q.rb;
    if (q.have_cache && q.cached.outcome == CACHE_SEPARATED) {
        /* Does last query's axis still separate? One support evaluation. */
        const v3 axis = v3_make(q.cached.axis[0], q.cached.axis[1], q.cached.axis[2]);
        const ref_vertex w = mink_scalar_support_pair(&q.pair, v3_neg(axis));
        const float gain = v3_dot(axis, w.w);
        if (gain > 0.0f && gain * gain > margin * margin * v3_len2(axis)) {
            /* the cache stays as it is */
            if (info) {
                info->distance = 1.0f;
                v3 n;
                length_and_unit(axis, &n);
                info->normal = m33_mul(&q.rot_a, n);
                info->support_calls = q.pair.support_calls;
            }
            return 0;
        }
    }
    ref_gjk_result g;
    run_gjk(&q, REF_GJK_INTERSECT, &g);
    if (g.overlap ? g.simplex.bits != 15u && intersect_in_doubt(&q, g.v) : !g.apart_proven) {
        /* within rounding of the margin, or "apart" from a stalled GJK
         * with no separating plane (a sliver of a simplex whose float
         * closest point was 0.1 off, the cores 1.0 deep: the fuzz target):
         * decided in double */
        mink_double_closest d;
        double_closest(&q, &g.simplex, &d);
        g.overlap = !(d.distance > (double)margin);
        /* apart in double: its normal is the axis (float's v may be 0) */
        if (!g.overlap) g.v = m33_tmul(&q.rot_a, v3_make((float)d.normal[0], (float)d.normal[1], (float)d.normal[2]));
    }
    remember(&q, cache, g.overlap ? CACHE_OVERLAP : CACHE_SEPARATED, g.v, &g.simplex);
    if (info) {
        info->iterations = info->gjk_iterations = g.iterations;
        info->support_calls = q.pair.support_calls;
        info->status = g.status;
        info->distance = g.overlap ? 0.0f : 1.0f;
        v3 n; /* scaled first: |v|^2 of a tiny v underflows */
        if (!g.overlap && length_and_unit(g.v, &n) > 0.0f) info->normal = m33_mul(&q.rot_a, n);
    }
    return g.overlap;
}

int mink_ref_intersect(const mink_shape *a, const mink_pose *pa,
                       const mink_shape *b, const mink_pose *pb, mink_cache *cache)
{
    return mink_ref_intersect_ex(a, pa, b, pb, cache, NULL);
}

mink_status mink_ref_distance(const mink_shape *a, const mink_pose *pa,
                              const mink_shape *b, const mink_pose *pb,
                              mink_cache *cache, mink_result *out)
{
    ref_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_begin(&q, a, pa, b, pb, cache)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    ref_gjk_result g;
    run_gjk(&q, REF_GJK_DISTANCE, &g);
    v3 pa_core, pb_core;
    mink_scalar_simplex_points(&g.simplex, &pa_core, &pb_core);
    v3 n;
    const float dc = length_and_unit(g.v, &n);
    const float margin = q.ra + q.rb;
    out->iterations = out->gjk_iterations = g.iterations;
    out->status = g.status;

    /* overlapping cores of sizes far apart: the common point in double
     * (the larger shape's spread times the weights' rounding can exceed
     * the smaller's local tolerance) */
    const int overlap_apart = (g.overlap || !(dc > 0.0f)) && mink_sizes_apart(q.pair.a, q.pair.b);
    if (overlap_apart || in_doubt(&q, &g, g.overlap ? 0.0f : dc)) {
        mink_double_closest d;
        double_closest(&q, &g.simplex, &d);
        if (d.overlap) {
            out->distance = 0.0f;
            out->normal = m33_mul(&q.rot_a, fallback_normal(&q));
            out->point_a = out->point_b = vec3_of_double(d.pa);
        } else {
            mink_double_answer(&d, q.ra, q.rb, 1, out);
        }
    } else if (!g.overlap && dc > margin) {
        finish(&q, pa_core, pb_core, n, dc - margin, out);
    } else if (!g.overlap && dc > 0.0f) {
        /* Shallow overlap of the rounded shapes: report a common point, the
         * middle of the overlap along the core axis. */
        const v3 p = v3_add(pa_core, v3_scale(n, mink_overlap_middle(q.ra, q.rb, dc)));
        finish(&q, p, p, n, 0.0f, out);
        out->point_a = out->point_b = world_point(&q, p);
    } else {
        /* The cores overlap: GJK's weights give a point of both cores, the
         * smaller shape's weighted points (the weights are off by a float
         * rounding, and so is the sum by that times the points' spread). */
        out->distance = 0.0f;
        out->normal = m33_mul(&q.rot_a, fallback_normal(&q));
        out->point_a = out->point_b = world_point(&q, q.pair.b->extent < q.pair.a->extent ? pb_core : pa_core);
    }
    out->support_calls = q.pair.support_calls;
    remember(&q, cache, out->distance > 0.0f ? CACHE_SEPARATED : CACHE_OVERLAP, g.v, &g.simplex);
    return out->status;
}

/* Separated cores, or a shallow contact of rounded shapes: GJK's closest
 * points of the cores give the answer; no EPA. */
static mink_status core_gap_answer(const ref_query *q, const ref_gjk_result *g, mink_cache *cache, mink_result *out)
{
    v3 pa_core, pb_core;
    mink_scalar_simplex_points(&g->simplex, &pa_core, &pb_core);
    v3 n;
    const float dc = length_and_unit(g->v, &n);
    const float margin = q->ra + q->rb;
    finish(q, pa_core, pb_core, n, dc - margin, out);
    out->support_calls = q->pair.support_calls;
    remember(q, cache, dc > margin ? CACHE_SEPARATED : CACHE_OVERLAP, g->v, &g->simplex);
    return out->status;
}

/* Cores apart by the double check: its answer. */
static mink_status double_gap_answer(const ref_query *q, const mink_double_closest *d, const ref_gjk_result *g,
                                     mink_cache *cache, mink_result *out)
{
    mink_double_answer(d, q->ra, q->rb, 0, out);
    out->status = g->status;
    out->support_calls = q->pair.support_calls;
    remember(q, cache, d->distance > (double)q->ra + q->rb ? CACHE_SEPARATED : CACHE_OVERLAP, g->v, &g->simplex);
    return out->status;
}

/* The penetration query without the check (which calls it again, swapped). */
static mink_status penetration(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                               mink_cache *cache, mink_result *out)
{
    ref_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_begin(&q, a, pa, b, pb, cache)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    ref_gjk_result g;
    ref_epa_result e;
    mink_double_closest d;
    unsigned start_bits = 0;
    uint32_t start_ids[2][4];
    for (;;) {
        run_gjk(&q, REF_GJK_DISTANCE, &g);
        out->iterations = out->gjk_iterations = g.iterations;
        out->status = g.status;
        const ref_simplex *start = &g.simplex;
        ref_simplex from_double;
        const int checked = in_doubt(&q, &g, g.overlap ? 0.0f : v3_len(g.v));
        if (checked) {
            double_closest(&q, &g.simplex, &d);
            if (!d.overlap) return double_gap_answer(&q, &d, &g, cache, out);
            if (!g.overlap || d.bits == 15u) {
                /* float rounding made a gap of an overlap, or stalled short
                 * of a tetrahedron around the origin: EPA from the double's
                 * simplex (it holds the origin, or touches it) */
                simplex_of_double(&q, &d, &from_double);
                start = &from_double;
            }
        } else if (!g.overlap) {
            return core_gap_answer(&q, &g, cache, out);
        }
        start_bits = start->bits;
        for (unsigned i = 0; i < 4; ++i) start_ids[0][i] = start->vert[i].ia, start_ids[1][i] = start->vert[i].ib;
        mink_scalar_epa(&q.pair, start, &e);
        if (e.status == MINK_OK || !q.have_cache) break;
        /* EPA lost its polytope to rounding after a warm start: a cache
         * must never make an answer worse, so once more, cold */
        q.have_cache = 0;
        q.nseed = 0;
    }
    out->iterations += e.iterations;
    if (e.status != MINK_OK) out->status = e.status;
    /* a shallow depth, or an EPA that lost its polytope to rounding or ran
     * out of room (its answer then the best face so far, which may fall
     * short of D: two needles 10 % too shallow), answered in double where
     * it can be: EPA's face if it bounds D, else EPA from the start. A
     * small shape against a large one skips the face: float may not have
     * ordered its polytope's thin faces, and a face whose plane bounds D
     * is then not D's nearest (a 3 cm box in a 370 m hull, 0.65 mm deep) */
    const int coarse = mink_epa_coarse(q.pair.a, q.pair.b, q.pair.scale);
    if ((mink_double_near(e.depth, q.pair.scale) || e.status != MINK_OK || coarse) &&
        mink_depth_double(q.pair.a, q.pose_a, q.pair.b, q.pose_b, e.has_face && !coarse ? e.face_ia : NULL, e.face_ib,
                          e.has_start ? 15u : start_bits, e.has_start ? e.start_ia : start_ids[0],
                          e.has_start ? e.start_ib : start_ids[1], hull_support, &d)) {
        mink_double_answer(&d, q.ra, q.rb, 0, out);
        if (e.status != MINK_OK) out->status = g.status; /* EPA's failure answered */
    } else {
        finish(&q, e.pa, e.pb, e.normal, -(e.depth + q.ra + q.rb), out);
    }
    out->support_calls = q.pair.support_calls;
    remember(&q, cache, CACHE_OVERLAP, e.normal, &g.simplex);
    return out->status;
}

mink_status mink_ref_penetration(const mink_shape *a, const mink_pose *pa,
                                 const mink_shape *b, const mink_pose *pb,
                                 mink_cache *cache, mink_result *out)
{
    const mink_status st = penetration(a, pa, b, pb, cache, out);
    return out && mink_penetration_needs_check(a, b, st, out)
               ? mink_penetration_checked(a, pa, b, pb, st, penetration, hull_support, out)
               : st;
}
