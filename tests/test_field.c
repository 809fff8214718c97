/* test_field.c: the contact field (host/field/field.c, host/field/field_cpu.c): the 3D
 * law against the 1-D LuGre along random lines, out-of-contact reset, wrench
 * bookkeeping, a 1e5-point field against one-point-at-a-time evaluation
 * (benchmarks/baseline_aos.c), bitwise determinism, input validation. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/baseline_aos.h"
#include "field/field.h"
#include "model/laws.h"
#include "field/patch.h"
#include "testutil.h"

static void identity(double R[9])
{
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1.0;
}

/* seed -> random rotation matrix (unit quaternion from 4 normals) */
static void random_rotation(unsigned *seed, double R[9])
{
    double q[4], n = 0;
    for (int k = 0; k < 4; k++) {
        double u1 = (rand_r(seed) + 1.0) / (RAND_MAX + 2.0), u2 = rand_r(seed) / (RAND_MAX + 1.0);
        q[k] = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
        n += q[k] * q[k];
    }
    n = sqrt(n);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(R, M, sizeof M);
}

/* one point of S1's set, as a description */
static br_contact_set_desc one_point(const double *r, int law)
{
    br_contact_set_desc d = {0};
    d.name = "one";
    d.frame_a = 1;
    d.frame_b = 0;
    d.plane_n[2] = 1.0;
    d.npoints = 1;
    d.r = r;
    d.K0 = (3 * sqrt(3) / 2 * 0.05 * 0.05 / 6) / (3e-9 * 3e-9);
    d.D0 = 4.88e5;
    d.normal.pK = 2.0;
    d.normal.pD = 0.5;
    d.law = law;
    d.fric = s1_lugre();
    d.v_stick = 1e-4;
    return d;
}

/* Random plane orientation and sliding line: the field's friction force on A
 * equals -F1 u, F1 from the 1-D modified LuGre written here with libm, to 1e-12
 * of the force scale. */
Test(field, lugre3d_along_a_line_equals_1d_law)
{
    unsigned seed = 7;
    for (int trial = 0; trial < 5; trial++) {
        const double r[3] = {0, 0, 0};
        br_contact_set_desc d = one_point(r, BR_LAW_LUGRE3D);
        char err[256];
        br_field *f = br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err);
        cr_assert_not_null(f, "%s", err);
        br_frame_state fr[2];
        memset(fr, 0, sizeof fr);
        random_rotation(&seed, fr[0].R);
        memcpy(fr[1].R, fr[0].R, sizeof fr[0].R);
        const double nw[3] = {fr[0].R[2], fr[0].R[5], fr[0].R[8]}; /* R_B e_z */
        double t1[3] = {fr[0].R[0], fr[0].R[3], fr[0].R[6]}, t2[3] = {fr[0].R[1], fr[0].R[4], fr[0].R[7]};
        const double ang = 2 * M_PI * rand_r(&seed) / (RAND_MAX + 1.0);
        double u[3];
        for (int j = 0; j < 3; j++) u[j] = cos(ang) * t1[j] + sin(ang) * t2[j];
        const double delta0 = 1.5e-7;
        for (int j = 0; j < 3; j++) fr[1].x[j] = -delta0 * nw[j];
        const double N = d.K0 * delta0 * delta0;
        const br_friction_params p = d.fric;
        double z = 0.0, fscale = 0.0, maxdiff = 0.0;
        const double h = 1e-4;
        for (int s = 0; s < 5000; s++) {
            const double t = (s + 1) * h;
            const double sp = 5e-3 * sin(2 * M_PI * 3 * t) + 1e-3;
            for (int j = 0; j < 3; j++) fr[1].v[j] = sp * u[j];
            br_set_result res;
            cr_assert_eq(br_field_step(f, fr, NULL, h, &res, err, sizeof err), 0, "%s", err);
            /* 1-D modified LuGre, exact update for frozen speed */
            const double v = fabs(sp);
            const double G = p.mu_k + (p.mu_s - p.mu_k) * exp(-pow(v / p.V_st, 2));
            const double a = p.sigma0 * v / G;
            const double phi = a * h < 1e-10 ? h : -expm1(-a * h) / a;
            z += (sp - a * z) * phi;
            const double F1 = (p.sigma0 * z + p.sigma1 * (sp - a * z) + p.sigma2 * sp) * N;
            for (int j = 0; j < 3; j++) {
                double dj = fabs(res.Ff_A[j] + F1 * u[j]);
                maxdiff = dj > maxdiff ? dj : maxdiff;
            }
            fscale = fabs(F1) > fscale ? fabs(F1) : fscale;
            cr_assert_float_eq(res.N, N, 1e-12 * N);
        }
        cr_assert_lt(maxdiff / fscale, 1e-12, "trial %d: 3D vs 1D relative %g", trial, maxdiff / fscale);
        br_field_destroy(f);
    }
}

