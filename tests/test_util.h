/* Small helpers shared by the kernel tests: a seeded RNG, random rotations,
 * double-precision vector and pose math for oracles, a 64-byte aligned hull
 * builder, the two kernels behind one table, and assertions that print the
 * values and the case that failed.
 *
 * Everything here is static inline (or a macro) so that each test, a single
 * translation unit, uses what it needs without unused-function warnings.
 * Oracles are computed in double from the float inputs the kernel sees, so
 * the only error left is the kernel's. */
#ifndef MINK_TEST_UTIL_H
#define MINK_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <float.h>
#include <math.h>
#include <cmocka.h>

#include "mink/mink.h"
#include "mink/mink_ref.h"

/* M_PI is POSIX, not C11. */
#define TEST_PI 3.14159265358979323846

/* ---------------------------------------------------------------- tolerances */

/* FORMAT.md: a single-precision kernel matches an expected distance or depth
 * within 1e-4 * L, L = max(1, largest |world coordinate| of a core point + radius). */
#define TOL_FORMAT_REL 1e-4

/* FORMAT.md: a unique normal within 2e-3 rad for separated pairs and 1e-2 rad
 * for penetrating ones; normals are not checked below 1e-3 * L (touching). */
#define TOL_SEP_ANGLE 2e-3
#define TOL_PEN_ANGLE 1e-2
#define TOL_NORMAL_CHECK_REL 1e-3

/* mink.h: within about 1e-5 of the shapes' size a signed distance may take
 * either sign (the touching band, MINK_TOUCH_REL = 5e-7 of S, plus rounding). */
#define TOL_TOUCH_REL 1e-5

/* A normal the kernel normalized in float: |n| = 1 to a few ulps. */
#define TOL_UNIT 1e-5

/* Witness consistency (point_b - point_a = distance * normal, witnesses on
 * their support planes): world-space floats carry ~6e-8 * L of rounding per
 * coordinate, and the core witnesses come from barycentric weights good to
 * ~1e-6 of the query scale; 1e-5 * L leaves an order of magnitude. */
#define TOL_WITNESS_REL 1e-5

/* ---------------------------------------------------------------- context + assertions */

