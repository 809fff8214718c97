/* integrate.h: the integration stage: accelerations, the step -> the structure's u, v, a and the
 * free bodies at t_{n+1}, the torsion springs' angles, the loads' work and the Rayleigh and damper
 * losses; in three phases whose entries are independent for a device. */
#ifndef BR_STEP_INTEGRATE_H
#define BR_STEP_INTEGRATE_H

#include "model.h"

/* The integration in three phases whose entries are independent (on a GPU a thread each:
 * kernels/beam_cuda.cu), br_step_integrate them in order for one variant:
 *   br_step_integrate_row   row i of the structure: u, v, a advanced, the loads' work over the step -> *work
 *   br_step_integrate_col   column j's term of the Rayleigh loss vm^T C vm (vm the midpoint
 *                         velocity, every row's from the first phase) -> *loss
 *   br_step_integrate_end   the rows' works and the columns' terms added in order into the energy
 *                         terms; the free bodies and the torsion springs advanced
 * The sums add the same terms in the same order as one loop over the rows: bitwise the same. */

/* shape, variant -> the loads' weight wc of this step in the work quadrature (wp = 1 - wc the
 * previous step's): the loads were evaluated at t_n + tau, the previous ones at t_n + tau - h_prev;
 * their linear interpolation to the midpoint t_n + h/2 makes the work a second-order quadrature
 * of the integral of f . du (the end value alone, f(t_{n+1}) . du for rho_inf = 0, is first order
 * and put 2 % of the input work into the residual of the S2 stick phase) */
BR_HD double br_step_load_wc(const br_ga_shape *sh, const br_step_var *x)
{
    const double af = sh->af, h = x->h, hp = x->h_prev;
    if (hp < 0.0) return x->step > 0 ? 0.5 + af : 1.0; /* fixed steps */
    return !(hp > 0.0) ? 1.0 : hp == h ? 0.5 + af : (0.5 * h + af * hp) / ((1.0 - af) * h + af * hp);
}

/* shape, variant after br_step_accel_post (lane l of a batch in lanes, 0 alone), row i, the
 * loads' weight wc (br_step_load_wc) -> row i at t_{n+1}; its loads' work */
BR_HD double br_step_integrate_row_l(const br_ga_shape *sh, br_step_var *x, int i, int l, double wc)
{
    const long k = i * x->s + l, kg = i * x->ga.s + l;
    x->uprev[k] = x->ga.u[kg], x->vprev[k] = x->ga.v[kg];
    br_ga_advance_row_l(sh, &x->ga, i, l);
    return br_step_load_work_row(wc, 1.0 - wc, x->gext + k, x->gext_prev + k, x->ga.u + kg, x->uprev + k, x->vprev + k,
                                 x->ga.v + kg);
}

/* shape, variant after br_step_accel_post, row i -> row i at t_{n+1}; its loads' work */
BR_HD double br_step_integrate_row(const br_ga_shape *sh, br_step_var *x, int i)
{
    return br_step_integrate_row_l(sh, x, i, 0, br_step_load_wc(sh, x));
}

/* shape, variant with every row integrated, column j -> column j's term of vm^T C vm */
BR_HD double br_step_integrate_col(const br_ga_shape *sh, const br_step_var *x, int j)
{
    return br_ga_quad_col(sh, x->ga.C, x->ga.sC, x->vprev, x->s, x->vprev, x->s, j);
}

/* shape, nl variants of a batch stored variant-innermost in lanes (x: lane 0's view; lane l's entry
 * at +l), each lane's load weight wc[l] (br_step_load_wc) -> every row of every lane integrated
 * (br_step_integrate_row's operations), the rows' works and the columns' Rayleigh terms summed in
 * row and in column order, lane by lane, into wl[l] and ql[l]: br_step_integrate's sums, bitwise */
BR_HD void br_step_integrate_lanes(const br_ga_shape *sh, br_step_var *x, int nl, const double *wc, double *wl,
                                   double *ql)
{
    const long s = x->s;
    for (int l = 0; l < nl; l++) wl[l] = 0.0, ql[l] = 0.0;
    for (int i = 0; i < sh->n; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) wl[l] += br_step_integrate_row_l(sh, x, i, l, wc[l]);
    for (int j = 0; j < sh->n; j++) {
        double q[BR_GA_LANES];
        br_ga_quad_col_l(sh, x->ga.C, x->ga.sC, x->vprev, s, x->vprev, s, j, nl, q);
        BR_LANEWISE for (int l = 0; l < nl; l++) ql[l] += q[l];
    }
}

