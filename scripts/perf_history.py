#!/usr/bin/python3
"""Performance over time: the history file, its report and its chart.

scripts/perf-history.sh measures commits with scripts/perf-regress.sh and
calls this script to keep the history and to read it. Debian's python3,
standard library only; the chart is drawn by gnuplot.

history.jsonl holds one JSON object per line, in the order they were added:

  {"kind": "count", "hash": ..., "short": ..., "date": ISO-8601 commit date,
   "subject": ..., "set": "reduced"|"full", "backend": "avx2", "status":
   "ok"|"build-failed"|"run-failed"|"unmeasurable", "flags": {...},
   "seconds": wall seconds the commit took, "entries": {"<query>/<group>/<kernel>":
   callgrind instructions per query}, "error": last lines of the log when not ok}

  {"kind": "wall", "hash": ..., "short": ..., "date": ..., "subject": ...,
   "machine": ..., "source": file name, "unit": "ns/query",
   "medians": {"<benchmark name>": median ns per query}}

Commands (see --help of each):
  has        exit 0 when a commit is already measured for a set and backend
  add-count  append (or replace) a commit's measured entries
  add-wall   append a Google Benchmark JSON's medians as an advisory tag
  report     steps per entry with the commit that made them, entries above
             their best, commits that moved entries
  chart      gnuplot PNG: a panel per query and kernel, a line per group,
             relative to each entry's first commit, log scale
"""
import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

QUERY_ORDER = ["intersect", "distance", "penetration", "manifold"]
STATUS_WORDS = {"build-failed": "build failed", "run-failed": "run failed",
                "unmeasurable": "not measurable"}


def warn(msg):
    print("perf-history: " + msg, file=sys.stderr)


# ------------------------------------------------------------------ the file
def load(path):
    """Every valid line of the history, in file order (a torn line is skipped)."""
    lines = []
    if not os.path.exists(path):
        return lines
    with open(path) as f:
        for n, text in enumerate(f, 1):
            text = text.strip()
            if not text:
                continue
            try:
                obj = json.loads(text)
            except ValueError:
                warn("%s:%d: not JSON, ignored" % (path, n))
                continue
            if isinstance(obj, dict) and obj.get("hash"):
                lines.append(obj)
    return lines


def save(path, lines):
    """Rewrite the file atomically, one compact object per line."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".history.", dir=d)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)  # mkstemp's 0600 would make the kept file private
    with os.fdopen(fd, "w") as f:
        for obj in lines:
            f.write(json.dumps(obj, sort_keys=True, separators=(", ", ": ")) + "\n")
    os.replace(tmp, path)


def same_count(obj, hash_, set_name, backend):
    return (obj.get("kind", "count") == "count" and obj["hash"] == hash_
            and obj.get("set") == set_name and obj.get("backend") == backend)


def timestamp(obj):
    try:
        return datetime.datetime.fromisoformat(obj.get("date", "")).timestamp()
    except ValueError:
        return 0.0


def read_order(path):
    if not path:
        return {}
    order = {}
    with open(path) as f:
        for i, line in enumerate(f):
            h = line.strip()
            if h and h not in order:
                order[h] = i
    return order


def commits_of(lines, set_name, backend, order):
    """The measured commits of one set and backend, oldest first.

    The last line of a commit wins. Commits sort by date; those the git
    order (oldest first) knows are then put in that order among the slots
    they occupy, so rebased dates cannot reorder a branch."""
    latest = {}
    for i, obj in enumerate(lines):
        if obj.get("kind", "count") == "count" and obj.get("set") == set_name \
                and obj.get("backend") == backend:
            latest[obj["hash"]] = (i, obj)
    items = sorted(latest.values(), key=lambda t: (timestamp(t[1]), t[0]))
    commits = [obj for _, obj in items]
    known = [k for k, c in enumerate(commits) if c["hash"] in order]
    ordered = sorted((commits[k] for k in known), key=lambda c: order[c["hash"]])
    for k, c in zip(known, ordered):
        commits[k] = c
    return commits


def default_set(lines):
    """The set most of the file's counted commits were measured with."""
    sets = {}
    for obj in lines:
        if obj.get("kind", "count") == "count":
            key = (obj.get("set"), obj.get("backend"))
            sets[key] = sets.get(key, 0) + 1
    if not sets:
        return None, None
    return max(sets.items(), key=lambda kv: kv[1])[0]


