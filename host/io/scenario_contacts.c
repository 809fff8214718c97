/* scenario_contacts.c: the scenario's contact sets (in: their YAML nodes, the model's frames;
 * out: each set's points (rings, grids, meshes), surface, normal and friction laws, checked). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field.h" /* br_set_frame_build */
#include "io/mesh.h"
#include "io/scenario_internal.h"
#include "model/laws.h"
#include "model/rigid.h"

/* gms elements: a list of {stiffness, damping, share} -> p->gms_M, gms_k, gms_s, gms_alpha (their
 * values are checked with the other parameters by br_law_check) */
static void read_gms_elements(ysrc *c, ynode *n, br_friction_params *p)
{
    static const char *const KE[] = {"stiffness", "damping", "share", NULL};
    p->gms_C = br_ynum(c, n, "C", 1, 0);
    ynode *seq = br_ymap(c, n, "elements");
    const int M = br_ylen(c, seq, "elements");
    if (c->failed) return;
    br_ycheck(c, M >= 1 && M <= BR_GMS_MAX, seq, "gms needs 1 to %d elements (got %d)", BR_GMS_MAX, M);
    if (c->failed) return;
    p->gms_M = M;
    for (int i = 0; i < M && !c->failed; i++) {
        ynode *e = br_yitem(c, seq, i);
        if (br_ykeys(c, e, "a gms element", KE)) return;
        p->gms_k[i] = br_ynum(c, e, "stiffness", 1, 0);
        p->gms_s[i] = br_ynum(c, e, "damping", 0, 0);
        p->gms_alpha[i] = br_ynum(c, e, "share", 1, 0);
    }
}

static void read_friction(ysrc *c, ynode *n, br_contact_set_desc *d)
{
    const char *law = br_ystring(c, n, "law", 1);
    if (c->failed) return;
    d->law = br_law_from_name(law);
    if (d->law < 0) {
        char list[200] = "";
        for (int k = 0; k < BR_LAW_COUNT; k++) {
            strcat(list, br_law_name(k));
            if (k + 1 < BR_LAW_COUNT) strcat(list, ", ");
        }
        br_yerr(c, br_yat(c, n, "law"), "unknown friction law '%s' (known: %s)", law, list);
        return;
    }
    const br_law_info *li = br_law_info_of(d->law);
    const char *allowed[BR_LAW_MAX_REQ + BR_LAW_MAX_OPT + 2];
    int na = 0;
    allowed[na++] = "law";
    for (int k = 0; li->req[k]; k++) allowed[na++] = li->req[k];
    for (int k = 0; li->opt[k]; k++) allowed[na++] = li->opt[k];
    allowed[na] = NULL;
    char what[64];
    snprintf(what, sizeof what, "friction (law %s)", law);
    if (br_ykeys(c, n, what, allowed)) return;
    br_friction_params *p = &d->fric;
    p->mu_s = br_ynum(c, n, "mu_s", 0, 0);
    p->mu_k = br_ynum(c, n, "mu_k", 0, 0);
    /* with mu_s = mu_k the Stribeck curve is flat: V_st and alpha change nothing and are not demanded */
    const int flat = br_ymap(c, n, "mu_s") && br_ymap(c, n, "mu_k") && p->mu_s == p->mu_k;
    for (int k = 0; li->req[k]; k++)
        if (!br_ymap(c, n, li->req[k]) && !(flat && (!strcmp(li->req[k], "V_st") || !strcmp(li->req[k], "alpha")))) {
            br_yerr(c, n, "missing friction parameter '%s' (law %s needs it)", li->req[k], law);
            return;
        }
    p->V_st = br_ynum(c, n, "V_st", 0, 1);
    p->alpha = br_ynum(c, n, "alpha", 0, 2);
    p->sigma0 = br_ynum(c, n, "sigma0", 0, 0);
    p->sigma1 = br_ynum(c, n, "sigma1", 0, 0);
    p->sigma2 = br_ynum(c, n, "sigma2", 0, 0);
    p->eps = br_ynum(c, n, "eps", 0, 0);
    p->f_v = br_ynum(c, n, "f_v", 0, 0);
    p->v_r = br_ynum(c, n, "v_r", 0, 0);
    p->nu = br_ynum(c, n, "nu", 0, 0);
    p->G_min = br_ynum(c, n, "G_min", 0, 1e-12);
    p->kt = br_ynum(c, n, "kt", 0, 0);
    p->c_t = br_ynum(c, n, "c_t", 0, 0);
    if (d->law == BR_LAW_JENKINS) {
        p->mu_s = p->mu_k = br_ynum(c, n, "mu", 0, 0);
        br_ycheck(c, !br_ymap(c, n, "kt") != !br_ymap(c, n, "kt_area"), n,
               "give exactly one of 'kt' (per point, N/m) and 'kt_area' (per unit area, N/m^3)");
        /* kt_area: provisional; the caller scales it by each point's area over its stiffness */
        p->kt_K = br_ynum(c, n, "kt_area", 0, 0);
    }
    const char *up = br_ystring(c, n, "update", 0);
    br_ycheck(c, !up || !strcmp(up, "exponential") || !strcmp(up, "euler"), br_yat(c, n, "update"),
           "update must be exponential or euler");
    p->update = up && !strcmp(up, "euler") ? BR_UPDATE_EULER : BR_UPDATE_EXP;
    if (d->law == BR_LAW_DAHL3D) p->mu_s = p->mu_k;
    if (d->law == BR_LAW_GMS) read_gms_elements(c, n, p);
    if (c->failed) return;
    br_law_issue is;
    if (br_law_check(d->law, p, &is)) {
        ynode *at = br_yat(c, n, is.key);
        if (is.item >= 0) at = br_yat(c, br_yitem(c, br_ymap(c, n, "elements"), is.item), is.item_key);
        br_yerr(c, at ? at : n, "%s", is.msg);
    }
}

