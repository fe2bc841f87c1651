// Shared by the Bullet adapters (bullet_peer.cc, bullet_manifold_peer.cc,
// bullet_cast_peer.cc).
#ifndef MINK_BENCH_BULLET_COMMON_H
#define MINK_BENCH_BULLET_COMMON_H

#include <vector>

#include <btBulletCollisionCommon.h>
#include <LinearMath/btTransform.h>

// mink.h names a function after its struct (mink_manifold), which g++'s
// -Wshadow reports as hiding the struct's constructor: C has none.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#include "peers.h"
#pragma GCC diagnostic pop

// A case pose as a Bullet transform (world = basis * local + origin).
inline btTransform bullet_transform(const case_pose &q)
{
    double m[9];
    peer_rotation(q.q, m);
    const btMatrix3x3 basis{btScalar(m[0]), btScalar(m[1]), btScalar(m[2]),
                            btScalar(m[3]), btScalar(m[4]), btScalar(m[5]),
                            btScalar(m[6]), btScalar(m[7]), btScalar(m[8])};
    return btTransform(basis, btVector3(btScalar(q.p[0]), btScalar(q.p[1]), btScalar(q.p[2])));
}

// A case shape as a Bullet convex shape whose rounding is `inflate` larger
// (0: the shape itself), nullptr for an unknown type; the caller owns it.
// The rounding radius is Bullet's margin, which its GJK adds on top of the
// core (as bullet_peer.cc translates shapes): btSphereShape(r),
// btCapsuleShape(r, 2h) (Y axis, like mink's), btBoxShape(h + r) with
// setMargin(r) (the margin sits inside the given extents, so the core stays
// h), btConvexHullShape with setMargin(r) (its default is 0.04).
inline btConvexShape *bullet_rounded_shape(const case_shape &s, double inflate)
{
    const double rd = s.radius + inflate;
    const btScalar r = btScalar(rd);
    switch (s.type) {
    case MINK_SHAPE_SPHERE:
        return new btSphereShape(r);
    case MINK_SHAPE_CAPSULE:
        return new btCapsuleShape(r, btScalar(2.0 * s.param[0]));
    case MINK_SHAPE_BOX: {
        btBoxShape *box = new btBoxShape(btVector3(btScalar(s.param[0] + rd), btScalar(s.param[1] + rd),
                                                   btScalar(s.param[2] + rd)));
        box->setMargin(r);
        return box;
    }
    case MINK_SHAPE_HULL: {
        std::vector<btScalar> pts(3 * static_cast<size_t>(s.n));
        for (size_t i = 0; i < pts.size(); ++i)
            pts[i] = btScalar(s.pts[i]);
        btConvexHullShape *hull = new btConvexHullShape(pts.data(), static_cast<int>(s.n), 3 * sizeof(btScalar));
        hull->setMargin(r);
        return hull;
    }
    default:
        return nullptr;
    }
}

#endif  // MINK_BENCH_BULLET_COMMON_H
