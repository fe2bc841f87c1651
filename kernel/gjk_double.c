/* GJK in double precision near contact (gjk_double.h). */
#include "gjk_double.h"
#include "core_features.h"
#include "double_pair.h"

#include <float.h>
#include <math.h>

/* The closest point of the simplex to the origin: its subset (bits), the
 * weights and v. */
typedef struct closest_pt {
    unsigned bits;
    double lambda[4];
    double v[3];
    double vv;
} closest_pt;

/* Only geometric forms that keep their accuracy on slivers (a 700 m slab
 * edge beside a 3 cm one): segment parameters from one dot product,
 * triangle weights from cross products of the points themselves (signed
 * areas) and tetrahedron weights from signed volumes; not Cramer's
 * determinants from dot products, whose cancellation on such a triangle
 * left v 1e-4 off its plane. Features thinner than `flat` (the rounding of
 * the coordinates) count as lower-dimensional. */
static void closest_segment(const dvertex *vert, unsigned i, unsigned j, double flat, closest_pt *out)
{
    const double *a = vert[i].w, *b = vert[j].w;
    double ab[3];
    sub3(b, a, ab);
    const double ab2 = dot3(ab, ab);
    double t = ab2 > flat * flat ? -dot3(a, ab) / ab2 : (dot3(b, b) < dot3(a, a) ? 1.0 : 0.0);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    for (int k = 0; k < 4; ++k) out->lambda[k] = 0.0;
    out->lambda[i] = 1.0 - t;
    out->lambda[j] = t;
    out->bits = (t < 1.0 ? 1u << i : 0u) | (t > 0.0 ? 1u << j : 0u);
    for (int c = 0; c < 3; ++c) out->v[c] = t < 1.0 ? a[c] + t * ab[c] : b[c];
    out->vv = dot3(out->v, out->v);
}

