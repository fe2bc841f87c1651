// mink inside Bullet: see mink_bullet.h.
#include "mink_bullet.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btActivatingCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionConfiguration.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btMultiSphereShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btPoolAllocator.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <unordered_map>
#include <vector>

// mink.h names a function after its struct (mink_manifold), which g++'s
// -Wshadow reports as hiding the struct's constructor: C has none.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#include <mink/mink.h>
#pragma GCC diagnostic pop

namespace {

// ------------------------------------------------------------ shapes

// A Bullet shape as mink sees it, and what it was made from (to notice a
// shape changed since).
struct TranslatedShape {
    mink_shape shape{};
    btTransform local = btTransform::getIdentity(); // mink's core frame in the Bullet shape's frame
    bool turned = false;                             // local is not the identity
    float reach = 0;                                 // no core point farther from the origin, plus the radius
    void *hull_memory = nullptr;
    std::vector<btScalar> signature;
    ~TranslatedShape() { std::free(hull_memory); }
};

// What the translation depends on, value by value: type, margin, scaling,
// dimensions, points.
template <class Visit> void visit_signature(const btCollisionShape *s, Visit visit)
{
    const btVector3 sc = s->getLocalScaling();
    for (btScalar v : {btScalar(s->getShapeType()), s->getMargin(), sc.x(), sc.y(), sc.z()}) visit(v);
    switch (s->getShapeType()) {
    case BOX_SHAPE_PROXYTYPE: {
        const btVector3 h = static_cast<const btBoxShape *>(s)->getHalfExtentsWithMargin();
        for (btScalar v : {h.x(), h.y(), h.z()}) visit(v);
        break;
    }
    case SPHERE_SHAPE_PROXYTYPE: visit(static_cast<const btSphereShape *>(s)->getRadius()); break;
    case CAPSULE_SHAPE_PROXYTYPE: {
        const auto *c = static_cast<const btCapsuleShape *>(s);
        for (btScalar v : {btScalar(c->getUpAxis()), c->getRadius(), c->getHalfHeight()}) visit(v);
        break;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        const auto *h = static_cast<const btConvexHullShape *>(s);
        for (int i = 0; i < h->getNumPoints(); ++i) {
            const btVector3 p = h->getUnscaledPoints()[i];
            for (btScalar v : {p.x(), p.y(), p.z()}) visit(v);
        }
        break;
    }
    case MULTI_SPHERE_SHAPE_PROXYTYPE: {
        const auto *m = static_cast<const btMultiSphereShape *>(s);
        for (int i = 0; i < m->getSphereCount(); ++i) {
            const btVector3 p = m->getSpherePosition(i);
            for (btScalar v : {p.x(), p.y(), p.z(), m->getSphereRadius(i)}) visit(v);
        }
        break;
    }
    default: break;
    }
}

std::vector<btScalar> signature_of(const btCollisionShape *s)
{
    std::vector<btScalar> sig;
    visit_signature(s, [&](btScalar v) { sig.push_back(v); });
    return sig;
}

// Whether s still has the signature sig (compared in place: every new
// pair asks, and a copy would allocate).
bool has_signature(const btCollisionShape *s, const std::vector<btScalar> &sig)
{
    size_t i = 0;
    bool same = true;
    visit_signature(s, [&](btScalar v) {
        same = same && i < sig.size() && sig[i] == v;
        ++i;
    });
    return same && i == sig.size();
}

// The rotation taking mink's capsule axis (+Y) to the unit direction d.
btQuaternion y_to(const btVector3 &d)
{
    if (d.y() < btScalar(-0.999999)) return btQuaternion(btVector3(1, 0, 0), SIMD_PI);
    return shortestArcQuat(btVector3(0, 1, 0), d);
}

bool capsule_along(TranslatedShape &t, const btVector3 &axis, btScalar r, btScalar half_height)
{
    t.shape = mink_capsule(float(r), float(half_height));
    if (axis.y() < btScalar(0.999999)) {
        t.local.setRotation(y_to(axis));
        t.turned = true;
    }
    return mink_shape_is_valid(&t.shape) != 0;
}

// nullptr when the shape does not map (its pairs keep Bullet's algorithm).
std::unique_ptr<TranslatedShape> translate(const btCollisionShape *s)
{
    auto t = std::make_unique<TranslatedShape>();
    bool ok = false;
    switch (s->getShapeType()) {
    case BOX_SHAPE_PROXYTYPE: {
        const auto *b = static_cast<const btBoxShape *>(s);
        // sharp, the margin inside: as Bullet's box-box, sphere-box and
        // polyhedral clipping see it
        const btVector3 h = b->getHalfExtentsWithMargin();
        t->shape = mink_box(float(h.x()), float(h.y()), float(h.z()), 0.0f);
        ok = mink_shape_is_valid(&t->shape) != 0;
        break;
    }
    case SPHERE_SHAPE_PROXYTYPE:
        t->shape = mink_sphere(float(static_cast<const btSphereShape *>(s)->getRadius()));
        ok = mink_shape_is_valid(&t->shape) != 0;
        break;
    case CAPSULE_SHAPE_PROXYTYPE: {
        const auto *c = static_cast<const btCapsuleShape *>(s);
        btVector3 axis(0, 0, 0);
        axis[c->getUpAxis()] = 1;
        ok = capsule_along(*t, axis, c->getRadius(), c->getHalfHeight());
        break;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        const auto *h = static_cast<const btConvexHullShape *>(s);
        const int n = h->getNumPoints();
        if (n <= 0) break;
        std::vector<float> xyz(size_t(n) * 3);
        for (int i = 0; i < n; ++i) {
            const btVector3 p = h->getScaledPoint(i);
            xyz[3 * i] = float(p.x()), xyz[3 * i + 1] = float(p.y()), xyz[3 * i + 2] = float(p.z());
        }
        const size_t bytes = mink_hull_bytes(uint32_t(n));
        if (bytes == 0) break;
        const size_t rounded = (bytes + MINK_HULL_ALIGN - 1) / MINK_HULL_ALIGN * MINK_HULL_ALIGN;
        t->hull_memory = std::aligned_alloc(MINK_HULL_ALIGN, rounded);
        if (!t->hull_memory) break;
        ok = mink_hull_init(&t->shape, t->hull_memory, rounded, xyz.data(), uint32_t(n), float(h->getMargin())) ==
             MINK_OK;
        break;
    }
    case MULTI_SPHERE_SHAPE_PROXYTYPE: {
        // Bullet scales positions and radii per axis: only uniform scaling maps.
        const auto *m = static_cast<const btMultiSphereShape *>(s);
        const btVector3 sc = m->getLocalScaling();
        if (sc.x() != sc.y() || sc.x() != sc.z()) break;
        const btScalar k = sc.x();
        if (m->getSphereCount() == 1 && m->getSpherePosition(0).fuzzyZero()) {
            t->shape = mink_sphere(float(m->getSphereRadius(0) * k));
            ok = mink_shape_is_valid(&t->shape) != 0;
        } else if (m->getSphereCount() == 2 && m->getSphereRadius(0) == m->getSphereRadius(1) &&
                   (m->getSpherePosition(0) + m->getSpherePosition(1)).fuzzyZero()) {
            const btVector3 d = (m->getSpherePosition(1) - m->getSpherePosition(0)) * k;
            const btScalar len = d.length();
            if (len > 0) ok = capsule_along(*t, d / len, m->getSphereRadius(0) * k, len / 2);
        }
        break;
    }
    default: break;
    }
    if (!ok) return nullptr;
    t->reach = t->shape.extent + t->shape.radius;
    t->signature = signature_of(s);
    return t;
}

// Translations of every shape seen, shared by all registered dispatchers.
struct ShapeTable {
    std::mutex lock;
    std::unordered_map<const btCollisionShape *, std::unique_ptr<TranslatedShape>> shapes;
    // translations replaced because their shape changed: pairs created
    // before may still use them, so they are kept (a rare event)
    std::vector<std::unique_ptr<TranslatedShape>> retired;