/* sliding in contact, then lifted off: N = 0, F = 0, state reset to zero */
Test(field, out_of_contact_resets_state)
{
    const double r[3] = {0.01, -0.02, 0};
    br_contact_set_desc d = one_point(r, BR_LAW_LUGRE3D);
    char err[256];
    br_field *f = br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f);
    br_frame_state fr[2];
    memset(fr, 0, sizeof fr);
    identity(fr[0].R);
    identity(fr[1].R);
    fr[1].x[2] = -1e-7;
    fr[1].v[0] = 2e-4;
    br_set_result res;
    for (int s = 0; s < 100; s++) br_field_step(f, fr, NULL, 1e-4, &res, err, sizeof err);
    double Z[3];
    br_field_get_state(f, 0, Z);
    cr_assert_gt(fabs(Z[0]), 0.0);
    cr_assert_eq(res.ncontact, 1);
    fr[1].x[2] = 1e-7; /* lifted */
    br_field_step(f, fr, NULL, 1e-4, &res, err, sizeof err);
    br_field_get_state(f, 0, Z);
    cr_assert_eq(res.N, 0.0);
    cr_assert_eq(res.Ff_A[0], 0.0);
    cr_assert_eq(res.Ff_A[1], 0.0);
    cr_assert_eq(res.ncontact, 0);
    cr_assert_eq(res.pen_max, 0.0);
    cr_assert(Z[0] == 0.0 && Z[1] == 0.0 && Z[2] == 0.0, "state not reset");
    br_field_destroy(f);
}

/* one point at r = (0.1, 0, 0) on A sliding along +y: force and moment on both
 * frames from the lever arms, B's origin placed at (2, 0, 0) */
Test(field, wrenches_on_both_frames)
{
    const double r[3] = {0.1, 0, 0};
    br_contact_set_desc d = one_point(r, BR_LAW_GKF);
    d.fric.eps = 1e-4;
    char err[256];
    br_field *f = br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    br_frame_state fr[2];
    memset(fr, 0, sizeof fr);
    identity(fr[0].R);
    identity(fr[1].R);
    fr[0].x[0] = 2.0;                 /* B's origin; plane point (0,0,0) in B */
    fr[1].x[2] = -1e-7;               /* A pressed into the plane */
    fr[1].v[1] = 5e-3;                /* sliding along +y */
    br_set_result res;
    br_field_step(f, fr, NULL, 1e-4, &res, err, sizeof err);
    const double N = d.K0 * 1e-14, Ft = (0.1 + 0.05 * exp(-25.0)) * N;
    cr_assert_float_eq(res.N, N, 1e-12 * N);
    cr_assert_float_eq(res.Ff_A[1], -Ft, 1e-12 * Ft);         /* drag on A opposes +y */
    cr_assert_float_eq(res.F_A[2], N, 1e-12 * N);             /* normal pushes A up */
    /* moments about A's origin: r x (0, -Ft, N) = (0, -0.1 N, -0.1 Ft) */
    cr_assert_float_eq(res.M_A[1], -0.1 * N, 1e-12 * N);
    cr_assert_float_eq(res.M_A[2], -0.1 * Ft, 1e-12 * Ft);
    cr_assert_float_eq(res.Mf_A[2], -0.1 * Ft, 1e-12 * Ft);
    /* on B about (2,0,0): lever (0.1 - 2, 0, -1e-7) x (0, Ft, -N) */
    const double lx = 0.1 - 2.0, lz = -1e-7;
    cr_assert_float_eq(res.M_B[0], -lz * Ft, 1e-9 * N);
    cr_assert_float_eq(res.M_B[1], lx * N, 1e-12 * N);
    cr_assert_float_eq(res.M_B[2], lx * Ft, 1e-12 * Ft);
    cr_assert_float_eq(res.P, Ft * 5e-3, 1e-12 * Ft * 5e-3);
    br_field_destroy(f);
}

/* 1e5 random points: the field's set totals equal the one-point-at-a-time sums
 * of the AoS baseline to 1e-12 (relative to each quantity's scale over the
 * run), for every law */
Test(field, field_equals_sum_of_single_points, .timeout = 120)
{
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 100000, law, 99), 0);
        char err[256];
        br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
        cr_assert_not_null(f, "%s", err);
        br_baseline *b = br_baseline_create(&pa.desc);
        res_cmp c;
        memset(&c, 0, sizeof c);
        double E = 0.0, Eb_nd = 0.0;
        long nstick = 0;
        for (int s = 0; s < 40; s++) {
            const double h = 1e-4, t = s * 2.5e-3; /* frames sampled over one speed period */
            br_frame_state fr[2];
            br_patch_frames(t, fr);
            br_set_result rf, rb;
            cr_assert_eq(br_field_step(f, fr, NULL, h, &rf, err, sizeof err), 0);
            br_set_frame sf;
            br_set_sums m;
            br_set_frame_build(&pa.desc, &fr[1], &fr[0], &sf);
            br_baseline_step(b, &sf, h, &m);
            memset(&rb, 0, sizeof rb);
            E += m.P * h;
            Eb_nd += m.P_nd * h;
            /* on B about B's origin: F_B = -F_A, M_B = -(M_A + (x_A - x_B) x F_A) */
            const double *xa = fr[1].x, *xb = fr[0].x;
            const double l[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
            const double lxF[3] = {l[1] * m.Fc[2] - l[2] * m.Fc[1], l[2] * m.Fc[0] - l[0] * m.Fc[2],
                                   l[0] * m.Fc[1] - l[1] * m.Fc[0]};
            for (int j = 0; j < 3; j++) {
                rb.F_A[j] = m.Fc[j];
                rb.M_A[j] = m.Mc[j];
                rb.Ff_A[j] = m.F[j];
                rb.Mf_A[j] = m.Mf[j];
                rb.F_B[j] = -m.Fc[j];
                rb.M_B[j] = -(m.Mc[j] + lxF[j]);
            }
            rb.N = m.N, rb.P = m.P, rb.E = E, rb.E_el = m.E_el, rb.E_nd = Eb_nd, rb.E_b = m.E_b;
            rb.ncontact = (long)m.ncontact, rb.nstick = (long)m.nstick, rb.pen_max = m.pen_max;
            rb.vt_max = m.vt_max;
            res_cmp_add(&c, &rf, &rb);
            cr_assert_eq(rf.ncontact, rb.ncontact);
            cr_assert_eq(rf.nstick, rb.nstick);
            nstick += rf.nstick;
        }
        int which;
        double w = res_cmp_worst(&c, &which);
        cr_log_info("law %s: worst relative difference %.3g (entry %d), stuck point-steps %ld",
                    br_law_name(law), w, which, nstick);
        cr_assert_lt(w, 1e-12, "law %s: entry %d differs by %g", br_law_name(law), which, w);
        cr_assert_gt(nstick, 0, "the comparison must include stuck points");
        br_baseline_destroy(b);
        br_field_destroy(f);
        br_patch_free(&pa);
    }
}

