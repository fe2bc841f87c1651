#!/usr/bin/python3
"""scripts/perf_history.py on a small synthetic history: the steps must be
found and attributed to the commits that made them, failed builds skipped,
entries that start later measured from their own first commit.

Run: /usr/bin/python3 tests/perf_history/test_report.py (ctest runs it)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "perf_history.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import perf_history as ph  # noqa: E402

A = "distance/hull-a/simd"
B = "penetration/hull-b/simd"
C = "manifold/hull-c/simd"
R = "distance/hull-a/ref"

# (name, status, entries): c4 does not build; C appears at c5; A steps up
# +10 % at c5 (across the failed c4), B steps down -20 % at c3 and up +3.1 %
# at c7; A and B end above their best, C does not.
COMMITS = [
    ("c1", "ok", {A: 1000.0, B: 2000.0, R: 5000.0}),
    ("c2", "ok", {A: 1000.0, B: 2000.0, R: 5000.0}),
    ("c3", "ok", {A: 1000.0, B: 1600.0, R: 5000.0}),
    ("c4", "build-failed", None),
    ("c5", "ok", {A: 1100.0, B: 1600.0, C: 500.0, R: 5000.0}),
    ("c6", "ok", {A: 1100.0, B: 1600.0, C: 500.0, R: 5000.0}),
    ("c7", "ok", {A: 1105.0, B: 1650.0, C: 495.0, R: 4990.0}),
]


def full_hash(name):
    return (name.encode().hex() * 20)[:40]


def short(name):
    return full_hash(name)[:7]


def run(*args, check=True):
    r = subprocess.run([sys.executable, SCRIPT] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise AssertionError("perf_history.py %s failed: %s" % (" ".join(args), r.stderr))
    return r


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="perf-history-test.")
        self.history = os.path.join(self.dir, "history.jsonl")
        # Added newest first, all at the same second: the order comes from
        # the git order file, not from the file or the dates.
        for i, (name, status, entries) in reversed(list(enumerate(COMMITS))):
            args = ["add-count", "--history", self.history, "--set", "reduced", "--backend", "avx2",
                    "--hash", full_hash(name), "--short", short(name),
                    "--date", "2026-11-20T10:00:00+00:00", "--subject", "commit %s subject" % name,
                    "--status", status, "--seconds", str(20 + i), "--flag", "c_flags=-O3 -mavx2"]
            if entries is not None:
                path = os.path.join(self.dir, "%s.json" % name)
                with open(path, "w") as f:
                    json.dump({"backend": "avx2", "compiler": "cc 12", "valgrind": "valgrind-3.19.0",
                               "entries": entries}, f)
                args += ["--entries", path]
            else:
                log = os.path.join(self.dir, "log")
                with open(log, "w") as f:
                    f.write("kernel/gjk.c:1: error: oops\nperf-regress: build failed\n")
                args += ["--log", log]
            run(*args)
        self.order = os.path.join(self.dir, "order")
        with open(self.order, "w") as f:
            f.write("".join(full_hash(n) + "\n" for n, _, _ in COMMITS))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def report(self, *extra):
        out = run("report", "--history", self.history, "--set", "reduced", "--backend", "avx2",
                  "--order", self.order, *extra).stdout
        return out, out.splitlines()

    def row(self, lines, key):
        rows = [l for l in lines if l.startswith(key + " ")]
        self.assertEqual(len(rows), 1, "one row for %s in:\n%s" % (key, "\n".join(lines)))
        return rows[0]

    def test_file(self):
        lines = ph.load(self.history)
        self.assertEqual(len(lines), 7)
        failed = [o for o in lines if o["status"] != "ok"]
        self.assertEqual(len(failed), 1)
        self.assertEqual(failed[0]["hash"], full_hash("c4"))
        self.assertIn("build failed", failed[0]["error"])
        self.assertNotIn("entries", failed[0])
        ok = [o for o in lines if o["hash"] == full_hash("c1")][0]
        self.assertEqual(ok["entries"][A], 1000.0)
        self.assertEqual(ok["flags"]["c_flags"], "-O3 -mavx2")
        self.assertEqual(ok["flags"]["compiler"], "cc 12")
        for name, _, _ in COMMITS:
            self.assertEqual(run("has", "--history", self.history, "--set", "reduced", "--backend", "avx2",
                                 "--hash", full_hash(name), check=False).returncode, 0)
        # another set, another commit, a failed commit with --retry-failed: absent
        for args in (["--set", "full", "--hash", full_hash("c1")],
                     ["--set", "reduced", "--hash", full_hash("c9")],
                     ["--set", "reduced", "--hash", full_hash("c4"), "--retry-failed"]):
            self.assertEqual(run("has", "--history", self.history, "--backend", "avx2", *args,
                                 check=False).returncode, 1, args)

    def test_order(self):
        commits = ph.commits_of(ph.load(self.history), "reduced", "avx2", ph.read_order(self.order))
        self.assertEqual([c["short"] for c in commits], [short(n) for n, _, _ in COMMITS])

    def test_steps_attributed(self):
        out, lines = self.report()
        a = self.row(lines, A)
        self.assertIn("+10.00 %% %s*" % short("c5"), a)  # across the failed c4
        self.assertIn("+10.50 %", a)                      # change since c1
        self.assertIn("above best", a)
        b = self.row(lines, B)
        self.assertIn("+3.12 %% %s" % short("c7"), b)
        self.assertIn("-20.00 %% %s" % short("c3"), b)
        self.assertIn("above best", b)
        c = self.row(lines, C)
        self.assertIn("(from %s)" % short("c5"), c)       # starts later: its own first commit
        self.assertIn("-1.00 %% %s" % short("c7"), c)
        self.assertNotIn("above best", c)
        r = self.row(lines, R)
        self.assertIn("-0.20 %% %s" % short("c7"), r)
        self.assertIn("build failed 1 (%s)" % short("c4"), out)
        self.assertIn("7 commits", out)

    def test_above_best_and_commits(self):
        out, lines = self.report()
        i = lines.index("Entries now more than 2 % above their best ever: 2")
        above = lines[i + 1:i + 3]
        self.assertTrue(above[0].lstrip().startswith(A) and short("c1") in above[0], above)
        self.assertTrue(above[1].lstrip().startswith(B) and short("c3") in above[1], above)
        i = lines.index("Commits that moved an entry by more than 2 %: 3")
        moved = lines[i + 1:i + 4]
        self.assertTrue(moved[0].lstrip().startswith(short("c3")) and "1 down" in moved[0], moved)
        self.assertTrue(moved[1].lstrip().startswith(short("c5")) and "1 up" in moved[1], moved)
        self.assertTrue(moved[2].lstrip().startswith(short("c7")) and "1 up" in moved[2], moved)
        self.assertIn("  %s 2026-11-20 commit c5 subject" % short("c5"), lines)
        # a higher threshold: nothing above best but A, c3 and c5 still moved
        out, lines = self.report("--threshold", "5")
        self.assertIn("Entries now more than 5 % above their best ever: 1", lines)
        self.assertIn("Commits that moved an entry by more than 5 %: 2", lines)

    def test_window(self):
        # the last 3 commits (c5 c6 c7): C starts with the window, A's +10 % at c5 is outside
        out, lines = self.report("--window", "3")
        self.assertIn("3 commits", out)
        a = self.row(lines, A)
        self.assertIn("+0.45 %% %s" % short("c7"), a)
        self.assertNotIn("(from", self.row(lines, C))
        self.assertIn("Entries now more than 2 % above their best ever: 1", lines)  # B: 1650 vs 1600

    def test_replace_and_torn_line(self):
        # measuring c7 again replaces its line; a torn last line is ignored
        path = os.path.join(self.dir, "c7b.json")
        with open(path, "w") as f:
            json.dump({"entries": {A: 1000.0, B: 1600.0, C: 500.0, R: 5000.0}}, f)
        run("add-count", "--history", self.history, "--set", "reduced", "--backend", "avx2",
            "--hash", full_hash("c7"), "--short", short("c7"), "--date", "2026-11-20T10:00:00+00:00",
            "--subject", "commit c7 subject", "--status", "ok", "--entries", path)
        with open(self.history, "a") as f:
            f.write('{"kind": "count", "hash": "dead')
        self.assertEqual(len([o for o in ph.load(self.history) if o["hash"] == full_hash("c7")]), 1)
        out, lines = self.report()
        # A back to 1000 at c7: its step down is c7's, nothing is above its best
        self.assertIn("Entries now more than 2 % above their best ever: 0", lines)
        self.assertIn("-9.09 %% %s" % short("c7"), self.row(lines, A))

    def test_wall_and_chart(self):
        bench = {"context": {"host_name": "ci-box", "date": "2026-11-20"},
                 "benchmarks": [
                     {"name": "distance/hull-a/simd-avx2", "run_type": "iteration", "ns/query": v,
                      "real_time": 1.0, "time_unit": "us"} for v in (100.0, 300.0, 110.0)] +
                 [{"name": "distance/hull-a/simd-sse41", "run_type": "iteration", "real_time": 2.0,
                   "time_unit": "us"},
                  {"name": "batch/intersect/box-box/simd-avx2-batch/real_time", "run_type": "iteration",
                   "real_time": 1.0, "time_unit": "us"}]}
        path = os.path.join(self.dir, "bench.json")
        with open(path, "w") as f:
            json.dump(bench, f)
        for name in ("c2", "c6"):
            run("add-wall", "--history", self.history, "--hash", full_hash(name), "--short", short(name),
                "--date", "2026-11-20T10:00:00+00:00", "--subject", "s", "--json", path)
        walls = [o for o in ph.load(self.history) if o.get("kind") == "wall"]
        self.assertEqual(len(walls), 2)
        self.assertEqual(walls[0]["machine"], "ci-box")
        self.assertEqual(walls[0]["medians"], {"distance/hull-a/simd-avx2": 110.0,
                                               "distance/hull-a/simd-sse41": 2000.0})
        out, lines = self.report()
        self.assertIn("  ci-box: %s (2 medians), %s (2 medians)" % (short("c2"), short("c6")), lines)
        # counts are unchanged by the wall tags
        self.assertIn("+10.00 %% %s*" % short("c5"), self.row(lines, A))

        lines_ = ph.load(self.history)
        commits = ph.commits_of(lines_, "reduced", "avx2", ph.read_order(self.order))
        script = ph.chart_script(lines_, commits, "reduced", "avx2", "/tmp/x.png", "png")
        self.assertIn("set logscale y", script)
        self.assertIn("set multiplot layout 3,2", script)  # distance, penetration, manifold x simd, ref
        self.assertIn('axes x1y2 with points pt 6 ps 1.3 lc rgb \'#444444\' title "wall, ci-box"', script)
        self.assertIn("wall time, relative (advisory)", script)
        self.assertIn("set object rect from 2.55", script)  # c4 (index 3) shaded
        # A relative to c1: 1.1 from c5 on; C relative to its own first (c5): 1 then 0.99
        self.assertIn("4 1.1\n5 1.1\n6 1.105\n", script)
        self.assertIn("4 1\n5 1\n6 0.99\n", script)

        gnuplot = shutil.which("gnuplot")
        if gnuplot is None:
            self.skipTest("gnuplot not installed: the PNG is not drawn")
        png = os.path.join(self.dir, "history.png")
        run("chart", "--history", self.history, "--set", "reduced", "--backend", "avx2",
            "--order", self.order, "--png", png)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