static void closest_triangle(const dvertex *vert, unsigned i, unsigned j, unsigned k, double flat, closest_pt *out)
{
    const double *a = vert[i].w, *b = vert[j].w, *c = vert[k].w;
    double ab[3], ac[3], bc[3], n[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(c, b, bc);
    cross3(ab, ac, n);
    const double n2 = dot3(n, n);
    double e2 = dot3(ab, ab);
    if (dot3(ac, ac) > e2) e2 = dot3(ac, ac);
    if (dot3(bc, bc) > e2) e2 = dot3(bc, bc);
    if (n2 > flat * flat * e2) {
        /* the origin's projection, weighted by the signed areas of the
         * triangles it forms with each edge (a's weight: o, b, c) */
        double x[3];
        cross3(b, c, x);
        const double wa = dot3(x, n);
        cross3(c, a, x);
        const double wb = dot3(x, n);
        cross3(a, b, x);
        const double wc = dot3(x, n);
        if (wa > 0.0 && wb > 0.0 && wc > 0.0) {
            const double sum = wa + wb + wc, h = dot3(n, a) / n2;
            for (int m = 0; m < 4; ++m) out->lambda[m] = 0.0;
            out->lambda[i] = wa / sum, out->lambda[j] = wb / sum, out->lambda[k] = wc / sum;
            out->bits = 1u << i | 1u << j | 1u << k;
            for (int m = 0; m < 3; ++m) out->v[m] = n[m] * h;
            out->vv = dot3(out->v, out->v);
            return;
        }
    }
    /* outside (or a sliver): the best of its edges */
    closest_pt e;
    closest_segment(vert, i, j, flat, out);
    closest_segment(vert, i, k, flat, &e);
    if (e.vv < out->vv) *out = e;
    closest_segment(vert, j, k, flat, &e);
    if (e.vv < out->vv) *out = e;
}


static void closest_tetrahedron(const dvertex *vert, double flat, closest_pt *out)
{
    const double *p0 = vert[0].w, *p1 = vert[1].w, *p2 = vert[2].w, *p3 = vert[3].w;
    double e1[3], e2[3], e3[3];
    sub3(p1, p0, e1);
    sub3(p2, p0, e2);
    sub3(p3, p0, e3);
    const double volume = det3(e1, e2, e3);
    /* the largest face's (2 area)^2, for the flatness test */
    double face2 = 0.0, f[3], u[3], w[3];
    for (int i = 0; i < 4; ++i) {
        const double *q0 = vert[(i + 1) & 3].w, *q1 = vert[(i + 2) & 3].w, *q2 = vert[(i + 3) & 3].w;
        sub3(q1, q0, u);
        sub3(q2, q0, w);
        cross3(u, w, f);
        if (dot3(f, f) > face2) face2 = dot3(f, f);
    }
    if (volume * volume > flat * flat * face2) {
        /* weights: the volumes with the origin in place of each point */
        const double l[4] = {det3(p1, p2, p3) / volume, -det3(p0, p2, p3) / volume, det3(p0, p1, p3) / volume,
                             -det3(p0, p1, p2) / volume};
        if (l[0] > 0.0 && l[1] > 0.0 && l[2] > 0.0 && l[3] > 0.0) {
            const double sum = l[0] + l[1] + l[2] + l[3];
            for (int i = 0; i < 4; ++i) out->lambda[i] = l[i] / sum;
            out->bits = 15u;
            out->v[0] = out->v[1] = out->v[2] = 0.0;
            out->vv = 0.0;
            return;
        }
    }
    closest_pt t;
    closest_triangle(vert, 0, 1, 2, flat, out);
    for (unsigned skip = 0; skip < 3; ++skip) {
        const unsigned s0 = skip == 0 ? 1u : 0u, s1 = skip == 2 ? 1u : 2u;
        closest_triangle(vert, s0, s1, 3, flat, &t);
        if (t.vv < out->vv) *out = t;
    }
}

/* Closest point of the slots in `bits` to the origin. */
static void solve(const dvertex vert[4], unsigned bits, double flat, closest_pt *out)
{
    unsigned slot[4], k = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (bits >> i & 1u) slot[k++] = i;
    if (k == 4) {
        closest_tetrahedron(vert, flat, out);
    } else if (k == 3) {
        closest_triangle(vert, slot[0], slot[1], slot[2], flat, out);
    } else if (k == 2) {
        closest_segment(vert, slot[0], slot[1], flat, out);
    } else {
        for (int i = 0; i < 4; ++i) out->lambda[i] = 0.0;
        out->lambda[slot[0]] = 1.0;
        out->bits = bits;
        for (int c = 0; c < 3; ++c) out->v[c] = vert[slot[0]].w[c];
        out->vv = dot3(out->v, out->v);
    }
}

void mink_gjk_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                     const uint32_t ia[], const uint32_t ib[], unsigned n, mink_hull_support_fn hull_support,
                     mink_double_closest *out)
{
    dpair p;
    dpair_init(&p, a, pa, b, pb, hull_support);
    const double flat_abs = 1e-14 * dpair_size(&p);

    dvertex vert[4];
    unsigned bits = 0;
    if (n > 4) n = 4;
    for (unsigned i = 0; i < n; ++i) {
        make_vertex(&p, ia[i], ib[i], &vert[i]);
        bits |= 1u << i;
    }
    if (!bits) {
        const double d[3] = {p.fa.p[0] - p.fb.p[0], p.fa.p[1] - p.fb.p[1], p.fa.p[2] - p.fb.p[2]};
        const double nd[3] = {-d[0], -d[1], -d[2]};
        make_vertex(&p, support_id(&p, a, &p.fa, nd), support_id(&p, b, &p.fb, d), &vert[0]);
        bits = 1u;
    }
    closest_pt c;
    solve(vert, bits, flat_abs, &c);
    unsigned iterations = 0;
    /* v.w of the last support point w along -v: D lies on the far side of
     * the plane v.x = v.w, so the cores are apart only when it is positive
     * (a simplex through the origin, where v is rounding, may give a point
     * of its own with v.w < 0: an overlap, or a touch, for EPA to measure) */
    double lower = -1.0;
    while (c.bits != 15u && c.vv > flat_abs * flat_abs && iterations < MINK_GJK_MAX_ITERATIONS) {
        ++iterations;
        /* the support of D = B - A along -v: A's along v, B's along -v */
        const double nv[3] = {-c.v[0], -c.v[1], -c.v[2]};
        const uint32_t sa = support_id(&p, a, &p.fa, c.v), sb = support_id(&p, b, &p.fb, nv);
        dvertex w;
        make_vertex(&p, sa, sb, &w);
        lower = dot3(c.v, w.w);
        int repeated = 0;
        for (unsigned i = 0; i < 4; ++i) repeated |= (c.bits >> i & 1u) && vert[i].ia == sa && vert[i].ib == sb;
        if (repeated) break; /* converged: v is the closest point of D */
        /* no gain past rounding along v: converged */
        if (c.vv - lower <= 1e-13 * (c.vv + flat_abs * sqrt(c.vv))) break;
        unsigned slot = 0;
        while (c.bits >> slot & 1u) ++slot;
        const dvertex kept = vert[slot];
        vert[slot] = w;
        closest_pt next;
        solve(vert, c.bits | 1u << slot, flat_abs, &next);
        if (next.bits != 15u && !(next.vv < c.vv)) {
            vert[slot] = kept; /* no progress: v stands */
            break;
        }
        c = next;
    }
    bits = c.bits;
    const double vv = c.vv;
    out->iterations = iterations;
    out->bits = bits;
    for (unsigned i = 0; i < 4; ++i) {
        const int used = bits >> i & 1u;
        out->ia[i] = used ? vert[i].ia : 0u;
        out->ib[i] = used ? vert[i].ib : 0u;
        out->lambda[i] = used ? c.lambda[i] : 0.0;
    }
    for (int k = 0; k < 3; ++k) {
        out->pa[k] = out->pb[k] = 0.0;
        for (unsigned i = 0; i < 4; ++i)
            if (bits >> i & 1u) out->pa[k] += c.lambda[i] * vert[i].pa[k], out->pb[k] += c.lambda[i] * vert[i].pb[k];
    }
    /* within the rounding of double coordinates of 0: touching */
    out->distance = bits == 15u || !(vv > flat_abs * flat_abs) || !(lower > 0.0) ? 0.0 : sqrt(vv);
    out->overlap = !(out->distance > 0.0);
    for (int k = 0; k < 3; ++k) out->normal[k] = out->overlap ? 0.0 : c.v[k] / out->distance;
    if (out->overlap) {
        /* a common point: the smaller shape's weighted point. Both points
         * are off from the other shape by at most the weights' residual
         * |pb - pa|, and the smaller one's also by at most its own size,
         * however thin the tetrahedron (a 1.8 m segment through a 1e-7
         * speck: a needle whose weights, even in double, put A's point
         * 1.4e-3 along it from B) */
        const int small_b = b->extent + b->radius < a->extent + a->radius;
        for (int k = 0; k < 3; ++k) {
            const double common = small_b ? out->pb[k] : out->pa[k];
            out->pa[k] = out->pb[k] = common;
        }
    }
}