/* Sets too few to fill a vector (host/field/field_cpu_law.c, cpu_lanes_small: a set alone, three alike) are stepped
 * lane by lane with their points vectorized, in blocks of 32, and must give the bits of the lane loop over a vector of
 * sets (nine alike, one block of nine lanes): every law that runs in lanes (all but gms), with and without the wrench
 * tangent, 100 points a set (three whole blocks and a part), 40 steps over one speed period of the patch's motion (from
 * rest, through stick and slip; jenkins with steps of 2.5 ms, so that it slips too), every step's result of every set
 * bitwise that of the nine-set field's first set. */
Test(field, small_groups_are_bitwise_the_lane_loop, .timeout = 120)
{
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        if (law == BR_LAW_GMS) continue;
        for (int tan = 0; tan < 2; tan++) {
            br_patch pa;
            cr_assert_eq(br_patch_make(&pa, 100, law, 7), 0);
            pa.desc.tangent = tan;
            br_contact_set_desc d[9];
            for (int k = 0; k < 9; k++) d[k] = pa.desc;
            char err[256];
            br_field *f[3];
            const int ns[3] = {1, 3, 9};
            for (int k = 0; k < 3; k++) {
                f[k] = br_field_create(d, ns[k], BR_BACKEND_CPU, err, sizeof err);
                cr_assert_not_null(f[k], "%s", err);
            }
            long same = 0, stuck = 0, slip = 0;
            for (int s = 0; s < 40; s++) {
                br_frame_state fr[2];
                br_patch_frames(s * 2.5e-3, fr);
                br_set_result r[3][9];
                const double h = law == BR_LAW_JENKINS ? 2.5e-3 : 1e-4; /* jenkins: a slip distance that passes mu N / kt */
                for (int k = 0; k < 3; k++) cr_assert_eq(br_field_step(f[k], fr, NULL, h, r[k], err, sizeof err), 0, "%s", err);
                for (int k = 0; k < 2; k++)
                    for (int q = 0; q < ns[k]; q++) {
                        cr_assert(!memcmp(&r[k][q], &r[2][0], sizeof r[2][0]), "law %s, tangent %d, step %d: set %d of %d "
                                  "differs from the nine-set field's (N %.17g against %.17g)", br_law_name(law), tan, s, q,
                                  ns[k], r[k][q].N, r[2][0].N);
                        same++;
                    }
                stuck += r[2][0].nstick, slip += r[2][0].ncontact - r[2][0].nstick;
            }
            cr_assert(stuck > 0 && slip > 0, "law %s: stick and slip both stepped (%ld, %ld)", br_law_name(law), stuck, slip);
            cr_log_info("law %s, tangent %d: %ld set-steps bitwise the lane loop's", br_law_name(law), tan, same);
            for (int k = 0; k < 3; k++) br_field_destroy(f[k]);
            br_patch_free(&pa);
        }
    }
}

/* frames and step s of the bristle_implicit stick-pass test: 60 steps of 2.5 us from rest (every
 * point sticks), 40 of 10 us from t = 0.02 s (sliding), 40 of 2.5 us from rest again (the
 * deflected bristles stick) */
static double bi_phase(int s, br_frame_state fr[2])
{
    const double h = s < 60 || s >= 100 ? 2.5e-6 : 1e-5;
    br_patch_frames(s < 60 ? s * h : (s < 100 ? 0.02 + (s - 60) * h : (s - 100) * h), fr);
    return h;
}

/* bristle_implicit on the CPU: a chunk whose points all stick runs without the slip solve and is
 * redone with it when a point slips; after a slip it keeps the solve for a while (host/field/field_cpu.c,
 * cpu_chunk_stick). Through stick, a jump into sliding, sliding and sticking again, every point's
 * state after every step equals, bit for bit, that of br_point_step one point at a time (which
 * always solves), the set totals agree with its to 1e-12, and a field started afresh from the
 * states at the return to stick (as a resumed run is: no history of which chunks slipped) gives
 * bitwise the same totals as the one that ran through. The last check relies on the stick pass and
 * the loop with the solve summing in one order, which holds while gcc gives both loops the same
 * vector width and chain count (both are the same omp simd loop over the same sums); a build
 * where they differ fails here rather than changing results silently. */
