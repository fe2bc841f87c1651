/* Public queries of the SIMD kernel: validate, place B in A's frame once,
 * GJK on the cores (warm from the pair's cache when it has one), EPA when
 * the cores overlap, radii, back to world, cache updated. */
#include "mink/mink.h"
#include "cache.h"
#include "epa.h"
#include "gjk.h"
#include "gjk_double.h"
#include "box_sat.h"
#include "box_depth.h"
#include "shape.h"
#include "support_scan.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct simd_query {
    v4 rot_a[3];     /* rows: A local -> world */
    v4 pos_a;
    const mink_pose *pose_a, *pose_b; /* as given (the double check's) */
    simd_pair pair;
    float ra, rb;
    cache_state cached;
    int have_cache;
    simd_vertex seed[4];
    unsigned nseed;
} simd_query;

/* The pair placed in A's frame, after the inputs were checked (|q|^2 of
 * each pose given). */
MINK_ALWAYS_INLINE void query_place(simd_query *q, const mink_shape *a, const mink_pose *pa, float qa_norm2,
                                    const mink_shape *b, const mink_pose *pb, float qb_norm2)
{
    mink_simd_pair_init(&q->pair, a, pa, qa_norm2, b, pb, qb_norm2, q->rot_a);
    q->pos_a = v4_from_vec3(pa->p);
    q->pose_a = pa;
    q->pose_b = pb;
    q->ra = a->radius;
    q->rb = b->radius;
}

/* The cached simplex, re-evaluated at the new poses, once the pair is placed
 * and the cache loaded (count and ids in locals: the vertex stores might
 * alias them). */
MINK_ALWAYS_INLINE void query_seed(simd_query *q)
{
    const unsigned n = q->have_cache ? q->cached.count : 0;
    for (unsigned i = 0; i < n; ++i) {
        simd_vertex *v = &q->seed[i];
        const uint32_t ia = q->cached.ia[i], ib = q->cached.ib[i];
        simd_vertex_set_ids(v, ia, ib);
        v->pa = mink_simd_core_point(q->pair.a, ia);
        v->pb = mink_simd_b_point(&q->pair, ib);
        v->w = v4_sub(v->pb, v->pa);
    }
    q->nseed = n;
}

MINK_ALWAYS_INLINE void query_begin(simd_query *q, const mink_shape *a, const mink_pose *pa, float qa_norm2,
                                    const mink_shape *b, const mink_pose *pb, float qb_norm2)
{
    query_place(q, a, pa, qa_norm2, b, pb, qb_norm2);
    query_seed(q);
}

/* Checks the inputs, loads the cache and sets the pair up; 0 on bad input. */
static int query_open(simd_query *q, const mink_shape *a, const mink_pose *pa,
                      const mink_shape *b, const mink_pose *pb, const mink_cache *cache)
{
    float na2, nb2;
    if (mink_check_inputs(a, pa, b, pb, &na2, &nb2) != 0) return 0;
    /* no cache, no call (its state is then never read) */
    q->have_cache = cache && mink_cache_load(cache, a, b, &q->cached);
    query_begin(q, a, pa, na2, b, pb, nb2);
    return 1;
}

/* Remembers the outcome, the axis (A frame) and the simplex's features.
 * The ids are gathered in registers and stored as whole rows (the cache
 * store reads them so): each used slot, highest first, is pushed in front,
 * which leaves them in slot order, zeros after. */
static void remember_state(mink_cache *cache, const mink_shape *a, const mink_shape *b, const cache_state *prev,
                           cache_outcome outcome, v4 axis, const simd_simplex *s)
{
    if (!cache) return;
    cache_state st;
    float t[4];
    v4_store(t, axis);
    memcpy(st.axis, t, sizeof st.axis);
    st.outcome = outcome;
    st.frames = 0;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0, n = 0;
    for (int i = 3; s && i >= 0; --i) {
        if (!(s->bits & (1u << i))) continue;
        a3 = a2, a2 = a1, a1 = a0, a0 = s->vert[i].ia;
        b3 = b2, b2 = b1, b1 = b0, b0 = s->vert[i].ib;
        n++;
    }
    u32x4_store(st.ia, a0, a1, a2, a3);
    u32x4_store(st.ib, b0, b1, b2, b3);
    st.count = n;
    mink_cache_store(cache, a, b, &st, prev);
}

static void remember(const simd_query *q, mink_cache *cache, cache_outcome outcome, v4 axis, const simd_simplex *s)
{
    remember_state(cache, q->pair.a, q->pair.b, &q->cached, outcome, axis, s);
}

static mink_vec3 world_point(const simd_query *q, v4 p) { return v4_to_vec3(v4_add(rot_apply(q->rot_a, p), q->pos_a)); }

/* |v| and v / |v| without underflow for tiny v (squares of 1e-22 are
 * denormal): v is scaled by its largest component first. */
static float length_and_unit(v4 v, v4 *unit)
{
    const v4 a = v4_max(v, v4_neg(v));
    const float m = v4_x(v4_max(v4_max(a, v4_splat_y(a)), v4_splat_z(a)));
    if (!(m > 0.0f)) {
        *unit = v4_set(1, 0, 0, 0);
        return 0.0f;
    }
    const v4 scaled = v4_div(v, v4_splat(m)); /* 1 / m overflows for denormal m */
    const float len = sqrtf(v4_len2(scaled));
    *unit = v4_scale(scaled, 1.0f / len);
    return m * len;
}

/* The result from core witnesses (A frame), the unit normal and the signed
 * distance. Both points come from the smaller shape's witness, the other
 * one distance * normal from it, so that point_b - point_a = distance *
 * normal holds: a weighted sum of a shape's points is off by the weights'
 * rounding times the points' spread, small on the smaller shape, up to
 * 0.04 on a 560 m box's edge (a 1 cm box touching it came out 2 cm off its
 * own centre when both were re-centred on their midpoint). Then out by the
 * radii. */
static void finish(const simd_query *q, v4 pa_core, v4 pb_core, v4 n, float distance, mink_result *out)
{
    const v4 core = v4_scale(n, distance + q->ra + q->rb); /* core_b - core_a */
    const int from_b = q->pair.b->extent + q->rb < q->pair.a->extent + q->ra;
    const v4 core_a = from_b ? v4_sub(pb_core, core) : pa_core, core_b = from_b ? pb_core : v4_add(pa_core, core);
    out->distance = distance;
    out->normal = v4_to_vec3(rot_apply(q->rot_a, n));
    out->point_a = world_point(q, v4_add(core_a, v4_scale(n, q->ra)));
    out->point_b = world_point(q, v4_sub(core_b, v4_scale(n, q->rb)));
}

