/* Batch entry points: one answer per pair, in input order.
 *
 * Data-oriented inside. The pairs are scanned once and sorted by kind:
 *   - pairs of primitives (sphere, capsule, box, rounded or not) go to a
 *     structure-of-arrays staging buffer of their kind (batch_lanes.h:
 *     LANE_CAP pairs, on the stack, no heap): sphere/capsule pairs, sphere
 *     vs box, box or capsule vs box or capsule. A full buffer runs its
 *     lane-parallel kernel (one pair per SIMD lane), which validates the
 *     staged fields with mink_check_query's rules (finite, non-negative
 *     sizes, unit quaternion within 1e-3, normalized the same way) and
 *     answers; the answers are scattered back to the pairs' own slots;
 *   - everything else (a hull, a NULL shape, an unknown type; and, for the
 *     intersect on 4-lane builds, boxes with boxes or capsules:
 *     intersect_in_lanes) runs the per-pair query (mink_penetration /
 *     mink_intersect, SIMD inside the query, which validates it) at once.
 * At the end the partly filled buffers run with their tail lanes padded
 * (copies of a real pair, answers discarded). An invalid pair answers
 * MINK_ERR_INVALID with an all-zero result and disturbs nothing else.
 * Lanes a kernel cannot answer exactly (separated boxes whose closest points
 * do not certify within a few rounds or lie closer than MINK_DOUBLE_NEAR_REL
 * of the scale, where the per-pair query answers in double; overlap
 * witnesses that fail their check; rounded boxes whose cores are closer
 * than the radii and do not certify) are answered by the per-pair query of
 * the same pair: about 0.1 % of random box pairs, a third of the box lanes
 * of scenes.cases (resting and near contacts).
 *
 * Answers equal the per-pair query's within the query tolerance (the lane
 * kernels are exact closed forms, or certified to ~1e-6 of the scale as GJK
 * is), pair for pair; within the touching band either sign may come out, as
 * with the single queries.
 *
 * Caches: a pair answered by a lane kernel neither reads nor writes its
 * cache (the closed forms need no warm start; the cache keeps what the last
 * per-pair query stored, which stays valid: a stale cache only costs time).
 * A pair answered by the per-pair query (hull pairs, undecided lanes) uses
 * and updates its cache exactly as mink_penetration / mink_intersect do.
 * Pairs may share shapes; two pairs of one call should not share a cache
 * (harmless single-threaded, a data race in the _mt variants).
 *
 * Counters: a lane answer reports iterations = gjk_iterations =
 * support_calls = 0 (no GJK, no support mapping); status MINK_OK.
 *
 * Multi-core: the _mt variants split the array into contiguous chunks, one
 * per thread (POSIX threads, started and joined in the call), each running
 * the single-threaded batch; a pair's answer does not depend on its
 * neighbours or its lane, so the answers equal the single-threaded batch's
 * bit for bit. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif

#include "mink/mink.h"
#include "batch_lanes.h"
#include "shape.h"

#include <string.h>

#if !defined(_WIN32)
#include <pthread.h>
#define MINK_HAVE_PTHREADS 1
#else
#define MINK_HAVE_PTHREADS 0
#endif

/* ------------------------------------------------------------ staging */

typedef struct stage {
    lane_in in;
    size_t index[LANE_CAP];        /* the pair's slot in the caller's arrays */
    unsigned char swap[LANE_CAP];  /* point-box: the sphere is A             */
    size_t count;
} stage;

/* The lane kind of a pair; swap set when the kernel wants the shapes the
 * other way round. -1: the per-pair query (a hull, a NULL shape, a type
 * that is no primitive: the query validates and answers it). */
static int pair_kind(const mink_shape *a, const mink_shape *b, int *swap)
{
    *swap = 0;
    if (!a || !b) return -1;
    const uint32_t ta = a->type, tb = b->type;
    const int round_a = ta == MINK_SHAPE_SPHERE || ta == MINK_SHAPE_CAPSULE;
    const int round_b = tb == MINK_SHAPE_SPHERE || tb == MINK_SHAPE_CAPSULE;
    if (round_a && round_b) return LANE_ROUND;
    if (ta == MINK_SHAPE_BOX && tb == MINK_SHAPE_SPHERE) return LANE_POINT_BOX;
    if (ta == MINK_SHAPE_SPHERE && tb == MINK_SHAPE_BOX) {
        *swap = 1;
        return LANE_POINT_BOX;
    }
    if ((ta == MINK_SHAPE_BOX || ta == MINK_SHAPE_CAPSULE) && (tb == MINK_SHAPE_BOX || tb == MINK_SHAPE_CAPSULE))
        return LANE_BOX;
    return -1;
}

