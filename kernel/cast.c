/* Continuous collision for both kernels: linear casts and times of impact
 * by conservative advancement on the kernel's signed distance.
 *
 * At time t the distance query gives d and the normal n. Along that fixed
 * axis the gap between the shapes, a lower bound on their distance at
 * every later time, closes no faster than
 *     speed = n.(vA - vB) + |n x wA| reachA + |n x wB| reachB
 * (v the centre's velocity, w the angular velocity, reach the farthest any
 * point of the core gets from the rotation axis through its centre), so
 * the pair stays farther apart than target until t + (d - target) / speed:
 * that step is safe, and the t reported is never after the first contact.
 * Translations only (mink_cast) make it Newton's method on a convex
 * function of t: a few steps, exact on faces. The pair's cache carries
 * GJK's simplex from one step to the next, so each step after the first is
 * a warm query. */
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "ref/ref_math.h"
#include "ref/support_ref.h"
#include "shape.h"
#include "support.h"
#include "tolerance.h"

#include <float.h>
#include <string.h>

typedef mink_status (*cast_distance_fn)(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                        const mink_pose *pb, mink_cache *cache, mink_result *out);

/* One body's motion over the step (world space). */
typedef struct cast_motion {
    v3 c0, v;       /* the centre at t = 0 and its displacement over the step */
    v3 center;      /* the centre in the shape's frame                        */
    mink_quat q0;   /* unit                                                   */
    v3 axis;        /* unit rotation axis, and the angle turned over the step */
    float angle;
    v3 omega;       /* axis * angle                                           */
    float reach;    /* farthest core point from the axis through the centre  */
    float full_reach; /* farthest core point from the centre                 */
} cast_motion;

static mink_quat quat_mul(mink_quat a, mink_quat b)
{
    mink_quat r;
    r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    return r;
}

static mink_quat quat_unit(mink_quat q)
{
    const float s = 1.0f / sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q.x *= s, q.y *= s, q.z *= s, q.w *= s;
    return q;
}

static v3 quat_apply(mink_quat q, v3 v) { const m33 m = m33_from_quat(q); return m33_mul(&m, v); }

static int vec_ok(mink_vec3 v)
{
    const float lim = MINK_MAX_MAGNITUDE;
    return fabsf(v.x) <= lim && fabsf(v.y) <= lim && fabsf(v.z) <= lim; /* NaN fails */
}

/* How far a core point p gets from the centre c (full) and from the axis
 * through it along the unit u (perp), squared, kept if larger. */
static void reach_point(v3 p, v3 c, v3 u, float *perp2, float *full2)
{
    const v3 r = v3_sub(p, c);
    const float along = v3_dot(r, u), r2 = v3_len2(r);
    *full2 = fmaxf(*full2, r2);
    *perp2 = fmaxf(*perp2, r2 - along * along);
}

/* The farthest point of the core from the line through the local point c
 * along the local unit u (the rotation moves no core point faster than
 * this times the angular speed), and from c itself. The radius adds
 * nothing: along any axis the rounding adds the same radius to the support
 * at any orientation. Rounded up a little: these bound speeds. */
static void shape_reach(const mink_shape *s, v3 c, v3 u, float *perp, float *full)
{
    float p2 = 0.0f, f2 = 0.0f;
    switch (s->type) {
    case MINK_SHAPE_SPHERE: reach_point(v3_make(0, 0, 0), c, u, &p2, &f2); break;
    case MINK_SHAPE_CAPSULE:
        reach_point(v3_make(0, s->half[1], 0), c, u, &p2, &f2);
        reach_point(v3_make(0, -s->half[1], 0), c, u, &p2, &f2);
        break;
    case MINK_SHAPE_BOX:
        for (int k = 0; k < 8; ++k)
            reach_point(v3_make(k & 1 ? s->half[0] : -s->half[0], k & 2 ? s->half[1] : -s->half[1],
                                k & 4 ? s->half[2] : -s->half[2]),
                        c, u, &p2, &f2);
        break;
    default:
        for (uint32_t i = 0; i < s->count; ++i) reach_point(v3_make(s->x[i], s->y[i], s->z[i]), c, u, &p2, &f2);
        break;
    }
    const float up = 1.0f + 8.0f * FLT_EPSILON;
    *perp = sqrtf(fmaxf(p2, 0.0f)) * up;
    *full = sqrtf(f2) * up;
}

