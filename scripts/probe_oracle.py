#!/usr/bin/python3
"""Probe cases with exact answers, independent of GJK and EPA.

Random pairs of shapes (hulls of several point distributions: on a sphere,
in a cube, flat, needle-thin, anisotropic, on a coarse lattice with repeated
and coplanar points; boxes, spheres, capsules; sometimes rounded), sizes from
1e-2 to 1e2, random rotations, offsets from deep overlap to far apart. Each
answer comes from the convex hull (qhull, double precision) of the Minkowski
difference of the cores, D = B - A:

  origin outside D: distance = the least distance from the origin to D's
      boundary triangles, normal = towards that closest point;
  origin inside D:  depth = the least distance from the origin to a facet
      plane, normal = minus that facet's outward normal (n = 0 0 0 when
      another facet with a different normal is as shallow: a tie);

then the radii are applied. Cases in the touching band (|answer| < 1e-3 L,
either kind accepted) and beyond MINK_MAX_MAGNITUDE are left out.

--scenes writes what an engine's narrowphase sees instead, for FORMAT.md's
local tolerance (mink-cases check FILE --tol local): COUNT cases (default
300), the five distributions in turn, each pair at a controlled signed gap
from contact (touching, within the touching band, up to 2x the contact scale
apart, up to half of it into each other), A and B swapped half the time:

  ground  a box, polygon prism (flat top) or terrain hull (tilted top facets)
          slab 20-1000 m across, 0.1-4 m thick, level, turned or tilted up
          to 0.5 rad, with a shape 1-20 cm across on, near or slightly into
          its top face (80 %), rim edge or corner; a third resting flat;
  plank   planks and plates (box or prism, longest side over thinnest
          50-1000, 0.2-10 m long) stacked, crossed or at random on another,
          a small shape or a block;
  needle  capsules and hulls 0.1-10 m long, length over thickness 50-1000,
          poking into, lying on or crossing another needle, a plank, a
          sphere or a block (gaps at the needle's thickness half the time);
  ratio   a shape 10 to 1e4 times smaller than its partner (2-1000 m
          across), on a face, edge or vertex of it;
  far     pairs from the above (slabs to 200 m) or of shapes 0.1-10 m
          across, moved up to 5e4 from the origin (half of them along a
          random direction, 1e3 to 5e4 out).

Every input number written is a float, so the answer is exact for what the kernel
reads; touching pairs are kept (FORMAT.md writes exact touching as pen 0).
Sphere and capsule pairs (a flat Minkowski difference) are answered from the
closest points of their core segments.

--manifolds writes resting contacts with exact patches (FORMAT.md,
"Manifolds") instead: boxes on slabs and on boxes, hull facets on faces,
capsules lying or tilted on faces, capsules side by side or crossed (at 0.4
rad or more), box edges and corners on faces, anything on anything, and
speculative gaps; some rounded, A and B swapped half the time. The patch is
the overlap of the cores' features within 1e-9 L of the contact plane, clipped
in double; pairs whose cores rise less than the depth plus 0.045 beside their
features are left out (the patch must hold at margins 0 and 0.025).

--casts writes linear casts (FORMAT.md, "Casts") of the same shapes instead:
B starting apart from A and moving past, into or beside it (A moving too
half the time), each shape keeping its rotation; the first time within the
target from bisection on the exact distance of the translating difference
(convex in t), or the least distance of a miss. A quarter (ids graze-) set
the target 0.3 to 4 tolerances above or below the least distance: a hit
that only just dips within it, or a miss that only just stays out. Starts
within the target and grazes within 1e-6 are left out.

--degenerate writes the inputs degenerate.cases holds, drawn afresh: hulls
with duplicated, coplanar or collinear points or one point, zero-radius
spheres and capsules, tiny (1e-4) and elongated (1e-3) shapes, pairs far
from the origin, identical shapes at one pose, boxes exactly flush on dyadic
coordinates, parallel faces, deep overlaps, small gaps of rounded shapes.
Flat differences (two flat cores) are answered in their own plane.

--traj writes COUNT trajectories (default 10) of 120 frames, ids
trajNN/fMMM: B flying into A and back out while both turn and A drifts, for
checks with a cache carried from frame to frame (mink-cases --cache).

--toi writes casts where the shapes also turn (mink_toi): spinning shapes
passing or hitting, turning hulls, planks and needles turning near a shape,
and starts within the target or overlapping (up to 0.4 of the smaller size);
the first time within the target from conservative advancement on the exact
distance (see "rotating casts" below). Grazes, overlapping starts whose exact
witnesses cannot lie inside the other shape, and cases that do not converge
are left out.

--specks writes small hulls deep in long capsules (README's known limit): a
hull of 4-64 points 3 mm to 10 cm across (a fifth of them rounded) whose
centroid lies within 0.6 of its size of the core of a capsule 2-40 m long
(radius 0-1 m, bare segments 30 %), 0.1-100 m from the origin, A and B
swapped half the time; answered like --scenes (check with --tol local).

Usage: probe_oracle.py SEED OUT.cases [COUNT]   (COUNT default 1000)
       probe_oracle.py --scenes [--only ground,plank,needle,ratio,far] SEED OUT.cases [COUNT]
       probe_oracle.py --manifolds SEED OUT.cases [COUNT]   (COUNT default 400)
       probe_oracle.py --casts SEED OUT.cases [COUNT]   (COUNT default 300)
       probe_oracle.py --toi SEED OUT.cases [COUNT]   (COUNT default 100)
       probe_oracle.py --degenerate SEED OUT.cases [COUNT]   (COUNT default 260)
       probe_oracle.py --traj SEED OUT.cases [COUNT]   (COUNT trajectories, default 10)
       probe_oracle.py --specks SEED OUT.cases [COUNT]   (COUNT default 5000)
(needs python3-scipy)
"""
import math
import sys

import numpy as np
from scipy.spatial import ConvexHull

MAX_MAGNITUDE = 1e5  # include/mink/mink.h: larger inputs are errors by design


def rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def hull_points(rng, kind, n, size):
    if kind == "sphere":
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1)[:, None]
    elif kind == "cube":
        p = rng.uniform(-1, 1, size=(n, 3))
    elif kind == "flat":
        p = rng.uniform(-1, 1, size=(n, 3)) * np.array([1, 1, 1e-3])
    elif kind == "needle":
        p = rng.uniform(-1, 1, size=(n, 3)) * np.array([1, 0.02, 0.02])
    elif kind == "aniso":
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1)[:, None]
        p *= rng.uniform(0.05, 1, size=3)
    else:  # lattice: repeated and coplanar points
        p = rng.integers(-2, 3, size=(n, 3)).astype(float) / 2
    return np.round(p * size, 6)