void mink_double_answer(const mink_double_closest *c, float ra, float rb, int common_point, mink_result *out)
{
    const double dc = c->distance, margin = (double)ra + rb;
    const double *n = c->normal;
    double qa[3], qb[3];
    if (common_point && dc <= margin) {
        /* mid-overlap along the core axis, from A's core witness */
        const double lo = dc - rb > -ra ? dc - rb : -ra, hi = dc + rb < ra ? dc + rb : ra;
        for (int i = 0; i < 3; ++i) qa[i] = qb[i] = c->pa[i] + n[i] * 0.5 * (lo + hi);
        out->distance = 0.0f;
    } else {
        /* re-centred on the witnesses' midpoint: pb - pa = dc n holds even
         * where they are a face's clamped weights */
        for (int i = 0; i < 3; ++i) {
            const double mid = 0.5 * (c->pa[i] + c->pb[i]);
            qa[i] = mid - n[i] * (0.5 * dc - ra), qb[i] = mid + n[i] * (0.5 * dc - rb);
        }
        out->distance = (float)(dc - margin);
    }
    out->normal.x = (float)n[0], out->normal.y = (float)n[1], out->normal.z = (float)n[2];
    out->point_a.x = (float)qa[0], out->point_a.y = (float)qa[1], out->point_a.z = (float)qa[2];
    out->point_b.x = (float)qb[0], out->point_b.y = (float)qb[1], out->point_b.z = (float)qb[2];
}