/* Stages a pair's fields as written (the kernels validate them in lanes,
 * with mink_check_query's rules). */
static void stage_put(stage *st, size_t index, int swap, const mink_shape *a, const mink_pose *pa,
                      const mink_shape *b, const mink_pose *pb)
{
    const size_t l = st->count++;
    float (*f)[LANE_CAP] = st->in.f;
    f[LI_PAX][l] = pa->p.x;
    f[LI_PAY][l] = pa->p.y;
    f[LI_PAZ][l] = pa->p.z;
    f[LI_QAX][l] = pa->q.x;
    f[LI_QAY][l] = pa->q.y;
    f[LI_QAZ][l] = pa->q.z;
    f[LI_QAW][l] = pa->q.w;
    f[LI_PBX][l] = pb->p.x;
    f[LI_PBY][l] = pb->p.y;
    f[LI_PBZ][l] = pb->p.z;
    f[LI_QBX][l] = pb->q.x;
    f[LI_QBY][l] = pb->q.y;
    f[LI_QBZ][l] = pb->q.z;
    f[LI_QBW][l] = pb->q.w;
    f[LI_HAX][l] = a->half[0];
    f[LI_HAY][l] = a->half[1];
    f[LI_HAZ][l] = a->half[2];
    f[LI_HBX][l] = b->half[0];
    f[LI_HBY][l] = b->half[1];
    f[LI_HBZ][l] = b->half[2];
    f[LI_RA][l] = a->radius;
    f[LI_RB][l] = b->radius;
    f[LI_EA][l] = a->extent;
    f[LI_EB][l] = b->extent;
    f[LI_TA][l] = (float)a->type;
    f[LI_TB][l] = (float)b->type;
    st->index[l] = index;
    st->swap[l] = (unsigned char)swap;
}

/* Stages pair i if a lane kernel takes it (returns its kind), else -1. */
static int stage_pair(stage *stages, const mink_pair *p, size_t i)
{
    int swap;
    const int kind = pair_kind(p->a, p->b, &swap);
    if (kind < 0) return -1;
    if (swap)
        stage_put(&stages[kind], i, 1, p->b, &p->pb, p->a, &p->pa);
    else
        stage_put(&stages[kind], i, 0, p->a, &p->pa, p->b, &p->pb);
    return kind;
}

/* ------------------------------------------------------------ penetration */

static void run_penetration_lanes(int kind, const lane_in *in, size_t lanes, lane_out *out)
{
    switch (kind) {
    case LANE_ROUND: mink_lane_round_penetration(in, lanes, out); break;
    case LANE_POINT_BOX: mink_lane_point_box_penetration(in, lanes, out); break;
    default: mink_lane_box_penetration(in, lanes, out); break;
    }
}

static void flush_penetration(int kind, stage *st, const mink_pair *pairs, mink_result *out)
{
    if (st->count == 0) return;
    lane_out res;
    run_penetration_lanes(kind, &st->in, mink_lane_pad(&st->in, st->count), &res);
    for (size_t l = 0; l < st->count; ++l) {
        const size_t i = st->index[l];
        const float state = res.f[LO_STATE][l];
        if (state == LANE_INVALID) {
            mink_result_error(&out[i], MINK_ERR_INVALID);
            continue;
        }
        if (state != LANE_ANSWERED) {
            const mink_pair *p = &pairs[i];
            mink_penetration(p->a, &p->pa, p->b, &p->pb, p->cache, &out[i]);
            continue;
        }
        mink_result *r = &out[i];
        const mink_vec3 pa = {res.f[LO_AX][l], res.f[LO_AY][l], res.f[LO_AZ][l]};
        const mink_vec3 pb = {res.f[LO_BX][l], res.f[LO_BY][l], res.f[LO_BZ][l]};
        r->distance = res.f[LO_DIST][l];
        if (st->swap[l]) {
            r->normal.x = -res.f[LO_NX][l];
            r->normal.y = -res.f[LO_NY][l];
            r->normal.z = -res.f[LO_NZ][l];
            r->point_a = pb;
            r->point_b = pa;
        } else {
            r->normal.x = res.f[LO_NX][l];
            r->normal.y = res.f[LO_NY][l];
            r->normal.z = res.f[LO_NZ][l];
            r->point_a = pa;
            r->point_b = pb;
        }
        r->iterations = r->gjk_iterations = r->support_calls = 0;
        r->status = MINK_OK;
    }
    st->count = 0;
}

