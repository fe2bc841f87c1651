// The scenes of mink-bullet-scenes: see scenes.h.
#include "scenes.h"

#include "mink_bullet.h"

#include <btBulletDynamicsCommon.h>
#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>

// Bullet's count of CCD body sweeps (btDiscreteDynamicsWorld.cpp; both passes)
extern int gNumClampedCcdMotions;

namespace {

double now_ms()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Bullet's dispatcher, timing the narrowphase: every pair's algorithm runs
// inside dispatchAllCollisionPairs.
class TimedDispatcher : public btCollisionDispatcher {
public:
    using btCollisionDispatcher::btCollisionDispatcher;
    double spent_ms = 0;
    void dispatchAllCollisionPairs(btOverlappingPairCache *pairs, const btDispatcherInfo &info,
                                   btDispatcher *dispatcher) override
    {
        const double t0 = now_ms();
        btCollisionDispatcher::dispatchAllCollisionPairs(pairs, info, dispatcher);
        spent_ms += now_ms() - t0;
    }
};

// A world timing its CCD: Bullet's (btDiscreteDynamicsWorld) or mink's
// (mink_bullet_world) createPredictiveContacts and integrateTransforms.
struct CcdClock {
    double ccd_ms = 0;
};
template <class World> class TimedWorld : public World, public CcdClock {
public:
    using World::World;

protected:
    void createPredictiveContacts(btScalar dt) override
    {
        const double t0 = now_ms();
        World::createPredictiveContacts(dt);
        ccd_ms += now_ms() - t0;
    }
    void integrateTransforms(btScalar dt) override
    {
        const double t0 = now_ms();
        World::integrateTransforms(dt);
        ccd_ms += now_ms() - t0;
    }
};

// xorshift64*: the same bodies on every platform and standard library.
struct Rng {
    uint64_t s;
    explicit Rng(uint32_t seed) : s(0x9E3779B97F4A7C15ull * (uint64_t(seed) + 1)) {}
    double uniform(double lo, double hi)
    {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        const uint64_t x = s * 0x2545F4914F6CDD1Dull;
        return lo + (hi - lo) * double(x >> 11) * (1.0 / 9007199254740992.0);
    }
};

enum Kind { kGround = 0, kBox = 1, kHull = 2, kCapsule = 3, kSphere = 4 };

// The volume of a polyhedron (Bullet's polyhedral features): unit density.
btScalar polyhedron_volume(const btConvexPolyhedron &p)
{
    btVector3 c(0, 0, 0);
    for (int i = 0; i < p.m_vertices.size(); ++i) c += p.m_vertices[i];
    c /= btScalar(p.m_vertices.size());
    btScalar v = 0;
    for (int f = 0; f < p.m_faces.size(); ++f) {
        const btAlignedObjectArray<int> &idx = p.m_faces[f].m_indices;
        for (int k = 1; k + 1 < idx.size(); ++k) {
            const btVector3 a = p.m_vertices[idx[0]] - c, b = p.m_vertices[idx[k]] - c,
                            d = p.m_vertices[idx[k + 1]] - c;
            v += btFabs(a.dot(b.cross(d))) / 6;
        }
    }
    return v;
}

class Scene {
public:
    Scene(Narrowphase np) : m_np(np)
    {
        if (np == Narrowphase::mink) {
            auto w = std::make_unique<TimedWorld<mink_bullet_world>>(&m_dispatcher, &m_broadphase, &m_solver, &m_config);
            m_clock = w.get();
            m_mink_world = w.get();
            m_world = std::move(w);
        } else {
            auto w = std::make_unique<TimedWorld<btDiscreteDynamicsWorld>>(&m_dispatcher, &m_broadphase, &m_solver,
                                                                           &m_config);
            m_clock = w.get();
            m_world = std::move(w);
        }
        m_world->setGravity(btVector3(0, btScalar(-9.81), 0));
        if (np == Narrowphase::mink) mink_bullet_register(&m_dispatcher);
    }
    ~Scene()
    {
        for (size_t i = 0; i < m_bodies.size(); ++i) // frees the pairs' algorithms
            if (m_in_world[i]) m_world->removeRigidBody(m_bodies[i].get());
        if (m_np == Narrowphase::mink) {
            mink_bullet_unregister(&m_dispatcher);
            for (auto &s : m_shapes) mink_bullet_forget_shape(s.get());
        }
    }

