/* fuzz_queries: a libFuzzer target for the queries of both kernels.
 *
 * The input bytes decode (layout below) into two shapes, two poses, a small
 * motion and two caches (raw bytes, and a well-formed cache forged with a
 * garbage state), then a step's motion for the casts. Every query of both
 * kernels runs on them, cold, warm, moved, with the garbage caches and in a
 * batch, the casts and times of impact on the step, and the answers are
 * checked against properties that hold for any input. A violation prints the pair in
 * case-file syntax (tests/data/FORMAT.md) and abort()s, so libFuzzer keeps the
 * input.
 *
 * Properties:
 * - Constructors reject NaN/Inf, negative sizes, empty hulls, too little or
 *   misaligned memory; they accept finite sizes up to SAFE_MAGNITUDE (MINK_MAX_MAGNITUDE).
 * - Invalid input (a rejected shape, a non-finite pose, a quaternion whose
 *   norm is off by more than MINK_QUAT_UNIT_TOL, a NULL passed on purpose)
 *   gives MINK_ERR_INVALID from both kernels, an all-zero result, and leaves
 *   the cache alone.
 * - Valid input gives MINK_OK or MINK_MAX_ITERATIONS, every field finite,
 *   iterations <= MINK_GJK_MAX_ITERATIONS + MINK_EPA_MAX_VERTICES, a unit
 *   normal when distance != 0 and point_b - point_a = distance * normal.
 * - mink_penetration_gjk (GJK and EPA alone, where mink_penetration may
 *   answer a box pair by the box test) gives such an answer too, of the
 *   same sign away from the touching band and, with MINK_OK, within
 *   CACHE_AGREE_REL * L of mink_penetration's.
 * - Away from the touching band the two kernels, the three queries, the
 *   swapped pair, the batch calls and every cache (warm, moved, garbage)
 *   agree on the sign of the distance; with MINK_OK, a cache does not move
 *   a distance by more than CACHE_AGREE_REL * L.
 * - Contact manifolds (both kernels, at the decoded margin): a negative,
 *   NaN or infinite margin, or a pair the queries reject, gives
 *   MINK_ERR_INVALID, an all-zero manifold and an untouched cache. A valid
 *   one has status MINK_OK or MINK_MAX_ITERATIONS, count <= 4, every number
 *   finite, a unit normal when count > 0, and for every point
 *   point_b - point_a = separation * normal (WITNESS_REL * L), separation
 *   <= margin, the points inside their shapes' support planes along the
 *   normal, distinct ids. Against the kernel's own mink_penetration answer
 *   d: count == 0 exactly when d > margin (either within BAND_REL * L of
 *   the margin); when count > 0 the smallest separation is d (with MINK_OK,
 *   within CACHE_AGREE_REL * L) and, away from the touching band, the
 *   normal is d's normal (within NORMAL_ANGLE) or a near tie: the signed
 *   distance along it, -(h_A(n) + h_B(-n)) from the support functions
 *   (case_support_h), is d within CACHE_AGREE_REL * L. Cold, warm, moved
 *   (and back), raw garbage, forged (a GJK state, a feature state), and
 *   foreign caches (the other kernel's, the swapped pair's, a
 *   penetration's, another margin's) all answer so. The two kernels and
 *   the swapped pair (normal negated) agree on count == 0 outside the band
 *   and on the deepest separation; mink_manifold_batch equals
 *   mink_manifold pair by pair, bit for bit, caches included.
 * - Casts and times of impact (mink_cast, mink_ref_cast on the translations;
 *   mink_toi, mink_ref_toi on the sweeps; each also with A and B swapped;
 *   mink_cast_ex, mink_toi_ex with the raw and the forged garbage cache):
 *   invalid input (a bad shape or pose, a non-finite translation or one
 *   ending past MINK_MAX_MAGNITUDE, a bad second pose, a non-finite or huge
 *   centre, a negative or NaN target, a NULL passed on purpose) gives
 *   MINK_ERR_INVALID and an all-zero result with that status. Valid input
 *   returns 0 or 1 with status MINK_OK or MINK_MAX_ITERATIONS, every field
 *   finite, t in [0, 1], 1 <= iterations <= MINK_CAST_MAX_ITERATIONS; a
 *   miss has t = 1 and a zero normal and witnesses; a hit a unit normal
 *   and point_b - point_a = d * normal, d = (point_b - point_a).normal
 *   (WITNESS_REL * Lc). Never late, against the kernel's own
 *   mink_penetration at the poses of the documented motion (computed here
 *   in double: the local centre on a straight line, slerp about it on the
 *   shortest arc) at sampled times (CAST_SAMPLES evenly spaced before the
 *   latest hit, or over the step when an answer misses, with a phase from
 *   the input; the centres' closest approach; every answer's t; after a
 *   hit that another answer misses, three more up to t = 1): before a hit
 *   at t, and at t itself when t > 0, the signed distance is at least
 *   target - CAST_SLACK_REL * Lc (a later contact, or a step over one, is
 *   caught); at a hit with MINK_OK it is at most target + CAST_SLACK_REL *
 *   Lc and d matches it as closely; on a miss every sample is at least
 *   target - CAST_SLACK_REL * Lc. All answers share the samples, so the
 *   kernels, the swapped pair and the garbage caches agree on hit or miss
 *   and on t up to grazes: where two disagree, the signed distance at the
 *   earlier t is within the slack of the target. Lc is L over the whole motion; a half
 *   turn (|q0.q1| < CAST_HALF_TURN), whose shortest arc is a tie, is not
 *   sampled.
 *
 * Byte layout (a missing byte reads as 0, so every input decodes):
 *   u8 mode        mode % 32 == 31: the deliberate-NULL scenario
 *   u8 scale       index into scales[]: the size of ordinary values
 *   shape A, shape B
 *     u8 kind % 5  0 sphere: r | 1 capsule: r h | 2 box: hx hy hz r |
 *                  3 hull: r, count, generator, memory mode |
 *                  4 hand-made invalid struct: u8 variant
 *   pose A, pose B px py pz, u8 quaternion mode, its values
 *   motion         dx dy dz: B's second pose for the warm-cache queries
 *   raw cache      64 bytes
 *   forged cache   axis x y z, u8 count, u8 outcome, 4 + 4 u8 indices, u8 frames
 *   margin         u8 mode % 16: 0..5 zero (so do inputs that end before it),
 *                  6..12 a float in [0, 0.1 scale], 13..14 one in [0, 2 scale],
 *                  15 u8: a bad one (negative, NaN, +-Inf)
 *   forged feature u8 feature % 5, u8 ia, u8 ib (% 24 each), u8 outcome % 4,
 *                  axis x y z, separation, pos x y z, rot x y z, u8 frames
 *   cast           u8 mode % 4: 0 B's origin through A's (db = 2 (pA - pB),
 *                  da = 0; so do inputs that end before it: every input
 *                  casts) | 1 da, db | 2 db (da = 0) | 3 through, db off by a
 *                  vector in [-scale, scale]; da, db in [-6 scale, 6 scale];
 *                  then A's and B's end orientation: u8 turn; turn & 8:
 *                  none (q1 = q0), else turn % 4: 0 the other body's q0 |
 *                  1 a quaternion as in a pose | 2, 3 q0 turned about an
 *                  axis x y z by an angle up to 0.3 rad | up to half a
 *                  turn; turn & 4 negates q1;
 *                  A's and B's sweep centre: u8 % 4: 0 the local origin,
 *                  else x y z in [-2 scale, 2 scale];
 *                  target: u8 % 8: 0 zero | 1..4 in [0, 0.05 scale] | 5 in
 *                  [0, 0.5 scale] | 6 in [0, 2 scale] | 7 u8: a bad one;
 *                  u8 sample phase. The sweeps go from (pA, qA) to
 *                  (pA + da, qA1) and from (pB, qB) to (pB + db, qB1).
 * A float is a u8 tag, then: tag < 224: u16, an ordinary value in the
 * field's range; 224..231: u32 raw bits; >= 232: nasty[tag - 232].
 *
 * Seeds: corpus/fuzz_queries/, written by corpus/make_query_seeds.py, whose
 * --encode option also turns a pair in case-file syntax into an exact input
 * (raw float bits). Inputs that once broke a property are kept in
 * regressions/fuzz_queries/ and replayed by ctest in a fuzz build.
 *
 * Build with MINK_FUZZ_STANDALONE for a plain driver (AFL++, replaying
 * crash files): it runs every file named on the command line, or stdin.
 * MINK_FUZZ_VERBOSE=1 makes it print the decoded pair and both kernels'
 * penetration answers, cold manifolds and cast answers; MINK_FUZZ_FULL_DUMP=1 prints big hulls whole. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "cases.h"     /* case_common_point_gaps, case_support_h */
#include "cache.h"     /* mink_cache_store: forging well-formed garbage caches */
#include "tolerance.h" /* the caps the iteration counts must respect */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---------------------------------------------------------------- tolerances
 * L = max(1, |pa.p|inf + |pb.p|inf + extent A + radius A + extent B + radius B),
 * computed in double from the decoded inputs: a bound on every coordinate the
 * query touches, the scale float rounding errors grow with. */

/* |normal| = 1 within this when distance != 0. Normalising in float is good
 * to ~1e-7; the rest is slack for normals of nearly degenerate faces. */
#define UNIT_TOL 1e-3
/* point_b - point_a = distance * normal within WITNESS_REL * L: ten times
 * FORMAT.md's kernel tolerance (1e-4 L), for degenerate fuzz geometry. */
#define WITNESS_REL 1e-3
/* The touching band: signs of two distances are compared only when both are
 * larger than BAND_REL * L in magnitude (FORMAT.md's "either kind" band). */
#define BAND_REL 1e-3
/* A cache (warm, stale, garbage) moves a converged (MINK_OK) distance by at
 * most this * L: both answers are within the query tolerance of the truth. */
#define CACHE_AGREE_REL 1e-3
/* Two contact normals agree within this angle (rad): FORMAT.md's limit for
 * penetration normals. Beyond it the depth along the manifold's normal must
 * tie mink_penetration's (a near tie: a face preferred to an edge pair). */
#define NORMAL_ANGLE 1e-2
/* A quaternion norm this close to the edge 1 +- MINK_QUAT_UNIT_TOL may be
 * judged either way (the kernel tests |q|^2 in float). */
#define QUAT_EDGE 1e-5
/* Constructors must accept finite non-negative sizes and coordinates up to
 * this magnitude (squares and sums of three squares stay finite in float);
 * larger finite ones may be rejected, but once accepted must work. */
#define SAFE_MAGNITUDE MINK_MAX_MAGNITUDE
/* Every query's iteration count stays below the sum of the two caps. */
#define MAX_TOTAL_ITERATIONS (MINK_GJK_MAX_ITERATIONS + MINK_EPA_MAX_VERTICES)
/* Largest hull the decoder builds. */
#define MAX_HULL_POINTS 5000u
/* Hull points shown in a violation report. */
#define DUMP_POINTS 40u

