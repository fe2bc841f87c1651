/* Cast case files (tests/data/FORMAT.md, "Casts"): running a case through
 * mink_cast or mink_toi, the motion in double precision, the checker and
 * the results printer. The parser is cases.c's (a cast line is told apart
 * by its second pose). */
#include "cases.h"
#include "cases_internal.h"
#include "mink/mink_ref.h"

#include <math.h>
#include <string.h>

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }

int case_cast_is_linear(const mink_case *c)
{
    return memcmp(c->qa.q, c->qa1.q, sizeof c->qa.q) == 0 && memcmp(c->qb.q, c->qb1.q, sizeof c->qb.q) == 0;
}

/* slerp(q0, q1, t) along the shortest arc, normalized (w x y z). */
static void slerp(const double q0[4], const double q1in[4], double t, double out[4])
{
    double a[4], b[4], n0 = 0.0, n1 = 0.0;
    for (int k = 0; k < 4; ++k) n0 += q0[k] * q0[k], n1 += q1in[k] * q1in[k];
    n0 = sqrt(n0), n1 = sqrt(n1);
    double d = 0.0;
    for (int k = 0; k < 4; ++k) a[k] = q0[k] / n0, b[k] = q1in[k] / n1, d += a[k] * b[k];
    if (d < 0.0) {
        for (int k = 0; k < 4; ++k) b[k] = -b[k];
        d = -d;
    }
    double wa = 1.0 - t, wb = t;
    const double theta = acos(fmin(1.0, d));
    if (theta > 1e-9) {
        wa = sin((1.0 - t) * theta) / sin(theta);
        wb = sin(t * theta) / sin(theta);
    }
    double n = 0.0;
    for (int k = 0; k < 4; ++k) out[k] = wa * a[k] + wb * b[k], n += out[k] * out[k];
    n = sqrt(n);
    for (int k = 0; k < 4; ++k) out[k] /= n;
}

static void pose_at(const case_pose *p0, const case_pose *p1, double t, case_pose *out)
{
    for (int k = 0; k < 3; ++k) out->p[k] = p0->p[k] + t * (p1->p[k] - p0->p[k]);
    if (memcmp(p0->q, p1->q, sizeof p0->q) == 0 || t == 0.0) memcpy(out->q, p0->q, sizeof out->q);
    else slerp(p0->q, p1->q, t, out->q);
}

void case_cast_poses(const mink_case *c, double t, case_pose *qa, case_pose *qb)
{
    pose_at(&c->qa, &c->qa1, t, qa);
    pose_at(&c->qb, &c->qb1, t, qb);
}

static mink_pose to_pose(const case_pose *q)
{
    mink_pose p;
    p.p.x = (float)q->p[0], p.p.y = (float)q->p[1], p.p.z = (float)q->p[2];
    p.q.w = (float)q->q[0], p.q.x = (float)q->q[1], p.q.y = (float)q->q[2], p.q.z = (float)q->q[3];
    return p;
}

case_cast_input case_cast_input_of(const mink_case *c)
{
    case_cast_input in;
    memset(&in, 0, sizeof in);
    in.a = &c->a;
    in.b = &c->b;
    in.pa = c->pa;
    in.pb = c->pb;
    in.da = (mink_vec3){(float)(c->qa1.p[0] - c->qa.p[0]), (float)(c->qa1.p[1] - c->qa.p[1]),
                        (float)(c->qa1.p[2] - c->qa.p[2])};
    in.db = (mink_vec3){(float)(c->qb1.p[0] - c->qb.p[0]), (float)(c->qb1.p[1] - c->qb.p[1]),
                        (float)(c->qb1.p[2] - c->qb.p[2])};
    in.sa = (mink_sweep){c->pa, c->pa1, {0.0f, 0.0f, 0.0f}};
    in.sb = (mink_sweep){c->pb, c->pb1, {0.0f, 0.0f, 0.0f}};
    in.target = (float)c->target;
    in.linear = case_cast_is_linear(c);
    return in;
}

