/* Packing, checking and unpacking the per-pair cache. */
#include "cache.h"

#include <math.h>
#include <string.h>

enum { W_CHECK = 0, W_PAIR, W_AXIS, W_IA = W_AXIS + 3, W_IB = W_IA + 4, W_META = W_IB + 4, W_FRAMES, W_END };
_Static_assert(W_END <= 16, "cache state must fit mink_cache");

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint32_t rotl(uint32_t x, unsigned k) { return (x << k) | (x >> (32u - k)); }

/* What makes a cache belong to a pair: the cores' kinds and sizes (the
 * extent summarizes a hull's points, the half extents a box or capsule). */
static uint32_t fingerprint(const mink_shape *a, const mink_shape *b)
{
    uint32_t h = 0x6d696e6bu;
    h = rotl(h ^ (a->type | a->count << 4), 5) * 0x9e3779b1u;
    h = rotl(h ^ float_bits(a->extent + a->half[1]), 7) * 0x85ebca77u;
    h = rotl(h ^ (b->type | b->count << 4), 11) * 0x9e3779b1u;
    h = rotl(h ^ float_bits(b->extent + b->half[1]), 13) * 0x85ebca77u;
    return h | 1u; /* never 0: a zeroed cache never matches */
}

/* A word checksum, linear so that one word can be updated in O(1): the sum
 * of every word times its own odd constant. Random garbage passes with odds
 * 2^-32 (and must also carry the pair's fingerprint). */
static uint32_t word_key(int i) { return 0x9e3779b1u + 2u * (uint32_t)i * 0x61c88647u; }

static uint32_t checksum(const uint32_t *w)
{
    uint32_t h = 0x2545f491u;
    for (int i = 1; i < W_END; ++i) h += w[i] * word_key(i);
    return h;
}

static uint32_t feature_count(const mink_shape *s)
{
    switch (s->type) {
    case MINK_SHAPE_BOX: return 8;
    case MINK_SHAPE_CAPSULE: return 2;
    case MINK_SHAPE_HULL: return s->count;
    default: return 1;
    }
}

int mink_cache_load_axis(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    st->outcome = CACHE_EMPTY;
    st->count = 0;
    if (!c) return 0;
    const uint32_t *w = c->opaque;
    if (w[W_PAIR] != fingerprint(a, b) || w[W_CHECK] != checksum(w)) return 0;
    const uint32_t count = w[W_META] & 7u, outcome = (w[W_META] >> 3) & 3u;
    if (count > 4 || outcome > CACHE_OVERLAP) return 0;
    for (int i = 0; i < 3; ++i) memcpy(&st->axis[i], &w[W_AXIS + i], sizeof(float));
    if (!isfinite(st->axis[0]) || !isfinite(st->axis[1]) || !isfinite(st->axis[2])) return 0;
    st->frames = w[W_FRAMES];
    st->outcome = outcome;
    return outcome != CACHE_EMPTY;
}

int mink_cache_load_simplex(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    const uint32_t *w = c->opaque;
    const uint32_t count = w[W_META] & 7u;
    const uint32_t na = feature_count(a), nb = feature_count(b);
    for (uint32_t i = 0; i < count; ++i) {
        st->ia[i] = w[W_IA + i];
        st->ib[i] = w[W_IB + i];
        if (st->ia[i] >= na || st->ib[i] >= nb) {
            st->outcome = CACHE_EMPTY;
            return 0;
        }
    }
    st->count = count;
    return 1;
}

int mink_cache_load(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    return mink_cache_load_axis(c, a, b, st) && mink_cache_load_simplex(c, a, b, st);
}

void mink_cache_held(mink_cache *c)
{
    if (!c) return;
    uint32_t *w = c->opaque;
    const uint32_t frames = w[W_FRAMES] < 0xffffffffu ? w[W_FRAMES] + 1 : w[W_FRAMES];
    w[W_CHECK] += (frames - w[W_FRAMES]) * word_key(W_FRAMES);
    w[W_FRAMES] = frames;
}

void mink_cache_store(mink_cache *c, const mink_shape *a, const mink_shape *b, const cache_state *st,
                      const cache_state *prev)
{
    if (!c) return;
    uint32_t *w = c->opaque;
    memset(w, 0, sizeof c->opaque);
    w[W_PAIR] = fingerprint(a, b);
    for (int i = 0; i < 3; ++i) memcpy(&w[W_AXIS + i], &st->axis[i], sizeof(float));
    const uint32_t count = st->count > 4 ? 4 : st->count;
    for (uint32_t i = 0; i < count; ++i) {
        w[W_IA + i] = st->ia[i];
        w[W_IB + i] = st->ib[i];
    }
    w[W_META] = count | (st->outcome & 3u) << 3;
    w[W_FRAMES] = (prev && prev->outcome == st->outcome && prev->frames < 0xffffffffu) ? prev->frames + 1 : 1;
    w[W_CHECK] = checksum(w);
}
