/* data.c: the run data: made for a model (the field, the structure, the implicit coupling's
 * rows and blocks, every buffer of the step allocated once) and freed. In: the model, a backend;
 * out: br_data ready for its first step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h> /* openblas_set_num_threads */

#include "base/ckpt_io.h"
#include "step/data.h"

/* model, structure (or NULL), desc copies -> with implicit coupling, every set acting on the
 * structure or on a free body asks the field for its wrench tangent; the sets acting on the
 * structure are listed in d->imp_set, the free bodies they act on get a block of the implicit
 * rigid-body system (d->rb_slot) and the sets acting on those in d->rb_set; with substeps, the free
 * bodies springs join to those get a block too (d->rb_spring: stepped explicitly at fixed steps,
 * as before). 0, or -1 */
static int coupling_setup(const br_model *m, br_data *d, br_contact_set_desc *desc)
{
    const int ns = m->nset > 0 ? m->nset : 1, nb = m->nbody > 0 ? m->nbody : 1;
    long nblk = 0; /* blocks of six rows: a rigid set's one, a deforming interface's one per two points */
    for (int s = 0; s < m->nset; s++) nblk += m->cset[s].desc.iface ? (m->cset[s].desc.npoints + 1) / 2 : 1;
    d->imp_set = malloc((size_t)(nblk > 0 ? nblk : 1) * sizeof(int));
    d->rb_set = malloc((size_t)ns * sizeof(int));
    d->rb_slot = malloc((size_t)nb * sizeof(int));
    d->set_imp = malloc((size_t)ns * sizeof(int));
    d->set_rb = calloc((size_t)ns, sizeof(int));
    d->rb_spring = calloc((size_t)nb, sizeof(int));
    d->iface_iu = calloc((size_t)ns, sizeof *d->iface_iu);
    d->iface_ipt = calloc((size_t)ns, sizeof *d->iface_ipt);
    if (!d->imp_set || !d->rb_set || !d->rb_slot || !d->set_imp || !d->set_rb || !d->rb_spring || !d->iface_iu ||
        !d->iface_ipt)
        return -1;
    for (int b = 0; b < m->nbody; b++) d->rb_slot[b] = -1;
    for (int s = 0; s < m->nset; s++) d->set_imp[s] = -1;
    d->theta = d->theta_h = 1.0 - m->rho_inf * m->rho_inf;
    if (m->coupling != BR_COUPLING_IMPLICIT) return 0;
    for (int s = 0; s < m->nset; s++) {
        const int fa = desc[s].frame_a, fb = desc[s].frame_b;
        if (desc[s].iface) { /* on the structure by its rows; its points' slopes are its tangent (no wrench's) */
            d->set_imp[s] = d->nimp;
            for (long b = 0; b < (desc[s].npoints + 1) / 2; b++) d->imp_set[d->nimp++] = s;
            continue;
        }
        const int on_struct = d->st && (br_struct_frame_node(m, d->st, fa) >= 0 || br_struct_frame_node(m, d->st, fb) >= 0);
        const int on_free = frame_free_body(m, fa) || frame_free_body(m, fb);
        if (on_struct) d->set_imp[s] = d->nimp, d->imp_set[d->nimp++] = s;
        if (on_free) {
            d->set_rb[s] = 1;
            d->rb_set[d->nrbset++] = s;
            if (frame_free_body(m, fa) && d->rb_slot[fa - 1] < 0) d->rb_slot[fa - 1] = d->nrb++;
            if (frame_free_body(m, fb) && d->rb_slot[fb - 1] < 0) d->rb_slot[fb - 1] = d->nrb++;
        }
        desc[s].tangent = on_struct || on_free;
    }
    /* under the run's controller the springs on a body of the system act by the gamma rule
     * (rigid_implicit): the free bodies they join to it enter the system too (a spring force at t_n
     * against a trapezoidal position would make energy at first order in the step) */
    for (int grew = m->adaptive && d->nrb > 0; grew;) {
        grew = 0;
        for (int k = 0; k < m->nspring; k++) {
            const int fa = m->spring[k].frame_a, fb = m->spring[k].frame_b;
            if (!frame_free_body(m, fa) || !frame_free_body(m, fb)) continue;
            const int in_a = d->rb_slot[fa - 1] >= 0, in_b = d->rb_slot[fb - 1] >= 0;
            if (in_a == in_b) continue;
            d->rb_slot[(in_a ? fb : fa) - 1] = d->nrb++;
            d->rb_spring[(in_a ? fb : fa) - 1] = 1;
            grew = 1;
        }
    }
    /* group the free bodies coupled through contact sets and springs (union-find) and number the
     * blocks group by group, so that each group's system is one diagonal block */
    int *parent = malloc((size_t)nb * sizeof(int)), *group = malloc((size_t)nb * sizeof(int));
    d->rb_group = malloc((size_t)(nb + 1) * sizeof(int));
    if (!parent || !group || !d->rb_group) {
        free(parent), free(group);
        return -1;
    }
    for (int b = 0; b < m->nbody; b++) parent[b] = b;
    for (int q = 0; q < d->nrbset; q++) {
        const br_contact_set_desc *cs = &desc[d->rb_set[q]];
        if (!frame_free_body(m, cs->frame_a) || !frame_free_body(m, cs->frame_b)) continue;
        int a = cs->frame_a - 1, c = cs->frame_b - 1;
        while (parent[a] != a) a = parent[a];
        while (parent[c] != c) c = parent[c];
        parent[a < c ? c : a] = a < c ? a : c;
    }
    for (int k = 0; m->adaptive && k < m->nspring; k++) { /* the springs between two bodies of the system */
        const int fa = m->spring[k].frame_a, fb = m->spring[k].frame_b;
        if (!frame_free_body(m, fa) || !frame_free_body(m, fb) || d->rb_slot[fa - 1] < 0 || d->rb_slot[fb - 1] < 0)
            continue;
        int a = fa - 1, c = fb - 1;
        while (parent[a] != a) a = parent[a];
        while (parent[c] != c) c = parent[c];
        parent[a < c ? c : a] = a < c ? a : c;
    }
    int slot = 0;
    for (int b = 0; b < m->nbody; b++) {
        int r = b;
        while (parent[r] != r) r = parent[r];
        group[b] = r;
    }
    for (int r = 0; r < m->nbody; r++) { /* groups in order of their first body */
        int first = 1;
        for (int b = 0; b < m->nbody; b++) {
            if (group[b] != r || d->rb_slot[b] < 0) continue;
            if (first) d->rb_group[d->nrbgroup++] = slot, first = 0;
            d->rb_slot[b] = slot++;
        }
    }
    d->rb_group[d->nrbgroup] = slot;
    free(parent), free(group);
    const int n6 = 6 * (d->nrb > 0 ? d->nrb : 1);
    d->rb_A = malloc((size_t)n6 * n6 * sizeof(double));
    d->rb_x = malloc((size_t)n6 * sizeof(double));
    d->rb_piv = malloc((size_t)n6 * sizeof(int));
    return d->rb_A && d->rb_x && d->rb_piv ? 0 : -1;
}