int case_run_cast(const mink_case *c, int kernel, mink_cast_result *r)
{
    memset(r, 0, sizeof *r);
    const case_cast_input in = case_cast_input_of(c);
    if (kernel == CASE_KERNEL_REF)
        return in.linear ? mink_ref_cast(in.a, &in.pa, in.da, in.b, &in.pb, in.db, in.target, r)
                         : mink_ref_toi(in.a, &in.sa, in.b, &in.sb, in.target, r);
    return in.linear ? mink_cast(in.a, &in.pa, in.da, in.b, &in.pb, in.db, in.target, r)
                     : mink_toi(in.a, &in.sa, in.b, &in.sb, in.target, r);
}

/* B's core points (local): a hull's points, a box's corners, a capsule's ends, a sphere's centre. */
static unsigned core_points(const case_shape *s, double out[][3], unsigned cap)
{
    unsigned n = 0;
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        for (int k = -1; k <= 1 && n < cap; k += 2, ++n) out[n][0] = 0.0, out[n][1] = k * s->param[0], out[n][2] = 0.0;
        break;
    case MINK_SHAPE_BOX:
        for (int k = 0; k < 8 && n < cap; ++k, ++n)
            for (int j = 0; j < 3; ++j) out[n][j] = (k >> j & 1 ? 1.0 : -1.0) * s->param[j];
        break;
    case MINK_SHAPE_HULL:
        for (unsigned i = 0; i < s->n && n < cap; ++i, ++n) memcpy(out[n], s->pts + 3 * (size_t)i, sizeof out[n]);
        break;
    default:
        out[0][0] = out[0][1] = out[0][2] = 0.0;
        n = 1;
        break;
    }
    return n;
}

/* x (B local) in A's frame at time t. */
static void in_a_frame(const mink_case *c, double t, const double x[3], double out[3])
{
    case_pose qa, qb;
    case_cast_poses(c, t, &qa, &qb);
    double w[3], d[3];
    case_quat_rotate(qb.q, 0, x, w);
    for (int k = 0; k < 3; ++k) d[k] = w[k] + qb.p[k] - qa.p[k];
    case_quat_rotate(qa.q, 1, d, out);
}

double case_cast_travel(const mink_case *c)
{
    enum { STEPS = 256, MAX_POINTS = 1024 };
    static _Thread_local double pts[MAX_POINTS][3];
    const unsigned n = core_points(&c->sb, pts, MAX_POINTS);
    double best = 0.0;
    for (unsigned i = 0; i < n; ++i) {
        double prev[3], cur[3], len = 0.0;
        in_a_frame(c, 0.0, pts[i], prev);
        for (int s = 1; s <= STEPS; ++s) {
            in_a_frame(c, (double)s / STEPS, pts[i], cur);
            const double d[3] = {cur[0] - prev[0], cur[1] - prev[1], cur[2] - prev[2]};
            len += norm3(d);
            memcpy(prev, cur, sizeof prev);
        }
        best = fmax(best, len);
    }
    return best;
}

/* The reference's signed distance of the pair at time t (for grazes). */
static double signed_distance_at(const mink_case *c, double t)
{
    case_pose qa, qb;
    case_cast_poses(c, t, &qa, &qb);
    const mink_pose pa = to_pose(&qa), pb = to_pose(&qb);
    mink_result r;
    if (mink_ref_penetration(&c->a, &pa, &c->b, &pb, NULL, &r) < 0) return NAN;
    return r.distance;
}

/* The least signed distance over the step: samples, then golden-section
 * search around the least one. */
