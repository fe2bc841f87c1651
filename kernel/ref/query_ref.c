/* Public entry points of the scalar reference: validate, move B into A's
 * frame, GJK on the cores, EPA when the cores overlap, radii, back to world. */
#include "mink/mink_ref.h"
#include "epa_ref.h"
#include "gjk_ref.h"
#include "shape.h"

typedef struct ref_query {
    mink_pose pa, pb;   /* validated, unit quaternions */
    m33 rot_a;          /* A local -> world            */
    ref_pair pair;
    float ra, rb;
} ref_query;

static int query_begin(ref_query *q, const mink_shape *a, const mink_pose *pa,
                       const mink_shape *b, const mink_pose *pb)
{
    if (mink_check_query(a, pa, b, pb, &q->pa, &q->pb) != 0) return 0;
    q->rot_a = m33_from_quat(q->pa.q);
    ref_pair_init(&q->pair, a, &q->pa, b, &q->pb);
    q->ra = a->radius;
    q->rb = b->radius;
    return 1;
}

static v3 world_point(const ref_query *q, v3 p) { return v3_add(m33_mul(&q->rot_a, p), q->pa.p); }

/* Fills the result from core witnesses (A frame), a unit normal and the
 * signed distance of the rounded shapes: each witness moves out by its radius. */
static void finish(const ref_query *q, v3 pa_core, v3 pb_core, v3 n, float distance, mink_result *out)
{
    out->distance = distance;
    out->normal = m33_mul(&q->rot_a, n);
    out->point_a = world_point(q, v3_add(pa_core, v3_scale(n, q->ra)));
    out->point_b = world_point(q, v3_sub(pb_core, v3_scale(n, q->rb)));
}

/* B's direction from A when no better normal is known. */
static v3 fallback_normal(const ref_query *q)
{
    const float len = v3_len(q->pair.pos_b);
    return len > 0.0f ? v3_scale(q->pair.pos_b, 1.0f / len) : v3_make(1, 0, 0);
}

int mink_ref_intersect(const mink_shape *a, const mink_pose *pa,
                       const mink_shape *b, const mink_pose *pb, mink_cache *cache)
{
    (void)cache;
    ref_query q;
    if (!query_begin(&q, a, pa, b, pb)) return MINK_ERR_INVALID;
    ref_gjk_result g;
    ref_gjk(&q.pair, REF_GJK_INTERSECT, q.ra + q.rb, q.pair.pos_b, &g);
    return g.overlap;
}

mink_status mink_ref_distance(const mink_shape *a, const mink_pose *pa,
                              const mink_shape *b, const mink_pose *pb,
                              mink_cache *cache, mink_result *out)
{
    (void)cache;
    ref_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_begin(&q, a, pa, b, pb)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    ref_gjk_result g;
    ref_gjk(&q.pair, REF_GJK_DISTANCE, 0.0f, q.pair.pos_b, &g);
    v3 pa_core, pb_core;
    ref_simplex_points(&g.simplex, &pa_core, &pb_core);
    const float dc = v3_len(g.v);
    const float margin = q.ra + q.rb;
    out->iterations = g.iterations;
    out->status = g.status;

    if (!g.overlap && dc > margin) {
        finish(&q, pa_core, pb_core, v3_scale(g.v, 1.0f / dc), dc - margin, out);
    } else if (!g.overlap && dc > 0.0f) {
        /* Shallow overlap of the rounded shapes: report a common point, the
         * middle of the overlap along the core axis. */
        const v3 n = v3_scale(g.v, 1.0f / dc);
        const v3 p = v3_add(pa_core, v3_scale(n, 0.5f * (q.ra + dc - q.rb)));
        finish(&q, p, p, n, 0.0f, out);
        out->point_a = out->point_b = world_point(&q, p);
    } else {
        /* The cores overlap: GJK's weights give a point of both cores. */
        out->distance = 0.0f;
        out->normal = m33_mul(&q.rot_a, fallback_normal(&q));
        out->point_a = out->point_b = world_point(&q, pa_core);
    }
    return out->status;
}

mink_status mink_ref_penetration(const mink_shape *a, const mink_pose *pa,
                                 const mink_shape *b, const mink_pose *pb,
                                 mink_cache *cache, mink_result *out)
{
    (void)cache;
    ref_query q;
    if (!out) return MINK_ERR_INVALID;
    if (!query_begin(&q, a, pa, b, pb)) {
        mink_result_error(out, MINK_ERR_INVALID);
        return MINK_ERR_INVALID;
    }
    ref_gjk_result g;
    ref_gjk(&q.pair, REF_GJK_DISTANCE, 0.0f, q.pair.pos_b, &g);
    const float margin = q.ra + q.rb;
    out->iterations = g.iterations;
    out->status = g.status;

    if (!g.overlap) {
        /* Separated, or a shallow contact of rounded shapes: GJK's closest
         * points of the cores give both; no EPA. */
        v3 pa_core, pb_core;
        ref_simplex_points(&g.simplex, &pa_core, &pb_core);
        const float dc = v3_len(g.v);
        finish(&q, pa_core, pb_core, v3_scale(g.v, 1.0f / dc), dc - margin, out);
        return out->status;
    }
    ref_epa_result e;
    ref_epa(&q.pair, &g.simplex, &e);
    out->iterations += e.iterations;
    if (e.status != MINK_OK) out->status = e.status;
    finish(&q, e.pa, e.pb, e.normal, -(e.depth + margin), out);
    return out->status;
}
