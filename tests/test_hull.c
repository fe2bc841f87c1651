/* Hull topology (kernel/hull.h, built by mink_hull_init): every invariant
 * the layout promises, checked from the output alone on boxes, simplices,
 * random balls and spheres, flat, collinear and coincident sets, and the
 * degenerate inputs a builder must survive (grids, near-coplanar noise,
 * huge and tiny magnitudes, repeated points).
 *
 * Plane containment is checked exactly: n.p of a float normal and a float
 * point is three exact double products; their sum is compared with d
 * through two-sums, so no rounding can hide a point above its plane. */
#include "test_util.h"

#include "hull.h"

#include <stdlib.h>
#include <time.h>

/* Points the builder took as coplanar may stick out of a face's polygon or
 * bend its outline by this much (in units of merge_tol). */
#define CONVEX_TOL_REL 1.0

/* e = unit(n0 x n1) along the edge: float normals put it within ~1e-7 /
 * sin(dihedral) of the edge, merged corners within ~2 merge_tol / |edge| /
 * sin(dihedral); this on top. */
#define ARC_EDGE_ANGLE 1e-5

/* ---------------------------------------------------------------- building */

typedef struct built {
    mink_shape s;
    void *mem;
    const hull_topology *t;
} built;

static built build_hull(const float *xyz, uint32_t n)
{
    built b;
    const size_t bytes = mink_hull_bytes(n);
    assert_true(bytes > 0);
    const size_t alloc = (bytes + MINK_HULL_ALIGN - 1) / MINK_HULL_ALIGN * MINK_HULL_ALIGN;
    b.mem = aligned_alloc(MINK_HULL_ALIGN, alloc);
    assert_non_null(b.mem);
    memset(b.mem, 0xa5, alloc); /* garbage, so that unwritten padding shows */
    const mink_status st = mink_hull_init(&b.s, b.mem, bytes, xyz, n, 0.0f);
    if (st != MINK_OK) fail_msg("[%s] mink_hull_init(n = %u) failed: %d", test_ctx_buf(), n, (int)st);
    b.t = b.s.topology;
    assert_non_null(b.t);
    return b;
}

static void built_free(built *b)
{
    free(b->mem);
    b->mem = NULL;
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- exact checks */

static void two_sum(double a, double b, double *s, double *e)
{
    *s = a + b;
    const double bb = *s - a;
    *e = (a - (*s - bb)) + (b - bb);
}

/* sign of n . p - d, exact up to a last rounding far below any float ulp */
static double above_plane(float nx, float ny, float nz, float d, float px, float py, float pz)
{
    double s1, e1, s2, e2;
    two_sum((double)nx * px, (double)ny * py, &s1, &e1);
    two_sum(s1, (double)nz * pz, &s2, &e2);
    return (s2 - (double)d) + (e1 + e2);
}

static dv3 shape_point(const mink_shape *s, uint32_t i) { return dv(s->x[i], s->y[i], s->z[i]); }

static dv3 face_normal(const hull_topology *t, uint32_t f)
{
    return dv(hull_plane(t, 0)[f], hull_plane(t, 1)[f], hull_plane(t, 2)[f]);
}

/* directed loop edges, sorted, to find faces by edge */
typedef struct dedge { uint32_t u, v, f; } dedge;

static int dedge_cmp(const void *pa, const void *pb)
{
    const dedge *a = (const dedge *)pa, *b = (const dedge *)pb;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return a->f < b->f ? -1 : a->f > b->f;
}

/* index of the first entry with edge (u, v), or -1; *count its entries */
static long find_edge(const dedge *e, size_t m, uint32_t u, uint32_t v, size_t *count)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (e[mid].u < u || (e[mid].u == u && e[mid].v < v)) lo = mid + 1;
        else hi = mid;
    }
    size_t c = 0;
    while (lo + c < m && e[lo + c].u == u && e[lo + c].v == v) ++c;
    *count = c;
    return c ? (long)lo : -1;
}

/* face f's width: the least, over its edges, of its reach from the edge's
 * line (a convex polygon's width is flush with a side) */
static double face_width(const mink_shape *s, uint32_t f)
{
    const hull_topology *t = s->topology;
    const uint32_t *ff = hull_face_first(t), *fv = hull_face_vertex(t);
    double width = INFINITY;
    for (uint32_t i = ff[f]; i < ff[f + 1]; ++i) {
        const uint32_t next = i + 1 < ff[f + 1] ? i + 1 : ff[f];
        const dv3 a = shape_point(s, fv[i]), d = dv_norm(dv_sub(shape_point(s, fv[next]), a));
        double w = 0.0;
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) w = fmax(w, dv_len(dv_cross(dv_sub(shape_point(s, fv[j]), a), d)));
        width = fmin(width, w);
    }
    return width;
}

static uint32_t round_pad(uint32_t n) { return (n + MINK_HULL_PAD - 1) / MINK_HULL_PAD * MINK_HULL_PAD; }

typedef struct check_opts {
    int all_planes;     /* containment of every point under every face (else a sample) */
    int convex_faces;   /* the O(k^2) convexity test of every face                       */
} check_opts;

