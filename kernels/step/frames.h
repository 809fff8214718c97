/* frames.h: the frames stage: a variant's body states at t_n (the kinematic frames' already set by
 * the host) -> every body's frame (structure bodies at the equation time, the structure predicted;
 * their reported states at t_n) and the frames the field sees (implicit free bodies' twists
 * predicted); the sets' energy integrals up to t_n kept. */
#ifndef BR_STEP_FRAMES_H
#define BR_STEP_FRAMES_H

#include "model.h"

#if BR_SB_LANES < BR_GA_LANES
#error "the frames take a beam batch's lanes: BR_SB_LANES below BR_GA_LANES"
#endif

/* model, shape (NULL: no structure), variants at t_n (xs[l], nl of them: lanes, each's structure
 * arrays at +l of xs[0]'s, kernels/ga_step.h's BR_GL; one variant: nl = 1), the kinematic frames'
 * states already in frames (a host stage: their time functions) -> each one's ground and body
 * frames (structure bodies at the equation time, the structure predicted; their reported states at
 * t_n), the field's view. A structure body's frame is computed in lanes (kernels/struct_body.h),
 * each lane bitwise its variant alone */
BR_HD void br_step_frames_l(const br_step_model *m, const br_ga_shape *sh, br_step_var *const *xs, int nl)
{
    br_step_var *x0 = xs[0];
    for (int l = 0; l < nl; l++) {
        br_frame_state *g = &xs[l]->frames[0];
        for (int j = 0; j < 3; j++) g->x[j] = g->v[j] = g->w[j] = 0.0;
        for (int j = 0; j < 9; j++) g->R[j] = j % 4 == 0 ? 1.0 : 0.0;
    }
    if (sh) {
        br_ga_predict_l(sh, &x0->ga, x0->up, x0->vp, x0->s, nl);
        for (int l = 0; l < nl; l++) {
            br_step_var *x = xs[l];
            for (int k = 0; k < m->nnode; k++)
                for (int j = 0; j < 3; j++) {
                    const int gi = m->dof[6 * k + j];
                    x->xnode[3 * k + j] = m->X[3 * k + j] + (gi >= 0 ? x->up[(long)gi * x->s] : 0.0);
                }
        }
    }
    for (int b = 0; b < m->nbody; b++) {
        const int node = m->body_node[b];
        if (node >= 0) {
            br_frame_state now[BR_SB_LANES], *np[BR_SB_LANES], *fp[BR_SB_LANES];
            for (int l = 0; l < nl; l++) np[l] = &now[l], fp[l] = &xs[l]->frames[1 + b];
            br_sb_body_frame_l(m->dof, m->X, node, m->body_q0 + 4 * b, m->body_offset + 3 * b, x0->ga.u, x0->ga.s,
                               x0->ga.v, x0->ga.s, nl, np);
            for (int l = 0; l < nl; l++)
                for (int j = 0; j < 3; j++)
                    xs[l]->bx[3 * b + j] = now[l].x[j], xs[l]->bv[3 * b + j] = now[l].v[j], xs[l]->bw[3 * b + j] = now[l].w[j];
            br_sb_body_frame_l(m->dof, m->X, node, m->body_q0 + 4 * b, m->body_offset + 3 * b, x0->up, x0->s, x0->vp,
                               x0->s, nl, fp);
            continue;
        }
        for (int l = 0; l < nl; l++) {
            br_step_var *x = xs[l];
            br_frame_state *fs = &x->frames[1 + b];
            for (int j = 0; j < 3; j++) fs->x[j] = x->bx[3 * b + j], fs->v[j] = x->bv[3 * b + j], fs->w[j] = x->bw[3 * b + j];
            br_sb_quat_R(x->bq + 4 * b, fs->R);
        }
    }
    for (int l = 0; l < nl; l++) {
        br_step_var *x = xs[l];
        /* each deforming interface's points: u_i = g0_i + L_i u_p and v_i = L_i v_p, the field's inputs */
        for (int s = 0; sh && x->iu && s < m->nset; s++) {
            const br_step_set *cs = &m->set[s];
            if (!cs->iface) continue;
            double *iu = x->iu[s];
            const long n = cs->npoints;
            for (long i = 0; i < n; i++)
                for (int j = 0; j < 3; j++) {
                    double u = cs->g0[3 * i + j], v = 0.0;
                    for (long e = cs->Lp[3 * i + j]; e < cs->Lp[3 * i + j + 1]; e++) {
                        const long c = (long)(cs->row0 + cs->Lj[e]) * x->s;
                        u += cs->Lx[e] * x->up[c], v += cs->Lx[e] * x->vp[c];
                    }
                    iu[j * n + i] = u, iu[(3 + j) * n + i] = v;
                }
        }
        if (!x->fframes) continue;
        /* the field's view: free bodies of the implicit system with the velocity change of the last
         * step repeated (their pose stays at t_n: the position enters the step as symplectic Euler's) */
        for (int k = 0; k < m->nframe; k++) x->fframes[k] = x->frames[k];
        for (int b = 0; m->rb_slot && b < m->nbody; b++) {
            if (m->rb_slot[b] < 0 || (!x->substepping && m->rb_spring[b])) continue; /* the latter: explicit */
            for (int j = 0; j < 6; j++) x->vpred[6 * b + j] = x->h * x->acc[6 * b + j];
            for (int j = 0; j < 3; j++) x->fframes[1 + b].v[j] += x->vpred[6 * b + j], x->fframes[1 + b].w[j] += x->vpred[6 * b + 3 + j];
        }
    }
}

/* model, shape (NULL: no structure), variant at t_n, the kinematic frames' states already in
 * frames (a host stage: their time functions) -> the ground's, the bodies' frames (structure bodies
 * at the equation time, the structure predicted; their reported states at t_n), the field's view */
BR_HD void br_step_frames(const br_step_model *m, const br_ga_shape *sh, br_step_var *x)
{
    br_step_frames_l(m, sh, &x, 1);
}

/* model, variant -> the energy integrals of its sets up to t_n kept (the step's start) */
BR_HD void br_step_contacts_prepare(const br_step_model *m, br_step_var *x)
{
    for (int s = 0; s < m->nset; s++) x->E_upto[s] = x->setE[s], x->End_upto[s] = x->setEnd[s];
}

#endif
