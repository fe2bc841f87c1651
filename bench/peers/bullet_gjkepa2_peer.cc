// Bullet peer through btGjkEpaSolver2 (Debian's libbullet-dev: single
// precision), the solver under Bullet's btGjkEpaPenetrationDepthSolver,
// called directly: no btGjkPairDetector, no simplex solver object, no result
// collector.
//
// "bullet-gjkepa2":
// - distance and intersect: btGjkEpaSolver2::Distance, GJK on the cores
//   (it runs without margins), then the rounding: distance = core distance -
//   (margin A + margin B); at or below 0, or when Distance reports the cores
//   overlapping, the pair overlaps (no distance reported, as "bullet");
// - penetration: the same Distance call first (SignedDistance's route), which
//   gives separated pairs their distance (pen_sep_value = 1) and pairs whose
//   cores are apart but whose roundings overlap their depth, margins - core
//   distance, along the core witnesses; when the cores overlap,
//   btGjkEpaSolver2::Penetration on the cores (usemargins = false, as
//   SignedDistance calls it), GJK + EPA, whose depth grows by the margins
//   (the rounded shapes are the cores' Minkowski sums with balls: the normal
//   stays, the depth adds). Penetration with usemargins = true would run EPA
//   on the rounded shapes themselves (curved, so only as exact as EPA's
//   tolerance allows on a sphere) and is not what Bullet's own callers do
//   for rounded cores.
//
// Shapes and margins as in bullet_peer.cc (bullet_common.h): the rounding
// radius is the margin (btSphereShape, btCapsuleShape carry their radius as
// margin, boxes and hulls setMargin(r)); btGjkEpaSolver2 takes supports
// "without margin" when margins are off, so the cores are the cases' cores.
//
// Conventions: Distance's witnesses are in world space (witnesses[0] on A,
// [1] on B) but its and Penetration's `normal` are in A's local frame.
// Penetration: witnesses[1] = witnesses[0] - n * depth with n = -normal (A's
// frame), so translating B by depth * n separates: mink's normal is
// -(basis A * normal). The guess is the centre difference B - A, as Bullet's
// btGjkEpaPenetrationDepthSolver passes it.
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

#include "bullet_common.h"

namespace {

struct gjkepa2_ctx {
    size_t n = 0;
    std::vector<std::unique_ptr<btConvexShape>> shapes;  // 2n: A then B of each case
    btAlignedObjectArray<btTransform> tf;                // 2n
    btAlignedObjectArray<btVector3> guess;               // n: centre B - centre A
    std::vector<btScalar> margins;                       // n: margin A + margin B
};

using results_t = btGjkEpaSolver2::sResults;

inline bool core_distance(const gjkepa2_ctx *x, size_t i, results_t &r)
{
    return btGjkEpaSolver2::Distance(x->shapes[2 * i].get(), x->tf[int(2 * i)], x->shapes[2 * i + 1].get(),
                                     x->tf[int(2 * i + 1)], x->guess[int(i)], r);
}

inline bool core_penetration(const gjkepa2_ctx *x, size_t i, results_t &r)
{
    return btGjkEpaSolver2::Penetration(x->shapes[2 * i].get(), x->tf[int(2 * i)], x->shapes[2 * i + 1].get(),
                                        x->tf[int(2 * i + 1)], x->guess[int(i)], r, false);
}

void *prepare(const mink_case *cases, size_t n)
{
    auto *x = new (std::nothrow) gjkepa2_ctx;
    if (!x)
        return nullptr;
    x->n = n;
    x->shapes.reserve(2 * n);
    x->tf.reserve(int(2 * n));
    x->guess.reserve(int(n));
    x->margins.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        x->shapes.emplace_back(bullet_rounded_shape(cases[i].sa, 0.0));
        x->shapes.emplace_back(bullet_rounded_shape(cases[i].sb, 0.0));
        if (!x->shapes[2 * i] || !x->shapes[2 * i + 1]) {
            delete x;
            return nullptr;
        }
        x->tf.push_back(bullet_transform(cases[i].qa));
        x->tf.push_back(bullet_transform(cases[i].qb));
        x->guess.push_back(x->tf[int(2 * i + 1)].getOrigin() - x->tf[int(2 * i)].getOrigin());
        x->margins.push_back(x->shapes[2 * i]->getMargin() + x->shapes[2 * i + 1]->getMargin());
    }
    return x;
}

void release(void *ctx)
{
    delete static_cast<gjkepa2_ctx *>(ctx);
}

void set_normal(peer_answer *a, double x, double y, double z)
{
    const double len = std::sqrt(x * x + y * y + z * z);
    if (len > 0.0) {
        a->has_normal = 1;
        a->normal[0] = x / len;
        a->normal[1] = y / len;
        a->normal[2] = z / len;
    }
}

void answer(void *ctx, size_t i, int q, peer_answer *a)
{
    auto *x = static_cast<gjkepa2_ctx *>(ctx);
    results_t r;
    if (core_distance(x, i, r)) {
        const double d = double(r.distance) - double(x->margins[i]);
        const btVector3 w = r.witnesses[1] - r.witnesses[0];  // A towards B
        if (d > 0.0) {
            a->kind = CASE_SEP;
            if (q != CASE_QUERY_INTERSECT) {
                a->has_value = 1;
                a->value = d;
                set_normal(a, w.x(), w.y(), w.z());
            }
        } else {
            a->kind = CASE_PEN;
            if (q == CASE_QUERY_PENETRATION) {
                a->has_value = 1;
                a->value = -d;
                set_normal(a, w.x(), w.y(), w.z());
            }
        }
        return;
    }
    if (r.status != results_t::Penetrating)
        return;  // GJK failed: no answer
    if (q != CASE_QUERY_PENETRATION) {
        a->kind = CASE_PEN;
        return;
    }
    if (!core_penetration(x, i, r))
        return;  // EPA failed: no answer
    a->kind = CASE_PEN;
    a->has_value = 1;
    a->value = -double(r.distance) + double(x->margins[i]);
    const btVector3 nw = -(x->tf[int(2 * i)].getBasis() * r.normal);
    set_normal(a, nw.x(), nw.y(), nw.z());
}

double pass(void *ctx, int q)
{
    auto *x = static_cast<gjkepa2_ctx *>(ctx);
    double sum = 0.0;
    for (size_t i = 0; i < x->n; ++i) {
        results_t r;
        if (core_distance(x, i, r)) {
            const btScalar d = r.distance - x->margins[i];
            sum += q == CASE_QUERY_INTERSECT ? (d > 0 ? 0.0 : 1.0) : double(d);
        } else if (q == CASE_QUERY_PENETRATION && r.status == results_t::Penetrating) {
            if (core_penetration(x, i, r))
                sum += double(r.distance - x->margins[i]);
        } else {
            sum += 1.0;
        }
    }
    return sum;
}

}  // namespace

extern "C" const peer_api peer_bullet_gjkepa2 = {
    "bullet-gjkepa2",
    (1u << CASE_QUERY_INTERSECT) | (1u << CASE_QUERY_DISTANCE) | (1u << CASE_QUERY_PENETRATION),
    1, prepare, release, answer, pass};
