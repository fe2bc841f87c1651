/* mink-perf-driver: the workload of the deterministic performance gate
 * (scripts/perf-regress.sh).
 *
 *   mink-perf-driver FILE [--kernel ref|simd|both]
 *                    [--query intersect|distance|penetration|manifold|cast|all]
 *                    [--groups a,b,...] [--reps N] [--warm] [--list]
 *
 * Wall time on shared CI machines is noise, so the gate counts instructions
 * under callgrind instead. For every (group, query, kernel) the driver
 *   1. answers every case of the group once, uninstrumented, and checks each
 *      answer with case_check, case_check_manifold for the manifold query, or
 *      case_check_cast for the cast query
 *      (warm-up: lazy binding, page faults, first-touch of the hull memory;
 *      and a kernel that is wrong fails the run), then
 *   2. runs the group N times between callgrind client requests
 *      (START_INSTRUMENTATION, ZERO_STATS ... DUMP_STATS_AT("group/query/kernel"),
 *      STOP_INSTRUMENTATION), so that each dump holds exactly that work.
 * Run it under `valgrind --tool=callgrind --instr-atstart=no`; outside valgrind
 * the client requests are no-ops and the driver only checks answers.
 *
 * The manifold query is mink_manifold (ref: mink_ref_manifold) at the fixed
 * margin PD_MARGIN = 0.025, the speculative margin tests/data/manifold.cases
 * is checked at (above every gap of its speculative group; bench_manifold.h's
 * BM_MARGIN), so speculative contacts are part of the work. Its own measured
 * function, so the other queries' code and counts do not depend on it; it is
 * measured after them, and --query all includes it (it only adds entries).
 *
 * The cast query runs on cast files (FORMAT.md, "Casts"), and only there:
 * mink_cast (ref: mink_ref_cast) where both rotations are constant, else
 * mink_toi (mink_ref_toi), with the inputs case_run_cast gives them, built
 * before the region; its own measured function, as the manifold's. The
 * other queries run on the other files' cases only, so --query all on a
 * cast file is the cast query, and on any other file what it was before.
 *
 * --warm takes a trajectory file (traj.cases): the frames run in file order,
 * once with no cache (entry kernel "simd") and once with one mink_cache per
 * trajectory, emptied at its first frame (entry kernel "simd-warm"); every
 * trajectory adds up to one group named "traj".
 *
 * stdout is a manifest the script reads, one line per dump:
 *   calib calib cases 0 reps 1            region overhead (one pass over no case)
 *   entry <label> cases <n> reps <N>      instructions per query = (dump - calib) / (n * N)
 *   check <label> fail <k> of <n> iters <mean> gjk <mean> supports <mean> [first: <id>: <why>]
 *   check <label> fail <k> of <n> points <mean count> [first: <id>: <why>]     (manifold)
 *   check <label> fail <k> of <n> iters <mean> hits <count> [first: <id>: <why>]   (cast)
 * Exit status: 0, 1 on usage or I/O errors, 2 when some answer failed its check.
 *
 * Determinism: nothing inside a measured region prints, allocates, reads the
 * clock or depends on an address; the order of cases is the file's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"

#if defined(MINK_HAVE_CALLGRIND) && MINK_HAVE_CALLGRIND
#include <callgrind.h>
#else
/* No valgrind headers: the regions are still run (so the driver keeps
 * checking answers), just not delimited for callgrind. */
#define CALLGRIND_START_INSTRUMENTATION ((void)0)
#define CALLGRIND_STOP_INSTRUMENTATION ((void)0)
#define CALLGRIND_ZERO_STATS ((void)0)
#define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PD_NOINLINE __attribute__((noinline))
#else
#define PD_NOINLINE
#endif

#define GROUP_MAX 128
#define LABEL_MAX 256

/* The case_query values, then the manifold query (not a case_query: its
 * answer is a manifold, checked by case_check_manifold) and the cast query
 * (cast files only: checked by case_check_cast). */
#define QUERY_MANIFOLD 3
#define QUERY_CAST 4
#define QUERY_COUNT 5
/* The margin of the manifold query: manifold.cases's speculative margin. */
#define PD_MARGIN 0.025f

static const char *const query_names[QUERY_COUNT] = {"intersect", "distance", "penetration", "manifold", "cast"};
static const char *const kernel_names[2] = {"ref", "simd"};

