/* accel.h: the acceleration stage around the solves (the structure's and the free bodies': the
 * caller's): the structure's contact rows (prescribed sides' forces, E blocks), then the row changes,
 * each set's friction and normal-damping power over the step, the drive work of prescribed sides
 * and the substeps' error ratio. */
#ifndef BR_STEP_ACCEL_H
#define BR_STEP_ACCEL_H

#include "model.h"

/* a deforming interface's outputs o (n points), point i -> its tangent T as a one-point set's, in the
 * point's frame (n = e_3) and about the point itself (rw = 0: the rotation rows and columns zero), from
 * point_tangent.h's pieces as the backends reduce a rigid set's: K = Kf + kn n n^T, C = Cf + cn n n^T,
 * Kf = gj gn^T, Cf = G^T Jc G = Jc, W_d = Nd n */
BR_HD void br_step_iface_tangent(const double *o, long n, long i, br_set_tangent *T)
{
    const double rw[3] = {0.0, 0.0, 0.0}, nv[3] = {0.0, 0.0, 1.0};
    const double kn = o[BR_IFACE_KN * n + i], cn = o[BR_IFACE_CN * n + i], Nd = o[BR_IFACE_ND * n + i];
    br_fric_tangent ft;
    for (int j = 0; j < 9; j++) ft.J[j] = o[(BR_IFACE_J + j) * n + i];
    for (int j = 0; j < 3; j++) ft.jN[j] = o[(BR_IFACE_JN + j) * n + i];
    const br_tan_pieces p = br_tan_point_pieces(rw, nv, kn, cn, &ft);
    for (int q = 0; q < 36; q++) T->K[q] = T->C[q] = T->Kf[q] = T->Cf[q] = 0.0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            T->Kf[6 * c + r] = p.gj[r] * p.gn[c];
            T->Cf[6 * c + r] = p.Jc[3 * r + c];
            T->K[6 * c + r] = T->Kf[6 * c + r] + kn * p.gn[r] * p.gn[c];
            T->C[6 * c + r] = T->Cf[6 * c + r] + cn * p.gn[r] * p.gn[c];
        }
    for (int j = 0; j < 6; j++) T->Wd[j] = Nd * p.gn[j];
}

/* model, shape, variant after br_step_loads, res -> the structure's contact rows: the force of each
 * row set's prescribed sides' motion from t_n (where the field saw them) to t_n + tau into g, and
 * its E block (the solve's low-rank term; then the solve: the caller's) */
BR_HD void br_step_accel_pre(const br_step_model *m, const br_ga_shape *sh, br_step_var *x, const br_set_result *res)
{
    const double ck = (1 - sh->af) * sh->beta * sh->h * sh->h, cc = (1 - sh->af) * sh->gamma * sh->h;
    for (int s = 0; s < m->nset; s++) {
        const int k = m->set[s].imp;
        if (k < 0 || m->set[s].iface) continue;
        double du[6] = {0}, dv[6] = {0}, w[6] = {0};
        br_step_prescribed_change(m, x, s, x->kf_tau, x->tau_s, 0.0, du, dv);
        for (int j = 0; j < 6; j++) du[j] = -du[j], dv[j] = -dv[j];
        br_step_mat6_vec(res[s].tan.K, du, w, 1);
        br_step_mat6_vec(res[s].tan.C, dv, w, 1);
        br_ga_row_force(sh, &x->ga, k, w, x->g, x->s);
    }
    for (int s = 0; s < m->nset; s++) {
        if (m->set[s].imp < 0) continue;
        if (!m->set[s].iface) {
            br_step_eblock(ck, cc, &res[s].tan, x->imp_E + 36 * m->set[s].imp);
            continue;
        }
        /* a deforming interface: per point its block ck K + cc C (br_step_eblock), its translation part in
         * its block's diagonal, two points a block */
        const long n = m->set[s].npoints;
        for (long i = 0; i < n; i++) {
            br_set_tangent T;
            double Ep[36];
            br_step_iface_tangent(x->ipt[s], n, i, &T);
            br_step_eblock(ck, cc, &T, Ep);
            double *E = x->imp_E + 36 * (m->set[s].imp + i / 2);
            const int o = 3 * (int)(i % 2);
            if (i % 2 == 0)
                for (int j = 0; j < 36; j++) E[j] = 0.0;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) E[6 * (o + c) + o + r] = Ep[6 * c + r];
        }
    }
}

