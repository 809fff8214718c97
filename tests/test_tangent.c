/* test_tangent.c: every tangent the field returns against a central finite difference of the
 * same code: per law, dF/dVt and dF/dN of the force after the state update (kernels/point_*.h);
 * Hunt-Crossley's dN/ddelta and dN/ddeltadot; and a contact set's 6x6 wrench tangents (total and
 * friction part) from a field step, against steps from the same state with the frames moved.
 *
 * The stateless laws gkf and static_reg take the secant instead (kernels/point_friction.h):
 * checked for what it is. A point is driven through a history that visits stick, pre-sliding, Stribeck slip, reversals
 * and a varying normal force; at every step the tangent is compared from the state the step
 * starts from. Where a branch of the law switches inside the difference interval (stick to slip,
 * a Stribeck or regularization corner), the two one-sided differences disagree and the point is
 * not a differentiable one: it is counted and skipped, and at least 85 % of the steps must be
 * compared. Tolerance: 1e-5 of the tangent's scale (the fourth-order differences are accurate to about 1e-8). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "field/field.h"
#include "field/patch.h"
#include "testutil.h"

#define NS_MAX (3 * BR_GMS_MAX)

/* law, params, h, Vt, N, state (copied, not changed) -> F after the step (and tangent T if not NULL) */
static void law_force(int law, const br_friction_params *p, double h, const double Vt[3], double N,
                      const double *st0, double F[3], br_fric_tangent *T)
{
    double st[NS_MAX], P;
    memcpy(st, st0, sizeof st);
    br_friction_eval(law, p, h, Vt, br_norm3(Vt), NULL, N, 0.0, st, 1, F, &P, T);
}

/* relative difference of a and b against scale */
static double rel(double a, double b, double scale) { return fabs(a - b) / scale; }

/* One law: drive, compare, report. Returns the worst relative error over the compared steps. */
static double check_law(int law, const br_friction_params *p, double vscale, double N0, int *ncmp, int *nskip)
{
    const double h = 1e-4;
    double st[NS_MAX] = {0};
    double worst = 0.0;
    *ncmp = *nskip = 0;
    for (int k = 0; k < 2000; k++) {
        const double t = k * h;
        /* speed through zero at 5 Hz with amplitude growing from pre-sliding to slip, direction
         * turning; N varying by +-40 % */
        const double amp = vscale * (0.02 + 3.0 * t), sp = amp * sin(2 * M_PI * 5 * t), th = 0.7 * t;
        const double Vt[3] = {sp * cos(th), sp * sin(th), 0.1 * sp * sin(3 * t)};
        const double N = N0 * (1.0 + 0.4 * sin(2 * M_PI * 3 * t));
        double F[3], F0[3];
        br_fric_tangent T;
        law_force(law, p, h, Vt, N, st, F, &T);
        double Jscale = 1e-300, jscale = 1e-300;
        for (int i = 0; i < 9; i++) Jscale = fmax(Jscale, fabs(T.J[i]));
        for (int i = 0; i < 3; i++) jscale = fmax(jscale, fabs(T.jN[i]));
        const double Fs = br_norm3(F) + 1e-300;
        Jscale = fmax(Jscale, 1e-3 * Fs / vscale);
        jscale = fmax(jscale, 1e-3 * Fs / N);
        const double dv = 1e-6 * fmax(br_norm3(Vt), 1e-3 * vscale), dN = 1e-6 * N;
        double err = 0.0;
        int smooth = br_norm3(Vt) > 1e-6 * vscale; /* |Vt| has a corner at 0 */
        if (law == BR_LAW_BRISTLE2) {
            /* bristle2's tangent holds w_F's slope (infinite at the cone |F_0| = F_s) where
             * 1 - |F_0|/F_s < BR_BRISTLE2_CONE_FLOOR: exact only outside that band */
            double u[3], FR[3], s, f;
            br_bristle2_aux ax;
            br_bristle2_tip(p, Vt, N, st, st + 3, u, FR, &s, &f, &ax);
            if (ax.inside && 1.0 - ax.g / ax.Fs < BR_BRISTLE2_CONE_FLOOR) smooth = 0;
        }
        law_force(law, p, h, Vt, N, st, F0, NULL);
        for (int j = 0; j < 4 && smooth; j++) {
            double Fq[4][3]; /* at -2d, -d, +d, +2d */
            const double d = j < 3 ? dv : dN;
            for (int q = 0; q < 4; q++) {
                const double off = (q < 2 ? -1.0 : 1.0) * (q == 0 || q == 3 ? 2.0 : 1.0) * d;
                double V[3] = {Vt[0], Vt[1], Vt[2]}, Nq = N;
                if (j < 3) V[j] += off;
                else Nq += off;
                law_force(law, p, h, V, Nq, st, Fq[q], NULL);
            }
            for (int i = 0; i < 3; i++) {
                /* fourth-order central difference: the second-order one's error f''' d^2 / 6 reached
                 * 1.4e-5 of the scale for bristle_implicit's dF/dN 1e-4 above stick (x(N) curves
                 * on the scale of |F_0| - F_s there; its d^4 term is below 1e-8) */
                const double fd = (8.0 * (Fq[2][i] - Fq[1][i]) - (Fq[3][i] - Fq[0][i])) / (12 * d);
                /* second-order one-sided differences: they agree unless a corner is within 2 d */
                const double up = (-3 * F0[i] + 4 * Fq[2][i] - Fq[3][i]) / (2 * d);
                const double dn = (3 * F0[i] - 4 * Fq[1][i] + Fq[0][i]) / (2 * d);
                const double sc = j < 3 ? Jscale : jscale;
                const double mism = rel(up, dn, sc);
                if (mism > 1e-5) smooth = 0;
                /* the central difference is trusted to the one-sided ones' agreement */
                const double an = j < 3 ? T.J[3 * i + j] : T.jN[i];
                err = fmax(err, fmax(rel(fd, an, sc) - mism, 0.0));
            }
        }
        if (smooth) {
            (*ncmp)++;
            if (err > worst) {
                worst = err;
                if (err > 1e-5)
                    printf("  %s step %d: v = %.3g, N = %.3g: relative error %.3g\n", br_law_name(law), k,
                           br_norm3(Vt), N, err);
            }
        } else {
            (*nskip)++;
        }
        double P;
        br_friction_eval(law, p, h, Vt, br_norm3(Vt), NULL, N, 0.0, st, 1, F, &P, NULL);
    }
    return worst;
}

