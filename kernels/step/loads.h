/* loads.h: the loads stage: set results, load magnitudes (a batch's flat ones evaluated here, a
 * run's time functions by the host), springs, joints' torques, gravity -> the structure's
 * generalized forces g and gext, the free bodies' forces and torques, the drivers' and dampers'
 * power, the stored and dissipated energy terms at t_n. */
#ifndef BR_STEP_LOADS_H
#define BR_STEP_LOADS_H

#include "model.h"

/* model, variant with flat magnitudes -> its loads' magnitudes (the batches' evaluation; a run's
 * time functions are the host's, step/loads.c) */
BR_HD void br_step_load_values(const br_step_model *m, br_step_var *x)
{
    for (int l = 0; l < m->nload; l++) {
        const int on_struct = m->load[l].vec || m->body_node[m->load[l].body] >= 0;
        x->load_val[l] = br_tf_flat_eval(&x->mag[l], x->t + (on_struct ? x->tau_s : 0.0));
    }
}

/* model, variant, deforming interface s after the field -> its points' forces onto the structure,
 * g += L_i^T f_i (f_i = N n - F, the force on A in the point's frame) */
BR_HD void br_step_iface_forces(const br_step_model *m, br_step_var *x, int s)
{
    const br_step_set *cs = &m->set[s];
    const double *o = x->ipt[s];
    const long n = cs->npoints;
    for (long i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            const double f = o[(BR_IFACE_F + j) * n + i];
            for (long e = cs->Lp[3 * i + j]; e < cs->Lp[3 * i + j + 1]; e++)
                x->g[(long)(cs->row0 + cs->Lj[e]) * x->s] += cs->Lx[e] * f;
        }
}

/* model, variant, spring k -> its force onto its frames, its value, and its elastic energy
 * (returned) and damper power (into *loss) at t */
BR_HD double br_step_spring_force(const br_step_model *m, br_step_var *x, int k, double *loss)
{
    const br_step_spring *S = &m->spring[k];
    const br_frame_state *A = &x->frames[S->frame_a], *B = &x->frames[S->frame_b];
    double ra[3], rb[3], pa[3], pb[3], va[3], vb[3], dd[3], dv[3], F[3], mF[3], e_el;
    br_mat3_vec(A->R, S->pa, ra);
    br_mat3_vec(B->R, S->pb, rb);
    br_cross3(A->w, ra, va);
    br_cross3(B->w, rb, vb);
    for (int j = 0; j < 3; j++) {
        pa[j] = A->x[j] + ra[j], pb[j] = B->x[j] + rb[j];
        va[j] += A->v[j], vb[j] += B->v[j];
        dd[j] = pb[j] - pa[j], dv[j] = vb[j] - va[j];
    }
    if (S->torsion) {
        /* torque T about the axis: -T on b, +T on a */
        const double rate = br_dot3(B->w, S->axis) - br_dot3(A->w, S->axis), th = x->spring_angle[k];
        const double T = S->k * th + S->c * rate;
        const double Ma[3] = {T * S->axis[0], T * S->axis[1], T * S->axis[2]};
        const double Mb[3] = {-Ma[0], -Ma[1], -Ma[2]}, z3[3] = {0, 0, 0};
        x->spring_val[k] = T;
        *loss += S->c * rate * rate;
        br_step_add_wrench(m, x, S->frame_a, z3, Ma);
        br_step_add_wrench(m, x, S->frame_b, z3, Mb);
        return 0.5 * S->k * th * th;
    }
    if (S->rest > 0.0) {
        const double L = sqrt(br_dot3(dd, dd));
        double e[3] = {0, 0, 0};
        if (L > 0)
            for (int j = 0; j < 3; j++) e[j] = dd[j] / L;
        const double rate = br_dot3(dv, e);
        /* a rope: slack (no force, no energy) at or below its rest length, never pushing; the
         * loss is the force's power beyond the elastic part's, (mag - k ext) rate: c rate^2
         * while taut and pulling, -k ext rate >= 0 where the damper would push (mag clipped) */
        const double ext = S->rope && L <= S->rest ? 0.0 : L - S->rest;
        double mag = S->k * ext + S->c * rate;
        if (S->rope && (ext == 0.0 || mag < 0.0)) mag = 0.0;
        for (int j = 0; j < 3; j++) F[j] = mag * e[j];
        x->spring_val[k] = mag;
        e_el = 0.5 * S->k * ext * ext;
        *loss += S->rope ? (mag - S->k * ext) * rate : S->c * rate * rate;
    } else {
        for (int j = 0; j < 3; j++) F[j] = S->k * dd[j] + S->c * dv[j];
        x->spring_val[k] = sqrt(br_dot3(F, F));
        e_el = 0.5 * S->k * br_dot3(dd, dd);
        *loss += S->c * br_dot3(dv, dv);
    }
    for (int j = 0; j < 3; j++) mF[j] = -F[j];
    br_step_add_force(m, x, S->frame_a, F, pa, 0);
    br_step_add_force(m, x, S->frame_b, mF, pb, 0);
    return e_el;
}

