/* drivetrain.c: the step of a 1-D rotational drivetrain (drivetrain.h, docs/drivetrains.md).
 *
 * Unknowns of a step from t to t1 = t + h: the shaft speeds w at t1 and one multiplier per gear
 * constraint and per stuck Coulomb clutch. Equations (implicit Euler):
 *   J_i (w_i - w_i(t)) / h = sum of the torques on shaft i at t1 (sources at w, clutches at w)
 *                            + (G^T lambda)_i,        G w = 0,
 * G holding one row per gear (pair: w_a - ratio w_b; planetary: w_sun + k w_ring - (1+k) w_carrier)
 * and per stuck clutch (w_a - w_b). The sources are linear in w; a LuGre clutch's torque over the
 * step (the bristle advanced by the exponential update at the step's relative speed,
 * br_rotfric_step) is linearized about the current iterate and Newton repeats until the speeds
 * settle. A Coulomb clutch's mode (free, stuck, slipping either way) is guessed from the step
 * before and corrected until consistent: a stuck clutch whose torque exceeds mu_S c_geo F_n slips
 * in the direction of that torque, a slipping one whose relative speed changed sign sticks. */
#include "model/drivetrain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#define BR_DRIVE_NEWTON 60 /* Newton iterations a step may take */

/* gear -> its row of G: shafts idx and coefficients c; the number of entries */
static int gear_row(const br_gear *g, int idx[3], double c[3])
{
    idx[0] = g->s[0], idx[1] = g->s[1], idx[2] = g->s[2];
    if (g->type == BR_GEAR_PAIR) {
        c[0] = 1.0, c[1] = -g->k;
        return 2;
    }
    c[0] = 1.0, c[1] = g->k, c[2] = -(1.0 + g->k);
    return 3;
}

/* clutch, t -> its normal force (0: free) */
static double clutch_Fn(const br_dclutch *c, double t)
{
    const double u = br_timefn_eval(&c->law.u, t);
    return u > 0.0 ? c->law.Fn_max * u : 0.0;
}

/* clutch, speeds -> relative speed w_a - w_b */
static double rel_speed(const br_dclutch *c, const double *w) { return w[c->a] - (c->b >= 0 ? w[c->b] : 0.0); }

/* LuGre clutch, relative speed wr, t1, h, bristle state z at t -> its torque over the step */
static double lugre_tau(const br_dclutch *c, double wr, double t1, double h, double z)
{
    double zz = z, P, E;
    return br_rotfric_step(&c->law, wr, t1, h, &zz, &P, &E);
}