static double least_distance(const mink_case *c)
{
    enum { SAMPLES = 400 };
    int best = 0;
    double dbest = signed_distance_at(c, 0.0);
    for (int i = 1; i <= SAMPLES; ++i) {
        const double d = signed_distance_at(c, (double)i / SAMPLES);
        if (d < dbest) dbest = d, best = i;
    }
    double lo = fmax(0.0, (best - 1.0) / SAMPLES), hi = fmin(1.0, (best + 1.0) / SAMPLES);
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double f1 = signed_distance_at(c, x1), f2 = signed_distance_at(c, x2);
    for (int k = 0; k < 40; ++k) {
        if (f1 < f2) hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = signed_distance_at(c, x1);
        else lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = signed_distance_at(c, x2);
    }
    return fmin(dbest, fmin(f1, f2));
}

/* The answer at its t: witnesses on the surfaces (or, overlapping, inside
 * both shapes), |pB - pA| = target (at most target for a pair that starts
 * within it), pB - pA along n, and n the contact normal then: the expected
 * one, or one whose support planes hold the witnesses (the exact normal at
 * that t, to the tolerance). */
static int check_at_t(const mink_case *c, const mink_cast_result *r, int timed, double tol, char *why, size_t whylen)
{
    case_pose qa, qb;
    case_cast_poses(c, r->t, &qa, &qb);
    const mink_pose pa = to_pose(&qa), pb = to_pose(&qb);
    const double n[3] = {r->normal.x, r->normal.y, r->normal.z};
    const double xa[3] = {r->point_a.x, r->point_a.y, r->point_a.z};
    const double xb[3] = {r->point_b.x, r->point_b.y, r->point_b.z};
    const double len = norm3(n);
    if (fabs(len - 1.0) > 1e-3) return case_reject(why, whylen, "normal not unit: |n| = %.9g", len);
    const double u[3] = {n[0] / len, n[1] / len, n[2] / len};
    const double diff[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    const double d = dot3(diff, u);
    const double off[3] = {diff[0] - d * u[0], diff[1] - d * u[1], diff[2] - d * u[2]};
    if (norm3(off) > tol) return case_reject(why, whylen, "pB - pA is %.3g off the normal (tol %.3g)", norm3(off), tol);
    const int starts_within = c->kind == CASE_HIT && c->value == 0.0;
    const double near = c->near;
    if (d < 0.0 && starts_within) {
        double g[4];
        if (case_point_gap(mink_ref_distance, &c->a, &pa, r->point_a, &g[0]) < 0 ||
            case_point_gap(mink_ref_distance, &c->b, &pb, r->point_a, &g[1]) < 0 ||
            case_point_gap(mink_ref_distance, &c->a, &pa, r->point_b, &g[2]) < 0 ||
            case_point_gap(mink_ref_distance, &c->b, &pb, r->point_b, &g[3]) < 0)
            return case_reject(why, whylen, "witnesses not measurable");
        for (int k = 0; k < 4; ++k)
            if (g[k] > tol)
                return case_reject(why, whylen, "overlapping at t = 0: %s is %.3g outside %s (tol %.3g)",
                                   k < 2 ? "pA" : "pB", g[k], k % 2 ? "B" : "A", tol);
    } else {
        double ga, gb;
        if (case_point_gap(mink_ref_penetration, &c->a, &pa, r->point_a, &ga) < 0 ||
            case_point_gap(mink_ref_penetration, &c->b, &pb, r->point_b, &gb) < 0)
            return case_reject(why, whylen, "witnesses not measurable");
        if (fabs(ga) > tol) return case_reject(why, whylen, "pA is %.3g from A's surface at t = %.9g (tol %.3g)", ga, r->t, tol);
        if (fabs(gb) > tol) return case_reject(why, whylen, "pB is %.3g from B's surface at t = %.9g (tol %.3g)", gb, r->t, tol);
        if (starts_within && r->t == 0.0f ? d > c->target + tol : fabs(d - c->target) > tol)
            return case_reject(why, whylen, "|pB - pA| = %.9g at t = %.9g, target %.9g (tol %.3g)", d, r->t, c->target, tol);
    }
    /* the normal: not where the cores touch */
    if (d + c->sa.radius + c->sb.radius < near) return 1;
    const int has_expected = c->kind == CASE_HIT && norm3(c->normal) > 0.0;
    double angle = 0.0;
    if (has_expected) {
        angle = acos(fmax(-1.0, fmin(1.0, dot3(u, c->normal))));
        if (timed && angle <= 1e-2) return 1;
    }
    const double mu[3] = {-u[0], -u[1], -u[2]};
    const double sa = case_support_h(&c->sa, &qa, u) - dot3(u, xa);
    const double sb = dot3(u, xb) + case_support_h(&c->sb, &qb, mu);
    if (sa <= tol && sb <= tol) return 1;
    return case_reject(why, whylen,
                       "normal %.9g %.9g %.9g at t = %.9g: %.3g rad from the expected, and its support planes are "
                       "%.3g, %.3g from the witnesses (tol %.3g)",
                       u[0], u[1], u[2], r->t, angle, sa, sb, tol);
}

/* The hit/miss and time rules of FORMAT.md, "Casts" (the first of its hit
 * rules, and the grazes that accept either answer): the part of the check
 * that needs only the answer's kind and t. */
static int check_time(const mink_case *c, int hit, double t, double tol, int *timed, char *why, size_t whylen)
{
    const int want_hit = c->kind == CASE_HIT;
    *timed = 0;
    if (!hit) {
        if (!want_hit) return 1;
        const double least = least_distance(c);
        if (least >= c->target - tol) return 1; /* a graze: either answer */
        return case_reject(why, whylen, "miss, expected a hit at t = %.9g (least distance %.9g, target %.9g)",
                           c->value, least, c->target);
    }
    if (!(t >= 0.0 && t <= 1.0)) return case_reject(why, whylen, "t = %.9g outside [0, 1]", t);
    const double V = case_cast_travel(c);
    *timed = want_hit && fabs(t - c->value) * V <= tol;
    if (!*timed) {
        const int graze = want_hit ? least_distance(c) >= c->target - tol : fabs(c->value - c->target) <= tol;
        if (!graze) {
            if (!want_hit)
                return case_reject(why, whylen, "hit at t = %.9g, expected a miss (least distance %.9g, target %.9g)",
                                   t, c->value, c->target);
            return case_reject(why, whylen, "t = %.9g, expected %.9g: |dt| V = %.3g > tol %.3g (V = %.6g)", t,
                               c->value, fabs(t - c->value) * V, tol, V);
        }
    }
    return 1;
}

int case_check_cast_time(const mink_case *c, int hit, double t, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!c || !c->is_cast) return case_reject(why, whylen, "not a cast case");
    if (hit && !isfinite(t)) return case_reject(why, whylen, "non-finite t");
    int timed;
    return check_time(c, hit != 0, t, c->tol, &timed, why, whylen);
}

