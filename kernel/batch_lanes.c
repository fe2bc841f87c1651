/* Lane-parallel kernels of the batch queries (see batch_lanes.h): one pair
 * per lane of the wide type vw, MINK_W_LANES pairs per register group.
 *
 * Every kernel follows one pattern: load a register group from the staging
 * buffer, place B in A's frame (both rotations built from the quaternions
 * in lanes), solve every lane with the same instructions (per-lane choices
 * are selects, never branches), retire lanes with masks where a loop is
 * needed, and flag the lanes it cannot answer within the query tolerance;
 * batch.c sends those to the per-pair query. Answers follow mink.h's
 * conventions exactly as mink_penetration writes them: core witnesses moved
 * out by the radii along the normal, normal from A to B. */
#include "batch_lanes.h"
#include "tolerance.h"

#include <float.h>

/* ------------------------------------------------------------ tolerances */

/* All relative to the lane's scale S = extent(A) + extent(B) + |c| (c: B's
 * origin in A's frame), the S of tolerance.h, so that they track the float
 * rounding of the same quantities in the per-pair query. */

/* The box pairs' tolerances are the single query's (tolerance.h): the
 * support feature's free axes, a witness inside its box, the edge axes'
 * bias and the parallel edges skipped. */
#define LANE_FREE_REL BOX_FREE_REL

#define LANE_INSIDE_REL BOX_INSIDE_REL
#define LANE_WITNESS_REL BOX_WITNESS_REL

/* Separated boxes: a pair of core points (p on A, q on B) is accepted when
 * |q - p| exceeds the support gap along (q - p) (a lower bound of the
 * distance) by at most this times S: the distance is then exact to that
 * bound and the direction separates the shapes by it, the same criterion
 * as GJK's (MINK_GJK_GAP_REL), with room for the rounding of the gap. */
#define LANE_CERT_REL 2e-6f

/* Separated boxes: p and q count as each other's closest points when one
 * more round of projections moves them by at most LANE_STEP_REL |q - p|
 * (the normal then holds to about 2e-4 rad), or by LANE_STEP_FLOOR_REL of
 * the near-contact distance (MINK_DOUBLE_NEAR_REL S, below which lanes are
 * left to the per-pair query): 2.5e-7 S, a few float roundings of S. */
#define LANE_STEP_REL 1e-4f
#define LANE_STEP_FLOOR_REL 2.5e-4f

/* ... and a lane answers along the test's axis only where q - p is within
 * this sine of it (an eighth of FORMAT.md's limit on a separated normal,
 * 2e-3 rad). */
#define LANE_AXIS_SIN 2.5e-4f

#define LANE_EDGE_BIAS_REL BOX_EDGE_BIAS_REL

#define LANE_EDGE_MIN_LEN2 BOX_EDGE_MIN_LEN2

/* Segments whose directions have |u x e|^2 below this count as parallel:
 * the closest points are then taken in the middle of their common range
 * (the distance varies by at most ~1e-5 of the length across it). */
#define LANE_PARALLEL_SIN2 1e-10f

/* Core distances below this times S (tolerance.h's touching band) give no
 * reliable direction: the normal comes from the geometry instead (the
 * segments' common perpendicular, the nearest box face, the best axis). */
#define LANE_TOUCH_REL MINK_TOUCH_REL

/* Separated boxes: alternating-projection rounds before a lane that is not
 * certified yet goes to the per-pair query. Vertex-face, edge-face and
 * edge-edge contacts are certified from the separating axis at round 0;
 * vertex-vertex and vertex-edge contacts converge in one to three rounds. */
#define LANE_MAX_ROUNDS 8

/* ------------------------------------------------------------ lane vectors */

typedef struct vw3 { vw x, y, z; } vw3;
/* Rows of a 3x3 matrix. */
typedef struct wmat { vw m[3][3]; } wmat;

MINK_INLINE vw w_zero(void) { return vw_splat(0.0f); }
MINK_INLINE vw w_neg(vw a) { return vw_sub(vw_splat(0.0f), a); }
MINK_INLINE vw w_clamp(vw a, vw lo, vw hi) { return vw_min(vw_max(a, lo), hi); }
/* a with its sign flipped in the lanes where s is negative (or -0). */
MINK_INLINE vw w_flip(vw a, vw s) { return vw_xor(a, vw_and(s, vw_splat(-0.0f))); }
/* +1 or -1, the sign bit of s (+1 for +0). */
MINK_INLINE vw w_sign(vw s) { return w_flip(vw_splat(1.0f), s); }
MINK_INLINE vwm w_not(vwm m) { return vw_andnot(vw_cmpeq(vw_splat(0.0f), vw_splat(0.0f)), m); }
MINK_INLINE vwm w_false(void) { return vw_cmpgt(vw_splat(0.0f), vw_splat(0.0f)); }

MINK_INLINE vw3 w3(vw x, vw y, vw z)
{
    vw3 r;
    r.x = x;
    r.y = y;
    r.z = z;
    return r;
}
MINK_INLINE vw3 w3_add(vw3 a, vw3 b) { return w3(vw_add(a.x, b.x), vw_add(a.y, b.y), vw_add(a.z, b.z)); }
MINK_INLINE vw3 w3_sub(vw3 a, vw3 b) { return w3(vw_sub(a.x, b.x), vw_sub(a.y, b.y), vw_sub(a.z, b.z)); }
MINK_INLINE vw3 w3_scale(vw3 a, vw s) { return w3(vw_mul(a.x, s), vw_mul(a.y, s), vw_mul(a.z, s)); }
/* a * s + b */
MINK_INLINE vw3 w3_madd(vw3 a, vw s, vw3 b) { return w3(vw_madd(a.x, s, b.x), vw_madd(a.y, s, b.y), vw_madd(a.z, s, b.z)); }
MINK_INLINE vw w3_dot(vw3 a, vw3 b) { return vw_add(vw_add(vw_mul(a.x, b.x), vw_mul(a.y, b.y)), vw_mul(a.z, b.z)); }
/* |v| per lane, with v times a power of two in *scaled and that vector's
 * length in *scaled_len (a unit vector is *scaled / *scaled_len). Lanes with
 * |v|^2 below 2^-100 are scaled by 2^100 first (exact): their squares lie in
 * or near the denormals, and two spheres 3e-23 apart got a normal 0.89
 * long. Elsewhere *scaled is v and *scaled_len |v|, bit for bit. */
