/* test_s4.c: the one-degree-of-freedom studies S4 (scenarios.md) of the friction model
 * library. Each scenario file is run in process with the fixed-step solver (br_step, CPU)
 * and integrated again by SUNDIALS CVODE (BDF, rtol 1e-9, bristle states scaled to force
 * units / F_N) from the same per-point and per-element rate functions
 * (kernels/point_bristle.h, point_friction.h, host/model/joint_friction.c). Checked:
 *   every "Expected" statement of S4a-S4c;
 *   fixed step (dt = 1e-5 s) against CVODE: displacement within 1 % of its range,
 *   break-away times within 0.01 s;
 *   S4c at dt = 1e-3 s: break-away torque within 1 % of the dt = 1e-5 s run. */
#include <criterion/criterion.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "coulomb_exact.h"
#include "model/joint_friction.h"
#include "io/scenario.h"
#include "step/sim.h"

#define MAXS 40000 /* samples per trace */

typedef struct trace {
    int n;
    double t[MAXS], x[MAXS], v[MAXS], F[MAXS]; /* displacement, speed, friction force or torque */
} trace;

static trace fixed_run, ref_run, extra_run; /* static: large */

static br_model *load(const char *name, const char *const *sets, int nsets)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenarios/%s.yaml", SOURCE_DIR, name);
    br_model *m = br_scenario_load(path, sets, nsets, err, sizeof err);
    cr_assert(m, "%s", err);
    return m;
}

/* rotor studies have no contact set: the rotor angle is its torsion spring's angle plus the drive's */
static int is_rotor(const br_model *m) { return m->nset == 0; }

/* model -> trace of the fixed-step run sampled every `every` seconds: block x, vx and friction
 * force Fx on the block, or rotor angle, wz and bearing torque */
static void run_fixed(const br_model *m, double every, trace *tr)
{
    char err[1024];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    const long nsteps = lround(m->t_end / m->dt), ev = lround(every / m->dt);
    tr->n = 0;
    for (long k = 0; k <= nsteps; k++) {
        const int sample = k % ev == 0 && tr->n < MAXS;
        if (sample) {
            tr->t[tr->n] = d->t;
            if (is_rotor(m)) {
                tr->x[tr->n] = d->spring_angle[0] + m->kframe[0].w[2] * d->t;
                tr->v[tr->n] = d->w[2];
            } else {
                tr->x[tr->n] = d->x[0] - m->body[0].x0[0];
                tr->v[tr->n] = d->v[0];
            }
        }
        if (k == nsteps) {
            if (sample) {
                tr->F[tr->n] = tr->n ? tr->F[tr->n - 1] : 0.0; /* no step after the last sample */
                tr->n++;
            }
            break;
        }
        cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
        if (sample) tr->F[tr->n++] = is_rotor(m) ? d->rot_tau[0] : -d->res[0].Ff_A[0];
    }
    br_data_free(d);
}

/* ---- the reference: the same rate functions under CVODE ---- */

typedef struct study {
    const br_model *m;
    int law;                  /* block studies: the set's law */
    br_friction_params p;
    double FN, mass, k, vb;   /* normal force, block mass, spring, belt speed */
    double zs;                /* state scale: z = zs y (F_N / sigma0) */
} study;

/* block: t, y = (x, v, scaled friction states) -> ydot; returns the friction force F on the
 * counter surface along Vt (the block feels -F) */