    template <class T> T *shape(std::unique_ptr<T> s)
    {
        T *raw = s.get();
        m_shapes.push_back(std::move(s));
        return raw;
    }

    // later: not in the world until launch()
    btRigidBody *add(btCollisionShape *s, Kind kind, btScalar mass, const btTransform &t, bool later = false)
    {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) s->calculateLocalInertia(mass, inertia);
        m_states.push_back(std::make_unique<btDefaultMotionState>(t));
        btRigidBody::btRigidBodyConstructionInfo info(mass, m_states.back().get(), s, inertia);
        info.m_friction = btScalar(0.6);
        m_bodies.push_back(std::make_unique<btRigidBody>(info));
        btRigidBody *b = m_bodies.back().get();
        // no sleeping: every step collides every pair, in both runs
        b->setActivationState(DISABLE_DEACTIVATION);
        if (!later) m_world->addRigidBody(b);
        m_in_world.push_back(!later);
        m_kinds.push_back(kind);
        return b;
    }

    // adds a body made `later` to the world, in the collision filter group
    // and mask given, moving at `velocity`
    void launch(size_t body, const btVector3 &velocity, int group, int mask)
    {
        if (m_in_world[body]) return;
        m_bodies[body]->setLinearVelocity(velocity);
        m_world->addRigidBody(m_bodies[body].get(), group, mask);
        m_in_world[body] = 1;
    }
    size_t body_count() const { return m_bodies.size(); }
    const btRigidBody &body(size_t i) const { return *m_bodies[i]; }

    // scene hooks: before each step (its index), after it (its record)
    std::function<void(int)> before_step;
    std::function<void(StepRecord &)> after_step;

    btRigidBody *ground(btScalar half_x, btScalar half_z)
    {
        auto *box = shape(std::make_unique<btBoxShape>(btVector3(half_x, 1, half_z)));
        return add(box, kGround, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, -1, 0)));
    }

    SceneRun run(const std::string &name, const SceneOptions &opt, btRigidBody *tracked);

private:
    void wireframe(SceneRun &r) const;

    Narrowphase m_np;
    btDefaultCollisionConfiguration m_config;
    TimedDispatcher m_dispatcher{&m_config};
    btDbvtBroadphase m_broadphase;
    btSequentialImpulseConstraintSolver m_solver;
    std::unique_ptr<btDiscreteDynamicsWorld> m_world; // TimedWorld<...>
    CcdClock *m_clock = nullptr;
    const mink_bullet_world *m_mink_world = nullptr;  // the mink runs'
    std::vector<std::unique_ptr<btCollisionShape>> m_shapes;
    std::vector<std::unique_ptr<btDefaultMotionState>> m_states;
    std::vector<std::unique_ptr<btRigidBody>> m_bodies;
    std::vector<char> m_in_world;
    std::vector<int> m_kinds;
};

double kinetic_energy(const btRigidBody &b)
{
    if (b.getInvMass() == 0) return 0;
    const double m = 1.0 / double(b.getInvMass());
    const btVector3 v = b.getLinearVelocity();
    const btVector3 w = b.getWorldTransform().getBasis().transpose() * b.getAngularVelocity();
    const btVector3 inv = b.getInvInertiaDiagLocal();
    double rot = 0;
    for (int i = 0; i < 3; ++i)
        if (inv[i] > 0) rot += double(w[i]) * double(w[i]) / double(inv[i]);
    return 0.5 * m * double(v.length2()) + 0.5 * rot;
}

bool finite(const btTransform &t)
{
    const btVector3 &p = t.getOrigin();
    const btQuaternion q = t.getRotation();
    return std::isfinite(p.x()) && std::isfinite(p.y()) && std::isfinite(p.z()) && std::isfinite(q.x()) &&
           std::isfinite(q.y()) && std::isfinite(q.z()) && std::isfinite(q.w());
}