/* twist (v, w), radius R -> |v| + R |w|: the largest speed of a point within R of the origin */
BR_HD double br_step_twist_speed(const double x[6], double R) { return sqrt(br_dot3(x, x)) + R * sqrt(br_dot3(x + 3, x + 3)); }

/* set s coupled to free bodies, its frame data fr (the field's state), the relative twist xi the
 * field saw, its change dv to the solved one, the mean xm over the step, h -> the step's error ratio
 * for that set (1: at the tolerance), the larger of
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
BR_HD double br_step_set_error(const br_step_model *m, br_step_var *x, const br_set_result *r, int s, const br_set_frame *fr,
                             const double xi[6], const double dv[6], const double xm[6], double h)
{
    if (!m->adaptive) return 0.0;
    const double *g = x->set_geo + 8 * s, R = g[0];
    if (r->ncontact > 0) {
        const double vs = fmax(x->set_vs[s], fmax(br_step_twist_speed(xi, R), br_step_twist_speed(xm, R)));
        x->set_vs[s] = vs;
        return br_step_twist_speed(dv, R) / (m->atol + m->rtol * vs);
    }
    x->set_vs[s] = 0.0;
    const br_step_set *cs = &m->set[s];
    if (cs->prescribed || cs->surface != BR_SURF_PLANE || cs->npoints == 0) return 0.0;
    const br_frame_state *ff = x->fframes ? x->fframes : x->frames;
    const double *RA = ff[cs->frame_a].R;
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
    const double pK = cs->pK, E = g[7] * pow(dmax, pK + 1.0) / (pK + 1.0);
    /* the energy scale of the set's free bodies, from what every substep has (not the sampled energy
     * terms): their kinetic energy, and the work of the forces on them over the depth */
    double scale = 0.0;
    for (int side = 0; side < 2; side++) {
        const int f = side ? cs->frame_b : cs->frame_a, b = br_step_frame_body(m, f);
        if (b < 0 || m->body_node[b] >= 0) continue;
        scale += br_sb_kinetic(m->body_mass[b], m->body_Ib + 9 * b, x->frames[f].R, x->bv + 3 * b, x->bw + 3 * b) +
                 dmax * sqrt(br_dot3(x->f + 3 * b, x->f + 3 * b));
    }
    return scale > 0.0 ? E / (m->rtol * scale) : 1e30;
}

/* a set's result, the changes du, dv of its relative displacement and twist from the field's state to
 * the solved one -> its whole, friction and normal-damping wrenches on A as the integrators applied them
 * at the end of the step: W - K du - C dv, W_f - Kf du - Cf dv and W_d - (C - Cf) dv (br_step_book_powers'
 * forces) */
BR_HD void br_step_end_wrenches(const br_set_result *r, const double du[6], const double dv[6], double W[6], double Wf[6],
                              double Wd[6])
{
    const br_set_tangent *T = &r->tan;
    const double Wa[6] = {r->F_A[0], r->F_A[1], r->F_A[2], r->M_A[0], r->M_A[1], r->M_A[2]};
    const double F[6] = {r->Ff_A[0], r->Ff_A[1], r->Ff_A[2], r->Mf_A[0], r->Mf_A[1], r->Mf_A[2]};
    double t[6], Cn[36];
    br_step_mat6_vec(T->K, du, t, 0);
    br_step_mat6_vec(T->C, dv, t, 1);
    for (int j = 0; j < 6; j++) W[j] = Wa[j] - t[j];
    br_step_mat6_vec(T->Kf, du, t, 0);
    br_step_mat6_vec(T->Cf, dv, t, 1);
    for (int j = 0; j < 6; j++) Wf[j] = F[j] - t[j];
    for (int j = 0; j < 36; j++) Cn[j] = T->C[j] - T->Cf[j];
    br_step_mat6_vec(Cn, dv, t, 0);
    for (int j = 0; j < 6; j++) Wd[j] = T->Wd[j] - t[j];
}

