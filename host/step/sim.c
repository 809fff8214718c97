/* sim.c: the sequencing of one step (sim.h gives the scheme): the stages called in order at the
 * step length of the level, substeps tried, taken again and integrated. In: model, data at t_n;
 * out: data at t_{n+1}. Each stage is a file of step/. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "step/sim.h"
#include "base/outdir.h" /* br_wall_seconds */
#include "step/checkpoint.h"
#include "step/stages.h"

/* model, frames at t = 0 -> the elastic energy of the normal contact springs already pressed in
 * at the start, sum K delta^(pK+1) / (pK+1) (the field books it from its first step on; without it
 * a run that starts in contact would count that energy as made from nothing) */
static double contact_energy0(const br_model *m, const br_data *d)
{
    double e = 0.0;
    for (int s = 0; s < m->nset; s++) {
        if (m->cset[s].prescribed) continue;
        const br_contact_set_desc *cs = &m->cset[s].desc;
        if (cs->iface) { /* a deforming interface at q = 0: delta = -gap */
            for (long i = 0; i < cs->npoints; i++) {
                const double delta = -m->cset[s].g0[3 * i + 2];
                if (delta > 0.0) e += br_normal_energy(&cs->normal, cs->K[i] * br_pow_half(delta, cs->normal.pK), delta);
            }
            continue;
        }
        br_set_frame fr;
        br_set_frame_build(cs, &d->fframes[cs->frame_a], &d->fframes[cs->frame_b], &fr);
        for (long i = 0; i < cs->npoints; i++) {
            br_point_kin k;
            br_kin(fr.surface, &fr, cs->r + 3 * i, &k);
            if (!(k.delta > 0.0)) continue;
            const double K = cs->K ? cs->K[i] : cs->K0;
            e += br_normal_energy(&cs->normal, K * br_pow_half(k.delta, cs->normal.pK), k.delta);
        }
    }
    return e;
}

br_data *br_data_create(const br_model *m, br_backend_kind backend, char *err, size_t errlen)
{
    return br_data_create_opt(m, backend, 1, err, errlen);
}

br_data *br_data_create_opt(const br_model *m, br_backend_kind backend, int own_field, char *err, size_t errlen)
{
    /* a deforming interface's inputs and outputs are its data's field's: a data stepped by a shared field
     * (a study's batch, the structure benchmark) cannot take one (docs/superelements-plan.md) */
    for (int s = 0; !own_field && s < m->nset; s++)
        if (m->cset[s].desc.iface) {
            snprintf(err, errlen, "%s: contact set '%s' is a deforming interface: studies and batches do not take them yet "
                     "(bristle run does)", m->source, m->cset[s].name);
            return NULL;
        }
    br_data *d = br_data_alloc(m, backend, own_field, err, errlen);
    if (!d) return NULL;
    /* energy reference state at t = 0 */
    br_fwd_frames(m, d);
    br_fwd_loads(m, d);
    const int ga_rc = d->ga ? br_genalpha_start(d->ga, d->g) : 0;
    if (ga_rc) {
        if (ga_rc == -2) snprintf(err, errlen, "out of memory");
        else if (m->nsup > 0) /* the structures given as matrices are where a singular M comes from */
            snprintf(err, errlen, "%s:%d: the structure's mass matrix with its attached bodies is not positive definite "
                     "(a coordinate without mass, or an indefinite M): check the mass matrix of structure '%s'%s",
                     m->source, m->sup[0].line, m->sup[0].name, m->nsup > 1 ? " and the others" : "");
        else snprintf(err, errlen, "the structure's mass matrix is singular (a free DOF without mass)");
        br_data_free(d);
        return NULL;
    }
    d->en.kinetic0 = d->en.kinetic;
    d->en.spring0 = d->en.spring;
    d->en.contact_el0 = contact_energy0(m, d);
    d->res_ref = d->en.kinetic0 + d->en.spring0 + d->en.contact_el0;
    if (d->ga && br_data_rows(m, d)) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    return d;
}