/* Every invariant of hull.h for the hull built from s's points. */
static void check_topology(const mink_shape *s, check_opts opt)
{
    const hull_topology *t = s->topology;
    const uint32_t n = s->count;
    assert_non_null(t);
    EXPECT_INT((uintptr_t)t % MINK_HULL_ALIGN, 0);
    EXPECT_TRUE((const char *)t == (const char *)s->x + 3 * (size_t)s->padded * sizeof(float));
    EXPECT_INT(t->point_count, n);
    EXPECT_TRUE(t->kind <= HULL_POINT);
    /* the layout: aligned arrays inside `bytes`, inside mink_hull_bytes */
    const uint32_t offs[7] = {t->off_plane, t->off_face_first, t->off_face_vertex, t->off_point_first,
                              t->off_point_face, t->off_arc, t->off_arc_point};
    const size_t sizes[7] = {16 * (size_t)t->face_padded, 4 * ((size_t)t->face_count + 1), 4 * (size_t)t->loop_count,
                             4 * ((size_t)n + 1), 4 * (size_t)t->loop_count, 48 * (size_t)t->arc_padded,
                             8 * (size_t)t->arc_padded};
    for (int i = 0; i < 7; ++i) {
        EXPECT_INT(offs[i] % 64, 0);
        EXPECT_TRUE(offs[i] >= sizeof *t && offs[i] + sizes[i] <= t->bytes);
    }
    EXPECT_TRUE(t->bytes + 3 * (size_t)s->padded * sizeof(float) <= mink_hull_bytes(n));
    EXPECT_INT(t->face_padded, round_pad(t->face_count));
    EXPECT_INT(t->arc_padded, round_pad(t->arc_count));

    /* size and merge_tol */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, maxabs = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
            maxabs = fmax(maxabs, fabs(p[k]));
        }
    }
    const double size = dv_len(dv(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]));
    const double tol = fmax(1e-6 * size, 8.0 * FLT_EPSILON * maxabs);
    EXPECT_NEAR(t->size, size, 1e-6 * size + 2e-45);
    EXPECT_NEAR(t->merge_tol, tol, 1e-6 * tol + 2e-45);

    const uint32_t F = t->face_count, LC = t->loop_count, A = t->arc_count;
    const uint32_t *ff = hull_face_first(t), *fv = hull_face_vertex(t);
    const uint32_t *pf = hull_point_first(t), *pface = hull_point_face(t);

    if (t->kind == HULL_SEGMENT || t->kind == HULL_POINT) {
        EXPECT_INT(F, 0);
        EXPECT_INT(A, 0);
        EXPECT_INT(LC, 0);
        EXPECT_INT(t->vertex_count, 0);
        EXPECT_INT(ff[0], 0);
        for (uint32_t i = 0; i <= n; ++i) EXPECT_INT(pf[i], 0);
        EXPECT_TRUE(t->ends[0] < n && t->ends[1] < n);
        return;
    }

    /* faces: loops of >= 3 distinct points */
    EXPECT_TRUE(F >= 2);
    EXPECT_INT(ff[0], 0);
    EXPECT_INT(ff[F], LC);
    for (uint32_t f = 0; f < F; ++f) {
        EXPECT_TRUE(ff[f + 1] >= ff[f] + 3);
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) {
            EXPECT_TRUE(fv[j] < n);
            for (uint32_t k = j + 1; k < ff[f + 1]; ++k) EXPECT_TRUE(fv[j] != fv[k]);
        }
    }
    /* a closed 2-manifold: each directed edge once, reversed once in another face */
    dedge *e = (dedge *)malloc(((size_t)LC + 1) * sizeof *e);
    assert_non_null(e);
    for (uint32_t f = 0; f < F; ++f)
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) {
            const uint32_t next = j + 1 < ff[f + 1] ? j + 1 : ff[f];
            e[j].u = fv[j];
            e[j].v = fv[next];
            e[j].f = f;
        }
    qsort(e, LC, sizeof *e, dedge_cmp);
    for (uint32_t j = 0; j < LC; ++j) {
        size_t c;
        EXPECT_TRUE(find_edge(e, LC, e[j].u, e[j].v, &c) >= 0 && c == 1);
        const long r = find_edge(e, LC, e[j].v, e[j].u, &c);
        EXPECT_TRUE(r >= 0 && c == 1);
        EXPECT_TRUE(e[r].f != e[j].f);
    }
    /* points in loops, and Euler's formula V - E + F = 2 */
    uint32_t verts = 0;
    EXPECT_INT(pf[0], 0);
    EXPECT_INT(pf[n], LC);
    for (uint32_t i = 0; i < n; ++i) {
        EXPECT_TRUE(pf[i + 1] >= pf[i]);
        verts += pf[i + 1] > pf[i];
        for (uint32_t j = pf[i]; j < pf[i + 1]; ++j) {
            const uint32_t f = pface[j];
            EXPECT_TRUE(f < F);
            if (j > pf[i]) EXPECT_TRUE(pface[j - 1] < f);
            int in = 0;
            for (uint32_t k = ff[f]; k < ff[f + 1]; ++k) in |= fv[k] == i;
            EXPECT_TRUE(in);
        }
    }
    EXPECT_INT(t->vertex_count, verts);
    EXPECT_INT((long)verts - (long)(LC / 2) + (long)F, 2);
    /* coincident points: one index at most in loops */
    {
        uint32_t *ord = (uint32_t *)malloc((size_t)n * sizeof *ord);
        assert_non_null(ord);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (pf[i + 1] > pf[i]) ord[m++] = i;
        for (uint32_t a = 0; a < m; ++a)
            for (uint32_t c = a + 1; c < m && m <= 4000; ++c) {
                const uint32_t i = ord[a], k = ord[c];
                EXPECT_TRUE(!(s->x[i] == s->x[k] && s->y[i] == s->y[k] && s->z[i] == s->z[k]));
            }
        free(ord);
    }

    /* planes: unit normals, padding repeats face 0, every point under every
     * plane (exactly), corners within merge_tol of it */
    for (uint32_t f = 0; f < t->face_padded; ++f) {
        const uint32_t g = f < F ? f : 0;
        for (unsigned k = 0; k < 4; ++k) EXPECT_TRUE(hull_plane(t, k)[f] == hull_plane(t, k)[g]);
        EXPECT_NEAR(dv_len(face_normal(t, g)), 1.0, 1e-6);
    }
    const float *nx = hull_plane(t, 0), *ny = hull_plane(t, 1), *nz = hull_plane(t, 2), *dd = hull_plane(t, 3);
    const uint32_t fstep = opt.all_planes || F < 64 ? 1 : F / 64 + 1;
    for (uint32_t f = 0; f < F; f += fstep) {
        double top = -INFINITY;
        for (uint32_t i = 0; i < n; ++i) {
            const double h = above_plane(nx[f], ny[f], nz[f], dd[f], s->x[i], s->y[i], s->z[i]);
            if (h > top) top = h;
            if (!(h <= 0.0)) {
                char what[512];
                snprintf(what, sizeof what, "%s", test_ctx_buf());
                test_ctx("%s; face %u point %u", what, f, i);
                EXPECT_LE(h, 0.0, 0.0);
            }
        }
        /* d is tight: the highest point is within a float ulp of d */
        EXPECT_LE(-top, 2.0 * FLT_EPSILON * (fabs(dd[f]) + maxabs) + 1e-38, 0.0);
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) {
            const uint32_t i = fv[j];
            EXPECT_LE(-above_plane(nx[f], ny[f], nz[f], dd[f], s->x[i], s->y[i], s->z[i]), tol, 0.0);
        }
    }
    /* faces: convex (every corner inside every edge's side line, within
     * tolerance) and counter-clockwise about their normals */
    for (uint32_t f = 0; f < F; ++f) {
        const dv3 nrm = face_normal(t, f);
        const uint32_t k0 = ff[f], k1 = ff[f + 1];
        dv3 area = dv(0, 0, 0);
        for (uint32_t j = k0; j < k1; ++j) {
            const uint32_t next = j + 1 < k1 ? j + 1 : k0;
            area = dv_add(area, dv_cross(shape_point(s, fv[j]), shape_point(s, fv[next])));
        }
        EXPECT_TRUE(dv_dot(area, nrm) > 0.0);
        if (!opt.convex_faces && k1 - k0 > 64) continue;
        for (uint32_t j = k0; j < k1; ++j) {
            const uint32_t next = j + 1 < k1 ? j + 1 : k0;
            const dv3 u = shape_point(s, fv[j]), v = shape_point(s, fv[next]);
            const dv3 out = dv_cross(dv_sub(v, u), nrm);
            const double len = dv_len(out);
            if (!(len > 0.0)) continue;
            for (uint32_t k = k0; k < k1; ++k)
                EXPECT_LE(dv_dot(dv_sub(shape_point(s, fv[k]), u), out) / len, CONVEX_TOL_REL * tol, 0.0);
        }
    }

    /* arcs */
    const uint32_t *a0 = hull_arc_point(t, 0), *a1 = hull_arc_point(t, 1);
    for (uint32_t k = A; k < t->arc_padded; ++k) {
        for (unsigned c = 0; c < 12; ++c) EXPECT_TRUE(hull_arc(t, c)[k] == 0.0f);
        EXPECT_TRUE(a0[k] == 0 && a1[k] == 0);
    }
    const float *arc[12];
    for (unsigned c = 0; c < 12; ++c) arc[c] = hull_arc(t, c);
    if (t->kind == HULL_SOLID) {
        EXPECT_INT(A, LC / 2);
        uint32_t *seen = (uint32_t *)calloc((size_t)LC + 1, sizeof *seen), checked_arcs = 0;
        assert_non_null(seen);
        for (uint32_t k = 0; k < A; ++k) {
            size_t c;
            const long fw = find_edge(e, LC, a0[k], a1[k], &c), bw = find_edge(e, LC, a1[k], a0[k], &c);
            EXPECT_TRUE(fw >= 0 && bw >= 0);
            if (fw < 0 || bw < 0) continue;
            EXPECT_INT(seen[fw]++, 0); /* one arc per edge */
            const uint32_t f0 = e[fw].f, f1 = e[bw].f;
            EXPECT_TRUE(arc[0][k] == nx[f0] && arc[1][k] == ny[f0] && arc[2][k] == nz[f0]);
            EXPECT_TRUE(arc[3][k] == nx[f1] && arc[4][k] == ny[f1] && arc[5][k] == nz[f1]);
            const dv3 n0 = dv(arc[0][k], arc[1][k], arc[2][k]), n1 = dv(arc[3][k], arc[4][k], arc[5][k]);
            const dv3 ea = dv(arc[6][k], arc[7][k], arc[8][k]), edge = dv_sub(shape_point(s, a1[k]), shape_point(s, a0[k]));
            /* unit n0 x n1, or the edge's direction when the float normals
             * are equal (faces within merge_tol of one plane that would not
             * merge into a convex polygon) */
            const dv3 want = dv_len(dv_cross(n0, n1)) > 0.0 ? dv_norm(dv_cross(n0, n1)) : dv_norm(edge);
            EXPECT_NEAR(dv_len(dv_sub(ea, want)), 0.0, 1e-6);
            /* along the edge, up to the float normals' rounding and the
             * tilt that corners within merge_tol of the planes leave them
             * (2 merge_tol over the edge's length or the faces' widths),
             * over the normals' angle. Where that is not small (slivers a
             * few merge_tol wide meeting at a sharp ridge) the edge's
             * direction is not determined by the planes: not checked. */
            const double sin_dihedral = dv_len(dv_cross(n0, n1));
            const double slack = 1e-6 + 2.0 * tol / dv_len(edge) + 2.0 * tol / face_width(s, f0) +
                                 2.0 * tol / face_width(s, f1);
            if (slack < 0.1 * sin_dihedral) EXPECT_LE(dv_angle(ea, edge), ARC_EDGE_ANGLE + slack / sin_dihedral, 0.0);
            ++checked_arcs;
            EXPECT_TRUE(arc[9][k] == s->x[a0[k]] && arc[10][k] == s->y[a0[k]] && arc[11][k] == s->z[a0[k]]);
        }
        EXPECT_INT(checked_arcs, A);
        free(seen);
    } else {
        /* flat: face 1 is face 0 reversed about -n; two arcs per edge */
        EXPECT_INT(t->kind, HULL_FLAT);
        EXPECT_INT(F, 2);
        const uint32_t m = ff[1];
        EXPECT_INT(LC, 2 * m);
        EXPECT_INT(A, 2 * m);
        EXPECT_TRUE(nx[1] == -nx[0] && ny[1] == -ny[0] && nz[1] == -nz[0]);
        const dv3 nrm = face_normal(t, 0);
        for (uint32_t i = 0; i < m; ++i) {
            const uint32_t v0 = fv[i], v1 = fv[(i + 1) % m];
            const dv3 edge = dv_sub(shape_point(s, v1), shape_point(s, v0));
            const dv3 mo = dv_norm(dv_cross(edge, nrm));
            for (uint32_t h = 0; h < 2; ++h) {
                const uint32_t k = 2 * i + h;
                EXPECT_TRUE(a0[k] == v0 && a1[k] == v1);
                const dv3 n0 = dv(arc[0][k], arc[1][k], arc[2][k]), n1 = dv(arc[3][k], arc[4][k], arc[5][k]);
                const dv3 want0 = h ? mo : nrm, want1 = h ? dv_scale(nrm, -1.0) : mo;
                EXPECT_NEAR(dv_len(dv_sub(n0, want0)), 0.0, 1e-6);
                EXPECT_NEAR(dv_len(dv_sub(n1, want1)), 0.0, 1e-6);
                const dv3 ea = dv(arc[6][k], arc[7][k], arc[8][k]);
                EXPECT_NEAR(dv_len(dv_sub(ea, dv_norm(dv_cross(n0, n1)))), 0.0, 1e-6);
                EXPECT_LE(dv_angle(ea, edge), ARC_EDGE_ANGLE + (1e-6 + 2.0 * tol / dv_len(edge)), 0.0);
                EXPECT_TRUE(arc[9][k] == s->x[v0] && arc[10][k] == s->y[v0] && arc[11][k] == s->z[v0]);
            }
            /* the polygon holds every point, within tolerance */
            const dv3 o = shape_point(s, v0);
            for (uint32_t p = 0; p < n; p += opt.all_planes ? 1 : 7)
                EXPECT_LE(dv_dot(dv_sub(shape_point(s, p), o), mo), tol, 0.0);
        }
    }
    free(e);
}

