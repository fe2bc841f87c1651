// Bullet worlds on mink's narrowphase, headless: a 5-high stack of rounded
// boxes stands (its top box drifts less than 1 cm in 5 s; Bullet's own
// narrowphase lets it drift 2.5 cm, and 10-high stacks creep on Bullet's
// solver with either narrowphase), a small pyramid
// stands, and a pile of hulls, boxes and capsules comes to rest on the
// ground with nothing falling through and no NaN. Every pair runs on mink;
// the stack and the pyramid also stand reusing answers of pairs that barely
// moved (mink_bullet_set_reuse_tolerance 1e-3), most of their pair-frames.
#include "mink_bullet.h"
#include "scenes.h"

#include <cstdio>

namespace {

int failures = 0;

void check(const SceneRun &r, double max_drift, double max_final_energy)
{
    const double energy = r.steps.empty() ? 0 : r.steps.back().kinetic_energy;
    const bool ok = r.lost == 0 && r.non_finite == 0 && r.max_drift < max_drift && energy < max_final_energy &&
                    r.mink_queries > 0;
    std::printf("%s %-8s %d bodies, %zu steps: drift %.5f m (limit %.3f), lost %d, NaN %d, final kinetic energy "
                "%.3g J (limit %.3g), %llu mink queries, %.1f contacts per step\n",
                ok ? "ok  " : "FAIL", r.scene.c_str(), r.bodies, r.steps.size(), r.max_drift, max_drift, r.lost,
                r.non_finite, energy, max_final_energy, r.mink_queries, r.mean_contacts());
    failures += !ok;
}

} // namespace

int main()
{
    SceneOptions opt;
    opt.steps = 300;
    opt.stack_height = 5;
    check(run_scene("stack", Narrowphase::mink, opt), 0.01, 1e-2);
    opt.pyramid_rows = 8;
    check(run_scene("pyramid", Narrowphase::mink, opt), 0.01, 1e-2);
    opt.pile_bodies = 120;
    opt.steps = 360;
    check(run_scene("pile", Narrowphase::mink, opt), 1e30, 5.0);
    // reusing answers: as steady, with most pair-frames reused
    SceneOptions reuse;
    reuse.steps = 300;
    reuse.stack_height = 5;
    reuse.pyramid_rows = 8;
    reuse.reuse_tolerance = 1e-3f;
    for (const char *scene : {"stack", "pyramid"}) {
        const SceneRun r = run_scene(scene, Narrowphase::mink, reuse);
        check(r, 0.01, 1e-2);
        const double share = double(r.mink_reused) / double(r.mink_reused + r.mink_queries);
        std::printf("%s %-8s reusing answers: %.0f %% of pair-frames reused\n", share > 0.5 ? "ok  " : "FAIL",
                    scene, 100.0 * share);
        failures += !(share > 0.5);
    }
    const mink_bullet_stats s = mink_bullet_get_stats();
    if (s.fallback_pairs != 0 || s.invalid != 0) {
        std::printf("FAIL %llu pairs fell back to Bullet, %llu queries answered invalid\n", s.fallback_pairs,
                    s.invalid);
        ++failures;
    }
    return failures ? 1 : 0;
}
