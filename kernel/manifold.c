/* Contact manifolds, the stage both kernels share.
 *
 * Box and small hull pairs: the separating-axis test on the cores over the
 * faces of A, the faces of B and the edge pairs that form a face of the
 * Minkowski difference (arcs that cross on the Gauss map); a face wins
 * over an edge pair within a small tolerance. The deciding face is the
 * reference face; the incident face is the other shape's face most
 * against it among those at its support point; the incident face clipped
 * against the reference face's side planes gives the points. An edge pair
 * gives one point. Separated cores: the axis's separation is the distance
 * only when the support point lies over the reference face (or the edges'
 * closest points inside both edges); otherwise GJK's normal decides.
 *
 * Spheres and capsules with each other: the cores' closest points in
 * closed form (two points where capsules lie side by side).
 *
 * Other pairs (a sphere or capsule with a box or hull, large hulls): GJK/EPA's
 * normal, then the faces around each shape's support point along it; a
 * face that carries the contact is the reference face, else one point
 * from GJK/EPA.
 *
 * The cache keeps the deciding feature with its separation, the best
 * separation of any other feature and the relative pose. Next query: if
 * the feature separates by more than the margin, no contacts (one axis
 * test); if no other feature can have overtaken it since (every
 * separation moves at most as fast as the shapes' points: a bound from the
 * change of pose), the manifold is rebuilt from it. */
#include "manifold.h"
#include "cache.h"
#include "clip.h"
#include "double_pair.h"
#include "shape.h"
#include "tolerance.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Float rounding of separations computed in A's frame: about this many eps
 * of the scale S (tolerance.h). */
#define ROUNDING_EPS (8.0f * FLT_EPSILON)
/* cos MINK_MANIFOLD_SURE_TILT */
#define SURE_COS (1.0f - 0.5f * MINK_MANIFOLD_SURE_TILT * MINK_MANIFOLD_SURE_TILT)

/* max and min without libm's calls and NaN rules (the values are finite) */
static inline float maxf(float a, float b) { return a > b ? a : b; }
static inline float minf(float a, float b) { return a < b ? a : b; }

typedef struct mctx {
    const manifold_kernel *k;
    const mink_shape *a, *b;
    mink_pose pa, pb;   /* unit quaternions                          */
    const mink_pose *pa_in, *pb_in; /* as given                      */
    core_view va, vb;
    m33 rot_a;          /* A local -> world                          */
    m33 rot;            /* B local -> A local                        */
    v3 pos;             /* B's origin in A's frame                   */
    mink_quat q;        /* rot as a unit quaternion, w >= 0          */
    float ra, rb;
    float margin;       /* the caller's, rounded shapes              */
    float margin_core;  /* the same for the cores: + ra + rb         */
    float scale;        /* S: |extent A| + |extent B| + |pos|        */
    float prefer;       /* a face wins over an edge pair within this */
    float prefer_rel;   /* ... its part relative to the smaller size   */
    float band;         /* |separation| below this: touching         */
    float touch;        /* points this far above the deepest touch   */
    float beside;       /* ... beside a tilted feature's lowest edge */
    float round;        /* a kept point's landing on a rounded face  */
    float apart;        /* separations beyond this want a sure normal */
} mctx;

/* A candidate axis and the features behind it. */
typedef struct feature {
    uint32_t type;    /* cache_feature                                    */
    uint32_t i, j;    /* face of A or B; or A's arc and B's arc          */
    float s;          /* separation of the cores along n                 */
    v3 n;             /* unit, A frame, from A towards B                 */
    uint32_t support; /* a face: the other shape's support point id      */
} feature;

/* A contact normal n (A frame) and each core's support along it, outward
 * (A's along n, B's along -n): its value h and point id (support_of). */
typedef struct along_normal {
    v3 n;
    float h[2];
    uint32_t id[2];
} along_normal;

/* A contact on the rounded shapes, A frame: pb - pa = sep n. */
typedef struct core_contact {
    v3 pa, pb;
    float sep;
    uint32_t key;
} core_contact;

/* ------------------------------------------------------------ frames */

static v3 b_to_a_point(const mctx *c, v3 p) { return v3_add(m33_mul(&c->rot, p), c->pos); }
static v3 b_to_a_dir(const mctx *c, v3 d) { return m33_mul(&c->rot, d); }
static v3 a_to_b_dir(const mctx *c, v3 d) { return m33_tmul(&c->rot, d); }

/* max over the core of d.p (A frame) and the point's id, for either shape */
static float support_of(const mctx *c, int of_b, v3 d, uint32_t *id)
{
    float dot;
    if (!of_b) {
        *id = c->k->support(c->a, d, &dot);
        return dot;
    }
    *id = c->k->support(c->b, a_to_b_dir(c, d), &dot);
    return dot + v3_dot(d, c->pos);
}

static v3 view_point(const mctx *c, int of_b, uint32_t id)
{
    return of_b ? b_to_a_point(c, core_point(&c->vb, id)) : core_point(&c->va, id);
}

/* Whether a shape is a speck next to the pair: its faces cannot serve as a
 * reference (their side planes round away). */
static int speck(const mctx *c, int of_b)
{
    const float extent = of_b ? c->b->extent : c->a->extent;
    return !(extent > 1e-6f * c->scale && extent > 1e-30f);
}

/* ------------------------------------------------------------ features */

/* A face of A (or of B): the separation of the other core from its plane. */
static void face_feature(const mctx *c, int of_b, uint32_t face, feature *f)
{
    const core_view *v = of_b ? &c->vb : &c->va;
    v3 n = core_face_normal(v, face);
    float d = core_face_offset(v, face);
    if (of_b) {
        n = b_to_a_dir(c, n);
        d += v3_dot(n, c->pos);
    }
    uint32_t id;
    const float h = support_of(c, !of_b, v3_neg(n), &id);
    f->type = of_b ? CACHE_FEATURE_FACE_B : CACHE_FEATURE_FACE_A;
    f->i = face;
    f->j = 0;
    f->s = -h - d;
    f->n = of_b ? v3_neg(n) : n;
    f->support = id;
}

int mink_sat_arcs_cross(v3 a0, v3 a1, v3 ea, v3 b0, v3 b1, v3 eb)
{
    const double cba = -((double)b0.x * ea.x + (double)b0.y * ea.y + (double)b0.z * ea.z);
    const double dba = -((double)b1.x * ea.x + (double)b1.y * ea.y + (double)b1.z * ea.z);
    const double adc = (double)a0.x * eb.x + (double)a0.y * eb.y + (double)a0.z * eb.z;
    const double bdc = (double)a1.x * eb.x + (double)a1.y * eb.y + (double)a1.z * eb.z;
    return cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
}

/* An edge pair, evaluated in double from the edges' end points (A frame):
 * the axis is the normalized cross product of the edges, which float
 * rounding turns by eps / sine for nearly parallel edges. 0 when the arcs
 * do not cross or the edges are parallel. */
static int edge_feature(const mctx *c, uint32_t ia, uint32_t ib, feature *f)
{
    v3 an0, an1, ae, ao, bn0, bn1, be, bo;
    uint32_t aid[2], bid[2];
    mink_core_arc(&c->va, ia, &an0, &an1, &ae, &ao, aid);
    mink_core_arc(&c->vb, ib, &bn0, &bn1, &be, &bo, bid);
    bn0 = b_to_a_dir(c, bn0), bn1 = b_to_a_dir(c, bn1), be = b_to_a_dir(c, be);
    if (!mink_sat_arcs_cross(an0, an1, ae, bn0, bn1, be)) return 0;
    const v3 p0 = core_point(&c->va, aid[0]), p1 = core_point(&c->va, aid[1]);
    const v3 q0 = view_point(c, 1, bid[0]), q1 = view_point(c, 1, bid[1]);
    const double da[3] = {(double)p1.x - p0.x, (double)p1.y - p0.y, (double)p1.z - p0.z};
    const double db[3] = {(double)q1.x - q0.x, (double)q1.y - q0.y, (double)q1.z - q0.z};
    double x[3] = {da[1] * db[2] - da[2] * db[1], da[2] * db[0] - da[0] * db[2], da[0] * db[1] - da[1] * db[0]};
    const double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    const double la = sqrt(da[0] * da[0] + da[1] * da[1] + da[2] * da[2]);
    const double lb = sqrt(db[0] * db[0] + db[1] * db[1] + db[2] * db[2]);
    if (!(len > 1e-9 * la * lb)) return 0; /* parallel: the faces' axes cover it */
    /* outward from A: the crossing lies on A's arc, between its normals */
    const double out = x[0] * ((double)an0.x + an1.x) + x[1] * ((double)an0.y + an1.y) + x[2] * ((double)an0.z + an1.z);
    const double sign = out < 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; ++k) x[k] *= sign / len;
    f->type = CACHE_FEATURE_EDGES;
    f->i = ia;
    f->j = ib;
    f->s = (float)(x[0] * ((double)q0.x - p0.x) + x[1] * ((double)q0.y - p0.y) + x[2] * ((double)q0.z - p0.z));
    f->n = v3_make((float)x[0], (float)x[1], (float)x[2]);
    f->support = 0;
    return 1;
}

/* Parameters of the closest points of segments p0 + s dp, q0 + t dq: in
 * float, and in double for edges float cannot place (edge_contact). */
#define DOT3(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])
#define DEFINE_SEGMENT_PARAMS(name, real)                                                                    \
    static void name(const real p0[3], const real dp[3], const real q0[3], const real dq[3], real *s_out,   \
                     real *t_out)                                                                           \
    {                                                                                                       \
        const real r[3] = {p0[0] - q0[0], p0[1] - q0[1], p0[2] - q0[2]};                                    \
        const real a = DOT3(dp, dp), e = DOT3(dq, dq), f = DOT3(dq, r), zero = 0, one = 1;                  \
        real s = 0, t = 0;                                                                                  \
        if (a <= zero && e <= zero) {                                                                       \
        } else if (a <= zero) {                                                                             \
            t = clamp01(f / e);                                                                             \
        } else {                                                                                            \
            const real cc = DOT3(dp, r);                                                                    \
            if (e <= zero) {                                                                                \
                s = clamp01(-cc / a);                                                                       \
            } else {                                                                                        \
                const real b = DOT3(dp, dq), denom = a * e - b * b;                                         \
                s = denom > zero ? clamp01((b * f - cc * e) / denom) : zero;                                \
                t = (b * s + f) / e;                                                                        \
                if (t < zero) {                                                                             \
                    t = zero;                                                                               \
                    s = clamp01(-cc / a);                                                                   \
                } else if (t > one) {                                                                       \
                    t = one;                                                                                \
                    s = clamp01((b - cc) / a);                                                              \
                }                                                                                           \
            }                                                                                               \
        }                                                                                                   \
        *s_out = s;                                                                                         \
        *t_out = t;                                                                                         \
    }