static const check_opts FULL = {1, 1};

/* ---------------------------------------------------------------- point sets */

static void set_point(float *xyz, uint32_t i, dv3 p)
{
    xyz[3 * i + 0] = (float)p.x;
    xyz[3 * i + 1] = (float)p.y;
    xyz[3 * i + 2] = (float)p.z;
}

static dv3 get_point(const float *xyz, uint32_t i) { return dv(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]); }

/* uniform in the ball of radius R */
static dv3 rng_ball(test_rng *r, double R)
{
    for (;;) {
        const dv3 p = rng_box(r, 1.0);
        if (dv_dot(p, p) <= 1.0) return dv_scale(p, R);
    }
}

/* Faces of a box hull with half extents h: 6, each a quad of the box's
 * corners on its side, with normal +-axis and d = h exactly. */
static void check_box_faces(const mink_shape *s, const double h[3])
{
    const hull_topology *t = s->topology;
    EXPECT_INT(t->kind, HULL_SOLID);
    EXPECT_INT(t->face_count, 6);
    EXPECT_INT(t->arc_count, 12);
    EXPECT_INT(t->vertex_count, 8);
    const uint32_t *ff = hull_face_first(t), *fv = hull_face_vertex(t);
    int sides = 0;
    for (uint32_t f = 0; f < t->face_count && f < 6; ++f) {
        const dv3 nrm = face_normal(t, f);
        int axis = -1;
        for (int k = 0; k < 3; ++k)
            if (fabs(dv_comp(nrm, k)) == 1.0) axis = k;
        EXPECT_TRUE(axis >= 0);
        if (axis < 0) continue;
        const int sign = dv_comp(nrm, axis) > 0 ? 1 : 0;
        sides |= 1 << (2 * axis + sign);
        EXPECT_TRUE(hull_plane(t, 3)[f] == (float)h[axis]);
        EXPECT_INT(ff[f + 1] - ff[f], 4);
        int corners = 0;
        for (uint32_t j = ff[f]; j < ff[f + 1]; ++j) {
            const dv3 p = shape_point(s, fv[j]);
            for (int k = 0; k < 3; ++k) EXPECT_TRUE(fabs(dv_comp(p, k)) == (double)(float)h[k]);
            EXPECT_TRUE(dv_comp(p, axis) == (sign ? 1.0 : -1.0) * (double)(float)h[axis]);
            const int bit = (dv_comp(p, (axis + 1) % 3) > 0) + 2 * (dv_comp(p, (axis + 2) % 3) > 0);
            corners |= 1 << bit;
        }
        EXPECT_INT(corners, 15);
    }
    EXPECT_INT(sides, 63);
}