br_drive_data *br_drive_create(const br_drivetrain *m)
{
    br_drive_data *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    const int n = m->nshaft > 0 ? m->nshaft : 1, ng = m->ngear > 0 ? m->ngear : 1;
    const int nc = m->ncl > 0 ? m->ncl : 1, ns = m->nsrc > 0 ? m->nsrc : 1;
    d->dim_max = m->nshaft + m->ngear + m->ncl;
    const int D = d->dim_max > 0 ? d->dim_max : 1;
    d->w = calloc((size_t)n, sizeof(double));
    d->alpha = calloc((size_t)n, sizeof(double));
    d->wn = calloc((size_t)n, sizeof(double));
    d->lam = calloc((size_t)ng, sizeof(double));
    d->src_tau = calloc((size_t)ns, sizeof(double));
    d->cl_tau = calloc((size_t)nc, sizeof(double));
    d->cl_w = calloc((size_t)nc, sizeof(double));
    d->cl_z = calloc((size_t)nc, sizeof(double));
    d->cl_Eb = calloc((size_t)nc, sizeof(double));
    d->cl_E = calloc((size_t)nc, sizeof(double));
    d->cl_mode = calloc((size_t)nc, sizeof(int));
    d->mode_try = calloc((size_t)nc, sizeof(int));
    d->row = calloc((size_t)nc, sizeof(int));
    d->x = calloc((size_t)D, sizeof(double));
    d->dx = calloc((size_t)D, sizeof(double));
    d->wt = calloc((size_t)D, sizeof(double));
    d->alpha_max = calloc((size_t)n, sizeof(double));
    d->cl_tau_max = calloc((size_t)nc * 3, sizeof(double));
    if (d->cl_tau_max) d->cl_over = d->cl_tau_max + nc, d->cl_over_max = d->cl_tau_max + 2 * nc;
    d->r = calloc((size_t)D, sizeof(double));
    d->A = calloc((size_t)D * (size_t)D, sizeof(double));
    d->piv = calloc((size_t)D, sizeof(int));
    d->sv = calloc((size_t)D, sizeof(double));
    /* the least-norm solve's workspace for the largest system, so that a step allocates nothing */
    double wq = 0.0;
    int iwq = 0, rank;
    if (d->A && d->r && d->sv &&
        LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, D, D, 1, d->A, D, d->r, D, d->sv, 1e-12, &rank, &wq, -1, &iwq) == 0) {
        d->lwork = (int)wq + 1;
        d->work = calloc((size_t)d->lwork, sizeof(double));
        d->iwork = calloc((size_t)(iwq > 1 ? iwq : 1), sizeof(int));
    }
    if (!d->w || !d->alpha || !d->wn || !d->lam || !d->src_tau || !d->cl_tau || !d->cl_w || !d->cl_z ||
        !d->cl_Eb || !d->cl_E || !d->wt || !d->alpha_max || !d->cl_tau_max || !d->cl_mode || !d->mode_try || !d->row || !d->x || !d->dx || !d->r ||
        !d->A || !d->piv || !d->sv || !d->work || !d->iwork) {
        br_drive_free(d);
        return NULL;
    }
    for (int i = 0; i < m->nshaft; i++) d->w[i] = m->shaft[i].w0;
    for (int k = 0; k < m->ncl; k++) d->cl_w[k] = rel_speed(&m->cl[k], d->w);
    for (int k = 0; k < m->nsrc; k++) {
        const br_tsource *S = &m->src[k];
        d->src_tau[k] = br_timefn_eval(&S->tau, 0.0) - S->c * d->w[S->shaft];
    }
    return d;
}

void br_drive_free(br_drive_data *d)
{
    if (!d) return;
    free(d->w), free(d->alpha), free(d->wn), free(d->lam), free(d->src_tau), free(d->cl_tau), free(d->cl_w);
    free(d->cl_z), free(d->cl_Eb), free(d->cl_E), free(d->wt), free(d->alpha_max), free(d->cl_tau_max), free(d->cl_mode), free(d->mode_try), free(d->row);
    free(d->x), free(d->dx), free(d->r), free(d->A), free(d->piv), free(d->sv), free(d->work), free(d->iwork);
    free(d);
}

/* model, data (d->wn: speeds at t, modes in d->mode_try), speeds w, direction p, t1, h -> R(w) . p
 * with R(w) the momentum residual J (w - w(t)) / h minus the torques of the sources and of the
 * clutches that are not stuck, at w. A direction that keeps the gear and stuck-clutch constraints
 * (G p = 0) is orthogonal to their torques, so this is the derivative along p of the step's
 * potential (kinetic term plus the integrals of the torques, convex as each torque is monotone in
 * its speed) */
static double resid_dot(const br_drivetrain *m, const br_drive_data *d, const double *w, const double *p,
                        double t1, double h)
{
    double s = 0.0;
    for (int i = 0; i < m->nshaft; i++) s += m->shaft[i].J / h * (w[i] - d->wn[i]) * p[i];
    for (int k = 0; k < m->nsrc; k++) {
        const br_tsource *S = &m->src[k];
        s -= (br_timefn_eval(&S->tau, t1) - S->c * w[S->shaft]) * p[S->shaft];
    }
    for (int k = 0; k < m->ncl; k++) {
        const br_dclutch *C = &m->cl[k];
        const int mode = d->mode_try[k];
        if (mode == BR_CL_FREE || mode == BR_CL_STUCK) continue;
        const double tau = C->type == BR_DCLUTCH_COULOMB
                               ? C->law.mu_C * C->law.c_geo * clutch_Fn(C, t1) * (mode == BR_CL_SLIP_POS ? 1.0 : -1.0)
                               : lugre_tau(C, rel_speed(C, w), t1, h, d->cl_z[k]);
        s += tau * rel_speed(C, p); /* -tau on a, +tau on b */
    }
    return s;
}

