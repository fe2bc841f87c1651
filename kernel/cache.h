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
#include "simd.h"

#include <float.h>
#include <string.h>

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
    uint32_t frames;      /* stores of the same outcome in a row, and held    */
                          /* manifolds (a held intersect writes nothing)      */
} cache_state;

/* The words: a checksum over the rest, the fingerprint, axis x y z, the
 * simplex's ids of A and B, meta (count | outcome << 3 | feature << 5),
 * frames, a spare word (the feature state's). */
enum {
    CACHE_W_CHECK = 0, CACHE_W_PAIR, CACHE_W_AXIS, CACHE_W_IA = CACHE_W_AXIS + 3, CACHE_W_IB = CACHE_W_IA + 4,
    CACHE_W_META = CACHE_W_IB + 4, CACHE_W_FRAMES, CACHE_W_SPARE, CACHE_W_END
};
_Static_assert(CACHE_W_END == 16, "cache state fills mink_cache");

/* Word i's odd constant in the checksum. */
#define MINK_CACHE_KEY(i) (0x9e3779b1u + 2u * (uint32_t)(i) * 0x61c88647u)

MINK_INLINE uint32_t mink_cache_float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* What makes a cache belong to a pair: the cores' kinds and sizes (the
 * extent summarizes a hull's points, the half extents a box or capsule),
 * each word times its own odd constant (independent products: the held
 * path waits on no chain). Odd, never 0: a zeroed cache never matches. */
MINK_INLINE uint32_t mink_cache_fingerprint(const mink_shape *a, const mink_shape *b)
{
    return (0x6d696e6bu + (a->type | a->count << 4) * 0x9e3779b1u +
            mink_cache_float_bits(a->extent + a->half[1]) * 0x85ebca77u + (b->type | b->count << 4) * 0xc2b2ae3du +
            mink_cache_float_bits(b->extent + b->half[1]) * 0x27d4eb2fu) |
           1u;
}

/* A word checksum, linear so that one word can be updated in O(1): the sum
 * of every other word times its own odd constant, four words at a time.
 * Random garbage passes with odds 2^-32 (and must also carry the pair's
 * fingerprint). */
MINK_INLINE uint32_t mink_cache_checksum(const uint32_t *w)
{
#define K_ MINK_CACHE_KEY
    /* word 0 (the checksum itself) masked out, not multiplied by 0: a
     * caller summing before it sets that word reads nothing undefined */
    const u32x4 w0 = u32x4_and(u32x4_load(w), u32x4_set(0, ~0u, ~0u, ~0u));
    const u32x4 s0 = u32x4_mul(w0, u32x4_set(0, K_(1), K_(2), K_(3)));
    const u32x4 s1 = u32x4_mul(u32x4_load(w + 4), u32x4_set(K_(4), K_(5), K_(6), K_(7)));
    const u32x4 s2 = u32x4_mul(u32x4_load(w + 8), u32x4_set(K_(8), K_(9), K_(10), K_(11)));
    const u32x4 s3 = u32x4_mul(u32x4_load(w + 12), u32x4_set(K_(12), K_(13), K_(14), K_(15)));
#undef K_
    return 0x2545f491u + u32x4_sum(u32x4_add(u32x4_add(s0, s1), u32x4_add(s2, s3)));
}

/* The id pair (ia = ib = this) of a simplex point that is no support: the
 * cores' centres' difference, where the intersect's boolean search starts
 * (a point of D). A load drops it; the held overlap test rebuilds it. */
#define CACHE_INNER_ID UINT32_MAX

/* How many core feature ids a shape has: the range of a cached id (hull
 * vertex, box corner, capsule end; a sphere's one point). */
MINK_INLINE uint32_t mink_cache_feature_count(const mink_shape *s)
{
    switch (s->type) {
    case MINK_SHAPE_BOX: return 8;
    case MINK_SHAPE_CAPSULE: return 2;
    case MINK_SHAPE_HULL: return s->count;
    default: return 1;
    }
}

/* The axis words as a vector, pad 0 (once mink_cache_outcome found a state).
 * Not one 16-byte load: the axis straddles two 16-byte pieces of the cache,
 * and a load across two recent stores (a cache just copied or written)
 * waits for both instead of taking their values forwarded. */
MINK_INLINE v4 mink_cache_axis(const mink_cache *c) { return v4_from_words3(c->opaque + CACHE_W_AXIS); }

