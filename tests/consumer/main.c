/* A program outside the mink tree that uses only the installed headers and
 * library. It checks a few queries against values known in closed form and
 * exits non-zero on any mismatch. It deliberately avoids <math.h>, so that a
 * static libmink must bring libm itself (via mink::mink or mink.pc). */
#include <mink/mink.h>
#include <mink/mink_ref.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 2e-4f
#define SQRT2 1.41421356237f

static int checks, failures;

static float absf(float v) { return v < 0.0f ? -v : v; }

/* `what` names the case, `field` the quantity checked. */
static void check(int ok, const char *what, const char *field)
{
    ++checks;
    if (!ok) {
        ++failures;
        printf("FAIL  %s%s%s\n", what, *field ? ": " : "", field);
    }
}

static void check_near(float got, float want, const char *what, const char *field)
{
    ++checks;
    if (!(absf(got - want) <= TOL)) { /* also catches NaN */
        ++failures;
        printf("FAIL  %s: %s = %.7g, want %.7g\n", what, field, (double)got, (double)want);
    }
}

static void check_vec(mink_vec3 got, float x, float y, float z, const char *what,
                      const char *field)
{
    char f[64];
    snprintf(f, sizeof f, "%.40s.x", field); check_near(got.x, x, what, f);
    snprintf(f, sizeof f, "%.40s.y", field); check_near(got.y, y, what, f);
    snprintf(f, sizeof f, "%.40s.z", field); check_near(got.z, z, what, f);
}

/* The contract every result obeys: point_b - point_a = distance * normal, |normal| = 1. */
static void check_result(const mink_result *r, mink_status want_status, float want_distance,
                         float nx, float ny, float nz, const char *what)
{
    check(r->status == want_status, what, "status");
    check_near(r->distance, want_distance, what, "distance");
    check_vec(r->normal, nx, ny, nz, what, "normal");
    check(absf(r->point_b.x - r->point_a.x - r->distance * r->normal.x) <= TOL &&
          absf(r->point_b.y - r->point_a.y - r->distance * r->normal.y) <= TOL &&
          absf(r->point_b.z - r->point_a.z - r->distance * r->normal.z) <= TOL,
          what, "point_b - point_a == distance * normal");
}

static mink_pose at(float x, float y, float z)
{
    mink_pose p = {{x, y, z}, {0.0f, 0.0f, 0.0f, 1.0f}};
    return p;
}

