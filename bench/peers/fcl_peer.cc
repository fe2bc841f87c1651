// FCL peer (Debian's libfcl-dev 0.7: double precision, Eigen), its two
// narrowphase solvers called directly on the shapes (fcl::detail::
// GJKSolver_*::shape*), which is what fcl::collide and fcl::distance end up
// calling for a pair of shapes, without the collision objects, the request
// and result objects and the dispatch tables around them.
//
// "fcl-indep": GJKSolver_indep, FCL's own GJK and EPA (GST_INDEP in a
//   collision or distance request)
//   - intersect:   shapeIntersect without contacts (GJK);
//   - distance:    shapeDistance with both closest points (GJK);
//   - penetration: shapeIntersect with contacts (GJK, then EPA); separated
//     pairs get no distance (pen_sep_value = 0: checked on the kind).
// "fcl-ccd": GJKSolver_libccd (GST_LIBCCD, the requests' default): libccd
//   with FCL's own GJK distance and signed-distance extensions
//   - intersect:   shapeIntersect without contacts (libccd's MPR test,
//     exact as a yes/no);
//   - distance:    shapeDistance with both closest points (GJK);
//   - penetration: shapeSignedDistance (GJK, then EPA when overlapping), the
//     solver's exact route: its shapeIntersect with contacts (what
//     fcl::collide with enable_contact runs) is libccd's MPR penetration,
//     which is not the minimum depth (the "ccd-mpr" peer already measures
//     MPR); reports the distance of separated pairs too.
// Both solvers take FCL's closed forms automatically where FCL has them for
// the pair (FCL 0.7: intersect box-box (ODE's dBoxBox), sphere-sphere,
// sphere-box, sphere-capsule; distance sphere-sphere, sphere-box,
// sphere-capsule, capsule-capsule; shapeSignedDistance has none). Default
// solver tolerances (1e-6).
//
// Shapes: fcl::Sphere(r); fcl::Capsule(r, 2h) (FCL's capsule axis is Z:
// the pose is turned by -90 degrees about X first, so FCL's Z lands on the
// case's Y); fcl::Box(2hx, 2hy, 2hz); fcl::Convex (hull): FCL wants the
// hull's faces, so prepare computes the convex hull of the case's points
// (an incremental hull in double precision below, triangles; interior,
// repeated and coplanar points dropped) and hands FCL its vertices and
// triangles (with more than 32 vertices FCL finds support points by walking
// the vertex neighbours of that mesh). FCL has no rounded boxes or hulls
// (no margin): a case with a box or hull of radius > 0 is not taken
// (peer_fcl_supports), and its group is not timed for these peers.
//
// Conventions (checked against the case files): shapeDistance's p1 is on
// A, p2 on B (world), so the normal is p2 - p1. shapeIntersect's contact
// (FCL's ContactPoint: normal from A to B, in the world frame): its closed
// forms keep that and report a positive depth; its GJK/EPA path
// (GJKSolver_indep, generic pairs) reports -depth and FCL 0.7 hands back
// EPA's normal as EPA computed it, in A's local frame (the Minkowski
// difference is built in A's frame and the normal is not turned back). The
// adapter takes the depth's magnitude (a sign convention) and the normal as
// FCL gives it: on a posed A that normal is wrong, and the check says so.
// shapeSignedDistance gives -depth and witness points with p1 on A inside
// B and p2 on B inside A, so the normal is p1 - p2.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <unordered_set>
#include <vector>

#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/detail/gjk_solver_indep.h>
#include <fcl/narrowphase/detail/gjk_solver_libccd.h>

// mink.h names a function after its struct (mink_manifold), which g++'s
// -Wshadow reports as hiding the struct's constructor: C has none.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#include "peers.h"
#pragma GCC diagnostic pop

