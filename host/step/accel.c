/* accel.c: the acceleration stage: forces, tangents -> accelerations over the step (the structure
 * by generalized-alpha with its contact rows, the free bodies by their implicit system), the
 * substeps' error ratio per set, the friction and damping powers booked. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/rigid.h"
#include "step/stages.h"

/* twist (v, w), radius R -> |v| + R |w|: the largest speed of a point within R of the origin */
static double twist_speed(const double x[6], double R) { return sqrt(br_dot3(x, x)) + R * sqrt(br_dot3(x + 3, x + 3)); }

/* set s coupled implicitly, its frame data fr (the field's state), the relative twist xi the field
 * saw, its change dv to the solved one, the mean xm over the step, h -> the step's error ratio for
 * that set (1: at the tolerance), the larger of
 *   - the correction: a set in contact, |dv| against atol + rtol |xi| (speeds of its farthest point):
 *     the solved relative velocity minus the one predicted from the previous step's acceleration,
 *     the difference of a predictor and a corrector (Milne's device), h^2 times the rate of change
 *     of the contact acceleration: large at impacts, separations and stick-slip transitions, zero in
 *     steady stick and sliding;
 *   - the entry: a plane set out of contact whose points' box, moved by h xm, would end a depth
 *     delta in the plane, K delta^(pK+1) / (pK+1) (the elastic energy of the stiffest point there,
 *     which the step would make from nothing: the field saw no contact) against rtol times the
 *     energy scale of the set's free bodies: their kinetic energy plus the work of the forces on
 *     them over delta (a body at rest pressed onto the surface has the second alone). The
 *     relative velocity dv excludes what prescribed frames do: that change is known. */
static double set_error(const br_model *m, br_data *d, int s, const br_set_frame *fr, const double xi[6],
                        const double dv[6], const double xm[6], double h)
{
    if (!m->adaptive) return 0.0;
    const br_set_result *r = &d->res[s];
    const double *g = d->set_geo + 8 * s, R = g[0];
    if (r->ncontact > 0) {
        const double vs = fmax(d->set_vs[s], fmax(twist_speed(xi, R), twist_speed(xm, R)));
        d->set_vs[s] = vs;
        return twist_speed(dv, R) / (m->atol + m->rtol * vs);
    }
    d->set_vs[s] = 0.0;
    const br_contact_set_desc *cs = &m->cset[s].desc;
    if (m->cset[s].prescribed || cs->surface != BR_SURF_PLANE || cs->npoints == 0) return 0.0;
    const double *RA = d->fframes[cs->frame_a].R;
    double dmax = -INFINITY;
    for (int c = 0; c < 8; c++) { /* the box's corners: the depth is linear in the position */
        const double p[3] = {g[1 + 3 * (c & 1)], g[2 + 3 * ((c >> 1) & 1)], g[3 + 3 * ((c >> 2) & 1)]};
        double rw[3], wr[3];
        br_mat3_vec(RA, p, rw);
        br_cross3(xm + 3, rw, wr);
        const double delta = fr->d - br_dot3(fr->n, rw) - h * (br_dot3(fr->n, xm) + br_dot3(fr->n, wr));
        dmax = fmax(dmax, delta);
    }
    if (!(dmax > 0.0)) return 0.0;
    const double pK = cs->normal.pK, E = g[7] * pow(dmax, pK + 1.0) / (pK + 1.0);
    /* the energy scale of the set's free bodies, from what every substep has (not the sampled energy
     * terms): their kinetic energy, and the work of the forces on them over the depth */
    double scale = 0.0;
    for (int side = 0; side < 2; side++) {
        const int f = side ? cs->frame_b : cs->frame_a;
        if (!frame_free_body(m, f)) continue;
        const int b = f - 1;
        scale += br_rigid_kinetic(&m->body[b], d->frames[f].R, d->v + 3 * b, d->w + 3 * b) +
                 dmax * sqrt(br_dot3(d->f + 3 * b, d->f + 3 * b));
    }
    return scale > 0.0 ? E / (m->rtol * scale) : 1e30;
}

/* a set's result, the changes du, dv of its relative displacement and twist from the field's state to
 * the solved one -> its whole, friction and normal-damping wrenches on A as the integrators applied them
 * at the end of the step: W - K du - C dv, W_f - Kf du - Cf dv and W_d - (C - Cf) dv (book_powers' forces) */