/* x clamped to [0, 1] (a NaN to 0) */
#define clamp01(x) _Generic((x), float: clamp01f, double: clamp01d)(x)
static inline float clamp01f(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
static inline double clamp01d(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }
DEFINE_SEGMENT_PARAMS(segment_params, float)
DEFINE_SEGMENT_PARAMS(segment_params_double, double)
#undef DEFINE_SEGMENT_PARAMS
#undef clamp01
#undef DOT3

/* A contact from two core points and the normal, re-centred on their
 * midpoint so that pb - pa = sep n holds, then moved out by the radii. */
static core_contact contact_between(const mctx *c, v3 pa, v3 pb, v3 n, uint32_t key)
{
    core_contact cc;
    const float sep = v3_dot(n, v3_sub(pb, pa));
    const v3 mid = v3_scale(v3_add(pa, pb), 0.5f);
    cc.pa = v3_sub(mid, v3_scale(n, 0.5f * sep - c->ra));
    cc.pb = v3_add(mid, v3_scale(n, 0.5f * sep - c->rb));
    cc.sep = sep - c->ra - c->rb;
    cc.key = key;
    return cc;
}

/* A world point (double) in A's frame (fa: A's pose). */
static v3 a_local_double(const dframe *fa, const double w[3])
{
    const double d[3] = {w[0] - fa->p[0], w[1] - fa->p[1], w[2] - fa->p[2]};
    double l[3];
    dframe_unturn(fa, d, l);
    return v3_make((float)l[0], (float)l[1], (float)l[2]);
}

/* The edge pair's single point: the edges' closest points. *inside: both
 * lie strictly inside their edges (then the axis's separation is the
 * distance of separated cores). B's points in A's frame round by about
 * 2 eps S, and the closest points slide along the edges by that over the
 * sine of their angle: where that could reach a tenth of the local
 * tolerance (1e-4 of the smaller shape's size), the edges are taken in
 * double from the shapes' own points and the poses (a 1 mm box's edge
 * across a 3 m box's, 4 m from its origin, came out 1.5e-5 past its end;
 * seed 795), and so is the axis f->n, their cross product: from B's edge
 * moved into A's frame it turns by that rounding over the edge's length
 * (a 5 mm hull's edge beside the end edge of a 401 m slab, 200 m from the
 * slab's centre: 3.9 mrad; seed 983). */
static core_contact edge_contact(const mctx *c, feature *f, int *inside)
{
    v3 n0, n1, e, o;
    uint32_t aid[2], bid[2];
    mink_core_arc(&c->va, f->i, &n0, &n1, &e, &o, aid);
    mink_core_arc(&c->vb, f->j, &n0, &n1, &e, &o, bid);
    const uint32_t key = clip_key(9, clip_edge_key(0, aid[0], aid[1]), clip_edge_key(1, bid[0], bid[1]), 0);
    const v3 p0 = core_point(&c->va, aid[0]), p1 = core_point(&c->va, aid[1]);
    const v3 q0 = view_point(c, 1, bid[0]), q1 = view_point(c, 1, bid[1]);
    const v3 dp = v3_sub(p1, p0), dq = v3_sub(q1, q0);
    const float slide = 4.0f * FLT_EPSILON * c->scale, budget = 1e-5f * minf(c->a->extent + c->ra, c->b->extent + c->rb);
    if (!(slide * slide * v3_len2(dp) * v3_len2(dq) > budget * budget * v3_len2(v3_cross(dp, dq)))) {
        const float P0[3] = {p0.x, p0.y, p0.z}, Q0[3] = {q0.x, q0.y, q0.z};
        const float DP[3] = {dp.x, dp.y, dp.z}, DQ[3] = {dq.x, dq.y, dq.z};
        float s, t;
        segment_params(P0, DP, Q0, DQ, &s, &t);
        if (inside) *inside = s > 0.0f && s < 1.0f && t > 0.0f && t < 1.0f;
        return contact_between(c, v3_add(p0, v3_scale(dp, s)), v3_add(q0, v3_scale(dq, t)), f->n, key);
    }
    dframe fa, fb;
    dframe_of(c->pa_in, &fa);
    dframe_of(c->pb_in, &fb);
    double P0[3], P1[3], Q0[3], Q1[3];
    world_core_point(c->a, &fa, aid[0], P0), world_core_point(c->a, &fa, aid[1], P1);
    world_core_point(c->b, &fb, bid[0], Q0), world_core_point(c->b, &fb, bid[1], Q1);
    const double DP[3] = {P1[0] - P0[0], P1[1] - P0[1], P1[2] - P0[2]};
    const double DQ[3] = {Q1[0] - Q0[0], Q1[1] - Q0[1], Q1[2] - Q0[2]};
    double s, t;
    segment_params_double(P0, DP, Q0, DQ, &s, &t);
    if (inside) *inside = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
    const double wa[3] = {P0[0] + DP[0] * s, P0[1] + DP[1] * s, P0[2] + DP[2] * s};
    const double wb[3] = {Q0[0] + DQ[0] * t, Q0[1] + DQ[1] * t, Q0[2] + DQ[2] * t};
    double axis[3], local[3];
    cross3(DP, DQ, axis);
    dframe_unturn(&fa, axis, local);
    const double len = sqrt(dot3(local, local)), toward = local[0] * f->n.x + local[1] * f->n.y + local[2] * f->n.z;
    if (len > 0.0 && toward != 0.0) {
        const double k = (toward > 0.0 ? 1.0 : -1.0) / len;
        f->n = v3_make((float)(local[0] * k), (float)(local[1] * k), (float)(local[2] * k));
    }
    return contact_between(c, a_local_double(&fa, wa), a_local_double(&fa, wb), f->n, key);
}

/* ------------------------------------------------------------ faces */

/* A face's loop in A's frame, subsampled to CLIP_MAX_POLYGON points
 * starting at `first` (kept). Returns the count. */
/* A point of the reference's frame (B's when in_b) about the face
 * contacts' anchor, to A's frame: about A's origin when B is the reference
 * (turned only, when anchored at A's origin: `own`), else as it is. */
static v3 ref_to_a(const mctx *c, v3 p, int in_b, int own)
{
    if (!in_b) return p;
    return own ? b_to_a_dir(c, p) : b_to_a_point(c, p);
}

/* Whether face contacts anchor at the incident shape's origin (ref_b: B's
 * face is the reference; see face_contacts): when it is the smaller shape,
 * whose origin is then near the contact, and lies far from the
 * reference's origin (nearer, the reference's frame rounds it as well). */
static int incident_anchor(const mctx *c, int ref_b)
{
    const float inc = ref_b ? c->a->extent : c->b->extent, ref = ref_b ? c->b->extent : c->a->extent;
    return inc < ref && v3_len2(c->pos) > 16.0f * inc * inc;
}

/* A core point in A's frame, or in B's when in_b; a point of the other
 * shape only turned, about its own origin, when `own` (the anchor of
 * face_contacts). */
static v3 frame_point(const mctx *c, int of_b, uint32_t id, int in_b, int own)
{
    const v3 p = core_point(of_b ? &c->vb : &c->va, id);
    if (of_b == in_b) return p;
    if (of_b) {
        const v3 q = b_to_a_dir(c, p);
        return own ? q : v3_add(q, c->pos);
    }
    return m33_tmul(&c->rot, own ? p : v3_sub(p, c->pos));
}

static uint32_t face_loop(const mctx *c, int of_b, uint32_t face, uint32_t first, int in_b, int own, v3 *pts,
                          uint32_t *ids)
{
    const core_view *v = of_b ? &c->vb : &c->va;
    const uint32_t size = core_face_size(v, face);
    const uint32_t step = (size + CLIP_MAX_POLYGON - 1) / CLIP_MAX_POLYGON;
    uint32_t n = 0;
    for (uint32_t k = 0; k < size && n < CLIP_MAX_POLYGON; k += step) {
        ids[n] = core_face_point(v, face, (first + k) % size);
        pts[n] = frame_point(c, of_b, ids[n], in_b, own);
        n++;
    }
    return n;
}

/* The position of point id in a face's loop (0 when absent). */
static uint32_t loop_position(const core_view *v, uint32_t face, uint32_t id)
{
    const uint32_t size = core_face_size(v, face);
    for (uint32_t k = 0; k < size; ++k)
        if (core_face_point(v, face, k) == id) return k;
    return 0;
}

/* The face most along `dir` (A frame) among the faces at a point of a
 * poly core; UINT32_MAX when there is none. A point in no loop (a repeated
 * or coplanar point the support scan returned) takes the faces whose
 * planes hold it. */
static uint32_t face_at_point(const mctx *c, int of_b, uint32_t id, v3 dir)
{
    const core_view *v = of_b ? &c->vb : &c->va;
    const v3 local = of_b ? a_to_b_dir(c, dir) : dir;
    uint32_t faces[64];
    const uint32_t n = mink_core_point_faces(v, id, faces, 64);
    uint32_t best = UINT32_MAX;
    float best_dot = -INFINITY;
    for (uint32_t k = 0; k < n; ++k) {
        const float dot = v3_dot(core_face_normal(v, faces[k]), local);
        if (dot > best_dot) best_dot = dot, best = faces[k];
    }
    if (n > 0 || !v->t) return best;
    const v3 p = core_point(v, id);
    const float tol = v->t->merge_tol + 4.0f * FLT_EPSILON * v->s->extent;
    for (uint32_t g = 0; g < v->t->face_count; ++g) {
        const v3 ng = core_face_normal(v, g);
        const float dot = v3_dot(ng, local);
        if (core_face_offset(v, g) - v3_dot(ng, p) <= tol && dot > best_dot) best_dot = dot, best = g;
    }
    return best;
}

/* The incident polygon (in A's frame, or B's when in_b) with its points'
 * keys and edges' keys; n_ref in A's frame. */
static uint32_t incident_polygon(const mctx *c, int of_b, uint32_t support, v3 n_ref, int in_b, int own,
                                 clip_point *poly)
{
    const core_view *v = of_b ? &c->vb : &c->va;
    uint32_t ids[CLIP_MAX_POLYGON];
    v3 pts[CLIP_MAX_POLYGON];
    uint32_t n = 0;
    if (v->kind == CORE_POINT) {
        ids[0] = v->ends[0];
        n = 1;
    } else if (v->kind == CORE_SEGMENT) {
        ids[0] = v->ends[0], ids[1] = v->ends[1];
        n = 2;
    } else {
        const uint32_t g = face_at_point(c, of_b, support, v3_neg(n_ref));
        if (g == UINT32_MAX) {
            ids[0] = support;
            n = 1;
        } else {
            n = face_loop(c, of_b, g, loop_position(v, g, support), in_b, own, pts, ids);
        }
    }
    for (uint32_t i = 0; i < n; ++i) {
        poly[i].p = frame_point(c, of_b, ids[i], in_b, own);
        poly[i].key = clip_key(1, (uint32_t)of_b, ids[i], 0);
        poly[i].edge = clip_edge_key(6 + (uint32_t)of_b, ids[i], ids[i + 1 < n ? i + 1 : 0]);
        poly[i].crossing = 0;
    }
    return n;
}

/* The rounding of a separation computed from coordinates like p's. */
static inline float coordinate_rounding(v3 p) { return ROUNDING_EPS * maxf(fabsf(p.x), maxf(fabsf(p.y), fabsf(p.z))); }

/* Whether a clipped point at core separation sep lies within the margin (p:
 * its coordinates in the reference's frame, B's when in_b), or beyond it
 * by no more than their rounding: not the pair's scale's, which a pebble on
 * a 1 km slab makes far larger; and no more than its world coordinates'
 * rounding, the answer's own (a 40 m prism whose points lie 130 m from its
 * origin, 111 m from the world's, kept a point 1.22e-4 above the margin,
 * 1.06e-4 at most there; seed 825). */
static __attribute__((noinline)) int within_world_rounding(const mctx *c, float sep, v3 p, int in_b)
{
    const v3 w = v3_add(m33_mul(&c->rot_a, in_b ? b_to_a_point(c, p) : p), c->pa.p);
    return sep <= c->margin_core + c->prefer_rel + coordinate_rounding(w);
}
static inline int within_margin(const mctx *c, float sep, v3 p, int in_b)
{
    const float limit = c->margin_core + c->prefer_rel;
    if (sep <= limit) return 1; /* most points: no rounding to work out */
    return sep <= limit + coordinate_rounding(p) && within_world_rounding(c, sep, p, in_b);
}

/* How the points of an incident feature tilted by t from the contact plane
 * are kept (incident_rule). A level feature (tan t <= MINK_MANIFOLD_TILT)
 * keeps the points within `touch` of the deepest one or rising by at most
 * that tilt per unit of distance along the face: a face that slightly
 * tilted, as a box settling on another does, keeps all its corners. A
 * steeper one touches with its lowest edge or corner only: it keeps the
 * points that rise so little that they lie within MINK_MANIFOLD_BESIDE_REL
 * of the smaller size beside that edge (plus rounding), not more than
 * `touch`. `landing`: how far inside a rounded surface moving the
 * feature's points out by its radius along the normal may put them
 * (landing_depth); beyond c->round only the points level with the deepest
 * one (on the supporting feature, where the move is exact) are kept. */
typedef struct incident_rule {
    float band;    /* a rise kept at any distance along */
    float landing; /* landing_depth of the feature's points */
    float flush;   /* a rise level with the deepest point, to rounding */
    int level;     /* the tilt per distance along keeps too */
} incident_rule;

static float landing_depth(float r, float cos_t);

/* The rule for a feature whose deepest point is `low` (in the frame the
 * separations were measured in: their rounding is that of its coordinates,
 * not of the pair's scale, which a millimetre box beside a 20 m one makes
 * far larger). */
static incident_rule incident_rule_for(const mctx *c, float r_inc, float cos_t, v3 low)
{
    incident_rule rule;
    const float cc = minf(cos_t * cos_t, 1.0f);
    const float rounding = coordinate_rounding(low);
    rule.level = cc * (1.0f + MINK_MANIFOLD_TILT * MINK_MANIFOLD_TILT) >= 1.0f;
    rule.band = c->touch;
    if (!rule.level) rule.band = minf(c->touch, sqrtf((1.0f - cc) / cc) * c->beside + rounding);
    rule.landing = landing_depth(r_inc, cos_t);
    rule.flush = c->prefer_rel + rounding;
    return rule;
}

/* Whether a point of the incident feature rising `rise` above the deepest
 * one, `along2` (squared) from it along the face, belongs to the touching
 * patch (incident_rule). */
static inline int keeps(const mctx *c, float rise, float along2, const incident_rule *rule)
{
    if (!(rise <= rule->band || (rule->level && rise * rise <= MINK_MANIFOLD_TILT * MINK_MANIFOLD_TILT * along2)))
        return 0;
    return rule->landing <= c->round || rise <= rule->flush;
}

/* keeps() for a point p at separation s of the patch whose deepest point is
 * `low` at separation `deepest`, n the normal. */
static inline int touches(const mctx *c, v3 p, float s, v3 low, float deepest, v3 n, const incident_rule *rule)
{
    const float rise = s - deepest;
    if (rise <= rule->band && rule->landing <= c->round) return 1; /* no distance along needed */
    const v3 d = v3_sub(p, low);
    return keeps(c, rise, v3_len2(v3_sub(d, v3_scale(n, v3_dot(n, d)))), rule);
}

/* A point of the incident core's feature moved out by the core's radius r
 * along the normal lands at least r cos t from the feature's plane (or
 * line), t its tilt from the contact plane: at most r (1 - cos t) inside
 * the rounded surface (exactly so inside a face; at its edges and corners
 * the surface may come sooner). */
static float landing_depth(float r, float cos_t) { return r * (1.0f - minf(cos_t, 1.0f)); }

/* cos t of a segment e against the contact plane (normal n): the distance
 * from its line of a point moved by 1 along n. */
static float line_cos(v3 e, v3 n)
{
    const float ee = v3_len2(e), en = v3_dot(e, n);
    return ee > 0.0f ? sqrtf(maxf(0.0f, 1.0f - en * en / ee)) : 1.0f;
}

/* cos t of a clipped polygon's plane against the contact plane: the plane
 * from Newell's sums (any planar polygon, no three points chosen); two
 * points, their line's; one, no tilt. */
static float polygon_cos(const clip_point *poly, uint32_t n, v3 normal)
{
    if (n < 2) return 1.0f;
    if (n == 2) return line_cos(v3_sub(poly[1].p, poly[0].p), normal);
    v3 m = v3_make(0, 0, 0);
    for (uint32_t i = 0; i < n; ++i) m = v3_add(m, v3_cross(poly[i].p, poly[i + 1 < n ? i + 1 : 0].p));
    const float mm = v3_len2(m);
    return mm > 0.0f ? fabsf(v3_dot(m, normal)) / sqrtf(mm) : 1.0f;
}

/* The contact points of a clipped patch: poly (n points of the incident
 * core over the reference face, in A's frame, or in B's when in_b) with
 * the reference plane n_ref.x = d_ref in the same frame. Keeps the
 * touching part (the points within the margin that `touches`), reduces it
 * to four and moves the points out by the radii along the normal: the
 * touching points of the cores are the lowest ones of the incident
 * feature, so moved by the radius along the normal they lie on the
 * rounded surface (exactly, or within radius x tilt^2 / 2 for a face
 * tilted by up to MINK_MANIFOLD_TILT). Returns the count; *deepest the
 * smallest core separation (+inf when the clip left nothing). */
static uint32_t patch_contacts(const mctx *c, const feature *f, clip_point *poly, uint32_t n, v3 n_ref, float d_ref,
                               int in_b, int own, v3 anchor, core_contact out[4], float *deepest, int *sure)
{
    const int ref_b = f->type == CACHE_FEATURE_FACE_B;
    float sep[CLIP_MAX_POINTS];
    uint32_t low = 0; /* the deepest point */
    for (uint32_t i = 0; i < n; ++i) {
        sep[i] = v3_dot(n_ref, poly[i].p) - d_ref;
        low = sep[i] < sep[low] ? i : low;
    }
    *deepest = n > 0 ? sep[low] : INFINITY;
    const float within = c->margin_core + c->prefer, r_inc = ref_b ? c->ra : c->rb;
    const v3 lowest = poly[low].p; /* the loop below may move another point into its slot */
    /* the separations round as coordinates in the reference's own frame
     * do: the anchor's plus the point's */
    const v3 lowest_far = v3_add(lowest, anchor);
    /* the tilt matters only to points above rounding (which every rule
     * keeps), or to a rounded core */
    int tilt_matters = r_inc > 0.0f;
    const float rounding = coordinate_rounding(lowest_far);
    for (uint32_t i = 0; i < n && !tilt_matters; ++i) tilt_matters = sep[i] <= within && sep[i] - *deepest > rounding;
    /* (whether the face's normal is sure matters to separated cores only) */
    const int doubt = n > 0 && poly[low].crossing && f->s > c->band && f->s > c->apart;
    const float cos_t = tilt_matters || doubt ? polygon_cos(poly, n, n_ref) : 1.0f;
    *sure = n > 0 && (!doubt || cos_t >= SURE_COS);
    const incident_rule rule = incident_rule_for(c, r_inc, tilt_matters ? cos_t : 1.0f, lowest_far);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (within_margin(c, sep[i], v3_add(poly[i].p, anchor), in_b) &&
            touches(c, poly[i].p, sep[i], lowest, *deepest, n_ref, &rule)) {
            poly[kept] = poly[i];
            sep[kept++] = sep[i];
        }
    }
    uint32_t pick[4];
    const uint32_t count = mink_reduce_points(poly, sep, kept, n_ref, pick);
    const float r_ref = ref_b ? c->rb : c->ra;
    for (uint32_t i = 0; i < count; ++i) {
        const clip_point *p = &poly[pick[i]];
        const float s = sep[pick[i]];
        v3 on_ref = v3_sub(p->p, v3_scale(n_ref, s - r_ref)); /* onto the reference's (rounded) face */
        v3 on_inc = v3_sub(p->p, v3_scale(n_ref, r_inc));
        on_ref = ref_to_a(c, on_ref, in_b, own), on_inc = ref_to_a(c, on_inc, in_b, own);
        out[i].pa = ref_b ? on_inc : on_ref;
        out[i].pb = ref_b ? on_ref : on_inc;
        out[i].sep = s - r_ref - r_inc;
        out[i].key = clip_key(4 + (uint32_t)ref_b, f->i, p->key, 0);
    }
    return count;
}

