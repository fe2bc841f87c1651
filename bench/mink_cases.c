/* mink-cases: runs, checks and times a query case file (tests/data/FORMAT.md).
 *
 *   mink-cases run      FILE [--kernel ref|simd] [--query Q] [--margin M] [--cache] [--batch]
 *   mink-cases check    FILE [--kernel ref|simd] [--query Q] [--margin M] [--cache] [--batch] [--tol local] [--verbose]
 *   mink-cases time     FILE [--kernel ref|simd] [--query Q] [--margin M] [--cache] [--reps N]
 *   mink-cases manifold FILE [--kernel ref|simd] [--margin M] [--cache]
 *   mink-cases cast     FILE [--kernel ref|simd]
 *
 * Q is distance, penetration, intersect or manifold (contact manifolds at
 * margin M, default 0: FORMAT.md, "Manifolds"); `manifold` is run --query
 * manifold; `cast` is run --query cast, the query of cast files (FORMAT.md,
 * "Casts": mink_cast where both rotations are constant, else mink_toi;
 * check and time take it too). Defaults: --kernel simd --query penetration, no cache. --cache
 * gives each group one mink_cache, carried from case to case in file order
 * (frame coherence on trajectories). --batch (SIMD kernel; penetration,
 * intersect, manifold) answers through the batch API instead: the whole
 * file in one call, or with --cache in rounds, the next case of every group
 * per call (each pair its group's cache). */
#define _POSIX_C_SOURCE 200809L

#include "cases.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The tool's fourth query, next to enum case_query. */
enum { QUERY_MANIFOLD = CASE_QUERY_PENETRATION + 1, QUERY_CAST };

typedef struct options {
    const char *cmd, *file;
    int kernel, query, cache, verbose, query_given, local, batch;
    long reps;
    float margin;      /* manifolds only */
} options;

/* What a case answered: a query result, or a manifold. */
typedef struct answer {
    mink_result r;
    struct mink_manifold m;
    mink_cast_result c;
    int hit; /* what the cast returned */
} answer;

/* Groups in order of first appearance; each case knows its group. */
typedef struct groups {
    char **name;
    size_t count;
    size_t *of_case;   /* group index of each case */
    size_t *size;      /* cases per group          */
    size_t **members;  /* case indices per group, in file order */
} groups;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mink-cases run      FILE [--kernel ref|simd] [--query Q] [--margin M] [--cache] [--batch]\n"
            "       mink-cases check    FILE [--kernel ref|simd] [--query Q] [--margin M] [--cache] [--batch] [--tol local] [--verbose]\n"
            "       mink-cases time     FILE [--kernel ref|simd] [--query Q] [--margin M] [--cache] [--reps N]\n"
            "       mink-cases manifold FILE [--kernel ref|simd] [--margin M] [--cache]  (run --query manifold)\n"
            "       mink-cases cast     FILE [--kernel ref|simd]  (run --query cast)\n"
            "Q: distance | penetration | intersect | manifold | cast (default penetration, cast for cast files);\n"
            "kernel default simd.\n"
            "--margin: the manifold query's margin, >= 0 (default 0).\n"
            "--cache: one mink_cache per group, carried through the group's cases in order.\n"
            "--batch: through mink_penetration_batch, mink_intersect_batch or mink_manifold_batch\n"
            "  (simd kernel): the file in one call, or with --cache the next case of every group per call.\n"
            "--tol local: check with FORMAT.md's local tolerance (the smaller shape's size and the\n"
            "  float resolution of the coordinates) instead of 1e-4 L (--tol format, the default).\n");
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "mink-cases: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    usage(stderr);
    return 2;
}