MINK_INLINE vw w3_length(vw3 v, vw3 *scaled, vw *scaled_len)
{
    const vw d2 = w3_dot(v, v);
    /* (v = 0 exactly, a point inside a box, needs no scaling) */
    const vw l1 = vw_add(vw_add(vw_abs(v.x), vw_abs(v.y)), vw_abs(v.z));
    const vwm small = vw_and(vw_cmpgt(vw_splat(0x1p-100f), d2), vw_cmpgt(l1, w_zero()));
    if (vw_none(small)) { /* the usual case, one well-predicted branch */
        *scaled = v;
        *scaled_len = vw_sqrt(d2);
        return *scaled_len;
    }
    *scaled = w3_scale(v, vw_select(small, vw_splat(0x1p100f), vw_splat(1.0f)));
    *scaled_len = vw_sqrt(w3_dot(*scaled, *scaled));
    return vw_mul(*scaled_len, vw_select(small, vw_splat(0x1p-100f), vw_splat(1.0f)));
}
MINK_INLINE vw3 w3_select(vwm m, vw3 a, vw3 b) { return w3(vw_select(m, a.x, b.x), vw_select(m, a.y, b.y), vw_select(m, a.z, b.z)); }
MINK_INLINE vw3 w3_cross(vw3 a, vw3 b)
{
    return w3(vw_sub(vw_mul(a.y, b.z), vw_mul(a.z, b.y)), vw_sub(vw_mul(a.z, b.x), vw_mul(a.x, b.z)),
              vw_sub(vw_mul(a.x, b.y), vw_mul(a.y, b.x)));
}
MINK_INLINE vw3 w3_clamp(vw3 a, vw3 h)
{
    return w3(w_clamp(a.x, w_neg(h.x), h.x), w_clamp(a.y, w_neg(h.y), h.y), w_clamp(a.z, w_neg(h.z), h.z));
}
MINK_INLINE vw3 w3_splat(float x, float y, float z) { return w3(vw_splat(x), vw_splat(y), vw_splat(z)); }
MINK_INLINE vw w3_comp(vw3 a, int i) { return i == 0 ? a.x : i == 1 ? a.y : a.z; }

MINK_INLINE vw row(const lane_in *in, int r, size_t base) { return vw_load(&in->f[r][base]); }
MINK_INLINE vw3 row3(const lane_in *in, int r, size_t base) { return w3(row(in, r, base), row(in, r + 1, base), row(in, r + 2, base)); }

/* R v and R^T v. */
MINK_INLINE vw3 mat_mul(const wmat *r, vw3 v)
{
    return w3(vw_add(vw_add(vw_mul(r->m[0][0], v.x), vw_mul(r->m[0][1], v.y)), vw_mul(r->m[0][2], v.z)),
              vw_add(vw_add(vw_mul(r->m[1][0], v.x), vw_mul(r->m[1][1], v.y)), vw_mul(r->m[1][2], v.z)),
              vw_add(vw_add(vw_mul(r->m[2][0], v.x), vw_mul(r->m[2][1], v.y)), vw_mul(r->m[2][2], v.z)));
}
MINK_INLINE vw3 mat_tmul(const wmat *r, vw3 v)
{
    return w3(vw_add(vw_add(vw_mul(r->m[0][0], v.x), vw_mul(r->m[1][0], v.y)), vw_mul(r->m[2][0], v.z)),
              vw_add(vw_add(vw_mul(r->m[0][1], v.x), vw_mul(r->m[1][1], v.y)), vw_mul(r->m[2][1], v.z)),
              vw_add(vw_add(vw_mul(r->m[0][2], v.x), vw_mul(r->m[1][2], v.y)), vw_mul(r->m[2][2], v.z)));
}
MINK_INLINE vw3 mat_col(const wmat *r, int j) { return w3(r->m[0][j], r->m[1][j], r->m[2][j]); }

typedef struct wquat { vw x, y, z, w; } wquat;

/* The rotation matrix of a unit quaternion, the formula of support.c. */
static wmat quat_matrix(wquat q)
{
    const vw one = vw_splat(1.0f), two = vw_splat(2.0f);
    const vw xx = vw_mul(q.x, q.x), yy = vw_mul(q.y, q.y), zz = vw_mul(q.z, q.z);
    const vw xy = vw_mul(q.x, q.y), xz = vw_mul(q.x, q.z), yz = vw_mul(q.y, q.z);
    const vw wx = vw_mul(q.w, q.x), wy = vw_mul(q.w, q.y), wz = vw_mul(q.w, q.z);
    wmat r;
    r.m[0][0] = vw_sub(one, vw_mul(two, vw_add(yy, zz)));
    r.m[0][1] = vw_mul(two, vw_sub(xy, wz));
    r.m[0][2] = vw_mul(two, vw_add(xz, wy));
    r.m[1][0] = vw_mul(two, vw_add(xy, wz));
    r.m[1][1] = vw_sub(one, vw_mul(two, vw_add(xx, zz)));
    r.m[1][2] = vw_mul(two, vw_sub(yz, wx));
    r.m[2][0] = vw_mul(two, vw_sub(xz, wy));
    r.m[2][1] = vw_mul(two, vw_add(yz, wx));
    r.m[2][2] = vw_sub(one, vw_mul(two, vw_add(xx, yy)));
    return r;
}

/* conj(a) * b: B's rotation seen from A's frame (support.c's order of terms). */
static wquat quat_conj_mul(wquat a, wquat b)
{
    wquat r;
    r.w = vw_add(vw_add(vw_add(vw_mul(a.w, b.w), vw_mul(a.x, b.x)), vw_mul(a.y, b.y)), vw_mul(a.z, b.z));
    r.x = vw_add(vw_sub(vw_sub(vw_mul(a.w, b.x), vw_mul(a.x, b.w)), vw_mul(a.y, b.z)), vw_mul(a.z, b.y));
    r.y = vw_sub(vw_sub(vw_add(vw_mul(a.w, b.y), vw_mul(a.x, b.z)), vw_mul(a.y, b.w)), vw_mul(a.z, b.x));
    r.z = vw_sub(vw_add(vw_sub(vw_mul(a.w, b.z), vw_mul(a.x, b.y)), vw_mul(a.y, b.x)), vw_mul(a.z, b.w));
    return r;
}

MINK_INLINE wquat quat_row(const lane_in *in, int r, size_t base)
{
    wquat q;
    q.x = row(in, r, base);
    q.y = row(in, r + 1, base);
    q.z = row(in, r + 2, base);
    q.w = row(in, r + 3, base);
    return q;
}

/* ------------------------------------------------------------ validation */

/* x in [0, MINK_MAX_MAGNITUDE] (NaN fails every ordered compare); the
 * extent of a box may reach sqrt(3) times that, as shape.c allows. */