/* model, data at t = 0 (structure undeformed, frames built) -> the rows L of the structure's
 * implicit sets, the relative twist of frame A with respect to B at A's undeformed origin per
 * structure DOF (a side that is not on the structure contributes no column: its motion is the
 * field's input), handed to the integrator. 0, or -1 */
int br_data_rows(const br_model *m, br_data *d)
{
    if (d->nimp == 0) return 0;
    const int n = d->st->ndof, nr = 6 * d->nimp;
    double *L = malloc((size_t)nr * n * sizeof(double));
    d->imp_E = calloc((size_t)36 * d->nimp, sizeof(double));
    d->imp_du = calloc((size_t)3 * nr, sizeof(double));
    int rc = !L || !d->imp_E || !d->imp_du;
    if (!rc) d->imp_dv = d->imp_du + nr, d->imp_dm = d->imp_du + 2 * nr;
    d->view.imp_E = d->imp_E, d->view.imp_du = d->imp_du, d->view.imp_dv = d->imp_dv, d->view.imp_dm = d->imp_dm;
    for (int k = 0; !rc && k < d->nimp; k++) {
        const br_cset *c = &m->cset[d->imp_set[k]];
        const br_contact_set_desc *cs = &c->desc;
        if (cs->iface) { /* two points' rows L_i (three each; the second three zero for an odd last point) */
            double *Lk = L + (size_t)6 * k * n;
            memset(Lk, 0, (size_t)6 * n * sizeof(double));
            const int r0 = d->st->row0[c->ipart - m->nbeam];
            for (int q = 0; q < 2; q++) {
                const long i = 2L * (k - d->set_imp[d->imp_set[k]]) + q;
                for (int j = 0; i < cs->npoints && j < 3; j++)
                    for (long e = c->Lp[3 * i + j]; e < c->Lp[3 * i + j + 1]; e++)
                        Lk[(size_t)(3 * q + j) * n + r0 + c->Lj[e]] += c->Lx[e];
            }
            continue;
        }
        const int na = br_struct_frame_node(m, d->st, cs->frame_a), nb = br_struct_frame_node(m, d->st, cs->frame_b);
        rc = br_struct_twist_rows(d->st, na >= 0 ? na : -1, nb >= 0 ? nb : -1, d->frames[cs->frame_a].x,
                                  L + (size_t)6 * k * n);
    }
    if (!rc) rc = br_genalpha_lowrank(d->ga, nr, L);
    free(L);
    return rc ? -1 : 0;
}

