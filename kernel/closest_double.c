/* Johnson's subalgorithm in double precision, every subset. */
#include "closest_double.h"

static unsigned popcount4(unsigned x) { return (x & 1u) + ((x >> 1) & 1u) + ((x >> 2) & 1u) + ((x >> 3) & 1u); }
static unsigned lowest_slot(unsigned x) { return (x & 1u) ? 0u : (x & 2u) ? 1u : (x & 4u) ? 2u : 3u; }

static double det3(const double a[3], const double b[3], const double c[3])
{
    return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* The tetrahedron's signed volumes, straight from its points (the edges of
 * float points are exact in double): volume = 6 V, and w[i] = 6 V of the
 * tetrahedron with the origin in place of point i, so that the origin's
 * barycentric weights are w[i] / volume. Accurate where the Cramer
 * recursion from dot products is not: on a long, flat tetrahedron that
 * recursion cancels terms ~|p|^4 |e|^2 down to (6 V)^2 and keeps their
 * rounding as its answer. Returns the largest face's (2 area)^2 and
 * |point|^2, the scales of the flatness test. */
static double signed_volumes(const double p[4][3], double w[4], double *face2, double *size2)
{
    double e[4][3];
    for (int i = 1; i < 4; ++i)
        for (int c = 0; c < 3; ++c) e[i][c] = p[i][c] - p[0][c];
    *size2 = *face2 = 0.0;
    for (int i = 0; i < 4; ++i) {
        const double n2 = p[i][0] * p[i][0] + p[i][1] * p[i][1] + p[i][2] * p[i][2];
        if (n2 > *size2) *size2 = n2;
        const int a = (i + 1) & 3, b = (i + 2) & 3, c = (i + 3) & 3;
        const double u[3] = {p[b][0] - p[a][0], p[b][1] - p[a][1], p[b][2] - p[a][2]};
        const double v[3] = {p[c][0] - p[a][0], p[c][1] - p[a][1], p[c][2] - p[a][2]};
        const double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
        const double f2 = cx * cx + cy * cy + cz * cz;
        if (f2 > *face2) *face2 = f2;
    }
    w[0] = det3(p[1], p[2], p[3]);
    w[1] = -det3(p[0], p[2], p[3]);
    w[2] = det3(p[0], p[1], p[3]);
    w[3] = -det3(p[0], p[1], p[2]);
    return det3(e[1], e[2], e[3]);
}

/* Flat: height below the noise, i.e. (6 V)^2 against noise^2 (2 area)^2 of
 * the largest face (the same rule as the subsets' test below). */
static int tetrahedron_is_flat(double volume, double face2, double noise2)
{
    return !(volume * volume > noise2 * face2);
}

/* v = sum of lambda_i p_i in double (rounded once by the float caller:
 * summed in float, the weighted points of a long simplex near the origin
 * cancel to a v whose small components are lost; a segment of length 2
 * passing 4.5e-5 from the origin lost a 6e-8 component, and with it the
 * support point that makes progress). */
static void weighted_point(const double pts[4][3], const double l[4], double v[3])
{
    for (int c = 0; c < 3; ++c) v[c] = l[0] * pts[0][c] + l[1] * pts[1][c] + l[2] * pts[2][c] + l[3] * pts[3][c];
}