namespace {

using S = double;
using V3 = fcl::Vector3<S>;
using Tf = fcl::Transform3<S>;

// ------------------------------------------------------------- convex hull
// Incremental hull of points in double precision: triangles wound counter-
// clockwise seen from outside. Returns false for flat or degenerate sets.

struct hull_tri {
    int v[3];
    double n[3], d;
};

bool plane_of(const std::vector<std::array<double, 3>> &p, int a, int b, int c, hull_tri &t)
{
    const double *A = p[size_t(a)].data(), *B = p[size_t(b)].data(), *C = p[size_t(c)].data();
    const double u[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    const double w[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
    double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0))
        return false;
    t.v[0] = a;
    t.v[1] = b;
    t.v[2] = c;
    for (int k = 0; k < 3; ++k)
        t.n[k] = n[k] / len;
    t.d = t.n[0] * A[0] + t.n[1] * A[1] + t.n[2] * A[2];
    return true;
}

inline double above(const hull_tri &t, const std::array<double, 3> &q)
{
    return t.n[0] * q[0] + t.n[1] * q[1] + t.n[2] * q[2] - t.d;
}

bool convex_hull(const std::vector<std::array<double, 3>> &p, std::vector<V3> &verts, std::vector<int> &faces,
                 int &face_count)
{
    const int n = int(p.size());
    if (n < 4)
        return false;
    double scale = 0.0;
    for (const auto &q : p)
        for (double c : q)
            scale = std::max(scale, std::fabs(c));
    const double eps = 1e-11 * std::max(scale, 1e-300);
    auto dist2 = [&](int a, int b) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k)
            s += (p[size_t(a)][size_t(k)] - p[size_t(b)][size_t(k)]) * (p[size_t(a)][size_t(k)] - p[size_t(b)][size_t(k)]);
        return s;
    };
    // A first tetrahedron from extreme points.
    int i0 = 0;
    for (int i = 1; i < n; ++i)
        if (p[size_t(i)][0] < p[size_t(i0)][0])
            i0 = i;
    int i1 = i0;
    for (int i = 0; i < n; ++i)
        if (dist2(i, i0) > dist2(i1, i0))
            i1 = i;
    if (std::sqrt(dist2(i1, i0)) <= eps)
        return false;
    int i2 = -1;
    double best = 0.0;
    for (int i = 0; i < n; ++i) {
        hull_tri t;
        if (plane_of(p, i0, i1, i, t)) {
            // twice the triangle's area over the base: the distance from the line
            const double *A = p[size_t(i0)].data(), *B = p[size_t(i1)].data(), *C = p[size_t(i)].data();
            const double u[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
            const double w[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
            const double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2], cz = u[0] * w[1] - u[1] * w[0];
            const double h = std::sqrt(cx * cx + cy * cy + cz * cz) / std::sqrt(dist2(i0, i1));
            if (h > best) {
                best = h;
                i2 = i;
            }
        }
    }
    if (i2 < 0 || best <= eps)
        return false;
    hull_tri base;
    plane_of(p, i0, i1, i2, base);
    int i3 = -1;
    best = 0.0;
    for (int i = 0; i < n; ++i) {
        const double h = std::fabs(above(base, p[size_t(i)]));
        if (h > best) {
            best = h;
            i3 = i;
        }
    }
    if (i3 < 0 || best <= eps)
        return false;
    std::vector<hull_tri> tris;
    auto add = [&](int a, int b, int c) {
        hull_tri t;
        if (!plane_of(p, a, b, c, t))
            return false;
        tris.push_back(t);
        return true;
    };
    if (above(base, p[size_t(i3)]) > 0.0) {  // i3 above: wind the base the other way
        add(i0, i2, i1);
        add(i0, i1, i3);
        add(i1, i2, i3);
        add(i2, i0, i3);
    } else {
        add(i0, i1, i2);
        add(i1, i0, i3);
        add(i2, i1, i3);
        add(i0, i2, i3);
    }
    if (tris.size() != 4)
        return false;
    std::vector<char> visible;
    std::unordered_set<uint64_t> edges;
    std::vector<std::pair<int, int>> horizon;
    auto key = [](int a, int b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); };
    for (int i = 0; i < n; ++i) {
        if (i == i0 || i == i1 || i == i2 || i == i3)
            continue;
        visible.assign(tris.size(), 0);
        bool any = false;
        for (size_t f = 0; f < tris.size(); ++f)
            if (above(tris[f], p[size_t(i)]) > eps)
                visible[f] = any = 1;
        if (!any)
            continue;  // inside, or on the hull within eps
        edges.clear();
        for (size_t f = 0; f < tris.size(); ++f)
            if (visible[f])
                for (int k = 0; k < 3; ++k)
                    edges.insert(key(tris[f].v[k], tris[f].v[(k + 1) % 3]));
        horizon.clear();
        for (size_t f = 0; f < tris.size(); ++f)
            if (visible[f])
                for (int k = 0; k < 3; ++k) {
                    const int a = tris[f].v[k], b = tris[f].v[(k + 1) % 3];
                    if (!edges.count(key(b, a)))
                        horizon.emplace_back(a, b);
                }
        std::vector<hull_tri> kept;
        kept.reserve(tris.size() + horizon.size());
        for (size_t f = 0; f < tris.size(); ++f)
            if (!visible[f])
                kept.push_back(tris[f]);
        tris.swap(kept);
        for (const auto &e : horizon)
            if (!add(e.first, e.second, i))
                return false;
    }
    // Check: every point inside every face (within a looser bound), every
    // directed edge matched by its reverse (a closed 2-manifold).
    for (const auto &t : tris)
        for (const auto &q : p)
            if (above(t, q) > 1e3 * eps)
                return false;
    edges.clear();
    for (const auto &t : tris)
        for (int k = 0; k < 3; ++k)
            if (!edges.insert(key(t.v[k], t.v[(k + 1) % 3])).second)
                return false;
    for (const auto &t : tris)
        for (int k = 0; k < 3; ++k)
            if (!edges.count(key(t.v[(k + 1) % 3], t.v[k])))
                return false;
    // Only the hull's vertices, renumbered.
    std::vector<int> index(size_t(n), -1);
    verts.clear();
    faces.clear();
    for (const auto &t : tris) {
        faces.push_back(3);
        for (int k = 0; k < 3; ++k) {
            int &m = index[size_t(t.v[k])];
            if (m < 0) {
                m = int(verts.size());
                const auto &q = p[size_t(t.v[k])];
                verts.emplace_back(q[0], q[1], q[2]);
            }
            faces.push_back(m);
        }
    }
    face_count = int(tris.size());
    return true;
}

