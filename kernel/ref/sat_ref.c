/* The separating-axis scans of contact manifolds, scalar reference: plain
 * loops over faces, points and arc pairs; and mink_ref_manifold. */
#include "manifold.h"
#include "mink/mink_ref.h"
#include "support_ref.h"

#include <math.h>

static uint32_t support_ref(const mink_shape *s, v3 d, float *dot)
{
    const ref_support r = mink_scalar_support_local(s, d);
    *dot = v3_dot(d, r.p);
    return r.index;
}

/* Keeps the largest value with its index and the largest of the others. */
static void keep_best(sat_best *b, float v, uint32_t i, uint32_t j)
{
    if (v > b->value) {
        b->second = b->value;
        b->value = v, b->i = i, b->j = j;
    } else if (v > b->second) {
        b->second = v;
    }
}

static void face_scan_ref(const soa_planes *planes, const soa_points *points, sat_best *out)
{
    *out = (sat_best){-INFINITY, -INFINITY, 0, 0, {0, 0, 0}};
    for (uint32_t i = 0; i < planes->count; ++i) {
        const v3 n = v3_make(planes->nx[i], planes->ny[i], planes->nz[i]);
        float lowest = INFINITY;
        for (uint32_t k = 0; k < points->count; ++k)
            lowest = fminf(lowest, v3_dot(n, v3_make(points->x[k], points->y[k], points->z[k])));
        keep_best(out, lowest - planes->d[i], i, 0);
    }
}

static v3 arc_vec(const soa_arcs *a, unsigned k, uint32_t i) { return v3_make(a->f[k][i], a->f[k + 1][i], a->f[k + 2][i]); }

static void edge_scan_ref(const soa_arcs *a, const soa_arcs *b, float stop, sat_edge_scan *out)
{
    out->best = (sat_best){-INFINITY, -INFINITY, 0, 0, {0, 0, 0}};
    out->near_count = 0;
    const float near2 = SAT_NEAR_PARALLEL_SIN * SAT_NEAR_PARALLEL_SIN;
    for (uint32_t j = 0; j < b->count; ++j) {
        const v3 c = v3_neg(arc_vec(b, HULL_ARC_N0, j)), d = v3_neg(arc_vec(b, HULL_ARC_N1, j));
        const v3 eb = arc_vec(b, HULL_ARC_E, j), ob = arc_vec(b, HULL_ARC_O, j);
        for (uint32_t i = 0; i < a->count; ++i) {
            const v3 a0 = arc_vec(a, HULL_ARC_N0, i), a1 = arc_vec(a, HULL_ARC_N1, i), ea = arc_vec(a, HULL_ARC_E, i);
            const float cba = v3_dot(c, ea), dba = v3_dot(d, ea), adc = v3_dot(a0, eb), bdc = v3_dot(a1, eb);
            if (!(cba * dba < 0.0f && adc * bdc < 0.0f && cba * bdc > 0.0f)) continue;
            v3 x = v3_cross(ea, eb);
            const float len2 = v3_len2(x);
            if (len2 < near2) {
                /* the stage values these in double */
                if (out->near_count < SAT_NEAR_PARALLEL_MAX) {
                    out->near_i[out->near_count] = i;
                    out->near_j[out->near_count] = j;
                }
                out->near_count++;
                continue;
            }
            x = v3_scale(x, 1.0f / sqrtf(len2));
            if (v3_dot(x, v3_add(a0, a1)) < 0.0f) x = v3_neg(x); /* outward from A */
            const float sep = v3_dot(x, v3_sub(ob, arc_vec(a, HULL_ARC_O, i)));
            keep_best(&out->best, sep, i, j);
            if (sep > stop) return; /* a separating axis: no contact */
        }
    }
}

/* Ericson's box-box test (Real-Time Collision Detection, 4.4.1), as
 * separations: r[i][j] = a_i . b_j, d = pos. Face axes of A: |d_i| less
 * both projected radii; of B likewise along b_j; a_i x b_j: |d.(a_i x b_j)|
 * less the radii, over |a_i x b_j|. */
uint32_t mink_box_sat_scalar(const float ha[3], const float hb[3], const v3 rot[3], v3 pos, float sep[BOX_SEPS])
{
    uint32_t left_out = 0;
    float r[3][3], ar[3][3];
    for (int i = 0; i < 3; ++i) {
        const float row[3] = {rot[i].x, rot[i].y, rot[i].z};
        for (int j = 0; j < 3; ++j) r[i][j] = row[j], ar[i][j] = fabsf(row[j]);
    }
    const float d[3] = {pos.x, pos.y, pos.z};
    for (int i = 0; i < 3; ++i) sep[i] = fabsf(d[i]) - (ha[i] + hb[0] * ar[i][0] + hb[1] * ar[i][1] + hb[2] * ar[i][2]);
    for (int j = 0; j < 3; ++j) {
        const float db = d[0] * r[0][j] + d[1] * r[1][j] + d[2] * r[2][j];
        sep[3 + j] = fabsf(db) - (ha[0] * ar[0][j] + ha[1] * ar[1][j] + ha[2] * ar[2][j] + hb[j]);
    }
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const float len = sqrtf(r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j]);
            const float ud = d[i2] * r[i1][j] - d[i1] * r[i2][j];
            const float radii = ha[i1] * ar[i2][j] + ha[i2] * ar[i1][j] + hb[j1] * ar[i][j2] + hb[j2] * ar[i][j1];
            const int parallel = len < SAT_NEAR_PARALLEL_SIN;
            sep[6 + 3 * i + j] = parallel ? -INFINITY : (fabsf(ud) - radii) / len;
            left_out |= (uint32_t)parallel << (3 * i + j);
        }
    }
    sep[BOX_AXES] = -INFINITY;
    return left_out;
}

static const manifold_kernel ref_kernel = {support_ref, mink_ref_penetration, face_scan_ref, edge_scan_ref,
                                           mink_box_sat_scalar, mink_core_soa_moved};

mink_status mink_ref_manifold(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                              float margin, mink_cache *cache, struct mink_manifold *out)
{
    return mink_manifold_run(&ref_kernel, a, pa, b, pb, margin, cache, out);
}