/* a caller that steps dt at a time (studies, harmonic balance, eig, br_step): the step is dt, at
 * level 0, with the free bodies' theta */
void br_stage_fixed_step(const br_model *m, br_data *d)
{
    d->h = m->dt, d->theta_h = d->theta, d->gam = 1.0, d->substepping = 0;
    if (d->level && d->ga) br_genalpha_level(d->ga, 0, NULL, 0); /* made at creation: cannot fail */
    d->level = 0;
    if (d->ga) d->tau_s = (1.0 - d->ga->af) * m->dt;
}

/* model, level k -> the step is dt / 2^k (the structure's integrator switched to it), under the run's
 * controller (the free bodies' gamma scheme, docs/time-stepping.md); 0, or -1 with err */
static int set_level(const br_model *m, br_data *d, int k, char *err, size_t errlen)
{
    if (d->ga && br_genalpha_level(d->ga, k, err, errlen)) return -1;
    d->level = k, d->h = ldexp(m->dt, -k), d->substepping = 1;
    if (d->ga) d->tau_s = (1.0 - d->ga->af) * d->h;
    return 0;
}

/* br_step_after_contacts at the step d->h */
static int after_contacts(const br_model *m, br_data *d, int energy, char *err, size_t errlen)
{
    br_fwd_joints(m, d, d->h);
    d->skip_energy = !energy;
    br_fwd_loads(m, d);
    if (br_fwd_accel(m, d, err, errlen)) return -1;
    return br_check_finite(m, d, err, errlen);
}

int br_step_after_contacts(const br_model *m, br_data *d, int energy, char *err, size_t errlen)
{
    br_stage_fixed_step(m, d);
    return after_contacts(m, d, energy, err, errlen);
}

/* br_step_forces at the step d->h */
static int step_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    br_stage_frames(m, d);
    const double t0 = wall_field ? br_wall_seconds() : 0.0;
    if (br_fwd_contacts(m, d, d->h, err, errlen)) return -1;
    if (wall_field) *wall_field += br_wall_seconds() - t0;
    return after_contacts(m, d, energy, err, errlen);
}

int br_step_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    br_stage_fixed_step(m, d);
    return step_forces(m, d, energy, wall_field, err, errlen);
}

/* Substeps. The output step is cut into a binary grid of BR_SUB_LEVELS levels; d->sub_pos (in
 * units of dt / 2^BR_SUB_LEVELS) is where the next substep starts. */

/* model, data at the start of a substep, energy, wall_field -> the substep's forces tried from
 * d->level on: each try starts from the snapshot, and a try whose error ratio is above 1 (or whose
 * linearized system failed) is taken again at a level finer by what the ratio asks for (the
 * correction is second order in h: ratio^(1/2) halvings), up to BR_SUB_LEVELS, and no finer than
 * the grid position pos allows coarser (a substep never crosses the output step). 0, or -1 with err */
