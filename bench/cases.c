/* Query case files (format v1, tests/data/FORMAT.md): parser, tolerance
 * scale, support functions in double precision, the checkers (queries and
 * contact manifolds) and the results printers.
 *
 * The parser works on (text, len) without assuming a NUL terminator, and
 * every allocation it makes is bounded by the input size: a hull's point
 * count is checked against the tokens actually present on its line before
 * anything is allocated. No global mutable state: sets may be parsed and
 * checked on any number of threads. */
#define _POSIX_C_SOURCE 200809L

#include "cases.h"
#include "cases_internal.h"
#include "mink/mink_ref.h"
#include "hull.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ arena */

/* Everything a set owns besides its case array: a list of blocks freed
 * together (ids, hull point arrays, aligned hull memory). */
typedef struct case_arena {
    void **ptrs;
    size_t n, cap;
} case_arena;

/* Takes ownership of p; frees it and returns NULL when the list cannot grow. */
static void *arena_keep(case_arena *a, void *p)
{
    if (!p) return NULL;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        if (cap > SIZE_MAX / sizeof(void *)) { free(p); return NULL; }
        void **np = realloc(a->ptrs, cap * sizeof(void *));
        if (!np) { free(p); return NULL; }
        a->ptrs = np;
        a->cap = cap;
    }
    a->ptrs[a->n++] = p;
    return p;
}

static void *arena_alloc(case_arena *a, size_t bytes)
{
    return arena_keep(a, malloc(bytes ? bytes : 1));
}

/* aligned_alloc wants a size that is a multiple of the alignment. */
static void *arena_aligned(case_arena *a, size_t bytes)
{
    if (bytes > SIZE_MAX - MINK_HULL_ALIGN) return NULL;
    size_t size = (bytes + MINK_HULL_ALIGN - 1) / MINK_HULL_ALIGN * MINK_HULL_ALIGN;
    if (size == 0) size = MINK_HULL_ALIGN;
    return arena_keep(a, aligned_alloc(MINK_HULL_ALIGN, size));
}

static void arena_release(case_arena *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n; ++i) free(a->ptrs[i]);
    free(a->ptrs);
    a->ptrs = NULL;
    a->n = a->cap = 0;
}

/* ------------------------------------------------------------ small math */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }

/* Rotates v by q = (w, x, y, z), normalized when its norm allows; `inverse`
 * applies the conjugate (world -> local). */
void case_quat_rotate(const double q[4], int inverse, const double v[3], double out[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    const double n = sqrt(w * w + x * x + y * y + z * z);
    if (n > 0.0 && isfinite(n)) { w /= n; x /= n; y /= n; z /= n; }
    if (inverse) { x = -x; y = -y; z = -z; }
    /* v + w*t + u x t with t = 2 u x v, u = (x, y, z) */
    const double t[3] = {2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])};
    out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
    out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
    out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

static void to_world(const case_pose *q, const double local[3], double out[3])
{
    case_quat_rotate(q->q, 0, local, out);
    out[0] += q->p[0];
    out[1] += q->p[1];
    out[2] += q->p[2];
}

static double max_abs_coord(const double v[3])
{
    return fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
}

/* FORMAT.md's per-shape scale: largest |world coordinate| of a core point,
 * plus the radius. */
double case_shape_scale(const case_shape *s, const case_pose *q)
{
    double m = 0.0, w[3];
    switch (s->type) {
    case MINK_SHAPE_SPHERE: {
        const double o[3] = {0, 0, 0};
        to_world(q, o, w);
        m = max_abs_coord(w);
        break;
    }
    case MINK_SHAPE_CAPSULE:
        for (int k = -1; k <= 1; k += 2) {
            const double e[3] = {0, k * s->param[0], 0};
            to_world(q, e, w);
            m = fmax(m, max_abs_coord(w));
        }
        break;
    case MINK_SHAPE_BOX:
        for (int c = 0; c < 8; ++c) {
            const double e[3] = {(c & 1 ? 1 : -1) * s->param[0], (c & 2 ? 1 : -1) * s->param[1],
                                 (c & 4 ? 1 : -1) * s->param[2]};
            to_world(q, e, w);
            m = fmax(m, max_abs_coord(w));
        }
        break;
    case MINK_SHAPE_HULL:
        for (unsigned i = 0; i < s->n; ++i) {
            to_world(q, s->pts + 3 * (size_t)i, w);
            m = fmax(m, max_abs_coord(w));
        }
        break;
    default:
        break;
    }
    return m + s->radius;
}

/* The local rule's l of a shape: largest |local core coordinate| plus the radius. */
static double local_size(const case_shape *s)
{
    double m = 0.0;
    switch (s->type) {
    case MINK_SHAPE_CAPSULE: m = fabs(s->param[0]); break;
    case MINK_SHAPE_BOX: m = fmax(fabs(s->param[0]), fmax(fabs(s->param[1]), fabs(s->param[2]))); break;
    case MINK_SHAPE_HULL:
        for (size_t i = 0; i < 3 * (size_t)s->n; ++i) m = fmax(m, fabs(s->pts[i]));
        break;
    default: break;
    }
    return m + s->radius;
}

void case_set_use_local_tolerance(case_set *set)
{
    for (size_t i = 0; set && i < set->count; ++i) {
        mink_case *c = &set->cases[i];
        const double l = fmin(local_size(&c->sa), local_size(&c->sb));
        double M = fmax(case_shape_scale(&c->sa, &c->qa), case_shape_scale(&c->sb, &c->qb));
        if (c->is_cast) M = fmax(M, fmax(case_shape_scale(&c->sa, &c->qa1), case_shape_scale(&c->sb, &c->qb1)));
        c->tol = fmax(1e-4 * l, 16.0 * 0x1p-24 * M);
        c->near = fmax(1e-3 * l, 2.0 * c->tol);
    }
}

/* Largest distance from the pose origin to a point of the shape. */
static double shape_bound(const case_shape *s)
{
    double m = 0.0;
    switch (s->type) {
    case MINK_SHAPE_CAPSULE: m = fabs(s->param[0]); break;
    case MINK_SHAPE_BOX: m = norm3(s->param); break;
    case MINK_SHAPE_HULL:
        for (unsigned i = 0; i < s->n; ++i) m = fmax(m, norm3(s->pts + 3 * (size_t)i));
        break;
    default: break;
    }
    return m + s->radius;
}

double case_support_h(const case_shape *s, const case_pose *q, const double d[3])
{
    double dl[3], core = 0.0;
    case_quat_rotate(q->q, 1, d, dl); /* d . (R x + p) = (R^T d) . x + d . p */
    switch (s->type) {
    case MINK_SHAPE_SPHERE: core = 0.0; break;
    case MINK_SHAPE_CAPSULE: core = s->param[0] * fabs(dl[1]); break;
    case MINK_SHAPE_BOX:
        core = s->param[0] * fabs(dl[0]) + s->param[1] * fabs(dl[1]) + s->param[2] * fabs(dl[2]);
        break;
    case MINK_SHAPE_HULL:
        if (s->n == 0 || !s->pts) return -HUGE_VAL;
        core = -HUGE_VAL;
        for (unsigned i = 0; i < s->n; ++i) core = fmax(core, dot3(dl, s->pts + 3 * (size_t)i));
        break;
    default: return NAN;
    }
    return core + dot3(d, q->p) + s->radius * norm3(d);
}

/* ------------------------------------------------------------ parser */

typedef struct token {
    const char *s;
    size_t n;
} token;