Test(field, bristle_implicit_stick_pass_leaves_no_trace, .timeout = 60)
{
    const long n = 3 * 2048 + 100; /* four chunks, the last one short */
    const int S = 140, RESUME = 100;
    br_patch pa;
    cr_assert_eq(br_patch_make(&pa, n, BR_LAW_BRISTLE_IMPLICIT, 7), 0);
    char err[256];
    br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    double *geo = malloc(5 * n * sizeof(double)), *ref = calloc(3 * n, sizeof(double));
    double *got = malloc(3 * n * sizeof(double)), *at_resume = malloc(3 * n * sizeof(double));
    br_set_result *res = malloc(S * sizeof *res);
    cr_assert(geo && ref && got && at_resume && res);
    br_set_view v = {.n = n, .law = BR_LAW_BRISTLE_IMPLICIT, .nstate = 3, .rx = geo, .ry = geo + n,
                     .rz = geo + 2 * n, .K = geo + 3 * n, .D = geo + 4 * n, .v_stick = pa.desc.v_stick,
                     .normal = pa.desc.normal, .fric = pa.desc.fric, .state = ref};
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) geo[k * n + i] = pa.r[3 * i + k];
        geo[3 * n + i] = pa.K[i], geo[4 * n + i] = pa.D[i];
    }
    int all_stuck = 0, sliding = 0;
    for (int s = 0; s < S; s++) {
        br_frame_state fr[2];
        const double h = bi_phase(s, fr);
        if (s == RESUME) cr_assert_eq(br_field_get_state(f, 0, at_resume), 0);
        cr_assert_eq(br_field_step(f, fr, NULL, h, &res[s], err, sizeof err), 0, "%s", err);
        const br_set_result *r = &res[s];
        br_set_frame sf;
        br_set_frame_build(&pa.desc, &fr[1], &fr[0], &sf);
        br_set_sums m;
        br_sums_zero(&m);
        for (long i = 0; i < n; i++) br_point_step(BR_LAW_BRISTLE_IMPLICIT, BR_SURF_PLANE, &v, &sf, h, i, &m);
        cr_assert_eq(br_field_get_state(f, 0, got), 0);
        cr_assert_eq(memcmp(got, ref, 3 * n * sizeof(double)), 0, "step %d: the states differ", s);
        cr_assert_float_eq(r->N, m.N, 1e-12 * m.N);
        for (int j = 0; j < 3; j++) cr_assert_float_eq(r->Ff_A[j], m.F[j], 1e-12 * (fabs(m.N) + 1.0));
        cr_assert_float_eq(r->P, m.P, 1e-12 * (fabs(m.P) + 1e-12));
        all_stuck += s >= RESUME && r->ncontact > 0 && r->nstick == r->ncontact;
        sliding += r->nstick < r->ncontact / 2;
    }
    cr_log_info("bristle_implicit: %d steps with every point stuck after the sliding, %d with most sliding",
                all_stuck, sliding);
    cr_assert_gt(all_stuck, 20, "the test must run stuck chunks right after sliding ones");
    cr_assert_gt(sliding, 10, "the test must run sliding chunks");
    br_field_destroy(f);
    f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    cr_assert_eq(br_field_set_state(f, 0, at_resume), 0);
    for (int s = RESUME; s < S; s++) {
        br_frame_state fr[2];
        const double h = bi_phase(s, fr);
        br_set_result r;
        cr_assert_eq(br_field_step(f, fr, NULL, h, &r, err, sizeof err), 0, "%s", err);
        const double a[] = {r.N, r.P, r.E_b, r.Ff_A[0], r.Ff_A[1], r.Ff_A[2], r.Mf_A[0], r.Mf_A[1], r.Mf_A[2]};
        const double b[] = {res[s].N, res[s].P, res[s].E_b, res[s].Ff_A[0], res[s].Ff_A[1], res[s].Ff_A[2],
                            res[s].Mf_A[0], res[s].Mf_A[1], res[s].Mf_A[2]};
        cr_assert_eq(memcmp(a, b, sizeof a), 0, "step %d: the resumed field's totals differ", s);
    }
    free(geo), free(ref), free(got), free(at_resume), free(res);
    br_field_destroy(f);
    br_patch_free(&pa);
}

/* gkf and static_reg on the CPU: a chunk whose points all stick runs without the sliding branch
 * (the Stribeck exponential and a divide a point) and is redone in full when a point slides
 * (host/field/field_cpu.c, cpu_chunk_stick). Through stick, a jump into sliding, sliding and sticking
 * again (the phases of the test above), with the point forces recorded on even steps: every
 * recorded point force and normal force equals, bit for bit, br_point_sums's for that point (the
 * loops' arithmetic, one point at a time), and the set totals agree with the sum of those within
 * 1e-12 (the order of the sums differs). A field started afresh at the return to stick (no history
 * of which chunks slid: it runs the stick pass at once, while the one that ran through keeps the
 * full loop for BR_STICK_RETRY steps) gives bitwise the same totals: the stick pass sums as the
 * full loop does (as for bristle_implicit above). With thr = 0 the patch's branch speed (gkf eps,
 * static_reg v_r, 1e-4 m/s) puts every point of the stick phase below it: the stick pass is kept.
 * thr > 0 moves it to thr, inside the stick phase's range of point speeds, so that chunks mix
 * stuck and sliding points and the stick pass is rejected and redone: the test then asks for such
 * steps. */
