/* EPA in double precision near contact (gjk_double.h): a shallow depth from
 * EPA's float face checked in double, or measured again in double when that
 * face does not bound D = B - A. */
#include "double_pair.h"

/* The weights of the origin's projection on the plane of v (unit normal n)
 * by signed areas; whether it lies in the triangle (up to rounding). */
static int face_weights(const dvertex v[3], const double n[3], double u[3])
{
    double x[3];
    cross3(v[1].w, v[2].w, x);
    u[0] = dot3(x, n);
    cross3(v[2].w, v[0].w, x);
    u[1] = dot3(x, n);
    cross3(v[0].w, v[1].w, x);
    u[2] = dot3(x, n);
    const double slack = -1e-12 * (fabs(u[0]) + fabs(u[1]) + fabs(u[2]));
    return u[0] >= slack && u[1] >= slack && u[2] >= slack;
}

/* The answer on a face of D (points v, outward unit normal n, distance
 * depth from the origin, weights u of the origin's projection depth n,
 * which lies in it): the witnesses are the same weights of the shapes'
 * points. */
static void face_answer(const dvertex v[3], const double n[3], double depth, const double u_in[3],
                        mink_double_closest *out)
{
    double u[3], sum = 0.0;
    for (int k = 0; k < 3; ++k) sum += u[k] = u_in[k] > 0.0 ? u_in[k] : 0.0;
    if (!(sum > 0.0)) u[0] = u[1] = u[2] = 1.0, sum = 3.0;
    out->overlap = 1;
    out->bits = 7u;
    out->iterations = 0;
    for (int i = 0; i < 4; ++i) {
        out->ia[i] = i < 3 ? v[i].ia : 0u;
        out->ib[i] = i < 3 ? v[i].ib : 0u;
        out->lambda[i] = i < 3 ? u[i] / sum : 0.0;
    }
    for (int k = 0; k < 3; ++k) {
        out->pa[k] = out->pb[k] = 0.0;
        for (int i = 0; i < 3; ++i) out->pa[k] += out->lambda[i] * v[i].pa[k], out->pb[k] += out->lambda[i] * v[i].pb[k];
        out->normal[k] = -n[k]; /* moving B along it by the depth parts the cores */
    }
    out->distance = -depth;
}

/* Whether D lies below the plane n.x = depth (up to the rounding of double
 * coordinates and a hull scan's float pick): D's support point along n. */
static int plane_bounds(const dpair *p, const double n[3], double depth, double tol)
{
    const double nn[3] = {-n[0], -n[1], -n[2]};
    dvertex w;
    make_vertex(p, support_id(p, p->a, &p->fa, nn), support_id(p, p->b, &p->fb, n), &w);
    return dot3(n, w.w) <= depth + tol;
}

int mink_face_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                     const uint32_t ia[3], const uint32_t ib[3], mink_hull_support_fn hull_support,
                     mink_double_closest *out)
{
    dpair p;
    dpair_init(&p, a, pa, b, pb, hull_support);
    dvertex v[3];
    for (int i = 0; i < 3; ++i) make_vertex(&p, ia[i], ib[i], &v[i]);
    double ab[3], ac[3], n[3];
    sub3(v[1].w, v[0].w, ab);
    sub3(v[2].w, v[0].w, ac);
    cross3(ab, ac, n);
    const double len = sqrt(dot3(n, n));
    if (!(len > 0.0)) return 0;
    for (int k = 0; k < 3; ++k) n[k] /= len;
    const double d = dot3(n, v[0].w);
    if (d < 0.0)
        for (int k = 0; k < 3; ++k) n[k] = -n[k]; /* outwards, from the origin */
    /* the projection outside this triangle: on D's face (the plane may
     * bound D) but not at these points' weights; EPA in double finds the
     * triangle that holds it */
    double u[3];
    if (!face_weights(v, n, u) || !plane_bounds(&p, n, fabs(d), 1e-9 * dpair_size(&p))) return 0;
    face_answer(v, n, fabs(d), u, out);
    return 1;
}

/* ------------------------------------------------------------ EPA */

#define EPA_DOUBLE_VERTICES 64
#define EPA_DOUBLE_FACES 128