typedef struct parser {
    size_t line;          /* 1-based, for messages */
    token *tok;           /* tokens of the current line */
    size_t ntok, captok, cur;
    char *err;
    size_t errlen;
    float *fbuf;          /* hull coordinates as floats, reused */
    size_t fcap;
    case_arena *arena;
    mink_case *cases;
    size_t count, cap;
    size_t *lines;        /* line of each case, parallel to cases */
} parser;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* A token for a message: at most 40 bytes, non-printable bytes as '?'. */
static void token_text(const token *t, char *buf, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n && k + 4 < n && i < 40; ++i) {
        const unsigned char ch = (unsigned char)t->s[i];
        buf[k++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    if (t->n > 40 && k + 4 < n) { buf[k++] = '.'; buf[k++] = '.'; buf[k++] = '.'; }
    buf[k] = '\0';
}

static void vwrite_err(char *err, size_t errlen, const char *prefix, const char *fmt, va_list ap)
{
    if (!err || errlen == 0) return;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    snprintf(err, errlen, "%s%s", prefix, msg);
}

static int fail(parser *p, const char *fmt, ...) CASES_PRINTF(2, 3);
static int fail(parser *p, const char *fmt, ...)
{
    char prefix[40];
    snprintf(prefix, sizeof prefix, "line %zu: ", p->line);
    va_list ap;
    va_start(ap, fmt);
    vwrite_err(p->err, p->errlen, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

static int push_token(parser *p, const char *s, size_t n)
{
    if (p->ntok == p->captok) {
        size_t cap = p->captok ? p->captok * 2 : 256;
        if (cap > SIZE_MAX / sizeof(token)) return fail(p, "out of memory");
        token *nt = realloc(p->tok, cap * sizeof(token));
        if (!nt) return fail(p, "out of memory");
        p->tok = nt;
        p->captok = cap;
    }
    p->tok[p->ntok].s = s;
    p->tok[p->ntok].n = n;
    p->ntok++;
    return 0;
}

/* Splits s[0..n) (one line, comment already cut) into tokens. */
static int tokenize(parser *p, const char *s, size_t n)
{
    p->ntok = 0;
    p->cur = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && is_space(s[i])) ++i;
        const size_t start = i;
        while (i < n && !is_space(s[i])) ++i;
        if (i > start && push_token(p, s + start, i - start) != 0) return -1;
    }
    return 0;
}

static int next_token(parser *p, const char *what, token *t)
{
    if (p->cur >= p->ntok) return fail(p, "missing token: expected %s", what);
    *t = p->tok[p->cur++];
    return 0;
}

static int token_is(const token *t, const char *word)
{
    const size_t n = strlen(word);
    return t->n == n && memcmp(t->s, word, n) == 0;
}

/* strtod on a bounded, NUL-terminated copy; the whole token must be used. */
static int parse_number(parser *p, const char *what, double *out)
{
    token t = {NULL, 0};
    if (next_token(p, what, &t) != 0) return -1;
    char buf[128], shown[64];
    if (t.n >= sizeof buf) {
        token_text(&t, shown, sizeof shown);
        return fail(p, "bad number for %s: '%s' (too long)", what, shown);
    }
    memcpy(buf, t.s, t.n);
    buf[t.n] = '\0';
    char *end = NULL;
    errno = 0;
    const double v = strtod(buf, &end);
    if (end != buf + t.n || t.n == 0) {
        token_text(&t, shown, sizeof shown);
        return fail(p, "bad number for %s: '%s'", what, shown);
    }
    *out = v;
    return 0;
}

static int parse_finite(parser *p, const char *what, double *out)
{
    if (parse_number(p, what, out) != 0) return -1;
    if (!isfinite(*out)) return fail(p, "expected %s is not finite", what);
    return 0;
}

/* Out-of-range doubles become infinities explicitly (the shape constructors
 * then reject them) rather than through an out-of-range conversion. */
static float to_float(double v)
{
    if (v > FLT_MAX) return INFINITY;
    if (v < -FLT_MAX) return -INFINITY;
    return (float)v;
}

/* A point count (hull or patch): an integer 1..CASE_MAX_HULL_POINTS. */
static int parse_count(parser *p, const char *what, unsigned *out)
{
    token t = {NULL, 0};
    char shown[64], name[48];
    snprintf(name, sizeof name, "%s point count", what);
    if (next_token(p, name, &t) != 0) return -1;
    unsigned long long v = 0;
    for (size_t i = 0; i < t.n && v <= CASE_MAX_HULL_POINTS; ++i) {
        if (t.s[i] < '0' || t.s[i] > '9') { v = 0; break; }
        v = v * 10u + (unsigned)(t.s[i] - '0');
    }
    if (v == 0 || v > CASE_MAX_HULL_POINTS) {
        token_text(&t, shown, sizeof shown);
        return fail(p, "bad %s '%s' (want an integer 1..%u)", name, shown, CASE_MAX_HULL_POINTS);
    }
    *out = (unsigned)v;
    return 0;
}

/* n points (3n numbers) into set-owned memory. The line must hold them
 * before anything is allocated: allocations stay bounded by the input. */
static double *parse_points(parser *p, const char *what, unsigned n, int finite)
{
    const size_t ncoord = 3 * (size_t)n;
    if (p->ntok - p->cur < ncoord) {
        fail(p, "%s of %u points needs %zu coordinates, the line has %zu tokens left", what, n, ncoord,
             p->ntok - p->cur);
        return NULL;
    }
    double *pts = arena_alloc(p->arena, ncoord * sizeof(double));
    if (!pts) {
        fail(p, "out of memory");
        return NULL;
    }
    char name[64];
    for (size_t i = 0; i < ncoord; ++i) {
        snprintf(name, sizeof name, "%s coordinate %zu", what, i + 1);
        if ((finite ? parse_finite(p, name, &pts[i]) : parse_number(p, name, &pts[i])) != 0) return NULL;
    }
    return pts;
}

static int parse_hull(parser *p, const char *which, case_shape *cs, mink_shape *ms)
{
    char what[48];
    unsigned n = 0;
    if (parse_count(p, "hull", &n) != 0) return -1;
    snprintf(what, sizeof what, "shape %s hull", which);
    /* non-finite coordinates are the shape constructor's to reject */
    double *pts = parse_points(p, what, n, 0);
    if (!pts) return -1;
    const size_t ncoord = 3 * (size_t)n;
    if (ncoord > p->fcap) {
        float *nf = realloc(p->fbuf, ncoord * sizeof(float));
        if (!nf) return fail(p, "out of memory");
        p->fbuf = nf;
        p->fcap = ncoord;
    }
    for (size_t i = 0; i < ncoord; ++i) p->fbuf[i] = to_float(pts[i]);
    cs->n = n;
    cs->pts = pts;
    const size_t bytes = mink_hull_bytes((uint32_t)n);
    void *mem = bytes ? arena_aligned(p->arena, bytes) : NULL;
    if (bytes && !mem) return fail(p, "out of memory");
    /* A rejected hull is kept as an invalid shape: its queries answer
     * MINK_ERR_INVALID, which is the checker's business, not the parser's. */
    if (mem) (void)mink_hull_init(ms, mem, bytes, p->fbuf, (uint32_t)n, to_float(cs->radius));
    return 0;
}

static int parse_shape(parser *p, const char *which, case_shape *cs, mink_shape *ms)
{
    token t = {NULL, 0};
    char what[48], shown[64];
    snprintf(what, sizeof what, "shape %s", which);
    if (next_token(p, what, &t) != 0) return -1;
    memset(cs, 0, sizeof *cs);
    memset(ms, 0, sizeof *ms);
    ms->type = MINK_SHAPE_INVALID;
    snprintf(what, sizeof what, "shape %s radius", which);
    if (token_is(&t, "sphere")) {
        cs->type = MINK_SHAPE_SPHERE;
        if (parse_number(p, what, &cs->radius) != 0) return -1;
        *ms = mink_sphere(to_float(cs->radius));
    } else if (token_is(&t, "capsule")) {
        cs->type = MINK_SHAPE_CAPSULE;
        if (parse_number(p, what, &cs->radius) != 0) return -1;
        snprintf(what, sizeof what, "shape %s capsule half height", which);
        if (parse_number(p, what, &cs->param[0]) != 0) return -1;
        *ms = mink_capsule(to_float(cs->radius), to_float(cs->param[0]));
    } else if (token_is(&t, "box")) {
        cs->type = MINK_SHAPE_BOX;
        if (parse_number(p, what, &cs->radius) != 0) return -1;
        for (int k = 0; k < 3; ++k) {
            snprintf(what, sizeof what, "shape %s box h%c", which, "xyz"[k]);
            if (parse_number(p, what, &cs->param[k]) != 0) return -1;
        }
        /* The file says `box r hx hy hz`; the constructor takes (hx, hy, hz, r). */
        *ms = mink_box(to_float(cs->param[0]), to_float(cs->param[1]), to_float(cs->param[2]),
                       to_float(cs->radius));
    } else if (token_is(&t, "hull")) {
        cs->type = MINK_SHAPE_HULL;
        if (parse_number(p, what, &cs->radius) != 0) return -1;
        return parse_hull(p, which, cs, ms);
    } else {
        token_text(&t, shown, sizeof shown);
        return fail(p, "unknown shape %s type '%s' (want sphere, capsule, box or hull)", which, shown);
    }
    return 0;
}

static int parse_pose(parser *p, const char *which, case_pose *cp, mink_pose *mp)
{
    static const char *const names[7] = {"px", "py", "pz", "qw", "qx", "qy", "qz"};
    double v[7];
    char what[48];
    for (int k = 0; k < 7; ++k) {
        snprintf(what, sizeof what, "pose %s %s", which, names[k]);
        if (parse_number(p, what, &v[k]) != 0) return -1;
    }
    for (int k = 0; k < 3; ++k) cp->p[k] = v[k];
    for (int k = 0; k < 4; ++k) cp->q[k] = v[3 + k]; /* w x y z, as in the file */
    mp->p.x = to_float(v[0]);
    mp->p.y = to_float(v[1]);
    mp->p.z = to_float(v[2]);
    mp->q.w = to_float(v[3]); /* the struct is x, y, z, w */
    mp->q.x = to_float(v[4]);
    mp->q.y = to_float(v[5]);
    mp->q.z = to_float(v[6]);
    return 0;
}

/* An expected normal: unit, or 0 0 0 (not unique). */
static int parse_normal(parser *p, mink_case *c)
{
    static const char *const names[3] = {"normal nx", "normal ny", "normal nz"};
    for (int k = 0; k < 3; ++k)
        if (parse_finite(p, names[k], &c->normal[k]) != 0) return -1;
    const double len = norm3(c->normal);
    if (len != 0.0) {
        /* Files print normals to round-trip precision; accept hand-written
         * ones to 1e-3 and make them exactly unit. */
        if (fabs(len - 1.0) > 1e-3) return fail(p, "expected normal is not unit (|n| = %.9g) nor 0 0 0", len);
        for (int k = 0; k < 3; ++k) c->normal[k] /= len;
    }
    return 0;
}

static int parse_expect(parser *p, mink_case *c)
{
    token t = {NULL, 0};
    char shown[64];
    if (next_token(p, "expectation (sep or pen)", &t) != 0) return -1;
    if (token_is(&t, "sep")) c->kind = CASE_SEP;
    else if (token_is(&t, "pen")) c->kind = CASE_PEN;
    else {
        token_text(&t, shown, sizeof shown);
        return fail(p, "unknown expectation '%s' (want sep or pen)", shown);
    }
    if (parse_finite(p, c->kind == CASE_SEP ? "distance" : "depth", &c->value) != 0)
        return -1;
    if (c->value < 0.0)
        return fail(p, "expected %s %.17g is negative", c->kind == CASE_SEP ? "distance" : "depth", c->value);
    return parse_normal(p, c);
}

/* The optional contact patch after the expectation (FORMAT.md, "Manifolds"). */
static int parse_patch(parser *p, mink_case *c)
{
    if (p->cur >= p->ntok || !token_is(&p->tok[p->cur], "patch")) return 0;
    p->cur++;
    unsigned k = 0;
    if (parse_count(p, "patch", &k) != 0) return -1;
    c->patch = parse_points(p, "patch", k, 1);
    if (!c->patch) return -1;
    c->patch_count = k;
    return 0;
}

static int is_shape_word(const token *t)
{
    return token_is(t, "sphere") || token_is(t, "capsule") || token_is(t, "box") || token_is(t, "hull");
}

static int parse_trailing(parser *p, const char *after)
{
    if (p->cur >= p->ntok) return 0;
    char shown[64];
    token_text(&p->tok[p->cur], shown, sizeof shown);
    return fail(p, "%zu trailing token(s) after the %s, first '%s'", p->ntok - p->cur, after, shown);
}

/* The rest of a cast line, after shape A and its first pose:
 * <poseA1> <shapeB> <poseB0> <poseB1> <target> hit <t> <n> | miss <dmin>. */
static int parse_cast_line(parser *p, mink_case *c)
{
    token t = {NULL, 0};
    char shown[64];
    if (parse_pose(p, "A at t = 1", &c->qa1, &c->pa1) != 0) return -1;
    if (parse_shape(p, "B", &c->sb, &c->b) != 0) return -1;
    if (parse_pose(p, "B at t = 0", &c->qb, &c->pb) != 0) return -1;
    if (parse_pose(p, "B at t = 1", &c->qb1, &c->pb1) != 0) return -1;
    if (parse_finite(p, "target", &c->target) != 0) return -1;
    if (c->target < 0.0) return fail(p, "cast target %.17g is negative", c->target);
    if (next_token(p, "cast expectation (hit or miss)", &t) != 0) return -1;
    if (token_is(&t, "hit")) {
        c->kind = CASE_HIT;
        if (parse_finite(p, "hit time t", &c->value) != 0) return -1;
        if (!(c->value >= 0.0 && c->value <= 1.0)) return fail(p, "hit time %.17g is outside [0, 1]", c->value);
        if (parse_normal(p, c) != 0) return -1;
    } else if (token_is(&t, "miss")) {
        c->kind = CASE_MISS;
        if (parse_finite(p, "miss dmin", &c->value) != 0) return -1;
    } else {
        token_text(&t, shown, sizeof shown);
        return fail(p, "unknown cast expectation '%s' (want hit or miss)", shown);
    }
    if (parse_trailing(p, "cast expectation") != 0) return -1;
    c->L = fmax(fmax(1.0, fmax(case_shape_scale(&c->sa, &c->qa), case_shape_scale(&c->sb, &c->qb))),
                fmax(case_shape_scale(&c->sa, &c->qa1), case_shape_scale(&c->sb, &c->qb1)));
    c->tol = 1e-4 * c->L;
    c->near = 1e-3 * c->L;
    p->lines[p->count] = p->line;
    p->count++;
    return 0;
}

static int parse_line(parser *p)
{
    token id = {NULL, 0};
    char shown[64];
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        if (cap > SIZE_MAX / sizeof(mink_case)) return fail(p, "out of memory");
        mink_case *nc = realloc(p->cases, cap * sizeof(mink_case));
        if (!nc) return fail(p, "out of memory");
        p->cases = nc;
        size_t *nl = realloc(p->lines, cap * sizeof(size_t));
        if (!nl) return fail(p, "out of memory");
        p->lines = nl;
        p->cap = cap;
    }
    mink_case *c = &p->cases[p->count];
    memset(c, 0, sizeof *c);
    if (next_token(p, "id", &id) != 0) return -1;
    if (memchr(id.s, '\0', id.n)) {
        token_text(&id, shown, sizeof shown);
        return fail(p, "id '%s' contains a NUL byte", shown);
    }
    char *ids = arena_alloc(p->arena, id.n + 1);
    if (!ids) return fail(p, "out of memory");
    memcpy(ids, id.s, id.n);
    ids[id.n] = '\0';
    c->id = ids;
    if (parse_shape(p, "A", &c->sa, &c->a) != 0) return -1;
    if (parse_pose(p, "A", &c->qa, &c->pa) != 0) return -1;
    /* a cast line has a second pose where a query line has shape B */
    c->is_cast = p->cur < p->ntok && !is_shape_word(&p->tok[p->cur]);
    if (c->is_cast) return parse_cast_line(p, c);
    if (parse_shape(p, "B", &c->sb, &c->b) != 0) return -1;
    if (parse_pose(p, "B", &c->qb, &c->pb) != 0) return -1;
    if (parse_expect(p, c) != 0 || parse_patch(p, c) != 0) return -1;
    if (p->cur < p->ntok) {
        token_text(&p->tok[p->cur], shown, sizeof shown);
        return fail(p, "%zu trailing token(s) after the %s, first '%s'", p->ntok - p->cur,
                    c->patch ? "patch" : "expectation", shown);
    }
    c->L = fmax(1.0, fmax(case_shape_scale(&c->sa, &c->qa), case_shape_scale(&c->sb, &c->qb)));
    c->tol = 1e-4 * c->L;
    c->near = 1e-3 * c->L;
    p->lines[p->count] = p->line;
    p->count++;
    return 0;
}

