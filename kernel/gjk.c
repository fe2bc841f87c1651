/* GJK, SIMD kernel. */
#include "gjk.h"
#include "cache.h"
#include "tolerance.h"
#include "support_scan.h"
#include "johnson_step.h"
#include "closest_double.h"
#include "edge_pair.h"

#include <float.h>
#include <string.h>

/* v.w > clear |v|, squared: D's support along -v (w) lies past `clear`
 * along v, so v separates the shapes by more than that. */
static int clears(float along, float vv, float clear) { return along > 0.0f && along * along > clear * clear * vv; }

/* The closest point recomputed from its feature's normal (Catto, GDC 2010):
 * cross products of edges instead of the weighted sum, whose rounding tilts
 * the normal at small distances. */
MINK_ALWAYS_INLINE v4 refined_v(const simd_simplex *s, v4 v, float vv, float scale, float floor, int *disagrees)
{
    /* the points in slot order: the lowest, the next, the one after */
    const unsigned b0 = s->bits, b1 = b0 & (b0 - 1), b2 = b1 & (b1 - 1);
    if (b0 == 15u || !b1) return v; /* a tetrahedron or a point */
    v4 p0 = s->vert[__builtin_ctz(b0)].w, p1 = s->vert[__builtin_ctz(b1)].w, p2 = b2 ? s->vert[__builtin_ctz(b2)].w : p1;
    /* the point nearest the origin as p0: the normal's rounding tilts r by
     * that point's distance times the tilt (a point 40 away, from a long
     * box, put 3.5e-5 into a distance of 0.064) */
    if (v4_len2(p1) < v4_len2(p0)) {
        const v4 t = p0;
        p0 = p1, p1 = t;
    }
    if (b2 && v4_len2(p2) < v4_len2(p0)) {
        const v4 t = p0;
        p0 = p2, p2 = t;
    }
    v4 m;
    if (!b2) {
        const v4 e = v4_sub(p1, p0);
        m = v4_cross(v4_cross(e, p0), e);
    } else {
        m = v4_cross(v4_sub(p1, p0), v4_sub(p2, p0));
    }
    float len2 = v4_len2(m);
    if (!(len2 >= 0x1p-100f)) {
        /* m is a product of three lengths, |m|^2 of six: on shapes about
         * 1e-7 across |m|^2 lies in the denormals, and the r it gave was
         * off by up to 10 % (the most the check below lets through). m
         * times a power of two instead: r does not depend on m's length,
         * and the scaling rounds nothing. */
        const v4 a = v4_max(m, v4_neg(m));
        const float mx = v4_x(v4_max(v4_max(a, v4_splat_y(a)), v4_splat_z(a)));
        if (!(mx > 0.0f)) return v;
        int e;
        (void)frexpf(mx, &e);
        m = v4_scale(m, ldexpf(1.0f, -e));
        len2 = v4_len2(m);
    }
    const v4 r = v4_scale(m, v4_dot(m, p0) / len2);
    /* kept within 10 % of v and within MINK_GJK_REFINE_REL S: on a sliver
     * (a needle's triangle, 2 x 1e-5) or a feature whose edges are
     * rounding (tiny shapes far apart) the cross product is itself noise */
    const float d2 = v4_len2(v4_sub(r, v)), near = MINK_GJK_REFINE_REL * scale;
    /* nor below `floor`, what GJK's bounds leave of the distance: a sliver's
     * normal, tilted by rounding, put r there (a triangle 2.3 long and 0.014
     * wide, 1.5 from the origin, took 6e-6 off a distance of 0.0113) */
    if (floor > 0.0f && v4_len2(r) < floor * floor) return v;
    /* nor longer than v past v's rounding (MINK_GJK_REFINE_CEIL_EPS, without
     * a root): p0 is the nearest point, so p1 or p2 the farthest */
    const float rr = v4_len2(r), longer = rr - vv, ceil = MINK_GJK_REFINE_CEIL_EPS * FLT_EPSILON;
    if (longer > 0.0f && longer * longer > 4.0f * ceil * ceil * fmaxf(v4_len2(p1), v4_len2(p2)) * rr) return v;
    if (d2 <= 0.01f * vv && d2 <= near * near) return r;
    *disagrees = 1;
    return v;
}

