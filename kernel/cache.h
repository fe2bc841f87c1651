/* The per-pair cache (mink_cache) behind its opaque words: what a query
 * leaves for the next query of the same pair. Shared by both kernels.
 *
 * Layout, 16 words: a checksum over the rest, the pair's fingerprint (shape
 * types and sizes), the last axis in A's local frame, the last simplex as
 * core feature indices of A and B (hull vertex, box corner zyx bits,
 * capsule end), the point count, the last outcome and how many queries in
 * a row it has held. Anything that fails to check out (checksum, fingerprint,
 * non-finite axis, an index out of range) is treated as an empty cache. */
#ifndef MINK_CACHE_H
#define MINK_CACHE_H

#include "mink/mink.h"

typedef enum cache_outcome {
    CACHE_EMPTY = 0,
    CACHE_SEPARATED = 1,  /* the axis separates the shapes (rounded ones too) */
    CACHE_OVERLAP = 2     /* the simplex held the origin; axis = contact normal */
} cache_outcome;

typedef struct cache_state {
    float axis[3];        /* A local frame; not unit                          */
    uint32_t ia[4], ib[4];
    uint32_t count;       /* simplex points, 0..4                             */
    uint32_t outcome;     /* cache_outcome                                    */
    uint32_t frames;      /* consecutive queries with the same outcome        */
} cache_state;

/* Reads a cache for the pair (a, b); returns 0 (and an empty state) when the
 * cache is NULL, empty, foreign or corrupt. The state is only meaningful
 * when it returns 1 (outcome and count are always set). */
int mink_cache_load(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st);
/* mink_cache_load in two steps, for a caller that may need only the axis:
 * the checks, outcome and axis (count 0), then, only after the first
 * returned 1, the simplex (a bad index empties the state, returns 0). */
int mink_cache_load_axis(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st);
int mink_cache_load_simplex(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st);
/* Writes a state; `prev` is what the load found (frames count on when the
 * outcome repeats). */
void mink_cache_store(mink_cache *c, const mink_shape *a, const mink_shape *b, const cache_state *st,
                      const cache_state *prev);

/* The manifold's deciding feature (mink_manifold), in the same 16 words:
 * the axis and outcome where the GJK state keeps them (so the other
 * queries of the pair can start from the axis), the simplex count 0, and
 * in the simplex's words the feature, its separation, the best separation
 * of any other feature, and the relative pose at the full test. */
typedef enum cache_feature {
    CACHE_FEATURE_NONE = 0,   /* the GJK state above (or nothing)               */
    CACHE_FEATURE_FACE_A = 1, /* a face of A against B's support                */
    CACHE_FEATURE_FACE_B = 2, /* a face of B against A's support                */
    CACHE_FEATURE_EDGES = 3   /* an edge of A and an edge of B (their arcs)     */
} cache_feature;

typedef struct feature_state {
    uint32_t feature;     /* cache_feature                                     */
    uint32_t ia, ib;      /* face or arc indices, each below 0x10000           */
    uint32_t outcome;     /* CACHE_SEPARATED: the feature separated by more than
                             the margin; CACHE_OVERLAP: it decided contacts     */
    uint32_t frames;
    float axis[3];        /* unit, A frame, from A towards B                   */
    float separation;     /* the feature's core separation at the full test    */
    float runner_up;      /* the largest separation of any other feature then  */
    float pos[3];         /* B's origin in A's frame then                       */
    float rot[3];         /* x y z of B's rotation in A's frame then, w >= 0    */
} feature_state;

/* 1 and the state when c holds a feature of this pair, else 0. */
int mink_cache_load_feature(const mink_cache *c, const mink_shape *a, const mink_shape *b, feature_state *fs);
/* Writes a feature state (frames counted on from prev when it repeats). */
void mink_cache_store_feature(mink_cache *c, const mink_shape *a, const mink_shape *b, const feature_state *fs,
                              const feature_state *prev);

/* The state a successful load found held one more query unchanged: counts
 * the frame, nothing else. Only after mink_cache_load returned 1 on c. */
void mink_cache_held(mink_cache *c);

#endif