/* ---------------------------------------------------------------- tests */

static void test_hull_cube(void **state)
{
    (void)state;
    float xyz[24];
    box_corners(xyz, 0.5, 0.5, 0.5);
    test_ctx("unit cube");
    built b = build_hull(xyz, 8);
    check_topology(&b.s, FULL);
    const double h[3] = {0.5, 0.5, 0.5};
    check_box_faces(&b.s, h);
    /* each corner in three faces, each edge one arc */
    const uint32_t *pf = hull_point_first(b.t);
    for (uint32_t i = 0; i < 8; ++i) EXPECT_INT(pf[i + 1] - pf[i], 3);
    built_free(&b);
}

/* a box with points on its faces and edges, inside, and repeated */
static void test_hull_box_extras(void **state)
{
    (void)state;
    const double h[3] = {1.0, 2.0, 0.75};
    enum { N = 8 + 6 * 25 + 12 * 5 + 40 + 30 };
    static float xyz[3 * N];
    test_rng r = rng_seed(71);
    for (int order = 0; order < 3; ++order) {
        uint32_t n = 0;
        float corners[24];
        box_corners(corners, h[0], h[1], h[2]);
        /* the corners last, first or in the middle: the search order changes */
        const uint32_t corner_at = order == 0 ? N - 8 : order == 1 ? 0 : N / 2;
        for (int k = 0; k < 3; ++k)
            for (int sg = -1; sg <= 1; sg += 2)
                for (int i = 0; i < 5; ++i)
                    for (int j = 0; j < 5; ++j) {
                        if (n == corner_at) n += 8;
                        double p[3];
                        p[k] = sg * h[k];
                        p[(k + 1) % 3] = h[(k + 1) % 3] * (-0.8 + 0.4 * i);
                        p[(k + 2) % 3] = h[(k + 2) % 3] * (-0.8 + 0.4 * j);
                        set_point(xyz, n++, dv(p[0], p[1], p[2]));
                    }
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 4; ++c)
                for (int i = 0; i < 5; ++i) {
                    if (n == corner_at) n += 8;
                    double p[3];
                    p[k] = h[k] * (-1.0 + (i + 1) / 3.0);
                    p[(k + 1) % 3] = (c & 1 ? 1 : -1) * h[(k + 1) % 3];
                    p[(k + 2) % 3] = (c & 2 ? 1 : -1) * h[(k + 2) % 3];
                    set_point(xyz, n++, dv(p[0], p[1], p[2]));
                }
        for (int i = 0; i < 40; ++i) {
            if (n == corner_at) n += 8;
            set_point(xyz, n++, dv(rng_range(&r, -h[0], h[0]), rng_range(&r, -h[1], h[1]), rng_range(&r, -h[2], h[2])));
        }
        memcpy(xyz + 3 * corner_at, corners, sizeof corners);
        /* repeats of corners and of other points */
        for (int i = 0; i < 30; ++i) {
            if (n == corner_at) n += 8;
            const uint32_t src = i % 3 == 0 ? corner_at + (uint32_t)(i % 8) : rng_below(&r, n);
            set_point(xyz, n++, get_point(xyz, src));
        }
        if (n == corner_at) n += 8;
        assert_int_equal(n, N);
        test_ctx("box with extras, corners at %u", corner_at);
        built b = build_hull(xyz, N);
        check_topology(&b.s, FULL);
        check_box_faces(&b.s, h);
        /* only the corners are in loops, one index each, three faces each */
        const uint32_t *pf = hull_point_first(b.t);
        for (uint32_t i = 0; i < N; ++i) {
            const uint32_t c = pf[i + 1] - pf[i];
            if (c == 0) continue;
            EXPECT_INT(c, 3);
            const dv3 p = get_point(xyz, i);
            for (int k = 0; k < 3; ++k) EXPECT_TRUE(fabs(dv_comp(p, k)) == (double)(float)h[k]);
        }
        built_free(&b);
    }
}