/* The simplex's points in `bits` solved again in double precision: sets the
 * chosen subset and weights, returns the new v. */
static v4 resolve_double(simd_simplex *s, unsigned bits)
{
    float pts[4][3], lambda[4], t[4];
    for (unsigned i = 0; i < 4; ++i) {
        v4_store(t, s->vert[i].w);
        pts[i][0] = t[0];
        pts[i][1] = t[1];
        pts[i][2] = t[2];
    }
    float v[3];
    s->bits = mink_closest_double((const float(*)[3])pts, bits, lambda, v);
    s->lambda = v4_load(lambda);
    return v4_load3(v);
}

/* The feature's normal and the weighted sum disagreed beyond what rounding
 * explains: a sliver (a hull's 6 mm edge swept along a 4 m segment) whose
 * float weights put v 17 mrad off while the cross products had it right.
 * The simplex solved in double decides, then refined as before. */
static __attribute__((noinline)) v4 refined_in_double(simd_simplex *s, float scale)
{
    const v4 exact = resolve_double(s, s->bits);
    int again = 0;
    return refined_v(s, exact, v4_len2(exact), scale, 0.0f, &again);
}

/* GJK stopped on two points of D made of two different points of each
 * shape: a diagonal of the parallelogram that an edge of A and an edge of
 * B make in D. The parallelogram's closest point is the edges' closest
 * points, and it may sit off the diagonal by more than GJK's bounds can
 * see: where |w| is a thousand times |v| (a hull 50 m across 0.24 away, or
 * 2 m across 8e-4 away), v.w rounds by more than the gap, and the
 * diagonal's normal was 2-11 mrad off; near-parallel edges make the
 * parallelogram thin and the distance flat along it (two capsules 2.4e-4
 * rad apart: 8 mrad). The simplex becomes the parallelogram's feature that
 * holds that point (its weights from the edges' parameters): the half that
 * holds it for both points inside their edges (its normal then from the
 * edges' cross product, or in double where that is noise), the side at an
 * edge's end, or the corner. */
static void edge_pair_face(simd_simplex *s)
{
    const unsigned i = (unsigned)__builtin_ctz(s->bits), j = (unsigned)__builtin_ctz(s->bits & (s->bits - 1u));
    const simd_vertex p = s->vert[i], q = s->vert[j];
    if (p.ia == q.ia || p.ib == q.ib) return;
    /* a(u) = a0 + u da, b(t) = b0 + t db; the point of D is b(t) - a(u) */
    float da[4], db[4], r[4], w[4];
    v4_store(da, v4_sub(q.pa, p.pa));
    v4_store(db, v4_sub(q.pb, p.pb));
    v4_store(r, v4_sub(p.pa, p.pb));
    if (!edge_pair_weights(da, db, r, w)) return;
    /* the corners (a1, b0) and (a0, b1) in the free slots */
    const unsigned k = (unsigned)__builtin_ctz(~s->bits & 15u), m = (unsigned)__builtin_ctz(~(s->bits | 1u << k) & 15u);
    simd_vertex *c10 = &s->vert[k], *c01 = &s->vert[m];
    c10->pa = q.pa, c10->pb = p.pb, c10->w = v4_sub(p.pb, q.pa);
    simd_vertex_set_ids(c10, q.ia, p.ib);
    c01->pa = p.pa, c01->pb = q.pb, c01->w = v4_sub(q.pb, p.pa);
    simd_vertex_set_ids(c01, p.ia, q.ib);
    float lambda[4];
    lambda[i] = w[0], lambda[j] = w[1], lambda[k] = w[2], lambda[m] = w[3];
    unsigned bits = 0;
    for (unsigned x = 0; x < 4; ++x) bits |= (unsigned)(lambda[x] > 0.0f) << x;
    s->lambda = v4_load(lambda);
    s->bits = bits;
}

