// Continuous collision on mink (mink_bullet_world), headless:
// - scene "ccd", shortened: with Bullet's CCD off most spheres go through
//   the 2 cm planks (the scene is hard); with mink's narrowphase and CCD
//   none does; no NaN either way.
// - a rod flying broadside past a plank's edge, its end on course for the
//   plank and its centre not: mink casts the rod itself, and the rod's end
//   hits the plank (the rod turns about it); Bullet's CCD sweeps a sphere
//   around the centre, which misses (printed, not checked: that is
//   Bullet's business).
// - a plank whose shape has no mink translation (a compound): the
//   world sweeps Bullet's sphere against it, and the ball stays in front.
// - bodies below their CCD threshold step exactly as in
//   btDiscreteDynamicsWorld (same poses, bit for bit).
#include "mink_bullet.h"
#include "scenes.h"

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char *what)
{
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

// A small world of static and dynamic bodies, on mink's narrowphase, in a
// mink_bullet_world or in Bullet's own.
struct World {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    std::unique_ptr<btDiscreteDynamicsWorld> world;
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> bodies;

    explicit World(bool mink_ccd)
    {
        mink_bullet_register(&dispatcher);
        if (mink_ccd) world = std::make_unique<mink_bullet_world>(&dispatcher, &broadphase, &solver, &config);
        else world = std::make_unique<btDiscreteDynamicsWorld>(&dispatcher, &broadphase, &solver, &config);
        world->setGravity(btVector3(0, 0, 0));
    }
    ~World()
    {
        for (auto &b : bodies) world->removeRigidBody(b.get());
        world.reset();
        mink_bullet_unregister(&dispatcher);
        for (auto &s : shapes) mink_bullet_forget_shape(s.get());
    }
    btCollisionShape *shape(btCollisionShape *s)
    {
        shapes.emplace_back(s);
        return s;
    }
    btRigidBody *add(btCollisionShape *s, btScalar mass, const btTransform &t)
    {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) s->calculateLocalInertia(mass, inertia);
        bodies.push_back(std::make_unique<btRigidBody>(mass, nullptr, s, inertia));
        btRigidBody *b = bodies.back().get();
        b->setWorldTransform(t);
        b->setActivationState(DISABLE_DEACTIVATION);
        world->addRigidBody(b);
        return b;
    }
    void run(int steps)
    {
        for (int i = 0; i < steps; ++i) world->stepSimulation(btScalar(1.0 / 60.0), 0);
    }
};

btTransform at(btScalar x, btScalar y, btScalar z) { return btTransform(btQuaternion::getIdentity(), btVector3(x, y, z)); }

bool finite(const btVector3 &v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }

// A rod (capsule along z, 0.62 m long) at 60 m/s along x, centred at z = 0,
// at a plank that spans z from 0.1 to 0.5: only the rod's end meets it.
// Returns the rod's angular speed after 20 steps (0 if untouched).
btScalar rod_past_plank_edge(bool mink_ccd)
{
    World w(mink_ccd);
    w.add(w.shape(new btBoxShape(btVector3(btScalar(0.01), 1, btScalar(0.2)))), 0, at(0, 0, btScalar(0.3)));
    btCollisionShape *rod = w.shape(new btCapsuleShapeZ(btScalar(0.02), btScalar(0.6)));
    btRigidBody *b = w.add(rod, btScalar(0.1), at(-2, 0, 0));
    b->setLinearVelocity(btVector3(60, 0, 0));
    b->setCcdMotionThreshold(btScalar(0.02));
    b->setCcdSweptSphereRadius(btScalar(0.018));
    w.run(20);
    const btVector3 spin = b->getAngularVelocity();
    return finite(b->getWorldTransform().getOrigin()) && finite(spin) ? spin.length() : btScalar(-1);
}

} // namespace