/* model, data (d->wn: speeds at t; d->x: the first guess of the speeds), modes in d->mode_try,
 * t1, h -> the step's speeds and multipliers in d->x (speeds, then one per gear, then one per
 * stuck clutch, numbered in d->row); its dimension, or -1 (singular) or -2 (Newton unsettled) */
static int solve_modes(const br_drivetrain *m, br_drive_data *d, double t1, double h, long *iters)
{
    const int n = m->nshaft;
    int dim = n + m->ngear;
    for (int k = 0; k < m->ncl; k++) d->row[k] = d->mode_try[k] == BR_CL_STUCK ? dim++ : -1;
    for (int i = n; i < dim; i++) d->x[i] = 0.0;
    int nlugre = 0;
    for (int k = 0; k < m->ncl; k++) nlugre += m->cl[k].type == BR_DCLUTCH_LUGRE && d->mode_try[k] != BR_CL_FREE;
    double *A = d->A, *r = d->r, prev = INFINITY;
#define AT(i, j) A[(i) + (size_t)(j) * (size_t)dim] /* column-major: LAPACK's own order, no transposed copy */
    for (int it = 1; it <= BR_DRIVE_NEWTON; it++) {
        memset(A, 0, (size_t)dim * (size_t)dim * sizeof(double));
        for (int i = 0; i < n; i++) {
            AT(i, i) = m->shaft[i].J / h;
            r[i] = m->shaft[i].J / h * d->wn[i];
        }
        for (int i = n; i < dim; i++) r[i] = 0.0;
        for (int k = 0; k < m->nsrc; k++) {
            const br_tsource *S = &m->src[k];
            AT(S->shaft, S->shaft) += S->c;
            r[S->shaft] += br_timefn_eval(&S->tau, t1);
        }
        for (int g = 0; g < m->ngear; g++) {
            int idx[3];
            double c[3];
            const int ne = gear_row(&m->gear[g], idx, c);
            for (int e = 0; e < ne; e++) {
                AT(n + g, idx[e]) = c[e];
                AT(idx[e], n + g) -= c[e];
            }
        }
        for (int k = 0; k < m->ncl; k++) {
            const br_dclutch *C = &m->cl[k];
            const int mode = d->mode_try[k], a = C->a, b = C->b;
            if (mode == BR_CL_FREE) continue;
            if (mode == BR_CL_STUCK) { /* multiplier mu: +mu on a, -mu on b (the clutch's tau = -mu) */
                const int q = d->row[k];
                AT(q, a) = 1.0, AT(a, q) = -1.0;
                if (b >= 0) AT(q, b) = -1.0, AT(b, q) = 1.0;
                continue;
            }
            double tau0, slope = 0.0;
            if (C->type == BR_DCLUTCH_COULOMB) {
                tau0 = C->law.mu_C * C->law.c_geo * clutch_Fn(C, t1) * (mode == BR_CL_SLIP_POS ? 1.0 : -1.0);
            } else { /* LuGre: tau(wr) ~ tau0 + slope (w_a - w_b - wr), slope by a central difference */
                const double wr = rel_speed(C, d->x), z = d->cl_z[k];
                const double dw = 1e-7 * (fabs(wr) + C->law.w_s);
                tau0 = lugre_tau(C, wr, t1, h, z);
                slope = (lugre_tau(C, wr + dw, t1, h, z) - lugre_tau(C, wr - dw, t1, h, z)) / (2.0 * dw);
                tau0 -= slope * wr;
            }
            /* -tau on a, +tau on b */
            r[a] -= tau0;
            AT(a, a) += slope;
            if (b >= 0) {
                r[b] += tau0;
                AT(b, b) += slope;
                AT(a, b) -= slope;
                AT(b, a) -= slope;
            }
        }
        if (dim > n + m->ngear) {
            /* stuck clutches: their rows may repeat a constraint (two brakes on one shaft, a brake on
             * each shaft of a gear pair), which leaves their torques' split open: the least-squares
             * solution of least norm (SVD) shares it evenly and keeps the speeds exact */
            int rank;
            if (LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, dim, dim, 1, A, dim, r, dim, d->sv, 1e-12, &rank, d->work,
                                    d->lwork, d->iwork) != 0)
                return -1;
        } else if (LAPACKE_dgesv_work(LAPACK_COL_MAJOR, dim, 1, A, dim, d->piv, r, dim) != 0) {
            return -1;
        }
        /* Newton's step p, shortened where the step's potential stops falling along it: a clutch
         * torque has a kink at zero relative speed (|w| in the bristle rate), and full steps
         * across it can cycle. Regula falsi (Illinois) on s -> R(x + s p) . p over [0, 1]. */
        double *p = d->dx, *wt = d->wt, s = 1.0;
        for (int i = 0; i < n; i++) p[i] = r[i] - d->x[i];
        /* from the second iterate on, every iterate meets the constraints (G p = 0), which the
         * search's residual relies on; the first may start off them (a clutch that just stuck) */
        if (nlugre > 0 && it > 1 && resid_dot(m, d, r, p, t1, h) > 0.0) {
            double lo = 0.0, hi = 1.0, flo = resid_dot(m, d, d->x, p, t1, h), fhi = resid_dot(m, d, r, p, t1, h);
            int side = 0;
            for (int q = 0; q < 100 && flo < 0.0 && hi - lo > 1e-15; q++) {
                s = (lo * fhi - hi * flo) / (fhi - flo);
                for (int i = 0; i < n; i++) wt[i] = d->x[i] + s * p[i];
                const double f = resid_dot(m, d, wt, p, t1, h);
                if (f == 0.0) break;
                if (f < 0.0) {
                    lo = s, flo = f;
                    if (side == -1) fhi *= 0.5;
                    side = -1;
                } else {
                    hi = s, fhi = f;
                    if (side == 1) flo *= 0.5;
                    side = 1;
                }
            }
            if (!(flo < 0.0)) s = 1.0; /* not a descent direction: Newton's own step */
        }
        double change = 0.0, size = 1.0;
        for (int i = 0; i < n; i++) {
            const double wi = s == 1.0 ? r[i] : d->x[i] + s * p[i];
            change = fmax(change, fabs(wi - d->x[i]));
            size = fmax(size, fabs(wi));
            d->x[i] = wi;
        }
        memcpy(d->x + n, r + n, (size_t)(dim - n) * sizeof(double));
        *iters = it;
        /* settled: the speeds move by less than 1e-13 of their size, or by less than 1e-10 and no
         * longer shrink (round-off of the clutch torques' difference slopes where a step is long
         * against the bristle's time constant) */
        if (nlugre == 0 || change <= 1e-13 * size || (change <= 1e-10 * size && change >= 0.5 * prev)) return dim;
        prev = change;
    }
