/* The separating-axis scans of contact manifolds, SIMD kernel: faces in
 * lanes against one point at a time, A's arcs in lanes against one arc of
 * B at a time, the box test's axes in lanes; and mink_manifold. */
#include "box_sat.h"
#include "manifold.h"
#include "simd.h"
#include "support.h"

#include <math.h>

static uint32_t support_simd(const mink_shape *s, v3 d, float *dot)
{
    uint32_t index;
    const v4 dir = v4_set(d.x, d.y, d.z, 0.0f);
    const v4 p = mink_simd_support_local(s, dir, &index);
    *dot = v4_dot(dir, p);
    return index;
}

/* The largest of n values with its index (the first among equals) and the
 * largest of the others. */
static void top_two(const float *value, uint32_t n, sat_best *out)
{
    *out = (sat_best){-INFINITY, -INFINITY, 0, 0, {0, 0, 0}};
    for (uint32_t i = 0; i < n; ++i) {
        if (value[i] > out->value) {
            out->second = out->value;
            out->value = value[i], out->i = i;
        } else if (value[i] > out->second) {
            out->second = value[i];
        }
    }
}

/* Planes in lanes: each lane's minimum of n.p over the points, less d. */
static void face_scan_simd(const soa_planes *planes, const soa_points *points, sat_best *out)
{
    _Alignas(64) float value[2 * MANIFOLD_SAT_MAX_POINTS + MINK_HULL_PAD];
    for (uint32_t g = 0; g < planes->padded; g += MINK_W_LANES) {
        const vw nx = vw_load(planes->nx + g), ny = vw_load(planes->ny + g), nz = vw_load(planes->nz + g);
        vw lowest = vw_splat(INFINITY);
        for (uint32_t k = 0; k < points->count; ++k) {
            const vw dot = vw_madd(nz, vw_splat(points->z[k]), vw_madd(ny, vw_splat(points->y[k]), vw_mul(nx, vw_splat(points->x[k]))));
            lowest = vw_min(lowest, dot);
        }
        vw_store(value + g, vw_sub(lowest, vw_load(planes->d + g)));
    }
    top_two(value, planes->count, out); /* the padding, copies of plane 0, not counted */
}

/* One arc of B (broadcast) against A's arcs in lanes: the Gauss-map test
 * of mink_sat_arcs_cross in float, then the axis unit(ea x eb) turned outward
 * from A and the separation along it. */
