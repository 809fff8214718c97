/* hbm_aft.c: the contact forces of a periodic motion by alternating frequency-time evaluation
 * (docs/hbm.md, "AFT"): the nonlinear DOFs' harmonics synthesized at N samples a period, the contact
 * field stepped sample after sample (h = T / N) from rest at the mean position, the oscillation ramped
 * in over the first periods, then period after period until the period's force harmonics repeat, and
 * the forces of that period transformed back to harmonics, the last period's taken at each sample's own
 * velocity (a second pass at h = 0). The field is the run's own (host/field/field.c, one copy of every formula). */
#include <complex.h>

#include "analysis/hbm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/laws.h"

void br_hbm_aft_free(br_hbm_aft *a)
{
    br_field_destroy(a->field);
    free(a->desc), free(a->secant), free(a->atexact), free(a->state0), free(a->stbuf), free(a->resB), free(a->gB),
        free(a->GA), free(a->GB), free(a->cs), free(a->fe), free(a->fv), free(a->fset), free(a->used);
    free(a->u), free(a->uprev), free(a->v), free(a->vs), free(a->g), free(a->Gp), free(a->res), free(a->W), free(a->nmin);
    free(a->iu), free(a->ipt), free(a->yi), free(a->gi), free(a->ylast), free(a->warm0), free(a->aa);
    memset(a, 0, sizeof *a);
}