static void end_wrenches(const br_set_result *r, const double du[6], const double dv[6], double W[6], double Wf[6],
                         double Wd[6])
{
    const br_set_tangent *T = &r->tan;
    const double Wa[6] = {r->F_A[0], r->F_A[1], r->F_A[2], r->M_A[0], r->M_A[1], r->M_A[2]};
    const double F[6] = {r->Ff_A[0], r->Ff_A[1], r->Ff_A[2], r->Mf_A[0], r->Mf_A[1], r->Mf_A[2]};
    double t[6], Cn[36];
    mat6_vec(T->K, du, t, 0);
    mat6_vec(T->C, dv, t, 1);
    for (int j = 0; j < 6; j++) W[j] = Wa[j] - t[j];
    mat6_vec(T->Kf, du, t, 0);
    mat6_vec(T->Cf, dv, t, 1);
    for (int j = 0; j < 6; j++) Wf[j] = F[j] - t[j];
    for (int j = 0; j < 36; j++) Cn[j] = T->C[j] - T->Cf[j];
    mat6_vec(Cn, dv, t, 0);
    for (int j = 0; j < 6; j++) Wd[j] = T->Wd[j] - t[j];
}

/* the step's friction and normal-damping power of every contact set -> d->setP, d->setPnd and
 * the energy integrals d->setE, d->setEnd. An explicit set: the field's values. A set whose
 * wrench the integrators took linearly implicit: the power of the forces they applied, on the
 * relative motion they solved for (docs/time-stepping.md):
 *     friction  P = -(W_f - Kf dxi_u - Cf dxi_v) . xi_m
 *     damping   P_nd = P_nd,field - W_d . (xi_m - xi) + dxi_v^T (C - Cf) xi_m
 * with xi the relative twist the field saw, dxi_u, dxi_v the changes of relative displacement
 * and twist from the field's state to the solved one, xi_m the mean relative twist over the step,
 * W_d the damping part of the normal forces (N - K delta^pK per point, which also carries the
 * elastic energy a clamped, separating point loses) and C - Cf = sum cn (G^T n)(G^T n)^T its
 * slope in the normal rates.
 * The field's own power at its linearization state is no estimate of the dissipation where that
 * state differs from the solved one by a velocity error e: a damper c books c (v + e)^2 there. */
static void book_powers(const br_model *m, br_data *d, double h)
{
    d->err = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const int k = d->set_imp[s];
        if (k < 0 && !d->set_rb[s]) {
            d->setP[s] = r->P, d->setPnd[s] = r->P_nd;
        } else {
            br_set_frame fr;
            br_set_frame_build(cs, &d->fframes[cs->frame_a], &d->fframes[cs->frame_b], &fr);
            double xi[6] = {fr.c[0], fr.c[1], fr.c[2], fr.w[0], fr.w[1], fr.w[2]}, du[6] = {0}, dv[6] = {0}, xm[6];
            memcpy(xm, xi, sizeof xm);
            if (k >= 0)
                for (int j = 0; j < 6; j++) du[j] += d->imp_du[6 * k + j], dv[j] += d->imp_dv[6 * k + j], xm[j] += d->imp_dm[6 * k + j];
            if (k >= 0) br_stage_prescribed_change(m, d, s, d->tau_s, d->tau_s, 0.0, du, dv);
            else br_stage_prescribed_change(m, d, s, h, d->theta_h * d->gam * h, d->gam * h, du, dv);
            double dvp[6]; /* the prescribed sides' known change: no error of the step's */
            memcpy(dvp, dv, sizeof dvp);
            for (int side = 0; d->set_rb[s] && side < 2; side++) { /* free bodies: see rigid_implicit */
                const int f = side ? cs->frame_b : cs->frame_a;
                if (!frame_free_body(m, f)) continue;
                double L[36], dV[6], t[6], tp[6], tn[6];
                const double *vn = d->v + 3 * (f - 1), *wn = d->w + 3 * (f - 1);
                const double Vn[6] = {vn[0], vn[1], vn[2], wn[0], wn[1], wn[2]};
                br_stage_side_map(m, d, s, side, L);
                for (int j = 0; j < 6; j++) dV[j] = h * d->acc[6 * (f - 1) + j];
                mat6_vec(L, dV, t, 0);
                mat6_vec(L, d->vpred + 6 * (f - 1), tp, 0);
                mat6_vec(L, Vn, tn, 0);
                for (int j = 0; j < 6; j++)
                    dv[j] += t[j] - tp[j], xm[j] += d->gam * t[j] - tp[j],
                    du[j] += h * d->gam * (t[j] + d->theta_h * tn[j]);
            }
            /* the drive work of a prescribed side (br_fwd_loads booked the field's wrench) */
            double dW[6], t[6];
            mat6_vec(r->tan.K, du, dW, 0);
            mat6_vec(r->tan.C, dv, dW, 1);
            for (int side = 0; side < 2; side++) {
                const int f = side ? cs->frame_b : cs->frame_a;
                if (!frame_prescribed(m, f)) continue;
                double L[36];
                br_stage_side_map(m, d, s, side, L);
                const br_frame_state *fs = &d->frames[f];
                const double V[6] = {fs->v[0], fs->v[1], fs->v[2], fs->w[0], fs->w[1], fs->w[2]};
                mat6_vec(L, V, t, 0);
                for (int j = 0; j < 6; j++) d->p_drive += dW[j] * t[j]; /* -(L^T (-dW)) . V */
            }
            br_bm_set_power(&r->tan, r->Ff_A, r->Mf_A, r->P_nd, xi, du, dv, xm, &d->setP[s], &d->setPnd[s]);
            if (k < 0) { /* a free body's set: the gamma scheme applied gamma of the end wrench and 1 - gamma of the start's */
                double *wn = d->wend + 18 * s;
                if (d->gam < 1.0) {
                    double pf = 0.0, pd = 0.0;
                    for (int j = 0; j < 6; j++) pf -= wn[6 + j] * xm[j], pd -= wn[12 + j] * xm[j];
                    d->setP[s] = d->gam * d->setP[s] + (1.0 - d->gam) * pf;
                    d->setPnd[s] = d->gam * d->setPnd[s] + (1.0 - d->gam) * pd;
                }
                end_wrenches(r, du, dv, wn, wn + 6, wn + 12);
            }
            double dve[6];
            for (int j = 0; j < 6; j++) dve[j] = dv[j] - dvp[j];
            const double e = k < 0 ? set_error(m, d, s, &fr, xi, dve, xm, h) : 0.0;
            if (e > d->err) d->err = e;
        }
        d->setE[s] = d->E_upto[s] + h * d->setP[s];
        d->setEnd[s] = d->End_upto[s] + h * d->setPnd[s];
    }
}

