/* Sutherland-Hodgman clipping of the incident polygon against the reference
 * face's side planes, keys for the points it makes, and the reduction of a
 * patch to four points. */
#include "clip.h"

#include <float.h>
#include <math.h>

/* One side plane, given each point's distance beyond it (dist): keeps
 * the points with dist <= 0. */
static uint32_t clip_side(const clip_point *in, const float *dist, uint32_t n, uint32_t side, clip_point *out)
{
    uint32_t k = 0;
    if (n == 2) {
        /* a segment: one edge, not two (0 -> 1 and back would cross twice) */
        const float dp = dist[0], dq = dist[1];
        if (dp <= 0.0f) out[k++] = in[0];
        if ((dp < 0.0f && dq > 0.0f) || (dp > 0.0f && dq < 0.0f)) {
            out[k].p = v3_add(in[0].p, v3_scale(v3_sub(in[1].p, in[0].p), dp / (dp - dq)));
            out[k].key = clip_key(2, in[0].edge, side, 0);
            out[k].edge = in[0].edge;
            out[k].crossing = 1;
            k++;
        }
        if (dq <= 0.0f) out[k++] = in[1];
        return k;
    }
    for (uint32_t i = 0; i < n && k < CLIP_MAX_POINTS; ++i) {
        const uint32_t j = i + 1 < n ? i + 1 : 0;
        const float dp = dist[i], dq = dist[j];
        if (dp <= 0.0f) out[k++] = in[i];
        if (((dp < 0.0f && dq > 0.0f) || (dp > 0.0f && dq < 0.0f)) && k < CLIP_MAX_POINTS) {
            clip_point *x = &out[k++];
            x->p = v3_add(in[i].p, v3_scale(v3_sub(in[j].p, in[i].p), dp / (dp - dq)));
            x->key = clip_key(2, in[i].edge, side, 0);
            /* entering: the new point leaves along p's edge towards q;
             * leaving: along the side plane to where the polygon re-enters */
            x->edge = dp > 0.0f ? in[i].edge : side;
            x->crossing = 1;
        }
    }
    return k;
}

/* One side of a clip (keeps m.x <= c): in's polygon clipped into out,
 * then the two swapped (the next side reads what this one wrote); a side
 * that cuts nothing off leaves the polygon where it is, uncopied. */
static uint32_t clip_next(clip_point **in, clip_point **out, uint32_t n, v3 m, float c, uint32_t side)
{
    float dist[CLIP_MAX_POINTS];
    int inside = 1; /* every point kept (a NaN distance is not) */
    for (uint32_t i = 0; i < n; ++i) {
        dist[i] = v3_dot(m, (*in)[i].p) - c;
        inside &= dist[i] <= 0.0f;
    }
    if (inside) return n;
    n = clip_side(*in, dist, n, side, *out);
    clip_point *t = *in;
    *in = *out;
    *out = t;
    return n;
}

/* The clipped polygon back in poly, where the caller expects it. */
static uint32_t clip_result(clip_point *poly, const clip_point *in, uint32_t n)
{
    if (in != poly)
        for (uint32_t i = 0; i < n; ++i) poly[i] = in[i];
    return n;
}

/* A corner of the reference face sharper than this (the sine of its
 * angle): its two sides are planes almost parallel, so a point clipped
 * by both is placed along the corner's bisector within only rounding /
 * sine (a sliver facet of a needle, 1e-5 rad across: 0.3 mm past its tip). */
#define CLIP_SHARP_SIN (1.0f / 16.0f)
/* A reference face whose corners lie within this many float roundings of
 * its coordinates from their centre is a point (mink_clip_polygon). */
#define CLIP_POINT_FACE_REL 16.0f
_Static_assert(CLIP_MAX_POLYGON <= 64, "a side per bit of mink_clip_polygon's cut");

/* The clipped points pulled back behind the reference face's sharp
 * corners: a convex face lies behind each corner along the corner's
 * outward bisector b ((x - v).b <= 0), so a point past it is moved back
 * along b alone (b lies in the face's plane: its separation from the face
 * stays as it was). Only corners both of whose sides cut (bit j of cut:
 * side j, from ref[j] to the next point) can have such a point. */