static void test_hull_tetrahedron(void **state)
{
    (void)state;
    const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.1f, 0.1f, 0.1f};
    for (uint32_t n = 4; n <= 5; ++n) {
        test_ctx("tetrahedron, %u points", n);
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_SOLID);
        EXPECT_INT(b.t->face_count, 4);
        EXPECT_INT(b.t->arc_count, 6);
        EXPECT_INT(b.t->vertex_count, 4);
        EXPECT_INT(b.t->loop_count, 12);
        if (n == 5) EXPECT_INT(hull_point_first(b.t)[5] - hull_point_first(b.t)[4], 0); /* interior */
        built_free(&b);
    }
}

/* random points in a ball and on a sphere, several seeds and sizes */
static void test_hull_random(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {4, 5, 10, 50, 200, 1000, 3000};
    static float xyz[3 * 3000];
    for (uint64_t seed = 1; seed <= 4; ++seed)
        for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
            for (int sphere = 0; sphere < 2; ++sphere) {
                const uint32_t n = sizes[si];
                test_rng r = rng_seed(1000 * seed + 10 * si + (uint64_t)sphere);
                const double R = pow(10.0, rng_range(&r, -2.0, 2.0));
                const dv3 c = rng_box(&r, 3.0 * R);
                for (uint32_t i = 0; i < n; ++i)
                    set_point(xyz, i, dv_add(c, sphere ? dv_scale(rng_dir(&r), R) : rng_ball(&r, R)));
                test_ctx("%s seed %llu n %u R %g", sphere ? "sphere" : "ball", (unsigned long long)seed, n, R);
                built b = build_hull(xyz, n);
                check_opts opt = {n <= 1000, 1};
                check_topology(&b.s, opt);
                EXPECT_INT(b.t->kind, HULL_SOLID);
                /* on a sphere every point is a corner */
                if (sphere && n >= 50) EXPECT_TRUE(b.t->vertex_count >= n - n / 100);
                built_free(&b);
            }
}

