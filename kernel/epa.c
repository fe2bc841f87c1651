/* EPA, SIMD kernel. */
#include "epa.h"
#include "tolerance.h"
#include "support_scan.h"

#include <math.h>
#include <string.h>

/* Face arrays padded to whole lanes; unused and dead faces have d = +inf,
 * so they never win the closest-face scan. */
#define FACE_SLOTS ((MINK_EPA_MAX_FACES + MINK_W_LANES - 1) / MINK_W_LANES * MINK_W_LANES)
#define VERTEX_SLOTS ((MINK_EPA_MAX_VERTICES + MINK_W_LANES - 1) / MINK_W_LANES * MINK_W_LANES)
#define NO_FACE 0xffffu
/* closest_face reads up to this many slots whole, without a loop, while
 * the polytope has no more faces; build_start sets them all dead first. */
#define CLOSEST_FIXED_SLOTS (4 * MINK_W_LANES)
_Static_assert(CLOSEST_FIXED_SLOTS <= FACE_SLOTS, "the fixed scan stays inside the face arrays");

/* Indices in bytes: vertices and faces fit in 8 bits, an edge reference
 * (face << 2 | edge) in 16. Taken apart as unsigned (and the walk's stack
 * holds them in 32 bits): from 16-bit values the compiler split them with
 * 16-bit shifts and masks. */
_Static_assert(MINK_EPA_MAX_VERTICES <= 256 && MINK_EPA_MAX_FACES <= 256, "indices are bytes");
typedef uint16_t edge_ref;
static edge_ref edge_to(unsigned face, unsigned edge) { return (edge_ref)(face << 2 | edge); }
static unsigned ref_face(unsigned r) { return r >> 2; }
static unsigned ref_edge(unsigned r) { return r & 3u; }
static unsigned next_edge(unsigned e) { return e == 2 ? 0 : e + 1; }

/* A face's vertex row, written whole: a store of char type would make the
 * compiler reload the polytope's counters after it. The fourth byte is the
 * walk's mark: 0 while the face is alive, REMOVED once a walk removed it. */
typedef union face_row { uint8_t v[4]; uint32_t all; } face_row;
#define REMOVED 1

typedef struct simd_poly {
    /* what the closest-face scan compares, in lanes: d |d| (see add_face_w);
     * +inf for dead slots */
    _Alignas(64) float key[FACE_SLOTS];
    _Alignas(16) float d[MINK_EPA_MAX_FACES]; /* plane distances from the origin */
    v4 n[MINK_EPA_MAX_FACES];                 /* unit normals, pad lane 0        */
    /* rows of 4 (the last the walk's mark), so an edge ref's bits are a row and column */
    face_row fv[MINK_EPA_MAX_FACES];      /* vertices, CCW from outside                 */
    edge_ref adj[MINK_EPA_MAX_FACES][4];  /* across edge (v[i], v[i+1]): that edge there */
    uint8_t free_list[MINK_EPA_MAX_FACES];
    simd_vertex vert[MINK_EPA_MAX_VERTICES];
    /* the expansion (its new vertex's index) whose horizon last started at
     * the vertex: 16 bits, as a char-typed store would make the compiler
     * reload the polytope's counters */
    uint16_t horizon_mark[MINK_EPA_MAX_VERTICES];
    /* the vertices' w and ids again in lanes, for the duplicate scan */
    _Alignas(64) float wx[VERTEX_SLOTS];
    _Alignas(64) float wy[VERTEX_SLOTS];
    _Alignas(64) float wz[VERTEX_SLOTS];
    _Alignas(64) uint32_t ia[VERTEX_SLOTS];
    _Alignas(64) uint32_t ib[VERTEX_SLOTS];
    unsigned nv, nf, nfree;
} simd_poly;

/* No face slot is read before it is handed out: add_face sets key = +inf
 * over each new lane group. */
static void poly_reset(simd_poly *P) { P->nv = P->nf = P->nfree = 0; }

/* The face slot counters, held in a local while faces come and go (the
 * free list's char-typed stores would make the compiler reload them from
 * the polytope after each). */
typedef struct face_slots { unsigned nf, nfree; } face_slots;

/* Copies vertex i into the lanes has_vertex scans. */
static void index_vertex(simd_poly *P, unsigned i)
{
    const simd_vertex *v = &P->vert[i];
    P->wx[i] = v4_x(v->w);
    P->wy[i] = v4_y(v->w);
    P->wz[i] = v4_z(v->w);
    P->ia[i] = v->ia;
    P->ib[i] = v->ib;
}

static unsigned add_vertex(simd_poly *P, const simd_vertex *v)
{
    P->vert[P->nv] = *v;
    P->horizon_mark[P->nv] = 0; /* the expansions' marks are 4 and up */
    return P->nv++;
}