def random_shape(rng, size):
    """(name for the group, case-file text, core points, radius)"""
    u = rng.uniform()
    radius = float(np.round(rng.uniform(0, 0.2) * size, 6)) if rng.uniform() < 0.2 else 0.0
    if u < 0.12:
        h = np.round(rng.uniform(0.05, 1, 3) * size, 6)
        core = np.array([[sx * h[0], sy * h[1], sz * h[2]] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        return "box", "box %r %r %r %r" % (radius, *map(float, h)), core, radius
    if u < 0.18:
        r = float(np.round(rng.uniform(0.1, 1) * size, 6))
        return "sphere", "sphere %r" % r, np.zeros((1, 3)), r
    if u < 0.25:
        r, h = (float(np.round(rng.uniform(0.05, 1) * size, 6)) for _ in range(2))
        return "capsule", "capsule %r %r" % (r, h), np.array([[0, -h, 0], [0, h, 0]]), r
    kind = str(rng.choice(["sphere", "cube", "flat", "needle", "aniso", "lattice"]))
    n = int(rng.choice([4, 5, 8, 16, 31, 32, 33, 64, 100]))
    p = hull_points(rng, kind, n, size)
    return "h" + kind, "hull %r %d %s" % (radius, n, " ".join(repr(float(v)) for v in p.ravel())), p, radius


def closest_on_triangle(a, b, c):
    """The point of triangle abc closest to the origin (Voronoi regions)."""
    ab, ac = b - a, c - a
    d1, d2 = -(ab @ a), -(ac @ a)
    if d1 <= 0 and d2 <= 0:
        return a
    d3, d4 = -(ab @ b), -(ac @ b)
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab
    d5, d6 = -(ab @ c), -(ac @ c)
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0 and d4 - d3 >= 0 and d5 - d6 >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)
    s = 1 / (va + vb + vc)
    return a + ab * (vb * s) + ac * (vc * s)


def answer(core_a, ra, pose_a, core_b, rb, pose_b):
    wa = core_a @ rotation(pose_a[3:]).T + pose_a[:3]
    wb = core_b @ rotation(pose_b[3:]).T + pose_b[:3]
    d = (wb[:, None, :] - wa[None, :, :]).reshape(-1, 3)
    try:
        hull = ConvexHull(d)
    except Exception:  # D flat (two segments, a point and a segment): not probed
        return None
    big = max(np.abs(wa).max(), np.abs(wb).max())
    scale = max(1.0, big + max(ra, rb))
    offset = hull.equations[:, 3]
    if offset.max() < 0:  # the origin inside D: the cores overlap
        k = int(np.argmax(offset))
        normal = -hull.equations[k, :3]
        near = np.where(offset >= offset[k] - 1e-7 * scale)[0]
        if any(hull.equations[j, :3] @ hull.equations[k, :3] < 1 - 1e-9 for j in near):
            normal = np.zeros(3)
        return "pen", -offset[k] + ra + rb, normal, scale
    best, closest = math.inf, None
    for s in hull.simplices:
        c = closest_on_triangle(d[s[0]], d[s[1]], d[s[2]])
        if np.linalg.norm(c) < best:
            best, closest = np.linalg.norm(c), c
    normal = closest / best if best > 0 else np.zeros(3)
    gap = best - ra - rb
    return ("sep", gap, normal, scale) if gap > 0 else ("pen", -gap, normal, scale)


# ------------------------------------------------------------------ scenes
#
# What an engine's narrowphase sees (FORMAT.md, "Local tolerance"): small shapes on
# big ground slabs, planks and plates, needles, size ratios to 1e4, pairs far from
# the origin. Every number written is a float (what the kernel reads), so the exact
# answer is the answer for the kernel's own input. Touching pairs are kept: resting
# contact is what these scenes are about (the local rule accepts either kind there
# and checks the signed distance).

SCENES = ("ground", "plank", "needle", "ratio", "far")
FAR = 5e4  # the far offsets: pairs up to this far from the origin
AXES = np.eye(3)


def f32(x):
    """x rounded to float (as doubles: what the kernel reads, exactly)."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


def text_of(values):
    return " ".join(repr(float(v)) for v in np.ravel(values))


def exact_answer(res):
    """(kind, value, n) with an exactly touching pair written as FORMAT.md's pen 0."""
    kind, value, n = res
    return ("pen", value, np.zeros(3)) if value == 0 else (kind, value, n)


def case_line(case_id, a, pose_a, b, pose_b, answer):
    """A case line: the pair and its expectation (kind, value, n)."""
    kind, value, n = answer
    return "%s %s %s %s %s %s %r %s\n" % (case_id, a.text(), text_of(pose_a), b.text(), text_of(pose_b), kind,
                                          float(value), text_of(n))


class Shape:
    """A case-file shape with float parameters, its local core points and radius."""

    def __init__(self, name, kind, radius, half=None, points=None):
        self.name, self.kind, self.radius = name, kind, float(f32(radius))
        if kind == "sphere":
            self.params, self.core = "", np.zeros((1, 3))
        elif kind == "capsule":
            h = float(f32(half))
            self.params, self.core = repr(h), np.array([[0.0, -h, 0.0], [0.0, h, 0.0]])
        elif kind == "box":
            h = f32(half)
            self.params = text_of(h)
            self.core = np.array([[sx * h[0], sy * h[1], sz * h[2]]
                                  for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        else:
            self.core = f32(points).reshape(-1, 3)
            self.params = "%d %s" % (len(self.core), text_of(self.core))

    def text(self):
        return " ".join(t for t in (self.kind, repr(self.radius), self.params) if t)

    def size(self):
        """FORMAT.md's l: largest |local core coordinate| plus the radius."""
        return float(np.abs(self.core).max()) + self.radius


def unit(v):
    return v / np.linalg.norm(v)


def random_unit(rng):
    return unit(rng.normal(size=3))


def perpendicular(rng, u):
    """A random unit vector perpendicular to the unit vector u."""
    v = rng.normal(size=3)
    return unit(v - (v @ u) * u)


def quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def quat_axis_angle(axis, angle):
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * unit(np.asarray(axis, float))])


def random_quat(rng):
    return unit(rng.normal(size=4))


def quat_between(a, b):
    """The shortest-arc rotation taking unit vector a to unit vector b."""
    c = a @ b
    if c < -1 + 1e-12:  # opposite: half a turn about any perpendicular axis
        axis = np.cross(a, AXES[int(np.argmin(np.abs(a)))])
        return np.concatenate([[0.0], unit(axis)])
    return unit(np.concatenate([[1 + c], np.cross(a, b)]))


def resting_or_random(rng, u, p_rest):
    """With probability p_rest a face of the shape (a local axis) turned
    against the contact normal u, slightly tilted; else any orientation."""
    if rng.uniform() < p_rest:
        return aligned(rng, AXES[rng.integers(3)] * rng.choice([-1, 1]), -u, small_tilt(rng))
    return random_quat(rng)


def aligned(rng, axis, target, tilt):
    """A rotation taking the local unit `axis` to `target`, spun about target at
    random, then tilted by `tilt` rad about a random perpendicular."""
    q = quat_mul(quat_axis_angle(target, rng.uniform(0, 2 * math.pi)), quat_between(axis, target))
    return quat_mul(quat_axis_angle(perpendicular(rng, target), tilt), q) if tilt else q


def small_tilt(rng):
    """Half the time exactly aligned, else off by 1e-4 to 0.1 rad."""
    return 0.0 if rng.uniform() < 0.5 else 10 ** rng.uniform(-4, -1)


def world_core(shape, p, q):
    return shape.core @ rotation(unit(q)).T + p


def random_gap(rng, l):
    """Signed gap for a contact of scale l: touching, within the touching band,
    just apart, slightly into."""
    v = rng.uniform()
    if v < 0.2:
        return 0.0
    if v < 0.4:
        return l * 10 ** rng.uniform(-6, -3) * rng.choice([-1.0, 1.0])
    if v < 0.7:
        return l * 10 ** rng.uniform(-3, 0.3)
    return -l * 10 ** rng.uniform(-3, -0.3)


def contact_on(rng, shape, p, q, mode, want=None):
    """A point c on shape's core surface (world) and a unit outward normal u there.
    mode face: in a facet (area-weighted); edge: on an edge between two facets, u
    between their normals; vertex: the support point along a random u.
    want(u) selects the facets (the first of an edge's two) or vertex directions."""
    w = world_core(shape, p, q)
    hull = None
    if mode != "vertex" and len(w) >= 4:
        try:
            hull = ConvexHull(w)
        except Exception:  # a flat core: vertex contacts only
            hull = None
    if hull is not None:
        normals = hull.equations[:, :3]
        ok = np.array([want is None or bool(want(n)) for n in normals])
        tri = w[hull.simplices]
        if mode == "face":
            area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1) * ok
            if area.sum() > 0:
                k = int(rng.choice(len(area), p=area / area.sum()))
                return rng.dirichlet([1, 1, 1]) @ tri[k], normals[k]
        else:
            edges = [(i, j, k) for i in np.flatnonzero(ok) for k, j in enumerate(hull.neighbors[i])
                     if normals[i] @ normals[j] < 1 - 1e-9]
            if edges:
                i, j, k = edges[int(rng.integers(len(edges)))]
                ends = [v for m, v in enumerate(hull.simplices[i]) if m != k]
                t = rng.uniform()
                return w[ends[0]] + t * (w[ends[1]] - w[ends[0]]), unit(t * normals[i] + (1 - t) * normals[j])
    for _ in range(1000):
        u = random_unit(rng)
        if want is None or want(u):
            break
    return w[int(np.argmax(w @ u))], u


def place(shape, q, c, u, gap, r_other):
    """The position of `shape` (rotation q) whose lowest point along u lies gap
    beyond c's rounded surface (radius r_other): a separation of exactly gap along u."""
    low = (shape.core @ rotation(unit(q)).T @ u).min() - shape.radius
    return c + u * (r_other + gap - low)


def random_mode(rng, face, edge):
    v = rng.uniform()
    return "face" if v < face else "edge" if v < face + edge else "vertex"


def small_shape(rng, l):
    """Sphere, capsule, box or hull (some rounded) of size l."""
    u = rng.uniform()
    r = l * rng.uniform(0.05, 0.5) if rng.uniform() < 0.25 else 0.0
    if u < 0.15:
        return Shape("sphere", "sphere", l)
    if u < 0.3:
        rc = l * rng.uniform(0.1, 0.6)
        return Shape("capsule", "capsule", rc, half=l - rc)
    c = l - r
    if u < 0.55:
        h = c * rng.uniform(0.2, 1, 3)
        h[rng.integers(3)] = c
        return Shape("box", "box", r, half=h)
    kind = str(rng.choice(["sphere", "cube", "aniso", "lattice"]))
    p = hull_points(rng, kind, int(rng.choice([4, 5, 8, 12, 20, 32, 64])), 1.0)
    m = np.abs(p).max()
    if m == 0:
        p, m = np.eye(3), 1.0
    return Shape("h" + kind, "hull", r, points=p * (c / m))


def slab(rng, lo=10.0, hi=500.0):
    """A ground slab lo*2 to hi*2 across, 0.1 to 4 m thick (at most 1/20 of its
    width): a box, a polygon prism (flat top) or a terrain hull (tilted top facets)."""
    hx, hz = 10 ** rng.uniform(math.log10(lo), math.log10(hi), 2)
    hy = min(10 ** rng.uniform(-1.3, 0.3), 0.05 * min(hx, hz))
    v = rng.uniform()
    if v < 0.5:
        return Shape("box", "box", 0.0, half=[hx, hy, hz])
    if v < 0.75:
        a = np.sort(rng.uniform(0, 2 * math.pi, int(rng.integers(3, 13))))
        ring = np.stack([hx * np.cos(a), hz * np.sin(a)], axis=1)
        pts = [[x, s * hy, z] for s in (-1, 1) for x, z in ring]
        return Shape("prism", "hull", 0.0, points=pts)
    pts = rng.uniform(-1, 1, (int(rng.integers(12, 49)), 3)) * [hx, hy, hz]
    return Shape("terrain", "hull", 0.0, points=pts)


def plank_shape(rng, length):
    """A plank (one long side) or plate (two), longest side over thinnest 50 to
    1000; box or polygon prism, some rounded. Returns the shape and its thin axis."""
    aspect = 10 ** rng.uniform(math.log10(50), 3)
    t = length / aspect
    plate = rng.uniform() < 0.5
    w = length * rng.uniform(0.3, 1) if plate else t * 10 ** rng.uniform(0, math.log10(aspect) / 2)
    order = rng.permutation(3)  # order[0] long, order[1] wide, order[2] thin
    r = t * rng.uniform(0.1, 0.5) if rng.uniform() < 0.25 else 0.0
    half = np.zeros(3)
    half[order] = [length - r, w - r, t - r]
    name = "plate" if plate else "plank"
    if rng.uniform() < 0.6:
        return Shape(name, "box", r, half=half), int(order[2])
    a = np.sort(rng.uniform(0, 2 * math.pi, int(rng.integers(4, 13))))
    pts = np.zeros((2 * len(a), 3))
    pts[:, order[0]] = np.tile(half[order[0]] * np.cos(a), 2)
    pts[:, order[1]] = np.tile(half[order[1]] * np.sin(a), 2)
    pts[:, order[2]] = np.repeat([-half[order[2]], half[order[2]]], len(a))
    return Shape("h" + name, "hull", r, points=pts), int(order[2])


def needle_shape(rng, length):
    """A capsule or hull (prism, spike or random points) length/thickness 50 to
    1000. Returns the shape, its axis and its thickness."""
    aspect = 10 ** rng.uniform(math.log10(50), 3)
    t = length / aspect
    if rng.uniform() < 0.4:
        return Shape("needle", "capsule", t, half=length - t), 1, t
    axis = int(rng.integers(3))
    others = [k for k in range(3) if k != axis]
    v = rng.uniform()
    if v < 0.7:  # a prism, or a spike (one end a point)
        a = np.sort(rng.uniform(0, 2 * math.pi, int(rng.integers(3, 9))))
        ring = np.zeros((len(a), 3))
        ring[:, others[0]], ring[:, others[1]] = t * np.cos(a), t * np.sin(a)
        top = ring.copy()
        top[:, axis] = length
        bottom = ring.copy()
        bottom[:, axis] = -length
        if v < 0.35:
            bottom = np.zeros((1, 3))
            bottom[0, axis] = -length
        return Shape("hneedle", "hull", 0.0, points=np.concatenate([top, bottom])), axis, t
    pts = rng.uniform(-1, 1, (int(rng.integers(6, 33)), 3)) * t
    pts[:, axis] *= length / t
    return Shape("hneedle", "hull", 0.0, points=pts), axis, t


def block_shape(rng, size):
    """A box, hull, capsule or sphere of size `size` (a big partner), some rounded."""
    v = rng.uniform()
    r = size * rng.uniform(0.01, 0.2) if rng.uniform() < 0.15 else 0.0
    c = size - r
    if v < 0.35:
        h = c * rng.uniform(0.2, 1, 3)
        h[rng.integers(3)] = c
        return Shape("box", "box", r, half=h)
    if v < 0.8:
        kind = str(rng.choice(["sphere", "cube", "aniso", "lattice"]))
        p = hull_points(rng, kind, int(rng.choice([8, 16, 32, 64, 100])), 1.0)
        m = np.abs(p).max()
        if m == 0:
            p, m = np.eye(3), 1.0
        return Shape("h" + kind, "hull", r, points=p * (c / m))
    if v < 0.9:
        rc = size * rng.uniform(0.1, 0.5)
        return Shape("capsule", "capsule", rc, half=size - rc)
    return Shape("sphere", "sphere", size)