/* A pose translated by d, or swept along a mink_sweep; 0 on bad input. */
static int motion_linear(cast_motion *m, const mink_pose *p, mink_vec3 d)
{
    if (!mink_pose_is_valid(p) || !mink_vec3_finite(d) || !vec_ok(v3_add(p->p, d))) return 0;
    memset(m, 0, sizeof *m);
    m->c0 = p->p;
    m->v = d;
    m->q0 = quat_unit(p->q);
    m->axis = v3_make(1, 0, 0);
    return 1;
}

static int motion_sweep(cast_motion *m, const mink_shape *s, const mink_sweep *w)
{
    if (!mink_pose_is_valid(&w->pose0) || !mink_pose_is_valid(&w->pose1) || !vec_ok(w->center)) return 0;
    memset(m, 0, sizeof *m);
    m->center = w->center;
    m->q0 = quat_unit(w->pose0.q);
    mink_quat q1 = quat_unit(w->pose1.q);
    if (m->q0.w * q1.w + m->q0.x * q1.x + m->q0.y * q1.y + m->q0.z * q1.z < 0.0f) /* shortest arc */
        q1.w = -q1.w, q1.x = -q1.x, q1.y = -q1.y, q1.z = -q1.z;
    /* the turn over the step, in world axes: q1 = turn * q0 */
    const mink_quat q0_inverse = {-m->q0.x, -m->q0.y, -m->q0.z, m->q0.w};
    const mink_quat turn = quat_mul(q1, q0_inverse);
    const v3 u = v3_make(turn.x, turn.y, turn.z);
    const float s_half = v3_len(u);
    m->angle = 2.0f * atan2f(s_half, fabsf(turn.w));
    m->axis = s_half > 0.0f ? v3_scale(u, (turn.w < 0.0f ? -1.0f : 1.0f) / s_half) : v3_make(1, 0, 0);
    m->omega = v3_scale(m->axis, m->angle);
    m->c0 = v3_add(w->pose0.p, quat_apply(m->q0, w->center));
    m->v = v3_sub(v3_add(w->pose1.p, quat_apply(q1, w->center)), m->c0);
    if (!vec_ok(m->c0) || !vec_ok(v3_add(m->c0, m->v))) return 0;
    const mink_quat q0_conj = {-m->q0.x, -m->q0.y, -m->q0.z, m->q0.w};
    shape_reach(s, w->center, quat_apply(q0_conj, m->axis), &m->reach, &m->full_reach);
    if (!(m->angle > 0.0f)) m->reach = 0.0f; /* (full_reach: the other body may turn) */
    return 1;
}

static mink_pose pose_at(const cast_motion *m, float t)
{
    mink_pose p;
    if (m->angle > 0.0f) {
        const float h = 0.5f * t * m->angle;
        const float sh = sinf(h);
        const mink_quat turn = {m->axis.x * sh, m->axis.y * sh, m->axis.z * sh, cosf(h)};
        p.q = quat_unit(quat_mul(turn, m->q0));
    } else {
        p.q = m->q0;
    }
    p.p = v3_add(m->c0, v3_scale(m->v, t));
    if (m->center.x != 0.0f || m->center.y != 0.0f || m->center.z != 0.0f)
        p.p = v3_sub(p.p, quat_apply(p.q, m->center));
    return p;
}

static int cast_error(mink_cast_result *out)
{
    if (out) {
        memset(out, 0, sizeof *out);
        out->status = MINK_ERR_INVALID;
    }
    return MINK_ERR_INVALID;
}

/* What a kernel brings: its signed distance and its support function
 * (max over the core of d.p, local frame). */
typedef struct cast_kernel {
    cast_distance_fn distance;
    float (*support)(const mink_shape *s, v3 d);
} cast_kernel;