static int alive(const simd_poly *P, unsigned f) { return P->key[f] != INFINITY; }

/* v / |v|, scaled by its largest component first: the cross products of
 * a shape 1e-11 across have squares in the denormals, where 1/sqrt(|v|^2)
 * loses its precision (a normal came out 1.12 long). */
static v4 normalized(v4 v)
{
    const v4 a = v4_max(v, v4_neg(v));
    const float m = v4_x(v4_max(v4_max(a, v4_splat_y(a)), v4_splat_z(a)));
    if (!(m > 0.0f)) return v4_set(1, 0, 0, 0);
    const v4 s = v4_div(v, v4_splat(m));
    return v4_scale(s, 1.0f / sqrtf(v4_len2(s)));
}

/* A face over vertices a, b, c (point wc) with its plane, in a slot from S;
 * adj is the caller's to set. wc comes by value: the fan's apex stays in a
 * register instead of being reloaded per face. Also gives the face's key
 * and a normal of any length (dir), for the next support if it is chosen.
 *
 * The key, d |d| = (n.c) |n.c| / |n|^2 for n = (b - a) x (c - a) and the
 * centroid c, orders faces as d does, without the square root: the face's
 * key and direction, on EPA's chain of dependent steps from one support to
 * the next, wait for one division; the unit normal and d, which only the
 * later iterations read, are computed beside that chain. As a product
 * (n.c / |n|^2) |n.c| it stays in range: about S^2. */
static inline unsigned add_face_w(simd_poly *P, face_slots *S, unsigned a, unsigned b, unsigned c, v4 wc,
                                  float *key_out, v4 *dir_out)
{
    const v4 wa = P->vert[a].w, wb = P->vert[b].w;
    const v4 n = v4_cross(v4_sub(wb, wa), v4_sub(wc, wa));
    const v4 len2 = v4_dot_splat(n, n);
    /* tiny n: its square loses precision (or underflows), so scale first */
    const int tiny = !(v4_x(len2) > 1e-30f);
    if (tiny && !v4_any(v4_cmpgt(v4_max(n, v4_neg(n)), v4_zero()))) return NO_FACE;
    const v4 centroid = v4_scale(v4_add(v4_add(wa, wb), wc), 1.0f / 3.0f);
    v4 un, dir;
    float d, key;
    if (tiny) {
        un = dir = normalized(n);
        d = v4_dot(un, centroid);
        key = d * fabsf(d);
    } else {
        const v4 dp = v4_dot_splat(n, centroid);
        const v4 x = v4_div(v4_splat(1.0f), len2); /* 1 / |n|^2 */
        key = v4_x(v4_mul(v4_mul(dp, x), v4_max(dp, v4_neg(dp))));
        const v4 inv = v4_sqrt(x); /* 1 / |n| */
        un = v4_mul(n, inv);
        d = v4_x(v4_mul(dp, inv));
        dir = n;
    }
    unsigned f;
    if (S->nfree > 0) f = P->free_list[--S->nfree];
    else if (S->nf < MINK_EPA_MAX_FACES) {
        f = S->nf++;
        /* the scans read whole lane groups: the rest of this one reads dead */
        if (f % MINK_W_LANES == 0) vw_store(P->key + f, vw_splat(INFINITY));
    } else return NO_FACE;
    P->n[f] = un;
    *dir_out = dir;
    P->d[f] = d;
    /* A plain store: the lane loads of the next scan come an iteration
     * later (expand scans the faces that stay before its fan). +inf and
     * NaN become 3e38: kept alive, never closest (a minimum). */
    *key_out = P->key[f] = key < 3.0e38f ? key : 3.0e38f;
    /* the row in one store (snapshot() loads it whole), not of char type */
    P->fv[f].all = ((face_row){{(uint8_t)a, (uint8_t)b, (uint8_t)c, 0}}).all;
    return f;
}

static unsigned add_face(simd_poly *P, face_slots *S, unsigned a, unsigned b, unsigned c)
{
    float key;
    v4 dir;
    return add_face_w(P, S, a, b, c, P->vert[c].w, &key, &dir);
}

static v4 face_normal(const simd_poly *P, unsigned f) { return P->n[f]; }

/* A face the walk removes: freed, dead (key = +inf) for the scan of the
 * faces that stay, and marked removed for the walk. */
static void unlink_face(simd_poly *P, face_slots *S, unsigned f)
{
    P->key[f] = INFINITY;
    P->fv[f].v[3] = REMOVED;
    P->free_list[S->nfree++] = (uint8_t)f;
}