/* ---------------------------------------------------------------- decoding */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t rd_u8(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static uint32_t rd_u16(reader *r)
{
    const uint32_t lo = rd_u8(r);
    return lo | (uint32_t)rd_u8(r) << 8;
}

static uint32_t rd_u32(reader *r)
{
    const uint32_t lo = rd_u16(r);
    return lo | rd_u16(r) << 16;
}

/* Values that break naive float code. */
static const float nasty[24] = {
    NAN, INFINITY, -INFINITY, 0.0f, -0.0f,
    0x1p-149f /* smallest denormal */, 0x1p-130f /* denormal */, -0x1p-140f,
    FLT_MIN, 1e-30f, -1e-30f, 1e-7f,
    1e30f, -1e30f, FLT_MAX, -FLT_MAX, 1e19f, 1e13f,
    -1.0f, 1.0f, -0.5f, 2.0f, 1e6f, -1e-3f,
};
#define NASTY_TAG 232 /* tags 232..255 pick nasty[] */
#define RAW_TAG 224   /* tags 224..231 read raw float bits */

/* Sizes of ordinary values (all ranges are multiplied by one of these). */
static const float scales[12] = {1, 1, 1, 1, 1e-3f, 1e-2f, 0.1f, 10, 100, 1e3f, 1e4f, 1e6f};

/* Exploration knob, off by default: -DMINK_FUZZ_MAX_MAGNITUDE=1e15 clamps
 * every finite decoded value to that magnitude, so that a run can look past a
 * known finding about huge coordinates. The properties are unchanged; only
 * the inputs are narrower. */
static float clamp_magnitude(float v)
{
#ifdef MINK_FUZZ_MAX_MAGNITUDE
    const float m = (float)(MINK_FUZZ_MAX_MAGNITUDE);
    if (isfinite(v) && fabsf(v) > m) return copysignf(m, v);
#endif
    return v;
}

/* double -> float without an out-of-range conversion: beyond FLT_MAX is Inf. */
static float to_float(double v)
{
    if (v > FLT_MAX) return INFINITY;
    if (v < -FLT_MAX) return -INFINITY;
    return clamp_magnitude((float)v);
}

static float rd_float(reader *r, float lo, float hi)
{
    const uint8_t tag = rd_u8(r);
    if (tag >= NASTY_TAG) return clamp_magnitude(nasty[tag - NASTY_TAG]);
    if (tag >= RAW_TAG) {
        const uint32_t bits = rd_u32(r);
        float f;
        memcpy(&f, &bits, sizeof f);
        return clamp_magnitude(f);
    }
    return to_float((double)lo + ((double)hi - (double)lo) * rd_u16(r) / 65535.0);
}

/* A small deterministic generator for hull points, seeded from the input. */
static uint32_t rng_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    uint32_t x = *s;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static double rng_sym(uint32_t *s) { return (double)rng_next(s) / 2147483648.0 - 1.0; } /* [-1, 1) */

/* ---------------------------------------------------------------- scenario */

enum { EXPECT_INVALID = 0, EXPECT_VALID = 1, EXPECT_EITHER = 2 };
enum { KIND_SPHERE, KIND_CAPSULE, KIND_BOX, KIND_HULL, KIND_BROKEN };

static int expect_and(int a, int b)
{
    if (a == EXPECT_INVALID || b == EXPECT_INVALID) return EXPECT_INVALID;
    if (a == EXPECT_EITHER || b == EXPECT_EITHER) return EXPECT_EITHER;
    return EXPECT_VALID;
}

/* The expectation for one size argument of a constructor. */
static int expect_size(float v)
{
    if (!isfinite(v) || !(v >= 0.0f)) return EXPECT_INVALID; /* -0 is a legal zero */
    return v <= SAFE_MAGNITUDE ? EXPECT_VALID : EXPECT_EITHER;
}

static int expect_coord(float v)
{
    if (!isfinite(v)) return EXPECT_INVALID;
    return fabsf(v) <= SAFE_MAGNITUDE ? EXPECT_VALID : EXPECT_EITHER;
}

typedef struct fz_shape {
    mink_shape s;
    int kind;        /* KIND_*                                             */
    int variant;     /* KIND_BROKEN: which struct; KIND_HULL: memory mode  */
    int expect;      /* what the constructor must do                       */
    float arg[4];    /* constructor size arguments as decoded              */
    double extent;   /* largest |core point| of the input, in double       */
    uint32_t n;      /* hull: points in xyz                                */
    float *xyz;
    void *mem;
    case_shape cs;   /* a valid shape as the support functions see it      */
} fz_shape;

typedef struct scenario {
    fz_shape a, b;
    mink_pose pa, pb, pb2; /* pb2: B after the motion */
    int expect_pa, expect_pb, expect_pb2;
    float margin;          /* the contact manifolds' */
    int expect_margin;
    double L;
    /* the casts (decode_cast): mink_cast's translations, mink_toi's sweeps
     * (from pa, pb to the translated poses with second orientations, each
     * about its local centre), the target, the samples' phase */
    int cast_decoded;
    uint8_t cast_mode, cast_phase;
    mink_vec3 da, db;
    mink_sweep sa, sb;
    float target;
} scenario;

/* The scenario being checked, for the violation report. */
static const scenario *g_current;

static void dump_shape(FILE *f, const fz_shape *s)
{
    switch (s->kind) {
    case KIND_SPHERE: fprintf(f, "sphere %.9g", s->arg[0]); break;
    case KIND_CAPSULE: fprintf(f, "capsule %.9g %.9g", s->arg[0], s->arg[1]); break;
    case KIND_BOX: fprintf(f, "box %.9g %.9g %.9g %.9g", s->arg[3], s->arg[0], s->arg[1], s->arg[2]); break;
    case KIND_HULL:
        fprintf(f, "hull %.9g %u", s->arg[0], s->n);
        /* big hulls are cut short: replay the input to see them whole */
        for (uint32_t i = 0; s->xyz && i < 3 * s->n && (i < 3 * DUMP_POINTS || getenv("MINK_FUZZ_FULL_DUMP")); ++i)
            fprintf(f, " %.9g", s->xyz[i]);
        if (s->n > DUMP_POINTS && !getenv("MINK_FUZZ_FULL_DUMP"))
            fprintf(f, " ...(%u more points; MINK_FUZZ_FULL_DUMP=1 prints all)", s->n - DUMP_POINTS);
        if (s->variant < 3) fprintf(f, " (memory mode %d)", s->variant);
        break;
    default: fprintf(f, "<hand-made invalid shape, variant %d>", s->variant); break;
    }
}

static void dump_pose(FILE *f, const mink_pose *p)
{
    fprintf(f, " %.9g %.9g %.9g %.9g %.9g %.9g %.9g ", p->p.x, p->p.y, p->p.z, p->q.w, p->q.x, p->q.y, p->q.z);
}

static void dump_result(FILE *f, const char *name, const mink_result *r)
{
    fprintf(f, "  %s: status %d distance %.9g normal %.9g %.9g %.9g pa %.9g %.9g %.9g pb %.9g %.9g %.9g "
               "iterations %u (gjk %u) supports %u\n",
            name, (int)r->status, r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x, r->point_a.y,
            r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z, r->iterations, r->gjk_iterations,
            r->support_calls);
}

/* The step's motion for the casts: the linear cast as a cast case
 * (FORMAT.md, "Casts"), then the sweeps, whose centres that format cannot
 * hold. */
static void dump_cast_motion(FILE *f, const scenario *s)
{
    if (!s->cast_decoded) return;
    const mink_pose pa1 = {{s->pa.p.x + s->da.x, s->pa.p.y + s->da.y, s->pa.p.z + s->da.z}, s->pa.q};
    const mink_pose pb1 = {{s->pb.p.x + s->db.x, s->pb.p.y + s->db.y, s->pb.p.z + s->db.z}, s->pb.q};
    fprintf(f, "cast (mode %u, sample phase %u): da %.9g %.9g %.9g db %.9g %.9g %.9g target %.9g\n"
               "as a cast case (end poses rounded to float):\nfuzz-cast ",
            s->cast_mode, s->cast_phase, s->da.x, s->da.y, s->da.z, s->db.x, s->db.y, s->db.z, s->target);
    dump_shape(f, &s->a);
    dump_pose(f, &s->pa);
    dump_pose(f, &pa1);
    dump_shape(f, &s->b);
    dump_pose(f, &s->pb);
    dump_pose(f, &pb1);
    fprintf(f, "%.9g\nsweeps (pose0 / pose1 / local centre):\n  A", s->target);
    dump_pose(f, &s->sa.pose0);
    fprintf(f, "/");
    dump_pose(f, &s->sa.pose1);
    fprintf(f, "/ %.9g %.9g %.9g\n  B", s->sa.center.x, s->sa.center.y, s->sa.center.z);
    dump_pose(f, &s->sb.pose0);
    fprintf(f, "/");
    dump_pose(f, &s->sb.pose1);
    fprintf(f, "/ %.9g %.9g %.9g\n", s->sb.center.x, s->sb.center.y, s->sb.center.z);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static void violation(const char *fmt, ...);

static void violation(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\nfuzz_queries: PROPERTY VIOLATED: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    const scenario *s = g_current;
    if (s) {
        fprintf(stderr, "pair (case-file syntax, B's second pose after the motion on the next line):\nfuzz ");
        dump_shape(stderr, &s->a);
        dump_pose(stderr, &s->pa);
        dump_shape(stderr, &s->b);
        dump_pose(stderr, &s->pb);
        fprintf(stderr, "\nmoved B:");
        dump_pose(stderr, &s->pb2);
        fprintf(stderr, "\nmargin %.9g\nexpect: A %d B %d pose A %d pose B %d moved B %d margin %d (0 invalid, 1 valid, "
                        "2 either); L %.9g\n",
                s->margin, s->a.expect, s->b.expect, s->expect_pa, s->expect_pb, s->expect_pb2, s->expect_margin, s->L);
        dump_cast_motion(stderr, s);
    }
    abort();
}

/* Hull points from a small generator: clouds around a few base points with
 * jitter (0 gives exact duplicates), coplanar and collinear sets, raw points,
 * sphere shells, box corners; then optional duplicates and a poisoned value. */
static void gen_hull_points(reader *r, float scale, float *xyz, uint32_t n)
{
    const uint8_t gen = rd_u8(r) % 6;
    uint32_t seed = rd_u32(r);
    double o[3], u[3], v[3];
    if (n == 0) return;
    switch (gen) {
    case 0: { /* cloud around 1..8 base points */
        double base[8][3];
        const unsigned nb = 1u + rd_u8(r) % 8u;
        for (unsigned i = 0; i < nb; ++i)
            for (int k = 0; k < 3; ++k) base[i][k] = rd_float(r, -scale, scale);
        const double jitter = rd_float(r, 0.0f, 0.5f * scale);
        for (uint32_t i = 0; i < n; ++i) {
            const unsigned bi = rng_next(&seed) % nb;
            for (int k = 0; k < 3; ++k) {
                const double t = rng_sym(&seed);
                xyz[3 * i + k] = to_float(base[bi][k] + jitter * t * t * t);
            }
        }
        break;
    }
    case 1: /* coplanar: o + s u + t v */
    case 2: /* collinear: o + s u */
        for (int k = 0; k < 3; ++k) o[k] = rd_float(r, -scale, scale);
        for (int k = 0; k < 3; ++k) u[k] = rd_float(r, -scale, scale);
        for (int k = 0; k < 3; ++k) v[k] = gen == 1 ? rd_float(r, -scale, scale) : 0.0;
        for (uint32_t i = 0; i < n; ++i) {
            const double s = rng_sym(&seed), t = rng_sym(&seed);
            for (int k = 0; k < 3; ++k) xyz[3 * i + k] = to_float(o[k] + s * u[k] + t * v[k]);
        }
        break;
    case 3: /* every coordinate from the input */
        for (uint32_t i = 0; i < 3 * n; ++i) xyz[i] = rd_float(r, -scale, scale);
        break;
    case 4: { /* on a sphere of radius R */
        const double R = rd_float(r, 0.0f, scale);
        for (uint32_t i = 0; i < n; ++i) {
            double d[3] = {rng_sym(&seed), rng_sym(&seed), rng_sym(&seed)};
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (len < 1e-9) {
                d[0] = 1.0;
                len = 1.0;
            }
            for (int k = 0; k < 3; ++k) xyz[3 * i + k] = to_float(R * d[k] / len);
        }
        break;
    }
    default: /* box corners, each many times */
        for (int k = 0; k < 3; ++k) u[k] = rd_float(r, 0.0f, scale);
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t bits = rng_next(&seed);
            for (int k = 0; k < 3; ++k) xyz[3 * i + k] = to_float((bits >> k & 1u) ? u[k] : -u[k]);
        }
        break;
    }
    const unsigned dup = rd_u8(r) % 4u; /* every (dup+1)-th point repeats an earlier one */
    for (uint32_t i = 1; dup && i < n; i += dup + 1) {
        const uint32_t j = rng_next(&seed) % i;
        memcpy(&xyz[3 * i], &xyz[3 * j], 3 * sizeof(float));
    }
    if (rd_u8(r) % 8 == 7) xyz[rd_u16(r) % (3 * n)] = clamp_magnitude(nasty[rd_u8(r) % 24]);
}

static uint32_t hull_count(reader *r)
{
    switch (rd_u8(r) % 8) {
    case 0: case 1: case 2: case 3: return rd_u8(r) % 17u;
    case 4: case 5: return rd_u16(r) % 257u;
    case 6: return rd_u16(r) % 1025u;
    default: return rd_u16(r) % (MAX_HULL_POINTS + 1u);
    }
}

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The CI fuzz domain (-DMINK_FUZZ_MAX_ASPECT=N): shapes no thinner than
 * 1/N of their size. The kernel's known failures are on needles, plates
 * and planks far thinner than that (tests/fuzz/regressions); exploration
 * runs leave the knob off. */
#ifdef MINK_FUZZ_MAX_ASPECT
static float fatten(float thin, float size)
{
    const float floor = size / (float)(MINK_FUZZ_MAX_ASPECT);
    return isfinite(thin) && thin >= 0.0f && thin < floor ? floor : thin;
}
#endif

/* Hulls: a small tetrahedron of size extent / N around the centroid makes
 * any needle or flat point set at least that thick. Returns the count. */
static uint32_t limit_hull_aspect(float *xyz, uint32_t n)
{
#ifdef MINK_FUZZ_MAX_ASPECT
    if (n == 0) return n;
    double c[3] = {0, 0, 0}, extent = 0.0;
    for (uint32_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) c[k] += xyz[3 * i + k] / (double)n;
    for (uint32_t i = 0; i < n; ++i) {
        const double dx = xyz[3 * i] - c[0], dy = xyz[3 * i + 1] - c[1], dz = xyz[3 * i + 2] - c[2];
        const double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (d > extent) extent = d;
    }
    if (!isfinite(extent) || !isfinite(c[0] + c[1] + c[2])) return n;
    const double t = extent / (MINK_FUZZ_MAX_ASPECT);
    static const double corner[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k) xyz[3 * (n + (uint32_t)j) + k] = (float)(c[k] + t * corner[j][k]);
    return n + 4;
#else
    (void)xyz;
    return n;
#endif
}

static void decode_hull(reader *r, float scale, fz_shape *fs)
{
    const float radius = rd_float(r, 0.0f, scale);
    uint32_t n = hull_count(r);
    fs->arg[0] = radius;
    fs->xyz = malloc((n + 4) * 3 * sizeof(float));
    if (!fs->xyz) abort();
    gen_hull_points(r, scale, fs->xyz, n);
    n = limit_hull_aspect(fs->xyz, n);
    fs->n = n;
    /* memory mode: 0 too little memory, 1 misaligned, 2 NULL points, else good */
    fs->variant = rd_u8(r) % 16;
    const size_t need = mink_hull_bytes(n);
    const size_t alloc = round_up(need + MINK_HULL_ALIGN, MINK_HULL_ALIGN);
    fs->mem = aligned_alloc(MINK_HULL_ALIGN, alloc);
    if (!fs->mem) abort();

    int expect = n == 0 ? EXPECT_INVALID : expect_size(radius);
    double extent = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        const float *p = &fs->xyz[3 * i];
        expect = expect_and(expect, expect_and(expect_coord(p[0]), expect_and(expect_coord(p[1]), expect_coord(p[2]))));
        const double d = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
        if (d > extent) extent = d;
    }
    fs->extent = extent;
    mink_status st;
    switch (fs->variant) {
    case 0:
        st = mink_hull_init(&fs->s, fs->mem, need ? need - 4 : 0, fs->xyz, n, radius);
        expect = EXPECT_INVALID;
        break;
    case 1:
        st = mink_hull_init(&fs->s, (char *)fs->mem + 16, alloc - 16, fs->xyz, n, radius);
        expect = EXPECT_INVALID;
        break;
    case 2:
        st = mink_hull_init(&fs->s, fs->mem, need, NULL, n, radius);
        expect = EXPECT_INVALID;
        break;
    default:
        st = mink_hull_init(&fs->s, fs->mem, need, fs->xyz, n, radius);
        break;
    }
    fs->expect = expect;
    if ((st == MINK_OK) != (mink_shape_is_valid(&fs->s) == 1))
        violation("mink_hull_init returned %d but mink_shape_is_valid says %d", (int)st, mink_shape_is_valid(&fs->s));
    if (st != MINK_OK && st != MINK_ERR_INVALID) violation("mink_hull_init returned status %d", (int)st);
}

/* Shape structs no constructor makes; every one must be rejected. */
static void decode_broken(reader *r, fz_shape *fs)
{
    fs->variant = rd_u8(r) % 5;
    fs->expect = EXPECT_INVALID;
    switch (fs->variant) {
    case 0: memset(&fs->s, 0, sizeof fs->s); break;
    case 1:
        fs->s = mink_sphere(1.0f);
        fs->s.type = 5u + rd_u8(r); /* unknown type */
        break;
    case 2:
        fs->s = mink_sphere(1.0f);
        fs->s.radius = rd_u8(r) & 1 ? NAN : -1.0f;
        break;
    case 3:
        fs->s = mink_box(1.0f, 1.0f, 1.0f, 0.0f);
        fs->s.half[1] = rd_u8(r) & 1 ? NAN : -1.0f;
        break;
    default: /* a hull without vertex arrays */
        fs->s = mink_sphere(0.5f);
        fs->s.type = MINK_SHAPE_HULL;
        fs->s.count = 4;
        fs->s.padded = MINK_HULL_PAD;
        fs->s.x = fs->s.y = fs->s.z = NULL;
        break;
    }
}

/* The shape for the support functions (case_support_h, in double): the
 * sizes the shape holds, a hull's input points. */
static void fill_case_shape(fz_shape *fs)
{
    case_shape *cs = &fs->cs;
    cs->type = (int)fs->s.type;
    cs->radius = fs->s.radius;
    if (fs->s.type == MINK_SHAPE_CAPSULE) cs->param[0] = fs->s.half[1];
    if (fs->s.type == MINK_SHAPE_BOX)
        for (int k = 0; k < 3; ++k) cs->param[k] = fs->s.half[k];
    if (fs->s.type == MINK_SHAPE_HULL) {
        cs->n = fs->n;
        cs->pts = malloc(3 * (size_t)fs->n * sizeof(double));
        if (!cs->pts) abort();
        for (uint32_t i = 0; i < 3 * fs->n; ++i) cs->pts[i] = fs->xyz[i];
    }
}