static void stateless_stick_pass(int law, double thr)
{
    const long n = 3 * 2048 + 100; /* four chunks, the last one short */
    const int S = 140, RESUME = 100;
    br_patch pa;
    cr_assert_eq(br_patch_make(&pa, n, law, 7), 0);
    if (thr > 0) pa.desc.fric.eps = pa.desc.fric.v_r = thr;
    const double vb = law == BR_LAW_GKF ? pa.desc.fric.eps : pa.desc.fric.v_r;
    char err[256];
    br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    double *geo = malloc(5 * n * sizeof(double)), *F = malloc(3 * n * sizeof(double)), *N = malloc(n * sizeof(double));
    br_set_result *res = malloc(S * sizeof *res);
    cr_assert(geo && F && N && res);
    br_set_view v = {.n = n, .law = law, .nstate = 0, .rx = geo, .ry = geo + n, .rz = geo + 2 * n,
                     .K = geo + 3 * n, .D = geo + 4 * n, .v_stick = pa.desc.v_stick, .normal = pa.desc.normal,
                     .fric = pa.desc.fric, .state = NULL};
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) geo[k * n + i] = pa.r[3 * i + k];
        geo[3 * n + i] = pa.K[i], geo[4 * n + i] = pa.D[i];
    }
    int all_stuck = 0, sliding = 0, mixed = 0;
    for (int s = 0; s < S; s++) {
        long below = 0, above = 0; /* points in contact slower than the branch speed, and the others */
        br_frame_state fr[2];
        const double h = bi_phase(s, fr);
        br_field_record_points(f, s % 2 == 0);
        cr_assert_eq(br_field_step(f, fr, NULL, h, &res[s], err, sizeof err), 0, "%s", err);
        const br_set_result r = res[s];
        br_set_frame sf;
        br_set_frame_build(&pa.desc, &fr[1], &fr[0], &sf);
        br_set_sums m;
        br_sums_zero(&m);
        if (s % 2 == 0) cr_assert_eq(br_field_points(f, 0, F, N), 0);
        for (long i = 0; i < n; i++) {
            const br_set_sums q = br_point_sums(law, BR_SURF_PLANE, &v, &sf, h, i);
            br_sums_combine(&m, &q);
            below += q.ncontact > 0 && q.vt_max < vb, above += q.ncontact > 0 && !(q.vt_max < vb);
            if (s % 2) continue;
            const double a[4] = {F[3 * i], F[3 * i + 1], F[3 * i + 2], N[i]}, b[4] = {q.F[0], q.F[1], q.F[2], q.N};
            cr_assert_eq(memcmp(a, b, sizeof a), 0, "step %d, point %ld: F (%g %g %g) N %g, one point at a time (%g %g %g) %g",
                         s, i, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
        }
        cr_assert_float_eq(r.N, m.N, 1e-12 * m.N);
        for (int j = 0; j < 3; j++) cr_assert_float_eq(r.Ff_A[j], m.F[j], 1e-12 * (fabs(m.N) + 1.0));
        cr_assert_float_eq(r.P, m.P, 1e-12 * (fabs(m.P) + 1e-12));
        all_stuck += below > 0 && above == 0;
        sliding += r.nstick < r.ncontact / 2;
        mixed += below > 0 && above > 0;
    }
    cr_log_info("%s, branch speed %g m/s: %d steps with every point below it, %d with most sliding, %d with points "
                "on both sides of it", br_law_name(law), vb, all_stuck, sliding, mixed);
    if (thr > 0) cr_assert_gt(mixed, 10, "the test must run chunks with points on both sides of the branch speed");
    else cr_assert_gt(all_stuck, 20, "the test must run stuck chunks");
    cr_assert_gt(sliding, 10, "the test must run sliding chunks");
    br_field_destroy(f);
    f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    for (int s = RESUME; s < S; s++) {
        br_frame_state fr[2];
        const double h = bi_phase(s, fr);
        br_field_record_points(f, s % 2 == 0);
        br_set_result r;
        cr_assert_eq(br_field_step(f, fr, NULL, h, &r, err, sizeof err), 0, "%s", err);
        const double a[] = {r.N, r.P, r.E_el, r.P_nd, r.Ff_A[0], r.Ff_A[1], r.Ff_A[2], r.Mf_A[0], r.Mf_A[1],
                            r.Mf_A[2], r.F_A[0], r.F_A[1], r.F_A[2], r.M_A[0], r.M_A[1], r.M_A[2]};
        const br_set_result *q = &res[s];
        const double b[] = {q->N, q->P, q->E_el, q->P_nd, q->Ff_A[0], q->Ff_A[1], q->Ff_A[2], q->Mf_A[0], q->Mf_A[1],
                            q->Mf_A[2], q->F_A[0], q->F_A[1], q->F_A[2], q->M_A[0], q->M_A[1], q->M_A[2]};
        cr_assert_eq(memcmp(a, b, sizeof a), 0, "step %d: the fresh field's totals differ", s);
    }
    free(geo), free(F), free(N), free(res);
    br_field_destroy(f);
    br_patch_free(&pa);
}