/* Two boxes: the incident face found and placed in the reference box's
 * frame directly (the reference face then needs no moving, and its side
 * planes are its own axes). The same points as mink_clip_polygon and
 * patch_contacts give, for less: the sides, separations and distances
 * along the face are single coordinates, and only the points kept get
 * their keys. */
static uint32_t box_face_contacts(const mctx *c, const feature *f, core_contact out[4], float *deepest, int *sure,
                                  v3 *origin)
{
    const int ref_b = f->type == CACHE_FEATURE_FACE_B;
    const float *href = ref_b ? c->b->half : c->a->half;
    const float *hi = ref_b ? c->a->half : c->b->half;
    /* the incident box's axes and centre in the reference frame; its points
     * about its centre when it is the smaller box (face_contacts' anchor) */
    const int own = incident_anchor(c, ref_b);
    *origin = own && !ref_b ? c->pb.p : c->pa.p;
    v3 ax[3], ctr;
    if (ref_b) {
        ax[0] = c->rot.r[0], ax[1] = c->rot.r[1], ax[2] = c->rot.r[2];
        ctr = v3_neg(m33_tmul(&c->rot, c->pos));
    } else {
        ax[0] = v3_make(c->rot.r[0].x, c->rot.r[1].x, c->rot.r[2].x);
        ax[1] = v3_make(c->rot.r[0].y, c->rot.r[1].y, c->rot.r[2].y);
        ax[2] = v3_make(c->rot.r[0].z, c->rot.r[1].z, c->rot.r[2].z);
        ctr = c->pos;
    }
    const uint32_t k = f->i >> 1;
    const float up = (f->i & 1u) ? 1.0f : -1.0f; /* the reference face is up * x_k = href[k] */
    /* the incident face: the axis most along the normal, its side facing it */
    float comp[3];
    for (int j = 0; j < 3; ++j) comp[j] = (&ax[j].x)[k];
    uint32_t j = 0;
    for (uint32_t t = 1; t < 3; ++t) j = fabsf(comp[t]) > fabsf(comp[j]) ? t : j;
    const uint32_t side = up * comp[j] > 0.0f ? 0u : 1u; /* incident face's sign bit on axis j */
    const uint32_t j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    const v3 fc_own = v3_scale(ax[j], side ? hi[j] : -hi[j]);
    const v3 fc = own ? fc_own : v3_add(ctr, fc_own);
    const v3 anchor = own ? ctr : v3_make(0.0f, 0.0f, 0.0f);
    const v3 e1 = v3_scale(ax[j1], hi[j1]), e2 = v3_scale(ax[j2], hi[j2]);
    quad_point poly[QUAD_MAX_POINTS], scratch[QUAD_MAX_POINTS];
    static const uint8_t cycle[4][2] = {{1, 1}, {0, 1}, {0, 0}, {1, 0}}; /* signs of e1, e2 around the face */
    uint32_t ids[4];
    for (uint32_t m = 0; m < 4; ++m) {
        ids[m] = side << j | (uint32_t)cycle[m][0] << j1 | (uint32_t)cycle[m][1] << j2;
        poly[m].p = v3_add(fc, v3_add(v3_scale(e1, cycle[m][0] ? 1.0f : -1.0f), v3_scale(e2, cycle[m][1] ? 1.0f : -1.0f)));
        poly[m].from = (uint8_t)m;
        poly[m].edge = (uint8_t)m;
    }
    const uint8_t *ref_ids = core_box_loop[f->i];
    const uint32_t n = mink_clip_box_quad(poly, 4, href, k, ref_ids, anchor, scratch);

    /* patch_contacts, with n_ref the axis: the face at up * x_k = face_at
     * about the anchor */
    const float face_at = href[k] - up * (&anchor.x)[k];
    float sep[QUAD_MAX_POINTS];
    uint32_t low = 0;
    for (uint32_t i = 0; i < n; ++i) {
        sep[i] = up * (&poly[i].p.x)[k] - face_at;
        low = sep[i] < sep[low] ? i : low;
    }
    *deepest = n > 0 ? sep[low] : INFINITY;
    /* (or a crossing on an edge of the quad level with the face: the whole
     * edge is then as low, its corner beyond the side no nearer) */
    const uint32_t low_edge = (poly[low].from >> 2) & 7u;
    *sure = n > 0 && (poly[low].from < 4 || f->s <= c->apart || fabsf(comp[j]) >= SURE_COS ||
                      (low_edge < 4 && fabsf(comp[low_edge & 1u ? j2 : j1]) <= MINK_MANIFOLD_SURE_TILT));
    const uint32_t u = (k + 1) % 3, w = (k + 2) % 3;
    const float lu = (&poly[low].p.x)[u], lw = (&poly[low].p.x)[w];
    /* the incident face's tilt: its axis j against the reference axis k */
    const float r_inc = ref_b ? c->ra : c->rb;
    /* (the separations round as the reference frame's coordinates) */
    const incident_rule rule = incident_rule_for(c, r_inc, fabsf(comp[j]), v3_add(poly[low].p, anchor));
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!within_margin(c, sep[i], v3_add(poly[i].p, anchor), ref_b)) continue;
        const float du = (&poly[i].p.x)[u] - lu, dw = (&poly[i].p.x)[w] - lw;
        if (keeps(c, sep[i] - *deepest, du * du + dw * dw, &rule)) {
            poly[kept] = poly[i];
            sep[kept++] = sep[i];
        }
    }
    uint32_t pick[4] = {0, 1, 2, 3};
    uint32_t count = kept;
    if (kept > 4) {
        /* the face's own coordinates are the contact plane's */
        float cu[QUAD_MAX_POINTS], cw[QUAD_MAX_POINTS];
        for (uint32_t i = 0; i < kept; ++i) cu[i] = (&poly[i].p.x)[u], cw[i] = (&poly[i].p.x)[w];
        count = mink_reduce_plane(cu, cw, sep, kept, pick);
    }
    const float r_ref = ref_b ? c->rb : c->ra;
    for (uint32_t i = 0; i < count; ++i) {
        const quad_point *p = &poly[pick[i]];
        const float s = sep[pick[i]];
        v3 on_ref = p->p, on_inc = p->p; /* onto the reference's (rounded) face, and the incident's */
        (&on_ref.x)[k] -= up * (s - r_ref);
        (&on_inc.x)[k] -= up * r_inc;
        on_ref = ref_to_a(c, on_ref, ref_b, own), on_inc = ref_to_a(c, on_inc, ref_b, own);
        out[i].pa = ref_b ? on_inc : on_ref;
        out[i].pb = ref_b ? on_ref : on_inc;
        out[i].sep = s - r_ref - r_inc;
        /* the keys mink_clip_polygon would give: a corner's, or the crossing of an
         * edge (the quad's or a side of the face) with a side */
        uint32_t key;
        if (p->from < 4) {
            key = clip_key(1, (uint32_t)!ref_b, ids[p->from], 0);
        } else {
            const uint32_t e = (p->from >> 2) & 7u, sd = p->from & 3u;
            const uint32_t edge = e < 4 ? clip_edge_key(6 + (uint32_t)!ref_b, ids[e], ids[(e + 1) & 3u])
                                        : clip_edge_key(3, ref_ids[e - 4], ref_ids[(e - 3) & 3u]);
            key = clip_key(2, edge, clip_edge_key(3, ref_ids[sd], ref_ids[(sd + 1) & 3u]), 0);
        }
        out[i].key = clip_key(4 + (uint32_t)ref_b, f->i, key, 0);
    }
    return count;
}