/* One unit of measured work: the cases of a group, in file order. */
typedef struct job {
    char name[GROUP_MAX];
    const mink_case **cases;
    size_t n, cap;
    /* --warm only: trajectory index and "first frame of its trajectory" per case */
    uint32_t *traj;
    unsigned char *first;
    /* cast files: the inputs of every case's cast (cast_inputs), else NULL */
    case_cast_input *casts;
} job;

/* Keeps the answers observable without storing them anywhere address-dependent. */
static volatile float g_sink;

/* One query through the public API, directly (not case_run: its bookkeeping
 * belongs to another file, and a change there must not move these counts).
 * An intersect answer is turned into a result the way case_run does. */
static mink_status run_one(int kernel, int query, const mink_case *c, mink_cache *cache, mink_result *r)
{
    if (query == CASE_QUERY_INTERSECT) {
        const int hit = kernel == CASE_KERNEL_REF ? mink_ref_intersect(&c->a, &c->pa, &c->b, &c->pb, cache)
                                                  : mink_intersect(&c->a, &c->pa, &c->b, &c->pb, cache);
        memset(r, 0, sizeof *r);
        if (hit < 0) r->status = MINK_ERR_INVALID;
        else r->distance = hit ? 0.0f : 1.0f;
        return r->status;
    }
    if (query == CASE_QUERY_DISTANCE)
        return kernel == CASE_KERNEL_REF ? mink_ref_distance(&c->a, &c->pa, &c->b, &c->pb, cache, r)
                                         : mink_distance(&c->a, &c->pa, &c->b, &c->pb, cache, r);
    return kernel == CASE_KERNEL_REF ? mink_ref_penetration(&c->a, &c->pa, &c->b, &c->pb, cache, r)
                                     : mink_penetration(&c->a, &c->pa, &c->b, &c->pb, cache, r);
}

/* Cache of case i, emptied at the first frame of its trajectory; NULL = cold. */
static mink_cache *cache_for(const job *j, mink_cache *caches, size_t i)
{
    if (!caches) return NULL;
    mink_cache *c = &caches[j->traj[i]];
    if (j->first[i]) mink_cache_reset(c);
    return c;
}

/* The measured body: `reps` passes over the job. noinline so that the code
 * inside the region is one function whose instruction count does not depend
 * on how the caller was inlined. */
static PD_NOINLINE void measured_passes(const job *j, int kernel, int query, mink_cache *caches, unsigned reps)
{
    mink_result r;
    float acc = 0.0f;
    for (unsigned rep = 0; rep < reps; ++rep)
        for (size_t i = 0; i < j->n; ++i) {
            run_one(kernel, query, j->cases[i], cache_for(j, caches, i), &r);
            acc += r.distance;
        }
    g_sink = acc;
}

/* One callgrind dump holding exactly `reps` passes (plus a constant overhead
 * that the "calib" dump measures). */
static void measure(const char *label, const job *j, int kernel, int query, mink_cache *caches, unsigned reps)
{
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
    measured_passes(j, kernel, query, caches, reps);
    CALLGRIND_DUMP_STATS_AT(label);
    CALLGRIND_STOP_INSTRUMENTATION;
}

/* The uninstrumented pass: every answer checked. Returns the failure count. */
static size_t check_pass(const char *label, const job *j, int kernel, int query, mink_cache *caches)
{
    size_t fails = 0;
    char first[512] = "";
    double iters = 0, gjk = 0, supports = 0;
    for (size_t i = 0; i < j->n; ++i) {
        mink_result r;
        char why[320];
        run_one(kernel, query, j->cases[i], cache_for(j, caches, i), &r);
        iters += r.iterations;
        gjk += r.gjk_iterations;
        supports += r.support_calls;
        if (!case_check(j->cases[i], query, &r, why, sizeof why)) {
            if (fails++ == 0) snprintf(first, sizeof first, "%s: %s", j->cases[i]->id, why);
        }
    }
    /* The work counters explain a count that moved (intersect reports none). */
    const double n = j->n ? (double)j->n : 1.0;
    printf("check %s fail %zu of %zu iters %.2f gjk %.2f supports %.2f%s%s\n", label, fails, j->n, iters / n,
           gjk / n, supports / n, fails ? " first: " : "", first);
    return fails;
}

/* One manifold through the public API at PD_MARGIN, directly (not
 * case_run_manifold, for the reason run_one gives). */
static mink_status run_manifold(int kernel, const mink_case *c, mink_cache *cache, struct mink_manifold *m)
{
    return kernel == CASE_KERNEL_REF ? mink_ref_manifold(&c->a, &c->pa, &c->b, &c->pb, PD_MARGIN, cache, m)
                                     : mink_manifold(&c->a, &c->pa, &c->b, &c->pb, PD_MARGIN, cache, m);
}