def scene_ground(rng, spread=300.0, hi=500.0):
    """A small shape (1 to 20 cm) on, near or slightly into a ground slab."""
    a = slab(rng, hi=hi)
    v = rng.uniform()
    yaw = quat_axis_angle(AXES[1], rng.uniform(0, 2 * math.pi))
    if v < 0.5:
        qa = np.array([1.0, 0, 0, 0])
    elif v < 0.75:
        qa = yaw
    else:  # tilted up to 0.5 rad
        qa = quat_mul(quat_axis_angle(perpendicular(rng, AXES[1]), rng.uniform(0, 0.5)), yaw)
    pa = np.array([rng.uniform(-spread, spread), rng.uniform(-20, 5), rng.uniform(-spread, spread)])
    up = rotation(qa) @ AXES[1]
    b = small_shape(rng, 10 ** rng.uniform(math.log10(0.005), -1))
    c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.8, 0.1), want=lambda n: n @ up > 0.5)
    qb = resting_or_random(rng, u, 0.35)  # resting on a face (of a box: flat on the ground)
    pb = place(b, qb, c, u, random_gap(rng, b.size()), a.radius)
    return "ground-" + a.name, a, pa, qa, b, pb, qb


def scene_plank(rng):
    """Planks and plates (aspect 50 to 1000, 0.2 to 10 m long) against another
    (stacked, crossed or at random), a small shape or a block."""
    length = 10 ** rng.uniform(-1, 0.7)
    a, _ = plank_shape(rng, length)
    pa, qa = rng.uniform(-5, 5, 3), random_quat(rng)
    v = rng.uniform()
    thin_b = None
    if v < 0.5:
        b, thin_b = plank_shape(rng, length * 10 ** rng.uniform(-0.5, 0.5))
        variant = "plank"
    elif v < 0.75:
        b, variant = small_shape(rng, length * 10 ** rng.uniform(-2.5, -0.5)), "small"
    else:
        b, variant = block_shape(rng, length * 10 ** rng.uniform(-1, 0)), "block"
    c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.6, 0.2))
    if thin_b is not None and rng.uniform() < 0.6:  # flat on it: stacked or crossed
        qb = aligned(rng, AXES[thin_b] * rng.choice([-1, 1]), -u, small_tilt(rng))
    else:
        qb = random_quat(rng)
    thin = min(2 * np.abs(a.core).max(axis=0).min(), 2 * np.abs(b.core).max(axis=0).min()) + a.radius + b.radius
    scale = min(a.size(), b.size()) if rng.uniform() < 0.5 else max(thin, 1e-3 * length)
    pb = place(b, qb, c, u, random_gap(rng, scale), a.radius)
    return "plank-" + variant, a, pa, qa, b, pb, qb


def scene_needle(rng):
    """Needles (capsules or hulls, 0.1 to 10 m long, aspect 50 to 1000) poking
    into, lying on or crossing another needle, a plank, a sphere or a block."""
    length = 10 ** rng.uniform(-1.3, 0.7)
    nd, axis, t = needle_shape(rng, length)
    v = rng.uniform()
    if v < 0.3:
        a, variant = needle_shape(rng, length * 10 ** rng.uniform(-0.5, 0.5))[0], "needle"
    elif v < 0.5:
        a, variant = plank_shape(rng, length * 10 ** rng.uniform(-0.3, 1))[0], "plank"
    elif v < 0.65:
        a, variant = Shape("sphere", "sphere", length * 10 ** rng.uniform(-1.5, 0.5)), "sphere"
    else:
        a, variant = block_shape(rng, length * 10 ** rng.uniform(-1.5, 0.7)), "block"
    pa, qa = rng.uniform(-5, 5, 3), random_quat(rng)
    c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.5, 0.25))
    v = rng.uniform()
    if v < 0.35:  # poking: the needle's axis along u
        qn = aligned(rng, AXES[axis] * rng.choice([-1, 1]), u, small_tilt(rng))
    elif v < 0.7:  # lying: the axis across u
        qn = aligned(rng, AXES[axis], perpendicular(rng, u), small_tilt(rng))
    else:
        qn = random_quat(rng)
    scale = min(a.size(), nd.size()) if rng.uniform() < 0.5 else t
    pn = place(nd, qn, c, u, random_gap(rng, scale), a.radius)
    return "needle-" + variant, a, pa, qa, nd, pn, qn


def scene_ratio(rng, hi=500.0):
    """A small shape 10 to 1e4 times smaller than its partner (1 to 1000 across)."""
    big_size = 10 ** rng.uniform(0, math.log10(hi))
    a = block_shape(rng, big_size)
    b = small_shape(rng, big_size / 10 ** rng.uniform(1, 4))
    pa, qa = rng.uniform(-1, 1, 3) * big_size, random_quat(rng)
    c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.5, 0.25))
    qb = resting_or_random(rng, u, 0.25)
    pb = place(b, qb, c, u, random_gap(rng, b.size()), a.radius)
    return "ratio-" + a.kind, a, pa, qa, b, pb, qb


def scene_pair(rng):
    """Two shapes 0.1 to 10 m across near contact (for far offsets)."""
    a = block_shape(rng, 10 ** rng.uniform(-1.3, 0.7))
    b = small_shape(rng, 10 ** rng.uniform(-1.3, 0.7))
    pa, qa = np.zeros(3), random_quat(rng)
    c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.5, 0.25))
    qb = random_quat(rng)
    return "pair", a, pa, qa, b, place(b, qb, c, u, random_gap(rng, min(a.size(), b.size())), a.radius), qb


def scene_far(rng):
    """A pair from the other distributions (slabs to 200 m, partners to 100 m) or
    two shapes 0.1 to 10 m across, moved up to 5e4 from the origin."""
    v = rng.uniform()
    if v < 0.25:
        scene = scene_ground(rng, spread=0.0, hi=100.0)
    elif v < 0.45:
        scene = scene_plank(rng)
    elif v < 0.65:
        scene = scene_needle(rng)
    elif v < 0.8:
        scene = scene_ratio(rng, hi=50.0)
    else:
        scene = scene_pair(rng)
    name, a, pa, qa, b, pb, qb = scene
    reach = max(a.size(), b.size()) + np.abs(pb - pa).max()
    if rng.uniform() < 0.5:  # anywhere in the cube
        off = rng.uniform(-1, 1, 3) * (FAR - reach)
    else:  # along a random direction, 1e3 to 5e4 out
        off = random_unit(rng) * 10 ** rng.uniform(3, math.log10(FAR))
        off *= min(1.0, (FAR - reach) / np.abs(off).max())
    return "far-" + name.split("-")[0], a, off, qa, b, pb - pa + off, qb


def segment_closest(p1, q1, p2, q2):
    """Closest points of segments p1q1 and p2q2 (either may be a point): the best
    of the four endpoint-to-segment pairs and, when not parallel, the interior
    solution (well conditioned where it is the answer)."""
    def onto(x, p, q):
        d = q - p
        dd = d @ d
        return p if dd == 0 else p + min(1.0, max(0.0, (x - p) @ d / dd)) * d

    cands = [(p1, onto(p1, p2, q2)), (q1, onto(q1, p2, q2)), (onto(p2, p1, q1), p2), (onto(q2, p1, q1), q2)]
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, b, e, c, f = d1 @ d1, d1 @ d2, d2 @ d2, d1 @ r, d2 @ r
    den = a * e - b * b
    if den > 1e-12 * a * e:
        s, t = (b * f - c * e) / den, (a * f - b * c) / den
        if 0 < s < 1 and 0 < t < 1:
            cands.append((p1 + s * d1, p2 + t * d2))
    return min(cands, key=lambda ab: np.linalg.norm(ab[1] - ab[0]))


def closest_to_origin(points, hull):
    """The point of conv(points) (hull: their qhull hull, the origin outside it)
    closest to the origin, and the unit normal towards it. The candidates: the
    origin's projection onto each facet plane it is in front of, when inside
    that facet (a sign test per edge), and the clamped closest point of every
    hull edge. Unlike barycentric region tests (differences of products of edge
    lengths), this stays exact to rounding on the sliver facets that shapes 1e4
    apart in size give the Minkowski difference."""
    tri = points[hull.simplices]
    normals, offsets = hull.equations[:, :3], hull.equations[:, 3]
    best, normal = math.inf, None
    # facets the origin is in front of or on (offset 0: a pair that exactly
    # touches, its closest point the origin itself; left out, only the edges
    # were left and a box resting on a slab came out 10 apart)
    front = np.flatnonzero(offsets >= 0)
    if len(front):
        x = -offsets[front, None] * normals[front]
        t = tri[front]
        side = [np.einsum("ij,ij->i", np.cross(t[:, (k + 1) % 3] - t[:, k], x - t[:, k]), normals[front])
                for k in range(3)]
        turn = np.einsum("ij,ij->i", np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), normals[front])
        # a triangle of no area (qhull's triangulation of a merged facet can
        # give one) has no inside: with turn 0 every sign test passed, and a
        # needle 2.3 cm from a block came out touching it
        inside = np.all([sd * np.sign(turn) >= 0 for sd in side], axis=0) & (turn != 0)
        if inside.any():
            k = int(np.argmin(np.where(inside, offsets[front], np.inf)))
            best, normal = offsets[front][k], -normals[front][k]  # the closest point is x[k]
    edges = np.unique(np.sort(np.concatenate([hull.simplices[:, [0, 1]], hull.simplices[:, [1, 2]],
                                              hull.simplices[:, [2, 0]]]), axis=1), axis=0)
    a, b = points[edges[:, 0]], points[edges[:, 1]]
    d = b - a
    dd = np.einsum("ij,ij->i", d, d)
    t = np.clip(np.divide(-np.einsum("ij,ij->i", a, d), dd, out=np.zeros_like(dd), where=dd > 0), 0, 1)
    c = a + t[:, None] * d
    dist = np.linalg.norm(c, axis=1)
    k = int(np.argmin(dist))
    if dist[k] < best:
        best, normal = dist[k], c[k] / dist[k] if dist[k] > 0 else np.zeros(3)
    return best, normal


def scene_answer(a, pose_a, b, pose_b):
    """(kind, value, normal) for A and B at their float poses: qhull on the
    Minkowski difference of the cores (depth from the facets when it holds the
    origin, else the closest point), or closest points of the cores for sphere
    and capsule pairs (their difference is flat: a point, segment or
    parallelogram). Radii applied last."""
    wa, wb = world_core(a, pose_a[:3], pose_a[3:]), world_core(b, pose_b[:3], pose_b[3:])
    radius = a.radius + b.radius
    if len(wa) <= 2 and len(wb) <= 2:
        ca, cb = segment_closest(wa[0], wa[-1], wb[0], wb[-1])
        dist = np.linalg.norm(cb - ca)
        n = (cb - ca) / dist if dist > 0 else np.zeros(3)  # crossing cores: +-n both escape
    else:
        d = (wb[:, None, :] - wa[None, :, :]).reshape(-1, 3)
        try:
            hull = ConvexHull(d)
        except Exception:  # a flat difference: not probed
            return None
        offset = hull.equations[:, 3]
        if offset.max() < 0:  # the origin inside: the cores overlap
            scale = max(1.0, np.abs(wa).max() + a.radius, np.abs(wb).max() + b.radius)
            k = int(np.argmax(offset))
            n = -hull.equations[k, :3]
            near = np.flatnonzero(offset >= offset[k] - 1e-7 * scale)
            if any(hull.equations[j, :3] @ hull.equations[k, :3] < 1 - 1e-9 for j in near):
                n = np.zeros(3)  # another escape direction as shallow: a tie
            return "pen", -offset[k] + radius, n
        dist, n = closest_to_origin(d, hull)
    gap = dist - radius
    return ("sep", gap, n) if gap > 0 else ("pen", -gap, n)


