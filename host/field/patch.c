/* patch.c: the synthetic contact patch of patch.h. */
#include "field/patch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 step: state -> next state, returns a uniform double in [0, 1) */
static double uniform01(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static const double kRadius = 0.05, kCx = 0.1, kCy = 0.05;
static const double kSigma = 3e-9;     /* roughness compliance of physics.md 2 */
static const double kDArea = 4.88e5 / 4.33e-4; /* S1's per-point D over S1's per-point area */

int br_patch_make(br_patch *p, long n, int law, unsigned long seed)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->r = malloc((size_t)(3 * n) * sizeof(double));
    p->K = malloc((size_t)n * sizeof(double));
    p->D = malloc((size_t)n * sizeof(double));
    if (!p->r || !p->K || !p->D) {
        br_patch_free(p);
        return -1;
    }
    unsigned long long s = seed;
    const double area = M_PI * kRadius * kRadius / (double)n;
    for (long i = 0; i < n; i++) {
        double rad = kRadius * sqrt(uniform01(&s)), th = 2.0 * M_PI * uniform01(&s);
        p->r[3 * i] = kCx + rad * cos(th);
        p->r[3 * i + 1] = kCy + rad * sin(th);
        p->r[3 * i + 2] = 0.0;
        double Ai = area * (0.5 + uniform01(&s)); /* tributary areas vary around the mean */
        p->K[i] = Ai / (kSigma * kSigma);
        p->D[i] = kDArea * Ai;
    }
    br_contact_set_desc *d = &p->desc;
    d->name = "patch";
    d->frame_a = 1;
    d->frame_b = 0;
    d->plane_n[2] = 1.0;
    d->npoints = n;
    d->r = p->r;
    d->K = p->K;
    d->D = p->D;
    d->normal.pK = 2.0;
    d->normal.pD = 0.5;
    d->law = law;
    d->v_stick = 1e-4;
    br_friction_params *f = &d->fric;
    f->update = BR_UPDATE_EXP;
    f->mu_s = 0.15;
    f->mu_k = 0.1;
    f->V_st = 1e-3;
    f->alpha = 2.0;
    const int absolute = br_law_info_of(law)->sigma_abs;
    if (absolute) { /* absolute sigmas for a point carrying ~1/n of 1000 N */
        double Nm = 1000.0 / (double)n;
        f->sigma0 = 1e4 * Nm;
        f->sigma1 = sqrt(1e5) / 10.0 * Nm;
        f->sigma2 = 0.04 * Nm;
    } else {
        f->sigma0 = 1e4;
        f->sigma1 = law == BR_LAW_DAHL3D ? 0.0 : sqrt(1e5) / 10.0;
        f->sigma2 = law == BR_LAW_DAHL3D ? 0.0 : 0.04;
    }
    f->eps = 1e-4;
    f->f_v = 0.0;
    f->v_r = f->V_st / 10.0;
    f->nu = 0.01;
    f->G_min = 1e-12;
    /* jenkins: mu = mu_k, the spring as stiff as the absolute laws' sigma0 */
    f->kt = 1e4 * 1000.0 / (double)n;
    f->c_t = 0.0;
    if (law == BR_LAW_JENKINS) f->mu_s = f->mu_k;
    /* gms: four elements with breakaway displacements 1.5 to 15 um at mu_s */
    static const double share[4] = {0.4, 0.3, 0.2, 0.1}, kfac[4] = {10.0, 4.0, 2.0, 1.0};
    f->gms_M = 4;
    f->gms_C = 1e-3;
    for (int i = 0; i < 4; i++) {
        f->gms_alpha[i] = share[i];
        f->gms_k[i] = kfac[i] * share[i] * 1e4 * 1000.0 / (double)n;
        f->gms_s[i] = 1e-3 * f->gms_k[i];
    }
    return 0;
}

void br_patch_frames(double t, br_frame_state fr[2])
{
    memset(fr, 0, 2 * sizeof *fr);
    for (int k = 0; k < 2; k++) fr[k].R[0] = fr[k].R[4] = fr[k].R[8] = 1.0;
    /* Carrier: tilted 6 urad about X (penetration varies by about +-0.3 um
     * across the disk), pressed 1 um +- 20 % at 5 Hz, sliding at
     * 2 mm/s * sin(2 pi 10 t) along a direction turning at 1 rad/s, spinning
     * at 2e-4 rad/s about Z (rim speed 3e-5 m/s: near the speed reversals
     * every point sticks). */
    const double tilt = 6e-6, pen0 = 1e-6, wz = 2.0 * M_PI * 5.0;
    fr[1].R[4] = cos(tilt);
    fr[1].R[5] = -sin(tilt);
    fr[1].R[7] = sin(tilt);
    fr[1].R[8] = cos(tilt);
    fr[1].x[2] = -pen0 * (1.0 + 0.2 * sin(wz * t)) - sin(tilt) * 0.05;
    fr[1].v[2] = -pen0 * 0.2 * wz * cos(wz * t);
    const double speed = 2e-3 * sin(2.0 * M_PI * 10.0 * t);
    fr[1].v[0] = speed * cos(t);
    fr[1].v[1] = speed * sin(t);
    fr[1].w[2] = 2e-4;
}

void br_patch_free(br_patch *p)
{
    free(p->r);
    free(p->K);
    free(p->D);
    memset(p, 0, sizeof *p);
}