Test(field, gkf_stick_pass_leaves_no_trace, .timeout = 60)
{
    stateless_stick_pass(BR_LAW_GKF, 0.0);
    stateless_stick_pass(BR_LAW_GKF, 3e-5);
}

Test(field, static_reg_stick_pass_leaves_no_trace, .timeout = 60)
{
    stateless_stick_pass(BR_LAW_STATIC_REG, 0.0);
    stateless_stick_pass(BR_LAW_STATIC_REG, 3e-5);
}

/* run n steps of the patch with the given thread count -> flattened results of every step */
static void run_patch(int threads, double *out, int steps)
{
    omp_set_num_threads(threads);
    br_patch pa;
    br_patch_make(&pa, 100000, BR_LAW_LUGRE3D, 5);
    char err[256];
    br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    for (int s = 0; s < steps; s++) {
        br_frame_state fr[2];
        br_patch_frames(s * 1e-4, fr);
        br_set_result r;
        br_field_step(f, fr, NULL, 1e-4, &r, err, sizeof err);
        res_flatten(&r, out + (size_t)s * BR_NRES);
    }
    br_field_destroy(f);
    br_patch_free(&pa);
}

Test(field, bitwise_deterministic_across_runs_and_threads, .timeout = 120)
{
    const int steps = 50;
    double *a = calloc((size_t)steps * BR_NRES, sizeof(double));
    double *b = calloc((size_t)steps * BR_NRES, sizeof(double));
    double *c = calloc((size_t)steps * BR_NRES, sizeof(double));
    run_patch(2, a, steps);
    run_patch(2, b, steps);
    run_patch(1, c, steps);
    cr_assert_eq(memcmp(a, b, (size_t)steps * BR_NRES * sizeof(double)), 0, "two runs differ");
    cr_assert_eq(memcmp(a, c, (size_t)steps * BR_NRES * sizeof(double)), 0, "1 vs 2 threads differ");
    cr_assert_gt(fabs(a[(steps - 1) * BR_NRES + 18]), 0.0); /* N: the patch is loaded */
    free(a);
    free(b);
    free(c);
}

Test(field, per_point_readback_matches_totals)
{
    br_patch pa;
    br_patch_make(&pa, 3000, BR_LAW_LUGRE3D, 3);
    char err[256];
    br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    br_field_record_points(f, 1);
    br_frame_state fr[2];
    br_set_result r;
    for (int s = 0; s < 10; s++) {
        br_patch_frames(s * 1e-4, fr);
        br_field_step(f, fr, NULL, 1e-4, &r, err, sizeof err);
    }
    double *F = malloc(3 * 3000 * sizeof(double)), *N = malloc(3000 * sizeof(double));
    cr_assert_eq(br_field_points(f, 0, F, N), 0);
    double sx = 0, sn = 0;
    for (int i = 0; i < 3000; i++) sx += F[3 * i], sn += N[i];
    cr_assert_float_eq(sx, r.Ff_A[0], 1e-12 * fabs(r.Ff_A[0]));
    cr_assert_float_eq(sn, r.N, 1e-12 * r.N);
    free(F);
    free(N);
    br_field_destroy(f);
    br_patch_free(&pa);
}

Test(field, invalid_sets_are_rejected_with_a_message)
{
    const double r[3] = {0, 0, 0};
    char err[256];
    br_contact_set_desc d = one_point(r, BR_LAW_LUGRE3D);
    d.plane_n[2] = 0.5;
    cr_assert_null(br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "unit"), "%s", err);
    d = one_point(r, BR_LAW_LUGRE3D);
    d.normal.pK = 1.3;
    cr_assert_null(br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "multiples of 0.5"), "%s", err);
    d = one_point(r, BR_LAW_LUGRE3D);
    d.fric.mu_s = 0.05;
    cr_assert_null(br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "static friction must not be below kinetic"), "%s", err);
    /* the same table as the scenario reader (host/model/laws.c): checks that once lived in only one of
     * the two (gkf's eps below V_st, dahl3d's mu_k > 0, classic's G_min > 0) */
    br_contact_set_desc g = d;
    g.fric = s1_lugre();
    g.law = BR_LAW_GKF, g.fric.eps = 2e-3;
    cr_assert_null(br_field_create(&g, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "eps must be below V_st"), "%s", err);
    g.fric = s1_lugre();
    g.law = BR_LAW_DAHL3D, g.fric.mu_k = 0.0;
    cr_assert_null(br_field_create(&g, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "dahl3d needs mu_k > 0"), "%s", err);
    g.fric = s1_lugre();
    g.law = BR_LAW_LUGRE3D_CLASSIC, g.fric.G_min = 0.0;
    cr_assert_null(br_field_create(&g, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "G_min must be > 0"), "%s", err);
    d = one_point(r, BR_LAW_LUGRE3D);
    d.K0 = -1.0;
    cr_assert_null(br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err));
    const double bad[3] = {NAN, 0, 0};
    d = one_point(bad, BR_LAW_LUGRE3D);
    cr_assert_null(br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "not finite"), "%s", err);
}

