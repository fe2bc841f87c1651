/* GJK, SIMD kernel. */
#include "gjk.h"
#include "tolerance.h"
#include "support_scan.h"
#include "johnson_step.h"
#include "closest_double.h"

/* The closest point recomputed from its feature's normal (Catto, GDC 2010):
 * cross products of edges instead of the weighted sum, whose rounding tilts
 * the normal at small distances. */
static v4 refined_v(const simd_simplex *s, v4 v, float vv, float scale)
{
    /* the points in slot order: the lowest, the next, the one after */
    const unsigned b0 = s->bits, b1 = b0 & (b0 - 1), b2 = b1 & (b1 - 1);
    if (b0 == 15u || !b1) return v; /* a tetrahedron or a point */
    const v4 p0 = s->vert[__builtin_ctz(b0)].w, p1 = s->vert[__builtin_ctz(b1)].w;
    v4 m;
    if (!b2) {
        const v4 e = v4_sub(p1, p0);
        m = v4_cross(v4_cross(e, p0), e);
    } else {
        m = v4_cross(v4_sub(p1, p0), v4_sub(s->vert[__builtin_ctz(b2)].w, p0));
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
    return d2 <= 0.01f * vv && d2 <= near * near ? r : v;
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
    const float gap2 = (MINK_GJK_GAP_REL * pair->scale) * (MINK_GJK_GAP_REL * pair->scale);
    const float margin2 = margin * margin;
    /* vv <= touch2, or (intersect) vv <= margin2: one bound, the larger */
    const float overlap2 = mode == SIMD_GJK_INTERSECT && margin2 > touch2 ? margin2 : touch2;
    simd_simplex *s = &out->simplex;
    unsigned resolves = 0;

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
        const float v0w = v4_dot(v0, first.w), clear = margin + flat_tol;
        if (mode == SIMD_GJK_INTERSECT && v0w > 0.0f && v0w * v0w > clear * clear * v4_len2(v0)) {
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
            if (resolves++ >= MINK_GJK_MAX_RESOLVES) break;
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
        if (mode == SIMD_GJK_INTERSECT && vdotw > 0.0f && vdotw * vdotw > margin2 * vv) break;

        /* gap (vv - vw)/|v| <= tol, squared to avoid the root */
        const float gap = vv - vdotw;
        if (gap <= 0.0f || gap * gap <= gap2 * vv) break;
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
            break;
        }
        s->lambda = next_lambda;
        v = next;
        vv = next_vv;
        dir = next_dir;
        dir_inv_h = next_inv_h;
    }
    out->iterations = iterations;
    out->v = out->overlap ? v : refined_v(s, v, vv, pair->scale); /* vv = |v|^2 */
}