/* FNV-1a */
static uint64_t hash_id(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Ids are unique in a file (FORMAT.md): an open-addressing set over them. */
static int check_unique(parser *p)
{
    if (p->count < 2) return 0;
    size_t size = 16;
    while (size < 2 * p->count) {
        if (size > SIZE_MAX / 4 / sizeof(size_t)) return fail(p, "out of memory");
        size *= 2;
    }
    size_t *slot = malloc(size * sizeof(size_t));
    if (!slot) return fail(p, "out of memory");
    for (size_t i = 0; i < size; ++i) slot[i] = SIZE_MAX;
    int rc = 0;
    for (size_t i = 0; i < p->count && rc == 0; ++i) {
        size_t h = (size_t)hash_id(p->cases[i].id) & (size - 1);
        while (slot[h] != SIZE_MAX) {
            const size_t j = slot[h];
            if (strcmp(p->cases[j].id, p->cases[i].id) == 0) {
                p->line = p->lines[i];
                const token t = {p->cases[i].id, strlen(p->cases[i].id)};
                char shown[64];
                token_text(&t, shown, sizeof shown);
                rc = fail(p, "duplicate id '%s' (first on line %zu)", shown, p->lines[j]);
                break;
            }
            h = (h + 1) & (size - 1);
        }
        if (rc == 0) slot[h] = i;
    }
    free(slot);
    return rc;
}

int case_set_parse(const char *text, size_t len, case_set *out, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    parser p;
    memset(&p, 0, sizeof p);
    p.err = err;
    p.errlen = errlen;
    p.arena = calloc(1, sizeof(case_arena));
    if (!p.arena) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!text) len = 0;
    int rc = 0;
    size_t pos = 0;
    while (pos < len && rc == 0) {
        p.line++;
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        const char *hash = memchr(s, '#', n);
        if (hash) n = (size_t)(hash - s);
        rc = tokenize(&p, s, n);
        if (rc == 0 && p.ntok > 0) rc = parse_line(&p);
    }
    if (rc == 0) rc = check_unique(&p);
    free(p.tok);
    free(p.fbuf);
    free(p.lines);
    if (rc != 0) {
        free(p.cases);
        arena_release(p.arena);
        free(p.arena);
        return -1;
    }
    out->cases = p.cases;
    out->count = p.count;
    out->arena = p.arena;
    return 0;
}

