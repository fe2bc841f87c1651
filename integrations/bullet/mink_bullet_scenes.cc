// mink-bullet-scenes: Bullet worlds stepped with Bullet's own narrowphase
// and with mink's (mink_bullet_register, in a mink_bullet_world), same
// bodies, same seeds, 60 Hz.
//
// Usage: mink-bullet-scenes [--scene pyramid|pile|stack|ccd|all] [--steps N]
//                           [--narrowphase bullet|mink|both] [--seed S]
//                           [--rows N] [--bodies N] [--height N] [--spheres N]
//                           [--out DIR]
//                           [--reuse-tolerance T]   (0: mink every frame)
//                           [--reuse-row T]         (0: no third run)
//                           [--repeat N]            (runs of each, 3 unless told)
// Prints a table (narrowphase and step ms per step: medians over the steps,
// then the median of N runs of the same world, run in turn (--repeat);
// contacts per step; the tracked top box's drift; bodies lost). The scene
// "ccd" (fast spheres at thin planks) runs Bullet's narrowphase twice, with
// CCD off and with Bullet's CCD, and mink's with mink's CCD, and has its own
// table: spheres that tunnelled, CCD and step ms per step (medians over the
// steps with a sphere in flight), sweeps and casts per step. With both
// narrowphases and mink every frame, pyramid, pile and stack run a third
// time: mink reusing answers of pairs that barely moved
// (mink_bullet_set_reuse_tolerance, --reuse-row, 1e-3 unless told). With --out:
// DIR/scenes.json (the tables), DIR/<scene>-<run>.series (per step: time,
// narrowphase ms, step ms, contacts, kinetic energy, drift, CCD ms, spheres
// tunnelled so far, sweeps, casts) and DIR/<scene>-<run>.wire (the final
// state's edges, for integrations/bullet/plot-scenes.sh); <run> is bullet,
// mink, mink-reuse, or for "ccd" also bullet-noccd.
#include "scenes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int usage()
{
    std::fprintf(stderr, "usage: mink-bullet-scenes [--scene pyramid|pile|stack|ccd|all] [--steps N]\n"
                         "       [--narrowphase bullet|mink|both] [--seed S] [--rows N] [--bodies N]\n"
                         "       [--height N] [--spheres N] [--out DIR] [--reuse-tolerance T]\n"
                         "       [--reuse-row T] [--repeat N]\n");
    return 2;
}

bool write_series(const std::string &path, const SceneRun &r)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) return false;
    std::fprintf(f,
                 "# %s, %s: time_s narrowphase_ms step_ms contacts kinetic_energy drift_m ccd_ms tunnelled swept "
                 "casts\n",
                 r.scene.c_str(), r.label().c_str());
    for (size_t i = 0; i < r.steps.size(); ++i) {
        const StepRecord &s = r.steps[i];
        std::fprintf(f, "%.5f %.5f %.5f %d %.9g %.9g %.5f %d %d %d\n", double(i + 1) / 60.0, s.narrowphase_ms,
                     s.step_ms, s.contacts, s.kinetic_energy, s.drift, s.ccd_ms, s.tunnelled, s.swept, s.casts);
    }
    return std::fclose(f) == 0;
}

bool write_wire(const std::string &path, const SceneRun &r)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) return false;
    // gnuplot: one block per body kind (index), a segment per line as a
    // start and a vector; Bullet's Y is up, gnuplot's z: columns x, z, y
    for (int kind = 0; kind <= 4; ++kind) {
        std::fprintf(f, "# kind %d\n", kind);
        for (size_t i = 0; i < r.wire_kind.size(); ++i) {
            if (r.wire_kind[i] != kind) continue;
            const float *w = &r.wire[6 * i];
            std::fprintf(f, "%.4f %.4f %.4f %.4f %.4f %.4f\n", w[0], w[2], w[1], w[3] - w[0], w[5] - w[2], w[4] - w[1]);
        }
        std::fprintf(f, "\n\n");
    }
    return std::fclose(f) == 0;
}

} // namespace