// ------------------------------------------------------------- shapes

enum shape_kind { K_SPHERE, K_CAPSULE, K_BOX, K_CONVEX };

struct fcl_shape {
    shape_kind kind;
    std::shared_ptr<fcl::ShapeBase<S>> shape;
};

bool build_shape(const case_shape &s, fcl_shape &out)
{
    switch (s.type) {
    case MINK_SHAPE_SPHERE:
        out.kind = K_SPHERE;
        out.shape = std::make_shared<fcl::Sphere<S>>(s.radius);
        return true;
    case MINK_SHAPE_CAPSULE:
        out.kind = K_CAPSULE;
        out.shape = std::make_shared<fcl::Capsule<S>>(s.radius, 2.0 * s.param[0]);
        return true;
    case MINK_SHAPE_BOX:
        if (s.radius != 0.0)
            return false;
        out.kind = K_BOX;
        out.shape = std::make_shared<fcl::Box<S>>(2.0 * s.param[0], 2.0 * s.param[1], 2.0 * s.param[2]);
        return true;
    case MINK_SHAPE_HULL: {
        if (s.radius != 0.0)
            return false;
        std::vector<std::array<double, 3>> pts(s.n);
        for (size_t i = 0; i < pts.size(); ++i)
            pts[i] = {s.pts[3 * i], s.pts[3 * i + 1], s.pts[3 * i + 2]};
        auto verts = std::make_shared<std::vector<V3>>();
        auto faces = std::make_shared<std::vector<int>>();
        int face_count = 0;
        if (!convex_hull(pts, *verts, *faces, face_count))
            return false;
        out.kind = K_CONVEX;
        out.shape = std::make_shared<fcl::Convex<S>>(verts, face_count, faces, false);
        return true;
    }
    default:
        return false;
    }
}

Tf fcl_transform(const case_pose &q, shape_kind kind)
{
    double m[9];
    peer_rotation(q.q, m);
    fcl::Matrix3<S> R;
    R << m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8];
    Tf tf = Tf::Identity();
    tf.linear() = R;
    tf.translation() = V3(q.p[0], q.p[1], q.p[2]);
    if (kind == K_CAPSULE)  // FCL's Z axis onto the case's Y: -90 degrees about X
        tf.rotate(Eigen::AngleAxis<S>(-0.5 * M_PI, V3::UnitX()));
    return tf;
}

// ------------------------------------------------------------- queries

