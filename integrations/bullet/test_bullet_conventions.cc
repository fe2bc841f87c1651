// The mink algorithm's contacts follow Bullet's conventions: on resting
// pairs it agrees with Bullet's own algorithm on the normal (on B, from B
// towards A), the depth's sign and size, and point A = point B + normal *
// distance; a point whose feature persists keeps its accumulated impulse.
#include "mink_bullet.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionShapes/btMultiSphereShape.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

int failures = 0;
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            ++failures;                                                                   \
            std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
            std::printf(__VA_ARGS__);                                                     \
            std::printf("\n");                                                            \
        }                                                                                 \
    } while (0)

struct Contact {
    btVector3 normal_on_b, on_a, on_b;
    btScalar distance;
};

// One pair in a collision world, Bullet's algorithms or mink's.
struct PairWorld {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btCollisionWorld world{&dispatcher, &broadphase, &config};
    btCollisionObject a, b;
    bool on_mink;

    PairWorld(bool mink, btCollisionShape *sa, const btTransform &ta, btCollisionShape *sb, const btTransform &tb)
        : on_mink(mink)
    {
        if (mink) mink_bullet_register(&dispatcher);
        a.setCollisionShape(sa), a.setWorldTransform(ta);
        b.setCollisionShape(sb), b.setWorldTransform(tb);
        world.addCollisionObject(&a);
        world.addCollisionObject(&b);
    }
    ~PairWorld()
    {
        world.removeCollisionObject(&a);
        world.removeCollisionObject(&b);
        if (on_mink) mink_bullet_unregister(&dispatcher);
    }

    btPersistentManifold *manifold()
    {
        for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
            if (dispatcher.getManifoldByIndexInternal(i)->getNumContacts() > 0)
                return dispatcher.getManifoldByIndexInternal(i);
        return nullptr;
    }

    // contacts with A as the first object (Bullet may order the pair either way)
    std::vector<Contact> collide()
    {
        world.performDiscreteCollisionDetection();
        std::vector<Contact> out;
        btPersistentManifold *m = manifold();
        if (!m) return out;
        const bool a_first = m->getBody0() == &a;
        for (int i = 0; i < m->getNumContacts(); ++i) {
            const btManifoldPoint &p = m->getContactPoint(i);
            Contact c{p.m_normalWorldOnB, p.m_positionWorldOnA, p.m_positionWorldOnB, p.getDistance()};
            if (!a_first) c = Contact{-c.normal_on_b, c.on_b, c.on_a, c.distance};
            out.push_back(c);
        }
        return out;
    }
};

btScalar deepest(const std::vector<Contact> &cs)
{
    btScalar d = BT_LARGE_FLOAT;
    for (const Contact &c : cs) d = std::min(d, c.distance);
    return d;
}

btTransform pose(const btVector3 &p, const btQuaternion &q = btQuaternion::getIdentity())
{
    return btTransform(q, p);
}

// A resting on B: mink's contacts against Bullet's.
// exact_depth > 0: the pair's known depth, checked when Bullet (whose
// hull-hull clipping misses some resting pairs) answers nothing.
void compare(const std::string &name, btCollisionShape *sa, const btTransform &ta, btCollisionShape *sb,
             const btTransform &tb, unsigned min_points, btScalar depth_tol, btScalar exact_depth = 0)
{
    PairWorld bullet(false, sa, ta, sb, tb), mink(true, sa, ta, sb, tb);
    std::vector<Contact> cb = bullet.collide();
    const std::vector<Contact> cm = mink.collide();
    if (cb.empty() && exact_depth > 0) {
        std::printf("   %s: Bullet's own algorithm finds no contact; checked against the exact depth\n", name.c_str());
        cb.push_back(Contact{(ta.getOrigin() - tb.getOrigin()).normalized(), btVector3(0, 0, 0), btVector3(0, 0, 0),
                             -exact_depth});
    }
    CHECK(!cb.empty(), "%s: Bullet found no contact", name.c_str());
    CHECK(cm.size() >= min_points, "%s: mink gave %zu points, expected at least %u", name.c_str(), cm.size(),
          min_points);
    if (cb.empty() || cm.empty()) return;
    const btVector3 nb = cb[0].normal_on_b;
    for (const Contact &c : cm) {
        // Bullet's manifold point: A = B + normal_on_b * distance
        const btVector3 gap = c.on_a - (c.on_b + c.normal_on_b * c.distance);
        CHECK(gap.length() < 1e-5f, "%s: point A off B + n d by %g", name.c_str(), double(gap.length()));
        CHECK(c.normal_on_b.dot(nb) > 0.999f, "%s: normal (%g %g %g) against Bullet's (%g %g %g)", name.c_str(),
              double(c.normal_on_b.x()), double(c.normal_on_b.y()), double(c.normal_on_b.z()), double(nb.x()),
              double(nb.y()), double(nb.z()));
        // normal on B points from B towards A
        CHECK(c.normal_on_b.dot(ta.getOrigin() - tb.getOrigin()) > 0, "%s: normal points from A to B", name.c_str());
    }
    CHECK(std::fabs(deepest(cm) - deepest(cb)) < depth_tol, "%s: deepest distance %g, Bullet's %g", name.c_str(),
          double(deepest(cm)), double(deepest(cb)));
    CHECK(deepest(cm) < 0, "%s: penetrating pair answered %g", name.c_str(), double(deepest(cm)));
    std::printf("ok %-28s mink %zu points, deepest %+.5f; Bullet %zu points, deepest %+.5f\n", name.c_str(),
                cm.size(), double(deepest(cm)), cb.size(), double(deepest(cb)));
}

