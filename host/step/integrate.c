/* integrate.c: the integration stage and the finiteness check: accelerations, h -> states at
 * t_{n+1} (free bodies, structure, drivetrain), the loads' work; every state and result finite
 * or the body, set or point named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "step/stages.h"
#include "model/rigid.h"

/* br_integrate without the time: the state advanced by h (kernels/step/'s br_step_integrate:
 * the structure by generalized-alpha with the work of its loads and its Rayleigh losses, the free
 * bodies, the torsion springs), the drivetrain committed */
void br_stage_integrate(const br_model *m, br_data *d, double h)
{
    const br_ga_shape *sh;
    br_step_var *x = br_data_var(d, h, &sh);
    br_step_integrate(&d->sm, sh, x);
    if (d->drv) d->en.work_in += br_drive_commit(&m->drive, d->drv);
    d->h_prev = h;
    d->wend_ok = 1;
}

void br_integrate(const br_model *m, br_data *d, double h)
{
    br_stage_integrate(m, d, h);
    d->step++;
    d->t = d->step * h;
}

/* the energy terms' names (br_energy_terms' order) */
static const char *const EN[] = {"work_in", "kinetic", "kinetic0", "spring", "spring0", "spring_loss",
                                 "contact_el", "contact_el0", "bristle", "friction_loss", "normal_loss",
                                 "residual", "residual_rel"};
_Static_assert(sizeof EN / sizeof *EN == sizeof(br_energy_terms) / sizeof(double), "EN names every term");

void br_step_failure(const br_model *m, double t, int code, const double *value, char *err, size_t errlen)
{
    const int what = code / BR_STEP_WHAT, k = code % BR_STEP_WHAT;
    switch (what) {
    case BR_STEP_SINGULAR: snprintf(err, errlen, "t = %.9g s: the linearized structure system is singular", t); break;
    case BR_STEP_TANGENT: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite wrench tangent", t, m->cset[k].name); break;
    case BR_STEP_RBACCEL:
        snprintf(err, errlen, "t = %.9g s: body '%s': non-finite acceleration from the contact coupling", t, m->body[k].name);
        break;
    case BR_STEP_ACCEL: snprintf(err, errlen, "t = %.9g s: the structure's step gave a non-finite acceleration", t); break;
    case BR_STEP_BODY: snprintf(err, errlen, "t = %.9g s: body '%s' has a non-finite position or velocity", t, m->body[k].name); break;
    case BR_STEP_FORCE: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite contact force", t, m->cset[k].name); break;
    case BR_STEP_FENERGY: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite friction energy", t, m->cset[k].name); break;
    case BR_STEP_ENERGY:
        if (value) snprintf(err, errlen, "t = %.9g s: the energy term %s is not finite (%g)", t, EN[k], *value);
        else snprintf(err, errlen, "t = %.9g s: the energy term %s is not finite", t, EN[k]);
        break;
    default: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite contact sums", t, m->cset[k].name); break;
    }
}

int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen)
{
    const br_ga_shape *sh;
    const br_step_var *x = br_data_var(d, d->h, &sh);
    /* the linearized solves of the step, before anything is advanced with them */
    int code = br_step_check_solve(&d->sm, sh, x, d->res);
    if (code) return br_step_failure(m, d->t, code, NULL, err, errlen), -1;
    for (int i = 0; d->drv && i < m->drive.nshaft + m->drive.ngear; i++)
        if (!isfinite(d->drv->x[i])) {
            if (i < m->drive.nshaft)
                snprintf(err, errlen, "t = %.9g s: shaft '%s': the drivetrain's step gave a non-finite speed",
                         d->t + d->h, m->drive.shaft[i].name);
            else
                snprintf(err, errlen, "t = %.9g s: gear '%s': the drivetrain's step gave a non-finite torque",
                         d->t + d->h, m->drive.gear[i - m->drive.nshaft].name);
            return -1;
        }
    /* the states, the contact forces, the energy terms (when this step computed them: a run never
     * ends "complete" with a non-finite energy balance) */
    code = br_step_check_state(&d->sm, x, d->res, !d->skip_energy);
    if (!code) return 0;
    const int s = code % BR_STEP_WHAT;
    if (code / BR_STEP_WHAT == BR_STEP_FORCE) { /* locate the first point with a non-finite state, or report the set */
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const int ns = br_law_nstate(cs->law, &cs->fric);
        long bad = -1;
        if (ns > 0) {
            double *st = malloc((size_t)ns * (size_t)cs->npoints * sizeof(double));
            if (st && d->field && br_field_get_state(d->field, s, st) == 0) {
                for (long i = 0; i < cs->npoints && bad < 0; i++)
                    for (int k = 0; k < ns; k++)
                        if (!isfinite(st[k * cs->npoints + i])) bad = i;
            }
            free(st);
        }
        if (bad >= 0) {
            snprintf(err, errlen, "t = %.9g s: contact set '%s', point %ld: non-finite bristle state", d->t,
                     m->cset[s].name, bad);
            return -1;
        }
    }
    br_step_failure(m, d->t, code, code / BR_STEP_WHAT == BR_STEP_ENERGY ? (const double *)&d->en + s : NULL, err, errlen);
    return -1;
}