/* jenkins with kt_area (held in fric.kt_K): each point's spring is kt_area times its area; the
 * field takes it as kt_K K_i, so the areas must be proportional to the normal stiffnesses K_i
 * (always with the normal law's sigma; with K per point, for equal areas) */
static void jenkins_kt_area(ysrc *c, ynode *at, br_cset *cs)
{
    const long np = cs->desc.npoints;
    const double r0 = cs->area[0] / cs->K[0];
    for (long i = 1; i < np; i++)
        if (!(fabs(cs->area[i] / cs->K[i] - r0) <= 1e-12 * r0)) {
            br_yerr(c, at, "kt_area needs each point's normal stiffness in proportion to its area "
                        "(give the normal law's sigma, or kt per point)");
            return;
        }
    cs->desc.fric.kt_K *= r0;
}

/* ring/grid/annulus/list -> cs->r (3n, frame A) and, for grid and annulus, the tributary
 * area of each point in cs->area (NULL for ring and list) */
/* mesh: {file, units, position, orientation, sampling, spacing} -> cs->r, cs->area in frame A;
 * the file path is relative to the scenario's folder */
static void read_mesh_points(ysrc *c, ynode *g, br_cset *cs)
{
    static const char *const KM[] = {"file", "units", "position", "orientation", "sampling", "spacing", NULL};
    if (br_ykeys(c, g, "mesh", KM)) return;
    const char *file = br_ystring(c, g, "file", 1);
    if (c->failed) return;
    char path[1024];
    br_ypath(c, file, path, sizeof path);
    const double scale = br_ynum(c, g, "units", 0, 1.0);
    br_ycheck(c, scale > 0, br_yat(c, g, "units"), "units (metres per file unit) must be > 0");
    static const double z3[3] = {0, 0, 0};
    double t[3], q[4], R[9];
    br_yvec(c, g, "position", 3, 0, z3, t);
    br_yorientation(c, g, q);
    const char *smp = br_ystring(c, g, "sampling", 0);
    br_ycheck(c, !smp || !strcmp(smp, "vertices") || !strcmp(smp, "spacing"), br_yat(c, g, "sampling"),
           "sampling must be vertices or spacing");
    const int spacing = smp && !strcmp(smp, "spacing");
    const double h = spacing ? br_ynum(c, g, "spacing", 1, 0) : 0.0;
    br_ycheck(c, !spacing || h > 0, br_yat(c, g, "spacing"), "spacing must be > 0");
    br_ycheck(c, spacing || !br_ymap(c, g, "spacing"), br_yat(c, g, "spacing"), "spacing needs sampling: spacing");
    if (c->failed) return;
    br_quat_to_R(q, R);
    char merr[1200];
    br_mesh *mesh = br_mesh_load(path, scale, R, t, merr, sizeof merr);
    if (!mesh) {
        br_yerr(c, br_yat(c, g, "file"), "%s", merr);
        return;
    }
    br_yguard(c, spacing ? br_yat(c, g, "spacing") : g, spacing ? br_mesh_count_spacing(mesh, h) : (double)mesh->nv, 0);
    if (c->failed) {
        br_mesh_free(mesh);
        return;
    }
    const long np = spacing ? br_mesh_sample_spacing(mesh, h, &cs->r, &cs->area)
                            : br_mesh_sample_vertices(mesh, &cs->r, &cs->area);
    br_ycheck(c, np != -1, g, "%s: out of memory sampling the mesh", path);
    br_ycheck(c, np > 0, g, "%s: sampling gave no points", path);
    cs->desc.npoints = np > 0 ? np : 0;
    br_mesh_normal(mesh, cs->mesh_normal);
    if (np > 0) {
        cs->surf_cells = spacing;
        cs->nsurf_t = spacing ? br_mesh_surface_spacing(mesh, h, &cs->surf_v, &cs->nsurf_v, &cs->surf_t)
                              : br_mesh_surface_vertices(mesh, &cs->surf_t);
        br_ycheck(c, cs->nsurf_t >= 0, g, "%s: out of memory triangulating the sampled mesh", path);
    }
    cs->meshed = 1;
    br_mesh_free(mesh);
}

