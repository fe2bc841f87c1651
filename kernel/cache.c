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

/* A cheap word checksum: random garbage passes with odds 2^-32. */
static uint32_t checksum(const uint32_t *w)
{
    uint32_t h = 0x2545f491u;
    for (int i = 1; i < W_END; ++i) h = rotl(h, 5) ^ (w[i] * 0x9e3779b1u);
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

int mink_cache_load(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    memset(st, 0, sizeof *st);
    if (!c) return 0;
    const uint32_t *w = c->opaque;
    if (w[W_PAIR] != fingerprint(a, b) || w[W_CHECK] != checksum(w)) return 0;
    cache_state t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; ++i) memcpy(&t.axis[i], &w[W_AXIS + i], sizeof(float));
    t.count = w[W_META] & 7u;
    t.outcome = (w[W_META] >> 3) & 3u;
    t.frames = w[W_FRAMES];
    if (t.count > 4 || t.outcome > CACHE_OVERLAP) return 0;
    if (!isfinite(t.axis[0]) || !isfinite(t.axis[1]) || !isfinite(t.axis[2])) return 0;
    const uint32_t na = feature_count(a), nb = feature_count(b);
    for (uint32_t i = 0; i < t.count; ++i) {
        t.ia[i] = w[W_IA + i];
        t.ib[i] = w[W_IB + i];
        if (t.ia[i] >= na || t.ib[i] >= nb) return 0;
    }
    *st = t;
    return t.outcome != CACHE_EMPTY;
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