/* asking for cuda where none is usable is an error naming the reason, never a silent fallback */
Test(field, cuda_request_without_gpu_is_an_error)
{
    char why[256];
    if (br_cuda_available(why, sizeof why) > 0) cr_skip_test("a GPU is present: nothing to check");
    const double r[3] = {0, 0, 0};
    br_contact_set_desc d = one_point(r, BR_LAW_LUGRE3D);
    char err[512];
    cr_assert_null(br_field_create(&d, 1, BR_BACKEND_CUDA, err, sizeof err));
    cr_assert(strstr(err, "cuda"), "%s", err);
    br_field *f = br_field_create(&d, 1, BR_BACKEND_AUTO, err, sizeof err);
    cr_assert_not_null(f);
    cr_assert_str_eq(br_field_backend_name(f), "cpu");
    br_field_destroy(f);
}

/* Curved counter surfaces (physics.md section 1): random frames for A and B, 400 points
 * around the outside of a sphere (then a cylinder) on B. Each point's normal force equals
 * Hunt-Crossley evaluated here from its own geometry (closest point, outward normal,
 * penetration R - distance, rate -V.n), to 2e-9 of the largest point force: the two
 * computations subtract different coordinates of up to 0.3 m to get penetrations of up
 * to 2e-7 m, so a few ulp of the coordinates (1e-16 m) move N = K delta^2 by up to
 * 2 dDelta / delta_max = 1e-9 of the largest force. Its friction force lies in the tangent
 * plane (|F.n| < 1e-12 |F|) and opposes the sliding velocity (gkf: parallel to -V_t). */
static void curved_case(int surface)
{
    enum { NP = 400 };
    unsigned seed = 11u + (unsigned)surface;
    br_frame_state fr[2];
    memset(fr, 0, sizeof fr);
    random_rotation(&seed, fr[0].R);
    random_rotation(&seed, fr[1].R);
    for (int j = 0; j < 3; j++) {
        fr[0].x[j] = 0.3 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        fr[1].x[j] = 0.3 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        fr[0].v[j] = 0.02 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        fr[1].v[j] = 0.02 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        fr[0].w[j] = 0.5 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        fr[1].w[j] = 0.5 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
    }
    const double Rs = 0.05, pc[3] = {0.01, -0.02, 0.03}, axB[3] = {0.6, 0.0, 0.8};
    double c[3], ax[3];
    for (int j = 0; j < 3; j++) {
        c[j] = fr[0].x[j] + fr[0].R[3 * j] * pc[0] + fr[0].R[3 * j + 1] * pc[1] + fr[0].R[3 * j + 2] * pc[2];
        ax[j] = fr[0].R[3 * j] * axB[0] + fr[0].R[3 * j + 1] * axB[1] + fr[0].R[3 * j + 2] * axB[2];
    }
    /* points: world positions on random directions at distance R (1 +- 4e-6) from the centre
     * (or the axis), mapped into A's frame */
    static double r[3 * NP];
    for (int i = 0; i < NP; i++) {
        double u[3], l = 0;
        for (int j = 0; j < 3; j++) u[j] = rand_r(&seed) / (double)RAND_MAX - 0.5;
        if (surface == BR_SURF_CYLINDER) {
            double ua = u[0] * ax[0] + u[1] * ax[1] + u[2] * ax[2];
            for (int j = 0; j < 3; j++) u[j] -= ua * ax[j];
        }
        for (int j = 0; j < 3; j++) l += u[j] * u[j];
        l = sqrt(l);
        const double dist = Rs * (1.0 + 4e-6 * (2.0 * rand_r(&seed) / RAND_MAX - 1.0));
        const double along = surface == BR_SURF_CYLINDER ? 0.1 * (rand_r(&seed) / (double)RAND_MAX - 0.5) : 0.0;
        double e[3];
        for (int j = 0; j < 3; j++) e[j] = c[j] + dist * u[j] / l + along * ax[j] - fr[1].x[j];
        for (int j = 0; j < 3; j++) /* R_A^T e */
            r[3 * i + j] = fr[1].R[j] * e[0] + fr[1].R[3 + j] * e[1] + fr[1].R[6 + j] * e[2];
    }
    br_contact_set_desc d = one_point(r, BR_LAW_GKF);
    d.npoints = NP;
    d.fric.eps = 1e-4;
    d.surface = surface;
    d.radius = Rs;
    memcpy(d.plane_p, pc, sizeof pc);
    memcpy(d.plane_n, axB, sizeof axB);
    char err[256];
    br_field *f = br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    br_field_record_points(f, 1);
    br_set_result res;
    /* frames: index 0 is B (the surface), 1 is A (the points) as in one_point */
    cr_assert_eq(br_field_step(f, fr, NULL, 1e-5, &res, err, sizeof err), 0, "%s", err);
    static double F[3 * NP], N[NP];
    cr_assert_eq(br_field_points(f, 0, F, N), 0);
    double worstN = 0, worstT = 0, worstDir = 0, Nsum = 0, Nmax = 0;
    int incontact = 0;
    for (int i = 0; i < NP; i++) {
        double e[3], dv[3], V[3], n[3], l = 0;
        for (int j = 0; j < 3; j++)
            e[j] = fr[1].x[j] + fr[1].R[3 * j] * r[3 * i] + fr[1].R[3 * j + 1] * r[3 * i + 1] + fr[1].R[3 * j + 2] * r[3 * i + 2];
        for (int j = 0; j < 3; j++) dv[j] = e[j] - c[j];
        if (surface == BR_SURF_CYLINDER) {
            const double da = dv[0] * ax[0] + dv[1] * ax[1] + dv[2] * ax[2];
            for (int j = 0; j < 3; j++) dv[j] -= da * ax[j];
        }
        for (int j = 0; j < 3; j++) l += dv[j] * dv[j];
        l = sqrt(l);
        for (int j = 0; j < 3; j++) n[j] = dv[j] / l;
        const double delta = Rs - l;
        const double ra[3] = {e[0] - fr[1].x[0], e[1] - fr[1].x[1], e[2] - fr[1].x[2]};
        const double rb[3] = {e[0] - fr[0].x[0], e[1] - fr[0].x[1], e[2] - fr[0].x[2]};
        for (int j = 0; j < 3; j++) {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            V[j] = fr[1].v[j] + fr[1].w[j1] * ra[j2] - fr[1].w[j2] * ra[j1] -
                   (fr[0].v[j] + fr[0].w[j1] * rb[j2] - fr[0].w[j2] * rb[j1]);
        }
        const double vn = V[0] * n[0] + V[1] * n[1] + V[2] * n[2];
        double Nexp = delta > 0 ? d.K0 * delta * delta + d.D0 * sqrt(delta) * (-vn) : 0.0;
        Nexp = Nexp > 0 ? Nexp : 0.0;
        worstN = fmax(worstN, fabs(N[i] - Nexp));
        Nmax = fmax(Nmax, Nexp);
        Nsum += N[i];
        incontact += delta > 0;
        const double *Fi = F + 3 * i, Fm = sqrt(Fi[0] * Fi[0] + Fi[1] * Fi[1] + Fi[2] * Fi[2]);
        if (Fm > 0) {
            double Vt[3], cr3[3];
            for (int j = 0; j < 3; j++) Vt[j] = V[j] - vn * n[j];
            worstT = fmax(worstT, fabs(Fi[0] * n[0] + Fi[1] * n[1] + Fi[2] * n[2]) / Fm);
            cr3[0] = Fi[1] * Vt[2] - Fi[2] * Vt[1], cr3[1] = Fi[2] * Vt[0] - Fi[0] * Vt[2], cr3[2] = Fi[0] * Vt[1] - Fi[1] * Vt[0];
            const double vtm = sqrt(Vt[0] * Vt[0] + Vt[1] * Vt[1] + Vt[2] * Vt[2]);
            const double dot = Fi[0] * Vt[0] + Fi[1] * Vt[1] + Fi[2] * Vt[2];
            worstDir = fmax(worstDir, sqrt(cr3[0] * cr3[0] + cr3[1] * cr3[1] + cr3[2] * cr3[2]) / (Fm * vtm));
            cr_expect(dot < 0, "point %d: friction on A does not oppose the sliding velocity", i);
        }
    }
    worstN /= Nmax;
    printf("field: %s: %d of %d points in contact, total N %.6g N; per-point N vs geometry %.2g, |F.n|/|F| %.2g, "
           "|F x Vt|/(|F||Vt|) %.2g\n",
           surface == BR_SURF_SPHERE ? "sphere" : "cylinder", incontact, NP, Nsum, worstN, worstT, worstDir);
    cr_expect(incontact > NP / 4 && incontact < 3 * NP / 4);
    cr_expect(fabs(res.N - Nsum) < 1e-12 * Nsum);
    cr_expect(worstN < 2e-9);
    cr_expect(worstT < 1e-12 && worstDir < 1e-12);
    br_field_destroy(f);
}

