/* Support mapping, SIMD kernel: the pair set-up (B placed in A's frame, and
 * moved there when small), the support's dot product alone, and called
 * copies of the scans in support_scan.h. */
#include "support.h"
#include "support_scan.h"
#include "tolerance.h"

#include <math.h>

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
    mink_simd_pair_frame(pa, qa_norm2, pb, qb_norm2, rot_a_rows, pair->row, &pair->pos_b);
    pair->a = a;
    pair->b = b;
    /* R^T's rows are R's columns (the same values v4_quat_rows gives for the
     * inverse rotation: only signs of exact products differ) */
    v4_transpose3(pair->row, pair->col);
    pair->scale = mink_simd_pair_scale(a, b, pair->pos_b);
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
