/* loads.c: the loads stage: t_n, frames, contact wrenches, springs, gravity, drivetrain -> total
 * force and torque per body, generalized forces on the structure, the energy terms at t_n. */
#include <math.h>
#include <string.h>

#include "step/stages.h"
#include "model/rigid.h"

/* wrench (force f at world point p) -> added to body b's total (and external if ext) */
static void add_force(const br_model *m, br_data *d, int fr, const double f[3], const double p[3],
                      int ext)
{
    const int b = frame_body(m, fr);
    const br_frame_state *fs = &d->frames[fr];
    double r[3] = {p[0] - fs->x[0], p[1] - fs->x[1], p[2] - fs->x[2]}, t[3];
    br_cross3(r, f, t);
    if (b < 0) {
        /* ground or prescribed frame: its driver does the work f does not */
        double vp[3];
        br_cross3(fs->w, r, vp);
        for (int j = 0; j < 3; j++) vp[j] += fs->v[j];
        d->p_drive -= br_dot3(f, vp);
        return;
    }
    const int node = body_node(m, d, b);
    if (node >= 0) {
        br_struct_add_force(d->st, node, d->xnode + 3 * node, f, p, d->g);
        if (ext) br_struct_add_force(d->st, node, d->xnode + 3 * node, f, p, d->gext);
        return;
    }
    for (int j = 0; j < 3; j++) {
        d->f[3 * b + j] += f[j];
        d->tau[3 * b + j] += t[j];
        if (ext) {
            d->fext[3 * b + j] += f[j];
            d->text[3 * b + j] += t[j];
        }
    }
}

/* contact wrench (F, M about the frame origin) -> frame fr's body, or the drive power */
static void add_wrench(const br_model *m, br_data *d, int fr, const double F[3], const double M[3])
{
    const int b = frame_body(m, fr);
    if (b < 0) {
        d->p_drive -= br_dot3(F, d->frames[fr].v) + br_dot3(M, d->frames[fr].w);
        return;
    }
    const int node = body_node(m, d, b);
    if (node >= 0) {
        br_struct_add_force(d->st, node, d->xnode + 3 * node, F, d->frames[fr].x, d->g);
        br_struct_add_torque(d->st, node, M, d->g);
        return;
    }
    for (int j = 0; j < 3; j++) {
        d->f[3 * b + j] += F[j];
        d->tau[3 * b + j] += M[j];
    }
}

