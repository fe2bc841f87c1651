// Bullet's shape casts (Debian's libbullet-dev: single precision), for the
// cast/<group>/<impl> family (bench_cast.h).
//
// "bullet-gjkcast": btGjkConvexCast, the cast btConvexConvexAlgorithm's
//   calculateTimeOfImpact runs. Linear only: it moves A's and B's origins
//   from the `from` to the `to` transforms and keeps the `from` rotations
//   over the whole step, so on a rotating case it answers for a motion
//   without the turn (which is how it misses the hits of turning bodies).
//   GJK without a penetration solver: a pair whose cores already overlap at
//   t = 0 gets no closest points, and the cast reports no hit.
// "bullet-ccd": btContinuousConvexCollision (Mirtich's conservative
//   advancement, what btCollisionWorld's convex sweeps use), with the same
//   btGjkEpaPenetrationDepthSolver as those. It takes the rotation: the
//   linear and angular velocities come from the from/to transforms (the
//   rotation from q0 to q1 along the shortest arc, about the shape's
//   origin, at a constant rate: the case files' slerp motion), and each step
//   advances by distance / (closing speed + |w| x angular motion disc).
//
// bullet-ccd on turns of more than 120 degrees per step: calculateVelocity
//   takes the angle from the quaternion of basis1 * basis0^-1 without
//   choosing its sign, so about half of those cases turn the long way round
//   (2 pi - angle about the opposite axis): another motion with the same
//   end poses. Bullet's dynamics world keeps a body below a quarter turn
//   per step; the rot-* groups go up to half a turn.
//
// Both stop when Bullet's distance is at most 0.001 (a fixed absolute
// tolerance, not a parameter) and report that fraction: a hit up to 1e-3 of
// distance before the contact, where the case files' rule is 1e-4 L. Both
// report "no hit" for a pair that starts within that distance but moves
// apart, and on a give-up (the iteration cap, a step going backwards).
//
// Target distance: Bullet casts to contact (distance 0), so B is inflated
// by the case's target (its rounding radius, which is Bullet's margin, grows
// by target: bullet_rounded_shape), which makes Bullet's contact the
// target contact: the inflated B touches A exactly when B is within target
// of A. A is as written. Debian's Bullet is single precision: its GJK
// distance near contact is off by up to ~5e-4 on the hull pairs (lin-hull),
// which moves its t by as much (late as well as early).
//
// Bullet's normal is B's (from B towards A): mink's is its negation.
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btContinuousConvexCollision.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkConvexCast.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include "bullet_common.h"
#include "cast_peers.h"

namespace {

struct cast_ctx {
    size_t n = 0;
    std::vector<std::unique_ptr<btConvexShape>> shapes;  // 2n: A, then B inflated by target
    btAlignedObjectArray<btTransform> xf;                // 4n: A from, A to, B from, B to
    btVoronoiSimplexSolver simplex;                      // reset by the casts on every query
    btGjkEpaPenetrationDepthSolver epa;                  // stateless
};

void *prepare(const mink_case *cases, size_t n)
{
    auto *x = new (std::nothrow) cast_ctx;
    if (!x)
        return nullptr;
    x->n = n;
    x->shapes.reserve(2 * n);
    x->xf.reserve(static_cast<int>(4 * n));
    for (size_t i = 0; i < n; ++i) {
        const mink_case &c = cases[i];
        x->shapes.emplace_back(bullet_rounded_shape(c.sa, 0.0));
        x->shapes.emplace_back(bullet_rounded_shape(c.sb, c.target));
        if (!c.is_cast || !x->shapes[2 * i] || !x->shapes[2 * i + 1]) {
            delete x;
            return nullptr;
        }
        x->xf.push_back(bullet_transform(c.qa));
        x->xf.push_back(bullet_transform(c.qa1));
        x->xf.push_back(bullet_transform(c.qb));
        x->xf.push_back(bullet_transform(c.qb1));
    }
    return x;
}

void release(void *ctx)
{
    delete static_cast<cast_ctx *>(ctx);
}

// One cast of case i with the caster type T (constructed per query, as
// Bullet's own callers do: it only holds pointers).
template <class Caster>
bool cast(cast_ctx *x, size_t i, btConvexCast::CastResult &r);

template <>
bool cast<btGjkConvexCast>(cast_ctx *x, size_t i, btConvexCast::CastResult &r)
{
    btGjkConvexCast caster(x->shapes[2 * i].get(), x->shapes[2 * i + 1].get(), &x->simplex);
    const int k = static_cast<int>(4 * i);
    return caster.calcTimeOfImpact(x->xf[k], x->xf[k + 1], x->xf[k + 2], x->xf[k + 3], r);
}

template <>
bool cast<btContinuousConvexCollision>(cast_ctx *x, size_t i, btConvexCast::CastResult &r)
{
    btContinuousConvexCollision caster(x->shapes[2 * i].get(), x->shapes[2 * i + 1].get(), &x->simplex,
                                       &x->epa);
    const int k = static_cast<int>(4 * i);
    return caster.calcTimeOfImpact(x->xf[k], x->xf[k + 1], x->xf[k + 2], x->xf[k + 3], r);
}

template <class Caster>
void answer(void *ctx, size_t i, peer_cast_answer *a)
{
    auto *x = static_cast<cast_ctx *>(ctx);
    btConvexCast::CastResult r;
    a->hit = cast<Caster>(x, i, r) ? 1 : 0;
    if (!a->hit)
        return;
    a->t = double(r.m_fraction);
    const btVector3 &nb = r.m_normal;
    const double len = std::sqrt(double(nb.x()) * nb.x() + double(nb.y()) * nb.y() + double(nb.z()) * nb.z());
    if (len > 0.0 && std::isfinite(len)) {
        a->has_normal = 1;
        a->normal[0] = -nb.x() / len;
        a->normal[1] = -nb.y() / len;
        a->normal[2] = -nb.z() / len;
    }
}

template <class Caster>
double pass(void *ctx)
{
    auto *x = static_cast<cast_ctx *>(ctx);
    double sum = 0.0;
    for (size_t i = 0; i < x->n; ++i) {
        btConvexCast::CastResult r;
        sum += cast<Caster>(x, i, r) ? double(r.m_fraction) : 2.0;
    }
    return sum;
}

}  // namespace

extern "C" const peer_cast_api peer_bullet_gjkcast = {
    "bullet-gjkcast", prepare, release, answer<btGjkConvexCast>, pass<btGjkConvexCast>};
extern "C" const peer_cast_api peer_bullet_ccd = {
    "bullet-ccd", prepare, release, answer<btContinuousConvexCollision>, pass<btContinuousConvexCollision>};