/* GJK stalled in float (a repeated point, no progress) with the lower bound
 * v.w / |v| not positive: nothing certifies a gap, and the upper bound |v|
 * is tiny (MINK_GJK_STALL_REL): the origin may be deep inside D across a
 * thin direction the simplex cannot resolve. Call it an overlap: EPA then
 * measures the depth (about 0 if the shapes only touch). */
static int stalled_at_origin(float vdotw, float vv, float scale)
{
    const float small = MINK_GJK_STALL_REL * scale;
    return !(vdotw > 0.0f) && vv <= small * small;
}

void mink_simd_gjk(simd_pair *pair, simd_gjk_mode mode, float margin, v4 v0,
              const simd_vertex *seed, unsigned nseed, simd_gjk_result *out)
{
    /* a local: the loop's stores through s might alias pair->scale */
    const float flat_tol = MINK_TOUCH_REL * pair->scale;
    const float touch2 = flat_tol * flat_tol;
    const float ea = pair->a->extent + pair->a->radius, eb = pair->b->extent + pair->b->radius;
    const float gap_tol = mink_gjk_gap_tol(ea < eb ? ea : eb, pair->scale), gap2 = gap_tol * gap_tol;
    const float margin2 = margin * margin;
    /* vv <= touch2, or (intersect) vv <= margin2: one bound, the larger */
    const float overlap2 = mode == SIMD_GJK_INTERSECT && margin2 > touch2 ? margin2 : touch2;
    simd_simplex *s = &out->simplex;
    unsigned resolves = 0, ties = 0;
    int converged = 0; /* the bounds met within gap_tol */

    v4 v;
    int apart_at_start = 0; /* (intersect) v0 separates: no loop */
    if (nseed == 0 || !mink_simd_johnson_seed(s, seed, nseed, flat_tol, &v)) {
        if (!(v4_len2(v0) > 0.0f)) v0 = v4_set(1, 0, 0, 0);
        const simd_vertex first = support_pair_against(pair, v0);
        v = simplex_start(s, &first);
        /* D's support along -v0 past the margin and the touching band along
         * v0 (touching counts as overlap; the loop decides within the band):
         * v0 separates the shapes. v0 is the line between the shapes'
         * origins (or a held axis): it separates most apart pairs, as MPR's
         * first test finds, at one support instead of GJK's three or four. */
        if (mode == SIMD_GJK_INTERSECT && clears(v4_dot(v0, first.w), v4_len2(v0), margin + flat_tol)) {
            v = v0;
            apart_at_start = 1;
        }
    }
    float vv = v4_len2(v); /* kept equal to |v|^2 at every change of v */
    /* The next support's direction: v, or after a Johnson step h v
     * (subset_direction: without v's division, known earlier), with
     * dir_inv_h = 1 / h. The bounds take v.w as (h v).w / h: w is the
     * support along -h v, and the two directions differ by rounding of
     * ~eps S / |v|. With v.w itself, at |v| = 2.2e-6 S on a simplex about
     * 1 long, the support along a direction 3 % off gave v.w > |v|^2, a
     * "converged" gap, and a capsule 1.2e-3 deep in a hull came out 2.2e-6
     * apart (tests/test_regressions.c). */
    v4 dir = v;
    float dir_inv_h = 1.0f;
    unsigned iterations = 0;

    out->overlap = 0;
    out->apart_proven = apart_at_start;
    out->stalled = 0;
    out->tied = 0;
    out->status = MINK_OK;

    while (!apart_at_start) {
        if (s->bits == 15u) {
            if (origin_clearly_inside(s, pair->scale, &s->lambda)) {
                out->overlap = 1;
                v = weighted_point(s, s->lambda); /* about 0: the cache's axis */
                break;
            }
            /* four points around the origin, if double precision agrees (a
             * nearly flat tetrahedron's float determinants are noise) */
            const v4 exact = resolve_double(s, 15u);
            if (s->bits == 15u) {
                out->overlap = 1;
                v = exact;
                break;
            }
            v = exact; /* the double answer, whether or not the loop goes on */
            dir = v;
            dir_inv_h = 1.0f;
            vv = v4_len2(v);
            if (resolves++ >= MINK_GJK_MAX_RESOLVES) {
                out->stalled = !converged; /* the resolves spent on a flat tetrahedron */
                break;
            }
        }
        /* the origin on the simplex up to rounding, or (intersect) cores
         * within the margin: |v| bounds the core distance from above */
        if (vv <= overlap2) {
            out->overlap = 1;
            break;
        }
        if (iterations >= MINK_GJK_MAX_ITERATIONS) {
            out->status = MINK_MAX_ITERATIONS; /* v is the best upper bound */
            break;
        }
        iterations++;

        const simd_vertex w = support_pair_against(pair, dir);
        const float vdotw = v4_dot(dir, w.w) * dir_inv_h;
        if (mode == SIMD_GJK_INTERSECT && vdotw > 0.0f && vdotw * vdotw > margin2 * vv) {
            out->apart_proven = 1;
            break;
        }

        /* gap (vv - vw)/|v| <= tol, squared to avoid the root */
        const float gap = vv - vdotw;
        if (gap <= 0.0f || gap * gap <= gap2 * vv) {
            converged = 1;
            /* unless a new point nearly tied with v may still turn it
             * (MINK_GJK_TIE_ANGLE): then the step below, as any other */
            const float tie_rounding = MINK_GJK_TIE_ROUNDING * FLT_EPSILON;
            if (mode == SIMD_GJK_INTERSECT || ties >= MINK_GJK_TIE_STEPS || gap <= 0.0f ||
                !(2.0f * gap > MINK_GJK_TIE_ANGLE * MINK_GJK_TIE_ANGLE * vv))
                break;
            if (!(gap * gap > tie_rounding * tie_rounding * vv * v4_len2(w.w))) {
                /* tied within rounding: a corner of the face that holds v,
                 * unless v lies on a vertex or an edge of D (MINK_GJK_TIE_ANGLE) */
                out->tied = __builtin_popcount(s->bits) <= 2 && !simplex_repeats(s, s->bits, &w);
                break;
            }
            if (simplex_repeats(s, s->bits, &w)) break;
            ties++;
        }
        /* Adding a point writes only its free slot and subsets holding it, so
         * the old simplex comes back from its mask and weights alone. */
        const unsigned old_bits = s->bits;
        v4 next, next_lambda;
        /* adds w, unless it repeats a point; inline: johnson_step.h */
        v4 next_dir;
        float next_inv_h;
        const int step =
            johnson(s, &w, &next, &next_lambda, flat_tol, pair->scale, !(vdotw > 0.0f), &next_dir, &next_inv_h);
        if (step == JOHNSON_HOLDS) {
            out->overlap = 1;
            v = weighted_point(s, s->lambda); /* about 0: the cache's axis */
            break;
        }
        /* four points around the origin by the determinants, not clearly:
         * straight to the loop's containment check and double precision
         * (v, its weights and the next direction are not needed there) */
        if (step == JOHNSON_SURROUNDS) continue;
        if (step == JOHNSON_NONE) {
            /* a repeated support point while the bounds disagree: v is off
             * by rounding; solve again in double, stop if that does not
             * change v. The double point is taken even if a little longer:
             * it is the same simplex's closest point, which float rounding
             * had made shorter (a simplex about 1 long, 3e-5 from the
             * origin: v's direction was off by 0.2 %, the support along it
             * repeated a point, and GJK stopped at a false gap of 3e-5
             * with the cores 1.4e-3 deep in each other). */
            if (resolves++ < MINK_GJK_MAX_RESOLVES) {
                const v4 exact = resolve_double(s, s->bits);
                const float exact_vv = v4_len2(exact);
                if (!v4_all(v4_cmpeq(exact, v))) {
                    v = exact;
                    dir = v;
                    dir_inv_h = 1.0f;
                    vv = exact_vv;
                    continue;
                }
            }
            out->overlap = stalled_at_origin(vdotw, vv, pair->scale);
            out->stalled = !out->overlap && !converged;
            break;
        }
        const float next_vv = v4_len2(next);
        const unsigned new_bit = 1u << s->last;
        if (s->bits != 15u && (next_vv >= vv || !(s->bits & new_bit))) {
            /* no progress in float: v did not shrink, or the new subset
             * left the new point out (in exact arithmetic it always holds
             * it, as w lies beyond v's plane towards the origin). The new
             * set in double is the true closest point of the points so far:
             * taken unless it is v itself (then keep the previous simplex;
             * s->lambda still holds its weights). Where it leaves the new
             * point out too, float v was off the old simplex's closest
             * point by rounding, as on a repeated point. */
            const v4 old_lambda = s->lambda;
            if (resolves++ < MINK_GJK_MAX_RESOLVES) {
                const v4 exact = resolve_double(s, old_bits | new_bit);
                const float exact_vv = v4_len2(exact);
                if (s->bits == 15u || !v4_all(v4_cmpeq(exact, v))) {
                    v = exact;
                    dir = v;
                    dir_inv_h = 1.0f;
                    vv = exact_vv;
                    continue;
                }
            }
            s->bits = old_bits;
            s->lambda = old_lambda;
            out->overlap = stalled_at_origin(vdotw, vv, pair->scale);
            out->stalled = !out->overlap && !converged;
            break;
        }
        s->lambda = next_lambda;
        v = next;
        vv = next_vv;
        dir = next_dir;
        dir_inv_h = next_inv_h;
    }
    out->iterations = iterations;
    /* converged, the distance is within gap_tol of |v| (less the rounding
     * of the support points): the refined point may not fall below that */
    const float floor = converged ? sqrtf(vv) - gap_tol - MINK_TOUCH_REL * pair->scale : 0.0f;
    if (mode != SIMD_GJK_INTERSECT && !out->overlap && __builtin_popcount(s->bits) == 2) {
        const unsigned diagonal = s->bits;
        edge_pair_face(s);
        if (s->bits != diagonal) {
            v = weighted_point(s, s->lambda);
            vv = v4_len2(v);
        }
    }
    int disagrees = 0;
    out->v = out->overlap ? v : refined_v(s, v, vv, pair->scale, floor, &disagrees); /* vv = |v|^2 */
    if (disagrees && mode != SIMD_GJK_INTERSECT) out->v = refined_in_double(s, pair->scale);
}