int case_check_cast(const mink_case *c, int rc, const mink_cast_result *r, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!c || !r || !c->is_cast) return case_reject(why, whylen, "not a cast case, or no result");
    if (rc < 0 || r->status < 0) return case_reject(why, whylen, "query failed (%d, status %d)", rc, (int)r->status);
    const float v[10] = {r->t, r->normal.x, r->normal.y, r->normal.z, r->point_a.x,
                         r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z};
    for (int i = 0; i < 10; ++i)
        if (!isfinite(v[i])) return case_reject(why, whylen, "non-finite result");
    const double tol = c->tol;
    int timed;
    if (!check_time(c, rc != 0, r->t, tol, &timed, why, whylen)) return 0;
    if (rc == 0) return 1;
    return check_at_t(c, r, timed, tol, why, whylen);
}

void case_print_cast(FILE *f, const mink_case *c, int rc, const mink_cast_result *r)
{
    if (rc < 0 || r->status < 0) {
        fprintf(f, "%s err %d\n", c->id, (int)r->status);
        return;
    }
    if (rc == 0) {
        fprintf(f, "%s miss\n", c->id);
        return;
    }
    fprintf(f, "%s hit %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", c->id, r->t, r->normal.x, r->normal.y,
            r->normal.z, r->point_a.x, r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z);
}