/* model, shape (NULL: no structure), variant with its sets' results res[nset] and its loads'
 * magnitudes, energy (1: the structure's energy terms this step; 0: skipped) -> every body's
 * forces (the structure's g and its load part gext, the free bodies' f, tau and their load parts),
 * the drivers' and the dampers' power, the stored and dissipated energy terms at t (the drivetrain's
 * and the residual: the caller's, br_step_residual) */
BR_HD void br_step_loads(const br_step_model *m, const br_ga_shape *sh, br_step_var *x, const br_set_result *res, int energy)
{
    br_energy_terms *en = x->en;
    for (int j = 0; x->f && j < 3 * m->nbody; j++) x->f[j] = x->tau[j] = x->fext[j] = x->text[j] = 0.0;
    *x->p_drive = 0.0;
    double spring_loss = 0.0;
    en->kinetic = 0.0;
    double struct_elastic = 0.0;
    if (sh) {
        for (int i = 0; i < sh->n; i++) x->g[i * x->s] = 0.0, x->gext[i * x->s] = 0.0;
        if (energy && x->ga_en) en->kinetic = x->ga_en[0], struct_elastic = x->ga_en[1];
        else if (energy) br_ga_energies(sh, &x->ga, &en->kinetic, &struct_elastic);
    }
    for (int b = 0; b < m->nbody; b++) {
        const double *fg = m->body_fg + 3 * b;
        if (m->body_node[b] >= 0) {
            if (fg[0] != 0 || fg[1] != 0 || fg[2] != 0) br_step_add_force(m, x, 1 + b, fg, x->frames[1 + b].x, 1);
            continue;
        }
        for (int j = 0; j < 3; j++) x->f[3 * b + j] = x->fext[3 * b + j] = fg[j];
        en->kinetic += br_sb_kinetic(m->body_mass[b], m->body_Ib + 9 * b, x->frames[1 + b].R, x->bv + 3 * b, x->bw + 3 * b);
    }
    for (int l = 0; l < m->nload; l++) {
        const br_step_load *L = &m->load[l];
        if (L->vec) { /* a structure's load vector */
            for (int i = 0; i < L->nvec; i++) {
                const double gi = x->load_val[l] * L->vec[i];
                x->g[(L->row0 + i) * x->s] += gi, x->gext[(L->row0 + i) * x->s] += gi;
            }
            continue;
        }
        const br_frame_state *fs = &x->frames[1 + L->body];
        const int b = L->body, node = m->body_node[b];
        const double a = x->load_val[l];
        double dir[3], f[3];
        if (L->body_axes) br_mat3_vec(fs->R, L->dir, dir);
        else for (int j = 0; j < 3; j++) dir[j] = L->dir[j];
        for (int j = 0; j < 3; j++) f[j] = a * dir[j];
        if (L->torque && node >= 0) {
            br_sb_add_torque(m->dof, node, f, x->g, x->s);
            br_sb_add_torque(m->dof, node, f, x->gext, x->s);
        } else if (L->torque) {
            for (int j = 0; j < 3; j++) x->tau[3 * b + j] += f[j], x->text[3 * b + j] += f[j];
        } else {
            double p[3];
            br_mat3_vec(fs->R, L->point, p);
            for (int j = 0; j < 3; j++) p[j] += fs->x[j];
            br_step_add_force(m, x, 1 + b, f, p, 1);
        }
    }
    en->spring = struct_elastic;
    for (int k = 0; k < m->nspring; k++) en->spring += br_step_spring_force(m, x, k, &spring_loss);
    if (x->p_spring_loss) *x->p_spring_loss = spring_loss;
    en->contact_el = en->bristle = en->friction_loss = en->normal_loss = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &res[s];
        if (m->set[s].iface) br_step_iface_forces(m, x, s);
        else {
            br_step_add_wrench(m, x, m->set[s].frame_a, r->F_A, r->M_A);
            br_step_add_wrench(m, x, m->set[s].frame_b, r->F_B, r->M_B);
        }
        en->contact_el += r->E_el;
        en->bristle += r->E_b;
        en->friction_loss += x->E_upto[s] - r->E_b;
        en->normal_loss += x->End_upto[s];
    }
    for (int k = 0; k < m->nrot; k++) {
        const br_step_rot *e = &m->rot[k];
        const double T[3] = {x->rot_tau[k] * e->axis[0], x->rot_tau[k] * e->axis[1], x->rot_tau[k] * e->axis[2]};
        const double mT[3] = {-T[0], -T[1], -T[2]}, z3[3] = {0, 0, 0};
        br_step_add_wrench(m, x, e->frame_a, z3, mT);
        br_step_add_wrench(m, x, e->frame_b, z3, T);
        en->bristle += x->rot_Eb[k];
        en->friction_loss += x->rot_E_upto[k] - x->rot_Eb[k];
    }
}

#endif