static v4 fallback_normal(const simd_query *q)
{
    v4 n;
    length_and_unit(q->pair.pos_b, &n); /* (1, 0, 0) when B sits on A's origin */
    return n;
}

/* The direction GJK starts from when cold: towards B. */
static v4 start_axis(const simd_query *q)
{
    return q->have_cache ? v4_load3(q->cached.axis) : q->pair.pos_b;
}

static void run_gjk(simd_query *q, simd_gjk_mode mode, simd_gjk_result *g)
{
    const v4 v0 = v4_xyz(start_axis(q));
    mink_simd_gjk(&q->pair, mode, mode == SIMD_GJK_INTERSECT ? q->ra + q->rb : 0.0f, v0, q->seed, q->nseed, g);
}

/* GJK's simplex beside a sliver (mink_sliver_doubt), from |v| = dc > 0:
 * the narrowest faces first (inline), then the features, then the
 * geometry. */
static __attribute__((noinline)) int beside_sliver_features(const simd_query *q, const simd_gjk_result *g, float dc,
                                                             float width)
{
    uint32_t ia[4], ib[4];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (g->simplex.bits >> i & 1u) ia[n] = g->simplex.vert[i].ia, ib[n] = g->simplex.vert[i].ib, ++n;
    if (!mink_sliver_features(q->pair.a, ia, q->pair.b, ib, n, width)) return 0;
    const v4 u = v4_scale(g->v, 1.0f / dc), ub = rot_apply_t(q->pair.row, v4_neg(u));
    const float da[3] = {v4_x(u), v4_y(u), v4_z(u)}, db[3] = {v4_x(ub), v4_y(ub), v4_z(ub)};
    return mink_sliver_doubt(q->pair.a, da, ia, q->pair.b, db, ib, n, q->pair.scale, width);
}

MINK_ALWAYS_INLINE int beside_sliver(const simd_query *q, const simd_gjk_result *g, float dc)
{
    const float width = mink_sliver_width(q->pair.scale);
    return (mink_core_thin(q->pair.a) < width || mink_core_thin(q->pair.b) < width) &&
           beside_sliver_features(q, g, dc, width);
}

/* Whether the float answer is too close to contact for float: an overlap
 * that only the touching band or a stall decided (no tetrahedron holds the
 * origin), or cores near contact, or rounded shapes touching
 * (mink_double_doubt), or cores apart where GJK stalled before its bounds
 * met (query_ref.c: the reference stopped 10 % long on a 1 mm hull by a
 * plank) or on a vertex or an edge of D with a point tied within rounding
 * (MINK_GJK_TIE_ANGLE), or GJK ended beside a sliver (mink_sliver_doubt).
 * dc: |v|. */
MINK_ALWAYS_INLINE int in_doubt(const simd_query *q, const simd_gjk_result *g, float dc)
{
    if (g->overlap) return g->simplex.bits != 15u;
    return g->stalled || g->tied || mink_double_doubt(dc, q->ra + q->rb, q->pair.scale) ||
           (dc > 0.0f && beside_sliver(q, g, dc));
}

static uint32_t hull_support(const mink_shape *hull, const float d[3])
{
    uint32_t index;
    (void)mink_simd_support_local(hull, v4_set(d[0], d[1], d[2], 0.0f), &index);
    return index;
}

/* An intersect's overlap (the cores within rA + rB, v not a tetrahedron's)
 * that float cannot tell from a gap: |v| within the touching band of the
 * margin (GJK stops at the first |v| below it). */
static int intersect_in_doubt(const simd_query *q, v4 v)
{
    const float margin = q->ra + q->rb, near = MINK_TOUCH_REL * q->pair.scale;
    return margin <= near || v4_len2(v) >= (margin - near) * (margin - near);
}

/* GJK in double from the float simplex's features. */
static void double_closest(const simd_query *q, const simd_simplex *s, mink_double_closest *d)
{
    uint32_t ia[4], ib[4];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (s->bits >> i & 1u) ia[n] = s->vert[i].ia, ib[n] = s->vert[i].ib, ++n;
    mink_gjk_double(q->pair.a, q->pose_a, q->pair.b, q->pose_b, ia, ib, n, hull_support, d);
}

/* The double check's simplex in float (A frame), to start EPA from. */
static void simplex_of_double(const simd_query *q, const mink_double_closest *d, simd_simplex *s)
{
    mink_simd_simplex_init(s);
    float lambda[4];
    for (unsigned i = 0; i < 4; ++i) {
        simd_vertex *v = &s->vert[i];
        simd_vertex_set_ids(v, d->ia[i], d->ib[i]);
        v->pa = mink_simd_core_point(q->pair.a, d->ia[i]);
        v->pb = mink_simd_b_point(&q->pair, d->ib[i]);
        v->w = v4_sub(v->pb, v->pa);
        lambda[i] = (float)d->lambda[i];
    }
    s->lambda = v4_load(lambda);
    s->bits = d->bits;
}

static mink_vec3 vec3_of_double(const double p[3])
{
    mink_vec3 r = {(float)p[0], (float)p[1], (float)p[2]};
    return r;
}

/* v rotated by the quaternion (u, w) / |q|, u in lanes x y z (pad 0), w and
 * s = 2 / |q|^2 in every lane: v + w t + u x t, t = s u x v. */
static v4 quat_rotate(v4 u, v4 w, v4 s, v4 v)
{
    const v4 t = v4_mul(v4_cross(u, v), s);
    return v4_add(v4_add(v, v4_mul(t, w)), v4_cross(u, t));
}

/* -(v rotated by the inverse of (u, w) / |q|), as quat_rotate: the inverse
 * (-u, w) gives t' = -t, so this is -(v - w t + u x t) = (w t - v) - u x t,
 * each step an exact negation of quat_rotate's with -u. */
static v4 quat_rotate_inverse_neg(v4 u, v4 w, v4 s, v4 v)
{
    const v4 t = v4_mul(v4_cross(u, v), s);
    return v4_sub(v4_sub(v4_mul(t, w), v), v4_cross(u, t));
}