static double block_rates(const study *s, double t, const double *y, double *yd)
{
    const br_friction_params *p = &s->p;
    const double V = y[1] - s->vb, Vt[3] = {V, 0.0, 0.0};
    double F = 0.0;
    if (s->law == BR_LAW_LUGRE3D_CLASSIC) {
        const double z = s->zs * y[2];
        const double G = br_stribeck(p->mu_k * s->FN, p->mu_s * s->FN, fabs(V), p->V_st, p->alpha);
        const double zd = V - p->sigma0 * fabs(V) * z / G;
        F = p->sigma0 * z + p->sigma1 * zd + p->sigma2 * V;
        yd[2] = zd / s->zs;
    } else if (s->law == BR_LAW_STATIC_REG) {
        double Fv[3], P;
        br_law_static_reg(p, Vt, fabs(V), s->FN, Fv, &P, NULL);
        F = Fv[0];
    } else if (s->law == BR_LAW_BRISTLE2) {
        const double z[3] = {s->zs * y[2], 0, 0}, q[3] = {y[3], 0, 0}, R[3] = {y[4], 0, 0};
        F = p->sigma0 * z[0] + p->sigma1 * (V - q[0]);
        double zd[3], qd[3], Rd[3];
        br_bristle2_rates(p, Vt, s->FN, z, q, R, zd, qd, Rd);
        yd[2] = zd[0] / s->zs, yd[3] = qd[0], yd[4] = Rd[0];
    } else if (s->law == BR_LAW_BRISTLE_IMPLICIT) {
        const double z[3] = {s->zs * y[2], 0, 0};
        double zd[3];
        br_bristle_implicit_rate(p, Vt, s->FN, z, zd);
        F = p->sigma0 * z[0] + p->sigma1 * zd[0];
        yd[2] = zd[0] / s->zs;
    }
    const double Fext = s->m->nload ? br_timefn_eval(&s->m->load[0].mag, t) : 0.0;
    yd[0] = y[1];
    yd[1] = (Fext - s->k * y[0] - F) / s->mass;
    return F;
}

static int rhs_block(sunrealtype t, N_Vector yv, N_Vector ydv, void *ud)
{
    block_rates(ud, t, N_VGetArrayPointer(yv), N_VGetArrayPointer(ydv));
    return 0;
}

/* rotor: y = (angle, w, scaled bristle state) */
static int rhs_rotor(sunrealtype t, N_Vector yv, N_Vector ydv, void *ud)
{
    const study *s = ud;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydv);
    const br_model *m = s->m;
    double zd;
    const double tau = br_rotfric_rate(&m->rot[0], y[1], t, s->zs * y[2], &zd);
    const double drive = m->kframe[0].w[2] * t;
    yd[0] = y[1];
    yd[1] = (m->spring[0].k * (drive - y[0]) - tau) / m->body[0].Ib[8];
    yd[2] = zd / s->zs;
    return 0;
}

/* friction force or torque of the reference at a state (for the trace) */
static double ref_force(const study *s, double t, const double *y)
{
    if (is_rotor(s->m)) {
        double zd;
        return br_rotfric_rate(&s->m->rot[0], y[1], t, s->zs * y[2], &zd);
    }
    double yd[5];
    return block_rates(s, t, y, yd);
}

/* model -> CVODE trace at the fixed run's sample times; integration restarted at every time
 * where the pulse load jumps */
