/* integrate.c: the integration stage and the finiteness check: accelerations, h -> states at
 * t_{n+1} (free bodies, structure, drivetrain), the loads' work; every state and result finite
 * or the body, set or point named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step/stages.h"
#include "model/rigid.h"

/* br_integrate without the time: the state advanced by h */
void br_stage_integrate(const br_model *m, br_data *d, double h)
{
    double work = 0.0;
    if (d->ga) {
        /* structure: generalized-alpha with the acceleration br_fwd_accel solved for; work of the loads over the
         * step and the Rayleigh losses with the midpoint velocity */
        const int n = d->st->ndof;
        memcpy(d->uprev, d->ga->u, (size_t)n * sizeof(double));
        memcpy(d->vprev, d->ga->v, (size_t)n * sizeof(double));
        br_genalpha_advance(d->ga);
        /* the loads were evaluated at t_n + tau, the previous ones at t_n + tau - h: their linear
         * interpolation to the midpoint t_n + h/2 makes the work a second-order quadrature of
         * the integral of f . du (the end value alone, f(t_{n+1}) . du for rho_inf = 0, is first
         * order and put 2 % of the input work into the residual of the S2 stick phase) */
        const double af = d->ga->af, hp = d->h_prev;
        const double wc = !(hp > 0.0) ? 1.0 : hp == h ? 0.5 + af : (0.5 * h + af * hp) / ((1.0 - af) * h + af * hp);
        const double wp = 1.0 - wc;
        d->en.work_in += br_bm_load_work(n, wc, wp, d->gext, 1, d->gext_prev, 1, d->ga->u, 1, d->uprev, 1, d->vprev, 1,
                                         d->ga->v, 1);
        d->en.spring_loss += h * br_genalpha_quad(d->ga, d->st->C, d->vprev, d->vprev);
    }
    for (int b = 0; b < m->nbody; b++) {
        if (m->body[b].beam >= 0) continue;
        double *x = d->x + 3 * b, *q = d->q + 4 * b, *v = d->v + 3 * b, *w = d->w + 3 * b;
        const double *a = d->acc + 6 * b, *al = a + 3;
        double vm[3], wm[3], wg[3];
        if (d->rb_slot[b] >= 0 && d->gam < 1.0) { /* the gamma scheme: x, q with V_n + gamma dV */
            const double g = d->gam;
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                x[j] += h * (vn + g * (v[j] - vn));
                wg[j] = wn + g * (w[j] - wn);
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_quat_advance(q, wg, h);
        } else {
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                x[j] += h * v[j];
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_quat_advance(q, w, h);
        }
        /* midpoint velocities make h f . v_mid the exact kinetic-energy change of the translation */
        work += br_dot3(d->fext + 3 * b, vm) + br_dot3(d->text + 3 * b, wm);
    }
    /* torsion angles with the new angular velocities, as the attitudes were advanced */
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        if (!S->torsion) continue;
        double wa[3], wb[3];
        frame_omega(m, d, S->frame_a, wa);
        frame_omega(m, d, S->frame_b, wb);
        for (int side = 0; side < 2 && d->gam < 1.0; side++) { /* the gamma scheme: turned by w_n + gamma dw */
            const int b = frame_body(m, side ? S->frame_b : S->frame_a);
            if (b < 0 || d->rb_slot[b] < 0) continue;
            double *w = side ? wb : wa;
            for (int j = 0; j < 3; j++) w[j] -= (1.0 - d->gam) * h * d->acc[6 * b + 3 + j];
        }
        d->spring_angle[k] += h * (br_dot3(wb, S->axis) - br_dot3(wa, S->axis));
    }
    d->en.work_in += h * (work + d->p_drive);
    if (d->drv) d->en.work_in += br_drive_commit(&m->drive, d->drv);
    d->en.spring_loss += h * d->p_spring_loss;
    d->h_prev = h;
    d->wend_ok = 1;
}

void br_integrate(const br_model *m, br_data *d, double h)
{
    br_stage_integrate(m, d, h);
    d->step++;
    d->t = d->step * h;
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

/* n doubles -> 1 if all are finite */
static int finite_n(const double *a, int n)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(a[k])) return 0;
    return 1;
}

int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen)
{
    /* the linearized solves of the step, before anything is advanced with them */
    for (int s = 0; s < m->nset; s++)
        if ((d->set_imp[s] >= 0 || d->set_rb[s]) &&
            !finite_n((const double *)&d->res[s].tan, (int)(sizeof d->res[s].tan / sizeof(double)))) {
            snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite wrench tangent", d->t, m->cset[s].name);
            return -1;
        }
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].beam < 0 && !finite_n(d->acc + 6 * b, 6)) {
            snprintf(err, errlen, "t = %.9g s: body '%s': non-finite acceleration from the contact coupling", d->t,
                     m->body[b].name);
            return -1;
        }
    if (d->ga && !finite_n(d->ga->a1, d->ga->n)) {
        snprintf(err, errlen, "t = %.9g s: the structure's step gave a non-finite acceleration", d->t);
        return -1;
    }
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
    for (int b = 0; b < m->nbody; b++) {
        if (!finite3(d->x + 3 * b) || !finite3(d->v + 3 * b) || !finite3(d->w + 3 * b) ||
            !finite3(d->q + 4 * b) || !isfinite(d->q[4 * b + 3])) {
            snprintf(err, errlen, "t = %.9g s: body '%s' has a non-finite position or velocity", d->t,
                     m->body[b].name);
            return -1;
        }
    }
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        if (finite3(r->F_A) && finite3(r->M_A) && isfinite(r->N) && isfinite(r->P) && isfinite(r->E_b))
            continue;
        /* locate the first point with a non-finite state, or report the set */
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
        if (bad >= 0)
            snprintf(err, errlen, "t = %.9g s: contact set '%s', point %ld: non-finite bristle state",
                     d->t, m->cset[s].name, bad);
        else
            snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite contact force", d->t,
                     m->cset[s].name);
        return -1;
    }
    /* the energy terms (when this step computed them): a run never ends "complete" with a
     * non-finite energy balance */
    static const char *const EN[] = {"work_in", "kinetic", "kinetic0", "spring", "spring0", "spring_loss",
                                     "contact_el", "contact_el0", "bristle", "friction_loss", "normal_loss",
                                     "residual", "residual_rel"};
    _Static_assert(sizeof EN / sizeof *EN == sizeof(br_energy_terms) / sizeof(double), "EN names every term");
    const double *en = (const double *)&d->en;
    for (int k = 0; !d->skip_energy && k < (int)(sizeof EN / sizeof *EN); k++)
        if (!isfinite(en[k])) {
            snprintf(err, errlen, "t = %.9g s: the energy term %s is not finite (%g)", d->t, EN[k], en[k]);
            return -1;
        }
    for (int s = 0; s < m->nset; s++)
        if (!isfinite(d->setE[s])) {
            snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite friction energy", d->t, m->cset[s].name);
            return -1;
        }
    return 0;
}
