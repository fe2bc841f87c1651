/* Continuous collision for both kernels: linear casts and times of impact
 * by conservative advancement on the kernel's signed distance.
 *
 * At time t the distance query gives d and the normal n. Along that fixed
 * axis the gap between the shapes, a lower bound on their distance at
 * every later time, closes no faster than
 *     speed = n.(vA - vB) + |n x wA| reachA + |n x wB| reachB
 * (v the centre's velocity, w the angular velocity, reach the farthest any
 * point of the shape gets from the rotation axis through its centre), so
 * the pair stays farther apart than target until t + (d - target) / speed:
 * that step is safe, and the t reported is never after the first contact.
 * Translations only (mink_cast) make it Newton's method on a convex
 * function of t: a few steps, exact on faces. The pair's cache carries
 * GJK's simplex from one step to the next, so each step after the first is
 * a warm query. */
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "ref/ref_math.h"
#include "shape.h"
#include "tolerance.h"

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
    float reach;    /* farthest point of the shape from the axis through c    */
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

/* Distance of a local point from the line through `c` along unit `u`. */
static float off_axis(v3 p, v3 c, v3 u)
{
    const v3 r = v3_sub(p, c);
    return v3_len(v3_sub(r, v3_scale(u, v3_dot(r, u))));
}

/* The farthest point of the shape (radius included) from the line through
 * the local point c along the local unit u: the rotation moves no point
 * faster than this times the angular speed. */
static float shape_reach(const mink_shape *s, v3 c, v3 u)
{
    float m = 0.0f;
    switch (s->type) {
    case MINK_SHAPE_SPHERE: m = off_axis(v3_make(0, 0, 0), c, u); break;
    case MINK_SHAPE_CAPSULE:
        m = fmaxf(off_axis(v3_make(0, s->half[1], 0), c, u), off_axis(v3_make(0, -s->half[1], 0), c, u));
        break;
    case MINK_SHAPE_BOX:
        for (int k = 0; k < 8; ++k) {
            const v3 p = v3_make(k & 1 ? s->half[0] : -s->half[0], k & 2 ? s->half[1] : -s->half[1],
                                 k & 4 ? s->half[2] : -s->half[2]);
            m = fmaxf(m, off_axis(p, c, u));
        }
        break;
    default:
        for (uint32_t i = 0; i < s->count; ++i) m = fmaxf(m, off_axis(v3_make(s->x[i], s->y[i], s->z[i]), c, u));
        break;
    }
    return m + s->radius;
}

/* A pose translated by d, or swept along a mink_sweep; 0 on bad input. */
static int motion_linear(cast_motion *m, const mink_pose *p, mink_vec3 d)
{
    if (!mink_pose_is_valid(p) || !vec_ok(d) || !vec_ok(v3_add(p->p, d))) return 0;
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
    if (m->angle > 0.0f) {
        const mink_quat q0_conj = {-m->q0.x, -m->q0.y, -m->q0.z, m->q0.w};
        m->reach = shape_reach(s, w->center, quat_apply(q0_conj, m->axis));
    }
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

static int cast_advance(cast_distance_fn distance, const mink_shape *a, const cast_motion *ma,
                        const mink_shape *b, const cast_motion *mb, float target, mink_cast_result *out)
{
    mink_cache cache;
    memset(&cache, 0, sizeof cache);
    memset(out, 0, sizeof *out);
    out->status = MINK_OK;
    const float size = a->extent + a->radius + b->extent + b->radius;
    const v3 closing = v3_sub(ma->v, mb->v); /* A's centre's motion towards B's */
    float t = 0.0f;
    for (uint32_t it = 1;; ++it) {
        const mink_pose pa = pose_at(ma, t), pb = pose_at(mb, t);
        mink_result r;
        const mink_status st = distance(a, &pa, b, &pb, &cache, &r);
        if (st == MINK_ERR_INVALID) return cast_error(out); /* a pose past the limits mid-step */
        if (st != MINK_OK) out->status = st;
        out->iterations = it;
        const float gap = r.distance - target;
        const float scale = size + v3_len(v3_sub(pb.p, pa.p));
        if (gap <= MINK_CAST_TOL_REL * scale || it == MINK_CAST_MAX_ITERATIONS) {
            if (gap > MINK_CAST_TOL_REL * scale) out->status = MINK_MAX_ITERATIONS;
            out->t = t;
            out->normal = r.normal;
            out->point_a = r.point_a;
            out->point_b = r.point_b;
            return 1;
        }
        const v3 n = r.normal;
        const float speed = v3_dot(n, closing) + v3_len(v3_cross(n, ma->omega)) * ma->reach +
                            v3_len(v3_cross(n, mb->omega)) * mb->reach;
        const float next = t + gap / speed;
        if (!(speed > 0.0f) || !(next <= 1.0f)) break; /* the gap outlasts the step */
        t = next;
    }
    out->t = 1.0f;
    return 0;
}

static int cast_linear(cast_distance_fn distance, const mink_shape *a, const mink_pose *pa, mink_vec3 da,
                       const mink_shape *b, const mink_pose *pb, mink_vec3 db, float target,
                       mink_cast_result *out)
{
    cast_motion ma, mb;
    if (!out || !mink_shape_is_valid(a) || !mink_shape_is_valid(b) || !pa || !pb || !motion_linear(&ma, pa, da) ||
        !motion_linear(&mb, pb, db) || !(target >= 0.0f && target <= MINK_MAX_MAGNITUDE))
        return cast_error(out);
    return cast_advance(distance, a, &ma, b, &mb, target, out);
}

static int cast_sweeps(cast_distance_fn distance, const mink_shape *a, const mink_sweep *sa,
                       const mink_shape *b, const mink_sweep *sb, float target, mink_cast_result *out)
{
    cast_motion ma, mb;
    if (!out || !mink_shape_is_valid(a) || !mink_shape_is_valid(b) || !sa || !sb || !motion_sweep(&ma, a, sa) ||
        !motion_sweep(&mb, b, sb) || !(target >= 0.0f && target <= MINK_MAX_MAGNITUDE))
        return cast_error(out);
    return cast_advance(distance, a, &ma, b, &mb, target, out);
}

int mink_cast(const mink_shape *a, const mink_pose *pa, mink_vec3 da, const mink_shape *b, const mink_pose *pb,
              mink_vec3 db, float target, mink_cast_result *out)
{
    return cast_linear(mink_penetration, a, pa, da, b, pb, db, target, out);
}

int mink_toi(const mink_shape *a, const mink_sweep *sa, const mink_shape *b, const mink_sweep *sb, float target,
             mink_cast_result *out)
{
    return cast_sweeps(mink_penetration, a, sa, b, sb, target, out);
}

int mink_ref_cast(const mink_shape *a, const mink_pose *pa, mink_vec3 da, const mink_shape *b,
                  const mink_pose *pb, mink_vec3 db, float target, mink_cast_result *out)
{
    return cast_linear(mink_ref_penetration, a, pa, da, b, pb, db, target, out);
}

int mink_ref_toi(const mink_shape *a, const mink_sweep *sa, const mink_shape *b, const mink_sweep *sb,
                 float target, mink_cast_result *out)
{
    return cast_sweeps(mink_ref_penetration, a, sa, b, sb, target, out);
}