/* The starting tetrahedron over vertices 0..3 with its adjacency written
 * out: once vertex 3 lies on the positive side of (v1-v0) x (v2-v0) (else
 * vertices 1 and 2 swap roles), faces (0,2,1) (0,1,3) (1,2,3) (0,3,2) face
 * outwards. The four planes are computed together, face f in lane f, with
 * add_face's arithmetic; a tiny normal takes add_face itself. */
static int build_start(simd_poly *P)
{
    /* the face rows, as they are and with vertices 1 and 2 swapped */
    static const uint8_t rows[2][4][4] = {{{0, 2, 1, 0}, {0, 1, 3, 0}, {1, 2, 3, 0}, {0, 3, 2, 0}},
                                          {{0, 1, 2, 0}, {0, 2, 3, 0}, {2, 1, 3, 0}, {0, 3, 1, 0}}};
    /* adj[f][i]: the face across edge i of face f and that edge's index there */
#define E(face, edge) ((face) << 2 | (edge))
    static const edge_ref adj[4][4] = {{E(3, 2), E(2, 0), E(1, 0)}, {E(0, 2), E(2, 2), E(3, 0)},
                                       {E(0, 1), E(3, 1), E(1, 1)}, {E(1, 2), E(2, 1), E(0, 0)}};
#undef E
    for (unsigned f = MINK_W_LANES; f < CLOSEST_FIXED_SLOTS; f += MINK_W_LANES) vw_store(P->key + f, vw_splat(INFINITY));
    const v4 w[4] = {P->vert[0].w, P->vert[1].w, P->vert[2].w, P->vert[3].w};
    const float vol = v4_dot(v4_sub(w[3], w[0]), v4_cross(v4_sub(w[1], w[0]), v4_sub(w[2], w[0])));
    const uint8_t(*row)[4] = rows[vol < 0.0f];

    /* corners a, b, c of the four faces as x, y, z rows */
    v4 a[3], b[3], c[3];
    v4_transpose_points((const v4[4]){w[row[0][0]], w[row[1][0]], w[row[2][0]], w[row[3][0]]}, a);
    v4_transpose_points((const v4[4]){w[row[0][1]], w[row[1][1]], w[row[2][1]], w[row[3][1]]}, b);
    v4_transpose_points((const v4[4]){w[row[0][2]], w[row[1][2]], w[row[2][2]], w[row[3][2]]}, c);
    v4 e[3], g[3];
    for (unsigned k = 0; k < 3; ++k) {
        e[k] = v4_sub(b[k], a[k]);
        g[k] = v4_sub(c[k], a[k]);
    }
    v4 n[3];
    v4_cross_rows(e, g, n);
    const v4 len2 = v4_dot_rows(n, n);
    if (!v4_all(v4_cmpgt(len2, v4_splat(1e-30f)))) {
        face_slots S = {0, 0};
        for (unsigned f = 0; f < 4; ++f)
            if (add_face(P, &S, row[f][0], row[f][1], row[f][2]) != f) return 0;
        P->nf = S.nf;
    } else {
        /* add_face_w's arithmetic, face f in lane f: v4_dot of n with the
         * centroid (its pad lane's product, +0, included), its key, then
         * the unit normal and d */
        const v4 third = v4_splat(1.0f / 3.0f);
        const v4 px = v4_mul(n[0], v4_mul(v4_add(v4_add(a[0], b[0]), c[0]), third));
        const v4 py = v4_mul(n[1], v4_mul(v4_add(v4_add(a[1], b[1]), c[1]), third));
        const v4 pz = v4_mul(n[2], v4_mul(v4_add(v4_add(a[2], b[2]), c[2]), third));
        const v4 dp = v4_add(v4_add(px, py), v4_add(pz, v4_zero()));
        const v4 x = v4_div(v4_splat(1.0f), len2);
        const v4 key = v4_mul(v4_mul(dp, x), v4_max(dp, v4_neg(dp)));
        const v4 key_kept = v4_select(v4_cmpgt(v4_splat(3.0e38f), key), key, v4_splat(3.0e38f)); /* as add_face */
        const v4 inv = v4_sqrt(x);
        const v4 ux = v4_mul(n[0], inv), uy = v4_mul(n[1], inv), uz = v4_mul(n[2], inv);
        v4_store(P->d, v4_mul(dp, inv));
        v4_transpose_rows((const v4[3]){ux, uy, uz}, P->n);
        /* slots 0-3 in the first lane group, the rest of it dead */
        vw_store(P->key, vw_select(vw_cmpgt(vw_splat(4.0f), vw_iota()), vw_from_v4(key_kept), vw_splat(INFINITY)));
        memcpy(P->fv, row, 4 * sizeof row[0]);
        P->nf = 4;
    }
    memcpy(P->adj, adj, sizeof adj);
    v4 x[3];
    v4_transpose_points(w, x);
    v4_store(P->wx, x[0]);
    v4_store(P->wy, x[1]);
    v4_store(P->wz, x[2]);
    u32x4_store(P->ia, P->vert[0].ia, P->vert[1].ia, P->vert[2].ia, P->vert[3].ia);
    u32x4_store(P->ib, P->vert[0].ib, P->vert[1].ib, P->vert[2].ib, P->vert[3].ib);
    return 1;
}