/* ---- The boolean search: intersect of sharp cores, cold ---------------- */

/* The boolean search's simplex, newest point first: D's points and their
 * feature ids (ia, ib as one word). */
typedef struct bool_simplex {
    v4 w[4];
    uint64_t id[4];
    unsigned n;
} bool_simplex;

/* The id of the cores' centres' difference (CACHE_INNER_ID twice). */
#define BOOL_INNER_ID ((uint64_t)CACHE_INNER_ID << 32 | CACHE_INNER_ID)

MINK_ALWAYS_INLINE uint64_t vertex_id(const simd_vertex *p)
{
    uint64_t id;
    memcpy(&id, p->ids, sizeof id);
    return id;
}

/* The part of `ao` across the edge e from its start a (ao = -a): the edge's
 * normal towards the origin, |e|^2 times the distance's direction. */
MINK_ALWAYS_INLINE v4 edge_normal(v4 e, v4 ao) { return v4_cross(v4_cross(e, ao), e); }

/* Keeps n of the simplex's points: those at i0, i1, i2 (the first n of
 * them), in that order. */
MINK_ALWAYS_INLINE void bool_keep(bool_simplex *b, unsigned n, unsigned i0, unsigned i1, unsigned i2)
{
    const v4 w0 = b->w[i0], w1 = b->w[i1], w2 = b->w[i2];
    const uint64_t d0 = b->id[i0], d1 = b->id[i1], d2 = b->id[i2];
    b->w[0] = w0, b->w[1] = w1, b->w[2] = w2;
    b->id[0] = d0, b->id[1] = d1, b->id[2] = d2;
    b->n = n;
}