Test(field, sphere_counter_surface) { curved_case(BR_SURF_SPHERE); }

Test(field, cylinder_counter_surface) { curved_case(BR_SURF_CYLINDER); }

/* `auto` takes the GPU only for fields large enough to gain from it, in sets large enough
 * (br_backend_choose; a GPU is not needed to check the choice) */
Test(field, auto_backend_by_size)
{
    cr_expect_eq(br_backend_choose(BR_BACKEND_AUTO, 1, 6, 1), BR_BACKEND_CPU, "S1's 6 points: the CPU");
    cr_expect_eq(br_backend_choose(BR_BACKEND_AUTO, 1, 100000, 1), BR_BACKEND_CUDA);
    cr_expect_eq(br_backend_choose(BR_BACKEND_AUTO, 1, 9999, 1), BR_BACKEND_CPU, "below the threshold");
    cr_expect_eq(br_backend_choose(BR_BACKEND_AUTO, 0, 100000, 1), BR_BACKEND_CPU, "no GPU");
    cr_expect_eq(br_backend_choose(BR_BACKEND_AUTO, 1, 80008, 20002), BR_BACKEND_CPU,
                 "a 1e4-variant S5b study (2 sets of 4 points a variant): the CPU's lanes");
    cr_expect_eq(br_backend_choose(BR_BACKEND_AUTO, 1, 1000000, 100), BR_BACKEND_CUDA, "100 sets of 1e4 points");
    cr_expect_eq(br_backend_choose(BR_BACKEND_CUDA, 1, 6, 1), BR_BACKEND_CUDA, "asked for: kept");
    cr_expect_eq(br_backend_choose(BR_BACKEND_CPU, 1, 100000, 1), BR_BACKEND_CPU, "asked for: kept");
}
