/* Core features for contact manifolds: boxes analytically, hulls from their
 * topology (hull.h). Face f of a box is axis f / 2, outward along + when
 * f is odd; corner ids are the zyx sign bits (bit set: +half). */
#include "core_features.h"

#include <string.h>

uint32_t mink_core_box_arc(uint32_t axis, uint32_t v0)
{
    for (uint32_t i = 0; i < 12; ++i)
        if (core_box_edge[i][0] == v0 && core_box_edge[i][1] == (v0 | 1u << axis)) return i;
    return 0;
}

int mink_core_view_init(core_view *v, const mink_shape *s)
{
    memset(v, 0, sizeof *v);
    v->s = s;
    switch (s->type) {
    case MINK_SHAPE_SPHERE: v->kind = CORE_POINT; return 1;
    case MINK_SHAPE_CAPSULE:
        v->kind = CORE_SEGMENT;
        v->ends[1] = 1;
        return 1;
    case MINK_SHAPE_BOX: {
        /* a box with no extent along two or three axes is a segment or a
         * point: its faces have no area to hold contacts */
        uint32_t axis = 0, flat = 0;
        for (uint32_t k = 0; k < 3; ++k) {
            if (s->half[k] == 0.0f) flat++;
            else axis = k;
        }
        v->kind = flat == 3 ? CORE_POINT : flat == 2 ? CORE_SEGMENT : CORE_POLY;
        v->ends[1] = flat == 2 ? 1u << axis : 0; /* corners 0 and the one across the axis */
        return 1;
    }
    case MINK_SHAPE_HULL: break;
    default: return 0;
    }
    const hull_topology *t = s->topology;
    if (!t || t->point_count != s->count) return 0;
    v->t = t;
    v->ends[0] = t->ends[0];
    v->ends[1] = t->ends[1];
    v->kind = t->kind == HULL_POINT ? CORE_POINT : t->kind == HULL_SEGMENT ? CORE_SEGMENT : CORE_POLY;
    return 1;
}







uint32_t mink_core_point_faces(const core_view *v, uint32_t id, uint32_t *faces, uint32_t cap)
{
    if (v->kind != CORE_POLY) return 0;
    if (!v->t) {
        uint32_t n = 0;
        for (uint32_t axis = 0; axis < 3 && n < cap; ++axis) faces[n++] = 2 * axis + ((id >> axis) & 1u);
        return n;
    }
    if (id >= v->t->point_count) return 0;
    const uint32_t *first = hull_point_first(v->t), *list = hull_point_face(v->t);
    uint32_t n = 0;
    for (uint32_t k = first[id]; k < first[id + 1] && n < cap; ++k) faces[n++] = list[k];
    return n;
}

uint32_t mink_core_arc_count(const core_view *v)
{
    if (v->kind != CORE_POLY) return 0;
    return v->t ? v->t->arc_count : 12;
}

void mink_core_arc(const core_view *v, uint32_t arc, v3 *n0, v3 *n1, v3 *e, v3 *o, uint32_t ids[2])
{
    if (!v->t) {
        const uint8_t *k = core_box_edge[arc];
        *n0 = core_box_normal(k[2]);
        *n1 = core_box_normal(k[3]);
        *e = v3_cross(*n0, *n1);
        *o = core_box_corner(v->s, k[0]);
        ids[0] = k[0];
        ids[1] = k[1];
        return;
    }
    const hull_topology *t = v->t;
    *n0 = v3_make(hull_arc(t, 0)[arc], hull_arc(t, 1)[arc], hull_arc(t, 2)[arc]);
    *n1 = v3_make(hull_arc(t, 3)[arc], hull_arc(t, 4)[arc], hull_arc(t, 5)[arc]);
    *e = v3_make(hull_arc(t, 6)[arc], hull_arc(t, 7)[arc], hull_arc(t, 8)[arc]);
    *o = v3_make(hull_arc(t, 9)[arc], hull_arc(t, 10)[arc], hull_arc(t, 11)[arc]);
    ids[0] = hull_arc_point(t, 0)[arc];
    ids[1] = hull_arc_point(t, 1)[arc];
}