void warm_start()
{
    btBoxShape ground(btVector3(5, 1, 5)), box(btVector3(0.5f, 0.5f, 0.5f));
    PairWorld w(true, &box, pose(btVector3(0.2f, 0.49f, -0.1f)), &ground, pose(btVector3(0, -1, 0)));
    w.world.performDiscreteCollisionDetection();
    btPersistentManifold *m = w.manifold();
    CHECK(m && m->getNumContacts() == 4, "resting box: %d points", m ? m->getNumContacts() : -1);
    if (!m) return;
    for (int i = 0; i < m->getNumContacts(); ++i) m->getContactPoint(i).m_appliedImpulse = btScalar(1 + i);
    w.a.setWorldTransform(pose(btVector3(0.2f, 0.4901f, -0.1f)));
    w.world.performDiscreteCollisionDetection();
    CHECK(m->getNumContacts() == 4, "resting box, next frame: %d points", m->getNumContacts());
    btScalar sum = 0;
    for (int i = 0; i < m->getNumContacts(); ++i) {
        sum += m->getContactPoint(i).m_appliedImpulse;
        CHECK(m->getContactPoint(i).getLifeTime() == 1, "point %d lifetime %d", i, m->getContactPoint(i).getLifeTime());
    }
    CHECK(sum == 10, "impulses kept across frames: sum %g, expected 10", double(sum));
    // lifted clear of the margin: the manifold empties
    w.a.setWorldTransform(pose(btVector3(0.2f, 0.55f, -0.1f))); // 5 cm up: the pair stays in the broadphase
    w.world.performDiscreteCollisionDetection();
    CHECK(m->getNumContacts() == 0, "lifted box: %d points", m->getNumContacts());
    std::printf("ok warm start: impulses and lifetimes kept by feature key\n");
}

void fallback()
{
    // a cone does not map: its pairs stay with Bullet's algorithm
    btConeShape cone(0.5f, 1.0f);
    btBoxShape ground(btVector3(5, 1, 5));
    const mink_bullet_stats before = mink_bullet_get_stats();
    PairWorld w(true, &cone, pose(btVector3(0, 0.45f, 0)), &ground, pose(btVector3(0, -1, 0)));
    w.world.performDiscreteCollisionDetection();
    const mink_bullet_stats after = mink_bullet_get_stats();
    CHECK(w.manifold() != nullptr, "cone on ground: no contact from the fallback");
    CHECK(after.mink_pairs == before.mink_pairs, "cone pair taken by mink");
    std::printf("ok fallback: a cone keeps Bullet's algorithm\n");
}