/* Inlined into its float entry point with the flatness constant. */
static inline __attribute__((always_inline)) unsigned closest(const double pts[4][3], unsigned bits, double flat_rel,
                                                              double flat_abs, double lambda[4], double v[3])
{
    double vol_w[4] = {0, 0, 0, 0}, volume = 0.0, face2 = 0.0, vol_size2 = 0.0;
    if (bits == 15u) {
        /* "Do these four points hold the origin?", from signed volumes */
        volume = signed_volumes(pts, vol_w, &face2, &vol_size2);
        const double noise2 = flat_rel * flat_rel * vol_size2 + flat_abs * flat_abs;
        if (!tetrahedron_is_flat(volume, face2, noise2) && vol_w[0] / volume > 0.0 && vol_w[1] / volume > 0.0 &&
            vol_w[2] / volume > 0.0 && vol_w[3] / volume > 0.0) {
            for (int i = 0; i < 4; ++i) lambda[i] = vol_w[i] / volume;
            weighted_point(pts, lambda, v);
            return 15u;
        }
    }
    double dp[4][4] = {{0}}, det[16][4] = {{0}};
    for (unsigned i = 0; i < 4; ++i)
        for (unsigned j = 0; j < 4; ++j)
            if ((bits >> i & 1u) && (bits >> j & 1u))
                dp[i][j] = pts[i][0] * pts[j][0] + pts[i][1] * pts[j][1] + pts[i][2] * pts[j][2];
    /* every subset, smallest first (a proper subset is numerically smaller) */
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & bits) != x) continue;
        for (unsigned j = 0; j < 4; ++j) {
            if (!(x >> j & 1u)) continue;
            const unsigned y = x & ~(1u << j);
            if (y == 0) {
                det[x][j] = 1.0;
                continue;
            }
            const unsigned k = lowest_slot(y);
            double sum = 0.0;
            for (unsigned i = 0; i < 4; ++i)
                if (y >> i & 1u) sum += det[y][i] * (dp[i][k] - dp[i][j]);
            det[x][j] = sum;
        }
    }
    /* the whole tetrahedron's determinants from its volumes instead:
     * det[15][i] = lambda_i (6 V)^2 = w_i * volume */
    if (bits == 15u)
        for (unsigned i = 0; i < 4; ++i) det[15][i] = vol_w[i] * volume;
    /* A subset is degenerate when it is flat up to the rounding of its
     * inputs: when its height (edge length, triangle height, tetrahedron
     * height) is below the noise (flat_rel of its coordinates' size, plus
     * flat_abs). Its Gram determinant (the sum of its determinants: |e|^2,
     * (2 area)^2, (6 volume)^2) is then below noise^2 times its largest
     * facet's, and its determinants say nothing about where the origin lies. */
    double size2 = 0.0;
    for (unsigned i = 0; i < 4; ++i)
        if ((bits >> i & 1u) && dp[i][i] > size2) size2 = dp[i][i];
    const double noise2 = flat_rel * flat_rel * size2 + flat_abs * flat_abs;
    double gram[16] = {0};
    int degenerate[16] = {0};
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & bits) != x) continue;
        for (unsigned i = 0; i < 4; ++i)
            if (x >> i & 1u) gram[x] += det[x][i];
        if (popcount4(x) < 2) continue;
        double facet = popcount4(x) == 2 ? 1.0 : 0.0; /* a point's "Gram" is 1 */
        for (unsigned i = 0; i < 4; ++i)
            if ((x >> i & 1u) && popcount4(x) > 2 && gram[x & ~(1u << i)] > facet) facet = gram[x & ~(1u << i)];
        degenerate[x] = !(gram[x] > noise2 * facet);
    }
    if (bits == 15u)
        degenerate[15] = tetrahedron_is_flat(volume, face2, flat_rel * flat_rel * vol_size2 + flat_abs * flat_abs);
    /* Johnson's test, largest subsets first; else the best proper subset */
    unsigned best = 0;
    double best_d2 = -1.0;
    for (unsigned size = popcount4(bits); size >= 1 && best == 0; --size) {
        for (unsigned x = 1; x < 16; ++x) {
            if ((x & bits) != x || popcount4(x) != size || degenerate[x]) continue;
            int ok = 1;
            for (unsigned i = 0; i < 4 && ok; ++i) {
                if (!(bits >> i & 1u)) continue;
                if (x >> i & 1u) ok = det[x][i] > 0.0;
                else ok = degenerate[x | 1u << i] || !(det[x | 1u << i][i] > 0.0); /* flat: exactly 0 */
            }
            if (ok) {
                best = x;
                break;
            }
        }
    }
    if (best == 0) {
        for (unsigned x = 1; x < 16; ++x) {
            if ((x & bits) != x || degenerate[x]) continue;
            double total = 0.0, p[3] = {0, 0, 0};
            int proper = 1;
            for (unsigned i = 0; i < 4; ++i)
                if (x >> i & 1u) {
                    proper &= det[x][i] > 0.0;
                    total += det[x][i];
                }
            if (!proper) continue;
            for (unsigned i = 0; i < 4; ++i)
                if (x >> i & 1u)
                    for (int c = 0; c < 3; ++c) p[c] += det[x][i] / total * pts[i][c];
            const double d2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
            if (best_d2 < 0.0 || d2 < best_d2) {
                best_d2 = d2;
                best = x;
            }
        }
    }
    double total = 0.0;
    for (unsigned i = 0; i < 4; ++i)
        if (best >> i & 1u) total += det[best][i];
    for (unsigned i = 0; i < 4; ++i) lambda[i] = (best >> i & 1u) ? det[best][i] / total : 0.0;
    weighted_point(pts, lambda, v);
    return best;
}

unsigned mink_closest_double(const float pts[4][3], unsigned bits, float lambda[4], float v[3])
{
    /* float inputs are exact in double; flat means below 1e-6 of their size
     * (their rounding) */
    double p[4][3], l[4], vd[3];
    for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 3; ++c) p[i][c] = pts[i][c];
    const unsigned best = closest((const double(*)[3])p, bits, 1e-6, 0.0, l, vd);
    for (int i = 0; i < 4; ++i) lambda[i] = (float)l[i];
    for (int c = 0; c < 3; ++c) v[c] = (float)vd[c];
    return best;
}
