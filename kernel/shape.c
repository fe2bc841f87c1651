/* Shape constructors, input validation and the data-oriented hull layout:
 * x[], y[], z[] arrays, each padded to a multiple of MINK_HULL_PAD floats with
 * copies of vertex 0 (a padding lane can then tie but never beat a real
 * vertex), each starting on a 64-byte boundary. */
#include "shape.h"
#include "hull.h"
#include "tolerance.h"

#include <math.h>
#include <string.h>

/* Sizes: finite, >= 0, and within MINK_MAX_MAGNITUDE. */
static int finite_nonneg(float v) { return isfinite(v) && v >= 0.0f && v <= MINK_MAX_MAGNITUDE; }

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

/* The vertex arrays, then the topology (hull.h) on the next 64-byte
 * boundary: 3 * padded floats is a multiple of 192 bytes. */
size_t mink_hull_bytes(uint32_t n)
{
    if (n == 0 || n > MINK_HULL_MAX_POINTS) return 0;
    const size_t topology = mink_hull_topology_bytes(n);
    if (topology == 0) return 0;
    const size_t vertices = (size_t)3 * padded_count(n) * sizeof(float);
    if (topology > SIZE_MAX - vertices) return 0;
    return vertices + topology;
}

mink_status mink_hull_init(mink_shape *out, void *mem, size_t mem_bytes,
                           const float *xyz, uint32_t n, float r)
{
    if (out) *out = invalid_shape();
    if (!out || !mem || !xyz || n == 0 || n > MINK_HULL_MAX_POINTS || !finite_nonneg(r))
        return MINK_ERR_INVALID;
    const size_t need = mink_hull_bytes(n);
    if (((uintptr_t)mem % MINK_HULL_ALIGN) != 0 || need == 0 || mem_bytes < need)
        return MINK_ERR_INVALID;
    float extent2 = 0.0f;
    for (uint32_t i = 0; i < 3 * n; ++i)
        if (!isfinite(xyz[i]) || fabsf(xyz[i]) > MINK_MAX_MAGNITUDE) return MINK_ERR_INVALID;
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
    const size_t vertices = (size_t)3 * padded * sizeof(float);
    const hull_topology *topology =
        mink_hull_topology_build(x, y, z, n, (char *)mem + vertices, mem_bytes - vertices);
    if (!topology) return MINK_ERR_INVALID;
    mink_shape s = invalid_shape();
    s.type = MINK_SHAPE_HULL;
    s.count = n;
    s.padded = padded;
    s.radius = r;
    s.extent = extent;
    s.x = x;
    s.y = y;
    s.z = z;
    s.topology = topology;
    *out = s;
    return MINK_OK;
}

int mink_shape_is_valid(const mink_shape *s) { return s && v4_all(mink_shape_sizes_ok(s)) && !mink_shape_kind_bad(s); }

int mink_pose_is_valid(const mink_pose *p)
{
    float n2;
    return p && v4_all(mink_position_ok(p)) && !mink_quat_bad(p, &n2);
}

static mink_pose unit_pose(const mink_pose *p, float norm2)
{
    mink_pose u = *p;
    const float inv = 1.0f / sqrtf(norm2);
    u.q.x *= inv;
    u.q.y *= inv;
    u.q.z *= inv;
    u.q.w *= inv;
    return u;
}

int mink_check_query(const mink_shape *a, const mink_pose *pa,
                     const mink_shape *b, const mink_pose *pb,
                     mink_pose *pa_unit, mink_pose *pb_unit)
{
    float na, nb;
    if (mink_check_inputs(a, pa, b, pb, &na, &nb) != 0) return MINK_ERR_INVALID;
    *pa_unit = unit_pose(pa, na);
    *pb_unit = unit_pose(pb, nb);
    return 0;
}

float mink_overlap_middle(float ra, float rb, float dc)
{
    const float lo = dc - rb > -ra ? dc - rb : -ra;
    const float hi = dc + rb < ra ? dc + rb : ra;
    return 0.5f * (lo + hi);
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
