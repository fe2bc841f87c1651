/* Scalar 3-vector and rotation math for the reference kernel. */
#ifndef MINK_REF_MATH_H
#define MINK_REF_MATH_H

#include "mink/mink.h"
#include <math.h>

typedef mink_vec3 v3;

static inline v3 v3_make(float x, float y, float z) { v3 r = {x, y, z}; return r; }
static inline v3 v3_add(v3 a, v3 b) { return v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline v3 v3_sub(v3 a, v3 b) { return v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline v3 v3_scale(v3 a, float s) { return v3_make(a.x * s, a.y * s, a.z * s); }
static inline v3 v3_neg(v3 a) { return v3_make(-a.x, -a.y, -a.z); }
static inline float v3_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline float v3_len2(v3 a) { return v3_dot(a, a); }
static inline float v3_len(v3 a) { return sqrtf(v3_dot(a, a)); }
static inline v3 v3_cross(v3 a, v3 b)
{
    return v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline int v3_equal(v3 a, v3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* A 3x3 rotation, rows r[0..2]: out = R * v. */
typedef struct m33 { v3 r[3]; } m33;

static inline v3 m33_mul(const m33 *m, v3 v)
{
    return v3_make(v3_dot(m->r[0], v), v3_dot(m->r[1], v), v3_dot(m->r[2], v));
}
/* R^T * v */
static inline v3 m33_tmul(const m33 *m, v3 v)
{
    return v3_add(v3_add(v3_scale(m->r[0], v.x), v3_scale(m->r[1], v.y)), v3_scale(m->r[2], v.z));
}

static inline m33 m33_from_quat(mink_quat q)
{
    const float x = q.x, y = q.y, z = q.z, w = q.w;
    m33 m;
    m.r[0] = v3_make(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y));
    m.r[1] = v3_make(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x));
    m.r[2] = v3_make(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y));
    return m;
}

/* conj(a) * b: the rotation of b expressed in a's frame. */
static inline mink_quat quat_conj_mul(mink_quat a, mink_quat b)
{
    mink_quat r;
    r.w = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    r.x = a.w * b.x - a.x * b.w - a.y * b.z + a.z * b.y;
    r.y = a.w * b.y + a.x * b.z - a.y * b.w - a.z * b.x;
    r.z = a.w * b.z - a.x * b.y + a.y * b.x - a.z * b.w;
    return r;
}

#endif