/* measured_passes for the manifold query: its own function, so the point
 * queries' measured code is the same whether or not manifolds are built. */
static PD_NOINLINE void measured_manifold_passes(const job *j, int kernel, mink_cache *caches, unsigned reps)
{
    struct mink_manifold m;
    float acc = 0.0f;
    for (unsigned rep = 0; rep < reps; ++rep)
        for (size_t i = 0; i < j->n; ++i) {
            run_manifold(kernel, j->cases[i], cache_for(j, caches, i), &m);
            acc += (float)m.count;
        }
    g_sink = acc;
}

static void measure_manifold(const char *label, const job *j, int kernel, mink_cache *caches, unsigned reps)
{
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
    measured_manifold_passes(j, kernel, caches, reps);
    CALLGRIND_DUMP_STATS_AT(label);
    CALLGRIND_STOP_INSTRUMENTATION;
}

/* check_pass for the manifold query: every manifold checked with
 * case_check_manifold at PD_MARGIN. Returns the failure count. */
static size_t check_manifold_pass(const char *label, const job *j, int kernel, mink_cache *caches)
{
    size_t fails = 0;
    char first[512] = "";
    double points = 0;
    for (size_t i = 0; i < j->n; ++i) {
        struct mink_manifold m;
        char why[320];
        memset(&m, 0, sizeof m);
        run_manifold(kernel, j->cases[i], cache_for(j, caches, i), &m);
        points += m.count;
        if (!case_check_manifold(j->cases[i], PD_MARGIN, &m, why, sizeof why)) {
            if (fails++ == 0) snprintf(first, sizeof first, "%s: %s", j->cases[i]->id, why);
        }
    }
    const double n = j->n ? (double)j->n : 1.0;
    printf("check %s fail %zu of %zu points %.2f%s%s\n", label, fails, j->n, points / n, fails ? " first: " : "",
           first);
    return fails;
}


/* One cast through the public API, directly (not case_run_cast, for the
 * reason run_one gives). Returns what the cast returned. */
static int run_cast(int kernel, const case_cast_input *p, mink_cast_result *r)
{
    if (kernel == CASE_KERNEL_REF)
        return p->linear ? mink_ref_cast(p->a, &p->pa, p->da, p->b, &p->pb, p->db, p->target, r)
                         : mink_ref_toi(p->a, &p->sa, p->b, &p->sb, p->target, r);
    return p->linear ? mink_cast(p->a, &p->pa, p->da, p->b, &p->pb, p->db, p->target, r)
                     : mink_toi(p->a, &p->sa, p->b, &p->sb, p->target, r);
}

/* measured_passes for the cast query: its own function, as the manifold's. */
static PD_NOINLINE void measured_cast_passes(const job *j, int kernel, unsigned reps)
{
    mink_cast_result r;
    float acc = 0.0f;
    for (unsigned rep = 0; rep < reps; ++rep)
        for (size_t i = 0; i < j->n; ++i) {
            run_cast(kernel, &j->casts[i], &r);
            acc += r.t;
        }
    g_sink = acc;
}

static void measure_cast(const char *label, const job *j, int kernel, unsigned reps)
{
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
    measured_cast_passes(j, kernel, reps);
    CALLGRIND_DUMP_STATS_AT(label);
    CALLGRIND_STOP_INSTRUMENTATION;
}

/* check_pass for the cast query: every cast checked with case_check_cast.
 * Returns the failure count. */
static size_t check_cast_pass(const char *label, const job *j, int kernel)
{
    size_t fails = 0, hits = 0;
    char first[512] = "";
    double iters = 0;
    for (size_t i = 0; i < j->n; ++i) {
        mink_cast_result r;
        char why[320];
        memset(&r, 0, sizeof r);
        const int rc = run_cast(kernel, &j->casts[i], &r);
        iters += r.iterations;
        hits += rc == 1;
        if (!case_check_cast(j->cases[i], rc, &r, why, sizeof why)) {
            if (fails++ == 0) snprintf(first, sizeof first, "%s: %s", j->cases[i]->id, why);
        }
    }
    const double n = j->n ? (double)j->n : 1.0;
    printf("check %s fail %zu of %zu iters %.2f hits %zu%s%s\n", label, fails, j->n, iters / n, hits,
           fails ? " first: " : "", first);
    return fails;
}