static void clip_sharp_corners(clip_point *poly, uint32_t n, const v3 *ref, uint32_t nref, uint64_t cut)
{
    if (nref < 3) return;
    /* corner j: sides j - 1 and j */
    const uint64_t before = cut << 1 | (cut >> (nref - 1) & 1u);
    for (uint64_t corners = cut & before; corners; corners &= corners - 1) {
        const uint32_t j = (uint32_t)__builtin_ctzll(corners);
        const v3 v = ref[j];
        const v3 in = v3_sub(v, ref[j ? j - 1 : nref - 1]), out = v3_sub(ref[j + 1 < nref ? j + 1 : 0], v);
        const float ii = v3_len2(in), oo = v3_len2(out), io = v3_dot(in, out);
        /* turning back (io < 0) by nearly pi: |in x out|^2 = ii oo - io^2 */
        if (!(io < 0.0f && ii * oo - io * io < CLIP_SHARP_SIN * CLIP_SHARP_SIN * ii * oo)) continue;
        v3 b = v3_sub(v3_scale(in, 1.0f / sqrtf(ii)), v3_scale(out, 1.0f / sqrtf(oo)));
        b = v3_scale(b, 1.0f / sqrtf(v3_len2(b)));
        for (uint32_t i = 0; i < n; ++i) {
            const float past = v3_dot(v3_sub(poly[i].p, v), b);
            if (past > 0.0f) poly[i].p = v3_sub(poly[i].p, v3_scale(b, past));
        }
    }
}

uint32_t mink_clip_polygon(clip_point *poly, uint32_t n, const v3 *ref, const uint32_t *ref_ids, uint32_t nref,
                           v3 normal, clip_point *scratch)
{
    clip_point *in = poly, *out = scratch;
    /* a side of no length (a face of a box flat along an axis) bounds the
     * face from its centre out through the side's point */
    v3 centre = v3_make(0, 0, 0);
    float size2 = 0.0f;
    for (uint32_t j = 0; j < nref; ++j) centre = v3_add(centre, ref[j]);
    centre = v3_scale(centre, 1.0f / (float)(nref ? nref : 1));
    float far2 = 0.0f;
    for (uint32_t j = 0; j < nref; ++j) {
        const float d2 = v3_len2(v3_sub(ref[j], centre)), r2 = v3_len2(ref[j]);
        size2 = d2 > size2 ? d2 : size2; /* (fmaxf: a call here) */
        far2 = r2 > far2 ? r2 : far2;
    }
    /* a face of no extent beyond its coordinates' rounding (the end of a
     * box flat along two axes, a segment: its corners one point once moved
     * about the anchor) has no side to bound anything by, and no point can
     * be shown over it: nothing is kept, and GJK/EPA answer (a triangle's
     * corner 0.27 m beside such an end was kept at the end's separation,
     * 0.06 deeper than the pair's depth; fuzz_queries seed 20261135) */
    if (!(size2 > CLIP_POINT_FACE_REL * CLIP_POINT_FACE_REL * FLT_EPSILON * FLT_EPSILON * far2)) return 0;
    uint64_t cut = 0; /* the sides that cut something off */
    for (uint32_t j = 0; j < nref && n > 0; ++j) {
        const uint32_t j1 = j + 1 < nref ? j + 1 : 0;
        const clip_point *was = in;
        v3 m = v3_cross(v3_sub(ref[j1], ref[j]), normal); /* outward for a counter-clockwise loop */
        if (v3_len2(m) <= 1e-12f * size2) {
            const v3 out_dir = v3_sub(ref[j], centre);
            m = v3_sub(out_dir, v3_scale(normal, v3_dot(out_dir, normal)));
        }
        n = clip_next(&in, &out, n, m, v3_dot(m, ref[j]), clip_edge_key(3, ref_ids[j], ref_ids[j1]));
        cut |= (uint64_t)(in != was) << j;
    }
    n = clip_result(poly, in, n);
    if (cut) clip_sharp_corners(poly, n, ref, nref, cut);
    return n;
}

/* One side of a box face for mink_clip_box_quad, given each point's distance
 * beyond it (dist): keeps the points with dist <= 0. */
static uint32_t clip_quad_side(const quad_point *in, const float *dist, uint32_t n, uint32_t side, quad_point *out)
{
    uint32_t k = 0;
    /* a segment has one edge, not two (see clip_side) */
    const uint32_t edges = n == 2 ? 1 : n;
    for (uint32_t i = 0; i < edges && k + 2 <= QUAD_MAX_POINTS; ++i) {
        const uint32_t j = i + 1 < n ? i + 1 : 0;
        const float dp = dist[i], dq = dist[j];
        if (dp <= 0.0f) out[k++] = in[i];
        if ((dp < 0.0f && dq > 0.0f) || (dp > 0.0f && dq < 0.0f)) {
            quad_point *x = &out[k++];
            x->p = v3_add(in[i].p, v3_scale(v3_sub(in[j].p, in[i].p), dp / (dp - dq)));
            x->from = (uint8_t)(QUAD_CROSSING | (uint32_t)in[i].edge << 2 | side);
            x->edge = dp > 0.0f || n == 2 ? in[i].edge : (uint8_t)(4u + side);
        }
    }
    if (n == 2 && dist[1] <= 0.0f && k < QUAD_MAX_POINTS) out[k++] = in[1];
    return k;
}

