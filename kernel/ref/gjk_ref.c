/* GJK, scalar reference. */
#include "gjk_ref.h"
#include "tolerance.h"
#include "closest_double.h"
#include "edge_pair.h"

#include <float.h>

void mink_scalar_simplex_points(const ref_simplex *s, v3 *pa, v3 *pb)
{
    v3 a = {0, 0, 0}, b = {0, 0, 0};
    for (unsigned i = 0; i < 4; ++i) {
        if (!(s->bits & (1u << i))) continue;
        a = v3_add(a, v3_scale(s->vert[i].pa, s->lambda[i]));
        b = v3_add(b, v3_scale(s->vert[i].pb, s->lambda[i]));
    }
    *pa = a;
    *pb = b;
}

/* The closest point recomputed from its feature's normal (Catto, GDC 2010):
 * the weighted sum v carries rounding of order eps * |points|, large against
 * a small distance, and tilts the normal; an edge's or a face's normal from
 * cross products does not. Kept only when it agrees with v. */
/* The feature's normal corrects rounding, a small tilt; on a sliver (a
 * triangle 2 long and 1e-5 wide, from a needle) or a feature whose edges
 * are rounding (tiny shapes far apart) it is itself noise and may point
 * anywhere (it once shrank a 0.0135 distance to 0, and a distance of 2 by
 * 3e-3). Kept only within 10 % of v and within MINK_GJK_REFINE_REL S. */
static int refinement_agrees(v3 r, v3 v, float scale)
{
    const v3 d = v3_sub(r, v);
    const float near = MINK_GJK_REFINE_REL * scale;
    return v3_dot(d, d) <= 0.01f * v3_dot(v, v) && v3_dot(d, d) <= near * near;
}

static v3 refined_v(const ref_simplex *s, v3 v, float scale, float floor, int *disagrees)
{
    v3 p[4];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (s->bits & (1u << i)) p[n++] = s->vert[i].w;
    if (n != 2 && n != 3) return v;
    /* the point nearest the origin first: the normal's rounding tilts r by
     * that point's distance times the tilt (a point 40 away, from a long
     * box, put 6e-5 into a distance of 0.064) */
    unsigned k = 0;
    for (unsigned i = 1; i < n; ++i)
        if (v3_len2(p[i]) < v3_len2(p[k])) k = i;
    const v3 base = p[k];
    p[k] = p[0];
    p[0] = base;
    v3 m;
    if (n == 2) {
        const v3 e = v3_sub(p[1], p[0]);
        m = v3_cross(v3_cross(e, p[0]), e); /* p0's part across the edge, times |e|^2 */
    } else {
        m = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
    }
    if (!(v3_len2(m) >= 0x1p-100f)) {
        /* m is a product of three lengths, |m|^2 of six: on shapes about
         * 1e-7 across |m|^2 lies in the denormals, and the r it gave was
         * off by up to 10 %. m times a power of two instead: r does not
         * depend on m's length, and the scaling rounds nothing. */
        const float mx = fmaxf(fabsf(m.x), fmaxf(fabsf(m.y), fabsf(m.z)));
        if (!(mx > 0.0f)) return v;
        int e;
        (void)frexpf(mx, &e);
        m = v3_scale(m, ldexpf(1.0f, -e));
    }
    const float len = v3_len(m);
    if (!(len > 0.0f)) return v;
    const v3 unit = v3_scale(m, 1.0f / len);
    const v3 r = v3_scale(unit, v3_dot(unit, p[0]));
    /* nor below `floor`, what GJK's bounds leave of the distance: a sliver's
     * normal, tilted by rounding, put r there */
    if (floor > 0.0f && v3_len2(r) < floor * floor) return v;
    float far2 = 0.0f;
    for (unsigned i = 0; i < n; ++i) far2 = fmaxf(far2, v3_len2(p[i]));
    const float rr = v3_len2(r), vv = v3_len2(v), ceil = MINK_GJK_REFINE_CEIL_EPS * FLT_EPSILON;
    if (rr > vv && (rr - vv) / (2.0f * sqrtf(rr)) > ceil * sqrtf(far2)) return v;
    if (refinement_agrees(r, v, scale)) return r;
    *disagrees = 1;
    return v;
}