typedef struct dface {
    unsigned v[3]; /* counter-clockwise seen from outside */
    double n[3];   /* outward unit normal                */
    double d;      /* distance of its plane from the origin; +inf when degenerate */
    int alive;
} dface;

typedef struct dpoly {
    dvertex vert[EPA_DOUBLE_VERTICES];
    dface face[EPA_DOUBLE_FACES];
    unsigned nv, nf;
} dpoly;

static void face_plane(dpoly *P, dface *f)
{
    const double *a = P->vert[f->v[0]].w;
    double ab[3], ac[3];
    sub3(P->vert[f->v[1]].w, a, ab);
    sub3(P->vert[f->v[2]].w, a, ac);
    cross3(ab, ac, f->n);
    const double len = sqrt(dot3(f->n, f->n));
    if (len > 0.0) {
        for (int k = 0; k < 3; ++k) f->n[k] /= len;
        f->d = dot3(f->n, a);
    } else {
        f->d = INFINITY; /* no plane: never the closest */
    }
}

/* Adds face (i, j, k) in a free slot; NULL when full. */
static const dface *add_face(dpoly *P, unsigned i, unsigned j, unsigned k)
{
    unsigned slot = 0;
    while (slot < P->nf && P->face[slot].alive) ++slot;
    if (slot == P->nf) {
        if (P->nf == EPA_DOUBLE_FACES) return NULL;
        P->nf++;
    }
    dface *f = &P->face[slot];
    f->v[0] = i, f->v[1] = j, f->v[2] = k;
    f->alive = 1;
    face_plane(P, f);
    return f;
}

/* Whether the directed edge (a, b) belongs to a face marked visible. */
static int visible_edge(const dpoly *P, const unsigned char *visible, unsigned a, unsigned b)
{
    for (unsigned g = 0; g < P->nf; ++g) {
        if (!visible[g]) continue;
        const unsigned *v = P->face[g].v;
        for (int e = 0; e < 3; ++e)
            if (v[e] == a && v[(e + 1) % 3] == b) return 1;
    }
    return 0;
}