static void read_points(ysrc *c, ynode *n, br_cset *cs)
{
    static const char *const K[] = {"ring", "grid", "annulus", "list", "mesh", NULL};
    if (br_ykeys(c, n, "points", K)) return;
    if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1) {
        br_yerr(c, n, "points: give exactly one of ring, grid, annulus, list, mesh");
        return;
    }
    if (br_ymap(c, n, "mesh")) {
        read_mesh_points(c, br_ymap(c, n, "mesh"), cs);
        return;
    }
    static const double ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0};
    ynode *g;
    long np = 0;
    if ((g = br_ymap(c, n, "list"))) {
        np = br_ylen(c, g, "list");
        br_ycheck(c, np > 0, g, "list has no points");
        br_yguard(c, g, (double)np, 0);
        if (c->failed) return;
        cs->r = malloc((size_t)np * 3 * sizeof(double));
        br_yalloc(c, g, cs->r);
        for (long i = 0; i < np && !c->failed; i++) {
            ynode *it = br_yitem(c, g, (int)i);
            if (br_ylen(c, it, "a point") != 3) {
                br_yerr(c, it, "points are [x, y, z]");
                return;
            }
            for (int j = 0; j < 3; j++) cs->r[3 * i + j] = br_ynum_node(c, br_yitem(c, it, j), "point");
        }
    } else {
        const int ring = (g = br_ymap(c, n, "ring")) != NULL, annulus = !ring && br_ymap(c, n, "annulus");
        if (!ring) g = annulus ? br_ymap(c, n, "annulus") : br_ymap(c, n, "grid");
        static const char *const KR[] = {"center", "radius", "count", "normal", "start", NULL};
        static const char *const KG[] = {"center", "size", "count", "normal", "start", NULL};
        static const char *const KA[] = {"center", "r_in", "r_out", "count", "normal", "start", NULL};
        if (br_ykeys(c, g, ring ? "ring" : annulus ? "annulus" : "grid", ring ? KR : annulus ? KA : KG)) return;
        double ctr[3] = {0, 0, 0}, nz[3] = {0, 0, 1}, u[3] = {1, 0, 0}, v[3];
        br_yvec(c, g, "center", 3, 1, NULL, ctr);
        br_yunit(c, g, "normal", ez, nz);
        br_yunit(c, g, "start", ex, u);
        if (c->failed) return;
        br_ycheck(c, fabs(u[0] * nz[0] + u[1] * nz[1] + u[2] * nz[2]) < 1e-9, br_yat(c, g, "start"),
               "start must be perpendicular to normal");
        br_cross3(nz, u, v);
        if (annulus) {
            /* count: [radial, around]; point k of ring j at the area centroid radius of its sector,
             * (2/3)(r1^3 - r0^3)/(r1^2 - r0^2), so sum A_i r_i is the exact integral of r dA */
            const double r0 = br_ynum(c, g, "r_in", 1, 0), r1 = br_ynum(c, g, "r_out", 1, 0);
            double cnt[2] = {0, 0};
            br_yvec(c, g, "count", 2, 1, NULL, cnt);
            br_ycheck(c, r0 >= 0 && r1 > r0, g, "annulus needs 0 <= r_in < r_out");
            br_ycheck(c, cnt[0] >= 1 && cnt[1] >= 1 && cnt[0] == floor(cnt[0]) && cnt[1] == floor(cnt[1]) &&
                          cnt[0] * cnt[1] < 1e9,
                   br_yat(c, g, "count"), "count must be two positive whole numbers [radial, around]");
            if (c->failed) return;
            br_yguard(c, br_yat(c, g, "count"), cnt[0] * cnt[1], 0);
            if (c->failed) return;
            const long nr = (long)cnt[0], nt = (long)cnt[1];
            np = nr * nt;
            cs->r = malloc((size_t)np * 3 * sizeof(double));
            cs->area = malloc((size_t)np * sizeof(double));
            br_yalloc(c, g, cs->r), br_yalloc(c, g, cs->area);
            if (c->failed) return;
            const double dth = 6.283185307179586 / (double)nt;
            for (long a = 0; a < nr; a++) {
                const double ra = r0 + (r1 - r0) * (double)a / (double)nr, rb = r0 + (r1 - r0) * (double)(a + 1) / (double)nr;
                const double rc = (2.0 / 3.0) * (rb * rb * rb - ra * ra * ra) / (rb * rb - ra * ra);
                for (long b = 0; b < nt; b++) {
                    const double ph = dth * ((double)b + 0.5);
                    for (int j = 0; j < 3; j++) cs->r[3 * (a * nt + b) + j] = ctr[j] + rc * (cos(ph) * u[j] + sin(ph) * v[j]);
                    cs->area[a * nt + b] = 0.5 * dth * (rb * rb - ra * ra);
                }
            }
        } else if (ring) {
            const double R = br_ynum(c, g, "radius", 1, 0);
            const double cnt = br_ynum(c, g, "count", 1, 0);
            br_ycheck(c, R > 0, br_yat(c, g, "radius"), "radius must be > 0");
            br_ycheck(c, cnt >= 1 && cnt == floor(cnt) && cnt < 1e9, br_yat(c, g, "count"),
                   "count must be a positive whole number");
            br_yguard(c, br_yat(c, g, "count"), cnt, 0);
            if (c->failed) return;
            np = (long)cnt;
            cs->r = malloc((size_t)np * 3 * sizeof(double));
            br_yalloc(c, g, cs->r);
            if (c->failed) return;
            for (long i = 0; i < np; i++) {
                const double ph = 6.283185307179586 * (double)i / (double)np;
                for (int j = 0; j < 3; j++) cs->r[3 * i + j] = ctr[j] + R * (cos(ph) * u[j] + sin(ph) * v[j]);
            }
        } else {
            double sz[2] = {0, 0}, cnt[2] = {0, 0};
            br_yvec(c, g, "size", 2, 1, NULL, sz);
            br_yvec(c, g, "count", 2, 1, NULL, cnt);
            br_ycheck(c, sz[0] > 0 && sz[1] > 0, br_yat(c, g, "size"), "size must be > 0");
            br_ycheck(c, cnt[0] >= 1 && cnt[1] >= 1 && cnt[0] == floor(cnt[0]) && cnt[1] == floor(cnt[1]) &&
                          cnt[0] * cnt[1] < 1e9,
                   br_yat(c, g, "count"), "count must be two positive whole numbers");
            br_yguard(c, br_yat(c, g, "count"), cnt[0] * cnt[1], 0);
            if (c->failed) return;
            const long nu = (long)cnt[0], nv = (long)cnt[1];
            np = nu * nv;
            cs->r = malloc((size_t)np * 3 * sizeof(double));
            cs->area = malloc((size_t)np * sizeof(double));
            br_yalloc(c, g, cs->r), br_yalloc(c, g, cs->area);
            if (c->failed) return;
            for (long a = 0; a < nu; a++)
                for (long b = 0; b < nv; b++) {
                    const double su = sz[0] * ((a + 0.5) / nu - 0.5), sv = sz[1] * ((b + 0.5) / nv - 0.5);
                    for (int j = 0; j < 3; j++) cs->r[3 * (a * nv + b) + j] = ctr[j] + su * u[j] + sv * v[j];
                }
            for (long i = 0; i < np; i++) cs->area[i] = sz[0] * sz[1] / (double)np;
        }
    }
    cs->desc.npoints = np;
}