/* B placed in A's frame straight from the quaternions, for the paths that
 * need no pair set-up: the rows of B's rotation into A's frame (conj(qa) qb
 * scaled by rows_scale = 2 / (|qa|^2 |qb|^2)), and B's origin there (the
 * offset rotated by qa's inverse, a_scale = 2 / |qa|^2 in every lane).
 * Returns B's origin; *d the offset in world (pad 0). */
MINK_ALWAYS_INLINE v4 place_b(const mink_pose *pa, const mink_pose *pb, float rows_scale, v4 a_scale, v4 row[3],
                              v4 *d)
{
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    v4_quat_rows(v4_quat_conj_mul(qa, qb), rows_scale, row);
    /* the poses' 4th lanes read q.x: zeroed */
    *d = v4_xyz(v4_sub(v4_load(&pb->p.x), v4_load(&pa->p.x)));
    return v4_neg(quat_rotate_inverse_neg(v4_xyz(qa), v4_shuffle(qa, qa, 3, 3, 3, 3), a_scale, *d));
}

/* Frame coherence: whether last query's axis (A frame) still separates the
 * rounded shapes at the new poses, from one support evaluation per shape,
 * straight from the quaternions (no pair set-up). The gap along the axis is
 * n.(pb - pa) + min over B - max over A, n = R_a axis. norm2: |q|^2 of the
 * poses, lanes (a, a, b, b); both scales from one division. */
MINK_ALWAYS_INLINE int cached_axis_separates(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                             const mink_pose *pb, v4 norm2, v4 axis, v4 *world_axis, int climb)
{
    const v4 scale = v4_div(v4_splat(2.0f), norm2);
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    const v4 n = quat_rotate(v4_xyz(qa), v4_shuffle(qa, qa, 3, 3, 3, 3), v4_splat_x(scale), axis);
    /* -n in B's frame, B's support direction */
    const v4 nb_neg = quat_rotate_inverse_neg(v4_xyz(qb), v4_shuffle(qb, qb, 3, 3, 3, 3), v4_splat_z(scale), n);
    /* the poses' 4th lanes read q.x: zeroed */
    const v4 d = v4_xyz(v4_sub(v4_load(&pb->p.x), v4_load(&pa->p.x)));
    const float gain = v4_dot(n, d) - support_dot_sized(b, nb_neg, climb) - support_dot_sized(a, axis, climb);
    const float margin = a->radius + b->radius;
    *world_axis = n;
    return gain > 0.0f && gain * gain > margin * margin * v4_len2(axis);
}

/* How far below a core's support a climb may end (hull.h): 0 for a scan. */
MINK_ALWAYS_INLINE float climb_shortfall(const mink_shape *s)
{
    return s->type == MINK_SHAPE_HULL && hull_climbs(s) ? s->topology->merge_tol : 0.0f;
}

/* A cold query's first test, before the pair set-up (MPR's first step):
 * whether the line between the shapes' origins separates the rounded
 * shapes, as cached_axis_separates tests a cached axis, with d = pb - pa
 * itself as the axis in world (one rotation less), and as a proof: |d|
 * times the gap past the radii by more than its rounding, 64 eps S |d| (S
 * from the extents, as the box test's line), and a climb's shortfall.
 * *axis: d in A's frame (the cache's), *world_axis: d. */
MINK_ALWAYS_INLINE int origin_line_separates(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                             const mink_pose *pb, v4 norm2, v4 *axis, v4 *world_axis)
{
    const v4 scale = v4_div(v4_splat(2.0f), norm2);
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    /* the poses' 4th lanes read q.x: zeroed */
    const v4 d = v4_xyz(v4_sub(v4_load(&pb->p.x), v4_load(&pa->p.x)));
    const v4 na = v4_neg(quat_rotate_inverse_neg(v4_xyz(qa), v4_shuffle(qa, qa, 3, 3, 3, 3), v4_splat_x(scale), d));
    /* -d in B's frame, B's support direction */
    const v4 nb_neg = quat_rotate_inverse_neg(v4_xyz(qb), v4_shuffle(qb, qb, 3, 3, 3, 3), v4_splat_z(scale), d);
    const float dd = v4_len2(d), d_len = sqrtf(dd);
    *axis = na;
    *world_axis = d;
    const float gain = dd - support_dot_sized(b, nb_neg, 1) - support_dot_sized(a, na, 1);
    if (!(gain > 0.0f)) return 0; /* most overlapping pairs: no bound to work out */
    const float s = a->extent + b->extent + d_len;
    const float bound = a->radius + b->radius + 64.0f * FLT_EPSILON * s + climb_shortfall(a) + climb_shortfall(b);
    return gain > d_len * bound; /* not squared: no underflow at tiny scales */
}

/* |p|^2 of the point of segment ab nearest the origin. */
static float segment_nearest2(v4 a, v4 b)
{
    const v4 e = v4_sub(b, a);
    const float ee = v4_dot(e, e), t = ee > 0.0f ? -v4_dot(a, e) / ee : 0.0f;
    return v4_len2(v4_madd(v4_splat(t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t), e, a));
}

/* |p|^2 of a point of the simplex w[0..count-1] (1-3 points) nearest the
 * origin: inside a triangle, its weights from the signed areas the origin
 * makes with each edge (Johnson's, for the triangle alone), else its
 * nearest edge. A convex combination of the points either way, as GJK's
 * v is, and as trusted. */
static float nearest_within(const v4 w[4], uint32_t count)
{
    if (count == 1) return v4_len2(w[0]);
    if (count == 2) return segment_nearest2(w[0], w[1]);
    const v4 n = v4_cross(v4_sub(w[1], w[0]), v4_sub(w[2], w[0]));
    const float l0 = v4_dot(n, v4_cross(w[1], w[2])), l1 = v4_dot(n, v4_cross(w[2], w[0]));
    const float l2 = v4_dot(n, v4_cross(w[0], w[1])), sum = l0 + l1 + l2;
    if (l0 >= 0.0f && l1 >= 0.0f && l2 >= 0.0f && sum > 0.0f) {
        const v4 p = v4_madd(v4_splat(l2), w[2], v4_madd(v4_splat(l1), w[1], v4_mul(v4_splat(l0), w[0])));
        return v4_len2(p) / (sum * sum);
    }
    const float e01 = segment_nearest2(w[0], w[1]), e12 = segment_nearest2(w[1], w[2]);
    const float e20 = segment_nearest2(w[2], w[0]);
    return fminf(e01, fminf(e12, e20));
}