/* The simplex's points in `bits` solved again in double precision: sets the
 * chosen subset and weights, returns the new v. */
static v3 resolve_double(ref_simplex *s, unsigned bits)
{
    float pts[4][3];
    for (unsigned i = 0; i < 4; ++i) {
        pts[i][0] = s->vert[i].w.x;
        pts[i][1] = s->vert[i].w.y;
        pts[i][2] = s->vert[i].w.z;
    }
    float v[3];
    s->bits = mink_closest_double((const float(*)[3])pts, bits, s->lambda, v);
    return v3_make(v[0], v[1], v[2]);
}

/* The four points hold the origin by a clear margin: for each face, the
 * origin and the point the face omits on the same side of its plane, by at
 * least MINK_GJK_INSIDE_REL S times the product of the face's edge lengths
 * (n unnormalized), which float rounding cannot fake. Then double precision
 * cannot disagree and is not asked, and the origin's weights are the ratios
 * side_o / side_p (its height over each face against the omitted point's),
 * which float gets right where the Cramer recursion from dot products does
 * not (flat tetrahedra). */
static int origin_clearly_inside(ref_simplex *s, float scale)
{
    const float m = MINK_GJK_INSIDE_REL * scale;
    float heights[4], sum = 0.0f;
    for (unsigned i = 0; i < 4; ++i) {
        const v3 a = s->vert[(i + 1) & 3u].w, b = s->vert[(i + 2) & 3u].w, c = s->vert[(i + 3) & 3u].w;
        const v3 e1 = v3_sub(b, a), e2 = v3_sub(c, a);
        const v3 n = v3_cross(e1, e2);
        const float need = m * m * (v3_len2(e1) * v3_len2(e2));
        const float side_o = -v3_dot(n, a), side_p = v3_dot(n, v3_sub(s->vert[i].w, a));
        if (!(side_o * side_p > 0.0f) || !(side_o * side_o >= need) || !(side_p * side_p >= need) ||
            !(need >= MINK_GJK_INSIDE_MIN))
            return 0;
        heights[i] = side_o / side_p;
        sum += heights[i];
    }
    for (unsigned i = 0; i < 4; ++i) s->lambda[i] = heights[i] / sum;
    return 1;
}

/* GJK stopped on a diagonal of the parallelogram that an edge of A and an
 * edge of B make in D: the simplex becomes the parallelogram's feature that
 * holds the edges' closest points (the SIMD kernel's edge_pair_face, where
 * the cases are told). */
static void edge_pair_face(ref_simplex *s)
{
    unsigned i = 0, j;
    while (!(s->bits & (1u << i))) ++i;
    j = i + 1;
    while (!(s->bits & (1u << j))) ++j;
    const ref_vertex p = s->vert[i], q = s->vert[j];
    if (p.ia == q.ia || p.ib == q.ib) return;
    /* a(u) = a0 + u da, b(t) = b0 + t db; the point of D is b(t) - a(u) */
    const v3 da = v3_sub(q.pa, p.pa), db = v3_sub(q.pb, p.pb), r = v3_sub(p.pa, p.pb);
    const float dav[3] = {da.x, da.y, da.z}, dbv[3] = {db.x, db.y, db.z}, rv[3] = {r.x, r.y, r.z};
    float w[4];
    if (!edge_pair_weights(dav, dbv, rv, w)) return;
    /* the corners (a1, b0) and (a0, b1) in the free slots */
    unsigned k = 0, m;
    while (s->bits & (1u << k)) ++k;
    m = k + 1;
    while (s->bits & (1u << m)) ++m;
    ref_vertex *c10 = &s->vert[k], *c01 = &s->vert[m];
    c10->pa = q.pa, c10->pb = p.pb, c10->w = v3_sub(p.pb, q.pa), c10->ia = q.ia, c10->ib = p.ib;
    c01->pa = p.pa, c01->pb = q.pb, c01->w = v3_sub(q.pb, p.pa), c01->ia = p.ia, c01->ib = q.ib;
    s->lambda[i] = w[0], s->lambda[j] = w[1], s->lambda[k] = w[2], s->lambda[m] = w[3];
    s->bits = 0;
    for (unsigned x = 0; x < 4; ++x) s->bits |= (unsigned)(s->lambda[x] > 0.0f) << x;
}