static void run_reference(const br_model *m, const trace *at, trace *tr)
{
    study s;
    memset(&s, 0, sizeof s);
    s.m = m;
    int n = 3;
    if (is_rotor(m)) {
        s.zs = m->rot[0].tau_S / m->rot[0].sigma0;
    } else {
        const br_cset *cs = &m->cset[0];
        s.law = cs->desc.law;
        s.p = cs->desc.fric;
        s.FN = br_timefn_eval(&cs->normal_force, 0.0);
        s.mass = m->body[0].mass;
        s.k = m->nspring ? m->spring[0].k : 0.0;
        s.vb = m->nkframe ? m->kframe[0].v[0] : 0.0;
        s.zs = s.law == BR_LAW_STATIC_REG ? 1.0 : s.FN / s.p.sigma0;
        n = s.law == BR_LAW_STATIC_REG ? 2 : s.law == BR_LAW_BRISTLE2 ? 5 : 3;
    }
    SUNContext ctx;
    cr_assert_eq(SUNContext_Create(NULL, &ctx), 0);
    N_Vector y = N_VNew_Serial(n, ctx);
    double *yp = N_VGetArrayPointer(y);
    for (int i = 0; i < n; i++) yp[i] = 0.0;
    yp[1] = is_rotor(m) ? m->body[0].w0[2] : m->body[0].v0[0];
    void *mem = CVodeCreate(CV_BDF, ctx);
    cr_assert(mem);
    cr_assert_eq(CVodeInit(mem, is_rotor(m) ? rhs_rotor : rhs_block, 0.0, y), CV_SUCCESS);
    cr_assert_eq(CVodeSStolerances(mem, 1e-9, 1e-11), CV_SUCCESS);
    SUNMatrix A = SUNDenseMatrix(n, n, ctx);
    SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
    cr_assert_eq(CVodeSetLinearSolver(mem, LS, A), CV_SUCCESS);
    CVodeSetUserData(mem, &s);
    CVodeSetMaxNumSteps(mem, 2000000);
    CVodeSetMaxStep(mem, 1e-3);
    /* breakpoints: the pulse table's times */
    double brk[64];
    int nb = 0;
    if (m->nload && m->load[0].mag.kind == BR_TF_TABLE)
        for (int i = 0; i < m->load[0].mag.n && nb < 63; i++)
            if (nb == 0 || m->load[0].mag.t[i] > brk[nb - 1]) brk[nb++] = m->load[0].mag.t[i];
    brk[nb++] = 1e300;
    int ib = 0;
    while (brk[ib] <= 0.0) ib++;
    CVodeSetStopTime(mem, brk[ib]);
    double t = 0.0;
    tr->n = 0;
    for (int i = 0; i < at->n; i++) {
        const double tout = at->t[i];
        while (tout > t + 1e-12) { /* sample times are multiples of dt, rounded */
            const double target = fmin(tout, brk[ib]);
            int flag = CVode(mem, target, y, &t, CV_NORMAL);
            cr_assert(flag >= 0, "CVODE failed at t = %g (flag %d)", t, flag);
            if (t >= brk[ib]) { /* past a jump of the load: restart with the state reached */
                ib++;
                CVodeReInit(mem, t, y);
                CVodeSetStopTime(mem, brk[ib]);
            }
        }
        tr->t[i] = t;
        tr->x[i] = yp[0];
        tr->v[i] = yp[1];
        tr->F[i] = ref_force(&s, t, yp);
    }
    tr->n = at->n;
    long nst = 0;
    CVodeGetNumSteps(mem, &nst);
    cr_log_info("  CVODE: %ld steps", nst);
    N_VDestroy(y);
    SUNMatDestroy(A);
    SUNLinSolFree(LS);
    CVodeFree(&mem);
    SUNContext_Free(&ctx);
}

/* ---- comparisons ---- */

/* x -> its range over the trace */
static double range(const trace *a)
{
    double lo = a->x[0], hi = a->x[0];
    for (int i = 0; i < a->n; i++) lo = fmin(lo, a->x[i]), hi = fmax(hi, a->x[i]);
    return hi - lo;
}

/* break-aways: a stuck phase (|v - vs| < lo) ended by |v - vs| > hi; times into out */
static int breakaways(const trace *a, double vs, double lo, double hi, double *out, int cap)
{
    int n = 0, stuck = 1;
    for (int i = 0; i < a->n; i++) {
        const double s = fabs(a->v[i] - vs);
        if (stuck && s > hi) {
            if (n < cap) out[n] = a->t[i];
            n++;
            stuck = 0;
        } else if (!stuck && s < lo) stuck = 1;
    }
    return n;
}

/* first time |x| exceeds lim (a block leaving its pre-sliding range), or -1 */
static double first_exceed(const trace *a, double lim)
{
    for (int i = 0; i < a->n; i++)
        if (fabs(a->x[i]) > lim) return a->t[i];
    return -1.0;
}

static double x_at(const trace *a, double t)
{
    int best = 0;
    for (int i = 0; i < a->n; i++)
        if (fabs(a->t[i] - t) < fabs(a->t[best] - t)) best = i;
    return a->x[best];
}

/* fixed against reference: displacement within 1 % of its range */
static void check_against_reference(const char *name, const trace *f, const trace *r)
{
    double err = 0.0;
    for (int i = 0; i < f->n; i++) err = fmax(err, fabs(f->x[i] - r->x[i]));
    const double rg = range(r);
    cr_log_info("%s: fixed step vs CVODE: displacement error %.3g of its range %.4g", name, err / rg, rg);
    cr_assert(err <= 0.01 * rg, "%s: displacement differs from CVODE by %.3g of its range", name, err / rg);
}

/* ---- S4a: pulse loads ---- */