/* model, variant after the structure's solve (its row changes), deforming interface s -> its friction
 * and normal-damping power over the step: each point's by br_step_set_power, as a one-point set's (its
 * tangent br_step_iface_tangent's, its friction force on A -F, the velocity v_i the field saw as xi, its
 * rows' changes du, dv, dm), added in point order */
BR_HD void br_step_iface_powers(const br_step_model *m, const br_step_var *x, int s, double *P, double *Pnd)
{
    const br_step_set *cs = &m->set[s];
    const double *o = x->ipt[s], *iu = x->iu[s];
    const long n = cs->npoints;
    double p = 0.0, pn = 0.0;
    for (long i = 0; i < n; i++) {
        const long b = 6 * (cs->imp + i / 2) + 3 * (i % 2);
        br_set_tangent T;
        br_step_iface_tangent(o, n, i, &T);
        double xi[6] = {0}, du[6] = {0}, dv[6] = {0}, xm[6] = {0}, Ff[3];
        const double Mf[3] = {0.0, 0.0, 0.0};
        for (int j = 0; j < 3; j++) {
            xi[j] = iu[(3 + j) * n + i];
            du[j] = x->imp_du[b + j], dv[j] = x->imp_dv[b + j], xm[j] = xi[j] + x->imp_dm[b + j];
            Ff[j] = -o[(BR_IFACE_FF + j) * n + i];
        }
        double pi, pni;
        br_step_set_power(&T, Ff, Mf, o[BR_IFACE_PND * n + i], xi, du, dv, xm, &pi, &pni);
        p += pi, pn += pni;
    }
    *P = p, *Pnd = pn;
}

/* model, variant after its solves (the structure's row changes, the free bodies' accelerations),
 * its sets' results -> each set's friction and normal-damping power over the step x->h, setP and
 * setPnd, and their energy integrals setE, setEnd; the drive work of prescribed sides; the step's
 * error ratio *x->err (substeps). An explicit set: the field's values. A set whose wrench the
 * integrators took linearly implicit: the power of the forces they applied, on the relative motion
 * they solved for (docs/time-stepping.md):
 *     friction  P = -(W_f - Kf dxi_u - Cf dxi_v) . xi_m
 *     damping   P_nd = P_nd,field - W_d . (xi_m - xi) + dxi_v^T (C - Cf) xi_m
 * with xi the relative twist the field saw, dxi_u, dxi_v the changes of relative displacement
 * and twist from the field's state to the solved one, xi_m the mean relative twist over the step,
 * W_d the damping part of the normal forces (N - K delta^pK per point, which also carries the
 * elastic energy a clamped, separating point loses) and C - Cf = sum cn (G^T n)(G^T n)^T its
 * slope in the normal rates.
 * The field's own power at its linearization state is no estimate of the dissipation where that
 * state differs from the solved one by a velocity error e: a damper c books c (v + e)^2 there. */