/* Tighter bounds for turning bodies: second order, along an axis fixed in
 * the world or turning with A or with B (a thin plank's face turns with the
 * plank: along a world axis its gap seems to close at the speed of its tips).
 * Over the next tau, a core point y (from its centre) of a body turning at
 * w moves along an axis m turning at wm by at most
 *     m.y + tau (m x (w - wm)).y + K tau^2
 * (K from bounds on the second derivatives), so with reference body R (the
 * one whose support is taken along m) and other body O the gap along m is
 * at least
 *     L(tau) = c0 + c1 tau - (k0 + k1 tau) tau^2 - (hR(dR(tau)) - dR.cR) - (hO(-dO(tau)) + dO.cO)
 * with hX the core's support along dX(tau) = dX0 + tau dX1 (local) and cX
 * its centre. L is concave in tau, so L(tau) > target certifies all of
 * [0, tau] (the first-order bound sees a turning corner move at full speed
 * towards the other body; these see it turn past). */
typedef struct gap_bound {
    const mink_shape *r, *o;
    v3 dr0, dr1, do0, do1, cr, co;
    float c0, c1, k0, k1;
} gap_bound;

/* Along the world axis n (from A towards B), both bodies turning. */
static void bound_world(gap_bound *g, const mink_shape *a, const cast_motion *ma, const m33 *ra,
                        const mink_shape *b, const cast_motion *mb, const m33 *rb, v3 rel, v3 n, float radii)
{
    const v3 nwa = v3_cross(n, ma->omega), nwb = v3_cross(n, mb->omega);
    g->r = a, g->o = b;
    g->dr0 = m33_tmul(ra, n), g->dr1 = m33_tmul(ra, nwa);
    g->do0 = m33_tmul(rb, n), g->do1 = m33_tmul(rb, nwb);
    g->cr = ma->center, g->co = mb->center;
    g->c0 = v3_dot(n, rel) - radii;
    g->c1 = v3_dot(n, v3_sub(mb->v, ma->v));
    g->k0 = 0.5f * (v3_len(nwa) * ma->angle * ma->reach + v3_len(nwb) * mb->angle * mb->reach);
    g->k1 = 0.0f;
}

/* Along m turning with body R (m from R towards O; rel = cO - cR now).
 * rr, ro: the bodies' rotations now (local -> world). */
static void bound_body(gap_bound *g, const mink_shape *r, const cast_motion *mr, const m33 *rr,
                       const mink_shape *o, const cast_motion *mo, const m33 *ro, v3 rel, v3 m, float radii)
{
    const v3 dv = v3_sub(mo->v, mr->v), dw = v3_sub(mo->omega, mr->omega);
    const float swing = v3_len(v3_cross(m, mr->omega)), spin = v3_len(dw), dvl = v3_len(dv);
    g->r = r, g->o = o;
    g->dr0 = m33_tmul(rr, m), g->dr1 = v3_make(0, 0, 0);
    g->do0 = m33_tmul(ro, m), g->do1 = m33_tmul(ro, v3_cross(m, dw));
    g->cr = mr->center, g->co = mo->center;
    g->c0 = v3_dot(m, rel) - radii;
    g->c1 = v3_dot(v3_cross(mr->omega, m), rel) + v3_dot(m, dv);
    g->k0 = 0.5f * (mr->angle * swing * v3_len(rel) + 2.0f * swing * dvl + spin * (mr->angle + spin) * mo->full_reach);
    g->k1 = 0.5f * mr->angle * swing * dvl;
}

static float bound_gap(const cast_kernel *k, const gap_bound *g, float tau)
{
    const v3 dr = v3_add(g->dr0, v3_scale(g->dr1, tau)), dO = v3_add(g->do0, v3_scale(g->do1, tau));
    const float top_r = k->support(g->r, dr) - v3_dot(dr, g->cr);
    const float bottom_o = -k->support(g->o, v3_neg(dO)) - v3_dot(dO, g->co);
    return g->c0 + tau * g->c1 - (g->k0 + g->k1 * tau) * tau * tau + bottom_o - top_r;
}

/* Whether one of the bounds certifies [0, tau]; the one that did is tried
 * first next time. */
static int certified(const cast_kernel *k, const gap_bound g[3], int *first, float target, float tau)
{
    for (int i = 0; i < 3; ++i) {
        const int b = (*first + i) % 3;
        if (bound_gap(k, &g[b], tau) > target) {
            *first = b;
            return 1;
        }
    }
    return 0;
}