static const char *query_name(int q)
{
    return q == CASE_QUERY_INTERSECT ? "intersect"
         : q == CASE_QUERY_DISTANCE  ? "distance"
         : q == QUERY_MANIFOLD       ? "manifold"
         : q == QUERY_CAST           ? "cast"
                                     : "penetration";
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->kernel = CASE_KERNEL_SIMD;
    o->query = CASE_QUERY_PENETRATION;
    o->reps = 7;
    if (argc < 3) return usage_error("missing command or file", NULL);
    o->cmd = argv[1];
    const int manifold_cmd = strcmp(o->cmd, "manifold") == 0, cast_cmd = strcmp(o->cmd, "cast") == 0;
    if (manifold_cmd || cast_cmd) o->cmd = "run";
    if (strcmp(o->cmd, "run") != 0 && strcmp(o->cmd, "check") != 0 && strcmp(o->cmd, "time") != 0)
        return usage_error("unknown command", o->cmd);
    int have_reps = 0, have_query = 0, have_margin = 0;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--kernel") == 0 || strcmp(a, "--query") == 0 || strcmp(a, "--reps") == 0 ||
            strcmp(a, "--margin") == 0 || strcmp(a, "--tol") == 0) {
            if (i + 1 >= argc) return usage_error("missing value for", a);
            const char *v = argv[++i];
            if (strcmp(a, "--tol") == 0) {
                if (strcmp(v, "local") == 0) o->local = 1;
                else if (strcmp(v, "format") == 0) o->local = 0;
                else return usage_error("unknown --tol (want local or format)", v);
            } else if (strcmp(a, "--kernel") == 0) {
                if (strcmp(v, "ref") == 0) o->kernel = CASE_KERNEL_REF;
                else if (strcmp(v, "simd") == 0) o->kernel = CASE_KERNEL_SIMD;
                else return usage_error("unknown kernel", v);
            } else if (strcmp(a, "--query") == 0) {
                if (strcmp(v, "distance") == 0) o->query = CASE_QUERY_DISTANCE;
                else if (strcmp(v, "penetration") == 0) o->query = CASE_QUERY_PENETRATION;
                else if (strcmp(v, "intersect") == 0) o->query = CASE_QUERY_INTERSECT;
                else if (strcmp(v, "manifold") == 0) o->query = QUERY_MANIFOLD;
                else if (strcmp(v, "cast") == 0) o->query = QUERY_CAST;
                else return usage_error("unknown query", v);
                have_query = 1;
            } else if (strcmp(a, "--margin") == 0) {
                char *end = NULL;
                const double m = strtod(v, &end);
                if (!*v || *end || !(m >= 0.0 && m <= MINK_MAX_MAGNITUDE)) return usage_error("bad --margin", v);
                o->margin = (float)m;
                have_margin = 1;
            } else {
                char *end = NULL;
                o->reps = strtol(v, &end, 10);
                if (!*v || *end || o->reps < 1 || o->reps > 100000) return usage_error("bad --reps", v);
                have_reps = 1;
            }
        } else if (strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
        } else if (strcmp(a, "--cache") == 0) {
            o->cache = 1;
        } else if (strcmp(a, "--batch") == 0) {
            o->batch = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option", a);
        } else if (!o->file) {
            o->file = a;
        } else {
            return usage_error("more than one file", a);
        }
    }
    if (!o->file) return usage_error("missing file", NULL);
    if ((manifold_cmd || cast_cmd) && have_query) return usage_error("manifold and cast take no --query", NULL);
    if (manifold_cmd) o->query = QUERY_MANIFOLD;
    if (cast_cmd) o->query = QUERY_CAST;
    o->query_given = have_query || manifold_cmd || cast_cmd;
    if (have_margin && o->query != QUERY_MANIFOLD) return usage_error("--margin is for the manifold query", NULL);
    if (o->verbose && strcmp(o->cmd, "check") != 0) return usage_error("--verbose is for check", NULL);
    if (have_reps && strcmp(o->cmd, "time") != 0) return usage_error("--reps is for time", NULL);
    if (o->batch && strcmp(o->cmd, "time") == 0) return usage_error("--batch is for run and check", NULL);
    if (o->batch && (o->kernel != CASE_KERNEL_SIMD || o->query == CASE_QUERY_DISTANCE || o->query == QUERY_CAST))
        return usage_error("--batch is for the simd kernel's penetration, intersect and manifold", NULL);
    return 0;
}

static void groups_free(groups *g)
{
    for (size_t i = 0; i < g->count; ++i) {
        free(g->name[i]);
        free(g->members[i]);
    }
    free(g->name);
    free(g->members);
    free(g->size);
    free(g->of_case);
    memset(g, 0, sizeof *g);
}