/* The contact points of a face feature: the incident polygon clipped
 * against the reference face (see patch_contacts). */
static uint32_t face_contacts(const mctx *c, const feature *f, core_contact out[4], float *deepest, int *sure,
                              v3 *origin)
{
    if (c->a->type == MINK_SHAPE_BOX && c->b->type == MINK_SHAPE_BOX)
        return box_face_contacts(c, f, out, deepest, sure, origin);
    /* in the reference shape's frame, where its face is exact (a speck's
     * face far from A's origin would round away in A's), about the smaller
     * shape's origin (a speck far from the reference's origin would round
     * away there, so when the incident shape is the smaller one its points
     * are only turned and the reference's face moves by -anchor). The
     * points come out in A's frame about *origin (world). */
    const int ref_b = f->type == CACHE_FEATURE_FACE_B;
    const int own = incident_anchor(c, ref_b);
    const core_view *rv = ref_b ? &c->vb : &c->va;
    const v3 n_ref = core_face_normal(rv, f->i);
    const v3 anchor = !own ? v3_make(0.0f, 0.0f, 0.0f) : ref_b ? a_to_b_dir(c, v3_neg(c->pos)) : c->pos;
    const float d_ref = core_face_offset(rv, f->i) - (own ? v3_dot(n_ref, anchor) : 0.0f);
    *origin = own && !ref_b ? c->pb.p : c->pa.p;
    v3 ref[CLIP_MAX_POLYGON];
    uint32_t ref_ids[CLIP_MAX_POLYGON];
    const uint32_t nr = face_loop(c, ref_b, f->i, 0, ref_b, 0, ref, ref_ids);
    if (own)
        for (uint32_t i = 0; i < nr; ++i) ref[i] = v3_sub(ref[i], anchor);
    clip_point poly[CLIP_MAX_POINTS], scratch[CLIP_MAX_POINTS];
    uint32_t n = incident_polygon(c, !ref_b, f->support, ref_b ? v3_neg(f->n) : f->n, ref_b, own, poly);
    n = mink_clip_polygon(poly, n, ref, ref_ids, nr, n_ref, scratch);
    return patch_contacts(c, f, poly, n, n_ref, d_ref, ref_b, own, anchor, out, deepest, sure);
}

/* ------------------------------------------------------------ output */

/* The key of the feature a core supports along d (A frame): a face whose
 * normal is d (within 1e-3 rad), else the edge from the support point to a
 * neighbour that ties with it within 1e-3 of the edge's length, else the
 * point: the support scan may return any corner of a face or either end
 * of an edge across d as d turns by rounding. id: the support point
 * (support_of along d). */
static uint32_t supporting_feature(const mctx *c, int of_b, v3 d, uint32_t id)
{
    const core_view *v = of_b ? &c->vb : &c->va;
    if (v->kind == CORE_POINT) return clip_key(13, id, id, 0);
    const v3 local = of_b ? a_to_b_dir(c, d) : d;
    const v3 p = core_point(v, id);
    const float dlen = v3_len(local);
    uint32_t other = id;
    float best = INFINITY;
    if (v->kind == CORE_SEGMENT) {
        other = id == v->ends[0] ? v->ends[1] : v->ends[0];
        best = 0.0f;
    } else {
        /* a face along d; else the neighbours along the faces' loops: the
         * next point of each (the loops turn one way about the outward
         * normals, so every edge from the point is one face's next, and
         * once) */
        uint32_t faces[64];
        const uint32_t nf = mink_core_point_faces(v, id, faces, 64);
        for (uint32_t k = 0; k < nf; ++k)
            if (v3_dot(core_face_normal(v, faces[k]), local) >= (1.0f - 5e-7f) * dlen) return clip_key(15, faces[k], 0, 0);
        for (uint32_t k = 0; k < nf; ++k) {
            const uint32_t size = core_face_size(v, faces[k]);
            for (uint32_t m = 0; m < size; ++m) {
                if (core_face_point(v, faces[k], m) != id) continue;
                const uint32_t nb = core_face_point(v, faces[k], m + 1 < size ? m + 1 : 0);
                const v3 e = v3_sub(core_point(v, nb), p);
                const float drop = -v3_dot(e, local) / (dlen * v3_len(e) + 1e-30f);
                if (drop < best) best = drop, other = nb;
                break;
            }
        }
    }
    if (!(best <= 1e-3f) || other == id) return clip_key(13, id, id, 0);
    return clip_edge_key(14, id, other);
}


/* The contacts to world: cc in A's frame about `origin` (world). */
static void emit_at(const mctx *c, v3 origin, v3 n, const core_contact *cc, uint32_t count, struct mink_manifold *out)
{
    out->normal = m33_mul(&c->rot_a, n);
    out->count = count;
    for (uint32_t i = 0; i < count; ++i) {
        mink_contact *p = &out->points[i];
        p->point_a = v3_add(m33_mul(&c->rot_a, cc[i].pa), origin);
        p->point_b = v3_add(m33_mul(&c->rot_a, cc[i].pb), origin);
        p->separation = cc[i].sep;
        uint32_t id = cc[i].key;
        /* distinct within the manifold, whatever the mix gave: remixed
         * until no earlier point has it (a 2^-32 event; capped) */
        for (int tries = 0; tries < 8; ++tries) {
            int clash = 0;
            for (uint32_t j = 0; j < i; ++j) clash |= out->points[j].id == id;
            if (!clash) break;
            id = clip_key(10, id, i, (uint32_t)tries);
        }
        p->id = id;
    }
}

/* The contacts to world: cc in A's frame. */
static void emit(const mctx *c, v3 n, const core_contact *cc, uint32_t count, struct mink_manifold *out)
{
    emit_at(c, c->pa.p, n, cc, count, out);
}

/* One point from a penetration answer (world space). */
static void emit_single(const mctx *c, const mink_result *r, const along_normal *an, struct mink_manifold *out)
{
    const v3 n = an->n;
    const uint32_t key =
        clip_key(8, supporting_feature(c, 0, n, an->id[0]), supporting_feature(c, 1, v3_neg(n), an->id[1]), 0);
    /* witnesses on their shapes' support planes along the normal: a query
     * that hit its iteration cap may leave one off its shape (then the
     * support points themselves) */
    if (r->status != MINK_OK) {
        const uint32_t ia = an->id[0], ib = an->id[1];
        const float ha = an->h[0], hb = an->h[1];
        const v3 pa = m33_tmul(&c->rot_a, v3_sub(r->point_a, c->pa.p));
        const v3 pb = m33_tmul(&c->rot_a, v3_sub(r->point_b, c->pa.p));
        /* + the rounding of world points far from the origin back to A's frame */
        const float far = maxf(maxf(fabsf(c->pa.p.x), fabsf(c->pa.p.y)), fabsf(c->pa.p.z)) + v3_len(pa) + v3_len(pb);
        const float slack = c->prefer + 1e-5f * c->scale + 16.0f * FLT_EPSILON * far;
        if (v3_dot(n, pa) - c->ra > ha + slack || -v3_dot(n, pb) - c->rb > hb + slack) {
            core_contact cc = contact_between(c, view_point(c, 0, ia), view_point(c, 1, ib), n, key);
            emit(c, n, &cc, 1, out);
            return;
        }
    }
    out->normal = r->normal;
    out->count = 1;
    out->points[0].point_a = r->point_a;
    out->points[0].point_b = r->point_b;
    out->points[0].separation = r->distance;
    out->points[0].id = key;
}

/* ------------------------------------------------------------ normal from GJK/EPA */

/* Whether face feature f carries a contact of signed core distance s along
 * n: separated cores need its normal within 1e-3 rad of n (then it is the
 * contact's face up to rounding); touching or overlapping ones a
 * separation within `prefer` of s (a near tie of the depth). The angle is
 * measured with both lengths: GJK's normal turned into A's frame is unit
 * only to a few float roundings, as much as 1 - cos 1e-3 (a capsule 9 mm
 * over a box's face, the normals 4e-7 rad apart, read as 1.04e-3). */
static double core_gap_double(const mctx *c, v3 n);

static int face_carries(const mctx *c, const feature *f, v3 n, float s)
{
    const float d = v3_dot(f->n, n);
    const int along = d > 0.0f && d * d >= (1.0f - 1e-6f) * v3_len2(f->n) * v3_len2(n);
    if (s > c->band) return along;
    if (f->s >= s - c->prefer_rel || along) return f->s >= s - c->prefer;
    if (!(f->s >= s - c->prefer)) return 0;
    /* a tie only within the preference's rounding part (8 eps S), the face's
     * normal elsewhere: a 6 cm hull 235 m along a 460 m terrain strip, at
     * its end, had the strip's top face 3.9e-4 deeper than EPA's depth and
     * 0.68 rad from its normal, inside a rounding part of 4.5e-4. The
     * face's separation in double decides, against s's own error (EPA's
     * gain tolerance unless the query finished in double). */
    const float s_err = -s < MINK_DOUBLE_NEAR_REL * c->scale ? ROUNDING_EPS * -s : MINK_EPA_GAIN_REL * c->scale;
    return core_gap_double(c, f->n) >= (double)s - c->prefer_rel - s_err;
}

/* The reference face for a contact normal n (A frame) of signed core
 * distance s: the face around each poly's support point most along the
 * normal, if it carries the contact (A's within `prefer`). */
static int face_for_normal(const mctx *c, const along_normal *an, float s, feature *f)
{
    const v3 n = an->n;
    int have = 0;
    for (int of_b = 0; of_b < 2; ++of_b) {
        const core_view *v = of_b ? &c->vb : &c->va;
        if (v->kind != CORE_POLY || speck(c, of_b)) continue;
        const v3 out_dir = of_b ? v3_neg(n) : n; /* outward of this shape at the contact */
        const uint32_t best = face_at_point(c, of_b, an->id[of_b], out_dir);
        if (best == UINT32_MAX) continue;
        feature g;
        face_feature(c, of_b, best, &g);
        if (!face_carries(c, &g, n, s)) continue;
        if (!have || g.s > f->s + c->prefer) *f = g, have = 1;
    }
    return have;
}