def local_tolerance(a, pose_a, b, pose_b):
    """FORMAT.md's local rule: (tol, near)."""
    l = min(a.size(), b.size())
    m = max(np.abs(world_core(a, pose_a[:3], pose_a[3:])).max() + a.radius,
            np.abs(world_core(b, pose_b[:3], pose_b[3:])).max() + b.radius)
    tol = max(1e-4 * l, 16 * 2.0 ** -24 * m)
    return tol, max(1e-3 * l, 2 * tol)


def write_scenes(seed, path, count, names):
    """count cases, the distributions `names` in turn; returns per-distribution stats."""
    make = {"ground": scene_ground, "plank": scene_plank, "needle": scene_needle, "ratio": scene_ratio,
            "far": scene_far}
    rng = np.random.default_rng([seed, 0x5CE5])  # a stream of its own: the probes' stay as they were
    stats = {n: [0, 0, 0, 0] for n in names}  # cases, sep, pen, near-touching
    lines = []
    tries = 0
    while len(lines) < count and tries < 50 * max(count, 1):
        dist = names[len(lines) % len(names)]
        tries += 1
        group, a, pa, qa, b, pb, qb = make[dist](rng)
        if rng.uniform() < 0.5:
            a, pa, qa, b, pb, qb = b, pb, qb, a, pa, qa
        pose_a, pose_b = f32(np.concatenate([pa, qa])), f32(np.concatenate([pb, qb]))
        big = max(np.abs(pose_a[:3]).max() + a.size(), np.abs(pose_b[:3]).max() + b.size())
        if big > 0.9 * MAX_MAGNITUDE or min(a.size(), b.size()) <= 0:
            continue
        res = scene_answer(a, pose_a, b, pose_b)
        if res is None:
            continue
        kind, value, n = exact_answer(res)
        s = stats[dist]
        s[0] += 1
        s[1 if kind == "sep" else 2] += 1
        s[3] += value < local_tolerance(a, pose_a, b, pose_b)[1]
        lines.append(case_line("%s.%05d" % (group, len(lines)), a, pose_a, b, pose_b, (kind, value, n)))
    with open(path, "w") as out:
        out.write("# scene probes, format v1: scripts/probe_oracle.py --scenes %d (exact: qhull Minkowski difference,\n"
                  "# segment closest points for sphere/capsule pairs); check with mink-cases --tol local\n" % seed)
        for name in names:
            out.write("# %-6s %4d cases: sep %d, pen %d, near-touching (local rule) %d\n" % (name, *stats[name]))
        out.writelines(lines)
    return stats


def write_probes(seed, path, count):
    rng = np.random.default_rng(seed)
    written = tries = 0
    with open(path, "w") as out:
        out.write("# probe cases, format v1: scripts/probe_oracle.py %d (exact: qhull Minkowski difference)\n" % seed)
        while written < count and tries < 50 * count:
            tries += 1
            size = 10 ** rng.uniform(-2, 2)
            name_a, text_a, core_a, ra = random_shape(rng, size)
            name_b, text_b, core_b, rb = random_shape(rng, size)
            poses = []
            u = rng.normal(size=3)
            u /= np.linalg.norm(u)
            base = rng.uniform(-5, 5, 3) * size if rng.uniform() < 0.2 else np.zeros(3)
            reach = size * rng.uniform(0, 3) * (10 ** rng.uniform(0, 3) if rng.uniform() < 0.1 else 1)
            for p in (base, base + u * reach):
                q = rng.normal(size=4)
                poses.append(np.concatenate([p, q / np.linalg.norm(q)]))
            if max(np.abs(poses[0][:3]).max(), np.abs(poses[1][:3]).max()) + 3 * size > 0.9 * MAX_MAGNITUDE:
                continue
            res = answer(core_a, ra, poses[0], core_b, rb, poses[1])
            if res is None or res[1] < 1e-3 * res[3]:
                continue  # flat difference, or the touching band
            kind, value, n, _ = res
            pose_text = ["%r %r %r %r %r %r %r" % tuple(map(float, p)) for p in poses]
            out.write("%s-%s.%05d %s %s %s %s %s %r %r %r %r\n" % (name_a, name_b, written, text_a, pose_text[0], text_b,
                                                                  pose_text[1], kind, float(value), *map(float, n)))
            written += 1
    return written


# ------------------------------------------------------------------ casts
#
# Linear casts (FORMAT.md, "Casts"): each shape keeps its rotation and moves its
# origin on a line, so the Minkowski difference only translates, D(t) = D(0) +
# t (dB - dA), and the distance from the origin to it is convex in t. The first
# time it comes within target + rA + rB is then found by bisection, after a
# golden-section search for the least distance when the end of the step is
# apart: exact to 1e-13 in t, from qhull's facets of D(0) moved along, with no
# GJK and no conservative advancement.

class MovedHull:
    """hull's facets with every point moved by s (closest_to_origin reads
    simplices and equations)."""
    def __init__(self, hull, s):
        self.simplices = hull.simplices
        self.equations = hull.equations.copy()
        self.equations[:, 3] -= hull.equations[:, :3] @ s


def cast_distance(d, hull, step, t):
    """Distance from the origin to D(t) (0 inside) and the unit normal from A
    towards B's closest point."""
    s = t * step
    moved = MovedHull(hull, s)
    if moved.equations[:, 3].max() < 0:
        return 0.0, np.zeros(3)
    return closest_to_origin(d + s, moved)


def cast_least(d, hull, step):
    """The least distance from the origin to D(t) over [0, 1] (convex in t:
    golden section)."""
    f = lambda t: cast_distance(d, hull, step, t)[0]
    g = (math.sqrt(5) - 1) / 2
    a, b = 0.0, 1.0
    while b - a > 1e-13:
        c, e = b - g * (b - a), a + g * (b - a)
        if f(c) < f(e):
            b = e
        else:
            a = c
    return min(f(0.0), f(1.0), f(0.5 * (a + b)))


def cast_answer(d, hull, step, reach):
    """('hit', t, normal) or ('miss', least distance), for the first t in
    [0, 1] at which D(t) comes within reach of the origin; None for a start
    within reach or a graze (least distance within 1e-6 of reach, relative)."""
    f = lambda t: cast_distance(d, hull, step, t)[0]
    f0, f1 = f(0.0), f(1.0)
    if f0 <= reach * (1 + 1e-6) + 1e-12:
        return None
    hi = 1.0
    if f1 > reach:
        g = (math.sqrt(5) - 1) / 2  # golden section on the convex distance
        a, b = 0.0, 1.0
        c, e = b - g * (b - a), a + g * (b - a)
        fc, fe = f(c), f(e)
        while b - a > 1e-13:
            if fc < fe:
                b, e, fe = e, c, fc
                c = b - g * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, e, fe
                e = a + g * (b - a)
                fe = f(e)
        least = min(fc, fe, f1)
        if abs(least - reach) <= 1e-6 * max(1.0, reach, float(np.abs(d).max())):
            return None
        if least > reach:
            return "miss", least
        hi = c if fc <= fe else e
    lo = 0.0
    while hi - lo > 1e-14:
        mid = 0.5 * (lo + hi)
        if f(mid) > reach:
            lo = mid
        else:
            hi = mid
    return "hit", hi, cast_distance(d, hull, step, hi)[1]


def write_casts(seed, path, count):
    """COUNT linear casts of the probes' shapes: B starts apart from A and moves
    past, into or beside it, A moving too half the time; targets 0 or up to a
    tenth of the size, or (a quarter of the casts, ids graze-) 0.3 to 4
    tolerances either side of the least distance: near grazes, still decided."""
    rng = np.random.default_rng(seed)
    written = tries = 0
    groups = {"hit": 0, "miss": 0}
    near = np.random.default_rng([seed, 0x6A2E])  # which casts graze: a stream of its own
    with open(path, "w") as out:
        out.write("# probe casts, format v1: scripts/probe_oracle.py --casts %d (exact: bisection on qhull's D(t))\n"
                  % seed)
        while written < count and tries < 50 * count:
            tries += 1
            size = 10 ** rng.uniform(-2, 2)
            name_a, text_a, core_a, ra = random_shape(rng, size)
            name_b, text_b, core_b, rb = random_shape(rng, size)
            qa, qb = (q / np.linalg.norm(q) for q in (rng.normal(size=4), rng.normal(size=4)))
            u = random_unit(rng)
            base = rng.uniform(-5, 5, 3) * size if rng.uniform() < 0.2 else np.zeros(3)
            start = base + u * size * rng.uniform(2, 6)
            aim = base + random_unit(rng) * size * rng.uniform(0, 2)  # where B heads, about A
            move_b = (aim - start) * rng.uniform(0.5, 2.5)
            move_a = random_unit(rng) * size * rng.uniform(0, 2) if rng.uniform() < 0.5 else np.zeros(3)
            target = 0.0 if rng.uniform() < 0.3 else float(np.round(rng.uniform(0, 0.1) * size, 6))
            pa0, pa1, pb0, pb1 = base, base + move_a, start, start + move_a + move_b
            ends = np.concatenate([pa0, pa1, pb0, pb1])
            if np.abs(ends).max() + 3 * size > 0.9 * MAX_MAGNITUDE:
                continue
            wa = core_a @ rotation(qa).T + pa0
            wb = core_b @ rotation(qb).T + pb0
            d = (wb[:, None, :] - wa[None, :, :]).reshape(-1, 3)
            try:
                hull = ConvexHull(d)
            except Exception:  # a flat difference: not probed
                continue
            step = (pb1 - pb0) - (pa1 - pa0)
            graze = near.uniform() < 0.25
            if graze:  # the target set within a few tolerances of the least distance, either side
                least = cast_least(d, hull, step)
                ends = [core_a @ rotation(qa).T + p for p in (pa0, pa1)] + [core_b @ rotation(qb).T + p for p in (pb0, pb1)]
                big = max(1.0, max(np.abs(e).max() for e in ends) + max(ra, rb))
                target = float(least - ra - rb + near.choice([-1, 1]) * near.uniform(0.3, 4) * 1e-4 * big)
                if least <= 0 or target < 0:
                    continue
            res = cast_answer(d, hull, step, target + ra + rb)
            if res is None:
                continue
            pose = lambda p, q: "%r %r %r %r %r %r %r" % (*map(float, p), *map(float, q))
            expect = "hit %r %r %r %r" % (float(res[1]), *map(float, res[2])) if res[0] == "hit" else \
                "miss %r" % float(res[1] - ra - rb)
            out.write("%s%s-%s.%05d %s %s %s %s %s %s %r %s\n" % ("graze-" if graze else "", name_a, name_b, written,
                                                               text_a, pose(pa0, qa),
                                                             pose(pa1, qa), text_b, pose(pb0, qb), pose(pb1, qb),
                                                             target, expect))
            groups[res[0]] += 1
            written += 1
    return written, groups


# ------------------------------------------------------------------ trajectories
#
# Coherent frames, as traj.cases holds them: a pair (hulls of 8-32 points,
# boxes, capsules, spheres, some rounded), B flying into A and back out over
# FRAMES frames while both turn and A drifts, so a cache carried from frame
# to frame (mink-cases --cache: one per trajectory, ids trajNN/fMMM) meets
# every warm path: held axes, held overlaps, warm GJK and EPA, a manifold's
# kept feature. Each frame answered exactly like the pairs.

