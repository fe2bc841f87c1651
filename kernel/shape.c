/* Shape constructors, input validation and the data-oriented hull layout:
 * x[], y[], z[] arrays, each padded to a multiple of MINK_HULL_PAD floats with
 * copies of vertex 0 (a padding lane can then tie but never beat a real
 * vertex), each starting on a 64-byte boundary. */
#include "shape.h"
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

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A size as an integer, -0 folded onto +0: every size in [0, limit] is then
 * at most limit's bits, and NaN, Inf and negatives are above them. One
 * compare per field, no branches: every query pays this for two shapes. */
static uint32_t size_bits(float f)
{
    const uint32_t u = float_bits(f);
    return u == 0x80000000u ? 0u : u;
}

/* |f| as an integer: finite and |f| <= limit iff at most limit's bits. */
static uint32_t magnitude_bits(float f) { return float_bits(f) & 0x7fffffffu; }

/* An int, not a comparison: these flags are or-ed without branches. */
static int above(uint32_t bits, uint32_t limit) { return bits > limit; }

int mink_shape_is_valid(const mink_shape *s)
{
    if (!s) return 0;
    const uint32_t lim = float_bits(MINK_MAX_MAGNITUDE);
    /* the extent of a box or hull may reach sqrt(3) times the limit */
    int bad = above(size_bits(s->radius), lim) | above(size_bits(s->half[0]), lim) | above(size_bits(s->half[1]), lim) |
              above(size_bits(s->half[2]), lim) | above(size_bits(s->extent), float_bits(2.0f * MINK_MAX_MAGNITUDE));
    if (s->type == MINK_SHAPE_HULL)
        bad |= (s->count == 0) | (s->count > MINK_HULL_MAX_POINTS) | (s->padded < s->count) |
               (s->padded % MINK_HULL_PAD != 0) | !s->x | !s->y | !s->z;
    else
        bad |= (s->type < MINK_SHAPE_SPHERE) | (s->type > MINK_SHAPE_BOX);
    return !bad;
}

/* A finite position within MINK_MAX_MAGNITUDE and |q| within
 * MINK_QUAT_UNIT_TOL of 1, tested on |q|^2 (no root). A NaN or Inf in q
 * makes |q|^2 NaN or Inf, which the band rejects. */
static int pose_check(const mink_pose *p, float *norm2)
{
    const uint32_t lim = float_bits(MINK_MAX_MAGNITUDE);
    const int bad = above(magnitude_bits(p->p.x), lim) | above(magnitude_bits(p->p.y), lim) |
                    above(magnitude_bits(p->p.z), lim);
    const float n2 = p->q.x * p->q.x + p->q.y * p->q.y + p->q.z * p->q.z + p->q.w * p->q.w;
    const float lo = (1.0f - MINK_QUAT_UNIT_TOL) * (1.0f - MINK_QUAT_UNIT_TOL);
    const float hi = (1.0f + MINK_QUAT_UNIT_TOL) * (1.0f + MINK_QUAT_UNIT_TOL);
    *norm2 = n2;
    return !bad && n2 >= lo && n2 <= hi;
}

int mink_pose_is_valid(const mink_pose *p)
{
    float n2;
    return p && pose_check(p, &n2);
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

int mink_check_inputs(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                      float *qa_norm2, float *qb_norm2)
{
    if (!mink_shape_is_valid(a) || !mink_shape_is_valid(b)) return MINK_ERR_INVALID;
    if (!pa || !pb || !pose_check(pa, qa_norm2) || !pose_check(pb, qb_norm2)) return MINK_ERR_INVALID;
    return 0;
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