SceneRun Scene::run(const std::string &name, const SceneOptions &opt, btRigidBody *tracked)
{
    SceneRun r;
    r.scene = name;
    r.narrowphase = m_np;
    for (const auto &b : m_bodies) r.bodies += b->getInvMass() > 0;
    // drift is measured from where the tracked body has settled after the
    // first second (the solver lets a stack sink by a few millimetres per
    // contact under its weight): what follows is wobble and creep
    const int settled = std::min(60, opt.steps / 5);
    btVector3 start = tracked ? tracked->getWorldTransform().getOrigin() : btVector3(0, 0, 0);
    std::vector<char> lost(m_bodies.size(), 0), bad(m_bodies.size(), 0);
    const mink_bullet_stats stats0 = mink_bullet_get_stats();
    mink_bullet_set_reuse_tolerance(opt.reuse_tolerance);
    r.steps.reserve(size_t(opt.steps));
    for (int s = 0; s < opt.steps; ++s) {
        if (before_step) before_step(s);
        m_dispatcher.spent_ms = 0;
        m_clock->ccd_ms = 0;
        const int swept0 = gNumClampedCcdMotions;
        const mink_bullet_world::ccd_stats ccd0 = m_mink_world ? m_mink_world->get_ccd_stats()
                                                                : mink_bullet_world::ccd_stats{};
        const double t0 = now_ms();
        m_world->stepSimulation(btScalar(1.0 / 60.0), 0);
        StepRecord rec{};
        rec.step_ms = now_ms() - t0;
        rec.narrowphase_ms = m_dispatcher.spent_ms;
        rec.ccd_ms = m_clock->ccd_ms;
        if (m_mink_world) {
            const mink_bullet_world::ccd_stats ccd1 = m_mink_world->get_ccd_stats();
            rec.swept = int(ccd1.swept + ccd1.bullet_bodies - ccd0.swept - ccd0.bullet_bodies);
            rec.casts = int(ccd1.casts - ccd0.casts);
        } else {
            rec.swept = gNumClampedCcdMotions - swept0;
        }
        if (after_step) after_step(rec);
        for (int i = 0; i < m_dispatcher.getNumManifolds(); ++i)
            rec.contacts += m_dispatcher.getManifoldByIndexInternal(i)->getNumContacts();
        for (size_t i = 0; i < m_bodies.size(); ++i) {
            const btRigidBody &b = *m_bodies[i];
            if (m_kinds[i] == kGround) continue;
            rec.kinetic_energy += kinetic_energy(b);
            const btTransform &t = b.getWorldTransform();
            if (!finite(t)) bad[i] = 1;
            else if (t.getOrigin().y() < btScalar(-0.5)) lost[i] = 1; // the ground's top is y = 0
        }
        if (tracked && s + 1 == settled) start = tracked->getWorldTransform().getOrigin();
        if (tracked && s + 1 > settled && finite(tracked->getWorldTransform()))
            rec.drift = double((tracked->getWorldTransform().getOrigin() - start).length());
        r.max_drift = std::max(r.max_drift, rec.drift);
        r.steps.push_back(rec);
    }
    for (size_t i = 0; i < m_bodies.size(); ++i) r.lost += lost[i], r.non_finite += bad[i];
    if (m_np == Narrowphase::mink) {
        r.reuse_tolerance = opt.reuse_tolerance;
        r.mink_queries = mink_bullet_get_stats().queries - stats0.queries;
        r.mink_reused = mink_bullet_get_stats().reused - stats0.reused;
    }
    if (opt.keep_wireframe) wireframe(r);
    return r;
}

void segment(SceneRun &r, int kind, const btVector3 &a, const btVector3 &b)
{
    r.wire.insert(r.wire.end(), {float(a.x()), float(a.y()), float(a.z()), float(b.x()), float(b.y()), float(b.z())});
    r.wire_kind.push_back(kind);
}

void circle(SceneRun &r, int kind, const btTransform &t, const btVector3 &c, const btVector3 &u, const btVector3 &v,
            btScalar radius)
{
    const int n = 16;
    for (int i = 0; i < n; ++i) {
        const btScalar a0 = SIMD_2_PI * btScalar(i) / n, a1 = SIMD_2_PI * btScalar(i + 1) / n;
        segment(r, kind, t * (c + radius * (btCos(a0) * u + btSin(a0) * v)),
                t * (c + radius * (btCos(a1) * u + btSin(a1) * v)));
    }
}