MINK_INLINE vwm valid_size(vw x) { return vw_and(vw_cmpge(x, w_zero()), vw_cmpge(vw_splat(MINK_MAX_MAGNITUDE), x)); }
MINK_INLINE vwm valid_extent(vw x) { return vw_and(vw_cmpge(x, w_zero()), vw_cmpge(vw_splat(2.0f * MINK_MAX_MAGNITUDE), x)); }
MINK_INLINE vwm valid_coord(vw x) { return vw_cmpge(vw_splat(FLT_MAX), vw_abs(x)); }
MINK_INLINE vwm valid_position(vw x) { return vw_cmpge(vw_splat(MINK_MAX_MAGNITUDE), vw_abs(x)); }

/* A staged shape's fields: mink_shape_is_valid's rules for the primitive
 * types (batch.c stages only those): radius, extent and the three half
 * sizes finite and >= 0. Writes the core half extents as a box: a capsule
 * is (0, h, 0), a sphere (0, 0, 0). */
static vwm shape_lanes(const lane_in *in, size_t base, int half_row, int radius_row, int extent_row, int type_row,
                       vw3 *core)
{
    const vw3 h = row3(in, half_row, base);
    const vwm ok = vw_and(vw_and(valid_size(row(in, radius_row, base)), valid_extent(row(in, extent_row, base))),
                          vw_and(vw_and(valid_size(h.x), valid_size(h.y)), valid_size(h.z)));
    const vw type = row(in, type_row, base);
    const vwm box = vw_cmpeq(type, vw_splat((float)MINK_SHAPE_BOX));
    const vwm capsule = vw_cmpeq(type, vw_splat((float)MINK_SHAPE_CAPSULE));
    *core = w3(vw_select(box, h.x, w_zero()), vw_select(vw_or(box, capsule), h.y, w_zero()), vw_select(box, h.z, w_zero()));
    return ok;
}

/* A staged pose: mink_pose_is_valid's rules (finite, |q|^2 within the unit
 * band of shape.c), and the quaternion normalized as mink_check_query
 * normalizes it (same operations, same order: the same bits). */
static vwm pose_lanes(const lane_in *in, size_t base, int pos_row, int quat_row_index, wquat *unit)
{
    const vw3 p = row3(in, pos_row, base);
    const wquat q = quat_row(in, quat_row_index, base);
    const vw n2 = vw_add(vw_add(vw_add(vw_mul(q.x, q.x), vw_mul(q.y, q.y)), vw_mul(q.z, q.z)), vw_mul(q.w, q.w));
    const float lo = (1.0f - MINK_QUAT_UNIT_TOL) * (1.0f - MINK_QUAT_UNIT_TOL);
    const float hi = (1.0f + MINK_QUAT_UNIT_TOL) * (1.0f + MINK_QUAT_UNIT_TOL);
    const vwm ok = vw_and(vw_and(vw_and(valid_position(p.x), valid_position(p.y)), vw_and(valid_position(p.z), valid_coord(q.w))),
                          vw_and(vw_and(valid_coord(q.x), valid_coord(q.y)), valid_coord(q.z)));
    const vwm band = vw_and(vw_cmpge(n2, vw_splat(lo)), vw_cmpge(vw_splat(hi), n2));
    /* invalid lanes divide by 1 instead (no NaN to carry around) */
    const vw inv = vw_div(vw_splat(1.0f), vw_sqrt(vw_select(vw_and(ok, band), n2, vw_splat(1.0f))));
    unit->x = vw_mul(q.x, inv);
    unit->y = vw_mul(q.y, inv);
    unit->z = vw_mul(q.z, inv);
    unit->w = vw_mul(q.w, inv);
    return vw_and(ok, band);
}

/* A register group's frame: validation, unit quaternions, core half
 * extents, A's rotation and origin (world) and B's origin in A's frame. */
typedef struct lane_frame {
    vwm valid;
    wquat qa, qb;
    vw3 ha, hb;
    wmat ra;
    vw3 pa;
    vw3 c;
} lane_frame;

static void frame_load(const lane_in *in, size_t base, lane_frame *f)
{
    const vwm shapes = vw_and(shape_lanes(in, base, LI_HAX, LI_RA, LI_EA, LI_TA, &f->ha),
                              shape_lanes(in, base, LI_HBX, LI_RB, LI_EB, LI_TB, &f->hb));
    const vwm poses = vw_and(pose_lanes(in, base, LI_PAX, LI_QAX, &f->qa), pose_lanes(in, base, LI_PBX, LI_QBX, &f->qb));
    f->valid = vw_and(shapes, poses);
    f->ra = quat_matrix(f->qa);
    f->pa = row3(in, LI_PAX, base);
    f->c = mat_tmul(&f->ra, w3_sub(row3(in, LI_PBX, base), f->pa));
}

/* The tolerance scale of tolerance.h: extent(A) + extent(B) + |c|. */
static vw frame_scale(const lane_in *in, size_t base, const lane_frame *f)
{
    return vw_add(vw_add(row(in, LI_EA, base), row(in, LI_EB, base)), vw_sqrt(w3_dot(f->c, f->c)));
}

/* Writes a group's answers: core witnesses pa, pb (A frame), unit normal n
 * (A frame, from A to B), core distance dc (negative: core depth); the radii
 * move the witnesses out along n and come off the distance. */
static void store_answer(const lane_in *in, size_t base, const lane_frame *f, vw dc, vw3 n, vw3 pa, vw3 pb,
                         vwm undecided, lane_out *out)
{
    const vw ra = row(in, LI_RA, base), rb = row(in, LI_RB, base);
    const vw3 wa = w3_add(mat_mul(&f->ra, w3_madd(n, ra, pa)), f->pa);
    const vw3 wb = w3_add(mat_mul(&f->ra, w3_madd(n, w_neg(rb), pb)), f->pa);
    const vw3 wn = mat_mul(&f->ra, n);
    vw_store(&out->f[LO_DIST][base], vw_sub(vw_sub(dc, ra), rb));
    vw_store(&out->f[LO_NX][base], wn.x);
    vw_store(&out->f[LO_NY][base], wn.y);
    vw_store(&out->f[LO_NZ][base], wn.z);
    vw_store(&out->f[LO_AX][base], wa.x);
    vw_store(&out->f[LO_AY][base], wa.y);
    vw_store(&out->f[LO_AZ][base], wa.z);
    vw_store(&out->f[LO_BX][base], wb.x);
    vw_store(&out->f[LO_BY][base], wb.y);
    vw_store(&out->f[LO_BZ][base], wb.z);
    vw_store(&out->f[LO_STATE][base], vw_select(f->valid, vw_select(undecided, vw_splat(LANE_UNDECIDED), vw_splat(LANE_ANSWERED)),
                                                vw_splat(LANE_INVALID)));
}