int br_hbm_aft_init(const br_hbm_sys *s, int H, int N, int ramp, int maxper, double ptol, br_hbm_aft *a, char *err,
                    size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->ramp = ramp;
    const br_model *m = s->m;
    a->s = s, a->H = H, a->N = N, a->maxper = maxper, a->ptol = ptol, a->nset = m->nset;
    a->nu = s->nnl * (2 * H + 1);
    const int ns = m->nset, nf = 1 + m->nbody, n = s->ndof;
    a->desc = calloc((size_t)(ns + 1), sizeof *a->desc);
    a->secant = malloc((size_t)(ns + 1) * sizeof(int)), a->atexact = calloc((size_t)(ns + 1), sizeof(int));
    a->cs = malloc((size_t)2 * (H + 1) * N * sizeof(double));
    a->fe = malloc((size_t)nf * sizeof *a->fe), a->fv = malloc((size_t)nf * sizeof *a->fv);
    a->fset = malloc((size_t)(1 + 2 * ns) * sizeof *a->fset);
    a->used = calloc((size_t)nf, 1);
    a->u = calloc((size_t)n, sizeof(double)), a->uprev = calloc((size_t)n, sizeof(double));
    a->v = calloc((size_t)n, sizeof(double)), a->vs = calloc((size_t)n, sizeof(double));
    a->g = malloc((size_t)n * sizeof(double)), a->Gp = malloc((size_t)(a->nu + 1) * sizeof(double));
    a->res = calloc((size_t)(ns + 1), sizeof *a->res), a->W = calloc((size_t)(ns + 1), sizeof(double));
    a->nmin = calloc((size_t)(ns + 1), sizeof(long));
    a->resB = calloc((size_t)(ns + 1), sizeof *a->resB), a->gB = malloc((size_t)n * sizeof(double));
    a->GA = malloc((size_t)(a->nu + 1) * sizeof(double)), a->GB = malloc((size_t)(a->nu + 1) * sizeof(double));
    a->iu = calloc((size_t)(ns + 1), sizeof *a->iu), a->ipt = calloc((size_t)(ns + 1), sizeof *a->ipt);
    a->yi = calloc((size_t)3 * s->nif + 1, sizeof(double)), a->gi = calloc((size_t)2 * s->nif + 1, sizeof(double));
    if (!a->iu || !a->ipt || !a->yi || !a->gi || !a->desc || !a->secant || !a->atexact || !a->resB || !a->gB || !a->GA || !a->GB || !a->cs || !a->fe || !a->fv ||
        !a->fset || !a->used || !a->u || !a->uprev || !a->v || !a->vs || !a->g || !a->Gp || !a->res || !a->W || !a->nmin) {
        snprintf(err, errlen, "hbm: out of memory");
        br_hbm_aft_free(a);
        return -1;
    }
    a->sn = a->cs + (size_t)(H + 1) * N;
    a->vi = a->yi + s->nif, a->yiprev = a->yi + 2 * s->nif, a->giB = a->gi + s->nif;
    for (int k = 0; k <= H; k++)
        for (int j = 0; j < N; j++) { /* k j reduced modulo N: the angles exact */
            const double th = 2.0 * M_PI * (double)(((long)k * j) % N) / N;
            a->cs[(size_t)k * N + j] = cos(th), a->sn[(size_t)k * N + j] = sin(th);
        }
    int nb2 = 0;
    for (int c = 0; c < ns; c++) {
        a->desc[c] = m->cset[c].desc;
        if (!a->desc[c].iface) a->desc[c].frame_a = 1 + 2 * c, a->desc[c].frame_b = 2 + 2 * c; /* an interface: 0 */
        a->desc[c].tangent = 0;
        const long k = br_law_nstate(a->desc[c].law, &a->desc[c].fric);
        a->secant[c] = k > 0;
        a->atexact[c] = k > 0;
        a->any_secant |= k > 0, a->any_exact |= k == 0, a->corr |= a->atexact[c];
        nb2 += a->desc[c].law == BR_LAW_BRISTLE2 ||
               (a->desc[c].law == BR_LAW_BRISTLE_IMPLICIT && !(a->desc[c].fric.sigma1 > 0.0));
        a->used[m->cset[c].desc.frame_a] = a->used[m->cset[c].desc.frame_b] = 1;
        a->nstate += k * a->desc[c].npoints;
    }
    /* bristle_implicit's step at h = 0 without sigma1 is not an evaluation (its slip balance loses its damping
     * term): with such a set every force stays that of the interval's twist (first order in h). bristle2's
     * was not either before 2026-11-29 (its tip momentum took the velocity's jump); since its tip momentum is
     * its frame's (which moves h / (tau + h) of its way, none at h = 0) it is, but bristle2 keeps the first
     * order until its second pass has been measured (docs/hbm.md) */
    if (nb2) {
        a->corr = 0;
        for (int c = 0; c < ns; c++) a->atexact[c] = 0;
    }
    a->field = br_field_create(a->desc, ns, BR_BACKEND_CPU, err, errlen);
    memset(&a->fset[0], 0, sizeof a->fset[0]); /* the ground, an interface set's frames */
    a->fset[0].R[0] = a->fset[0].R[4] = a->fset[0].R[8] = 1.0;
    for (int c = 0; a->field && c < ns; c++)
        if (a->desc[c].iface) br_field_iface(a->field, c, &a->iu[c], &a->ipt[c]);
    a->state0 = calloc((size_t)(a->nstate + 1), sizeof(double));
    a->stbuf = malloc((size_t)(a->nstate + 1) * sizeof(double));
    a->warm0 = malloc((size_t)(a->nstate + 1) * sizeof(double));
    a->ylast = malloc((size_t)(a->nu + 1) * sizeof(double));
    a->aa = malloc((size_t)(a->nstate + 1) * (5 + 2 * BR_AFT_AA) * sizeof(double));
    if (!a->field || !a->state0 || !a->stbuf || !a->warm0 || !a->ylast || !a->aa) {
        if (a->field) snprintf(err, errlen, "hbm: out of memory");
        br_hbm_aft_free(a);
        return -1;
    }
    return 0;
}

/* every set's state set from buf (sets one after the other) */
static void put_states(br_hbm_aft *a, const double *buf)
{
    for (int c = 0; c < a->nset; c++) {
        br_field_set_state(a->field, c, buf);
        buf += (long)br_law_nstate(a->desc[c].law, &a->desc[c].fric) * a->desc[c].npoints;
    }
}

/* every set's state copied into buf (the layout of put_states) */
static void get_states(br_hbm_aft *a, double *buf)
{
    for (int c = 0; c < a->nset; c++) {
        br_field_get_state(a->field, c, buf);
        buf += (long)br_law_nstate(a->desc[c].law, &a->desc[c].fric) * a->desc[c].npoints;
    }
}

/* y, w, sample j, ramp factor r and its rate rd, the interface coordinates' mean factor rm and its rate rmd ->
 * the nonlinear DOFs' displacement a->u and velocity a->v: the mean plus r times the oscillating part; the
 * interface coordinates' a->yi, a->vi: rm times the mean plus r times the oscillating part */
