// Shared by the Bullet adapters (bullet_peer.cc, bullet_manifold_peer.cc).
#ifndef MINK_BENCH_BULLET_COMMON_H
#define MINK_BENCH_BULLET_COMMON_H

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

#endif  // MINK_BENCH_BULLET_COMMON_H
