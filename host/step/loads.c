/* loads.c: the loads stage: t_n, frames, contact wrenches, springs, gravity, drivetrain -> total
 * force and torque per body, generalized forces on the structure, the energy terms at t_n. The
 * host's part: the loads' time functions and the drivetrain; the rest is kernels/step/'s
 * br_step_loads, the batches' too. */
#include "step/stages.h"

void br_fwd_loads(const br_model *m, br_data *d)
{
    for (int l = 0; l < m->nload; l++) { /* the structure sees its loads at the equation time */
        const br_load *L = &m->load[l];
        const int on_struct = L->type == BR_LOAD_VECTOR || body_node(m, d, L->frame - 1) >= 0;
        d->load_val[l] = br_timefn_eval(&L->mag, on_struct ? d->t + d->tau_s : d->t);
    }
    const br_ga_shape *sh;
    br_step_var *x = br_data_var(d, d->h, &sh);
    br_step_loads(&d->sm, sh, x, d->res, !(d->st && d->skip_energy));
    br_energy_terms *en = &d->en;
    if (d->drv) { /* the drivetrain at t: shafts, clutch bristles and clutch losses */
        double stored, loss;
        en->kinetic += br_drive_energy(&m->drive, d->drv, &stored, &loss);
        en->bristle += stored;
        en->friction_loss += loss;
    }
    /* balance at t: input work (loads, gravity, drives) plus initial energy against the rest
     * (not on steps where the structure's energies were skipped) */
    if (d->st && d->skip_energy) return;
    br_step_residual(en, &d->res_ref);
}