static void synth(br_hbm_aft *a, const double *y, double w, int j, double r, double rd, double rm, double rmd)
{
    const int nl = a->s->nnl, N = a->N, nd = a->s->nnl_dof;
    for (int i = 0; i < nl; i++) {
        double u = 0.0, v = 0.0;
        for (int k = 1; k <= a->H; k++) {
            const double c = a->cs[(size_t)k * N + j], s = a->sn[(size_t)k * N + j];
            const double re = y[(size_t)(2 * k - 1) * nl + i], im = y[(size_t)2 * k * nl + i];
            u += re * c - im * s;
            v -= k * w * (re * s + im * c);
        }
        if (i < nd) a->u[a->s->nl[i]] = y[i] + r * u, a->v[a->s->nl[i]] = r * v + rd * u;
        else a->yi[i - nd] = rm * y[i] + r * u, a->vi[i - nd] = r * v + rd * u + rmd * y[i];
    }
}

/* set c (an interface) -> its points' inputs: u_i = g0_i + the coordinates, the rates the secant's over the
 * interval h (secant) or the sample's own (a->vi) */
static void iface_inputs(br_hbm_aft *a, int c, int secant, double h)
{
    const br_contact_set_desc *d = &a->desc[c];
    const long n = d->npoints;
    const int o = a->s->ifoff[c] - a->s->nnl_dof;
    double *iu = a->iu[c];
    for (long i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            const long k = o + 3 * i + j;
            iu[j * n + i] = a->s->m->cset[c].g0[3 * i + j] + a->yi[k];
            iu[(3 + j) * n + i] = secant ? (a->yi[k] - a->yiprev[k]) / h : a->vi[k];
        }
}

/* set c (an interface) after a field step -> its points' forces on the structure f_i = N n - F into gi */
static void iface_forces(const br_hbm_aft *a, int c, double *gi)
{
    const long n = a->desc[c].npoints;
    const int o = a->s->ifoff[c] - a->s->nnl_dof;
    for (long i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) gi[o + 3 * i + j] = a->ipt[c][(BR_IFACE_F + j) * n + i];
}

/* set c (an interface) -> its friction power over the sample's forces gi and the coordinates' rates: the work
 * the tangential forces take from the structure, -sum f_t . v_t */
static double iface_power(const br_hbm_aft *a, int c, const double *gi)
{
    const long n = a->desc[c].npoints;
    const int o = a->s->ifoff[c] - a->s->nnl_dof;
    double P = 0.0;
    for (long i = 0; i < n; i++)
        for (int j = 0; j < 2; j++) P -= gi[o + 3 * i + j] * a->vi[o + 3 * i + j];
    return P;
}

/* y, w, sample j (of the period), ramp (r, rd) -> one field step over the interval ending there (h), the
 * generalized contact forces in a->g; 0 or -1 with err */
static int sample_step(br_hbm_aft *a, const double *y, double w, int j, double r, double rd, double rm, double rmd,
                       double h, char *err, size_t errlen)
{
    const br_hbm_sys *s = a->s;
    const br_model *m = s->m;
    synth(a, y, w, j, r, rd, rm, rmd);
    for (int i = 0; i < s->nnl_dof; i++) {
        const int d = s->nl[i];
        a->vs[d] = (a->u[d] - a->uprev[d]) / h;
        a->uprev[d] = a->u[d];
    }
    for (int c = 0; c < a->nset; c++)
        if (a->desc[c].iface) iface_inputs(a, c, a->secant[c], h);
    memcpy(a->yiprev, a->yi, (size_t)s->nif * sizeof(double));
    /* the contact sets' frames (the same poses, the twist exact or over the interval) */
    if (a->any_exact || a->corr) br_hbm_frames(s, a->u, a->v, a->used, a->fe);
    if (a->any_secant) br_hbm_frames(s, a->u, a->vs, a->used, a->fv);
    for (int c = 0; c < a->nset; c++) {
        const br_frame_state *f = a->secant[c] ? a->fv : a->fe;
        if (a->desc[c].iface) continue;
        a->fset[1 + 2 * c] = f[m->cset[c].desc.frame_a];
        a->fset[2 + 2 * c] = f[m->cset[c].desc.frame_b];
    }
    char ferr[600];
    if (br_field_step(a->field, a->fset, s->Nset, h, a->res, ferr, sizeof ferr)) {
        snprintf(err, errlen, "hbm: at %.9g Hz, sample %d: %s", w / (2 * M_PI), j, ferr);
        return -1;
    }
    br_hbm_contact_force(s, a->any_exact ? a->fe : a->fv, a->u, a->res, a->g);
    for (int c = 0; c < a->nset; c++)
        if (a->desc[c].iface) iface_forces(a, c, a->gi);
    return 0;
}

