/* Support mapping, scalar reference. All GJK/EPA work happens in A's local
 * frame: B is placed there once per query (rotation R, offset p). */
#ifndef MINK_SUPPORT_REF_H
#define MINK_SUPPORT_REF_H

#include "ref_math.h"
#include <stdint.h>

/* A support point of one shape's core with the feature index that produced
 * it (hull vertex, box corner bits zyx, capsule end 0/1, sphere 0). */
typedef struct ref_support { v3 p; uint32_t index; } ref_support;

/* Support of a shape's core (no radius) in its local frame, direction d. */
ref_support mink_scalar_support_local(const mink_shape *s, v3 d);
/* The core point of a feature index (the inverse of the mapping above). */
v3 mink_scalar_core_point(const mink_shape *s, uint32_t index);

/* The pair in A's frame. */
typedef struct ref_pair {
    const mink_shape *a, *b;
    m33 rot_b;      /* B local -> A local */
    v3 pos_b;       /* B's origin in A local */
    float scale;    /* S of tolerance.h */
    unsigned support_calls;
} ref_pair;

void mink_scalar_pair_init(ref_pair *pair, const mink_shape *a, const mink_pose *pa,
                   const mink_shape *b, const mink_pose *pb);

/* A point of the Minkowski difference D = B - A of the cores, with the two
 * support points and their feature indices. */
typedef struct ref_vertex {
    v3 w;          /* pb - pa */
    v3 pa, pb;     /* in A local */
    uint32_t ia, ib;
} ref_vertex;

/* The support of D in direction d: maximizes d.w. */
ref_vertex mink_scalar_support_pair(ref_pair *pair, v3 d);

#endif
