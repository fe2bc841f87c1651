/* fuzz_queries: a libFuzzer target for the queries of both kernels.
 *
 * The input bytes decode (layout below) into two shapes, two poses, a small
 * motion and two caches (raw bytes, and a well-formed cache forged with a
 * garbage state). Every query of both kernels runs on them, cold, warm,
 * moved, with the garbage caches and in a batch, and the answers are checked
 * against properties that hold for any input. A violation prints the pair in
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
 * - Away from the touching band the two kernels, the three queries, the
 *   swapped pair, the batch calls and every cache (warm, moved, garbage)
 *   agree on the sign of the distance; with MINK_OK, a cache does not move
 *   a distance by more than CACHE_AGREE_REL * L.
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
 * penetration answers; MINK_FUZZ_FULL_DUMP=1 prints big hulls whole. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "cases.h"     /* case_common_point_gaps */
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
} fz_shape;

typedef struct scenario {
    fz_shape a, b;
    mink_pose pa, pb, pb2; /* pb2: B after the motion */
    int expect_pa, expect_pb, expect_pb2;
    double L;
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
        fprintf(stderr, "\nexpect: A %d B %d pose A %d pose B %d moved B %d (0 invalid, 1 valid, 2 either); L %.9g\n",
                s->a.expect, s->b.expect, s->expect_pa, s->expect_pb, s->expect_pb2, s->L);
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

static mink_pose decode_pose(reader *r, float scale)
{
    mink_pose p;
    p.p.x = rd_float(r, -3.0f * scale, 3.0f * scale);
    p.p.y = rd_float(r, -3.0f * scale, 3.0f * scale);
    p.p.z = rd_float(r, -3.0f * scale, 3.0f * scale);
    const mink_quat id = {0.0f, 0.0f, 0.0f, 1.0f};
    switch (rd_u8(r) % 8) {
    case 0: p.q = id; break;
    case 4: { /* a unit quaternion scaled by an arbitrary factor: mostly invalid */
        const float f = rd_float(r, 0.0f, 2.0f);
        p.q = unit_quat(r);
        p.q.x *= f;
        p.q.y *= f;
        p.q.z *= f;
        p.q.w *= f;
        break;
    }
    case 5: { /* norm within +-2e-3 of 1: straddles the 1e-3 acceptance edge */
        const double f = 1.0 + 2e-3 * ((double)rd_u16(r) / 32767.5 - 1.0);
        p.q = unit_quat(r);
        p.q.x = (float)(p.q.x * f);
        p.q.y = (float)(p.q.y * f);
        p.q.z = (float)(p.q.z * f);
        p.q.w = (float)(p.q.w * f);
        break;
    }
    case 6: /* components straight from the input, nasty ones included */
        p.q.x = rd_float(r, -1.0f, 1.0f);
        p.q.y = rd_float(r, -1.0f, 1.0f);
        p.q.z = rd_float(r, -1.0f, 1.0f);
        p.q.w = rd_float(r, -1.0f, 1.0f);
        break;
    case 7: /* unit with one component nudged by a tiny (denormal, 0, ...) amount */
        p.q = unit_quat(r);
        p.q.y += rd_float(r, -1e-6f, 1e-6f);
        break;
    default: p.q = unit_quat(r); break;
    }
    return p;
}

static double max_abs3(mink_vec3 v) { return fmax(fabs((double)v.x), fmax(fabs((double)v.y), fabs((double)v.z))); }

/* ---------------------------------------------------------------- kernels */

typedef struct kernel {
    const char *name;
    int (*intersect)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *);
    int (*intersect_ex)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *,
                        mink_result *);
    mink_status (*distance)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                            mink_cache *, mink_result *);
    mink_status (*penetration)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                               mink_cache *, mink_result *);
} kernel;

static const kernel kernels[2] = {
    {"ref", mink_ref_intersect, mink_ref_intersect_ex, mink_ref_distance, mink_ref_penetration},
    {"simd", mink_intersect, mink_intersect_ex, mink_distance, mink_penetration},
};

/* The three answers for one pair. */
typedef struct answer {
    int hit;
    mink_result dist, pen;
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
    poison(&out->dist);
    mink_status st = k->distance(a, pa, b, pb, caches[1], &out->dist);
    if (st != out->dist.status) violation("%s distance returned %d but wrote status %d", k->name, (int)st, (int)out->dist.status);
    check_common_point(k->name, a, pa, b, pb, &out->dist, L);
    poison(&out->pen);
    st = k->penetration(a, pa, b, pb, caches[2], &out->pen);
    if (st != out->pen.status) violation("%s penetration returned %d but wrote status %d", k->name, (int)st, (int)out->pen.status);
}

/* Checks one kernel's three answers against the expectation; returns 1 when
 * they are valid answers, 0 when they are (consistent) errors. */
static int check_answer(const char *ctx, const answer *x, int expect, double L)
{
    const int err = x->hit < 0;
    if (expect == EXPECT_INVALID && !err) violation("%s: invalid input, intersect returned %d", ctx, x->hit);
    if (expect == EXPECT_VALID && err) violation("%s: valid input, intersect returned %d", ctx, x->hit);
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
        return 0;
    }
    if (x->hit != 0 && x->hit != 1) violation("%s: intersect returned %d", ctx, x->hit);
    check_valid_result(ctx, "distance", &x->dist, L);
    check_valid_result(ctx, "penetration", &x->pen, L);
    const double band = BAND_REL * L;
    const double dp = x->pen.distance, dd = x->dist.distance;
    if (dd < 0.0) violation("%s: distance query gave a negative distance %.9g", ctx, dd);
    if ((dp > band && x->hit != 0) || (dp < -band && x->hit != 1))
        violation("%s: intersect says %d but penetration distance is %.9g (band %.3g)", ctx, x->hit, dp, band);
    if ((dp > band && !(dd > 0.0)) || (dp < -band && dd > band))
        violation("%s: distance %.9g disagrees with penetration distance %.9g (band %.3g)", ctx, dd, dp, band);
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
        }
        mink_cache c;
        mink_cache_reset(&c);
        if (k->distance(a, pa, b, pb, &c, NULL) != MINK_ERR_INVALID) violation("%s distance: NULL out accepted", k->name);
        if (k->penetration(a, pa, b, pb, &c, NULL) != MINK_ERR_INVALID)
            violation("%s penetration: NULL out accepted", k->name);
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

static void free_shape(fz_shape *fs)
{
    free(fs->xyz);
    free(fs->mem);
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
            fprintf(stderr, "\nexpect %d, L %.9g, intersect ref %d simd %d\n", expect, s.L, cold[0].hit, cold[1].hit);
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
    }
    g_current = NULL;
    free_shape(&s.a);
    free_shape(&s.b);
    return 0;
}

#define FUZZ_TARGET_NAME "fuzz_queries"
#include "fuzz_standalone.h"