/* The segment a = w[0], b = w[1]: its edge or a alone, whichever region of
 * the segment holds the origin; returns the direction towards it. */
MINK_ALWAYS_INLINE v4 bool_segment(bool_simplex *s)
{
    const v4 a = s->w[0], ab = v4_sub(s->w[1], a), ao = v4_neg(a);
    if (v4_dot(ab, ao) > 0.0f) {
        s->n = 2;
        return edge_normal(ab, ao);
    }
    s->n = 1;
    return ao;
}

/* The triangle a = w[0], b, c (Muratori's regions: only those touching the
 * newest point a can hold the origin). The kept triangle is ordered so
 * that (b - a) x (c - a) faces the origin: the tetrahedron's faces below
 * rely on it. */
MINK_ALWAYS_INLINE v4 bool_triangle(bool_simplex *s)
{
    const v4 a = s->w[0], ab = v4_sub(s->w[1], a), ac = v4_sub(s->w[2], a), ao = v4_neg(a);
    const v4 abc = v4_cross(ab, ac);
    if (v4_dot(v4_cross(abc, ac), ao) > 0.0f) {
        if (v4_dot(ac, ao) > 0.0f) {
            bool_keep(s, 2, 0, 2, 2);
            return edge_normal(ac, ao);
        }
        return bool_segment(s);
    }
    if (v4_dot(v4_cross(ab, abc), ao) > 0.0f) return bool_segment(s);
    if (v4_dot(abc, ao) > 0.0f) {
        s->n = 3;
        return abc;
    }
    bool_keep(s, 3, 0, 2, 1);
    return v4_neg(abc);
}

