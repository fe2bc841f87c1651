// mink inside Bullet: a btCollisionAlgorithm that answers convex pairs with
// mink_manifold and fills Bullet's btPersistentManifold, so a Bullet world
// runs on mink's narrowphase with its own broadphase, solver and world.
//
//   btCollisionDispatcher *dispatcher = new btCollisionDispatcher(config);
//   mink_bullet_register(dispatcher);   // every mapped convex pair: mink
//
// Mapped shapes (anything else keeps Bullet's own algorithm):
//   btBoxShape            a sharp box of its half extents (the margin is
//                         inside, as Bullet's box-box and clipping see it)
//   btSphereShape         a sphere
//   btCapsuleShape(X|Z)   a capsule (mink's is along Y; X and Z are turned)
//   btConvexHullShape     the hull of its scaled points, rounded by the margin
//   btMultiSphereShape    one sphere at the origin, or two equal spheres
//                         placed symmetrically about it (a capsule)
// Each Bullet shape is translated once, when the first pair using it is
// created, and kept (the hull's memory included) until
// mink_bullet_forget_shape or mink_bullet_unregister. A shape changed after
// that (scaling, margin, points) is translated again when its next pair is
// created.
//
// Per pair the algorithm keeps a mink_cache (the deciding feature of last
// frame's manifold) and the feature keys of the manifold's points: a point
// whose key persists keeps Bullet's accumulated impulses (warm starting).
// The margin is the manifold's contact breaking threshold. Normals and
// depths follow Bullet's convention: normal on B (from B towards A), the
// point on B, negative distance when penetrating.
#ifndef MINK_BULLET_H
#define MINK_BULLET_H

class btCollisionDispatcher;
class btCollisionShape;

// Switches the dispatcher's convex pairs of the mapped shape types to mink.
// Bullet's own create functions stay as the fallback for shapes that do not
// map. Returns false (and changes nothing) if the dispatcher is NULL.
bool mink_bullet_register(btCollisionDispatcher *dispatcher);

// Restores Bullet's create functions (its collision configuration's). Algorithms already
// created stay valid until their pairs go away; remove the world's bodies
// first when everything is to be freed.
void mink_bullet_unregister(btCollisionDispatcher *dispatcher);

// Drops the translation of a shape about to be deleted (its address may be
// reused by a new shape). No pair may still use it.
void mink_bullet_forget_shape(const btCollisionShape *shape);

// Frame coherence on the engine's side (off by default): a pair whose
// bodies have not moved relative to each other since mink answered it (no
// point of the answer moved by more than `relative` times the smaller
// shape's size) reuses that answer, moved with the bodies, without calling
// mink. 1e-4 keeps the answers within mink's query tolerance; 1e-3 is
// about Jolt's body-pair cache (1 mm on a metre-sized body). 0 (the
// default): every frame calls mink_manifold. Measured on the scenes of
// mink-bullet-scenes (--reuse-tolerance): at 1e-4 few pairs qualify (7 %
// of the pyramid's pair-frames); at 1e-3, 76 % of the pyramid's and 95 %
// of the stack's do, and their narrowphase time falls 2.5x and 3.7x, with
// answers that much coarser; the pile (9 %) hardly changes.
void mink_bullet_set_reuse_tolerance(float relative);

// Counters since the program started, for tests and benchmarks.
struct mink_bullet_stats {
    unsigned long long mink_pairs;     // algorithms created on mink
    unsigned long long fallback_pairs; // algorithms left to Bullet
    unsigned long long queries;        // mink_manifold calls
    unsigned long long invalid;        // answered MINK_ERR_INVALID (no contacts)
    unsigned long long reused;         // answers reused (see above)
};
mink_bullet_stats mink_bullet_get_stats();

#endif  // MINK_BULLET_H