static void edge_scan_simd(const soa_arcs *a, const soa_arcs *b, float stop, sat_edge_scan *out)
{
    const vw zero = vw_splat(0.0f), minus_inf = vw_splat(-INFINITY);
    const vw near2 = vw_splat(SAT_NEAR_PARALLEL_SIN * SAT_NEAR_PARALLEL_SIN);
    vw best = minus_inf, second = minus_inf, best_i = zero, best_j = zero;
    out->near_count = 0;
    for (uint32_t j = 0; j < b->count; ++j) {
        const vw cx = vw_splat(-b->f[0][j]), cy = vw_splat(-b->f[1][j]), cz = vw_splat(-b->f[2][j]);
        const vw dx = vw_splat(-b->f[3][j]), dy = vw_splat(-b->f[4][j]), dz = vw_splat(-b->f[5][j]);
        const vw ebx = vw_splat(b->f[6][j]), eby = vw_splat(b->f[7][j]), ebz = vw_splat(b->f[8][j]);
        const vw obx = vw_splat(b->f[9][j]), oby = vw_splat(b->f[10][j]), obz = vw_splat(b->f[11][j]);
        for (uint32_t g = 0; g < a->padded; g += MINK_W_LANES) {
            const vw eax = vw_load(a->f[6] + g), eay = vw_load(a->f[7] + g), eaz = vw_load(a->f[8] + g);
            const vw a0x = vw_load(a->f[0] + g), a0y = vw_load(a->f[1] + g), a0z = vw_load(a->f[2] + g);
            const vw a1x = vw_load(a->f[3] + g), a1y = vw_load(a->f[4] + g), a1z = vw_load(a->f[5] + g);
            const vw cba = vw_madd(cz, eaz, vw_madd(cy, eay, vw_mul(cx, eax)));
            const vw dba = vw_madd(dz, eaz, vw_madd(dy, eay, vw_mul(dx, eax)));
            const vw adc = vw_madd(a0z, ebz, vw_madd(a0y, eby, vw_mul(a0x, ebx)));
            const vw bdc = vw_madd(a1z, ebz, vw_madd(a1y, eby, vw_mul(a1x, ebx)));
            const vwm pass = vw_and(vw_and(vw_cmpgt(zero, vw_mul(cba, dba)), vw_cmpgt(zero, vw_mul(adc, bdc))),
                                    vw_cmpgt(vw_mul(cba, bdc), zero));
            if (vw_none(pass)) continue; /* most pairs: no Minkowski face */
            const vw xx = vw_sub(vw_mul(eay, ebz), vw_mul(eaz, eby));
            const vw xy = vw_sub(vw_mul(eaz, ebx), vw_mul(eax, ebz));
            const vw xz = vw_sub(vw_mul(eax, eby), vw_mul(eay, ebx));
            const vw len2 = vw_madd(xz, xz, vw_madd(xy, xy, vw_mul(xx, xx)));
            const vwm near = vw_and(pass, vw_cmpgt(near2, len2));
            if (!vw_none(near)) {
                /* rare: listed for the stage's double-precision values */
                _Alignas(64) float flag[MINK_W_LANES];
                vw_store(flag, vw_select(near, vw_splat(1.0f), zero));
                for (uint32_t l = 0; l < MINK_W_LANES; ++l) {
                    if (flag[l] == 0.0f) continue;
                    if (out->near_count < SAT_NEAR_PARALLEL_MAX) {
                        out->near_i[out->near_count] = g + l;
                        out->near_j[out->near_count] = j;
                    }
                    out->near_count++;
                }
            }
            const vwm valued = vw_andnot(pass, near);
            if (vw_none(valued)) continue;
            const vw outward = vw_madd(xz, vw_add(a0z, a1z), vw_madd(xy, vw_add(a0y, a1y), vw_mul(xx, vw_add(a0x, a1x))));
            const vw inv = vw_div(vw_splat(1.0f), vw_sqrt(vw_select(valued, len2, vw_splat(1.0f))));
            const vw scale = vw_select(vw_cmpgt(zero, outward), vw_sub(zero, inv), inv);
            const vw ox = vw_sub(obx, vw_load(a->f[9] + g)), oy = vw_sub(oby, vw_load(a->f[10] + g));
            const vw oz = vw_sub(obz, vw_load(a->f[11] + g));
            const vw s = vw_select(valued, vw_mul(vw_madd(xz, oz, vw_madd(xy, oy, vw_mul(xx, ox))), scale), minus_inf);
            second = vw_max(second, vw_min(best, s));
            const vwm up = vw_cmpgt(s, best);
            best = vw_max(best, s);
            best_i = vw_select(up, vw_add(vw_iota(), vw_splat((float)g)), best_i);
            best_j = vw_select(up, vw_splat((float)j), best_j);
            if (!vw_none(vw_cmpgt(s, vw_splat(stop)))) goto done; /* a separating axis: no contact */
        }
    }
done:;
    _Alignas(64) float v[MINK_W_LANES], v2[MINK_W_LANES], vi[MINK_W_LANES], vj[MINK_W_LANES];
    vw_store(v, best);
    vw_store(v2, second);
    vw_store(vi, best_i);
    vw_store(vj, best_j);
    top_two(v, MINK_W_LANES, &out->best);
    const uint32_t lane = out->best.i;
    out->best.i = (uint32_t)vi[lane];
    out->best.j = (uint32_t)vj[lane];
    for (uint32_t l = 0; l < MINK_W_LANES; ++l) out->best.second = fmaxf(out->best.second, v2[l]);
}


uint32_t mink_simd_box_sat(const float ha[3], const float hb[3], const v4 row[3], v4 d, float out[BOX_SEPS])
{
    box_axes x;
    box_axes_init(&x, v4_load3(ha), v4_load3(hb), row, d);
    v4_store(out, box_sat_faces_a(&x));
    v4_store(out + 3, box_sat_faces_b(&x));
    uint32_t left_out = 0;
    for (int i = 0; i < 3; ++i) {
        const v4 e = box_sat_edges(&x, i);
        v4_store(out + 6 + 3 * i, e);
        left_out |= (v4_mask_bits(v4_cmpeq(e, v4_splat(-INFINITY))) & 7u) << (3 * i);
    }
    out[BOX_AXES] = -INFINITY;
    return left_out;
}

