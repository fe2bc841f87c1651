/* Johnson's distance subalgorithm, scalar reference. */
#include "johnson_ref.h"

#include <string.h>

static unsigned popcount4(unsigned x) { return (x & 1u) + ((x >> 1) & 1u) + ((x >> 2) & 1u) + ((x >> 3) & 1u); }
static unsigned lowest_slot(unsigned x) { return (x & 1u) ? 0u : (x & 2u) ? 1u : (x & 4u) ? 2u : 3u; }

void mink_scalar_simplex_init(ref_simplex *s)
{
    memset(s, 0, sizeof *s);
}

unsigned mink_scalar_simplex_count(const ref_simplex *s) { return popcount4(s->bits); }

int mink_scalar_simplex_contains(const ref_simplex *s, const ref_vertex *v)
{
    for (unsigned i = 0; i < 4; ++i) {
        if (!(s->bits & (1u << i))) continue;
        const ref_vertex *u = &s->vert[i];
        if ((u->ia == v->ia && u->ib == v->ib) || v3_equal(u->w, v->w)) return 1;
    }
    return 0;
}

void mink_scalar_simplex_add(ref_simplex *s, const ref_vertex *v)
{
    unsigned slot = 0;
    while (slot < 3 && (s->bits & (1u << slot))) ++slot;
    s->vert[slot] = *v;
    s->last = slot;
}

/* det[X][j] for X containing the new point, smallest subsets first so that
 * each one's sub-subsets are ready. Subsets of the old simplex are cached. */
static void update_determinants(ref_simplex *s)
{
    const unsigned last = s->last, last_bit = 1u << last;
    const unsigned all = s->bits | last_bit;

    for (unsigned i = 0; i < 4; ++i) {
        if (!(all & (1u << i))) continue;
        s->dp[i][last] = s->dp[last][i] = v3_dot(s->vert[i].w, s->vert[last].w);
    }
    for (unsigned size = 1; size <= popcount4(all); ++size) {
        for (unsigned x = 1; x < 16; ++x) {
            if ((x & all) != x || !(x & last_bit) || popcount4(x) != size) continue;
            for (unsigned j = 0; j < 4; ++j) {
                if (!(x & (1u << j))) continue;
                s->det_evals++;
                if (size == 1) {
                    s->det[x][j] = 1.0f;
                    continue;
                }
                const unsigned y = x & ~(1u << j);
                const unsigned k = lowest_slot(y);
                float sum = 0.0f;
                for (unsigned i = 0; i < 4; ++i)
                    if (y & (1u << i)) sum += s->det[y][i] * (s->dp[i][k] - s->dp[i][j]);
                s->det[x][j] = sum;
            }
        }
    }
}

/* Johnson's test: every member has a positive determinant and adding any
 * other point of the full set would not (the origin's projection lies in
 * the subset's Voronoi region). */
static int subset_is_closest(const ref_simplex *s, unsigned x, unsigned all)
{
    for (unsigned i = 0; i < 4; ++i) {
        const unsigned bit = 1u << i;
        if (!(all & bit)) continue;
        if (x & bit) {
            if (!(s->det[x][i] > 0.0f)) return 0;
        } else if (s->det[x | bit][i] > 0.0f) {
            return 0;
        }
    }
    return 1;
}

static int subset_is_proper(const ref_simplex *s, unsigned x)
{
    for (unsigned i = 0; i < 4; ++i)
        if ((x & (1u << i)) && !(s->det[x][i] > 0.0f)) return 0;
    return 1;
}

/* The point of subset x's affine hull closest to the origin; sets lambda. */
static v3 subset_point(ref_simplex *s, unsigned x)
{
    float total = 0.0f;
    for (unsigned i = 0; i < 4; ++i)
        if (x & (1u << i)) total += s->det[x][i];
    v3 v = {0, 0, 0};
    for (unsigned i = 0; i < 4; ++i) {
        s->lambda[i] = (x & (1u << i)) ? s->det[x][i] / total : 0.0f;
        v = v3_add(v, v3_scale(s->vert[i].w, s->lambda[i]));
    }
    return v;
}

/* Height of the newest point over the plane of the other three, from edge
 * vectors (accurate where the determinants built from dot products are not). */
static float tetra_height(const ref_simplex *s)
{
    v3 p[3];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (i != s->last) p[n++] = s->vert[i].w;
    const v3 normal = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
    const float area2 = v3_len(normal);
    if (!(area2 > 0.0f)) return 0.0f;
    return fabsf(v3_dot(normal, v3_sub(s->vert[s->last].w, p[0]))) / area2;
}

int mink_scalar_johnson(ref_simplex *s, v3 *v, float flat_tol)
{
    const unsigned last_bit = 1u << s->last;
    const unsigned all = s->bits | last_bit;
    update_determinants(s);
    const int full_ok = all != 15u || tetra_height(s) > flat_tol;

    /* Only subsets holding the new point can be closest: it was found in the
     * direction of the origin, so the old closest subset has been passed. */
    for (unsigned sub = s->bits;; sub = (sub - 1) & s->bits) {
        const unsigned x = sub | last_bit;
        if (x == 15u && !full_ok) continue;
        if (subset_is_closest(s, x, all)) {
            s->bits = x;
            *v = subset_point(s, x);
            return 1;
        }
        if (sub == 0) break;
    }

    /* Backup (numerically hopeless cases): the proper subset of the whole set
     * with the smallest |v|. Singletons are always proper, so one exists. */
    s->backups++;
    float best = -1.0f;
    unsigned best_x = last_bit;
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || (x == 15u && !full_ok) || !subset_is_proper(s, x)) continue;
        const v3 p = subset_point(s, x);
        const float d2 = v3_len2(p);
        if (best < 0.0f || d2 < best) {
            best = d2;
            best_x = x;
        }
    }
    s->bits = best_x;
    *v = subset_point(s, best_x);
    return 0;
}

int mink_scalar_johnson_seed(ref_simplex *s, const ref_vertex *pts, unsigned n, float flat_tol, v3 *v)
{
    mink_scalar_simplex_init(s);
    for (unsigned i = 0; i < n && i < 4; ++i) {
        if (mink_scalar_simplex_contains(s, &pts[i])) continue;
        mink_scalar_simplex_add(s, &pts[i]);
        update_determinants(s);
        s->bits |= 1u << s->last;
    }
    const unsigned all = s->bits;
    if (all == 0) return 0;
    const int full_ok = all != 15u || tetra_height(s) > flat_tol;
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || (x == 15u && !full_ok) || !subset_is_closest(s, x, all)) continue;
        s->bits = x;
        *v = subset_point(s, x);
        return 1;
    }
    return 0;
}
