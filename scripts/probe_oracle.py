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

Usage: probe_oracle.py SEED OUT.cases [COUNT]   (needs python3-scipy)
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


def main():
    seed, path = int(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
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
    print("probe_oracle: wrote %d cases to %s" % (written, path), file=sys.stderr)


if __name__ == "__main__":
    main()