int main(void)
{
#ifdef MINK_EXPECT_MAJOR
    check(MINK_VERSION_MAJOR == MINK_EXPECT_MAJOR && MINK_VERSION_MINOR == MINK_EXPECT_MINOR &&
          MINK_VERSION_PATCH == MINK_EXPECT_PATCH, "header version", "== package version");
#endif

    const mink_pose origin = at(0.0f, 0.0f, 0.0f);
    const mink_shape box = mink_box(1.0f, 1.0f, 1.0f, 0.0f); /* [-1,1]^3 */
    mink_result r;
    int hit;

    /* Two unit boxes 3 apart along x: gap 1, faces x = 1 and x = 2. */
    const mink_pose far = at(3.0f, 0.0f, 0.0f);
    hit = mink_intersect(&box, &origin, &box, &far, NULL);
    check(hit == 0, "box/box 3 apart", "mink_intersect == 0");
    mink_distance(&box, &origin, &box, &far, NULL, &r);
    check_result(&r, MINK_OK, 1.0f, 1.0f, 0.0f, 0.0f, "box/box 3 apart: mink_distance");
    check_near(r.point_a.x, 1.0f, "box/box 3 apart", "point_a.x");
    check_near(r.point_b.x, 2.0f, "box/box 3 apart", "point_b.x");

    /* Overlapping by 0.5 along x: depth 0.5, normal +x; A's deepest point in B is on
     * A's face x = 1, B's deepest point in A on B's face x = 0.5. */
    const mink_pose near = at(1.5f, 0.0f, 0.0f);
    hit = mink_intersect(&box, &origin, &box, &near, NULL);
    check(hit == 1, "box/box overlap 0.5", "mink_intersect == 1");
    mink_penetration(&box, &origin, &box, &near, NULL, &r);
    check_result(&r, MINK_OK, -0.5f, 1.0f, 0.0f, 0.0f, "box/box overlap 0.5: mink_penetration");
    check_near(r.point_a.x, 1.0f, "box/box overlap 0.5", "point_a.x");
    check_near(r.point_b.x, 0.5f, "box/box overlap 0.5", "point_b.x");
    mink_distance(&box, &origin, &box, &near, NULL, &r);
    check(r.status == MINK_OK && r.distance == 0.0f, "box/box overlap 0.5", "mink_distance == 0");

    /* The scalar reference gives the same answers. */
    hit = mink_ref_intersect(&box, &origin, &box, &near, NULL);
    check(hit == 1, "ref box/box overlap 0.5", "mink_ref_intersect == 1");
    mink_ref_penetration(&box, &origin, &box, &near, NULL, &r);
    check_result(&r, MINK_OK, -0.5f, 1.0f, 0.0f, 0.0f, "ref box/box overlap 0.5: mink_ref_penetration");
    mink_ref_distance(&box, &origin, &box, &far, NULL, &r);
    check_result(&r, MINK_OK, 1.0f, 1.0f, 0.0f, 0.0f, "ref box/box 3 apart: mink_ref_distance");

    /* A sphere of radius 0.5 at (0,3,0): closest points fully determined. */
    const mink_shape ball = mink_sphere(0.5f);
    const mink_pose above = at(0.0f, 3.0f, 0.0f);
    mink_distance(&box, &origin, &ball, &above, NULL, &r);
    check_result(&r, MINK_OK, 1.5f, 0.0f, 1.0f, 0.0f, "box/sphere: mink_distance");
    check_vec(r.point_a, 0.0f, 1.0f, 0.0f, "box/sphere", "point_a");
    check_vec(r.point_b, 0.0f, 2.5f, 0.0f, "box/sphere", "point_b");

    /* A rounded box (core half 0.5, radius 0.5) and that sphere at (3,3,0): the core's
     * nearest feature is the edge x = y = 0.5, at distance 2.5*sqrt2, minus both radii. */
    const mink_shape rbox = mink_box(0.5f, 0.5f, 0.5f, 0.5f);
    const mink_pose diag = at(3.0f, 3.0f, 0.0f);
    mink_penetration(&rbox, &origin, &ball, &diag, NULL, &r);
    check_result(&r, MINK_OK, 2.5f * SQRT2 - 1.0f, SQRT2 / 2, SQRT2 / 2, 0.0f,
                 "rounded box/sphere: mink_penetration");

    /* A hull: the corners of [-1,1]^3 plus an interior and a repeated point, in
     * caller memory aligned to MINK_HULL_ALIGN (aligned_alloc wants a multiple). */
    static const float pts[] = {
        -1, -1, -1,   1, -1, -1,   -1, 1, -1,   1, 1, -1,
        -1, -1,  1,   1, -1,  1,   -1, 1,  1,   1, 1,  1,
         0,  0,  0,   1,  1,  1,
    };
    const uint32_t n = (uint32_t)(sizeof pts / sizeof pts[0] / 3);
    size_t bytes = mink_hull_bytes(n);
    check(bytes > 0, "hull", "mink_hull_bytes > 0");
    size_t alloc = (bytes + MINK_HULL_ALIGN - 1) / MINK_HULL_ALIGN * MINK_HULL_ALIGN;
    void *mem = aligned_alloc(MINK_HULL_ALIGN, alloc);
    if (!mem) {
        printf("FAIL  aligned_alloc(%d, %zu)\n", MINK_HULL_ALIGN, alloc);
        return 1;
    }
    memset(mem, 0, alloc);
    mink_shape hull;
    check(mink_hull_init(&hull, mem, bytes, pts, n, 0.0f) == MINK_OK, "hull", "mink_hull_init == MINK_OK");
    check(mink_shape_is_valid(&hull) == 1, "hull", "mink_shape_is_valid");

    /* The hull turned 45 degrees about z at (3,0,0): its vertical edge reaches
     * x = 3 - sqrt2, so the gap to the box face x = 1 is 2 - sqrt2. */
    const mink_pose turned = {{3.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.38268343f, 0.92387953f}};
    mink_distance(&box, &origin, &hull, &turned, NULL, &r);
    check_result(&r, MINK_OK, 2.0f - SQRT2, 1.0f, 0.0f, 0.0f, "box/turned hull: mink_distance");
    check_near(r.point_a.x, 1.0f, "box/turned hull", "point_a.x");
    check_near(r.point_b.x, 3.0f - SQRT2, "box/turned hull", "point_b.x");
    check_near(r.point_b.y, 0.0f, "box/turned hull", "point_b.y");

    /* The hull overlapping the box by 0.5, queried twice through one cache:
     * a warm query must give the cold answer. */
    mink_cache cache;
    mink_cache_reset(&cache);
    for (int pass = 0; pass < 2; ++pass) {
        char what[80];
        snprintf(what, sizeof what, "box/hull overlap 0.5 (%s cache)", pass ? "warm" : "cold");
        mink_penetration(&box, &origin, &hull, &near, &cache, &r);
        check_result(&r, MINK_OK, -0.5f, 1.0f, 0.0f, 0.0f, what);
    }
    mink_ref_penetration(&hull, &origin, &box, &near, NULL, &r);
    check_result(&r, MINK_OK, -0.5f, 1.0f, 0.0f, 0.0f, "ref hull/box overlap 0.5: mink_ref_penetration");

    /* The batch entry points answer like the single queries. */
    mink_pair pairs[2] = {
        {&box, origin, &box, far, NULL},
        {&box, origin, &hull, near, NULL},
    };
    mink_result batch[2];
    int hits[2] = {-7, -7};
    mink_penetration_batch(pairs, 2, batch);
    check_result(&batch[0], MINK_OK, 1.0f, 1.0f, 0.0f, 0.0f, "batch[0]: box/box 3 apart");
    check_result(&batch[1], MINK_OK, -0.5f, 1.0f, 0.0f, 0.0f, "batch[1]: box/hull overlap 0.5");
    mink_intersect_batch(pairs, 2, hits);
    check(hits[0] == 0 && hits[1] == 1, "batch", "mink_intersect_batch == {0, 1}");

    /* Bad input: an error status and a result free of NaN. */
    check(mink_intersect(NULL, &origin, &box, &far, NULL) < 0, "bad input", "mink_intersect(NULL shape) < 0");
    const mink_pose bad = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 2.0f}};
    mink_status st = mink_penetration(&box, &bad, &box, &far, NULL, &r);
    check(st == MINK_ERR_INVALID && r.status == MINK_ERR_INVALID && r.distance == 0.0f,
          "non-unit quaternion", "MINK_ERR_INVALID, zero result");

    free(mem); /* the hull is not used after this */

    const char *backend = mink_simd_backend();
    check(backend && (strcmp(backend, "sse41") == 0 || strcmp(backend, "avx2") == 0 ||
                      strcmp(backend, "avx512") == 0 || strcmp(backend, "neon") == 0 ||
                      strcmp(backend, "portable") == 0),
          "mink_simd_backend", "a backend's name");

    printf("mink consumer (mink %d.%d.%d, %s): %d checks, %d failed\n", MINK_VERSION_MAJOR,
           MINK_VERSION_MINOR, MINK_VERSION_PATCH, backend ? backend : "?", checks, failures);
    return failures ? 1 : 0;
}