int case_set_load(const char *path, case_set *out, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (!path) {
        if (err && errlen) snprintf(err, errlen, "no file name");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* Read in chunks: works for pipes and files alike. */
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 1u << 16;
            char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) { bad = 1; break; }
            buf = nb;
            cap = ncap;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) bad = 2;
            break;
        }
    }
    fclose(f);
    if (bad) {
        free(buf);
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, bad == 1 ? "out of memory" : "read error");
        return -1;
    }
    char msg[320];
    const int rc = case_set_parse(buf, n, out, msg, sizeof msg);
    free(buf);
    if (rc != 0 && err && errlen) snprintf(err, errlen, "%s: %s", path, msg);
    return rc;
}

void case_set_free(case_set *set)
{
    if (!set) return;
    free(set->cases);
    arena_release(set->arena);
    free(set->arena);
    memset(set, 0, sizeof *set);
}

void case_group(const char *id, char *group, size_t n)
{
    if (!group || n == 0) return;
    if (!id) { group[0] = '\0'; return; }
    const char *cut = strrchr(id, '/');
    if (!cut) cut = strrchr(id, '.');
    size_t len = cut ? (size_t)(cut - id) : strlen(id);
    if (len >= n) len = n - 1;
    memcpy(group, id, len);
    group[len] = '\0';
}

/* ------------------------------------------------------------ running */

mink_status case_run(const mink_case *c, int kernel, int query, mink_cache *cache, mink_result *r)
{
    memset(r, 0, sizeof *r);
    const int ref = kernel == CASE_KERNEL_REF;
    switch (query) {
    case CASE_QUERY_INTERSECT: {
        const int hit = ref ? mink_ref_intersect(&c->a, &c->pa, &c->b, &c->pb, cache)
                            : mink_intersect(&c->a, &c->pa, &c->b, &c->pb, cache);
        if (hit < 0) r->status = MINK_ERR_INVALID;
        else r->distance = hit ? 0.0f : 1.0f;
        return r->status;
    }
    case CASE_QUERY_DISTANCE:
        return ref ? mink_ref_distance(&c->a, &c->pa, &c->b, &c->pb, cache, r)
                   : mink_distance(&c->a, &c->pa, &c->b, &c->pb, cache, r);
    case CASE_QUERY_PENETRATION:
        return ref ? mink_ref_penetration(&c->a, &c->pa, &c->b, &c->pb, cache, r)
                   : mink_penetration(&c->a, &c->pa, &c->b, &c->pb, cache, r);
    default:
        r->status = MINK_ERR_INVALID;
        return r->status;
    }
}

/* ------------------------------------------------------------ checker */

int case_reject(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwrite_err(why, whylen, "", fmt, ap);
    va_end(ap);
    return 0;
}

static const char *kind_name(int kind) { return kind == CASE_SEP ? "sep" : "pen"; }

/* Angle between two nonzero vectors, robust near 0 and pi. */
static double angle_between(const double a[3], const double b[3])
{
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(norm3(c), dot3(a, b));
}