void br_fwd_loads(const br_model *m, br_data *d)
{
    const int nb = m->nbody;
    memset(d->f, 0, (size_t)nb * 3 * sizeof(double));
    memset(d->tau, 0, (size_t)nb * 3 * sizeof(double));
    memset(d->fext, 0, (size_t)nb * 3 * sizeof(double));
    memset(d->text, 0, (size_t)nb * 3 * sizeof(double));
    d->p_drive = 0.0;
    d->p_spring_loss = 0.0;
    br_energy_terms *en = &d->en;
    en->kinetic = 0.0;
    double struct_elastic = 0.0;
    if (d->st) {
        const int n = d->st->ndof;
        memset(d->g, 0, (size_t)n * sizeof(double));
        memset(d->gext, 0, (size_t)n * sizeof(double));
        if (!d->skip_energy) br_genalpha_energies(d->ga, &en->kinetic, &struct_elastic);
    }
    for (int b = 0; b < nb; b++) {
        const br_body *B = &m->body[b];
        const double fg[3] = {B->mass * m->gravity[0], B->mass * m->gravity[1], B->mass * m->gravity[2]};
        if (B->beam >= 0) {
            if (fg[0] != 0 || fg[1] != 0 || fg[2] != 0) add_force(m, d, 1 + b, fg, d->frames[1 + b].x, 1);
            continue;
        }
        for (int j = 0; j < 3; j++) d->f[3 * b + j] = d->fext[3 * b + j] = fg[j];
        en->kinetic += br_rigid_kinetic(B, d->frames[1 + b].R, d->v + 3 * b, d->w + 3 * b);
    }
    for (int l = 0; l < m->nload; l++) {
        const br_load *L = &m->load[l];
        const br_frame_state *fs = &d->frames[L->frame];
        const int on_struct = body_node(m, d, L->frame - 1) >= 0;
        const double a = br_timefn_eval(&L->mag, on_struct ? d->t + d->tau_s : d->t);
        d->load_val[l] = a;
        double dir[3], f[3];
        if (L->body_axes) br_mat3_vec(fs->R, L->dir, dir);
        else memcpy(dir, L->dir, sizeof dir);
        for (int j = 0; j < 3; j++) f[j] = a * dir[j];
        const int b = frame_body(m, L->frame);
        if (L->type == BR_LOAD_TORQUE && body_node(m, d, b) >= 0) {
            br_struct_add_torque(d->st, body_node(m, d, b), f, d->g);
            br_struct_add_torque(d->st, body_node(m, d, b), f, d->gext);
        } else if (L->type == BR_LOAD_TORQUE) {
            for (int j = 0; j < 3; j++) d->tau[3 * b + j] += f[j], d->text[3 * b + j] += f[j];
        } else {
            double p[3];
            br_mat3_vec(fs->R, L->point, p);
            for (int j = 0; j < 3; j++) p[j] += fs->x[j];
            add_force(m, d, L->frame, f, p, 1);
        }
    }
    en->spring = struct_elastic;
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        const br_frame_state *A = &d->frames[S->frame_a], *B = &d->frames[S->frame_b];
        double ra[3], rb[3], pa[3], pb[3], va[3], vb[3], dd[3], dv[3], F[3], mF[3];
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
            const double rate = br_dot3(B->w, S->axis) - br_dot3(A->w, S->axis), th = d->spring_angle[k];
            const double T = S->k * th + S->c * rate;
            const double Ma[3] = {T * S->axis[0], T * S->axis[1], T * S->axis[2]};
            const double Mb[3] = {-Ma[0], -Ma[1], -Ma[2]}, z3[3] = {0, 0, 0};
            d->spring_val[k] = T;
            en->spring += 0.5 * S->k * th * th;
            d->p_spring_loss += S->c * rate * rate;
            add_wrench(m, d, S->frame_a, z3, Ma);
            add_wrench(m, d, S->frame_b, z3, Mb);
            continue;
        }
        if (S->rest > 0.0) {
            const double L = sqrt(br_dot3(dd, dd));
            double e[3] = {0, 0, 0};
            if (L > 0) for (int j = 0; j < 3; j++) e[j] = dd[j] / L;
            const double rate = br_dot3(dv, e);
            /* a rope: slack (no force, no energy) at or below its rest length, never pushing; the
             * loss is the force's power beyond the elastic part's, (mag - k ext) rate: c rate^2
             * while taut and pulling, -k ext rate >= 0 where the damper would push (mag clipped) */
            const double ext = S->rope && L <= S->rest ? 0.0 : L - S->rest;
            double mag = S->k * ext + S->c * rate;
            if (S->rope && (ext == 0.0 || mag < 0.0)) mag = 0.0;
            for (int j = 0; j < 3; j++) F[j] = mag * e[j];
            d->spring_val[k] = mag;
            en->spring += 0.5 * S->k * ext * ext;
            d->p_spring_loss += S->rope ? (mag - S->k * ext) * rate : S->c * rate * rate;
        } else {
            for (int j = 0; j < 3; j++) F[j] = S->k * dd[j] + S->c * dv[j];
            d->spring_val[k] = sqrt(br_dot3(F, F));
            en->spring += 0.5 * S->k * br_dot3(dd, dd);
            d->p_spring_loss += S->c * br_dot3(dv, dv);
        }
        for (int j = 0; j < 3; j++) mF[j] = -F[j];
        add_force(m, d, S->frame_a, F, pa, 0);
        add_force(m, d, S->frame_b, mF, pb, 0);
    }
    en->contact_el = en->bristle = en->friction_loss = en->normal_loss = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        add_wrench(m, d, cs->frame_a, r->F_A, r->M_A);
        add_wrench(m, d, cs->frame_b, r->F_B, r->M_B);
        en->contact_el += r->E_el;
        en->bristle += r->E_b;
        en->friction_loss += d->E_upto[s] - r->E_b;
        en->normal_loss += d->End_upto[s];
    }
    for (int k = 0; k < m->nrot; k++) {
        const br_rotfric *e = &m->rot[k];
        const double T[3] = {d->rot_tau[k] * e->axis[0], d->rot_tau[k] * e->axis[1], d->rot_tau[k] * e->axis[2]};
        const double mT[3] = {-T[0], -T[1], -T[2]}, z3[3] = {0, 0, 0};
        add_wrench(m, d, e->frame_a, z3, mT);
        add_wrench(m, d, e->frame_b, z3, T);
        en->bristle += d->rot_Eb[k];
        en->friction_loss += d->rot_E_upto[k] - d->rot_Eb[k];
    }
    if (d->drv) { /* the drivetrain at t: shafts, clutch bristles and clutch losses */
        double stored, loss;
        en->kinetic += br_drive_energy(&m->drive, d->drv, &stored, &loss);
        en->bristle += stored;
        en->friction_loss += loss;
    }
    /* balance at t: input work (loads, gravity, drives) plus initial energy against the rest
     * (not on steps where the structure's energies were skipped) */
    if (d->st && d->skip_energy) return;
    br_bm_residual(en, &d->res_ref);
}