uint32_t mink_clip_box_quad(quad_point *poly, uint32_t n, const float *half, uint32_t axis, const uint8_t *ref_ids,
                            v3 anchor, quad_point *scratch)
{
    const float at[3] = {anchor.x, anchor.y, anchor.z};
    static const float toward[2] = {-1.0f, 1.0f};
    quad_point *in = poly, *out = scratch;
    for (uint32_t j = 0; j < 4 && n > 0; ++j) {
        const uint32_t a = ref_ids[j], b = ref_ids[(j + 1) & 3u];
        /* the side runs along the axis its corners differ in (one bit of
         * 1, 2, 4: that bit halved is the axis); it bounds the face across
         * the remaining one, on the corners' side of it */
        const uint32_t along = (a ^ b) >> 1;
        const uint32_t across = 3u - axis - along;
        const float sign = toward[(a >> across) & 1u];
        float dist[QUAD_MAX_POINTS], most = -INFINITY;
        const float limit = half[across] - sign * at[across]; /* the side, about the anchor */
        for (uint32_t i = 0; i < n; ++i) {
            dist[i] = sign * (&in[i].p.x)[across] - limit;
            most = dist[i] > most ? dist[i] : most;
        }
        if (most <= 0.0f) continue; /* most sides cut nothing off: nothing to copy */
        n = clip_quad_side(in, dist, n, j, out);
        quad_point *t = in;
        in = out;
        out = t;
    }
    if (in != poly)
        for (uint32_t i = 0; i < n; ++i) poly[i] = in[i];
    return n;
}

/* Twice the signed area of (a, b, c) in the plane. */
static inline float area2(const float *u, const float *v, uint32_t a, uint32_t b, uint32_t c)
{
    return (u[b] - u[a]) * (v[c] - v[a]) - (v[b] - v[a]) * (u[c] - u[a]);
}

uint32_t mink_reduce_points(const clip_point *pts, const float *sep, uint32_t n, v3 normal, uint32_t pick[4])
{
    if (n <= 4) return mink_reduce_plane(NULL, NULL, sep, n, pick);
    /* the points in the contact plane: coordinates along two tangents */
    const v3 helper = fabsf(normal.x) < 0.57f ? v3_make(1, 0, 0) : v3_make(0, 1, 0);
    const v3 t1 = v3_cross(normal, helper), t2 = v3_cross(normal, t1);
    float u[CLIP_MAX_POINTS], v[CLIP_MAX_POINTS];
    for (uint32_t i = 0; i < n; ++i) u[i] = v3_dot(t1, pts[i].p), v[i] = v3_dot(t2, pts[i].p);
    return mink_reduce_plane(u, v, sep, n, pick);
}

uint32_t mink_reduce_plane(const float *u, const float *v, const float *sep, uint32_t n, uint32_t pick[4])
{
    if (n <= 4) {
        for (uint32_t i = 0; i < n; ++i) pick[i] = i;
        return n;
    }
    uint32_t p0 = 0;
    for (uint32_t i = 1; i < n; ++i)
        if (sep[i] < sep[p0]) p0 = i;
    pick[0] = p0;
    /* the farthest from the deepest */
    uint32_t p1 = p0;
    float far2 = 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        const float du = u[i] - u[p0], dv = v[i] - v[p0], d2 = du * du + dv * dv;
        if (d2 > far2) far2 = d2, p1 = i;
    }
    if (p1 == p0) return 1;
    pick[1] = p1;
    const float tiny = 1e-6f * far2; /* areas below this are slivers */
    uint32_t p2 = p0;
    float best = tiny;
    for (uint32_t i = 0; i < n; ++i) {
        const float a = fabsf(area2(u, v, p0, p1, i));
        if (a > best) best = a, p2 = i;
    }
    if (p2 == p0) return 2;
    pick[2] = p2;
    /* the triangle counter-clockwise, then the point adding the most area:
     * the sum over the edges it sees of the triangle it makes with them */
    uint32_t tri[3] = {p0, p1, p2};
    if (area2(u, v, p0, p1, p2) < 0.0f) tri[1] = p2, tri[2] = p1;
    uint32_t p3 = p0;
    best = tiny;
    for (uint32_t i = 0; i < n; ++i) {
        float added = 0.0f;
        for (int e = 0; e < 3; ++e) {
            const float a = area2(u, v, tri[e], tri[(e + 1) % 3], i);
            if (a < 0.0f) added -= a;
        }
        if (added > best) best = added, p3 = i;
    }
    if (p3 == p0) return 3;
    pick[3] = p3;
    return 4;
}
