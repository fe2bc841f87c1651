/* Peer adapters: established libraries run on the same case sets as mink, side
 * by side in mink-bench. Each adapter builds its own shapes from the case
 * file's double-precision description (outside the timing) and answers in
 * mink's conventions: signed scalar, unit normal from A towards B.
 *
 * An adapter is compiled only when its library was found (MINK_HAVE_CCD,
 * MINK_HAVE_BULLET, MINK_HAVE_FCL); bench_queries.c lists the ones present,
 * with the pairs each one takes (a group is timed for a peer only when it
 * takes every pair of the group). */
#ifndef MINK_BENCH_PEERS_H
#define MINK_BENCH_PEERS_H

#include <stddef.h>
#include "cases.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A peer's answer to one case, in mink's conventions. Peers report less than
 *  mink does (no witness points checked, sometimes no scalar), so each field
 *  says whether it was computed. */
typedef struct peer_answer {
    int    kind;        /* CASE_SEP, CASE_PEN, or -1 when the peer failed       */
    int    has_value;   /* value computed                                      */
    double value;       /* distance (sep) or depth (pen), >= 0                 */
    int    has_normal;  /* normal computed                                     */
    double normal[3];   /* unit, from A towards B: translating B by
                           depth * normal separates a pen pair                 */
} peer_answer;

/** One peer implementation (a library and an algorithm choice). */
typedef struct peer_api {
    const char *name;        /* benchmark implementation name, e.g. "ccd-mpr"   */
    unsigned queries;        /* bit (1u << CASE_QUERY_x) per query it answers   */
    int pen_sep_value;       /* 1 if its penetration query also reports the
                                distance of separated pairs (else: kind only)   */
    /** Builds the peer's shapes and poses for cases[0..n) (the array must
     *  outlive the context). NULL on failure. Not timed. */
    void *(*prepare)(const mink_case *cases, size_t n);
    void (*release)(void *ctx);
    /** Answers case i once, for the correctness check. Not timed. */
    void (*answer)(void *ctx, size_t i, int query, peer_answer *out);
    /** Timed: one query per case, all n cases in order, nothing allocated by
     *  the adapter. Returns a sum of the answers so the work cannot be
     *  optimized away. */
    double (*pass)(void *ctx, int query);
} peer_api;

/** A peer's contact manifolds (bench_manifold.h): answers in mink's struct
 *  and conventions (normal from A towards B; point_b - point_a = separation
 *  * normal; at most MINK_MANIFOLD_POINTS points; keys distinct), so
 *  case_check_manifold checks peers and mink by the same rules. */
typedef struct peer_manifold_api {
    const char *name;        /* implementation name, e.g. "bullet"               */
    /** 1 if the peer's manifold algorithms take this pair (a group is timed
     *  only when they take every pair of it). */
    int (*supports)(const mink_case *c);
    /** Builds the shapes of cases[0..n) (every one supported; the array must
     *  outlive the context) for manifolds at `margin`. NULL on failure. Not
     *  timed. */
    void *(*prepare)(const mink_case *cases, size_t n, double margin);
    void (*release)(void *ctx);
    /** Case i's manifold, for the check. Not timed. */
    void (*answer)(void *ctx, size_t i, struct mink_manifold *out);
    /** Timed: every case's manifold once, in order. Returns a sum of the
     *  answers so the work cannot be optimized away. */
    double (*pass)(void *ctx);
} peer_manifold_api;

/** Row-major rotation matrix of a case pose's quaternion (w x y z),
 *  normalized first (the case files print 17 digits; the norm is 1 to ~1e-16). */
static inline void peer_rotation(const double q[4], double m[9])
{
    double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    double s = n > 0.0 ? 2.0 / n : 0.0;
    double w = q[0], x = q[1], y = q[2], z = q[3];
    m[0] = 1.0 - s * (y * y + z * z); m[1] = s * (x * y - w * z);       m[2] = s * (x * z + w * y);
    m[3] = s * (x * y + w * z);       m[4] = 1.0 - s * (x * x + z * z); m[5] = s * (y * z - w * x);
    m[6] = s * (x * z - w * y);       m[7] = s * (y * z + w * x);       m[8] = 1.0 - s * (x * x + y * y);
}

#ifdef MINK_HAVE_CCD
extern const peer_api peer_ccd_gjk;  /* "ccd": GJK intersect, GJK+EPA penetration */
extern const peer_api peer_ccd_mpr;  /* "ccd-mpr": MPR intersect and penetration   */
#endif
#ifdef MINK_HAVE_BULLET
extern const peer_api peer_bullet;   /* "bullet": btGjkPairDetector (+ GJK-EPA)    */
/* "bullet-gjkepa2": btGjkEpaSolver2::Distance and ::Penetration, directly */
extern const peer_api peer_bullet_gjkepa2;
/* "bullet": btBoxBoxDetector, btPolyhedralContactClipping (box and hull pairs);
 * "bullet-gjk": the same with GJK/EPA's normal for hulls (Bullet's default) */
extern const peer_manifold_api peer_bullet_manifold;
extern const peer_manifold_api peer_bullet_gjk_manifold;
#endif

#ifdef MINK_HAVE_FCL
extern const peer_api peer_fcl_indep; /* "fcl-indep": GJKSolver_indep (GJK, EPA)     */
extern const peer_api peer_fcl_ccd;   /* "fcl-ccd": GJKSolver_libccd (GJK, EPA, MPR)  */
/** 1 if FCL takes the case's pair: no rounded boxes or hulls (FCL has no
 *  margin). */
int peer_fcl_supports(const mink_case *c);
#endif

#ifdef __cplusplus
}
#endif

#endif /* MINK_BENCH_PEERS_H */
