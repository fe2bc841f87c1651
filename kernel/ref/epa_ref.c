/* EPA, scalar reference. The polytope is a closed triangle mesh around the
 * origin with face adjacency; each step adds the support point along the
 * closest face's normal, removes the faces that see it (a flood fill from
 * that face, so the removed set stays connected) and fans the horizon. */
#include "epa_ref.h"
#include "gjk_ref.h"
#include "tolerance.h"

#include <string.h>

typedef struct epa_face {
    unsigned v[3];        /* vertex indices, counter-clockwise seen from outside */
    unsigned adj[3];      /* face across edge i = (v[i], v[i+1])                  */
    unsigned adj_edge[3]; /* that edge's index in the neighbour                   */
    v3 n;                 /* outward unit normal                                  */
    float d;              /* n . v0: distance of the plane from the origin        */
    int alive;
} epa_face;

typedef struct epa_poly {
    ref_vertex vert[MINK_EPA_MAX_VERTICES];
    epa_face face[MINK_EPA_MAX_FACES];
    unsigned free_list[MINK_EPA_MAX_FACES];
    unsigned nv, nf, nfree;
} epa_poly;

#define NO_FACE 0xffffffffu

static unsigned add_vertex(epa_poly *P, const ref_vertex *v)
{
    P->vert[P->nv] = *v;
    return P->nv++;
}

/* v / |v|, scaled by its largest component first: the cross products of
 * a shape 1e-11 across have squares in the denormals, where 1/|v| loses
 * its precision (a normal came out 1.12 long). */
static v3 normalized(v3 v)
{
    const float m = fmaxf(fabsf(v.x), fmaxf(fabsf(v.y), fabsf(v.z)));
    if (!(m > 0.0f)) return v3_make(1, 0, 0);
    const v3 s = v3_make(v.x / m, v.y / m, v.z / m);
    return v3_scale(s, 1.0f / v3_len(s));
}

/* A face (a,b,c); returns NO_FACE when out of capacity or degenerate. */
static unsigned add_face(epa_poly *P, unsigned a, unsigned b, unsigned c)
{
    const v3 wa = P->vert[a].w, wb = P->vert[b].w, wc = P->vert[c].w;
    const v3 n = v3_cross(v3_sub(wb, wa), v3_sub(wc, wa));
    const float len2 = v3_dot(n, n);
    /* tiny n: its square loses precision (or underflows), so scale first */
    if (!(len2 > 1e-30f) && !(n.x != 0.0f || n.y != 0.0f || n.z != 0.0f)) return NO_FACE;
    unsigned f;
    if (P->nfree > 0) f = P->free_list[--P->nfree];
    else if (P->nf < MINK_EPA_MAX_FACES) f = P->nf++;
    else return NO_FACE;
    epa_face *F = &P->face[f];
    F->v[0] = a;
    F->v[1] = b;
    F->v[2] = c;
    F->n = len2 > 1e-30f ? v3_scale(n, 1.0f / sqrtf(len2)) : normalized(n);
    /* the plane offset from the centroid: less rounding than from one vertex */
    F->d = v3_dot(F->n, v3_scale(v3_add(v3_add(wa, wb), wc), 1.0f / 3.0f));
    F->alive = 1;
    for (int i = 0; i < 3; ++i) F->adj[i] = F->adj_edge[i] = NO_FACE;
    return f;
}

static void remove_face(epa_poly *P, unsigned f)
{
    P->face[f].alive = 0;
    P->free_list[P->nfree++] = f;
}

/* Adjacency of a small starting polytope by matching reversed edges. */
static int link_all(epa_poly *P)
{
    for (unsigned f = 0; f < P->nf; ++f) {
        for (unsigned i = 0; i < 3; ++i) {
            const unsigned a = P->face[f].v[i], b = P->face[f].v[(i + 1) % 3];
            for (unsigned g = 0; g < P->nf && P->face[f].adj[i] == NO_FACE; ++g)
                for (unsigned j = 0; j < 3; ++j)
                    if (P->face[g].v[j] == b && P->face[g].v[(j + 1) % 3] == a) {
                        P->face[f].adj[i] = g;
                        P->face[f].adj_edge[i] = j;
                    }
            if (P->face[f].adj[i] == NO_FACE) return 0;
        }
    }
    return 1;
}

/* Builds a face whose normal points away from `inside`. */
static int add_outward_face(epa_poly *P, unsigned a, unsigned b, unsigned c, v3 inside)
{
    const v3 n = v3_cross(v3_sub(P->vert[b].w, P->vert[a].w), v3_sub(P->vert[c].w, P->vert[a].w));
    const int flip = v3_dot(n, v3_sub(inside, P->vert[a].w)) > 0.0f;
    return add_face(P, a, flip ? c : b, flip ? b : c) != NO_FACE;
}

