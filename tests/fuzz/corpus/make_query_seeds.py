#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_queries (tests/fuzz/corpus/fuzz_queries/).

Mirrors the byte layout documented at the top of tests/fuzz/fuzz_queries.c:
keep the two in step. Run from anywhere: python3 make_query_seeds.py
"""
import math
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_queries")
SCALES = [1, 1, 1, 1, 1e-3, 1e-2, 0.1, 10, 100, 1e3, 1e4, 1e6]
NASTY = ["nan", "inf", "-inf", "0", "-0", "denorm_min", "denorm", "-denorm", "flt_min", "1e-30", "-1e-30",
         "1e-7", "1e30", "-1e30", "flt_max", "-flt_max", "1e19", "1e13", "-1", "1", "-0.5", "2", "1e6", "-1e-3"]


def u8(v):
    return bytes([v & 0xFF])


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def fl(value, lo, hi):
    """An ordinary value: tag 0 then u16 placing value in [lo, hi]."""
    t = 0.0 if hi == lo else (value - lo) / (hi - lo)
    t = min(max(t, 0.0), 1.0)
    return u8(0) + u16(round(t * 65535))


def nasty(name):
    return u8(232 + NASTY.index(name))


def raw(f):
    return u8(224) + struct.pack("<f", f)


class Enc:
    def __init__(self, scale_index=0, mode=0):
        self.s = SCALES[scale_index]
        self.b = u8(mode) + u8(scale_index)

    def size(self, v):
        self.b += fl(v, 0.0, 2.0 * self.s)

    def sphere(self, r):
        self.b += u8(0)
        self.size(r)

    def capsule(self, r, h):
        self.b += u8(1)
        self.size(r)
        self.size(h)

    def box(self, hx, hy, hz, r):
        self.b += u8(2)
        for v in (hx, hy, hz, r):
            self.size(v)

    def hull(self, r, n, gen, params, dup=0, mem=15):
        """gen: 0 cloud (params: seed, bases, jitter), 1 plane (seed, o, u, v),
        2 line (seed, o, u), 4 sphere shell (seed, R), 5 box corners (seed, h)."""
        self.b += u8(3) + fl(r, 0.0, self.s)
        # count: mode 0 -> u8 % 17; mode 4 -> u16 % 257; mode 6 -> u16 % 1025; 7 -> u16 % 5001
        if n <= 16:
            self.b += u8(0) + u8(n)
        elif n <= 256:
            self.b += u8(4) + u16(n)
        elif n <= 1024:
            self.b += u8(6) + u16(n)
        else:
            self.b += u8(7) + u16(n)
        s = self.s
        self.b += u8(gen) + struct.pack("<I", params["seed"])
        if gen == 0:
            bases = params["bases"]
            self.b += u8(len(bases) - 1)
            for p in bases:
                for c in p:
                    self.b += fl(c, -s, s)
            self.b += fl(params["jitter"], 0.0, 0.5 * s)
        elif gen in (1, 2):
            for c in params["o"] + params["u"] + (params["v"] if gen == 1 else []):
                self.b += fl(c, -s, s)
        elif gen == 4:
            self.b += fl(params["R"], 0.0, s)
        elif gen == 5:
            for c in params["h"]:
                self.b += fl(c, 0.0, s)
        self.b += u8(dup) + u8(0) + u8(mem)  # duplicates, no poisoned value, memory mode

    def pose(self, p, q=None, qmode=None):
        for c in p:
            self.b += fl(c, -3.0 * self.s, 3.0 * self.s)
        if q is None:
            self.b += u8(0)  # identity
            return
        self.b += u8(1 if qmode is None else qmode)
        for c in q:  # x y z w, normalised by the decoder
            self.b += fl(c, -1.0, 1.0)

    def tail(self, motion=(0.01, 0.0, -0.01), cache=b"", forged=None, margin=None, feature=None, cast=None):
        """margin: None (the input ends: margin 0), a float (small: <= 0.1
        scale, else up to 2 scale), or ("bad", index into the decoder's bad
        margins). feature: the forged manifold feature state, a dict.
        cast: the cast section, a dict (see cast_bytes)."""
        s = self.s
        for c in motion:
            self.b += fl(c, -0.05 * s, 0.05 * s)
        self.b += (cache + bytes(64))[:64]
        axis, count, outcome, ia, ib, frames = forged or ((1.0, 0.0, 0.0), 1, 1, (0, 0, 0, 0), (0, 0, 0, 0), 1)
        for c in axis:
            self.b += fl(c, -2.0, 2.0)
        self.b += u8(count) + u8(outcome) + bytes(ia) + bytes(ib) + u8(frames)
        if margin is None and feature is None and cast is None:
            return self.b
        if margin is None or margin == 0.0:
            self.b += u8(0)
        elif isinstance(margin, tuple):
            self.b += u8(15) + u8(margin[1])
        elif margin <= 0.1 * s:
            self.b += u8(6) + fl(margin, 0.0, 0.1 * s)
        else:
            self.b += u8(13) + fl(margin, 0.0, 2.0 * s)
        f = feature or {}
        self.b += u8(f.get("feature", 0)) + u8(f.get("ia", 0)) + u8(f.get("ib", 0)) + u8(f.get("outcome", 0))
        for c in f.get("axis", (0.0, 1.0, 0.0)):
            self.b += fl(c, -1.0, 1.0)
        self.b += fl(f.get("separation", 0.0), -s, s)
        for c in f.get("pos", (0.0, 0.0, 0.0)):
            self.b += fl(c, -3.0 * s, 3.0 * s)
        for c in f.get("rot", (0.0, 0.0, 0.0)):
            self.b += fl(c, -1.0, 1.0)
        self.b += u8(f.get("frames", 1))
        if cast is not None:
            self.b += self.cast_bytes(cast)
        return self.b

    def cast_bytes(self, c):
        """The cast section: "motion" 0 B through A's origin, 1 both decoded
        ("da", "db"), 2 B only ("db"), 3 through plus "off"; "turn_a",
        "turn_b": None (the no-rotation bit), ("other",), ("quat", q),
        ("small", axis, angle <= 0.3) or ("big", axis, angle <= pi), with
        "negate_a"/"negate_b" flipping the sign; "center_a", "center_b"
        (None: the origin, or a point in [-2 scale, 2 scale], or raw bytes);
        "target": a float (<= 0.05, 0.5 or 2 scale) or ("bad", index);
        "phase": u8."""
        s = self.s
        mode = c.get("motion", 0)
        b = u8(mode)
        rng = 6.0 * s
        if mode == 1:
            for v in c["da"] + c["db"]:
                b += fl(v, -rng, rng)
        elif mode == 2:
            for v in c["db"]:
                b += fl(v, -rng, rng)
        elif mode == 3:
            for v in c["off"]:
                b += fl(v, -s, s)
        for side in ("a", "b"):
            turn = c.get("turn_" + side)
            neg = 4 if c.get("negate_" + side) else 0
            if turn is None:
                b += u8(8 | neg)
            elif turn[0] == "other":
                b += u8(0 | neg)
            elif turn[0] == "quat":
                b += u8(1 | neg) + u8(1) + b"".join(fl(v, -1.0, 1.0) for v in turn[1])
            else:
                b += u8((2 if turn[0] == "small" else 3) | neg)
                b += b"".join(fl(v, -1.0, 1.0) for v in turn[1])
                b += fl(turn[2], 0.0, 0.3 if turn[0] == "small" else 3.14159265)
        for side in ("a", "b"):
            ctr = c.get("center_" + side)
            if ctr is None:
                b += u8(0)
            elif isinstance(ctr, bytes):
                b += u8(1) + ctr
            else:
                b += u8(1) + b"".join(fl(v, -2.0 * s, 2.0 * s) for v in ctr)
        t = c.get("target", 0.0)
        if isinstance(t, tuple):
            b += u8(7) + u8(t[1])
        elif t == 0.0:
            b += u8(0)
        elif t <= 0.05 * s:
            b += u8(1) + fl(t, 0.0, 0.05 * s)
        elif t <= 0.5 * s:
            b += u8(5) + fl(t, 0.0, 0.5 * s)
        else:
            b += u8(6) + fl(t, 0.0, 2.0 * s)
        return b + u8(c.get("phase", 0))


def unit(q):
    n = math.sqrt(sum(c * c for c in q))
    return [c / n for c in q]


def seeds():
    out = {}
    e = Enc()
    e.sphere(0.5); e.sphere(0.3)
    e.pose([0, 0, 0]); e.pose([1.2, 0.1, 0])
    out["01-sphere-sphere-sep"] = e.tail()

    e = Enc()
    e.box(0.5, 0.4, 0.3, 0.0); e.box(0.2, 0.6, 0.3, 0.05)
    e.pose([0.1, 0, 0], unit([0.1, 0.2, 0.3, 0.9])); e.pose([0.5, 0.2, -0.1], unit([-0.3, 0.1, 0.0, 0.8]))
    out["02-box-box-pen"] = e.tail()

    e = Enc()
    e.capsule(0.2, 0.5); e.box(0.5, 0.5, 0.5, 0.0)
    e.pose([0, 0, 0]); e.pose([0.7, 0, 0])  # touching: capsule radius 0.2 + box 0.5
    out["03-capsule-box-touch"] = e.tail()

    e = Enc()
    e.hull(0.0, 32, 0, {"seed": 7, "bases": [[0.2, 0.1, -0.1], [-0.3, 0.2, 0.1], [0.0, -0.4, 0.2]], "jitter": 0.3})
    e.hull(0.05, 64, 4, {"seed": 11, "R": 0.5})
    e.pose([0, 0, 0], unit([0.3, 0.1, 0.2, 0.9])); e.pose([0.4, 0.1, 0.0], unit([0.0, 0.5, 0.1, 0.7]))
    out["04-hull-hull-pen"] = e.tail()

    e = Enc()
    e.hull(0.0, 16, 1, {"seed": 3, "o": [0, 0, 0], "u": [0.5, 0, 0], "v": [0, 0.5, 0]})
    e.sphere(0.25)
    e.pose([0, 0, 0]); e.pose([0.1, 0.1, 0.2])
    out["05-coplanar-hull-sphere"] = e.tail()

    e = Enc()
    e.hull(0.1, 9, 2, {"seed": 5, "o": [0.1, 0, 0], "u": [0.6, 0.2, -0.1]})
    e.capsule(0.1, 0.4)
    e.pose([0, 0, 0], unit([0.0, 0.0, 0.4, 0.9])); e.pose([0.3, 0.5, 0.0])
    out["06-collinear-hull-capsule"] = e.tail()

    e = Enc()
    e.hull(0.0, 1000, 4, {"seed": 99, "R": 0.8})
    e.box(0.3, 0.3, 0.3, 0.0)
    e.pose([0, 0, 0]); e.pose([1.0, 0.2, 0.1], unit([0.2, 0.2, 0.2, 0.9]))
    out["07-hull1000-box"] = e.tail()

    e = Enc()
    e.b += u8(0) + nasty("nan")  # sphere with a NaN radius
    e.sphere(0.3)
    e.pose([0, 0, 0]); e.pose([1, 0, 0])
    out["08-nan-radius"] = e.tail()

    e = Enc()
    e.sphere(0.5); e.box(0.2, 0.2, 0.2, 0.0)
    e.pose([0, 0, 0]); e.pose([0.5, 0, 0], [0.5, 0.5, 0.5, 0.5], qmode=4)  # scaled quaternion
    e.b = e.b[:-12] + fl(1.5, 0.0, 2.0) + e.b[-12:]  # mode 4 reads the factor before q
    out["09-nonunit-quat"] = e.tail()

    e = Enc()
    e.hull(0.02, 40, 0, {"seed": 1, "bases": [[0.3, 0, 0], [0, 0.3, 0], [0, 0, 0.3], [-0.2, -0.2, -0.2]], "jitter": 0.0},
           dup=2)
    e.hull(0.0, 12, 5, {"seed": 2, "h": [0.2, 0.3, 0.1]})
    e.pose([0, 0, 0]); e.pose([0.05, 0.05, 0.05], unit([0.1, 0.0, 0.0, 1.0]))
    out["10-duplicate-points"] = e.tail(forged=((0.0, 0.0, 0.0), 4, 2, (0, 1, 2, 3), (0, 1, 2, 3), 255))

    e = Enc(scale_index=11)
    e.box(1.0e6, 2.0e5, 3.0e5, 0.0); e.sphere(4.0e5)
    e.pose([1.0e6, 0, 0]); e.pose([2.2e6, 1.0e5, 0])
    out["11-large-scale"] = e.tail()

    e = Enc(scale_index=4)
    e.capsule(1.0e-3, 2.0e-3); e.hull(0.0, 8, 5, {"seed": 8, "h": [1e-3, 1e-3, 1e-3]})
    e.pose([0, 0, 0]); e.pose([2.5e-3, 0, 0])
    out["12-small-scale"] = e.tail()

    e = Enc(mode=31)  # deliberate NULL arguments
    e.sphere(0.5); e.box(0.2, 0.2, 0.2, 0.0)
    e.pose([0, 0, 0]); e.pose([1, 0, 0])
    out["13-null-arguments"] = e.tail()

    # contact manifolds: margins, resting faces, speculative contacts, a
    # forged feature state
    e = Enc()
    e.box(0.5, 0.5, 0.5, 0.0); e.box(0.4, 0.3, 0.4, 0.0)
    e.pose([0, 0, 0]); e.pose([0.1, 0.79, -0.05], unit([0.0, 0.05, 0.0, 1.0]))
    out["20-box-resting-on-box-margin"] = e.tail(motion=(0.002, 0.004, 0.0), margin=0.02)

    e = Enc()
    e.box(0.5, 0.5, 0.5, 0.0); e.box(0.3, 0.3, 0.3, 0.02)
    e.pose([0, 0, 0], unit([0.0, 0.0, 0.3, 0.95])); e.pose([0.45, 0.95, 0.1], unit([0.4, 0.1, 0.2, 0.9]))
    out["21-box-box-edges-speculative"] = e.tail(margin=0.08)

    e = Enc()
    e.hull(0.0, 8, 5, {"seed": 21, "h": [0.4, 0.2, 0.3]}); e.box(0.6, 0.2, 0.6, 0.0)
    e.pose([0, 0.39, 0]); e.pose([0, 0, 0])
    out["22-hull-face-on-box-margin"] = e.tail(margin=0.01, feature={"feature": 2, "ia": 2, "outcome": 2,
                                                                  "axis": (0.0, -1.0, 0.0), "separation": -0.01})

    e = Enc()
    e.capsule(0.1, 0.4); e.box(0.5, 0.1, 0.5, 0.0)
    e.pose([0, 0.195, 0], unit([0.0, 0.0, 0.7071, 0.7071])); e.pose([0, 0, 0])
    out["23-capsule-lying-on-box"] = e.tail(margin=0.03)

    e = Enc()
    e.hull(0.02, 40, 4, {"seed": 5, "R": 0.5}); e.hull(0.0, 12, 0, {"seed": 9, "bases": [[0.2, 0, 0], [0, 0.3, 0],
                                                                                         [0, 0, -0.2]], "jitter": 0.2})
    e.pose([0, 0, 0], unit([0.1, 0.3, 0.0, 0.9])); e.pose([0.6, 0.2, 0.1], unit([0.3, 0.0, 0.1, 0.9]))
    out["24-hulls-speculative-large-margin"] = e.tail(margin=0.5)

    e = Enc()
    e.box(0.5, 0.5, 0.5, 0.0); e.sphere(0.3)
    e.pose([0, 0, 0]); e.pose([0.7, 0.2, 0])
    out["25-bad-margin-nan"] = e.tail(margin=("bad", 3))

    # casts and times of impact (the cast section)
    e = Enc()
    e.box(1.0, 1.0, 0.1, 0.0); e.sphere(0.1)
    e.pose([0, 0, 0]); e.pose([0.2, -0.1, 2.5])
    out["26-cast-bullet-through-plank"] = e.tail(cast={"motion": 2, "db": (0.0, 0.3, -5.0), "target": 0.01,
                                                       "turn_b": ("big", (1.0, 0.0, 0.0), 3.0)})

    e = Enc()
    e.hull(0.0, 24, 4, {"seed": 4, "R": 0.6}); e.box(0.3, 0.3, 0.3, 0.02)
    e.pose([0, 0, 0], unit([0.1, 0.2, 0.0, 0.9])); e.pose([1.5, 0.4, 0.0])
    out["27-cast-spinning-hull-into-box"] = e.tail(cast={"motion": 1, "da": (0.5, 0.0, 0.0), "db": (-0.5, 0.0, 0.0),
                                                         "turn_a": ("big", (0.0, 0.0, 1.0), 2.5),
                                                         "turn_b": ("small", (0.3, 1.0, 0.0), 0.25),
                                                         "center_a": (0.2, 0.0, 0.0), "target": 0.02, "phase": 77})

    e = Enc()
    e.capsule(0.1, 0.8); e.sphere(0.2)
    e.pose([0, 0, 0]); e.pose([0.6, 0.9, 0.0])
    out["28-cast-capsule-swinging-past-sphere"] = e.tail(cast={"motion": 2, "db": (0.0, -0.3, 0.0),
                                                               "turn_a": ("quat", unit([0.0, 0.0, -0.5, 0.87])),
                                                               "center_a": (0.0, -0.8, 0.0), "target": 0.005})

    e = Enc()
    e.box(0.4, 0.4, 0.4, 0.0); e.capsule(0.1, 0.3)
    e.pose([0, 0, 0]); e.pose([2.0, 0.3, 0.0], unit([0.0, 0.0, 0.7071, 0.7071]))
    out["29-cast-graze-through-offset"] = e.tail(cast={"motion": 3, "off": (0.0, 0.99, 0.0), "turn_a": None,
                                                       "turn_b": ("other",), "negate_b": True, "target": 0.0})

    e = Enc()
    e.box(0.5, 0.2, 0.3, 0.0); e.box(0.3, 0.3, 0.3, 0.0)
    e.pose([0, 0, 0]); e.pose([0.6, 0.1, 0.0])
    out["30-cast-start-overlapping"] = e.tail(cast={"motion": 1, "da": (0.1, 0.0, 0.0), "db": (1.0, 0.0, 0.0),
                                                    "turn_a": ("small", (0.0, 1.0, 0.0), 0.3), "target": 0.01})

    e = Enc()
    e.sphere(0.5); e.box(0.2, 0.2, 0.2, 0.0)
    e.pose([0, 0, 0]); e.pose([2.0, 0, 0])
    out["31-cast-bad-target-nan"] = e.tail(cast={"motion": 0, "target": ("bad", 3)})

    e = Enc()
    e.sphere(0.5); e.capsule(0.1, 0.4)
    e.pose([0, 0, 0]); e.pose([2.0, 0, 0])
    out["32-cast-nan-center"] = e.tail(cast={"motion": 0, "turn_b": ("big", (0.0, 0.0, 1.0), 1.0),
                                             "center_b": nasty("nan") + fl(0.0, -2.0, 2.0) + fl(0.0, -2.0, 2.0),
                                             "target": 0.01})
    return out


def encode_pair(text, motion=(0.0, 0.0, 0.0)):
    """Exact fuzz_queries bytes for a pair written in case-file syntax
    (tests/data/FORMAT.md): '<shapeA> <poseA> <shapeB> <poseB>', an optional
    leading id and trailing expectation ignored. Every value is encoded as
    raw float bits, hulls with the raw-points generator, quaternions with the
    'components from the input' mode, so the decoded pair is exactly the
    written one (after rounding to float)."""
    t = text.split()
    if t and t[0] not in ("sphere", "capsule", "box", "hull"):
        t = t[1:]
    i = 0

    def shape():
        nonlocal i
        kind = t[i]
        if kind == "sphere":
            b = u8(0) + raw(float(t[i + 1]))
            i += 2
        elif kind == "capsule":
            b = u8(1) + raw(float(t[i + 1])) + raw(float(t[i + 2]))
            i += 3
        elif kind == "box":  # file: box r hx hy hz; decoder: hx hy hz r
            r, hx, hy, hz = (float(v) for v in t[i + 1:i + 5])
            b = u8(2) + raw(hx) + raw(hy) + raw(hz) + raw(r)
            i += 5
        elif kind == "hull":
            r, n = float(t[i + 1]), int(t[i + 2])
            assert n <= 5000
            b = u8(3) + raw(r) + u8(7) + u16(n)  # count mode 7: u16 % 5001
            b += u8(3) + struct.pack("<I", 0)  # raw-points generator, seed
            for v in t[i + 3:i + 3 + 3 * n]:
                b += raw(float(v))
            b += u8(0) + u8(0) + u8(15)  # no duplicates, no poison, good memory
            i += 3 + 3 * n
        else:
            raise ValueError("unknown shape " + kind)
        return b

    def pose():
        nonlocal i
        px, py, pz, qw, qx, qy, qz = (float(v) for v in t[i:i + 7])
        i += 7
        return raw(px) + raw(py) + raw(pz) + u8(6) + raw(qx) + raw(qy) + raw(qz) + raw(qw)

    sa = shape()
    pa = pose()
    sb = shape()
    pb = pose()
    body = u8(0) + u8(0) + sa + sb + pa + pb + b"".join(raw(c) for c in motion)
    # an empty raw cache, a harmless forged one (axis 1 0 0, one point, separated)
    return body + bytes(64) + raw(1.0) + raw(0.0) + raw(0.0) + u8(1) + u8(1) + bytes(8) + u8(1)


if __name__ == "__main__":
    import sys
    if len(sys.argv) >= 3 and sys.argv[1] == "--encode":
        # make_query_seeds.py --encode OUTFILE 'case line' [dx dy dz]
        mot = tuple(float(v) for v in sys.argv[4:7]) if len(sys.argv) >= 7 else (0.0, 0.0, 0.0)
        with open(sys.argv[2], "wb") as f:
            f.write(encode_pair(sys.argv[3], mot))
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        print(name, len(data))