/* Groups are usually contiguous runs; a linear search over the names seen
 * so far is fine for the handful a file has, with a fast path for "same as
 * the previous case". */
static int groups_build(const case_set *set, groups *g)
{
    memset(g, 0, sizeof *g);
    const size_t n = set->count;
    g->of_case = malloc((n ? n : 1) * sizeof(size_t));
    g->name = malloc((n ? n : 1) * sizeof(char *));
    g->size = calloc(n ? n : 1, sizeof(size_t));
    g->members = calloc(n ? n : 1, sizeof(size_t *));
    if (!g->of_case || !g->name || !g->size || !g->members) return -1;
    for (size_t i = 0; i < n; ++i) {
        const size_t len = strlen(set->cases[i].id) + 1;
        char *name = malloc(len);
        if (!name) return -1;
        case_group(set->cases[i].id, name, len);
        size_t k = g->count;
        if (i > 0 && strcmp(g->name[g->of_case[i - 1]], name) == 0) k = g->of_case[i - 1];
        else
            for (size_t j = 0; j < g->count; ++j)
                if (strcmp(g->name[j], name) == 0) { k = j; break; }
        if (k == g->count) g->name[g->count++] = name;
        else free(name);
        g->of_case[i] = k;
        g->size[k]++;
    }
    size_t *fill = calloc(g->count ? g->count : 1, sizeof(size_t));
    if (!fill) return -1;
    for (size_t k = 0; k < g->count; ++k) {
        g->members[k] = malloc(g->size[k] * sizeof(size_t));
        if (!g->members[k]) { free(fill); return -1; }
    }
    for (size_t i = 0; i < n; ++i) {
        const size_t k = g->of_case[i];
        g->members[k][fill[k]++] = i;
    }
    free(fill);
    return 0;
}

static mink_status run_one(const options *o, const mink_case *c, mink_cache *cache, answer *a)
{
    if (o->query == QUERY_CAST) {
        a->hit = case_run_cast(c, o->kernel, &a->c);
        return a->c.status;
    }
    if (o->query == QUERY_MANIFOLD) return case_run_manifold(c, o->kernel, o->margin, cache, &a->m);
    return case_run(c, o->kernel, o->query, cache, &a->r);
}

static int check_one(const options *o, const mink_case *c, const answer *a, char *why, size_t whylen)
{
    if (o->query == QUERY_CAST) return case_check_cast(c, a->hit, &a->c, why, whylen);
    if (o->query == QUERY_MANIFOLD) return case_check_manifold(c, o->margin, &a->m, why, whylen);
    return case_check(c, o->query, &a->r, why, whylen);
}

static void print_one(const options *o, const mink_case *c, const answer *a)
{
    if (o->query == QUERY_CAST) case_print_cast(stdout, c, a->hit, &a->c);
    else if (o->query == QUERY_MANIFOLD) case_print_manifold(stdout, c, &a->m);
    else case_print_result(stdout, c, o->query, &a->r);
}

/* One batch call over the cases idx[0..n) (pairs and scratch hold n). */
static void run_batch_call(const case_set *set, const options *o, const size_t *idx, size_t n, mink_cache **cache,
                           mink_pair *pairs, int *hits, mink_result *rs, struct mink_manifold *ms, answer *res)
{
    for (size_t i = 0; i < n; ++i) {
        const mink_case *c = &set->cases[idx[i]];
        pairs[i] = (mink_pair){&c->a, c->pa, &c->b, c->pb, cache ? cache[i] : NULL};
    }
    if (o->query == QUERY_MANIFOLD) {
        mink_manifold_batch(pairs, n, o->margin, ms);
        for (size_t i = 0; i < n; ++i) res[idx[i]].m = ms[i];
    } else if (o->query == CASE_QUERY_INTERSECT) {
        mink_intersect_batch(pairs, n, hits);
        for (size_t i = 0; i < n; ++i) { /* case_run's mapping: distance 1 apart, 0 overlapping */
            mink_result *r = &res[idx[i]].r;
            memset(r, 0, sizeof *r);
            r->status = hits[i] < 0 ? MINK_ERR_INVALID : MINK_OK;
            r->distance = hits[i] > 0 ? 0.0f : 1.0f;
        }
    } else {
        mink_penetration_batch(pairs, n, rs);
        for (size_t i = 0; i < n; ++i) res[idx[i]].r = rs[i];
    }
}