/* Writes a group's intersect answers (invalid lanes: LANE_INVALID). */
static void store_hits(const lane_frame *f, vw answer, float *out)
{
    vw_store(out, vw_select(f->valid, answer, vw_splat(LANE_INVALID)));
}

size_t mink_lane_pad(lane_in *in, size_t count)
{
    if (count == 0) return 0;
    const size_t lanes = (count + MINK_W_LANES - 1) / MINK_W_LANES * MINK_W_LANES;
    for (int r = 0; r < LI_ROWS; ++r)
        for (size_t l = count; l < lanes; ++l) in->f[r][l] = in->f[r][0];
    return lanes;
}

/* ------------------------------------------------------------ round pairs */

/* Closest points of A's core segment (0, s, 0), |s| <= hA, and B's c + t u,
 * |t| <= hB, in A's frame (Ericson, Real-Time Collision Detection 5.1.9,
 * written for lanes: every lane computes every branch, selects pick).
 * A sphere is a segment with h = 0. */
typedef struct round_lanes {
    lane_frame f;
    vw3 p, q;   /* closest core points (A frame)                     */
    vw3 n;      /* unit normal from A to B                           */
    vw dc;      /* core distance along n (tiny or >= 0)              */
    vw d2;      /* |q - p|^2                                         */
} round_lanes;

static void round_solve(const lane_in *in, size_t base, int want_normal, round_lanes *o)
{
    frame_load(in, base, &o->f);
    const vw3 c = o->f.c;
    const vw ha = o->f.ha.y, hb = o->f.hb.y;
    /* u = B's y axis in A's frame: column 1 of R(conj(qa) qb). */
    const wquat qr = quat_conj_mul(o->f.qa, o->f.qb);
    const vw one = vw_splat(1.0f), two = vw_splat(2.0f);
    const vw3 u = w3(vw_mul(two, vw_sub(vw_mul(qr.x, qr.y), vw_mul(qr.w, qr.z))),
                     vw_sub(one, vw_mul(two, vw_add(vw_mul(qr.x, qr.x), vw_mul(qr.z, qr.z)))),
                     vw_mul(two, vw_add(vw_mul(qr.y, qr.z), vw_mul(qr.w, qr.x))));
    const vw ru = w3_dot(u, c), b = u.y;
    /* |e_y x u|^2 = ux^2 + uz^2: better conditioned than 1 - b^2. */
    const vw denom = vw_add(vw_mul(u.x, u.x), vw_mul(u.z, u.z));
    const vwm par = w_not(vw_cmpgt(denom, vw_splat(LANE_PARALLEL_SIN2)));
    /* Not parallel: the stationary s of the two infinite lines,
     * (c.y - b ru) / denom written as c.y - b (ux cx + uz cz) / denom: the
     * first form subtracts two numbers of size |c| to leave one of size
     * angle x |c|, and its rounding (1e-7 |c|) over denom put two capsules
     * 1.7e-5 rad from parallel "inside" each other's range, their distance
     * 12 % short. */
    const vw w_perp = vw_add(vw_mul(u.x, c.x), vw_mul(u.z, c.z));
    const vw s_free = vw_sub(c.y, vw_div(vw_mul(b, w_perp), vw_select(par, one, denom)));
    /* Parallel: the middle of A's range and B's range projected on A's axis. */
    const vw hbp = vw_mul(hb, vw_abs(b));
    const vw lo = vw_max(w_neg(ha), vw_sub(c.y, hbp)), hi = vw_min(ha, vw_add(c.y, hbp));
    const vw s0 = vw_select(par, vw_mul(vw_splat(0.5f), vw_add(lo, hi)), s_free);
    vw s = w_clamp(s0, w_neg(ha), ha);
    const vw t0 = vw_sub(vw_mul(s, b), ru);
    const vw t = w_clamp(t0, w_neg(hb), hb);
    const vwm t_clamped = vw_cmpgt(vw_abs(t0), hb);
    const vw s1 = vw_madd(t, b, c.y);
    s = vw_select(t_clamped, w_clamp(s1, w_neg(ha), ha), s);
    o->p = w3(w_zero(), s, w_zero());
    o->q = w3_madd(u, t, c);
    vw3 dv = w3_sub(o->q, o->p);
    o->d2 = w3_dot(dv, dv);
    if (!want_normal) return;

    /* q - p is a small difference of S-sized numbers: its rounding (~1e-7 S)
     * tilts it, and a tilt along a long segment moves the support gap by
     * the tilt times the length. At a closest point inside a segment q - p
     * is perpendicular to that segment: project the rounding out (B's
     * segment first, then A's; both inside is the common perpendicular,
     * handled below). */
    const vwm s_inside = vw_select(t_clamped, vw_cmpgt(ha, vw_abs(s1)), vw_cmpgt(ha, vw_abs(s0)));
    dv = w3_select(t_clamped, dv, w3_madd(u, w_neg(w3_dot(dv, u)), dv));
    dv.y = vw_select(s_inside, w_zero(), dv.y);

    const vw scale = frame_scale(in, base, &o->f);
    const vw tiny = vw_mul(vw_splat(LANE_TOUCH_REL), scale);
    /* the length of q - p with the rounding projected out: dividing by
     * the unprojected length left normals 0.7 % short */
    vw3 dv_s;
    vw d_s;
    const vw d = w3_length(dv, &dv_s, &d_s);
    const vwm is_tiny = w_not(vw_cmpgt(d, tiny));
    /* Both closest points inside their segments (not parallel): the normal
     * is the common perpendicular e_y x u = (uz, 0, -ux), exactly, whatever
     * the distance; signed towards B (along c: n.(q - p) = n.c). */
    const vwm interior = vw_andnot(vw_and(vw_cmpgt(ha, vw_abs(s0)), w_not(t_clamped)), par);
    const vw inv_cross = vw_div(one, vw_sqrt(vw_select(par, one, denom)));
    const vw3 n_cross0 = w3(vw_mul(u.z, inv_cross), w_zero(), vw_mul(w_neg(u.x), inv_cross));
    const vw3 n_cross = w3_scale(n_cross0, w_sign(w3_dot(n_cross0, c)));
    /* Parallel and touching: any direction perpendicular to A's axis, the
     * one towards B's center when it has one. */
    const vw cp2 = vw_add(vw_mul(c.x, c.x), vw_mul(c.z, c.z));
    const vwm cp_ok = vw_cmpgt(cp2, vw_mul(tiny, tiny));
    const vw inv_cp = vw_div(one, vw_sqrt(vw_select(cp_ok, cp2, one)));
    const vw3 n_perp = w3_select(cp_ok, w3(vw_mul(c.x, inv_cp), w_zero(), vw_mul(c.z, inv_cp)), w3_splat(1, 0, 0));
    const vw3 n_dir = w3_scale(dv_s, vw_div(one, vw_select(is_tiny, one, d_s)));
    o->n = w3_select(vw_or(interior, vw_andnot(is_tiny, par)), n_cross, w3_select(is_tiny, n_perp, n_dir));
    o->dc = w3_dot(dv, o->n);
}