static v4 perpendicular(v4 e)
{
    const float ax = fabsf(v4_x(e)), ay = fabsf(v4_y(e)), az = fabsf(v4_z(e));
    const v4 axis = (ax <= ay && ax <= az) ? v4_set(1, 0, 0, 0) : (ay <= az) ? v4_set(0, 1, 0, 0) : v4_set(0, 0, 1, 0);
    return v4_cross(e, axis);
}

/* D has no extent beyond the origin along n_out: depth 0, GJK's witnesses. */
static void flat_answer(const simd_simplex *s, v4 n_out, simd_epa_result *out)
{
    out->depth = 0.0f;
    out->normal = v4_neg(n_out);
    mink_simd_simplex_points(s, &out->pa, &out->pb);
}

static int blow_up(simd_poly *P, simd_pair *pair, const simd_simplex *s, simd_epa_result *out)
{
    const float tol = MINK_EPA_GAIN_REL * pair->scale;
    poly_reset(P);
    for (unsigned i = 0; i < 4; ++i)
        if (s->bits & (1u << i)) add_vertex(P, &s->vert[i]);

    if (P->nv == 4) {
        const v4 a = P->vert[0].w;
        const float vol = v4_dot(v4_sub(P->vert[1].w, a), v4_cross(v4_sub(P->vert[2].w, a), v4_sub(P->vert[3].w, a)));
        const float sc = pair->scale;
        if (fabsf(vol) > MINK_FLAT_VOLUME_REL * sc * sc * sc) return build_start(P) ? 1 : -1;
        unsigned drop = 0;
        float best = -1.0f;
        for (unsigned k = 0; k < 4; ++k) {
            const v4 p0 = P->vert[(k + 1) % 4].w, p1 = P->vert[(k + 2) % 4].w, p2 = P->vert[(k + 3) % 4].w;
            const float area2 = v4_len2(v4_cross(v4_sub(p1, p0), v4_sub(p2, p0)));
            if (area2 > best) {
                best = area2;
                drop = k;
            }
        }
        /* small, not flat: height vol / |2 area| above the rounding */
        const float height_tol = MINK_TOUCH_REL * sc;
        if (vol * vol > height_tol * height_tol * best) return build_start(P) ? 1 : -1;
        P->vert[drop] = P->vert[3];
        P->nv = 3;
    }
    if (P->nv == 3) {
        const v4 a = P->vert[0].w;
        const v4 n = v4_cross(v4_sub(P->vert[1].w, a), v4_sub(P->vert[2].w, a));
        if (v4_len2(n) <= tol * tol * tol * tol) {
            const float d01 = v4_len2(v4_sub(P->vert[1].w, a)), d02 = v4_len2(v4_sub(P->vert[2].w, a));
            const float d12 = v4_len2(v4_sub(P->vert[2].w, P->vert[1].w));
            if (d12 > d01 && d12 > d02) P->vert[0] = P->vert[2];
            else if (d02 > d01) P->vert[1] = P->vert[2];
            P->nv = 2;
        }
    }
    if (P->nv == 1) {
        static const float axes[6][4] = {{1, 0, 0, 0}, {-1, 0, 0, 0}, {0, 1, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}, {0, 0, -1, 0}};
        for (unsigned k = 0; k < 6 && P->nv == 1; ++k) {
            const simd_vertex w = mink_simd_support_pair(pair, v4_load(axes[k]));
            if (v4_len2(v4_sub(w.w, P->vert[0].w)) > tol * tol) add_vertex(P, &w);
        }
        if (P->nv == 1) {
            flat_answer(s, v4_set(-1, 0, 0, 0), out);
            return 0;
        }
    }
    if (P->nv == 2) {
        const v4 e = normalized(v4_sub(P->vert[1].w, P->vert[0].w));
        const v4 d1 = normalized(perpendicular(e));
        const v4 d2 = v4_cross(e, d1);
        const v4 dirs[4] = {d1, v4_neg(d1), d2, v4_neg(d2)};
        for (unsigned k = 0; k < 4 && P->nv == 2; ++k) {
            const simd_vertex w = mink_simd_support_pair(pair, dirs[k]);
            if (v4_len2(v4_cross(v4_sub(w.w, P->vert[0].w), e)) > tol * tol) add_vertex(P, &w);
        }
        if (P->nv == 2) {
            flat_answer(s, d1, out);
            return 0;
        }
    }
    const v4 a = P->vert[0].w;
    const v4 n = normalized(v4_cross(v4_sub(P->vert[1].w, a), v4_sub(P->vert[2].w, a)));
    const simd_vertex up = mink_simd_support_pair(pair, n);
    const simd_vertex down = mink_simd_support_pair(pair, v4_neg(n));
    if (v4_dot(n, v4_sub(up.w, a)) <= tol) {
        flat_answer(s, n, out);
        return 0;
    }
    if (-v4_dot(n, v4_sub(down.w, a)) <= tol) {
        flat_answer(s, v4_neg(n), out);
        return 0;
    }
    /* The tetrahedron with the upper apex holds the origin on its base. */
    add_vertex(P, &up);
    return build_start(P) ? 1 : -1;
}

