#!/usr/bin/python3
"""Merges mink-bench JSON runs, prints the comparison table, draws the chart.

Usage: bench_table.py --out-dir DIR [--name NAME] [--note TEXT ...] RUN.json...

Reads Google Benchmark JSON from one or more mink-bench runs (bench.sh: one
per SIMD build, query type and repetition), takes the median of the
repetitions (the "median" aggregate when present, else the median of the
iteration runs, one per file), and writes
into DIR:
  NAME.json  the runs merged (Google Benchmark format: compare.py reads it)
  NAME.txt   the table printed on stdout
  NAME.png   cycles/query per group and implementation (needs gnuplot)
The per-query tables (intersect, distance, penetration) compare the best
SIMD width with ref and with the best exact peer: the fastest implementation
of any library (every peer and algorithm that ran) whose ok column says it
answered every case of the group right; "n/a" marks a group a peer does not
take (not timed).
The contact manifolds, manifold/<group>/<impl>, get a table of the same
form (groups of manifold.cases, then the box and hull groups of
bench.cases), with the mean contact count and the speedup over the peer
(Bullet) whatever its ok fraction, and the target against each peer.
After the per-query tables come the families' tables, when they ran:
  coherence  coherence/<query>/<impl>-cold|warm (traj.cases): per query and
             cache mode, ns, cycles, supports and GJK iterations per query,
             the warm speedup over cold, and the cache targets checked
             (manifold, manifold-held: contact manifolds, every frame and
             the frames whose deciding feature held)
  batch      batch/<query>/<kind>/<impl>-<variant>: Mpairs/s of the batch
             entry points, the loop of single queries and the 2-thread _mt
             variant, and their ratios to the loop
The shape casts, cast/<group>/<impl> (groups of cast.cases), get a table of
the per-query form after the manifolds: ns and cycles per cast for ref, each
SIMD width and each peer with its ok fraction, and the best width against
ref and against the fastest peer that is right on >= 99 % of the group ("-"
when none is), then the mean iterations per cast.
Python 3 standard library only (Debian's /usr/bin/python3).
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

QUERIES = ["intersect", "distance", "penetration", "manifold"]
SIMD_ORDER = ["sse41", "avx2", "avx512", "neon", "portable"]
# A peer is "exact" on a group of the per-query tables when its ok column
# says it answered every case of the group right; the best-exact-peer column
# takes the fastest such implementation of any library (every peer, every
# algorithm). The cast table keeps its looser bar (>= 99 % right): no cast
# peer is right on every case.
EXACT = 1.0
CAST_EXACT = 0.99
# manifold/<group>/<impl>: the issue's target, best SIMD against the peer.
MANIFOLD_PEER_TARGET = 4.0


def load_runs(paths):
    """Returns (contexts, benchmark entries) of every readable file."""
    contexts, entries = [], []
    for path in paths:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            print(f"bench_table: skipping {path}: {e}", file=sys.stderr)
            continue
        ctx = data.get("context", {})
        contexts.append(ctx)
        for b in data.get("benchmarks", []):
            entries.append(b)
    return contexts, entries


# Peers in the order mink-bench registers them; unknown ones after, as seen
# (random interleaving shuffles the order of the JSON entries).
PEER_ORDER = ["ccd", "ccd-mpr", "bullet", "bullet-gjkepa2", "fcl-indep", "fcl-ccd", "bullet-gjk",
              "bullet-gjkcast", "bullet-ccd"]


# What each peer of the per-query tables runs (bench/peers/).
QUERY_PEERS = {
    "ccd": "libccd GJK intersect, GJK+EPA penetration",
    "ccd-mpr": "libccd MPR intersect and penetration (depth along the centre line)",
    "bullet": "Bullet btGjkPairDetector (+ btGjkEpaPenetrationDepthSolver)",
    "bullet-gjkepa2": "Bullet btGjkEpaSolver2::Distance on the cores, ::Penetration when they overlap",
    "fcl-indep": "FCL GJKSolver_indep (FCL's GJK, EPA, closed forms) on shapes",
    "fcl-ccd": "FCL GJKSolver_libccd (MPR intersect, GJK distance, GJK+EPA signed distance for "
               "penetration, closed forms) on shapes",
}


def impl_key(impl):
    """Display order: ref, simd widths narrow to wide, GJK alone, then the peers."""
    if impl == "ref":
        return (0, 0, impl)
    if impl.startswith("simd-gjk-"):
        w = impl[9:]
        return (1.5, SIMD_ORDER.index(w) if w in SIMD_ORDER else len(SIMD_ORDER), impl)
    if impl.startswith("simd-"):
        w = impl[5:]
        return (1, SIMD_ORDER.index(w) if w in SIMD_ORDER else len(SIMD_ORDER), impl)
    return (2, PEER_ORDER.index(impl) if impl in PEER_ORDER else len(PEER_ORDER), impl)


def family(impl):
    """ref, simd (a width of mink's SIMD kernel), gjk (the same kernel's
    intersect and penetration by GJK alone: simd-gjk-<width>, shown, never
    "best"), peer."""
    if impl == "ref":
        return "ref"
    if impl.startswith("simd-gjk-"):
        return "gjk"
    return "simd" if impl.startswith("simd-") else "peer"


# Benchmark families with their own tables (not <query>/<group>/<impl>).
FAMILY_PREFIXES = ("coherence/", "batch/", "cast/")


def collect(entries, only=None):
    """results[query][group][impl] -> dict(cyc, ns, ok, iters, error, reps).
    only: a family prefix ("cast/") whose <family>/<group>/<impl> entries to
    take instead of the per-query ones."""
    medians, iters, errors = {}, {}, {}
    for b in entries:
        name = b.get("run_name", b.get("name", ""))
        if name.count("/") != 2:
            continue
        if (not name.startswith(only)) if only else name.startswith(FAMILY_PREFIXES):
            continue
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
        else:
            iters.setdefault(name, []).append(b)

    results, groups = {}, []
    for name in list(medians) + list(iters) + list(errors):
        query, group, impl = name.split("/")
        if group not in groups:
            groups.append(group)
        if family(impl) == "peer" and impl not in PEER_ORDER:
            PEER_ORDER.append(impl)
        cell = results.setdefault(query, {}).setdefault(group, {}).get(impl)
        if cell is not None:
            continue
        cell = {"cyc": None, "ns": None, "ok": None, "iters": None, "scalar": None, "pts": None,
                "error": None, "reps": 0}
        if name in medians:
            m = medians[name]
            cell.update(cyc=m.get("tsc_cycles/query"), ns=m.get("ns/query"), ok=m.get("ok_frac"),
                        iters=m.get("iters/query"), scalar=m.get("scalar_checked_frac"),
                        pts=m.get("points/query"), reps=m.get("repetitions", 0))
        elif name in iters:
            runs = iters[name]

            def med(key):
                vals = [r[key] for r in runs if key in r]
                return statistics.median(vals) if vals else None

            cell.update(cyc=med("tsc_cycles/query"), ns=med("ns/query"), ok=med("ok_frac"),
                        iters=med("iters/query"), scalar=med("scalar_checked_frac"),
                        pts=med("points/query"), reps=len(runs))
        else:
            cell["error"] = errors[name]
        results[query][group][impl] = cell
    return results, groups


def fmt(x):
    """3 significant digits, k for thousands, M for millions: 403, 1.41k, 13.8k, 154k, 48.9M."""
    if x is None or not math.isfinite(x):
        return "-"
    if x >= 999500:
        m = x / 1e6
        return f"{m:.0f}M" if m >= 99.95 else f"{m:.1f}M" if m >= 9.995 else f"{m:.2f}M"
    if x >= 99950:
        return f"{x / 1e3:.0f}k"
    if x >= 9995:
        return f"{x / 1e3:.1f}k"
    if x >= 999.5:
        return f"{x / 1e3:.2f}k"
    if x >= 9.995:
        return f"{x:.0f}"
    return f"{x:.1f}"


def unsupported(msg):
    """mink-bench's message for a group a peer does not take (not timed)."""
    return (msg or "").startswith("unsupported:")