/* model, frame index -> the frame's pose at t = 0 (zero twist) */
static void initial_frame(const br_model *m, int fr, br_frame_state *out)
{
    static const double q1[4] = {1, 0, 0, 0};
    const double *x = NULL, *q = q1;
    if (fr >= 1 && fr <= m->nbody) x = m->body[fr - 1].x0, q = m->body[fr - 1].q0;
    else if (fr > m->nbody) x = m->kframe[fr - 1 - m->nbody].x0, q = m->kframe[fr - 1 - m->nbody].q0;
    memset(out, 0, sizeof *out);
    if (x) memcpy(out->x, x, sizeof out->x);
    br_quat_to_R(q, out->R);
}

void br_read_contacts(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "body", "surface", "points", "area", "total_area",
                                    "normal", "friction", "v_stick", "interface", NULL};
    static const char *const KS[] = {"type", "frame", "point", "normal", "center", "axis", "radius", NULL};
    static const char *const KN[] = {"law", "sigma", "K", "pK", "D", "d_area", "pD", "force", NULL};
    m->nset = seq ? br_ylen(c, seq, "contacts") : 0;
    m->cset = calloc((size_t)(m->nset ? m->nset : 1), sizeof *m->cset);
    br_yalloc(c, seq, m->cset);
    if (!m->cset) m->nset = 0;
    if (c->failed) return;
    for (int s = 0; s < m->nset && !c->failed; s++) {
        ynode *n = br_yitem(c, seq, s);
        br_cset *cs = &m->cset[s];
        br_contact_set_desc *d = &cs->desc;
        if (br_ykeys(c, n, "a contact set", K)) return;
        br_yname(c, n, cs->name, "contact set");
        for (int j = 0; j < s; j++)
            br_ycheck(c, strcmp(m->cset[j].name, cs->name) != 0, br_yat(c, n, "name"),
                   "duplicate contact set name '%s'", cs->name);
        d->name = cs->name;
        ynode *itf = br_ymap(c, n, "interface");
        if (itf) { /* a deforming interface: its points are its pairs' */
            br_ycheck(c, !br_ymap(c, n, "body") && !br_ymap(c, n, "surface") && !br_ymap(c, n, "points"), n,
                      "an interface set has no body, surface or points (its pairs of nodes are its points)");
            if (c->failed) return;
            br_read_interface(c, itf, m, cs);
            if (c->failed) return;
        } else {
            const char *body = br_ystring(c, n, "body", 1);
            d->frame_a = br_yframe(c, m, br_yat(c, n, "body"), body);
            ynode *sf = br_ymap(c, n, "surface");
            if (!sf) {
                br_yerr(c, n, "missing key 'surface'");
                return;
            }
            if (br_ykeys(c, sf, "surface", KS)) return;
            const char *type = br_ystring(c, sf, "type", 1);
            if (c->failed) return;
            d->surface = !strcmp(type, "sphere") ? BR_SURF_SPHERE : !strcmp(type, "cylinder") ? BR_SURF_CYLINDER : 0;
            br_ycheck(c, !strcmp(type, "plane") || d->surface != BR_SURF_PLANE, br_yat(c, sf, "type"),
                   "surface type '%s' is not supported (plane, sphere, cylinder)", type);
            const char *fr = br_ystring(c, sf, "frame", 0);
            d->frame_b = fr ? br_yframe(c, m, br_yat(c, sf, "frame"), fr) : 0;
            br_ycheck(c, d->frame_a != d->frame_b, sf, "points and surface are on the same frame");
            static const double z3[3] = {0, 0, 0}, ez[3] = {0, 0, 1};
            if (d->surface == BR_SURF_PLANE) {
                static const char *const KP[] = {"type", "frame", "point", "normal", NULL};
                if (br_ykeys(c, sf, "a plane surface", KP)) return;
                br_yvec(c, sf, "point", 3, 0, z3, d->plane_p);
                br_yunit(c, sf, "normal", NULL, d->plane_n);
            } else {
                /* sphere: centre and radius; cylinder: a point of the axis, the axis, the radius */
                static const char *const KSp[] = {"type", "frame", "center", "radius", NULL};
                static const char *const KCy[] = {"type", "frame", "center", "axis", "radius", NULL};
                const int sph = d->surface == BR_SURF_SPHERE;
                if (br_ykeys(c, sf, sph ? "a sphere surface" : "a cylinder surface", sph ? KSp : KCy)) return;
                br_yvec(c, sf, "center", 3, 1, NULL, d->plane_p);
                if (sph) memcpy(d->plane_n, ez, sizeof ez);
                else br_yunit(c, sf, "axis", NULL, d->plane_n);
                d->radius = br_ynum(c, sf, "radius", 1, 0);
                br_ycheck(c, d->radius > 0, br_yat(c, sf, "radius"), "radius must be > 0 (got %g)", d->radius);
            }
            if (!br_ymap(c, n, "points")) br_yerr(c, n, "missing key 'points' in contact set '%s'", cs->name);
            read_points(c, br_ymap(c, n, "points"), cs);
            if (c->failed) return;
            if (cs->meshed) {
                /* the meshed face must face the counter surface at t = 0: its mean outward normal
                 * against the surface normal at the face's centroid (br_kin, as the field sees it) */
                br_frame_state A, B;
                initial_frame(m, d->frame_a, &A);
                initial_frame(m, d->frame_b, &B);
                double rc[3] = {0, 0, 0}, na[3];
                for (long i = 0; i < d->npoints; i++)
                    for (int j = 0; j < 3; j++) rc[j] += cs->r[3 * i + j] / (double)d->npoints;
                br_set_frame sf;
                br_point_kin k;
                br_set_frame_build(d, &A, &B, &sf);
                br_kin(sf.surface, &sf, rc, &k);
                br_mat3_vec(A.R, cs->mesh_normal, na);
                const double cosang = br_dot3(na, k.n);
                br_ycheck(c, cosang < 0, br_yat(c, br_ymap(c, n, "points"), "mesh"),
                       "the meshed face points away from the surface (its triangles' normals, averaged, make "
                       "%.3g deg with the surface normal; they must face it)",
                       acos(fmax(-1, fmin(1, -cosang))) * 180 / M_PI);
                if (c->failed) return;
            }
        }
        static const char *const need[] = {"normal", "friction"};
        for (int k = 0; k < 2; k++)
            if (!br_ymap(c, n, need[k])) br_yerr(c, n, "missing key '%s' in contact set '%s'", need[k], cs->name);
        if (c->failed) return;
        const long np = d->npoints;
        cs->K = malloc((size_t)np * sizeof(double));
        cs->D = malloc((size_t)np * sizeof(double));
        br_yalloc(c, n, cs->K), br_yalloc(c, n, cs->D);
        if (c->failed) return;
        /* areas: `area` for every point, or `total_area` shared in proportion to the generator's
         * own areas (grid, annulus) or equally (ring, list) */
        ynode *nl = br_ymap(c, n, "normal");
        if (br_ykeys(c, nl, "normal", KN)) return;
        const char *nlaw = br_ystring(c, nl, "law", 0);
        cs->prescribed = nlaw && !strcmp(nlaw, "prescribed");
        br_ycheck(c, !nlaw || !strcmp(nlaw, "hunt_crossley") || cs->prescribed, br_yat(c, nl, "law"),
               "normal law '%s' is not supported (hunt_crossley, prescribed)", nlaw ? nlaw : "");
        br_ycheck(c, !(itf && cs->prescribed), br_yat(c, nl, "law"), "an interface takes its normal forces from its gaps "
                  "(hunt_crossley), not prescribed");
        if (cs->prescribed) {
            /* prescribed total normal force, shared equally: no areas, no normal spring */
            static const char *const KNP[] = {"law", "force", NULL};
            if (br_ykeys(c, nl, "a prescribed normal force", KNP)) return;
            ynode *fn = br_ymap(c, nl, "force");
            if (!fn) br_yerr(c, nl, "missing key 'force' (the prescribed normal force, N)");
            else br_ytimefn(c, fn, "force", &cs->normal_force);
            br_ycheck(c, !br_ymap(c, n, "area") && !br_ymap(c, n, "total_area"), n,
                   "a set with a prescribed normal force takes no contact areas");
            if (c->failed) return;
            cs->area = cs->area ? cs->area : malloc((size_t)np * sizeof(double));
            br_yalloc(c, n, cs->area);
            if (c->failed) return;
            for (long i = 0; i < np; i++) cs->K[i] = 0.0, cs->D[i] = 0.0, cs->area[i] = 0.0;
            d->normal.pK = 2.0, d->normal.pD = 0.5;
            d->r = cs->r, d->K = cs->K, d->D = cs->D;
            read_friction(c, br_ymap(c, n, "friction"), d);
            br_ycheck(c, !br_ymap(c, br_ymap(c, n, "friction"), "kt_area"), br_yat(c, br_ymap(c, n, "friction"), "kt_area"),
                   "kt_area needs contact areas (a hunt_crossley normal law); give kt per point");
            d->v_stick = br_ynum(c, n, "v_stick", 0, 1e-6);
            br_ycheck(c, d->v_stick >= 0, br_yat(c, n, "v_stick"), "v_stick must be >= 0");
            continue;
        }
        br_ycheck(c, !br_ymap(c, nl, "force"), br_yat(c, nl, "force"), "'force' needs normal law 'prescribed'");
        ynode *an = br_ymap(c, n, "area"), *tn = br_ymap(c, n, "total_area");
        br_ycheck(c, !(an && tn), n, "give at most one of 'area' (per point) and 'total_area'");
        br_ycheck(c, an || tn || cs->area, n, "missing key 'area' (tributary area of each point, m^2)");
        if (c->failed) return;
        const int natural = cs->area != NULL;
        if (!natural) cs->area = malloc((size_t)np * sizeof(double));
        br_yalloc(c, n, cs->area);
        if (c->failed) return;
        double sum = 0.0;
        for (long i = 0; i < np; i++) sum += natural ? cs->area[i] : 1.0;
        const double Ain = an ? br_ynum_node(c, an, "area") : tn ? br_ynum_node(c, tn, "total_area") : sum;
        br_ycheck(c, Ain > 0, an ? an : tn ? tn : n, "contact areas must be > 0 (got %g)", Ain);
        for (long i = 0; i < np; i++)
            cs->area[i] = an ? Ain : Ain * (natural ? cs->area[i] : 1.0) / sum;
        d->normal.pK = br_ynum(c, nl, "pK", 0, 2.0);
        d->normal.pD = br_ynum(c, nl, "pD", 0, 0.5 * (d->normal.pK - 1.0));
        br_ycheck(c, d->normal.pK > 0 && br_pow_half_ok(d->normal.pK), br_yat(c, nl, "pK"),
               "pK must be a multiple of 0.5 in (0, 4]");
        br_ycheck(c, br_pow_half_ok(d->normal.pD), br_yat(c, nl, "pD"), "pD must be a multiple of 0.5 in [0, 4]");
        ynode *sg = br_ymap(c, nl, "sigma"), *kk = br_ymap(c, nl, "K");
        br_ycheck(c, (sg != NULL) != (kk != NULL), nl,
               "give exactly one of 'sigma' (roughness: K = A / sigma^pK) and 'K' (per point)");
        ynode *dd = br_ymap(c, nl, "D"), *da = br_ymap(c, nl, "d_area");
        br_ycheck(c, (dd != NULL) != (da != NULL), nl,
               "give exactly one of 'D' (damping per point) and 'd_area' (per unit area)");
        if (c->failed) return;
        const double sig = sg ? br_ynum_node(c, sg, "sigma") : 0, K0 = kk ? br_ynum_node(c, kk, "K") : 0;
        const double D0 = dd ? br_ynum_node(c, dd, "D") : 0, Da = da ? br_ynum_node(c, da, "d_area") : 0;
        br_ycheck(c, !sg || sig > 0, sg, "sigma must be > 0");
        br_ycheck(c, !kk || K0 > 0, kk, "K must be > 0");
        br_ycheck(c, D0 >= 0 && Da >= 0, dd ? dd : da, "damping must be >= 0");
        for (long i = 0; i < np && !c->failed; i++) {
            cs->K[i] = sg ? cs->area[i] / pow(sig, d->normal.pK) : K0;
            cs->D[i] = dd ? D0 : Da * cs->area[i];
            /* finite and positive each: sigma 1e-300 or an area of 1e308 overflow K */
            br_ycheck(c, isfinite(cs->area[i]) && cs->area[i] > 0, an ? an : tn ? tn : n,
                   "point %ld: its contact area (%g m^2) is not a positive finite number", i, cs->area[i]);
            br_ycheck(c, isfinite(cs->K[i]) && cs->K[i] > 0, sg ? sg : kk,
                   "point %ld: the normal stiffness K = %g is not a positive finite number (area %g m^2%s)", i,
                   cs->K[i], cs->area[i], sg ? "; K = A / sigma^pK" : "");
            br_ycheck(c, isfinite(cs->D[i]), dd ? dd : da, "point %ld: the normal damping D = %g is not finite", i,
                   cs->D[i]);
        }
        d->r = cs->r, d->K = cs->K, d->D = cs->D;
        read_friction(c, br_ymap(c, n, "friction"), d);
        if (!c->failed && d->law == BR_LAW_JENKINS && d->fric.kt_K > 0)
            jenkins_kt_area(c, br_yat(c, br_ymap(c, n, "friction"), "kt_area"), cs);
        d->v_stick = br_ynum(c, n, "v_stick", 0, 1e-6);
        br_ycheck(c, d->v_stick >= 0, br_yat(c, n, "v_stick"), "v_stick must be >= 0");
    }
}

/* ---- --set overrides ---- */
