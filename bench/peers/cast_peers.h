/* Peer adapters for continuous collision (bench_cast.h): established
 * libraries' shape casts run on the cases of tests/data/cast.cases, side by
 * side with mink_cast / mink_toi in mink-bench.
 *
 * A peer reports what its cast reports: hit or not, the fraction of the step
 * and (where it has one) the normal. It has no witness points mink's checker
 * could hold to the 1e-4 L surface rules, so bench_cast.c judges it on the
 * hit/miss and time rules (case_check_cast_time) and on the normal.
 *
 * Compiled only when the library was found (MINK_HAVE_BULLET). */
#ifndef MINK_BENCH_CAST_PEERS_H
#define MINK_BENCH_CAST_PEERS_H

#include <stddef.h>

#include "cases.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A peer's answer to one cast case, in mink's conventions. */
typedef struct peer_cast_answer {
    int    hit;         /* 1: within target at t; 0: no hit reported (a miss,
                           or the peer gave up: it cannot tell us which)      */
    double t;           /* fraction of the step, when hit                    */
    int    has_normal;  /* normal computed                                   */
    double normal[3];   /* unit, from A towards B, at t                      */
} peer_cast_answer;

/** One peer cast (a library and an algorithm). */
typedef struct peer_cast_api {
    const char *name;   /* benchmark implementation name, e.g. "bullet-ccd" */
    /** Builds the peer's shapes and the motions of cases[0..n) (the array
     *  must outlive the context; every case is a cast case). NULL on
     *  failure. Not timed. */
    void *(*prepare)(const mink_case *cases, size_t n);
    void (*release)(void *ctx);
    /** Casts case i once, for the check. Not timed. */
    void (*answer)(void *ctx, size_t i, peer_cast_answer *out);
    /** Timed: one cast per case, all n in order, nothing allocated by the
     *  adapter. Returns a sum of the answers so the work cannot be optimized
     *  away. */
    double (*pass)(void *ctx);
} peer_cast_api;

#ifdef MINK_HAVE_BULLET
/* "bullet-gjkcast": btGjkConvexCast (translation only: the rotations at
 * t = 0 are kept over the step); "bullet-ccd": btContinuousConvexCollision
 * (translation and rotation). See bullet_cast_peer.cc. */
extern const peer_cast_api peer_bullet_gjkcast;
extern const peer_cast_api peer_bullet_ccd;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MINK_BENCH_CAST_PEERS_H */