/* model, variant, frame -> its angular velocity after the velocity update (bodies), or as it was */
BR_HD void br_step_frame_omega(const br_step_model *m, const br_step_var *x, int fr, double w[3])
{
    const int b = br_step_frame_body(m, fr);
    for (int j = 0; j < 3; j++) w[j] = b >= 0 ? x->bw[3 * b + j] : x->frames[fr].w[j];
}

/* model, variant, the rows' works and the columns' terms summed in order -> the energy terms
 * booked; the free bodies (symplectic Euler, or the gamma scheme for those of the implicit
 * system) and the torsion springs' angles advanced by x->h */
BR_HD void br_step_integrate_end(const br_step_model *m, br_step_var *x, double work_rows, double loss_cols)
{
    const double h = x->h;
    x->en->work_in += work_rows;
    x->en->spring_loss += h * loss_cols;
    double work = 0.0;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_node[b] >= 0) continue;
        double *p = x->bx + 3 * b, *q = x->bq + 4 * b, *v = x->bv + 3 * b, *w = x->bw + 3 * b;
        const double *a = x->acc + 6 * b, *al = a + 3;
        double vm[3], wm[3], wg[3];
        if (m->rb_slot && m->rb_slot[b] >= 0 && x->gam < 1.0) { /* the gamma scheme: x, q with V_n + gamma dV */
            const double g = x->gam;
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                p[j] += h * (vn + g * (v[j] - vn));
                wg[j] = wn + g * (w[j] - wn);
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_sb_quat_advance(q, wg, h);
        } else {
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                p[j] += h * v[j];
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_sb_quat_advance(q, w, h);
        }
        /* midpoint velocities make h f . v_mid the exact kinetic-energy change of the translation */
        work += br_dot3(x->fext + 3 * b, vm) + br_dot3(x->text + 3 * b, wm);
    }
    /* torsion angles with the new angular velocities, as the attitudes were advanced */
    for (int k = 0; k < m->nspring; k++) {
        const br_step_spring *S = &m->spring[k];
        if (!S->torsion) continue;
        double wa[3], wb[3];
        br_step_frame_omega(m, x, S->frame_a, wa);
        br_step_frame_omega(m, x, S->frame_b, wb);
        for (int side = 0; side < 2 && x->gam < 1.0; side++) { /* the gamma scheme: turned by w_n + gamma dw */
            const int b = br_step_frame_body(m, side ? S->frame_b : S->frame_a);
            if (b < 0 || !m->rb_slot || m->rb_slot[b] < 0) continue;
            double *w = side ? wb : wa;
            for (int j = 0; j < 3; j++) w[j] -= (1.0 - x->gam) * h * x->acc[6 * b + 3 + j];
        }
        x->spring_angle[k] += h * (br_dot3(wb, S->axis) - br_dot3(wa, S->axis));
    }
    x->en->work_in += h * (work + *x->p_drive);
    x->en->spring_loss += h * (x->p_spring_loss ? *x->p_spring_loss : 0.0);
}

/* model, variant -> its step counted, its time t_{n+1} (fixed steps) */
BR_HD void br_step_count_step(const br_step_model *m, br_step_var *x)
{
    x->step++;
    x->t = x->step * m->h;
}

/* model, shape, variant after br_step_accel_post -> u, v, a at t_{n+1}, the loads' work and the
 * Rayleigh losses booked, the free bodies advanced (not the step count: br_step_count_step) */
BR_HD void br_step_integrate(const br_step_model *m, const br_ga_shape *sh, br_step_var *x)
{
    double wl = 0.0, ql = 0.0;
    for (int i = 0; sh && i < sh->n; i++) wl += br_step_integrate_row(sh, x, i);
    for (int j = 0; sh && j < sh->n; j++) ql += br_step_integrate_col(sh, x, j);
    br_step_integrate_end(m, x, wl, ql);
}

#endif