static int result_finite(const mink_result *r)
{
    const float v[10] = {r->distance, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int i = 0; i < 10; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Slack of pA and pB against the supporting planes along unit u: 0 when pA
 * is A's support point along u and pB is B's along -u (closest points when
 * separated, deepest points when penetrating); negative when a point pokes
 * out of its shape. */
static void plane_slack(const mink_case *c, const double u[3], const double pa[3], const double pb[3],
                        double *sa, double *sb, double *ha, double *hb)
{
    const double mu[3] = {-u[0], -u[1], -u[2]};
    *ha = case_support_h(&c->sa, &c->qa, u);
    *hb = -case_support_h(&c->sb, &c->qb, mu);
    *sa = *ha - dot3(u, pa);
    *sb = dot3(u, pb) - *hb;
}

/* Witness consistency (FORMAT.md): pB - pA = distance * n, |n| = 1, and the
 * points on their shapes. With `planes`, "on its shape" is checked against
 * the supporting planes: neither point may stick out of its shape's plane
 * along the result's normal, and both must lie on the planes (within tol)
 * along the result's normal or along the expected one. The second choice
 * matters because a normal that is off by an accepted angle (up to 1e-2 rad
 * for pen) moves the support plane of a face first-order in the angle, while
 * the points are still the exact ones. Near-touching cases, whose normal
 * FORMAT.md leaves free, only check the gap and a bounding sphere. */
static int check_witness(const mink_case *c, const mink_result *r, double tol, int planes, char *why, size_t whylen)
{
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z};
    const double pa[3] = {r->point_a.x, r->point_a.y, r->point_a.z};
    const double pb[3] = {r->point_b.x, r->point_b.y, r->point_b.z};
    const double d = r->distance;
    const double len = norm3(n);
    if (fabs(len - 1.0) > 1e-3) return case_reject(why, whylen, "normal not unit: |n| = %.9g", len);
    const double gap[3] = {pb[0] - pa[0] - d * n[0], pb[1] - pa[1] - d * n[1], pb[2] - pa[2] - d * n[2]};
    if (norm3(gap) > tol)
        return case_reject(why, whylen, "witnesses: |pB - pA - distance*n| = %.3g > tol %.3g", norm3(gap), tol);
    const double ca[3] = {pa[0] - c->qa.p[0], pa[1] - c->qa.p[1], pa[2] - c->qa.p[2]};
    const double cb[3] = {pb[0] - c->qb.p[0], pb[1] - c->qb.p[1], pb[2] - c->qb.p[2]};
    if (norm3(ca) > shape_bound(&c->sa) + tol)
        return case_reject(why, whylen, "pA is %.9g from A's origin, A's bound is %.9g", norm3(ca), shape_bound(&c->sa));
    if (norm3(cb) > shape_bound(&c->sb) + tol)
        return case_reject(why, whylen, "pB is %.9g from B's origin, B's bound is %.9g", norm3(cb), shape_bound(&c->sb));
    if (!planes) return 1;
    const double u[3] = {n[0] / len, n[1] / len, n[2] / len};
    double sa, sb, ha, hb;
    plane_slack(c, u, pa, pb, &sa, &sb, &ha, &hb);
    if (sa < -tol)
        return case_reject(why, whylen, "pA outside A: n.pA = %.9g > h_A(n) = %.9g (tol %.3g)", dot3(u, pa), ha, tol);
    if (sb < -tol)
        return case_reject(why, whylen, "pB outside B: n.pB = %.9g < -h_B(-n) = %.9g (tol %.3g)", dot3(u, pb), hb, tol);
    if (sa <= tol && sb <= tol) return 1;
    const int has_expected = c->normal[0] != 0.0 || c->normal[1] != 0.0 || c->normal[2] != 0.0;
    if (has_expected) {
        double ea, eb, eha, ehb;
        plane_slack(c, c->normal, pa, pb, &ea, &eb, &eha, &ehb);
        if (fabs(ea) <= tol && fabs(eb) <= tol) return 1;
    }
    if (sa > tol)
        return case_reject(why, whylen, "pA not on A's support plane: n.pA = %.9g, h_A(n) = %.9g (tol %.3g)%s",
                      dot3(u, pa), ha, tol, has_expected ? ", nor along the expected normal" : "");
    return case_reject(why, whylen, "pB not on B's support plane: n.pB = %.9g, -h_B(-n) = %.9g (tol %.3g)%s",
                  dot3(u, pb), hb, tol, has_expected ? ", nor along the expected normal" : "");
}

/* The expected normal against the result's; a pen normal outside the limit
 * passes when the depth along it is within tol of the expected depth (near
 * ties, FORMAT.md). */
static int check_normal(const mink_case *c, const mink_result *r, double tol, char *why, size_t whylen)
{
    if (c->normal[0] == 0.0 && c->normal[1] == 0.0 && c->normal[2] == 0.0) return 1;
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z};
    const double len = norm3(n);
    if (!(len > 0.0)) return case_reject(why, whylen, "zero normal, expected %.9g %.9g %.9g", c->normal[0], c->normal[1], c->normal[2]);
    const double limit = c->kind == CASE_SEP ? 2e-3 : 1e-2;
    const double a = angle_between(n, c->normal);
    if (a <= limit) return 1;
    if (c->kind == CASE_PEN) {
        const double u[3] = {n[0] / len, n[1] / len, n[2] / len};
        const double mu[3] = {-u[0], -u[1], -u[2]};
        const double along = case_support_h(&c->sa, &c->qa, u) + case_support_h(&c->sb, &c->qb, mu);
        if (fabs(along - c->value) <= tol) return 1;
        return case_reject(why, whylen,
                      "normal %.9g %.9g %.9g is %.3g rad from expected %.9g %.9g %.9g (limit %.3g), "
                      "depth along it %.9g vs expected %.9g",
                      n[0], n[1], n[2], a, c->normal[0], c->normal[1], c->normal[2], limit, along, c->value);
    }
    return case_reject(why, whylen, "normal %.9g %.9g %.9g is %.3g rad from expected %.9g %.9g %.9g (limit %.3g)",
                  n[0], n[1], n[2], a, c->normal[0], c->normal[1], c->normal[2], limit);
}


/* ------------------------------------------------------------ exact gaps */

/* |x - nearest point of segment ab|, double. */
static double segment_gap(const double x[3], const double a[3], const double b[3])
{
    const double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
    const double ee = dot3(e, e);
    double t = ee > 0.0 ? dot3(w, e) / ee : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    const double d[3] = {w[0] - t * e[0], w[1] - t * e[1], w[2] - t * e[2]};
    return norm3(d);
}

/* A hull face's loop as double points, its unit normal (Newell's) and
 * offset n.p (the largest over its corners). 0 for a face of no area. */