/* The case being checked, printed by every failing assertion. */
static inline char *test_ctx_buf(void)
{
    static char buf[512];
    return buf;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void test_ctx(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(test_ctx_buf(), 512, fmt, ap);
    va_end(ap);
}

/* |got - want| <= tol, NaN fails. */
#define EXPECT_NEAR(got, want, tol)                                                              \
    do {                                                                                         \
        const double got_ = (double)(got), want_ = (double)(want), tol_ = (double)(tol);         \
        if (!(fabs(got_ - want_) <= tol_))                                                       \
            fail_msg("%s:%d [%s]\n  %s = %.9g\n  expected %s = %.9g\n  |diff| = %.3g > tol %.3g", \
                     __FILE__, __LINE__, test_ctx_buf(), #got, got_, #want, want_,               \
                     fabs(got_ - want_), tol_);                                                  \
    } while (0)

/* a <= b + tol, NaN fails. */
#define EXPECT_LE(a, b, tol)                                                                     \
    do {                                                                                         \
        const double a_ = (double)(a), b_ = (double)(b), tol_ = (double)(tol);                   \
        if (!(a_ <= b_ + tol_))                                                                  \
            fail_msg("%s:%d [%s]\n  expected %s <= %s (+ tol %.3g)\n  got %.9g vs %.9g",         \
                     __FILE__, __LINE__, test_ctx_buf(), #a, #b, tol_, a_, b_);                  \
    } while (0)

#define EXPECT_TRUE(cond)                                                                        \
    do {                                                                                         \
        if (!(cond)) fail_msg("%s:%d [%s]\n  failed: %s", __FILE__, __LINE__, test_ctx_buf(), #cond); \
    } while (0)

#define EXPECT_INT(got, want)                                                                    \
    do {                                                                                         \
        const long got_ = (long)(got), want_ = (long)(want);                                     \
        if (got_ != want_)                                                                       \
            fail_msg("%s:%d [%s]\n  %s = %ld, expected %ld", __FILE__, __LINE__, test_ctx_buf(), \
                     #got, got_, want_);                                                         \
    } while (0)

/* ---------------------------------------------------------------- RNG (PCG32) */

/* PCG32 (O'Neill): small, fast, and the same sequence on every platform,
 * unlike rand(). */
typedef struct test_rng { uint64_t state, inc; } test_rng;

static inline uint32_t rng_u32(test_rng *r)
{
    const uint64_t old = r->state;
    r->state = old * 6364136223846793005ull + r->inc;
    const uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    const uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

static inline test_rng rng_seed(uint64_t seed)
{
    test_rng r = {0u, (seed << 1u) | 1u};
    rng_u32(&r);
    r.state += 0x853c49e6748fea9bull ^ seed;
    rng_u32(&r);
    return r;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double rng_unit(test_rng *r)
{
    const uint64_t hi = rng_u32(r) >> 5, lo = rng_u32(r) >> 6;
    return (double)(hi * 67108864ull + lo) * (1.0 / 9007199254740992.0);
}

static inline double rng_range(test_rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

static inline uint32_t rng_below(test_rng *r, uint32_t n) { return (uint32_t)(rng_unit(r) * n); }

/* ---------------------------------------------------------------- double vectors */

typedef struct dv3 { double x, y, z; } dv3;

static inline dv3 dv(double x, double y, double z) { dv3 r = {x, y, z}; return r; }
static inline dv3 dv_add(dv3 a, dv3 b) { return dv(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline dv3 dv_sub(dv3 a, dv3 b) { return dv(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline dv3 dv_scale(dv3 a, double s) { return dv(a.x * s, a.y * s, a.z * s); }
static inline double dv_dot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline double dv_len(dv3 a) { return sqrt(dv_dot(a, a)); }
static inline dv3 dv_norm(dv3 a) { return dv_scale(a, 1.0 / dv_len(a)); }
static inline dv3 dv_cross(dv3 a, dv3 b)
{
    return dv(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline dv3 dv_of(mink_vec3 v) { return dv(v.x, v.y, v.z); }
static inline mink_vec3 vec3_of(dv3 v)
{
    mink_vec3 r = {(float)v.x, (float)v.y, (float)v.z};
    return r;
}
static inline double dv_comp(dv3 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }
static inline dv3 dv_axis(int i) { return dv(i == 0, i == 1, i == 2); }
/* Angle between two nonzero vectors, robust near 0 (atan2 of |cross|, dot). */
static inline double dv_angle(dv3 a, dv3 b) { return atan2(dv_len(dv_cross(a, b)), dv_dot(a, b)); }

/* Unit vector uniform on the sphere (rejection from the cube). */
static inline dv3 rng_dir(test_rng *r)
{
    for (;;) {
        const dv3 p = dv(rng_range(r, -1, 1), rng_range(r, -1, 1), rng_range(r, -1, 1));
        const double l = dv_len(p);
        if (l > 1e-3 && l <= 1.0) return dv_scale(p, 1.0 / l);
    }
}

static inline dv3 rng_box(test_rng *r, double h)
{
    return dv(rng_range(r, -h, h), rng_range(r, -h, h), rng_range(r, -h, h));
}

/* ---------------------------------------------------------------- rotations and poses */

static inline mink_quat quat_identity(void)
{
    mink_quat q = {0, 0, 0, 1};
    return q;
}

/* Rotation by `angle` radians about `axis` (normalized here). */
static inline mink_quat quat_axis_angle(dv3 axis, double angle)
{
    const dv3 u = dv_norm(axis);
    const double s = sin(0.5 * angle);
    mink_quat q = {(float)(u.x * s), (float)(u.y * s), (float)(u.z * s), (float)cos(0.5 * angle)};
    return q;
}

/* Uniform random rotation (Shoemake 1992). */
static inline mink_quat rng_quat(test_rng *r)
{
    const double u1 = rng_unit(r), u2 = 2.0 * TEST_PI * rng_unit(r), u3 = 2.0 * TEST_PI * rng_unit(r);
    const double a = sqrt(1.0 - u1), b = sqrt(u1);
    mink_quat q = {(float)(a * sin(u2)), (float)(a * cos(u2)), (float)(b * sin(u3)), (float)(b * cos(u3))};
    return q;
}

/* Hamilton product a * b (apply b first). */
static inline mink_quat quat_mul(mink_quat a, mink_quat b)
{
    const double ax = a.x, ay = a.y, az = a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
    mink_quat r = {(float)(aw * bx + ax * bw + ay * bz - az * by), (float)(aw * by - ax * bz + ay * bw + az * bx),
                   (float)(aw * bz + ax * by - ay * bx + az * bw), (float)(aw * bw - ax * bx - ay * by - az * bz)};
    return r;
}

static inline mink_pose pose_make(dv3 p, mink_quat q)
{
    mink_pose r;
    r.p = vec3_of(p);
    r.q = q;
    return r;
}

/* R(q) v in double, with q normalized in double (the kernel accepts and
 * normalizes quaternions within 1e-3 of unit). */
static inline dv3 quat_rotate(mink_quat qf, dv3 v)
{
    const double n = sqrt((double)qf.x * qf.x + (double)qf.y * qf.y + (double)qf.z * qf.z + (double)qf.w * qf.w);
    const dv3 u = dv(qf.x / n, qf.y / n, qf.z / n);
    const double w = qf.w / n;
    /* v + 2w (u x v) + 2 u x (u x v) */
    const dv3 t = dv_scale(dv_cross(u, v), 2.0);
    return dv_add(dv_add(v, dv_scale(t, w)), dv_cross(u, t));
}

static inline dv3 quat_unrotate(mink_quat q, dv3 v)
{
    mink_quat c = {-q.x, -q.y, -q.z, q.w};
    return quat_rotate(c, v);
}

/* Local -> world and back, in double. */
static inline dv3 pose_apply(const mink_pose *p, dv3 local) { return dv_add(quat_rotate(p->q, local), dv_of(p->p)); }
static inline dv3 pose_unapply(const mink_pose *p, dv3 world) { return quat_unrotate(p->q, dv_sub(world, dv_of(p->p))); }
static inline dv3 pose_axis(const mink_pose *p, int i) { return quat_rotate(p->q, dv_axis(i)); }

/* ---------------------------------------------------------------- shapes in double */

/* Vertices of a shape's core: its support is attained at one of them. */
static inline uint32_t core_vertex_count(const mink_shape *s)
{
    switch (s->type) {
    case MINK_SHAPE_CAPSULE: return 2;
    case MINK_SHAPE_BOX: return 8;
    case MINK_SHAPE_HULL: return s->count;
    default: return 1;
    }
}

/* Core vertex i in the shape's local frame. Box corners are numbered by
 * bits zyx (bit set = + side), capsule ends 0 = -h, 1 = +h. */
static inline dv3 core_vertex(const mink_shape *s, uint32_t i)
{
    switch (s->type) {
    case MINK_SHAPE_CAPSULE: return dv(0, (i & 1u) ? s->half[1] : -(double)s->half[1], 0);
    case MINK_SHAPE_BOX:
        return dv((i & 1u) ? s->half[0] : -(double)s->half[0], (i & 2u) ? s->half[1] : -(double)s->half[1],
                  (i & 4u) ? s->half[2] : -(double)s->half[2]);
    case MINK_SHAPE_HULL: return dv(s->x[i], s->y[i], s->z[i]);
    default: return dv(0, 0, 0);
    }
}

/* max over the rounded shape of d . x, world space, double. */
static inline double shape_max(const mink_shape *s, const mink_pose *p, dv3 d)
{
    const dv3 dl = quat_unrotate(p->q, d);
    double best = -HUGE_VAL;
    for (uint32_t i = 0, n = core_vertex_count(s); i < n; ++i) {
        const double t = dv_dot(dl, core_vertex(s, i));
        if (t > best) best = t;
    }
    return best + dv_dot(d, dv_of(p->p)) + s->radius * dv_len(d);
}

static inline double shape_min(const mink_shape *s, const mink_pose *p, dv3 d) { return -shape_max(s, p, dv_scale(d, -1.0)); }

/* Gap between A and B along unit n: min over B minus max over A. Positive:
 * n separates them by that much; negative: moving B by -gap * n makes them
 * touch along n (the depth along n). */
static inline double gap_along(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                               const mink_pose *pb, dv3 n)
{
    return shape_min(b, pb, n) - shape_max(a, pa, n);
}

/* FORMAT.md's L: max(1, largest |world coordinate| of a core point + radius). */
static inline double shape_L(const mink_shape *s, const mink_pose *p)
{
    double m = 0.0;
    for (uint32_t i = 0, n = core_vertex_count(s); i < n; ++i) {
        const dv3 w = pose_apply(p, core_vertex(s, i));
        const double c = fmax(fabs(w.x), fmax(fabs(w.y), fabs(w.z))) + s->radius;
        if (c > m) m = c;
    }
    return m;
}

static inline double pair_L(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb)
{
    return fmax(1.0, fmax(shape_L(a, pa), shape_L(b, pb)));
}

/* Closest point of the segment [p, q] to x. */
static inline dv3 closest_on_segment(dv3 p, dv3 q, dv3 x)
{
    const dv3 e = dv_sub(q, p);
    const double ee = dv_dot(e, e);
    double t = ee > 0.0 ? dv_dot(dv_sub(x, p), e) / ee : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return dv_add(p, dv_scale(e, t));
}

/* Distance between segments [p1,q1] and [p2,q2] (Ericson, Real-Time
 * Collision Detection 5.1.9, in double, with the parallel case handled). */
static inline double segment_segment_distance(dv3 p1, dv3 q1, dv3 p2, dv3 q2)
{
    const dv3 d1 = dv_sub(q1, p1), d2 = dv_sub(q2, p2), r = dv_sub(p1, p2);
    const double a = dv_dot(d1, d1), e = dv_dot(d2, d2), f = dv_dot(d2, r);
    double s, t;
    if (a <= 1e-300 && e <= 1e-300) return dv_len(r);
    if (a <= 1e-300) {
        s = 0.0;
        t = fmin(fmax(f / e, 0.0), 1.0);
    } else {
        const double c = dv_dot(d1, r);
        if (e <= 1e-300) {
            t = 0.0;
            s = fmin(fmax(-c / a, 0.0), 1.0);
        } else {
            const double b = dv_dot(d1, d2), denom = a * e - b * b;
            s = denom > 1e-14 * a * e ? fmin(fmax((b * f - c * e) / denom, 0.0), 1.0) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = fmin(fmax(-c / a, 0.0), 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = fmin(fmax((b - c) / a, 0.0), 1.0);
            }
        }
    }
    /* the parallel branch picks s = 0; polish with the exact point-segment
     * distances of all four endpoints so parallel overlaps are exact too */
    double best = dv_len(dv_sub(dv_add(p1, dv_scale(d1, s)), dv_add(p2, dv_scale(d2, t))));
    best = fmin(best, dv_len(dv_sub(p1, closest_on_segment(p2, q2, p1))));
    best = fmin(best, dv_len(dv_sub(q1, closest_on_segment(p2, q2, q1))));
    best = fmin(best, dv_len(dv_sub(p2, closest_on_segment(p1, q1, p2))));
    best = fmin(best, dv_len(dv_sub(q2, closest_on_segment(p1, q1, q2))));
    return best;
}

/* Signed distance from local point p to the box [-h, h] (negative inside:
 * minus the distance to the nearest face). */
static inline double box_signed_distance(dv3 p, const double h[3])
{
    const double qx = fabs(p.x) - h[0], qy = fabs(p.y) - h[1], qz = fabs(p.z) - h[2];
    const double ox = fmax(qx, 0.0), oy = fmax(qy, 0.0), oz = fmax(qz, 0.0);
    const double outside = sqrt(ox * ox + oy * oy + oz * oz);
    const double inside = fmin(fmax(qx, fmax(qy, qz)), 0.0);
    return outside + inside;
}

/* Distance from world point x to the shape's core (0 inside); -1 when there
 * is no closed form here (hulls). */
static inline double core_distance(const mink_shape *s, const mink_pose *p, dv3 x)
{
    const dv3 l = pose_unapply(p, x);
    switch (s->type) {
    case MINK_SHAPE_SPHERE: return dv_len(l);
    case MINK_SHAPE_CAPSULE: return dv_len(dv_sub(l, closest_on_segment(dv(0, -s->half[1], 0), dv(0, s->half[1], 0), l)));
    case MINK_SHAPE_BOX: {
        const double h[3] = {s->half[0], s->half[1], s->half[2]};
        return fmax(box_signed_distance(l, h), 0.0);
    }
    default: return -1.0;
    }
}

/* ---------------------------------------------------------------- SAT oracle for boxes */

/* An oriented box in world space (double). */
typedef struct obb { dv3 c; dv3 axis[3]; double h[3]; } obb;

/* The core of a box shape, or of a hull built from a box's corners
 * (half extents h, in the hull's local axes). */
static inline obb obb_make(const mink_pose *p, double hx, double hy, double hz)
{
    obb o;
    o.c = dv_of(p->p);
    for (int i = 0; i < 3; ++i) o.axis[i] = pose_axis(p, i);
    o.h[0] = hx;
    o.h[1] = hy;
    o.h[2] = hz;
    return o;
}

static inline obb obb_of_box(const mink_shape *s, const mink_pose *p) { return obb_make(p, s->half[0], s->half[1], s->half[2]); }

static inline double obb_radius(const obb *o, dv3 n)
{
    return o->h[0] * fabs(dv_dot(n, o->axis[0])) + o->h[1] * fabs(dv_dot(n, o->axis[1])) +
           o->h[2] * fabs(dv_dot(n, o->axis[2]));
}

typedef struct sat_result {
    double value;   /* > 0: largest separation over the axes (a lower bound on
                       the distance; separated iff > 0); <= 0: -depth, exact */
    dv3 normal;     /* the axis of `value`, from A towards B */
    int tie;        /* another axis, more than TOL_PEN_ANGLE away, is within
                       tie_tol of the same depth: the normal is not unique */
} sat_result;

/* Separating-axis test over the 15 axes of two boxes in double. Overlapping
 * boxes: the minimum overlap over face normals and edge-cross axes is the
 * exact penetration depth (the Minkowski difference's faces have those
 * normals). Separated: the best axis gap bounds the distance from below. */
static inline sat_result sat_obb(const obb *A, const obb *B, double tie_tol)
{
    dv3 axes[15];
    int n = 0;
    for (int i = 0; i < 3; ++i) axes[n++] = A->axis[i];
    for (int i = 0; i < 3; ++i) axes[n++] = B->axis[i];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const dv3 c = dv_cross(A->axis[i], B->axis[j]);
            if (dv_len(c) > 1e-9) axes[n++] = dv_norm(c);
        }
    const dv3 t = dv_sub(B->c, A->c);
    double over[15];
    dv3 dir[15];
    int best = 0;
    for (int k = 0; k < n; ++k) {
        const double s = dv_dot(t, axes[k]);
        over[k] = obb_radius(A, axes[k]) + obb_radius(B, axes[k]) - fabs(s);
        dir[k] = s >= 0.0 ? axes[k] : dv_scale(axes[k], -1.0);
        if (over[k] < over[best]) best = k;
    }
    sat_result r;
    r.value = -over[best];
    r.normal = dir[best];
    r.tie = 0;
    for (int k = 0; k < n; ++k) {
        if (over[k] > over[best] + tie_tol) continue;
        /* the same axis with either sign ties when the centers align */
        const double ang = dv_angle(dir[k], dir[best]);
        const double ang_flip = dv_angle(dv_scale(dir[k], -1.0), dir[best]);
        if (ang > TOL_PEN_ANGLE) r.tie = 1;
        if (fabs(dv_dot(t, axes[k])) <= tie_tol && ang_flip > TOL_PEN_ANGLE) r.tie = 1;
    }
    return r;
}

/* ---------------------------------------------------------------- hulls */

/* 16 MiB of 64-byte aligned static storage for hulls, bump-allocated; a
 * test resets it when it is done with its hulls. */
#define TEST_ARENA_BYTES (1u << 24)

typedef struct test_arena {
    _Alignas(MINK_HULL_ALIGN) unsigned char buf[TEST_ARENA_BYTES];
    size_t used;
} test_arena;

static inline test_arena *test_arena_get(void)
{
    static test_arena arena;
    return &arena;
}

static inline void test_arena_reset(void) { test_arena_get()->used = 0; }

static inline void *test_arena_alloc(size_t bytes)
{
    test_arena *a = test_arena_get();
    const size_t start = (a->used + (MINK_HULL_ALIGN - 1)) / MINK_HULL_ALIGN * MINK_HULL_ALIGN;
    if (bytes > TEST_ARENA_BYTES - start) fail_msg("test arena exhausted (%zu bytes asked)", bytes);
    a->used = start + bytes;
    return a->buf + start;
}

/* A hull in caller memory; fails the test unless mink_hull_init accepts it. */
static inline mink_shape test_hull_in(void *mem, size_t bytes, const float *xyz, uint32_t n, float r)
{
    mink_shape s;
    const mink_status st = mink_hull_init(&s, mem, bytes, xyz, n, r);
    if (st != MINK_OK) fail_msg("mink_hull_init(n = %u) failed: %d", n, (int)st);
    return s;
}

/* A hull in the static arena, exactly mink_hull_bytes(n) bytes. */
static inline mink_shape test_hull(const float *xyz, uint32_t n, float r)
{
    const size_t bytes = mink_hull_bytes(n);
    return test_hull_in(test_arena_alloc(bytes), bytes, xyz, n, r);
}

/* n points spread evenly on the sphere of radius R (Fibonacci lattice). */
static inline void points_on_sphere(float *xyz, uint32_t n, double R)
{
    const double golden = TEST_PI * (3.0 - sqrt(5.0));
    for (uint32_t i = 0; i < n; ++i) {
        const double y = 1.0 - 2.0 * (i + 0.5) / n, rad = sqrt(1.0 - y * y), phi = golden * i;
        xyz[3 * i + 0] = (float)(R * rad * cos(phi));
        xyz[3 * i + 1] = (float)(R * y);
        xyz[3 * i + 2] = (float)(R * rad * sin(phi));
    }
}

/* The 8 corners of the box [-h, h] (numbered like box corners, bits zyx). */
static inline void box_corners(float *xyz, double hx, double hy, double hz)
{
    for (uint32_t i = 0; i < 8; ++i) {
        xyz[3 * i + 0] = (float)((i & 1u) ? hx : -hx);
        xyz[3 * i + 1] = (float)((i & 2u) ? hy : -hy);
        xyz[3 * i + 2] = (float)((i & 4u) ? hz : -hz);
    }
}

/* ---------------------------------------------------------------- the two kernels */

typedef int (*intersect_fn)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *);
typedef int (*intersect_ex_fn)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                               mink_cache *, mink_result *);
typedef mink_status (*query_fn)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                                mink_cache *, mink_result *);

/* One implementation of the public queries: the scalar reference or the
 * SIMD kernel. Every query test runs on both; they must agree with the
 * oracle, and so with each other. */
/* Closest points of segments [p0, p1] and [q0, q1] in double (Ericson,
 * Real-Time Collision Detection 5.1.9); their distance, and the unit
 * direction from the first to the second in *n. */
static inline double segment_distance(dv3 p0, dv3 p1, dv3 q0, dv3 q1, dv3 *n)
{
    const dv3 d1 = dv_sub(p1, p0), d2 = dv_sub(q1, q0), r = dv_sub(p0, q0);
    const double a = dv_dot(d1, d1), e = dv_dot(d2, d2), f = dv_dot(d2, r), c = dv_dot(d1, r), b = dv_dot(d1, d2);
    const double den = a * e - b * b;
    double s = den > 0.0 ? fmin(fmax((b * f - c * e) / den, 0.0), 1.0) : 0.0;
    double t = (b * s + f) / e;
    if (t < 0.0) t = 0.0, s = fmin(fmax(-c / a, 0.0), 1.0);
    else if (t > 1.0) t = 1.0, s = fmin(fmax((b - c) / a, 0.0), 1.0);
    const dv3 v = dv_sub(dv_add(q0, dv_scale(d2, t)), dv_add(p0, dv_scale(d1, s)));
    *n = dv_norm(v);
    return dv_len(v);
}

/* The distance of two capsules (cores along local y) in double, and the
 * unit normal from A to B in *n. */
static inline double capsule_distance(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                      const mink_pose *pb, dv3 *n)
{
    const dv3 ya = quat_rotate(pa->q, dv(0, a->half[1], 0)), yb = quat_rotate(pb->q, dv(0, b->half[1], 0));
    return segment_distance(dv_sub(dv_of(pa->p), ya), dv_add(dv_of(pa->p), ya), dv_sub(dv_of(pb->p), yb),
                            dv_add(dv_of(pb->p), yb), n) -
           a->radius - b->radius;
}

/* Capsules side by side: A (half height CAPSULES_SIDE_HALF_A) along y
 * turned about z, B (CAPSULES_SIDE_HALF_B) turned from it about A's x by
 * 1e-6 to 1e-1 rad (every third pair exactly parallel), beside it 1e-5 to
 * 1e-3 beyond contact (radii CAPSULES_SIDE_RADIUS), near the origin: where
 * the distance is flat along the pair, and a float line parameter, or a
 * GJK that stops on its bounds, leaves the normal free to tilt. */
#define CAPSULES_SIDE_RADIUS 1e-4f
#define CAPSULES_SIDE_HALF_A 0.02f
#define CAPSULES_SIDE_HALF_B 0.3f
static inline void capsules_side_by_side(test_rng *r, size_t i, mink_pose *pa, mink_pose *pb)
{
    const double yaw = rng_range(r, 0.0, 6.283185307179586);
    const double tilt = i % 3 == 0 ? 0.0 : pow(10.0, rng_range(r, -6.0, -1.0));
    const mink_quat qa = {0.0f, 0.0f, (float)sin(0.5 * yaw), (float)cos(0.5 * yaw)};
    const double sx = sin(0.5 * tilt), cx = cos(0.5 * tilt);
    const mink_quat qb = {(float)(qa.w * sx), (float)(qa.z * sx), qa.z * (float)cx, qa.w * (float)cx};
    const double gap = pow(10.0, rng_range(r, -5.0, -3.0)) + 2.0 * CAPSULES_SIDE_RADIUS;
    const double turn = rng_range(r, 0.0, 6.283185307179586);
    const dv3 local = dv(gap * cos(turn), rng_range(r, -0.05, 0.05), gap * sin(turn));
    const dv3 off = dv_scale(dv(1, -1, 1), rng_range(r, 0.3, 3.0)), at = dv_add(off, quat_rotate(qa, local));
    *pa = (mink_pose){{(float)off.x, (float)off.y, (float)off.z}, qa};
    *pb = (mink_pose){{(float)at.x, (float)at.y, (float)at.z}, qb};
}

typedef struct test_kernel {
    const char *name;
    intersect_fn intersect;
    intersect_ex_fn intersect_ex;
    query_fn distance;
    query_fn penetration;
} test_kernel;

#define TEST_KERNEL_COUNT 2

static inline const test_kernel *test_kernel_get(int i)
{
    static const test_kernel kernels[TEST_KERNEL_COUNT] = {
        {"ref", mink_ref_intersect, mink_ref_intersect_ex, mink_ref_distance, mink_ref_penetration},
        {"simd", mink_intersect, mink_intersect_ex, mink_distance, mink_penetration},
    };
    return &kernels[i];
}

/* ---------------------------------------------------------------- result checks */

static inline int result_finite(const mink_result *r)
{
    return isfinite(r->distance) && isfinite(r->normal.x) && isfinite(r->normal.y) && isfinite(r->normal.z) &&
           isfinite(r->point_a.x) && isfinite(r->point_a.y) && isfinite(r->point_a.z) && isfinite(r->point_b.x) &&
           isfinite(r->point_b.y) && isfinite(r->point_b.z);
}

/* Invariants of every distance or penetration result: finite, unit normal,
 * point_b - point_a = distance * normal. */
static inline void check_result_basic(const mink_result *r, double L)
{
    EXPECT_TRUE(result_finite(r));
    EXPECT_NEAR(dv_len(dv_of(r->normal)), 1.0, TOL_UNIT);
    const dv3 diff = dv_sub(dv_of(r->point_b), dv_of(r->point_a));
    const dv3 want = dv_scale(dv_of(r->normal), r->distance);
    EXPECT_NEAR(dv_len(dv_sub(diff, want)), 0.0, TOL_WITNESS_REL * L);
}

/* The support certificate of a signed distance: along the reported normal,
 * B's minimum minus A's maximum is the reported distance (separated: the
 * normal separates by exactly the distance; penetrating: moving B by
 * depth * normal makes them touch), and each witness lies on its shape's
 * supporting plane. With witnesses on the shapes this proves the distance
 * exact; for depth it proves "touching after the move".
 * `theta` is the normal's allowed tilt: tilting a plane that supports a face
 * moves the support value by up to theta times the shapes' width. */
static inline void check_result_support(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                        const mink_pose *pb, const mink_result *r, double L, double theta)
{
    const dv3 n = dv_norm(dv_of(r->normal));
    const double width = 2.0 * (a->extent + a->radius + b->extent + b->radius);
    const double tol = TOL_WITNESS_REL * L + theta * width;
    EXPECT_NEAR(gap_along(a, pa, b, pb, n), r->distance, tol);
    EXPECT_NEAR(dv_dot(n, dv_of(r->point_a)), shape_max(a, pa, n), tol);
    EXPECT_NEAR(dv_dot(n, dv_of(r->point_b)), shape_min(b, pb, n), tol);
}

/* A witness on a rounded primitive's surface: its distance to the core is
 * the radius (skipped for hulls: no closed form). */
static inline void check_on_surface(const mink_shape *s, const mink_pose *p, mink_vec3 x, double L)
{
    const double d = core_distance(s, p, dv_of(x));
    if (d < 0.0) return;
    EXPECT_NEAR(d, s->radius, TOL_WITNESS_REL * L);
}

/* A point inside (or on) a rounded primitive. */
static inline void check_inside(const mink_shape *s, const mink_pose *p, mink_vec3 x, double L)
{
    const double d = core_distance(s, p, dv_of(x));
    if (d < 0.0) return;
    EXPECT_LE(d, s->radius, TOL_WITNESS_REL * L);
}

#endif /* MINK_TEST_UTIL_H */