/* Lanes whose cores are within MINK_DOUBLE_NEAR_REL S of contact: left
 * to the per-pair query, which answers them in double, as it does its own.
 * In float, the rounding of B's origin in A's frame (1e-7 S) tilts the
 * direction between the closest points by that over their distance (the
 * box lanes' 0.4 mm capsule 9e-5 from a 2 m box: 3.2 mrad). */
MINK_INLINE vwm near_contact(const lane_in *in, size_t base, const lane_frame *f, vw dc)
{
    return vw_cmpgt(vw_mul(vw_splat(MINK_DOUBLE_NEAR_REL), frame_scale(in, base, f)), vw_abs(dc));
}

void mink_lane_round_penetration(const lane_in *in, size_t lanes, lane_out *out)
{
    for (size_t base = 0; base < lanes; base += MINK_W_LANES) {
        round_lanes r;
        round_solve(in, base, 1, &r);
        store_answer(in, base, &r.f, r.dc, r.n, r.p, r.q, near_contact(in, base, &r.f, r.dc), out);
    }
}

void mink_lane_round_intersect(const lane_in *in, size_t lanes, lane_hits *out)
{
    for (size_t base = 0; base < lanes; base += MINK_W_LANES) {
        round_lanes r;
        round_solve(in, base, 0, &r);
        const vw m = vw_add(row(in, LI_RA, base), row(in, LI_RB, base));
        /* touching counts: d <= ra + rb */
        store_hits(&r.f, vw_select(vw_cmpgt(r.d2, vw_mul(m, m)), w_zero(), vw_splat(1.0f)), &out->f[base]);
    }
}

/* ------------------------------------------------------------ sphere-box */

/* A is the box (half extents LI_HA*, radius LI_RA), B the sphere (LI_RB).
 * c = the sphere's center in the box's frame; its clamp into the box is the
 * closest core point; inside (or touching), the nearest face gives the
 * normal and the core depth. */
typedef struct point_box_lanes {
    lane_frame f;
    vw3 h;
    vw d2;      /* |c - clamp(c)|^2 */
} point_box_lanes;

static void point_box_load(const lane_in *in, size_t base, point_box_lanes *o)
{
    frame_load(in, base, &o->f);
    o->h = o->f.ha;
}

void mink_lane_point_box_penetration(const lane_in *in, size_t lanes, lane_out *out)
{
    for (size_t base = 0; base < lanes; base += MINK_W_LANES) {
        point_box_lanes o;
        point_box_load(in, base, &o);
        const vw3 c = o.f.c, h = o.h;
        const vw one = vw_splat(1.0f);
        const vw3 q = w3_clamp(c, h);
        const vw3 dv = w3_sub(c, q);
        vw3 dv_s;
        vw d_s;
        const vw d = w3_length(dv, &dv_s, &d_s);
        const vw tiny = vw_mul(vw_splat(LANE_TOUCH_REL), frame_scale(in, base, &o.f));
        const vwm outside = vw_cmpgt(d, tiny);
        /* nearest face: smallest h_k - |c_k|, ties to x then y then z */
        const vw fx = vw_sub(h.x, vw_abs(c.x)), fy = vw_sub(h.y, vw_abs(c.y)), fz = vw_sub(h.z, vw_abs(c.z));
        const vwm kx = vw_and(vw_cmpge(fy, fx), vw_cmpge(fz, fx));
        const vwm ky = vw_andnot(vw_cmpge(fz, fy), kx);
        const vwm kz = w_not(vw_or(kx, ky));
        const vw fmin = vw_min(fx, vw_min(fy, fz));
        const vw3 n_in = w3(vw_select(kx, w_sign(c.x), w_zero()), vw_select(ky, w_sign(c.y), w_zero()),
                            vw_select(kz, w_sign(c.z), w_zero()));
        const vw3 face = w3(vw_select(kx, w_flip(h.x, c.x), c.x), vw_select(ky, w_flip(h.y, c.y), c.y),
                            vw_select(kz, w_flip(h.z, c.z), c.z));
        const vw3 n = w3_select(outside, w3_scale(dv_s, vw_div(one, vw_select(outside, d_s, one))), n_in);
        const vw dc = vw_select(outside, d, w_neg(fmin));
        const vw3 pa = w3_select(outside, q, face);
        store_answer(in, base, &o.f, dc, n, pa, c, near_contact(in, base, &o.f, dc), out);
    }
}

void mink_lane_point_box_intersect(const lane_in *in, size_t lanes, lane_hits *out)
{
    for (size_t base = 0; base < lanes; base += MINK_W_LANES) {
        point_box_lanes o;
        point_box_load(in, base, &o);
        const vw3 dv = w3_sub(o.f.c, w3_clamp(o.f.c, o.h));
        const vw m = vw_add(row(in, LI_RA, base), row(in, LI_RB, base));
        store_hits(&o.f, vw_select(vw_cmpgt(w3_dot(dv, dv), vw_mul(m, m)), w_zero(), vw_splat(1.0f)), &out->f[base]);
    }
}

/* ------------------------------------------------------------ box-box */

/* Two boxes (a capsule is the box (0, h, 0)) in A's frame: A = [-ha, ha],
 * B = { c + sum_j x_j b_j : |x_j| <= hb_j }. */
typedef struct box_lanes {
    lane_frame f;
    vw3 ha, hb;
    vw3 b[3];      /* B's axes in A's frame                                  */
    vw cb[3];      /* c . b_j                                                */
    vw scale;      /* the tolerances' scale (box_tolerance_scale)            */
    vw near;       /* MINK_DOUBLE_NEAR_REL S: closer, no normal from q - p   */
    /* the separating axis test */
    vw best;       /* largest separation over the axes; <= 0: -(core depth) */
    vw code;       /* 0..2 face of A, 3..5 face of B, 6 + 3i + j edge i x j */
    vw ei, ej;     /* edge axis indices i (A) and j (B) as floats           */
    vw3 n;         /* the best axis, unit, from A to B                      */
} box_lanes;

/* The box lanes' tolerances are relative to S, or to three times the
 * smaller shape's size (extent plus radius) when that is less: FORMAT.md's
 * local rule measures a contact by its smaller shape, and a 6 cm box on a
 * 250 m slab took 1e-6 S (3e-4) as its edge bias and 4e-6 S as its
 * witnesses' slack, above that rule's 1e-4 of the box. Where the float
 * rounding of S's coordinates exceeds the tightened bounds, the lane stays
 * undecided and the per-pair query answers it. */