TRAJ_FRAMES = 120


def write_traj(seed, path, count):
    rng = np.random.default_rng([seed, 0x7AA7])
    lines, written, tries = [], 0, 0
    while written < count and tries < 20 * max(count, 1):
        tries += 1
        size = rng.uniform(0.2, 0.6)
        pick = lambda: manifold_shape(rng, str(rng.choice(["hull", "hull", "box", "capsule", "sphere"])), size)
        a, b = pick(), pick()
        if a is None or b is None:
            continue
        qa0, qb0 = random_quat(rng), random_quat(rng)
        qa1 = quat_mul(quat_axis_angle(random_unit(rng), rng.uniform(0, 1.0)), qa0)
        qb1 = quat_mul(quat_axis_angle(random_unit(rng), rng.uniform(0, 3.0)), qb0)
        pa0 = rng.uniform(-2, 2, 3)
        pa1 = pa0 + random_unit(rng) * rng.uniform(0, 0.5)
        u, side = random_unit(rng), None
        side = perpendicular(rng, u)
        reach = a.size() + b.size()
        far, deep = reach * rng.uniform(1.3, 2.5), reach * rng.uniform(0.0, 0.9)
        offset = side * rng.uniform(0, 0.5) * reach
        frames = []
        for f in range(TRAJ_FRAMES):
            t = f / (TRAJ_FRAMES - 1)
            pa = np.concatenate([pa0 + t * (pa1 - pa0), slerp(qa0, qa1, t)])
            along = deep + (far - deep) * (2 * t - 1) ** 2
            pb = np.concatenate([pa[:3] + u * along + offset, slerp(qb0, qb1, t)])
            res = scene_answer(a, pa, b, pb)
            if res is None:
                break
            frames.append(case_line("traj%02d/f%03d" % (written, f), a, pa, b, pb, exact_answer(res)))
        if len(frames) < TRAJ_FRAMES:
            continue
        lines += frames
        written += 1
    with open(path, "w") as out:
        out.write("# trajectory probes, format v1: scripts/probe_oracle.py --traj %d (exact: qhull Minkowski difference\n"
                  "# per frame); %d trajectories of %d frames, check with and without --cache\n"
                  % (seed, written, TRAJ_FRAMES))
        out.writelines(lines)
    return written


# ------------------------------------------------------------------ degenerate
#
# The inputs `degenerate.cases` holds, drawn afresh: hulls with duplicated,
# coplanar or collinear points or a single point, zero-radius spheres, tiny
# and elongated shapes, pairs far from the origin, identical shapes at one
# pose, exactly touching boxes on dyadic coordinates, parallel faces, deep
# overlaps and small gaps between rounded shapes. The difference of two flat
# cores is flat (qhull cannot hull it): those are answered in its own affine
# hull (a point, a segment or a polygon) instead.

DEGENERATE_GROUPS = ("dup", "coplanar", "collinear", "point", "tiny", "far", "elongated", "identical", "touching",
                     "parallel", "zero", "deep", "gap")


def flat_distance(d):
    """(distance, unit normal) from the origin to conv(d) for points d spanning
    at most a plane; None when the origin lies in it (no unique normal)."""
    c = d.mean(axis=0)
    _, sv, vt = np.linalg.svd(d - c)
    scale = max(1.0, np.abs(d).max())
    rank = int((sv > 1e-12 * scale * math.sqrt(len(d))).sum())
    if rank == 0:
        p = d[0]
    elif rank == 1:
        u = vt[0]
        t = (d - c) @ u
        lo, hi = d[int(np.argmin(t))], d[int(np.argmax(t))]
        e = hi - lo
        p = lo + min(1.0, max(0.0, -(lo @ e) / (e @ e))) * e
    else:
        u, v = vt[0], vt[1]
        flat = np.stack([(d - c) @ u, (d - c) @ v], axis=1)
        hull = ConvexHull(flat)
        o = np.array([-c @ u, -c @ v])  # the origin in the plane's coordinates
        ring = flat[hull.vertices]
        inside = all((b[0] - a[0]) * (o[1] - a[1]) - (b[1] - a[1]) * (o[0] - a[0]) >= 0
                     for a, b in zip(ring, np.roll(ring, -1, axis=0)))
        if inside:
            q2 = o
        else:
            best = None
            for a, b in zip(ring, np.roll(ring, -1, axis=0)):
                e = b - a
                q = a + min(1.0, max(0.0, (o - a) @ e / (e @ e))) * e
                if best is None or np.linalg.norm(q - o) < np.linalg.norm(best - o):
                    best = q
            q2 = best
        p = c + q2[0] * u + q2[1] * v
    dist = np.linalg.norm(p)
    if dist <= 1e-12 * scale:
        return None
    return dist, p / dist


def degenerate_answer(a, pose_a, b, pose_b):
    """scene_answer, with flat differences answered in their own plane."""
    res = scene_answer(a, pose_a, b, pose_b)
    if res is not None:
        return res
    wa, wb = world_core(a, pose_a[:3], pose_a[3:]), world_core(b, pose_b[:3], pose_b[3:])
    got = flat_distance((wb[:, None, :] - wa[None, :, :]).reshape(-1, 3))
    if got is None:
        return None
    gap = got[0] - a.radius - b.radius
    return ("sep", gap, got[1]) if gap > 0 else ("pen", -gap, got[1])


def degenerate_pair(rng, group):
    """(A, pose A, B, pose B) for one group."""
    size = rng.uniform(0.2, 1.0)
    qa, qb = random_quat(rng), random_quat(rng)
    pa = rng.uniform(-2, 2, 3)
    r = lambda: float(rng.uniform(0.01, 0.3) * size) if rng.uniform() < 0.4 else 0.0
    partner = lambda: manifold_shape(rng, str(rng.choice(["box", "hull", "sphere", "capsule"])), size)
    if group == "dup":
        p = hull_points(rng, "sphere", int(rng.integers(4, 16)), size)
        a = Shape("hull", "hull", r(), points=p[rng.integers(0, len(p), int(rng.integers(len(p), 3 * len(p))))])
        b = partner()
    elif group == "coplanar":
        p = rng.uniform(-1, 1, (int(rng.integers(3, 20)), 3)) * size
        p[:, int(rng.integers(3))] = 0.0
        a, b = Shape("hull", "hull", r(), points=p), partner()
    elif group == "collinear":
        p = np.zeros((int(rng.integers(2, 8)), 3))
        p[:, int(rng.integers(3))] = rng.uniform(-1, 1, len(p)) * size
        a, b = Shape("hull", "hull", r(), points=p), partner()
    elif group == "point":
        a = Shape("hull", "hull", r(), points=np.tile(rng.uniform(-0.5, 0.5, 3) * size, (int(rng.integers(1, 5)), 1)))
        b = partner()
    elif group == "tiny":
        size *= 10 ** rng.uniform(-4, -2)
        a, b = partner(), partner()
    elif group == "elongated":
        h = np.array([size, size, size]) * np.array([1, 1e-3, 1e-3])[rng.permutation(3)]
        a, b = Shape("box", "box", 0.0, half=h), partner()
    elif group == "identical":  # also boxes written as hulls (the SIMD kernel answers boxes by SAT)
        a = partner()
        if a.kind == "box" and rng.uniform() < 0.5:
            a = Shape("hull", "hull", a.radius, points=a.core)
        return a, np.concatenate([pa, qa]), a, np.concatenate([pa, qa])
    elif group == "touching":  # boxes on dyadic coordinates, faces exactly flush
        h1, h2 = (rng.integers(1, 8, 3) / 8.0 for _ in range(2))
        k = int(rng.integers(3))
        p1 = rng.integers(-16, 16, 3) / 8.0
        p2 = p1 + rng.integers(-4, 5, 3) / 8.0
        p2[k] = p1[k] + rng.choice([-1, 1]) * (h1[k] + h2[k])
        one = np.array([1.0, 0, 0, 0])
        return (Shape("box", "box", 0.0, half=h1), np.concatenate([p1, one]), Shape("box", "box", 0.0, half=h2),
                np.concatenate([p2, one]))
    elif group == "parallel":  # a face of B flush with A's, at a small gap or depth
        a, b = manifold_shape(rng, "box", size), manifold_shape(rng, str(rng.choice(["box", "hull"])), size)
        if b is None:
            return None
        fn, fc = face_of(a, rng)
        gn, gc = face_of(b, rng)
        u = rotation(qa) @ fn
        qb = aligned(rng, gn, -u, 0.0)
        c = pa + rotation(qa) @ fc + perpendicular(rng, u) * rng.uniform(0, 0.5) * size
        pb = place(b, qb, c, u, float(rng.uniform(-0.05, 0.05) * size), a.radius)
        return a, np.concatenate([pa, qa]), b, np.concatenate([pb, qb])
    elif group == "zero":
        a = Shape("sphere", "sphere", 0.0) if rng.uniform() < 0.6 else Shape("capsule", "capsule", 0.0, half=size)
        b = partner()
    elif group == "deep":
        a = manifold_shape(rng, str(rng.choice(["box", "hull"])), size)
        b = manifold_shape(rng, str(rng.choice(["box", "hull", "sphere", "capsule"])), size * rng.uniform(0.05, 0.4))
        if a is None or b is None:
            return None
        return a, np.concatenate([pa, qa]), b, np.concatenate([pa + rng.uniform(-0.3, 0.3, 3) * size, qb])
    else:  # gap (and far): rounded shapes near contact
        a = manifold_shape(rng, str(rng.choice(["box", "hull", "sphere", "capsule"])), size)
        b = partner()
    if a is None or b is None:
        return None
    c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.4, 0.3))
    gap = float(rng.uniform(-0.3, 0.3) * size) if group != "gap" else float(10 ** rng.uniform(-4, -1) * size)
    pb = place(b, qb, c, u, gap, a.radius)
    if group == "far":
        off = random_unit(rng) * 10 ** rng.uniform(2.5, 4.5)
        pa, pb = pa + off, pb + off
    return a, np.concatenate([pa, qa]), b, np.concatenate([pb, qb])


def write_degenerate(seed, path, count):
    rng = np.random.default_rng([seed, 0xDE6E])
    stats = {g: 0 for g in DEGENERATE_GROUPS}
    lines = []
    for group, a, pose_a, b, pose_b in drawn_pairs(rng, DEGENERATE_GROUPS, lines, count, 50, degenerate_pair):
        res = degenerate_answer(a, pose_a, b, pose_b)
        if res is None:
            continue
        stats[group] += 1
        lines.append(case_line("%s.%05d" % (group, len(lines)), a, pose_a, b, pose_b, exact_answer(res)))
    with open(path, "w") as out:
        out.write("# degenerate probes, format v1: scripts/probe_oracle.py --degenerate %d (exact: qhull Minkowski\n"
                  "# difference; flat differences in their own plane)\n" % seed)
        out.write("# groups: %s\n" % "  ".join("%s %d" % kv for kv in stats.items()))
        out.writelines(lines)
    return len(lines), stats