struct fcl_ctx;
// One case's query, typed for its shape pair: fills `a` (may be NULL in the
// timed pass) and returns a number for the pass's sum.
using query_fn = double (*)(fcl_ctx *x, size_t i, int q, peer_answer *a);

struct fcl_ctx {
    size_t n = 0;
    std::vector<fcl_shape> shapes;  // 2n
    std::vector<Tf, Eigen::aligned_allocator<Tf>> tf;  // 2n
    std::vector<query_fn> fn;       // n
    fcl::detail::GJKSolver_indep<S> indep;
    fcl::detail::GJKSolver_libccd<S> ccd;
    std::vector<fcl::ContactPoint<S>> contacts;  // reused: no allocation once grown
};

void set_normal(peer_answer *a, const V3 &v)
{
    const double len = v.norm();
    if (len > 0.0) {
        a->has_normal = 1;
        for (int k = 0; k < 3; ++k)
            a->normal[k] = v[k] / len;
    }
}

// The intersect and the distance, either solver: the same calls.
template <class Solver, class A, class B>
bool intersect_of(const Solver &solver, const A &sa, const Tf &ta, const B &sb, const Tf &tb, peer_answer *a)
{
    const bool hit = solver.shapeIntersect(sa, ta, sb, tb, nullptr);
    if (a)
        a->kind = hit ? CASE_PEN : CASE_SEP;
    return hit;
}

template <class Solver, class A, class B>
double distance_of(const Solver &solver, const A &sa, const Tf &ta, const B &sb, const Tf &tb, peer_answer *a)
{
    S d = 0;
    V3 p1 = V3::Zero(), p2 = V3::Zero();
    const bool sep = solver.shapeDistance(sa, ta, sb, tb, &d, &p1, &p2);
    if (a) {
        if (sep && d > 0.0) {
            a->kind = CASE_SEP;
            a->has_value = 1;
            a->value = d;
            set_normal(a, p2 - p1);
        } else {
            a->kind = CASE_PEN;
        }
    }
    return d;
}

template <class A, class B>
double run_indep(fcl_ctx *x, size_t i, int q, peer_answer *a)
{
    const A &sa = static_cast<const A &>(*x->shapes[2 * i].shape);
    const B &sb = static_cast<const B &>(*x->shapes[2 * i + 1].shape);
    const Tf &ta = x->tf[2 * i], &tb = x->tf[2 * i + 1];
    if (q == CASE_QUERY_INTERSECT)
        return intersect_of(x->indep, sa, ta, sb, tb, a);
    if (q == CASE_QUERY_DISTANCE)
        return distance_of(x->indep, sa, ta, sb, tb, a);
    x->contacts.clear();
    const bool hit = x->indep.shapeIntersect(sa, ta, sb, tb, &x->contacts);
    if (!hit) {
        if (a)
            a->kind = CASE_SEP;
        return 0.0;
    }
    if (x->contacts.empty())
        return 1.0;  // overlapping without a contact: no answer
    // Closed forms may give several points, all with the pair's normal;
    // the deepest carries the depth.
    const fcl::ContactPoint<S> *c = &x->contacts[0];
    for (const auto &k : x->contacts)
        if (std::fabs(k.penetration_depth) > std::fabs(c->penetration_depth))
            c = &k;
    if (a) {
        a->kind = CASE_PEN;
        a->has_value = 1;
        a->value = std::fabs(c->penetration_depth);
        set_normal(a, c->normal);
    }
    return c->penetration_depth;
}

template <class A, class B>
double run_ccd(fcl_ctx *x, size_t i, int q, peer_answer *a)
{
    const A &sa = static_cast<const A &>(*x->shapes[2 * i].shape);
    const B &sb = static_cast<const B &>(*x->shapes[2 * i + 1].shape);
    const Tf &ta = x->tf[2 * i], &tb = x->tf[2 * i + 1];
    if (q == CASE_QUERY_INTERSECT)
        return intersect_of(x->ccd, sa, ta, sb, tb, a);
    if (q == CASE_QUERY_DISTANCE)
        return distance_of(x->ccd, sa, ta, sb, tb, a);
    S d = 0;
    V3 p1 = V3::Zero(), p2 = V3::Zero();
    x->ccd.shapeSignedDistance(sa, ta, sb, tb, &d, &p1, &p2);
    if (a && std::isfinite(d)) {
        a->has_value = 1;
        if (d > 0.0) {
            a->kind = CASE_SEP;
            a->value = d;
            set_normal(a, p2 - p1);
        } else {
            a->kind = CASE_PEN;
            a->value = -d;
            set_normal(a, p1 - p2);
        }
    }
    return d;
}