/* one pulse study: fixed and reference; x at 0.2, 1.0, 2.0 s, and the break-away (leaving 2 F_s/sigma0) */
static void pulse(const char *model, const char *F, const char *suffix, double out[4])
{
    char name[128];
    snprintf(name, sizeof name, "pulse_%s_%sN%s", model, F, suffix);
    br_model *m = load(name, NULL, 0);
    run_fixed(m, 1e-4, &fixed_run);
    run_reference(m, &fixed_run, &ref_run);
    check_against_reference(name, &fixed_run, &ref_run);
    const double lim = 2.0 * 0.6 * 9.81 / 39000.0;
    const double tf = first_exceed(&fixed_run, lim), tr = first_exceed(&ref_run, lim);
    cr_log_info("%s: x(0.2) = %.6g mm, x(1) = %.6g mm, x(2) = %.6g mm; break-away %.4f s (CVODE %.4f s)", name,
                1e3 * x_at(&fixed_run, 0.2), 1e3 * x_at(&fixed_run, 1.0), 1e3 * x_at(&fixed_run, 2.0), tf, tr);
    cr_assert((tf < 0) == (tr < 0), "%s: break-away in one solution only (%g, %g)", name, tf, tr);
    cr_assert(fabs(tf - tr) <= 0.01, "%s: break-away %g s vs CVODE %g s", name, tf, tr);
    out[0] = x_at(&fixed_run, 0.2), out[1] = x_at(&fixed_run, 1.0), out[2] = x_at(&fixed_run, 2.0), out[3] = tf;
    br_model_free(m);
}

Test(s4a, lugre_drifts_at_2N_and_slides_at_4_5N, .timeout = 300)
{
    double a[4], b[4], c[4];
    pulse("lugre", "2", "", a);
    pulse("lugre", "4.5", "", b);
    pulse("lugre", "5.6", "", c);
    cr_assert(a[2] - a[1] > 1e-6, "LuGre at 2 N must drift (%g mm per cycle)", 1e3 * (a[2] - a[1]));
    cr_assert(b[2] > 1e-3, "LuGre at 4.5 N must slide by millimetres (%g mm)", 1e3 * b[2]);
    cr_assert(c[2] > 1e-3);
}

Test(s4a, static_reg_creeps_per_pulse, .timeout = 300)
{
    double a[4], b[4], c[4];
    pulse("static_reg", "2", "", a);
    pulse("static_reg", "4.5", "", b);
    pulse("static_reg", "5.6", "", c);
    /* creep speed where the parabola gives F_I: F_s q (2 - q) = F_I, v = q v_r */
    const double Fs = 0.6 * 9.81, q = 1.0 - sqrt(1.0 - 2.0 / Fs), creep = q * 1e-3 * 0.1;
    cr_log_info("static_reg 2 N: creep %.6g and %.6g mm per pulse, expected %.6g mm", 1e3 * a[1],
                1e3 * (a[2] - a[1]), 1e3 * creep);
    cr_assert(fabs(a[1] - creep) <= 0.01 * creep && fabs(a[2] - a[1] - creep) <= 0.01 * creep);
    cr_assert(b[2] > 0.0 && c[2] > b[2]);
}

Test(s4a, bristle2_holds_at_2_and_4_5N_slides_at_5_6N_unless_sigma1_is_790, .timeout = 300)
{
    double a[4], b[4], c[4], d[4];
    pulse("bristle2", "2", "", a);
    pulse("bristle2", "4.5", "", b);
    pulse("bristle2", "5.6", "", c);
    pulse("bristle2", "5.6", "_sigma1_790", d);
    const double z2 = 2.0 / 39000.0;
    cr_assert(fabs(a[0] - z2) <= 0.01 * z2, "stuck deflection %g mm, expected F_I/sigma0 = %g mm", 1e3 * a[0],
              1e3 * z2);
    for (int k = 0; k < 2; k++) {
        const double *r = k ? b : a;
        cr_assert(fabs(r[1]) < 1e-6 && fabs(r[2] - r[1]) < 1e-6, "bristle2 drifts: %g, %g mm per cycle",
                  1e3 * r[1], 1e3 * (r[2] - r[1]));
    }
    cr_assert(c[2] > 1e-3, "bristle2 at 5.6 N, sigma1 = 395 must slide (%g mm)", 1e3 * c[2]);
    cr_assert(fabs(d[1]) < 1e-6 && fabs(d[2] - d[1]) < 1e-6, "bristle2 at 5.6 N, sigma1 = 790 must hold (%g mm)",
              1e3 * d[2]);
}