/* A point of a core (its local frame, pad 0): a box's, capsule's or
 * sphere's origin, a hull's points' mean; 0 for a hull without topology. */
MINK_ALWAYS_INLINE int core_centre(const mink_shape *s, v4 *c)
{
    if (s->type != MINK_SHAPE_HULL) {
        *c = v4_zero();
        return 1;
    }
    if (!s->topology) return 0;
    *c = v4_load3(s->topology->centre);
    return 1;
}

/* Frame coherence for overlapping pairs: whether the cached simplex
 * (mink_cache_may_overlap), its pairs of core features re-evaluated at
 * the new poses, still proves the overlap: four points around the origin
 * by GJK's containment test, or the simplex's closest point within the
 * radii by more than the touching band (where the cold query would stop
 * and be sure). Straight from the quaternions (no pair set-up), and the
 * cache left as it is: the same simplex serves the next frame. Out of
 * line: only pairs that overlapped last frame pay for it. */
static __attribute__((noinline)) int cached_simplex_holds(const mink_shape *a, const mink_pose *pa,
                                                          const mink_shape *b, const mink_pose *pb,
                                                          const mink_cache *cache)
{
    v4 norm2;
    if (mink_check_inputs_v(a, pa, b, pb, &norm2) != 0) return 0;
    const uint32_t count = cache->opaque[CACHE_W_META] & 7u; /* 1-4: mink_cache_may_overlap */
    const uint32_t na = mink_cache_feature_count(a), nb = mink_cache_feature_count(b);
    const v4 scale = v4_div(v4_splat(2.0f), norm2); /* 2 / |q|^2, lanes (a, a, b, b) */
    v4 row[3], d;
    const v4 pos_b = place_b(pa, pb, 0.5f * v4_x(scale) * v4_z(scale), v4_splat_x(scale), row, &d);
    v4 w[4] = {v4_zero(), v4_zero(), v4_zero(), v4_zero()};
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t ia = cache->opaque[CACHE_W_IA + i], ib = cache->opaque[CACHE_W_IB + i];
        v4 pa_core, pb_core;
        if (ia < na && ib < nb) {
            pa_core = mink_simd_core_point(a, ia), pb_core = mink_simd_core_point(b, ib);
        } else if ((ia & ib) != CACHE_INNER_ID || !core_centre(a, &pa_core) || !core_centre(b, &pb_core)) {
            return 0;
        }
        w[i] = v4_sub(v4_add(rot_apply(row, pb_core), pos_b), pa_core);
    }
    const float pair_scale = mink_simd_pair_scale(a, b, d);
    if (count == 4 && mink_simd_tetra_holds_origin(w, pair_scale)) return 1;
    const float margin = a->radius + b->radius, near = MINK_TOUCH_REL * pair_scale;
    if (!(margin > near) || count == 4) return 0; /* sharp cores: only the containment test proves */
    const float limit = margin - near;
    return nearest_within(w, count) < limit * limit;
}

/* The answer of a cached simplex that still proves the overlap. */
static int held_overlap_answer(mink_result *info)
{
    if (info) mink_result_error(info, MINK_OK); /* distance 0, no normal, no support */
    return 1;
}

/* The largest of lanes 0-2 (the pad lane is no axis), and which lane. */
static float top3(v4 v)
{
    return v4_x(v4_max(v4_max(v, v4_splat_y(v)), v4_splat_z(v)));
}
static uint32_t lane_of(v4 v, float value)
{
    _Alignas(16) float t[4];
    v4_store(t, v);
    return t[0] == value ? 0u : t[1] == value ? 1u : 2u;
}

/* The line between the shapes' origins, numbered after the box test's 15
 * axes (intersect_cold_primitives tests it first). */
#define PRIMITIVE_LINE 15u

/* The separating axis `which` of the box test (A frame), turned
 * towards B: A's axis k, B's axis k (column k of the rotation), the
 * cross product of A's axis i and B's axis j, or the line to B's origin. */
static v4 separating_axis(const v4 row[3], v4 pos_b, uint32_t which)
{
    if (which == PRIMITIVE_LINE) return pos_b;
    _Alignas(16) float r[3][4];
    for (int i = 0; i < 3; ++i) v4_store(r[i], row[i]);
    const uint32_t k = which < 6 ? which % 3 : (which - 6) % 3;
    const v4 bk = v4_set(r[0][k], r[1][k], r[2][k], 0.0f);
    const uint32_t i = (which - 6) / 3;
    const v4 u = which < 3 ? v4_set(k == 0, k == 1, k == 2, 0.0f)
                 : which < 6 ? bk
                             : v4_cross(v4_set(i == 0, i == 1, i == 2, 0.0f), bk);
    return v4_dot(u, pos_b) < 0.0f ? v4_neg(u) : u;
}

/* Boxes, capsules and spheres: their cores are boxes (a capsule's is
 * (0, h, 0), a sphere's a point), so the 15 axes of the box test (those of
 * every face of the cores' Minkowski difference) decide an intersect
 * outside their rounding: an axis that separates the cores by more than
 * the radii, or the cores overlapping along every axis with no
 * near-parallel edge pair left out. The axes are numbered 0-2 for A's
 * faces, 3-5 for B's and 6 + 3 i + j for the edges a_i x b_j. The rounding
 * bound: 32 eps S on a face axis, 1 / SAT_NEAR_PARALLEL_SIN times that on
 * an edge axis (its value is divided by the cross product's length); it
 * is above GJK's touching band, so the two never disagree outside it.
 *
 * The six face axes come first, in one test (most separated pairs stop
 * there): the largest separation of the faces. */
MINK_INLINE float primitive_faces(const box_axes *x, v4 pos_a, v4 *fa, v4 *fb)
{
    *fa = box_sat_faces_a(x);
    *fb = box_sat_faces_b_at(x, pos_a); /* A's origin in B's frame: -d there */
    return top3(v4_max(*fa, *fb));
}

/* The face axis with separation `high`. */
static uint32_t primitive_face(v4 fa, v4 fb, float high)
{
    return top3(fa) == high ? lane_of(fa, high) : 3u + lane_of(fb, high);
}

/* Past the faces (none separates: high, the largest, is within
 * face_err of the margin or below): the edge pairs. 1 overlap, 0 apart
 * (*which: the separating edge axis), -1 for GJK. */