BR_HD void br_step_book_powers(const br_step_model *m, br_step_var *x, const br_set_result *res)
{
    const double h = x->h;
    const br_frame_state *ff = x->fframes ? x->fframes : x->frames;
    double err = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &res[s];
        const br_step_set *cs = &m->set[s];
        const int k = cs->imp;
        if (k < 0 && !cs->rb) {
            x->setP[s] = r->P, x->setPnd[s] = r->P_nd;
        } else if (cs->iface) {
            br_step_iface_powers(m, x, s, &x->setP[s], &x->setPnd[s]);
        } else {
            br_set_frame fr;
            br_set_frame_make(cs->surface, cs->plane_p, cs->plane_n, cs->radius, &ff[cs->frame_a], &ff[cs->frame_b],
                              -1.0, &fr);
            double xi[6] = {fr.c[0], fr.c[1], fr.c[2], fr.w[0], fr.w[1], fr.w[2]}, du[6] = {0}, dv[6] = {0}, xm[6];
            for (int j = 0; j < 6; j++) xm[j] = xi[j];
            if (k >= 0)
                for (int j = 0; j < 6; j++) du[j] += x->imp_du[6 * k + j], dv[j] += x->imp_dv[6 * k + j], xm[j] += x->imp_dm[6 * k + j];
            if (k >= 0) br_step_prescribed_change(m, x, s, x->kf_tau, x->tau_s, 0.0, du, dv);
            else br_step_prescribed_change(m, x, s, x->kf_h, x->theta_h * x->gam * h, x->gam * h, du, dv);
            double dvp[6]; /* the prescribed sides' known change: no error of the step's */
            for (int j = 0; j < 6; j++) dvp[j] = dv[j];
            for (int side = 0; cs->rb && side < 2; side++) { /* free bodies: see the host's br_stage_rigid_implicit */
                const int f = side ? cs->frame_b : cs->frame_a, b = br_step_frame_body(m, f);
                if (b < 0 || m->body_node[b] >= 0) continue;
                double L[36], dV[6], t[6], tp[6], tn[6];
                const double *vn = x->bv + 3 * b, *wn = x->bw + 3 * b;
                const double Vn[6] = {vn[0], vn[1], vn[2], wn[0], wn[1], wn[2]};
                br_step_side_map(m, x->frames, s, side, L);
                for (int j = 0; j < 6; j++) dV[j] = h * x->acc[6 * b + j];
                br_step_mat6_vec(L, dV, t, 0);
                br_step_mat6_vec(L, x->vpred + 6 * b, tp, 0);
                br_step_mat6_vec(L, Vn, tn, 0);
                for (int j = 0; j < 6; j++)
                    dv[j] += t[j] - tp[j], xm[j] += x->gam * t[j] - tp[j], du[j] += h * x->gam * (t[j] + x->theta_h * tn[j]);
            }
            /* the drive work of a prescribed side (br_step_loads booked the field's wrench) */
            double dW[6], t[6];
            br_step_mat6_vec(r->tan.K, du, dW, 0);
            br_step_mat6_vec(r->tan.C, dv, dW, 1);
            for (int side = 0; side < 2; side++) {
                const int f = side ? cs->frame_b : cs->frame_a;
                if (f <= m->nbody) continue; /* not a kinematic frame */
                double L[36];
                br_step_side_map(m, x->frames, s, side, L);
                const br_frame_state *fs = &x->frames[f];
                const double V[6] = {fs->v[0], fs->v[1], fs->v[2], fs->w[0], fs->w[1], fs->w[2]};
                br_step_mat6_vec(L, V, t, 0);
                for (int j = 0; j < 6; j++) *x->p_drive += dW[j] * t[j]; /* -(L^T (-dW)) . V */
            }
            br_step_set_power(&r->tan, r->Ff_A, r->Mf_A, r->P_nd, xi, du, dv, xm, &x->setP[s], &x->setPnd[s]);
            if (k < 0) { /* a free body's set: the gamma scheme applied gamma of the end wrench and 1 - gamma of the start's */
                double *wn = x->wend + 18 * s;
                if (x->gam < 1.0) {
                    double pf = 0.0, pd = 0.0;
                    for (int j = 0; j < 6; j++) pf -= wn[6 + j] * xm[j], pd -= wn[12 + j] * xm[j];
                    x->setP[s] = x->gam * x->setP[s] + (1.0 - x->gam) * pf;
                    x->setPnd[s] = x->gam * x->setPnd[s] + (1.0 - x->gam) * pd;
                }
                br_step_end_wrenches(r, du, dv, wn, wn + 6, wn + 12);
            }
            double dve[6];
            for (int j = 0; j < 6; j++) dve[j] = dv[j] - dvp[j];
            const double e = k < 0 ? br_step_set_error(m, x, r, s, &fr, xi, dve, xm, h) : 0.0;
            if (e > err) err = e;
        }
        x->setE[s] = x->E_upto[s] + h * x->setP[s];
        x->setEnd[s] = x->End_upto[s] + h * x->setPnd[s];
    }
    if (x->err) *x->err = err;
}

/* model, shape (NULL: no structure), variant after the solves, res -> the structure's row changes
 * (its contact rows' relative displacement and twist from the field's state to the solved one)
 * and br_step_book_powers */
BR_HD void br_step_accel_post(const br_step_model *m, const br_ga_shape *sh, br_step_var *x, const br_set_result *res)
{
    if (sh && sh->nr) br_ga_row_changes(sh, &x->ga, x->imp_du, x->imp_dv, x->imp_dm, 1);
    br_step_book_powers(m, x, res);
}

#endif