static void decode_shape(reader *r, float scale, fz_shape *fs)
{
    memset(fs, 0, sizeof *fs);
    fs->kind = rd_u8(r) % 5;
    fs->variant = -1;
    uint32_t want = MINK_SHAPE_INVALID;
    switch (fs->kind) {
    case KIND_SPHERE:
        fs->arg[0] = rd_float(r, 0.0f, 2.0f * scale);
        fs->s = mink_sphere(fs->arg[0]);
        fs->expect = expect_size(fs->arg[0]);
        want = MINK_SHAPE_SPHERE;
        break;
    case KIND_CAPSULE:
        fs->arg[0] = rd_float(r, 0.0f, 2.0f * scale);
        fs->arg[1] = rd_float(r, 0.0f, 2.0f * scale);
#ifdef MINK_FUZZ_MAX_ASPECT
        fs->arg[0] = fatten(fs->arg[0], fs->arg[1]);
#endif
        fs->s = mink_capsule(fs->arg[0], fs->arg[1]);
        fs->expect = expect_and(expect_size(fs->arg[0]), expect_size(fs->arg[1]));
        fs->extent = fabs((double)fs->arg[1]);
        want = MINK_SHAPE_CAPSULE;
        break;
    case KIND_BOX:
        for (int k = 0; k < 4; ++k) fs->arg[k] = rd_float(r, 0.0f, 2.0f * scale);
#ifdef MINK_FUZZ_MAX_ASPECT
        {
            const float size = fmaxf(fs->arg[0], fmaxf(fs->arg[1], fmaxf(fs->arg[2], fs->arg[3])));
            for (int k = 0; k < 3; ++k) fs->arg[k] = fatten(fs->arg[k], size);
        }
#endif
        fs->s = mink_box(fs->arg[0], fs->arg[1], fs->arg[2], fs->arg[3]);
        fs->expect = expect_and(expect_and(expect_size(fs->arg[0]), expect_size(fs->arg[1])),
                                expect_and(expect_size(fs->arg[2]), expect_size(fs->arg[3])));
        fs->extent = sqrt((double)fs->arg[0] * fs->arg[0] + (double)fs->arg[1] * fs->arg[1] +
                          (double)fs->arg[2] * fs->arg[2]);
        want = MINK_SHAPE_BOX;
        break;
    case KIND_HULL:
        decode_hull(r, scale, fs);
        want = MINK_SHAPE_HULL;
        break;
    default: decode_broken(r, fs); break;
    }
    const int valid = mink_shape_is_valid(&fs->s);
    if (fs->expect == EXPECT_INVALID && (valid || (fs->kind != KIND_BROKEN && fs->s.type != MINK_SHAPE_INVALID)))
        violation("shape kind %d: bad arguments were accepted (type %u, is_valid %d)", fs->kind, fs->s.type, valid);
    if (fs->expect == EXPECT_VALID && (!valid || fs->s.type != want))
        violation("shape kind %d: good arguments were rejected (type %u, is_valid %d)", fs->kind, fs->s.type, valid);
    if (valid && fs->s.type != want) violation("shape kind %d: constructor made type %u", fs->kind, fs->s.type);
    /* What a query may expect from this shape: the constructor's verdict,
     * now that it is known to be right where the answer is clear-cut. */
    fs->expect = valid ? EXPECT_VALID : EXPECT_INVALID;
    if (valid) fill_case_shape(fs);
}

/* A unit quaternion from four ordinary values (normalised in double). */
static mink_quat unit_quat(reader *r)
{
    double q[4];
    for (int k = 0; k < 4; ++k) q[k] = rd_float(r, -1.0f, 1.0f);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-3) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0.0;
        q[3] = n = 1.0;
    }
    const mink_quat u = {(float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n)};
    return u;
}

static int expect_pose(const mink_pose *p)
{
    const float v[7] = {p->p.x, p->p.y, p->p.z, p->q.x, p->q.y, p->q.z, p->q.w};
    for (int k = 0; k < 7; ++k)
        if (!isfinite(v[k])) return EXPECT_INVALID;
    /* positions beyond MINK_MAX_MAGNITUDE are out of range, as are sizes */
    for (int k = 0; k < 3; ++k)
        if (fabsf(v[k]) > MINK_MAX_MAGNITUDE) return EXPECT_INVALID;
    const double x = p->q.x, y = p->q.y, z = p->q.z, w = p->q.w;
    const double off = fabs(sqrt(x * x + y * y + z * z + w * w) - 1.0);
    if (off < MINK_QUAT_UNIT_TOL - QUAT_EDGE) return EXPECT_VALID;
    if (off > MINK_QUAT_UNIT_TOL + QUAT_EDGE) return EXPECT_INVALID;
    return EXPECT_EITHER;
}

/* A quaternion: identity, unit, scaled (mostly invalid), straddling the
 * acceptance edge, raw components, or unit with a tiny nudge. */
static mink_quat decode_quat(reader *r)
{
    mink_quat q;
    const mink_quat id = {0.0f, 0.0f, 0.0f, 1.0f};
    switch (rd_u8(r) % 8) {
    case 0: q = id; break;
    case 4: { /* a unit quaternion scaled by an arbitrary factor: mostly invalid */
        const float f = rd_float(r, 0.0f, 2.0f);
        q = unit_quat(r);
        q.x *= f;
        q.y *= f;
        q.z *= f;
        q.w *= f;
        break;
    }
    case 5: { /* norm within +-2e-3 of 1: straddles the 1e-3 acceptance edge */
        const double f = 1.0 + 2e-3 * ((double)rd_u16(r) / 32767.5 - 1.0);
        q = unit_quat(r);
        q.x = (float)(q.x * f);
        q.y = (float)(q.y * f);
        q.z = (float)(q.z * f);
        q.w = (float)(q.w * f);
        break;
    }
    case 6: /* components straight from the input, nasty ones included */
        q.x = rd_float(r, -1.0f, 1.0f);
        q.y = rd_float(r, -1.0f, 1.0f);
        q.z = rd_float(r, -1.0f, 1.0f);
        q.w = rd_float(r, -1.0f, 1.0f);
        break;
    case 7: /* unit with one component nudged by a tiny (denormal, 0, ...) amount */
        q = unit_quat(r);
        q.y += rd_float(r, -1e-6f, 1e-6f);
        break;
    default: q = unit_quat(r); break;
    }
    return q;
}

static mink_pose decode_pose(reader *r, float scale)
{
    mink_pose p;
    p.p.x = rd_float(r, -3.0f * scale, 3.0f * scale);
    p.p.y = rd_float(r, -3.0f * scale, 3.0f * scale);
    p.p.z = rd_float(r, -3.0f * scale, 3.0f * scale);
    p.q = decode_quat(r);
    return p;
}

/* The contact manifolds' margin: zero (also for every input that ends
 * before it), a small speculative one, a larger one, or a bad one. */
static float decode_margin(reader *r, float scale)
{
    static const float bad[6] = {-1e-3f, -0x1p-140f, -FLT_MAX, NAN, INFINITY, -INFINITY};
    const uint8_t mode = rd_u8(r) % 16;
    if (mode < 6) return 0.0f;
    if (mode < 13) return rd_float(r, 0.0f, 0.1f * scale);
    if (mode < 15) return rd_float(r, 0.0f, 2.0f * scale);
    const float v = bad[rd_u8(r) % 6];
    return v == -1e-3f ? v * scale : v;
}

/* A manifold's feature state with garbage in every field the kernel derives
 * again at the new pose (the feature, its indices, the outcome, the axis,
 * the separation, the pose then). The runner-up stays at the largest float:
 * it is the cache's certificate that no other feature can have overtaken
 * the cached one (still_decides in kernel/manifold.c); a kernel cannot
 * check it without the full test the cache exists to skip, so a forged
 * smaller one is a lie by design, like a forged checksum. */
static void decode_forged_feature(reader *r, float scale, feature_state *f)
{
    memset(f, 0, sizeof *f);
    f->feature = rd_u8(r) % 5u;
    f->ia = rd_u8(r) % 24u;
    f->ib = rd_u8(r) % 24u;
    f->outcome = rd_u8(r) % 4u;
    for (int k = 0; k < 3; ++k) f->axis[k] = rd_float(r, -1.0f, 1.0f);
    f->separation = rd_float(r, -scale, scale);
    f->runner_up = FLT_MAX;
    for (int k = 0; k < 3; ++k) f->pos[k] = rd_float(r, -3.0f * scale, 3.0f * scale);
    for (int k = 0; k < 3; ++k) f->rot[k] = rd_float(r, -1.0f, 1.0f);
    f->frames = rd_u8(r);
}

static double max_abs3(mink_vec3 v) { return fmax(fabs((double)v.x), fmax(fabs((double)v.y), fabs((double)v.z))); }

/* double -> float, beyond FLT_MAX Inf, without the magnitude clamp: for
 * values derived from decoded ones (the clamp is for decoded values). */
static float narrow(double v)
{
    if (v > FLT_MAX) return INFINITY;
    if (v < -FLT_MAX) return -INFINITY;
    return (float)v;
}

static mink_vec3 rd_vec3(reader *r, float lo, float hi)
{
    mink_vec3 v;
    v.x = rd_float(r, lo, hi);
    v.y = rd_float(r, lo, hi);
    v.z = rd_float(r, lo, hi);
    return v;
}

/* A body's orientation at the end of the step: the other body's initial one
 * (so do inputs that end before it), a decoded quaternion (any mode, bad ones
 * included), or a turn of the initial one about a decoded axis by up to 0.3
 * rad or up to half a turn; the no-rotation bit keeps q0; the sign bit
 * negates the result (the motion takes the shortest arc either way). */
static mink_quat decode_end_quat(reader *r, mink_quat q0, mink_quat other)
{
    const uint8_t m = rd_u8(r);
    mink_quat q1 = q0;
    if (!(m & 8)) {
        switch (m % 4) {
        case 0: q1 = other; break;
        case 1: q1 = decode_quat(r); break;
        default: {
            const mink_vec3 ax = rd_vec3(r, -1.0f, 1.0f);
            const double angle = rd_float(r, 0.0f, m % 4 == 2 ? 0.3f : 3.14159265f);
            const double len = sqrt((double)ax.x * ax.x + (double)ax.y * ax.y + (double)ax.z * ax.z);
            if (!(len > 1e-6) || !isfinite(len) || !isfinite(angle)) break; /* no usable axis: q0 */
            const double sh = sin(0.5 * angle) / len, c = cos(0.5 * angle);
            const double t[4] = {ax.x * sh, ax.y * sh, ax.z * sh, c}, q[4] = {q0.x, q0.y, q0.z, q0.w};
            /* turn * q0: a non-unit q0 keeps its norm, so pose1 is as (in)valid as pose0 */
            q1.w = narrow(t[3] * q[3] - t[0] * q[0] - t[1] * q[1] - t[2] * q[2]);
            q1.x = narrow(t[3] * q[0] + t[0] * q[3] + t[1] * q[2] - t[2] * q[1]);
            q1.y = narrow(t[3] * q[1] - t[0] * q[2] + t[1] * q[3] + t[2] * q[0]);
            q1.z = narrow(t[3] * q[2] + t[0] * q[1] - t[1] * q[0] + t[2] * q[3]);
            break;
        }
        }
    }
    if (m & 4) q1.x = -q1.x, q1.y = -q1.y, q1.z = -q1.z, q1.w = -q1.w;
    return q1;
}

/* The cast section (after the forged feature; see the layout above). */
static void decode_cast(reader *r, float scale, scenario *s)
{
    static const float bad[6] = {-1e-3f, -0x1p-140f, -FLT_MAX, NAN, INFINITY, -INFINITY};
    const float range = 6.0f * scale;
    s->cast_decoded = 1;
    s->cast_mode = rd_u8(r);
    /* B's origin through A's: the pair meets whatever the shapes */
    const mink_vec3 zero = {0.0f, 0.0f, 0.0f};
    const mink_vec3 through = {narrow(2.0 * ((double)s->pa.p.x - s->pb.p.x)), narrow(2.0 * ((double)s->pa.p.y - s->pb.p.y)),
                               narrow(2.0 * ((double)s->pa.p.z - s->pb.p.z))};
    switch (s->cast_mode % 4) {
    case 0:
        s->da = zero;
        s->db = through;
        break;
    case 1:
        s->da = rd_vec3(r, -range, range);
        s->db = rd_vec3(r, -range, range);
        break;
    case 2:
        s->da = zero;
        s->db = rd_vec3(r, -range, range);
        break;
    default: { /* through, off by up to the scale: grazes */
        const mink_vec3 off = rd_vec3(r, -scale, scale);
        s->da = zero;
        s->db.x = narrow((double)through.x + off.x);
        s->db.y = narrow((double)through.y + off.y);
        s->db.z = narrow((double)through.z + off.z);
        break;
    }
    }
    const mink_quat qa1 = decode_end_quat(r, s->pa.q, s->pb.q);
    const mink_quat qb1 = decode_end_quat(r, s->pb.q, s->pa.q);
    s->sa.pose0 = s->pa;
    s->sb.pose0 = s->pb;
    s->sa.pose1.p.x = narrow((double)s->pa.p.x + s->da.x);
    s->sa.pose1.p.y = narrow((double)s->pa.p.y + s->da.y);
    s->sa.pose1.p.z = narrow((double)s->pa.p.z + s->da.z);
    s->sb.pose1.p.x = narrow((double)s->pb.p.x + s->db.x);
    s->sb.pose1.p.y = narrow((double)s->pb.p.y + s->db.y);
    s->sb.pose1.p.z = narrow((double)s->pb.p.z + s->db.z);
    s->sa.pose1.q = qa1;
    s->sb.pose1.q = qb1;
    s->sa.center = rd_u8(r) % 4 ? rd_vec3(r, -2.0f * scale, 2.0f * scale) : zero;
    s->sb.center = rd_u8(r) % 4 ? rd_vec3(r, -2.0f * scale, 2.0f * scale) : zero;
    const uint8_t tm = rd_u8(r) % 8;
    if (tm == 0) s->target = 0.0f;
    else if (tm < 5) s->target = rd_float(r, 0.0f, 0.05f * scale);
    else if (tm == 5) s->target = rd_float(r, 0.0f, 0.5f * scale);
    else if (tm == 6) s->target = rd_float(r, 0.0f, 2.0f * scale);
    else {
        const float v = bad[rd_u8(r) % 6];
        s->target = v == -1e-3f ? v * scale : v;
    }
    s->cast_phase = rd_u8(r);
}

/* ---------------------------------------------------------------- kernels */

typedef struct kernel {
    const char *name;
    int (*intersect)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *);
    int (*intersect_ex)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *,
                        mink_result *);
    /* the intersect by GJK alone (the SIMD kernel's primitive paths skipped) */
    int (*intersect_gjk)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *,
                         mink_result *);
    mink_status (*distance)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                            mink_cache *, mink_result *);
    mink_status (*penetration)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                               mink_cache *, mink_result *);
    /* the penetration by GJK and EPA alone (the SIMD kernel's box test skipped) */
    mink_status (*penetration_gjk)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                                   mink_cache *, mink_result *);
    mink_status (*manifold)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, float,
                            mink_cache *, struct mink_manifold *);
} kernel;