    const TranslatedShape *find(const btCollisionShape *s)
    {
        std::lock_guard<std::mutex> guard(lock);
        auto it = shapes.find(s);
        if (it != shapes.end() && it->second && has_signature(s, it->second->signature)) return it->second.get();
        std::unique_ptr<TranslatedShape> t = translate(s);
        const TranslatedShape *result = t.get();
        if (it != shapes.end()) {
            if (it->second) retired.push_back(std::move(it->second));
            it->second = std::move(t);
        } else {
            shapes.emplace(s, std::move(t));
        }
        return result;
    }

    // The translation kept for s, as its pairs use it (a new one if s is
    // new): without find's check for a changed shape, for the per-step
    // continuous collision.
    const TranslatedShape *kept(const btCollisionShape *s)
    {
        {
            std::lock_guard<std::mutex> guard(lock);
            auto it = shapes.find(s);
            if (it != shapes.end()) return it->second.get();
        }
        return find(s);
    }
};

ShapeTable &shape_table()
{
    static ShapeTable table;
    return table;
}

// Pair creations are rare: shared counters. Queries are per pair and
// frame, on whatever threads dispatch them: each thread counts its own
// (one writer, no locked add on a shared line), summed when asked.
struct Counters {
    std::atomic<unsigned long long> mink_pairs{0}, fallback_pairs{0};
};
struct QueryCounts {
    std::atomic<unsigned long long> queries{0}, invalid{0}, reused{0};
};
struct QueryCountTable {
    std::mutex lock;
    std::vector<std::unique_ptr<QueryCounts>> threads;
};
QueryCountTable &query_count_table()
{
    static QueryCountTable table;
    return table;
}
QueryCounts &thread_counts()
{
    thread_local QueryCounts *mine = nullptr;
    if (!mine) {
        QueryCountTable &t = query_count_table();
        std::lock_guard<std::mutex> guard(t.lock);
        t.threads.push_back(std::make_unique<QueryCounts>());
        mine = t.threads.back().get();
    }
    return *mine;
}
void count(std::atomic<unsigned long long> &n) { n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

// relative to the smaller shape's size; 0: never reuse
std::atomic<float> g_reuse_tolerance{0.0f};
float reuse_tolerance() { return g_reuse_tolerance.load(std::memory_order_relaxed); }
Counters &counters()
{
    static Counters c;
    return c;
}

// ------------------------------------------------------------ the algorithm

mink_pose pose_of(const btTransform &world, const TranslatedShape &s)
{
    const btTransform t = s.turned ? world * s.local : world;
    btQuaternion q; // unit to float rounding: mink scales by 1 / |q|^2 itself
    t.getBasis().getRotation(q);
    const btVector3 &p = t.getOrigin();
    return mink_pose{{float(p.x()), float(p.y()), float(p.z())},
                     {float(q.x()), float(q.y()), float(q.z()), float(q.w())}};
}

// The materials of a pair's points, combined as btManifoldResult does.
struct Materials {
    btScalar friction, restitution, rolling, spinning, damping = 0, stiffness = 0;
    int flags = 0;
    void apply(btManifoldPoint &p) const
    {
        p.m_combinedFriction = friction, p.m_combinedRestitution = restitution;
        p.m_combinedRollingFriction = rolling, p.m_combinedSpinningFriction = spinning;
        if (flags & BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING)
            p.m_combinedContactDamping1 = damping, p.m_combinedContactStiffness1 = stiffness;
        p.m_contactPointFlags = flags;
    }
};
Materials materials_of(const btCollisionObject *oa, const btCollisionObject *ob)
{
    Materials m;
    m.friction = gCalculateCombinedFrictionCallback(oa, ob);
    m.restitution = gCalculateCombinedRestitutionCallback(oa, ob);
    m.rolling = gCalculateCombinedRollingFrictionCallback(oa, ob);
    m.spinning = gCalculateCombinedSpinningFrictionCallback(oa, ob);
    const int flags = oa->getCollisionFlags() | ob->getCollisionFlags();
    if (flags & btCollisionObject::CF_HAS_CONTACT_STIFFNESS_DAMPING) {
        m.damping = gCalculateCombinedContactDampingCallback(oa, ob);
        m.stiffness = gCalculateCombinedContactStiffnessCallback(oa, ob);
        m.flags |= BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING;
    }
    if (flags & btCollisionObject::CF_HAS_FRICTION_ANCHOR) m.flags |= BT_CONTACT_FLAG_FRICTION_ANCHOR;
    return m;
}

// Whether Bullet's gContactAddedCallback is to see the pair's points.
bool contact_added_callback(const btCollisionObject *oa, const btCollisionObject *ob)
{
    const int custom = btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK;
    return gContactAddedCallback && ((oa->getCollisionFlags() & custom) || (ob->getCollisionFlags() & custom));
}

btVector3 bt(const mink_vec3 &v) { return btVector3(btScalar(v.x), btScalar(v.y), btScalar(v.z)); }

class MinkManifoldAlgorithm : public btActivatingCollisionAlgorithm {
public:
    MinkManifoldAlgorithm(const btCollisionAlgorithmConstructionInfo &ci, const btCollisionObjectWrapper *w0,
                          const btCollisionObjectWrapper *w1, const TranslatedShape *s0, const TranslatedShape *s1)
        : btActivatingCollisionAlgorithm(ci, w0, w1), m_manifold(ci.m_manifold), m_shape0(w0->getCollisionShape()),
          m_mink0(s0), m_mink1(s1)
    {
        mink_cache_reset(&m_cache);
    }

    ~MinkManifoldAlgorithm() override
    {
        if (m_own && m_manifold) m_dispatcher->releaseManifold(m_manifold);
    }

    void processCollision(const btCollisionObjectWrapper *w0, const btCollisionObjectWrapper *w1,
                          const btDispatcherInfo &, btManifoldResult *result) override;

    btScalar calculateTimeOfImpact(btCollisionObject *, btCollisionObject *, const btDispatcherInfo &,
                                   btManifoldResult *) override
    {
        return 1; // continuous collision stays with Bullet's CCD
    }

    void getAllContactManifolds(btManifoldArray &manifolds) override
    {
        if (m_manifold && m_own) manifolds.push_back(m_manifold);
    }

private:
    void fill_own(const btCollisionObjectWrapper *wa, const btCollisionObjectWrapper *wb,
                  const mink_contact_manifold &m);
    btManifoldPoint shared_point(const btCollisionObjectWrapper *wa, const btCollisionObjectWrapper *wb,
                                 const btVector3 &normal_on_b) const;

    btPersistentManifold *m_manifold;
    bool m_own = false;
    const btCollisionShape *m_shape0; // the shape m_mink0 translates
    const TranslatedShape *m_mink0, *m_mink1;
    mink_cache m_cache;
    // the mink key of each point of an owned manifold, in its order
    int m_count = 0;
    uint32_t m_keys[MINK_MANIFOLD_POINTS] = {};
    // mink's last answer, kept for frames in which the pair has not moved
    // relative to itself by more than the reuse tolerance: its points stay
    // in the manifold, moved with the bodies (reuse)
    bool m_reusable = false;
    int m_kept = 0;           // its points
    btTransform m_rel;        // B in A's frame then
    btVector3 m_normal_a;     // A's frame
    btScalar m_far_b = 0;     // the farthest kept point (none: any point of B) from B's origin
    btScalar m_tolerance = 0; // how far any point may have moved

    bool reuse(const btCollisionObjectWrapper *wa, const btCollisionObjectWrapper *wb);
    void keep(const btTransform &ta, const btTransform &tb, const mink_contact_manifold &m, btScalar size,
              btScalar reach_b, btScalar margin);
};

void MinkManifoldAlgorithm::processCollision(const btCollisionObjectWrapper *w0, const btCollisionObjectWrapper *w1,
                                             const btDispatcherInfo &, btManifoldResult *result)
{
    if (!m_manifold) {
        m_manifold = m_dispatcher->getNewManifold(w0->getCollisionObject(), w1->getCollisionObject());
        m_own = true;
    }
    result->setPersistentManifold(m_manifold);

    // A is the manifold's body 0 (Bullet's normal is on body 1, B)
    const bool swapped = m_own && m_manifold->getBody0() != w0->getCollisionObject();
    const btCollisionObjectWrapper *wa = swapped ? w1 : w0, *wb = swapped ? w0 : w1;
    const bool first = wa->getCollisionShape() == m_shape0;
    const TranslatedShape *sa = first ? m_mink0 : m_mink1, *sb = first ? m_mink1 : m_mink0;

    const float margin = float(m_manifold->getContactBreakingThreshold());
    mink_contact_manifold m;
    // bounding spheres apart by more than the margin (mink's own first
    // test, done here before the poses are converted): no contacts
    const btVector3 gap = wb->getWorldTransform().getOrigin() - wa->getWorldTransform().getOrigin();
    const btScalar reach = sa->reach + sb->reach + margin;
    if (gap.length2() > reach * reach * btScalar(1.0001)) {
        m.count = 0;
        m_reusable = false;
        if (m_own) fill_own(wa, wb, m);
        return;
    }
    if (m_own && reuse(wa, wb)) {
        count(thread_counts().reused);
        return;
    }
    const btTransform &ta = wa->getWorldTransform(), &tb = wb->getWorldTransform();
    const mink_pose pa = pose_of(ta, *sa);
    const mink_pose pb = pose_of(tb, *sb);
    count(thread_counts().queries);
    if (mink_manifold(&sa->shape, &pa, &sb->shape, &pb, margin, &m_cache, &m) == MINK_ERR_INVALID) {
        // a pose mink refuses (NaN, beyond MINK_MAX_MAGNITUDE): no contacts
        count(thread_counts().invalid);
        m.count = 0;
    }

    if (m_own) {
        keep(ta, tb, m, btMin(sa->reach, sb->reach), sb->reach, margin);
        fill_own(wa, wb, m);
        return;
    }
    // a manifold shared with other algorithms (a compound's children):
    // Bullet's own merging by position
    for (uint32_t i = 0; i < m.count; ++i)
        result->addContactPoint(-bt(m.normal), bt(m.points[i].point_b), btScalar(m.points[i].separation));
}

// The kept answer moved with the bodies, when no point of it can have
// moved relative to the other body by more than the tolerance since mink
// computed it: B's points move in A's frame by at most |dp| + |dR| |r|
// (r: the point's distance from B's origin, dR: the relative turn).
// The manifold's points are then moved in place, as Bullet's
// refreshContactPoints moves its own: each from its local points, along
// the normal turned with A; their impulses and keys stay, the materials
// are combined afresh.
bool MinkManifoldAlgorithm::reuse(const btCollisionObjectWrapper *wa, const btCollisionObjectWrapper *wb)
{
    // (a manifold changed behind our back is answered afresh)
    if (!m_reusable || m_manifold->getNumContacts() != m_count || m_count != m_kept) return false;
    const btTransform &ta = wa->getWorldTransform(), &tb = wb->getWorldTransform();
    const btTransform rel = ta.inverseTimes(tb);
    const btScalar dp = (rel.getOrigin() - m_rel.getOrigin()).length();
    if (!(dp <= m_tolerance)) return false;
    // the turn: a point r from B's origin moves by |R1 - R0| |r| at most,
    // the spectral norm, which for two rotations is their Frobenius
    // distance over sqrt 2 (2 sin(theta / 2), the chord; differences of
    // entries, exact for small turns, unlike the trace)
    const btMatrix3x3 &r0 = m_rel.getBasis(), &r1 = rel.getBasis();
    const btScalar f2 = (r1[0] - r0[0]).length2() + (r1[1] - r0[1]).length2() + (r1[2] - r0[2]).length2();
    const btScalar turn = btSqrt(btScalar(0.5) * f2) * btScalar(1.01);
    if (!(dp + turn * m_far_b <= m_tolerance)) return false;
    if (m_count == 0) return true; // still apart

    const btVector3 normal_on_b = -(ta.getBasis() * m_normal_a);
    btVector3 lateral1, lateral2;
    btPlaneSpace1(normal_on_b, lateral1, lateral2);
    const btCollisionObject *oa = wa->getCollisionObject(), *ob = wb->getCollisionObject();
    const Materials mat = materials_of(oa, ob);
    const btTransform &wta = oa->getWorldTransform(), &wtb = ob->getWorldTransform(); // (fill_own's frames)
    const bool callback = contact_added_callback(oa, ob);
    for (int j = 0; j < m_count; ++j) {
        btManifoldPoint &p = m_manifold->getContactPoint(j);
        p.m_positionWorldOnA = wta * p.m_localPointA;
        p.m_positionWorldOnB = wtb * p.m_localPointB;
        p.m_normalWorldOnB = normal_on_b;
        p.m_distance1 = (p.m_positionWorldOnA - p.m_positionWorldOnB).dot(normal_on_b);
        p.m_lateralFrictionDir1 = lateral1, p.m_lateralFrictionDir2 = lateral2;
        mat.apply(p);
        p.m_lifeTime++;
        if (callback) gContactAddedCallback(p, wa, p.m_partId0, p.m_index0, wb, p.m_partId1, p.m_index1);
    }
    return true;
}

// An answer without points is kept too, while no point of B can have come
// nearer A by half the margin: the pair stays apart (the points it may
// miss would be speculative ones in the margin's upper half).
void MinkManifoldAlgorithm::keep(const btTransform &ta, const btTransform &tb, const mink_contact_manifold &m,
                                 btScalar size, btScalar reach_b, btScalar margin)
{
    m_tolerance = btScalar(reuse_tolerance()) * size;
    if (m.count == 0) m_tolerance = btMin(m_tolerance, btScalar(0.5) * margin);
    m_reusable = m.status == MINK_OK && m_tolerance > 0;
    if (!m_reusable) return;
    m_rel = ta.inverseTimes(tb);
    m_kept = int(m.count);
    if (m.count == 0) {
        m_far_b = reach_b;
        return;
    }
    m_normal_a = ta.getBasis().transpose() * bt(m.normal);
    m_far_b = 0;
    for (uint32_t i = 0; i < m.count; ++i) m_far_b = btMax(m_far_b, tb.invXform(bt(m.points[i].point_b)).length());
}

// What every point of the pair shares this frame: the normal, its friction
// directions, and the materials as btManifoldResult combines them.
btManifoldPoint MinkManifoldAlgorithm::shared_point(const btCollisionObjectWrapper *wa,
                                                    const btCollisionObjectWrapper *wb,
                                                    const btVector3 &normal_on_b) const
{
    btManifoldPoint pt(btVector3(0, 0, 0), btVector3(0, 0, 0), normal_on_b, 0);
    materials_of(wa->getCollisionObject(), wb->getCollisionObject()).apply(pt);
    btPlaneSpace1(normal_on_b, pt.m_lateralFrictionDir1, pt.m_lateralFrictionDir2);
    pt.m_partId0 = wa->m_partId, pt.m_partId1 = wb->m_partId;
    pt.m_index0 = wa->m_index, pt.m_index1 = wb->m_index;
    return pt;
}

// (fill_own copies a point's shared part over a persisting one bytewise)
static_assert(std::is_trivially_copyable<btManifoldPoint>::value, "btManifoldPoint copied with memcpy");

// The manifold becomes exactly mink's points. A new point takes over the
// old point with its feature key; Bullet keeps that point's impulses and
// lifetime (the solver's warm start). Old points whose key is gone are
// removed. (Matching the rest by distance, Bullet's own rule, was tried:
// stacks drifted more, as impulses moved to points of other features.)
void MinkManifoldAlgorithm::fill_own(const btCollisionObjectWrapper *wa, const btCollisionObjectWrapper *wb,
                                     const mink_contact_manifold &m)
{
    if (m.count == 0 || m_manifold->getNumContacts() != m_count) { // apart, or changed behind our back
        if (m_manifold->getNumContacts() > 0) m_manifold->clearManifold();
        m_count = 0;
        if (m.count == 0) return;
    }
    const btVector3 normal_on_b = -bt(m.normal);
    int old_of[MINK_MANIFOLD_POINTS]; // the old point each new one takes over, or -1
    unsigned taken = 0;               // bit j: old point j taken over
    for (uint32_t i = 0; i < m.count; ++i) {
        old_of[i] = -1;
        for (int j = 0; j < m_count; ++j)
            if (!(taken >> j & 1u) && m_keys[j] == m.points[i].id) old_of[i] = j;
        if (old_of[i] >= 0) taken |= 1u << old_of[i];
    }
    for (int j = m_count - 1; j >= 0; --j) {
        if (taken >> j & 1u) continue;
        const int last = m_count - 1;
        m_manifold->removeContactPoint(j); // moves the last point into j
        m_keys[j] = m_keys[last];
        taken = (taken & ~(1u << j)) | (taken >> last & 1u) << j;
        for (uint32_t i = 0; i < m.count; ++i)
            if (old_of[i] == last) old_of[i] = j;
        --m_count;
    }
    const bool started = m_count == 0 && m.count > 0;
    const bool callback = contact_added_callback(wa->getCollisionObject(), wb->getCollisionObject());
    const btManifoldPoint shared = shared_point(wa, wb, normal_on_b);
    const btTransform &ta = wa->getCollisionObject()->getWorldTransform();
    const btTransform &tb = wb->getCollisionObject()->getWorldTransform();
    // what differs between the points
    const auto place = [&](btManifoldPoint &p, const mink_contact &c) {
        p.m_positionWorldOnA = bt(c.point_a);
        p.m_positionWorldOnB = bt(c.point_b);
        p.m_localPointA = ta.invXform(p.m_positionWorldOnA);
        p.m_localPointB = tb.invXform(p.m_positionWorldOnB);
        p.m_distance1 = btScalar(c.separation);
    };
    for (uint32_t i = 0; i < m.count; ++i) {
        int at = old_of[i];
        if (at >= 0 && !(shared.m_contactPointFlags & BT_CONTACT_FLAG_FRICTION_ANCHOR)) {
            // replaceContactPoint in place: the new point, the old one's
            // impulses, lifetime and user data (one copy, not two)
            btManifoldPoint &p = m_manifold->getContactPoint(at);
            const btScalar impulse = p.m_appliedImpulse, rhs = p.m_prevRHS;
            const btScalar lateral1 = p.m_appliedImpulseLateral1, lateral2 = p.m_appliedImpulseLateral2;
            void *user = p.m_userPersistentData;
            const int life = p.m_lifeTime;
            std::memcpy(static_cast<void *>(&p), &shared, sizeof p); // (the member-wise copy: 4x the instructions)
            place(p, m.points[i]);
            p.m_appliedImpulse = impulse, p.m_prevRHS = rhs;
            p.m_appliedImpulseLateral1 = lateral1, p.m_appliedImpulseLateral2 = lateral2;
            p.m_userPersistentData = user;
            p.m_lifeTime = life + 1;
        } else {
            btManifoldPoint p = shared;
            place(p, m.points[i]);
            if (at >= 0) {
                m_manifold->replaceContactPoint(p, at); // keeps a friction anchor inside its cone
                m_manifold->getContactPoint(at).m_lifeTime++;
            } else {
                at = m_manifold->addManifoldPoint(p);
                m_count = m_manifold->getNumContacts();
            }
        }
        m_keys[at] = m.points[i].id;
        if (callback) {
            btManifoldPoint &p = m_manifold->getContactPoint(at);
            gContactAddedCallback(p, wa, p.m_partId0, p.m_index0, wb, p.m_partId1, p.m_index1);
        }
    }
    if (started && gContactStartedCallback) gContactStartedCallback(m_manifold);
}

// ------------------------------------------------------------ registration

class MinkCreateFunc : public btCollisionAlgorithmCreateFunc {
public:
    MinkCreateFunc(btCollisionAlgorithmCreateFunc *fallback, bool pooled) : m_fallback(fallback), m_pooled(pooled) {}

    btCollisionAlgorithm *CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo &ci,
                                                   const btCollisionObjectWrapper *w0,
                                                   const btCollisionObjectWrapper *w1) override
    {
        const TranslatedShape *s0 = shape_table().find(w0->getCollisionShape());
        const TranslatedShape *s1 = s0 ? shape_table().find(w1->getCollisionShape()) : nullptr;
        if (!s0 || !s1) {
            counters().fallback_pairs.fetch_add(1, std::memory_order_relaxed);
            return m_fallback ? m_fallback->CreateCollisionAlgorithm(ci, w0, w1) : nullptr;
        }
        counters().mink_pairs.fetch_add(1, std::memory_order_relaxed);
        // the dispatcher frees from its pool, or with btAlignedFree what
        // is not from it
        void *mem = m_pooled ? ci.m_dispatcher1->allocateCollisionAlgorithm(int(sizeof(MinkManifoldAlgorithm)))
                             : btAlignedAlloc(sizeof(MinkManifoldAlgorithm), 16);
        return new (mem) MinkManifoldAlgorithm(ci, w0, w1, s0, s1);
    }

private:
    btCollisionAlgorithmCreateFunc *m_fallback;
    bool m_pooled;
};

const int kMapped[] = {BOX_SHAPE_PROXYTYPE, SPHERE_SHAPE_PROXYTYPE, CAPSULE_SHAPE_PROXYTYPE,
                       CONVEX_HULL_SHAPE_PROXYTYPE, MULTI_SPHERE_SHAPE_PROXYTYPE};

struct Registrations {
    std::mutex lock;
    std::map<btCollisionDispatcher *, std::vector<std::unique_ptr<MinkCreateFunc>>> by_dispatcher;
};
Registrations &registrations()
{
    static Registrations r;
    return r;
}

} // namespace