void Scene::wireframe(SceneRun &r) const
{
    // the ground is drawn as the part of its top face under the bodies
    btVector3 lo(BT_LARGE_FLOAT, 0, BT_LARGE_FLOAT), hi(-BT_LARGE_FLOAT, 0, -BT_LARGE_FLOAT);
    for (size_t i = 0; i < m_bodies.size(); ++i) {
        const btRigidBody &b = *m_bodies[i];
        const btTransform &t = b.getWorldTransform();
        const btCollisionShape *s = b.getCollisionShape();
        if (m_kinds[i] == kGround || !finite(t)) continue;
        lo.setMin(t.getOrigin()), hi.setMax(t.getOrigin());
        if (s->getShapeType() == BOX_SHAPE_PROXYTYPE) {
            const btVector3 h = static_cast<const btBoxShape *>(s)->getHalfExtentsWithMargin();
            for (int e = 0; e < 12; ++e) { // 4 edges along each axis
                const int axis = e / 4, u = (axis + 1) % 3, v = (axis + 2) % 3;
                btVector3 a = -h, e1;
                if (e & 1) a[u] = h[u];
                if (e & 2) a[v] = h[v];
                e1 = a;
                e1[axis] = h[axis];
                segment(r, m_kinds[i], t * a, t * e1);
            }
        } else if (s->getShapeType() == CONVEX_HULL_SHAPE_PROXYTYPE) {
            const btConvexPolyhedron *p = static_cast<const btConvexHullShape *>(s)->getConvexPolyhedron();
            if (!p) continue;
            for (int f = 0; f < p->m_faces.size(); ++f) {
                const btAlignedObjectArray<int> &idx = p->m_faces[f].m_indices;
                for (int k = 0; k < idx.size(); ++k)
                    segment(r, m_kinds[i], t * p->m_vertices[idx[k]], t * p->m_vertices[idx[(k + 1) % idx.size()]]);
            }
        } else if (s->getShapeType() == CAPSULE_SHAPE_PROXYTYPE) {
            const auto *c = static_cast<const btCapsuleShape *>(s);
            const btScalar h = c->getHalfHeight(), rad = c->getRadius();
            const btVector3 x(1, 0, 0), y(0, h, 0), z(0, 0, 1);
            circle(r, m_kinds[i], t, y, x, z, rad);
            circle(r, m_kinds[i], t, -y, x, z, rad);
            circle(r, m_kinds[i], t, btVector3(0, 0, 0), x, btVector3(0, 1, 0), rad); // the ends' outline
            for (int k = 0; k < 4; ++k) {
                const btScalar a = SIMD_HALF_PI * btScalar(k);
                const btVector3 off = rad * (btCos(a) * x + btSin(a) * z);
                segment(r, m_kinds[i], t * (off - y), t * (off + y));
            }
        } else if (s->getShapeType() == SPHERE_SHAPE_PROXYTYPE) {
            const btScalar rad = static_cast<const btSphereShape *>(s)->getRadius();
            const btVector3 o(0, 0, 0);
            circle(r, m_kinds[i], t, o, btVector3(1, 0, 0), btVector3(0, 1, 0), rad);
            circle(r, m_kinds[i], t, o, btVector3(0, 1, 0), btVector3(0, 0, 1), rad);
            circle(r, m_kinds[i], t, o, btVector3(1, 0, 0), btVector3(0, 0, 1), rad);
        }
    }
    if (lo.x() > hi.x()) return;
    lo -= btVector3(1.5, 0, 1.5), hi += btVector3(1.5, 0, 1.5);
    const btVector3 c[4] = {{lo.x(), 0, lo.z()}, {hi.x(), 0, lo.z()}, {hi.x(), 0, hi.z()}, {lo.x(), 0, hi.z()}};
    for (int k = 0; k < 4; ++k) segment(r, kGround, c[k], c[(k + 1) % 4]);
}

btTransform at(const btVector3 &p) { return btTransform(btQuaternion::getIdentity(), p); }