/* The tetrahedron a = w[0], b, c, d, whose old face bcd faces a and the
 * origin: its three new faces' normals point outwards. 1 if no face has the
 * origin outside it, else 0 and the face that has, as a triangle, with
 * *dir. */
MINK_ALWAYS_INLINE int bool_tetrahedron(bool_simplex *s, v4 *dir)
{
    const v4 a = s->w[0], ab = v4_sub(s->w[1], a), ac = v4_sub(s->w[2], a), ad = v4_sub(s->w[3], a);
    const v4 ao = v4_neg(a);
    if (v4_dot(v4_cross(ab, ac), ao) > 0.0f) {
        s->n = 3;
    } else if (v4_dot(v4_cross(ac, ad), ao) > 0.0f) {
        bool_keep(s, 3, 0, 2, 3);
    } else if (v4_dot(v4_cross(ad, ab), ao) > 0.0f) {
        bool_keep(s, 3, 0, 3, 1);
    } else {
        return 1;
    }
    *dir = bool_triangle(s);
    return 0;
}

/* The simplex into GJK's result (points and ids, for the cache). */
static void bool_result(const bool_simplex *b, int overlap, v4 v, unsigned iterations, simd_gjk_result *out)
{
    simd_simplex *s = &out->simplex;
    for (unsigned i = 0; i < b->n; ++i) {
        memcpy(s->vert[i].ids, &b->id[i], sizeof b->id[i]);
        s->vert[i].w = b->w[i];
    }
    s->bits = (1u << b->n) - 1u;
    out->overlap = overlap;
    out->apart_proven = !overlap; /* only proofs leave the search */
    out->v = v;
    out->iterations = iterations;
    out->status = MINK_OK;
}