bool mink_bullet_register(btCollisionDispatcher *dispatcher)
{
    if (!dispatcher) return false;
    Registrations &r = registrations();
    std::lock_guard<std::mutex> guard(r.lock);
    auto &funcs = r.by_dispatcher[dispatcher];
    if (!funcs.empty()) return true; // already on mink
    btCollisionConfiguration *config = dispatcher->getCollisionConfiguration();
    // the dispatcher's pool holds algorithms up to its element size; a
    // larger algorithm would overrun it
    const bool pooled = config->getCollisionAlgorithmPool()->getElementSize() >= int(sizeof(MinkManifoldAlgorithm));
    for (int t0 : kMapped)
        for (int t1 : kMapped) {
            funcs.push_back(std::make_unique<MinkCreateFunc>(config->getCollisionAlgorithmCreateFunc(t0, t1), pooled));
            dispatcher->registerCollisionCreateFunc(t0, t1, funcs.back().get());
        }
    return true;
}

void mink_bullet_unregister(btCollisionDispatcher *dispatcher)
{
    if (!dispatcher) return;
    Registrations &r = registrations();
    std::lock_guard<std::mutex> guard(r.lock);
    auto it = r.by_dispatcher.find(dispatcher);
    if (it == r.by_dispatcher.end()) return;
    btCollisionConfiguration *config = dispatcher->getCollisionConfiguration();
    for (int t0 : kMapped)
        for (int t1 : kMapped)
            dispatcher->registerCollisionCreateFunc(t0, t1, config->getCollisionAlgorithmCreateFunc(t0, t1));
    r.by_dispatcher.erase(it);
}