/* --batch: the file in one call; with --cache, round r takes the r-th case
 * of every group (one pair per cache in a call, each group in file order). */
static int run_batches(const case_set *set, const groups *g, const options *o, answer *res)
{
    const size_t cap = set->count ? set->count : 1;
    size_t *idx = calloc(cap, sizeof *idx);
    mink_cache **cache = calloc(cap, sizeof *cache);
    mink_cache *caches = calloc(g->count ? g->count : 1, sizeof(mink_cache));
    mink_pair *pairs = calloc(cap, sizeof *pairs);
    int *hits = calloc(cap, sizeof *hits);
    mink_result *rs = calloc(cap, sizeof *rs);
    struct mink_manifold *ms = calloc(cap, sizeof *ms);
    const int ok = idx && cache && caches && pairs && hits && rs && ms;
    if (ok && !o->cache) {
        for (size_t i = 0; i < set->count; ++i) idx[i] = i;
        run_batch_call(set, o, idx, set->count, NULL, pairs, hits, rs, ms, res);
    } else if (ok) {
        for (size_t r = 0;; ++r) {
            size_t n = 0;
            for (size_t k = 0; k < g->count; ++k)
                if (r < g->size[k]) idx[n] = g->members[k][r], cache[n++] = &caches[k];
            if (n == 0) break;
            run_batch_call(set, o, idx, n, cache, pairs, hits, rs, ms, res);
        }
    }
    free(idx), free(cache), free(caches), free(pairs), free(hits), free(rs), free(ms);
    return ok ? 0 : -1;
}

/* Runs every case in file order, each group with its own cache when asked. */
static int run_all(const case_set *set, const groups *g, const options *o, answer *res)
{
    if (o->batch) return run_batches(set, g, o, res);
    mink_cache *caches = calloc(g->count ? g->count : 1, sizeof(mink_cache));
    if (!caches) return -1;
    for (size_t i = 0; i < set->count; ++i)
        run_one(o, &set->cases[i], o->cache ? &caches[g->of_case[i]] : NULL, &res[i]);
    free(caches);
    return 0;
}

static int cmd_run(const case_set *set, const groups *g, const options *o)
{
    answer *res = calloc(set->count ? set->count : 1, sizeof(answer));
    if (!res || run_all(set, g, o, res) != 0) { free(res); return -1; }
    for (size_t i = 0; i < set->count; ++i) print_one(o, &set->cases[i], &res[i]);
    free(res);
    return 0;
}

static int cmd_check(const case_set *set, const groups *g, const options *o, size_t *failed)
{
    answer *res = calloc(set->count ? set->count : 1, sizeof(answer));
    size_t *passed = calloc(g->count ? g->count : 1, sizeof(size_t));
    if (!res || !passed || run_all(set, g, o, res) != 0) { free(res); free(passed); return -1; }
    size_t npass = 0, nfail = 0;
    char why[512];
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case *c = &set->cases[i];
        if (check_one(o, c, &res[i], why, sizeof why)) {
            passed[g->of_case[i]]++;
            npass++;
            if (o->verbose) printf("%s ok\n", c->id);
        } else {
            nfail++;
            printf("FAIL %s: %s\n", c->id, why);
            if (o->verbose) {
                static const char *const kinds[4] = {"sep", "pen", "hit", "miss"};
                printf("  expected %s %.17g %.17g %.17g %.17g (L %.9g)\n  got      ", kinds[c->kind & 3], c->value,
                       c->normal[0], c->normal[1], c->normal[2], c->L);
                print_one(o, c, &res[i]);
            }
        }
    }
    for (size_t k = 0; k < g->count; ++k) printf("%s: %zu/%zu\n", g->name[k], passed[k], g->size[k]);
    printf("%zu passed, %zu failed\n", npass, nfail);
    free(res);
    free(passed);
    *failed = nfail;
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Keeps the optimizer from treating results as dead (they are not: the
 * calls are into another library, but this costs nothing). */
static volatile float time_sink;