static const kernel kernels[2] = {
    {"ref", mink_ref_intersect, mink_ref_intersect_ex, mink_ref_intersect_ex, mink_ref_distance, mink_ref_penetration,
     mink_ref_penetration, mink_ref_manifold},
    {"simd", mink_intersect, mink_intersect_ex, mink_intersect_gjk_ex, mink_distance, mink_penetration,
     mink_penetration_gjk, mink_manifold},
};

/* The three answers for one pair. */
typedef struct answer {
    int hit, hit_gjk; /* hit_gjk: the intersect by GJK alone, cold */
    mink_result dist, pen, pen_gjk; /* pen_gjk: by GJK and EPA alone, cold */
} answer;

/* Fills a result with NaN bits and 0xffffffff counts before a query: a field
 * the query forgets to write then fails the checks. */
static void poison(mink_result *r) { memset(r, 0xff, sizeof *r); }

static int finite_result(const mink_result *r)
{
    const float f[10] = {r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int k = 0; k < 10; ++k)
        if (!isfinite(f[k])) return 0;
    return 1;
}

static int zero_result(const mink_result *r)
{
    const float f[10] = {r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int k = 0; k < 10; ++k)
        if (f[k] != 0.0f) return 0;
    return r->iterations == 0 && r->gjk_iterations == 0 && r->support_calls == 0 && r->status == MINK_ERR_INVALID;
}

/* The same for contact manifolds. */
static void poison_manifold(struct mink_manifold *m) { memset(m, 0xff, sizeof *m); }

static int zero_manifold(const struct mink_manifold *m)
{
    struct mink_manifold z;
    memset(&z, 0, sizeof z);
    z.status = MINK_ERR_INVALID;
    return memcmp(&z, m, sizeof z) == 0;
}

/* The same for casts. */
static void poison_cast(mink_cast_result *r) { memset(r, 0xff, sizeof *r); }

static int zero_cast(const mink_cast_result *r)
{
    mink_cast_result z; /* all members 4 bytes: no padding */
    memset(&z, 0, sizeof z);
    z.status = MINK_ERR_INVALID;
    return memcmp(&z, r, sizeof z) == 0;
}

/* One distance or penetration result of a valid query. */
static void check_valid_result(const char *ctx, const char *query, const mink_result *r, double L)
{
    if (r->status != MINK_OK && r->status != MINK_MAX_ITERATIONS) {
        dump_result(stderr, query, r);
        violation("%s %s: valid input gave status %d", ctx, query, (int)r->status);
    }
    if (!finite_result(r)) {
        dump_result(stderr, query, r);
        violation("%s %s: non-finite result for valid input", ctx, query);
    }
    if (r->iterations > MAX_TOTAL_ITERATIONS || r->gjk_iterations > r->iterations) {
        dump_result(stderr, query, r);
        violation("%s %s: iterations %u (gjk %u) exceed the caps (%u)", ctx, query, r->iterations,
                  r->gjk_iterations, (unsigned)MAX_TOTAL_ITERATIONS);
    }
    const double d = r->distance;
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z};
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (d != 0.0 && fabs(len - 1.0) > UNIT_TOL) {
        dump_result(stderr, query, r);
        violation("%s %s: |normal| = %.9g with distance %.9g", ctx, query, len, d);
    }
    const double e[3] = {(double)r->point_b.x - r->point_a.x - d * n[0], (double)r->point_b.y - r->point_a.y - d * n[1],
                         (double)r->point_b.z - r->point_a.z - d * n[2]};
    const double err = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (err > WITNESS_REL * L) {
        dump_result(stderr, query, r);
        violation("%s %s: |point_b - point_a - distance * normal| = %.9g > %.9g", ctx, query, err, WITNESS_REL * L);
    }
}

/* An overlapping distance answer gives a common point: point_a = point_b,
 * within WITNESS_REL * L of each shape (the reference's distance from it). */
static void check_common_point(const char *name, const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                               const mink_pose *pb, const mink_result *r, double L)
{
    if (r->status < 0 || r->distance != 0.0f) return;
    double gap[2];
    const int st = case_common_point_gaps(a, pa, b, pb, r, gap);
    if (st == -1) {
        dump_result(stderr, "distance", r);
        violation("%s distance: overlapping, but point_a != point_b", name);
    }
    if (st == 0 && (gap[0] > WITNESS_REL * L || gap[1] > WITNESS_REL * L)) {
        dump_result(stderr, "distance", r);
        violation("%s distance: the common point is %.9g from A and %.9g from B (limit %.9g)", name, gap[0], gap[1],
                  WITNESS_REL * L);
    }
}

/* Runs the three queries of a kernel; caches[q] is the cache of query q. */
static void run_queries(const kernel *k, const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                        const mink_pose *pb, mink_cache *const caches[3], answer *out, double L)
{
    out->hit = k->intersect(a, pa, b, pb, caches[0]);
    out->hit_gjk = k->intersect_gjk(a, pa, b, pb, NULL, NULL);
    poison(&out->dist);
    mink_status st = k->distance(a, pa, b, pb, caches[1], &out->dist);
    if (st != out->dist.status) violation("%s distance returned %d but wrote status %d", k->name, (int)st, (int)out->dist.status);
    check_common_point(k->name, a, pa, b, pb, &out->dist, L);
    poison(&out->pen);
    st = k->penetration(a, pa, b, pb, caches[2], &out->pen);
    if (st != out->pen.status) violation("%s penetration returned %d but wrote status %d", k->name, (int)st, (int)out->pen.status);
    poison(&out->pen_gjk);
    st = k->penetration_gjk(a, pa, b, pb, NULL, &out->pen_gjk);
    if (st != out->pen_gjk.status)
        violation("%s penetration by GJK returned %d but wrote status %d", k->name, (int)st, (int)out->pen_gjk.status);
}

/* Checks one kernel's three answers against the expectation; returns 1 when
 * they are valid answers, 0 when they are (consistent) errors. */
static int check_answer(const char *ctx, const answer *x, int expect, double L)
{
    const int err = x->hit < 0;
    if (expect == EXPECT_INVALID && !err) violation("%s: invalid input, intersect returned %d", ctx, x->hit);
    if (expect == EXPECT_VALID && err) violation("%s: valid input, intersect returned %d", ctx, x->hit);
    if ((x->hit_gjk < 0) != err) violation("%s: intersect %d but by GJK %d", ctx, x->hit, x->hit_gjk);
    if (err) {
        if (x->hit != MINK_ERR_INVALID) violation("%s: intersect returned %d", ctx, x->hit);
        if (!zero_result(&x->dist)) {
            dump_result(stderr, "distance", &x->dist);
            violation("%s: distance is not an all-zero MINK_ERR_INVALID (intersect said invalid)", ctx);
        }
        if (!zero_result(&x->pen)) {
            dump_result(stderr, "penetration", &x->pen);
            violation("%s: penetration is not an all-zero MINK_ERR_INVALID (intersect said invalid)", ctx);
        }
        if (!zero_result(&x->pen_gjk)) {
            dump_result(stderr, "penetration by GJK", &x->pen_gjk);
            violation("%s: penetration by GJK is not an all-zero MINK_ERR_INVALID (intersect said invalid)", ctx);
        }
        return 0;
    }
    if (x->hit != 0 && x->hit != 1) violation("%s: intersect returned %d", ctx, x->hit);
    if (x->hit_gjk != 0 && x->hit_gjk != 1) violation("%s: intersect by GJK returned %d", ctx, x->hit_gjk);
    check_valid_result(ctx, "distance", &x->dist, L);
    check_valid_result(ctx, "penetration", &x->pen, L);
    check_valid_result(ctx, "penetration by GJK", &x->pen_gjk, L);
    const double band = BAND_REL * L;
    const double dp = x->pen.distance, dd = x->dist.distance;
    if (dd < 0.0) violation("%s: distance query gave a negative distance %.9g", ctx, dd);
    if ((dp > band && x->hit != 0) || (dp < -band && x->hit != 1))
        violation("%s: intersect says %d but penetration distance is %.9g (band %.3g)", ctx, x->hit, dp, band);
    if ((dp > band && x->hit_gjk != 0) || (dp < -band && x->hit_gjk != 1))
        violation("%s: intersect by GJK says %d but penetration distance is %.9g (band %.3g)", ctx, x->hit_gjk, dp,
                  band);
    if ((dp > band && !(dd > 0.0)) || (dp < -band && dd > band))
        violation("%s: distance %.9g disagrees with penetration distance %.9g (band %.3g)", ctx, dd, dp, band);
    /* the box test and GJK with EPA: one answer (converged, to the cache tolerance) */
    const double dg = x->pen_gjk.distance;
    if ((dp > band && dg < -band) || (dp < -band && dg > band) ||
        (x->pen.status == MINK_OK && x->pen_gjk.status == MINK_OK && fabs(dp - dg) > CACHE_AGREE_REL * L)) {
        dump_result(stderr, "penetration", &x->pen);
        dump_result(stderr, "penetration by GJK", &x->pen_gjk);
        violation("%s: penetration %.9g but by GJK %.9g (band %.3g)", ctx, dp, dg, band);
    }
    return 1;
}

/* Two valid answers of the same pair agree on signs away from the band; with
 * `values`, converged distances agree within CACHE_AGREE_REL * L. */
static void check_agree(const char *ctx, const answer *x, const answer *y, double L, int values)
{
    const double band = BAND_REL * L;
    const double px = x->pen.distance, py = y->pen.distance;
    if ((x->hit < 0) != (y->hit < 0)) violation("%s: one answer is an error (%d vs %d)", ctx, x->hit, y->hit);
    if (x->hit < 0) return;
    if ((px > band && py < -band) || (px < -band && py > band)) {
        dump_result(stderr, "first penetration", &x->pen);
        dump_result(stderr, "second penetration", &y->pen);
        violation("%s: penetration distances %.9g and %.9g have opposite signs (band %.3g)", ctx, px, py, band);
    }
    if ((px > band && y->hit != 0) || (px < -band && y->hit != 1) || (py > band && x->hit != 0) ||
        (py < -band && x->hit != 1))
        violation("%s: intersect %d / %d vs penetration distances %.9g / %.9g", ctx, x->hit, y->hit, px, py);
    if (!values) return;
    const double tol = CACHE_AGREE_REL * L;
    if (x->pen.status == MINK_OK && y->pen.status == MINK_OK && fabs(px - py) > tol) {
        dump_result(stderr, "first penetration", &x->pen);
        dump_result(stderr, "second penetration", &y->pen);
        violation("%s: penetration distances %.9g and %.9g differ by more than %.3g", ctx, px, py, tol);
    }
    if (x->dist.status == MINK_OK && y->dist.status == MINK_OK &&
        fabs((double)x->dist.distance - y->dist.distance) > tol) {
        dump_result(stderr, "first distance", &x->dist);
        dump_result(stderr, "second distance", &y->dist);
        violation("%s: distances %.9g and %.9g differ by more than %.3g", ctx, x->dist.distance, y->dist.distance, tol);
    }
}

/* ---------------------------------------------------------------- scenarios */

/* NULL in each pointer argument, on purpose: MINK_ERR_INVALID and a zero result. */
static void null_scenario(const scenario *s)
{
    const mink_shape *a = &s->a.s, *b = &s->b.s;
    const mink_pose *pa = &s->pa, *pb = &s->pb;
    for (int ki = 0; ki < 2; ++ki) {
        const kernel *k = &kernels[ki];
        for (int which = 0; which < 4; ++which) {
            const mink_shape *xa = which == 0 ? NULL : a, *xb = which == 2 ? NULL : b;
            const mink_pose *xpa = which == 1 ? NULL : pa, *xpb = which == 3 ? NULL : pb;
            mink_result r;
            if (k->intersect(xa, xpa, xb, xpb, NULL) != MINK_ERR_INVALID)
                violation("%s intersect: NULL argument %d accepted", k->name, which);
            poison(&r);
            if (k->intersect_ex(xa, xpa, xb, xpb, NULL, &r) != MINK_ERR_INVALID || r.status != MINK_ERR_INVALID)
                violation("%s intersect_ex: NULL argument %d accepted", k->name, which);
            poison(&r);
            if (k->distance(xa, xpa, xb, xpb, NULL, &r) != MINK_ERR_INVALID || !zero_result(&r))
                violation("%s distance: NULL argument %d accepted or result not zero", k->name, which);
            poison(&r);
            if (k->penetration(xa, xpa, xb, xpb, NULL, &r) != MINK_ERR_INVALID || !zero_result(&r))
                violation("%s penetration: NULL argument %d accepted or result not zero", k->name, which);
            poison(&r);
            if (k->penetration_gjk(xa, xpa, xb, xpb, NULL, &r) != MINK_ERR_INVALID || !zero_result(&r))
                violation("%s penetration by GJK: NULL argument %d accepted or result not zero", k->name, which);
            struct mink_manifold m;
            poison_manifold(&m);
            if (k->manifold(xa, xpa, xb, xpb, 0.0f, NULL, &m) != MINK_ERR_INVALID || !zero_manifold(&m))
                violation("%s manifold: NULL argument %d accepted or manifold not zero", k->name, which);
        }
        mink_cache c;
        mink_cache_reset(&c);
        if (k->distance(a, pa, b, pb, &c, NULL) != MINK_ERR_INVALID) violation("%s distance: NULL out accepted", k->name);
        if (k->penetration(a, pa, b, pb, &c, NULL) != MINK_ERR_INVALID)
            violation("%s penetration: NULL out accepted", k->name);
        if (k->penetration_gjk(a, pa, b, pb, &c, NULL) != MINK_ERR_INVALID)
            violation("%s penetration by GJK: NULL out accepted", k->name);
        if (k->manifold(a, pa, b, pb, 0.0f, &c, NULL) != MINK_ERR_INVALID)
            violation("%s manifold: NULL out accepted", k->name);
        const mink_cache zero = {{0}};
        if (memcmp(&c, &zero, sizeof c) != 0) violation("%s: a query with a NULL out wrote the cache", k->name);
    }
    /* mink_manifold_batch: pairs == NULL answers errors; out == NULL or
     * n == 0 writes nothing */
    struct mink_manifold mb[2];
    poison_manifold(&mb[0]);
    poison_manifold(&mb[1]);
    mink_manifold_batch(NULL, 2, 0.0f, mb);
    if (!zero_manifold(&mb[0]) || !zero_manifold(&mb[1])) violation("manifold batch: pairs == NULL without errors");
    const mink_pair one = {a, *pa, b, *pb, NULL};
    mink_manifold_batch(&one, 1, 0.0f, NULL);
    poison_manifold(&mb[0]);
    mink_manifold_batch(&one, 0, 0.0f, mb);
    const uint8_t *bytes = (const uint8_t *)&mb[0];
    for (size_t i = 0; i < sizeof mb[0]; ++i)
        if (bytes[i] != 0xff) violation("manifold batch: n == 0 wrote the output");
    /* casts and times of impact: NULL in each pointer argument */
    {
        const mink_vec3 d = {0.5f, 0.0f, 0.0f};
        const mink_sweep sa = {*pa, *pa, {0.0f, 0.0f, 0.0f}}, sb = {*pb, *pb, {0.0f, 0.0f, 0.0f}};
        for (int ki = 0; ki < 2; ++ki)
            for (int which = 0; which < 5; ++which) {
                const mink_shape *xa = which == 0 ? NULL : a, *xb = which == 2 ? NULL : b;
                mink_cast_result r, *out = which == 4 ? NULL : &r;
                int rc;
                poison_cast(&r);
                if (ki) rc = mink_cast(xa, which == 1 ? NULL : pa, d, xb, which == 3 ? NULL : pb, d, 0.0f, out);
                else rc = mink_ref_cast(xa, which == 1 ? NULL : pa, d, xb, which == 3 ? NULL : pb, d, 0.0f, out);
                if (rc != MINK_ERR_INVALID || (out && !zero_cast(&r)))
                    violation("%s cast: NULL argument %d accepted or result not zero", kernels[ki].name, which);
                poison_cast(&r);
                if (ki) rc = mink_toi(xa, which == 1 ? NULL : &sa, xb, which == 3 ? NULL : &sb, 0.0f, out);
                else rc = mink_ref_toi(xa, which == 1 ? NULL : &sa, xb, which == 3 ? NULL : &sb, 0.0f, out);
                if (rc != MINK_ERR_INVALID || (out && !zero_cast(&r)))
                    violation("%s toi: NULL argument %d accepted or result not zero", kernels[ki].name, which);
            }
    }
    if (mink_shape_is_valid(NULL) || mink_pose_is_valid(NULL)) violation("is_valid(NULL) returned 1");
    mink_cache_reset(NULL);
    static _Alignas(MINK_HULL_ALIGN) float mem[3 * MINK_HULL_PAD];
    mink_shape h;
    const float pt[3] = {0, 0, 0};
    if (mink_hull_init(NULL, mem, sizeof mem, pt, 1, 0.0f) != MINK_ERR_INVALID) violation("mink_hull_init(NULL out) accepted");
    if (mink_hull_init(&h, NULL, sizeof mem, pt, 1, 0.0f) != MINK_ERR_INVALID || h.type != MINK_SHAPE_INVALID)
        violation("mink_hull_init(NULL mem) accepted");
}

