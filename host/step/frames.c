/* frames.c: the frames stage: body states at t_n -> every frame's world pose and twist, and
 * the frames the field sees (the structure predicted at its equation time, the implicit system's
 * free bodies with their last velocity change repeated). */
#include "model/rigid.h"
#include "step/stages.h"

void br_fwd_frames(const br_model *m, br_data *d)
{
    br_stage_fixed_step(m, d);
    br_stage_frames(m, d);
}

/* br_fwd_frames at the step d->h: the kinematic frames (their time functions, a host stage), then
 * kernels/step/'s br_step_frames */
void br_stage_frames(const br_model *m, br_data *d)
{
    for (int k = 0; k < m->nkframe; k++) br_kframe_state(&m->kframe[k], d->t, &d->frames[1 + m->nbody + k]);
    const br_ga_shape *sh;
    br_step_var *x = br_data_var(d, d->h, &sh);
    br_step_frames(&d->sm, sh, x);
}
