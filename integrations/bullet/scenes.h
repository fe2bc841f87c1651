// The scenes mink-bullet-scenes runs (and the integration tests): Bullet
// worlds stepped at 60 Hz with Bullet's own narrowphase or with mink's,
// same seeds, same bodies. The mink runs step a mink_bullet_world (mink's
// continuous collision too; the scene "ccd" is the one whose bodies use it).
#ifndef MINK_BULLET_SCENES_H
#define MINK_BULLET_SCENES_H

#include <cstdint>
#include <string>
#include <vector>

enum class Narrowphase { bullet, mink };
const char *narrowphase_name(Narrowphase np);

struct SceneOptions {
    int steps = 600;        // 10 s at 60 Hz
    int pyramid_rows = 20;  // scene "pyramid": rows of boxes
    int pile_bodies = 500;  // scene "pile": hulls, boxes and capsules
    int stack_height = 10;  // scene "stack": rounded boxes
    int ccd_spheres = 200;  // scene "ccd": small fast spheres shot at thin planks
    bool ccd = true;        // scene "ccd": the spheres' CCD motion threshold and
                            // swept sphere radius set (Bullet's CCD with Bullet's
                            // narrowphase, mink's with mink's); false: CCD off
    uint32_t seed = 1;
    bool keep_wireframe = false; // the final state's edges, for pictures
    float reuse_tolerance = 0.0f; // mink runs: mink_bullet_set_reuse_tolerance (0: off)
    float reuse_row = 1e-3f;      // mink-bullet-scenes: a third run of pyramid, pile and
                                  // stack, mink with this reuse tolerance (0: none)
};

// Per step, after it.
struct StepRecord {
    double narrowphase_ms; // time in the dispatcher's collision pairs
    double step_ms;        // the whole stepSimulation
    int contacts;          // points in all manifolds
    double kinetic_energy; // of every dynamic body (J, unit densities)
    double drift;          // the tracked body's distance from where it had
                           // settled after the first second (m; 0 before)
    double ccd_ms;         // in the world's CCD: createPredictiveContacts and
                           // integrateTransforms (which also integrates every body)
    int fast;              // scene "ccd": spheres moving more than their radius a step
    int tunnelled;         // scene "ccd": spheres gone through a plank so far
    int swept;             // CCD body sweeps (both passes; Bullet: gNumClampedCcdMotions)
    int casts;             // mink_cast calls (mink runs)
};

// A run's medians over its steps (SceneRun::add_repeat).
struct RunTimes {
    double narrowphase_ms, step_ms, ccd_ms;
};

struct SceneRun {
    std::string scene;
    Narrowphase narrowphase = Narrowphase::bullet;
    int bodies = 0;                 // dynamic ones
    std::vector<StepRecord> steps;
    bool ccd = false;               // scene "ccd": CCD on (SceneOptions::ccd)
    int lost = 0;                   // bodies that fell through the ground
    int tunnelled = 0;              // scene "ccd": spheres that went through a plank
    int shots = 0;                  // scene "ccd": spheres shot
    int non_finite = 0;             // bodies whose pose became NaN or infinite
    double max_drift = 0;           // of the tracked body (the top box), over the run
    unsigned long long mink_queries = 0; // mink_manifold calls (mink runs)
    unsigned long long mink_reused = 0;  // answers reused while the pair stood still
    float reuse_tolerance = 0;           // mink runs: the one they ran with
    // the final state as line segments (x0 y0 z0 x1 y1 z1), with the kind
    // of body each came from (0 ground, 1 box, 2 hull, 3 capsule, 4 sphere)
    std::vector<float> wire;
    std::vector<int> wire_kind;
    // the same world run again (the same trajectory): its medians, the
    // times below then being the median over this run and those
    std::vector<RunTimes> repeats;

    // Medians and means over the steps, or, when some step had a fast
    // sphere (scene "ccd"), over those steps only; the times with repeats
    // the median of each run's.
    double median_narrowphase_ms() const;
    double median_step_ms() const;
    double median_ccd_ms() const;
    double mean_contacts() const;
    double mean_swept() const;
    double mean_casts() const;
    // Keeps another run of the same world's times; false (nothing kept)
    // when it did not follow the same trajectory.
    bool add_repeat(const SceneRun &again);
    // the narrowphase's name, "-reuse" for a mink run reusing answers and
    // "-noccd" for a "ccd" run with CCD off
    std::string label() const;
};

// Scenes: "pyramid", "pile", "stack", "ccd". Throws std::invalid_argument for
// another name.
SceneRun run_scene(const std::string &scene, Narrowphase np, const SceneOptions &opt);
const std::vector<std::string> &scene_names();

#endif  // MINK_BULLET_SCENES_H
