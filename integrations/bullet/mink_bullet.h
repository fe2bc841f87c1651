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
//
// Continuous collision (CCD) on mink: mink_bullet_world below.
#ifndef MINK_BULLET_H
#define MINK_BULLET_H

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>

class btCollisionDispatcher;
class btCollisionShape;
struct btBroadphaseProxy;

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
// shape's size) reuses that answer without calling mink: its points stay
// in Bullet's manifold, with their impulses, moved with the bodies (as
// Bullet's refreshContactPoints moves its own). An answer without points
// is reused while no point of the pair can have come nearer by half the
// margin (the contact breaking threshold). 1e-4 keeps the answers within
// mink's query tolerance; 1e-3 is about Jolt's body-pair cache (1 mm on a
// metre-sized body). 0 (the default): every frame calls mink_manifold.
// Measured on the scenes of mink-bullet-scenes (the "mink-reuse" rows): at
// 1e-3, 90 % of the pyramid's pair-frames and 96 % of the stack's are
// reused, and their narrowphase time falls 4.5x and about 6x, with answers
// that much coarser; the pile (10 %) hardly changes.
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

// A btDiscreteDynamicsWorld whose continuous collision runs on mink_cast.
//
//   mink_bullet_world world(&dispatcher, &broadphase, &solver, &config);
//   body->setCcdMotionThreshold(r);          // as with Bullet's own CCD
//   body->setCcdSweptSphereRadius(0.9f * r); // (used only by the fallback)
//
// Bullet's CCD, per body whose motion in the step is longer than its CCD
// motion threshold (and while getDispatchInfo().m_useContinuous), sweeps a
// sphere of the body's swept sphere radius along the motion, twice:
// createPredictiveContacts adds a speculative contact with the first thing
// hit, which the solver keeps the body from closing past, and
// integrateTransforms clamps the body's step to the time of the first hit.
// This world overrides both and does the same with the body's own shape:
// the broadphase gives the bodies whose AABBs overlap the swept AABB, and
// each is cast against with mink_cast (the motion without its rotation, the
// other body standing still, as Bullet's sweep has it) to within a target
// of half the pair's contact breaking threshold, so the next step's
// narrowphase sees the contact. The earliest hit wins; as in Bullet, a hit
// the body does not move into by more than the dispatcher's
// m_allowedCcdPenetration over the step is ignored, and a clamped body
// keeps its velocity (the contact answers it in the next step). Speculative
// contacts are at the mink witness points; pairs already within the target
// at the start are left to their narrowphase contacts.
// Shapes are those of the shape table above (a shape's kept translation,
// as its pairs use it). Shapes without a mink translation keep Bullet: a
// moving body whose shape does not map runs Bullet's own CCD, and an
// unmapped other body (a mesh, a compound) is swept against with Bullet's
// swept sphere. Bodies below their threshold integrate exactly as in
// Bullet. Single-threaded, like btDiscreteDynamicsWorld's own integration.
// Measured in mink-bullet-scenes --scene ccd (200 spheres of 2-5 cm at
// 30-100 m/s against 2 cm planks): none through with either CCD (188 with
// CCD off), mink's CCD 0.08 ms a step against Bullet's 0.12.
class mink_bullet_world : public btDiscreteDynamicsWorld {
public:
    BT_DECLARE_ALIGNED_ALLOCATOR();
    using btDiscreteDynamicsWorld::btDiscreteDynamicsWorld;

    // Counters since the world was made (both passes).
    struct ccd_stats {
        unsigned long long swept;          // body sweeps (a fast body, per pass)
        unsigned long long casts;          // mink_cast calls
        unsigned long long hits;           // clamped steps and speculative contacts
        unsigned long long invalid;        // casts answered MINK_ERR_INVALID (ignored)
        unsigned long long bullet_bodies;  // fast bodies left to Bullet's CCD (unmapped shape)
        unsigned long long bullet_sweeps;  // Bullet sphere sweeps against unmapped bodies
    };
    ccd_stats get_ccd_stats() const { return m_ccd; }

protected:
    void createPredictiveContacts(btScalar timeStep) override;
    void integrateTransforms(btScalar timeStep) override;

private:
    ccd_stats m_ccd{};
    btAlignedObjectArray<const btBroadphaseProxy *> m_candidates; // scratch
};

#endif  // MINK_BULLET_H