/* Two capsules (or segment hulls) along each other: the part of B's
 * segment over A's, each end paired with A's closest point. */
static uint32_t segment_pair_contacts(const mctx *c, v3 n, core_contact out[2])
{
    const v3 a0 = view_point(c, 0, c->va.ends[0]), a1 = view_point(c, 0, c->va.ends[1]);
    const v3 b0 = view_point(c, 1, c->vb.ends[0]), b1 = view_point(c, 1, c->vb.ends[1]);
    const v3 da = v3_sub(a1, a0), db = v3_sub(b1, b0);
    const float la2 = v3_len2(da), lb2 = v3_len2(db);
    const float sin_tol = SAT_NEAR_PARALLEL_SIN;
    if (!(la2 > 0.0f && lb2 > 0.0f)) return 0;
    if (v3_len2(v3_cross(da, db)) > sin_tol * sin_tol * la2 * lb2) return 0;
    /* B's parameters where it enters and leaves A's slab */
    const float t0 = v3_dot(da, v3_sub(a0, b0)), t1 = v3_dot(da, v3_sub(a1, b0)), k = v3_dot(da, db);
    float lo = minf(t0, t1) / k, hi = maxf(t0, t1) / k;
    if (k < 0.0f) lo = maxf(t0, t1) / k, hi = minf(t0, t1) / k;
    lo = maxf(lo, 0.0f), hi = minf(hi, 1.0f);
    if (!(hi > lo)) return 0;
    /* each end's points sit half their cores' offset across n beside the
     * cores (contact_between), sqrt(r^2 + l^2 / 4) - r off a surface of
     * radius r: segments that cross, seen along n, touch at one point (two
     * needles 0.7 mm thick at 2 degrees, 12 mm apart across n at an end,
     * had that end's point 6 mm off A) */
    const float r = minf(c->ra, c->rb), lateral_max2 = 4.0f * c->round * (c->round + 2.0f * r);
    uint32_t count = 0;
    core_contact touching[2];
    for (int e = 0; e < 2; ++e) {
        const float t = e ? hi : lo;
        const v3 pb = v3_add(b0, v3_scale(db, t));
        const float s = minf(maxf(v3_dot(da, v3_sub(pb, a0)) / la2, 0.0f), 1.0f);
        const v3 pa = v3_add(a0, v3_scale(da, s)), d = v3_sub(pb, pa);
        if (!(v3_len2(v3_sub(d, v3_scale(n, v3_dot(n, d)))) <= lateral_max2)) return 0;
        touching[e] = contact_between(c, pa, pb, n, clip_key(11, (uint32_t)e, 0, 0));
    }
    /* as for faces: within the margin, and touching from the deeper end */
    const int low = touching[1].sep < touching[0].sep;
    const incident_rule rule =
        incident_rule_for(c, c->rb, line_cos(v3_sub(touching[1].pb, touching[0].pb), n), touching[low].pb);
    for (int e = 0; e < 2; ++e)
        if (within_margin(c, touching[e].sep + c->ra + c->rb, touching[e].pb, 0) &&
            touches(c, touching[e].pb, touching[e].sep, touching[low].pb, touching[low].sep, n, &rule))
            out[count++] = touching[e];
    return count;
}

static void remember_feature(const mctx *c, mink_cache *cache, const feature *f, float runner_up, int separated,
                             const feature_state *prev);

/* How far a GJK/EPA answer claims a shallower contact than the supports
 * give along its own normal (the shapes' overlap or gap along it): about
 * zero for a right answer, large for a normal EPA got wrong. */
static float answer_excess(const mctx *c, const mink_result *r, along_normal *an)
{
    an->n = m33_tmul(&c->rot_a, r->normal);
    an->h[0] = support_of(c, 0, an->n, &an->id[0]);
    an->h[1] = support_of(c, 1, v3_neg(an->n), &an->id[1]);
    const float along = -(an->h[0] + an->h[1]) - c->ra - c->rb;
    return r->distance - along;
}

/* ------------------------------------------------------------ round pairs */

/* Whether both cores are points or segments (spheres, capsules, or boxes
 * or hulls of that shape). */