int mink_epa_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                    const uint32_t ia[4], const uint32_t ib[4], mink_hull_support_fn hull_support,
                    mink_double_closest *out)
{
    dpair p;
    dpair_init(&p, a, pa, b, pb, hull_support);
    const double size = dpair_size(&p), tol = 1e-13 * size;
    static const unsigned faces[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}}, opposite[4] = {3, 2, 1, 0};
    dpoly P;
    P.nv = 4;
    P.nf = 0;
    for (int i = 0; i < 4; ++i) make_vertex(&p, ia[i], ib[i], &P.vert[i]);
    /* a tetrahedron around the origin: every face outward, the origin on
     * the inner side of each (or on it, to rounding: GJK's triangle through
     * the origin that float EPA's start was blown up from) */
    for (int f = 0; f < 4; ++f) {
        unsigned i = faces[f][0], j = faces[f][1], k = faces[f][2];
        dface probe = {{i, j, k}, {0, 0, 0}, 0.0, 1};
        face_plane(&P, &probe);
        double off[3];
        sub3(P.vert[opposite[f]].w, P.vert[i].w, off);
        if (dot3(probe.n, off) > 0.0) {
            const unsigned t = j;
            j = k, k = t;
        }
        const dface *added = add_face(&P, i, j, k);
        if (!(added->d >= -tol) || added->d == INFINITY) return 0;
    }
    unsigned char visible[EPA_DOUBLE_FACES];
    for (unsigned iteration = 0;; ++iteration) {
        unsigned best = 0;
        double best_d = INFINITY;
        for (unsigned f = 0; f < P.nf; ++f)
            if (P.face[f].alive && P.face[f].d < best_d) best_d = P.face[f].d, best = f;
        if (best_d == INFINITY) return 0;
        const dface *F = &P.face[best];
        const double nn[3] = {-F->n[0], -F->n[1], -F->n[2]};
        dvertex w;
        make_vertex(&p, support_id(&p, a, &p.fa, nn), support_id(&p, b, &p.fb, F->n), &w);
        int known = 0;
        for (unsigned i = 0; i < P.nv; ++i) known |= P.vert[i].ia == w.ia && P.vert[i].ib == w.ib;
        if (known || dot3(F->n, w.w) - F->d <= tol || iteration >= MINK_GJK_MAX_ITERATIONS ||
            P.nv == EPA_DOUBLE_VERTICES) {
            /* converged on a face of D, or out of room: its plane bounds D
             * only in the first case, which the caller needs */
            if (!known && dot3(F->n, w.w) - F->d > tol) return 0;
            /* D's face may be split into triangles of one plane: the one
             * that holds the origin's projection gives the witnesses. Their
             * planes agree within tol, or, for slivers, within the rounding
             * of a normal from a long thin triangle (a 6 mm hull pierced by
             * a 36 m segment: the two halves of a 36 m by 6 mm face of D
             * 5e-12 apart, tol 3.9e-12): a second look within 1e-9 S */
            for (int pass = 0; pass < 2; ++pass) {
                const double within = pass ? 1e-9 * size : tol;
                for (unsigned g = 0; g < P.nf; ++g) {
                    const dface *G = &P.face[g];
                    if (!G->alive || G->d > F->d + within || dot3(G->n, F->n) < 1.0 - 1e-12) continue;
                    const dvertex v[3] = {P.vert[G->v[0]], P.vert[G->v[1]], P.vert[G->v[2]]};
                    double u[3];
                    if (!face_weights(v, G->n, u)) continue;
                    face_answer(v, G->n, G->d, u, out);
                    out->iterations = iteration;
                    return 1;
                }
            }
            return 0;
        }
        const unsigned iw = P.nv++;
        P.vert[iw] = w;
        for (unsigned g = 0; g < P.nf; ++g) {
            double off[3];
            sub3(w.w, P.vert[P.face[g].v[0]].w, off);
            visible[g] = P.face[g].alive && (g == best || dot3(P.face[g].n, off) > tol);
        }
        /* the horizon: edges of visible faces whose twin is not visible,
         * each closed by a new face to w (collected first: the new faces
         * may take the visible ones' slots) */
        unsigned horizon[3 * EPA_DOUBLE_FACES][2], nh = 0;
        for (unsigned g = 0; g < P.nf; ++g) {
            if (!visible[g]) continue;
            const unsigned *v = P.face[g].v;
            for (int e = 0; e < 3; ++e)
                if (!visible_edge(&P, visible, v[(e + 1) % 3], v[e])) {
                    horizon[nh][0] = v[e];
                    horizon[nh][1] = v[(e + 1) % 3];
                    nh++;
                }
        }
        for (unsigned g = 0; g < P.nf; ++g)
            if (visible[g]) P.face[g].alive = 0;
        /* a new face with the origin beyond it: the horizon was not one
         * loop (visibility among points within rounding of each other, a
         * 2e-7 box's corners in a unit box), and the polytope no longer
         * holds the origin: an inverted face would pass for the nearest */
        for (unsigned h = 0; h < nh; ++h) {
            const dface *added = add_face(&P, horizon[h][0], horizon[h][1], iw);
            if (!added || added->d < -tol) return 0;
        }
    }
}

int mink_depth_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                      const uint32_t *face_ia, const uint32_t *face_ib, unsigned start_bits,
                      const uint32_t start_ia[4], const uint32_t start_ib[4], mink_hull_support_fn hull_support,
                      mink_double_closest *out)
{
    if (face_ia && mink_face_double(a, pa, b, pb, face_ia, face_ib, hull_support, out)) return 1;
    if (start_bits == 15u && mink_epa_double(a, pa, b, pb, start_ia, start_ib, hull_support, out)) return 1;
    /* the float start does not hold the origin in double (a depth within
     * the rounding of the coordinates: a 7 mm hull 3.8e-5 into a prism
     * 345 m out, float's point 2 mm outside it): GJK in double from its
     * points decides, then EPA from GJK's tetrahedron */
    uint32_t ia[4], ib[4];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (start_bits >> i & 1u) ia[n] = start_ia[i], ib[n] = start_ib[i], ++n;
    mink_double_closest g;
    mink_gjk_double(a, pa, b, pb, ia, ib, n, hull_support, &g);
    if (!g.overlap) {
        *out = g; /* apart or touching in double: the distance, and its normal */
        return 1;
    }
    return g.bits == 15u && mink_epa_double(a, pa, b, pb, g.ia, g.ib, hull_support, out);
}
