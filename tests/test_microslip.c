/* test_microslip.c: microslip of a field of jenkins points (physics.md 3.9; issue 19, validation
 * 2). A flat square grid of 14400 points (spacing 2.5 um, 11300 of them inside the contact) on a
 * Winkler foundation (linear normal law, pK = 1: pressure k_n times the local penetration) is
 * pressed by a rigid sphere (R = 10 mm) to d = 1 um, then the sphere is moved tangentially by u.
 * Each point is a jenkins element with kt = kt_area times its area. Against physics.md 3.9's
 * closed forms (local penetration d - r^2 / (2R), contact radius a = sqrt(2 R d)):
 *     backbone  Q(u) = pi k u c^2 + pi mu k_n [d (a^2 - c^2) - (a^4 - c^4) / (4R)],
 *               c^2 = 2R (d - k u / (mu k_n)) (stick disc), Q = mu P beyond u_s = mu k_n d / k
 *     unloading from u_m: Q(u_m) - 2 Q((u_m - u) / 2) (Masing)
 *     energy per cycle at amplitude u_a: 8 integral_0^u_a Q du - 4 u_a Q(u_a)
 * within 0.5 % over the whole backbone (relative to mu P), the unloading branch likewise, and the
 * energy per cycle within 0.5 %. The stick disc shrinks as the closed form says: the points that
 * stick are those inside c(u). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvread.h"
#include "field/field.h"

static const double R = 1e-2, d = 1e-6, kn = 1e12, kt_area = 1e12, mu = 0.5;

/* the closed-form backbone */
static double Q(double u)
{
    const double a2 = 2 * R * d, us = mu * kn * d / kt_area;
    u = fabs(u);
    const double c2 = u < us ? 2 * R * (d - kt_area * u / (mu * kn)) : 0.0;
    return M_PI * kt_area * u * c2 + M_PI * mu * kn * (d * (a2 - c2) - (a2 * a2 - c2 * c2) / (4 * R));
}