Test(s4a, bristle_implicit_holds_at_2_and_4_5N, .timeout = 300)
{
    double a[4], b[4], c[4];
    pulse("bristle_implicit", "2", "", a);
    pulse("bristle_implicit", "4.5", "", b);
    pulse("bristle_implicit", "5.6", "", c);
    const double z2 = 2.0 / 39000.0;
    cr_assert(fabs(a[0] - z2) <= 0.01 * z2, "stuck deflection %g mm, expected %g mm", 1e3 * a[0], 1e3 * z2);
    for (int k = 0; k < 2; k++) {
        const double *r = k ? b : a;
        cr_assert(fabs(r[1]) < 1e-6 && fabs(r[2] - r[1]) < 1e-6, "bristle_implicit drifts: %g, %g mm per cycle",
                  1e3 * r[1], 1e3 * (r[2] - r[1]));
    }
}

/* ---- S4b: belt ---- */

static void belt(const char *model, double *t_ba, int *nba)
{
    char name[64];
    snprintf(name, sizeof name, "belt_%s", model);
    br_model *m = load(name, NULL, 0);
    run_fixed(m, 1e-3, &fixed_run);
    run_reference(m, &fixed_run, &ref_run);
    check_against_reference(name, &fixed_run, &ref_run);
    double bf[32], br[32];
    const int nf = breakaways(&fixed_run, 0.1, 1e-4, 1e-3, bf, 32);
    const int nr = breakaways(&ref_run, 0.1, 1e-4, 1e-3, br, 32);
    cr_log_info("%s: %d break-aways, first at %.4f s (CVODE: %d, %.4f s)", name, nf, bf[0], nr, br[0]);
    cr_assert_eq(nf, nr, "%s: %d break-aways, CVODE %d", name, nf, nr);
    for (int i = 0; i < nf && i < 32; i++)
        cr_assert(fabs(bf[i] - br[i]) <= 0.01, "%s: break-away %d at %g s, CVODE %g s", name, i, bf[i], br[i]);
    *t_ba = bf[0];
    *nba = nf;
    br_model_free(m);
}

Test(s4b, belt_stick_slip, .timeout = 600)
{
    const double t_ba = 0.15 * 9.81 / (2.0 * 0.1);
    double ts, tb, tl;
    int ns, nb, nl;
    belt("static_reg", &ts, &ns);
    belt("bristle2", &tb, &nb);
    belt("lugre", &tl, &nl);
    cr_log_info("S4b first break-away: static_reg %.4f s, bristle2 %.4f s, lugre %.4f s (mu_s F_N/(k v_b) = %.4f s)",
                ts, tb, tl, t_ba);
    cr_assert(ts >= t_ba && ts <= t_ba + 0.1, "static_reg breaks away at %g s", ts);
    cr_assert(tb >= t_ba && tb <= t_ba + 0.1, "bristle2 breaks away at %g s", tb);
    cr_assert(tl < t_ba, "LuGre must break away earlier (%g s)", tl);
    cr_assert(ns >= 3 && nb >= 3 && nl >= 3, "repeated stick-slip: %d, %d, %d break-aways", ns, nb, nl);
}

/* ---- S4c: rotational stick-slip ---- */

/* trace -> break-away peaks: for each stick-slip cycle the largest torque before the rotor
 * speed passes 0.01 rad/s, and its time */
static int torque_peaks(const trace *a, double *tp, double *taup, int cap)
{
    int n = 0, stuck = 1, i0 = 0;
    for (int i = 0; i < a->n; i++) {
        if (stuck && a->v[i] > 0.01) {
            int j = i0;
            for (int k = i0; k <= i; k++)
                if (a->F[k] > a->F[j]) j = k;
            if (n < cap) tp[n] = a->t[j], taup[n] = a->F[j];
            n++;
            stuck = 0;
        } else if (!stuck && fabs(a->v[i]) < 1e-3) stuck = 1, i0 = i;
    }
    return n;
}