/* How much more the cores overlap along r's normal than r claims: the
 * supports' overlap (max over A of n.a - min over B of n.b) less the
 * claimed core depth, in double. */
static double answer_excess(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                            const mink_result *r, mink_hull_support_fn hull_support)
{
    dpair p;
    dpair_init(&p, a, pa, b, pb, hull_support);
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z}, m[3] = {-n[0], -n[1], -n[2]};
    dvertex v;
    make_vertex(&p, support_id(&p, a, &p.fa, n), support_id(&p, b, &p.fb, m), &v);
    const double claimed = -(double)r->distance - a->radius - b->radius;
    return -dot3(n, v.w) - claimed;
}

mink_status mink_penetration_checked(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                     const mink_pose *pb, mink_status status, mink_penetration_fn solver,
                                     mink_hull_support_fn hull_support, mink_result *out)
{
    const float la = a->extent + a->radius, lb = b->extent + b->radius, small = la < lb ? la : lb;
    /* rounding: float's at the coordinates in play, and a small part of
     * the local tolerance (FORMAT.md: 1e-4 of the smaller shape) */
    const double reach = fabs(pa->p.x) + fabs(pa->p.y) + fabs(pa->p.z) + fabs(pb->p.x) + fabs(pb->p.y) +
                         fabs(pb->p.z) + la + lb;
    const double allowed = 1e-5 * small + 8.0 * FLT_EPSILON * reach;
    const double excess = answer_excess(a, pa, b, pb, out, hull_support);
    if (!(excess > allowed)) return status;
    mink_result w;
    const mink_status ws = solver(b, pb, a, pa, NULL, &w);
    if (ws < 0) return status;
    const mink_vec3 t = w.point_a;
    w.normal.x = -w.normal.x, w.normal.y = -w.normal.y, w.normal.z = -w.normal.z;
    w.point_a = w.point_b, w.point_b = t;
    if (!(answer_excess(a, pa, b, pb, &w, hull_support) < excess)) return status;
    *out = w; /* with its own counts: each query's iterations stay within the caps */
    return ws;
}

/* ------------------------------------------------------------ slivers */

/* A shape's side of a simplex: its distinct feature ids (1 to 3) and points. */
typedef struct sliver_feature {
    const mink_shape *s;
    uint32_t id[3], count;
    v3 p[3];
} sliver_feature;

/* The distinct ids of ids[0..n-1] (n <= 3) into out, in order; their count. */
static uint32_t distinct_ids(const uint32_t ids[], unsigned n, uint32_t out[3])
{
    uint32_t count = 0;
    for (unsigned i = 0; i < n; ++i) {
        uint32_t k = 0;
        while (k < count && out[k] != ids[i]) ++k;
        if (k == count) out[count++] = ids[i];
    }
    return count;
}

/* A box's corner or a hull's point (ids of a box: corner bits zyx). */
static v3 sliver_core_point(const mink_shape *s, uint32_t id)
{
    if (s->type == MINK_SHAPE_BOX) return core_box_corner(s, id);
    return v3_make(s->x[id], s->y[id], s->z[id]);
}