static int cmd_time(const case_set *set, const groups *g, const options *o)
{
    double *samples = malloc((size_t)o->reps * sizeof(double));
    if (!samples) return -1;
    printf("# %s, kernel %s%s%s, query %s%s, median of %ld reps\n", o->file,
           o->kernel == CASE_KERNEL_REF ? "ref" : "simd", o->kernel == CASE_KERNEL_REF ? "" : " ",
           o->kernel == CASE_KERNEL_REF ? "" : mink_simd_backend(), query_name(o->query), o->cache ? ", cached" : "",
           o->reps);
    if (o->query == QUERY_MANIFOLD) printf("# margin %.9g\n", o->margin);
    printf("%-24s %8s %12s %10s\n", "group", "cases", "ns/query", "iters");
    double all_ns = 0.0;
    size_t all_n = 0;
    for (size_t k = 0; k < g->count; ++k) {
        const size_t *m = g->members[k];
        const size_t n = g->size[k];
        mink_cache cache;
        answer a;
        memset(&a, 0, sizeof a); /* the half the query does not write stays 0 */
        /* Warm-up pass, also the iteration counts. */
        double iters = 0.0;
        mink_cache_reset(&cache);
        for (size_t j = 0; j < n; ++j) {
            run_one(o, &set->cases[m[j]], o->cache ? &cache : NULL, &a);
            iters += o->query == QUERY_CAST ? a.c.iterations : a.r.iterations;
        }
        for (long rep = 0; rep < o->reps; ++rep) {
            float acc = 0.0f;
            mink_cache_reset(&cache);
            const double t0 = now_ns();
            for (size_t j = 0; j < n; ++j) {
                run_one(o, &set->cases[m[j]], o->cache ? &cache : NULL, &a);
                acc += a.r.distance + (float)a.m.count + a.c.t;
            }
            const double t1 = now_ns();
            time_sink = acc;
            samples[rep] = (t1 - t0) / (double)n;
        }
        qsort(samples, (size_t)o->reps, sizeof(double), cmp_double);
        const double med = o->reps % 2 ? samples[o->reps / 2]
                                       : 0.5 * (samples[o->reps / 2 - 1] + samples[o->reps / 2]);
        all_ns += med * (double)n;
        all_n += n;
        if (o->query == CASE_QUERY_INTERSECT || o->query == QUERY_MANIFOLD) /* no iteration counts */
            printf("%-24s %8zu %12.1f %10s\n", g->name[k], n, med, "-");
        else
            printf("%-24s %8zu %12.1f %10.2f\n", g->name[k], n, med, iters / (double)n);
    }
    if (all_n) printf("%-24s %8zu %12.1f %10s\n", "(all)", all_n, all_ns / (double)all_n, "");
    free(samples);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0) return rc;
    case_set set;
    char err[512];
    if (case_set_load(o.file, &set, err, sizeof err) != 0) {
        fprintf(stderr, "mink-cases: %s\n", err);
        return 2;
    }
    if (o.local) case_set_use_local_tolerance(&set);
    /* a cast file takes the cast query, and only it */
    size_t casts = 0;
    for (size_t i = 0; i < set.count; ++i) casts += set.cases[i].is_cast != 0;
    if (casts && !o.query_given) o.query = QUERY_CAST;
    if ((o.query == QUERY_CAST && casts != set.count) || (o.query != QUERY_CAST && casts)) {
        fprintf(stderr, "mink-cases: %s holds %zu cast line(s) of %zu: the cast query takes cast lines only\n",
                o.file, casts, set.count);
        case_set_free(&set);
        return 2;
    }
    groups g;
    if (groups_build(&set, &g) != 0) {
        fprintf(stderr, "mink-cases: out of memory\n");
        groups_free(&g);
        case_set_free(&set);
        return 2;
    }
    size_t failed = 0;
    if (strcmp(o.cmd, "run") == 0) rc = cmd_run(&set, &g, &o);
    else if (strcmp(o.cmd, "check") == 0) rc = cmd_check(&set, &g, &o, &failed);
    else rc = cmd_time(&set, &g, &o);
    groups_free(&g);
    case_set_free(&set);
    if (rc != 0) {
        fprintf(stderr, "mink-cases: out of memory\n");
        return 2;
    }
    return failed ? 1 : 0;
}