/* The largest step past `safe` (certified by the first-order bound) that
 * one of the three bounds certifies, up to `limit`: doubling, then a few
 * halvings. Each bound is concave and above target at 0, so any one above
 * target at tau certifies the whole of [0, tau]. */
static float turning_step(const cast_kernel *k, const mink_shape *a, const cast_motion *ma, const mink_pose *pa,
                          const mink_shape *b, const cast_motion *mb, const mink_pose *pb, float t, v3 n,
                          float target, float safe, float limit)
{
    const float radii = a->radius + b->radius;
    const v3 rel = v3_add(v3_sub(mb->c0, ma->c0), v3_scale(v3_sub(mb->v, ma->v), t));
    const m33 ra = m33_from_quat(pa->q), rb = m33_from_quat(pb->q); /* each bound reads both */
    gap_bound g[3];
    bound_world(&g[0], a, ma, &ra, b, mb, &rb, rel, n, radii);
    bound_body(&g[1], a, ma, &ra, b, mb, &rb, rel, n, radii);
    bound_body(&g[2], b, mb, &rb, a, ma, &ra, v3_neg(rel), v3_neg(n), radii);
    if (!(bound_gap(k, &g[0], 0.0f) > target)) return safe; /* the axis is not a separating one */
    int first = 0;
    float lo = safe, hi = limit;
    for (;;) {
        const float tau = fminf(2.0f * lo, limit);
        if (!certified(k, g, &first, target, tau)) {
            hi = tau;
            break;
        }
        lo = tau;
        if (lo >= limit) return limit;
    }
    for (int i = 0; i < 3; ++i) {
        const float mid = 0.5f * (lo + hi);
        if (certified(k, g, &first, target, mid)) lo = mid;
        else hi = mid;
    }
    return lo;
}

static int cast_advance(const cast_kernel *k, const mink_shape *a, const cast_motion *ma, const mink_shape *b,
                        const cast_motion *mb, float target, mink_cache *pair_cache, mink_cast_result *out)
{
    mink_cache own;
    mink_cache *cache = pair_cache ? pair_cache : &own;
    if (!pair_cache) memset(&own, 0, sizeof own);
    memset(out, 0, sizeof *out);
    out->status = MINK_OK;
    const float size = a->extent + a->radius + b->extent + b->radius;
    const int turning = ma->angle > 0.0f || mb->angle > 0.0f;
    const v3 closing = v3_sub(ma->v, mb->v); /* A's centre's motion towards B's */
    float t = 0.0f, last_gap = INFINITY;
    for (uint32_t it = 1;; ++it) {
        const mink_pose pa = pose_at(ma, t), pb = pose_at(mb, t);
        mink_result r;
        const mink_status st = k->distance(a, &pa, b, &pb, cache, &r);
        if (st == MINK_ERR_INVALID) return cast_error(out); /* a pose past the limits mid-step */
        if (st != MINK_OK) out->status = st;
        out->iterations = it;
        const float gap = r.distance - target;
        /* the band: the target within MINK_CAST_TOL_REL of the smaller
         * shape, or what float resolves of the coordinates in play */
        const float far = fmaxf(fmaxf(fabsf(pa.p.x), fmaxf(fabsf(pa.p.y), fabsf(pa.p.z))),
                                fmaxf(fabsf(pb.p.x), fmaxf(fabsf(pb.p.y), fabsf(pb.p.z))));
        const float band = fmaxf(MINK_CAST_TOL_REL * fminf(a->extent + a->radius, b->extent + b->radius),
                                 0.5f * FLT_EPSILON * (far + size));
        float step = 0.0f;
        int hit = gap <= band;
        if (!hit) {
            const v3 n = r.normal;
            const float speed = v3_dot(n, closing) + v3_len(v3_cross(n, ma->omega)) * ma->reach +
                                v3_len(v3_cross(n, mb->omega)) * mb->reach;
            if (!(speed > 0.0f)) break; /* the gap never closes */
            step = gap / speed;
            /* the tighter bounds cost support evaluations: only once the
             * first-order steps close less than half the gap each, and for
             * the last steps (they land close to the contact: a slow one
             * stopped by the band alone would be early by band / speed) */
            if (turning && step < 1.0f - t && (gap > 0.5f * last_gap || gap < 64.0f * band))
                step = turning_step(k, a, ma, &pa, b, mb, &pb, t, n, target, step, 1.0f - t);
            last_gap = gap;
            if (!(t + step <= 1.0f)) break; /* the gap outlasts the step */
            hit = t + step == t; /* no step left in float: converged */
        }
        if (hit || it == MINK_CAST_MAX_ITERATIONS) {
            if (!hit) out->status = MINK_MAX_ITERATIONS;
            out->t = t;
            out->normal = r.normal;
            out->point_a = r.point_a;
            out->point_b = r.point_b;
            return 1;
        }
        t += step;
    }
    out->t = 1.0f;
    return 0;
}

