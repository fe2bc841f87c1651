/* Packing, checking and unpacking the per-pair cache. */
#include "cache.h"
#include "simd.h"

#include <math.h>
#include <string.h>

_Static_assert(CACHE_W_PAIR == 1 && CACHE_W_AXIS == 2 && CACHE_W_IA == 5 && CACHE_W_IB == 9 && CACHE_W_META == 13 &&
                   CACHE_W_FRAMES == 14,
               "mink_cache_store writes this layout");

int mink_cache_load_simplex(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    const uint32_t *w = c->opaque;
    const uint32_t count = w[CACHE_W_META] & 7u;
    const uint32_t na = mink_cache_feature_count(a), nb = mink_cache_feature_count(b);
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t ia = w[CACHE_W_IA + i], ib = w[CACHE_W_IB + i];
        st->ia[n] = ia;
        st->ib[n] = ib;
        if (ia < na && ib < nb) {
            ++n;
        } else if ((ia & ib) != CACHE_INNER_ID) { /* the centres' point (no support) is dropped: GJK starts from the rest */
            st->outcome = CACHE_EMPTY;
            return 0;
        }
    }
    st->count = n;
    return 1;
}

int mink_cache_load(const mink_cache *c, const mink_shape *a, const mink_shape *b, cache_state *st)
{
    return mink_cache_load_axis(c, a, b, st) && mink_cache_load_simplex(c, a, b, st);
}

/* The words built in registers and written in four 16-byte pieces, the
 * checksum summed from the values: words stored one by one and read back
 * wider stall store forwarding (in this query and the pair's next one). */
void mink_cache_store(mink_cache *c, const mink_shape *a, const mink_shape *b, const cache_state *st,
                      const cache_state *prev)
{
    if (!c) return;
    const uint32_t count = st->count > 4 ? 4 : st->count;
    uint32_t ia[4], ib[4]; /* unused points zero */
    for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t used = i < count ? ~0u : 0u; /* a mask, not a branch: whole-row loads */
        ia[i] = st->ia[i] & used;
        ib[i] = st->ib[i] & used;
    }
    const uint32_t pair = mink_cache_fingerprint(a, b);
    const uint32_t ax = mink_cache_float_bits(st->axis[0]), ay = mink_cache_float_bits(st->axis[1]);
    const uint32_t az = mink_cache_float_bits(st->axis[2]);
    const uint32_t meta = count | (st->outcome & 3u) << 3;
    const uint32_t frames =
        (prev && prev->outcome == st->outcome && prev->frames < 0xffffffffu) ? prev->frames + 1 : 1;
    uint32_t h = 0x2545f491u + pair * MINK_CACHE_KEY(CACHE_W_PAIR) + ax * MINK_CACHE_KEY(CACHE_W_AXIS) +
                 ay * MINK_CACHE_KEY(CACHE_W_AXIS + 1) + az * MINK_CACHE_KEY(CACHE_W_AXIS + 2) +
                 meta * MINK_CACHE_KEY(CACHE_W_META) + frames * MINK_CACHE_KEY(CACHE_W_FRAMES);
    for (int i = 0; i < 4; ++i) h += ia[i] * MINK_CACHE_KEY(CACHE_W_IA + i) + ib[i] * MINK_CACHE_KEY(CACHE_W_IB + i);
    uint32_t *w = c->opaque;
    u32x4_store(w + 0, h, pair, ax, ay);
    u32x4_store(w + 4, az, ia[0], ia[1], ia[2]);
    u32x4_store(w + 8, ia[3], ib[0], ib[1], ib[2]);
    u32x4_store(w + 12, ib[3], meta, frames, 0);
}

/* The feature state's words: the feature in the meta word above the
 * outcome, and in the simplex's words (CACHE_W_IA..CACHE_W_IB+3) and the spare one:
 * ids, separation, runner-up, pos[3], rot[3]. */
enum { F_IDS = CACHE_W_IA, F_SEP, F_RUNNER, F_POS, F_ROT = F_POS + 3 };
_Static_assert(F_ROT + 1 == CACHE_W_IB + 3, "rot[0..1] fill the simplex words, rot[2] the spare one");

static float word_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

int mink_cache_load_feature(const mink_cache *c, const mink_shape *a, const mink_shape *b, feature_state *fs)
{
    fs->feature = CACHE_FEATURE_NONE;
    if (!c) return 0;
    const uint32_t *w = c->opaque;
    if (w[CACHE_W_PAIR] != mink_cache_fingerprint(a, b) || w[CACHE_W_CHECK] != mink_cache_checksum(w)) return 0;
    const uint32_t meta = w[CACHE_W_META], feature = meta >> 5, outcome = (meta >> 3) & 3u;
    if ((meta & 7u) != 0 || feature < CACHE_FEATURE_FACE_A || feature > CACHE_FEATURE_EDGES ||
        (outcome != CACHE_SEPARATED && outcome != CACHE_OVERLAP))
        return 0;
    float v[12];
    for (int i = 0; i < 3; ++i) v[i] = word_float(w[CACHE_W_AXIS + i]);
    for (int i = 0; i < 8; ++i) v[3 + i] = word_float(w[F_SEP + i]);
    v[11] = word_float(w[CACHE_W_SPARE]);
    for (int i = 0; i < 12; ++i)
        if (!isfinite(v[i])) return 0;
    fs->feature = feature;
    fs->ia = w[F_IDS] & 0xffffu;
    fs->ib = w[F_IDS] >> 16;
    fs->outcome = outcome;
    fs->frames = w[CACHE_W_FRAMES];
    memcpy(fs->axis, v, sizeof fs->axis);
    fs->separation = v[3];
    fs->runner_up = v[4];
    memcpy(fs->pos, v + 5, sizeof fs->pos);
    fs->rot[0] = v[8], fs->rot[1] = v[9], fs->rot[2] = v[11];
    return 1;
}

void mink_cache_store_feature(mink_cache *c, const mink_shape *a, const mink_shape *b, const feature_state *fs,
                              const feature_state *prev)
{
    if (!c) return;
    uint32_t w[CACHE_W_END];
    w[CACHE_W_PAIR] = mink_cache_fingerprint(a, b);
    for (int i = 0; i < 3; ++i) w[CACHE_W_AXIS + i] = mink_cache_float_bits(fs->axis[i]);
    w[F_IDS] = (fs->ia & 0xffffu) | (fs->ib & 0xffffu) << 16;
    w[F_SEP] = mink_cache_float_bits(fs->separation);
    w[F_RUNNER] = mink_cache_float_bits(fs->runner_up);
    for (int i = 0; i < 3; ++i) w[F_POS + i] = mink_cache_float_bits(fs->pos[i]);
    w[F_ROT] = mink_cache_float_bits(fs->rot[0]);
    w[F_ROT + 1] = mink_cache_float_bits(fs->rot[1]);
    w[CACHE_W_SPARE] = mink_cache_float_bits(fs->rot[2]);
    w[CACHE_W_META] = (fs->outcome & 3u) << 3 | (fs->feature & 7u) << 5;
    const int same = prev && prev->feature == fs->feature && prev->outcome == fs->outcome && prev->frames < 0xffffffffu;
    w[CACHE_W_FRAMES] = same ? prev->frames + 1 : 1;
    w[CACHE_W_CHECK] = mink_cache_checksum(w);
    memcpy(c->opaque, w, sizeof w);
}