static vw box_tolerance_scale(const lane_in *in, size_t base, vw scale)
{
    const vw smaller = vw_min(vw_add(row(in, LI_EA, base), row(in, LI_RA, base)),
                              vw_add(row(in, LI_EB, base), row(in, LI_RB, base)));
    return vw_min(scale, vw_mul(vw_splat(3.0f), smaller));
}

static void box_load(const lane_in *in, size_t base, box_lanes *o)
{
    frame_load(in, base, &o->f);
    const wmat r = quat_matrix(quat_conj_mul(o->f.qa, o->f.qb));
    for (int j = 0; j < 3; ++j) {
        o->b[j] = mat_col(&r, j);
        o->cb[j] = w3_dot(o->f.c, o->b[j]);
    }
    o->ha = o->f.ha;
    o->hb = o->f.hb;
    const vw scale = frame_scale(in, base, &o->f);
    o->scale = box_tolerance_scale(in, base, scale);
    o->near = vw_mul(vw_splat(MINK_DOUBLE_NEAR_REL), scale);
}

/* Half width of B along (unnormalized) l: sum_j hb_j |l . b_j|. */
MINK_INLINE vw box_radius_b(const box_lanes *o, vw3 l)
{
    return vw_add(vw_add(vw_mul(o->hb.x, vw_abs(w3_dot(l, o->b[0]))), vw_mul(o->hb.y, vw_abs(w3_dot(l, o->b[1])))),
                  vw_mul(o->hb.z, vw_abs(w3_dot(l, o->b[2]))));
}
MINK_INLINE vw box_radius_a(const box_lanes *o, vw3 l)
{
    return vw_add(vw_add(vw_mul(o->ha.x, vw_abs(l.x)), vw_mul(o->ha.y, vw_abs(l.y))), vw_mul(o->ha.z, vw_abs(l.z)));
}

/* Separating axis test over the 15 axes. Separations are measured along
 * unit axes with every projection computed from the axis itself (not from
 * orthonormality identities), so near-parallel edge axes keep their
 * relative precision. */
static void box_sat(box_lanes *o)
{
    const vw3 c = o->f.c;
    const vw bias = vw_mul(vw_splat(LANE_EDGE_BIAS_REL), o->scale);
    o->best = vw_splat(-FLT_MAX);
    o->code = w_zero();
    o->ei = o->ej = w_zero();
    o->n = w3_splat(1, 0, 0);
    /* faces of A: axis e_k */
    for (int k = 0; k < 3; ++k) {
        const vw ck = w3_comp(c, k);
        const vw rb = vw_add(vw_add(vw_mul(o->hb.x, vw_abs(w3_comp(o->b[0], k))), vw_mul(o->hb.y, vw_abs(w3_comp(o->b[1], k)))),
                             vw_mul(o->hb.z, vw_abs(w3_comp(o->b[2], k))));
        const vw sep = vw_sub(vw_sub(vw_abs(ck), w3_comp(o->ha, k)), rb);
        const vwm m = vw_cmpgt(sep, o->best);
        const vw s = w_sign(ck);
        o->best = vw_select(m, sep, o->best);
        o->code = vw_select(m, vw_splat((float)k), o->code);
        o->n = w3_select(m, w3(k == 0 ? s : w_zero(), k == 1 ? s : w_zero(), k == 2 ? s : w_zero()), o->n);
    }
    /* faces of B: axis b_j */
    for (int j = 0; j < 3; ++j) {
        const vw sep = vw_sub(vw_sub(vw_abs(o->cb[j]), box_radius_a(o, o->b[j])), w3_comp(o->hb, j));
        const vwm m = vw_cmpgt(sep, o->best);
        o->best = vw_select(m, sep, o->best);
        o->code = vw_select(m, vw_splat((float)(3 + j)), o->code);
        o->n = w3_select(m, w3_scale(o->b[j], w_sign(o->cb[j])), o->n);
    }
    /* edges: e_i x b_j, with e_0 x b = (0, -bz, by), e_1 x b = (bz, 0, -bx),
     * e_2 x b = (-by, bx, 0) */
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            const vw3 bj = o->b[j];
            const vw3 l = i == 0 ? w3(w_zero(), w_neg(bj.z), bj.y)
                        : i == 1 ? w3(bj.z, w_zero(), w_neg(bj.x))
                                 : w3(w_neg(bj.y), bj.x, w_zero());
            const vw len2 = w3_dot(l, l);
            const vwm ok = vw_cmpgt(len2, vw_splat(LANE_EDGE_MIN_LEN2));
            const vw inv = vw_div(vw_splat(1.0f), vw_sqrt(vw_select(ok, len2, vw_splat(1.0f))));
            const vw cl = w3_dot(c, l);
            const vw sep = vw_mul(vw_sub(vw_sub(vw_abs(cl), box_radius_a(o, l)), box_radius_b(o, l)), inv);
            const vwm m = vw_and(ok, vw_cmpgt(sep, vw_add(o->best, bias)));
            o->best = vw_select(m, sep, o->best);
            o->code = vw_select(m, vw_splat((float)(6 + 3 * i + j)), o->code);
            o->ei = vw_select(m, vw_splat((float)i), o->ei);
            o->ej = vw_select(m, vw_splat((float)j), o->ej);
            o->n = w3_select(m, w3_scale(l, w_flip(inv, cl)), o->n);
        }
    }
}

/* Closest point of A's core to x (A frame). */
MINK_INLINE vw3 box_clamp_a(const box_lanes *o, vw3 x) { return w3_clamp(x, o->ha); }

/* B-frame coordinates of x (A frame). */
MINK_INLINE vw3 box_local_b(const box_lanes *o, vw3 x)
{
    const vw3 d = w3_sub(x, o->f.c);
    return w3(w3_dot(d, o->b[0]), w3_dot(d, o->b[1]), w3_dot(d, o->b[2]));
}
MINK_INLINE vw3 box_from_b(const box_lanes *o, vw3 l)
{
    return w3_madd(o->b[2], l.z, w3_madd(o->b[1], l.y, w3_madd(o->b[0], l.x, o->f.c)));
}
/* Closest point of B's core to x. */
MINK_INLINE vw3 box_clamp_b(const box_lanes *o, vw3 x) { return box_from_b(o, w3_clamp(box_local_b(o, x), o->hb)); }

MINK_INLINE vwm inside3(vw3 l, vw3 h, vw tol)
{
    return vw_and(vw_and(vw_cmpge(vw_add(h.x, tol), vw_abs(l.x)), vw_cmpge(vw_add(h.y, tol), vw_abs(l.y))),
                  vw_cmpge(vw_add(h.z, tol), vw_abs(l.z)));
}