SceneRun pyramid(Narrowphase np, const SceneOptions &opt)
{
    Scene scene(np);
    scene.ground(50, 50);
    auto *box = scene.shape(std::make_unique<btBoxShape>(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5))));
    box->initializePolyhedralFeatures();
    btRigidBody *top = nullptr;
    const int rows = opt.pyramid_rows;
    for (int i = 0; i < rows; ++i) {
        const int n = rows - i;
        for (int j = 0; j < n; ++j) // each box straddles two below, 2 cm apart
            top = scene.add(box, kBox, 1,
                            at(btVector3(btScalar((j - (n - 1) * 0.5) * 1.02), btScalar(0.5 + i), 0)));
    }
    return scene.run("pyramid", opt, top);
}

SceneRun stack(Narrowphase np, const SceneOptions &opt)
{
    Scene scene(np);
    scene.ground(50, 50);
    // a unit box rounded by 0.04, Bullet's margin: the hull of the corners
    // of the 0.46 core, which both narrowphases round by the margin
    auto hull = std::make_unique<btConvexHullShape>();
    const btScalar c = btScalar(0.46);
    for (int k = 0; k < 8; ++k) hull->addPoint(btVector3(k & 1 ? c : -c, k & 2 ? c : -c, k & 4 ? c : -c), false);
    hull->recalcLocalAabb();
    hull->setMargin(btScalar(0.04));
    hull->initializePolyhedralFeatures();
    auto *rounded = scene.shape(std::move(hull));
    btRigidBody *top = nullptr;
    for (int i = 0; i < opt.stack_height; ++i) top = scene.add(rounded, kHull, 1, at(btVector3(0, btScalar(0.5 + i), 0)));
    return scene.run("stack", opt, top);
}

SceneRun pile(Narrowphase np, const SceneOptions &opt)
{
    Scene scene(np);
    scene.ground(50, 50);
    Rng rng(opt.seed);
    const int per_side = 8;
    const double spacing = 1.6;
    for (int i = 0; i < opt.pile_bodies; ++i) {
        const int layer = i / (per_side * per_side), cell = i % (per_side * per_side);
        const btVector3 p(btScalar((cell % per_side - (per_side - 1) * 0.5) * spacing),
                          btScalar(1.5 + layer * spacing),
                          btScalar((cell / per_side - (per_side - 1) * 0.5) * spacing));
        const btQuaternion q(btScalar(rng.uniform(-1, 1)), btScalar(rng.uniform(-1, 1)),
                             btScalar(rng.uniform(-1, 1)), btScalar(rng.uniform(0.2, 1)));
        const btTransform t(q.normalized(), p);
        switch (i % 3) {
        case 0: { // a hull of 8..64 points near an ellipsoid's surface
            auto hull = std::make_unique<btConvexHullShape>();
            const int n = 8 + int(rng.uniform(0, 57));
            const double ax = rng.uniform(0.25, 0.6), ay = rng.uniform(0.25, 0.6), az = rng.uniform(0.25, 0.6);
            for (int k = 0; k < n; ++k) {
                btVector3 d(btScalar(rng.uniform(-1, 1)), btScalar(rng.uniform(-1, 1)), btScalar(rng.uniform(-1, 1)));
                if (d.length2() < btScalar(1e-4)) d = btVector3(1, 0, 0);
                d.normalize();
                const double shrink = rng.uniform(0.85, 1.0);
                hull->addPoint(btVector3(btScalar(ax * shrink * d.x()), btScalar(ay * shrink * d.y()),
                                         btScalar(az * shrink * d.z())),
                               false);
            }
            hull->recalcLocalAabb();
            hull->initializePolyhedralFeatures();
            const btScalar mass = polyhedron_volume(*hull->getConvexPolyhedron());
            scene.add(scene.shape(std::move(hull)), kHull, std::max(mass, btScalar(0.01)), t);
            break;
        }
        case 1: {
            const btVector3 h(btScalar(rng.uniform(0.2, 0.6)), btScalar(rng.uniform(0.2, 0.6)),
                              btScalar(rng.uniform(0.2, 0.6)));
            auto box = std::make_unique<btBoxShape>(h);
            box->initializePolyhedralFeatures();
            scene.add(scene.shape(std::move(box)), kBox, 8 * h.x() * h.y() * h.z(), t);
            break;
        }
        default: {
            const btScalar r = btScalar(rng.uniform(0.2, 0.35)), h = btScalar(rng.uniform(0.2, 0.6));
            const btScalar mass = SIMD_PI * r * r * (2 * h + 4 * r / 3);
            scene.add(scene.shape(std::make_unique<btCapsuleShape>(r, 2 * h)), kCapsule, mass, t);
            break;
        }
        }
    }
    return scene.run("pile", opt, nullptr);
}