void mink_bullet_forget_shape(const btCollisionShape *shape)
{
    ShapeTable &t = shape_table();
    std::lock_guard<std::mutex> guard(t.lock);
    t.shapes.erase(shape);
}

mink_bullet_stats mink_bullet_get_stats()
{
    const Counters &c = counters();
    mink_bullet_stats s{c.mink_pairs.load(), c.fallback_pairs.load(), 0, 0, 0};
    QueryCountTable &t = query_count_table();
    std::lock_guard<std::mutex> guard(t.lock);
    for (const auto &q : t.threads) {
        s.queries += q->queries.load(std::memory_order_relaxed);
        s.invalid += q->invalid.load(std::memory_order_relaxed);
        s.reused += q->reused.load(std::memory_order_relaxed);
    }
    return s;
}

void mink_bullet_set_reuse_tolerance(float relative)
{
    g_reuse_tolerance.store(relative > 0 && std::isfinite(relative) ? relative : 0.0f, std::memory_order_relaxed);
}

// ------------------------------------------------------------ continuous collision

namespace {

// The first contact along one fast body's motion over the step.
struct CcdHit {
    btCollisionObject *other = nullptr;
    btScalar t = 1;                       // fraction of the step
    btVector3 normal_on_b{0, 0, 0};       // from the other body towards the fast one
    btVector3 on_a{0, 0, 0}, on_b{0, 0, 0}; // witnesses at time t, world
};

enum class Sweep { miss, hit, unmapped };

struct CollectProxies : btBroadphaseAabbCallback {
    btAlignedObjectArray<const btBroadphaseProxy *> &out;
    explicit CollectProxies(btAlignedObjectArray<const btBroadphaseProxy *> &o) : out(o) {}
    bool process(const btBroadphaseProxy *proxy) override
    {
        out.push_back(proxy);
        return true;
    }
};

// Bullet's condition for sweeping a body this step (its predicted pose `to`).
bool wants_ccd(const btCollisionWorld &world, const btRigidBody *body, const btTransform &to)
{
    const btScalar threshold2 = body->getCcdSquareMotionThreshold();
    return world.getDispatchInfo().m_useContinuous && threshold2 != 0 &&
           threshold2 < (to.getOrigin() - body->getWorldTransform().getOrigin()).length2() &&
           body->getCollisionShape()->isConvex();
}

mink_vec3 mv(const btVector3 &v) { return mink_vec3{float(v.x()), float(v.y()), float(v.z())}; }

// The earliest hit of the body moving by `motion` (no rotation) against
// everything the broadphase finds along the way. skip_touching: pairs
// already within the target at t = 0 are not hits.
Sweep sweep(btCollisionWorld &world, btRigidBody *body, const btVector3 &motion, bool skip_touching,
            btAlignedObjectArray<const btBroadphaseProxy *> &candidates, mink_bullet_world::ccd_stats &stats,
            CcdHit &hit)
{
    const btCollisionShape *shape_a = body->getCollisionShape();
    const TranslatedShape *sa = shape_table().kept(shape_a);
    const btBroadphaseProxy *me = body->getBroadphaseHandle();
    if (!sa || !me) return Sweep::unmapped;
    ++stats.swept;
    const btTransform &from = body->getWorldTransform();
    btVector3 lo, hi;
    shape_a->getAabb(from, lo, hi);
    lo.setMin(lo + motion);
    hi.setMax(hi + motion);
    const btVector3 pad(gContactBreakingThreshold, gContactBreakingThreshold, gContactBreakingThreshold);
    candidates.resize(0);
    CollectProxies collect(candidates);
    world.getBroadphase()->aabbTest(lo - pad, hi + pad, collect);

    const btScalar allowed = world.getDispatchInfo().m_allowedCcdPenetration;
    const btScalar threshold_a = shape_a->getContactBreakingThreshold(gContactBreakingThreshold);
    const mink_pose pa = pose_of(from, *sa);
    const mink_vec3 da = mv(motion), still{0, 0, 0};
    for (int i = 0; i < candidates.size(); ++i) {
        const btBroadphaseProxy *proxy = candidates[i];
        auto *other = static_cast<btCollisionObject *>(proxy->m_clientObject);
        // as Bullet's sweep: not itself, the filters match, a contact response
        if (other == body || !(proxy->m_collisionFilterGroup & me->m_collisionFilterMask) ||
            !(me->m_collisionFilterGroup & proxy->m_collisionFilterMask) ||
            !world.getDispatcher()->needsResponse(body, other))
            continue;
        const btCollisionShape *shape_b = other->getCollisionShape();
        const btTransform &tb = other->getWorldTransform();
        CcdHit h;
        h.other = other;
        if (const TranslatedShape *sb = shape_table().kept(shape_b)) {
            const btScalar target =
                btScalar(0.5) * btMin(gContactBreakingThreshold,
                                      btMin(threshold_a, shape_b->getContactBreakingThreshold(gContactBreakingThreshold)));
            const mink_pose pb = pose_of(tb, *sb);
            mink_cast_result r;
            ++stats.casts;
            const int got = mink_cast(&sa->shape, &pa, da, &sb->shape, &pb, still, float(target), &r);
            if (got < 0) ++stats.invalid;
            if (got != 1) continue;
            h.t = btScalar(r.t);
            h.normal_on_b = -bt(r.normal);
            h.on_a = bt(r.point_a);
            h.on_b = bt(r.point_b);
        } else {
            // no mink shape for the other body: Bullet's swept sphere against it
            ++stats.bullet_sweeps;
            btSphereShape sphere(body->getCcdSweptSphereRadius());
            const btTransform to(from.getBasis(), from.getOrigin() + motion);
            btCollisionWorld::ClosestConvexResultCallback result(from.getOrigin(), to.getOrigin());
            // (no allowed penetration in the sweep itself, as Bullet's CCD)
            btCollisionWorld::objectQuerySingle(&sphere, from, to, other, shape_b, tb, result, 0);
            if (!result.hasHit()) continue;
            h.t = result.m_closestHitFraction;
            h.normal_on_b = result.m_hitNormalWorld;
            h.on_b = result.m_hitPointWorld;
            h.on_a = from.getOrigin() + motion * h.t - h.normal_on_b * sphere.getRadius();
        }
        if (skip_touching && h.t <= 0) continue;
        // Bullet's rule: moving away, or into it by less than the allowed
        // penetration over the whole step, is no impact
        if (h.normal_on_b.dot(motion) >= -allowed) continue;
        if (h.t < hit.t) hit = h;
    }
    return hit.other ? Sweep::hit : Sweep::miss;
}

} // namespace