int main()
{
    // the scene, shortened: 60 spheres in 6 waves, 60 steps
    SceneOptions opt;
    opt.steps = 60;
    opt.ccd_spheres = 60;
    opt.ccd = false;
    const SceneRun off = run_scene("ccd", Narrowphase::bullet, opt);
    opt.ccd = true;
    const SceneRun bullet = run_scene("ccd", Narrowphase::bullet, opt);
    const SceneRun mink = run_scene("ccd", Narrowphase::mink, opt);
    for (const SceneRun *r : {&off, &bullet, &mink})
        std::printf("     %-13s %d of %d spheres tunnelled, NaN %d, %.1f sweeps and %.1f casts per step in flight\n",
                    r->label().c_str(), r->tunnelled, r->shots, r->non_finite, r->mean_swept(), r->mean_casts());
    check(off.tunnelled > off.shots / 2, "CCD off: more than half the spheres go through the planks");
    check(mink.tunnelled == 0, "mink's CCD: no sphere goes through a plank");
    check(mink.mean_casts() > 0 && mink.mean_swept() > 0, "mink's CCD swept and cast");
    check(off.non_finite == 0 && bullet.non_finite == 0 && mink.non_finite == 0, "no NaN");

    const btScalar rod_mink = rod_past_plank_edge(true), rod_bullet = rod_past_plank_edge(false);
    std::printf("     rod past a plank's edge: turning at %.1f rad/s with mink's CCD, %.1f with Bullet's\n",
                double(rod_mink), double(rod_bullet));
    check(rod_mink > 10, "mink's CCD casts the rod itself: its end hits the plank");

    {
        // a compound plank (no mink shape): Bullet's sphere sweep against it
        World w(true);
        auto *compound = static_cast<btCompoundShape *>(w.shape(new btCompoundShape()));
        compound->addChildShape(btTransform::getIdentity(),
                                w.shape(new btBoxShape(btVector3(btScalar(0.01), 1, 1))));
        w.add(compound, 0, at(0, 0, 0));
        btRigidBody *ball = w.add(w.shape(new btSphereShape(btScalar(0.03))), btScalar(0.1), at(-2, 0, 0));
        ball->setLinearVelocity(btVector3(80, 0, 0));
        ball->setCcdMotionThreshold(btScalar(0.03));
        ball->setCcdSweptSphereRadius(btScalar(0.027));
        w.run(20);
        const mink_bullet_world::ccd_stats s = static_cast<mink_bullet_world *>(w.world.get())->get_ccd_stats();
        const btScalar x = ball->getWorldTransform().getOrigin().x();
        std::printf("     compound plank: ball at x = %.3f, %llu Bullet sweeps, %llu mink casts\n", double(x),
                    s.bullet_sweeps, s.casts);
        check(x < 0 && s.bullet_sweeps > 0, "an unmapped plank: Bullet's sweep against it, no tunnelling");
    }

    {
        // no CCD thresholds: a mink_bullet_world steps as Bullet's world
        btVector3 end[2][8];
        for (int k = 0; k < 2; ++k) {
            World w(k == 0);
            w.world->setGravity(btVector3(0, btScalar(-9.81), 0));
            w.add(w.shape(new btBoxShape(btVector3(10, 1, 10))), 0, at(0, -1, 0));
            btCollisionShape *box = w.shape(new btBoxShape(btVector3(btScalar(0.3), btScalar(0.2), btScalar(0.25))));
            std::vector<btRigidBody *> boxes;
            for (int i = 0; i < 8; ++i) {
                btRigidBody *b = w.add(box, 1, btTransform(btQuaternion(btScalar(0.1 * i), btScalar(0.2), 0),
                                                           btVector3(btScalar(0.1 * i), btScalar(0.3 + 0.5 * i), 0)));
                b->setLinearVelocity(btVector3(btScalar(0.5 * (i % 3)), 0, btScalar(-0.3 * (i % 2))));
                boxes.push_back(b);
            }
            w.run(90);
            for (int i = 0; i < 8; ++i) end[k][i] = boxes[size_t(i)]->getWorldTransform().getOrigin();
        }
        bool same = true;
        for (int i = 0; i < 8; ++i) same &= end[0][i] == end[1][i];
        check(same, "below the CCD threshold: the same poses as btDiscreteDynamicsWorld, bit for bit");
    }
    return failures ? 1 : 0;
}