/* Support point of A along n (A's deepest point towards B), and of B along
 * -n. Along an axis perpendicular to n (within LANE_FREE_REL) the feature is
 * an edge or face: take its point nearest the other box's center. */
static vw3 box_support_a(const box_lanes *o, vw3 n, vw tol_free)
{
    const vw3 c = o->f.c;
    vw s[3];
    for (int k = 0; k < 3; ++k) {
        const vw hk = w3_comp(o->ha, k), nk = w3_comp(n, k);
        const vwm free_k = vw_cmpge(tol_free, vw_mul(vw_abs(nk), hk));
        s[k] = vw_select(free_k, w_clamp(w3_comp(c, k), w_neg(hk), hk), w_flip(hk, nk));
    }
    return w3(s[0], s[1], s[2]);
}

static vw3 box_support_b(const box_lanes *o, vw3 n, vw tol_free)
{
    vw x[3];
    for (int j = 0; j < 3; ++j) {
        const vw hj = w3_comp(o->hb, j), nj = w3_dot(n, o->b[j]);
        const vwm free_j = vw_cmpge(tol_free, vw_mul(vw_abs(nj), hj));
        /* A's center in B's frame is -cb_j */
        x[j] = vw_select(free_j, w_clamp(w_neg(o->cb[j]), w_neg(hj), hj), w_flip(w_neg(hj), nj));
    }
    return box_from_b(o, w3(x[0], x[1], x[2]));
}

/* Support gap along unit n: min over B of n.x minus max over A (a lower
 * bound of the core distance when positive). */
MINK_INLINE vw box_gap(const box_lanes *o, vw3 n)
{
    return vw_sub(vw_sub(w3_dot(o->f.c, n), box_radius_a(o, n)), box_radius_b(o, n));
}

/* One edge axis's lines: A's edge through sa along e_i, B's through sb
 * along b_j; the parameters of their closest points. */
static void box_edge_params(const box_lanes *o, vw3 sa, vw3 sb, vw3 *e, vw3 *f, vw *s, vw *t)
{
    const vw one = vw_splat(1.0f);
    const vwm i0 = vw_cmpeq(o->ei, w_zero()), i1 = vw_cmpeq(o->ei, one);
    const vwm j0 = vw_cmpeq(o->ej, w_zero()), j1 = vw_cmpeq(o->ej, one);
    *e = w3(vw_select(i0, one, w_zero()), vw_select(i1, one, w_zero()), vw_select(vw_or(i0, i1), w_zero(), one));
    *f = w3_select(j0, o->b[0], w3_select(j1, o->b[1], o->b[2]));
    const vw3 ef = w3_cross(*e, *f);
    const vw den = w3_dot(ef, ef);
    const vw inv = vw_div(one, vw_select(vw_cmpgt(den, vw_splat(LANE_EDGE_MIN_LEN2)), den, one));
    const vw3 d = w3_sub(sb, sa);
    const vw beta = w3_dot(*e, *f), ed = w3_dot(*e, d), fd = w3_dot(*f, d);
    *s = vw_mul(vw_sub(ed, vw_mul(beta, fd)), inv);
    *t = vw_mul(vw_sub(vw_mul(beta, ed), fd), inv);
}

/* A register group of box pairs: core answer in A's frame. */
typedef struct box_answer {
    vw dc;         /* core distance (< 0: -core depth) */
    vw3 n, pa, pb; /* normal, core witnesses           */
    vwm undecided; /* lanes not answered               */
} box_answer;