Test(s4c, rotational_stick_slip, .timeout = 300)
{
    br_model *m = load("rotational_stickslip", NULL, 0);
    double lim;
    cr_assert_eq(br_rotfric_not_dissipative(&m->rot[0], &lim), 1, "S4c's parameters violate dissipativity");
    run_fixed(m, 1e-3, &fixed_run);
    run_reference(m, &fixed_run, &ref_run);
    check_against_reference("rotational_stickslip", &fixed_run, &ref_run);
    double tf[16], af[16], tr[16], ar[16], tc[16], ac[16];
    const int nf = torque_peaks(&fixed_run, tf, af, 16), nr = torque_peaks(&ref_run, tr, ar, 16);
    const char *set3 = "time.dt=1e-3";
    br_model *m3 = load("rotational_stickslip", &set3, 1);
    run_fixed(m3, 1e-3, &extra_run);
    const int nc = torque_peaks(&extra_run, tc, ac, 16);
    cr_log_info("S4c: %d break-aways; first at %.4f s with %.6f N m (CVODE %.4f s, %.6f N m; dt = 1e-3 s: "
                "%.4f s, %.6f N m, %.3g %% from dt = 1e-5 s)",
                nf, tf[0], af[0], tr[0], ar[0], tc[0], ac[0], 100.0 * fabs(ac[0] - af[0]) / af[0]);
    cr_assert(nf >= 3, "periodic stick-slip: %d break-aways in 25 s", nf);
    cr_assert_eq(nf, nr);
    for (int i = 0; i < nf && i < 16; i++) {
        cr_assert(fabs(tf[i] - tr[i]) <= 0.01, "break-away %d at %g s, CVODE %g s", i, tf[i], tr[i]);
        cr_assert(af[i] >= 1.45 && af[i] <= 1.52, "break-away torque %g N m outside [1.45, 1.52]", af[i]);
    }
    cr_assert(fabs(tf[0] - 7.4) <= 0.1, "first break-away at %g s, expected near 7.4 s", tf[0]);
    cr_assert(nc >= 1 && fabs(ac[0] - af[0]) <= 0.01 * af[0], "dt = 1e-3 s: break-away torque %g vs %g N m",
              ac[0], af[0]);
    br_model_free(m3);
    br_model_free(m);
}

/* ---- bristle2's fictitious mass in steady sliding (issue 17) ---- */

/* A block of mass m sliding all the time through bristle2 with the source's recipe
 * sigma1 = 2 sqrt(sigma0 m), so m_b = m: its steady amplitude is the mass-m Coulomb answer.
 * (With the tip's inertia riding on the body in slip, as before issue 17, it was a 2 kg
 * oscillator's: 62 % below, at 1.6 times the 1 kg natural frequency.) */
Test(s4, bristle2_forced_sliding_matches_the_mass_m_coulomb_answer, .timeout = 120)
{
    br_model *m = load("forced_bristle2", NULL, 0);
    const br_friction_params *p = &m->cset[0].desc.fric;
    const double mass = m->body[0].mass;
    cr_assert(fabs(br_bristle2_mass(p) - mass) < 1e-12 * mass, "the scenario's m_b (%g kg) must be the block's mass",
              br_bristle2_mass(p));
    const br_timefn *drive = &m->load[0].mag;
    cr_assert(drive->kind == BR_TF_HARMONIC && drive->amp && drive->amp->kind == BR_TF_CONSTANT);
    const coulomb_osc o = {mass, m->spring[0].k, drive->amp->c, 2.0 * M_PI * drive->f,
                           p->mu_k * br_timefn_eval(&m->cset[0].normal_force, 0.0)};
    const double X = coulomb_amplitude(&o), Xlin = fabs(o.F0 / (o.k - o.m * o.w * o.w));
    run_fixed(m, 1e-4, &fixed_run);
    double hi = -INFINITY, lo = INFINITY;
    for (int i = 0; i < fixed_run.n; i++)
        if (fixed_run.t[i] >= m->t_end - 1.0) hi = fmax(hi, fixed_run.x[i]), lo = fmin(lo, fixed_run.x[i]);
    const double amp = 0.5 * (hi - lo);
    cr_log_info("forced_bristle2: steady amplitude %.6g mm, Coulomb (mass m) %.6g mm (%+.2f %%); without friction "
                "%.6g mm",
                1e3 * amp, 1e3 * X, 100.0 * (amp / X - 1.0), 1e3 * Xlin);
    cr_assert(fabs(amp - X) <= 0.03 * X, "amplitude %g mm against the Coulomb answer %g mm", 1e3 * amp, 1e3 * X);
    br_model_free(m);
}