// Small fast spheres shot at a row of thin planks (static boxes 2 cm thick,
// side by side on the ground: a wall 5 m wide, 1.5 m high), in waves of one
// sphere per plank every 3 steps: radius 2-5 cm, 30-100 m/s, so a sphere
// moves 0.5-1.7 m a step, many times the plank's thickness. CCD as
// Bullet's CcdPhysicsDemo sets it: a motion threshold of the sphere's
// radius, a swept sphere of 0.9 times it. A thick block farther on catches
// what goes through. The spheres collide with the static bodies only (as
// bullets with a level): spheres knocking spheres aside at 100 m/s would
// make each run shoot a different scene. A sphere tunnelled when its centre
// crossed the planks' middle plane within the wall in a step (it went
// through, not around or over).
SceneRun ccd(Narrowphase np, const SceneOptions &opt)
{
    Scene scene(np);
    scene.ground(50, 50);
    const int planks = 10;
    const btScalar half_thickness = btScalar(0.01), half_height = btScalar(0.75), half_width = btScalar(0.25);
    auto *plank = scene.shape(std::make_unique<btBoxShape>(btVector3(half_thickness, half_height, half_width)));
    plank->initializePolyhedralFeatures();
    auto lane_z = [&](int p) { return (btScalar(p) - btScalar(planks - 1) / 2) * 2 * half_width; };
    for (int p = 0; p < planks; ++p) scene.add(plank, kBox, 0, at(btVector3(0, half_height, lane_z(p))));
    // its front face at x = 4; deep enough below, above and to the sides
    // that a sphere a step into it is pushed back out of the front
    auto *block = scene.shape(std::make_unique<btBoxShape>(btVector3(2, 3, 6)));
    block->initializePolyhedralFeatures();
    scene.add(block, kBox, 0, at(btVector3(6, 1, 0)));

    struct Shot {
        size_t body;
        int step;
        btScalar radius;
        btVector3 velocity;
        btVector3 before{0, 0, 0}; // the centre before the step
        bool through = false;
    };
    std::vector<Shot> shots;
    Rng rng(opt.seed);
    for (int i = 0; i < opt.ccd_spheres; ++i) {
        const int lane = i % planks, wave = i / planks;
        const btScalar r = btScalar(rng.uniform(0.02, 0.05)), speed = btScalar(rng.uniform(30, 100));
        const btVector3 p(btScalar(rng.uniform(-3.5, -2.5)), btScalar(rng.uniform(0.35, 1.2)),
                          lane_z(lane) + btScalar(rng.uniform(-0.15, 0.15)));
        auto *sphere = scene.shape(std::make_unique<btSphereShape>(r));
        btRigidBody *b = scene.add(sphere, kSphere, 4 * SIMD_PI / 3 * r * r * r, at(p), true);
        if (opt.ccd) {
            b->setCcdMotionThreshold(r);
            b->setCcdSweptSphereRadius(btScalar(0.9) * r);
        }
        shots.push_back(Shot{scene.body_count() - 1, 3 * wave, r, btVector3(speed, 0, 0)});
    }
    int fast = 0, tunnelled = 0;
    scene.before_step = [&](int step) {
        fast = 0;
        for (Shot &s : shots) {
            if (s.step == step) // colliding with the static bodies only
                scene.launch(s.body, s.velocity, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::StaticFilter);
            s.before = scene.body(s.body).getWorldTransform().getOrigin();
            if (s.step <= step && scene.body(s.body).getLinearVelocity().length() / 60 > s.radius) ++fast;
        }
    };
    const btScalar wall_z = planks * half_width, wall_y = 2 * half_height;
    scene.after_step = [&](StepRecord &rec) {
        rec.fast = fast;
        for (Shot &s : shots) {
            const btVector3 &p1 = scene.body(s.body).getWorldTransform().getOrigin(), &p0 = s.before;
            if (s.through || !(p0.x() < 0 && p1.x() >= 0)) continue;
            const btVector3 c = p0 + (p1 - p0) * (-p0.x() / (p1.x() - p0.x())); // where it crossed x = 0
            if (c.y() >= 0 && c.y() <= wall_y && btFabs(c.z()) <= wall_z) s.through = true, ++tunnelled;
        }
        rec.tunnelled = tunnelled;
    };
    SceneRun r = scene.run("ccd", opt, nullptr);
    r.ccd = opt.ccd;
    r.shots = int(shots.size());
    r.tunnelled = tunnelled;
    return r;
}

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