/* the stateless laws: is F = s(v, N) Vt? (their J is the secant, not the derivative) */
static int stateless(int law) { return law == BR_LAW_GKF || law == BR_LAW_STATIC_REG; }

/* A law with a state: its tangent is the derivative of F after the step. */
Test(tangent, every_law_with_a_state_against_finite_differences)
{
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        if (stateless(law)) continue;
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 200, law, 3), 0);
        br_friction_params p = pa.desc.fric;
        br_patch_free(&pa);
        /* a point of a 200-point, 1000 N patch: about 5 N; speeds up to a few V_st */
        int nc, ns;
        const double worst = check_law(law, &p, 3.0 * p.V_st, 5.0, &nc, &ns);
        printf("tangent: %-16s worst relative error %.2g over %d steps (%d at a corner, skipped)\n",
               br_law_name(law), worst, nc, ns);
        cr_expect(worst < 1e-5, "%s: tangent off by %g", br_law_name(law), worst);
        cr_expect(nc >= 0.85 * (nc + ns), "%s: only %d of %d steps differentiable", br_law_name(law), nc, nc + ns);
        if (law != BR_LAW_DAHL3D && law != BR_LAW_LUGRE3D && law != BR_LAW_LUGRE3D_CLASSIC) continue;
        /* the explicit Euler update of the bristle laws */
        p.update = BR_UPDATE_EULER;
        const double we = check_law(law, &p, 3.0 * p.V_st, 5.0, &nc, &ns);
        printf("tangent: %-16s (euler) worst relative error %.2g over %d steps\n", br_law_name(law), we, nc);
        cr_expect(we < 1e-5);
    }
}

/* The stateless laws: J is the secant s I of F = s(v, N) Vt (kernels/point_friction.h), so J Vt
 * reproduces F (the linearized force passes through zero and changes sign with Vt) and
 * Vt^T J Vt = F . Vt >= 0; jN is the exact derivative (F is linear in N), checked against a
 * central difference. Over the same history as the laws above, stick and slip. */
