/* Contact manifolds: the stage both kernels share (manifold.c) and the few
 * operations each kernel brings (its scans, its support mapping, its
 * GJK/EPA). Everything happens in A's local frame; B's features are moved
 * there once per query. */
#ifndef MINK_MANIFOLD_H
#define MINK_MANIFOLD_H

#include "core_features.h"
#include "simd.h"
#include "mink/mink.h"

/* Hulls of up to this many points (boxes always) take the separating-axis
 * test over faces and edge pairs; larger ones take GJK/EPA's normal and
 * search the faces around its support points (the test's edge pairs grow
 * with the product of the edge counts). */
#ifndef MANIFOLD_SAT_MAX_POINTS
#define MANIFOLD_SAT_MAX_POINTS 8
#endif

/* The best separating axis a scan found: its separation (signed, cores),
 * the runner-up's, and which features gave it. */
typedef struct sat_best {
    float value;    /* -INFINITY when nothing passed                       */
    float second;   /* the largest value of any other candidate             */
    uint32_t i, j;  /* face scan: the plane, 0; edge scan: A's and B's arc */
    v3 axis;        /* edge scan: unit axis from A towards B                */
} sat_best;

/* Edge pairs whose edges are within this sine of parallel are evaluated in
 * double after the scan (their axis, a normalized cross product, loses
 * float precision as 1 / sine); at most this many, else the scan says so. */
#define SAT_NEAR_PARALLEL_SIN 0.05f
#define SAT_NEAR_PARALLEL_MAX 16

typedef struct sat_edge_scan {
    sat_best best;
    uint32_t near_count;                     /* near-parallel pairs that passed */
    uint32_t near_i[SAT_NEAR_PARALLEL_MAX], near_j[SAT_NEAR_PARALLEL_MAX];
} sat_edge_scan;

/* Box against box: the support separations along the 15 axes that hold
 * every face of their Minkowski difference (A's 3 face axes, B's 3, the 9
 * cross products of an edge direction of each), in that order; the
 * support's own, so an axis of parallel edges (its cross product below
 * SAT_NEAR_PARALLEL_SIN) is -inf. ha, hb half extents; rot the rows of B's
 * rotation into A's frame; pos B's origin there. */
enum { BOX_AXES = 15, BOX_SEPS = 16 };
/* sep: 16 floats, 16-byte aligned, the 15 separations then -inf. Returns
 * the edge axes left out as parallel: bit 3 i + j for a_i x b_j. */
typedef uint32_t (*box_sat_fn)(const float ha[3], const float hb[3], const v3 rot[3], v3 pos, float sep[BOX_SEPS]);

/* The reference's box test (kernel/ref/sat_ref.c). */
uint32_t mink_box_sat_scalar(const float ha[3], const float hb[3], const v3 rot[3], v3 pos, float sep[BOX_SEPS]);
/* The SIMD kernel's (kernel/sat.c), on its vectors: rows (r_i0, r_i1, r_i2,
 * 0); out 16-byte aligned, the 15 separations then -inf; returns as
 * box_sat_fn. */
uint32_t mink_simd_box_sat(const float ha[3], const float hb[3], const v4 row[3], v4 pos, float out[BOX_SEPS]);

/* What a kernel brings. */
typedef struct manifold_kernel {
    /* the core's support point id along d (local frame) and max d.p */
    uint32_t (*support)(const mink_shape *s, v3 d, float *dot);
    /* signed distance and witnesses: the kernel's mink_penetration */
    mink_status (*penetration)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                               mink_cache *cache, mink_result *out);
    /* max over the planes of (min over the points of n.p) - d */
    void (*face_scan)(const soa_planes *planes, const soa_points *points, sat_best *out);
    /* max over arc pairs of A and B that cross on the Gauss map (A's arcs
     * against B's negated) of the pair's separation; near-parallel pairs
     * listed, not valued. Returns at the first pair separating by more
     * than `stop` (then best is that pair, second is incomplete). */
    void (*edge_scan)(const soa_arcs *a, const soa_arcs *b, float stop, sat_edge_scan *out);
    box_sat_fn box_sat;
    /* mink_core_soa_moved (core_features.h), the kernel's way */
    void (*move)(const soa_points *p, const soa_planes *f, const soa_arcs *a, const v3 rows[3], v3 t, float *store,
                 soa_points *po, soa_planes *fo, soa_arcs *ao);
} manifold_kernel;

/* The query, for either kernel. */
mink_status mink_manifold_run(const manifold_kernel *k, const mink_shape *a, const mink_pose *pa,
                              const mink_shape *b, const mink_pose *pb, float margin, mink_cache *cache,
                              struct mink_manifold *out);

/* Whether the arc of A (normals a0 -> a1, plane normal ea = unit(a0 x a1))
 * and B's arc negated (B's normals b0 -> b1 negated, plane normal eb, all
 * in A's frame) cross on the Gauss map: then the two edges form a face of
 * the Minkowski difference. In double; the kernels' scans test the same
 * signs in float:
 *   (-b0.ea)(-b1.ea) < 0,  (a0.eb)(a1.eb) < 0,  (-b0.ea)(a1.eb) > 0. */
int mink_sat_arcs_cross(v3 a0, v3 a1, v3 ea, v3 b0, v3 b1, v3 eb);

#endif