static void copy_cache(mink_cache *dst, const mink_cache *src) { memcpy(dst, src, sizeof *dst); }

/* The queries with caches in several states, each compared with the cold
 * answer for the same poses. */
static void cache_scenarios(const scenario *s, int ki, const answer *cold, int expect, const uint8_t raw[64],
                            const cache_state *forged)
{
    const kernel *k = &kernels[ki];
    const mink_shape *a = &s->a.s, *b = &s->b.s;
    char ctx[256];
    answer x, y;
    mink_cache c[3], before[3];
    mink_cache *pc[3] = {&c[0], &c[1], &c[2]};
    mink_cache *shared[3] = {&c[0], &c[0], &c[0]};

    /* 1. an empty cache, then the same query again warm */
    memset(c, 0, sizeof c);
    run_queries(k, a, &s->pa, b, &s->pb, pc, &x, s->L);
    snprintf(ctx, sizeof ctx, "%s, empty cache", k->name);
    check_answer(ctx, &x, expect, s->L);
    check_agree(ctx, cold, &x, s->L, 1);
    if (x.hit < 0) {
        for (int q = 0; q < 3; ++q) {
            const mink_cache zero = {{0}};
            if (memcmp(&c[q], &zero, sizeof zero) != 0) violation("%s: an invalid query wrote the cache", ctx);
        }
        return;
    }
    run_queries(k, a, &s->pa, b, &s->pb, pc, &y, s->L);
    snprintf(ctx, sizeof ctx, "%s, warm cache", k->name);
    check_answer(ctx, &y, expect, s->L);
    check_agree(ctx, cold, &y, s->L, 1);

    /* 2. B moved: warm against cold at the new pose */
    const int expect2 = expect_and(expect_and(s->a.expect, s->b.expect), expect_and(s->expect_pa, s->expect_pb2));
    answer cold2;
    mink_cache *none[3] = {NULL, NULL, NULL};
    run_queries(k, a, &s->pa, b, &s->pb2, none, &cold2, s->L);
    snprintf(ctx, sizeof ctx, "%s, moved, cold", k->name);
    check_answer(ctx, &cold2, expect2, s->L);
    for (int q = 0; q < 3; ++q) copy_cache(&before[q], &c[q]);
    run_queries(k, a, &s->pa, b, &s->pb2, pc, &x, s->L);
    snprintf(ctx, sizeof ctx, "%s, moved, warm", k->name);
    check_answer(ctx, &x, expect2, s->L);
    check_agree(ctx, &cold2, &x, s->L, 1);
    if (x.hit < 0)
        for (int q = 0; q < 3; ++q)
            if (memcmp(&c[q], &before[q], sizeof c[q]) != 0) violation("%s: an invalid query changed the cache", ctx);

    /* 3. one cache shared by the three queries in turn */
    memset(c, 0, sizeof c);
    run_queries(k, a, &s->pa, b, &s->pb, shared, &x, s->L);
    run_queries(k, a, &s->pa, b, &s->pb, shared, &y, s->L);
    snprintf(ctx, sizeof ctx, "%s, shared cache", k->name);
    check_answer(ctx, &y, expect, s->L);
    check_agree(ctx, cold, &y, s->L, 1);

    /* 4. raw bytes from the input: must be detected or harmless */
    for (int q = 0; q < 3; ++q) memcpy(&c[q], raw, sizeof c[q]);
    run_queries(k, a, &s->pa, b, &s->pb, pc, &x, s->L);
    snprintf(ctx, sizeof ctx, "%s, raw garbage cache", k->name);
    check_answer(ctx, &x, expect, s->L);
    check_agree(ctx, cold, &x, s->L, 1);

    /* 5. a well-formed cache (right checksum and fingerprint) holding a
     *    garbage state: what survives the load must not be trusted blindly */
    for (int q = 0; q < 3; ++q) {
        /* `prev` says the outcome held for forged->frames queries already:
         * a long streak must not buy more trust than the contents deserve */
        cache_state prev = *forged;
        memset(&c[q], 0, sizeof c[q]);
        mink_cache_store(&c[q], a, b, forged, &prev);
    }
    run_queries(k, a, &s->pa, b, &s->pb, pc, &x, s->L);
    snprintf(ctx, sizeof ctx,
             "%s, forged cache (axis %.9g %.9g %.9g, count %u, outcome %u, ia %u %u %u %u, ib %u %u %u %u, frames %u)",
             k->name, forged->axis[0], forged->axis[1], forged->axis[2], forged->count, forged->outcome,
             forged->ia[0], forged->ia[1], forged->ia[2], forged->ia[3], forged->ib[0], forged->ib[1],
             forged->ib[2], forged->ib[3], forged->frames);
    check_answer(ctx, &x, expect, s->L);
    check_agree(ctx, cold, &x, s->L, 1);

    /* 6. a cache the other kernel filled (the format is shared) */
    memset(c, 0, sizeof c);
    run_queries(&kernels[1 - ki], a, &s->pa, b, &s->pb, pc, &y, s->L);
    run_queries(k, a, &s->pa, b, &s->pb, pc, &x, s->L);
    snprintf(ctx, sizeof ctx, "%s, cache filled by %s", k->name, kernels[1 - ki].name);
    check_answer(ctx, &x, expect, s->L);
    check_agree(ctx, cold, &x, s->L, 1);
}

/* The batch entry points on the pair, the swapped pair and the pair with a
 * cache: valid results that agree with the single queries. */
static void batch_scenario(const scenario *s, const answer *cold)
{
    mink_cache c;
    mink_cache_reset(&c);
    const mink_pair pairs[3] = {
        {&s->a.s, s->pa, &s->b.s, s->pb, NULL},
        {&s->b.s, s->pb, &s->a.s, s->pa, NULL},
        {&s->a.s, s->pa, &s->b.s, s->pb, &c},
    };
    mink_result out[3];
    int hits[3];
    for (int i = 0; i < 3; ++i) poison(&out[i]);
    mink_penetration_batch(pairs, 3, out);
    mink_intersect_batch(pairs, 3, hits);
    const double band = BAND_REL * s->L;
    for (int i = 0; i < 3; ++i) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "batch pair %d%s", i, i == 1 ? " (swapped)" : "");
        if ((hits[i] < 0) != (cold->hit < 0) || (out[i].status == MINK_ERR_INVALID) != (cold->hit < 0))
            violation("%s: intersect %d, penetration status %d, single query intersect %d", ctx, hits[i],
                      (int)out[i].status, cold->hit);
        if (hits[i] < 0) {
            if (hits[i] != MINK_ERR_INVALID || !zero_result(&out[i]))
                violation("%s: error %d without an all-zero result", ctx, hits[i]);
            continue;
        }
        if (hits[i] != 0 && hits[i] != 1) violation("%s: intersect returned %d", ctx, hits[i]);
        check_valid_result(ctx, "penetration", &out[i], s->L);
        const double d = out[i].distance, dc = cold->pen.distance;
        if ((d > band && hits[i] != 0) || (d < -band && hits[i] != 1))
            violation("%s: intersect %d vs penetration distance %.9g", ctx, hits[i], d);
        if ((d > band && dc < -band) || (d < -band && dc > band))
            violation("%s: penetration distance %.9g, single query %.9g", ctx, d, dc);
    }
}

/* ---------------------------------------------------------------- manifolds */

static void dump_manifold(FILE *f, const char *name, const struct mink_manifold *m)
{
    fprintf(f, "  %s: status %d count %u normal %.9g %.9g %.9g\n", name, (int)m->status, m->count, m->normal.x,
            m->normal.y, m->normal.z);
    for (uint32_t i = 0; i < m->count && i < MINK_MANIFOLD_POINTS; ++i) {
        const mink_contact *p = &m->points[i];
        fprintf(f, "    point %u: pa %.9g %.9g %.9g pb %.9g %.9g %.9g separation %.9g id %u\n", i, p->point_a.x,
                p->point_a.y, p->point_a.z, p->point_b.x, p->point_b.y, p->point_b.z, p->separation, p->id);
    }
}

/* A manifold violation: both answers involved, then the pair. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
static void manifold_violation(const char *ctx, const char *what, const struct mink_manifold *m,
                               const mink_result *pen, const struct mink_manifold *m2, const mink_result *pen2)
{
    if (m) dump_manifold(stderr, "manifold", m);
    if (pen) dump_result(stderr, "its penetration", pen);
    if (m2) dump_manifold(stderr, "other manifold", m2);
    if (pen2) dump_result(stderr, "its penetration", pen2);
    violation("%s: %s", ctx, what);
}

static double deepest(const struct mink_manifold *m)
{
    double d = HUGE_VAL;
    for (uint32_t i = 0; i < m->count; ++i) d = fmin(d, m->points[i].separation);
    return d;
}

static double angle3(mink_vec3 a, mink_vec3 b)
{
    const double x[3] = {a.x, a.y, a.z}, y[3] = {b.x, b.y, b.z};
    const double c[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), x[0] * y[0] + x[1] * y[1] + x[2] * y[2]);
}

static mink_vec3 neg3(mink_vec3 v)
{
    const mink_vec3 n = {-v.x, -v.y, -v.z};
    return n;
}

static case_pose case_pose_of(const mink_pose *p)
{
    const case_pose c = {{p->p.x, p->p.y, p->p.z}, {p->q.w, p->q.x, p->q.y, p->q.z}};
    return c;
}

/* The pair's signed distance along the direction n (A towards B):
 * -(h_A(u) + h_B(-u)), u = n / |n|. At most the signed distance (its
 * maximum over all directions), equal to it along the contact normal. */
static double separation_along(const fz_shape *a, const mink_pose *pa, const fz_shape *b, const mink_pose *pb,
                               mink_vec3 n)
{
    const double len = sqrt((double)n.x * n.x + (double)n.y * n.y + (double)n.z * n.z);
    const double u[3] = {n.x / len, n.y / len, n.z / len}, mu[3] = {-u[0], -u[1], -u[2]};
    const case_pose qa = case_pose_of(pa), qb = case_pose_of(pb);
    return -(case_support_h(&a->cs, &qa, u) + case_support_h(&b->cs, &qb, mu));
}

/* The manifold's normal against mink_penetration's (pen): within
 * NORMAL_ANGLE, or a near tie of the depth. Only away from the touching
 * band, with converged answers (FORMAT.md leaves touching normals free). */
static int normal_agrees(const fz_shape *a, const mink_pose *pa, const fz_shape *b, const mink_pose *pb, mink_vec3 n,
                         const mink_result *pen, double L, double *along)
{
    *along = NAN;
    if (angle3(n, pen->normal) <= NORMAL_ANGLE) return 1;
    *along = separation_along(a, pa, b, pb, n);
    return fabs(*along - pen->distance) <= CACHE_AGREE_REL * L;
}

/* Runs a kernel's manifold query into a poisoned result. */
static void run_manifold(const kernel *k, const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                         const mink_pose *pb, float margin, mink_cache *cache, struct mink_manifold *m)
{
    poison_manifold(m);
    const mink_status st = k->manifold(a, pa, b, pb, margin, cache, m);
    if (st != m->status) violation("%s manifold returned %d but wrote status %d", k->name, (int)st, (int)m->status);
}

/* One manifold of the pair (a at pa, b at pb) at `margin`, against the same
 * kernel's penetration answer `pen` for those poses; `expect` as for the
 * queries. Returns 1 for a valid manifold, 0 for a (consistent) error. */
