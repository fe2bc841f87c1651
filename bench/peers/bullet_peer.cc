// Bullet peer (Debian's libbullet-dev: single precision).
//
// "bullet": btGjkPairDetector with a btVoronoiSimplexSolver.
// - distance and intersect: no penetration solver (Bullet's GJK distance;
//   overlap = no result or distance <= 0);
// - penetration: the same detector with btGjkEpaPenetrationDepthSolver, which
//   also reports the distance of separated pairs.
//
// Shapes carry their rounding radius as Bullet's margin, which Bullet's GJK
// adds on top of the core ("support without margin"): btSphereShape(r),
// btCapsuleShape(r, 2h) (Y axis, like mink's), btBoxShape(h + r) with
// setMargin(r) (the margin sits inside the box's given extents, so the core
// stays h), btConvexHullShape with setMargin(r) (its default is 0.04).
//
// Bullet's normalOnB points from B towards A ("normal on B"), with
// point_on_A = point_on_B + normal * distance: mink's normal is its negation.
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include "bullet_common.h"

namespace {

struct bullet_ctx {
    size_t n = 0;
    std::vector<std::unique_ptr<btConvexShape>> shapes;  // 2n: A then B of each case
    // The detector reads its transforms from this input; one per case, built once.
    btAlignedObjectArray<btDiscreteCollisionDetectorInterface::ClosestPointInput> inputs;
    btVoronoiSimplexSolver simplex;         // reset by the detector on every query
    btGjkEpaPenetrationDepthSolver epa;     // stateless
};

btConvexShape *to_bullet(const case_shape &s) { return bullet_rounded_shape(s, 0.0); }

// One GJK query; `with_epa` selects the penetration solver.
inline btPointCollector query(bullet_ctx *x, size_t i, bool with_epa)
{
    btPointCollector out;
    btGjkPairDetector det(x->shapes[2 * i].get(), x->shapes[2 * i + 1].get(), &x->simplex,
                          with_epa ? &x->epa : nullptr);
    det.getClosestPoints(x->inputs[static_cast<int>(i)], out, nullptr);
    return out;
}

void *prepare(const mink_case *cases, size_t n)
{
    auto *x = new (std::nothrow) bullet_ctx;
    if (!x)
        return nullptr;
    x->n = n;
    x->shapes.reserve(2 * n);
    x->inputs.reserve(static_cast<int>(n));
    for (size_t i = 0; i < n; ++i) {
        x->shapes.emplace_back(to_bullet(cases[i].sa));
        x->shapes.emplace_back(to_bullet(cases[i].sb));
        if (!x->shapes[2 * i] || !x->shapes[2 * i + 1]) {
            delete x;
            return nullptr;
        }
        btDiscreteCollisionDetectorInterface::ClosestPointInput in;
        in.m_transformA = bullet_transform(cases[i].qa);
        in.m_transformB = bullet_transform(cases[i].qb);
        in.m_maximumDistanceSquared = BT_LARGE_FLOAT;  // report any distance
        x->inputs.push_back(in);
    }
    return x;
}

void release(void *ctx)
{
    delete static_cast<bullet_ctx *>(ctx);
}

void answer(void *ctx, size_t i, int q, peer_answer *a)
{
    auto *x = static_cast<bullet_ctx *>(ctx);
    const bool epa = q == CASE_QUERY_PENETRATION;
    btPointCollector out = query(x, i, epa);
    if (!out.m_hasResult) {
        // Without a penetration solver Bullet reports nothing for overlapping
        // cores: that is its "overlap". With EPA, no result is a failure.
        if (!epa)
            a->kind = CASE_PEN;
        return;
    }
    const double d = out.m_distance;
    a->kind = d > 0.0 ? CASE_SEP : CASE_PEN;
    a->has_value = 1;
    a->value = std::fabs(d);
    const btVector3 &nb = out.m_normalOnBInWorld;
    const double len = std::sqrt(double(nb.x()) * nb.x() + double(nb.y()) * nb.y() +
                                 double(nb.z()) * nb.z());
    if (len > 0.0) {
        a->has_normal = 1;
        a->normal[0] = -nb.x() / len;
        a->normal[1] = -nb.y() / len;
        a->normal[2] = -nb.z() / len;
    }
}

double pass(void *ctx, int q)
{
    auto *x = static_cast<bullet_ctx *>(ctx);
    const bool epa = q == CASE_QUERY_PENETRATION;
    double sum = 0.0;
    for (size_t i = 0; i < x->n; ++i) {
        btPointCollector out = query(x, i, epa);
        sum += out.m_hasResult ? out.m_distance : 0.0;
    }
    return sum;
}

}  // namespace

extern "C" const peer_api peer_bullet = {
    "bullet",
    (1u << CASE_QUERY_INTERSECT) | (1u << CASE_QUERY_DISTANCE) | (1u << CASE_QUERY_PENETRATION),
    1, prepare, release, answer, pass};