int br_fwd_accel(const br_model *m, br_data *d, char *err, size_t errlen)
{
    const double h = d->h;
    if (d->drv && br_drive_solve(&m->drive, d->drv, d->t, h, err, errlen)) return -1;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].beam < 0 && (d->rb_slot[b] < 0 || (!d->substepping && d->rb_spring[b])))
            br_rigid_accel(&m->body[b], d->frames[1 + b].R, d->w + 3 * b, d->f + 3 * b, d->tau + 3 * b,
                           d->acc + 6 * b, d->acc + 6 * b + 3);
    if (d->nrb > 0 && br_stage_rigid_implicit(m, d, h)) {
        snprintf(err, errlen, "t = %.9g s: the linearized rigid-body system is singular", d->t);
        return -1;
    }
    if (!d->ga) {
        book_powers(m, d, h);
        return 0;
    }
    const int nr = 6 * d->nimp;
    double ck, cc;
    br_genalpha_coeffs(d->ga, &ck, &cc);
    for (int k = 0; k < d->nimp; k++) { /* a prescribed side moves from t_n, where the field saw it, to t_n + tau */
        const int s = d->imp_set[k];
        double du[6] = {0}, dv[6] = {0}, w[6] = {0};
        br_stage_prescribed_change(m, d, s, d->tau_s, d->tau_s, 0.0, du, dv);
        for (int j = 0; j < 6; j++) du[j] = -du[j], dv[j] = -dv[j];
        mat6_vec(d->res[s].tan.K, du, w, 1);
        mat6_vec(d->res[s].tan.C, dv, w, 1);
        br_genalpha_row_force(d->ga, k, w, d->g);
    }
    for (int k = 0; k < d->nimp; k++) br_bm_eblock(ck, cc, &d->res[d->imp_set[k]].tan, d->imp_E + 36 * k);
    if (br_genalpha_solve(d->ga, d->g, nr ? d->imp_E : NULL)) {
        snprintf(err, errlen, "t = %.9g s: the linearized structure system is singular", d->t);
        return -1;
    }
    if (nr) br_genalpha_row_changes(d->ga, d->imp_du, d->imp_dv, d->imp_dm);
    book_powers(m, d, h);
    return 0;
}
