/* mink — a SIMD-optimized 3D convex collision kernel.
 *
 * GJK (boolean, distance, closest points) with Johnson's distance subalgorithm,
 * EPA for penetration depth, per-pair caches for frame coherence.
 *
 * Conventions used by every query:
 * - Units are the caller's; all vectors are in world space unless a comment
 *   says "local". A pose maps local to world: world = R(q) * local + p.
 * - A shape is a convex core (point, segment, box, convex hull) rounded by a
 *   radius: the set of points within `radius` of the core.
 * - Results: `normal` is a unit vector from A towards B, and always
 *   point_b - point_a = distance * normal.
 * - No query allocates memory, touches global state, or keeps pointers to
 *   its arguments. Queries on distinct caches and results may run on any
 *   number of threads at once (shapes are read only).
 */
#ifndef MINK_H
#define MINK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only MINK_API names are exported.
 * (The library's own per-backend objects define MINK_API empty beforehand.) */
#ifndef MINK_API
#if defined(__GNUC__) || defined(__clang__)
#define MINK_API __attribute__((visibility("default")))
#else
#define MINK_API
#endif
#endif

#define MINK_VERSION_MAJOR 0
#define MINK_VERSION_MINOR 1
#define MINK_VERSION_PATCH 0

/* ---------------------------------------------------------------- types */

/** A 3-vector (point or direction). */
typedef struct mink_vec3 { float x, y, z; } mink_vec3;

/** A rotation as a unit quaternion (x, y, z vector part; w scalar part).
 *  Queries reject a quaternion whose norm differs from 1 by more than 1e-3
 *  and normalize one within that band. */
typedef struct mink_quat { float x, y, z, w; } mink_quat;

/** A rigid placement: world = R(q) * local + p. */
typedef struct mink_pose { mink_vec3 p; mink_quat q; } mink_pose;

/** Outcome of a query. */
typedef enum mink_status {
    MINK_OK             =  0, /* converged within tolerance                      */
    MINK_MAX_ITERATIONS =  1, /* an iteration or capacity cap was hit: the result
                                 is the best bound found (finite, consistent)    */
    MINK_ERR_INVALID    = -1  /* NULL, NaN/Inf, negative size, empty hull,
                                 non-unit quaternion: the result is all zeros    */
} mink_status;

/* ---------------------------------------------------------------- shapes */

/** Kinds of convex core. */
typedef enum mink_shape_type {
    MINK_SHAPE_INVALID = 0, /* what a constructor returns for bad arguments   */
    MINK_SHAPE_SPHERE  = 1, /* core: the point (0,0,0)                         */
    MINK_SHAPE_CAPSULE = 2, /* core: segment (0,-h,0)-(0,h,0), h = half[1]     */
    MINK_SHAPE_BOX     = 3, /* core: [-hx,hx] x [-hy,hy] x [-hz,hz]            */
    MINK_SHAPE_HULL    = 4  /* core: convex hull of `count` points            */
} mink_shape_type;

/** The largest magnitude of any size, hull coordinate or position that
 *  constructors and queries accept (larger ones give an invalid shape or
 *  MINK_ERR_INVALID): 100 km in metres. Far beyond it float leaves no
 *  precision for collision answers, and the sixth powers of lengths in
 *  Johnson's determinants approach float overflow (worlds larger than this
 *  rebase their origin, as engines do). */
#define MINK_MAX_MAGNITUDE 1e5f

/** Alignment, in bytes, of the memory handed to mink_hull_init. */
#define MINK_HULL_ALIGN 64
/** Hull vertex arrays are padded to a multiple of this many lanes (the widest
 *  SIMD width, AVX-512 floats) with copies of a real vertex. */
#define MINK_HULL_PAD 16

/** A shape: a small value type. Primitives hold everything in the struct;
 *  a hull points into caller-owned memory (see mink_hull_init) that must
 *  outlive every use of the shape. Copying the struct is cheap and safe. */
typedef struct mink_shape {
    uint32_t type;        /* a mink_shape_type                                 */
    uint32_t count;       /* hull: number of input points; otherwise 0         */
    uint32_t padded;      /* hull: count rounded up to MINK_HULL_PAD           */
    float radius;         /* rounding radius, >= 0                             */
    float half[3];        /* box: half extents; capsule: half[1] = half height */
    float extent;         /* largest |core point| in local space (tolerances)  */
    const float *x;       /* hull: SoA vertex coordinates, `padded` each,      */
    const float *y;       /*       64-byte aligned, in caller memory           */
    const float *z;
    /* hull: its faces, edges and face planes, built by mink_hull_init in
     * the same caller memory (contact manifolds need them); NULL otherwise */
    const struct mink_hull_topology *topology;
} mink_shape;

/** A sphere of radius r >= 0. Bad r gives a shape of type MINK_SHAPE_INVALID. */
MINK_API mink_shape mink_sphere(float r);
/** A capsule: segment (0,-half_height,0)-(0,half_height,0) rounded by r. */
MINK_API mink_shape mink_capsule(float r, float half_height);
/** A box with half extents hx, hy, hz >= 0, rounded by r >= 0. */
MINK_API mink_shape mink_box(float hx, float hy, float hz, float r);

/** Bytes of caller memory that mink_hull_init needs for n points: the
 *  vertex arrays, the hull's topology (faces as polygons, their planes,
 *  edges with their two faces' normals), from 512 points on the blocks of
 *  neighbours the support climbs along instead of scanning every point,
 *  and the scratch space the hull builder works in (no allocation). 0 for
 *  n == 0 or n too large. */
MINK_API size_t mink_hull_bytes(uint32_t n);
/** Builds the convex hull of n points (AoS input x0 y0 z0 x1 ...) rounded by r
 *  into `mem` (aligned to MINK_HULL_ALIGN, at least mink_hull_bytes(n) bytes).
 *  Points may be interior, repeated or coplanar: the core is their convex hull.
 *  The hull's faces are computed once here, in double precision: coplanar
 *  triangles merged into convex polygons (the 8 corners of a box give 6
 *  quads), each with its plane, and the edges between faces. A flat point
 *  set gives a hull of two faces back to back; collinear points a segment,
 *  coincident ones a point.
 *  The input array is copied; `mem` is owned by the caller and must outlive
 *  the shape. Returns MINK_ERR_INVALID (and an invalid shape in *out, when out
 *  is not NULL) for NULL pointers, n == 0, non-finite values, r < 0, too little
 *  or misaligned memory. */
MINK_API mink_status mink_hull_init(mink_shape *out, void *mem, size_t mem_bytes,
                                    const float *xyz, uint32_t n, float r);

/** 1 if the shape is usable by queries, 0 otherwise. */
MINK_API int mink_shape_is_valid(const mink_shape *s);
/** 1 if the pose is finite and its quaternion is unit within 1e-3. */
MINK_API int mink_pose_is_valid(const mink_pose *p);

/* ---------------------------------------------------------------- cache */

/** Per-pair cache for frame coherence: what the previous query of a pair
 *  learned (the last separating axis in A's local frame, the last simplex as
 *  vertex indices of each shape, the last outcome). Fixed size, contents
 *  private. A zero-filled cache is valid and empty. A cache never changes an
 *  answer beyond the query tolerance: a stale or foreign cache only costs time,
 *  and one holding garbage is detected and reset (a warm intersect uses any
 *  axis that still separates the shapes, a proof whoever wrote it).
 *  What a query leaves: separated: outcome separated, a separating axis, the
 *  final simplex; overlapping: outcome overlapping, the contact normal
 *  (penetration) or GJK's last direction (intersect, distance), the final
 *  simplex; a warm intersect whose cached axis still separates: the cache
 *  untouched; MINK_ERR_INVALID: untouched. */
typedef struct mink_cache { uint32_t opaque[16]; } mink_cache;

/** Empties a cache (same as filling it with zeros). */
MINK_API void mink_cache_reset(mink_cache *c);

/* ---------------------------------------------------------------- queries */

/** What a distance or penetration query returns. */
typedef struct mink_result {
    float     distance;   /* signed: > 0 separation, < 0 penetration (-depth)    */
    mink_vec3 normal;     /* unit, from A towards B                               */
    mink_vec3 point_a;    /* witness on A, world space                           */
    mink_vec3 point_b;    /* witness on B, world space                           */
    uint32_t  iterations; /* GJK iterations plus EPA iterations                  */
    uint32_t  gjk_iterations; /* of which GJK                                     */
    uint32_t  support_calls;  /* support evaluations of the pair (each maps both
                                 shapes once): the cost driver on big hulls       */
    mink_status status;
} mink_result;

/** 1 if the shapes overlap (touching counts), 0 if separated,
 *  MINK_ERR_INVALID (< 0) on bad input. `cache` may be NULL. */
MINK_API int mink_intersect(const mink_shape *a, const mink_pose *pa,
                            const mink_shape *b, const mink_pose *pb, mink_cache *cache);

/** mink_intersect, reporting its work in *info (may be NULL): status,
 *  iterations, support_calls; when separated, `normal` is a unit separating
 *  axis (world space, from A towards B) and `distance` is 1; when overlapping
 *  `distance` is 0. Witness points are not computed (zero). */
MINK_API int mink_intersect_ex(const mink_shape *a, const mink_pose *pa,
                               const mink_shape *b, const mink_pose *pb,
                               mink_cache *cache, mink_result *info);

/** mink_intersect_ex by GJK alone. mink_intersect_ex answers a box against a
 *  box, capsule or sphere by the separating-axis test where that test
 *  decides (the same answer, for less); this is the general path, callable
 *  so that the two can be measured side by side (mink-bench's simd-gjk). */
MINK_API int mink_intersect_gjk_ex(const mink_shape *a, const mink_pose *pa,
                                   const mink_shape *b, const mink_pose *pb,
                                   mink_cache *cache, mink_result *info);

/** mink_penetration by GJK and EPA alone. mink_penetration answers a box
 *  against a box, capsule or sphere whose cores overlap clearly by the
 *  separating-axis test (the same answer, for less); this is the general
 *  path, callable so that the two can be measured side by side. */
MINK_API mink_status mink_penetration_gjk(const mink_shape *a, const mink_pose *pa,
                                          const mink_shape *b, const mink_pose *pb,
                                          mink_cache *cache, mink_result *out);

/** GJK distance and closest points. Separated: distance > 0, the witnesses are
 *  the closest points. Overlapping: distance 0 and point_a == point_b, a point
 *  common to both shapes; the normal is the best direction GJK knows. */
MINK_API mink_status mink_distance(const mink_shape *a, const mink_pose *pa,
                                   const mink_shape *b, const mink_pose *pb,
                                   mink_cache *cache, mink_result *out);

/** Signed distance: GJK, then EPA when the shapes overlap. Overlapping:
 *  distance = -depth; translating B by depth * normal makes the shapes touch;
 *  point_a is A's point deepest inside B and point_b is B's point deepest
 *  inside A. Within the touching band (|distance| below about 1e-5 of the
 *  shapes' size) either sign may be returned, with a magnitude inside the band. */
MINK_API mink_status mink_penetration(const mink_shape *a, const mink_pose *pa,
                                      const mink_shape *b, const mink_pose *pb,
                                      mink_cache *cache, mink_result *out);

/** One pair of a batch: the shapes (outliving the call), their poses and
 *  the pair's cache (may be NULL). */
typedef struct mink_pair {
    const mink_shape *a; mink_pose pa;
    const mink_shape *b; mink_pose pb;
    mink_cache *cache;   /* may be NULL */
} mink_pair;

/** mink_penetration on each pair: out[i] answers pairs[i], equal to
 *  mink_penetration(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb,
 *  pairs[i].cache, &out[i]) within the query tolerance. Pairs of primitives
 *  (sphere, capsule, box, rounded or not) are answered several at a time,
 *  one pair per SIMD lane, in closed form or certified to the query
 *  tolerance; pairs with a hull, and the rare primitive pairs a lane cannot
 *  answer exactly, by mink_penetration itself. An invalid pair answers
 *  MINK_ERR_INVALID with an all-zero result; the others are unaffected.
 *  pairs == NULL: every out[i] is that error; out == NULL or n == 0: nothing
 *  is written. Caches: a pair answered in a lane neither reads nor writes
 *  its cache (it needs no warm start; the cache keeps its last contents,
 *  which stay valid); a pair answered by mink_penetration uses and updates
 *  it as that query does. Two pairs of one call should not share a cache.
 *  A lane answer has status MINK_OK and iterations = gjk_iterations =
 *  support_calls = 0. No allocation. */
MINK_API void mink_penetration_batch(const mink_pair *pairs, size_t n, mink_result *out);
/** mink_intersect on each pair: out[i] is 1 (overlap; touching counts), 0,
 *  or MINK_ERR_INVALID, as mink_intersect answers pairs[i] (either answer
 *  inside the touching band). Grouping, errors and caches as in
 *  mink_penetration_batch. */
MINK_API void mink_intersect_batch(const mink_pair *pairs, size_t n, int *out);
/** mink_penetration_batch on up to `threads` POSIX threads started and
 *  joined in the call: contiguous chunks of at least 256 pairs (at most 64
 *  threads), chunk 0 on the calling thread. The answers equal
 *  mink_penetration_batch's bit for bit. threads <= 1, or too few pairs:
 *  runs inline; a thread that cannot be started runs its chunk inline.
 *  Pairs must not share caches (a data race across chunks). */
MINK_API void mink_penetration_batch_mt(const mink_pair *pairs, size_t n, mink_result *out, unsigned threads);
/** mink_intersect_batch on up to `threads` threads; as mink_penetration_batch_mt. */
MINK_API void mink_intersect_batch_mt(const mink_pair *pairs, size_t n, int *out, unsigned threads);

/* ---------------------------------------------------------------- manifolds */

/** Most points a contact manifold holds. */
#define MINK_MANIFOLD_POINTS 4

/** One contact point of a manifold (world space). */
typedef struct mink_contact {
    mink_vec3 point_a;    /* on A's surface                                        */
    mink_vec3 point_b;    /* on B's surface                                        */
    float     separation; /* (point_b - point_a) . normal: < 0 penetrating; always
                             point_b - point_a = separation * normal               */
    uint32_t  id;         /* feature-pair key: the same next frame while the same
                             features touch (a vertex, or an edge crossing a face's
                             side, of each shape); distinct within a manifold    */
} mink_contact;

/** The contacts of a pair: up to four points sharing one normal.
 *  C gives a typedef and a function one namespace, so the type keeps its
 *  struct tag (`struct mink_manifold m; mink_manifold(..., &m);`), with
 *  mink_contact_manifold as a typedef of it. */
struct mink_manifold {
    mink_vec3    normal;  /* unit, from A towards B, shared by every point          */
    uint32_t     count;   /* 0..4; 0 when the pair is farther apart than the margin */
    mink_contact points[MINK_MANIFOLD_POINTS];
    mink_status  status;
};
typedef struct mink_manifold mink_contact_manifold;

/** The contact manifold of a pair whose signed distance is at most `margin`
 *  (>= 0; a positive margin gives speculative contacts for pairs about to
 *  touch). count == 0 exactly when the signed distance is above the margin
 *  (either answer within the touching band). Otherwise: the normal is the
 *  pair's contact normal (mink_penetration's, or one whose depth ties it
 *  within the query tolerance: a face is preferred to an edge pair within
 *  it, so resting boxes get face contacts); the smallest separation is the
 *  signed distance; every point has separation <= margin. Where faces or
 *  edges touch, the points are corners of the touching features' overlap
 *  (the incident face clipped against the reference face): all of them
 *  when there are at most four, else four that keep the deepest point and
 *  most of the area; a face tilted against the other by less than 0.01
 *  rad keeps all its corners within the margin (a settling box keeps four
 *  points). A vertex on a face, an edge across an edge, and any
 *  contact of a sphere give one point; a capsule along a face or another
 *  capsule two. Rounded shapes: the cores are tested and the points moved
 *  out by the radii along the normal.
 *  `cache` (may be NULL) keeps the deciding feature: a face of A, a face of
 *  B, an edge pair, or GJK's closest features, with its separation and the
 *  pair's relative pose. Next frame that feature is tried first: when it
 *  still separates by more than the margin the answer is count 0 after one
 *  axis test; when the motion since is too small for any other feature to
 *  take over, the manifold is rebuilt from it without the full test. A
 *  stale, foreign or garbage cache only costs time.
 *  Returns out->status: MINK_OK, MINK_MAX_ITERATIONS (a cap was hit; the
 *  manifold is still consistent), or MINK_ERR_INVALID (NULL pointers, bad
 *  shapes or poses, a negative or non-finite margin, a hull without its
 *  topology): then *out is all zeros but the status, and the cache is
 *  left unchanged. */
MINK_API mink_status mink_manifold(const mink_shape *a, const mink_pose *pa,
                                   const mink_shape *b, const mink_pose *pb,
                                   float margin, mink_cache *cache, struct mink_manifold *out);

/** mink_manifold on each pair, out[i] answering pairs[i] with its cache.
 *  An invalid pair answers MINK_ERR_INVALID; the others are unaffected.
 *  pairs == NULL: every out[i] is that error; out == NULL or n == 0:
 *  nothing is written. No allocation. */
MINK_API void mink_manifold_batch(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out);
/** mink_manifold_batch on up to `threads` threads, as mink_penetration_batch_mt
 *  (contiguous chunks of at least 256 pairs, answers equal bit for bit). */
MINK_API void mink_manifold_batch_mt(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out,
                                     unsigned threads);

/* ---------------------------------------------------------------- continuous collision */

/** What a cast or a time of impact returns. */
typedef struct mink_cast_result {
    float       t;          /* fraction of the step at first contact, in [0, 1]; 1 on a miss */
    mink_vec3   normal;     /* unit, from A towards B, at time t (zero on a miss)          */
    mink_vec3   point_a;    /* witnesses at time t, world space (zero on a miss)           */
    mink_vec3   point_b;
    uint32_t    iterations; /* distance evaluations (conservative advancement steps)     */
    mink_status status;
} mink_cast_result;

/** Linear cast: A translates by da and B by db (world) over the step;
 *  rotations fixed. Returns 1 when they come within `target` (>= 0) at out->t,
 *  0 when they never do in [0, 1], MINK_ERR_INVALID (< 0) on bad input (NULL
 *  pointers, bad shapes or poses, a non-finite motion or one that ends past
 *  MINK_MAX_MAGNITUDE, a negative or non-finite target): then *out is all
 *  zeros but the status.
 *  Already within target at t = 0: 1 with t = 0 (overlapping: the
 *  penetration normal, witnesses inside the shapes). On a hit,
 *  point_b - point_a = d * normal with d the signed distance at t, within
 *  the query tolerance of target. Never late: t is at most the true first
 *  time (conservative advancement; each step is safe). An iteration cap
 *  gives status MINK_MAX_ITERATIONS, 1 and the last safe t. */
MINK_API int mink_cast(const mink_shape *a, const mink_pose *pa, mink_vec3 da,
                       const mink_shape *b, const mink_pose *pb, mink_vec3 db,
                       float target, mink_cast_result *out);

/** mink_cast with the pair's cache (may be NULL): the first step starts
 *  from its axis and simplex (a pair cast frame after frame, or first
 *  queried by mink_penetration), every step after the first from the step
 *  before; it is left holding the pair's state at the last step. */
MINK_API int mink_cast_ex(const mink_shape *a, const mink_pose *pa, mink_vec3 da,
                          const mink_shape *b, const mink_pose *pb, mink_vec3 db,
                          float target, mink_cache *cache, mink_cast_result *out);

/** A rigid motion over the step: pose(t) turns about the local point `center`
 *  (the centre of mass) at a constant rate from q0 to q1 (shortest arc,
 *  slerp) while that point moves on a straight line from its place at pose0
 *  to its place at pose1. */
typedef struct mink_sweep { mink_pose pose0, pose1; mink_vec3 center; } mink_sweep;

/** Time of impact of two sweeps: the first t where the distance is at most
 *  target; never misses a contact inside the step and never reports a t
 *  after it (conservative advancement, with a bound on how fast any point
 *  of either shape can approach, rotation included). Returns and results
 *  as mink_cast (bad input also: a non-finite or huge center). */
MINK_API int mink_toi(const mink_shape *a, const mink_sweep *sa,
                      const mink_shape *b, const mink_sweep *sb,
                      float target, mink_cast_result *out);

/** mink_toi with the pair's cache, as mink_cast_ex. */
MINK_API int mink_toi_ex(const mink_shape *a, const mink_sweep *sa,
                         const mink_shape *b, const mink_sweep *sb,
                         float target, mink_cache *cache, mink_cast_result *out);

/* ---------------------------------------------------------------- SIMD backend */

/** The SIMD backend the queries run on: "sse41", "avx2", "avx512", "neon" or
 *  "portable" (a static string).
 *  A library built with MINK_SIMD=<width> has that one backend. The default
 *  build on x86-64 (MINK_SIMD=auto) holds the kernel four times (portable,
 *  sse41, avx2 with FMA, avx512 with DQ and VL) and picks, at the first call
 *  of any query or of this function, the widest one the CPU and OS run; the
 *  choice is made once (thread-safe, no allocation) and kept for the life of
 *  the process. The environment variable MINK_SIMD_BACKEND (portable, sse41,
 *  avx2 or avx512), read at that moment, asks for a backend: one the CPU
 *  runs is used (so a narrower one can be tested or measured); one it
 *  cannot run, or an unknown name, is ignored (the widest is kept). Builds with one backend ignore the variable.
 *  Answers agree across backends within the query tolerance. */
MINK_API const char *mink_simd_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* MINK_H */