# ------------------------------------------------------------------ commands that write
def cmd_has(a):
    for obj in load(a.history):
        if same_count(obj, a.hash, a.set, a.backend):
            if obj.get("status") == "ok" or not a.retry_failed:
                return 0
    return 1


def cmd_add_count(a):
    lines = load(a.history)
    obj = {"kind": "count", "hash": a.hash, "short": a.short, "date": a.date,
           "subject": a.subject, "set": a.set, "backend": a.backend,
           "status": a.status, "seconds": a.seconds}
    flags = {"backend": a.backend, "set": a.set}
    for kv in a.flag or []:
        k, _, v = kv.partition("=")
        flags[k] = v
    if a.status == "ok":
        with open(a.entries) as f:
            doc = json.load(f)
        entries = doc.get("entries") or {}
        if not entries:
            sys.exit("perf-history: %s holds no entries" % a.entries)
        obj["entries"] = {k: float(v) for k, v in sorted(entries.items())}
        for k in ("compiler", "valgrind", "unit"):
            if doc.get(k):
                flags[k] = doc[k]
    obj["flags"] = flags
    if a.run_seconds is not None:
        obj["run_seconds"] = a.run_seconds
    if a.status != "ok" and a.log and os.path.exists(a.log):
        with open(a.log, errors="replace") as f:
            tail = [l.rstrip() for l in f if l.strip() and not l.startswith("==")][-6:]
        obj["error"] = "\n".join(tail)[-1500:]
    lines = [o for o in lines if not same_count(o, a.hash, a.set, a.backend)]
    lines.append(obj)
    save(a.history, lines)
    return 0


def wall_medians(doc):
    """Median ns/query per benchmark of a Google Benchmark JSON.

    Aggregate medians are used when the run has them, else the median of the
    repetitions. Only <query>/<group>/<impl> benchmarks of the gate's queries."""
    runs, medians = {}, {}
    for b in doc.get("benchmarks", []):
        name = b.get("run_name") or b.get("name", "")
        if name.endswith("/real_time"):
            name = name[: -len("/real_time")]
        parts = name.split("/")
        if len(parts) != 3 or parts[0] not in QUERY_ORDER:
            continue
        if "ns/query" in b:
            ns = float(b["ns/query"])
        else:
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}.get(b.get("time_unit", "ns"), 1.0)
            ns = float(b.get("real_time", 0.0)) * scale
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = ns
        else:
            runs.setdefault(name, []).append(ns)
    for name, values in runs.items():
        medians.setdefault(name, statistics.median(values))
    return {k: round(v, 3) for k, v in sorted(medians.items())}


def cmd_add_wall(a):
    with open(a.json) as f:
        doc = json.load(f)
    medians = wall_medians(doc)
    if not medians:
        sys.exit("perf-history: %s: no <query>/<group>/<impl> benchmarks" % a.json)
    ctx = doc.get("context", {})
    machine = a.machine or ctx.get("host_name") or "unknown"
    obj = {"kind": "wall", "hash": a.hash, "short": a.short, "date": a.date,
           "subject": a.subject, "machine": machine,
           "source": os.path.basename(a.json), "run_date": ctx.get("date", ""),
           "unit": "ns/query", "medians": medians}
    lines = [o for o in load(a.history)
             if not (o.get("kind") == "wall" and o["hash"] == a.hash and o.get("machine") == machine)]
    lines.append(obj)
    save(a.history, lines)
    print("perf-history: %s tagged with %d wall-time medians from %s (machine %s, advisory)"
          % (a.short, len(medians), a.json, machine))
    return 0


# ------------------------------------------------------------------ analysis
def split_key(key):
    parts = key.split("/")
    if len(parts) == 3:
        return parts
    return [key, "", ""]


