/* Support mapping, SIMD kernel: the pair set-up (B placed in A's frame, and
 * moved there when small), the support's dot product alone, and called
 * copies of the scans in support_scan.h. */
#include "support.h"
#include "support_scan.h"
#include "tolerance.h"

#include <math.h>

/* Rows of the rotation matrix of a quaternion q (lanes x, y, z, w) with
 * s = 2 / |q|^2: the rotation of q / |q|, without normalizing q (no square
 * root). Each entry is the textbook expression, three at a time in lanes:
 *   diagonal    1 - s (yy + zz),  1 - s (xx + zz),  1 - s (xx + yy)
 *   plus        s (xy + wz),      s (xz + wy),      s (yz + wx)
 *   minus       s (xy - wz),      s (xz - wy),      s (yz - wx) */
static void quat_rows(v4 q, float s, v4 rows[3])
{
    const v4 vs = v4_splat(s);
    const v4 yxx = v4_shuffle(q, q, 1, 0, 0, 3), zzy = v4_shuffle(q, q, 2, 2, 1, 3);
    const v4 diag = v4_sub(v4_splat(1.0f), v4_mul(vs, v4_add(v4_mul(yxx, yxx), v4_mul(zzy, zzy))));
    const v4 prod = v4_mul(v4_shuffle(q, q, 0, 0, 1, 3), v4_shuffle(q, q, 1, 2, 2, 3)); /* xy xz yz */
    const v4 wterm = v4_mul(v4_shuffle(q, q, 3, 3, 3, 3), v4_shuffle(q, q, 2, 1, 0, 3)); /* wz wy wx */
    const v4 plus = v4_mul(vs, v4_add(prod, wterm)), minus = v4_mul(vs, v4_sub(prod, wterm));
    /* each row from two shuffles; the pad lanes zeroed */
    rows[0] = v4_xyz(v4_shuffle(v4_shuffle(diag, minus, 0, 0, 0, 0), plus, 0, 2, 1, 1));
    rows[1] = v4_xyz(v4_shuffle(v4_shuffle(plus, diag, 0, 0, 1, 1), minus, 0, 2, 2, 2));
    rows[2] = v4_xyz(v4_shuffle(v4_shuffle(minus, plus, 1, 1, 2, 2), diag, 0, 2, 2, 2));
}

/* conj(a) b, lanes x, y, z, w: a.w b + a.x (-b.w, b.z, -b.y, b.x)
 * + a.y (-b.z, -b.w, b.x, b.y) + a.z (b.y, -b.x, -b.w, b.z), summed in that
 * order (signs flipped on b: exact). */
static v4 quat_conj_mul(v4 a, v4 b)
{
    const v4 t0 = v4_mul(v4_shuffle(a, a, 3, 3, 3, 3), b);
    const v4 t1 = v4_mul(v4_splat_x(a), v4_mul(v4_shuffle(b, b, 3, 2, 1, 0), v4_set(-1, 1, -1, 1)));
    const v4 t2 = v4_mul(v4_splat_y(a), v4_mul(v4_shuffle(b, b, 2, 3, 0, 1), v4_set(-1, -1, 1, 1)));
    const v4 t3 = v4_mul(v4_splat_z(a), v4_mul(v4_shuffle(b, b, 1, 0, 3, 2), v4_set(1, -1, -1, 1)));
    return v4_add(v4_add(v4_add(t0, t1), t2), t3);
}

/* B's hull points as R p in the pair's own arrays, over the lane-widths the
 * scan reads (the padding, copies of vertex 0, stays copies of it). */
static void move_hull_b(simd_pair *pair, const mink_shape *b)
{
    float c[3][4];
    for (unsigned k = 0; k < 3; ++k) v4_store(c[k], pair->col[k]);
    const vw c0x = vw_splat(c[0][0]), c0y = vw_splat(c[0][1]), c0z = vw_splat(c[0][2]);
    const vw c1x = vw_splat(c[1][0]), c1y = vw_splat(c[1][1]), c1z = vw_splat(c[1][2]);
    const vw c2x = vw_splat(c[2][0]), c2y = vw_splat(c[2][1]), c2z = vw_splat(c[2][2]);
    const size_t end = hull_scan_end(b);
    /* read once: the stores below might otherwise alias *b */
    const float *bx = b->x, *by = b->y, *bz = b->z;
    for (size_t i = 0; i < end; i += MINK_W_LANES) {
        const vw x = vw_load(bx + i), y = vw_load(by + i), z = vw_load(bz + i);
        vw_store(pair->bx + i, vw_fma(z, c2x, vw_fma(y, c1x, vw_mul(x, c0x))));
        vw_store(pair->by + i, vw_fma(z, c2y, vw_fma(y, c1y, vw_mul(x, c0y))));
        vw_store(pair->bz + i, vw_fma(z, c2z, vw_fma(y, c1z, vw_mul(x, c0z))));
    }
    pair->b_moved = *b;
    pair->b_moved.x = pair->bx;
    pair->b_moved.y = pair->by;
    pair->b_moved.z = pair->bz;
}