# ------------------------------------------------------------------ rotating casts
#
# Casts where the shapes turn (FORMAT.md, "Casts": each turns about its origin
# at a constant rate from q0 to q1, shortest arc, while the origin moves on a
# line; mink_toi answers them). The distance is no longer convex in t, so the
# first time within the target comes from conservative advancement on the
# exact distance (qhull on the Minkowski difference at each t, or the core
# segments' closest points): no point of B moves relative to A faster than
# V = |dpB - dpA| + wA RA + wB RB (w the turn over the step, R the farthest
# core point from the origin), so nothing comes within target before
# t + (d(t) - target) / V. Hits are confirmed by a time just after the one
# found (within the check's tolerance) lying within the target; cases that
# do not converge, grazes (least distance within 5 % of the smaller size of
# the target) and flat differences are left out. Misses give their least
# distance from the advancement's samples, refined by a golden-section search.

def slerp(q0, q1, t):
    """The checker's slerp (bench/cast_cases.c): shortest arc, normalized."""
    a, b = unit(np.asarray(q0, float)), unit(np.asarray(q1, float))
    d = a @ b
    if d < 0:
        b, d = -b, -d
    theta = math.acos(min(1.0, d))
    wa, wb = 1 - t, t
    if theta > 1e-9:
        wa, wb = math.sin((1 - t) * theta) / math.sin(theta), math.sin(t * theta) / math.sin(theta)
    return unit(wa * a + wb * b)


def turn_angle(q0, q1):
    """The rotation angle (rad) of the shortest arc from q0 to q1."""
    return 2 * math.acos(min(1.0, abs(unit(np.asarray(q0, float)) @ unit(np.asarray(q1, float)))))


def toi_distance(a, a0, a1, b, b0, b1, t):
    """(signed distance of the shapes, unit normal from A to B) at time t; None
    for a flat difference."""
    pa = np.concatenate([a0[:3] + t * (a1[:3] - a0[:3]), slerp(a0[3:], a1[3:], t) if t > 0 else unit(a0[3:])])
    pb = np.concatenate([b0[:3] + t * (b1[:3] - b0[:3]), slerp(b0[3:], b1[3:], t) if t > 0 else unit(b0[3:])])
    res = scene_answer(a, pa, b, pb)
    if res is None:
        return None
    kind, value, n = res
    return (value if kind == "sep" else -value), n


def outside_by(w, r, x):
    """How far x lies outside the core w (world points) rounded by r (a facet
    plane's bound for hulls: exact inside and near the surface)."""
    if len(w) <= 2:
        d = w[-1] - w[0]
        t = 0.0 if d @ d == 0 else min(1.0, max(0.0, (x - w[0]) @ d / (d @ d)))
        return np.linalg.norm(x - (w[0] + t * d)) - r
    h = ConvexHull(w)
    return max(0.0, (h.equations[:, :3] @ x + h.equations[:, 3]).max()) - r


