/* Hull topology builder: the convex hull of a hull shape's points, built
 * once in double precision into the caller's memory (hull.h: the layout).
 *
 * 1. Classify within merge_tol: a point, a segment, a flat polygon or a
 *    solid.
 * 2. Solid: quickhull with conflict lists, on exact orientation signs. The
 *    points are floats, so their hull is exactly convex, and with exact
 *    signs the faces a new point sees always form a disk with one simple
 *    horizon loop: no input, however degenerate, makes the triangulation
 *    inconsistent. A double filter decides almost every sign; the rest go to
 *    integer arithmetic on the floats' mantissas.
 *    An apex within a fifth of merge_tol of a corner it sees is welded to
 *    that corner instead (no micro-edges from near-repeated points).
 * 3. Merge the triangles into convex polygons: a face grows from its
 *    largest triangle while every corner stays within 0.4 merge_tol of the
 *    seed plane; corners that only two faces share (straight-on points
 *    along their edge) are dropped; a face whose loop is then still reflex
 *    is grown again, convex at every step.
 * 4. Planes: d is the exact maximum of n.p over the points (a linear
 *    function on a convex polytope peaks at a vertex with no better
 *    neighbour), rounded up to float. Then the arcs and the point -> face
 *    index; finally the arrays are moved together.
 *
 * Scratch space is in the caller's block (no allocation): the triangles
 * where the arcs go, the search stacks in the loop arrays, the rest after
 * the arrays (hull_layout). Every loop is bounded by a count of points or
 * triangles. */
#include "hull.h"
#include "tolerance.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---------------------------------------------------------------- quickhull triangles */

typedef struct qh_tri {
    double n[3], d;  /* unit outward normal and offset: n.p - d is p's height  */
    double err;      /* bound on that height's rounding error (INFINITY: always
                        decide exactly)                                         */
    uint32_t v[3];   /* corners, counter-clockwise seen from outside; v[0] is
                        NONE while the slot is free                             */
    uint32_t adj[3]; /* adj[i]: the triangle across edge v[i] -> v[i + 1]        */
    uint32_t head;   /* first point of the conflict list (free: next free slot;
                        after quickhull: 1 when the merge keeps it convex)      */
    uint32_t mark;   /* ON_STACK | stamp << 2 | visit state                      */
} qh_tri;

#define ON_STACK 0x80000000u
enum { SEEN_NOT = 0, SEEN_VISIBLE = 1, SEEN_HIDDEN = 2 };

/* ---------------------------------------------------------------- layout */

/* Worst-case byte offsets from the header while building; the arrays are
 * moved together at the end. Bounds for n points: a triangulated sphere has
 * 2V - 4 triangles and 3V - 6 edges, so at most 2n faces, 6n loop entries
 * (two per edge) and 3n arcs (a flat polygon: 2n entries, 2n arcs). */
typedef struct hull_layout {
    size_t plane, face_first, face_vertex, point_first, point_face, arc, arc_point, zone, weld, climb, face_thin,
        point_thin, total;
    uint32_t tri_cap, loop_cap;
} hull_layout;