/* The cast inputs of a job of cast cases. Returns 0, or -1 when out of memory. */
static int job_casts(job *j)
{
    j->casts = malloc((j->n ? j->n : 1) * sizeof *j->casts);
    if (!j->casts) return -1;
    for (size_t i = 0; i < j->n; ++i) j->casts[i] = case_cast_input_of(j->cases[i]);
    return 0;
}

static int job_push(job *j, const mink_case *c, uint32_t traj, int first)
{
    if (j->n == j->cap) {
        const size_t cap = j->cap ? 2 * j->cap : 256;
        const mink_case **cs = realloc(j->cases, cap * sizeof *cs);
        if (!cs) return -1;
        j->cases = cs;
        uint32_t *t = realloc(j->traj, cap * sizeof *t);
        if (!t) return -1;
        j->traj = t;
        unsigned char *f = realloc(j->first, cap);
        if (!f) return -1;
        j->first = f;
        j->cap = cap;
    }
    j->cases[j->n] = c;
    j->traj[j->n] = traj;
    j->first[j->n] = (unsigned char)(first != 0);
    j->n++;
    return 0;
}

static void job_free(job *j)
{
    free(j->cases);
    free(j->traj);
    free(j->first);
    free(j->casts);
}

/* Is `name` in the comma-separated list (NULL list = everything)? */
static int in_list(const char *list, const char *name)
{
    if (!list) return 1;
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == len && memcmp(p, name, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mink-perf-driver FILE [--kernel ref|simd|both]\n"
            "                        [--query intersect|distance|penetration|manifold|cast|all]\n"
            "                        [--groups a,b,...] [--reps N] [--warm] [--list]\n"
            "  Runs each (group, query, kernel) of the case file once (checked), then N times\n"
            "  between callgrind client requests. Run under\n"
            "  valgrind --tool=callgrind --instr-atstart=no. --query and --kernel take comma lists;\n"
            "  all = every query of the file's cases. manifold: mink_manifold at margin 0.025 (the\n"
            "  speculative margin of tests/data/manifold.cases), checked with case_check_manifold.\n"
            "  cast (cast files, the only query there): mink_cast, or mink_toi where a shape turns,\n"
            "  checked with case_check_cast.\n");
}

