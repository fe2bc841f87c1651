/* Support mapping per shape type, written for clarity. */
#include "support_ref.h"

ref_support mink_scalar_support_local(const mink_shape *s, v3 d)
{
    ref_support r = {{0, 0, 0}, 0};
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        /* ties (d.y == 0) go to the +h end so the answer is deterministic */
        r.index = d.y >= 0.0f ? 1u : 0u;
        r.p.y = r.index ? s->half[1] : -s->half[1];
        break;
    case MINK_SHAPE_BOX:
        r.index = (d.x >= 0.0f ? 1u : 0u) | (d.y >= 0.0f ? 2u : 0u) | (d.z >= 0.0f ? 4u : 0u);
        r.p = mink_scalar_core_point(s, r.index);
        break;
    case MINK_SHAPE_HULL: {
        /* first maximum wins ties: the lowest index, as in the SIMD scan */
        float best = s->x[0] * d.x + s->y[0] * d.y + s->z[0] * d.z;
        uint32_t arg = 0;
        for (uint32_t i = 1; i < s->count; ++i) {
            const float dot = s->x[i] * d.x + s->y[i] * d.y + s->z[i] * d.z;
            if (dot > best) {
                best = dot;
                arg = i;
            }
        }
        r.index = arg;
        r.p = v3_make(s->x[arg], s->y[arg], s->z[arg]);
        break;
    }
    default: /* sphere: the core is the origin */
        break;
    }
    return r;
}

v3 mink_scalar_core_point(const mink_shape *s, uint32_t index)
{
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        return v3_make(0, (index & 1u) ? s->half[1] : -s->half[1], 0);
    case MINK_SHAPE_BOX:
        return v3_make((index & 1u) ? s->half[0] : -s->half[0], (index & 2u) ? s->half[1] : -s->half[1],
                       (index & 4u) ? s->half[2] : -s->half[2]);
    case MINK_SHAPE_HULL:
        if (index >= s->count) index = 0;
        return v3_make(s->x[index], s->y[index], s->z[index]);
    default:
        return v3_make(0, 0, 0);
    }
}

void mink_scalar_pair_init(ref_pair *pair, const mink_shape *a, const mink_pose *pa,
                   const mink_shape *b, const mink_pose *pb)
{
    const m33 ra = m33_from_quat(pa->q);
    pair->a = a;
    pair->b = b;
    pair->rot_b = m33_from_quat(quat_conj_mul(pa->q, pb->q));
    pair->pos_b = m33_tmul(&ra, v3_sub(pb->p, pa->p));
    pair->scale = a->extent + b->extent + v3_len(pair->pos_b);
    if (!(pair->scale > 1e-30f)) pair->scale = 1e-30f; /* two points at one place */
    pair->support_calls = 0;
}

ref_vertex mink_scalar_support_pair(ref_pair *pair, v3 d)
{
    ref_vertex v;
    const ref_support sa = mink_scalar_support_local(pair->a, v3_neg(d));
    const ref_support sb = mink_scalar_support_local(pair->b, m33_tmul(&pair->rot_b, d));
    v.pa = sa.p;
    v.pb = v3_add(m33_mul(&pair->rot_b, sb.p), pair->pos_b);
    v.w = v3_sub(v.pb, v.pa);
    v.ia = sa.index;
    v.ib = sb.index;
    pair->support_calls++;
    return v;
}