/* flat sets: a square, a random polygon with interior points, tilted */
static void test_hull_flat(void **state)
{
    (void)state;
    static float xyz[3 * 2000];
    {
        /* the unit square with edge midpoints, its centre and repeats */
        const float sq[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5f, 0, 0, 1, 0.5f, 0, 0.5f, 0.5f, 0, 0, 0, 0, 1, 1, 0};
        test_ctx("square");
        built b = build_hull(sq, 9);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_FLAT);
        EXPECT_INT(b.t->face_count, 2);
        EXPECT_INT(b.t->arc_count, 8);
        EXPECT_INT(b.t->vertex_count, 4);
        EXPECT_TRUE(fabs(hull_plane(b.t, 2)[0]) == 1.0f && hull_plane(b.t, 3)[0] == 0.0f);
        built_free(&b);
    }
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        test_rng r = rng_seed(500 + seed);
        const uint32_t n = seed < 4 ? 40 : 2000;
        const mink_quat q = seed == 1 ? quat_identity() : rng_quat(&r);
        const double R = pow(10.0, rng_range(&r, -1.0, 2.0));
        const dv3 c = rng_box(&r, 5.0 * R);
        for (uint32_t i = 0; i < n; ++i) {
            /* a disk, some points on its rim */
            const double a = rng_range(&r, 0.0, 2.0 * TEST_PI);
            const double rad = i % 3 == 0 ? R : R * sqrt(rng_unit(&r));
            set_point(xyz, i, dv_add(c, quat_rotate(q, dv(rad * cos(a), rad * sin(a), 0.0))));
        }
        test_ctx("flat disk seed %llu n %u", (unsigned long long)seed, n);
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_FLAT);
        EXPECT_INT(b.t->arc_count, 2 * hull_face_first(b.t)[1]);
        const dv3 axis = quat_rotate(q, dv(0, 0, 1));
        EXPECT_LE(dv_angle(face_normal(b.t, 0), axis) < TEST_PI / 2 ? dv_angle(face_normal(b.t, 0), axis)
                                                                     : TEST_PI - dv_angle(face_normal(b.t, 0), axis),
                  1e-5, 0.0);
        built_free(&b);
    }
}

static void test_hull_segment_point(void **state)
{
    (void)state;
    static float xyz[3 * 100];
    test_rng r = rng_seed(77);
    for (int rep = 0; rep < 4; ++rep) {
        const dv3 a = rng_box(&r, 10.0), d = rng_dir(&r);
        const uint32_t n = 3 + 30 * (uint32_t)rep;
        uint32_t lo = 0, hi = 0;
        double tlo = INFINITY, thi = -INFINITY;
        for (uint32_t i = 0; i < n; ++i) {
            const double s = rng_range(&r, -5.0, 5.0);
            set_point(xyz, i, dv_add(a, dv_scale(d, s)));
            const double proj = dv_dot(dv_sub(get_point(xyz, i), a), d);
            if (proj < tlo) tlo = proj, lo = i;
            if (proj > thi) thi = proj, hi = i;
        }
        test_ctx("segment %d", rep);
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_SEGMENT);
        const uint32_t e0 = b.t->ends[0], e1 = b.t->ends[1];
        EXPECT_TRUE((e0 == lo && e1 == hi) || (e0 == hi && e1 == lo));
        built_free(&b);
    }
    /* two points */
    {
        const float two[] = {1, 2, 3, -4, 5, 6};
        test_ctx("two points");
        built b = build_hull(two, 2);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_SEGMENT);
        EXPECT_TRUE((b.t->ends[0] == 0 && b.t->ends[1] == 1) || (b.t->ends[0] == 1 && b.t->ends[1] == 0));
        built_free(&b);
    }
    /* all equal, one point, and equal up to float resolution */
    for (int rep = 0; rep < 3; ++rep) {
        const uint32_t n = rep == 0 ? 1 : 50;
        for (uint32_t i = 0; i < n; ++i) {
            set_point(xyz, i, dv(1.5, -2.25, 1e4));
            if (rep == 2) xyz[3 * i] = nextafterf(xyz[3 * i], (float)(i % 2));
        }
        test_ctx("point %d", rep);
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_POINT);
        EXPECT_TRUE(b.t->ends[0] == b.t->ends[1]);
        built_free(&b);
    }
    {
        const float zero[] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        test_ctx("origin, three times");
        built b = build_hull(zero, 3);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_POINT);
        built_free(&b);
    }
}

