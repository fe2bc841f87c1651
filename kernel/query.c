/* Public queries of the SIMD kernel: validate, place B in A's frame once,
 * GJK on the cores, EPA when the cores overlap, radii, back to world. */
#include "mink/mink.h"
#include "epa.h"
#include "gjk.h"
#include "shape.h"

typedef struct simd_query {
    mink_pose pa, pb;
    v4 rot_a[3];     /* rows: A local -> world */
    v4 pos_a;
    simd_pair pair;
    float ra, rb;
} simd_query;

static int query_begin(simd_query *q, const mink_shape *a, const mink_pose *pa,
                       const mink_shape *b, const mink_pose *pb)
{
    if (mink_check_query(a, pa, b, pb, &q->pa, &q->pb) != 0) return 0;
    simd_pair_init(&q->pair, a, &q->pa, b, &q->pb, q->rot_a);
    q->pos_a = v4_from_vec3(q->pa.p);
    q->ra = a->radius;
    q->rb = b->radius;
    return 1;
}

static mink_vec3 world_point(const simd_query *q, v4 p) { return v4_to_vec3(v4_add(rot_apply(q->rot_a, p), q->pos_a)); }

static void finish(const simd_query *q, v4 pa_core, v4 pb_core, v4 n, float distance, mink_result *out)
{
    out->distance = distance;
    out->normal = v4_to_vec3(rot_apply(q->rot_a, n));
    out->point_a = world_point(q, v4_add(pa_core, v4_scale(n, q->ra)));
    out->point_b = world_point(q, v4_sub(pb_core, v4_scale(n, q->rb)));
}

static v4 fallback_normal(const simd_query *q)
{
    const float len2 = v4_len2(q->pair.pos_b);
    return len2 > 0.0f ? v4_scale(q->pair.pos_b, 1.0f / sqrtf(len2)) : v4_set(1, 0, 0, 0);
}

int mink_intersect(const mink_shape *a, const mink_pose *pa,
                   const mink_shape *b, const mink_pose *pb, mink_cache *cache)
{
    (void)cache;
    simd_query q;
    if (!query_begin(&q, a, pa, b, pb)) return MINK_ERR_INVALID;
    simd_gjk_result g;
    simd_gjk(&q.pair, SIMD_GJK_INTERSECT, q.ra + q.rb, q.pair.pos_b, &g);
    return g.overlap;
}

mink_status mink_distance(const mink_shape *a, const mink_pose *pa,
                          const mink_shape *b, const mink_pose *pb,
                          mink_cache *cache, mink_result *out)
{
    (void)cache;
    simd_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_begin(&q, a, pa, b, pb)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    simd_gjk_result g;
    simd_gjk(&q.pair, SIMD_GJK_DISTANCE, 0.0f, q.pair.pos_b, &g);
    v4 pa_core, pb_core;
    simd_simplex_points(&g.simplex, &pa_core, &pb_core);
    const float dc = sqrtf(v4_len2(g.v));
    const float margin = q.ra + q.rb;
    out->iterations = g.iterations;
    out->status = g.status;
    if (!g.overlap && dc > margin) {
        finish(&q, pa_core, pb_core, v4_scale(g.v, 1.0f / dc), dc - margin, out);
    } else if (!g.overlap && dc > 0.0f) {
        /* shallow overlap: a common point, mid-overlap along the core axis */
        const v4 n = v4_scale(g.v, 1.0f / dc);
        const v4 p = v4_add(pa_core, v4_scale(n, 0.5f * (q.ra + dc - q.rb)));
        finish(&q, p, p, n, 0.0f, out);
        out->point_a = out->point_b = world_point(&q, p);
    } else {
        /* the cores overlap: GJK's weights give a point of both cores */
        out->distance = 0.0f;
        out->normal = v4_to_vec3(rot_apply(q.rot_a, fallback_normal(&q)));
        out->point_a = out->point_b = world_point(&q, pa_core);
    }
    return out->status;
}

mink_status mink_penetration(const mink_shape *a, const mink_pose *pa,
                             const mink_shape *b, const mink_pose *pb,
                             mink_cache *cache, mink_result *out)
{
    (void)cache;
    simd_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_begin(&q, a, pa, b, pb)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    simd_gjk_result g;
    simd_gjk(&q.pair, SIMD_GJK_DISTANCE, 0.0f, q.pair.pos_b, &g);
    const float margin = q.ra + q.rb;
    out->iterations = g.iterations;
    out->status = g.status;
    if (!g.overlap) {
        v4 pa_core, pb_core;
        simd_simplex_points(&g.simplex, &pa_core, &pb_core);
        const float dc = sqrtf(v4_len2(g.v));
        finish(&q, pa_core, pb_core, v4_scale(g.v, 1.0f / dc), dc - margin, out);
        return out->status;
    }
    simd_epa_result e;
    simd_epa(&q.pair, &g.simplex, &e);
    out->iterations += e.iterations;
    if (e.status != MINK_OK) out->status = e.status;
    finish(&q, e.pa, e.pb, e.normal, -(e.depth + margin), out);
    return out->status;
}