/* after sample_step at sample j: the forces at the sample's own velocity, every frame's exact twist and h = 0
 * (an evaluation: the laws' updates move no state over no time; the states are restored all the same, as a
 * radial return or a reset may act at the changed normal force) -> a->resB (the sets of atexact; the others
 * keep the interval's), the generalized forces in a->gB; 0 or -1 with err */
static int sample_exact(br_hbm_aft *a, double w, int j, char *err, size_t errlen)
{
    const br_hbm_sys *s = a->s;
    const br_model *m = s->m;
    for (int c = 0; c < a->nset; c++) {
        if (a->desc[c].iface) {
            iface_inputs(a, c, 0, 0.0);
            continue;
        }
        a->fset[1 + 2 * c] = a->fe[m->cset[c].desc.frame_a];
        a->fset[2 + 2 * c] = a->fe[m->cset[c].desc.frame_b];
    }
    get_states(a, a->stbuf);
    char ferr[600];
    if (br_field_step(a->field, a->fset, s->Nset, 0.0, a->resB, ferr, sizeof ferr)) {
        snprintf(err, errlen, "hbm: at %.9g Hz, sample %d (its own velocity): %s", w / (2 * M_PI), j, ferr);
        return -1;
    }
    put_states(a, a->stbuf);
    for (int c = 0; c < a->nset; c++)
        if (!a->atexact[c]) a->resB[c] = a->res[c];
    br_hbm_contact_force(s, a->fe, a->u, a->resB, a->gB);
    memcpy(a->giB, a->gi, (size_t)s->nif * sizeof(double));
    for (int c = 0; c < a->nset; c++)
        if (a->desc[c].iface && a->atexact[c]) iface_forces(a, c, a->giB);
    return 0;
}

/* g (ndof), the interface coordinates' forces gc (nif), sample jj, period sums G (nu) -> their harmonics at the
 * nonlinear coordinates added (unscaled) */
static void accumulate(const br_hbm_aft *a, const double *g, const double *gc, int jj, double *G)
{
    const int nl = a->s->nnl, N = a->N, nd = a->s->nnl_dof;
    for (int i = 0; i < nl; i++) {
        const double gi = i < nd ? g[a->s->nl[i]] : gc[i - nd];
        G[i] += gi;
        for (int k = 1; k <= a->H; k++) {
            G[(size_t)(2 * k - 1) * nl + i] += gi * a->cs[(size_t)k * N + jj];
            G[(size_t)2 * k * nl + i] -= gi * a->sn[(size_t)k * N + jj];
        }
    }
}

/* period sums G -> the harmonics (the mean over N, the others twice that) */
static void scale(const br_hbm_aft *a, double *G)
{
    for (int i = 0; i < a->nu; i++) G[i] *= (i < a->s->nnl ? 1.0 : 2.0) / a->N;
}

static int march(br_hbm_aft *a, const double *y, double w, double *G, long npts, char *err, size_t errlen);

int br_hbm_aft_save_warm(br_hbm_aft *a, const double *y0, double w)
{
    if (!a->havelast || !a->lastplain || a->wlast != w || memcmp(a->ylast, y0, (size_t)a->nu * sizeof(double))) return 0;
    get_states(a, a->warm0);
    return 1;
}

void br_hbm_aft_merge_counts(br_hbm_aft *into, br_hbm_aft *a)
{
    into->evals += a->evals, into->periods += a->periods, into->capped += a->capped, into->extrapolated += a->extrapolated;
    into->updates += a->updates, into->warm_evals += a->warm_evals, into->warm_periods += a->warm_periods;
    into->accelerated += a->accelerated;
    if (a->max_periods_seen > into->max_periods_seen) into->max_periods_seen = a->max_periods_seen;
    a->evals = a->periods = a->capped = a->extrapolated = a->warm_evals = a->warm_periods = a->accelerated = 0;
    a->max_periods_seen = 0, a->updates = 0.0;
}