/* GJK stalled in float (a repeated point, no progress) with the lower bound
 * v.w / |v| not positive: nothing certifies a gap, and the upper bound |v|
 * is tiny (MINK_GJK_STALL_REL): the origin may be deep inside D across a
 * thin direction the simplex cannot resolve. Call it an overlap: EPA then
 * measures the depth (about 0 if the shapes only touch). */
static int stalled_at_origin(float vw, float vv, float scale)
{
    const float small = MINK_GJK_STALL_REL * scale;
    return !(vw > 0.0f) && vv <= small * small;
}

void mink_scalar_gjk(ref_pair *pair, ref_gjk_mode mode, float margin, v3 v0,
             const ref_vertex *seed, unsigned nseed, ref_gjk_result *out)
{
    const float touch = MINK_TOUCH_REL * pair->scale;
    const float ea = pair->a->extent + pair->a->radius, eb = pair->b->extent + pair->b->radius;
    const float gap_tol = mink_gjk_gap_tol(ea < eb ? ea : eb, pair->scale);
    ref_simplex *s = &out->simplex;
    unsigned resolves = 0, ties = 0;
    int converged = 0; /* the bounds met within gap_tol */

    out->overlap = 0;
    out->apart_proven = 0;
    out->stalled = 0;
    out->tied = 0;
    out->status = MINK_OK;
    out->iterations = 0;

    if (nseed == 0 || !mink_scalar_johnson_seed(s, seed, nseed, touch, &out->v)) {
        if (!(v3_len2(v0) > 0.0f)) v0 = v3_make(1, 0, 0);
        mink_scalar_simplex_init(s);
        const ref_vertex first = mink_scalar_support_pair(pair, v3_neg(v0));
        mink_scalar_simplex_add(s, &first);
        mink_scalar_johnson(s, &out->v, touch);
        /* Intersect: D's support along -v0 past the margin and the touching
         * band along v0, so v0 (the line between the shapes' origins, or a
         * held axis) separates them; most apart pairs end here, as in
         * MPR's first test. Within the band the loop decides. */
        const float v0w = v3_dot(v0, first.w), clear = margin + touch;
        if (mode == REF_GJK_INTERSECT && v0w > 0.0f && v0w * v0w > clear * clear * v3_len2(v0)) {
            out->apart_proven = 1;
            out->v = v0;
            return;
        }
    }

    v3 v = out->v;

    for (;;) {
        if (s->bits == 15u) {
            if (origin_clearly_inside(s, pair->scale)) {
                out->overlap = 1;
                break;
            }
            /* Four points around the origin, if double precision agrees: a
             * nearly flat tetrahedron's float determinants are noise. */
            const v3 exact = resolve_double(s, 15u);
            if (s->bits == 15u) {
                out->overlap = 1;
                v = exact;
                break;
            }
            v = exact; /* the double answer, whether or not the loop goes on */
            if (resolves++ >= MINK_GJK_MAX_RESOLVES) {
                out->stalled = !converged; /* the resolves spent on a flat tetrahedron */
                break;
            }
        }
        const float vv = v3_len2(v);
        /* The origin on the simplex up to rounding: the cores touch. */
        if (vv <= touch * touch) {
            out->overlap = 1;
            break;
        }
        /* Intersect: |v| bounds the core distance from above. */
        if (mode == REF_GJK_INTERSECT && vv <= margin * margin) {
            out->overlap = 1;
            break;
        }
        if (out->iterations >= MINK_GJK_MAX_ITERATIONS) {
            /* Cycling or extremely slow progress: v is the best upper bound. */
            out->status = MINK_MAX_ITERATIONS;
            break;
        }
        out->iterations++;

        const ref_vertex w = mink_scalar_support_pair(pair, v3_neg(v));
        const float vw = v3_dot(v, w.w);
        /* v.w / |v| is a lower bound on the core distance: once it exceeds
         * the margin, v is a separating axis of the rounded shapes. */
        if (mode == REF_GJK_INTERSECT && vw > 0.0f && vw * vw > margin * margin * vv) {
            out->apart_proven = 1;
            break;
        }

        /* Converged: the bounds |v| and v.w/|v| are within gap_tol. */
        if (vv - vw <= gap_tol * sqrtf(vv)) {
            converged = 1;
            /* unless a new point nearly tied with v may still turn it
             * (MINK_GJK_TIE_ANGLE): then the step below, as any other */
            const float gap = vv - vw, tie_rounding = MINK_GJK_TIE_ROUNDING * FLT_EPSILON;
            if (mode == REF_GJK_INTERSECT || ties >= MINK_GJK_TIE_STEPS || !(gap > 0.0f) ||
                !(2.0f * gap > MINK_GJK_TIE_ANGLE * MINK_GJK_TIE_ANGLE * vv))
                break;
            if (!(gap * gap > tie_rounding * tie_rounding * vv * v3_len2(w.w))) {
                /* tied within rounding: on a vertex or an edge of D, double decides */
                out->tied = __builtin_popcount(s->bits) <= 2 && !mink_scalar_simplex_contains(s, &w);
                break;
            }
            if (mink_scalar_simplex_contains(s, &w)) break;
            ties++;
        }
        if (mink_scalar_simplex_contains(s, &w)) {
            /* A repeated support point while the bounds still disagree: v is
             * off the simplex's closest point by rounding. Solve again in
             * double; stop when that does not change v. The double point is
             * taken even if a little longer: float rounding had made v
             * shorter (and turned it 0.2 %, enough to repeat a point and
             * stop at a false gap: gjk.c). */
            if (resolves++ < MINK_GJK_MAX_RESOLVES) {
                const v3 exact = resolve_double(s, s->bits);
                if (!v3_equal(exact, v)) {
                    v = exact;
                    continue;
                }
            }
            out->overlap = stalled_at_origin(vw, vv, pair->scale);
            out->stalled = !out->overlap && !converged;
            break;
        }

        const ref_simplex before = *s;
        mink_scalar_simplex_add(s, &w);
        v3 next;
        mink_scalar_johnson(s, &next, touch);
        const unsigned new_bit = 1u << s->last;
        if (s->bits != 15u && (v3_len2(next) >= vv || !(s->bits & new_bit))) {
            /* No progress in float: v did not shrink, or the new subset left
             * the new point out (never so in exact arithmetic). Try the new
             * set in double (the true closest point of the points so far:
             * taken unless it is v itself), else keep the previous simplex. */
            if (resolves++ < MINK_GJK_MAX_RESOLVES) {
                const v3 exact = resolve_double(s, before.bits | new_bit);
                if (s->bits == 15u || !v3_equal(exact, v)) {
                    v = exact;
                    continue;
                }
            }
            *s = before;
            out->overlap = stalled_at_origin(vw, vv, pair->scale);
            out->stalled = !out->overlap && !converged;
            break;
        }
        v = next;
    }
    /* converged, the distance is within gap_tol of |v| (less the rounding
     * of the support points): the refined point may not fall below that */
    const float floor = converged ? v3_len(v) - gap_tol - MINK_TOUCH_REL * pair->scale : 0.0f;
    if (mode != REF_GJK_INTERSECT && !out->overlap && __builtin_popcount(s->bits) == 2) {
        const unsigned diagonal = s->bits;
        edge_pair_face(s);
        if (s->bits != diagonal) {
            v = v3_make(0, 0, 0);
            for (unsigned m = 0; m < 4; ++m)
                if (s->bits & (1u << m)) v = v3_add(v, v3_scale(s->vert[m].w, s->lambda[m]));
        }
    }
    int disagrees = 0;
    out->v = out->overlap ? v : refined_v(s, v, pair->scale, floor, &disagrees);
    if (disagrees && mode != REF_GJK_INTERSECT) {
        /* the feature's normal and the weighted sum disagreed beyond what
         * rounding explains: a sliver (a hull's 6 mm edge swept along a 4 m
         * segment) whose float weights put v 17 mrad off while the cross
         * products had it right. The simplex solved in double decides. */
        const v3 exact = resolve_double(s, s->bits);
        int again = 0;
        out->v = refined_v(s, exact, pair->scale, 0.0f, &again);
    }
}