static int check_manifold(const char *ctx, const fz_shape *a, const mink_pose *pa, const fz_shape *b,
                          const mink_pose *pb, float margin, int expect, const struct mink_manifold *m,
                          const mink_result *pen, double L)
{
    char what[256];
    const int err = m->status == MINK_ERR_INVALID;
    if (expect == EXPECT_INVALID && !err) manifold_violation(ctx, "invalid input accepted", m, pen, NULL, NULL);
    if (expect == EXPECT_VALID && err) manifold_violation(ctx, "valid input rejected", m, pen, NULL, NULL);
    if (err) {
        if (!zero_manifold(m)) manifold_violation(ctx, "MINK_ERR_INVALID without an all-zero manifold", m, NULL, NULL, NULL);
        return 0;
    }
    if (m->status != MINK_OK && m->status != MINK_MAX_ITERATIONS)
        manifold_violation(ctx, "status is not MINK_OK, MINK_MAX_ITERATIONS or MINK_ERR_INVALID", m, pen, NULL, NULL);
    if (pen->status < 0) manifold_violation(ctx, "a valid manifold of a pair mink_penetration rejects", m, pen, NULL, NULL);
    if (m->count > MINK_MANIFOLD_POINTS) manifold_violation(ctx, "count above MINK_MANIFOLD_POINTS", m, pen, NULL, NULL);
    const double n[3] = {m->normal.x, m->normal.y, m->normal.z};
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!isfinite(len)) manifold_violation(ctx, "non-finite normal", m, pen, NULL, NULL);
    if (fabs(len - 1.0) > UNIT_TOL && (m->count > 0 || len != 0.0)) {
        snprintf(what, sizeof what, "|normal| = %.9g (count %u)", len, m->count);
        manifold_violation(ctx, what, m, pen, NULL, NULL);
    }
    const double tol = WITNESS_REL * L;
    /* the support planes along the normal: each point must lie inside its
     * shape's (a necessary condition of lying on its surface) */
    const double u[3] = {n[0] / len, n[1] / len, n[2] / len}, mu[3] = {-u[0], -u[1], -u[2]};
    const case_pose qa = case_pose_of(pa), qb = case_pose_of(pb);
    const double ha = m->count ? case_support_h(&a->cs, &qa, u) : 0.0;
    const double hb = m->count ? -case_support_h(&b->cs, &qb, mu) : 0.0;
    for (uint32_t i = 0; i < m->count; ++i) {
        const mink_contact *p = &m->points[i];
        const double pa_[3] = {p->point_a.x, p->point_a.y, p->point_a.z};
        const double pb_[3] = {p->point_b.x, p->point_b.y, p->point_b.z};
        const double sep = p->separation;
        if (!isfinite(pa_[0] + pa_[1] + pa_[2] + pb_[0] + pb_[1] + pb_[2] + sep)) {
            snprintf(what, sizeof what, "point %u is not finite", i);
            manifold_violation(ctx, what, m, pen, NULL, NULL);
        }
        const double e[3] = {pb_[0] - pa_[0] - sep * n[0], pb_[1] - pa_[1] - sep * n[1], pb_[2] - pa_[2] - sep * n[2]};
        const double gap = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        if (gap > tol) {
            snprintf(what, sizeof what, "point %u: |point_b - point_a - separation * normal| = %.9g > %.9g", i, gap, tol);
            manifold_violation(ctx, what, m, pen, NULL, NULL);
        }
        if (sep > margin + tol) {
            snprintf(what, sizeof what, "point %u: separation %.9g above the margin %.9g (+ %.3g)", i, sep, margin, tol);
            manifold_violation(ctx, what, m, pen, NULL, NULL);
        }
        const double ua = u[0] * pa_[0] + u[1] * pa_[1] + u[2] * pa_[2], ub = u[0] * pb_[0] + u[1] * pb_[1] + u[2] * pb_[2];
        if (ua > ha + tol || ub < hb - tol) {
            snprintf(what, sizeof what, "point %u outside its shape: n.pa %.9g vs h_A(n) %.9g, n.pb %.9g vs -h_B(-n) %.9g",
                     i, ua, ha, ub, hb);
            manifold_violation(ctx, what, m, pen, NULL, NULL);
        }
        for (uint32_t j = 0; j < i; ++j)
            if (m->points[j].id == p->id) {
                snprintf(what, sizeof what, "points %u and %u share the id %u", j, i, p->id);
                manifold_violation(ctx, what, m, pen, NULL, NULL);
            }
    }
    /* count 0 exactly when the signed distance is above the margin */
    const double band = BAND_REL * L, d = pen->distance;
    if (m->count == 0 && d < margin - band) {
        snprintf(what, sizeof what, "count 0, but the signed distance %.9g is below the margin %.9g (band %.3g)", d,
                 margin, band);
        manifold_violation(ctx, what, m, pen, NULL, NULL);
    }
    if (m->count > 0 && d > margin + band) {
        snprintf(what, sizeof what, "count %u, but the signed distance %.9g is above the margin %.9g (band %.3g)",
                 m->count, d, margin, band);
        manifold_violation(ctx, what, m, pen, NULL, NULL);
    }
    if (m->count == 0 || m->status != MINK_OK || pen->status != MINK_OK) return 1;
    const double deep = deepest(m);
    if (fabs(deep - d) > CACHE_AGREE_REL * L) {
        snprintf(what, sizeof what, "smallest separation %.9g, signed distance %.9g (differ by more than %.3g)", deep, d,
                 CACHE_AGREE_REL * L);
        manifold_violation(ctx, what, m, pen, NULL, NULL);
    }
    double along;
    if (fabs(d) > band && !normal_agrees(a, pa, b, pb, m->normal, pen, L, &along)) {
        snprintf(what, sizeof what,
                 "normal %.3g rad from mink_penetration's, and no near tie: signed distance %.9g along it, %.9g "
                 "(tolerance %.3g)",
                 angle3(m->normal, pen->normal), along, d, CACHE_AGREE_REL * L);
        manifold_violation(ctx, what, m, pen, NULL, NULL);
    }
    return 1;
}

/* Two valid manifolds of the pair (y of the swapped pair when `swapped`),
 * each with the penetration answer it was checked against: count == 0
 * agrees outside the touching band around the margin, the deepest
 * separations agree, and y's normal (negated when swapped) is x's or a near
 * tie (it is then x's normal for the pair as well). */
static void check_manifold_agree(const char *ctx, const scenario *s, const struct mink_manifold *x,
                                 const mink_result *px, const struct mink_manifold *y, const mink_result *py,
                                 int swapped)
{
    char what[256];
    if ((x->status < 0) != (y->status < 0)) manifold_violation(ctx, "one manifold is an error", x, px, y, py);
    if (x->status < 0) return;
    const double band = BAND_REL * s->L, tol = CACHE_AGREE_REL * s->L, m = s->margin;
    const double dx = px->distance, dy = py->distance;
    if ((x->count == 0) != (y->count == 0) && fabs(dx - m) > band && fabs(dy - m) > band)
        manifold_violation(ctx, "counts disagree on zero outside the touching band", x, px, y, py);
    if (x->count == 0 || y->count == 0 || x->status != MINK_OK || y->status != MINK_OK) return;
    if (fabs(deepest(x) - deepest(y)) > tol) {
        snprintf(what, sizeof what, "deepest separations %.9g and %.9g differ by more than %.3g", deepest(x),
                 deepest(y), tol);
        manifold_violation(ctx, what, x, px, y, py);
    }
    if (fabs(dx) <= band || fabs(dy) <= band || px->status != MINK_OK) return;
    const mink_vec3 ny = swapped ? neg3(y->normal) : y->normal;
    double along;
    if (angle3(x->normal, ny) > NORMAL_ANGLE && !normal_agrees(&s->a, &s->pa, &s->b, &s->pb, ny, px, s->L, &along)) {
        snprintf(what, sizeof what, "normals %.3g rad apart%s, and no near tie: signed distance %.9g along it, %.9g",
                 angle3(x->normal, ny), swapped ? " (the second negated)" : "", along, dx);
        manifold_violation(ctx, what, x, px, y, py);
    }
}

/* What one kernel's manifold scenarios leave for the cross-kernel and batch
 * checks: the cold manifold (no cache), whether it was valid, and the cache
 * its first query filled from empty. */
typedef struct manifold_cold {
    struct mink_manifold m;
    int valid;
    mink_cache filled;
} manifold_cold;

/* The manifold queries of one kernel with caches in every state, each
 * checked against the kernel's penetration answer at the same poses. */
static void manifold_scenarios(const scenario *s, int ki, const answer *cold, const uint8_t raw[64],
                               const cache_state *forged, const feature_state *forged_feature, manifold_cold *mc)
{
    static const float bad_margins[5] = {-1e-3f, -0x1p-140f, NAN, INFINITY, -INFINITY};
    const kernel *k = &kernels[ki];
    struct mink_manifold *out = &mc->m;
    const fz_shape *fa = &s->a, *fb = &s->b;
    const mink_shape *a = &fa->s, *b = &fb->s;
    const float margin = s->margin;
    const int expect = expect_and(cold->hit < 0 ? EXPECT_INVALID : EXPECT_VALID, s->expect_margin);
    char ctx[320];
    struct mink_manifold m, m2;
    mink_cache c, before;
    const mink_cache zero = {{0}};

    /* 1. cold; an empty cache, then the same query warm */
    run_manifold(k, a, &s->pa, b, &s->pb, margin, NULL, out);
    snprintf(ctx, sizeof ctx, "%s manifold, cold", k->name);
    const int valid = check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, out, &cold->pen, s->L);
    mc->valid = valid;
    memset(&c, 0, sizeof c);
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    copy_cache(&mc->filled, &c);
    snprintf(ctx, sizeof ctx, "%s manifold, empty cache", k->name);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);
    if (!valid) {
        if (memcmp(&c, &zero, sizeof c) != 0) violation("%s: an invalid query wrote the cache", ctx);
        return;
    }
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    snprintf(ctx, sizeof ctx, "%s manifold, warm cache", k->name);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);

    /* 2. bad margins: errors, the warm cache untouched */
    for (int i = 0; i < 5; ++i) {
        copy_cache(&before, &c);
        run_manifold(k, a, &s->pa, b, &s->pb, bad_margins[i], &c, &m);
        snprintf(ctx, sizeof ctx, "%s manifold, bad margin %.9g", k->name, bad_margins[i]);
        check_manifold(ctx, fa, &s->pa, fb, &s->pb, bad_margins[i], EXPECT_INVALID, &m, &cold->pen, s->L);
        if (memcmp(&c, &before, sizeof c) != 0) violation("%s: an invalid query changed the cache", ctx);
    }
    /* a hull without its topology: an error, the cache untouched */
    for (int side = 0; side < 2; ++side) {
        mink_shape bare = side ? *b : *a;
        if (bare.type != MINK_SHAPE_HULL) continue;
        bare.topology = NULL;
        copy_cache(&before, &c);
        run_manifold(k, side ? a : &bare, &s->pa, side ? &bare : b, &s->pb, margin, &c, &m);
        snprintf(ctx, sizeof ctx, "%s manifold, %c a hull without its topology", k->name, "AB"[side]);
        check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, EXPECT_INVALID, &m, &cold->pen, s->L);
        if (memcmp(&c, &before, sizeof c) != 0) violation("%s: an invalid query changed the cache", ctx);
    }

    /* 3. B moved, warm; then back, warm. Checked against the penetration
     *    answer at the new pose. */
    mink_result pen2;
    poison(&pen2);
    k->penetration(a, &s->pa, b, &s->pb2, NULL, &pen2);
    const int expect2 = expect_and(pen2.status < 0 ? EXPECT_INVALID : EXPECT_VALID, s->expect_margin);
    copy_cache(&before, &c);
    run_manifold(k, a, &s->pa, b, &s->pb2, margin, &c, &m);
    snprintf(ctx, sizeof ctx, "%s manifold, moved, warm", k->name);
    if (!check_manifold(ctx, fa, &s->pa, fb, &s->pb2, margin, expect2, &m, &pen2, s->L) &&
        memcmp(&c, &before, sizeof c) != 0)
        violation("%s: an invalid query changed the cache", ctx);
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    snprintf(ctx, sizeof ctx, "%s manifold, moved back, warm", k->name);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);

    /* 4. garbage: raw bytes; a well-formed GJK state and feature state
     *    holding garbage */
    memcpy(&c, raw, sizeof c);
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    snprintf(ctx, sizeof ctx, "%s manifold, raw garbage cache", k->name);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);
    {
        cache_state prev = *forged;
        memset(&c, 0, sizeof c);
        mink_cache_store(&c, a, b, forged, &prev);
    }
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    snprintf(ctx, sizeof ctx, "%s manifold, forged GJK cache (axis %.9g %.9g %.9g, count %u, outcome %u)", k->name,
             forged->axis[0], forged->axis[1], forged->axis[2], forged->count, forged->outcome);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);
    memset(&c, 0, sizeof c);
    mink_cache_store_feature(&c, a, b, forged_feature, NULL);
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    const feature_state *ff = forged_feature;
    snprintf(ctx, sizeof ctx,
             "%s manifold, forged feature cache (feature %u ia %u ib %u outcome %u axis %.9g %.9g %.9g separation "
             "%.9g pos %.9g %.9g %.9g rot %.9g %.9g %.9g)",
             k->name, ff->feature, ff->ia, ff->ib, ff->outcome, ff->axis[0], ff->axis[1], ff->axis[2], ff->separation,
             ff->pos[0], ff->pos[1], ff->pos[2], ff->rot[0], ff->rot[1], ff->rot[2]);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);

    /* 5. foreign caches: mink_penetration's, another margin's, the swapped
     *    pair's (its manifold also checks the swap: the same answer with the
     *    normal negated); the other kernel's: manifold_foreign_kernel */
    {
        mink_result r;
        memset(&c, 0, sizeof c);
        k->penetration(a, &s->pa, b, &s->pb, &c, &r);
    }
    run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
    snprintf(ctx, sizeof ctx, "%s manifold, cache filled by penetration", k->name);
    check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);
    {
        const float margin2 = margin > 0.0f ? 0.0f : to_float(0.05 * s->L);
        memset(&c, 0, sizeof c);
        run_manifold(k, a, &s->pa, b, &s->pb, margin2, &c, &m2);
        snprintf(ctx, sizeof ctx, "%s manifold, margin %.9g", k->name, margin2);
        check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin2, expect_size(margin2), &m2, &cold->pen, s->L);
        run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
        snprintf(ctx, sizeof ctx, "%s manifold, cache filled at margin %.9g", k->name, margin2);
        check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);
    }
    {
        mink_result pen_sw = cold->pen; /* the swapped pair's answer: the normal negated */
        pen_sw.normal = neg3(cold->pen.normal);
        pen_sw.point_a = cold->pen.point_b;
        pen_sw.point_b = cold->pen.point_a;
        memset(&c, 0, sizeof c);
        run_manifold(k, b, &s->pb, a, &s->pa, margin, &c, &m2);
        snprintf(ctx, sizeof ctx, "%s manifold, swapped", k->name);
        check_manifold(ctx, fb, &s->pb, fa, &s->pa, margin, expect, &m2, &pen_sw, s->L);
        check_manifold_agree(ctx, s, out, &cold->pen, &m2, &pen_sw, 1);
        run_manifold(k, a, &s->pa, b, &s->pb, margin, &c, &m);
        snprintf(ctx, sizeof ctx, "%s manifold, cache filled by the swapped pair", k->name);
        check_manifold(ctx, fa, &s->pa, fb, &s->pb, margin, expect, &m, &cold->pen, s->L);
    }
}

/* A kernel's manifold with the cache the other kernel's first query filled
 * (the format is shared). */
static void manifold_foreign_kernel(const scenario *s, int ki, const answer *cold, const manifold_cold *other)
{
    const kernel *k = &kernels[ki];
    mink_cache c;
    copy_cache(&c, &other->filled);
    struct mink_manifold m;
    run_manifold(k, &s->a.s, &s->pa, &s->b.s, &s->pb, s->margin, &c, &m);
    char ctx[64];
    snprintf(ctx, sizeof ctx, "%s manifold, cache filled by the %s manifold", k->name, kernels[1 - ki].name);
    check_manifold(ctx, &s->a, &s->pa, &s->b, &s->pb, s->margin, EXPECT_VALID, &m, &cold->pen, s->L);
}

/* mink_manifold_batch against mink_manifold pair by pair, bit for bit
 * (answers and caches): the pair (its single answer: `cold`, simd), the
 * swapped pair, the pair with a warm cache (cold's), an invalid pair (a
 * NULL shape) among them. */
