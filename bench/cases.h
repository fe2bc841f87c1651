/* Query case files (format v1, tests/data/FORMAT.md): parser and checkers
 * (queries and contact manifolds).
 * Shared by the mink-cases tool, the tests, the benchmarks and the fuzzers. */
#ifndef MINK_CASES_H
#define MINK_CASES_H

#include <stddef.h>
#include <stdio.h>
#include "mink/mink.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One shape as the case file wrote it (double precision, for peers). */
typedef struct case_shape {
    int type;            /* a mink_shape_type                                  */
    double radius;
    double param[3];     /* capsule: h in param[0]; box: hx hy hz              */
    unsigned n;          /* hull: number of points                             */
    double *pts;         /* hull: 3n doubles (AoS), owned by the case set      */
} case_shape;

typedef struct case_pose { double p[3]; double q[4]; /* w x y z */ } case_pose;

enum case_kind { CASE_SEP = 0, CASE_PEN = 1, CASE_HIT = 2, CASE_MISS = 3 };

/** One query with its exact expectation. */
typedef struct mink_case {
    const char *id;          /* owned by the set                                  */
    case_shape sa, sb;       /* as written                                        */
    case_pose  qa, qb;       /* as written                                        */
    mink_shape a, b;         /* ready for queries (hull memory owned by the set)  */
    mink_pose  pa, pb;
    int kind;                /* CASE_SEP or CASE_PEN                              */
    double value;            /* distance (sep) or depth (pen), >= 0               */
    double normal[3];        /* unit, or 0 0 0 when not unique                    */
    double L;                /* FORMAT.md tolerance scale                         */
    double tol, near;        /* the checkers' bands: 1e-4 L and 1e-3 L, or the    */
                             /* local rule (case_set_use_local_tolerance)         */
    unsigned patch_count;    /* manifold cases: the exact contact patch, k points */
    const double *patch;     /* (3k doubles, AoS, world space, owned by the set); */
                             /* 0 and NULL when the line has none                 */
    /* cast cases (FORMAT.md, "Casts"): qa, qb are the poses at t = 0 and
     * qa1, qb1 at t = 1; kind CASE_HIT (value = t, normal) or CASE_MISS
     * (value = dmin, normal 0); L over both shapes at both poses */
    int is_cast;
    case_pose qa1, qb1;
    mink_pose pa1, pb1;
    double target;
} mink_case;

typedef struct case_set {
    mink_case *cases;
    size_t count;
    void *arena;             /* private */
} case_set;

/** Parses case-file text: query lines, and cast lines (FORMAT.md, "Casts":
 *  a shape followed by two poses), told apart line by line. On error returns -1 and writes a message naming the
 *  line number into err; never crashes on arbitrary bytes. 0 on success. */
int case_set_parse(const char *text, size_t len, case_set *out, char *err, size_t errlen);
/** Reads and parses a file. */
int case_set_load(const char *path, case_set *out, char *err, size_t errlen);
void case_set_free(case_set *set);

/** Switches every case of a set to FORMAT.md's "Local tolerance" rule:
 *  tol = max(1e-4 l, 16 eps M), near = max(1e-3 l, 2 tol), with l the smaller
 *  shape's size (largest |local core coordinate| plus radius) and M the
 *  largest |world core coordinate| plus radius over both shapes (both poses
 *  of a cast), eps = 2^-24. The default is tol = 1e-4 L, near = 1e-3 L. */
void case_set_use_local_tolerance(case_set *set);

/** The group of an id: the part before the last '.', or before the last '/'
 *  for trajectory frames. Writes at most n bytes including the NUL. */
void case_group(const char *id, char *group, size_t n);

/** Which query produced a result; decides what the checker compares. */
enum case_query { CASE_QUERY_INTERSECT = 0, CASE_QUERY_DISTANCE = 1, CASE_QUERY_PENETRATION = 2 };

/** Checks a result against the expectation with the case's tolerances and
 *  the witness consistency rules. Returns 1 if it passes; otherwise 0 with a
 *  reason in why. For CASE_QUERY_INTERSECT only r->distance's sign is used
 *  (> 0 separated, <= 0 overlapping). */
int case_check(const mink_case *c, int query, const mink_result *r, char *why, size_t whylen);

/* An overlapping distance answer (r->distance <= 0) gives a common point:
 * point_a = point_b, within tol of both shapes (the reference's distance
 * from the point, a sphere of radius 0). case_check asks this at FORMAT.md's
 * 1e-4 L; returns 1 or 0 with the reason in why. */
int case_check_common_point(const mink_case *c, const mink_result *r, double tol, char *why, size_t whylen);

/* The measurement behind it, for shapes outside a case: gap[0], gap[1] = the
 * point's distance from A and from B. Returns 0, -1 when point_a != point_b,
 * -2 when the point cannot be queried (past MINK_MAX_MAGNITUDE). */