/* The same oscillator at slow and moderate sliding (issue 50): frequency ratios 1.3 to 2 and friction
 * ratios Ff/F0 0.2 to 0.4, the drive (and N with it) scaled so that the peak sliding speed spans 3
 * to 1000 V_st, sigma1 = 2 sqrt(sigma0 m) throughout. Where the tip's inertia stayed on the ground
 * over the slow part of each cycle (before 2026-11-29) the block lost m_b times a few V_st at every
 * stop: 12 to 20 % low at 10 V_st, 53 % at 3 V_st. Bound 3 % (the issue's): the regularized law's
 * own departure from Coulomb (its arc below v_r = V_st/10, 1/30 of the peak speed at 3 V_st) and the
 * frame's lag of a tenth of the tip's time constant at each stop, measured at most 0.8 % over this
 * grid (docs/physics-choices.md). */
Test(s4, bristle2_forced_sliding_matches_coulomb_from_3_to_1000_V_st, .timeout = 300)
{
    static const double ratio[3] = {1.3, 1.6, 2.0}, fric[3] = {0.2, 0.3, 0.4}, speed[2] = {3.0, 1000.0};
    br_model *m = load("forced_bristle2", NULL, 0);
    br_friction_params *p = &m->cset[0].desc.fric;
    br_timefn *drive = &m->load[0].mag;
    cr_assert(drive->kind == BR_TF_HARMONIC && drive->amp && drive->amp->kind == BR_TF_CONSTANT);
    cr_assert(m->cset[0].normal_force.kind == BR_TF_CONSTANT && p->mu_k == p->mu_s);
    const double mass = m->body[0].mass, k = m->spring[0].k, fn = sqrt(k / mass) / (2.0 * M_PI);
    double worst = 0.0, slowest = INFINITY, fastest = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int l = 0; l < 2 + (i == 1 && j == 1); l++) {
                const double target = l < 2 ? speed[l] : 30.0, w = 2.0 * M_PI * fn * ratio[i];
                const coulomb_osc unit = {mass, k, 1.0, w, fric[j] / p->mu_k};
                const double F0 = target * p->V_st / (w * coulomb_amplitude(&unit)); /* peak speed ~ w X */
                const coulomb_osc o = {mass, k, F0, w, fric[j] * F0};
                drive->f = fn * ratio[i];
                drive->amp->c = F0;
                m->cset[0].normal_force.c = fric[j] * F0 / p->mu_k;
                const double X = coulomb_amplitude(&o);
                run_fixed(m, 1e-4, &fixed_run);
                double hi = -INFINITY, lo = INFINITY, vpk = 0.0;
                for (int n = 0; n < fixed_run.n; n++)
                    if (fixed_run.t[n] >= m->t_end - 1.0)
                        hi = fmax(hi, fixed_run.x[n]), lo = fmin(lo, fixed_run.x[n]), vpk = fmax(vpk, fabs(fixed_run.v[n]));
                const double amp = 0.5 * (hi - lo), e = amp / X - 1.0;
                cr_log_info("bristle2 forced: r %.1f, Ff/F0 %.1f, peak speed %7.1f V_st: amplitude %+.2f %% of Coulomb",
                            ratio[i], fric[j], vpk / p->V_st, 100.0 * e);
                worst = fmax(worst, fabs(e));
                slowest = fmin(slowest, vpk / p->V_st), fastest = fmax(fastest, vpk / p->V_st);
                cr_expect(fabs(e) <= 0.03, "r %.1f, Ff/F0 %.1f, peak %.1f V_st: amplitude %g mm, Coulomb %g mm",
                          ratio[i], fric[j], vpk / p->V_st, 1e3 * amp, 1e3 * X);
            }
    cr_log_info("bristle2 forced: peak sliding speeds %.2f to %.0f V_st, worst amplitude error %.2f %%", slowest,
                fastest, 100.0 * worst);
    /* the drive is set for peak speeds w X of 3 and 1000 V_st; the measured peaks lie within a few per cent of
     * w X (3.01 to 3.1, 1004 to 1026): bounds 10 % */
    cr_assert(slowest <= 3.3 && fastest >= 900.0, "the sweep must span 3 to 1000 V_st (%g to %g)", slowest, fastest);
    br_model_free(m);
}