// A pair that barely moved reuses mink's last answer, moved with the
// bodies; it agrees with a fresh answer within the reuse tolerance.
void reuse()
{
    btBoxShape ground(btVector3(5, 1, 5)), box(btVector3(0.5f, 0.5f, 0.5f));
    const btTransform g = pose(btVector3(0, -1, 0));
    const btQuaternion tilt(btVector3(1, 0, 0), 0.004f);
    mink_bullet_set_reuse_tolerance(1e-4f);
    PairWorld w(true, &box, pose(btVector3(0.2f, 0.49f, 0), tilt), &ground, g);
    w.collide();
    const mink_bullet_stats s0 = mink_bullet_get_stats();
    // 20 micrometres and 10 microradians: within 1e-4 of the box's size
    const btTransform moved = pose(btVector3(0.20002f, 0.49f, 0), tilt * btQuaternion(btVector3(0, 1, 0), 1e-5f));
    w.a.setWorldTransform(moved);
    // the solver's impulses on the points stay with them
    btPersistentManifold *m = w.manifold();
    const int kept = m ? m->getNumContacts() : 0;
    for (int i = 0; i < kept; ++i) m->getContactPoint(i).m_appliedImpulse = btScalar(i + 1);
    const std::vector<Contact> reused = w.collide();
    const mink_bullet_stats s1 = mink_bullet_get_stats();
    CHECK(s1.reused == s0.reused + 1 && s1.queries == s0.queries, "the still pair was not reused");
    CHECK(kept == 4 && w.manifold() == m && m->getNumContacts() == kept, "reused: %d points, were %d",
          m ? m->getNumContacts() : -1, kept);
    for (int i = 0; m && i < m->getNumContacts(); ++i) {
        const btManifoldPoint &p = m->getContactPoint(i);
        CHECK(p.m_appliedImpulse == btScalar(i + 1), "reused point %d lost its impulse", i);
        CHECK(std::fabs((p.m_positionWorldOnA - p.m_positionWorldOnB).dot(p.m_normalWorldOnB) - p.getDistance()) <
                  1e-6f,
              "reused point %d: distance %g off its points", i, double(p.getDistance()));
    }
    mink_bullet_set_reuse_tolerance(0);
    PairWorld fresh_world(true, &box, moved, &ground, g);
    const std::vector<Contact> fresh = fresh_world.collide();
    mink_bullet_set_reuse_tolerance(1e-4f);
    const mink_bullet_stats s2 = mink_bullet_get_stats();
    CHECK(reused.size() == fresh.size(), "reused %zu points, fresh %zu", reused.size(), fresh.size());
    for (size_t i = 0; i < reused.size() && i < fresh.size(); ++i) {
        btScalar best = BT_LARGE_FLOAT;
        for (const Contact &f : fresh) best = btMin(best, (f.on_b - reused[i].on_b).length());
        CHECK(best < 2e-4f, "reused point %zu is %g from the fresh answer's", i, double(best));
    }
    CHECK(std::fabs(deepest(reused) - deepest(fresh)) < 2e-4f, "deepest: reused %g, fresh %g",
          double(deepest(reused)), double(deepest(fresh)));
    // moved by a millimetre: mink answers again
    w.a.setWorldTransform(pose(btVector3(0.201f, 0.49f, 0), tilt));
    w.collide();
    CHECK(mink_bullet_get_stats().queries == s2.queries + 1, "a moved pair reused a stale answer");
    mink_bullet_set_reuse_tolerance(0);
    std::printf("ok reuse: a still pair reuses its answer (within the tolerance), a moved one asks mink\n");
}

// A pair apart by more than the margin (Bullet's contact breaking
// threshold, 0.02) keeps its empty answer while it cannot have come nearer
// by half the margin, whatever the tolerance; then mink answers again.
void reuse_apart()
{
    btBoxShape box(btVector3(0.5f, 0.5f, 0.5f));
    const btTransform ta = pose(btVector3(0, 0, 0));
    mink_bullet_set_reuse_tolerance(0.05f); // 5 cm on these boxes, more than half the margin
    PairWorld w(true, &box, ta, &box, pose(btVector3(1.03f, 0, 0)));
    CHECK(w.collide().empty(), "boxes 3 cm apart touch");
    const mink_bullet_stats s0 = mink_bullet_get_stats();
    w.b.setWorldTransform(pose(btVector3(1.0255f, 0, 0))); // 4.5 mm nearer: still apart
    CHECK(w.collide().empty(), "boxes 2.55 cm apart touch");
    const mink_bullet_stats s1 = mink_bullet_get_stats();
    CHECK(s1.reused == s0.reused + 1 && s1.queries == s0.queries, "the apart pair was not reused");
    w.b.setWorldTransform(pose(btVector3(1.015f, 0, 0))); // 1.5 cm nearer than answered: within the margin
    const std::vector<Contact> near = w.collide();
    CHECK(mink_bullet_get_stats().queries == s1.queries + 1, "a pair come within the margin reused 'apart'");
    CHECK(near.size() == 4 && std::fabs(deepest(near) - 0.015f) < 1e-5f, "%zu speculative points, deepest %g",
          near.size(), double(deepest(near)));
    mink_bullet_set_reuse_tolerance(0);
    std::printf("ok reuse apart: an apart pair stays apart while it cannot reach half the margin\n");
}