/* Reads a cache for the pair (a, b); returns 0 (and an empty state) when the
 * cache is NULL, empty, foreign or corrupt. The state is only meaningful
 * when it returns 1 (outcome and count are always set). */
int mink_cache_load(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st);

/* The checks of a load alone, inline (a pair still apart needs nothing
 * else from its cache): the outcome of the state c holds for the pair
 * (a, b), CACHE_EMPTY when it holds none (NULL, empty, foreign, corrupt).
 * Its axis may still be non-finite (mink_cache_axis_state checks). */
MINK_INLINE uint32_t mink_cache_outcome(const mink_cache *c, const mink_shape *a, const mink_shape *b)
{
    if (!c) return CACHE_EMPTY;
    const uint32_t *w = c->opaque;
    if (w[CACHE_W_PAIR] != mink_cache_fingerprint(a, b) || w[CACHE_W_CHECK] != mink_cache_checksum(w))
        return CACHE_EMPTY;
    const uint32_t meta = w[CACHE_W_META], count = meta & 7u, outcome = (meta >> 3) & 3u;
    /* a feature state has count 0: its axis and outcome read the same */
    if (count > 4 || outcome > CACHE_OVERLAP || (count > 0 && (meta >> 5) != 0)) return CACHE_EMPTY;
    return outcome;
}

/* The state of mink_cache_load_axis from the outcome mink_cache_outcome
 * gave for c; empty when the axis is not finite (within +-FLT_MAX: a NaN
 * is not). */
MINK_INLINE int mink_cache_axis_state(const mink_cache *c, uint32_t outcome, cache_state *st)
{
    st->outcome = CACHE_EMPTY;
    st->count = 0;
    if (outcome == CACHE_EMPTY) return 0;
    const v4 axis = mink_cache_axis(c);
    if (!v4_all(v4_and(v4_cmpge(axis, v4_splat(-FLT_MAX)), v4_cmpge(v4_splat(FLT_MAX), axis)))) return 0;
    memcpy(st->axis, c->opaque + CACHE_W_AXIS, sizeof st->axis);
    st->frames = c->opaque[CACHE_W_FRAMES];
    st->outcome = outcome;
    return 1;
}

/* mink_cache_load in two steps, for a caller that may need only the axis:
 * the checks, outcome and axis (count 0), then, only after the first
 * returned 1, the simplex (a bad index empties the state, returns 0). */
MINK_INLINE int mink_cache_load_axis(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    return mink_cache_axis_state(c, mink_cache_outcome(c, a, b), st);
}

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

/* Whether c holds an axis with the outcome "separated": the one read of
 * mink_intersect's held test. No checksum and no fingerprint: that test
 * trusts nothing it reads (an axis that separates the shapes at the new
 * poses proves they are apart, whichever pair wrote it; a non-finite one
 * never passes), and it writes nothing back. Loads that seed GJK, EPA or a
 * manifold check everything (mink_cache_outcome). */
MINK_INLINE int mink_cache_may_separate(const mink_cache *c)
{
    return c && ((c->opaque[CACHE_W_META] >> 3) & 3u) == CACHE_SEPARATED;
}

/* Whether c holds a simplex with the outcome "overlapping": the one read
 * of mink_intersect's held overlap test, which, as the held axis's,
 * trusts nothing else it reads (points of the cores' difference around
 * the origin, or within the radii of it, prove the shapes overlap,
 * whichever pair wrote their ids; an id out of range fails the test). */
MINK_INLINE int mink_cache_may_overlap(const mink_cache *c)
{
    if (!c) return 0;
    const uint32_t meta = c->opaque[CACHE_W_META];
    return (meta & ~7u) == (uint32_t)CACHE_OVERLAP << 3 && (meta & 7u) != 0 && (meta & 7u) <= 4;
}

/* The state a successful load found held one more query unchanged: counts
 * the frame, nothing else. Only after mink_cache_load returned 1 on c. */
MINK_INLINE void mink_cache_held(mink_cache *c)
{
    if (!c) return;
    uint32_t *w = c->opaque;
    const uint32_t frames = w[CACHE_W_FRAMES] < 0xffffffffu ? w[CACHE_W_FRAMES] + 1 : w[CACHE_W_FRAMES];
    w[CACHE_W_CHECK] += (frames - w[CACHE_W_FRAMES]) * MINK_CACHE_KEY(CACHE_W_FRAMES);
    w[CACHE_W_FRAMES] = frames;
}

#endif