static int cast_linear(const cast_kernel *k, const mink_shape *a, const mink_pose *pa, mink_vec3 da,
                       const mink_shape *b, const mink_pose *pb, mink_vec3 db, float target, mink_cache *cache,
                       mink_cast_result *out)
{
    cast_motion ma, mb;
    if (!out || !mink_shape_is_valid(a) || !mink_shape_is_valid(b) || !pa || !pb || !motion_linear(&ma, pa, da) ||
        !motion_linear(&mb, pb, db) || !(target >= 0.0f && target <= MINK_MAX_MAGNITUDE))
        return cast_error(out);
    return cast_advance(k, a, &ma, b, &mb, target, cache, out);
}

static int cast_sweeps(const cast_kernel *k, const mink_shape *a, const mink_sweep *sa,
                       const mink_shape *b, const mink_sweep *sb, float target, mink_cache *cache,
                       mink_cast_result *out)
{
    cast_motion ma, mb;
    if (!out || !mink_shape_is_valid(a) || !mink_shape_is_valid(b) || !sa || !sb || !motion_sweep(&ma, a, sa) ||
        !motion_sweep(&mb, b, sb) || !(target >= 0.0f && target <= MINK_MAX_MAGNITUDE))
        return cast_error(out);
    return cast_advance(k, a, &ma, b, &mb, target, cache, out);
}

static float support_simd(const mink_shape *s, v3 d) { return mink_simd_support_dot(s, v4_set(d.x, d.y, d.z, 0.0f)); }

static float support_ref(const mink_shape *s, v3 d) { return v3_dot(mink_scalar_support_local(s, d).p, d); }

static const cast_kernel simd_kernel = {mink_penetration, support_simd};
static const cast_kernel ref_kernel = {mink_ref_penetration, support_ref};

int mink_cast_ex(const mink_shape *a, const mink_pose *pa, mink_vec3 da, const mink_shape *b, const mink_pose *pb,
                 mink_vec3 db, float target, mink_cache *cache, mink_cast_result *out)
{
    return cast_linear(&simd_kernel, a, pa, da, b, pb, db, target, cache, out);
}

int mink_cast(const mink_shape *a, const mink_pose *pa, mink_vec3 da, const mink_shape *b, const mink_pose *pb,
              mink_vec3 db, float target, mink_cast_result *out)
{
    return cast_linear(&simd_kernel, a, pa, da, b, pb, db, target, NULL, out);
}

int mink_toi_ex(const mink_shape *a, const mink_sweep *sa, const mink_shape *b, const mink_sweep *sb, float target,
                mink_cache *cache, mink_cast_result *out)
{
    return cast_sweeps(&simd_kernel, a, sa, b, sb, target, cache, out);
}

int mink_toi(const mink_shape *a, const mink_sweep *sa, const mink_shape *b, const mink_sweep *sb, float target,
             mink_cast_result *out)
{
    return cast_sweeps(&simd_kernel, a, sa, b, sb, target, NULL, out);
}

int mink_ref_cast(const mink_shape *a, const mink_pose *pa, mink_vec3 da, const mink_shape *b,
                  const mink_pose *pb, mink_vec3 db, float target, mink_cast_result *out)
{
    return cast_linear(&ref_kernel, a, pa, da, b, pb, db, target, NULL, out);
}

int mink_ref_toi(const mink_shape *a, const mink_sweep *sa, const mink_shape *b, const mink_sweep *sb,
                 float target, mink_cast_result *out)
{
    return cast_sweeps(&ref_kernel, a, sa, b, sb, target, NULL, out);
}