static int hull_face_plane(const case_shape *s, const uint32_t *loop, uint32_t size, double n[3], double *d)
{
    n[0] = n[1] = n[2] = 0.0;
    for (uint32_t k = 0; k < size; ++k) {
        const double *p = s->pts + 3 * (size_t)loop[k], *q = s->pts + 3 * (size_t)loop[k + 1 < size ? k + 1 : 0];
        n[0] += (p[1] - q[1]) * (p[2] + q[2]);
        n[1] += (p[2] - q[2]) * (p[0] + q[0]);
        n[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    const double len = norm3(n);
    if (!(len > 0.0)) return 0;
    n[0] /= len, n[1] /= len, n[2] /= len;
    *d = -HUGE_VAL;
    for (uint32_t k = 0; k < size; ++k) *d = fmax(*d, dot3(n, s->pts + 3 * (size_t)loop[k]));
    return 1;
}

/* |x - nearest point of a planar convex loop| (x local), double: the
 * plane's distance over the polygon, else the nearest edge. */
static double polygon_gap(const case_shape *s, const uint32_t *loop, uint32_t size, const double n[3], double h,
                          const double x[3])
{
    int over = 1;
    double best = HUGE_VAL;
    for (uint32_t k = 0; k < size; ++k) {
        const double *p = s->pts + 3 * (size_t)loop[k], *q = s->pts + 3 * (size_t)loop[k + 1 < size ? k + 1 : 0];
        const double e[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, w[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
        const double m[3] = {e[1] * n[2] - e[2] * n[1], e[2] * n[0] - e[0] * n[2], e[0] * n[1] - e[1] * n[0]};
        if (dot3(m, w) > 0.0) over = 0; /* beyond this edge (loops run counter-clockwise about n) */
        best = fmin(best, segment_gap(x, p, q));
    }
    return over ? fabs(h) : best;
}

/* The signed distance of the world point x to a hull's core (local x):
 * inside, minus the depth below the nearest face; outside, the distance
 * to the nearest face it sees. From the shape's topology (its faces' point
 * loops) and the case's double points. -1 without topology. */
static int hull_core_gap(const case_shape *s, const mink_shape *ms, const double x[3], double *gap)
{
    const hull_topology *t = ms->topology;
    if (!t || t->point_count != s->n) return -1;
    if (t->kind == HULL_POINT || t->kind == HULL_SEGMENT) {
        const double *a = s->pts + 3 * (size_t)t->ends[0], *b = s->pts + 3 * (size_t)t->ends[1];
        *gap = segment_gap(x, a, b);
        return 0;
    }
    const uint32_t *first = hull_face_first(t), *vertex = hull_face_vertex(t);
    const uint32_t faces = t->kind == HULL_FLAT ? 1u : t->face_count;
    double inside = -HUGE_VAL, outside = HUGE_VAL;
    for (uint32_t f = 0; f < faces; ++f) {
        const uint32_t *loop = vertex + first[f], size = first[f + 1] - first[f];
        double n[3], d;
        if (!hull_face_plane(s, loop, size, n, &d)) continue;
        const double h = dot3(n, x) - d;
        inside = fmax(inside, h);
        if (h > 0.0 || t->kind == HULL_FLAT) outside = fmin(outside, polygon_gap(s, loop, size, n, h, x));
    }
    *gap = t->kind == HULL_FLAT || inside > 0.0 ? outside : inside;
    return isfinite(*gap) ? 0 : -1;
}

/* The exact signed distance of the world point x to a case's shape (minus
 * the depth inside), in double from the case as written: what the points
 * of a manifold are checked against (a float query of a point 400 m out
 * rounds by more than the local tolerance). -1 when it cannot be measured. */
static int case_exact_gap(const case_shape *s, const case_pose *q, const mink_shape *ms, mink_vec3 xw, double *gap)
{
    const double w[3] = {xw.x - q->p[0], xw.y - q->p[1], xw.z - q->p[2]};
    double x[3];
    case_quat_rotate(q->q, 1, w, x);
    double core;
    switch (s->type) {
    case MINK_SHAPE_SPHERE: core = norm3(x); break;
    case MINK_SHAPE_CAPSULE: {
        const double a[3] = {0.0, -s->param[0], 0.0}, b[3] = {0.0, s->param[0], 0.0};
        core = segment_gap(x, a, b);
        break;
    }
    case MINK_SHAPE_BOX: {
        double out2 = 0.0, in = -HUGE_VAL;
        for (int k = 0; k < 3; ++k) {
            const double e = fabs(x[k]) - s->param[k];
            out2 += e > 0.0 ? e * e : 0.0;
            in = fmax(in, e);
        }
        core = out2 > 0.0 ? sqrt(out2) : in;
        break;
    }
    case MINK_SHAPE_HULL:
        if (hull_core_gap(s, ms, x, &core) < 0) return -1;
        break;
    default: return -1;
    }
    *gap = core - s->radius;
    return isfinite(*gap) ? 0 : -1;
}

/* pA on A's surface and pB on B's, within tol (FORMAT.md: "pA on A and pB
 * on B"; a point on a face's plane beyond its edge is on the support plane
 * but not on the shape). strict: a point that cannot be measured fails. */
static int on_surfaces(const mink_case *c, const mink_result *r, double tol, int strict, char *why, size_t whylen)
{
    const mink_vec3 *pt[2] = {&r->point_a, &r->point_b};
    const case_shape *s[2] = {&c->sa, &c->sb};
    const case_pose *ps[2] = {&c->qa, &c->qb};
    const mink_shape *ms[2] = {&c->a, &c->b};
    for (int i = 0; i < 2; ++i) {
        double gap = 0.0;
        if (case_exact_gap(s[i], ps[i], ms[i], *pt[i], &gap) < 0) {
            if (!strict) continue;
            return case_reject(why, whylen, "p%c %.9g %.9g %.9g: not measurable", "AB"[i], pt[i]->x, pt[i]->y, pt[i]->z);
        }
        if (fabs(gap) > tol)
            return case_reject(why, whylen, "p%c %.9g %.9g %.9g is %.3g %s %c's surface (tol %.3g)", "AB"[i], pt[i]->x,
                          pt[i]->y, pt[i]->z, fabs(gap), gap > 0.0 ? "outside" : "inside", "AB"[i], tol);
    }
    return 1;
}

/* The witnesses of a distance or penetration answer: check_witness, then
 * on the shapes. */
static int check_witnesses(const mink_case *c, const mink_result *r, double tol, int planes, char *why, size_t whylen)
{
    return check_witness(c, r, tol, planes, why, whylen) && on_surfaces(c, r, tol, 0, why, whylen);
}

/* The reference's answer for the point x (a sphere of radius 0) against a
 * shape: mink_ref_distance gives its distance (0 inside), mink_ref_penetration
 * its signed distance (inside: minus the depth). -1 when x cannot be queried. */
int case_point_gap(ref_query query, const mink_shape *s, const mink_pose *ps, mink_vec3 x, double *gap)
{
    const mink_shape point = mink_sphere(0.0f);
    const mink_pose at = {x, {0.0f, 0.0f, 0.0f, 1.0f}};
    mink_result r;
    if (query(&point, &at, s, ps, NULL, &r) < 0) return -1;
    *gap = r.distance;
    return 0;
}

int case_common_point_gaps(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                           const mink_result *r, double gap[2])
{
    if (memcmp(&r->point_a, &r->point_b, sizeof r->point_a) != 0) return -1;
    if (case_point_gap(mink_ref_distance, a, pa, r->point_a, &gap[0]) < 0 ||
        case_point_gap(mink_ref_distance, b, pb, r->point_a, &gap[1]) < 0)
        return -2;
    return 0;
}

int case_check_common_point(const mink_case *c, const mink_result *r, double tol, char *why, size_t whylen)
{
    double gap[2];
    const int st = case_common_point_gaps(&c->a, &c->pa, &c->b, &c->pb, r, gap);
    if (st == -1) return case_reject(why, whylen, "overlapping, but point_a != point_b");
    if (st == -2)
        return case_reject(why, whylen, "common point %.9g %.9g %.9g: not measurable", r->point_a.x, r->point_a.y, r->point_a.z);
    if (gap[0] <= tol && gap[1] <= tol) return 1;
    return case_reject(why, whylen, "common point %.9g %.9g %.9g is %.3g from A and %.3g from B (tol %.3g)", r->point_a.x,
                  r->point_a.y, r->point_a.z, gap[0], gap[1], tol);
}

int case_check(const mink_case *c, int query, const mink_result *r, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!c || !r) return case_reject(why, whylen, "no case or no result");
    if (r->status < 0) return case_reject(why, whylen, "query failed with status %d", (int)r->status);
    if (!result_finite(r)) return case_reject(why, whylen, "non-finite result");
    const double tol = c->tol;
    const int near = c->value < c->near;
    const int got_sep = r->distance > 0.0f;
    const double want = c->kind == CASE_SEP ? c->value : -c->value; /* signed */
    const double got = r->distance;

    if (query == CASE_QUERY_INTERSECT) {
        if (near || got_sep == (c->kind == CASE_SEP)) return 1;
        return case_reject(why, whylen, "expected %s %.9g, got %s", kind_name(c->kind), c->value,
                      got_sep ? "separated" : "overlapping");
    }
    if (query == CASE_QUERY_DISTANCE) {
        if (near) {
            /* The distance query answers max(0, signed distance). */
            const double wd = want > 0.0 ? want : 0.0, gd = got > 0.0 ? got : 0.0;
            if (fabs(gd - wd) > tol)
                return case_reject(why, whylen, "near-touching: expected distance %.9g (%s %.9g), got %.9g (tol %.3g)",
                              wd, kind_name(c->kind), c->value, gd, tol);
            return got_sep ? check_witnesses(c, r, tol, 0, why, whylen) : case_check_common_point(c, r, tol, why, whylen);
        }
        if (c->kind == CASE_PEN) { /* no depth from this query: the kind and a common point */
            if (got_sep) return case_reject(why, whylen, "expected pen %.9g, got sep %.9g", c->value, got);
            return case_check_common_point(c, r, tol, why, whylen);
        }
        if (!got_sep) return case_reject(why, whylen, "expected sep %.9g, got overlapping (distance %.9g)", c->value, got);
        if (fabs(got - want) > tol)
            return case_reject(why, whylen, "distance: expected %.9g, got %.9g (|diff| %.3g > tol %.3g)", want, got,
                          fabs(got - want), tol);
        if (!check_normal(c, r, tol, why, whylen)) return 0;
        return check_witnesses(c, r, tol, 1, why, whylen);
    }
    if (query != CASE_QUERY_PENETRATION) return case_reject(why, whylen, "unknown query %d", query);
    if (near) {
        if (fabs(got - want) > tol)
            return case_reject(why, whylen, "near-touching: expected signed distance %.9g, got %.9g (|diff| %.3g > tol %.3g)",
                          want, got, fabs(got - want), tol);
        return check_witnesses(c, r, tol, 0, why, whylen);
    }
    if (got_sep != (c->kind == CASE_SEP))
        return case_reject(why, whylen, "expected %s %.9g, got %s %.9g", kind_name(c->kind), c->value,
                      got_sep ? "sep" : "pen", got_sep ? got : -got);
    if (fabs(got - want) > tol)
        return case_reject(why, whylen, "%s: expected %.9g, got %.9g (|diff| %.3g > tol %.3g)",
                      c->kind == CASE_SEP ? "distance" : "depth", c->value, fabs(got),
                      fabs(got - want), tol);
    if (!check_normal(c, r, tol, why, whylen)) return 0;
    return check_witnesses(c, r, tol, 1, why, whylen);
}

/* ------------------------------------------------------------ manifolds */

mink_status case_run_manifold(const mink_case *c, int kernel, float margin, mink_cache *cache, struct mink_manifold *m)
{
    memset(m, 0, sizeof *m);
    return kernel == CASE_KERNEL_REF ? mink_ref_manifold(&c->a, &c->pa, &c->b, &c->pb, margin, cache, m)
                                     : mink_manifold(&c->a, &c->pa, &c->b, &c->pb, margin, cache, m);
}

/* Coordinates in the plane normal to a unit n, in a basis (u, v) with
 * u x v = n: patches, counter-clockwise seen from B, get positive areas. */
typedef struct plane2 { double u[3], v[3]; } plane2;

static plane2 plane_normal_to(const double n[3])
{
    plane2 b;
    const double a[3] = {fabs(n[0]) < 0.6 ? 1.0 : 0.0, fabs(n[0]) < 0.6 ? 0.0 : 1.0, 0.0};
    const double an = dot3(a, n);
    double u[3] = {a[0] - an * n[0], a[1] - an * n[1], a[2] - an * n[2]};
    const double len = norm3(u);
    for (int k = 0; k < 3; ++k) b.u[k] = u[k] / len;
    b.v[0] = n[1] * b.u[2] - n[2] * b.u[1];
    b.v[1] = n[2] * b.u[0] - n[0] * b.u[2];
    b.v[2] = n[0] * b.u[1] - n[1] * b.u[0];
    return b;
}

static void to_plane(const plane2 *b, const double x[3], double out[2])
{
    out[0] = dot3(b->u, x);
    out[1] = dot3(b->v, x);
}

/* Twice the signed area of the triangle o, a, b. */
static double cross2(const double o[2], const double a[2], const double b[2])
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static double segment_dist2(const double a[2], const double b[2], const double x[2])
{
    const double d[2] = {b[0] - a[0], b[1] - a[1]}, e[2] = {x[0] - a[0], x[1] - a[1]};
    const double dd = d[0] * d[0] + d[1] * d[1];
    const double t = dd > 0.0 ? fmin(1.0, fmax(0.0, (d[0] * e[0] + d[1] * e[1]) / dd)) : 0.0;
    return hypot(e[0] - t * d[0], e[1] - t * d[1]);
}

/* The patch's vertex i in the plane. */
static void patch_vertex(const mink_case *c, const plane2 *b, unsigned i, double out[2])
{
    to_plane(b, c->patch + 3 * (size_t)(i % c->patch_count), out);
}

static double patch_area(const mink_case *c, const plane2 *b)
{
    double o[2], p[2], q[2], twice = 0.0;
    patch_vertex(c, b, 0, o);
    for (unsigned i = 1; i + 1 < c->patch_count; ++i) {
        patch_vertex(c, b, i, p);
        patch_vertex(c, b, i + 1, q);
        twice += cross2(o, p, q);
    }
    return 0.5 * twice;
}

/* Distance from x to the patch in the plane: 0 inside, else to its nearest
 * side (k = 1: to the point, k = 2: to the segment). `area` is signed, so
 * either winding works. */
static double patch_dist(const mink_case *c, const plane2 *b, double area, const double x[2])
{
    int inside = area != 0.0;
    double best = HUGE_VAL, p[2], q[2];
    for (unsigned i = 0; i < c->patch_count; ++i) {
        patch_vertex(c, b, i, p);
        patch_vertex(c, b, i + 1, q);
        best = fmin(best, segment_dist2(p, q, x));
        if (cross2(p, q, x) * area < 0.0) inside = 0;
    }
    return inside ? 0.0 : best;
}

/* Area of the convex hull of n <= 4 points: the largest of their triangles
 * and of the quadrilaterals they form in each order (a crossed or
 * non-convex one is smaller than the hull, the convex one is the hull). */
static double hull_area4(const double x[][2], unsigned n)
{
    double best = 0.0;
    for (unsigned i = 0; i < n; ++i)
        for (unsigned j = i + 1; j < n; ++j)
            for (unsigned k = j + 1; k < n; ++k) best = fmax(best, 0.5 * fabs(cross2(x[i], x[j], x[k])));
    static const unsigned order[3][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}};
    for (unsigned o = 0; n == 4 && o < 3; ++o) {
        const unsigned *q = order[o];
        best = fmax(best, 0.5 * fabs(cross2(x[q[0]], x[q[1]], x[q[2]]) + cross2(x[q[0]], x[q[2]], x[q[3]])));
    }
    return best;
}

/* FORMAT.md's patch rules, in the plane normal to the manifold's normal:
 * every point in the patch, and enough of it covered. */
static int check_patch(const mink_case *c, const struct mink_manifold *m, double tol, char *why, size_t whylen)
{
    const double n[3] = {m->normal.x, m->normal.y, m->normal.z}, len = norm3(n);
    const double un[3] = {n[0] / len, n[1] / len, n[2] / len};
    const plane2 b = plane_normal_to(un);
    const unsigned k = c->patch_count;
    const double area = patch_area(c, &b);
    double x[MINK_MANIFOLD_POINTS][2];
    for (unsigned i = 0; i < m->count; ++i) {
        const mink_vec3 *pa = &m->points[i].point_a;
        const double p[3] = {pa->x, pa->y, pa->z};
        to_plane(&b, p, x[i]);
        const double d = patch_dist(c, &b, area, x[i]);
        if (d > tol)
            return case_reject(why, whylen, "point %u: pA %.9g %.9g %.9g is %.3g outside the patch of %u points (tol %.3g)",
                          i, p[0], p[1], p[2], d, k, tol);
    }
    if (k == 2) {
        double p[2], q[2];
        patch_vertex(c, &b, 0, p);
        patch_vertex(c, &b, 1, q);
        const double d[2] = {q[0] - p[0], q[1] - p[1]}, dd = d[0] * d[0] + d[1] * d[1];
        if (!(dd > 0.0)) return 1;
        double lo = 1.0, hi = 0.0; /* the points' extent along the segment, as fractions of it */
        for (unsigned i = 0; i < m->count; ++i) {
            const double t = fmin(1.0, fmax(0.0, ((x[i][0] - p[0]) * d[0] + (x[i][1] - p[1]) * d[1]) / dd));
            lo = fmin(lo, t);
            hi = fmax(hi, t);
        }
        if (hi - lo < 0.95)
            return case_reject(why, whylen, "the points cover %.3g %% of the patch segment (length %.9g), want >= 95 %%",
                          100.0 * fmax(0.0, hi - lo), sqrt(dd));
        return 1;
    }
    if (k < 3) return 1;
    const double share = k <= 4 ? 0.95 : 0.5, got = hull_area4((const double(*)[2])x, m->count);
    if (got < share * fabs(area))
        return case_reject(why, whylen,
                      "the points' hull has area %.9g, %.3g %% of the patch's %.9g (%u points), want >= %.0f %%", got,
                      100.0 * got / fabs(area), fabs(area), k, 100.0 * share);
    return 1;
}

/* One contact point: finite; pa, pb on the surfaces of A and B (the
 * reference's signed distance); consistent with the normal (pb - pa =
 * separation * n, as case_check's witnesses); separation <= margin. */
static int check_contact(const mink_case *c, double margin, const mink_result *r, double tol, char *why, size_t whylen)
{
    if (!result_finite(r)) return case_reject(why, whylen, "non-finite point");
    if (!on_surfaces(c, r, tol, 1, why, whylen)) return 0;
    if (!check_witness(c, r, tol, 0, why, whylen)) return 0;
    if (r->distance > margin + tol)
        return case_reject(why, whylen, "separation %.9g > margin %.9g + tol %.3g", r->distance, margin, tol);
    return 1;
}

int case_check_manifold(const mink_case *c, double margin, const struct mink_manifold *m, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!c || !m) return case_reject(why, whylen, "no case or no manifold");
    if (m->status < 0) return case_reject(why, whylen, "manifold failed with status %d", (int)m->status);
    if (m->count > MINK_MANIFOLD_POINTS)
        return case_reject(why, whylen, "count %u > %d", (unsigned)m->count, MINK_MANIFOLD_POINTS);
    const double tol = c->tol, near = c->near;
    const double want = c->kind == CASE_SEP ? c->value : -c->value; /* signed */
    /* count 0 exactly when want > margin; within near of it either answer */
    if (m->count == 0 && want < margin - near)
        return case_reject(why, whylen,
                      "count 0, but the expected signed distance %.9g is below the margin %.9g by more than near %.3g",
                      want, margin, near);
    if (m->count == 0) return 1;
    if (want > margin + near)
        return case_reject(why, whylen,
                      "count %u, but the expected signed distance %.9g is above the margin %.9g by more than near %.3g",
                      (unsigned)m->count, want, margin, near);
    /* each point as a result with the shared normal: case_check's rules apply */
    mink_result r;
    memset(&r, 0, sizeof r);
    r.normal = m->normal;
    if (c->value >= near && !check_normal(c, &r, tol, why, whylen)) return 0;
    double smallest = HUGE_VAL;
    char sub[384];
    for (unsigned i = 0; i < m->count; ++i) {
        const mink_contact *p = &m->points[i];
        r.distance = p->separation;
        r.point_a = p->point_a;
        r.point_b = p->point_b;
        if (!check_contact(c, margin, &r, tol, sub, sizeof sub)) return case_reject(why, whylen, "point %u: %s", i, sub);
        for (unsigned j = 0; j < i; ++j)
            if (m->points[j].id == p->id)
                return case_reject(why, whylen, "points %u and %u share the key %u", j, i, (unsigned)p->id);
        smallest = fmin(smallest, p->separation);
    }
    if (fabs(smallest - want) > tol)
        return case_reject(why, whylen, "smallest separation %.9g, expected signed distance %.9g (|diff| %.3g > tol %.3g)",
                      smallest, want, fabs(smallest - want), tol);
    return c->patch_count ? check_patch(c, m, tol, why, whylen) : 1;
}

/* ------------------------------------------------------------ printing */

void case_print_result(FILE *f, const mink_case *c, int query, const mink_result *r)
{
    if (r->status < 0) {
        fprintf(f, "%s err %d\n", c->id, (int)r->status);
        return;
    }
    const int sep = r->distance > 0.0f;
    if (query == CASE_QUERY_INTERSECT) {
        /* Only the kind is known. */
        fprintf(f, "%s %s %.9g 0 0 0 0 0 0 0 0 0\n", c->id, sep ? "sep" : "pen", sep ? (double)r->distance : 0.0);
        return;
    }
    double v = sep ? r->distance : -r->distance;
    if (!sep && (query != CASE_QUERY_PENETRATION || v == 0.0)) v = 0.0; /* no "-0"; no depth from distance */
    fprintf(f, "%s %s %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", c->id, sep ? "sep" : "pen", v,
            r->normal.x, r->normal.y, r->normal.z, r->point_a.x, r->point_a.y, r->point_a.z,
            r->point_b.x, r->point_b.y, r->point_b.z);
}

void case_print_manifold(FILE *f, const mink_case *c, const struct mink_manifold *m)
{
    if (m->status < 0) {
        fprintf(f, "%s err %d\n", c->id, (int)m->status);
        return;
    }
    fprintf(f, "%s man %u %.9g %.9g %.9g", c->id, (unsigned)m->count, m->normal.x, m->normal.y, m->normal.z);
    /* a count past the array (a broken kernel) prints what the array holds */
    for (unsigned i = 0; i < m->count && i < MINK_MANIFOLD_POINTS; ++i) {
        const mink_contact *p = &m->points[i];
        fprintf(f, " %.9g %.9g %.9g %.9g %.9g %.9g %.9g %u", p->point_a.x, p->point_a.y, p->point_a.z, p->point_b.x,
                p->point_b.y, p->point_b.z, p->separation, (unsigned)p->id);
    }
    fputc('\n', f);
}