/* integral_0^ua Q du by Simpson's rule on 20000 intervals */
static double Qint(double ua)
{
    const int n = 20000;
    double s = Q(0) + Q(ua);
    for (int i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * Q(ua * i / n);
    return s * ua / (3 * n);
}

Test(microslip, sphere_on_a_winkler_field_of_jenkins_points, .timeout = 300)
{
    const double a = sqrt(2 * R * d), sp = 2.5e-6, P = M_PI * kn * R * d * d, us = mu * kn * d / kt_area;
    const int m = 120;
    const long n = (long)m * m;
    double *r = malloc(3 * n * sizeof(double)), *K = malloc(n * sizeof(double)), *D = calloc(n, sizeof(double));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            const long q = (long)i * m + j;
            r[3 * q] = (i - 0.5 * (m - 1)) * sp, r[3 * q + 1] = (j - 0.5 * (m - 1)) * sp, r[3 * q + 2] = 0.0;
            K[q] = kn * sp * sp; /* N = K delta: k_n times the point's area */
        }
    br_contact_set_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.name = "grid";
    sd.frame_a = 0, sd.frame_b = 1;
    sd.surface = BR_SURF_SPHERE;
    sd.radius = R;
    sd.npoints = n, sd.r = r, sd.K = K, sd.D = D;
    sd.normal.pK = 1.0, sd.normal.pD = 0.0;
    sd.law = BR_LAW_JENKINS;
    sd.fric.mu_s = sd.fric.mu_k = mu;
    sd.fric.V_st = 1.0, sd.fric.alpha = 2.0;
    sd.fric.kt_K = kt_area / kn; /* kt = kt_area A = (kt_area / k_n) K */
    char err[512];
    br_field *f = br_field_create(&sd, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    br_field_record_points(f, 1);
    /* A (the grid) at rest at the origin; B (the sphere's centre) at (u, 0, R - d) */
    br_frame_state fr[2];
    memset(fr, 0, sizeof fr);
    for (int k = 0; k < 2; k++) fr[k].R[0] = fr[k].R[4] = fr[k].R[8] = 1.0;
    fr[1].x[2] = R - d;
    const double h = 1e-3;
    /* u: 0 -> 2 us (backbone, 400 steps), 2 us -> -2 us (unloading, 800), -2 us -> 2 us (reloading) */
    const int nb = 400;
    double u = 0.0, worst_b = 0.0, worst_u = 0.0, W = 0.0, worst_c = 0.0;
    double *Np = malloc(n * sizeof(double)), *Fp = malloc(3 * n * sizeof(double));
    br_set_result res;
    for (int k = 0; k < 5 * nb; k++) {
        const double du = (k < nb ? 1 : k < 3 * nb ? -1 : 1) * 2 * us / nb;
        fr[1].v[0] = du / h;
        cr_assert_eq(br_field_step(f, fr, NULL, h, &res, err, sizeof err), 0, "%s", err);
        u += du;
        fr[1].x[0] = u;
        const double Fx = res.Ff_A[0];
        if (k < nb) {
            worst_b = fmax(worst_b, fabs(Fx - Q(u)) / (mu * P));
            /* the stick disc: points of the grid inside c(u) stick, the others (in contact) slip */
            if (k % 50 == 49 && u < us) {
                br_field_points(f, 0, Fp, Np);
                const double c = sqrt(2 * R * (d - kt_area * u / (mu * kn)));
                long wrong = 0, inside = 0;
                for (long q = 0; q < n; q++) {
                    const double rq = hypot(r[3 * q], r[3 * q + 1]);
                    if (!(Np[q] > 0)) continue;
                    const double Ft = sqrt(Fp[3 * q] * Fp[3 * q] + Fp[3 * q + 1] * Fp[3 * q + 1] + Fp[3 * q + 2] * Fp[3 * q + 2]);
                    const int slipping = Ft >= mu * Np[q] * (1 - 1e-12);
                    inside += rq < c;
                    /* away from the disc's rim by one grid spacing, stick and slip are as predicted */
                    if (fabs(rq - c) > sp) wrong += slipping == (rq < c);
                }
                worst_c = fmax(worst_c, (double)wrong);
                printf("microslip: u = %.3f us: stick disc c = %.2f um (%ld points inside), %ld points on the wrong side\n",
                       u / us, 1e6 * c, inside, wrong);
            }
        } else if (k < 3 * nb) {
            const double Qm = Q(2 * us);
            worst_u = fmax(worst_u, fabs(Fx - (Qm - 2 * Q((2 * us - u) / 2))) / (mu * P));
        }
        if (k >= nb) W += res.P * h; /* from u = 2 us round the closed cycle */
    }
    const double ua = 2 * us, Wex = 8 * Qint(ua) - 4 * ua * Q(ua);
    printf("microslip: %ld points, a = %.1f um, P = %.4g N (field: %.4g N)\n", n, 1e6 * a, P, res.N);
    printf("microslip: backbone within %.2g of mu P, Masing unloading within %.2g, energy per cycle %.5g J "
           "(closed form %.5g J, %+.3f %%)\n",
           worst_b, worst_u, W, Wex, 100 * (W - Wex) / Wex);
    cr_expect(fabs(res.N - P) < 5e-3 * P, "normal force %g against pi k_n R d^2 = %g", res.N, P);
    cr_expect(worst_b < 5e-3, "backbone off by %g of mu P", worst_b);
    cr_expect(worst_u < 5e-3, "unloading branch off by %g of mu P", worst_u);
    cr_expect(fabs(W - Wex) < 5e-3 * Wex, "energy per cycle %g against %g", W, Wex);
    cr_expect(worst_c == 0, "points on the wrong side of the stick disc");
    br_field_destroy(f);
    free(r), free(K), free(D), free(Np), free(Fp);
}

/* S8a through a scenario (scenarios/microslip_sphere.yaml, run by the s8a_run fixture): the
 * meshed 14400-point patch, the sphere pressed over 0.25 s and then moved by the table of its
 * x displacement. The force columns of row t are those the field computed for the step from t to
 * t + h (docs/time-stepping.md), whose jenkins springs have taken the step's travel: the row at t
 * goes with u(t + h). Backbone and Masing's branch within 0.5 % of mu P, the friction energy of
 * the +-2 u_s cycle within 0.5 % of the closed form, the count of stuck points against the stick
 * disc's share of the contact within 1 %. */


Test(microslip_run, s8a_scenario)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/timeseries.csv", S8A_DIR);
    csv_table *T = csv_read(path);
    cr_assert(T, "cannot read %s (run through ctest)", path);
    const double P = M_PI * kn * R * d * d, us = mu * kn * d / kt_area, a2 = 2 * R * d, h = 1e-3;
    const int ct = csv_col(T, "t"), cF = csv_col(T, "patch.Fx"), cE = csv_col(T, "patch.E");
    const int cnc = csv_col(T, "patch.ncontact"), cns = csv_col(T, "patch.nstick");
    cr_assert(ct >= 0 && cF >= 0 && cE >= 0 && cnc >= 0 && cns >= 0, "a patch column is missing");
    double wb = 0, wm = 0, wc = 0, E0 = 0, E1 = 0;
    for (long r = 0; r < T->nrows; r++) {
        const double t = csv_at(T, r, ct), s = t + h, Fx = csv_at(T, r, cF);
        if (s > 0.25 && s <= 1.25 + 1e-9) {
            const double u = 2 * us * (s - 0.25);
            wb = fmax(wb, fabs(Fx - Q(u)) / (mu * P));
            const double nc = csv_at(T, r, cnc), ns = csv_at(T, r, cns);
            const double c2 = u < us ? 2 * R * (d - kt_area * u / (mu * kn)) : 0.0;
            if (fabs(fmod(s - 0.25, 0.125)) < 1e-9 && u < 0.9 * us) {
                printf("microslip scenario: u = %.3f us: %.0f of %.0f points stuck, the disc's share %.0f\n", u / us, ns,
                       nc, nc * c2 / a2);
                wc = fmax(wc, fabs(ns - nc * c2 / a2) / nc);
            }
        } else if (s > 1.25 && s <= 2.25 + 1e-9) { /* unloading from 2 us to -2 us */
            const double u = 2 * us - 4 * us * (s - 1.25);
            wm = fmax(wm, fabs(Fx - (Q(2 * us) - 2 * Q((2 * us - u) / 2))) / (mu * P));
        }
        if (fabs(t - 1.25) < 1e-9) E0 = csv_at(T, r, cE);
        if (fabs(t - 3.25) < 1e-9) E1 = csv_at(T, r, cE);
    }
    const double ua = 2 * us, Wex = 8 * Qint(ua) - 4 * ua * Q(ua);
    printf("microslip scenario: backbone within %.2g of mu P, Masing branch %.2g, cycle energy %.5g J against "
           "%.5g J (%+.3f %%), stick count within %.2g\n",
           wb, wm, E1 - E0, Wex, 100 * (E1 - E0 - Wex) / Wex, wc);
    cr_expect(wb < 5e-3 && wm < 5e-3, "backbone %g, Masing %g of mu P", wb, wm);
    cr_expect(fabs(E1 - E0 - Wex) < 5e-3 * Wex, "cycle energy %g against %g", E1 - E0, Wex);
    cr_expect(wc < 1e-2, "stick count off by %g of the contact", wc);
    csv_free(T);
}