void mink_penetration_batch(const mink_pair *pairs, size_t n, mink_result *out)
{
    if (!out) return;
    if (!pairs) {
        for (size_t i = 0; i < n; ++i) mink_result_error(&out[i], MINK_ERR_INVALID);
        return;
    }
    stage stages[LANE_KIND_COUNT];
    for (int k = 0; k < LANE_KIND_COUNT; ++k) stages[k].count = 0;
    for (size_t i = 0; i < n; ++i) {
        const int kind = stage_pair(stages, &pairs[i], i);
        if (kind >= 0) {
            if (stages[kind].count == LANE_CAP) flush_penetration(kind, &stages[kind], pairs, out);
        } else {
            const mink_pair *p = &pairs[i];
            mink_penetration(p->a, &p->pa, p->b, &p->pb, p->cache, &out[i]);
        }
    }
    for (int k = 0; k < LANE_KIND_COUNT; ++k) flush_penetration(k, &stages[k], pairs, out);
}

/* ------------------------------------------------------------ intersect */

static void run_intersect_lanes(int kind, const lane_in *in, size_t lanes, lane_hits *out)
{
    switch (kind) {
    case LANE_ROUND: mink_lane_round_intersect(in, lanes, out); break;
    case LANE_POINT_BOX: mink_lane_point_box_intersect(in, lanes, out); break;
    default: mink_lane_box_intersect(in, lanes, out); break;
    }
}

static void flush_intersect(int kind, stage *st, const mink_pair *pairs, int *out)
{
    if (st->count == 0) return;
    lane_hits res;
    run_intersect_lanes(kind, &st->in, mink_lane_pad(&st->in, st->count), &res);
    for (size_t l = 0; l < st->count; ++l) {
        const size_t i = st->index[l];
        const float h = res.f[l];
        if (h == LANE_INVALID) {
            out[i] = MINK_ERR_INVALID;
        } else if (h == LANE_UNDECIDED) {
            const mink_pair *p = &pairs[i];
            out[i] = mink_intersect(p->a, &p->pa, p->b, &p->pb, p->cache);
        } else {
            out[i] = h > 0.0f;
        }
    }
    st->count = 0;
}

/* Whether a pair of this kind takes the lanes for an intersect. Boxes with
 * boxes or capsules take the single query's box test where the lanes are
 * narrow: it stops at the first face that separates, in a frame of its own,
 * and 4 lanes of the full test were slower (box-box: 0.69x the loop of
 * single queries with SSE4.1, 1.04x with AVX2, 1.20x with AVX-512). */
static int intersect_in_lanes(int kind) { return kind != LANE_BOX || MINK_W_LANES >= 8; }

void mink_intersect_batch(const mink_pair *pairs, size_t n, int *out)
{
    if (!out) return;
    if (!pairs) {
        for (size_t i = 0; i < n; ++i) out[i] = MINK_ERR_INVALID;
        return;
    }
    stage stages[LANE_KIND_COUNT];
    for (int k = 0; k < LANE_KIND_COUNT; ++k) stages[k].count = 0;
    for (size_t i = 0; i < n; ++i) {
        const mink_pair *p = &pairs[i];
        int swap;
        const int kind = pair_kind(p->a, p->b, &swap);
        if (kind >= 0 && intersect_in_lanes(kind)) {
            stage_pair(stages, p, i);
            if (stages[kind].count == LANE_CAP) flush_intersect(kind, &stages[kind], pairs, out);
        } else {
            out[i] = mink_intersect(p->a, &p->pa, p->b, &p->pb, p->cache);
        }
    }
    for (int k = 0; k < LANE_KIND_COUNT; ++k) flush_intersect(k, &stages[k], pairs, out);
}