/* The starting tetrahedron over the first four vertices, faces outward. */
static int build_start(epa_poly *P)
{
    v3 c = {0, 0, 0};
    for (unsigned i = 0; i < P->nv; ++i) c = v3_add(c, P->vert[i].w);
    c = v3_scale(c, 1.0f / (float)P->nv);
    const int ok = add_outward_face(P, 0, 1, 2, c) && add_outward_face(P, 0, 1, 3, c) &&
                   add_outward_face(P, 0, 2, 3, c) && add_outward_face(P, 1, 2, 3, c);
    return ok && link_all(P);
}

/* A direction perpendicular to e (not normalized). */
static v3 perpendicular(v3 e)
{
    const float ax = fabsf(e.x), ay = fabsf(e.y), az = fabsf(e.z);
    const v3 axis = (ax <= ay && ax <= az) ? v3_make(1, 0, 0) : (ay <= az) ? v3_make(0, 1, 0) : v3_make(0, 0, 1);
    return v3_cross(e, axis);
}


/* The answer when D = B - A has no extent beyond the origin along `n`
 * (the outward normal of a supporting plane through the origin): depth 0,
 * witnesses from GJK's weights. */
static void flat_answer(const ref_simplex *s, v3 n_out, ref_epa_result *out)
{
    out->depth = 0.0f;
    out->normal = v3_neg(n_out);
    mink_scalar_simplex_points(s, &out->pa, &out->pb);
}

/* Blows GJK's simplex up to a closed polytope around the origin. Returns 1
 * with P built, 0 with *out answered (D flat: depth 0), -1 on failure. */