/* A face and its key. */
typedef struct face_pick { unsigned f; float key; } face_pick;

/* The closest of the faces in the first four lane-widths (lanes of type
 * T, operations P##_..., LANES of them), as a function `name`: each read,
 * no loop, a tree of minima, then the first lane holding it. Slots past
 * nf hold +inf (build_start set them dead); all dead: face 0, as the scan
 * in closest_face. */
#define DEFINE_CLOSEST_FIXED(name, T, P, LANES)                                                         \
    MINK_ALWAYS_INLINE face_pick name(const simd_poly *P_)                                              \
    {                                                                                                   \
        const T d0 = P##_load(P_->key), d1 = P##_load(P_->key + (LANES));                               \
        const T d2 = P##_load(P_->key + 2 * (LANES)), d3 = P##_load(P_->key + 3 * (LANES));             \
        const T min4 = P##_min(P##_min(d0, d1), P##_min(d2, d3));                                       \
        const v4 least = v4_hmin_splat(P##_fold_min(min4));                                             \
        const uint64_t bits = P##_eq_bits4(d0, d1, d2, d3, P##_from_v4(least));                        \
        return (face_pick){(unsigned)__builtin_ctzll(bits | (bits == 0)), v4_x(least)};                 \
    }
DEFINE_CLOSEST_FIXED(closest_fixed_narrow, vn, vn, MINK_N_LANES)

/* The same over the first two lane-widths of narrow lanes (the polytope's
 * first few iterations). */
MINK_ALWAYS_INLINE face_pick closest_fixed2_narrow(const simd_poly *P)
{
    const vn d0 = vn_load(P->key), d1 = vn_load(P->key + MINK_N_LANES);
    const v4 least = v4_hmin_splat(vn_fold_min(vn_min(d0, d1)));
    const vn top = vn_from_v4(least);
    const uint32_t bits = vn_eq_bits(d0, top) | vn_eq_bits(d1, top) << MINK_N_LANES;
    return (face_pick){(unsigned)__builtin_ctz(bits | (bits == 0)), v4_x(least)};
}
#if MINK_N_LANES < MINK_W_LANES
DEFINE_CLOSEST_FIXED(closest_fixed, vw, vw, MINK_W_LANES)
#endif

/* Lane-wide argmin of the faces' keys (dead faces hold +inf): the lowest
 * index among the smallest, and its key. Up to 4 * MINK_N_LANES
 * faces (or with AVX-512 4 * MINK_W_LANES) without a loop. */
MINK_ALWAYS_INLINE face_pick closest_face(const simd_poly *P)
{
    if (P->nf <= 2 * MINK_N_LANES) return closest_fixed2_narrow(P);
    if (P->nf <= 4 * MINK_N_LANES) return closest_fixed_narrow(P);
#if MINK_N_LANES < MINK_W_LANES
    if (P->nf <= CLOSEST_FIXED_SLOTS) return closest_fixed(P);
#endif
    const unsigned slots = (P->nf + MINK_W_LANES - 1) / MINK_W_LANES * MINK_W_LANES;
    const vw step = vw_splat((float)MINK_W_LANES);
    vw best = vw_splat(-INFINITY), best_i = vw_splat(0.0f), idx = vw_iota();
    for (unsigned f = 0; f < slots; f += MINK_W_LANES) {
        const vw neg_d = vw_sub(vw_splat(0.0f), vw_load(P->key + f));
        const vwm better = vw_cmpgt(neg_d, best);
        best = vw_select(better, neg_d, best);
        best_i = vw_select(better, idx, best_i);
        idx = vw_add(idx, step);
    }
    float top;
    const unsigned f = vw_argmax(best, best_i, &top);
    return (face_pick){f, -top};
}

/* What a walk from the expanded face (normal n0) tests the faces it
 * reaches against: the new point w and the tolerance. */
typedef struct walk_view { v4 w, n0; float eps; } walk_view;

/* Whether w sees face f (n.w - d > eps), or grazes it (> -eps) while f
 * does not face away from the expanded face (n.n0 > -1/2). Grazed faces go:
 * kept, they would be fanned to w, and where w is nearly in line with one
 * of their edges the new sliver face's normal is noise whose plane cuts the
 * polytope. Grazed faces facing away stay: on a polytope thinner than eps,
 * w grazes both sides. Tested as the walk reaches a face (a few per
 * expansion) rather than lane-wide over all faces. */
static int sees(const simd_poly *P, unsigned f, const walk_view *V)
{
    const v4 n = P->n[f];
    const float dist = v4_dot(n, V->w) - P->d[f];
    if (dist > V->eps) return 1;
    if (!(dist > -V->eps)) return 0;
    return v4_dot(n, V->n0) > -0.5f;
}

/* w is a vertex already: same feature ids or same point. Lanes past nv
 * hold stale or no data, so they are masked off. */
static int has_vertex(const simd_poly *P, const simd_vertex *w)
{
    const vw wx = vw_splat(v4_x(w->w)), wy = vw_splat(v4_y(w->w)), wz = vw_splat(v4_z(w->w));
    const vw nv = vw_splat((float)P->nv), step = vw_splat((float)MINK_W_LANES);
    vw idx = vw_iota();
    for (unsigned i = 0; i < P->nv; i += MINK_W_LANES) {
        const vwm same_ids = vw_and(vw_cmpeq_u32(P->ia + i, w->ia), vw_cmpeq_u32(P->ib + i, w->ib));
        const vwm same_w = vw_and(vw_and(vw_cmpeq(vw_load(P->wx + i), wx), vw_cmpeq(vw_load(P->wy + i), wy)), vw_cmpeq(vw_load(P->wz + i), wz));
        if (!vw_none(vw_and(vw_or(same_ids, same_w), vw_cmpgt(nv, idx)))) return 1;
        idx = vw_add(idx, step);
    }
    return 0;
}

/* Replaces the faces w (vertex iw; its point passed, not reloaded) sees,
 * found by a walk from f0 (normal n0) over the faces adjacent to seen ones,
 * by a fan from w to the horizon, and picks the closest face of the result
 * with its normal. The faces that stay are scanned between walk and fan,
 * and the fan's faces compared as they come, in registers: a scan after
 * the fan waited for its scalar stores to reach the cache (a lane load
 * over stores in flight is not forwarded) and then took its own chain of
 * minima. 12 % off hull32-pen's penetration queries (AVX2). */
static int expand(simd_poly *P, unsigned f0, v4 n0, unsigned iw, v4 w, float eps, face_pick *closest,
                  v4 *closest_dir)
{
    /* a horizon edge: face g's edge e, which runs from vertex `from` to `to` */
    typedef struct { edge_ref edge; uint8_t from, to; } horizon_edge;
    uint32_t stack[2 * MINK_EPA_MAX_FACES + 4]; /* edge refs */
    horizon_edge horizon[MINK_EPA_MAX_FACES];
    unsigned nstack = 3, nhorizon = 0;
    face_slots S = {P->nf, P->nfree};
    const walk_view V = {w, n0, eps};

    unlink_face(P, &S, f0);
    for (unsigned i = 0; i < 3; ++i) stack[i] = P->adj[f0][i];
    while (nstack > 0) {
        const unsigned r = stack[--nstack];
        const unsigned g = ref_face(r), e = ref_edge(r);
        if (P->fv[g].v[3] == REMOVED) continue;
        if (sees(P, g, &V)) {
            unlink_face(P, &S, g);
            if (nstack + 2 > sizeof stack / sizeof stack[0]) return 0;
            const unsigned e1 = next_edge(e);
            stack[nstack++] = P->adj[g][e1];
            stack[nstack++] = P->adj[g][next_edge(e1)];
        } else {
            if (nhorizon >= MINK_EPA_MAX_FACES) return 0;
            const unsigned from = P->fv[g].v[next_edge(e)], to = P->fv[g].v[e];
            horizon[nhorizon++] = (horizon_edge){r, (uint8_t)from, (uint8_t)to};
        }
    }

    if (nhorizon < 3) return 0; /* nothing left to fan: not a closed polytope */
    face_pick best = closest_face(P); /* slots the fan appends read dead here */
    v4 best_dir = face_normal(P, best.f);
    /* The walk meets the horizon in order, clockwise seen from outside:
     * each edge ends where the one before it starts (the last where the
     * first starts). So each new face meets the one made before it: its
     * edge 1, (b, w), is the edge 2, (w, b), of the face from b. A horizon
     * that is not one such loop, or passes a vertex twice, stops here. */
    unsigned before = horizon[nhorizon - 1].from, prev = NO_FACE, first = NO_FACE;
    for (unsigned k = 0; k < nhorizon; ++k) {
        const unsigned a = horizon[k].from, b = horizon[k].to;
        if (b != before || P->horizon_mark[a] == iw) return 0;
        P->horizon_mark[a] = (uint16_t)iw;
        before = a;
        float key;
        v4 dir;
        const unsigned f = add_face_w(P, &S, a, b, iw, w, &key, &dir); /* w held, not reloaded */
        if (f == NO_FACE) return 0;
        /* on a tie the face that stays, then the fan's earlier face: a
         * fixed order, the same on every backend */
        const int nearer = key < best.key;
        best_dir = v4_select(v4_cmpgt(v4_splat(best.key), v4_splat(key)), dir, best_dir);
        best.f = nearer ? f : best.f;
        best.key = nearer ? key : best.key;
        const edge_ref r = horizon[k].edge;
        P->adj[f][0] = r;
        P->adj[ref_face(r)][ref_edge(r)] = edge_to(f, 0);
        if (k == 0) first = f;
        else {
            P->adj[f][1] = edge_to(prev, 2);
            P->adj[prev][2] = edge_to(f, 1);
        }
        prev = f;
    }
    P->adj[first][1] = edge_to(prev, 2);
    P->adj[prev][2] = edge_to(first, 1);
    P->nf = S.nf;
    P->nfree = S.nfree;
    *closest = best;
    *closest_dir = best_dir;
    return 1;
}

/* A face's data, kept across an expansion that may recycle its slot. */
typedef struct face_snap { uint8_t v[4]; v4 n; float d; } face_snap;

static face_snap snapshot(const simd_poly *P, unsigned f)
{
    face_snap F = {{0}, face_normal(P, f), P->d[f]};
    memcpy(F.v, P->fv[f].v, sizeof F.v); /* the row, fourth byte unused */
    return F;
}

/* Barycentric weights (unnormalized, lanes x y z) of the origin's
 * projection d * n on a face: the signed sub-triangle areas along n. */
static v4 face_weights(const simd_poly *P, const face_snap *F)
{
    const v4 p = v4_scale(F->n, F->d);
    const v4 a = v4_sub(P->vert[F->v[0]].w, p), b = v4_sub(P->vert[F->v[1]].w, p), c = v4_sub(P->vert[F->v[2]].w, p);
    return v4_hsum4(v4_mul(F->n, v4_cross(b, c)), v4_mul(F->n, v4_cross(c, a)), v4_mul(F->n, v4_cross(a, b)), v4_zero());
}

/* Witnesses from the barycentric coordinates of the origin's projection on
 * the closest face. With `search`, among faces within `tol` of it (a flat
 * polytope face split in triangles) the one that holds the projection.
 * F by pointer: passed by value, it was copied in 16-byte loads over the
 * caller's narrower stores of its fields. */
static void face_answer(const simd_poly *P, const face_snap *F, int search, float tol, simd_epa_result *out)
{
    face_snap found;
    v4 bary = face_weights(P, F);
    for (unsigned g = 0; search && g < P->nf && v4_any(v4_cmpgt(v4_zero(), bary)); ++g) {
        if (!alive(P, g) || P->d[g] > F->d + tol) continue;
        const face_snap G = snapshot(P, g);
        if (v4_dot(G.n, F->n) < 0.9999f) continue; /* another plane: a lower bound only */
        const v4 bg = face_weights(P, &G);
        if (!v4_any(v4_cmpgt(v4_zero(), bg))) {
            found = G;
            F = &found;
            bary = bg;
        }
    }
    const simd_vertex *A = &P->vert[F->v[0]], *B = &P->vert[F->v[1]], *C = &P->vert[F->v[2]];
    bary = v4_max(bary, v4_zero());
    float sum = v4_x(v4_hsum_splat(bary));
    if (!(sum > 0.0f)) {
        bary = v4_set(1, 1, 1, 0);
        sum = 3.0f;
    } else if (sum < 0x1p-100f) {
        /* weights from a polytope about 1e-23 across, their sum near the
         * denormals: 1 / sum overflowed and a zero weight times it gave
         * NaN witnesses. Scaled by a power of two first (exact). */
        bary = v4_scale(bary, 0x1p100f);
        sum *= 0x1p100f;
    }
    bary = v4_scale(bary, 1.0f / sum);
    const v4 u = v4_splat_x(bary), v = v4_splat_y(bary), t = v4_splat_z(bary);
    out->pa = v4_madd(t, C->pa, v4_madd(v, B->pa, v4_mul(u, A->pa)));
    out->pb = v4_madd(t, C->pb, v4_madd(v, B->pb, v4_mul(u, A->pb)));
    out->depth = F->d > 0.0f ? F->d : 0.0f;
    out->normal = v4_neg(F->n);
    out->has_face = 1;
    out->face_ia[0] = A->ia, out->face_ia[1] = B->ia, out->face_ia[2] = C->ia;
    out->face_ib[0] = A->ib, out->face_ib[1] = B->ib, out->face_ib[2] = C->ib;
}

/* face_answer at one of EPA's exits, with the iteration count kept in a
 * local until then (out may alias what the support writes). */
static void answer_at_exit(const simd_poly *P, const face_snap *F, int search, float tol, unsigned iterations,
                           simd_epa_result *out)
{
    out->iterations = iterations;
    face_answer(P, F, search, tol, out);
}

/* A drop of the closest distance by a few tolerances right after a face far
 * from converged is rounding around d = 0 (the origin on the start
 * tetrahedron's face), to expand past; any other drop means the polytope
 * broke. (Stopping at the first: depth 0.011 for 10.25; expanding past a
 * large one: a polytope gone wrong, 0.015 for 0.020.) */
static int drop_is_noise(float drop, float previous_gain, float tol)
{
    return drop <= MINK_EPA_SETTLED_GAINS * tol && previous_gain > MINK_EPA_SETTLED_GAINS * tol;
}

void mink_simd_epa(simd_pair *pair, const simd_simplex *start, simd_epa_result *out)
{
    simd_poly P;
    out->iterations = 0;
    out->status = MINK_OK;
    out->has_face = 0;
    out->depth = 0.0f;
    out->normal = v4_set(1, 0, 0, 0);
    out->has_start = 0;
    mink_simd_simplex_points(start, &out->pa, &out->pb);
    const int built = blow_up(&P, pair, start, out);
    if (built <= 0) {
        /* no closed start polytope: GJK's touching answer, flagged */
        if (built < 0) out->status = MINK_MAX_ITERATIONS;
        return;
    }
    /* the double stage may start again from it (GJK's simplex may be a
     * triangle through the origin: identical boxes) */
    out->has_start = 1;
    memcpy(out->start_ia, P.ia, sizeof out->start_ia);
    memcpy(out->start_ib, P.ib, sizeof out->start_ib);

    const float tol = MINK_EPA_GAIN_REL * pair->scale;
    /* the previous iteration's closest face until the drop test passed,
     * then this one's: one snapshot, not a copy per iteration */
    face_snap best = {{0, 0, 0}, v4_zero(), -INFINITY};
    float previous_gain = INFINITY;
    unsigned iterations = 0; /* out's, set at the exits (answer_at_exit) */
    face_pick closest = closest_face(&P);
    /* the next support's direction: the face's normal, then one of any
     * length from expand (add_face_w), in registers */
    v4 closest_dir = face_normal(&P, closest.f);
    for (;;) {
        const unsigned f = closest.f;
        const float d = P.d[f];
        if (d < best.d - tol && !drop_is_noise(best.d - d, previous_gain, tol)) {
            /* the closest distance only grows on a convex polytope: a drop
             * means rounding broke convexity; the previous face is better,
             * and an answer only if it was nearly converged */
            answer_at_exit(&P, &best, 0, tol, iterations, out);
            if (previous_gain > MINK_EPA_SETTLED_GAINS * tol) out->status = MINK_MAX_ITERATIONS;
            return;
        }
        best = snapshot(&P, f);
        if (iterations >= MINK_EPA_MAX_VERTICES || P.nv >= MINK_EPA_MAX_VERTICES) {
            /* iteration cap or vertex capacity: the closest face so far */
            answer_at_exit(&P, &best, 0, tol, iterations, out);
            out->status = MINK_MAX_ITERATIONS;
            return;
        }
        ++iterations;
        /* inline here (support_scan.h); blow_up's rare calls are not */
        const simd_vertex w = support_pair(pair, closest_dir);
        previous_gain = v4_dot(best.n, w.w) - best.d;
        if (previous_gain <= tol || has_vertex(&P, &w)) {
            answer_at_exit(&P, &best, 1, tol, iterations, out); /* converged */
            /* unless w, a vertex already, lies well in front of the face:
             * rounding broke the polytope */
            if (previous_gain > MINK_EPA_SETTLED_GAINS * tol) out->status = MINK_MAX_ITERATIONS;
            return;
        }
        const unsigned iw = add_vertex(&P, &w);
        index_vertex(&P, iw);
        if (!expand(&P, f, best.n, iw, w.w, tol, &closest, &closest_dir)) {
            /* face capacity or a horizon broken by rounding: the last
             * consistent closest face (its vertices are never removed) */
            answer_at_exit(&P, &best, 0, tol, iterations, out);
            out->status = MINK_MAX_ITERATIONS;
            return;
        }
    }
}