static __attribute__((noinline)) int primitive_edges(const v4 row[3], v4 pos_b, v4 ha, v4 hb, float margin, float high,
                                                     float face_err, uint32_t *which)
{
    box_axes axes;
    box_axes_init(&axes, ha, hb, row, pos_b);
    const box_axes *x = &axes;
    const float edge_err = face_err / SAT_NEAR_PARALLEL_SIN;
    float edges_high = -INFINITY;
    int skipped = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        const v4 e = box_sat_edges(x, (int)i);
        const float te = top3(e);
        if (te - edge_err > margin) {
            *which = 6u + 3u * i + lane_of(e, te);
            return 0;
        }
        skipped |= top3(v4_neg(e)) == INFINITY; /* a lane at -inf: near-parallel edges */
        edges_high = te > edges_high ? te : edges_high;
    }
    /* every axis within its bound of overlapping, none left out */
    return !skipped && high + face_err < 0.0f && edges_high + edge_err < 0.0f ? 1 : -1;
}

/* The answer of a cached axis that still separates (n: the axis, world). */
MINK_ALWAYS_INLINE int held_answer(mink_result *info, v4 n)
{
    if (info) {
        mink_result_error(info, MINK_OK);
        info->distance = 1.0f;
        length_and_unit(n, &n);
        info->normal = v4_to_vec3(n);
        info->support_calls = 1;
    }
    return 0;
}

/* A box with a box, capsule or sphere (rounded cores of two spheres or
 * capsules never overlap in volume: the box test could only say "apart").
 * The test vouches for both kinds: sphere, capsule and box are numbered in
 * a row, and a bad kind wraps high (unsigned). */
static int primitive_pair(const mink_shape *a, const mink_shape *b)
{
    _Static_assert(MINK_SHAPE_CAPSULE == MINK_SHAPE_SPHERE + 1 && MINK_SHAPE_BOX == MINK_SHAPE_SPHERE + 2,
                   "sphere, capsule, box in a row");
    const unsigned last = MINK_SHAPE_BOX - MINK_SHAPE_SPHERE;
    return (a->type == MINK_SHAPE_BOX || b->type == MINK_SHAPE_BOX) && (unsigned)a->type - MINK_SHAPE_SPHERE <= last &&
           (unsigned)b->type - MINK_SHAPE_SPHERE <= last;
}

/* A point of D = B - A (A frame): the cores' centres' difference. */
MINK_ALWAYS_INLINE int pair_inner_point(const simd_pair *pair, v4 *inner)
{
    v4 ca, cb;
    if (!core_centre(pair->a, &ca) || !core_centre(pair->b, &cb)) return 0;
    *inner = v4_sub(v4_add(rot_apply(pair->row, cb), pair->pos_b), ca);
    return 1;
}

/* The intersect query past the inline held test: the inputs, the held test
 * of long scans, the cache checked in full; with nothing cached, the line
 * between the origins (the box test's own for its pairs); then
 * GJK (the boolean search first for sharp cores). Out of line: its frame
 * (the pair, the simplex) is large, and the held path should not pay to
 * set it up. */
static __attribute__((noinline)) int intersect_cold_gjk(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                                        const mink_pose *pb, mink_cache *cache, mink_result *info)
{
    v4 norm2;
    if (info) mink_result_error(info, MINK_OK);
    if (mink_check_inputs_v(a, pa, b, pb, &norm2) != 0) {
        if (info) info->status = MINK_ERR_INVALID;
        return MINK_ERR_INVALID;
    }
    v4 held;
    if (mink_cache_may_separate(cache) && (support_scan_long(a) || support_scan_long(b)) &&
        cached_axis_separates(a, pa, b, pb, norm2, mink_cache_axis(cache), &held, 1))
        return held_answer(info, held);
    simd_query q;
    q.have_cache = mink_cache_axis_state(cache, mink_cache_outcome(cache, a, b), &q.cached);
    if (q.have_cache) q.have_cache = mink_cache_load_simplex(cache, a, b, &q.cached);
    /* no simplex or axis to start from: the line between the origins
     * first (it ends most separated pairs), then the pair set-up */
    v4 line_axis;
    if (!q.have_cache && !primitive_pair(a, b) && origin_line_separates(a, pa, b, pb, norm2, &line_axis, &held)) {
        remember_state(cache, a, b, &q.cached, CACHE_SEPARATED, line_axis, NULL);
        return held_answer(info, held);
    }
    query_begin(&q, a, pa, v4_x(norm2), b, pb, v4_z(norm2));
    simd_gjk_result g;
    /* sharp cores, cold: the boolean search, GJK if it cannot tell */
    v4 inner;
    const int searched = !q.nseed && q.ra + q.rb == 0.0f &&
                         (pair_inner_point(&q.pair, &inner) ? mink_simd_gjk_boolean_inner(&q.pair, inner, &g)
                                                            : mink_simd_gjk_boolean(&q.pair, v4_xyz(start_axis(&q)), &g));
    if (!searched) run_gjk(&q, SIMD_GJK_INTERSECT, &g);
    /* (the search's answers are proofs: four points or a support plane) */
    if (g.overlap ? g.simplex.bits != 15u && intersect_in_doubt(&q, g.v) : !g.apart_proven) {
        /* within rounding of the margin, or "apart" from a stalled GJK
         * with no separating plane (a sliver of a simplex whose float
         * closest point is far off): decided in double */
        mink_double_closest d;
        double_closest(&q, &g.simplex, &d);
        g.overlap = !(d.distance > (double)q.ra + q.rb);
        /* apart in double: its normal is the axis (float's v may be 0) */
        if (!g.overlap) g.v = rot_apply_t(q.rot_a, v4_set((float)d.normal[0], (float)d.normal[1], (float)d.normal[2], 0.0f));
    }
    remember(&q, cache, g.overlap ? CACHE_OVERLAP : CACHE_SEPARATED, g.v, &g.simplex);
    if (info) {
        info->iterations = info->gjk_iterations = g.iterations;
        info->support_calls = q.pair.support_calls;
        info->status = g.status;
        info->distance = g.overlap ? 0.0f : 1.0f;
        v4 n; /* scaled first: |v|^2 of a tiny v underflows */
        if (!g.overlap && length_and_unit(g.v, &n) > 0.0f) info->normal = v4_to_vec3(rot_apply(q.rot_a, n));
    }
    return g.overlap;
}

/* The answer of the box test to the cache and info: the separating axis
 * (or, for an overlap, the line to B: the next query's start). */
