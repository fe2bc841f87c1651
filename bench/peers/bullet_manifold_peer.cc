// Bullet peers for contact manifolds (bench_manifold.h): what a Bullet user
// gets as the one-shot manifold of a box or hull pair. "bullet" is the
// separating-axis path the benchmark issue names; "bullet-gjk" differs only
// for pairs with a hull, which take btConvexConvexAlgorithm's default path
// (m_enableSatConvex off): GJK/EPA's normal and depth, then the same
// clipping (see "speculative contacts" below, its path for every such
// pair). findSeparatingAxis projects both hulls on every face normal and
// every edge pair's cross product (TEST_INTERNAL_OBJECTS culls some): on
// overlapping hulls of 128 points that is tens of millions of cycles, where
// Bullet's default takes tens of thousands, with the same answers here.
//
// - Two boxes: btBoxBoxDetector (ODE's box-box: 15 axes, then the incident
//   face clipped against the reference face, at most 4 points).
// - Hulls, and a box with a hull (the box as a polyhedron):
//   btPolyhedralContactClipping on the shapes' polyhedral features
//   (initializePolyhedralFeatures, once per case, not timed):
//   findSeparatingAxis (faces of both, then edge pairs), then
//   clipHullAgainstHull along its axis with minDist -1e30 and maxDist the
//   contact threshold, as btConvexConvexAlgorithm does with
//   m_enableSatConvex; findSeparatingAxis's own edge-edge point is kept as
//   there.
// - Speculative contacts (cores apart, within the threshold): both of the
//   above stop at the first separating axis and report nothing. Such a pair
//   takes btConvexConvexAlgorithm's other path: btGjkPairDetector for the
//   normal and the distance (it stops early past the threshold), then
//   clipHullAgainstHull along that normal with minDist = distance -
//   threshold. Bullet takes that path only for overlapping cores; widened to
//   the threshold it gives Bullet the speculative contacts the benchmark
//   asks for (without it Bullet would miss every pair within the margin).
//   Its detector carries btGjkEpaPenetrationDepthSolver, as
//   btConvexConvexAlgorithm's does, for cores that touch: a box resting
//   exactly on another can fail btBoxBoxDetector's test by a rounding.
// - Rounded shapes: Bullet's margin is its rounding (bullet_peer.cc), but
//   its manifold algorithms collide sharp polyhedra: btBoxBoxDetector the
//   box of getHalfExtentsWithMargin() (h + r with sharp edges), the
//   polyhedral features the hull's points (its margin ignored). So Bullet
//   gets the cores (btBoxShape of h with margin 0, the hull's points), the
//   threshold margin + rA + rB, and each point is moved out by the radii
//   along the normal (separation - rA - rB), as mink does with its cores:
//   exact for rounded shapes, a few flops per point, timed.
// - More than 4 points (clipping reports every corner of the overlap):
//   reduced to 4 as btPersistentManifold does when it fills up: the deepest
//   point, then the ones that span the most area (timed).
// - Spheres and capsules: not taken (Bullet's manifolds of those pairs are
//   GJK's single point per frame, accumulated over frames by
//   btPersistentManifold): their groups are not timed.
//
// Bullet reports normalOnB (from B towards A), the point on B and the signed
// distance (< 0 penetrating); mink's normal is -normalOnB, point_b is the
// point, point_a = point_b - separation * normal. Bullet has no feature
// keys: the points are numbered.
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include "bullet_common.h"

namespace {

// Points one query can report before the reduction (a clipped face has at
// most the vertices of both faces); past it the shallowest is dropped.
constexpr int kMaxPoints = 64;

// Collects what Bullet reports, in Bullet's conventions.
struct collector final : btDiscreteCollisionDetectorInterface::Result {
    btVector3 normal[kMaxPoints];  // normalOnB
    btVector3 point[kMaxPoints];   // on B
    btScalar depth[kMaxPoints];    // signed distance
    int n = 0;

    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}
    void addContactPoint(const btVector3 &normal_on_b, const btVector3 &on_b, btScalar d) override
    {
        int k = n;
        if (n == kMaxPoints) {
            k = 0;
            for (int i = 1; i < n; ++i)
                if (depth[i] > depth[k])
                    k = i;
            if (depth[k] <= d)
                return;
        } else {
            ++n;
        }
        normal[k] = normal_on_b;
        point[k] = on_b;
        depth[k] = d;
    }
};