static void box_solve(box_lanes *o, box_answer *ans)
{
    const vw scale = o->scale;
    const vw tol_free = vw_mul(vw_splat(LANE_FREE_REL), scale);
    const vw tol_in = vw_mul(vw_splat(LANE_INSIDE_REL), scale);
    const vw tol_cert = vw_mul(vw_splat(LANE_CERT_REL), scale);
    const vw tiny = vw_mul(vw_splat(LANE_TOUCH_REL), scale);
    const vw one = vw_splat(1.0f);

    /* invalid lanes (garbage in) take neither path */
    const vwm overlap = vw_andnot(o->f.valid, vw_cmpgt(o->best, w_zero()));
    const vwm face_a = vw_cmpgt(vw_splat(2.5f), o->code);
    const vwm face_b = vw_andnot(vw_cmpgt(vw_splat(5.5f), o->code), face_a);
    const vwm edge = vw_cmpgt(o->code, vw_splat(5.5f));

    const vw3 sa = box_support_a(o, o->n, tol_free);
    const vw3 sb = box_support_b(o, o->n, tol_free);
    vw3 e, f;
    vw s, t;
    box_edge_params(o, sa, sb, &e, &f, &s, &t);
    const vw3 la = w3_madd(e, s, sa); /* A's edge point (edge axes) */
    const vw3 lb = w3_madd(f, t, sb); /* B's edge point (edge axes) */

    ans->n = o->n;
    ans->dc = o->best;
    ans->pa = ans->pb = w3_splat(0, 0, 0);
    ans->undecided = w_false();

    if (!vw_none(overlap)) {
        /* Overlapping cores: the best axis is the minimum translation (SAT
         * over a complete axis set), depth = -best. Witnesses on the two
         * support features: B's deepest point for a face of A, A's for a
         * face of B, the edges' closest points for an edge pair; accepted
         * when both lie on their boxes (within their rounding). */
        const vw depth = w_neg(o->best);
        const vw3 pa_fa = w3_madd(o->n, depth, sb);
        const vw3 pb_fb = w3_madd(o->n, w_neg(depth), sa);
        const vw3 pb_e = w3_madd(o->n, w_neg(depth), la);
        const vw3 pa = w3_select(face_a, pa_fa, w3_select(face_b, sa, la));
        const vw3 pb = w3_select(face_a, sb, w3_select(face_b, pb_fb, pb_e));
        const vw3 miss = w3_sub(lb, pb_e);
        const vwm edge_ok = vw_or(w_not(edge), vw_cmpge(vw_mul(tol_in, tol_in), w3_dot(miss, miss)));
        const vw tol_w = vw_mul(vw_splat(LANE_WITNESS_REL), scale);
        const vwm ok = vw_and(vw_and(inside3(pa, o->ha, tol_w), inside3(box_local_b(o, pb), o->hb, tol_w)), edge_ok);
        ans->pa = w3_select(overlap, pa, ans->pa);
        ans->pb = w3_select(overlap, pb, ans->pb);
        ans->undecided = vw_or(ans->undecided, vw_andnot(overlap, ok));
    }

    const vwm separated = vw_and(o->f.valid, vw_cmpgt(o->best, w_zero()));
    if (!vw_none(separated)) {
        /* Separated cores: start from the best axis's features, improve by
         * alternating projections (each round moves p to A's closest point
         * to q and q to B's closest point to p: |q - p| never grows), retire
         * a lane when |q - p| is within LANE_CERT_REL of a lower bound. */
        vw3 p = w3_select(face_a, box_clamp_a(o, sb), w3_select(face_b, sa, box_clamp_a(o, la)));
        vw3 q = w3_select(face_a, sb, w3_select(face_b, box_clamp_b(o, sa), box_clamp_b(o, lb)));
        vwm active = separated;
        vwm on_axis = w_false(); /* lanes answered along the best axis */
        vwm near = w_false();    /* lanes left to the per-pair query */
        for (int round = 0;; ++round) {
            const vw3 v = w3_sub(q, p);
            vw3 v_s;
            vw d_s;
            const vw d = w3_length(v, &v_s, &d_s);
            const vwm touch = w_not(vw_cmpgt(d, tiny));
            /* the gap along v itself: it bounds the distance from below;
             * and the direction, when p and q are each other's closest
             * points (one more round moves them by at most 1e-4 |q - p|, or
             * by rounding): a gap that matches |q - p| alone leaves v
             * tilted by up to sqrt(2 tol / |q - p|) where a corner is the
             * closest feature (its gap falls with the tilt's square) */
            const vw gap = box_gap(o, w3_scale(v_s, vw_div(one, vw_select(touch, one, d_s))));
            const vw3 pn = box_clamp_a(o, q);
            const vw3 qn = box_clamp_b(o, pn);
            const vw3 dp = w3_sub(pn, p), dq = w3_sub(qn, q);
            const vw step = vw_max(vw_mul(vw_splat(LANE_STEP_REL), d), vw_mul(vw_splat(LANE_STEP_FLOOR_REL), o->near));
            const vwm fixed = vw_cmpge(vw_mul(step, step), vw_add(w3_dot(dp, dp), w3_dot(dq, dq)));
            const vwm by_gap = vw_and(fixed, vw_cmpge(tol_cert, vw_sub(d, gap)));
            /* or the best axis bounds it (parallel closest features: faces,
             * edge on face, where alternation crawls and v stays tilted),
             * and v is that axis up to LANE_INSIDE_REL, and within
             * LANE_AXIS_SIN of its direction: the answer is then given along
             * the axis, q moved onto it (by at most that much). (A capsule
             * 2e-6 below a box's face, 1.3e-4 off its edge, is not along
             * the face's axis but 14 mrad from it: the distance matches the
             * axis's to second order, the tilt is first order.) */
            const vw along = w3_dot(v, o->n);
            const vw3 perp = w3_madd(o->n, w_neg(along), v);
            const vw tilt = vw_min(tol_in, vw_mul(vw_splat(LANE_AXIS_SIN), d));
            const vwm by_axis = vw_and(vw_cmpge(tol_cert, vw_sub(d, o->best)), vw_cmpge(vw_mul(tilt, tilt), w3_dot(perp, perp)));
            /* Neither closer than MINK_DOUBLE_NEAR_REL S, where the per-pair
             * query answers in double: float's rounding of c (1e-7 S) tilts
             * q - p by that over the distance (3-8 mrad seen: a 0.4 mm
             * capsule 9e-5 from a 2 m box), and can line it up with an axis
             * that is not the normal (a capsule's side 2.5 mrad from its
             * normal, 1.7 mm from a 905 m slab's edge 316 m out; scene seed
             * 1004). Those lanes are the per-pair query's. */
            const vwm far = vw_cmpge(d, o->near);
            const vwm open = vw_andnot(vw_and(active, far), touch);
            on_axis = vw_or(on_axis, vw_and(open, vw_andnot(by_axis, by_gap)));
            near = vw_or(near, vw_andnot(vw_andnot(active, touch), far));
            active = vw_and(open, w_not(vw_or(by_gap, by_axis)));
            if (vw_none(active) || round == LANE_MAX_ROUNDS) break;
            p = w3_select(active, pn, p);
            q = w3_select(active, qn, q);
        }
        const vw3 v = w3_sub(q, p);
        vw3 v_s;
        vw d_s;
        const vw d = w3_length(v, &v_s, &d_s);
        /* touching (no direction in v) or answered on the axis: the best axis
         * is the normal and q is put on it */
        const vwm axis = vw_or(on_axis, w_not(vw_cmpgt(d, tiny)));
        const vw3 n = w3_select(axis, o->n, w3_scale(v_s, vw_div(one, vw_select(axis, one, d_s))));
        ans->n = w3_select(separated, n, ans->n);
        ans->dc = vw_select(separated, d, ans->dc);
        ans->pa = w3_select(separated, p, ans->pa);
        ans->pb = w3_select(separated, w3_select(axis, w3_madd(o->n, d, p), q), ans->pb);
        ans->undecided = vw_or(ans->undecided, vw_or(active, near));
    }
}

void mink_lane_box_penetration(const lane_in *in, size_t lanes, lane_out *out)
{
    for (size_t base = 0; base < lanes; base += MINK_W_LANES) {
        box_lanes o;
        box_answer a;
        box_load(in, base, &o);
        box_sat(&o);
        box_solve(&o, &a);
        store_answer(in, base, &o.f, a.dc, a.n, a.pa, a.pb, a.undecided, out);
    }
}

void mink_lane_box_intersect(const lane_in *in, size_t lanes, lane_hits *out)
{
    for (size_t base = 0; base < lanes; base += MINK_W_LANES) {
        box_lanes o;
        box_load(in, base, &o);
        box_sat(&o);
        /* The test is exact on the cores: overlap when no axis separates
         * them; separated when one separates them by more than the radii. */
        const vw margin = vw_add(row(in, LI_RA, base), row(in, LI_RB, base));
        const vwm hit = w_not(vw_cmpgt(o.best, w_zero()));
        const vwm miss = vw_cmpgt(o.best, margin);
        vw answer = vw_select(hit, vw_splat(1.0f), vw_select(miss, w_zero(), vw_splat(LANE_UNDECIDED)));
        const vwm open = vw_andnot(o.f.valid, vw_or(hit, miss));
        if (!vw_none(open)) {
            /* Rounded boxes whose cores are closer than the radii on every
             * axis: the core distance decides. */
            box_answer a;
            box_solve(&o, &a);
            const vw decided = vw_select(vw_cmpgt(a.dc, margin), w_zero(), vw_splat(1.0f));
            answer = vw_select(open, vw_select(a.undecided, vw_splat(LANE_UNDECIDED), decided), answer);
        }
        store_hits(&o.f, answer, &out->f[base]);
    }
}