void mink_bullet_world::createPredictiveContacts(btScalar timeStep)
{
    releasePredictiveContacts();
    for (int i = 0; i < m_nonStaticRigidBodies.size(); ++i) {
        btRigidBody *body = m_nonStaticRigidBodies[i];
        body->setHitFraction(1);
        if (!body->isActive() || body->isStaticOrKinematicObject()) continue;
        btTransform to;
        body->predictIntegratedTransform(timeStep, to);
        if (!wants_ccd(*this, body, to)) continue;
        const btVector3 motion = to.getOrigin() - body->getWorldTransform().getOrigin();
        CcdHit hit;
        const Sweep s = sweep(*this, body, motion, true, m_candidates, m_ccd, hit);
        if (s == Sweep::unmapped) {
            ++m_ccd.bullet_bodies;
            createPredictiveContactsInternal(&body, 1, timeStep);
            continue;
        }
        if (s != Sweep::hit) continue;
        ++m_ccd.hits;
        // a speculative contact now, between the witnesses moved back to
        // t = 0: the gap along the normal is what the body may close
        const btVector3 on_a = hit.on_a - motion * hit.t;
        const btScalar gap = (on_a - hit.on_b).dot(hit.normal_on_b);
        btPersistentManifold *manifold = m_dispatcher1->getNewManifold(body, hit.other);
        m_predictiveManifolds.push_back(manifold);
        btManifoldPoint point(body->getWorldTransform().invXform(on_a), hit.other->getWorldTransform().invXform(hit.on_b),
                              hit.normal_on_b, gap);
        point.m_positionWorldOnA = on_a;
        point.m_positionWorldOnB = hit.on_b;
        point.m_combinedRestitution = 0;
        point.m_combinedFriction = gCalculateCombinedFrictionCallback(body, hit.other);
        manifold->addManifoldPoint(point, true);
    }
}