static int substep_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    br_ckpt *c = d->snap;
    br_ckpt_mem(c, 1);
    if (br_data_checkpoint(m, d, c)) {
        snprintf(err, errlen, "t = %.9g s: %s", d->t, c->err);
        return -1;
    }
    double prev = INFINITY; /* the ratio of the previous try */
    for (;;) {
        const int k = d->level;
        if (set_level(m, d, k, err, errlen)) return -1;
        char e2[600] = "";
        const int rc = step_forces(m, d, energy, wall_field, e2, sizeof e2);
        /* accepted: within the tolerance; or at the finest level; or not converging, a shorter try no
         * better than half the longer one's ratio (a jump the predictor cannot follow at any step,
         * stick-slip chatter): then finer steps cost without gain, and the step may double again */
        const int stalled = rc == 0 && d->err > 1.0 && d->err > 0.5 * prev;
        if (rc == 0 && (d->err <= 1.0 || k >= BR_SUB_LEVELS || stalled)) {
            if (d->err > 1.0) d->sub.unresolved++;
            d->calm = d->err <= 0.25 ? d->calm + 1 : d->err > 1.0 ? BR_SUB_CALM : 0;
            return 0;
        }
        prev = rc ? INFINITY : d->err;
        if (k >= BR_SUB_LEVELS) { /* failed at the finest level: the error stands */
            snprintf(err, errlen, "%s (at the finest substep, %g s)", e2, d->h);
            return -1;
        }
        const double ratio = rc ? 16.0 : d->err; /* a failed solve: three halvings */
        const double lv = ceil(0.5 * log2(ratio / 0.8)); /* in double: the ratio may be huge */
        const int up = !(lv >= 1.0) ? 1 : lv > BR_SUB_LEVELS ? BR_SUB_LEVELS : (int)lv;
        br_ckpt_mem(c, 0);
        if (br_data_checkpoint(m, d, c)) {
            snprintf(err, errlen, "t = %.9g s: %s", d->t, c->err);
            return -1;
        }
        d->sub.rejected++;
        d->level = k + up > BR_SUB_LEVELS ? BR_SUB_LEVELS : k + up;
    }
}

/* data after an accepted substep -> 1 if the next may be twice as long: the last BR_SUB_CALM
 * substeps had error ratios of at most 1/4 (a doubling keeps them near 1). Not sooner: every change
 * of the step moves the free bodies' scheme to another modified energy (a first-order shift where
 * a contact spring is loaded and moving), so a bounce is best taken at one level from entry to exit */
static int coarsen_ok(const br_data *d) { return d->level > 0 && d->calm >= BR_SUB_CALM; }
/* (an unresolved substep sets calm to BR_SUB_CALM: its error did not fall with the step) */

int br_data_adapts(const br_model *m, const br_data *d) { return m->adaptive && d->nrbset > 0; }

int br_step_begin(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    if (!br_data_adapts(m, d)) return br_step_forces(m, d, energy, wall_field, err, errlen);
    d->sub_wall0 = br_wall_seconds();
    d->sub_rej0 = d->sub.rejected;
    if (coarsen_ok(d)) d->level--, d->calm = 0; /* the output step's start lies on every level's grid */
    d->sub_pos = 0;
    return substep_forces(m, d, energy, wall_field, err, errlen);
}

int br_step_end(const br_model *m, br_data *d, double *wall_field, char *err, size_t errlen)
{
    if (!br_data_adapts(m, d)) {
        br_integrate(m, d, m->dt);
        return 0;
    }
    const long full = 1L << BR_SUB_LEVELS;
    const double t0 = d->t;
    long nsub = 0;
    for (;;) {
        if (d->h < d->sub.h_min) d->sub.h_min = d->h, d->sub.t_min = d->t;
        br_stage_integrate(m, d, d->h);
        nsub++;
        d->sub_pos += 1L << (BR_SUB_LEVELS - d->level);
        if (d->sub_pos >= full) break;
        d->t = t0 + m->dt * ((double)d->sub_pos / (double)full);
        /* coarser after a small error, where the position lies on the coarser grid */
        if (coarsen_ok(d) && (d->sub_pos & ((1L << (BR_SUB_LEVELS - d->level + 1)) - 1)) == 0) d->level--, d->calm = 0;
        if (substep_forces(m, d, 0, wall_field, err, errlen)) return -1;
    }
    d->step++;
    d->t = d->step * m->dt;
    if (nsub > 1) d->sub.split++, d->sub.taken += nsub;
    if (nsub > 1 || d->sub.rejected > d->sub_rej0) d->sub.wall += br_wall_seconds() - d->sub_wall0;
    return 0;
}

int br_step(const br_model *m, br_data *d, char *err, size_t errlen)
{
    if (br_step_forces(m, d, 1, NULL, err, errlen)) return -1;
    br_integrate(m, d, m->dt);
    return 0;
}