static int round_pair(const mctx *c)
{
    _Static_assert(CORE_POINT == 0 && CORE_SEGMENT == 1, "points and segments below CORE_POLY");
    return (c->va.kind | c->vb.kind) <= CORE_SEGMENT;
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

/* The closest points p0 + s (p1 - p0) and q0 + t (q1 - q0) of two segments
 * (either may be a point). Minimizes over s with t free, clamps t, then
 * takes the best s for that t: parallel segments (no unique pair) get one
 * of the pairs at their distance. */
static void segments_closest(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                             double *s, double *t)
{
    double u[3], v[3], r[3];
    for (int i = 0; i < 3; ++i) u[i] = p1[i] - p0[i], v[i] = q1[i] - q0[i], r[i] = p0[i] - q0[i];
    const double uu = dot3(u, u), vv = dot3(v, v), uv = dot3(u, v), ur = dot3(u, r), vr = dot3(v, r);
    if (!(vv > 0.0)) {
        *t = 0.0;
        *s = uu > 0.0 ? clamp01(-ur / uu) : 0.0;
        return;
    }
    const double det = uu * vv - uv * uv; /* >= 0; 0 when parallel or p a point */
    double ss = det > 0.0 ? clamp01((uv * vr - ur * vv) / det) : 0.0;
    double tt = (uv * ss + vr) / vv;
    if (tt < 0.0 || tt > 1.0) {
        tt = clamp01(tt);
        ss = uu > 0.0 ? clamp01((uv * tt - ur) / uu) : 0.0;
    }
    *s = ss, *t = tt;
}

/* Spheres and capsules (cores that are points or segments): the cores'
 * closest points in closed form, in double from the world poses, in place
 * of GJK/EPA (the cache is not read: this costs less). 0 when the cores
 * come within `apart` of each other: their normal is then EPA's. */
static __attribute__((noinline)) int round_pair_contacts(const mctx *c, struct mink_manifold *out)
{
    dframe fa, fb;
    dframe_of(c->pa_in, &fa);
    dframe_of(c->pb_in, &fb);
    double a0[3], a1[3], b0[3], b1[3], s, t;
    world_core_point(c->a, &fa, c->va.ends[0], a0);
    world_core_point(c->a, &fa, c->va.ends[c->va.kind == CORE_SEGMENT], a1);
    world_core_point(c->b, &fb, c->vb.ends[0], b0);
    world_core_point(c->b, &fb, c->vb.ends[c->vb.kind == CORE_SEGMENT], b1);
    segments_closest(a0, a1, b0, b1, &s, &t);
    double qa[3], qb[3], d[3];
    for (int i = 0; i < 3; ++i) {
        qa[i] = a0[i] + s * (a1[i] - a0[i]);
        qb[i] = b0[i] + t * (b1[i] - b0[i]);
        d[i] = qb[i] - qa[i];
    }
    const double dist = sqrt(dot3(d, d));
    if (!(dist > (double)c->apart)) return 0;
    const double sep = dist - (double)c->ra - (double)c->rb;
    for (int i = 0; i < 3; ++i) d[i] /= dist;
    const mink_vec3 normal = {(float)d[0], (float)d[1], (float)d[2]};
    out->status = MINK_OK;
    out->normal = normal;
    if (sep > (double)c->margin) {
        out->count = 0;
        return 1;
    }
    double local[3];
    dframe_unturn(&fa, d, local);
    const v3 n = v3_make((float)local[0], (float)local[1], (float)local[2]);
    /* two points only from segments along each other (segment_pair_contacts'
     * first test, here on the double ends: crossing pairs skip it) */
    double u[3], v[3];
    for (int i = 0; i < 3; ++i) u[i] = a1[i] - a0[i], v[i] = b1[i] - b0[i];
    const double uxv[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const double sin2 = (double)SAT_NEAR_PARALLEL_SIN * SAT_NEAR_PARALLEL_SIN;
    if (c->va.kind == CORE_SEGMENT && c->vb.kind == CORE_SEGMENT && dot3(uxv, uxv) <= sin2 * dot3(u, u) * dot3(v, v)) {
        core_contact cc[2];
        if (segment_pair_contacts(c, n, cc) == 2) {
            emit(c, n, cc, 2, out);
            return 1;
        }
    }
    out->count = 1;
    out->points[0].point_a = (mink_vec3){(float)(qa[0] + d[0] * c->ra), (float)(qa[1] + d[1] * c->ra),
                                         (float)(qa[2] + d[2] * c->ra)};
    out->points[0].point_b = (mink_vec3){(float)(qb[0] - d[0] * c->rb), (float)(qb[1] - d[1] * c->rb),
                                         (float)(qb[2] - d[2] * c->rb)};
    out->points[0].separation = (float)sep;
    out->points[0].id = clip_key(8, supporting_feature(c, 0, n, c->va.ends[0]),
                                 supporting_feature(c, 1, v3_neg(n), c->vb.ends[0]), 0);
    return 1;
}

/* GJK/EPA's answer, then the features that carry it. `cache` keeps GJK's
 * state, or, when a face carries the contact, that face: the signed
 * distance GJK/EPA found bounds every axis's separation (EPA's polytope
 * lies inside the difference), so it is the face's runner-up. */
static mink_status normal_path(const mctx *c, mink_cache *cache, int feature_cached, struct mink_manifold *out)
{
    /* spheres and capsules with each other: no GJK/EPA (round_pair_contacts) */
    if (round_pair(c) && round_pair_contacts(c, out)) return MINK_OK;
    /* GJK's state, warm; a feature's cache (feature_cached: the query
     * found one) is emptied first (its axis alone starts EPA on no better
     * ground than a cold query, and on tiny shapes deep in large ones not
     * as safely) */
    if (feature_cached && cache) mink_cache_reset(cache);
    mink_result r;
    mink_status st = c->k->penetration(c->a, c->pa_in, c->b, c->pb_in, cache, &r); /* as given: mink_penetration's own answer */
    if (st == MINK_ERR_INVALID) return out->status = st;
    /* an answer off by more than the query tolerance (1e-4 of the scale):
     * two supports, also for separated cores (a warm GJK was seen to stop
     * on a wrong axis there too) */
    const float allowed = c->prefer + 1e-4f * c->scale;
    along_normal an; /* the answer's normal and the supports along it */
    float excess = answer_excess(c, &r, &an);
    if (excess > allowed) {
        /* a warm start that led EPA astray (a speck pierced by a long
         * core): the cold answer; else the pair swapped (the order of the
         * shapes changes EPA's start); the better of them */
        if (cache) {
            mink_cache_reset(cache);
            st = c->k->penetration(c->a, c->pa_in, c->b, c->pb_in, cache, &r);
            excess = answer_excess(c, &r, &an);
        }
        mink_result w;
        if (excess > allowed && c->k->penetration(c->b, c->pb_in, c->a, c->pa_in, NULL, &w) >= 0) {
            const mink_vec3 t = w.point_a;
            w.normal = v3_neg(w.normal);
            w.point_a = w.point_b, w.point_b = t;
            along_normal aw;
            if (answer_excess(c, &w, &aw) < excess) r = w, an = aw, st = w.status;
        }
    }
    out->status = st;
    if (r.distance > c->margin) {
        out->normal = r.normal;
        out->count = 0;
        return st;
    }
    const v3 n = an.n;
    const float s = r.distance + c->ra + c->rb;
    core_contact cc[4];
    feature f;
    if (face_for_normal(c, &an, s, &f)) {
        float deepest;
        int sure; /* the normal is GJK's */
        v3 origin;
        const uint32_t count = face_contacts(c, &f, cc, &deepest, &sure, &origin);
        /* the face's points must reach the contact's depth, within half the
         * preference's rounding part (all of it, 8 eps S, let a facet of a
         * 500 m terrain strip 200 m out carry a patch 4.3e-4 above the
         * distance, its lowest corner clipped off beyond the facet's side) */
        const int reaches = deepest <= s + c->prefer_rel + 0.5f * (c->prefer - c->prefer_rel);
        /* a lone point short of the depth by more than the size-relative
         * preference stands for the contact no better than the query's own
         * witnesses: a 0.6 m box 3.4 mm into a 440 m hull rounded by 18 m had
         * the hull's tilted incident face clipped to one point 0.24 mm short,
         * 0.5 mm inside the box */
        const int lone_short = count == 1 && deepest > s + c->prefer_rel;
        if (count > 0 && reaches && !lone_short) {
            emit_at(c, origin, f.n, cc, count, out);
            if (st == MINK_OK) remember_feature(c, cache, &f, s, 0, NULL);
            return st;
        }
    }
    if (c->va.kind == CORE_SEGMENT && c->vb.kind == CORE_SEGMENT) {
        const uint32_t count = segment_pair_contacts(c, n, cc);
        if (count == 2) {
            emit(c, n, cc, count, out);
            return st;
        }
    }
    emit_single(c, &r, &an, out);
    return st;
}

/* ------------------------------------------------------------ separating axes */

/* Whether both cores take the separating-axis test. */
static int sat_pair(const mctx *c)
{
    const int a_ok = c->va.kind == CORE_POLY && (c->a->type == MINK_SHAPE_BOX || c->a->count <= MANIFOLD_SAT_MAX_POINTS);
    const int b_ok = c->vb.kind == CORE_POLY && (c->b->type == MINK_SHAPE_BOX || c->b->count <= MANIFOLD_SAT_MAX_POINTS);
    return a_ok && b_ok;
}

/* The best of each kind of axis (a face of A, a face of B, an edge pair)
 * with the runner-up of its kind; picks the deciding one and the largest
 * separation of all the others. 0 when an edge axis fails its check. */
typedef struct sat_candidates {
    feature face_a, face_b, edge;
    float second_a, second_b, second_edge;
    float prefer; /* c->prefer; its size-relative part where the values came from double */
    int have_edge;
    int edge_checked; /* the edge's value came from the supports */
} sat_candidates;

/* Separated cores whose face (separation fs, unit normal fn) wins only by
 * the preference over an edge pair (es, en) that points elsewhere: the
 * distance's normal may be the edge's (a box 2 mm beside a 750 m slab's
 * vertical edge, the face's and the edge's separations 9e-7 apart and
 * their normals 0.03 rad; a 0.3 mm box beside a 2 m box's edge, 1.2e-6
 * and 0.22 rad), below what float resolves or the preference allows. Then
 * GJK decides (in double near contact). */
static int face_only_preferred(const mctx *c, float fs, v3 fn, float es, v3 en)
{
    if (!(fs > 0.0f && es >= fs - c->prefer)) return 0;
    const float d = v3_dot(en, fn); /* en of any length: cos^2 below 1 - 2e-6, about 1.4 mrad */
    return d * d < (1.0f - 2e-6f) * v3_len2(en);
}

static int decide(const mctx *c, const sat_candidates *k, feature *best, float *runner_up)
{
    const int use_b = k->face_b.s > k->face_a.s + k->prefer;
    const feature *face = use_b ? &k->face_b : &k->face_a;
    const float face_second = maxf(use_b ? k->second_b : k->second_a, use_b ? k->face_a.s : k->face_b.s);
    if (k->have_edge && k->edge.s > face->s + k->prefer) {
        /* an edge axis must hold as a plain separating axis: its
         * separation from the supports themselves */
        uint32_t id;
        if (!k->edge_checked) {
            const float h = support_of(c, 0, k->edge.n, &id) + support_of(c, 1, v3_neg(k->edge.n), &id);
            if (-h < k->edge.s - c->prefer - ROUNDING_EPS * c->scale) return 0;
        }
        *best = k->edge;
        *runner_up = maxf(maxf(k->face_a.s, k->face_b.s), k->second_edge);
        return 1;
    }
    if (k->have_edge && face_only_preferred(c, face->s, face->n, k->edge.s, k->edge.n)) return 0;
    *best = *face;
    *runner_up = maxf(maxf(face_second, k->second_edge), k->have_edge ? k->edge.s : -INFINITY);
    return 1;
}

/* Folds an edge feature into the candidates. */
static void add_edge(sat_candidates *k, const feature *g)
{
    if (!k->have_edge || g->s > k->edge.s) {
        if (k->have_edge) k->second_edge = maxf(k->second_edge, k->edge.s);
        k->edge = *g, k->have_edge = 1;
    } else {
        k->second_edge = maxf(k->second_edge, g->s);
    }
}

/* The support separation of two boxes along a_i x b_j for edges the
 * kernel's test left out as near-parallel; -inf for edges parallel to
 * float precision (the face axes decide there). In A's frame a_i is a
 * unit axis, so the cross product u is exact (two components of b_j), and
 * every term is a product with u: each rounds by eps |u| times the scale,
 * and the division by |u| leaves a few eps S. (The kernel's value uses
 * the rotation's cofactor identity instead, whose rounding does not
 * shrink with |u|.) */
static float box_edge_axis_direct(const mctx *c, uint32_t i, uint32_t j)
{
    const float *r0 = &c->rot.r[0].x, *r1 = &c->rot.r[1].x, *r2 = &c->rot.r[2].x;
    const float col[3][3] = {{r0[0], r1[0], r2[0]}, {r0[1], r1[1], r2[1]}, {r0[2], r1[2], r2[2]}};
    const float *b = col[j], p[3] = {c->pos.x, c->pos.y, c->pos.z};
    const uint32_t i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    /* u = a_i x b_j: u_i = 0, u_i1 = -b_i2, u_i2 = b_i1 */
    const float len2 = b[i1] * b[i1] + b[i2] * b[i2];
    if (!(len2 > 1e-12f)) return -INFINITY;
    const float ra = c->a->half[i1] * fabsf(b[i2]) + c->a->half[i2] * fabsf(b[i1]);
    float rb = 0.0f;
    for (uint32_t k = 0; k < 3; ++k)
        if (k != j) rb += c->b->half[k] * fabsf(b[i1] * col[k][i2] - b[i2] * col[k][i1]);
    const float ud = b[i1] * p[i2] - b[i2] * p[i1];
    return (fabsf(ud) - ra - rb) / sqrtf(len2);
}

/* The first largest of v[0..n-1] (its index) and the largest of the
 * others (*second), in one pass. */
static uint32_t top_and_second(const float *v, uint32_t n, float *second)
{
    uint32_t top = 0;
    float s = -INFINITY;
    for (uint32_t i = 1; i < n; ++i) {
        if (v[i] > v[top]) s = maxf(s, v[top]), top = i;
        else s = maxf(s, v[i]);
    }
    *second = s;
    return top;
}

/* Column j of B's rotation into A's frame: b_j in A's frame. */
static inline v3 rot_column(const mctx *c, uint32_t j)
{
    return v3_make((&c->rot.r[0].x)[j], (&c->rot.r[1].x)[j], (&c->rot.r[2].x)[j]);
}

/* The number of core points world_core_point numbers. */
static uint32_t core_point_count(const mink_shape *s)
{
    switch (s->type) {
    case MINK_SHAPE_CAPSULE: return 2;
    case MINK_SHAPE_BOX: return 8;
    case MINK_SHAPE_HULL: return s->count;
    default: return 1;
    }
}

/* The cores' separation along the axis n (A frame, any length), in double
 * from the shapes' own points and the poses as given: the support
 * separation along that axis, exact up to double rounding. Out of line:
 * only ties float cannot tell come here. */
static __attribute__((noinline)) double core_gap_double(const mctx *c, v3 n)
{
    dframe fa, fb;
    dframe_of(c->pa_in, &fa);
    dframe_of(c->pb_in, &fb);
    const double local[3] = {n.x, n.y, n.z};
    double u[3];
    for (int i = 0; i < 3; ++i) u[i] = dot3(fa.r[i], local);
    const double len = sqrt(dot3(u, u));
    if (!(len > 0.0)) return -INFINITY;
    double top_a = -INFINITY, low_b = INFINITY, p[3];
    for (uint32_t id = 0, na = core_point_count(c->a); id < na; ++id) {
        world_core_point(c->a, &fa, id, p);
        top_a = fmax(top_a, dot3(p, u));
    }
    for (uint32_t id = 0, nb = core_point_count(c->b); id < nb; ++id) {
        world_core_point(c->b, &fb, id, p);
        low_b = fmin(low_b, dot3(p, u));
    }
    return (low_b - top_a) / len;
}

/* Whether x beats y, preferred by c->prefer, only within the rounding
 * part of the preference: the values cannot tell. */
static int tie_in_doubt(const mctx *c, float x, float y)
{
    const float rounding = c->prefer - c->prefer_rel;
    return x - y > c->prefer_rel - rounding && x - y <= c->prefer;
}

/* The preference's rounding part (8 eps S) can exceed the difference that
 * tells two candidate axes apart, for a small shape far from the origin
 * beside a large one (a 3 mm box 120 m out at a 60 m box's edge: the edge
 * pair's overlap less than the face's by 1.4e-4, the rounding part
 * 1.5e-4, their normals 0.17 rad apart). Where the face or edge pair the
 * preference would pass over lies within that part of the one it takes,
 * and their normals differ by more than 1e-3 rad, the face of A, the face
 * of B and the edge pair (axis edge_n, value *edge_s; none: -inf) are
 * valued along their axes in double (core_gap_double) and only the
 * size-relative part stands: 1 then (the values replaced, k->prefer
 * lowered). */
static int ties_in_double(const mctx *c, sat_candidates *k, v3 edge_n, float *edge_s)
{
    const float near_cos = 1.0f - 5e-7f; /* the normals within 1e-3 rad */
    const feature *face = k->face_b.s > k->face_a.s + c->prefer ? &k->face_b : &k->face_a;
    int doubt = tie_in_doubt(c, k->face_b.s, k->face_a.s) && v3_dot(k->face_a.n, k->face_b.n) < near_cos;
    if (!doubt && tie_in_doubt(c, *edge_s, face->s)) {
        const float d = v3_dot(edge_n, face->n);
        doubt = d * d < near_cos * near_cos * v3_len2(edge_n);
    }
    if (!doubt) return 0;
    k->face_a.s = (float)core_gap_double(c, k->face_a.n);
    k->face_b.s = (float)core_gap_double(c, k->face_b.n);
    if (*edge_s > -INFINITY) *edge_s = (float)core_gap_double(c, edge_n);
    k->prefer = c->prefer_rel;
    return 1;
}

/* The same for the box test's candidates: the best edge pair a_i x b_j
 * (ie), turned towards B. */
static int box_ties_in_double(const mctx *c, sat_candidates *k, uint32_t ie, float sep[BOX_SEPS])
{
    /* (the edge's axis made only for a tie: this runs on every box pair) */
    const float face_s = k->face_b.s > k->face_a.s + c->prefer ? k->face_b.s : k->face_a.s;
    if (!tie_in_doubt(c, k->face_b.s, k->face_a.s) && !tie_in_doubt(c, sep[ie], face_s)) return 0;
    if (!(sep[ie] > -INFINITY)) return ties_in_double(c, k, v3_make(0.0f, 0.0f, 0.0f), &sep[ie]);
    const uint32_t i = (ie - 6) / 3, j = (ie - 6) % 3;
    const v3 u = v3_cross(v3_make(i == 0, i == 1, i == 2), rot_column(c, j));
    return ties_in_double(c, k, v3_dot(u, c->pos) < 0.0f ? v3_neg(u) : u, &sep[ie]);
}

/* Two boxes: the 15 axes of the kernel's box test. */
static int box_box_sat(const mctx *c, feature *best, float *runner_up)
{
    _Alignas(16) float sep[BOX_SEPS];
    /* nearly parallel edges: their axis a_i x b_j valued directly (such an
     * axis can decide: the thin faces of the difference they make chamfer
     * its edges) */
    const uint32_t left_out = c->k->box_sat(c->a->half, c->b->half, c->rot.r, c->pos, sep);
    for (uint32_t e = 0; left_out && e < 9; ++e)
        if (left_out >> e & 1u) sep[6 + e] = box_edge_axis_direct(c, e / 3, e % 3);
    sat_candidates k;
    const uint32_t ia = top_and_second(sep, 3, &k.second_a);
    const uint32_t ib = 3 + top_and_second(sep + 3, 3, &k.second_b);
    const uint32_t ie = 6 + top_and_second(sep + 6, 9, &k.second_edge);
    k.have_edge = k.edge_checked = 0;
    /* the faces facing the other box, valued by the test (its values are
     * the supports' own), and the other box's support corner along each */
    const float d_a[3] = {c->pos.x, c->pos.y, c->pos.z};
    const float sa = d_a[ia] > 0.0f ? 1.0f : -1.0f;
    const float *ra = &c->rot.r[ia].x; /* a_ia in B's frame: row ia */
    uint32_t corner_b = 0;
    for (uint32_t l = 0; l < 3; ++l) corner_b |= (-sa * ra[l] >= 0.0f) << l;
    const v3 na = v3_make(ia == 0 ? sa : 0.0f, ia == 1 ? sa : 0.0f, ia == 2 ? sa : 0.0f);
    k.face_a = (feature){CACHE_FEATURE_FACE_A, 2 * ia + (sa > 0.0f), 0, sep[ia], na, corner_b};
    const uint32_t jb = ib - 3;
    const v3 bj = rot_column(c, jb);
    const float sb = v3_dot(c->pos, bj) < 0.0f ? 1.0f : -1.0f; /* B's face towards A: outward sb b_j */
    const v3 nb = v3_scale(bj, sb);                           /* in A's frame */
    const uint32_t corner_a = (-nb.x >= 0.0f) | (-nb.y >= 0.0f) << 1 | (-nb.z >= 0.0f) << 2;
    k.face_b = (feature){CACHE_FEATURE_FACE_B, 2 * jb + (sb > 0.0f), 0, sep[ib], v3_neg(nb), corner_a};
    /* each axis also holds the opposite features (the other side's faces
     * or edges), separated by 2 |projection| less: runners-up too (two
     * concentric boxes tie their opposite faces) */
    k.second_a = maxf(k.second_a, sep[ia] - 2.0f * fabsf(d_a[ia]));
    k.second_b = maxf(k.second_b, sep[ib] - 2.0f * fabsf(v3_dot(c->pos, bj)));
    if (sep[ie] > -INFINITY) {
        const uint32_t i = (ie - 6) / 3, j = (ie - 6) % 3;
        const v3 u = v3_cross(v3_make(i == 0, i == 1, i == 2), rot_column(c, j));
        const float len = v3_len(u);
        if (len > 0.0f) k.second_edge = maxf(k.second_edge, sep[ie] - 2.0f * fabsf(v3_dot(u, c->pos)) / len);
    }
    k.prefer = c->prefer;
    const int exact = box_ties_in_double(c, &k, ie, sep);
    const float face_s = maxf(k.face_a.s, k.face_b.s);
    if (!(sep[ie] > face_s + k.prefer)) {
        const feature *face = k.face_b.s > k.face_a.s + k.prefer ? &k.face_b : &k.face_a;
        if (face->s > 0.0f && sep[ie] >= face->s - c->prefer) {
            /* decide's face_only_preferred, for the face decide would take */
            const uint32_t i = (ie - 6) / 3, j = (ie - 6) % 3;
            const v3 u = v3_cross(v3_make(i == 0, i == 1, i == 2), rot_column(c, j));
            if (v3_len2(u) > 0.0f && face_only_preferred(c, face->s, face->n, sep[ie], u)) return 0;
        }
        k.second_edge = maxf(k.second_edge, sep[ie]); /* no candidate: a runner-up */
    } else {
        /* the edges that support the pair along the axis a_i x b_j */
        const uint32_t i = (ie - 6) / 3, j = (ie - 6) % 3;
        v3 u = v3_cross(v3_make(i == 0, i == 1, i == 2), rot_column(c, j));
        if (v3_dot(u, c->pos) < 0.0f) u = v3_neg(u);
        const v3 ub = a_to_b_dir(c, u);
        const float ua[3] = {u.x, u.y, u.z}, ubl[3] = {ub.x, ub.y, ub.z};
        uint32_t va = 0, vb = 0;
        for (uint32_t t = 0; t < 3; ++t) {
            if (t != i && ua[t] > 0.0f) va |= 1u << t;
            if (t != j && ubl[t] < 0.0f) vb |= 1u << t;
        }
        const uint32_t arc_a = mink_core_box_arc(i, va), arc_b = mink_core_box_arc(j, vb);
        const float len = v3_len(u);
        feature g;
        if (len >= SAT_NEAR_PARALLEL_SIN) {
            /* the test's value is the supports' own; only the axis to make */
            g = (feature){CACHE_FEATURE_EDGES, arc_a, arc_b, sep[ie], v3_scale(u, 1.0f / len), 0};
            add_edge(&k, &g);
            k.edge_checked = 1;
        } else if (edge_feature(c, arc_a, arc_b, &g)) {
            if (exact) g.s = sep[ie];
            add_edge(&k, &g);
        }
    }
    return decide(c, &k, best, runner_up);
}

/* The moved arrays' capacities: a hull of the test's size or a box, each
 * array padded to MINK_HULL_PAD. */
#define SAT_PAD(n) (((n) + MINK_HULL_PAD - 1) / MINK_HULL_PAD * MINK_HULL_PAD)
#define SAT_MAX(a, b) ((a) > (b) ? (a) : (b))
enum {
    SAT_POINTS = SAT_MAX(SAT_PAD(MANIFOLD_SAT_MAX_POINTS), MINK_HULL_PAD),
    SAT_FACES = SAT_MAX(SAT_PAD(2 * MANIFOLD_SAT_MAX_POINTS), MINK_HULL_PAD),
    SAT_ARCS = SAT_MAX(SAT_PAD(3 * MANIFOLD_SAT_MAX_POINTS), MINK_HULL_PAD)
};

/* The full test: every face of A, every face of B, every edge pair. The
 * chosen feature in *best; *runner_up the largest separation of the
 * others. 0 when a near-parallel edge pair could not be valued (more of
 * them than the scan lists) or an edge axis failed its support check:
 * then GJK/EPA decides. */
static int full_sat(const mctx *c, feature *best, float *runner_up)
{
    if (c->a->type == MINK_SHAPE_BOX && c->b->type == MINK_SHAPE_BOX) return box_box_sat(c, best, runner_up);
    _Alignas(64) float box_a[BOX_SOA_FLOATS], box_b[BOX_SOA_FLOATS];
    _Alignas(64) float moved[3 * SAT_POINTS + 4 * SAT_FACES + 12 * SAT_ARCS];
    soa_points pa, pb, pb0;
    soa_planes fa, fb, fb0;
    soa_arcs aa, ab, ab0;
    mink_core_soa(&c->va, box_a, &pa, &fa, &aa);
    mink_core_soa(&c->vb, box_b, &pb0, &fb0, &ab0);
    c->k->move(&pb0, &fb0, &ab0, c->rot.r, c->pos, moved, &pb, &fb, &ab);

    /* an axis that separates by more than the margin ends the test: no
     * contacts (the feature cached for the next query's one-axis test) */
    sat_candidates k;
    sat_best face_a, face_b;
    c->k->face_scan(&fa, &pb, &face_a);
    face_feature(c, 0, face_a.i, &k.face_a);
    if (k.face_a.s > c->margin_core) return *best = k.face_a, *runner_up = k.face_a.s, 1;
    c->k->face_scan(&fb, &pa, &face_b);
    face_feature(c, 1, face_b.i, &k.face_b);
    if (k.face_b.s > c->margin_core) return *best = k.face_b, *runner_up = k.face_b.s, 1;
    sat_edge_scan edges;
    c->k->edge_scan(&aa, &ab, c->margin_core, &edges);
    if (edges.best.value > c->margin_core) {
        /* a separating edge axis, checked against the supports themselves
         * (any direction's support separation bounds the distance; the
         * edges' own value holds only where the arcs truly cross) */
        feature g;
        if (edge_feature(c, edges.best.i, edges.best.j, &g) && g.s > c->margin_core) {
            uint32_t id;
            g.s = minf(g.s, -(support_of(c, 0, g.n, &id) + support_of(c, 1, v3_neg(g.n), &id)));
            if (g.s > c->margin_core) return *best = g, *runner_up = g.s, 1;
        }
        c->k->edge_scan(&aa, &ab, INFINITY, &edges); /* rounding: the whole scan after all */
    }
    if (edges.near_count > SAT_NEAR_PARALLEL_MAX) return 0;

    k.second_a = face_a.second;
    k.second_b = face_b.second;
    k.second_edge = edges.best.second;
    k.have_edge = k.edge_checked = 0;
    k.prefer = c->prefer;
    /* near-parallel pairs and the scan's best, valued in double */
    for (uint32_t n = 0; n < edges.near_count; ++n) {
        feature g;
        if (edge_feature(c, edges.near_i[n], edges.near_j[n], &g)) add_edge(&k, &g);
    }
    if (edges.best.value > -INFINITY) {
        feature g;
        if (edge_feature(c, edges.best.i, edges.best.j, &g)) add_edge(&k, &g);
    }
    float no_edge = -INFINITY;
    ties_in_double(c, &k, k.have_edge ? k.edge.n : v3_make(0.0f, 0.0f, 0.0f), k.have_edge ? &k.edge.s : &no_edge);
    return decide(c, &k, best, runner_up);
}

/* Rebuilds the manifold from a feature: 1 when done (out written), 0 when
 * the caller must go on (GJK's normal for separated cores the feature
 * cannot certify). */
/* Two boxes: the face of the other box that a face feature's incident
 * face is, as a feature of its own (its separation from the supports),
 * where the face's normal was not sure: the tilted face above the edge
 * it overhangs is often the sure one (a box on two others, neighbours
 * in a row). */
static feature counterpart_face(const mctx *c, const feature *f)
{
    feature g;
    uint32_t j = 0, id;
    if (f->type == CACHE_FEATURE_FACE_A) {
        /* B's face most against n: the feature's normal is +-b_j */
        float dot[3];
        for (uint32_t t = 0; t < 3; ++t) dot[t] = v3_dot(rot_column(c, t), f->n);
        for (uint32_t t = 1; t < 3; ++t) j = fabsf(dot[t]) > fabsf(dot[j]) ? t : j;
        g.type = CACHE_FEATURE_FACE_B;
        g.i = 2 * j + (dot[j] < 0.0f);
        g.n = v3_scale(rot_column(c, j), dot[j] < 0.0f ? -1.0f : 1.0f);
    } else {
        /* A's face most along n */
        const float *n = &f->n.x;
        for (uint32_t t = 1; t < 3; ++t) j = fabsf(n[t]) > fabsf(n[j]) ? t : j;
        g.type = CACHE_FEATURE_FACE_A;
        g.i = 2 * j + (n[j] > 0.0f);
        g.n = v3_make(0.0f, 0.0f, 0.0f);
        (&g.n.x)[j] = n[j] > 0.0f ? 1.0f : -1.0f;
    }
    g.j = 0;
    g.s = -(support_of(c, 0, g.n, &id) + support_of(c, 1, v3_neg(g.n), &g.support));
    if (g.type == CACHE_FEATURE_FACE_B) g.support = id;
    return g;
}

/* A face feature's contacts: 1 when its points reach its separation and,
 * for cores clearly apart, its normal is sure (see MINK_MANIFOLD_SURE_TILT). */
static int face_feature_contacts(const mctx *c, const feature *f, struct mink_manifold *out)
{
    core_contact cc[4];
    float deepest;
    int sure;
    v3 origin;
    const uint32_t count = face_contacts(c, f, cc, &deepest, &sure, &origin);
    const float slack = (f->s > c->band ? 0.0f : c->prefer) + ROUNDING_EPS * c->scale;
    if (count == 0 || deepest > f->s + slack) return 0;
    if (f->s > c->band && f->s > c->apart && !sure) return 0;
    emit_at(c, origin, f->n, cc, count, out);
    return 1;
}

static int contacts_from_feature(const mctx *c, feature *f, struct mink_manifold *out)
{
    core_contact cc[4];
    if (f->s > c->margin_core) {
        out->normal = m33_mul(&c->rot_a, f->n);
        out->count = 0;
        return 1;
    }
    if (f->type == CACHE_FEATURE_EDGES) {
        int inside;
        cc[0] = edge_contact(c, f, &inside);
        if (!inside) return 0;
        emit(c, f->n, cc, 1, out);
        return 1;
    }
    /* a speck's faces (a shape a millionth of the pair's scale, or one whose
     * coordinates are near float's smallest) are too small to clip against:
     * GJK/EPA answers */
    if (speck(c, f->type == CACHE_FEATURE_FACE_B)) return 0;
    /* the clipped points reach the face's separation: a point of the other
     * core lies over the face at that separation, so for separated cores
     * it is their distance (up to rounding), and for overlapping ones the
     * face carries the deepest point */
    if (face_feature_contacts(c, f, out)) return 1;
    /* two boxes clearly apart: the incident face, before GJK */
    if (!(f->s > c->band && f->s > c->apart) || c->a->type != MINK_SHAPE_BOX || c->b->type != MINK_SHAPE_BOX) return 0;
    const feature g = counterpart_face(c, f);
    if (g.s > c->margin_core) {
        out->normal = m33_mul(&c->rot_a, g.n);
        out->count = 0;
        *f = g;
        return 1;
    }
    if (!(g.s > c->band && g.s > c->apart) || !face_feature_contacts(c, &g, out)) return 0;
    *f = g;
    return 1;
}

static void remember_feature(const mctx *c, mink_cache *cache, const feature *f, float runner_up, int separated,
                             const feature_state *prev)
{
    if (!cache || f->i > 0xffffu || f->j > 0xffffu) return; /* the cache keeps 16-bit ids */
    feature_state fs;
    memset(&fs, 0, sizeof fs);
    fs.feature = f->type;
    fs.ia = f->i;
    fs.ib = f->j;
    fs.outcome = separated ? CACHE_SEPARATED : CACHE_OVERLAP;
    fs.axis[0] = f->n.x, fs.axis[1] = f->n.y, fs.axis[2] = f->n.z;
    fs.separation = f->s;
    fs.runner_up = runner_up;
    fs.pos[0] = c->pos.x, fs.pos[1] = c->pos.y, fs.pos[2] = c->pos.z;
    fs.rot[0] = c->q.x, fs.rot[1] = c->q.y, fs.rot[2] = c->q.z;
    mink_cache_store_feature(cache, c->a, c->b, &fs, prev);
}

/* Whether the cached feature, now at separation s, still decides: no other
 * axis can have overtaken it since the full test. Two bounds, from the
 * change of relative pose (dp, and dq between the unit quaternions):
 * - each other axis, from the runner-up: a face's separation moves with
 *   the other shape's points, by at most |dp| + 2 |dq| (|A| + |B| + |p|);
 *   an edge pair's axis also turns, by at most pi |dq| / sine of the edges'
 *   angle (the scan keeps that sine above SAT_NEAR_PARALLEL_SIN; nearer
 *   pairs cross within it of a face's normal);
 * - all axes at once, from the largest separation then: that is the
 *   signed distance (up to the face preference), which moves no faster
 *   than B's points in A's frame, |dp| + 2 |dq| |B|. A feature found from
 *   GJK/EPA's normal has only this bound (its runner-up is that distance). */
static int still_decides(const mctx *c, const feature_state *fs, float s)
{
    const float w2 = 1.0f - (fs->rot[0] * fs->rot[0] + fs->rot[1] * fs->rot[1] + fs->rot[2] * fs->rot[2]);
    if (!(w2 >= 0.0625f)) return 0; /* w below 1/4: its recovery from x y z is too coarse */
    const float w = sqrtf(w2);
    const float dq2 = (c->q.x - fs->rot[0]) * (c->q.x - fs->rot[0]) + (c->q.y - fs->rot[1]) * (c->q.y - fs->rot[1]) +
                      (c->q.z - fs->rot[2]) * (c->q.z - fs->rot[2]) + (c->q.w - w) * (c->q.w - w);
    const float dq = sqrtf(dq2) + 1e-6f; /* + the rounding of w */
    const float dp = v3_len(v3_sub(c->pos, v3_make(fs->pos[0], fs->pos[1], fs->pos[2])));
    const float rounding = ROUNDING_EPS * c->scale;
    const float one_axis = dp + dq * (2.0f * c->scale + 3.1416f * c->scale / SAT_NEAR_PARALLEL_SIN) + rounding;
    const float all_axes = dp + dq * 2.0f * c->b->extent + rounding;
    const float best_then = maxf(fs->separation, fs->runner_up);
    return s + c->prefer >= minf(fs->runner_up + one_axis, best_then + all_axes);
}

/* The cached feature at the new pose; 0 when it no longer exists. */
static int cached_feature(const mctx *c, const feature_state *fs, feature *f)
{
    switch (fs->feature) {
    case CACHE_FEATURE_FACE_A:
        if (fs->ia >= core_face_count(&c->va)) return 0;
        face_feature(c, 0, fs->ia, f);
        return 1;
    case CACHE_FEATURE_FACE_B:
        if (fs->ia >= core_face_count(&c->vb)) return 0;
        face_feature(c, 1, fs->ia, f);
        return 1;
    case CACHE_FEATURE_EDGES: {
        if (fs->ia >= mink_core_arc_count(&c->va) || fs->ib >= mink_core_arc_count(&c->vb)) return 0;
        if (!edge_feature(c, fs->ia, fs->ib, f)) return 0;
        /* the edges' value must be the supports' (it is not once the pair
         * slid off each other's Gauss arcs in a way the test misses) */
        uint32_t id;
        const float h = support_of(c, 0, f->n, &id) + support_of(c, 1, v3_neg(f->n), &id);
        return -h >= f->s - c->prefer - ROUNDING_EPS * c->scale;
    }
    default: return 0;
    }
}

/* The cached feature, when it still decides: 1 and *out answered from it
 * (it still separates by more than the margin, certifies itself for
 * separated cores, or no other feature can have overtaken it since). */
static int warm_contacts(const mctx *c, mink_cache *cache, const feature_state *fs, struct mink_manifold *out)
{
    feature f;
    if (!fs || !cached_feature(c, fs, &f)) return 0;
    const int holds = f.s > c->margin_core || f.s > c->band ||
                      (fs->outcome == CACHE_OVERLAP && still_decides(c, fs, f.s));
    if (!holds || !contacts_from_feature(c, &f, out)) return 0;
    out->status = MINK_OK;
    mink_cache_held(cache);
    return 1;
}

/* prev: the feature state the cache held (NULL: none) */
static mink_status sat_path(const mctx *c, mink_cache *cache, const feature_state *prev, struct mink_manifold *out)
{
    out->status = MINK_OK;
    feature f;
    float runner_up;
    if (!full_sat(c, &f, &runner_up)) return normal_path(c, NULL, 0, out);
    if (contacts_from_feature(c, &f, out)) {
        remember_feature(c, cache, &f, runner_up, f.s > c->margin_core, prev);
        return MINK_OK;
    }
    /* separated cores whose closest features are no face and no edge
     * pair of the test: GJK's normal (its state cached) */
    return normal_path(c, cache, prev != NULL, out);
}

/* ------------------------------------------------------------ the query */

static mink_status invalid(struct mink_manifold *out)
{
    if (out) {
        memset(out, 0, sizeof *out);
        out->status = MINK_ERR_INVALID;
    }
    return MINK_ERR_INVALID;
}

/* GJK's cached axis still separating by more than the margin: no contacts
 * for one support evaluation per shape. */
static int cached_axis_clear(const mctx *c, const mink_cache *cache, v3 *unit)
{
    cache_state st;
    if (!mink_cache_load_axis(cache, c->a, c->b, &st) || st.outcome != CACHE_SEPARATED) return 0;
    /* scaled by its largest component first: GJK's last axis of shapes
     * 1e-23 apart has denormal components, whose squares vanish */
    const float big = maxf(fabsf(st.axis[0]), maxf(fabsf(st.axis[1]), fabsf(st.axis[2])));
    if (!(big > 0.0f)) return 0;
    const v3 u = v3_scale(v3_make(st.axis[0], st.axis[1], st.axis[2]), 1.0f / big);
    const float len = v3_len(u);
    uint32_t id;
    const float gap = -(support_of(c, 0, u, &id) + support_of(c, 1, v3_neg(u), &id));
    *unit = v3_scale(u, 1.0f / len);
    return gap > c->margin_core * len;
}

mink_status mink_manifold_run(const manifold_kernel *k, const mink_shape *a, const mink_pose *pa,
                              const mink_shape *b, const mink_pose *pb, float margin, mink_cache *cache,
                              struct mink_manifold *out)
{
    if (!out) return MINK_ERR_INVALID;
    mctx c;
    if (mink_check_query(a, pa, b, pb, &c.pa, &c.pb) != 0 || !(margin >= 0.0f && margin <= MINK_MAX_MAGNITUDE) ||
        !mink_core_view_init(&c.va, a) || !mink_core_view_init(&c.vb, b))
        return invalid(out);
    memset(out, 0, sizeof *out);
    /* bounding spheres (every core point lies within its shape's extent of
     * its origin) farther apart than the margin: no contacts, and no frame
     * to set up (pairs a broadphase passes on are often this far apart) */
    const float dx = c.pb.p.x - c.pa.p.x, dy = c.pb.p.y - c.pa.p.y, dz = c.pb.p.z - c.pa.p.z;
    const float d2 = dx * dx + dy * dy + dz * dz;
    const float reach = a->extent + a->radius + b->extent + b->radius + margin;
    if (d2 > reach * reach * (1.0f + 1e-4f) + 1e-30f) {
        const float inv = 1.0f / sqrtf(d2);
        out->normal = (mink_vec3){dx * inv, dy * inv, dz * inv};
        out->status = MINK_OK;
        return MINK_OK;
    }
    c.k = k;
    c.a = a;
    c.b = b;
    c.pa_in = pa;
    c.pb_in = pb;
    c.rot_a = m33_from_quat(c.pa.q);
    c.q = quat_conj_mul(c.pa.q, c.pb.q);
    const float qn = 1.0f / sqrtf(c.q.x * c.q.x + c.q.y * c.q.y + c.q.z * c.q.z + c.q.w * c.q.w);
    const float qs = c.q.w < 0.0f ? -qn : qn;
    c.q.x *= qs, c.q.y *= qs, c.q.z *= qs, c.q.w *= qs;
    c.rot = m33_from_quat(c.q);
    c.pos = m33_tmul(&c.rot_a, v3_sub(c.pb.p, c.pa.p));
    c.ra = a->radius;
    c.rb = b->radius;
    c.margin = margin;
    c.margin_core = margin + c.ra + c.rb;
    c.scale = a->extent + b->extent + v3_len(c.pos) + 1e-30f;
    const float smaller = minf(a->extent + c.ra, b->extent + c.rb);
    c.prefer_rel = MINK_MANIFOLD_PREFER_REL * smaller;
    c.prefer = c.prefer_rel + ROUNDING_EPS * c.scale;
    c.band = MINK_TOUCH_REL * c.scale;
    c.touch = MINK_MANIFOLD_TOUCH_REL * smaller + c.prefer;
    c.beside = MINK_MANIFOLD_BESIDE_REL * smaller;
    c.round = MINK_MANIFOLD_ROUND_REL * smaller;
    c.apart = MINK_MANIFOLD_APART_REL * smaller;

    v3 clear_axis;
    if (cached_axis_clear(&c, cache, &clear_axis)) {
        out->normal = m33_mul(&c.rot_a, clear_axis);
        out->status = MINK_OK;
        mink_cache_held(cache);
        return MINK_OK;
    }
    feature_state fs;
    const feature_state *prev = mink_cache_load_feature(cache, a, b, &fs) ? &fs : NULL;
    if (warm_contacts(&c, cache, prev, out)) return MINK_OK;
    const mink_status st = sat_pair(&c) ? sat_path(&c, cache, prev, out) : normal_path(&c, cache, prev != NULL, out);
    if (st == MINK_ERR_INVALID) return invalid(out);
    out->status = st;
    return st;
}