void compound()
{
    // a compound's children go through Bullet's compound algorithm, which
    // hands mink's algorithm its shared manifold (Bullet's merging by position)
    btBoxShape ground(btVector3(5, 1, 5)), part(btVector3(0.5f, 0.25f, 0.25f));
    btCompoundShape dumbbell;
    dumbbell.addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(-0.6f, 0, 0)), &part);
    dumbbell.addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(0.6f, 0, 0)), &part);
    const mink_bullet_stats before = mink_bullet_get_stats();
    PairWorld w(true, &dumbbell, pose(btVector3(0, 0.24f, 0)), &ground, pose(btVector3(0, -1, 0)));
    const std::vector<Contact> cs = w.collide();
    const mink_bullet_stats after = mink_bullet_get_stats();
    CHECK(after.mink_pairs >= before.mink_pairs + 2, "compound children not on mink");
    CHECK(cs.size() >= 4, "compound on ground: %zu points", cs.size());
    for (const Contact &c : cs)
        CHECK(std::fabs(c.distance + 0.01f) < 1e-4f && c.normal_on_b.y() > 0.999f,
              "compound point: distance %g, normal y %g", double(c.distance), double(c.normal_on_b.y()));
    std::printf("ok compound: %zu points through Bullet's shared manifold\n", cs.size());
}

} // namespace

int main()
{
    const btQuaternion tilt(btVector3(0, 0, 1), btScalar(0.3));
    btBoxShape ground(btVector3(5, 1, 5));
    btBoxShape box(btVector3(0.5f, 0.5f, 0.5f));
    btSphereShape sphere(0.3f);
    btCapsuleShape capsule(0.25f, 1.0f);
    btCapsuleShapeX capsule_x(0.25f, 1.0f);
    btConvexHullShape cube;
    for (int k = 0; k < 8; ++k)
        cube.addPoint(btVector3(k & 1 ? 0.46f : -0.46f, k & 2 ? 0.46f : -0.46f, k & 4 ? 0.46f : -0.46f), false);
    cube.recalcLocalAabb();
    cube.initializePolyhedralFeatures();
    const btVector3 ends[2] = {btVector3(-0.5f, 0, 0), btVector3(0.5f, 0, 0)};
    const btScalar radii[2] = {0.25f, 0.25f};
    btMultiSphereShape pill(ends, radii, 2);
    const btTransform g = pose(btVector3(0, -1, 0));
    const btQuaternion lying(btVector3(1, 0, 0), SIMD_HALF_PI);

    compare("box on ground", &box, pose(btVector3(0.1f, 0.49f, 0)), &ground, g, 4, 1e-3f);
    compare("ground under box", &ground, g, &box, pose(btVector3(0.1f, 0.49f, 0)), 4, 1e-3f);
    compare("sphere on ground", &sphere, pose(btVector3(0, 0.29f, 0)), &ground, g, 1, 1e-4f);
    compare("sphere on box", &sphere, pose(btVector3(0.2f, 0.79f, 0)), &box, pose(btVector3(0, 0, 0)), 1, 1e-4f);
    compare("capsule lying on ground", &capsule, pose(btVector3(0, 0.24f, 0), lying), &ground, g, 2, 1e-3f);
    compare("capsule X on ground", &capsule_x, pose(btVector3(0, 0.24f, 0)), &ground, g, 2, 1e-3f);
    compare("multi-sphere pill on ground", &pill, pose(btVector3(0, 0.24f, 0)), &ground, g, 2, 1e-3f);
    compare("hull cube on ground", &cube, pose(btVector3(0, 0.49f, 0)), &ground, g, 4, 1e-3f);
    compare("hull cube on hull cube", &cube, pose(btVector3(0, 0.99f, 0), btQuaternion(btVector3(0, 1, 0), 0.3f)),
            &cube, pose(btVector3(0, 0, 0)), 4, 1e-4f, 0.01f);
    compare("hull cube on box", &cube, pose(btVector3(0.1f, 0.99f, 0)), &box, pose(btVector3(0, 0, 0)), 4, 1e-3f);
    compare("tilted box on box", &box, pose(btVector3(0, 1.12f, 0), tilt), &box, pose(btVector3(0, 0, 0)), 1,
            2e-3f);
    warm_start();
    fallback();
    compound();
    reuse();
    reuse_apart();
    if (failures) std::printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