Test(tangent, stateless_laws_take_the_secant)
{
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        if (!stateless(law)) continue;
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 200, law, 3), 0);
        const br_friction_params p = pa.desc.fric;
        br_patch_free(&pa);
        double worst = 0.0, wN = 0.0, st[NS_MAX] = {0};
        for (int k = 1; k < 2000; k++) {
            const double t = k * 1e-4, vs = 3.0 * p.V_st;
            const double sp = vs * (0.02 + 3.0 * t) * sin(2 * M_PI * 5 * t), th = 0.7 * t;
            const double Vt[3] = {sp * cos(th), sp * sin(th), 0.1 * sp * sin(3 * t)};
            const double N = 5.0 * (1.0 + 0.4 * sin(2 * M_PI * 3 * t)), dN = 1e-6 * N;
            double F[3], Fp[3], Fm[3];
            br_fric_tangent T;
            law_force(law, &p, 1e-4, Vt, N, st, F, &T);
            law_force(law, &p, 1e-4, Vt, N + dN, st, Fp, NULL);
            law_force(law, &p, 1e-4, Vt, N - dN, st, Fm, NULL);
            double JV[3];
            br_mat3_vec(T.J, Vt, JV);
            const double Fs = br_norm3(F) + 1e-300;
            for (int i = 0; i < 3; i++) {
                worst = fmax(worst, fabs(JV[i] - F[i]) / Fs);
                for (int j = 0; j < 3; j++) worst = fmax(worst, fabs(T.J[3 * i + j] - (i == j) * T.J[0]) / fabs(T.J[0]));
                wN = fmax(wN, fabs((Fp[i] - Fm[i]) / (2 * dN) - T.jN[i]) / (Fs / N));
            }
            cr_assert_geq(T.J[0], 0.0, "a negative secant slope");
        }
        printf("tangent: %-16s secant: J Vt against F %.2g, jN against a central difference %.2g\n", br_law_name(law),
               worst, wN);
        cr_expect(worst < 1e-12);
        cr_expect(wN < 1e-7);
    }
}

Test(tangent, hunt_crossley_against_finite_differences)
{
    const br_normal_params np[3] = {{2.0, 0.5}, {1.0, 0.0}, {1.5, 1.0}};
    double worst = 0.0;
    for (int q = 0; q < 3; q++)
        for (int k = 0; k < 50; k++) {
            const double K = 1.4e13, D = 4.88e5, delta = 1e-7 * (1 + k), dd = 1e-4 * sin(k);
            double kn, cn;
            br_hunt_crossley_tangent(&np[q], K, D, delta, dd, &kn, &cn);
            const double N = br_hunt_crossley(&np[q], K, D, delta, dd);
            const double e = 1e-6 * delta, f = 1e-6 * N / (cn > 0.0 ? cn : 1.0);
            const double kfd = (br_hunt_crossley(&np[q], K, D, delta + e, dd) - br_hunt_crossley(&np[q], K, D, delta - e, dd)) / (2 * e);
            const double cfd = (br_hunt_crossley(&np[q], K, D, delta, dd + f) - br_hunt_crossley(&np[q], K, D, delta, dd - f)) / (2 * f);
            const double w = fmax(rel(kfd, kn, fabs(kn)), rel(cfd, cn, fabs(cn)));
            if (w > 1e-7) printf("  hunt_crossley pK %g pD %g, delta %g, rate %g: kn %.9g (fd %.9g), cn %.9g (fd %.9g)\n",
                                 np[q].pK, np[q].pD, delta, dd, kn, kfd, cn, cfd);
            worst = fmax(worst, w);
        }
    double kn, cn;
    br_hunt_crossley_tangent(&np[0], 1e13, 4.88e5, -1e-7, 0.0, &kn, &cn);
    cr_expect(kn == 0.0 && cn == 0.0, "out of contact: no tangent");
    br_hunt_crossley_tangent(&np[0], 1e13, 4.88e5, 1e-7, -10.0, &kn, &cn);
    cr_expect(kn == 0.0 && cn == 0.0, "N clamped at zero: no tangent");
    printf("tangent: hunt_crossley worst relative error %.2g\n", worst);
    cr_expect(worst < 1e-7);
}