static void manifold_batch_scenario(const scenario *s, const manifold_cold *cold)
{
    mink_cache c, c_single;
    copy_cache(&c, &cold->filled);
    copy_cache(&c_single, &c);
    struct mink_manifold single[4], out[4];
    const mink_pair pairs[4] = {
        {&s->a.s, s->pa, &s->b.s, s->pb, NULL},
        {&s->b.s, s->pb, &s->a.s, s->pa, NULL},
        {&s->a.s, s->pa, &s->b.s, s->pb, &c},
        {NULL, s->pa, &s->b.s, s->pb, NULL},
    };
    for (int i = 0; i < 4; ++i) poison_manifold(&out[i]);
    mink_manifold_batch(pairs, 4, s->margin, out);
    single[0] = cold->m;
    for (int i = 1; i < 4; ++i) {
        mink_cache *cache = pairs[i].cache ? &c_single : NULL;
        run_manifold(&kernels[1], pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, s->margin, cache, &single[i]);
    }
    for (int i = 0; i < 4; ++i) {
        if (memcmp(&out[i], &single[i], sizeof out[i]) != 0) {
            char ctx[64];
            snprintf(ctx, sizeof ctx, "manifold batch pair %d", i);
            manifold_violation(ctx, "differs from mink_manifold", &out[i], NULL, &single[i], NULL);
        }
    }
    if (memcmp(&c, &c_single, sizeof c) != 0) violation("manifold batch: the cache differs from mink_manifold's");
}

/* ---------------------------------------------------------------- casts */

/* Validity of a cast's inputs beyond the shapes and initial poses. */
static int expect_target(float t)
{
    if (!(t >= 0.0f) || !isfinite(t)) return EXPECT_INVALID; /* -0 is a legal zero */
    return t <= MINK_MAX_MAGNITUDE ? EXPECT_VALID : EXPECT_EITHER;
}

/* A place the kernel computes from the inputs (largest |coordinate| m, in
 * double): inside the limit, past it, or at the edge, where float rounding
 * may decide either way. */
static int expect_place(double m)
{
    if (!(m <= MINK_MAX_MAGNITUDE * (1.0 + 1e-5))) return EXPECT_INVALID;
    return m < MINK_MAX_MAGNITUDE * (1.0 - 1e-5) ? EXPECT_VALID : EXPECT_EITHER;
}

/* mink_cast: a non-finite translation, or one that ends past the limit, is
 * invalid (documented); a translation longer than the limit that ends
 * inside it is accepted or not (the kernel rejects it). */
static int expect_translation(const mink_pose *p, mink_vec3 d)
{
    if (!isfinite(d.x) || !isfinite(d.y) || !isfinite(d.z)) return EXPECT_INVALID;
    const double end = fmax(fabs((double)p->p.x + d.x), fmax(fabs((double)p->p.y + d.y), fabs((double)p->p.z + d.z)));
    const int e = expect_place(end);
    return max_abs3(d) > MINK_MAX_MAGNITUDE && e != EXPECT_INVALID ? EXPECT_EITHER : e;
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Quaternions in double, x y z w. */
static void dq_mul(const double a[4], const double b[4], double r[4])
{
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
}

/* v rotated by the unit q: v + 2w (u x v) + 2 u x (u x v). */
static void dq_rotate(const double q[4], const double v[3], double out[3])
{
    const double t[3] = {2.0 * (q[1] * v[2] - q[2] * v[1]), 2.0 * (q[2] * v[0] - q[0] * v[2]),
                         2.0 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

static void dq_unit(mink_quat q, double out[4])
{
    const double v[4] = {q.x, q.y, q.z, q.w};
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (int k = 0; k < 4; ++k) out[k] = n > 0.0 ? v[k] / n : (k == 3);
}

/* One body's motion over the step as documented (API.md, "Continuous
 * collision"), in double: the local point `center` moves on a straight
 * line from its place at pose0 to its place at pose1 while the body turns
 * about it at a constant rate from q0 to q1 on the shortest arc. A linear
 * cast is the case q1 = q0 (any centre). */
typedef struct dmotion {
    double c0[3], v[3]; /* the centre at t = 0 (world) and its displacement */
    double center[3];   /* local                                            */
    double q0[4];       /* unit                                             */
    double axis[3];     /* unit world axis of the turn, and its angle       */
    double angle;
    int half_turn;      /* |q0.q1| tiny: the shortest arc is a tie that the
                           kernel's float may break the other way           */
} dmotion;

/* CAST_HALF_TURN: |q0.q1| below it is a half turn (see half_turn). */
#define CAST_HALF_TURN 1e-4

static void dmotion_init(dmotion *m, const mink_pose *p0, const double p1[3], mink_quat q1f, mink_vec3 center)
{
    double q1[4], r0[3], r1[3];
    memset(m, 0, sizeof *m);
    dq_unit(p0->q, m->q0);
    dq_unit(q1f, q1);
    double dot = 0.0;
    for (int k = 0; k < 4; ++k) dot += m->q0[k] * q1[k];
    if (dot < 0.0)
        for (int k = 0; k < 4; ++k) q1[k] = -q1[k];
    m->half_turn = fabs(dot) < CAST_HALF_TURN;
    const double q0c[4] = {-m->q0[0], -m->q0[1], -m->q0[2], m->q0[3]};
    double turn[4];
    dq_mul(q1, q0c, turn);
    const double sh = norm3(turn);
    m->angle = 2.0 * atan2(sh, fabs(turn[3]));
    for (int k = 0; k < 3; ++k) m->axis[k] = sh > 0.0 ? turn[k] * (turn[3] < 0.0 ? -1.0 : 1.0) / sh : (k == 0);
    m->center[0] = center.x, m->center[1] = center.y, m->center[2] = center.z;
    dq_rotate(m->q0, m->center, r0);
    dq_rotate(q1, m->center, r1);
    const double p0d[3] = {p0->p.x, p0->p.y, p0->p.z};
    for (int k = 0; k < 3; ++k) {
        m->c0[k] = p0d[k] + r0[k];
        m->v[k] = p1[k] + r1[k] - m->c0[k];
    }
}

/* The pose at time t, rounded to float once at the end. */
static mink_pose dmotion_pose(const dmotion *m, double t)
{
    double q[4], rc[3];
    if (m->angle > 0.0) {
        const double h = 0.5 * t * m->angle, sh = sin(h);
        const double turn[4] = {m->axis[0] * sh, m->axis[1] * sh, m->axis[2] * sh, cos(h)};
        dq_mul(turn, m->q0, q);
        const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int k = 0; k < 4; ++k) q[k] /= n;
    } else {
        memcpy(q, m->q0, sizeof q);
    }
    dq_rotate(q, m->center, rc);
    mink_pose p;
    p.p.x = narrow(m->c0[0] + t * m->v[0] - rc[0]);
    p.p.y = narrow(m->c0[1] + t * m->v[1] - rc[1]);
    p.p.z = narrow(m->c0[2] + t * m->v[2] - rc[2]);
    p.q.x = (float)q[0], p.q.y = (float)q[1], p.q.z = (float)q[2], p.q.w = (float)q[3];
    return p;
}

/* A bound on |pose(t).p|inf over the step. */
static double dmotion_reach(const dmotion *m)
{
    double r = 0.0;
    for (int k = 0; k < 3; ++k) r = fmax(r, fmax(fabs(m->c0[k]), fabs(m->c0[k] + m->v[k])));
    return r + norm3(m->center);
}

/* mink_toi's sweep: its poses (quaternion within the tolerance, positions
 * within the limit), a finite centre within the limit ("huge" is past it);
 * the centre's path ending past the limit, or a pose inside the step that
 * may pass it (a turn about a far centre), is accepted or not. */
static int expect_sweep(const mink_sweep *w)
{
    int e = expect_and(expect_pose(&w->pose0), expect_pose(&w->pose1));
    const mink_vec3 c = w->center;
    if (!isfinite(c.x) || !isfinite(c.y) || !isfinite(c.z)) return EXPECT_INVALID;
    e = expect_and(e, expect_place(max_abs3(c)));
    if (e == EXPECT_INVALID) return e;
    dmotion m;
    const double p1[3] = {w->pose1.p.x, w->pose1.p.y, w->pose1.p.z};
    dmotion_init(&m, &w->pose0, p1, w->pose1.q, c);
    double ends = 0.0;
    for (int k = 0; k < 3; ++k) ends = fmax(ends, fmax(fabs(m.c0[k]), fabs(m.c0[k] + m.v[k])));
    if (expect_place(ends) != EXPECT_VALID || expect_place(dmotion_reach(&m)) != EXPECT_VALID) e = expect_and(e, EXPECT_EITHER);
    return e;
}

/* The never-late and agreement checks allow the kernel's own signed
 * distance at a sampled time to be off the target by CAST_SLACK_REL * Lc
 * either way (FORMAT.md's query tolerance, 1e-4 L, plus this file's
 * touching band), Lc the L above taken over the whole motion. Float noise
 * (the kernel's stop, 4e-6 S; poses rounded to float; warm against cold
 * queries) is far below it; a step over a contact leaves the pair deeper
 * than it unless the contact itself is that shallow. */
#define CAST_SLACK_REL (1e-4 + BAND_REL)
/* Evenly spaced sampled times before a hit (over the step on a miss). */
#define CAST_SAMPLES 8
/* Answers per motion (cast_scenario's plan). */
#define CAST_ANSWERS 6
/* Most sampled times per motion: the evenly spaced ones, the centres'
 * closest approach, the end of the step, the answers' times, and three
 * after each of them when the answers disagree on hit or miss. */
#define CAST_MAX_SAMPLES (CAST_SAMPLES + 2 + 4 * CAST_ANSWERS)

static int finite_cast(const mink_cast_result *r)
{
    const float f[10] = {r->t, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int k = 0; k < 10; ++k)
        if (!isfinite(f[k])) return 0;
    return 1;
}

static void dump_cast(FILE *f, const char *name, int rc, const mink_cast_result *r)
{
    fprintf(f, "  %s: returned %d status %d t %.9g normal %.9g %.9g %.9g pa %.9g %.9g %.9g pb %.9g %.9g %.9g "
               "iterations %u\n",
            name, rc, (int)r->status, r->t, r->normal.x, r->normal.y, r->normal.z, r->point_a.x, r->point_a.y,
            r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z, r->iterations);
}

/* The answers for one motion: each kernel's for the pair and the swapped
 * pair, and the SIMD kernel's _ex entry point with a garbage cache (the
 * input's raw bytes, and a well-formed forged state). */
enum { CAST_PAIR, CAST_SWAPPED, CAST_RAW_CACHE, CAST_FORGED_CACHE };

typedef struct cast_answer {
    int ki, how; /* kernel, CAST_* */
    int rc;
    mink_cast_result r;
} cast_answer;

typedef struct cast_set {
    const char *query; /* "cast" or "toi" */
    int n;
    cast_answer x[CAST_ANSWERS];
} cast_set;

static const char *cast_name(const cast_set *c, const cast_answer *x, char *buf, size_t n)
{
    static const char *how[4] = {"", " (swapped)", "_ex (raw garbage cache)", "_ex (forged cache)"};
    snprintf(buf, n, "%s %s%s", kernels[x->ki].name, c->query, how[x->how]);
    return buf;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3), noreturn))
#endif
static void cast_violation(const cast_set *c, const char *fmt, ...);

static void cast_violation(const cast_set *c, const char *fmt, ...)
{
    char msg[512], name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (int i = 0; i < c->n; ++i) dump_cast(stderr, cast_name(c, &c->x[i], name, sizeof name), c->x[i].rc, &c->x[i].r);
    violation("%s", msg);
}

/* One cast answer's form; returns 1 when it is a valid answer, 0 for a
 * (consistent) error. */
static int check_cast(const cast_set *c, const cast_answer *x, int expect, double L)
{
    char name[64];
    cast_name(c, x, name, sizeof name);
    const int rc = x->rc;
    const mink_cast_result *r = &x->r;
    if (rc < 0) {
        if (expect == EXPECT_VALID) cast_violation(c, "%s: valid input rejected", name);
        if (rc != MINK_ERR_INVALID || !zero_cast(r))
            cast_violation(c, "%s: an error without MINK_ERR_INVALID and an all-zero result", name);
        return 0;
    }
    if (expect == EXPECT_INVALID) cast_violation(c, "%s: invalid input accepted", name);
    if (rc != 0 && rc != 1) cast_violation(c, "%s: returned %d", name, rc);
    if (r->status != MINK_OK && r->status != MINK_MAX_ITERATIONS)
        cast_violation(c, "%s: valid input gave status %d", name, (int)r->status);
    if (!finite_cast(r)) cast_violation(c, "%s: non-finite result for valid input", name);
    if (r->iterations < 1 || r->iterations > MINK_CAST_MAX_ITERATIONS)
        cast_violation(c, "%s: iterations %u outside [1, %d]", name, r->iterations, MINK_CAST_MAX_ITERATIONS);
    if (!(r->t >= 0.0f && r->t <= 1.0f)) cast_violation(c, "%s: t %.9g outside [0, 1]", name, r->t);
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z};
    if (rc == 0) {
        const float z[9] = {r->normal.x, r->normal.y, r->normal.z, r->point_a.x, r->point_a.y,
                            r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
        int zero = r->t == 1.0f;
        for (int k = 0; k < 9; ++k) zero &= z[k] == 0.0f;
        if (!zero) cast_violation(c, "%s: a miss without t = 1 and a zero normal and witnesses", name);
        return 1;
    }
    const double len = norm3(n);
    if (fabs(len - 1.0) > UNIT_TOL) cast_violation(c, "%s: |normal| = %.9g on a hit", name, len);
    const double w[3] = {(double)r->point_b.x - r->point_a.x, (double)r->point_b.y - r->point_a.y,
                         (double)r->point_b.z - r->point_a.z};
    const double d = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
    const double e[3] = {w[0] - d * n[0], w[1] - d * n[1], w[2] - d * n[2]};
    if (norm3(e) > WITNESS_REL * L)
        cast_violation(c, "%s: |point_b - point_a - d * normal| = %.9g > %.9g (d = %.9g)", name, norm3(e),
                       WITNESS_REL * L, d);
    return 1;
}

static void add_sample(double *t, int *n, double v)
{
    if (!(v >= 0.0 && v <= 1.0) || *n >= CAST_MAX_SAMPLES) return;
    for (int i = 0; i < *n; ++i)
        if (t[i] == v) return;
    t[(*n)++] = v;
}

/* Runs one cast answer (kind 0: the translations, 1: the sweeps). */
static void run_cast(const scenario *s, int kind, cast_answer *x, const uint8_t raw[64], const cache_state *forged)
{
    const mink_shape *a = &s->a.s, *b = &s->b.s;
    const float target = s->target;
    mink_cast_result *r = &x->r;
    mink_cache cache;
    if (x->how == CAST_RAW_CACHE) {
        memcpy(&cache, raw, sizeof cache);
    } else if (x->how == CAST_FORGED_CACHE) {
        cache_state prev = *forged;
        memset(&cache, 0, sizeof cache);
        mink_cache_store(&cache, a, b, forged, &prev);
    }
    poison_cast(r);
    if (x->how >= CAST_RAW_CACHE)
        x->rc = kind ? mink_toi_ex(a, &s->sa, b, &s->sb, target, &cache, r)
                     : mink_cast_ex(a, &s->pa, s->da, b, &s->pb, s->db, target, &cache, r);
    else if (kind == 0) {
        int (*f)(const mink_shape *, const mink_pose *, mink_vec3, const mink_shape *, const mink_pose *, mink_vec3,
                 float, mink_cast_result *) = x->ki ? mink_cast : mink_ref_cast;
        x->rc = x->how == CAST_SWAPPED ? f(b, &s->pb, s->db, a, &s->pa, s->da, target, r)
                                       : f(a, &s->pa, s->da, b, &s->pb, s->db, target, r);
    } else {
        int (*f)(const mink_shape *, const mink_sweep *, const mink_shape *, const mink_sweep *, float,
                 mink_cast_result *) = x->ki ? mink_toi : mink_ref_toi;
        x->rc = x->how == CAST_SWAPPED ? f(b, &s->sb, a, &s->sa, target, r) : f(a, &s->sa, b, &s->sb, target, r);
    }
}