int br_hbm_aft_eval_warm(br_hbm_aft *a, const double *warm, const double *y, double w, double *G, char *err, size_t errlen)
{
    const br_hbm_sys *s = a->s;
    long npts = 0;
    for (int c = 0; c < a->nset; c++) npts += a->desc[c].npoints;
    a->havelast = 0, a->warm_evals++;
    put_states(a, warm);
    synth(a, y, w, 0, 1.0, 0.0, 1.0, 0.0); /* the period's start: the previous sample (j = 0) of the march */
    for (int i = 0; i < s->nnl_dof; i++) a->uprev[s->nl[i]] = a->u[s->nl[i]];
    memcpy(a->yiprev, a->yi, (size_t)s->nif * sizeof(double));
    const long p0 = a->periods;
    const int rc = march(a, y, w, G, npts, err, errlen);
    a->warm_periods += a->periods - p0;
    return rc;
}

int br_hbm_aft_eval(br_hbm_aft *a, const double *y, double w, double *G, char *err, size_t errlen)
{
    const br_hbm_sys *s = a->s;
    const int N = a->N;
    const double h = 2.0 * M_PI / w / N;
    long npts = 0;
    for (int c = 0; c < a->nset; c++) npts += a->desc[c].npoints;
    a->evals++, a->havelast = 0;
    /* from rest at the mean position: every state zero, the oscillation ramped in (smoothstep). Deforming
     * interfaces start from the unloaded assembly instead (their coordinates zero, every point at its gap): their
     * mean is ramped in first (the preload, quasi-statically), then the oscillation; a stuck point's mean force
     * then follows its mean displacement (from rest at the mean it would not, and a part held only by the
     * interface would have no tangential stiffness at rest) */
    put_states(a, a->state0);
    const double rm0 = s->nif > 0 ? 0.0 : 1.0;
    synth(a, y, w, 0, 0.0, 0.0, rm0, 0.0);
    for (int i = 0; i < s->nnl_dof; i++) a->uprev[s->nl[i]] = a->u[s->nl[i]];
    memcpy(a->yiprev, a->yi, (size_t)s->nif * sizeof(double));
    const long nramp = (long)a->ramp * N;
    for (int phase = s->nif > 0 ? 0 : 1; phase < 2; phase++)
        for (long j = 1; j <= nramp; j++) {
            const double x = (double)j / nramp, r = x * x * (3.0 - 2.0 * x), rd = 6.0 * x * (1.0 - x) / (nramp * h);
            if (sample_step(a, y, w, (int)(j % N), phase ? r : 0.0, phase ? rd : 0.0, phase ? 1.0 : r, phase ? 0.0 : rd,
                            h, err, errlen))
                return -1;
            a->updates += (double)npts;
        }
    if (march(a, y, w, G, npts, err, errlen)) return -1;
    memcpy(a->ylast, y, (size_t)a->nu * sizeof(double));
    a->wlast = w, a->havelast = 1;
    return 0;
}

static double dot(const double *x, const double *y, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* Anderson's acceleration (type II, depth BR_AFT_AA) of the period map z -> g(z) of every set's states, after a
 * period started at z (the aa buffer's first block) ended at g (the field's states), p the period -> the next
 * period's start: g - dG gamma, gamma minimizing |f - dF gamma| over the last differences (by the normal equations,
 * regularized: 1e-12 of their diagonal), or g itself (the first two periods, where the residual |f| grew by half, or
 * where the extrapolation changes the states by more than 1e4 |f|: the history restarts). The
 * fixed point is the plain march's: a state the period leaves as it is (a stuck element's) stays as it is. */