static uint32_t box_sat_simd(const float ha[3], const float hb[3], const v3 rot[3], v3 pos, float sep[BOX_SEPS])
{
    const v4 row[3] = {v4_set(rot[0].x, rot[0].y, rot[0].z, 0.0f), v4_set(rot[1].x, rot[1].y, rot[1].z, 0.0f),
                       v4_set(rot[2].x, rot[2].y, rot[2].z, 0.0f)};
    return mink_simd_box_sat(ha, hb, row, v4_set(pos.x, pos.y, pos.z, 0.0f), sep);
}

/* n arrays of x, y, z (each `padded` long, from in[0..2] to out[0..2])
 * rotated by R (rows), plus t when `offset`: a lane-width at a time. */
static void rotate_lanes(const float *const in[3], float *const out[3], uint32_t padded, const v3 rows[3], v3 t,
                         int offset)
{
    const vw r00 = vw_splat(rows[0].x), r01 = vw_splat(rows[0].y), r02 = vw_splat(rows[0].z);
    const vw r10 = vw_splat(rows[1].x), r11 = vw_splat(rows[1].y), r12 = vw_splat(rows[1].z);
    const vw r20 = vw_splat(rows[2].x), r21 = vw_splat(rows[2].y), r22 = vw_splat(rows[2].z);
    const vw tx = vw_splat(offset ? t.x : 0.0f), ty = vw_splat(offset ? t.y : 0.0f), tz = vw_splat(offset ? t.z : 0.0f);
    for (uint32_t i = 0; i < padded; i += MINK_W_LANES) {
        const vw x = vw_load(in[0] + i), y = vw_load(in[1] + i), z = vw_load(in[2] + i);
        vw_store(out[0] + i, vw_madd(r02, z, vw_madd(r01, y, vw_madd(r00, x, tx))));
        vw_store(out[1] + i, vw_madd(r12, z, vw_madd(r11, y, vw_madd(r10, x, ty))));
        vw_store(out[2] + i, vw_madd(r22, z, vw_madd(r21, y, vw_madd(r20, x, tz))));
    }
}

/* mink_core_soa_moved in lanes. The arcs' padding stays zero: their first
 * point is moved without the offset there (zeros rotate to zeros). */
static void move_simd(const soa_points *p, const soa_planes *f, const soa_arcs *a, const v3 rows[3], v3 t, float *store,
                      soa_points *po, soa_planes *fo, soa_arcs *ao)
{
    float *x = store, *y = x + p->padded, *z = y + p->padded;
    rotate_lanes((const float *const[3]){p->x, p->y, p->z}, (float *const[3]){x, y, z}, p->padded, rows, t, 1);
    *po = (soa_points){x, y, z, p->count, p->padded};
    float *nx = z + p->padded, *ny = nx + f->padded, *nz = ny + f->padded, *d = nz + f->padded;
    rotate_lanes((const float *const[3]){f->nx, f->ny, f->nz}, (float *const[3]){nx, ny, nz}, f->padded, rows, t, 0);
    const vw tx = vw_splat(t.x), ty = vw_splat(t.y), tz = vw_splat(t.z);
    for (uint32_t i = 0; i < f->padded; i += MINK_W_LANES)
        vw_store(d + i, vw_madd(vw_load(nz + i), tz, vw_madd(vw_load(ny + i), ty, vw_madd(vw_load(nx + i), tx, vw_load(f->d + i)))));
    *fo = (soa_planes){nx, ny, nz, d, f->count, f->padded};
    float *arc = d + f->padded;
    const uint32_t pa = a->padded;
    for (unsigned k = 0; k < 4; ++k)
        rotate_lanes(a->f + 3 * k, (float *const[3]){arc + (3 * k) * pa, arc + (3 * k + 1) * pa, arc + (3 * k + 2) * pa}, pa,
                     rows, t, 0);
    /* the arcs' first points: + t on the real ones only */
    for (uint32_t i = 0; i < a->count; ++i) {
        arc[9 * pa + i] += t.x;
        arc[10 * pa + i] += t.y;
        arc[11 * pa + i] += t.z;
    }
    ao->count = a->count;
    ao->padded = pa;
    for (unsigned k = 0; k < 12; ++k) ao->f[k] = arc + k * pa;
}

static const manifold_kernel simd_kernel = {support_simd, mink_penetration, face_scan_simd, edge_scan_simd,
                                            box_sat_simd, move_simd};

mink_status mink_manifold(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                          float margin, mink_cache *cache, struct mink_manifold *out)
{
    return mink_manifold_run(&simd_kernel, a, pa, b, pb, margin, cache, out);
}