def short_error(msg):
    """'3/200 wrong; first ...' -> 'wrong 3/200'; a group the peer does not
    take -> 'n/a'; anything else -> 'error'."""
    if unsupported(msg):
        return "n/a"
    head = msg.split(";")[0].strip()
    if head.endswith(" wrong"):
        return "wrong " + head[:-6]
    return "error"


def kind_only(cell, query):
    """A peer whose penetration answers were checked on the kind only (it
    reported no distance for some cases, where mink's are checked in full)."""
    return query == "penetration" and cell.get("scalar") is not None and cell["scalar"] < 1.0


# The ok column's mark for a share checked partly on the kind only: a
# letter after "100" read as a thousand ("100k"); a dagger cannot be.
KIND_ONLY_MARK = "\u2020"


def fmt_ok(cell, query):
    """ok as a percentage, KIND_ONLY_MARK when part of it was checked on the kind only."""
    ok = cell.get("ok")
    if ok is None:
        return f"{'-':>5}"
    pct = 100.0 * ok
    text = "100" if pct >= 99.95 else f"{pct:.1f}"
    return f"{text + (KIND_ONLY_MARK if kind_only(cell, query) else ''):>5}"


def geomean(vals):
    vals = [v for v in vals if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def is_exact(cell, bar=EXACT):
    """The cell's ok fraction says the peer answered (at least `bar` of) the
    group right; bar 1.0: every case."""
    ok = cell.get("ok")
    return ok is not None and ok >= bar - 1e-12


def query_table(query, rows, groups, impls, exact_bar=EXACT):
    """Lines of one query's table; also returns the notes it raised.
    Manifolds add the mean contact count (pts, from mink's cells) and compare
    with the fastest peer whatever its ok fraction (no peer is exact there).
    Otherwise the last column compares with the fastest exact peer of any
    library (is_exact at exact_bar)."""
    notes = []
    kinds = set()
    na = set()
    manifold = query == "manifold"
    present = [i for i in impls if any(i in rows.get(g, {}) for g in groups)]
    if not present:
        return [], notes
    gw = max([len("group")] + [len(g) for g in groups] + [len("geomean")])
    if manifold:
        gw += 5  # " pts"
    width = {}
    for i in present:
        width[i] = max(len(i), 6 + 1 + 6 + (6 if family(i) == "peer" else 0))
    head1 = f"{'':<{gw}}"
    head2 = f"{'group':<{gw - 5}} {'pts':>4}" if manifold else f"{'group':<{gw}}"
    for i in present:
        head1 += "  " + f"{i:^{width[i]}}"
        sub = f"{'ns':>6} {'cyc':>6}" + (f" {'ok%':>5}" if family(i) == "peer" else "")
        head2 += "  " + f"{sub:>{width[i]}}"
    # "0.65x bullet-gjk": wide enough for the longest peer name present
    pw = max(17 if manifold else 15,
             max((7 + len(i) for i in present if family(i) == "peer"), default=0))
    head1 += "  " + f"{'best simd vs':^{pw + 7}}"
    head2 += "  " + f"{'ref':>6} {'peer' if manifold else 'exact peer':>{pw}}"
    lines = [head1, head2, "-" * len(head2)]

    per_impl = {i: [] for i in present}
    sp_ref, sp_peer, peer_groups = [], [], {}
    missing = {i: 0 for i in present}
    for g in groups:
        row = rows.get(g, {})
        line = f"{g:<{gw}}"
        if manifold:
            pts = [row[i]["pts"] for i in present if family(i) != "peer" and i in row
                   and not row[i]["error"] and row[i]["pts"] is not None]
            line = f"{g:<{gw - 5}} {(f'{pts[0]:.2f}' if pts else '-'):>4}"
        for i in present:
            c = row.get(i)
            if c is None:
                text = "-"
                missing[i] += 1
            elif c["error"]:
                text = short_error(c["error"])
                missing[i] += 1
                if unsupported(c["error"]):
                    na.add(i)
                else:
                    notes.append(f"{query}/{g}/{i}: {c['error']}")
            else:
                text = f"{fmt(c['ns']):>6} {fmt(c['cyc']):>6}"
                if family(i) == "peer":
                    text += " " + fmt_ok(c, query)
                    if kind_only(c, query):
                        kinds.add(i)
                per_impl[i].append(c["cyc"])
            line += "  " + f"{text:>{width[i]}}"
        simd = [(row[i]["cyc"], i) for i in present
                if family(i) == "simd" and i in row and not row[i]["error"] and row[i]["cyc"]]
        best = min(simd) if simd else None
        ref = row.get("ref")
        s_ref = s_peer = "-"
        if best and ref and not ref["error"] and ref["cyc"]:
            r = ref["cyc"] / best[0]
            sp_ref.append(r)
            s_ref = f"{r:.2f}x"
        exact = [(row[i]["cyc"], i) for i in present
                 if family(i) == "peer" and i in row and not row[i]["error"] and row[i]["cyc"]
                 and (manifold or (is_exact(row[i], exact_bar) and not kind_only(row[i], query)))]
        if best and exact:
            pc, pi = min(exact)
            r = pc / best[0]
            sp_peer.append(r)
            s_peer = f"{r:.2f}x {pi}"
            for pc, pi in exact:
                peer_groups.setdefault(pi, []).append((pc / best[0], g))
        line += "  " + f"{s_ref:>6} {s_peer:>{pw}}"
        lines.append(line)

    line = f"{'geomean':<{gw}}"
    for i in present:
        gm = geomean(per_impl[i])
        text = f"{'':>6} {fmt(gm):>6}" + ("*" if missing[i] and gm else "")
        if family(i) == "peer":
            text += "      "
        line += "  " + f"{text:>{width[i]}}"
    gr, gp = geomean(sp_ref), geomean(sp_peer)
    line += "  " + f"{(f'{gr:.2f}x' if gr else '-'):>6} {(f'{gp:.2f}x' if gp else '-'):>{pw}}"
    lines.append("-" * len(head2))
    lines.append(line)
    if any(missing[i] and per_impl[i] for i in present):
        notes.append(f"{query}: * geomean over fewer groups (some missing or failed)")
    if na:
        notes.append(f"{query}: n/a = {', '.join(sorted(na, key=impl_key))} does not take some pair of the "
                     "group (a shape it has no model of): not timed there")
    if kinds:
        notes.append(f"{query}: {KIND_ONLY_MARK} = {', '.join(sorted(kinds))} reported no distance for separated "
                     "pairs; checked on the kind only there, and not an exact peer (a boolean answers less)")
    for pi in sorted(peer_groups if manifold else [], key=impl_key):
        low, low_g = min(peer_groups[pi])
        ok = low >= MANIFOLD_PEER_TARGET
        lines.append(f"target: best simd >= {MANIFOLD_PEER_TARGET:.0f}x fewer cycles than {pi} on every group "
                     f"it runs: {'met' if ok else 'NOT met'} (lowest {low:.2f}x, {low_g})")
    if manifold:
        notes.append("manifold: margin 0.025 (manifold.cases' speculative margin), cold; pts = mean "
                     "contact count; mink and the peer are checked by the same rules "
                     "(case_check_manifold; bench.cases groups have no patches: count, normal, "
                     "separations and surfaces only); the speedup over the fastest peer is shown "
                     "whatever its ok%; - for a peer: a group it does not take (spheres, capsules); "
                     "bullet = btBoxBoxDetector and btPolyhedralContactClipping's separating-axis "
                     "test, bullet-gjk = the same with GJK/EPA's normal for hulls (Bullet's default "
                     "path; bench/peers/bullet_manifold_peer.cc)")
    return lines, notes


def family_cells(entries, prefix):
    """name -> dict of median counters (plus "error") of the benchmarks whose
    name starts with prefix: the "median" aggregate when present, else the
    median of the iteration runs."""
    medians, iters, errors = {}, {}, {}
    for b in entries:
        name = b.get("run_name", b.get("name", ""))
        if not name.startswith(prefix):
            continue
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
        elif b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
        else:
            iters.setdefault(name, []).append(b)
    cells = {}
    for name in list(medians) + list(iters) + list(errors):
        if name in cells:
            continue
        if name in medians:
            m = medians[name]
            cell = {k: v for k, v in m.items() if isinstance(v, (int, float))}
            cell["reps"] = m.get("repetitions", 0)
        elif name in iters:
            runs = iters[name]
            keys = {k for r in runs for k, v in r.items() if isinstance(v, (int, float))}
            cell = {k: statistics.median([r[k] for r in runs if k in r]) for k in keys}
            cell["reps"] = len(runs)
        else:
            cell = {}
        cell["error"] = errors.get(name) if name not in medians and name not in iters else None
        cells[name] = cell
    return cells


# impl-mode / impl-variant: the impl is "ref" or "simd-<backend>".
IMPL_SUFFIX = re.compile(r"^(ref|simd-[A-Za-z0-9_]+)-(.+)$")
COHERENCE_QUERIES = ["intersect", "intersect-sep", "distance", "penetration", "manifold",
                     "manifold-held"]
COHERENCE_TARGETS = {"sep_supports": 1.5, "sep_speedup": 3.0, "distance_gjk": 2.0,
                     "held_speedup": 3.0}


def coherence_table(entries):
    """Lines of the coherence table, and its notes."""
    cells = family_cells(entries, "coherence/")
    table = {}  # (query, mode) -> impl -> cell
    impls, frames = set(), {}
    for name, cell in cells.items():
        parts = name.split("/")
        if len(parts) != 3:
            continue
        m = IMPL_SUFFIX.match(parts[2])
        if not m or m.group(2) not in ("cold", "warm"):
            continue
        query, impl, mode = parts[1], m.group(1), m.group(2)
        impls.add(impl)
        table.setdefault((query, mode), {})[impl] = cell
        if cell.get("queries/pass"):
            frames[query] = cell["queries/pass"]
        if cell.get("trajectories"):
            frames["trajectories"] = cell["trajectories"]
    if not table:
        return [], []
    impls = sorted(impls, key=impl_key)
    queries = [q for q in COHERENCE_QUERIES if any((q, m) in table for m in ("cold", "warm"))]
    queries += sorted({q for q, _ in table} - set(queries))
    notes = []

    def cyc(query, mode, impl):
        c = table.get((query, mode), {}).get(impl)
        return c.get("tsc_cycles/query") if c and not c.get("error") else None

    sub = f"{'ns':>6} {'cyc':>6} {'sup/q':>6} {'gjk/q':>6} {'w/c':>6}"
    qw = max(len("query"), max(len(q) for q in queries))
    head1 = f"{'':<{qw}} {'':<4}"
    head2 = f"{'query':<{qw}} {'mode':<4}"
    for i in impls:
        w = max(len(i), len(sub))
        head1 += "  " + f"{i:^{w}}"
        head2 += "  " + f"{sub:>{w}}"
    lines = [head1, head2, "-" * len(head2)]
    for q in queries:
        for mode in ("cold", "warm"):
            if (q, mode) not in table:
                continue
            line = f"{q:<{qw}} {mode:<4}"
            for i in impls:
                w = max(len(i), len(sub))
                c = table[(q, mode)].get(i)
                if c is None:
                    text = "-"
                elif c.get("error"):
                    text = short_error(c["error"])
                    notes.append(f"coherence/{q}/{i}-{mode}: {c['error']}")
                else:
                    sp = "-"
                    cold, warm = cyc(q, "cold", i), cyc(q, "warm", i)
                    if mode == "warm" and cold and warm:
                        sp = f"{cold / warm:.2f}x"
                    def count(key):  # manifolds report no supports or iterations
                        v = c.get(key)
                        return f"{v:>6.2f}" if v is not None else f"{'-':>6}"

                    text = (f"{fmt(c.get('ns/query')):>6} {fmt(c.get('tsc_cycles/query')):>6} "
                            f"{count('supports/query')} {count('gjk_iters/query')} {sp:>6}")
                line += "  " + f"{text:>{w}}"
            lines.append(line)
        lines.append("")
    if lines[-1] == "":
        lines.pop()

    # The cache issue's targets, per implementation.
    def stat(query, mode, impl, key):
        c = table.get((query, mode), {}).get(impl)
        return c.get(key) if c and not c.get("error") else None

    def verdict(ok):
        return "met" if ok else "NOT met"

    t = COHERENCE_TARGETS
    for i in impls:
        parts = []
        sup = stat("intersect-sep", "warm", i, "supports/query")
        if sup is not None:
            parts.append(f"warm intersect-sep supports/query {sup:.2f} (<= {t['sep_supports']}: "
                         f"{verdict(sup <= t['sep_supports'])})")
        cold, warm = cyc("intersect-sep", "cold", i), cyc("intersect-sep", "warm", i)
        if cold and warm:
            parts.append(f"intersect-sep cold/warm {cold / warm:.2f}x (>= {t['sep_speedup']:.0f}x: "
                         f"{verdict(cold / warm >= t['sep_speedup'])})")
        gc, gw = stat("distance", "cold", i, "gjk_iters/query"), stat("distance", "warm", i, "gjk_iters/query")
        if gc and gw is not None:
            r = gc / gw if gw > 0 else float("inf")
            parts.append(f"distance GJK iterations cold/warm {gc:.2f}/{gw:.2f} = {r:.2f}x "
                         f"(>= {t['distance_gjk']:.0f}x: {verdict(r >= t['distance_gjk'])})")
        cold, warm = cyc("manifold-held", "cold", i), cyc("manifold-held", "warm", i)
        if cold and warm:
            parts.append(f"manifold-held cold/warm {cold / warm:.2f}x (>= {t['held_speedup']:.0f}x: "
                         f"{verdict(cold / warm >= t['held_speedup'])})")
        if parts:
            lines.append(f"targets {i}: " + "; ".join(parts))
    head = "== coherence =="
    if frames:
        bits = []
        every = frames.get("intersect") or frames.get("distance") or frames.get("manifold")
        if every:
            bits.append(f"{every:.0f} frames")
        if frames.get("trajectories"):
            bits.append(f"{frames['trajectories']:.0f} trajectories")
        if "intersect-sep" in frames:
            bits.append(f"intersect-sep: the {frames['intersect-sep']:.0f} separated frames")
        if "manifold-held" in frames:
            bits.append(f"manifold-held: the {frames['manifold-held']:.0f} frames whose feature held")
        head = f"== coherence ({'; '.join(bits)}) =="
    notes.append("coherence: ns, cyc per frame; sup/q = support evaluations (pairs), gjk/q = GJK "
                 "iterations per frame; w/c = warm speedup over cold, in cycles; warm = one cache "
                 "per trajectory, emptied at the start of every pass (intersect-sep, manifold-held: "
                 "each frame from its snapshot of the cache after the previous frame)")
    if any(q in ("manifold", "manifold-held") for q, _ in table):
        notes.append("coherence manifold: contact manifolds at margin 0.025; manifold-held: the "
                     "frames picked from the cold answers where the previous frame's deciding feature "
                     "still decides (both beyond the margin; or a box/hull pair in contact with the "
                     "same normal in A's or B's frame); see bench/bench_coherence.c, held_frames")
    return [head] + lines, notes


BATCH_VARIANTS = ["loop", "batch", "batch-mt2"]
BATCH_KINDS = ["box-box", "sphere-box", "capsule-capsule"]


def batch_table(entries):
    """Lines of the batch table, and its notes."""
    cells = family_cells(entries, "batch/")
    table = {}  # (kind, query) -> impl -> variant -> cell
    impls, variants, pairs = set(), [], None
    for name, cell in cells.items():
        parts = name.split("/")
        if parts[-1] == "real_time":  # Google Benchmark's suffix for UseRealTime
            parts.pop()
        if len(parts) != 4:
            continue
        m = IMPL_SUFFIX.match(parts[3])
        if not m:
            continue
        query, kind, impl, variant = parts[1], parts[2], m.group(1), m.group(2)
        impls.add(impl)
        if variant not in variants:
            variants.append(variant)
        table.setdefault((kind, query), {}).setdefault(impl, {})[variant] = cell
        pairs = pairs or cell.get("pairs/pass")
    if not table:
        return [], []
    impls = sorted(impls, key=impl_key)
    variants.sort(key=lambda v: BATCH_VARIANTS.index(v) if v in BATCH_VARIANTS else len(BATCH_VARIANTS))
    others = [v for v in variants if v != "loop"]
    notes = []
    sub = " ".join(f"{v:>9}" for v in variants)
    if "loop" in variants:
        sub += " " + " ".join(f"{v + '/loop':>14}" for v in others)
    kw = max([len("kind")] + [len(k) for k, _ in table])
    qw = max([len("query")] + [len(q) for _, q in table])
    head1 = f"{'':<{kw}} {'':<{qw}}"
    head2 = f"{'kind':<{kw}} {'query':<{qw}}"
    for i in impls:
        w = max(len(i), len(sub))
        head1 += "  " + f"{i:^{w}}"
        head2 += "  " + f"{sub:>{w}}"
    lines = [head1, head2, "-" * len(head2)]
    kinds = sorted({k for k, _ in table},
                   key=lambda k: (BATCH_KINDS.index(k) if k in BATCH_KINDS else len(BATCH_KINDS), k))
    for k in kinds:
        for q in ("penetration", "intersect"):
            if (k, q) not in table:
                continue
            line = f"{k:<{kw}} {q:<{qw}}"
            for i in impls:
                w = max(len(i), len(sub))
                row = table[(k, q)].get(i, {})
                rate = {}
                texts = []
                for v in variants:
                    c = row.get(v)
                    if c is None:
                        texts.append(f"{'-':>9}")
                    elif c.get("error"):
                        texts.append(f"{short_error(c['error']):>9}")
                        notes.append(f"batch/{q}/{k}/{i}-{v}: {c['error']}")
                    else:
                        rate[v] = c.get("pairs/s")
                        texts.append(f"{(rate[v] or 0) / 1e6:>9.2f}")
                if "loop" in variants:
                    for v in others:
                        r = (f"{rate[v] / rate['loop']:.2f}x" if rate.get(v) and rate.get("loop")
                             else "-")
                        texts.append(f"{r:>14}")
                line += "  " + f"{' '.join(texts):>{w}}"
            lines.append(line)
    head = "== batch (Mpairs/s" + (f", {pairs:.0f} pairs per kind" if pairs else "") + \
        ", cold; x/loop = throughput ratio to the loop of single queries) =="
    notes.append("batch: mink_*_batch (batch), a loop of mink_* single queries (loop), "
                 "mink_*_batch_mt with 2 threads (batch-mt2); wall-clock throughput")
    return [head] + lines, notes


def cast_table(entries, contexts):
    """Lines of the cast table (cast/<group>/<impl>), its notes, and its
    results and group order (for the chart)."""
    res, groups = collect(entries, only="cast/")
    rows = res.get("cast")
    if not rows:
        return [], [], {}, []
    order = [g for c in contexts for g in c.get("mink_cast_groups", "").split(",") if g]
    groups = sorted((g for g in groups if g in rows), key=lambda g: order.index(g) if g in order else len(order))
    impls = sorted({i for g in rows.values() for i in g}, key=impl_key)
    lines, notes = query_table("cast", rows, groups, impls, CAST_EXACT)
    if not lines:
        return [], [], {}, []
    # advancement steps per cast: the same algorithm in ref and every width
    its = []
    for g in groups:
        vals = [rows[g][i]["iters"] for i in impls if family(i) != "peer" and i in rows[g]
                and not rows[g][i]["error"] and rows[g][i]["iters"] is not None]
        if vals:
            its.append(f"{g} {vals[-1]:.2f}")
    if its:
        lines.append("iterations per cast (mink): " + ", ".join(its))
    # for scale where no peer is exact: the fastest peer whatever its ok%
    fast = []
    for g in groups:
        row = rows[g]
        ok = [(row[i]["cyc"], i) for i in impls if i in row and not row[i]["error"] and row[i]["cyc"]]
        simd = [c for c, i in ok if family(i) == "simd"]
        peer = [(c, i) for c, i in ok if family(i) == "peer"]
        if simd and peer:
            pc, pi = min(peer)
            fast.append(f"{g} {pc / min(simd):.2f}x {pi} ({100.0 * (row[pi]['ok'] or 0):.0f} %)")
    if fast:
        lines.append("best simd vs the fastest peer whatever its ok%: " + ", ".join(fast))
    cases = next((c["mink_cast_cases"] for c in contexts if c.get("mink_cast_cases")), "?")
    head = f"== cast (shape casts and time of impact, per cast; cases: {cases}) =="
    notes.append("cast: mink_cast where both rotations are constant, else mink_toi (both kernels), cold; "
                 "mink checked by every rule of FORMAT.md \"Casts\" (case_check_cast), the peers, which "
                 "report no witnesses, on hit/miss, |t - t_expected| V <= 1e-4 L (grazes: either answer; "
                 "case_check_cast_time) and their normal (1e-2 rad from the expected one, or the exact one at "
                 "their t); exact peer = right on >= 99 % of the group")
    peers = [i for i in impls if family(i) == "peer"]
    if peers:
        notes.append("cast peers: bullet-gjkcast = btGjkConvexCast (translation only: it keeps the rotations "
                     "at t = 0, so it misses turning bodies' hits), bullet-ccd = btContinuousConvexCollision "
                     "(conservative advancement with rotation, GJK-EPA); Bullet has no target distance: B is "
                     "inflated by the target (its margin grows by it); both stop at distance 0.001, an "
                     "absolute tolerance, so their t comes early by up to 0.001 / closing speed; bullet-ccd "
                     "turns the long way round on about half the cases that turn by more than 120 degrees "
                     "(bench/peers/bullet_cast_peer.cc)")
    return [head] + lines, notes, res, groups


# Chart colours, one per implementation in every panel: mink's in blues and
# greens (its GJK-only variants green), its reference grey, the peers in reds,
# oranges and purples, so that mink's bars and the peers' tell apart at a
# glance; a name not listed takes a spare colour by its column.
CHART_COLOURS = {
    "ref": "#8c8c8c",
    "simd-sse41": "#9ecae1", "simd-avx2": "#4292c6", "simd-avx512": "#08306b",
    "simd-neon": "#4292c6", "simd-portable": "#c6dbef",
    "simd-gjk-sse41": "#c7e9c0", "simd-gjk-avx2": "#74c476", "simd-gjk-avx512": "#00441b",
    "ccd": "#fdae6b", "ccd-mpr": "#d94801",
    "bullet": "#fc9272", "bullet-gjkepa2": "#cb181d", "bullet-gjk": "#cb181d",
    "bullet-gjkcast": "#fb6a4a", "bullet-ccd": "#67000d",
    "fcl-indep": "#9e9ac8", "fcl-ccd": "#6a51a3",
}
CHART_SPARE = ["#e7ba52", "#8c6d31", "#bd9e39", "#843c39", "#7b4173", "#a55194"]


def chart_style(impl, column):
    """The gnuplot fill and colour of an implementation's bars (column: its
    place in the panel, which picks a spare colour for a name not listed)."""
    colour = CHART_COLOURS.get(impl, CHART_SPARE[column % len(CHART_SPARE)])
    return f"fill solid 0.9 border -1 lc rgb '{colour}'"


def gnuplot_chart(results, qgroups, impls, out_png, title):
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot not found (apt-get install gnuplot-nox): no chart"
    base = out_png[:-4]
    panels = []
    for q in QUERIES + ["cast"]:
        rows = results.get(q)
        if not rows:
            continue
        gs = qgroups[q]
        cols = [i for i in impls if any(i in rows.get(g, {}) for g in gs)]
        dat = f"{base}.{q}.dat"
        vals = []
        with open(dat, "w") as f:
            f.write("# group " + " ".join(cols) + "\n")
            for g in gs:
                cells = []
                for i in cols:
                    c = rows[g].get(i)
                    v = c["cyc"] if c and not c["error"] and c["cyc"] else None
                    if v:
                        vals.append(v)
                    cells.append(f"{v:.6g}" if v else "NaN")
                f.write(g + " " + " ".join(cells) + "\n")
        if vals:
            panels.append((q, dat, cols, min(vals), max(vals), len(gs)))
    if not panels:
        return "no data to chart"
    script = [
        "set terminal pngcairo size 1500,%d font 'sans,10'" % (420 * len(panels) + 60),
        f"set output '{out_png}'",
        "set style data histograms",
        "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1",
        "set logscale y",
        "set grid ytics mytics",
        "set ylabel 'TSC cycles / query (log)'",
        "set key outside right top vertical",
        "set xtics rotate by -30 nomirror",
        "set datafile missing 'NaN'",
        f"set multiplot layout {len(panels)},1 title '{title}'",
    ]
    for q, dat, cols, lo, hi, ng in panels:
        script.append(f"set title '{q}'")
        script.append(f"set yrange [{lo / 1.5:.6g}:{hi * 1.5:.6g}]")
        script.append(f"set xrange [-0.6:{ng - 0.4}]")
        plots = []
        for k, c in enumerate(cols):
            plots.append(f"'{dat}' using {k + 2}:xtic(1) title '{c}' {chart_style(c, k)}")
        script.append("plot " + ", ".join(plots))
    script.append("unset multiplot")
    gp_path = f"{base}.gp"
    with open(gp_path, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run([gp, gp_path], capture_output=True, text=True)
    if r.returncode != 0:
        return f"gnuplot failed: {r.stderr.strip()[:300]}"
    for _, dat, _, _, _, _ in panels:
        os.unlink(dat)
    os.unlink(gp_path)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--name", default="bench")
    ap.add_argument("--note", action="append", default=[], help="a header line for the table")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()

    contexts, entries = load_runs(args.runs)
    if not entries:
        print("bench_table: no benchmark results", file=sys.stderr)
        return 1
    results, groups = collect(entries)

    # Rows in the case files' order (random interleaving shuffles the JSON):
    # the manifold family lists its own groups.
    def ordered(query):
        key = "mink_manifold_groups" if query == "manifold" else "mink_groups"
        order = [g for c in contexts for g in c.get(key, "").split(",") if g]
        return sorted((g for g in groups if g in results[query]),
                      key=lambda g: order.index(g) if g in order else len(order))

    qgroups = {q: ordered(q) for q in results}
    impls = sorted({i for q in results.values() for g in q.values() for i in g}, key=impl_key)

    ctx = contexts[0] if contexts else {}
    # keys a later chunk added (the manifold family's case file) from any run
    for other in contexts[1:]:
        for key, value in other.items():
            ctx.setdefault(key, value)
    simds = sorted({c.get("mink_simd", "?") for c in contexts}, key=lambda w: impl_key("simd-" + w))
    tsc_hz = float(ctx.get("tsc_hz", "0") or 0)
    cast_lines, cast_notes, cast_results, cast_groups = cast_table(entries, contexts)
    reps = max((c["reps"] for r in (results, cast_results) for q in r.values() for g in q.values()
                for c in g.values()), default=0)
    out = []
    out.append(f"mink-bench on {ctx.get('host_name', '?')}, {ctx.get('date', '?')}")
    for n in args.note:
        out.append(n)
    out.append(f"backends: {', '.join(simds)}; TSC {tsc_hz / 1e9:.3f} GHz ({ctx.get('tsc_kind', '?')}); "
               f"median of {reps} repetition(s); cases: {ctx.get('mink_cases', '?')}")
    loads = [c.get("load_avg", [0])[0] for c in contexts if c.get("load_avg")]
    cpus = ctx.get("num_cpus", 0) or 1
    # mink-bench itself adds ~1 to the load of the chunks after the first.
    if loads and max(loads) > 1.0 + 0.25 * cpus:
        out.append(f"WARNING: load average up to {max(loads):.1f} on {cpus} CPUs while timing: other "
                   "processes were running, numbers are noisy")
    out.append("ns = ns/query, cyc = TSC (reference) cycles/query, ok% = share of the group answered "
               "right (an exact peer answered every case of the group right: ok% 100); speedups in cycles")
    out.append("")
    notes = []
    for q in QUERIES:
        if q not in results:
            continue
        lines, qn = query_table(q, results[q], qgroups[q], impls)
        if not lines:
            continue
        if q == "manifold":
            out.append(f"== manifold (contact manifolds; cases: {ctx.get('mink_manifold_cases', '?')}, "
                       "then the box and hull groups of the main file) ==")
        else:
            out.append(f"== {q} ==")
        out.extend(lines)
        out.append("")
        notes.extend(qn)
    if cast_lines:
        out.extend(cast_lines)
        out.append("")
        notes.extend(cast_notes)
    for table in (coherence_table, batch_table):
        lines, fn = table(entries)
        if lines:
            out.extend(lines)
            out.append("")
            notes.extend(fn)
    if any(q in results for q in QUERIES if q != "manifold"):
        notes.append("peers are checked on kind, scalar (1e-4 L) and normal, not on witness points "
                     "(bench/bench_queries.c, peer_check); mink on everything (case_check)")
        seen = {i for q in QUERIES if q != "manifold" and q in results
                for g in results[q].values() for i in g if family(i) == "peer"}
        said = [f"{i} = {QUERY_PEERS[i]}" for i in sorted(seen, key=impl_key) if i in QUERY_PEERS]
        if said:
            notes.append("query peers: " + "; ".join(said) + "; exact peer = the fastest implementation "
                         "of any library whose ok% is 100 on the group (every case right)")
    out.append("notes:")
    out.extend("  " + n for n in notes)
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)

    os.makedirs(args.out_dir, exist_ok=True)
    merged = dict(ctx)
    merged["mink_runs"] = contexts
    with open(os.path.join(args.out_dir, args.name + ".json"), "w") as f:
        json.dump({"context": merged, "benchmarks": entries}, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out_dir, args.name + ".txt"), "w") as f:
        f.write(text)
    png = os.path.join(args.out_dir, args.name + ".png")
    title = f"mink-bench, {ctx.get('host_name', '?')}: TSC cycles per query (lower is better)"
    if cast_results:
        results = dict(results, cast=cast_results["cast"])
        qgroups = dict(qgroups, cast=cast_groups)
        impls = sorted(set(impls) | {i for g in cast_results["cast"].values() for i in g}, key=impl_key)
    msg = gnuplot_chart(results, qgroups, impls, png, title)
    if msg:
        print(f"bench_table: {msg}", file=sys.stderr)
    else:
        print(f"chart: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