static void anderson(br_hbm_aft *a, int p, int *k)
{
    const long n = a->nstate;
    double *z = a->aa, *g = z + n, *f = g + n, *fprev = f + n, *gprev = fprev + n, *dF = gprev + n, *dG = dF + BR_AFT_AA * n;
    get_states(a, g);
    for (long i = 0; i < n; i++) f[i] = g[i] - z[i];
    const double fn = dot(f, f, n), fpn = p > 1 ? dot(fprev, fprev, n) : 0.0;
    if (p > 1 && fn > 2.25 * fpn) *k = 0; /* |f| grew by half: the history no longer describes the map */
    else if (p > 1) { /* the newest differences last (slots 0 .. k - 1, the oldest dropped when they are full) */
        if (*k == BR_AFT_AA) {
            memmove(dF, dF + n, (size_t)(BR_AFT_AA - 1) * n * sizeof(double));
            memmove(dG, dG + n, (size_t)(BR_AFT_AA - 1) * n * sizeof(double));
            (*k)--;
        }
        const int slot = *k;
        for (long i = 0; i < n; i++) dF[slot * n + i] = f[i] - fprev[i], dG[slot * n + i] = g[i] - gprev[i];
        (*k)++;
    }
    memcpy(fprev, f, (size_t)n * sizeof(double)), memcpy(gprev, g, (size_t)n * sizeof(double));
    int use = *k > 0 && p >= 3 && fn > 0.0;
    double A[BR_AFT_AA * BR_AFT_AA], b[BR_AFT_AA];
    const int m = *k;
    for (int i = 0; use && i < m; i++) {
        for (int j = 0; j <= i; j++) A[i * m + j] = A[j * m + i] = dot(dF + i * n, dF + j * n, n);
        b[i] = dot(dF + i * n, f, n);
    }
    for (int i = 0; use && i < m; i++) A[i * m + i] *= 1.0 + 1e-12, use = A[i * m + i] > 0.0;
    /* Cholesky of the m x m normal equations, then the two triangular solves */
    for (int j = 0; use && j < m; j++) {
        double d = A[j * m + j];
        for (int q = 0; q < j; q++) d -= A[j * m + q] * A[j * m + q];
        if (!(d > 0.0)) {
            use = 0;
            break;
        }
        A[j * m + j] = sqrt(d);
        for (int i = j + 1; i < m; i++) {
            double v = A[i * m + j];
            for (int q = 0; q < j; q++) v -= A[i * m + q] * A[j * m + q];
            A[i * m + j] = v / A[j * m + j];
        }
    }
    if (use) {
        for (int i = 0; i < m; i++) {
            double v = b[i];
            for (int q = 0; q < i; q++) v -= A[i * m + q] * b[q];
            b[i] = v / A[i * m + i];
        }
        for (int i = m - 1; i >= 0; i--) {
            double v = b[i];
            for (int q = i + 1; q < m; q++) v -= A[q * m + i] * b[q];
            b[i] = v / A[i * m + i];
        }
        double step = 0.0; /* the extrapolation's size against the last period's change */
        for (long i = 0; i < n; i++) {
            double c = 0.0;
            for (int j = 0; j < m; j++) c += dG[j * n + i] * b[j];
            z[i] = g[i] - c, step += c * c;
        }
        if (step > 1e8 * fn) use = 0, *k = 0; /* (a slow mode's limit lies rho / (1 - rho) |f| away: 1e4 |f| at 0.9999) */
    }
    if (getenv("BRISTLE_HBM_AFTDEBUG")) fprintf(stderr, "  anderson: period %d, |f| %.3e, history %d, %s\n", p, sqrt(fn), *k, use ? "extrapolated" : "plain");
    if (!use) memcpy(z, g, (size_t)n * sizeof(double));
    else {
        put_states(a, z);
        a->accelerated++;
    }
}

/* a period's force harmonics G, the last period's (a->Gp) -> their change: per nonlinear coordinate the largest change
 * of its harmonics over their largest, the largest over the coordinates. Each coordinate on its own scale, not below
 * 1e-4 of the largest coordinate's (so that the rounding of the largest forces resolved onto a coordinate, 1e-16 of
 * them, stays below the tolerance, ptol 1e-4 of them: 100 times at ptol 1e-10): a preloaded interface point's 10 N
 * normal force no longer sets the scale its tangential force of 5e-3 N repeats to (a tolerance of 1e-9 N, which left the bristles' slow relaxation 1e-9 N off its periodic state and every
 * forward difference of the Jacobian at an amplitude of 5e-9 m dominated by that) */
static double period_change(const br_hbm_aft *a, const double *G)
{
    const int nl = a->s->nnl, nb = a->nu / nl;
    double all = 0.0, worst = 0.0;
    for (int i = 0; i < a->nu; i++) all = fmax(all, fabs(G[i]));
    for (int j = 0; j < nl; j++) {
        double diff = 0.0, big = 0.0;
        for (int b = 0; b < nb; b++) {
            const int i = b * nl + j;
            diff = fmax(diff, fabs(G[i] - a->Gp[i])), big = fmax(big, fabs(G[i]));
        }
        const double scale = fmax(big, 1e-4 * all);
        if (diff > 0.0) worst = fmax(worst, diff / scale);
    }
    return worst;
}

/* the field at the start of a period of (y, w) -> periods marched until the force harmonics repeat (G), then the
 * corrector's period; 0, or -1 with err */