def entry_sort_key(key):
    q, g, k = split_key(key)
    qi = QUERY_ORDER.index(q) if q in QUERY_ORDER else len(QUERY_ORDER)
    return (qi, q, g, k)


def series(commits):
    """entry -> [(commit index, value)] over the commits that measured it."""
    out = {}
    for i, c in enumerate(commits):
        if c.get("status") != "ok":
            continue
        for k, v in (c.get("entries") or {}).items():
            if v and v > 0:
                out.setdefault(k, []).append((i, float(v)))
    return out


def steps(points):
    """(ratio, index of the commit that made it, index of the previous measurement)."""
    return [(v1 / v0, i1, i0) for (i0, v0), (i1, v1) in zip(points, points[1:])]


def pct(ratio):
    return "%+.2f %%" % ((ratio - 1.0) * 100.0)


def analyse(commits, threshold):
    ser = series(commits)
    ok = [i for i, c in enumerate(commits) if c.get("status") == "ok"]
    last_ok = ok[-1] if ok else None
    rows = []
    for key in sorted(ser, key=entry_sort_key):
        pts = ser[key]
        st = steps(pts)
        up = max((s for s in st if s[0] > 1.0), default=None, key=lambda s: s[0])
        down = min((s for s in st if s[0] < 1.0), default=None, key=lambda s: s[0])
        best_i, best_v = min(pts, key=lambda p: (p[1], p[0]))
        rows.append({"key": key, "first": pts[0], "now": pts[-1], "up": up, "down": down,
                     "best": (best_i, best_v), "current": pts[-1][0] == last_ok,
                     "n": len(pts)})
    above = [r for r in rows if r["current"]
             and r["now"][1] > r["best"][1] * (1.0 + threshold / 100.0)]
    # per commit: the entries it moved by more than the threshold
    moved = {}
    for key, pts in ser.items():
        for ratio, i1, _ in steps(pts):
            if abs(ratio - 1.0) * 100.0 > threshold:
                moved.setdefault(i1, []).append((ratio, key))
    return rows, above, moved