#undef AT
    return -2;
}

/* Coulomb clutch k's torque from the solution in d->x under mode mode */
static double coulomb_tau(const br_dclutch *C, const br_drive_data *d, int k, int mode, double t1)
{
    if (mode == BR_CL_STUCK) return -d->x[d->row[k]];
    if (mode == BR_CL_FREE) return 0.0;
    return C->law.mu_C * C->law.c_geo * clutch_Fn(C, t1) * (mode == BR_CL_SLIP_POS ? 1.0 : -1.0);
}

/* Coulomb clutch C, step -> the round-off level of its relative speed: 1e-12 of its shafts' speeds at
 * t plus the change its torque alone would make in a step. A clutch whose shafts other constraints
 * hold together shows only that much relative speed. */
static double slip_tol(const br_drivetrain *m, const br_drive_data *d, const br_dclutch *C, double t1, double h)
{
    const double sc = fabs(d->wn[C->a]) + (C->b >= 0 ? fabs(d->wn[C->b]) : 0.0) +
                      h * C->law.mu_C * C->law.c_geo * clutch_Fn(C, t1) / m->shaft[C->a].J;
    return 1e-12 * sc;
}

int br_drive_solve(const br_drivetrain *m, br_drive_data *d, double t, double h, char *err, size_t errlen)
{
    const int n = m->nshaft;
    const double t1 = t + h;
    memcpy(d->wn, d->w, (size_t)n * sizeof(double));
    /* first guess of the modes: free without normal force; a clutch coming on sticks when it turns
     * together and slips the way it turns otherwise; a slipping one at rest (to round-off) sticks */
    for (int k = 0; k < m->ncl; k++) {
        const br_dclutch *C = &m->cl[k];
        const double wr = rel_speed(C, d->w);
        int mode = d->cl_mode[k];
        if (clutch_Fn(C, t1) <= 0.0) mode = BR_CL_FREE;
        else if (C->type == BR_DCLUTCH_LUGRE) mode = BR_CL_SLIP_POS; /* a LuGre clutch is only off or on */
        else if (mode == BR_CL_FREE) mode = wr == 0.0 ? BR_CL_STUCK : wr > 0.0 ? BR_CL_SLIP_POS : BR_CL_SLIP_NEG;
        else if (mode != BR_CL_STUCK && fabs(wr) <= slip_tol(m, d, C, t1, h)) mode = BR_CL_STUCK; /* slipping at rest */
        d->mode_try[k] = mode;
    }
    const int max_rounds = 4 * m->ncl + 8;
    long iters = 0;
    for (int round = 0;; round++) {
        memcpy(d->x, d->wn, (size_t)n * sizeof(double));
        const int dim = solve_modes(m, d, t1, h, &iters);
        if (dim == -1) {
            snprintf(err, errlen, "t = %.9g s: the drivetrain's system is singular (a shaft held twice, or gears that "
                     "lock each other)", t1);
            return -1;
        }
        if (dim == -2) {
            snprintf(err, errlen, "t = %.9g s: the drivetrain's Newton iteration did not settle in %d steps", t1,
                     BR_DRIVE_NEWTON);
            return -1;
        }
        if (iters > d->newton_max) d->newton_max = iters;
        /* the most violated mode changes, one a round (changing every violated one at once can
         * cycle where stuck clutches share a constraint); violations relative to the clutch's
         * capacity, and to its speed scale */
        int worst = -1, to = 0;
        double wv = 0.0;
        for (int k = 0; k < m->ncl; k++) {
            const br_dclutch *C = &m->cl[k];
            const int mode = d->mode_try[k];
            if (C->type != BR_DCLUTCH_COULOMB || mode == BR_CL_FREE) continue;
            const double lim = C->law.mu_S * C->law.c_geo * clutch_Fn(C, t1);
            double v = 0.0;
            int next = mode;
            if (mode == BR_CL_STUCK) {
                const double tau = coulomb_tau(C, d, k, mode, t1);
                if (fabs(tau) > lim * (1.0 + 1e-12)) v = fabs(tau) / lim - 1.0, next = tau > 0.0 ? BR_CL_SLIP_POS : BR_CL_SLIP_NEG;
            } else {
                /* reversed by more than round-off (slip_tol) */
                const double wr = rel_speed(C, d->x), tol = slip_tol(m, d, C, t1, h);
                if ((mode == BR_CL_SLIP_POS && wr < -tol) || (mode == BR_CL_SLIP_NEG && wr > tol))
                    v = fabs(wr) / tol, next = BR_CL_STUCK;
            }
            if (next != mode && (worst < 0 || v > wv)) worst = k, wv = v, to = next;
        }
        if (worst < 0) break;
        d->mode_try[worst] = to;
        if (round >= max_rounds) {
            snprintf(err, errlen, "t = %.9g s: the drivetrain's clutch modes did not settle in %d rounds", t1,
                     max_rounds);
            return -1;
        }
    }
    d->t_solved = t, d->h_solved = h;
    return 0;
}