static int march(br_hbm_aft *a, const double *y, double w, double *G, long npts, char *err, size_t errlen)
{
    const int N = a->N, nu = a->nu;
    const double h = 2.0 * M_PI / w / N;
    int done = 0, aak = 0, extrap = 0;
    const int aa = a->nstate > 0 && !getenv("BRISTLE_HBM_NOAA");
    if (aa) get_states(a, a->aa); /* z: the first period's start */
    double dprev = 0.0, rprev = -1.0;
    for (int p = 1; p <= a->maxper && !done; p++) {
        memset(G, 0, (size_t)nu * sizeof(double));
        memset(a->W, 0, (size_t)a->nset * sizeof(double));
        for (int c = 0; c < a->nset; c++) a->nmin[c] = a->desc[c].npoints;
        for (int j = 1; j <= N; j++) {
            const int jj = j % N;
            if (sample_step(a, y, w, jj, 1.0, 0.0, 1.0, 0.0, h, err, errlen)) return -1;
            accumulate(a, a->g, a->gi, jj, G);
            for (int c = 0; c < a->nset; c++) {
                a->W[c] += (a->desc[c].iface ? iface_power(a, c, a->gi) : a->res[c].P) * h;
                if (a->res[c].ncontact < a->nmin[c]) a->nmin[c] = a->res[c].ncontact;
            }
        }
        scale(a, G);
        a->periods++;
        a->updates += (double)N * (double)npts;
        for (int i = 0; i < nu; i++)
            if (!isfinite(G[i])) {
                snprintf(err, errlen, "hbm: at %.9g Hz the contact forces are not finite (period %d)", w / (2 * M_PI), p);
                return -1;
            }
        const double diff = period_change(a, G);
        done = a->nstate == 0 || (p > 1 && diff <= a->ptol);
        if (getenv("BRISTLE_HBM_AFTDEBUG")) fprintf(stderr, "aft period %d: relative change %.3e\n", p, diff);
        /* a slow geometric approach (bristles near stick relax at a rate proportional to their speed): once
         * the change shrinks by a steady ratio rho a period, the limit is G + (G - G_prev) rho / (1 - rho)
         * (Aitken), taken when that correction times the ratio's drift is within the tolerance */
        const double rho = dprev > 0.0 ? diff / dprev : -1.0;
        if (!done && p >= 4 && rho > 0.0 && rho < 0.999 && rprev > 0.0) {
            const double est = diff * rho / (1.0 - rho), drift = fabs(rho - rprev) / (1.0 - rho);
            if (est <= 1e-2 && est * fmax(drift, 1e-3) <= a->ptol) {
                for (int i = 0; i < nu; i++) G[i] += (G[i] - a->Gp[i]) * rho / (1.0 - rho);
                a->extrapolated++;
                done = extrap = 1;
            }
        }
        dprev = diff, rprev = rho;
        if (p > a->max_periods_seen) a->max_periods_seen = p;
        memcpy(a->Gp, G, (size_t)nu * sizeof(double));
        if (aa && !done) anderson(a, p, &aak);
    }
    if (!done) a->capped++;
    a->lastplain = done && !extrap; /* (a warm start from a state that has not settled inherits its slow approach) */
    /* one more period, each sample stepped over its interval and then evaluated at its own velocity: G moves
     * by the difference of the two passes' harmonics (the states are the same), and W is the second pass's
     * sampled power for the sets it serves */
    if (a->corr) {
        memset(a->GA, 0, (size_t)nu * sizeof(double)), memset(a->GB, 0, (size_t)nu * sizeof(double));
        memset(a->W, 0, (size_t)a->nset * sizeof(double));
        for (int j = 1; j <= N; j++) {
            const int jj = j % N;
            if (sample_step(a, y, w, jj, 1.0, 0.0, 1.0, 0.0, h, err, errlen) || sample_exact(a, w, jj, err, errlen)) return -1;
            accumulate(a, a->g, a->gi, jj, a->GA), accumulate(a, a->gB, a->giB, jj, a->GB);
            for (int c = 0; c < a->nset; c++)
                a->W[c] += (a->desc[c].iface ? iface_power(a, c, a->giB)
                            : a->atexact[c] ? a->resB[c].P : a->res[c].P) * h;
        }
        scale(a, a->GA), scale(a, a->GB);
        for (int i = 0; i < nu; i++) G[i] += a->GB[i] - a->GA[i];
        a->periods++;
        a->updates += 2.0 * (double)N * (double)npts;
    }
    return 0;
}