def report_text(lines, commits, set_name, backend, threshold, history_name):
    out = []
    w = out.append
    if not commits:
        w("perf-history: no %s/%s commits in %s yet" % (set_name, backend, history_name))
        return "\n".join(out) + "\n"
    rows, above, moved = analyse(commits, threshold)
    status = {}
    for c in commits:
        status.setdefault(c.get("status", "ok"), []).append(c)
    first, last = commits[0], commits[-1]
    w("Instruction-count history (%s): %d commits, %s %s .. %s %s; %s build, %s set"
      % (history_name, len(commits), first["short"], first.get("date", "")[:10],
         last["short"], last.get("date", "")[:10], backend, set_name))
    parts = ["%d measured" % len(status.get("ok", []))]
    for s in ("build-failed", "run-failed", "unmeasurable"):
        if status.get(s):
            parts.append("%s %d (%s)" % (STATUS_WORDS[s], len(status[s]),
                                         " ".join(c["short"] for c in status[s])))
    w("  " + ", ".join(parts))
    w("  callgrind instructions per query (perf-regress.sh's entries); a step is the change")
    w("  between two consecutive measured commits, named by the later one; threshold %g %%" % threshold)
    w("")
    named = set()
    spans = []

    def at(step):
        if step is None:
            return "-"
        ratio, i1, i0 = step
        named.add(i1)
        gap = ""
        if any(commits[j].get("status") != "ok" for j in range(i0 + 1, i1)):
            gap = "*"
            spans.append(i1)
        return "%s %s%s" % (pct(ratio), commits[i1]["short"], gap)

    kw = max([len("entry")] + [len(r["key"]) for r in rows])
    hw = max(len(c["short"]) for c in commits)
    sw = 10 + hw + 2
    w("%-*s %11s %11s %9s  %-*s %-*s %s" % (kw, "entry", "first", "now", "change", sw, "step up",
                                              sw, "step down", "now/best"))
    late = False
    for r in rows:
        (fi, fv), (ni, nv), (bi, bv) = r["first"], r["now"], r["best"]
        since = ""
        if fi != 0:
            since = " (from %s)" % commits[fi]["short"]
            late = True
        if not r["current"]:
            since += " (last %s)" % commits[ni]["short"]
        mark = "  <-- above best" if r in above else ""
        w("%-*s %11.1f %11.1f %9s  %-*s %-*s %s%s%s"
          % (kw, r["key"], fv, nv, pct(nv / fv), sw, at(r["up"]), sw, at(r["down"]),
             pct(nv / bv), mark, since))
    if not rows:
        w("(no measured commits)")
    if late:
        w("(from X: the entry first appears at commit X; its change is since then)")
    w("")
    w("Entries now more than %g %% above their best ever: %d" % (threshold, len(above)))
    for r in above:
        (bi, bv), (ni, nv) = r["best"], r["now"]
        named.add(bi)
        w("  %-*s now %.1f, best %.1f at %s (%s)" % (kw, r["key"], nv, bv, commits[bi]["short"], pct(nv / bv)))
    w("")
    w("Commits that moved an entry by more than %g %%: %d" % (threshold, len(moved)))
    for i in sorted(moved):
        c = commits[i]
        ups = sorted((m for m in moved[i] if m[0] > 1.0), reverse=True)
        downs = sorted(m for m in moved[i] if m[0] < 1.0)
        desc = []
        if ups:
            desc.append("%d up (most %s %s)" % (len(ups), ups[0][1], pct(ups[0][0])))
        if downs:
            desc.append("%d down (most %s %s)" % (len(downs), downs[0][1], pct(downs[0][0])))
        w("  %s %s  %s" % (c["short"], c.get("date", "")[:10], "; ".join(desc)))
        named.add(i)
    w("")
    w("Commits named above:")
    for i in sorted(named):
        c = commits[i]
        w("  %s %s %s" % (c["short"], c.get("date", "")[:10], c.get("subject", "")[:110]))
    if spans:
        w("  (*: the step spans commits that were not measured; the commit named is the first measured after them)")
    in_report = {c["hash"] for c in commits}
    walls = [o for o in lines if o.get("kind") == "wall" and o["hash"] in in_report]
    if walls:
        w("")
        w("Wall-time tags (advisory: shared machines, not gated):")
        by_machine = {}
        for o in walls:
            by_machine.setdefault(o.get("machine", "?"), []).append(o)
        for m, tags in sorted(by_machine.items()):
            tags.sort(key=timestamp)
            desc = ", ".join("%s (%d medians)" % (t["short"], len(t.get("medians", {}))) for t in tags)
            w("  %s: %s" % (m, desc))
            if len(tags) >= 2:
                a, b = tags[-2]["medians"], tags[-1]["medians"]
                ratios = [b[k] / a[k] for k in a if k in b and a[k] > 0]
                if ratios:
                    w("    %s -> %s: median ratio over %d benchmarks %s"
                      % (tags[-2]["short"], tags[-1]["short"], len(ratios), pct(statistics.median(ratios))))
    secs = [c["seconds"] for c in commits if c.get("seconds") and c.get("status") == "ok"]
    if secs:
        w("")
        w("Time per measured commit (worktree, build, callgrind): median %d s, max %d s"
          % (statistics.median(secs), max(secs)))
    return "\n".join(out) + "\n"


def select(a, lines):
    set_name, backend = a.set, a.backend
    if not set_name or not backend:
        ds, db = default_set(lines)
        set_name, backend = set_name or ds or "reduced", backend or db or "avx2"
    commits = commits_of(lines, set_name, backend, read_order(a.order))
    if a.window:
        commits = commits[-a.window:]
    return set_name, backend, commits


def cmd_report(a):
    lines = load(a.history)
    set_name, backend, commits = select(a, lines)
    text = report_text(lines, commits, set_name, backend, a.threshold, os.path.basename(a.history))
    sys.stdout.write(text)
    if a.out:
        d = os.path.dirname(os.path.abspath(a.out))
        os.makedirs(d, exist_ok=True)
        with open(a.out + ".tmp", "w") as f:
            f.write(text)
        os.replace(a.out + ".tmp", a.out)
    return 0


