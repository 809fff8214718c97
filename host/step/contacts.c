/* contacts.c: the contact and joint stages: frames, prescribed normal forces -> the field's step
 * (per-set wrenches, energies, tangents); frames -> rotational friction torques. */
#include <stdio.h>
#include <string.h>

#include "step/stages.h"

void br_fwd_contacts_prepare(const br_model *m, br_data *d)
{
    br_step_contacts_prepare(&d->sm, &d->view); /* the sets' energy integrals up to t_n */
    for (int s = 0; s < m->nset; s++) {
        const double N = m->cset[s].prescribed ? br_timefn_eval(&m->cset[s].normal_force, d->t) : -1.0;
        d->Nset[s] = m->cset[s].prescribed ? (N > 0.0 ? N : 0.0) : -1.0;
    }
}

int br_fwd_contacts(const br_model *m, br_data *d, double h, char *err, size_t errlen)
{
    if (!d->field) return 0;
    br_fwd_contacts_prepare(m, d);
    char ferr[600];
    const int rc = br_field_step(d->field, d->fframes, d->Nset, h, d->res, ferr, sizeof ferr);
    if (rc) snprintf(err, errlen, "t = %.9g s: %s", d->t, ferr);
    return rc;
}

void br_fwd_joints(const br_model *m, br_data *d, double h)
{
    for (int k = 0; k < m->nrot; k++) {
        const br_rotfric *e = &m->rot[k];
        const double *wa = d->frames[e->frame_a].w, *wb = d->frames[e->frame_b].w;
        const double w = br_dot3(wa, e->axis) - br_dot3(wb, e->axis);
        double P;
        d->rot_E_upto[k] = d->rot_E[k];
        d->rot_tau[k] = br_rotfric_step(e, w, d->t, h, &d->rot_z[k], &P, &d->rot_Eb[k]);
        d->rot_E[k] += h * P;
    }
}