static void primitive_answer(const mink_shape *a, const mink_pose *pa, float qa_norm2, const mink_shape *b,
                             const v4 row[3], v4 pos_b, int hit, uint32_t which, mink_cache *cache, mink_result *info)
{
    const v4 axis = !hit ? separating_axis(row, pos_b, which) : v4_len2(pos_b) > 0.0f ? pos_b : v4_set(1, 0, 0, 0);
    if (cache) {
        cache_state prev;
        mink_cache_axis_state(cache, mink_cache_outcome(cache, a, b), &prev);
        remember_state(cache, a, b, &prev, hit ? CACHE_OVERLAP : CACHE_SEPARATED, axis, NULL);
    }
    if (info) {
        mink_result_error(info, MINK_OK);
        info->distance = hit ? 0.0f : 1.0f;
        v4 n;
        if (!hit && length_and_unit(axis, &n) > 0.0f) {
            v4 rot_a[3];
            v4_quat_rows(v4_load(&pa->q.x), 2.0f / qa_norm2, rot_a);
            info->normal = v4_to_vec3(rot_apply(rot_a, n));
        }
    }
}

/* The intersect of a primitive pair (primitive_pair) by the box test
 * alone, in a frame of its own: B's rotation and origin in registers, no
 * pair set-up, no query state; the edge pairs out of line, so that the
 * faces' values need no saving across the call. GJK (intersect_cold_gjk)
 * when the test cannot tell or the inputs are bad (it reports them). */
static __attribute__((noinline)) int intersect_cold_primitives(const mink_shape *a, const mink_pose *pa,
                                                               const mink_shape *b, const mink_pose *pb,
                                                               mink_cache *cache, mink_result *info)
{
    v4 norm2; /* the shapes' pointers and kinds checked by the caller (primitive_pair) */
    if (!pa || !pb || mink_check_values_v(a, pa, b, pb, &norm2) != 0) return intersect_cold_gjk(a, pa, b, pb, cache, info);
    const float na2 = v4_x(norm2), nb2 = v4_z(norm2);
    const v4 scale = v4_div(v4_splat(2.0f), norm2); /* 2 / |q|^2, lanes (a, a, b, b) */
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    /* the poses' 4th lanes read q.x: zeroed */
    const v4 d = v4_xyz(v4_sub(v4_load(&pb->p.x), v4_load(&pa->p.x)));
    const float d_len = sqrtf(v4_len2(d));
    const v4 ha = mink_simd_core_half(a), hb = mink_simd_core_half(b);
    /* (S of tolerance.h from the offset in world: off the dependency chains) */
    const float s = a->extent + b->extent + d_len, face_err = 32.0f * FLT_EPSILON * (s > 1e-30f ? s : 1e-30f);
    const float margin = a->radius + b->radius;
    /* the line between the origins first, before B's rotation (it ends two
     * thirds of the separated box pairs): B's origin in A's frame (negated:
     * only the sizes count here) and A's origin in B's, and |d| times the
     * gap along d, sum_i |p_i| (|p_i| - ha_i) - hb_i |q_i|, rounded within
     * 64 eps S |d| */
    const v4 neg_pos_b = quat_rotate_inverse_neg(v4_xyz(qa), v4_shuffle(qa, qa, 3, 3, 3, 3), v4_splat_x(scale), d);
    const v4 pos_a = quat_rotate_inverse_neg(v4_xyz(qb), v4_shuffle(qb, qb, 3, 3, 3, 3), v4_splat_z(scale), d);
    const v4 ap = v4_abs(neg_pos_b);
    const float line_gap = v4_x(v4_hsum_splat(v4_sub(v4_mul(ap, v4_sub(ap, ha)), v4_mul(hb, v4_abs(pos_a)))));
    const v4 pos_b = v4_neg(neg_pos_b);
    if (line_gap > d_len * (margin + 2.0f * face_err)) {
        if (cache || info) primitive_answer(a, pa, na2, b, NULL, pos_b, 0, PRIMITIVE_LINE, cache, info);
        return 0;
    }
    v4 row[3];
    v4_quat_rows(v4_quat_conj_mul(qa, qb), 2.0f / (na2 * nb2), row);
    box_axes x;
    box_axes_init(&x, ha, hb, row, pos_b);
    v4 fa, fb;
    const float high = primitive_faces(&x, pos_a, &fa, &fb);
    if (high - face_err > margin) {
        if (cache || info) primitive_answer(a, pa, na2, b, row, pos_b, 0, primitive_face(fa, fb, high), cache, info);
        return 0;
    }
    uint32_t which = 0;
    const int hit = primitive_edges(row, pos_b, x.ha, x.hb, margin, high, face_err, &which);
    if (hit < 0) return intersect_cold_gjk(a, pa, b, pb, cache, info);
    if (cache || info) primitive_answer(a, pa, na2, b, row, pos_b, hit, which, cache, info);
    return hit;
}

/* The intersect query: with a cache that holds a separating axis, the
 * inputs and whether the axis still separates, which then answers alone
 * (the pair's next frames mostly), inline for cores of short scans (no
 * call: no registers saved); anything else in intersect_cold, which checks
 * the inputs itself (again on the 5 % of frames whose axis failed; the
 * cold query pays nothing for the held test). */
MINK_ALWAYS_INLINE int intersect(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                 const mink_pose *pb, mink_cache *cache, mink_result *info, int primitives)
{
    /* any axis: the test trusts nothing it reads (a non-finite axis never
     * passes, |axis|^2 being inf or NaN) */
    v4 norm2, n;
    if (mink_cache_may_separate(cache) && mink_check_inputs_v(a, pa, b, pb, &norm2) == 0 &&
        !support_scan_long(a) && !support_scan_long(b) &&
        cached_axis_separates(a, pa, b, pb, norm2, mink_cache_axis(cache), &n, 0))
        return held_answer(info, n);
    if (mink_cache_may_overlap(cache) && cached_simplex_holds(a, pa, b, pb, cache)) return held_overlap_answer(info);
    return primitives && a && b && primitive_pair(a, b) ? intersect_cold_primitives(a, pa, b, pb, cache, info)
                                                         : intersect_cold_gjk(a, pa, b, pb, cache, info);
}

int mink_intersect_ex(const mink_shape *a, const mink_pose *pa,
                      const mink_shape *b, const mink_pose *pb, mink_cache *cache, mink_result *info)
{
    return intersect(a, pa, b, pb, cache, info, 1);
}