struct pair_shapes {
    std::unique_ptr<btPolyhedralConvexShape> a, b;  // the cores
    btTransform ta, tb;
    btScalar ra = 0, rb = 0;
    bool boxes = false;
};

struct manifold_ctx {
    std::vector<pair_shapes> pairs;
    btScalar margin = 0;
    bool sat = true;                 // "bullet": findSeparatingAxis for hulls
    btVertexArray verts1, verts2;    // clipping scratch, kept between queries
    btVoronoiSimplexSolver simplex;  // reset by the detector on every query
    btGjkEpaPenetrationDepthSolver epa;  // stateless
    collector col;
    struct mink_manifold scratch;    // the timed pass's answer
};

int supports(const mink_case *c)
{
    auto poly = [](int t) { return t == MINK_SHAPE_BOX || t == MINK_SHAPE_HULL; };
    return poly(c->sa.type) && poly(c->sb.type);
}

btPolyhedralConvexShape *core(const case_shape &s)
{
    btPolyhedralConvexShape *shape = nullptr;
    if (s.type == MINK_SHAPE_BOX) {
        // The constructor keeps the extents with margin; margin 0 makes them the core.
        shape = new btBoxShape(btVector3(btScalar(s.param[0]), btScalar(s.param[1]), btScalar(s.param[2])));
    } else if (s.type == MINK_SHAPE_HULL) {
        std::vector<btScalar> pts(3 * static_cast<size_t>(s.n));
        for (size_t i = 0; i < pts.size(); ++i)
            pts[i] = btScalar(s.pts[i]);
        shape = new btConvexHullShape(pts.data(), static_cast<int>(s.n), 3 * sizeof(btScalar));
    }
    if (!shape)
        return nullptr;
    shape->setMargin(0);
    if (!shape->initializePolyhedralFeatures() || !shape->getConvexPolyhedron()) {
        delete shape;
        return nullptr;
    }
    return shape;
}

// Bullet's points for a pair, in the collector.
void collide(manifold_ctx *x, const pair_shapes &p)
{
    collector &col = x->col;
    col.n = 0;
    const btScalar threshold = x->margin + p.ra + p.rb;
    btDiscreteCollisionDetectorInterface::ClosestPointInput in;
    in.m_transformA = p.ta;
    in.m_transformB = p.tb;
    in.m_maximumDistanceSquared = threshold * threshold;
    const btConvexPolyhedron &ha = *p.a->getConvexPolyhedron();
    const btConvexPolyhedron &hb = *p.b->getConvexPolyhedron();
    if (p.boxes) {
        btBoxBoxDetector boxes(static_cast<const btBoxShape *>(p.a.get()),
                               static_cast<const btBoxShape *>(p.b.get()));
        boxes.getClosestPoints(in, col, nullptr);
    } else if (x->sat) {
        btVector3 sep;
        if (btPolyhedralContactClipping::findSeparatingAxis(ha, hb, p.ta, p.tb, sep, col))
            btPolyhedralContactClipping::clipHullAgainstHull(sep, ha, hb, p.ta, p.tb, btScalar(-1e30), threshold,
                                                              x->verts1, x->verts2, col);
    }
    if (col.n > 0)
        return;
    // Cores apart ("bullet-gjk": any pair with a hull): GJK's normal and
    // distance (EPA's when the cores overlap), if within the threshold.
    btGjkPairDetector gjk(p.a.get(), p.b.get(), &x->simplex, &x->epa);
    btPointCollector closest;
    gjk.getClosestPoints(in, closest, nullptr);
    if (closest.m_hasResult && closest.m_distance <= threshold)
        btPolyhedralContactClipping::clipHullAgainstHull(closest.m_normalOnBInWorld, ha, hb, p.ta, p.tb,
                                                          closest.m_distance - threshold, threshold, x->verts1,
                                                          x->verts2, col);
}

// Twice the area of the convex hull of up to four points, seen along n: the
// largest over the quadrilateral's three orders (a non-convex or crossed
// order spans less than the hull).
btScalar span4(const btVector3 *p[4], const btVector3 &n)
{
    static const int order[3][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}};
    btScalar best = 0;
    for (const int *o : order) {
        const btScalar a = btFabs((*p[o[2]] - *p[o[0]]).cross(*p[o[3]] - *p[o[1]]).dot(n));
        best = a > best ? a : best;
    }
    return best;
}