/* Inputs that break naive builders: lattices, noise around a plane,
 * clusters, mixed magnitudes. Each must build (in bounded time) into a
 * valid topology. */
static void test_hull_degenerate(void **state)
{
    (void)state;
    enum { CAP = 9000 };
    static float xyz[3 * CAP];
    test_rng r = rng_seed(99);
    /* a 3D lattice: the hull is its bounding box */
    {
        uint32_t n = 0;
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j)
                for (int k = 0; k < 12; ++k) set_point(xyz, n++, dv(i - 5.5, (j - 5.5) * 0.5, (k - 5.5) * 2.0));
        test_ctx("lattice");
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        const double h[3] = {5.5, 2.75, 11.0};
        check_box_faces(&b.s, h);
        built_free(&b);
    }
    /* a planar grid (flat) and the same grid with noise of 0.01 .. 1000
     * merge_tol off the plane, tilted */
    for (int noise = -3; noise <= 4; ++noise) {
        const mink_quat q = rng_quat(&r);
        uint32_t n = 0;
        const double tol = 1e-6 * sqrt(2.0) * 20.0;
        for (int i = 0; i <= 20; ++i)
            for (int j = 0; j <= 20; ++j) {
                const double off = noise < -2 ? 0.0 : rng_range(&r, -1.0, 1.0) * tol * pow(10.0, noise);
                set_point(xyz, n++, quat_rotate(q, dv(i - 10.0, j - 10.0, off)));
            }
        test_ctx("grid, noise 1e%d merge_tol", noise);
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        if (noise <= -1) EXPECT_INT(b.t->kind, HULL_FLAT);
        built_free(&b);
    }
    /* a box whose corners are clusters of points a few ulps apart */
    {
        uint32_t n = 0;
        float corners[24];
        box_corners(corners, 1.0, 1.0, 1.0);
        for (int c = 0; c < 8; ++c)
            for (int k = 0; k < 20; ++k) {
                float *p = xyz + 3 * n++;
                for (int a = 0; a < 3; ++a) {
                    p[a] = corners[3 * c + a];
                    for (uint32_t u = rng_below(&r, 4); u-- > 0;) p[a] = nextafterf(p[a], 0.0f);
                }
            }
        test_ctx("clustered box corners");
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_SOLID);
        EXPECT_INT(b.t->face_count, 6);
        built_free(&b);
    }
    /* points on a sphere (Fibonacci lattice), huge and tiny */
    static const double scales[] = {1.0, 1e5 / 2.0, 1e-30, 1e-3};
    for (unsigned k = 0; k < sizeof scales / sizeof scales[0]; ++k) {
        points_on_sphere(xyz, 5000, scales[k]);
        test_ctx("sphere lattice, R %g", scales[k]);
        built b = build_hull(xyz, 5000);
        const check_opts opt = {0, 1};
        check_topology(&b.s, opt);
        EXPECT_INT(b.t->kind, HULL_SOLID);
        built_free(&b);
    }
    /* mixed magnitudes: a 1e5 box around tiny points; a tiny cluster and a
     * far point (a segment within float resolution); tiny points with
     * denormal coordinates */
    {
        uint32_t n = 0;
        float corners[24];
        box_corners(corners, 1e5, 1e5, 1e5);
        for (int i = 0; i < 8; ++i) set_point(xyz, n++, get_point(corners, (uint32_t)i));
        for (int i = 0; i < 200; ++i) set_point(xyz, n++, dv_scale(rng_ball(&r, 1.0), pow(10.0, rng_range(&r, -30, 4))));
        test_ctx("mixed magnitudes: box");
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        const double h[3] = {1e5, 1e5, 1e5};
        check_box_faces(&b.s, h);
        built_free(&b);
    }
    {
        uint32_t n = 0;
        for (int i = 0; i < 100; ++i) set_point(xyz, n++, rng_ball(&r, 1e-30));
        set_point(xyz, n++, dv(1e5, -3e4, 2e4));
        test_ctx("mixed magnitudes: cluster and far point");
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_SEGMENT);
        built_free(&b);
    }
    {
        uint32_t n = 0;
        for (int i = 0; i < 300; ++i) {
            float *p = xyz + 3 * n++;
            for (int a = 0; a < 3; ++a) p[a] = (float)(rng_range(&r, -1.0, 1.0) * 1e-39);
        }
        test_ctx("denormal coordinates");
        built b = build_hull(xyz, n);
        check_topology(&b.s, FULL);
        built_free(&b);
    }
    /* near-coplanar random points around a tilted plane at 1e5 */
    for (int noise = -2; noise <= 3; ++noise) {
        const mink_quat q = rng_quat(&r);
        const dv3 c = dv(9e4, -5e4, 3e4);
        for (uint32_t i = 0; i < 3000; ++i) {
            const dv3 p = dv(rng_range(&r, -1e3, 1e3), rng_range(&r, -1e3, 1e3), rng_range(&r, -1.0, 1.0) * pow(10.0, noise));
            set_point(xyz, i, dv_add(c, quat_rotate(q, p)));
        }
        test_ctx("far noisy plane, noise 1e%d", noise);
        built b = build_hull(xyz, 3000);
        const check_opts opt = {0, 1};
        check_topology(&b.s, opt);
        built_free(&b);
    }
    /* nearly collinear: a needle */
    {
        for (uint32_t i = 0; i < 500; ++i)
            set_point(xyz, i, dv(rng_range(&r, -10.0, 10.0), rng_range(&r, -1e-4, 1e-4), rng_range(&r, -1e-4, 1e-4)));
        test_ctx("needle");
        built b = build_hull(xyz, 500);
        check_topology(&b.s, FULL);
        EXPECT_INT(b.t->kind, HULL_SOLID);
        built_free(&b);
    }
}