static uint64_t round64(uint64_t b) { return (b + 63u) & ~(uint64_t)63u; }
static uint64_t pad_lanes(uint64_t n) { return (n + MINK_HULL_PAD - 1) / MINK_HULL_PAD * MINK_HULL_PAD; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* What else lives where while building (n points, T = tri_cap):
 *   face_vertex  quickhull's search stack and visible list (8 T bytes)
 *   point_first  conflict links, later point counts and vertex -> triangle
 *   point_face   point stamps and the horizon (16 n + 48), then the loop
 *                entries' neighbouring triangles / faces
 *   arc          the triangles (72 T)
 *   zone         quickhull's work stack (4 T); the renumbering (8 T); the
 *                merge's triangle -> face, order, queue, face seeds (16 T)
 *                and outline links (16 n);
 *                the flat case's 2D coordinates and chain (32 n + 8); then
 *                the weld lists (8 n), kept until the planes */
static int layout_of(uint32_t n, hull_layout *L)
{
    if (n == 0 || n > MINK_HULL_MAX_POINTS) return 0;
    const uint64_t N = n;
    const uint64_t tris = 2 * N + 4, loops = 6 * N + 12, arcs = pad_lanes(3 * N + 6);
    uint64_t off = round64(sizeof(hull_topology));
    L->plane = (size_t)off;
    off += round64(16 * pad_lanes(tris));
    L->face_first = (size_t)off;
    off += round64(4 * (tris + 1));
    L->face_vertex = (size_t)off;
    off += round64(4 * loops);
    L->point_first = (size_t)off;
    off += round64(4 * (N + 1));
    L->point_face = (size_t)off;
    off += round64(4 * loops);
    L->arc = (size_t)off;
    off += round64(max_u64(48 * arcs, sizeof(qh_tri) * tris));
    L->arc_point = (size_t)off;
    off += round64(8 * arcs);
    /* the compacted arrays are addressed by uint32 offsets */
    if (off > UINT32_MAX) return 0;
    L->zone = (size_t)off;
    const uint64_t merge = 16 * tris + 16 * N, flat = 16 * N + 4 * N + 4 * (2 * N + 2), quick = 4 * tris;
    off += round64(max_u64(max_u64(merge, flat), quick));
    L->weld = (size_t)off;
    off += round64(8 * N);
    /* hill climbing (climb_index): a block and a point index per corner,
     * the seeds */
    L->climb = (size_t)off;
    if (N >= HULL_CLIMB_MIN_POINTS)
        off += round64(sizeof(hull_climb_block) * hull_climb_blocks(N)) + round64(4 * N) + round64(16 * HULL_CLIMB_SEEDS);
    /* the faces' widths and the narrowest face around each point (face_widths) */
    L->face_thin = (size_t)off;
    off += round64(4 * tris);
    L->point_thin = (size_t)off;
    off += round64(4 * N);
    if (off > UINT32_MAX) return 0;
    L->total = (size_t)off;
    L->tri_cap = (uint32_t)tris;
    L->loop_cap = (uint32_t)loops;
    return 1;
}

size_t mink_hull_topology_bytes(uint32_t n)
{
    hull_layout L;
    return layout_of(n, &L) ? L.total : 0;
}

/* ---------------------------------------------------------------- tolerances */

/* In units of merge_tol. A face's corners must end within merge_tol of its
 * plane, whose d is the points' exact maximum rounded up to float: up to
 * GROW from growing, WELD from a welded point above them, an ulp of d
 * (< 0.22: merge_tol >= 8 FLT_EPSILON max|coordinate|) and the float
 * normal's tilt over the hull (< 0.1: merge_tol >= 1e-6 size). */
#define TOL_GROW 0.4  /* corners of a face within this of its seed plane    */
#define TOL_WELD 0.2  /* an apex this close to a corner is welded to it     */
#define TOL_FLAT 0.6  /* a slab this thick is flat                          */
#define TOL_REFLEX 0.25 /* a reflex corner this close to its neighbours' chord, */
#define TOL_TURN 0.5    /* turning back by at most this over size, is straight  */

/* ---------------------------------------------------------------- builder state */

typedef struct builder {
    const float *x, *y, *z;
    uint32_t n;
    double size;   /* bounding-box diagonal                              */
    double maxabs; /* largest |coordinate|                               */
    double tol;    /* merge_tol                                          */
    char *base;    /* the header; offsets count from here                */
    hull_layout L;
    /* quickhull */
    qh_tri *tri;
    uint32_t tri_used, tri_free;
    uint32_t *next;  /* conflict list links, per point */
    uint32_t *pmark; /* per point stamp                */
    uint32_t *work, work_n, next_n; /* this generation's faces from the front,
                                        the next one's from the back        */
    uint32_t *dfs, *vis, *hor;
    uint32_t *whead, *wnext; /* points welded to a vertex: list heads, links    */
    uint32_t stamp, welds;
    double weld_tol;         /* an apex this close to a vertex is welded to it */
} builder;

static void point_of(const builder *b, uint32_t i, double p[3])
{
    p[0] = b->x[i];
    p[1] = b->y[i];
    p[2] = b->z[i];
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double r[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void sub3(const double a[3], const double b[3], double r[3])
{
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}

/* a / |a|; 0 when a is 0 or not finite. */
static int normalize3(double a[3])
{
    const double len = sqrt(dot3(a, a));
    if (!(len > 0.0) || !isfinite(len)) return 0;
    a[0] /= len;
    a[1] /= len;
    a[2] /= len;
    return 1;
}

/* ---------------------------------------------------------------- exact arithmetic */

/* Knuth's two-sum: s + e == a + b exactly (round to nearest). */
static void two_sum(double a, double b, double *s, double *e)
{
    *s = a + b;
    const double bb = *s - a;
    *e = (a - (*s - bb)) + (b - bb);
}

/* Dekker's product without FMA: p + e == a * b exactly (|a|, |b| < 2^996). */
static void split(double a, double *hi, double *lo)
{
    const double c = 134217729.0 * a; /* 2^27 + 1 */
    *hi = c - (c - a);
    *lo = a - *hi;
}

static void two_prod(double a, double b, double *p, double *e)
{
    double ah, al, bh, bl;
    *p = a * b;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* Exact sign of t[0] + ... + t[m - 1] (m <= 8): Shewchuk's growing
 * expansion keeps the sum as non-overlapping parts of increasing size, so
 * the sign is the largest nonzero part's. */
static int sum_sign(const double *t, int m)
{
    double e[8];
    int k = 0;
    for (int i = 0; i < m; ++i) {
        double q = t[i];
        for (int j = 0; j < k; ++j) {
            double s, err;
            two_sum(q, e[j], &s, &err);
            e[j] = err;
            q = s;
        }
        e[k++] = q;
    }
    for (int j = k - 1; j >= 0; --j)
        if (e[j] != 0.0) return e[j] > 0.0 ? 1 : -1;
    return 0;
}

/* Fixed-width two's complement integers for the exact orientation: every
 * float is an integer multiple of 2^-172, so a determinant of float
 * differences is an integer of at most ~910 bits. */
enum { BIG_LIMBS = 32 };
typedef struct big { uint32_t w[BIG_LIMBS]; } big;

static void big_neg(big *r, unsigned L)
{
    uint64_t carry = 1;
    for (unsigned i = 0; i < L; ++i) {
        const uint64_t t = (uint64_t)(uint32_t)~r->w[i] + carry;
        r->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

/* f as an integer in units of 2^emin (f's exponent is at least emin). */
static void big_of(big *r, float f, int emin, unsigned L)
{
    memset(r->w, 0, sizeof r->w);
    if (f == 0.0f) return;
    int ex;
    const float fr = frexpf(fabsf(f), &ex);
    const uint64_t m = (uint64_t)ldexpf(fr, 24); /* the 24-bit significand, exact */
    const unsigned shift = (unsigned)(ex - 24 - emin);
    const uint64_t v = m << (shift % 32u);
    r->w[shift / 32u] = (uint32_t)v;
    if (shift / 32u + 1 < L) r->w[shift / 32u + 1] = (uint32_t)(v >> 32);
    if (f < 0.0f) big_neg(r, L);
}

static void big_add(big *r, const big *a, const big *b, unsigned L)
{
    uint64_t carry = 0;
    for (unsigned i = 0; i < L; ++i) {
        const uint64_t t = (uint64_t)a->w[i] + b->w[i] + carry;
        r->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

static void big_sub(big *r, const big *a, const big *b, unsigned L)
{
    uint64_t carry = 1; /* a + ~b + 1 */
    for (unsigned i = 0; i < L; ++i) {
        const uint64_t t = (uint64_t)a->w[i] + (uint32_t)~b->w[i] + carry;
        r->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

/* r = a * b mod 2^(32 L): the signed product when it fits. */
static void big_mul(big *r, const big *a, const big *b, unsigned L)
{
    uint32_t t[BIG_LIMBS] = {0};
    for (unsigned i = 0; i < L; ++i) {
        if (a->w[i] == 0) continue;
        uint64_t carry = 0;
        for (unsigned j = 0; i + j < L; ++j) {
            const uint64_t cur = (uint64_t)a->w[i] * b->w[j] + t[i + j] + carry;
            t[i + j] = (uint32_t)cur;
            carry = cur >> 32;
        }
    }
    memcpy(r->w, t, L * sizeof t[0]);
}

static int big_sign(const big *a, unsigned L)
{
    if (a->w[L - 1] >> 31) return -1;
    for (unsigned i = 0; i < L; ++i)
        if (a->w[i]) return 1;
    return 0;
}

/* Exact sign of (b - a) x (c - a) . (d - a) for points id[0..3]. */
static int orient_exact(const builder *b, const uint32_t id[4])
{
    float c[12];
    for (int k = 0; k < 4; ++k) {
        c[3 * k + 0] = b->x[id[k]];
        c[3 * k + 1] = b->y[id[k]];
        c[3 * k + 2] = b->z[id[k]];
    }
    int emin = INT_MAX, emax = INT_MIN;
    for (int i = 0; i < 12; ++i) {
        if (c[i] == 0.0f) continue;
        int ex;
        (void)frexpf(c[i], &ex);
        if (ex - 24 < emin) emin = ex - 24;
        if (ex - 24 > emax) emax = ex - 24;
    }
    if (emin == INT_MAX) return 0;
    /* coordinates < 2^bits, differences < 2^(bits+1), minors < 2^(2 bits+3),
     * the determinant < 2^(3 bits + 6), plus a sign bit */
    const unsigned bits = (unsigned)(emax - emin) + 24u;
    unsigned L = (3u * bits + 7u + 31u) / 32u;
    if (L > BIG_LIMBS) L = BIG_LIMBS; /* bits <= 300: L <= 29 */
    big p[12], u[3], v[3], w[3], t1, t2, m, acc;
    for (int i = 0; i < 12; ++i) big_of(&p[i], c[i], emin, L);
    for (int k = 0; k < 3; ++k) {
        big_sub(&u[k], &p[3 + k], &p[k], L);
        big_sub(&v[k], &p[6 + k], &p[k], L);
        big_sub(&w[k], &p[9 + k], &p[k], L);
    }
    memset(&acc, 0, sizeof acc);
    for (int k = 0; k < 3; ++k) {
        const int i = (k + 1) % 3, j = (k + 2) % 3;
        big_mul(&t1, &u[i], &v[j], L);
        big_mul(&t2, &u[j], &v[i], L);
        big_sub(&m, &t1, &t2, L);
        big_mul(&t1, &w[k], &m, L);
        big_add(&acc, &acc, &t1, L);
    }
    return big_sign(&acc, L);
}

/* Sign of (b - a) x (c - a) . (d - a): > 0 when d is above the triangle
 * (a, b, c) seen counter-clockwise. Shewchuk's first-stage filter (his bound
 * is (7 + 56 eps) eps times the permanent), then exact. */
static int orient(const builder *b, uint32_t ia, uint32_t ib, uint32_t ic, uint32_t id)
{
    const double ax = b->x[ia], ay = b->y[ia], az = b->z[ia];
    const double ux = b->x[ib] - ax, uy = b->y[ib] - ay, uz = b->z[ib] - az;
    const double vx = b->x[ic] - ax, vy = b->y[ic] - ay, vz = b->z[ic] - az;
    const double wx = b->x[id] - ax, wy = b->y[id] - ay, wz = b->z[id] - az;
    const double m1 = uy * vz, m2 = uz * vy, m3 = uz * vx, m4 = ux * vz, m5 = ux * vy, m6 = uy * vx;
    const double det = wx * (m1 - m2) + wy * (m3 - m4) + wz * (m5 - m6);
    const double perm =
        fabs(wx) * (fabs(m1) + fabs(m2)) + fabs(wy) * (fabs(m3) + fabs(m4)) + fabs(wz) * (fabs(m5) + fabs(m6));
    /* float differences are never rounded to 0 nor products of them to 0, so
     * a zero permanent is an exactly zero determinant (repeated points) */
    if (perm == 0.0) return 0;
    const double bound = 1e-15 * perm;
    if (det > bound) return 1;
    if (det < -bound) return -1;
    const uint32_t ids[4] = {ia, ib, ic, id};
    return orient_exact(b, ids);
}

/* nf . p for a float normal and a float point: the products are exact in
 * double, the sum rounded twice. */
static void dot_terms(const builder *b, const float nf[3], uint32_t i, double t[3])
{
    t[0] = (double)nf[0] * b->x[i];
    t[1] = (double)nf[1] * b->y[i];
    t[2] = (double)nf[2] * b->z[i];
}

/* 1 when nf . p_i > nf . p_j exactly. */
static int dot_greater(const builder *b, const float nf[3], uint32_t i, uint32_t j)
{
    double t[6];
    dot_terms(b, nf, i, t);
    dot_terms(b, nf, j, t + 3);
    const double si = t[0] + t[1] + t[2], sj = t[3] + t[4] + t[5];
    const double bound = 2.0 * DBL_EPSILON *
                         (fabs(t[0]) + fabs(t[1]) + fabs(t[2]) + fabs(t[3]) + fabs(t[4]) + fabs(t[5]));
    if (si - sj > bound) return 1;
    if (sj - si > bound) return 0;
    t[3] = -t[3];
    t[4] = -t[4];
    t[5] = -t[5];
    return sum_sign(t, 6) > 0;
}

/* nf . p_i rounded up to float: the smallest float >= the exact value. */
static float dot_round_up(const builder *b, const float nf[3], uint32_t i)
{
    double t[4];
    dot_terms(b, nf, i, t);
    float f = (float)(t[0] + t[1] + t[2]);
    if (!isfinite(f)) return f;
    t[3] = -(double)f;
    if (sum_sign(t, 4) > 0) f = nextafterf(f, INFINITY);
    return f;
}

/* Unit normal of the triangle (a, b, c), good to a few ulps even for a
 * sliver: the edges are exact double-doubles and the leading products of
 * the cross product exact, so no cancellation is left. */
static int accurate_normal(const builder *b, uint32_t ia, uint32_t ib, uint32_t ic, double n[3])
{
    double pa[3], pb[3], pc[3], eh[2][3], el[2][3];
    point_of(b, ia, pa);
    point_of(b, ib, pb);
    point_of(b, ic, pc);
    for (int k = 0; k < 3; ++k) {
        two_sum(pb[k], -pa[k], &eh[0][k], &el[0][k]);
        two_sum(pc[k], -pa[k], &eh[1][k], &el[1][k]);
    }
    for (int k = 0; k < 3; ++k) {
        const int i = (k + 1) % 3, j = (k + 2) % 3;
        double p1, q1, p2, q2, s, se;
        two_prod(eh[0][i], eh[1][j], &p1, &q1);
        two_prod(eh[0][j], eh[1][i], &p2, &q2);
        two_sum(p1, -p2, &s, &se);
        const double rest = (q1 - q2) + (eh[0][i] * el[1][j] + el[0][i] * eh[1][j] + el[0][i] * el[1][j]) -
                            (eh[0][j] * el[1][i] + el[0][j] * eh[1][i] + el[0][j] * el[1][i]);
        n[k] = s + (se + rest);
    }
    return normalize3(n);
}

/* The unit normal of triangle (a, b, c) to a few ulps: in double when the
 * triangle is well shaped (the cross product then loses at most
 * ~eps |e1| |e2| / |e1 x e2| < 1e-10), else in double-double. */
static int tri_normal(const builder *b, uint32_t ia, uint32_t ib, uint32_t ic, double n[3])
{
    double pa[3], pb[3], pc[3], e1[3], e2[3];
    point_of(b, ia, pa);
    point_of(b, ib, pb);
    point_of(b, ic, pc);
    sub3(pb, pa, e1);
    sub3(pc, pa, e2);
    cross3(e1, e2, n);
    const double len2 = dot3(n, n), P2 = dot3(e1, e1) * dot3(e2, e2);
    if (len2 > 1e-12 * P2 && normalize3(n)) return 1;
    return accurate_normal(b, ia, ib, ic, n);
}

/* ---------------------------------------------------------------- quickhull */

#define TRI_ALIVE(t) ((t)->v[0] != NONE)

/* The triangle's plane and the bound on a height's rounding: the cross
 * product's error is ~4 eps P (P = |e1|_1 |e2|_1), which tilts the unit
 * normal by ~8 eps P / |e1 x e2| over heights up to the box diagonal; the
 * dot products add ~10 eps of the largest coordinate. Four times that. */
/* A triangle's first corner, its edges from it and their cross product. */
static void tri_edges(const builder *b, const qh_tri *t, double a[3], double e1[3], double e2[3], double c[3])
{
    double p[3], q[3];
    point_of(b, t->v[0], a);
    point_of(b, t->v[1], p);
    point_of(b, t->v[2], q);
    sub3(p, a, e1);
    sub3(q, a, e2);
    cross3(e1, e2, c);
}

static void tri_plane(const builder *b, qh_tri *t)
{
    double a[3], e1[3], e2[3], c[3];
    tri_edges(b, t, a, e1, e2, c);
    const double len = sqrt(dot3(c, c));
    const double P = (fabs(e1[0]) + fabs(e1[1]) + fabs(e1[2])) * (fabs(e2[0]) + fabs(e2[1]) + fabs(e2[2]));
    if (!(len > 0.0) || !isfinite(len) || !isfinite(P)) {
        t->n[0] = t->n[1] = t->n[2] = t->d = 0.0;
        t->err = INFINITY;
        return;
    }
    t->n[0] = c[0] / len;
    t->n[1] = c[1] / len;
    t->n[2] = c[2] / len;
    t->d = dot3(t->n, a);
    t->err = 32.0 * DBL_EPSILON * ((P / len + 1.0) * b->size + 2.0 * b->maxabs);
}

/* Sign of p's height above t (exact); *h is the height in double. */
static int tri_side(const builder *b, const qh_tri *t, uint32_t p, double *h)
{
    const double d = t->n[0] * b->x[p] + t->n[1] * b->y[p] + t->n[2] * b->z[p] - t->d;
    *h = d;
    if (d > t->err) return 1;
    if (d < -t->err) return -1;
    return orient(b, t->v[0], t->v[1], t->v[2], p);
}

static unsigned tri_seen(const builder *b, const qh_tri *t)
{
    const uint32_t m = t->mark & ~ON_STACK;
    return (m >> 2) == b->stamp ? (m & 3u) : SEEN_NOT;
}

static void tri_set_seen(const builder *b, qh_tri *t, unsigned s)
{
    t->mark = (t->mark & ON_STACK) | b->stamp << 2 | s;
}

static uint32_t tri_alloc(builder *b)
{
    uint32_t t;
    if (b->tri_free != NONE) {
        t = b->tri_free;
        b->tri_free = b->tri[t].head;
    } else if (b->tri_used < b->L.tri_cap) {
        t = b->tri_used++;
        b->tri[t].mark = 0;
    } else {
        return NONE;
    }
    return t;
}

static void tri_make(builder *b, uint32_t t, uint32_t a, uint32_t c1, uint32_t c2)
{
    qh_tri *T = &b->tri[t];
    T->v[0] = a;
    T->v[1] = c1;
    T->v[2] = c2;
    T->adj[0] = T->adj[1] = T->adj[2] = NONE;
    T->head = NONE;
    T->mark &= ON_STACK; /* a stale work-stack entry may still name the slot */
    tri_plane(b, T);
}

static void tri_kill(builder *b, uint32_t t)
{
    b->tri[t].v[0] = NONE;
    b->tri[t].head = b->tri_free;
    b->tri_free = t;
}

/* Faces with points wait in generations: each generation is taken last in
 * first out (the faces just made, close in memory, first), while the faces
 * it makes wait for the next one, so that the hull is refined all over
 * rather than deep in one place (depth first, the points on two circles of
 * a cylinder come in unevenly, and each new one sees long fans of the
 * other circle's triangles). Each slot is in at most once: the two never
 * outgrow T. */
static void work_push(builder *b, uint32_t t)
{
    if (b->tri[t].mark & ON_STACK) return;
    b->tri[t].mark |= ON_STACK;
    b->work[b->L.tri_cap - 1 - b->next_n++] = t;
}

static uint32_t work_pop(builder *b)
{
    if (b->work_n == 0) {
        /* the next generation, in the order it came */
        for (uint32_t i = 0; i < b->next_n; ++i) b->work[i] = b->work[b->L.tri_cap - b->next_n + i];
        b->work_n = b->next_n;
        b->next_n = 0;
    }
    return b->work_n ? b->work[--b->work_n] : NONE;
}

/* Points above no face are inside the hull for good (quickhull's lemma: a
 * point above a deleted face and outside the new hull is above a new face);
 * the first face a point is above takes it. */
static void assign_points(builder *b, uint32_t head, const uint32_t *faces, uint32_t nf)
{
    uint32_t guard = 0;
    for (uint32_t p = head, q; p != NONE && guard++ < b->n; p = q) {
        q = b->next[p];
        for (uint32_t i = 0; i < nf; ++i) {
            qh_tri *T = &b->tri[faces[i]];
            double h;
            if (tri_side(b, T, p, &h) > 0) {
                b->next[p] = T->head;
                T->head = p;
                break;
            }
        }
    }
}

static int qh_init(builder *b, const uint32_t s[4])
{
    uint32_t a = s[0], c = s[1], d = s[2], e = s[3];
    if (orient(b, a, c, d, e) > 0) {
        const uint32_t t = c;
        c = d;
        d = t;
    }
    /* e below (a, c, d): these four are counter-clockwise from outside */
    const uint32_t f[4][3] = {{a, c, d}, {a, e, c}, {c, e, d}, {d, e, a}};
    uint32_t id[4];
    for (int i = 0; i < 4; ++i) {
        id[i] = tri_alloc(b);
        if (id[i] == NONE) return 0;
        tri_make(b, id[i], f[i][0], f[i][1], f[i][2]);
    }
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 4; ++j)
                for (int l = 0; l < 3; ++l)
                    if (j != i && f[i][k] == f[j][(l + 1) % 3] && f[i][(k + 1) % 3] == f[j][l])
                        b->tri[id[i]].adj[k] = id[j];
    uint32_t head = NONE;
    for (uint32_t p = b->n; p-- > 0;) {
        if (p == a || p == c || p == d || p == e) continue;
        b->next[p] = head;
        head = p;
    }
    assign_points(b, head, id, 4);
    for (int i = 0; i < 4; ++i)
        if (b->tri[id[i]].head != NONE) work_push(b, id[i]);
    return 1;
}

/* The faces visible from apex, searched depth first from f0 (visible) in
 * edge order, which lists the horizon's edges (face << 2 | edge) in order
 * around the visible region. 0 when the horizon is not one simple loop
 * (impossible with exact signs; then the apex is dropped, nothing changed). */
static int qh_horizon(builder *b, uint32_t f0, uint32_t apex, uint32_t *nvis, uint32_t *nhor)
{
    uint32_t nv = 0, nh = 0, sp = 0;
    ++b->stamp;
    tri_set_seen(b, &b->tri[f0], SEEN_VISIBLE);
    b->vis[nv++] = f0;
    b->dfs[sp++] = f0 << 4 | 3u << 2; /* entered through no edge (3), next k = 0 */
    const uint64_t cap = 4 * (uint64_t)b->L.tri_cap + 16;
    for (uint64_t steps = 0; sp > 0; ++steps) {
        if (steps > cap) return 0;
        const uint32_t top = b->dfs[sp - 1];
        const uint32_t f = top >> 4, ee = (top >> 2) & 3u, k = top & 3u;
        if (k == (ee == 3u ? 3u : 2u)) {
            --sp;
            continue;
        }
        b->dfs[sp - 1] = top + 1;
        const uint32_t e = ee == 3u ? k : (ee + 1 + k) % 3u;
        const qh_tri *T = &b->tri[f];
        const uint32_t g = T->adj[e];
        if (g == NONE) return 0;
        qh_tri *G = &b->tri[g];
        const unsigned seen = tri_seen(b, G);
        if (seen == SEEN_VISIBLE) continue;
        if (seen == SEEN_NOT) {
            double h;
            if (tri_side(b, G, apex, &h) > 0) {
                uint32_t eg = 3;
                for (uint32_t j = 0; j < 3; ++j)
                    if (G->adj[j] == f && G->v[j] == T->v[(e + 1) % 3]) eg = j;
                if (eg == 3) return 0;
                tri_set_seen(b, G, SEEN_VISIBLE);
                b->vis[nv++] = g;
                b->dfs[sp++] = g << 4 | eg << 2;
                continue;
            }
            tri_set_seen(b, G, SEEN_HIDDEN);
        }
        if (nh >= b->n) return 0;
        b->hor[nh++] = f << 2 | e;
    }
    if (nh < 3) return 0;
    /* one closed loop through distinct points */
    for (uint32_t i = 0; i < nh; ++i) {
        const qh_tri *T = &b->tri[b->hor[i] >> 2], *U = &b->tri[b->hor[(i + 1) % nh] >> 2];
        const uint32_t e = b->hor[i] & 3u, eu = b->hor[(i + 1) % nh] & 3u;
        const uint32_t start = T->v[e];
        if (T->v[(e + 1) % 3] != U->v[eu] || b->pmark[start] == b->stamp) return 0;
        b->pmark[start] = b->stamp;
    }
    *nvis = nv;
    *nhor = nh;
    return 1;
}

/* Replaces the visible faces by the cone from apex over the horizon and
 * hands their conflict points to the new faces. */
static int qh_add(builder *b, uint32_t apex, uint32_t nv, uint32_t nh)
{
    uint32_t head = NONE, count = 0;
    for (uint32_t i = 0; i < nv; ++i) {
        qh_tri *V = &b->tri[b->vis[i]];
        for (uint32_t p = V->head, q; p != NONE; p = q) {
            if (++count > b->n) return 0;
            q = b->next[p];
            b->next[p] = head;
            head = p;
        }
        V->head = NONE;
        /* a corner inside the visible region leaves the hull: the points
         * welded to it are unsettled again (the horizon's corners carry this
         * pass's stamp) */
        for (int c = 0; c < 3; ++c) {
            const uint32_t v = V->v[c];
            if (b->pmark[v] == b->stamp) continue;
            for (uint32_t p = b->whead[v], q; p != NONE; p = q) {
                if (++count > b->n) return 0;
                q = b->wnext[p];
                b->next[p] = head;
                head = p;
            }
            b->whead[v] = NONE;
        }
    }
    /* the horizon as (u, v, hidden neighbour), backwards so as not to
     * overwrite entries not yet read */
    for (uint32_t i = nh; i-- > 0;) {
        const qh_tri *T = &b->tri[b->hor[i] >> 2];
        const uint32_t e = b->hor[i] & 3u;
        const uint32_t u = T->v[e], v = T->v[(e + 1) % 3], g = T->adj[e];
        b->hor[3 * i + 0] = u;
        b->hor[3 * i + 1] = v;
        b->hor[3 * i + 2] = g;
    }
    for (uint32_t i = 0; i < nv; ++i) tri_kill(b, b->vis[i]);
    uint32_t *cone = b->vis; /* the visible list is spent */
    for (uint32_t i = 0; i < nh; ++i) {
        cone[i] = tri_alloc(b);
        if (cone[i] == NONE) return 0;
        tri_make(b, cone[i], b->hor[3 * i], b->hor[3 * i + 1], apex);
    }
    for (uint32_t i = 0; i < nh; ++i) {
        qh_tri *T = &b->tri[cone[i]];
        const uint32_t u = b->hor[3 * i], v = b->hor[3 * i + 1], g = b->hor[3 * i + 2];
        T->adj[0] = g;
        T->adj[1] = cone[(i + 1) % nh];
        T->adj[2] = cone[(i + nh - 1) % nh];
        qh_tri *G = &b->tri[g];
        int found = 0;
        for (int j = 0; j < 3; ++j)
            if (G->v[j] == v && G->v[(j + 1) % 3] == u) {
                G->adj[j] = cone[i];
                found = 1;
            }
        if (!found) return 0;
    }
    assign_points(b, head, cone, nh);
    for (uint32_t i = 0; i < nh; ++i)
        if (b->tri[cone[i]].head != NONE) work_push(b, cone[i]);
    return 1;
}

/* A corner of the visible faces within weld_tol of apex, or NONE. */
static uint32_t weld_target(const builder *b, uint32_t apex, uint32_t nv)
{
    double a[3];
    point_of(b, apex, a);
    const double w2 = b->weld_tol * b->weld_tol;
    for (uint32_t i = 0; i < nv; ++i)
        for (int c = 0; c < 3; ++c) {
            const uint32_t v = b->tri[b->vis[i]].v[c];
            double p[3], d[3];
            point_of(b, v, p);
            sub3(p, a, d);
            if (dot3(d, d) <= w2) return v;
        }
    return NONE;
}

static int quickhull(builder *b, const uint32_t s[4])
{
    b->tri = (qh_tri *)(b->base + b->L.arc);
    b->tri_used = 0;
    b->tri_free = NONE;
    b->next = (uint32_t *)(b->base + b->L.point_first);
    b->pmark = (uint32_t *)(b->base + b->L.point_face);
    b->hor = b->pmark + b->n;
    b->dfs = (uint32_t *)(b->base + b->L.face_vertex);
    b->vis = b->dfs + b->L.tri_cap;
    b->work = (uint32_t *)(b->base + b->L.zone);
    b->whead = (uint32_t *)(b->base + b->L.weld);
    b->wnext = b->whead + b->n;
    b->work_n = b->next_n = 0;
    b->stamp = 0;
    b->welds = 0;
    b->weld_tol = TOL_WELD * b->tol;
    memset(b->pmark, 0, (size_t)b->n * sizeof(uint32_t));
    memset(b->whead, 0xff, (size_t)b->n * sizeof(uint32_t));
    if (!qh_init(b, s)) return 0;
    /* each pass adds a point, drops one, or pops an entry pushed since: a
     * loose bound that no consistent run comes near */
    const uint64_t cap = (2 * (uint64_t)b->n + 2) * ((uint64_t)b->L.tri_cap + 2);
    for (uint64_t iter = 0;; ++iter) {
        if (iter > cap) return 0;
        const uint32_t f = work_pop(b);
        if (f == NONE) break;
        qh_tri *F = &b->tri[f];
        F->mark &= ~ON_STACK;
        if (!TRI_ALIVE(F) || F->head == NONE) continue;
        /* the farthest point above f, unlinked */
        uint32_t apex = NONE, before = NONE, prev = NONE, guard = 0;
        double best = -INFINITY;
        for (uint32_t p = F->head; p != NONE; prev = p, p = b->next[p]) {
            if (++guard > b->n) return 0;
            const double h = F->n[0] * b->x[p] + F->n[1] * b->y[p] + F->n[2] * b->z[p];
            if (h > best || apex == NONE) {
                best = h;
                apex = p;
                before = prev;
            }
        }
        if (before == NONE) F->head = b->next[apex];
        else b->next[before] = b->next[apex];
        uint32_t nv, nh;
        const int loop = qh_horizon(b, f, apex, &nv, &nh);
        const uint32_t near = loop ? weld_target(b, apex, nv) : NONE;
        if (!loop || near != NONE) {
            /* apex dropped: welded to a corner it nearly repeats (it would
             * only add micro-edges), or, never with exact signs, a horizon
             * that is not one loop */
            if (near != NONE) {
                b->wnext[apex] = b->whead[near];
                b->whead[near] = apex;
                ++b->welds;
            }
            if (F->head != NONE) work_push(b, f);
            continue;
        }
        if (!qh_add(b, apex, nv, nh)) return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- sorting */

typedef int (*before_fn)(const builder *b, const void *ctx, uint32_t i, uint32_t j);

static void sift_down(uint32_t *a, uint32_t i, uint32_t n, before_fn before, const builder *b, const void *ctx)
{
    for (;;) {
        const uint64_t c64 = 2 * (uint64_t)i + 1;
        if (c64 >= n) return;
        uint32_t c = (uint32_t)c64;
        if (c + 1 < n && before(b, ctx, a[c], a[c + 1])) ++c;
        if (!before(b, ctx, a[i], a[c])) return;
        const uint32_t t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

/* Heapsort: in place, O(n log n) on every input. */
static void heap_sort(uint32_t *a, uint32_t n, before_fn before, const builder *b, const void *ctx)
{
    for (uint32_t i = n / 2; i-- > 0;) sift_down(a, i, n, before, b, ctx);
    for (uint32_t end = n; end > 1; --end) {
        const uint32_t t = a[0];
        a[0] = a[end - 1];
        a[end - 1] = t;
        sift_down(a, 0, end - 1, before, b, ctx);
    }
}

/* Heapsort of 64-bit keys, ascending. */
static void sort_u64(uint64_t *a, uint32_t n)
{
    for (uint32_t i = n / 2, end = n; end > 1;) {
        uint32_t r;
        if (i > 0) {
            r = --i; /* building the heap */
        } else {
            const uint64_t t = a[0];
            a[0] = a[--end];
            a[end] = t;
            r = 0;
        }
        for (;;) {
            const uint64_t c64 = 2 * (uint64_t)r + 1;
            if (c64 >= end) break;
            uint32_t c = (uint32_t)c64;
            if (c + 1 < end && a[c] < a[c + 1]) ++c;
            if (a[r] >= a[c]) break;
            const uint64_t t = a[r];
            a[r] = a[c];
            a[c] = t;
            r = c;
        }
    }
}

/* ---------------------------------------------------------------- merging into faces */

typedef struct merge_state {
    uint32_t *tri_face, *order, *queue, *seed;
    uint32_t *nxt, *prv, *etri, *ostamp; /* per point: outline links, owner triangle, stamp */
    uint32_t face;                       /* the face growing                                */
    uint32_t start, olen;                /* an outline point, outline length                */
    double n[3], a[3];                   /* its seed plane: unit normal, a point            */
    double tol_grow, reflex, reflex_angle;
} merge_state;

/* Turning at q on the way p -> q -> r, seen along the seed normal: a left
 * turn, or straight on within `reflex` of the chord p -> r (collinear
 * corners stay); never a turn back. */
static int turn_ok(const builder *b, const merge_state *m, uint32_t p, uint32_t q, uint32_t r)
{
    double pp[3], pq[3], pr[3], u[3], v[3], w[3], c[3];
    point_of(b, p, pp);
    point_of(b, q, pq);
    point_of(b, r, pr);
    sub3(pq, pp, u);
    sub3(pr, pq, v);
    sub3(pr, pp, w);
    cross3(u, v, c);
    const double z = dot3(c, m->n);
    if (z > 0.0) return 1;
    /* along the plane */
    const double un = dot3(u, m->n), vn = dot3(v, m->n);
    const double along = dot3(u, v) - un * vn;
    if (!(along > 0.0)) return 0;
    /* reflex by little: q near the chord p -> r, and the turn small enough
     * that the side lines of p -> q and q -> r pass within ~merge_tol / 2
     * of every corner */
    return -z <= m->reflex * sqrt(dot3(w, w)) && -z <= m->reflex_angle * sqrt(dot3(u, u) * dot3(v, v));
}

static double seed_height(const builder *b, const merge_state *m, uint32_t p)
{
    double q[3], d[3];
    point_of(b, p, q);
    sub3(q, m->a, d);
    return dot3(d, m->n);
}

static int faces_seed_way(const builder *b, const merge_state *m, const qh_tri *T)
{
    double p0[3], e1[3], e2[3], c[3];
    tri_edges(b, T, p0, e1, e2, c);
    return dot3(c, m->n) > 0.0;
}

/* Adds triangle t (unassigned, next to the growing face) when the face
 * stays a disk facing the seed's way with every corner within tol_grow of
 * the seed plane; strict: with its outline convex at every step too. */
static int grow_try(const builder *b, merge_state *m, uint32_t t, uint32_t from, int strict)
{
    const qh_tri *T = &b->tri[t];
    const uint32_t on = 2 * m->face + 1, in = 2 * m->face + 2;
    const int ef = T->adj[0] == from ? 0 : T->adj[1] == from ? 1 : 2;
    const uint32_t wf = T->v[(ef + 2) % 3];
    int shared[3] = {0, 0, 0}, k = 1;
    shared[ef] = 1;
    if (m->ostamp[wf] == on) {
        /* its third point on the outline: t may share a second edge */
        for (int e = 1; e < 3; ++e) {
            shared[(ef + e) % 3] = m->tri_face[T->adj[(ef + e) % 3]] == m->face;
            k += shared[(ef + e) % 3];
        }
    }
    if (k == 1) {
        /* t = (q, p, w) across the outline edge p -> q: p -> w -> q */
        const int e = ef;
        const uint32_t q = T->v[e], p = T->v[(e + 1) % 3], w = wf;
        if (m->ostamp[w] == on || m->ostamp[w] == in) return 0; /* would pinch */
        if (!(fabs(seed_height(b, m, w)) <= m->tol_grow)) return 0;
        if (m->ostamp[p] != on || m->ostamp[q] != on || m->nxt[p] != q || !faces_seed_way(b, m, T)) return 0;
        if (strict &&
            (!turn_ok(b, m, m->prv[p], p, w) || !turn_ok(b, m, p, w, q) || !turn_ok(b, m, w, q, m->nxt[q])))
            return 0;
        m->nxt[p] = w;
        m->prv[w] = p;
        m->nxt[w] = q;
        m->prv[q] = w;
        m->etri[p] = t;
        m->etri[w] = t;
        m->ostamp[w] = on;
        ++m->olen;
        return 1;
    }
    if (k == 2) {
        /* t = (a, c, mid), its edges c -> mid and mid -> a shared: the
         * outline a -> mid -> c becomes a -> c */
        const int e = !shared[0] ? 0 : !shared[1] ? 1 : 2;
        const uint32_t a = T->v[e], c = T->v[(e + 1) % 3], mid = T->v[(e + 2) % 3];
        if (m->olen <= 3 || m->ostamp[mid] != on || m->nxt[a] != mid || m->nxt[mid] != c) return 0;
        if (!faces_seed_way(b, m, T)) return 0;
        if (strict && (!turn_ok(b, m, m->prv[a], a, c) || !turn_ok(b, m, a, c, m->nxt[c]))) return 0;
        m->nxt[a] = c;
        m->prv[c] = a;
        m->etri[a] = t;
        m->ostamp[mid] = in;
        if (m->start == mid) m->start = c;
        --m->olen;
        return 1;
    }
    return 0;
}

/* Grows face m->face from seed triangle s, breadth first; each triangle is
 * queued once. */
static void grow_face(const builder *b, merge_state *m, uint32_t s, int strict)
{
    const qh_tri *S = &b->tri[s];
    const uint32_t on = 2 * m->face + 1;
    m->tri_face[s] = m->face;
    for (int i = 0; i < 3; ++i) {
        const uint32_t v = S->v[i], w = S->v[(i + 1) % 3];
        m->nxt[v] = w;
        m->prv[w] = v;
        m->etri[v] = s;
        m->ostamp[v] = on;
    }
    m->start = S->v[0];
    m->olen = 3;
    uint32_t qh = 0, qt = 0;
    m->queue[qt++] = s;
    while (qh < qt) {
        const uint32_t r = m->queue[qh++];
        for (int e = 0; e < 3; ++e) {
            const uint32_t t = b->tri[r].adj[e];
            if (m->tri_face[t] != NONE || (b->tri[t].head != 0) != (strict != 0)) continue;
            if (grow_try(b, m, t, r, strict)) {
                m->tri_face[t] = m->face;
                m->queue[qt++] = t;
            }
        }
    }
}

/* One partition of the triangles into faces, in seed order: each face
 * grows from its seed over triangles of the seed's kind (T->head: 1 for a
 * face kept convex at every step, 0 for one grown on heights alone); its
 * loop goes to face_first / face_vertex and, per loop entry, the face
 * across the entry's edge to point_face's place. */
static int merge_round(builder *b, merge_state *m, uint32_t live, uint32_t *face_count, uint32_t *loop_count)
{
    uint32_t *ff = (uint32_t *)(b->base + b->L.face_first);
    uint32_t *fv = (uint32_t *)(b->base + b->L.face_vertex);
    uint32_t *across = (uint32_t *)(b->base + b->L.point_face);
    for (uint32_t oi = 0; oi < live; ++oi) m->tri_face[m->order[oi]] = NONE;
    memset(m->ostamp, 0, (size_t)b->n * sizeof(uint32_t));
    uint32_t F = 0, pos = 0;
    for (uint32_t oi = 0; oi < live; ++oi) {
        const uint32_t s = m->order[oi];
        if (m->tri_face[s] != NONE) continue;
        const qh_tri *S = &b->tri[s];
        if (!tri_normal(b, S->v[0], S->v[1], S->v[2], m->n)) return 0;
        point_of(b, S->v[0], m->a);
        m->face = F;
        m->seed[F] = s;
        grow_face(b, m, s, S->head != 0);
        if (pos + (uint64_t)m->olen > b->L.loop_cap) return 0;
        ff[F] = pos;
        uint32_t v = m->start;
        for (uint32_t k = 0; k < m->olen; ++k) {
            const qh_tri *E = &b->tri[m->etri[v]];
            uint32_t e = 3;
            for (uint32_t j = 0; j < 3; ++j)
                if (E->v[j] == v && E->v[(j + 1) % 3] == m->nxt[v]) e = j;
            if (e == 3) return 0;
            fv[pos] = v;
            across[pos] = E->adj[e];
            ++pos;
            v = m->nxt[v];
        }
        if (v != m->start) return 0;
        ++F;
    }
    ff[F] = pos;
    for (uint32_t j = 0; j < pos; ++j) {
        const uint32_t g = m->tri_face[across[j]];
        if (g >= F) return 0;
        across[j] = g;
    }
    *face_count = F;
    *loop_count = pos;
    return 1;
}

/* Faces grown on heights alone whose final loop (straight corners dropped)
 * turns the wrong way somewhere: their triangles are flagged to form faces
 * kept convex at every step. Returns how many were. */
static uint32_t flag_reflex_faces(builder *b, merge_state *m, uint32_t F)
{
    const uint32_t *ff = (const uint32_t *)(b->base + b->L.face_first);
    const uint32_t *fv = (const uint32_t *)(b->base + b->L.face_vertex);
    uint32_t *bad = m->queue, count = 0;
    for (uint32_t f = 0; f < F; ++f) {
        const qh_tri *S = &b->tri[m->seed[f]];
        const uint32_t k0 = ff[f], k1 = ff[f + 1];
        bad[f] = 0;
        /* a triangle is convex; a face kept convex all along stays so */
        if (k1 - k0 == 3 || S->head || !tri_normal(b, S->v[0], S->v[1], S->v[2], m->n)) continue;
        for (uint32_t j = k0; j < k1; ++j) {
            const uint32_t p = fv[j > k0 ? j - 1 : k1 - 1], r = fv[j + 1 < k1 ? j + 1 : k0];
            if (!turn_ok(b, m, p, fv[j], r)) {
                bad[f] = 1;
                ++count;
                break;
            }
        }
    }
    if (count)
        for (uint32_t t = 0; t < b->tri_used; ++t)
            if (m->tri_face[t] < F && bad[m->tri_face[t]]) b->tri[t].head = 1;
    return count;
}

/* Drops corners that only two faces share: they are straight-on points
 * along the two faces' common edge (each face is convex, so both angles
 * there are ~180 degrees). Faces keep at least three corners. */
static uint32_t drop_straight_corners(builder *b, uint32_t F, uint32_t loops)
{
    uint32_t *ff = (uint32_t *)(b->base + b->L.face_first);
    uint32_t *fv = (uint32_t *)(b->base + b->L.face_vertex);
    uint32_t *across = (uint32_t *)(b->base + b->L.point_face);
    uint32_t *cnt = (uint32_t *)(b->base + b->L.point_first);
    const uint32_t KEEP = NONE;
    memset(cnt, 0, (size_t)b->n * sizeof(uint32_t));
    for (uint32_t j = 0; j < loops; ++j) ++cnt[fv[j]];
    for (uint32_t f = 0; f < F; ++f) {
        uint32_t drop = 0;
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) drop += cnt[fv[j]] == 2;
        if (ff[f + 1] - ff[f] - drop < 3)
            for (uint32_t j = ff[f]; j < ff[f + 1]; ++j)
                if (cnt[fv[j]] == 2) cnt[fv[j]] = KEEP;
    }
    /* in place: u -> v -> w becomes u -> w, and u's neighbour is v's */
    uint32_t w = 0, next_start = ff[0];
    for (uint32_t f = 0; f < F; ++f) {
        const uint32_t s = next_start, e = ff[f + 1];
        next_start = e;
        ff[f] = w;
        for (uint32_t j = s; j < e; ++j) {
            if (cnt[fv[j]] == 2) continue;
            fv[w] = fv[j];
            across[w] = across[j];
            ++w;
        }
    }
    ff[F] = w;
    return w;
}

/* Rounds of merging: grown on heights alone, a face whose points are
 * coplanar comes out whole (growing one triangle at a time it may be
 * reflex on the way, around a point inside it); a face whose loop is still
 * reflex once the straight corners are gone is grown again, over the same
 * triangles, convex at every step. Flags only spread, and the last round
 * has them all. */
enum { MERGE_ROUNDS = 6 };

static int merge_faces(builder *b, uint32_t *face_count, uint32_t *loop_count)
{
    merge_state m;
    const uint32_t T = b->L.tri_cap;
    uint32_t *zone = (uint32_t *)(b->base + b->L.zone);
    m.tri_face = zone;
    m.order = zone + T;
    m.queue = zone + 2 * (size_t)T;
    m.seed = zone + 3 * (size_t)T;
    m.nxt = zone + 4 * (size_t)T;
    m.prv = m.nxt + b->n;
    m.etri = m.prv + b->n;
    m.ostamp = m.etri + b->n;
    m.tol_grow = TOL_GROW * b->tol;
    m.reflex = TOL_REFLEX * b->tol;
    m.reflex_angle = TOL_TURN * b->tol / b->size;

    /* seeds by area, largest first: sorted as (~area bits, index) keys in
     * the queue's and seeds' room (a positive float's bits order as it).
     * Areas within ~12 % tie (3 mantissa bits kept): among them triangle
     * order, close to the order quickhull made them in, keeps the growth's
     * triangles and points in cache. */
    uint64_t *key = (uint64_t *)m.queue;
    uint32_t live = 0;
    for (uint32_t t = 0; t < b->tri_used; ++t) {
        qh_tri *Q = &b->tri[t];
        if (!TRI_ALIVE(Q)) {
            m.tri_face[t] = NONE - 1;
            continue;
        }
        Q->head = 0;
        double p0[3], p1[3], p2[3], e1[3], e2[3], c[3];
        point_of(b, Q->v[0], p0);
        point_of(b, Q->v[1], p1);
        point_of(b, Q->v[2], p2);
        sub3(p1, p0, e1);
        sub3(p2, p0, e2);
        cross3(e1, e2, c);
        const float area = (float)sqrt(dot3(c, c));
        uint32_t bits;
        memcpy(&bits, &area, sizeof bits);
        key[live++] = (uint64_t)(uint32_t)~(bits & 0xfff00000u) << 32 | t;
    }
    sort_u64(key, live);
    for (uint32_t i = 0; i < live; ++i) m.order[i] = (uint32_t)key[i];

    for (int round = 0; round < MERGE_ROUNDS; ++round) {
        uint32_t F, loops;
        if (!merge_round(b, &m, live, &F, &loops)) return 0;
        loops = drop_straight_corners(b, F, loops);
        *face_count = F;
        *loop_count = loops;
        if (round + 1 == MERGE_ROUNDS || flag_reflex_faces(b, &m, F) == 0) break;
        if (round + 2 == MERGE_ROUNDS)
            for (uint32_t i = 0; i < live; ++i) b->tri[m.order[i]].head = 1;
    }
    return 1;
}

/* The hull vertex maximizing nf . p, climbing from v over the
 * triangulation's edges with exact comparisons: on a convex polytope a
 * vertex with no better neighbour is the maximum over all its points. */
static uint32_t climb(const builder *b, const uint32_t *vtri, const float nf[3], uint32_t v)
{
    for (uint32_t step = 0; step <= b->n; ++step) {
        uint32_t best = v, t = vtri[v];
        for (uint32_t guard = 0; guard < b->L.tri_cap; ++guard) {
            const qh_tri *T = &b->tri[t];
            const uint32_t j = T->v[0] == v ? 0u : T->v[1] == v ? 1u : T->v[2] == v ? 2u : 3u;
            if (j == 3) return NONE;
            const uint32_t u = T->v[(j + 1) % 3];
            if (dot_greater(b, nf, u, best)) best = u;
            t = T->adj[j]; /* across v -> u: the next triangle around v */
            if (t == vtri[v]) break;
        }
        if (best == v) return v;
        v = best;
    }
    return NONE;
}

/* The point maximizing nf . p exactly: the top corner, from climbing, or
 * a point welded to a corner within weld_tol of the top (a welded point is
 * within weld_tol of its corner; the corners above any level are connected
 * by edges). */
static uint32_t top_point(const builder *b, const uint32_t *vtri, const float nf[3], uint32_t start, uint32_t *queue,
                          uint32_t *seen, uint32_t mark)
{
    const uint32_t top = climb(b, vtri, nf, start);
    if (top == NONE || b->welds == 0) return top;
    double t[3];
    dot_terms(b, nf, top, t);
    const double level = t[0] + t[1] + t[2] - 1.01 * b->weld_tol - 1e-12 * b->maxabs;
    uint32_t best = top, qn = 0;
    queue[qn++] = top;
    seen[top] = mark;
    for (uint32_t qi = 0; qi < qn; ++qi) {
        const uint32_t v = queue[qi];
        uint32_t guard = 0;
        for (uint32_t p = b->whead[v]; p != NONE && guard++ < b->n; p = b->wnext[p])
            if (dot_greater(b, nf, p, best)) best = p;
        uint32_t tr = vtri[v];
        for (guard = 0; guard < b->L.tri_cap; ++guard) {
            const qh_tri *T = &b->tri[tr];
            const uint32_t j = T->v[0] == v ? 0u : T->v[1] == v ? 1u : T->v[2] == v ? 2u : 3u;
            if (j == 3) return NONE;
            const uint32_t u = T->v[(j + 1) % 3];
            if (seen[u] != mark && qn < b->n) {
                dot_terms(b, nf, u, t);
                if (t[0] + t[1] + t[2] >= level) {
                    seen[u] = mark;
                    queue[qn++] = u;
                }
            }
            tr = T->adj[j];
            if (tr == vtri[v]) break;
        }
    }
    return best;
}

static float *plane_array(const builder *b, uint32_t fp, unsigned k)
{
    return (float *)(b->base + b->L.plane) + (size_t)k * fp;
}

static int solid_planes(builder *b, uint32_t F, uint32_t fp, const uint32_t *seed)
{
    const uint32_t *ff = (const uint32_t *)(b->base + b->L.face_first);
    const uint32_t *fv = (const uint32_t *)(b->base + b->L.face_vertex);
    uint32_t *vtri = (uint32_t *)(b->base + b->L.point_first);
    for (uint32_t t = 0; t < b->tri_used; ++t) {
        const qh_tri *T = &b->tri[t];
        if (!TRI_ALIVE(T)) continue;
        vtri[T->v[0]] = vtri[T->v[1]] = vtri[T->v[2]] = t;
    }
    float *nx = plane_array(b, fp, 0), *ny = plane_array(b, fp, 1), *nz = plane_array(b, fp, 2), *dd = plane_array(b, fp, 3);
    /* the merge's outline links are spent: a queue and visit marks */
    uint32_t *queue = (uint32_t *)(b->base + b->L.zone) + 4 * (size_t)b->L.tri_cap, *seen = queue + 3 * (size_t)b->n;
    memset(seen, 0, (size_t)b->n * sizeof(uint32_t));
    /* face by face in triangle order, close to the order quickhull made
     * them in, which keeps the climbs' triangles and points in cache */
    const uint32_t *tri_face = (const uint32_t *)(b->base + b->L.zone);
    for (uint32_t t = 0; t < b->tri_used; ++t) {
        const uint32_t f = tri_face[t];
        if (f >= F || seed[f] != t) continue;
        const qh_tri *S = &b->tri[t];
        double n[3];
        if (!tri_normal(b, S->v[0], S->v[1], S->v[2], n)) return 0;
        const float nf[3] = {(float)n[0], (float)n[1], (float)n[2]};
        uint32_t best = fv[ff[f]];
        for (uint32_t j = ff[f] + 1; j < ff[f + 1]; ++j)
            if (dot_greater(b, nf, fv[j], best)) best = fv[j];
        const uint32_t top = top_point(b, vtri, nf, best, queue, seen, f + 1);
        if (top == NONE) return 0;
        const float d = dot_round_up(b, nf, top);
        if (!isfinite(d)) return 0;
        nx[f] = nf[0];
        ny[f] = nf[1];
        nz[f] = nf[2];
        dd[f] = d;
    }
    return 1;
}

/* ---------------------------------------------------------------- output */

static float *arc_array(const builder *b, uint32_t ap, unsigned k)
{
    return (float *)(b->base + b->L.arc) + (size_t)k * ap;
}

/* Arc k: normals n0 -> n1, e = unit (n0 x n1) in double from the stored
 * floats (the edge's direction when they are parallel), o = point u. */
static void put_arc(const builder *b, uint32_t ap, uint32_t k, const float n0[3], const float n1[3], uint32_t u,
                    uint32_t v)
{
    const double a[3] = {n0[0], n0[1], n0[2]}, c[3] = {n1[0], n1[1], n1[2]};
    double e[3];
    cross3(a, c, e);
    if (!normalize3(e)) {
        double pu[3], pv[3];
        point_of(b, u, pu);
        point_of(b, v, pv);
        sub3(pv, pu, e);
        if (!normalize3(e)) e[0] = e[1] = e[2] = 0.0;
    }
    const float vals[12] = {n0[0], n0[1], n0[2], n1[0], n1[1], n1[2], (float)e[0], (float)e[1], (float)e[2],
                            b->x[u], b->y[u], b->z[u]};
    for (unsigned i = 0; i < 12; ++i) arc_array(b, ap, i)[k] = vals[i];
    uint32_t *ends = (uint32_t *)(b->base + b->L.arc_point);
    ends[k] = u;
    ends[(size_t)ap + k] = v;
}

static void zero_arc_padding(const builder *b, uint32_t A, uint32_t ap)
{
    uint32_t *ends = (uint32_t *)(b->base + b->L.arc_point);
    for (unsigned i = 0; i < 12; ++i)
        for (uint32_t k = A; k < ap; ++k) arc_array(b, ap, i)[k] = 0.0f;
    for (uint32_t k = A; k < ap; ++k) ends[k] = ends[(size_t)ap + k] = 0;
}

/* Faces past F repeat face 0. */
static void pad_planes(const builder *b, uint32_t F, uint32_t fp)
{
    for (unsigned k = 0; k < 4; ++k) {
        float *p = plane_array(b, fp, k);
        for (uint32_t f = F; f < fp; ++f) p[f] = p[0];
    }
}

/* point -> faces from the loops (counts, prefix sums, fill); returns the
 * number of points in some loop. */
static uint32_t point_index(const builder *b, uint32_t F)
{
    const uint32_t *ff = (const uint32_t *)(b->base + b->L.face_first);
    const uint32_t *fv = (const uint32_t *)(b->base + b->L.face_vertex);
    uint32_t *pf = (uint32_t *)(b->base + b->L.point_first);
    uint32_t *pface = (uint32_t *)(b->base + b->L.point_face);
    const uint32_t n = b->n;
    memset(pf, 0, ((size_t)n + 1) * sizeof(uint32_t));
    for (uint32_t j = 0; j < ff[F]; ++j) ++pf[fv[j] + 1];
    uint32_t verts = 0;
    for (uint32_t i = 0; i < n; ++i) {
        verts += pf[i + 1] != 0;
        pf[i + 1] += pf[i];
    }
    for (uint32_t f = 0; f < F; ++f)
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) pface[pf[fv[j]]++] = f;
    for (uint32_t i = n; i > 0; --i) pf[i] = pf[i - 1];
    pf[0] = 0;
    return verts;
}

/* Moves the arrays together after the header and fills its offsets. */
static const hull_topology *finish(builder *b, hull_topology *h, uint32_t fp, uint32_t ap)
{
    const size_t sizes[7] = {(size_t)16 * fp,         (size_t)4 * ((size_t)h->face_count + 1),
                             (size_t)4 * h->loop_count, (size_t)4 * ((size_t)b->n + 1),
                             (size_t)4 * h->loop_count, (size_t)48 * ap,
                             (size_t)8 * ap};
    const size_t from[7] = {b->L.plane, b->L.face_first, b->L.face_vertex, b->L.point_first,
                            b->L.point_face, b->L.arc, b->L.arc_point};
    uint32_t *offs[7] = {&h->off_plane, &h->off_face_first, &h->off_face_vertex, &h->off_point_first,
                         &h->off_point_face, &h->off_arc, &h->off_arc_point};
    size_t off = (size_t)round64(sizeof(hull_topology));
    for (int i = 0; i < 7; ++i) {
        /* off <= from[i] and off + sizes[i] <= from[i + 1]: nothing unread is overwritten */
        if (sizes[i]) memmove(b->base + off, b->base + from[i], sizes[i]);
        *offs[i] = (uint32_t)off;
        off += (size_t)round64(sizes[i]);
    }
    h->bytes = (uint32_t)off;
    return h;
}

/* Each face's width, each point's narrowest face and the narrowest of all
 * (hull.h's thin, off_face_thin, off_point_thin), from the finished loops. */
static void face_widths(const builder *b, hull_topology *h)
{
    const uint32_t *first = hull_face_first(h), *loop = hull_face_vertex(h);
    float *face_thin = (float *)(b->base + b->L.face_thin), *point_thin = (float *)(b->base + b->L.point_thin);
    for (uint32_t i = 0; i < b->n; ++i) point_thin[i] = FLT_MAX;
    h->off_face_thin = (uint32_t)b->L.face_thin;
    h->off_point_thin = (uint32_t)b->L.point_thin;
    h->bytes = (uint32_t)(b->L.point_thin + 4 * (size_t)b->n); /* the last array */
    double thin = FLT_MAX;
    for (uint32_t f = 0; f < h->face_count; ++f) {
        const uint32_t k0 = first[f], size = first[f + 1] - k0;
        double width2 = DBL_MAX;
        for (uint32_t i = 0; i < size; ++i) {
            double p[3], q[3], e[3], widest = 0.0;
            point_of(b, loop[k0 + i], p);
            point_of(b, loop[k0 + (i + 1) % size], q);
            sub3(q, p, e);
            const double e2 = dot3(e, e);
            for (uint32_t j = 0; j < size; ++j) {
                double r[3], c[3];
                point_of(b, loop[k0 + j], q);
                sub3(q, p, r);
                cross3(r, e, c);
                const double off2 = e2 > 0.0 ? dot3(c, c) / e2 : dot3(r, r);
                if (off2 > widest) widest = off2;
            }
            if (widest < width2) width2 = widest;
        }
        const float width = (float)sqrt(width2);
        face_thin[f] = width;
        for (uint32_t i = 0; i < size; ++i)
            if (width < point_thin[loop[k0 + i]]) point_thin[loop[k0 + i]] = width;
        if (width < thin) thin = width;
    }
    h->thin = (float)thin;
}

/* Hill climbing's blocks and seeds (hull.h) in their own space; the
 * corner numbers and each point's successors in its loops are worked out
 * in the zone, free once the arrays are compacted (they end before it).
 * Seeds: the corners furthest along directions on a Fibonacci spiral over
 * the sphere (evenly spread). */
static void climb_index(const builder *b, hull_topology *h)
{
    h->seed_count = 0;
    const uint32_t n = h->point_count, V = h->vertex_count;
    if (n < HULL_CLIMB_MIN_POINTS || V < HULL_CLIMB_SEEDS || b->L.total > UINT32_MAX) return;
    char *base = (char *)h;
    const uint32_t *first = hull_point_first(h), *ff = hull_face_first(h), *fv = hull_face_vertex(h);
    uint32_t *corner_of = (uint32_t *)(base + b->L.zone), *next = corner_of + n, *cursor = next + h->loop_count;
    hull_climb_block *block = (hull_climb_block *)(base + b->L.climb);
    const uint64_t blocks = hull_climb_blocks(n);
    uint32_t *corner_point = (uint32_t *)(base + b->L.climb + round64(sizeof(hull_climb_block) * blocks));
    float *seed = (float *)((char *)corner_point + round64(4 * (uint64_t)n));
    uint32_t *seed_corner = (uint32_t *)(seed + 3 * HULL_CLIMB_SEEDS);
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; ++i) {
        corner_of[i] = NONE;
        if (first[i + 1] == first[i]) continue; /* in no loop */
        if (c >= V) return;
        corner_point[c] = i;
        corner_of[i] = c++;
    }
    if (c != V) return;
    /* point_face lists each point's faces in face order: walking the faces
     * in order meets them in the same order */
    memcpy(cursor, first, (size_t)n * sizeof *cursor);
    for (uint32_t f = 0; f < h->face_count; ++f)
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) next[cursor[fv[j]]++] = fv[j + 1 < ff[f + 1] ? j + 1 : ff[f]];
    uint64_t spare = V; /* the next continuation block */
    for (c = 0; c < V; ++c) {
        const uint32_t i = corner_point[c];
        uint32_t from = first[i];
        hull_climb_block *k = &block[c];
        for (;;) {
            /* all the rest fit, or HULL_CLIMB_LANES - 1 and a link */
            const int last = first[i + 1] - from <= HULL_CLIMB_LANES;
            const uint32_t take = last ? first[i + 1] - from : HULL_CLIMB_LANES - 1;
            for (uint32_t lane = 0; lane < HULL_CLIMB_LANES; ++lane) {
                const uint32_t j = lane < take ? next[from + lane] : i;
                if (corner_of[j] == NONE) return;
                k->x[lane] = b->x[j], k->y[lane] = b->y[j], k->z[lane] = b->z[j];
                k->corner[lane] = corner_of[j];
            }
            if (last) break;
            if (spare >= blocks || spare >= HULL_CLIMB_MORE) return;
            k->corner[HULL_CLIMB_LANES - 1] = HULL_CLIMB_MORE | (uint32_t)spare;
            k = &block[spare++];
            from += take;
        }
    }
    const double turn = 3.14159265358979323846 * (3.0 - sqrt(5.0)); /* the golden angle */
    for (uint32_t s = 0; s < HULL_CLIMB_SEEDS; ++s) {
        const double cz = 1.0 - (2.0 * s + 1.0) / HULL_CLIMB_SEEDS, r = sqrt(1.0 - cz * cz);
        const double d[3] = {r * cos(turn * s), r * sin(turn * s), cz};
        uint32_t top = 0;
        double top_dot = -INFINITY;
        for (c = 0; c < V; ++c) {
            double p[3];
            point_of(b, corner_point[c], p);
            if (dot3(p, d) > top_dot) top_dot = dot3(p, d), top = c;
        }
        const uint32_t i = corner_point[top];
        seed[s] = b->x[i], seed[HULL_CLIMB_SEEDS + s] = b->y[i], seed[2 * HULL_CLIMB_SEEDS + s] = b->z[i];
        seed_corner[s] = top;
    }
    h->off_climb = (uint32_t)b->L.climb;
    h->off_corner_point = (uint32_t)((char *)corner_point - base);
    h->off_seed = (uint32_t)((char *)seed - base);
    h->bytes = (uint32_t)((char *)(seed_corner + HULL_CLIMB_SEEDS) - base);
    h->seed_count = HULL_CLIMB_SEEDS;
}

static hull_topology *header(builder *b, hull_kind kind)
{
    hull_topology *h = (hull_topology *)b->base;
    memset(h, 0, sizeof *h);
    h->kind = (uint32_t)kind;
    h->point_count = b->n;
    h->size = (float)b->size;
    h->merge_tol = (float)b->tol;
    h->thin = FLT_MAX;
    double c[3] = {0.0, 0.0, 0.0};
    for (uint32_t i = 0; i < b->n; ++i) {
        double p[3];
        point_of(b, i, p);
        for (int k = 0; k < 3; ++k) c[k] += p[k];
    }
    for (int k = 0; k < 3; ++k) h->centre[k] = (float)(c[k] / b->n);
    return h;
}

/* A point or a segment: no faces, no arcs. */
static const hull_topology *build_ends(builder *b, hull_kind kind, uint32_t e0, uint32_t e1)
{
    hull_topology *h = header(b, kind);
    h->ends[0] = e0;
    h->ends[1] = e1;
    uint32_t *ff = (uint32_t *)(b->base + b->L.face_first);
    ff[0] = 0;
    (void)point_index(b, 0);
    finish(b, h, 0, 0);
    face_widths(b, h);
    return h;
}

/* Renumbers the live triangles breadth first over their edges (in place,
 * the dead slots dropped): the passes after quickhull walk the surface, and
 * neighbours close in memory keep them in cache whatever order quickhull
 * filled the slots in. */
static int renumber_triangles(builder *b)
{
    uint32_t *idx = (uint32_t *)(b->base + b->L.zone), *queue = idx + b->L.tri_cap;
    const uint32_t used = b->tri_used;
    uint32_t start = NONE, count = 0;
    for (uint32_t t = 0; t < used; ++t) {
        idx[t] = NONE;
        if (start == NONE && TRI_ALIVE(&b->tri[t])) start = t;
    }
    if (start == NONE) return 0;
    idx[start] = count;
    queue[count++] = start;
    for (uint32_t h = 0; h < count; ++h)
        for (int k = 0; k < 3; ++k) {
            const uint32_t u = b->tri[queue[h]].adj[k];
            if (u >= used || !TRI_ALIVE(&b->tri[u])) return 0;
            if (idx[u] == NONE) {
                idx[u] = count;
                queue[count++] = u;
            }
        }
    for (uint32_t h = 0; h < count; ++h)
        for (int k = 0; k < 3; ++k) b->tri[queue[h]].adj[k] = idx[b->tri[queue[h]].adj[k]];
    /* each swap puts one triangle in its place */
    for (uint32_t t = 0; t < used; ++t)
        while (idx[t] != NONE && idx[t] != t) {
            const uint32_t j = idx[t];
            const qh_tri tmp = b->tri[j];
            b->tri[j] = b->tri[t];
            b->tri[t] = tmp;
            idx[t] = idx[j];
            idx[j] = j;
        }
    b->tri_used = count;
    return 1;
}

static const hull_topology *build_solid(builder *b, const uint32_t s[4])
{
    if (!quickhull(b, s) || !renumber_triangles(b)) return NULL;
    uint32_t F, loops;
    if (!merge_faces(b, &F, &loops)) return NULL;
    const uint32_t fp = (uint32_t)pad_lanes(F);
    const uint32_t *seed = (const uint32_t *)(b->base + b->L.zone) + 3 * (size_t)b->L.tri_cap;
    if (!solid_planes(b, F, fp, seed)) return NULL;
    pad_planes(b, F, fp);
    /* arcs: each edge once, from the face that has it as u -> v with the
     * lower index (the other has v -> u) */
    const uint32_t *ff = (const uint32_t *)(b->base + b->L.face_first);
    const uint32_t *fv = (const uint32_t *)(b->base + b->L.face_vertex);
    const uint32_t *across = (const uint32_t *)(b->base + b->L.point_face);
    if (loops % 2) return NULL;
    const uint32_t A = loops / 2, ap = (uint32_t)pad_lanes(A);
    uint32_t k = 0;
    for (uint32_t f = 0; f < F; ++f)
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) {
            const uint32_t g = across[j];
            if (g == f) return NULL;
            if (g < f) continue;
            if (k >= A) return NULL;
            const uint32_t u = fv[j], v = fv[j + 1 < ff[f + 1] ? j + 1 : ff[f]];
            const float n0[3] = {plane_array(b, fp, 0)[f], plane_array(b, fp, 1)[f], plane_array(b, fp, 2)[f]};
            const float n1[3] = {plane_array(b, fp, 0)[g], plane_array(b, fp, 1)[g], plane_array(b, fp, 2)[g]};
            put_arc(b, ap, k++, n0, n1, u, v);
        }
    if (k != A) return NULL;
    zero_arc_padding(b, A, ap);
    hull_topology *h = header(b, HULL_SOLID);
    h->face_count = F;
    h->face_padded = fp;
    h->arc_count = A;
    h->arc_padded = ap;
    h->loop_count = loops;
    h->vertex_count = point_index(b, F);
    finish(b, h, fp, ap);
    climb_index(b, h);
    face_widths(b, h);
    return h;
}

/* ---------------------------------------------------------------- flat sets */

typedef struct flat_coords { const double *s, *t; } flat_coords;

static int flat_before(const builder *b, const void *ctx, uint32_t i, uint32_t j)
{
    (void)b;
    const flat_coords *c = (const flat_coords *)ctx;
    if (c->s[i] != c->s[j]) return c->s[i] < c->s[j];
    if (c->t[i] != c->t[j]) return c->t[i] < c->t[j];
    return i < j;
}

/* A left turn at q on p -> q -> r by more than `keep` from the chord. */
static int flat_left(const flat_coords *c, uint32_t p, uint32_t q, uint32_t r, double keep)
{
    const double z = (c->s[q] - c->s[p]) * (c->t[r] - c->t[q]) - (c->t[q] - c->t[p]) * (c->s[r] - c->s[q]);
    const double ds = c->s[r] - c->s[p], dt = c->t[r] - c->t[p];
    return z > keep * sqrt(ds * ds + dt * dt);
}

/* Coplanar points: the 2D hull (Andrew's monotone chain, corners within a
 * thousandth of merge_tol of their neighbours' chord dropped) as face 0
 * about n, reversed as face 1 about -n. */
static const hull_topology *build_flat(builder *b, uint32_t i0, uint32_t i1, const double nrm[3])
{
    const uint32_t n = b->n;
    double *S = (double *)(b->base + b->L.zone), *Tc = S + n;
    uint32_t *idx = (uint32_t *)(Tc + n), *H = idx + n;
    double p0[3], p1[3], u[3], w[3];
    point_of(b, i0, p0);
    point_of(b, i1, p1);
    sub3(p1, p0, u);
    const double along = dot3(u, nrm);
    for (int k = 0; k < 3; ++k) u[k] -= along * nrm[k];
    if (!normalize3(u)) return NULL;
    cross3(nrm, u, w); /* u x w = n: counter-clockwise in (s, t) is about n */
    for (uint32_t i = 0; i < n; ++i) {
        double p[3], d[3];
        point_of(b, i, p);
        sub3(p, p0, d);
        S[i] = dot3(d, u);
        Tc[i] = dot3(d, w);
        idx[i] = i;
    }
    const flat_coords c = {S, Tc};
    heap_sort(idx, n, flat_before, b, &c);
    const double keep = 1e-3 * b->tol;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; ++i) {
        while (k >= 2 && !flat_left(&c, H[k - 2], H[k - 1], idx[i], keep)) --k;
        H[k++] = idx[i];
    }
    const uint32_t lower = k + 1;
    for (uint32_t i = n - 1; i-- > 0;) {
        while (k >= lower && !flat_left(&c, H[k - 2], H[k - 1], idx[i], keep)) --k;
        H[k++] = idx[i];
    }
    const uint32_t m = k - 1; /* the last repeats the first */
    if (m < 3) return NULL;

    /* planes: n and -n, each with d the exact maximum over all points */
    const float nf[3] = {(float)nrm[0], (float)nrm[1], (float)nrm[2]};
    const float mf[3] = {-nf[0], -nf[1], -nf[2]};
    uint32_t top = 0, bottom = 0;
    for (uint32_t i = 1; i < n; ++i) {
        if (dot_greater(b, nf, i, top)) top = i;
        if (dot_greater(b, mf, i, bottom)) bottom = i;
    }
    const uint32_t fp = MINK_HULL_PAD;
    const float d0 = dot_round_up(b, nf, top), d1 = dot_round_up(b, mf, bottom);
    if (!isfinite(d0) || !isfinite(d1)) return NULL;
    const float planes[2][4] = {{nf[0], nf[1], nf[2], d0}, {mf[0], mf[1], mf[2], d1}};
    for (unsigned j = 0; j < 4; ++j) {
        plane_array(b, fp, j)[0] = planes[0][j];
        plane_array(b, fp, j)[1] = planes[1][j];
    }
    pad_planes(b, 2, fp);
    uint32_t *ff = (uint32_t *)(b->base + b->L.face_first);
    uint32_t *fv = (uint32_t *)(b->base + b->L.face_vertex);
    ff[0] = 0;
    ff[1] = m;
    ff[2] = 2 * m;
    for (uint32_t i = 0; i < m; ++i) {
        fv[i] = H[i];
        fv[2 * m - 1 - i] = H[i];
    }
    /* arcs: per edge v0 -> v1 of face 0, n -> m and m -> -n with m the
     * edge's outward direction in the plane */
    const uint32_t A = 2 * m, ap = (uint32_t)pad_lanes(A);
    const double nd[3] = {nf[0], nf[1], nf[2]};
    for (uint32_t i = 0; i < m; ++i) {
        const uint32_t v0 = H[i], v1 = H[(i + 1) % m];
        double q0[3], q1[3], e[3], out[3];
        point_of(b, v0, q0);
        point_of(b, v1, q1);
        sub3(q1, q0, e);
        cross3(e, nd, out);
        if (!normalize3(out)) return NULL;
        const float of[3] = {(float)out[0], (float)out[1], (float)out[2]};
        put_arc(b, ap, 2 * i, nf, of, v0, v1);
        put_arc(b, ap, 2 * i + 1, of, mf, v0, v1);
    }
    zero_arc_padding(b, A, ap);
    hull_topology *h = header(b, HULL_FLAT);
    h->face_count = 2;
    h->face_padded = fp;
    h->arc_count = A;
    h->arc_padded = ap;
    h->loop_count = 2 * m;
    h->vertex_count = point_index(b, 2);
    finish(b, h, fp, ap);
    face_widths(b, h);
    return h;
}

/* The heights of the points over the plane through p0 with unit normal n:
 * lowest and highest, and where. */
static void slab(const builder *b, const double p0[3], const double n[3], double *hmin, double *hmax, uint32_t *ilo,
                 uint32_t *ihi)
{
    *hmin = INFINITY;
    *hmax = -INFINITY;
    *ilo = *ihi = 0;
    for (uint32_t i = 0; i < b->n; ++i) {
        double p[3], d[3];
        point_of(b, i, p);
        sub3(p, p0, d);
        const double h = dot3(d, n);
        if (h < *hmin) *hmin = h, *ilo = i;
        if (h > *hmax) *hmax = h, *ihi = i;
    }
}

/* The least-squares plane of the points, as one correction of the normal n
 * (heights over n's plane fitted linearly in two axes across it): a plane
 * through three of the points can be tilted by their own offsets. */
static int fit_plane(const builder *b, const double p0[3], const double n[3], double out[3])
{
    double u[3] = {1.0, 0.0, 0.0}, w[3];
    if (fabs(n[0]) > 0.5) u[0] = 0.0, u[1] = 1.0;
    cross3(n, u, w);
    if (!normalize3(w)) return 0;
    cross3(w, n, u);
    /* centred sums: means first */
    double ms = 0.0, mt = 0.0, mh = 0.0;
    for (uint32_t i = 0; i < b->n; ++i) {
        double p[3], d[3];
        point_of(b, i, p);
        sub3(p, p0, d);
        ms += dot3(d, u);
        mt += dot3(d, w);
        mh += dot3(d, n);
    }
    ms /= b->n;
    mt /= b->n;
    mh /= b->n;
    double sss = 0.0, sst = 0.0, stt = 0.0, ssh = 0.0, sth = 0.0;
    for (uint32_t i = 0; i < b->n; ++i) {
        double p[3], d[3];
        point_of(b, i, p);
        sub3(p, p0, d);
        const double ds = dot3(d, u) - ms, dt = dot3(d, w) - mt, dh = dot3(d, n) - mh;
        sss += ds * ds;
        sst += ds * dt;
        stt += dt * dt;
        ssh += ds * dh;
        sth += dt * dh;
    }
    const double det = sss * stt - sst * sst;
    if (!(det > 0.0) || !isfinite(det)) return 0;
    const double a = (ssh * stt - sth * sst) / det, c = (sth * sss - ssh * sst) / det;
    for (int k = 0; k < 3; ++k) out[k] = n[k] - a * u[k] - c * w[k];
    return normalize3(out);
}

/* ---------------------------------------------------------------- entry */

const hull_topology *mink_hull_topology_build(const float *x, const float *y, const float *z, uint32_t count,
                                              void *mem, size_t mem_bytes)
{
    builder b;
    memset(&b, 0, sizeof b);
    if (!x || !y || !z || !mem || ((uintptr_t)mem % 64) != 0 || !layout_of(count, &b.L) || mem_bytes < b.L.total)
        return NULL;
    b.x = x;
    b.y = y;
    b.z = z;
    b.n = count;
    b.base = (char *)mem;
    const uint32_t n = count;

    double lo[3], hi[3];
    uint32_t imin[3] = {0, 0, 0}, imax[3] = {0, 0, 0};
    point_of(&b, 0, lo);
    point_of(&b, 0, hi);
    double maxabs = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        double p[3];
        point_of(&b, i, p);
        for (int k = 0; k < 3; ++k) {
            if (!isfinite(p[k])) return NULL;
            if (p[k] < lo[k]) lo[k] = p[k], imin[k] = i;
            if (p[k] > hi[k]) hi[k] = p[k], imax[k] = i;
            if (fabs(p[k]) > maxabs) maxabs = fabs(p[k]);
        }
    }
    double diag[3];
    sub3(hi, lo, diag);
    b.size = sqrt(dot3(diag, diag));
    b.maxabs = maxabs;
    /* float coordinates cannot resolve better than a few ulps of the largest */
    b.tol = fmax(1e-6 * b.size, 8.0 * FLT_EPSILON * maxabs);
    if (!isfinite(b.size)) return NULL;

    /* all within merge_tol of one point */
    if (!(b.size > b.tol)) return build_ends(&b, HULL_POINT, 0, 0);

    /* the farthest pair among the axis extremes: at least diag / sqrt(3) apart */
    const uint32_t ext[6] = {imin[0], imax[0], imin[1], imax[1], imin[2], imax[2]};
    uint32_t i0 = ext[0], i1 = ext[1];
    double far2 = -1.0;
    for (int a = 0; a < 6; ++a)
        for (int c = a + 1; c < 6; ++c) {
            double pa[3], pc[3], d[3];
            point_of(&b, ext[a], pa);
            point_of(&b, ext[c], pc);
            sub3(pc, pa, d);
            if (dot3(d, d) > far2) far2 = dot3(d, d), i0 = ext[a], i1 = ext[c];
        }
    double p0[3], p1[3], dir[3];
    point_of(&b, i0, p0);
    point_of(&b, i1, p1);
    sub3(p1, p0, dir);
    if (!normalize3(dir)) return NULL;

    /* within merge_tol of the line p0 p1: a segment between the extremes */
    uint32_t i2 = i0, tmin = i0, tmax = i0;
    double line2 = -1.0, smin = INFINITY, smax = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        double p[3], d[3], c[3];
        point_of(&b, i, p);
        sub3(p, p0, d);
        const double s = dot3(d, dir);
        if (s < smin) smin = s, tmin = i;
        if (s > smax) smax = s, tmax = i;
        cross3(d, dir, c);
        if (dot3(c, c) > line2) line2 = dot3(c, c), i2 = i;
    }
    if (!(sqrt(line2) > b.tol)) return build_ends(&b, HULL_SEGMENT, tmin, tmax);

    /* flat: all points in a slab TOL_FLAT merge_tol thick (then a face's
     * corners are within merge_tol of its plane, as for solids), about the
     * plane of i0, i1, i2 or the least-squares plane */
    double nrm[3];
    if (!accurate_normal(&b, i0, i1, i2, nrm)) return NULL;
    uint32_t hlo = i0, hhi = i0;
    double hmin, hmax;
    slab(&b, p0, nrm, &hmin, &hmax, &hlo, &hhi);
    if (!(hmax - hmin > TOL_FLAT * b.tol)) return build_flat(&b, i0, i1, nrm);
    double fit[3];
    if (hmax - hmin <= 8.0 * b.tol && fit_plane(&b, p0, nrm, fit)) {
        double fmin, fmax;
        uint32_t flo, fhi;
        slab(&b, p0, fit, &fmin, &fmax, &flo, &fhi);
        if (!(fmax - fmin > TOL_FLAT * b.tol)) return build_flat(&b, i0, i1, fit);
    }

    const uint32_t s[4] = {i0, i1, i2, hmax >= -hmin ? hhi : hlo};
    return build_solid(&b, s);
}