double br_drive_commit(const br_drivetrain *m, br_drive_data *d)
{
    const int n = m->nshaft;
    const double h = d->h_solved, t1 = d->t_solved + h;
    double work = 0.0;
    for (int i = 0; i < n; i++) {
        d->w[i] = d->x[i];
        d->alpha[i] = (d->w[i] - d->wn[i]) / h;
        d->alpha_max[i] = fmax(d->alpha_max[i], fabs(d->alpha[i]));
    }
    for (int g = 0; g < m->ngear; g++) d->lam[g] = d->x[n + g];
    for (int k = 0; k < m->nsrc; k++) {
        const br_tsource *S = &m->src[k];
        d->src_tau[k] = br_timefn_eval(&S->tau, t1) - S->c * d->w[S->shaft];
        work += h * d->src_tau[k] * d->w[S->shaft];
    }
    d->work_in += work;
    for (int k = 0; k < m->ncl; k++) {
        const br_dclutch *C = &m->cl[k];
        const double wr = rel_speed(C, d->w);
        double tau, P;
        if (C->type == BR_DCLUTCH_LUGRE) {
            tau = br_rotfric_step(&C->law, wr, t1, h, &d->cl_z[k], &P, &d->cl_Eb[k]);
            /* a released clutch's plates part: its bristle relaxes (its stored energy, 1/2 sigma0
             * c_geo F_n z^2, went to zero with F_n, so nothing jumps) */
            if (d->mode_try[k] == BR_CL_FREE) d->cl_z[k] = 0.0;
            d->cl_mode[k] = d->mode_try[k] == BR_CL_FREE ? BR_CL_FREE
                            : fabs(wr) < C->law.w_s     ? BR_CL_STUCK
                            : wr > 0.0                  ? BR_CL_SLIP_POS
                                                        : BR_CL_SLIP_NEG;
        } else {
            tau = coulomb_tau(C, d, k, d->mode_try[k], t1);
            P = tau * wr;
            d->mode_switches += d->cl_mode[k] != d->mode_try[k];
            d->cl_mode[k] = d->mode_try[k];
        }
        d->cl_tau[k] = tau;
        d->cl_w[k] = wr;
        d->cl_tau_max[k] = fmax(d->cl_tau_max[k], fabs(tau));
        d->cl_over[k] = fabs(tau) > C->law.mu_S * C->law.c_geo * C->law.Fn_max * (1.0 + 1e-9) ? d->cl_over[k] + h : 0.0;
        d->cl_over_max[k] = fmax(d->cl_over_max[k], d->cl_over[k]);
        d->cl_E[k] += h * P;
    }
    return work;
}

double br_drive_energy(const br_drivetrain *m, const br_drive_data *d, double *stored, double *loss)
{
    double K = 0.0, S = 0.0, L = 0.0;
    for (int i = 0; i < m->nshaft; i++) K += 0.5 * m->shaft[i].J * d->w[i] * d->w[i];
    for (int k = 0; k < m->ncl; k++) {
        S += d->cl_Eb[k];
        L += d->cl_E[k] - d->cl_Eb[k];
    }
    if (stored) *stored = S;
    if (loss) *loss = L;
    return K;
}

void br_drivetrain_free(br_drivetrain *m)
{
    if (!m) return;
    for (int k = 0; k < m->nsrc; k++) br_timefn_free(&m->src[k].tau);
    for (int k = 0; k < m->ncl; k++) br_timefn_free(&m->cl[k].law.u);
    free(m->shaft), free(m->gear), free(m->src), free(m->cl);
    memset(m, 0, sizeof *m);
}