/* The casts of one motion (kind 0: mink_cast, translations only; kind 1:
 * mink_toi on the sweeps): their form, then, against each kernel's own
 * mink_penetration at sampled times of the documented motion: never late,
 * never through a contact, agreeing with each other up to grazes. */
static void cast_scenario(const scenario *s, int kind, const uint8_t raw[64], const cache_state *forged)
{
    static const int plan[CAST_ANSWERS][2] = {{0, CAST_PAIR},    {0, CAST_SWAPPED},  {1, CAST_PAIR},
                                              {1, CAST_SWAPPED}, {1, CAST_RAW_CACHE}, {1, CAST_FORGED_CACHE}};
    const fz_shape *fa = &s->a, *fb = &s->b;
    const mink_shape *a = &fa->s, *b = &fb->s;
    const float target = s->target;
    cast_set c;
    c.query = kind ? "toi" : "cast";
    c.n = CAST_ANSWERS;
    int expect = expect_and(expect_and(fa->expect, fb->expect), expect_target(target));
    if (kind == 0)
        expect = expect_and(expect, expect_and(expect_and(s->expect_pa, s->expect_pb),
                                               expect_and(expect_translation(&s->pa, s->da),
                                                          expect_translation(&s->pb, s->db))));
    else
        expect = expect_and(expect, expect_and(expect_sweep(&s->sa), expect_sweep(&s->sb)));
    for (int i = 0; i < c.n; ++i) {
        c.x[i].ki = plan[i][0];
        c.x[i].how = plan[i][1];
        run_cast(s, kind, &c.x[i], raw, forged);
    }
#ifdef MINK_FUZZ_STANDALONE
    if (getenv("MINK_FUZZ_VERBOSE")) {
        char name[64];
        for (int i = 0; i < c.n; ++i) dump_cast(stderr, cast_name(&c, &c.x[i], name, sizeof name), c.x[i].rc, &c.x[i].r);
    }
#endif
    /* the motion in double, and its scale */
    dmotion ma, mb;
    {
        const double pa1[3] = {(double)s->pa.p.x + s->da.x, (double)s->pa.p.y + s->da.y, (double)s->pa.p.z + s->da.z};
        const double pb1[3] = {(double)s->pb.p.x + s->db.x, (double)s->pb.p.y + s->db.y, (double)s->pb.p.z + s->db.z};
        const double qa1[3] = {s->sa.pose1.p.x, s->sa.pose1.p.y, s->sa.pose1.p.z};
        const double qb1[3] = {s->sb.pose1.p.x, s->sb.pose1.p.y, s->sb.pose1.p.z};
        const mink_vec3 origin = {0.0f, 0.0f, 0.0f};
        if (kind == 0) {
            dmotion_init(&ma, &s->pa, pa1, s->pa.q, origin);
            dmotion_init(&mb, &s->pb, pb1, s->pb.q, origin);
        } else {
            dmotion_init(&ma, &s->sa.pose0, qa1, s->sa.pose1.q, s->sa.center);
            dmotion_init(&mb, &s->sb.pose0, qb1, s->sb.pose1.q, s->sb.center);
        }
    }
    double Lc = fmax(1.0, dmotion_reach(&ma) + dmotion_reach(&mb) + fa->extent + fabs((double)a->radius) + fb->extent +
                              fabs((double)b->radius));
    if (!isfinite(Lc)) Lc = 1.0; /* invalid input: only the form is checked */

    /* the form of each answer; all share the input checks */
    const int valid = check_cast(&c, &c.x[0], expect, Lc);
    for (int i = 1; i < c.n; ++i)
        if (check_cast(&c, &c.x[i], expect, Lc) != valid)
            cast_violation(&c, "%s: the answers disagree on whether the input is valid", c.query);
    if (!valid || ma.half_turn || mb.half_turn) return;

    /* sampled times */
    double ts[CAST_MAX_SAMPLES];
    int ns = 0, any_miss = 0;
    double T = 0.0;
    for (int i = 0; i < c.n; ++i) {
        if (c.x[i].rc == 1) T = fmax(T, c.x[i].r.t);
        else any_miss = 1;
    }
    if (any_miss) T = 1.0;
    for (int i = 0; i < CAST_SAMPLES; ++i) add_sample(ts, &ns, (i + s->cast_phase / 256.0) / CAST_SAMPLES * T);
    {
        /* the centres' closest approach: where a fast body crosses a thin one */
        double r0[3], w[3];
        for (int k = 0; k < 3; ++k) r0[k] = mb.c0[k] - ma.c0[k], w[k] = mb.v[k] - ma.v[k];
        const double ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        if (ww > 0.0) add_sample(ts, &ns, fmin(1.0, fmax(0.0, -(r0[0] * w[0] + r0[1] * w[1] + r0[2] * w[2]) / ww)));
    }
    if (any_miss) add_sample(ts, &ns, 1.0);
    for (int i = 0; i < c.n; ++i)
        if (c.x[i].rc == 1) add_sample(ts, &ns, c.x[i].r.t);
    for (int i = 0; i < c.n && any_miss; ++i)
        if (c.x[i].rc == 1)
            for (int j = 1; j < 4; ++j) add_sample(ts, &ns, c.x[i].r.t + (1.0 - c.x[i].r.t) * j / 4.0);

    const double tol = CAST_SLACK_REL * Lc;
    for (int ki = 0; ki < 2; ++ki) {
        const kernel *k = &kernels[ki];
        for (int j = 0; j < ns; ++j) {
            const mink_pose pa = dmotion_pose(&ma, ts[j]), pb = dmotion_pose(&mb, ts[j]);
            mink_result pen;
            poison(&pen);
            k->penetration(a, &pa, b, &pb, NULL, &pen);
            if (pen.status == MINK_ERR_INVALID) {
                if (expect != EXPECT_VALID) continue; /* a pose inside the step past the limit */
                cast_violation(&c, "%s penetration rejects the pose at t = %.9g of a valid motion", k->name, ts[j]);
            }
            if (pen.status != MINK_OK) continue; /* an iteration cap: no certain distance */
            const double d = pen.distance;
            for (int i = 0; i < c.n; ++i) {
                const cast_answer *x = &c.x[i];
                if (x->ki != ki) continue;
                char name[64];
                cast_name(&c, x, name, sizeof name);
                if (x->rc == 0) {
                    if (d < target - tol) {
                        dump_result(stderr, "penetration there", &pen);
                        cast_violation(&c, "%s: a miss, but at t = %.9g the signed distance is %.9g, below the target "
                                           "%.9g by more than %.3g (a contact stepped over)",
                                       name, ts[j], d, target, tol);
                    }
                    continue;
                }
                const double t = x->r.t;
                if ((ts[j] < t || (ts[j] == t && t > 0.0)) && d < target - tol) {
                    dump_result(stderr, "penetration there", &pen);
                    cast_violation(&c, "%s: late: a hit at t = %.9g, but at t = %.9g the signed distance is already "
                                       "%.9g, below the target %.9g by more than %.3g",
                                   name, t, ts[j], d, target, tol);
                }
                if (ts[j] != t || x->r.status != MINK_OK) continue;
                if (d > target + tol) {
                    dump_result(stderr, "penetration there", &pen);
                    cast_violation(&c, "%s: a hit at t = %.9g where the signed distance is %.9g, above the target %.9g "
                                       "by more than %.3g",
                                   name, t, d, target, tol);
                }
                const mink_cast_result *r = &x->r;
                const double dr = ((double)r->point_b.x - r->point_a.x) * r->normal.x +
                                  ((double)r->point_b.y - r->point_a.y) * r->normal.y +
                                  ((double)r->point_b.z - r->point_a.z) * r->normal.z;
                if (fabs(dr - d) > tol) {
                    dump_result(stderr, "penetration there", &pen);
                    cast_violation(&c, "%s: the witnesses' distance %.9g at t = %.9g, the signed distance there %.9g "
                                       "(differ by more than %.3g)",
                                   name, dr, t, d, tol);
                }
            }
        }
    }
}

static void free_shape(fz_shape *fs)
{
    free(fs->xyz);
    free(fs->mem);
    free(fs->cs.pts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader rd = {data, size};
    reader *r = &rd;
    scenario s;
    memset(&s, 0, sizeof s);
    g_current = &s;
    const uint8_t mode = rd_u8(r);
    const float scale = scales[rd_u8(r) % 12];
    decode_shape(r, scale, &s.a);
    decode_shape(r, scale, &s.b);
    s.pa = decode_pose(r, scale);
    s.pb = decode_pose(r, scale);
    s.pb2 = s.pb;
    s.pb2.p.x = to_float((double)s.pb.p.x + rd_float(r, -0.05f * scale, 0.05f * scale));
    s.pb2.p.y = to_float((double)s.pb.p.y + rd_float(r, -0.05f * scale, 0.05f * scale));
    s.pb2.p.z = to_float((double)s.pb.p.z + rd_float(r, -0.05f * scale, 0.05f * scale));
    s.expect_pa = expect_pose(&s.pa);
    s.expect_pb = expect_pose(&s.pb);
    s.expect_pb2 = expect_pose(&s.pb2);
    uint8_t raw[64];
    for (int i = 0; i < 64; ++i) raw[i] = rd_u8(r);
    cache_state forged;
    memset(&forged, 0, sizeof forged);
    for (int k = 0; k < 3; ++k) forged.axis[k] = rd_float(r, -2.0f, 2.0f);
    forged.count = rd_u8(r) % 6u;
    forged.outcome = rd_u8(r) % 4u;
    for (int k = 0; k < 4; ++k) forged.ia[k] = rd_u8(r) % 10u;
    for (int k = 0; k < 4; ++k) forged.ib[k] = rd_u8(r) % 10u;
    forged.frames = rd_u8(r);
    if (forged.frames == 255) forged.frames = UINT32_MAX;
    s.margin = decode_margin(r, scale);
    s.expect_margin = expect_size(s.margin);
    feature_state forged_feature;
    decode_forged_feature(r, scale, &forged_feature);
    decode_cast(r, scale, &s);

    const double ra = fabs((double)s.a.s.radius), rb = fabs((double)s.b.s.radius);
    s.L = fmax(1.0, max_abs3(s.pa.p) + fmax(max_abs3(s.pb.p), max_abs3(s.pb2.p)) + s.a.extent + ra + s.b.extent + rb);

    if (mode % 32 == 31) {
        null_scenario(&s);
    } else {
        const int expect = expect_and(expect_and(s.a.expect, s.b.expect), expect_and(s.expect_pa, s.expect_pb));
        answer cold[2];
        mink_cache *none[3] = {NULL, NULL, NULL};
        for (int ki = 0; ki < 2; ++ki) {
            char ctx[32];
            snprintf(ctx, sizeof ctx, "%s, cold", kernels[ki].name);
            run_queries(&kernels[ki], &s.a.s, &s.pa, &s.b.s, &s.pb, none, &cold[ki], s.L);
            check_answer(ctx, &cold[ki], expect, s.L);
            /* intersect_ex: same verdict, a unit axis when separated */
            mink_result info;
            poison(&info);
            const int hit = kernels[ki].intersect_ex(&s.a.s, &s.pa, &s.b.s, &s.pb, NULL, &info);
            if (hit != cold[ki].hit) violation("%s: intersect_ex %d vs intersect %d", ctx, hit, cold[ki].hit);
            if (hit < 0 && !zero_result(&info)) violation("%s: intersect_ex error result not zero", ctx);
            if (hit == 0) {
                const double len = sqrt((double)info.normal.x * info.normal.x + (double)info.normal.y * info.normal.y +
                                        (double)info.normal.z * info.normal.z);
                if (!finite_result(&info) || fabs(len - 1.0) > UNIT_TOL) {
                    dump_result(stderr, "intersect_ex", &info);
                    violation("%s: intersect_ex separated without a finite unit axis", ctx);
                }
            }
        }
#ifdef MINK_FUZZ_STANDALONE
        if (getenv("MINK_FUZZ_VERBOSE")) { /* what the input decodes to */
            fprintf(stderr, "pair: ");
            dump_shape(stderr, &s.a);
            dump_pose(stderr, &s.pa);
            dump_shape(stderr, &s.b);
            dump_pose(stderr, &s.pb);
            fprintf(stderr, "\nexpect %d, L %.9g, margin %.9g, intersect ref %d simd %d\n", expect, s.L, s.margin,
                    cold[0].hit, cold[1].hit);
            dump_cast_motion(stderr, &s);
            dump_result(stderr, "ref penetration", &cold[0].pen);
            dump_result(stderr, "simd penetration", &cold[1].pen);
        }
#endif
        check_agree("ref vs simd, cold", &cold[0], &cold[1], s.L, 0);
        if (cold[0].hit >= 0) {
            /* the swapped pair: the same distance */
            for (int ki = 0; ki < 2; ++ki) {
                answer sw;
                mink_cache *none3[3] = {NULL, NULL, NULL};
                char ctx[32];
                snprintf(ctx, sizeof ctx, "%s, swapped", kernels[ki].name);
                run_queries(&kernels[ki], &s.b.s, &s.pb, &s.a.s, &s.pa, none3, &sw, s.L);
                check_answer(ctx, &sw, expect, s.L);
                check_agree(ctx, &cold[ki], &sw, s.L, 0);
            }
        }
        for (int ki = 0; ki < 2; ++ki) cache_scenarios(&s, ki, &cold[ki], expect, raw, &forged);
        batch_scenario(&s, &cold[1]);
        manifold_cold man[2];
        for (int ki = 0; ki < 2; ++ki) manifold_scenarios(&s, ki, &cold[ki], raw, &forged, &forged_feature, &man[ki]);
#ifdef MINK_FUZZ_STANDALONE
        if (getenv("MINK_FUZZ_VERBOSE")) {
            dump_manifold(stderr, "ref manifold", &man[0].m);
            dump_manifold(stderr, "simd manifold", &man[1].m);
        }
#endif
        check_manifold_agree("ref vs simd manifolds, cold", &s, &man[0].m, &cold[0].pen, &man[1].m, &cold[1].pen, 0);
        for (int ki = 0; ki < 2 && man[0].valid; ++ki) manifold_foreign_kernel(&s, ki, &cold[ki], &man[1 - ki]);
        manifold_batch_scenario(&s, &man[1]);
        for (int kind = 0; kind < 2; ++kind) cast_scenario(&s, kind, raw, &forged);
    }
    g_current = NULL;
    free_shape(&s.a);
    free_shape(&s.b);
    return 0;
}

#define FUZZ_TARGET_NAME "fuzz_queries"
#include "fuzz_standalone.h"