/* The search from simplex b, direction t towards the origin (see
 * mink_simd_gjk_boolean). */
MINK_ALWAYS_INLINE int bool_search(simd_pair *pair, bool_simplex b, v4 t, float clear, simd_gjk_result *out)
{
    for (unsigned it = 1; it <= MINK_GJK_BOOL_MAX_ITERATIONS; ++it) {
        /* the origin on the simplex's feature (touching), or a direction
         * out of float's range: the full GJK decides */
        const float tt = v4_len2(t);
        if (!(tt > 0.0f && tt <= FLT_MAX)) return 0;
        const simd_vertex p = support_pair_dirs(pair, t, v4_neg(t));
        if (clears(-v4_dot(t, p.w), tt, clear)) {
            bool_result(&b, 0, v4_neg(t), it, out);
            return 1;
        }
        /* a repeated point: the simplex holds D's feature nearest the
         * origin, within the band of it (no proof either way here) */
        const uint64_t id = vertex_id(&p);
        if (id == b.id[0] || (b.n > 1 && id == b.id[1]) || (b.n > 2 && id == b.id[2])) return 0;
        /* newest first; the slots past n hold stale points, never read */
        b.w[3] = b.w[2], b.w[2] = b.w[1], b.w[1] = b.w[0];
        b.id[3] = b.id[2], b.id[2] = b.id[1], b.id[1] = b.id[0];
        b.w[0] = p.w;
        b.id[0] = id;
        b.n++;
        if (b.n == 2) {
            t = bool_segment(&b);
        } else if (b.n == 3) {
            t = bool_triangle(&b);
        } else if (bool_tetrahedron(&b, &t)) {
            /* four points around the origin by their signs: an overlap if
             * GJK's own containment test certifies it, else GJK decides */
            simd_simplex *s = &out->simplex;
            v4 side_o, side_p;
            for (unsigned i = 0; i < 4; ++i) s->vert[i].w = b.w[i];
            if (!origin_clearly_inside_sides(s, pair->scale, &side_o, &side_p)) return 0;
            bool_result(&b, 1, t, it, out); /* the axis: the last direction */
            return 1;
        }
    }
    return 0;
}

int mink_simd_gjk_boolean(simd_pair *pair, v4 v0, simd_gjk_result *out)
{
    const float clear = MINK_TOUCH_REL * pair->scale;
    if (!(v4_len2(v0) > 0.0f)) v0 = v4_set(1, 0, 0, 0);
    const simd_vertex first = support_pair_against(pair, v0);
    const bool_simplex b = {.w = {first.w, v4_zero(), v4_zero(), v4_zero()}, .id = {vertex_id(&first), 0, 0, 0}, .n = 1};
    /* apart: D's support along -v0 past the touching band along v0 */
    if (clears(v4_dot(v0, first.w), v4_len2(v0), clear)) {
        bool_result(&b, 0, v0, 0, out);
        return 1;
    }
    return bool_search(pair, b, v4_neg(first.w), clear, out);
}

int mink_simd_gjk_boolean_inner(simd_pair *pair, v4 inner, simd_gjk_result *out)
{
    const float clear = MINK_TOUCH_REL * pair->scale;
    if (!(v4_len2(inner) > 0.0f)) return 0; /* the centres meet (an overlap): GJK says so with its simplex */
    const bool_simplex b = {.w = {inner, v4_zero(), v4_zero(), v4_zero()}, .id = {BOOL_INNER_ID, 0, 0, 0}, .n = 1};
    return bool_search(pair, b, v4_neg(inner), clear, out);
}

int mink_simd_tetra_holds_origin(const v4 w[4], float scale)
{
    simd_simplex s;
    v4 side_o, side_p;
    for (unsigned i = 0; i < 4; ++i) s.vert[i].w = w[i];
    return origin_clearly_inside_sides(&s, scale, &side_o, &side_p);
}