# ------------------------------------------------------------------ chart
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
          "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939",
          "#ad494a", "#3182bd", "#e6550d", "#31a354"]


def kernel_family(kernel):
    return "ref" if kernel.startswith("ref") else "simd"


def gp_str(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def chart_script(lines, commits, set_name, backend, png, terminal, threshold=2.0):
    """The gnuplot script (data inline), or None when nothing can be drawn.

    In each panel, a dashed line marks every commit that moved one of its
    entries by more than the threshold, labelled with the commit's hash."""
    ser = series(commits)
    if not ser:
        return None
    # panels: (query, kernel family) -> [entry keys]
    panels = {}
    for key in ser:
        q, g, k = split_key(key)
        panels.setdefault((q, kernel_family(k)), []).append(key)
    queries = sorted({q for q, _ in panels}, key=lambda q: (QUERY_ORDER.index(q) if q in QUERY_ORDER else 99, q))
    families = [f for f in ("simd", "ref") if any(p[1] == f for p in panels)]
    n = len(commits)
    # advisory wall-time medians: entry key -> machine -> [(x, value)]
    index = {c["hash"]: i for i, c in enumerate(commits)}
    walls = {}
    for o in lines:
        if o.get("kind") != "wall" or o["hash"] not in index:
            continue
        for name, v in o.get("medians", {}).items():
            q, g, impl = split_key(name)
            if impl == "simd-" + backend:
                key = "%s/%s/simd" % (q, g)
            elif impl == "ref":
                key = "%s/%s/ref" % (q, g)
            else:
                continue
            walls.setdefault(key, {}).setdefault(o.get("machine", "?"), []).append((index[o["hash"]], v))

    s = []
    p = s.append
    cols, rows = len(families), len(queries)
    width = 1100 * cols
    height = 430 * rows + 140
    font = "Sans,9" if terminal == "pngcairo" else "9"
    small = "Sans,7" if terminal == "pngcairo" else "7"
    p("set terminal %s size %d,%d font %s noenhanced" % (terminal, width, height, gp_str(font)))
    p("set output %s" % gp_str(png))
    title = ("mink: callgrind instructions per query relative to each entry's first measured commit "
             "(%s build, %s set; log scale; %s .. %s)\ndashed: a commit that moved an entry of the panel "
             "by more than %g %%" % (backend, set_name, commits[0]["short"], commits[-1]["short"], threshold))
    if walls:
        title += "\nopen circles: wall-time medians (Google Benchmark, advisory), relative to their first tag"
    p("set multiplot layout %d,%d title %s" % (rows, cols, gp_str(title)))
    p("set logscale y")
    p("set format y '%.3g'")
    p("set grid ytics xtics lc rgb '#dddddd'")
    p("set key outside right top vertical Left reverse samplen 2 spacing 0.9 font %s" % gp_str(font))
    p("set xrange [-0.5:%g]" % (n - 0.5))
    step = max(1, int(math.ceil(n / 45.0)))
    tics = ", ".join("%s %d" % (gp_str(commits[i]["short"]), i) for i in range(0, n, step))
    if (n - 1) % step:
        tics += ", %s %d" % (gp_str(commits[n - 1]["short"]), n - 1)
    p("set xtics rotate by 90 right (%s) font %s" % (tics, gp_str(small)))
    p("set ylabel 'relative to first'")
    p("set lmargin 10")
    # the key's room, the same in every panel so the plots line up
    labels = [split_key(k)[1] + " (warm)" for k in ser] + ["wall, %s" % m for w in walls.values() for m in w]
    p("set rmargin %d" % (max(len(l) for l in labels) + (14 if walls else 6)))
    for i, c in enumerate(commits):
        if c.get("status") != "ok":
            p("set object rect from %g, graph 0 to %g, graph 1 behind fc rgb '#f3c6c6' fs solid 0.6 noborder"
              % (i - 0.45, i + 0.45))
    failed = [c["short"] for c in commits if c.get("status") != "ok"]
    for q in queries:
        for fam in families:
            keys = sorted(panels.get((q, fam), []), key=entry_sort_key)
            ptitle = "%s, %s kernel" % (q, fam)
            if failed:
                ptitle += " (shaded: not measured)"
            p("set title %s" % gp_str(ptitle))
            if not keys:
                p("set yrange [0.9:1.1]")
                p("set ytics autofreq mirror")
                p("unset y2tics")
                p("unset y2label")
                p("set label 1 'no %s entries in the %s set' at graph 0.5, graph 0.5 center" % (fam, set_name))
                p("plot 1 lc rgb '#ffffff' notitle")
                p("unset label 1")
                continue
            marks = sorted({i1 for key in keys for ratio, i1, _ in steps(ser[key])
                            if abs(ratio - 1.0) * 100.0 > threshold})
            for m, i in enumerate(marks, 1):
                p("set arrow %d from %g, graph 0 to %g, graph 1 nohead back dt 2 lw 1.2 lc rgb '#777777'"
                  % (m, i - 0.5, i - 0.5))
                p("set label %d %s at %g, graph 0.97 rotate by 90 right front font %s tc rgb '#444444'"
                  % (m + 1, gp_str(commits[i]["short"]), i - 0.35, gp_str(small)))
            ratios, plots, blocks = [], [], []
            for j, key in enumerate(keys):
                pts = ser[key]
                base = pts[0][1]
                name = "d%d_%d_%d" % (queries.index(q), families.index(fam), j)
                rel = [(x, v / base) for x, v in pts]
                ratios += [r for _, r in rel]
                blocks.append((name, rel))
                _, g, k = split_key(key)
                label = g + (" (warm)" if k.endswith("-warm") else "")
                plots.append("$%s using 1:2 with linespoints lw 1.6 pt %d ps 0.6 lc rgb '%s' title %s"
                             % (name, 5 + (j // len(COLORS)) * 2, COLORS[j % len(COLORS)], gp_str(label)))
            # wall time: its own axis on the right (shared machines: tens of
            # per cent between runs would flatten the counts' steps)
            wpts, wratios = {}, []
            for key in keys:
                for machine, pts in walls.get(key, {}).items():
                    pts = sorted(pts)
                    base = pts[0][1]
                    if base > 0:
                        wpts.setdefault(machine, []).extend((x, v / base) for x, v in pts)
            for m, (machine, pts) in enumerate(sorted(wpts.items())):
                name = "w%d_%d_%d" % (queries.index(q), families.index(fam), m)
                wratios += [r for _, r in pts]
                blocks.append((name, pts))
                plots.append("$%s using 1:2 axes x1y2 with points pt 6 ps 1.3 lc rgb '%s' title %s"
                             % (name, ["#444444", "#999999"][m % 2], gp_str("wall, %s" % machine)))
            for axis, values in (("y", ratios), ("y2", wratios)):
                if not values:
                    p("unset y2tics")
                    p("unset y2label")
                    p("set ytics mirror")
                    continue
                lo, hi = min(min(values), 0.99), max(max(values), 1.01)
                lo, hi = lo / 1.01, hi * 1.01
                p("set %srange [%g:%g]" % (axis, lo, hi))
                tics = ratio_tics(lo, hi)
                if tics:
                    p("set %stics (%s)" % (axis, ", ".join("'%g' %g" % (t, t) for t in tics)))
                else:
                    p("set %stics autofreq" % axis)
                if axis == "y2":
                    p("set ytics nomirror")
                    p("set logscale y2")
                    p("set y2label 'wall time, relative (advisory)' tc rgb '#444444'")
            for name, pts in blocks:
                p("$%s << EOD" % name)
                for x, r in pts:
                    p("%d %.6g" % (x, r))
                p("EOD")
            p("plot " + ", \\\n     ".join(plots))
            p("unset arrow")
            p("unset label")
    p("unset multiplot")
    p("set output")
    return "\n".join(s) + "\n"


def ratio_tics(lo, hi):
    """Tics 1 + k*step for a ratio range near 1 (log-scale decades say nothing there)."""
    if hi / lo > 4.0:
        return None
    for step in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5):
        k0, k1 = math.ceil((lo - 1.0) / step), math.floor((hi - 1.0) / step)
        if k1 - k0 <= 8:
            return [round(1.0 + k * step, 6) for k in range(k0, k1 + 1) if 1.0 + k * step > 0]
    return None


def gnuplot_terminal(gp):
    r = subprocess.run([gp, "-e", "set terminal pngcairo"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return "pngcairo" if r.returncode == 0 else "png"


def cmd_chart(a):
    lines = load(a.history)
    set_name, backend, commits = select(a, lines)
    gp = a.gnuplot or shutil.which("gnuplot")
    terminal = a.terminal or (gnuplot_terminal(gp) if gp else "pngcairo")
    png = os.path.abspath(a.png)
    tmp_png = png + ".tmp.png"
    script = chart_script(lines, commits, set_name, backend, tmp_png, terminal, a.threshold)
    if script is None:
        warn("no measured commits to chart")
        return 0
    if a.script:
        with open(a.script, "w") as f:
            f.write(script.replace(tmp_png, png))
    if not gp:
        warn("gnuplot missing, no chart (install: sudo apt-get install -y gnuplot-nox)")
        return 3
    os.makedirs(os.path.dirname(png), exist_ok=True)
    r = subprocess.run([gp], input=script, text=True, stderr=subprocess.PIPE)
    if r.returncode != 0 or not os.path.exists(tmp_png):
        warn("gnuplot failed:\n" + r.stderr[-2000:])
        if os.path.exists(tmp_png):
            os.remove(tmp_png)
        return 2
    os.replace(tmp_png, png)
    print("perf-history: chart %s (%d commits, %s)" % (a.png, len(commits), terminal))
    return 0


# ------------------------------------------------------------------ main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(sp, need_set):
        sp.add_argument("--history", required=True, help="history.jsonl")
        sp.add_argument("--set", required=need_set, help="reduced or full")
        sp.add_argument("--backend", required=need_set, help="avx2, ...")

    def commit(sp):
        for k in ("hash", "short", "date", "subject"):
            sp.add_argument("--" + k, required=True)

    sp = sub.add_parser("has", help="exit 0 when the commit is in the history")
    common(sp, True)
    sp.add_argument("--hash", required=True)
    sp.add_argument("--retry-failed", action="store_true", help="a failed commit counts as absent")
    sp.set_defaults(fn=cmd_has)

    sp = sub.add_parser("add-count", help="add a commit's measured entries")
    common(sp, True)
    commit(sp)
    sp.add_argument("--status", required=True, choices=["ok", "build-failed", "run-failed", "unmeasurable"])
    sp.add_argument("--entries", help="perf-regress.sh --out JSON (status ok)")
    sp.add_argument("--flag", action="append", help="KEY=VALUE build flag to record")
    sp.add_argument("--seconds", type=int, default=0)
    sp.add_argument("--run-seconds", type=int)
    sp.add_argument("--log", help="the run's log: its last lines are kept when not ok")
    sp.set_defaults(fn=cmd_add_count)

    sp = sub.add_parser("add-wall", help="tag a commit with Google Benchmark medians")
    sp.add_argument("--history", required=True)
    sp.add_argument("--backend", default="avx2")
    commit(sp)
    sp.add_argument("--json", required=True)
    sp.add_argument("--machine")
    sp.set_defaults(fn=cmd_add_wall)

    for name, fn in (("report", cmd_report), ("chart", cmd_chart)):
        sp = sub.add_parser(name)
        common(sp, False)
        sp.add_argument("--order", help="file of commit hashes, oldest first (git rev-list --reverse)")
        sp.set_defaults(fn=fn)
        sp.add_argument("--threshold", type=float, default=2.0)
        sp.add_argument("--window", type=int, default=0, help="only the last N commits of the history")
        if name == "report":
            sp.add_argument("--out", help="also write the report here")
        else:
            sp.add_argument("--png", required=True)
            sp.add_argument("--gnuplot", help="gnuplot executable")
            sp.add_argument("--terminal", choices=["pngcairo", "png"])
            sp.add_argument("--script", help="also write the gnuplot script here")
    a = ap.parse_args(argv)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