int mink_intersect_gjk_ex(const mink_shape *a, const mink_pose *pa,
                          const mink_shape *b, const mink_pose *pb, mink_cache *cache, mink_result *info)
{
    return intersect(a, pa, b, pb, cache, info, 0);
}

int mink_intersect(const mink_shape *a, const mink_pose *pa,
                   const mink_shape *b, const mink_pose *pb, mink_cache *cache)
{
    return intersect(a, pa, b, pb, cache, NULL, 1);
}

/* The distance answer from the double check (out of line: rare). */
static __attribute__((noinline)) void distance_in_double(const simd_query *q, const simd_simplex *s, mink_result *out)
{
    mink_double_closest d;
    double_closest(q, s, &d);
    if (d.overlap) {
        out->distance = 0.0f;
        out->normal = v4_to_vec3(rot_apply(q->rot_a, fallback_normal(q)));
        out->point_a = out->point_b = vec3_of_double(d.pa);
    } else {
        mink_double_answer(&d, q->ra, q->rb, 1, out);
    }
}

/* Two boxes that no face axis separates (box_face_separation): a corner of
 * either inside the other, a point of both cores (A frame), found without
 * GJK (boxes crossing edge over edge have none, and run GJK). */
static int box_common_corner(const simd_pair *pair, v4 *point)
{
    const v4 ha = v4_xyz(v4_load(pair->a->half)), hb = v4_xyz(v4_load(pair->b->half)); /* 4th: extent */
    /* B in A's frame; A in B's: R^T's rows are R's columns, A's origin at -R^T pos_b */
    const box_seen b_in_a = box_seen_from(pair->row, hb, pair->pos_b);
    const box_seen a_in_b = box_seen_from(pair->col, ha, v4_neg(rot_apply(pair->col, pair->pos_b)));
    int k = box_corner_in(ha, &b_in_a);
    if (k >= 0) {
        *point = mink_simd_b_point(pair, (uint32_t)k);
        return 1;
    }
    k = box_corner_in(hb, &a_in_b);
    if (k >= 0) {
        *point = mink_simd_core_point(pair->a, (uint32_t)k);
        return 1;
    }
    return 0;
}

/* The distance answer of cores that overlap: 0, a point of both, the
 * normal towards B. */
static void overlap_answer(const simd_query *q, v4 common, mink_result *out)
{
    out->distance = 0.0f;
    out->normal = v4_to_vec3(rot_apply(q->rot_a, fallback_normal(q)));
    out->point_a = out->point_b = world_point(q, common);
}

/* A box with a box, capsule or sphere whose cores are apart along a face
 * axis (fa, fb, face: box_face_separation's) by at least the near-contact
 * band, the other core over that face: the box test's answer
 * (box_face_distance), no GJK. Rounded shapes touching within rounding
 * are left to GJK and its double check. common_point: the distance query
 * (rounded shapes overlapping with cores apart: distance 0 and a point of
 * both). 0 leaves the pair to GJK. */
static __attribute__((noinline)) int box_apart_answer(const simd_query *q, v4 fa, v4 fb, float face, mink_cache *cache,
                                                      mink_result *out, int common_point)
{
    const float margin = q->ra + q->rb;
    box_depth bd;
    if (mink_double_doubt(face, margin, q->pair.scale) || !box_face_distance(&q->pair, fa, fb, face, &bd)) return 0;
    if (common_point && face <= margin) {
        const v4 p = v4_add(bd.pa, v4_scale(bd.n, mink_overlap_middle(q->ra, q->rb, face)));
        finish(q, p, p, bd.n, 0.0f, out);
        out->point_a = out->point_b = world_point(q, p);
    } else {
        finish(q, bd.pa, bd.pb, bd.n, -bd.depth - margin, out);
    }
    out->iterations = out->gjk_iterations = 0;
    out->support_calls = 0;
    out->status = MINK_OK;
    remember(q, cache, face > margin ? CACHE_SEPARATED : CACHE_OVERLAP, v4_scale(bd.n, face), NULL);
    return 1;
}

mink_status mink_distance(const mink_shape *a, const mink_pose *pa,
                          const mink_shape *b, const mink_pose *pb,
                          mink_cache *cache, mink_result *out)
{
    simd_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_open(&q, a, pa, b, pb, cache)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    float face = INFINITY; /* the box test's face axes' separation (primitive pairs) */
    if (primitive_pair(a, b)) {
        v4 fa, fb;
        face = box_face_separation(&q.pair, &fa, &fb);
        if (face >= MINK_DOUBLE_NEAR_REL * q.pair.scale && box_apart_answer(&q, fa, fb, face, cache, out, 1))
            return MINK_OK;
    }
    v4 common;
    if (a->type == MINK_SHAPE_BOX && b->type == MINK_SHAPE_BOX && face <= 0.0f && box_common_corner(&q.pair, &common)) {
        overlap_answer(&q, common, out);
        out->iterations = out->gjk_iterations = 0;
        out->status = MINK_OK;
        out->support_calls = 0;
        remember(&q, cache, CACHE_OVERLAP, q.pair.pos_b, NULL);
        return MINK_OK;
    }
    simd_gjk_result g;
    run_gjk(&q, SIMD_GJK_DISTANCE, &g);
    v4 pa_core, pb_core;
    mink_simd_simplex_points(&g.simplex, &pa_core, &pb_core);
    out->iterations = out->gjk_iterations = g.iterations;
    out->status = g.status;
    /* |v| and its direction only for cores apart (not asked of an overlap) */
    v4 n = v4_zero();
    const float dc = g.overlap ? 0.0f : length_and_unit(g.v, &n);
    const float margin = q.ra + q.rb;
    if (in_doubt(&q, &g, dc)) {
        distance_in_double(&q, &g.simplex, out);
    } else if (dc > margin) {
        finish(&q, pa_core, pb_core, n, dc - margin, out);
    } else if (dc > 0.0f) {
        /* shallow overlap: a common point, mid-overlap along the core axis */
        const v4 p = v4_add(pa_core, v4_scale(n, mink_overlap_middle(q.ra, q.rb, dc)));
        finish(&q, p, p, n, 0.0f, out);
        out->point_a = out->point_b = world_point(&q, p);
    } else if (mink_sizes_apart(a, b)) {
        /* the larger shape's points' spread times the weights' rounding
         * can exceed the smaller's local tolerance (the point 3.2e-6 off a
         * 3.3 m segment through a 5 cm hull, tolerance 2.9e-6): in double */
        distance_in_double(&q, &g.simplex, out);
    } else {
        /* the cores overlap: GJK's weights give a point of both cores, the
         * smaller shape's weighted points (in float the weights are off by
         * a rounding, and so is the sum by that times the points' spread) */
        overlap_answer(&q, q.pair.b->extent < q.pair.a->extent ? pb_core : pa_core, out);
    }
    out->support_calls = q.pair.support_calls;
    remember(&q, cache, out->distance > 0.0f ? CACHE_SEPARATED : CACHE_OVERLAP, g.v, &g.simplex);
    return out->status;
}