/* ------------------------------------------------------------ multi-core */

/* More threads than this are not started (the rest of the work is split
 * among these); a chunk smaller than MT_MIN_CHUNK pairs is not worth a
 * thread (a thread costs tens of microseconds to start; a pair, tens of
 * nanoseconds). */
#define MT_MAX_THREADS 64
#define MT_MIN_CHUNK 256

/* One chunk: exactly one of results, hits, manifolds is set. */
typedef struct mt_job {
    const mink_pair *pairs;
    size_t n;
    mink_result *results;
    int *hits;
    struct mink_manifold *manifolds;
    float margin;
} mt_job;

static void mt_run(const mt_job *job)
{
    if (job->results)
        mink_penetration_batch(job->pairs, job->n, job->results);
    else if (job->hits)
        mink_intersect_batch(job->pairs, job->n, job->hits);
    else
        mink_manifold_batch(job->pairs, job->n, job->margin, job->manifolds);
}

#if MINK_HAVE_PTHREADS
static void *mt_thread(void *arg)
{
    mt_run((const mt_job *)arg);
    return NULL;
}
#endif

static void mt_batch(const mink_pair *pairs, size_t n, const mt_job *what, unsigned threads)
{
    size_t t = threads;
    if (t > MT_MAX_THREADS) t = MT_MAX_THREADS;
    if (t > n / MT_MIN_CHUNK) t = n / MT_MIN_CHUNK;
    mt_job jobs[MT_MAX_THREADS];
    if (!pairs || t <= 1) {
        mt_job all = *what;
        all.pairs = pairs, all.n = n;
        mt_run(&all);
        return;
    }
    const size_t chunk = (n + t - 1) / t;
    size_t njobs = 0;
    for (size_t start = 0; start < n && njobs < MT_MAX_THREADS; start += chunk, ++njobs) {
        mt_job *j = &jobs[njobs];
        *j = *what;
        j->pairs = pairs + start;
        j->n = n - start < chunk ? n - start : chunk;
        if (j->results) j->results += start;
        if (j->hits) j->hits += start;
        if (j->manifolds) j->manifolds += start;
    }
#if MINK_HAVE_PTHREADS
    pthread_t tid[MT_MAX_THREADS];
    int started[MT_MAX_THREADS];
    /* chunk 0 runs on the calling thread; a thread that cannot be started
     * runs its chunk here too (same answers, less parallel) */
    for (size_t j = 1; j < njobs; ++j) started[j] = pthread_create(&tid[j], NULL, mt_thread, &jobs[j]) == 0;
    mt_run(&jobs[0]);
    for (size_t j = 1; j < njobs; ++j) {
        if (started[j])
            pthread_join(tid[j], NULL);
        else
            mt_run(&jobs[j]);
    }
#else
    for (size_t j = 0; j < njobs; ++j) mt_run(&jobs[j]);
#endif
}

void mink_penetration_batch_mt(const mink_pair *pairs, size_t n, mink_result *out, unsigned threads)
{
    if (!out) return;
    const mt_job what = {NULL, 0, out, NULL, NULL, 0.0f};
    mt_batch(pairs, n, &what, threads);
}

void mink_intersect_batch_mt(const mink_pair *pairs, size_t n, int *out, unsigned threads)
{
    if (!out) return;
    const mt_job what = {NULL, 0, NULL, out, NULL, 0.0f};
    mt_batch(pairs, n, &what, threads);
}

/* Manifolds pair by pair: a manifold's work is dominated by the features
 * it touches (clipping, keys), not by a common chain lanes could share. */
void mink_manifold_batch(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out)
{
    if (!out) return;
    for (size_t i = 0; i < n; ++i) {
        if (pairs)
            mink_manifold(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, margin, pairs[i].cache, &out[i]);
        else
            mink_manifold(NULL, NULL, NULL, NULL, margin, NULL, &out[i]);
    }
}

void mink_manifold_batch_mt(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out,
                            unsigned threads)
{
    if (!out) return;
    const mt_job what = {NULL, 0, NULL, NULL, out, margin};
    mt_batch(pairs, n, &what, threads);
}