/* 100k points: near O(n log n), the time printed (not asserted) */
static void test_hull_big(void **state)
{
    (void)state;
    enum { N = 100000 };
    static float xyz[3 * N];
    for (int sphere = 0; sphere < 2; ++sphere) {
        test_rng r = rng_seed(4242 + (uint64_t)sphere);
        for (uint32_t i = 0; i < N; ++i) set_point(xyz, i, sphere ? rng_dir(&r) : rng_ball(&r, 1.0));
        test_ctx("100k %s", sphere ? "sphere" : "ball");
        const double t0 = now_seconds();
        built b = build_hull(xyz, N);
        const double t1 = now_seconds();
        print_message("hull of %d points %s: %.1f ms, %u faces, %u vertices, %zu bytes (%.0f per point)\n", N,
                      sphere ? "on a sphere" : "in a ball", 1e3 * (t1 - t0), b.t->face_count, b.t->vertex_count,
                      mink_hull_bytes(N), (double)mink_hull_bytes(N) / N);
        const check_opts opt = {0, 0};
        check_topology(&b.s, opt);
        built_free(&b);
    }
    /* 1k, for the record */
    {
        test_rng r = rng_seed(4244);
        for (uint32_t i = 0; i < 1000; ++i) set_point(xyz, i, rng_ball(&r, 1.0));
        const double t0 = now_seconds();
        built b = build_hull(xyz, 1000);
        print_message("hull of 1000 points in a ball: %.3f ms\n", 1e3 * (now_seconds() - t0));
        built_free(&b);
    }
}

/* mink_hull_bytes covers the topology; init refuses less memory */
static void test_hull_bytes(void **state)
{
    (void)state;
    size_t last = 0;
    for (uint32_t n = 1; n <= 4096; n = n < 40 ? n + 1 : n * 2) {
        const size_t bytes = mink_hull_bytes(n);
        test_ctx("n = %u", n);
        EXPECT_TRUE(bytes > 3 * (size_t)round_pad(n) * sizeof(float));
        EXPECT_TRUE(bytes >= last);
        EXPECT_INT(bytes - 3 * (size_t)round_pad(n) * sizeof(float), mink_hull_topology_bytes(n));
        /* hill climbing's blocks (hull.h) add about 200 bytes a point */
        const size_t per_point = n >= HULL_CLIMB_MIN_POINTS ? 600 : 400;
        EXPECT_TRUE(mink_hull_topology_bytes(n) <= per_point * (size_t)n + 2048);
        last = bytes;
    }
    EXPECT_INT(mink_hull_bytes(0), 0);
    EXPECT_INT(mink_hull_topology_bytes(0), 0);
    static float xyz[3 * 300];
    test_rng r = rng_seed(5);
    for (int i = 0; i < 300; ++i) set_point(xyz, (uint32_t)i, rng_ball(&r, 2.0));
    const uint32_t ns[] = {1, 3, 8, 300};
    for (unsigned k = 0; k < 4; ++k) {
        const uint32_t n = ns[k];
        const size_t bytes = mink_hull_bytes(n);
        test_ctx("too little memory, n = %u", n);
        void *mem = aligned_alloc(MINK_HULL_ALIGN, (bytes + 63) / 64 * 64);
        assert_non_null(mem);
        mink_shape s;
        EXPECT_INT(mink_hull_init(&s, mem, bytes - 1, xyz, n, 0.0f), MINK_ERR_INVALID);
        EXPECT_INT(s.type, MINK_SHAPE_INVALID);
        EXPECT_TRUE(s.topology == NULL);
        EXPECT_INT(mink_hull_init(&s, mem, bytes - 3 * (size_t)round_pad(n) * sizeof(float), xyz, n, 0.0f),
                   MINK_ERR_INVALID);
        EXPECT_INT(mink_hull_init(&s, mem, bytes, xyz, n, 0.0f), MINK_OK);
        EXPECT_TRUE(s.topology != NULL);
        /* the builder alone: too little, misaligned */
        const size_t vb = 3 * (size_t)s.padded * sizeof(float);
        char *top = (char *)mem + vb;
        EXPECT_TRUE(mink_hull_topology_build(s.x, s.y, s.z, n, top, bytes - vb - 1) == NULL);
        EXPECT_TRUE(mink_hull_topology_build(s.x, s.y, s.z, n, top + 4, bytes - vb) == NULL);
        EXPECT_TRUE(mink_hull_topology_build(s.x, s.y, s.z, n, top, bytes - vb) == s.topology);
        free(mem);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hull_cube),
        cmocka_unit_test(test_hull_box_extras),
        cmocka_unit_test(test_hull_tetrahedron),
        cmocka_unit_test(test_hull_random),
        cmocka_unit_test(test_hull_flat),
        cmocka_unit_test(test_hull_segment_point),
        cmocka_unit_test(test_hull_degenerate),
        cmocka_unit_test(test_hull_big),
        cmocka_unit_test(test_hull_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