/* Separated cores, or a shallow contact of rounded shapes: GJK's closest
 * points give the answer, no EPA. */
MINK_ALWAYS_INLINE mink_status core_gap_answer(const simd_query *q, const simd_gjk_result *g, mink_cache *cache, mink_result *out)
{
    v4 pa_core, pb_core;
    mink_simd_simplex_points(&g->simplex, &pa_core, &pb_core);
    v4 n;
    const float dc = length_and_unit(g->v, &n);
    const float margin = q->ra + q->rb;
    finish(q, pa_core, pb_core, n, dc - margin, out);
    out->support_calls = q->pair.support_calls;
    remember(q, cache, dc > margin ? CACHE_SEPARATED : CACHE_OVERLAP, g->v, &g->simplex);
    return out->status;
}

/* Cores apart by the double check: its answer. */
static mink_status double_gap_answer(const simd_query *q, const mink_double_closest *d, const simd_gjk_result *g,
                                     mink_cache *cache, mink_result *out)
{
    mink_double_answer(d, q->ra, q->rb, 0, out);
    out->status = g->status;
    out->support_calls = q->pair.support_calls;
    remember(q, cache, d->distance > (double)q->ra + q->rb ? CACHE_SEPARATED : CACHE_OVERLAP, g->v, &g->simplex);
    return out->status;
}

/* A box with a box, capsule or sphere whose cores overlap clearly: the
 * box test's answer (box_depth.h; fa, fb, face: its face axes), no GJK, no
 * EPA. 0 leaves the pair to them. */
static __attribute__((noinline)) int penetration_of_boxes(const simd_query *q, v4 fa, v4 fb, float face,
                                                          mink_cache *cache, mink_result *out)
{
    box_depth bd;
    if (!box_overlap_depth(&q->pair, fa, fb, face, &bd)) return 0;
    finish(q, bd.pa, bd.pb, bd.n, -(bd.depth + q->ra + q->rb), out);
    out->iterations = out->gjk_iterations = 0;
    out->support_calls = 0;
    out->status = MINK_OK;
    remember(q, cache, CACHE_OVERLAP, bd.n, NULL);
    return 1;
}

/* The penetration query, inline in the public entries (its frame, the
 * pair, is large) and in the plain one below, which the check's retry
 * calls; primitives: boxes against boxes, capsules and spheres by the box
 * test where it answers (mink_penetration_gjk: GJK and EPA alone). */
MINK_ALWAYS_INLINE mink_status penetration(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                           const mink_pose *pb, mink_cache *cache, mink_result *out, int primitives)
{
    simd_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_open(&q, a, pa, b, pb, cache)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    /* a pair the cache last saw apart (a cast's steps) goes to GJK, as do
     * shallow and separated ones, by the face axes (inline: no call) */
    if (primitives && primitive_pair(a, b) && !(q.have_cache && q.cached.outcome == CACHE_SEPARATED)) {
        v4 fa, fb;
        const float face = box_face_separation(&q.pair, &fa, &fb);
        if (face <= -MINK_DOUBLE_NEAR_REL * q.pair.scale && penetration_of_boxes(&q, fa, fb, face, cache, out))
            return MINK_OK;
        if (face >= MINK_DOUBLE_NEAR_REL * q.pair.scale && box_apart_answer(&q, fa, fb, face, cache, out, 0))
            return MINK_OK;
    }
    simd_gjk_result g;
    simd_epa_result e;
    mink_double_closest d;
    unsigned start_bits = 0;
    uint32_t start_ids[2][4];
    for (;;) {
        run_gjk(&q, SIMD_GJK_DISTANCE, &g);
        out->iterations = out->gjk_iterations = g.iterations;
        out->status = g.status;
        const simd_simplex *start = &g.simplex;
        simd_simplex from_double;
        const int checked = in_doubt(&q, &g, g.overlap ? 0.0f : sqrtf(v4_len2(g.v)));
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
        mink_simd_epa(&q.pair, start, &e);
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

/* The query without the check (the check's retry of the pair swapped). */
static __attribute__((noinline)) mink_status penetration_plain(const mink_shape *a, const mink_pose *pa,
                                                               const mink_shape *b, const mink_pose *pb,
                                                               mink_cache *cache, mink_result *out)
{
    return penetration(a, pa, b, pb, cache, out, 1);
}

/* An answer st of solver, checked when the sizes are far apart. */
MINK_ALWAYS_INLINE mink_status checked(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                       const mink_pose *pb, mink_status st, mink_penetration_fn solver,
                                       mink_result *out)
{
    return out && mink_penetration_needs_check(a, b, st, out)
               ? mink_penetration_checked(a, pa, b, pb, st, solver, hull_support, out)
               : st;
}

mink_status mink_penetration(const mink_shape *a, const mink_pose *pa,
                             const mink_shape *b, const mink_pose *pb,
                             mink_cache *cache, mink_result *out)
{
    return checked(a, pa, b, pb, penetration(a, pa, b, pb, cache, out, 1), penetration_plain, out);
}

/* GJK and EPA alone: kept measurable (the benchmark's simd-gjk). */
static __attribute__((noinline)) mink_status penetration_gjk_plain(const mink_shape *a, const mink_pose *pa,
                                                                   const mink_shape *b, const mink_pose *pb,
                                                                   mink_cache *cache, mink_result *out)
{
    return penetration(a, pa, b, pb, cache, out, 0);
}

mink_status mink_penetration_gjk(const mink_shape *a, const mink_pose *pa,
                                 const mink_shape *b, const mink_pose *pb,
                                 mink_cache *cache, mink_result *out)
{
    return checked(a, pa, b, pb, penetration_gjk_plain(a, pa, b, pb, cache, out), penetration_gjk_plain, out);
}