/* data with its field -> each deforming interface's input and output arrays in it, in the data and its view */
static void iface_bind(const br_model *m, br_data *d)
{
    for (int s = 0; d->field && s < m->nset; s++)
        if (m->cset[s].desc.iface) br_field_iface(d->field, s, &d->iface_iu[s], &d->iface_ipt[s]);
}

br_data *br_data_alloc(const br_model *m, br_backend_kind backend, int own_field, char *err, size_t errlen)
{
    /* The systems of a step are small (tens to hundreds of DOF, the low-rank and rigid-body solves
     * tens): OpenBLAS's threads only add their start and yield for them (a few percent of a blade
     * run) */
    openblas_set_num_threads(1);
    br_data *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const int nb = m->nbody > 0 ? m->nbody : 1, nf = br_model_nframe(m);
    const int ns = m->nset > 0 ? m->nset : 1;
    d->x = calloc((size_t)nb * 3, sizeof(double));
    d->q = calloc((size_t)nb * 4, sizeof(double));
    d->v = calloc((size_t)nb * 3, sizeof(double));
    d->w = calloc((size_t)nb * 3, sizeof(double));
    d->f = calloc((size_t)nb * 3, sizeof(double));
    d->tau = calloc((size_t)nb * 3, sizeof(double));
    d->fext = calloc((size_t)nb * 3, sizeof(double));
    d->text = calloc((size_t)nb * 3, sizeof(double));
    d->frames = calloc((size_t)nf, sizeof *d->frames);
    d->fframes = calloc((size_t)nf, sizeof *d->fframes);
    d->vpred = calloc((size_t)nb * 6, sizeof(double));
    d->kf_ahead = calloc((size_t)2 * m->nkframe + 1, sizeof *d->kf_ahead);
    d->res = calloc((size_t)ns, sizeof *d->res);
    d->E_upto = calloc((size_t)ns * 6, sizeof(double));
    if (d->E_upto) {
        d->End_upto = d->E_upto + ns, d->setP = d->E_upto + 2 * ns, d->setPnd = d->E_upto + 3 * ns;
        d->setE = d->E_upto + 4 * ns, d->setEnd = d->E_upto + 5 * ns;
    }
    d->load_val = calloc((size_t)(m->nload > 0 ? m->nload : 1), sizeof(double));
    d->spring_val = calloc((size_t)(m->nspring > 0 ? m->nspring : 1), sizeof(double));
    d->spring_angle = calloc((size_t)(m->nspring > 0 ? m->nspring : 1), sizeof(double));
    const size_t nr = (size_t)(m->nrot > 0 ? m->nrot : 1);
    d->rot_z = calloc(nr, sizeof(double)), d->rot_tau = calloc(nr, sizeof(double));
    d->rot_Eb = calloc(nr, sizeof(double));
    d->rot_E = calloc(nr, sizeof(double)), d->rot_E_upto = calloc(nr, sizeof(double));
    d->Nset = calloc((size_t)ns, sizeof(double));
    d->acc = calloc((size_t)nb * 6, sizeof(double));
    if (!d->x || !d->q || !d->v || !d->w || !d->f || !d->tau || !d->fext || !d->text || !d->frames ||
        !d->fframes || !d->vpred || !d->kf_ahead ||
        !d->res || !d->E_upto || !d->End_upto || !d->load_val || !d->spring_val || !d->spring_angle ||
        !d->rot_z || !d->rot_tau || !d->rot_Eb || !d->rot_E || !d->rot_E_upto || !d->Nset || !d->acc) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    d->h = m->dt, d->gam = 1.0;
    d->sub.h_min = m->dt;
    d->set_geo = calloc((size_t)ns * 27, sizeof(double));
    d->snap = calloc(1, sizeof *d->snap);
    if (!d->set_geo || !d->snap) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    d->set_vs = d->set_geo + 8 * ns;
    d->wend = d->set_vs + ns;
    for (int s = 0; s < m->nset; s++) { /* what the substeps' entry check needs of each set's points */
        const br_contact_set_desc *cs = &m->cset[s].desc;
        double *g = d->set_geo + 8 * s, R2 = 0.0;
        for (int j = 0; j < 3; j++) g[1 + j] = INFINITY, g[4 + j] = -INFINITY;
        g[7] = cs->K0;
        for (long i = 0; i < cs->npoints; i++) {
            const double *r = cs->r + 3 * i;
            R2 = fmax(R2, r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
            for (int j = 0; j < 3; j++) g[1 + j] = fmin(g[1 + j], r[j]), g[4 + j] = fmax(g[4 + j], r[j]);
            if (cs->K) g[7] = fmax(g[7], cs->K[i]);
        }
        g[0] = sqrt(R2);
    }
    for (int b = 0; b < m->nbody; b++) {
        memcpy(d->x + 3 * b, m->body[b].x0, sizeof(double[3]));
        memcpy(d->q + 4 * b, m->body[b].q0, sizeof(double[4]));
        memcpy(d->v + 3 * b, m->body[b].v0, sizeof(double[3]));
        memcpy(d->w + 3 * b, m->body[b].w0, sizeof(double[3]));
    }
    if (m->nbeam + m->nsup > 0) {
        d->st = br_struct_build(m, err, errlen);
        const int n = d->st ? d->st->ndof : 0;
        if (d->st) d->ga = br_genalpha_create(n, d->st->M, d->st->C, d->st->K, m->rho_inf, m->dt, err, errlen);
        /* BRISTLE_LAPACK_LU: the Woodbury systems by LAPACK's dgesv (the runs before issue 54's
         * change; its bits follow OpenBLAS's kernel for the CPU) instead of kernels/ga_step.h's LU */
        if (d->ga && getenv("BRISTLE_LAPACK_LU")) d->ga->own_lu = 0;
        /* BRISTLE_NO_LU_REUSE: every step's Woodbury system factored afresh (the reference of the reuse's test) */
        if (d->ga && getenv("BRISTLE_NO_LU_REUSE")) d->ga->no_reuse = 1;
        d->g = calloc((size_t)n + 1, sizeof(double));
        d->gext = calloc((size_t)n + 1, sizeof(double));
        d->gext_prev = calloc((size_t)n + 1, sizeof(double));
        d->uprev = calloc((size_t)n + 1, sizeof(double));
        d->vprev = calloc((size_t)n + 1, sizeof(double));
        d->up = calloc((size_t)n + 1, sizeof(double));
        d->vp = calloc((size_t)n + 1, sizeof(double));
        d->xnode = calloc((size_t)(d->st ? d->st->nnode : 0) * 3 + 1, sizeof(double));
        if (d->ga) d->tau_s = (1.0 - d->ga->af) * m->dt;
        if (!d->st || !d->ga || !d->g || !d->gext || !d->gext_prev || !d->uprev || !d->vprev || !d->xnode || !d->up || !d->vp) {
            char why[400];
            snprintf(why, sizeof why, "%s", d->st && d->ga ? "out of memory" : err);
            /* the structure's errors belong to its parts: the file and line where they start */
            if (m->nbeam > 0) snprintf(err, errlen, "%s:%d: the beams: %s", m->source, m->beam[0].line, why);
            else snprintf(err, errlen, "%s:%d: the structures: %s", m->source, m->sup[0].line, why);
            br_data_free(d);
            return NULL;
        }
    }
    if (m->nset == 0 && coupling_setup(m, d, NULL)) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    if (m->nset > 0) {
        br_contact_set_desc *desc = malloc((size_t)m->nset * sizeof *desc);
        if (!desc) {
            snprintf(err, errlen, "out of memory");
            br_data_free(d);
            return NULL;
        }
        for (int s = 0; s < m->nset; s++) desc[s] = m->cset[s].desc;
        d->desc = desc;
        if (coupling_setup(m, d, desc)) {
            snprintf(err, errlen, "out of memory");
            br_data_free(d);
            return NULL;
        }
        if (own_field) {
            d->field = br_field_create(desc, m->nset, backend, err, errlen);
            if (!d->field) {
                br_data_free(d);
                return NULL;
            }
            iface_bind(m, d);
        }
    }
    if ((m->drive.nshaft > 0 && !(d->drv = br_drive_create(&m->drive))) || br_data_compile(m, d)) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    return d;
}

int br_data_own_field(const br_model *m, br_data *d, br_backend_kind backend, char *err, size_t errlen)
{
    if (d->field || m->nset == 0) return 0;
    d->field = br_field_create(d->desc, m->nset, backend, err, errlen);
    iface_bind(m, d);
    return d->field ? 0 : -1;
}

void br_data_free(br_data *d)
{
    if (!d) return;
    br_field_destroy(d->field);
    if (d->snap) br_ckpt_mem_free(d->snap);
    free(d->snap), free(d->set_geo), free(d->sm_mem);
    free(d->desc);
    free(d->x), free(d->q), free(d->v), free(d->w), free(d->f), free(d->tau);
    free(d->fext), free(d->text), free(d->frames), free(d->fframes), free(d->vpred), free(d->kf_ahead), free(d->res), free(d->E_upto);
    free(d->load_val), free(d->spring_val), free(d->spring_angle);
    free(d->rot_z), free(d->rot_tau), free(d->rot_Eb), free(d->rot_E), free(d->rot_E_upto);
    free(d->Nset), free(d->acc), free(d->imp_set), free(d->set_imp), free(d->imp_E), free(d->imp_du);
    free(d->iface_iu), free(d->iface_ipt);
    free(d->rb_slot), free(d->rb_set), free(d->set_rb), free(d->rb_spring), free(d->rb_A), free(d->rb_x), free(d->rb_piv), free(d->rb_group);
    br_struct_free(d->st);
    br_genalpha_free(d->ga);
    br_drive_free(d->drv);
    free(d->g), free(d->gext), free(d->gext_prev), free(d->xnode), free(d->uprev), free(d->vprev), free(d->up), free(d->vp);
    free(d);
}
