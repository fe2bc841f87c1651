/* Shape constructors, input validation and the data-oriented hull layout:
 * x[], y[], z[] arrays, each padded to a multiple of MINK_HULL_PAD floats with
 * copies of vertex 0 (a padding lane can then tie but never beat a real
 * vertex), each starting on a 64-byte boundary. */
#include "shape.h"
#include "tolerance.h"

#include <math.h>
#include <string.h>

static int finite_nonneg(float v) { return isfinite(v) && v >= 0.0f; }

int mink_vec3_finite(mink_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static mink_shape invalid_shape(void)
{
    mink_shape s;
    memset(&s, 0, sizeof s);
    s.type = MINK_SHAPE_INVALID;
    return s;
}

mink_shape mink_sphere(float r)
{
    if (!finite_nonneg(r)) return invalid_shape();
    mink_shape s = invalid_shape();
    s.type = MINK_SHAPE_SPHERE;
    s.radius = r;
    return s;
}

mink_shape mink_capsule(float r, float half_height)
{
    if (!finite_nonneg(r) || !finite_nonneg(half_height)) return invalid_shape();
    mink_shape s = invalid_shape();
    s.type = MINK_SHAPE_CAPSULE;
    s.radius = r;
    s.half[1] = half_height;
    s.extent = half_height;
    return s;
}

mink_shape mink_box(float hx, float hy, float hz, float r)
{
    if (!finite_nonneg(hx) || !finite_nonneg(hy) || !finite_nonneg(hz) || !finite_nonneg(r))
        return invalid_shape();
    mink_shape s = invalid_shape();
    s.type = MINK_SHAPE_BOX;
    s.radius = r;
    s.half[0] = hx;
    s.half[1] = hy;
    s.half[2] = hz;
    s.extent = sqrtf(hx * hx + hy * hy + hz * hz);
    if (!isfinite(s.extent)) return invalid_shape();
    return s;
}

static uint32_t padded_count(uint32_t n)
{
    return (n + (MINK_HULL_PAD - 1)) / MINK_HULL_PAD * MINK_HULL_PAD;
}

size_t mink_hull_bytes(uint32_t n)
{
    if (n == 0 || n > MINK_HULL_MAX_POINTS) return 0;
    return (size_t)3 * padded_count(n) * sizeof(float);
}

mink_status mink_hull_init(mink_shape *out, void *mem, size_t mem_bytes,
                           const float *xyz, uint32_t n, float r)
{
    if (out) *out = invalid_shape();
    if (!out || !mem || !xyz || n == 0 || n > MINK_HULL_MAX_POINTS || !finite_nonneg(r))
        return MINK_ERR_INVALID;
    if (((uintptr_t)mem % MINK_HULL_ALIGN) != 0 || mem_bytes < mink_hull_bytes(n))
        return MINK_ERR_INVALID;
    float extent2 = 0.0f;
    for (uint32_t i = 0; i < 3 * n; ++i)
        if (!isfinite(xyz[i])) return MINK_ERR_INVALID;
    const uint32_t padded = padded_count(n);
    float *x = (float *)mem;
    float *y = x + padded;
    float *z = y + padded;
    for (uint32_t i = 0; i < padded; ++i) {
        const uint32_t src = i < n ? i : 0;
        x[i] = xyz[3 * src + 0];
        y[i] = xyz[3 * src + 1];
        z[i] = xyz[3 * src + 2];
        const float d2 = x[i] * x[i] + y[i] * y[i] + z[i] * z[i];
        if (d2 > extent2) extent2 = d2;
    }
    const float extent = sqrtf(extent2);
    if (!isfinite(extent)) return MINK_ERR_INVALID; /* coordinates near FLT_MAX */
    mink_shape s = invalid_shape();
    s.type = MINK_SHAPE_HULL;
    s.count = n;
    s.padded = padded;
    s.radius = r;
    s.extent = extent;
    s.x = x;
    s.y = y;
    s.z = z;
    *out = s;
    return MINK_OK;
}

int mink_shape_is_valid(const mink_shape *s)
{
    if (!s || !finite_nonneg(s->radius) || !finite_nonneg(s->extent)) return 0;
    if (!finite_nonneg(s->half[0]) || !finite_nonneg(s->half[1]) || !finite_nonneg(s->half[2]))
        return 0;
    switch (s->type) {
    case MINK_SHAPE_SPHERE:
    case MINK_SHAPE_CAPSULE:
    case MINK_SHAPE_BOX:
        return 1;
    case MINK_SHAPE_HULL:
        return s->count > 0 && s->count <= MINK_HULL_MAX_POINTS && s->padded >= s->count &&
               s->padded % MINK_HULL_PAD == 0 && s->x && s->y && s->z;
    default:
        return 0;
    }
}

int mink_pose_is_valid(const mink_pose *p)
{
    if (!p || !mink_vec3_finite(p->p)) return 0;
    const mink_quat q = p->q;
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w)) return 0;
    const float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return fabsf(n - 1.0f) <= MINK_QUAT_UNIT_TOL;
}

static mink_pose unit_pose(const mink_pose *p)
{
    mink_pose u = *p;
    const float n = sqrtf(u.q.x * u.q.x + u.q.y * u.q.y + u.q.z * u.q.z + u.q.w * u.q.w);
    u.q.x /= n;
    u.q.y /= n;
    u.q.z /= n;
    u.q.w /= n;
    return u;
}

int mink_check_query(const mink_shape *a, const mink_pose *pa,
                     const mink_shape *b, const mink_pose *pb,
                     mink_pose *pa_unit, mink_pose *pb_unit)
{
    if (!mink_shape_is_valid(a) || !mink_shape_is_valid(b)) return MINK_ERR_INVALID;
    if (!mink_pose_is_valid(pa) || !mink_pose_is_valid(pb)) return MINK_ERR_INVALID;
    *pa_unit = unit_pose(pa);
    *pb_unit = unit_pose(pb);
    return 0;
}

void mink_result_error(mink_result *out, mink_status status)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    out->status = status;
}

void mink_cache_reset(mink_cache *c)
{
    if (c) memset(c, 0, sizeof *c);
}