int case_common_point_gaps(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                           const mink_result *r, double gap[2]);

/** Prints one results-format line (FORMAT.md): "<id> sep|pen ..." or "<id> err <status>".
 *  A distance or intersect query prints an overlapping pair as pen 0. */
void case_print_result(FILE *f, const mink_case *c, int query, const mink_result *r);

/** Support function of a case shape in world space, in double precision:
 *  max over the shape of dot(d, p) (radius included). For checkers and peers. */
double case_support_h(const case_shape *s, const case_pose *q, const double d[3]);

/** Largest hull point count the parser accepts (the kernel's own limit). */
#define CASE_MAX_HULL_POINTS (1u << 24)

/** Which implementation answers a query. */
enum case_kernel { CASE_KERNEL_REF = 0, CASE_KERNEL_SIMD = 1 };

/** Runs one case: mink_ref_* (CASE_KERNEL_REF) or mink_* (CASE_KERNEL_SIMD),
 *  query a case_query; `cache` may be NULL. An intersect query is translated
 *  into a result: distance 1 when separated, 0 when overlapping, the rest
 *  zero; status MINK_ERR_INVALID when it failed. Returns r->status. */
mink_status case_run(const mink_case *c, int kernel, int query, mink_cache *cache, mink_result *r);

/* ---- contact manifolds (FORMAT.md, "Manifolds") */

/** Runs mink_ref_manifold (CASE_KERNEL_REF) or mink_manifold (CASE_KERNEL_SIMD)
 *  on a case at `margin`; `cache` may be NULL. Returns m->status. */
mink_status case_run_manifold(const mink_case *c, int kernel, float margin, mink_cache *cache, struct mink_manifold *m);

/** Checks a manifold computed at `margin` against the case's expectation and
 *  patch with FORMAT.md's rules and tolerances (tol 1e-4 L, near 1e-3 L).
 *  Returns 1 if it passes; otherwise 0 with the rule and numbers in why. */
int case_check_manifold(const mink_case *c, double margin, const struct mink_manifold *m, char *why, size_t whylen);

/** Prints one manifold results line: "<id> man <count> <n> {<pa> <pb> <separation> <key>} x count"
 *  or "<id> err <status>". */
void case_print_manifold(FILE *f, const mink_case *c, const struct mink_manifold *m);

/* ---- continuous collision (FORMAT.md, "Casts") */

/** Runs a cast case: mink_cast / mink_ref_cast where both rotations are
 *  constant (da = pA1 - pA0, db = pB1 - pB0), otherwise mink_toi /
 *  mink_ref_toi with the shapes turning about their local origins.
 *  Returns what the query returned (1 hit, 0 miss, < 0 error). */
int case_run_cast(const mink_case *c, int kernel, mink_cast_result *r);

/** A cast case's arguments as case_run_cast passes them: the poses at
 *  t = 0 and the translations (differences in double, rounded once) for
 *  mink_cast, the sweeps about the local origins for mink_toi. Timed loops
 *  build these before they start. */
typedef struct case_cast_input {
    const mink_shape *a, *b;
    mink_pose pa, pb;     /* linear: the poses at t = 0           */
    mink_vec3 da, db;     /* linear: the translations of the step */
    mink_sweep sa, sb;    /* rotating: the motions                */
    float target;
    int linear;           /* case_cast_is_linear                  */
} case_cast_input;

case_cast_input case_cast_input_of(const mink_case *c);

/** 1 when the case's rotations are constant (a linear cast). */
int case_cast_is_linear(const mink_case *c);

/** The case's poses at time t (FORMAT.md's motion), in double. */
void case_cast_poses(const mink_case *c, double t, case_pose *qa, case_pose *qb);

/** V of FORMAT.md: the longest path any core point of B travels in A's
 *  moving frame over the step (sampled finely). */
double case_cast_travel(const mink_case *c);

/** Checks a cast answer (rc, what case_run_cast returned, and r) with
 *  FORMAT.md's rules at tol = 1e-4 L. 1 if it passes, else 0 with why. */
int case_check_cast(const mink_case *c, int rc, const mink_cast_result *r, char *why, size_t whylen);

/** Only the hit/miss and time part of case_check_cast, for answers without
 *  witnesses (peers): hit 0 passes on an expected miss or a graze; hit 1 at
 *  t passes when |t - t_expected| V <= tol = 1e-4 L, or on a graze (FORMAT.md's
 *  "either answer"). 1 if it passes, else 0 with why. */
int case_check_cast_time(const mink_case *c, int hit, double t, char *why, size_t whylen);

/** Prints one cast results line: "<id> hit t n pa pb", "<id> miss" or "<id> err <status>". */
void case_print_cast(FILE *f, const mink_case *c, int rc, const mink_cast_result *r);

#ifdef __cplusplus
}
#endif

#endif