int main(int argc, char **argv)
{
    std::string scene = "all", which = "both", out;
    SceneOptions opt;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        auto number = [&](int &dst) {
            if (!v) return false;
            char *end = nullptr;
            const long n = std::strtol(v, &end, 10);
            if (*end || n <= 0 || n > 1000000) return false;
            dst = int(n);
            ++i;
            return true;
        };
        auto tolerance = [&](float &dst) { // relative, in [0, 1)
            if (!v) return false;
            char *end = nullptr;
            const float t = std::strtof(v, &end);
            if (*end || !(t >= 0 && t < 1)) return false;
            dst = t;
            ++i;
            return true;
        };
        if (a == "--scene" && v) scene = v, ++i;
        else if (a == "--narrowphase" && v) which = v, ++i;
        else if (a == "--out" && v) out = v, ++i;
        else if (a == "--steps") { if (!number(opt.steps)) return usage(); }
        else if (a == "--rows") { if (!number(opt.pyramid_rows)) return usage(); }
        else if (a == "--bodies") { if (!number(opt.pile_bodies)) return usage(); }
        else if (a == "--height") { if (!number(opt.stack_height)) return usage(); }
        else if (a == "--spheres") { if (!number(opt.ccd_spheres)) return usage(); }
        else if (a == "--repeat") { if (!number(repeat) || repeat > 99) return usage(); }
        else if (a == "--reuse-tolerance") { if (!tolerance(opt.reuse_tolerance)) return usage(); }
        else if (a == "--reuse-row") { if (!tolerance(opt.reuse_row)) return usage(); }
        else if (a == "--seed") {
            int s = 0;
            if (!number(s)) return usage();
            opt.seed = uint32_t(s);
        } else return usage();
    }
    std::vector<std::string> scenes;
    if (scene == "all") scenes = scene_names();
    else scenes.push_back(scene);
    std::vector<Narrowphase> nps;
    if (which == "bullet" || which == "both") nps.push_back(Narrowphase::bullet);
    if (which == "mink" || which == "both") nps.push_back(Narrowphase::mink);
    if (nps.empty()) return usage();
    opt.keep_wireframe = !out.empty();

    std::vector<SceneRun> runs;
    for (const std::string &s : scenes) {
        // "ccd": Bullet's narrowphase with CCD off, then each with its CCD;
        // the others: each narrowphase, then, when both run, mink reusing
        // answers
        std::vector<std::pair<Narrowphase, SceneOptions>> variants;
        for (Narrowphase np : nps) {
            SceneOptions o = opt;
            if (s == "ccd" && np == Narrowphase::bullet) {
                o.ccd = false;
                variants.emplace_back(np, o);
                o.ccd = true;
            }
            variants.emplace_back(np, o);
            if (np == Narrowphase::mink && which == "both" && s != "ccd" && opt.reuse_row > 0 &&
                opt.reuse_tolerance == 0) {
                o.reuse_tolerance = opt.reuse_row;
                variants.emplace_back(np, o);
            }
        }
        // repeats in turn, so that the machine's slower spells fall on
        // every variant alike; the first run of each is the one kept
        const size_t first = runs.size();
        for (int rep = 0; rep < repeat; ++rep)
            for (size_t v = 0; v < variants.size(); ++v) {
                SceneOptions o = variants[v].second;
                o.keep_wireframe = o.keep_wireframe && rep == 0; // (the pictures: the first run's)
                SceneRun r;
                try {
                    r = run_scene(s, variants[v].first, o);
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "mink-bullet-scenes: %s\n", e.what());
                    return usage();
                }
                if (rep > 0) {
                    if (!runs[first + v].add_repeat(r))
                        std::fprintf(stderr, "mink-bullet-scenes: %s %s ran another way again (its time not kept)\n",
                                     s.c_str(), r.label().c_str());
                    continue;
                }
                runs.push_back(std::move(r));
                SceneRun &kept = runs.back();
                if (out.empty()) continue;
                const std::string base = out + "/" + s + "-" + kept.label();
                if (!write_series(base + ".series", kept) || !write_wire(base + ".wire", kept)) {
                    std::fprintf(stderr, "mink-bullet-scenes: cannot write %s.*\n", base.c_str());
                    return 1;
                }
                kept.wire.clear(), kept.wire_kind.clear();
            }
    }

    const bool any_ccd = std::any_of(runs.begin(), runs.end(), [](const SceneRun &r) { return r.scene == "ccd"; });
    const bool any_other = std::any_of(runs.begin(), runs.end(), [](const SceneRun &r) { return r.scene != "ccd"; });
    if (any_other) {
        std::printf("%-8s %-10s %6s %6s %13s %11s %9s %9s %10s %5s %4s\n", "scene", "np", "bodies", "steps",
                    "narrowphase", "step", "np/step", "contacts", "drift", "lost", "nan");
        std::printf("%-8s %-10s %6s %6s %13s %11s %9s %9s %10s %5s %4s\n", "", "", "", "", "ms/step", "ms/step",
                    "share", "per step", "max (m)", "", "");
    }
    for (const SceneRun &r : runs) {
        if (r.scene == "ccd") continue;
        const double np_ms = r.median_narrowphase_ms(), step_ms = r.median_step_ms();
        std::printf("%-8s %-10s %6d %6zu %13.4f %11.4f %8.0f%% %9.1f %10.5f %5d %4d\n", r.scene.c_str(),
                    r.label().c_str(), r.bodies, r.steps.size(), np_ms, step_ms,
                    step_ms > 0 ? 100.0 * np_ms / step_ms : 0.0, r.mean_contacts(), r.max_drift, r.lost,
                    r.non_finite);
    }
    if (any_other)
        std::printf("times: each run's median over its steps, then the median of %d run%s of each, in turn\n", repeat,
                    repeat > 1 ? "s" : "");
    for (const SceneRun &r : runs)
        if (r.narrowphase == Narrowphase::mink && r.mink_queries + r.mink_reused > 0)
            std::printf("%s: mink answered %llu pair-frames, reused %llu (%.0f %%; reuse tolerance %g)\n",
                        r.scene.c_str(), r.mink_queries, r.mink_reused,
                        100.0 * double(r.mink_reused) / double(r.mink_queries + r.mink_reused),
                        double(r.reuse_tolerance));
    // the ratios per scene, each mink run against Bullet's
    for (size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].scene == "ccd" || runs[i].narrowphase != Narrowphase::bullet) continue;
        for (size_t j = i + 1; j < runs.size() && runs[j].scene == runs[i].scene; ++j)
            if (runs[j].narrowphase == Narrowphase::mink && runs[j].median_narrowphase_ms() > 0)
                std::printf("%s: narrowphase %.2fx faster with %s, step %.2fx\n", runs[i].scene.c_str(),
                            runs[i].median_narrowphase_ms() / runs[j].median_narrowphase_ms(), runs[j].label().c_str(),
                            runs[i].median_step_ms() / runs[j].median_step_ms());
    }

    if (any_ccd) {
        std::printf("\n%-5s %-13s %7s %6s %9s %9s %11s %9s %8s %9s %5s %4s\n", "scene", "run", "spheres", "steps",
                    "tunnelled", "ccd", "step", "ccd/step", "sweeps", "casts", "lost", "nan");
        std::printf("%-5s %-13s %7s %6s %9s %9s %11s %9s %8s %9s %5s %4s\n", "", "", "", "", "", "ms/step",
                    "ms/step", "share", "per step", "per step", "", "");
        for (const SceneRun &r : runs) {
            if (r.scene != "ccd") continue;
            const double ccd_ms = r.median_ccd_ms(), step_ms = r.median_step_ms();
            char casts[32] = "-";
            if (r.narrowphase == Narrowphase::mink) std::snprintf(casts, sizeof casts, "%.1f", r.mean_casts());
            std::printf("%-5s %-13s %7d %6zu %9d %9.4f %11.4f %8.0f%% %8.1f %9s %5d %4d\n", r.scene.c_str(),
                        r.label().c_str(), r.shots, r.steps.size(), r.tunnelled, ccd_ms, step_ms,
                        step_ms > 0 ? 100.0 * ccd_ms / step_ms : 0.0, r.mean_swept(), casts, r.lost, r.non_finite);
        }
        std::printf("ccd: tunnelled = spheres that went through a plank; times are medians and sweeps, casts means\n"
                    "     over the steps with a sphere in flight (moving more than its radius a step); ccd = the\n"
                    "     world's createPredictiveContacts + integrateTransforms (Bullet: a swept sphere, mink: the\n"
                    "     body's own shape with mink_cast)\n");
    }

    if (!out.empty()) {
        const std::string path = out + "/scenes.json";
        FILE *f = std::fopen(path.c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "mink-bullet-scenes: cannot write %s\n", path.c_str());
            return 1;
        }
        std::fprintf(f, "{\"steps\": %d, \"seed\": %u, \"runs\": [\n", opt.steps, opt.seed);
        for (size_t i = 0; i < runs.size(); ++i) {
            const SceneRun &r = runs[i];
            double final_ke = r.steps.empty() ? 0 : r.steps.back().kinetic_energy;
            std::fprintf(f,
                         "  {\"scene\": \"%s\", \"narrowphase\": \"%s\", \"run\": \"%s\", \"bodies\": %d, "
                         "\"narrowphase_ms\": %.6f, \"step_ms\": %.6f, \"contacts\": %.2f, \"max_drift\": %.6g, "
                         "\"final_drift\": %.6g, \"final_kinetic_energy\": %.6g, \"lost\": %d, \"non_finite\": %d, "
                         "\"reuse_tolerance\": %g, \"timed_runs\": %zu",
                         r.scene.c_str(), narrowphase_name(r.narrowphase), r.label().c_str(), r.bodies,
                         r.median_narrowphase_ms(), r.median_step_ms(), r.mean_contacts(), r.max_drift,
                         r.steps.empty() ? 0.0 : r.steps.back().drift, final_ke, r.lost, r.non_finite,
                         double(r.reuse_tolerance), 1 + r.repeats.size());
            if (r.scene == "ccd")
                std::fprintf(f,
                             ", \"ccd\": %s, \"shots\": %d, \"tunnelled\": %d, \"ccd_ms\": %.6f, \"sweeps\": %.2f, "
                             "\"casts\": %.2f",
                             r.ccd ? "true" : "false", r.shots, r.tunnelled, r.median_ccd_ms(), r.mean_swept(),
                             r.mean_casts());
            std::fprintf(f, "}%s\n", i + 1 < runs.size() ? "," : "");
        }
        std::fprintf(f, "]}\n");
        std::fclose(f);
    }
    int failed = 0;
    for (const SceneRun &r : runs) failed |= r.non_finite > 0;
    return failed;
}