template <class A, bool Indep>
query_fn pick_b(shape_kind kb)
{
    switch (kb) {
    case K_SPHERE: return Indep ? run_indep<A, fcl::Sphere<S>> : run_ccd<A, fcl::Sphere<S>>;
    case K_CAPSULE: return Indep ? run_indep<A, fcl::Capsule<S>> : run_ccd<A, fcl::Capsule<S>>;
    case K_BOX: return Indep ? run_indep<A, fcl::Box<S>> : run_ccd<A, fcl::Box<S>>;
    case K_CONVEX: return Indep ? run_indep<A, fcl::Convex<S>> : run_ccd<A, fcl::Convex<S>>;
    }
    return nullptr;
}

template <bool Indep>
query_fn pick_fn(shape_kind ka, shape_kind kb)
{
    switch (ka) {
    case K_SPHERE: return pick_b<fcl::Sphere<S>, Indep>(kb);
    case K_CAPSULE: return pick_b<fcl::Capsule<S>, Indep>(kb);
    case K_BOX: return pick_b<fcl::Box<S>, Indep>(kb);
    case K_CONVEX: return pick_b<fcl::Convex<S>, Indep>(kb);
    }
    return nullptr;
}

int supports_shape(const case_shape &s)
{
    switch (s.type) {
    case MINK_SHAPE_SPHERE:
    case MINK_SHAPE_CAPSULE:
        return 1;
    case MINK_SHAPE_BOX:
    case MINK_SHAPE_HULL:
        return s.radius == 0.0;  // FCL has no rounding
    default:
        return 0;
    }
}

template <bool Indep>
void *prepare(const mink_case *cases, size_t n)
{
    auto *x = new (std::nothrow) fcl_ctx;
    if (!x)
        return nullptr;
    try {
        x->n = n;
        x->shapes.resize(2 * n);
        x->tf.reserve(2 * n);
        x->fn.reserve(n);
        x->contacts.reserve(8);
        for (size_t i = 0; i < n; ++i) {
            const mink_case &c = cases[i];
            if (!build_shape(c.sa, x->shapes[2 * i]) || !build_shape(c.sb, x->shapes[2 * i + 1])) {
                delete x;
                return nullptr;
            }
            x->tf.push_back(fcl_transform(c.qa, x->shapes[2 * i].kind));
            x->tf.push_back(fcl_transform(c.qb, x->shapes[2 * i + 1].kind));
            x->fn.push_back(pick_fn<Indep>(x->shapes[2 * i].kind, x->shapes[2 * i + 1].kind));
        }
    } catch (...) {
        delete x;
        return nullptr;
    }
    return x;
}

void release(void *ctx)
{
    delete static_cast<fcl_ctx *>(ctx);
}

void answer(void *ctx, size_t i, int q, peer_answer *a)
{
    auto *x = static_cast<fcl_ctx *>(ctx);
    try {
        x->fn[i](x, i, q, a);
    } catch (...) {
        // FCL throws on some failures (FailedAtThisConfiguration): no answer
        a->kind = -1;
        a->has_value = a->has_normal = 0;
    }
}

double pass(void *ctx, int q)
{
    auto *x = static_cast<fcl_ctx *>(ctx);
    double sum = 0.0;
    for (size_t i = 0; i < x->n; ++i) {
        try {
            sum += x->fn[i](x, i, q, nullptr);
        } catch (...) {
            sum += 1.0;
        }
    }
    return sum;
}

}  // namespace

extern "C" int peer_fcl_supports(const mink_case *c)
{
    return supports_shape(c->sa) && supports_shape(c->sb);
}

#define FCL_QUERIES ((1u << CASE_QUERY_INTERSECT) | (1u << CASE_QUERY_DISTANCE) | (1u << CASE_QUERY_PENETRATION))

extern "C" const peer_api peer_fcl_indep = {"fcl-indep", FCL_QUERIES, 0, prepare<true>, release, answer, pass};
extern "C" const peer_api peer_fcl_ccd = {"fcl-ccd", FCL_QUERIES, 1, prepare<false>, release, answer, pass};
