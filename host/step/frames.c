/* frames.c: the frames stage: body states at t_n -> every frame's world pose and twist, and
 * the frames the field sees (the structure predicted at its equation time, the implicit system's
 * free bodies with their last velocity change repeated). */
#include <string.h>

#include "model/rigid.h"
#include "step/stages.h"

void br_fwd_frames(const br_model *m, br_data *d)
{
    br_stage_fixed_step(m, d);
    br_stage_frames(m, d);
}

/* br_fwd_frames at the step d->h */
void br_stage_frames(const br_model *m, br_data *d)
{
    br_frame_state *g = &d->frames[0];
    memset(g, 0, sizeof *g);
    g->R[0] = g->R[4] = g->R[8] = 1.0;
    if (d->st) {
        /* the structure as the field sees it: predicted at the equation time t + tau */
        const br_struct *st = d->st;
        br_genalpha_predict(d->ga, d->up, d->vp);
        for (int k = 0; k < st->nnode; k++)
            for (int j = 0; j < 3; j++) {
                const int gi = st->dof[6 * k + j];
                d->xnode[3 * k + j] = st->X[3 * k + j] + (gi >= 0 ? d->up[gi] : 0.0);
            }
    }
    for (int b = 0; b < m->nbody; b++) {
        br_frame_state *fs = &d->frames[1 + b];
        if (m->body[b].beam >= 0) {
            /* reported state at t_n; the frame the field and loads see is the predicted one */
            br_frame_state now;
            br_struct_body_frame(d->st, &m->body[b], body_node(m, d, b), d->ga->u, d->ga->v, &now);
            memcpy(d->x + 3 * b, now.x, sizeof now.x);
            memcpy(d->v + 3 * b, now.v, sizeof now.v);
            memcpy(d->w + 3 * b, now.w, sizeof now.w);
            br_struct_body_frame(d->st, &m->body[b], body_node(m, d, b), d->up, d->vp, fs);
            continue;
        }
        memcpy(fs->x, d->x + 3 * b, sizeof fs->x);
        br_quat_to_R(d->q + 4 * b, fs->R);
        memcpy(fs->v, d->v + 3 * b, sizeof fs->v);
        memcpy(fs->w, d->w + 3 * b, sizeof fs->w);
    }
    for (int k = 0; k < m->nkframe; k++) br_kframe_state(&m->kframe[k], d->t, &d->frames[1 + m->nbody + k]);
    /* the field's view: free bodies of the implicit system with the velocity change of the last
     * step repeated (their pose stays at t_n: the position enters the step as symplectic Euler's) */
    memcpy(d->fframes, d->frames, (size_t)br_model_nframe(m) * sizeof *d->frames);
    for (int b = 0; b < m->nbody; b++) {
        if (d->rb_slot[b] < 0 || (!d->substepping && d->rb_spring[b])) continue; /* the latter: explicit */
        for (int j = 0; j < 6; j++) d->vpred[6 * b + j] = d->h * d->acc[6 * b + j];
        for (int j = 0; j < 3; j++) d->fframes[1 + b].v[j] += d->vpred[6 * b + j], d->fframes[1 + b].w[j] += d->vpred[6 * b + 3 + j];
    }
}