static int blow_up(epa_poly *P, ref_pair *pair, const ref_simplex *s, ref_epa_result *out)
{
    const float tol = MINK_EPA_GAIN_REL * pair->scale;
    P->nv = P->nf = P->nfree = 0;
    for (unsigned i = 0; i < 4; ++i)
        if (s->bits & (1u << i)) add_vertex(P, &s->vert[i]);

    if (P->nv == 4) {
        const v3 a = P->vert[0].w;
        const float vol = v3_dot(v3_sub(P->vert[1].w, a),
                                 v3_cross(v3_sub(P->vert[2].w, a), v3_sub(P->vert[3].w, a)));
        const float sc = pair->scale;
        if (fabsf(vol) > MINK_FLAT_VOLUME_REL * sc * sc * sc) return build_start(P) ? 1 : -1;
        /* small: flat only if its height (vol / |2 area|, largest face) is
         * below the rounding of its points; else keep the three points
         * spanning the largest area */
        unsigned drop = 0;
        float best = -1.0f;
        for (unsigned k = 0; k < 4; ++k) {
            const v3 p0 = P->vert[(k + 1) % 4].w, p1 = P->vert[(k + 2) % 4].w, p2 = P->vert[(k + 3) % 4].w;
            const float area2 = v3_len2(v3_cross(v3_sub(p1, p0), v3_sub(p2, p0)));
            if (area2 > best) {
                best = area2;
                drop = k;
            }
        }
        const float height_tol = MINK_TOUCH_REL * sc;
        if (vol * vol > height_tol * height_tol * best) return build_start(P) ? 1 : -1;
        P->vert[drop] = P->vert[3];
        P->nv = 3;
    }
    if (P->nv == 3) {
        const v3 a = P->vert[0].w;
        const v3 n = v3_cross(v3_sub(P->vert[1].w, a), v3_sub(P->vert[2].w, a));
        if (v3_len2(n) <= tol * tol * tol * tol) {
            /* collinear: keep the farthest pair and continue as a segment */
            const float d01 = v3_len2(v3_sub(P->vert[1].w, a)), d02 = v3_len2(v3_sub(P->vert[2].w, a));
            const float d12 = v3_len2(v3_sub(P->vert[2].w, P->vert[1].w));
            if (d12 > d01 && d12 > d02) P->vert[0] = P->vert[2];
            else if (d02 > d01) P->vert[1] = P->vert[2];
            P->nv = 2;
        }
    }
    if (P->nv == 1) {
        static const float axes[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        for (unsigned k = 0; k < 6 && P->nv == 1; ++k) {
            const ref_vertex w = mink_scalar_support_pair(pair, v3_make(axes[k][0], axes[k][1], axes[k][2]));
            if (v3_len2(v3_sub(w.w, P->vert[0].w)) > tol * tol) add_vertex(P, &w);
        }
        if (P->nv == 1) { /* D is a single point: every direction ties */
            flat_answer(s, v3_make(-1, 0, 0), out);
            return 0;
        }
    }
    if (P->nv == 2) {
        const v3 e = normalized(v3_sub(P->vert[1].w, P->vert[0].w));
        const v3 d1 = normalized(perpendicular(e));
        const v3 d2 = v3_cross(e, d1);
        const v3 dirs[4] = {d1, v3_neg(d1), d2, v3_neg(d2)};
        for (unsigned k = 0; k < 4 && P->nv == 2; ++k) {
            const ref_vertex w = mink_scalar_support_pair(pair, dirs[k]);
            const v3 off = v3_sub(w.w, P->vert[0].w);
            if (v3_len2(v3_cross(off, e)) > tol * tol) add_vertex(P, &w);
        }
        if (P->nv == 2) { /* D is a segment through the origin */
            flat_answer(s, d1, out);
            return 0;
        }
    }
    /* a triangle around the origin: look for D on both sides of its plane */
    const v3 a = P->vert[0].w;
    const v3 n = normalized(v3_cross(v3_sub(P->vert[1].w, a), v3_sub(P->vert[2].w, a)));
    const ref_vertex up = mink_scalar_support_pair(pair, n);
    const ref_vertex down = mink_scalar_support_pair(pair, v3_neg(n));
    const float gain_up = v3_dot(n, v3_sub(up.w, a));
    const float gain_down = -v3_dot(n, v3_sub(down.w, a));
    if (gain_up <= tol) { /* nothing of D above the plane: it supports D */
        flat_answer(s, n, out);
        return 0;
    }
    if (gain_down <= tol) {
        flat_answer(s, v3_neg(n), out);
        return 0;
    }
    /* The origin lies on the triangle: the tetrahedron with the upper apex
     * holds it on its base, which EPA then pushes out towards `down`. (A
     * bipyramid with both apexes is not convex when they lean past an edge.) */
    add_vertex(P, &up);
    return build_start(P) ? 1 : -1;
}

static unsigned closest_face(const epa_poly *P)
{
    unsigned best = NO_FACE;
    for (unsigned f = 0; f < P->nf; ++f)
        if (P->face[f].alive && (best == NO_FACE || P->face[f].d < P->face[best].d)) best = f;
    return best;
}

static int has_vertex(const epa_poly *P, const ref_vertex *w)
{
    for (unsigned i = 0; i < P->nv; ++i)
        if ((P->vert[i].ia == w->ia && P->vert[i].ib == w->ib) || v3_equal(P->vert[i].w, w->w)) return 1;
    return 0;
}

/* Removes the faces that see vertex `iw` or that it grazes (within eps of
 * their plane), starting at face f0 (which it sees),
 * and fans the horizon to the new vertex. Returns 0 when the polytope cannot
 * be kept closed (capacity or a horizon broken by rounding). */
static int expand(epa_poly *P, unsigned f0, unsigned iw, float eps)
{
    typedef struct { unsigned face, edge; } edge_ref;
    edge_ref stack[2 * MINK_EPA_MAX_FACES + 4];
    edge_ref horizon[MINK_EPA_MAX_FACES];
    unsigned nstack = 0, nhorizon = 0;
    const v3 w = P->vert[iw].w;
    const v3 n0 = P->face[f0].n;

    remove_face(P, f0);
    for (unsigned i = 0; i < 3; ++i) {
        stack[nstack].face = P->face[f0].adj[i];
        stack[nstack].edge = P->face[f0].adj_edge[i];
        nstack++;
    }
    while (nstack > 0) {
        const edge_ref e = stack[--nstack];
        epa_face *F = &P->face[e.face];
        if (!F->alive) continue;
        /* seen by w, or grazed (coplanar up to rounding, common on boxes)
         * and not facing away from f0 (n.n0 > -1/2): a grazed face that
         * stayed would fan w to its edges, and where w is nearly in line with
         * such an edge the new sliver face's normal is noise; its plane then
         * cuts the polytope (a box pair's depth came out 4.7 short of 31).
         * Grazed faces facing away stay: on a polytope thinner than eps, w
         * grazes both sides, and removing all would leave no horizon. */
        const float excess = v3_dot(F->n, w) - F->d;
        if (excess > eps || (excess > -eps && v3_dot(F->n, n0) > -0.5f)) {
            remove_face(P, e.face);
            for (unsigned k = 1; k <= 2; ++k) {
                const unsigned i = (e.edge + k) % 3;
                if (nstack >= sizeof stack / sizeof stack[0]) return 0;
                stack[nstack].face = F->adj[i];
                stack[nstack].edge = F->adj_edge[i];
                nstack++;
            }
        } else {
            if (nhorizon >= MINK_EPA_MAX_FACES) return 0;
            horizon[nhorizon++] = e;
        }
    }

    /* new face k = (a, b, w) over horizon edge (b, a) of a kept face */
    unsigned by_start[MINK_EPA_MAX_VERTICES];
    unsigned made[MINK_EPA_MAX_FACES];
    if (nhorizon < 3) return 0; /* nothing left to fan: not a closed polytope */
    for (unsigned k = 0; k < nhorizon; ++k) by_start[P->face[horizon[k].face].v[(horizon[k].edge + 1) % 3]] = NO_FACE;
    for (unsigned k = 0; k < nhorizon; ++k) {
        epa_face *G = &P->face[horizon[k].face];
        const unsigned e = horizon[k].edge;
        const unsigned a = G->v[(e + 1) % 3], b = G->v[e];
        if (by_start[a] != NO_FACE) return 0; /* horizon is not a simple loop */
        const unsigned f = add_face(P, a, b, iw);
        if (f == NO_FACE) return 0;
        P->face[f].adj[0] = horizon[k].face;
        P->face[f].adj_edge[0] = e;
        G->adj[e] = f;
        G->adj_edge[e] = 0;
        by_start[a] = f;
        made[k] = f;
    }
    for (unsigned k = 0; k < nhorizon; ++k) {
        epa_face *F = &P->face[made[k]];
        const unsigned b = F->v[1];
        const unsigned g = by_start[b];
        if (g == NO_FACE || P->face[g].v[0] != b) return 0;
        F->adj[1] = g;
        F->adj_edge[1] = 2;
        P->face[g].adj[2] = made[k];
        P->face[g].adj_edge[2] = 1;
    }
    return 1;
}

/* Signed sub-triangle areas along the normal: the barycentric weights of
 * the origin's projection d * n, unnormalized (all >= 0 when it is inside). */
static v3 face_weights(const epa_poly *P, const epa_face *F)
{
    const v3 p = v3_scale(F->n, F->d);
    const v3 a = v3_sub(P->vert[F->v[0]].w, p), b = v3_sub(P->vert[F->v[1]].w, p), c = v3_sub(P->vert[F->v[2]].w, p);
    return v3_make(v3_dot(F->n, v3_cross(b, c)), v3_dot(F->n, v3_cross(c, a)), v3_dot(F->n, v3_cross(a, b)));
}

static int weights_inside(v3 u) { return u.x >= 0.0f && u.y >= 0.0f && u.z >= 0.0f; }

/* Witnesses from the barycentric coordinates of the origin's projection on
 * the closest face. A flat polytope face is often split into triangles of
 * equal distance; the projection lies in one of them, so among the faces
 * in the same plane (within `tol`), prefer the one that holds it. */
static void face_answer(const epa_poly *P, const epa_face *F, float tol, ref_epa_result *out)
{
    v3 u = face_weights(P, F);
    for (unsigned g = 0; g < P->nf && !weights_inside(u); ++g) {
        const epa_face *G = &P->face[g];
        /* only the same plane: another face this close is merely a lower
         * bound whose support was never checked */
        if (!G->alive || G == F || G->d > F->d + tol || v3_dot(G->n, F->n) < 0.9999f) continue;
        const v3 ug = face_weights(P, G);
        if (weights_inside(ug)) {
            F = G;
            u = ug;
        }
    }
    const ref_vertex *A = &P->vert[F->v[0]], *B = &P->vert[F->v[1]], *C = &P->vert[F->v[2]];
    if (u.x < 0.0f) u.x = 0.0f;
    if (u.y < 0.0f) u.y = 0.0f;
    if (u.z < 0.0f) u.z = 0.0f;
    float sum = u.x + u.y + u.z;
    if (!(sum > 0.0f)) {
        u = v3_make(1, 1, 1);
        sum = 3.0f;
    } else if (sum < 0x1p-100f) {
        /* near the denormals 1 / sum overflows, and a zero weight times
         * it is NaN: scaled by a power of two first (exact) */
        u = v3_scale(u, 0x1p100f);
        sum *= 0x1p100f;
    }
    u = v3_scale(u, 1.0f / sum);
    out->pa = v3_add(v3_add(v3_scale(A->pa, u.x), v3_scale(B->pa, u.y)), v3_scale(C->pa, u.z));
    out->pb = v3_add(v3_add(v3_scale(A->pb, u.x), v3_scale(B->pb, u.y)), v3_scale(C->pb, u.z));
    out->depth = F->d > 0.0f ? F->d : 0.0f;
    out->normal = v3_neg(F->n);
    out->has_face = 1;
    out->face_ia[0] = A->ia, out->face_ia[1] = B->ia, out->face_ia[2] = C->ia;
    out->face_ib[0] = A->ib, out->face_ib[1] = B->ib, out->face_ib[2] = C->ib;
}

/* A drop of the closest distance by a few tolerances right after a face far
 * from converged is rounding around d = 0 (the origin on the start
 * tetrahedron's face, d of either sign), to expand past; any other drop
 * means the polytope broke. (Stopping at the first: depth 0.011 for 10.25;
 * expanding past a large one: a polytope gone wrong, 0.015 for 0.020.) */
static int drop_is_noise(float drop, float previous_gain, float tol)
{
    return drop <= MINK_EPA_SETTLED_GAINS * tol && previous_gain > MINK_EPA_SETTLED_GAINS * tol;
}

void mink_scalar_epa(ref_pair *pair, const ref_simplex *start, ref_epa_result *out)
{
    epa_poly P;
    out->iterations = 0;
    out->status = MINK_OK;
    out->has_face = 0;
    out->depth = 0.0f;
    out->normal = v3_make(1, 0, 0);
    mink_scalar_simplex_points(start, &out->pa, &out->pb);
    out->has_start = 0;
    const int built = blow_up(&P, pair, start, out);
    if (built <= 0) {
        /* No closed start polytope (degenerate beyond the flat cases): the
         * touching answer from GJK's weights, flagged. */
        if (built < 0) out->status = MINK_MAX_ITERATIONS;
        return;
    }
    /* the double stage may start again from it (GJK's simplex may be a
     * triangle through the origin: identical boxes) */
    out->has_start = 1;
    for (unsigned i = 0; i < 4; ++i) out->start_ia[i] = P.vert[i].ia, out->start_ib[i] = P.vert[i].ib;

    const float tol = MINK_EPA_GAIN_REL * pair->scale;
    ref_epa_result previous = *out;
    float previous_d = -INFINITY, previous_gain = INFINITY;
    for (;;) {
        const unsigned f = closest_face(&P);
        if (f == NO_FACE) { /* cannot happen on a closed polytope; never index with it */
            const unsigned iterations = out->iterations;
            *out = previous;
            out->iterations = iterations;
            out->status = MINK_MAX_ITERATIONS;
            return;
        }
        const epa_face best = P.face[f];
        if (best.d < previous_d - tol && !drop_is_noise(previous_d - best.d, previous_gain, tol)) {
            /* The closest distance can only grow on a convex polytope; a drop
             * means rounding broke convexity (nearly coplanar points): the
             * previous face is the better bound, and an answer only if it
             * was nearly converged. */
            const unsigned iterations = out->iterations;
            *out = previous;
            out->iterations = iterations;
            if (previous_gain > MINK_EPA_SETTLED_GAINS * tol) out->status = MINK_MAX_ITERATIONS;
            return;
        }
        face_answer(&P, &P.face[f], tol, out);
        previous = *out;
        previous_d = best.d;
        if (out->iterations >= MINK_EPA_MAX_VERTICES) {
            out->status = MINK_MAX_ITERATIONS; /* cap: the closest face so far */
            return;
        }
        out->iterations++;
        const ref_vertex w = mink_scalar_support_pair(pair, best.n);
        /* depth lies in [best.d, n.w]: stop when that bracket is tight, or
         * when the support point is already a vertex (nothing to add) */
        previous_gain = v3_dot(best.n, w.w) - best.d;
        if (previous_gain <= tol) return;
        if (has_vertex(&P, &w)) {
            /* nothing new to add: converged, unless w, a vertex already,
             * lies well in front of the face (rounding broke the polytope) */
            if (previous_gain > MINK_EPA_SETTLED_GAINS * tol) out->status = MINK_MAX_ITERATIONS;
            return;
        }
        if (P.nv >= MINK_EPA_MAX_VERTICES) {
            out->status = MINK_MAX_ITERATIONS; /* capacity: the closest face so far */
            return;
        }
        const unsigned iw = add_vertex(&P, &w);
        if (!expand(&P, f, iw, tol)) {
            /* Face capacity or a horizon broken by rounding: the polytope can
             * no longer be trusted; keep the last consistent closest face. */
            out->status = MINK_MAX_ITERATIONS;
            return;
        }
    }
}