void mink_core_soa(const core_view *v, float *box_store, soa_points *points, soa_planes *planes, soa_arcs *arcs)
{
    const mink_shape *s = v->s;
    if (v->t) {
        const hull_topology *t = v->t;
        *points = (soa_points){s->x, s->y, s->z, s->count, s->padded};
        *planes = (soa_planes){hull_plane(t, 0), hull_plane(t, 1), hull_plane(t, 2), hull_plane(t, 3), t->face_count,
                               t->face_padded};
        arcs->count = t->arc_count;
        arcs->padded = t->arc_padded;
        for (unsigned k = 0; k < 12; ++k) arcs->f[k] = hull_arc(t, k);
        return;
    }
    /* a box: 8 corners, 6 planes, 12 arcs, each array one pad long */
    enum { P = MINK_HULL_PAD };
    float *x = box_store, *y = x + P, *z = y + P, *f = z + P;
    float *nx = f, *ny = nx + P, *nz = ny + P, *d = nz + P, *arc = d + P;
    for (uint32_t i = 0; i < P; ++i) {
        const v3 c = core_box_corner(s, i < 8 ? i : 0);
        x[i] = c.x, y[i] = c.y, z[i] = c.z;
        const uint32_t face = i < 6 ? i : 0;
        const v3 n = core_box_normal(face);
        nx[i] = n.x, ny[i] = n.y, nz[i] = n.z, d[i] = s->half[face >> 1];
    }
    memset(arc, 0, 12 * P * sizeof(float));
    for (uint32_t i = 0; i < 12; ++i) {
        v3 w[4];
        uint32_t ids[2];
        mink_core_arc(v, i, &w[0], &w[1], &w[2], &w[3], ids);
        for (unsigned k = 0; k < 4; ++k) {
            arc[(3 * k + 0) * P + i] = w[k].x;
            arc[(3 * k + 1) * P + i] = w[k].y;
            arc[(3 * k + 2) * P + i] = w[k].z;
        }
    }
    *points = (soa_points){x, y, z, 8, P};
    *planes = (soa_planes){nx, ny, nz, d, 6, P};
    arcs->count = 12;
    arcs->padded = P;
    for (unsigned k = 0; k < 12; ++k) arcs->f[k] = arc + k * P;
}

/* R v for the rows of R. */
static v3 rotate(const v3 rows[3], v3 v) { return v3_make(v3_dot(rows[0], v), v3_dot(rows[1], v), v3_dot(rows[2], v)); }

void mink_core_soa_moved(const soa_points *p, const soa_planes *f, const soa_arcs *a, const v3 rows[3], v3 t,
                         float *store, soa_points *po, soa_planes *fo, soa_arcs *ao)
{
    float *x = store, *y = x + p->padded, *z = y + p->padded;
    for (uint32_t i = 0; i < p->padded; ++i) {
        const v3 q = v3_add(rotate(rows, v3_make(p->x[i], p->y[i], p->z[i])), t);
        x[i] = q.x, y[i] = q.y, z[i] = q.z;
    }
    *po = (soa_points){x, y, z, p->count, p->padded};
    float *nx = z + p->padded, *ny = nx + f->padded, *nz = ny + f->padded, *d = nz + f->padded;
    for (uint32_t i = 0; i < f->padded; ++i) {
        const v3 n = rotate(rows, v3_make(f->nx[i], f->ny[i], f->nz[i]));
        nx[i] = n.x, ny[i] = n.y, nz[i] = n.z;
        d[i] = f->d[i] + v3_dot(n, t);
    }
    *fo = (soa_planes){nx, ny, nz, d, f->count, f->padded};
    float *arc = d + f->padded;
    const uint32_t pa = a->padded;
    for (uint32_t i = 0; i < pa; ++i) {
        for (unsigned k = 0; k < 4; ++k) {
            v3 w = rotate(rows, v3_make(a->f[3 * k][i], a->f[3 * k + 1][i], a->f[3 * k + 2][i]));
            if (k == 3 && i < a->count) w = v3_add(w, t); /* the padding stays zero */
            arc[(3 * k + 0) * pa + i] = w.x;
            arc[(3 * k + 1) * pa + i] = w.y;
            arc[(3 * k + 2) * pa + i] = w.z;
        }
    }
    ao->count = a->count;
    ao->padded = pa;
    for (unsigned k = 0; k < 12; ++k) ao->f[k] = arc + k * pa;
}