def penetration_witnesses_inside(a, pose_a, b, pose_b, tol):
    """Whether the exact penetration witnesses of an overlapping pair (A's
    deepest point into B, B's into A: point_b - point_a = -depth n) lie inside
    the other shape. FORMAT.md asks an overlapping start for points inside
    the shapes; where a vertex pokes in beside the normal they cannot be
    (those pairs are not probed). None when the difference is flat."""
    wa, wb = world_core(a, pose_a[:3], pose_a[3:]), world_core(b, pose_b[:3], pose_b[3:])
    if len(wa) <= 2 and len(wb) <= 2:
        ca, cb = segment_closest(wa[0], wa[-1], wb[0], wb[-1])
        dist = np.linalg.norm(cb - ca)
        if dist == 0:
            return False
        n = (cb - ca) / dist
        pa, pb = ca + a.radius * n, cb - b.radius * n
    else:
        d = (wb[:, None, :] - wa[None, :, :]).reshape(-1, 3)
        try:
            h = ConvexHull(d)
        except Exception:
            return None
        off = h.equations[:, 3]
        top = off.max()
        pa = pb = None
        for k in np.flatnonzero(off >= top - 1e-12 * max(1.0, np.abs(d).max())):
            tri = h.simplices[k]
            x = -off[k] * h.equations[k, :3]
            m = np.array([d[tri[1]] - d[tri[0]], d[tri[2]] - d[tri[0]]]).T
            lam = np.linalg.lstsq(m, x - d[tri[0]], rcond=None)[0]
            lam = np.array([1 - lam.sum(), *lam])
            if lam.min() >= -1e-9:
                n = -h.equations[k, :3]
                pa = lam @ wa[tri % len(wa)] + a.radius * n
                pb = lam @ wb[tri // len(wa)] - b.radius * n
                break
        if pa is None:
            return None
    return outside_by(wb, b.radius, pa) <= 0.25 * tol and outside_by(wa, a.radius, pb) <= 0.25 * tol


def toi_answer(a, a0, a1, b, b0, b1, target, tol):
    """('hit', t, normal), ('miss', least distance) or None (not probed)."""
    reach = lambda x: x - target
    speed = (np.linalg.norm((b1[:3] - b0[:3]) - (a1[:3] - a0[:3])) + turn_angle(a0[3:], a1[3:]) *
             np.linalg.norm(a.core, axis=1).max() + turn_angle(b0[3:], b1[3:]) * np.linalg.norm(b.core, axis=1).max())
    first = toi_distance(a, a0, a1, b, b0, b1, 0.0)
    if first is None:
        return None
    if reach(first[0]) <= 0:
        if not np.any(first[1]) or reach(first[0]) > -tol:
            return None  # a tie, or at the target's edge
        if first[0] < 0 and not penetration_witnesses_inside(a, a0, b, b0, tol):
            return None
        return "hit", 0.0, first[1]
    t, samples = 0.0, []
    for _ in range(1500):
        got = toi_distance(a, a0, a1, b, b0, b1, t)
        if got is None:
            return None
        samples.append((got[0], t))
        gap = reach(got[0])
        if gap <= 1e-9 * tol:
            after = toi_distance(a, a0, a1, b, b0, b1, min(1.0, t + 0.5 * tol / max(speed, 1e-30)))
            if after is None or reach(after[0]) > 0:
                return None  # a graze: the distance turns back at the target
            return "hit", t, got[1]
        if t >= 1.0:
            break
        t = min(1.0, t + gap / speed)
    else:
        return None  # too slow to converge
    d, at = min(samples)
    k = [s[1] for s in samples].index(at)
    lo, hi = samples[max(0, k - 1)][1], samples[min(len(samples) - 1, k + 1)][1]
    g = (math.sqrt(5) - 1) / 2
    f = lambda x: toi_distance(a, a0, a1, b, b0, b1, x)[0]
    for _ in range(40):
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(x1) < f(x2):
            hi = x2
        else:
            lo = x1
    d = min(d, f(0.5 * (lo + hi)))
    return "miss", d


TOI_GROUPS = ("rot-spin", "rot-hull", "rot-thin", "rot-start", "bullet-plank")


def toi_shape(rng, size, thin):
    if thin:
        length = size * rng.uniform(1, 3)
        return plank_shape(rng, length)[0] if rng.uniform() < 0.5 else needle_shape(rng, length)[0]
    shape = None
    while shape is None:
        shape = manifold_shape(rng, str(rng.choice(["box", "hull", "hull", "capsule", "sphere"])), size)
    return shape


def bullet_plank(rng):
    """A small shape (1-5 cm) shot at a plank 1-10 cm thin, 0.5-3 m long,
    travelling 2-60 times the plank's thickness in the step (through it, if
    nothing stopped it), sometimes spinning; the plank still or drifting."""
    length = rng.uniform(0.5, 3.0)
    t = rng.uniform(0.01, 0.1)
    half = np.array([length, t, length * rng.uniform(0.1, 1)])[rng.permutation(3)]
    thin = int(np.argmin(half))
    a = Shape("plank", "box", 0.0, half=half)
    b = small_shape(rng, rng.uniform(0.01, 0.05))
    qa = random_quat(rng)
    pa0 = rng.uniform(-2, 2, 3)
    pa1 = pa0 + (random_unit(rng) * rng.uniform(0, 0.05) if rng.uniform() < 0.3 else 0)
    normal = rotation(qa) @ AXES[thin] * rng.choice([-1, 1])
    hit_at = pa0 + rotation(qa) @ (rng.uniform(-0.9, 0.9, 3) * half * (1 - AXES[thin]))
    travel = t * rng.uniform(2, 60)
    direction = unit(-normal + perpendicular(rng, normal) * rng.uniform(0, 1.5))
    start = hit_at - direction * travel * rng.uniform(0.1, 0.9) + normal * (b.size() + t)
    qb0 = random_quat(rng)
    qb1 = quat_mul(quat_axis_angle(random_unit(rng), rng.uniform(0, 3)), qb0) if rng.uniform() < 0.3 else qb0
    target = 0.0 if rng.uniform() < 0.5 else float(f32(rng.uniform(0, 0.2) * b.size()))
    return (a, np.concatenate([pa0, qa]), np.concatenate([pa1, qa]), b, np.concatenate([start, qb0]),
            np.concatenate([start + direction * travel, unit(qb1)]), target)


def write_toi(seed, path, count):
    rng = np.random.default_rng([seed, 0x7017])
    stats = {g: [0, 0] for g in TOI_GROUPS}
    lines, tries = [], 0
    while len(lines) < count and tries < 60 * max(count, 1):
        group = TOI_GROUPS[len(lines) % len(TOI_GROUPS)]
        tries += 1
        size = 10 ** rng.uniform(-1, 0.3)
        if group == "bullet-plank":
            pair = bullet_plank(rng)
            if pair is None:
                continue
            a, a0, a1, b, b0, b1, target = pair
            big = max(np.abs(np.concatenate([a0[:3], a1[:3], b0[:3], b1[:3]])).max() + a.size() + b.size(), 1.0)
            res = toi_answer(a, a0, a1, b, b0, b1, target, 1e-4 * big)
            if res is None or (res[0] == "miss" and res[1] - target < 0.05 * min(a.size(), b.size())):
                continue
            expect = "hit %r %s" % (float(res[1]), text_of(res[2])) if res[0] == "hit" else "miss %r" % float(res[1])
            stats[group][0 if res[0] == "hit" else 1] += 1
            lines.append("%s.%05d %s %s %s %s %s %s %r %s\n" % (group, len(lines), a.text(), text_of(a0), text_of(a1),
                                                              b.text(), text_of(b0), text_of(b1), target, expect))
            continue
        a = toi_shape(rng, size, group == "rot-thin")
        b = toi_shape(rng, size * 10 ** rng.uniform(-0.7, 0.3), False)
        spin = {"rot-spin": math.pi, "rot-hull": 1.0, "rot-thin": 2.5, "rot-start": 1.0}[group]
        qa0, qb0 = random_quat(rng), random_quat(rng)
        turn = lambda q, most: quat_mul(quat_axis_angle(random_unit(rng), rng.uniform(0, most)), q)
        qa1 = turn(qa0, spin) if group != "rot-hull" or rng.uniform() < 0.7 else qa0
        qb1 = turn(qb0, spin * rng.uniform(0, 1))
        reach = a.size() + b.size()
        pa0 = rng.uniform(-2, 2, 3)
        pa1 = pa0 + (random_unit(rng) * reach * rng.uniform(0, 1) if rng.uniform() < 0.4 else 0)
        if group == "rot-start":  # within the target or into A by up to 0.4 of the smaller size
            c, u = contact_on(rng, a, pa0, qa0, random_mode(rng, 0.4, 0.3))
            pb0 = place(b, qb0, c, u, -0.4 * min(a.size(), b.size()) * rng.uniform(0, 1), a.radius)
        else:
            pb0 = pa0 + random_unit(rng) * reach * rng.uniform(1.1, 3)
        aim = pa0 + random_unit(rng) * reach * rng.uniform(0, 0.8)
        pb1 = pb0 + (aim - pb0) * rng.uniform(0.3, 2.2) + (pa1 - pa0)
        target = 0.0 if rng.uniform() < 0.4 else float(f32(rng.uniform(0, 0.1) * min(a.size(), b.size())))
        if group == "rot-start" and rng.uniform() < 0.3:  # apart, but within the target
            target = float(f32(0.1 * min(a.size(), b.size())))
            pb0 = pb0 + u * (0.4 * min(a.size(), b.size()) * rng.uniform(0, 1) + 0.09 * min(a.size(), b.size()))
        a0, a1 = np.concatenate([pa0, qa0]), np.concatenate([pa1, unit(qa1)])
        b0, b1 = np.concatenate([pb0, qb0]), np.concatenate([pb1, unit(qb1)])
        if rng.uniform() < 0.5:
            a, a0, a1, b, b0, b1 = b, b0, b1, a, a0, a1
        big = max(np.abs(np.concatenate([a0[:3], a1[:3], b0[:3], b1[:3]])).max() + reach, 1.0)
        tol = 1e-4 * big
        res = toi_answer(a, a0, a1, b, b0, b1, target, tol)
        if res is None:
            continue
        if res[0] == "miss" and res[1] - target < 0.05 * min(a.size(), b.size()):
            continue  # near a graze
        if group == "rot-start" and not (res[0] == "hit" and res[1] == 0.0):
            continue
        expect = "hit %r %s" % (float(res[1]), text_of(res[2])) if res[0] == "hit" else "miss %r" % float(res[1])
        stats[group][0 if res[0] == "hit" else 1] += 1
        lines.append("%s.%05d %s %s %s %s %s %s %r %s\n" % (group, len(lines), a.text(), text_of(a0), text_of(a1),
                                                         b.text(), text_of(b0), text_of(b1), target, expect))
    with open(path, "w") as out:
        out.write("# rotating casts, format v1: scripts/probe_oracle.py --toi %d (exact: conservative advancement\n"
                  "# on qhull's distance at each t; grazes left out)\n" % seed)
        out.write("# groups (hit/miss): %s\n" % "  ".join("%s %d/%d" % (g, *v) for g, v in stats.items()))
        out.writelines(lines)
    return len(lines), stats


# ------------------------------------------------------------------ manifolds
#
# Contact manifolds with exact patches (FORMAT.md, "Manifolds"), the kinds of
# contact a solver rests on: boxes on slabs, boxes face to face, hull facets on
# faces, capsules lying on or tilted onto faces, capsules side by side or
# crossed, box edges and corners on faces, rounded and sharp shapes in any
# combination, and speculative gaps. The expectation comes from the exact
# answer above (qhull, or the core segments' closest points); the patch is the
# overlap of the cores' features within 1e-9 L of the contact plane, clipped
# in double. Cases where the next point of either core rises less than the
# depth plus MANIFOLD_MARGIN plus a clear band above its feature are left
# out: there the patch would not hold for every margin the probe checks.

MANIFOLD_GROUPS = ("box-slab", "box-box", "hull-face", "capsule-flat", "capsule-capsule", "edge-face", "general",
                   "speculative")
MANIFOLD_MARGIN = 0.025  # probe.sh checks margins 0 and this one
MANIFOLD_CLEAR = 0.02  # the band above a feature that no other core point may enter


def swapped_half(rng, a, pose_a, b, pose_b):
    """The pair with A and B swapped half the time, the quaternions unit."""
    if rng.uniform() < 0.5:
        a, pose_a, b, pose_b = b, pose_b, a, pose_a
    return (a, np.concatenate([pose_a[:3], unit(pose_a[3:])]), b, np.concatenate([pose_b[:3], unit(pose_b[3:])]))


def drawn_pairs(rng, groups, lines, count, tries_per_case, make_pair):
    """Pairs from make_pair(rng, group), the groups in turn by how many cases
    `lines` holds (the caller appends the ones it keeps), swapped half the
    time: (group, A, pose A, B, pose B) until count are kept or the tries run out."""
    tries = 0
    while len(lines) < count and tries < tries_per_case * max(count, 1):
        group = groups[len(lines) % len(groups)]
        tries += 1
        pair = make_pair(rng, group)
        if pair is not None:
            yield (group, *swapped_half(rng, *pair))


def rise_above_feature(w, n, band):
    """How far below the highest of points w along n the next one lies (inf: none)."""
    h = w @ n
    rest = h[h < h.max() - band]
    return h.max() - rest.max() if len(rest) else math.inf


def convex2(p, eps):
    """The convex hull of 2-D points, counter-clockwise: one point, a segment's
    two ends or a polygon."""
    p = np.asarray(p, dtype=np.float64).reshape(-1, 2)
    d = p - p[0]
    far = d[int(np.argmax(np.einsum("ij,ij->i", d, d)))]
    length = np.linalg.norm(far)
    if length <= eps:
        return p[:1]
    along = far / length
    if np.abs(d[:, 0] * along[1] - d[:, 1] * along[0]).max() <= eps:
        t = d @ along
        return p[[int(np.argmin(t)), int(np.argmax(t))]]
    return p[ConvexHull(p).vertices]


def clip_left(poly, a, b, eps):
    """The points of poly (a closed chain) left of the line a -> b, within eps."""
    e = b - a
    e = e / np.linalg.norm(e)
    side = lambda x: e[0] * (x[1] - a[1]) - e[1] * (x[0] - a[0])
    out = []
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp >= -eps:
            out.append(p)
        if (sp > eps and sq < -eps) or (sp < -eps and sq > eps):
            out.append(p + (q - p) * (sp / (sp - sq)))
    return out


def overlap2(fa, fb, eps):
    """The overlap of two convex features in the plane (points, segments or
    counter-clockwise polygons): a convex point list, empty when apart."""
    if len(fb) == 1 or len(fa) == 1:
        return fb if len(fb) == 1 else fa
    if len(fa) == 2 and len(fb) == 2:
        d1, d2 = fa[1] - fa[0], fb[1] - fb[0]
        cross = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(cross) <= 1e-12 * np.linalg.norm(d1) * np.linalg.norm(d2):  # parallel: the shared stretch
            u = d1 / np.linalg.norm(d1)
            lo, hi = max(0.0, min((fb - fa[0]) @ u)), min(d1 @ u, max((fb - fa[0]) @ u))
            return [fa[0] + lo * u, fa[0] + hi * u] if hi >= lo - eps else []
        r = fb[0] - fa[0]
        return [fa[0] + d1 * ((r[0] * d2[1] - r[1] * d2[0]) / cross)]
    clip, chain = (fb, list(fa)) if len(fb) >= 3 else (fa, list(fb))
    for i in range(len(clip)):
        if not chain:
            break
        chain = clip_left(chain, clip[i], clip[(i + 1) % len(clip)], eps)
    return chain


def manifold_patch(a, pose_a, b, pose_b, n, scale):
    """The exact patch for the contact normal n (from A towards B): the overlap
    of A's core feature along n and B's along -n, on A's surface, counter-
    clockwise seen from B; None when a core's next point rises too little."""
    wa, wb = world_core(a, pose_a[:3], pose_a[3:]), world_core(b, pose_b[:3], pose_b[3:])
    band = 1e-9 * scale
    top_a = (wa @ n).max()
    fa, fb = wa[wa @ n >= top_a - band], wb[-(wb @ n) >= (-(wb @ n)).max() - band]
    u = unit(AXES[int(np.argmin(np.abs(n)))] - n[int(np.argmin(np.abs(n)))] * n)
    v = np.cross(n, u)
    flat = lambda w: np.stack([w @ u, w @ v], axis=1)
    got = overlap2(convex2(flat(fa), band), convex2(flat(fb), band), band)
    if len(got) == 0:
        return None
    got = convex2(got, band)
    lift = top_a + a.radius
    return np.array([x * u + y * v + lift * n for x, y in got])


def face_of(shape, rng):
    """A face of shape's core in its own frame, picked by area: (outward unit
    normal, centroid). A box's faces are its axes; a hull's are qhull's facets
    (coplanar triangles merged)."""
    if shape.kind == "box":
        k, s = int(rng.integers(3)), float(rng.choice([-1.0, 1.0]))
        c = np.zeros(3)
        c[k] = s * np.abs(shape.core[:, k]).max()
        return AXES[k] * s, c
    hull = ConvexHull(shape.core)
    normals = hull.equations[:, :3]
    tri = shape.core[hull.simplices]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    k = int(rng.choice(len(area), p=area / area.sum()))
    same = normals @ normals[k] > 1 - 1e-12
    pts = np.unique(tri[same].reshape(-1, 3), axis=0)
    return normals[k], pts.mean(axis=0)


def manifold_shape(rng, kind, size):
    """A box, hull or capsule about `size` across, rounded a quarter of the time."""
    r = float(rng.uniform(0.005, 0.05)) if rng.uniform() < 0.25 else 0.0
    if kind == "box":
        return Shape("box", "box", r, half=np.maximum(size * rng.uniform(0.25, 1, 3) - r, 0.02))
    if kind == "capsule":
        return Shape("capsule", "capsule", size * rng.uniform(0.08, 0.3), half=size * rng.uniform(0.3, 1))
    if kind == "sphere":
        return Shape("sphere", "sphere", size * rng.uniform(0.2, 1))
    pts = hull_points(rng, str(rng.choice(["cube", "sphere", "lattice"])), int(rng.choice([6, 8, 12, 16, 24, 32])), 1.0)
    m = np.abs(pts).max()
    if m == 0 or np.linalg.matrix_rank(pts - pts.mean(axis=0), tol=1e-6) < 3:
        return None
    return Shape("hull", "hull", r, points=pts * ((size - r) / m))


def manifold_pair(rng, group):
    """(A, pose A, B, pose B) near contact for one group, before the answer."""
    gap = float(rng.uniform(-0.012, 0.012))
    if group == "speculative":
        group, gap = str(rng.choice(["box-slab", "box-box", "hull-face", "capsule-flat"])), float(rng.uniform(5e-4, 0.02))
    qa, pa = random_quat(rng), rng.uniform(-2, 2, 3)
    if group == "box-slab":
        a = Shape("slab", "box", 0.0 if rng.uniform() < 0.8 else float(rng.uniform(0.005, 0.03)),
                  half=[rng.uniform(0.5, 1.5), rng.uniform(0.1, 0.25), rng.uniform(0.5, 1.5)])
        if rng.uniform() < 0.5:
            qa = quat_axis_angle(AXES[1], rng.uniform(0, 2 * math.pi))
        b = manifold_shape(rng, "box", rng.uniform(0.1, 0.5))
    elif group == "box-box":
        a, b = (manifold_shape(rng, "box", rng.uniform(0.2, 0.6)) for _ in range(2))
    elif group in ("hull-face", "capsule-flat", "edge-face"):
        a = manifold_shape(rng, "box" if rng.uniform() < 0.5 else "hull", rng.uniform(0.3, 1.0))
        b = manifold_shape(rng, {"hull-face": "hull", "capsule-flat": "capsule", "edge-face": "box"}[group],
                           rng.uniform(0.1, 0.5))
    elif group == "capsule-capsule":
        a, b = (manifold_shape(rng, "capsule", rng.uniform(0.2, 0.6)) for _ in range(2))
    else:  # general: anything on anything, any orientation
        kinds = ["box", "hull", "capsule", "sphere"]
        a, b = (manifold_shape(rng, str(rng.choice(kinds)), rng.uniform(0.1, 0.6)) for _ in range(2))
    if a is None or b is None:
        return None
    if group == "capsule-capsule":
        axis_a = rotation(qa) @ AXES[1]
        u = perpendicular(rng, axis_a)
        if rng.uniform() < 0.5:  # side by side, along each other
            qb = quat_mul(quat_axis_angle(axis_a, rng.uniform(0, 2 * math.pi)), qa)
            shift = axis_a * rng.uniform(-1, 1) * (a.core[1, 1] + b.core[1, 1])
        else:  # crossed, at 0.4 rad or more (nearer parallel, a solver's two points along both are fair)
            phi = rng.uniform(0.4, math.pi - 0.4)
            qb = aligned(rng, AXES[1], math.cos(phi) * axis_a + math.sin(phi) * np.cross(u, axis_a), 0.0)
            shift = axis_a * rng.uniform(-0.8, 0.8) * a.core[1, 1]
        pb = pa + shift + u * (a.radius + b.radius + gap)
        return a, np.concatenate([pa, qa]), b, np.concatenate([pb, unit(qb)])
    if group == "general":
        c, u = contact_on(rng, a, pa, qa, random_mode(rng, 0.4, 0.3))
        qb = random_quat(rng)
        return a, np.concatenate([pa, qa]), b, np.concatenate([place(b, qb, c, u, gap, a.radius), qb])
    # a face of A (of the slab: its top), the contact point spread over it
    if group == "box-slab":
        fn, fc = AXES[1], np.array([0.0, a.core[:, 1].max(), 0.0])
        spread = np.array([a.core[:, 0].max(), 0.0, a.core[:, 2].max()])
    else:
        fn, fc = face_of(a, rng)
        spread = np.zeros(3)
    rot_a = rotation(unit(qa))
    u = rot_a @ fn
    centre = pa + rot_a @ fc
    if group == "box-slab":
        centre = centre + rot_a @ (spread * rng.uniform(-1, 1, 3))
    else:
        centre = centre + perpendicular(rng, u) * rng.uniform(0, 0.3) * a.size()
    if group == "capsule-flat":
        tilt = 0.0 if rng.uniform() < 0.6 else rng.uniform(0.2, 1.2)
        qb = aligned(rng, AXES[1], perpendicular(rng, u), tilt)
        return a, np.concatenate([pa, qa]), b, np.concatenate([place(b, qb, centre, u, gap, a.radius), qb])
    if group == "edge-face":
        j, k = rng.permutation(3)[:2]
        if rng.uniform() < 0.7:  # an edge down: turned by phi between two faces
            phi = rng.uniform(0.25, math.pi / 2 - 0.25)
            down = math.cos(phi) * AXES[j] * rng.choice([-1, 1]) + math.sin(phi) * AXES[k] * rng.choice([-1, 1])
        else:  # a corner down
            down = unit(rng.uniform(0.35, 1, 3) * rng.choice([-1, 1], 3))
        qb = aligned(rng, down, -u, 0.0)
        return a, np.concatenate([pa, qa]), b, np.concatenate([place(b, qb, centre, u, gap, a.radius), qb])
    # box-slab, box-box, hull-face: a face of B flat against it, spun, its centre over the point
    gn, gc = face_of(b, rng)
    qb = aligned(rng, gn, -u, 0.0)
    pb = centre - rotation(qb) @ gc
    pb = place(b, qb, pb - u * (u @ (pb - centre)), u, gap, a.radius)  # the gap along u exactly
    pb = pb + (centre - (pb + rotation(qb) @ gc)) - u * (u @ (centre - (pb + rotation(qb) @ gc)))
    return a, np.concatenate([pa, qa]), b, np.concatenate([pb, qb])


def write_manifolds(seed, path, count):
    rng = np.random.default_rng([seed, 0x3A41])
    stats = {g: 0 for g in MANIFOLD_GROUPS}
    ks = {}
    lines = []
    for group, a, pose_a, b, pose_b in drawn_pairs(rng, MANIFOLD_GROUPS, lines, count, 100, manifold_pair):
        res = scene_answer(a, pose_a, b, pose_b)
        if res is None or not np.any(res[2]):
            continue  # a flat difference or a tie: no one patch
        kind, value, n = res
        signed = value if kind == "sep" else -value
        wa, wb = world_core(a, pose_a[:3], pose_a[3:]), world_core(b, pose_b[:3], pose_b[3:])
        scale = max(1.0, np.abs(wa).max() + a.radius, np.abs(wb).max() + b.radius)
        if abs(signed) < 1e-3 * scale:
            continue  # the touching band: either kind passes, the patch is what matters elsewhere
        band = 1e-9 * scale
        clear = max(0.0, -signed) + MANIFOLD_MARGIN + MANIFOLD_CLEAR
        if min(rise_above_feature(wa, n, band), rise_above_feature(wb, -n, band)) < clear:
            continue
        patch = manifold_patch(a, pose_a, b, pose_b, n, scale)
        if patch is None:
            continue
        stats[group] += 1
        ks[len(patch)] = ks.get(len(patch), 0) + 1
        lines.append("%s.%05d %s %s %s %s %s %r %s patch %d %s\n" % (
            group, len(lines), a.text(), text_of(pose_a), b.text(), text_of(pose_b), kind, float(value),
            text_of(n), len(patch), text_of(patch)))
    with open(path, "w") as out:
        out.write("# manifold probes, format v1 with patches: scripts/probe_oracle.py --manifolds %d (exact: qhull\n"
                  "# Minkowski difference or core segments; patch: the cores' features within 1e-9 L, clipped in double)\n"
                  "# check with mink-cases --query manifold at --margin 0 and --margin %g\n" % (seed, MANIFOLD_MARGIN))
        out.write("# groups: %s\n" % "  ".join("%s %d" % kv for kv in stats.items()))
        out.write("# patches: %s\n" % "  ".join("k=%d %d" % (k, ks[k]) for k in sorted(ks)))
        out.writelines(lines)
    return len(lines), stats


def speck_pair(rng):
    """A small hull pierced by (or next to) a long capsule's core: (hull, p, q, capsule, p, q)."""
    size = 10 ** rng.uniform(math.log10(3e-3), -1.0)
    kind = str(rng.choice(["sphere", "cube", "aniso", "lattice"]))
    p = hull_points(rng, kind, int(rng.choice([4, 5, 8, 12, 16, 20, 32, 64])), 1.0)
    m = np.abs(p).max()
    if m == 0:
        return None
    r = size * rng.uniform(0.05, 0.3) if rng.uniform() < 0.2 else 0.0
    hull = Shape("h" + kind, "hull", r, points=p * ((size - r) / m))
    half = 10 ** rng.uniform(0.0, math.log10(20.0))
    capsule = Shape("capsule", "capsule", rng.uniform(0.0, 1.0) if rng.uniform() < 0.7 else 0.0, half=half)
    ph, qh = rng.uniform(-1, 1, 3) * 10 ** rng.uniform(-1, 2), random_quat(rng)
    u = random_unit(rng)
    through = world_core(hull, ph, qh).mean(axis=0) + perpendicular(rng, u) * size * rng.uniform(0.0, 0.6)
    pc = through - u * half * rng.uniform(-0.9, 0.9)
    return hull, ph, qh, capsule, pc, quat_between(np.array([0.0, 1.0, 0.0]), u)


def write_specks(seed, path, count):
    """count speck_pair cases, exact answers as for the scenes; returns the count."""
    rng = np.random.default_rng([seed, 0x5BEC])
    lines = []
    while len(lines) < count:
        pair = speck_pair(rng)
        if pair is None:
            continue
        a, pa, qa, b, pb, qb = pair
        if rng.uniform() < 0.5:
            a, pa, qa, b, pb, qb = b, pb, qb, a, pa, qa
        pose_a, pose_b = f32(np.concatenate([pa, qa])), f32(np.concatenate([pb, qb]))
        res = scene_answer(a, pose_a, b, pose_b)
        if res is None:
            continue
        lines.append(case_line("speck-capsule.%05d" % len(lines), a, pose_a, b, pose_b, exact_answer(res)))
    with open(path, "w") as out:
        out.write("# small hulls deep in long capsules: scripts/probe_oracle.py --specks %d (exact: qhull\n"
                  "# Minkowski difference); check with mink-cases --tol local\n" % seed)
        out.writelines(lines)
    return len(lines)


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if args else 2)
    # the other generators: option -> (writer, default count, what it writes)
    writers = {"--traj": (write_traj, 10, "trajectories"), "--degenerate": (write_degenerate, 260, "degenerate cases"),
               "--toi": (write_toi, 100, "rotating casts"), "--manifolds": (write_manifolds, 400, "manifold cases"),
               "--specks": (write_specks, 5000, "speck-capsule cases")}
    if args[0] in writers:
        write, default, what = writers[args[0]]
        if len(args) not in (3, 4):
            sys.exit("usage: probe_oracle.py %s SEED OUT.cases [COUNT]" % args[0])
        got = write(int(args[1]), args[2], int(args[3]) if len(args) > 3 else default)
        print("probe_oracle: wrote %d %s to %s" % (got[0] if isinstance(got, tuple) else got, what, args[2]),
              file=sys.stderr)
        return
    if args[0] == "--casts":
        if len(args) not in (3, 4):
            sys.exit("usage: probe_oracle.py --casts SEED OUT.cases [COUNT]")
        written, groups = write_casts(int(args[1]), args[2], int(args[3]) if len(args) > 3 else 300)
        print("probe_oracle: wrote %d casts to %s (hit %d, miss %d)" % (written, args[2], groups["hit"], groups["miss"]),
              file=sys.stderr)
        return
    scenes = args[0] == "--scenes"
    only = list(SCENES)
    if scenes:
        args = args[1:]
        if args and args[0] == "--only":
            only = args[1].split(",") if len(args) > 1 else []
            args = args[2:]
            if not only or any(n not in SCENES for n in only):
                sys.exit("probe_oracle: --only takes names from %s" % ",".join(SCENES))
    if len(args) not in (2, 3):
        sys.exit("usage: probe_oracle.py [--scenes [--only NAMES]] SEED OUT.cases [COUNT]  (--help)")
    seed, path = int(args[0]), args[1]
    count = int(args[2]) if len(args) > 2 else (300 if scenes else 1000)
    if scenes:
        stats = write_scenes(seed, path, count, only)
        detail = ", ".join("%s %d" % (n, s[0]) for n, s in stats.items())
        print("probe_oracle: wrote %d scene cases to %s (%s)" % (sum(s[0] for s in stats.values()), path, detail),
              file=sys.stderr)
    else:
        written = write_probes(seed, path, count)
        print("probe_oracle: wrote %d cases to %s" % (written, path), file=sys.stderr)


if __name__ == "__main__":
    main()