const char *narrowphase_name(Narrowphase np) { return np == Narrowphase::mink ? "mink" : "bullet"; }

namespace {

// A field over the steps that count (see scenes.h)
template <class F> std::vector<double> over_steps(const std::vector<StepRecord> &steps, F field)
{
    const bool some_fast = std::any_of(steps.begin(), steps.end(), [](const StepRecord &s) { return s.fast > 0; });
    std::vector<double> v;
    for (const StepRecord &s : steps)
        if (!some_fast || s.fast > 0) v.push_back(double(field(s)));
    return v;
}

double mean(const std::vector<double> &v)
{
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0 : sum / double(v.size());
}

// The median of a run's own median of a time and its repeats'.
template <class F, class G> double over_runs(const SceneRun &r, F field, G repeated)
{
    std::vector<double> v{median(over_steps(r.steps, field))};
    for (const RunTimes &t : r.repeats) v.push_back(repeated(t));
    return median(v);
}

} // namespace

double SceneRun::median_narrowphase_ms() const
{
    return over_runs(*this, [](const StepRecord &s) { return s.narrowphase_ms; },
                     [](const RunTimes &t) { return t.narrowphase_ms; });
}

double SceneRun::median_step_ms() const
{
    return over_runs(*this, [](const StepRecord &s) { return s.step_ms; }, [](const RunTimes &t) { return t.step_ms; });
}

double SceneRun::median_ccd_ms() const
{
    return over_runs(*this, [](const StepRecord &s) { return s.ccd_ms; }, [](const RunTimes &t) { return t.ccd_ms; });
}

bool SceneRun::add_repeat(const SceneRun &again)
{
    if (again.steps.size() != steps.size() || again.mean_contacts() != mean_contacts() ||
        again.max_drift != max_drift || again.lost != lost || again.tunnelled != tunnelled)
        return false;
    repeats.push_back(RunTimes{again.median_narrowphase_ms(), again.median_step_ms(), again.median_ccd_ms()});
    return true;
}

double SceneRun::mean_contacts() const
{
    return mean(over_steps(steps, [](const StepRecord &s) { return s.contacts; }));
}

double SceneRun::mean_swept() const
{
    return mean(over_steps(steps, [](const StepRecord &s) { return s.swept; }));
}

double SceneRun::mean_casts() const
{
    return mean(over_steps(steps, [](const StepRecord &s) { return s.casts; }));
}

std::string SceneRun::label() const
{
    return std::string(narrowphase_name(narrowphase)) + (reuse_tolerance > 0 ? "-reuse" : "") +
           (scene == "ccd" && !ccd ? "-noccd" : "");
}

const std::vector<std::string> &scene_names()
{
    static const std::vector<std::string> names = {"pyramid", "pile", "stack", "ccd"};
    return names;
}

SceneRun run_scene(const std::string &scene, Narrowphase np, const SceneOptions &opt)
{
    if (scene == "pyramid") return pyramid(np, opt);
    if (scene == "pile") return pile(np, opt);
    if (scene == "stack") return stack(np, opt);
    if (scene == "ccd") return ccd(np, opt);
    throw std::invalid_argument("unknown scene: " + scene);
}