/* |r|^2 off the line through the origin along e (its point when e is 0). */
static float off_line2(v3 r, v3 e)
{
    const float e2 = v3_len2(e);
    return e2 > 0.0f ? v3_len2(v3_cross(r, e)) / e2 : v3_len2(r);
}

/* Whether point id of the shape, not the feature's, lies within band of the
 * feature's support along d (hi) and within `lateral` of the feature (its
 * point, or a line through two of its points). */
static int sliver_point(const sliver_feature *f, uint32_t id, v3 d, float hi, float band, float lateral)
{
    const v3 p = sliver_core_point(f->s, id);
    if (!(v3_dot(p, d) >= hi - band)) return 0;
    for (uint32_t k = 0; k < f->count; ++k)
        if (id == f->id[k]) return 0;
    float off2 = v3_len2(v3_sub(p, f->p[0]));
    for (uint32_t i = 0; i < f->count; ++i)
        for (uint32_t j = i + 1; j < f->count; ++j) {
            const float o = off_line2(v3_sub(p, f->p[i]), v3_sub(f->p[j], f->p[i]));
            off2 = o < off2 ? o : off2;
        }
    return off2 <= lateral * lateral;
}

/* One shape's side of mink_sliver_doubt: a box or a hull with faces, its
 * feature on a face narrower than `lateral` (mink_sliver_side). */
static int sliver_beside(sliver_feature *f, const float dir[3], float band, float lateral)
{
    const mink_shape *s = f->s;
    if (!mink_sliver_side(s, f->id, f->count, lateral)) return 0;
    const v3 d = v3_make(dir[0], dir[1], dir[2]);
    float hi = -FLT_MAX;
    for (uint32_t k = 0; k < f->count; ++k) {
        f->p[k] = sliver_core_point(s, f->id[k]);
        const float h = v3_dot(f->p[k], d);
        hi = h > hi ? h : hi;
    }
    /* a sliver in the feature itself: a point beside the line of the two others */
    if (f->count == 3)
        for (uint32_t k = 0; k < 3; ++k) {
            const v3 p = f->p[k], p1 = f->p[(k + 1) % 3], p2 = f->p[(k + 2) % 3];
            if (v3_dot(p, d) >= hi - band && off_line2(v3_sub(p, p1), v3_sub(p2, p1)) <= lateral * lateral) return 1;
        }
    if (s->type == MINK_SHAPE_BOX) {
        for (uint32_t id = 0; id < 8; ++id)
            if (sliver_point(f, id, d, hi, band, lateral)) return 1;
        return 0;
    }
    /* a hull: the points of the narrow faces around the feature's points */
    const hull_topology *t = s->topology;
    const uint32_t *around_first = hull_point_first(t), *around = hull_point_face(t);
    const uint32_t *loop_first = hull_face_first(t), *loop = hull_face_vertex(t);
    const float *face_thin = hull_face_thin(t);
    for (uint32_t k = 0; k < f->count; ++k)
        for (uint32_t i = around_first[f->id[k]]; i < around_first[f->id[k] + 1]; ++i) {
            const uint32_t face = around[i];
            if (face_thin[face] < lateral)
                for (uint32_t j = loop_first[face]; j < loop_first[face + 1]; ++j)
                    if (sliver_point(f, loop[j], d, hi, band, lateral)) return 1;
        }
    return 0;
}

int mink_sliver_doubt(const mink_shape *a, const float da[3], const uint32_t ia[], const mink_shape *b,
                      const float db[3], const uint32_t ib[], unsigned n, float scale, float width)
{
    sliver_feature fa, fb;
    fa.s = a;
    fb.s = b;
    fa.count = distinct_ids(ia, n, fa.id);
    fb.count = distinct_ids(ib, n, fb.id);
    const float band = MINK_GJK_TIE_ROUNDING * FLT_EPSILON * scale;
    return sliver_beside(&fa, da, band, width) || sliver_beside(&fb, db, band, width);
}