void mink_simd_pair_init(simd_pair *pair, const mink_shape *a, const mink_pose *pa, float qa_norm2,
                         const mink_shape *b, const mink_pose *pb, float qb_norm2, v4 *rot_a_rows)
{
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    quat_rows(qa, 2.0f / qa_norm2, rot_a_rows);
    pair->a = a;
    pair->b = b;
    /* |conj(qa) qb|^2 = |qa|^2 |qb|^2 */
    quat_rows(quat_conj_mul(qa, qb), 2.0f / (qa_norm2 * qb_norm2), pair->row);
    /* R^T's rows are R's columns (the same values quat_rows gives for the
     * inverse rotation: only signs of exact products differ) */
    v4_transpose3(pair->row, pair->col);
    /* R_a^T d = d.x row0 + d.y row1 + d.z row2 (rows of R_a) */
    const v4 d = v4_sub(v4_from_vec3(pb->p), v4_from_vec3(pa->p));
    pair->pos_b = v4_madd(v4_splat_z(d), rot_a_rows[2],
                          v4_madd(v4_splat_y(d), rot_a_rows[1], v4_mul(v4_splat_x(d), rot_a_rows[0])));
    pair->scale = a->extent + b->extent + sqrtf(v4_len2(pair->pos_b));
    if (!(pair->scale > 1e-30f)) pair->scale = 1e-30f;
    pair->support_calls = 0;
    pair->b_moved.type = MINK_SHAPE_INVALID;
    if (b->type == MINK_SHAPE_HULL && b->count <= SIMD_MOVED_POINTS) move_hull_b(pair, b);
}

v4 mink_simd_support_local(const mink_shape *s, v4 d, uint32_t *index) { return support_local(s, d, index); }

/* A climb longer than this (a start far from the maximum, as across a wide
 * polygon face) ends in a scan. */
#define CLIMB_STEPS_MAX 32

/* Each step moves to the first neighbour further along d than the corner
 * (in block order), found from one compare of a block against the corner's
 * dot product: no horizontal maximum on the step's latency chain. Each
 * step gains, so no corner is visited twice; a NaN d stays at the seed.
 * The dot products are unfused ((x dx + y dy) + z dz), in the blocks and
 * for the seed alike. */
uint32_t mink_simd_hull_climb(const mink_shape *s, v4 d)
{
    const hull_topology *t = s->topology;
    const mink_shape seeds = {.type = MINK_SHAPE_HULL, .count = HULL_CLIMB_SEEDS, .padded = HULL_CLIMB_SEEDS,
                              .x = hull_seed(t, 0), .y = hull_seed(t, 1), .z = hull_seed(t, 2)};
    const uint32_t top = hull_argmax_scan(&seeds, d);
    uint32_t c = hull_seed_corner(t)[top];
    const hull_climb_block *blocks = hull_climb(t), *k = &blocks[c];
    const v4 dx = v4_splat_x(d), dy = v4_splat_y(d), dz = v4_splat_z(d);
    float best = (seeds.x[top] * v4_x(d) + seeds.y[top] * v4_y(d)) + seeds.z[top] * v4_z(d);
    /* a block per step (a corner's continuations count as steps too) */
    for (unsigned step = 0; step < CLIMB_STEPS_MAX; ++step) {
        const v4 b = v4_splat(best);
        _Alignas(16) float dots[HULL_CLIMB_LANES];
        uint32_t up = 0;
        for (unsigned i = 0; i < HULL_CLIMB_LANES; i += 4) {
            const v4 dot = v4_add(v4_add(v4_mul(v4_load(k->x + i), dx), v4_mul(v4_load(k->y + i), dy)),
                                  v4_mul(v4_load(k->z + i), dz));
            v4_store(dots + i, dot);
            up |= v4_mask_bits(v4_cmpgt(dot, b)) << i;
        }
        if (up) {
            const unsigned lane = (unsigned)__builtin_ctz(up);
            best = dots[lane];
            c = k->corner[lane];
            k = &blocks[c];
        } else {
            const uint32_t more = k->corner[HULL_CLIMB_LANES - 1];
            if (!(more & HULL_CLIMB_MORE)) return hull_corner_point(t)[c];
            k = &blocks[more & ~HULL_CLIMB_MORE];
        }
    }
    return hull_argmax_scan(s, d);
}

float mink_simd_support_dot(const mink_shape *s, v4 d) { return support_dot(s, d); }

simd_vertex mink_simd_support_pair(simd_pair *pair, v4 d) { return support_pair(pair, d); }