/* frame A moved by a small displacement (translation t, rotation r about A's origin, world axes) */
static void move_frame(br_frame_state *A, const double t[3], const double r[3])
{
    for (int j = 0; j < 3; j++) A->x[j] += t[j];
    /* R <- exp([r]x) R, to second order (r is tiny) */
    const double W[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
    double E[9], R[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double w2 = 0.0;
            for (int k = 0; k < 3; k++) w2 += W[3 * i + k] * W[3 * k + j];
            E[3 * i + j] = (i == j) + W[3 * i + j] + 0.5 * w2;
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = E[3 * i] * A->R[j] + E[3 * i + 1] * A->R[3 + j] + E[3 * i + 2] * A->R[6 + j];
    memcpy(A->R, R, sizeof R);
}

/* field with one set, state, frames -> the set's wrench on A after a step from that state
 * (friction part in Wf), the state restored */
static void wrench_after(br_field *f, const double *state, const br_frame_state fr[2], double W[6], double Wf[6])
{
    br_set_result r;
    char err[256];
    cr_assert_eq(br_field_set_state(f, 0, state), 0);
    cr_assert_eq(br_field_step(f, fr, NULL, 1e-4, &r, err, sizeof err), 0, "%s", err);
    for (int j = 0; j < 3; j++) W[j] = r.F_A[j], W[3 + j] = r.M_A[j], Wf[j] = r.Ff_A[j], Wf[3 + j] = r.Mf_A[j];
}

/* A 64-point patch on a plane, every law: K, C, Kf, Cf of a step against central differences of
 * the step's wrench with frame A moved (translation, rotation) or its twist changed (the twist
 * columns for the laws with a state: a stateless law's friction slope is its secant). The patch
 * spins (w != 0) in its history; the frames of the comparison do not spin, so the convective
 * change of Vt with a rotation of A, which the tangent leaves out (point_tangent.h), is zero. */
Test(tangent, set_wrench_against_finite_differences)
{
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 64, law, 5), 0);
        pa.desc.tangent = 1;
        char err[256];
        br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
        cr_assert(f, "%s", err);
        br_frame_state fr[2];
        br_set_result r;
        for (int k = 0; k < 300; k++) {
            br_patch_frames(k * 1e-4, fr);
            cr_assert_eq(br_field_step(f, fr, NULL, 1e-4, &r, err, sizeof err), 0, "%s", err);
        }
        const int ns = br_law_nstate(law, &pa.desc.fric);
        double state[64 * NS_MAX + 1];
        cr_assert_eq(br_field_get_state(f, 0, state), 0);
        br_patch_frames(300 * 1e-4, fr);
        fr[1].w[2] = 0.0;
        cr_assert_eq(br_field_set_state(f, 0, state), 0);
        cr_assert_eq(br_field_step(f, fr, NULL, 1e-4, &r, err, sizeof err), 0, "%s", err);
        const br_set_tangent T = r.tan;
        double worst = 0.0, scale[4] = {1e-300, 1e-300, 1e-300, 1e-300};
        for (int k = 0; k < 36; k++) {
            scale[0] = fmax(scale[0], fabs(T.K[k])), scale[1] = fmax(scale[1], fabs(T.C[k]));
            scale[2] = fmax(scale[2], fabs(T.Kf[k])), scale[3] = fmax(scale[3], fabs(T.Cf[k]));
        }
        for (int c = 0; c < (stateless(law) ? 6 : 12); c++) { /* columns 0-5: displacement, 6-11: twist */
            const double e = c < 3 ? 1e-13 : c < 6 ? 2e-12 : c < 9 ? 1e-9 : 2e-8;
            double Wp[6], Wm[6], Wfp[6], Wfm[6];
            for (int sg = 0; sg < 2; sg++) {
                br_frame_state g[2] = {fr[0], fr[1]};
                const double s = sg ? -e : e;
                double t[3] = {0, 0, 0}, rr[3] = {0, 0, 0};
                if (c < 3) t[c] = s;
                else if (c < 6) rr[c - 3] = s;
                else if (c < 9) g[1].v[c - 6] += s;
                else g[1].w[c - 9] += s;
                move_frame(&g[1], t, rr);
                wrench_after(f, state, g, sg ? Wm : Wp, sg ? Wfm : Wfp);
            }
            for (int rrow = 0; rrow < 6; rrow++) {
                const double fd = -(Wp[rrow] - Wm[rrow]) / (2 * e), fdf = -(Wfp[rrow] - Wfm[rrow]) / (2 * e);
                const double *A = c < 6 ? T.K : T.C, *Af = c < 6 ? T.Kf : T.Cf;
                const int col = c % 6;
                const double e1 = rel(fd, A[6 * col + rrow], scale[c < 6 ? 0 : 1]);
                const double e2 = rel(fdf, Af[6 * col + rrow], scale[c < 6 ? 2 : 3]);
                if (fmax(e1, e2) > 1e-5)
                    printf("  %s: column %d row %d: fd %.6g vs %.6g, friction fd %.6g vs %.6g\n", br_law_name(law), c,
                           rrow, fd, A[6 * col + rrow], fdf, Af[6 * col + rrow]);
                worst = fmax(worst, fmax(e1, e2));
            }
        }
        printf("tangent: set of 64 points, %-16s worst relative error %.2g (K scale %.3g, C scale %.3g)\n",
               br_law_name(law), worst, scale[0], scale[1]);
        cr_expect(worst < 1e-5, "%s: set tangent off by %g", br_law_name(law), worst);
        (void)ns;
        br_field_destroy(f);
        br_patch_free(&pa);
    }
}
