/* accel.c: the acceleration stage: forces, tangents -> accelerations over the step (the structure
 * by generalized-alpha with its contact rows, the free bodies by their implicit system), the
 * substeps' error ratio per set, the friction and damping powers booked. The host's part: the
 * kinematic frames ahead (their time functions), the drivetrain's solve, the free bodies' (LAPACK)
 * and the structure's solves; the rest is kernels/step/'s br_step_accel_pre and _post, the
 * batches' too. */
#include <stdio.h>

#include "model/rigid.h"
#include "step/stages.h"

int br_fwd_accel(const br_model *m, br_data *d, char *err, size_t errlen)
{
    const double h = d->h;
    const int nk = m->nkframe;
    for (int k = 0; k < nk; k++) { /* where the prescribed frames will be: the linearizations' spans */
        br_kframe_state(&m->kframe[k], d->t + d->tau_s, &d->kf_ahead[k]);
        br_kframe_state(&m->kframe[k], d->t + h, &d->kf_ahead[nk + k]);
    }
    if (d->drv && br_drive_solve(&m->drive, d->drv, d->t, h, err, errlen)) return -1;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].part < 0 && (d->rb_slot[b] < 0 || (!d->substepping && d->rb_spring[b])))
            br_rigid_accel(&m->body[b], d->frames[1 + b].R, d->w + 3 * b, d->f + 3 * b, d->tau + 3 * b,
                           d->acc + 6 * b, d->acc + 6 * b + 3);
    if (d->nrb > 0 && br_stage_rigid_implicit(m, d, h)) {
        snprintf(err, errlen, "t = %.9g s: the linearized rigid-body system is singular", d->t);
        return -1;
    }
    const br_ga_shape *sh;
    br_step_var *x = br_data_var(d, h, &sh);
    if (sh) {
        br_step_accel_pre(&d->sm, sh, x, d->res);
        if (br_genalpha_solve(d->ga, d->g, d->nimp ? d->imp_E : NULL)) {
            snprintf(err, errlen, "t = %.9g s: the linearized structure system is singular", d->t);
            return -1;
        }
    }
    br_step_accel_post(&d->sm, sh, x, d->res);
    return 0;
}