// The collector's points as a mink manifold: at most 4, moved out by the radii.
void finish(const collector &col, btScalar ra, btScalar rb, struct mink_manifold *out)
{
    std::memset(out, 0, sizeof *out);
    out->status = MINK_OK;
    if (col.n == 0)
        return;
    int keep[MINK_MANIFOLD_POINTS];
    int k = 0;
    keep[k++] = 0;
    for (int i = 1; i < col.n; ++i)
        if (col.depth[i] < col.depth[keep[0]])
            keep[0] = i;
    const btVector3 n = -col.normal[keep[0]].normalized();  // from A towards B
    if (col.n <= MINK_MANIFOLD_POINTS) {
        for (int i = 0; i < col.n; ++i)
            if (i != keep[0])
                keep[k++] = i;
    } else {
        // The deepest, the farthest from it across the normal, the widest
        // triangle, the widest quadrilateral.
        for (; k < MINK_MANIFOLD_POINTS; ++k) {
            int best = -1;
            btScalar best_span = -1;
            for (int i = 0; i < col.n; ++i) {
                bool taken = false;
                for (int j = 0; j < k; ++j)
                    taken = taken || keep[j] == i;
                if (taken)
                    continue;
                const btVector3 *p[4];
                for (int j = 0; j < k; ++j)
                    p[j] = &col.point[keep[j]];
                p[k] = &col.point[i];
                btScalar span;
                if (k == 1) {
                    const btVector3 d = *p[1] - *p[0];
                    span = (d - n * d.dot(n)).length2();
                } else if (k == 2) {
                    span = btFabs((*p[1] - *p[0]).cross(*p[2] - *p[0]).dot(n));
                } else {
                    span = span4(p, n);
                }
                if (span > best_span) {
                    best_span = span;
                    best = i;
                }
            }
            keep[k] = best;
        }
    }
    out->normal = {float(n.x()), float(n.y()), float(n.z())};
    out->count = uint32_t(k);
    for (int j = 0; j < k; ++j) {
        const int i = keep[j];
        const btScalar s = col.depth[i] - ra - rb;
        const btVector3 pb = col.point[i] - n * rb;
        const btVector3 pa = pb - n * s;
        mink_contact &c = out->points[j];
        c.point_a = {float(pa.x()), float(pa.y()), float(pa.z())};
        c.point_b = {float(pb.x()), float(pb.y()), float(pb.z())};
        c.separation = float(s);
        c.id = uint32_t(j);
    }
}

void *prepare(const mink_case *cases, size_t n, double margin, bool sat)
{
    auto *x = new (std::nothrow) manifold_ctx;
    if (!x)
        return nullptr;
    x->margin = btScalar(margin);
    x->sat = sat;
    x->pairs.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const mink_case &c = cases[i];
        pair_shapes &p = x->pairs[i];
        p.a.reset(core(c.sa));
        p.b.reset(core(c.sb));
        if (!p.a || !p.b) {
            delete x;
            return nullptr;
        }
        p.ta = bullet_transform(c.qa);
        p.tb = bullet_transform(c.qb);
        p.ra = btScalar(c.sa.radius);
        p.rb = btScalar(c.sb.radius);
        p.boxes = c.sa.type == MINK_SHAPE_BOX && c.sb.type == MINK_SHAPE_BOX;
    }
    return x;
}

void *prepare_sat(const mink_case *cases, size_t n, double margin)
{
    return prepare(cases, n, margin, true);
}

void *prepare_gjk(const mink_case *cases, size_t n, double margin)
{
    return prepare(cases, n, margin, false);
}

void release(void *ctx)
{
    delete static_cast<manifold_ctx *>(ctx);
}

void answer(void *ctx, size_t i, struct mink_manifold *out)
{
    auto *x = static_cast<manifold_ctx *>(ctx);
    const pair_shapes &p = x->pairs[i];
    collide(x, p);
    finish(x->col, p.ra, p.rb, out);
}

double pass(void *ctx)
{
    auto *x = static_cast<manifold_ctx *>(ctx);
    double sum = 0.0;
    for (const pair_shapes &p : x->pairs) {
        collide(x, p);
        finish(x->col, p.ra, p.rb, &x->scratch);
        sum += x->scratch.count + (x->scratch.count ? x->scratch.points[0].separation : 0.0f);
    }
    return sum;
}

}  // namespace

extern "C" const peer_manifold_api peer_bullet_manifold = {"bullet", supports, prepare_sat, release, answer,
                                                           pass};
extern "C" const peer_manifold_api peer_bullet_gjk_manifold = {"bullet-gjk", supports, prepare_gjk, release,
                                                               answer, pass};