int main(int argc, char **argv)
{
    const char *path = NULL, *groups = NULL, *kernels = "both", *queries = "all";
    unsigned reps = 3;
    int warm = 0, list = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const int has_val = i + 1 < argc;
        if (!strcmp(a, "--kernel") && has_val) kernels = argv[++i];
        else if (!strcmp(a, "--query") && has_val) queries = argv[++i];
        else if (!strcmp(a, "--groups") && has_val) groups = argv[++i];
        else if (!strcmp(a, "--reps") && has_val) {
            char *end;
            const unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > 1000000) { fprintf(stderr, "mink-perf-driver: bad --reps\n"); return 1; }
            reps = (unsigned)v;
        } else if (!strcmp(a, "--warm")) warm = 1;
        else if (!strcmp(a, "--list")) list = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] != '-' && !path) path = a;
        else { usage(stderr); return 1; }
    }
    if (!path) { usage(stderr); return 1; }

    int want_kernel[2], want_query[QUERY_COUNT];
    const int all_k = !strcmp(kernels, "both") || !strcmp(kernels, "all");
    for (int k = 0; k < 2; ++k) want_kernel[k] = all_k || in_list(kernels, kernel_names[k]);
    int any_query = 0;
    for (int q = 0; q < QUERY_COUNT; ++q) {
        want_query[q] = !strcmp(queries, "all") || in_list(queries, query_names[q]);
        any_query |= want_query[q];
    }
    if (!want_kernel[0] && !want_kernel[1]) { fprintf(stderr, "mink-perf-driver: bad --kernel %s\n", kernels); return 1; }
    if (!any_query) {
        fprintf(stderr, "mink-perf-driver: bad --query %s\n", queries);
        return 1;
    }

    case_set set;
    char err[512];
    if (case_set_load(path, &set, err, sizeof err) != 0) {
        fprintf(stderr, "mink-perf-driver: %s\n", err);
        return 1;
    }

    /* Jobs in order of first appearance. --warm: one job "traj" with every
     * selected trajectory's frames in file order. */
    job *jobs = NULL;
    size_t njobs = 0;
    int rc = 0;
    char prev[GROUP_MAX] = "";
    size_t ntraj = 0;
    for (size_t i = 0; i < set.count && rc == 0; ++i) {
        char g[GROUP_MAX];
        case_group(set.cases[i].id, g, sizeof g);
        if (!in_list(groups, g)) continue;
        const int new_group = i == 0 || strcmp(g, prev) != 0;
        snprintf(prev, sizeof prev, "%s", g);
        size_t k = 0;
        if (warm) {
            if (njobs == 0) {
                jobs = calloc(1, sizeof *jobs);
                if (!jobs) { rc = 1; break; }
                snprintf(jobs[0].name, sizeof jobs[0].name, "traj");
                njobs = 1;
            }
            if (new_group) ntraj++;
            if (job_push(&jobs[0], &set.cases[i], (uint32_t)(ntraj - 1), new_group)) rc = 1;
            continue;
        }
        while (k < njobs && strcmp(jobs[k].name, g) != 0) ++k;
        if (k == njobs) {
            job *nj = realloc(jobs, (njobs + 1) * sizeof *nj);
            if (!nj) { rc = 1; break; }
            jobs = nj;
            memset(&jobs[njobs], 0, sizeof jobs[njobs]);
            snprintf(jobs[njobs].name, sizeof jobs[njobs].name, "%s", g);
            njobs++;
        }
        if (job_push(&jobs[k], &set.cases[i], 0, 0)) rc = 1;
    }
    if (rc) fprintf(stderr, "mink-perf-driver: out of memory\n");
    if (rc == 0 && njobs == 0) {
        fprintf(stderr, "mink-perf-driver: no case of %s matches --groups %s\n", path, groups ? groups : "(all)");
        rc = 1;
    }

    /* Cast files: the casts' inputs, once per job, outside every region. */
    for (size_t k = 0; k < njobs && rc == 0; ++k)
        if (jobs[k].n && jobs[k].cases[0]->is_cast && job_casts(&jobs[k]) != 0) {
            fprintf(stderr, "mink-perf-driver: out of memory\n");
            rc = 1;
        }

    if (rc == 0 && list) {
        for (size_t k = 0; k < njobs; ++k) printf("group %s cases %zu\n", jobs[k].name, jobs[k].n);
    } else if (rc == 0) {
        size_t fails = 0;
        mink_cache *caches = NULL;
        if (warm) {
            caches = calloc(ntraj, sizeof *caches);
            if (!caches) { fprintf(stderr, "mink-perf-driver: out of memory\n"); rc = 1; }
        }
        /* The overhead of a region around one pass over no case, subtracted
         * by the script so that per-query counts do not depend on N. */
        if (rc == 0) {
            const job empty = {.name = "calib"};
            measure("calib", &empty, CASE_KERNEL_SIMD, CASE_QUERY_DISTANCE, NULL, 1);
            printf("calib calib cases 0 reps 1\n");
        }
        for (size_t k = 0; k < njobs && rc == 0; ++k)
            for (int q = 0; q < QUERY_COUNT; ++q) {
                /* the cast query on cast files, the others elsewhere */
                if (!want_query[q] || (q == QUERY_CAST) != (jobs[k].casts != NULL)) continue;
                for (int kern = 0; kern < 2; ++kern) {
                    if (!want_kernel[kern]) continue;
                    /* --warm: cold (no cache) then warm (per-trajectory caches);
                     * the cast query takes no cache: cold only. */
                    for (int w = 0; w <= (warm && q != QUERY_CAST); ++w) {
                        char label[LABEL_MAX];
                        mink_cache *cs = w ? caches : NULL;
                        snprintf(label, sizeof label, "%s/%s/%s%s", jobs[k].name, query_names[q],
                                 kernel_names[kern], w ? "-warm" : "");
                        if (q == QUERY_CAST) {
                            fails += check_cast_pass(label, &jobs[k], kern);
                            fflush(stdout);
                            measure_cast(label, &jobs[k], kern, reps);
                        } else if (q == QUERY_MANIFOLD) {
                            fails += check_manifold_pass(label, &jobs[k], kern, cs);
                            fflush(stdout); /* printing stays outside the region */
                            measure_manifold(label, &jobs[k], kern, cs, reps);
                        } else {
                            fails += check_pass(label, &jobs[k], kern, q, cs);
                            fflush(stdout);
                            measure(label, &jobs[k], kern, q, cs, reps);
                        }
                        printf("entry %s cases %zu reps %u\n", label, jobs[k].n, reps);
                    }
                }
            }
        fflush(stdout);
        free(caches);
        if (rc == 0 && fails) {
            fprintf(stderr, "mink-perf-driver: %zu answers failed their check (see the check lines)\n", fails);
            rc = 2;
        }
    }

    for (size_t k = 0; k < njobs; ++k) job_free(&jobs[k]);
    free(jobs);
    case_set_free(&set);
    return rc;
}