void mink_bullet_world::integrateTransforms(btScalar timeStep)
{
    for (int i = 0; i < m_nonStaticRigidBodies.size(); ++i) {
        btRigidBody *body = m_nonStaticRigidBodies[i];
        body->setHitFraction(1);
        if (!body->isActive() || body->isStaticOrKinematicObject()) continue;
        btTransform to;
        body->predictIntegratedTransform(timeStep, to);
        if (wants_ccd(*this, body, to)) {
            CcdHit hit;
            const btVector3 motion = to.getOrigin() - body->getWorldTransform().getOrigin();
            const Sweep s = sweep(*this, body, motion, false, m_candidates, m_ccd, hit);
            if (s == Sweep::unmapped) {
                ++m_ccd.bullet_bodies;
                integrateTransformsInternal(&body, 1, timeStep);
                continue;
            }
            if (s == Sweep::hit) { // the step up to the first contact, as Bullet clamps it
                ++m_ccd.hits;
                body->predictIntegratedTransform(timeStep * hit.t, to);
                body->setHitFraction(0);
            }
        }
        body->proceedToTransform(to);
    }
    if (!getApplySpeculativeContactRestitution()) return;
    // Bullet's optional bounce off speculative contacts: the solver's
    // impulse on each, again, times the pair's restitution
    for (int i = 0; i < m_predictiveManifolds.size(); ++i) {
        const btPersistentManifold *m = m_predictiveManifolds[i];
        btRigidBody *a = btRigidBody::upcast(const_cast<btCollisionObject *>(m->getBody0()));
        btRigidBody *b = btRigidBody::upcast(const_cast<btCollisionObject *>(m->getBody1()));
        const btScalar restitution = gCalculateCombinedRestitutionCallback(m->getBody0(), m->getBody1());
        if (!(restitution > 0)) continue;
        for (int k = 0; k < m->getNumContacts(); ++k) {
            const btManifoldPoint &p = m->getContactPoint(k);
            if (p.m_appliedImpulse == 0) continue;
            const btVector3 impulse = -p.m_normalWorldOnB * (p.m_appliedImpulse * restitution);
            if (a) a->applyImpulse(impulse, p.getPositionWorldOnA() - a->getWorldTransform().getOrigin());
            if (b) b->applyImpulse(-impulse, p.getPositionWorldOnB() - b->getWorldTransform().getOrigin());
        }
    }
}
